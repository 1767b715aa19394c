"""The book's one rule (book.judge: an equivalence test per row, margins per kind from
book/margins.yml) on hand-made rows and against an independent two-one-sided-tests computation, and
compare / scorecard / verdict_text end to end through the JSON that compare writes to
IRREPRO_RESULTS."""

import ast
import json
import math
import re
from html import escape, unescape
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from _book_checks import check_verdicts, verdict_sentences
from _book_checks import fake_book as _fake_book
from irrepro import InputError, book
from irrepro import _rule as book_reading
from irrepro._rule import KINDS, _combine, judge_row, scaled
from irrepro.book import (
    INCONCLUSIVE,
    NOT_COMPARABLE,
    NOT_REPLICATED,
    PARTLY,
    REPLICATED,
    STATUSES,
    judge,
)
from irrepro.book._display import reason_kind, status_badge, status_table
from irrepro.book._tables import RowRef

ROOT = Path(__file__).resolve().parents[1]
MARGINS = yaml.safe_load((ROOT / "book" / "margins.yml").read_text(encoding="utf-8"))


def _j(paper, ours, kind, se=0.0, **kw):
    """judge with our error (0: exact, and then a reason for it)."""
    return judge(paper, ours, kind=kind, ours_se=se, se_reason=kw.pop("se_reason", "exact"), **kw)


def _ref(status, quantity="q"):
    return RowRef("webber2008score", "Figure 7", quantity, status, "")


# --- the rule on hand-made rows (each expected status worked out in its comment) ------------------


# margins (book/margins.yml): rate min(2 points, half the distance to 0 or 1); correlation 0.05;
# score and count 5% of the paper's value; the paper's interval is its printed value +- half a unit
# of its last digit; ours +- 1.645 ours_se (0.90, two one-sided tests at 5%)
@pytest.mark.parametrize(
    "paper, ours, kind, se, status",
    [
        ("0.324", 0.3246, "score", 0, REPLICATED),  # 0.324 +- 0.0005 +- 0.0162
        ("0.324", 0.36, "score", 0, NOT_REPLICATED),  # above 0.3407
        ("0.05", 0.018, "rate", 0, NOT_REPLICATED),  # below 0.05 - 0.005 - 0.02 = 0.025
        ("0.05", 0.049, "rate", 0.004, REPLICATED),  # 0.049 +- 0.0066 inside 0.025-0.075
        ("0.05", 0.072, "rate", 0.004, INCONCLUSIVE),  # 0.0654-0.0786 straddles 0.075
        ("94", 94, "count", 0, REPLICATED),
        ("94", 80, "count", 0, NOT_REPLICATED),  # below 94 - 0.5 - 4.7
        ("15%", "16.4%", "rate", 0, REPLICATED),  # 15 +- 0.5 +- 2 points
        ("15%", "18%", "rate", 0, NOT_REPLICATED),
        ("about 15%", "16.4%", "rate", 0, REPLICATED),  # "about" reads as the number printed
        ("just over 15%", "16.4%", "rate", 0, REPLICATED),  # 15 to 16, +- 2
        ("just over 15%", "18.5%", "rate", 0, NOT_REPLICATED),  # above 18
        ("almost 15%", "12.5%", "rate", 0, REPLICATED),  # 14 to 15, +- 2
        ("almost 15%", "11.5%", "rate", 0, NOT_REPLICATED),  # below 12
        ("> 0.6", 0.61, "correlation", 0, REPLICATED),  # a bound is not rounded
        ("> 0.6", 0.56, "correlation", 0, NOT_REPLICATED),  # one-sided: no margin in the claim's favour
        ("> 0.6", 0.43, "correlation", 0, NOT_REPLICATED),
        ("under 10%", "9%", "rate", 0, REPLICATED),  # one-sided: below 10
        ("under 10%", "13%", "rate", 0, NOT_REPLICATED),
        ("11%-14%", "15.7%", "rate", 0, REPLICATED),  # a range: 11 to 14 +- 0.5 +- 2
        ("11%-14%", "17%", "rate", 0, NOT_REPLICATED),
        ("3 of 5", "3 of 5", "count", 0, REPLICATED),  # "k of n" is exact
        ("3 of 5", "2 of 5", "count", 0, NOT_REPLICATED),  # margin 0.15: one unit off is outside
        ("2/3", 0.66, "rate", 0, REPLICATED),  # a fraction: a point, +- the margin 0.02
        ("1/3", 0.9, "rate", 0, NOT_REPLICATED),  # above 1/3 + 0.02
        ("almost 1/2", 0.2, "rate", 0, NOT_REPLICATED),  # almost: 1/4 to 1/2, - 0.02 -> 0.23
        ("almost 1/2", 0.26, "rate", 0, REPLICATED),
        ("almost 1/2", 0.53, "rate", 0, NOT_REPLICATED),  # above 1/2 + 0.02 (no rounding either side)
        ("3.7 / 77.8 / 11.1", "3.8 / 77.7 / 15.2", "rate", 0, PARTLY),  # part by part: 15.2 > 13.15
        ("3.7 / 77.8 / 11.1", "7.7 / 80.1 / 15.2", "rate", 0, NOT_REPLICATED),  # 7.7 > 5.6, 80.1 > 79.85
        ("3.7 / 77.8 / 11.1", "3.7 / 77.8 / 13.9", "rate", [0, 0, 1.0], INCONCLUSIVE),  # one straddles
        ("13% -> 7%", "12% -> 7%", "rate", 0, REPLICATED),
        (None, 0.5, "score", 0, NOT_COMPARABLE),  # no number in the paper
        (float("nan"), 0.5, "score", 0, NOT_COMPARABLE),
        ("-", "2 of 5", "count", 0, NOT_COMPARABLE),
        ("5%", "no bin", "rate", 0, NOT_REPLICATED),  # no value of ours
        ("0.5", None, "score", 0, NOT_REPLICATED),
    ],
)
def test_rule_on_hand_made_rows(paper, ours, kind, se, status):
    j = _j(paper, ours, kind, se)
    assert j.status == status, j.reason
    assert j.reason


@pytest.mark.parametrize(
    "paper, kind, ours, se, status",
    [ex for _, _, examples in book_reading.FORMS for ex in examples],
    ids=[f"{ex[0]}:{ex[2]}" for _, _, examples in book_reading.FORMS for ex in examples],
)
def test_every_form_of_the_papers_words_reads_as_the_rule_page_says(paper, kind, ours, se, status):
    """The rule page's table of forms (FORMS): each example gets the status a reader gives it."""
    j = judge(paper, ours, kind=kind, se_sampling=se, se_mc=0, se_reason="an example of the rule page")
    assert j.status == status, j.reason


def test_the_forms_cover_every_qualifier_the_papers_yml_use():
    """Every paper value of book/papers/*.yml is read: a number, words of a claim, or one of FORMS'
    forms; at least 20 readings are checked."""
    n = sum(len(ex) for _, _, ex in book_reading.FORMS)
    assert n >= 20
    unread = []
    for key, _ in (*book.PAPERS, *book.STUDIES):
        for k, pv in book.paper_numbers(key).items():
            v = pv.value
            if isinstance(v, str) and not book_reading._missing(v) and book_reading._parse(v) is None:
                unread.append((key, k, v))
    # what is left are words (claims; names of measures, "nDCG1000, Q/AveP") and a shape ("74 x 50")
    assert all(re.fullmatch(r"[\w@/ -]+(, [\w@/ -]+)*|\d+ x \d+", v) for _, _, v in unread), unread


def test_the_papers_sampling_error_widens_a_rate_it_gives_n_for():
    # 0.078 against 5% of n = 100: the paper's binomial se 0.0218 puts 0.078 +- 0.036 across 0.075
    assert _j("0.05", 0.078, "rate").status == NOT_REPLICATED
    j = _j("0.05", 0.078, "rate", paper_n=100)
    assert j.status == INCONCLUSIVE and "paper n = 100" in j.reason
    with pytest.raises(ValueError, match="paper_n"):
        _j("0.324", 0.3, "score", paper_n=100)


# --- the rule against an independent two-one-sided-tests computation ------------------------------


def _margin_from_file(kind: str, p: float) -> float:
    """The margin of ``kind`` at the paper's value ``p`` (a fraction), read from the yml here."""
    e = MARGINS["kinds"][kind]
    out = []
    if e.get("absolute") is not None:
        out.append(float(e["absolute"]))
    if e.get("relative") is not None:
        out.append(float(e["relative"]) * abs(p))
    if e.get("relative_to_edge") is not None:
        out.append(float(e["relative_to_edge"]) * min(p, 1 - p))
    return min(out)


@settings(max_examples=400, deadline=None)
@given(
    kind=st.sampled_from(["rate", "correlation", "score", "count"]),
    p=st.floats(0.05, 0.95),
    d=st.floats(-0.12, 0.12),
    s=st.floats(1e-4, 0.05),
)
def test_the_rule_is_two_one_sided_tests_at_five_percent(kind, p, d, s):
    """For a point paper value printed with 12 decimals (rounding ~0), our value p + d with Monte
    Carlo error s, and the margin m of the kind: replicated exactly when both one-sided tests
    (H0: d <= -m, H0: d >= m) reject at 5%; not replicated exactly when one of the tests of
    H0: |d| <= m (H0: d <= m, H0: d >= -m) rejects at 5%; inconclusive otherwise."""
    alpha = (1 - MARGINS["confidence"]) / 2
    assert alpha == pytest.approx(0.05)
    text = f"{p:.12f}"
    assume(kind != "rate" or 0 <= p + d <= 1)  # a rate above 1 reads as a percentage
    m = _margin_from_file(kind, float(text)) + 0.5e-12
    p_lower, p_upper = norm.sf((d + m) / s), norm.cdf((d - m) / s)  # TOST
    p_above, p_below = norm.sf((d - m) / s), norm.cdf((d + m) / s)  # |d| <= m
    assume(min(abs(x - alpha) for x in (p_lower, p_upper, p_above, p_below)) > 1e-6)
    if p_lower < alpha and p_upper < alpha:
        expected = REPLICATED
    elif p_above < alpha or p_below < alpha:
        expected = NOT_REPLICATED
    else:
        expected = INCONCLUSIVE
    j = judge(text, float(text) + d, kind=kind, ours_se=s, se_reason="")
    assert j.status == expected, (j.reason, p_lower, p_upper, p_above, p_below, m)
    assert j.margin == pytest.approx(m - 0.5e-12, abs=1e-12)


# --- how the paper's number was typed --------------------------------------------------------------


def test_a_yml_number_judges_as_the_text_it_was_typed_with(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    tau, runs = P["tau"].value, P["runs"].value  # typed 0.60 and 15 in the yml
    for x in (0.6049, 0.64, 0.656, 0.68, 0.5):
        assert _j(tau, x, "correlation") == _j("0.60", x, "correlation"), x
    # "0.60" is 0.60 +- 0.005 (+ 0.05), so 0.68 is outside; the float 0.6 prints as 0.6 (+- 0.05)
    assert _j("0.60", 0.68, "correlation").status == NOT_REPLICATED
    assert _j(0.6, 0.68, "correlation").status == REPLICATED
    for x in (15, 16.2, 16.3, 13.7, 13.8):
        assert _j(runs, x, "count") == _j("15", x, "count") == _j(15, x, "count"), x
    assert _j("15", 16.2, "count").status == REPLICATED  # 15 +- 0.5 +- 0.75
    # "about" and a percentage sign: one reading whether typed as text or number
    assert _j(P["share"].value, "16.4%", "rate") == _j("15%", "16.4%", "rate")
    # compare records the paper's value as printed, and the record judges the same again
    comp = book.compare(
        "webber2008score",
        "Table 3",
        [
            {
                "quantity": "tau",
                "paper": P["tau"],
                "ours": 0.656,
                "kind": "correlation",
                "ours_se": 0.002,
                "se_reason": "sd over 5 seeds / sqrt(5)",
            }
        ],
    )
    rec = json.loads((tmp_path / "results" / "webber2008score-table-3.json").read_text())["rows"][0]
    assert rec["paper"] == "0.60" and rec["status"] == comp.row("tau").status == INCONCLUSIVE
    assert judge_row(rec).status == rec["status"]


# --- margins from book/margins.yml -----------------------------------------------------------------


def test_the_margins_file_lists_exactly_the_kinds():
    assert set(MARGINS["kinds"]) == set(KINDS)
    m = book.margins()
    assert m.confidence == MARGINS["confidence"] and m.z == pytest.approx(norm.ppf(0.95))
    frame = m.to_frame()
    assert list(frame["kind"]) == list(MARGINS["kinds"]) and frame["why"].str.len().gt(0).all()
    with pytest.raises(ValueError, match="kind 'speed'"):
        _j("0.5", 0.5, "speed")


def test_the_margins_come_from_the_file(tmp_path, monkeypatch):
    text = (ROOT / "book" / "margins.yml").read_text().replace("absolute: 0.05", "absolute: 0.2")
    assert text.count("absolute: 0.2") == 1  # the correlation's
    _fake_book(tmp_path, monkeypatch, text)
    assert book.margins().margin("correlation", 0.5) == pytest.approx(0.2)
    assert _j("0.60", 0.75, "correlation").status == REPLICATED  # NOT_REPLICATED with 0.05
    monkeypatch.delenv("IRREPRO_BOOK")
    assert book.margins().margin("correlation", 0.5) == pytest.approx(0.05)
    assert _j("0.60", 0.75, "correlation").status == NOT_REPLICATED


def test_a_margins_file_without_every_kind_is_refused(tmp_path, monkeypatch):
    data = yaml.safe_load((ROOT / "book" / "margins.yml").read_text())
    del data["kinds"]["ordering"]
    _fake_book(tmp_path, monkeypatch, yaml.safe_dump(data))
    with pytest.raises(ValueError, match="must list exactly"):
        book.margins()


# --- claims, and rows the rule refuses ---------------------------------------------------------------


@pytest.mark.parametrize(
    "statuses, combined",
    [
        ([REPLICATED, REPLICATED], REPLICATED),
        ([NOT_REPLICATED, NOT_REPLICATED], NOT_REPLICATED),
        ([REPLICATED, NOT_REPLICATED], PARTLY),
        ([REPLICATED, PARTLY], PARTLY),
        ([REPLICATED, INCONCLUSIVE], INCONCLUSIVE),
        ([NOT_REPLICATED, INCONCLUSIVE], INCONCLUSIVE),
        ([REPLICATED, NOT_COMPARABLE], REPLICATED),  # a row that compares nothing does not count
        ([NOT_COMPARABLE], NOT_COMPARABLE),
    ],
)
def test_a_claim_takes_the_combined_status_of_its_supports(statuses, combined):
    assert _combine(statuses) == combined
    sup = [_ref(s, f"q{i}") for i, s in enumerate(statuses)]
    j = judge("claimed", "on our data", kind="claim", supports=sup)
    assert j.status == combined and all(str(r) in j.reason for r in sup)


def test_a_claims_own_status_needs_its_supports():
    sup = [_ref(REPLICATED), "the ranking by discriminative power above"]
    assert judge("Q, AP", "AP", kind="claim", status=book.verdict(False, True), supports=sup).status == PARTLY
    assert judge("Q, AP", "AP", kind="claim", status="does not", supports=sup).status == NOT_REPLICATED
    assert judge("Q, AP", "Q, AP", kind="claim", status="holds", supports=sup).status == REPLICATED
    with pytest.raises(ValueError, match="needs 'supports'"):
        judge("Q, AP", "AP", kind="claim", status="holds")
    with pytest.raises(ValueError, match="status"):
        judge("Q, AP", "AP", kind="claim", status="fine", supports=sup)
    with pytest.raises(ValueError, match="not a row needs the chapter's 'status'"):
        judge("Q, AP", "AP", kind="claim", supports=["a ranking computed above"])
    with pytest.raises(ValueError, match="supports"):
        judge("Q, AP", "AP", kind="claim")
    assert judge(None, "AP", kind="claim", supports=sup).status == NOT_COMPARABLE


@pytest.mark.parametrize(
    "row, match",
    [
        ({"paper": "0.5", "ours": 0.5, "ours_se": 0.01}, "needs a 'kind'"),
        ({"paper": "0.5", "ours": 0.5, "kind": "score"}, "se_reason"),  # no error, no reason
        ({"paper": "0.5", "ours": 0.5, "kind": "score", "ours_se": 0}, "se_reason"),
        ({"paper": "0.5", "ours": 0.5, "kind": "score", "ours_se": 0.01, "status": "holds"}, "for claims"),
        ({"paper": "0.5", "ours": 0.5, "kind": "score", "ours_se": -0.01}, "negative"),
        ({"paper": "0.5", "ours": 0.5, "kind": "score", "ours_se": 0.01, "tol": 0.1}, "'tol' is gone"),
        ({"paper": "0.5", "ours": 0.5, "kind": "score", "ours_se": 0.01, "basis": "x"}, "'basis' is gone"),
        ({"paper": "0.5", "ours": 0.5, "kind": "score", "se": 0.01}, "'se' is gone"),
        ({"paper": "0.5", "ours": 0.5, "kind": "rate", "ours_se": 0.01, "n": 100}, "'n' is gone"),
        ({"paper": "Q-measure, AveP", "ours": "AP, Q", "kind": "score", "ours_se": 0.01}, "kind 'claim'"),
        ({"paper": "3.7 / 77.8 / 11.1", "ours": "7.7 / 80.1", "kind": "rate", "ours_se": 0.1}, "3 values"),
        ({"paper": "5%", "ours": 0.05, "kind": "rate", "ours_se": 0.01}, "percentages"),
        ({"paper": "13%-7%", "ours": "12%", "kind": "rate", "ours_se": 0.1}, "low to high"),
        ({"paper": "0.5", "ours": "0.5 / 0.6", "kind": "score", "ours_se": [0.1, 0.1, 0.1]}, "3 values"),
    ],
)
def test_the_rule_refuses_rows_it_cannot_judge(row, match):
    with pytest.raises(ValueError, match=match):
        judge_row(row)


def test_compare_refuses_a_paper_value_typed_in_the_chapter(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    row = {
        "quantity": "MAP",
        "paper": 0.324,
        "ours": 0.32,
        "kind": "score",
        "ours_se": 0.001,
        "se_reason": "x",
    }
    with pytest.raises(ValueError, match=r"Figure 2, row 'MAP': .*typed in the chapter"):
        book.compare("webber2008score", "Figure 2", [row])
    P = book.paper_numbers("webber2008score")
    with pytest.raises(ValueError, match="a number of webber2008score"):
        book.compare("sakai2006evaluating", "Table 2", [dict(row, paper=P["fig2.map"])])
    with pytest.raises(ValueError, match="Figure 2, row 'MAP': 'tol' is gone"):
        book.compare("webber2008score", "Figure 2", [dict(row, paper=P["fig2.map"], tol=0.1)])


# --- compare, the scorecard and the verdict sentences ------------------------------------------------


def _webber_tables(P):
    """Rows of every kind of status; returns the results table, the verdict and the rerun."""
    fig = book.compare(
        "webber2008score",
        "Figure 2",
        [
            # 0.3246 inside 0.324 +- 0.0005 +- 0.0162
            {
                "quantity": "MAP",
                "paper": P["fig2.map"],
                "ours": 0.3246,
                "kind": "score",
                "ours_se": 0,
                "se_reason": "computed exactly from the qrels",
            },
            # 10.3 +- 1.6 wholly above 5 + 0.5 + 2
            {
                "quantity": "fp",
                "paper": P["fp"],
                "ours": "10.3%",
                "kind": "rate",
                "ours_se": 1.0,
                "se_reason": "binomial, n = 900",
            },
            # 17 +- 0.82 across 15 + 0.5 + 2
            {
                "quantity": "share",
                "paper": P["share"],
                "ours": "17%",
                "kind": "rate",
                "ours_se": 0.5,
                "se_reason": "sd over 5 seeds / sqrt(5)",
                "note": "five seeds",
            },
            # describes our data: shown, not counted
            {
                "quantity": "topics",
                "paper": None,
                "ours": 50,
                "kind": "count",
                "ours_se": 0,
                "se_reason": "counted",
            },
        ],
        data="TREC-COVID",
    )
    verdict = book.compare(
        "webber2008score",
        "Verdict",
        [
            {"quantity": "restated", "paper": P["fig2.map"], "same_as": fig.row("MAP")},
            {
                "quantity": "problematic",
                "paper": P["claim"],
                "ours": "on our data: 2 of 3",
                "kind": "claim",
                "supports": [fig.row("MAP"), fig.row("fp")],
            },
        ],
        data="TREC-COVID",
    )
    rerun = book.compare(
        "webber2008score",
        "Figure 2 under X",
        [
            {
                "quantity": "fp",
                "paper": P["fp"],
                "ours": "6%",
                "kind": "rate",
                "ours_se": 0.5,
                "se_reason": "binomial, n = 900",
            }
        ],  # 6 +- 0.82 inside 5 +- 2.5
        emulates=fig,
        condition="X",
    )
    return fig, verdict, rerun


def test_compare_records_the_rules_fields_and_shows_ours_with_its_error(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    fig, verdict, _ = _webber_tables(book.paper_numbers("webber2008score"))
    assert list(fig.frame["status"]) == [REPLICATED, NOT_REPLICATED, INCONCLUSIVE, NOT_COMPARABLE]
    assert list(verdict.frame["status"]) == [REPLICATED, PARTLY]
    rows = json.loads((tmp_path / "results" / "webber2008score-figure-2.json").read_text())["rows"]
    for r in rows:
        assert {"kind", "ours_se", "se_reason", "margin", "status", "status_by", "reason"} <= set(r)
        assert r["status_by"] == "rule"
    assert [r["margin"] for r in rows][:3] == pytest.approx([0.0162, 2.0, 2.0])
    assert rows[3]["margin"] is None and "paper_ref" not in rows[3]
    assert [r["paper_ref"] for r in rows[:3]] == ["fig2.map", "fp", "share"]
    vrows = json.loads((tmp_path / "results" / "webber2008score-verdict.json").read_text())["rows"]
    assert [r["status_by"] for r in vrows] == ["restated", "supports"]
    assert vrows[0]["same_as"] == "Figure 2: MAP" and vrows[1]["supports"] == "Figure 2: MAP; Figure 2: fp"
    html = fig._repr_html_()
    assert "10.3% ± 1" in html and "17% ± 0.5" in html  # ours with its Monte Carlo error
    assert "<th>kind</th>" not in html and "<th>ours_se</th>" not in html and "<th>margin</th>" not in html
    assert "five seeds" in html


def test_the_scorecard_counts_the_papers_claims_only(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    _webber_tables(book.paper_numbers("webber2008score"))
    cards = book.scorecard(tmp_path / "results")
    assert list(cards) == [title for _, title in (*book.PAPERS, *book.STUDIES)]
    card = cards["Webber, Moffat & Zobel 2008"]
    assert len(card) == 7  # every row is shown
    counts = book.summary(cards)
    assert list(counts.columns) == [*STATUSES, "total"]
    # MAP, fp, share and the claim: the context row, the restating row and the rerun are not counted
    assert counts.loc["Webber, Moffat & Zobel 2008"].tolist() == [1, 1, 1, 1, 0, 4]
    # under X the rerun fp (6% +- 0.8 inside 5% +- 2.5) counts in place of fp
    assert book.summary(cards, "X").loc["Webber, Moffat & Zobel 2008"].tolist() == [2, 1, 1, 0, 0, 4]
    assert counts.loc["Cormack & Lynam 2006", "total"] == 0
    # the chapter's header says the same counts as the scorecard
    head = book.header("webber2008score").text
    said = json.loads(re.search(r"data-counts='([^']*)'", head).group(1))
    assert said == {k: int(v) for k, v in counts.loc["Webber, Moffat & Zobel 2008"].items()}
    assert "1 inconclusive" in head and 'href="../book/rule.html"' in head
    # (1 + 1/2) / 3 over the rows that decide: inconclusive is left out
    assert 'data-label="[~Re]"' in head and book.label(counts.loc["Webber, Moffat & Zobel 2008"]) == "[~Re]"


@pytest.mark.parametrize(
    "rep, part, inc, notrep, nc, expected",
    [
        (2, 0, 0, 1, 5, "[Re]"),  # 2/3 exactly
        (2, 0, 9, 1, 0, "[Re]"),  # inconclusive rows do not decide
        (1, 2, 0, 0, 0, "[Re]"),  # (1 + 1) / 3
        (1, 1, 0, 2, 0, "[~Re]"),  # 1.5 / 4
        (1, 0, 0, 2, 9, "[~Re]"),  # 1/3 exactly
        (0, 1, 0, 1, 0, "[¬Re]"),  # 0.5 / 2 = 1/4
        (0, 0, 0, 3, 0, "[¬Re]"),
        (0, 0, 4, 0, 4, ""),  # nothing decides: no label
    ],
)
def test_rescience_label_from_counts(rep, part, inc, notrep, nc, expected):
    counts = {REPLICATED: rep, PARTLY: part, INCONCLUSIVE: inc, NOT_REPLICATED: notrep, NOT_COMPARABLE: nc}
    assert book.label(counts) == expected


def test_verdict_text_says_each_rows_status_in_its_words(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    fig, verdict, _ = _webber_tables(book.paper_numbers("webber2008score"))
    for comp in (fig, verdict):
        html = book.verdict_text(comp)._repr_html_()
        sentences = verdict_sentences(html)
        assert [s["quantity"] for s in sentences] == list(comp.frame["quantity"])
        # every row judged on the table's data: said once, before the sentences
        assert html.startswith('<p class="irrepro-verdicts-on">On TREC-COVID:</p>')
        for s, (_, r) in zip(sentences, comp.frame.iterrows()):
            assert s["status"] == r["status"] and s["item"] == comp.item
            assert s["word"] == book.STATUS_WORDS[r["status"]] and " on TREC-COVID" not in s["text"]
            assert s["data"] == "TREC-COVID" and r["reason"] in s["text"]
    # a row judged on data of its own: each sentence names its data
    P = book.paper_numbers("webber2008score")
    mixed = book.compare(
        "webber2008score",
        "Verdict",
        [
            {"quantity": "a", "paper": P["fig2.map"], "same_as": fig.row("MAP")},
            {"quantity": "b", "paper": P["fig2.map"], "same_as": fig.row("fp"), "data": "TREC-6"},
        ],
        data="TREC-COVID",
    )
    html = book.verdict_text(mixed)._repr_html_()
    a, b = verdict_sentences(html)
    assert "irrepro-verdicts-on" not in html
    assert "on TREC-COVID - " in a["text"] and "on TREC-6 - " in b["text"] and b["data"] == "TREC-6"
    assert set(book.STATUS_WORDS) == set(STATUSES)
    assert len(set(book.STATUS_WORDS.values())) == len(STATUSES)


def test_a_verdict_sentence_resting_on_many_rows_counts_them_and_folds_their_names(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    fig, _, _ = _webber_tables(P)
    rows = [fig.row(q) for q in ("MAP", "fp", "share")]
    verdict = book.compare(
        "webber2008score",
        "Verdict",
        [
            # three rows (one named twice): named in the sentence, nothing folded
            {"quantity": "few", "paper": P["fig2.map"], "same_as": [*rows, fig.row("MAP")]},
            {"quantity": "many", "paper": P["fig2.map"], "same_as": [*rows, fig.row("topics")]},
            {"quantity": "claim", "paper": P["claim"], "ours": "yes", "kind": "claim", "supports": [*rows, fig.row("topics")],
             "reason": "a note"},
        ],
        data="TREC-COVID",
    )  # fmt: skip
    html = book.verdict_text(verdict)._repr_html_()
    few, many, claim = verdict_sentences(html)
    assert verdict.frame["reason"].iloc[0] in few["text"] and "which rows" not in few["text"]
    # more than three: counted per table by status, the rule's reason (every row named) folded under
    # them, the chapter's note shown after it
    counts = "(Figure 2: 1 replicated, 1 inconclusive, 1 not replicated, 1 not comparable)"
    assert f"as its 4 rows {counts}" in many["text"]
    assert f"from its 4 rows {counts}" in claim["text"] and "</details>; a note.</li>" in html
    folded = re.findall(r'<details class="irrepro-rows"><summary>which rows</summary>(.*?)</details>', html)
    assert [unescape(x) for x in folded] == list(verdict.frame["reason"].iloc[1:])
    # the built book's check reads the folded reason as part of the sentence
    records = [json.loads(p.read_text()) for p in (tmp_path / "results").glob("*.json")]
    assert check_verdicts(html, records) == []


@pytest.mark.parametrize(
    "ours, se, shown",
    [
        (0.0491, 0.00412, "0.0491 ± 0.0041"),  # ours to the last digit of its error's two
        (0.0491, 0.04, "0.049 ± 0.040"),  # the error to the decimals of ours
        (0.042, 0.002, "0.0420 ± 0.0020"),
        (12.345, 1.5, "12.3 ± 1.5"),
        (0.3, 0, 0.3),  # exact: the value alone
        (0.3, None, 0.3),
        (0.11, 1.4e-17, 0.11),  # rounding noise, not an error
        ("3.1 / 80.2", [0.21, 1.3], "3.1 (±0.2) / 80.2 (±1.3)"),  # the error to the decimals of ours
        ("10.3%", 1.0, "10.3% ± 1.0"),
        ("0.003 / 0.014", [0.0048, 0.00071], "0.003 (±0.005) / 0.014 (±0.001)"),
        ("2 of 5", 0.447, "2 of 5 ± 0.45"),  # no decimals: two significant digits
    ],
)
def test_with_error_prints_ours_with_its_monte_carlo_error(ours, se, shown):
    assert book.with_error(ours, se) == shown


@pytest.mark.parametrize(
    "ours, se, paper, shown",
    [
        (0.3239721, 0.0, "0.324", "0.3240"),  # exact: the paper's three decimals + 1
        (0.3239721, 0.0, 0.32, "0.324"),
        (0.6544136, 0.0462, "0.60", "0.654 ± 0.046"),  # the error's two digits, within the paper's + 1
        (10.6325022, 0.53296, "about 10", "10.6 ± 0.5"),  # an integer printed: one decimal
        (100.0, 1.4071, "> 99", "100.0 ± 1.4"),
        (3, 0.484, "5", "3 ± 0.5"),  # an integer of ours stays one; its error to the paper's + 1
        (94, 0.0, "94", 94),
        ("19.09%", 1.81991, "just over 15%", "19.1% ± 1.8"),  # a percentage: one decimal
        ("16.4%", 0.0, "15%", "16.4%"),  # never padded
        ("29.71 / 29.23", [0.53, 0.62], "30 / 29", "29.7 (±0.5) / 29.2 (±0.6)"),
        ("29.712 / 29.23", [0.53, 0.62], "> 0", "29.712 (±0.530) / 29.23 (±0.620)"),  # a bound: no precision
        (0.0458856, 0.0, "> 0", 0.0458856),  # (the table's cell then shows three decimals)
        ("3.12 / 80.24", [0.2, 1.3], "3.7 / 77.8", "3.1 (±0.2) / 80.2 (±1.3)"),  # no finer than the error
        ("3.123 / 80.245", None, "3.7 / 77.8", "3.12 / 80.25"),
        ("+0.01234 [-0.01011, +0.03456]", None, "0.01", "+0.012 [-0.010, +0.035]"),
        (0.0491, 0.00002, "0.05", "0.049 ± <0.001"),  # an error below the last decimal shown
        (0.000104321, 0.0, "0.000101796", "0.0001043"),  # at most four significant decimals
        (0.6611, None, "2/3", 0.6611),  # a fraction: no decimals to follow
        ("holds", None, "holds", "holds"),  # words
    ],
)
def test_with_error_prints_ours_to_the_papers_precision_plus_one(ours, se, paper, shown):
    assert book.with_error(ours, se, paper) == shown


def test_a_comparison_shows_ours_rounded_but_judges_and_records_it_unrounded(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    row = {"quantity": "MAP", "paper": P["fig2.map"], "ours": 0.32397213, "kind": "score", "ours_se": 0.0}
    comp = book.compare("webber2008score", "Figure 2", [dict(row, se_reason="exact")])
    assert '<td data-label="ours">0.3240</td>' in comp._repr_html_()
    recorded = json.loads((tmp_path / "results" / "webber2008score-figure-2.json").read_text())["rows"][0]
    assert recorded["ours"] == 0.32397213 and comp.frame["ours"].iloc[0] == 0.32397213
    assert judge_row(recorded).reason == comp.frame["reason"].iloc[0]


# --- restated rows, badges, headers ------------------------------------------------------------------


def test_a_restated_row_takes_the_status_of_what_it_restates_and_is_counted_once(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    fig = book.compare(
        "webber2008score",
        "Figure 7",
        [
            {
                "quantity": "ratio",
                "paper": P["fig3.median"],
                "ours": 0.51,
                "kind": "score",
                "ours_se": 0.001,
                "se_reason": "sd over seeds",
            },  # replicated
            {
                "quantity": "gap",
                "paper": P["fp"],
                "ours": "0.5%",
                "kind": "rate",
                "ours_se": 0,
                "se_reason": "exact",
            },  # not replicated: 5% +- 0.5 +- 2
        ],
    )
    verdict = book.compare(
        "webber2008score",
        "Verdict",
        [
            {"quantity": "median", "paper": P["fig3.median"], "ours": 0.51, "same_as": fig.row("ratio")},
            {"quantity": "both", "paper": P["claim"], "same_as": [fig.row("ratio"), fig.row("gap")]},
            {"quantity": "gap only", "paper": P["claim"], "same_as": [fig.row("gap"), fig.row("gap")]},
        ],
    )
    assert list(verdict.frame["status"]) == [REPLICATED, PARTLY, NOT_REPLICATED]
    assert list(verdict.frame["ours"]) == [0.51, "partly", "does not"]  # no ours: the verdict word
    assert verdict.frame["reason"].iloc[0] == "as Figure 7: ratio (replicated)"
    rows = json.loads((tmp_path / "results" / "webber2008score-verdict.json").read_text())["rows"]
    assert [r.get("same_as") for r in rows] == [
        "Figure 7: ratio",
        "Figure 7: ratio; Figure 7: gap",
        "Figure 7: gap; Figure 7: gap",
    ]
    counts = book.summary(book.scorecard(tmp_path / "results")).loc["Webber, Moffat & Zobel 2008"]
    assert counts.tolist() == [1, 0, 0, 1, 0, 2]  # ratio, gap: the three restating rows are not counted
    with pytest.raises(KeyError, match="quantities"):
        fig.row("nothing")
    with pytest.raises(ValueError, match="same_as takes rows"):
        book.compare(
            "webber2008score",
            "Verdict",
            [{"quantity": "q", "paper": None, "ours": 1, "same_as": ["Figure 7: ratio"]}],
        )
    with pytest.raises(ValueError, match="takes their status"):
        book.compare(
            "webber2008score",
            "Verdict",
            [{"quantity": "q", "paper": None, "ours": 1, "same_as": fig.row("gap"), "status": "holds"}],
        )


def test_status_badges_carry_symbol_colour_and_reason():
    seen = set()
    for s in STATUSES:
        html = status_badge(s, 'reason with "quotes" & <tags>', note=3)
        assert f'data-status="{s}"' in html and f"> {s}</span>" in html
        assert 'title="reason with &quot;quotes&quot; &amp; &lt;tags&gt;"' in html
        assert html.endswith('<sup class="irrepro-note-ref">3</sup>')
        style = html.split('style="')[1].split('"')[0]
        sym = html.split('aria-hidden="true">')[1][0]
        seen.add((sym, style.split("color:")[1].split(";")[0]))
    # a symbol and a colour of its own per status
    assert len({s for s, _ in seen}) == len(STATUSES) and len({c for _, c in seen}) == len(STATUSES)
    with pytest.raises(ValueError):
        status_badge("fine")


def test_table_formats_as_the_book_shows_and_labels_every_cell_for_a_phone():
    df = pd.DataFrame(
        {"rate": [0.0454545, np.nan], "mixed": [0.11, "a < b"], "n": [3, 4], "kept": [0.123456, None]}
    )
    html = book.table(df, digits={"rate": 2}, caption="rates")._repr_html_()
    assert html.startswith('<div class="irrepro-plain"><table class="dataframe irrepro-table">')
    assert "<caption>rates</caption>" in html
    cells = re.findall(r'<td data-label="([^"]*)">([^<]*)</td>', html)
    # floats to their column's decimals (3 when not named, an object column's too), "-" when missing,
    # text escaped, no bare 0..n-1 index
    assert cells == [
        ("rate", "0.05"),
        ("mixed", "0.110"),
        ("n", "3"),
        ("kept", "0.123"),
        ("rate", "-"),
        ("mixed", "a &lt; b"),
        ("n", "4"),
        ("kept", "-"),
    ]
    assert html.count("<td") == len(cells) and "<th>rate</th>" in html
    # a labelling index is the first column, its name as header; MultiIndex columns read "a / b"
    multi = pd.DataFrame(
        [[1.0, 2.0]], columns=pd.MultiIndex.from_tuples([("round 5", "AP"), ("round 5", "P@10")])
    )
    labelled = book.table(multi.set_axis(pd.Index(["run x"], name="run")), digits=1)._repr_html_()
    assert "<th>run</th><th>round 5 / AP</th><th>round 5 / P@10</th>" in labelled
    assert '<td data-label="run">run x</td><td data-label="round 5 / AP">1.0</td>' in labelled
    # a Series is a one-column table; the plain-text form shows the same values
    series = book.table(pd.Series([0.5], name="share"), digits=1)
    assert '<td data-label="share">0.5</td>' in series._repr_html_() and repr(series).split() == [
        "share",
        "0.5",
    ]


def test_status_table_moves_reasons_to_one_legend_numbered_once():
    frame = pd.DataFrame(
        [
            {"quantity": "a", "paper": 0.5, "ours": 0.51234, "status": REPLICATED, "reason": "my words"},
            {"quantity": "b", "paper": None, "ours": 3, "status": NOT_COMPARABLE, "reason": "no number"},
            {"quantity": "c", "paper": "x", "ours": "y", "status": REPLICATED, "reason": "my words"},
        ],
        dtype=object,
    )
    html = status_table(frame, "cap", titles={"paper": ["§2, Figure 2", "", ""]}).text
    assert "<th>reason</th>" not in html and "<caption>cap</caption>" in html
    # reasons the rule did not write are kinds of their own
    assert html.count("<li>") == 2 and "<li>my words</li><li>no number</li>" in html
    assert html.count('irrepro-note-ref">1<') == 2 and html.count('irrepro-note-ref">2<') == 1
    assert (
        '<td data-label="paper" title="§2, Figure 2">0.500</td>' in html
        and '<td data-label="ours">0.512</td>' in html
        and 'data-label="paper">-</td>' in html
    )
    assert '<td data-label="ours">3</td>' in html  # integers stay integers


def test_a_legend_gives_each_kind_of_reason_once_and_the_badges_keep_the_particulars():
    # ten rows judged by the rule, of two kinds of reason (within / outside), each with its own numbers
    rows = []
    for i in range(10):
        ours = 0.50 + 0.001 * i if i % 2 else 0.70 + 0.01 * i
        j = book.judge("0.50", ours, kind="score", ours_se=0.001 * (i + 1))
        rows.append(
            {"quantity": f"q{i}", "paper": "0.50", "ours": ours, "status": j.status, "reason": j.reason}
        )
    frame = pd.DataFrame(rows, dtype=object)
    assert len(set(frame["reason"])) == 10  # ten different reasons...
    html = status_table(frame).text
    legend = [unescape(x) for x in re.findall(r"<li>(.*?)</li>", html)]
    assert len(legend) == 2  # ...of two kinds: one legend entry each
    assert legend[0].startswith("Outside") and legend[1].startswith("Within")  # in order of first use
    assert "0.001" not in "".join(legend)  # the legend has no row's numbers
    public = book.table(frame, statuses=True).text  # the public call: the same legend
    assert [unescape(x) for x in re.findall(r"<li>(.*?)</li>", public)] == legend
    with pytest.raises(InputError, match="no digits or classes"):
        book.table(frame, statuses=True, digits=2)
    for r in rows:  # every row's whole reason, its particulars included, on its badge's hover
        assert f'title="{escape(r["reason"])}"' in html
    refs = re.findall(r'irrepro-note-ref">(\d+)<', html)
    assert refs == ["1", "2"] * 5
    for reason in frame["reason"]:
        sentence, particulars = reason_kind(reason)
        assert sentence in legend and "margin" in particulars and reason.endswith(particulars)


def test_reason_kind_names_every_kind_of_reason_the_rule_writes(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    a = book.compare(
        "webber2008score",
        "Figure 3",
        [
            {"quantity": "within", "paper": P["fig3.median"], "ours": 0.5, "kind": "score", "ours_se": 0.001},
            {
                "quantity": "outside",
                "paper": P["fig3.median"],
                "ours": 0.9,
                "kind": "score",
                "ours_se": 0.001,
            },
            {
                "quantity": "straddles",
                "paper": P["fig3.median"],
                "ours": 0.55,
                "kind": "score",
                "ours_se": 0.02,
            },
            {
                "quantity": "parts",
                "paper": P["t1"],
                "ours": "3.7 / 77.8 / 31.1",
                "kind": "rate",
                "ours_se": 0.1,
            },
            {"quantity": "no number", "paper": None, "ours": 0.5, "kind": "score", "ours_se": 0.001},
            {
                "quantity": "no value",
                "paper": P["fig3.median"],
                "ours": "none",
                "kind": "score",
                "ours_se": 0.001,
            },
        ],
        results="",
    )
    b = book.compare(
        "webber2008score",
        "Verdict",
        [
            {"quantity": "restates", "paper": P["claim"], "same_as": a.row("within")},
            {
                "quantity": "from",
                "paper": P["claim"],
                "ours": "yes",
                "kind": "claim",
                "supports": a.row("outside"),
            },
            {
                "quantity": "verdict",
                "paper": P["claim"],
                "ours": "yes",
                "kind": "claim",
                "supports": a.row("outside"),
                "status": "holds",
                "reason": "the chapter's own note",
            },
            {"quantity": "no claim", "paper": None, "ours": "x", "kind": "claim"},
        ],
        results="",
    )
    reasons = list(a.frame["reason"]) + list(b.frame["reason"])
    sentences = [reason_kind(r)[0] for r in reasons]
    assert len(set(sentences)) == len(reasons)  # ten kinds, each its own legend entry
    assert all(s not in reasons for s in sentences)  # each a sentence of the rule's, not the reason
    assert reason_kind(reasons[-2])[1].endswith("the chapter's own note")  # the chapter's words: particulars


def test_paper_numbers_come_from_the_yml_with_where_they_are_printed(tmp_path, monkeypatch):
    d = _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    assert (
        P["fig2.map"].value == 0.324
        and P["fig3.median"].value == "0.50"
        and P["fig3.median"].wording == "the median"
    )
    assert P["fig2.map"].where == "§2, Figure 2, 13th run, MAP"
    part = P["t1"].part(1, "in")
    assert (part.value, part.key, part.column) == ("77.8", "t1[1]", "in")
    joined = book.PaperValue.join([P["t1"].part(1), P["t2"].part(1)])
    assert joined.value == "77.8 / 76.5" and joined.key == "t1[1]+t2[1]"
    assert P.keys_of([joined.key, "fig2.map", ""]) == {"t1", "t2", "fig2.map"}
    with pytest.raises(KeyError, match="fig2.map"):
        P["fig2.mean"]
    comp = book.compare(
        "webber2008score",
        "Figure 2",
        [
            {
                "quantity": "MAP",
                "paper": P["fig2.map"],
                "ours": 0.323972,
                "kind": "score",
                "ours_se": 0,
                "se_reason": "exact",
            },
            {
                "quantity": "in",
                "paper": joined,
                "ours": "77.9 / 76.4",
                "kind": "rate",
                "ours_se": 0,
                "se_reason": "exact",
            },
        ],
    )
    assert list(comp.frame["paper"]) == ["0.324", "77.8 / 76.5"]  # as printed
    assert list(comp.frame["status"]) == [REPLICATED, REPLICATED]
    rec = json.loads((tmp_path / "results" / "webber2008score-figure-2.json").read_text())
    assert [r["paper_ref"] for r in rec["rows"]] == ["fig2.map", "t1[1]+t2[1]"]
    assert 'title="§2, Figure 2, 13th run, MAP"' in comp._repr_html_()
    (d / "papers" / "sakai2006evaluating.yml").write_text(
        "paper: sakai2006evaluating\nnumbers:\n  x: {table: Figure 7, value: 1}\n"
    )
    with pytest.raises(ValueError, match="needs table, value and section"):
        book.paper_numbers("sakai2006evaluating")
    with pytest.raises(FileNotFoundError):
        book.paper_numbers("nobody2000")


def test_header_gives_the_reference_with_its_doi_and_the_label_of_the_counts():
    counts = {REPLICATED: 8, PARTLY: 16, INCONCLUSIVE: 3, NOT_REPLICATED: 13, NOT_COMPARABLE: 15, "total": 55}
    html = book.header("cormack2006statistical", counts).text
    assert "Statistical precision of information retrieval evaluation" in html
    assert 'href="https://doi.org/10.1145/1148170.1148262"' in html
    assert 'data-label="[~Re]"' in html and "reproduced in part" in html and "55 rows counted" in html
    assert "3 inconclusive" in html and 'href="../book/rule.html"' in html
    assert json.loads(re.search(r"data-counts='([^']*)'", html).group(1)) == counts


def test_header_of_a_chapter_beyond_the_papers_has_no_label_and_lists_what_it_tests():
    counts = {REPLICATED: 8, PARTLY: 0, INCONCLUSIVE: 0, NOT_REPLICATED: 13, NOT_COMPARABLE: 15, "total": 36}
    key = book.STUDIES[0][0]
    html = book.header(key, counts, tested=["sakai2006evaluating", "webber2008score"]).text
    assert 'data-label=""' in html and "irrepro-label" not in html and "No verdict label" in html
    assert (
        "8 replicated, 0 partly, 0 inconclusive, 13 not replicated, 15 not comparable (36 rows counted"
        in html
    )
    # the study's DOI, then each tested paper's, all as links
    for doi in ("10.1145/3331184.3331259", "10.1145/1148170.1148261", "10.1145/1390334.1390346"):
        assert f'href="https://doi.org/{doi}"' in html, doi
    assert "\\url" not in html  # the study's data note is a link, not a LaTeX command
    assert book.label(counts) == "[~Re]"  # what a replication with these counts would be labelled
    labelled = book.header("webber2008score", counts, tested=["sakai2006evaluating"]).text
    assert 'data-label="[~Re]"' in labelled and "10.1145/1148170.1148261" in labelled


def test_ordering_status_maps_the_papers_names():
    names = {"AveP": "AP", "Q-measure": "Q", "G_AveP": "G_AP", "G_Q-measure": "G_Q"}
    sup = "the ranking by discriminative power above"
    assert book.ordering_status(["AP", "Q", "nCG"], "Q-measure, AveP", names, supports=sup) == {
        "kind": "claim",
        "status": "holds",
        "reason": "2 of the paper's 2 among ours",
        "supports": sup,
    }
    assert book.ordering_status(["PDoc"], "PDoc", names, supports=sup)["reason"] == "the same measure"
    assert book.ordering_status(["AP"], "PDoc", names, supports=sup)["status"] == "does not"
    got = book.ordering_status(["AP / Q", "AP / G_AP"], "Q/AveP, G_Q/G_AveP", names, pairs=True, supports=sup)
    assert (got["status"], got["reason"]) == ("partly", "1 of the paper's 2 pairs among ours")
    with pytest.raises(ValueError, match="supports"):
        book.ordering_status(["AP"], "PDoc", names)
    assert (
        judge("PDoc", "AP", **book.ordering_status(["AP"], "PDoc", names, supports=sup)).status
        == NOT_REPLICATED
    )


def test_the_books_paper_files_are_complete_and_name_real_citations():
    bib = (ROOT / "book" / "references.bib").read_text()
    for key, _ in (*book.PAPERS, *book.STUDIES):
        P = book.paper_numbers(key)
        # a replication sets many of its paper's numbers beside ours; a study beside the papers may
        # rest on its paper's claims alone (what its open text states)
        assert len(P) > (10 if key in dict(book.PAPERS) else 1), key
        assert f"@inproceedings{{{key}," in bib or f"@article{{{key}," in bib, key
        for k in P:
            v = P[k]
            assert v.table and v.section and v.value is not None, (key, k)
            assert v.value == v.value and not isinstance(v.value, bool), (
                key,
                k,
            )  # no NaN, no YAML yes/no booleans


# --- helpers the chapters moved into the method modules, against literal loops ---------------------


def test_chapter_helpers_against_literal_loops():
    from irrepro import corpus_bootstrap as cb
    from irrepro import sensitivity as bt
    from irrepro import topic_split as ts
    from irrepro.topic_split._swap import _bin_lower_edge, _largest_projected_error

    x = np.array([-3.0, -0.5, 0.2, 1.5, 2.0, 4.0, np.inf])
    above = sum(1 for v in x if v > 1) / len(x)
    below = sum(1 for v in x if v < -1) / len(x)
    ratio = cb.validation.SplitValidation.miss_ratio
    assert ratio(SimpleNamespace(normalized_difference=lambda s, m: x), "A", "m") == pytest.approx(
        above / below
    )
    no_below = SimpleNamespace(normalized_difference=lambda s, m: np.array([0.5, 2.0]))
    assert ratio(no_below, "A", "m") == pytest.approx(0.5 / 1e-12)
    assert _bin_lower_edge("25-30%") == 25.0 and math.isnan(_bin_lower_edge(None))
    fit = ts.GrowthFit(
        ("0-5%", "5-10%"),
        np.array([np.nan, -1.0]),
        np.array([np.nan, -0.1]),
        np.array([np.nan, 0.03]),
        np.array([0, 4]),
        at=50,
    )
    assert _largest_projected_error(fit) == 0.03
    assert math.isnan(
        _largest_projected_error(
            ts.GrowthFit(
                ("a",), np.array([np.nan]), np.array([np.nan]), np.array([np.nan]), np.array([0]), at=50
            )
        )
    )
    st = bt.study.Stability(
        "AP", np.array([0.01, 0.02, 0.03]), np.array([0.10, 0.06, 0.02]), np.array([0.1, 0.3, 0.5])
    )
    assert st.minority_rate_at(0.2) == pytest.approx(0.08)  # halfway between 0.10 and 0.06


def test_study_helpers_against_the_studys_own_tables():
    from irrepro import sensitivity as bt
    from irrepro.sensitivity.study import _geometric_consistent

    rng = np.random.default_rng(7)
    base = rng.uniform(0.1, 0.6, size=(8, 1)) + rng.normal(0, 0.1, size=(8, 25))
    ap = np.clip(base, 0.001, 1)
    q = np.clip(ap + rng.normal(0, 0.05, size=ap.shape), 0.001, 1)
    study = bt.measure_study({"AP": ap, "Q": q, "G_AP": (ap, "gmean"), "G_Q": (q, "gmean")}, B=200, seed=3)
    for m in ("AP", "Q"):
        dp = {
            t: {k: getattr(study, t)[k].discriminative_power() for k in (m, f"G_{m}")}
            for t in ("paired", "unpaired")
        }
        same = np.sign(dp["paired"][f"G_{m}"] - dp["paired"][m]) == np.sign(
            dp["unpaired"][f"G_{m}"] - dp["unpaired"][m]
        )
        assert _geometric_consistent(study, m) == bool(same)


# --- the chapters' notebooks: visible method, the papers' numbers as data -----------------------------

CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))
#: cell tags that hide a cell's code with no toggle to show it
NO_TOGGLE = {"remove-input", "remove-cell"}


def _code_cells(path):
    import jupytext

    return [c for c in jupytext.read(path).cells if c.cell_type == "code"]


def _chapter_keys(path) -> list[str]:
    """The citation keys a chapter opens with: the argument of its one ``book.header(...)`` (a key,
    or a tuple of the studies it judges)."""
    args = [
        node.args[0]
        for node in ast.walk(ast.parse("\n".join(c.source for c in _code_cells(path))))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "header" and node.args
    ]
    assert len(args) == 1, (path.name, [ast.unparse(a) for a in args])
    keys = ast.literal_eval(args[0])
    return [keys] if isinstance(keys, str) else list(keys)


def _chapter_key(path) -> str:
    """The citation key a chapter opens with (its first, where it judges several studies)."""
    return _chapter_keys(path)[0]


def test_every_paper_and_study_has_one_chapter():
    keys = [k for p in CHAPTERS for k in _chapter_keys(p)]
    assert sorted(keys) == sorted(k for k, _ in (*book.PAPERS, *book.STUDIES)), keys


def test_at_most_a_quarter_of_the_chapters_code_is_hidden_without_a_toggle():
    assert len({k for p in CHAPTERS for k in _chapter_keys(p)}) == len(book.PAPERS) + len(book.STUDIES)
    counts = {}
    for path in CHAPTERS:
        cells = _code_cells(path)
        hidden = [c for c in cells if NO_TOGGLE & set(c.metadata.get("tags", []))]
        counts[path.stem] = (len(hidden), len(cells))
        # what is hidden without a toggle is page set-up: no result is computed or drawn there
        for c in hidden:
            assert not re.search(r"\b(compare|plt|plot|subplots|display)\b\s*[.(]", c.source), (
                path.stem,
                c.source[:200],
            )
    hidden, total = map(sum, zip(*counts.values()))
    assert hidden <= total / 4, counts
    for name, (h, n) in counts.items():
        assert h <= n / 4, (name, h, n)


def _named_scalars(source: str) -> list[str]:
    """Top-level ``NAME = <number>`` (upper-case name, a number or a negated one) in a cell's code."""
    out = []
    for node in ast.parse(source).body:
        value = getattr(node, "value", None)
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
            value = value.operand
        if (
            isinstance(node, ast.Assign)
            and isinstance(value, ast.Constant)
            and type(value.value) in (int, float)
        ):
            out += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()]
    return out


def test_named_thresholds_are_set_in_visible_code():
    """A number a chapter names (a threshold, a cut-off, a seed: ``OUTLIER = 4``) is set in a code cell
    the page shows, not in folded or removed code: the reader sees every rule that decides a row."""
    folded_tags = {"hide-input", "hide-cell", *NO_TOGGLE}
    found = {}
    for path in CHAPTERS:
        for c in _code_cells(path):
            if folded_tags & set(c.metadata.get("tags", [])) and not c.source.lstrip().startswith("%"):
                found.setdefault(path.stem, []).extend(_named_scalars(c.source))
    assert not any(found.values()), found
    # the check itself: it finds a threshold set in folded code, and lets a visible one pass
    assert _named_scalars("OUTLIER = 4\nZ = -1.5\nname = 3\nPAIR = (1, 2)") == ["OUTLIER", "Z"]


def test_results_sections_show_code():
    """Every results section (### under ## Results) has at least one code cell shown as code."""
    import jupytext

    for path in CHAPTERS:
        section, shown = None, {}
        in_results = False
        for c in jupytext.read(path).cells:
            if c.cell_type == "markdown":
                for line in c.source.splitlines():
                    if line.startswith("## "):
                        in_results = line.strip() == "## Results"
                        section = None
                    elif line.startswith("### ") and in_results:
                        section = line[4:].strip()
                        shown.setdefault(section, 0)
            elif section and not ({"hide-input", *NO_TOGGLE} & set(c.metadata.get("tags", []))):
                shown[section] += 1
        assert shown and all(shown.values()), (path.stem, shown)


def _loader_names(tree, start: set[str] | None = None) -> set[str]:
    """Names bound to ``book.paper_numbers(...)`` (or given in ``start``), and names bound to values
    read from those."""
    out = set(start or ())
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "attr", getattr(node.value.func, "id", "")) == "paper_numbers"
        ):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    while True:
        more = {
            t.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and _reads_loader(node.value, out)
            for t in node.targets
            if isinstance(t, ast.Name)
        } - out
        if not more:
            return out
        out |= more


def _reads_loader(expr, names) -> bool:
    for node in ast.walk(expr):
        base = (
            node.value
            if isinstance(node, ast.Subscript)
            else (
                node.func.value
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                else None
            )
        )
        if (
            isinstance(base, ast.Name)
            and base.id in names
            or isinstance(node, ast.Name)
            and node.id in names
            and not isinstance(node.ctx, ast.Store)
        ):
            return True
    return False


#: the builders of irrepro.book whose second argument is the paper's value
_BUILDERS = {"share", "rate", "score", "correlation", "ordering", "count", "claim"}


def _rows_modules(tree) -> list:
    """The package modules that build a chapter's rows (``from irrepro.<family> import rows``, the
    family's ``_rows`` module or package), parsed: their paper values are checked as the chapter's,
    the paper's numbers named there as the chapter names them (``P``)."""
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("irrepro.")
            and any(a.name in ("rows", "_rows") for a in node.names)
        ):
            base = ROOT / node.module.replace(".", "/") / "_rows"
            module = base.with_suffix(".py")  # a module, else a package (a stale directory may remain)
            files = [module] if module.is_file() else sorted(base.glob("*.py"))
            out += [ast.parse(f.read_text(encoding="utf-8")) for f in files if f.is_file()]
    return out


def _builder_rows(tree, names) -> int:
    """Rows built by ``book.<builder>(quantity, paper, ...)`` in ``tree``, each paper value checked:
    read from the loader, None, or a function's ``paper`` parameter passed on."""
    rows = 0
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "book"
            and node.func.attr in _BUILDERS
            and len(node.args) >= 2
        ):
            rows += 1
            v = node.args[1]
            if (
                isinstance(v, ast.Constant)
                and v.value in (None, "-")
                or isinstance(v, ast.Name)
                and v.id == "paper"
            ):
                continue
            assert _reads_loader(v, names), f"paper value typed in code: {ast.unparse(v)}"
    return rows


def test_compare_rows_take_the_papers_values_from_the_yml_loader():
    for path in CHAPTERS:
        source = "\n".join(c.source for c in _code_cells(path) if not c.source.lstrip().startswith("%"))
        tree = ast.parse(source)
        names = _loader_names(tree)
        assert names, f"{path.name} reads no book/papers/*.yml"
        rows = 0
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict):
                continue
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "paper":
                    rows += 1
                    if isinstance(v, ast.Constant) and v.value in (None, "-"):
                        continue  # the paper gives no number
                    assert _reads_loader(v, names), (
                        f"{path.name}: paper value typed in code: {ast.unparse(v)}"
                    )
        # a replication types its rows (more than ten), or names the paper's numbers for its
        # package's row builders; a chapter beyond the papers may build them in one function, whose
        # rows then feed several compare tables
        keys = (
            set(book.paper_numbers(_chapter_key(path))) if _chapter_key(path) in dict(book.PAPERS) else set()
        )
        rows += len({a.value for a in ast.walk(tree) if isinstance(a, ast.Constant) and a.value in keys})
        rows += _builder_rows(tree, names)
        for module in _rows_modules(tree):  # rows built in the package, from the chapter's loader
            rows += _builder_rows(module, _loader_names(module, names))
        compares = sum(
            isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "compare" for n in ast.walk(tree)
        )
        built = sum(
            isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id in names for a in n.args)
            for n in ast.walk(tree)
        )
        # or its rows come from its package's row builders (``<package>.rows.<table>_rows(...)``),
        # which read the paper's values from the same loader
        built_rows = sum(
            isinstance(n, ast.Call)
            and getattr(n.func, "attr", "") == "compare"
            and any(isinstance(a, ast.Call) and getattr(a.func, "attr", "").endswith("_rows") for a in n.args)
            for n in ast.walk(tree)
        )
        assert (
            rows > 10
            or (built >= 3 and compares >= 3)
            or built_rows >= 3
            or (_chapter_key(path) in dict(book.STUDIES) and compares >= 3)
        ), path.name


_NUM = re.compile(r"(?<![\w.])(?:\d[\d,]*(?:\.\d+)?|\.\d+)")


def _significant_digits(token: str) -> int:
    digits = token.replace(",", "").replace(".", "").lstrip("0")
    return len(digits) if "." in token else len(digits.rstrip("0"))


def test_no_paper_number_is_typed_in_a_code_cell():
    """Numbers of three or more significant digits that a paper prints (its yml values) do not
    appear in the chapter's code, in code or in strings (notes, sentences): they are read from
    book/papers/*.yml."""
    import yaml

    for path, key in ((p, k) for p in CHAPTERS for k in _chapter_keys(p)):
        doc = yaml.safe_load((ROOT / "book" / "papers" / f"{key}.yml").read_text(encoding="utf-8"))
        printed = {
            t
            for e in doc["numbers"].values()
            for t in _NUM.findall(str(e["value"]))
            if _significant_digits(t) >= 3
        }
        assert printed or key not in dict(book.PAPERS), key  # a study's yml may hold claims only
        code = "\n".join(c.source for c in _code_cells(path))
        typed = sorted(printed & set(_NUM.findall(code)))
        assert not typed, f"{path.name} types numbers of {key}: {typed}"


def _key_pattern(expr) -> list[re.Pattern]:
    """A key expression as patterns: ``"a.b"`` as itself, ``f"a.{x}"`` with ``.+`` for each field,
    both branches of ``x if c else y``; anything else none."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [re.compile(re.escape(expr.value))]
    if isinstance(expr, ast.JoinedStr):
        return [
            re.compile(
                "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in expr.values)
            )
        ]
    if isinstance(expr, ast.IfExp):
        return _key_pattern(expr.body) + _key_pattern(expr.orelse)
    return []


def _loader_keys(tree, names) -> list[re.Pattern]:
    """The keys the code reads from the loader: ``P["a.b"]`` as itself, ``P[f"a.{x}"]`` as a pattern,
    ``P[key]`` as the strings ``key`` is bound to (``key = f"a.{x}"``; any key when it is bound to
    nothing the test can read)."""
    bound: dict[str, list[re.Pattern]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).extend(_key_pattern(node.value))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names:
            key = node.slice
            if isinstance(key, ast.Name):
                out.extend(bound.get(key.id) or [re.compile(".+")])
            else:
                out.extend(_key_pattern(key))
    return out


def _package_keys(tree, names) -> list[re.Pattern]:
    """The keys read by the package's row builders a chapter hands its loader
    (``sz.rows.figure2_rows(P, ...)``, ``sz`` imported as ``from irrepro import standardize as sz``): the
    keys their module reads from the parameter the loader is passed as."""
    import importlib
    import inspect

    aliases = {
        a.asname or a.name: f"irrepro.{a.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "irrepro"
        for a in node.names
    }
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner, path = node.func.value, []  # ``sz.f(P, ...)`` or ``sz.rows.f(P, ...)``
        if isinstance(owner, ast.Attribute):
            owner, path = owner.value, [owner.attr]
        if (
            isinstance(owner, ast.Name)
            and owner.id in aliases
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in names
        ):
            fn = importlib.import_module(aliases[owner.id])
            for attr in [*path, node.func.attr]:
                fn = getattr(fn, attr)
            param = next(iter(inspect.signature(fn).parameters))
            out.extend(_loader_keys(ast.parse(inspect.getsource(inspect.getmodule(fn))), {param}))
    return out


def _loaded_keys(path) -> list[str]:
    """The papers whose numbers a chapter loads (``book.paper_numbers("<key>")``)."""
    return [
        a.args[0].value
        for a in ast.walk(ast.parse("\n".join(c.source for c in _code_cells(path))))
        if isinstance(a, ast.Call) and getattr(a.func, "attr", "") == "paper_numbers"
        and a.args and isinstance(a.args[0], ast.Constant)
    ]  # fmt: skip


def test_every_number_of_a_papers_yml_is_read_by_its_chapter():
    """Every entry of a paper's yml is read by its chapter, or by another chapter that loads it."""
    unread_by: dict[str, set] = {}
    for path, key in dict.fromkeys((p, k) for p in CHAPTERS for k in (*_chapter_keys(p), *_loaded_keys(p))):
        tree = ast.parse("\n".join(c.source for c in _code_cells(path)))
        names = {
            n
            for n in _loader_names(tree)
            if any(
                isinstance(a, ast.Assign)
                and any(getattr(t, "id", None) == n for t in a.targets)
                and isinstance(a.value, ast.Call)
                and getattr(a.value.func, "attr", "") == "paper_numbers"
                and ast.literal_eval(a.value.args[0]) == key
                for a in ast.walk(tree)
            )
        }
        patterns = [p for p in _loader_keys(tree, names) + _package_keys(tree, names) if p.pattern != ".+"]
        # a key passed whole to a chapter's helper that looks it up (row("data.r2-halves", ...)), or
        # named in the chapter's code for its package's row builders (spec = [("full.t.0-10%", ...)])
        passed = {a.value for a in ast.walk(tree) if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        # the rows its package builds (``from irrepro.<package> import rows``), with their own loaders
        for mtree in _rows_modules(tree):
            loaders = {
                t.id
                for a in ast.walk(mtree)
                if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call)
                and getattr(a.value.func, "id", getattr(a.value.func, "attr", "")) in ("_P", "paper_numbers")
                for t in a.targets
                if isinstance(t, ast.Name)
            }  # fmt: skip
            patterns += [p for p in _loader_keys(mtree, loaders) if p.pattern != ".+"]
        modules = _rows_modules(tree)  # rows built in the package read the chapter's loader there
        for module in modules:
            patterns += [p for p in _loader_keys(module, _loader_names(module, names)) if p.pattern != ".+"]
        passed |= {
            a.value
            for t in modules
            for c in ast.walk(t)
            if isinstance(c, ast.Call)
            for a in c.args
            if isinstance(a, ast.Constant) and isinstance(a.value, str)
        }
        unread = [
            k
            for k in book.paper_numbers(key)
            if k not in passed and not any(p.fullmatch(k) for p in patterns)
        ]
        unread_by[key] = unread_by.get(key, set(unread)) & set(unread)
    for key, unread in unread_by.items():
        assert not unread, f"no chapter reads {sorted(unread)} of book/papers/{key}.yml"


def test_rows_rerun_under_emulated_conditions_are_counted_both_ways(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")

    def row(q, paper, ours, kind="rate", se=0.0):
        return {
            "quantity": q,
            "paper": paper,
            "ours": ours,
            "kind": kind,
            "ours_se": se,
            "se_reason": "exact",
        }

    t1 = book.compare(
        "webber2008score",
        "Table 1",
        [
            row("a", P["t1"], "7.7 / 80.1 / 15.2"),  # not replicated: 7.7 > 5.6, 80.1 > 79.85, 15.2 > 13.15
            row("b", P["fp"], "0.5%"),  # not replicated: below 5 - 0.5 - 2
            row("c", P["share"], "17%", se=0.5),  # inconclusive: 17 +- 0.82 across 17.5
            row("d", P["fig2.map"], 0.3246, "score"),  # replicated
            row("e", None, 3, "count"),  # describes our data: not counted
        ],
    )
    book.compare(
        "webber2008score",
        "Verdict",
        [{"quantity": "restated", "paper": P["claim"], "same_as": t1.row("a")}],
    )
    em = book.compare(
        "webber2008score",
        "Table 1 under X",
        [
            row("a", P["t1"], "3.8 / 77.7 / 15.2"),  # partly
            row("c", P["share"], "15.2%", se=0.5),  # replicated
            row("d", P["fig2.map"], 0.36, "score"),  # not replicated: away
        ],
        emulates=t1,
        condition="X",
    )
    assert list(em.frame["as is"]) == [NOT_REPLICATED, INCONCLUSIVE, REPLICATED]
    assert list(em.frame["ours, as is"]) == ["7.7 / 80.1 / 15.2", "17%", 0.3246]
    html = em._repr_html_()
    assert html.count('class="irrepro-status"') == 6 and "as is reason" not in html
    rec = json.loads((tmp_path / "results" / "webber2008score-table-1-under-x.json").read_text())
    assert rec["condition"] == "X" and rec["rows"][0]["emulates"] == "Table 1: a"
    cards = book.scorecard(tmp_path / "results")
    card = cards["Webber, Moffat & Zobel 2008"]
    assert book.conditions(card) == ["X"]
    title = "Webber, Moffat & Zobel 2008"
    # the data as they are: a, b, c, d (the context, restating and rerun rows are not counted)
    assert book.summary(cards).loc[title].tolist() == [1, 0, 1, 2, 0, 4]
    # under X: a partly, b as it was, c replicated, d not replicated
    assert book.summary(cards, "X").loc[title].tolist() == [1, 1, 0, 2, 0, 4]
    moves = book.emulated(card, "X")
    assert list(moves["quantity"]) == ["a", "c", "d"]
    assert list(moves["move"]) == ["toward the paper", "toward the paper", "away from the paper"]
    s = book.emulation_summary(cards).set_index(["paper", "condition"]).loc[(title, "X")]
    assert (s["rows rerun"], s["toward the paper"], s["away from the paper"], s["now comparable"]) == (
        3,
        2,
        1,
        0,
    )
    assert s["label as is"] == book.label(book.summary(cards).loc[title])
    assert "Under X (3 rows rerun)" in book.header("webber2008score").text
    with pytest.raises(ValueError, match="reruns one row"):
        book.compare(
            "webber2008score", "Table 1 under Y", [row("zz", P["fp"], "5%")], emulates=t1, condition="Y"
        )
    with pytest.raises(ValueError, match="give both"):
        book.compare("webber2008score", "Table 1 under Y", [row("a", P["fp"], "5%")], emulates=t1)


def test_spread_notes_give_the_range_and_the_statuses_over_runs(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    sup = "the ranking above"
    runs = [
        [
            {
                "quantity": "t",
                "paper": P["t1"],
                "ours": ours,
                "kind": "rate",
                "ours_se": 0.1,
                "se_reason": "binomial",
            },
            {
                "quantity": "w",
                "paper": P["claim"],
                "ours": "AP, nCG",
                "kind": "claim",
                "status": s,
                "supports": sup,
            },
        ]
        for ours, s in (
            ("3.7 / 77.8 / 11.1", "holds"),
            ("8.0 / 70.0 / 22.0", "partly"),
            ("3.9 / 77.0 / 11.0", "holds"),
        )
    ]
    assert judge_row(runs[0][0]) == judge(
        "3.7 / 77.8 / 11.1", "3.7 / 77.8 / 11.1", kind="rate", ours_se=0.1, se_reason="binomial"
    )
    notes = book.spread_notes(runs, "seeds 1-3")
    assert notes[0] == "seeds 1-3: 3.7-8 / 70-77.8 / 11-22 (2 replicated, 1 not replicated)"
    assert notes[1] == "seeds 1-3: AP, nCG (2 replicated, 1 partly)"
    with pytest.raises(ValueError):
        book.spread_notes([runs[0], runs[1][:1]])


# --- the book's own pages: the rule's page, reachable, and no status stated in prose ------------------


def test_the_rule_page_is_in_the_book_where_the_chapters_link_to_it():
    from irrepro.book._scorecard import _RULE_LINK

    href = re.search(r'href="([^"]+)"', _RULE_LINK).group(1)
    # chapters are rendered from notebooks/: the link resolves against notebooks/<chapter>.html
    target = (Path("notebooks") / href).as_posix()
    assert target == "notebooks/../book/rule.html" and (ROOT / "book" / "rule.md").is_file()
    for toc in ("_toc.yml", "book/_toc_offline.yml"):
        files = re.findall(r"file:\s*(\S+)", (ROOT / toc).read_text())
        assert "book/rule" in files and "book/scorecard" in files, toc
    bib = (ROOT / "book" / "references.bib").read_text()
    for kind, entry in MARGINS["kinds"].items():
        if entry.get("cite"):
            assert f"{{{entry['cite']},".lower() in bib.lower(), (kind, entry["cite"])
        assert entry.get("what") and entry.get("why"), kind


def test_the_books_pages_state_no_status_in_prose():
    from _book_checks import markdown_prose, stray_statements

    pages = sorted((ROOT / "book").glob("*.md"))
    assert {"rule.md", "scorecard.md", "replications.md", "intro.md"} <= {p.name for p in pages}
    for page in pages:
        assert not stray_statements(markdown_prose(page.read_text(encoding="utf-8"))), page.name


def test_sensitivity_counts_the_rows_again_under_scaled_margins(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    _webber_tables(book.paper_numbers("webber2008score"))
    cards = book.scorecard(tmp_path / "results")
    sens = book.sensitivity(tmp_path / "results", factors=(0.5, 1.0, 2.0, 4.0))
    webber = "Webber, Moffat & Zobel 2008"
    # at x1 the recorded counts
    assert sens.loc[(webber, "x1")].tolist() == book.summary(cards).loc[webber].tolist()
    # fp (10.3% +- 1 against 5%) lies wholly outside the margin, and not under four times it
    fp = book.judge("5%", "10.3%", kind="rate", ours_se=1.0, se_reason="binomial")
    with scaled(4.0):
        fp4 = book.judge("5%", "10.3%", kind="rate", ours_se=1.0, se_reason="binomial")
    assert fp.status == NOT_REPLICATED and fp4.status != NOT_REPLICATED
    # the claim resting on MAP and fp combines their new statuses
    at4 = sens.loc[(webber, "x4")]
    assert at4[NOT_REPLICATED] < sens.loc[(webber, "x1"), NOT_REPLICATED]
    assert (sens["total"] == sens.groupby(level=0)["total"].transform("first")).all()
    judged_on = book.scorecard_table(cards)["judged on"]
    assert judged_on[webber] == "TREC-COVID"
    assert judged_on["Cormack & Lynam 2006"] == ""


def test_error_units_says_what_each_chapters_errors_rest_on(tmp_path, monkeypatch):
    _fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    hits = np.array([1, 1, 0, 1, 0, 0, 1, 1])
    book.compare(
        "webber2008score",
        "Figure 2",
        [
            book.share(
                "share",
                P["share"],
                hits.astype(bool),
                clusters=[1, 1, 2, 2, 3, 3, 4, 4],
                unit="topic",
                reason="no random step",
            ),
            {
                "quantity": "MAP",
                "paper": P["fig2.map"],
                "ours": 0.3246,
                "kind": "score",
                "ours_se": 0,
                "se_reason": "computed exactly from the qrels",
            },
            {
                "quantity": "fp",
                "paper": P["fp"],
                "ours": "8.5%",
                "kind": "rate",
                "se_sampling": 0.2,
                "se_mc": 1.0,
                "unit": "system pair",
                "replicates": 500,
            },
        ],
        data="TREC-COVID",
    )
    units = book.error_units(tmp_path / "results").set_index("chapter")
    row = units.loc["Webber, Moffat & Zobel 2008"]
    assert row["clustered by"] in {"topic (1), system pair (1)", "system pair (1), topic (1)"}
    assert row["no error"] == 1
    # fp: 8.5 +- 1.645 x 1.02 straddles 5 + 0.5 + 2 points; without its Monte Carlo error, wholly above
    assert row["inconclusive: monte-carlo"] == 1 and row["inconclusive: sampling"] == 0
    assert list(units.index) == ["Webber, Moffat & Zobel 2008"]


def test_status_table_rounds_a_raw_paper_value_as_ours_and_shows_a_whole_count_whole():
    frame = pd.DataFrame(
        [
            {
                "quantity": "a",
                "paper": "0.0509202",
                "ours": "0.055 ± 0.011",
                "kind": "rate",
                "status": REPLICATED,
            },
            {"quantity": "b", "paper": "0.05", "ours": 0.0512, "kind": "rate", "status": REPLICATED},
            {"quantity": "c", "paper": None, "ours": 189.0, "kind": "count", "status": NOT_COMPARABLE},
            {
                "quantity": "d",
                "paper": "< 1 & more",
                "ours": 189.5,
                "kind": "count",
                "status": NOT_COMPARABLE,
            },
        ],
        dtype=object,
    )
    html = status_table(frame, titles={"paper": ["csv file", "", "", ""]}, hide=["kind"]).text
    # the file's 7 decimals shown to ours' 3, the full value on hover beside the row's own title
    assert '<td data-label="paper" title="csv file (full value 0.0509202)">0.051</td>' in html
    assert "0.0509202</td>" not in html and '<td data-label="paper">0.05</td>' in html
    assert '<td data-label="ours">189</td>' in html and '<td data-label="ours">189.500</td>' in html
    assert '<td data-label="paper">&lt; 1 &amp; more</td>' in html
    # ours to 5 decimals (0.00749): a raw 0.125117 to at most four significant decimals, not 0.12512
    wide = pd.DataFrame(
        {"quantity": ["e", "f"], "paper": ["0.125117", "0.00688623"], "ours": ["0.12", "0.00749"]}
    )
    shown = status_table(wide).text
    assert ">0.1251</td>" in shown and ">0.00689</td>" in shown and "full value 0.125117" in shown


def test_a_simulated_data_warning_in_a_page_is_a_box_not_stderr(monkeypatch, capsys):
    """In a notebook kernel the book shows the stand-in's warning as a simulated-data box (the book
    fails on stderr); other warnings still reach Python's display."""
    import IPython.display

    from irrepro.book import _config
    from irrepro.data import SimulatedDataWarning

    shown, passed = [], []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    monkeypatch.setattr(_config, "_python_showwarning", lambda *a: passed.append(a[1]))
    msg = SimulatedDataWarning("TREC-COVID round 5: real data unavailable (looked in cache data/x.gz)")
    _config._show_warning(msg, SimulatedDataWarning, "f.py", 1)
    _config._show_warning(UserWarning("other"), UserWarning, "f.py", 2)
    html = shown[0].data
    assert (
        'class="admonition warning simulated-data"' in html and "TREC-COVID round 5: its real files" in html
    )
    assert "data/x.gz" not in html and passed == [UserWarning] and capsys.readouterr().err == ""


def test_a_table_on_a_sub_page_is_recorded_there_glued_for_it_and_linked(tmp_path, monkeypatch):
    """``compare(..., page=)``: the record names the sub-page, the chapter glues the table for it and
    shows a line linking to it; a verdict row links to the table it rests on; the scorecard too."""
    d = _fake_book(tmp_path, monkeypatch)
    yml = d / "papers" / "webber2008score.yml"
    yml.write_text(
        yml.read_text() + "headline:\n  chapter: notebooks/webber\n  question: q\n  claim: c\n  data: d\n"
    )
    P = book.paper_numbers("webber2008score")
    row = {
        "quantity": "MAP",
        "paper": P["fig2.map"],
        "ours": 0.3246,
        "kind": "score",
        "ours_se": 0,
        "se_reason": "exact",
    }
    fig = book.compare("webber2008score", "Figure 2", [row], page="tables")
    verdict = book.compare(
        "webber2008score", "Verdict", [{"quantity": "c", "paper": P["claim"], "same_as": fig.row("MAP")}]
    )
    rec = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "results").glob("*.json")}
    assert rec["webber2008score-figure-2"]["page"] == "notebooks/webber/tables"
    assert rec["webber2008score-verdict"]["page"] == "notebooks/webber"
    assert '<a href="webber/tables.html#cmp-webber2008score-figure-2">Figure 2</a>' in verdict._repr_html_()
    glued, shown = [], []
    monkeypatch.setattr("myst_nb.glue", lambda key, obj, display: glued.append((key, obj, display)))
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    monkeypatch.delenv(book._config.BOOK_BUILD_ENV, raising=False)
    fig._ipython_display_()  # outside the book's build (Jupyter, Binder, Colab): the table where it is
    assert not glued and 'id="cmp-webber2008score-figure-2"' in shown.pop()._repr_html_()
    monkeypatch.setenv(book._config.BOOK_BUILD_ENV, "1")
    fig._ipython_display_()
    (key, obj, display), line = glued[0], shown[0]._repr_html_()
    assert key == "cmp-webber2008score-figure-2" and display is False
    assert 'id="cmp-webber2008score-figure-2"' in obj._repr_html_() and "0.3246" in obj._repr_html_()
    assert 'href="webber/tables.html#cmp-webber2008score-figure-2"' in line and "0.3246" not in line
    verdict._ipython_display_()  # on the chapter's page: the whole table, nothing glued
    assert len(glued) == 1 and 'id="cmp-webber2008score-verdict"' in shown[1]._repr_html_()
    book.aside(
        book.table(pd.DataFrame({"x": [1.5]})), paper="webber2008score", page="tables", title="X, in full"
    )._ipython_display_()
    assert glued[1][0] == "aside-x--in-full" and 'id="aside-x--in-full"' in glued[1][1]._repr_html_()
    assert 'href="webber/tables.html#aside-x--in-full"' in shown[2]._repr_html_()
    # a figure: glued as its PNG under the aside's id, with the title as alt text, and closed so that
    # the chapter does not show it too
    import matplotlib.pyplot as plt

    figure, _ = plt.subplots()
    book.aside(figure, paper="webber2008score", page="tables", title="Y, one-tailed")._ipython_display_()
    html_fig = glued[2][1]._repr_html_()
    assert glued[2][0] == "aside-y--one-tailed" and 'id="aside-y--one-tailed"' in html_fig
    assert '<img src="data:image/png;base64,' in html_fig and 'alt="Y, one-tailed"' in html_fig
    assert not plt.fignum_exists(figure.number)
    card = next(c for c in book.scorecard(tmp_path / "results").values() if not c.empty)
    links = dict(zip(card["table / figure / claim"], card["link"]))
    assert links["Figure 2"] == "../notebooks/webber/tables.html#cmp-webber2008score-figure-2"
    assert links["Verdict"] == "../notebooks/webber.html#cmp-webber2008score-verdict"


def test_the_book_warns_of_a_table_glued_for_a_sub_page_that_no_page_pastes(tmp_path, caplog):
    import importlib.util
    import types

    spec = importlib.util.spec_from_file_location(
        "irrepro_sphinx", ROOT / "book" / "_ext" / "irrepro_sphinx.py"
    )
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    (tmp_path / "out" / "ch").mkdir(parents=True)
    (tmp_path / "out" / "ch.glue.json").write_text(json.dumps({"cmp-a": {}, "aside-b": {}, "plain": {}}))
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch.md").write_text("# chapter\n")
    (tmp_path / "ch" / "tables.md").write_text("# tables\n\n```{glue:any} cmp-a\n:doc: ../ch.md\n```\n")
    env = types.SimpleNamespace(
        found_docs={"ch", "ch/tables"},
        doc2path=lambda doc: tmp_path / f"{doc}.md",
        mystnb_config=types.SimpleNamespace(output_folder=str(tmp_path / "out")),
    )
    with caplog.at_level("WARNING"):
        ext._check_pasted(None, env)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "'aside-b'" in said[0] and "no page pastes" in said[0], said


def test_a_chapters_download_shows_the_tables_it_glued_for_its_sub_pages():
    import importlib.util

    import nbformat

    spec = importlib.util.spec_from_file_location(
        "irrepro_sphinx", ROOT / "book" / "_ext" / "irrepro_sphinx.py"
    )
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    record = {
        "application/papermill.record/text/html": "<table>t</table>",
        "application/papermill.record/text/plain": "t",
    }
    cell = nbformat.v4.new_code_cell("t2")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data", data=dict(record), metadata={"scrapbook": {"name": "cmp-p-table-2"}}
        ),
        nbformat.v4.new_output(
            "display_data", data=dict(record), metadata={"scrapbook": {"name": "kt_margin"}}
        ),
    ]
    nb = ext._show_pasted(nbformat.v4.new_notebook(cells=[cell]))
    table, number = nb.cells[0].outputs
    assert table.data["text/html"] == "<table>t</table>" and table.data["text/plain"] == "t"
    assert "text/html" not in number.data  # a number glued for prose stays a record


def test_ours_on_an_edge_with_monte_carlo_error_alone_is_not_said_to_want_more_data():
    """A simulated rate exactly at "at most 0.0500" (margin 0): no number of replicates is estimated
    (as before), but the reason says that only Monte Carlo error spans the edge - never "more data",
    since nothing was sampled; with a sampling error it says "more data"."""
    on_edge = judge("at most 0.0500", 0.05, kind="rate", se_mc=0.004, se_sampling=0, nominal=0.05,
                    se_reason="simulated", replicates=3000)  # fmt: skip
    assert on_edge.status == INCONCLUSIVE and on_edge.why == "sampling" and on_edge.needed is None
    assert "Monte Carlo error alone" in on_edge.reason and "more data" not in on_edge.reason
    sampled = judge("at most 0.0500", 0.05, kind="rate", se_mc=0.004, se_sampling=0.002, nominal=0.05)
    assert sampled.why == "sampling" and "more data would decide" in sampled.reason
    off_edge = judge("at most 0.0500", 0.052, kind="rate", se_mc=0.004, se_sampling=0, nominal=0.05,
                     se_reason="simulated", replicates=3000)  # fmt: skip
    assert (
        off_edge.why == "monte-carlo"
        and off_edge.needed > 3000
        and "Monte Carlo error alone" not in off_edge.reason
    )
