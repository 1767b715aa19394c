"""The Cormack & Lynam chapter's rows (irrepro.corpus_bootstrap._rows): their sampling errors
against the spread over resampled topics, and the row builders against the validation's tables."""

import numpy as np
import pytest

from irrepro import book
from irrepro import corpus_bootstrap as cb
from irrepro.stats import clustered_se

R = cb.rows


@pytest.fixture(scope="module")
def val5(real_runs):
    rs = real_runs("trec-covid-round5").subset(runs=list(range(0, 126, 4)))  # 32 runs x 50 topics
    return cb.split_validation(rs, 60, seed=2006)


def _topic_spread(hits, topics, n_boot=600, seed=1):
    """The sd of the share of ``hits`` over lists of topics resampled with replacement."""
    rng = np.random.default_rng(seed)
    T = int(topics.max()) + 1
    members = [np.flatnonzero(topics == t) for t in range(T)]
    out = [hits[np.concatenate([members[t] for t in rng.integers(0, T, T)])].mean() for _ in range(n_boot)]
    return float(np.std(out, ddof=1))


@pytest.mark.parametrize("method", ["linear", "logit", "bca", "logit+smallR"])
def test_topic_clustered_error_of_a_list_share_is_the_spread_over_resampled_topics(val5, method):
    mask = val5.lists_mask("A")
    pos = val5.positions("A", method)[mask]
    topics = R.list_topics(mask)
    for side in (pos < 0, pos == 0, pos > 0):
        hits = side.astype(float)
        formula = float(clustered_se(hits, topics))
        spread = _topic_spread(hits, topics)
        assert abs(formula / spread - 1) < 0.2, (method, formula, spread)
        binomial = float(np.sqrt(hits.mean() * (1 - hits.mean()) / len(hits)))
        assert formula > 1.5 * binomial  # the lists of one topic are not independent


def test_list_share_row_carries_the_clustered_error(val5):
    P = book.paper_numbers("cormack2006statistical")
    row = R.list_share_row("logit", P["table1.all.logit"], val5, "A", "logit", paper_n=3652)
    mask = val5.lists_mask("A")
    pos = val5.positions("A", "logit")[mask]
    want = [
        100 * float(clustered_se((s).astype(float), R.list_topics(mask)))
        for s in (pos < 0, pos == 0, pos > 0)
    ]
    np.testing.assert_allclose(row["se_sampling"], want)
    shares = val5.table("A", ["logit"]).set_index("method").loc["logit"]  # as the papers print them
    assert row["ours"] == " / ".join(f"{shares[c]:.1f}" for c in ("below", "in", "above"))
    assert row["unit"] == "topic" and all(x > 0 for x in row["se_mc"]) and len(row["paper_se"]) == 3


@pytest.mark.parametrize("kind", ["bootstrap", "parametric"])
def test_run_shares_over_all_topics_are_the_validations_tables(val5, kind):
    T = len(val5.topics)
    for src in "AB":
        tab = val5.map_table(src, kind).set_index("measure")
        for meas in ("MAP", "L-MAP"):
            pos = R.map_positions(val5, src, kind, meas, np.arange(T))
            assert 100 * np.mean(pos == 0) == pytest.approx(tab.loc[meas, "in"])
            assert 100 * np.mean(pos < 0) == pytest.approx(tab.loc[meas, "below"])


def test_pooled_rows_take_the_larger_of_the_seeds_error_and_spread_as_sampling_and_spread_over_root_k_as_monte_carlo():
    rows = [[{"quantity": "q", "paper": "1 / 2", "ours": f"{a} / {b}", "kind": "rate", "se_sampling": (1.0, 2.0),
              "se_mc": (0.1, 0.1), "unit": "topic"}] for a, b in ((10, 20), (12, 20), (14, 20))]  # fmt: skip
    (r,) = R.pooled(rows)
    assert r["ours"] == "12.0 / 20.0"
    assert r["se_sampling"] == (2.0, 2.0)  # the larger of the seeds' own errors and their sd
    assert r["se_mc"][0] == pytest.approx(2 / np.sqrt(3)) and r["se_mc"][1] < 1e-6
    assert r["replicates"] == 3


def test_bootstrap_monte_carlo_error_is_the_spread_over_bootstrap_seeds(real_runs):
    rs = real_runs("trec-covid-round5").subset(runs=list(range(0, 126, 4)))
    vals = [cb.split_validation(rs, 60, seed=s) for s in range(10)]
    for m in ("linear", "logit"):
        inside = [100 * np.mean(v.positions("A", m)[v.usable] == 0) for v in vals]
        formula = np.mean([R.bootstrap_mc_se(v.normalized_difference("A", m), m, v.B)[1] for v in vals])
        # ten seeds estimate an sd within about 25%: the formula is an approximation of the flips' variance
        assert 0.5 < formula / np.std(inside, ddof=1) < 2, (m, formula, np.std(inside, ddof=1))


def test_a_row_of_three_parts_two_wholly_outside_reads_not_replicated():
    # Table 3 "MAP, B w.r.t. A" with the binomial errors it carried before its errors were clustered
    j = book.judge("27.0 / 68.9 / 4.0", "10.3 / 86.5 / 3.2", kind="rate", ours_se=[2.71, 3.04, 1.57], paper_n=74,
                   se_reason="binomial over runs")  # fmt: skip
    assert j.status == "not replicated"
