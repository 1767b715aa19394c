"""What each paired test's null is about, measured on simulated differences: the properties of a
design's per-topic differences ``d = e - b`` that decide which tests hold their level on it.

Under a null where the expected difference is zero, the paired t-test's target (the mean of ``d``)
is zero, but the sign test's target (``P(d > 0) - P(d < 0)``) and Wilcoxon's (the signed-rank
balance, zero when ``d`` is symmetric about zero) need not be: a skewed ``d`` with mean zero has a
median that is not zero, and those two tests reject it more often the more topics there are.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: The per-trial properties of :func:`difference_properties`, in its order.
PROPERTIES = ("d_z", "skewness", "zeros", "ties", "sign_ties", "sign_balance", "rank_balance", "sign_var0",
              "rank_var0")  # fmt: skip


def difference_properties(d, *, tie: float = 0.0) -> dict[str, np.ndarray]:
    """Per trial (row of ``d``, ``(trials, topics)``): the properties of its topic differences.

    ``d_z``: mean / sd (the t-test's target, standardised); ``skewness``: the sample skewness (Fisher,
    unbiased); ``zeros``: the share of topics with ``d == 0`` (dropped by Wilcoxon); ``ties``: the
    share of the other topics whose ``|d|`` equals another's (tied ranks); ``sign_ties``: the share
    with ``|d| <= tie`` (the sign test's ties: Urbano et al.'s count ``|d| <= 0.01``);
    ``sign_balance``: ``(n+ - n-) / (n+ + n-)`` over ``|d| > tie``; ``rank_balance``:
    ``(W+ - W-) / (W+ + W-)`` over the ranks of the non-zero ``|d|`` (average ranks for ties);
    ``sign_var0``, ``rank_var0``: the variance each balance has when the differences are symmetric
    about 0, given the trial's counts and ties (``1 / k``; ``4 sum(r^2) / (k (k + 1))^2``). NaN where
    undefined (sd 0, no non-zero d).
    """
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    n = d.shape[1]
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_z = np.where(sd > 0, d.mean(axis=1) / np.where(sd > 0, sd, 1.0), np.nan)
        skew = np.where(sd > 0, stats.skew(d, axis=1, bias=False), np.nan)
    a = np.abs(d)
    nonzero = a > 0
    k = nonzero.sum(axis=1)
    # tied |d| among the non-zero: sorted, a value equal to a neighbour's is tied
    s = np.sort(np.where(nonzero, a, np.nan), axis=1)
    eq = s[:, 1:] == s[:, :-1]
    tied = np.zeros_like(s, dtype=bool)
    tied[:, 1:] |= eq
    tied[:, :-1] |= eq
    beyond = a > tie
    k_sign = beyond.sum(axis=1)
    pos, neg = (beyond & (d > 0)).sum(axis=1), (beyond & (d < 0)).sum(axis=1)
    ranks = np.where(nonzero, stats.rankdata(np.where(nonzero, a, -np.inf), axis=1) - (n - k)[:, None], 0.0)
    signed = (np.sign(d) * ranks).sum(axis=1)
    total = k * (k + 1) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "d_z": d_z,
            "skewness": skew,
            "zeros": 1.0 - k / n,
            "ties": np.where(k > 0, tied.sum(axis=1) / k, np.nan),
            "sign_ties": 1.0 - k_sign / n,
            "sign_balance": np.where(k_sign > 0, (pos - neg) / k_sign, np.nan),
            "rank_balance": np.where(k > 0, signed / total, np.nan),
            "sign_var0": np.where(k_sign > 0, 1.0 / k_sign, np.nan),
            "rank_var0": np.where(k > 0, (ranks * ranks).sum(axis=1) / total**2, np.nan),
        }
