"""Tests of irrepro.corpus_bootstrap (Cormack & Lynam 2006), each against an independent
reference: the literal expand-the-list bootstrap, scipy (Poisson law), brute-force
leave-one-document-out jackknife, Monte-Carlo placement of silver bullets, and a simulation where
the truth is known. BCa and the meta-analysis are tested in test_stats.py."""

import numpy as np
import pytest
from scipy import stats

from irrepro import InputError, data
from irrepro import corpus_bootstrap as cb
from irrepro import stats as st
from irrepro.corpus_bootstrap.sampler import _BLOCK, _boot_list, _poisson_ones, _PoissonTables, _tables_for
from irrepro.measures import average_precision

SEED = 20060806


def _random_list(rng, n=60, p=0.25, extra=3):
    rel = rng.random(n) < p
    return rel, int(rel.sum() + rng.integers(0, extra + 1))


def _counts_of(rel, kd):
    """Relevant multiplicities and non-relevant gap counts of a doc-level resample."""
    pos = np.flatnonzero(rel)
    c = np.r_[0, np.cumsum(np.where(rel, 0, kd))]
    prev = np.r_[0, pos[:-1] + 1]
    return kd[pos], c[pos] - c[prev]


# ---------------------------------------------------------------- the kernel is exact


def test_ap_from_counts_equals_ap_of_expanded_list():
    rng = np.random.default_rng(SEED)
    for _ in range(300):
        rel, R = _random_list(rng, n=int(rng.integers(1, 50)), p=rng.uniform(0.05, 0.9))
        kd = rng.poisson(1.0, size=len(rel))
        kd[rng.random(len(rel)) < 0.05] = rng.integers(5, 12)  # exercise the k > 4 path
        r_not = int(rng.integers(0, 3))
        expanded = np.repeat(rel, kd)
        r_star = int(expanded.sum()) + r_not
        k, g = _counts_of(rel, kd)
        got = cb.sampler.ap_from_counts(k[:, None], g[:, None], np.array([r_star]))[0]
        if r_star == 0:
            assert np.isnan(got)
        else:
            assert got == pytest.approx(average_precision(expanded, r_star), abs=1e-12)


def test_compact_lists_reproduce_ap_and_gaps():
    rng = np.random.default_rng(SEED)
    rel = rng.random((4, 5, 30)) < 0.3
    R = rel.sum(-1) + 2
    L = cb.compact_lists(rel, R)
    np.testing.assert_allclose(L.ap.reshape(4, 5), average_precision(rel, R))
    i = 7
    ranks = np.flatnonzero(rel.reshape(20, 30)[i])
    g = L.gaps[L.start[i] : L.start[i + 1]]
    np.testing.assert_array_equal(np.cumsum(g + 1) - 1, ranks)
    with pytest.raises(ValueError, match="relevant documents but R"):
        cb.compact_lists(rel, 0)


@pytest.mark.parametrize("lam", [1, 2, 7, 40, 300])
def test_poisson_tables_follow_the_poisson_law(lam):
    tables = _PoissonTables(400)
    x = tables.draw(np.random.default_rng(lam), np.full(40, lam), 2500).ravel()
    vals, cnt = np.unique(x, return_counts=True)
    lo, hi = stats.poisson.ppf([0.001, 0.999], lam)
    edges = np.arange(lo, hi + 2)
    obs = np.histogram(x, bins=np.r_[-np.inf, edges[1:-1], np.inf])[0]
    cdf = stats.poisson.cdf(edges[:-1], lam)
    exp = np.diff(np.r_[0, cdf[:-1], 1.0]) * len(x)
    keep = exp > 5
    chi = ((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum()
    assert stats.chi2.sf(chi, keep.sum() - 1) > 1e-4
    ones = _poisson_ones(np.random.default_rng(1), (100, 1000)).ravel()
    assert abs(ones.mean() - 1) < 4 * np.sqrt(1 / ones.size) and abs(ones.var() - 1) < 0.02


# ---------------------------------------------------------------- same law as the literal bootstrap


@pytest.mark.parametrize("case", ["typical", "small_R", "perfect"])
def test_fast_bootstrap_has_the_distribution_of_the_literal_one(case):
    rng = np.random.default_rng(SEED)
    if case == "typical":
        rel, R = _random_list(rng, n=80, p=0.3, extra=10)
    elif case == "small_R":  # R* = 0 happens: the NaN share must agree too
        rel, R = np.zeros(40, bool), 2
        rel[[3, 17]] = True
    else:
        rel, R = np.r_[np.ones(3, bool), np.zeros(20, bool)], 3
    B = 4000
    L = cb.compact_lists(rel[None], [R])
    fast = cb.bootstrap_ap(L, B, seed=1)[0]
    ref = cb.sampler.bootstrap_ap_reference(rel, R, B, seed=2)
    nan_f, nan_r = np.isnan(fast).mean(), np.isnan(ref).mean()
    assert abs(nan_f - nan_r) < 4 * np.sqrt(max(nan_r, 1e-3) / B) + 1e-9
    f, r = fast[~np.isnan(fast)], ref[~np.isnan(ref)]
    assert stats.ks_2samp(f, r).pvalue > 1e-3
    se = np.sqrt(r.var() / len(r) + f.var() / len(f))
    assert abs(f.mean() - r.mean()) <= 4 * se + 1e-12
    assert f.std() == pytest.approx(r.std(), rel=0.08, abs=1e-9)


def test_results_identical_with_one_and_several_workers_and_per_list():
    rng = np.random.default_rng(SEED)
    rel = rng.random((3, 8, 50)) < 0.2
    R = rel.sum(-1).max(0) + 4
    one = cb.bootstrap_ap(cb.compact_lists(rel, R[None, :]), 50, seed=7, n_jobs=1)
    two = cb.bootstrap_ap(cb.compact_lists(rel, R[None, :]), 50, seed=7, n_jobs=2)
    np.testing.assert_array_equal(one, two)
    again = cb.bootstrap_ap(cb.compact_lists(rel, R[None, :]), 50, seed=7, n_jobs=2)
    np.testing.assert_array_equal(one, again)
    assert not np.array_equal(one, cb.bootstrap_ap(cb.compact_lists(rel, R[None, :]), 50, seed=8))


def test_compiled_kernel_gives_the_numpy_numbers_bit_for_bit():
    """The compiled kernel (issue 30) and the numpy path (tables' draw + ap_from_counts) give the
    same floats from the same generator, on lists that exercise every branch: blocks of consecutive
    relevant documents (k > 4, digamma), gaps deep in the tables' search, groups of one sample
    (B = a multiple of the group plus one), B above numpy's 8192-element buffer, one block, and a
    gap beyond the tables (numpy's sampler)."""
    tables = _tables_for(1024)
    rng = np.random.default_rng(SEED)
    cases = []
    for _ in range(60):
        m = int(rng.integers(1, 600))
        gaps = np.where(rng.random(m) < 0.6, rng.integers(1, 40, size=m), 0)
        gaps[rng.random(m) < 0.03] = rng.integers(100, 1000)
        nb = 1 + int((gaps[1:] > 0).sum())
        step = max(1, _BLOCK // nb)
        B = int(rng.choice([2, int(rng.integers(3, 2500)), step + 1, 2 * step + 1]))
        cases.append((gaps, m + int(rng.integers(0, 30)), B))
    cases += [
        (np.array([0]), 1, 10_000),
        (np.array([3, 0, 0, 0, 0, 0, 0]), 9, 9000),
        (np.array([0, 5000]), 4, 300),
    ]
    for i, (gaps, n_rel, B) in enumerate(cases):
        fast = _boot_list(gaps, n_rel, B, np.random.default_rng(i), tables)
        plain = _boot_list(gaps, n_rel, B, np.random.default_rng(i), tables, compiled=False)
        np.testing.assert_array_equal(fast.view(np.int64), plain.view(np.int64), err_msg=f"case {i}")


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="B "):
        cb.bootstrap_ap(cb.compact_lists(np.ones((1, 3), bool), [3]), 1, seed=1)
    with pytest.raises(ValueError, match="seed"):
        cb.bootstrap_ap(cb.compact_lists(np.ones((1, 3), bool), [3]), 10, seed=None)
    with pytest.raises(ValueError, match="unknown interval method"):
        cb.intervals_from_replicates(np.zeros(2), np.zeros((2, 5)), ["probit"])


# ---------------------------------------------------------------- the document jackknife of AP


def test_ap_acceleration_equals_brute_force_document_jackknife():
    rng = np.random.default_rng(SEED)
    rels, Rs = [], []
    for _ in range(12):
        rel, R = _random_list(rng, n=30, p=rng.uniform(0.1, 0.6), extra=4)
        if rel.sum() == 0:
            rel[3] = True
            R = max(R, 1)
        rels.append(rel)
        Rs.append(max(R, 2))
    got = cb.ap_acceleration(cb.compact_lists(np.array(rels), np.array(Rs)))
    for rel, R, a in zip(rels, Rs, got):
        theta = average_precision(rel, R)
        vals = [average_precision(np.delete(rel, i), R - int(rel[i])) for i in range(len(rel))]
        vals += [average_precision(rel, R - 1)] * (R - int(rel.sum()))
        u = theta - np.array(vals)
        want = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
        assert a == pytest.approx(want, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------- intervals, small R, prediction


def test_prediction_is_the_papers_83_5_percent():
    below, inside, above = cb.predicted_in_interval()
    assert round(100 * inside, 1) == 83.4 or round(100 * inside, 1) == 83.5
    assert below == pytest.approx(above) and below + inside + above == pytest.approx(1)


def test_linear_and_logit_intervals():
    rng = np.random.default_rng(SEED)
    reps = rng.beta(5, 15, size=(3, 4000))
    est = np.array([0.25, 0.25, 0.0])
    ivs = cb.intervals_from_replicates(est, reps, ["linear", "logit"])
    sd = reps.std(axis=1, ddof=1)
    np.testing.assert_allclose(ivs["linear"].lower, est - st.Z95 * sd)
    lsd = np.log(reps / (1 - reps)).std(axis=1, ddof=1)
    np.testing.assert_allclose(ivs["logit"].upper[:2], 1 / (1 + np.exp(-(np.log(1 / 3) + st.Z95 * lsd[:2]))))
    assert ivs["logit"].lower[2] < cb.intervals.EPS < ivs["logit"].upper[2]


def test_silver_bullet_limit_matches_paper_and_monte_carlo():
    assert cb.intervals.silver_bullet_fraction(4) == pytest.approx(0.53, abs=0.005)  # the paper's example
    rng = np.random.default_rng(SEED)
    R, n = 4, 50
    u0, l1 = cb.intervals.small_r_limits(R, n)
    u = cb.intervals.silver_bullet_fraction(R)
    sims_0, sims_1 = [], []
    for _ in range(20000):
        x = rng.binomial(R, u)
        pos = np.sort(rng.choice(n, x, replace=False))
        rel = np.zeros(n, bool)
        rel[pos] = True
        sims_0.append(average_precision(rel, R))
        rel = np.zeros(n, bool)
        rel[: R - x] = True
        rel[R - x + rng.choice(n - (R - x), x, replace=False)] = True
        sims_1.append(average_precision(rel, R))
    for sims, v in ((sims_0, u0), (sims_1, l1)):
        assert v == pytest.approx(np.mean(sims), abs=4 * np.std(sims) / np.sqrt(len(sims)))
    assert 0 < u0 < 0.53 and 0.47 < l1 < 1


def test_small_r_correction_widens_only_near_0_and_1():
    est = np.array([0.0, 1.0, 0.4, 0.001])
    iv = cb.Intervals("logit", est, est.copy(), est.copy(), np.zeros(4))
    out = cb.small_r_correct(iv, np.array([4, 4, 4, 4]), 1000)
    u0, l1 = cb.intervals.small_r_limits(4, 1000)
    assert (out.lower[0], out.upper[0]) == (0.0, pytest.approx(u0))
    assert (out.lower[1], out.upper[1]) == (pytest.approx(l1), 1.0)
    assert (out.lower[2], out.upper[2]) == (0.4, 0.4)
    assert out.upper[3] == pytest.approx(u0)


# ---------------------------------------------------------------- a population where the truth is known


def _corpora(rng, n_corpora, lam_rel=40, lam_non=3000, depth=100, shift=1.5):
    """Corpora drawn i.i.d. from a known population (relevant scores N(shift, 1), non-relevant
    N(0, 1), Poisson numbers of each); the system returns the top ``depth``."""
    rel_out, R = np.zeros((n_corpora, depth), bool), np.zeros(n_corpora, int)
    for c in range(n_corpora):
        nr, nn = rng.poisson(lam_rel), rng.poisson(lam_non)
        s = np.r_[rng.normal(shift, 1, nr), rng.normal(0, 1, nn)]
        top = np.argsort(-s)[:depth]
        rel_out[c] = top < nr
        R[c] = nr
    return rel_out, R


def test_bootstrap_sd_matches_sd_across_corpora_and_split_prediction_holds():
    rng = np.random.default_rng(SEED)
    rel, R = _corpora(rng, 1500)
    true_sd = average_precision(rel, R).std(ddof=1)
    # bootstrap each of 60 corpora: the average bootstrap sd estimates the true sd
    L = cb.compact_lists(rel[:60], R[:60])
    reps = cb.bootstrap_ap(L, 400, seed=1)
    boot_sd = np.nanstd(reps, axis=1, ddof=1)
    se = boot_sd.std(ddof=1) / np.sqrt(len(boot_sd))
    assert abs(boot_sd.mean() - true_sd) < 4 * se + 0.05 * true_sd
    # two independent corpora A, B: B's AP falls in A's interval about 83.5% of the time
    relb, Rb = _corpora(rng, 600)
    La = cb.compact_lists(rel[:600], R[:600])
    ivs = cb.intervals_from_replicates(La.ap, cb.bootstrap_ap(La, 300, seed=2), ["linear", "logit"])
    ap_b = average_precision(relb, Rb)
    pred = cb.predicted_in_interval()[1]
    for iv in ivs.values():
        inside = np.mean(iv.position(ap_b) == 0)
        assert abs(inside - pred) < 4 * np.sqrt(pred * (1 - pred) / 600) + 0.02, iv.method


# ---------------------------------------------------------------- the real data, at quick scale


@pytest.fixture(scope="module")
def round5(real_runs):
    rs = real_runs("trec-covid-round5")
    return rs.subset(runs=list(range(0, 126, 9)))  # 14 runs x 50 topics


def test_split_corpus_partitions_lists_and_qrels(round5):
    a, b = cb.split_corpus(round5)
    np.testing.assert_array_equal(a.lengths + b.lengths, round5.lengths)
    np.testing.assert_array_equal(a.n_relevant() + b.n_relevant(), round5.n_relevant())
    assert len(a.qrels.table) + len(b.qrels.table) == len(round5.qrels.table)
    s, t = 3, 11
    full = list(round5.doc_ids(s, t))
    ha, hb = list(a.doc_ids(s, t)), list(b.doc_ids(s, t))
    assert ha == [d for d in full if d in set(ha)] and set(ha).isdisjoint(hb)
    assert set(cb.validation.doc_half(ha)) == {0} and set(cb.validation.doc_half(hb)) == {1}
    import hashlib

    assert cb.validation.doc_half([full[0]])[0] == hashlib.md5(full[0].encode()).digest()[-1] % 2


def test_chapter_statistics_at_quick_scale(round5):
    v = cb.split_validation(round5, 60, seed=2006, n_jobs=2)
    w = cb.split_validation(round5, 60, seed=2006, n_jobs=1)
    for key in v.intervals:  # two workers run the halves at once: the same numbers, in the same order
        np.testing.assert_array_equal(v.intervals[key].lower, w.intervals[key].lower)
        np.testing.assert_array_equal(v.intervals[key].upper, w.intervals[key].upper)
    assert list(v.intervals) == list(w.intervals) and list(v.maps) == list(w.maps)
    for key in v.maps:
        np.testing.assert_array_equal(v.maps[key].sd, w.maps[key].sd)
    assert v.usable.sum() == np.sum((v.length["A"] > 0) & (v.length["B"] > 0))  # every topic has R > 0
    for src in "AB":
        tab = v.table(src, ["linear", "logit", "bca", "linear+smallR", "logit+smallR"])
        np.testing.assert_allclose(tab[["below", "in", "above"]].sum(axis=1), 100)
        assert (tab["in"] > 60).all() and (tab["in"] < 95).all()
        r5 = v.table(src, ["linear"], min_rel=5)
        assert r5["n"].iloc[0] <= tab["n"].iloc[0]
        for kind in ("bootstrap", "parametric"):
            mt = v.map_table(src, kind)
            assert (mt["n"] == 14).all() and np.allclose(mt[["below", "in", "above"]].sum(axis=1), 100)
        x = v.normalized_difference(src, "bca")
        assert len(x) == v.usable.sum()
        # small-R correction only widens
        for m in ("linear", "logit"):
            base, cor = v.intervals[(src, m)], v.intervals[(src, m + "+smallR")]
            assert np.all(cor.width[v.usable] >= base.width[v.usable] - 1e-15)
    f = cb.full_corpus(round5, 60, seed=2006)
    assert np.all(f.maps[("parametric", "MAP")].width > 0)
    assert np.nanmedian(f.maps[("parametric", "MAP")].width) < np.nanmedian(
        v.maps[("A", "parametric", "MAP")].width
    )


def test_difference_intervals_on_a_real_pair(round5):
    x, y = round5.runs[0], round5.runs[1]
    d = cb.difference_intervals(round5, x, y, 200, seed=9)
    assert d.usable.all()
    assert np.all(d.sd_paired["AP"][d.usable] >= 0)
    same = cb.difference_intervals(round5, x, x, 50, seed=9)
    assert np.nanmax(np.abs(same.d["AP"])) == 0 and np.nanmax(same.sd_paired["AP"]) == 0
    assert np.nanmin(same.sd_separate["AP"]) > 0
    fe = st.meta_analysis(d.d["logit AP"], d.sd_paired["logit AP"])
    assert fe.lower < fe.effect < fe.upper and fe.k > 0


def test_ap_intervals_from_the_parts():
    rng = np.random.default_rng(SEED)
    rel = np.zeros((2, 3, 40), bool)
    rel[0, :, :6] = rng.random((3, 6)) < 0.7
    rel[1, 0, 5] = True  # a list with small AP
    R = np.array([[8, 9, 10]])
    L = cb.compact_lists(rel, R)
    reps = cb.bootstrap_ap(L, 300, seed=4)
    ap = L.ap.reshape(2, 3)
    ivs = cb.intervals_from_replicates(ap, reps, accel=cb.intervals.ap_acceleration(L))
    assert set(ivs) == set(cb.METHODS)
    for iv in ivs.values():
        ok = np.isfinite(iv.lower)
        assert np.all(iv.lower[ok] <= ap[ok] + 1e-12) and np.all(ap[ok] <= iv.upper[ok] + 1e-12)
    cor = cb.intervals.small_r_correct(ivs["logit"], L.n_rel.reshape(2, 3), L.length.reshape(2, 3))
    assert cor.upper[1, 1] > 0 and cor.lower[1, 1] == 0  # AP = 0 (nothing retrieved): [0, U0]
    again = cb.bootstrap_ap(L, 300, seed=4)
    bca = cb.intervals_from_replicates(ap, again, ["bca"], accel=cb.intervals.ap_acceleration(L))["bca"]
    np.testing.assert_array_equal(bca.lower, ivs["bca"].lower)


def test_run_means_over_all_topics_are_trec_eval_c():
    """average="all" (what irrepro report uses): MAP over all T topics, a topic without a usable
    list (nothing retrieved, or R = 0) counting as a fixed AP 0 - the same mean as
    measures.evaluate(...).mean() (trec_eval -c); its bootstrap replicates, written out here per
    run, and its parametric sd scale by the share of usable topics."""
    from irrepro import measures

    full = data.synthetic.runs(4, 10, list_length=40, seed=3)
    runs = {r: full.run_dict(s) for s, r in enumerate(full.runs)}
    for t in full.topics[:3]:  # run 0 misses three topics, run 1 one
        del runs[full.runs[0]][t]
    del runs[full.runs[1]][full.topics[7]]
    rs = data.load_runs(runs, qrels=full.qrels)
    assert (rs.lengths == 0).sum() == 4 and rs.topics == full.topics
    T = len(rs.topics)
    usual = cb.full_corpus(rs, B=200, seed=4, keep_replicates=True)
    allt = cb.full_corpus(rs, B=200, seed=4, keep_replicates=True, average="all")
    mean_ap = measures.evaluate(rs, "AP")["AP"].mean()
    for kind in ("bootstrap", "parametric"):
        np.testing.assert_allclose(allt.maps[(kind, "MAP")].estimate, mean_ap, atol=1e-12)
    # the literal per-replicate mean over all topics (NaN replicates of a usable list: R* = 0,
    # averaged over the others as the paper's mean does)
    reps = allt.replicates
    for s in range(4):
        u = allt.usable[s]
        per_b = np.array([np.nanmean(reps[s, u, b]) * u.sum() / T for b in range(200)])
        assert allt.maps[("bootstrap", "MAP")].sd[s] == pytest.approx(np.nanstd(per_b, ddof=1), rel=1e-9)
        share = u.sum() / T
        assert allt.maps[("parametric", "MAP")].sd[s] == pytest.approx(
            usual.maps[("parametric", "MAP")].sd[s] * share
        )
        lmap = (st.logit(allt.ap[s, u]).sum() + (T - u.sum()) * st.logit(0.0)) / T
        assert allt.maps[("parametric", "L-MAP")].estimate[s] == pytest.approx(lmap)
    np.testing.assert_allclose(cb.run_means(allt.ap, allt.usable, average="all"), mean_ap, atol=1e-12)
    assert usual.maps[("parametric", "MAP")].estimate[0] > mean_ap[0]  # the paper's mean differs
    with pytest.raises(ValueError, match="average must be one of"):
        cb.full_corpus(rs, B=10, seed=1, average="qrels")


def test_deep_gaps_do_not_build_huge_tables():
    """A 100,000-line list with a relevant document at its end (a gap of ~100,000 non-relevant
    documents) asked the Poisson tables for every mean up to 131,072: 67 GiB. Means above the
    tables' range are drawn by numpy's sampler; the bootstrap agrees with the literal one."""
    import tracemalloc

    tables = _PoissonTables(64)
    x = tables.draw(np.random.default_rng(1), np.array([3, 5000, 20, 80000]), 4000)
    for row, lam in zip(x, (3, 5000, 20, 80000)):
        assert abs(row.mean() - lam) < 5 * np.sqrt(lam / 4000) and row.var() == pytest.approx(lam, rel=0.1)
    rel = np.zeros(100_000, dtype=bool)
    rel[[0, 5, 40, 99_999]] = True
    lists = cb.compact_lists(rel[None, :], 10)
    tracemalloc.start()
    reps = cb.bootstrap_ap(lists, B=2000, seed=3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100 * 2**20
    ref = cb.sampler.bootstrap_ap_reference(rel, 10, 400, seed=4)
    se = np.nanstd(ref) / np.sqrt(400)
    assert abs(np.nanmean(reps) - np.nanmean(ref)) < 5 * se
    assert np.nanstd(reps) == pytest.approx(np.nanstd(ref), rel=0.2)


def test_map_bootstrap_intervals_of_a_run_without_usable_topic_are_nan_without_a_warning():
    """A run none of whose topics is usable has no MAP (NaN), quietly: the report printed
    "irrepro: warning: Mean of empty slice"; the other runs' numbers are np.nanmean's bit for bit."""
    import warnings

    from irrepro.corpus_bootstrap.intervals import _mean_of_usable

    rng = np.random.default_rng(7)
    ap = rng.random((3, 20))
    replicates = rng.random((3, 20, 50))
    usable = rng.random((3, 20)) > 0.3
    usable[1] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = cb.intervals.map_bootstrap_intervals(ap, replicates, usable)
    assert np.isnan(out["MAP"].estimate[1]) and np.isnan(out["MAP"].sd[1])
    assert np.isfinite(out["MAP"].estimate[[0, 2]]).all()
    x = np.where(usable[..., None], replicates, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.array_equal(_mean_of_usable(x), np.nanmean(x, axis=1), equal_nan=True)


def test_poisson_tables_hold_each_means_cdf_and_guide():
    """The tables are built 64 means at a time (memory): every mean's table is its own CDF
    (scipy's, cut to 1 at the last entry) and guide (#{k : F(k) <= i / size}), across the seams
    between the groups of means."""
    t = _PoissonTables(150)
    for lam in (0, 1, 63, 64, 65, 127, 128, 150):
        o, n = t.offset[lam], t.size[lam]
        cdf = stats.poisson.cdf(np.arange(n), lam) if lam else np.ones(n)
        cdf[-1] = 1.0
        np.testing.assert_array_equal(t.cdf[o : o + n], cdf)
        guide = np.searchsorted(cdf, np.arange(n) / n, side="right")
        np.testing.assert_array_equal(t.guide[o : o + n], guide)
        np.testing.assert_array_equal(t.guide_cdf[o : o + n], cdf[guide])
    assert t.cdf.size == t.offset[-1] + t.size[-1]


def test_map_intervals_a_few_runs_at_a_time_equal_one_pass(monkeypatch):
    """map_bootstrap_intervals transforms the replicates a few runs at a time (memory): the same
    numbers, bit for bit, as all runs at once; so does the sd of logit replicates by blocks."""

    rng = np.random.default_rng(3)
    ap, reps = rng.random((7, 12)), rng.random((7, 12, 300))
    reps[rng.random(reps.shape) < 0.05] = np.nan
    usable = rng.random((7, 12)) > 0.2
    whole = cb.intervals.map_bootstrap_intervals(ap, reps, usable, average="all")
    whole_iv = cb.intervals_from_replicates(ap, reps, ("linear", "logit"))
    # one block size for both: two runs (of 12 x 300) at a time, 24 of the 84 lists' sds at a time
    monkeypatch.setattr("irrepro.stats._BLOCK_CELLS", 2 * 12 * 300)
    blocks = cb.intervals.map_bootstrap_intervals(ap, reps, usable, average="all")
    blocks_iv = cb.intervals_from_replicates(ap, reps, ("linear", "logit"))
    for k in whole:
        for f in ("estimate", "lower", "upper", "sd"):
            np.testing.assert_array_equal(getattr(blocks[k], f), getattr(whole[k], f))
    for k in whole_iv:
        np.testing.assert_array_equal(blocks_iv[k].sd, whole_iv[k].sd)


def test_full_corpus_of_lists_equals_full_corpus_of_the_runs():
    """full_corpus takes the runs' compact lists (what irrepro report keeps once the runs are let
    go): the same numbers; the runs and topics are numbered then."""
    from irrepro.corpus_bootstrap.sampler import _lists_of

    rs = data.synthetic.runs(4, 6, list_length=25, seed=5)
    a = cb.full_corpus(rs, B=60, seed=2, average="all")
    b = cb.full_corpus(_lists_of(rs, 1), B=60, seed=2, average="all")
    assert b.runs == ("0", "1", "2", "3") and b.topics == tuple(map(str, range(6)))
    np.testing.assert_array_equal(a.ap, b.ap)
    for k in a.maps:
        np.testing.assert_array_equal(a.maps[k].lower, b.maps[k].lower)
    for k in a.intervals:
        np.testing.assert_array_equal(a.intervals[k].upper, b.intervals[k].upper)
    with pytest.raises(InputError, match=r"shape \(systems, topics\)"):
        cb.full_corpus(cb.compact_lists(np.ones((3, 4), dtype=bool), 5), B=10, seed=1)  # (3,) lists


def test_map_estimates_are_the_run_means_of_ap_over_all_topics():
    """Both MAP intervals of Tables 3 and 4 centre on the run's MAP: A has AP 5/9 and 1/2, B 1/6 and 1."""
    qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1, "d9": 1}, "q2": {"d2": 1, "d4": 1}})
    runs = data.load_runs(
        {"A": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d2": 2, "d5": 1}},
         "B": {"q1": {"d5": 2, "d1": 1}, "q2": {"d4": 2, "d2": 1}}}, qrels)  # fmt: skip
    want = [(5 / 9 + 1 / 2) / 2, (1 / 6 + 1) / 2]
    ap = cb.full_corpus(runs, B=100, seed=1).ap
    boot = cb.intervals.map_bootstrap_intervals(
        ap, cb.bootstrap_ap(runs, B=100, seed=1), ap >= 0, average="all"
    )
    logit = cb.intervals_from_replicates(ap, cb.bootstrap_ap(runs, B=100, seed=1), ["logit"])["logit"]
    para = cb.intervals.map_parametric_intervals(logit, logit.estimate >= 0, average="all")
    np.testing.assert_allclose(boot["MAP"].estimate, want)
    np.testing.assert_allclose(para["MAP"].estimate, want)
