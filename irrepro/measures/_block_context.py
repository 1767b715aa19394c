"""What the measures' functions (:data:`irrepro.measures.kernel._KERNELS`) take beyond the
measure: the context of a scoring call (judgments, gains, discounts, normalisers, and the block of
ranked lists being scored), the positions of a block's relevant documents, and division that gives
0 where the divisor is 0."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._measure_names import Measure, gain_pairs
from ..data import PAD
from .judgments import _Gains, _Judgments, _memo


class _Context:
    """What the measures' functions take."""

    def __init__(self, judg: _Judgments, specs: Sequence[Measure], gains):
        self.judg = judg
        self.specs = specs
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

    def prec_sum(self, r, c=None) -> np.ndarray:  # sum of precisions at the relevant ranks (in the top c)
        h = self.hits(r)
        w = self.once(("prec", r), lambda: h.nth / (h.cols + 1.0))
        return h.sum(w, c)

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

    def n_nonrel(self, rel):
        return self.topic(("N", rel), lambda: self.judg.n_nonrel(rel))

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

    def rbp_scale(self, gains: _Gains) -> np.ndarray:
        """Per topic: graded RBP's divisor of gains, the largest gain when above 1, else 1 (m_rbp.c)."""

        def compute():
            top = gains.max_upto(self.judg.max_grade)
            return np.where(top > 1.0, top, 1.0)

        return self.topic(("rbp", gains.pairs), compute)


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
