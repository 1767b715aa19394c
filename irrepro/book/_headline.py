"""The book's headlines: what a chapter's opening box says first (the status of a row of its Verdict
table), recorded and gathered into one table."""

from __future__ import annotations

import html
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import parallel
from .._rule import _VERDICT_OF, NOT_COMPARABLE
from .._text import json_text
from ._config import config, results_dir
from ._display import _HTML, STATUS_WORDS, status_badge
from ._papers import PAPERS, STUDIES, paper_numbers
from ._tables import _SESSION

#: A study's title ``Chapter (beside A, B & C 2021)``: the phone's line names the study alone.
_BESIDE = re.compile(r"\(beside (?P<study>.+)\)$")

#: When the chapter's kernel imported :mod:`irrepro.book`: its time to run ends at its header cell.
_STARTED = time.perf_counter()

#: The item of a chapter's comparison that judges the paper's claims (``book.compare(..., "Verdict")``).
VERDICT_ITEM = "Verdict"

#: ReScience C's labels of a replication, from ``irrepro.book.label``.
LABELS = {"[Re]": "reproduced", "[~Re]": "reproduced in part", "[¬Re]": "not reproduced"}

#: Where :func:`headline` records a chapter's headline, under the results directory.
_DIR = "headlines"


@dataclass(frozen=True)
class Headline:
    """A chapter's headline (:func:`headline`)."""

    paper: str
    title: str
    chapter: str
    question: str
    claim: str
    summary: str
    status: str
    label: str
    data_paper: str
    data_ours: str
    judged_on: str
    seconds: float
    scale: str
    workers: int
    cores: int
    ours: str = ""

    def finding(self) -> str:
        """The finding as one line of HTML: the claim's status badge and words, and the data judged on."""
        e = html.escape
        return (
            f'<span class="irrepro-headline" data-status="{self.status}" data-item="{VERDICT_ITEM}" '
            f'data-quantity="{e(self.claim, quote=True)}" data-paper="{self.paper}" '
            f'data-data="{e(self.judged_on, quote=True)}">{status_badge(self.status, word=False)} '
            f'<span class="irrepro-verdict-word">{STATUS_WORDS[self.status]}</span> on '
            f'<span class="irrepro-data">{e(self.judged_on)}</span>'
            + (f": {e(self.ours)}" if self.ours else "")
            + "</span>"
        )

    def opening_html(self) -> str:
        """The opening facts of the chapter's box: question, data, headline finding, time to rerun."""
        e = html.escape
        return (
            f'<dl class="irrepro-opening"><dt>Question</dt><dd>{e(self.question)}</dd>'
            f"<dt>Data</dt><dd>the paper's: {e(self.data_paper)}; ours: {e(self.data_ours)}</dd>"
            f"<dt>Headline</dt><dd>{e(self.claim)}: {self.finding()}.</dd>"
            f"<dt>Time to rerun</dt><dd>{e(self.took())}, the last time it ran for this book; "
            '<a href="#run-this-chapter-on-your-machine">run this chapter on your machine</a>.</dd></dl>'
        )

    def took(self) -> str:
        """How long the chapter took to run, in words."""
        s = self.seconds
        when = f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"
        return (
            f"{when} at {self.scale} scale ({self.workers} worker{'s' if self.workers != 1 else ''}, "
            f"{self.cores} core{'s' if self.cores != 1 else ''})"
        )


def _beside(paper: str) -> str:
    """How a chapter beyond the papers sets its numbers beside its study's."""
    spec = paper_numbers(paper).headline or {}
    if "beside" not in spec:
        raise KeyError(
            f"book/papers/{paper}.yml: a study's headline needs 'beside' (how its chapter sets its numbers beside the study's)"
        )
    return str(spec["beside"])


def headline(paper: str, label: str = "", *, data: str = "") -> Headline | None:
    """The headline of ``paper``'s chapter, recorded as ``headlines/<paper>.json`` (None without one)."""
    spec = paper_numbers(paper).headline
    if not spec:
        return None
    verdict = _SESSION.get(paper, {}).get(VERDICT_ITEM)
    if verdict is None:
        raise KeyError(
            f"{paper}: the headline's claim needs the chapter's {VERDICT_ITEM!r} table, compared first"
        )
    if not verdict.data:
        raise KeyError(
            f"{paper}: the {VERDICT_ITEM!r} table names no data (compare(..., data=...)): the headline says "
            "what the central claim was judged on"
        )
    row = verdict.row(spec["claim"])
    i = list(verdict.frame["quantity"]).index(spec["claim"])
    rests = [r.status for r in verdict.meta[i].get("restates", ())] if verdict.meta else []
    by_chapter = verdict.frame.iloc[i].get("status_by") == "chapter"
    if row.status != NOT_COMPARABLE and by_chapter and rests and all(st == NOT_COMPARABLE for st in rests):
        raise ValueError(
            f"{paper}: the headline's claim {spec['claim']!r} reads {row.status!r} by the chapter's verdict, "
            "but every row it rests on is not comparable: a headline is never more than what it rests on"
        )
    cfg, ours = config(), verdict.frame.iloc[i]["ours"]
    h = Headline(
        paper=paper,
        title=dict((*PAPERS, *STUDIES)).get(paper, paper),
        chapter=spec["chapter"],
        question=spec["question"],
        claim=spec["claim"],
        summary=spec.get("summary", spec["claim"]),
        status=row.status,
        label=label,
        data_paper=spec["data"],
        data_ours=data or verdict.data,
        judged_on=verdict.scopes[i],
        seconds=round(time.perf_counter() - _STARTED, 1),
        scale=cfg.scale,
        workers=parallel.n_jobs(cfg.jobs),
        cores=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
        ours=ours if isinstance(ours, str) and ours and ours not in _VERDICT_OF.values() else "",
    )
    out = cfg.results
    if out is not None:
        (out / _DIR).mkdir(parents=True, exist_ok=True)
        (out / _DIR / f"{paper}.json").write_text(json_text(asdict(h)), encoding="utf-8")
    return h


def _short_title(title: str) -> str:
    """A chapter's name on a phone's line: a study's authors and year (three or more: "A et al.")."""
    m = _BESIDE.search(title)
    if m is None:
        return title
    return re.sub(r"^([^,&]+), [^&]+ & .+ (\d{4})$", r"\1 et al. \2", m["study"])


def headline_table(directory: str | Path | None = None, *, caption: str = "") -> _HTML:
    """The book's headline table: per chapter its central claim, finding, label and time to rerun.

    Parameters
    ----------
    directory : str, pathlib.Path or None
        The results directory (None: ``IRREPRO_RESULTS``).
    caption : str

    Returns
    -------
    object
        HTML that Jupyter displays.
    """
    d = Path(directory) if directory is not None else results_dir()
    files = sorted((d / _DIR).glob("*.json")) if d is not None else []
    got = {h.paper: h for h in (Headline(**json.loads(f.read_text(encoding="utf-8"))) for f in files)}
    cols = ("chapter", "the paper's central claim", "our finding", "label", "time to rerun")
    rows, lines = [], []
    for key, title in (*PAPERS, *STUDIES):
        h = got.get(key)
        if h is None:
            cells = [html.escape(title), "-", "not run in this build", "-", "-"]
            lines.append(f"<li>{html.escape(_short_title(title))}: not run in this build</li>")
        else:
            lines.append(  # the phone's one line: chapter, the finding's badge and word, the label
                f'<li title="{html.escape(f"{h.summary}; on {h.judged_on}", quote=True)}">'
                f'<a href="../{h.chapter}.html">{html.escape(_short_title(h.title))}</a> '
                f"{status_badge(h.status, word=False)} {STATUS_WORDS[h.status]}"
                + (f' <span class="irrepro-label" data-label="{html.escape(h.label)}">{html.escape(h.label)}</span>'
                   if h.label else "") + "</li>"
            )  # fmt: skip
            lab = html.escape(h.label) if h.label else "none: beyond the papers"
            cells = [
                f'<a href="../{h.chapter}.html">{html.escape(h.title)}</a>',
                f'<span title="{html.escape(h.claim, quote=True)}">{html.escape(h.summary)}</span>',
                h.finding(),
                f'<span class="irrepro-label" data-label="{html.escape(h.label)}">{lab}</span>'
                + (f" {LABELS[h.label]}" if h.label else ""),
                html.escape(h.took()),
            ]
        rows.append("<tr>" + "".join(f'<td data-label="{c}">{v}</td>' for c, v in zip(cols, cells)) + "</tr>")
    head = "".join(f"<th>{c}</th>" for c in cols)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    # at phone width (book/_static/irrepro.css) the list of one line per chapter replaces the table
    compact = f'<ul class="irrepro-headlines-compact">{"".join(lines)}</ul>'
    return _HTML(
        f'<div class="irrepro-plain irrepro-headlines">{compact}<table class="dataframe irrepro-table">{cap}'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
