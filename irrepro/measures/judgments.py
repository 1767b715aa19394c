"""Gains and per-topic judgment information, from the distinct grades of the qrels (no table sized
by the largest grade): grade -> gain mappings, the ideal ranked lists, R and N per topic."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data._columns import _places


class _Gains:
    """Gain of any integer grade: the grade itself (trec_eval's convention) unless ``pairs`` names it."""

    def __init__(self, pairs):
        self.pairs = pairs
        if pairs:
            self.keys = np.array([g for g, _ in pairs], dtype=np.int64)
            self.vals = np.array([v for _, v in pairs], dtype=np.float64)

    def __call__(self, g: np.ndarray) -> np.ndarray:
        out = np.maximum(g, 0).astype(np.float64)
        if self.pairs:
            idx = np.searchsorted(self.keys, g)
            np.minimum(idx, len(self.keys) - 1, out=idx)
            hit = self.keys[idx] == g
            out[hit] = self.vals[idx[hit]]
        return out

    def max_upto(self, top: np.ndarray) -> np.ndarray:
        """Per topic, the largest gain of the levels 0..top (trec_eval's rbp); 0 where top < 1."""
        top = np.asarray(top, dtype=np.int64)
        out = np.maximum(top, 0).astype(np.float64)
        if not self.pairs:
            return out
        named = set(self.keys.tolist())
        for i, m in enumerate(top.tolist()):
            if m < 1:  # (out is 0 there)
                continue
            lvl = m  # the largest level the mapping does not name keeps gain = level
            while lvl in named:
                lvl -= 1
            mask = self.keys <= m
            out[i] = max(float(max(lvl, 0)), float(self.vals[mask].max()) if mask.any() else 0.0)
        return out


class _Ideal:
    """The ideal ranked list of every topic for one gain mapping."""

    def __init__(self, judg: _Judgments, gains: _Gains):
        gain = gains(judg.grade)
        keep = gain > 0
        t, n, gain = judg.topic[keep], judg.count[keep], gain[keep]
        order = np.lexsort((-gain, t))
        t, n, gain = t[order], n[order], gain[order]
        self.flat = np.repeat(gain, n)
        self.topic_of = np.repeat(t, n)
        self.length = np.bincount(t, weights=n, minlength=judg.T).astype(np.int64)
        self.start = np.r_[0, np.cumsum(self.length)[:-1]].astype(np.int64)
        self.pos = np.arange(len(self.flat), dtype=np.int64) - np.repeat(self.start, self.length)
        self.T = judg.T
        self._cum: dict = {}

    def normaliser(self, disc: np.ndarray, cutoff: int | None) -> np.ndarray:
        """Per topic: sum over the ideal list's first ``cutoff`` ranks of gain x disc[rank - 1]."""
        keep = slice(None) if cutoff is None else self.pos < cutoff
        w = self.flat[keep] * disc[self.pos[keep]]
        return np.bincount(self.topic_of[keep], weights=w, minlength=self.T)

    def cum_at(self, key, values, topics: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Cumulative sums of ``values()`` along each topic's ideal list, at 0-based ranks."""
        if key not in self._cum:
            v = np.asarray(values(), dtype=np.float64)
            cum = np.empty_like(v)
            for s, n in zip(self.start.tolist(), self.length.tolist()):
                np.cumsum(v[s : s + n], out=cum[s : s + n])
            self._cum[key] = np.r_[cum, 0.0]  # index len(flat): an empty ideal list's
        length = self.length[topics]
        idx = np.minimum(cols, length - 1) + self.start[topics]
        return self._cum[key][np.where(length > 0, idx, len(self.flat))]


class _Judgments:
    """Per-topic judgment information, from the distinct grades of the qrels (no dense table)."""

    def __init__(self, topic: np.ndarray, grade: np.ndarray, count: np.ndarray, T: int,
                 pooled_topics=()):  # fmt: skip
        self.topic = topic.astype(np.int64)
        self.grade = grade.astype(np.int64)
        self.count = count.astype(np.int64)
        self.T = T
        self.pooled_topics = np.asarray(sorted(pooled_topics), dtype=np.int64)
        self.max_grade = np.full(T, -1, dtype=np.int64)
        np.maximum.at(self.max_grade, self.topic, self.grade)
        self._ideal: dict = {}

    @classmethod
    def from_qrels(cls, qrels, topics: Sequence[str]) -> _Judgments:
        """From a :class:`~irrepro.data.Qrels` (its arrays: no pandas), for ``topics`` in order."""
        same = tuple(topics) == qrels.topics
        lut = np.arange(len(topics), dtype=np.int32) if same else _places(qrels.topics, topics)
        t = lut[qrels._topic_index] if len(lut) else np.zeros(0, dtype=np.int32)
        g = np.asarray(qrels._columns[2], dtype=np.int64)
        T = len(topics)
        levels = np.unique(g)
        if len(t) and T * len(levels) <= max(4 * len(t), 1 << 20):
            # few distinct grades (the usual case): one count per (topic, grade) by bincount,
            # in (topic, grade) order as below, with memory a few bytes per qrels line
            L = len(levels)
            key = np.searchsorted(levels, g)  # in place from here: no copy per line
            key += t * L if T * L < 2**31 else t.astype(np.int64) * L
            np.putmask(key, t < 0, T * L)  # lines of other topics: one more bin, dropped
            counts = np.bincount(key, minlength=T * L + 1)[: T * L].reshape(T, L)
            del key
            neg = levels < 0
            pooled = set(np.flatnonzero(counts[:, neg].any(axis=1)).tolist())
            t_at, l_at = np.nonzero(counts[:, ~neg])
            return cls(t_at, levels[~neg][l_at], counts[:, ~neg][t_at, l_at], T, pooled)
        ok = t >= 0
        t, g = t[ok], g[ok]
        judged = g >= 0
        pooled = set(np.unique(t[~judged]).tolist())
        tj, gj = t[judged], g[judged]
        order = np.lexsort((gj, tj))
        tj, gj = tj[order], gj[order]
        new = np.r_[True, (tj[1:] != tj[:-1]) | (gj[1:] != gj[:-1])] if len(tj) else np.zeros(0, bool)
        first = np.flatnonzero(new)
        count = np.diff(np.r_[first, len(tj)])
        return cls(tj[first], gj[first], count, len(topics), pooled)

    @classmethod
    def from_counts(cls, grade_counts: np.ndarray) -> _Judgments:
        t, g = np.nonzero(grade_counts)
        return cls(t, g, grade_counts[t, g], grade_counts.shape[0])

    def n_rel(self, rel: int) -> np.ndarray:
        return np.bincount(self.topic, weights=self.count * (self.grade >= rel), minlength=self.T)

    def n_nonrel(self, rel: int) -> np.ndarray:
        return np.bincount(self.topic, weights=self.count * (self.grade < rel), minlength=self.T)

    def ideal(self, gains: _Gains) -> _Ideal:
        return _memo(self._ideal, gains.pairs, lambda: _Ideal(self, gains))


def _memo(cache: dict, key, fn):
    """``cache[key]``, made by ``fn()`` the first time."""
    if key not in cache:
        cache[key] = fn()
    return cache[key]
