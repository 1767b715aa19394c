"""The intervals of one method for many lists or runs: what every interval function of
:mod:`irrepro.corpus_bootstrap` returns (served from :mod:`irrepro.corpus_bootstrap.intervals`;
a module of its own so that the small-R correction, which takes and returns it, needs nothing
else of the intervals)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Intervals"]


@dataclass(frozen=True, eq=False)
class Intervals:
    """Intervals of one method for an array of lists (or runs).

    95% intervals of one method for an array of lists (or runs): ``lower``, ``upper`` around
    ``estimate``; ``sd`` is the bootstrap sd on the method's scale (NaN for BCa).

    Attributes
    ----------
    method : str
        The method (``"linear"``, ``"logit"``, ``"bca"``, ...).
    estimate : numpy.ndarray
        The point estimate of each list.
    lower, upper : numpy.ndarray
        The bounds.
    sd : numpy.ndarray
        The bootstrap sd on the method's scale (NaN for BCa).
    """

    method: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd: np.ndarray

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower
