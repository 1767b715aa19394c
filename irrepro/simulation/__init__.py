"""Stochastic simulation of per-topic scores with a known truth: a margin per system and a copula
per pair of systems, after Urbano & Nagler (SIGIR 2018) as used by Urbano, Lima & Hanjalic
(SIGIR 2019, section 3) to measure the type I and type II errors of significance tests.

One-line use::

    from irrepro import data, simulation as sim
    model = sim.fit_collection(data.load_matrix("trec8", "AP"), seed=1)
    pair = model.pair(0, 1, mean_e=model.margins[0].mean)    # H0: equal expected scores
    b, e = pair.sample(n_topics=50, trials=1000, seed=2)      # (trials, topics) each

What is here:

- :class:`Margin` - the distribution of one system's topic scores on [0, 1]: continuous (AP)
  from a truncated normal, a beta or a boundary-corrected kernel density (pyvinecopulib's
  ``Kde1d``), discrete (P@10, support 0, 0.1, ..., 1) from a beta-binomial or a discrete kernel
  density, the candidate with the smallest AIC selected (:func:`fit_margin`);
  :meth:`Margin.with_mean` moves it to a given expected value;
- :func:`fit_copula` - the dependence of two systems' scores: a parametric bivariate copula
  selected by AIC (pyvinecopulib's ``Bicop``);
- :meth:`CollectionModel.pair` - two margins and their copula, whose ``sample`` draws all trials
  of a configuration as one array operation;
- :func:`fit_collection` -> :class:`CollectionModel` - margins of every system of a score matrix
  (duplicates and the bottom 10% by mean removed, as Urbano et al. do) and copulas fitted on
  demand and cached.

**Our choices, where they differ from Urbano et al.'s R code** (``simIReff``, ``VineCopula``):

- the transformation to an expected value (Urbano & Nagler 2018, section 3.4) replaces the CDF
  F by ``Beta(a, b)``'s CDF of F with a, b >= 1 found by an optimiser; we use the one-parameter
  special cases ("Lehmann alternatives") ``F^a`` (a >= 1, to raise the mean) and
  ``1 - (1 - F)^b`` (b >= 1, to lower it), solved exactly for the target mean by root finding;
- continuous likelihoods (for AIC) are evaluated on scores clipped to [0.001, 0.999], where the
  beta density is finite; the kernel candidates are pyvinecopulib's ``Kde1d`` (bandwidth
  multipliers 1, 2, 5 for the discrete one) with their effective degrees of freedom;
- copulas are selected among pyvinecopulib's parametric families (all rotations) by AIC, their
  parameters estimated by inversion of Kendall's tau (``itau``) rather than maximum likelihood:
  about 20 times faster, which lets the book fit its pairs at build time;
- pseudo-observations break ties at random (as Urbano et al.'s ``pobs(ties.method="random")``),
  with a seeded generator.
"""

from ._collection import CollectionModel, fit_collection
from ._copulas import fit_copula, pseudo_obs
from ._margins import Margin, fit_margin

__all__ = ["Margin", "fit_margin", "fit_copula", "pseudo_obs", "CollectionModel", "fit_collection"]
