"""The book's one rule, below every method family: an equivalence test of our number, with its
errors, against a paper's printed value widened by the margin of its kind (``book/margins.yml``),
giving each compared row its status; :mod:`irrepro.book` serves it to the chapters."""

# private (no __all__): the book and the families' rows import these from here
from ._judge import judge, judge_row, spread_notes  # noqa: F401
from ._statuses import STATUSES, Judgement, combine, verdict  # noqa: F401
