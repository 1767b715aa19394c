"""The shared in-memory form of a set of runs: :class:`RunSet`, stored ragged (one flat array of
every ranked list in trec_eval's rank order, with offsets)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, UnknownNameError
from ..parallel import _chunks
from ._columns import _dict_parts, _np, _strings
from ._common import PAD, UNJUDGED, _pd
from ._qrels import Qrels

if TYPE_CHECKING:
    import pandas as pd


class Deferred:
    """A field value computed once on first use, ``fn(*args)`` of known ``shape``; ``elementwise``: a selection of it is the Deferred of that selection of the argument."""

    def __init__(self, fn, *args, shape: tuple | None = None, elementwise: bool = False):
        self.fn, self.args, self.shape, self.elementwise = fn, args, shape, elementwise

    def __call__(self):
        return self.fn(*self.args)

    def take(self, idx) -> Deferred:
        """``self()[idx]``, still deferred (an ``elementwise`` Deferred only)."""
        assert self.elementwise and len(self.args) == 1
        arg = self.args[0][idx]
        return Deferred(self.fn, arg, shape=arg.shape, elementwise=True)


class _OnFirstUse:
    """A dataclass field that may be given as a Deferred (a data descriptor)."""

    def __set_name__(self, owner, name: str):
        self.key = f"_{name}_value"

    def __get__(self, obj, owner=None):
        if obj is None:
            raise AttributeError(self.key)  # no class-level default for the dataclass
        value = obj.__dict__[self.key]
        if isinstance(value, Deferred):
            value = obj.__dict__[self.key] = value()
        return value

    def __set__(self, obj, value):
        obj.__dict__[self.key] = value

    def stored(self, obj):
        """The field's value as it is stored: a :class:`Deferred` not made yet, or the value."""
        return obj.__dict__[self.key]


@dataclass(frozen=True, eq=False)
class RunSet:
    """Runs over the same topics: every ranked list in one flat array, with offsets (``load_runs``).

    Attributes
    ----------
    runs : tuple of str, length S
    topics : tuple of str, length T
        The qrels' topics (trec_eval evaluates only judged topics); a run missing a topic has an
        empty list there.
    offsets : int64 array (S*T + 1,)
        List ``(s, t)`` (run-major) is ``flat_*[offsets[s*T + t] : offsets[s*T + t + 1]]``.
    flat_grades : int32 array (N,)
        Grade of each retrieved document, ``UNJUDGED`` (-1) when it has no judgment (or a
        negative qrels value).
    flat_docs : int32 array (N,)
        Index of each retrieved document's id in ``vocab``.
    vocab : array of str
        Document ids of runs and qrels in byte order (with ``flat_docs``, may be given as
        ``Deferred`` values, made when first read).
    qrels : Qrels
    name, source : str
        The collection name and where its files came from (``"simulated"`` for the stand-in).
    ignored_topics : dict run -> tuple of topics in the run but not in the qrels (not evaluated,
        as trec_eval does).
    precision : ``"float32"`` or ``"float64"``, how scores were compared when ranking.

    Examples
    --------
    >>> from irrepro import data
    >>> rs = data.load_runs({"a": {"1": {"d1": 2.0, "d2": 1.0}}, "b": {"1": {"d2": 3.0}}},
    ...                     qrels={"1": {"d1": 1, "d2": 0}})
    >>> rs.runs, rs.topics, rs.lengths
    (('a', 'b'), ('1',), array([[2],
           [1]]))
    """

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    offsets: np.ndarray
    flat_grades: np.ndarray
    # (ignores: _OnFirstUse is a data descriptor, not a default - it raises on class access, so the
    # dataclass gives these two no default and the fields after them need none)
    flat_docs: np.ndarray = _OnFirstUse()  # type: ignore[assignment]  # (or a Deferred: made on first use)
    vocab: np.ndarray = _OnFirstUse()  # type: ignore[assignment]
    qrels: Qrels  # type: ignore[misc]
    name: str = ""
    source: str = ""
    ignored_topics: dict = field(default_factory=dict)
    precision: str = "float32"

    def __post_init__(self):
        S, T = len(self.runs), len(self.topics)
        off = self.offsets
        if off.shape != (S * T + 1,) or (len(off) and (off[0] != 0 or off[-1] != len(self.flat_grades))):
            raise ValueError(f"offsets must be (S*T + 1,) = ({S * T + 1},) from 0 to N, got {off.shape}")
        if type(self).__dict__["flat_docs"].stored(self).shape != self.flat_grades.shape:
            raise ValueError("flat_docs and flat_grades differ in length")

    @property
    def simulated(self) -> bool:
        return self.source == "simulated"

    @cached_property
    def lengths(self) -> np.ndarray:
        """int64 (S, T): number of documents retrieved per list."""
        return np.diff(self.offsets).reshape(len(self.runs), len(self.topics))

    @property
    def shape(self) -> tuple[int, int, int]:
        """(runs, topics, longest list) - the shape of the dense :attr:`grades`."""
        return len(self.runs), len(self.topics), max(int(self.lengths.max(initial=0)), 1)

    def _ranks(self) -> np.ndarray:
        """0-based rank of every flat entry within its list."""
        ranks = np.arange(len(self.flat_grades), dtype=np.int64)
        ranks -= np.repeat(self.offsets[:-1], np.diff(self.offsets))
        return ranks

    def _dense(self, flat: np.ndarray, fill: int) -> np.ndarray:
        S, T, K = self.shape
        out = np.full((S * T, K), fill, dtype=np.int32)
        for idx, block in self._blocks(flat, fill):
            out[idx, : block.shape[1]] = block
        return out.reshape(S, T, K)

    @cached_property
    def grades(self) -> np.ndarray:
        """Dense int32 (S, T, K): the grade at each rank, ``PAD`` (-2) past the end of a list (kept)."""
        return self._dense(self.flat_grades, PAD)

    @cached_property
    def doc_codes(self) -> np.ndarray:
        """Dense int32 (S, T, K): index into ``vocab`` at each rank, -1 past the end of a list."""
        return self._dense(self.flat_docs, -1)

    def iter_blocks(self, max_cells: int = 1 << 20, depth: int | None = None):
        """Yield ``(index, block)`` covering every list once: flat list indices ``s*T + t`` (n,) and
        their grades (n, k) padded with ``PAD``, lists grouped by length so that n*k stays near
        ``max_cells``; ``depth`` cuts every list at that rank (trec_eval ``-M``)."""
        if depth is not None and depth < 1:
            raise InputError("depth must be >= 1")
        return self._blocks(self.flat_grades, PAD, max_cells, depth)

    def _blocks(self, flat: np.ndarray, fill: int, max_cells: int = 1 << 20, depth: int | None = None):
        lens = np.diff(self.offsets)
        if depth is not None:
            lens = np.minimum(lens, depth)
        order = np.argsort(lens, kind="stable")
        sl = lens[order]
        for part in _chunks(len(order), max_cells, sl):  # (sorted: a block as wide as its last list)
            i, j = part.start, part.stop
            idx = order[i:j].astype(np.int64)
            ln = sl[i:j]
            k = max(int(ln[-1]), 1)
            block = np.full((j - i, k), fill, dtype=np.int32)
            if int(ln[0]) == k:  # all lists of this block have the same length: one gather
                block[:] = flat[self.offsets[idx][:, None] + np.arange(k)]
            elif int(ln.sum()):
                rows = np.repeat(np.arange(j - i), ln)
                cols = np.arange(len(rows), dtype=np.int64)
                cols -= np.repeat(np.cumsum(ln) - ln, ln)
                block[rows, cols] = flat[np.repeat(self.offsets[idx], ln) + cols]
            yield idx, block

    def _take_docs(self, idx) -> dict:
        """``flat_docs[idx]`` and ``vocab`` as replace() arguments, left unmade when they are."""
        fields = type(self).__dict__
        docs, vocab = fields["flat_docs"].stored(self), fields["vocab"].stored(self)
        docs = docs.take(idx) if isinstance(docs, Deferred) and docs.elementwise else self.flat_docs[idx]
        return {"flat_docs": docs, "vocab": vocab}

    def truncate(self, depth: int) -> RunSet:
        """The same run set with every list cut at ``depth`` documents (trec_eval ``-M``)."""
        if depth < 1:
            raise InputError("depth must be >= 1")
        keep = self._ranks() < depth
        lens = np.minimum(np.diff(self.offsets), depth)
        return replace(
            self,
            offsets=np.r_[0, np.cumsum(lens)].astype(np.int64),
            flat_grades=self.flat_grades[keep],
            **self._take_docs(keep),
        )

    def with_qrels(self, qrels: Qrels) -> RunSet:
        """The same ranked lists judged by other qrels of exactly the same topics (e.g. those of
        :mod:`irrepro.data.emulate`), ``UNJUDGED`` where they have no judgment."""
        extra = sorted(set(qrels.topics) - set(self.topics))
        lack = sorted(set(self.topics) - set(qrels.topics))
        if extra or lack:
            what = (
                f"topics not in the run set {extra[:5]}" if extra else "",
                f"run set topics they lack {lack[:5]}" if lack else "",
            )
            raise InputError(
                f"qrels {qrels.name!r} do not have the run set's topics: " + "; ".join(filter(None, what))
            )
        T, V = len(self.topics), len(self.vocab)
        qt, qd = self._codes_of(qrels)
        known = qd >= 0  # a judged document outside the vocabulary was retrieved by no run
        grade_of = _GradeIndex(qt[known], qd[known], qrels._columns[2][known], T, max(V, 1))
        tix = np.repeat(np.arange(len(self.offsets) - 1) % T, np.diff(self.offsets))
        return replace(self, flat_grades=grade_of(tix, self.flat_docs).astype(np.int32), qrels=qrels)

    def _codes_of(self, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
        """int64 index in ``topics`` and code in ``vocab`` of every judgment of ``qrels`` (-1: not there)."""
        tpos = {t: i for i, t in enumerate(self.topics)}
        q_t, q_d, _ = qrels._columns
        qt = np.fromiter((tpos.get(str(t), -1) for t in q_t), dtype=np.int64, count=len(q_t))
        return qt, _pd().Index(np.asarray(self.vocab, dtype=object)).get_indexer(q_d).astype(np.int64)

    def n_relevant(self, rel: int = 1) -> np.ndarray:
        """R per topic: judged documents with grade >= ``rel`` (retrieved or not)."""
        return self.qrels.n_relevant(rel, self.topics)

    def grade_counts(self) -> np.ndarray:
        """``(T, G + 1)`` judged documents per grade and topic (:meth:`Qrels.grade_counts`)."""
        return self.qrels.grade_counts(self.topics)

    def relevant(self, rel: int = 1) -> np.ndarray:
        """Boolean (S, T, K): the document at that rank has grade >= ``rel`` (dense)."""
        return self.grades >= rel

    def relevant_positions(self, rel: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(list index s*T + t, 0-based rank)`` of every retrieved document with grade >= ``rel``, in order."""
        hit = np.flatnonzero(self.flat_grades >= rel)
        lists = np.searchsorted(self.offsets, hit, side="right") - 1
        return lists.astype(np.int64), (hit - self.offsets[lists]).astype(np.int64)

    def doc_ids(self, s: int, t: int) -> np.ndarray:
        """The ranked document ids of run ``s`` on topic ``t``."""
        i = s * len(self.topics) + t
        return self.vocab[self.flat_docs[self.offsets[i] : self.offsets[i + 1]]]

    def coverage(self) -> pd.DataFrame:
        """One row per run: ``topics`` (of the qrels), ``retrieved`` (those with a document),
        ``missing`` (the others' ids) and ``ignored`` (the run's topics the qrels lack)."""
        return _pd().DataFrame(self._coverage(), columns=["run", "topics", "retrieved", "missing", "ignored"])

    def _coverage(self) -> list[dict]:
        """The rows of :meth:`coverage` as dicts (no pandas: ``irrepro eval`` prints them)."""
        L = self.lengths
        rows = []
        for s, run in enumerate(self.runs):
            got = L[s] > 0
            rows.append({
                "run": run, "topics": len(self.topics), "retrieved": int(got.sum()),
                "missing": tuple(t for t, g in zip(self.topics, got) if not g),
                "ignored": tuple(self.ignored_topics.get(run, ())),
            })  # fmt: skip
        return rows

    def subset(self, runs: Sequence | None = None, topics: Sequence | None = None) -> RunSet:
        """The same data restricted to some runs and/or topics (names or integer indices)."""
        si = np.asarray(_indices(self.runs, runs), dtype=np.int64)
        ti = np.asarray(_indices(self.topics, topics), dtype=np.int64)
        T = len(self.topics)
        lists = (si[:, None] * T + ti[None, :]).ravel()
        lens = np.diff(self.offsets)[lists]
        new_off = np.r_[0, np.cumsum(lens)].astype(np.int64)
        src = np.repeat(self.offsets[lists], lens) + (np.arange(new_off[-1]) - np.repeat(new_off[:-1], lens))
        keep_topics = {self.topics[i] for i in ti}
        q = self.qrels.select(np.array([t in keep_topics for t in self.qrels._columns[0]], dtype=bool))
        names = tuple(self.runs[i] for i in si)
        return replace(
            self,
            runs=names,
            topics=tuple(self.topics[i] for i in ti),
            offsets=new_off,
            flat_grades=self.flat_grades[src],
            **self._take_docs(src),
            qrels=q,
            ignored_topics={r: v for r, v in self.ignored_topics.items() if r in names},
        )

    def run_dict(self, s: int) -> dict[str, dict[str, float]]:
        """Run ``s`` as pytrec_eval's ``{topic: {doc: score}}``, scores reproducing this ranking."""
        out = {}
        for t, topic in enumerate(self.topics):
            docs = self.doc_ids(s, t)
            if len(docs):
                out[topic] = {str(d): float(len(docs) - i) for i, d in enumerate(docs)}
        return out

    def nbytes(self) -> int:
        return self.offsets.nbytes + self.flat_grades.nbytes + self.flat_docs.nbytes

    def save(self, path: str | Path, *, record_sha256: bool = False) -> None:
        """Write the arrays and qrels to an ``.npz`` file atomically (``record_sha256``: its sha256 beside it)."""
        from ._fetch import atomic_write

        q_topic, q_doc, q_grade = self.qrels._columns
        ignored = [(r, t) for r, ts in self.ignored_topics.items() for t in ts]

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                np.savez(
                    f,
                    runs=np.array(self.runs, dtype=str),
                    topics=np.array(self.topics, dtype=str),
                    offsets=self.offsets,
                    flat_grades=self.flat_grades,
                    flat_docs=self.flat_docs,
                    vocab=np.asarray(self.vocab).astype(str),
                    q_topic=q_topic.astype(str),
                    q_doc=q_doc.astype(str),
                    q_grade=q_grade,
                    q_name=np.array(self.qrels.name),
                    ignored=np.array(ignored, dtype=str).reshape(-1, 2),
                    precision=np.array(self.precision),
                )

        atomic_write(path, write, record_sha256=record_sha256)

    @classmethod
    def load(cls, path: str | Path, *, name: str = "", source: str = "") -> RunSet:
        """Read a RunSet written by :meth:`save` (raises on a damaged file)."""
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:  # (closed also when damaged)
            ignored: dict = {}
            for r, t in z["ignored"]:
                ignored.setdefault(str(r), []).append(str(t))
            columns = (z["q_topic"].astype(object), z["q_doc"].astype(object), z["q_grade"])
            return cls(
                runs=tuple(str(r) for r in z["runs"]),
                topics=tuple(str(t) for t in z["topics"]),
                offsets=z["offsets"].astype(np.int64),
                flat_grades=z["flat_grades"].astype(np.int32),
                flat_docs=z["flat_docs"].astype(np.int32),
                vocab=z["vocab"].astype(object),
                qrels=Qrels(columns=columns, name=str(z["q_name"]), source=source),
                name=name,
                source=source,
                ignored_topics={k: tuple(v) for k, v in ignored.items()},
                precision=str(z["precision"]),
            )


class _GradeIndex:
    """Grade of (topic, vocabulary code) pairs, UNJUDGED where the qrels have none: a dense table when small, else a sorted key search."""

    def __init__(self, q_t, q_d, q_g, T: int, V: int):
        judged = q_g >= 0
        q_t, q_d, q_g = q_t[judged], q_d[judged], q_g[judged]
        self.V, self.table, self.keys = V, None, None
        levels, q_level = np.unique(q_g, return_inverse=True)
        if T * V <= (1 << 25) and len(levels) < 255:
            self.table = np.zeros((T, V), dtype=np.uint8)
            self.table[q_t, q_d] = q_level + 1
            self.lut = np.r_[UNJUDGED, levels].astype(np.int32)
        else:
            key = q_t.astype(np.int64) * V + q_d
            order = np.argsort(key)
            self.keys, self.grades = key[order], q_g[order].astype(np.int32)

    def __call__(self, t: np.ndarray, d: np.ndarray) -> np.ndarray:
        if self.table is not None:  # (flat indices and take: 2-3 times faster than table[t, d])
            at = t.astype(np.intp)
            at *= self.V
            at += d
            return self.lut.take(self.table.reshape(-1).take(at))
        assert self.keys is not None  # no table: the sorted keys
        out = np.full(len(t), UNJUDGED, dtype=np.int32)
        step = 1 << 20  # (a block at a time: temporaries of a few MB, whatever the number of lines)
        for a in range(0, len(t) if len(self.keys) else 0, step):
            rkey = t[a : a + step].astype(np.int64)
            rkey *= self.V
            rkey += d[a : a + step]
            pos = np.minimum(np.searchsorted(self.keys, rkey), len(self.keys) - 1)
            found = self.keys[pos] == rkey
            out[a : a + step][found] = self.grades[pos[found]]
        return out


class _Vocabulary:
    """The vocabulary of a run set, made on first use: run and qrels documents in byte order, and the map of run codes to its codes."""

    def __init__(self, run_vocab, q_docs, q_didx: np.ndarray):
        self.parts = (run_vocab, q_docs, q_didx)

    @cached_property
    def made(self) -> tuple[np.ndarray, np.ndarray]:
        import pyarrow as pa
        import pyarrow.compute as pc

        run_vocab, q_docs, q_didx = self.parts
        used = np.bincount(q_didx, minlength=len(q_docs)) > 0 if q_didx is not None else None
        if used is not None and not used.all():  # (qrels selected from larger ones)
            q_docs = q_docs.filter(pa.array(used))
        q_parts = q_docs.chunks if isinstance(q_docs, pa.ChunkedArray) else [q_docs]
        uniq, idx = _dict_parts(pa.chunked_array([run_vocab, *q_parts], pa.string()).dictionary_encode())
        by_id = pc.sort_indices(uniq)
        code = np.empty(len(uniq), dtype=np.int32)
        code[_np(by_id, np.uint64)] = np.arange(len(uniq), dtype=np.int32)
        del self.parts  # (released once made)
        return _strings(uniq.take(by_id)), code[idx[: len(run_vocab)]]

    def ids(self) -> np.ndarray:
        return self.made[0]

    def codes(self, run_codes: np.ndarray) -> np.ndarray:
        return self.made[1][run_codes]


def _indices(names: Sequence[str], sel) -> list[int]:
    if sel is None:
        return list(range(len(names)))
    pos = {n: i for i, n in enumerate(names)}
    out = []
    for x in sel:
        if isinstance(x, (int, np.integer)):
            out.append(int(x))
        elif x in pos:
            out.append(pos[x])
        else:
            raise UnknownNameError(f"{x!r} is not one of {names[:5]}...")
    return out
