"""The scorecard: every compared row of every chapter, the counts per status, ReScience C's verdict
label and the chapter's opening box with its headline (gathered into one table); and what the verdicts
rest on (data, errors' units, margins)."""

from __future__ import annotations

import html
import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from .. import parallel
from .._rule import (
    _VERDICT_OF,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    NOT_REPLICATED,
    PARTLY,
    REPLICATED,
    STATUSES,
    combine,
    judge_row,
    read_book_file,
    scaled,
)
from .._text import json_text
from ._config import config, results_dir
from ._display import _HTML, STATUS_WORDS, anchor, docname, href, status_badge, status_table, with_error
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


_CARD_COLUMNS = ["table / figure / claim", "page", "link", "quantity", "paper", "ours", "status", "reason",
                 "note", "data", "paper_ref", "same_as", "condition", "emulates", "supports", "kind",
                 "ours_se", "se_reason", "margin"]  # fmt: skip


def _card(records: Sequence[Mapping]) -> pd.DataFrame:
    """The scorecard rows of one paper from its comparison records (``{item, data, rows}``)."""
    rows = []
    for rec in records:
        for r in rec["rows"]:
            status, reason = r["status"], r.get("reason", "")
            if status not in STATUSES:
                raise ValueError(
                    f"{rec['item']}, row {r.get('quantity')!r}: status {status!r} is not one of {STATUSES}"
                )
            rows.append(
                {k: r.get(k) for k in ("quantity", "paper", "ours", "kind", "ours_se", "se_reason", "margin")}
                | {k: r.get(k) or "" for k in ("note", "paper_ref", "same_as", "emulates", "supports")}
                | {"table / figure / claim": rec["item"], "status": status, "reason": reason,
                   "data": rec.get("data", ""), "condition": rec.get("condition") or "",
                   "page": rec.get("page") or "", "link": _link(rec)}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=_CARD_COLUMNS, dtype=object)


def _link(rec: Mapping) -> str:
    """The address of a recorded table from the scorecard's page ("" for a table on its chapter's page)."""
    return href(rec["page"], anchor(rec["paper"], rec["item"]), "book/scorecard") if rec.get("page") else ""


def _records(directory: str | Path | None, *, in_order_written: bool = False) -> list[dict]:
    """The comparison records under ``directory`` (None: the configuration's), by name or in the order written."""
    d = Path(directory or results_dir() or "")
    if not d.is_dir():
        return []
    key = (lambda f: (f.stat().st_mtime_ns, f.name)) if in_order_written else None
    return [json.loads(f.read_text(encoding="utf-8")) for f in sorted(d.glob("*.json"), key=key)]


def scorecard(directory: str | Path | None = None) -> dict[str, pd.DataFrame]:
    """The replication scorecard: every recorded row of every :func:`compare` table, per paper.

    Parameters
    ----------
    directory : str, pathlib.Path or None
        Where :func:`compare` recorded its tables (None: the book configuration's).

    Returns
    -------
    dict
        ``{paper title: pandas.DataFrame}`` in the book's order, the rows in the order recorded.
    """
    return _cards(_records(directory, in_order_written=True))  # each chapter runs top to bottom


def _cards(records: Sequence[Mapping]) -> dict[str, pd.DataFrame]:
    """``{paper title: its scorecard rows}`` of ``records``, in the book's order."""
    return {
        title: _card([rec for rec in records if rec["paper"] == key]) for key, title in (*PAPERS, *STUDIES)
    }


def _as_is(card: pd.DataFrame) -> pd.DataFrame:
    """The rows counted on the data as they are."""
    blank = card[["paper_ref", "same_as", "emulates"]].fillna("") == ""
    return card.loc[~blank["paper_ref"] & blank["same_as"] & blank["emulates"]]


def conditions(card: pd.DataFrame) -> list[str]:
    """The emulated conditions under which rows of a paper's scorecard were rerun, in order."""
    return list(dict.fromkeys(c for c in card["condition"].fillna("") if c))


#: How a row's status moves from the data as they are to the emulated conditions (:func:`emulated`).
MOVES = ("toward the paper", "unchanged", "away from the paper", "now comparable", "no longer comparable")
_RANK = {REPLICATED: 2, PARTLY: 1, INCONCLUSIVE: 1, NOT_REPLICATED: 0}


def _move(before: str, after: str) -> str:
    """How a row's status moved from ``before`` to ``after`` (one of :data:`MOVES`)."""
    if NOT_COMPARABLE in (before, after):
        return "unchanged" if before == after else MOVES[3 if before == NOT_COMPARABLE else 4]
    d = _RANK[after] - _RANK[before]
    return "toward the paper" if d > 0 else ("away from the paper" if d < 0 else "unchanged")


def emulated(card: pd.DataFrame, condition: str) -> pd.DataFrame:
    """The rows of a paper's scorecard that ``condition`` reruns: as is, rerun, and how the status moved.

    Parameters
    ----------
    card : pandas.DataFrame
        A paper's scorecard.
    condition : str

    Returns
    -------
    pandas.DataFrame
    """
    base = _as_is(card)
    runs = card[card["condition"].fillna("") == condition]
    by_ref = {ref: r for ref, (_, r) in zip(runs["emulates"], runs.iterrows())}
    rows = []
    for _, r in base.iterrows():
        e = by_ref.get(f"{r['table / figure / claim']}: {r['quantity']}")
        if e is None:
            continue
        rows.append(
            {k: r[k] for k in ("table / figure / claim", "quantity", "paper")}
            | {"ours, as is": r["ours"], "as is": r["status"], "ours": e["ours"], "status": e["status"],
               "reason": e["reason"], "move": _move(r["status"], e["status"])}
        )  # fmt: skip
    columns = ["table / figure / claim", "quantity", "paper", "ours, as is", "as is", "ours", "status",
               "reason", "move"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns, dtype=object)


def summary(cards: Mapping[str, pd.DataFrame], condition: str | None = None) -> pd.DataFrame:
    """Per paper, the counted rows per status and ``total`` (under ``condition``: the reruns' statuses)."""

    def counted(card: pd.DataFrame) -> pd.Series:
        base = _as_is(card)
        if not condition:
            return base["status"]
        em = emulated(card, condition)
        new = dict(zip(zip(em["table / figure / claim"], em["quantity"]), em["status"]))
        keys = zip(base["table / figure / claim"], base["quantity"], base["status"])
        return pd.Series([new.get((t, q), x) for t, q, x in keys], index=base.index)

    counts = (
        pd.DataFrame(
            [
                counted(card).value_counts().reindex(STATUSES, fill_value=0).rename(title)
                for title, card in cards.items()
            ],
            columns=list(STATUSES),
        )
        .fillna(0)
        .astype(int)
    )
    counts["total"] = counts.sum(axis=1)
    return counts


def emulation_summary(cards: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per paper and emulated condition: the counts under it, the labels and the moves.

    Parameters
    ----------
    cards : mapping
        What :func:`scorecard` returned.

    Returns
    -------
    pandas.DataFrame
    """
    rows = []
    for title, card in cards.items():
        before = summary({title: card}).iloc[0]
        for cond in conditions(card):
            after = summary({title: card}, cond).iloc[0]
            moves = emulated(card, cond)["move"].value_counts()
            rows.append(
                {
                    "paper": title,
                    "condition": cond,
                    **{s: int(after[s]) for s in STATUSES},
                    "total": int(after["total"]),
                    "label": label(after),
                    "label as is": label(before),
                    "rows rerun": int(moves.sum()),
                    **{m: int(moves.get(m, 0)) for m in MOVES},
                }
            )
    return pd.DataFrame(
        rows, columns=["paper", "condition", *STATUSES, "total", "label", "label as is", "rows rerun", *MOVES]
    )


#: The link from every chapter's verdict to the page that states the rule (chapters are in ``notebooks/``).
_RULE_LINK = '<a class="irrepro-rule-link" href="../book/rule.html">how each row is judged</a>'


def _score(counts: Mapping[str, int] | pd.Series) -> float | None:
    """(replicated + partly / 2) over the rows that decide (replicated, partly, not replicated); None without any."""
    n = sum(int(counts[s]) for s in (REPLICATED, PARTLY, NOT_REPLICATED))
    return None if n == 0 else (int(counts[REPLICATED]) + 0.5 * int(counts[PARTLY])) / n


def label(counts: Mapping[str, int] | pd.Series) -> str:
    """ReScience C's verdict label from scorecard counts: [Re] for a score of 2/3 or more, [¬Re] below 1/3, [~Re] between ("" without rows that decide)."""
    score = _score(counts)
    if score is None:
        return ""
    return "[Re]" if score >= 2 / 3 else ("[¬Re]" if score < 1 / 3 else "[~Re]")


def session_card(paper: str) -> pd.DataFrame:
    """The scorecard rows of ``paper`` from the comparisons made in this session (the chapter's).

    Parameters
    ----------
    paper : str
        The paper's citation key.

    Returns
    -------
    pandas.DataFrame
        Its scorecard rows, as :func:`scorecard` lays them out.
    """
    comps = _SESSION.get(paper, {}).values()
    recs = [{"paper": c.paper, "item": c.item, "data": c.data, "rows": c.to_records(), "condition": c.condition,
             "page": docname(c.paper, c.page)} for c in comps]  # fmt: skip
    return _card(recs)


def _bib_entry(paper: str):
    """``paper``'s entry of ``book/references.bib`` (read once per version of it); None without pybtex."""
    try:
        from pybtex.database import parse_file
    except ImportError:  # a bare install (Colab)
        return None
    entries = read_book_file("references.bib", parse_file).entries
    if paper not in entries:
        raise KeyError(f"{paper!r} is not in references.bib")
    return entries[paper]


def _reference_html(paper: str) -> str:
    """The full reference of ``paper`` from ``book/references.bib`` as HTML (pybtex, unsrt), DOI linked."""
    entry = _bib_entry(paper)
    if entry is None:  # a bare install (Colab): the key only
        return html.escape(paper)
    from pybtex.backends.html import Backend
    from pybtex.plugin import find_plugin

    style = find_plugin("pybtex.style.formatting", "unsrt")()
    formatted = next(iter(style.format_entries([entry])))
    # pybtex leaves a note's \url{...} as a command: make it the link the bibliography shows
    return re.sub(
        r'\\url\s*<span class="bibtex-protected">([^<]*)</span>',
        r'<a href="\1">\1</a>',
        formatted.text.render(Backend()),
    )


def _short_reference_html(paper: str) -> str:
    """``paper`` as the book names it (``Sakai 2006``), its DOI linked (the full reference is the chapter's)."""
    name = html.escape(dict((*PAPERS, *STUDIES)).get(paper, paper))
    entry = _bib_entry(paper)
    doi = "" if entry is None else entry.fields.get("doi", "")
    return f'{name}, <a href="https://doi.org/{html.escape(doi)}">doi:{html.escape(doi)}</a>' if doi else name


def _label_html(lab: str, none: str) -> str:
    """A verdict label in bold with its words, or ``none`` without a label."""
    if not lab:
        return none
    return (
        f'<span class="irrepro-label" data-label="{lab}" style="font-weight:bold">{html.escape(lab)}</span> '
        f"{LABELS[lab]}"
    )


def header(
    paper: str | Sequence[str],
    counts: Mapping[str, int] | pd.Series | None = None,
    *,
    tested: Sequence[str] = (),
    data: str = "",
) -> _HTML:
    """The opening box of a chapter: the paper's reference, its headline and the verdict label.

    Parameters
    ----------
    paper : str or sequence of str
        The paper's citation key, or studies of ``STUDIES`` (no label; a box each).
    counts : mapping or None
        Status -> rows (None: the comparisons this session made for ``paper``).
    tested : sequence of str
        Citation keys of further papers whose methods the chapter measures.
    data : str
        Our data in a line (default: the chapter's Verdict table's ``data``).

    Returns
    -------
    object
        HTML that Jupyter displays.
    """
    if not isinstance(paper, str):
        if counts is not None:
            raise ValueError("header: counts are per study; give them for one study at a time")
        return _HTML("".join(header(p, tested=tested, data=data).text for p in paper))
    others, counts_from_session = "", counts is None
    if counts is None:
        card = session_card(paper)
        counts = summary({paper: card}).iloc[0]
        for _, e in emulation_summary({paper: card}).iterrows():
            others += (
                f"<p>Under {html.escape(e['condition'])} ({e['rows rerun']} rows rerun): "
                + _label_html(e["label"], "no comparable result")
                + f" ({', '.join(f'{int(e[s])} {s}' for s in STATUSES)}).</p>"
            )
    words = ", ".join(f"{int(counts[s])} {s}" for s in STATUSES)
    # the counts as data, for the check of the built book against the scorecard (tests/_book_checks.py)
    data_counts = html.escape(json.dumps({s: int(counts[s]) for s in (*STATUSES, "total")}), quote=False)
    study = paper in dict(STUDIES)
    lab = "" if study else label(counts)
    head = headline(paper, lab, data=data) if counts_from_session else None
    opening = head.opening_html() if head is not None else ""
    listed = "".join(f"<li>{_short_reference_html(k)}</li>" for k in tested)
    methods = "The methods of:" if study else "Methods also measured, from:"
    methods_html = f'<p>{methods}</p><ul class="irrepro-tested">{listed}</ul>' if listed else ""
    reference = f'<p class="irrepro-reference">{_reference_html(paper)}</p>'
    counted = f"{int(counts['total'])} rows counted; {_RULE_LINK}"
    if study:  # no label: the chapter replicates no paper
        title, attrs = "Beyond the papers", ' data-label=""'
        body = (
            f"{opening}{methods_html}<p>{html.escape(_beside(paper))}</p>{reference}<p>No verdict label: this "
            f"chapter replicates no paper. Its rows beside the study's numbers: {words} ({counted}).</p>"
        )
    else:
        title, attrs = "A replication of", ""
        verdict_html = _label_html(lab, "no comparable result yet")
        body = (
            f"{reference}{opening}{methods_html}<p>Verdict: {verdict_html} ({words}; {counted}).</p>{others}"
        )
    return _HTML(
        f'<div class="admonition note irrepro-header" data-paper="{paper}"{attrs} data-counts=\'{data_counts}\'>'
        f'<p class="admonition-title">{title}</p>{body}</div>'
    )


def scorecard_table(cards: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per paper the counts per status, the score, the data judged on and ReScience C's label.

    Parameters
    ----------
    cards : mapping
        What :func:`scorecard` returned.

    Returns
    -------
    pandas.DataFrame
        One row per paper: the statuses, ``total``, ``score``, ``judged on`` and ``label``.
    """
    counts = summary(cards)
    table = counts.copy()
    table["score"] = [_score(r) or 0.0 for _, r in counts.iterrows()]
    # the data a paper's claims were judged on: its Verdict table's ("" for none)
    table["judged on"] = [
        next(iter(c.loc[c["table / figure / claim"] == VERDICT_ITEM, "data"]), "") for c in cards.values()
    ]
    replications = {title for _, title in PAPERS}
    table["label"] = [
        label(r) if title in replications else "none (not a replication)" for title, r in counts.iterrows()
    ]
    return table


_HIDDEN_COLUMNS = ["data", "paper_ref", "condition", "emulates", "ours_se", "margin", "kind", "se_reason",
                   "page", "link"]  # fmt: skip


def scorecard_chapters(cards: Mapping[str, pd.DataFrame]) -> list[tuple[str, str, str]]:
    """Per chapter: its title, how many of its paper's numbers its tables compare, and its rows folded.

    Parameters
    ----------
    cards : mapping
        What :func:`scorecard` returned.

    Returns
    -------
    list of (str, str, str)
        ``(title, sentence, html)`` in the book's order (``""`` for a chapter without rows).
    """
    out = []
    for key, title in (*PAPERS, *STUDIES):
        card = cards[title]
        if card.empty:
            out.append((title, "_No results recorded._", ""))
            continue
        numbers = paper_numbers(key)
        quoted = sorted(set(numbers) - numbers.keys_of(card["paper_ref"]))
        sentence = (
            f"{len(numbers) - len(quoted)} of the {len(numbers)} numbers and claims of `book/papers/{key}.yml` are "
            "compared in the chapter's tables"
            + (
                f"; the chapter quotes the others in its notes and text ({', '.join(quoted)})."
                if 0 < len(quoted) <= 20
                else f"; the chapter draws the other {len(quoted)} in its figures and quotes them in its notes."
                if quoted
                else "."
            )
        )
        base = card[card["emulates"].fillna("") == ""]
        shown = base.rename(columns={"same_as": "restates"})
        # ours to the paper's precision, its Monte Carlo error in the cell, as in the chapters
        shown["ours"] = [
            with_error(o, se, p) for o, se, p in zip(shown["ours"], shown["ours_se"], shown["paper"])
        ]
        badges = []
        for cond in conditions(card):
            em = {(r["table / figure / claim"], r["quantity"]): r for _, r in emulated(card, cond).iterrows()}
            keys = list(zip(base["table / figure / claim"], base["quantity"]))
            shown[f"under {cond}"] = [em[k]["status"] if k in em else None for k in keys]
            shown[f"under {cond} reason"] = [
                f"ours: {em[k]['ours']}; {em[k]['reason']}" if k in em else None for k in keys
            ]
            badges.append(f"under {cond}")
        where = [numbers.where(r) if r else "" for r in base["paper_ref"]]
        rows = status_table(
            shown,
            titles={"paper": where, "table / figure / claim": list(base["data"])},
            hide=_HIDDEN_COLUMNS,
            links={"table / figure / claim": list(base["link"])},
            badges=badges,
        )
        details = (f"<details class='irrepro-rows'><summary>All {len(shown)} rows of the chapter, with their "
                   f"statuses and reasons</summary>{rows.text}</details>")  # fmt: skip
        out.append((title, sentence, details))
    return out


def sensitivity(
    directory: str | Path | None = None, factors: Sequence[float] = (0.5, 1.0, 2.0)
) -> pd.DataFrame:
    """Per chapter, the counts of its statuses with every margin of the rule scaled by each factor.

    Parameters
    ----------
    directory : str, pathlib.Path or None
        The results directory (None: ``IRREPRO_RESULTS``).
    factors : sequence of float
        The factors of the margins.

    Returns
    -------
    pandas.DataFrame
        Index (chapter, margins as "x0.5"), a column per status and ``total``.
    """
    records = _records(directory)
    out = []
    for f in factors:
        with scaled(f):
            rejudged = [rec | {"rows": [_rejudged(r) for r in rec["rows"]]} for rec in records]
        rows = {
            (rec["paper"], rec.get("condition") or "", rec["item"], r.get("quantity")): r
            for rec in rejudged
            for r in rec["rows"]
        }
        for (paper, cond, _, _), r in rows.items():  # a claim: the rows it rests on, rejudged
            if r.get("status_by") == "supports" and isinstance(r.get("supports"), str):
                refs = [x.split(": ", 1) for x in r["supports"].split("; ")]
                found = [rows.get((paper, cond, *ref), {}).get("status") for ref in refs if len(ref) == 2]
                if found and len(found) == len(refs) and all(isinstance(x, str) for x in found):
                    r["status"] = combine([str(x) for x in found])
        counts = summary(_cards(rejudged))
        out.append(counts.set_index(pd.MultiIndex.from_product([counts.index, [f"x{f:g}"]])))
    frame = pd.concat(out).rename_axis(["chapter", "margins"])
    order = {name: i for i, (_, name) in enumerate((*PAPERS, *STUDIES))}
    return frame.sort_index(key=lambda c: c.map(order) if c.name == "chapter" else c)


def _rejudged(row: dict) -> dict:
    """A copy of a recorded row, judged again by the rule if the rule judged it."""
    return row | {"status": judge_row(row).status} if row.get("status_by") == "rule" else dict(row)


def error_units(directory: str | Path | None = None) -> pd.DataFrame:
    """Per chapter, what its compared rows' errors rest on, and its inconclusive rows by why.

    Parameters
    ----------
    directory : str, pathlib.Path or None
        The results directory (None: ``IRREPRO_RESULTS``).

    Returns
    -------
    pandas.DataFrame
        Per chapter: ``clustered by``, ``no error``, ``inconclusive: monte-carlo`` and ``: sampling``.
    """
    records = _records(directory)
    out = []
    for key, name in (*PAPERS, *STUDIES):
        rows = [
            r for rec in records if rec["paper"] == key for r in rec["rows"] if r.get("status_by") == "rule"
        ]
        if not rows:
            continue
        units = pd.Series([r.get("unit") or "" for r in rows]).value_counts()
        zero = sum(1 for r in rows if not r.get("unit") and not r.get("ours_se"))
        why = pd.Series([r.get("why") for r in rows if r.get("why")], dtype=object)
        out.append(
            {
                "chapter": name,
                "clustered by": ", ".join(f"{u} ({n})" for u, n in units.items() if u) or "-",
                "no error": zero,
                "inconclusive: monte-carlo": int((why == "monte-carlo").sum()),
                "inconclusive: sampling": int((why == "sampling").sum()),
            }
        )
    return pd.DataFrame(out)
