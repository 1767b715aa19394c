"""How large a difference between two systems is, beside whether it is significant: standardised mean
differences with BCa bootstrap intervals over topics, and per-topic wins, ties and losses (Sakai
2014, "Statistical reform in information retrieval?", SIGIR Forum 48(1); Sakai 2018, ch. 4-5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..parallel import SeedLike
from ..stats import bca_interval, check_level, level_percent
from ._samples import _as_matrix, _check_samples, _counts, _resolve_pairs
from .bootstrap import _NOISE, _map_chunks

#: The effect sizes of :func:`effect_sizes`.
_EFFECTS = ("difference", "d_z", "ES_E")


def residual_variance(scores) -> float:
    """Sakai's V_E: the residual variance of the two-way ANOVA without replication of a score matrix."""
    x, _, _ = _as_matrix(scores)
    S, n = x.shape
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float(np.sum(r * r) / ((S - 1) * (n - 1)))


def _ve_weighted(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """System means ``(S, K)`` and V_E ``(K,)`` of the topic multisets weighted by the rows of ``w``."""
    S = x.shape[0]
    m = w[0].sum()
    col = x.sum(axis=0)  # (n,) topic totals
    means = x @ w.T / m  # (S, K)
    grand = col @ w.T / (S * m)  # (K,)
    ss_total = (x * x).sum(axis=0) @ w.T - S * m * grand**2
    ss_sys = m * ((means - grand) ** 2).sum(axis=0)
    ss_topic = (col * col / S) @ w.T - S * m * grand**2
    ss_e = np.maximum(ss_total - ss_sys - ss_topic, 0.0)
    return means, ss_e / ((S - 1) * (m - 1))


@dataclass(frozen=True)
class EffectSizes:
    """Standardised effects of pairs of systems (Sakai 2014), with their confidence intervals."""

    kind: str
    measure: str
    systems: tuple
    pairs: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    B: int
    residual_sd: float | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: systems, the effect size and its interval."""
        pct = level_percent(self.level)
        return pd.DataFrame(
            {
                "system_x": [self.systems[i] for i in self.pairs[:, 0]],
                "system_y": [self.systems[j] for j in self.pairs[:, 1]],
                self.kind: self.estimate,
                f"{pct} low": self.low,
                f"{pct} high": self.high,
            }
        )


def _ratio(num: np.ndarray, den: np.ndarray, floor, out: np.ndarray | None = None) -> np.ndarray:
    """num / den (into ``out``, which may be ``num``), NaN where den is at most ``floor`` (rounding noise)."""
    ok = den > floor
    out = np.divide(num, den, out=out, where=ok)
    np.copyto(out, np.nan, where=~ok)
    return out


def effect_sizes(
    scores,
    pairs=None,
    *,
    baseline: str | int | None = None,
    kind: str = "d_z",
    B: int = 1000,
    seed: SeedLike = None,
    samples=None,
    level: float = 0.95,
    n_jobs: int | None = None,
) -> EffectSizes:
    """An effect size of every pair of systems with its BCa bootstrap interval.

    The B topic samples are shared by all pairs; for ES_E, V_E is of all the systems of ``scores``.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    pairs : array_like, optional
    baseline : str or int, optional
        Every other system against this one (differences system minus baseline).
    kind : {"difference", "d_z", "ES_E"}
        The mean of z = x - y; Cohen's d_z, mean(z) / sd(z); Sakai's ES_E, the difference over
        sqrt(V_E).
    B, seed, samples
        Bootstrap samples of the topics, drawn from ``seed``, or given ``(B, T)``.
    level : float
    n_jobs : int, optional

    Returns
    -------
    EffectSizes

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> sg.effect_sizes(scores, kind="d_z", B=200, seed=1).to_frame().round(2)
      system_x system_y   d_z  95% low  95% high
    0        0        1  1.23     0.46      2.00
    1        0        2  0.24    -1.10      1.10
    2        1        2 -2.68    -2.92     -2.56
    """
    if kind not in _EFFECTS:
        raise InputError(f"kind must be one of {_EFFECTS}, not {kind!r}")
    level = check_level(level)
    x, systems, measure = _as_matrix(scores)
    pairs = _resolve_pairs(pairs, baseline, systems)
    S, n = x.shape
    if n < 3:
        raise InputError(f"effect sizes with intervals need at least 3 topics (the jackknife), got {n}")
    samples = _check_samples(samples, n, B, seed)
    c = _counts(samples, n)  # (B, n)
    floor = _NOISE * np.abs(x).max()
    residual_sd = None
    if kind == "ES_E":
        jk = 1.0 - np.eye(n)  # row t: every topic but t
        means_b, ve_b = _ve_weighted(x, c)
        means_j, ve_j = _ve_weighted(x, jk)
        sd_b, sd_j = np.sqrt(ve_b), np.sqrt(ve_j)
        ve = residual_variance(x)
        residual_sd = float(np.sqrt(ve))

    def run(sl: slice):
        p = pairs[sl]
        z = x[p[:, 0]] - x[p[:, 1]]  # (P, n)
        if kind == "ES_E":
            est = _ratio(z.mean(axis=1), np.full(len(p), residual_sd), floor)
            d_b, d_j = (m[p[:, 0]] - m[p[:, 1]] for m in (means_b, means_j))
            reps, jack = _ratio(d_b, sd_b, floor, out=d_b), _ratio(d_j, sd_j, floor, out=d_j)
            return est, *bca_interval(est, reps, jackknife=jack, level=level)
        zz = z * z
        s1, s2 = z.sum(axis=1), zz.sum(axis=1)
        r1, r2 = np.split(np.concatenate([z, zz]) @ c.T, 2)  # (P, B) sums over each sample
        j1, j2 = s1[:, None] - z, s2[:, None] - zz  # (P, n) sums without topic t
        if kind == "difference":
            est, reps, jack = s1 / n, np.divide(r1, n, out=r1), j1 / (n - 1)
        else:
            est, reps, jack = _d_z(s1, s2, n, floor), _d_z(r1, r2, n, floor), _d_z(j1, j2, n - 1, floor)
        lo, hi = np.full(len(p), np.nan), np.full(len(p), np.nan)
        ok = ~np.isnan(jack).any(axis=1) & ~np.isnan(est)  # a jackknife subset without an effect: no interval
        if ok.any():
            lo[ok], hi[ok] = bca_interval(est[ok], reps[ok], jackknife=jack[ok], level=level)
        return est, lo, hi

    parts = _map_chunks(run, len(pairs), n_jobs)
    est, lo, hi = (np.concatenate(a) for a in zip(*parts))
    nan = np.isnan(est)
    lo, hi = np.where(nan, np.nan, lo), np.where(nan, np.nan, hi)
    return EffectSizes(kind, measure, systems, pairs, est, lo, hi, level, samples.shape[0], residual_sd)


def _d_z(s1: np.ndarray, s2: np.ndarray, n: int, floor) -> np.ndarray:
    """mean / sd (n - 1 in the denominator) from the sums and the sums of squares (both overwritten)."""
    sq = np.multiply(s1, s1)
    sq /= n
    sd = np.subtract(s2, sq, out=s2)
    np.maximum(sd, 0.0, out=sd)
    sd /= n - 1
    np.sqrt(sd, out=sd)
    return _ratio(np.divide(s1, n, out=s1), sd, floor, out=s1)


def win_tie_loss(scores, pairs=None, *, baseline: str | int | None = None) -> pd.DataFrame:
    """Topics won, tied and lost per pair of systems (scores within 1e-9 of the scores' scale tie).

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    pairs : array_like, optional
    baseline : str or int, optional

    Returns
    -------
    pandas.DataFrame
        Columns system_x, system_y, wins, ties, losses.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> sg.win_tie_loss(scores, baseline=1)
      system_x system_y  wins  ties  losses
    0        0        1     4     1       0
    1        2        1     5     0       0
    """
    x, systems, _ = _as_matrix(scores)
    pairs = _resolve_pairs(pairs, baseline, systems)
    tol = _NOISE * np.abs(x).max()
    d = x[pairs[:, 0]] - x[pairs[:, 1]]
    return pd.DataFrame(
        {
            "system_x": [systems[i] for i in pairs[:, 0]],
            "system_y": [systems[j] for j in pairs[:, 1]],
            "wins": (d > tol).sum(axis=1),
            "ties": (np.abs(d) <= tol).sum(axis=1),
            "losses": (d < -tol).sum(axis=1),
        }
    )
