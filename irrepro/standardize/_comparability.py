"""Comparability of collections (Webber, Moffat & Zobel 2008, sections 4 and 5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from .. import _spread
from ..errors import InputError
from ..significance.classical import paired_t_pvalues
from ..stats import check_level
from ..stats import kendall_tau as _kendall_tau
from ._scores import _checked_scores


def mean_intervals(scores, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each system's mean score with its t interval over topics, ``mean +- t_{T-1} sd / sqrt(T)`` (Figure 2).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    level : float, default 0.95
        A fraction or a percentage.

    Returns
    -------
    mean, low, high : numpy.ndarray
        Each ``(S,)``.

    Examples
    --------
    >>> from irrepro.standardize import mean_intervals
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> [a.round(3) for a in mean_intervals(x)]
    [array([0.267, 0.467, 0.267]), array([-0.25 , -0.05 ,  0.123]), array([0.784, 0.984, 0.41 ])]
    """
    level = check_level(level)
    x = _checked_scores(scores)
    t = x.shape[1]
    m, sd = _spread.mean_sd(x, axis=1)
    half = stats.t.ppf(0.5 + level / 2, t - 1) * sd / np.sqrt(t)
    return m, m - half, m + half


def percentile_items(values, q: Sequence[float] = (1, 10, 40, 75)) -> np.ndarray:
    """Indices of the items at the ``q``-th percentiles, best first: position ``ceil(q n / 100)`` (Table 1).

    Parameters
    ----------
    values : array_like
        One value per item (e.g. system means).
    q : sequence of float, default (1, 10, 40, 75)
        The percentiles.

    Returns
    -------
    numpy.ndarray
        Indices into ``values``, one per percentile.

    Examples
    --------
    >>> from irrepro.standardize import percentile_items
    >>> percentile_items([0.3, 0.9, 0.5, 0.1], q=(25, 50, 100))
    array([1, 2, 3])
    """
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(-v, kind="stable")
    pos = np.clip(np.ceil(np.asarray(q, dtype=float) / 100 * len(v)).astype(int) - 1, 0, len(v) - 1)
    return order[pos]


def item_total_correlation(scores, *, corrected: bool = True) -> np.ndarray:
    """Each topic's Pearson correlation over systems with the systems' total score (Bodoff & Li 2007).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    corrected : bool, default True
        Correlate with the total over the other topics, or over all topics.

    Returns
    -------
    numpy.ndarray
        ``(T,)``; NaN for a topic (or total) that does not vary over systems.

    Examples
    --------
    >>> from irrepro.standardize import item_total_correlation
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> item_total_correlation(x).round(3)
    array([0.756, 0.5  , 0.756])
    """
    x = _checked_scores(scores)
    total = x.sum(axis=1, keepdims=True)
    other = total - x if corrected else np.broadcast_to(total, x.shape)
    xc = _spread.centred(x, axis=0)  # a topic every system scores the same on: exactly 0
    oc = _spread.centred(other, axis=0)
    den = np.sqrt((xc**2).sum(axis=0) * (oc**2).sum(axis=0))
    return np.divide((xc * oc).sum(axis=0), den, out=np.full(x.shape[1], np.nan), where=den > 0)


def drmse(a, b, *, ddof: int = 1) -> np.ndarray:
    """The sd-normalized RMSE of system means on two collections, ``RMSE(a, b) / ((sd(a) + sd(b)) / 2)`` (eq. 4).

    Parameters
    ----------
    a, b : array_like
        System means on the two collections, ``(..., S)`` with S >= 2 (leading axes: batches).
    ddof : int, default 1

    Returns
    -------
    numpy.ndarray or float
        Shape ``(...)``; NaN where neither collection's means vary.

    Examples
    --------
    >>> from irrepro.standardize import drmse
    >>> float(drmse([0.2, 0.3, 0.4], [0.25, 0.3, 0.5]).round(3))
    0.556
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.shape[-1] < 2:
        raise InputError(f"a and b need the same shape with >= 2 systems, got {a.shape} and {b.shape}")
    rmse = np.sqrt(np.mean((a - b) ** 2, axis=-1))
    den = np.asarray(_spread.sd(a, ddof=ddof) + _spread.sd(b, ddof=ddof))
    # undefined (NaN, no warning) where neither collection's means vary, e.g. every score 0
    out = np.divide(2 * rmse, den, out=np.full(den.shape, np.nan), where=den > 0)
    return out[()]


def self_significance(scores_c, scores_d, *, alpha: float = 0.05) -> np.ndarray:
    """Which systems a two-sample t-test finds significantly different from themselves on two collections."""
    c, d = _checked_scores(scores_c), _checked_scores(scores_d)
    if c.shape[0] != d.shape[0]:
        raise InputError("both collections need the same systems (rows)")
    flat = _spread.constant(c, axis=1) & _spread.constant(d, axis=1)
    p = np.full(len(c), np.nan)
    if not flat.all():
        p[~flat] = stats.ttest_ind(c[~flat], d[~flat], axis=1).pvalue
    # no spread on either collection: t = +-inf (p = 0) between two scores, 0/0 for one score
    p[flat] = np.where(c[flat, 0] == d[flat, 0], np.nan, 0.0)
    return np.nan_to_num(p, nan=1.0) < alpha


def binomial_interval(k, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a rate ``k / n`` at ``level`` (a fraction or a percentage)."""
    level = check_level(level)
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def discriminative_power(scores, *, alpha: float = 0.05) -> float:
    """The share of system pairs a two-sided paired t-test over topics finds significant (Sakai 2006).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    alpha : float, default 0.05

    Returns
    -------
    float

    Examples
    --------
    >>> from irrepro.standardize import discriminative_power
    >>> x = np.array([[0.2, 0.5, 0.1, 0.4], [0.4, 0.7, 0.3, 0.7], [0.3, 0.3, 0.2, 0.2]])
    >>> round(discriminative_power(x), 3)
    0.333
    """
    return float(np.mean(significant_pairs(scores, alpha=alpha)))


def significant_pairs(scores, *, alpha: float = 0.05) -> np.ndarray:
    """Per system pair (``numpy.triu_indices`` order), whether a paired t-test finds it significant."""
    x = _checked_scores(scores)
    i, j = np.triu_indices(x.shape[0], 1)
    p = paired_t_pvalues(x[i] - x[j])  # scipy's ttest_rel, with exact degenerate pairs
    return np.nan_to_num(p, nan=1.0) < alpha


def rank_agreement(a, b) -> tuple[float, float]:
    """Kendall's tau and Pearson's r between two vectors of system scores (Table 2).

    Parameters
    ----------
    a, b : array_like
        One score per system each, in the same system order.

    Returns
    -------
    tuple of float
        (Kendall's tau, Pearson's r).

    Examples
    --------
    >>> from irrepro.standardize import rank_agreement
    >>> [round(v, 3) for v in rank_agreement([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.5])]
    [0.667, 0.832]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(_kendall_tau(a, b)), float(stats.pearsonr(a, b)[0])
