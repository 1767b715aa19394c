"""Stochastic simulation of per-topic scores with a known truth: a margin per system and a copula per
pair of systems, after Urbano & Nagler (SIGIR 2018) as used by Urbano, Lima & Hanjalic (SIGIR 2019,
section 3) to measure the type I and type II errors of significance tests.

Where we differ from Urbano et al.'s R code (``simIReff``, ``VineCopula``): a margin is moved to an
expected value by the Lehmann alternatives ``F^a`` or ``1 - (1 - F)^b`` (a, b >= 1) solved exactly,
not by an optimised ``Beta(a, b)`` CDF of F (Urbano & Nagler 2018, section 3.4); continuous
likelihoods use scores clipped to [0.001, 0.999]; copula parameters are estimated by inversion of
Kendall's tau (``itau``), about 20 times faster than maximum likelihood; pseudo-observations break
ties at random with a seeded generator, as ``pobs(ties.method="random")``.
"""

from ._collection import CollectionModel, fit_collection  # noqa: F401  (CollectionModel: known_truth's)
from ._copulas import fit_copula, pseudo_obs  # noqa: F401  (known_truth's and design's)

__all__ = ["fit_collection"]
