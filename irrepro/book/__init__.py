"""Helpers for the book's pages: data banners, the papers' numbers, paper-vs-ours tables, the scorecard.

Every chapter shows where its data came from with :func:`data_banner` (a warning box carrying the
CSS class ``simulated-data`` when any of it is the simulated stand-in, a plain note otherwise).
The numbers a chapter prints as the paper's are data, not code: one file per paper,
``book/papers/<bibkey>.yml``, read by :func:`paper_numbers` (each entry with the paper's table or
figure, row, column, value and section). A chapter prints each of them beside ours with
:func:`compare`, so that the chapters and any page that gathers their numbers cannot disagree.
Every compared row gets a status (:data:`STATUSES`: replicated, partly, inconclusive, not
replicated, not comparable) and a reason from one rule, :func:`judge`: an equivalence test of our
number, with its Monte Carlo error (``ours_se``), against the paper's printed value widened by the
margin of the row's kind (:data:`KINDS`; :func:`margins` reads them from ``book/margins.yml``, the
page ``book/rule.md`` shows them). A claim in words (kind ``"claim"``) rests on rows
(``supports``): it takes their combined status, or a :func:`verdict` the chapter computes from
them; a row restating another row (``same_as``) takes its status and is counted once. Tables show
ours with its error to the paper's printed precision (:func:`with_error`) and the status as a
badge (:func:`status_badge`) with the reason on hover and its kind (:func:`reason_kind`) in one
numbered legend under the table; :func:`verdict_text` renders a chapter's verdict sentences from
the statuses (:data:`STATUS_WORDS`). :func:`scorecard` gathers the rows of all chapters,
:func:`summary` counts the statuses of the papers' claims, :func:`label` turns the counts into
ReScience C's verdict label and :func:`header` opens a chapter with the paper's reference, its
question, data, headline finding and time to rerun (:func:`headline`, gathered for the introduction
by :func:`headline_table`), its counts and label.
Rows rerun under the papers' own conditions emulated on our data (``compare(..., emulates=...,
condition=...)``) are counted both ways: :func:`summary` with a ``condition``,
:func:`emulated` and :func:`emulation_summary`. A chapter beyond the papers (:data:`STUDIES`)
gets a header with the study it compares with and no label.

A chapter reads its environment once, by :func:`config` (the scale, the workers and the results
directory of ``IRREPRO_SCALE``, ``IRREPRO_JOBS`` and ``IRREPRO_RESULTS``), and passes them down.

The package's book machinery, by family: :mod:`~irrepro.book._config` (:func:`config`),
:mod:`~irrepro.book._rule` (the statuses and
:func:`judge`), :mod:`~irrepro.book._reasons` (the kinds of its reasons, for a table's legend),
:mod:`~irrepro.book._margins` (the margins per kind), :mod:`~irrepro.book._reading`
(the papers' printed numbers read once), :mod:`~irrepro.book._prose` (verdict sentences),
:mod:`~irrepro.book._papers` (the papers' numbers), :mod:`~irrepro.book._tables`
(comparison tables), :mod:`~irrepro.book._rows` (the rows by kind, with their two errors:
:func:`errors`, :func:`share`, :func:`rate`, :func:`score`, :func:`correlation`, :func:`ordering`,
:func:`count`, :func:`claim`), :mod:`~irrepro.book._display` (banners, status badges, tables and ours as
shown), :mod:`~irrepro.book._scorecard` (scorecard, labels, chapter headers),
:mod:`~irrepro.book._headline` (the chapters' headlines) and :mod:`~irrepro.book._exercises` (the
exercises' answers and check cells: :func:`answer`, :func:`check`); everything public is served
here.
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
