"""The corpus bootstrap's inner loop compiled with numba: Poisson counts and AP* in one pass over a
list's blocks, bit for bit the numbers of the numpy path (``sampler``) from the same uniforms.

Bit for bit: the same floating-point operations in the same order (a block of samples with one
column is left to the numpy path, whose ``einsum`` adds in another order). Imported at the first
bootstrap, compiled once and cached on disk; the loop releases the GIL."""

from __future__ import annotations

import llvmlite.binding
import numba
import numpy as np
from numba.extending import get_cython_function_address

# scipy.special.digamma's double implementation, called without the GIL from compiled code; an
# external symbol (not a ctypes pointer), so that the compiled code can be cached on disk
llvmlite.binding.add_symbol(
    "irrepro_scipy_psi", get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1psi")
)
_psi = numba.types.ExternalFunction(
    "irrepro_scipy_psi", numba.types.float64(numba.types.float64, numba.types.intc)
)


@numba.njit(nogil=True, cache=True)
def _kernel(
    u_k, u_g, g_row, size, bgap, r_not, cdf, guide, guide_cdf, offset, scale, t_size, out
):  # pragma: no cover
    """``boot_block``'s loop: block by block in rank order, every sample in turn."""
    n_blocks, n_samples = u_k.shape
    k_sum = np.zeros(n_samples, dtype=np.int64)  # copies of the relevant documents above the block
    n_above = np.zeros(n_samples, dtype=np.int64)  # non-relevant documents above it (cumsum(nonrel))
    acc = np.zeros(n_samples)  # einsum's sum of n_above * harm, block by block
    for i in range(n_blocks):
        row = g_row[i]
        if row >= 0:
            lam = bgap[i]
            o, sc, ts = offset[lam], scale[lam], t_size[lam]
            for b in range(n_samples):
                u = u_g[row, b]
                slot = np.int64(u * sc) + o
                g = guide[slot] + (u >= guide_cdf[slot])  # one step up, without a branch
                if u >= cdf[o + g]:  # (never after no step: guide_cdf[slot] is cdf[o + guide[slot]])
                    g = np.searchsorted(cdf[o : o + ts], u, side="right")
                n_above[b] += g
        lam = size[i]
        o, sc, ts = offset[lam], scale[lam], t_size[lam]
        for b in range(n_samples):
            u = u_k[i, b]
            slot = np.int64(u * sc) + o
            k = guide[slot] + (u >= guide_cdf[slot])  # one step up, without a branch
            if u >= cdf[o + k]:  # (never after no step: guide_cdf[slot] is cdf[o + guide[slot]])
                k = np.searchsorted(cdf[o : o + ts], u, side="right")
            p = np.float64(k_sum[b] + n_above[b]) + 1.0
            k_sum[b] += k
            # numpy's (k > c) / (p + c), term by term: selects, not branches (k is random)
            harm = (1.0 if k >= 1 else 0.0) / p
            harm += (1.0 if k > 1 else 0.0) / (p + 1.0)
            harm += (1.0 if k > 2 else 0.0) / (p + 2.0)
            harm += (1.0 if k > 3 else 0.0) / (p + 3.0)
            if k > 4:
                harm += _psi(p + np.float64(k), 0) - _psi(p + 4.0, 0)
            acc[b] += np.float64(n_above[b]) * harm
    for b in range(n_samples):
        r_star = k_sum[b] + r_not[b]
        out[b] = (np.float64(k_sum[b]) - acc[b]) / np.float64(r_star) if r_star > 0 else np.nan


def boot_block(
    u_k: np.ndarray,
    u_g: np.ndarray,
    g_row: np.ndarray,
    size: np.ndarray,
    bgap: np.ndarray,
    r_not: np.ndarray,
    tables,
    out: np.ndarray,
) -> None:
    """AP* of one block of samples of one list, written into ``out``."""
    t = tables
    _kernel(u_k, u_g, g_row, size, bgap, r_not, t.cdf, t.guide, t.guide_cdf, t.offset, t.scale, t.size, out)
