"""Helpers for the book's pages: data banners and paper-vs-ours comparison tables.

Every chapter shows where its data came from with :func:`data_banner` (a warning box carrying the
CSS class ``simulated-data`` when any of it is the simulated stand-in, a plain note otherwise) and
prints each of the paper's numbers beside ours with :func:`compare`, so that the chapters and any
page that gathers their numbers cannot disagree.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .data import COLLECTIONS, RunSet, ScoreMatrix, registry

__all__ = ["data_banner", "compare", "Comparison", "collections_table", "scorecard", "verdict", "PAPERS"]


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


@dataclass(frozen=True)
class Comparison:
    """A table of the paper's numbers beside ours for one table / figure / claim of a paper."""

    paper: str
    item: str
    frame: pd.DataFrame
    data: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def _repr_html_(self) -> str:
        caption = f"{self.item}: paper vs ours" + (f" ({self.data})" if self.data else "")
        styler = self.frame.style.set_caption(html.escape(caption)).format(
            precision=3, na_rep="-", escape="html"
        )
        return styler.hide(axis="index").to_html()

    def to_records(self) -> list[dict]:
        return json.loads(self.frame.to_json(orient="records"))


def compare(
    paper: str,
    item: str,
    rows: Sequence[Mapping] | pd.DataFrame,
    *,
    data: str = "",
) -> Comparison:
    """Build (and record) the comparison of the paper's numbers with ours.

    ``rows`` are mappings with at least ``quantity``, ``paper`` and ``ours`` (and optionally
    ``note``); ``paper`` is a citation key of ``book/references.bib``. When the environment variable
    ``IRREPRO_RESULTS`` names a directory (the Makefile sets it to ``_build/results``), the table is
    also written there as JSON so that a summary page can gather every chapter's numbers.
    """
    frame = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows)
    missing = {"quantity", "paper", "ours"} - set(frame.columns)
    if missing:
        raise ValueError(f"comparison rows need the columns {sorted(missing)}")
    comp = Comparison(paper, item, frame, data)
    out = os.environ.get("IRREPRO_RESULTS")
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        slug = "".join(c if c.isalnum() else "-" for c in f"{paper}-{item}").strip("-").lower()
        (d / f"{slug}.json").write_text(
            json.dumps({"paper": paper, "item": item, "data": data, "rows": comp.to_records()}, indent=1)
        )
    return comp


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


_VERDICTS = {"holds": "replicated", "partly": "partly", "does not": "not replicated"}


def verdict(holds: bool, partly: bool = False) -> str:
    """The verdict on a paper's claim: ``"holds"``, ``"partly"`` or ``"does not"``. Chapters put it
    in the ``status`` of their Verdict rows (see :func:`compare`)."""
    return "holds" if holds else ("partly" if partly else "does not")


def _status(row: Mapping, is_verdict: bool) -> str:
    """A row's status for the scorecard: its ``status``, else (in a Verdict table) the verdict
    word found in ``ours`` or ``note``, else ``"compared"``."""
    import re

    texts = [row.get("status"), row.get("ours"), row.get("note")] if is_verdict else [row.get("status")]
    for text in texts:
        m = re.search(r"\b(holds|partly|does not)\b", str(text or "").lower())
        if m:
            return _VERDICTS[m.group(1)]
    return str(row["status"]) if row.get("status") else "compared"


def scorecard(directory: str | Path | None = None) -> dict[str, pd.DataFrame]:
    """The replication scorecard: per paper, every recorded quantity with the paper's value, ours,
    the data used and a status. Verdict tables (item ``"Verdict"``) carry the status in ``ours``
    (holds / partly / does not); other rows keep an explicit ``status`` if the chapter gave one."""
    d = Path(directory or os.environ.get("IRREPRO_RESULTS", ""))
    out: dict[str, pd.DataFrame] = {}
    records = [json.loads(f.read_text()) for f in sorted(d.glob("*.json"))] if d.is_dir() else []
    for key, title in PAPERS:
        rows = []
        for rec in records:
            if rec["paper"] != key:
                continue
            verdict = rec["item"].lower().startswith("verdict")
            for r in rec["rows"]:
                rows.append(
                    {
                        "table / figure / claim": rec["item"],
                        "quantity": r.get("quantity"),
                        "paper": r.get("paper"),
                        "ours": r.get("ours"),
                        "status": _status(r, verdict),
                        "note": r.get("note", ""),
                        "data": rec.get("data", ""),
                    }
                )
        out[title] = pd.DataFrame(
            rows, columns=["table / figure / claim", "quantity", "paper", "ours", "status", "note", "data"]
        )
    return out
