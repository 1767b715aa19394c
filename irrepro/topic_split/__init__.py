"""Topic-split reliability of effectiveness differences and significance tests: Sanderson & Zobel
(2005), after Voorhees & Buckley (2002).

Score matrices are ``(systems, topics)``; ``B`` is the number of random draws of topic sets (the
paper's 50 repetitions per size, 10 samples for the sd of MAP).
"""

from __future__ import annotations

from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from ._sets import full_set_tests, map_sd, pool_sizes, significant_share
from ._swap import FILTERS, GrowthFit, SwapExperiment, drop_bottom, growth_fit, swap_experiment  # noqa: F401  (FILTERS: the filters by name)

__all__ = [
    "swap_experiment",
    "SwapExperiment",
    "growth_fit",
    "GrowthFit",
    "drop_bottom",
    "full_set_tests",
    "significant_share",
    "pool_sizes",
    "map_sd",
]
