"""Confidence levels, resample counts and bootstrap intervals (public through :mod:`irrepro.stats`)."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import special

from . import _spread
from .errors import InputError
from .parallel import _chunks

#: Cells (float64) of replicates worked on at once (2 MB) by ``bootstrap_sd`` and
#: ``corpus_bootstrap.intervals.map_bootstrap_intervals``: their temporaries, a few times that, do not grow
#: with the number of statistics or runs.
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
    if not math.isfinite(value) or not (0 < value < 1 or 1 < value < 100):
        raise InputError(
            f"{name} must be a fraction in (0, 1) (0.95) or a percentage in [50, 100) (95), got {level!r}"
        )
    if 1 < value < 50:
        raise InputError(
            f"{name} must be a fraction in (0, 1) (0.95) or a percentage in [50, 100) (95), got {level!r} "
            f"(read as a percentage: a {level_percent(value / 100)} interval)"
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


#: Resamples expected below the smallest threshold of a correction over m comparisons, alpha / m:
#: a test corrected over m >= 2 comparisons needs B >= this x m / alpha (``corrected_resamples``).
RESAMPLES_AT_THRESHOLD = 20


def _corrected(correction, comparisons) -> bool:
    """Whether ``correction`` adjusts over ``comparisons`` >= 2."""
    return correction not in (None, "none") and comparisons is not None and int(comparisons) >= 2


def corrected_resamples(comparisons: int, alpha: float = 0.05, correction: str | None = "holm", *,
                        default: int = 1000, multiple: int = 1000) -> int:  # fmt: skip
    """The resamples a resampling test needs for its p-values to be adjusted over ``comparisons``."""
    from .parallel import check_int

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
    from .parallel import check_int

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


# --------------------------------------------------------------------------------------------
# BCa (Efron & Tibshirani 1993, ch. 14)
# --------------------------------------------------------------------------------------------


def _sorted_valid(replicates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    reps = np.sort(np.asarray(replicates, dtype=np.float64), axis=-1)  # NaN last
    return reps, np.sum(~np.isnan(reps), axis=-1)


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
    theta_hat,
    replicates: np.ndarray,
    *,
    jackknife: np.ndarray | None = None,
    accel=None,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """BCa interval (Efron & Tibshirani 1993, ch. 14) from replicates on the last axis (NaN ignored).

    As ``scipy.stats.bootstrap(method="BCa")``, except that when every replicate lies on one side
    of theta_hat the share p is clipped to [1/2B, 1 - 1/2B] (scipy: NaN); ``accel`` or ``jackknife``
    give the acceleration (neither: the bias-corrected percentile interval)."""
    level = check_level(level)
    theta_hat = np.asarray(theta_hat, dtype=np.float64)
    reps, n = _sorted_valid(replicates)
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
