"""Error rates of irrepro.known_truth on cases with a closed form (normal data, the exact null
distributions of the sign and permutation tests, the family-wise error of randomised Tukey HSD),
one-tailed p-values against scipy, and invariance to the number of workers. (The permutation
test and Tukey HSD themselves are tested against scipy and literal loops in test_significance.)"""

import numpy as np
import pytest
from scipy import stats

from irrepro import data
from irrepro import known_truth as kt
from irrepro import significance as sig
from irrepro import simulation as sim
from irrepro.known_truth import _experiments, _pvalues, _rows
from irrepro.known_truth._family import FamilyResult


def _within(rate, target, n, z=4.0):
    return abs(rate - target) <= z * np.sqrt(target * (1 - target) / n)


@pytest.fixture(scope="module")
def normal_null():
    """20,000 paired comparisons of 25 topics with normal differences: H0 true for every test."""
    rng = np.random.default_rng(11)
    b = rng.normal(0.4, 0.2, size=(20_000, 25))
    e = b + rng.normal(0.0, 0.1, size=b.shape)
    two, one = _pvalues.paired_pvalues(b, e, B=200, seed=12)
    return _pvalues.PValues(_pvalues.TESTS, two, one, np.arange(len(b)), 0.0, 25, 200)


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_t_test_type_one_error_is_alpha_on_normal_data(normal_null, alpha):
    for tails in (1, 2):
        rate = normal_null.rejected(alpha, tails)[_pvalues.TESTS.index("paired-t")].mean()
        assert _within(rate, alpha, normal_null.trials)


def test_sign_test_type_one_error_equals_its_exact_binomial_size(normal_null):
    # no zero differences: the sign test rejects when its binomial p <= alpha; exact size from scipy
    n = 25
    for alpha in (0.01, 0.05):
        size = sum(stats.binom.pmf(k, n, 0.5) for k in range(n + 1) if stats.binomtest(k, n).pvalue <= alpha)
        rate = normal_null.rejected(alpha)[_pvalues.TESTS.index("sign")].mean()
        assert _within(rate, size, normal_null.trials)


def test_permutation_test_size_from_the_rank_of_the_observed_mean(normal_null):
    # symmetric differences: the observed mean is exchangeable with its B random sign flips, so
    # the count c of flips at or above it has P(c + 1 <= k) = k / (B + 1) in each tail; with
    # p = min(1, 2 (c + 1) / (B + 1)) and rejection at p < alpha, k = ceil(alpha (B + 1) / 2) - 1
    # per tail, and the two tails are disjoint
    for alpha in (0.05, 0.1):
        size = 2 * (np.ceil(alpha * 201 / 2) - 1) / 201
        rate = normal_null.rejected(alpha)[_pvalues.TESTS.index("permutation")].mean()
        assert _within(rate, size, normal_null.trials)


def test_clustered_se_equals_binomial_se_for_independent_trials(normal_null):
    se = normal_null.se(0.05)["paired-t"]
    rate = normal_null.rejected(0.05)[0].mean()
    assert se == pytest.approx(np.sqrt(rate * (1 - rate) / normal_null.trials), rel=0.01)


def test_clustered_se_matches_statsmodels_cluster_robust_se_of_the_mean():
    """A rate is the OLS mean of the rejection indicators; its cluster-robust se (statsmodels,
    clusters = simulated pairs, small-sample factor G / (G - 1)) is PValues.se's."""
    import statsmodels.api as smapi

    rng = np.random.default_rng(4)
    pair = np.repeat(np.arange(40), 25)
    p_pair = rng.uniform(0.01, 0.2, size=40)[pair]  # pairs differ: a design effect
    two = np.where(rng.random(len(pair)) < p_pair, 0.001, 0.9)[None, :].repeat(len(_pvalues.TESTS), 0)
    res = _pvalues.PValues(_pvalues.TESTS, two, two, pair, 0.0, 25, 100)
    y = res.rejected(0.05)[0].astype(float)
    fit = smapi.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", cov_kwds={"groups": pair})
    assert res.se(0.05)["paired-t"] == pytest.approx(float(fit.bse[0]), rel=1e-10)
    # the design effect carries over to a 5% rate: _mc_error_at scales the binomial error by it
    rate = y.mean()
    deff = (fit.bse[0] / np.sqrt(rate * (1 - rate) / len(y))) ** 2
    assert deff > 1.2
    assert _pvalues._mc_error_at(rate, fit.bse[0], len(y)) == pytest.approx(
        np.sqrt(0.05 * 0.95 / len(y) * deff)
    )
    assert _pvalues._mc_error_at(0.05, kt.mc_error(0.05, 24_000), 24_000) == pytest.approx(
        kt.mc_error(0.05, 24_000)
    )
    assert kt.mc_error(0.05, 24_000) < kt.default_sizes().se < kt.mc_error(0.05, 11_000)


def test_one_tailed_p_values_match_scipy():
    rng = np.random.default_rng(13)
    b = rng.random((40, 30))
    e = np.clip(b + rng.normal(0.03, 0.1, size=b.shape), 0, 1)
    e[:5, :10] = b[:5, :10]  # zero differences
    two, one = _pvalues.paired_pvalues(b, e, B=50, seed=1)
    for r in range(len(b)):
        d = e[r] - b[r]
        k, m = int((d > 0).sum()), int((d != 0).sum())
        refs = [
            stats.ttest_rel(e[r], b[r], alternative="greater").pvalue,
            stats.wilcoxon(d, alternative="greater").pvalue,
            stats.binomtest(k, m, alternative="greater").pvalue,
        ]
        for q, ref in enumerate(refs):
            if ref < 0.5:  # exact where a one-tailed test at alpha < 1/2 can reject
                assert one[q, r] == pytest.approx(ref, rel=1e-9)
            else:  # the other side: discrete tests put the mass at the statistic on both sides
                assert one[q, r] >= 0.5
        assert two[0, r] == pytest.approx(stats.ttest_rel(e[r], b[r]).pvalue, rel=1e-9)


def test_family_wise_error_of_bonferroni_holm_and_hsd_is_at_most_alpha_for_independent_normal_systems():
    rng = np.random.default_rng(15)
    x = rng.normal(size=(4000, 4, 20))
    i, j = np.triu_indices(4, 1)

    min_p = sig.paired_t_pvalues(x[:, i] - x[:, j]).min(axis=1)
    hsd = sig.tukey_hsd_pvalues(x, np.argsort(rng.random((200, 20, 4)), axis=2)).min(axis=1)
    res = FamilyResult(min_p, hsd, np.arange(4000), 4, 20, 200).fwer(0.05)
    assert res["t, Bonferroni / Holm"] <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / 4000)
    # the family's largest difference is exchangeable with the B permutations' largest: its count
    # c of maxima at or above it has P(c + 1 <= k) = k / (B + 1); (c + 1) / (B + 1) < alpha
    # means c + 1 <= ceil(alpha (B + 1)) - 1
    assert _within(res["randomised Tukey HSD"], (np.ceil(0.05 * 201) - 1) / 201, 4000)
    assert res["t, unadjusted"] > 0.15  # six pairs: the unadjusted family-wise error is far above alpha


def test_self_significance_null_is_alpha_for_a_normal_population():
    rng = np.random.default_rng(16)
    pop = rng.normal(0.3, 0.1, size=(20, 4000)) + rng.normal(0, 0.05, size=(1, 4000))
    res = kt.self_significance_null(pop, n_topics=30, trials=1500, seed=17, n_jobs=1)
    s = res.summary()
    assert _within(
        s.loc["raw", "false-positive rate"], 0.05, 1500 * 4, z=5
    )  # shares correlated across systems
    assert _within(s.loc["standardized", "false-positive rate"], 0.05, 1500 * 4, z=5)


@pytest.fixture(scope="module")
def models(real_matrix):
    return [sim.fit_collection(real_matrix(c, "AP"), seed=18) for c in ("trec5", "trec6")]


def test_results_do_not_depend_on_the_number_of_workers(models):
    kw = dict(trials=240, n_pairs=24, B=60, seed=19, pairs_per_task=5)
    one = kt.rejection_experiment(models, 20, n_jobs=1, **kw)
    two = kt.rejection_experiment(models, 20, n_jobs=2, **kw)
    np.testing.assert_array_equal(one.two, two.two)
    np.testing.assert_array_equal(one.one, two.one)
    alt1 = kt.rejection_experiment(models, 20, delta=0.05, n_jobs=1, **kw)
    alt2 = kt.rejection_experiment(models, 20, delta=0.05, n_jobs=2, **kw)
    np.testing.assert_array_equal(alt1.two, alt2.two)
    f1 = kt.family_experiment(
        models, m=3, n_topics=15, trials=60, n_families=6, B=40, seed=20, n_jobs=1, families_per_task=2
    )
    f2 = kt.family_experiment(
        models, m=3, n_topics=15, trials=60, n_families=6, B=40, seed=20, n_jobs=2, families_per_task=2
    )
    np.testing.assert_array_equal(f1.min_p, f2.min_p)
    np.testing.assert_array_equal(f1.hsd_asl, f2.hsd_asl)
    s1 = kt.self_significance_null(models[0].scores, trials=300, seed=21, n_jobs=1, per_task=70)
    s2 = kt.self_significance_null(models[0].scores, trials=300, seed=21, n_jobs=2, per_task=70)
    np.testing.assert_array_equal(s1.share["raw"], s2.share["raw"])


def test_simulated_pairs_have_the_true_difference(models):
    kw = dict(trials=400, n_pairs=40, B=50, seed=22)
    for delta in (0.0, 0.05):
        pairs = _experiments.sample_pairs(models, 40, delta=delta, seed=23)
        for c, i, j in pairs[:5]:
            pm = _experiments._pair_model(models, c, i, j, delta)
            assert pm.e.mean - pm.b.mean == pytest.approx(delta, abs=1e-7)
            b, e = pm.sample(50, 2000, seed=24)
            d = (e - b).mean(axis=1)
            assert abs(d.mean() - delta) <= 4 * d.std(ddof=1) / np.sqrt(len(d))
    res = kt.rejection_experiment(models, 30, delta=0.1, **kw)
    null = kt.rejection_experiment(models, 30, **kw)
    assert (
        (res.rates([0.05]).iloc[0] > null.rates([0.05]).iloc[0])
        .loc[["paired-t", "wilcoxon", "bootstrap", "permutation"]]
        .all()
    )
    frame = res.frame(alphas=[0.05], tails=[1, 2])
    assert set(frame.test) == set(_pvalues.TESTS) and len(frame) == 2 * len(_pvalues.TESTS)


def test_corpus_coverage_runs_on_a_known_population(real_runs):
    rs = real_runs("trec-covid-round5")
    sub = rs.subset(runs=rs.runs[:4], topics=rs.topics[:6])
    r6 = np.minimum([448, 65, 10, 196, 35, 332], sub.qrels.n_relevant())
    sub = sub.with_qrels(data.thin_qrels(sub.qrels, r6, seed=3, match="order"))
    a = kt.corpus_coverage(sub, n_corpora=2, B=60, seed=25, n_jobs=1)
    b = kt.corpus_coverage(sub, n_corpora=2, B=60, seed=25, n_jobs=2)
    t = a.table()
    assert list(t.index) == list(a.methods)
    np.testing.assert_array_equal(a.truth["bca"], b.truth["bca"])
    assert np.allclose(t[["below", "coverage", "above"]].sum(axis=1), 1.0)
    assert (a.n_rel <= np.maximum(r6, 0).max()).all()


# --- the chapter's rows for the book's one rule --------------------------------------------------


def _uneven_null(trials=400, pairs=8, seed=3):
    """p-values whose rejections at 0.05 cluster by pair: pair c rejects with probability c / 40."""
    rng = np.random.default_rng(seed)
    pair = np.repeat(np.arange(pairs), trials // pairs)
    p = np.where(rng.random((len(_pvalues.TESTS), trials)) < pair / 40, 0.01, 0.5)
    return _pvalues.PValues(_pvalues.TESTS, p, p, pair, 0.0, 25, 100)


def test_comparison_rows_are_rates_with_their_clustered_error_and_urbanos_trials():
    from irrepro import book

    U = book.paper_numbers("urbano2019statistical")
    r = _uneven_null()
    rows = {row["quantity"]: row for row in kt.rows.comparison_rows({("AP", 25): r}, U, "type1")}
    row = rows["AP, 25 topics, paired-t"]
    rej = (r.two[0] <= 0.05).astype(float)
    # the clustered standard error of eq. kt-se, written out: sum over pairs of (r_c - p n_c)^2
    r_c = np.bincount(r.pair, rej)
    n_c = np.bincount(r.pair)
    k = len(n_c)
    se = np.sqrt(np.sum((r_c - rej.mean() * n_c) ** 2) * k / (k - 1)) / len(rej)
    assert row["kind"] == "rate" and row["ours"] == pytest.approx(rej.mean())
    assert row["se_mc"] == pytest.approx(se) and se > np.sqrt(rej.mean() * (1 - rej.mean()) / len(rej))
    assert row["se_sampling"] == 0 and row["unit"] == "system pair" and row["replicates"] == 400
    assert row["nominal"] == 0.05  # a type I rate: the margin is a share of alpha
    assert "400 trials in 8 pairs" in row["se_reason"]
    assert row["paper"] is U["type1.ap.25.t2.a0.05"] and row["paper_n"] == U["trials.type1"].value
    power = kt.rows.comparison_rows(
        {("AP", 25): _pvalues.PValues(_pvalues.TESTS, r.two, r.one, r.pair, 0.05, 25, 100)}, U, "power"
    )
    assert power[0]["paper"] is U["power.ap.25.t2.d0.05"] and power[0]["paper_n"] == U["trials.power"].value
    assert "nominal" not in power[0]  # power has no nominal level


def test_type1_rows_judge_with_a_margin_relative_to_alpha_and_print_z():
    from irrepro import book

    U = book.paper_numbers("urbano2019statistical")
    theirs = float(U["type1.ap.25.t2.a0.05"].value)
    trials = 20_000
    pair = np.arange(trials) % 400
    rng = np.random.default_rng(1)
    out = []
    for shift in (0.0, 0.02):  # ours at theirs, and 0.02 above it: outside a margin of 0.01
        p = np.where(rng.random((len(_pvalues.TESTS), trials)) < theirs + shift, 0.01, 0.5)
        res = _pvalues.PValues(_pvalues.TESTS, p, p, pair, 0.0, 25, 100)
        rows = kt.rows.comparison_rows({("AP", 25): res}, U, "type1")
        t = book.compare("urbano2019statistical", "z test", rows, results="").frame.set_index("quantity")
        out.append(t.loc["AP, 25 topics, paired-t"])
    assert out[0]["status"] == "replicated" and out[0]["margin"] == pytest.approx(0.01)
    assert out[1]["status"] == "not replicated" and out[1]["z"] > 3, out[1].to_dict()
    r = out[1]
    paper_se = np.sqrt(theirs * (1 - theirs) / r["paper_n"])
    assert r["z"] == pytest.approx((float(r["ours"]) - theirs) / np.hypot(r["se_mc"], paper_se))
    shown = kt.rows.with_z(book.compare("urbano2019statistical", "z test", [rows[0]], results=""))
    assert (
        shown.frame.columns.get_loc("z = (ours - theirs) / se") == shown.frame.columns.get_loc("status") + 1
    )


def test_pair_clustered_error_of_a_simulated_rate_matches_the_spread_over_resampled_pairs(models):
    """The Monte Carlo error of a known-truth rate clustered by system pair (eq. kt-se), as the
    chapter's rows carry it, against the spread of the rate over independent reruns that draw new
    pairs and topics: power, whose rate differs from pair to pair, at 25 topics."""
    reps = [
        kt.urbano_experiment(models, 25, delta=0.03, trials=300, tests=("paired-t", "sign"), B=20, seed=s)
        for s in range(40)
    ]
    rates = np.array([r.rates([0.05]).iloc[0][["paired-t", "sign"]].to_numpy() for r in reps])
    ses = np.array([r.se(0.05)[["paired-t", "sign"]].to_numpy() for r in reps])
    spread = rates.std(axis=0, ddof=1)
    assert np.allclose(np.sqrt((ses**2).mean(axis=0)), spread, rtol=0.2), (
        np.sqrt((ses**2).mean(axis=0)),
        spread,
    )


def test_their_tests_that_are_not_ours_are_context_rows_not_failed_replications():
    from irrepro import book

    U = book.paper_numbers("urbano2019statistical")
    rows = kt.rows.comparison_rows({("AP", 25): _uneven_null()}, U, "type1")
    table = book.compare("urbano2019statistical", "rows test", rows, results="").frame.set_index("quantity")
    q = "AP, 25 topics, sign"  # scipy's sign test (only d = 0 a tie) is not theirs (|d| <= 0.01)
    assert table.loc[q, "status"] == "not comparable" and table.loc[q, "paper"] is None
    # the note names their rate and the difference
    their = U["type1.ap.25.s2.a0.05"].value
    assert f"their rate {their:.4f}" in table.loc[q, "note"] and "context" in table.loc[q, "note"]
    for t in ("bootstrap", "unpaired-bootstrap"):  # Sakai's: not in their study (theirs is bootstrap-shift)
        q = f"AP, 25 topics, {t}"
        assert table.loc[q, "status"] == "not comparable" and "not in their study" in table.loc[q, "note"]
    for t in ("paired-t", "wilcoxon", "permutation"):  # the same tests: judged by the rule
        assert table.loc[f"AP, 25 topics, {t}", "status_by"] == "rule"
        assert table.loc[f"AP, 25 topics, {t}", "status"] != "not comparable"


def test_level_judges_measured_rates_against_the_promised_rate_by_the_rule():
    assert _rows.level("0.05", [0.049, 0.052], [0.001, 0.001]) == "at its level"
    assert _rows.level("0.05", [0.2, 0.3], [0.001, 0.001]) == "off its level (above)"
    assert _rows.level("0.05", [0.01], [0.001]) == "off its level (below)"
    assert _rows.level("at most 0.05", [0.01], [0.001]) == "at its level"  # a bound: conservative is fine
    assert _rows.level("0.05", [0.05, 0.2], [0.001, 0.001]) == "mixed (above)"
    # the margin is 20% of the level (0.01 about 0.05 and about 0.95), the level exact
    assert _rows.level("0.05", [0.072], [0.004]) == "off its level (above)"  # 0.0654 and up: outside 0.06
    assert _rows.level("0.05", [0.062], [0.004]) == "undecided (above)"  # straddles 0.06
    assert _rows.level("0.05", [0.0585], [0.0005]) == "at its level"
    assert _rows.level("0.95", [0.945, 0.951], [0.002, 0.002]) == "at its level"
    assert _rows.level("0.95", [0.938], [0.001]) == "off its level (below)"
    with pytest.raises(ValueError):
        _rows.level("0.05", [0.05, 0.06], [0.001])


def test_spread_text_gives_the_range_of_the_rates_and_their_largest_se():
    assert _rows._spread_text([0.052, 0.049], [0.002, 0.0015]) == "0.049-0.052 (se ≤ 0.002)"
    assert _rows._spread_text([0.05], [0.0012]) == "0.050 (se ≤ 0.0012)"


def test_level_rows_promise_the_exact_level():
    rows = _rows._level_rows(
        "at most 0.05", [0.049, 0.03], [0.002, 0.002], unit="pair", replicates=None, reason=""
    )
    assert [r["quantity"] for r in rows] == ["rate, setting 1", "rate, setting 2"]
    assert all(r["nominal"] == 0.05 for r in rows)


def test_sample_pairs_draws_two_distinct_systems_the_same_from_one_seed(models):
    for a, b in zip(
        _experiments.sample_pairs(models, 30, seed=1), _experiments.sample_pairs(models, 30, seed=1)
    ):
        assert a == b and a[1] != a[2]  # the same draws from the same seed, two distinct systems


def test_their_rates_for_the_figures_are_every_matching_number_of_their_yml():
    """``their_type1`` / ``their_by_delta`` against the yml's keys read one by one: every type I,
    power and type III number of the measures, sizes and tests asked for, with its value."""
    import re

    from irrepro import book

    U = book.paper_numbers("urbano2019statistical")
    ours = {theirs: o for theirs, o in U.names.items()}  # "w" -> "wilcoxon", "ap" -> "AP"
    measures, tests = ("AP", "P@10"), ("paired-t", "wilcoxon", "sign")
    want1, wantd = {}, {}
    for key in U:
        m = re.fullmatch(r"type1\.(\w+)\.(\d+)\.([a-z]+)([12])\.a([\d.]+)", key)
        if m and ours.get(m[1]) in measures and ours.get(m[3]) in tests and int(m[2]) in (25, 100):
            want1[(ours[m[1]], int(m[2]), ours[m[3]], int(m[4]), float(m[5]))] = U[key].value
        m = re.fullmatch(r"(power|type3)\.(\w+)\.(\d+)\.([a-z]+)([12])\.d([\d.]+)", key)
        if m and ours.get(m[2]) in measures and ours.get(m[4]) in tests and int(m[3]) == 50:
            if float(m[6]) in (0.01, 0.05) and (m[1] == "power" or m[5] == "2"):
                wantd[(m[1], ours[m[2]], ours[m[4]], int(m[5]), float(m[6]))] = U[key].value
    t1 = kt.rows.their_type1(U, measures=measures, sizes=(25, 100), tests=tests)
    got1 = {(r.measure, r.topics, r.test, r.tails, float(r.alpha)): r.value for r in t1.itertuples()}
    assert want1 and got1 == want1
    td = kt.rows.their_by_delta(U, measures=measures, sizes=(50,), tests=tests, deltas=(0.01, 0.05))
    gotd = {(r.kind, r.measure, r.test, r.tails, float(r.delta)): r.value for r in td.itertuples()}
    assert wantd and gotd == wantd


def test_the_chapter_shows_its_method_and_states_no_sentence_in_code():
    """The known-truth chapter: at most 30% of its code lines (non-blank, non-comment) folded, no
    function defined and no sentence made in a code cell (its numbers enter the prose by glue)."""
    import ast
    from pathlib import Path

    import jupytext

    folded_tags = {"hide-input", "remove-input", "remove-cell", "hide-cell"}
    path = Path(__file__).resolve().parents[1] / "notebooks" / "known_truth.md"
    folded = total = 0
    for c in jupytext.read(path).cells:
        if c.cell_type != "code":
            continue
        n = sum(1 for line in c.source.splitlines() if line.strip() and not line.strip().startswith("#"))
        total += n
        folded += n if folded_tags & set(c.metadata.get("tags", [])) else 0
        assert "Markdown(" not in c.source, c.source[:200]
        defined = [d for d in ast.walk(ast.parse(c.source)) if isinstance(d, (ast.FunctionDef, ast.Lambda))]
        assert not defined, c.source[:200]  # none of the chapter's exercises defines one either
    assert total > 100 and folded <= 0.3 * total, (folded, total)


def test_trials_needed_counts_the_rows_the_rule_finds_undecided_for_monte_carlo_reasons():
    """The rows come from book.compare, so the count reads the field the rule records."""
    from irrepro import book

    P = book.paper_numbers("urbano2019statistical")
    err = book.errors(mc=0.0015, unit="system pair", replicates=3000, reason="a simulation samples no data")
    comp = book.compare(
        "urbano2019statistical",
        "Power",
        [
            # ours +- 1.645 x 0.0015 straddles the paper's 0.00114 + 0.0002 margin; its sampling error alone would not
            book.rate("AP, 25 topics, t", P["type1.ap.25.t1.a0.001"], 0.0016, err, nominal=0.001),
            book.rate("AP, 25 topics, w", P["type1.ap.25.w1.a0.001"], 0.0018, err, nominal=0.001),
        ],
        data="simulation",
        results="",
    )
    why = list(comp.frame.get("why", []))
    got = _rows.trials_needed(comp)
    assert got["rows"] == why.count("monte-carlo") >= 1 and got["configurations"] == 1
    assert got["needed"] > 3000 and got["ran"] == 3000


def test_status_counts_counts_the_rows_by_status():
    """The former example of ``kt.rows.status_counts``."""
    from types import SimpleNamespace

    import pandas as pd

    frame = pd.DataFrame({"status": ["replicated", "inconclusive", "replicated"]})
    assert kt.rows.status_counts(SimpleNamespace(frame=frame)) == "2 replicated, 1 inconclusive"


@pytest.mark.parametrize(
    "rates, lead",
    [
        ((0.0700, 0.0710), "An excess beyond 2 se is no Monte Carlo accident:"),
        ((0.0700, 0.0510), "Where the excess passes 2 se (AP) it is no Monte Carlo accident:"),
        ((0.0520, 0.0490), "No excess passes 2 se here"),
    ],
)
def test_hsd_sentence_follows_its_excess(rates, lead):
    """The family-wise paragraph calls HSD's excess no accident only for the measures beyond 2 se."""
    import pandas as pd

    fwer = pd.DataFrame(
        {"t, unadjusted": [0.2, 0.2], "t, Bonferroni / Holm": [0.04, 0.04], "randomised Tukey HSD": rates},
        index=["AP", "P@10"],
    )
    se = pd.DataFrame({c: [0.005, 0.005] for c in fwer.columns}, index=fwer.index)
    text = kt.findings.fwer_text(fwer, se, trials=2000, B=400)
    assert text["kt_hsd_excess"].startswith(lead)
    assert text["kt_hsd_z"] == ", ".join(
        f"{(r - 0.05) / 0.005:+.1f} ({m})" for r, m in zip(rates, fwer.index)
    )
