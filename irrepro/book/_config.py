"""The book's configuration: the one place where the book reads its environment, so that the
library never does (the same call gives the same result in every shell)."""

from __future__ import annotations

import html
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from .. import parallel
from .._env import env


@dataclass(frozen=True)
class BookConfig:
    """What the environment asks of a build of the book (``config``)."""

    scale: str
    jobs: int
    results: Path | None


def config() -> BookConfig:
    """The book's settings, read from the environment each time it is called (a chapter: once, at its top).

    Returns
    -------
    BookConfig
        ``scale`` (``"paper"`` or ``"quick"``), ``jobs`` (workers, -1 all cores) and ``results``
        (where :func:`compare` records, or None).

    Raises
    ------
    irrepro.InputError
        When ``IRREPRO_SCALE`` or ``IRREPRO_JOBS`` holds a value irrepro does not take, naming it.

    Examples
    --------
    >>> from irrepro import book
    >>> cfg = book.config()
    >>> cfg.scale in ("paper", "quick")
    True
    """
    return BookConfig(scale=parallel.scale(), jobs=parallel.env_jobs(), results=results_dir())


#: Set by the book's build for the kernels it runs: only there does a chapter glue a table for a sub-page.
BOOK_BUILD_ENV = "IRREPRO_BOOK_BUILD"


def in_book_build() -> bool:
    """Whether this kernel runs a page of the book's build (``IRREPRO_BOOK_BUILD=1``)."""
    return env(BOOK_BUILD_ENV) == "1"


def results_dir() -> Path | None:
    """The book configuration's results directory (``IRREPRO_RESULTS``), or None when unset or empty."""
    results = env("IRREPRO_RESULTS")
    return Path(results) if results else None


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """In a notebook, a SimulatedDataWarning as a box on the page; any other warning as Python shows it."""
    from ..data import SimulatedDataWarning

    if not issubclass(category, SimulatedDataWarning):
        return _python_showwarning(message, category, filename, lineno, file, line)
    from IPython.display import HTML, display

    what = html.escape(str(message).split(": real data unavailable")[0])
    title = '<p class="admonition-title">Simulated data</p>'
    text = f"<p>{what}: its real files could not be had, so this page uses its simulated stand-in.</p>"
    display(HTML(f'<div class="admonition warning simulated-data">{title}{text}</div>'))


# In a notebook's kernel (a page of the book), the stand-in is labelled on the page, not on stderr.
_python_showwarning = warnings.showwarning
if getattr(getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)(), "kernel", None) is not None:
    warnings.showwarning = _show_warning
