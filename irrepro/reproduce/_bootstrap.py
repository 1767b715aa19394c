"""The topic bootstrap of :mod:`irrepro.reproduce`: every statistic is a function of topic
weights, so that its value (all weights 1), its bootstrap replicates (multinomial counts of the
resampled topics) and its jackknife values (one topic left out) come from the same code; the
interval is the BCa interval of :func:`irrepro.stats.bca_interval`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike
from ..significance._samples import _counts, bootstrap_samples
from ..stats import bca_interval, check_level

__all__ = ["Estimate"]


@dataclass(frozen=True, eq=False)
class Estimate:
    """A statistic with its topic-bootstrap confidence interval.

    Attributes
    ----------
    value : numpy.ndarray
        The statistic on the topics as given, shaped as the inputs' leading axes (a 0-d array for
        one run or pair).
    low, high : numpy.ndarray
        The BCa interval's bounds (Efron & Tibshirani 1993, ch. 14), shaped as ``value``; NaN
        where the statistic is undefined on too many resamples.
    level : float
        The confidence level.
    B : int
        The number of bootstrap resamples of the topics.
    paired : bool
        True: original and reproduction share their topics and one resample of them serves both
        (reproducibility); False: the two topic sets are resampled independently (replicability).

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro import reproduce
    >>> est = reproduce.rmse(np.array([0.2, 0.4, 0.6]), np.array([0.2, 0.5, 0.6]), B=200, seed=1)
    >>> round(float(est.value), 4), bool(est.low <= est.value <= est.high)
    (0.0577, True)
    """

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    B: int
    paired: bool = True


#: A statistic of topic weights: ``stat(w_orig, w_repro)`` with weights (M, T_orig) and
#: (M, T_repro) returns its M values on the last axis (leading axes: the runs or pairs).
Statistic = Callable[[np.ndarray, np.ndarray], np.ndarray]


def wmean(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted means of ``x`` (..., T) under the rows of ``w`` (M, T): (..., M)."""
    return (x @ w.T) / w.sum(axis=1)


def _check(B, level) -> tuple[int, float]:
    return parallel.check_int(B, "B", minimum=2), check_level(level)


#: The jackknife's leave-one-out weights are made this many cells (float64) at a time: one block,
#: the whole (n, n) matrix, up to 2048 topics; more topics, blocks of rows (memory linear in the
#: topics, not quadratic: 20,000 topics would need 3 GiB at once).
_JACK_CELLS = 1 << 22


def _jackknife(stat_of: Callable[[np.ndarray], np.ndarray], n: int) -> np.ndarray:
    """The jackknife values ``stat_of(w)[..., i]`` for the weights ``w`` (n, n) that leave topic
    ``i`` out (1 everywhere but 0 at ``i``), made a block of rows of ``w`` at a time
    (:data:`_JACK_CELLS`), the blocks of equal size."""
    blocks = max(1, -(-n * n // _JACK_CELLS))
    parts = []
    for rows in np.array_split(np.arange(n), blocks):
        w = np.ones((len(rows), n))
        w[np.arange(len(rows)), rows] = 0.0
        parts.append(stat_of(w))
        del w
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)


def estimate(
    stat: Statistic, n_orig: int, n_repro: int, *, paired: bool, B: int, level: float, seed: SeedLike
) -> Estimate:
    """``stat`` on all topics, with its BCa interval from ``B`` topic resamples.

    Paired: one resample of the ``n_orig == n_repro`` topics weighs original and reproduction
    alike, and the jackknife leaves one topic out of both. Unpaired: the original's and the
    reproduction's topics are resampled independently (two generators spawned from ``seed``),
    and the jackknife leaves out one topic of either set (the values of both sets together give
    the acceleration)."""
    B, level = _check(B, level)
    if n_orig < 2 or n_repro < 2:
        raise InputError(f"need at least 2 topics on each side, got {n_orig} and {n_repro}")
    if paired and n_orig != n_repro:
        raise InputError(f"paired statistics need the same topics: got {n_orig} and {n_repro}")
    ones_o, ones_r = np.ones((1, n_orig)), np.ones((1, n_repro))
    value = stat(ones_o, ones_r)[..., 0]
    if paired:
        w = _counts(bootstrap_samples(n_orig, B, seed=seed), n_orig)
        reps = stat(w, w)
        del w
        jack = _jackknife(lambda left_out: stat(left_out, left_out), n_orig)
    else:
        g_o, g_r = parallel.spawn(seed, 2)
        w_o = _counts(bootstrap_samples(n_orig, B, seed=g_o), n_orig)
        w_r = _counts(bootstrap_samples(n_repro, B, seed=g_r), n_repro)
        reps = stat(w_o, w_r)
        del w_o, w_r
        jack = np.concatenate(
            [_jackknife(lambda left_out: stat(left_out, np.ones((len(left_out), n_repro))), n_orig),
             _jackknife(lambda left_out: stat(np.ones((len(left_out), n_orig)), left_out), n_repro)], axis=-1,
        )  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        jack = np.where(np.isfinite(jack), jack, np.nan)
        reps = np.where(np.isfinite(reps), reps, np.nan)
        ok = ~np.isnan(jack)
        centre = np.where(ok, jack, 0.0).sum(axis=-1, keepdims=True) / ok.sum(axis=-1, keepdims=True)
        jack = np.where(np.isnan(jack), centre, jack)  # an undefined leave-one-out value adds no skew
    low, high = bca_interval(value, reps, jackknife=jack, level=level)
    return Estimate(np.asarray(value), np.asarray(low), np.asarray(high), level, B, paired)
