"""Score standardization and inter-collection comparability (Webber, Moffat & Zobel 2008).

A score matrix ``M`` holds one score per system (row) and topic (column). Standardization
(section 3 of the paper) rescales every topic by the mean and standard deviation of the scores a
set of *standardizing systems* achieved on it,

    z_st = (m_st - mu_t) / sigma_t,        standardized score = Phi(z_st),

so that each topic has mean 0 and sd 1 over the standardizing systems, and the normal CDF maps the
result into [0, 1]. Factors (``mu_t``, ``sigma_t``) can be published with a collection and applied
to any later system (:class:`Factors`), also in the file format ``trec_eval -Z`` reads
(:func:`write_zscores`, :func:`read_zscores`).

Comparability between collections (section 5) is measured with the standard-deviation normalized
RMSE of system mean scores (:func:`drmse`) and with the number of systems found significantly
different from themselves by a two-sample t-test (:func:`self_significance`), both on observed
collection pairs and on random topic halves (:func:`partition_experiment`).

Interpretations (the paper does not say):

- **sd normalisation**: sample standard deviations (``ddof=1``) throughout - for the
  standardization factors (the standardizing systems are a sample of possible systems, and
  ``sigma_t`` estimates the population value) and for the system-score sd in dRMSE, where only
  ``ddof=1`` reproduces the paper's 1.857 for TREC 7 vs TREC 2003 (``ddof=0`` gives 1.866).
- **zero sd**: a topic on which every standardizing system scored the same (possible with very few
  standardizing systems) has that score as its mean and an sd of exactly 0, and carries no
  information on spread; its z-scores are set to 0 (every system "average", standardized score
  0.5), also for a system scoring otherwise, unless ``zero_sd="raise"`` (:func:`zscores` says
  why; ``trec_eval -Z`` gives such a system -1000000, its missing value: :func:`write_zscores`).
- **two-sample t-test**: Student's equal-variance test (scipy's default), two-sided.
"""

from __future__ import annotations

from ._collections import CollectionPair, compare_collections
from ._comparability import (
    discriminative_power,
    drmse,
    item_total_correlation,
    mean_intervals,
    percentile_items,
    rank_agreement,
    self_significance,
)
from ._partitions import (
    PartitionResult,
    SampledStandardizers,
    default_partitions,
    partition_experiment,
    sampled_standardizers,
)
from ._rows import (
    figure2_rows,
    figure3_rows,
    figure4_rows,
    power_ratio,
    power_rows,
    table1_rows,
    table2_rows,
)
from ._rows_halves import (
    beyond_counts,
    figure7_rows,
    figures56_rows,
    fp_upper_ends,
    pair_table,
    table6_rows,
    tables35_rows,
    verdict_rows,
)
from ._scores import (
    SUBCOLLECTIONS,
    Factors,
    factors,
    ideal_precision,
    ideal_rbp,
    r_normalize,
    standardize,
    topic_range,
    zscores,
)
from ._trec_eval import read_zscores, write_zscores

__all__ = [
    "Factors",
    "factors",
    "zscores",
    "standardize",
    "r_normalize",
    "ideal_precision",
    "mean_intervals",
    "percentile_items",
    "item_total_correlation",
    "drmse",
    "self_significance",
    "discriminative_power",
    "rank_agreement",
    "PartitionResult",
    "partition_experiment",
    "SampledStandardizers",
    "sampled_standardizers",
    "default_partitions",
    "SUBCOLLECTIONS",
    "ideal_rbp",
    "CollectionPair",
    "compare_collections",
    "topic_range",
    "write_zscores",
    "read_zscores",
    # the chapter's rows for the book's rule
    "figure2_rows",
    "table1_rows",
    "figure3_rows",
    "table2_rows",
    "figure4_rows",
    "power_ratio",
    "power_rows",
    "fp_upper_ends",
    "figures56_rows",
    "pair_table",
    "beyond_counts",
    "tables35_rows",
    "figure7_rows",
    "table6_rows",
    "verdict_rows",
]
