"""The data layer: named collections, verified downloads, TREC readers and the shared in-memory forms.

One-line use::

    from irrepro import data
    rs = data.load_runs("trec-covid-round5")      # RunSet: 126 runs x 50 topics x 1000 ranks
    ap = data.load_matrix("trec8", "AP")          # ScoreMatrix: 129 systems x 50 topics
    mine = data.load_runs("path/to/runs/", qrels="path/to/qrels.txt")   # your own runs
    rs6 = rs.with_qrels(data.thin_qrels(rs.qrels, data.trec6_relevant(), seed=1))  # TREC-6's R

The papers' conditions emulated on public data - TREC-6's numbers of relevant documents
(:func:`thin_qrels`, :func:`trec6_relevant`) and shallow pools (:func:`pool_qrels`) - are in
:mod:`irrepro.data.emulate`.

Runs and qrels may also come from the tools you already use (see :func:`load_runs` and
:func:`load_qrels`): pandas DataFrames with ir_measures' columns (``query_id, doc_id, score`` /
``relevance``) or PyTerrier's (``qid, docno, score`` / ``label``, with an optional ``name``
column naming several runs), pytrec_eval-style dicts (``{qid: {docno: score}}``), ranx ``Run``
and ``Qrels`` objects, ir_datasets ids, and lists or dicts of runs.

Where files come from: the user's cache (``IRREPRO_CACHE``), then an offline mirror
(``IRREPRO_MIRROR``), then the network (never with ``IRREPRO_OFFLINE=1``); every file is checked
against its sha256 first. A user who asks for a collection gets its real data or a
:class:`DataUnavailable` error saying what is missing and how to get it. The book's pages build
with ``IRREPRO_ALLOW_SIMULATED=1`` (set by ``make book``) and then get the *simulated stand-in* of
the same shape instead (``result.simulated`` is True, with a :class:`SimulatedDataWarning`);
``allow_simulated=True`` asks for it in code, and ``IRREPRO_REQUIRE_REAL=1`` forbids it always.

The process's environment is left alone: irrepro reads the qrels of the ir_datasets ids in its
registry from its own verified files, and for topics puts those files where the user's ir_datasets
looks (``ir_datasets.util.home_path()``) before asking it.
"""

from __future__ import annotations

import errno

import os
import warnings
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where it is used: reading and evaluating runs needs none
    import pandas as pd

from ._collections import COLLECTIONS, IR_DATASETS_FILES, Collection, get_collection
from ._fetch import (
    CacheError,
    DataUnavailable,
    _env_flag,
    cache_dir,
    is_offline,
    locate,
    mirror_dir,
    registry,
    sha256_file,
    where,
)
from ._common import MAX_DENSE_GRADE, PAD, UNJUDGED, DataError, topic_order
from ._matrices import ScoreMatrix, read_score_matrix
from ._qrels import Qrels, qrels_from_records, read_qrels
from ._runs import Run, _assemble, _read_runs, _run_cols_of, build_runset, read_run
from ._runset import RunSet
from ._textfiles import GZIP_MAX_RATIO, _fspath
from .emulate import TREC6_TOPICS, pool_documents, pool_qrels, thin_qrels, trec6_relevant
from ..errors import InputError, UnknownNameError

__all__ = [
    "COLLECTIONS",
    "CacheError",
    "Collection",
    "DataError",
    "DataUnavailable",
    "GZIP_MAX_RATIO",
    "MAX_DENSE_GRADE",
    "PAD",
    "UNJUDGED",
    "Qrels",
    "Run",
    "RunSet",
    "ScoreMatrix",
    "SimulatedDataWarning",
    "TREC6_TOPICS",
    "build_runset",
    "cache_dir",
    "fetch",
    "get_collection",
    "leaderboard",
    "load_matrix",
    "load_qrels",
    "load_runs",
    "load_topics",
    "locate",
    "mirror_dir",
    "pool_documents",
    "pool_qrels",
    "qrels_from_records",
    "read_qrels",
    "read_run",
    "read_score_matrix",
    "run_files",
    "registry",
    "simulate",
    "status",
    "thin_qrels",
    "topic_order",
    "trec6_relevant",
]


def __getattr__(name: str):
    # the simulated stand-in (and scipy, which it needs) is imported on first use only
    if name == "simulate":
        import importlib

        return importlib.import_module(f"{__name__}.simulate")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class SimulatedDataWarning(UserWarning):
    """A named collection could not be had, so the simulated stand-in was used."""


def _seed_of(name: str) -> int:
    return zlib.crc32(name.encode())


def _simulated_allowed(allow_simulated: bool | None) -> bool:
    """``allow_simulated`` (None: ``IRREPRO_ALLOW_SIMULATED``), never under ``IRREPRO_REQUIRE_REAL``."""
    if _env_flag("IRREPRO_REQUIRE_REAL"):
        return False
    return _env_flag("IRREPRO_ALLOW_SIMULATED") if allow_simulated is None else bool(allow_simulated)


def _stand_in_r(coll: Collection) -> dict:
    """The stand-in's ``r_median``: the real qrels' median R, where the collection records it."""
    return {} if coll.relevant_median is None else {"r_median": float(coll.relevant_median)}


def _stand_in_runs(coll: Collection) -> RunSet:
    """The simulated stand-in of a collection of runs: its size, topic ids and median R."""
    from . import simulate

    seed = _seed_of(coll.name)
    return simulate.runs(coll.shape[0], coll.topics, seed=seed, name=coll.name, **_stand_in_r(coll))


def _fallback(coll: Collection, exc: DataUnavailable, allow_simulated: bool | None):
    """Raise ``exc`` (saying how to get the data) unless the simulated stand-in is allowed; then
    warn that it is used."""
    if not _simulated_allowed(allow_simulated):
        if isinstance(exc, CacheError):  # an unusable cache: its own message says what to do
            raise exc
        how = (
            f"{coll.title} ({coll.name}) is not available. Get it with `irrepro data fetch {coll.name}` "
            "(network), or point IRREPRO_MIRROR at a copy of the book's data mirror; "
            "allow_simulated=True (IRREPRO_ALLOW_SIMULATED=1, `--allow-simulated`) uses the "
            "labelled simulated stand-in instead."
        )
        raise DataUnavailable(f"{how}\nMissing: {exc}") from exc
    warnings.warn(
        f"{coll.title}: real data unavailable ({str(exc).splitlines()[0][:300]}); "
        f"using the simulated stand-in of the same shape",
        SimulatedDataWarning,
        stacklevel=3,
    )


# --------------------------------------------------------------------------------------------
# ir_datasets: the user's own home, never a changed environment
# --------------------------------------------------------------------------------------------


def _ir_datasets():
    """ir_datasets, imported as the user has it (its home: ``ir_datasets.util.home_path()``)."""
    import logging

    import ir_datasets

    logging.getLogger("ir_datasets").setLevel(logging.WARNING)
    return ir_datasets


def _registry_qrels_file(irds_id: str) -> str | None:
    """The registry path of the qrels file of an ir_datasets id irrepro knows, or None."""
    return next((p for p in IR_DATASETS_FILES.get(irds_id, ()) if "qrels" in p.rsplit("/", 1)[-1]), None)


def _prepare_ir_datasets(irds_id: str, progress: bool = False) -> None:
    """Put the registry files of a known ir_datasets id (verified) where the user's ir_datasets
    looks for them (``home_path()``), so that it never downloads them on its own."""
    from ._fetch import _copy_atomic

    files = IR_DATASETS_FILES.get(irds_id, ())
    if not files:
        return
    srcs = [(rel, locate(rel, progress=progress)) for rel in files]
    home = Path(_ir_datasets().util.home_path())
    for rel, src in srcs:
        dst = home / rel.split("/", 1)[1]
        if dst.resolve() != src.resolve() and (not dst.is_file() or sha256_file(dst) != sha256_file(src)):
            try:
                _copy_atomic(src, dst)
            except (OSError, CacheError) as exc:  # CacheError: unwritable, or a full disk
                why = getattr(exc, "strerror", None) or exc
                raise CacheError(
                    f"cannot place {rel} in ir_datasets' home {home} ({why}); "
                    "make it writable (or free space there) or set IR_DATASETS_HOME to a writable directory"
                ) from exc


def _irds_dataset(irds_id: str):
    """An ir_datasets dataset for an id outside irrepro's registry (ir_datasets may download)."""
    if irds_id not in IR_DATASETS_FILES and is_offline():
        raise DataUnavailable(
            f"{irds_id!r} is not in irrepro's data registry and IRREPRO_OFFLINE is set, so irrepro "
            "does not ask ir_datasets for it (ir_datasets would download). Export its qrels to a "
            f"file (`ir_datasets export {irds_id} qrels > qrels.txt`) and give the file, or unset "
            "IRREPRO_OFFLINE."
        )
    _prepare_ir_datasets(irds_id)
    try:
        return _ir_datasets().load(irds_id)
    except KeyError:
        raise FileNotFoundError(errno.ENOENT, "is neither a file nor an ir_datasets id", str(irds_id)) from None


def load_qrels(
    source, name: str | None = None, *, allow_simulated: bool | None = None
) -> Qrels:
    """Qrels from: a TREC qrels file; an ir_datasets id (``"cord19/trec-covid/round5"``); a
    collection name of the book (``"trec-covid-round5"``); a :class:`Qrels`; a pandas DataFrame
    with ir_measures' columns (``query_id, doc_id, relevance``) or PyTerrier's (``qid, docno,
    label``); a pytrec_eval-style dict ``{qid: {docno: grade}}``; or a ranx ``Qrels``.

    A collection whose files cannot be had raises :class:`DataUnavailable` (what is missing, how
    to get it), unless ``allow_simulated`` (default: ``IRREPRO_ALLOW_SIMULATED``) asks for the
    simulated stand-in's qrels (``source == "simulated"``, with a :class:`SimulatedDataWarning`).
    """
    if isinstance(source, Qrels):
        return source
    if isinstance(source, bytes):  # a file name as bytes (os.fsencode)
        source = _fspath(source)
    if not isinstance(source, (str, Path)):
        from ._inputs import qrels_from_object

        return qrels_from_object(source, name or "qrels")
    source = str(source)
    if source in COLLECTIONS:
        coll = COLLECTIONS[source]
        if not coll.ir_datasets_id:
            raise InputError(f"collection {source!r} has no qrels")
        try:
            return load_qrels(coll.ir_datasets_id, name, allow_simulated=False)
        except DataUnavailable as exc:
            _fallback(coll, exc, allow_simulated)
            from . import simulate

            if coll.kind == "runs":
                return _stand_in_runs(coll).qrels
            return simulate.qrels(coll.topics, seed=_seed_of(coll.name), name=f"{coll.name} (simulated)",
                                  **_stand_in_r(coll))
    if Path(source).exists():
        return read_qrels(source, name)
    rel = _registry_qrels_file(source)
    if rel is not None:  # irrepro's own verified copy, read directly
        q = read_qrels(locate(rel), name or source)
        q.source = "real"
        return q
    ds = _irds_dataset(source)
    return qrels_from_records(
        ((q.query_id, q.doc_id, int(q.relevance)) for q in ds.qrels_iter()), name or source
    )


def load_topics(source: str) -> pd.DataFrame:
    """Topics (query_id, title, description, ...) of a collection name or ir_datasets id."""
    if source in COLLECTIONS:
        source = COLLECTIONS[source].ir_datasets_id
    import pandas as pd

    ds = _irds_dataset(source)
    return pd.DataFrame([q._asdict() for q in ds.queries_iter()])


# --------------------------------------------------------------------------------------------
# loaders
# --------------------------------------------------------------------------------------------


def run_files(directory: str | Path) -> list[Path]:
    """The run files of a directory: every visible file, sorted by name (an error if none)."""
    directory = Path(directory)
    files = sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise DataError(directory, None, "no run files in this directory")
    return files


def load_runs(
    source,
    qrels=None,
    *,
    runs: Sequence[str] | None = None,
    progress: bool = False,
    allow_simulated: bool | None = None,
    precision: str = "float32",
) -> RunSet:
    """Load a set of runs into a :class:`RunSet`, ranked trec_eval's way.

    ``source`` is one of:

    * a collection name of the book (``"trec-covid-round5"``; its qrels come with it);
    * a directory of TREC run files, one run file, or a list of run files (plain or gzip; read
      concurrently, with trec_eval's conventions: see :func:`read_run`);
    * a pandas DataFrame with ir_measures' columns (``query_id, doc_id, score``) or PyTerrier's
      (``qid, docno, score``); a ``name`` column splits it into several runs;
    * a pytrec_eval-style dict ``{qid: {docno: score}}``, or a ranx ``Run``;
    * a list of such objects, or a dict ``{run name: object}``.

    For anything but a collection give ``qrels`` (anything :func:`load_qrels` takes). ``runs``
    keeps only the named runs. ``precision`` is how scores are compared when ranking:
    ``"float32"`` (default: trec_eval <= 9.0.8, pytrec_eval and NIST's official scores) or
    ``"float64"`` (trec_eval 10). A collection whose files cannot be had raises
    :class:`DataUnavailable` unless ``allow_simulated`` (default: ``IRREPRO_ALLOW_SIMULATED``) asks
    for the simulated stand-in (``source == "simulated"``).
    """
    if isinstance(source, bytes):  # a file name as bytes (os.fsencode)
        source = _fspath(source)
    if isinstance(source, str) and source in COLLECTIONS:
        coll = get_collection(source)
        if coll.kind != "runs":
            raise InputError(f"{source!r} holds score matrices, not runs: use load_matrix")
        try:
            files = [locate(p, progress=progress) for p in coll.files() if p.startswith(coll.run_dir)]
            if qrels is None:
                for rel in IR_DATASETS_FILES[coll.ir_datasets_id]:
                    locate(rel, progress=progress)
                if precision == "float32":
                    cached = _cached_runset(coll)
                    if cached is not None:
                        return cached.subset(runs=runs) if runs is not None else cached
            q = load_qrels(coll.ir_datasets_id if qrels is None else qrels, allow_simulated=False)
        except DataUnavailable as exc:
            _fallback(coll, exc, allow_simulated)
            rs = _stand_in_runs(coll)
            return rs.subset(runs=runs) if runs is not None else rs
        name = coll.name
        cols = _read_runs(files, progress=progress, desc=f"reading {name}")
        src = "real"
    else:
        if qrels is None:
            raise InputError("give the qrels (file, ir_datasets id, Qrels, DataFrame, dict) for your own runs")
        if isinstance(source, (str, Path)) or (
            isinstance(source, (list, tuple)) and source and all(isinstance(p, (str, bytes, Path)) for p in source)
        ):
            files, name = _run_paths(source)
            cols = _read_runs(files, progress=progress, desc=f"reading {name}")
        else:
            from ._inputs import runs_from_object

            objs = runs_from_object(source)
            name = "runs"
            cols = [_run_cols_of(r) for r in objs]
        q = load_qrels(qrels, allow_simulated=allow_simulated)
        src = "simulated" if q.source == "simulated" else "user files"
    if runs is not None:
        wanted = set(runs)
        missing = wanted - {c.name for c in cols}
        if missing:
            raise UnknownNameError(f"runs not found in {name}: {sorted(missing)}")
        cols = [c for c in cols if c.name in wanted]
    rs = _assemble(cols, q, name=name, source=src, precision=precision)
    if src == "real" and qrels is None and runs is None and precision == "float32":
        _store_runset(rs, get_collection(name))
    return rs


def _run_paths(source) -> tuple[list[Path], str]:
    """The run files a path, a directory or a list of paths names, and a name for the set."""
    if isinstance(source, (str, Path)):
        p = Path(source)
        if p.is_dir():
            return run_files(p), p.name
        if not p.exists():
            what = "run file or directory not found"
            if isinstance(source, str) and "/" not in source and "." not in source:
                what += f" (nor a collection name: {', '.join(COLLECTIONS)})"
            raise DataError(p, None, what)
        return [p], p.name
    files: list[Path] = []
    for x in source:
        p = _fspath(x)
        if p.is_dir():
            files += run_files(p)
        elif p.exists():
            files.append(p)
        else:
            raise DataError(p, None, "run file or directory not found")
    return files, "runs"


# A built RunSet of a book collection is kept in the cache as .npz, keyed by the sha256 of every
# input file and the layout version, so that later loads take a fraction of a second. Its own
# sha256 is recorded beside it when written (NAME.npz.sha256) and checked on every read: a file
# changed since (tampered grades, a bad disk), without its record, or unreadable is reported,
# deleted and rebuilt. (v5: the record.)
_RUNSET_LAYOUT = "runset-v5"


def _runset_cache_path(coll: Collection) -> Path:
    import hashlib

    reg = registry()
    h = hashlib.sha256(_RUNSET_LAYOUT.encode())
    for rel in sorted(coll.files()):
        h.update(reg[rel].sha256.encode())
    return cache_dir() / "runsets" / f"{coll.name}-{h.hexdigest()[:16]}.npz"


def _cached_runset(coll: Collection) -> RunSet | None:
    from ._fetch import recorded_sha256_problem, sha256_record

    path = _runset_cache_path(coll)
    if not path.exists():
        return None
    problem = recorded_sha256_problem(path)
    if problem is None:
        try:
            return RunSet.load(path, name=coll.name, source="real")
        except Exception as exc:  # noqa: BLE001 - a damaged cache file of any kind is rebuilt
            problem = f"is unreadable ({exc})"
    warnings.warn(f"cached run set {path} {problem}; rebuilding it", stacklevel=3)
    path.unlink(missing_ok=True)
    sha256_record(path).unlink(missing_ok=True)
    return None


def _store_runset(rs: RunSet, coll: Collection) -> None:
    try:
        rs.save(_runset_cache_path(coll), record_sha256=True)
    except (OSError, CacheError) as exc:  # a read-only or full cache only costs speed
        warnings.warn(f"could not cache the run set of {coll.name}: {exc}", stacklevel=3)


def load_matrix(
    collection: str, measure: str = "AP", *, allow_simulated: bool | None = None
) -> ScoreMatrix:
    """The per-topic score matrix (systems x topics) of ``measure`` for a collection of the book,
    e.g. ``load_matrix("trec8", "P@10")``."""
    coll = get_collection(collection)
    if measure not in coll.matrices:
        raise UnknownNameError(f"{collection} has no {measure!r} matrix; it has {list(coll.matrices)}")
    rel = coll.matrices[measure]
    try:
        path = locate(rel)
    except DataUnavailable as exc:
        _fallback(coll, exc, allow_simulated)
        from . import simulate

        return simulate.score_matrix(
            coll.shape[0], coll.topics, measure, seed=_seed_of(coll.name), collection=coll.name
        )
    if path.suffix == ".rda":
        return _read_rda_matrix(path, measure, coll)
    topics = None if coll.name == "robust2004" else coll.topics
    return read_score_matrix(path, measure, topics=topics, collection=coll.name, source="real")


def _read_rda_matrix(path: Path, measure: str, coll: Collection) -> ScoreMatrix:
    import rdata  # maintained pure-Python reader of R data files

    try:
        objs = rdata.read_rda(str(path))
    except Exception as exc:  # noqa: BLE001 - any parser failure is a corrupt file
        raise DataError(path, None, f"not a readable R data file ({exc})") from exc
    import pandas as pd

    (df,) = objs.values()
    frame = pd.DataFrame(df)
    return ScoreMatrix(
        frame.to_numpy(dtype=float).T.copy(),
        tuple(str(c) for c in frame.columns),
        coll.topics if coll.topics and len(coll.topics) == len(frame) else tuple(map(str, frame.index)),
        measure,
        collection=coll.name,
        source="real",
    )


def leaderboard(collection: str) -> pd.DataFrame:
    """NIST's official per-run scores of a TREC-COVID round (``leaderboard.csv``)."""
    coll = get_collection(collection)
    rel = next((p for p in coll.extra_files if p.endswith("leaderboard.csv")), None)
    if rel is None:
        raise UnknownNameError(f"{collection} has no leaderboard")
    import pandas as pd

    return pd.read_csv(locate(rel))


# --------------------------------------------------------------------------------------------
# status / fetch
# --------------------------------------------------------------------------------------------


def status(collections: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per collection: how many files it needs, where they are found now, and whether all
    are verified. Nothing is downloaded or copied."""
    import pandas as pd

    rows = []
    for name in collections or COLLECTIONS:
        coll = get_collection(name)
        files = coll.files()
        places = pd.Series([where(p) for p in files]).value_counts().to_dict()
        ok = places.get("cache", 0) + places.get("mirror", 0)
        rows.append(
            {
                "collection": name,
                "files": len(files),
                "where": ", ".join(f"{k}: {v}" for k, v in sorted(places.items())),
                "status": "verified" if ok == len(files) else f"missing {len(files) - ok}",
            }
        )
    return pd.DataFrame(rows)


def fetch(names: str | Sequence[str] = "all", *, progress: bool = True) -> list[Path]:
    """Put every file of the named collections (or ``"all"``) into the cache, verified."""
    from tqdm import tqdm

    if isinstance(names, str):
        names = list(COLLECTIONS) if names == "all" else [names]
    files = list(dict.fromkeys(p for n in names for p in get_collection(n).files()))
    out = []
    for rel in tqdm(files, desc="fetching", unit="file", disable=not progress):
        out.append(locate(rel))
    return out
