"""The user's runs read with their qrels (:func:`load`, public as ``report.load``; here so that ``eval``
and ``compare`` read runs without importing the report)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .data import Qrels, RunSet

__all__ = ["Inputs", "load"]


@dataclass(frozen=True, eq=False)
class Inputs:
    """What :func:`load` read: the run set, whether its qrels are simulated, how they were named."""

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
    """Read the user's runs with their qrels (real ones, or the stand-in with ``allow_simulated``).

    Parameters
    ----------
    runs : str, Path or sequence of them
        A directory of run files, or run files and directories (a path, never a collection name).
    qrels : str, Path or irrepro.data.Qrels
        A qrels file, an ir_datasets id, a collection name of the book, or qrels already read.
    allow_simulated : bool
        Accept a collection's simulated stand-in when its real qrels are not there.
    precision : {"float32", "float64"} or None
        How the run files' scores rank: ``"float32"`` (trec_eval <= 9.0.8, pytrec_eval; None) or
        ``"float64"`` (trec_eval 10).
    progress : bool
        Show a progress bar while reading.

    Returns
    -------
    Inputs
        ``runset``, ``simulated`` and ``qrels_label`` (the qrels as given).

    Raises
    ------
    irrepro.InputError
        A run file that cannot be read, or a run matching no qrels topic, naming the file.
    FileNotFoundError
        ``qrels`` is neither a file nor an ir_datasets id.

    Examples
    --------
    >>> from irrepro import report
    >>> inp = report.load(runs_dir, qrels_file)  # the doctests' three simulated runs as TREC files
    >>> inp.runset.runs, inp.simulated, inp.qrels_label == str(qrels_file)
    (('simrun001', 'simrun002', 'simrun003'), False, True)
    """
    from . import data

    sources = Path(runs) if isinstance(runs, (str, Path)) else [Path(r) for r in runs]
    with warnings.catch_warnings():  # the stand-in is announced by Inputs.simulated and the report
        warnings.simplefilter("ignore", data.SimulatedDataWarning)
        rs = data.load_runs(sources, qrels=qrels, progress=progress, allow_simulated=allow_simulated,
                            precision=precision or "float32")  # fmt: skip
    label = qrels.name if isinstance(qrels, Qrels) else str(qrels)
    return Inputs(rs, rs.simulated, label)
