"""The rule that gives every compared row its status (:func:`judge`): the statuses, the chapter's
verdict on a claim in words (:func:`verdict`), and the reading of the paper's printed numbers
(precision, ranges, fractions, "a / b / c" rows)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..stats import Z95  # tolerances built from a standard error are Z95 x se

__all__ = [
    "STATUSES",
    "REPLICATED",
    "PARTLY",
    "NOT_REPLICATED",
    "NOT_COMPARABLE",
    "verdict",
    "judge",
    "judge_row",
    "spread_notes",
]

#: replicated, or not comparable (the paper gives no number, or our data cannot speak to it).
STATUSES = ("replicated", "partly", "not replicated", "not comparable")
REPLICATED, PARTLY, NOT_REPLICATED, NOT_COMPARABLE = STATUSES

_VERDICTS = {
    "holds": REPLICATED,
    "partly": PARTLY,
    "does not": NOT_REPLICATED,
    "not testable": NOT_COMPARABLE,
}
_WORDS = {s: s for s in STATUSES} | _VERDICTS
_VERDICT_OF = {v: k for k, v in _VERDICTS.items()}
#: the keys of a comparison row that feed the rule and are not shown as columns
_RULE_KEYS = ("tol", "se", "n", "basis", "reason")


def verdict(holds: bool, partly: bool = False) -> str:
    """The verdict on a paper's claim: ``"holds"``, ``"partly"`` or ``"does not"``.

    The verdict on a paper's claim: ``"holds"``, ``"partly"`` or ``"does not"``. Chapters put it
    in their Verdict rows, or in the ``status`` of any row whose values are words (see
    :func:`judge`); it reads as replicated / partly / not replicated.

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


@dataclass(frozen=True)
class _Value:
    lo: float
    hi: float
    half: float  # half a unit of the last printed digit (the printed value's rounding)
    pct: bool


_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)"
_PART = re.compile(
    r"^(?:(?:about|around|approximately|typically|almost|nearly|roughly|well|slightly|just)\s+)*"
    rf"(?P<cmp>>=|<=|≥|≤|>|<|under|below|less than|over|above|more than)?\s*"
    rf"(?P<a>{_NUM})\s*(?P<pa>%)?\s*(?:[-–]\s*(?P<b>{_NUM})\s*(?P<pb>%)?)?\s*(?P<x>x|of\s+\d+)?$"
)
_FRACTION = re.compile(r"^(?:(?:about|around|almost|nearly|roughly)\s+)*(?P<a>\d+)/(?P<b>[1-9]\d*)$")
_SPLIT = re.compile(r"\s+/\s+|\s+vs\.?\s+|\s*->\s*")


def _half_unit(text: str) -> float:
    digits = text.split(".")[1] if "." in text else ""
    return 0.5 * 10.0 ** -len(digits)


def _missing(x) -> bool:
    if x is None:
        return True
    if isinstance(x, float) and math.isnan(x):
        return True
    return isinstance(x, str) and x.strip() in {"", "-", "–", "n/a"}


def _parse(x, exact: bool = False) -> list[_Value] | None:
    """The numbers printed in a cell (``None`` if it holds words): one value per part of
    ``"a / b / c"``, ``"a vs b"`` or ``"a -> b"``; a part is a number, a range ``"11%-14%"`` or a
    bound ``"> 0.6"`` (qualifiers such as *about* are read as the printed precision). A number
    given as a number (not text) is exact when ``exact`` (ours, computed), else it carries the
    precision it is written with (the paper's, typed: ``0.26`` is 0.26 +- 0.005, ``15`` is 15 +- 0.5)."""
    if isinstance(x, bool) or _missing(x):
        return None
    if isinstance(x, (int, float, np.integer, np.floating)):
        v = float(x)
        if exact:
            return [_Value(v, v, 0.0, False)]
        text = repr(v)
        half = 0.5 if v.is_integer() else (_half_unit(text) if "e" not in text else 0.0)
        return [_Value(v, v, half, False)]
    if not isinstance(x, str):
        return None
    text = re.sub(r"\([^)]*\)", " ", x).strip().lower()
    out = []
    for part in _SPLIT.split(text):
        f = _FRACTION.match(part.strip())
        if f:  # "2/3": a fraction is printed to half of its denominator's unit
            v, d = int(f["a"]) / int(f["b"]), int(f["b"])
            out.append(_Value(v, v, 0.5 / d, False))
            continue
        m = _PART.match(part.strip())
        if not m:
            return None
        a, b, cmp = m["a"], m["b"], m["cmp"] or ""
        pct = bool(m["pa"] or m["pb"])
        if b is not None:
            if cmp:
                return None
            lo, hi = float(a), float(b)
            if lo > hi:
                raise ValueError(f"{x!r}: a range must run from low to high (write 'a -> b' for two values)")
            out.append(_Value(lo, hi, max(_half_unit(a), _half_unit(b)), pct))
        elif cmp in {">", ">=", "≥", "over", "above", "more than"}:  # a bound is a threshold, not rounded
            out.append(_Value(float(a), math.inf, 0.0, pct))
        elif cmp in {"<", "<=", "≤", "under", "below", "less than"}:
            out.append(_Value(-math.inf, float(a), 0.0, pct))
        else:  # a count "k of n" is exact
            out.append(
                _Value(float(a), float(a), 0.0 if (m["x"] or "").startswith("of") else _half_unit(a), pct)
            )
    return out


def _fmt(v: float) -> str:
    return f"{v:.3g}"


def judge(
    paper,
    ours,
    *,
    tol: float | None = None,
    se=None,
    n=None,
    basis: str = "",
    status: str | None = None,
    reason: str = "",
) -> tuple[str, str]:
    """The status of one paper-vs-ours row and the reason for it: the scorecard's rule.

    1. A row whose ``status`` is given (a :func:`verdict` word - holds / partly / does not - or one
       of :data:`STATUSES`) keeps it: chapters compute it for claims in words (orderings, yes/no
       with a deciding number). ``"not comparable"`` needs a ``reason`` (e.g. *different data*).
    2. No number in the paper (``None``, NaN, ``""``, ``"-"``): **not comparable**.
    3. Both sides readable as numbers (see below): each of the paper's values is compared with
       ours. A value agrees when the two differ by at most the tolerance

       ``t = rounding + max(tol, z * se)``,

       where *rounding* is half a unit of the last printed digit of each side (so 0.324 against
       0.32397 agrees, 0.05 against 0.028 does not; the paper's ``15`` is 15 +- 0.5, its ``"2/3"``
       2/3 +- 1/6; numbers we pass as numbers, counts ``"k of n"`` and bounds are exact; write the
       paper's value as text, ``"0.60"``, to keep a trailing zero), ``tol`` an absolute margin the
       chapter states and justifies in ``basis``, and ``se`` the standard error of the difference
       (z = 1.96); ``n`` gives it for shares: ``n=(n_paper, n_ours)`` (or ``n_ours`` alone; either
       may list one count per value) is the binomial se of the difference of two independent
       shares, read as percentages when printed with % or when a value of the row exceeds 1. A
       range (``"11%-14%"``) or bound (``"> 0.6"``, ``"under 10%"``) agrees when ours lies in it,
       widened by ``t``. **replicated** when every value agrees, **partly** when some do, **not
       replicated** when none does.
    4. Words on both sides: **replicated** when they are the same (``"yes"``/``"yes"``), **not
       replicated** when both are yes/no and differ; other words need a ``status``
       (:class:`ValueError` otherwise, so no row escapes the rule). A number in the paper against
       words in ours (``"no bin"``) is **not replicated**: we have no value.

    Cells with several values (``"3.7 / 77.8 / 11.1"``, ``"81.0 (round 1) / 80.1 (round 5)"``;
    parentheses are ignored) are compared part by part; one paper value against several of ours is
    compared with each. Percentages must be printed as such on both sides. ``reason`` is appended
    to the computed reason (e.g. what differs in our data).

    Parameters
    ----------
    paper : object
        The paper's value: a number, text (``"0.60"``, ``"3.7 / 77.8"``, ``"11%-14%"``) or None.
    ours : object
        Ours, likewise.
    tol : float or None
        An absolute margin, justified in ``basis``.
    se : float or None
        The standard error of the difference.
    n : int or tuple or None
        Counts behind shares (see above).
    basis : str
        Why ``tol``.
    status : str or None
        A given status or verdict word.
    reason : str
        Appended to the computed reason.

    Returns
    -------
    status, reason : str
        One of :data:`STATUSES`, and why.

    Raises
    ------
    ValueError
        For words the rule cannot compare without a ``status``.

    Examples
    --------
    >>> from irrepro.book import judge
    >>> judge(0.324, 0.32397)[0], judge("0.05", 0.028)[0], judge(None, 0.3)[0]
    ('replicated', 'not replicated', 'not comparable')
    """
    extra = f"; {reason}" if reason else ""
    if status is not None and not _missing(status):
        word = str(status).strip().lower()
        if word not in _WORDS:
            raise ValueError(f"status {status!r}: use book.verdict(...) or one of {STATUSES}")
        st = _WORDS[word]
        if st == NOT_COMPARABLE and not reason and not _missing(paper):
            raise ValueError("a 'not comparable' row needs a reason (e.g. 'different data')")
        return st, reason or ("the chapter's verdict" if word in _VERDICTS else "judged in the chapter")
    if _missing(paper):
        return NOT_COMPARABLE, "the paper gives no number" + extra
    p, o = _parse(paper), _parse(ours, exact=True)
    if p is None or o is None:
        if p is not None:
            return NOT_REPLICATED, f"no value of ours to compare ({ours})" + extra
        said_p, said_o = (re.sub(r"\([^)]*\)", " ", str(v)).strip().lower() for v in (paper, ours))
        if said_p == said_o:
            return REPLICATED, "the same answer" + extra
        if {said_p, said_o} <= {"yes", "no"}:
            return NOT_REPLICATED, "the opposite answer" + extra
        raise ValueError(
            f"paper {paper!r} vs ours {ours!r}: give the row a status "
            "(book.verdict(...) or 'not comparable' with a reason)"
        )
    if len(p) == 1 and len(o) > 1:
        p = p * len(o)
    elif len(o) == 1 and len(p) > 1:
        o = o * len(p)
    if len(p) != len(o):
        raise ValueError(f"paper {paper!r} has {len(p)} values, ours {ours!r} {len(o)}")
    if any(a.pct != b.pct for a, b in zip(p, o)):
        raise ValueError(f"paper {paper!r} vs ours {ours!r}: print percentages on both sides or neither")
    ses = np.broadcast_to(np.asarray(np.nan if se is None else se, dtype=float), (len(p),))
    hits, tols, offs = [], [], []
    # shares are percentages when printed with % or when any value of the row exceeds 1
    finite = [v for x in p + o for v in (x.lo, x.hi) if math.isfinite(v)]
    scale = 100.0 if p[0].pct or max(map(abs, finite), default=0) > 1 else 1.0
    if n is not None:
        n_p, n_o = n if isinstance(n, (tuple, list)) else (None, n)
        n_p = np.broadcast_to(np.asarray(np.nan if n_p is None else n_p, dtype=float), (len(p),))
        n_o = np.broadcast_to(np.asarray(n_o, dtype=float), (len(p),))
    for i, (a, b) in enumerate(zip(p, o)):
        s = ses[i]
        if n is not None:
            fr = [min(max(v / scale, 0.0), 1.0) for v in (a.lo if math.isfinite(a.lo) else a.hi, b.lo)]
            var = fr[1] * (1 - fr[1]) / n_o[i] + (fr[0] * (1 - fr[0]) / n_p[i] if n_p[i] > 0 else 0.0)
            s = scale * math.sqrt(var)
        t = a.half + b.half + max(tol or 0.0, Z95 * s if math.isfinite(s) else 0.0)
        off = max(a.lo - b.hi, b.lo - a.hi, 0.0)  # distance between the two intervals
        hits.append(off <= t + 1e-12)
        tols.append(t)
        offs.append(off)
    k, m = sum(hits), len(hits)
    bases = []
    if n is not None:
        nn = [", ".join(dict.fromkeys(f"{v:.0f}" for v in x)) for x in (n_p, n_o)]
        bases.append(
            "1.96 binomial se, n = "
            + (f"{nn[1]} (ours)" if nn[0] == "nan" else f"{nn[0]} (paper) / {nn[1]} (ours)")
        )
    elif se is not None:
        bases.append("1.96 se of the difference")
    if tol:
        bases.append(basis or "the chapter's tolerance")
    why = " or ".join(bases) or "the printed precision"
    within = (
        ("±" + "/".join(dict.fromkeys(_fmt(t) for t in tols)) + f" ({why})") if max(tols) > 0 else "exactly"
    )
    where = "bound" if all(math.isinf(a.lo) or math.isinf(a.hi) for a in p) else "range"
    if k == m and max(offs) == 0 and any(a.lo != a.hi for a in p):
        st, txt = REPLICATED, f"inside the paper's {where}"
    elif k == m:
        st = REPLICATED
        txt = (
            ("equal" if within == "exactly" else f"within {within}") if m == 1 else f"all {m} within {within}"
        )
    else:
        st = PARTLY if k else NOT_REPLICATED
        worst = max(o_ - t for o_, t in zip(offs, tols))
        if within == "exactly":
            txt = (f"{k} of {m} agree; " if m > 1 else "") + (
                f"outside the paper's {where} by up to {_fmt(worst)}"
                if any(a.lo != a.hi for a in p)
                else f"differs by up to {_fmt(worst)}"
            )
        else:
            txt = (
                f"{k} of {m} within {within}" if m > 1 else f"outside {within}"
            ) + f"; beyond it by up to {_fmt(worst)}"
    return st, txt + extra


def _judge_row(row: Mapping, is_verdict: bool = False) -> tuple[str, str]:
    """:func:`judge` applied to a row (its keys ``tol``, ``se``, ``n``, ``basis``, ``status`` and
    ``reason``). A row of a Verdict table whose status the chapter gives has the reason "the chapter's
    verdict (deciding number in the note)"."""
    kw = {k: row[k] for k in ("tol", "se", "n", "basis", "status") if k in row and not _missing_rule(row[k])}
    reason = "" if _missing(row.get("reason")) else str(row["reason"])
    if is_verdict and "status" in kw and not reason and str(kw["status"]).strip().lower() in _VERDICTS:
        reason = "the chapter's verdict (deciding number in the note)"
    return judge(row.get("paper"), row.get("ours"), reason=reason, **kw)


def _missing_rule(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def judge_row(row: Mapping) -> tuple[str, str]:
    """The status and reason :func:`compare` gives a row, without recording it.

    The status and reason :func:`compare` gives a row (a mapping with ``paper``, ``ours`` and
    the rule's optional keys), without recording it: :func:`judge` with the paper's value read
    from a :class:`PaperValue`. For rows computed more than once (:func:`spread_notes`).

    Parameters
    ----------
    row : mapping
        ``paper``, ``ours`` and the rule's optional keys.

    Returns
    -------
    status, reason : str
        As :func:`judge` gives them.

    Examples
    --------
    >>> from irrepro.book import judge_row
    >>> judge_row({"paper": "0.5", "ours": 0.52})[0]  # 0.5 as printed: +- 0.05
    'replicated'
    >>> judge_row({"paper": "0.50", "ours": 0.52})[0]
    'not replicated'
    """
    from ._papers import PaperValue

    r = dict(row)
    if isinstance(r.get("paper"), PaperValue):
        r["paper"] = r["paper"].value
    return _judge_row(r)


def spread_notes(rows_by_run: Sequence[Sequence[Mapping]], label: str = "") -> list[str]:
    """One note per row computed several times: the range of its numbers and statuses.

    For comparison rows computed several times (e.g. once per seed of an emulation, each run
    a list of the same rows), one note per row: the range of each of its numbers over the runs
    (``"74.0-76.3"``, part by part of ``"a / b / c"``; words: their distinct values) and how many
    runs give each status under the scorecard's rule (:func:`judge_row`), prefixed by ``label``
    (``"seeds 1-5"``). A row needing a ``status`` keeps the one each run gives it.

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
    >>> row = {"quantity": "q", "paper": 0.5}
    >>> runs = [[dict(row, ours=0.52)], [dict(row, ours=0.61)]]
    >>> spread_notes(runs, "seeds 1-2")
    ['seeds 1-2: 0.52-0.61 (1 replicated, 1 not replicated)']
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
            st = judge_row(r)[0]
            counts[st] = counts.get(st, 0) + 1
        statuses = ", ".join(
            f"{n} {st}" for st, n in sorted(counts.items(), key=lambda x: STATUSES.index(x[0]))
        )
        out.append(f"{label + ': ' if label else ''}{shown} ({statuses})")
    return out
