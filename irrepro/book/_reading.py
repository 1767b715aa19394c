"""The reading of a paper's printed numbers for the book's rule: precision, qualifiers ("about",
"just over", "> 0.6"), ranges, counts "k of n", fractions and "a / b / c" rows, parsed once here
(:func:`_parse`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

__all__: list[str] = []


@dataclass(frozen=True)
class _Value:
    lo: float
    hi: float
    half: float  # half a unit of the last printed digit (the printed value's rounding)
    pct: bool
    point: float  # where the margin of a relative kind is measured


_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)"
_ABOUT = r"about|around|approximately|roughly|typically|some|circa|~"
_JUST_OVER = r"just over|just above|slightly over|slightly above|slightly more than|just more than"
_JUST_UNDER = (
    r"just under|just below|slightly under|slightly below|slightly less than|almost|nearly|just short of"
)
_OVER = r">=|>|≥|over|above|more than|at least|exceeds?"
_UNDER = r"<=|<|≤|under|below|less than|at most|up to|no more than"
_PART = re.compile(
    rf"^(?:(?P<q>{_ABOUT}|{_JUST_OVER}|{_JUST_UNDER}|{_OVER}|{_UNDER})\s*)?"
    rf"(?P<a>{_NUM})\s*(?P<pa>%)?\s*(?:[-–]\s*(?P<b>{_NUM})\s*(?P<pb>%)?)?\s*(?P<x>x|of\s+\d+)?$"
)
_FRACTION = re.compile(rf"^(?:(?P<q>{_ABOUT}|{_JUST_UNDER})\s+)?(?P<a>\d+)/(?P<b>[1-9]\d*)$")
_SPLIT = re.compile(r"\s+/\s+|\s+vs\.?\s+|\s*->\s*")


def _unit(text: str) -> float:
    digits = text.split(".")[1] if "." in text else ""
    return 10.0 ** -len(digits)


def _missing(x) -> bool:
    if x is None:
        return True
    if isinstance(x, float) and math.isnan(x):
        return True
    return isinstance(x, str) and x.strip() in {"", "-", "–", "n/a"}


def _printed(x) -> str | None:
    """The text a paper's number was typed with (``book/papers/*.yml`` keeps it), else None."""
    return getattr(x, "printed", None)


def _parse(x, exact: bool = False) -> list[_Value] | None:
    """The numbers printed in a cell (``None`` if it holds words): one value per part of
    ``"a / b / c"``, ``"a vs b"`` or ``"a -> b"``. A part is a number with an optional qualifier, a
    range ``"11%-14%"``, a count ``"3 of 5"`` or a fraction ``"2/3"``:

    - *about 15%*, *15%*: 15 +- half a printed unit;
    - *just over 15%*: 15 to 16 (one printed unit above); *almost 15*, *just under 15*: 14 to 15;
    - *over 15*, *> 15*, *at least 15*: a bound from 15; *under*, *<*, *at most*: up to it.

    A number passed as a number is exact when ``exact`` (ours, computed); a paper's is read with
    the text it was typed with in the yml (``0.60`` keeps its trailing zero), else ``repr``."""
    if isinstance(x, bool) or _missing(x):
        return None
    if isinstance(x, (int, float, np.integer, np.floating)):
        v = float(x)
        if exact:
            return [_Value(v, v, 0.0, False, v)]
        # as typed: an int 15 is printed "15" (not "15.0"), like the text "15" and the yml's 15
        text = _printed(x) or (str(int(x)) if isinstance(x, (int, np.integer)) else repr(v))
        if "e" in text.lower():
            return [_Value(v, v, 0.0, False, v)]
        return _parse(text)
    if not isinstance(x, str):
        return None
    text = re.sub(r"\([^)]*\)", " ", x).strip().lower()
    out = []
    for part in _SPLIT.split(text):
        part = part.strip()
        f = _FRACTION.match(part)
        if f:  # "2/3": a fraction is printed to half of its denominator's unit
            v, d = int(f["a"]) / int(f["b"]), int(f["b"])
            if f["q"] and re.fullmatch(_JUST_UNDER, f["q"]):  # "almost 1/2": up to it, by that unit
                out.append(_Value(v - 0.5 / d, v, 0.0, False, v))
            else:
                out.append(_Value(v, v, 0.5 / d, False, v))
            continue
        m = _PART.match(part)
        if not m:
            return None
        a, b, q = m["a"], m["b"], (m["q"] or "")
        pct = bool(m["pa"] or m["pb"])
        va, unit = float(a), _unit(a)
        if b is not None:
            if q and not re.fullmatch(_ABOUT, q):
                return None
            lo, hi = va, float(b)
            if lo > hi:
                raise ValueError(f"{x!r}: a range must run from low to high (write 'a -> b' for two values)")
            out.append(_Value(lo, hi, 0.5 * max(unit, _unit(b)), pct, (lo + hi) / 2))
        elif re.fullmatch(_JUST_OVER, q):
            out.append(_Value(va, va + unit, 0.0, pct, va))
        elif re.fullmatch(_JUST_UNDER, q):
            out.append(_Value(va - unit, va, 0.0, pct, va))
        elif re.fullmatch(_OVER, q):  # a bound is a threshold, not rounded
            out.append(_Value(va, math.inf, 0.0, pct, va))
        elif re.fullmatch(_UNDER, q):
            out.append(_Value(-math.inf, va, 0.0, pct, va))
        else:  # a count "k of n" is exact
            exact_count = (m["x"] or "").startswith("of")
            out.append(_Value(va, va, 0.0 if exact_count else 0.5 * unit, pct, va))
    return out


def _decimals(x) -> list[int | None] | None:
    """The decimals a paper prints each part of a cell with (``"0.60"``: 2, ``"15%"``: 0,
    ``"3.7 / 77.8"``: 1 and 1, ``"11%-14%"``: 0), read as :func:`_parse` reads the cell; None for a
    part printed as a fraction (``"2/3"``) or a bound (``"> 0"``: a threshold, not a precision),
    and None for words or a missing value. A number typed
    in the yml keeps its printed text; an int is printed with no decimals."""
    if isinstance(x, bool) or _missing(x):
        return None
    if isinstance(x, (int, float, np.integer, np.floating)):
        text = _printed(x) or (str(int(x)) if isinstance(x, (int, np.integer)) else repr(float(x)))
        return None if "e" in text.lower() else _decimals(text)
    if not isinstance(x, str) or _parse(x) is None:
        return None
    text = re.sub(r"\([^)]*\)", " ", x).strip().lower()
    out: list[int | None] = []
    for part in _SPLIT.split(text):
        part = part.strip()
        if _FRACTION.match(part):
            out.append(None)
            continue
        m = _PART.match(part)
        assert m is not None  # _parse read it
        q = m["q"] or ""
        if m["b"] is None and (re.fullmatch(_OVER, q) or re.fullmatch(_UNDER, q)):
            out.append(None)  # a bound ("> 0", "> 0.742") is a threshold, not a printed precision
            continue
        out.append(max(len(n.split(".")[1]) if "." in n else 0 for n in (m["a"], m["b"] or "0")))
    return out


def _fmt(v: float) -> str:
    return f"{v:.3g}"
