"""The reading of a paper's printed numbers and words for the book's rule (:func:`_parse`), and
:data:`FORMS`, every form with how it is read and examples, for the rule page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

__all__: list[str] = []


@dataclass(frozen=True)
class _Value:
    lo: float
    hi: float
    half: float  # half a unit of the last printed digit (the printed value's rounding)
    pct: bool
    point: float  # where the margin of a relative kind is measured
    side: str = ""  # a one-sided claim: "above" (> x, at least x) or "below" (< x, at most x, as few as x)
    strict: bool = False  # a one-sided claim that excludes its bound (> x, < x)
    well: bool = False  # "well above x": the bound moved by the kind's margin, against the claim
    decimals: int | None = None  # the printed precision (None: a bound, a fraction, not printed as text)


_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)"
_ABOUT = r"about|around|approximately|roughly|typically|some|circa|~"
_JUST_OVER = r"just over|just above|slightly over|slightly above|slightly more than|just more than"
_JUST_UNDER = (
    r"just under|just below|slightly under|slightly below|slightly less than|almost|nearly|just short of"
)
_WELL_OVER = r"well above|well over|well in excess of|far above|far more than|well beyond"
_WELL_UNDER = r"well below|well under|far below|far less than"
_STRICT_OVER = r">|over|above|more than|exceeds?"
_OVER = rf">=|≥|at least|no less than|{_STRICT_OVER}"
_STRICT_UNDER = r"<|under|below|less than"
_UNDER = rf"<=|≤|at most|up to|no more than|not exceeding|as few as|{_STRICT_UNDER}"
_QUALIFIER = rf"{_ABOUT}|{_JUST_OVER}|{_JUST_UNDER}|{_WELL_OVER}|{_WELL_UNDER}|{_OVER}|{_UNDER}"
_PART = re.compile(
    rf"^(?:(?P<q>{_QUALIFIER})\s*)?"
    rf"(?P<a>{_NUM})\s*(?P<pa>%)?\s*(?:[-–]\s*(?P<b>{_NUM})\s*(?P<pb>%)?)?\s*(?P<x>x|of\s+\d+(?:\s+[a-z]+)?)?$"
)
_FRACTION = re.compile(rf"^(?:(?P<q>{_ABOUT}|{_JUST_UNDER})\s+)?(?P<a>\d+)/(?P<b>[1-9]\d*)$")
_WORD_FRACTIONS = {"half": 1 / 2, "a half": 1 / 2, "one half": 1 / 2, "a third": 1 / 3, "one third": 1 / 3,
                   "two thirds": 2 / 3, "two-thirds": 2 / 3, "a quarter": 1 / 4, "three quarters": 3 / 4}  # fmt: skip
_SPLIT = re.compile(r"\s+/\s+|\s+vs\.?\s+|\s*->\s*")

#: Every form a paper's value takes in ``book/papers/*.yml``: (form, how the rule reads it, examples as
#: (paper, kind, ours, our standard error, the status a reader gives)). The rule page shows this table;
#: the tests check every example against the rule.
FORMS = (
    ("0.324, 15%", "the value plus or minus half a unit of its last printed digit, widened on both sides by the "
     "margin of the row's kind",
     (("0.50", "score", 0.52, 0.001, "replicated"), ("0.50", "score", 0.56, 0.001, "not replicated"),
      ("0.05", "rate", 0.072, 0.004, "inconclusive"))),
    ("about 15%", "as 15%", (("about 15%", "rate", "16.4%", 0.0, "replicated"),)),
    ("just over 15%, slightly over 0.5", "from the value to one printed unit above, widened by the margin",
     (("just over 15%", "rate", "16.4%", 0.0, "replicated"), ("just over 15%", "rate", "18.5%", 0.0, "not replicated"))),
    ("almost 15, just under 15", "from one printed unit below to the value, widened by the margin",
     (("almost 15%", "rate", "12.5%", 0.0, "replicated"), ("almost 15%", "rate", "11.5%", 0.0, "not replicated"))),
    ("11%-14%, 150-200", "the range plus or minus half a printed unit, widened by the margin",
     (("11%-14%", "rate", "15.7%", 0.0, "replicated"), ("11%-14%", "rate", "17%", 0.0, "not replicated"))),
    ("> 5%, over, above, more than, exceeds", "one-sided, no margin in the claim's favour: replicated when our "
     "interval lies wholly above the bound, not replicated when it lies at or below it, inconclusive otherwise",
     (("> 5%", "rate", "4.9%", 0.3, "inconclusive"), ("> 5%", "rate", "3.2%", 0.3, "not replicated"),
      ("> 5%", "rate", "7.0%", 0.3, "replicated"), ("> 0.6", "correlation", 0.56, 0.0, "not replicated"))),
    (">= x, at least x, no less than x", "as > x, the bound itself allowed",
     (("at least 3", "count", 3, 0.0, "replicated"), ("at least 3", "count", 2, 0.0, "not replicated"))),
    ("well above 5%, well over", "one-sided above the bound moved up by the margin of the row's kind",
     (("well above 5%", "rate", "4.9%", 0.3, "not replicated"), ("well above 5%", "rate", "9.0%", 0.3, "replicated"))),
    ("< 0.05, under, below, less than", "one-sided below the bound, as > x mirrored",
     (("under 10%", "rate", "12.7%", 0.3, "not replicated"), ("under 10%", "rate", "11%", 0.0, "not replicated"),
      ("< 0.05", "rate", 0.01, 0.004, "replicated"))),
    ("<= 0.11, at most, up to, not exceeding", "as < x, the bound itself allowed",
     (("≤ 0.11", "rate", 0.127, 0.003, "not replicated"), ("≤ 0.11", "rate", 0.10, 0.003, "replicated"),
      ("≤ 0.11", "rate", 0.11, 0.0, "replicated"))),
    ("as few as 5", "the number needed is at most the bound: one-sided below it, the bound allowed",
     (("as few as 5", "count", 3, 0.0, "replicated"), ("as few as 5", "count", 8, 0.0, "not replicated"))),
    ("well below x, far below", "one-sided below the bound moved down by the margin",
     (("well below 0.5", "score", 0.4, 0.0, "replicated"), ("well below 0.5", "score", 0.49, 0.0, "not replicated"))),
    ("1/3, 2/3, half, a third", "a point value (not rounded), widened by the margin of the row's kind",
     (("1/3", "rate", 0.16, 0.0, "not replicated"), ("1/3", "rate", 0.50, 0.0, "not replicated"),
      ("1/3", "rate", 0.34, 0.0, "replicated"), ("half", "rate", 0.51, 0.0, "replicated"))),
    ("almost 1/2", "from half the fraction's unit below it up to it, widened by the margin",
     (("almost 1/2", "rate", 0.26, 0.0, "replicated"), ("almost 1/2", "rate", 0.53, 0.0, "not replicated"))),
    ("3 of 5", "an exact count, widened by the margin of a count",
     (("3 of 5", "count", "3 of 5", 0.0, "replicated"), ("3 of 5", "count", "2 of 5", 0.0, "not replicated"))),
    ("> 0 (kind ordering)", "the direction of a difference: replicated when our difference's interval lies wholly "
     "on the paper's side of 0, not replicated when at or on the other side, inconclusive otherwise",
     (("> 0", "ordering", 0.02, 0.20, "inconclusive"), ("> 0", "ordering", 0.5, 0.1, "replicated"),
      ("> 0", "ordering", -0.5, 0.1, "not replicated"))),
    ("a / b / c, a -> b", "each part by its own form; the row is replicated when every part is, not replicated "
     "when most parts are not, partly when some part is replicated and some not, inconclusive otherwise",
     (("27.0 / 68.9 / 4.0", "rate", "40.0 / 58.0 / 6.5", [0.5, 0.5, 0.5], "not replicated"),
      ("3.7 / 77.8 / 11.1", "rate", "3.8 / 77.7 / 15.2", 0.0, "partly"),
      ("3.7 / 77.8 / 11.1", "rate", "3.7 / 77.8 / 13.9", [0.0, 0.0, 1.0], "inconclusive"),
      ("13% -> 7%", "rate", "12% -> 7%", 0.0, "replicated"))),
)  # fmt: skip


def _unit(text: str) -> float:
    digits = text.split(".")[1] if "." in text else ""
    return 10.0 ** -len(digits)


def _missing(x) -> bool:
    missing_text = isinstance(x, str) and x.strip() in {"", "-", "–", "n/a"}
    return x is None or (isinstance(x, float) and math.isnan(x)) or missing_text


def _parse(x, exact: bool = False) -> list[_Value] | None:
    """The numbers printed in a cell (``None`` if it holds words)."""
    if isinstance(x, bool) or _missing(x):
        return None
    if isinstance(x, (int, float, np.integer, np.floating)):
        v = float(x)
        if exact:
            return [_Value(v, v, 0.0, False, v)]
        # as typed (a number of book/papers/*.yml keeps its text); an int 15 is printed "15", not "15.0"
        text = getattr(x, "printed", None) or (str(int(x)) if isinstance(x, (int, np.integer)) else repr(v))
        if "e" in text.lower():
            return [_Value(v, v, 0.0, False, v)]
        return _parse(text)
    if not isinstance(x, str):
        return None
    text = re.sub(r"\([^)]*\)", " ", x).strip().lower()
    text = re.sub(r"(?<![\d.])(\d{1,3}(?:,\d{3})+)(?![\d,])", lambda g: g[1].replace(",", ""), text)  # 18,460
    out = []
    for part in _SPLIT.split(text):
        part = part.strip()
        f = _FRACTION.match(part)
        word = re.sub(rf"^(?:{_ABOUT})\s+", "", part)
        if f and f["q"] and re.fullmatch(_JUST_UNDER, f["q"]):  # "almost 1/2": up to it, by half its unit
            v, d = int(f["a"]) / int(f["b"]), int(f["b"])
            out.append(_Value(v - 0.5 / d, v, 0.0, False, v))
            continue
        if f or word in _WORD_FRACTIONS:  # "1/3", "half": a point value, not a rounded one
            v = int(f["a"]) / int(f["b"]) if f else _WORD_FRACTIONS[word]
            out.append(_Value(v, v, 0.0, False, v))
            continue
        m = _PART.match(part)
        if not m:
            return None
        a, b, q = m["a"], m["b"], (m["q"] or "")
        pct = bool(m["pa"] or m["pb"])
        va, unit = float(a), _unit(a)
        places = max(len(n.split(".")[1]) if "." in n else 0 for n in (a, b or "0"))
        if b is not None:
            if q and not re.fullmatch(_ABOUT, q):
                return None
            lo, hi = va, float(b)
            if lo > hi:
                raise ValueError(f"{x!r}: a range must run from low to high (write 'a -> b' for two values)")
            out.append(_Value(lo, hi, 0.5 * max(unit, _unit(b)), pct, (lo + hi) / 2, decimals=places))
        elif re.fullmatch(_JUST_OVER, q):
            out.append(_Value(va, va + unit, 0.0, pct, va, decimals=places))
        elif re.fullmatch(_JUST_UNDER, q):
            out.append(_Value(va - unit, va, 0.0, pct, va, decimals=places))
        elif re.fullmatch(_WELL_OVER, q):  # a bound is a threshold, not rounded
            out.append(_Value(va, math.inf, 0.0, pct, va, "above", True, True))
        elif re.fullmatch(_WELL_UNDER, q):
            out.append(_Value(-math.inf, va, 0.0, pct, va, "below", True, True))
        elif re.fullmatch(_OVER, q):
            out.append(_Value(va, math.inf, 0.0, pct, va, "above", bool(re.fullmatch(_STRICT_OVER, q))))
        elif re.fullmatch(_UNDER, q):
            out.append(_Value(-math.inf, va, 0.0, pct, va, "below", bool(re.fullmatch(_STRICT_UNDER, q))))
        else:  # a count "k of n" is exact
            exact_count = (m["x"] or "").startswith("of")
            out.append(_Value(va, va, 0.0 if exact_count else 0.5 * unit, pct, va, decimals=places))
    return out


def _decimals(x) -> list[int | None] | None:
    """The decimals a paper prints each part of a cell with (``"3.7 / 77.8"``: 1 and 1)."""
    values = _parse(x)
    return None if values is None else [v.decimals for v in values]


def _fmt(v: float) -> str:
    return f"{v:.3g}"


@dataclass(frozen=True)
class PaperValue:
    """One number (or claim) as a paper prints it (``value``, its printed precision kept), with where it is printed."""

    paper: str
    key: str
    value: object
    table: str = ""
    row: str = ""
    column: str = ""
    section: str = ""
    wording: str = ""

    def __str__(self) -> str:
        return str(self.value)

    @property
    def where(self) -> str:
        """Where the paper prints it: ``"§6.2, Table 1, linear (all runs), below / in / above (%)"``."""
        section = f"§{self.section}" if self.section[:1].isdigit() else self.section
        return ", ".join(p for p in (section, self.table, self.row, self.column) if p)

    def part(self, i: int, column: str | None = None) -> PaperValue:
        """Part ``i`` of a value printed as ``"a / b / c"``, a value of its own at the same place."""
        parts = str(self.value).split(" / ")
        if len(parts) < 2:
            raise ValueError(f"{self.paper}:{self.key}: {self.value!r} has no parts")
        return replace(self, key=f"{self.key}[{i}]", value=parts[i], column=column or self.column)

    @staticmethod
    def join(values: Sequence[PaperValue], sep: str = " / ") -> PaperValue:
        """Several of a paper's values printed side by side in one cell (``"82.8 / 83.9"``)."""
        first = values[0]
        return replace(
            first,
            key="+".join(v.key for v in values),
            value=sep.join(str(v.value) for v in values),
            row=" / ".join(dict.fromkeys(v.row for v in values)),
            column=" / ".join(dict.fromkeys(v.column for v in values)),
        )
