"""Corpus-bootstrap intervals (Cormack & Lynam 2006): linear, logit and BCa of AP (section 5), BCa's
acceleration from the leave-one-document-out jackknife, the small-R correction (section 7), and MAP
and L-MAP per run, bootstrap and parametric (section 8, Tables 3 and 4)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from .. import stats as irstats
from ..data import RunSet
from ..errors import InputError
from ..parallel import _chunks
from ..stats import EPS, Z95, bca_interval, bootstrap_sd, check_level, expit, logit
from .sampler import Lists, _lists_of

METHODS = ("linear", "logit", "bca")


@dataclass(frozen=True, eq=False)
class Intervals:
    """Intervals of one method for an array of lists (or runs)."""

    method: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd: np.ndarray

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower

    def position(self, value) -> np.ndarray:
        """-1 below, 0 in (bounds included; or anything NaN), +1 above the interval, per value."""
        value = np.asarray(value)
        return np.where(value < self.lower, -1, np.where(value > self.upper, 1, 0)).astype(np.int8)


def ap_acceleration(runs: RunSet | Lists, *, rel: int = 1) -> np.ndarray:
    """BCa acceleration of every list's AP from the leave-one-document-out jackknife."""
    lists = _lists_of(runs, rel)
    m = lists.n_ret_rel
    L = len(lists)
    seg = np.repeat(np.arange(L), m)
    j = np.arange(len(seg)) - np.repeat(lists.start[:-1], m) + 1.0  # 1-based hit number
    rank = np.cumsum(lists.gaps + 1) - np.repeat(np.r_[0, np.cumsum(lists.gaps + 1)][lists.start[:-1]], m)
    rank = rank.astype(np.float64)
    R = lists.n_rel[seg].astype(np.float64)
    ap = lists.ap[seg]

    def seg_excl_prefix(x):  # sum over earlier entries of the same list
        c = np.r_[0.0, np.cumsum(x)]
        return c[:-1] - c[lists.start[:-1]][seg]

    def seg_total(x):
        c = np.r_[0.0, np.cumsum(x)]
        return (c[lists.start[1:]] - c[lists.start[:-1]])[seg]

    a_ = j / rank
    b_ = np.where(rank > 1, j / np.maximum(rank - 1, 1), 0.0)
    c_ = np.where(rank > 1, (j - 1) / np.maximum(rank - 1, 1), 0.0)
    pre_a = seg_excl_prefix(a_)
    # drop a non-relevant doc in gap j: ranks from j on shrink by one
    suf_b = seg_total(b_) - seg_excl_prefix(b_)
    v_gap = (pre_a + suf_b) / R
    # drop relevant doc j: R - 1, the ones below lose one hit and one rank
    suf_c_after = seg_total(c_) - seg_excl_prefix(c_) - c_
    with np.errstate(invalid="ignore", divide="ignore"):
        v_rel = np.where(R > 1, (pre_a + suf_c_after) / np.maximum(R - 1, 1), ap)
    w_rel = np.where(R > 1, 1.0, 0.0)
    u_gap, u_rel = ap - v_gap, ap - v_rel
    num = np.bincount(seg, lists.gaps * u_gap**3 + w_rel * u_rel**3, minlength=L)
    den = np.bincount(seg, lists.gaps * u_gap**2 + w_rel * u_rel**2, minlength=L)
    # unretrieved relevant documents: AP * R / (R - 1)
    r_not = (lists.n_rel - m).astype(np.float64)
    Rl = lists.n_rel.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        u_not = np.where(Rl > 1, lists.ap - lists.ap * Rl / np.maximum(Rl - 1, 1), 0.0)
    num += r_not * u_not**3
    den += r_not * u_not**2
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where((den > 0) & lists.usable, num / (6 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)
    return acc.reshape(lists.shape)


def intervals_from_replicates(
    estimate,
    replicates: np.ndarray,
    methods: Sequence[str] = METHODS,
    *,
    accel=None,
    eps: float = EPS,
    level: float = 0.95,
) -> dict[str, Intervals]:
    """Linear, logit and BCa intervals (section 5) from replicates along the last axis (NaN ignored).

    linear: ``AP +/- z sd(AP*)``, not clipped; logit: ``expit(logit AP +/- z sd(logit AP*))``, a limit
    at or beyond eps (1 - eps) read as 0 (1); bca: ``irrepro.stats.bca_interval``.

    Parameters
    ----------
    estimate : array_like
        AP (...).
    replicates : numpy.ndarray
        Its replicates (..., B).
    methods : sequence of str
        Of ``"linear"``, ``"logit"``, ``"bca"``.
    accel : array_like or None
        The BCa acceleration (None: 0, plain bias-corrected BC).
    eps : float
        The logit's clipping of 0 and 1.
    level : float
        The confidence level, a fraction or a percentage (``irrepro.stats.check_level``).

    Returns
    -------
    dict
        ``{method: Intervals}``.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import intervals_from_replicates
    >>> iv = intervals_from_replicates(0.5, np.linspace(0.3, 0.7, 101), ["linear"])["linear"]
    >>> round(float(iv.lower), 3), round(float(iv.upper), 3)
    (0.27, 0.73)
    """
    level = check_level(level)
    est = np.asarray(estimate, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    z = stats.norm.ppf(0.5 + level / 2)
    out = {}
    for meth in methods:
        if meth == "linear":
            sd = bootstrap_sd(reps)
            out[meth] = Intervals(meth, est, est - z * sd, est + z * sd, sd)
        elif meth == "logit":
            sd = bootstrap_sd(reps, transform=lambda r: logit(r, eps))  # (block by block: memory)
            c = logit(est, eps)
            # eps stands for 0 (1 - eps for 1): a limit at or beyond it is 0 (1)
            edge = float(logit(eps, eps)) + 1e-9
            lo = np.where(c - z * sd <= edge, 0.0, expit(c - z * sd))
            hi = np.where(c + z * sd >= -edge, 1.0, expit(c + z * sd))
            out[meth] = Intervals(meth, est, lo, hi, sd)
        elif meth == "bca":
            lo, hi = bca_interval(est, reps, accel=accel, level=level)
            out[meth] = Intervals(meth, est, lo, hi, np.full(est.shape, np.nan))
        else:
            raise InputError(f"unknown interval method {meth!r}; use {METHODS}")
    return out


def silver_bullet_fraction(n_rel, alpha: float = 0.05) -> np.ndarray:
    """Upper limit u of the silver-bullet (or lead-balloon) proportion: ``1 - alpha^(1/R)``."""
    n_rel = np.asarray(n_rel, dtype=np.float64)
    return 1.0 - alpha ** (1.0 / n_rel)


def expected_ap_uniform(n_rel: int, depth: int, n_top: int, n_placed) -> np.ndarray:
    """E[AP] of a list whose top ``n_top`` are relevant and ``n_placed`` more at uniformly random ranks."""
    # exact by linearity: rank r of the N free ranks holds a placed document with probability x/N and
    # then has on average 1 + (x-1)(r-1)/(N-1) placed documents at or above it
    x = np.asarray(n_placed, dtype=np.float64)[..., None]
    N = depth - n_top
    if N <= 0:
        return np.full(x.shape[:-1], n_top / n_rel)
    r = np.arange(1, N + 1, dtype=np.float64)
    hits = n_top + 1 + (x - 1) * (r - 1) / max(N - 1, 1)
    e = (x / N * hits / (n_top + r)).sum(axis=-1)
    return (n_top + e) / n_rel


@functools.lru_cache(maxsize=1 << 16)  # the same (R, depth) recurs across lists, methods and halves
def small_r_limits(n_rel: int, depth: int, alpha: float = 0.05, tail: float = 1e-12) -> tuple[float, float]:
    """(upper limit when AP = 0, lower limit when AP = 1) for R = ``n_rel`` and ``depth`` ranks (section 7)."""
    # Silver bullets: X ~ Binomial(R, u) of the R relevant documents at uniformly random ranks.
    # Lead balloons (our reading of "a similar dynamic approach"): the R relevant documents lead the
    # list, X ~ Binomial(R, u) of them land at uniformly random ranks below the R - X others.
    # Each limit is E[AP]; the binomial is summed up to its 1 - tail quantile.
    n_rel, depth = int(n_rel), max(int(depth), int(n_rel))
    u = float(silver_bullet_fraction(n_rel, alpha))
    xmax = int(stats.binom.ppf(1 - tail, n_rel, u))
    x = np.arange(xmax + 1)
    w = stats.binom.pmf(x, n_rel, u)
    w = w / w.sum()
    upper0 = float((w * expected_ap_uniform(n_rel, depth, 0, x)).sum())
    lower1 = float(sum(wi * expected_ap_uniform(n_rel, depth, n_rel - xi, xi) for xi, wi in zip(x, w)))
    return upper0, lower1


def small_r_correct(iv: Intervals, n_rel, depth, alpha: float = 0.05) -> Intervals:
    """The small-R correction of Cormack & Lynam (2006, section 7) of an interval."""
    est = iv.estimate
    R = np.broadcast_to(np.asarray(n_rel), est.shape)
    n = np.maximum(np.broadcast_to(np.asarray(depth), est.shape), R)
    lo, hi = iv.lower.copy(), iv.upper.copy()
    ok = np.isfinite(est) & (R > 0)
    u = silver_bullet_fraction(np.maximum(R, 1), alpha)
    # U0 <= E[#silver] / R = u and L1 >= 1 - u: only these lists can be corrected
    cand = ok & ((est <= u) | (est >= 1 - u))
    for idx in zip(*np.nonzero(cand)):
        u0, l1 = small_r_limits(int(R[idx]), int(n[idx]), float(alpha))
        for a, b in ((0.0, u0), (l1, 1.0)):
            if a <= est[idx] <= b and (b - a) > (hi[idx] - lo[idx]):
                lo[idx], hi[idx] = a, b
    return replace(iv, lower=lo, upper=hi, method=iv.method + "+smallR")


def _with_small_r(ivs: dict[str, Intervals], n_rel, depth) -> dict[str, Intervals]:
    """``ivs`` plus its linear and logit intervals corrected (``"linear+smallR"``, ``"logit+smallR"``)."""
    return {
        **ivs,
        **{m + "+smallR": small_r_correct(ivs[m], n_rel, depth) for m in ("linear", "logit") if m in ivs},
    }


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
    ap: np.ndarray, replicates: np.ndarray, usable: np.ndarray, *, eps: float = EPS, average: str = "usable"
) -> dict[str, Intervals]:
    """Table 3: per run, MAP and L-MAP of each bootstrap sample and ``estimate +/- z sd``, (systems,)."""
    # the mean over the usable topics; average="all": over all T, an unusable list a fixed AP of 0
    # (logit(eps) in L-MAP): trec_eval -c's MAP
    z = Z95
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
    average: str = "usable",
) -> dict[str, Intervals]:
    """Table 4: MAP and L-MAP intervals per run combined from the per-topic logit intervals (systems,)."""
    # sigma_t = (logit(upper) - logit(lower)) / (2 z), the logit sd (for small-R-corrected intervals,
    # the sd they imply); L-MAP: var = sum sigma_t^2 / T^2. MAP (our reading of the paper's weight
    # AP - AP^2, the derivative of AP w.r.t. logit AP): the delta method, sd(AP_t) = (AP_t - AP_t^2)
    # sigma_t. T counts the usable topics, or all with average="all" (a fixed AP of 0 without variance).
    z = Z95
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
    return {("bootstrap", k): v for k, v in boot.items()} | {("parametric", k): v for k, v in para.items()}


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
