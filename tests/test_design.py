"""irrepro.design: the ANOVA and variance components against statsmodels, Sakai's
topic-set sizes against statsmodels' power solvers, simulated power against the noncentral t,
the D-study against the pilot's own reliability, and the errors of bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irrepro import InputError, design
from irrepro import significance as sig
from irrepro.design._power import power_curve


def pilot(S=6, T=40, seed=1, system_sd=0.05):
    """Scores with a topic effect, a system effect and noise, kept within [0, 1]."""
    rng = np.random.default_rng(seed)
    x = 0.4 + rng.normal(0, 0.15, (1, T)) + rng.normal(0, system_sd, (S, 1)) + rng.normal(0, 0.1, (S, T))
    return np.clip(x, 0, 1)


def statsmodels_anova(x):
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    s, t = np.indices(x.shape)
    frame = pd.DataFrame(
        {"system": s.ravel().astype(str), "topic": t.ravel().astype(str), "score": x.ravel()}
    )
    return sm.stats.anova_lm(smf.ols("score ~ C(system) + C(topic)", frame).fit())


@pytest.mark.parametrize("shape, seed", [((6, 40), 1), ((2, 3), 2), ((12, 25), 3)])
def test_anova_and_components_equal_statsmodels(shape, seed):
    x = pilot(*shape, seed=seed)
    ours = design.two_way_anova(x)
    ref = statsmodels_anova(x)
    cols = ["df", "sum_sq", "mean_sq", "F", "PR(>F)"]
    np.testing.assert_allclose(ours.table[cols].to_numpy(), ref[cols].to_numpy(), rtol=0, atol=1e-10)
    ms = ref["mean_sq"].to_numpy()
    S, T = shape
    assert ours.sigma2_residual == pytest.approx(ms[2], abs=1e-10)
    assert ours.sigma2_system == pytest.approx(max((ms[0] - ms[2]) / T, 0), abs=1e-10)
    assert ours.sigma2_topic == pytest.approx(max((ms[1] - ms[2]) / S, 0), abs=1e-10)
    ss = ref["sum_sq"].to_numpy()
    omega2 = (ss[:2] - ref["df"].to_numpy()[:2] * ms[2]) / (ss.sum() + ms[2])
    np.testing.assert_allclose(ours.omega2.to_numpy(), omega2, rtol=0, atol=1e-10)
    assert ours.sigma2_residual == pytest.approx(sig.residual_variance(x), abs=1e-12)


@pytest.mark.parametrize(
    "d, alpha, power", [(0.2, 0.05, 0.8), (0.5, 0.01, 0.9), (0.1, 0.05, 0.5), (1.5, 0.1, 0.8)]
)
def test_paired_t_size_is_statsmodels_solve_power_rounded_up(d, alpha, power):
    from statsmodels.stats.power import TTestPower

    variance = 0.01
    min_diff = d * math.sqrt(2 * variance)
    r = design._sizes._topic_set_size(variance, "paired-t", min_diff=min_diff, alpha=alpha, power=power)
    n_sm = TTestPower().solve_power(effect_size=d, alpha=alpha, power=power, alternative="two-sided")
    assert r.n_topics == math.ceil(n_sm - 1e-6)
    n = np.arange(3, 400)
    ours = design.power_closed_form("paired-t", n, variance=variance, min_diff=min_diff, alpha=alpha)
    sm = TTestPower().power(d, n, alpha, alternative="two-sided")
    ok = np.isfinite(sm)  # statsmodels' is NaN where scipy's lower tail is (a large noncentrality)
    np.testing.assert_allclose(ours[ok], sm[ok], rtol=0, atol=1e-10)
    assert np.isfinite(ours).all()


@pytest.mark.parametrize(
    "m, alpha, power, min_diff", [(2, 0.05, 0.8, 0.05), (5, 0.05, 0.8, 0.1), (10, 0.01, 0.9, 0.1)]
)
def test_anova_size_is_statsmodels_ftestanovapower(m, alpha, power, min_diff):
    from statsmodels.stats.power import FTestAnovaPower

    variance = 0.02
    f = min_diff / math.sqrt(2 * m * variance)
    r = design._sizes._topic_set_size(
        variance, "anova", min_diff=min_diff, alpha=alpha, power=power, systems=m
    )
    N = FTestAnovaPower().solve_power(effect_size=f, nobs=None, alpha=alpha, power=power, k_groups=m)
    assert r.n_topics == math.ceil(N / m - 1e-6)
    n = np.arange(3, 300)
    ours = design.power_closed_form("anova", n, variance=variance, min_diff=min_diff, alpha=alpha, systems=m)
    np.testing.assert_allclose(ours, FTestAnovaPower().power(f, n * m, alpha, k_groups=m), rtol=0, atol=1e-10)


def test_ci_width_size_gives_that_expected_width_by_simulation():
    variance, delta, alpha = 0.01, 0.05, 0.05
    n = design._sizes._topic_set_size(variance, "ci-width", min_diff=delta, alpha=alpha).n_topics
    rng = np.random.default_rng(5)
    for k, below in ((n, True), (n - 1, False)):
        d = rng.normal(0, math.sqrt(2 * variance), (20000, k))
        width = 2 * stats.t.isf(alpha / 2, k - 1) * d.std(axis=1, ddof=1) / math.sqrt(k)
        se = width.std() / math.sqrt(len(width))
        # the expected width at n is at most delta, at n - 1 above it (within Monte Carlo error)
        assert (width.mean() <= delta + 3 * se) if below else (width.mean() > delta - 3 * se)
        # and the closed form's expected width (E[s] = c* sigma) is the simulated mean width
        assert design._sizes._ci_width(k, variance, alpha) == pytest.approx(width.mean(), abs=3 * se)


def test_interval_is_the_percentile_interval_of_the_size_over_bootstrap_samples():
    x = pilot(6, 40, seed=7)
    B = 100  # the fewest samples an interval takes (design.check_design)
    r = design._sizes._topic_set_size(x, "paired-t", min_diff=0.05, B=B, level=0.9, seed=3)
    assert r.low <= r.n_topics <= r.high and r.variance_low <= r.variance <= r.variance_high
    idx = sig._samples.bootstrap_samples(x.shape[1], B, seed=3)  # the same draws
    sizes = [
        design._sizes._topic_set_size(sig.residual_variance(x[:, i]), "paired-t", min_diff=0.05).n_topics
        for i in idx
    ]
    assert (r.low, r.high) == tuple(np.quantile(sizes, [0.05, 0.95], method="inverted_cdf"))
    again = design._sizes._topic_set_size(x, "paired-t", min_diff=0.05, B=B, level=0.9, seed=3)
    assert again == r
    table = design.topic_set_sizes(x, min_diff=0.05, B=B, level=0.9, seed=3, systems=4)
    assert table["method"].tolist() == list(design.METHODS.values())
    assert table.loc[0, ["topics", "low", "high"]].tolist() == [r.n_topics, r.low, r.high]
    methods = list(design.METHODS)  # a method, or a list of them, gives those rows of the whole table
    one = design.topic_set_sizes(x, methods[2], min_diff=0.05, B=B, level=0.9, seed=3, systems=4)
    two = design.topic_set_sizes(x, methods[2::-2], min_diff=0.05, B=B, level=0.9, seed=3, systems=4)
    pd.testing.assert_frame_equal(one, table.iloc[[2]].reset_index(drop=True))
    pd.testing.assert_frame_equal(two, table.iloc[[2, 0]].reset_index(drop=True))


def gaussian(sd_diff: float, delta: float):
    def sample(family, n, trials, rng):
        b = rng.normal(0.5, 0.1, (trials, 1, n))
        return np.concatenate([b, b + rng.normal(delta, sd_diff, (trials, 1, n))], axis=1)

    return sample


def test_simulated_t_power_is_the_noncentral_t_power_on_gaussian_data():
    from statsmodels.stats.power import TTestPower

    sd, delta, sizes = 0.1, 0.05, [8, 20, 35]
    c = power_curve(gaussian(sd, delta), sizes, families=10, trials=1500, seed=11)
    expected = TTestPower().power(delta / sd, np.array(sizes), 0.05, alternative="two-sided")
    assert np.all(c.se > 0)
    assert np.all(np.abs(c.power - expected) <= 3 * c.se), (c.power, expected, c.se)


def test_simulated_power_is_seeded_and_the_same_for_any_number_of_workers():
    x = pilot(8, 30, seed=2)
    kw = dict(min_diff=0.08, n_topics=[10, 25], trials=60, families=6, seed=5)
    one = design.simulated_power(x, **kw, n_jobs=1)
    two = design.simulated_power(x, **kw, n_jobs=2)
    np.testing.assert_array_equal(one.power, two.power)
    np.testing.assert_array_equal(one.se, two.se)
    assert one.power[1] >= one.power[0] - 3 * one.se[1]
    # a resampling test with a correction across m = 3 systems goes through the same path
    perm = design.simulated_power(x, test="permutation", systems=3, correction="holm", B=100,
                                  **{**kw, "trials": 20}, n_jobs=2)  # fmt: skip
    assert perm.systems == 3 and perm.correction == "holm" and np.all((0 <= perm.power) & (perm.power <= 1))
    assert 10 <= one.topics_needed(one.power[0]) <= 25


def test_d_study_at_the_pilots_size_is_the_direct_estimate():
    x = pilot(8, 30, seed=6, system_sd=0.08)
    a = design.two_way_anova(x)
    ms = statsmodels_anova(x)["mean_sq"].to_numpy()
    d = design.d_study(a, [30, 60])
    assert d.erho2[0] == pytest.approx(1 - ms[2] / ms[0], abs=1e-10)
    assert d.erho2[1] > d.erho2[0] and np.all(d.phi <= d.erho2)
    for coefficient, values in (("Erho2", "erho2"), ("Phi", "phi")):
        n = int(design.topics_needed(a, 0.9, level=None).loc[coefficient, "n"])
        got = getattr(design.d_study(a, [n - 1, n]), values)
        assert got[0] < 0.9 <= got[1] + 1e-12


def test_tukey_table_classical_is_the_studentized_range_of_the_two_way_design():
    x = pilot(5, 30, seed=3)
    a = design.two_way_anova(x)
    t = design.tukey_table(x, B=300, seed=2)
    q = np.abs(t["difference"]) / np.sqrt(a.sigma2_residual / 30)
    np.testing.assert_allclose(t["p_classical"], stats.studentized_range.sf(q, 5, a.table.loc["residual", "df"]),
                               atol=1e-10)  # fmt: skip
    np.testing.assert_allclose(
        t["difference"], x[t.system_1.astype(int)].mean(1) - x[t.system_2.astype(int)].mean(1)
    )
    pairs = t[["system_1", "system_2"]].astype(int).to_numpy()
    assert t["p_randomised"].tolist() == sig.tukey_hsd(x, pairs, B=300, seed=2).p_adjusted.tolist()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: design.two_way_anova(np.ones((1, 5))), "at least 2 systems and 2 topics"),
        (lambda: design.two_way_anova(np.ones((4, 1))), "at least 2 systems and 2 topics"),
        (lambda: design.two_way_anova(np.full((3, 4), 0.3)), "no residual variance"),
        (lambda: design.two_way_anova(np.add.outer([0.1, 0.2], [0.0, 0.3, 0.5])), "no residual variance"),
        (lambda: design._sizes._topic_set_size(pilot(), min_diff=0), "min_diff must be > 0"),
        (lambda: design._sizes._topic_set_size(pilot(), min_diff=-0.1), "min_diff must be > 0"),
        (
            lambda: design._sizes._topic_set_size(pilot(), min_diff=0.05, power=1.0),
            r"power must be in \(0, 1\)",
        ),
        (
            lambda: design._sizes._topic_set_size(pilot(), min_diff=0.05, power=0),
            r"power must be in \(0, 1\)",
        ),
        (
            lambda: design._sizes._topic_set_size(pilot(), min_diff=0.05, alpha=1.5),
            r"alpha must be in \(0, 1\)",
        ),
        (lambda: design._sizes._topic_set_size(pilot(), "z", min_diff=0.05), "method must be one of"),
        (lambda: design._sizes._topic_set_size(0.0, min_diff=0.05), "pilot variance must be a positive"),
        (lambda: design.simulated_power(pilot(), min_diff=0, seed=1), "min_diff must be > 0"),
        (lambda: design.simulated_power(np.ones((1, 9)), min_diff=0.1, seed=1), "at least 2 systems"),
        (
            lambda: design.topics_needed(design.two_way_anova(pilot()), 1.2),
            r"target must be in \(0, 1\)",
        ),
        (lambda: design.d_study(design.two_way_anova(pilot()), [0]), "n_topics must be whole numbers"),
    ],
)
def test_bad_input_is_a_clear_input_error(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_results_are_frozen_dataclasses():
    r = design._sizes._topic_set_size(0.01, min_diff=0.05)
    with pytest.raises(AttributeError):
        r.n_topics = 3  # type: ignore[misc]
    assert isinstance(design.d_study(design.two_way_anova(pilot()), [10]).to_frame(), pd.DataFrame)


def test_paired_t_power_holds_for_a_large_difference():
    """At a large noncentrality scipy's noncentral t cdf is NaN in the lower tail: the power was NaN
    at most sizes and a difference of 0.5 in AP (V_E 0.0059) "needed" 52 topics. The power against
    a numerical integration over the chi-square of the sample variance; the size, the first n
    where it reaches 0.8."""
    from scipy import integrate

    def power(n, d, v):  # P(|Z + nc| > c * sqrt(V / df)), V ~ chi2(df)
        df, nc, c = n - 1, d / math.sqrt(2 * v) * math.sqrt(n), stats.t.isf(0.025, n - 1)

        def f(u):
            s = c * math.sqrt(u / df)
            return (stats.norm.sf(s - nc) + stats.norm.cdf(-s - nc)) * stats.chi2.pdf(u, df)

        return integrate.quad(f, 0, np.inf, limit=200)[0]

    n = np.arange(2, 60)
    got = design.power_closed_form("paired-t", n, variance=0.0059, min_diff=0.5)
    want = np.array([power(k, 0.5, 0.0059) for k in n])
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert design._sizes._topic_set_size(0.0059, min_diff=0.5).n_topics == int(n[np.argmax(want >= 0.8)]) == 3


# Brennan (2001), Table 6.1's synthetic data set No. 4 (10 persons x 12 items), as gt4ireval
# distributes it (``synthetic4``): rows systems (persons), columns topics (items).
BRENNAN_4 = np.array(
    [
        [5, 6, 5, 5, 5, 3, 4, 5, 6, 7, 3, 3],
        [9, 3, 7, 7, 7, 5, 5, 5, 7, 7, 5, 2],
        [3, 4, 3, 3, 5, 3, 3, 5, 6, 5, 1, 6],
        [7, 5, 5, 3, 3, 1, 4, 3, 5, 3, 3, 5],
        [9, 2, 9, 7, 7, 7, 3, 7, 2, 7, 5, 3],
        [3, 4, 3, 5, 3, 3, 6, 3, 4, 5, 1, 2],
        [7, 3, 7, 7, 7, 5, 5, 7, 5, 5, 5, 4],
        [5, 8, 5, 7, 7, 5, 5, 4, 3, 2, 1, 1],
        [9, 9, 8, 8, 6, 6, 6, 5, 5, 8, 1, 1],
        [4, 4, 4, 3, 3, 5, 6, 5, 5, 7, 1, 1],
    ],
    dtype=float,
)


def test_d_study_intervals_are_brennans_table_6_5():
    """Brennan (2001): Table 6.2's G-study and Table 6.5's 80% intervals (gt4ireval's tests)."""
    a = design.two_way_anova(BRENNAN_4)
    assert a.components.round(4).tolist() == [0.6258, 0.8840, 2.7872]
    d = design.d_study(a, [12], level=0.8)
    got = [d.erho2, d.erho2_low, d.erho2_high, d.phi, d.phi_low, d.phi_high]
    np.testing.assert_allclose(
        [float(v[0]) for v in got], [0.729, 0.541, 0.876, 0.672, 0.457, 0.845], atol=5e-4
    )


def test_d_study_and_topics_needed_are_gt4irevals_on_trec3(real_matrix):
    """gt4ireval's README: TREC-3 ad hoc AP after dropping the worst 25% of systems, 95% intervals."""
    x = np.asarray(real_matrix("trec3", "AP").scores)
    a = design.two_way_anova(design.drop_worst(x, 0.25))
    assert a.n_systems == 30 and a.table["mean_sq"].round(5).tolist() == [0.15074, 0.85296, 0.01015]
    got = design.d_study(a, [50, 100, 150]).to_frame().drop(columns="n_topics").round(5).values.tolist()
    assert got == [
        [0.93265, 0.89311, 0.96287, 0.78613, 0.66141, 0.88039],
        [0.96515, 0.94354, 0.98109, 0.88026, 0.79621, 0.93639],
        [0.97649, 0.96164, 0.98731, 0.91686, 0.85423, 0.95668],
    ]
    need = design.topics_needed(a, 0.95)
    assert need.loc["Erho2", ["n", "low", "high"]].tolist() == [69, 37, 114]
    assert need.loc["Phi", ["n", "low", "high"]].tolist() == [259, 130, 487]


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_d_study_intervals_cover_a_known_variance_component_model(level):
    """Normal system, topic and residual effects of known variance: E rho^2's interval (Feldt, exact)
    covers the truth at its level within Monte Carlo error; Phi's (Arteaga et al., approximate)
    at least at its level and at most 2 points above; the topics-needed interval covers the truth
    as often as E rho^2's."""
    rng = np.random.default_rng(11)
    S, T, R, (v_s, v_t, v_e) = 20, 30, 1500, (0.002, 0.02, 0.01)
    r, p1 = v_s / v_e, v_s / (v_s + v_t + v_e)
    n_true = 0.95 / (r * 0.05)
    hits = np.zeros(3)
    for _ in range(R):
        x = (rng.normal(0, v_s**0.5, (S, 1)) + rng.normal(0, v_t**0.5, (1, T))
             + rng.normal(0, v_e**0.5, (S, T)))  # fmt: skip
        a = design.two_way_anova(x)
        d = design.d_study(a, [100], level=level)
        need = design.topics_needed(a, 0.95, level=level)
        hits += [
            d.erho2_low[0] <= 100 * r / (1 + 100 * r) <= d.erho2_high[0],
            d.phi_low[0] <= 100 * p1 / (1 + 99 * p1) <= d.phi_high[0],
            need.loc["Erho2", "low"] - 1 < n_true <= need.loc["Erho2", "high"],
        ]
    cover, se = hits / R, (level * (1 - level) / R) ** 0.5
    assert abs(cover[0] - level) <= 3 * se, cover
    assert level - 3 * se <= cover[1] <= level + 0.02 + 3 * se, cover
    assert abs(cover[2] - level) <= 3 * se, cover


def test_topics_needed_is_infinite_when_the_interval_reaches_zero():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 0.1, (4, 6))  # no system effect: a pilot whose F is just above 1
    while not 1 < design.two_way_anova(x).table.loc["system", "F"] < 1.5:
        x = rng.normal(0, 0.1, (4, 6))
    need = design.topics_needed(design.two_way_anova(x), 0.95)
    assert np.isinf(need.loc["Erho2", "high"]) and need.loc["Erho2", "low"] >= 1
    with pytest.raises(InputError, match="level"):
        design.d_study(design.two_way_anova(x), [5], level=1.5)


def test_expected_correlation_is_urbano_et_als_fit_as_gt4ireval_prints_it():
    """gt4ireval's README: gt2tauAP(c(0.93, 0.95, 0.98)) prints 0.7487836 0.8150692 0.9226192."""
    got = design.expected_correlation([0.93, 0.95, 0.98], "tau_AP")
    np.testing.assert_allclose(got, [0.7487836, 0.8150692, 0.9226192], atol=5e-8)
    assert design.expected_correlation(0.95) < 0.95 and design.expected_correlation(1.0) == 1.0
    with pytest.raises(InputError, match="E rho"):
        design.expected_correlation(0.0)


def test_drop_worst_keeps_what_gt4irevals_drop_keeps():
    """gt4ireval's tests on Brennan's data: drop 0.3 keeps 7 systems, drop 0.2 keeps 9 (the 2nd and
    3rd worst are tied)."""
    assert design.drop_worst(BRENNAN_4, 0.3).shape == (7, 12)
    assert design.drop_worst(BRENNAN_4, 0.2).shape == (9, 12)
    assert design.drop_worst(BRENNAN_4, 0.0).shape == (10, 12)
    with pytest.raises(InputError, match="at least 2"):
        design.drop_worst(BRENNAN_4[:3], 0.9)


# Examples of the names outside the API (their docstrings are one line), as tests.


def test_power_curve_example():
    def gauss(family, n, trials, rng):  # two systems, differences N(0.05, 0.1^2)
        b = rng.normal(0.5, 0.1, (trials, 1, n))
        return np.concatenate([b, b + rng.normal(0.05, 0.1, (trials, 1, n))], axis=1)

    c = power_curve(gauss, [10, 40], families=4, trials=200, seed=1)
    assert c.power[1] > c.power[0]


def test_pair_power_example():
    x = np.random.default_rng(1).normal(0.3, 0.1, (6, 40))
    assert 0 < design.rows.pair_power(x, 30, min_diff=0.05, alpha=0.05) < 1
