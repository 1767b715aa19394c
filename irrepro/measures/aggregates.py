"""Aggregates of per-topic scores over topics: the mean, Sakai's (2006, section 2.1) geometric
means, Cormack & Lynam's (2006, section 5) L-MAP and trec_eval's gm_."""

from __future__ import annotations

import numpy as np

from ..data import ScoreMatrix
from ..errors import InputError

#: The offset of the geometric-mean forms (Sakai 2006: log(x + 0.00001)); also trec_eval's
#: MIN_GEO_MEAN and INFAP_EPSILON.
GM_EPSILON = 1e-5

_AGGREGATES = ("mean", "G", "AG", "L", "G_trec")


def aggregate(scores: ScoreMatrix | np.ndarray, how: str = "mean", *, eps: float = GM_EPSILON,
              axis: int = -1) -> np.ndarray:  # fmt: skip
    """Aggregate per-topic scores over topics (``axis``; the topics of a ScoreMatrix).

    Parameters
    ----------
    scores : irrepro.data.ScoreMatrix or numpy.ndarray
        Per-topic scores.
    how : {"mean", "G", "AG", "L", "G_trec"}
        The arithmetic mean; Sakai's (2006, Sec. 2.1) geometric mean ``exp(mean(log(x + eps)))``;
        its log, ``mean(log(x + eps))``; L-MAP (Cormack & Lynam 2006), the mean of ``logit(x)``, x
        clipped to ``[eps, 1 - eps]``; trec_eval's ``gm_``, ``exp(mean(log(max(x, eps))))``.
    eps : float
        The offset or clipping of ``"G"``, ``"AG"``, ``"L"`` and ``"G_trec"``.
    axis : int
        The topics' axis (of an array; a ScoreMatrix's topics otherwise).

    Returns
    -------
    numpy.ndarray
        The aggregate, without the topics' axis.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.measures import aggregate
    >>> x = np.array([[0.2, 0.8], [0.5, 0.5]])
    >>> aggregate(x, "G").round(4)  # the geometric mean prefers the even system
    array([0.4, 0.5])
    """
    x = scores.scores if isinstance(scores, ScoreMatrix) else np.asarray(scores, dtype=np.float64)
    if how not in _AGGREGATES:
        raise InputError(f"unknown aggregate {how!r}; use one of {_AGGREGATES}")
    if not eps > 0:
        raise InputError("eps must be > 0")
    if how == "mean":
        return x.mean(axis=axis)
    if how in ("G", "AG"):
        if np.any(x + eps <= 0):
            raise InputError("geometric means need scores > -eps")
        logs = np.log(x + eps).mean(axis=axis)
        return np.exp(logs) if how == "G" else logs
    if how == "G_trec":
        return np.exp(np.log(np.maximum(x, eps)).mean(axis=axis))
    if not eps < 0.5:
        raise InputError("the logit's eps must be < 0.5")
    c = np.clip(x, eps, 1.0 - eps)
    return np.log(c / (1.0 - c)).mean(axis=axis)
