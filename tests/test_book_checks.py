"""The checks of the built book (tests/_book_checks.py, run on _build by tests/e2e/test_verdicts.py)
on a small fake build made here: they pass on a consistent build and catch each kind of
disagreement between the recorded rows, the verdict sentences, the prose and the counts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from _book_checks import (
    check_counts,
    check_prose,
    check_rows,
    check_verdicts,
    fake_book,
    load_results,
)
from irrepro import book
from irrepro.book._display import status_badge


def _build(tmp_path, monkeypatch):
    """Rows of a chapter recorded by compare, its page (header, prose, a table in a cell output,
    the verdict sentences) and the scorecard page, as the book renders them."""
    fake_book(tmp_path, monkeypatch)
    P = book.paper_numbers("webber2008score")
    exact = {"ours_se": 0, "se_reason": "computed exactly from the qrels"}
    fig = book.compare(
        "webber2008score",
        "Figure 2",
        [
            {"quantity": "MAP", "paper": P["fig2.map"], "ours": 0.3246, "kind": "score", **exact},
            {
                "quantity": "fp",
                "paper": P["fp"],
                "ours": "10.3%",
                "kind": "rate",
                "ours_se": 1.0,
                "se_reason": "binomial, n = 900",
            },
            {
                "quantity": "share",
                "paper": P["share"],
                "ours": "17%",
                "kind": "rate",
                "ours_se": 0.5,
                "se_reason": "sd over 5 seeds / sqrt(5)",
            },
            {"quantity": "topics", "paper": None, "ours": 50, "kind": "count", **exact},
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
                "ours": "2 of 3",
                "kind": "claim",
                "supports": [fig.row("MAP"), fig.row("fp")],
            },
            {"quantity": "ours only", "paper": None, "ours": "AP first", "kind": "claim"},
            {
                "quantity": "ranking",
                "paper": P["runs"],
                "ours": "AP first",
                "kind": "claim",
                "status": book.verdict(True),
                "supports": [fig.row("MAP"), "the ranking above"],
            },
        ],
        data="TREC-COVID",
    )
    chapter = (
        '<html><body><nav>Sakai: not replicated in the sidebar</nav><article class="bd-article">'
        f"<h1>Webber et al.</h1>{book.header('webber2008score').text}"
        "<p>We rerun Figure 2 on TREC-COVID. The share moves with the seed.</p>"
        f'<div class="cell_output">{fig._repr_html_()}</div>'
        f"{book.verdict_text(verdict)._repr_html_()}<pre>status = 'not replicated'</pre>"
        "</article></body></html>"
    )
    counts = book.summary(book.scorecard(tmp_path / "results"))
    card = (
        '<html><body><article class="bd-article"><p>The rows of the chapters.</p>'
        + book.table(counts, classes="irrepro-summary")._repr_html_()
        + "</article></body></html>"
    )
    return tmp_path / "results", chapter, card


def _rows(results):
    return {
        (f.name, r["quantity"]): (f, r)
        for f in results.glob("*.json")
        for r in json.loads(f.read_text())["rows"]
    }


def _edit(results, file, quantity, **changes):
    f = results / file
    rec = json.loads(f.read_text())
    for r in rec["rows"]:
        if r["quantity"] == quantity:
            r.update(changes)
    f.write_text(json.dumps(rec))


def test_a_consistent_build_passes_every_check(tmp_path, monkeypatch):
    results, chapter, card = _build(tmp_path, monkeypatch)
    records = load_results(results)
    assert sum(len(r["rows"]) for r in records) == 8
    assert check_rows(records) == []
    assert check_verdicts(chapter, records, "chapter") == []
    assert check_prose(chapter, "chapter") == []  # the sidebar, the tables and the code may say it
    assert check_counts([("chapter", chapter)], card, results) == []


@pytest.mark.parametrize(
    "file, quantity, changes, problem",
    [
        ("webber2008score-figure-2.json", "MAP", {"status": "not replicated"}, "the rule gives 'replicated'"),
        ("webber2008score-figure-2.json", "fp", {"ours_se": None, "se_reason": None}, "without a se_reason"),
        ("webber2008score-figure-2.json", "fp", {"margin": None}, "no margin"),
        ("webber2008score-figure-2.json", "fp", {"kind": "speed"}, "kind 'speed'"),
        ("webber2008score-figure-2.json", "fp", {"status": "fine"}, "status 'fine'"),
        ("webber2008score-figure-2.json", "fp", {"status_by": "chapter"}, "not a claim with supports"),
        ("webber2008score-verdict.json", "problematic", {"status": "replicated"}, "give 'partly'"),
        ("webber2008score-verdict.json", "restated", {"status": "partly"}, "give 'replicated'"),
        ("webber2008score-verdict.json", "problematic", {"supports": "Figure 2: nothing"}, "not recorded"),
        ("webber2008score-verdict.json", "ranking", {"supports": None}, "not a claim with supports"),
    ],
)
def test_check_rows_catches_a_row_the_rule_would_not_give(
    tmp_path, monkeypatch, file, quantity, changes, problem
):
    results, *_ = _build(tmp_path, monkeypatch)
    _edit(results, file, quantity, **changes)
    problems = check_rows(load_results(results))
    # the row itself (rows resting on it may follow)
    assert problems and problem in problems[0] and f"row {quantity!r}" in problems[0], problems


def test_check_verdicts_catches_a_sentence_that_disagrees_with_its_row(tmp_path, monkeypatch):
    results, chapter, _ = _build(tmp_path, monkeypatch)
    records = load_results(results)
    wrong = chapter.replace(
        'data-status="partly" data-item="Verdict"', 'data-status="replicated" data-item="Verdict"', 1
    )
    assert wrong != chapter
    assert "says 'replicated', the row is 'partly'" in check_verdicts(wrong, records)[0]
    worded = chapter.replace('verdict-word">replicated in part<', 'verdict-word">replicated<', 1)
    assert worded != chapter and "reads 'replicated'" in check_verdicts(worded, records)[0]
    _edit(results, "webber2008score-verdict.json", "problematic", status="not replicated")
    assert "the row is 'not replicated'" in check_verdicts(chapter, load_results(results))[0]


@pytest.mark.parametrize(
    "sentence",
    [
        "The claim holds only in part here.",
        "Table 2 is not replicated on our data.",
        "A label of [~Re] fits.",
    ],
)
def test_check_prose_catches_a_status_stated_outside_the_generated_parts(tmp_path, monkeypatch, sentence):
    _, chapter, _ = _build(tmp_path, monkeypatch)
    page = chapter.replace("<p>We rerun", f"<p>{sentence} We rerun")
    assert check_prose(page, "chapter") == [f"chapter: states a status: {sentence!r}"]


def test_check_counts_catches_a_header_or_a_scorecard_that_disagrees(tmp_path, monkeypatch):
    results, chapter, card = _build(tmp_path, monkeypatch)
    head = json.loads(chapter.split("data-counts='")[1].split("'")[0])
    assert head == {
        "replicated": 2,
        "partly": 1,
        "inconclusive": 1,
        "not replicated": 1,
        "not comparable": 0,
        "total": 5,
    }
    bad = chapter.replace('"partly": 1', '"partly": 3')
    assert "header counts" in check_counts([("chapter", bad)], card, results)[0]
    _edit(results, "webber2008score-figure-2.json", "fp", status="replicated")  # the page was built before
    problems = check_counts([("chapter", chapter)], card, results)
    assert any("header counts" in p for p in problems) and any("scorecard page" in p for p in problems)
    assert "no chapter header with counts for webber2008score" in check_counts([], card, results)[-1]
    assert any("no table.irrepro-summary" in p for p in check_counts([], "<html></html>", results))


def test_check_prose_reads_each_block_on_its_own(tmp_path, monkeypatch):
    _, chapter, _ = _build(tmp_path, monkeypatch)
    page = chapter.replace(
        "<p>We rerun", '<h2>Why it is not replicated<a class="headerlink">#</a></h2><p>We rerun'
    )
    assert check_prose(page, "c") == ["c: states a status: 'Why it is not replicated'"]
    # a badge or a label placed in a sentence is generated from its row
    badge = status_badge(book.NOT_REPLICATED)
    assert check_prose(chapter.replace("<p>We rerun", f"<p>Our row: {badge}. We rerun"), "c") == []


def test_the_rule_and_its_second_implementation_agree_on_random_rows():
    """book.judge and the rule page's words implemented again (_book_checks._independent_status)
    give the same status to 3,000 random rows of every form, kind and error."""
    from _book_checks import _independent_status

    rng = np.random.default_rng(42)
    forms = ["{v}", "about {v}", "> {v}", "well above {v}", "≤ {v}", "as few as {v}", "under {v}", "at least {v}",
             "just over {v}", "almost {v}", "{v} / {w}", "1/3", "half"]  # fmt: skip
    disagree = []
    for _ in range(3000):
        kind = rng.choice(["rate", "score", "correlation", "count"])
        v = round(float(rng.uniform(0.01, 0.99)), int(rng.integers(1, 4)))
        w = round(float(rng.uniform(0.01, 0.99)), 2)
        paper = str(rng.choice(forms)).format(v=v, w=w)
        ours = (
            f"{rng.uniform(0, 1):.4f} / {rng.uniform(0, 1):.4f}"
            if " / " in paper
            else float(rng.uniform(0, 1))
        )
        row = {"paper": paper, "ours": ours, "kind": kind, "se_sampling": float(rng.exponential(0.02)),
               "se_mc": float(rng.exponential(0.01))}  # fmt: skip
        if kind == "rate" and rng.random() < 0.3:
            row["nominal"] = float(rng.choice([0.05, 0.01, 0.835]))
        want = book.judge(paper, ours, **{k: row[k] for k in row if k not in ("paper", "ours")}).status
        if _independent_status(row) != want:
            disagree.append((row, want))
    assert not disagree, disagree[:3]


def test_check_verdicts_catches_a_sentence_naming_other_data_or_another_reason(tmp_path, monkeypatch):
    results, chapter, _ = _build(tmp_path, monkeypatch)
    records = load_results(results)
    scope = chapter.replace('data-data="TREC-COVID"', 'data-data="TREC-COVID rounds 5 and 1"', 1)
    assert scope != chapter
    assert (
        "names the data 'TREC-COVID rounds 5 and 1', the table 'TREC-COVID'"
        in check_verdicts(scope, records)[0]
    )
    _edit(
        results, "webber2008score-verdict.json", "problematic", reason="a reason the sentence does not give"
    )
    assert "does not give the row's reason" in check_verdicts(chapter, load_results(results))[0]
