"""The paper-vs-ours tables of a chapter (:func:`compare`), recorded for the scorecard, and their
verdicts in words (:func:`verdict_text`), so the text cannot disagree with the tables."""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._rule import _RULE_KEYS, _VERDICT_OF, PaperValue, _judge_row, _missing, _named, _restated, verdict
from .._text import json_text, slug  # strict JSON; the file names of the recorded results
from ._config import results_dir
from ._display import (
    _HTML,
    STATUS_WORDS,
    anchor,
    docname,
    rests_on,
    show,
    status_badge,
    status_table,
    with_error,
)


@dataclass(frozen=True)
class RowRef:
    """A row of a :class:`Comparison`, for a later row that restates it."""

    paper: str
    item: str
    quantity: str
    status: str
    reason: str

    def __str__(self) -> str:
        return f"{self.item}: {self.quantity}"


@dataclass(frozen=True)
class Comparison:
    """A table of the paper's numbers beside ours for one table / figure / claim of a paper (``compare``)."""

    paper: str
    item: str
    frame: pd.DataFrame
    data: str = ""
    meta: tuple[dict, ...] = ()
    condition: str = ""
    page: str = ""

    @property
    def anchor(self) -> str:
        """The table's HTML id (``cmp-<paper>-<item>``), the target of the links to it."""
        return anchor(self.paper, self.item)

    @property
    def scopes(self) -> list[str]:
        """Per row, the data it was judged on: its own ``data`` where it has one, else the table's."""
        own = self.frame["data"] if "data" in self.frame else [None] * len(self.frame)
        return [d if isinstance(d, str) and d else self.data for d in own]

    def _ipython_display_(self) -> None:
        show(self, _HTML(self._repr_html_(), f"{self.item}: paper vs ours ({len(self.frame)} rows)"))

    def _repr_html_(self) -> str:
        caption = f"{self.item}: paper vs ours" + (f" ({self.data})" if self.data else "")
        titles = {"paper": [m.get("where", "") for m in self.meta]} if self.meta else {}
        badges = [c for c in ("as is",) if c in self.frame.columns]
        shown = self.frame.copy()
        # ours to the paper's printed precision + 1, with its error in the same cell (display only)
        ses = shown["ours_se"] if "ours_se" in shown else [None] * len(shown)
        shown["ours"] = [with_error(o, se, p) for o, se, p in zip(shown["ours"], ses, shown["paper"])]
        if "ours, as is" in shown:
            shown["ours, as is"] = [
                with_error(o, None, p) for o, p in zip(shown["ours, as is"], shown["paper"])
            ]
        rests = rests_on(self, _SESSION)
        if any(rests):
            shown["rests on"] = rests
        return status_table(
            shown,
            caption,
            titles=titles,
            anchor=slug(f"{self.paper}-{self.item}"),
            badges=badges,
            hide=[c for c in _RULE_COLUMNS if c in shown],
            html_columns=("rests on",),
        ).text

    def to_records(self) -> list[dict]:
        """The rows as written to ``$IRREPRO_RESULTS``, with ``paper_ref``, ``same_as``, ``emulates``, ``supports``."""
        records = json.loads(self.frame.to_json(orient="records"))
        for rec, meta in zip(records, self.meta or [{}] * len(records)):
            rec.update({k: meta[k] for k in ("paper_ref", "same_as", "emulates", "supports") if meta.get(k)})
        return records

    def row(self, quantity: str) -> RowRef:
        """The row whose quantity is ``quantity``, for a later row that restates it (``same_as``)."""
        hit = self.frame.index[self.frame["quantity"] == quantity]
        if len(hit) != 1:
            raise KeyError(
                f"{self.item} has {len(hit)} rows {quantity!r}; quantities: {list(self.frame['quantity'])}"
            )
        r = self.frame.loc[hit[0]]
        return RowRef(self.paper, self.item, quantity, r["status"], r["reason"])


#: the frame's columns of the rule, recorded in the JSON but not shown as columns
_RULE_COLUMNS = ("kind", "ours_se", "se_sampling", "se_mc", "unit", "replicates", "nominal", "paper_se",
                 "se_reason", "margin", "paper_n", "status_by", "why", "replicates_needed", "z")  # fmt: skip


#: Comparisons made in this Python session, per paper and item (what :func:`header` counts).
_SESSION: dict[str, dict[str, Comparison]] = {}


def compare(
    paper: str,
    item: str,
    rows: Sequence[Mapping] | pd.DataFrame,
    *,
    data: str = "",
    emulates: Comparison | None = None,
    condition: str = "",
    page: str = "",
    results: str | Path | None = None,
) -> Comparison:
    """Build (and record) the comparison of the paper's numbers with ours, each row judged by :func:`judge`.

    Parameters
    ----------
    paper : str
        The paper's citation key in ``book/references.bib``.
    item : str
        The table, figure or claim compared (``"Table 2"``).
    rows : sequence of mapping or pandas.DataFrame
        Each with ``quantity``, ``paper`` (a ``PaperValue`` of :func:`paper_numbers`, or ``None``),
        ``ours`` and the keys of :func:`judge`; with ``same_as`` (earlier rows' ``RowRef``) a row restates
        them and takes their combined status (counted once).
    data : str
        The data ours come from.
    emulates : Comparison or None
        The table whose rows this one reruns under ``condition`` (counted only under it).
    condition : str
        The emulated conditions.
    page : str
        The chapter's sub-page that shows the table (``""``: the chapter's page).
    results : str, pathlib.Path or None
        Where the JSON record goes (None: the book configuration's).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        For a row the rule cannot judge.
    """
    if (emulates is None) != (not condition):
        raise ValueError(
            f"{item}: give both emulates= (the comparison on the data as they are) and condition="
        )
    as_is = {}
    if emulates is not None:
        if emulates.paper != paper or emulates.condition:
            raise ValueError(f"{item}: emulates= takes a comparison of {paper} on the data as they are")
        as_is = {q: i for i, q in enumerate(emulates.frame["quantity"])}
    records: list[dict] = (
        rows.to_dict("records") if isinstance(rows, pd.DataFrame) else [dict(r) for r in rows]
    )
    records = [{"ours": None, **r} if "same_as" in r and "ours" not in r else r for r in records]
    missing = {"quantity", "paper", "ours"} - set().union(*records)
    if missing:
        raise ValueError(f"comparison rows need the columns {sorted(missing)}")
    out_rows, metas = [], []
    for r in records:
        meta: dict = {}
        pv = r.get("paper")
        try:
            if isinstance(pv, PaperValue):
                if pv.paper != paper:
                    raise ValueError(f"a number of {pv.paper}, not {paper}")
                # as printed: a yml number keeps its text ("0.60"), so the record is judged the same again
                printed = getattr(pv.value, "printed", None)
                r["paper"] = printed if printed is not None else pv.value
                meta["paper_ref"], meta["where"] = pv.key, pv.where
            elif not _missing(pv):
                raise ValueError(
                    f"the paper's value {pv!r} is typed in the chapter: take it from "
                    f"book/papers/{paper}.yml (book.paper_numbers), so the scorecard knows where it is printed"
                )
            same = r.pop("same_as", None)
            if emulates is not None:
                if same is not None or r.get("quantity") not in as_is:
                    raise ValueError(
                        f"a row under {condition!r} reruns one row of "
                        f"{emulates.item!r} (quantities: {list(as_is)}) and restates nothing"
                    )
                old = emulates.frame.iloc[as_is[r["quantity"]]]
                meta["emulates"] = f"{emulates.item}: {r['quantity']}"
                for key, col in (("ours, as is", "ours"), ("as is", "status"), ("as is reason", "reason")):
                    r.setdefault(key, old[col])
            if same is not None:
                refs = _refs(same, "same_as", meta)
                if "status" in r or "supports" in r:
                    raise ValueError("a row that restates rows (same_as) takes their status")
                j = _restated(refs)
                r["kind"], r["ours_se"] = "claim", None
                r["se_reason"] = "restates rows judged above"
                if r.get("ours") is None:  # a restated claim shows the verdict its rows give
                    r["ours"] = _VERDICT_OF.get(j.status, j.status)
            else:
                if "supports" in r:
                    r["supports"] = _refs(r["supports"], "supports", meta)
                j = _judge_row(r)
        except ValueError as exc:
            raise ValueError(f"{item}, row {r.get('quantity')!r}: {exc}") from None
        shown = {k: v for k, v in r.items() if k not in _RULE_KEYS}
        # who set the status: the rule on numbers, the rows a claim rests on, or the chapter
        by = "rule" if r.get("kind") != "claim" else "supports"
        by = "restated" if same is not None else "chapter" if r.get("status") is not None else by
        out_rows.append(
            {
                **{k: shown.pop(k) for k in ("quantity", "paper", "ours")},
                "status": j.status,
                "reason": j.reason,
                **shown,
                "kind": r.get("kind"),
                "ours_se": _total_se(r),
                **{k: _listed(r[k]) for k in _ERROR_KEYS if r.get(k) is not None},
                "se_reason": r.get("se_reason") or None,
                "margin": list(j.margin) if isinstance(j.margin, tuple) else j.margin,
                **({"why": j.why} if j.why else {}),
                **({"replicates_needed": j.needed} if j.needed else {}),
                **({"z": j.z} if j.z is not None else {}),
                "status_by": by,
                **({"paper_n": r["paper_n"]} if r.get("paper_n") is not None else {}),
            }
        )
        metas.append(meta)
    frame = pd.DataFrame(out_rows, dtype=object)  # object: a rank stays 2, not 2.000 beside floats
    comp = Comparison(paper, item, frame, data, meta=tuple(metas), condition=condition, page=page)
    _SESSION.setdefault(paper, {})[item] = comp
    out = results_dir() if results is None else results
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        doc = {"paper": paper, "item": item, "data": data, "rows": comp.to_records()}
        if condition:
            doc["condition"] = condition
        if shown_on := docname(paper, page):
            doc["page"] = shown_on
        (d / f"{slug(f'{paper}-{item}')}.json").write_text(json_text(doc))
    return comp


#: the keys of a row's errors recorded beside ours_se (their root sum of squares)
_ERROR_KEYS = ("se_sampling", "se_mc", "unit", "replicates", "nominal", "paper_se")


def _listed(x):
    """A sequence as a list (for JSON)."""
    return list(x) if isinstance(x, (list, tuple, np.ndarray)) else x


def _total_se(r: Mapping):
    """Our error as the row's ``ours_se``: as given, or the root sum of squares of its two errors."""
    if r.get("se_sampling") is None and r.get("se_mc") is None:
        return _listed(r.get("ours_se"))
    s = np.nan_to_num(np.asarray(r.get("se_sampling") or 0.0, dtype=float))
    m = np.nan_to_num(np.asarray(r.get("se_mc") or 0.0, dtype=float))
    t = np.hypot(s, m)
    return [float(v) for v in t] if t.ndim else float(t)


def _refs(x, key: str, meta: dict) -> list:
    """The rows (``RowRef``; for ``supports`` also text naming other evidence) a row rests on, named in ``meta``."""
    refs = [x] if isinstance(x, (RowRef, str)) else list(x)
    ok = (RowRef,) if key == "same_as" else (RowRef, str)
    if not refs or not all(isinstance(v, ok) and (str(v).strip()) for v in refs):
        raise ValueError(f"{key} takes rows of earlier comparisons (comparison.row(quantity))")
    rows = [r for r in refs if isinstance(r, RowRef)]
    meta[key] = "; ".join(str(x) for x in refs)
    meta["rests_on"] = tuple(dict.fromkeys((r.paper, r.item) for r in rows))
    meta["restates"] = tuple(dict.fromkeys(rows))
    return refs


def ordering_status(
    ours: Sequence[str],
    paper,
    names: Mapping[str, str] | None = None,
    *,
    pairs: bool = False,
    supports="",
) -> dict:
    """A claim row: whether all, some or none of the paper's names (mapped by ``names``) are in ``ours``."""
    names = names or {}
    text = str(paper.value if isinstance(paper, PaperValue) else paper)
    if pairs:
        want_pairs = {frozenset(names.get(m, m) for m in pair.split("/")) for pair in text.split(", ")}
        n, k = len(want_pairs), len(want_pairs & {frozenset(pair.split(" / ")) for pair in ours})
        reason = f"{k} of the paper's {n} pairs among ours"
    else:
        want = {names.get(m, m) for m in text.split(", ")}
        n, k = len(want), len(want & set(ours))
        one = "the same measure" if k else "another measure"
        reason = f"{k} of the paper's {n} among ours" if n > 1 else one
    if not supports:
        raise ValueError("ordering_status needs supports=: the rows (or the ranking) the names come from")
    return {"kind": "claim", "status": verdict(k == n, k > 0), "reason": reason, "supports": supports}


def verdict_text(comparison: Comparison) -> _HTML:
    """The chapter's verdict in words, one sentence per row of ``comparison``, from its statuses.

    Parameters
    ----------
    comparison : Comparison
        A chapter's comparison (usually its Verdict table).

    Returns
    -------
    object
        HTML that Jupyter displays.

    Examples
    --------
    >>> import irrepro.book as book
    >>> P = book.paper_numbers("cormack2006statistical")
    >>> c = book.compare("cormack2006statistical", "Example", [
    ...     {"quantity": "runs", "paper": P["map.runs"], "ours": 74, "kind": "count",
    ...      "ours_se": 0, "se_reason": "counted"}], data="TREC-6", results="")
    >>> "data-status=" in book.verdict_text(c)._repr_html_()
    True
    """
    where = comparison.data
    items = []
    metas = comparison.meta or tuple({} for _ in range(len(comparison.frame)))
    scopes = comparison.scopes
    # the data said once, before the sentences
    once = bool(where) and len(scopes) > 1 and set(scopes) == {where}
    for (_, r), meta, scope in zip(comparison.frame.iterrows(), metas, scopes):
        st = r["status"]
        rests = meta.get("supports") or meta.get("same_as") or ""
        items.append(
            f'<li class="irrepro-verdict" data-status="{st}" data-item="{html.escape(comparison.item)}" '
            f'data-quantity="{html.escape(str(r["quantity"]))}" data-data="{html.escape(scope, quote=True)}">'
            f"<strong>{html.escape(str(r['quantity']))}</strong>: {status_badge(st, word=False)} "
            f'<span class="irrepro-verdict-word">{STATUS_WORDS[st]}</span>'
            + ("" if once else f" on {html.escape(scope)}" if scope else " on our data")
            + f" - {_reason(str(r['reason']), meta.get('restates', ()))}"
            + (
                f"; rests on {html.escape(rests)}"
                if rests and not str(r["reason"]).startswith(("as ", "from ", "the chapter's verdict on "))
                else ""
            )
            + ".</li>"
        )
    lead = f'<p class="irrepro-verdicts-on">On {html.escape(where)}:</p>' if once else ""
    return _HTML(f'{lead}<ul class="irrepro-verdicts">{"".join(items)}</ul>')


#: A row resting on more rows than this counts them per table by status, and folds their names.
_FOLD_ROWS = 3


def _reason(reason: str, restates) -> str:
    """A sentence's reason; for a row resting on many rows, their counts per table, the rule's reason folded."""
    if len(restates) <= _FOLD_ROWS or not reason.startswith(("as ", "from ")):
        return html.escape(reason)
    word, rest = reason.split(" ", 1)
    named = _named(restates)  # as the rule names them
    note = rest[len(named) :] if rest.startswith(named) else ""
    counts = Counter((r.paper, r.item, r.status) for r in restates)
    per_table = "; ".join(
        f"{html.escape(item)}: "
        + ", ".join(
            f"{counts[paper, item, st]} {STATUS_WORDS[st]}" for st in STATUS_WORDS if counts[paper, item, st]
        )
        for paper, item in dict.fromkeys((r.paper, r.item) for r in restates)
    )
    return (
        f"{word} its {len(restates)} rows ({per_table}) "
        f'<details class="irrepro-rows"><summary>which rows</summary>{html.escape(reason)}</details>'
        + html.escape(note)
    )
