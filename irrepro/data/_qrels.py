"""Qrels: :class:`Qrels` (array-backed, a pandas table on demand), read from a TREC qrels file
(``read_qrels``) or built from records or a user's table."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Sequence as _SequenceABC
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, InputTypeError
from ._columns import (
    _dict_parts,
    _duplicate_line,
    _duplicate_pair,
    _encode,
    _fast_table,
    _np,
    _pa_view,
    _places,
    _strings,
)
from ._common import _GRADE_MAX, _GRADE_MIN, MAX_DENSE_GRADE, DataError, _pd, _rows_named, _show, topic_order
from ._textfiles import _INTEGER, _fspath, _parse_grade, _read_bytes, _rereadable, _slow_pass

if TYPE_CHECKING:  # pandas is imported where it is used: the evaluation path needs none
    import pandas as pd


class _CodedColumns(_SequenceABC):
    """The (topic, doc, grade) columns of qrels read from a file, kept encoded; the object arrays of ids made on first use."""

    def __init__(self, topic_dict, t_idx: np.ndarray, doc_dict, d_idx: np.ndarray | None, grade: np.ndarray):
        self.topic_dict, self.t_idx, self.doc_dict, self.d_idx = topic_dict, t_idx, doc_dict, d_idx
        self.grade = grade
        self._made: dict = {}

    def __len__(self) -> int:
        return 3

    def __getitem__(self, i: int) -> np.ndarray:  # type: ignore[override]  # the three columns: no slices
        i = range(3)[i]  # IndexError beyond 3 columns (it ends iteration)
        if i == 2:
            return self.grade
        if i not in self._made:
            names = _strings(self.topic_dict if i == 0 else self.doc_dict)
            codes = self.t_idx if i == 0 else self.d_idx
            self._made[i] = names if codes is None else names[codes]
        return self._made[i]

    def select(self, keep: np.ndarray) -> _CodedColumns:
        d_idx = np.flatnonzero(keep) if self.d_idx is None else self.d_idx[keep]
        return _CodedColumns(self.topic_dict, self.t_idx[keep], self.doc_dict, d_idx, self.grade[keep])

    def first_topics(self) -> list[str]:
        """The topic ids that occur, in the order of their first line."""
        present = np.bincount(self.t_idx, minlength=len(self.topic_dict)) > 0
        return self.topic_dict.take(_pa_view(np.flatnonzero(present))).to_pylist()


class Qrels:
    """Graded relevance judgments: one (topic, doc, grade) per line of the qrels.

    As in trec_eval, a negative grade is neither relevant nor judged non-relevant: it counts as unjudged.

    Parameters
    ----------
    table : pandas.DataFrame, optional
        Columns topic (str), doc (str) and grade (int64); or give ``columns``.
    name : str, optional
        A name for the judgments.
    source : str, optional
        ``"real"`` for the book's collections, ``"simulated"`` for the stand-in.
    columns : tuple of arrays, optional
        ``(topics, docs, grades)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro.data import Qrels
    >>> qrels = Qrels(pd.DataFrame({"topic": ["1", "1"], "doc": ["d1", "d2"], "grade": [1, 0]}), "toy")
    >>> qrels.topics, qrels.n_relevant()
    (('1',), array([1]))
    """

    def __init__(self, table=None, name: str = "", source: str = "", *, columns=None):
        if (table is None) == (columns is None):
            raise InputTypeError("give Qrels either a table (DataFrame) or columns (topics, docs, grades)")
        self.name, self.source = name, source
        self._table = table
        if columns is not None:
            topic, doc, grade = columns
            self._columns = (
                np.asarray(topic, dtype=object), np.asarray(doc, dtype=object), np.asarray(grade, dtype=np.int64)
            )  # fmt: skip

    def __repr__(self) -> str:
        return f"Qrels({self.name!r}, {len(self)} judgments, {len(self.topics)} topics)"

    def __len__(self) -> int:
        return len(self._columns[2])

    @property
    def table(self):
        """DataFrame with columns topic, doc, grade (one row per qrels line)."""
        if self._table is None:
            topic, doc, grade = self._columns
            self._table = _pd().DataFrame({"topic": topic, "doc": doc, "grade": grade})
        return self._table

    @cached_property
    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | _CodedColumns:
        t = self._table
        return (
            t["topic"].to_numpy(dtype=object), t["doc"].to_numpy(dtype=object),
            t["grade"].to_numpy(dtype=np.int64),
        )  # fmt: skip

    @cached_property
    def topics(self) -> tuple[str, ...]:
        cols = self._columns
        if isinstance(cols, _CodedColumns):
            return tuple(topic_order(str(t) for t in cols.first_topics()))
        return tuple(topic_order(str(t) for t in dict.fromkeys(cols[0])))

    @property
    def max_grade(self) -> int:
        g = self._columns[2]
        return int(max(g.max(), 0)) if len(g) else 0

    @cached_property
    def _topic_index(self) -> np.ndarray:
        """int32 index in ``topics`` of every line."""
        cols = self._columns
        if isinstance(cols, _CodedColumns):  # a lookup per distinct topic, not per line
            return _places(cols.topic_dict, self.topics)[cols.t_idx]
        pos = {t: i for i, t in enumerate(self.topics)}
        return np.fromiter((pos[str(t)] for t in self._columns[0]), dtype=np.int32, count=len(self))

    def _reorder(self, per_topic: np.ndarray, topics: Sequence[str] | None) -> np.ndarray:
        """Rows of a per-``self.topics`` array in the order of ``topics`` (0 for unknown ones)."""
        if topics is None or tuple(topics) == self.topics:
            return per_topic
        idx = _places([str(t) for t in topics], self.topics)
        out = np.zeros((len(idx),) + per_topic.shape[1:], dtype=per_topic.dtype)
        out[idx >= 0] = per_topic[idx[idx >= 0]]
        return out

    def n_relevant(self, rel: int = 1, topics: Sequence[str] | None = None) -> np.ndarray:
        """Number of documents with grade >= ``rel`` per topic (the R of AP), in ``topics`` order."""
        hit = self._columns[2] >= rel
        per = np.bincount(self._topic_index[hit], minlength=len(self.topics)).astype(np.int64)
        return self._reorder(per, topics)

    def grade_levels(self, topics: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(levels, counts)``: the distinct grades >= 0, ascending, and ``(topics, len(levels))``
        counts of judged documents per topic and grade."""
        g = self._columns[2]
        judged = g >= 0
        levels, li = np.unique(g[judged], return_inverse=True)
        T, L = len(self.topics), len(levels)
        key = self._topic_index[judged].astype(np.int64) * L + li
        per = np.bincount(key, minlength=T * L).reshape(T, L).astype(np.int64)
        return levels.astype(np.int64), self._reorder(per, topics)

    def grade_counts(self, topics: Sequence[str] | None = None) -> np.ndarray:
        """``(topics, max_grade + 1)`` counts of judged documents per grade 0..max_grade; an
        InputError above ``MAX_DENSE_GRADE`` (1000) (:meth:`grade_levels` counts distinct grades)."""
        if self.max_grade > MAX_DENSE_GRADE:
            raise InputError(
                f"qrels {self.name!r}: the largest grade is {self.max_grade}; grade_counts has one "
                f"column per grade 0..max and refuses grades above {MAX_DENSE_GRADE} "
                "(Qrels.grade_levels counts the distinct grades instead)"
            )
        levels, counts = self.grade_levels(topics)
        out = np.zeros((counts.shape[0], self.max_grade + 1), dtype=np.int64)
        out[:, levels] = counts
        return out

    def n_judged(self, topics: Sequence[str] | None = None) -> np.ndarray:
        """Number of judged documents (grade >= 0) per topic."""
        return self.grade_levels(topics)[1].sum(axis=1)

    def select(self, keep: np.ndarray, name: str | None = None) -> Qrels:
        """The judgments where the boolean ``keep`` (one per line) is True."""
        name = self.name if name is None else name
        if isinstance(self._columns, _CodedColumns):
            return _coded_qrels(self._columns.select(keep), name, self.source)
        topic, doc, grade = self._columns
        return Qrels(columns=(topic[keep], doc[keep], grade[keep]), name=name, source=self.source)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """pytrec_eval's form: ``{topic: {doc: grade}}``."""
        out: dict[str, dict[str, int]] = {}
        for t, d, g in zip(*self._columns):
            out.setdefault(t, {})[d] = int(g)
        return out

    @cached_property
    def _arrays(self):
        """(topic index per line, doc id array, doc index per line or None, grade)."""
        cols = self._columns
        docs, d_idx = (cols.doc_dict, cols.d_idx) if isinstance(cols, _CodedColumns) else _encode(cols[1])
        return self._topic_index, docs, d_idx, cols[2]


def _coded_qrels(cols: _CodedColumns, name: str, source: str = "") -> Qrels:
    """Qrels whose ids stay encoded until they are asked for (:class:`_CodedColumns`)."""
    q = Qrels(columns=((), (), ()), name=name, source=source)
    q._columns = cols
    return q


def read_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a TREC qrels file (``topic iteration doc grade``) as trec_eval 10 reads it (the rules: irrepro.data's API page)."""
    import pyarrow as pa

    path = _fspath(path)
    data: bytes | bytearray | None = _read_bytes(path, "qrels")
    # doc ids as plain strings, not dictionary-encoded (see below); the iteration is not read when no
    # field can be empty; the system allocator's peak is lower than mimalloc's for one large file
    col_types = {1: pa.binary(), 2: pa.string(), 3: pa.int64()}
    # (data: the annotation allows the None that releases it below; here it holds the bytes)
    table = _fast_table(data, 4, col_types, extra_empty=True, lean=((1,), None), pool=pa.system_memory_pool())  # type: ignore[arg-type]
    if table is not None:
        if _rereadable(path):  # the slow pass (which names a line) can read it again: free the bytes
            data = None
        td, ti = _dict_parts(table.column("c0"))
        docs = table.column("c2")  # one per line, not encoded: a hash table of them costs more
        grade = _np(table.column("c3"), np.int64)
        del table
        pa.system_memory_pool().release_unused()  # (glibc: malloc_trim, the parser's freed memory)
        ok = len(grade) > 0 and grade.min() >= _GRADE_MIN and grade.max() <= _GRADE_MAX
        if ok and _duplicate_line(ti, docs) is None:
            return _coded_qrels(_CodedColumns(td, ti, docs, None, grade), name or path.name)
        del td, ti, docs, grade
    if data is None:
        data = _read_bytes(path, "qrels")
    columns = _slow_pass(
        data, path, "qrels", lambda f, i: _parse_grade(f[3], path, i), "judgment for document"
    )
    return Qrels(columns=columns, name=name or path.name)


def qrels_from_records(records: Iterable[tuple[str, str, int]], name: str = "") -> Qrels:
    """Qrels from ``(topic, doc, grade)`` tuples (e.g. ir_datasets' ``qrels_iter``), every record checked."""
    return _checked_qrels(
        _pd().DataFrame(list(records), columns=["topic", "doc", "grade"]), name or "qrels", "record"
    )


def _checked_qrels(table: pd.DataFrame, name: str, unit: str) -> Qrels:
    """Qrels from a (topic, doc, grade) frame of any origin, a bad row named by its ``unit`` and 1-based position."""
    pd = _pd()
    if len(table) == 0:
        raise DataError(name, None, "empty: qrels need at least one judgment (topic, document, grade)")
    where = _rows_named(table, name, unit)
    raw = table["grade"].to_numpy()
    g = pd.to_numeric(table["grade"], errors="coerce").to_numpy(dtype=np.float64)
    if raw.dtype == object:  # e.g. strings: only integer literals, as in a qrels file
        g = np.where(
            [isinstance(x, str) and _INTEGER.fullmatch(x.strip().encode()) is None for x in raw], np.nan, g
        )
    ok = np.isfinite(g) & (g == np.round(g)) & (g >= _GRADE_MIN) & (g <= _GRADE_MAX)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        problem = (
            "does not fit 32 bits" if np.isfinite(g[i]) and g[i] == np.round(g[i]) else "is not an integer"
        )
        raise DataError(name, None, f"{where(i)}: relevance grade {_show(raw[i])} {problem}")
    topic = table["topic"].astype(str).to_numpy(dtype=object)
    doc = table["doc"].astype(str).to_numpy(dtype=object)
    t_d, t_i = _encode(topic)
    d_d, d_i = _encode(doc)
    dup = _duplicate_pair(t_i, d_i, len(d_d))
    if dup is not None:
        first = int(np.flatnonzero((t_i == t_i[dup]) & (d_i == d_i[dup]))[0])
        raise DataError(name, None, f"{where(dup)}: duplicate judgment (first at {unit} {first + 1})")
    return Qrels(columns=(topic, doc, g.astype(np.int64)), name=name)
