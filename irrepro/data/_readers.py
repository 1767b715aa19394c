"""Readers for TREC run files, qrels and score-matrix CSVs, and the in-memory forms every chapter
shares: :class:`Qrels`, :class:`RunSet` (systems x topics x ranks grades) and :class:`ScoreMatrix`
(systems x topics scores of one measure).

Ranking follows trec_eval: within a topic, documents are ordered by score descending and ties are
broken by document id descending (byte order); the rank column of the run file is ignored. Like
trec_eval, which stores scores as C ``float``, the order uses the scores rounded to single
precision: two scores that differ only beyond float32's ~7 significant digits tie, and the tie
goes to the document id (this reproduces NIST's official TREC-COVID scores exactly).
"""

from __future__ import annotations

import csv
import gzip
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "DataError",
    "Qrels",
    "RunSet",
    "ScoreMatrix",
    "read_run",
    "read_qrels",
    "read_score_matrix",
    "build_runset",
    "topic_order",
    "UNJUDGED",
    "PAD",
]

#: Grade of a retrieved document that has no judgment in the qrels.
UNJUDGED = -1
#: Grade of a rank beyond the end of a list (padding of the ranks axis).
PAD = -2


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


# --------------------------------------------------------------------------------------------
# low-level whitespace-separated table reader with line-accurate errors
# --------------------------------------------------------------------------------------------


def _read_columns(path: Path, ncols: int, what: str) -> pd.DataFrame:
    """Read a whitespace-separated file of exactly ``ncols`` string columns (plain or gzip).

    Row ``i`` of the result is line ``i + 1`` of the file; a blank line, a line with too few or
    too many fields, an empty file or a corrupt / truncated gzip stream raises :class:`DataError`.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, None, f"{what} file not found")
    if path.stat().st_size == 0:
        raise DataError(path, None, f"empty {what} file")
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    try:
        df = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=list(range(ncols)),
            dtype=object,
            skip_blank_lines=False,
            quoting=csv.QUOTE_NONE,
            compression="gzip" if gz else None,
            engine="c",
            na_filter=True,
            keep_default_na=False,
            na_values=[""],
        )
    except pd.errors.ParserError as exc:
        msg = str(exc)
        line = None
        if "in line" in msg:
            try:
                line = int(msg.split("in line")[1].split(",")[0])
            except ValueError:
                pass
        raise DataError(path, line, f"malformed {what} line ({msg.split('C error: ')[-1]})") from exc
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise DataError(path, None, f"corrupt or truncated gzip file ({exc})") from exc
    except pd.errors.EmptyDataError as exc:
        raise DataError(path, None, f"empty {what} file") from exc
    except UnicodeDecodeError as exc:
        raise DataError(path, None, f"not a text file ({exc})") from exc
    if len(df) == 0:
        raise DataError(path, None, f"empty {what} file")
    short = df.isna().any(axis=1).to_numpy()
    if short.any():
        i = int(np.flatnonzero(short)[0])
        n = int(df.iloc[i].notna().sum())
        problem = "blank line" if n == 0 else f"expected {ncols} fields, found {n}"
        raise DataError(path, i + 1, f"malformed {what} line: {problem}")
    return df


# --------------------------------------------------------------------------------------------
# qrels
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Qrels:
    """Graded relevance judgments.

    ``table`` has one row per (topic, doc) line of the qrels with its integer ``grade``. As in
    trec_eval, a negative grade (TREC-COVID has two -1 lines; other tracks use -1/-2 for spam or
    unjudgeable documents) is neither relevant nor judged non-relevant: it counts as unjudged.
    """

    table: pd.DataFrame  # columns: topic (str), doc (str), grade (int)
    name: str = ""

    @property
    def topics(self) -> tuple[str, ...]:
        return tuple(topic_order(self.table["topic"].unique()))

    @property
    def max_grade(self) -> int:
        return int(max(self.table["grade"].max(), 0))

    def n_relevant(self, rel: int = 1, topics: Sequence[str] | None = None) -> np.ndarray:
        """Number of documents with grade >= ``rel`` per topic (the R of AP), in ``topics`` order."""
        topics = self.topics if topics is None else topics
        counts = self.table[self.table["grade"] >= rel].groupby("topic").size()
        return counts.reindex(list(topics), fill_value=0).to_numpy(dtype=np.int64)

    def grade_counts(self, topics: Sequence[str] | None = None) -> np.ndarray:
        """``(topics, max_grade + 1)`` counts of judged documents per grade (negative grades are
        not judgments and are not counted)."""
        topics = self.topics if topics is None else topics
        judged = self.table[self.table["grade"] >= 0]
        tab = pd.crosstab(judged["topic"], judged["grade"])
        tab = tab.reindex(index=list(topics), columns=range(self.max_grade + 1), fill_value=0)
        return tab.to_numpy(dtype=np.int64)

    def n_judged(self, topics: Sequence[str] | None = None) -> np.ndarray:
        """Number of judged documents per topic."""
        return self.grade_counts(topics).sum(axis=1)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """pytrec_eval's form: ``{topic: {doc: grade}}``."""
        out: dict[str, dict[str, int]] = {}
        for t, d, g in self.table[["topic", "doc", "grade"]].itertuples(index=False):
            out.setdefault(t, {})[d] = int(g)
        return out


def read_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a TREC qrels file (``topic iteration doc grade``, plain or gzip)."""
    path = Path(path)
    df = _read_columns(path, 4, "qrels")
    grade = pd.to_numeric(df[3], errors="coerce")
    bad = grade.isna() | (grade != grade.round())
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(path, i + 1, f"relevance grade {df.iloc[i, 3]!r} is not an integer")
    table = pd.DataFrame({"topic": df[0], "doc": df[2], "grade": grade.astype(np.int64)})
    _check_duplicates(table, path, "judgment for document")
    return Qrels(table.reset_index(drop=True), name or path.name)


def qrels_from_records(records: Iterable[tuple[str, str, int]], name: str = "") -> Qrels:
    """Build :class:`Qrels` from ``(topic, doc, grade)`` tuples (e.g. ir_datasets' qrels_iter)."""
    table = pd.DataFrame(list(records), columns=["topic", "doc", "grade"])
    table["grade"] = table["grade"].astype(np.int64)
    _check_duplicates(table, name or "qrels", "judgment")
    return Qrels(table, name)


def _check_duplicates(table: pd.DataFrame, path, what: str) -> None:
    dup = table.duplicated(["topic", "doc"], keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        t, d = table["topic"].iat[i], table["doc"].iat[i]
        first = int(np.flatnonzero(((table["topic"] == t) & (table["doc"] == d)).to_numpy())[0])
        raise DataError(
            path, i + 1, f"duplicate {what} {d!r} in topic {t!r} (first at line {first + 1})"
        )


# --------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Run:
    """One parsed TREC run: ``table`` has columns topic, doc, score (float64), in file order."""

    name: str
    table: pd.DataFrame
    path: str = ""


def read_run(path: str | Path) -> Run:
    """Read a TREC run file (``topic Q0 doc rank score tag``, plain or gzip).

    The run is named by its tag; a file holding several tags, a non-numeric or non-finite score,
    a duplicate document within a topic, or a malformed line raises :class:`DataError`.
    """
    path = Path(path)
    df = _read_columns(path, 6, "run")
    score = pd.to_numeric(df[4], errors="coerce")
    bad = ~np.isfinite(score.to_numpy(dtype=float))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(path, i + 1, f"score {df.iloc[i, 4]!r} is not a finite number")
    tags = df[5].unique()
    if len(tags) > 1:
        i = int(np.flatnonzero((df[5] != tags[0]).to_numpy())[0])
        raise DataError(
            path, i + 1, f"run tag changes from {tags[0]!r} to {tags[1]!r}; one run per file, please"
        )
    table = pd.DataFrame({"topic": df[0], "doc": df[2], "score": score.astype(np.float64)})
    _check_duplicates(table, path, "document")
    return Run(str(tags[0]), table, str(path))


# --------------------------------------------------------------------------------------------
# the shared in-memory form of a set of runs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RunSet:
    """A set of runs over the same topics, as arrays.

    Attributes
    ----------
    runs : tuple of str, length S
    topics : tuple of str, length T
        The qrels' topics (trec_eval evaluates only judged topics); a run missing a topic has an
        empty list there.
    grades : int8 array (S, T, K)
        Grade of the document at each rank (0-based), ``UNJUDGED`` (-1) for a retrieved document
        without a judgment (or with a negative qrels value), ``PAD`` (-2) beyond the end of the
        list. K is the longest list.
    lengths : int32 array (S, T)
        Number of documents retrieved.
    doc_codes : int32 array (S, T, K)
        Index of the document id in ``vocab`` (-1 for padding).
    vocab : array of str
        Document ids of runs and qrels.
    qrels : Qrels
    name, source : str
        The collection name and where its files came from (``"simulated"`` for the stand-in).
    ignored_topics : dict run -> tuple of topics in the run but not in the qrels (not evaluated,
        as trec_eval does).
    """

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    grades: np.ndarray
    lengths: np.ndarray
    doc_codes: np.ndarray
    vocab: np.ndarray
    qrels: Qrels
    name: str = ""
    source: str = ""
    ignored_topics: dict = field(default_factory=dict)

    @property
    def simulated(self) -> bool:
        return self.source == "simulated"

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.grades.shape

    def n_relevant(self, rel: int = 1) -> np.ndarray:
        """R per topic: judged documents with grade >= ``rel`` (retrieved or not)."""
        return self.qrels.n_relevant(rel, self.topics)

    def grade_counts(self) -> np.ndarray:
        """``(T, G + 1)`` judged documents per grade and topic."""
        return self.qrels.grade_counts(self.topics)

    def relevant(self, rel: int = 1) -> np.ndarray:
        """Boolean (S, T, K): the document at that rank has grade >= ``rel``."""
        return self.grades >= rel

    def doc_ids(self, s: int, t: int) -> np.ndarray:
        """The ranked document ids of run ``s`` on topic ``t``."""
        return self.vocab[self.doc_codes[s, t, : self.lengths[s, t]]]

    def subset(self, runs: Sequence | None = None, topics: Sequence | None = None) -> "RunSet":
        """The same data restricted to some runs and/or topics (names or integer indices)."""
        si = _indices(self.runs, runs)
        ti = _indices(self.topics, topics)
        keep_topics = set(self.topics[i] for i in ti)
        q = Qrels(self.qrels.table[self.qrels.table["topic"].isin(keep_topics)], self.qrels.name)
        k = max(int(self.lengths[np.ix_(si, ti)].max(initial=0)), 1)
        return replace(
            self,
            runs=tuple(self.runs[i] for i in si),
            topics=tuple(self.topics[i] for i in ti),
            grades=self.grades[np.ix_(si, ti)][:, :, :k],
            lengths=self.lengths[np.ix_(si, ti)],
            doc_codes=self.doc_codes[np.ix_(si, ti)][:, :, :k],
            qrels=q,
        )

    def run_dict(self, s: int) -> dict[str, dict[str, float]]:
        """Run ``s`` in pytrec_eval's form ``{topic: {doc: score}}`` with scores that reproduce
        this ranking (descending from the list length)."""
        out = {}
        for t, topic in enumerate(self.topics):
            n = int(self.lengths[s, t])
            if n:
                docs = self.doc_ids(s, t)
                out[topic] = {str(d): float(n - i) for i, d in enumerate(docs)}
        return out

    def nbytes(self) -> int:
        return self.grades.nbytes + self.lengths.nbytes + self.doc_codes.nbytes

    def save(self, path: str | Path) -> None:
        """Write the arrays and qrels to an ``.npz`` file, atomically."""
        from ._fetch import atomic_write

        q = self.qrels.table
        ignored = [(r, t) for r, ts in self.ignored_topics.items() for t in ts]

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                np.savez(
                    f,
                    runs=np.array(self.runs, dtype=str),
                    topics=np.array(self.topics, dtype=str),
                    grades=self.grades,
                    lengths=self.lengths,
                    doc_codes=self.doc_codes,
                    vocab=self.vocab.astype(str),
                    q_topic=q["topic"].to_numpy(dtype=str),
                    q_doc=q["doc"].to_numpy(dtype=str),
                    q_grade=q["grade"].to_numpy(dtype=np.int64),
                    q_name=np.array(self.qrels.name),
                    ignored=np.array(ignored, dtype=str).reshape(-1, 2),
                )

        atomic_write(path, write)

    @classmethod
    def load(cls, path: str | Path, *, name: str = "", source: str = "") -> "RunSet":
        """Read a RunSet written by :meth:`save` (raises on a damaged file)."""
        with np.load(path, allow_pickle=False) as z:
            ignored: dict = {}
            for r, t in z["ignored"]:
                ignored.setdefault(str(r), []).append(str(t))
            table = pd.DataFrame(
                {"topic": z["q_topic"].astype(object), "doc": z["q_doc"].astype(object), "grade": z["q_grade"]}
            )
            rs = cls(
                runs=tuple(str(r) for r in z["runs"]),
                topics=tuple(str(t) for t in z["topics"]),
                grades=z["grades"],
                lengths=z["lengths"],
                doc_codes=z["doc_codes"],
                vocab=z["vocab"].astype(object),
                qrels=Qrels(table, str(z["q_name"])),
                name=name,
                source=source,
                ignored_topics={k: tuple(v) for k, v in ignored.items()},
            )
        S, T, K = rs.grades.shape
        if rs.doc_codes.shape != (S, T, K) or rs.lengths.shape != (S, T) or len(rs.runs) != S:
            raise ValueError("inconsistent array shapes")
        return rs


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


def _descending_score_key(s_arr, t_arr, score, n_topics) -> np.ndarray:
    """One uint64 sort key per row: (run, topic) ascending, then score descending as trec_eval
    sees it (C ``float``, so scores equal in single precision tie). Sorting one key is several
    times faster than a lexsort over run, topic and score."""
    f = score.astype(np.float32)
    f += np.float32(0.0)  # -0.0 becomes +0.0: they tie
    bits = f.view(np.uint32)
    # order-preserving map of float bits to unsigned ints: flip all bits of negatives, the sign
    # bit of the others; then complement for descending order
    desc = ~(bits ^ np.where(bits >> np.uint32(31), np.uint32(0xFFFFFFFF), np.uint32(0x80000000)))
    key = s_arr.astype(np.uint64)
    key *= np.uint64(n_topics)
    key += t_arr.astype(np.uint64)
    key <<= np.uint64(32)
    key |= desc
    return key


def build_runset(
    runs: Sequence[Run], qrels: Qrels, *, name: str = "", source: str = ""
) -> RunSet:
    """Rank every run trec_eval's way and lay all of them out as one :class:`RunSet`."""
    if not runs:
        raise ValueError("no runs given")
    names = [r.name for r in runs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        where = [r.path for r in runs if r.name in dupes]
        raise ValueError(f"run name(s) {dupes} appear in more than one file: {where}")
    topics = qrels.topics
    tindex = {t: i for i, t in enumerate(topics)}

    parts: dict[str, list[np.ndarray]] = {"s": [], "t": [], "doc": [], "score": []}
    ignored = {}
    for s, r in enumerate(runs):
        tab = r.table
        known = tab["topic"].isin(tindex)
        if not known.all():
            ignored[r.name] = tuple(topic_order(tab.loc[~known, "topic"].unique()))
            tab = tab[known]
        parts["s"].append(np.full(len(tab), s, dtype=np.int32))
        parts["t"].append(tab["topic"].map(tindex).to_numpy(dtype=np.int32))
        parts["doc"].append(tab["doc"].to_numpy(dtype=object))
        parts["score"].append(tab["score"].to_numpy(dtype=np.float64))
    s_all, t_all, score_all = (np.concatenate(parts.pop(c)) for c in ("s", "t", "score"))
    n_rows = len(s_all)

    # one vocabulary for runs and qrels, sorted so that code order == byte order of doc ids
    codes, vocab = pd.factorize(
        np.concatenate([*parts.pop("doc"), qrels.table["doc"].to_numpy(dtype=object)]), sort=True
    )
    vocab = np.asarray(vocab, dtype=object)
    run_codes = codes[:n_rows].astype(np.int64)
    qrel_codes = codes[n_rows:].astype(np.int64)
    del codes

    # grade lookup by (topic, doc code)
    qt = qrels.table["topic"].map(tindex).to_numpy(dtype=np.int64)
    qkey = qt * len(vocab) + qrel_codes
    order = np.argsort(qkey)
    qkey_sorted = qkey[order]
    qgrade_sorted = qrels.table["grade"].to_numpy(dtype=np.int64)[order]
    rkey = t_all.astype(np.int64)
    rkey *= len(vocab)
    rkey += run_codes
    grade = np.full(n_rows, UNJUDGED, dtype=np.int8)
    if len(qkey_sorted):
        pos = np.searchsorted(qkey_sorted, rkey)
        np.minimum(pos, len(qkey_sorted) - 1, out=pos)
        qg = qgrade_sorted[pos]
        # trec_eval: a negative qrels value is not a judgment (-1 == its "not in pool" code)
        found = (qkey_sorted[pos] == rkey) & (qg >= 0)
        grade[found] = np.minimum(qg[found], 127)
        del pos, found, qg
    del rkey

    # trec_eval order: run, topic, score descending, doc id descending
    order = np.lexsort((-run_codes, _descending_score_key(s_all, t_all, score_all, len(topics))))
    del score_all  # (temporaries are dropped as soon as possible: 6M+ rows)
    s_arr, t_arr = s_all[order], t_all[order]
    del s_all, t_all
    ranked_codes = run_codes[order].astype(np.int32)
    ranked_grade = grade[order]
    del run_codes, grade, order
    group = s_arr.astype(np.int64) * len(topics) + t_arr
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    counts = np.diff(np.r_[starts, len(group)])
    rank = np.arange(len(group), dtype=np.int64)
    rank -= np.repeat(starts, counts)

    S, T = len(runs), len(topics)
    K = int(rank.max()) + 1 if len(rank) else 1
    grades = np.full((S, T, K), PAD, dtype=np.int8)
    doc_codes = np.full((S, T, K), -1, dtype=np.int32)
    flat = (group * K + rank) if len(group) else np.zeros(0, dtype=np.int64)
    del rank
    grades.reshape(-1)[flat] = ranked_grade
    doc_codes.reshape(-1)[flat] = ranked_codes
    lengths = np.bincount(group, minlength=S * T).reshape(S, T).astype(np.int32)
    return RunSet(
        runs=tuple(names),
        topics=tuple(topics),
        grades=grades,
        lengths=lengths,
        doc_codes=doc_codes,
        vocab=vocab,
        qrels=qrels,
        name=name,
        source=source,
        ignored_topics=ignored,
    )


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
        return pd.DataFrame(self.scores, index=list(self.systems), columns=list(self.topics))


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
