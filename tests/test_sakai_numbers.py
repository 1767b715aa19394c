"""The Sakai (2006) chapter's paper numbers (book/papers/sakai2006evaluating.yml) under the book's
one rule (issue 23): every entry is one of the paper's statements, and the claims the chapter
judges with numbers are read by the rule as bounds."""

from __future__ import annotations

import pytest

from irrepro import book

KEY = "sakai2006evaluating"


@pytest.fixture(scope="module")
def P():
    return book.paper_numbers(KEY)


@pytest.mark.parametrize("entry", ["fig8.less-power", "table2.b-more-sensitive", "table3.below-required"])
def test_sign_claims_are_bounds_the_rule_reads(P, entry):
    """'less power for any metric', 'substantially higher for the Japanese data', 'lower than those
    required': one sign per measure, judged as an ordering with our Monte Carlo error."""
    parts, se = "3.0 / 1.5", [0.5, 0.5]
    assert book.judge(P[entry].value, parts, kind="ordering", ours_se=se).status == book.REPLICATED
    assert (
        book.judge(P[entry].value, "-3.0 / -1.5", kind="ordering", ours_se=se).status == book.NOT_REPLICATED
    )
    assert book.judge(P[entry].value, "0.2 / 3.0", kind="ordering", ours_se=se).status == book.INCONCLUSIVE


def test_every_entry_is_the_papers_own(P):
    """The TREC Web cross-check is our question, not Sakai's: no entry of the paper's numbers holds it."""
    assert not [k for k in P if "web" in k.lower() or "web" in str(P[k].value).lower()]


def test_the_comparable_required_differences_claim_is_there(P):
    """Section 3.4's 'the estimated differences (Column 3) are comparable to the Paired case' and
    section 3.2's recommendation of the paired test are rows of their own."""
    c = P["table2.unpaired-comparable"]
    assert c.section == "3.4" and "comparable to the Paired case" in c.wording
    r = P["claim.prefer-paired"]
    assert r.section == "3.2" and "should be preferred" in r.wording
