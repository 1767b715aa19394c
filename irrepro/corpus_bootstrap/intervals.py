"""Corpus-bootstrap intervals of AP (Cormack & Lynam 2006, section 5): linear, logit and BCa,
with BCa's acceleration from the leave-one-document-out jackknife of AP."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from .. import parallel
from ..data import RunSet
from ..errors import InputError
from ..stats import EPS, bca_interval, bootstrap_sd, check_level, expit, logit
from ._interval import Intervals
from .lists import Lists, _lists_of
from .sampler import bootstrap_ap
from .small_r import _with_small_r

__all__ = ["Intervals", "METHODS", "ap_acceleration", "intervals_from_replicates", "ap_intervals"]


METHODS = ("linear", "logit", "bca")


def ap_acceleration(runs: RunSet | Lists, *, rel: int = 1) -> np.ndarray:
    """BCa acceleration of every list's AP from the leave-one-document-out jackknife.

    The corpus bootstrap resamples documents, so the matching jackknife leaves out one document of
    the corpus at a time. Only documents that change AP matter: a non-relevant document in the gap
    above the j-th retrieved relevant one (all ``g_j`` of them give the same value: the relevant
    documents from j on move up one rank), a retrieved relevant document (R - 1, the ones below
    lose a hit and a rank), an unretrieved relevant document (R - 1; ``R_not`` equal values).
    Every other document leaves AP unchanged (U = 0). In the infinite-corpus limit that the
    Poisson bootstrap assumes, the jackknife mean is AP itself, so ``U_i = AP - AP_(i)`` and
    ``a = sum w U^3 / (6 (sum w U^2)^1.5)``. Leaving out the only relevant document (R = 1) has no
    AP and is skipped. Returns ``Lists.shape``; 0 for unusable lists.

    Parameters
    ----------
    runs : irrepro.data.RunSet or Lists
        The ranked lists.
    rel : int
        The lowest relevant grade.

    Returns
    -------
    numpy.ndarray
        The acceleration of each list, ``Lists.shape``; 0 for unusable lists.

    Examples
    --------
    >>> from irrepro import data, corpus_bootstrap as cb
    >>> qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1, "d9": 1}, "q2": {"d2": 1, "d4": 1}})
    >>> runs = data.load_runs({"A": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d2": 2, "d5": 1}},
    ...                        "B": {"q1": {"d5": 2, "d1": 1}, "q2": {"d4": 2, "d2": 1}}}, qrels)
    >>> cb.ap_acceleration(runs).shape
    (2, 2)
    """
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
    """Linear, logit and BCa intervals (paper section 5) from replicates along the last axis.

    Linear, logit and BCa intervals (paper section 5) from replicates along the last axis:
    ``estimate`` (...) and ``replicates`` (..., B), e.g. ``(systems, topics)`` and
    ``(systems, topics, B)``.

    linear: ``AP +/- z sd(AP*)`` (not clipped to [0, 1], as in the paper); logit:
    ``expit(logit AP +/- z sd(logit AP*))`` with 0/1 replaced by eps/1-eps (and a limit at or
    beyond eps / 1 - eps read back as 0 / 1, so that AP = 0 with sd 0 gives [0, eps]); bca:
    :func:`irrepro.stats.bca_interval` with acceleration ``accel`` (0 if None: plain bias-corrected BC).
    Replicates that are NaN (R* = 0) are ignored; the sd uses ddof = 1. ``level``: a fraction or
    a percentage (:func:`irrepro.stats.check_level`).

    Parameters
    ----------
    estimate : array_like
        AP (...).
    replicates : numpy.ndarray
        Its replicates (..., B).
    methods : sequence of str
        Of ``"linear"``, ``"logit"``, ``"bca"``.
    accel : array_like or None
        The BCa acceleration (None: 0).
    eps : float
        The logit's clipping of 0 and 1.
    level : float
        The confidence level.

    Returns
    -------
    dict
        ``{method: Intervals}``.

    Examples
    --------
    >>> import numpy as np
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


def ap_intervals(
    runs: RunSet | Lists,
    B: int = 2000,
    seed: parallel.SeedLike = None,
    methods: Sequence[str] = METHODS,
    *,
    rel: int = 1,
    eps: float = EPS,
    small_r: bool = False,
    n_jobs: int | None = None,
) -> dict[str, Intervals]:
    """Corpus-bootstrap intervals of every list's AP, one :class:`Intervals` per method.

    Corpus-bootstrap 95% intervals of every list's AP, one :class:`Intervals` per method, each
    of shape ``Lists.shape`` (``(systems, topics)`` for a RunSet). ``small_r=True`` applies the section-7 correction (:func:`small_r_correct`) to linear and logit
    (keys ``"linear+smallR"``, ``"logit+smallR"``).

    Parameters
    ----------
    runs : irrepro.data.RunSet or Lists
        The ranked lists.
    B : int
        Bootstrap samples.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The seed (:data:`irrepro.parallel.SeedLike`); None is refused.
    methods : sequence of str
        Of ``"linear"``, ``"logit"``, ``"bca"``.
    rel : int
        The lowest relevant grade.
    eps : float
        The logit's clipping of 0 and 1.
    small_r : bool
        Add the small-R corrected linear and logit intervals.
    n_jobs : int or None
        Workers (the values do not depend on them).

    Returns
    -------
    dict
        ``{method: Intervals}``, each of shape ``Lists.shape``.

    Notes
    -----
    Cormack & Lynam (2006), sections 5 and 7.

    Examples
    --------
    >>> from irrepro import data, corpus_bootstrap as cb
    >>> qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1, "d9": 1}, "q2": {"d2": 1, "d4": 1}})
    >>> runs = data.load_runs({"A": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d2": 2, "d5": 1}},
    ...                        "B": {"q1": {"d5": 2, "d1": 1}, "q2": {"d4": 2, "d2": 1}}}, qrels)
    >>> iv = cb.ap_intervals(runs, B=200, seed=1)
    >>> sorted(iv), iv["logit"].lower.shape
    (['bca', 'linear', 'logit'], (2, 2))
    """
    lists = _lists_of(runs, rel)
    reps = bootstrap_ap(lists, B, seed, n_jobs=n_jobs)
    ap = lists.ap.reshape(lists.shape)
    accel = ap_acceleration(lists).reshape(lists.shape) if "bca" in methods else None
    out = intervals_from_replicates(ap, reps, methods, accel=accel, eps=eps)
    if small_r:  # the corrected linear and logit intervals replace the plain ones
        out = _with_small_r(out, lists.n_rel.reshape(lists.shape), lists.length.reshape(lists.shape))
        out = {m: iv for m, iv in out.items() if m not in ("linear", "logit")}
    return out
