"""The swap experiment's result and its exponential fit (Sanderson & Zobel 2005, sections 3 and 7),
served from :mod:`irrepro.topic_split`: the significance filters (:data:`FILTERS`), the counts
(:class:`SwapExperiment`), the GROWTH fit and projection (:func:`growth_fit` -> :class:`GrowthFit`)
and the summaries the book's chapter reports (:func:`bin_lower_edge`,
:func:`largest_projected_error`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .._deprecation import _warn, renamed_attribute
from ..errors import InputError, UnknownNameError

__all__ = [
    "FILTERS",
    "SwapExperiment",
    "GrowthFit",
    "growth_fit",
    "bin_lower_edge",
    "largest_projected_error",
    "rate_se",
]


class _Filters(dict):
    """A dict whose old keys (the filters' names until 0.2) still look up, with a warning."""

    def __missing__(self, key):
        if key in _OLD_FILTERS:
            return self[_filter_name(key, stacklevel=3)]
        raise KeyError(key)


#: The significance filters on set 1 (name -> (test, lower, upper): keep lower < p <= upper); the
#: tests by :data:`irrepro.significance.TESTS`' names.
FILTERS: dict[str, tuple[str | None, float, float]] = _Filters(
    {
        "none": (None, -1.0, 2.0),
        "paired-t 0.01<p<=0.05": ("paired-t", 0.01, 0.05),
        "paired-t 0.04<p<=0.05": ("paired-t", 0.04, 0.05),
        "paired-t p<=0.05": ("paired-t", -1.0, 0.05),
        "sign 0.01<p<=0.05": ("sign", 0.01, 0.05),
        "sign p<=0.05": ("sign", -1.0, 0.05),
        "wilcoxon 0.01<p<=0.05": ("wilcoxon", 0.01, 0.05),
        "wilcoxon p<=0.05": ("wilcoxon", -1.0, 0.05),
    }
)
#: The filters' names until 0.2 (deprecated, removed in 0.3): the paper's "t" is "paired-t".
_OLD_FILTERS = {"t " + name.split(" ", 1)[1]: name for name in FILTERS if name.startswith("paired-t ")}


def _filter_name(name: str, stacklevel: int = 4) -> str:
    """``name`` of :data:`FILTERS`; an old name (``"t p<=0.05"``) warns and gives its new one."""
    new = _OLD_FILTERS.get(name)
    if new is None:
        return name
    _warn(f"the filter name {name!r}", repr(new), stacklevel=stacklevel)
    return new


@dataclass(frozen=True)
class SwapExperiment:
    """Counts of the swap experiment (:func:`irrepro.topic_split.swap_experiment`).

    ``B`` random pairs of topic sets per size. ``trials[f, k, s, b]`` / ``errors[f, k, s, b]``:
    trials and order swaps for filter ``filters[f]``, bin kind ``kinds[k]`` ("absolute" or
    "relative"), topic-set size ``sizes[s]`` and bin ``b`` (absolute: ``[b, b+1)`` x
    ``abs_width``; relative: ``[b, b+1)`` x ``rel_width`` of the smaller set-1 score).
    ``dep_errors[s, r]`` / ``dep_trials[s, r]``: errors and trials at position ``r`` when each
    pair's B repetitions are sorted by absolute set-1 difference (Figure 8). ``rep_trials[f, k, s,
    r, b]`` / ``rep_errors``: the same counts per repetition ``r`` (``trials`` is their sum): the
    repetitions are independent draws, so they give the Monte Carlo error of every rate
    (:meth:`pooled_counts`, :func:`rate_se`) and of every fit (:meth:`resampled`). A filter may be
    named by its name until 0.2 (``"t p<=0.05"``, deprecated) in every method.

    Attributes
    ----------
    measure : str
        The matrices' measure.
    design : str
        ``"disjoint"`` or ``"independent"``.
    sizes : numpy.ndarray
        The topic-set sizes, ascending.
    B : int
        Repetitions per size.
    filters : tuple of str
        Names of :data:`FILTERS`.
    kinds : tuple of str
        ``("absolute", "relative")``.
    abs_width, rel_width : float
        Bin widths.
    trials, errors : numpy.ndarray
        ``(filters, kinds, sizes, bins)`` counts.
    dep_errors, dep_trials : numpy.ndarray
        ``(sizes, B)`` counts by position of the sorted set-1 difference.
    n_pairs : int
        Pairs of runs compared, over all years.
    collections : tuple of str
        The matrices' collections.
    seed : int or None
        The seed, when it was an int.
    rep_trials, rep_errors : numpy.ndarray or None
        ``(filters, kinds, sizes, B, bins)`` counts per repetition (None when not kept).

    Notes
    -----
    Sanderson & Zobel (2005), sections 3 and 7; Voorhees & Buckley (2002).

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import simulate
    >>> m = simulate.score_matrix(6, 30, seed=1)
    >>> res = ts.swap_experiment([m], sizes=[5, 10], B=4, seed=2, filters=["none", "paired-t p<=0.05"])
    >>> res.trials.shape                      # filters, kinds, sizes, bins
    (2, 2, 2, 20)
    >>> int(res.counts("none", "absolute").to_numpy().sum()) == int(res.trials[0, 0].sum())
    True
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

    repetitions = renamed_attribute("repetitions", "B")

    def _per_rep(self) -> tuple[np.ndarray, np.ndarray]:
        if self.rep_trials is None or self.rep_errors is None:
            raise InputError("this result keeps no counts per repetition: rerun swap_experiment")
        return self.rep_trials, self.rep_errors

    def pooled_counts(self, filter: str, kind: str, bins: slice, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Errors and trials per repetition, pooled over a range of bins at one topic-set size.

        What :meth:`pooled_error` pools, one value per repetition (the repetitions are independent
        draws of topic sets): the input of :func:`rate_se`.

        Parameters
        ----------
        filter : str
            One of ``filters``.
        kind : {"relative", "absolute"}
        bins : slice
            The bins pooled (``slice(2, 6)``: 10-30% relative).
        size : int
            One of ``sizes``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(errors, trials)``, each of length ``B``.

        Examples
        --------
        >>> from irrepro import topic_split as ts
        >>> from irrepro.data import simulate
        >>> res = ts.swap_experiment([simulate.score_matrix(6, 30, seed=1)], sizes=[5, 10], B=4, seed=2,
        ...                          filters=["none"])
        >>> e, t = res.pooled_counts("none", "relative", slice(2, 6), 5)
        >>> len(t), float(e.sum() / t.sum()) == res.pooled_error("none", "relative", slice(2, 6), 5)
        (4, True)
        """
        f, k = self._fk(filter, kind)
        s = list(self.sizes).index(size)
        tr, er = self._per_rep()
        return er[f, k, s, :, bins].sum(axis=-1), tr[f, k, s, :, bins].sum(axis=-1)

    def resampled(self, reps) -> SwapExperiment:
        """The experiment made of the repetitions ``reps`` (indices into ``0..B-1``, repeats allowed).

        A bootstrap over repetitions (``reps`` drawn with replacement) gives the Monte Carlo error
        of anything computed from the counts, e.g. a fit's threshold bin (:func:`growth_fit`). The
        counts of Figure 8 (``dep_errors``, by sorted position, not by repetition) are kept as they are.

        Parameters
        ----------
        reps : array_like of int
            The repetitions kept.

        Returns
        -------
        SwapExperiment
            With ``B = len(reps)``.

        Examples
        --------
        >>> from irrepro import topic_split as ts
        >>> from irrepro.data import simulate
        >>> res = ts.swap_experiment([simulate.score_matrix(6, 30, seed=1)], sizes=[5, 10], B=4, seed=2,
        ...                          filters=["none"])
        >>> bool((res.resampled(range(4)).trials == res.trials).all())
        True
        """
        tr, er = self._per_rep()
        reps = np.asarray(reps, dtype=np.int64).reshape(-1)
        if reps.size == 0 or reps.min() < 0 or reps.max() >= self.B:
            raise InputError(f"reps must be indices in 0..{self.B - 1}")
        rt, re_ = tr[:, :, :, reps], er[:, :, :, reps]
        return replace(
            self, B=len(reps), trials=rt.sum(axis=3), errors=re_.sum(axis=3), rep_trials=rt, rep_errors=re_
        )

    def _fk(self, filter: str, kind: str) -> tuple[int, int]:
        filter = _filter_name(filter, stacklevel=4)
        if filter not in self.filters:
            raise UnknownNameError(f"unknown filter {filter!r}; known: {list(self.filters)}")
        if kind not in self.kinds:
            raise UnknownNameError(f"kind must be one of {self.kinds}")
        return self.filters.index(filter), self.kinds.index(kind)

    def bin_labels(self, kind: str = "relative") -> list[str]:
        """The bins' labels, ``"0-5%"``, ``"5-10%"``, ... (relative) or ``"0-1%"``, ... (absolute).

        Parameters
        ----------
        kind : {"relative", "absolute"}

        Returns
        -------
        list of str
        """
        w = self.abs_width if kind == "absolute" else self.rel_width
        nb = self.trials.shape[-1]
        return [f"{100 * b * w:g}-{100 * (b + 1) * w:g}%" for b in range(nb)]

    def error_rates(self, filter: str = "none", kind: str = "relative") -> pd.DataFrame:
        """Error rate (swaps / trials) as a bins x sizes frame (NaN where no trial).

        Parameters
        ----------
        filter : str
            One of ``filters``.
        kind : {"relative", "absolute"}

        Returns
        -------
        pandas.DataFrame
            Rows :meth:`bin_labels`, columns ``sizes``.
        """
        f, k = self._fk(filter, kind)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = self.errors[f, k] / self.trials[f, k]
        return pd.DataFrame(rate.T, index=self.bin_labels(kind), columns=self.sizes)

    def counts(self, filter: str = "none", kind: str = "relative") -> pd.DataFrame:
        """Trials as a bins x sizes frame.

        Parameters
        ----------
        filter : str
            One of ``filters``.
        kind : {"relative", "absolute"}

        Returns
        -------
        pandas.DataFrame
            Rows :meth:`bin_labels`, columns ``sizes``.
        """
        f, k = self._fk(filter, kind)
        return pd.DataFrame(self.trials[f, k].T, index=self.bin_labels(kind), columns=self.sizes)

    def pooled_error(self, filter: str, kind: str, bins: slice, size: int) -> float:
        """Error rate pooled over a range of bins at one topic-set size.

        Parameters
        ----------
        filter : str
            One of ``filters``.
        kind : {"relative", "absolute"}
        bins : slice
            The bins pooled (``slice(2, 6)``: 10-30% relative).
        size : int
            One of ``sizes``.

        Returns
        -------
        float
            Swaps / trials over the bins; NaN without a trial.
        """
        f, k = self._fk(filter, kind)
        s = list(self.sizes).index(size)
        t = self.trials[f, k, s, bins].sum()
        return float(self.errors[f, k, s, bins].sum() / t) if t else float("nan")

    def dependence(self) -> pd.DataFrame:
        """Mean error by position of the pair's trials sorted by set-1 difference (Figure 8).

        Returns
        -------
        pandas.DataFrame
            Rows ``sizes``, columns the positions 1..B.
        """
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = self.dep_errors / self.dep_trials
        return pd.DataFrame(rate, index=self.sizes, columns=np.arange(1, self.B + 1))


# --------------------------------------------------------------------------------------------
# GROWTH-style exponential fit
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GrowthFit:
    """error(n) = exp(log_a + b n) per bin, fitted by least squares on log(error) (Excel's GROWTH).

    ``projected[b]`` is the fitted error at ``at`` topics (NaN when the bin has fewer than
    ``min_points`` usable sizes); ``n_points[b]`` the number of sizes used.

    Attributes
    ----------
    labels : tuple of str
        The bins' labels.
    log_a, b : numpy.ndarray
        The fitted intercept (of the logarithm) and slope per bin.
    projected : numpy.ndarray
        The fitted error at ``at`` topics per bin.
    n_points : numpy.ndarray
        The sizes used per bin.
    at : int
        The size projected to.
    threshold : float
        The error a reliable bin stays below (:meth:`first_reliable`).

    Notes
    -----
    Sanderson & Zobel (2005), section 3 (the projections to 50 topics of Figures 1-6 and 9-12).

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.topic_split import GrowthFit
    >>> fit = GrowthFit(("0-5%", "5-10%"), np.log([0.4, 0.3]), np.array([-0.01, -0.05]),
    ...                 np.array([0.4, 0.3]) * np.exp(np.array([-0.01, -0.05]) * 50), np.array([5, 5]), 50)
    >>> fit.projected.round(4).tolist()
    [0.2426, 0.0246]
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
        """Fitted error at sizes ``n``.

        Parameters
        ----------
        n : int or array_like
            Topic-set sizes.

        Returns
        -------
        numpy.ndarray
            ``(bins, len(n))``.
        """
        n = np.atleast_1d(np.asarray(n, dtype=float))
        return np.exp(self.log_a[:, None] + self.b[:, None] * n[None, :])

    def first_reliable(self) -> str | None:
        """Label of the smallest bin whose projected error is below ``threshold`` (None if none).

        Returns
        -------
        str or None
        """
        ok = np.flatnonzero(self.projected < self.threshold)
        return self.labels[ok[0]] if len(ok) else None

    def table(self) -> pd.DataFrame:
        """The fit per bin: ``bin``, ``a``, ``b``, ``error at <at>`` and ``sizes used``.

        Returns
        -------
        pandas.DataFrame
        """
        return pd.DataFrame(
            {
                "bin": self.labels,
                "a": np.exp(self.log_a),
                "b": self.b,
                f"error at {self.at}": self.projected,
                "sizes used": self.n_points,
            }
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
    """Fit error = a exp(b n) per bin to the swap experiment's error rates, projected to ``at`` topics.

    The paper's trends are "projected" with MS Excel's GROWTH, i.e. least squares on log(error)
    against n. Our policy for points Excel cannot take: sizes with fewer than ``min_trials``
    trials or with zero error (log 0) are left out of the fit of that bin; a bin with fewer than
    ``min_points`` sizes left is not fitted (NaN), as the paper left out bins with "insufficient
    data".

    Parameters
    ----------
    result : SwapExperiment
        The counts.
    filter : str
        One of ``result.filters`` (an old name such as ``"t p<=0.05"`` warns).
    kind : {"relative", "absolute"}
        The bins.
    at : int
        The topic-set size projected to (the paper's 50).
    min_trials : int
        The fewest trials of a size that enters a bin's fit.
    min_points : int
        The fewest sizes a bin is fitted on.
    threshold : float
        Stored in the result for :meth:`GrowthFit.first_reliable`.

    Returns
    -------
    GrowthFit

    Notes
    -----
    Sanderson & Zobel (2005), section 3.

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import simulate
    >>> m = simulate.score_matrix(8, 50, seed=1)
    >>> res = ts.swap_experiment([m], sizes=[5, 10, 15, 20], B=20, seed=2, filters=["none"])
    >>> fit = ts.growth_fit(res, at=50)
    >>> len(fit.labels), fit.at
    (20, 50)
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
    """The lower edge, in %, of a bin label such as ``"25-30%"``.

    As :meth:`GrowthFit.first_reliable` returns it; NaN for ``None`` (no bin qualifies).

    Parameters
    ----------
    label : str or None
        A bin's label.

    Returns
    -------
    float

    Notes
    -----
    Sanderson & Zobel (2005), Figures 2-4: the threshold bins the chapter compares.

    Examples
    --------
    >>> from irrepro.topic_split import bin_lower_edge
    >>> bin_lower_edge("25-30%"), bin_lower_edge(None)
    (25.0, nan)
    """
    return float(label.split("-")[0]) if label else float("nan")


def largest_projected_error(fit: GrowthFit) -> float:
    """The largest projected error at ``fit.at`` topics over the fitted bins.

    NaN when no bin could be fitted.

    Parameters
    ----------
    fit : GrowthFit

    Returns
    -------
    float

    Notes
    -----
    Sanderson & Zobel (2005), Figures 10 and 12: "well below 0.05".

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.topic_split import GrowthFit, largest_projected_error
    >>> fit = GrowthFit(("0-5%", "5-10%"), np.zeros(2), np.zeros(2), np.array([0.04, np.nan]), np.array([3, 0]), 50)
    >>> largest_projected_error(fit)
    0.04
    """
    p = fit.projected
    return float(np.nanmax(p)) if np.isfinite(p).any() else float("nan")


def rate_se(*counts, signs=None) -> float:
    """The Monte Carlo standard error of a pooled error rate, or of a sum or difference of them.

    Each of ``counts`` is ``(errors, trials)`` per repetition (:meth:`SwapExperiment.pooled_counts`)
    and gives the rate R = sum(errors) / sum(trials). The standard error of sum_i s_i R_i is the
    linearisation (delta-method) estimate over the B independent repetitions: with u_r = sum_i s_i
    (errors_ir - R_i trials_ir) / sum(trials_i), se^2 = B / (B - 1) sum_r u_r^2. The trials of one
    repetition share its topic sets, so they are not independent: a binomial error over trials
    would be too small; the repetitions are. Counts of different experiments drawn with the same
    seed and years share their topic sets repetition by repetition (:func:`swap_experiment`), so a
    difference of their rates is paired by repetition.

    Parameters
    ----------
    *counts : tuple of numpy.ndarray
        ``(errors, trials)`` per repetition, all of the same length B.
    signs : sequence of float, optional
        The weights s_i (default 1 for the first and -1 for the others: one rate, or a difference).

    Returns
    -------
    float
        The standard error; NaN without a trial or with fewer than two repetitions.

    Notes
    -----
    Sanderson & Zobel (2005) repeat each split 50 times; the spread over those repetitions is the
    Monte Carlo error of the rates their figures show.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.topic_split import rate_se
    >>> e, t = np.array([1, 3, 2, 2]), np.array([10, 10, 10, 10])
    >>> round(rate_se((e, t)), 4)          # rates 0.1, 0.3, 0.2, 0.2: sd 0.0816 / sqrt(4)
    0.0408
    >>> rate_se((e, t), (e, t))            # a rate minus itself
    0.0
    """
    if not counts:
        raise InputError("give at least one (errors, trials) pair")
    signs = [1.0] + [-1.0] * (len(counts) - 1) if signs is None else list(signs)
    if len(signs) != len(counts):
        raise InputError(f"{len(signs)} signs for {len(counts)} rates")
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
