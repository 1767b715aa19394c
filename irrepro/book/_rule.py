"""The one rule that gives every compared row its status (:func:`judge`): an equivalence test of
our number against the paper's, with our Monte Carlo error, the paper's printed precision (and its
sampling error where it gives n) and a margin per kind of number from ``book/margins.yml``
(:func:`margins`); the reading of the paper's printed numbers (precision, qualifiers, ranges, bounds,
fractions, "a / b / c" rows), parsed once here."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

__all__ = [
    "STATUSES",
    "KINDS",
    "REPLICATED",
    "PARTLY",
    "INCONCLUSIVE",
    "NOT_REPLICATED",
    "NOT_COMPARABLE",
    "Margins",
    "margins",
    "Judgement",
    "verdict",
    "judge",
    "judge_row",
    "spread_notes",
]

#: The statuses, in the order tables and counts show them.
STATUSES = ("replicated", "partly", "inconclusive", "not replicated", "not comparable")
REPLICATED, PARTLY, INCONCLUSIVE, NOT_REPLICATED, NOT_COMPARABLE = STATUSES
#: The kinds of number a row compares; each has its equivalence margin in ``book/margins.yml``.
KINDS = ("rate", "correlation", "score", "count", "ordering", "claim")
#: kinds whose status comes from words (the rows a claim rests on), not from numbers
_WORD_KINDS = ("claim",)

_VERDICTS = {
    "holds": REPLICATED,
    "partly": PARTLY,
    "does not": NOT_REPLICATED,
    "inconclusive": INCONCLUSIVE,
}
_WORDS = {s: s for s in STATUSES} | _VERDICTS
_VERDICT_OF = {
    REPLICATED: "holds",
    PARTLY: "partly",
    NOT_REPLICATED: "does not",
    INCONCLUSIVE: "inconclusive",
}
#: the keys of a comparison row that feed the rule
_RULE_KEYS = ("kind", "ours_se", "se_reason", "paper_n", "supports", "reason", "status")
#: keys of the rule before issue 23: rejected with a pointer to the new ones
_OLD_KEYS = {
    "tol": "margins are per kind (book/margins.yml): give 'kind'",
    "basis": "margins are per kind (book/margins.yml): give 'kind'",
    "se": "give our Monte Carlo error as 'ours_se' (and the paper's sample size as 'paper_n')",
    "n": "give our Monte Carlo error as 'ours_se' and the paper's sample size as 'paper_n'",
}


def verdict(holds: bool, partly: bool = False) -> str:
    """A verdict word for a claim in words: ``"holds"``, ``"partly"`` or ``"does not"``.

    For the ``status`` of a row of kind ``"claim"`` that a chapter computes (it must name the rows
    it rests on in ``supports``); it reads as replicated / partly / not replicated.

    Parameters
    ----------
    holds : bool
        The claim holds.
    partly : bool
        It holds in part (when ``holds`` is False).

    Returns
    -------
    str
        The verdict word.

    Examples
    --------
    >>> from irrepro.book import verdict
    >>> verdict(True), verdict(False, partly=True), verdict(False)
    ('holds', 'partly', 'does not')
    """
    return "holds" if holds else ("partly" if partly else "does not")


# --- the margins -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Margins:
    """The equivalence margins per kind and the confidence of the rule's interval.

    Read from ``book/margins.yml`` by :func:`margins`.

    Attributes
    ----------
    confidence : float
        The two-sided confidence of the interval of (ours - paper): 0.90 is two one-sided tests
        at 5% each.
    kinds : dict
        Kind -> its entry (``absolute``, ``relative``, ``relative_to_edge``, ``cite``, ``what``,
        ``why``).
    source : str
        The file read.
    """

    confidence: float
    kinds: Mapping[str, Mapping]
    source: str = ""

    @property
    def z(self) -> float:
        """The normal quantile of the interval (1.645 at 0.90)."""
        return float(stats.norm.ppf(0.5 + self.confidence / 2))

    def margin(self, kind: str, value: float, scale: float = 1.0) -> float:
        """The absolute margin for a paper value ``value`` of ``kind`` (in the row's unit;
        ``scale`` 100 for a share printed in %)."""
        if kind not in self.kinds:
            raise ValueError(f"kind {kind!r}: one of {sorted(self.kinds)} ({self.source})")
        e = self.kinds[kind]
        v = abs(value) if math.isfinite(value) else 0.0
        out = []
        if e.get("absolute") is not None:
            out.append(float(e["absolute"]) * (scale if kind == "rate" else 1.0))
        if e.get("relative") is not None:
            out.append(float(e["relative"]) * v)
        if e.get("relative_to_edge") is not None:
            p = min(max(v / scale, 0.0), 1.0)
            out.append(float(e["relative_to_edge"]) * min(p, 1 - p) * scale)
        return min(out) if out else 0.0

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
            return ("the smaller of " if len(parts) > 1 else "") + " and ".join(parts)

        return pd.DataFrame(
            [
                {
                    "kind": k,
                    "what": e.get("what", ""),
                    "margin": rule(e),
                    "why": e.get("why", ""),
                    "source": e.get("cite", ""),
                }
                for k, e in self.kinds.items()
            ]
        )


@functools.cache
def _read_margins(path: str, mtime: float) -> Margins:
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
        The confidence and the margin of each kind.

    Examples
    --------
    >>> from irrepro.book import margins
    >>> m = margins()
    >>> round(m.z, 3), m.margin("rate", 0.05), m.margin("rate", 0.5), m.margin("score", 0.2)
    (1.645, 0.02, 0.02, 0.010000000000000002)
    >>> m.margin("rate", 0.01)  # half the distance to 0
    0.005
    """
    from ._papers import book_dir

    path = book_dir() / "margins.yml"
    return _read_margins(str(path), path.stat().st_mtime)


# --- reading printed numbers ---------------------------------------------------------------------


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
_FRACTION = re.compile(rf"^(?:(?:{_ABOUT}|{_JUST_UNDER})\s+)?(?P<a>\d+)/(?P<b>[1-9]\d*)$")
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


def _fmt(v: float) -> str:
    return f"{v:.3g}"


# --- the rule ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """The status of one row and what it rests on.

    Attributes
    ----------
    status : str
        One of :data:`STATUSES`.
    reason : str
        Why, in one line.
    margin : float, tuple of float or None
        The equivalence margin used, per part of the row (None: no number compared).
    """

    status: str
    reason: str
    margin: float | tuple[float, ...] | None = None


def _combine(statuses: Sequence[str]) -> str:
    """The status of a row resting on several parts or rows: replicated when all comparable ones
    are, not replicated when all are not, partly when both occur, inconclusive otherwise; not
    comparable when none is comparable."""
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


def _per_part(x, k: int, name: str) -> np.ndarray:
    arr = np.asarray(np.nan if x is None else x, dtype=float).reshape(-1)
    if arr.size not in (1, k):
        raise ValueError(f"{name} has {arr.size} values for {k} parts")
    return np.broadcast_to(arr, (k,))


def judge(
    paper,
    ours,
    *,
    kind: str,
    ours_se=None,
    se_reason: str = "",
    paper_n=None,
    status: str | None = None,
    supports: Sequence = (),
    reason: str = "",
) -> Judgement:
    """The status of one paper-vs-ours row: the book's one rule, an equivalence test.

    For each number of the row (a cell ``"a / b / c"`` is compared part by part), with ``d`` our
    value minus the paper's:

    1. The paper's value is an interval: its printed precision (``0.324`` is 0.324 +- 0.0005,
       ``15%`` is 15 +- 0.5), a range (``"11%-14%"``), a bound (``"> 0.6"``), or a qualified number
       (*just over 15%* is 15 to 16) - see :func:`_parse`. The margin of the row's ``kind``
       (:func:`margins`, ``book/margins.yml``) widens it on both sides.
    2. Our value carries its Monte Carlo standard error ``ours_se`` (0 only for a number computed
       exactly from the data: ``se_reason`` says why); a paper's rate with ``paper_n`` carries its
       binomial standard error. The interval of our value is ours +- z x sqrt(ours_se^2 +
       paper_se^2), z for :attr:`Margins.confidence` (1.645: two one-sided tests at 5%).
    3. **replicated** when our interval lies inside the widened paper interval, **not replicated**
       when it lies wholly outside, **inconclusive** when it straddles an edge (more replicates
       would decide). Several parts: replicated when all are, not replicated when all are not,
       **partly** when both occur, inconclusive otherwise.

    A row with no paper value is **not comparable**. A row of kind ``"claim"`` (words) takes the
    combined status of the rows it rests on (``supports``, :class:`RowRef` s), or a ``status`` the
    chapter computes (a :func:`verdict` word), which needs ``supports`` naming those rows.

    Parameters
    ----------
    paper : object
        The paper's value as printed: a number (typed in the yml, keeping its printed text), text
        (``"0.60"``, ``"3.7 / 77.8"``, ``"just over 15%"``), or None.
    ours : object
        Ours: a number, or text with parts (``"3.1 / 80.2 / 16.7"``); words for a claim.
    kind : str
        One of :data:`KINDS`.
    ours_se : float, sequence of float or None
        The Monte Carlo standard error of our value (per part, or one for all).
    se_reason : str
        Where ``ours_se`` comes from; required when it is 0 or None (why the number is exact).
    paper_n : int, sequence of int or None
        The sample size behind the paper's rate (its binomial standard error).
    status : str or None
        Only for a claim: the chapter's computed verdict word.
    supports : sequence
        For a claim: the rows (:class:`RowRef`) it rests on.
    reason : str
        Appended to the computed reason.

    Returns
    -------
    Judgement
        Status, reason and margin.

    Raises
    ------
    ValueError
        For a row the rule cannot judge (no kind, words without a claim's supports, a numeric
        row without its error or the reason it has none).

    Examples
    --------
    >>> from irrepro.book import judge
    >>> judge("0.05", 0.049, kind="rate", ours_se=0.004).status
    'replicated'
    >>> judge("0.05", 0.018, kind="rate", ours_se=0.001).status
    'not replicated'
    >>> judge("0.05", 0.072, kind="rate", ours_se=0.004).status  # straddles 0.05 + 0.005 + 0.02
    'inconclusive'
    >>> judge("just over 15%", "16.4%", kind="rate", ours_se=0, se_reason="exact").status
    'replicated'
    """
    extra = f"; {reason}" if reason else ""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {KINDS}")
    sup = list(supports) if isinstance(supports, (list, tuple)) else [supports] if supports else []
    if kind in _WORD_KINDS:
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
    se_o = _per_part(ours_se, k, "ours_se")
    if (np.isnan(se_o) | (se_o == 0)).any() and not se_reason:
        raise ValueError("ours_se is 0 or missing: say in se_reason why the number is exact")
    if (se_o < 0).any():
        raise ValueError(f"ours_se {ours_se!r} is negative")
    se_o = np.nan_to_num(se_o, nan=0.0)
    finite = [v for x in p + o for v in (x.lo, x.hi) if math.isfinite(v)]
    scale = 100.0 if p[0].pct or (kind == "rate" and max(map(abs, finite), default=0) > 1) else 1.0
    n_p = _per_part(paper_n, k, "paper_n")
    if paper_n is not None and kind != "rate":
        raise ValueError("paper_n gives a rate's binomial error: the row's kind is not 'rate'")
    m = margins()
    z = m.z
    results, margins_used, gaps = [], [], []
    for i, (a, b) in enumerate(zip(p, o)):
        mg = m.margin(kind, a.point, scale)
        se_p = 0.0
        if math.isfinite(n_p[i]) and n_p[i] > 0:
            fr = min(max(a.point / scale, 0.0), 1.0)
            se_p = scale * math.sqrt(fr * (1 - fr) / n_p[i])
        half_ci = z * math.hypot(se_o[i], se_p)
        lo, hi = a.lo - a.half - mg, a.hi + a.half + mg
        c_lo, c_hi = b.lo - half_ci, b.hi + half_ci
        eps = 1e-12 * max(1.0, abs(b.lo))
        if c_lo >= lo - eps and c_hi <= hi + eps:
            st = REPLICATED
        elif c_hi < lo - eps or c_lo > hi + eps:
            st = NOT_REPLICATED
        else:
            st = INCONCLUSIVE
        results.append(st)
        margins_used.append(mg)
        gaps.append(max(lo - b.lo, b.hi - hi, 0.0))
    st = _combine(results)
    what = f"margin {'/'.join(dict.fromkeys(_fmt(x) for x in margins_used))} ({kind})"
    err = (
        f"ours ± {'/'.join(dict.fromkeys(_fmt(z * x) for x in se_o))} at {m.confidence:.0%}"
        if se_o.max() > 0
        else "ours exact"
    )
    if n_p is not None and np.isfinite(n_p).any():
        err += f", paper n = {'/'.join(dict.fromkeys(f'{x:.0f}' for x in n_p if math.isfinite(x)))}"
    if k == 1:
        txt = {
            REPLICATED: "within",
            NOT_REPLICATED: f"outside by {_fmt(gaps[0])}:",
            INCONCLUSIVE: "straddles",
        }[st]
    else:
        counts = {s: results.count(s) for s in (REPLICATED, INCONCLUSIVE, NOT_REPLICATED) if s in results}
        txt = ", ".join(f"{c} {s}" for s, c in counts.items()) + " of the parts:"
    out_margin: float | tuple[float, ...] = margins_used[0] if k == 1 else tuple(margins_used)
    return Judgement(st, f"{txt} {what}; {err}" + extra, out_margin)


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
    """The status :func:`compare` gives a row, without recording it.

    :func:`judge` with the row's keys (``paper``, ``ours``, ``kind``, ``ours_se``, ``se_reason``,
    ``paper_n``, ``status``, ``supports``, ``reason``), the paper's value read from a
    :class:`PaperValue`. For rows computed more than once (:func:`spread_notes`) and for checking a
    recorded row again (a row of ``$IRREPRO_RESULTS``, with its ``status_by``: its recorded status
    and reason are left out unless the chapter set the status).

    Parameters
    ----------
    row : mapping
        ``paper``, ``ours`` and the rule's keys.

    Returns
    -------
    Judgement
        As :func:`judge` gives it.

    Examples
    --------
    >>> from irrepro.book import judge_row
    >>> judge_row({"paper": "0.50", "ours": 0.52, "kind": "score", "ours_se": 0.001}).status
    'replicated'
    >>> judge_row({"paper": "0.50", "ours": 0.56, "kind": "score", "ours_se": 0.001}).status
    'not replicated'
    """
    from ._papers import PaperValue

    r = dict(row)
    if "status_by" in r:  # a row as compare recorded it: its status and reason are the rule's output
        r.pop("reason", None)
        if r.get("status_by") != "chapter":
            r.pop("status", None)
    if isinstance(r.get("paper"), PaperValue):
        r["paper"] = r["paper"].value
    return _judge_row(r)


def spread_notes(rows_by_run: Sequence[Sequence[Mapping]], label: str = "") -> list[str]:
    """One note per row computed several times: the range of its numbers and statuses.

    For comparison rows computed several times (e.g. once per seed of an emulation, each run
    a list of the same rows), one note per row: the range of each of its numbers over the runs
    (``"74.0-76.3"``, part by part of ``"a / b / c"``; words: their distinct values) and how many
    runs give each status under the rule (:func:`judge_row`), prefixed by ``label``
    (``"seeds 1-5"``).

    Parameters
    ----------
    rows_by_run : sequence of sequence of mapping
        The same rows, once per run (seed).
    label : str
        The notes' prefix.

    Returns
    -------
    list of str
        One note per row.

    Examples
    --------
    >>> from irrepro.book import spread_notes
    >>> row = {"quantity": "q", "paper": "0.5", "kind": "score", "ours_se": 0.001}
    >>> runs = [[dict(row, ours=0.51)], [dict(row, ours=0.61)]]
    >>> spread_notes(runs, "seeds 1-2")
    ['seeds 1-2: 0.51-0.61 (1 replicated, 1 not replicated)']
    """
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
        counts: dict[str, int] = {}
        for r in rows:
            st = judge_row(r).status
            counts[st] = counts.get(st, 0) + 1
        statuses = ", ".join(
            f"{n} {st}" for st, n in sorted(counts.items(), key=lambda x: STATUSES.index(x[0]))
        )
        out.append(f"{label + ': ' if label else ''}{shown} ({statuses})")
    return out
