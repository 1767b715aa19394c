"""Runs: a TREC run file or a user's table read into columns (:class:`_RunCols`), and runs ranked
trec_eval's way into a :class:`~irrepro.data.RunSet`: score descending, ties by document id
descending (byte order), the rank column ignored; scores compared as C ``float`` (trec_eval <= 9.0.8,
NIST's official scores) or, with ``precision="float64"``, as doubles (trec_eval 10)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from . import _common
from ._columns import (
    _ascending,
    _dict_parts,
    _duplicate_pair,
    _encode,
    _fast_table,
    _np,
    _pa_strings,
    _pa_view,
    _places,
    _positions,
    _strings,
    _union_dictionary,
)
from ._common import _PRECISIONS, DataError, _n_threads, _pd, _release_memory, _rows_named, _show, topic_order
from ._qrels import Qrels
from ._runset import Deferred, RunSet, _GradeIndex, _Vocabulary
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


@dataclass(frozen=True, eq=False)
class Run:
    """One parsed TREC run: its ``name``, a ``table`` of topic, doc, score (float64) and the ``path`` it was read from."""

    name: str
    table: pd.DataFrame
    path: str = ""
    _cols: _RunCols | None = field(default=None, repr=False, compare=False)


def _for_ranking(cols: _RunCols, precision: str) -> _RunCols:
    """What ranking a run at ``precision`` needs of it, in the smallest types: what load_runs keeps until all runs are read."""

    def narrow(idx: np.ndarray, n: int) -> np.ndarray:
        small = next((t for t in (np.uint8, np.uint16) if n <= np.iinfo(t).max + 1), None)
        return idx if small is None else idx.astype(small)

    return replace(cols, t_idx=narrow(cols.t_idx, len(cols.topic_dict)), d_idx=narrow(cols.d_idx, len(cols.doc_dict)),
                   score=_descending_bits(cols.score, precision), order=precision)  # fmt: skip


def read_run(path: str | Path) -> Run:
    r"""Read a TREC run file (``topic Q0 doc rank score tag``) the way trec_eval 10 reads it (the rules: irrepro.data's API page)."""
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
    if len(tab) == 0:
        raise DataError(
            where, None, f"run {run.name!r} has no rows: a run needs at least one (topic, document, score)"
        )
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


def _descending_bits(score: np.ndarray, precision: str) -> np.ndarray:
    """Unsigned ints whose ascending order is the scores' descending order as trec_eval compares them (-0.0 ties with +0.0)."""
    f = score.astype(np.float32 if precision == "float32" else np.float64)
    f += f.dtype.type(0.0)  # -0.0 becomes +0.0
    u = np.uint32 if precision == "float32" else np.uint64
    bits = f.view(u)
    top = u(31 if u is np.uint32 else 63)
    # order-preserving map of float bits to unsigned ints (flip all bits of negatives, the sign
    # bit of the others), then complemented for descending order
    flip = np.where(bits >> top, u(np.iinfo(u).max), u(1) << top)
    return ~(bits ^ flip)


def _dense_ranks(x: np.ndarray) -> np.ndarray:
    """The rank (uint32, or uint64 past 2**32 values) of each of ``x`` among its distinct values, 0 the smallest."""
    n = len(x)
    it = np.uint32 if n < (1 << 32) else np.uint64
    order = np.argsort(x, kind="stable").astype(it)
    new = np.ones(n, dtype=bool)
    step = 1 << 20  # (compared a block at a time: no sorted copy of x)
    for a in range(0, max(n - 1, 0), step):
        v = x[order[a : a + step + 1]]
        new[a + 1 : a + len(v)] = v[1:] != v[:-1]
    ranks = np.empty(n, dtype=it)
    ranks[order] = np.cumsum(new, dtype=it) - it(1)
    return ranks


@dataclass
class _Ranked:
    t: np.ndarray | None  # int32 topic index of each ranked entry (ascending)
    docs: np.ndarray | None  # int32 vocabulary code of each ranked entry
    counts: np.ndarray  # int64 (T,)
    ignored: tuple


def _rank_run(cols: list, i: int, codes: np.ndarray, V: int, topics, precision: str) -> _Ranked:
    """trec_eval's order of run ``cols[i]`` (topic, score descending, doc id descending), the run taken out of ``cols`` as it is used."""
    run: _RunCols = cols[i]
    cols[i] = None
    name, where, order, score = run.name, run.path or run.name, run.order, run.score
    t_idx, d_idx, topic_dict = run.t_idx, run.d_idx, run.topic_dict
    del run
    T = len(topics)
    tmap = _places(topic_dict, topics)
    ignored = tuple(topic_order(topic_dict.take(_pa_view(np.flatnonzero(tmap < 0))).to_pylist()))
    t = tmap[t_idx] if len(tmap) else np.zeros(0, dtype=np.int32)
    d = codes[d_idx]
    del t_idx, d_idx, topic_dict
    if ignored:
        keep = t >= 0
        t, d, score = t[keep], d[keep], score[keep]
    if len(t) == 0:
        some = ", ".join(repr(x) for x in ignored[:5]) + (", ..." if len(ignored) > 5 else "")
        qsome = ", ".join(repr(str(x)) for x in topics[:5]) + (", ..." if T > 5 else "")
        raise DataError(
            where, None, f"run {name!r} matches no topic of the qrels: its "
            f"topics are {some}; the qrels' are {qsome} (wrong qrels file?)"
        )  # fmt: skip
    assert not order or order == precision  # (read for ranking: the scores' order is there)
    sb = score if order else _descending_bits(score, precision)
    del score
    bt, bd = max(1, (T - 1).bit_length()), max(1, (V - 1).bit_length())
    bs = 32 if precision == "float32" else 64
    if bt + bs + bd > 64:  # the scores' ranks among the run's distinct scores: the same order, fewer bits
        sb = _dense_ranks(sb)
        bs = max(1, int(sb.max(initial=0)).bit_length())
    step = 1 << 20  # (the keys made and unpacked a block at a time: no temporary of their size)
    if bt + bs + bd <= 64:  # one key (topic, score, doc) packed in 64 bits, sorted in place
        key = t.astype(np.uint64)
        del t
        key <<= np.uint64(bs + bd)
        for a in range(0, len(key), step):
            part = sb[a : a + step].astype(np.uint64)
            part <<= np.uint64(bd)
            key[a : a + step] |= part
            part[:] = d[a : a + step]
            np.subtract(np.uint64(V - 1), part, out=part)  # ascending = doc id descending
            key[a : a + step] |= part
        del part, sb, d
        # timsort (kind='stable'; the keys are distinct, so any sort gives the same order): a run file
        # lists each topic's documents mostly by score already, and timsort takes those stretches
        # as they are (126 TREC-COVID runs: 0.02 s against quicksort's 0.21 s)
        key.sort(kind="stable")
        t, d = np.empty(len(key), dtype=np.int32), np.empty(len(key), dtype=np.int32)
        for a in range(0, len(key), step):
            k = key[a : a + step]
            t[a : a + step] = k >> np.uint64(bs + bd)
            d[a : a + step] = (V - 1) - (k & np.uint64((1 << bd) - 1))
        del key
    else:
        by = np.lexsort(((V - 1) - d.astype(np.int64), sb, t))
        t, d = t[by], d[by]
    return _Ranked(t, d, np.bincount(t, minlength=T).astype(np.int64), ignored)


def _assemble(
    cols: list[_RunCols], qrels: Qrels, *, name: str, source: str, precision: str, twins: bool = True
) -> RunSet:
    """Rank every run (in threads) and lay them out as one ragged RunSet with one sorted vocabulary; ``cols`` is consumed."""
    import pyarrow.compute as pc

    if precision not in _PRECISIONS:
        raise InputError(f"precision must be one of {_PRECISIONS}, not {precision!r}")
    if not cols:
        raise InputError("no runs given")
    names = [c.name for c in cols]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(
            f"run name(s) {dupes} appear in more than one file: {[c.path for c in cols if c.name in dupes]}"
        )
    if twins:
        _common.look_alike(names, [c.path for c in cols], "run names")
    topics = qrels.topics
    T = len(topics)
    try:  # (looked up in pyarrow's hash table: a dict of a million ids costs ~70 MB)
        topic_ids = _pa_strings(topics)
    except UnicodeEncodeError:  # (a lone surrogate in a Qrels object's ids: a dict, _places)
        topic_ids = topics

    # the runs' vocabulary: every run's dictionary, sorted by byte order. Ranking needs only the
    # order of the retrieved documents, and grades only the judgments of retrieved documents: the
    # vocabulary of runs and qrels (RunSet.vocab, flat_docs' codes) is made when it is asked for
    # (sorting a two-million-line qrels' ids costs more than reading it).
    q_t, q_docs, q_didx, q_g = qrels._arrays
    # (one run: its dictionary, which holds each id once, is the union)
    uniq, idx = (cols[0].doc_dict, None) if len(cols) == 1 else _union_dictionary([c.doc_dict for c in cols])
    V = len(uniq)
    if _ascending(uniq):  # (a dictionary merged by sorting is in byte order already)
        run_vocab, remap = uniq, np.arange(V, dtype=np.int32) if idx is None else idx
    else:
        by_id = pc.sort_indices(uniq)
        run_vocab = uniq.take(by_id)
        remap = np.empty(V, dtype=np.int32)
        remap[_np(by_id, np.uint64)] = np.arange(V, dtype=np.int32)
        remap = remap if idx is None else remap[idx]
        del by_id
    del idx, uniq
    starts = np.cumsum([0] + [len(c.doc_dict) for c in cols])
    cols[:] = [replace(c, doc_dict=None) for c in cols]  # (their ids are in run_vocab now: the strings go)
    # every judgment of a retrieved document, in run-vocabulary codes
    q_code = _positions(q_docs, run_vocab)
    q_code = q_code if q_didx is None else q_code[q_didx]
    hit = q_code >= 0
    grade_of = _GradeIndex(q_t[hit], q_code[hit], q_g[hit], T, max(V, 1))
    del q_code, hit
    # every run writes its ranked lists straight into the flat arrays, at its rows' place
    row_start = np.cumsum([0] + [len(c) for c in cols])
    flat_docs = np.empty(row_start[-1], dtype=np.int32)
    flat_grades = np.empty(row_start[-1], dtype=np.int32)

    def rank(i: int) -> _Ranked:
        r = _rank_run(cols, i, remap[starts[i] : starts[i + 1]], V, topic_ids, precision)
        t, docs = r.t, r.docs
        assert t is not None and docs is not None  # (released below)
        a, n = row_start[i], len(docs)
        flat_docs[a : a + n] = docs
        flat_grades[a : a + n] = grade_of(t, docs)
        r.t = r.docs = None  # the offsets keep the topics
        return r

    with ThreadPoolExecutor(_n_threads(len(cols))) as ex:
        ranked = list(ex.map(rank, range(len(cols))))
    kept = np.array([int(r.counts.sum()) for r in ranked])
    if (kept != np.diff(row_start)).any():  # rows of ignored topics: close the gaps
        keep = np.zeros(row_start[-1], dtype=bool)
        for a, n in zip(row_start[:-1], kept):
            keep[a : a + n] = True
        flat_docs, flat_grades = flat_docs[keep], flat_grades[keep]
    counts = np.stack([r.counts for r in ranked])
    _release_memory()  # the readers' buffers: back to the system, not kept
    vocab = _Vocabulary(run_vocab, q_docs, q_didx)
    return RunSet(
        runs=tuple(names),
        topics=tuple(topics),
        offsets=np.r_[0, np.cumsum(counts.ravel())].astype(np.int64),
        flat_grades=flat_grades,
        flat_docs=Deferred(vocab.codes, flat_docs, shape=flat_docs.shape, elementwise=True),  # type: ignore[arg-type]
        vocab=Deferred(vocab.ids),  # type: ignore[arg-type]  # both made on first use (RunSet's _OnFirstUse fields)
        qrels=qrels,
        name=name,
        source=source,
        ignored_topics={n: r.ignored for n, r in zip(names, ranked) if r.ignored},
        precision=precision,
    )


def build_runset(
    runs: Sequence[Run], qrels: Qrels, *, name: str = "", source: str = "", precision: str = "float32"
) -> RunSet:
    """Rank every run trec_eval's way and lay all of them out as one RunSet (DataError for a run with no topic of the qrels)."""
    cols = [_run_cols_of(r) for r in runs]
    return _assemble(cols, qrels, name=name, source=source, precision=precision)


def _read_runs(
    paths: Sequence[Path], progress: bool = False, desc: str = "reading", precision: str | None = None
) -> list[_RunCols]:
    """Parse run files on one thread per core; with ``precision`` keep of each only what ranking needs."""

    def read(path: Path) -> _RunCols:
        cols = _parse_run(path)
        return cols if precision not in _PRECISIONS else _for_ranking(cols, precision)

    with ThreadPoolExecutor(_n_threads(len(paths))) as ex:
        it = ex.map(read, paths)
        if not progress:
            return list(it)
        from tqdm import tqdm

        return list(tqdm(it, total=len(paths), desc=desc, unit="run"))
