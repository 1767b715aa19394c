"""Corpus-bootstrap confidence intervals for AP and MAP (Cormack & Lynam, SIGIR 2006).

The test corpus is treated as one sample from an infinite population of "materially similar"
corpora (paper section 5). Resampling the corpus with replacement, in the limit of a corpus much
larger than the ranked list, replicates every document ``k ~ Poisson(1)`` times; copies of a
retrieved document are ranked consecutively where the original was, and the unretrieved relevant
documents are replicated the same way, so ``R* = R_ret* + R_not*`` (section 5, "The bootstrap").

**How it is computed (our own derivation, same distribution as the paper's model).** AP depends on
the non-relevant documents only through how many of them precede each relevant one. The sum of
``g`` independent Poisson(1) multiplicities is Poisson(g), so a bootstrap sample of a list is
drawn exactly by one Poisson(g_j) count per gap of ``g_j`` non-relevant documents above the
``j``-th block of consecutive relevant documents, one Poisson(r_j) count of copies for a block of
``r_j`` relevant documents (their copies are consecutive hits however they are shared out), and
``R_not* ~ Poisson(R_not)``; AP* then follows from cumulative counts over the blocks. The cost
per list scales with its number of retrieved relevant documents, not its length; a compiled
kernel (numba) draws and sums all B samples of a list in one pass, bit for bit the numbers of the
numpy functions it stands for. The tests and the benchmark compare it with the literal
expand-the-list implementation (``sampler.bootstrap_ap_reference``).

**Conventions we chose (the paper does not state them).**

- Relevance is ``grade >= rel`` (default 1: TREC-COVID's "partially relevant" counts).
  Retrieved unjudged documents are non-relevant (trec_eval).
- A bootstrap sample with ``R* = 0`` (no relevant document in the resampled corpus) has no AP:
  it is ``NaN`` and every statistic uses the samples that have one (the bootstrap conditioned on
  ``R* > 0``, as TREC only keeps topics with relevant documents). It matters only for R <= 5.
- A list is *usable* when it retrieved at least one document and its topic has R > 0; the
  paper's "non-empty lists". Unusable lists get NaN everywhere.
- logit intervals replace AP = 0 and 1 by ``eps`` and ``1 - eps`` (``EPS = 1e-3``,
  :data:`irrepro.stats.EPS`).
- The split (section 6): a document is in half A when the lowest bit of the MD5 digest of its
  UTF-8 id is 0; "R > 5" (Table 1) is R of the half the interval is computed from.
- Small-R limits (section 7): silver bullets and lead balloons land at uniformly random ranks of a
  list of ``max(length, R)`` ranks; lead balloons (our reading of "a similar dynamic approach"):
  the R relevant documents lead the list and a binomial share of them land at random ranks
  below; MAP's parametric weight ``AP - AP^2`` is applied by the delta method.
- BCa's acceleration is the jackknife over *documents* (leave one document of the corpus out),
  in the infinite-corpus limit the Poisson bootstrap itself assumes: see :func:`ap_acceleration`.

Generic statistics (BCa, logit, meta-analysis) are in :mod:`irrepro.stats`.
"""

from ..stats import EPS
from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from .differences import difference_intervals
from .intervals import METHODS, Intervals, ap_acceleration, intervals_from_replicates, small_r_correct  # noqa: F401
from .lists import Lists, compact_lists  # noqa: F401  (Lists: the report's)
from .maps import run_means
from .sampler import bootstrap_ap
from .validation import (  # noqa: F401  (FullCorpus: the report's)
    FullCorpus,
    full_corpus,
    mean_in_interval,
    miss_ratio,
    position,
    predicted_in_interval,
    split_corpus,
    split_validation,
)

__all__ = [
    "EPS",
    "compact_lists",
    "bootstrap_ap",
    "intervals_from_replicates",
    "run_means",
    "predicted_in_interval",
    "split_corpus",
    "position",
    "split_validation",
    "full_corpus",
    "miss_ratio",
    "mean_in_interval",
    "difference_intervals",
]
