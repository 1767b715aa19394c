"""Power against the number of topics by simulation: any test of :mod:`irrepro.significance`, with
or without a correction across m systems, on families of systems drawn from the known-truth
simulator fitted to the pilot (Urbano, Lima & Hanjalic, SIGIR 2019) or from any sampler."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
import pandas as pd

from .. import parallel
from ..data._matrices import ScoreMatrix
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ..stats import clustered_se
from ._sizes import check_design

#: Families of systems the trials are shared out among, per scale.
_FAMILIES = {"quick": 40, "paper": 400}
#: Attempts at drawing a family whose margins move to the design's means.
_ATTEMPTS = 50


@dataclass(frozen=True)
class PowerCurve:
    """Simulated power of one test at each topic-set size, with Monte Carlo standard errors clustered
    by simulated family."""

    n_topics: np.ndarray
    power: np.ndarray
    se: np.ndarray
    test: str
    correction: str
    systems: int

    def to_frame(self) -> pd.DataFrame:
        """One row per size: ``n_topics``, ``power``, ``se``."""
        return pd.DataFrame({"n_topics": self.n_topics, "power": self.power, "se": self.se})

    def topics_needed(self, power: float = 0.8, z: float = 0.0) -> float:
        """The size (interpolated) at which ``power + z * se`` first reaches ``power``; NaN if none does."""
        p = self.power + z * self.se
        ok = np.nonzero(p >= power)[0]
        if not len(ok):
            return math.nan
        k = int(ok[0])
        if k == 0:
            return float(self.n_topics[0])
        n0, n1, p0, p1 = self.n_topics[k - 1], self.n_topics[k], p[k - 1], p[k]
        return float(n0 + (power - p0) / (p1 - p0) * (n1 - n0))


def _hits(x: np.ndarray, test: str, correction: str, alpha: float, B: int | None, rng) -> np.ndarray:
    """Per trial: whether ``test`` finds system 1 better than system 0, adjusted over all pairs."""
    from .. import significance as sig
    from ..significance._names import CLASSICAL

    m = x.shape[1]
    others = [(i, j) for i in range(m) for j in range(i + 1, m) if (i, j) != (0, 1)]
    pairs = np.array([(1, 0), *others])
    if test in CLASSICAL:  # every trial at once: pairwise_test's floats, trial by trial
        from ..significance.result import _correction
        from ..stats import adjust_pvalues

        diff, p = sig.classical_pairs(x, pairs, test)
        p = adjust_pvalues(p, _correction(correction)[0])  # each trial's row one family
        return (diff[:, 0] > 0) & (p[:, 0] <= alpha + 1e-12)
    seeds = parallel.spawn(rng, len(x))  # the resampling tests: an ASL rejects below alpha (Sakai 2006)
    out = np.empty(len(x), dtype=bool)
    for k in range(len(x)):
        r = sig.pairwise_test(x[k], test, pairs, correction=correction, B=B, seed=seeds[k])
        out[k] = bool(r.difference[0] > 0) and float(r.p_adjusted[0]) < alpha
    return out


def power_curve(
    sample: Callable,
    n_topics,
    *,
    families: int,
    test: str | Sequence[str] = "paired-t",
    correction: str | None = None,
    alpha: float = 0.05,
    trials: int = 600,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
) -> PowerCurve | dict[str, PowerCurve]:
    """Power of ``test`` at each size in ``n_topics`` on scores drawn by ``sample``."""
    from ..significance import TESTS

    tests = (test,) if isinstance(test, str) else tuple(test)
    bad = [t for t in tests if t not in TESTS]
    if bad or not tests:
        raise InputError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    correction = "none" if correction is None else correction
    sizes = np.unique(np.asarray(n_topics, dtype=np.int64))
    if sizes.size == 0 or sizes[0] < 2:
        raise InputError(f"n_topics must be whole numbers >= 2, got {n_topics!r}")
    families = check_int(families, "families", minimum=1)
    trials = check_int(trials, "trials", minimum=1)
    families = min(families, trials)
    per = -(-trials // families)
    tasks = [(k, f) for k in range(len(sizes)) for f in range(families)]
    seeds = parallel.as_seed_sequence(seed).spawn(len(tasks))

    def run(t):
        k, f = tasks[t]
        hits = []
        for name in tests:  # every test from a fresh copy of the task's seed: its draws and its tests'
            s = seeds[t]  # resamples are those of a call with that test alone
            g_sim, g_test = parallel.spawn(np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key), 2)
            if not hits:
                x = np.asarray(sample(f, int(sizes[k]), per, g_sim), dtype=np.float64)
                if x.ndim != 3 or x.shape[0] != per or x.shape[1] < 2 or x.shape[2] != sizes[k]:
                    raise InputError(f"sample must return ({per}, m >= 2, {sizes[k]}) scores, got {x.shape}")
            hits.append(_hits(x, name, correction, alpha, B, g_test))
        return hits, x.shape[1]

    out = parallel.parallel_map(run, range(len(tasks)), n_jobs=n_jobs)
    fam = np.repeat(np.arange(families), per)[:trials]
    curves = {}
    for q, name in enumerate(tests):
        power, se = np.empty(len(sizes)), np.empty(len(sizes))
        for k in range(len(sizes)):
            hits = np.concatenate([o[0][q] for o in out[k * families : (k + 1) * families]])[:trials]
            power[k], se[k] = hits.mean(), float(clustered_se(hits, fam))
        curves[name] = PowerCurve(sizes, power, se, name, correction, int(out[0][1]))
    return curves[test] if isinstance(test, str) else curves


class _FamilySampler:
    """Families of m systems at Sakai's least favourable configuration, from a fitted model."""

    def __init__(self, model, systems: int, min_diff: float, families: int, seed: SeedLike, n_jobs=None):
        import pyvinecopulib as pv

        from ..simulation import pseudo_obs

        self.systems = systems
        mu = model.means
        S = len(mu)
        if S < systems:
            raise InputError(
                f"the simulator kept {S} of the pilot's systems, fewer than the {systems} wanted"
            )
        lower = np.argsort(-mu, kind="stable")[int(round(0.25 * S)) :]
        controls = pv.FitControlsVinecop(
            family_set=pv.families.parametric, selection_criterion="aic", parametric_method="itau"
        )
        seeds = parallel.as_seed_sequence(seed).spawn(families)

        def draw(f):
            rng = np.random.default_rng(seeds[f])
            for _ in range(_ATTEMPTS):
                base = int(rng.choice(lower))
                rest = rng.choice(np.setdiff1d(np.arange(S), [base]), size=systems - 1, replace=False)
                idx = np.array([base, *rest])
                target = mu[base] + np.array([0.0, min_diff] + [min_diff / 2] * (systems - 2))
                if all(model.margins[i].can_move_to(t) for i, t in zip(idx, target)):
                    margins = [model.margins[i].with_mean(float(t)) for i, t in zip(idx, target)]
                    u = pseudo_obs(model.scores[idx].T, rng)
                    return margins, pv.Vinecop.from_data(u, controls=controls)
            raise InputError(
                f"no family of {systems} simulated systems could be moved to a difference of "
                f"{min_diff}: the pilot's scores leave no room for it"
            )

        self.families = parallel.parallel_map(draw, range(families), n_jobs=n_jobs)

    def __call__(self, family: int, n: int, trials: int, rng) -> np.ndarray:
        margins, vine = self.families[family]
        u = np.clip(vine.inverse_rosenblatt(rng.random((trials * n, self.systems))), 0, 1)
        x = np.column_stack([mg.ppf(u[:, i]) for i, mg in enumerate(margins)])
        return x.reshape(trials, n, self.systems).transpose(0, 2, 1)


@overload
def simulated_power(
    pilot,
    *,
    min_diff: float,
    n_topics=None,
    test: str = "paired-t",
    systems: int = 2,
    correction: str | None = None,
    alpha: float = 0.05,
    trials: int | None = None,
    families: int | None = None,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
    scale: str = "quick",
    model=None,
) -> PowerCurve: ...


@overload
def simulated_power(
    pilot,
    *,
    min_diff: float,
    n_topics=None,
    test: Sequence[str],
    systems: int = 2,
    correction: str | None = None,
    alpha: float = 0.05,
    trials: int | None = None,
    families: int | None = None,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
    scale: str = "quick",
    model=None,
) -> dict[str, PowerCurve]: ...


def simulated_power(
    pilot,
    *,
    min_diff: float,
    n_topics=None,
    test: str | Sequence[str] = "paired-t",
    systems: int = 2,
    correction: str | None = None,
    alpha: float = 0.05,
    trials: int | None = None,
    families: int | None = None,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
    scale: str = "quick",
    model=None,
) -> PowerCurve | dict[str, PowerCurve]:
    """Power against the number of topics, simulated from the known-truth simulator fitted to the pilot.

    The pilot is fitted by :func:`irrepro.simulation.fit_collection`. A family: system 0 a baseline
    from the bottom 75% by expected score; system 1 another system's margin moved to the
    baseline's mean + ``min_diff``; the others half way (Sakai's least favourable configuration);
    their dependence a vine copula fitted to their pilot scores.

    Parameters
    ----------
    pilot : ScoreMatrix or array_like
        ``(S, T)`` pilot scores.
    min_diff : float
        The true difference, > 0.
    n_topics : sequence of int, optional
        Sizes; default eight sizes from a quarter to twice the paired t-test's closed-form answer.
    test : str or sequence of str
        A name of :data:`irrepro.significance.TESTS`, or several, each on the same simulated draws.
    systems : int
        m, systems per family (>= 2).
    correction : str, optional
        Adjustment over the family's pairs ("holm", "bonferroni", "fdr_bh", ...); None: "none".
    alpha : float
    trials : int, optional
        Trials per size; default :func:`irrepro.known_truth.default_sizes` of ``scale``.
    families : int, optional
        Simulated families (default 40 quick, 400 paper).
    B : int, optional
        Resamples of a resampling test; default :func:`irrepro.known_truth.default_sizes` of ``scale``;
        at least 100 and 1 / ``alpha`` (``irrepro.stats.check_resamples``).
    seed : SeedLike
    n_jobs : int, optional
    scale : {"quick", "paper"}
    model : CollectionModel, optional
        The pilot already fitted (:func:`irrepro.simulation.fit_collection`).

    Returns
    -------
    PowerCurve or dict of str to PowerCurve
        One curve (``n_topics``, ``power``, ``se``, ``to_frame()``, ``topics_needed(power, z)``);
        test name -> its curve for several tests.

    Raises
    ------
    irrepro.InputError
        An argument out of its range, or a difference the pilot's margins cannot be moved to.

    Examples
    --------
    >>> from irrepro.design import simulated_power
    >>> rng = np.random.default_rng(1)
    >>> x = np.clip(0.4 + rng.normal(0, 0.15, (1, 30)) + rng.normal(0, 0.1, (8, 30)), 0, 1)
    >>> c = simulated_power(x, min_diff=0.1, n_topics=[10, 40], trials=40, families=4, seed=2)
    >>> c.to_frame().columns.tolist()
    ['n_topics', 'power', 'se']
    """
    from ..known_truth import default_sizes
    from ..simulation import fit_collection
    from ._anova import two_way_anova
    from ._sizes import _simulation_B, _topic_set_size

    min_diff, alpha, _, systems = check_design(
        min_diff, alpha, None, systems, measure=getattr(pilot, "measure", None)
    )
    scale = parallel.check_scale(scale)
    anova = two_way_anova(pilot)  # checks 2 x 2, finite, variance
    trials = default_sizes(scale).trials if trials is None else check_int(trials, "trials", minimum=1)
    families = (
        _FAMILIES.get(scale, _FAMILIES["paper"])
        if families is None
        else check_int(families, "families", minimum=1)
    )
    B = _simulation_B(B, test, alpha, scale)
    if n_topics is None:
        n = _topic_set_size(anova.sigma2_residual, "paired-t", min_diff=min_diff, alpha=alpha, B=0).n_topics
        n = max(n, 8) if n > 0 else 1000
        n_topics = sorted({max(3, round(n * f)) for f in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)})
    g_fit, g_fam, g_sim = parallel.spawn(seed, 3)
    if model is None:
        if not isinstance(pilot, ScoreMatrix):
            x = np.asarray(pilot, dtype=np.float64)
            pilot = ScoreMatrix(x, tuple(map(str, range(x.shape[0]))), tuple(map(str, range(x.shape[1]))), "")
        model = fit_collection(pilot, seed=g_fit, n_jobs=n_jobs)
    sampler = _FamilySampler(model, systems, min_diff, min(families, trials), g_fam, n_jobs)
    return power_curve(sampler, n_topics, families=families, test=test, correction=correction, alpha=alpha,
                       trials=trials, B=B, seed=g_sim, n_jobs=n_jobs)  # fmt: skip
