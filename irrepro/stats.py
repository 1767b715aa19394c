"""Generic statistics shared by the method families, one place for each: the logit, the checks of a
confidence level and of a number of resamples, bootstrap standard errors and Efron's BCa interval,
Kendall's tau-b, meta-analysis (Cormack & Lynam 2006, section 9) and p-value adjustment.

Arrays put the resamples on the last axis, e.g. ``(systems, topics, B)``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy.stats import norm

from . import _spread
from .errors import InputError
from .parallel import _chunks, check_int

__all__ = ["Z95", "expit", "clustered_se", "MetaAnalysis", "meta_analysis"]

#: The two-sided 95% normal quantile, computed (1.959963...).
Z95 = float(norm.ppf(0.975))
#: The logit's clipping of 0 and 1 (Cormack & Lynam 2006, section 5, give no eps; 0.001 is ours).
EPS = 1e-3


def logit(p, eps: float = EPS) -> np.ndarray:
    """The logit ``log(p / (1 - p))``, p clipped to [eps, 1 - eps] (Cormack & Lynam 2006, section 5)."""
    p = np.clip(np.asarray(p, dtype=np.float64), eps, 1 - eps)
    return np.log(p) - np.log1p(-p)


def expit(x) -> np.ndarray:
    """The inverse of ``logit``, ``1 / (1 + exp(-x))``.

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


#: Cells (float64) of replicates worked on at once (2 MB) by ``bootstrap_sd`` and the corpus bootstrap's MAP intervals.
_BLOCK_CELLS = 1 << 18


def bootstrap_sd(replicates, transform=None) -> np.ndarray:
    """Standard deviation (ddof = 1) of bootstrap replicates along the last axis."""
    x = np.asarray(replicates, dtype=np.float64)
    if (
        x.ndim < 2 or x.size <= _BLOCK_CELLS or not x.flags.c_contiguous
    ):  # (a copy would sum in another order)
        return _sd(x, transform)
    rows = x.reshape(-1, x.shape[-1])  # a view
    out = np.empty(len(rows))
    for block in _chunks(len(rows), _BLOCK_CELLS // max(x.shape[-1], 1)):
        out[block] = _sd(rows[block], transform)
    return out.reshape(x.shape[:-1])


def _sd(x: np.ndarray, transform=None) -> np.ndarray:
    if transform is not None:
        x = np.asarray(transform(x), dtype=np.float64)
    n = np.sum(~np.isnan(x), axis=-1)
    mean = np.nansum(x, axis=-1) / np.maximum(n, 1)
    ss = np.nansum((x - mean[..., None]) ** 2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.where(n > 1, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)
    return _spread.exact(x, mean, sd, squared=False)[1]  # equal replicates: exactly 0


def check_level(level, name: str = "level") -> float:
    """A confidence level as a fraction in (0, 1): the check of every ``level`` (and ``--level``)."""
    if isinstance(level, bool) or not isinstance(level, numbers.Real):
        raise InputError(
            f"{name} must be a number, a fraction in (0, 1) or a percentage in [50, 100); "
            f"got {level!r} ({type(level).__name__})"
        )
    value = float(level)
    if not math.isfinite(value) or not (0 < value < 1 or 50 <= value < 100):
        hint = f" (read as a percentage: a {level_percent(value / 100)} interval)" if 1 < value < 50 else ""
        raise InputError(
            f"{name} must be a fraction in (0, 1) (0.95) or a percentage in [50, 100) (95), got {level!r}{hint}"
        )
    return value if value < 1 else value / 100


def level_percent(level: float) -> str:
    """A confidence level as a percentage, with the digits it needs: ``"95%"``, ``"99.99999%"``."""
    pct = 100 * float(level)
    for decimals in range(20):
        text = f"{pct:.{decimals}f}"
        if 0 < float(text) < 100 and math.isclose(float(text), pct, rel_tol=1e-14):
            return text + "%"
    return f"{pct!r}%"  # (outside (0, 100), or below 1e-18%: as it is)


#: The fewest resamples behind an interval or a resampling test's p-value (``check_resamples``).
MIN_RESAMPLES = 100


def _at_least(numerator: int, value: float, minus_from: int = 0) -> int:
    """``ceil(numerator / (minus_from - value))`` (``/ value`` if 0), ``value`` as its shortest decimal."""
    from decimal import Decimal

    d = Decimal(repr(float(value)))
    return math.ceil(Decimal(numerator) / ((minus_from - d) if minus_from else d))


#: A test corrected over m >= 2 comparisons needs B >= this x m / alpha (its smallest threshold, alpha / m).
RESAMPLES_AT_THRESHOLD = 20


def _corrected(correction, comparisons) -> bool:
    """Whether ``correction`` adjusts over ``comparisons`` >= 2."""
    return correction not in (None, "none") and comparisons is not None and int(comparisons) >= 2


def corrected_resamples(comparisons: int, alpha: float = 0.05, correction: str | None = "holm", *,
                        default: int = 1000, multiple: int = 1000) -> int:  # fmt: skip
    """The resamples a resampling test needs for its p-values to be adjusted over ``comparisons``."""
    m = check_int(comparisons, "comparisons", minimum=0)
    alpha = float(alpha)
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be a number in (0, 1), got {alpha!r}")
    if not _corrected(correction, m):
        return int(default)
    need = _at_least(RESAMPLES_AT_THRESHOLD * m, alpha)
    return max(int(default), -(-need // multiple) * multiple)


def check_resamples(
    B,
    name: str = "B",
    *,
    level=None,
    alpha=None,
    test: str = "",
    default: bool = False,
    hint: str = "",
    comparisons: int | None = None,
    correction: str | None = None,
) -> int:
    """The number of resamples ``B`` behind an interval at ``level`` or a test at ``alpha``, checked."""
    B = check_int(B, name, minimum=1)
    need, what, rules = MIN_RESAMPLES, [], []
    if level is not None:
        level = check_level(level)
        need = max(need, _at_least(2, level, minus_from=1))
        what.append(f"a {level_percent(level)} interval")
        rules.append("an interval needs at least 100 resamples and at least one beyond each end, "
                     "B (1 - level) / 2 >= 1")  # fmt: skip
    if alpha is not None:
        alpha = float(alpha)
        if not 0 < alpha < 1:
            raise InputError(f"alpha must be a number in (0, 1), got {alpha!r}")
        need = max(need, _at_least(1, alpha))
        adjusted = _corrected(correction, comparisons)
        by = f" adjusted by {correction} over m = {int(comparisons)} comparisons" if adjusted else ""  # type: ignore[arg-type]
        what.append(f"{test or 'a resampling test'} at alpha {alpha:g}{by}")
        rules.append("a resampling test needs at least 100 resamples and B >= 1 / alpha, so that its "
                     "p-value, a count of resamples over B, can fall between 0 and alpha")  # fmt: skip
        if adjusted:
            need = max(need, _at_least(RESAMPLES_AT_THRESHOLD * int(comparisons), alpha))  # type: ignore[arg-type]
            rules.append(f"a correction over m comparisons needs B >= {RESAMPLES_AT_THRESHOLD} m / alpha, so "
                         "that its smallest threshold, alpha / m, is resolved")  # fmt: skip
    if not what:
        what.append("an interval or a test")
        rules.append("a bootstrap interval or a resampling test needs at least 100 resamples")
    if B >= need:
        return B
    raise InputError(f"{'the default ' if default else ''}{name} {B}: too few resamples for {' and '.join(what)}: "
                     f"{'; '.join(rules)}; give {name} >= {need}{hint}")  # fmt: skip


# --- BCa (Efron & Tibshirani 1993, ch. 14) ---------------------------------------------------------


def _quantile_sorted(reps: np.ndarray, n: np.ndarray, q: np.ndarray) -> np.ndarray:
    """np.percentile's 'linear' quantile of the first ``n`` (valid) values of sorted rows."""
    q = np.broadcast_to(np.asarray(q, dtype=np.float64), n.shape)
    pos = q * (n - 1)
    lo = np.clip(np.floor(pos), 0, np.maximum(n - 1, 0)).astype(np.int64)
    hi = np.clip(lo + 1, 0, np.maximum(n - 1, 0))
    frac = pos - lo
    a = np.take_along_axis(reps, lo[..., None], axis=-1)[..., 0]
    b = np.take_along_axis(reps, hi[..., None], axis=-1)[..., 0]
    out = a + (b - a) * frac
    return np.where((n > 0) & np.isfinite(q), out, np.nan)


def jackknife_acceleration(values: np.ndarray, weights: np.ndarray | None = None, center=None) -> np.ndarray:
    """Efron's acceleration of the BCa interval from jackknife values along the last axis."""
    values = np.asarray(values, dtype=np.float64)
    w = np.ones_like(values) if weights is None else np.broadcast_to(weights, values.shape)
    if center is None:
        center = (w * values).sum(axis=-1) / w.sum(axis=-1)
    u = np.asarray(center)[..., None] - values
    num = (w * u**3).sum(axis=-1)
    den = (w * u**2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / (6 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)


def bca_interval(
    theta_hat, replicates: np.ndarray, *, jackknife: np.ndarray | None = None, accel=None, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """BCa interval (Efron & Tibshirani 1993, ch. 14) from replicates on the last axis (NaN ignored), as
    scipy's but with p clipped to [1/2B, 1 - 1/2B]; ``accel`` or ``jackknife`` give the acceleration."""
    level = check_level(level)
    theta_hat = np.asarray(theta_hat, dtype=np.float64)
    reps = np.sort(np.asarray(replicates, dtype=np.float64), axis=-1)  # NaN last
    n = np.sum(~np.isnan(reps), axis=-1)
    th = theta_hat[..., None]
    p = (np.sum(reps < th, axis=-1) + np.sum(reps <= th, axis=-1)) / (2.0 * np.maximum(n, 1))
    p = np.clip(p, 0.5 / np.maximum(n, 1), 1 - 0.5 / np.maximum(n, 1))
    z0 = special.ndtri(p)
    if accel is None:
        accel = np.zeros(theta_hat.shape) if jackknife is None else jackknife_acceleration(jackknife)
    a = np.asarray(accel, dtype=np.float64)
    alpha = (1 - level) / 2
    out = []
    for z in (special.ndtri(alpha), -special.ndtri(alpha)):
        num = z0 + z
        q = special.ndtr(z0 + num / (1 - a * num))
        out.append(_quantile_sorted(reps, n, q))
    return out[0], out[1]


# --- Kendall's tau ---------------------------------------------------------------------------------


def kendall_tau(x, y) -> np.ndarray:
    """Kendall's tau-b between the last axes of ``x`` and ``y``, as ``scipy.stats.kendalltau`` for many rankings (NaN if one is constant)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape[-1] != y.shape[-1]:
        raise InputError(f"x and y rank different numbers of systems: {x.shape} and {y.shape}")
    n_sys = x.shape[-1]
    lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    i, j = np.triu_indices(n_sys, k=1)
    xf = np.broadcast_to(x, lead + (n_sys,)).reshape(-1, n_sys)
    yf = np.broadcast_to(y, lead + (n_sys,)).reshape(-1, n_sys)
    out = np.empty(xf.shape[0])
    for s in range(0, xf.shape[0], 128):
        dx = np.sign(xf[s : s + 128, i] - xf[s : s + 128, j])
        dy = np.sign(yf[s : s + 128, i] - yf[s : s + 128, j])
        num = (dx * dy).sum(axis=-1)
        den = np.sqrt((dx != 0).sum(axis=-1) * (dy != 0).sum(axis=-1).astype(float))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s : s + 128] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out.reshape(lead)


# --- meta-analysis and multiple testing ------------------------------------------------------------


@dataclass(frozen=True)
class MetaAnalysis:
    """Inverse-variance meta-analysis of k per-topic effects (:func:`meta_analysis`).

    Attributes
    ----------
    model : str
        ``"fixed"`` or ``"DerSimonian-Laird"``.
    effect, se, lower, upper : float
        The combined effect, its standard error and the normal interval ``effect +/- z se``.
    k : int
        The number of topics combined.
    p_one_sided, q, tau2 : float
        Stouffer's ``1 - Phi(sum(d_i / s_i) / sqrt k)`` (DerSimonian-Laird: ``1 - Phi(effect / se)``),
        Cochran's Q and the between-topic variance (0 for the fixed effect).
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

    ``sqrt(k / (k - 1) * sum_c (r_c - m n_c)^2) / n`` over the ``k`` clusters of totals ``r_c``.

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

    statsmodels' ``combine_effects``; topics with a non-finite effect or sd, or sd 0, are left out.

    Parameters
    ----------
    d, sd : array_like
        The per-topic effects (differences in AP, say) and their standard errors.
    model : {"fixed", "dl"}
        Fixed effect (the paper's) or DerSimonian-Laird random effects.
    level : float, default 0.95
        The confidence level of the interval.

    Returns
    -------
    MetaAnalysis

    Raises
    ------
    irrepro.InputError
        For an unknown ``model`` or when no topic has a finite effect and a positive sd.

    Examples
    --------
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


def _stepwise(p: np.ndarray, holm: bool) -> np.ndarray:
    """Holm's or Benjamini-Hochberg's adjustment along the last axis: statsmodels' to the bit (no gc per call)."""
    k = p.shape[-1]
    order = np.argsort(p, axis=-1)
    ranked = np.take_along_axis(p, order, -1)
    if holm:
        adjusted = np.maximum.accumulate(ranked * np.arange(k, 0, -1), axis=-1)
    else:
        adjusted = np.minimum.accumulate((ranked / (np.arange(1, k + 1) / float(k)))[..., ::-1], axis=-1)[
            ..., ::-1
        ]
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
    own = {"holm": True, "h": True, "fdr_bh": False}.get(method.lower())
    try:
        adjusted = (
            _stepwise(np.where(ok, p, 1.0), own)
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
