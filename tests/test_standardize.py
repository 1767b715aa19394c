"""Tests of irrepro.standardize: the paper's published figures from the real matrices, the
properties of standardization, and every vectorised routine against a plain scipy loop."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irrepro import standardize as sz
from irrepro._rule import judge_row
from irrepro.errors import InputError
from irrepro.standardize._scores import zscores

# ------------------------------------------------------------------ published figures (real data)


@pytest.fixture(scope="module")
def robust(real_matrix):
    r = real_matrix("robust2004", "AP")
    return {name: sz.topic_range(r, *rng) for name, rng in sz.SUBCOLLECTIONS.items()}


def test_tau_and_pearson_2003_vs_2004_topics(robust):
    tau, r = sz.rank_agreement(robust["TREC 2003"].mean(), robust["TREC 2004"].mean())
    assert round(tau, 3) == 0.742
    assert round(r, 3) == 0.943
    assert tau == pytest.approx(stats.kendalltau(robust["TREC 2003"].mean(), robust["TREC 2004"].mean())[0])


def test_drmse_published(robust):
    d78 = sz.drmse(robust["TREC 7"].mean(), robust["TREC 8"].mean())
    d73 = sz.drmse(robust["TREC 7"].mean(), robust["TREC 2003"].mean())
    assert round(float(d78), 2) == 0.63  # the paper prints two decimals here
    assert round(float(d73), 3) == 1.857
    # population sd would not give the paper's number: the sd normalisation matters
    assert round(float(sz.drmse(robust["TREC 7"].mean(), robust["TREC 2003"].mean(), ddof=0)), 3) != 1.857


def test_trec8_thirteenth_run_interval(real_matrix):
    t8 = real_matrix("trec8", "AP")
    m, lo, hi = sz.mean_intervals(t8)
    k = np.argsort(-m)[12]
    assert (round(m[k], 3), round(lo[k], 3), round(hi[k], 3)) == (0.324, 0.262, 0.386)


def test_sampled_standardizers_full_size_is_exact(real_matrix, robust):
    std = sz.topic_range(real_matrix("robust2003", "AP"), 601, 650)
    res = sz.sampled_standardizers(std, robust["TREC 2003"], [2, 78], 5, seed=0)
    assert np.all(res.taus[1] == 1.0)
    assert np.all(res.taus[0] < 1.0)


# ------------------------------------------------------------------ standardization properties


def _toy(seed=0, s=30, t=12):
    rng = np.random.default_rng(seed)
    return rng.beta(2, 5, size=(s, t))


def test_zscores_mean0_sd1_over_standardizing_systems():
    x = _toy()
    z = zscores(x)
    np.testing.assert_allclose(z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(z.std(axis=0, ddof=1), 1, atol=1e-12)
    s = sz.standardize(x)
    np.testing.assert_allclose(s, stats.norm.cdf(z))
    assert s.min() > 0 and s.max() < 1


def test_standardized_sp_equals_standardized_ap():
    ap = _toy(1)
    r = np.random.default_rng(2).integers(1, 400, ap.shape[1]).astype(float)
    sp = ap * r
    new_ap = _toy(3, s=7)
    np.testing.assert_allclose(sz.standardize(sp), sz.standardize(ap), atol=1e-12)
    np.testing.assert_allclose(
        sz.standardize(new_ap * r, sz.factors(sp)), sz.standardize(new_ap, sz.factors(ap)), atol=1e-12
    )
    np.testing.assert_allclose(sz.r_normalize(sp, r), ap, atol=1e-12)


def test_published_factors_applied_by_topic_id():
    from irrepro.data import ScoreMatrix

    x = _toy(4)
    topics = tuple(str(100 + i) for i in range(x.shape[1]))
    fac = sz.factors(ScoreMatrix(x, tuple(f"s{i}" for i in range(30)), topics, "AP", "toy"))
    back = sz.Factors.from_frame(fac.to_frame())
    new = ScoreMatrix(x[:5, ::-1][:, :6], tuple("abcde"), topics[::-1][:6], "AP", "toy")
    expect = stats.norm.cdf((x[:5, ::-1][:, :6] - x.mean(0)[::-1][:6]) / x.std(0, ddof=1)[::-1][:6])
    np.testing.assert_allclose(sz.standardize(new, back), expect)
    with pytest.raises(ValueError):
        back.select(["999"])


def test_zero_sd_topic():
    x = _toy(5)
    x[:, 3] = 0.0
    s = sz.standardize(x)
    assert np.all(s[:, 3] == 0.5)
    with pytest.raises(ValueError):
        sz.standardize(x, zero_sd="raise")


def test_bad_input():
    with pytest.raises(ValueError):
        sz.factors(np.ones(5))
    with pytest.raises(ValueError):
        sz.factors(np.array([[np.nan, 1.0], [1.0, 2.0]]))
    with pytest.raises(ValueError):
        sz.drmse(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        sz.r_normalize(_toy(), np.ones(3))
    with pytest.raises(ValueError):
        sz.sampled_standardizers(_toy(), _toy(1, s=5), [1], 3, seed=0)


# ------------------------------------------------------------------ against plain scipy loops


def _drmse_loop(a, b):
    rmse = np.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)) / len(a))
    return rmse / ((np.std(a, ddof=1) + np.std(b, ddof=1)) / 2)


def test_drmse_against_loop():
    a, b = _toy(6)[:, 0], _toy(7)[:, 0]
    assert sz.drmse(a, b) == pytest.approx(_drmse_loop(a, b))


def test_partition_experiment_against_scipy_loop():
    x = _toy(8, s=15, t=20) * np.random.default_rng(9).integers(1, 300, 20)  # SP-like scale
    res = sz.partition_experiment(x, 37, seed=11, block=10)
    rngs = __import__("irrepro.parallel", fromlist=["spawn"]).spawn(11, 4)
    masks = np.vstack([sz._comparability.random_halves(20, n, g) for n, g in zip([10, 10, 10, 7], rngs)])
    d, fp = [], []
    for m in masks:
        a, b = x[:, m], x[:, ~m]
        d.append(_drmse_loop(a.mean(1), b.mean(1)))
        fp.append(np.mean([stats.ttest_ind(a[s], b[s]).pvalue < 0.05 for s in range(x.shape[0])]))
    np.testing.assert_allclose(res.drmse, d, rtol=1e-10)
    np.testing.assert_array_equal(res.false_positive, fp)
    assert masks.sum(1).tolist() == [10] * 37


def test_results_identical_with_one_and_two_workers():
    x = _toy(10, s=20, t=30)
    r1 = sz.partition_experiment(x, 60, seed=3, n_jobs=1, block=7)
    r2 = sz.partition_experiment(x, 60, seed=3, n_jobs=2, block=7)
    np.testing.assert_array_equal(r1.drmse, r2.drmse)
    np.testing.assert_array_equal(r1.false_positive, r2.false_positive)
    s1 = sz.sampled_standardizers(x, _toy(11, s=9, t=30), [2, 5, 10], 20, seed=4, n_jobs=1)
    s2 = sz.sampled_standardizers(x, _toy(11, s=9, t=30), [2, 5, 10], 20, seed=4, n_jobs=2)
    np.testing.assert_array_equal(s1.taus, s2.taus)
    r3 = sz.partition_experiment(x, 60, seed=4, n_jobs=1, block=7)
    assert not np.array_equal(r1.drmse, r3.drmse)


def test_false_positive_rate_is_alpha_for_iid_topics():
    # Truth known: independent systems, i.i.d. topic scores -> each self-test is a true null.
    x = np.random.default_rng(12).normal(size=(200, 40))
    res = sz.partition_experiment(x, 200, seed=13)
    assert abs(res.false_positive.mean() - 0.05) < 0.01


def test_self_significance_and_binomial_interval():
    rng = np.random.default_rng(14)
    c, d = rng.normal(size=(25, 30)), rng.normal(0.3, 1, size=(25, 20))
    sig = sz.self_significance(c, d)
    np.testing.assert_array_equal(sig, [stats.ttest_ind(c[s], d[s]).pvalue < 0.05 for s in range(25)])
    lo, hi = sz._comparability.binomial_interval(7, 25)
    assert lo == pytest.approx(stats.beta.ppf(0.025, 7, 19))
    assert hi == pytest.approx(stats.beta.ppf(0.975, 8, 18))


def test_discriminative_power_against_loop():
    x = _toy(15, s=12, t=25)
    loop = np.mean([stats.ttest_rel(x[i], x[j]).pvalue < 0.05 for i in range(12) for j in range(i + 1, 12)])
    assert sz.discriminative_power(x) == pytest.approx(loop)


def test_item_total_correlation_against_loop():
    x = _toy(17)
    for corrected in (True, False):
        expect = [
            np.corrcoef(x[:, t], x.sum(1) - (x[:, t] if corrected else 0))[0, 1] for t in range(x.shape[1])
        ]
        np.testing.assert_allclose(sz.item_total_correlation(x, corrected=corrected), expect)


def test_mean_intervals_against_scipy():
    x = _toy(18)
    m, lo, hi = sz.mean_intervals(x)
    for s in range(x.shape[0]):
        ci = stats.t.interval(0.95, x.shape[1] - 1, loc=x[s].mean(), scale=stats.sem(x[s]))
        assert (lo[s], hi[s]) == pytest.approx(ci)


def test_percentile_items():
    v = np.arange(100.0)
    assert sz.percentile_items(v, (1, 10, 40, 75)).tolist() == [99, 90, 60, 25]


def test_sampled_standardizers_percentiles_frame():
    res = sz.sampled_standardizers(_toy(19), _toy(20, s=10), [2, 10, 30], 30, seed=5)
    p = res.percentiles()
    assert isinstance(p, pd.DataFrame) and list(p.columns) == ["q50", "q5", "q1"]
    assert (p["q1"] <= p["q50"]).all()
    assert res.taus[-1].min() == 1.0


def test_ideal_score_rbp_against_explicit_sum():
    counts = np.array([[5, 3, 2], [0, 0, 4], [7, 0, 0]])  # grades 0, 1, 2 per topic
    p = 0.8
    expect = []
    for c in counts:
        gains = [1.0] * c[2] + [0.5] * c[1]
        expect.append((1 - p) * sum(g * p**i for i, g in enumerate(gains)))
    np.testing.assert_allclose(sz.ideal_score(counts, p=p), expect)
    for wrong in ({}, {"k": 10, "p": p}):  # one of P@k's cutoff and RBP's persistence
        with pytest.raises(InputError, match="either k"):
            sz.ideal_score(counts, **wrong)


def test_compare_collections_fields():
    rng = np.random.default_rng(21)
    c, d = rng.random((20, 15)), rng.random((20, 15)) + 0.5
    res = sz.compare_collections(c, d, 40, seed=6)
    assert res.drmse == pytest.approx(_drmse_loop(c.mean(1), d.mean(1)))
    assert res.n_significant == sz.self_significance(c, d).sum() == 20
    assert res.interval == sz._comparability.binomial_interval(20, 20)
    assert res.percentile == 100.0 and len(res.random.drmse) == 40


def test_drmse_is_nan_without_a_warning_where_no_mean_varies():
    """Scores that are all 0 (e.g. runs scored against qrels that match nothing) give no sd to
    normalise by: dRMSE is undefined, NaN, and no RuntimeWarning reaches the user."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(sz.drmse(np.zeros(5), np.zeros(5)))
        got = sz.drmse(
            np.vstack([np.zeros(4), [0.1, 0.2, 0.3, 0.5]]), np.vstack([np.zeros(4), [0.2, 0.2, 0.4, 0.4]])
        )
    assert np.isnan(got[0]) and np.isfinite(got[1])


def test_monte_carlo_errors_of_the_partition_summaries_match_the_spread_over_seeds():
    # Independent derivation: rerun the same experiment with 60 seeds; the sd of each summary number
    # over the seeds is its Monte Carlo error, which summary_se / percentile_se estimate from one run.
    x = _toy(21, s=20, t=30)
    runs = [sz.partition_experiment(x, 200, seed=s) for s in range(60)]
    spread = pd.DataFrame([r.summary() for r in runs]).std(ddof=1)
    est = pd.DataFrame([r.summary_se() for r in runs]).mean()
    assert list(est.index) == list(spread.index)
    varies = spread > 0  # with 20 systems the lower end of the FP interval is 0 in every run
    ratio = est[varies] / spread[varies]
    assert varies.sum() >= 5 and ratio.between(0.6, 1.7).all(), ratio.round(2).to_dict()
    observed = float(np.median(runs[0].drmse))
    pct = np.array([r.percentile_of(observed) for r in runs])
    assert runs[0].percentile_se(pct.mean()) == pytest.approx(pct.std(ddof=1), rel=0.35)
    # a share of 100% still carries the error of one partition in 2B
    assert runs[0].percentile_se(100.0) == pytest.approx(100 * np.sqrt((1 / 400) * (1 - 1 / 400) / 200))
    assert np.isnan(sz.partition_experiment(x, 1, seed=0).summary_se()["FP high"])


def test_bootstrap_error_of_the_fewest_standardizing_systems_matches_the_spread_over_seeds():
    # Independent derivation: the sd, over 40 seeds, of the fewest systems found is the Monte Carlo
    # error that smallest_size_se estimates from one seed's samples by the bootstrap.
    rng = np.random.default_rng(31)
    std, ev = rng.beta(2, 5, size=(40, 25)), rng.beta(2, 5, size=(15, 25))
    sizes = [2, 3, 4, 5, 6, 8, 10, 15, 20]
    runs = [sz.sampled_standardizers(std, ev, sizes, 60, seed=s) for s in range(40)]
    thr = float(np.median(runs[0].percentiles((5,))["q5"]))
    found = np.array([r.smallest_size_beating(thr, 5) for r in runs], dtype=float)
    est = np.nanmean([r.smallest_size_se(thr, 5, n_resamples=100, seed=s) for s, r in enumerate(runs)])
    assert np.isfinite(found).all() and found.std(ddof=1) > 0
    assert est == pytest.approx(found.std(ddof=1), rel=0.5)
    assert np.isnan(runs[0].smallest_size_se(1.5, 5))  # no size ever beats tau 1.5


@pytest.mark.parametrize("measure", ["AP", "P@10"])
def test_sampling_error_of_the_power_ratio_matches_the_spread_over_resampled_pairs(real_matrix, measure):
    # Independent derivation: resample the system pairs (the unit the error is clustered by) with
    # replacement; the sd of the ratio of the two shares over the resamples is its sampling error,
    # which power_ratio gives by the delta method from one sample (the chapter's TREC 8 rows).
    raw = sz.topic_range(real_matrix("robust2004", measure), 401, 450)
    std = sz.standardize(raw, sz.factors(real_matrix("trec8", measure)))
    r, err = sz.rows.power_ratio(raw, std)
    a, b = (
        sz._comparability.significant_pairs(raw).astype(float),
        sz._comparability.significant_pairs(std).astype(float),
    )
    assert err.unit == "system pair" and r == pytest.approx(b.mean() / a.mean())
    assert (a != b).sum() >= 20  # enough discordant pairs for the error to mean something
    idx = np.random.default_rng(42).integers(0, a.size, size=(2000, a.size))
    spread = float(np.std(b[idx].mean(1) / a[idx].mean(1), ddof=1))
    assert err.sampling == pytest.approx(spread, rel=0.2)


def test_significant_pairs_are_the_outcomes_of_discriminative_power():
    x = _toy(3, s=12, t=20)
    sig = sz._comparability.significant_pairs(x)
    assert sig.shape == (66,) and sig.dtype == bool
    assert sig.mean() == sz.discriminative_power(x)


def test_chapter_rows_read_the_papers_words(real_matrix):
    from irrepro import book

    P = book.paper_numbers("webber2008score")
    rows = sz.rows.figure4_rows(P, 0.9186, (3, 12, 15), (0.48, 0.88, 1.26), 1000)
    assert judge_row(rows[1]).status == "replicated"  # "as few as 5": at most 5 needed, ours 3
    rows = sz.rows.figure4_rows(P, 0.9186, (8, 12, 15), (0.0, 0.88, 1.26), 1000)
    assert judge_row(rows[1]).status == "not replicated"  # 8 needed: more than "as few as 5"
    x = _toy(5, s=10, t=20) + np.linspace(0, 0.3, 10)[:, None]
    power = sz.rows.power_rows(P, {"AP": (x, sz.standardize(x))}, {})[0]
    assert power["kind"] == "score" and power["paper"].value == "688/687"  # the paper's sDCG / DCG, a point


# Examples of the names outside the API (their docstrings are one line), as tests.


def test_self_significance_example():
    c = np.array([[0.2, 0.3, 0.4, 0.3], [0.1, 0.2, 0.1, 0.2]])
    d = np.array([[0.3, 0.2, 0.3, 0.4], [0.6, 0.7, 0.6, 0.8]])
    assert sz.self_significance(c, d).tolist() == [False, True]


def test_sampled_standardizers_example():
    from irrepro.standardize._comparability import SampledStandardizers

    s = SampledStandardizers(np.array([2, 4]), np.array([[0.8] * 50, [1.0] * 50]))
    assert (s.smallest_size_beating(0.9), s.smallest_size_se(0.9)) == (4, 0.0)
    x = np.random.default_rng(0).random((5, 20)) + np.linspace(0, 0.5, 5)[:, None]
    s = sz.sampled_standardizers(x, x, [2, 4], 10, seed=1)
    p = s.percentiles((50, 5))
    assert p.index.name == "systems" and list(p.columns) == ["q50", "q5"]
    assert p.loc[2].tolist() == pytest.approx([1.0, 0.89], abs=0.005)
    assert p.loc[4].tolist() == pytest.approx([1.0, 1.0], abs=0.005)
    assert s.smallest_size_beating(0.9, q=5) == 4


def test_partition_result_example():
    r = sz.partition_experiment(np.random.default_rng(0).random((5, 20)), 100, seed=1)
    assert (round(r.percentile_se(50.0), 1), round(r.percentile_se(100.0), 1)) == (5.0, 0.7)
    x = np.random.default_rng(0).random((5, 20)) + np.linspace(0, 0.5, 5)[:, None]
    se = sz.partition_experiment(x, 200, seed=1).summary_se()
    assert {k: round(v, 3) for k, v in se.items() if k.startswith("dRMSE")} == {
        "dRMSE mean": 0.01,
        "dRMSE low": 0.02,
        "dRMSE high": 0.033,
    }
    r = sz.partition_experiment(x, 20, seed=1)
    assert (r.drmse.shape, r.percentile_of(0.5)) == ((20,), 50.0)
    assert {k: round(v, 3) for k, v in r.summary().items() if k.startswith("dRMSE")} == {
        "dRMSE mean": 0.476,
        "dRMSE low": 0.286,
        "dRMSE high": 0.743,
    }


def test_power_ratio_example():
    x = np.random.default_rng(1).random((12, 30)) + np.linspace(0, 0.3, 12)[:, None]
    r, e = sz.rows.power_ratio(x, sz.standardize(x))
    assert (round(r, 3), round(e.sampling, 3), e.unit) == (0.727, 0.135, "system pair")


def test_zscores_example():
    z = zscores(np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])).round(2) + 0.0
    assert z.tolist() == [[-1.0, 0.0, -1.0], [1.0, 1.0, 1.0], [0.0, -1.0, 0.0]]
