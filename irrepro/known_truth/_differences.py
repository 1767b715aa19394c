"""The properties of a design's per-topic differences ``d = e - b`` that decide which paired tests hold their
level on it: under a zero mean the sign test's and Wilcoxon's targets need not be zero for a skewed ``d``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: The per-trial properties of :func:`difference_properties`, in its order.
PROPERTIES = ("d_z", "skewness", "zeros", "ties", "sign_ties", "sign_balance", "rank_balance", "sign_var0",
              "rank_var0")  # fmt: skip


def difference_properties(d, *, tie: float = 0.0) -> dict[str, np.ndarray]:
    """Per trial (row of ``d``): ``d_z`` (mean / sd), ``skewness``, the shares of ``zeros``, tied ``ties`` and
    ``sign_ties`` (``|d| <= tie``), the ``sign_balance`` and ``rank_balance`` ((+ - -) / (+ + -)) and the variances
    ``sign_var0``, ``rank_var0`` they have for differences symmetric about 0; NaN where undefined.
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
