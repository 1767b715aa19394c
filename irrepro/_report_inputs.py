"""The user's runs for ``irrepro eval`` and ``irrepro report``: loading them with real (or, when
asked for, the simulated) qrels, and each run's coverage of the qrels' topics. Public names are
re-exported by :mod:`irrepro.report` (``report.load``, ``report.coverage``, ``report.Inputs``)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .data import DataError, Qrels, RunSet

__all__ = ["Inputs", "load", "coverage"]


@dataclass(frozen=True, eq=False)
class Inputs:
    """What :func:`load` read: the run set, its files (``files[i]`` holds ``runset.runs[i]``),
    whether the qrels are the simulated stand-in, and how the qrels were named."""

    runset: RunSet
    files: tuple[Path, ...]
    simulated: bool
    qrels_label: str


def coverage(rs: RunSet, limit: int = 5) -> pd.DataFrame:
    """One row per run: how many of the qrels' topics it retrieved for (``retrieved`` of
    ``topics``), the qrels topics it lacks (``missing``: they score 0 in trec_eval -c's mean, and
    are left out of the mean over the run's own topics) and its topics the qrels lack (``ignored``:
    never evaluated, as trec_eval does), with up to ``limit`` ids of each (``missing ids``,
    ``ignored ids``)."""
    has = np.asarray(rs.lengths) > 0  # (S, T)
    T = len(rs.topics)
    rows = []
    for s, run in enumerate(rs.runs):
        missing = [rs.topics[t] for t in np.flatnonzero(~has[s])]
        ignored = list(rs.ignored_topics.get(run, ()))
        rows.append({
            "run": run, "retrieved": int(has[s].sum()), "topics": T,
            "missing": len(missing), "missing ids": _ids(missing, limit),
            "ignored": len(ignored), "ignored ids": _ids(ignored, limit),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("run")


def _ids(ids: Sequence[str], limit: int) -> str:
    return ", ".join(ids[:limit]) + (", ..." if len(ids) > limit else "")


def _check_matches(rs: RunSet, files: Sequence[Path] | None, qrels_label: str) -> pd.DataFrame:
    """The coverage of ``rs``; a run that matches none of the qrels' topics is a DataError naming
    its file (a wrong qrels file, or topic ids written another way, e.g. "T1" for "1")."""
    cov = coverage(rs)
    for s, run in enumerate(rs.runs):
        if cov.at[run, "retrieved"] == 0:
            where = files[s] if files is not None and s < len(files) else f"run {run!r}"
            qtopics = _ids(list(rs.topics), 5)
            raise DataError(
                where, None,
                f"none of the run's {cov.at[run, 'ignored']} topics ({cov.at[run, 'ignored ids']}) is a "
                f"topic of the qrels {qrels_label or rs.qrels.name} ({len(rs.topics)} topics: {qtopics}); "
                "is it the right qrels file, or are the topic ids written another way?",
            )  # fmt: skip
    return cov


def _load_qrels(source, allow_simulated: bool) -> tuple[Qrels, bool]:
    """The qrels of ``source`` and whether they are the simulated stand-in (which the data layer
    gives for a book collection's name only with ``allow_simulated``; else DataUnavailable)."""
    from . import data

    if isinstance(source, Qrels):
        return source, source.source == "simulated"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        q = data.load_qrels(source, allow_simulated=allow_simulated)
    simulated = q.source == "simulated"
    for w in caught:
        if issubclass(w.category, data.SimulatedDataWarning):
            simulated = True
        else:  # pass every other warning on
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return q, simulated


def load(
    runs: str | Path | Sequence[str | Path],
    qrels: str | Path | Qrels,
    *,
    allow_simulated: bool = False,
    precision: str | None = None,
    progress: bool = False,
) -> Inputs:
    """Read the user's runs (a directory of run files, or files and directories) with ``qrels`` (a
    file, an ir_datasets id, a collection name of the book, or :class:`~irrepro.data.Qrels`): what
    ``irrepro eval`` and ``irrepro report`` do first.

    Real data or an error: a collection's simulated stand-in is used only with
    ``allow_simulated=True``, and then ``Inputs.simulated`` says so. A run none of whose topics is
    a topic of the qrels raises :class:`~irrepro.data.DataError` naming its file. ``precision``:
    rank scores as ``"float32"`` (trec_eval <= 9.0.8, pytrec_eval, NIST's leaderboards; the
    default) or ``"float64"`` (trec_eval 10).
    """
    from . import data

    kwargs = {} if precision is None else {"precision": precision}
    sources = [runs] if isinstance(runs, (str, Path)) else list(runs)
    files: list[Path] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            files += data.run_files(p)
        elif p.is_file():
            files.append(p)
        else:
            raise DataError(p, None, "run file or directory not found")
    if not files:
        raise ValueError("no run files given")
    q, simulated = _load_qrels(qrels, allow_simulated)
    single_dir = len(sources) == 1 and Path(sources[0]).is_dir()
    rs = data.load_runs(sources[0] if single_dir else files, qrels=q, progress=progress, **kwargs)
    label = q.name if isinstance(qrels, Qrels) else str(qrels)
    _check_matches(rs, files, label)
    return Inputs(rs, tuple(files), simulated, label)
