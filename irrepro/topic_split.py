"""Topic-split reliability of effectiveness differences and significance tests
(Sanderson & Zobel 2005, after Voorhees & Buckley 2002).

One-line use::

    from irrepro import data, topic_split as ts
    years = [data.load_matrix(c, "AP") for c in ("trec3", "trec5", "trec6", "trec7", "trec8")]
    res = ts.swap_experiment([ts.drop_bottom(m) for m in years], seed=2005)
    res.error_rates(kind="relative", filter="t 0.01<p<=0.05")      # bins x sizes
    fit = ts.growth_fit(res, kind="relative")                       # projection to 50 topics

What is here:

- the paired t, sign and Wilcoxon tests of the significance filters are
  :mod:`irrepro.significance.classical`'s (``paired_t_pvalues`` etc. moved there; the old names
  here are deprecated);
- the swap experiment (section 3 and 7 of the paper): :func:`swap_experiment` -> :class:`SwapExperiment`;
- the exponential ("GROWTH") fit and projection to 50 topics: :func:`growth_fit`;
- significance on the full topic set by relative-difference band (section 3): :func:`full_set_tests`,
  :func:`significant_share`;
- pool depth and assessor effort (section 4): :func:`pool_sizes`;
- the standard deviation of MAP against the topic sample size (section 5): :func:`map_sd`
  (these four live in :mod:`irrepro._topic_split_sets` and are served from here).

Score matrices are ``(systems, topics)``; ``B`` is the number of random draws of topic sets (the
paper's 50 repetitions per size, 10 samples for the sd of MAP). The figures (error rate against
topic-set size) are drawn by :func:`irrepro.plots.plot_error_rates`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from . import parallel
from ._deprecation import moved_names, renamed_arguments, renamed_attribute
from ._topic_split_sets import _TESTS, full_set_tests, map_sd, pool_sizes, significant_share
from .data import ScoreMatrix
from .data._matrices import _checked_scores
from .errors import InputError, UnknownNameError
from .parallel import SeedLike

__all__ = [
    "FILTERS",
    "GrowthFit",
    "bin_lower_edge",
    "largest_projected_error",
    "SwapExperiment",
    "drop_bottom",
    "full_set_tests",
    "growth_fit",
    "map_sd",
    "pool_sizes",
    "significant_share",
    "swap_experiment",
]

#: The significance filters on set 1 (name -> (test, lower, upper): keep lower < p <= upper).
FILTERS: dict[str, tuple[str | None, float, float]] = {
    "none": (None, -1.0, 2.0),
    "t 0.01<p<=0.05": ("t", 0.01, 0.05),
    "t 0.04<p<=0.05": ("t", 0.04, 0.05),
    "t p<=0.05": ("t", -1.0, 0.05),
    "sign 0.01<p<=0.05": ("sign", 0.01, 0.05),
    "sign p<=0.05": ("sign", -1.0, 0.05),
    "wilcoxon 0.01<p<=0.05": ("wilcoxon", 0.01, 0.05),
    "wilcoxon p<=0.05": ("wilcoxon", -1.0, 0.05),
}

# --------------------------------------------------------------------------------------------
# the swap experiment
# --------------------------------------------------------------------------------------------


def drop_bottom(matrix: ScoreMatrix, fraction: float = 0.25, by: ScoreMatrix | None = None) -> ScoreMatrix:
    """The runs of ``matrix`` without the bottom ``fraction`` by mean score of ``by`` (default the
    matrix itself; pass the AP matrix to drop by MAP as the paper does for P@10 too).
    ``floor(fraction * S)`` runs are dropped (section 3: "the bottom 25% of runs ... by MAP")."""
    if not 0 <= fraction < 1:
        raise InputError(f"fraction must be in [0, 1), got {fraction}")
    ref = matrix if by is None else by
    _checked_scores(matrix, "matrix")
    _checked_scores(ref, "by")
    if ref.systems != matrix.systems:
        raise InputError("`by` must hold the same systems, in the same order, as `matrix`")
    k = int(np.floor(fraction * len(ref.systems)))
    keep = np.sort(np.argsort(-ref.mean(), kind="stable")[: len(ref.systems) - k])
    return matrix.subset(systems=[matrix.systems[i] for i in keep])


@dataclass(frozen=True)
class SwapExperiment:
    """Counts of the swap experiment (:func:`swap_experiment`), ``B`` random pairs of topic sets
    per size.

    ``trials[f, k, s, b]`` / ``errors[f, k, s, b]``: trials and order swaps for filter ``filters[f]``,
    bin kind ``kinds[k]`` ("absolute" or "relative"), topic-set size ``sizes[s]`` and bin ``b``
    (absolute: ``[b, b+1)`` x ``abs_width``; relative: ``[b, b+1)`` x ``rel_width`` of the smaller
    set-1 score). ``dep_errors[s, r]`` / ``dep_trials[s, r]``: errors and trials at position ``r``
    when each pair's B repetitions are sorted by absolute set-1 difference (Figure 8)."""

    measure: str
    design: str
    sizes: np.ndarray
    B: int
    filters: tuple[str, ...]
    kinds: tuple[str, ...]
    abs_width: float
    rel_width: float
    trials: np.ndarray
    errors: np.ndarray
    dep_errors: np.ndarray
    dep_trials: np.ndarray
    n_pairs: int
    collections: tuple[str, ...]
    seed: object = None

    repetitions = renamed_attribute("repetitions", "B")

    def _fk(self, filter: str, kind: str) -> tuple[int, int]:
        if filter not in self.filters:
            raise UnknownNameError(f"unknown filter {filter!r}; known: {list(self.filters)}")
        if kind not in self.kinds:
            raise UnknownNameError(f"kind must be one of {self.kinds}")
        return self.filters.index(filter), self.kinds.index(kind)

    def bin_labels(self, kind: str = "relative") -> list[str]:
        w = self.abs_width if kind == "absolute" else self.rel_width
        nb = self.trials.shape[-1]
        return [f"{100 * b * w:g}-{100 * (b + 1) * w:g}%" for b in range(nb)]

    def error_rates(self, filter: str = "none", kind: str = "relative") -> pd.DataFrame:
        """Error rate (swaps / trials) as a bins x sizes frame (NaN where no trial)."""
        f, k = self._fk(filter, kind)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = self.errors[f, k] / self.trials[f, k]
        return pd.DataFrame(rate.T, index=self.bin_labels(kind), columns=self.sizes)

    def counts(self, filter: str = "none", kind: str = "relative") -> pd.DataFrame:
        f, k = self._fk(filter, kind)
        return pd.DataFrame(self.trials[f, k].T, index=self.bin_labels(kind), columns=self.sizes)

    def pooled_error(self, filter: str, kind: str, bins: slice, size: int) -> float:
        """Error rate pooled over a range of bins at one topic-set size."""
        f, k = self._fk(filter, kind)
        s = list(self.sizes).index(size)
        t = self.trials[f, k, s, bins].sum()
        return float(self.errors[f, k, s, bins].sum() / t) if t else float("nan")

    def dependence(self) -> pd.DataFrame:
        """Mean error by position of the pair's trials sorted by set-1 difference (sizes x positions)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = self.dep_errors / self.dep_trials
        return pd.DataFrame(rate, index=self.sizes, columns=np.arange(1, self.B + 1))


def _pairs(S: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(S, k=1)


def _swap_on(matrices: list[np.ndarray], args) -> tuple:
    """:func:`_swap_task` of the matrix numbered ``args[0]``: the matrices travel with the task
    function (scattered once to each worker of a Dask cluster), the tasks carry only their index."""
    return _swap_task((matrices[args[0]],) + tuple(args[1:]))


def _swap_task(args) -> tuple:
    X, n, reps, design, rng, abs_w, rel_w, n_bins, filters, chunk = args
    S, T = X.shape
    if design == "disjoint":
        if 2 * n > T:
            raise InputError(f"two disjoint sets of {n} topics need {2 * n} topics; have {T}")
        perm = rng.permuted(np.tile(np.arange(T), (reps, 1)), axis=1)
        i1, i2 = perm[:, :n], perm[:, n : 2 * n]
    else:
        i1 = rng.permuted(np.tile(np.arange(T), (reps, 1)), axis=1)[:, :n]
        i2 = rng.permuted(np.tile(np.arange(T), (reps, 1)), axis=1)[:, :n]
    M1 = X[:, i1].mean(axis=-1)  # (S, R)
    M2 = X[:, i2].mean(axis=-1)
    a, b = _pairs(S)
    F = len(filters)
    trials = np.zeros((F, 2, n_bins), dtype=np.int64)
    errors = np.zeros_like(trials)
    dep_e = np.zeros(reps, dtype=np.int64)
    dep_t = np.zeros(reps, dtype=np.int64)
    need = sorted({filters[f][0] for f in range(F)} - {None})
    for lo in range(0, len(a), chunk):
        pa, pb = a[lo : lo + chunk], b[lo : lo + chunk]
        d1 = M1[pa] - M1[pb]  # (P, R)
        d2 = M2[pa] - M2[pb]
        valid = d1 != 0
        err = valid & (d1 * d2 < 0)
        absd = np.abs(d1)
        smaller = np.minimum(M1[pa], M1[pb])
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(smaller > 0, absd / smaller, np.inf)
        bins = [
            np.floor(absd / abs_w + 1e-9),
            np.where(np.isfinite(rel), np.floor(rel / rel_w + 1e-9), n_bins),
        ]
        pv = {}
        if need:
            D = (X[pa] - X[pb])[:, i1]  # (P, R, n)
            for t in need:
                pv[t] = _TESTS[t](D)
        for f, (test, plo, phi) in enumerate(filters):
            keep = valid if test is None else valid & (pv[test] > plo) & (pv[test] <= phi)
            for k in range(2):
                bk = bins[k]
                sel = keep & (bk < n_bins)
                idx = bk[sel].astype(np.int64)
                trials[f, k] += np.bincount(idx, minlength=n_bins)
                errors[f, k] += np.bincount(idx, weights=err[sel], minlength=n_bins).astype(np.int64)
        order = np.argsort(absd, axis=1, kind="stable")
        dep_e += np.take_along_axis(err, order, axis=1).sum(axis=0)
        dep_t += np.take_along_axis(valid, order, axis=1).sum(axis=0)
    return trials, errors, dep_e, dep_t, len(a)


@renamed_arguments(repetitions="B")
def swap_experiment(
    matrices: Sequence[ScoreMatrix],
    *,
    sizes: Sequence[int] | None = None,
    B: int | None = None,
    design: str = "disjoint",
    filters: Sequence[str] | None = None,
    abs_width: float = 0.01,
    rel_width: float = 0.05,
    n_bins: int = 20,
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool | str = False,
    chunk: int = 2000,
    scale: str = "paper",
) -> SwapExperiment:
    """The swap experiment of Voorhees & Buckley (2002) as extended by Sanderson & Zobel (2005,
    sections 3, 4 and 7), over one score matrix per TREC year (pairs only within a year).

    For each year, topic-set size n in ``sizes`` (paper: 5..25) and each of ``B`` repetitions
    (paper: 50), two sets of n topics are drawn: ``design="disjoint"`` (the paper's "without
    replacement": set 2 from the topics not in set 1) or ``"independent"`` (section 7's "with
    replacement": each set an independent sample of n distinct topics from all topics). Every pair
    of runs of the year is compared on the same two sets (Voorhees & Buckley's design: one split
    per repetition serves all pairs; this is our reading). A trial is an *error* when the order of
    the two runs' mean scores on set 2 is strictly reversed from set 1; a trial whose set-1 means
    tie has no order to predict and is dropped, and a set-2 tie is not a reversal. Trials are
    binned by the set-1 difference: absolute (bins of ``abs_width``) and relative to the smaller
    set-1 mean (bins of ``rel_width``; a zero smaller mean has infinite relative difference and
    falls outside every bin); bins are ``[lo, hi)`` (a relative error of 1e-9 is allowed at the
    edges, so exact fractions such as 0.25 fall in the upper bin). Trials beyond the last bin are
    not counted. ``filters`` (names of :data:`FILTERS`) keep only trials whose set-1 paired test
    lands in a p-value band.

    Work is cut into one task per (matrix, size); task i draws from child i of ``seed``
    (:func:`irrepro.parallel.spawn`), so results do not depend on ``n_jobs``; with the same seed
    and the same years, the AP and P@10 experiments draw the same topic sets. ``sizes`` and ``B``
    left at None are the paper's (5..25 and 50) at ``scale="paper"`` (the default), 5, 15, 25 and
    10 at ``"quick"``; the function never reads ``IRREPRO_SCALE`` (the book passes it).
    """
    if design not in {"disjoint", "independent"}:
        raise InputError(f"design must be 'disjoint' or 'independent', not {design!r}")
    if not matrices:
        raise InputError("give at least one score matrix")
    measures = {m.measure for m in matrices}
    if len(measures) != 1:
        raise InputError(f"all matrices must hold the same measure, got {sorted(measures)}")
    quick = parallel.check_scale(scale) == "quick"
    if sizes is None:
        sizes = (5, 15, 25) if quick else tuple(range(5, 26))
    if B is None:
        B = 10 if quick else 50
    sizes_arr = np.asarray(sorted(set(int(s) for s in sizes)))
    sizes = sizes_arr  # type: ignore[assignment]  # (an array from here on)
    if sizes[0] < 2:
        raise InputError("topic-set sizes must be at least 2")
    B = parallel.check_int(B, "B", minimum=1)
    filters = tuple(FILTERS) if filters is None else tuple(filters)
    for f in filters:
        if f not in FILTERS:
            raise UnknownNameError(f"unknown filter {f!r}; known: {list(FILTERS)}")
    fdefs = [FILTERS[f] for f in filters]
    tasks = [(k, s) for k in range(len(matrices)) for s in range(len(sizes))]
    rngs = parallel.spawn(seed, len(tasks))
    xs = [np.ascontiguousarray(_checked_scores(m, f"matrices[{k}]")) for k, m in enumerate(matrices)]
    items = [
        (
            k,
            int(sizes[s]),
            B,
            design,
            rngs[i],
            abs_width,
            rel_width,
            n_bins,
            fdefs,
            chunk,
        )
        for i, (k, s) in enumerate(tasks)
    ]
    label = progress if isinstance(progress, str) else ("swap experiment" if progress else False)
    out = parallel.parallel_map(partial(_swap_on, xs), items, n_jobs=n_jobs, progress=label)
    F = len(filters)
    trials = np.zeros((F, 2, len(sizes), n_bins), dtype=np.int64)
    errors = np.zeros_like(trials)
    dep_e = np.zeros((len(sizes), B), dtype=np.int64)
    dep_t = np.zeros_like(dep_e)
    n_pairs = 0
    for (_k, s), (tr, er, de, dt, npairs) in zip(tasks, out):
        trials[:, :, s] += tr
        errors[:, :, s] += er
        dep_e[s] += de
        dep_t[s] += dt
        if s == 0:
            n_pairs += npairs
    return SwapExperiment(
        measure=matrices[0].measure,
        design=design,
        sizes=sizes_arr,
        B=B,
        filters=filters,
        kinds=("absolute", "relative"),
        abs_width=abs_width,
        rel_width=rel_width,
        trials=trials,
        errors=errors,
        dep_errors=dep_e,
        dep_trials=dep_t,
        n_pairs=n_pairs,
        collections=tuple(m.collection for m in matrices),
        seed=seed if isinstance(seed, (int, np.integer)) else None,
    )


# --------------------------------------------------------------------------------------------
# GROWTH-style exponential fit
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GrowthFit:
    """error(n) = exp(log_a + b n) per bin, fitted by least squares on log(error) (Excel's GROWTH).

    ``projected[b]`` is the fitted error at ``at`` topics (NaN when the bin has fewer than
    ``min_points`` usable sizes); ``n_points[b]`` the number of sizes used."""

    labels: tuple[str, ...]
    log_a: np.ndarray
    b: np.ndarray
    projected: np.ndarray
    n_points: np.ndarray
    at: int
    threshold: float = 0.05

    def predict(self, n) -> np.ndarray:
        """Fitted error at sizes ``n``: (bins, len(n))."""
        n = np.atleast_1d(np.asarray(n, dtype=float))
        return np.exp(self.log_a[:, None] + self.b[:, None] * n[None, :])

    def first_reliable(self) -> str | None:
        """Label of the smallest bin whose projected error is below ``threshold`` (None if none)."""
        ok = np.flatnonzero(self.projected < self.threshold)
        return self.labels[ok[0]] if len(ok) else None

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"bin": self.labels, "a": np.exp(self.log_a), "b": self.b,
             f"error at {self.at}": self.projected, "sizes used": self.n_points}
        )


def growth_fit(
    result: SwapExperiment,
    *,
    filter: str = "none",
    kind: str = "relative",
    at: int = 50,
    min_trials: int = 20,
    min_points: int = 3,
    threshold: float = 0.05,
) -> GrowthFit:
    """Fit error = a exp(b n) per bin to the swap experiment's error rates and project to ``at``
    topics (paper, section 3: trends "projected" with MS Excel's GROWTH, i.e. least squares on
    log(error) against n). Our policy for points Excel cannot take: sizes with fewer than
    ``min_trials`` trials or with zero error (log 0) are left out of the fit of that bin; a bin
    with fewer than ``min_points`` sizes left is not fitted (NaN), as the paper left out bins with
    "insufficient data"."""
    f, k = result._fk(filter, kind)
    tr = result.trials[f, k].T.astype(float)  # (bins, sizes)
    er = result.errors[f, k].T.astype(float)
    n = result.sizes.astype(float)
    use = (tr >= min_trials) & (er > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(er / tr)
    w = use.astype(float)
    cnt = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        nbar = (w * n).sum(1) / cnt
        ybar = np.where(use, y, 0).sum(1) / cnt
        sxx = (w * (n - nbar[:, None]) ** 2).sum(1)
        sxy = np.where(use, (n - nbar[:, None]) * (y - ybar[:, None]), 0).sum(1)
        b = sxy / sxx
    ok = cnt >= min_points
    b = np.where(ok, b, np.nan)
    log_a = np.where(ok, ybar - b * nbar, np.nan)
    return GrowthFit(
        labels=tuple(result.bin_labels(kind)),
        log_a=log_a,
        b=b,
        projected=np.exp(log_a + b * at),
        n_points=cnt.astype(int),
        at=at,
        threshold=threshold,
    )


# --------------------------------------------------------------------------------------------
# summaries of growth fits that the book's chapter reports (moved out of its cells)
# --------------------------------------------------------------------------------------------


def bin_lower_edge(label: str | None) -> float:
    """The lower edge, in %, of a bin label such as ``"25-30%"`` (as :meth:`GrowthFit.first_reliable`
    returns it); NaN for ``None`` (no bin qualifies)."""
    return float(label.split("-")[0]) if label else float("nan")


def largest_projected_error(fit: GrowthFit) -> float:
    """The largest projected error at ``fit.at`` topics over the fitted bins (Figures 10 and 12:
    "well below 0.05"); NaN when no bin could be fitted."""
    p = fit.projected
    return float(np.nanmax(p)) if np.isfinite(p).any() else float("nan")


#: Names that moved or were renamed (deprecated; see CHANGELOG.md).
__getattr__ = moved_names(__name__, {
    "SwapResult": "irrepro.topic_split:SwapExperiment",
    "paired_t_pvalues": "irrepro.significance.classical:paired_t_pvalues",
    "sign_test_pvalues": "irrepro.significance.classical:sign_test_pvalues",
    "wilcoxon_pvalues": "irrepro.significance.classical:wilcoxon_pvalues",
    "plot_error_rates": "irrepro.plots:plot_error_rates",
})
