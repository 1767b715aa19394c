"""The simulation of Urbano, Lima & Hanjalic (SIGIR 2019, section 3) as their R code runs it
(``R/11-type_1.R``, ``12-type_2.R``, ``13-type_3.R`` of julian-urbano/sigir2019-statistical): a
random collection, pair of systems and topic set per trial, copulas selected by AIC with
maximum-likelihood parameters, and their five tests (:func:`irrepro.significance.urbano_tests`)
on a batch of trials at once (:func:`urbano_experiment`, :class:`UrbanoPValues`,
:func:`trials_for_se`; served from :mod:`irrepro.known_truth`)."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ..significance.urbano import URBANO_TESTS, urbano_tests
from ..simulation import CollectionModel, fit_copula
from ._pvalues import ALPHAS, PValues

__all__ = ["URBANO_NULLS", "UrbanoPValues", "trials_for_se", "urbano_experiment"]

#: The nulls :func:`urbano_experiment` simulates with ``delta == 0``: both systems' scores from the
#: baseline's margin (their ``11-type_1.R``), or the experimental margin moved to the baseline's mean.
URBANO_NULLS = ("same-margin", "same-mean")
#: Urbano et al.'s baselines: all but the top quarter of systems by expected score.
_TOP = 0.25
#: Experimental candidates per baseline: the systems closest in mean to the baseline's + delta.
_NEIGHBOURS = 10
_MLE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Copulas fitted per process task.
_CHUNK = 100


def trials_for_se(se: float, rate: float = 0.05) -> int:
    """Trials that give a rate its binomial Monte Carlo standard error ``se`` or less.

    ``ceil(rate (1 - rate) / se^2)``: with a new pair of systems and topic set every trial, the
    trials are independent and the binomial error is the error (``UrbanoPValues.se`` checks
    the clustered one).

    Parameters
    ----------
    se : float
        The largest standard error wanted, > 0.
    rate : float
        The rate whose error it bounds (a type I error at alpha = .05 by default).

    Returns
    -------
    int

    Notes
    -----
    Issue 25, item 4: se <= 0.003 in the book's build, <= 0.0005 at ``IRREPRO_SCALE=full``.

    Examples
    --------
    >>> from irrepro.known_truth import trials_for_se
    >>> trials_for_se(0.003), trials_for_se(0.0005)
    (5278, 190000)
    """
    if not se > 0 or not 0 <= rate <= 1:
        raise InputError(f"se must be > 0 and rate in [0, 1], got se={se}, rate={rate}")
    return max(1, math.ceil(round(rate * (1 - rate) / se**2, 9)))


@dataclass(frozen=True)
class UrbanoPValues(PValues):
    """p-values of Urbano et al.'s tests on every trial of one configuration (:func:`urbano_experiment`).

    A :class:`PValues` whose tests are ``irrepro.significance.urbano.URBANO_TESTS`` (t, wilcoxon,
    sign, bootstrap, permutation), rejected
    as their ``ecdf(p)(alpha)`` counts them (p <= alpha for every test, the resampling ones
    included), with the observed mean differences for their type III errors.

    Attributes
    ----------
    d : numpy.ndarray
        ``(trials,)`` the observed mean difference e - b of each trial.
    alphas : tuple of float
        The significance levels :meth:`frame` reports by default.

    Notes
    -----
    Urbano, Lima & Hanjalic (2019), sections 3-5 (type I, II and III errors).
    """

    d: np.ndarray = field(default_factory=lambda: np.empty(0))
    alphas: tuple = ALPHAS

    def rejected(self, alpha: float, tails: int = 2) -> np.ndarray:
        """Which trials each test rejects: p <= alpha (their empirical CDF of p at alpha).

        Parameters
        ----------
        alpha : float
            The significance level.
        tails : {2, 1}
            Two-tailed, or one-tailed (H1: e > b).

        Returns
        -------
        numpy.ndarray
            ``(tests, trials)`` bool.
        """
        if tails not in (1, 2):
            raise InputError("tails must be 1 or 2")
        return (self.two if tails == 2 else self.one) <= alpha + 1e-12

    def binomial_se(self, alpha: float, tails: int = 2) -> pd.Series:
        """Binomial Monte Carlo standard error of each rate, ``sqrt(r (1 - r) / trials)``.

        Parameters
        ----------
        alpha : float
            The significance level.
        tails : {2, 1}
            As in :meth:`rejected`.

        Returns
        -------
        pandas.Series
            One value per test.
        """
        r = self.rejected(alpha, tails).mean(axis=1)
        return pd.Series(np.sqrt(r * (1 - r) / self.trials), index=list(self.tests))

    def type3(self, alpha: float) -> pd.Series:
        """Type III error rates: two-tailed significance with the observed difference of the wrong sign.

        Their ``13-type_3.R``: the share of trials with ``d < 0`` (the true difference is delta > 0)
        and two-tailed p <= alpha.

        Parameters
        ----------
        alpha : float
            The significance level.

        Returns
        -------
        pandas.Series
            One rate per test.
        """
        wrong = self.rejected(alpha, 2) & (self.d < 0)[None, :]
        return pd.Series(wrong.mean(axis=1), index=list(self.tests))

    def frame(self, alphas=None, tails=(1, 2)) -> pd.DataFrame:
        """Long table: test, tails, alpha, rate, se (clustered by pair), se_binomial, type3, trials, ...

        Parameters
        ----------
        alphas : sequence of float, optional
            Significance levels; None: the ``alphas`` attribute.
        tails : sequence of int
            1 and / or 2.

        Returns
        -------
        pandas.DataFrame
            ``type3`` is the type III rate on the two-tailed rows (NaN on one-tailed ones).
        """
        alphas = self.alphas if alphas is None else alphas
        out = super().frame(alphas, tails)
        out["se_binomial"] = [self.binomial_se(a, tl)[t] for t, tl, a in zip(out.test, out.tails, out.alpha)]
        type3 = {a: self.type3(a) for a in alphas}
        out["type3"] = [
            type3[a][t] if tl == 2 else np.nan for t, tl, a in zip(out.test, out.tails, out.alpha)
        ]
        return out


def _mle(model: CollectionModel) -> CollectionModel:
    """``model`` with its copulas fitted by maximum likelihood (a twin sharing its margins, cached)."""
    if model.copula_method == "mle":
        return model
    twin = _MLE.get(model)
    if twin is None:
        twin = CollectionModel(
            model.name, model.measure, model.systems, model.scores, model.margins, model.seed, "mle"
        )
        _MLE[model] = twin
    return twin


def _candidates(model: CollectionModel, delta: float, null: str) -> dict:
    """Baseline -> [(experimental system, its margin)]: what a trial of ``model`` may draw (margin
    None: the experimental system's own, moved to the baseline's mean when drawn)."""
    mu = model.means
    if delta == 0:
        if null == "same-margin":
            return {i: [(j, model.margins[i]) for j in range(len(mu)) if j != i] for i in range(len(mu))}
        return {i: [(j, None) for j in range(len(mu)) if j != i] for i in range(len(mu))}  # moved lazily
    out = {}
    for i in np.argsort(-mu, kind="stable")[int(round(_TOP * len(mu))) :]:
        js = [j for j in np.argsort(np.abs(mu - mu[i] - delta), kind="stable") if j != i][:_NEIGHBOURS]
        moved = []
        for j in js:
            try:
                moved.append((int(j), model.margins[j].with_mean(mu[i] + delta)))
            except ValueError:  # their effTransform failed: the pair is not a candidate
                continue
        if moved:
            out[int(i)] = moved
    return out


def _fit_pairs(task):
    """The copulas of the pairs ``keys`` of one model, as :meth:`CollectionModel.copula` fits them
    (a process task: the model's scores, seed and method travel, not the model)."""
    scores, seed, method, keys = task
    return [
        fit_copula(
            scores[i],
            scores[j],
            seed=np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, i, j)),
            method=method,
        )
        for i, j in keys
    ]


def _fit_copulas(models, keys, n_jobs) -> None:
    """Fit the copulas of the (collection, i, j) ``keys`` not cached yet (on processes) and cache them."""
    todo = sorted(k for k in keys if (k[1], k[2]) not in models[k[0]]._copulas)
    if parallel.n_jobs(n_jobs) == 1 or len(todo) <= _CHUNK:
        for c, i, j in todo:
            models[c].copula(i, j)
        return
    tasks = []
    for c, m in enumerate(models):
        ij = [(i, j) for cc, i, j in todo if cc == c]
        tasks += [
            (c, (m.scores, m.seed, m.copula_method, ij[a : a + _CHUNK])) for a in range(0, len(ij), _CHUNK)
        ]
    fitted = parallel.parallel_map(_fit_pairs, [t for _, t in tasks], n_jobs=n_jobs, processes=True)
    for (c, (*_, ij)), cops in zip(tasks, fitted):
        for key, cop in zip(ij, cops):
            models[c]._copulas.setdefault(key, cop)


def _test_batch(task):
    """Their tests of one batch of simulated trials (a process task): (two, one, d)."""
    b, e, g_test, tests, B, min_d = task
    p = urbano_tests(b, e, tests=tests, B=B, seed=g_test, min_d=min_d, n_jobs=1)
    two = np.array([p[t].two_tailed for t in tests])
    return two, np.array([p[t].one_tailed for t in tests]), (e - b).mean(axis=1)


def _simulate(cop, i_first: bool, b_margin, e_margin, u1, w):
    """Baseline's and experimental scores from the copula of (min, max) of their indices (fitted
    once, as their ``03-bicops.R`` fits i < j only; ``i_first``: the baseline is the min) and
    uniforms ``u1``, ``w`` (conditional inversion)."""
    v = np.clip(cop.hinv1(np.column_stack([u1, w])), 0.0, 1.0)
    ub, ue = (u1, v) if i_first else (v, u1)
    return b_margin.ppf(ub), e_margin.ppf(ue)


def _simulate_and_test(task):
    """One batch simulated (from its seed ``g_u``) and tested (a process task): (two, one, d).
    ``pairs``: the batch's distinct (copula, baseline first, b margin, e margin); ``which``: each
    trial's."""
    pairs, which, n_topics, g_u, g_test, tests, B, min_d = task
    u1, w = g_u.random((len(which), n_topics)), g_u.random((len(which), n_topics))
    b, e = np.empty((len(which), n_topics)), np.empty((len(which), n_topics))
    for r, q in enumerate(which):
        b[r], e[r] = _simulate(*pairs[q], u1[r], w[r])
    return _test_batch((b, e, g_test, tests, B, min_d))


def urbano_experiment(
    models,
    n_topics: int,
    *,
    trials: int,
    delta: float = 0.0,
    tests=URBANO_TESTS,
    B: int = 1000,
    seed: SeedLike,
    n_jobs: int | None = None,
    batch: int = 500,
    null: str = "same-margin",
    min_d: float = 0.01,
    alphas=ALPHAS,
    label: str = "",
) -> UrbanoPValues:
    """Urbano et al.'s (2019) type I / II / III experiment: a new pair of systems every trial.

    Each trial draws a collection with probability proportional to its number of candidate
    baselines, then a pair of its systems, then ``n_topics`` topic scores from the pair's model.
    With ``delta == 0`` (their ``11-type_1.R``) the two systems are distinct and uniform, and under
    ``null="same-margin"`` both scores come from the first system's margin through the pair's copula
    (identical distributions: every test's null holds); ``null="same-mean"`` moves the second
    system's own margin to the first's expected value instead. With ``delta > 0`` (their
    ``02-margins_transform.R``, ``12-type_2.R``) the baseline is uniform among the bottom 75% of
    systems by expected score and the experimental system uniform among the 10 systems closest in
    expected score to the baseline's + delta whose margin can be moved to exactly that value;
    baselines with none are not drawn. Copulas are selected by AIC among pyvinecopulib's parametric
    families with maximum-likelihood parameters (their ``BiCopSelect``), fitted once per unordered
    pair on the first use and cached on the model. The trials are cut into batches of ``batch``;
    batch ``k`` draws everything from child ``k`` of the seed and runs the five tests on all its
    trials in one call (:func:`irrepro.significance.urbano_tests`), so results do not depend on
    ``n_jobs``. The draws of collections and pairs are made here; the copula fits, and each batch's
    simulated scores (from its pairs' copulas and margins and its seed) and tests, run on ``n_jobs``
    worker processes (numpy's random generators hold the GIL), or on the Dask cluster of
    :func:`irrepro.parallel.scheduler` when one is set.

    Parameters
    ----------
    models : sequence of CollectionModel
        :func:`irrepro.simulation.fit_collection`'s models (any ``copula_method``: a model not
        fitted with ``"mle"`` gets a cached twin that is).
    n_topics : int
        Topics per trial.
    trials : int
        Trials (:func:`trials_for_se` sizes them).
    delta : float
        The true difference of expected scores, >= 0 (0: type I error).
    tests : sequence of str
        Among ``irrepro.significance.urbano.URBANO_TESTS`` (t, wilcoxon, sign, bootstrap, permutation).
    B : int
        Resamples of the bootstrap and permutation tests (theirs: 1e6).
    seed : SeedLike
        The seed of all draws.
    n_jobs : int, optional
        Worker processes (see above).
    batch : int
        Trials per batch (their ``.N_PER_BATCH`` is 1000).
    null : {"same-margin", "same-mean"}
        The null simulated when ``delta == 0``.
    min_d : float
        The sign test's tie threshold (theirs: 0.01).
    alphas : sequence of float
        The levels :meth:`UrbanoPValues.frame` reports by default.
    label : str
        Stored in the result.

    Returns
    -------
    UrbanoPValues
        Clustered by system pair (collection, baseline, experimental) for :meth:`~PValues.se`.

    Raises
    ------
    irrepro.InputError
        For ``delta < 0``, an unknown null or test, or no collection with a candidate pair.

    Notes
    -----
    Urbano, Lima & Hanjalic (2019), section 3. Where ours differs from their code: the margins are
    :func:`irrepro.simulation.fit_margin`'s candidates (truncated normal, beta and kernel
    densities; beta-binomial and discrete kernels for P@k), not all of ``simIReff``'s; a margin is
    moved to a mean by a one-parameter Lehmann transformation (:meth:`~irrepro.simulation.Margin.with_mean`)
    where ``effTransform`` fits a two-parameter beta one; a pair drawn in the order (j, i) with
    j > i uses the copula of (i, j) with its variables swapped for both nulls (their type I code
    does not swap, which matters only for an asymmetric copula and leaves the null true); rates
    count p <= alpha as theirs do, for the resampling tests too.

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import simulate
    >>> models = [sim.fit_collection(simulate.score_matrix(8, 30, seed=s), seed=s) for s in (1, 2)]
    >>> res = kt.urbano_experiment(models, 20, trials=60, B=100, seed=3, tests=("t", "sign"))
    >>> res.tests, res.trials
    (('t', 'sign'), 60)
    >>> bool(0 <= res.rates(alphas=(0.05,)).loc[0.05, "t"] <= 1)
    True
    """
    if delta < 0:
        raise InputError("delta must be >= 0 (the experimental system is the better one)")
    if null not in URBANO_NULLS:
        raise InputError(f"null must be one of {', '.join(URBANO_NULLS)}, got {null!r}")
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    bad = [t for t in tests if t not in URBANO_TESTS]
    if bad or not tests:
        raise InputError(f"tests must be among {', '.join(URBANO_TESTS)}, not {bad}")
    n_topics = check_int(n_topics, "n_topics", minimum=2)
    trials = check_int(trials, "trials", minimum=1)
    batch = check_int(batch, "batch", minimum=1)
    B = check_int(B, "B", minimum=1)
    models = [_mle(m) for m in models]
    cands = parallel.parallel_map(lambda m: _candidates(m, float(delta), null), models, n_jobs=n_jobs)
    sizes = np.array([len(c) for c in cands], dtype=np.float64)
    if sizes.sum() == 0:
        raise InputError(f"no collection has a pair of systems whose means can differ by delta = {delta}")
    prob = sizes / sizes.sum()
    base = [sorted(c) for c in cands]
    width = max(len(m.margins) for m in models)
    bounds = [(a, min(a + batch, trials)) for a in range(0, trials, batch)]
    seeds = [parallel.spawn(s, 3) for s in parallel.as_seed_sequence(seed).spawn(len(bounds))]
    drawn = []  # (collection, baseline, experimental, its margin) of every trial, batch by batch
    for (a, z), (g_draw, _, _) in zip(bounds, seeds):
        for c in g_draw.choice(len(models), size=z - a, p=prob):
            i = base[c][g_draw.integers(len(base[c]))]
            j, e_margin = cands[c][i][g_draw.integers(len(cands[c][i]))]
            drawn.append((int(c), int(i), int(j), e_margin))
    _fit_copulas(models, {(c, min(i, j), max(i, j)) for c, i, j, _ in drawn}, n_jobs)
    moved: dict = {}  # same-mean null: the experimental margins moved to the baseline's mean

    def task(k):  # what batch k's worker needs: its trials' copulas and margins, and its seeds
        (a, z), (_, g_u, g_test) = bounds[k], seeds[k]
        index: dict = {}
        pairs, which = [], []
        for c, i, j, e_margin in drawn[a:z]:
            key = (c, i, j, e_margin is None)
            if key not in index:
                if e_margin is None:
                    if (c, i, j) not in moved:
                        moved[c, i, j] = models[c].margins[j].with_mean(models[c].means[i])
                    e_margin = moved[c, i, j]
                cop = models[c].copula(min(i, j), max(i, j))
                index[key] = len(pairs)
                pairs.append((cop, i < j, models[c].margins[i], e_margin))
            which.append(index[key])
        return pairs, which, n_topics, g_u, g_test, tests, B, min_d

    out = parallel.parallel_map(
        _simulate_and_test, (task(k) for k in range(len(bounds))), n_jobs=n_jobs, processes=True
    )
    pair = np.array([(c * width + i) * width + j for c, i, j, _ in drawn], dtype=np.int64)
    two, one = (np.nan_to_num(np.concatenate([o[x] for o in out], axis=1), nan=1.0) for x in (0, 1))
    return UrbanoPValues(
        tests,
        two,
        one,
        pair,
        float(delta),
        n_topics,
        B,
        label,
        d=np.concatenate([o[2] for o in out]),
        alphas=tuple(alphas),
    )
