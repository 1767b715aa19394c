"""Standardized scores (Webber, Moffat & Zobel 2008, section 3): the standardization factors of a
set of standardizing systems, z-scores and their normal CDF, and the R-normalisation against an
ideal score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from .. import _spread
from ..data._matrices import _checked_scores
from ..errors import InputError

#: The Robust 2004 sub-collections of the paper (section 3.1): name -> (first topic, last topic).
#: TREC 6 (301-350) is excluded as in the paper; TREC 2004 has 49 topics (672 has no relevant).
SUBCOLLECTIONS = {
    "TREC 7": (351, 400),
    "TREC 8": (401, 450),
    "TREC 2003": (601, 650),
    "TREC 2004": (651, 700),
}


def topic_range(matrix, first: int, last: int):
    """The score matrix restricted to the topics whose numeric ids lie in [first, last].

    Parameters
    ----------
    matrix : irrepro.data.ScoreMatrix
        Systems x topics scores with topic ids.
    first, last : int
        The first and last topic id kept (inclusive); ids that are not numbers are left out.

    Returns
    -------
    irrepro.data.ScoreMatrix
        The same systems on the topics in range, in the matrix's order.

    Raises
    ------
    irrepro.InputError
        When no topic lies in the range.

    Notes
    -----
    Webber, Moffat & Zobel (2008, section 3.1) split Robust 2004 into its sub-collections this way
    (:data:`SUBCOLLECTIONS`).

    Examples
    --------
    >>> import numpy as np
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


def _matrix(scores, name: str = "scores") -> np.ndarray:
    return _checked_scores(scores, name)


# --------------------------------------------------------------------------------------------
# Standardization (section 3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Factors:
    """Per-topic standardization factors: the mean and sd of the standardizing systems' scores.

    Section 3, eq. 1 of Webber, Moffat & Zobel (2008). Published with a collection, they standardize
    any later system's scores (:func:`standardize`); :meth:`to_frame` and :meth:`from_frame` give and
    take them as a table.

    Parameters
    ----------
    mean, sd : numpy.ndarray
        Per-topic mean and standard deviation, shape ``(T,)``.
    topics : tuple of str, optional
        The topic ids the factors belong to (then they are matched by id).
    n_systems : int, default 0
        Number of standardizing systems.
    ddof : int, default 1
        The sd's delta degrees of freedom.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.standardize import Factors
    >>> f = Factors(np.array([0.3, 0.5]), np.array([0.1, 0.2]), ("401", "402"))
    >>> f.select(["402"]).mean
    array([0.5])
    >>> f.to_frame()
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
        """The factors of ``topics`` (ids), in that order - to apply published factors to a new
        matrix whose topics are a subset or another order."""
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
        return cls(
            frame["mean"].to_numpy(float),
            frame["sd"].to_numpy(float),
            tuple(frame["topic"].astype(str)),
            n_systems,
            ddof,
        )


def factors(standardizing, *, topics: Sequence[str] | None = None, ddof: int = 1) -> Factors:
    """Standardization factors from the standardizing systems' scores.

    The per-topic mean and sample sd (``ddof=1``: see the module's notes) of Webber, Moffat & Zobel
    (2008, section 3, eq. 1). A topic on which every standardizing system scored the same has that
    score as its mean and an sd of exactly 0 (numpy's mean of three 0.7s is 0.7 - 1.1e-16, and its
    sd 1.4e-16: divided by, that noise would give z-scores near 1e16).

    Parameters
    ----------
    standardizing : array_like or irrepro.data.ScoreMatrix
        Scores of the standardizing systems, systems x topics (finite).
    topics : sequence of str, optional
        Topic ids of the columns; taken from a ScoreMatrix when not given.
    ddof : int, default 1
        Delta degrees of freedom of the sd.

    Returns
    -------
    Factors
        Per-topic mean and sd, with the topic ids and the number of systems.

    Raises
    ------
    irrepro.InputError
        With ``ddof`` or fewer systems, or topic ids that do not match the columns.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.standardize import factors
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> f = factors(x)
    >>> f.mean, f.sd, f.n_systems
    (array([0.3, 0.5, 0.2]), array([0.1, 0.2, 0.1]), 3)
    >>> factors(np.full((3, 1), 0.7)).sd  # every system at 0.7: no spread
    array([0.])
    """
    x = _matrix(standardizing, "standardizing scores")
    if x.shape[0] <= ddof:
        raise InputError(f"need more than {ddof} standardizing systems, got {x.shape[0]}")
    if topics is None and hasattr(standardizing, "topics"):
        topics = standardizing.topics
    if topics is not None and len(topics) != x.shape[1]:
        raise InputError(f"{len(topics)} topic ids for {x.shape[1]} topics")
    mean, sd = _spread.mean_sd(x, axis=0, ddof=ddof)
    return Factors(
        mean,
        sd,
        None if topics is None else tuple(str(t) for t in topics),
        x.shape[0],
        ddof,
    )


def _z(x: np.ndarray, mean: np.ndarray, sd: np.ndarray, zero_sd: str) -> np.ndarray:
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
    """The z-scores ``z_st = (m_st - mu_t) / sigma_t`` of a score matrix (eq. 1).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
        Systems x topics scores.
    fac : Factors, optional
        The standardization factors; by default those of ``scores`` itself (the systems standardize
        themselves). Factors with topic ids are matched to a ScoreMatrix's topics by id.
    zero_sd : {"average", "raise"}
        A topic on which every standardizing system scored the same (sd 0): z = 0 for every system
        (default; see Notes), or an error.

    Returns
    -------
    numpy.ndarray
        The z-scores, systems x topics.

    Raises
    ------
    irrepro.InputError
        Factors for another number of topics, or a zero sd with ``zero_sd="raise"``.

    Notes
    -----
    Webber, Moffat & Zobel (2008), section 3. On a topic whose sd is 0, a system scoring the mean
    gets z = 0, as ``trec_eval -Z`` gives it. A system scoring otherwise gets z = 0 too (its
    standardized score ``Phi(z)`` is 0.5), where ``trec_eval -Z`` prints -1000000 (its value for a
    missing z-score): with no spread among the standardizing systems, the topic gives no scale to
    measure a difference in. The limit of ``(m - mu) / sigma`` as ``sigma`` falls to 0, z = +-inf
    and ``Phi(z)`` 1 or 0, would turn any difference - one in the last bit of a score computed
    another way included - into the whole range of the standardized score; z = 0 leaves the topic
    the same for every system, so that it cannot reorder them (it adds 0.5 to every system's
    total). ``zero_sd="raise"`` refuses such a topic instead.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.standardize import zscores
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> zscores(x).round(2) + 0.0
    array([[-1.,  0., -1.],
           [ 1.,  1.,  1.],
           [ 0., -1.,  0.]])
    >>> from irrepro.standardize import factors
    >>> fac = factors(np.full((3, 1), 0.7))  # three systems at 0.7: mean 0.7, sd 0
    >>> zscores(np.array([[0.7], [0.8]]), fac).tolist()
    [[0.0], [0.0]]
    """
    x = _matrix(scores)
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
        Systems x topics scores.
    fac : Factors, optional
        The standardization factors (default: those of ``scores`` itself; see :func:`zscores`).
    cdf : bool, default True
        Map the z-scores through the standard normal CDF; False returns the z-scores.
    zero_sd : {"average", "raise"}
        What a topic with zero sd gives (see :func:`zscores`).

    Returns
    -------
    numpy.ndarray
        Systems x topics standardized scores.

    Notes
    -----
    Webber, Moffat & Zobel (2008), section 3.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.standardize import factors, standardize
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> standardize(x).round(3)
    array([[0.159, 0.5  , 0.159],
           [0.841, 0.841, 0.841],
           [0.5  , 0.159, 0.5  ]])
    >>> standardize([[0.5, 0.5, 0.5]], factors(x)).round(3)  # a new system, published factors
    array([[0.977, 0.5  , 0.999]])
    """
    z = zscores(scores, fac, zero_sd=zero_sd)
    return special.ndtr(z) if cdf else z


def ideal_precision(n_relevant, k: int) -> np.ndarray:
    """The score of an ideal ranking under P@k, ``min(R, k) / k`` per topic.

    Parameters
    ----------
    n_relevant : array_like
        R, the number of relevant documents, per topic.
    k : int
        The cutoff.

    Returns
    -------
    numpy.ndarray
        The ideal P@k per topic, to R-normalise P@k (:func:`r_normalize`).

    Examples
    --------
    >>> from irrepro.standardize import ideal_precision
    >>> ideal_precision([3, 20], 10)
    array([0.3, 1. ])
    """
    r = np.asarray(n_relevant, dtype=np.float64)
    return np.minimum(r, k) / k


def ideal_rbp(grade_counts, p: float) -> np.ndarray:
    """The score of an ideal ranking under graded RBP(p), to R-normalise RBP.

    ``irrepro.measures``' definition (trec_eval's): a document's gain is its grade divided by its
    topic's largest grade when that exceeds 1. The ideal list holds the highest grades first:
    RBP = (1 - p) * sum_i gain_i p^(i-1).

    Parameters
    ----------
    grade_counts : array_like
        ``(T, G+1)``: the documents judged at grade 0..G per topic (``Qrels.grade_counts``).
    p : float
        RBP's persistence, in (0, 1).

    Returns
    -------
    numpy.ndarray
        The ideal RBP per topic, ``(T,)``.

    Raises
    ------
    irrepro.InputError
        For counts that are not two-dimensional or ``p`` outside (0, 1).

    Examples
    --------
    >>> from irrepro.standardize import ideal_rbp
    >>> ideal_rbp([[5, 1, 2], [4, 0, 0]], 0.5)  # 2 documents of grade 2, 1 of grade 1; none
    array([0.8125, 0.    ])
    """
    gc = np.asarray(grade_counts, dtype=np.int64)
    if gc.ndim != 2 or not 0 < p < 1:
        raise InputError("grade_counts must be (topics, grades) and p in (0, 1)")
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
    """R-normalization: each topic's scores divided by the score of an ideal ranking.

    Section 2 of Webber, Moffat & Zobel (2008): e.g. R for the sum of precisions gives AP;
    :func:`ideal_precision` and :func:`ideal_rbp` give the ideal P@k and RBP.

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
        Systems x topics scores.
    ideal : array_like
        The ideal ranking's score per topic, ``(T,)``.

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
    x = _matrix(scores)
    ideal = np.asarray(ideal, dtype=np.float64)
    if ideal.shape != (x.shape[1],):
        raise InputError(f"ideal must have one value per topic ({x.shape[1]}), got shape {ideal.shape}")
    return np.divide(x, ideal, out=np.zeros_like(x), where=ideal > 0)


# --------------------------------------------------------------------------------------------
# Variability within a collection (section 2: Figure 2, Table 1, item-total correlation)
# --------------------------------------------------------------------------------------------
