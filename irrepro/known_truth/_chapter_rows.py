"""The known-truth chapter's rows and tables beside Urbano et al.'s (2019), in one place: ``kt.rows``."""

from ._design import design_table
from ._figures import mc_check, their_by_delta, their_type1
from ._methods import method_table
from ._rows import comparison_rows, status_counts, verdict_rows, with_z

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
]
