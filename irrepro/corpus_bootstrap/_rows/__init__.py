"""The Cormack & Lynam chapter's rows for the book's rule: coverage shares beside the paper's
(Tables 1-4, the second corpus), its claims as numbers, the rows of several thinning seeds pooled.

A share over lists is clustered by topic; a share over runs has one outcome per run resting on every
topic, so its sampling error is the spread over topics resampled with replacement."""

from ._claims import (
    cell_moves,
    claim_rows,
    meta_analysis_row,
    rerun,
    section9_rows,
    seed_table,
    width_rows,
)
from ._shares import OUTLIER, SMALL_R, map_shares_by_topic
from ._tables import (
    data_rows,
    map_rows,
    model_row,
    second_corpus_rows,
    small_r_rows,
    table1_rows,
    table2_rows,
    trec6_r_rows,
)

__all__ = [
    "SMALL_R",
    "OUTLIER",
    "map_shares_by_topic",
    "data_rows",
    "small_r_rows",
    "trec6_r_rows",
    "table1_rows",
    "table2_rows",
    "map_rows",
    "second_corpus_rows",
    "width_rows",
    "section9_rows",
    "meta_analysis_row",
    "claim_rows",
    "cell_moves",
    "seed_table",
    "rerun",
    "model_row",
]
