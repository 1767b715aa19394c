"""Score standardization and inter-collection comparability (Webber, Moffat & Zobel 2008).

Standardization (section 3) rescales every topic by the mean and sd of a set of *standardizing
systems*' scores on it, ``z_st = (m_st - mu_t) / sigma_t``, and maps z through the normal CDF into
[0, 1]. Comparability (section 5) is measured with the sd-normalized RMSE of system means (dRMSE)
and with the systems a two-sample t-test finds different from themselves, on collection pairs and
random topic halves.

Interpretations (the paper does not say): sample sds (``ddof=1``) throughout - only ``ddof=1``
reproduces the paper's dRMSE of 1.857 for TREC 7 vs TREC 2003 (``ddof=0`` gives 1.866); a topic
with sd 0 over the standardizing systems gives every system z = 0 (:func:`standardize`); the two-sample
t-test is Student's equal-variance test, two-sided.
"""

from __future__ import annotations

from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from ._comparability import (  # noqa: F401  (PartitionResult: the report's; self_significance: known_truth's)
    PartitionResult,
    compare_collections,
    default_partitions,
    discriminative_power,
    drmse,
    item_total_correlation,
    mean_intervals,
    partition_experiment,
    percentile_items,
    rank_agreement,
    sampled_standardizers,
    self_significance,
)
from ._scores import (
    SUBCOLLECTIONS,
    Factors,
    factors,
    ideal_score,
    r_normalize,
    read_zscores,
    standardize,
    topic_range,
    write_zscores,
)

__all__ = [
    "Factors",
    "factors",
    "standardize",
    "r_normalize",
    "ideal_score",
    "topic_range",
    "SUBCOLLECTIONS",
    "mean_intervals",
    "percentile_items",
    "item_total_correlation",
    "drmse",
    "discriminative_power",
    "rank_agreement",
    "partition_experiment",
    "sampled_standardizers",
    "default_partitions",
    "compare_collections",
    "write_zscores",
    "read_zscores",
]
