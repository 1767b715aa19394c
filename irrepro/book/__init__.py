"""Helpers for the book's pages: data banners, the papers' numbers, paper-vs-ours tables, the scorecard.

The numbers a chapter prints as the paper's are data, not code: one file per paper,
``book/papers/<bibkey>.yml``. A chapter prints each beside ours with :func:`compare`, so that the
chapters and any page gathering their numbers cannot disagree. Every compared row gets a status
(:data:`STATUSES`) and a reason from one rule, :func:`judge`: an equivalence test of our number,
with its errors, against the paper's printed value widened by the margin of the row's kind
(``book/margins.yml``; the page ``book/rule.md`` shows them). A claim in words rests on rows
(``supports``); a row restating another (``same_as``) takes its status and is counted once; rows
rerun under a paper's conditions emulated on our data are counted both ways. A chapter reads its
environment once, by :func:`config`, and passes it down.
"""

from __future__ import annotations

from .._text import slug  # the file names of the recorded results (also irrepro.book.slug)
from ._config import BookConfig, config
from ._display import collections_table, data_banner, status_badge, status_table, table, with_error
from ._exercises import answer, check
from ._headline import Headline, headline, headline_table
from ._margins import KINDS, Margins, margins
from ._pages import aside
from ._papers import BOOK_ENV, PAPERS, STUDIES, PaperNumbers, PaperValue, book_dir, paper_numbers
from ._prose import STATUS_WORDS, verdict_text
from ._reasons import reason_kind
from ._rows import Errors, claim, correlation, count, errors, ordering, rate, score, share
from ._rule import judge, judge_row, spread_notes
from ._scorecard import (
    LABELS,
    MOVES,
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
from ._statuses import (
    INCONCLUSIVE,
    NOT_COMPARABLE,
    NOT_REPLICATED,
    PARTLY,
    REPLICATED,
    STATUSES,
    Judgement,
    combine,
    verdict,
)
from ._tables import Comparison, RowRef, below_in_above, compare, ordering_status

__all__ = [
    "data_banner",
    "aside",
    "compare",
    "errors",
    "Errors",
    "share",
    "rate",
    "score",
    "correlation",
    "ordering",
    "count",
    "claim",
    "Comparison",
    "RowRef",
    "collections_table",
    "scorecard",
    "summary",
    "verdict",
    "judge",
    "label",
    "header",
    "headline",
    "headline_table",
    "Headline",
    "paper_numbers",
    "PaperNumbers",
    "PaperValue",
    "status_badge",
    "status_table",
    "table",
    "below_in_above",
    "ordering_status",
    "STATUSES",
    "PAPERS",
    "STUDIES",
    "LABELS",
    "conditions",
    "emulated",
    "emulation_summary",
    "judged_on",
    "sensitivity",
    "error_units",
    "MOVES",
    "judge_row",
    "spread_notes",
    "config",
    "BookConfig",
    # served here too: the chapters', the tests' and the Sphinx extension's
    "slug",
    "BOOK_ENV",
    "book_dir",
    "REPLICATED",
    "PARTLY",
    "NOT_REPLICATED",
    "NOT_COMPARABLE",
    "session_card",
    "INCONCLUSIVE",
    "KINDS",
    "Judgement",
    "Margins",
    "margins",
    "with_error",
    "verdict_text",
    "answer",
    "check",
    "STATUS_WORDS",
    "combine",
    "reason_kind",
]
