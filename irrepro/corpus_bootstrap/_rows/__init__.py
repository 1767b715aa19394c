"""The Cormack & Lynam chapter's rows for the book's one rule: coverage shares over lists and runs
beside the paper's (Tables 1-4, the second corpus), each with its sampling error clustered by topic
and the Monte Carlo error of our bootstrap; the paper's claims as numbers with their errors
(:func:`claim_rows`); the rows of several thinning seeds pooled (:func:`rerun`).

Which unit is sampled: the topics. The lists of one topic share its relevant documents and its
half of the corpus, so a share over lists is clustered by topic
(:func:`irrepro.stats.clustered_se`); a share over runs (Tables 3 and 4) has one outcome per run
that rests on every topic, so its sampling error is the spread over topics resampled with
replacement (:func:`map_shares_by_topic`)."""

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
