"""The known-truth chapter's rows and tables beside Urbano et al.'s (2019), in one place: ``kt.rows``."""

from ._design import design_table
from ._rows import (
    comparison_rows,
    mc_check,
    method_table,
    rates_at,
    status_counts,
    their_by_delta,
    their_type1,
    verdict_rows,
    with_z,
)

__all__ = [
    "comparison_rows",
    "with_z",
    "status_counts",
    "verdict_rows",
    "their_type1",
    "their_by_delta",
    "mc_check",
    "design_table",
    "method_table",
    "rates_at",
]
