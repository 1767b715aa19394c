"""The book's one rule (:func:`judge`), below every method family; :mod:`irrepro.book` serves it."""

# private (no __all__): the book and the families' rows import these from here
from ._judge import judge, judge_row, spread_notes  # noqa: F401
from ._statuses import STATUSES, Judgement, combine, verdict  # noqa: F401
