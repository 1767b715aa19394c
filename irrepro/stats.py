"""Generic statistics shared by the method families, one place for each: the logit, bootstrap
standard errors and Efron's BCa interval, Kendall's tau-b, meta-analysis (Cormack & Lynam 2006,
section 9), p-value adjustment, and the checks of a confidence level and of a number of resamples.

Arrays put the resamples on the last axis, e.g. ``(systems, topics, B)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy.stats import norm

from ._intervals import (  # noqa: F401  (the checks and the bootstrap's helpers the families share)
    bca_interval,
    bootstrap_sd,
    check_level,
    check_resamples,
    corrected_resamples,
    jackknife_acceleration,
    level_percent,
)
from .errors import InputError

__all__ = [
    "Z95",
    "expit",
    "clustered_se",
    "MetaAnalysis",
    "meta_analysis",
]

#: The two-sided 95% normal quantile, computed (1.959963...).
Z95 = float(norm.ppf(0.975))
#: Default clipping of the logit: 0 and 1 become EPS and 1 - EPS. Cormack & Lynam (2006, section
#: 5) replace AP = 0 and 1 by eps and 1 - eps without giving eps; 0.001 is our choice.
EPS = 1e-3


def logit(p, eps: float = EPS) -> np.ndarray:
    """The logit ``log(p / (1 - p))``, p clipped to [eps, 1 - eps] (Cormack & Lynam 2006, section 5)."""
    p = np.clip(np.asarray(p, dtype=np.float64), eps, 1 - eps)
    return np.log(p) - np.log1p(-p)


def expit(x) -> np.ndarray:
    """The inverse of ``logit``, ``1 / (1 + exp(-x))`` (``scipy.special.expit``).

    Parameters
    ----------
    x : array_like
        Logits.

    Returns
    -------
    numpy.ndarray
        Probabilities in (0, 1), shaped as ``x``.

    Examples
    --------
    >>> from irrepro.stats import expit, logit
    >>> float(expit(0.0)), float(expit(logit(0.25)))
    (0.5, 0.25)
    """
    return special.expit(x)


# --------------------------------------------------------------------------------------------
# Kendall's tau
# --------------------------------------------------------------------------------------------


def kendall_tau(x, y) -> np.ndarray:
    """Kendall's tau-b between the last axes of ``x`` and ``y``, as ``scipy.stats.kendalltau`` for many rankings (NaN if one is constant)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape[-1] != y.shape[-1]:
        raise InputError(f"x and y rank different numbers of systems: {x.shape} and {y.shape}")
    n_sys = x.shape[-1]
    lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    i, j = np.triu_indices(n_sys, k=1)
    fixed_y = y.ndim == 1  # one reference ranking: its pair signs are computed once
    dy_fixed = np.sign(y[i] - y[j]) if fixed_y else None
    xf = np.broadcast_to(x, lead + (n_sys,)).reshape(-1, n_sys)
    yf = None if fixed_y else np.broadcast_to(y, lead + (n_sys,)).reshape(-1, n_sys)
    out = np.empty(xf.shape[0])
    for s in range(0, xf.shape[0], 128):
        dx = np.sign(xf[s : s + 128, i] - xf[s : s + 128, j])
        if yf is None:
            assert dy_fixed is not None  # y is one ranking: its pair signs, computed above
            dy = dy_fixed
        else:
            dy = np.sign(yf[s : s + 128, i] - yf[s : s + 128, j])
        num = (dx * dy).sum(axis=-1)
        den = np.sqrt(
            (dx != 0).sum(axis=-1) * np.broadcast_to((dy != 0).sum(axis=-1), num.shape).astype(float)
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s : s + 128] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out.reshape(lead)


# --------------------------------------------------------------------------------------------
# meta-analysis and multiple testing
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetaAnalysis:
    """Inverse-variance meta-analysis of k per-topic effects (:func:`meta_analysis`).

    Attributes
    ----------
    model : str
        ``"fixed"`` or ``"DerSimonian-Laird"``.
    effect, se : float
        The combined effect and its standard error.
    lower, upper : float
        The normal interval ``effect +/- z se``.
    k : int
        The number of topics combined.
    p_one_sided : float
        Fixed effect: Stouffer's ``1 - Phi(sum(d_i / s_i) / sqrt k)`` (the paper's);
        DerSimonian-Laird: ``1 - Phi(effect / se)``.
    q : float
        Cochran's heterogeneity Q.
    tau2 : float
        The between-topic variance (DerSimonian-Laird; 0 for the fixed effect).
    """

    model: str
    effect: float
    se: float
    lower: float
    upper: float
    k: int
    p_one_sided: float
    q: float
    tau2: float


def clustered_se(values, clusters=None) -> np.ndarray:
    """The standard error of the mean of ``values``, clustered by ``clusters``.

    The cluster-robust (sandwich) standard error of a mean or a share: with cluster totals
    ``r_c`` of ``n_c`` values and the mean ``m``, ``sqrt(k / (k - 1) * sum_c (r_c - m n_c)^2) / n``
    over the ``k`` clusters; with ``clusters=None`` it is the usual ``sd / sqrt(n)`` (ddof 1).

    Parameters
    ----------
    values : array_like
        ``(..., n)``: the values whose mean is estimated (0 / 1 for a share), along the last axis.
    clusters : array_like or None
        ``(n,)``: the cluster of each value (any labels); None: every value its own.

    Returns
    -------
    numpy.ndarray
        Of shape ``values.shape[:-1]`` (a 0-d array for one mean).

    Raises
    ------
    ValueError
        For no values, or ``clusters`` not of shape ``(n,)``.

    Examples
    --------
    >>> from irrepro.stats import clustered_se
    >>> x = np.array([1, 1, 0, 0, 1, 0], dtype=float)
    >>> round(float(clustered_se(x)), 4), round(float(np.std(x, ddof=1) / np.sqrt(6)), 4)
    (0.2236, 0.2236)
    >>> round(float(clustered_se(x, [0, 0, 1, 1, 2, 2])), 4)  # two by two: the pairs agree
    0.2887
    """
    x = np.asarray(values, dtype=float)
    n = x.shape[-1]
    if n == 0:
        raise ValueError("clustered_se of no values")
    if clusters is None:
        inv = np.arange(n)
    else:
        c = np.asarray(clusters)
        if c.shape != (n,):
            raise ValueError(f"clusters has shape {c.shape}, values {n} along their last axis")
        _, inv = np.unique(c, return_inverse=True)
    k = int(inv.max()) + 1
    n_c = np.bincount(inv, minlength=k)
    flat = x.reshape(-1, n)
    out = np.empty(flat.shape[0])
    for i, row in enumerate(flat):
        r_c = np.bincount(inv, weights=row, minlength=k)
        out[i] = np.sqrt(np.sum((r_c - row.mean() * n_c) ** 2) * k / max(k - 1, 1)) / n
    return out.reshape(x.shape[:-1])


def meta_analysis(d, sd, model: str = "fixed", level: float = 0.95) -> MetaAnalysis:
    """Combine per-topic effects ``d`` with standard errors ``sd`` (Cormack & Lynam 2006, section 9).

    The estimates are statsmodels' ``combine_effects`` (``method_re="dl"``). ``model="fixed"``:
    the paper's fixed-effect estimate ``sum(d/s^2) / sum(1/s^2)`` with ``se = (sum 1/s^2)^-1/2``,
    and its one-sided p-value (Stouffer, which statsmodels does not give). ``model="dl"``: the
    DerSimonian-Laird random-effects estimate (beyond the paper): ``tau^2 = max(0, (Q - (k-1)) /
    (sum w - sum w^2 / sum w))``, weights ``1 / (s^2 + tau^2)``; statsmodels does not truncate
    tau^2 at 0, so a negative estimate is taken as 0 here (the random-effects estimate is then the
    fixed-effect one). Intervals are normal, ``estimate +/- z se``. Topics with a non-finite effect
    or a zero / non-finite sd are left out (``k`` counts the rest).

    Parameters
    ----------
    d : array_like
        The per-topic effects (differences in AP, say).
    sd : array_like
        Their standard errors.
    model : {"fixed", "dl"}
        Fixed effect (the paper's) or DerSimonian-Laird random effects.
    level : float, default 0.95
        The confidence level of the interval (see ``check_level``).

    Returns
    -------
    MetaAnalysis

    Raises
    ------
    irrepro.InputError
        For an unknown ``model`` or when no topic has a finite effect and a positive sd.

    Examples
    --------
    Two topics of equal precision: the fixed effect is their mean, its se ``1 / sqrt 2``.

    >>> from irrepro.stats import meta_analysis
    >>> m = meta_analysis([1.0, 3.0], [1.0, 1.0])
    >>> m.effect, round(m.se, 4), m.k
    (2.0, 0.7071, 2)
    """
    from statsmodels.stats.meta_analysis import combine_effects

    if model not in ("fixed", "dl"):
        raise InputError(f"model must be 'fixed' or 'dl', not {model!r}")
    level = check_level(level)
    d, sd = np.asarray(d, dtype=np.float64), np.asarray(sd, dtype=np.float64)
    keep = np.isfinite(d) & np.isfinite(sd) & (sd > 0)
    d, sd = d[keep], sd[keep]
    k = len(d)
    if k == 0:
        raise InputError("no topic has a finite effect and a positive standard error")
    # a negative tau^2 (taken as 0 below) or k = 1 make statsmodels' random-effects values NaN
    with np.errstate(invalid="ignore", divide="ignore"):
        res = combine_effects(d, sd**2, method_re="dl")
    z = norm.ppf(0.5 + level / 2)
    q = float(res.q)
    if model == "fixed":
        eff, se = float(res.mean_effect_fe), float(res.sd_eff_w_fe)
        p = float(norm.sf((d / sd).sum() / np.sqrt(k)))
        return MetaAnalysis("fixed", eff, se, eff - z * se, eff + z * se, k, p, q, 0.0)
    if k > 1 and res.tau2 > 0:
        tau2, eff, se = float(res.tau2), float(res.mean_effect_re), float(res.sd_eff_w_re)
    else:
        tau2, eff, se = 0.0, float(res.mean_effect_fe), float(res.sd_eff_w_fe)
    return MetaAnalysis(
        "DerSimonian-Laird", eff, se, eff - z * se, eff + z * se, k, float(norm.sf(eff / se)), q, tau2
    )


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's adjustment along the last axis: statsmodels' to the bit, without its ``gc.collect()`` per call."""
    order = np.argsort(p, axis=-1)
    adjusted = np.maximum.accumulate(
        np.take_along_axis(p, order, -1) * np.arange(p.shape[-1], 0, -1), axis=-1
    )
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, -1)
    return out


def _bh(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg's adjustment along the last axis: statsmodels' ``fdr_bh`` to the bit."""
    k = p.shape[-1]
    order = np.argsort(p, axis=-1)
    raw = np.take_along_axis(p, order, -1) / (np.arange(1, k + 1) / float(k))
    adjusted = np.minimum.accumulate(raw[..., ::-1], axis=-1)[..., ::-1]
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, -1)
    return out


def adjust_pvalues(p, method: str | None = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons by ``method``, each row (the last axis) one family."""
    p = np.asarray(p, dtype=np.float64)
    bad = ~np.isnan(p) & ~((p >= 0) & (p <= 1))
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0]) if p.ndim else ()
        at = f" at position {i[0] if len(i) == 1 else i}" if i else ""
        raise InputError(f"p-values must be in [0, 1] (NaN: no test), got {float(p[bad].flat[0])!r}{at}")
    if method is None:
        return p
    from statsmodels.stats.multitest import multipletests

    ok = ~np.isnan(p)
    own = {"holm": _holm, "h": _holm, "fdr_bh": _bh}.get(method.lower())
    try:
        adjusted = (
            own(np.where(ok, p, 1.0))
            if own is not None
            else np.apply_along_axis(lambda r: multipletests(r, method=method)[1], -1, np.where(ok, p, 1.0))
        )
    except ValueError as exc:  # statsmodels' bare "method not recognized"
        if "not recognized" not in str(exc):
            raise
        raise InputError(
            f"unknown multiple-comparison method {method!r}: statsmodels' multipletests names, "
            "e.g. 'holm', 'fdr_bh' (Benjamini-Hochberg), 'bonferroni', 'fdr_by', 'hommel'"
        ) from None
    return np.where(ok, adjusted, np.nan)
