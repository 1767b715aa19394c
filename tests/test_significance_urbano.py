"""Issue 25 item 2: Urbano, Lima & Hanjalic's (SIGIR 2019) five tests as their R code runs them
(irrepro.significance.urbano): their README's p-values for TREC-8 runs 125 and 126, R's
``wilcox.test`` against scipy where the two agree and at n = 50 where they do not, their sign test
against scipy's ``binomtest`` (R's two-sided rule), and their bootstrap and permutation estimators
against the exact p-values they estimate (full enumeration), within Monte Carlo error."""

import itertools

import numpy as np
import pytest
from scipy import stats

from irrepro import significance as sg
from irrepro.errors import InputError
from irrepro.significance.bootstrap import _paired
from irrepro.significance.urbano import _resample, urbano_tests

B_, E_ = [0.2, 0.35, 0.1, 0.4, 0.3, 0.25], [0.3, 0.45, 0.15, 0.42, 0.31, 0.2]


def wilcoxon_r(x, y, alternative="two-sided"):
    """R's ``wilcox.test(x, y, paired = TRUE)``: the package's Wilcoxon test of x - y, R's convention."""
    return sg.wilcoxon_pvalues(np.subtract(x, y), alternative, convention="R")


def sign_test_urbano(b, e, min_d=0.01):
    """Their sign test (``test_sign``): of e - b, ties within ``min_d``."""
    return urbano_tests(b, e, tests="sign", min_d=min_d)["sign"]


def _within_mc(estimate, exact, B, k=4.0, other_B=None):
    """``estimate`` is within ``k`` Monte Carlo standard errors of ``exact`` (a share of B draws;
    ``other_B``: the exact value is itself an estimate from that many draws)."""
    var = exact * (1 - exact) / B + (exact * (1 - exact) / other_B if other_B else 0.0)
    assert abs(estimate - exact) <= k * np.sqrt(var) + 1e-12, (estimate, exact, np.sqrt(var))


# ------------------------------------------------------------------ their README's example


@pytest.mark.realdata
def test_the_readme_example_adhoc8_runs_125_and_126(real_matrix):
    """Their README prints, for adhoc8 AP with run125 the baseline and run126 the experimental
    system (first values 0.0075 0.0712 0.7546 0.1367 0.0548 / 0.0258 0.2125 0.7863 0.1649 0.0797),
    the one- and two-tailed p-values of each test. The two runs are found in our TREC-8 matrix by
    those first values."""
    m = real_matrix("trec8", "AP")
    first_b = [0.0075, 0.0712, 0.7546, 0.1367, 0.0548]
    first_e = [0.0258, 0.2125, 0.7863, 0.1649, 0.0797]
    (ib,) = np.flatnonzero(np.all(np.abs(m.scores[:, :5] - first_b) < 5e-5, axis=1))
    (ie,) = np.flatnonzero(np.all(np.abs(m.scores[:, :5] - first_e) < 5e-5, axis=1))
    assert (m.systems[ib], m.systems[ie]) == ("run125", "run126")
    b, e = m.scores[ib], m.scores[ie]
    assert len(b) == 50
    p = urbano_tests(b, e, tests=("paired-t", "wilcoxon", "sign"))
    readme = {
        "paired-t": (0.0006596986, 0.0013193972),
        "wilcoxon": (0.001722594, 0.003445188),
        "sign": (0.004779939, 0.009559879),
    }
    for name, (one, two) in readme.items():
        np.testing.assert_allclose([p[name].one_tailed, p[name].two_tailed], [one, two], rtol=0, atol=1e-9)
    # R is at n = 50: normal approximation with continuity correction; scipy's default is exact there
    assert stats.wilcoxon(b, e).pvalue == pytest.approx(0.0028963, abs=1e-7)
    # their sign test (ties within 0.01 dropped) beside the plain exact binomial (zeros dropped)
    d = e - b
    plain = stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
    assert plain == pytest.approx(0.01535, abs=5e-6)
    assert float(sign_test_urbano(b, e, min_d=0).two_tailed) == pytest.approx(plain, rel=1e-12)
    assert float(sg.sign_test_pvalues(d)) == pytest.approx(plain, rel=1e-12)
    # bootstrap and permutation: their B = 1e6 estimates and ours are estimates of one p-value
    B = 200_000
    r = urbano_tests(b, e, tests=("bootstrap-shift", "permutation"), B=B, seed=25)
    theirs = {"bootstrap-shift": (0.000424, 0.000586), "permutation": (0.000603, 0.001188)}
    for name, (one, two) in theirs.items():
        _within_mc(float(r[name].one_tailed), one, B, other_B=10**6)
        _within_mc(float(r[name].two_tailed), two, B, other_B=10**6)


# ------------------------------------------------------------------ Wilcoxon as R computes it


def _random_pairs(rng, n, *, rounded):
    x, y = rng.normal(0.3, 0.1, n), rng.normal(0.32, 0.1, n)
    return (np.round(x, 2), np.round(y, 2)) if rounded else (x, y)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_r_is_scipys_exact_test_below_50_without_ties(alternative):
    rng = np.random.default_rng(1)
    for n in [2, 3, 7, 20, 35, 49]:
        x, y = _random_pairs(rng, n, rounded=False)
        want = stats.wilcoxon(x, y, alternative=alternative, method="exact").pvalue
        assert wilcoxon_r(x, y, alternative) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_r_with_ties_or_zeros_is_the_corrected_normal_approximation(alternative):
    """Ties or zeros (at any n, also n <= 13 where scipy's default enumerates the flips): the
    normal approximation with ties and continuity correction, zeros dropped."""
    rng = np.random.default_rng(2)
    for n in [6, 10, 13, 30, 49, 80]:
        x, y = _random_pairs(rng, n, rounded=True)
        x[0] = y[0]  # a zero at least
        want = stats.wilcoxon(x, y, alternative=alternative, method="approx", correction=True).pvalue
        assert wilcoxon_r(x, y, alternative) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_r_at_50_pairs_is_the_approximation_where_scipy_is_exact(alternative):
    """R is exact for n < 50, scipy for n <= 50: at n = 50 without ties R takes the normal
    approximation with continuity correction and so differs from scipy's default."""
    x, y = _random_pairs(np.random.default_rng(3), 50, rounded=False)
    assert len(np.unique(np.abs(x - y))) == 50
    p = wilcoxon_r(x, y, alternative)
    assert p == pytest.approx(
        stats.wilcoxon(x, y, alternative=alternative, method="approx", correction=True).pvalue, rel=1e-12
    )
    assert p != pytest.approx(stats.wilcoxon(x, y, alternative=alternative).pvalue, rel=1e-3)


def test_wilcoxon_r_on_many_rows_at_once_equals_row_by_row():
    """Rows of every regime in one call (exact, ties, zeros, n = 50, all zeros)."""
    rng = np.random.default_rng(4)
    for n in [12, 50]:
        x = rng.normal(0.3, 0.1, (40, n))
        y = rng.normal(0.3, 0.1, (40, n))
        x[:15], y[:15] = np.round(x[:15], 2), np.round(y[:15], 2)  # ties
        x[15, 3] = y[15, 3]  # one zero
        y[16] = x[16]  # all zero
        got = wilcoxon_r(x.reshape(4, 10, n), y.reshape(4, 10, n)).ravel()
        want = [wilcoxon_r(a, b) for a, b in zip(x, y)]
        np.testing.assert_array_equal(got, want)
        assert np.isnan(got[16]) and np.isfinite(np.delete(got, 16)).all()


# ------------------------------------------------------------------ their sign test


def test_sign_test_urbano_is_rs_binom_test_on_differences_beyond_min_d():
    rng = np.random.default_rng(5)
    b = np.round(rng.uniform(0, 1, (300, 25)), 3)
    e = np.clip(b + np.round(rng.normal(0.01, 0.05, b.shape), 3), 0, 1)
    p = sign_test_urbano(b, e, min_d=0.01)
    for i in range(len(b)):
        d = e[i] - b[i]
        pos, m = int((d > 0.01).sum()), int((np.abs(d) > 0.01).sum())
        assert p.two_tailed[i] == pytest.approx(stats.binomtest(pos, m).pvalue, rel=1e-12)
        assert p.one_tailed[i] == pytest.approx(
            stats.binomtest(pos, m, alternative="greater").pvalue, rel=1e-12
        )


def test_sign_test_urbano_all_ties_gives_nan_and_min_d_zero_is_the_usual_sign_test():
    b = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    e = np.array([[0.105, 0.2, 0.295], [0.3, 0.2, 0.1]])
    p = sign_test_urbano(b, e)
    assert np.isnan(p.one_tailed[0]) and np.isnan(p.two_tailed[0])
    assert p.two_tailed[1] == 1.0 and p.one_tailed[1] == pytest.approx(0.75)
    rng = np.random.default_rng(6)
    b, e = np.round(rng.uniform(0, 1, (2, 50, 30)), 1)
    np.testing.assert_array_equal(sign_test_urbano(b, e, min_d=0).two_tailed, sg.sign_test_pvalues(e - b))


def test_urbano_t_test_is_scipys_paired_t_test_one_and_two_tailed():
    rng = np.random.default_rng(7)
    b, e = rng.uniform(0, 1, (2, 20, 30))
    p = urbano_tests(b, e, tests="paired-t")["paired-t"]
    np.testing.assert_allclose(
        p.one_tailed, stats.ttest_rel(b, e, axis=1, alternative="less").pvalue, rtol=1e-10
    )
    np.testing.assert_allclose(p.two_tailed, stats.ttest_rel(b, e, axis=1).pvalue, rtol=1e-10)
    w = urbano_tests(b, e, tests=["wilcoxon"])["wilcoxon"]
    np.testing.assert_array_equal(w.one_tailed, wilcoxon_r(b, e, "less"))


# ------------------------------------------------------------------ bootstrap and permutation


@pytest.mark.parametrize(("n", "shift"), [(6, 0.05), (7, 0.1)], ids=["even", "odd"])
def test_bootstrap_test_urbano_converges_to_the_exact_bootstrap_p_value(n, shift):
    """All n^n resamples of n = 6 (or 7: topics drawn in pairs plus a single one) differences give
    the ideal bootstrap p-values; their estimator (replicates centred at their own mean) and the
    package's bootstrap-shift test (centred at the mean difference) are both within Monte Carlo
    error of them: the same test."""
    rng = np.random.default_rng(0)
    b = rng.uniform(0.1, 0.6, n)
    e = b + rng.normal(shift, 0.1, n)
    d = e - b
    means = d[np.array(list(itertools.product(range(n), repeat=n)))].mean(axis=1)
    c = means - d.mean()
    exact1, exact2 = np.mean(c >= d.mean()), np.mean(np.abs(c) >= abs(d.mean()))
    assert 0.05 < exact1 < exact2 < 0.5
    B = 40_000
    p = _resample("bootstrap", b, e, B, 11, None)
    _within_mc(float(p.one_tailed), exact1, B)
    _within_mc(float(p.two_tailed), exact2, B)
    shift = _paired("bootstrap-shift", np.vstack([e, b]), B=B, seed=11)
    _within_mc(float(shift.p[0]), exact2, B)


@pytest.mark.parametrize("n", [2, 4, 16, 256])
def test_bootstrap_test_urbano_with_a_power_of_2_of_draws(n):
    """n^2 (n < 256) or n (n >= 256) a power of 2: the 16-bit draws are reduced to [0, n^2) too."""
    rng = np.random.default_rng(n)
    b = rng.uniform(0.1, 0.6, (3, n))
    e = b + rng.normal(0.05, 0.1, (3, n))
    p = _resample("bootstrap", b, e, 2000, 1, None)
    assert ((0 <= p.one_tailed) & (p.one_tailed <= p.two_tailed) & (p.two_tailed <= 1)).all()
    if n == 4:  # all 4^4 resamples: the exact p-values
        d = (e - b)[0]
        c = d[np.array(list(itertools.product(range(n), repeat=n)))].mean(axis=1) - d.mean()
        _within_mc(float(p.one_tailed[0]), np.mean(c >= d.mean()), 2000)
        _within_mc(float(p.two_tailed[0]), np.mean(np.abs(c) >= abs(d.mean())), 2000)


def test_bootstrap_test_urbano_with_256_topics_or_more_matches_the_bootstrap_shift_test():
    """From 256 topics on the bootstrap draws one topic at a time (no pair table): its p-value is
    the bootstrap-shift test's, within the two estimates' Monte Carlo error."""
    rng = np.random.default_rng(5)
    b = rng.uniform(0.1, 0.6, 300)
    e = b + rng.normal(0.01, 0.1, 300)
    B = 40_000
    p = _resample("bootstrap", b, e, B, 1, None)
    shift = _paired("bootstrap-shift", np.vstack([e, b]), B=B, seed=2)
    assert 0.05 < float(shift.p[0]) < 0.95
    _within_mc(float(p.two_tailed), float(shift.p[0]), B, other_B=B)


@pytest.mark.parametrize("discrete", [False, True], ids=["continuous", "ties-like-P@10"])
def test_permutation_test_urbano_converges_to_the_exact_randomization_test(discrete):
    """All 2^n sign flips (scipy's permutation_test, n_resamples=inf) give the exact p-values;
    the package's randomization test gives the same when exact. With P@10-like differences
    (multiples of 0.1) many flips tie with the observed mean and must count."""
    rng = np.random.default_rng(12)
    n = 10
    b = np.round(rng.uniform(0, 1, n), 1) if discrete else rng.uniform(0, 1, n)
    e = np.clip(b + (np.round(rng.normal(0.15, 0.2, n), 1) if discrete else rng.normal(0.1, 0.2, n)), 0, 1)
    d = e - b
    exact = {
        alt: stats.permutation_test(
            (d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative=alt
        ).pvalue
        for alt in ("greater", "two-sided")
    }
    assert 0.01 < exact["greater"] < exact["two-sided"] < 0.5
    ours_exact = sg.permutation_test(np.vstack([e, b]), B=2**n)
    assert ours_exact.exact and ours_exact.p[0] == pytest.approx(exact["two-sided"], rel=1e-12)
    B = 40_000
    p = _resample("permutation", b, e, B, 13, None)
    _within_mc(float(p.one_tailed), exact["greater"], B)
    _within_mc(float(p.two_tailed), exact["two-sided"], B)


def test_permutation_test_urbano_counts_ties_with_the_observed_mean():
    """P@10-like scores whose differences are all +-0.1: every flip's mean is a multiple of
    0.02, a fifth of them tie with the observed one (up to rounding: e - b is not exactly 0.1), and
    the exact p-values are the binomial sign test's: 14 wins of 20."""
    rng = np.random.default_rng(16)
    b = rng.integers(1, 9, 20) / 10
    e = (b * 10 + np.r_[np.ones(14), -np.ones(6)]) / 10
    d = e - b
    assert np.ptp(np.abs(d)) > 0  # not exactly equal in floating point
    B = 40_000
    p = _resample("permutation", b, e, B, 17, None)
    _within_mc(float(p.one_tailed), stats.binomtest(14, 20, alternative="greater").pvalue, B)
    _within_mc(float(p.two_tailed), stats.binomtest(14, 20).pvalue, B)


@pytest.mark.parametrize("kind", ["bootstrap", "permutation"])
def test_resampling_tests_are_reproducible_and_do_not_depend_on_the_workers(kind):
    rng = np.random.default_rng(14)
    b, e = rng.uniform(0, 1, (2, 150, 25))  # three blocks of pairs
    one = _resample(kind, b, e, 500, 3, None)
    two = _resample(kind, b, e, 500, 3, 2)
    again = _resample(kind, b.reshape(3, 50, 25), e.reshape(3, 50, 25), 500, np.random.SeedSequence(3), None)
    for a, c in [(one, two), (one, again)]:
        np.testing.assert_array_equal(a.one_tailed, c.one_tailed.reshape(a.one_tailed.shape))
        np.testing.assert_array_equal(a.two_tailed, c.two_tailed.reshape(a.two_tailed.shape))
    other = _resample(kind, b, e, 500, 4, None)
    assert not np.array_equal(one.two_tailed, other.two_tailed)
    assert one.two_tailed.shape == (150,) and (one.one_tailed <= 1).all()


def test_urbano_tests_runs_the_five_and_seeds_the_resampling_ones():
    rng = np.random.default_rng(15)
    b, e = rng.uniform(0, 1, (2, 5, 20))
    a = urbano_tests(b, e, B=300, seed=8)
    assert list(a) == ["paired-t", "wilcoxon", "sign", "bootstrap-shift", "permutation"]
    c = urbano_tests(b, e, B=300, seed=8, n_jobs=2)
    for name in a:
        np.testing.assert_array_equal(a[name].two_tailed, c[name].two_tailed)
        assert a[name].one_tailed.shape == (5,)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: urbano_tests([1, 2, 3], [1, 2], tests="wilcoxon"), "same shape"),
        (lambda: wilcoxon_r([1, 2], [2, 1], "lower"), "alternative must be one of"),
        (lambda: sg.wilcoxon_pvalues([1, -2], convention="SAS"), "convention must be"),
        (lambda: sign_test_urbano([1.0], [2.0]), "at least 2 topics"),
        (lambda: sign_test_urbano(B_, E_, min_d=-1), "min_d must be"),
        (lambda: _resample("bootstrap", B_, E_, 0, 1, None), "B"),
        (lambda: _resample("permutation", B_, E_, 100_000, None, None), "pass seed"),
        (lambda: urbano_tests(B_, E_, tests=("paired-t", "mann-whitney")), "mann-whitney"),
        (lambda: urbano_tests(B_, E_), "pass seed"),
        (lambda: urbano_tests(B_, [0.1, np.nan, 0, 0, 0, 0], tests="paired-t"), "finite"),
    ],
)
def test_bad_input_is_an_input_error_naming_it(call, match):
    with pytest.raises(InputError, match=match):
        call()
