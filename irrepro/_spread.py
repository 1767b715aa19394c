"""Means, standard deviations and variances whose spread of identical values is exactly 0: the
package's one way to compute a spread it reports or divides by.

The mean of equal floats is not always that float (three times 0.7 sums to 2.0999999999999996, a
third of which is 0.7 - 1.1e-16), so numpy's sd of identical values can be 1.4e-16 instead of 0,
and a z-score, t statistic or effect size divided by it comes out near 1e16 instead of being
undefined or 0. These functions give numpy's values, bit for bit, wherever the values differ, and
along a slice whose values are all equal, that value as the mean and exactly 0 as the spread.
NaN equals nothing: a slice holding NaN is not constant and keeps numpy's (NaN) values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["constant", "exact", "mean", "mean_sd", "sd", "var", "centred"]


def constant(x, axis: int = -1) -> np.ndarray:
    """True along the slices of ``x`` whose values are all equal (False for an empty slice).

    Examples
    --------
    >>> from irrepro._spread import constant
    >>> constant([[0.7, 0.7, 0.7], [0.7, 0.7, 0.6]]).tolist()
    [True, False]
    """
    x = np.asarray(x)
    if x.shape[axis] == 0:
        return np.zeros(np.delete(x.shape, axis % x.ndim), dtype=bool)
    return np.all(x == np.take(x, [0], axis=axis), axis=axis)


#: A slice whose numpy sd is at most this fraction of its mean's size may be constant (the noise
#: of numpy's mean of n equal values is below n 2**-52 of them, the sd about as much): only such
#: slices are compared value by value.
_MAYBE = 1e-8


def exact(x, mean, var, axis: int = -1, ddof: int = 1, *, squared: bool = True):
    """numpy's ``mean`` and ``var`` (or sd, ``squared=False``) of ``x`` along ``axis``, with the
    slices whose values are all equal set to that value and 0 (only the slices whose spread is
    within rounding noise of the mean are compared value by value, NaN values left out as
    ``numpy.nanmean`` leaves them out; numpy's values where a slice has ``ddof`` values or
    fewer)."""
    x = np.asarray(x)
    mean, var = np.asarray(mean), np.asarray(var)
    if x.shape[axis] <= ddof or x.size == 0:
        return mean[()], var[()]
    bound = _MAYBE * _MAYBE * mean * mean if squared else _MAYBE * np.abs(mean)
    maybe = var <= bound
    if not np.any(maybe):
        return mean[()], var[()]
    rows = np.moveaxis(x, axis, -1)[maybe]  # (k, n): the slices that may be constant
    low = np.nanmin(rows, axis=-1)  # (NaN left out: the spread of nan-aware callers)
    same = np.zeros(maybe.shape, dtype=bool)
    same[maybe] = low == np.nanmax(rows, axis=-1)
    value = np.zeros(maybe.shape)
    value[maybe] = low
    return np.where(same, value, mean)[()], np.where(same, 0.0, var)[()]


def mean_sd(x, axis: int = -1, ddof: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(x.mean(axis), x.std(axis, ddof=ddof))``, exactly the value and 0 along constant slices.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro._spread import mean_sd
    >>> x = np.array([[0.7, 0.7, 0.7], [0.2, 0.4, 0.3]])
    >>> x.std(axis=1, ddof=1)[0] > 0  # numpy: the noise of the mean of three 0.7s
    np.True_
    >>> m, s = mean_sd(x)
    >>> m.tolist(), s.round(12).tolist()
    ([0.7, 0.3], [0.0, 0.1])
    """
    x = np.asarray(x, dtype=np.float64)
    return exact(x, x.mean(axis=axis), x.std(axis=axis, ddof=ddof), axis, ddof, squared=False)


def mean(x, axis: int = -1) -> np.ndarray:
    """``x.mean(axis)``, exactly the value along constant slices."""
    x = np.asarray(x, dtype=np.float64)
    return mean_sd(x, axis, 0)[0]


def sd(x, axis: int = -1, ddof: int = 1) -> np.ndarray:
    """``x.std(axis, ddof=ddof)``, exactly 0 along constant slices."""
    return mean_sd(x, axis, ddof)[1]


def var(x, axis: int = -1, ddof: int = 1) -> np.ndarray:
    """``x.var(axis, ddof=ddof)``, exactly 0 along constant slices."""
    x = np.asarray(x, dtype=np.float64)
    return exact(x, x.mean(axis=axis), x.var(axis=axis, ddof=ddof), axis, ddof)[1]


def centred(x, axis: int = -1) -> np.ndarray:
    """``x - x.mean(axis)`` (the mean broadcast back), exactly 0 along constant slices."""
    x = np.asarray(x, dtype=np.float64)
    return x - np.expand_dims(mean(x, axis), axis)
