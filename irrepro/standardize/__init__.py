"""Score standardization and inter-collection comparability (Webber, Moffat & Zobel 2008).

Standardization (section 3) rescales every topic by the mean and sd of a set of *standardizing
systems*' scores on it, ``z_st = (m_st - mu_t) / sigma_t``, and maps z through the normal CDF into
[0, 1]. Comparability (section 5) is measured with the sd-normalized RMSE of system means (dRMSE)
and with the systems a two-sample t-test finds different from themselves, on collection pairs and
random topic halves.

Interpretations (the paper does not say): sample sds (``ddof=1``) throughout - only ``ddof=1``
reproduces the paper's dRMSE of 1.857 for TREC 7 vs TREC 2003 (``ddof=0`` gives 1.866); a topic
with sd 0 over the standardizing systems gives every system z = 0 (:func:`zscores`); the two-sample
t-test is Student's equal-variance test, two-sided.
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
