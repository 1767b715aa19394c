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
    """Mean differences and p-values of the classical ``test`` on ``pairs`` of one or many matrices.

    :func:`pairwise_test`'s computation for ``"paired-t"``, ``"wilcoxon"`` and ``"sign"``, before any
    correction; a topic's difference within 1e-9 times the pair's larger absolute score is a zero.
    Row by row the same floats whatever the number of matrices.

    Parameters
    ----------
    x : numpy.ndarray
        ``(..., S, T)`` finite scores (e.g. the trials of a simulation).
    pairs : numpy.ndarray
        ``(P, 2)`` system indices; a difference is ``pairs[:, 0]`` minus ``pairs[:, 1]``.
    test : {"paired-t", "wilcoxon", "sign"}

    Returns
    -------
    tuple of numpy.ndarray
        The mean differences and the two-sided p-values, each ``(..., P)``.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> x = scores[:2]
    >>> diff, p = sg.classical_pairs(np.stack([x, x[::-1]]), np.array([[0, 1]]), "paired-t")
    >>> diff.round(2).tolist(), bool(p[0, 0] == p[1, 0] == sg.pairwise_test(x, correction="none").p[0])
    ([[0.14], [-0.14]], True)
    """
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
    """Test many pairs of systems with ``test`` (:data:`TESTS`) and adjust the p-values over them.

    ``"paired-t"``, ``"wilcoxon"``, ``"sign"``: two-sided p-values equal to scipy's ``ttest_rel``,
    ``wilcoxon`` (its defaults) and ``binomtest`` on the non-zero differences (two identical systems:
    NaN from the t and sign tests, 1 from Wilcoxon's up to 13 topics and NaN beyond, as scipy's); a
    topic's difference within rounding noise (1e-9 times the pair's larger absolute score) counts as
    zero, as in the resampling tests. The resampling tests: :func:`paired_bootstrap_test` (B = 1000
    unless given), :func:`unpaired_bootstrap_test`, the bootstrap-shift test,
    :func:`permutation_test` and :func:`tukey_hsd` (B = 10,000 unless given; family-wise by itself).

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    test : str
        A name of :data:`TESTS`.
    pairs : array_like, optional
    baseline : str or int, optional
        Every other run against this one (differences run minus baseline).
    correction : str, optional
        The adjustment over the pairs tested: ``"holm"`` (default), ``"fdr_bh"``, ``"bonferroni"``,
        ``"none"`` or any of statsmodels' ``multipletests``; none for Tukey HSD.
    B : int, optional
        Resamples of a resampling test.
    seed : SeedLike
    n_jobs : int, optional

    Returns
    -------
    PairwiseResult
        A :class:`~irrepro.significance.bootstrap.BootstrapResult` for the bootstrap tests.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> r = sg.pairwise_test(scores, "wilcoxon", baseline=1, correction="fdr_bh")
    >>> r.p_adjusted.round(3).tolist()
    [0.125, 0.125]
    """
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

        def run(sl: slice):
            return classical_pairs(x, pairs[sl], test)

        diff, p = (np.concatenate(a) for a in zip(*_map_chunks(run, len(pairs), n_jobs)))
        res = PairwiseResult(
            test, measure, systems, pairs, diff, p, p.copy(), "none", x.shape[1],
            baseline=_baseline_name(systems, pairs, baseline),
        )  # fmt: skip
    return res if res.correction == FAMILY_WISE else res.adjust(correction)
