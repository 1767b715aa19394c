"""The scorecard's rule (book.judge) on hand-made rows, and compare / scorecard end to end through
the JSON that compare writes to IRREPRO_RESULTS."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from irrepro import book
from irrepro.book import NOT_COMPARABLE, NOT_REPLICATED, PARTLY, REPLICATED, STATUSES, judge


@pytest.mark.parametrize(
    "paper, ours, status",
    [
        (0.324, 0.323972, REPLICATED),  # within half a unit of the paper's last digit
        (0.324, 0.3246, NOT_REPLICATED),  # just outside it
        (0.05, 0.028, NOT_REPLICATED),
        (94, 94, REPLICATED),
        (5, 3.0, NOT_REPLICATED),
        (15, 14.6, REPLICATED),  # "15" is 15 +- 0.5
        ("0.60", 0.6049, REPLICATED),  # text keeps the paper's trailing zero: +- 0.005
        ("0.60", 0.6051, NOT_REPLICATED),
        (0.60, 0.64, REPLICATED),  # the float 0.60 prints as 0.6: +- 0.05
        ("11%-14%", "13.7%", REPLICATED),  # ranges
        ("11%-14%", "14.7%", NOT_REPLICATED),
        ("357-454", "340", NOT_REPLICATED),
        ("1.7-3.6 x", "3.2 x", REPLICATED),
        ("> 0.6", 0.43, NOT_REPLICATED),  # bounds
        ("> 0.6", 0.61, REPLICATED),
        ("< 1 ('more powerful')", 0.6, REPLICATED),  # parentheses are ignored
        ("well below 0.05", 0.004, REPLICATED),
        ("under 10%", "0-5%", REPLICATED),  # a bound against one of our bins
        ("25%", "20-25%", REPLICATED),
        ("about 10", 9.89, REPLICATED),
        ("1/3", 0.3388, REPLICATED),  # "two thirds": +- 1/6
        ("0 %", "0.0 %", REPLICATED),  # percentages
        ("6 of 6", "6 of 6", REPLICATED),
        ("3.7 / 77.8 / 11.1", "3.8 / 77.7 / 12.2", PARTLY),  # part by part
        ("3.7 / 77.8 / 11.1", "7.7 / 80.1 / 15.2", NOT_REPLICATED),
        ("77.8", "77.9 (round 1) / 80.1 (round 5)", PARTLY),  # one paper value against two of ours
        ("13% -> 7%", "12% -> 7%", REPLICATED),
        ("yes", "yes", REPLICATED),  # words
        ("yes (larger spread)", "no", NOT_REPLICATED),
        (None, 0.5, NOT_COMPARABLE),  # no number in the paper
        (float("nan"), 0.5, NOT_COMPARABLE),
        ("-", "2 of 5", NOT_COMPARABLE),
        ("5%", "no bin", NOT_REPLICATED),  # no value of ours
        (0.5, None, NOT_REPLICATED),
    ],
)
def test_rule_on_hand_made_rows(paper, ours, status):
    got, reason = judge(paper, ours)
    assert got == status, reason
    assert reason


def test_binomial_error_widens_the_tolerance_as_the_counts_shrink():
    # 77.8% of 3652 against 80.1% of 6292: 2.3 points apart, the binomial se of the difference ~0.85
    assert judge("77.8", "80.1")[0] == NOT_REPLICATED
    assert judge("77.8", "80.1", n=(3652, 6292))[0] == NOT_REPLICATED
    assert judge("77.8", "80.1", n=(300, 300))[0] == REPLICATED
    st, reason = judge("77.8", "80.1", n=(300, 300))
    expected = 1.96 * 100 * math.sqrt(0.778 * 0.222 / 300 + 0.801 * 0.199 / 300) + 0.1
    assert f"±{expected:.3g}" in reason and "binomial" in reason
    # shares as fractions; ours only; per-part counts
    assert judge(0.05, 0.103, n=(660, 660))[0] == NOT_REPLICATED
    assert judge("≤ 0.11", 0.127, n=(110, 110))[0] == REPLICATED
    assert judge("1.3%", "2.0%", n=2802)[0] == NOT_REPLICATED
    assert judge("1.3%", "1.7%", n=2802)[0] == REPLICATED
    assert judge("77.8", "79.0 / 80.1", n=(3652, [500, 6292]))[0] == PARTLY


def test_standard_error_and_stated_tolerance():
    assert judge(0.005, 0.09)[0] == NOT_REPLICATED
    assert judge(0.005, 0.09, se=0.2)[0] == REPLICATED
    assert judge(0.005, 0.09, se=[0.2])[0] == REPLICATED
    st, reason = judge("8.25 / 83.5 / 8.25", "8.29 / 83.42 / 8.29", tol=0.25, basis="half-point rounding")
    assert st == REPLICATED and "half-point rounding" in reason
    assert judge("8.25 / 83.5 / 8.25", "8.29 / 83.42 / 8.29")[0] == NOT_REPLICATED  # not to the printed digits


def test_explicit_status_and_verdict_words():
    assert judge("Q, AP", "PDoc", status=book.verdict(False, partly=True)) == (PARTLY, "the chapter's verdict")
    assert judge("claimed", "holds", status="holds")[0] == REPLICATED
    assert judge("claimed", "x", status="does not")[0] == NOT_REPLICATED
    assert judge("74 x 50", "126 x 50", status="not comparable", reason="different collection") == (
        NOT_COMPARABLE, "different collection")
    with pytest.raises(ValueError, match="needs a reason"):
        judge("74 x 50", "126 x 50", status="not comparable")
    with pytest.raises(ValueError, match="status"):
        judge("74 x 50", "126 x 50", status="fine")


@pytest.mark.parametrize(
    "paper, ours, match",
    [
        ("Q-measure, AveP", "AP, Q", "give the row a status"),  # words need a computed status
        ("3.7 / 77.8 / 11.1", "7.7 / 80.1", "3 values"),
        ("5%", 0.05, "percentages"),
        ("13%-7%", "12%", "low to high"),
    ],
)
def test_rule_refuses_rows_it_cannot_judge(paper, ours, match):
    with pytest.raises(ValueError, match=match):
        judge(paper, ours)


def test_compare_shows_status_and_reason_and_hides_rule_inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    comp = book.compare("webber2008score", "Figure 2", [
        {"quantity": "MAP", "paper": 0.324, "ours": np.float64(0.323972)},
        {"quantity": "share", "paper": "77.8", "ours": "80.1", "n": (300, 300), "note": "n lists"},
        {"quantity": "extra", "paper": None, "ours": 3, "reason": "beyond the paper"},
    ])
    assert list(comp.frame.columns) == ["quantity", "paper", "ours", "status", "reason", "note"]
    assert list(comp.frame["status"]) == [REPLICATED, REPLICATED, NOT_COMPARABLE]
    assert comp.frame["reason"].iloc[2] == "the paper gives no number; beyond the paper"
    html = comp._repr_html_()
    assert "replicated" in html and "not comparable" in html
    rec = json.loads((tmp_path / "webber2008score-figure-2.json").read_text())
    assert [r["status"] for r in rec["rows"]] == list(comp.frame["status"])
    assert "n" not in rec["rows"][1]
    with pytest.raises(ValueError, match="Figure 9, row 'order'"):
        book.compare("webber2008score", "Figure 9", [{"quantity": "order", "paper": "a, b", "ours": "b, a"}])


def test_verdict_tables_take_the_word_from_ours_or_note(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    comp = book.compare("cormack2006statistical", "Verdict", [
        {"quantity": "a", "paper": "holds", "ours": book.verdict(True), "note": "x"},
        {"quantity": "b", "paper": "2/3", "ours": 0.66, "note": book.verdict(False, True) + ": 0.66"},
        {"quantity": "c", "paper": "holds", "ours": "not testable", "note": "3 lists"},
        {"quantity": "d", "paper": "claimed", "ours": book.verdict(False), "note": ""},
    ])
    assert list(comp.frame["status"]) == [REPLICATED, PARTLY, NOT_COMPARABLE, NOT_REPLICATED]


def test_scorecard_reads_mixed_rows_and_counts_them(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    book.compare("sakai2006evaluating", "Table 2", [
        {"quantity": "order", "paper": "Q, AP", "ours": "AP, PDoc", "status": book.verdict(False, True)},
        {"quantity": "req. difference", "paper": 0.16, "ours": 0.076, "reason": "other data"},
        {"quantity": "spread", "paper": ".4166 / .2224", "ours": "0.47 / 0.36", "status": "not comparable",
         "reason": "describes the runs"},
        {"quantity": "tau", "paper": "about 10", "ours": 9.9},
    ], data="TREC-COVID")
    book.compare("sakai2006evaluating", "Verdict", [{"quantity": "claim", "paper": "claimed", "ours": "holds"}])
    # a row recorded without a status (an older results file) is judged by the same rule
    (tmp_path / "webber2008score-old.json").write_text(json.dumps(
        {"paper": "webber2008score", "item": "Old", "data": "", "rows": [{"quantity": "q", "paper": 0.742, "ours": 0.7423}]}))
    (tmp_path / "not-a-paper-x.json").write_text(json.dumps({"paper": "nobody", "item": "x", "rows": []}))
    cards = book.scorecard(tmp_path)
    assert list(cards) == [title for _, title in book.PAPERS]
    sakai = cards["Sakai 2006"]
    assert list(sakai["status"]) == [PARTLY, NOT_REPLICATED, NOT_COMPARABLE, REPLICATED, REPLICATED]
    assert sakai["reason"].str.len().gt(0).all() and set(sakai["data"]) == {"TREC-COVID", ""}
    assert list(cards["Webber, Moffat & Zobel 2008"]["status"]) == [REPLICATED]
    assert cards["Cormack & Lynam 2006"].empty
    counts = book.summary(cards)
    assert list(counts.columns) == [*STATUSES, "total"]
    assert counts.loc["Sakai 2006"].tolist() == [2, 1, 1, 1, 5]
    assert counts.loc["Cormack & Lynam 2006", "total"] == 0


def test_every_row_compare_writes_has_a_status(tmp_path, monkeypatch):
    """Rows of every kind the chapters use, written by compare to IRREPRO_RESULTS = tmp_path: each
    comes back from the JSON with one of the four statuses and a reason, none as "compared"."""
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    book.compare("cormack2006statistical", "Table 1", [
        {"quantity": "triple", "paper": "3.7 / 77.8 / 11.1", "ours": "7.7 / 80.1 / 12.2", "n": (3652, 6292)},
        {"quantity": "size", "paper": "74 x 50", "ours": "126 x 50", "status": "not comparable", "reason": "other data"},
        {"quantity": "none", "paper": None, "ours": "+0.05 [+0.04, +0.06]"},
        {"quantity": "range", "paper": "11%-14%", "ours": "14.7%"},
        {"quantity": "words", "paper": "Q, AP", "ours": "AP, nCG", "status": book.verdict(False, True)},
        {"quantity": "yes/no", "paper": "yes", "ours": "no"},
        {"quantity": "se", "paper": 0.005, "ours": np.float64(0.02), "se": 0.2},
    ], data="x")
    book.compare("cormack2006statistical", "Verdict", [
        {"quantity": "claim", "paper": "holds", "ours": "not testable", "note": "no such lists"}])
    rows = [r for f in sorted(tmp_path.glob("*.json")) for r in json.loads(f.read_text())["rows"]]
    assert len(rows) == 8
    assert [r["status"] for r in rows] == [PARTLY, NOT_COMPARABLE, NOT_COMPARABLE, NOT_REPLICATED, PARTLY,
                                           NOT_REPLICATED, REPLICATED, NOT_COMPARABLE]
    assert all(r["reason"] for r in rows)
    card = book.scorecard(tmp_path)["Cormack & Lynam 2006"]
    assert list(card["status"]) == [r["status"] for r in rows]


def test_counts_and_bounds_are_exact():
    assert judge("6 of 6", "5 of 6")[0] == NOT_REPLICATED  # a count is not rounded
    assert judge("> 1", 0.8)[0] == NOT_REPLICATED  # nor is a threshold
    assert judge("> 1", 1.2) == (REPLICATED, "inside the paper's bound")
    assert judge("11%-14%", "12.5%") == (REPLICATED, "inside the paper's range")


def test_reasons_name_the_tolerance_or_the_bound():
    assert judge("> 0.6", 0.43) == (NOT_REPLICATED, "outside the paper's bound by up to 0.17")
    assert judge("6 of 6", "6 of 6") == (REPLICATED, "equal")
    assert judge("6 of 6", "4 of 6") == (NOT_REPLICATED, "differs by up to 2")
    st, reason = judge(0.05, 0.028)
    assert reason == "outside ±0.005 (the printed precision); beyond it by up to 0.017"
    st, reason = judge("3.7 / 77.8", "3.7 / 80.1", n=(3652, 6292))
    assert st == PARTLY and reason.startswith("1 of 2 within ±") and "n = 3652 (paper) / 6292 (ours)" in reason
