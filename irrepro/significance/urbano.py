"""The five paired tests as Urbano, Lima & Hanjalic (SIGIR 2019, section 2) ran them (their R code,
julian-urbano/sigir2019-statistical), on rows ``(..., n)`` of many pairs at once: ``b`` the
baseline's scores, ``e`` the experimental system's, a one-tailed ("e is better") and a two-tailed
p-value each. The t, Wilcoxon and sign tests are the package's with their options; their bootstrap
and permutation tests draw afresh for every pair, centre the bootstrap replicates at their own mean
and add no +1 to the counts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike
from .classical import paired_t_pvalues, sign_test_pvalues, wilcoxon_pvalues

#: Pairs (rows) per task of the resampling tests: block ``k`` draws from child ``k`` of the seed,
#: so the p-values do not depend on the number of workers.
_ROWS = 64
#: Draws (rows x resamples x draws a resample) made at once within a task: small enough that the
#: chunk's draws, indices and gathered sums stay in cache (larger chunks are slower).
_DRAWS = 1 << 16
#: Entries of the bootstrap's pair-sum tables (n^2 a row) built at once, so they stay in cache.
_TABLE = 1 << 15
#: A permuted mean this close to the observed one (times the pair's largest absolute score) is a
#: tie, counted as at least as extreme (their C++ compares floats exactly, so a tie counts or not
#: by the order of the summation; a tie is frequent with discrete measures such as P@10).
_NOISE = 1e-9


class TailedPValues(NamedTuple):
    """The one-tailed (H1: e better than b) and two-tailed p-values of one of their tests."""

    one_tailed: np.ndarray
    two_tailed: np.ndarray


def _pair(b, e) -> tuple[np.ndarray, np.ndarray]:
    b, e = np.asarray(b, dtype=np.float64), np.asarray(e, dtype=np.float64)
    if b.shape != e.shape or b.ndim == 0:
        raise InputError(
            f"b and e must be arrays of the same shape (..., topics), got {b.shape} and {e.shape}"
        )
    if b.shape[-1] < 2:
        raise InputError(f"need at least 2 topics per pair, got {b.shape[-1]}")
    if not (np.isfinite(b).all() and np.isfinite(e).all()):
        raise InputError("scores must be finite numbers: b or e holds NaN or an infinity")
    return b, e


def _uniform16(rng: np.random.Generator, high: int, size: tuple[int, ...]) -> np.ndarray:
    """Exactly uniform integers in [0, high < 2^16) from ``rng``'s raw words, faster than integers."""
    count = int(np.prod(size))
    lim = 65536 - 65536 % high

    def raw(k):
        return rng.bit_generator.random_raw(-(-k // 4)).view(np.uint16)[:k]

    out = raw(count)
    bad = np.flatnonzero(out >= lim)
    while bad.size:
        fresh = raw(bad.size)
        out[bad] = fresh
        bad = bad[fresh >= lim]
    if high != 65536:  # (high a power of 2: lim is 65536 and the words still need reducing)
        out %= np.uint16(high)
    return out.reshape(size)


#: The 8 bits (little-endian) of each byte value, as floats: a byte of random bits picks which of
#: 8 topics are flipped, and ``_BITS @ x[8 topics]`` tabulates the flipped sum of every byte.
_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(float)


def _resample(kind: str, b, e, B: int, seed: SeedLike, n_jobs) -> TailedPValues:
    """Their C++ tests (``testCpp_bootstrap``, ``testCpp_permutation``) of every row of e - b."""
    # In cache-sized chunks of _DRAWS draws, the bootstrap draws a pair of topics at once (v in
    # [0, n^2) from 16 bits; sum x[v // n] + x[v % n]; one topic a draw for n >= 256), the
    # permutation test flips signs from raw random bits, a byte per 8 topics, by tabulated sums.
    b, e = _pair(b, e)
    B = parallel.check_int(B, "B", minimum=1)
    if seed is None:
        raise InputError("pass seed (an int or a numpy Generator): the resampling tests are random")
    shape, n = b.shape[:-1], b.shape[-1]
    d = (e - b).reshape(-1, n)
    scale = np.maximum(np.abs(b), np.abs(e)).reshape(-1, n).max(axis=1)
    blocks = parallel._chunks(len(d), _ROWS)
    rngs = parallel.spawn(seed, len(blocks))

    def sums_of(x, rng):
        """The B resampled sums of each row of x: of the drawn topics, or of the flipped ones."""
        r = len(x)
        if kind == "bootstrap":
            if n < 256:  # pairs of topics: table[v] = x[v // n] + x[v % n]; odd n, last one single
                size, width = n * n, n // 2 + n % 2
                table = (x[:, :, None] + x[:, None, :]).reshape(r, size)
                single = np.repeat(x, n, axis=1).reshape(-1) if n % 2 else None
            else:
                size, width, table, single = n, n, x, None
            offset = (np.arange(r) * size)[:, None, None]
        else:
            width = -(-n // 8)
            xp = np.zeros((r, width * 8))
            xp[:, :n] = x
            table = np.einsum("kb,rgb->rgk", _BITS, xp.reshape(r, width, 8)).reshape(r, width * 256)
            offset = (np.arange(r)[:, None] * (width * 256) + np.arange(width)[None, :] * 256)[:, None, :]
        flat = table.reshape(-1)
        step = max(1, _DRAWS // (r * width))
        sums = np.empty((r, B))
        for a in range(0, B, step):
            c = min(step, B - a)
            if kind == "bootstrap":
                v = (
                    _uniform16(rng, size, (r, c, width))
                    if size <= 65536
                    else rng.integers(0, size, (r, c, width))
                )
                idx = v + offset
                if single is None:
                    sums[:, a : a + c] = flat[idx].sum(axis=2)
                else:
                    sums[:, a : a + c] = flat[idx[:, :, :-1]].sum(axis=2) + single[idx[:, :, -1]]
            else:
                bits = rng.bit_generator.random_raw(-(-r * c * width // 8)).view(np.uint8)
                idx = bits[: r * c * width].reshape(r, c, width) + offset
                sums[:, a : a + c] = flat[idx].sum(axis=2)
        return sums

    def run(k: int):
        x, rng = d[blocks[k]], rngs[k]
        # the rows in groups whose tables (bootstrap: n^2 pair sums a row) stay in cache
        q = max(1, _TABLE // (n * n)) if kind == "bootstrap" else len(x)
        sums = np.concatenate([sums_of(x[a : a + q], rng) for a in range(0, len(x), q)])
        obs = x.mean(axis=1)
        if kind == "bootstrap":  # means, centred at the replicates' own mean, compared exactly
            reps = sums / n
            reps -= reps.mean(axis=1, keepdims=True)
            tol = np.zeros((len(x), 1))
        else:  # means under the flips: (sum(d) - 2 * the flipped sum) / n
            reps = (x.sum(axis=1)[:, None] - 2 * sums) / n
            tol = _NOISE * scale[blocks[k], None]
        p1 = np.count_nonzero(reps >= obs[:, None] - tol, axis=1) / B
        p2 = np.count_nonzero(np.abs(reps) >= np.abs(obs)[:, None] - tol, axis=1) / B
        return p1, p2

    parts = parallel.parallel_map(run, range(len(blocks)), n_jobs=n_jobs)
    p1, p2 = (np.concatenate(a).reshape(shape) for a in zip(*parts))
    return TailedPValues(p1, p2)


#: The tests of :func:`urbano_tests`, by the package's names of the tests they are
#: (:data:`irrepro.significance.TESTS`; their R functions ``test_t``, ``test_wilcoxon``,
#: ``test_sign``, ``test_bootstrap``, ``test_permutation``).
URBANO_TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap-shift", "permutation")


def urbano_tests(
    b,
    e,
    *,
    tests=URBANO_TESTS,
    B: int = 100_000,
    seed: SeedLike = None,
    min_d: float = 0.01,
    n_jobs: int | None = None,
) -> dict[str, TailedPValues]:
    """Their five tests (``tests`` among URBANO_TESTS) of rows of b and e: test name -> TailedPValues; the
    resampling tests from children 0 and 1 of ``seed``."""
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    unknown = [t for t in tests if t not in URBANO_TESTS]
    if unknown:
        raise InputError(
            f"tests must be among {', '.join(URBANO_TESTS)}, not {', '.join(map(repr, unknown))}"
        )
    b, e = _pair(b, e)
    out: dict[str, TailedPValues] = {}
    seeds = None
    for name in tests:
        if name == "paired-t":
            out[name] = TailedPValues(paired_t_pvalues(e - b, "greater"), paired_t_pvalues(e - b))
        elif name == "wilcoxon":  # R's wilcox.test(b, e): of b - e, one-tailed "less"
            r = (wilcoxon_pvalues(b - e, alt, convention="R") for alt in ("less", "two-sided"))
            out[name] = TailedPValues(*r)
        elif name == "sign":
            r = (sign_test_pvalues(e - b, alt, min_d=min_d) for alt in ("greater", "two-sided"))
            out[name] = TailedPValues(*r)
        else:
            if seed is None:
                raise InputError("pass seed (an int or a numpy Generator): the resampling tests are random")
            seeds = seeds or parallel.as_seed_sequence(seed).spawn(2)
            kind = "bootstrap" if name == "bootstrap-shift" else "permutation"
            out[name] = _resample(kind, b, e, B, seeds[int(name == "permutation")], n_jobs)
    return out
