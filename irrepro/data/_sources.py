"""Where a named collection comes from: its real files (irrepro's verified copies, or ir_datasets in
the user's own home, never a changed environment) or, when those cannot be had and the caller allows
it, the labelled simulated stand-in of the same shape; the qrels loader."""

from __future__ import annotations

import errno
import warnings
import zlib
from pathlib import Path

from ..errors import InputError
from ._collections import COLLECTIONS, IR_DATASETS_FILES, Collection
from ._fetch import CacheError, DataUnavailable, _env_flag, is_offline, locate, sha256_file
from ._qrels import Qrels, qrels_from_records, read_qrels
from ._runset import RunSet
from ._textfiles import _fspath


class SimulatedDataWarning(UserWarning):
    """A named collection could not be had, so the simulated stand-in was used (as the caller allowed).

    Examples
    --------
    >>> from irrepro.data import SimulatedDataWarning
    >>> issubclass(SimulatedDataWarning, UserWarning)
    True
    """


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


def _stand_in_topics(coll: Collection) -> int | tuple[str, ...]:
    """The stand-in's topics: the collection's topic ids, else its number of topics."""
    return coll.topics if coll.topics is not None else coll.shape[1]


def _stand_in_runs(coll: Collection) -> RunSet:
    """The simulated stand-in of a collection of runs: its size, topic ids and median R."""
    from . import synthetic

    return synthetic.runs(
        coll.shape[0], _stand_in_topics(coll), seed=_seed_of(coll.name), name=coll.name, **_stand_in_r(coll)
    )


def _fallback(coll: Collection, exc: DataUnavailable, allow_simulated: bool | None):
    """Raise ``exc`` unless the simulated stand-in is allowed; then warn that it is used."""
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
    """Put a known ir_datasets id's verified registry files where the user's ir_datasets looks, so that it never downloads them."""
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
        raise FileNotFoundError(
            errno.ENOENT, "is neither a file nor an ir_datasets id", str(irds_id)
        ) from None


def load_qrels(source, name: str | None = None, *, allow_simulated: bool | None = None) -> Qrels:
    """Qrels from a file, an ir_datasets id, a collection of the book or an object of another tool.

    Parameters
    ----------
    source : str, os.PathLike, Qrels, pandas.DataFrame, dict or ranx.Qrels
        A TREC qrels file (read as trec_eval 10 reads it, the rules on this module's API page); an
        ir_datasets id; a collection name of the book; a :class:`Qrels` (returned as it is); a
        DataFrame with ir_measures' or PyTerrier's columns; a ``{qid: {docno: grade}}`` dict; or a
        ranx ``Qrels``.
    name : str, optional
        A name for the judgments.
    allow_simulated : bool, optional
        As for :func:`load_runs`.

    Returns
    -------
    Qrels
        The judgments (``source == "simulated"`` for the stand-in's).

    Raises
    ------
    irrepro.InputError
        A malformed file or object (naming it and the line); a collection whose files cannot be
        had (:class:`DataUnavailable`), unless the stand-in is allowed.

    Examples
    --------
    >>> from irrepro import data
    >>> qrels = data.load_qrels({"1": {"d1": 1, "d9": 2}, "2": {"d3": 0}})
    >>> qrels.topics, qrels.n_relevant()
    (('1', '2'), array([2, 0]))
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
            from . import synthetic

            if coll.kind == "runs":
                return _stand_in_runs(coll).qrels
            return synthetic._qrels(
                _stand_in_topics(coll),
                seed=_seed_of(coll.name),
                name=f"{coll.name} (simulated)",
                **_stand_in_r(coll),
            )
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
