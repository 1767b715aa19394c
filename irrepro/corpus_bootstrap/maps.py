"""Intervals of MAP and L-MAP per run (Cormack & Lynam 2006, section 8, Tables 3 and 4): from the
bootstrap replicates of every topic, and parametric, from the per-topic logit intervals."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..stats import EPS, bootstrap_sd, logit
from .intervals import Intervals

__all__ = ["run_means", "map_bootstrap_intervals", "map_parametric_intervals"]


def map_bootstrap_intervals(
    ap: np.ndarray, replicates: np.ndarray, usable: np.ndarray, *, eps: float = EPS, level: float = 0.95
) -> dict[str, Intervals]:
    """Table 3: per run, MAP (L-MAP: mean logit AP) of each bootstrap sample over its usable
    topics, and ``estimate +/- z sd``. ``ap`` (systems, topics), ``replicates`` (systems, topics, B);
    intervals of shape (systems,)."""
    z = stats.norm.ppf(0.5 + level / 2)
    w = np.where(usable, 1.0, np.nan)
    out = {}
    for name, f in (("MAP", lambda x: x), ("L-MAP", lambda x: logit(x, eps))):
        est = np.nanmean(f(ap) * w, axis=1)
        with np.errstate(invalid="ignore"):
            reps = np.nanmean(f(replicates) * w[..., None], axis=1)  # (S, B)
        sd = bootstrap_sd(reps)
        out[name] = Intervals(name + " bootstrap", est, est - z * sd, est + z * sd, sd)
    return out


def map_parametric_intervals(
    logit_iv: Intervals, usable: np.ndarray, *, eps: float = EPS, level: float = 0.95
) -> dict[str, Intervals]:
    """Table 4: MAP and L-MAP intervals combined from the per-topic logit intervals.

    Per topic, ``sigma_t = (logit(upper) - logit(lower)) / (2 z)`` (the logit sd; for
    small-R-corrected intervals, the sd they imply). L-MAP: ``var = sum sigma_t^2 / T^2``. MAP (our
    reading of the paper's weight AP - AP^2, the derivative of AP w.r.t. logit AP): the delta
    method, ``sd(AP_t) = (AP_t - AP_t^2) sigma_t`` and ``var = sum sd(AP_t)^2 / T^2``."""
    z = stats.norm.ppf(0.5 + level / 2)
    ap = logit_iv.estimate
    sig = (logit(logit_iv.upper, eps) - logit(logit_iv.lower, eps)) / (2 * z)
    T = usable.sum(axis=1)
    sig = np.where(usable, sig, 0.0)
    apu = np.where(usable, ap, 0.0)
    map_ = apu.sum(axis=1) / T
    lmap = np.where(usable, logit(ap, eps), 0.0).sum(axis=1) / T
    sd_map = np.sqrt((((apu - apu**2) * sig) ** 2).sum(axis=1)) / T
    sd_lmap = np.sqrt((sig**2).sum(axis=1)) / T
    return {
        "MAP": Intervals("MAP parametric", map_, map_ - z * sd_map, map_ + z * sd_map, sd_map),
        "L-MAP": Intervals("L-MAP parametric", lmap, lmap - z * sd_lmap, lmap + z * sd_lmap, sd_lmap),
    }


def _run_intervals(ap, replicates, usable, logit_small_r: Intervals, eps: float) -> dict:
    """Per-run intervals: ``("bootstrap" | "parametric", "MAP" | "L-MAP") -> Intervals``
    (Tables 3 and 4; the parametric ones from the small-R-corrected logit intervals)."""
    out = {("bootstrap", k): v for k, v in map_bootstrap_intervals(ap, replicates, usable, eps=eps).items()}
    out.update({("parametric", k): v for k, v in map_parametric_intervals(logit_small_r, usable, eps=eps).items()})
    return out


def run_means(ap: np.ndarray, usable: np.ndarray, measure: str = "MAP", eps: float = EPS) -> np.ndarray:
    """Per run: MAP (``measure="MAP"``) or L-MAP (``"L-MAP"``, mean logit AP) over usable topics;
    ``ap`` and ``usable`` (systems, topics), result (systems,)."""
    x = ap if measure == "MAP" else logit(ap, eps)
    return np.where(usable, x, 0.0).sum(axis=1) / usable.sum(axis=1)

