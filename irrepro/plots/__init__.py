"""The package's figures, one function per kind of plot (the method modules import no matplotlib).

Every function draws on a matplotlib ``ax`` it is given (or a new one when ``ax`` is None, for the
functions that can make their own) and returns it, so that a chapter or :mod:`irrepro.report`
composes figures from them. Every text a function is given - a run, topic, measure or collection
name, a title or axis label - is drawn literally, never as mathtext (:func:`irrepro.escape.mpl`),
and names longer than :data:`irrepro.escape.MAX_NAME` characters are shortened, the names of one
figure kept apart (:func:`irrepro.escape.short_names`; the tables beside a figure hold the full
names):

- :func:`plot_run_intervals` - every run's estimate with its interval, runs sorted, the other
  half's values inside and outside marked apart, in small multiples by rank (Cormack & Lynam's
  Figures 3 and 4);
- :func:`plot_error_rates` - error rate against topic-set size per difference bin, with the
  GROWTH projection (Sanderson & Zobel's Figures 1-6 and 9-12);
- :func:`plot_asl_curves` - sorted achieved significance levels (Sakai's Figures 7 and 8);
- :func:`plot_significance_matrix` - which pairs of systems differ significantly, and in which
  direction;
- :func:`plot_score_matrix` - a (systems, topics) score matrix as a heat map, both sorted by mean;
- :func:`plot_scatter` - one score per system against another (e.g. raw vs standardized means);
- :func:`plot_false_positives` - the share of systems found different from themselves over random
  topic halves (Webber, Moffat & Zobel's section 5);
- :func:`plot_relevant_per_topic` - the numbers of relevant documents per topic of several
  collections (or of emulated qrels, :mod:`irrepro.data.emulate`), each ranked.
- :func:`plot_margin`, :func:`plot_rates_by_alpha`, :func:`plot_power_by_delta`,
  :func:`plot_coverage` - the simulator's fitted margins, type I error and power of the paired tests
  beside Urbano, Lima & Hanjalic's (2019), and the coverage of corpus-bootstrap intervals
  (the "Against a known truth" chapter: :mod:`irrepro.simulation`, :mod:`irrepro.known_truth`);
- the chapters' other figures: :func:`plot_normalized_differences`, :func:`plot_topic_differences`
  (Cormack & Lynam), :func:`plot_asl_panels`, :func:`plot_stability`, :func:`plot_lower_triangle` (Sakai),
  :func:`plot_pooled_error_rates`, :func:`plot_error_rates_by_effort`, :func:`plot_map_sd`,
  :func:`plot_dependence` (Sanderson & Zobel), :func:`plot_mean_intervals`,
  :func:`plot_score_histogram`, :func:`plot_percentile_curves`, :func:`plot_partition_summaries`,
  :func:`plot_grouped_bars` (Webber, Moffat & Zobel);
- :func:`plot_power_curve` - simulated power against the number of topics beside the closed form
  (:mod:`irrepro.design`), :func:`save_power_curve` - the same written to a file (``irrepro design``),
  :func:`plot_reliability` - generalizability theory's E rho^2 and Phi against the number of topics;
- :func:`plot_reproduction` - a reproduction's effect ratio, Delta RI and p-values with their
  intervals (:mod:`irrepro.reproduce`).

Every figure is drawn in one style (``irrepro.plots._base``): Okabe & Ito's colour-blind-safe
:data:`PALETTE` with a distinct colour per series of an axes (:func:`series_colors`; the known-truth
tests keep theirs in :data:`TEST_STYLE`), fonts read at 9 pt or more at the width the book's column
shows the image, legends beside or below the axes, never over the data, axis ranges from the data.
The style is set for the time of each call and then restored: importing or calling this package
leaves matplotlib's global settings as they were. :func:`panels` lays out a figure of several
axes at the column's width for a chapter to pass to the functions panel by panel.

The functions live in one module per family (``irrepro.plots.corpus_bootstrap``, ``topic_split``,
``bootstrap_tests``, ``standardize``, ``known_truth``, ``design``, ``reproduce``); every one is served
from here.
"""

from __future__ import annotations

from ._base import PALETTE, TEST_STYLE, panels, series_colors
from .bootstrap_tests import (
    plot_asl_curves,
    plot_asl_panels,
    plot_lower_triangle,
    plot_significance_matrix,
    plot_stability,
)
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
    "PALETTE",
    "TEST_STYLE",
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
