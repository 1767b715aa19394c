"""Where the book's files are: the papers' numbers, the rule's margins and the references (``book/``)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .._env import env

#: Environment variable naming the book's directory (the one holding ``papers/`` and
#: ``references.bib``) when it is neither beside the package nor above the working directory.
BOOK_ENV = "IRREPRO_BOOK"


def book_dir() -> Path:
    """The book's directory: ``$IRREPRO_BOOK``, the checkout's ``book/``, or one in or above the working directory."""
    candidates = [Path(os.environ[BOOK_ENV]).expanduser()] if env(BOOK_ENV) else []
    candidates.append(Path(__file__).resolve().parents[2] / "book")
    cwd = Path.cwd().resolve()
    candidates += [d / "book" for d in (cwd, *cwd.parents)]
    for c in candidates:
        if (c / "papers").is_dir():
            return c
    raise FileNotFoundError(
        "the book's papers/ directory was not found (tried "
        + ", ".join(str(c) for c in candidates[:4])
        + ", ...): run from a checkout of irrepro or set IRREPRO_BOOK to its book/ directory"
    )


def read_book_file(name: str, parse):
    """``parse(path)`` of the book's file ``name`` (under :func:`book_dir`), read again only when it changes."""
    path = book_dir() / name
    return _parsed(parse, str(path), path.stat().st_mtime)


@functools.cache
def _parsed(parse, path: str, mtime: float):
    """``parse(path)``, cached by the file's path and modification time."""
    return parse(path)
