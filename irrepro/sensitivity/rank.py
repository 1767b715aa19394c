"""Kendall's tau between the system rankings by two measures, its bootstrap standard error and the
Z0 normal test (Sakai 2006, section 4, Figures 12-13).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm

from ..data import ScoreMatrix
from ..errors import InputError
from ..parallel import SeedLike
from ..significance._samples import _as_matrix, _check_samples, _summary, bootstrap_summaries
from ..stats import bootstrap_sd, kendall_tau


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau between the system rankings by two measures, its bootstrap error and test."""

    measures: tuple[str, str]
    tau: float
    se_boot: float
    z0: float
    p_value: float
    replicates: np.ndarray = field(repr=False)


def _z0(tau, n_s: int):
    """Z0 = 3 tau sqrt(n_s (n_s - 1)) / sqrt(2 (2 n_s + 5)), standard normal under no association."""
    return 3 * np.asarray(tau) * np.sqrt(n_s * (n_s - 1)) / np.sqrt(2 * (2 * n_s + 5))


def _tau_threshold(n_systems: int, alpha: float = 0.01) -> float:
    """The smallest ``|tau|`` significant at ``alpha`` (two-tailed) under the Z0 test."""
    return float(norm.ppf(1 - alpha / 2) / _z0(1.0, n_systems))


def rank_correlation(
    scores_a,
    scores_b,
    samples=None,
    *,
    summary_a="mean",
    summary_b="mean",
    B: int = 1000,
    seed: SeedLike = None,
) -> RankCorrelation:
    """Kendall's tau between the rankings of the same systems by two measures, with its bootstrap error."""
    xa, sys_a, meas_a = _as_matrix(scores_a)
    xb, sys_b, meas_b = _as_matrix(scores_b)
    if xa.shape != xb.shape:
        raise InputError(f"the two score matrices differ in shape: {xa.shape} vs {xb.shape}")
    if isinstance(scores_a, ScoreMatrix) and isinstance(scores_b, ScoreMatrix) and sys_a != sys_b:
        raise InputError("the two score matrices list different systems (or in another order)")
    samples = _check_samples(samples, xa.shape[1], B, seed)
    sa, sb = _summary(summary_a), _summary(summary_b)
    tau = float(kendall_tau(sa.apply(xa), sb.apply(xb)))
    ma = bootstrap_summaries(xa, samples, summary=summary_a)
    mb = bootstrap_summaries(xb, samples, summary=summary_b)
    reps = kendall_tau(ma.T, mb.T)  # (B,)
    se = float(bootstrap_sd(reps))
    z0 = float(_z0(abs(tau), xa.shape[0]))
    name_a = ("G_" if sa.kind == "gmean" else "") + meas_a
    name_b = ("G_" if sb.kind == "gmean" else "") + meas_b
    return RankCorrelation((name_a, name_b), tau, se, z0, float(2 * norm.sf(z0)), reps)
