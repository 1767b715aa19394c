"""trec_eval's experimental gain measures on a block of ranked lists, for the kernel
(:mod:`irrepro.measures.kernel`): ``G`` (m_G.c), ``ndcg_rel`` (m_ndcg_rel.c) and ``Rndcg``
(m_Rndcg.c) of trec_eval 10, each as its C loop computes it, vectorised over the block's lists.

Gains are the measure's (grade -> gain, the grade itself by default, as nDCG's); the ideal list
is the topic's positive gains in decreasing order (trec_eval walks its gain levels from the
largest gain down, which is the same list)."""

from __future__ import annotations

import numpy as np

from .._measure_names import Measure
from ._block_context import _Context, _safe_div


def _run_dcg(gain: np.ndarray, ctx: _Context) -> np.ndarray:
    """(n, k) cumulative DCG of the block's lists: sum over ranks <= j + 1 of gain / log2(rank + 1)."""
    return np.cumsum(gain * ctx.disc("log2", gain.shape[1]), axis=1)


def _ideal_dcg_at(ideal, ctx: _Context, topics: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The ideal DCG of ``topics`` over its first ``cols + 1`` ranks (all of it past its end)."""
    disc = ctx.disc("log2", int(ideal.length.max(initial=0)))
    return ideal.cum_at("dcg", lambda: ideal.flat * disc[ideal.pos], topics, cols)


def gain_g(s: Measure, ctx: _Context) -> np.ndarray:
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


def gain_ndcg_rel(s: Measure, ctx: _Context) -> np.ndarray:
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


def gain_rndcg(s: Measure, ctx: _Context) -> np.ndarray:
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
