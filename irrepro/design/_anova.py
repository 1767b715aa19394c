"""Variance components of a pilot's (systems, topics) score matrix, the two-way ANOVA without
replication, and all pairs after it: the classical Tukey HSD beside the randomised one
(``irrepro compare --anova``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data._matrices import ScoreMatrix
from ..errors import InputError
from ..parallel import SeedLike


def _matrix(scores) -> tuple[np.ndarray, tuple, tuple, str]:
    """The checked float (S, T) array, system and topic names and measure of ``scores``."""
    x = np.asarray(getattr(scores, "scores", scores), dtype=np.float64)
    if x.ndim != 2:
        raise InputError(f"scores must be a systems x topics matrix (2-d), got shape {x.shape}")
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(
            f"a study design needs at least 2 systems and 2 topics in the pilot, got {x.shape[0]} "
            f"system(s) and {x.shape[1]} topic(s)"
        )
    bad = ~np.isfinite(x)
    if np.any(bad):
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise InputError(f"scores must be finite numbers: {x[i, j]!r} at row {i + 1}, column {j + 1}")
    if isinstance(scores, ScoreMatrix):
        systems, topics, measure = tuple(scores.systems), tuple(scores.topics), scores.measure
    else:
        systems = tuple(str(i) for i in range(x.shape[0]))
        topics = tuple(str(j) for j in range(x.shape[1]))
        measure = ""
    return x, systems, topics, measure


@dataclass(frozen=True)
class Anova:
    """The two-way ANOVA without replication of a score matrix, and its variance components."""

    table: pd.DataFrame
    n_systems: int
    n_topics: int
    sigma2_system: float
    sigma2_topic: float
    sigma2_residual: float
    measure: str = ""

    @property
    def omega2(self) -> pd.Series:
        """omega^2 of the system and the topic effects."""
        return self.table["omega2"].iloc[:2]

    @property
    def components(self) -> pd.Series:
        """The three variance components (system, topic, residual)."""
        return pd.Series(
            {"system": self.sigma2_system, "topic": self.sigma2_topic, "residual": self.sigma2_residual}
        )

    def to_string(self, digits: int = 4) -> str:
        """The ANOVA table as text."""
        t = self.table.copy()
        t["df"] = t["df"].astype(int)
        return t.to_string(float_format=lambda v: f"{v:.{digits}g}" if abs(v) < 1e-3 else f"{v:.{digits}f}")


def two_way_anova(scores) -> Anova:
    """The two-way ANOVA without replication (system x topic) of a complete score matrix.

    As statsmodels' ``anova_lm(ols("score ~ C(system) + C(topic)"))``.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
        ``(S, T)`` scores, S >= 2 systems, T >= 2 topics, every cell finite.

    Returns
    -------
    Anova

    Raises
    ------
    irrepro.InputError
        Fewer than 2 systems or topics, a non-finite score, or no residual variance.

    Examples
    --------
    >>> from irrepro.design import two_way_anova
    >>> a = two_way_anova(scores)
    >>> a.table["df"].tolist(), round(a.sigma2_residual, 5)
    ([2.0, 4.0, 8.0], 0.00367)
    """
    from scipy import stats

    x, _, _, measure = _matrix(scores)
    S, T = x.shape
    grand = x.mean()
    ss_s = T * float(np.sum((x.mean(axis=1) - grand) ** 2))
    ss_t = S * float(np.sum((x.mean(axis=0) - grand) ** 2))
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + grand
    ss_e = float(np.sum(r * r))
    ss_total = float(np.sum((x - grand) ** 2))
    df = np.array([S - 1, T - 1, (S - 1) * (T - 1)], dtype=float)
    ss = np.array([ss_s, ss_t, ss_e])
    ms = ss / df
    if not ms[2] > 1e-14 * max(1.0, float(np.max(np.abs(x))) ** 2):
        raise InputError(
            "the pilot scores have no residual variance (each score is a system effect plus a topic "
            "effect, e.g. all equal): there is nothing to plan a study from"
        )
    F = ms[:2] / ms[2]
    p = np.asarray(stats.f.sf(F, df[:2], df[2]), dtype=float)
    omega2 = (ss[:2] - df[:2] * ms[2]) / (ss_total + ms[2])
    table = pd.DataFrame(
        {"df": df, "sum_sq": ss, "mean_sq": ms, "F": [*F, np.nan], "PR(>F)": [*p, np.nan],
         "omega2": [*omega2, np.nan]},
        index=["system", "topic", "residual"],
    )  # fmt: skip
    return Anova(
        table, S, T,
        sigma2_system=max((ms[0] - ms[2]) / T, 0.0),
        sigma2_topic=max((ms[1] - ms[2]) / S, 0.0),
        sigma2_residual=float(ms[2]),
        measure=measure,
    )  # fmt: skip


def tukey_table(
    scores, *, alpha: float = 0.05, B: int = 10_000, seed: SeedLike = 0, n_jobs=None
) -> pd.DataFrame:
    """Every pair of systems by the classical and the randomised Tukey HSD.

    The classical statsmodels', on V_E and its (S - 1)(T - 1) degrees of freedom; the randomised Carterette's (2012).

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    alpha : float
        The family-wise level of the classical test's intervals.
    B, seed, n_jobs
        Permutations of the randomised test, their seed, workers.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_1``, ``system_2``, ``difference``, ``low``, ``high`` (the
        classical simultaneous interval), ``p_classical``, ``p_randomised``.

    Examples
    --------
    >>> from irrepro.design import tukey_table
    >>> tukey_table(scores, B=200, seed=1)[["system_1", "system_2"]].values.tolist()
    [['0', '1'], ['0', '2'], ['1', '2']]
    """
    from statsmodels.sandbox.stats.multicomp import tukeyhsd

    from .. import significance as sig

    anova = two_way_anova(scores)
    x, systems, _, _ = _matrix(scores)
    S, T = x.shape
    df_e = float((S - 1) * (T - 1))
    # statsmodels sums a per-group df: S equal shares of the residual df give it df_e in all
    (i, j), _, diffs, _, ci, _, _, _, p = tukeyhsd(
        x.mean(axis=1), T, anova.sigma2_residual, df=np.full(S, df_e / S), alpha=alpha
    )
    pairs = np.column_stack([i, j])
    rand = sig.tukey_hsd(scores, pairs, B=B, seed=seed, n_jobs=n_jobs)
    names = np.asarray(systems, dtype=object)
    # statsmodels' difference is mean[j] - mean[i]: turned to system_1 minus system_2
    return pd.DataFrame(
        {"system_1": names[i], "system_2": names[j], "difference": -diffs, "low": -ci[:, 1],
         "high": -ci[:, 0], "p_classical": np.atleast_1d(p), "p_randomised": rand.p_adjusted},
    )  # fmt: skip
