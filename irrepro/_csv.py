"""CSV cells under OWASP's rule against formula injection (served from :mod:`irrepro.escape`).

A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is prefixed with a
single quote ``'``, which a spreadsheet shows and does not evaluate; a value that is not a string,
or a string that is a plain decimal number (``-0.5``, ``1e-05``, ``-inf``, ``nan``), is left as it
is. A text cell holding a carriage return makes the whole file ``csv.QUOTE_NONNUMERIC`` (the writer
quotes a cell only for its line terminator, ``"\\n"``, and an unquoted ``"\\r"`` ends the row for
the readers); numeric columns are written as pandas writes them."""

from __future__ import annotations

import re
from collections.abc import Iterable

_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def csv_cell(value):
    """``value``, or ``"'" + value`` for a text cell a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(_CSV_FORMULA) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_quoting(cells: Iterable) -> int:
    """The ``quoting`` of Python's csv writer (and pandas') for ``cells``."""
    import csv

    cr = any(isinstance(c, str) and "\r" in c for c in cells)
    return csv.QUOTE_NONNUMERIC if cr else csv.QUOTE_MINIMAL


def to_csv(frame, path=None, **kwargs):
    """``frame.to_csv(path, **kwargs)``, every text cell, column name and index label through :func:`csv_cell`."""
    import pandas as pd

    out = frame.copy(deep=False)

    def text(x) -> bool:  # object or str dtype: the cells may be text
        return not pd.api.types.is_numeric_dtype(x) and not pd.api.types.is_datetime64_any_dtype(x)

    def labels(index):
        if isinstance(index, pd.MultiIndex):
            return index.set_levels([lev.map(csv_cell) if text(lev) else lev for lev in index.levels])
        return index.map(csv_cell) if text(index) else index

    out.columns = labels(out.columns)
    out.index = labels(out.index)
    for k in range(out.shape[1]):
        col = out.iloc[:, k]
        if text(col):
            out.isetitem(k, col.map(csv_cell))
    texts = [*out.columns.to_flat_index(), *out.index.to_flat_index()]
    texts += [v for k in range(out.shape[1]) if text(out.iloc[:, k]) for v in out.iloc[:, k]]
    kwargs.setdefault("quoting", csv_quoting(texts))
    kwargs.setdefault("lineterminator", "\n")  # the quoting above assumes it, on every platform
    return out.to_csv(path, **kwargs)
