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

from ._collections import COLLECTIONS, fetch, get_collection, status  # noqa: F401
from ._common import PAD, UNJUDGED, DataError
from ._fetch import CacheError, DataUnavailable, cache_dir, locate, mirror_dir, registry, where  # noqa: F401

# not public, imported here by other packages, the CLI, the tests and the benchmarks: COLLECTIONS,
# CacheError, cache_dir, mirror_dir, registry, get_collection, locate, where, Run, build_runset,
# read_run, read_qrels, qrels_from_records, read_score_matrix, run_files, pool_documents and two
# helpers of the run set cache
from ._loaders import _runset_cache_path, leaderboard, load_matrix, load_runs, run_files  # noqa: F401
from ._matrices import ScoreMatrix, read_score_matrix  # noqa: F401
from ._qrels import Qrels, qrels_from_records, read_qrels  # noqa: F401
from ._runs import Run, build_runset, read_run  # noqa: F401
from ._runset import RunSet
from ._sources import SimulatedDataWarning, _registry_qrels_file, load_qrels  # noqa: F401
from .emulate import pool_documents, pool_qrels, thin_qrels, trec6_relevant  # noqa: F401

__all__ = [
    "DataError",
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
