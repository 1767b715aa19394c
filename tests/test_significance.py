"""Tests of irrepro.significance (issue 16) against independent references: scipy's
permutation_test, ttest_rel, wilcoxon, binomtest and bootstrap (on the same permutations and
topic samples), statsmodels' anova_lm and multipletests, and literal per-pair / per-permutation
loops; results identical for 1 and 2 workers; the LaTeX table compiled by pdflatex."""

import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from _reference import pdflatex
from irrepro import sensitivity as bt
from irrepro import significance as sg
from irrepro.data import ScoreMatrix
from irrepro.significance import bootstrap as sg_bootstrap


def _mean_diff(a, b, axis):
    return np.mean(a - b, axis=axis)


@pytest.fixture
def x():
    rng = np.random.default_rng(16)
    return rng.beta(2, 5, size=(6, 25)) + np.linspace(0, 0.12, 6)[:, None]


def _scipy_signs(seed: int, B: int, n: int) -> np.ndarray:
    """The sign flips scipy.stats.permutation_test(permutation_type="samples") draws for two paired
    samples from ``np.random.default_rng(seed)``: one permutation of the pair (x_t, y_t) per topic."""
    perm = np.random.default_rng(seed).permuted(np.tile(np.arange(2), (B, n, 1)), axis=-1)
    return np.where(perm[:, :, 0] == 0, 1.0, -1.0)


# ---------------------------------------------------------------- the permutation test


def test_permutation_test_exact_equals_scipy():
    x = np.random.default_rng(5).beta(2, 5, size=(5, 11))
    x[1, :3] = x[0, :3]  # zero differences: flips that change nothing
    r = sg.permutation_test(x, B=5000)
    assert r.exact and r.B == 2**11
    for k, (i, j) in enumerate(r.pairs):
        ref = stats.permutation_test((x[i], x[j]), _mean_diff, permutation_type="samples",
                                     n_resamples=5000, vectorized=True)  # fmt: skip
        assert r.p[k] == ref.pvalue
        assert r.difference[k] == pytest.approx(ref.statistic, abs=1e-15)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_permutation_test_monte_carlo_equals_scipy_on_the_same_permutations(x, alternative):
    B, n = 999, x.shape[1]
    r = sg.permutation_test(x, signs=_scipy_signs(7, B, n), alternative=alternative)
    assert not r.exact and r.B == B and r.alternative == alternative
    for k, (i, j) in enumerate(r.pairs):
        ref = stats.permutation_test(
            (x[i], x[j]),
            _mean_diff,
            permutation_type="samples",
            n_resamples=B,
            vectorized=True,
            alternative=alternative,
            rng=np.random.default_rng(7),
        )
        assert r.p[k] == ref.pvalue


def test_permutation_test_ties_on_a_grid_equal_scipy():
    """Scores on a grid of 1/8: many flips give exactly the observed mean (the tolerance's case)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 9, size=(4, 20)) / 8
    B = 500
    r = sg.permutation_test(x, signs=_scipy_signs(11, B, 20))
    for k, (i, j) in enumerate(r.pairs):
        ref = stats.permutation_test(
            (x[i], x[j]),
            _mean_diff,
            permutation_type="samples",
            n_resamples=B,
            vectorized=True,
            rng=np.random.default_rng(11),
        )
        assert r.p[k] == ref.pvalue


def test_permutation_test_draws_one_set_of_flips_for_all_pairs(x):
    r = sg.permutation_test(x, B=400, seed=3)
    signs = sg.sign_flips(x.shape[1], 400, seed=3)
    np.testing.assert_array_equal(sg.permutation_test(x, signs=signs).p, r.p)
    sub = sg.permutation_test(x, [[4, 1], [2, 0]], signs=signs)  # any subset: the same flips
    k = [np.flatnonzero((r.pairs == p).all(1))[0] for p in ([1, 4], [0, 2])]
    np.testing.assert_array_equal(sub.p, r.p[k])  # a swapped pair: the two-sided p is symmetric
    assert set(np.unique(signs)) == {-1.0, 1.0}


# ---------------------------------------------------------------- randomised Tukey HSD


def _tukey_loop(x, perms, pairs):
    """Randomised Tukey HSD written out: permutation by permutation, pair by pair."""
    S, n = x.shape
    maxes = []
    for perm in perms:
        xs = np.empty_like(x)
        for t in range(n):
            for s in range(S):
                xs[s, t] = x[perm[t, s], t]
        m = xs.mean(axis=1)
        maxes.append(max(abs(m[i] - m[j]) for i, j in pairs))
    out = []
    for i, j in pairs:
        d = abs(x[i].mean() - x[j].mean())
        out.append((sum(v >= d - 1e-12 for v in maxes) + 1) / (len(perms) + 1))
    return np.array(out)


@pytest.mark.parametrize("baseline", [None, 2])
def test_tukey_hsd_equals_a_literal_loop(x, baseline):
    B, (S, n) = 300, x.shape
    perms = np.random.default_rng(4).permuted(np.tile(np.arange(S), (B, n, 1)), axis=-1)
    r = sg.tukey_hsd(x, baseline=baseline, permutations=perms)
    assert r.correction == "tukey" and r.B == B
    np.testing.assert_array_equal(r.p, _tukey_loop(x, perms, r.pairs))
    np.testing.assert_array_equal(r.p_adjusted, r.p)
    if baseline is not None:
        assert (r.pairs[:, 1] == 2).all() and r.baseline == "2"


def test_tukey_hsd_pvalues_of_many_matrices_equal_a_literal_loop_and_tukey_hsd_per_matrix():
    rng = np.random.default_rng(14)
    xs = rng.random((3, 4, 7))  # 3 families of 4 systems on 7 topics
    perms = rng.permuted(np.tile(np.arange(4), (100, 7, 1)), axis=-1)
    p = sg.tukey_hsd_pvalues(xs, perms)
    pairs = np.column_stack(np.triu_indices(4, 1))
    assert p.shape == (3, len(pairs))
    for f in range(3):
        np.testing.assert_array_equal(p[f], _tukey_loop(xs[f], perms, pairs))
        np.testing.assert_array_equal(p[f], sg.tukey_hsd(xs[f], permutations=perms).p)
    with pytest.raises(ValueError, match="matrices, systems, topics"):
        sg.tukey_hsd_pvalues(xs[0], perms)
    with pytest.raises(ValueError, match="permutations"):
        sg.tukey_hsd_pvalues(xs, perms[:, :6])


def test_tukey_hsd_largest_pair_equals_scipy_range_test(x):
    """The pair with the largest difference: its p-value is the permutation test of the range of
    the means, which scipy computes with the systems as paired samples on the same permutations."""
    B, (S, n) = 400, x.shape
    perms = np.random.default_rng(9).permuted(np.tile(np.arange(S), (B, n, 1)), axis=-1)
    r = sg.tukey_hsd(x, permutations=perms)

    def spread(*samples, axis):
        m = np.stack([s.mean(axis=axis) for s in samples])
        return m.max(axis=0) - m.min(axis=0)

    ref = stats.permutation_test(
        tuple(x),
        spread,
        permutation_type="samples",
        n_resamples=B,
        vectorized=True,
        alternative="greater",
        rng=np.random.default_rng(9),
    )
    k = np.argmax(np.abs(r.difference))
    assert r.p[k] == ref.pvalue
    assert (r.p >= r.p[k]).all()


def test_tukey_hsd_is_more_conservative_than_the_unadjusted_permutation_test(x):
    perm = sg.permutation_test(x, B=2000, seed=1)
    hsd = sg.tukey_hsd(x, B=2000, seed=1)
    assert (hsd.p >= perm.p - 3 * np.sqrt(0.25 / 2000)).all()
    assert np.mean(hsd.p) > np.mean(perm.p)


# ---------------------------------------------------------------- classical tests, baseline, correction


def test_pairwise_test_classical_equal_scipy(x):
    x = x.copy()
    x[3, :4] = x[1, :4]  # zero differences (sign test drops them, Wilcoxon's "wilcox" too)
    refs = {
        "paired-t": lambda a, b: stats.ttest_rel(a, b).pvalue,
        "wilcoxon": lambda a, b: stats.wilcoxon(a - b).pvalue,
        "sign": lambda a, b: stats.binomtest(int((a > b).sum()), int((a != b).sum())).pvalue,
    }
    for test, ref in refs.items():
        r = sg.pairwise_test(x, test, correction="none")
        assert r.test == test and r.B == 0
        np.testing.assert_allclose(r.p, [ref(x[i], x[j]) for i, j in r.pairs], rtol=1e-10)


def test_bootstrap_through_pairwise_test_is_sakais_paired_test(x):
    r = sg.pairwise_test(x, "bootstrap", B=300, seed=2, correction="none")
    ref = sg.paired_bootstrap_test(x, B=300, seed=2)
    np.testing.assert_array_equal(r.p, ref.p)
    np.testing.assert_array_equal(r.difference, ref.difference)


@pytest.mark.parametrize("test", list(sg.TESTS))
def test_baseline_family_is_the_baseline_pairs_corrected_over_them(x, test):
    from statsmodels.stats.multitest import multipletests

    names = [f"run{i}" for i in range(6)]
    sm = ScoreMatrix(x, tuple(names), tuple(map(str, range(x.shape[1]))), "AP")
    r = sg.pairwise_test(sm, test, baseline="run3", B=200, seed=5)
    assert r.pairs.tolist() == [[0, 3], [1, 3], [2, 3], [4, 3], [5, 3]] and r.baseline == "run3"
    np.testing.assert_allclose(r.difference, x[[0, 1, 2, 4, 5]].mean(1) - x[3].mean())
    same = sg.pairwise_test(sm, test, baseline=3, B=200, seed=5)  # by index
    np.testing.assert_array_equal(same.p_adjusted, r.p_adjusted)
    if test != "tukey":
        np.testing.assert_allclose(r.p_adjusted, multipletests(r.p, method="holm")[1])
        bh = sg.pairwise_test(sm, test, baseline="run3", correction="fdr_bh", B=200, seed=5)
        np.testing.assert_allclose(bh.p_adjusted, multipletests(r.p, method="fdr_bh")[1])


def test_baseline_on_sakais_tests(x):
    s = bt.bootstrap_samples(x.shape[1], 200, seed=1)
    r = sg.paired_bootstrap_test(x, baseline=1, samples=s)
    ref = sg.paired_bootstrap_test(x, bt.baseline_pairs(6, 1), samples=s)
    np.testing.assert_array_equal(r.p, ref.p)
    assert r.pairs.tolist() == [[0, 1], [2, 1], [3, 1], [4, 1], [5, 1]]
    u = sg.unpaired_bootstrap_test(x, baseline=1, B=100, seed=2)
    assert len(u.pairs) == 5
    holm = bt.comparisons(r, correction="holm")  # the family is the 5 baseline pairs
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose([c.p_adjusted for c in holm], multipletests(r.p, method="holm")[1])


def test_bad_baselines_and_corrections(x):
    with pytest.raises(ValueError, match="pairs or baseline"):
        sg.paired_bootstrap_test(x, [[0, 1]], baseline=0, B=10, seed=1)
    with pytest.raises(KeyError, match="not one of the 6 systems"):
        sg.pairwise_test(x, baseline="nope")
    with pytest.raises(ValueError, match="0..5"):
        sg.permutation_test(x, baseline=6, seed=1)
    with pytest.raises(ValueError, match="name .* or index"):
        sg.pairwise_test(x, baseline=1.0)
    with pytest.raises(ValueError, match="family-wise already"):
        sg.pairwise_test(x, "tukey", correction="holm", seed=1)
    with pytest.raises(ValueError, match="correction must be"):
        sg.pairwise_test(x, correction="sidak-ish")
    with pytest.raises(ValueError, match="test must be"):
        sg.pairwise_test(x, "student")


def test_identical_systems_have_no_t_test_and_count_as_p_1_in_the_family(x):
    x = x.copy()
    x[1] = x[0]
    r = sg.pairwise_test(x, "paired-t")
    k = np.flatnonzero((r.pairs == [0, 1]).all(1))[0]
    assert np.isnan(r.p[k]) and np.isnan(r.p_adjusted[k]) and not r.significant()[k]
    from statsmodels.stats.multitest import multipletests

    ok = ~np.isnan(r.p)
    full = multipletests(np.where(ok, r.p, 1.0), method="holm")[1]
    np.testing.assert_allclose(r.p_adjusted[ok], full[ok])


@pytest.mark.parametrize("test", list(sg.TESTS))
def test_rounding_noise_is_no_difference_for_any_test(test):
    """Two runs that differ by 1e-12 on every topic (rounding, e.g. scores written by two tools)
    are not significantly different by any test, while a real difference of the same shape on
    top of the noise is (the classical tests against scipy on the noise-free differences)."""
    y = np.random.default_rng(0).uniform(0.1, 0.9, 20)
    m = np.vstack([y, y + 1e-12, y + 1e-12 + np.linspace(0.02, 0.2, 20)])
    r = sg.pairwise_test(m, test, baseline=0, seed=1, correction="none")
    assert not r.significant(0.05)[0], (test, r.p[0])
    # (the unpaired test ignores the pairing: a shift of 0.11 is within the topics' spread)
    assert r.significant(0.05)[1] or test == "unpaired-bootstrap", (test, r.p[1])
    if test in ("paired-t", "wilcoxon", "sign"):
        d = np.linspace(0.02, 0.2, 20)
        ref = {
            "paired-t": stats.ttest_rel(y + d, y).pvalue,
            "wilcoxon": stats.wilcoxon(d).pvalue,
            "sign": stats.binomtest(20, 20).pvalue,
        }[test]
        assert r.p[1] == pytest.approx(ref, rel=1e-6)
    rows = sg.compare(m[:2], baseline=0, test=test, seed=1).to_string().splitlines()[2:4]  # the two runs
    assert not any(a in r for r in rows for a in "↑↓"), rows


# ---------------------------------------------------------------- workers


@pytest.mark.parametrize("test", list(sg.TESTS))
def test_results_do_not_depend_on_the_number_of_workers(x, test, monkeypatch):
    monkeypatch.setattr(sg_bootstrap, "_CHUNK", 4)  # several chunks of pairs
    one = sg.pairwise_test(x, test, B=2000, seed=8, n_jobs=1)  # Holm over its pairs: B >= 20 m / alpha
    two = sg.pairwise_test(x, test, B=2000, seed=8, n_jobs=2)
    np.testing.assert_array_equal(one.p, two.p)
    np.testing.assert_array_equal(one.p_adjusted, two.p_adjusted)
    e1 = sg.effect_sizes(x, kind="ES_E", B=200, seed=3, n_jobs=1)
    e2 = sg.effect_sizes(x, kind="ES_E", B=200, seed=3, n_jobs=2)
    np.testing.assert_array_equal(e1.low, e2.low)
    t1 = sg.compare({"a": x, "b": x**2}, test=test, baseline=0, intervals=True, B=2000, seed=1, n_jobs=1)
    t2 = sg.compare({"a": x, "b": x**2}, test=test, baseline=0, intervals=True, B=2000, seed=1, n_jobs=2)
    pd.testing.assert_frame_equal(t1.to_frame(), t2.to_frame())


# ---------------------------------------------------------------- effect sizes


def test_residual_variance_is_statsmodels_anova_residual_mean_square():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(2)
    x = rng.beta(2, 4, size=(5, 8)) + np.linspace(0, 0.2, 5)[:, None]
    long = pd.DataFrame(
        {"score": x.ravel(), "system": np.repeat(np.arange(5), 8), "topic": np.tile(np.arange(8), 5)}
    )
    table = anova_lm(smf.ols("score ~ C(system) + C(topic)", data=long).fit())
    assert sg.residual_variance(x) == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-12)


def _dz(z, axis=-1):
    return np.mean(z, axis=axis) / np.std(z, axis=axis, ddof=1)


@pytest.mark.parametrize("kind", ["difference", "d_z"])
def test_paired_effect_size_intervals_equal_scipy_bootstrap(x, kind):
    B = 500
    r = sg.effect_sizes(x, kind=kind, B=B, seed=4)  # the topic samples scipy draws from the same seed
    stat = (lambda z, axis=-1: np.mean(z, axis=axis)) if kind == "difference" else _dz
    for k, (i, j) in enumerate(r.pairs):
        z = x[i] - x[j]
        ref = stats.bootstrap((z,), stat, n_resamples=B, method="BCa", rng=np.random.default_rng(4))
        assert r.estimate[k] == pytest.approx(stat(z), rel=1e-12)
        assert (r.low[k], r.high[k]) == pytest.approx(
            (ref.confidence_interval.low, ref.confidence_interval.high), rel=1e-9, abs=1e-12
        )


def test_es_e_interval_equals_scipy_bootstrap_of_the_whole_matrix(x):
    """ES_E of a pair re-estimates V_E from all systems on each bootstrap sample of topics: scipy's
    paired bootstrap of the S systems' score vectors with the same statistic, on the same samples."""
    B = 400
    r = sg.effect_sizes(x, kind="ES_E", B=B, seed=6)
    assert r.residual_sd == pytest.approx(np.sqrt(sg.residual_variance(x)))

    def es_e(i, j):
        def stat(*rows, axis=-1):
            m = np.stack(rows)  # (S, ..., n)
            r_ = (m - m.mean(axis=-1, keepdims=True) - m.mean(axis=0, keepdims=True)
                  + m.mean(axis=(0, -1), keepdims=True))  # fmt: skip
            S, n = m.shape[0], m.shape[-1]
            ve = (r_**2).sum(axis=(0, -1)) / ((S - 1) * (n - 1))
            return (m[i].mean(axis=-1) - m[j].mean(axis=-1)) / np.sqrt(ve)

        return stat

    for k in (0, 7, 14):
        i, j = r.pairs[k]
        stat = es_e(i, j)
        ref = stats.bootstrap(
            tuple(x),
            stat,
            paired=True,
            vectorized=True,
            n_resamples=B,
            method="BCa",
            rng=np.random.default_rng(6),
        )
        assert r.estimate[k] == pytest.approx(stat(*x), rel=1e-12)
        assert (r.low[k], r.high[k]) == pytest.approx(
            (ref.confidence_interval.low, ref.confidence_interval.high), rel=1e-9
        )


def test_effect_sizes_undefined_where_the_differences_do_not_vary(x):
    x = x.copy()
    x[1] = x[0] + 0.1  # every topic the same difference: d_z is undefined
    r = sg.effect_sizes(x, [[1, 0], [2, 0]], kind="d_z", B=100, seed=1)
    assert np.isnan(r.estimate[0]) and np.isnan(r.low[0]) and np.isfinite(r.estimate[1])
    with pytest.raises(ValueError, match="kind must be"):
        sg.effect_sizes(x, kind="cohen", seed=1)


def _bca_by_hand(est, reps, jack, level=0.95):
    """BCa (Efron & Tibshirani 1993, 14.3) of one statistic, its undefined replicates left out."""
    from scipy import special

    reps = reps[np.isfinite(reps)]
    B = len(reps)
    p = np.clip((np.sum(reps < est) + np.sum(reps <= est)) / (2 * B), 0.5 / B, 1 - 0.5 / B)
    u = jack.mean() - jack
    a = (u**3).sum() / (6 * (u**2).sum() ** 1.5)
    z0, z = special.ndtri(p), special.ndtri(np.array([(1 - level) / 2, (1 + level) / 2]))
    return np.percentile(reps, 100 * special.ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))))


def test_d_z_intervals_equal_a_loop_over_pairs_with_ties_and_zero_variance(monkeypatch):
    """Quarter-point scores on 16 topics (every sum exact: a replicate drawing the topics' multiset
    ties the estimate in both computations); pairs whose d_z, jackknife or some replicates have no
    variance. Each pair against scipy's replicates on the same samples and BCa by hand (undefined
    replicates left out), and scipy's interval where it is defined."""
    monkeypatch.setattr(sg_bootstrap, "_CHUNK", 4)  # several blocks of pairs
    rng = np.random.default_rng(11)
    x = rng.integers(0, 5, size=(7, 16)) / 4
    x[1] = x[0]  # identical runs: 0 / 0
    x[2] = x[0] + 0.25  # the same difference on every topic: d / 0
    x[3], x[3, 5] = x[0], x[0, 5] + 0.5  # one topic differs: the jackknife without it has no sd
    x[4], x[4, [2, 9]] = x[0], x[0, [2, 9]] + [0.25, 0.5]  # two topics: samples drawing neither
    x[5] = x[0] + 0.25 * (rng.random(16) < 0.5)  # two values: ~1 replicate in 5 ties the estimate
    B = 1000
    r = sg.effect_sizes(x, kind="d_z", B=B, seed=4)  # the topic samples scipy draws from the same seed
    seen = set()
    for k, (i, j) in enumerate(r.pairs):
        z = x[i] - x[j]
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's BCa of an undefined statistic: NaN, and it warns
            ref = stats.bootstrap((z,), _dz, n_resamples=B, method="BCa", rng=np.random.default_rng(4))
            jack = np.array([_dz(np.delete(z, t)) for t in range(16)])
        reps = ref.bootstrap_distribution
        if z.std() == 0 or not np.isfinite(jack).all():  # no d_z, or no acceleration: no interval
            assert np.isnan([r.low[k], r.high[k]]).all() and np.isnan(r.estimate[k]) == (z.std() == 0)
            seen.add("no d_z" if z.std() == 0 else "no acceleration")
            continue
        assert r.estimate[k] == pytest.approx(_dz(z), rel=1e-12)
        want = _bca_by_hand(_dz(z), reps, jack)
        np.testing.assert_allclose([r.low[k], r.high[k]], want, rtol=1e-9, atol=1e-12)
        if np.isfinite(reps).all():
            scipy_ci = [ref.confidence_interval.low, ref.confidence_interval.high]
            np.testing.assert_allclose([r.low[k], r.high[k]], scipy_ci, rtol=1e-9, atol=1e-12)
        else:
            seen.add("undefined replicates")
        if np.sum(reps == _dz(z)) > B / 10:
            seen.add("ties with the estimate")
    assert seen == {"no d_z", "no acceleration", "undefined replicates", "ties with the estimate"}


def test_win_tie_loss_counts_like_a_loop(x):
    x = x.copy()
    x[2, :5] = x[0, :5]
    w = sg.win_tie_loss(x, baseline=0)
    for row in w.itertuples():
        a, b = x[int(row.system_x)], x[int(row.system_y)]
        assert (row.wins, row.ties, row.losses) == ((a > b).sum(), (a == b).sum(), (a < b).sum())
    assert w.loc[w.system_x == "2", "ties"].item() == 5


# ---------------------------------------------------------------- the table


@pytest.fixture
def matrices(x):
    names = ("bm25", "dense_1", "rm3", "splade", "t5&co", "50%")  # LaTeX specials in run names
    topics = tuple(map(str, range(x.shape[1])))
    return {
        "AP": ScoreMatrix(x, names, topics, "AP"),
        "nDCG@10": ScoreMatrix(np.sqrt(x), names, topics, "nDCG@10"),
    }


def test_compare_marks_follow_the_test(matrices):
    tab = sg.compare(matrices, baseline="bm25", test="permutation", B=2000, seed=1, alpha=0.05)
    frame = tab.to_frame()
    for m, sm in matrices.items():
        ref = sg.pairwise_test(sm, "permutation", baseline="bm25", B=2000, seed=tab_seed_child(1))
        np.testing.assert_array_equal(frame.loc[list(sm.systems[1:]), (m, "p adjusted")], ref.p_adjusted)
        sig = frame[(m, "significant")].dropna().to_numpy()
        np.testing.assert_array_equal(sig, np.where(ref.p_adjusted < 0.05, np.sign(ref.difference), 0))
        np.testing.assert_allclose(frame[(m, "mean")], sm.mean())
    text = tab.to_string()
    assert "randomization (permutation) test, B = 2,000" in text and "Holm" in text


def tab_seed_child(seed):
    """compare draws its tests from the first child of the seed (the intervals from the second)."""
    from irrepro import parallel

    return parallel.as_seed_sequence(seed).spawn(2)[0]


def test_compare_without_baseline_names_the_runs_each_beats(matrices):
    tab = sg.compare(matrices, test="paired-t", correction="none", alpha=0.05)
    r = tab.tests["AP"]
    x = matrices["AP"].scores
    for s, beaten in enumerate(tab.beats("AP")):
        ref = [matrices["AP"].systems[j] for j in range(6)
               if j != s and stats.ttest_rel(x[s], x[j]).pvalue < 0.05 and x[s].mean() > x[j].mean()]  # fmt: skip
        assert sorted(beaten) == sorted(ref)
    assert r.correction == "none"
    md = tab.to_markdown()
    assert "<sup>" in md and "**" in md and "| #" in md


def test_compare_intervals(matrices):
    tab = sg.compare(matrices, baseline=0, intervals=True, B_intervals=300, seed=2)
    es = sg.effect_sizes(matrices["AP"], baseline=0, kind="difference", B=300, seed=tab_seed_intervals(2))
    np.testing.assert_array_equal(tab.low["AP"].to_numpy()[1:], es.low)
    assert np.isnan(tab.low["AP"].iloc[0])
    assert "95% CI" in tab.to_string() and "BCa" in tab.to_string()
    free = sg.compare(matrices, intervals=True, B_intervals=300, seed=2)  # no baseline: of the mean
    lo, hi = free.low["AP"].to_numpy(), free.high["AP"].to_numpy()
    assert (lo < matrices["AP"].mean()).all() and (matrices["AP"].mean() < hi).all()


def tab_seed_intervals(seed):
    from irrepro import parallel

    return parallel.as_seed_sequence(seed).spawn(2)[1]


@pytest.mark.parametrize("kind", ["d_z", "ES_E"])
def test_compare_effect_sizes_are_effect_sizes_on_the_intervals_samples(matrices, kind):
    """Each run's effect size against the baseline: ``effect_sizes`` on the intervals' topic samples
    (the second child of the seed), the same with or without the intervals; for d_z, scipy's BCa."""
    tab = sg.compare(matrices, baseline="rm3", intervals=True, effect_size=kind, B_intervals=300, seed=2)
    alone = sg.compare(matrices, baseline="rm3", effect_size=kind, B_intervals=300, seed=2).to_frame()
    frame = tab.to_frame()
    samples = bt.bootstrap_samples(25, 300, seed=tab_seed_intervals(2))
    for m, sm in matrices.items():
        es = sg.effect_sizes(sm, baseline="rm3", kind=kind, samples=samples)
        others = [sm.systems[i] for i in es.pairs[:, 0]]
        for col, v in ((kind, es.estimate), (f"{kind} low", es.low), (f"{kind} high", es.high)):
            np.testing.assert_array_equal(frame.loc[others, (m, col)], v)
            np.testing.assert_array_equal(alone.loc[others, (m, col)], v)
            assert np.isnan(frame.loc["rm3", (m, col)])
    assert "BCa bootstrap interval over topics (B = 300, the samples of the difference's)" in tab.note()
    assert ("mean(z) / sd(z)" if kind == "d_z" else "sqrt(V_E)") in tab.note()
    if kind == "d_z":  # one pair by scipy: d_z of z = x - baseline, BCa on the same samples
        x = matrices["AP"].scores
        z = x[0] - x[2]
        rng = np.random.default_rng(tab_seed_intervals(2))
        ref = stats.bootstrap((z,), _dz, n_resamples=300, method="BCa", rng=rng).confidence_interval
        assert frame.loc["bm25", ("AP", "d_z")] == pytest.approx(_dz(z), rel=1e-12)
        got = frame.loc["bm25", [("AP", "d_z low"), ("AP", "d_z high")]].to_numpy(dtype=float)
        np.testing.assert_allclose(got, [ref.low, ref.high], rtol=1e-9)


def test_compare_effect_sizes_in_every_format_and_only_when_asked(matrices):
    tab = sg.compare(matrices, baseline="bm25", effect_size="d_z", B_intervals=200, seed=3)
    plain = sg.compare(matrices, baseline="bm25", B_intervals=200, seed=3)
    frame = tab.to_frame()
    added = [(m, q) for m in matrices for q in ("d_z", "d_z low", "d_z high")]
    pd.testing.assert_frame_equal(frame.drop(columns=added), plain.to_frame())  # only columns added
    v, lo, hi = frame.loc["rm3", [("nDCG@10", q) for q in ("d_z", "d_z low", "d_z high")]]
    for fmt in sg.FORMATS:
        out = tab.render(fmt)
        if fmt == "csv":
            back = pd.read_csv(pd.io.common.StringIO(out), index_col="run")
            assert (back.loc["rm3", "nDCG@10 d_z"], back.loc["rm3", "nDCG@10 d_z high"]) == (v, hi)
        else:
            assert (
                f"{v:.4f}" in out and f"[{lo:.4f}, {hi:.4f}]" in out and "95% CI" in out.replace("\\%", "%")
            )
            assert "d_z" in out.replace("\\_", "_").replace("{\\usefont{OT1}{cmtt}{m}{n}\\char95}", "_")
    assert "d_z" not in plain.to_string() and plain.effects == {}
    with pytest.raises(ValueError, match="effect_size is each run's against the baseline: pass baseline"):
        sg.compare(matrices, effect_size="d_z", seed=1)
    with pytest.raises(ValueError, match="effect_size must be one of d_z, ES_E"):
        sg.compare(matrices, baseline=0, effect_size="difference", seed=1)
    with pytest.raises(ValueError, match="pass seed"):
        sg.compare(matrices, baseline=0, effect_size="d_z")


def test_compare_says_why_an_effect_size_has_no_interval(matrices):
    """A run a constant above the baseline has no d_z (sd(z) = 0); one that differs on one topic only
    has a d_z but no interval (the jackknife's d_z without that topic is 0 / 0): "-" and the reason."""
    ap = matrices["AP"]
    x = ap.scores.copy()
    x[1] = x[0] + 0.01
    x[2] = x[0]
    x[2, 3] += 0.2
    sm = ScoreMatrix(x, ap.systems, ap.topics, "AP")
    tab = sg.compare(sm, baseline="bm25", effect_size="d_z", B_intervals=200, seed=1)
    frame = tab.to_frame()
    assert np.isnan(frame.loc["dense_1", ("AP", "d_z")]) and np.isfinite(frame.loc["rm3", ("AP", "d_z")])
    assert frame.loc[["dense_1", "rm3"], ("AP", "d_z low")].isna().all()
    assert frame.loc[["splade", "t5&co", "50%"], ("AP", "d_z low")].notna().all()
    rows = {line.split()[0]: line for line in tab.to_string().splitlines()[2:8]}
    assert "-" in rows["dense_1"].split()[3:] and "-" in rows["rm3"].split()[4:]
    assert (
        "No d_z interval of AP for 2 runs (d_z: -): its differences from the baseline are equal on all "
        "topics but at most one" in tab.note()
    )


def test_compare_csv_has_every_number(matrices, tmp_path):
    tab = sg.compare(matrices, baseline="bm25")
    back = pd.read_csv(pd.io.common.StringIO(tab.to_csv()), index_col="run")
    assert back.loc["rm3", "AP p adjusted"] == pytest.approx(tab.tests["AP"].p_adjusted[1])
    assert back.loc["rm3", "AP wins"] + back.loc["rm3", "AP ties"] + back.loc["rm3", "AP losses"] == 25
    assert np.isnan(back.loc["bm25", "AP p"])


def test_compare_refuses_measures_of_different_runs(matrices):
    other = matrices["AP"].subset(systems=["bm25", "rm3"])
    with pytest.raises(ValueError, match="same runs"):
        sg.compare({"AP": matrices["AP"], "x": other})
    with pytest.raises(ValueError, match="pass seed"):
        sg.compare(matrices, test="permutation")


@pytest.mark.parametrize("baseline", [None, "bm25"])
def test_latex_table_compiles_with_booktabs(matrices, baseline, tmp_path):
    exe = pdflatex()
    tab = sg.compare(
        matrices, baseline=baseline, test="tukey", intervals=True, B=500, B_intervals=200, seed=1
    )
    latex = tab.to_latex(label="tab:runs")
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    assert (
        "t5\\&co" in latex and "50\\%" in latex and "dense{\\usefont{OT1}{cmtt}{m}{n}\\char95}1" in latex
    )  # "_" in typewriter
    doc = tmp_path / "table.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + latex
                   + "\n\\end{document}\n")  # fmt: skip
    run = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 0


# ---------------------------------------------------------------- irrepro compare and the report


@pytest.fixture(scope="module")
def sim_runs(tmp_path_factory):
    from irrepro import data

    d = tmp_path_factory.mktemp("sim")
    rs = data.synthetic.runs(5, 20, list_length=40, seed=3)
    data.synthetic.write_trec(rs, d / "runs", qrels=d / "qrels.txt")
    return d


def test_cli_compare_against_scipy_and_statsmodels(sim_runs, run_cli):
    from statsmodels.stats.multitest import multipletests

    from irrepro import measures, report

    inp = report.load(sim_runs / "runs", sim_runs / "qrels.txt")
    ap = measures.evaluate(inp.runset, ["AP"])["AP"]
    base = inp.runset.runs[2]
    rc, out, err = run_cli(["compare", "--qrels", sim_runs / "qrels.txt", sim_runs / "runs", "-m", "AP", "-m", "P@10",
                            "--baseline", base, "--format", "csv"])  # fmt: skip
    assert rc == 0, err
    got = pd.read_csv(pd.io.common.StringIO(out), index_col="run")
    others = [r for r in inp.runset.runs if r != base]
    x = ap.scores
    p = np.array([stats.ttest_rel(x[inp.runset.runs.index(r)], x[2]).pvalue for r in others])
    np.testing.assert_allclose(got.loc[others, "AP p"], p, rtol=1e-10)
    np.testing.assert_allclose(
        got.loc[others, "AP p adjusted"], multipletests(p, method="holm")[1], rtol=1e-10
    )
    np.testing.assert_allclose(got["AP mean"], ap.mean())
    rc, text, _ = run_cli(["compare", "--qrels", sim_runs / "qrels.txt", sim_runs / "runs", "-m", "AP",
                           "--baseline", sim_runs / "runs" / base, "--test", "sign"])  # by its file  # fmt: skip
    assert rc == 0 and "sign test" in text and f"baseline {base}" in text
    rc, md, _ = run_cli(["compare", "--qrels", sim_runs / "qrels.txt", sim_runs / "runs", "-m", "AP",
                         "--format", "markdown", "--test", "tukey", "-B", "500"])  # fmt: skip
    assert rc == 0 and md.startswith("| #") and "randomised Tukey HSD, B = 500" in md
    rc, tex, _ = run_cli(["compare", "--qrels", sim_runs / "qrels.txt", sim_runs / "runs", "-m", "AP",
                          "--format", "latex", "--intervals"])  # fmt: skip
    assert rc == 0 and "\\begin{tabular}" in tex and "\\toprule" in tex and "BCa" in tex


def test_cli_compare_effect_size(sim_dir, run_cli):
    """--effect-size: each run's d_z / ES_E against --baseline with its BCa interval from -B topic
    samples drawn from the seed's second child, in the CSV, the text and the methods paragraph."""
    from irrepro import measures, report

    rs = report.load(sim_dir / "runs", sim_dir / "qrels.txt").runset
    base = ["compare", "--qrels", sim_dir / "qrels.txt", sim_dir / "runs", "-m", "AP", "-m", "nDCG@10",
            "--baseline", "simrun002", "-B", "400", "--seed", "5"]  # fmt: skip
    samples = bt.bootstrap_samples(len(rs.topics), 400, seed=tab_seed_intervals(5))
    scores = measures.evaluate(rs, ["AP", "nDCG@10"])
    for kind in ("d_z", "ES_E"):
        rc, out, err = run_cli(base + ["--effect-size", kind, "--format", "csv"])
        assert rc == 0, err
        got = pd.read_csv(pd.io.common.StringIO(out), index_col="run")
        for m, sm in scores.items():
            es = sg.effect_sizes(sm, baseline="simrun002", kind=kind, samples=samples)
            others = [sm.systems[i] for i in es.pairs[:, 0]]
            for col, v in ((kind, es.estimate), (f"{kind} low", es.low), (f"{kind} high", es.high)):
                np.testing.assert_allclose(got.loc[others, f"{m} {col}"], v, rtol=1e-15)  # (CSV: repr digits)
    rc, text, _ = run_cli(base + ["--effect-size", "d_z", "--methods"])
    assert rc == 0 and "AP d_z 95% CI" in text and "mean(z) / sd(z)" in text and "B = 400" in text
    assert "Cohen's d\\_z" in text and "d\\_z against the baseline has a 95% bias-corrected" in text
    rc, plain, _ = run_cli(base)
    head = ["run", "AP", "AP", "p", "nDCG@10", "nDCG@10", "p"]
    assert rc == 0 and "d_z" not in plain and plain.splitlines()[0].split() == head
    rc, _, err = run_cli(base[:-6] + ["--effect-size", "d_z"])
    assert rc == 2 and "--effect-size is each run's against the baseline: give --baseline RUN" in err
    rc, _, err = run_cli(base + ["--effect-size", "cohen"])
    assert rc == 2 and "invalid choice: 'cohen'" in err


def test_cli_compare_errors(sim_runs, run_cli):
    base = ["compare", "--qrels", sim_runs / "qrels.txt", sim_runs / "runs", "-m", "AP"]
    rc, _, err = run_cli(base + ["--baseline", "nobody"])
    assert rc == 2 and "--baseline 'nobody' is neither the name nor the file of a run" in err
    rc, _, err = run_cli(base + ["--test", "tukey", "--correction", "holm"])
    assert rc == 2 and "family-wise already" in err
    rc, _, err = run_cli(base + ["--test", "student"])
    assert rc == 2 and "invalid choice" in err


def test_report_with_another_test_and_a_baseline(sim_runs, tmp_path):
    from statsmodels.stats.multitest import multipletests

    from irrepro import report

    inp = report.load(sim_runs / "runs", sim_runs / "qrels.txt")
    base = inp.runset.runs[0]
    rep = report.analyse(
        inp.runset, "AP", seed=2, scale="quick", progress=False, test="paired-t", baseline=base
    )
    x = rep.scores.scores
    assert (rep.pairs["run y"] == base).all() and len(rep.pairs) == 4
    ref = [stats.ttest_rel(x[rep.runs.index(r)], x[0]).pvalue for r in rep.pairs["run x"]]
    np.testing.assert_allclose(rep.pairs["ASL"], ref, rtol=1e-10)
    np.testing.assert_allclose(rep.pairs["ASL (Holm)"], multipletests(ref, method="holm")[1], rtol=1e-10)
    assert rep.summary()["test of the pairs"] == f"paired t-test, against the baseline {base}"
    files = rep.files()
    assert "<caption>Pairs of runs, paired t-test against the baseline" in files["index.html"]
    assert "<h2>2. Pairwise tests: paired t-test</h2>" in files["index.html"]
    assert set(pd.read_csv(pd.io.common.StringIO(files["pairs.csv"]))["test"]) == {"paired t-test"}
    hsd = report.analyse(inp.runset, "AP", seed=2, scale="quick", progress=False, test="tukey")
    assert "ASL (Holm)" not in hsd.pairs and len(hsd.pairs) == 10
    assert "significant pairs, family-wise (randomised Tukey HSD)" in hsd.summary()
    assert "randomised Tukey HSD" in hsd.files()["index.html"]
    with pytest.raises(ValueError, match="baseline 'x' is not one of the runs"):
        report.analyse(inp.runset, "AP", scale="quick", progress=False, baseline="x")


def test_cli_report_takes_the_baseline_by_its_file(sim_runs, tmp_path, run_cli):
    from irrepro import data

    first = data.run_files(sim_runs / "runs")[0]
    name = data.read_run(first).name
    rc, out, err = run_cli(["report", sim_runs / "runs", "--qrels", sim_runs / "qrels.txt", "--out", tmp_path / "rep",
                            "--scale", "quick", "--quiet", "--test", "paired-t", "--baseline", first])  # fmt: skip
    assert rc == 0, err
    pairs = pd.read_csv(tmp_path / "rep" / "pairs.csv")
    assert (pairs["run y"] == name).all() and len(pairs) == 4
    rc, _, err = run_cli(["report", sim_runs / "runs", "--qrels", sim_runs / "qrels.txt", "--out", tmp_path / "r2",
                          "--scale", "quick", "--quiet", "--baseline", "nobody"])  # fmt: skip
    assert rc == 2 and "nobody" in err


def test_permutation_test_gives_several_alternatives_from_one_pass(x):
    signs = sg.sign_flips(x.shape[1], 500, seed=3)
    both = sg.permutation_test(x, signs=signs, alternative=("two-sided", "greater", "less"))
    for res, alt in zip(both, ("two-sided", "greater", "less")):
        one = sg.permutation_test(x, signs=signs, alternative=alt)
        np.testing.assert_array_equal(res.p, one.p)
        assert res.alternative == alt
    with pytest.raises(ValueError, match="alternative must be"):
        sg.permutation_test(x, signs=signs, alternative=("two-sided", "bigger"))


def test_the_note_counts_one_pair_as_one_pair():
    x = np.random.default_rng(5).uniform(0, 1, (3, 20))
    two = sg.compare(ScoreMatrix(x[:2], ("a", "b"), tuple(map(str, range(20))), "AP"), baseline="a")
    assert "Holm's adjustment over 1 pair per measure" in two.note()
    three = sg.compare(ScoreMatrix(x, ("a", "b", "c"), tuple(map(str, range(20))), "AP"), baseline="a")
    assert "Holm's adjustment over 2 pairs per measure" in three.note()
    hsd = sg.compare(
        ScoreMatrix(x[:2], ("a", "b"), tuple(map(str, range(20))), "AP"), test="tukey", B=200, seed=1
    )
    assert "over the 1 pair" in hsd.note() and "over the 1 pairs" not in hsd.note()
