"""Every number the book records is unchanged by a redesign (issue 27): the comparison of two
builds' ``_build/results`` (tests/_results_diff.py), and the comparison itself where the two builds
are named.

Build the book at quick scale before and after (``IRREPRO_SCALE=quick make book`` in two checkouts)
and set ``IRREPRO_RESULTS_BEFORE`` / ``IRREPRO_RESULTS_AFTER`` to their ``_build/results``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from _results_diff import compare, main

#: Labels issue 27 renamed inside the recorded rows (one vocabulary for the tests): old -> new.
RENAMES_27: dict[str, str] = {
    # the known-truth chapter's rows "AP, 50 topics, t": known_truth.TESTS took significance's names
    # (at the end of the row's label: "50 topics, t p in (0.01, 0.05]" elsewhere is the paper's)
    "topics, t$": "topics, paired-t",
    "topics, unpaired bootstrap$": "topics, unpaired-bootstrap",
    # the Sanderson & Zobel chapter's rows "t: error at 25 topics, ..." and "t: share significant,
    # ...": topic_split's filters and full_set_tests took significance's "paired-t"
    "t: error at 25 topics": "paired-t: error at 25 topics",
    "t: share significant": "paired-t: share significant",
    # ... and its verdict's note "error at 25 topics, relative 10-30%: t 7.6%, sign 7.9%, ..."
    "relative 10-30%: t": "relative 10-30%: paired-t",
}


def _row(quantity: str, ours: float) -> dict:
    return {"quantity": quantity, "paper": 0.05, "ours": ours, "status": "replicated"}


def _write(d: Path, rows: list[dict], **extra) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "paper-table-1.json").write_text(json.dumps({"paper": "x", "rows": rows, **extra}))
    return d


def test_the_same_results_with_other_timings_compare_equal(tmp_path):
    a = _write(tmp_path / "a", [_row("AP, t", 0.0458333333)], seconds=12.5)
    b = _write(tmp_path / "b", [_row("AP, t", 0.0458333333)], seconds=3.1)
    assert compare(a, b) == []


def test_a_number_changed_in_its_last_digit_is_a_difference(tmp_path):
    a = _write(tmp_path / "a", [_row("AP, t", 0.0458333333)])
    b = _write(tmp_path / "b", [_row("AP, t", 0.0458333334)])
    (diff,) = compare(a, b)
    assert diff.startswith("paper-table-1.json: /rows[0]/ours") and "0.0458333334" in diff


def test_a_renamed_label_matches_only_through_the_rename(tmp_path):
    a = _write(tmp_path / "a", [_row("AP, 25 topics, t", 0.04), _row("AP, t-test", 0.03)])
    b = _write(tmp_path / "b", [_row("AP, 25 topics, paired-t", 0.04), _row("AP, t-test", 0.03)])
    assert compare(a, b) != []
    assert compare(a, b, {"t": "paired-t"}) == []  # "t-test" is not the label "t"


def test_a_missing_file_and_a_changed_report_are_differences_its_volatile_parts_are_not(tmp_path):
    a = _write(tmp_path / "a", [_row("q", 1.0)])
    b = _write(tmp_path / "b", [_row("q", 1.0)])
    for d, tmp, when, secs, value in (
        (a, "tmpab12", "22:49", "5.3", "0.305"),
        (b, "tmpzz9_", "23:01", "0.4", "0.305"),
    ):
        (d / "report").mkdir()
        (d / "report" / "index.html").write_text(
            f"<p>qrels <code>/tmp/{tmp}/qrels.txt</code>. Written by irrepro on 2026-11-25 {when} UTC.</p>"
            f"<p>Computed in: scores {secs} s.</p><td>{value}</td>"
        )
    for d, when, digest in ((a, "2026-11-25T23:45:07Z", "f316"), (b, "2026-11-26T00:26:37Z", "4c11")):
        manifest = {"written": when, "files": [{"name": "index.html", "sha256": digest}]}
        (d / "report" / ".irrepro-report").write_text(json.dumps(manifest))
    assert compare(a, b) == []
    (b / "report" / "index.html").write_text(
        (b / "report" / "index.html").read_text().replace("0.305", "0.306")
    )
    (b / "extra.json").write_text("{}")
    (b / "report" / ".irrepro-report").write_text(
        json.dumps({"written": "x", "files": [{"name": "other.csv"}]})
    )
    assert compare(a, b) == [
        "extra.json: only in new",
        "report/.irrepro-report: /files[0]/name: 'index.html' vs 'other.csv'",
        "report/index.html: differs",
    ]


def test_the_command_line_exits_1_on_a_difference(tmp_path, capsys):
    a = _write(tmp_path / "a", [_row("q", 1.0)])
    b = _write(tmp_path / "b", [_row("q", 2.0)])
    assert main([str(a), str(a)]) == 0
    assert main([str(a), str(b)]) == 1
    assert "1 differences" in capsys.readouterr().out


@pytest.mark.skipif(
    not (os.environ.get("IRREPRO_RESULTS_BEFORE") and os.environ.get("IRREPRO_RESULTS_AFTER")),
    reason="set IRREPRO_RESULTS_BEFORE and IRREPRO_RESULTS_AFTER to two builds' _build/results",
)
def test_the_built_results_are_unchanged():
    before, after = Path(os.environ["IRREPRO_RESULTS_BEFORE"]), Path(os.environ["IRREPRO_RESULTS_AFTER"])
    assert any(before.glob("*.json")), f"{before}: no results recorded"
    assert compare(before, after, RENAMES_27) == []


def test_the_renames_of_issue_27_catch_only_their_labels():
    """Each key of RENAMES_27 renames the chapter's label it is for, and no other text the
    recorded results hold (the other tests' rows, the paper's keys, prose with "t-test")."""
    from _results_diff import _rename

    renamed = {
        "AP, 50 topics, t": "AP, 50 topics, paired-t",
        "t: error at 25 topics, 10-15% -> 25-30% bin": "paired-t: error at 25 topics, 10-15% -> 25-30% bin",
        "t: share significant, relative difference 0-10%": "paired-t: share significant, relative difference 0-10%",
        "t: share significant, 40-50%, runs with MAP ≥ 0.1": "paired-t: share significant, 40-50%, runs with MAP ≥ 0.1",
        "error at 25 topics, relative 10-30%: t 7.6%, sign 7.9%": "error at 25 topics, relative 10-30%: paired-t 7.6%, sign 7.9%",
    }
    for old, new in renamed.items():
        assert _rename(old, RENAMES_27) == new
    for text in (
        "sign: error at 25 topics, 10-15% -> 25-30% bin",
        "wilcoxon: share significant, 0-10%",
        "paired-t: share significant, 0-10%",
        "full.t.0-10%",
        "tests.t",
        "Section 3: t vs sign vs Wilcoxon",
        "P@10 with t p in (0.01, 0.05]",
        "t-test more reliable than sign and Wilcoxon",
        "at: error at 25 topics",
        "AP, 50 topics, paired-t",
        "relative MAP difference for below 5% error at 50 topics, t p in (0.01, 0.05] (replicated)",
    ):
        assert _rename(text, RENAMES_27) == text
