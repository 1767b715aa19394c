"""What the block kernel (:mod:`irrepro.measures.kernel`) uses beyond a block of grades: the
per-topic context of a scoring call (judgments, gains, discounts, normalisers), the positions of
a block's relevant documents, and division that gives 0 where the divisor is 0."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .judgments import _gain_pairs, _Gains, _Judgments
from .names import Measure


class _Context:
    """What the kernel needs beyond a block: per-topic judgment info, per gain mapping the
    ideal lists, discounts, and per-measure normalisers - all sized by topics or ranks, never by
    grades."""

    def __init__(self, judg: _Judgments, specs: Sequence[Measure], gains):
        self.judg = judg
        self.specs = specs
        self.gains = _Gains(_gain_pairs(gains))
        self._gains: dict = {None: self.gains}
        self._cache: dict = {}
        self.max_rank = 1

    def gain_of(self, spec: Measure) -> _Gains:
        if spec.gains is None:
            return self.gains
        if spec.gains not in self._gains:
            self._gains[spec.gains] = _Gains(spec.gains)
        return self._gains[spec.gains]

    def topic(self, key, fn):
        """A per-topic (T,) array, computed once."""
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

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
        """Per topic: the divisor of graded RBP's gains - the largest gain of the topic's levels
        when it exceeds 1, else 1 (m_rbp.c: gains already within [0, 1] are kept)."""

        def compute():
            top = gains.max_upto(self.judg.max_grade)
            return np.where(top > 1.0, top, 1.0)

        return self.topic(("rbp", gains.pairs), compute)


def _safe_div(num, den):
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    return np.divide(num, den, out=np.zeros(num.shape, dtype=np.float64), where=den > 0)


class _Hits:
    """The relevant documents of a block's lists at one relevance level, as positions: ``rows``,
    ``cols`` (0-based rank) in rank order within each row, ``nth`` (1-based: how many relevant
    documents are at or above it), ``count`` per row, ``first`` index of each row's first one.
    Sums over them with ``np.bincount`` run in rank order, as trec_eval's loops do."""

    def __init__(self, relb: np.ndarray):
        n = relb.shape[0]
        self.rows, self.cols = np.nonzero(relb)
        self.count = np.bincount(self.rows, minlength=n)
        self.first = np.r_[0, np.cumsum(self.count)[:-1]]
        self.nth = np.arange(1, len(self.rows) + 1) - self.first[self.rows]
        self.n = n

    def sum(self, weights, keep=None) -> np.ndarray:
        if keep is None:
            return np.bincount(self.rows, weights=weights, minlength=self.n)
        return np.bincount(self.rows[keep], weights=weights[keep], minlength=self.n)

    def upto(self, c: int) -> np.ndarray:
        """Relevant documents in the top c of each row."""
        return np.bincount(self.rows[self.cols < c], minlength=self.n)
