"""The one rule that gives every compared row its status (:func:`judge`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from ..stats import level_percent
from ._margins import KINDS, Margins, margins
from ._reading import PaperValue, _fmt, _missing, _parse
from ._statuses import (
    _WORD_KINDS,
    _WORDS,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    NOT_REPLICATED,
    PARTLY,
    REPLICATED,
    STATUSES,
    Judgement,
    _combine,
)

__all__ = ["judge", "judge_row", "spread_notes"]

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


#: why a row is inconclusive: more replicates of our resampling would decide it, or they would not
#: (the sampling error of our data, or the paper's, keeps it across the edge)
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

    The paper's printed value, read by its form (``irrepro._rule._reading.FORMS``) and widened by
    the margin of ``kind``, against ours +- z x sqrt(se_sampling^2 + se_mc^2 + paper_se^2):
    replicated inside, not replicated wholly outside, inconclusive across an edge (``Judgement.why``
    says whether more replicates would decide it); several parts combine, partly when some part is
    replicated and some not. No paper value: not comparable; a claim takes the combined status of its
    ``supports`` or the chapter's ``status``.

    Parameters
    ----------
    paper : object
        The paper's value as printed: a number (typed in the yml, keeping its printed text), text
        (``"0.60"``, ``"3.7 / 77.8"``, ``"just over 15%"``), or None.
    ours : object
        Ours: a number, or text with parts (``"3.1 / 80.2 / 16.7"``); words for a claim.
    kind : str
        One of the kinds of ``book/margins.yml``.
    se_sampling, se_mc : float, sequence of float or None
        Our sampling error and Monte Carlo error (per part, or one for all).
    ours_se : float, sequence of float or None
        Our error where it is not split into the two (read as a Monte Carlo error).
    se_reason : str
        Why an error is 0 or missing (required then).
    paper_se : float, sequence of float or None
        The paper's sampling error.
    paper_n : int, sequence of int or None
        The sample size behind the paper's rate (its binomial standard error, where ``paper_se``
        is not given).
    nominal : float or None
        The nominal level that sets a rate's scale (a type I error's alpha, an interval's
        coverage), as a fraction: the margin is a share of it (``book/margins.yml``).
    replicates : int or None
        The Monte Carlo replicates behind ``se_mc``, to say how many would decide.
    unit : str
        The unit whose sampling ``se_sampling`` is clustered by (for the reason).
    status : str or None
        Only for a claim: the chapter's computed verdict word.
    supports : sequence
        For a claim: the rows (``RowRef``) it rests on.
    reason : str
        Appended to the computed reason.

    Returns
    -------
    Judgement
        ``status``, ``reason``; ``margin`` (per part); for an inconclusive row ``why`` (``"monte-carlo"``:
        more replicates would decide, about ``needed``; ``"sampling"``: they would not); ``z``, (ours -
        paper) / its error for a row of one two-sided part.

    Raises
    ------
    ValueError
        For a row the rule cannot judge (no kind, words without a claim's supports, a numeric
        row without its errors or the reason it has none).

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
