"""Variance components of a pilot's (systems, topics) score matrix: the two-way ANOVA without
replication and, where runs miss topics, a mixed model with a random topic effect."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _spread
from ..data._matrices import ScoreMatrix
from ..errors import InputError


def _matrix(scores, *, allow_missing: bool = False) -> tuple[np.ndarray, tuple, tuple, str]:
    """The checked float (S, T) array, system and topic names and measure of ``scores``."""
    x = np.asarray(getattr(scores, "scores", scores), dtype=np.float64)
    if x.ndim != 2:
        raise InputError(f"scores must be a systems x topics matrix (2-d), got shape {x.shape}")
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(
            f"a study design needs at least 2 systems and 2 topics in the pilot, got {x.shape[0]} "
            f"system(s) and {x.shape[1]} topic(s)"
        )
    bad = np.isinf(x) | (np.isnan(x) if not allow_missing else False)
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


def long_frame(scores) -> pd.DataFrame:
    """The score matrix as statsmodels' long frame (system, topic, score), NaN cells left out."""
    x, systems, topics, _ = _matrix(scores, allow_missing=True)
    s, t = np.nonzero(~np.isnan(x))
    return pd.DataFrame(
        {"system": np.asarray(systems, dtype=object)[s], "topic": np.asarray(topics, dtype=object)[t],
         "score": x[s, t]}
    )  # fmt: skip


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

    Equal to statsmodels' ``anova_lm(ols("score ~ C(system) + C(topic)"))`` on the long frame of
    the scores (Brennan 2001, ch. 3, the p x i design; Sakai 2016, section 3, V_E).

    Parameters
    ----------
    scores : ScoreMatrix or array_like
        ``(S, T)`` scores, S >= 2 systems, T >= 2 topics, every cell finite (for runs that miss
        topics a mixed model, ``irrepro.design._anova.mixed_model``).

    Returns
    -------
    Anova

    Raises
    ------
    irrepro.InputError
        Fewer than 2 systems or topics, a non-finite score, or no residual variance (every score
        the sum of a system and a topic effect, e.g. all equal).

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


@dataclass(frozen=True)
class MixedComponents:
    """A mixed model's system means, topic and residual variances, sizes and convergence."""

    system_means: pd.Series
    sigma2_topic: float
    sigma2_residual: float
    n_systems: int
    n_topics: int
    n_observed: int
    converged: bool
    measure: str = ""


def mixed_model(scores) -> MixedComponents:
    """Fit ``score ~ system + (1 | topic)`` by REML (statsmodels MixedLM), NaN cells left out."""
    import warnings

    import statsmodels.formula.api as smf

    x, systems, _, measure = _matrix(scores, allow_missing=True)
    empty = np.all(np.isnan(x), axis=1)
    if empty.any():
        raise InputError(f"system {systems[int(np.argmax(empty))]!r} has no scored topic")
    df = long_frame(scores)
    df["system"] = pd.Categorical(df["system"], categories=list(dict.fromkeys(systems)))
    if _spread.constant(df["score"].to_numpy()):
        raise InputError("the pilot scores are all equal: there is nothing to plan a study from")
    model = smf.mixedlm("score ~ 0 + C(system)", df, groups=df["topic"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boundary fits (topic variance 0) are a result, not a fault
        fit = model.fit(reml=True, method=["lbfgs", "powell"])
    if not float(fit.scale) > 0:
        raise InputError("the pilot scores have no residual variance: there is nothing to plan a study from")
    means = pd.Series(np.asarray(fit.fe_params), index=list(dict.fromkeys(systems)), name="mean")
    return MixedComponents(
        means, float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale), x.shape[0], x.shape[1],
        int((~np.isnan(x)).sum()), bool(fit.converged), measure,
    )  # fmt: skip
