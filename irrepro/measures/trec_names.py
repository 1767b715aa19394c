"""trec_eval's names of irrepro's measures (:func:`trec_eval_name`) and the order in which
trec_eval prints them."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._measure_names import Measure, parse_measure, per_topic
from ..errors import InputError

# trec_eval's measures in the order it prints them (measures.c's te_trec_measures, trec_eval 10;
# 9.0.8 lacks rbp): a measure's lines come out in this order whatever the order of the -m options
_TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
)  # fmt: skip


class _TrecEval(NamedTuple):
    """One of trec_eval's measures with its parameters: how ``-m`` takes it and how it prints it."""

    measure: str  # trec_eval's measure, as -m names it: "P", "map", "utility"
    printed: str  # its parameter as trec_eval prints it after "_" ("" for none): "10", "0.50"
    given: str  # the parameter as -m takes it after "." ("" for none): "10", "0.5"
    level: int | None  # the relevance level (-l) it is computed at; None: a graded measure or a count
    order: float = 0.0  # its place among the measure's parameters (cutoffs ascending)

    @property
    def name(self) -> str:
        """What trec_eval prints: ``P_10``, ``utility_2,-0.5,-1,0``, ``map``."""
        return f"{self.measure}_{self.printed}" if self.printed else self.measure


#: trec_eval's measures whose -m takes a list of parameters (``P.5,10``): several in one call
_LISTS = (
    "P",
    "recall",
    "map_cut",
    "ndcg_cut",
    "success",
    "relative_P",
    "iprec_at_recall",
    "Rprec_mult",
    "unj",
)


def _number(x: float) -> str:
    """``x`` as the shortest decimal that reads back to it, without exponent or trailing ``.0``."""
    return np.format_float_positional(float(x), trim="-")


def _trec_eval_of(m: Measure) -> _TrecEval | None:
    """trec_eval's measure computing ``m`` (at the level ``m.rel``), or None when it has none."""
    f, k, level = m.family, m.cutoff, m.rel

    def plain(name: str) -> _TrecEval:
        return _TrecEval(name, "", "", level)

    def param(name: str, printed, given=None, order: float = 0.0) -> _TrecEval:
        return _TrecEval(name, str(printed), str(printed if given is None else given), level, order)

    if m.agg == "G":  # Sakai's geometric mean: not a trec_eval measure
        return None
    if m.agg == "gm":
        name = {"AP": "gm_map", "Bpref": "gm_bpref"}.get(f) if k is None else None
        return plain(name) if name else None
    if f == "NumRet":
        return plain("num_ret" if m.rel is None else "num_rel_ret")
    simple = {"NumRel": "num_rel", "NumQ": "num_q", "Rprec": "Rprec", "Bpref": "bpref",
              "infAP": "infAP", "11pt_avg": "11pt_avg", "SetR": "set_recall", "SetAP": "set_map",
              "binG": "binG", "num_nonrel_judged_ret": "num_nonrel_judged_ret"}  # fmt: skip
    if f in simple:
        return plain(simple[f])
    if f in ("G", "ndcg_rel", "Rndcg") or (f == "nDCG" and k is None):
        name = "ndcg" if f == "nDCG" else f  # gains as -m takes them, printed as given: G_1=3,2=9
        return (
            plain(name) if m.gains is None else param(name, ",".join(f"{g}={_number(v)}" for g, v in m.gains))
        )
    if f == "utility":  # its weights p1, p2, p3 and p4 = 0, printed as given: utility_2,-0.5,-1,0
        default = m.weights == (1.0, -1.0, 0.0)
        return plain(f) if default else param(f, ",".join(_number(w) for w in (*(m.weights or ()), 0.0)))
    if f == "rbp_resid" or (f == "RBP" and m.rel is None and k is None):  # graded, p = 0.9 unless given
        name = "rbp" if f == "RBP" else f
        return plain(name) if m.p == 0.9 else param(name, f"p={_number(m.p or 0.0)}", order=m.p or 0.0)
    if f in ("relative_P", "unj", "P", "R", "Success") or (f in ("AP", "nDCG") and k is not None):
        if f == "nDCG" and m.gains is not None:  # (trec_eval's ndcg_cut takes no gains)
            return None
        name = {"R": "recall", "Success": "success", "AP": "map_cut", "nDCG": "ndcg_cut"}.get(f, f)
        return param(name, k, order=float(k or 0))
    if f in ("Rprec_mult", "IPrec"):  # printed with two decimals (%3.2f), computed at the value given
        x = float((m.mult if f == "Rprec_mult" else m.recall) or 0.0)
        return param("Rprec_mult" if f == "Rprec_mult" else "iprec_at_recall", f"{x:3.2f}", _number(x), x)
    if f in ("AP", "RR"):
        return plain("map" if f == "AP" else "recip_rank") if k is None else None
    if f == "SetP":
        return plain("set_relative_P" if m.relative else "set_P")
    if f == "SetF":  # beta printed as given: set_F_0.5
        return (
            plain("set_F") if m.beta == 1.0 else param("set_F", _number(m.beta or 0.0), order=m.beta or 0.0)
        )
    return None


def _trec_eval_measure(measure, rel: int | None = None) -> _TrecEval | None:
    """trec_eval's measure computing ``measure`` under ``-l rel``, or None when it has none."""
    m = parse_measure(measure, rel=rel)
    te = _trec_eval_of(m)
    if te is None or (te.level is not None and te.level != (1 if rel is None else rel)):
        return None
    return te


def trec_eval_name(measure, *, rel: int | None = None) -> str | None:
    """The name trec_eval prints for a measure, or None when trec_eval has no such measure."""
    te = _trec_eval_measure(measure, rel)
    return None if te is None else te.name


def _trec_eval_key(measure, rel: int | None = None) -> tuple:
    """Sort key putting measures in the order trec_eval prints them (cutoffs ascending within a measure)."""
    te = _trec_eval_measure(measure, rel)
    if te is None:
        return (len(_TREC_ORDER), 0.0)
    return (_TREC_ORDER.index(te.measure), te.order)


def _trec_eval_calls(measures, rel: int | None = None) -> tuple[dict, list[tuple[int, list[str]]]]:
    """The trec_eval calls printing every measure: ``({measure: name}, [(-l, [-m options]), ...])``."""
    # Raises :class:`~irrepro.InputError` for a measure trec_eval lacks and for two measures
    # that trec_eval prints under one name (``AP`` and ``AP(rel=2)``, both ``map``).
    names: dict = {}
    seen: dict[str, tuple[str, Measure]] = {}  # trec_eval's name -> (the first -m giving it, measure)
    found: list[_TrecEval] = []
    for given in measures:
        m = parse_measure(given, rel=rel)
        if m.agg in ("gm", "G"):
            base = per_topic(m)
            te = _trec_eval_of(base)
            whose = "trec_eval's" if m.agg == "gm" else "Sakai's"
            if te is None:
                then = f"the per-topic {base.name} is not trec_eval's either"
            else:
                then = f"standardize the per-topic measure, -m {base.name}"
                then += f" (trec_eval's {te.name})" if te.name != base.name else ""
            raise InputError(
                f"-m {given}: {m.name} is {whose} geometric mean over topics ({m.agg}_), a summary with no "
                f"per-topic score, and trec_eval -Z standardizes each topic's score; {then}"
            )
        te = _trec_eval_of(m)
        if te is None:
            raise InputError(
                f"-m {given}: trec_eval has no such measure ({m.name}), so trec_eval -Z cannot use it"
            )
        names[given] = te.name
        if te.name not in seen:
            seen[te.name] = (given, m)
            found.append(te)
            continue
        first, fm = seen[te.name]
        if fm != m:
            at = f" (at -l {fm.rel or 1} and -l {m.rel or 1})" if fm.rel != m.rel else ""
            raise InputError(
                f"-m {first} and -m {given} are both trec_eval's {te.name}{at}: a z-score file holds "
                f"one {te.name} per topic; give them one file each"
            )
    levels: list[int] = list(dict.fromkeys(te.level for te in found if te.level is not None))
    levels = levels or [1 if rel is None else rel]
    calls: list[tuple[int, dict[str, list[_TrecEval]]]] = [(lv, {}) for lv in levels]
    for te in found:
        for level, held in calls:
            same = held.get(te.measure, [])
            if (te.level in (None, level)) and (not same or te.measure in _LISTS):
                held.setdefault(te.measure, []).append(te)
                break
        else:
            calls.append((te.level or levels[0], {te.measure: [te]}))
    out = []
    for level, held in calls:
        options = []
        for measure, tes in held.items():
            tes = sorted(tes, key=lambda t: t.order)
            options.append(measure + ("." + ",".join(t.given for t in tes) if tes[0].given else ""))
        out.append((level, options))
    return names, out
