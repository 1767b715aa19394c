"""The book's one rule, below every method family (:mod:`irrepro.book` serves it): the statuses and
how they combine, the margins per kind (``book/margins.yml``), the reading of a paper's printed
numbers (:data:`FORMS`), and :func:`judge`, which gives every compared row its status."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy import stats

from ._env import env
from .stats import level_percent

#: The statuses, in the order tables and counts show them.
STATUSES = ("replicated", "partly", "inconclusive", "not replicated", "not comparable")
REPLICATED, PARTLY, INCONCLUSIVE, NOT_REPLICATED, NOT_COMPARABLE = STATUSES

_VERDICTS = {"holds": REPLICATED, "partly": PARTLY, "does not": NOT_REPLICATED, "inconclusive": INCONCLUSIVE}
_WORDS = {s: s for s in STATUSES} | _VERDICTS
_VERDICT_OF = {status: word for word, status in _VERDICTS.items()}


def verdict(holds: bool, partly: bool = False) -> str:
    """A claim row's verdict word: ``"holds"``, ``"partly"`` (``partly`` when not ``holds``) or ``"does not"``."""
    return "holds" if holds else ("partly" if partly else "does not")


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
    """The status of a claim resting on several rows or parts (statuses or verdict words)."""
    words = [str(x).strip().lower() for x in statuses]
    unknown = [x for x in words if x not in _WORDS]
    if unknown:
        raise ValueError(f"{unknown}: statuses are {STATUSES} or verdict words {tuple(_VERDICTS)}")
    return _combine([_WORDS[x] for x in words])


#: Environment variable naming the book's directory (the one holding ``papers/``).
BOOK_ENV = "IRREPRO_BOOK"


def book_dir() -> Path:
    """The book's directory: ``$IRREPRO_BOOK``, the checkout's ``book/``, or one in or above the working directory."""
    candidates = [Path(os.environ[BOOK_ENV]).expanduser()] if env(BOOK_ENV) else []
    candidates.append(Path(__file__).resolve().parents[1] / "book")
    cwd = Path.cwd().resolve()
    candidates += [d / "book" for d in (cwd, *cwd.parents)]
    for c in candidates:
        if (c / "papers").is_dir():
            return c
    raise FileNotFoundError(
        "the book's papers/ directory was not found (tried "
        + ", ".join(str(c) for c in candidates[:4])
        + ", ...): run from a checkout of irrepro or set IRREPRO_BOOK to its book/ directory"
    )


def read_book_file(name: str, parse):
    """``parse(path)`` of the book's file ``name`` (under :func:`book_dir`), read again only when it changes."""
    path = book_dir() / name
    return _parsed(parse, str(path), path.stat().st_mtime)


@functools.cache
def _parsed(parse, path: str, mtime: float):
    """``parse(path)``, cached by the file's path and modification time."""
    return parse(path)


#: The kinds of number a row compares; each has its equivalence margin in ``book/margins.yml``.
KINDS = ("rate", "correlation", "score", "count", "ordering", "claim")


@dataclass(frozen=True)
class Margins:
    """The equivalence margins per kind and the confidence of the rule's interval (``book/margins.yml``)."""

    confidence: float
    kinds: Mapping[str, Mapping]
    source: str = ""

    @property
    def z(self) -> float:
        """The normal quantile of the interval (1.645 at 0.90)."""
        return float(stats.norm.ppf(0.5 + self.confidence / 2))

    def margin(self, kind: str, value: float, scale: float = 1.0, nominal: float | None = None) -> float:
        """The absolute margin of ``kind`` for a paper value ``value`` (``scale`` 100 for %; ``nominal``: a level)."""
        if kind not in self.kinds:
            raise ValueError(f"kind {kind!r}: one of {sorted(self.kinds)} ({self.source})")
        e = self.kinds[kind]
        if nominal is not None:
            if e.get("relative_to_nominal") is None:
                raise ValueError(f"kind {kind!r} has no margin relative to a nominal level ({self.source})")
            nominal = float(nominal)
            if not 0 < nominal < 1:
                raise ValueError(f"nominal {nominal!r}: a level is a fraction in (0, 1)")
            return _FACTOR[0] * float(e["relative_to_nominal"]) * min(nominal, 1 - nominal) * scale
        v = abs(value) if math.isfinite(value) else 0.0
        out = []
        if e.get("absolute") is not None:
            out.append(float(e["absolute"]) * (scale if kind == "rate" else 1.0))
        if e.get("relative") is not None:
            out.append(float(e["relative"]) * v)
        if e.get("relative_to_edge") is not None:
            p = min(max(v / scale, 0.0), 1.0)
            out.append(float(e["relative_to_edge"]) * min(p, 1 - p) * scale)
        return _FACTOR[0] * (min(out) if out else 0.0)

    def to_frame(self):
        """One row per kind: what it is, its margin, why, and the source cited."""
        import pandas as pd

        def rule(e):
            parts = []
            if e.get("absolute") is not None:
                parts.append(f"{e['absolute']:g}" + (" (absolute)" if e.get("relative_to_edge") else ""))
            if e.get("relative") is not None:
                parts.append(f"{100 * e['relative']:g}% of the paper's value")
            if e.get("relative_to_edge") is not None:
                parts.append(f"{e['relative_to_edge']:g} x the distance to the nearer of 0 and 1")
            text = ("the smaller of " if len(parts) > 1 else "") + " and ".join(parts)
            if e.get("relative_to_nominal") is not None:
                text += (f"; a rate set by a nominal level (alpha, a coverage): {100 * e['relative_to_nominal']:g}% "
                         "of the nearer of that level and 1 - it")  # fmt: skip
            return text

        return pd.DataFrame(
            [{"kind": k, "what": e.get("what", ""), "margin": rule(e), "why": e.get("why", ""),
              "source": e.get("cite", "")} for k, e in self.kinds.items()]
        )  # fmt: skip


#: The factor every margin is multiplied by (:func:`scaled`, for the rule page's sensitivity table).
_FACTOR = [1.0]


@contextlib.contextmanager
def scaled(factor: float):
    """Within the block, every margin of :func:`margins` times ``factor``."""
    old = _FACTOR[0]
    _FACTOR[0] = float(factor)
    try:
        yield
    finally:
        _FACTOR[0] = old


def _read_margins(path: str) -> Margins:
    import yaml

    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    kinds = doc.get("kinds") if isinstance(doc, Mapping) else None
    if not isinstance(kinds, Mapping) or set(kinds) != set(KINDS):
        raise ValueError(f"{path}: 'kinds' must list exactly {KINDS}")
    conf = float(doc.get("confidence", 0.90))
    if not 0 < conf < 1:
        raise ValueError(f"{path}: confidence {conf} is not in (0, 1)")
    return Margins(conf, {k: dict(kinds[k]) for k in KINDS}, path)


def margins() -> Margins:
    """The rule's margins per kind, from ``book/margins.yml``.

    Returns
    -------
    Margins
        ``confidence``, ``z``, ``kinds`` and ``margin(kind, value, scale, nominal=None)``.

    Examples
    --------
    >>> from irrepro.book import margins
    >>> m = margins()
    >>> round(m.z, 3), m.margin("rate", 0.05), m.margin("rate", 0.5), m.margin("score", 0.2)
    (1.645, 0.02, 0.02, 0.010000000000000002)
    """
    return read_book_file("margins.yml", _read_margins)


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
#: (paper, kind, ours, our standard error, the status a reader gives)), shown by the rule page.
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
      ("13% -> 7%", "rate", "12% -> 7%", 0.0, "replicated")))
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


#: the keys of a comparison row that feed the rule
_RULE_KEYS = ("kind", "se_sampling", "se_mc", "ours_se", "se_reason", "paper_se", "paper_n", "nominal",
              "replicates", "unit", "supports", "reason", "status")  # fmt: skip
#: retired keys of the rule: rejected with a pointer to the ones that replace them
_OLD_KEYS = {
    "tol": "margins are per kind (book/margins.yml): give 'kind'",
    "basis": "margins are per kind (book/margins.yml): give 'kind'",
    "se": "give our Monte Carlo error as 'ours_se' (and the paper's sample size as 'paper_n')",
    "n": "give our Monte Carlo error as 'ours_se' and the paper's sample size as 'paper_n'",
}


def _per_part(x, k: int, name: str) -> np.ndarray:
    arr = np.asarray(np.nan if x is None else x, dtype=float).reshape(-1)
    if arr.size not in (1, k):
        raise ValueError(f"{name} has {arr.size} values for {k} parts")
    return np.broadcast_to(arr, (k,))


#: why a row is inconclusive: more replicates would decide it, or they would not (sampling error)
MONTE_CARLO, SAMPLING = "monte-carlo", "sampling"


def _part(
    a, b, mg: float, se_s: float, se_m: float, se_p: float, z: float
) -> tuple[str, float, float, float]:
    """One part of a row: (status, margin used, gap outside, factor the replicates must grow by to decide)."""
    half = z * math.sqrt(se_s**2 + se_m**2 + se_p**2)
    c_lo, c_hi = b.lo - half, b.hi + half
    eps = 1e-12 * max(1.0, abs(b.lo))
    if a.side:  # one-sided: no margin in the claim's favour; "well": the margin against it
        used = mg if a.well else 0.0
        up = a.side == "above"
        t = a.lo + used if up else a.hi - used
        strict = a.strict or a.well
        if up:
            ok = c_lo > t + eps if strict else c_lo >= t - eps
            no = c_hi <= t + eps if strict else c_hi < t - eps
            gap, dist = max(t - b.hi, 0.0), abs(b.lo - t)
        else:
            ok = c_hi < t - eps if strict else c_hi <= t + eps
            no = c_lo >= t - eps if strict else c_lo > t + eps
            gap, dist = max(b.lo - t, 0.0), abs(b.hi - t)
        st = REPLICATED if ok else NOT_REPLICATED if no else INCONCLUSIVE
    else:
        used = mg
        lo, hi = a.lo - a.half - mg, a.hi + a.half + mg
        if c_lo >= lo - eps and c_hi <= hi + eps:
            st = REPLICATED
        elif c_hi < lo - eps or c_lo > hi + eps:
            st = NOT_REPLICATED
        else:
            st = INCONCLUSIVE
        gap = max(lo - b.lo, b.hi - hi, 0.0)
        inside = lo <= b.lo and b.hi <= hi
        dist = min(b.lo - lo, hi - b.hi) if inside else max(lo - b.hi, b.lo - hi)
    f = 0.0
    if st == INCONCLUSIVE:  # se_m^2 / f + se_s^2 + se_p^2 < (dist / z)^2 decides it
        room = (dist / z) ** 2 - se_s**2 - se_p**2
        f = se_m**2 / room if dist > 0 and room > 0 and se_m > 0 else math.inf
    return st, used, gap, f


def _rows_of_parts(results: Sequence[str]) -> str:
    """The status of one row of several parts ("a / b / c")."""
    if all(x == REPLICATED for x in results):
        return REPLICATED
    if results.count(NOT_REPLICATED) * 2 > len(results):
        return NOT_REPLICATED
    if REPLICATED in results and NOT_REPLICATED in results:
        return PARTLY
    return INCONCLUSIVE


def judge(
    paper,
    ours,
    *,
    kind: str,
    se_sampling=None,
    se_mc=None,
    ours_se=None,
    se_reason: str = "",
    paper_se=None,
    paper_n=None,
    nominal=None,
    replicates=None,
    unit: str = "",
    status: str | None = None,
    supports: Sequence = (),
    reason: str = "",
) -> Judgement:
    """The status of one paper-vs-ours row: the book's one rule, an equivalence test (``book/rule.md``).

    The paper's printed value, read by its form (``irrepro._rule.FORMS``) and widened by the margin of
    ``kind``, against ours +- z x sqrt(se_sampling^2 + se_mc^2 + paper_se^2): replicated inside,
    not replicated wholly outside, inconclusive across an edge; a claim takes the combined status
    of its ``supports`` or the chapter's ``status``; no paper value: not comparable.

    Parameters
    ----------
    paper, ours : object
        The paper's value as printed (a number keeping its printed text, text such as ``"3.7 / 77.8"``
        or ``"just over 15%"``, or None) and ours (a number, text with parts, or words for a claim).
    kind : str
        One of the kinds of ``book/margins.yml``.
    se_sampling, se_mc, ours_se, paper_se : float, sequence of float or None
        Our sampling and Monte Carlo errors (per part, or one for all), our error where the two are
        not split (read as Monte Carlo), the paper's sampling error.
    se_reason : str
        Why an error is 0 or missing (required then).
    paper_n, nominal : int, float, a sequence of them or None
        The sample size behind the paper's rate (its binomial error); the level setting a rate's scale.
    replicates, unit : int or None, str
        The Monte Carlo replicates behind ``se_mc``; the unit ``se_sampling`` is clustered by.
    status, supports : str or None, sequence
        For a claim: the chapter's verdict word; the rows (``RowRef``) it rests on.
    reason : str
        Appended to the computed reason.

    Returns
    -------
    Judgement
        ``status``, ``reason``, ``margin``; for an inconclusive row ``why`` (``"monte-carlo"``: about
        ``needed`` replicates would decide; ``"sampling"``: they would not); ``z`` for one part.

    Raises
    ------
    ValueError
        For a row the rule cannot judge (no kind, a claim without supports, an error without reason).

    Examples
    --------
    >>> from irrepro.book import judge
    >>> judge("0.05", 0.049, kind="rate", se_sampling=0.003, se_mc=0.002).status
    'replicated'
    >>> j = judge("0.05", 0.072, kind="rate", se_sampling=0.001, se_mc=0.004, replicates=1000)
    >>> j.status, j.why, j.needed  # straddles 0.05 + 0.005 + 0.02: more replicates would decide
    ('inconclusive', 'monte-carlo', 6878)
    """
    # every kind of reason written here has its legend sentence in irrepro.book._display (reason_kind)
    extra = f"; {reason}" if reason else ""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {KINDS}")
    sup = list(supports) if isinstance(supports, (list, tuple)) else [supports] if supports else []
    if kind == "claim":  # its status comes from words (the rows it rests on), not from numbers
        if _missing(paper):
            return Judgement(NOT_COMPARABLE, "the paper gives no claim" + extra)
        if status is not None and not _missing(status):
            word = str(status).strip().lower()
            if word not in _WORDS:
                raise ValueError(f"status {status!r}: use book.verdict(...) or one of {STATUSES}")
            if not sup:
                raise ValueError("a claim's status needs 'supports': the rows it rests on")
            return Judgement(_WORDS[word], "the chapter's verdict on " + _named(sup) + extra)
        if not sup:
            raise ValueError("a claim needs 'supports' (the rows it rests on) or a number and a numeric kind")
        statuses = [str(getattr(x, "status", "")) for x in sup]
        if not all(x in STATUSES for x in statuses):
            raise ValueError("a claim resting on evidence that is not a row needs the chapter's 'status'")
        return Judgement(_combine(statuses), "from " + _named(sup) + extra)
    if status is not None and not _missing(status):
        raise ValueError(f"a row of kind {kind!r} gets its status from the rule; 'status' is for claims")
    if _missing(paper):
        return Judgement(NOT_COMPARABLE, "the paper gives no number" + extra)
    p, o = _parse(paper), _parse(ours, exact=True)
    if p is None:
        raise ValueError(f"paper {paper!r} is not a number: give the row kind 'claim' and its supports")
    if o is None:
        return Judgement(NOT_REPLICATED, f"no value of ours to compare ({ours})" + extra)
    if len(p) == 1 and len(o) > 1:
        p = p * len(o)
    elif len(o) == 1 and len(p) > 1:
        o = o * len(p)
    if len(p) != len(o):
        raise ValueError(f"paper {paper!r} has {len(p)} values, ours {ours!r} {len(o)}")
    if any(a.pct != b.pct for a, b in zip(p, o)):
        raise ValueError(f"paper {paper!r} vs ours {ours!r}: print percentages on both sides or neither")
    k = len(p)
    if ours_se is not None and (se_sampling is not None or se_mc is not None):
        raise ValueError("give se_sampling and se_mc, or ours_se where the two are not split, not both")
    se_s = _per_part(se_sampling, k, "se_sampling")
    se_m = _per_part(ours_se if ours_se is not None else se_mc, k, "se_mc")
    for name, se in (("se_sampling", se_s), ("se_mc", se_m)):
        if (se < 0).any():
            raise ValueError(f"{name} {se.tolist()} is negative")
    checked = (se_m,) if ours_se is not None else (se_s, se_m)  # ours_se: the two not split
    if any((np.isnan(se) | (se == 0)).any() for se in checked) and not se_reason:
        raise ValueError("an error is 0 or missing: say in se_reason why (no sampled unit, no random step)")
    se_s, se_m = np.nan_to_num(se_s, nan=0.0), np.nan_to_num(se_m, nan=0.0)
    finite = [v for x in p + o for v in (x.lo, x.hi) if math.isfinite(v)]
    scale = 100.0 if p[0].pct or (kind == "rate" and max(map(abs, finite), default=0) > 1) else 1.0
    if kind != "rate" and paper_se is None and (paper_n is not None or nominal is not None):
        raise ValueError("paper_n and nominal are of a rate: the row's kind is not 'rate'")
    n_p = _per_part(paper_n, k, "paper_n")
    se_p = _per_part(paper_se, k, "paper_se")
    nom = _per_part(nominal, k, "nominal")
    m = margins()
    z = m.z
    parts = []  # per part: status, margin used, gap outside, replicates' factor, our error
    sampled = False  # any part with a sampling error (ours or the paper's)
    for i, (a, b) in enumerate(zip(p, o)):
        mg = m.margin(kind, a.point, scale, nominal=float(nom[i]) if math.isfinite(nom[i]) else None)
        sp = float(se_p[i]) if math.isfinite(se_p[i]) else 0.0
        if not math.isfinite(se_p[i]) and math.isfinite(n_p[i]) and n_p[i] > 0:
            fr = min(max(a.point / scale, 0.0), 1.0)
            sp = scale * math.sqrt(fr * (1 - fr) / n_p[i])
        se_all = math.sqrt(se_s[i] ** 2 + se_m[i] ** 2 + sp**2)
        parts.append((*_part(a, b, mg, float(se_s[i]), float(se_m[i]), sp, z), se_all))
        sampled = sampled or se_s[i] > 0 or sp > 0
    results, margins_used, gaps, factors, ses = map(list, zip(*parts))
    st = _rows_of_parts(results)
    why, needed, edge_only = "", None, False
    if st == INCONCLUSIVE:
        f = max(x for x, r in zip(factors, results) if r == INCONCLUSIVE)
        why = MONTE_CARLO if math.isfinite(f) else SAMPLING
        # undecided for want of data, or only because ours sits on an edge with no sampled error
        edge_only = why == SAMPLING and not sampled and bool(se_m.max() > 0)
        if why == MONTE_CARLO and replicates:
            needed = int(math.ceil(float(replicates) * max(f, 1.0) * 1.0001))
    what = f"margin {'/'.join(dict.fromkeys(_fmt(x) for x in margins_used))} ({kind})"
    err = _errors_text(se_s, se_m, ses, z, m, unit)
    if np.isfinite(n_p).any() and not np.isfinite(se_p).any():
        err += f", paper n = {'/'.join(dict.fromkeys(f'{x:.0f}' for x in n_p if math.isfinite(x)))}"
    elif np.isfinite(se_p).any():
        err += f", paper ± {'/'.join(dict.fromkeys(_fmt(z * x) for x in se_p if math.isfinite(x)))}"
    if k == 1:
        txt = {
            REPLICATED: "within",
            NOT_REPLICATED: f"outside by {_fmt(gaps[0])}:",
            INCONCLUSIVE: "straddles",
        }[st]
    else:
        counts = {s: results.count(s) for s in (REPLICATED, INCONCLUSIVE, NOT_REPLICATED) if s in results}
        txt = ", ".join(f"{c} {s}" for s, c in counts.items()) + " of the parts:"
    tail = ""
    if why == MONTE_CARLO:
        tail = "; more replicates would decide" + (f" (about {needed:,})" if needed else "")
    elif edge_only:
        tail = "; ours sits on an edge with Monte Carlo error alone: more replicates may move it off, or show the truth there"
    elif why == SAMPLING:
        tail = "; the sampling error keeps it across the edge: more data would decide, not more replicates"
    zval = None
    if k == 1 and ses[0] > 0 and math.isfinite(p[0].point) and not p[0].side:
        zval = (o[0].point - p[0].point) / ses[0]
    out_margin: float | tuple[float, ...] = margins_used[0] if k == 1 else tuple(margins_used)
    return Judgement(st, f"{txt} {what}; {err}{tail}" + extra, out_margin, why, needed, zval)


def _errors_text(se_s, se_m, ses, z: float, m: Margins, unit: str) -> str:
    if max(ses) == 0:
        return "ours exact"
    out = f"ours ± {'/'.join(dict.fromkeys(_fmt(z * x) for x in ses))} at {level_percent(m.confidence)}"
    parts = []
    if se_s.max() > 0:
        parts.append(f"sampling ± {'/'.join(dict.fromkeys(_fmt(z * x) for x in se_s))}"
                     + (f" by {unit}" if unit else ""))  # fmt: skip
    if se_m.max() > 0:
        parts.append(f"Monte Carlo ± {'/'.join(dict.fromkeys(_fmt(z * x) for x in se_m))}")
    return out + (f" ({', '.join(parts)})" if len(parts) > 1 or (parts and unit) else "")


def _restated(refs: Sequence) -> Judgement:
    """The status of a row that restates rows judged above (``same_as``): theirs, combined."""
    return Judgement(_combine([x.status for x in refs]), "as " + _named(refs))


def _named(sup: Sequence) -> str:
    return "; ".join(f"{s} ({s.status})" if hasattr(s, "status") else str(s) for s in sup)


def _judge_row(row: Mapping) -> Judgement:
    """:func:`judge` applied to a row's keys."""
    old = [k for k in _OLD_KEYS if k in row and not _missing_rule(row[k])]
    if old:
        raise ValueError("; ".join(f"{k!r} is gone: {_OLD_KEYS[k]}" for k in old))
    if _missing_rule(row.get("kind")):
        raise ValueError(f"the row needs a 'kind' ({', '.join(KINDS)})")
    kw = {k: row[k] for k in _RULE_KEYS if k in row and not _missing_rule(row[k]) and k != "reason"}
    reason = "" if _missing(row.get("reason")) else str(row["reason"])
    return judge(row.get("paper"), row.get("ours"), reason=reason, **kw)


def _missing_rule(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def judge_row(row: Mapping) -> Judgement:
    """:func:`judge` on a row's keys, as :func:`compare` judges it (a recorded row's status and reason left out)."""
    r = dict(row)
    if "status_by" in r:  # a row as compare recorded it: its status and reason are the rule's output
        r.pop("reason", None)
        if r.get("status_by") != "chapter":
            r.pop("status", None)
    if isinstance(r.get("paper"), PaperValue):
        r["paper"] = r["paper"].value
    if r.get("se_sampling") is not None or r.get("se_mc") is not None:  # ours_se is their sum, recorded
        r.pop("ours_se", None)
    return _judge_row(r)


def spread_notes(rows_by_run: Sequence[Sequence[Mapping]], label: str = "") -> list[str]:
    """One note per row computed once per run (seed): the range of its numbers and its statuses."""
    runs = [list(r) for r in rows_by_run]
    if not runs or any(len(r) != len(runs[0]) for r in runs):
        raise ValueError("spread_notes takes one list of the same rows per run")
    out = []
    for i in range(len(runs[0])):
        rows = [r[i] for r in runs]
        parsed = [_parse(r.get("ours"), exact=True) for r in rows]
        vals = [v for v in parsed if v is not None]
        if len(vals) == len(parsed) and len({len(v) for v in vals}) == 1:
            parts = []
            for k in range(len(vals[0])):
                lo, hi = min(v[k].lo for v in vals), max(v[k].hi for v in vals)
                parts.append(_fmt(lo) if lo == hi else f"{_fmt(lo)}-{_fmt(hi)}")
            shown = " / ".join(parts)
        else:
            shown = "; ".join(dict.fromkeys(str(r.get("ours")) for r in rows))
        counts = Counter(judge_row(r).status for r in rows)
        statuses = ", ".join(f"{counts[st]} {st}" for st in STATUSES if st in counts)
        out.append(f"{label + ': ' if label else ''}{shown} ({statuses})")
    return out
