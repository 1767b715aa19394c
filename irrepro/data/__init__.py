"""The data layer: named collections, verified downloads, TREC readers and the shared in-memory forms.

One-line use::

    from irrepro import data
    rs = data.load_runs("trec-covid-round5")      # RunSet: 126 runs x 50 topics x 1000 ranks
    ap = data.load_matrix("trec8", "AP")          # ScoreMatrix: 129 systems x 50 topics
    mine = data.load_runs("path/to/runs/", qrels="path/to/qrels.txt")   # your own runs

Where files come from: the user's cache (``IRREPRO_CACHE``), then an offline mirror
(``IRREPRO_MIRROR``), then the network (never with ``IRREPRO_OFFLINE=1``); every file is checked
against its sha256 first. When a named collection cannot be had at all, the loaders return the
simulated stand-in of the same shape (``result.simulated`` is True) and warn with
:class:`SimulatedDataWarning`; set ``IRREPRO_REQUIRE_REAL=1`` to make that an error instead.
"""

from __future__ import annotations

import os
import sys
import warnings
import zlib
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from . import simulate
from ._collections import COLLECTIONS, IR_DATASETS_FILES, Collection, get_collection
from ._fetch import (
    DataUnavailable,
    cache_dir,
    is_offline,
    locate,
    mirror_dir,
    registry,
    sha256_file,
    where,
)
from ._readers import (
    PAD,
    UNJUDGED,
    DataError,
    Qrels,
    Run,
    RunSet,
    ScoreMatrix,
    build_runset,
    qrels_from_records,
    read_qrels,
    read_run,
    read_score_matrix,
    topic_order,
)

__all__ = [
    "COLLECTIONS",
    "Collection",
    "DataError",
    "DataUnavailable",
    "PAD",
    "UNJUDGED",
    "Qrels",
    "Run",
    "RunSet",
    "ScoreMatrix",
    "SimulatedDataWarning",
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
    "read_qrels",
    "read_run",
    "read_score_matrix",
    "run_files",
    "registry",
    "simulate",
    "status",
    "topic_order",
]


class SimulatedDataWarning(UserWarning):
    """A named collection could not be had, so the simulated stand-in was used."""


def _require_real() -> bool:
    return os.environ.get("IRREPRO_REQUIRE_REAL", "").strip().lower() in {"1", "true", "yes", "on"}


def _seed_of(name: str) -> int:
    return zlib.crc32(name.encode())


def _fallback(coll: Collection, exc: Exception, allow_simulated: bool | None):
    allow = (not _require_real()) if allow_simulated is None else allow_simulated
    if not allow:
        raise exc
    warnings.warn(
        f"{coll.title}: real data unavailable ({str(exc).splitlines()[0][:300]}); "
        f"using the simulated stand-in of the same shape",
        SimulatedDataWarning,
        stacklevel=3,
    )


# --------------------------------------------------------------------------------------------
# ir_datasets, with its own home inside our cache
# --------------------------------------------------------------------------------------------


_IRDS_HOME: list[Path] = []  # the IR_DATASETS_HOME ir_datasets was imported with

# ir_datasets reads IR_DATASETS_HOME when it is imported: give it its home inside our cache now,
# so that importing ir_datasets after irrepro.data (but before the first load) still uses it.
if "ir_datasets" not in sys.modules:
    os.environ["IR_DATASETS_HOME"] = str(cache_dir() / "ir_datasets")


def _ir_datasets():
    """Import ir_datasets with ``IR_DATASETS_HOME`` inside irrepro's cache (``<cache>/ir_datasets``).

    ir_datasets fixes its dataset paths when it is imported; if it was imported before irrepro
    (with another home), irrepro puts its verified files into that home instead."""
    if not _IRDS_HOME:
        if "ir_datasets" not in sys.modules:
            os.environ["IR_DATASETS_HOME"] = str(cache_dir() / "ir_datasets")
        import logging

        import ir_datasets

        logging.getLogger("ir_datasets").setLevel(logging.WARNING)
        _IRDS_HOME.append(Path(ir_datasets.util.home_path()))
    import ir_datasets

    return ir_datasets, _IRDS_HOME[0]


def _prepare_ir_datasets(irds_id: str, progress: bool = False) -> None:
    """Put the registry files of a known ir_datasets id in place (verified) before ir_datasets
    reads them, so that it never downloads on its own for the book's collections."""
    from ._fetch import _copy_atomic

    _, home = _ir_datasets()
    for rel in IR_DATASETS_FILES.get(irds_id, ()):
        src = locate(rel, progress=progress)  # <cache>/ir_datasets/...
        dst = home / rel.split("/", 1)[1]
        if dst != src and (not dst.is_file() or sha256_file(dst) != sha256_file(src)):
            _copy_atomic(src, dst)


def load_qrels(
    source: str | Path, name: str | None = None, *, allow_simulated: bool | None = None
) -> Qrels:
    """Qrels from a file path, an ir_datasets id (e.g. ``"cord19/trec-covid/round5"``) or a
    collection name of the book (``"trec-covid-round5"``; when its files cannot be had, the
    simulated stand-in's qrels, with a :class:`SimulatedDataWarning`)."""
    source = str(source)
    if source in COLLECTIONS:
        coll = COLLECTIONS[source]
        if not coll.ir_datasets_id:
            raise ValueError(f"collection {source!r} has no qrels")
        try:
            _prepare_ir_datasets(coll.ir_datasets_id)
        except DataUnavailable as exc:
            _fallback(coll, exc, allow_simulated)
            if coll.kind == "runs":
                return simulate.runs(coll.shape[0], coll.topics, seed=_seed_of(coll.name), name=coll.name).qrels
            return simulate.qrels(coll.topics, seed=_seed_of(coll.name), name=f"{coll.name} (simulated)")
        source = coll.ir_datasets_id
    if Path(source).exists():
        return read_qrels(source, name)
    _prepare_ir_datasets(source)
    irds, _ = _ir_datasets()
    try:
        ds = irds.load(source)
    except KeyError:
        raise FileNotFoundError(f"{source!r} is neither a qrels file nor an ir_datasets id") from None
    return qrels_from_records(
        ((q.query_id, q.doc_id, int(q.relevance)) for q in ds.qrels_iter()), name or source
    )


def load_topics(source: str) -> pd.DataFrame:
    """Topics (query_id, title, description, ...) of a collection name or ir_datasets id."""
    if source in COLLECTIONS:
        source = COLLECTIONS[source].ir_datasets_id
    _prepare_ir_datasets(source)
    ds = _ir_datasets()[0].load(source)
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
    source: str | Path | Sequence[str | Path],
    qrels: str | Path | Qrels | None = None,
    *,
    runs: Sequence[str] | None = None,
    progress: bool = False,
    allow_simulated: bool | None = None,
) -> RunSet:
    """Load a set of runs into a :class:`RunSet`.

    ``source`` is a collection name of the book (``"trec-covid-round5"``; its qrels come with it),
    a directory of TREC run files, or a list of run files; for the latter two give ``qrels`` (a
    file, an ir_datasets id or a :class:`Qrels`). ``runs`` keeps only the named runs.
    """
    if isinstance(source, str) and source in COLLECTIONS:
        coll = get_collection(source)
        if coll.kind != "runs":
            raise ValueError(f"{source!r} holds score matrices, not runs: use load_matrix")
        try:
            files = [locate(p, progress=progress) for p in coll.files() if p.startswith(coll.run_dir)]
            if qrels is None:
                for rel in IR_DATASETS_FILES[coll.ir_datasets_id]:
                    locate(rel, progress=progress)
                cached = _cached_runset(coll)
                if cached is not None:
                    return cached.subset(runs=runs) if runs is not None else cached
            q = load_qrels(coll.ir_datasets_id, name=coll.ir_datasets_id) if qrels is None else qrels
        except DataUnavailable as exc:
            _fallback(coll, exc, allow_simulated)
            rs = simulate.runs(coll.shape[0], coll.topics, seed=_seed_of(coll.name), name=coll.name)
            return rs.subset(runs=runs) if runs is not None else rs
        name, src = coll.name, "real"
    else:
        if qrels is None:
            raise ValueError("give the qrels (file, ir_datasets id or Qrels) for your own runs")
        if isinstance(source, (str, Path)) and Path(source).is_dir():
            files = run_files(source)
            name = Path(source).name
        elif isinstance(source, (str, Path)):
            if not Path(source).exists():
                raise FileNotFoundError(
                    f"{source!r} is not a collection name ({', '.join(COLLECTIONS)}), "
                    "a directory or a file"
                )
            files, name = [Path(source)], Path(source).name
        else:
            files, name = [Path(p) for p in source], "runs"
        src = "user files"
        q = qrels
    if not isinstance(q, Qrels):
        q = load_qrels(q)
    from tqdm import tqdm

    parsed = [read_run(f) for f in tqdm(files, desc=f"reading {name}", disable=not progress, unit="run")]
    if runs is not None:
        wanted = set(runs)
        missing = wanted - {r.name for r in parsed}
        if missing:
            raise KeyError(f"runs not found in {name}: {sorted(missing)}")
        parsed = [r for r in parsed if r.name in wanted]
    rs = build_runset(parsed, q, name=name, source=src)
    if src == "real" and qrels is None and runs is None:
        _store_runset(rs, get_collection(name))
    return rs


# A built RunSet of a book collection is kept in the cache as .npz, keyed by the sha256 of every
# input file and the layout version, so that later loads take a fraction of a second. A corrupt
# or unreadable one is reported, deleted and rebuilt.
_RUNSET_LAYOUT = "runset-v3"


def _runset_cache_path(coll: Collection) -> Path:
    import hashlib

    reg = registry()
    h = hashlib.sha256(_RUNSET_LAYOUT.encode())
    for rel in sorted(coll.files()):
        h.update(reg[rel].sha256.encode())
    return cache_dir() / "runsets" / f"{coll.name}-{h.hexdigest()[:16]}.npz"


def _cached_runset(coll: Collection) -> RunSet | None:
    path = _runset_cache_path(coll)
    if not path.exists():
        return None
    try:
        return RunSet.load(path, name=coll.name, source="real")
    except Exception as exc:  # noqa: BLE001 - a damaged cache file of any kind is rebuilt
        warnings.warn(f"cached run set {path} is unreadable ({exc}); rebuilding it", stacklevel=3)
        path.unlink(missing_ok=True)
        return None


def _store_runset(rs: RunSet, coll: Collection) -> None:
    try:
        rs.save(_runset_cache_path(coll))
    except OSError as exc:  # a read-only cache only costs speed
        warnings.warn(f"could not cache the run set of {coll.name}: {exc}", stacklevel=3)


def load_matrix(
    collection: str, measure: str = "AP", *, allow_simulated: bool | None = None
) -> ScoreMatrix:
    """The per-topic score matrix (systems x topics) of ``measure`` for a collection of the book,
    e.g. ``load_matrix("trec8", "P@10")``."""
    coll = get_collection(collection)
    if measure not in coll.matrices:
        raise KeyError(f"{collection} has no {measure!r} matrix; it has {list(coll.matrices)}")
    rel = coll.matrices[measure]
    try:
        path = locate(rel)
    except DataUnavailable as exc:
        _fallback(coll, exc, allow_simulated)
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
        raise KeyError(f"{collection} has no leaderboard")
    return pd.read_csv(locate(rel))


# --------------------------------------------------------------------------------------------
# status / fetch
# --------------------------------------------------------------------------------------------


def status(collections: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per collection: how many files it needs, where they are found now, and whether all
    are verified. Nothing is downloaded or copied."""
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
