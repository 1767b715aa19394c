"""What the book's verdicts rest on, read from the rows the chapters recorded: their data, their
errors' units, and how the counts move when the margins are scaled."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from .._rule._statuses import STATUSES
from ._config import results_dir
from ._headline import VERDICT_ITEM
from ._papers import PAPERS, STUDIES

__all__ = ["judged_on", "sensitivity", "error_units"]


def _records(directory: str | Path | None) -> list[dict]:
    d = Path(directory or results_dir() or "")
    return [json.loads(f.read_text(encoding="utf-8")) for f in sorted(d.glob("*.json"))] if d.is_dir() else []


def sensitivity(
    directory: str | Path | None = None, factors: Sequence[float] = (0.5, 1.0, 2.0)
) -> pd.DataFrame:
    """Per chapter, the counts of its statuses with every margin of the rule scaled by each factor.

    Every counted row set by the rule is judged again under the scaled margins; a claim combining
    its rows combines their new statuses; a status the chapter computed is kept.

    Parameters
    ----------
    directory : str, pathlib.Path or None
        The results directory (None: ``IRREPRO_RESULTS``).
    factors : sequence of float
        The factors of the margins.

    Returns
    -------
    pandas.DataFrame
        Index (chapter, margins as "x0.5"), columns :data:`STATUSES` and ``total``.
    """
    from .._rule._judge import judge_row
    from .._rule._margins import scaled
    from .._rule._statuses import combine

    records = _records(directory)
    title = dict((*PAPERS, *STUDIES))
    out = []
    for f in factors:
        status: dict = {}
        with scaled(f):
            for rec in records:
                for r in rec["rows"]:
                    key = (rec["paper"], rec.get("condition") or "", rec["item"], r.get("quantity"))
                    status[key] = judge_row(r).status if r.get("status_by") == "rule" else r["status"]
            for rec in records:
                for r in rec["rows"]:
                    if r.get("status_by") != "supports" or not isinstance(r.get("supports"), str):
                        continue
                    refs = [x.split(": ", 1) for x in r["supports"].split("; ")]
                    cond = rec.get("condition") or ""
                    found = [status.get((rec["paper"], cond, *ref)) for ref in refs if len(ref) == 2]
                    if found and len(found) == len(refs) and all(isinstance(x, str) for x in found):
                        status[(rec["paper"], cond, rec["item"], r.get("quantity"))] = combine(
                            [str(x) for x in found]
                        )
        for paper, name in title.items():
            counted = [
                status[(rec["paper"], "", rec["item"], r.get("quantity"))]
                for rec in records
                if rec["paper"] == paper and not rec.get("condition")
                for r in rec["rows"]
                if r.get("paper_ref") and not r.get("same_as") and not r.get("emulates")
            ]
            counts = pd.Series(counted, dtype=object).value_counts().reindex(STATUSES, fill_value=0)
            out.append({"chapter": name, "margins": f"x{f:g}", **counts.astype(int).to_dict()})
    frame = pd.DataFrame(out, columns=["chapter", "margins", *STATUSES])
    frame["total"] = frame[list(STATUSES)].sum(axis=1)
    order = {name: i for i, name in enumerate(title.values())}
    frame = frame.sort_values(
        ["chapter", "margins"], key=lambda c: c.map(order) if c.name == "chapter" else c
    )
    return frame.set_index(["chapter", "margins"])


def error_units(directory: str | Path | None = None) -> pd.DataFrame:
    """Per chapter, what its compared rows' errors rest on, and its inconclusive rows by why.

    Parameters
    ----------
    directory : str, pathlib.Path or None
        The results directory (None: ``IRREPRO_RESULTS``).

    Returns
    -------
    pandas.DataFrame
        One row per chapter that recorded rows compared by the rule: ``clustered by`` ("topic
        (12), system pair (3)"), ``no error`` (rows whose errors are 0, each with a reason),
        ``inconclusive: monte-carlo`` and ``inconclusive: sampling``.
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


def judged_on(cards: Mapping[str, pd.DataFrame]) -> pd.Series:
    """Per paper, the data its claims were judged on: its Verdict table's ``data``.

    Parameters
    ----------
    cards : mapping
        What :func:`scorecard` returned.

    Returns
    -------
    pandas.Series
        One entry per paper (``""`` for a chapter that recorded no Verdict table).
    """
    out = {}
    for title, card in cards.items():
        data = list(card.loc[card["table / figure / claim"] == VERDICT_ITEM, "data"]) if len(card) else []
        out[title] = str(data[0]) if data else ""
    return pd.Series(out, name="judged on", dtype=object)
