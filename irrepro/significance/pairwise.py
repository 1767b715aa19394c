"""Any of the six paired tests of many pairs of systems, in one call, with the adjustment for
multiple comparisons over the pairs tested."""

from __future__ import annotations

import numpy as np

from .. import topic_split as ts
from ..bootstrap_tests.pairwise import _map_chunks, _pair_noise, paired_test
from ..bootstrap_tests.samples import _as_matrix, _resolve_pairs
from ..parallel import SeedLike
from .randomization import permutation_test, tukey_hsd
from .result import FAMILY_WISE, TESTS, PairwiseResult, _baseline_name
from ..errors import InputError

__all__ = ["pairwise_test"]

#: The classical tests: vectorised p-values of many rows of differences, equal to scipy's
#: ``ttest_rel``, ``wilcoxon`` and ``binomtest`` row by row (:mod:`irrepro.topic_split`).
_CLASSICAL = {
    "paired-t": ts.paired_t_pvalues,
    "wilcoxon": ts.wilcoxon_pvalues,
    "sign": ts.sign_test_pvalues,
}


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

    - ``"paired-t"``, ``"wilcoxon"``, ``"sign"``: two-sided p-values equal to scipy's
      ``ttest_rel``, ``wilcoxon`` (its defaults) and ``binomtest`` on the non-zero differences
      (:func:`irrepro.topic_split.paired_t_pvalues` etc.; NaN for two identical systems); a
      topic's difference within rounding noise of the pair's scores (1e-9 times the larger
      absolute score) counts as zero, so two runs that differ by rounding alone are not different
      (as in the bootstrap and permutation tests);
    - ``"bootstrap"``: Sakai's (2006) studentised paired bootstrap test, the ASL
      (:func:`irrepro.bootstrap_tests.paired_test`, B = 1000 unless given);
    - ``"permutation"``: the paired randomization test (:func:`permutation_test`, exact for
      2^n <= B, B = 10,000 unless given);
    - ``"tukey"``: randomised Tukey HSD (:func:`tukey_hsd`, B = 10,000 unless given), family-wise
      by itself.

    ``pairs`` (P, 2) system indices (default all pairs) or ``baseline`` (a run's name or index:
    every other run against it, differences run minus baseline). ``correction`` adjusts over the
    pairs tested (that family): ``"holm"`` (the default), ``"bh"`` (Benjamini-Hochberg), ``"none"``
    or any method of statsmodels' ``multipletests``; randomised Tukey HSD takes none (its default).
    ``seed`` feeds the resampling tests (the permutation and bootstrap draws are shared by all
    pairs, so the results do not depend on ``n_jobs``).
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
    kw = {} if B is None else {"B": B}
    if test == "permutation":
        res = permutation_test(scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
    elif test == "tukey":
        res = tukey_hsd(scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
    elif test == "bootstrap":
        boot = paired_test(scores, pairs, baseline=baseline, seed=seed, n_jobs=n_jobs, **kw)
        res = PairwiseResult(
            "bootstrap", boot.measure, boot.systems, boot.pairs, boot.observed, boot.asl, boot.asl.copy(),
            "none", boot.n_topics, boot.B, False, "two-sided", _baseline_name(boot.systems, boot.pairs, baseline),
        )
    else:
        x, systems, measure = _as_matrix(scores)
        pairs = _resolve_pairs(pairs, baseline, systems)
        fn = _CLASSICAL[test]

        def run(sl: slice):
            d = x[pairs[sl, 0]] - x[pairs[sl, 1]]
            # rounding noise is no difference: a topic's |d| within _NOISE times the pair's largest
            # |score| counts as a tie (a zero difference), as in the resampling tests
            tol = _pair_noise(x, pairs[sl])[:, None]
            return d.mean(axis=1), fn(np.where(np.abs(d) <= tol, 0.0, d))

        diff, p = (np.concatenate(a) for a in zip(*_map_chunks(run, len(pairs), n_jobs)))
        res = PairwiseResult(
            test, measure, systems, pairs, diff, p, p.copy(), "none", x.shape[1],
            baseline=_baseline_name(systems, pairs, baseline),
        )  # fmt: skip
    return res if res.correction == FAMILY_WISE else res.adjust(correction)

