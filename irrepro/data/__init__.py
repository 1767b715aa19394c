"""The data layer: named collections, verified downloads, TREC readers and the shared in-memory forms
(:class:`RunSet`, :class:`Qrels`, :class:`ScoreMatrix`) from files or other tools' objects.

Files come from the cache (``IRREPRO_CACHE``), the mirror (``IRREPRO_MIRROR``), then the network
(not with ``IRREPRO_OFFLINE=1``), each checked against its sha256. A collection that cannot be had
is a :class:`DataUnavailable` error or, allowed (``allow_simulated=True``,
``IRREPRO_ALLOW_SIMULATED=1``; never with ``IRREPRO_REQUIRE_REAL=1``), the simulated stand-in of
the same shape (``result.simulated``, a :class:`SimulatedDataWarning`).
"""

from __future__ import annotations

from ._collections import COLLECTIONS, fetch, get_collection, status  # noqa: F401
from ._common import PAD, UNJUDGED, DataError  # noqa: F401
from ._fetch import CacheError, DataUnavailable, cache_dir, locate, mirror_dir, registry, where  # noqa: F401

# (the names outside __all__: not public, imported here by other packages, the CLI, tests and benchmarks)
from ._loaders import _runset_cache_path, leaderboard, load_matrix, load_runs, run_files  # noqa: F401
from ._matrices import ScoreMatrix, read_score_matrix  # noqa: F401
from ._qrels import Qrels, qrels_from_records, read_qrels  # noqa: F401
from ._runs import Run, build_runset, read_run  # noqa: F401
from ._runset import RunSet
from ._sources import SimulatedDataWarning, _registry_qrels_file, load_qrels  # noqa: F401
from .emulate import pool_documents, pool_qrels, thin_qrels, trec6_relevant  # noqa: F401

__all__ = [
    "DataUnavailable",
    "PAD",
    "UNJUDGED",
    "Qrels",
    "RunSet",
    "ScoreMatrix",
    "SimulatedDataWarning",
    "fetch",
    "leaderboard",
    "load_matrix",
    "load_qrels",
    "load_runs",
    "pool_qrels",
    "status",
    "synthetic",
    "thin_qrels",
    "trec6_relevant",
]


def __getattr__(name: str):
    # the simulated stand-in (and scipy, which it needs) is imported on first use only
    if name == "synthetic":
        import importlib

        return importlib.import_module(f"{__name__}.synthetic")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
