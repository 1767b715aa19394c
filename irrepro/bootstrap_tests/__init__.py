"""Bootstrap hypothesis tests for comparing IR systems, and the bootstrap-based ways of comparing
the *sensitivity* of evaluation measures, after Sakai (2006), "Evaluating evaluation metrics based
on the bootstrap" (SIGIR 2006).

Every function works on a systems x topics score matrix (a :class:`~irrepro.data.ScoreMatrix` or a
2-d array) and tests **all pairs of systems at once**. The topic samples are drawn once, as a
``(B, n)`` matrix of topic indices (:func:`bootstrap_samples`, the paper's Figure 1), and shared by
every pair, every measure and every method, as in the paper (section 3.5 reuses the paired test's
samples for the stability and swap methods). A bootstrap sample enters the arithmetic-mean
computations only through how many times it drew each topic, so the B replicates of all pairs are
one matrix product ``(pairs x n) @ (n x B)``; other summaries gather ``pairs x B x n`` arrays in
chunks. Because the samples are drawn before any work is split, results are identical with any
number of workers.

What the paper defines (section numbers of Sakai 2006):

- the tests are :mod:`irrepro.significance`'s, the one home of every paired test:
  :func:`~irrepro.significance.paired_bootstrap_test` - the paired test with the studentised
  statistic (3.1, Figures 1-2); on ``log(x + 0.00001)`` it tests the ``AG_`` forms that stand for the
  geometric means (3.1, end); :func:`~irrepro.significance.unpaired_bootstrap_test` - the unpaired
  test for any summary: arithmetic mean, geometric mean or a user function (3.2, Figures 3-4).
- :meth:`~irrepro.significance.BootstrapResult.discriminative_power`, :meth:`~irrepro.significance.BootstrapResult.asl_curve` and
  :meth:`~irrepro.significance.BootstrapResult.required_difference` (3.3, Figures 5-8 and Table 2); :func:`sensitivity`
  (Table 2).
- :func:`stability` - minority rate / proportion of ties over fuzziness values (3.5, Figures 9-10).
- :func:`swap_rates` - the swap method on two independent sets of bootstrap samples (3.5,
  Figure 11, Table 3), giving :class:`SwapRates`.
- :func:`rank_correlation` - Kendall's tau (:func:`irrepro.stats.kendall_tau`) between the system
  rankings by two measures, its bootstrap standard error and the Z0 normal test (4, Figures
  12-13).
- :func:`measure_study` - all of the above for several measures of the same runs, on shared
  samples (Tables 2 and 3, Figures 7-13 in one call).

Beyond the paper (clearly not in it): :func:`comparisons` turns a test into one
:class:`BootstrapComparison` per pair of systems carrying the difference, the ASL, an effect size,
a percentile bootstrap confidence interval and the ASL adjusted for multiple comparisons (Holm or
Benjamini-Hochberg, :func:`irrepro.stats.adjust_pvalues`).

Shapes: scores are ``(systems, topics)``, topic samples ``(B, topics)`` (row b is the sample
Q*b), summaries on the samples ``(systems, B)`` and replicates of the pairs ``(pairs, B)``.

**Modules** (everything is re-exported here, so ``bt.stability`` is the call):
:mod:`~irrepro.significance._samples` (samples, pairs, summaries),
:mod:`~irrepro.bootstrap_tests.pairwise` (discriminative power),
:mod:`~irrepro.bootstrap_tests.stability_swap` (stability and swap methods),
:mod:`~irrepro.bootstrap_tests.rank` (rank correlations),
:mod:`~irrepro.bootstrap_tests.per_comparison` (per-comparison results) and
:mod:`~irrepro.bootstrap_tests.study` (everything for several measures) and
:mod:`~irrepro.bootstrap_tests._rows` (served as ``rows``: the paper's procedure on a run set and
the chapter's rows beside the paper's, with their sampling and Monte Carlo errors).
"""

from ..measures import GM_EPSILON
from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from .pairwise import sensitivity
from .per_comparison import BootstrapComparison, comparisons
from .rank import RankCorrelation, rank_correlation, tau_threshold
from .samples import all_pairs, baseline_pairs, bootstrap_samples, bootstrap_summaries, log_scores
from .stability_swap import Stability, SwapRates, minority_rate_at, stability, swap_rates
from .study import MeasureStudy, geometric_consistent, measure_study, swaps_below_required

__all__ = [
    "GM_EPSILON",
    "bootstrap_samples",
    "all_pairs",
    "baseline_pairs",
    "log_scores",
    "bootstrap_summaries",
    "sensitivity",
    "Stability",
    "stability",
    "minority_rate_at",
    "SwapRates",
    "swap_rates",
    "RankCorrelation",
    "rank_correlation",
    "BootstrapComparison",
    "comparisons",
    "MeasureStudy",
    "measure_study",
    "geometric_consistent",
    "swaps_below_required",
    "tau_threshold",
]
