"""The kernel: every measure of one block of ranked lists at once, list by list, summing over the
positions of the relevant (or positive-gain) documents in rank order as trec_eval's loops do; the
single-purpose kernels :func:`average_precision` and :func:`rbp_residual`; :func:`score_grades`
for dense arrays of grades."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..data import PAD, UNJUDGED, RunSet
from ..errors import InputError
from ._block_context import _Context, _Hits, _safe_div
from ._gain_curves import GAIN_CURVES
from .aggregates import GM_EPSILON
from .judgments import _Judgments
from .names import Measure, parse_measure

__all__ = ["average_precision", "rbp_residual", "score_grades"]

# numbers of list cells (lists x ranks) handled at once: bounds the temporaries' memory
_CHUNK_CELLS = 1 << 17

# in a block, a retrieved document whose qrels grade is negative (pooled but unjudged); every
# measure but infAP treats it as UNJUDGED
_POOLED = -3

# ERR (gdeval.pl): stop probability (2**g - 1) / 2**_ERR_MAX_GRADE, grades up to _ERR_MAX_GRADE
_ERR_MAX_GRADE = 4


# --------------------------------------------------------------------------------------------
# public single-purpose kernels
# --------------------------------------------------------------------------------------------


def average_precision(relevant: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Average precision of ranked lists (trec_eval's ``map``; Sakai's AveP, Sec. 2.1).

    ``relevant`` is boolean ``(..., K)`` (rank axis last, padding False); ``n_rel`` is the number
    of relevant documents R, broadcastable to ``relevant.shape[:-1]``. AP = (1/R) sum over relevant
    ranks r of precision@r; 0 when R = 0.

    Parameters
    ----------
    relevant : numpy.ndarray
        Boolean ``(..., K)``: whether the document at each rank is relevant (rank axis last,
        padding False).
    n_rel : numpy.ndarray
        The number of relevant documents R, broadcastable to ``relevant.shape[:-1]``.

    Returns
    -------
    numpy.ndarray
        AP, shaped ``relevant.shape[:-1]``.

    Notes
    -----
    Sakai (2006), section 2.1 (AveP); Cormack & Lynam (2006) bootstrap it (section 4).

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.measures import average_precision
    >>> average_precision(np.array([[True, False, True], [False, False, False]]), np.array([2, 0]))
    array([0.83333333, 0.        ])
    """
    relevant = np.asarray(relevant, dtype=bool)
    k = relevant.shape[-1]
    hits = np.cumsum(relevant, axis=-1, dtype=np.int32)
    prec = np.where(relevant, hits / np.arange(1, k + 1, dtype=np.float64), 0.0).sum(axis=-1)
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.float64), prec.shape)
    return np.divide(prec, n_rel, out=np.zeros_like(prec), where=n_rel > 0)


def rbp_residual(grades: RunSet | np.ndarray, p: float) -> np.ndarray:
    """The RBP residual (Moffat & Zobel 2008, Sec. 4; trec_eval's ``rbp_resid``).

    The RBP residual (Moffat & Zobel 2008, Sec. 4; trec_eval's ``rbp_resid``): the most RBP
    could still rise if every unjudged document retrieved, and every document past the end of the
    list, were relevant: ``(1 - p) * sum over unjudged ranks i of p**(i-1) + p**L`` (L the list
    length).

    ``grades`` is a RunSet or an int array ``(..., K)`` with ``UNJUDGED``/``PAD`` codes; returns
    ``(...)`` (``(S, T)`` for a RunSet). RBP + residual is the upper bound of the RBP interval.

    Parameters
    ----------
    grades : irrepro.data.RunSet or numpy.ndarray
        A RunSet, or an int array ``(..., K)`` of grades with ``UNJUDGED`` / ``PAD`` codes.
    p : float
        RBP's persistence.

    Returns
    -------
    numpy.ndarray
        The residual, ``(...)`` (``(S, T)`` for a RunSet).

    Examples
    --------
    One unjudged document at rank 2 of a list of 2, p = 0.5: ``0.5 * 0.5 + 0.5 ** 2``.

    >>> import numpy as np
    >>> from irrepro.data import UNJUDGED
    >>> from irrepro.measures import rbp_residual
    >>> rbp_residual(np.array([[1, UNJUDGED]]), 0.5)
    array([0.5])
    """
    if not 0.0 < p < 1.0:
        raise InputError("RBP's persistence p must be in (0, 1)")
    if isinstance(grades, RunSet):
        S, T = len(grades.runs), len(grades.topics)
        out = np.zeros(S * T)
        for index, block in _blocks(grades):
            out[index] = rbp_residual(block, p)
        return out.reshape(S, T)
    g = np.asarray(grades)
    w = (1.0 - p) * p ** np.arange(g.shape[-1], dtype=np.float64)
    length = (g != PAD).sum(axis=-1)
    unjudged = (g < 0) & (g != PAD)
    return (unjudged * w).sum(axis=-1) + p ** length.astype(np.float64)


# --------------------------------------------------------------------------------------------
# blocks of ranked lists
# --------------------------------------------------------------------------------------------


def _blocks(runset, max_cells: int | None = None, depth: int | None = None):
    """``(index, block)`` pairs covering every list of ``runset`` once (``RunSet.iter_blocks``):
    ``index`` the flat list indices s * T + t, ``block`` (n, k) grades with PAD / UNJUDGED codes."""
    max_cells = _CHUNK_CELLS if max_cells is None else max_cells
    yield from runset.iter_blocks(max_cells=max_cells, depth=depth)


def _pooled_grades(runset, index: np.ndarray, block: np.ndarray, pooled: set, qrels: dict) -> np.ndarray:
    """For infAP: mark the pooled-but-unjudged documents (a negative qrels grade; ``_POOLED``) of
    lists whose topic has any, which the run set stores as UNJUDGED like any unjudged document."""
    T = len(runset.topics)
    t_of = index % T
    rows = np.flatnonzero(np.isin(t_of, list(pooled)))
    if not len(rows):
        return block
    block = block.astype(np.int64)
    for i in rows.tolist():
        s, t = divmod(int(index[i]), T)
        docs = runset.doc_ids(s, t)[: block.shape[1]]
        if not len(docs):
            continue
        judged = qrels[t]
        vals = block[i, : len(docs)]
        in_pool = np.array([judged.get(d, 0) < 0 for d in docs], dtype=bool)
        vals[in_pool & (vals == UNJUDGED)] = _POOLED
    return block


# --------------------------------------------------------------------------------------------
# the block kernel
# --------------------------------------------------------------------------------------------


def _score_block(g: np.ndarray, t: np.ndarray, ctx: _Context, out: dict, index: np.ndarray) -> None:
    """Score the lists of one block: ``g`` (n, k) grades, ``t`` (n,) their topics' indices;
    writes ``out[name][index]`` for every measure of ``ctx.specs``."""
    n, k = g.shape
    if k == 0:
        g = np.full((n, 1), PAD, dtype=np.int8)
        k = 1
    ctx.max_rank = max(ctx.max_rank, k)
    ranks = np.arange(1, k + 1, dtype=np.float64)
    cache: dict = {}

    def get(key, fn):
        if key not in cache:
            cache[key] = fn()
        return cache[key]

    length = lambda: get("L", lambda: (g != PAD).sum(axis=1))  # noqa: E731
    rel_at = lambda r: get(("hits", r), lambda: _Hits(g >= r))  # noqa: E731
    # documents with a positive grade (every one that can have a gain), and their gains
    pos_at = lambda: get("pos", lambda: _Hits(g > 0))  # noqa: E731
    gain_at = lambda gm: get(("gain", gm.pairs), lambda: gm(g[pos_at().rows, pos_at().cols]))  # noqa: E731

    def top(r, c):  # relevant documents in the top c: from the positions if at hand
        if ("hits", r) in cache or c >= k:
            return rel_at(r).upto(c)
        return (g[:, :c] >= r).sum(axis=1)

    def prec_sum(r, c=None):  # sum of precisions at the relevant ranks (within the top c)
        h = rel_at(r)
        w = get(("prec", r), lambda: h.nth / (h.cols + 1.0))
        return h.sum(w) if c is None or c >= k else h.sum(w, h.cols < c)

    def gain_sum(gm, disc, c=None):  # sum of gain x disc[rank - 1] over the top c
        h = pos_at()
        w = gain_at(gm) * disc[h.cols] if disc is not None else gain_at(gm)
        return h.sum(w) if c is None or c >= k else h.sum(w, h.cols < c)

    def count_above(mask_fn, key, h):  # per relevant document: how many mask cells are above it
        cum = get(key, lambda: np.cumsum(mask_fn(), axis=1, dtype=np.int32))
        return cum[h.rows, h.cols]

    def iprec(r, level):  # trec_eval 9.0.8 / pytrec_eval: at the (long)(level R + 0.9)-th relevant
        h = rel_at(r)
        curve = get(("ip", r), lambda: np.maximum.accumulate(
            (np.cumsum(g >= r, axis=1, dtype=np.int32) / ranks)[:, ::-1], axis=1)[:, ::-1])  # fmt: skip
        c = np.floor(level * ctx.n_rel(r)[t] + 0.9)
        ok = (c <= h.count) & (h.count > 0)
        nth = np.where(ok, np.maximum(c, 1), 1).astype(np.int64)
        if not len(h.cols):
            return np.zeros(n)
        col = h.cols[np.minimum(h.first + nth - 1, len(h.cols) - 1)]
        return np.where(ok, curve[np.arange(n), col], 0.0)

    for s in ctx.specs:
        fam, c, r = s.family, s.cutoff, s.rel
        if fam == "AP":
            res = _safe_div(prec_sum(r, c), ctx.n_rel(r)[t])
        elif fam == "SP":
            res = prec_sum(r)
        elif fam in ("P", "PDoc"):
            assert c is not None  # parse_measure gives P and PDoc a cutoff
            res = top(r, c) / float(c)
        elif fam == "R":
            res = _safe_div(top(r, c), ctx.n_rel(r)[t])
        elif fam == "Success":
            res = (top(r, c) > 0).astype(np.float64)
        elif fam == "Rprec":
            h, R = rel_at(r), ctx.n_rel(r)[t]
            res = _safe_div(np.bincount(h.rows, weights=h.cols < R[h.rows], minlength=n), R)
        elif fam == "RR":
            h = rel_at(r)
            first = h.cols[np.minimum(h.first, len(h.cols) - 1)] if len(h.cols) else np.zeros(n, np.int64)
            first = np.where(h.count > 0, first, k)
            res = np.where(first < (k if c is None else c), 1.0 / (first + 1.0), 0.0)
        elif fam == "Bpref":
            # m_bpref.c: (1/R) sum over retrieved relevant documents of 1 - min(n, R) / min(R, N),
            # n the judged non-relevant documents above it, N all of them
            h, R, N = rel_at(r), ctx.n_rel(r)[t], ctx.n_nonrel(r)[t]
            above = count_above(lambda r=r: (g >= 0) & (g < r), ("nonrel", r), h)
            Rh, cap = R[h.rows], np.minimum(R, N)[h.rows]
            frac = np.divide(np.minimum(above, Rh), cap, out=np.zeros(len(above)), where=cap > 0)
            res = _safe_div(h.sum(np.where(above > 0, 1.0 - frac, 1.0)), R)
        elif fam == "infAP":
            h = rel_at(r)
            nonrel = count_above(lambda r=r: (g >= 0) & (g < r), ("nonrel", r), h)
            pooled = count_above(lambda: g == _POOLED, "pooled", h) if (g == _POOLED).any() else 0
            res = _safe_div(h.sum(_infap_terms(h.cols, h.nth, nonrel, pooled)), ctx.n_rel(r)[t])
        elif fam in ("nDCG", "DCG"):
            dcg = gain_sum(ctx.gain_of(s), ctx.disc("log2", k), c)
            res = dcg if fam == "DCG" else _safe_div(dcg, ctx.ideal_norm(s, "log2")[t])
        elif fam == "nDCG_sakai":
            res = _safe_div(gain_sum(ctx.gains, ctx.disc("sakai", k), c), ctx.ideal_norm(s, "sakai")[t])
        elif fam == "nCG":
            res = _safe_div(gain_sum(ctx.gains, None, c), ctx.ideal_norm(s, "cg")[t])
        elif fam == "Q":
            # BR(r) = (count(r) + beta cg(r)) / (r + beta cg_I(r)), beta = 1, at relevant ranks
            h = rel_at(r)
            gfull = get("gain_full", lambda: ctx.gains(g))
            cg = get("cg", lambda gfull=gfull: np.cumsum(gfull, axis=1))[h.rows, h.cols]
            cg_ideal = ctx.judg.ideal(ctx.gains).cg_at(t[h.rows], h.cols)
            res = _safe_div(h.sum((h.nth + cg) / (h.cols + 1.0 + cg_ideal)), ctx.n_rel(r)[t])
        elif fam == "RBP":
            assert s.p is not None  # parse_measure gives RBP its p
            w = (1.0 - s.p) * s.p ** (ranks - 1.0)
            if r is None:  # graded: a topic's gains over its largest gain (when above 1)
                res = gain_sum(ctx.gains, w, c) / ctx.rbp_scale(ctx.gains)[t]
            else:
                h = rel_at(r)
                res = h.sum(w[h.cols]) if c is None or c >= k else h.sum(w[h.cols], h.cols < c)
        elif fam == "ERR":
            kk = k if c is None else min(c, k)
            stop = (np.exp2(np.clip(g[:, :kk], 0, None).astype(np.float64)) - 1.0) / 2.0**_ERR_MAX_GRADE
            reach = np.cumprod(1.0 - stop, axis=1)
            reach = np.hstack([np.ones((n, 1)), reach[:, :-1]])
            res = (stop * reach / ranks[:kk]).sum(axis=1)
        elif fam == "Judged":
            L = length()
            cut = L if c is None else np.minimum(L, c)
            res = _safe_div((g[:, : (k if c is None else min(c, k))] >= 0).sum(axis=1), cut)
        elif fam == "NumRet":
            res = (length() if r is None else rel_at(r).count).astype(np.float64)
        elif fam == "NumRel":
            res = ctx.n_rel(r)[t].astype(np.float64)
        elif fam == "NumQ":
            res = np.ones(n)
        elif fam == "IPrec":
            res = iprec(r, s.recall)
        elif fam == "11pt_avg":
            res = sum(iprec(r, x / 10) for x in range(11)) / 11.0
        elif fam in ("SetP", "SetR", "SetF", "SetAP"):
            got, L, R = rel_at(r).count, length(), ctx.n_rel(r)[t]
            P, Rc = _safe_div(got, L), _safe_div(got, R)
            if fam == "SetP":
                res = _safe_div(got, np.minimum(L, R)) if s.relative else P
            elif fam == "SetR":
                res = Rc
            elif fam == "SetF":
                assert s.beta is not None  # parse_measure gives SetF its beta
                res = np.where(got > 0, _safe_div((s.beta + 1.0) * P * Rc, s.beta * P + Rc), 0.0)
            else:
                res = P * Rc
        elif fam == "relative_P":  # m_rel_P.c
            assert c is not None  # parse_measure gives relative_P a cutoff
            res = _safe_div(top(r, c), np.minimum(c, ctx.n_rel(r)[t]))
        elif fam == "Rprec_mult":  # m_Rprec_mult.c: P at rank (long)(mult R + 0.9)
            assert s.mult is not None  # parse_measure gives Rprec_mult its multiple
            h, cut = rel_at(r), np.floor(s.mult * ctx.n_rel(r)[t] + 0.9)
            res = _safe_div(np.bincount(h.rows, weights=h.cols < cut[h.rows], minlength=n), cut)
        elif fam == "utility":  # m_utility.c (its fourth weight, of cell d, needs -N: not offered)
            assert s.weights is not None  # parse_measure gives utility its weights
            got, R = rel_at(r).count, ctx.n_rel(r)[t]
            res = s.weights[0] * got + s.weights[1] * (length() - got) + s.weights[2] * (R - got)
        elif fam == "binG":  # m_binG.c: 1 / log2(2 + documents not relevant above), over R
            h = rel_at(r)
            res = _safe_div(h.sum(1.0 / np.log2(2.0 + h.cols - (h.nth - 1))), ctx.n_rel(r)[t])
        elif fam == "num_nonrel_judged_ret":
            res = ((g >= 0) & (g < r)).sum(axis=1).astype(np.float64)
        elif fam == "unj":  # m_unjudged.c: unjudged in the top k / k
            assert c is not None  # parse_measure gives unj a cutoff
            res = ((g[:, :c] < 0) & (g[:, :c] != PAD)).sum(axis=1) / float(c)
        elif fam == "rbp_resid":  # m_rbp_resid.c: 0 for a list without unjudged documents
            assert s.p is not None  # parse_measure gives rbp_resid its p
            res = np.where(((g < 0) & (g != PAD)).any(axis=1), rbp_residual(g, s.p), 0.0)
        elif fam in GAIN_CURVES:
            res = GAIN_CURVES[fam](s, g, t, ctx)
        else:  # pragma: no cover - parse_measure guards this
            raise AssertionError(fam)
        out[s.name][index] = res


def _infap_terms(cols, nth, nonrel, pooled):
    """trec_eval's infAP (m_infap.c), per relevant document at rank j = 0, 1, ...: 1 if j = 0,
    else 1/(j+1) + (j/(j+1)) ((rel - 1 + nonrel + pooled)/j) ((rel - 1 + e)/(rel - 1 + nonrel +
    2e)), with rel, nonrel, pooled the relevant (this one included), judged non-relevant and
    pooled-but-unjudged documents at ranks <= j, e = 0.00001 (the sum is then divided by R)."""
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
    ctx = _Context(judg, specs, gains)
    out = {s.name: np.zeros(n_lists, dtype=np.float64) for s in specs}
    retrieved = np.zeros(n_lists, dtype=bool)
    for index, block in blocks:
        index = np.asarray(index, dtype=np.int64)
        if fix is not None:
            block = fix(index, block)
        if block.shape[1]:
            retrieved[index] = block[:, 0] != PAD
        _score_block(block, index % T, ctx, out, index)
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
    """Score a dense block of ranked lists given as grades.

    Score a dense block of ranked lists given as grades (the engine behind :func:`evaluate`,
    for arrays).

    ``grades`` is an int array ``(S, T, K)`` (grade at each rank, ``UNJUDGED`` = -1 for a
    retrieved document without a judgment, ``PAD`` = -2 past the end of the list);
    ``grade_counts`` is ``(T, G + 1)``: judged documents of each grade 0..G per topic (the
    relevant ones need not be retrieved). Returns ``{name: (S, T) float64 array}`` keyed by the
    names given.

    Parameters
    ----------
    grades : numpy.ndarray
        Int ``(S, T, K)`` (see above).
    grade_counts : numpy.ndarray
        ``(T, G + 1)``: judged documents of each grade per topic.
    measures : sequence of str
        Measure names.
    rel : int
        The lowest relevant grade of binary measures.
    gains : mapping or sequence or None
        Grade -> gain of graded measures (None: the grade).

    Returns
    -------
    dict
        ``{name: (S, T) float64 array}``, keyed by the names given.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.data import PAD
    >>> from irrepro.measures import score_grades
    >>> grades = np.array([[[1, 0, 1, PAD]]])            # one run, one topic
    >>> counts = np.array([[5, 2]])                      # 5 non-relevant, 2 relevant judged
    >>> score_grades(grades, counts, ["AP", "P@2"])
    {'AP': array([[0.83333333]]), 'P@2': array([[0.5]])}
    """
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
