"""The claims of Cormack & Lynam (2006) in book/papers/cormack2006statistical.yml are numbers the
book's one rule reads (issue 23): the chapter judges each claim as a number of ours with its error,
so no claim needs a status set by hand."""

import pytest

from irrepro import book

P = book.paper_numbers("cormack2006statistical")

# claim key -> (kind, a value of ours on the paper's side, one on the other side)
CLAIMS = {
    "claim.prediction": ("rate", 83.4, 70.0),
    "claim.bias": ("ordering", 5.0, -5.0),
    "claim.outliers": ("rate", 80.0, 20.0),
    "claim.logit-outliers": ("count", 0, 12),
    "claim.map-lmap": ("ordering", 5.0, -5.0),
    "claim.map-parametric": ("ordering", 5.0, -5.0),
    "claim.lmap-parametric": ("ordering", 5.0, -5.0),
}


@pytest.mark.parametrize("key", sorted(CLAIMS))
def test_each_claim_of_the_paper_is_a_number_the_rule_judges(key):
    kind, agrees, disagrees = CLAIMS[key]
    paper = P[key].value
    assert P[key].wording, f"{key}: quote the paper's words"
    assert book.judge(paper, agrees, kind=kind, ours_se=0.1).status == book.REPLICATED
    assert book.judge(paper, disagrees, kind=kind, ours_se=0.1).status == book.NOT_REPLICATED


def test_the_skew_of_table_2_is_two_numbers_linear_and_logit():
    paper = P["table2.skew"].value  # "about 6 / about 1": the paper's words, read once by the rule
    assert book.judge(paper, "6.2 / 0.9", kind="score", ours_se=[0.01, 0.01]).status == book.REPLICATED
    assert book.judge(paper, "1.6 / 0.9", kind="score", ours_se=[0.01, 0.01]).status == book.PARTLY
