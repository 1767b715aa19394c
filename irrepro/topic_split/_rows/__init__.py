"""The Sanderson & Zobel (2005) chapter's rows for :func:`irrepro.book.compare`: the swap experiments'
thresholds, projections and rates with their Monte Carlo error (:class:`SplitRows`), and the rows on
the full topic sets (significant pairs, pools, the sd of MAP)."""

from ._full import half_claim_row, pool_rows, sd_rows, share_rows
from ._splits import PAPER_REPETITIONS, SplitRows, pct, rise

__all__ = [
    "PAPER_REPETITIONS",
    "SplitRows",
    "pct",
    "rise",
    "half_claim_row",
    "pool_rows",
    "sd_rows",
    "share_rows",
]
