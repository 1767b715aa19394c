"""The package's figures, one function per kind of plot (the method modules import no matplotlib).

Every function draws on a matplotlib ``ax`` it is given (or a new one when ``ax`` is None, for the
functions that can make their own) and returns it, so that a chapter or :mod:`irrepro.report`
composes figures from them. Every text a function is given - a run, topic, measure or collection
name, a title or axis label - is drawn literally, never as mathtext (:func:`irrepro.escape.mpl`),
and names longer than :data:`irrepro.escape.MAX_NAME` characters are shortened, the names of one
figure kept apart (:func:`irrepro.escape.short_names`; the tables beside a figure hold the full
names).

Every figure is drawn in one style (``irrepro.plots._base``): Okabe & Ito's colour-blind-safe
palette with a distinct colour per series of an axes (:func:`series_colors`), fonts read at 9 pt or
more at the width the book's column shows the image, legends beside or below the axes, never over
the data, axis ranges from the data. The style is set for the time of each call and then restored:
importing or calling this package leaves matplotlib's global settings as they were. :func:`panels`
lays out a figure of several axes at the column's width for a chapter to pass to the functions
panel by panel. The functions live in one module per method family.
"""

from __future__ import annotations

from ._base import panels, series_colors
from .corpus_bootstrap import plot_normalized_differences, plot_run_intervals, plot_topic_differences
from .design import plot_power_curve, plot_reliability, save_power_curve
from .known_truth import (
    plot_coverage,
    plot_margin,
    plot_power_by_delta,
    plot_rates_by_alpha,
    plot_relevant_per_topic,
)
from .reproduce import plot_reproduction
from .sensitivity import (
    plot_asl_curves,
    plot_asl_panels,
    plot_lower_triangle,
    plot_significance_matrix,
    plot_stability,
)
from .standardize import (
    plot_false_positives,
    plot_grouped_bars,
    plot_mean_intervals,
    plot_partition_summaries,
    plot_percentile_curves,
    plot_scatter,
    plot_score_histogram,
    plot_score_matrix,
)
from .topic_split import (
    plot_dependence,
    plot_error_rates,
    plot_error_rates_by_effort,
    plot_map_sd,
    plot_pooled_error_rates,
)

__all__ = [
    "panels",
    "series_colors",
    "plot_run_intervals",
    "plot_error_rates",
    "plot_asl_curves",
    "plot_significance_matrix",
    "plot_score_matrix",
    "plot_scatter",
    "plot_false_positives",
    "plot_relevant_per_topic",
    "plot_margin",
    "plot_rates_by_alpha",
    "plot_power_by_delta",
    "plot_coverage",
    "plot_normalized_differences",
    "plot_topic_differences",
    "plot_asl_panels",
    "plot_stability",
    "plot_pooled_error_rates",
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
