"""The package's figures, one function per kind of plot (the method modules import no matplotlib).

Every function draws on the ``ax`` (or ``axes``) it is given, or on a new figure when it is None,
and returns it; texts are drawn literally, long names shortened and kept apart. One style: Okabe &
Ito's colour-blind-safe palette, fonts read at 9 pt or more in the book's column, legends beside or
below the axes; set for each call and then restored.
"""

from __future__ import annotations

from ._base import panels, series_colors
from .corpus_bootstrap import plot_normalized_differences, plot_run_intervals, plot_topic_differences
from .design import plot_power_curve, plot_reliability, save_power_curve
from .known_truth import (
    plot_coverage,
    plot_margin,
    plot_rate_panels,
    plot_relevant_per_topic,
    plot_which_balance,
    plot_which_rates,
)
from .reproduce import plot_reproduction
from .sensitivity import (
    plot_asl_curves,  # noqa: F401  (the report's)
    plot_asl_panels,
    plot_lower_triangle,
    plot_significance_matrix,  # noqa: F401  (the report's)
    plot_stability,
)
from .standardize import (
    plot_false_positives,  # noqa: F401  (the report's)
    plot_grouped_bars,
    plot_mean_intervals,
    plot_partition_summaries,
    plot_percentile_curves,
    plot_scatter,  # noqa: F401  (the report's)
    plot_score_histogram,
    plot_score_matrix,
)
from .topic_split import (
    plot_dependence,
    plot_error_rates,
    plot_error_rates_by_effort,
    plot_map_sd,
)

__all__ = [
    "panels",
    "series_colors",
    "plot_run_intervals",
    "plot_error_rates",
    "plot_score_matrix",
    "plot_relevant_per_topic",
    "plot_margin",
    "plot_rate_panels",
    "plot_which_rates",
    "plot_which_balance",
    "plot_coverage",
    "plot_normalized_differences",
    "plot_topic_differences",
    "plot_asl_panels",
    "plot_stability",
    "plot_error_rates_by_effort",
    "plot_map_sd",
    "plot_dependence",
    "plot_lower_triangle",
    "plot_mean_intervals",
    "plot_score_histogram",
    "plot_percentile_curves",
    "plot_partition_summaries",
    "plot_grouped_bars",
    "plot_power_curve",
    "plot_reliability",
    "plot_reproduction",
    "save_power_curve",
]
