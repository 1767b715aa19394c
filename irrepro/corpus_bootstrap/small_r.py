"""The small-R correction of AP intervals (Cormack & Lynam 2006, section 7): silver bullets and
lead balloons."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
from scipy import stats

from ._interval import Intervals

__all__ = ["silver_bullet_fraction", "expected_ap_uniform", "small_r_limits", "small_r_correct"]


def silver_bullet_fraction(n_rel, alpha: float = 0.05) -> np.ndarray:
    """Upper limit u of the silver-bullet (or lead-balloon) proportion.

    Upper limit u of the silver-bullet (or lead-balloon) proportion: the smallest u with
    ``(1 - u)^R <= alpha``, i.e. ``1 - alpha^(1/R)`` (R = 4: 0.527).

    Parameters
    ----------
    n_rel : array_like
        R.
    alpha : float
        One minus the confidence level.

    Returns
    -------
    numpy.ndarray
        ``1 - alpha^(1/R)``, shaped as ``n_rel``.

    Notes
    -----
    Cormack & Lynam (2006), section 7.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import silver_bullet_fraction
    >>> float(silver_bullet_fraction(4).round(3))
    0.527
    """
    n_rel = np.asarray(n_rel, dtype=np.float64)
    return 1.0 - alpha ** (1.0 / n_rel)


def expected_ap_uniform(n_rel: int, depth: int, n_top: int, n_placed) -> np.ndarray:
    """E[AP] of a list whose further relevant documents sit at uniformly random ranks.

    E[AP] of a list of ``depth`` ranks whose top ``n_top`` documents are relevant and whose
    ``n_placed`` further relevant documents occupy a uniformly random set of the remaining ranks;
    R = ``n_rel``. Exact: by linearity, rank ``r`` of the N = depth - n_top free ranks holds a
    placed document with probability x/N and then has on average 1 + (x-1)(r-1)/(N-1) placed
    documents at or above it, so E[AP] = (n_top + sum_r x/N (n_top + 1 + (x-1)(r-1)/(N-1)) /
    (n_top + r)) / R. (The paper enumerates the same expectation by dynamic programming.)
    ``n_placed`` may be an array (vectorised).

    Parameters
    ----------
    n_rel : int
        R.
    depth : int
        The list's length.
    n_top : int
        Relevant documents leading the list.
    n_placed : int or array_like
        Relevant documents at uniformly random ranks among the others.

    Returns
    -------
    numpy.ndarray
        E[AP], shaped as ``n_placed``.

    Notes
    -----
    Cormack & Lynam (2006), section 7.

    Examples
    --------
    One relevant document of three leads the list, none placed: AP = 1/3.

    >>> from irrepro.corpus_bootstrap import expected_ap_uniform
    >>> float(expected_ap_uniform(3, 10, 1, 0))
    0.3333333333333333
    """
    x = np.asarray(n_placed, dtype=np.float64)[..., None]
    N = depth - n_top
    if N <= 0:
        return np.full(x.shape[:-1], n_top / n_rel)
    r = np.arange(1, N + 1, dtype=np.float64)
    hits = n_top + 1 + (x - 1) * (r - 1) / max(N - 1, 1)
    e = (x / N * hits / (n_top + r)).sum(axis=-1)
    return (n_top + e) / n_rel


def small_r_limits(n_rel: int, depth: int, alpha: float = 0.05, tail: float = 1e-12) -> tuple[float, float]:
    """The section-7 limits for AP = 0 and AP = 1 with few relevant documents.

    (upper limit when AP = 0, lower limit when AP = 1) for R = ``n_rel`` and a list of
    ``depth`` ranks (section 7).

    Silver bullets: a proportion u = :func:`silver_bullet_fraction` of the population's relevant
    documents is retrievable by the system; with R relevant documents, X ~ Binomial(R, u) of them
    are silver bullets, each at a uniformly random rank in 1..depth: the limit is E[AP].
    Lead balloons (our reading of "a similar dynamic approach"): with AP = 1 all R relevant
    documents lead the list; X ~ Binomial(R, u) of them are lead balloons, which the system cannot
    rank well: they land at uniformly random ranks below the R - X others; the limit is E[AP].
    The binomial is summed up to its 1 - ``tail`` quantile.

    Parameters
    ----------
    n_rel : int
        R.
    depth : int
        The list's length.
    alpha : float
        One minus the confidence level.
    tail : float
        The binomial's neglected upper tail.

    Returns
    -------
    upper0, lower1 : float
        The upper limit when AP = 0 and the lower limit when AP = 1.

    Notes
    -----
    Cormack & Lynam (2006), section 7.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import small_r_limits
    >>> [round(v, 3) for v in small_r_limits(3, 10)]
    [0.248, 0.675]
    """
    n_rel, depth = int(n_rel), max(int(depth), int(n_rel))
    u = float(silver_bullet_fraction(n_rel, alpha))
    xmax = int(stats.binom.ppf(1 - tail, n_rel, u))
    x = np.arange(xmax + 1)
    w = stats.binom.pmf(x, n_rel, u)
    w = w / w.sum()
    upper0 = float((w * expected_ap_uniform(n_rel, depth, 0, x)).sum())
    lower1 = float(sum(wi * expected_ap_uniform(n_rel, depth, n_rel - xi, xi) for xi, wi in zip(x, w)))
    return upper0, lower1


def small_r_correct(iv: Intervals, n_rel, depth, alpha: float = 0.05) -> Intervals:
    """The small-R correction of Cormack & Lynam (2006, section 7) of an interval.

    Section 7: for AP at or near 0 (AP below the silver-bullet limit U0) the interval becomes
    the larger (wider) of the bootstrap interval and [0, U0]; at or near 1 (AP above the
    lead-balloon limit L1) the wider of it and [L1, 1]. ``n_rel``, ``depth`` broadcast to the
    interval's shape (depth = list length, at least R).

    Parameters
    ----------
    iv : Intervals
        The bootstrap intervals.
    n_rel, depth : array_like
        R and the list length, broadcast to the intervals' shape.
    alpha : float
        One minus the confidence level.

    Returns
    -------
    Intervals
        The corrected intervals (method ``"...+smallR"``).

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.corpus_bootstrap import Intervals, small_r_correct
    >>> iv = Intervals("linear", np.array([0.0]), np.array([0.0]), np.array([0.0]), np.array([0.0]))
    >>> small_r_correct(iv, 3, 10).upper.round(3)  # AP = 0 with sd 0: [0, U0]
    array([0.248])
    """
    est = iv.estimate
    R = np.broadcast_to(np.asarray(n_rel), est.shape)
    n = np.maximum(np.broadcast_to(np.asarray(depth), est.shape), R)
    lo, hi = iv.lower.copy(), iv.upper.copy()
    ok = np.isfinite(est) & (R > 0)
    u = silver_bullet_fraction(np.maximum(R, 1), alpha)
    # U0 <= E[#silver] / R = u and L1 >= 1 - u: only these lists can be corrected
    cand = ok & ((est <= u) | (est >= 1 - u))
    for idx in zip(*np.nonzero(cand)):
        u0, l1 = _limits(int(R[idx]), int(n[idx]), float(alpha))
        for a, b in ((0.0, u0), (l1, 1.0)):
            if a <= est[idx] <= b and (b - a) > (hi[idx] - lo[idx]):
                lo[idx], hi[idx] = a, b
    return replace(iv, lower=lo, upper=hi, method=iv.method + "+smallR")


@functools.lru_cache(maxsize=1 << 16)
def _limits(n_rel: int, depth: int, alpha: float) -> tuple[float, float]:
    """:func:`small_r_limits`, remembered: the same (R, depth) recurs across lists, methods,
    halves and run sets (the values are the same as computed afresh)."""
    return small_r_limits(n_rel, depth, alpha=alpha)


def _with_small_r(ivs: dict[str, Intervals], n_rel, depth) -> dict[str, Intervals]:
    """``ivs`` plus the section-7 corrections of its linear and logit intervals
    (keys ``"linear+smallR"``, ``"logit+smallR"``)."""
    return {
        **ivs,
        **{m + "+smallR": small_r_correct(ivs[m], n_rel, depth) for m in ("linear", "logit") if m in ivs},
    }
