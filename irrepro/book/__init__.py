"""Helpers for the book's pages: data banners, the papers' numbers, paper-vs-ours tables, the scorecard.

The paper's numbers are data (``book/papers/<bibkey>.yml``); a chapter prints each beside ours with
:func:`compare`, and every compared row gets its status and reason from one rule, :func:`judge`
(``book/rule.md``). A chapter reads its environment once, by :func:`config`.
"""

from __future__ import annotations

from .._rule import (  # noqa: F401  (the statuses, spread_notes, verdict, PaperValue: the families' rows)
    INCONCLUSIVE,
    NOT_COMPARABLE,
    NOT_REPLICATED,
    PARTLY,
    REPLICATED,
    STATUSES,
    PaperValue,
    judge,
    margins,
    spread_notes,
    verdict,
)
from .._text import slug  # the file names of the recorded results (also irrepro.book.slug)
from ._config import config
from ._display import STATUS_WORDS, aside, collections_table, data_banner, table, with_error
from ._exercises import answer, check
from ._papers import PAPERS, STUDIES, paper_numbers  # noqa: F401
from ._rows import Errors, claim, correlation, count, errors, ordering, rate, score, share  # noqa: F401
from ._scorecard import (  # noqa: F401
    LABELS,
    conditions,
    emulated,
    emulation_summary,
    error_units,
    header,
    headline_table,
    label,
    scorecard,
    scorecard_chapters,
    scorecard_table,
    sensitivity,
    session_card,
    summary,
)
from ._tables import Comparison, compare, ordering_status, verdict_text  # noqa: F401

# imported but not in __all__ (noqa: F401): what the method families' rows, the chapters and the book's
# tests reach as ``book.<name>`` (the row builders, Comparison, PaperValue, the statuses, PAPERS, ...)

__all__ = [
    "data_banner",
    "aside",
    "compare",
    "errors",
    "count",
    "ordering",
    "collections_table",
    "scorecard",
    "scorecard_table",
    "scorecard_chapters",
    "judge",
    "margins",
    "header",
    "headline_table",
    "paper_numbers",
    "table",
    "with_error",
    "STATUS_WORDS",
    "verdict_text",
    "LABELS",
    "emulated",
    "emulation_summary",
    "session_card",
    "sensitivity",
    "error_units",
    "config",
    "slug",
    "answer",
    "check",
]
