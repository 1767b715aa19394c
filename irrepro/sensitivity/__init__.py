"""Sakai (2006), "Evaluating evaluation metrics based on the bootstrap" (SIGIR 2006): the
bootstrap-based ways of comparing the *sensitivity* of evaluation measures.

Every function takes a ``(systems, topics)`` score matrix and works on all pairs of systems at
once. The topic samples are drawn once, as a ``(B, topics)`` matrix of topic indices (the paper's
Figure 1), and shared by every pair, measure and method (section 3.5), so results are identical
with any number of workers. The tests themselves are :mod:`irrepro.significance`'s.
"""

from ..significance._samples import all_pairs, baseline_pairs, bootstrap_samples  # noqa: F401  (pairs: the report's)
from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from .per_comparison import comparisons
from .study import measure_study, sensitivity, stability

__all__ = [
    "bootstrap_samples",
    "sensitivity",
    "comparisons",
    "measure_study",
    "stability",
]
