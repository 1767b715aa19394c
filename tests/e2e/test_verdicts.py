"""The built book against the rows it recorded (issue 23): every row of ``_build/results`` carries
the rule's fields and the status the rule gives it; every verdict sentence of ``_build/html`` says
its row's status; no prose outside the generated parts states a status; the counts of each
chapter's header and of the scorecard page are the scorecard's.

Run after ``make book`` with ``make e2e`` (``.ci/run`` does); it reads files, no browser. The checks
themselves are tests/_book_checks.py, tested on a fake build by tests/test_book_checks.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from _book_checks import check_counts, check_headlines, check_prose, check_rows, check_verdicts, load_results

pytestmark = pytest.mark.e2e

BUILD = Path(__file__).resolve().parents[2] / "_build"
RESULTS, SITE = BUILD / "results", BUILD / "html"
#: the book's own pages whose prose must not state a status either (the rule page describes the
#: statuses in generated output only)
BOOK_PAGES = ("scorecard", "replications", "intro", "rule")


def _need(path: Path) -> Path:
    if not path.is_dir() or not any(path.iterdir()):
        why = f"no {path.relative_to(BUILD.parent)} directory with a build in it: run `make book` first"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(why)
        pytest.skip(why)
    return path


@pytest.fixture(scope="module")
def records():
    return load_results(_need(RESULTS))


@pytest.fixture(scope="module")
def chapters():
    # the chapters and their sub-pages (their full tables: notebooks/<chapter>/*.html)
    d = _need(SITE) / "notebooks"
    return {str(f.relative_to(d)): f.read_text(encoding="utf-8") for f in sorted(d.rglob("*.html"))}


def test_every_recorded_row_carries_the_rules_fields_and_its_status(records):
    problems = check_rows(records)
    assert not problems, "\n".join(problems)


def test_every_verdict_sentence_says_its_rows_status(records, chapters):
    assert chapters
    problems = [p for name, html in chapters.items() for p in check_verdicts(html, records, name)]
    assert not problems, "\n".join(problems)


def test_no_prose_states_a_status_outside_the_generated_parts(chapters):
    pages = dict(chapters)
    for name in BOOK_PAGES:
        f = SITE / "book" / f"{name}.html"
        assert f.is_file(), f
        pages[f"book/{name}.html"] = f.read_text(encoding="utf-8")
    problems = [p for name, html in pages.items() for p in check_prose(html, name)]
    assert not problems, "\n".join(problems)


def test_the_headers_and_the_scorecard_page_show_the_scorecards_counts(chapters):
    card = (SITE / "book" / "scorecard.html").read_text(encoding="utf-8")
    problems = check_counts(chapters.items(), card, _need(RESULTS))
    assert not problems, "\n".join(problems)


def test_every_chapter_links_to_the_rule_page(chapters):
    assert (SITE / "book" / "rule.html").is_file()
    for name, html in chapters.items():
        if "/" not in name:  # a chapter (its sub-pages hold its tables)
            assert 'href="../book/rule.html"' in html, name


@pytest.mark.parametrize("page", ["intro", "replications"])
def test_the_headline_tables_state_each_central_claims_row_and_label(page):
    """The introduction's and the replications page's headline tables (issue 24): a row per chapter,
    its finding the status of the paper's central claim as the chapter's Verdict table records it,
    its label the scorecard's."""
    html = (_need(SITE) / "book" / f"{page}.html").read_text(encoding="utf-8")
    problems = check_headlines(html, _need(RESULTS), f"book/{page}.html")
    assert not problems, "\n".join(problems)
