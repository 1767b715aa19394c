"""Randomization tests of pairs of systems: Fisher's paired permutation (sign-flip) test, as Smucker,
Allan & Carterette (2007) compare it with the other tests, and randomised Tukey HSD (Carterette
2012; Sakai 2018, *Laboratory Experiments in Information Retrieval*, ch. 4), which controls the
family-wise error by the largest difference of each permutation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike
from ._names import FAMILY_WISE
from ._samples import _as_matrix, _check_pairs, _resolve_pairs
from .bootstrap import _NOISE, _map_chunks, _pair_noise
from .result import PairwiseResult, _baseline_name

_ALTERNATIVES = ("two-sided", "greater", "less")
#: Permutations of randomised Tukey HSD drawn per task (block ``k`` from child ``k`` of the seed):
#: fixed, so that the draws do not depend on the number of workers.
_PERM_BLOCK = 256


def sign_flips(n_topics: int, B: int = 10_000, *, seed: SeedLike) -> np.ndarray:
    """``(B, n_topics)`` random signs +1 / -1 shared by every pair (-1: the topic's two scores swapped)."""
    n_topics = parallel.check_int(n_topics, "n_topics", minimum=1)
    B = parallel.check_int(B, "B", minimum=1)
    bits = parallel.as_generator(seed).integers(0, 2, size=(B, n_topics), dtype=np.int8)
    return 1.0 - 2.0 * bits


def _check_signs(signs, n: int) -> np.ndarray:
    signs = np.asarray(signs, dtype=np.float64)
    if signs.ndim != 2 or signs.shape[1] != n or signs.shape[0] < 1:
        raise InputError(f"signs must have shape (B, {n}), got {signs.shape}")
    if not np.all(np.abs(signs) == 1):
        raise InputError("signs must be +1 or -1")
    return signs


def permutation_test(
    scores,
    pairs=None,
    *,
    baseline: str | int | None = None,
    B: int = 10_000,
    seed: SeedLike = None,
    signs=None,
    alternative: str | Sequence[str] = "two-sided",
    n_jobs: int | None = None,
) -> PairwiseResult | tuple[PairwiseResult, ...]:
    """Paired randomization (permutation) test of every pair of systems, on the difference of means.

    Fisher's test (Smucker, Allan & Carterette 2007): with T topics and ``2**T <= B`` all sign flips
    are enumerated (exact), else B random flips are drawn once and shared by all pairs; p-values
    equal ``scipy.stats.permutation_test(..., permutation_type="samples")`` on the same flips:
    greater = (#{mean(s z) >= mean(z)} + a) / (B + a), a = 0 exact, 1 Monte Carlo (no p-value is 0).
    A permuted mean within rounding noise of the observed one counts as equal.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    pairs : array_like, optional
    baseline : str or int, optional
    B : int
        Random sign flips (the test is exact when ``2**T <= B``).
    seed : SeedLike
        Draws the flips of a Monte Carlo test.
    signs : array_like, optional
        ``(B, T)`` flips to use instead (``sign_flips``).
    alternative : str or sequence of str
        ``"two-sided"``, ``"greater"`` (the first system of a pair better), ``"less"``, or several
        (one result each, from one pass over the flips).
    n_jobs : int, optional
        Workers; the results do not depend on it.

    Returns
    -------
    PairwiseResult or tuple of PairwiseResult
        ``test="permutation"``, unadjusted (``.adjust("holm")`` adjusts them).

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> r = sg.permutation_test(scores)  # 2**5 = 32 <= B: exact
    >>> r.exact, r.B, r.p.round(4).tolist()
    (True, 32, [0.125, 1.0, 0.0625])
    """
    alts = (alternative,) if isinstance(alternative, str) else tuple(alternative)
    for a in alts:
        if a not in _ALTERNATIVES:
            raise InputError(f"alternative must be one of {_ALTERNATIVES}, not {a!r}")
    x, systems, measure = _as_matrix(scores)
    pairs = _resolve_pairs(pairs, baseline, systems)
    n = x.shape[1]
    if signs is not None:
        signs, exact = _check_signs(signs, n), False
    else:
        B = parallel.check_int(B, "B", minimum=1)
        exact = n < 63 and 2**n <= B
        if exact:  # every sign pattern once
            signs = 1.0 - 2.0 * ((np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n)) & 1)
        else:
            if seed is None:
                raise InputError("pass seed (int or numpy Generator) or the sign flips as signs")
            signs = sign_flips(n, B, seed=seed)
    B = signs.shape[0]
    adj = 0 if exact else 1
    means = x @ signs.T / n  # (S, B): each system's mean under every flip
    need_g = any(a in ("two-sided", "greater") for a in alts)
    need_l = any(a in ("two-sided", "less") for a in alts)

    def run(sl: slice):
        p = pairs[sl]
        obs = (x[p[:, 0]] - x[p[:, 1]]).mean(axis=1)
        null = means[p[:, 0]] - means[p[:, 1]]  # (P, B)
        # a replicate ties the observed mean within scipy's tolerance or rounding noise
        tol = np.maximum(100 * np.finfo(np.float64).eps * np.abs(obs), _pair_noise(x, p))[:, None]
        pv = {}
        if need_g:
            pv["greater"] = (np.count_nonzero(null >= obs[:, None] - tol, axis=1) + adj) / (B + adj)
        if need_l:
            pv["less"] = (np.count_nonzero(null <= obs[:, None] + tol, axis=1) + adj) / (B + adj)
        if need_g and need_l:
            pv["two-sided"] = np.minimum(2 * np.minimum(pv["greater"], pv["less"]), 1.0)
        return (obs, *(pv[a] for a in alts))

    parts = [np.concatenate(a) for a in zip(*_map_chunks(run, len(pairs), n_jobs))]
    obs, pvs = parts[0], parts[1:]
    results = tuple(
        PairwiseResult("permutation", measure, systems, pairs, obs, pv, pv.copy(), "none", n, B, exact, a,
                       _baseline_name(systems, pairs, baseline))
        for a, pv in zip(alts, pvs)
    )  # fmt: skip
    return results[0] if isinstance(alternative, str) else results


def _check_permutations(perms, n: int, S: int) -> np.ndarray:
    perms = np.asarray(perms)
    if perms.ndim != 3 or perms.shape[1:] != (n, S) or perms.shape[0] < 1:
        raise InputError(f"permutations must have shape (B, {n}, {S}), got {perms.shape}")
    if not np.issubdtype(perms.dtype, np.integer) or not np.array_equal(
        np.sort(perms, axis=-1), np.broadcast_to(np.arange(S), perms.shape)
    ):
        raise InputError(f"permutations[b, t] must be a permutation of the system indices 0..{S - 1}")
    return perms


def _family_max(x: np.ndarray, perm: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(F, b)``: the largest ``|difference|`` of permuted system means over ``pairs``."""
    from ._hsd_kernel import family_max  # numba, imported at the first use

    return family_max(x, perm, pairs)


def _hsd_p(x: np.ndarray, stat: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed differences ``(F, P)`` and HSD p-values ``(#{max* >= |d|} + 1) / (B + 1)``."""
    obs = x[:, pairs[:, 0]].mean(axis=-1) - x[:, pairs[:, 1]].mean(axis=-1)  # (F, P)
    tol = _NOISE * np.abs(x).max(axis=(1, 2))[:, None]
    B = stat.shape[1]
    srt = np.sort(stat, axis=1)
    reached = np.stack(
        [B - np.searchsorted(srt[f], np.abs(obs[f]) - tol[f], side="left") for f in range(len(x))]
    )
    return obs, (reached + 1) / (B + 1)


def tukey_hsd_pvalues(x, permutations, pairs=None) -> np.ndarray:
    """``(F, P)`` randomised Tukey HSD p-values of ``(F, S, T)`` score matrices, with the same ``(B, T, S)``
    permutations."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3:
        raise InputError(f"x must be a (matrices, systems, topics) array, got shape {x.shape}")
    F, S, n = x.shape
    pairs = _check_pairs(pairs, S)
    perms = _check_permutations(permutations, n, S)
    return _hsd_p(x, _family_max(x, perms, pairs), pairs)[1]


def tukey_hsd(
    scores,
    pairs=None,
    *,
    baseline: str | int | None = None,
    B: int = 10_000,
    seed: SeedLike = None,
    permutations=None,
    n_jobs: int | None = None,
) -> PairwiseResult:
    """Randomised Tukey HSD (Carterette 2012): p = (#{max* >= |d|} + 1) / (B + 1), max* the largest
    |difference| of permuted means over the pairs; blocks of 256 permutations (or ``(B, T, S)``
    ``permutations``), block k from child k of ``seed``."""
    x, systems, measure = _as_matrix(scores)
    pairs = _resolve_pairs(pairs, baseline, systems)
    S, n = x.shape
    if permutations is not None:
        perms = _check_permutations(permutations, n, S)
        blocks = [perms[sl] for sl in parallel._chunks(len(perms), _PERM_BLOCK)]
        stat = np.concatenate(
            parallel.parallel_map(lambda b: _family_max(x[None], b, pairs)[0], blocks, n_jobs=n_jobs)
        )
    else:
        B = parallel.check_int(B, "B", minimum=1)
        if seed is None:
            raise InputError("pass seed (int or numpy Generator) or the permutations")
        sizes = [sl.stop - sl.start for sl in parallel._chunks(B, _PERM_BLOCK)]
        seeds = parallel.as_seed_sequence(seed).spawn(len(sizes))
        ident = np.arange(S)

        def block(k: int) -> np.ndarray:
            rng = np.random.default_rng(seeds[k])
            perm = rng.permuted(np.broadcast_to(ident, (sizes[k], n, S)), axis=-1)
            return _family_max(x[None], perm, pairs)[0]

        stat = np.concatenate(parallel.parallel_map(block, range(len(sizes)), n_jobs=n_jobs))
    B = len(stat)
    obs, pv = _hsd_p(x[None], stat[None], pairs)
    obs, pv = obs[0], pv[0]
    return PairwiseResult("tukey", measure, systems, pairs, obs, pv, pv.copy(), FAMILY_WISE, n, B,
                          baseline=_baseline_name(systems, pairs, baseline))  # fmt: skip
