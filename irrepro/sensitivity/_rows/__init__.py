"""The Sakai (2006) chapter's rows for the book's one rule: the paper's procedure on a judged run
set (:func:`paper_procedure`, a :class:`Round`) and the rows of each of its tables and figures
beside the paper's (:func:`fig78_rows`, :func:`table2_rows`, :func:`fig10_rows`,
:func:`table3_rows`, :func:`fig1213_rows`, :func:`verdict_rows`), built with the typed builders of
:mod:`irrepro.book`, each with its two errors: the sampling error of what was sampled (the system
pairs of a share over pairs, the topics of Kendall's tau) and the Monte Carlo error of the
bootstrap (the sd over the chapter's five seeds).
"""

from __future__ import annotations

from ._study import (
    MEASURES,
    paper_procedure,
    resolved_pvalues,
    top_runs,
)
from ._tables import (
    fig10_rows,
    fig78_rows,
    fig1213_rows,
    stability_order,
    table2_rows,
    table3_rows,
    tau_table,
)
from ._verdict import (
    agree_rows,
    holm_rows,
    mc_table,
    rank_range,
    ranks,
    rerun,
    verdict_rows,
    web_rows,
)

__all__ = [
    "MEASURES",
    "top_runs",
    "paper_procedure",
    "resolved_pvalues",
    "stability_order",
    "mc_table",
    "tau_table",
    "ranks",
    "rank_range",
    "rerun",
    "fig78_rows",
    "table2_rows",
    "fig10_rows",
    "table3_rows",
    "fig1213_rows",
    "agree_rows",
    "verdict_rows",
    "holm_rows",
    "web_rows",
]
