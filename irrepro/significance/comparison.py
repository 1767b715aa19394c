"""Any of the eight paired tests of many pairs of systems in one call, with the adjustment for
multiple comparisons over the pairs tested, and the table of a paper's results built on them: the
tests, win / tie / loss counts and intervals of every measure (``irrepro compare``)."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .. import parallel
from .._text import UNDEFINED, check_digits, no_pair_variance
from ..data import ScoreMatrix
from ..errors import InputError
from ..parallel import SeedLike
from ..stats import bca_interval, check_level, check_resamples, corrected_resamples
from . import classical
from ._names import DEFAULT_B, EFFECT_SIZES, FAMILY_WISE, RESAMPLING, TESTS
from ._samples import _as_matrix, _baseline_index, _check_samples, _counts, _resolve_pairs
from .bootstrap import _map_chunks, _pair_noise, _paired, paired_bootstrap_test, unpaired_bootstrap_test
from .effects import EffectSizes, effect_sizes, win_tie_loss
from .randomization import permutation_test, tukey_hsd
from .result import PairwiseResult, _baseline_name, _check_alpha
from .table import ComparisonTable

#: The classical tests: vectorised p-values of many rows of differences, equal to scipy's
#: ``ttest_rel``, ``wilcoxon`` and ``binomtest`` row by row (:mod:`irrepro.significance.classical`).
_CLASSICAL = {
    "paired-t": classical.paired_t_pvalues,
    "wilcoxon": classical.wilcoxon_pvalues,
    "sign": classical.sign_test_pvalues,
}
#: The resampling tests (their default B unless given).
_RESAMPLED: dict[str, Any] = {
    "bootstrap": paired_bootstrap_test,
    "unpaired-bootstrap": unpaired_bootstrap_test,
    "bootstrap-shift": partial(_paired, "bootstrap-shift"),
    "permutation": permutation_test,
    "tukey": tukey_hsd,
}


def classical_pairs(x: np.ndarray, pairs: np.ndarray, test: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean differences and two-sided p-values ``(..., P)`` of a classical ``test`` on ``pairs`` of ``(..., S,
    T)`` scores; a topic's difference within 1e-9 times the pair's larger absolute score is a zero."""
    d = x[..., pairs[:, 0], :] - x[..., pairs[:, 1], :]
    # rounding noise is no difference: a topic's |d| within _NOISE times the pair's largest
    # |score| counts as a tie (a zero difference), as in the resampling tests
    tol = _pair_noise(x, pairs)[..., None]
    return d.mean(axis=-1), _CLASSICAL[test](np.where(np.abs(d) <= tol, 0.0, d))


def pairwise_test(
    scores,
    test: str = "paired-t",
    pairs=None,
    *,
    baseline: str | int | None = None,
    correction: str | None = None,
    B: int | None = None,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> PairwiseResult:
    """Test many pairs of systems with ``test`` (a name of TESTS) and adjust their p-values by ``correction``
    (default Holm)."""
    if test not in TESTS:
        raise InputError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if correction is None:
        correction = "none" if test == "tukey" else "holm"
    if test == "tukey" and correction != "none":
        raise InputError(
            f"randomised Tukey HSD's p-values are family-wise already: no {correction!r} correction "
            "on top (use correction 'none')"
        )
    kw: dict[str, Any] = {} if B is None else {"B": B}
    res: PairwiseResult
    if test in _RESAMPLED:
        res = _RESAMPLED[test](scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
    else:
        x, systems, measure = _as_matrix(scores)
        pairs = _resolve_pairs(pairs, baseline, systems)
        # in chunks of pairs even on one worker: a chunk's arrays stay in cache (one call over all
        # 7,875 pairs of 126 runs took about twice as long for the t-test)
        parts = _map_chunks(lambda sl: classical_pairs(x, pairs[sl], test), len(pairs), n_jobs)
        diff, p = (np.concatenate(a) for a in zip(*parts))
        res = PairwiseResult(
            test, measure, systems, pairs, diff, p, p.copy(), "none", x.shape[1],
            baseline=_baseline_name(systems, pairs, baseline),
        )  # fmt: skip
    return res if res.correction == FAMILY_WISE else res.adjust(correction)


def _mean_intervals(x: np.ndarray, samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """BCa bootstrap interval over topics of every system's mean (the jackknife's acceleration)."""
    n = x.shape[1]
    reps = x @ _counts(samples, n).T / n
    jack = (x.sum(axis=1, keepdims=True) - x) / (n - 1)
    return bca_interval(x.mean(axis=1), reps, jackknife=jack, level=level)


#: The topic samples of :func:`compare`'s intervals when none are given.
B_INTERVALS = 1000


def _check_resamples(test: str, B, alpha, intervals=False, B_intervals=None, level=0.95,
                     names=("B", "B_intervals")) -> int:  # fmt: skip
    """Refuse too few resamples for ``test`` and ``intervals``; return the intervals' resamples."""
    if test in RESAMPLING:
        check_resamples(DEFAULT_B[test] if B is None else B, names[0], alpha=alpha, test=f"the {TESTS[test]}",
                        default=B is None)  # fmt: skip
    n = B_INTERVALS if B_intervals is None else B_intervals
    if intervals:
        check_resamples(n, names[1], level=level, default=B_intervals is None)
    return n


#: The most resamples a resampling test's default is raised to for a correction; beyond it the
#: user gives B (all pairs of 126 runs need 3,150,000: hours).
DEFAULT_B_MAX = 100_000


def _comparisons(n_runs: int, baseline) -> int:
    """The pairs one measure's p-values are adjusted over: every run against the baseline, or all pairs."""
    return n_runs - 1 if baseline is not None else n_runs * (n_runs - 1) // 2


def _test_resamples(
    test: str, B, alpha, correction, comparisons: int, name: str = "B"
) -> tuple[int | None, str]:
    """``test``'s resamples for ``correction`` over ``comparisons`` and the sentence on a raised default."""
    if test not in RESAMPLING:
        return None, ""
    correction = "none" if test == "tukey" else correction if correction is not None else "holm"
    what = f"the {TESTS[test]}"
    if B is not None:
        return check_resamples(
            B, name, alpha=alpha, test=what, comparisons=comparisons, correction=correction
        ), ""
    chosen = corrected_resamples(comparisons, alpha, correction, default=DEFAULT_B[test])
    if chosen == DEFAULT_B[test]:
        return chosen, ""
    if chosen > DEFAULT_B_MAX:
        raise InputError(
            f"{name}: the {TESTS[test]} with {correction} over m = {comparisons:,} comparisons at alpha {alpha:g} "
            f"needs B >= 20 m / alpha = {20 * comparisons / alpha:,.0f} to resolve its smallest threshold, "
            f"alpha / m, more than a default draws ({DEFAULT_B_MAX:,}): give {name} {chosen} to draw them, "
            "compare fewer pairs (--baseline), or use a test without resamples (--test t)"
        )
    return chosen, (f"{name} {chosen}: {what}'s default {DEFAULT_B[test]} raised for {correction} over m = "
                    f"{comparisons} comparisons at alpha {alpha:g}: B >= 20 m / alpha = "
                    f"{20 * comparisons / alpha:,.0f} resolves its smallest threshold, alpha / m")  # fmt: skip


def _as_measures(scores) -> dict[str, ScoreMatrix | np.ndarray]:
    if isinstance(scores, dict):
        if not scores:
            raise InputError("no measures to compare")
        return dict(scores)
    if isinstance(scores, ScoreMatrix):
        return {scores.measure or "score": scores}
    return {"score": scores}


def compare(
    scores,
    *,
    baseline: str | int | None = None,
    test: str = "paired-t",
    correction: str | None = None,
    alpha: float = 0.05,
    intervals: bool = False,
    effect_size: str | None = None,
    level: float = 0.95,
    B: int | None = None,
    B_intervals: int | None = None,
    seed: SeedLike = None,
    n_jobs: int | None = None,
    digits: int = 4,
) -> ComparisonTable:
    """The results table of several runs under several measures, with significance tests.

    With ``baseline`` every other run is tested against it, the p-values adjusted over those S - 1
    pairs per measure; without, all pairs are tested and each mean is marked by the runs it
    significantly beats.

    Parameters
    ----------
    scores : dict, ScoreMatrix or array_like
        ``{measure: ScoreMatrix}`` (what :func:`irrepro.measures.evaluate` returns), one
        ScoreMatrix, or a ``(runs, topics)`` array; every measure must hold the same runs.
    baseline : str or int, optional
        The run (name or index) every other run is tested against.
    test : str
        A name of :data:`~irrepro.significance.TESTS`.
    correction : str, optional
        statsmodels' name of the adjustment (default ``"holm"``; ``"none"`` for Tukey HSD).
    alpha : float
        Significance level of the marks.
    intervals : bool
        Add a BCa bootstrap interval of each run's difference from the baseline (of its mean
        without one).
    effect_size : {"d_z", "ES_E"}, optional
        Add each run's standardized mean difference from the baseline (:func:`effect_sizes`) with
        its BCa interval; needs ``baseline``.
    level : float
        Confidence level of the intervals (a fraction or a percentage).
    B : int, optional
        Resamples of a resampling test (default the test's, raised for a correction:
        ``irrepro.stats.corrected_resamples``).
    B_intervals : int, optional
        Topic samples of the intervals and the effect sizes (default 1000).
    seed : SeedLike
    n_jobs : int, optional
    digits : int
        Decimals shown, 0 to 17.

    Returns
    -------
    ComparisonTable
        ``render(fmt)`` in each of :data:`FORMATS`, ``to_frame()``, ``to_csv()``, ``note()``.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> print(sg.compare(scores, baseline=1).to_string())
    run    score    score p
    -----  -------  ---------
    0      0.6200   0.0516
    1      0.4800
    2      0.6000↑  0.0078
    <BLANKLINE>
    ↑ / ↓: significantly higher / lower than the baseline 1 (paired t-test; p < 0.05 after Holm's adjustment over 2 pairs per measure); p: the adjusted p-value.
    """
    _check_alpha(alpha)
    digits = check_digits(digits)
    level = check_level(level)
    if effect_size is not None and effect_size not in EFFECT_SIZES:
        raise InputError(f"effect_size must be one of {', '.join(EFFECT_SIZES)} or None, not {effect_size!r}")
    if effect_size is not None and baseline is None:
        raise InputError("effect_size is each run's against the baseline: pass baseline (every pair's "
                         "effect sizes: significance.effect_sizes)")  # fmt: skip
    resampled = intervals or effect_size is not None  # (on the same topic samples)
    B_intervals = _check_resamples(test, B, alpha, resampled, B_intervals, level)
    mats = _as_measures(scores)
    arrays: dict[str, np.ndarray] = {}
    runs: tuple = ()  # the first measure's (_as_measures refuses no measure at all)
    for m, sm in mats.items():
        x, systems, _ = _as_matrix(sm)
        if arrays and systems != runs:
            raise InputError(
                f"measure {m!r} holds other runs than {next(iter(mats))!r}: every measure must score the same runs"
            )
        arrays[m], runs = x, systems
    base = None if baseline is None else runs[_baseline_index(baseline, runs)]
    B, _ = _test_resamples(test, B, alpha, correction, _comparisons(len(runs), base))
    needs_seed = test in RESAMPLING or resampled
    ss_test = ss_ci = None
    if needs_seed:
        if seed is None:
            what = "the intervals resample" if test not in RESAMPLING else f"the {test} test resamples"
            raise InputError(f"pass seed: {what}")
        ss_test, ss_ci = parallel.as_seed_sequence(seed).spawn(2)
    tests, wtl, lows, highs, effects = {}, {}, {}, {}, {}
    for m, x in arrays.items():
        sm = mats[m]
        if not isinstance(sm, ScoreMatrix):
            sm = ScoreMatrix(x, runs, tuple(map(str, range(x.shape[1]))), m)
        tests[m] = pairwise_test(
            sm, test, baseline=base, correction=correction, B=B, seed=ss_test, n_jobs=n_jobs
        )
        wtl[m] = win_tie_loss(sm, baseline=base)
        if resampled:
            samples = _check_samples(None, x.shape[1], B_intervals, ss_ci)
        if effect_size is not None:
            effects[m] = effect_sizes(sm, baseline=base, kind=effect_size, samples=samples, level=level,
                                      n_jobs=n_jobs)  # fmt: skip
        if intervals:
            if base is not None:
                es: EffectSizes = effect_sizes(sm, baseline=base, kind="difference", samples=samples,
                                               level=level, n_jobs=n_jobs)  # fmt: skip
                lo, hi = np.full(len(runs), np.nan), np.full(len(runs), np.nan)
                lo[es.pairs[:, 0]], hi[es.pairs[:, 0]] = es.low, es.high
            else:
                lo, hi = _mean_intervals(x, samples, level)
            lows[m], highs[m] = lo, hi
    means = pd.DataFrame({m: x.mean(axis=1) for m, x in arrays.items()}, index=pd.Index(runs, name="run"))
    frame = (lambda d: pd.DataFrame(d, index=means.index)) if intervals else (lambda d: None)
    undefined = {}
    for m, x in arrays.items():  # why a test has no answer (its p is NaN): said below the table
        r = tests[m]
        none = r.pairs[np.isnan(r.p)]
        if len(none):
            why = dict.fromkeys(no_pair_variance(x, int(i), int(j), runs) or UNDEFINED for i, j in none)
            undefined[m] = tuple(list(why)[:3]) + (("...",) if len(why) > 3 else ())
    return ComparisonTable(
        runs, means, tests, wtl, base, alpha, level, frame(lows), frame(highs), digits, undefined, effects
    )
