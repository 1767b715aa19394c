"""Tests of irrepro.topic_split: the vectorised tests against scipy case by case, the swap
experiment against a plain loop and against simulations with known truth, worker independence."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irrepro import parallel
from irrepro import significance as sg
from irrepro import topic_split as ts
from irrepro.data import ScoreMatrix
from irrepro.errors import InputError, UnknownNameError
from irrepro.topic_split._swap import rate_se


def _cases(rng, n, rows):
    """Differences with every situation the tests must meet: continuous, ties, zeros, all-zero,
    all-equal, one non-zero."""
    out = [
        rng.normal(size=(rows, n)),
        rng.integers(-3, 4, size=(rows, n)) / 10.0,  # P@10-like: many ties and zeros
        np.round(rng.normal(size=(rows, n)), 1),  # ties, few zeros
        rng.integers(-1, 2, size=(rows, n)) * 0.1,  # heavy ties and zeros
    ]
    special = np.zeros((4, n))
    special[1] = 0.1  # all equal, non-zero
    special[2, 0] = -0.3  # one non-zero
    special[3, : n // 2] = 0.2  # half zeros
    out.append(special)
    return np.concatenate(out)


def _scipy_p(x):
    """Reference p-values, one scipy call per case (x is the difference vector)."""
    y = np.zeros_like(x)
    pt = stats.ttest_rel(x, y).pvalue
    k, m = int((x > 0).sum()), int((x != 0).sum())
    ps = stats.binomtest(k, m, 0.5).pvalue if m else np.nan
    pw = stats.wilcoxon(x, y).pvalue  # defaults: zero_method="wilcox", correction=False, method="auto"
    return pt, ps, pw


def _assert_same(ours, ref, what):
    ours, ref = np.asarray(ours, float), np.asarray(ref, float)
    assert np.array_equal(np.isnan(ours), np.isnan(ref)), f"{what}: NaN pattern differs"
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(ours[ok], ref[ok], rtol=1e-9, atol=0, err_msg=what)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 5, 8, 10, 13, 14, 15, 20, 25, 50, 60])
def test_pvalues_equal_scipy(n, size):
    rng = np.random.default_rng(n)
    # scipy's permutation path (n <= 13 with ties) is slow; one row per kind of case still has them all
    rows = size(1, 3) if n <= 13 else 12
    d = _cases(rng, n, rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.array([_scipy_p(x) for x in d])
    # equal non-zero differences: t = +-inf, p = 0 exactly, where scipy divides by the rounding noise
    # of their sd (p ~ 1e-32); every other row as scipy has it
    equal = (d == d[:, :1]).all(axis=1) & (d[:, 0] != 0)
    p_t = sg.paired_t_pvalues(d)
    assert (p_t[equal] == 0).all() and (ref[equal, 0] < 1e-12).all(), f"t n={n}: equal differences"
    _assert_same(p_t[~equal], ref[~equal, 0], f"t n={n}")
    _assert_same(sg.sign_test_pvalues(d), ref[:, 1], f"sign n={n}")
    _assert_same(sg.wilcoxon_pvalues(d), ref[:, 2], f"wilcoxon n={n}")


@pytest.mark.slow
def test_wilcoxon_many_random_ties(size):
    """Many random cases with ties around the exact / permutation / normal switch of scipy (each
    side of it at quick size too: the first rows of n = 12 and 13, scipy's slow permutation path)."""
    rng = np.random.default_rng(7)
    for n in (6, 12, 13, 14, 18, 24):
        d = rng.integers(-4, 5, size=(25, n)) / 8.0
        if n in (12, 13):
            d = d[: size(3, 25)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = [stats.wilcoxon(x).pvalue for x in d]
        _assert_same(sg.wilcoxon_pvalues(d), ref, f"wilcoxon ties n={n}")


def test_wilcoxon_exact_path_many_cases():
    rng = np.random.default_rng(3)
    for n in (5, 11, 20, 25):
        d = rng.normal(size=(200, n))
        ref = [stats.wilcoxon(x).pvalue for x in d]
        _assert_same(sg.wilcoxon_pvalues(d), ref, f"wilcoxon exact n={n}")


def test_pvalues_keep_leading_shape_and_reject_bad_input():
    d = np.random.default_rng(0).normal(size=(3, 4, 7))
    for f in (sg.paired_t_pvalues, sg.sign_test_pvalues, sg.wilcoxon_pvalues):
        assert f(d).shape == (3, 4)
        with pytest.raises(ValueError):
            f(np.zeros((3, 1)))
        with pytest.raises(ValueError):
            f(np.array([[0.1, np.nan, 0.2]]))


def _matrix(scores, measure="AP", name="sim"):
    S, T = scores.shape
    return ScoreMatrix(
        scores, tuple(f"r{i}" for i in range(S)), tuple(str(t) for t in range(T)), measure, name, "simulated"
    )


def _reference_swap(X, n, i1, i2, filters):
    """Plain loop over pairs and repetitions calling scipy: (trials, errors) per filter and kind."""
    S = X.shape[0]
    F = len(filters)
    tr = np.zeros((F, 2, 20), int)
    er = np.zeros((F, 2, 20), int)
    for a in range(S):
        for b in range(a + 1, S):
            for r in range(len(i1)):
                m1a, m1b = X[a, i1[r]].mean(), X[b, i1[r]].mean()
                d1 = m1a - m1b
                d2 = X[a, i2[r]].mean() - X[b, i2[r]].mean()
                if d1 == 0:
                    continue
                e = d1 * d2 < 0
                x, y = X[a, i1[r]], X[b, i1[r]]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    dd = x - y
                    k, m = int((dd > 0).sum()), int((dd != 0).sum())
                    p = {
                        "paired-t": stats.ttest_rel(x, y).pvalue,
                        "sign": stats.binomtest(k, m).pvalue if m else np.nan,
                        "wilcoxon": stats.wilcoxon(x, y).pvalue,
                    }
                lo = min(m1a, m1b)
                bins = [
                    int(np.floor(abs(d1) / 0.01 + 1e-9)),
                    int(np.floor(abs(d1) / lo / 0.05 + 1e-9)) if lo > 0 else 99,
                ]
                for f, name in enumerate(filters):
                    test, plo, phi = ts.FILTERS[name]
                    if test is not None and not (p[test] > plo and p[test] <= phi):
                        continue
                    for k_, bn in enumerate(bins):
                        if bn < 20:
                            tr[f, k_, bn] += 1
                            er[f, k_, bn] += e
    return tr, er


@pytest.mark.slow
@pytest.mark.parametrize("design", ["disjoint", "independent"])
def test_swap_counts_equal_plain_loop(design, size):
    rng = np.random.default_rng(11)
    X = np.clip(rng.beta(2, 5, size=(6, 30)) + rng.normal(0, 0.05, size=(6, 1)), 0, 1)
    X[:, :3] = np.round(X[:, :3], 1)  # some ties
    # quick: 4 of the 6 systems, the best one (the significant pairs) kept, and 3 repetitions:
    # 18 comparisons per set size against the plain loop instead of 15 pairs x 4
    X = X[size([0, 2, 4, 5], slice(None))]
    B = size(3, 4)
    m = _matrix(X)
    res = ts.swap_experiment([m], sizes=[5, 12], B=B, design=design, seed=5)
    # redraw the same topic sets: task i uses child i of the seed
    rngs = parallel.spawn(5, 2)
    for s, n in enumerate([5, 12]):
        g = rngs[s]
        perm = g.permuted(np.tile(np.arange(30), (B, 1)), axis=1)
        if design == "disjoint":
            i1, i2 = perm[:, :n], perm[:, n : 2 * n]
        else:
            i1 = perm[:, :n]
            i2 = g.permuted(np.tile(np.arange(30), (B, 1)), axis=1)[:, :n]
        tr, er = _reference_swap(X, n, i1, i2, res.filters)
        np.testing.assert_array_equal(res.trials[:, :, s], tr)
        np.testing.assert_array_equal(res.errors[:, :, s], er)
    assert res.trials[1:].sum() > 0  # the p-value filters had comparisons to count


def test_same_result_with_one_and_two_workers():
    rng = np.random.default_rng(2)
    mats = [_matrix(rng.beta(2, 5, size=(8, 50)), name=f"y{i}") for i in range(2)]
    kw = dict(sizes=[5, 10, 25], B=6, seed=123)
    a = ts.swap_experiment(mats, n_jobs=1, **kw)
    b = ts.swap_experiment(mats, n_jobs=2, **kw)
    np.testing.assert_array_equal(a.trials, b.trials)
    np.testing.assert_array_equal(a.errors, b.errors)
    np.testing.assert_array_equal(a.dep_errors, b.dep_errors)
    c = ts.swap_experiment(mats, n_jobs=1, **{**kw, "seed": 124})
    assert not np.array_equal(a.errors, c.errors)


def test_null_model_type_one_error_near_alpha():
    """No true difference: per-topic scores of all runs are exchangeable (iid normal topic effect +
    iid noise), so each test rejects about alpha of the set-1 comparisons."""
    rng = np.random.default_rng(0)
    S, T = 20, 50
    X = 0.3 + rng.normal(0, 0.1, size=(1, T)) + rng.normal(0, 0.05, size=(S, T))
    D_all = []
    for _r in range(40):
        idx = rng.choice(T, 20, replace=False)
        a, b = np.triu_indices(S, 1)
        D_all.append((X[a] - X[b])[:, idx])
    D = np.concatenate(D_all)
    for f, lo, hi in (
        (sg.paired_t_pvalues, 0.035, 0.065),
        (sg.wilcoxon_pvalues, 0.035, 0.065),
        (sg.sign_test_pvalues, 0.02, 0.065),
    ):  # sign test is conservative (discrete)
        rate = np.mean(f(D) <= 0.05)
        assert lo < rate < hi, (f.__name__, rate)


def test_error_rates_fall_with_set_size_when_differences_are_real():
    rng = np.random.default_rng(1)
    S, T = 12, 50
    true = np.linspace(0.2, 0.4, S)[:, None]
    X = np.clip(true + rng.normal(0, 0.15, size=(1, T)) + rng.normal(0, 0.12, size=(S, T)), 0, 1)
    res = ts.swap_experiment([_matrix(X)], sizes=[5, 10, 15, 20, 25], B=30, seed=9)
    overall = res.errors[0, 0].sum(axis=1) / res.trials[0, 0].sum(axis=1)
    assert np.all(np.diff(overall) < 0), overall


def test_growth_fit_recovers_exponential_and_handles_zeros():
    sizes = np.arange(5, 26)
    true = 0.9 * np.exp(-0.02 * sizes)
    trials = np.full((1, 2, len(sizes), 3), 10_000)
    errors = np.zeros_like(trials)
    errors[0, 1, :, 0] = np.round(true * 10_000)
    errors[0, 1, ::2, 1] = 100  # zero-error sizes are skipped
    errors[0, 1, :2, 2] = 50  # only two usable sizes -> not fitted
    res = ts.SwapExperiment(
        "AP",
        "disjoint",
        sizes,
        50,
        ("none",),
        ("absolute", "relative"),
        0.01,
        0.05,
        trials,
        errors,
        np.zeros((21, 50)),
        np.ones((21, 50)),
        1,
        ("x",),
    )
    fit = ts.growth_fit(res)
    assert fit.projected[0] == pytest.approx(0.9 * np.exp(-1.0), rel=1e-3)
    assert fit.n_points[1] == 11 and fit.projected[1] == pytest.approx(0.01)
    assert np.isnan(fit.projected[2])
    assert fit.first_reliable() == "5-10%"


def test_drop_bottom_and_bad_input():
    X = np.arange(40, dtype=float).reshape(8, 5) / 40
    m = _matrix(X)
    kept = ts.drop_bottom(m)
    assert kept.systems == ("r2", "r3", "r4", "r5", "r6", "r7")
    p10 = _matrix(X[::-1].copy(), "P@10")
    assert ts.drop_bottom(p10, by=m).systems == kept.systems
    with pytest.raises(ValueError):
        ts.swap_experiment([m], sizes=[3], design="sideways", seed=1)
    with pytest.raises(ValueError):
        ts.swap_experiment([m], sizes=[3], seed=1)  # 2 x 3 > 5 topics
    with pytest.raises(ValueError):
        ts.swap_experiment([m, p10], sizes=[2], seed=1)
    with pytest.raises(ValueError):
        ts.swap_experiment([m], sizes=[2], seed=None)


def test_full_set_tests_and_share():
    rng = np.random.default_rng(4)
    m = _matrix(rng.beta(2, 4, size=(6, 50)))
    pairs = ts.full_set_tests([m])
    assert len(pairs) == 15
    r = pairs.iloc[3]
    a, b = m.systems.index(r.run_a), m.systems.index(r.run_b)
    assert r["p_paired-t"] == pytest.approx(stats.ttest_rel(m.scores[a], m.scores[b]).pvalue, rel=1e-9)
    assert r.p_wilcoxon == pytest.approx(stats.wilcoxon(m.scores[a], m.scores[b]).pvalue, rel=1e-9)
    share = ts.significant_share(pairs, [(0, 10), (0, 0.0)])
    assert share.pairs.iloc[0] == 15 and share.pairs.iloc[1] == 0
    assert share["paired-t"].iloc[0] == pytest.approx((pairs["p_paired-t"] <= 0.05).mean())


def test_pool_sizes_by_hand():
    from irrepro.data import Run, build_runset, qrels_from_records

    runs = [
        Run(
            "a",
            pd.DataFrame(
                {
                    "topic": ["1"] * 3 + ["2"] * 2,
                    "doc": ["d1", "d2", "d3", "d1", "d4"],
                    "score": [3, 2, 1, 2, 1],
                    "rank": [1, 2, 3, 1, 2],
                }
            ),
        ),
        Run(
            "b",
            pd.DataFrame(
                {
                    "topic": ["1"] * 2 + ["2"] * 3,
                    "doc": ["d2", "d5", "d4", "d6", "d7"],
                    "score": [3, 2, 3, 2, 1],
                    "rank": [1, 2, 1, 2, 3],
                }
            ),
        ),
    ]
    q = qrels_from_records([("1", "d2", 1), ("1", "d5", 2), ("2", "d7", 1), ("2", "d1", 0)])
    rs = build_runset(runs, q, name="toy")
    p = ts.pool_sizes(rs, depths=[1, 2, 3]).set_index(["topic", "depth"])
    assert p.loc[("1", 1), "pool"] == 2 and p.loc[("1", 1), "relevant"] == 1  # d1, d2
    assert p.loc[("1", 2), "pool"] == 3 and p.loc[("1", 2), "relevant"] == 2  # + d5
    assert p.loc[("2", 3), "pool"] == 4 and p.loc[("2", 3), "relevant"] == 1


def test_map_sd_matches_theory_and_is_seeded():
    rng = np.random.default_rng(0)
    X = rng.beta(2, 5, size=(5, 249))
    m = _matrix(X)
    a = ts.map_sd(m, [5, 25], B=400, seed=3)
    b = ts.map_sd(m, [5, 25], B=400, seed=3)
    pd.testing.assert_frame_equal(a, b)
    sd = X.std(axis=1, ddof=1)
    for n, got in zip([5, 25], a.sd):
        fpc = np.sqrt((249 - n) / (249 - 1))
        assert got == pytest.approx(np.mean(sd / np.sqrt(n) * fpc), rel=0.06)


def test_real_trec8_runs(real_matrix):
    ap = real_matrix("trec8", "AP")
    kept = ts.drop_bottom(ap)
    assert len(kept.systems) == 97
    res = ts.swap_experiment([kept], sizes=[5, 25], B=3, seed=1, filters=["none", "paired-t p<=0.05"])
    assert res.n_pairs == 97 * 96 // 2
    fit_rates = res.errors[0, 1].sum(1) / res.trials[0, 1].sum(1)
    assert fit_rates[1] < fit_rates[0]


def test_tests_and_filters_are_named_as_significance_names_them():
    """The paired t-test is "paired-t" (significance's name) in the filters and the full-set tests;
    the paper's "t" is no name of irrepro's."""
    rng = np.random.default_rng(5)
    m = _matrix(rng.beta(2, 4, size=(6, 30)))
    assert ts.FILTERS["paired-t p<=0.05"] == ("paired-t", -1.0, 0.05)
    assert not any(name.startswith("t ") for name in ts.FILTERS)
    with pytest.raises(UnknownNameError, match="unknown filter 't 0.01<p<=0.05'"):
        ts.swap_experiment([m], sizes=[5, 10], B=2, seed=7, filters=["none", "t 0.01<p<=0.05"])
    res = ts.swap_experiment([m], sizes=[5, 10], B=2, seed=7, filters=["none", "paired-t 0.01<p<=0.05"])
    with pytest.raises(UnknownNameError, match="unknown filter 't 0.01<p<=0.05'"):
        res.error_rates("t 0.01<p<=0.05")

    pairs = ts.full_set_tests([m])
    assert [c for c in pairs.columns if c.startswith("p_")] == ["p_paired-t", "p_sign", "p_wilcoxon"]
    share = ts.significant_share(pairs, [(0, 10)])
    assert [c for c in share.columns if c in sg.TESTS] == ["paired-t", "sign", "wilcoxon"]
    for tests in (("t", "sign"), ("student",)):
        with pytest.raises(UnknownNameError, match=f"unknown test '{tests[0]}'"):
            ts.full_set_tests([m], tests=tests)
    with pytest.raises(UnknownNameError, match="unknown test 't'"):
        ts.significant_share(pairs, [(0, 10)], tests=("t",))


def test_counts_per_repetition_equal_plain_loop():
    """Each repetition's counts (rep_trials / rep_errors) are the plain loop's on that repetition's
    topic sets alone, and they sum to the pooled counts."""
    rng = np.random.default_rng(12)
    X = np.clip(rng.beta(2, 5, size=(6, 30)) + rng.normal(0, 0.05, size=(6, 1)), 0, 1)
    res = ts.swap_experiment([_matrix(X)], sizes=[5, 12], B=3, seed=7, filters=["none", "paired-t p<=0.05"])
    assert res.rep_trials.shape == (2, 2, 2, 3, 20)
    np.testing.assert_array_equal(res.rep_trials.sum(axis=3), res.trials)
    np.testing.assert_array_equal(res.rep_errors.sum(axis=3), res.errors)
    rngs = parallel.spawn(7, 2)
    for s, n in enumerate([5, 12]):
        perm = rngs[s].permuted(np.tile(np.arange(30), (3, 1)), axis=1)
        for r in range(3):
            tr, er = _reference_swap(X, n, perm[r : r + 1, :n], perm[r : r + 1, n : 2 * n], res.filters)
            np.testing.assert_array_equal(res.rep_trials[:, :, s, r], tr)
            np.testing.assert_array_equal(res.rep_errors[:, :, s, r], er)
    e, t = res.pooled_counts("none", "relative", slice(0, 20), 12)
    np.testing.assert_array_equal(t, res.rep_trials[0, 1, 1].sum(axis=-1))
    assert e.sum() / t.sum() == res.pooled_error("none", "relative", slice(0, 20), 12)


def test_resampled_repetitions_sum_their_counts():
    rng = np.random.default_rng(3)
    res = ts.swap_experiment(
        [_matrix(rng.beta(2, 5, size=(6, 40)))], sizes=[5, 10, 15], B=5, seed=1, filters=["none"]
    )
    same = res.resampled(range(5))
    np.testing.assert_array_equal(same.trials, res.trials)
    np.testing.assert_array_equal(same.errors, res.errors)
    twice = res.resampled([2, 2])
    assert twice.B == 2
    np.testing.assert_array_equal(twice.trials, 2 * res.rep_trials[:, :, :, 2])
    np.testing.assert_array_equal(twice.errors, 2 * res.rep_errors[:, :, :, 2])
    assert len(ts.growth_fit(twice).labels) == 20  # the fit takes a resampled experiment
    with pytest.raises(InputError, match="0..4"):
        res.resampled([0, 5])


def test_rate_se_is_the_spread_over_repetitions_and_over_seeds():
    # equal trials per repetition: the linearised se is the sd of the repetitions' rates / sqrt(B)
    e, t = np.array([1, 3, 2, 2, 5]), np.full(5, 10)
    assert rate_se((e, t)) == pytest.approx(np.std(e / t, ddof=1) / np.sqrt(5))
    assert rate_se((e, t), (e, t)) == 0.0  # a rate minus itself
    # calibrated: the se from one run's repetitions matches the spread of the pooled rate over seeds
    m = _matrix(np.random.default_rng(4).beta(2, 5, size=(8, 50)))

    def run(seed):
        res = ts.swap_experiment([m], sizes=[5], B=30, seed=seed, filters=["none"])
        return res.pooled_error("none", "relative", slice(0, 6), 5), rate_se(
            res.pooled_counts("none", "relative", slice(0, 6), 5)
        )

    runs = np.array([run(s) for s in range(40)])
    ratio = runs[:, 1].mean() / runs[:, 0].std(ddof=1)
    assert 0.7 < ratio < 1.4, ratio


def test_swap_experiment_bins_and_growth_fit_options_are_the_users():
    from irrepro.data import synthetic

    years = [synthetic.score_matrix(8, 50, seed=s) for s in (1, 2)]
    run = dict(sizes=[5, 10, 15, 20], B=20, seed=2, filters=["none"])
    full = ts.swap_experiment(years, **run)
    few = ts.swap_experiment(years, n_bins=10, **run)  # the first 10 bins, the rest dropped
    assert few.trials.shape[-1] == 10 and full.trials.shape[-1] == 20
    assert np.array_equal(few.trials, full.trials[..., :10]) and np.array_equal(
        few.errors, full.errors[..., :10]
    )
    wide = ts.swap_experiment(years, abs_width=0.5, rel_width=10.0, **run)  # every pair in bin 0
    assert wide.abs_width == 0.5 and (wide.trials[..., 1:] == 0).all()
    assert (wide.trials[..., 0] == 2 * 28 * 20).all() and (full.trials.sum(-1) < 2 * 28 * 20).all()
    fit = ts.growth_fit(full, threshold=0.2, min_points=4)
    assert fit.threshold == 0.2
    assert np.all(np.isnan(fit.b[fit.n_points < 4])) and np.all(np.isfinite(fit.b[fit.n_points >= 4]))
