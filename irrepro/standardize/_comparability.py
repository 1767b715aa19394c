"""Comparability of collections (Webber, Moffat & Zobel 2008, sections 4 and 5): intervals and
distributions of system means, dRMSE between two collections' system scores, systems significantly
different from themselves, discriminative power and rank agreement. Served from
:mod:`irrepro.standardize`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from ..stats import check_level
from ..stats import kendall_tau as _kendall_tau
from ..errors import InputError
from ._scores import _matrix

__all__ = [
    "mean_intervals",
    "percentile_items",
    "item_total_correlation",
    "drmse",
    "self_significance",
    "binomial_interval",
    "discriminative_power",
    "rank_agreement",
]


def mean_intervals(scores, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-system mean score and its t confidence interval over topics (Figure 2):
    mean +- t_{T-1} * sd / sqrt(T). Returns (mean, low, high), each ``(S,)``. ``level``: a
    fraction or a percentage (:func:`irrepro.stats.check_level`)."""
    level = check_level(level)
    x = _matrix(scores)
    t = x.shape[1]
    m = x.mean(axis=1)
    half = stats.t.ppf(0.5 + level / 2, t - 1) * x.std(axis=1, ddof=1) / np.sqrt(t)
    return m, m - half, m + half


def percentile_items(values, q: Sequence[float] = (1, 10, 40, 75)) -> np.ndarray:
    """Indices of the items at the ``q``-th percentiles when ordered best first (Table 1: the
    "first, tenth, fortieth and seventy-fifth percentile" systems or topics by mean score).
    Interpretation: the item at 0-based position ceil(q/100 * n) - 1 of the descending order."""
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(-v, kind="stable")
    pos = np.clip(np.ceil(np.asarray(q, dtype=float) / 100 * len(v)).astype(int) - 1, 0, len(v) - 1)
    return order[pos]


def item_total_correlation(scores, *, corrected: bool = True) -> np.ndarray:
    """Item-total correlation of each topic (Bodoff & Li 2007; section 2): Pearson correlation,
    over systems, between the topic's scores and the systems' total score - the total over the
    other topics when ``corrected`` (psychometrics' corrected item-total correlation), or over
    all topics. Returns ``(T,)``."""
    x = _matrix(scores)
    total = x.sum(axis=1, keepdims=True)
    other = total - x if corrected else np.broadcast_to(total, x.shape)
    xc = x - x.mean(axis=0)
    oc = other - other.mean(axis=0)
    den = np.sqrt((xc**2).sum(axis=0) * (oc**2).sum(axis=0))
    return np.divide((xc * oc).sum(axis=0), den, out=np.full(x.shape[1], np.nan), where=den > 0)


# --------------------------------------------------------------------------------------------
# Comparability between collections (section 5)
# --------------------------------------------------------------------------------------------


def drmse(a, b, *, ddof: int = 1) -> np.ndarray:
    """Standard-deviation normalized RMSE between system mean scores on two collections (eq. 4):
    RMSE(a, b) / ((sd(a) + sd(b)) / 2), sd over systems with ``ddof`` (sample sd: see notes).

    ``a`` and ``b`` are system means, shape ``(..., S)``; leading axes are batches (e.g. random
    partitions), so one call scores many collection pairs. NaN where both sds are 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.shape[-1] < 2:
        raise InputError(f"a and b need the same shape with >= 2 systems, got {a.shape} and {b.shape}")
    rmse = np.sqrt(np.mean((a - b) ** 2, axis=-1))
    den = np.asarray(a.std(axis=-1, ddof=ddof) + b.std(axis=-1, ddof=ddof))
    # undefined (NaN, no warning) where neither collection's means vary, e.g. every score 0
    out = np.divide(2 * rmse, den, out=np.full(den.shape, np.nan), where=den > 0)
    return out[()]


def self_significance(scores_c, scores_d, *, alpha: float = 0.05) -> np.ndarray:
    """Which systems a two-sided two-sample (Student) t-test finds significantly different from
    themselves between collections C and D (section 5; Table 4). ``scores_c`` is systems x topics
    of C, ``scores_d`` systems x topics of D (same systems, any topics). Returns bool ``(S,)``."""
    c, d = _matrix(scores_c), _matrix(scores_d)
    if c.shape[0] != d.shape[0]:
        raise InputError("both collections need the same systems (rows)")
    p = stats.ttest_ind(c, d, axis=1).pvalue
    return np.nan_to_num(p, nan=1.0) < alpha


def binomial_interval(k, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a rate k / n, e.g. the false-positive rate of
    :func:`self_significance` over the n systems. ``level``: a fraction or a percentage
    (:func:`irrepro.stats.check_level`)."""
    level = check_level(level)
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def discriminative_power(scores, *, alpha: float = 0.05) -> float:
    """Share of system pairs a two-sided paired t-test over topics finds significant at
    ``alpha`` (section 5; Sakai 2006's discriminative power). Uses scipy's vectorised
    ``ttest_rel`` over all S(S-1)/2 pairs at once."""
    x = _matrix(scores)
    i, j = np.triu_indices(x.shape[0], 1)
    p = stats.ttest_rel(x[i], x[j], axis=1).pvalue
    return float(np.mean(np.nan_to_num(p, nan=1.0) < alpha))


def rank_agreement(a, b) -> tuple[float, float]:
    """(Kendall's tau, Pearson's r) between two vectors of system scores (Table 2)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(_kendall_tau(a, b)), float(stats.pearsonr(a, b)[0])


# --------------------------------------------------------------------------------------------
# Random topic halves (section 5: Figures 5 and 6)
# --------------------------------------------------------------------------------------------
