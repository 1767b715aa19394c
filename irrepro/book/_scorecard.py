"""The scorecard: every compared row of every chapter (:func:`scorecard`), the counts per status
(:func:`summary`), ReScience C's verdict label (:func:`label`) and the chapter's opening box with
the paper's reference (:func:`header`)."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from ._papers import PAPERS, STUDIES, book_dir
from ._rule import NOT_REPLICATED, PARTLY, REPLICATED, STATUSES, _judge_row
from ._tables import _SESSION, _HTML

__all__ = ["scorecard", "summary", "LABELS", "label", "session_card", "header"]

_CARD_COLUMNS = ["table / figure / claim", "quantity", "paper", "ours", "status", "reason", "note", "data",
                 "paper_ref", "same_as"]


def _card(records: Sequence[Mapping]) -> pd.DataFrame:
    """The scorecard rows of one paper from its comparison records (``{item, data, rows}``)."""
    rows = []
    for rec in records:
        is_verdict = rec["item"].lower().startswith("verdict")
        for r in rec["rows"]:
            status, reason = (r["status"], r.get("reason", "")) if r.get("status") in STATUSES \
                else _judge_row(r, is_verdict)
            rows.append({"table / figure / claim": rec["item"], "quantity": r.get("quantity"),
                         "paper": r.get("paper"), "ours": r.get("ours"), "status": status,
                         "reason": reason, "note": r.get("note") or "", "data": rec.get("data", ""),
                         "paper_ref": r.get("paper_ref") or "", "same_as": r.get("same_as") or ""})
    return pd.DataFrame(rows, columns=_CARD_COLUMNS, dtype=object)


def scorecard(directory: str | Path | None = None) -> dict[str, pd.DataFrame]:
    """The replication scorecard: per paper (:data:`PAPERS`, then the studies of the chapters beyond
    the papers, :data:`STUDIES`), every row of every :func:`compare` table recorded in
    ``directory`` (default ``$IRREPRO_RESULTS``), in the order the chapter recorded them, with the
    paper's value, ours, the status and its reason (as :func:`compare` computed them; a row recorded
    without one is judged again by the same rule), the note, the data used, the key of the paper's
    value in ``book/papers/<paper>.yml`` (``paper_ref``) and the row it restates (``same_as``)."""
    d = Path(directory or os.environ.get("IRREPRO_RESULTS", ""))
    # in the order the chapters wrote them (each chapter runs top to bottom)
    files = sorted(d.glob("*.json"), key=lambda f: (f.stat().st_mtime_ns, f.name)) if d.is_dir() else []
    records = [json.loads(f.read_text()) for f in files]
    return {title: _card([rec for rec in records if rec["paper"] == key]) for key, title in (*PAPERS, *STUDIES)}


def summary(cards: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per paper, how many rows of :func:`scorecard` have each status (columns :data:`STATUSES`
    and ``total``). A row that restates another (``same_as``) is not counted again."""
    def counted(card: pd.DataFrame) -> pd.Series:
        keep = card["same_as"].fillna("") == "" if "same_as" in card else pd.Series(True, index=card.index)
        return card.loc[keep, "status"]

    counts = pd.DataFrame(
        [counted(card).value_counts().reindex(STATUSES, fill_value=0).rename(title) for title, card in cards.items()],
        columns=list(STATUSES),
    ).fillna(0).astype(int)
    counts["total"] = counts.sum(axis=1)
    return counts


#: ReScience C's labels of a replication, from :func:`label`.
LABELS = {"[Re]": "reproduced", "[~Re]": "reproduced in part", "[¬Re]": "not reproduced"}


def label(counts: Mapping[str, int]) -> str:
    """The verdict label of a replication in ReScience C's style, from its scorecard counts.

    Over the rows that compare something (replicated, partly, not replicated; rows not comparable
    are left out), the score is (replicated + partly / 2) / rows: **[Re]** (reproduced) when it is
    at least 2/3, **[¬Re]** (not reproduced) below 1/3, **[~Re]** (reproduced in part) between.
    ``""`` when no row compares anything."""
    n = sum(int(counts[s]) for s in (REPLICATED, PARTLY, NOT_REPLICATED))
    if n == 0:
        return ""
    score = (int(counts[REPLICATED]) + 0.5 * int(counts[PARTLY])) / n
    return "[Re]" if score >= 2 / 3 else ("[¬Re]" if score < 1 / 3 else "[~Re]")


def session_card(paper: str) -> pd.DataFrame:
    """The scorecard rows of ``paper`` from the comparisons made in this session (the chapter's)."""
    comps = _SESSION.get(paper, {}).values()
    return _card([{"item": c.item, "data": c.data, "rows": c.to_records()} for c in comps])


def _reference_html(paper: str) -> str:
    """The full reference of ``paper`` from ``book/references.bib``, formatted by pybtex as the
    book's bibliography formats it (unsrt), with its DOI as a link."""
    try:
        from pybtex.backends.html import Backend
        from pybtex.database import parse_file
        from pybtex.plugin import find_plugin
    except ImportError:  # a bare install (Colab): the key only
        return html.escape(paper)
    bib = parse_file(str(book_dir() / "references.bib"))
    if paper not in bib.entries:
        raise KeyError(f"{paper!r} is not in references.bib")
    style = find_plugin("pybtex.style.formatting", "unsrt")()
    entry = next(iter(style.format_entries([bib.entries[paper]])))
    # pybtex leaves a note's \url{...} as a command: make it the link the bibliography shows
    return re.sub(r'\\url\s*<span class="bibtex-protected">([^<]*)</span>', r'<a href="\1">\1</a>',
                  entry.text.render(Backend()))


def header(paper: str, counts: Mapping[str, int] | None = None, *, tested: Sequence[str] = ()) -> "_HTML":
    """The opening box of a chapter: the replicated paper's full reference with its DOI and the
    verdict label (:func:`label`) with the counts it rests on. ``counts`` defaults to the
    :func:`summary` of the comparisons this session made for ``paper`` - the chapter's, which are
    the scorecard's rows for it. ``tested``: citation keys of further papers whose methods the
    chapter measures, listed with their references.

    A chapter beyond the papers (``paper`` one of :data:`STUDIES`) opens with the study whose
    published numbers it sets beside its own, and gets **no label**: ReScience C's labels say
    whether a paper was reproduced, and such a chapter reproduces none - it changes the study's
    design where it sees fit, so a row that differs from the study's is a finding, not a failed
    replication. Its counts are shown as they are."""
    if counts is None:
        counts = summary({paper: session_card(paper)}).iloc[0]
    words = ", ".join(f"{int(counts[s])} {s}" for s in STATUSES)
    listed = "".join(f"<li>{_reference_html(k)}</li>" for k in tested)
    if paper in dict(STUDIES):
        return _HTML(
            f'<div class="admonition note irrepro-header" data-paper="{paper}" data-label="">'
            '<p class="admonition-title">Beyond the papers</p>'
            + (f"<p>The methods of:</p><ul class=\"irrepro-tested\">{listed}</ul>" if listed else "")
            + "<p>measured where the truth is known, beside the published results of:</p>"
            f'<p class="irrepro-reference">{_reference_html(paper)}</p>'
            f"<p>No verdict label: this chapter replicates no paper. Its rows beside the study's numbers: "
            f"{words} ({int(counts['total'])} rows counted).</p></div>"
        )
    lab = label(counts)
    verdict_html = (f'<span class="irrepro-label" data-label="{lab}" style="font-weight:bold">{html.escape(lab)}</span> '
                    f"{LABELS[lab]}" if lab else "no comparable result yet")
    return _HTML(
        f'<div class="admonition note irrepro-header" data-paper="{paper}">'
        '<p class="admonition-title">A replication of</p>'
        f'<p class="irrepro-reference">{_reference_html(paper)}</p>'
        + (f"<p>Methods also measured, from:</p><ul class=\"irrepro-tested\">{listed}</ul>" if listed else "")
        + f"<p>Verdict: {verdict_html} ({words}; {int(counts['total'])} rows counted).</p></div>"
    )
