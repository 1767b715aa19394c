"""Any of the eight paired tests of many pairs of systems, in one call, with the adjustment for
multiple comparisons over the pairs tested."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..parallel import SeedLike
from . import classical
from ._names import FAMILY_WISE, TESTS
from ._samples import _as_matrix, _resolve_pairs
from .bootstrap import (
    _map_chunks,
    _pair_noise,
    bootstrap_shift_test,
    paired_bootstrap_test,
    unpaired_bootstrap_test,
)
from .randomization import permutation_test, tukey_hsd
from .result import PairwiseResult, _baseline_name

#: The classical tests: vectorised p-values of many rows of differences, equal to scipy's
#: ``ttest_rel``, ``wilcoxon`` and ``binomtest`` row by row (:mod:`irrepro.significance.classical`).
_CLASSICAL = {
    "paired-t": classical.paired_t_pvalues,
    "wilcoxon": classical.wilcoxon_pvalues,
    "sign": classical.sign_test_pvalues,
}
#: The bootstrap tests (B = 1000 unless given).
_BOOTSTRAP = {
    "bootstrap": paired_bootstrap_test,
    "unpaired-bootstrap": unpaired_bootstrap_test,
    "bootstrap-shift": bootstrap_shift_test,
}


def classical_pairs(x: np.ndarray, pairs: np.ndarray, test: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean differences and two-sided p-values ``(..., P)`` of a classical ``test`` on ``pairs`` of ``(..., S,
    T)`` scores; a topic's difference within 1e-9 times the pair's larger absolute score is a zero."""
    d = x[..., pairs[:, 0], :] - x[..., pairs[:, 1], :]
    # rounding noise is no difference: a topic's |d| within _NOISE times the pair's largest
    # |score| counts as a tie (a zero difference), as in the resampling tests
    tol = _pair_noise(x, pairs)[..., None]
    return d.mean(axis=-1), _CLASSICAL[test](np.where(np.abs(d) <= tol, 0.0, d))


def pairwise_test(
    scores,
    test: str = "paired-t",
    pairs=None,
    *,
    baseline: str | int | None = None,
    correction: str | None = None,
    B: int | None = None,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> PairwiseResult:
    """Test many pairs of systems with ``test`` (a name of TESTS) and adjust their p-values by ``correction``
    (default Holm)."""
    if test not in TESTS:
        raise InputError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if correction is None:
        correction = "none" if test == "tukey" else "holm"
    if test == "tukey" and correction != "none":
        raise InputError(
            f"randomised Tukey HSD's p-values are family-wise already: no {correction!r} correction "
            "on top (use correction 'none')"
        )
    kw: dict[str, Any] = {} if B is None else {"B": B}
    res: PairwiseResult
    if test == "permutation":
        one = permutation_test(scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
        assert isinstance(one, PairwiseResult)  # one alternative: one result
        res = one
    elif test == "tukey":
        res = tukey_hsd(scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
    elif test in _BOOTSTRAP:
        res = _BOOTSTRAP[test](scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
    else:
        x, systems, measure = _as_matrix(scores)
        pairs = _resolve_pairs(pairs, baseline, systems)
        parts = _map_chunks(lambda sl: classical_pairs(x, pairs[sl], test), len(pairs), n_jobs)
        diff, p = (np.concatenate(a) for a in zip(*parts))
        res = PairwiseResult(
            test, measure, systems, pairs, diff, p, p.copy(), "none", x.shape[1],
            baseline=_baseline_name(systems, pairs, baseline),
        )  # fmt: skip
    return res if res.correction == FAMILY_WISE else res.adjust(correction)
