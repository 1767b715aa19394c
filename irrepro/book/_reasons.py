"""The kinds of reasons the book's rule writes, each with the sentence a table's legend gives it once."""

from __future__ import annotations

import re

__all__ = ["reason_kind"]

#: Every kind of reason the rule writes (:func:`~irrepro.book.judge`, ``irrepro._rule._judge._restated``): how its text begins and
#: the sentence a table's legend gives for it once (:func:`reason_kind`); the rest of a reason
#: (margin, error, the rows named, a chapter's note) are the row's particulars, shown on hover.
_REASON_KINDS = (
    ("within", re.compile(r"within "),
     "Within: our value with its error interval (Monte Carlo, and the paper's sampling error where it gives "
     "n) lies inside the paper's printed value widened by its rounding and the margin of the row's kind."),
    ("outside", re.compile(r"outside(?= by )"),
     "Outside: our value with its error interval lies wholly outside the paper's printed value widened by "
     "its rounding and the margin of the row's kind (by how much: on hover)."),
    ("straddles", re.compile(r"straddles "),
     "Straddles: our value's error interval crosses an edge of the paper's value widened by its rounding and "
     "the row's margin; more replicates would decide."),
    ("parts", re.compile(r"(?=(\d+ [a-z ]+, )*\d+ [a-z ]+ of the parts:)"),  # the counts: particulars
     "Several numbers (a / b / c), each judged on its own against the paper's: replicated when all are, not "
     "replicated when all are not, partly when both occur, inconclusive otherwise."),
    ("no number", re.compile(r"the paper gives no number"),
     "The paper prints no number here: ours is for the record."),
    ("no claim", re.compile(r"the paper gives no claim"),
     "The paper makes no such claim: ours is for the record."),
    ("no value", re.compile(r"no value of ours to compare"), "We have no value to compare with the paper's."),
    ("verdict", re.compile(r"the chapter's verdict on "),
     "A claim in words: the chapter's verdict, computed from the rows it names."),
    ("from", re.compile(r"from "), "A claim in words: the combined status of the rows it rests on."),
    ("restates", re.compile(r"as "),
     "Restates rows judged above and takes their status (the scorecard counts it once)."),
)  # fmt: skip


def reason_kind(reason: str) -> tuple[str, str]:
    """The legend's sentence for the kind of a row's reason, and the reason's particulars (a chapter's own
    reason is a kind of its own, with no particulars)."""
    text = str(reason).strip()
    for _name, start, sentence in _REASON_KINDS:
        m = start.match(text)
        if m:
            return sentence, text[m.end() :].strip(" :;")
    return text, ""
