"""The kernel: one function per measure family (:data:`_KERNELS`) scoring a block of ranked lists at
once as trec_eval's loops do (:class:`_Context`: what they share); ``score_grades`` for dense grades."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from .._measure_names import Measure, gain_pairs, parse_measure
from ..data import PAD
from ..errors import InputError
from .aggregates import GM_EPSILON
from .judgments import _Gains, _Judgments, _memo

# numbers of list cells (lists x ranks) handled at once: bounds the temporaries' memory
_CHUNK_CELLS = 1 << 17

# in a block, a retrieved document whose qrels grade is negative (pooled but unjudged); every
# measure but infAP treats it as UNJUDGED
_POOLED = -3

# ERR (gdeval.pl): stop probability (2**g - 1) / 2**_ERR_MAX_GRADE, grades up to _ERR_MAX_GRADE
_ERR_MAX_GRADE = 4


class _Context:
    """What the measures' functions take."""

    def __init__(self, judg: _Judgments, gains):
        self.judg = judg
        self.gains = _Gains(gain_pairs(gains))
        self._gains: dict = {None: self.gains}
        self._cache: dict = {}
        self.max_rank = 1

    def start(self, g: np.ndarray, t: np.ndarray) -> None:
        """Score the block of (n, k) grades ``g`` of topics ``t`` next (a column of PAD when k = 0)."""
        n, k = g.shape
        if k == 0:
            g, k = np.full((n, 1), PAD, dtype=np.int8), 1
        self.max_rank = max(self.max_rank, k)
        self.g, self.t, self.n, self.k = g, t, n, k
        self.ranks = np.arange(1, k + 1, dtype=np.float64)
        self._block: dict = {}

    def once(self, key, fn):  # of the block, computed once
        return _memo(self._block, key, fn)

    def R(self, r) -> np.ndarray:  # each list's topic's number of relevant documents
        return self.n_rel(r)[self.t]

    def length(self) -> np.ndarray:
        return self.once("L", lambda: (self.g != PAD).sum(axis=1))

    def hits(self, r) -> _Hits:
        return self.once(("hits", r), lambda: _Hits(self.g >= r))

    def top(self, r, c) -> np.ndarray:  # relevant documents in the top c: from the positions if at hand
        if ("hits", r) in self._block or c >= self.k:
            return self.hits(r).upto(c)
        return (self.g[:, :c] >= r).sum(axis=1)

    def gain_sum(self, gm: _Gains, disc, c=None) -> np.ndarray:  # sum of gain x disc[rank - 1] (top c)
        h = self.once("pos", lambda: _Hits(self.g > 0))  # every document that can have a gain
        gain = self.once(("gain", gm.pairs), lambda: gm(self.g[h.rows, h.cols]))
        return h.sum(gain * disc[h.cols] if disc is not None else gain, c)

    def count_above(self, mask_fn, key, h: _Hits) -> np.ndarray:  # per hit: mask cells above it
        return self.once(key, lambda: np.cumsum(mask_fn(), axis=1, dtype=np.int32))[h.rows, h.cols]

    def iprec(self, r, level) -> np.ndarray:  # trec_eval 9.0.8: at the (long)(level R + 0.9)-th hit
        g, h = self.g, self.hits(r)
        curve = self.once(("ip", r), lambda: np.maximum.accumulate(
            (np.cumsum(g >= r, axis=1, dtype=np.int32) / self.ranks)[:, ::-1], axis=1)[:, ::-1])  # fmt: skip
        c = np.floor(level * self.R(r) + 0.9)
        ok = (c <= h.count) & (h.count > 0)
        nth = np.where(ok, np.maximum(c, 1), 1).astype(np.int64)
        if not len(h.cols):
            return np.zeros(self.n)
        col = h.cols[np.minimum(h.first + nth - 1, len(h.cols) - 1)]
        return np.where(ok, curve[np.arange(self.n), col], 0.0)

    def gain_of(self, spec: Measure) -> _Gains:
        return _memo(self._gains, spec.gains, lambda: _Gains(spec.gains))

    def topic(self, key, fn):  # a per-topic (T,) array, computed once
        return _memo(self._cache, key, fn)

    def disc(self, kind: str, n: int) -> np.ndarray:
        n = max(n, 1)
        key = ("disc", kind)
        if key not in self._cache or len(self._cache[key]) < n:
            r = np.arange(1, max(n, 2 * self.max_rank) + 1, dtype=np.float64)
            self._cache[key] = (
                1.0 / np.log2(r + 1.0) if kind == "log2" else np.where(r <= 2, 1.0, 1.0 / np.maximum(np.log2(r), 1.0))
            )  # fmt: skip
        return self._cache[key][:n]

    def n_rel(self, rel):
        return self.topic(("R", rel), lambda: self.judg.n_rel(rel))

    def ideal_norm(self, spec: Measure, kind: str) -> np.ndarray:
        """Per topic: the ideal DCG (``"log2"``, ``"sakai"``) or ideal cg (``"cg"``) at the cutoff."""
        gains = self.gain_of(spec)

        def compute():
            ideal = self.judg.ideal(gains)
            length = int(ideal.length.max(initial=0))
            if kind == "cg":
                return ideal.normaliser(np.ones(max(length, 1)), spec.cutoff)
            return ideal.normaliser(self.disc(kind, length), spec.cutoff)

        return self.topic(("norm", kind, spec.cutoff, gains.pairs), compute)


def _safe_div(num, den):
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    return np.divide(num, den, out=np.zeros(num.shape, dtype=np.float64), where=den > 0)


class _Hits:
    """The relevant documents of a block's lists at one relevance level, as positions."""

    def __init__(self, relb: np.ndarray):
        n = relb.shape[0]
        self.rows, self.cols = np.nonzero(relb)
        self.count = np.bincount(self.rows, minlength=n)
        self.first = np.r_[0, np.cumsum(self.count)[:-1]]
        self.nth = np.arange(1, len(self.rows) + 1) - self.first[self.rows]
        self.n, self.k = relb.shape

    def sum(self, weights, below=None) -> np.ndarray:  # per row, of the hits (above rank ``below``)
        if below is None or below >= self.k:
            return np.bincount(self.rows, weights=weights, minlength=self.n)
        keep = self.cols < below
        return np.bincount(self.rows[keep], weights=weights[keep], minlength=self.n)

    def upto(self, c: int) -> np.ndarray:  # relevant documents in the top c of each row
        return np.bincount(self.rows[self.cols < c], minlength=self.n)


def average_precision(relevant: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Average precision of ranked lists (trec_eval's ``map``; Sakai's AveP, Sec. 2.1)."""
    relevant = np.asarray(relevant, dtype=bool)
    k = relevant.shape[-1]
    hits = np.cumsum(relevant, axis=-1, dtype=np.int32)
    prec = np.where(relevant, hits / np.arange(1, k + 1, dtype=np.float64), 0.0).sum(axis=-1)
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.float64), prec.shape)
    return np.divide(prec, n_rel, out=np.zeros_like(prec), where=n_rel > 0)


def _ap(s: Measure, ctx: _Context) -> np.ndarray:  # and SP = AP x R
    h = ctx.hits(s.rel)  # the sum of precisions at the relevant ranks
    ps = h.sum(ctx.once(("prec", s.rel), lambda: h.nth / (h.cols + 1.0)), s.cutoff)
    return ps if s.family == "SP" else _safe_div(ps, ctx.R(s.rel))


def _in_top(s: Measure, ctx: _Context) -> np.ndarray:  # P, PDoc, R, Success, relative_P (m_rel_P.c)
    got = ctx.top(s.rel, s.cutoff)
    if s.family == "R":
        return _safe_div(got, ctx.R(s.rel))
    if s.family == "Success":
        return (got > 0).astype(np.float64)
    assert s.cutoff is not None  # parse_measure gives P, PDoc and relative_P a cutoff
    if s.family == "relative_P":
        return _safe_div(got, np.minimum(s.cutoff, ctx.R(s.rel)))
    return got / float(s.cutoff)


def _rr(s: Measure, ctx: _Context) -> np.ndarray:
    h, k = ctx.hits(s.rel), ctx.k
    first = h.cols[np.minimum(h.first, len(h.cols) - 1)] if len(h.cols) else np.zeros(ctx.n, np.int64)
    first = np.where(h.count > 0, first, k)
    return np.where(first < (k if s.cutoff is None else s.cutoff), 1.0 / (first + 1.0), 0.0)


def _bpref(s: Measure, ctx: _Context) -> np.ndarray:
    """m_bpref.c: (1/R) sum over retrieved relevant of 1 - min(n, R) / min(R, N)."""
    r, g = s.rel, ctx.g
    assert r is not None  # parse_measure gives Bpref its relevance level
    h, R, N = ctx.hits(r), ctx.R(r), ctx.topic(("N", r), lambda: ctx.judg.n_nonrel(r))[ctx.t]
    above = ctx.count_above(lambda: (g >= 0) & (g < r), ("nonrel", r), h)
    Rh, cap = R[h.rows], np.minimum(R, N)[h.rows]
    frac = np.divide(np.minimum(above, Rh), cap, out=np.zeros(len(above)), where=cap > 0)
    return _safe_div(h.sum(np.where(above > 0, 1.0 - frac, 1.0)), R)


def _infap(s: Measure, ctx: _Context) -> np.ndarray:
    r, g, h = s.rel, ctx.g, ctx.hits(s.rel)
    nonrel = ctx.count_above(lambda: (g >= 0) & (g < r), ("nonrel", r), h)
    pooled = ctx.count_above(lambda: g == _POOLED, "pooled", h) if (g == _POOLED).any() else 0
    return _safe_div(h.sum(_infap_terms(h.cols, h.nth, nonrel, pooled)), ctx.R(r))


def _dcg(s: Measure, ctx: _Context) -> np.ndarray:  # nDCG, DCG (gains of their own), nDCG_sakai, nCG
    kind = _DISCOUNTS[s.family]
    gains = ctx.gain_of(s) if kind == "log2" else ctx.gains
    dcg = ctx.gain_sum(gains, None if kind == "cg" else ctx.disc(kind, ctx.k), s.cutoff)
    return dcg if s.family == "DCG" else _safe_div(dcg, ctx.ideal_norm(s, kind)[ctx.t])


_DISCOUNTS = {"nDCG": "log2", "DCG": "log2", "nDCG_sakai": "sakai", "nCG": "cg"}


def _q(s: Measure, ctx: _Context) -> np.ndarray:
    """BR(r) = (count(r) + beta cg(r)) / (r + beta cg_I(r)), beta = 1, at relevant ranks."""
    h = ctx.hits(s.rel)
    gfull = ctx.once("gain_full", lambda: ctx.gains(ctx.g))
    cg = ctx.once("cg", lambda: np.cumsum(gfull, axis=1))[h.rows, h.cols]
    ideal = ctx.judg.ideal(ctx.gains)
    cg_ideal = ideal.cum_at("cg", lambda: ideal.flat, ctx.t[h.rows], h.cols)
    return _safe_div(h.sum((h.nth + cg) / (h.cols + 1.0 + cg_ideal)), ctx.R(s.rel))


def _rbp(s: Measure, ctx: _Context) -> np.ndarray:
    assert s.p is not None  # parse_measure gives RBP its p
    c, w = s.cutoff, (1.0 - s.p) * s.p ** (ctx.ranks - 1.0)
    if s.rel is None:  # graded: a topic's gains over its largest gain when above 1 (m_rbp.c)
        top = ctx.topic(("rbp", ctx.gains.pairs), lambda: ctx.gains.max_upto(ctx.judg.max_grade))
        return ctx.gain_sum(ctx.gains, w, c) / np.where(top > 1.0, top, 1.0)[ctx.t]
    h = ctx.hits(s.rel)
    return h.sum(w[h.cols], c)


def _err(s: Measure, ctx: _Context) -> np.ndarray:
    kk = ctx.k if s.cutoff is None else min(s.cutoff, ctx.k)
    stop = (np.exp2(np.clip(ctx.g[:, :kk], 0, None).astype(np.float64)) - 1.0) / 2.0**_ERR_MAX_GRADE
    reach = np.cumprod(1.0 - stop, axis=1)
    reach = np.hstack([np.ones((ctx.n, 1)), reach[:, :-1]])
    return (stop * reach / ctx.ranks[:kk]).sum(axis=1)


def _judged(s: Measure, ctx: _Context) -> np.ndarray:
    c, L = s.cutoff, ctx.length()
    cut = L if c is None else np.minimum(L, c)
    return _safe_div((ctx.g[:, : (ctx.k if c is None else min(c, ctx.k))] >= 0).sum(axis=1), cut)


def _count(s: Measure, ctx: _Context) -> np.ndarray:  # NumQ, NumRel, NumRet
    if s.family == "NumQ":
        return np.ones(ctx.n)
    if s.family == "NumRel":
        return ctx.R(s.rel).astype(np.float64)
    return (ctx.length() if s.rel is None else ctx.hits(s.rel).count).astype(np.float64)


def _iprec(s: Measure, ctx: _Context) -> np.ndarray:  # and 11pt_avg, over the 11 levels 0, 0.1, ..., 1
    if s.family == "IPrec":
        return ctx.iprec(s.rel, s.recall)
    return sum((ctx.iprec(s.rel, x / 10) for x in range(11)), np.zeros(ctx.n)) / 11.0


def _set(s: Measure, ctx: _Context) -> np.ndarray:
    got, L, R = ctx.hits(s.rel).count, ctx.length(), ctx.R(s.rel)
    P, Rc = _safe_div(got, L), _safe_div(got, R)
    if s.family == "SetP":
        return _safe_div(got, np.minimum(L, R)) if s.relative else P
    if s.family == "SetR":
        return Rc
    if s.family == "SetF":
        assert s.beta is not None  # parse_measure gives SetF its beta
        return np.where(got > 0, _safe_div((s.beta + 1.0) * P * Rc, s.beta * P + Rc), 0.0)
    return P * Rc


# Rprec, and m_Rprec_mult.c: P at rank (long)(mult R + 0.9) (R itself for Rprec)
def _rprec(s: Measure, ctx: _Context) -> np.ndarray:
    h, R = ctx.hits(s.rel), ctx.R(s.rel)
    cut = R if s.mult is None else np.floor(s.mult * R + 0.9)
    return _safe_div(np.bincount(h.rows, weights=h.cols < cut[h.rows], minlength=ctx.n), cut)


# m_utility.c (its fourth weight, of cell d, needs -N: not offered)
def _utility(s: Measure, ctx: _Context) -> np.ndarray:
    assert s.weights is not None  # parse_measure gives utility its weights
    got, R = ctx.hits(s.rel).count, ctx.R(s.rel)
    return s.weights[0] * got + s.weights[1] * (ctx.length() - got) + s.weights[2] * (R - got)


# m_binG.c: 1 / log2(2 + documents not relevant above), over R
def _bin_g(s: Measure, ctx: _Context) -> np.ndarray:
    h = ctx.hits(s.rel)
    return _safe_div(h.sum(1.0 / np.log2(2.0 + h.cols - (h.nth - 1))), ctx.R(s.rel))


def _num_nonrel_judged_ret(s: Measure, ctx: _Context) -> np.ndarray:
    return ((ctx.g >= 0) & (ctx.g < s.rel)).sum(axis=1).astype(np.float64)


# m_unjudged.c: unjudged in the top k / k
def _unj(s: Measure, ctx: _Context) -> np.ndarray:
    assert s.cutoff is not None  # parse_measure gives unj a cutoff
    top = ctx.g[:, : s.cutoff]
    return ((top < 0) & (top != PAD)).sum(axis=1) / float(s.cutoff)


# m_rbp_resid.c: (1 - p) sum of p**(i-1) over the unjudged ranks i, + p**L; 0 for a list without unjudged documents
def _rbp_resid(s: Measure, ctx: _Context) -> np.ndarray:
    assert s.p is not None  # parse_measure gives rbp_resid its p
    g = ctx.g
    unjudged = (g < 0) & (g != PAD)
    w = (1.0 - s.p) * s.p ** np.arange(g.shape[-1], dtype=np.float64)
    resid = (unjudged * w).sum(axis=-1) + s.p ** ctx.length().astype(np.float64)
    return np.where(unjudged.any(axis=1), resid, 0.0)


# trec_eval 10's experimental gain measures, each as its C loop computes it: gains are the measure's,
# the ideal list the topic's positive gains in decreasing order (trec_eval walks its gain levels from
# the largest gain down, the same list)
def _run_dcg(gain: np.ndarray, ctx: _Context) -> np.ndarray:
    """(n, k) cumulative DCG of the block's lists: sum over ranks <= j + 1 of gain / log2(rank + 1)."""
    return np.cumsum(gain * ctx.disc("log2", gain.shape[1]), axis=1)


def _ideal_dcg_at(ideal, ctx: _Context, topics: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The ideal DCG of ``topics`` over its first ``cols + 1`` ranks (all of it past its end)."""
    disc = ctx.disc("log2", int(ideal.length.max(initial=0)))
    return ideal.cum_at("dcg", lambda: ideal.flat * disc[ideal.pos], topics, cols)


def _g(s: Measure, ctx: _Context) -> np.ndarray:
    """m_G.c: sum of gain / log2(2 + cost(i) - cg(i)) over retrieved documents, over the ideal gain."""
    t, gains = ctx.t, ctx.gain_of(s)
    gain = gains(ctx.g)
    ideal = ctx.judg.ideal(gains)
    rows, cols = np.nonzero(gain != 0)
    tr = t[rows]
    cg = np.cumsum(gain, axis=1)[rows, cols]
    cost = ideal.cum_at("cost", lambda: np.maximum(ideal.flat, 1.0), tr, cols)
    cost = cost + np.maximum(cols + 1 - ideal.length[tr], 0)
    total = np.bincount(rows, weights=gain[rows, cols] / np.log2(2.0 + cost - cg), minlength=ctx.n)
    return _safe_div(total, ctx.ideal_norm(s, "cg")[t])


def _ndcg_rel(s: Measure, ctx: _Context) -> np.ndarray:
    """m_ndcg_rel.c: nDCG averaged over the topic's documents with a positive gain."""
    t, n, gains = ctx.t, ctx.n, ctx.gain_of(s)
    gain = gains(ctx.g)
    ideal = ctx.judg.ideal(gains)
    dcg = _run_dcg(gain, ctx)
    rows, cols = np.nonzero(gain > 0)
    at_rel = dcg[rows, cols] / _ideal_dcg_at(ideal, ctx, t[rows], cols)
    found = np.bincount(rows, minlength=n)
    L = ideal.length[t]
    full = ctx.ideal_norm(s, "log2")[t]
    with np.errstate(divide="ignore", invalid="ignore"):  # (no ideal gain: NaN, then 0, as there)
        total = np.bincount(rows, weights=at_rel, minlength=n) + (L - found) * dcg[:, -1] / full
        return np.where(total > 0, total / np.maximum(L, 1), 0.0)


def _rndcg_points(ideal, ctx: _Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per topic, the ranks c where the ideal gain changes."""
    flat, pos, topic = ideal.flat, ideal.pos, ideal.topic_of
    nxt = np.r_[flat[1:], 0.0]
    last = pos == ideal.length[topic] - 1
    change = last | (nxt != flat)
    ranks = pos[change] + 1
    count = np.bincount(topic[change], minlength=ideal.T)
    return count, np.r_[0, np.cumsum(count)[:-1]], ranks


def _rndcg(s: Measure, ctx: _Context) -> np.ndarray:
    """m_Rndcg.c: the mean of nDCG@c over the ranks c where the ideal gain changes."""
    t, n, k, gains = ctx.t, ctx.n, ctx.k, ctx.gain_of(s)
    gain = gains(ctx.g)
    ideal = ctx.judg.ideal(gains)
    count, first, ranks = ctx.topic(("rndcg", gains.pairs), lambda: _rndcg_points(ideal, ctx))
    dcg = _run_dcg(gain, ctx)
    per_row = count[t]
    rows = np.repeat(np.arange(n), per_row)
    offset = np.arange(len(rows)) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    c = ranks[np.repeat(first[t], per_row) + offset]
    ratio = dcg[rows, np.minimum(c, k) - 1] / _ideal_dcg_at(ideal, ctx, t[rows], c - 1)
    total = np.bincount(rows, weights=ratio, minlength=n)
    full = ctx.ideal_norm(s, "log2")[t]
    extra = (ctx.length() > ideal.length[t] + 1) & (full > 0)
    total = total + np.where(extra, _safe_div(dcg[:, -1], full), 0.0)
    points = per_row + extra
    assert s.rel is not None  # parse_measure gives Rndcg the relevance level
    return np.where(ctx.R(s.rel) > 0, _safe_div(total, points), 0.0)


#: family -> its function of (measure, context), which scores the lists of the context's block
_KERNELS: dict[str, Callable[[Measure, _Context], np.ndarray]] = {
    "AP": _ap, "SP": _ap, "P": _in_top, "PDoc": _in_top, "R": _in_top, "Success": _in_top, "Rprec": _rprec,
    "RR": _rr, "Bpref": _bpref, "infAP": _infap, "nDCG": _dcg, "DCG": _dcg, "nDCG_sakai": _dcg, "nCG": _dcg,
    "Q": _q, "RBP": _rbp, "ERR": _err, "Judged": _judged, "NumRet": _count, "NumRel": _count,
    "NumQ": _count, "IPrec": _iprec, "11pt_avg": _iprec, "SetP": _set, "SetR": _set, "SetF": _set,
    "SetAP": _set, "relative_P": _in_top, "Rprec_mult": _rprec, "utility": _utility, "binG": _bin_g,
    "num_nonrel_judged_ret": _num_nonrel_judged_ret, "unj": _unj, "rbp_resid": _rbp_resid, "G": _g,
    "ndcg_rel": _ndcg_rel, "Rndcg": _rndcg,
}  # fmt: skip


def _infap_terms(cols, nth, nonrel, pooled):
    """trec_eval's infAP terms (m_infap.c), one per relevant document by rank."""
    fj = cols.astype(np.float64)
    prev = nth - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((prev + nonrel + pooled) / fj) * (
            (prev + GM_EPSILON) / (prev + nonrel + 2 * GM_EPSILON)
        )
    return np.where(cols == 0, 1.0, term)


def _check_err(judg: _Judgments, topics: Sequence[str]) -> None:
    bad = np.flatnonzero(judg.grade > _ERR_MAX_GRADE)
    if len(bad):
        i = int(bad[0])
        raise InputError(
            f"ERR follows TREC Web's gdeval.pl: grades 0..{_ERR_MAX_GRADE}, stop probability "
            f"(2**grade - 1) / 2**{_ERR_MAX_GRADE}; topic {topics[judg.topic[i]]!r} has grade "
            f"{int(judg.grade[i])}"
        )


def _run_kernel(blocks: Iterable, T: int, specs: Sequence[Measure], judg: _Judgments, gains,
                n_lists: int, fix=None) -> tuple[dict, np.ndarray]:  # fmt: skip
    ctx = _Context(judg, gains)
    out = {s.name: np.zeros(n_lists, dtype=np.float64) for s in specs}
    retrieved = np.zeros(n_lists, dtype=bool)
    for index, block in blocks:
        index = np.asarray(index, dtype=np.int64)
        if fix is not None:
            block = fix(index, block)
        if block.shape[1]:
            retrieved[index] = block[:, 0] != PAD
        ctx.start(block, index % T)
        for s in specs:
            out[s.name][index] = _KERNELS[s.family](s, ctx)
    return out, retrieved


def _specs(measures, rel) -> tuple[list, list[Measure]]:
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 1):
        raise InputError(f"rel must be an integer >= 1 (a relevance level), got {rel!r}")
    keys = list(dict.fromkeys(measures))
    parsed = [parse_measure(m, rel=None if rel is None else int(rel)) for m in keys]
    unique = list({s.name: s for s in parsed}.values())
    return list(zip(keys, parsed)), unique


def score_grades(
    grades: np.ndarray,
    grade_counts: np.ndarray,
    measures: Sequence[str],
    *,
    rel: int = 1,
    gains: Mapping[int, float] | Sequence[float] | None = None,
) -> dict[str, np.ndarray]:
    """Score a dense (S, T, K) block of grades, given the judged ``grade_counts`` (T, G + 1) per topic."""
    grades = np.asarray(grades)
    if grades.ndim != 3:
        raise InputError(f"grades must be (runs, topics, ranks), got shape {grades.shape}")
    grade_counts = np.asarray(grade_counts, dtype=np.int64)
    S, T, K = grades.shape
    if grade_counts.ndim != 2 or grade_counts.shape[0] != T:
        raise InputError(f"grade_counts must be (topics={T}, grades), got {grade_counts.shape}")
    if rel < 1:
        raise InputError(f"rel must be >= 1 (a relevance level), got {rel}")
    if grades.size and int(grades.min()) < PAD:
        raise InputError(f"grades below {PAD} (PAD): {int(grades.min())}; use UNJUDGED = -1 / PAD = -2")
    if (grade_counts < 0).any():
        raise InputError("grade_counts must be >= 0")
    pairs, specs = _specs(measures, rel)
    judg = _Judgments.from_counts(grade_counts)
    if any(s.family == "ERR" for s in specs):
        _check_err(judg, [str(i) for i in range(T)])
    flat = grades.reshape(S * T, K)
    step = max(1, _CHUNK_CELLS // max(K, 1))
    blocks = ((np.arange(i, min(i + step, S * T)), flat[i : i + step]) for i in range(0, S * T, step))
    out, _ = _run_kernel(blocks, T, specs, judg, gains, S * T)
    return {key: out[s.name].reshape(S, T) for key, s in pairs}
