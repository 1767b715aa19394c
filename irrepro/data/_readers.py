"""Readers for TREC run files, qrels and score-matrix CSVs, and the in-memory forms every chapter
shares: :class:`Qrels`, :class:`RunSet` (ranked lists of grades, stored ragged) and
:class:`ScoreMatrix` (systems x topics scores of one measure).

Files are read with trec_eval's conventions, listed in :func:`read_run` and :func:`read_qrels`.

Ranking follows trec_eval: within a topic, documents are ordered by score descending and ties are
broken by document id descending (byte order); the rank column is ignored. By default
(``precision="float32"``) scores are compared as C ``float``, as trec_eval up to 9.0.8,
pytrec_eval and NIST's official TREC-COVID scores do: two scores that differ only beyond float32's
~7 significant digits tie, and the tie goes to the document id (this reproduces NIST's
leaderboards exactly). ``precision="float64"`` compares full doubles, as trec_eval 10 does.
"""

from __future__ import annotations

import gzip
import math
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported where it is used: the evaluation path needs none
    import pandas as pd

__all__ = [
    "DataError",
    "Qrels",
    "Run",
    "RunSet",
    "ScoreMatrix",
    "read_run",
    "read_qrels",
    "read_score_matrix",
    "build_runset",
    "topic_order",
    "UNJUDGED",
    "PAD",
    "MAX_DENSE_GRADE",
]

#: Grade of a retrieved document that has no judgment in the qrels.
UNJUDGED = -1
#: Grade of a rank beyond the end of a list (padding of the ranks axis).
PAD = -2
#: :meth:`Qrels.grade_counts` makes one column per grade 0..max; it refuses qrels whose largest
#: grade is above this (use :meth:`Qrels.grade_levels`, which counts the distinct grades).
MAX_DENSE_GRADE = 1000
_GRADE_MIN, _GRADE_MAX = -(2**31), 2**31 - 1
_PRECISIONS = ("float32", "float64")


class DataError(ValueError):
    """Malformed input: the message names the file, the line (1-based) and the problem."""

    def __init__(self, path, line, problem):
        self.path, self.line, self.problem = str(path), line, problem
        where = f"{path}, line {line}" if line else f"{path}"
        super().__init__(f"{where}: {problem}")


def topic_order(topics: Iterable[str]) -> list[str]:
    """Topic ids sorted numerically when they are all integers, else as strings."""
    topics = list(dict.fromkeys(topics))
    if all(t.isdigit() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def _n_threads(n_items: int) -> int:
    return max(1, min(n_items, os.cpu_count() or 1))


# --------------------------------------------------------------------------------------------
# text files: bytes, the fast columnar pass and the line-numbered slow pass
# --------------------------------------------------------------------------------------------

_RUN_LAYOUT = "topic Q0 doc rank score tag"
_QRELS_LAYOUT = "topic iteration doc grade"
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+(?:\.0*)?")
_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")


def _gunzip(raw: bytes) -> bytes:
    """Decompress gzip data (every member, CRC checked): with ISA-L (python-isal), about twice
    as fast as zlib, when it is installed; else with the standard library."""
    try:
        from isal import igzip, isal_zlib
    except ImportError:  # pragma: no cover - isal is a dependency; a platform without its wheel
        return gzip.decompress(raw)
    if len(raw) > 18 and raw.find(b"\x1f\x8b\x08", 10) < 0:
        # one member (a second one would start with those bytes): decompress it in one piece
        # into a buffer of the size its trailer states (growing one costs a copy and fresh pages)
        size = int.from_bytes(raw[-4:], "little")
        out = isal_zlib.decompress(raw, 31, size + 1)
        if len(out) % (1 << 32) == size:
            return out
    return igzip.decompress(raw)


def _read_bytes(path: Path, what: str) -> bytes:
    """The (decompressed) bytes of a file; DataError if missing, empty or a broken gzip stream."""
    if not path.is_file():
        raise DataError(path, None, f"{what} file not found")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(path, None, f"cannot read the {what} file ({exc.strerror or exc})") from exc
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = _gunzip(raw)
        except Exception as exc:  # noqa: BLE001 - EOFError, BadGzipFile, zlib / isal errors
            raise DataError(path, None, f"corrupt or truncated gzip file ({exc})") from exc
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark is not data
    if not raw or raw.isspace():
        raise DataError(path, None, f"empty {what} file")
    return raw


def _data_lines(data: bytes, path, what: str) -> Iterator[tuple[int, list[bytes]]]:
    """``(line number, fields)`` of every data line, trec_eval's way: whitespace-separated fields,
    blank lines and ``#`` comment lines skipped."""
    for i, line in enumerate(data.split(b"\n"), 1):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            yield i, fields


def _text(value: bytes, path, line: int, what: str) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(path, line, f"{what} {value!r} is not UTF-8 text") from None


def _field_count_error(path, line, what, layout, expected, found, at_least=False):
    more = "at least " if at_least else ""
    return DataError(
        path, line, f"malformed {what} line: expected {more}{expected} fields, found {found} "
        f"(a {what} line is: {layout})"
    )  # fmt: skip


def _parse_score(value: bytes, path, line: int) -> float:
    if _NUMBER.fullmatch(value):
        x = float(value)
        if math.isfinite(x):
            return x
    raise DataError(path, line, f"score {value.decode('utf-8', 'replace')!r} is not a finite number")


def _parse_grade(value: bytes, path, line: int) -> int:
    if not _INTEGER.fullmatch(value):
        raise DataError(path, line, f"relevance grade {value.decode('utf-8', 'replace')!r} is not an integer")
    g = int(value.split(b".")[0])
    if not _GRADE_MIN <= g <= _GRADE_MAX:
        raise DataError(
            path, line, f"relevance grade {value.decode()!r} does not fit 32 bits "
            f"({_GRADE_MIN}..{_GRADE_MAX})"
        )  # fmt: skip
    return g


def _fast_table(data: bytes, ncols: int, types: dict, extra_empty: bool, lean: tuple = ()):
    """The fast columnar pass: a pyarrow table (columns ``c0``..``c{ncols-1}``) of the file's
    data lines, or None when anything is unusual (then the slow pass reads the file).

    The bytes are read with one delimiter: a file separated by tabs (or by single spaces) as it
    is; any other whitespace inside lines is first mapped to single spaces. Lines that then do not
    have the first line's number of fields are split trec_eval's way (whitespace): blank and
    comment lines are dropped, lines with ``ncols`` fields (runs: at least) kept, anything else
    sends the file to the slow pass. An empty field (two delimiters in a row) does too.
    ``extra_empty``: fields beyond ``ncols`` must be empty (qrels: trailing whitespace only).

    ``lean`` (runs): ``(skip, last)``: when the file is regular (no two delimiters in a row, no
    ``#``, exactly ``ncols`` fields on the first line) the columns ``skip`` are not converted (no
    field can be empty) and column ``last``, the last field of a line, is not converted either:
    that it is the same on every line is checked by counting the lines that end with it. The table
    then lacks those columns, and ``table.schema.metadata[b"constant"]`` holds that last field.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not data.isascii():  # invalid UTF-8: the slow pass names the line
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    # delimiter: that of the first data line
    sample = b""
    for line in data[: 1 << 16].split(b"\n"):
        if line.strip() and not line.lstrip().startswith(b"#"):
            sample = line
            break
    delim = b"\t" if b"\t" in sample else b" "
    other = b" " if delim == b"\t" else b"\t"
    odd = (
        other in data
        or b"\x0b" in data
        or b"\x0c" in data
        or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n"))
        or (delim == b" " and b"  " in data)
    )
    if odd:  # one space between fields, none at the ends of lines
        data = re.sub(rb" {2,}", b" ", data.translate(_TO_SPACE))
        data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n").removeprefix(b" ")
        sample = re.sub(rb" {2,}", b" ", sample.translate(_TO_SPACE)).strip()
        delim = b" "
    first = sample.rstrip(b"\r").split(delim)
    width = max(ncols, len(first))
    regular = bool(lean) and len(first) == ncols and b"#" not in data and not _has_pair(data, delim[0])
    skip, last = lean if regular else ((), None)
    const = first[last] if last is not None else None
    rows: list[bytes] = []
    failed: list[bool] = []
    ending = [0]  # lines split trec_eval's way that end with the constant last field

    def invalid(row) -> str:
        text = row.text.encode("utf-8", "surrogateescape")
        fields = text.split()
        if not fields or fields[0].startswith(b"#"):
            return "skip"  # blank or comment line
        if len(fields) == ncols or (len(fields) > ncols and not extra_empty):
            rows.append(b"\t".join(fields[:ncols]))
            if const is not None and text.rstrip(b"\r").endswith(delim + const):
                ending[0] += 1
        else:
            failed.append(True)
        return "skip"

    keep = [f"c{i}" for i in range(ncols) if i not in skip and i != last]
    extra = [f"c{i}" for i in range(ncols, width)] if extra_empty else []
    table = _csv(data, delim, width, types, keep + extra, invalid)
    if table is None or failed:
        return None
    for name in extra:  # trailing whitespace only
        d, _ = _dict_parts(table.column(name))
        if len(d) > 1 or (len(d) == 1 and d[0].as_py() != ""):
            return None
    table = table.select(keep)
    if const is not None:  # every line read by pyarrow ends with the same last field?
        n = data.count(delim + const + b"\n") + (data.count(delim + const + b"\r\n") if b"\r" in data else 0)
        n += data.endswith(delim + const) or data.endswith(delim + const + b"\r")
        if n - ending[0] != table.num_rows:
            return None
    if rows:  # the lines split trec_eval's way, read as tab-separated text
        more = _csv(b"\n".join(rows), b"\t", ncols, types, keep + ([f"c{last}"] if last is not None else []), None)
        if more is None:
            return None
        if last is not None:
            if not pc.all(pc.equal(more.column(f"c{last}"), pa.scalar(const, pa.binary()))).as_py():
                return None
            more = more.select(keep)
        table = pa.concat_tables([table, more])
    for c in table.column("c0").chunks:  # a comment line that happens to have ncols fields
        if pc.any(pc.starts_with(c.dictionary, "#")).as_py():
            return None
    for name in keep:
        col = table.column(name)
        if col.null_count:
            return None
        if pa.types.is_dictionary(col.type):
            if any(len(c.dictionary) and _min_length(c.dictionary) == 0 for c in col.chunks):
                return None  # an empty field: two delimiters in a row
        elif pa.types.is_binary(col.type) and len(col) and _min_length(col) == 0:
            return None
    if const is not None:
        table = table.replace_schema_metadata({b"constant": const})
    return table


def _has_pair(data: bytes, byte: int) -> bool:
    """Whether ``data`` holds two ``byte`` in a row (numpy on 16-bit words: much faster than
    ``bytes.find`` for a frequent byte)."""
    if len(data) < 2:
        return False
    pair = byte * 257
    even = np.frombuffer(data, dtype=np.uint16, count=len(data) // 2)
    odd = np.frombuffer(data, dtype=np.uint16, count=(len(data) - 1) // 2, offset=1)
    return bool((even == pair).any() or (odd == pair).any())


def _csv(data: bytes, delim: bytes, width: int, types: dict, include: list[str], invalid):
    """pyarrow's CSV reader on ``data`` (no quoting; columns c0..c{width-1}; ``types`` by column
    number, dictionary-encoded strings for the others); None if it fails."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    dict_t = pa.dictionary(pa.int32(), pa.string())
    col_types = {f"c{i}": types.get(i, dict_t) for i in range(width)}
    try:
        return pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(
                column_names=[f"c{i}" for i in range(width)], use_threads=len(data) > (64 << 20),
                block_size=1 << 24,
            ),
            parse_options=pcsv.ParseOptions(
                delimiter=delim.decode(), quote_char=False, double_quote=False, escape_char=False,
                newlines_in_values=False, ignore_empty_lines=True, invalid_row_handler=invalid,
            ),
            convert_options=pcsv.ConvertOptions(
                column_types=col_types, include_columns=include, strings_can_be_null=False
            ),
        )  # fmt: skip
    except (pa.ArrowException, UnicodeDecodeError):
        return None


def _min_length(arr) -> int:
    import pyarrow.compute as pc

    return int(pc.min(pc.binary_length(arr)).as_py())


def _dict_parts(col) -> tuple:
    """(dictionary, int32 indices) of a dictionary-typed pyarrow (Chunked)Array."""
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        if col.num_chunks == 1:
            col = col.chunk(0)
        elif col.num_chunks == 0:
            return pa.array([], pa.string()), np.zeros(0, dtype=np.int32)
        else:
            col = pa.table({"c": col}).unify_dictionaries().column(0).combine_chunks()
    return col.dictionary, _np(col.indices, np.int32)


def _np(arr, dtype) -> np.ndarray:
    """A numpy view (no copy) of a primitive pyarrow (Chunked)Array without nulls. (pyarrow's own
    ``to_numpy`` and ``pa.array`` import pandas, which reading and evaluating runs do without.)"""
    import pyarrow as pa

    dt = np.dtype(dtype)
    if isinstance(arr, pa.ChunkedArray):
        parts = [_np(c, dt) for c in arr.chunks]
        return parts[0] if len(parts) == 1 else (np.concatenate(parts) if parts else np.zeros(0, dt))
    if arr.null_count:
        raise ValueError("_np needs an array without nulls")
    if len(arr) == 0:
        return np.zeros(0, dt)
    return np.frombuffer(arr.buffers()[1], dtype=dt, count=len(arr), offset=arr.offset * dt.itemsize)


def _strings(arr) -> np.ndarray:
    """An object array of the Python strings of a pyarrow string array."""
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out


def _encode(values) -> tuple:
    """(dictionary, int32 indices) of a sequence of strings."""
    import pyarrow as pa

    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, pa.string())
    return _dict_parts(arr.dictionary_encode())


def _duplicate_pair(t_idx: np.ndarray, d_idx: np.ndarray, n_docs: int) -> int | None:
    """Index of the first row whose (topic, doc) pair occurs earlier, or None."""
    n = len(t_idx)
    if n < 2:
        return None
    key = t_idx.astype(np.int64) * max(n_docs, 1) + d_idx
    span = int(key.max()) + 1
    if span <= 64 * n + (1 << 24):  # a byte per possible pair: distinct pairs == rows?
        seen = np.zeros(span, dtype=np.uint8)
        seen[key] = 1
        if int(np.count_nonzero(seen)) == n:
            return None
    order = np.argsort(key, kind="stable")
    ks = key[order]
    same = np.flatnonzero(ks[1:] == ks[:-1])
    return None if len(same) == 0 else int(order[same + 1].min())


# --------------------------------------------------------------------------------------------
# qrels
# --------------------------------------------------------------------------------------------


class Qrels:
    """Graded relevance judgments: one (topic, doc, grade) per line of the qrels.

    ``table`` is a pandas DataFrame with columns topic (str), doc (str) and grade (int64), built
    on first use (the evaluation path needs no pandas). As in trec_eval, a negative grade
    (TREC-COVID has two -1 lines; other tracks use -1/-2 for spam or unjudgeable documents) is
    neither relevant nor judged non-relevant: it counts as unjudged. ``source`` is ``"real"`` for
    the book's collections and ``"simulated"`` for the stand-in.

    Build one from a DataFrame (``Qrels(table, name)``) or from columns
    (``Qrels(columns=(topics, docs, grades), name=...)``).
    """

    def __init__(self, table=None, name: str = "", source: str = "", *, columns=None):
        if (table is None) == (columns is None):
            raise TypeError("give Qrels either a table (DataFrame) or columns (topics, docs, grades)")
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
    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = self._table
        return (
            t["topic"].to_numpy(dtype=object), t["doc"].to_numpy(dtype=object),
            t["grade"].to_numpy(dtype=np.int64),
        )  # fmt: skip

    @cached_property
    def topics(self) -> tuple[str, ...]:
        return tuple(topic_order(str(t) for t in dict.fromkeys(self._columns[0])))

    @property
    def max_grade(self) -> int:
        g = self._columns[2]
        return int(max(g.max(), 0)) if len(g) else 0

    @cached_property
    def _topic_index(self) -> np.ndarray:
        """int32 index in ``topics`` of every line."""
        pos = {t: i for i, t in enumerate(self.topics)}
        return np.fromiter((pos[str(t)] for t in self._columns[0]), dtype=np.int32, count=len(self))

    def _reorder(self, per_topic: np.ndarray, topics: Sequence[str] | None) -> np.ndarray:
        """Rows of a per-``self.topics`` array in the order of ``topics`` (0 for unknown ones)."""
        if topics is None or tuple(topics) == self.topics:
            return per_topic
        pos = {t: i for i, t in enumerate(self.topics)}
        idx = np.array([pos.get(str(t), -1) for t in topics], dtype=np.int64)
        out = np.zeros((len(idx),) + per_topic.shape[1:], dtype=per_topic.dtype)
        out[idx >= 0] = per_topic[idx[idx >= 0]]
        return out

    def n_relevant(self, rel: int = 1, topics: Sequence[str] | None = None) -> np.ndarray:
        """Number of documents with grade >= ``rel`` per topic (the R of AP), in ``topics`` order."""
        hit = self._columns[2] >= rel
        per = np.bincount(self._topic_index[hit], minlength=len(self.topics)).astype(np.int64)
        return self._reorder(per, topics)

    def grade_levels(self, topics: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(levels, counts)``: the distinct grades >= 0 of the qrels, ascending (int64), and
        ``(topics, len(levels))`` counts of judged documents per topic and grade. Memory follows
        the number of distinct grades, whatever their values (a grade of 10**9 costs one column)."""
        g = self._columns[2]
        judged = g >= 0
        levels, li = np.unique(g[judged], return_inverse=True)
        T, L = len(self.topics), len(levels)
        key = self._topic_index[judged].astype(np.int64) * L + li
        per = np.bincount(key, minlength=T * L).reshape(T, L).astype(np.int64)
        return levels.astype(np.int64), self._reorder(per, topics)

    def grade_counts(self, topics: Sequence[str] | None = None) -> np.ndarray:
        """``(topics, max_grade + 1)`` counts of judged documents per grade 0..max_grade (negative
        grades are not judgments and are not counted). Column ``g`` is grade ``g``, so the width
        follows the largest grade: qrels whose largest grade exceeds :data:`MAX_DENSE_GRADE` are
        refused with a ValueError (use :meth:`grade_levels`, which counts the distinct grades)."""
        if self.max_grade > MAX_DENSE_GRADE:
            raise ValueError(
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

    def select(self, keep: np.ndarray, name: str | None = None) -> "Qrels":
        """The judgments where the boolean ``keep`` (one per line) is True."""
        topic, doc, grade = self._columns
        return Qrels(columns=(topic[keep], doc[keep], grade[keep]), name=self.name if name is None else name,
                     source=self.source)  # fmt: skip

    def to_dict(self) -> dict[str, dict[str, int]]:
        """pytrec_eval's form: ``{topic: {doc: grade}}``."""
        out: dict[str, dict[str, int]] = {}
        for t, d, g in zip(*self._columns):
            out.setdefault(t, {})[d] = int(g)
        return out

    _doc_codes = None  # (pyarrow dictionary, int32 index per line) when read from a file

    @cached_property
    def _arrays(self):
        """(topic index per line, pyarrow dictionary of doc ids, doc index per line, grade)."""
        docs, d_idx = self._doc_codes or _encode(self._columns[1])
        return self._topic_index, docs, d_idx, self._columns[2]


def _show(value) -> str:
    """repr of a value from a user's table, numpy scalars as plain Python values."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _pd():
    import pandas

    return pandas


def _qrels_from_columns(topic, doc, grade, name: str) -> Qrels:
    return Qrels(columns=(topic, doc, grade), name=name)


def read_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a TREC qrels file (``topic iteration doc grade``), the way trec_eval 10 reads it
    (``get_qrels.c``), with :func:`read_run`'s rules for whitespace, gzip, blank lines (trec_eval
    refuses them in qrels; they carry no data, so irrepro skips them) and ``#`` comment lines
    (trec_eval skips them when ``#`` is a line's first character), and:

    * a line has exactly 4 fields (trec_eval refuses more); the iteration is ignored;
    * the grade is an integer (``2``, ``-1``, ``2.0``) that fits 32 bits (-2147483648 to
      2147483647): ``1e20`` or ``x`` is refused. A negative grade means "not judged";
    * a document judged twice for one topic is refused.

    Every refusal raises :class:`DataError` naming the file, the line and the problem.
    """
    import pyarrow as pa

    path = Path(path)
    data = _read_bytes(path, "qrels")
    table = _fast_table(data, 4, {1: pa.binary(), 3: pa.int64()}, extra_empty=True)
    if table is not None:
        td, ti = _dict_parts(table.column("c0"))
        dd, di = _dict_parts(table.column("c2"))
        grade = _np(table.column("c3"), np.int64)
        ok = len(grade) > 0 and grade.min() >= _GRADE_MIN and grade.max() <= _GRADE_MAX
        if ok and _duplicate_pair(ti, di, len(dd)) is None:
            q = _qrels_from_columns(_strings(td)[ti], _strings(dd)[di], grade, name or path.name)
            q._doc_codes = (dd, di)  # the pyarrow dictionary of doc ids, for building run sets
            return q
    return _read_qrels_slow(data, path, name or path.name)


def _read_qrels_slow(data: bytes, path: Path, name: str) -> Qrels:
    topics, docs, grades = [], [], []
    first: dict[tuple[bytes, bytes], int] = {}
    for i, f in _data_lines(data, path, "qrels"):
        if len(f) != 4:
            raise _field_count_error(path, i, "qrels", _QRELS_LAYOUT, 4, len(f))
        t, d = _text(f[0], path, i, "topic id"), _text(f[2], path, i, "document id")
        g = _parse_grade(f[3], path, i)
        key = (f[0], f[2])
        if key in first:
            raise DataError(
                path, i, f"duplicate judgment for document {d!r} in topic {t!r} (first at line {first[key]})"
            )
        first[key] = i
        topics.append(t), docs.append(d), grades.append(g)
    if not topics:
        raise DataError(path, None, "empty qrels file (only blank or comment lines)")
    return _qrels_from_columns(topics, docs, grades, name)


def qrels_from_records(records: Iterable[tuple[str, str, int]], name: str = "") -> Qrels:
    """Build :class:`Qrels` from ``(topic, doc, grade)`` tuples (e.g. ir_datasets' qrels_iter).
    A duplicate (topic, doc) or a grade that is not a 32-bit integer raises :class:`DataError`
    naming the record (1-based)."""
    rows = list(records)
    table = _pd().DataFrame(rows, columns=["topic", "doc", "grade"])
    return _checked_qrels(table, name or "qrels", "record")


def _rows_named(table, name: str, unit: str):
    """Refuse a table with a missing topic or doc id; return ``where(i)``, naming its row ``i``
    (1-based, with its ids) in messages."""
    for col in ("topic", "doc"):
        bad = table[col].isna().to_numpy()
        if bad.any():
            raise DataError(name, None, f"{unit} {int(np.flatnonzero(bad)[0]) + 1}: missing {col}")

    def where(i: int) -> str:
        return f"{unit} {i + 1} (topic {table['topic'].iat[i]!r}, document {table['doc'].iat[i]!r})"

    return where


def _checked_qrels(table: pd.DataFrame, name: str, unit: str) -> Qrels:
    """Qrels from a (topic, doc, grade) frame of any origin, with every row checked: the message
    names the ``unit`` (``record``, ``row``, ``entry``) by its 1-based position, and its ids."""
    pd = _pd()
    where = _rows_named(table, name, unit)
    raw = table["grade"].to_numpy()
    g = pd.to_numeric(table["grade"], errors="coerce").to_numpy(dtype=np.float64)
    if raw.dtype == object:  # e.g. strings: only integer literals, as in a qrels file
        g = np.where([isinstance(x, str) and _INTEGER.fullmatch(x.strip().encode()) is None for x in raw], np.nan, g)
    ok = np.isfinite(g) & (g == np.round(g)) & (g >= _GRADE_MIN) & (g <= _GRADE_MAX)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        problem = "does not fit 32 bits" if np.isfinite(g[i]) and g[i] == np.round(g[i]) else "is not an integer"
        raise DataError(name, None, f"{where(i)}: relevance grade {_show(raw[i])} {problem}")
    topic = table["topic"].astype(str).to_numpy(dtype=object)
    doc = table["doc"].astype(str).to_numpy(dtype=object)
    grade = g.astype(np.int64)
    t_d, t_i = _encode(topic)
    d_d, d_i = _encode(doc)
    dup = _duplicate_pair(t_i, d_i, len(d_d))
    if dup is not None:
        first = int(np.flatnonzero((t_i == t_i[dup]) & (d_i == d_i[dup]))[0])
        raise DataError(name, None, f"{where(dup)}: duplicate judgment (first at {unit} {first + 1})")
    return _qrels_from_columns(topic, doc, grade, name)


# --------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _RunCols:
    """A run as columns: topic and doc ids dictionary-encoded (pyarrow dictionaries + int32
    indices), scores as float64, in any row order; (topic, doc) pairs are unique."""

    name: str
    path: str
    topic_dict: list
    t_idx: np.ndarray
    doc_dict: object  # pyarrow StringArray
    d_idx: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.score)

    def frame(self) -> pd.DataFrame:
        topics = np.asarray(self.topic_dict, dtype=object)
        docs = _strings(self.doc_dict)
        return _pd().DataFrame({"topic": topics[self.t_idx], "doc": docs[self.d_idx], "score": self.score})


@dataclass(frozen=True, eq=False)
class Run:
    """One parsed TREC run: ``table`` has columns topic, doc, score (float64), in file order
    (for a run read from a file by the fast reader, in no particular order)."""

    name: str
    table: pd.DataFrame
    path: str = ""
    _cols: _RunCols | None = field(default=None, repr=False, compare=False)


def _run_cols_from_parts(name, path, topics, docs, scores) -> _RunCols:
    td, ti = _encode(topics)
    dd, di = _encode(docs)
    return _RunCols(name, str(path), td.to_pylist(), ti, dd, di, np.asarray(scores, dtype=np.float64))


def _parse_run(path: str | Path) -> _RunCols:
    """Read a run file into columns (conventions in the module docstring)."""
    path = Path(path)
    data = _read_bytes(path, "run")
    cols = _parse_run_fast(data, path)
    if cols is not None:
        return cols
    return _parse_run_slow(data, path)


def _parse_run_fast(data: bytes, path: Path) -> _RunCols | None:
    """The fast pass over a run file's bytes, or None (then the slow pass reads it)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _fast_table(
        data, 6, {1: pa.binary(), 3: pa.binary(), 4: pa.float64(), 5: pa.binary()}, extra_empty=False,
        lean=((1, 3), 5),
    )  # fmt: skip
    if table is None:
        return None
    meta = table.schema.metadata or {}
    if b"constant" in meta:  # the tag, checked on every line by _fast_table
        tag = meta[b"constant"]
    else:
        tag_col = table.column("c5")
        if len(tag_col) == 0 or not pc.all(pc.equal(tag_col, tag_col[0])).as_py():
            return None  # no line, or the tag changes: the slow pass says where
        tag = tag_col[0].as_py()
    if table.num_rows == 0:
        return None
    try:
        tag = tag.decode("utf-8")
    except UnicodeDecodeError:
        return None
    td, ti = _dict_parts(table.column("c0"))
    dd, di = _dict_parts(table.column("c2"))
    score = _np(table.column("c4"), np.float64)
    if not np.isfinite(score).all() or _duplicate_pair(ti, di, len(dd)) is not None:
        return None
    return _RunCols(tag, str(path), td.to_pylist(), ti, dd, di, score)


def _parse_run_slow(data: bytes, path: Path) -> _RunCols:
    topics, docs, scores = [], [], []
    tag = tag_line = None
    first: dict[tuple[bytes, bytes], int] = {}
    for i, f in _data_lines(data, path, "run"):
        if len(f) < 6:
            raise _field_count_error(path, i, "run", _RUN_LAYOUT, 6, len(f), at_least=True)
        t, d = _text(f[0], path, i, "topic id"), _text(f[2], path, i, "document id")
        s = _parse_score(f[4], path, i)
        if tag is None:
            tag, tag_line = _text(f[5], path, i, "run tag"), i
        elif f[5] != tag.encode():
            raise DataError(
                path, i, f"run tag changes from {tag!r} (line {tag_line}) to "
                f"{_text(f[5], path, i, 'run tag')!r}; one run per file, please"
            )  # fmt: skip
        key = (f[0], f[2])
        if key in first:
            raise DataError(path, i, f"duplicate document {d!r} in topic {t!r} (first at line {first[key]})")
        first[key] = i
        topics.append(t), docs.append(d), scores.append(s)
    if not topics:
        raise DataError(path, None, "empty run file (only blank or comment lines)")
    return _run_cols_from_parts(tag, path, topics, docs, scores)


def read_run(path: str | Path) -> Run:
    """Read a TREC run file (``topic Q0 doc rank score tag``), the way trec_eval 10 reads it
    (checked against its ``get_trec_results.c``):

    * Fields are separated by any run of whitespace (space, tab, ``\\r``, ``\\v``, ``\\f``); a
      line ends at ``\\n`` (Windows ``\\r\\n`` line ends are fine). Files may be gzip-compressed
      (detected by content, not by name); text is UTF-8, and a byte order mark at the start is
      dropped (trec_eval would make it part of the first topic id).
    * Blank lines (empty or whitespace only) are skipped anywhere, a trailing one included.
    * A line whose first non-blank character is ``#`` is a comment and is skipped.
    * A line has at least 6 fields; fields after the 6th are ignored, as are the second (``Q0``)
      and the fourth (the rank): trec_eval ranks by score (:func:`build_runset`).
    * The score must be a finite decimal number (``12``, ``-0.5``, ``1.5e-3``): trec_eval's
      ``atof`` would read ``high`` or ``1.5abc`` silently as 0 or 1.5; irrepro refuses them.
    * A file holds one run, named by its tag: a file whose tag changes is refused at the line
      where it changes (trec_eval names the run by the last line's tag without checking).
    * A document twice in one topic is refused, as trec_eval refuses it.

    Every refusal raises :class:`DataError` naming the file, the line and the problem. A fast
    columnar reader (pyarrow's CSV reader) reads the file; when it meets anything unusual, a
    line-by-line pass of the same conventions reads it instead, and names the offending line.
    """
    cols = _parse_run(path)
    return Run(cols.name, cols.frame(), cols.path, cols)


def _run_cols_of(run: Run) -> _RunCols:
    """The columns of a :class:`Run` (a user's table is checked row by row)."""
    if run._cols is not None:
        return run._cols
    tab = run.table
    where = run.path or run.name or "run"
    missing = [c for c in ("topic", "doc", "score") if c not in tab.columns]
    if missing:
        raise DataError(where, None, f"run table lacks column(s) {missing}; it has {list(tab.columns)}")
    at = _rows_named(tab, where, "row")
    score = _pd().to_numeric(tab["score"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(score)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(where, None, f"{at(i)}: score {_show(tab['score'].iat[i])} is not a finite number")
    topics = tab["topic"].astype(str).to_numpy(dtype=object)
    docs = tab["doc"].astype(str).to_numpy(dtype=object)
    cols = _run_cols_from_parts(run.name, run.path, topics, docs, score)
    dup = _duplicate_pair(cols.t_idx, cols.d_idx, len(cols.doc_dict))
    if dup is not None:
        first = int(np.flatnonzero((cols.t_idx == cols.t_idx[dup]) & (cols.d_idx == cols.d_idx[dup]))[0])
        raise DataError(where, None, f"{at(dup)}: duplicate document (first at row {first + 1})")
    return cols


# --------------------------------------------------------------------------------------------
# the shared in-memory form of a set of runs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RunSet:
    """A set of runs over the same topics, stored ragged: one flat array of every ranked list, in
    trec_eval's rank order, with offsets (memory follows the number of retrieved documents).

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
        Document ids of runs and qrels, sorted (code order is the ids' byte order).
    qrels : Qrels
    name, source : str
        The collection name and where its files came from (``"simulated"`` for the stand-in).
    ignored_topics : dict run -> tuple of topics in the run but not in the qrels (not evaluated,
        as trec_eval does).
    precision : ``"float32"`` or ``"float64"``, how scores were compared when ranking.

    ``lengths`` (S, T), and the dense ``grades`` / ``doc_codes`` (S, T, K) arrays (K the longest
    list, padded with ``PAD`` / -1) are derived on demand: use :meth:`iter_blocks` for work whose
    memory must follow the number of lines.
    """

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    offsets: np.ndarray
    flat_grades: np.ndarray
    flat_docs: np.ndarray
    vocab: np.ndarray
    qrels: Qrels
    name: str = ""
    source: str = ""
    ignored_topics: dict = field(default_factory=dict)
    precision: str = "float32"

    def __post_init__(self):
        S, T = len(self.runs), len(self.topics)
        off = self.offsets
        if off.shape != (S * T + 1,) or (len(off) and (off[0] != 0 or off[-1] != len(self.flat_grades))):
            raise ValueError(f"offsets must be (S*T + 1,) = ({S * T + 1},) from 0 to N, got {off.shape}")
        if self.flat_docs.shape != self.flat_grades.shape:
            raise ValueError("flat_docs and flat_grades differ in length")

    # -- shape and derived views ------------------------------------------------------------

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
        """Dense int32 (S, T, K): the grade at each rank, ``PAD`` (-2) past the end of a list.
        Built on demand (and kept); memory is S x T x the longest list."""
        return self._dense(self.flat_grades, PAD)

    @cached_property
    def doc_codes(self) -> np.ndarray:
        """Dense int32 (S, T, K): index into ``vocab`` at each rank, -1 past the end of a list."""
        return self._dense(self.flat_docs, -1)

    def iter_blocks(self, max_cells: int = 1 << 20, depth: int | None = None):
        """Yield ``(index, block)`` covering every list exactly once: ``index`` int64 (n,) flat
        list indices ``s*T + t``, ``block`` int32 (n, k) grades padded with ``PAD``, k >= 1.
        Lists are grouped by length so that n*k stays near ``max_cells`` (a single longer list
        gets a block of its own); ``depth`` cuts every list at that rank (trec_eval ``-M``)."""
        if depth is not None and depth < 1:
            raise ValueError("depth must be >= 1")
        return self._blocks(self.flat_grades, PAD, max_cells, depth)

    def _blocks(self, flat: np.ndarray, fill: int, max_cells: int = 1 << 20, depth: int | None = None):
        lens = np.diff(self.offsets)
        if depth is not None:
            lens = np.minimum(lens, depth)
        order = np.argsort(lens, kind="stable")
        sl = lens[order]
        n_lists, i = len(order), 0
        max_cells = max(int(max_cells), 1)
        while i < n_lists:
            # the largest j with (j - i) * max(sl[j - 1], 1) <= max_cells (at least one list)
            lo, hi = i + 1, n_lists
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if (mid - i) * max(int(sl[mid - 1]), 1) <= max_cells:
                    lo = mid
                else:
                    hi = mid - 1
            j = lo
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
            i = j

    def truncate(self, depth: int) -> "RunSet":
        """The same run set with every list cut at ``depth`` documents (trec_eval ``-M``)."""
        if depth < 1:
            raise ValueError("depth must be >= 1")
        keep = self._ranks() < depth
        lens = np.minimum(np.diff(self.offsets), depth)
        return replace(
            self,
            offsets=np.r_[0, np.cumsum(lens)].astype(np.int64),
            flat_grades=self.flat_grades[keep],
            flat_docs=self.flat_docs[keep],
        )

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
        """``(list_index, rank)`` (int64, 0-based ranks) of every retrieved document with grade
        >= ``rel``, lists in order (``s*T + t``) and ranks ascending within a list."""
        hit = np.flatnonzero(self.flat_grades >= rel)
        lists = np.searchsorted(self.offsets, hit, side="right") - 1
        return lists.astype(np.int64), (hit - self.offsets[lists]).astype(np.int64)

    def doc_ids(self, s: int, t: int) -> np.ndarray:
        """The ranked document ids of run ``s`` on topic ``t``."""
        i = s * len(self.topics) + t
        return self.vocab[self.flat_docs[self.offsets[i] : self.offsets[i + 1]]]

    def coverage(self) -> pd.DataFrame:
        """One row per run: ``topics`` (of the qrels), ``retrieved`` (qrels topics with at least
        one document; the others score 0 under trec_eval -c), ``missing`` (those topic ids) and
        ``ignored`` (the run's topics absent from the qrels, not evaluated)."""
        L = self.lengths
        rows = []
        for s, run in enumerate(self.runs):
            got = L[s] > 0
            rows.append({
                "run": run, "topics": len(self.topics), "retrieved": int(got.sum()),
                "missing": tuple(t for t, g in zip(self.topics, got) if not g),
                "ignored": tuple(self.ignored_topics.get(run, ())),
            })  # fmt: skip
        return _pd().DataFrame(rows, columns=["run", "topics", "retrieved", "missing", "ignored"])

    # -- selection and export ---------------------------------------------------------------

    def subset(self, runs: Sequence | None = None, topics: Sequence | None = None) -> "RunSet":
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
            flat_docs=self.flat_docs[src],
            qrels=q,
            ignored_topics={r: v for r, v in self.ignored_topics.items() if r in names},
        )

    def run_dict(self, s: int) -> dict[str, dict[str, float]]:
        """Run ``s`` in pytrec_eval's form ``{topic: {doc: score}}`` with scores that reproduce
        this ranking (descending from the list length)."""
        out = {}
        for t, topic in enumerate(self.topics):
            docs = self.doc_ids(s, t)
            if len(docs):
                out[topic] = {str(d): float(len(docs) - i) for i, d in enumerate(docs)}
        return out

    def nbytes(self) -> int:
        return self.offsets.nbytes + self.flat_grades.nbytes + self.flat_docs.nbytes

    def save(self, path: str | Path) -> None:
        """Write the arrays and qrels to an ``.npz`` file, atomically."""
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

        atomic_write(path, write)

    @classmethod
    def load(cls, path: str | Path, *, name: str = "", source: str = "") -> "RunSet":
        """Read a RunSet written by :meth:`save` (raises on a damaged file)."""
        with np.load(path, allow_pickle=False) as z:
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
            raise KeyError(f"{x!r} is not one of {names[:5]}...")
    return out


# --------------------------------------------------------------------------------------------
# building a RunSet: rank every run trec_eval's way
# --------------------------------------------------------------------------------------------


def _descending_bits(score: np.ndarray, precision: str) -> np.ndarray:
    """Unsigned ints whose ascending order is the scores' descending order as trec_eval compares
    them (C ``float`` for ``"float32"``, ``double`` for ``"float64"``); -0.0 ties with +0.0."""
    f = score.astype(np.float32 if precision == "float32" else np.float64)
    f += f.dtype.type(0.0)  # -0.0 becomes +0.0
    u = np.uint32 if precision == "float32" else np.uint64
    bits = f.view(u)
    top = u(31 if u is np.uint32 else 63)
    # order-preserving map of float bits to unsigned ints (flip all bits of negatives, the sign
    # bit of the others), then complemented for descending order
    flip = np.where(bits >> top, u(np.iinfo(u).max), u(1) << top)
    return ~(bits ^ flip)


@dataclass
class _Ranked:
    t: np.ndarray | None  # int32 topic index of each ranked entry (ascending)
    docs: np.ndarray | None  # int32 vocabulary code of each ranked entry
    counts: np.ndarray  # int64 (T,)
    ignored: tuple


def _rank_run(cols: _RunCols, codes: np.ndarray, V: int, tindex: dict, T: int, precision: str) -> _Ranked:
    """trec_eval's order of one run: topic (qrels order), score descending, doc id descending.
    ``codes`` maps the run's doc dictionary to vocabulary codes (code order = byte order)."""
    tmap = np.array([tindex.get(t, -1) for t in cols.topic_dict], dtype=np.int32)
    ignored = tuple(topic_order(t for t, m in zip(cols.topic_dict, tmap) if m < 0))
    t = tmap[cols.t_idx] if len(tmap) else np.zeros(0, dtype=np.int32)
    d, score = codes[cols.d_idx], cols.score
    if ignored:
        keep = t >= 0
        t, d, score = t[keep], d[keep], score[keep]
    if len(t) == 0:
        some = ", ".join(repr(x) for x in ignored[:5]) + (", ..." if len(ignored) > 5 else "")
        qsome = ", ".join(repr(x) for x in list(tindex)[:5]) + (", ..." if len(tindex) > 5 else "")
        raise DataError(
            cols.path or cols.name, None, f"run {cols.name!r} matches no topic of the qrels: its "
            f"topics are {some}; the qrels' are {qsome} (wrong qrels file?)"
        )  # fmt: skip
    sb = _descending_bits(score, precision)
    bt, bd = max(1, (T - 1).bit_length()), max(1, (V - 1).bit_length())
    bs = 32 if precision == "float32" else 64
    if bt + bs + bd <= 64:  # one key (topic, score, doc) packed in 64 bits, sorted in place
        key = t.astype(np.uint64) << np.uint64(bs + bd)
        key |= sb.astype(np.uint64) << np.uint64(bd)
        key |= (V - 1) - d.astype(np.uint64)  # ascending = doc id descending
        key.sort()
        t = (key >> np.uint64(bs + bd)).astype(np.int32)
        d = ((V - 1) - (key & np.uint64((1 << bd) - 1))).astype(np.int32)
    else:
        order = np.lexsort((-d.astype(np.int64), sb, t))
        t, d = t[order], d[order]
    return _Ranked(t, d, np.bincount(t, minlength=T).astype(np.int64), ignored)


class _GradeIndex:
    """Grade of (topic, vocabulary code) pairs: the qrels' grade when it is >= 0, else UNJUDGED.
    A dense (topic, doc) table of grade levels when it is small, else a sorted key search."""

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
        if self.table is not None:
            return self.lut[self.table[t, d]]
        out = np.full(len(t), UNJUDGED, dtype=np.int32)
        if len(self.keys) and len(t):
            rkey = t.astype(np.int64) * self.V + d
            pos = np.minimum(np.searchsorted(self.keys, rkey), len(self.keys) - 1)
            found = self.keys[pos] == rkey
            out[found] = self.grades[pos[found]]
        return out


def _assemble(cols: list[_RunCols], qrels: Qrels, *, name: str, source: str, precision: str) -> RunSet:
    """Rank every run (in threads: results do not depend on their number) and lay all of them
    out as one ragged :class:`RunSet` with one sorted vocabulary for runs and qrels. ``cols`` is
    consumed: its items are released (set to None) as the runs are ranked."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if precision not in _PRECISIONS:
        raise ValueError(f"precision must be one of {_PRECISIONS}, not {precision!r}")
    if not cols:
        raise ValueError("no runs given")
    names = [c.name for c in cols]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        where = [c.path for c in cols if c.name in dupes]
        raise ValueError(f"run name(s) {dupes} appear in more than one file: {where}")
    topics = qrels.topics
    T = len(topics)
    tindex = {t: i for i, t in enumerate(topics)}

    # one vocabulary: every run's dictionary and the qrels' documents, sorted by byte order
    q_t, q_docs, q_didx, q_g = qrels._arrays
    enc = pa.chunked_array([*(c.doc_dict for c in cols), q_docs], pa.string()).dictionary_encode()
    if any(len(ch.dictionary) != len(enc.chunk(0).dictionary) for ch in enc.chunks):
        enc = pa.table({"d": enc}).unify_dictionaries().column(0)  # (pyarrow shares one already)
    uniq = enc.chunk(0).dictionary
    idx = np.concatenate([_np(ch.indices, np.int32) for ch in enc.chunks])
    by_id = pc.sort_indices(uniq)
    vocab = _strings(uniq.take(by_id))
    V = len(uniq)
    code = np.empty(V, dtype=np.int32)
    code[_np(by_id, np.uint64)] = np.arange(V, dtype=np.int32)
    remap = code[idx]
    del enc, idx, uniq, by_id, code
    starts = np.cumsum([0] + [len(c.doc_dict) for c in cols])

    grade_of = _GradeIndex(q_t, remap[starts[-1] + q_didx], q_g, T, V)
    # every run writes its ranked lists straight into the flat arrays, at its rows' place
    row_start = np.cumsum([0] + [len(c) for c in cols])
    flat_docs = np.empty(row_start[-1], dtype=np.int32)
    flat_grades = np.empty(row_start[-1], dtype=np.int32)

    def rank(i: int) -> _Ranked:
        r = _rank_run(cols[i], remap[starts[i] : starts[i + 1]], V, tindex, T, precision)
        a, n = row_start[i], len(r.docs)
        flat_docs[a : a + n] = r.docs
        flat_grades[a : a + n] = grade_of(r.t, r.docs)
        r.t = r.docs = None  # the offsets keep the topics
        cols[i] = None  # this run's columns are no longer needed (the caller hands them over)
        return r

    if len(cols) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(_n_threads(len(cols))) as ex:
            ranked = list(ex.map(rank, range(len(cols))))
    else:
        ranked = [rank(0)]
    kept = np.array([int(r.counts.sum()) for r in ranked])
    if (kept != np.diff(row_start)).any():  # rows of ignored topics: close the gaps
        keep = np.zeros(row_start[-1], dtype=bool)
        for a, n in zip(row_start[:-1], kept):
            keep[a : a + n] = True
        flat_docs, flat_grades = flat_docs[keep], flat_grades[keep]
    counts = np.stack([r.counts for r in ranked])
    return RunSet(
        runs=tuple(names),
        topics=tuple(topics),
        offsets=np.r_[0, np.cumsum(counts.ravel())].astype(np.int64),
        flat_grades=flat_grades,
        flat_docs=flat_docs,
        vocab=vocab,
        qrels=qrels,
        name=name,
        source=source,
        ignored_topics={n: r.ignored for n, r in zip(names, ranked) if r.ignored},
        precision=precision,
    )


def build_runset(
    runs: Sequence[Run], qrels: Qrels, *, name: str = "", source: str = "", precision: str = "float32"
) -> RunSet:
    """Rank every run trec_eval's way and lay all of them out as one :class:`RunSet`.

    ``precision`` is how scores are compared: ``"float32"`` (default; trec_eval <= 9.0.8,
    pytrec_eval and NIST's official scores) or ``"float64"`` (trec_eval 10). A run none of whose
    topics is in the qrels raises :class:`DataError` naming it and a few ids of both.
    """
    cols = [_run_cols_of(r) for r in runs]
    return _assemble(cols, qrels, name=name, source=source, precision=precision)


def _read_runs(paths: Sequence[Path], progress: bool = False, desc: str = "reading") -> list[_RunCols]:
    """Parse run files concurrently (one thread per core; the result does not depend on it)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(_n_threads(len(paths))) as ex:
        it = ex.map(_parse_run, paths)
        if not progress:
            return list(it)
        from tqdm import tqdm

        return list(tqdm(it, total=len(paths), desc=desc, unit="run"))


# --------------------------------------------------------------------------------------------
# score matrices
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """Per-topic scores of one measure: ``scores[s, t]`` for system ``s`` on topic ``t``."""

    scores: np.ndarray  # float64 (S, T)
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    measure: str
    collection: str = ""
    source: str = ""

    def __post_init__(self):
        if self.scores.shape != (len(self.systems), len(self.topics)):
            raise ValueError(
                f"scores have shape {self.scores.shape}, expected "
                f"({len(self.systems)} systems, {len(self.topics)} topics)"
            )

    @property
    def simulated(self) -> bool:
        return self.source == "simulated"

    @property
    def shape(self) -> tuple[int, int]:
        return self.scores.shape

    def mean(self) -> np.ndarray:
        """Mean over topics per system (e.g. MAP from AP)."""
        return self.scores.mean(axis=1)

    def subset(self, systems: Sequence | None = None, topics: Sequence | None = None) -> "ScoreMatrix":
        """Restrict to some systems and/or topics (names or integer indices)."""
        si, ti = _indices(self.systems, systems), _indices(self.topics, topics)
        return replace(
            self,
            scores=self.scores[np.ix_(si, ti)],
            systems=tuple(self.systems[i] for i in si),
            topics=tuple(self.topics[i] for i in ti),
        )

    def to_frame(self) -> pd.DataFrame:
        """A DataFrame with systems as rows and topics as columns."""
        return _pd().DataFrame(self.scores, index=list(self.systems), columns=list(self.topics))


def read_score_matrix(
    path: str | Path,
    measure: str,
    *,
    topics: Sequence[str] | None = None,
    collection: str = "",
    source: str = "",
) -> ScoreMatrix:
    """Read a topics x systems CSV (one row per topic, one column per system, optional first
    column ``topic``) into a systems x topics :class:`ScoreMatrix`.

    ``topics`` names the rows when the file has no ``topic`` column; without either, rows are
    named ``row1``, ``row2``, ...
    """
    pd = _pd()
    path = Path(path)
    if not path.is_file():
        raise DataError(path, None, "score-matrix file not found")
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError as exc:
        raise DataError(path, None, "empty score-matrix file") from exc
    except pd.errors.ParserError as exc:
        raise DataError(path, None, f"malformed CSV ({exc})") from exc
    if len(df) == 0 or df.shape[1] == 0:
        raise DataError(path, None, "empty score-matrix file")
    if df.columns[0].strip().lower() == "topic":
        row_names = [str(t) for t in df.iloc[:, 0]]
        df = df.iloc[:, 1:]
    elif topics is not None:
        if len(topics) != len(df):
            raise DataError(path, None, f"{len(df)} rows but {len(topics)} topic ids were given")
        row_names = [str(t) for t in topics]
    else:
        row_names = [f"row{i + 1}" for i in range(len(df))]
    values = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise DataError(
            path, i + 2, f"value {df.iat[i, j]!r} in column {df.columns[j]!r} is not a finite number"
        )
    return ScoreMatrix(
        scores=np.ascontiguousarray(values.T),
        systems=tuple(str(c) for c in df.columns),
        topics=tuple(row_names),
        measure=measure,
        collection=collection,
        source=source,
    )
