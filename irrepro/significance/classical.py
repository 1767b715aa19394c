"""The classical paired tests of many cases at once (Sanderson & Zobel 2005, section 3; Smucker,
Allan & Carterette 2007): differences ``(..., n)`` in (the last axis the topics), p-values out, equal
to scipy's row-by-row ``ttest_rel``, ``binomtest`` and ``wilcoxon``, or with ``min_d`` and
``convention="R"`` to Urbano, Lima & Hanjalic's (2019) R code.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import special, stats

from .. import _spread
from ..errors import InputError

_ALTERNATIVES = ("two-sided", "greater", "less")


def _as_diffs(d) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    if d.ndim == 0:
        raise InputError("differences need a last axis of topics")
    if d.shape[-1] < 2:
        raise InputError(f"need at least 2 paired values per case, got {d.shape[-1]}")
    if not np.isfinite(d).all():
        raise InputError("differences must be finite numbers: they hold NaN or an infinity")
    return d


def _check_alternative(alternative: str) -> str:
    if alternative not in _ALTERNATIVES:
        raise InputError(f"alternative must be one of {', '.join(_ALTERNATIVES)}, not {alternative!r}")
    return alternative


def paired_t_pvalues(d, alternative: str = "two-sided") -> np.ndarray:
    """p-values of the paired t-test of many cases at once, as ``scipy.stats.ttest_rel`` (all-zero differences: NaN).

    Parameters
    ----------
    d : array_like
        Differences ``(..., n)``, the last axis the topics (n >= 2, finite).
    alternative : str
        ``"two-sided"``, ``"greater"`` (mean of d > 0) or ``"less"``.

    Returns
    -------
    numpy.ndarray
        Of shape ``d.shape[:-1]``.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> d = np.array([[0.1, 0.2, -0.05, 0.3, 0.1], [0.0, 0.1, -0.1, 0.1, 0.0]])
    >>> sg.paired_t_pvalues(d).round(4).tolist()
    [0.0897, 0.6213]
    """
    d = _as_diffs(d)
    t = _paired_t(d)
    if _check_alternative(alternative) == "two-sided":
        return 2.0 * special.stdtr(d.shape[-1] - 1, -np.abs(t))
    return special.stdtr(d.shape[-1] - 1, -t if alternative == "greater" else t)


def _paired_t(d: np.ndarray) -> np.ndarray:
    """t = mean / (sd / sqrt n) of ``d`` (..., n); equal differences give +-inf, or NaN when 0."""
    n = d.shape[-1]
    mean = d.mean(axis=-1)
    dev = d - mean[..., None]  # d.var(axis=-1, ddof=1) from this mean, numpy's steps and bits
    np.multiply(dev, dev, out=dev)  # (one pass over d fewer: the swap experiment's (pairs, reps, n))
    var = dev.sum(axis=-1) / (n - 1)
    del dev
    mean, var = _spread.exact(d, mean, var)
    with np.errstate(divide="ignore", invalid="ignore"):
        return mean / np.sqrt(var / n)


def two_sample_t_pvalues(mean_a, mean_b, ss_a, ss_b, n_a, n_b) -> np.ndarray:
    """Two-sided p-values of Student's two-sample t-test from each sample's mean, sum of squared deviations
    and size, as ``scipy.stats.ttest_ind_from_stats``."""
    mean_a, mean_b = np.asarray(mean_a, dtype=np.float64), np.asarray(mean_b, dtype=np.float64)
    n_a, n_b = np.asarray(n_a, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    df = n_a + n_b - 2
    sp2 = np.maximum(np.asarray(ss_a) + np.asarray(ss_b), 0.0) / df
    se = np.sqrt(sp2 * (1 / n_a + 1 / n_b))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean_a - mean_b) / se
    return 2 * stats.t.sf(np.abs(t), df)


def sign_test_pvalues(d, alternative: str = "two-sided", *, min_d: float = 0.0) -> np.ndarray:
    """p-values of the sign test of many cases at once: ``scipy.stats.binomtest(k, m, 0.5)``, ties dropped.

    Parameters
    ----------
    d : array_like
        Differences ``(..., n)``, the last axis the topics (n >= 2, finite).
    alternative : str
        ``"two-sided"``, ``"greater"`` (more positive differences) or ``"less"``.
    min_d : float
        Differences with ``|d| <= min_d`` are ties (Urbano et al. 2019 take 0.01).

    Returns
    -------
    numpy.ndarray
        Of shape ``d.shape[:-1]``.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> d = np.array([[0.1, 0.2, -0.05, 0.3, 0.1], [0.0, 0.1, -0.1, 0.1, 0.0]])
    >>> sg.sign_test_pvalues(d).round(4).tolist()
    [0.375, 1.0]
    """
    d = _as_diffs(d)
    if not (np.isfinite(min_d) and min_d >= 0):
        raise InputError(f"min_d must be a number >= 0, got {min_d!r}")
    if min_d > 0:
        d = np.where(np.abs(d) <= min_d, 0.0, d)
    k = (d > 0).sum(axis=-1)
    m = k + (d < 0).sum(axis=-1)
    if _check_alternative(alternative) != "two-sided":
        with np.errstate(invalid="ignore"):
            tail = stats.binom.sf(k - 1, m, 0.5) if alternative == "greater" else stats.binom.cdf(k, m, 0.5)
        return np.where(m == 0, np.nan, tail)
    lo = np.minimum(k, m - k)
    # scipy's two-sided rule for p = 0.5 sums both tails: cdf(lo) + sf(m - lo - 1), capped at 1
    with np.errstate(invalid="ignore"):
        p = stats.binom.cdf(lo, m, 0.5) + stats.binom.sf(m - lo - 1, m, 0.5)
    p = np.where(2 * k == m, 1.0, np.minimum(p, 1.0))
    return np.where(m == 0, np.nan, p)


@cache
def _tied_tail_table(key: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """P(2W+ <= s) and P(2W+ >= s) under random signs for the m ranks whose tie groups start at the bits
    of ``key >> 8`` (``m = key & 0xFF``), exact."""
    m, mask = key & 0xFF, key >> 8
    starts = [i for i in range(m) if mask >> i & 1] + [m]
    c = np.zeros(width, dtype=np.int64)  # sign patterns giving each sum of the positive doubled ranks
    c[0] = 1
    for a, b in zip(starts[:-1], starts[1:]):
        r = a + b + 1  # the doubled average rank of positions a..b-1 (1-based)
        for _ in range(b - a):
            c[r:] = c[r:] + c[:-r].copy()
    total = float(2**m)
    return np.cumsum(c) / total, np.cumsum(c[::-1])[::-1] / total


def wilcoxon_pvalues(d, alternative: str = "two-sided", *, convention: str = "scipy") -> np.ndarray:
    """p-values of Wilcoxon's signed-rank test of many cases at once, as ``scipy.stats.wilcoxon``.

    Zeros dropped, ties at average ranks; exact for n <= 50 without ties or zeros, over all sign
    flips for n <= 13, else the normal approximation. ``convention="R"``: R's
    ``wilcox.test(paired = TRUE)`` as Urbano et al. (2019) ran it.

    Parameters
    ----------
    d : array_like
        Differences ``(..., n)``, the last axis the topics (n >= 2, finite).
    alternative : str
        ``"two-sided"``, ``"greater"`` (positive differences rank higher) or ``"less"``.
    convention : str
        ``"scipy"`` or ``"R"``.

    Returns
    -------
    numpy.ndarray
        Of shape ``d.shape[:-1]``.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> d = np.array([[0.1, 0.2, -0.05, 0.3, 0.1], [0.0, 0.1, -0.1, 0.1, 0.0]])
    >>> sg.wilcoxon_pvalues(d).round(4).tolist()
    [0.125, 1.0]
    """
    d = _as_diffs(d)
    alternative = _check_alternative(alternative)
    if convention not in ("scipy", "R"):
        raise InputError(f"convention must be 'scipy' or 'R', not {convention!r}")
    shape, n = d.shape[:-1], d.shape[-1]
    D = d.reshape(-1, n)
    key_abs = np.abs(D)
    key_abs[D == 0] = np.inf  # zeros sort last and are masked out
    order = np.argsort(key_abs, axis=1)
    Ds = np.take_along_axis(D, order, axis=1).T.copy()  # (n, N): loops below run over n only
    s = np.abs(Ds)
    m = (Ds != 0).sum(axis=0)
    # tie groups of the sorted non-zero |d|: start and end position of each element's group
    new = np.ones_like(Ds, dtype=bool)
    new[1:] = s[1:] != s[:-1]
    start = np.empty(Ds.shape, dtype=np.int16)
    end = np.empty(Ds.shape, dtype=np.int16)
    start[0] = 0
    for i in range(1, n):
        start[i] = np.where(new[i], i, start[i - 1])
    end[n - 1] = n - 1
    for i in range(n - 2, -1, -1):
        end[i] = np.where(new[i + 1], i, end[i + 1])
    valid = np.arange(n)[:, None] < m[None, :]
    rank2 = start.astype(np.int32) + end + 2  # doubled average rank, 1-based
    w2 = np.where(valid & (Ds > 0), rank2, 0).sum(axis=0)  # 2 * W+
    tsize = (end - start + 1).astype(np.int32)
    ties = np.where(valid, tsize * tsize - 1, 0).sum(axis=0)  # sum over groups of t^3 - t
    if convention == "R":
        return _wilcoxon_r(w2, ties, m, n, alternative).reshape(shape)
    has_ties = ties > 0
    p = np.full(D.shape[0], np.nan)

    # exact (n <= 50 without ties or zeros), else over all sign flips of the tied ranks for n <= 13
    perm = (~has_ties & (m == n) & (n <= 50)) | (n <= 13)
    if perm.any():
        bits = np.where(new & valid, 1 << np.arange(n)[:, None], 0).sum(axis=0)
        keys = (bits << 8) | m
        width = n * (n + 1) + 1
        uk, inv = np.unique(keys[perm], return_inverse=True)
        lo_t, hi_t = map(np.array, zip(*(_tied_tail_table(int(k), width) for k in uk)))
        obs = w2[perm]
        p[perm] = _tails(lo_t[inv, obs], hi_t[inv, obs], alternative)

    asym = ~perm
    if asym.any():
        mm = m[asym].astype(np.float64)
        mn = mm * (mm + 1.0) * 0.25
        se = np.sqrt((mm * (mm + 1.0) * (2.0 * mm + 1.0) - ties[asym] / 2) / 24)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (w2[asym] / 2.0 - mn) / se
        p[asym] = _tails(special.ndtr(z), special.ndtr(-z), alternative)
    return p.reshape(shape)


def _tails(lower: np.ndarray, upper: np.ndarray, alternative: str) -> np.ndarray:
    """The p-value from P(W+ <= w) and P(W+ >= w): one of them, or twice the smaller (at most 1)."""
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return np.clip(2 * np.minimum(lower, upper), 0, 1)


def _wilcoxon_r(w2: np.ndarray, ties: np.ndarray, m: np.ndarray, n: int, alternative: str) -> np.ndarray:
    """R's ``wilcox.test`` p-values from 2 W+, the tie sums and the non-zero counts (rows)."""
    V = w2 / 2.0
    p = np.full(len(w2), np.nan)
    exact = (m < 50) & (m == n) & (ties == 0)
    if exact.any():  # R's exact test never has zeros, so n is the full length here
        cdf, sf = _tied_tail_table(((1 << n) - 1) << 8 | n, n * (n + 1) + 1)  # P(V' <= v), P(V' >= v)
        v = w2[exact]  # 2 V
        if alternative == "two-sided":
            p[exact] = np.minimum(2 * np.where(v > n * (n + 1) / 2, sf[v], cdf[v]), 1.0)
        else:
            p[exact] = (sf if alternative == "greater" else cdf)[v]
    approx = ~exact & (m > 0)
    if approx.any():
        mm = m[approx].astype(np.float64)
        z = V[approx] - mm * (mm + 1) / 4
        sigma = np.sqrt(mm * (mm + 1) * (2 * mm + 1) / 24 - ties[approx] / 48)
        corr = {"two-sided": np.sign(z) * 0.5, "greater": 0.5, "less": -0.5}[alternative]
        z = (z - corr) / sigma
        if alternative == "two-sided":
            p[approx] = 2 * np.minimum(special.ndtr(z), special.ndtr(-z))
        else:
            p[approx] = special.ndtr(z if alternative == "less" else -z)
    return p
