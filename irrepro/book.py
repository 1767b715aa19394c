"""Helpers for the book's pages: data banners, the papers' numbers, paper-vs-ours tables, the scorecard.

Every chapter shows where its data came from with :func:`data_banner` (a warning box carrying the
CSS class ``simulated-data`` when any of it is the simulated stand-in, a plain note otherwise).
The numbers a chapter prints as the paper's are data, not code: one file per paper,
``book/papers/<bibkey>.yml``, read by :func:`paper_numbers` (each entry with the paper's table or
figure, row, column, value and section). A chapter prints each of them beside ours with
:func:`compare`, so that the chapters and any page that gathers their numbers cannot disagree.
Every compared row gets a status - replicated, partly, not replicated or not comparable - and a
reason from one rule, :func:`judge`: our number against the paper's within the paper's printed
precision plus, where the chapter knows it, 1.96 standard errors of the difference; claims in words
carry the chapter's computed :func:`verdict`, and a row restating another row (``same_as``) takes
its status and is counted once. Tables show the status as a badge (:func:`status_badge`) with the
reason on hover and as a footnote. :func:`scorecard` gathers the rows of all chapters,
:func:`summary` counts the statuses, :func:`label` turns the counts into ReScience C's verdict
label ([Re], [~Re], [¬Re]) and :func:`header` opens a chapter with the paper's reference and label.
"""

from __future__ import annotations

import functools
import html
import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ._text import slug  # the file names of the recorded results (also irrepro.book.slug)
from .data import COLLECTIONS, RunSet, ScoreMatrix, registry
from .stats import Z95  # tolerances built from a standard error are Z95 x se

__all__ = [
    "data_banner", "compare", "Comparison", "RowRef", "collections_table", "scorecard", "summary", "verdict",
    "judge", "label", "header", "paper_numbers", "PaperNumbers", "PaperValue", "status_badge", "status_table",
    "below_in_above", "ordering_status", "STATUSES", "PAPERS", "LABELS",
]


def _label(obj) -> tuple[str, bool]:
    if isinstance(obj, RunSet):
        name = COLLECTIONS[obj.name].title if obj.name in COLLECTIONS else obj.name
        return f"{name} ({len(obj.runs)} runs x {len(obj.topics)} topics)", obj.simulated
    if isinstance(obj, ScoreMatrix):
        name = COLLECTIONS[obj.collection].title if obj.collection in COLLECTIONS else obj.collection
        return f"{name}, {obj.measure} ({obj.shape[0]} runs x {obj.shape[1]} topics)", obj.simulated
    raise TypeError(f"data_banner takes RunSets and ScoreMatrices, not {type(obj).__name__}")


class _HTML:
    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:  # plain-text fallback
        return html.unescape(self.text.replace("<p>", "\n").replace("</p>", ""))


def data_banner(*objs) -> _HTML:
    """A box naming the data of a page. When any of ``objs`` is simulated it is a warning with the
    CSS class ``simulated-data`` (and no page carries that class when all data is real)."""
    labels = [_label(o) for o in objs]
    sim = [name for name, s in labels if s]
    real = [name for name, s in labels if not s]
    if sim:
        items = "".join(f"<li>{html.escape(n)}</li>" for n in sim)
        return _HTML(
            '<div class="admonition warning simulated-data">'
            '<p class="admonition-title">Simulated data</p>'
            "<p>The real files of these collections could not be found (no cache, no mirror, no "
            "network), so this page shows the <b>simulated stand-in</b> of the same shape. Its "
            "numbers illustrate the method only and must not be compared with the paper's.</p>"
            f"<ul>{items}</ul>"
            "<p>Run <code>irrepro data fetch</code> (or set <code>IRREPRO_MIRROR</code>) and "
            "rebuild to see the real results.</p></div>"
        )
    items = "".join(f"<li>{html.escape(n)}</li>" for n in real)
    return _HTML(
        '<div class="admonition note"><p class="admonition-title">Data</p>'
        f"<p>Real data, checksum-verified:</p><ul>{items}</ul></div>"
    )


# --- the papers' numbers: book/papers/<bibkey>.yml ----------------------------------------------

#: Environment variable naming the book's directory (the one holding ``papers/`` and
#: ``references.bib``) when it is neither beside the package nor above the working directory.
BOOK_ENV = "IRREPRO_BOOK"


def book_dir() -> Path:
    """The book's directory, holding ``papers/<bibkey>.yml`` and ``references.bib``: ``$IRREPRO_BOOK``,
    else the ``book/`` of the checkout the package runs from (``pip install -e .``), else a ``book/``
    in the working directory or one of its parents (a notebook run from ``notebooks/``, Binder)."""
    candidates = []
    if os.environ.get(BOOK_ENV):
        candidates.append(Path(os.environ[BOOK_ENV]).expanduser())
    candidates.append(Path(__file__).resolve().parents[1] / "book")
    cwd = Path.cwd().resolve()
    candidates += [d / "book" for d in (cwd, *cwd.parents)]
    for c in candidates:
        if (c / "papers").is_dir():
            return c
    raise FileNotFoundError(
        "the book's papers/ directory was not found (tried " + ", ".join(str(c) for c in candidates[:4])
        + ", ...): run from a checkout of irrepro or set IRREPRO_BOOK to its book/ directory")


@dataclass(frozen=True)
class PaperValue:
    """One number (or claim) as a paper prints it, with where it is printed.

    ``value`` is the text or number as printed (a number with the precision it is printed with,
    ``"0.60"`` as text to keep its trailing zero); ``table`` the table or figure it belongs to (or
    ``"text"``), ``row`` and ``column`` its place there, ``section`` the paper's section and
    ``wording`` the paper's own words where a chapter quotes them (*almost 15*)."""

    paper: str
    key: str
    value: object
    table: str = ""
    row: str = ""
    column: str = ""
    section: str = ""
    wording: str = ""

    def __str__(self) -> str:
        return str(self.value)

    @property
    def where(self) -> str:
        """Where the paper prints it: ``"§6.2, Table 1, linear (all runs), below / in / above (%)"``."""
        parts = [f"§{self.section}" if self.section and self.section[0].isdigit() else self.section,
                 self.table, self.row, self.column]
        return ", ".join(p for p in parts if p)

    def part(self, i: int, column: str | None = None) -> "PaperValue":
        """Part ``i`` of a value printed as ``"a / b / c"`` (e.g. the *in* share of a below / in /
        above triple), as a value of its own at the same place."""
        parts = str(self.value).split(" / ")
        if len(parts) < 2:
            raise ValueError(f"{self.paper}:{self.key}: {self.value!r} has no parts")
        return replace(self, key=f"{self.key}[{i}]", value=parts[i], column=column or self.column)

    @staticmethod
    def join(values: Sequence["PaperValue"], sep: str = " / ") -> "PaperValue":
        """Several of a paper's values printed side by side in one cell (``"82.8 / 83.9"``)."""
        first = values[0]
        return replace(first, key="+".join(v.key for v in values), value=sep.join(str(v.value) for v in values),
                       row=" / ".join(dict.fromkeys(v.row for v in values)),
                       column=" / ".join(dict.fromkeys(v.column for v in values)))


class PaperNumbers(Mapping):
    """The numbers of one paper, from ``book/papers/<bibkey>.yml`` (:func:`paper_numbers`):
    ``numbers[key]`` is a :class:`PaperValue`; ``names`` maps the paper's names (of measures) to
    ours, from the file's optional ``names`` mapping."""

    _FIELDS = ("table", "row", "column", "value", "section", "wording")

    def __init__(self, paper: str, entries: Mapping[str, Mapping], source: str = "",
                 names: Mapping[str, str] | None = None):
        self.paper = paper
        self.source = source
        #: the paper's names of measures, runs, ... mapped to ours (``"AveP": "AP"``)
        self.names = dict(names or {})
        self._values = {}
        for key, e in entries.items():
            unknown = set(e) - set(self._FIELDS)
            if unknown or "value" not in e or "section" not in e or "table" not in e:
                raise ValueError(f"{source or paper}: entry {key!r} needs table, value and section "
                                 f"(and may have row, column, wording){'; unknown ' + str(sorted(unknown)) if unknown else ''}")
            self._values[str(key)] = PaperValue(paper, str(key), e["value"], **{
                k: "" if e.get(k) is None else str(e[k]) for k in self._FIELDS if k != "value"})

    def __getitem__(self, key: str) -> PaperValue:
        try:
            return self._values[key]
        except KeyError:
            near = [k for k in self._values if k.split(".")[0] == key.split(".")[0]]
            raise KeyError(f"{self.source or self.paper} has no {key!r}"
                           + (f" (entries of that table: {', '.join(near)})" if near else "")) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def where(self, ref: str) -> str:
        """Where the paper prints the value a comparison row recorded as ``paper_ref``: a key, a
        part of one (``"key[1]"``, :meth:`PaperValue.part`) or several joined (``"a+b"``)."""
        keys = dict.fromkeys(re.sub(r"\[\d+\]$", "", k) for k in ref.split("+"))
        return "; ".join(self[k].where for k in keys)

    def keys_of(self, refs) -> set[str]:
        """The entries that ``paper_ref`` values name (parts and joins resolved to their keys)."""
        return {re.sub(r"\[\d+\]$", "", k) for ref in refs if ref for k in str(ref).split("+")}

    def to_frame(self) -> pd.DataFrame:
        """One row per entry: key, table / figure, row, column, value, section."""
        return pd.DataFrame([{"key": v.key, "table / figure": v.table, "row": v.row, "column": v.column,
                              "value": v.value, "section": v.section} for v in self._values.values()])


@functools.lru_cache(maxsize=None)
def _read_numbers(path: str, mtime: float) -> PaperNumbers:
    import yaml

    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, Mapping) or not isinstance(doc.get("numbers"), Mapping):
        raise ValueError(f"{path}: expected 'paper' and a mapping 'numbers: {{key: {{table, row, column, value, section}}}}'")
    paper = Path(path).stem
    if doc.get("paper") != paper:
        raise ValueError(f"{path}: 'paper' is {doc.get('paper')!r}, the file name says {paper!r}")
    return PaperNumbers(paper, doc["numbers"], source=path, names=doc.get("names"))


def paper_numbers(paper: str) -> PaperNumbers:
    """The numbers a chapter prints as the paper's, from ``book/papers/<paper>.yml`` (``paper`` is a
    citation key of ``book/references.bib``). Rows of :func:`compare` take their ``paper`` value
    from it (``"paper": numbers["table1.all.linear"]``), so that the table, the JSON record and the
    scorecard know where the paper prints it."""
    path = book_dir() / "papers" / f"{paper}.yml"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no numbers recorded for {paper!r}")
    return _read_numbers(str(path), path.stat().st_mtime)


# --- comparison tables ----------------------------------------------------------------------------

@dataclass(frozen=True)
class RowRef:
    """A row of a :class:`Comparison` (``comparison.row(quantity)``), for a later row that restates
    it (``"same_as": ref``): the later row takes its status and the scorecard counts it once."""

    paper: str
    item: str
    quantity: str
    status: str
    reason: str

    def __str__(self) -> str:
        return f"{self.item}: {self.quantity}"


@dataclass(frozen=True)
class Comparison:
    """A table of the paper's numbers beside ours for one table / figure / claim of a paper.

    ``frame`` has the columns quantity, paper, ours, status, reason and the chapter's notes;
    ``meta`` holds per row where the paper prints its value (``where``, ``paper_ref``: the key of
    ``book/papers/<paper>.yml``) and the row it restates (``same_as``)."""

    paper: str
    item: str
    frame: pd.DataFrame
    data: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    meta: tuple[dict, ...] = field(default_factory=tuple)

    def _repr_html_(self) -> str:
        caption = f"{self.item}: paper vs ours" + (f" ({self.data})" if self.data else "")
        titles = {"paper": [m.get("where", "") for m in self.meta]} if self.meta else {}
        return status_table(self.frame, caption, titles=titles, anchor=slug(f"{self.paper}-{self.item}")).text

    def to_records(self) -> list[dict]:
        """The rows as written to ``$IRREPRO_RESULTS``: the frame's columns plus ``paper_ref`` and
        ``same_as`` where a row has them."""
        records = json.loads(self.frame.to_json(orient="records"))
        for rec, meta in zip(records, self.meta or [{}] * len(records)):
            rec.update({k: meta[k] for k in ("paper_ref", "same_as") if meta.get(k)})
        return records

    def row(self, quantity: str) -> RowRef:
        """The row whose quantity is ``quantity``, for a later row that restates it (``same_as``)."""
        hit = self.frame.index[self.frame["quantity"] == quantity]
        if len(hit) != 1:
            raise KeyError(f"{self.item} has {len(hit)} rows {quantity!r}; quantities: {list(self.frame['quantity'])}")
        r = self.frame.loc[hit[0]]
        return RowRef(self.paper, self.item, quantity, r["status"], r["reason"])

    def status(self, quantity: str) -> str:
        """The status of the row ``quantity``."""
        return self.row(quantity).status


#: Comparisons made in this Python session, per paper and item (what :func:`header` counts; the
#: same rows as the JSON records :func:`scorecard` reads).
_SESSION: dict[str, dict[str, Comparison]] = {}


def _combine(statuses: Sequence[str]) -> str:
    """The status of a claim resting on several rows: replicated when all comparable rows are, not
    replicated when none is, partly otherwise; not comparable when no row is comparable."""
    s = [x for x in statuses if x != NOT_COMPARABLE]
    if not s:
        return NOT_COMPARABLE
    if all(x == REPLICATED for x in s):
        return REPLICATED
    return NOT_REPLICATED if all(x == NOT_REPLICATED for x in s) else PARTLY


def compare(
    paper: str,
    item: str,
    rows: Sequence[Mapping] | pd.DataFrame,
    *,
    data: str = "",
) -> Comparison:
    """Build (and record) the comparison of the paper's numbers with ours, each row with its status.

    ``rows`` are mappings with at least ``quantity``, ``paper`` and ``ours`` (and optionally
    ``note``); ``paper`` is a citation key of ``book/references.bib`` and a row's ``paper`` value a
    :class:`PaperValue` of :func:`paper_numbers` (or ``None`` / ``"-"`` where the paper gives none).
    Every row gets a ``status`` (replicated / partly / not replicated / not comparable) and a
    ``reason`` by the rule of :func:`judge`, which reads the row's optional keys ``status``, ``tol``,
    ``basis``, ``se``, ``n`` and ``reason``. A row with ``same_as`` (a :class:`RowRef`, or several)
    restates rows already judged (a Verdict row summarising a results row): it takes their status
    (:func:`_combine` for several; without ``ours`` it shows the verdict word of that status) and the
    scorecard counts it once. A row the rule cannot judge is a
    :class:`ValueError`; a word-valued row of a Verdict table needs its ``status``
    (:func:`verdict`). When the environment variable ``IRREPRO_RESULTS`` names a directory (the
    Makefile sets it to ``_build/results``), the table is also written there as JSON, which
    :func:`scorecard` gathers: the chapter's table and the scorecard show the same status.
    """
    records = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else [dict(r) for r in rows]
    records = [{"ours": None, **r} if "same_as" in r and "ours" not in r else r for r in records]
    missing = {"quantity", "paper", "ours"} - set().union(*records) if records else {"quantity", "paper", "ours"}
    if missing:
        raise ValueError(f"comparison rows need the columns {sorted(missing)}")
    is_verdict = item.lower().startswith("verdict")
    out_rows, metas = [], []
    for r in records:
        meta = {}
        pv = r.get("paper")
        if isinstance(pv, PaperValue):
            if pv.paper != paper:
                raise ValueError(f"{item}, row {r.get('quantity')!r}: a number of {pv.paper}, not {paper}")
            r["paper"], meta["paper_ref"], meta["where"] = pv.value, pv.key, pv.where
        same = r.pop("same_as", None)
        try:
            if same is not None:
                refs = [same] if isinstance(same, RowRef) else list(same)
                if not refs or not all(isinstance(x, RowRef) for x in refs):
                    raise ValueError("same_as takes rows of earlier comparisons (comparison.row(quantity))")
                status = _combine([x.status for x in refs])
                reason = "as " + "; ".join(f"{x.item}: {x.quantity} ({x.status})" for x in refs)
                meta["same_as"] = "; ".join(str(x) for x in refs)
                r.pop("status", None)
                if r.get("ours") is None:  # a restated claim shows the verdict its rows give
                    r["ours"] = _VERDICT_OF[status]
            else:
                status, reason = _judge_row(r, is_verdict)
        except ValueError as exc:
            raise ValueError(f"{item}, row {r.get('quantity')!r}: {exc}") from None
        shown = {k: v for k, v in r.items() if k not in _RULE_KEYS and k != "status"}
        out_rows.append({**{k: shown.pop(k) for k in ("quantity", "paper", "ours")},
                         "status": status, "reason": reason, **shown})
        metas.append(meta)
    frame = pd.DataFrame(out_rows, dtype=object)  # object: a rank stays 2, not 2.000 beside floats
    comp = Comparison(paper, item, frame, data, meta=tuple(metas))
    _SESSION.setdefault(paper, {})[item] = comp
    out = os.environ.get("IRREPRO_RESULTS")
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{slug(f'{paper}-{item}')}.json").write_text(
            json.dumps({"paper": paper, "item": item, "data": data, "rows": comp.to_records()}, indent=1)
        )
    return comp


def ordering_status(ours: Sequence[str], paper, names: Mapping[str, str] | None = None, *,
                    pairs: bool = False) -> dict:
    """The ``status`` and ``reason`` of a row whose paper value lists names, for :func:`compare`:
    *holds* when all the paper's names (comma-separated, ``"Q-measure, AveP, nDCG1000"``; with
    ``pairs``, pairs ``"Q/AveP, G_Q/G_AveP"`` against ours ``"AP / Q"``) are among ``ours``,
    *partly* when some are, *does not* when none is. ``names`` maps the paper's names to ours."""
    names = names or {}
    text = str(paper.value if isinstance(paper, PaperValue) else paper)
    if pairs:
        want = {frozenset(names.get(m, m) for m in pair.split("/")) for pair in text.split(", ")}
        k = len(want & {frozenset(pair.split(" / ")) for pair in ours})
        reason = f"{k} of the paper's {len(want)} pairs among ours"
    else:
        want = {names.get(n, n) for n in text.split(", ")}
        k = len(want & set(ours))
        reason = (f"{k} of the paper's {len(want)} among ours" if len(want) > 1
                  else ("the same measure" if k else "another measure"))
    return {"status": verdict(k == len(want), k > 0), "reason": reason}


def below_in_above(table: pd.DataFrame, key: str, digits: int = 1) -> str:
    """The row ``key`` (of the table's first column) of a below / in / above table (shares in %)
    as the papers print it: ``"7.7 / 80.1 / 12.2"``."""
    r = table.set_index(table.columns[0]).loc[key]
    return " / ".join(f"{r[c]:.{digits}f}" for c in ("below", "in", "above"))


# --- status badges and tables -----------------------------------------------------------------------

#: A status's badge: symbol, colours (text, background, border) and border style, chosen so that
#: the four also differ in greyscale and print (symbol and border), not by colour alone.
_BADGES = {
    "replicated": ("✓", "#0b4a1f", "#dafbe1", "#1a7f37", "solid"),
    "partly": ("◐", "#5c3c00", "#fff1c2", "#9a6700", "dashed"),
    "not replicated": ("✗", "#7d1414", "#ffe0e0", "#cf222e", "double"),
    "not comparable": ("–", "#3d444d", "#f0f1f3", "#8c959f", "dotted"),
}


def status_badge(status: str, reason: str = "", note: int | None = None) -> str:
    """The HTML badge of a status (symbol and word, coloured), the reason on hover (``title``) and,
    when ``note`` is given, the number of its footnote."""
    if status not in _BADGES:
        raise ValueError(f"status {status!r}: one of {STATUSES}")
    sym, fg, bg, border, style = _BADGES[status]
    width = "3px" if style == "double" else "1px"
    badge = (f'<span class="irrepro-status" data-status="{status}" title="{html.escape(reason)}" '
             f'style="display:inline-block;white-space:nowrap;padding:0 .45em;border-radius:.7em;'
             f'font-size:.85em;line-height:1.5;color:{fg};background:{bg};border:{width} {style} {border}">'
             f'<span aria-hidden="true">{sym}</span> {status}</span>')
    if note is not None:
        badge += f'<sup class="irrepro-note-ref">{note}</sup>'
    return badge


def _cell(x) -> str:
    """A table cell as pandas' Styler formats it for the book (precision 3, "-" for missing)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.3f}"
    return html.escape(str(x))


def status_table(frame: pd.DataFrame, caption: str = "", *, titles: Mapping[str, Sequence[str]] | None = None,
                 anchor: str = "", hide: Sequence[str] = ()) -> "_HTML":
    """A table with a ``status`` column drawn as badges and the ``reason`` column moved to numbered
    footnotes below it (the same reason, the same number) and to the badges' hover text. ``titles``
    gives hover texts per column and row (where the paper prints its value); ``hide`` drops columns."""
    titles = titles or {}
    cols = [c for c in frame.columns if c not in ("reason", *hide)]
    notes: dict[str, int] = {}
    body = []
    for i, (_, r) in enumerate(frame.iterrows()):
        cells = []
        for c in cols:
            if c == "status":
                reason = "" if _missing(r.get("reason")) else str(r["reason"])
                n = notes.setdefault(reason, len(notes) + 1) if reason else None
                cells.append(f'<td style="white-space:nowrap">{status_badge(r["status"], reason, n)}</td>')
            else:
                t = titles.get(c, [])
                tip = f' title="{html.escape(t[i])}"' if i < len(t) and t[i] else ""
                cells.append(f"<td{tip}>{_cell(r[c])}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    foot = ""
    if notes:
        items = "".join(f"<li>{html.escape(k)}</li>" for k in notes)
        foot = f'<ol class="irrepro-reasons" style="font-size:.8em;margin-top:.2em">{items}</ol>'
    ident = f' id="cmp-{anchor}"' if anchor else ""
    return _HTML(f'<div class="irrepro-comparison"{ident}><table class="dataframe irrepro-table">{cap}'
                 f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{foot}</div>")


def collections_table() -> pd.DataFrame:
    """The book's collections: size, measures, files, licence and citation key."""
    reg = registry()
    rows = []
    for c in COLLECTIONS.values():
        files = c.files()
        lic = sorted({reg[p].license for p in files})
        rows.append(
            {
                "collection": c.name,
                "what": c.title,
                "runs x topics": f"{c.shape[0]} x {c.shape[1]}",
                "content": ("ranked runs + qrels (" + c.ir_datasets_id + ")")
                if c.kind == "runs"
                else ", ".join(c.measures) + (f" + qrels ({c.ir_datasets_id})" if c.ir_datasets_id else ""),
                "files": len(files),
                "MB": round(sum(reg[p].bytes for p in files) / 1e6, 2),
                "licence": "; ".join(lic),
                "cite": c.citation,
            }
        )
    return pd.DataFrame(rows)


#: The book's chapters, in reading order: (citation key, title).
PAPERS = (
    ("cormack2006statistical", "Cormack & Lynam 2006"),
    ("sanderson2005information", "Sanderson & Zobel 2005"),
    ("sakai2006evaluating", "Sakai 2006"),
    ("webber2008score", "Webber, Moffat & Zobel 2008"),
)


#: The scorecard's status of a row: the claim or number is replicated, partly replicated, not
#: replicated, or not comparable (the paper gives no number, or our data cannot speak to it).
STATUSES = ("replicated", "partly", "not replicated", "not comparable")
REPLICATED, PARTLY, NOT_REPLICATED, NOT_COMPARABLE = STATUSES

_VERDICTS = {"holds": REPLICATED, "partly": PARTLY, "does not": NOT_REPLICATED, "not testable": NOT_COMPARABLE}
_WORDS = {s: s for s in STATUSES} | _VERDICTS
_VERDICT_OF = {v: k for k, v in _VERDICTS.items()}
#: the keys of a comparison row that feed the rule and are not shown as columns
_RULE_KEYS = ("tol", "se", "n", "basis", "reason")


def verdict(holds: bool, partly: bool = False) -> str:
    """The verdict on a paper's claim: ``"holds"``, ``"partly"`` or ``"does not"``. Chapters put it
    in their Verdict rows, or in the ``status`` of any row whose values are words (see
    :func:`judge`); it reads as replicated / partly / not replicated."""
    return "holds" if holds else ("partly" if partly else "does not")


@dataclass(frozen=True)
class _Value:
    lo: float
    hi: float
    half: float  # half a unit of the last printed digit (the printed value's rounding)
    pct: bool


_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)"
_PART = re.compile(
    r"^(?:(?:about|around|approximately|typically|almost|nearly|roughly|well|slightly|just)\s+)*"
    rf"(?P<cmp>>=|<=|≥|≤|>|<|under|below|less than|over|above|more than)?\s*"
    rf"(?P<a>{_NUM})\s*(?P<pa>%)?\s*(?:[-–]\s*(?P<b>{_NUM})\s*(?P<pb>%)?)?\s*(?P<x>x|of\s+\d+)?$"
)
_FRACTION = re.compile(r"^(?:(?:about|around|almost|nearly|roughly)\s+)*(?P<a>\d+)/(?P<b>[1-9]\d*)$")
_SPLIT = re.compile(r"\s+/\s+|\s+vs\.?\s+|\s*->\s*")


def _half_unit(text: str) -> float:
    digits = text.split(".")[1] if "." in text else ""
    return 0.5 * 10.0 ** -len(digits)


def _missing(x) -> bool:
    if x is None:
        return True
    if isinstance(x, float) and math.isnan(x):
        return True
    return isinstance(x, str) and x.strip() in {"", "-", "–", "n/a"}


def _parse(x, exact: bool = False) -> list[_Value] | None:
    """The numbers printed in a cell (``None`` if it holds words): one value per part of
    ``"a / b / c"``, ``"a vs b"`` or ``"a -> b"``; a part is a number, a range ``"11%-14%"`` or a
    bound ``"> 0.6"`` (qualifiers such as *about* are read as the printed precision). A number
    given as a number (not text) is exact when ``exact`` (ours, computed), else it carries the
    precision it is written with (the paper's, typed: ``0.26`` is 0.26 +- 0.005, ``15`` is 15 +- 0.5)."""
    if isinstance(x, bool) or _missing(x):
        return None
    if isinstance(x, (int, float, np.integer, np.floating)):
        v = float(x)
        if exact:
            return [_Value(v, v, 0.0, False)]
        text = repr(v)
        half = 0.5 if v.is_integer() else (_half_unit(text) if "e" not in text else 0.0)
        return [_Value(v, v, half, False)]
    if not isinstance(x, str):
        return None
    text = re.sub(r"\([^)]*\)", " ", x).strip().lower()
    out = []
    for part in _SPLIT.split(text):
        f = _FRACTION.match(part.strip())
        if f:  # "2/3": a fraction is printed to half of its denominator's unit
            v, d = int(f["a"]) / int(f["b"]), int(f["b"])
            out.append(_Value(v, v, 0.5 / d, False))
            continue
        m = _PART.match(part.strip())
        if not m:
            return None
        a, b, cmp = m["a"], m["b"], m["cmp"] or ""
        pct = bool(m["pa"] or m["pb"])
        if b is not None:
            if cmp:
                return None
            lo, hi = float(a), float(b)
            if lo > hi:
                raise ValueError(f"{x!r}: a range must run from low to high (write 'a -> b' for two values)")
            out.append(_Value(lo, hi, max(_half_unit(a), _half_unit(b)), pct))
        elif cmp in {">", ">=", "≥", "over", "above", "more than"}:  # a bound is a threshold, not rounded
            out.append(_Value(float(a), math.inf, 0.0, pct))
        elif cmp in {"<", "<=", "≤", "under", "below", "less than"}:
            out.append(_Value(-math.inf, float(a), 0.0, pct))
        else:  # a count "k of n" is exact
            out.append(_Value(float(a), float(a), 0.0 if (m["x"] or "").startswith("of") else _half_unit(a), pct))
    return out


def _fmt(v: float) -> str:
    return f"{v:.3g}"


def judge(paper, ours, *, tol: float | None = None, se=None, n=None, basis: str = "",
          status: str | None = None, reason: str = "") -> tuple[str, str]:
    """The status of one paper-vs-ours row and the reason for it: the scorecard's rule.

    1. A row whose ``status`` is given (a :func:`verdict` word - holds / partly / does not - or one
       of :data:`STATUSES`) keeps it: chapters compute it for claims in words (orderings, yes/no
       with a deciding number). ``"not comparable"`` needs a ``reason`` (e.g. *different data*).
    2. No number in the paper (``None``, NaN, ``""``, ``"-"``): **not comparable**.
    3. Both sides readable as numbers (see below): each of the paper's values is compared with
       ours. A value agrees when the two differ by at most the tolerance

       ``t = rounding + max(tol, z * se)``,

       where *rounding* is half a unit of the last printed digit of each side (so 0.324 against
       0.32397 agrees, 0.05 against 0.028 does not; the paper's ``15`` is 15 +- 0.5, its ``"2/3"``
       2/3 +- 1/6; numbers we pass as numbers, counts ``"k of n"`` and bounds are exact; write the
       paper's value as text, ``"0.60"``, to keep a trailing zero), ``tol`` an absolute margin the
       chapter states and justifies in ``basis``, and ``se`` the standard error of the difference
       (z = 1.96); ``n`` gives it for shares: ``n=(n_paper, n_ours)`` (or ``n_ours`` alone; either
       may list one count per value) is the binomial se of the difference of two independent
       shares, read as percentages when printed with % or when a value of the row exceeds 1. A
       range (``"11%-14%"``) or bound (``"> 0.6"``, ``"under 10%"``) agrees when ours lies in it,
       widened by ``t``. **replicated** when every value agrees, **partly** when some do, **not
       replicated** when none does.
    4. Words on both sides: **replicated** when they are the same (``"yes"``/``"yes"``), **not
       replicated** when both are yes/no and differ; other words need a ``status``
       (:class:`ValueError` otherwise, so no row escapes the rule). A number in the paper against
       words in ours (``"no bin"``) is **not replicated**: we have no value.

    Cells with several values (``"3.7 / 77.8 / 11.1"``, ``"81.0 (round 1) / 80.1 (round 5)"``;
    parentheses are ignored) are compared part by part; one paper value against several of ours is
    compared with each. Percentages must be printed as such on both sides. ``reason`` is appended
    to the computed reason (e.g. what differs in our data).
    """
    extra = f"; {reason}" if reason else ""
    if status is not None and not _missing(status):
        word = str(status).strip().lower()
        if word not in _WORDS:
            raise ValueError(f"status {status!r}: use book.verdict(...) or one of {STATUSES}")
        st = _WORDS[word]
        if st == NOT_COMPARABLE and not reason and not _missing(paper):
            raise ValueError("a 'not comparable' row needs a reason (e.g. 'different data')")
        return st, reason or ("the chapter's verdict" if word in _VERDICTS else "judged in the chapter")
    if _missing(paper):
        return NOT_COMPARABLE, "the paper gives no number" + extra
    p, o = _parse(paper), _parse(ours, exact=True)
    if p is None or o is None:
        if p is not None:
            return NOT_REPLICATED, f"no value of ours to compare ({ours})" + extra
        a, b = (re.sub(r"\([^)]*\)", " ", str(v)).strip().lower() for v in (paper, ours))
        if a == b:
            return REPLICATED, "the same answer" + extra
        if {a, b} <= {"yes", "no"}:
            return NOT_REPLICATED, "the opposite answer" + extra
        raise ValueError(f"paper {paper!r} vs ours {ours!r}: give the row a status "
                         "(book.verdict(...) or 'not comparable' with a reason)")
    if len(p) == 1 and len(o) > 1:
        p = p * len(o)
    elif len(o) == 1 and len(p) > 1:
        o = o * len(p)
    if len(p) != len(o):
        raise ValueError(f"paper {paper!r} has {len(p)} values, ours {ours!r} {len(o)}")
    if any(a.pct != b.pct for a, b in zip(p, o)):
        raise ValueError(f"paper {paper!r} vs ours {ours!r}: print percentages on both sides or neither")
    ses = np.broadcast_to(np.asarray(np.nan if se is None else se, dtype=float), (len(p),))
    hits, tols, offs = [], [], []
    # shares are percentages when printed with % or when any value of the row exceeds 1
    finite = [v for x in p + o for v in (x.lo, x.hi) if math.isfinite(v)]
    scale = 100.0 if p[0].pct or max(map(abs, finite), default=0) > 1 else 1.0
    if n is not None:
        n_p, n_o = n if isinstance(n, (tuple, list)) else (None, n)
        n_p = np.broadcast_to(np.asarray(np.nan if n_p is None else n_p, dtype=float), (len(p),))
        n_o = np.broadcast_to(np.asarray(n_o, dtype=float), (len(p),))
    for i, (a, b) in enumerate(zip(p, o)):
        s = ses[i]
        if n is not None:
            fr = [min(max(v / scale, 0.0), 1.0) for v in (a.lo if math.isfinite(a.lo) else a.hi, b.lo)]
            var = fr[1] * (1 - fr[1]) / n_o[i] + (fr[0] * (1 - fr[0]) / n_p[i] if n_p[i] > 0 else 0.0)
            s = scale * math.sqrt(var)
        t = a.half + b.half + max(tol or 0.0, Z95 * s if math.isfinite(s) else 0.0)
        off = max(a.lo - b.hi, b.lo - a.hi, 0.0)  # distance between the two intervals
        hits.append(off <= t + 1e-12)
        tols.append(t)
        offs.append(off)
    k, m = sum(hits), len(hits)
    bases = []
    if n is not None:
        nn = [", ".join(dict.fromkeys(f"{v:.0f}" for v in x)) for x in (n_p, n_o)]
        bases.append("1.96 binomial se, n = " + (f"{nn[1]} (ours)" if nn[0] == "nan" else f"{nn[0]} (paper) / {nn[1]} (ours)"))
    elif se is not None:
        bases.append("1.96 se of the difference")
    if tol:
        bases.append(basis or "the chapter's tolerance")
    why = " or ".join(bases) or "the printed precision"
    within = ("±" + "/".join(dict.fromkeys(_fmt(t) for t in tols)) + f" ({why})") if max(tols) > 0 else "exactly"
    where = "bound" if all(math.isinf(a.lo) or math.isinf(a.hi) for a in p) else "range"
    if k == m and max(offs) == 0 and any(a.lo != a.hi for a in p):
        st, txt = REPLICATED, f"inside the paper's {where}"
    elif k == m:
        st = REPLICATED
        txt = ("equal" if within == "exactly" else f"within {within}") if m == 1 else f"all {m} within {within}"
    else:
        st = PARTLY if k else NOT_REPLICATED
        worst = max(o_ - t for o_, t in zip(offs, tols))
        if within == "exactly":
            txt = (f"{k} of {m} agree; " if m > 1 else "") + (
                f"outside the paper's {where} by up to {_fmt(worst)}" if any(a.lo != a.hi for a in p)
                else f"differs by up to {_fmt(worst)}")
        else:
            txt = (f"{k} of {m} within {within}" if m > 1 else f"outside {within}") + f"; beyond it by up to {_fmt(worst)}"
    return st, txt + extra


def _judge_row(row: Mapping, is_verdict: bool = False) -> tuple[str, str]:
    """:func:`judge` applied to a row (its keys ``tol``, ``se``, ``n``, ``basis``, ``status`` and
    ``reason``). A row of a Verdict table whose status the chapter gives has the reason "the chapter's
    verdict (deciding number in the note)"."""
    kw = {k: row[k] for k in ("tol", "se", "n", "basis", "status") if k in row and not _missing_rule(row[k])}
    reason = "" if _missing(row.get("reason")) else str(row["reason"])
    if is_verdict and "status" in kw and not reason and str(kw["status"]).strip().lower() in _VERDICTS:
        reason = "the chapter's verdict (deciding number in the note)"
    return judge(row.get("paper"), row.get("ours"), reason=reason, **kw)


def _missing_rule(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


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
    """The replication scorecard: per paper, every row of every :func:`compare` table recorded in
    ``directory`` (default ``$IRREPRO_RESULTS``), in the order the chapter recorded them, with the
    paper's value, ours, the status and its reason (as :func:`compare` computed them; a row recorded
    without one is judged again by the same rule), the note, the data used, the key of the paper's
    value in ``book/papers/<paper>.yml`` (``paper_ref``) and the row it restates (``same_as``)."""
    d = Path(directory or os.environ.get("IRREPRO_RESULTS", ""))
    # in the order the chapters wrote them (each chapter runs top to bottom)
    files = sorted(d.glob("*.json"), key=lambda f: (f.stat().st_mtime_ns, f.name)) if d.is_dir() else []
    records = [json.loads(f.read_text()) for f in files]
    return {title: _card([rec for rec in records if rec["paper"] == key]) for key, title in PAPERS}


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
    return entry.text.render(Backend())


def header(paper: str, counts: Mapping[str, int] | None = None) -> "_HTML":
    """The opening box of a chapter: the replicated paper's full reference with its DOI and the
    verdict label (:func:`label`) with the counts it rests on. ``counts`` defaults to the
    :func:`summary` of the comparisons this session made for ``paper`` - the chapter's, which are
    the scorecard's rows for it."""
    if counts is None:
        counts = summary({paper: session_card(paper)}).iloc[0]
    lab = label(counts)
    words = ", ".join(f"{int(counts[s])} {s}" for s in STATUSES)
    verdict_html = (f'<span class="irrepro-label" data-label="{lab}" style="font-weight:bold">{html.escape(lab)}</span> '
                    f"{LABELS[lab]}" if lab else "no comparable result yet")
    return _HTML(
        f'<div class="admonition note irrepro-header" data-paper="{paper}">'
        '<p class="admonition-title">A replication of</p>'
        f'<p class="irrepro-reference">{_reference_html(paper)}</p>'
        f"<p>Verdict: {verdict_html} ({words}; {int(counts['total'])} rows counted).</p></div>"
    )
