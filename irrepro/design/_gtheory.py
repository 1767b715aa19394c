"""Generalizability theory's D-study of a test collection (Brennan 2001; Urbano, Marrero &
Martin, SIGIR 2013): E rho^2 and Phi for any number of topics, and the topics to reach a target."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ._anova import Anova


@dataclass(frozen=True)
class DStudy:
    """E rho^2 and Phi of a collection of each number of topics, from a pilot's variance components."""

    n_topics: np.ndarray
    erho2: np.ndarray
    phi: np.ndarray
    anova: Anova
    level: float | None = None
    erho2_low: np.ndarray | None = None
    erho2_high: np.ndarray | None = None
    phi_low: np.ndarray | None = None
    phi_high: np.ndarray | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per size: ``n_topics``, ``Erho2``, ``Phi`` (and ``_low`` / ``_high`` with a ``level``)."""
        out: dict[str, object] = {"n_topics": self.n_topics, "Erho2": self.erho2}
        if self.level is not None:
            out |= {"Erho2_low": self.erho2_low, "Erho2_high": self.erho2_high}
        out["Phi"] = self.phi
        if self.level is not None:
            out |= {"Phi_low": self.phi_low, "Phi_high": self.phi_high}
        return pd.DataFrame(out)


def _components(anova: Anova) -> tuple[float, float, float]:
    if not isinstance(anova, Anova):
        raise InputError(f"expected the Anova of irrepro.design.two_way_anova, got {type(anova).__name__}")
    return anova.sigma2_system, anova.sigma2_topic, anova.sigma2_residual


def _level(level) -> float:
    level = float(level)
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), got {level!r}")
    return level


def _one_topic_bounds(anova: Anova, level: float) -> dict[str, tuple[float, float]]:
    """The ``level`` interval ends of s2_s / s2_e and of the one-topic Phi (Brennan 2001, 6.1)."""
    from scipy import stats

    ms_s, ms_t, ms_e = anova.table["mean_sq"].to_numpy(dtype=float)
    df_s, df_t, df_e = anova.table["df"].to_numpy(dtype=float)
    n_s, n_t = anova.n_systems, anova.n_topics
    out: dict[str, list[float]] = {"Erho2": [], "Phi": []}
    for q in ((1 + level) / 2, (1 - level) / 2):  # the lower end, then the upper
        f_e, f_t, f_inf = (
            stats.f.ppf(q, df_s, df_e),
            stats.f.ppf(q, df_s, df_t),
            stats.chi2.ppf(q, df_s) / df_s,
        )
        out["Erho2"].append((ms_s / (ms_e * f_e) - 1) / n_t)
        num = ms_s**2 - f_inf * ms_s * ms_e + (f_inf - f_e) * f_e * ms_e**2
        ratio = num / ((n_s - 1) * f_inf * ms_s * ms_e + f_t * ms_s * ms_t)
        out["Phi"].append(n_s * ratio / (n_s * ratio + n_t))
    return {k: (float(v[0]), float(v[1])) for k, v in out.items()}


def _grow(coefficient: str, one, n):
    """E rho^2 (from ``s2_s / s2_e``) or Phi (from the one-topic Phi) of ``n`` topics, in [0, 1]."""
    with np.errstate(invalid="ignore", divide="ignore"):
        c = n * one / (1 + n * one) if coefficient == "Erho2" else n * one / (1 + (n - 1) * one)
    return np.clip(np.where(np.asarray(one) <= 0, 0.0, c), 0.0, 1.0)


def d_study(anova: Anova, n_topics=None, *, level: float | None = 0.95) -> DStudy:
    """E rho^2 and Phi for topic sets of each size in ``n_topics``, with confidence intervals.

    Parameters
    ----------
    anova : Anova
        The pilot's :func:`~irrepro.design.two_way_anova`.
    n_topics : int or sequence of int, optional
        Topic-set sizes; default 5, 10, ..., 200 and the pilot's own.
    level : float or None
        The confidence level of the intervals; None: point values only.

    Returns
    -------
    DStudy
        ``to_frame()``: ``n_topics``, ``Erho2``, ``Phi`` and their interval ends, Feldt's and
        Arteaga et al.'s (Brennan 2001, section 6.1), as gt4ireval's ``dstudy``.

    Examples
    --------
    >>> from irrepro.design import d_study, two_way_anova
    >>> d_study(two_way_anova(scores), [5, 50], level=None).to_frame().round(3).values.tolist()
    [[5.0, 0.872, 0.56], [50.0, 0.986, 0.927]]
    >>> d_study(two_way_anova(scores), [50]).to_frame().round(3).iloc[0].tolist()
    [50.0, 0.986, 0.744, 1.0, 0.927, 0.304, 0.998]
    """
    s2_s, s2_t, s2_e = _components(anova)
    if n_topics is None:
        n_topics = sorted({*range(5, 201, 5), anova.n_topics})
    n = np.atleast_1d(np.asarray(n_topics))
    if n.ndim != 1 or not np.issubdtype(n.dtype, np.integer) or np.any(n < 1):
        raise InputError(f"n_topics must be whole numbers >= 1, got {n_topics!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        erho2 = s2_s / (s2_s + s2_e / n)
        phi = s2_s / (s2_s + (s2_t + s2_e) / n)
    n = n.astype(np.int64)
    if level is None:
        return DStudy(n, np.asarray(erho2, float), np.asarray(phi, float), anova)
    b = _one_topic_bounds(anova, _level(level))
    ends = {k: [_grow(k, one, n) for one in b[k]] for k in b}
    return DStudy(n, np.asarray(erho2, float), np.asarray(phi, float), anova, float(level),
                  *ends["Erho2"], *ends["Phi"])  # fmt: skip


def _topics(coefficient: str, one: float, target: float) -> float:
    """The topics whose coefficient grown from ``one`` (:func:`_grow`) reaches ``target`` (inf if none)."""
    if one <= 0:
        return math.inf
    n = target / (one * (1 - target)) if coefficient == "Erho2" else target * (1 - one) / (one * (1 - target))
    return float(max(1, math.ceil(n - 1e-9 * max(1.0, n))))


def topics_needed(anova: Anova, target: float = 0.95, *, level: float | None = 0.95) -> pd.DataFrame:
    """The fewest topics whose E rho^2 and Phi reach ``target``, with confidence intervals.

    Parameters
    ----------
    anova : Anova
        The pilot's :func:`~irrepro.design.two_way_anova`.
    target : float
        The coefficient wanted, in (0, 1).
    level : float or None
        The confidence level of the intervals; None: the sizes only.

    Returns
    -------
    pandas.DataFrame
        Rows ``Erho2`` and ``Phi``; columns ``target``, ``n`` and with a ``level`` ``low`` and
        ``high``: the topics the interval's upper and lower ends of the one-topic ratio need
        (``inf`` when that end is 0 or below), as gt4ireval's ``dstudy`` (its ``n.q_*.upr`` is
        ``low``).

    Raises
    ------
    irrepro.InputError
        ``target`` outside (0, 1), or a pilot without system variance.

    Examples
    --------
    >>> from irrepro.design import topics_needed, two_way_anova
    >>> topics_needed(two_way_anova(scores), 0.95)
           target   n  low  high
    Erho2    0.95  14    1   328
    Phi      0.95  75    2  2176
    """
    target = float(target)
    if not 0 < target < 1:
        raise InputError(f"target must be in (0, 1), got {target!r}")
    s2_s, s2_t, s2_e = _components(anova)
    if s2_s <= 0:
        raise InputError(
            "the pilot shows no variance between systems (MS_system <= MS_residual): no number of "
            "topics makes its systems' ranking reliable"
        )
    b = None if level is None else _one_topic_bounds(anova, _level(level))
    rows = {}
    for c, s2 in (("Erho2", s2_e), ("Phi", s2_t + s2_e)):
        n = target * s2 / ((1 - target) * s2_s)
        rows[c] = {"target": target, "n": max(1, math.ceil(n - 1e-9 * max(1.0, n)))}
        if b is not None:
            rows[c] |= {"low": _topics(c, b[c][1], target), "high": _topics(c, b[c][0], target)}
    out = pd.DataFrame(rows).T.astype(float)
    for col in out.columns[1:]:  # whole numbers, unless some end is inf
        if np.isfinite(out[col]).all():
            out[col] = out[col].astype(int)
    return out


#: Urbano, Marrero & Martin's (2013) fits of the expected correlation with the true ranking as a
#: power of E rho^2 (gt4ireval's ``gt2tau``, ``gt2tauAP``).
CORRELATION_FITS = {"tau": 2.84729794002905, "tau_AP": 3.98652984123827}


def expected_correlation(erho2, kind: str = "tau"):
    """The expected Kendall tau (or tau_AP) of a collection's ranking with the true one: ``E rho^2 ** a``.

    Urbano, Marrero & Martin's (2013) fit.

    Parameters
    ----------
    erho2 : float or array_like
        E rho^2 values in (0, 1].
    kind : {"tau", "tau_AP"}

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from irrepro.design import expected_correlation
    >>> expected_correlation([0.93, 0.95, 0.98], "tau_AP").round(4).tolist()
    [0.7488, 0.8151, 0.9226]
    """
    if kind not in CORRELATION_FITS:
        raise InputError(f"kind must be one of {', '.join(CORRELATION_FITS)}, not {kind!r}")
    e = np.asarray(erho2, dtype=float)
    if np.any(~(e > 0) | (e > 1)):
        raise InputError(f"E rho^2 must be in (0, 1], got {erho2!r}")
    out = e ** CORRELATION_FITS[kind]
    return float(out) if out.ndim == 0 else out


def drop_worst(scores, fraction: float):
    """The pilot without its worst systems, those whose mean is below the ``fraction`` quantile (gt4ireval's ``drop``).

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    fraction : float
        In [0, 1).

    Returns
    -------
    ScoreMatrix or numpy.ndarray

    Raises
    ------
    irrepro.InputError
        ``fraction`` outside [0, 1), or fewer than 2 systems left.

    Examples
    --------
    >>> from irrepro.design import drop_worst
    >>> drop_worst(np.array([[0.1, 0.2], [0.5, 0.6], [0.3, 0.3], [0.7, 0.9]]), 0.25).tolist()
    [[0.5, 0.6], [0.3, 0.3], [0.7, 0.9]]
    """
    fraction = float(fraction)
    if not 0 <= fraction < 1:
        raise InputError(f"the fraction of systems to drop must be in [0, 1), got {fraction!r}")
    x = np.asarray(getattr(scores, "scores", scores), dtype=float)
    means = x.mean(axis=1)
    keep = means >= np.quantile(means, fraction)
    if keep.sum() < 2:
        raise InputError(
            f"dropping the worst {fraction:g} leaves {int(keep.sum())} system(s): at least 2 are needed"
        )
    if hasattr(scores, "subset"):
        return scores.subset(systems=[s for s, k in zip(scores.systems, keep) if k])
    return x[keep]
