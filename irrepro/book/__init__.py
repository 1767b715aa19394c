"""Helpers for the book's pages: data banners, the papers' numbers, paper-vs-ours tables, the scorecard.

The numbers a chapter prints as the paper's are data, not code: one file per paper,
``book/papers/<bibkey>.yml``. A chapter prints each beside ours with :func:`compare`, so that the
chapters and any page gathering their numbers cannot disagree. Every compared row gets a status
(:data:`STATUSES`) and a reason from one rule, :func:`judge` (``irrepro._rule``, below the method
families, which judge their rows with it too): an equivalence test of our number,
with its errors, against the paper's printed value widened by the margin of the row's kind
(``book/margins.yml``; the page ``book/rule.md`` shows them). A claim in words rests on rows
(``supports``); a row restating another (``same_as``) takes its status and is counted once; rows
rerun under a paper's conditions emulated on our data are counted both ways. A chapter reads its
environment once, by :func:`config`, and passes it down.
"""

from __future__ import annotations

from .._rule import combine, judge, spread_notes, verdict  # noqa: F401  (combine, spread_notes, verdict: the families' rows)
from .._rule._margins import margins
from .._rule._reading import PaperValue  # noqa: F401  (the families' rows)
from .._rule._statuses import INCONCLUSIVE, NOT_COMPARABLE, NOT_REPLICATED, PARTLY, REPLICATED, STATUSES  # noqa: F401
from .._text import slug  # the file names of the recorded results (also irrepro.book.slug)
from ._config import config
from ._display import collections_table, data_banner, status_table, table, with_error
from ._exercises import answer, check
from ._headline import headline_table
from ._pages import aside
from ._papers import PAPERS, STUDIES, paper_numbers
from ._prose import STATUS_WORDS, verdict_text
from ._rows import Errors, claim, correlation, count, errors, ordering, rate, score, share  # noqa: F401
from ._scorecard import (
    LABELS,
    conditions,
    emulated,
    emulation_summary,
    header,
    label,
    scorecard,
    session_card,
    summary,
)
from ._sensitivity import error_units, judged_on, sensitivity
from ._tables import Comparison, compare, ordering_status  # noqa: F401

# imported but not in __all__ (noqa: F401): the row builders and helpers the method families' rows
# reach as ``book.<name>`` (Errors, share, rate, score, correlation, claim, Comparison,
# ordering_status, PaperValue, verdict, combine, spread_notes, the five statuses by name; the
# page and the chapters use STATUSES)

__all__ = [
    "data_banner",
    "aside",
    "compare",
    "errors",
    "count",
    "ordering",
    "collections_table",
    "scorecard",
    "summary",
    "judge",
    "margins",
    "label",
    "header",
    "headline_table",
    "paper_numbers",
    "status_table",
    "table",
    "with_error",
    "STATUSES",
    "STATUS_WORDS",
    "verdict_text",
    "PAPERS",
    "STUDIES",
    "LABELS",
    "conditions",
    "emulated",
    "emulation_summary",
    "session_card",
    "judged_on",
    "sensitivity",
    "error_units",
    "config",
    "slug",
    "answer",
    "check",
]
