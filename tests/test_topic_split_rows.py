"""The topic-split chapter's rows (irrepro.topic_split._rows): each sampling or Monte Carlo error
formula against the spread over resampled units (quick scale), and the rows' fields."""

import numpy as np
import pandas as pd
import pytest

from irrepro import book
from irrepro import topic_split as ts
from irrepro._rule import judge_row
from irrepro.data import synthetic
from irrepro.topic_split._swap import rate_se

YEARS = [synthetic.score_matrix(10, 50, seed=s) for s in (11, 12, 13)]
BINS, SIZE = slice(0, 4), 15


def _runs(k: int, B: int):
    """k independent swap experiments of B repetitions (the same years, other seeds)."""
    return [
        ts.swap_experiment(YEARS, sizes=[5, SIZE, 25], B=B, seed=100 + i, filters=["none"]) for i in range(k)
    ]


@pytest.fixture(scope="module")
def runs():
    return _runs(40, 10)


def test_rate_se_by_repetition_matches_the_spread_over_independent_repetitions(runs):
    # one pooled error rate per experiment: its spread over 40 experiments of 10 repetitions each against the
    # formula clustered by repetition (rate_se), averaged over the experiments
    rates = np.array([r.pooled_error("none", "relative", BINS, SIZE) for r in runs])
    ses = np.array([rate_se(r.pooled_counts("none", "relative", BINS, SIZE)) for r in runs])
    spread, formula = rates.std(ddof=1), np.sqrt(np.mean(ses**2))
    assert formula == pytest.approx(spread, rel=0.2)


def test_bootstrap_over_repetitions_matches_the_spread_over_independent_repetitions(runs):
    # the Monte Carlo error SplitRows gives a projection to 50 topics (a bootstrap over the repetitions)
    P = book.paper_numbers("sanderson2005information")
    values, ses = [], []
    for r in runs[:30]:
        row = ts.rows.SplitRows(P, {"x": r}, n_boot=100, seed=1).projected(
            "projected error, bin 2", None, "x", 2
        )
        values.append(row["ours"])
        ses.append(row["se_mc"])
    assert np.sqrt(np.mean(np.square(ses))) == pytest.approx(np.std(values, ddof=1), rel=0.2)


def test_share_se_by_pair_matches_the_spread_over_resampled_pairs():
    full = ts.full_set_tests(YEARS + [synthetic.score_matrix(30, 50, seed=14)], tests=["paired-t"])
    sel = full[(full.rel_diff >= 0.0) & (full.rel_diff < 0.3)]
    hits = (sel["p_paired-t"] <= 0.05).to_numpy()
    assert 20 < hits.sum() < len(hits) - 20
    row = book.share("q", None, hits, unit="system pair", reason="no random step")
    rng = np.random.default_rng(3)
    boots = [100 * hits[rng.integers(0, len(hits), len(hits))].mean() for _ in range(2000)]
    assert row["se_sampling"] == pytest.approx(np.std(boots, ddof=1), rel=0.2)


def test_share_rows_cluster_by_pair_and_give_all_agreeing_pairs_an_error():
    P = book.paper_numbers("sanderson2005information")
    full = pd.DataFrame({"score_a": [0.5] * 92, "score_b": [0.1] * 92, "rel_diff": [0.95] * 92,
                         "p_paired-t": [0.001] * 92})  # fmt: skip
    rows = ts.rows.share_rows(full, P, [("full.t.90-100%", "paired-t", (0.9, 1.0), None)])
    (row,) = rows
    assert row["ours"] == "100.0%" and row["unit"] == "system pair"
    assert 1.0 < row["se_sampling"] < 5.0  # Agresti & Coull's over 92 pairs, not 0
    assert judge_row(row | {"paper": P["full.t.90-100%"]}).status == "inconclusive"


def test_split_rows_carry_the_monte_carlo_error_and_the_papers_error(runs):
    P = book.paper_numbers("sanderson2005information")
    rows = ts.rows.SplitRows(P, {"x": runs[0]}, n_boot=20, seed=1)
    row = rows.rates("t", "tests.t", "x", "none", [slice(2, 3), slice(5, 6)], 25)
    assert row["unit"] == "repetition" and row["replicates"] == 10 and row["se_sampling"] == 0
    # the paper's 50 repetitions of ten years against our 10 of three
    assert np.allclose(row["paper_se"], np.array(row["se_mc"]) * np.sqrt(10 * 3 / (50 * 10)))
    order = rows.rate_difference("d", "tests.order", [(("x", "none", BINS, 5), ("x", "none", BINS, 25))])
    assert "paper_se" not in order and order["kind"] == "ordering"


# Examples of the chapter's rows (their docstrings are one line), as tests.


def test_rate_se_example():
    e, t = np.array([1, 3, 2, 2]), np.array([10, 10, 10, 10])
    assert round(rate_se((e, t)), 4) == 0.0408  # rates 0.1, 0.3, 0.2, 0.2: sd 0.0816 / sqrt(4)


def test_sd_rows_example():
    sds = [pd.DataFrame({"topics": [5, 15, 25], "sd": [0.030 + d, 0.012, 0.009 + d]}) for d in (0, 0.0005)]
    P = book.paper_numbers("sanderson2005information")
    rows = ts.rows.sd_rows(sds, P, ["sd.5", "sd.25", "sd.below-0.01"], samples=10)
    ours = [r["ours"] for r in rows]
    assert ours[:2] == pytest.approx([0.03, 0.009], abs=0.0005) and ours[3] == 25
    assert 0.067 <= ours[2] < 0.068


def test_pool_rows_example():
    pools = {
        8: pd.DataFrame(
            {"topic": ["1", "2", "1", "2"], "depth": [10, 10, 100, 100], "pool": [40, 60, 400, 500],
             "relevant": [10, 20, 30, 40]}
        )
    }  # fmt: skip
    P = book.paper_numbers("sanderson2005information")
    rows = ts.rows.pool_rows(pools, P, ["pools.ratio", "pools.topics", "pools.relevant"], n_boot=50)
    assert [r["ours"] for r in rows] == ["11.1%", "450", "3.9 x"]


def test_half_claim_row_example():
    full = pd.DataFrame(
        {"score_a": [0.3] * 4, "score_b": [0.24] * 4, "rel_diff": [0.21, 0.22, 0.25, 0.28],
         "p_paired-t": [0.01, 0.04, 0.2, 0.6]}
    )  # fmt: skip
    P = book.paper_numbers("sanderson2005information")
    assert ts.rows.half_claim_row(full, P, "full.t.half")["ours"] == 0.5


def test_share_rows_example():
    full = pd.DataFrame(
        {"score_a": [0.3] * 4, "score_b": [0.2] * 4, "rel_diff": [0.05, 0.06, 0.07, 0.08],
         "p_paired-t": [0.01, 0.5, 0.6, 0.7]}
    )  # fmt: skip
    P = book.paper_numbers("sanderson2005information")
    row = ts.rows.share_rows(full, P, [("full.t.0-10%", "paired-t", (0, 0.1), None)])[0]
    assert (row["ours"], row["unit"], round(row["se_sampling"], 1)) == ("25.0%", "system pair", 25.0)


def test_split_rows_example():
    years = [synthetic.score_matrix(10, 50, seed=s) for s in (1, 2)]
    res = ts.swap_experiment(years, sizes=[5, 15, 25], B=12, seed=3, filters=["none"])
    rows = ts.rows.SplitRows(book.paper_numbers("sanderson2005information"), {"ap": res}, n_boot=20, seed=1)
    row = rows.rates("error 10-15% at 25 topics", None, "ap", "none", [slice(2, 3)], 25)
    assert (row["kind"], row["unit"], row["replicates"]) == ("rate", "repetition", 12)


def test_rise_and_pct_examples():
    dep = pd.DataFrame([[0.30, 0.20, 0.25], [0.10, 0.05, 0.12]], index=[5, 25], columns=[1, 2, 3])
    assert {n: round(v, 2) for n, v in ts.rows.rise(dep).items()} == {5: 0.05, 25: 0.07}
    assert (ts.rows.pct(20.0), ts.rows.pct(3.14159, 1), ts.rows.pct(float("nan"))) == (
        "20%",
        "3.1%",
        "no bin",
    )
