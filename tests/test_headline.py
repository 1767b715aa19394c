"""A chapter's headline (issue 24): the opening box's question, data, central claim's status and time
to rerun, recorded for the introduction's table (irrepro.book._scorecard), and the check of the built
pages' headline tables (tests/_book_checks.py: check_headlines)."""

from __future__ import annotations

import json
import re
from html import escape as html_escape

import pytest

import irrepro.book as book
from _book_checks import check_headlines, fake_book, headline_rows
from irrepro.book._scorecard import _short_title, headline

HEADLINE = (
    "headline:\n"
    "  chapter: notebooks/webber_moffat_zobel_2008\n"
    "  question: Can scores be compared across collections?\n"
    "  claim: every comparison is problematic\n"
    "  data: TREC 2004 Robust\n"
)


def _book_with_headline(tmp_path, monkeypatch):
    d = fake_book(tmp_path, monkeypatch)
    f = d / "papers" / "webber2008score.yml"
    f.write_text(f.read_text().replace("numbers:\n", HEADLINE + "numbers:\n", 1))
    return d


def _runs_row(P):
    """A counted row of the fake paper: 15 runs, ours exact."""
    return {
        "quantity": "runs",
        "paper": P["runs"],
        "ours": 15,
        "kind": "count",
        "ours_se": 0,
        "se_reason": "counted",
    }


def _verdict(ours="every comparison is problematic, and more", status=None):
    P = book.paper_numbers("webber2008score")
    return book.compare(
        "webber2008score",
        "Verdict",
        [
            {
                "quantity": "every comparison is problematic",
                "paper": P["claim"],
                "ours": ours,
                "kind": "claim",
                "status": status or book.verdict(False),
                "supports": "the table above",
            },
            _runs_row(P),
        ],
        data="TREC-8, 126 runs",
    )


def test_the_header_opens_with_the_headline_and_records_it(tmp_path, monkeypatch):
    import time

    import irrepro.book._scorecard as hl

    # the time counts from the first import of irrepro.book: this test's, not the test process's
    # (past two minutes the box says minutes)
    monkeypatch.setattr(hl, "_STARTED", time.perf_counter())
    _book_with_headline(tmp_path, monkeypatch)
    _verdict()
    html = book.header("webber2008score", data="TREC-8 and Robust 2004")._repr_html_()
    assert "Can scores be compared across collections?" in html
    assert "the paper's: TREC 2004 Robust; ours: TREC-8 and Robust 2004" in html
    # the central claim's status is its Verdict row's, in the verdict sentences' words
    assert 'class="irrepro-headline" data-status="not replicated"' in html
    # on the data the Verdict table was judged on, not the header's wider description
    assert (
        '<span class="irrepro-verdict-word">not replicated</span> on <span class="irrepro-data">TREC-8, 126 runs<'
        in html
    )
    rec = json.loads((tmp_path / "results" / "headlines" / "webber2008score.json").read_text())
    assert rec["status"] == "not replicated" and rec["label"] == "[~Re]"  # 1 replicated, 1 not
    assert rec["data_ours"] == "TREC-8 and Robust 2004" and rec["seconds"] >= 0
    assert rec["judged_on"] == "TREC-8, 126 runs"
    assert f"<dt>Time to rerun</dt><dd>{rec['seconds']:.0f} s at {rec['scale']} scale" in html


def test_the_headline_table_links_each_chapter_and_says_which_did_not_run(tmp_path, monkeypatch):
    _book_with_headline(tmp_path, monkeypatch)
    _verdict()
    book.header("webber2008score")
    html = book.headline_table(tmp_path / "results")._repr_html_()
    rows = headline_rows(html)
    assert len(rows) == len(book.PAPERS) + len(book.STUDIES)
    webber = [r for r in rows if r["paper"] == "webber2008score"]
    assert len(webber) == 1 and webber[0]["status"] == "not replicated" and webber[0]["label"] == "[~Re]"
    assert 'href="../notebooks/webber_moffat_zobel_2008.html"' in html
    # the label with its word; the claim as the file words it (no summary given: the claim itself)
    assert "[~Re]</span> reproduced in part" in html
    assert '<span title="every comparison is problematic">every comparison is problematic</span>' in html
    assert sum("not run in this build" in r["text"] for r in rows) == len(rows) - 1
    # the data default to the Verdict table's
    rec = json.loads((tmp_path / "results" / "headlines" / "webber2008score.json").read_text())
    assert rec["data_ours"] == rec["judged_on"] == "TREC-8, 126 runs"


def test_the_headline_table_has_a_line_per_chapter_for_a_phone(tmp_path, monkeypatch):
    _book_with_headline(tmp_path, monkeypatch)
    _verdict()
    book.header("webber2008score")
    html = book.headline_table(tmp_path / "results")._repr_html_()
    lines = re.findall(
        r"<li[^>]*>(.*?)</li>", html.split('<ul class="irrepro-headlines-compact">')[1].split("</ul>")[0]
    )
    assert len(lines) == len(book.PAPERS) + len(book.STUDIES)
    webber = [x for x in lines if "webber_moffat_zobel_2008.html" in x]
    assert len(webber) == 1 and 'data-status="not replicated"' in webber[0] and "not replicated" in webber[0]
    assert 'data-label="[~Re]">[~Re]</span>' in webber[0]
    assert sum("not run in this build" in x for x in lines) == len(lines) - 1
    assert html.index("irrepro-headlines-compact") < html.index("<table")  # before the table
    # a study's line names the study alone (its authors, "et al." from three on), in one line of a phone
    for _, title in book.STUDIES:
        short = _short_title(title)
        assert "(beside" not in short and any(html_escape(short) in x for x in lines), short
    assert _short_title("Which test? (beside Otero, Parapar & Barreiro 2025)") == "Otero et al. 2025"
    assert _short_title("Which test? (beside Ihemelandu & Ekstrand 2023)") == "Ihemelandu & Ekstrand 2023"
    assert (
        _short_title("Webber, Moffat & Zobel 2008") == "Webber, Moffat & Zobel 2008"
    )  # a paper's title stays


def test_the_check_of_the_built_pages_finds_a_wrong_status_a_wrong_label_and_a_missing_chapter(
    tmp_path, monkeypatch
):
    _book_with_headline(tmp_path, monkeypatch)
    _verdict()
    book.header("webber2008score")
    results = tmp_path / "results"
    html = book.headline_table(results)._repr_html_()
    problems = check_headlines(html, results, "intro")
    # the other chapters did not run in this fake book: each is a problem, the Webber row is not
    assert len(problems) == len(book.PAPERS) + len(book.STUDIES) - 1
    assert not [p for p in problems if "webber2008score" in p]
    wrong = html.replace(
        'class="irrepro-headline" data-status="not replicated"',
        'class="irrepro-headline" data-status="replicated"',
        1,
    )
    assert any("webber2008score: states 'replicated'" in p for p in check_headlines(wrong, results, "intro"))
    # the phone's line says the row's status too
    short = html.replace(
        '<span class="irrepro-status" data-status="not replicated"',
        '<span class="irrepro-status" data-status="replicated"',
        1,
    )
    assert html.index('data-status="not replicated"') < html.index("<table") and short != html
    assert any(
        "webber2008score: the compact line says" in p for p in check_headlines(short, results, "intro")
    )
    elsewhere = html.replace('data-data="TREC-8, 126 runs"', 'data-data="TREC-8 and round 1"', 1)
    assert any(
        "names the data 'TREC-8 and round 1'" in p for p in check_headlines(elsewhere, results, "intro")
    )
    relabelled = html.replace('data-label="[~Re]"', 'data-label="[Re]"')
    assert any(
        "label '[Re]', the scorecard's '[~Re]'" in p for p in check_headlines(relabelled, results, "intro")
    )
    n = len(book.PAPERS) + len(book.STUDIES)
    assert check_headlines("<p>no table</p>", results, "intro") == [f"intro: 0 headline rows, {n} chapters"]


def test_a_headline_needs_the_chapters_verdict_table_and_its_claim(tmp_path, monkeypatch):
    _book_with_headline(tmp_path, monkeypatch)
    with pytest.raises(KeyError, match="Verdict"):
        headline("webber2008score")
    P = book.paper_numbers("webber2008score")
    book.compare("webber2008score", "Verdict", [_runs_row(P)])
    with pytest.raises(KeyError, match="names no data"):
        headline("webber2008score")
    book.compare("webber2008score", "Verdict", [_runs_row(P)], data="TREC-8")
    with pytest.raises(KeyError, match="every comparison is problematic"):
        headline("webber2008score")


def test_a_headline_is_never_more_than_the_rows_its_claim_rests_on(tmp_path, monkeypatch):
    _book_with_headline(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    none = {
        "quantity": "sizes",
        "paper": None,
        "ours": 3,
        "kind": "count",
        "ours_se": 0,
        "se_reason": "counted",
    }
    rows = book.compare("webber2008score", "Rows", [none])
    assert rows.frame["status"].tolist() == ["not comparable"]
    claim = {
        "quantity": "every comparison is problematic",
        "paper": P["claim"],
        "ours": "yes",
        "kind": "claim",
        "supports": [rows.row("sizes")],
    }
    # the chapter's "holds" on rows that compare nothing with the paper: the headline refuses it
    book.compare("webber2008score", "Verdict", [dict(claim, status=book.verdict(True))], data="TREC-8")
    with pytest.raises(ValueError, match="not comparable"):
        headline("webber2008score")
    # the status the rule gives from those rows: not comparable, and so is the headline
    book.compare("webber2008score", "Verdict", [claim], data="TREC-8")
    assert headline("webber2008score").status == "not comparable"
    # resting on a comparable row, the chapter's verdict stands
    runs = book.compare("webber2008score", "Runs", [_runs_row(P)])
    book.compare(
        "webber2008score",
        "Verdict",
        [dict(claim, status=book.verdict(True), supports=[runs.row("runs")])],
        data="TREC-8",
    )
    assert headline("webber2008score").status == "replicated"


def test_a_paper_file_without_a_headline_has_none_and_a_partial_one_is_an_error(tmp_path, monkeypatch):
    d = fake_book(tmp_path, monkeypatch)
    _verdict()
    assert headline("webber2008score") is None
    assert "irrepro-opening" not in book.header("webber2008score")._repr_html_()
    f = d / "papers" / "webber2008score.yml"
    f.write_text(f.read_text().replace("numbers:\n", "headline:\n  question: why?\nnumbers:\n", 1))
    with pytest.raises(ValueError, match="headline needs chapter, question, claim and data"):
        book.paper_numbers("webber2008score")


def test_every_paper_file_names_a_headline_whose_claim_is_a_paper_claim():
    """The book's own files: every chapter has a headline (its claim is checked against the chapter's
    Verdict rows when the chapter runs, and against the built page by tests/e2e/test_verdicts.py)."""
    for key, _ in (*book.PAPERS, *book.STUDIES):
        h = book.paper_numbers(key).headline
        assert (
            {"chapter", "question", "claim", "data"}
            <= set(h)
            <= {"chapter", "question", "claim", "data", "summary", "beside"}
        ), key
        # a study's chapter says how it sets its numbers beside the study's; a replication does not
        assert ("beside" in h) == (key in dict(book.STUDIES)), key
        assert h["chapter"].startswith("notebooks/"), key


def test_a_study_chapter_says_how_it_sets_its_numbers_beside_the_study():
    """The opening box of a chapter beyond the papers says how it measures the papers' methods -
    by simulation where the truth is known, or by planning on pilot data - from its study's yml; the
    planning chapter must not claim a known truth (it had the known-truth chapter's line)."""
    from irrepro.book._papers import STUDIES
    from irrepro.book._scorecard import _beside

    lines = {key: _beside(key) for key, _ in STUDIES}
    assert "truth is known" in lines["urbano2019statistical"]
    assert "truth is known" not in lines["sakai2016topic"]
    assert "pilot" in lines["sakai2016topic"]
    assert len(set(lines.values())) == len(lines)


def test_a_study_without_its_beside_line_is_refused(tmp_path, monkeypatch):
    from irrepro.book._scorecard import _beside

    _book_with_headline(tmp_path, monkeypatch)
    with pytest.raises(KeyError, match="beside"):
        _beside("webber2008score")
