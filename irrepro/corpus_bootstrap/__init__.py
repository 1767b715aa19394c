"""Corpus-bootstrap confidence intervals for AP and MAP (Cormack & Lynam, SIGIR 2006).

The corpus is one sample from a population of similar corpora (section 5): every document is
replicated ``k ~ Poisson(1)`` times, copies ranked where the original was. As AP depends on the
non-relevant documents only through how many precede each relevant one, a sample of a list is drawn
exactly by one Poisson count per gap and per block of relevant documents (our derivation, the
paper's distribution); a compiled kernel draws all B samples of a list in one pass.

Our conventions (the paper states none): relevance is ``grade >= rel`` (default 1) and unjudged
documents are non-relevant; a sample with ``R* = 0`` has no AP (NaN, left out); a list is usable
when it retrieved a document and its topic has R > 0; logit intervals clip AP to
``[EPS, 1 - EPS]``; the split puts a document in half A when the lowest bit of the MD5 of its id is 0;
BCa's acceleration is the jackknife over documents; the small-R limits (section 7) put silver bullets
and lead balloons at uniformly random ranks of ``max(length, R)``.
"""

from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from .differences import difference_intervals
from .intervals import (  # noqa: F401  (METHODS, Intervals and the parts: the tests' and the report's)
    METHODS,
    Intervals,
    ap_acceleration,
    intervals_from_replicates,
    run_means,
    small_r_correct,
)
from .sampler import Lists, bootstrap_ap, compact_lists  # noqa: F401  (Lists: the report's)
from .validation import FullCorpus, full_corpus, predicted_in_interval, split_corpus, split_validation  # noqa: F401

__all__ = [
    "compact_lists",
    "bootstrap_ap",
    "intervals_from_replicates",
    "run_means",
    "predicted_in_interval",
    "split_corpus",
    "split_validation",
    "full_corpus",
    "difference_intervals",
]
