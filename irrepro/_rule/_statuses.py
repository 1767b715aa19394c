"""The statuses a compared row can have, the verdict words for them and how statuses combine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["STATUSES", "Judgement", "verdict", "combine"]

#: The statuses, in the order tables and counts show them.
STATUSES = ("replicated", "partly", "inconclusive", "not replicated", "not comparable")
REPLICATED, PARTLY, INCONCLUSIVE, NOT_REPLICATED, NOT_COMPARABLE = STATUSES
#: kinds whose status comes from words (the rows a claim rests on), not from numbers
_WORD_KINDS = ("claim",)

_VERDICTS = {"holds": REPLICATED, "partly": PARTLY, "does not": NOT_REPLICATED, "inconclusive": INCONCLUSIVE}
_WORDS = {s: s for s in STATUSES} | _VERDICTS
_VERDICT_OF = {status: word for word, status in _VERDICTS.items()}


def verdict(holds: bool, partly: bool = False) -> str:
    """A claim row's verdict word: ``"holds"``, ``"partly"`` (``partly`` when not ``holds``) or ``"does not"``."""
    return "holds" if holds else ("partly" if partly else "does not")


# --- the rule ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """The status of one row and what it rests on (the fields :func:`judge` returns)."""

    status: str
    reason: str
    margin: float | tuple[float, ...] | None = None
    why: str = ""
    needed: int | None = None
    z: float | None = None


def _combine(statuses: Sequence[str]) -> str:
    """The status of a row resting on several parts or rows."""
    s = [x for x in statuses if x != NOT_COMPARABLE]
    if not s:
        return NOT_COMPARABLE
    if all(x == REPLICATED for x in s):
        return REPLICATED
    if all(x == NOT_REPLICATED for x in s):
        return NOT_REPLICATED
    if REPLICATED in s and NOT_REPLICATED in s or PARTLY in s:
        return PARTLY
    return INCONCLUSIVE


def combine(statuses: Sequence[str]) -> str:
    """The status of a claim resting on several rows or parts: replicated when all comparable ones are, not
    replicated when all are not, partly when both occur (or any is partly), else inconclusive or not comparable."""
    words = [str(x).strip().lower() for x in statuses]
    unknown = [x for x in words if x not in _WORDS]
    if unknown:
        raise ValueError(f"{unknown}: statuses are {STATUSES} or verdict words {tuple(_VERDICTS)}")
    return _combine([_WORDS[x] for x in words])
