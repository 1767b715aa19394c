"""The numbers of Sanderson & Zobel (2005) in book/papers/sanderson2005information.yml are read by the
book's one rule: every entry that a results row of the chapter compares is a number, a range, a bound
or a direction ("> 0" on a difference) the rule parses, never words it cannot judge (issue 23); only
the paper's claims in words (``claim.*``) rest on rows instead, and the size of its data
(``data.*``) is shown beside ours, not compared."""

import pytest

from irrepro import book
from irrepro._rule import _parse

P = book.paper_numbers("sanderson2005information")
NUMBERS = [k for k in P if not k.startswith(("claim.", "data."))]  # data.*: context of our data, not compared


@pytest.mark.parametrize("key", NUMBERS)
def test_each_compared_number_is_read_by_the_rule(key):
    assert _parse(P[key].value) is not None, f"{key}: {P[key].value!r} is words the rule cannot judge"


def test_a_direction_is_judged_by_our_difference_and_its_error():
    # the paper's "> 0" against our difference: replicated when our 90% interval lies above zero,
    # inconclusive when it straddles zero, not replicated when it lies below
    direction = P["tests.order"].value
    assert book.judge(direction, "0.54 / 0.50", kind="ordering", ours_se=[0.30, 0.1]).status == "replicated"
    assert book.judge(direction, "0.54 / 0.02", kind="ordering", ours_se=[0.30, 0.2]).status == "inconclusive"
    assert book.judge(P["fig8.rise"].value, -0.2, kind="ordering", ours_se=0.05).status == "not replicated"
