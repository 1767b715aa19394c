"""The sizes of the report's computations (``settings``) and the names of its files: without
pandas or scipy, so that ``irrepro report`` checks its arguments before it loads them."""

from __future__ import annotations

from dataclasses import dataclass

from .. import parallel
from .._text import slug

__all__ = ["Settings", "settings", "REPORT_FILES"]

#: The files every report may write whatever its measure (the per-topic table is named after it).
REPORT_FILES = ("index.html", "summary.csv", "runs.csv", "pairs.csv", "error-rates.csv", "topic-set-size.csv",
                "methods.md", "methods.tex", "ir_metadata.yml")  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The sizes of the report's computations (the papers' values at ``scale="paper"``).

    Attributes
    ----------
    B_tests : int
        Bootstrap samples of the paired tests (Sakai 2006, section 3.1: B = 1000).
    B_corpus : int
        Corpus-bootstrap samples per ranked list (Cormack & Lynam 2006: 2000).
    B_swap : int
        Swap-experiment repetitions per topic-set size (Sanderson & Zobel 2005: 50).
    max_size : int
        The largest topic-set size of the swap experiment (Sanderson & Zobel 2005: 25).
    B_halves : int
        Random topic halves (Webber et al. 2008: "multiple"; we use 1000).
    scale : str
        ``"paper"`` or ``"quick"``.
    """

    B_tests: int
    B_corpus: int
    B_swap: int
    max_size: int
    B_halves: int
    scale: str


def settings(scale: str | None = None) -> Settings:
    """The papers' sizes (``"paper"``, the default) or small ones (``"quick"``).

    Parameters
    ----------
    scale : {"paper", "quick"} or None
        None is ``"paper"`` whatever ``IRREPRO_SCALE`` says: the command line reads it
        (``--scale`` or ``IRREPRO_SCALE``) and passes it.

    Returns
    -------
    Settings
        The resamples, repetitions and sizes of every analysis of the report.

    Raises
    ------
    irrepro.InputError
        ``scale`` is neither ``"paper"`` nor ``"quick"``.

    Examples
    --------
    >>> from irrepro import report
    >>> report.settings()
    Settings(B_tests=1000, B_corpus=2000, B_swap=50, max_size=25, B_halves=1000, scale='paper')
    >>> report.settings("quick")
    Settings(B_tests=200, B_corpus=200, B_swap=10, max_size=25, B_halves=50, scale='quick')
    """
    scale = "paper" if scale is None else parallel.check_scale(scale)
    if scale != "quick":
        return Settings(B_tests=1000, B_corpus=2000, B_swap=50, max_size=25, B_halves=1000, scale=scale)
    return Settings(B_tests=200, B_corpus=200, B_swap=10, max_size=25, B_halves=50, scale=scale)


def _per_topic_file(measure: str) -> str:
    """The name of the report's per-topic table of ``measure``."""
    return f"{slug(measure) or 'scores'}-per-topic.csv"
