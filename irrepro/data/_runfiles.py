"""Reading a TREC run file into columns (:class:`_RunCols`): the fast columnar pass a piece of the
file at a time, the line-numbered slow pass when the fast one meets anything unusual (the
conventions: :func:`~irrepro.data.load_runs`' Notes)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._arrays import _np, _strings
from ._columns import _dict_parts, _duplicate_pair, _encode, _fast_table
from ._common import DataError, _pd, _release_memory
from ._textfiles import _fspath, _line_pieces, _parse_score, _read_bytes, _rereadable, _slow_pass, _text

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class _RunCols:
    """A run as columns: topic and doc ids dictionary-encoded, scores float64, unique (topic, doc) pairs; ``order``: "" or the precision it serves."""

    name: str
    path: str
    topic_dict: Any  # pyarrow StringArray
    t_idx: np.ndarray
    doc_dict: Any  # pyarrow StringArray
    d_idx: np.ndarray
    score: np.ndarray
    order: str = ""

    def __len__(self) -> int:
        return len(self.score)

    def frame(self) -> pd.DataFrame:
        assert not self.order  # (the scores are there)
        topics, docs = _strings(self.topic_dict), _strings(self.doc_dict)
        return _pd().DataFrame({"topic": topics[self.t_idx], "doc": docs[self.d_idx], "score": self.score})


def _run_cols_from_parts(name, path, topics, docs, scores) -> _RunCols:
    td, ti = _encode(topics)
    dd, di = _encode(docs)
    return _RunCols(name, str(path), td, ti, dd, di, np.asarray(scores, dtype=np.float64))


def _parse_run(path: str | Path) -> _RunCols:
    """Read a run file into columns a piece at a time by the fast pass, by the slow pass when it meets anything unusual."""
    path = _fspath(path)
    kept: list | None = None if _rereadable(path) else []  # (a pipe: its bytes, for the slow pass)
    pieces = _line_pieces(path, "run")
    cols = _parse_run_fast(pieces if kept is None else _keeping(pieces, kept), path)
    if cols is not None:
        return cols
    if kept is None:
        pieces.close()
        data: bytes | bytearray = _read_bytes(path, "run")
    else:
        data = b"".join([*kept, *pieces])
        del kept
    return _parse_run_slow(data, path)


def _keeping(pieces: Iterator, kept: list) -> Iterator:
    """``pieces``, each also put in ``kept``."""
    for piece in pieces:
        kept.append(piece)
        yield piece


def _parse_run_fast(pieces: Iterable, path: Path) -> _RunCols | None:
    """The fast pass over a run file's pieces (ending at line ends), or None (then the slow pass reads it)."""
    tables: list = []
    tag = None
    for piece in pieces:
        fast = _fast_run_table(piece)
        del piece
        if fast is None or (tag is not None and fast[1] is not None and fast[1] != tag):
            return None  # (or the tag changes between pieces: the slow pass says where)
        tables.append(fast[0])
        tag = tag if fast[1] is None else fast[1]
        del fast
        if len(tables) > 1:  # a large file: the parser's freed memory back to the system, piece by piece
            _release_memory()
    return None if tag is None else _run_cols_of_tables(tables, tag, path)


def _fast_run_table(data: bytes | bytearray) -> tuple | None:
    """The fast pass over a piece of a run file: its table (c0 topic, c2 doc, c4 score) and tag, or None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _fast_table(
        data, 6, {1: pa.binary(), 3: pa.binary(), 4: pa.float64(), 5: pa.binary()}, extra_empty=False,
        lean=((1, 3), 5),
    )  # fmt: skip
    if table is None:
        return None
    if table.num_rows == 0:
        return table.select(["c0", "c2", "c4"]), None
    meta = table.schema.metadata or {}
    if b"constant" in meta:  # the tag, checked on every line by _fast_table
        tag = meta[b"constant"]
    else:
        tag_col = table.column("c5")
        if not pc.all(pc.equal(tag_col, tag_col[0])).as_py():
            return None  # the tag changes: the slow pass says where
        tag = tag_col[0].as_py()
    try:
        return table.select(["c0", "c2", "c4"]).replace_schema_metadata(None), tag.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _run_cols_of_tables(tables: list, tag: str, path: Path) -> _RunCols | None:
    """The columns of a run from the fast pass's tables (the list is emptied), or None when the slow pass must name a bad line."""
    import pyarrow as pa

    table = pa.concat_tables(tables)
    tables.clear()
    score = _np(table.column("c4"), np.float64)
    if not np.isfinite(score).all():
        return None
    td, ti = _dict_parts(table.column("c0"))
    docs = table.column("c2").chunks  # (a list _dict_parts empties: each chunk freed once merged)
    del table
    dd, di = _dict_parts(docs, by_sorting=True)
    if _duplicate_pair(ti, di, len(dd)) is not None:
        return None
    return _RunCols(tag, str(path), td, ti, dd, di, score)


def _parse_run_slow(data: bytes | bytearray, path: Path) -> _RunCols:
    tag = tag_line = None

    def score(f: list[bytes], i: int) -> float:
        nonlocal tag, tag_line
        s = _parse_score(f[4], path, i)
        if tag is None:
            tag, tag_line = _text(f[5], path, i, "run tag"), i
        elif f[5] != tag.encode():
            raise DataError(
                path, i, f"run tag changes from {tag!r} (line {tag_line}) to "
                f"{_text(f[5], path, i, 'run tag')!r}; one run per file, please"
            )  # fmt: skip
        return s

    topics, docs, scores = _slow_pass(data, path, "run", score, "document")
    return _run_cols_from_parts(tag, path, topics, docs, scores)
