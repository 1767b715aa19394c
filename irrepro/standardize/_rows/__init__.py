"""The score-standardization chapter's rows for :func:`irrepro.book.compare` (Webber, Moffat & Zobel 2008)."""

from ._figures import (
    figure2_rows,
    figure3_rows,
    figure4_rows,
    power_ratio,
    power_rows,
    table1_rows,
    table2_rows,
)
from ._halves import (
    beyond_counts,
    figure7_rows,
    figures56_rows,
    fp_upper_ends,
    pair_table,
    table6_rows,
    tables35_rows,
    verdict_rows,
)

__all__ = [
    "figure2_rows",
    "table1_rows",
    "figure3_rows",
    "table2_rows",
    "figure4_rows",
    "power_ratio",
    "power_rows",
    "fp_upper_ends",
    "figures56_rows",
    "pair_table",
    "beyond_counts",
    "tables35_rows",
    "figure7_rows",
    "table6_rows",
    "verdict_rows",
]
