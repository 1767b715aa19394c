"""The Sanderson & Zobel (2005) chapter's rows for :func:`irrepro.book.compare`."""

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
