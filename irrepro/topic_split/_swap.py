"""The swap experiment (Sanderson & Zobel 2005, sections 3, 4 and 7): order swaps between two topic
sets per pair of runs, binned by the difference on the first; its result, its significance filters
and the GROWTH-style exponential fit of its error rates (section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd

from .. import parallel
from ..data import ScoreMatrix
from ..data._matrices import _checked_scores
from ..errors import InputError, UnknownNameError
from ..parallel import SeedLike
from ._sets import _TESTS

#: The significance filters on set 1 (name -> (test, lower, upper): keep lower < p <= upper); the
#: tests by :data:`irrepro.significance.TESTS`' names.
FILTERS: dict[str, tuple[str | None, float, float]] = {
    "none": (None, -1.0, 2.0),
    "paired-t 0.01<p<=0.05": ("paired-t", 0.01, 0.05),
    "paired-t 0.04<p<=0.05": ("paired-t", 0.04, 0.05),
    "paired-t p<=0.05": ("paired-t", -1.0, 0.05),
    "sign 0.01<p<=0.05": ("sign", 0.01, 0.05),
    "sign p<=0.05": ("sign", -1.0, 0.05),
    "wilcoxon 0.01<p<=0.05": ("wilcoxon", 0.01, 0.05),
    "wilcoxon p<=0.05": ("wilcoxon", -1.0, 0.05),
}


@dataclass(frozen=True)
class SwapExperiment:
    """Counts of the swap experiment (bin ``b``: ``[b, b+1)`` x the width, relative to the smaller mean or not).

    Attributes
    ----------
    measure : str
    design : str
        ``"disjoint"`` or ``"independent"``.
    sizes : numpy.ndarray
        The topic-set sizes, ascending.
    B : int
        Repetitions per size.
    filters : tuple of str
        Names of ``FILTERS``.
    kinds : tuple of str
        ``("absolute", "relative")``.
    abs_width, rel_width : float
    trials, errors : numpy.ndarray
        ``(filters, kinds, sizes, bins)`` counts of trials and order swaps.
    dep_errors, dep_trials : numpy.ndarray
        ``(sizes, B)``: at position ``r`` when each pair's repetitions are sorted by absolute set-1
        difference (Figure 8).
    n_pairs : int
        Pairs of runs compared, over all years.
    collections : tuple of str
    seed : int or None
        The seed, when it was an int.
    rep_trials, rep_errors : numpy.ndarray or None
        ``(filters, kinds, sizes, B, bins)`` counts per repetition (None when not kept).

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import synthetic
    >>> m = synthetic.score_matrix(6, 30, seed=1)
    >>> res = ts.swap_experiment([m], sizes=[5, 10], B=4, seed=2, filters=["none", "paired-t p<=0.05"])
    >>> res.trials.shape                      # filters, kinds, sizes, bins
    (2, 2, 2, 20)
    """

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
    rep_trials: np.ndarray | None = None
    rep_errors: np.ndarray | None = None

    def _per_rep(self) -> tuple[np.ndarray, np.ndarray]:
        """The counts per repetition."""
        if self.rep_trials is None or self.rep_errors is None:
            raise InputError("this result keeps no counts per repetition: rerun swap_experiment")
        return self.rep_trials, self.rep_errors

    def pooled_counts(self, filter: str, kind: str, bins: slice, size: int) -> tuple[np.ndarray, np.ndarray]:
        """``(errors, trials)`` per repetition, pooled over ``bins`` at one size (a rate's MC error)."""
        f, k = self._fk(filter, kind)
        s = list(self.sizes).index(size)
        tr, er = self._per_rep()
        return er[f, k, s, :, bins].sum(axis=-1), tr[f, k, s, :, bins].sum(axis=-1)

    def resampled(self, reps) -> SwapExperiment:
        """The experiment of the repetitions ``reps`` (indices, repeats allowed); Figure 8's counts kept."""
        tr, er = self._per_rep()
        reps = np.asarray(reps, dtype=np.int64).reshape(-1)
        if reps.size == 0 or reps.min() < 0 or reps.max() >= self.B:
            raise InputError(f"reps must be indices in 0..{self.B - 1}")
        rt, re_ = tr[:, :, :, reps], er[:, :, :, reps]
        return replace(
            self, B=len(reps), trials=rt.sum(axis=3), errors=re_.sum(axis=3), rep_trials=rt, rep_errors=re_
        )

    def _fk(self, filter: str, kind: str) -> tuple[int, int]:
        """The indices of a filter and a kind."""
        if filter not in self.filters:
            raise UnknownNameError(f"unknown filter {filter!r}; known: {list(self.filters)}")
        if kind not in self.kinds:
            raise UnknownNameError(f"kind must be one of {self.kinds}")
        return self.filters.index(filter), self.kinds.index(kind)

    def bin_labels(self, kind: str = "relative") -> list[str]:
        """The bins' labels, ``"0-5%"``, ``"5-10%"``, ... (relative) or ``"0-1%"``, ... (absolute)."""
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
        """Trials as a bins x sizes frame."""
        f, k = self._fk(filter, kind)
        return pd.DataFrame(self.trials[f, k].T, index=self.bin_labels(kind), columns=self.sizes)

    def pooled_error(self, filter: str, kind: str, bins: slice | Sequence[int], size: int) -> float:
        """Error rate pooled over bins (a slice or their indices) at one topic-set size (NaN without a trial)."""
        f, k = self._fk(filter, kind)
        bins = bins if isinstance(bins, slice) else list(bins)
        s = list(self.sizes).index(size)
        t = self.trials[f, k, s, bins].sum()
        return float(self.errors[f, k, s, bins].sum() / t) if t else float("nan")

    def dependence(self) -> pd.DataFrame:
        """Mean error by position of the pair's trials sorted by set-1 difference (Figure 8): sizes x 1..B."""
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = self.dep_errors / self.dep_trials
        return pd.DataFrame(rate, index=self.sizes, columns=np.arange(1, self.B + 1))


def rate_se(*counts) -> float:
    """The Monte Carlo standard error of a pooled error rate, or of the first minus the others."""
    if not counts:
        raise InputError("give at least one (errors, trials) pair")
    signs = [1.0] + [-1.0] * (len(counts) - 1)
    B = len(np.asarray(counts[0][1]))
    u = np.zeros(B)
    for s, (e, t) in zip(signs, counts):
        e, t = np.asarray(e, dtype=float), np.asarray(t, dtype=float)
        if len(e) != B or len(t) != B:
            raise InputError(
                f"every rate needs {B} repetitions (errors and trials), got {len(e)} and {len(t)}"
            )
        tot = t.sum()
        if tot == 0:
            return float("nan")
        u += s * (e - e.sum() / tot * t) / tot
    if B < 2:
        return float("nan")
    return float(np.sqrt(B / (B - 1) * (u**2).sum()))


@dataclass(frozen=True)
class GrowthFit:
    """error(n) = exp(log_a + b n) per bin, fitted by least squares on log(error) (Excel's GROWTH).

    Attributes
    ----------
    labels : tuple of str
    log_a, b : numpy.ndarray
        The fitted intercept (of the logarithm) and slope per bin.
    projected : numpy.ndarray
        The fitted error at ``at`` topics per bin (NaN when the bin was not fitted).
    n_points : numpy.ndarray
        The sizes used per bin.
    at : int
        The size projected to.
    threshold : float
        The error a reliable bin stays below (:meth:`first_reliable`).

    Examples
    --------
    >>> from irrepro.topic_split import GrowthFit
    >>> fit = GrowthFit(("0-5%", "5-10%"), np.log([0.4, 0.3]), np.array([-0.01, -0.05]),
    ...                 np.array([0.4, 0.3]) * np.exp(np.array([-0.01, -0.05]) * 50), np.array([5, 5]), 50)
    >>> fit.first_reliable()
    '5-10%'
    """

    labels: tuple[str, ...]
    log_a: np.ndarray
    b: np.ndarray
    projected: np.ndarray
    n_points: np.ndarray
    at: int
    threshold: float = 0.05

    def predict(self, n) -> np.ndarray:
        """Fitted error at sizes ``n``, ``(bins, len(n))``."""
        n = np.atleast_1d(np.asarray(n, dtype=float))
        return np.exp(self.log_a[:, None] + self.b[:, None] * n[None, :])

    def first_reliable(self) -> str | None:
        """Label of the smallest bin whose projected error is below ``threshold`` (None if none)."""
        ok = np.flatnonzero(self.projected < self.threshold)
        return self.labels[ok[0]] if len(ok) else None

    def table(self) -> pd.DataFrame:
        """The fit per bin: ``bin``, ``a``, ``b``, ``error at <at>`` and ``sizes used``."""
        cols = {
            "bin": self.labels,
            "a": np.exp(self.log_a),
            "b": self.b,
            f"error at {self.at}": self.projected,
        }
        return pd.DataFrame(cols | {"sizes used": self.n_points})


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
    """Fit error = a exp(b n) per bin (Excel's GROWTH: least squares on log error), projected to ``at`` topics.

    Sizes with fewer than ``min_trials`` trials or no error are left out; a bin with fewer than
    ``min_points`` sizes left is not fitted (NaN).

    Parameters
    ----------
    result : SwapExperiment
    filter : str
    kind : {"relative", "absolute"}
    at : int
        The paper's 50.
    min_trials, min_points : int
        See above.
    threshold : float
        For :meth:`GrowthFit.first_reliable`.

    Returns
    -------
    GrowthFit

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import synthetic
    >>> m = synthetic.score_matrix(8, 50, seed=1)
    >>> res = ts.swap_experiment([m], sizes=[5, 10, 15, 20], B=20, seed=2, filters=["none"])
    >>> fit = ts.growth_fit(res, at=50)
    >>> bool((fit.b[fit.n_points >= 3] < 0).all())   # the error falls with the topics
    True
    """
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
        tuple(result.bin_labels(kind)), log_a, b, np.exp(log_a + b * at), cnt.astype(int), at, threshold
    )


def _bin_lower_edge(label: str | None) -> float:
    """The lower edge, in %, of a bin label such as ``"25-30%"`` (NaN for ``None``)."""
    return float(label.split("-")[0]) if label else float("nan")


def _largest_projected_error(fit: GrowthFit) -> float:
    """The largest projected error at ``fit.at`` topics over the fitted bins (NaN if none)."""
    p = fit.projected
    return float(np.nanmax(p)) if np.isfinite(p).any() else float("nan")


def drop_bottom(matrix: ScoreMatrix, fraction: float = 0.25, by: ScoreMatrix | None = None) -> ScoreMatrix:
    """The runs of ``matrix`` without the bottom ``floor(fraction * S)`` by mean score of ``by`` (section 3).

    Parameters
    ----------
    matrix : ScoreMatrix
    fraction : float
        In [0, 1).
    by : ScoreMatrix, optional
        The scores ranking the runs (default ``matrix``; the paper: AP for P@10 too); ties keep the earlier.

    Returns
    -------
    ScoreMatrix
        The kept runs, in their order in ``matrix``.

    Examples
    --------
    >>> from irrepro.data import ScoreMatrix
    >>> from irrepro.topic_split import drop_bottom
    >>> m = ScoreMatrix(np.array([[0.5, 0.3], [0.1, 0.2], [0.4, 0.4], [0.2, 0.6]]), ("a", "b", "c", "d"),
    ...                 ("1", "2"), "AP")
    >>> drop_bottom(m).systems        # means 0.4, 0.15, 0.4, 0.4: b goes
    ('a', 'c', 'd')
    """
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


def _swap_task(matrices: list[np.ndarray], reps, design, abs_w, rel_w, n_bins, filters, chunk, args) -> tuple:
    """Counts of one (matrix number, size, generator) task (the matrices travel with the function)."""
    k, n, rng = args
    X = matrices[k]
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
    a, b = np.triu_indices(S, k=1)
    F = len(filters)
    trials = np.zeros((F, 2, reps, n_bins), dtype=np.int64)  # per repetition (its Monte Carlo error)
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
        rep = np.broadcast_to(np.arange(reps, dtype=np.int64) * n_bins, d1.shape)
        for f, (test, plo, phi) in enumerate(filters):
            keep = valid if test is None else valid & (pv[test] > plo) & (pv[test] <= phi)
            for k in range(2):
                bk = bins[k]
                sel = keep & (bk < n_bins)
                idx = bk[sel].astype(np.int64) + rep[sel]  # (repetition, bin), flattened
                size = reps * n_bins
                trials[f, k] += np.bincount(idx, minlength=size).reshape(reps, n_bins)
                errors[f, k] += (
                    np.bincount(idx, weights=err[sel], minlength=size).astype(np.int64).reshape(reps, n_bins)
                )
        order = np.argsort(absd, axis=1, kind="stable")
        dep_e += np.take_along_axis(err, order, axis=1).sum(axis=0)
        dep_t += np.take_along_axis(valid, order, axis=1).sum(axis=0)
    return trials, errors, dep_e, dep_t, len(a)


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
    """The swap experiment over one score matrix per TREC year, pairs of runs within a year (sections 3, 4, 7).

    Per year, size n and repetition, two sets of n topics (``"disjoint"``, or two ``"independent"``
    samples) compare every pair of runs (our reading). A trial is an error when the order on set 2 is
    strictly reversed from set 1 (a set-1 tie dropped); trials are binned ``[lo, hi)`` (1e-9 slack) by
    the set-1 difference, absolute and relative to the smaller mean. With the same seed and years, AP
    and P@10 draw the same topic sets.

    Parameters
    ----------
    matrices : sequence of ScoreMatrix
        One per year, all of one measure.
    sizes : sequence of int, optional
        Topic-set sizes; None: the paper's 5..25 at ``scale="paper"``, 5, 15, 25 at ``"quick"``.
    B : int, optional
        Repetitions per size; None: 50 (paper) or 10 (quick).
    design : {"disjoint", "independent"}
    filters : sequence of str, optional
        Names of ``FILTERS`` (default all): keep trials whose set-1 paired test lands in a band.
    abs_width, rel_width : float
        Bin widths.
    n_bins : int
        Bins of each kind.
    seed, n_jobs, progress
        The seed; workers (the values do not depend on them); a progress bar (a str: its label).
    chunk : int
        Pairs of runs per vectorised step (memory only).
    scale : {"paper", "quick"}
        What ``sizes`` and ``B`` left at None stand for.

    Returns
    -------
    SwapExperiment

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import synthetic
    >>> years = [synthetic.score_matrix(8, 50, seed=s) for s in (1, 2)]
    >>> res = ts.swap_experiment(years, sizes=[5, 25], B=10, seed=3, filters=["none", "paired-t p<=0.05"])
    >>> res.n_pairs                       # 2 x 8 x 7 / 2
    56
    >>> rates = res.errors[0, 1].sum(1) / res.trials[0, 1].sum(1)   # no filter, relative bins
    >>> bool(rates[1] < rates[0])         # fewer swaps on 25 topics than on 5
    True
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
    filters = tuple(FILTERS if filters is None else filters)
    for f in filters:
        if f not in FILTERS:
            raise UnknownNameError(f"unknown filter {f!r}; known: {list(FILTERS)}")
    fdefs = [FILTERS[f] for f in filters]
    tasks = [(k, s) for k in range(len(matrices)) for s in range(len(sizes))]
    rngs = parallel.spawn(seed, len(tasks))
    xs = [np.ascontiguousarray(_checked_scores(m, f"matrices[{k}]")) for k, m in enumerate(matrices)]
    items = [(k, int(sizes[s]), rngs[i]) for i, (k, s) in enumerate(tasks)]
    task = partial(_swap_task, xs, B, design, abs_width, rel_width, n_bins, fdefs, chunk)
    label = progress if isinstance(progress, str) else ("swap experiment" if progress else False)
    out = parallel.parallel_map(task, items, n_jobs=n_jobs, progress=label)
    F = len(filters)
    rep_trials = np.zeros((F, 2, len(sizes), B, n_bins), dtype=np.int64)
    rep_errors = np.zeros_like(rep_trials)
    dep_e = np.zeros((len(sizes), B), dtype=np.int64)
    dep_t = np.zeros_like(dep_e)
    n_pairs = 0
    for (_k, s), (tr, er, de, dt, npairs) in zip(tasks, out):
        rep_trials[:, :, s] += tr
        rep_errors[:, :, s] += er
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
        trials=rep_trials.sum(axis=3),
        errors=rep_errors.sum(axis=3),
        dep_errors=dep_e,
        dep_trials=dep_t,
        n_pairs=n_pairs,
        collections=tuple(m.collection for m in matrices),
        seed=seed if isinstance(seed, (int, np.integer)) else None,
        rep_trials=rep_trials,
        rep_errors=rep_errors,
    )
