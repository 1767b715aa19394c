"""A spread of identical values is exactly 0 wherever irrepro computes one, and everything divided by
it gives the exact degenerate answer, not the quotient of rounding noise (issue 41, item 3).

The trigger: numpy's mean of three 0.7s is 0.7 - 1.1e-16 and their sd 1.4e-16, so that a z-score
of a fourth 0.7 came out as 0.816 and one of 0.6 as -7e14. Each test below puts identical values
where one function divides by (or reports) their spread and checks the answer worked by hand:
the value itself as the mean, 0 as the sd, and what the function documents for a zero sd."""

from __future__ import annotations

import numpy as np
import pytest

from irrepro import _spread
from irrepro import significance as sg
from irrepro import standardize as sz
from irrepro.errors import InputError
from irrepro.significance.urbano import urbano_tests
from irrepro.standardize._scores import zscores
from irrepro.stats import bootstrap_sd

SEVEN = 0.7  # three of them: numpy's mean 0.6999999999999998, sd 1.36e-16


def test_numpy_itself_gives_noise_here():
    """The premise of every test below (if numpy ever sums three 0.7s exactly, they test nothing)."""
    x = np.full(3, SEVEN)
    assert x.mean() != SEVEN and x.std(ddof=1) > 0


# -- the helper --------------------------------------------------------------------------------


def test_spread_of_equal_values_is_zero_and_their_mean_is_the_value():
    mean, sd = _spread.mean_sd(np.array([[SEVEN] * 3, [0.2, 0.4, 0.3]]))
    assert mean[0] == SEVEN and sd[0] == 0.0
    assert _spread.centred(np.full(3, SEVEN)).tolist() == [0.0, 0.0, 0.0]
    assert _spread.constant([[1.0, 1.0], [1.0, np.nan]]).tolist() == [True, False]


@pytest.mark.parametrize("ddof", [0, 1])
def test_spread_elsewhere_is_numpys_bit_for_bit(ddof):
    """Values that differ, even by one unit in the last place, keep numpy's mean and sd."""
    rng = np.random.default_rng(4)
    x = rng.random((40, 9))
    x[0] = np.nextafter(SEVEN, 1.0)
    x[0, 0] = SEVEN
    mean, sd = _spread.mean_sd(x, ddof=ddof)
    assert np.array_equal(mean, x.mean(axis=1)) and np.array_equal(sd, x.std(axis=1, ddof=ddof))
    assert sd[0] > 0


# -- standardization (Webber, Moffat & Zobel 2008) -----------------------------------------------


def _tied():
    """Three standardizing systems; on topic 0 all score 0.7, on topic 1 they score 0.1, 0.2, 0.3."""
    return np.array([[SEVEN, 0.1], [SEVEN, 0.2], [SEVEN, 0.3]])


def test_factors_of_a_tied_topic_are_the_score_and_zero():
    f = sz.factors(_tied(), topics=["a", "b"])
    assert f.mean[0] == SEVEN and f.sd[0] == 0.0
    assert f.mean[1] == pytest.approx(0.2) and f.sd[1] == pytest.approx(0.1)


def test_z_of_a_tied_topic_is_zero_for_every_system():
    """The three standardizing systems score the mean: z = 0 exactly (trec_eval -Z's too); a later
    system scoring otherwise gets z = 0 too (irrepro's documented convention), so Phi(z) = 0.5."""
    fac = sz.factors(_tied())
    assert zscores(_tied())[:, 0].tolist() == [0.0, 0.0, 0.0]
    assert sz.standardize(_tied())[:, 0].tolist() == [0.5, 0.5, 0.5]
    later = np.array([[SEVEN, 0.2], [0.6, 0.2], [0.8, 0.2]])
    assert zscores(later, fac)[:, 0].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(InputError, match="1 topics have zero sd"):
        zscores(later, fac, zero_sd="raise")


def test_sampled_standardizers_tied_topic():
    """Samples of 2 of the 3 tied systems (their sd is exact even in numpy) and the full set
    (3: numpy's sd is noise) must standardize the tied topic alike. Evaluated: e1 = (0.7, 0.2),
    e2 = (0.6, 0.25). On the tied topic both get z = 0 (sd 0), on topic 1 e2 is higher in every
    sample and in the full set: every Kendall's tau between a sample's and the full set's means is
    1. (With noise, the full set put e1's 0.7 at z = 0.8 and e2's 0.6 at z = -7e14: tau -1.)"""
    ev = np.array([[SEVEN, 0.2], [0.6, 0.25]])
    taus = sz.sampled_standardizers(_tied(), ev, [2], 20, seed=1).taus
    assert taus.tolist() == [[1.0] * 20]


def test_mean_intervals_of_a_constant_system_are_its_score():
    m, lo, hi = sz.mean_intervals(np.array([[SEVEN] * 3, [0.2, 0.4, 0.3]]))
    assert (m[0], lo[0], hi[0]) == (SEVEN, SEVEN, SEVEN)


def test_item_total_correlation_of_a_tied_topic_is_undefined():
    """Pearson's r of a topic every system scores the same on has a zero sd in its denominator:
    NaN (documented), not a number made of noise."""
    x = np.array([[SEVEN, 0.1, 0.5], [SEVEN, 0.4, 0.2], [SEVEN, 0.3, 0.9]])
    r = sz.item_total_correlation(x)
    assert np.isnan(r[0]) and not np.isnan(r[1:]).any()


@pytest.mark.parametrize("b", [[SEVEN] * 3, [0.6] * 3])
def test_drmse_without_spread_is_undefined(b):
    """dRMSE divides by the mean of the two collections' sds: both 0 here, so NaN (documented)."""
    assert np.isnan(sz.drmse(np.full(3, SEVEN), np.array(b)))


def test_self_significance_of_a_constant_system():
    """A system scoring 0.1 on every topic of both collections is not different from itself (0/0:
    scipy's noise gave p = 0.03); one scoring 0.1 on C and 0.2 on D is (t = inf)."""
    c = np.array([[0.1] * 3, [0.1] * 3, [0.1, 0.5, 0.3]])
    d = np.array([[0.1] * 7, [0.2] * 7, [0.2, 0.6, 0.4, 0.1, 0.3, 0.5, 0.2]])
    assert sz.self_significance(c, d).tolist() == [False, True, False]


def test_discriminative_power_of_constant_differences():
    """Pairs whose differences are all 0 are not significant (0/0), a pair differing by 0.1 on every
    topic is (t = inf): 2 of the 3 pairs."""
    x = np.array([[SEVEN] * 4, [SEVEN] * 4, [0.6] * 4])
    assert sz.discriminative_power(x) == pytest.approx(2 / 3)


# -- t statistics -------------------------------------------------------------------------------


def test_paired_t_of_equal_differences():
    """Equal non-zero differences: t = +-inf, p = 0 exactly (scipy: t = 1.0e16, p = 9.6e-33);
    all zero: NaN (the documented zero policy)."""
    x = np.array([SEVEN] * 3)
    d = np.array([x - 0.6, 0.6 - x, np.full(3, 0.1), np.zeros(3)])
    p = sg.paired_t_pvalues(d)
    assert p[:3].tolist() == [0.0, 0.0, 0.0] and np.isnan(p[3])


def test_urbano_paired_t_of_equal_differences():
    """Both tails of Urbano et al.'s paired t-test: e - b = 0.1 on every topic gives t = +inf,
    one-tailed and two-tailed p = 0 exactly (numpy's mean of three 0.1s is 0.1 + 1.4e-17)."""
    p = urbano_tests(np.zeros(3), np.full(3, 0.1), tests="paired-t")["paired-t"]
    assert (float(p.one_tailed), float(p.two_tailed)) == (0.0, 0.0)


def test_bootstrap_test_of_a_constant_difference():
    """Sakai's studentised bootstrap: a difference of 0.1 on every topic has t = inf, identical
    systems t = 0; their effect size mean(z) / sd(z) is 0 by the result's convention (sd 0)."""
    x = np.array([[SEVEN] * 5, [0.6] * 5, [SEVEN] * 5])
    r = sg.paired_bootstrap_test(x, B=50, seed=1)
    assert r.statistic.tolist() == [np.inf, 0.0, -np.inf]
    assert r.effect_size.tolist() == [0.0, 0.0, 0.0]


def test_effect_sizes_without_spread_are_undefined():
    """d_z of a pair whose differences are all equal, and ES_E where no residual variance is left
    (every score a system effect plus a topic effect), are NaN, as documented."""
    x = np.array([[SEVEN, 0.2, 0.4, 0.9], [0.6, 0.1, 0.3, 0.8], [0.5, 0.0, 0.2, 0.7]])
    for kind in ("d_z", "ES_E"):
        assert np.isnan(sg.effect_sizes(x, kind=kind, B=50, seed=1).estimate).all(), kind


# -- standard errors ----------------------------------------------------------------------------


def test_bootstrap_sd_of_equal_replicates_is_zero():
    reps = np.array([[SEVEN] * 3 + [np.nan], [0.1] * 4, [0.1, 0.2, 0.3, np.nan]])
    sd = bootstrap_sd(reps)
    assert sd[:2].tolist() == [0.0, 0.0] and sd[2] == pytest.approx(0.1)
    assert bootstrap_sd(np.full((2, 7), SEVEN), transform=np.log).tolist() == [0.0, 0.0]


def test_meta_analysis_leaves_out_a_topic_whose_replicates_agree():
    """A topic whose bootstrap replicates are all equal has sd 0 and is left out (its weight 1/sd^2
    is not 1e32): the fixed effect is the other two topics' mean."""
    from irrepro.stats import meta_analysis

    sd = bootstrap_sd(np.array([[SEVEN] * 3, [0.1, 0.3, 0.2], [0.2, 0.4, 0.3]]))
    m = meta_analysis([5.0, 1.0, 3.0], sd)
    assert (m.k, m.effect) == (2, pytest.approx(2.0))


def test_self_significance_null_summary_of_equal_shares():
    from irrepro.known_truth._papers import SelfSignificance

    row = SelfSignificance({"raw": np.full(7, 0.1)}, 10, 20, 0.05).summary().loc["raw"]
    assert (row["false-positive rate"], row["se"]) == (0.1, 0.0)


def test_finite_b_bound_of_equal_estimates_is_the_bias():
    """Equal p-value estimates: the bias's sd is 0, so the bound is |bias| itself."""
    from irrepro.known_truth._pvalues import _finite_b_bias

    r = _finite_b_bias(np.full(3, 0.045), B=1000)
    assert r.bound == abs(r.bias) > 0
