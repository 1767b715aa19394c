"""The book's helpers outside its API (row builders, statuses, the rule's row form): their examples
as tests (their docstrings are one line)."""

import numpy as np

from irrepro import book
from irrepro._rule import combine, judge_row, spread_notes, verdict
from irrepro.book._display import reason_kind, status_badge
from irrepro.book._tables import ordering_status


def test_share_rate_score_correlation_claim_rows():
    side = np.array(["in", "in", "below", "in", "above", "in", "in", "in"])
    r = book.share("lists in", "8.25 / 83.5 / 8.25", side, categories=("below", "in", "above"),
                   clusters=[1, 1, 2, 2, 3, 3, 4, 4], unit="topic", reason="no random step")  # fmt: skip
    assert (r["ours"], [round(x, 1) for x in r["se_sampling"]]) == ("12.5 / 75.0 / 12.5", [12.5, 14.4, 12.5])
    e = book.errors(sampling=0.004, unit="topic", mc=0.001, replicates=1000)
    row = book.rate("type I error rate at alpha 0.05", "5%", 0.052, e, nominal=0.05)
    assert (row["kind"], row["ours"], row["se_sampling"], row["nominal"]) == ("rate", 0.052, 0.004, 0.05)
    e = book.errors(sampling=0.003, unit="topic", reason="no random step")
    row = book.score("sd of MAP, 25 topics", 0.032, 0.029, e)
    assert (row["kind"], row["ours"], row["se_mc"], row["se_reason"]) == (
        "score",
        0.029,
        0.0,
        "no random step",
    )
    row = book.correlation("Kendall's tau, AP vs P@10", 0.81, 0.78,
                           book.errors(sampling=0.03, unit="topic", reason="no random step"))  # fmt: skip
    assert (row["kind"], row["ours"], row["unit"]) == ("correlation", 0.78, "topic")
    row = book.claim("larger differences reverse less often", "fewer swaps above 10%",
                     supports="Figure 1: error rate by bin", status=verdict(True))  # fmt: skip
    assert (row["kind"], row["status"], row["supports"]) == ("claim", "holds", "Figure 1: error rate by bin")


def test_ordering_status():
    got = ordering_status(["AP", "Q"], "Q-measure, AveP", {"Q-measure": "Q", "AveP": "AP"},
                          supports="the ranking by discriminative power above")  # fmt: skip
    assert got["status"] == "holds"


def test_verdict_combine_and_badge():
    assert (verdict(True), verdict(False, partly=True), verdict(False)) == ("holds", "partly", "does not")
    got = (
        combine(["replicated", "holds"]),
        combine(["replicated", "not replicated"]),
        combine(["inconclusive", "replicated"]),
    )
    assert got == ("replicated", "partly", "inconclusive")
    badge = status_badge("replicated")
    assert badge.startswith('<span class="irrepro-status" data-status="replicated" ')
    assert badge.endswith("> replicated</span>")


def test_judge_row_spread_notes_and_reason_kind():
    assert (
        judge_row({"paper": "0.50", "ours": 0.52, "kind": "score", "ours_se": 0.001}).status == "replicated"
    )
    assert (
        judge_row({"paper": "0.50", "ours": 0.56, "kind": "score", "ours_se": 0.001}).status
        == "not replicated"
    )
    row = {"quantity": "q", "paper": "0.5", "kind": "score", "ours_se": 0.001}
    runs = [[dict(row, ours=0.51)], [dict(row, ours=0.61)]]
    assert spread_notes(runs, "seeds 1-2") == ["seeds 1-2: 0.51-0.61 (1 replicated, 1 not replicated)"]
    sentence, particulars = reason_kind("within margin 0.05 (correlation); ours exact")
    assert sentence.startswith("Within:") and particulars == "margin 0.05 (correlation); ours exact"
    assert reason_kind("a chapter's own words") == ("a chapter's own words", "")
