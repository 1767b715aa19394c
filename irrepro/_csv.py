"""CSV cells under OWASP's rule against formula injection: :func:`csv_cell`, :func:`csv_quoting`
and :func:`to_csv`. Served from :mod:`irrepro.escape`, whose docstring sets out the escaping of
every output format."""

from __future__ import annotations

import re
from collections.abc import Iterable

_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def csv_cell(value):
    """A CSV cell under OWASP's rule against formula injection.

    A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is prefixed with a single
    quote ``'``, which a spreadsheet shows and does not evaluate.

    Numbers stay numbers: a value that is not a string (an int, a float, a numpy number, NaN) is
    returned unchanged, and so is a string that is a plain decimal number (``-0.5``, ``+1``,
    ``1e-05``, ``-inf``, ``nan``: what a spreadsheet reads as a number or as text, never as a
    formula). The quoting of the CSV itself (commas, quotes, line breaks) is the CSV writer's.

    Parameters
    ----------
    value : object
        The cell.

    Returns
    -------
    object
        ``value``, or ``"'" + value`` for a text cell that a spreadsheet would take for a formula.

    Examples
    --------
    >>> from irrepro.escape import csv_cell
    >>> csv_cell("=SUM(A1:A9)"), csv_cell(0.5)
    ("'=SUM(A1:A9)", 0.5)
    """
    if isinstance(value, str) and value.startswith(_CSV_FORMULA) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_quoting(cells: Iterable) -> int:
    r"""The ``quoting`` of Python's csv writer (and pandas') for ``cells``.

    ``csv.QUOTE_MINIMAL``, or ``csv.QUOTE_NONNUMERIC`` (every text cell in quotes, numbers bare) when a text
    cell holds a carriage return - the writer quotes a cell for the characters of its line terminator only
    (``"\n"``), and an unquoted ``"\r"`` ends the row for the readers.

    Parameters
    ----------
    cells : iterable
        The cells, labels included.

    Returns
    -------
    int
        A quoting constant of the ``csv`` module.

    Examples
    --------
    >>> import csv
    >>> from irrepro.escape import csv_quoting
    >>> csv_quoting(["a", 1.0]) == csv.QUOTE_MINIMAL, csv_quoting(["a\rb"]) == csv.QUOTE_NONNUMERIC
    (True, True)
    """
    import csv

    cr = any(isinstance(c, str) and "\r" in c for c in cells)
    return csv.QUOTE_NONNUMERIC if cr else csv.QUOTE_MINIMAL


def to_csv(frame, path=None, **kwargs):
    """``frame.to_csv(path, **kwargs)``, every text cell safe for a spreadsheet.

    Every text cell, column name and index label goes through :func:`csv_cell` (the frame itself is not
    changed), with the quoting of :func:`csv_quoting`; numeric columns are written as pandas writes them.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    path : str, path or file, optional
        Where to write; None returns the text.
    **kwargs
        Passed to :meth:`pandas.DataFrame.to_csv`.

    Returns
    -------
    str or None
        The CSV text when ``path`` is None.

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro.escape import to_csv
    >>> print(to_csv(pd.DataFrame({"run": ["=1+1"], "map": [0.25]}), index=False), end="")
    run,map
    '=1+1,0.25
    """
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
    return out.to_csv(path, **kwargs)
