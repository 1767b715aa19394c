"""The topic bootstrap of :mod:`irrepro.reproduce`: every statistic is a function of topic
weights, so that its value (all weights 1), its bootstrap replicates (multinomial counts of the
resampled topics) and its jackknife values (one topic left out) come from the same code; the
interval is the BCa interval of ``irrepro.stats.bca_interval``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike
from ..significance._samples import _counts, bootstrap_samples
from ..stats import bca_interval, check_level


@dataclass(frozen=True, eq=False)
class Estimate:
    """A statistic (``value``) with its BCa interval (``low``, ``high``) at ``level`` from ``B`` topic resamples, ``paired`` or not."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    B: int
    paired: bool = True


class Weights:
    """M weightings of T topics: the weighted sums of per-topic values and the total weights ``n``."""

    n: np.ndarray  # (M,) float64

    def sums(self, x: np.ndarray) -> np.ndarray:
        """The weighted sums over the last axis of ``x`` (..., T): (..., M)."""
        raise NotImplementedError


class _Matrix(Weights):
    """The rows of a weight matrix ``w`` (M, T)."""

    def __init__(self, w: np.ndarray):
        self.w, self.n = w, w.sum(axis=1)

    def sums(self, x: np.ndarray) -> np.ndarray:
        return x @ self.w.T


class _LeaveOneOut(Weights):
    """The T weightings that leave one topic out, their sums in O(T)."""

    def __init__(self, T: int):
        self.n = np.full(T, T - 1.0)

    def sums(self, x: np.ndarray) -> np.ndarray:
        return x.sum(axis=-1, keepdims=True) - x


class _All(Weights):
    """M weightings of T topics, each weighing every topic 1."""

    def __init__(self, M: int, T: int):
        self.n = np.full(M, float(T))

    def sums(self, x: np.ndarray) -> np.ndarray:
        total = x.sum(axis=-1, keepdims=True)
        return np.broadcast_to(total, total.shape[:-1] + self.n.shape)


#: A statistic of topic weights: ``stat(w_orig, w_repro)`` with M weightings of the original's
#: and of the reproduction's topics (:class:`Weights`) returns its M values on the last axis
#: (leading axes: the runs or pairs).
Statistic = Callable[[Weights, Weights], np.ndarray]


def wmean(x: np.ndarray, w: Weights) -> np.ndarray:
    """Weighted means of ``x`` (..., T) under the M weightings ``w``: (..., M)."""
    return w.sums(x) / w.n


#: The general jackknife's leave-one-out weights are made this many cells (float64) at a time: one
#: block, the whole (n, n) matrix, up to 2048 topics; more topics, blocks of rows (memory linear
#: in the topics, not quadratic: 20,000 topics would need 3 GiB at once).
_JACK_CELLS = 1 << 22


def _jackknife(stat_of: Callable[[Weights], np.ndarray], n: int, by_sums: bool = True) -> np.ndarray:
    """The jackknife values of ``stat_of`` leaving each topic out: from the leave-one-out sums, or else from weight matrices made a block of rows at a time."""
    if by_sums:
        return stat_of(_LeaveOneOut(n))
    blocks = max(1, -(-n * n // _JACK_CELLS))
    parts = []
    for rows in np.array_split(np.arange(n), blocks):
        w = np.ones((len(rows), n))
        w[np.arange(len(rows)), rows] = 0.0
        parts.append(stat_of(_Matrix(w)))
        del w
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)


def estimate(
    stat: Statistic, n_orig: int, n_repro: int, *, paired: bool, B: int, level: float, seed: SeedLike,
    by_sums: bool = True,
) -> Estimate:  # fmt: skip
    """``stat`` on all topics with its BCa interval from ``B`` topic resamples, paired (one resample for both sides) or not (independent resamples)."""
    B, level = parallel.check_int(B, "B", minimum=2), check_level(level)
    if n_orig < 2 or n_repro < 2:
        raise InputError(f"need at least 2 topics on each side, got {n_orig} and {n_repro}")
    if paired and n_orig != n_repro:
        raise InputError(f"paired statistics need the same topics: got {n_orig} and {n_repro}")
    value = stat(_Matrix(np.ones((1, n_orig))), _Matrix(np.ones((1, n_repro))))[..., 0]
    if paired:
        w = _Matrix(_counts(bootstrap_samples(n_orig, B, seed=seed), n_orig))
        reps = stat(w, w)
        del w
        jack = _jackknife(lambda left_out: stat(left_out, left_out), n_orig, by_sums)
    else:
        g_o, g_r = parallel.spawn(seed, 2)
        w_o = _Matrix(_counts(bootstrap_samples(n_orig, B, seed=g_o), n_orig))
        w_r = _Matrix(_counts(bootstrap_samples(n_repro, B, seed=g_r), n_repro))
        reps = stat(w_o, w_r)
        del w_o, w_r

        def all_of(n: int, M: int) -> Weights:  # (the general path: every topic weighed 1, as a matrix)
            return _All(M, n) if by_sums else _Matrix(np.ones((M, n)))

        jack = np.concatenate(
            [_jackknife(lambda left_out: stat(left_out, all_of(n_repro, len(left_out.n))), n_orig, by_sums),
             _jackknife(lambda left_out: stat(all_of(n_orig, len(left_out.n)), left_out), n_repro, by_sums)],
            axis=-1,
        )  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        jack = np.where(np.isfinite(jack), jack, np.nan)
        reps = np.where(np.isfinite(reps), reps, np.nan)
        ok = ~np.isnan(jack)
        centre = np.where(ok, jack, 0.0).sum(axis=-1, keepdims=True) / ok.sum(axis=-1, keepdims=True)
        jack = np.where(np.isnan(jack), centre, jack)  # an undefined leave-one-out value adds no skew
    low, high = bca_interval(value, reps, jackknife=jack, level=level)
    return Estimate(np.asarray(value), np.asarray(low), np.asarray(high), level, B, paired)
