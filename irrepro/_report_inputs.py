"""The user's runs for ``irrepro report``: :func:`load` reads them with real (or, when asked
for, the simulated) qrels through :func:`irrepro.data.load_runs`, which also refuses a run
matching no qrels topic; each run's coverage of the qrels' topics is
:meth:`RunSet.coverage <irrepro.data.RunSet.coverage>`. Public names are re-exported by
:mod:`irrepro.report` (``report.load``, ``report.Inputs``)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .data import Qrels, RunSet

__all__ = ["Inputs", "load"]


@dataclass(frozen=True, eq=False)
class Inputs:
    """What :func:`load` read: the run set, whether the qrels are the simulated stand-in, and
    how the qrels were named."""

    runset: RunSet
    simulated: bool
    qrels_label: str


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
    ``irrepro report`` does first, by :func:`irrepro.data.load_runs`.

    Real data or an error: a collection's simulated stand-in is used only with
    ``allow_simulated=True``, and then ``Inputs.simulated`` says so. A run none of whose topics is
    a topic of the qrels raises :class:`~irrepro.data.DataError` naming its file. ``precision``:
    rank scores as ``"float32"`` (trec_eval <= 9.0.8, pytrec_eval, NIST's leaderboards; the
    default) or ``"float64"`` (trec_eval 10).
    """
    from . import data

    # paths (a Path is never taken for a collection's name): a directory, or files and directories
    sources = Path(runs) if isinstance(runs, (str, Path)) else [Path(r) for r in runs]
    with warnings.catch_warnings():  # the stand-in is announced by Inputs.simulated and the report
        warnings.simplefilter("ignore", data.SimulatedDataWarning)
        rs = data.load_runs(sources, qrels=qrels, progress=progress, allow_simulated=allow_simulated,
                            precision=precision or "float32")  # fmt: skip
    label = qrels.name if isinstance(qrels, Qrels) else str(qrels)
    return Inputs(rs, rs.simulated, label)
