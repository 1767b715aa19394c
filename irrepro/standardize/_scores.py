"""Standardized scores, their factors in the file format ``trec_eval -Z`` reads, and R-normalisation
(Webber, Moffat & Zobel 2008, sections 2-3).

The -Z format (usnistgov/trec_eval, ``get_zscores.c``): one line ``qid measure_name mean std_dev`` per
query and measure, in any order; trec_eval applies it as ``(value - mean) / std_dev``, and a zero
std_dev gives 0 when the value equals the mean and -1000000 otherwise, as does a query or measure the
file lacks (``convert_zscores.c``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from .. import _spread
from ..data._matrices import _checked_scores
from ..errors import InputError, OutputError

#: The Robust 2004 sub-collections of the paper (section 3.1): name -> (first topic, last topic).
#: TREC 6 (301-350) is excluded as in the paper; TREC 2004 has 49 topics (672 has no relevant).
SUBCOLLECTIONS = {
    "TREC 7": (351, 400),
    "TREC 8": (401, 450),
    "TREC 2003": (601, 650),
    "TREC 2004": (651, 700),
}


def topic_range(matrix, first: int, last: int):
    """The score matrix on the topics whose numeric ids lie in [first, last] (section 3.1).

    Parameters
    ----------
    matrix : irrepro.data.ScoreMatrix
    first, last : int
        The first and last topic id kept; ids that are not numbers are left out.

    Returns
    -------
    irrepro.data.ScoreMatrix

    Raises
    ------
    irrepro.InputError
        No topic lies in the range.

    Examples
    --------
    >>> from irrepro.data import ScoreMatrix
    >>> from irrepro.standardize import topic_range
    >>> m = ScoreMatrix(np.zeros((2, 3)), ("a", "b"), ("351", "401", "402"), "AP")
    >>> topic_range(m, 401, 450).topics
    ('401', '402')
    """
    keep = [t for t in matrix.topics if str(t).isdecimal() and first <= int(t) <= last]
    if not keep:
        raise InputError(f"no topics between {first} and {last} in {matrix.collection}")
    return matrix.subset(topics=keep)


@dataclass(frozen=True)
class Factors:
    """Per-topic standardization factors: the mean and sd of the standardizing systems' scores (eq. 1).

    Parameters
    ----------
    mean, sd : numpy.ndarray
        Per-topic mean and standard deviation, shape ``(T,)``.
    topics : tuple of str, optional
        The topic ids (then the factors are matched by id).
    n_systems : int, default 0
    ddof : int, default 1

    Examples
    --------
    >>> from irrepro.standardize import Factors
    >>> Factors(np.array([0.3, 0.5]), np.array([0.1, 0.2]), ("401", "402")).to_frame()
      topic  mean   sd
    0   401   0.3  0.1
    1   402   0.5  0.2
    """

    mean: np.ndarray
    sd: np.ndarray
    topics: tuple[str, ...] | None = None
    n_systems: int = 0
    ddof: int = 1

    def select(self, topics: Sequence[str]) -> Factors:
        """The factors of ``topics`` (ids), in that order."""
        if self.topics is None:
            raise InputError("these factors carry no topic ids; pass arrays in matching order")
        where = {t: i for i, t in enumerate(self.topics)}
        missing = [t for t in topics if str(t) not in where]
        if missing:
            raise InputError(f"no standardization factors for topics {missing[:5]}")
        idx = np.array([where[str(t)] for t in topics])
        return Factors(self.mean[idx], self.sd[idx], tuple(str(t) for t in topics), self.n_systems, self.ddof)

    def to_frame(self) -> pd.DataFrame:
        """The factors as a table (topic, mean, sd) - the form to publish with a collection."""
        topics = self.topics if self.topics is not None else range(len(self.mean))
        return pd.DataFrame({"topic": list(topics), "mean": self.mean, "sd": self.sd})

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, n_systems: int = 0, ddof: int = 1) -> Factors:
        """Published factors (columns topic, mean, sd) back as :class:`Factors`."""
        for c in ("topic", "mean", "sd"):
            if c not in frame.columns:
                raise InputError(f"a factors table needs the column {c!r}")
        mean, sd = frame["mean"].to_numpy(float), frame["sd"].to_numpy(float)
        return cls(mean, sd, tuple(frame["topic"].astype(str)), n_systems, ddof)


def factors(standardizing, *, topics: Sequence[str] | None = None, ddof: int = 1) -> Factors:
    """The per-topic mean and sd of the standardizing systems' scores (eq. 1); a constant topic has sd 0.

    Parameters
    ----------
    standardizing : array_like or irrepro.data.ScoreMatrix
        Scores of the standardizing systems, systems x topics (finite).
    topics : sequence of str, optional
        Topic ids of the columns; taken from a ScoreMatrix when not given.
    ddof : int, default 1

    Returns
    -------
    Factors

    Raises
    ------
    irrepro.InputError
        ``ddof`` or fewer systems, or topic ids that do not match the columns.

    Examples
    --------
    >>> from irrepro.standardize import factors
    >>> f = factors(np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]]))
    >>> f.mean, f.sd, f.n_systems
    (array([0.3, 0.5, 0.2]), array([0.1, 0.2, 0.1]), 3)
    """
    x = _checked_scores(standardizing, "standardizing scores")
    if x.shape[0] <= ddof:
        raise InputError(f"need more than {ddof} standardizing systems, got {x.shape[0]}")
    if topics is None and hasattr(standardizing, "topics"):
        topics = standardizing.topics
    if topics is not None and len(topics) != x.shape[1]:
        raise InputError(f"{len(topics)} topic ids for {x.shape[1]} topics")
    mean, sd = _spread.mean_sd(x, axis=0, ddof=ddof)
    return Factors(mean, sd, None if topics is None else tuple(str(t) for t in topics), x.shape[0], ddof)


def _z(x: np.ndarray, mean: np.ndarray, sd: np.ndarray, zero_sd: str) -> np.ndarray:
    """``(x - mean) / sd``; a topic with sd 0 gives 0 or an error (``zero_sd``)."""
    zero = sd <= 0
    if zero_sd not in ("average", "raise"):
        raise InputError("zero_sd must be 'average' or 'raise'")
    if not np.any(zero):
        return (x - mean) / sd
    if zero_sd == "raise":
        raise InputError(f"{int(np.sum(zero))} topics have zero sd over the standardizing systems")
    safe = np.where(zero, 1.0, sd)
    return np.where(zero, 0.0, (x - mean) / safe)


def zscores(scores, fac: Factors | None = None, *, zero_sd: str = "average") -> np.ndarray:
    """The z-scores ``z_st = (m_st - mu_t) / sigma_t`` of a score matrix (eq. 1)."""
    x = _checked_scores(scores)
    if fac is None:
        fac = factors(scores)
    elif fac.topics is not None and hasattr(scores, "topics"):
        fac = fac.select(scores.topics)
    if len(fac.mean) != x.shape[1]:
        raise InputError(f"factors for {len(fac.mean)} topics, scores have {x.shape[1]}")
    return _z(x, fac.mean, fac.sd, zero_sd)


def standardize(
    scores, fac: Factors | None = None, *, cdf: bool = True, zero_sd: str = "average"
) -> np.ndarray:
    """Standardized scores ``Phi(z_st)`` in [0, 1] (eq. 2), or the z-scores.

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    fac : Factors, optional
        Default: those of ``scores`` itself; matched to a ScoreMatrix's topics by id.
    cdf : bool, default True
        False returns the z-scores.
    zero_sd : {"average", "raise"}
        A topic with sd 0 gives every system z = 0 (standardized 0.5; ``trec_eval -Z`` prints
        -1000000 off the mean), or an error.

    Returns
    -------
    numpy.ndarray
        Systems x topics.

    Examples
    --------
    >>> from irrepro.standardize import factors, standardize
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> standardize([[0.5, 0.5, 0.5]], factors(x)).round(3)  # a new system, published factors
    array([[0.977, 0.5  , 0.999]])
    """
    z = zscores(scores, fac, zero_sd=zero_sd)
    return special.ndtr(z) if cdf else z


def ideal_score(counts, *, k: int | None = None, p: float | None = None) -> np.ndarray:
    """The score of an ideal ranking per topic: P@k's ``min(R, k) / k``, or graded RBP(p)'s.

    RBP's gain is trec_eval's (a grade over the topic's largest when that exceeds 1), highest grades first.

    Parameters
    ----------
    counts : array_like
        With ``k``: R per topic; with ``p``: ``(T, G+1)`` documents judged at grade 0..G per topic
        (``Qrels.grade_counts``).
    k : int, optional
        P@k's cutoff.
    p : float, optional
        RBP's persistence.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    irrepro.InputError
        Not exactly one of ``k`` and ``p``, counts for RBP that are not 2-D, or ``p`` outside (0, 1).

    Examples
    --------
    >>> from irrepro.standardize import ideal_score
    >>> ideal_score([3, 20], k=10), ideal_score([[5, 1, 2], [4, 0, 0]], p=0.5)
    (array([0.3, 1. ]), array([0.8125, 0.    ]))
    """
    if k is not None and p is None:
        return np.minimum(np.asarray(counts, dtype=np.float64), k) / k
    gc = np.asarray(counts, dtype=np.int64)
    if k is not None or p is None:
        raise InputError("give either k (P@k) or p (RBP)")
    if gc.ndim != 2 or not 0 < p < 1:
        raise InputError("counts for RBP must be (topics, grades) and p in (0, 1)")
    top = gc.shape[1] - 1
    judged = gc > 0
    scale = np.maximum(np.where(judged.any(axis=1), top - np.argmax(judged[:, ::-1], axis=1), 0), 1)
    out = np.zeros(gc.shape[0])
    start = np.zeros(gc.shape[0])  # documents placed so far
    for g in range(top, 0, -1):  # few grades: a loop over grades, vectorised over topics
        n = gc[:, g]
        out += (g / scale) * p**start * (1 - p**n)
        start += n
    return out


def r_normalize(scores, ideal) -> np.ndarray:
    """Each topic's scores divided by the score of an ideal ranking (section 2).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    ideal : array_like
        The ideal ranking's score per topic (:func:`ideal_score`).

    Returns
    -------
    numpy.ndarray
        Systems x topics; topics whose ideal score is 0 score 0.

    Examples
    --------
    >>> from irrepro.standardize import r_normalize
    >>> r_normalize([[0.2, 0.3], [0.1, 0.0]], [0.4, 0.0])
    array([[0.5 , 0.  ],
           [0.25, 0.  ]])
    """
    x = _checked_scores(scores)
    ideal = np.asarray(ideal, dtype=np.float64)
    if ideal.shape != (x.shape[1],):
        raise InputError(f"ideal must have one value per topic ({x.shape[1]}), got shape {ideal.shape}")
    return np.divide(x, ideal, out=np.zeros_like(x), where=ideal > 0)


def write_zscores(path, factors_by_measure: Mapping[str, Factors]) -> int:
    """Write standardization factors as ``trec_eval -Z`` reads them, with 17 significant digits.

    ``trec_eval -c -Z FILE`` (``irrepro standardize`` prints the whole command) then prints the
    z-score - not its normal CDF, :func:`standardize`'s default - equal to :func:`standardize` with
    ``cdf=False`` where irrepro evaluates as trec_eval does (``--precision float64``). trec_eval gives
    a zero sd 0 at the mean and -1000000 (its missing value) elsewhere, as it does a topic or measure
    the file lacks.

    Parameters
    ----------
    path : str, os.PathLike or text file object
        The file to write (replaced if it exists), or an open text file.
    factors_by_measure : mapping of str to Factors
        Per measure name as trec_eval prints it (``irrepro.measures.trec_eval_name``), the factors
        (with topic ids).

    Returns
    -------
    int
        The number of lines written.

    Raises
    ------
    irrepro.InputError
        Factors without topic ids, a name or id with whitespace, a mean or sd not finite, a negative sd;
        an ``OSError`` (``irrepro.errors.OutputError``) when the file cannot be written.

    Examples
    --------
    >>> import io
    >>> from irrepro.standardize import factors, write_zscores
    >>> f = factors(np.array([[0.2, 0.5], [0.4, 0.7], [0.3, 0.3]]), topics=["401", "402"])
    >>> out = io.StringIO()
    >>> n = write_zscores(out, {"map": f})
    >>> print(out.getvalue(), end="")
    401 map 0.30000000000000004 0.10000000000000001
    402 map 0.5 0.19999999999999998
    """
    lines = []
    for measure, fac in factors_by_measure.items():
        if fac.topics is None:
            raise InputError(f"the factors of {measure} carry no topic ids; trec_eval needs them")
        if not measure or any(c.isspace() for c in measure):
            raise InputError(f"measure name {measure!r} is empty or holds whitespace")
        for topic, mean, sd in zip(fac.topics, fac.mean, fac.sd):
            if not topic or any(c.isspace() for c in topic):
                raise InputError(f"topic id {topic!r} is empty or holds whitespace")
            if not (math.isfinite(mean) and math.isfinite(sd) and sd >= 0):
                raise InputError(
                    f"{measure}, topic {topic}: mean {float(mean)!r}, sd {float(sd)!r}; trec_eval -Z "
                    "needs a finite mean and sd >= 0"
                )
            lines.append(f"{topic} {measure} {float(mean):.17g} {float(sd):.17g}\n")
    if hasattr(path, "write"):
        path.writelines(lines)
        return len(lines)
    try:
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.writelines(lines)
    except OSError as exc:
        raise OutputError(exc.errno or 5, exc.strerror or str(exc), str(path)) from None
    return len(lines)


def read_zscores(path) -> dict[str, Factors]:
    """Read a ``trec_eval -Z`` file back into standardization factors (blank lines skipped).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    dict of str to Factors
        Per measure name, the factors with their topic ids in file order.

    Raises
    ------
    irrepro.InputError
        Naming file and line: not four fields, a mean or sd not finite, a negative sd, a measure and
        topic twice, a file that cannot be read or holds no line.
    """
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: cannot read the z-score file ({exc})") from None
    rows: dict[str, dict[str, tuple[float, float]]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        where = f"{name}, line {number}"
        if len(fields) != 4:
            raise InputError(f"{where}: expected 'qid measure mean sd', got {len(fields)} fields")
        topic, measure, mean_text, sd_text = fields
        try:
            mean, sd = float(mean_text), float(sd_text)
        except ValueError:
            raise InputError(f"{where}: mean {mean_text!r} or sd {sd_text!r} is not a number") from None
        if not (math.isfinite(mean) and math.isfinite(sd)):
            raise InputError(f"{where}: mean {mean_text!r} or sd {sd_text!r} is not finite")
        if sd < 0:
            raise InputError(f"{where}: sd {sd_text} of {measure}, topic {topic} is negative")
        per = rows.setdefault(measure, {})
        if topic in per:
            raise InputError(f"{where}: {measure}, topic {topic} given twice")
        per[topic] = (mean, sd)
    if not rows:
        raise InputError(f"{name}: no 'qid measure mean sd' line")
    return {
        m: Factors(np.array([v[0] for v in per.values()]), np.array([v[1] for v in per.values()]), tuple(per))
        for m, per in rows.items()
    }
