"""Means, standard deviations and variances whose spread of identical values is exactly 0 (numpy's
sd of three 0.7s is 1.4e-16): numpy's values, bit for bit, wherever the values differ; along a
slice of equal values (NaN equals nothing), that value and exactly 0."""

from __future__ import annotations

import numpy as np

__all__ = ["constant", "exact", "mean", "mean_sd", "sd", "centred"]


def constant(x, axis: int = -1) -> np.ndarray:
    """True along the slices of ``x`` whose values are all equal (False for an empty slice)."""
    x = np.asarray(x)
    if x.shape[axis] == 0:
        return np.zeros(np.delete(x.shape, axis % x.ndim), dtype=bool)
    return np.all(x == np.take(x, [0], axis=axis), axis=axis)


#: Only a slice whose numpy sd is at most this fraction of its mean's size may be constant.
_MAYBE = 1e-8


def exact(x, mean, var, axis: int = -1, ddof: int = 1, *, squared: bool = True):
    """numpy's ``mean`` and ``var`` (sd if not ``squared``) of ``x``, slices of equal values set to it and 0."""
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
    """``(x.mean(axis), x.std(axis, ddof=ddof))``, exactly the value and 0 along constant slices."""
    x = np.asarray(x, dtype=np.float64)
    return exact(x, x.mean(axis=axis), x.std(axis=axis, ddof=ddof), axis, ddof, squared=False)


def mean(x, axis: int = -1) -> np.ndarray:
    """``x.mean(axis)``, exactly the value along constant slices."""
    x = np.asarray(x, dtype=np.float64)
    return mean_sd(x, axis, 0)[0]


def sd(x, axis: int = -1, ddof: int = 1) -> np.ndarray:
    """``x.std(axis, ddof=ddof)``, exactly 0 along constant slices."""
    return mean_sd(x, axis, ddof)[1]


def centred(x, axis: int = -1) -> np.ndarray:
    """``x - x.mean(axis)`` (the mean broadcast back), exactly 0 along constant slices."""
    x = np.asarray(x, dtype=np.float64)
    return x - np.expand_dims(mean(x, axis), axis)
