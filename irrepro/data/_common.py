"""What every reader of the data layer shares: the grade codes, ``DataError`` (file, line,
problem), the order of topic ids, and the helpers that name the rows of a user's table."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

import numpy as np

from .._text import shown
from ..errors import InputError

#: Grade of a retrieved document that has no judgment in the qrels.
UNJUDGED = -1
#: Grade of a rank beyond the end of a list (padding of the ranks axis).
PAD = -2
#: :meth:`Qrels.grade_counts` makes one column per grade 0..max; it refuses qrels whose largest
#: grade is above this (use :meth:`Qrels.grade_levels`, which counts the distinct grades).
MAX_DENSE_GRADE = 1000
_GRADE_MIN, _GRADE_MAX = -(2**31), 2**31 - 1
_PRECISIONS = ("float32", "float64")


class DataUnavailable(InputError, RuntimeError):
    """A data file could be found neither in the cache, nor in the mirror, nor on the network.

    An :class:`~irrepro.InputError` the user can mend, and a :class:`RuntimeError`.

    Examples
    --------
    >>> from irrepro.data import DataUnavailable
    >>> from irrepro import InputError
    >>> issubclass(DataUnavailable, InputError) and issubclass(DataUnavailable, RuntimeError)
    True
    """


class CacheError(DataUnavailable):
    """The data cache cannot be used: ``IRREPRO_CACHE`` names a file, or a directory that cannot be written."""


class DataError(InputError):
    """Malformed input (an InputError): the message names the file, the 1-based line (None: the whole file) and the problem."""

    def __init__(self, path, line, problem):
        self.path, self.line, self.problem = str(path), line, problem
        name = shown(self.path)  # a name that is not UTF-8 shown as \xNN
        where = f"{name}, line {line}" if line else name
        super().__init__(f"{where}: {problem}")


def topic_order(topics: Iterable[str]) -> list[str]:
    """Topic ids sorted numerically when all are integers (``str.isdecimal``), else as strings."""
    topics = list(dict.fromkeys(topics))
    if all(t.isdecimal() for t in topics):
        return sorted(topics, key=int)
    return sorted(topics)


def _n_threads(n_items: int) -> int:
    return max(1, min(n_items, os.cpu_count() or 1))


def _release_memory() -> None:
    """Hand freed memory back to the system (pyarrow's pool, glibc's ``malloc_trim``) between big steps."""
    import sys

    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (another C library)."""
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):
        return None


def _show(value) -> str:
    """repr of a value from a user's table, numpy scalars as plain Python values."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def look_alike(names: list[str], where: list[str], what: str) -> None:
    """Warn of ``names`` that differ but look the same (NFKC), one warning per group naming each in ASCII escapes and its ``where``."""
    import unicodedata
    import warnings

    from ..escape import look_alikes, plain

    at = dict(zip(names, where))
    for group in look_alikes(names):
        each = " and ".join(ascii(n) + (f" ({plain(at[n])})" if at[n] else "") for n in group)
        warnings.warn(
            f"{what} {each} look the same ({plain(unicodedata.normalize('NFKC', group[0]))!r}): "
            "one text in different Unicode normalizations (NFKC: composed and decomposed accents, "
            "ligatures, fullwidth letters), which print alike but are different to irrepro; rename "
            "one to tell them apart in its output",
            stacklevel=3,
        )


def _pd():
    import pandas

    return pandas


def _rows_named(table, name: str, unit: str):
    """Refuse a table with a missing topic or doc id; return ``where(i)``, naming its row ``i`` in messages."""
    for col in ("topic", "doc"):
        bad = table[col].isna().to_numpy()
        if bad.any():
            raise DataError(name, None, f"{unit} {int(np.flatnonzero(bad)[0]) + 1}: missing {col}")

    def where(i: int) -> str:
        return f"{unit} {i + 1} (topic {table['topic'].iat[i]!r}, document {table['doc'].iat[i]!r})"

    return where
