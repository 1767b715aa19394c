"""Loading runs and score matrices: a collection of the book (its verified files, its built run set
cached), the user's run files or objects, and NIST's leaderboards."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

from ..errors import InputError, UnknownNameError
from ._collections import COLLECTIONS, IR_DATASETS_FILES, Collection, get_collection
from ._common import DataError
from ._fetch import CacheError, DataUnavailable, cache_dir, locate, registry
from ._matrices import ScoreMatrix, read_score_matrix
from ._runs import _assemble, _read_runs, _run_cols_of
from ._runset import RunSet
from ._sources import _fallback, _seed_of, _stand_in_runs, _stand_in_topics, load_qrels
from ._textfiles import _fspath


def run_files(directory: str | Path) -> list[Path]:
    """The run files of a directory: every visible file, sorted by name."""
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
    r"""Load a set of runs into a :class:`RunSet`, ranked trec_eval's way.

    Parameters
    ----------
    source : str, os.PathLike, list, dict, pandas.DataFrame or ranx.Run
        A collection name of the book (its qrels come with it); a directory of TREC run files, a run
        file or a list of them (plain or gzip; read as trec_eval 10 reads them, the rules on this
        module's API page); a DataFrame with ir_measures' or PyTerrier's columns (a ``name`` column
        splits it into runs); a ``{qid: {docno: score}}`` dict or a ranx ``Run``; a list of such
        objects, or a dict ``{run name: object}``.
    qrels : optional
        Anything :func:`load_qrels` takes; needed for anything but a collection.
    runs : sequence of str, optional
        Keep only the named runs.
    progress : bool, default False
        Progress bars while reading.
    allow_simulated : bool, optional
        The simulated stand-in (with a :class:`SimulatedDataWarning`) for a collection whose files
        cannot be had, rather than :class:`DataUnavailable`; None: ``IRREPRO_ALLOW_SIMULATED``.
    precision : {"float32", "float64"}
        How scores are compared when ranking: as trec_eval <= 9.0.8 and NIST's official scores, or
        as trec_eval 10.

    Returns
    -------
    RunSet
        The runs over the qrels' topics.

    Raises
    ------
    DataUnavailable
        A collection whose files cannot be had, unless the stand-in is allowed.
    irrepro.InputError
        A malformed file or object (naming it and the line), own runs without qrels, or a name in
        ``runs`` that is not there.

    Examples
    --------
    >>> from irrepro import data
    >>> rs = data.load_runs({"mine": {"1": {"d1": 2.5, "d2": 1.0}, "2": {"d3": 0.7}}},
    ...                     qrels={"1": {"d1": 1, "d9": 2}, "2": {"d3": 0}})
    >>> rs.runs, rs.topics, rs.source
    (('mine',), ('1', '2'), 'user files')
    """
    if isinstance(source, bytes):  # a file name as bytes (os.fsencode)
        source = _fspath(source)
    if isinstance(source, str) and source in COLLECTIONS:
        coll = get_collection(source)
        if coll.kind != "runs":
            raise InputError(f"{source!r} holds score matrices, not runs: use load_matrix")
        assert coll.run_dir is not None and coll.ir_datasets_id is not None  # a collection of runs has both
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
        cols = _read_runs(files, progress=progress, desc=f"reading {name}", precision=precision)
        src = "real"
    else:
        if qrels is None:
            raise InputError(
                "give the qrels (file, ir_datasets id, Qrels, DataFrame, dict) for your own runs"
            )
        paths = isinstance(source, (list, tuple)) and all(isinstance(p, (str, bytes, Path)) for p in source)
        if isinstance(source, (str, Path)) or (paths and len(source) > 0):
            files, name = _run_paths(source)
            cols = _read_runs(files, progress=progress, desc=f"reading {name}", precision=precision)
        else:
            from ._inputs import runs_from_object

            name = "runs"
            cols = [_run_cols_of(r) for r in runs_from_object(source)]
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
    one = isinstance(source, (str, Path))
    files: list[Path] = []
    for x in [source] if one else source:
        p = _fspath(x)
        if p.is_dir():
            files += run_files(p)
        elif p.exists():
            files.append(p)
        else:
            what = "run file or directory not found"
            if one and isinstance(source, str) and "/" not in source and "." not in source:
                what += f" (nor a collection name: {', '.join(COLLECTIONS)})"
            raise DataError(p, None, what)
    return files, Path(source).name if one else "runs"


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
        except Exception as exc:  # a damaged cache file of any kind is rebuilt
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


def load_matrix(collection: str, measure: str = "AP", *, allow_simulated: bool | None = None) -> ScoreMatrix:
    """The per-topic score matrix (systems x topics) of ``measure`` for a collection of the book.

    Parameters
    ----------
    collection : str
        A collection of kind ``"matrices"`` (``"trec8"``, ``"robust2004"``, ...).
    measure : str, default "AP"
        One of the collection's ``matrices``.
    allow_simulated : bool, optional
        As for :func:`load_runs`.

    Returns
    -------
    ScoreMatrix
        Systems x topics scores.

    Raises
    ------
    irrepro.InputError
        A measure the collection has no matrix of; its file cannot be had (:class:`DataUnavailable`).

    Examples
    --------
    >>> from irrepro import data
    >>> data.load_matrix("trec8", "P@10").scores.shape  # doctest: +SKIP
    (129, 50)
    """
    coll = get_collection(collection)
    if measure not in coll.matrices:
        raise UnknownNameError(f"{collection} has no {measure!r} matrix; it has {list(coll.matrices)}")
    rel = coll.matrices[measure]
    try:
        path = locate(rel)
    except DataUnavailable as exc:
        _fallback(coll, exc, allow_simulated)
        from . import synthetic

        return synthetic.score_matrix(
            coll.shape[0], _stand_in_topics(coll), measure, seed=_seed_of(coll.name), collection=coll.name
        )
    if path.suffix == ".rda":
        return _read_rda_matrix(path, measure, coll)
    topics = None if coll.name == "robust2004" else coll.topics
    return read_score_matrix(path, measure, topics=topics, collection=coll.name, source="real")


def _read_rda_matrix(path: Path, measure: str, coll: Collection) -> ScoreMatrix:
    import rdata  # maintained pure-Python reader of R data files

    try:
        objs = rdata.read_rda(str(path))
    except Exception as exc:  # any parser failure is a corrupt file
        raise DataError(path, None, f"not a readable R data file ({exc})") from exc
    import pandas as pd

    (df,) = objs.values()
    frame = pd.DataFrame(df)
    systems = tuple(str(c) for c in frame.columns)
    topics = coll.topics if coll.topics and len(coll.topics) == len(frame) else tuple(map(str, frame.index))
    return ScoreMatrix(frame.to_numpy(dtype=float).T.copy(), systems, topics, measure, coll.name, "real")


def leaderboard(collection: str) -> pd.DataFrame:
    """NIST's official per-run scores of a TREC-COVID round (``leaderboard.csv``).

    Parameters
    ----------
    collection : str
        A TREC-COVID round of the book (``"trec-covid-round5"``).

    Returns
    -------
    pandas.DataFrame
        The leaderboard as NIST publishes it.

    Examples
    --------
    >>> from irrepro import data
    >>> board = data.leaderboard("trec-covid-round5")  # doctest: +SKIP
    """
    coll = get_collection(collection)
    rel = next((p for p in coll.extra_files if p.endswith("leaderboard.csv")), None)
    if rel is None:
        raise UnknownNameError(f"{collection} has no leaderboard")
    import pandas as pd

    return pd.read_csv(locate(rel))
