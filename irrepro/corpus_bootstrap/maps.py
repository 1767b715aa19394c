"""Intervals of MAP and L-MAP per run (Cormack & Lynam 2006, section 8, Tables 3 and 4): from the
bootstrap replicates of every topic, and parametric, from the per-topic logit intervals."""

from __future__ import annotations

import numpy as np
from scipy import stats

from .. import stats as irstats
from ..errors import InputError
from ..parallel import _chunks
from ..stats import EPS, bootstrap_sd, check_level, logit
from .intervals import Intervals

_AVERAGES = ("usable", "all")


def _fixed_share(usable: np.ndarray, average: str) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the weights of the mean over usable lists and of the fixed AP = 0 of the others."""
    if average not in _AVERAGES:
        raise InputError(f"average must be one of {_AVERAGES}, not {average!r}")
    n_u = usable.sum(axis=1)
    if average == "usable":
        return np.ones(len(n_u)), np.zeros(len(n_u))
    return n_u / usable.shape[1], 1.0 - n_u / usable.shape[1]


def _mean_of_usable(x: np.ndarray) -> np.ndarray:
    """The mean over axis 1 of the values that are not NaN (the usable topics), NaN where there is none."""
    usable = ~np.isnan(x)
    count = usable.sum(axis=1)
    total = np.where(usable, x, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def _run_replicates(replicates, w: np.ndarray, f) -> np.ndarray:
    """Per run, the mean of ``f`` of the replicates over its usable topics, (S, B)."""
    replicates = np.asarray(replicates)
    if replicates.ndim != 3 or replicates.shape[0] < 2:
        return _mean_of_usable(f(replicates) * w[..., None])
    rows = _chunks(len(w), irstats._BLOCK_CELLS // max(replicates[0].size, 1))
    return np.concatenate([_mean_of_usable(f(replicates[b]) * w[b, :, None]) for b in rows])


def map_bootstrap_intervals(
    ap: np.ndarray,
    replicates: np.ndarray,
    usable: np.ndarray,
    *,
    eps: float = EPS,
    level: float = 0.95,
    average: str = "usable",
) -> dict[str, Intervals]:
    """Table 3: per run, MAP and L-MAP of each bootstrap sample and ``estimate +/- z sd``, (systems,)."""
    # the mean over the usable topics; average="all": over all T, an unusable list a fixed AP of 0
    # (logit(eps) in L-MAP): trec_eval -c's MAP
    z = stats.norm.ppf(0.5 + check_level(level) / 2)
    share, fixed = _fixed_share(usable, average)
    w = np.where(usable, 1.0, np.nan)
    out = {}
    for name, f in (("MAP", lambda x: x), ("L-MAP", lambda x: logit(x, eps))):
        with np.errstate(invalid="ignore"):
            est = _mean_of_usable(f(ap) * w)
            reps = _run_replicates(replicates, w, f)  # (S, B)
        if average == "all":  # no usable list: the run's mean is the constant
            f0 = float(f(0.0))
            est = np.where(share > 0, share * est, 0.0) + fixed * f0
            reps = np.where(share[:, None] > 0, share[:, None] * reps, 0.0) + fixed[:, None] * f0
        sd = bootstrap_sd(reps)
        out[name] = Intervals(name + " bootstrap", est, est - z * sd, est + z * sd, sd)
    return out


def map_parametric_intervals(
    logit_iv: Intervals,
    usable: np.ndarray,
    *,
    eps: float = EPS,
    level: float = 0.95,
    average: str = "usable",
) -> dict[str, Intervals]:
    """Table 4: MAP and L-MAP intervals per run combined from the per-topic logit intervals (systems,)."""
    # sigma_t = (logit(upper) - logit(lower)) / (2 z), the logit sd (for small-R-corrected intervals,
    # the sd they imply); L-MAP: var = sum sigma_t^2 / T^2. MAP (our reading of the paper's weight
    # AP - AP^2, the derivative of AP w.r.t. logit AP): the delta method, sd(AP_t) = (AP_t - AP_t^2)
    # sigma_t. T counts the usable topics, or all with average="all" (a fixed AP of 0 without variance).
    z = stats.norm.ppf(0.5 + check_level(level) / 2)
    _, fixed = _fixed_share(usable, average)
    ap = logit_iv.estimate
    sig = (logit(logit_iv.upper, eps) - logit(logit_iv.lower, eps)) / (2 * z)
    T = usable.sum(axis=1) if average == "usable" else usable.shape[1]
    sig = np.where(usable, sig, 0.0)
    apu = np.where(usable, ap, 0.0)
    map_ = apu.sum(axis=1) / T
    lmap = np.where(usable, logit(ap, eps), 0.0).sum(axis=1) / T + fixed * float(logit(0.0, eps))
    sd_map = np.sqrt((((apu - apu**2) * sig) ** 2).sum(axis=1)) / T
    sd_lmap = np.sqrt((sig**2).sum(axis=1)) / T
    return {
        "MAP": Intervals("MAP parametric", map_, map_ - z * sd_map, map_ + z * sd_map, sd_map),
        "L-MAP": Intervals("L-MAP parametric", lmap, lmap - z * sd_lmap, lmap + z * sd_lmap, sd_lmap),
    }


def _run_intervals(
    ap, replicates, usable, logit_small_r: Intervals, eps: float, average: str = "usable"
) -> dict:
    """Per-run intervals: ``("bootstrap" | "parametric", "MAP" | "L-MAP") -> Intervals``."""
    boot = map_bootstrap_intervals(ap, replicates, usable, eps=eps, average=average)
    para = map_parametric_intervals(logit_small_r, usable, eps=eps, average=average)
    out = {("bootstrap", k): v for k, v in boot.items()}
    out.update({("parametric", k): v for k, v in para.items()})
    return out


def run_means(
    ap: np.ndarray, usable: np.ndarray, measure: str = "MAP", eps: float = EPS, average: str = "usable"
) -> np.ndarray:
    """Per run: MAP or L-MAP over the usable topics (or all topics).

    L-MAP is the mean logit AP; ``average="all"`` counts an unusable list as AP 0 (trec_eval -c).

    Parameters
    ----------
    ap : numpy.ndarray
        AP, (systems, topics).
    usable : numpy.ndarray
        Bool, (systems, topics): the lists counted.
    measure : {"MAP", "L-MAP"}
        The mean of AP, or of logit AP.
    eps : float
        The logit's clipping of 0 and 1.
    average : {"usable", "all"}
        Over the usable lists (the paper) or all topics.

    Returns
    -------
    numpy.ndarray
        (systems,).

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.corpus_bootstrap import run_means
    >>> ap = np.array([[0.2, 0.4], [0.5, 0.0]])
    >>> usable = np.array([[True, True], [True, False]])
    >>> run_means(ap, usable), run_means(ap, usable, average="all")
    (array([0.3, 0.5]), array([0.3 , 0.25]))
    """
    _, fixed = _fixed_share(usable, average)
    f = (lambda v: v) if measure == "MAP" else (lambda v: logit(v, eps))
    T = usable.sum(axis=1) if average == "usable" else usable.shape[1]
    return np.where(usable, f(ap), 0.0).sum(axis=1) / T + fixed * float(f(0.0))
