"""Tests of irrepro.stats, each against an independent reference: scipy (BCa, Kendall's tau,
logit), statsmodels (meta-analysis, multiple testing) and literal formulas written out here."""

import numpy as np
import pytest
from scipy import special, stats

from irrepro import stats as st

SEED = 20060806


def test_constants_and_logit():
    assert st.Z95 == pytest.approx(stats.norm.ppf(0.975), rel=0, abs=0)
    p = np.array([0.0, 1e-4, 0.2, 0.5, 0.9, 1.0])
    clipped = np.clip(p, st.EPS, 1 - st.EPS)
    np.testing.assert_allclose(st.logit(p), special.logit(clipped), rtol=1e-14)
    np.testing.assert_allclose(st.logit(p, 0.1), special.logit(np.clip(p, 0.1, 0.9)), rtol=1e-14)
    np.testing.assert_allclose(st.expit(st.logit(p[1:-1], 1e-6)), p[1:-1], rtol=1e-12)


def test_bootstrap_sd_ignores_undefined_samples():
    rng = np.random.default_rng(SEED)
    x = rng.normal(size=(3, 4, 50))
    x[0, 0, :7] = np.nan
    x[1, 2, :49] = np.nan  # one valid replicate: no sd
    got = st.bootstrap_sd(x)
    np.testing.assert_allclose(got[0, 0], np.nanstd(x[0, 0], ddof=1), rtol=1e-13)
    np.testing.assert_allclose(got[2], x[2].std(axis=-1, ddof=1), rtol=1e-13)
    assert np.isnan(got[1, 2]) and got.shape == (3, 4)


# ---------------------------------------------------------------- BCa against scipy


@pytest.mark.parametrize("dist", ["normal", "skewed"])
def test_bca_interval_equals_scipy_on_the_same_replicates(dist):
    rng = np.random.default_rng(SEED)
    x = rng.normal(size=25) if dist == "normal" else rng.exponential(size=25) ** 2
    res = stats.bootstrap(
        (x,), np.mean, n_resamples=3000, method="BCa", random_state=np.random.default_rng(3)
    )
    jack = np.array([np.delete(x, i).mean() for i in range(len(x))])
    lo, hi = st.bca_interval(x.mean(), res.bootstrap_distribution, jackknife=jack)
    assert lo == pytest.approx(res.confidence_interval.low, rel=1e-12, abs=1e-12)
    assert hi == pytest.approx(res.confidence_interval.high, rel=1e-12, abs=1e-12)
    res90 = stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=3000,
        method="BCa",
        confidence_level=0.9,
        random_state=np.random.default_rng(3),
    )
    lo90, hi90 = st.bca_interval(x.mean(), res90.bootstrap_distribution, jackknife=jack, level=0.9)
    assert (lo90, hi90) == pytest.approx(
        (res90.confidence_interval.low, res90.confidence_interval.high), rel=1e-12
    )


def test_bca_is_vectorised_and_handles_nan_replicates():
    rng = np.random.default_rng(SEED)
    xs = rng.exponential(size=(4, 20))
    reps = np.stack([rng.choice(x, (500, 20)).mean(-1) for x in xs])
    jack = np.stack([[np.delete(x, i).mean() for i in range(20)] for x in xs])
    lo, hi = st.bca_interval(xs.mean(-1), reps, jackknife=jack)
    for i in range(4):
        l1, h1 = st.bca_interval(xs[i].mean(), reps[i], jackknife=jack[i])
        assert (lo[i], hi[i]) == (l1, h1)
    with_nan = np.concatenate([reps[0], [np.nan] * 30])
    assert st.bca_interval(xs[0].mean(), with_nan, jackknife=jack[0]) == pytest.approx((lo[0], hi[0]))


def test_jackknife_acceleration_is_efrons_formula():
    rng = np.random.default_rng(SEED)
    v = rng.exponential(size=12)
    u = v.mean() - v
    assert st.jackknife_acceleration(v) == pytest.approx((u**3).sum() / (6 * (u**2).sum() ** 1.5))
    w = rng.integers(1, 4, size=12).astype(float)  # multiplicities = the values repeated
    rep = np.repeat(v, w.astype(int))
    assert st.jackknife_acceleration(v, w) == pytest.approx(st.jackknife_acceleration(rep))
    assert st.jackknife_acceleration(np.ones(5)) == 0.0


# ---------------------------------------------------------------- Kendall's tau against scipy


def test_kendall_tau_against_scipy_with_ties_and_batches():
    rng = np.random.default_rng(16)
    x = rng.integers(0, 6, size=(8, 30)).astype(float)
    y = rng.integers(0, 8, size=30).astype(float)
    np.testing.assert_allclose(st.kendall_tau(x, y), [stats.kendalltau(r, y)[0] for r in x])
    y2 = rng.integers(0, 8, size=(8, 30)).astype(float)  # one reference ranking per row
    np.testing.assert_allclose(st.kendall_tau(x, y2), [stats.kendalltau(a, b)[0] for a, b in zip(x, y2)])
    assert np.isnan(st.kendall_tau(np.ones(5), np.arange(5.0)))


# ---------------------------------------------------------------- meta-analysis


def _literal_meta(d, s):
    """Fixed effect and DerSimonian-Laird written out (Borenstein et al. 2009, ch. 11-12)."""
    w = [1 / si**2 for si in s]
    fixed = sum(wi * di for wi, di in zip(w, d)) / sum(w)
    q = sum(wi * (di - fixed) ** 2 for wi, di in zip(w, d))
    c = sum(w) - sum(wi**2 for wi in w) / sum(w)
    tau2 = max(0.0, (q - (len(d) - 1)) / c)
    ws = [1 / (si**2 + tau2) for si in s]
    re = sum(wi * di for wi, di in zip(ws, d)) / sum(ws)
    return fixed, sum(w) ** -0.5, q, tau2, re, sum(ws) ** -0.5


def test_meta_analysis_equals_statsmodels_and_the_formulas():
    from statsmodels.stats.meta_analysis import combine_effects

    rng = np.random.default_rng(SEED)
    d = rng.normal(0.3, 0.4, 30)
    s = rng.uniform(0.1, 0.5, 30)
    res = combine_effects(d, s**2, method_re="dl")
    fe, re = st.meta_analysis(d, s, "fixed"), st.meta_analysis(d, s, "dl")
    assert fe.effect == pytest.approx(res.mean_effect_fe, rel=1e-12) and fe.se == pytest.approx(
        res.sd_eff_w_fe, rel=1e-12
    )
    assert re.effect == pytest.approx(res.mean_effect_re, rel=1e-12) and re.se == pytest.approx(
        res.sd_eff_w_re, rel=1e-12
    )
    assert re.tau2 == pytest.approx(res.tau2, rel=1e-12) and fe.q == pytest.approx(res.q, rel=1e-12)
    ci_fe, ci_re = res.conf_int(alpha=0.05, use_t=False)[:2]
    assert (fe.lower, fe.upper) == pytest.approx(tuple(ci_fe), rel=1e-12)
    assert (re.lower, re.upper) == pytest.approx(tuple(ci_re), rel=1e-12)
    fixed, se, q, tau2, rand, se_re = _literal_meta(d, s)
    assert (fe.effect, fe.se, fe.q, re.tau2, re.effect, re.se) == pytest.approx(
        (fixed, se, q, tau2, rand, se_re), rel=1e-10
    )
    assert fe.p_one_sided == pytest.approx(stats.norm.sf((d / s).sum() / np.sqrt(30)))
    assert re.p_one_sided == pytest.approx(stats.norm.sf(re.effect / re.se))
    assert fe.k == re.k == 30
    # zero-sd and non-finite topics are left out
    assert st.meta_analysis(np.r_[d, 5.0, np.nan], np.r_[s, 0.0, 0.2]).k == 30
    with pytest.raises(ValueError, match="model"):
        st.meta_analysis([1.0], [1.0], model="bayes")
    with pytest.raises(ValueError, match="no topic"):
        st.meta_analysis([np.nan], [1.0])


def test_dersimonian_laird_truncates_tau2_at_zero():
    from statsmodels.stats.meta_analysis import combine_effects

    d = np.array([0.30, 0.31, 0.29, 0.30])  # far less spread than the standard errors allow
    s = np.array([0.2, 0.3, 0.25, 0.2])
    with np.errstate(invalid="ignore"):
        assert combine_effects(d, s**2, method_re="dl").tau2 < 0  # statsmodels does not truncate
    fe, re = st.meta_analysis(d, s, "fixed"), st.meta_analysis(d, s, "dl")
    assert re.tau2 == 0.0 and (re.effect, re.se) == (fe.effect, fe.se)
    fixed, se, q, tau2, rand, se_re = _literal_meta(d, s)
    assert tau2 == 0 and re.effect == pytest.approx(rand) and re.se == pytest.approx(se_re)
    one = st.meta_analysis([0.4], [0.1], "dl")  # one topic: nothing to estimate tau^2 from
    assert (one.effect, one.se, one.tau2, one.k) == pytest.approx((0.4, 0.1, 0.0, 1))


# ---------------------------------------------------------------- multiple testing


def test_adjust_pvalues_holm_and_bh_by_hand():
    rng = np.random.default_rng(SEED)
    p = rng.uniform(0, 0.2, 12)
    m = len(p)
    order = np.argsort(p)
    holm = np.empty(m)
    run = 0.0
    for rank, i in enumerate(order):  # step-down: max over earlier (m - k) p_(k), capped at 1
        run = max(run, min(1.0, (m - rank) * p[i]))
        holm[i] = run
    bh = np.empty(m)
    run = 1.0
    for rank in range(m - 1, -1, -1):  # step-up: min over later m p_(k) / k
        i = order[rank]
        run = min(run, m * p[i] / (rank + 1))
        bh[i] = run
    np.testing.assert_allclose(st.adjust_pvalues(p, "holm"), holm, rtol=1e-12)
    np.testing.assert_allclose(st.adjust_pvalues(p, "fdr_bh"), bh, rtol=1e-12)
    np.testing.assert_array_equal(st.adjust_pvalues(p, None), p)


def test_holm_and_bh_are_statsmodels_multipletests_to_the_bit_row_by_row():
    """adjust_pvalues' own Holm and BH (statsmodels runs gc.collect() on every call) equal
    multipletests exactly, ties, ones and single p-values included; a 2-d array is one family per row."""
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(SEED)
    cases = [rng.uniform(0, 1, n) for n in (1, 2, 7, 50)]
    cases += [np.array([0.01, 0.01, 0.03, 0.5, 0.5, 1.0]), rng.choice([0.001, 0.02, 0.2], 30)]
    rows = rng.choice([0.0005, 0.004, 0.01, 0.03, 0.2, 1.0], size=(40, 6))
    for method in ("holm", "fdr_bh", "bonferroni"):
        for p in cases:
            np.testing.assert_array_equal(st.adjust_pvalues(p, method), multipletests(p, method=method)[1])
        got = st.adjust_pvalues(rows.reshape(4, 10, 6), method).reshape(40, 6)
        np.testing.assert_array_equal(got, [multipletests(r, method=method)[1] for r in rows])


def test_adjust_pvalues_counts_a_missing_p_as_1_and_keeps_it_missing():
    from statsmodels.stats.multitest import multipletests

    p = np.array([0.01, np.nan, 0.04, 0.2])
    for method in ("holm", "fdr_bh"):
        got = st.adjust_pvalues(p, method)
        ref = multipletests([0.01, 1.0, 0.04, 0.2], method=method)[1]
        assert np.isnan(got[1])
        np.testing.assert_allclose(got[[0, 2, 3]], ref[[0, 2, 3]])


def test_bootstrap_sd_by_blocks_of_rows_equals_one_pass(monkeypatch):
    """bootstrap_sd works on a block of rows at a time (memory), ``transform`` applied per block:
    the numbers of one pass over all the replicates, bit for bit."""
    rng = np.random.default_rng(4)
    x = rng.random((9, 11, 200))
    x[rng.random(x.shape) < 0.1] = np.nan
    x[0, 0, 1:] = np.nan  # one valid replicate: NaN
    whole, whole_t = st.bootstrap_sd(x), st.bootstrap_sd(st.logit(x))
    monkeypatch.setattr("irrepro.stats._BLOCK_CELLS", 7 * 200)  # blocks of 7 rows, the last shorter
    np.testing.assert_array_equal(st.bootstrap_sd(x), whole)
    np.testing.assert_array_equal(st.bootstrap_sd(x, transform=st.logit), whole_t)
    assert np.isnan(whole[0, 0]) and whole.shape == (9, 11)
