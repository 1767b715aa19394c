"""Sakai (2006), "Evaluating evaluation metrics based on the bootstrap" (SIGIR 2006): the
bootstrap-based ways of comparing the *sensitivity* of evaluation measures.

Every function takes a ``(systems, topics)`` score matrix (a :class:`~irrepro.data.ScoreMatrix` or
a 2-d array) and works on **all pairs of systems at once**. The topic samples are drawn once, as a
``(B, topics)`` matrix of topic indices (:func:`bootstrap_samples`, the paper's Figure 1), and
shared by every pair, measure and method, as in the paper (section 3.5). Because the samples are
drawn before any work is split, results are identical with any number of workers.

What the paper defines (its section numbers):

- the tests are :mod:`irrepro.significance`'s: :func:`~irrepro.significance.paired_bootstrap_test`
  (3.1, Figures 1-2; on ``log(x + 0.00001)`` the ``AG_`` forms) and
  :func:`~irrepro.significance.unpaired_bootstrap_test` (3.2, Figures 3-4);
- :meth:`~irrepro.significance.BootstrapResult.discriminative_power`,
  :meth:`~irrepro.significance.BootstrapResult.asl_curve`,
  :meth:`~irrepro.significance.BootstrapResult.required_difference` and :func:`sensitivity`
  (3.3, Figures 5-8, Table 2);
- :func:`stability` - minority rate and proportion of ties over fuzziness values (3.5, Figures
  9-10); the swap method on two independent sets of samples, :class:`SwapRates` (3.5, Figure 11,
  Table 3);
- :func:`rank_correlation` - Kendall's tau between the rankings by two measures, its bootstrap
  standard error and the Z0 test (4, Figures 12-13);
- :func:`measure_study` - all of the above for several measures on shared samples.

Beyond the paper: :func:`comparisons` - one :class:`BootstrapComparison` per pair (difference,
ASL, effect size, percentile interval, adjusted ASL).

``rows`` holds the chapter's rows for the book's rule (the paper's procedure on a run set and its
tables beside the paper's, with their sampling and Monte Carlo errors).
"""

from ..significance._samples import all_pairs, baseline_pairs, bootstrap_samples
from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from .pairwise import sensitivity
from .per_comparison import BootstrapComparison, comparisons
from .rank import RankCorrelation, rank_correlation
from .stability_swap import Stability, SwapRates, minority_rate_at, stability
from .study import MeasureStudy, measure_study

__all__ = [
    "bootstrap_samples",
    "all_pairs",
    "baseline_pairs",
    "sensitivity",
    "Stability",
    "stability",
    "minority_rate_at",
    "SwapRates",
    "RankCorrelation",
    "rank_correlation",
    "BootstrapComparison",
    "comparisons",
    "MeasureStudy",
    "measure_study",
]
