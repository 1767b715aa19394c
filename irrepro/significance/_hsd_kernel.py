"""Randomised Tukey HSD's inner loop compiled (numba, cached on disk, without the GIL): the permuted
systems' means and their largest absolute difference over the pairs, bit for bit the numpy
expression's numbers (each mean the sum over the topics in topic order, divided by their number).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def _kernel(xt, perm, pi, pj, out):  # pragma: no cover
    F, n, S = xt.shape
    m = np.empty(S)
    for f in range(F):
        for b in range(perm.shape[0]):
            for s in range(S):
                m[s] = xt[f, 0, perm[b, 0, s]]
            for t in range(1, n):
                for s in range(S):
                    m[s] += xt[f, t, perm[b, t, s]]
            for s in range(S):
                m[s] = m[s] / n
            best = np.abs(m[pi[0]] - m[pj[0]])
            for k in range(1, pi.shape[0]):
                d = np.abs(m[pi[k]] - m[pj[k]])
                if d > best or np.isnan(d):  # NaN propagates, as numpy's max
                    best = d
                if np.isnan(best):
                    break
            out[f, b] = best


def family_max(x: np.ndarray, perm: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(F, b)``: the largest ``|difference|`` of permuted system means over ``pairs``."""
    xt = np.ascontiguousarray(np.asarray(x, dtype=np.float64).transpose(0, 2, 1))
    out = np.empty((xt.shape[0], len(perm)))
    pairs = np.asarray(pairs, dtype=np.int64)
    _kernel(xt, np.ascontiguousarray(perm), pairs[:, 0].copy(), pairs[:, 1].copy(), out)
    return out
