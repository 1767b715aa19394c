"""The scorecard's rule (book.judge) on hand-made rows, and compare / scorecard end to end through
the JSON that compare writes to IRREPRO_RESULTS."""

import ast
import json
import math
import re
from pathlib import Path

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
    assert (
        judge("8.25 / 83.5 / 8.25", "8.29 / 83.42 / 8.29")[0] == NOT_REPLICATED
    )  # not to the printed digits


def test_explicit_status_and_verdict_words():
    assert judge("Q, AP", "PDoc", status=book.verdict(False, partly=True)) == (
        PARTLY,
        "the chapter's verdict",
    )
    assert judge("claimed", "holds", status="holds")[0] == REPLICATED
    assert judge("claimed", "x", status="does not")[0] == NOT_REPLICATED
    assert judge("74 x 50", "126 x 50", status="not comparable", reason="different collection") == (
        NOT_COMPARABLE,
        "different collection",
    )
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
    comp = book.compare(
        "webber2008score",
        "Figure 2",
        [
            {"quantity": "MAP", "paper": 0.324, "ours": np.float64(0.323972)},
            {"quantity": "share", "paper": "77.8", "ours": "80.1", "n": (300, 300), "note": "n lists"},
            {"quantity": "extra", "paper": None, "ours": 3, "reason": "beyond the paper"},
        ],
    )
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


def test_verdict_rows_take_the_status_they_are_given_not_a_word_in_their_text(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    comp = book.compare(
        "cormack2006statistical",
        "Verdict",
        [
            {
                "quantity": "a",
                "paper": "holds",
                "ours": book.verdict(True),
                "status": book.verdict(True),
                "note": "x",
            },
            {
                "quantity": "b",
                "paper": "2/3",
                "ours": 0.66,
                "note": "does not hold: 0.66",
                "status": book.verdict(False, True),
            },
            {
                "quantity": "c",
                "paper": "holds",
                "ours": "not testable",
                "status": "not testable",
                "reason": "3 lists",
            },
            {"quantity": "d", "paper": "claimed", "ours": "holds", "status": book.verdict(False)},
        ],
    )
    assert list(comp.frame["status"]) == [REPLICATED, PARTLY, NOT_COMPARABLE, NOT_REPLICATED]
    assert comp.frame["reason"].iloc[0] == "the chapter's verdict (deciding number in the note)"
    # a verdict word in the display text decides nothing: the row is judged by the rule
    assert (
        book.compare("x", "Verdict", [{"quantity": "e", "paper": "2/3", "ours": 0.66, "note": "does not"}])
        .frame["status"]
        .iloc[0]
        == REPLICATED
    )
    with pytest.raises(ValueError, match="give the row a status"):
        book.compare("x", "Verdict", [{"quantity": "f", "paper": "claimed", "ours": "holds"}])


def test_scorecard_reads_mixed_rows_and_counts_them(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    book.compare(
        "sakai2006evaluating",
        "Table 2",
        [
            {"quantity": "order", "paper": "Q, AP", "ours": "AP, PDoc", "status": book.verdict(False, True)},
            {"quantity": "req. difference", "paper": 0.16, "ours": 0.076, "reason": "other data"},
            {
                "quantity": "spread",
                "paper": ".4166 / .2224",
                "ours": "0.47 / 0.36",
                "status": "not comparable",
                "reason": "describes the runs",
            },
            {"quantity": "tau", "paper": "about 10", "ours": 9.9},
        ],
        data="TREC-COVID",
    )
    book.compare(
        "sakai2006evaluating",
        "Verdict",
        [{"quantity": "claim", "paper": "claimed", "ours": "holds", "status": "holds"}],
    )
    # a row recorded without a status (an older results file) is judged by the same rule
    (tmp_path / "webber2008score-old.json").write_text(
        json.dumps(
            {
                "paper": "webber2008score",
                "item": "Old",
                "data": "",
                "rows": [{"quantity": "q", "paper": 0.742, "ours": 0.7423}],
            }
        )
    )
    (tmp_path / "not-a-paper-x.json").write_text(json.dumps({"paper": "nobody", "item": "x", "rows": []}))
    cards = book.scorecard(tmp_path)
    assert list(cards) == [title for _, title in (*book.PAPERS, *book.STUDIES)]
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
    book.compare(
        "cormack2006statistical",
        "Table 1",
        [
            {
                "quantity": "triple",
                "paper": "3.7 / 77.8 / 11.1",
                "ours": "7.7 / 80.1 / 12.2",
                "n": (3652, 6292),
            },
            {
                "quantity": "size",
                "paper": "74 x 50",
                "ours": "126 x 50",
                "status": "not comparable",
                "reason": "other data",
            },
            {"quantity": "none", "paper": None, "ours": "+0.05 [+0.04, +0.06]"},
            {"quantity": "range", "paper": "11%-14%", "ours": "14.7%"},
            {"quantity": "words", "paper": "Q, AP", "ours": "AP, nCG", "status": book.verdict(False, True)},
            {"quantity": "yes/no", "paper": "yes", "ours": "no"},
            {"quantity": "se", "paper": 0.005, "ours": np.float64(0.02), "se": 0.2},
        ],
        data="x",
    )
    book.compare(
        "cormack2006statistical",
        "Verdict",
        [
            {
                "quantity": "claim",
                "paper": "holds",
                "ours": "not testable",
                "status": "not testable",
                "reason": "no such lists",
            }
        ],
    )
    rows = [r for f in sorted(tmp_path.glob("*.json")) for r in json.loads(f.read_text())["rows"]]
    assert len(rows) == 8
    assert [r["status"] for r in rows] == [
        PARTLY,
        NOT_COMPARABLE,
        NOT_COMPARABLE,
        NOT_REPLICATED,
        PARTLY,
        NOT_REPLICATED,
        REPLICATED,
        NOT_COMPARABLE,
    ]
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
    assert (
        st == PARTLY and reason.startswith("1 of 2 within ±") and "n = 3652 (paper) / 6292 (ours)" in reason
    )


# --- restated rows, labels, badges, headers ---------------------------------------------------------


def test_a_restated_row_takes_the_status_of_what_it_restates_and_is_counted_once(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    fig = book.compare(
        "webber2008score",
        "Figure 7",
        [
            {"quantity": "ratio", "paper": "1/3", "ours": 0.34},  # replicated
            {"quantity": "gap", "paper": 0.05, "ours": 0.028},  # not replicated
        ],
    )
    verdict = book.compare(
        "webber2008score",
        "Verdict",
        [
            {"quantity": "two thirds", "paper": "2/3", "ours": 0.66, "same_as": fig.row("ratio")},
            {"quantity": "both", "paper": "claimed", "same_as": [fig.row("ratio"), fig.row("gap")]},
            {"quantity": "gap only", "paper": "claimed", "same_as": [fig.row("gap"), fig.row("gap")]},
            {"quantity": "own", "paper": "claimed", "ours": "holds", "status": "holds"},
        ],
    )
    assert list(verdict.frame["status"]) == [REPLICATED, PARTLY, NOT_REPLICATED, REPLICATED]
    assert list(verdict.frame["ours"]) == [0.66, "partly", "does not", "holds"]  # no ours: the verdict word
    assert verdict.frame["reason"].iloc[0] == "as Figure 7: ratio (replicated)"
    rows = json.loads((tmp_path / "webber2008score-verdict.json").read_text())["rows"]
    assert [r.get("same_as") for r in rows] == [
        "Figure 7: ratio",
        "Figure 7: ratio; Figure 7: gap",
        "Figure 7: gap; Figure 7: gap",
        None,
    ]
    card = book.scorecard(tmp_path)["Webber, Moffat & Zobel 2008"]
    assert len(card) == 6
    counts = book.summary(book.scorecard(tmp_path)).loc["Webber, Moffat & Zobel 2008"]
    assert counts.tolist() == [2, 0, 1, 0, 3]  # ratio, own / gap: the three restating rows are not counted
    with pytest.raises(KeyError, match="quantities"):
        fig.row("nothing")
    with pytest.raises(ValueError, match="same_as takes rows"):
        book.compare(
            "webber2008score",
            "Verdict",
            [{"quantity": "q", "paper": "x", "ours": 1, "same_as": ["Figure 7: ratio"]}],
        )


@pytest.mark.parametrize(
    "rep, part, notrep, nc, expected",
    [
        (2, 0, 1, 5, "[Re]"),  # 2/3 exactly
        (1, 2, 0, 0, "[Re]"),  # (1 + 1) / 3
        (1, 1, 2, 0, "[~Re]"),  # 1.5 / 4
        (1, 0, 2, 9, "[~Re]"),  # 1/3 exactly
        (0, 1, 1, 0, "[~Re]"),  # 0.5 / 2 = 1/4 ... below 1/3
        (0, 0, 3, 0, "[¬Re]"),
        (0, 0, 0, 4, ""),  # nothing comparable: no label
    ],
)
def test_rescience_label_from_counts(rep, part, notrep, nc, expected):
    counts = {REPLICATED: rep, PARTLY: part, NOT_REPLICATED: notrep, NOT_COMPARABLE: nc}
    score = (rep + part / 2) / max(rep + part + notrep, 1)
    if expected == "[~Re]" and score < 1 / 3:
        expected = "[¬Re]"
    assert book.label(counts) == expected


def test_status_badges_carry_symbol_colour_and_reason():
    seen = set()
    for st in STATUSES:
        html = book.status_badge(st, 'reason with "quotes" & <tags>', note=3)
        assert f'data-status="{st}"' in html and f"> {st}</span>" in html
        assert 'title="reason with &quot;quotes&quot; &amp; &lt;tags&gt;"' in html
        assert html.endswith('<sup class="irrepro-note-ref">3</sup>')
        style = html.split('style="')[1].split('"')[0]
        sym = html.split('aria-hidden="true">')[1][0]
        seen.add((sym, style.split("border:")[1]))
    assert (
        len({s for s, _ in seen}) == 4 and len({b.split()[1] for _, b in seen}) == 4
    )  # symbols and border styles differ
    with pytest.raises(ValueError):
        book.status_badge("fine")


def test_status_table_moves_reasons_to_footnotes_numbered_once():
    frame = pd.DataFrame(
        [
            {"quantity": "a", "paper": 0.5, "ours": 0.51234, "status": REPLICATED, "reason": "within ±0.05"},
            {"quantity": "b", "paper": None, "ours": 3, "status": NOT_COMPARABLE, "reason": "no number"},
            {"quantity": "c", "paper": "x", "ours": "y", "status": REPLICATED, "reason": "within ±0.05"},
        ],
        dtype=object,
    )
    html = book.status_table(frame, "cap", titles={"paper": ["§2, Figure 2", "", ""]}).text
    assert "<th>reason</th>" not in html and "<caption>cap</caption>" in html
    assert html.count("<li>") == 2 and "<li>within ±0.05</li><li>no number</li>" in html
    assert html.count('irrepro-note-ref">1<') == 2 and html.count('irrepro-note-ref">2<') == 1
    assert '<td title="§2, Figure 2">0.500</td>' in html and "<td>0.512</td>" in html and "<td>-</td>" in html
    assert "<td>3</td>" in html  # integers stay integers


def test_paper_numbers_come_from_the_yml_with_where_they_are_printed(tmp_path, monkeypatch):
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "webber2008score.yml").write_text(
        "paper: webber2008score\n"
        "numbers:\n"
        "  fig2.map: {table: Figure 2, row: 13th run, column: MAP, value: 0.324, section: '2'}\n"
        "  fig3.median: {table: Figure 3, value: '0.50', section: '3', wording: the median}\n"
        "  t1: {table: Table 1, row: linear, column: below / in / above, value: 3.7 / 77.8 / 11.1, section: '6.2'}\n"
        "  t2: {table: Table 1, row: logit, column: below / in / above, value: 11.1 / 76.5 / 12.5, section: '6.2'}\n"
    )
    monkeypatch.setenv("IRREPRO_BOOK", str(tmp_path))
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path / "results"))
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
            {"quantity": "MAP", "paper": P["fig2.map"], "ours": 0.323972},
            {"quantity": "in", "paper": joined, "ours": "77.9 / 76.4"},
        ],
    )
    assert list(comp.frame["paper"]) == [0.324, "77.8 / 76.5"] and list(comp.frame["status"]) == [
        REPLICATED,
        REPLICATED,
    ]
    rec = json.loads((tmp_path / "results" / "webber2008score-figure-2.json").read_text())
    assert [r["paper_ref"] for r in rec["rows"]] == ["fig2.map", "t1[1]+t2[1]"]
    assert 'title="§2, Figure 2, 13th run, MAP"' in comp._repr_html_()
    with pytest.raises(ValueError, match="a number of webber2008score"):
        book.compare("sakai2006evaluating", "Table 2", [{"quantity": "x", "paper": P["fig2.map"], "ours": 1}])
    (tmp_path / "papers" / "sakai2006evaluating.yml").write_text(
        "paper: sakai2006evaluating\nnumbers:\n  x: {table: Figure 7, value: 1}\n"
    )
    with pytest.raises(ValueError, match="needs table, value and section"):
        book.paper_numbers("sakai2006evaluating")
    with pytest.raises(FileNotFoundError):
        book.paper_numbers("nobody2000")


def test_the_books_paper_files_are_complete_and_name_real_citations():
    bib = (ROOT / "book" / "references.bib").read_text()
    for key, _ in (*book.PAPERS, *book.STUDIES):
        P = book.paper_numbers(key)
        assert len(P) > 10 and f"@inproceedings{{{key}," in bib
        for k in P:
            v = P[k]
            assert v.table and v.section and v.value is not None, (key, k)
            assert v.value == v.value and not isinstance(v.value, bool), (
                key,
                k,
            )  # no NaN, no YAML yes/no booleans


def test_header_gives_the_reference_with_its_doi_and_the_label_of_the_counts():
    counts = {REPLICATED: 8, PARTLY: 16, NOT_REPLICATED: 13, NOT_COMPARABLE: 15, "total": 52}
    html = book.header("cormack2006statistical", counts).text
    assert "Statistical precision of information retrieval evaluation" in html
    assert 'href="https://doi.org/10.1145/1148170.1148262"' in html
    assert 'data-label="[~Re]"' in html and "reproduced in part" in html and "52 rows counted" in html


def test_header_of_a_chapter_beyond_the_papers_has_no_label_and_lists_what_it_tests():
    counts = {REPLICATED: 8, PARTLY: 0, NOT_REPLICATED: 13, NOT_COMPARABLE: 15, "total": 36}
    key = book.STUDIES[0][0]
    html = book.header(key, counts, tested=["sakai2006evaluating", "webber2008score"]).text
    assert 'data-label=""' in html and "irrepro-label" not in html and "No verdict label" in html
    assert "8 replicated, 0 partly, 13 not replicated, 15 not comparable (36 rows counted)" in html
    # the study's DOI, then each tested paper's, all as links
    for doi in ("10.1145/3331184.3331259", "10.1145/1148170.1148261", "10.1145/1390334.1390346"):
        assert f'href="https://doi.org/{doi}"' in html, doi
    assert "\\url" not in html  # the study's data note is a link, not a LaTeX command
    assert book.label(counts) == "[~Re]"  # what a replication with these counts would be labelled
    labelled = book.header("webber2008score", counts, tested=["sakai2006evaluating"]).text
    assert 'data-label="[~Re]"' in labelled and "10.1145/1148170.1148261" in labelled


def test_ordering_status_maps_the_papers_names():
    names = {"AveP": "AP", "Q-measure": "Q", "G_AveP": "G_AP", "G_Q-measure": "G_Q"}
    assert book.ordering_status(["AP", "Q", "nCG"], "Q-measure, AveP", names) == {
        "status": "holds",
        "reason": "2 of the paper's 2 among ours",
    }
    assert book.ordering_status(["PDoc"], "PDoc", names) == {"status": "holds", "reason": "the same measure"}
    assert book.ordering_status(["AP"], "PDoc", names)["status"] == "does not"
    assert book.ordering_status(["AP / Q", "AP / G_AP"], "Q/AveP, G_Q/G_AveP", names, pairs=True) == {
        "status": "partly",
        "reason": "1 of the paper's 2 pairs among ours",
    }


def test_below_in_above_prints_a_row_as_the_papers_do():
    t = pd.DataFrame(
        {
            "method": ["linear", "logit"],
            "n": [10, 10],
            "below": [7.66, 1.0],
            "in": [80.14, 98.0],
            "above": [12.2, 1.0],
        }
    )
    assert book.below_in_above(t, "linear") == "7.7 / 80.1 / 12.2"
    assert book.below_in_above(t, "logit", digits=2) == "1.00 / 98.00 / 1.00"


# --- helpers the chapters moved into the method modules, against literal loops ---------------------


def test_chapter_helpers_against_literal_loops():
    from irrepro import bootstrap_tests as bt
    from irrepro import corpus_bootstrap as cb
    from irrepro import topic_split as ts

    x = np.array([-3.0, -0.5, 0.2, 1.5, 2.0, 4.0, np.inf])
    above = sum(1 for v in x if v > 1) / len(x)
    below = sum(1 for v in x if v < -1) / len(x)
    assert cb.miss_ratio(x) == pytest.approx(above / below)
    assert cb.miss_ratio([0.5, 2.0]) == pytest.approx(0.5 / 1e-12)
    assert ts.bin_lower_edge("25-30%") == 25.0 and math.isnan(ts.bin_lower_edge(None))
    fit = ts.GrowthFit(
        ("0-5%", "5-10%"),
        np.array([np.nan, -1.0]),
        np.array([np.nan, -0.1]),
        np.array([np.nan, 0.03]),
        np.array([0, 4]),
        at=50,
    )
    assert ts.largest_projected_error(fit) == 0.03
    assert math.isnan(
        ts.largest_projected_error(
            ts.GrowthFit(
                ("a",), np.array([np.nan]), np.array([np.nan]), np.array([np.nan]), np.array([0]), at=50
            )
        )
    )
    st = bt.Stability(
        "AP", np.array([0.01, 0.02, 0.03]), np.array([0.10, 0.06, 0.02]), np.array([0.1, 0.3, 0.5])
    )
    assert bt.minority_rate_at(st, 0.2) == pytest.approx(0.08)  # halfway between 0.10 and 0.06


def test_study_helpers_against_the_studys_own_tables():
    from irrepro import bootstrap_tests as bt

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
        assert bt.geometric_consistent(study, m) == bool(same)
    req = dict(zip(study.table2("bootstrap")["measure"], study.table2("bootstrap")["required difference"]))
    sw = dict(zip(study.table3()["measure"], study.table3()["abs"]))
    k = 0
    for m in ("AP", "Q"):
        if sw[m] < req[m]:
            k += 1
    assert bt.swaps_below_required(study) == (k, 2)


# --- the chapters' notebooks: visible method, the papers' numbers as data -----------------------------

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))
#: cell tags that hide a cell's code with no toggle to show it
NO_TOGGLE = {"remove-input", "remove-cell"}


def _code_cells(path):
    import jupytext

    return [c for c in jupytext.read(path).cells if c.cell_type == "code"]


def _chapter_key(path) -> str:
    """The citation key a chapter opens with: the argument of its ``book.header(...)``."""
    keys = {
        node.args[0].value
        for node in ast.walk(ast.parse("\n".join(c.source for c in _code_cells(path))))
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", "") == "header"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }
    assert len(keys) == 1, (path.name, keys)
    return keys.pop()


def test_every_paper_and_study_has_one_chapter():
    keys = [_chapter_key(p) for p in CHAPTERS]
    assert sorted(keys) == sorted(k for k, _ in (*book.PAPERS, *book.STUDIES)), keys


def test_at_most_a_quarter_of_the_chapters_code_is_hidden_without_a_toggle():
    assert len(CHAPTERS) == len(book.PAPERS) + len(book.STUDIES)
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


def _loader_names(tree) -> set[str]:
    """Names bound to ``book.paper_numbers(...)``, and names bound to values read from those."""
    out = set()
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
        # a replication types its rows (more than ten); a chapter beyond the papers may build them
        # in one function, whose rows then feed several compare tables
        compares = sum(
            isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "compare" for n in ast.walk(tree)
        )
        assert rows > 10 or (_chapter_key(path) in dict(book.STUDIES) and rows >= 1 and compares >= 3), (
            path.name
        )


_NUM = re.compile(r"(?<![\w.])(?:\d[\d,]*(?:\.\d+)?|\.\d+)")


def _significant_digits(token: str) -> int:
    digits = token.replace(",", "").replace(".", "").lstrip("0")
    return len(digits) if "." in token else len(digits.rstrip("0"))


def test_no_paper_number_is_typed_in_a_code_cell():
    """Numbers of three or more significant digits that a paper prints (its yml values) do not
    appear in the chapter's code, in code or in strings (notes, sentences): they are read from
    book/papers/*.yml."""
    import yaml

    for path in CHAPTERS:
        key = _chapter_key(path)
        doc = yaml.safe_load((ROOT / "book" / "papers" / f"{key}.yml").read_text(encoding="utf-8"))
        printed = {
            t
            for e in doc["numbers"].values()
            for t in _NUM.findall(str(e["value"]))
            if _significant_digits(t) >= 3
        }
        assert printed, key
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


def test_every_number_of_a_papers_yml_is_read_by_its_chapter():
    for path in CHAPTERS:
        key = _chapter_key(path)
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
        patterns = [p for p in _loader_keys(tree, names) if p.pattern != ".+"]
        unread = [k for k in book.paper_numbers(key) if not any(p.fullmatch(k) for p in patterns)]
        assert not unread, f"{path.name} never reads {unread} of book/papers/{key}.yml"


def test_rows_rerun_under_emulated_conditions_are_counted_both_ways(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    t1 = book.compare(
        "cormack2006statistical",
        "Table 1",
        [
            {
                "quantity": "a",
                "paper": "3.7 / 77.8",
                "ours": "7.7 / 80.1",
                "n": (3652, 6292),
            },  # not replicated
            {"quantity": "b", "paper": 0.05, "ours": 0.028},  # not replicated
            {"quantity": "c", "paper": 5, "ours": 0, "status": "not comparable", "reason": "other data"},
            {"quantity": "d", "paper": 0.5, "ours": 0.5},  # replicated
        ],
    )
    book.compare(
        "cormack2006statistical",
        "Verdict",
        [{"quantity": "restated", "paper": "claimed", "same_as": t1.row("a")}],
    )
    em = book.compare(
        "cormack2006statistical",
        "Table 1 under X",
        [
            {"quantity": "a", "paper": "3.7 / 77.8", "ours": "3.8 / 80.1", "n": (3652, 6292)},  # partly
            {"quantity": "c", "paper": 5, "ours": 5},  # now comparable
            {"quantity": "d", "paper": 0.5, "ours": 0.7},  # away
        ],
        emulates=t1,
        condition="X",
    )
    assert list(em.frame["as is"]) == [NOT_REPLICATED, NOT_COMPARABLE, REPLICATED]
    assert list(em.frame["ours, as is"]) == ["7.7 / 80.1", 0, 0.5]
    html = em._repr_html_()
    assert html.count('class="irrepro-status"') == 6 and "as is reason" not in html
    rec = json.loads((tmp_path / "cormack2006statistical-table-1-under-x.json").read_text())
    assert rec["condition"] == "X" and rec["rows"][0]["emulates"] == "Table 1: a"
    cards = book.scorecard(tmp_path)
    card = cards["Cormack & Lynam 2006"]
    assert book.conditions(card) == ["X"]
    # the data as they are: a, b, c, d (the restating and the rerun rows are not counted)
    assert book.summary(cards).loc["Cormack & Lynam 2006"].tolist() == [1, 0, 2, 1, 4]
    # under X: a partly, b as it was, c replicated, d not replicated
    assert book.summary(cards, "X").loc["Cormack & Lynam 2006"].tolist() == [1, 1, 2, 0, 4]
    moves = book.emulated(card, "X")
    assert list(moves["quantity"]) == ["a", "c", "d"]
    assert list(moves["move"]) == ["toward the paper", "now comparable", "away from the paper"]
    s = book.emulation_summary(cards).set_index(["paper", "condition"]).loc[("Cormack & Lynam 2006", "X")]
    assert (s["rows rerun"], s["toward the paper"], s["away from the paper"], s["now comparable"]) == (
        3,
        1,
        1,
        1,
    )
    assert s["label as is"] == book.label(book.summary(cards).loc["Cormack & Lynam 2006"])
    assert "Under X (3 rows rerun)" in book.header("cormack2006statistical").text
    with pytest.raises(ValueError, match="reruns one row"):
        book.compare(
            "cormack2006statistical",
            "Table 1 under Y",
            [{"quantity": "zz", "paper": 1, "ours": 1}],
            emulates=t1,
            condition="Y",
        )
    with pytest.raises(ValueError, match="give both"):
        book.compare(
            "cormack2006statistical",
            "Table 1 under Y",
            [{"quantity": "a", "paper": 1, "ours": 1}],
            emulates=t1,
        )


def test_spread_notes_give_the_range_and_the_statuses_over_runs():
    P = book.paper_numbers("cormack2006statistical")
    runs = [
        [
            {"quantity": "t", "paper": P["table1.all.linear"], "ours": ours, "n": (3652, 6000)},
            {"quantity": "w", "paper": "Q, AP", "ours": "AP, nCG", "status": st},
        ]
        for ours, st in (
            ("3.7 / 77.8 / 11.1", "holds"),
            ("8.0 / 70.0 / 22.0", "partly"),
            ("3.9 / 77.0 / 11.0", "holds"),
        )
    ]
    assert book.judge_row(runs[0][0]) == book.judge("3.7 / 77.8 / 11.1", "3.7 / 77.8 / 11.1", n=(3652, 6000))
    notes = book.spread_notes(runs, "seeds 1-3")
    assert notes[0] == "seeds 1-3: 3.7-8 / 70-77.8 / 11-22 (2 replicated, 1 not replicated)"
    assert notes[1] == "seeds 1-3: AP, nCG (2 replicated, 1 partly)"
    with pytest.raises(ValueError):
        book.spread_notes([runs[0], runs[1][:1]])
