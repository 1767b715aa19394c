"""Issue 27, item 2: the hand-written kernels of irrepro.significance.classical stay only because
they are much faster on all pairs at once (benchmarks/bench_tests.py); here they equal scipy's
row-by-row call on random and tied input, zeros included, in every regime scipy chooses between
(Wilcoxon: exact, exact by permutation with ties or zeros, normal approximation)."""

import warnings

import numpy as np
import pytest
from scipy import stats

from irrepro import significance as sg
from irrepro.errors import InputError
from irrepro.significance.classical import two_sample_t_pvalues


def _cases(seed: int, n: int, rows: int = 60) -> np.ndarray:
    """Differences of three kinds: continuous (no ties), rounded to 2 decimals (ties and zeros)
    and on a coarse grid (many ties, many zeros, some rows all zero)."""
    rng = np.random.default_rng(seed)
    cont = rng.normal(0.02, 0.1, (rows, n))
    tied = np.round(rng.normal(0.01, 0.05, (rows, n)), 2)
    coarse = rng.integers(-2, 3, (rows, n)) * 0.1
    coarse[0] = 0.0
    return np.vstack([cont, tied, coarse])


def _scipy(fn, d: np.ndarray) -> np.ndarray:
    out = np.full(len(d), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's warnings on all-zero rows and exact-with-ties
        for k, row in enumerate(d):
            try:
                out[k] = fn(row)
            except ValueError:  # binomtest of 0 non-zero differences
                pass
    return out


def _same(ours: np.ndarray, ref: np.ndarray) -> None:
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(ours[ok], ref[ok], rtol=1e-9, atol=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 10, 12, 14, 25, 50, 60])  # both sides of scipy's 13 and 50
def test_kernels_equal_scipy_row_by_row_on_random_and_tied_input(n, size):
    d = _cases(n, n, rows=60 if n > 13 else size(3, 8))  # scipy's permutation path is slow: fewer rows
    _same(sg.paired_t_pvalues(d), _scipy(lambda r: stats.ttest_rel(r, np.zeros_like(r)).pvalue, d))
    _same(sg.wilcoxon_pvalues(d), _scipy(lambda r: stats.wilcoxon(r).pvalue, d))
    nz = lambda r: stats.binomtest(int((r > 0).sum()), int((r != 0).sum())).pvalue  # noqa: E731
    _same(sg.sign_test_pvalues(d), _scipy(nz, d))


def test_scipy_vectorised_wilcoxon_is_not_scipy_row_by_row():
    """Why Wilcoxon is not delegated to scipy's vectorised call: with ``axis=1`` scipy chooses
    one method for the whole array, so one row with a tie or a zero sends every row to the normal
    approximation, where its own row-by-row call is exact (n <= 50, no ties); our kernel follows
    the row-by-row choice."""
    d = np.random.default_rng(1).normal(0.02, 0.1, (20, 30))
    d[0, 1] = d[0, 0]  # one tie in one row
    rows = _scipy(lambda r: stats.wilcoxon(r).pvalue, d)
    _same(sg.wilcoxon_pvalues(d), rows)
    vec = stats.wilcoxon(d, axis=1).pvalue
    if np.allclose(vec, rows, rtol=1e-9):  # a scipy that agrees with itself: delegation possible
        pytest.skip("scipy's vectorised wilcoxon equals its row-by-row call here")
    assert not np.allclose(vec, rows, rtol=1e-9)


def test_exact_permutation_test_equals_scipy_permutation_test():
    """The permutation test enumerates all 2^n sign flips for small n: scipy's exact reference."""
    rng = np.random.default_rng(5)
    x = np.round(rng.uniform(0, 1, (3, 9)), 1)  # ties and a zero difference or two
    r = sg.permutation_test(x, B=10_000, seed=1)
    assert r.exact
    for k, (i, j) in enumerate(r.pairs):
        ref = stats.permutation_test(
            (x[i], x[j]), lambda a, b: np.mean(a - b), permutation_type="samples", n_resamples=np.inf
        ).pvalue
        assert r.p[k] == pytest.approx(ref, rel=1e-12), (i, j)


def test_two_sample_t_from_summaries_equals_scipy_ttest_ind():
    """The unpaired t-test of the standardization chapter's random halves (it was written inside
    standardize's partition experiment): scipy's ttest_ind on the samples themselves."""
    rng = np.random.default_rng(7)
    for na, nb in ((3, 4), (25, 25), (12, 38)):
        a, b = rng.beta(2, 5, (200, na)), rng.beta(2, 4, (200, nb))
        a[:20] = np.round(a[:20], 1)  # ties
        ss = lambda x: ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)  # noqa: E731
        ours = two_sample_t_pvalues(a.mean(1), b.mean(1), ss(a), ss(b), na, nb)
        with warnings.catch_warnings():  # scipy warns of rows whose rounded values are all equal
            warnings.simplefilter("ignore", RuntimeWarning)
            theirs = stats.ttest_ind(a, b, axis=1).pvalue
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-15)
    same = np.full(5, 0.3)
    assert np.isnan(two_sample_t_pvalues(same.mean(), same.mean(), 0.0, 0.0, 5, 5))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_each_alternative_is_scipys_row_by_row(alternative):
    """paired-t, sign and Wilcoxon (scipy's convention: exact, flips with ties up to 13, normal
    approximation) one- and two-sided, as ttest_1samp, binomtest and wilcoxon row by row."""
    rng = np.random.default_rng(45)
    for n, rounded in [(5, False), (10, True), (13, True), (20, False), (20, True), (60, True)]:
        d = rng.normal(0.02, 0.1, (12, n))
        d = np.round(d, 1) if rounded else d
        d[:, 0] = 0.0 if rounded else d[:, 0]  # a zero
        t = sg.paired_t_pvalues(d, alternative)
        s = sg.sign_test_pvalues(d, alternative)
        w = sg.wilcoxon_pvalues(d, alternative)
        for i, row in enumerate(d):
            k, m = int((row > 0).sum()), int((row != 0).sum())
            assert t[i] == pytest.approx(stats.ttest_1samp(row, 0, alternative=alternative).pvalue, rel=1e-9)
            assert s[i] == pytest.approx(stats.binomtest(k, m, alternative=alternative).pvalue, rel=1e-12)
            assert w[i] == pytest.approx(stats.wilcoxon(row, alternative=alternative).pvalue, rel=1e-9)


def test_sign_test_min_d_drops_differences_within_it_as_ties():
    d = np.array([[0.005, -0.02, 0.03, 0.01, 0.2], [0.01, -0.01, 0.0, 0.004, -0.002]])
    np.testing.assert_array_equal(
        sg.sign_test_pvalues(d, min_d=0.01), sg.sign_test_pvalues(np.where(np.abs(d) <= 0.01, 0.0, d))
    )
    assert np.isnan(sg.sign_test_pvalues(d, "greater", min_d=0.01)[1])
    with pytest.raises(InputError, match="min_d must be"):
        sg.sign_test_pvalues(d, min_d=np.nan)
    with pytest.raises(InputError, match="alternative must be one of"):
        sg.paired_t_pvalues(d, "two-tailed")
