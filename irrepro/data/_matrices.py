"""Score matrices: :class:`ScoreMatrix` (systems x topics scores of one measure) and
:func:`read_score_matrix` (a topics x systems CSV)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ._common import DataError, _pd
from ._runset import _indices

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """Per-topic scores of one measure: ``scores[s, t]`` for system ``s`` on topic ``t``.

    Parameters
    ----------
    scores : numpy.ndarray
        float64 ``(S, T)``.
    systems : tuple of str
        The systems' names, one per row.
    topics : tuple of str
        The topic ids, one per column.
    measure : str
        The measure's name (``"AP"``, ``"P@10"``).
    collection : str, optional
        The collection's name.
    source : str, optional
        ``"real"`` or ``"simulated"``.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.data import ScoreMatrix
    >>> m = ScoreMatrix(np.array([[0.2, 0.4], [0.3, 0.1]]), ("A", "B"), ("401", "402"), "AP")
    >>> m.mean()
    array([0.3, 0.2])
    >>> m.subset(systems=["B"]).scores
    array([[0.3, 0.1]])
    """

    scores: np.ndarray  # float64 (S, T)
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    measure: str
    collection: str = ""
    source: str = ""

    def __post_init__(self):
        if self.scores.shape != (len(self.systems), len(self.topics)):
            raise InputError(
                f"scores have shape {self.scores.shape}, expected "
                f"({len(self.systems)} systems, {len(self.topics)} topics)"
            )

    @property
    def simulated(self) -> bool:
        return self.source == "simulated"

    @property
    def shape(self) -> tuple[int, int]:
        return self.scores.shape

    def mean(self) -> np.ndarray:
        """Mean over topics per system (e.g. MAP from AP)."""
        return self.scores.mean(axis=1)

    def subset(self, systems: Sequence | None = None, topics: Sequence | None = None) -> ScoreMatrix:
        """Restrict to some systems and/or topics (names or integer indices)."""
        si, ti = _indices(self.systems, systems), _indices(self.topics, topics)
        return replace(
            self,
            scores=self.scores[np.ix_(si, ti)],
            systems=tuple(self.systems[i] for i in si),
            topics=tuple(self.topics[i] for i in ti),
        )

    def to_frame(self) -> pd.DataFrame:
        """A DataFrame with systems as rows and topics as columns."""
        return _pd().DataFrame(self.scores, index=list(self.systems), columns=list(self.topics))


def _checked_scores(scores, name: str = "scores") -> np.ndarray:
    """The float64 (systems, topics) array of a ScoreMatrix or array-like, refused (InputError naming the cell) unless 2-d and finite."""
    x = np.asarray(getattr(scores, "scores", scores), dtype=np.float64)
    if x.ndim != 2:
        raise InputError(f"{name} must be a systems x topics matrix (2-d), got shape {x.shape}")
    bad = ~np.isfinite(x)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        where = f"row {i + 1}, column {j + 1}"
        if isinstance(scores, ScoreMatrix):
            where = f"system {scores.systems[i]!r}, topic {scores.topics[j]!r} ({where})"
        raise InputError(
            f"{name} must be finite numbers, not NaN or infinite: {float(x[i, j])!r} at "
            f"{where} ({int(bad.sum())} non-finite value(s) in all)"
        )
    return x


def read_score_matrix(
    path: str | Path,
    measure: str,
    *,
    topics: Sequence[str] | None = None,
    collection: str = "",
    source: str = "",
) -> ScoreMatrix:
    r"""Read a topics x systems CSV or TSV into a systems x topics :class:`ScoreMatrix`."""
    pd = _pd()
    path = Path(path)
    if not path.is_file():
        raise DataError(path, None, "score-matrix file not found")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            first = f.readline()
        sep = "\t" if "\t" in first else ","
        df = pd.read_csv(path, dtype=str, keep_default_na=False, sep=sep)
    except pd.errors.EmptyDataError as exc:
        raise DataError(path, None, "empty score-matrix file") from exc
    except pd.errors.ParserError as exc:
        raise DataError(path, None, f"malformed CSV ({exc})") from exc
    if len(df) == 0 or df.shape[1] == 0:
        raise DataError(path, None, "empty score-matrix file")
    header = next(csv.reader([first.rstrip("\r\n")], delimiter=sep), [""])  # the names as pandas reads them
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise DataError(path, 1, f"the header names {', '.join(map(repr, twice))} more than once")
    if header[0].strip().lower() in ("topic", "query", "qid", ""):
        row_names = [str(t) for t in df.iloc[:, 0]]
        df = df.iloc[:, 1:]
        again = sorted({t for t in row_names if row_names.count(t) > 1})
        if again:
            raise DataError(path, row_names.index(again[0]) + 3, f"topic {again[0]!r} has more than one row")
        if df.shape[1] == 0:
            raise DataError(path, 1, "no system column after the topic ids")
    elif topics is not None:
        if len(topics) != len(df):
            raise DataError(path, None, f"{len(df)} rows but {len(topics)} topic ids were given")
        row_names = [str(t) for t in topics]
    else:
        row_names = [f"row{i + 1}" for i in range(len(df))]
    values = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise DataError(
            path, i + 2, f"value {df.iat[i, j]!r} in column {df.columns[j]!r} is not a finite number"
        )
    systems = tuple(str(c) for c in df.columns)
    return ScoreMatrix(np.ascontiguousarray(values.T), systems, tuple(row_names), measure, collection, source)
