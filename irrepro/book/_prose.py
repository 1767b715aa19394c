"""Sentences generated from rows (:func:`verdict_text`), so the text cannot disagree with the tables,
and the check that no other sentence states a status (:func:`stray_statements`).
"""

from __future__ import annotations

import html
import re
from collections import Counter

from .._rule import INCONCLUSIVE, NOT_COMPARABLE, NOT_REPLICATED, PARTLY, REPLICATED, _named
from ._display import _HTML, status_badge
from ._tables import Comparison

__all__ = ["verdict_text", "STATUS_WORDS", "STATUS_PATTERN", "stray_statements", "markdown_prose"]

#: How a sentence says each status (the scan of the built book reads these words back).
STATUS_WORDS = {
    REPLICATED: "replicated",
    PARTLY: "replicated in part",
    INCONCLUSIVE: "inconclusive",
    NOT_REPLICATED: "not replicated",
    NOT_COMPARABLE: "not comparable",
}


def verdict_text(comparison: Comparison) -> _HTML:
    """The chapter's verdict in words, one sentence per row of ``comparison``, from its statuses.

    Each sentence names the row's quantity, its status (:data:`STATUS_WORDS` and badge), the data it
    was judged on (the row's own ``data``, else the comparison's, said once when all share it), the
    rule's reason and the rows it rests on; its HTML carries ``data-status``, ``data-item``,
    ``data-quantity`` and ``data-data`` for the check of the built book.

    Parameters
    ----------
    comparison : Comparison
        A chapter's comparison (usually its Verdict table).

    Returns
    -------
    object
        HTML that Jupyter displays (``_repr_html_``).

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


#: Words that state a status. Outside the generated parts of a page (the verdict sentences of
#: :func:`verdict_text`, comparison tables, the chapter's header box, code and its output) no
#: sentence may use them: a status is stated only where it is generated from its row.
STATUS_PATTERN = re.compile(
    r"\b(?:not\s+)?replicated\b|\binconclusive\b|\[(?:~|¬)?Re\]|\bnot reproduced\b|\breproduced in part\b"
    r"|\bholds?\s+only\s+in\s+part\b|\bdoes\s+not\s+hold\b",
    re.IGNORECASE,
)


def stray_statements(text: str) -> list[str]:
    """The sentences of ``text`` (prose, without the generated parts) that state a status.

    Parameters
    ----------
    text : str
        Prose: a page's text outside its generated verdicts, tables, header and code.

    Returns
    -------
    list of str
        Each sentence (whitespace collapsed) that matches :data:`STATUS_PATTERN`.

    Examples
    --------
    >>> from irrepro.book._prose import stray_statements
    >>> stray_statements("We rerun Table 1. The claim holds only in part here. Fine.")
    ['The claim holds only in part here.']
    """
    sentences = re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text))
    return [s.strip() for s in sentences if STATUS_PATTERN.search(s)]


def markdown_prose(source: str) -> str:
    """The prose of a MyST notebook's source: its text without code cells, front matter, glue
    roles and HTML comments (what :func:`stray_statements` reads before the book is built)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", source, flags=re.S)
    text = re.sub(r"```\{code-cell\}.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return re.sub(r"\{glue:[a-z]*\}`[^`]*`", " ", text)
