"""The Sakai (2006) chapter's rows for the book's one rule, each with its sampling error and the Monte
Carlo error of the bootstrap (the sd over five seeds)."""

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
