"""Tests of irrepro.sensitivity against literal implementations of Sakai's (2006) algorithms
(plain per-pair / per-sample loops), scipy (paired t-test, Kendall's tau) and simulations where
the truth is known (null data, known effects, known means)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irrepro import measures, parallel
from irrepro import sensitivity as bt
from irrepro import significance as sg
from irrepro.data import ScoreMatrix
from irrepro.errors import InputError
from irrepro.sensitivity.study import _tau_threshold, swap_rates
from irrepro.significance._samples import bootstrap_summaries, log_scores


def _t(v):
    sd = v.std(ddof=1)
    return 0.0 if sd == 0 and v.mean() == 0 else v.mean() / (sd / np.sqrt(len(v)))


# ---- literal references: Figures 1-6, 9 and 11 written as plain loops -------------------------


def ref_paired(x, y, samples):
    z = x - y
    tz = _t(z)
    w = z - z.mean()
    wbar, tw = [], []
    for idx in samples:
        ws = w[idx]
        wbar.append(ws.mean())
        tw.append(_t(ws))
    tw = np.array(tw)
    return np.mean(np.abs(tw) >= abs(tz)), np.array(wbar), tw


def ref_unpaired(x, y, samples, M):
    n = len(x)
    v = np.concatenate([x, y])
    d = M(x) - M(y)
    ds = np.array([M(v[idx[:n]]) - M(v[idx[n:]]) for idx in samples])
    return np.mean(np.abs(ds) >= abs(d)), ds


def ref_required_paired(wbar_by_pair, t_by_pair, alpha):
    k = int(round(len(wbar_by_pair[0]) * alpha))
    diffs = []
    for wbar, tw in zip(wbar_by_pair, t_by_pair):
        order = sorted(range(len(tw)), key=lambda b: -abs(tw[b]))
        diffs.append(abs(wbar[order[k - 1]]))
    return float(f"{max(diffs):.2g}")


@pytest.fixture
def small():
    rng = np.random.default_rng(11)
    return rng.beta(2, 5, size=(6, 15)) + np.linspace(0, 0.1, 6)[:, None]


def test_paired_equals_literal_algorithm(small):
    samples = bt.bootstrap_samples(small.shape[1], 200, seed=3)
    r = sg.paired_bootstrap_test(small, samples=samples)
    assert len(r.pairs) == 15 and r.B == 200
    for k, (i, j) in enumerate(r.pairs):
        asl, wbar, tw = ref_paired(small[i], small[j], samples)
        assert r.p[k] == asl
        np.testing.assert_allclose(r.replicates[k], wbar, atol=1e-12)
        np.testing.assert_allclose(r.replicate_statistic[k], tw, rtol=1e-9, atol=1e-9)
        assert r.difference[k] == pytest.approx((small[i] - small[j]).mean())
        assert r.statistic[k] == pytest.approx(stats.ttest_rel(small[i], small[j]).statistic)


@pytest.mark.parametrize(
    "summary, M",
    [
        ("mean", np.mean),
        ("gmean", lambda a: np.exp(np.mean(np.log(a + 1e-5)))),
        (lambda a: np.median(a, axis=-1), np.median),
    ],
)
def test_unpaired_equals_literal_algorithm(small, summary, M):
    small = small.copy()
    small[0, :3] = 0.0  # zeros: the geometric mean's epsilon matters
    samples = bt.bootstrap_samples(2 * small.shape[1], 150, seed=4)
    r = sg.unpaired_bootstrap_test(small, samples=samples, summary=summary)
    for k, (i, j) in enumerate(r.pairs):
        asl, ds = ref_unpaired(small[i], small[j], samples, M)
        assert r.p[k] == asl
        np.testing.assert_allclose(r.replicates[k], ds, atol=1e-12)
        assert r.difference[k] == pytest.approx(M(small[i]) - M(small[j]))


def test_gmean_summary_is_measures_aggregate(small):
    r = sg.unpaired_bootstrap_test(small, B=50, seed=1, summary="gmean")
    g = measures.aggregate(small, "G")
    np.testing.assert_allclose(r.difference, g[r.pairs[:, 0]] - g[r.pairs[:, 1]])
    s = bt.bootstrap_samples(small.shape[1], 20, seed=2)
    np.testing.assert_allclose(
        bootstrap_summaries(small, s, summary="gmean"),
        np.stack([measures.aggregate(small[:, row], "G") for row in s], axis=1),
    )
    np.testing.assert_allclose(
        bootstrap_summaries(small, s), np.stack([small[:, row].mean(axis=1) for row in s], axis=1)
    )


def test_log_scores_is_the_log_of_x_plus_sakais_epsilon():
    x = np.array([[1.0, 0.5, 0.0]])
    np.testing.assert_array_equal(log_scores(x), np.log(x + 0.00001))
    with pytest.raises(InputError, match="x [+] eps > 0"):
        log_scores(np.array([[-1.0, 0.5]]))


def test_required_difference_figures_5_and_6(small):
    samples = bt.bootstrap_samples(small.shape[1], 200, seed=5)
    r = sg.paired_bootstrap_test(small, samples=samples)
    wbars, ts = zip(*[ref_paired(small[i], small[j], samples)[1:] for i, j in r.pairs])
    assert r.required_difference(0.05) == ref_required_paired(wbars, ts, 0.05)
    u = sg.unpaired_bootstrap_test(small, seed=6, B=200)
    k = 10  # 200 * 0.05
    per_pair = [np.sort(np.abs(d))[::-1][k - 1] for d in u.replicates]
    assert u.required_difference(0.05) == float(f"{max(per_pair):.2g}")
    np.testing.assert_allclose(u.required_difference(0.05, per_pair=True), per_pair)


def test_asl_agrees_with_paired_t_test_large_n():
    # Large n, normal differences: the studentised bootstrap ASL approximates the t-test p-value.
    rng = np.random.default_rng(7)
    n, S = 300, 8
    x = rng.normal(0, 1, size=(S, n)) + rng.normal(0, 0.12, size=(S, 1))
    r = sg.paired_bootstrap_test(x, B=4000, seed=8)
    p = np.array([stats.ttest_rel(x[i], x[j]).pvalue for i, j in r.pairs])
    assert np.max(np.abs(r.p - p)) < 0.03
    assert np.corrcoef(r.p, p)[0, 1] > 0.995


def _independent_pairs(rng, n_pairs, n, delta=0.0, sd=1.0, topic_sd=1.0):
    x = np.empty((2 * n_pairs, n))
    topic = rng.normal(0, topic_sd, size=(n_pairs, n))  # shared topic effect: the data are paired
    x[0::2] = topic + rng.normal(delta, sd, size=(n_pairs, n))
    x[1::2] = topic + rng.normal(0, sd, size=(n_pairs, n))
    pairs = np.stack([np.arange(0, 2 * n_pairs, 2), np.arange(1, 2 * n_pairs, 2)], axis=1)
    return x, pairs


def test_type_one_error_simulated_null():
    rng = np.random.default_rng(9)
    x, pairs = _independent_pairs(rng, 1000, 30)
    paired = sg.paired_bootstrap_test(x, pairs, B=500, seed=10)
    # unpaired null (F = G): both systems draw from one distribution without a shared topic effect
    y = rng.gamma(2.0, 0.1, size=(2000, 30))
    unpaired = sg.unpaired_bootstrap_test(y, pairs, B=500, seed=11)
    unpaired_g = sg.unpaired_bootstrap_test(y, pairs, B=500, seed=11, summary="gmean")
    for r in (paired, unpaired, unpaired_g):
        rate = np.mean(r.p < 0.05)
        # binomial 99.9% band around 0.05 for 1000 pairs is about [0.029, 0.075]
        assert 0.029 <= rate <= 0.075, (r.test, rate)


def test_type_one_error_shuffled_real_pairs(real_matrix):
    # Real TREC Web 2012 AP; within each pair, swap x_t and y_t at random per topic (paired null)
    # or shuffle the pooled 2n values (unpaired null F = G).
    m = real_matrix("web2012", "AP").scores
    rng = np.random.default_rng(12)
    pairs = bt.all_pairs(m.shape[0])
    flip = rng.random((len(pairs), m.shape[1])) < 0.5
    a, b = m[pairs[:, 0]], m[pairs[:, 1]]
    xs = np.concatenate([np.where(flip, b, a), np.where(flip, a, b)])
    p2 = np.stack([np.arange(len(pairs)), np.arange(len(pairs)) + len(pairs)], axis=1)
    paired = sg.paired_bootstrap_test(xs, p2, B=500, seed=13)
    pooled = np.concatenate([a, b], axis=1)
    pooled = np.take_along_axis(
        pooled, rng.permuted(np.tile(np.arange(pooled.shape[1]), (len(pairs), 1)), axis=1), axis=1
    )
    xu = np.concatenate([pooled[:, : m.shape[1]], pooled[:, m.shape[1] :]])
    unpaired = sg.unpaired_bootstrap_test(xu, p2, B=500, seed=14)
    for r in (paired, unpaired):
        rate = np.mean(r.p < 0.05)
        assert 0.02 <= rate <= 0.09, (r.test, rate)  # 1128 correlated pairs: a wider band


def test_power_rises_with_effect_size():
    rng = np.random.default_rng(15)
    power_p, power_u, power_pu = [], [], []
    for delta in (0.0, 0.2, 0.4, 0.8):
        x, pairs = _independent_pairs(rng, 300, 30, delta=delta, sd=0.5)
        power_p.append(np.mean(sg.paired_bootstrap_test(x, pairs, B=400, seed=16).p < 0.05))
        power_pu.append(np.mean(sg.unpaired_bootstrap_test(x, pairs, B=400, seed=17).p < 0.05))
        y, _ = _independent_pairs(rng, 300, 30, delta=delta, sd=0.5, topic_sd=0.0)
        power_u.append(np.mean(sg.unpaired_bootstrap_test(y, pairs, B=400, seed=17).p < 0.05))
    assert all(np.diff(power_p) > 0) and power_p[-1] > 0.95
    assert all(np.diff(power_u) > 0) and power_u[-1] > 0.95
    # on paired data (a shared topic effect) the paired test is the more powerful
    assert power_p[1] > power_pu[1] and power_p[2] > power_pu[2]


def test_identical_with_one_and_several_workers(monkeypatch):
    rng = np.random.default_rng(18)
    x = rng.beta(2, 5, size=(20, 25))
    monkeypatch.setattr(sg.bootstrap, "_CHUNK", 17)  # 190 pairs -> 12 tasks
    for fn, kw in [
        (sg.paired_bootstrap_test, {}),
        (sg.unpaired_bootstrap_test, {}),
        (sg.unpaired_bootstrap_test, {"summary": "gmean"}),
    ]:
        a = fn(x, B=300, seed=19, n_jobs=1, **kw)
        b = fn(x, B=300, seed=19, n_jobs=3, **kw)
        np.testing.assert_array_equal(a.p, b.p)
        np.testing.assert_array_equal(a.replicates, b.replicates)
        np.testing.assert_array_equal(a.confidence_interval(), b.confidence_interval())


def test_seeds_reproducible():
    x = np.random.default_rng(20).beta(2, 5, size=(5, 20))
    a, b = sg.paired_bootstrap_test(x, B=200, seed=21), sg.paired_bootstrap_test(x, B=200, seed=21)
    c = sg.paired_bootstrap_test(x, B=200, seed=22)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert not np.array_equal(a.replicates, c.replicates)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    np.testing.assert_array_equal(bt.bootstrap_samples(10, 5, seed=g1), bt.bootstrap_samples(10, 5, seed=g2))
    with pytest.raises(ValueError, match="seed"):
        sg.paired_bootstrap_test(x)


def test_ag_form_is_paired_test_on_logs(small):
    s = bt.bootstrap_samples(small.shape[1], 100, seed=23)
    a = sg.paired_bootstrap_test(
        ScoreMatrix(small, tuple("abcdef"), tuple(range(15)), "AP"), samples=s, log=True
    )
    b = sg.paired_bootstrap_test(np.log(small + 1e-5), samples=s)
    np.testing.assert_array_equal(a.p, b.p)
    assert a.measure == "AG_AP" and a.systems == tuple("abcdef")


def test_stability_equals_literal_figure_9(small):
    s = bt.bootstrap_samples(small.shape[1], 100, seed=24)
    res = bt.stability(small, s, fuzziness=[0.02, 0.1])
    M = np.array([[small[i, idx].mean() for idx in s] for i in range(small.shape[0])])
    for f, mr, pt in zip(res.fuzziness, res.minority_rate, res.prop_ties):
        gt_sum = eq_sum = 0
        pairs = bt.all_pairs(small.shape[0])
        for i, j in pairs:
            gxy = gyx = eq = 0
            for b in range(len(s)):
                if abs(M[i, b] - M[j, b]) < f * max(M[i, b], M[j, b]):
                    eq += 1
                elif M[i, b] > M[j, b]:
                    gxy += 1
                else:
                    gyx += 1
            gt_sum += min(gxy, gyx)
            eq_sum += eq
        assert mr == pytest.approx(gt_sum / (len(s) * len(pairs)))
        assert pt == pytest.approx(eq_sum / (len(s) * len(pairs)))
    assert np.all(np.diff(bt.stability(small, s).prop_ties) >= 0)  # more fuzz, more ties


def test_swap_rates_equal_literal_figure_11(small):
    s1 = bt.bootstrap_samples(small.shape[1], 100, seed=25)
    s2 = bt.bootstrap_samples(small.shape[1], 100, seed=26)
    res = swap_rates(small, s1, s2)
    M1 = np.array([[small[i, idx].mean() for idx in s1] for i in range(6)])
    M2 = np.array([[small[i, idx].mean() for idx in s2] for i in range(6)])
    counter, swaps = np.zeros(21), np.zeros(21)
    for i, j in bt.all_pairs(6):
        for b in range(100):
            d, d2 = M1[i, b] - M1[j, b], M2[i, b] - M2[j, b]
            k = min(int(round(abs(d), 12) // 0.01), 20)
            counter[k] += 1
            swaps[k] += d * d2 < 0
    np.testing.assert_array_equal(res.counts, counter)
    np.testing.assert_array_equal(res.swaps, swaps)
    assert res.max_score == pytest.approx(max(M1.max(), M2.max()))
    first = next(k for k in range(21) if counter[k] > 0 and swaps[k] / counter[k] <= 0.05)
    assert res.abs_diff == pytest.approx(first * 0.01)


def test_kendall_tau_matches_scipy_and_z0():
    rng = np.random.default_rng(27)
    a = rng.beta(2, 5, size=(30, 40))
    b = a + rng.normal(0, 0.05, size=a.shape)
    b[:4] = b[0]  # ties in the second ranking
    s = bt.bootstrap_samples(40, 200, seed=28)
    rc = bt.study.rank_correlation(a, b, s)
    assert rc.tau == pytest.approx(stats.kendalltau(a.mean(1), b.mean(1)).statistic)
    reps = [stats.kendalltau(a[:, idx].mean(1), b[:, idx].mean(1)).statistic for idx in s[:50]]
    np.testing.assert_allclose(rc.replicates[:50], reps)
    assert rc.se_boot == pytest.approx(np.std(rc.replicates, ddof=1))
    # the paper's threshold: with 30 systems tau is significant at 0.01 above about 0.34
    assert 0.32 < _tau_threshold(30, 0.01) < 0.345
    assert rc.z0 == pytest.approx(3 * abs(rc.tau) * np.sqrt(30 * 29) / np.sqrt(2 * 65))


def test_comparisons_ci_coverage_and_adjustment():
    rng = np.random.default_rng(29)
    x, pairs = _independent_pairs(rng, 400, 40, delta=0.3, sd=1.0)
    r = sg.paired_bootstrap_test(x, pairs, B=500, seed=30)
    cover = np.mean((r.confidence_interval()[:, 0] <= 0.3) & (0.3 <= r.confidence_interval()[:, 1]))
    assert 0.90 <= cover <= 0.985, cover  # percentile interval of a mean: close to 95%
    # the unpaired interval resamples x and y independently: check it on independent samples
    y, _ = _independent_pairs(rng, 400, 40, delta=0.3, sd=1.0, topic_sd=0.0)
    u = sg.unpaired_bootstrap_test(y, pairs, B=500, seed=31)
    cover_u = np.mean((u.confidence_interval()[:, 0] <= 0.3) & (0.3 <= u.confidence_interval()[:, 1]))
    assert 0.90 <= cover_u <= 0.985, cover_u
    holm = bt.comparisons(r, correction="holm")
    bh = bt.comparisons(r, correction="fdr_bh")
    raw = np.array([c.p for c in holm])
    assert all(c.p_adjusted >= c.p for c in holm)
    assert all(h.p_adjusted >= b.p_adjusted - 1e-12 for h, b in zip(holm, bh))
    assert sum(c.significant() for c in holm) <= np.sum(raw < 0.05)
    k = 5
    z = x[pairs[k, 0]] - x[pairs[k, 1]]
    assert holm[k].effect_size == pytest.approx(z.mean() / z.std(ddof=1))
    assert holm[k].difference == pytest.approx(z.mean())


def test_bad_input():
    x = np.random.default_rng(0).random((4, 10))
    with pytest.raises(ValueError, match="2-d"):
        sg.paired_bootstrap_test(x[0], seed=1)
    bad = x.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sg.paired_bootstrap_test(bad, seed=1)
    with pytest.raises(ValueError, match="shape"):
        sg.paired_bootstrap_test(x, samples=np.zeros((5, 3), int))
    with pytest.raises(ValueError, match="summary"):
        sg.unpaired_bootstrap_test(x, seed=1, summary="median")
    with pytest.raises(ValueError, match="itself"):
        sg.paired_bootstrap_test(x, [[1, 1]], seed=1)
    with pytest.raises(ValueError, match="reduce"):
        sg.unpaired_bootstrap_test(x, seed=1, summary=lambda a: a)
    with pytest.raises(ValueError, match=">= 0"):
        bt.stability(np.log(x + 1e-5), seed=1)
    with pytest.raises(ValueError, match="differ in shape"):
        bt.measure_study({"a": x, "b": x[:, :5]}, seed=1)


def test_degenerate_pairs():
    x = np.random.default_rng(1).random((3, 12))
    x[1] = x[0]  # identical systems: nothing to detect
    x[2] = x[0] + 0.1  # a constant shift: every topic agrees
    r = sg.paired_bootstrap_test(x, B=100, seed=2)
    assert r.p[0] == 1.0  # pair (0, 1)
    assert r.p[1] == 0.0  # pair (0, 2)


def test_measure_study_equals_individual_calls(small):
    from irrepro import parallel

    other = small**2
    st = bt.measure_study({"A": small, "G_A": (small, "gmean"), "B": other}, B=100, seed=40)
    g_p, g_u, g_2 = parallel.spawn(40, 3)
    sp = bt.bootstrap_samples(small.shape[1], 100, seed=g_p)
    su = bt.bootstrap_samples(2 * small.shape[1], 100, seed=g_u)
    s2 = bt.bootstrap_samples(small.shape[1], 100, seed=g_2)
    np.testing.assert_array_equal(st.paired["G_A"].p, sg.paired_bootstrap_test(small, samples=sp, log=True).p)
    np.testing.assert_array_equal(
        st.unpaired["G_A"].p, sg.unpaired_bootstrap_test(small, samples=su, summary="gmean").p
    )
    assert st.swap["B"].abs_diff == swap_rates(other, sp, s2).abs_diff
    assert st.rank_correlations[("A", "B")].tau == bt.study.rank_correlation(small, other, sp).tau
    t2 = st.table2()
    assert list(t2.columns) == ["measure", "significant", "pairs", "sensitivity %", "required difference"]
    assert t2["sensitivity %"].is_monotonic_decreasing
    assert t2.set_index("measure").loc["AG_A", "significant"] == int((st.paired["G_A"].p < 0.05).sum())
    assert (
        np.isnan(st.matrix().loc["A", "B"])
        and st.matrix().loc["B", "A"] == st.rank_correlations[("A", "B")].tau
    )
    assert st.matrix("se_boot").loc["B", "A"] == st.rank_correlations[("A", "B")].se_boot
    with pytest.raises(InputError, match="'tau' or 'se_boot'"):
        st.matrix("tau_matrix")
    assert st.table3()["sensitivity %"].is_monotonic_decreasing


def test_measure_study_parts_are_the_whole_studys(small):
    """Issue 23: a study of some parts (the tests and the swap method, for cheap replicates at other
    seeds) gives exactly the whole study's numbers for those parts and leaves the others empty."""
    mats = {"A": small, "G_A": (small, "gmean"), "B": small**2}
    whole = bt.measure_study(mats, B=100, seed=41)
    some = bt.measure_study(mats, B=100, seed=41, parts=("paired", "unpaired", "swap"))
    for test in ("bootstrap", "unpaired-bootstrap"):
        pd.testing.assert_frame_equal(some.table2(test), whole.table2(test))
    pd.testing.assert_frame_equal(some.table3(), whole.table3())
    assert some.stability == {} and some.rank_correlations == {}
    with pytest.raises(InputError, match="parts"):
        bt.measure_study(mats, B=100, seed=41, parts=("paired", "ranks"))


def test_rounding_noise_is_no_difference():
    """Issue 12 #8: a difference of 1e-12 on every topic (two tools' rounding of the same scores)
    got ASL 0 because zero variance was judged against the size of the difference. Noise on the
    scale of the scores is no difference at all: ASL 1, t = 0, effect size 0."""
    rng = np.random.default_rng(5)
    x = rng.beta(2, 5, size=(1, 50))
    noisy = [x + 1e-12, x * (1 + 1e-13), x + 1e-12 * rng.standard_normal(x.shape)]
    for y in noisy:
        r = sg.paired_bootstrap_test(np.vstack([x, y]), B=500, seed=1)
        assert r.p[0] == 1.0 and r.statistic[0] == 0.0 and r.effect_size[0] == 0.0
    # the same noise beside real scores leaves the real differences as the literal test has them
    real = np.vstack([x, x + rng.normal(0, 0.05, x.shape), x + 0.02])
    samples = bt.bootstrap_samples(50, 500, seed=2)
    r = sg.paired_bootstrap_test(np.vstack([real, real[0] + 1e-12]), samples=samples)
    for k, (i, j) in enumerate(r.pairs):
        if {i, j} == {0, 3}:
            assert r.p[k] == 1.0
            continue
        a, b = np.vstack([real, real[0]])[[i, j]]
        assert r.p[k] == ref_paired(a, b, samples)[0]
    assert r.p[1] == 0.0  # pair (0, 2): a constant real shift stays significant


# ---- the chapter's sampling errors against the spread over resampled units ----------------------


def _population(rng, n_sys=30, n_top=50):
    """Scores of two related measures for n_sys fixed systems on n_top topics drawn afresh."""
    mu = np.linspace(0.25, 0.45, n_sys)
    topic = rng.normal(0, 0.12, size=n_top)
    a = np.clip(mu[:, None] + topic + rng.normal(0, 0.12, size=(n_sys, n_top)), 0, 1)
    b = np.clip(a + rng.normal(0, 0.10, size=a.shape), 0, 1)
    return a, b


def test_tau_sampling_error_is_the_spread_over_fresh_topic_samples():
    # the row's sampling error of Kendall's tau (the topic bootstrap's se, tau_se) against the
    # sd of tau over independent topic samples drawn from the population: within 20%
    from irrepro.sensitivity._rows import tau_se

    rng = np.random.default_rng(2006)
    taus, ses = [], []
    for k in range(120):
        a, b = _population(rng)
        taus.append(stats.kendalltau(a.mean(1), b.mean(1))[0])
        if k < 12:
            study = bt.measure_study({"A": a, "B": b}, B=200, seed=k, parts=("rank",))
            ses.append(tau_se(study, ("A", "B")))
    spread, formula = np.std(taus, ddof=1), np.mean(ses)
    assert 0.3 < np.mean(taus) < 0.9  # a pair of measures that disagree some
    assert abs(formula / spread - 1) < 0.2, (formula, spread)


def test_pair_share_sampling_error_is_the_spread_over_resampled_pairs():
    # the rows' sampling error of a share of system pairs (and of a difference of two shares over
    # the same pairs) against the sd over resampled pairs: within 20%; Agresti & Coull's, not 0,
    # where every pair agrees
    from irrepro.sensitivity._rows import pair_share_se

    rng = np.random.default_rng(435)
    a, b = _population(rng)
    pa, pb = (sg.paired_bootstrap_test(x, B=200, seed=1).p < 0.05 for x in (a, b))
    sig = np.stack([pa, pb]).astype(float)
    diff = sig[1] - sig[0]
    assert 0.1 < sig.mean(1).min() and sig.mean(1).max() < 0.9 and np.abs(diff).sum() > 5
    idx = rng.integers(0, sig.shape[1], size=(4000, sig.shape[1]))
    for x in (sig[0], sig[1], diff):
        spread = x[idx].mean(axis=1).std(ddof=1)
        assert abs(pair_share_se(x) / spread - 1) < 0.2, (pair_share_se(x), spread)
    none = np.zeros(435)
    assert 0 < pair_share_se(none) < 0.01 and np.isclose(pair_share_se(none), pair_share_se(1 - none))


def test_swap_rates_bins_and_table_row_of_a_toy_matrix():
    """The former example of ``swap_rates``: its bins' counts, swaps and rates, and Table 3's row."""
    scores = np.array([[0.5, 0.6, 0.7, 0.4, 0.9], [0.4, 0.5, 0.5, 0.4, 0.6], [0.5, 0.6, 0.6, 0.5, 0.8]])
    s1, s2 = (bt.bootstrap_samples(5, 200, seed=g) for g in parallel.spawn(1, 2))
    sw = swap_rates(scores, s1, s2, bin_width=0.05, n_bins=4)
    assert sw.counts.tolist() == [157, 70, 280, 93]
    assert sw.swaps.tolist() == [55.0, 9.0, 0.0, 0.0]
    assert (sw.swaps / sw.counts).round(3).tolist() == [0.35, 0.129, 0.0, 0.0]
    row = {k: round(v, 3) if isinstance(v, float) else v for k, v in sw.table_row().items()}
    assert row == {"measure": "", "abs": 0.1, "rel": 0.116, "max": 0.86, "sensitivity": 0.622}


def test_stability_over_a_set_of_pairs_is_stability_of_those_systems():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (5, 30))
    samples = bt.bootstrap_samples(30, B=100, seed=4)
    f = [0.05, 0.1]
    one = bt.stability(x, samples, fuzziness=f, pairs=[[1, 3]])
    alone = bt.stability(x[[1, 3]], samples, fuzziness=f)
    assert np.array_equal(one.minority_rate, alone.minority_rate) and np.array_equal(
        one.prop_ties, alone.prop_ties
    )
    every = bt.stability(x, samples, fuzziness=f, pairs=np.array(np.triu_indices(5, 1)).T)
    assert np.array_equal(every.minority_rate, bt.stability(x, samples, fuzziness=f).minority_rate)
