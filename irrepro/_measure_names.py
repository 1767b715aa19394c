"""Measure names: one grammar for ir_measures' spellings and objects, trec_eval's names and the
project's own, parsed to a :class:`Measure` with its parameters checked (:func:`parse_measure`): a
name ir_measures reads too means the same measure there (tests/test_measures_grammar.py), a measure
irrepro does not compute an :class:`~irrepro.InputError` saying so. Served by ``irrepro.measures``."""

from __future__ import annotations

import ast
import math
import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from .errors import InputError

#: The largest gain or utility weight (in magnitude): sums of larger ones can overflow to inf
_LARGEST = 1e100


def gain_pairs(gains) -> tuple[tuple[int, float], ...] | None:
    """A grade -> gain mapping (or sequence indexed by grade) as sorted pairs, checked."""
    if gains is None:
        return None
    items = gains.items() if isinstance(gains, Mapping) else enumerate(gains)
    out = {}
    for g, v in items:
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)):
            raise InputError(f"gains: grade {g!r} is not an integer")
        v = float(v)
        if not 0 <= v <= _LARGEST:
            raise InputError(f"gain {v!r} of grade {g} must be a number in [0, 1e100]")
        if g <= 0 and v != 0:
            raise InputError(f"gain {v!r} of grade {g}: grades <= 0 are not relevant and gain 0")
        if v != g and not (g <= 0 and v == 0):  # (a grade's own gain is the default)
            out[int(g)] = v
    return tuple(sorted(out.items())) or None


#: The relevance level parse_measure is given (trec_eval's ``-l``), as an alias fixes it
_GLOBAL_REL = "<the global relevance level>"

# trec_eval's names (``-m`` options and printed names) as ir_measures.parse_trec_measure reads
# them: exact ones (``bpref``: also the project's former spelling), then ``name[._]x`` with x a
# number (ir_measures' pattern, whole name); a list ``P_5,10`` names several measures
_TREC_EXACT: dict[str, tuple[str, dict]] = {
    "map": ("AP", {}), "ndcg": ("nDCG", {}), "recip_rank": ("RR", {}), "infAP": ("infAP", {}),
    "bpref": ("Bpref", {}), "num_ret": ("NumRet", {}), "num_rel": ("NumRel", {}),
    "num_rel_ret": ("NumRet", {"rel": _GLOBAL_REL}), "num_q": ("NumQ", {}), "set_P": ("SetP", {}),
    "set_recall": ("SetR", {}), "set_F": ("SetF", {}), "set_map": ("SetAP", {}),
    "set_relative_P": ("SetP", {"relative": True}), "11pt_avg": ("11pt_avg", {})
}  # fmt: skip
_TREC_NUMBERED = {"map_cut": ("AP", "cutoff"), "P": ("P", "cutoff"), "recall": ("R", "cutoff"),
                  "ndcg_cut": ("nDCG", "cutoff"), "success": ("Success", "cutoff"),
                  "set_F": ("SetF", "beta"), "iprec_at_recall": ("IPrec", "recall"),
                  "relative_P": ("relative_P", "cutoff"), "unj": ("unj", "cutoff"),
                  "Rprec_mult": ("Rprec_mult", "mult")}  # fmt: skip
_TREC_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
_TREC_NUMBERED_RE = re.compile(rf"({'|'.join(_TREC_NUMBERED)})[._]({_TREC_NUMBER}(?:,{_TREC_NUMBER})*)")
# trec_eval 10's rbp and rbp_resid: printed rbp_p=0.5, given as -m rbp.p=0.5
_TREC_RBP = re.compile(rf"(rbp|rbp_resid)(?:[._]p=({_TREC_NUMBER}))?")
# trec_eval's parameters that irrepro names: gains as grade=gain pairs (-m ndcg.1=3,2=9, printed
# ndcg_1=3,2=9) and utility's four weights (-m utility.2,-0.5,-1,0, printed utility_2,-0.5,-1,0)
_TREC_SIGNED = r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"  # (as C's atof reads it)
_TREC_GAINS = re.compile(rf"(ndcg|ndcg_rel|Rndcg|G)[._]((?:[0-9]+={_TREC_SIGNED},)*[0-9]+={_TREC_SIGNED})")
_TREC_UTILITY = re.compile(rf"utility[._]((?:{_TREC_SIGNED},)*{_TREC_SIGNED})")
_TREC_GAINS_FAMILY = {"ndcg": "nDCG", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg", "G": "G"}
# "G_" opens trec_eval's G with gains when a grade= follows (G_1=3,2=9), else Sakai's geometric mean
_TREC_G_GAINS = re.compile(r"G_[0-9]+=")
# (ir_measures has no utility: its weights, unlike any parameter ir_measures reads, may be negative)
_SIGNED = ("utility",)


_KNOWN = (
    "AP, AP@k, P@k, R@k, Rprec, RR, RR@k, Success@k, Bpref, infAP, nDCG, nDCG@k, RBP, "
    "RBP(p=0.5), RBP(rel=1,p=0.5), ERR@k, Judged@k, NumRet, NumRelRet, NumRel, NumQ, IPrec@0.5, "
    "11pt_avg, SetP, SetR, SetF, SetAP, gm_map, gm_bpref, SP, PDoc@k, DCG@k, nDCG_sakai@k, "
    "nCG@k, Q, relative_P@k, Rprec_mult@0.5, utility, binG, G, ndcg_rel, Rndcg, "
    "num_nonrel_judged_ret, unj@k, rbp_resid; parameters as ir_measures writes them, e.g. AP(rel=2), P(rel=2)@10, "
    "nDCG(gains={0:0,1:1,2:3})@10; trec_eval's names (map, P_10, ndcg_cut_10, ndcg_1=3,2=9, "
    "utility_2,-0.5,-1,0, ...)"
)


def _aggregate(s: str) -> tuple[str, str]:
    """``(aggregate, rest)``: ``gm_``, ``G_`` (not before ``<grade>=``: trec_eval's G) or ``mean``."""
    if s.startswith("gm_"):
        return "gm", s[3:]
    if s.startswith("G_") and not _TREC_G_GAINS.match(s):
        return "G", s[2:]
    return "mean", s


def _trec_parameters(text: str, s: str) -> tuple[str, dict] | None:
    """``(family, params)`` of trec_eval's name with gains or weights (``G.1=3``), else None."""
    m = _TREC_GAINS.fullmatch(s)
    if m:
        pairs = [p.split("=") for p in m.group(2).split(",")]
        gains = {int(g): float(v) for g, v in pairs}
        if len(gains) < len(pairs):
            raise InputError(f"measure {text!r}: a grade is given two gains")
        return _TREC_GAINS_FAMILY[m.group(1)], {"gains": gains}
    m = _TREC_UTILITY.fullmatch(s)
    if m:
        w = [float(x) for x in m.group(1).split(",")]
        if len(w) != 4:
            raise InputError(f"measure {text!r}: trec_eval's utility takes four weights p1,p2,p3,p4 "
                             f"(e.g. utility.1,-1,0,0), not {len(w)}")  # fmt: skip
        if w[3] != 0:
            raise InputError(
                f"measure {text!r}: p4 = {m.group(1).split(',')[3]}, trec_eval's weight of the documents "
                "neither relevant nor retrieved, needs the collection's size, which irrepro does not read: "
                "give p4 = 0"
            )
        return "utility", dict(zip(("rel_ret", "nonrel_ret", "rel_missed"), w[:3]))
    return None


def _value(node, text, signed: bool = False):
    """A parameter's value as ir_measures' parser reads it (``_ast_to_value``)."""
    if signed and isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = node.operand
        if isinstance(inner, ast.Constant) and isinstance(inner.value, (int, float)):
            if not isinstance(inner.value, bool):
                return -inner.value
    if isinstance(node, ast.Constant) and (
        node.value is None or isinstance(node.value, (int, float, complex, str))
    ):
        return node.value
    if isinstance(node, ast.Dict) and None not in node.keys:
        keys = [_value(k, text) for k in node.keys]
        if not any(isinstance(k, dict) for k in keys):
            return dict(zip(keys, (_value(v, text) for v in node.values)))
    raise InputError(
        f"measure {text!r}: {ast.unparse(node)!r} is not a literal value ir_measures reads (a number "
        "without a sign, a string, True, False, None or a {...} of these)"
    )


def _split_string(text: str) -> tuple[str, dict, str]:
    """The one parser of measure names: a string -> (family or alias, explicit params, aggregate)."""
    # as ir_measures' parse_measure and parse_trec_measure read them, and beyond: spaces, the prefix
    # ir_measures., the aggregates gm_ / G_, trec_eval's names that ir_measures lacks, the project's own
    s = text.strip()  # (ir_measures reads "AP " but stops at " AP")
    if s.startswith("ir_measures."):
        s = s[len("ir_measures.") :]
    agg, s = _aggregate(s)
    inner, rest = _aggregate(s)
    if agg != "mean" and inner != "mean":
        prefix = f"{agg}_"
        raise InputError(f"measure {text!r}: {s} is already a geometric mean over topics; {prefix} goes "
                         f"before a per-topic measure, e.g. {prefix}{rest}")  # fmt: skip
    trec = _trec_parameters(text, s)
    if trec:
        return (*trec, agg)
    if s in _TREC_EXACT:
        fam, fixed = _TREC_EXACT[s]
        return fam, dict(fixed), agg
    m = _TREC_NUMBERED_RE.fullmatch(s)
    if m:
        base, values = m.group(1), m.group(2).split(",")
        if len(values) > 1:
            sep = s[len(base)]
            raise InputError(f"measure {text!r} names {len(values)} measures (trec_eval's list); give "
                             f"one per name: {', '.join(base + sep + v for v in values)}")  # fmt: skip
        fam, key = _TREC_NUMBERED[base]
        if key == "cutoff" and "." in values[0]:
            raise InputError(f"measure {text!r}: the cutoff {values[0]} must be a whole number")
        return fam, {key: (int if key == "cutoff" else float)(values[0])}, agg
    if s in _TREC_NUMBERED and s not in ("P", "set_F"):  # ir_measures reads a list of measures
        example = "0.5" if s in ("iprec_at_recall", "Rprec_mult") else "10"
        raise InputError(f"measure {text!r} is trec_eval's name of several measures; name one, "
                         f"e.g. {s}_{example}")  # fmt: skip
    m = _TREC_RBP.fullmatch(s)
    if m:  # trec_eval's rbp and rbp_resid: p = 0.9 unless given (ir_measures' RBP: 0.8)
        return (
            ("RBP" if m.group(1) == "rbp" else "rbp_resid"),
            {"p": 0.9 if m.group(2) is None else float(m.group(2))},
            agg,
        )
    if s.startswith("11pt_avg"):  # not a Python identifier: parse it under another name
        s = "_11pt_avg" + s[len("11pt_avg") :]
    try:
        body = ast.parse(s).body
    except (SyntaxError, ValueError):
        raise InputError(f"unknown measure {text!r}; known: {_KNOWN}") from None
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        raise InputError(f"unknown measure {text!r}; known: {_KNOWN}")
    node = body[0].value
    params: dict = {}
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = _value(node.right, text), node.left
    if isinstance(node, ast.Call):
        if node.args:
            raise InputError(f"measure {text!r}: parameters must be named, e.g. AP(rel=2)")
        signed = isinstance(node.func, ast.Name) and node.func.id in _SIGNED
        for kw in node.keywords:
            if kw.arg is None or kw.arg in params:
                raise InputError(f"measure {text!r}: a parameter is given twice or unnamed")
            params[kw.arg] = _value(kw.value, text, signed)
        node = node.func
    if not isinstance(node, ast.Name):
        raise InputError(f"unknown measure {text!r}; known: {_KNOWN}")
    fam = "11pt_avg" if node.id == "_11pt_avg" else node.id
    if at is not None:  # (as ir_measures: @None sets nothing)
        params["@"] = at
    return fam, params, agg


@dataclass(frozen=True)
class _Family:
    params: tuple[str, ...]  # ir_measures' SUPPORTED_PARAMS order (the order str() prints)
    at: str | None = None  # the parameter ``@x`` sets
    at_required: bool = False
    binary: bool = False  # takes the global relevance level when it sets no rel of its own
    agg: str = "mean"  # trec_eval's summary: mean over topics or sum


_FAMILIES: dict[str, _Family] = {
    "AP": _Family(("cutoff", "rel", "judged_only"), "cutoff", binary=True),
    "P": _Family(("cutoff", "rel", "judged_only"), "cutoff", True, binary=True),
    "R": _Family(("cutoff", "rel", "judged_only"), "cutoff", True, binary=True),
    "Rprec": _Family(("rel", "judged_only"), binary=True),
    "RR": _Family(("cutoff", "rel", "judged_only"), "cutoff", binary=True),
    "Success": _Family(("cutoff", "rel", "judged_only"), "cutoff", True, binary=True),
    "Bpref": _Family(("rel",), binary=True),
    "infAP": _Family(("rel",), binary=True),
    "nDCG": _Family(("cutoff", "dcg", "gains", "judged_only"), "cutoff"),
    "RBP": _Family(("cutoff", "p", "rel"), "cutoff"),
    "ERR": _Family(("cutoff",), "cutoff"),
    "Judged": _Family(("cutoff",), "cutoff"),
    "NumRet": _Family(("rel",), agg="sum"),
    "NumRel": _Family(("rel",), binary=True, agg="sum"),
    "NumQ": _Family((), agg="sum"),
    "IPrec": _Family(("recall", "rel", "judged_only"), "recall", True, binary=True),
    "SetP": _Family(("rel", "relative", "judged_only"), binary=True),
    "SetR": _Family(("rel",), binary=True),
    "SetF": _Family(("rel", "beta", "judged_only"), binary=True),
    "SetAP": _Family(("rel", "judged_only"), binary=True),
    # the project's own (no ir_measures equivalent)
    "SP": _Family(("rel",), binary=True),
    "Q": _Family(("rel",), binary=True),
    "PDoc": _Family(("cutoff", "rel"), "cutoff", True, binary=True),
    "DCG": _Family(("cutoff", "gains"), "cutoff", True),
    "nDCG_sakai": _Family(("cutoff",), "cutoff", True),
    "nCG": _Family(("cutoff",), "cutoff", True),
    "11pt_avg": _Family(("rel",), binary=True),
    # trec_eval's measures that ir_measures lacks, under trec_eval's names
    "relative_P": _Family(("cutoff", "rel"), "cutoff", True, binary=True),
    "Rprec_mult": _Family(("mult", "rel"), "mult", True, binary=True),
    "utility": _Family(("rel_ret", "nonrel_ret", "rel_missed", "rel"), binary=True),
    "binG": _Family(("rel",), binary=True),
    "G": _Family(("gains",)),
    "ndcg_rel": _Family(("gains",)),
    "Rndcg": _Family(("rel", "gains"), binary=True),
    "num_nonrel_judged_ret": _Family(("rel",), binary=True, agg="sum"),
    "unj": _Family(("cutoff",), "cutoff", True),
    "rbp_resid": _Family(("p",)),
}

# the default of a parameter a measure leaves out (rbp_resid: trec_eval's p; RBP: ir_measures')
_DEFAULTS = {"p": 0.8, "beta": 1.0, "relative": False, "gains": None, "rel_ret": 1.0, "nonrel_ret": -1.0,
             "rel_missed": 0.0}  # fmt: skip
_RBP_RESID_P = 0.9

#: Families whose per-topic scores lie in [0, 1]: all but the counts and DCG, utility, SP.
_UNIT_FAMILIES = frozenset(n for n, f in _FAMILIES.items() if f.agg == "mean") - {"DCG", "utility", "SP"}

# ir_measures' aliases -> family, fixed parameters
_ALIASES: dict[str, tuple[str, dict]] = {
    "MAP": ("AP", {}), "BPref": ("Bpref", {}), "NDCG": ("nDCG", {}), "Precision": ("P", {}),
    "Recall": ("R", {}), "RPrec": ("Rprec", {}), "MRR": ("RR", {}), "SetRelP": ("SetP", {"relative": True}),
    "NumRelRet": ("NumRet", {"rel": _GLOBAL_REL})
}  # fmt: skip

# ir_measures measures irrepro does not compute, and why
_MISSING = {
    **dict.fromkeys(
        ["alpha_DCG", "α_DCG", "alpha_nDCG", "α_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP",
         "AP_IA", "MAP_IA", "P_IA", "StRecall"],
        "a diversity measure: it needs subtopic (intent) judgments, which irrepro does not read"
    ),
    **dict.fromkeys(
        ["BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ"],
        "a C/W/L measure (cwl_eval) that irrepro does not implement"
    ),
    "Compat": "it needs ideal rankings (preference judgments), which irrepro does not read",
    "Accuracy": "it needs a run of paired relevant / non-relevant scores, not ranked lists"
}  # fmt: skip


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its canonical name, its family and the parameters it uses."""

    name: str
    family: str
    cutoff: int | None = None
    p: float | None = None
    rel: int | None = None
    recall: float | None = None
    beta: float | None = None
    relative: bool = False
    gains: tuple[tuple[int, float], ...] | None = None
    agg: str = "mean"
    mult: float | None = None
    weights: tuple[float, float, float] | None = None

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The range of the measure's per-topic scores, ``(0.0, 1.0)``, or None when it has none."""
        if self.family not in _UNIT_FAMILIES or any(g < 0 for _, g in self.gains or ()):
            return None
        return (0.0, 1.0)


# each parameter's type, as ir_measures' SUPPORTED_PARAMS require it (bool is no int here)
# (numbers.Real: a whole number or a float, for the parameters only irrepro reads)
_TYPES = {"cutoff": int, "rel": int, "p": float, "recall": float, "beta": float, "relative": bool,
          "judged_only": bool, "dcg": str, "gains": dict, "mult": numbers.Real, "rel_ret": numbers.Real,
          "nonrel_ret": numbers.Real, "rel_missed": numbers.Real}  # fmt: skip


def _check_type(text, key, value):
    kind = _TYPES[key]
    if kind is int:
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    elif kind is float:
        ok = isinstance(value, (float, np.floating))
    elif kind is numbers.Real:
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
        if ok:
            return float(value)
    else:
        ok = isinstance(value, kind)
    if not ok:
        what = "a finite number" if kind is numbers.Real else kind.__name__
        whole = kind is float and isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        fix = f" (write {key}={value}.0, as ir_measures requires)" if whole else ""
        raise InputError(f"measure {text!r}: {key}={value!r} must be {what}{fix}")
    return value


def _build(text: str, fam: str, params: dict, agg: str, rel: int | None) -> Measure:
    """Check a family's parameters and make the resolved :class:`Measure`."""
    if fam in _ALIASES:
        fam, fixed = _ALIASES[fam]
        params = {**fixed, **params}
    if fam not in _FAMILIES:
        if fam in _MISSING:
            raise InputError(
                f"measure {text!r} is not computed by irrepro: {_MISSING[fam]}. Supported: {_KNOWN}"
            )
        raise InputError(f"unknown measure {text!r}; known: {_KNOWN}")
    spec = _FAMILIES[fam]
    if "@" in params:
        if spec.at is None:
            raise InputError(f"measure {text!r}: {fam} takes no @ parameter (a cutoff); use {fam}")
        if spec.at in params:
            raise InputError(f"measure {text!r}: {spec.at} is given twice")
        params[spec.at] = params.pop("@")
    unknown = [k for k in params if k not in spec.params]
    if unknown:
        takes = ", ".join(spec.params) or "no parameters"
        raise InputError(f"measure {text!r}: {fam} does not take {', '.join(unknown)} (it takes {takes})")
    for key, value in params.items():
        if not (key == "rel" and value is _GLOBAL_REL):
            params[key] = _check_type(text, key, value)
    if params.get("judged_only", False):
        raise InputError(
            f"measure {text!r}: judged_only=True (trec_eval -J) is not supported by irrepro; "
            "drop it to score every retrieved document"
        )
    if params.get("dcg", "log2") != "log2":
        raise InputError(
            f"measure {text!r}: only dcg='log2' (trec_eval's discount, gain = grade) is supported"
        )
    kw: dict = {"agg": agg if agg in ("gm", "G") else spec.agg}
    if spec.at_required and params.get(spec.at) is None:
        what, example = {"recall": ("a recall level", "@0.5"), "mult": ("a multiple of R", "@0.5")}.get(
            spec.at or "", ("a cutoff", "@10"))  # fmt: skip
        raise InputError(f"measure {text!r} needs {what}, e.g. {fam}{example}")
    if spec.at == "cutoff" and params.get("cutoff") is not None:
        if params["cutoff"] < 1:
            raise InputError(f"measure {text!r}: the cutoff must be at least 1")
        kw["cutoff"] = int(params["cutoff"])
    if spec.at == "recall":
        r = float(params["recall"])
        if not 0.0 <= r <= 1.0:
            raise InputError(f"measure {text!r}: the recall level must be in [0, 1]")
        kw["recall"] = r
    if spec.at == "mult":
        if not params["mult"] >= 0:
            raise InputError(f"measure {text!r}: the multiple of R must be >= 0")
        kw["mult"] = params["mult"]
    if fam in ("RBP", "rbp_resid"):
        p = float(params.get("p", _RBP_RESID_P if fam == "rbp_resid" else 0.8))
        if not 0.0 < p < 1.0:
            raise InputError(f"measure {text!r}: RBP's persistence p must be in (0, 1)")
        kw["p"] = p
    if fam == "utility":
        kw["weights"] = tuple(params.get(w, _DEFAULTS[w]) for w in ("rel_ret", "nonrel_ret", "rel_missed"))
        if max(abs(w) for w in kw["weights"]) > _LARGEST:
            raise InputError(f"measure {text!r}: a weight must lie in [-1e100, 1e100] (beyond, a topic's "
                             "score or the mean over topics can overflow to inf)")  # fmt: skip
    if fam == "SetF":
        b = float(params.get("beta", 1.0))
        if not b >= 0 or not math.isfinite(b):
            raise InputError(f"measure {text!r}: beta must be a finite number >= 0")
        kw["beta"] = b
    if fam == "SetP":
        kw["relative"] = bool(params.get("relative", False))
    if "gains" in params:
        gains = params["gains"]
        if not all(isinstance(v, numbers.Real) for v in gains.values()):
            raise InputError(f"measure {text!r}: gains={gains!r}: every gain must be a number")
        try:
            kw["gains"] = gain_pairs(gains)
        except InputError as e:
            raise InputError(f"measure {text!r}: {e}") from None
    # the relevance level: the measure's own, else the global one (binary measures), else none
    if "rel" in spec.params:
        own = params.get("rel", "absent")
        if own is _GLOBAL_REL or (own == "absent" and spec.binary):
            own = 1 if rel is None else rel
        if own != "absent":
            if _check_type(text, "rel", own) < 1:
                raise InputError(f"measure {text!r}: rel must be >= 1 (a relevance level)")
            kw["rel"] = int(own)
    if agg in ("gm", "G") and spec.agg != "mean":
        raise InputError(f"measure {text!r}: a geometric mean of a count ({fam}) is not offered")
    m = Measure("", fam, **kw)
    m = replace(m, name=_canonical(m))
    if m.agg == "G" and _negative(m):
        base = per_topic(m).name
        raise InputError(
            f"measure {text!r}: Sakai's G_ is exp(mean(log(x + 0.00001))), undefined for a score below "
            f"-0.00001, and {base} can be negative ({_negative(m)}); trec_eval's gm_, which takes "
            f"max(x, 0.00001), stays defined: gm_{base}"
        )
    return m


def _negative(m: Measure) -> str:
    """Why the measure's per-topic scores can be negative, or "" when they cannot."""
    if m.family == "utility" and min(m.weights or (0.0,)) < 0:
        return "a negative weight"
    if any(g < 0 for _, g in m.gains or ()):
        return "a negative gain"
    return ""


def per_topic(m: Measure) -> Measure:
    """The per-topic measure of a geometric mean over topics (``gm_map``: ``AP``), else ``m``."""
    if m.agg not in ("gm", "G"):
        return m
    base = replace(m, agg="mean")
    return replace(base, name=_canonical(base))


def require_per_topic(name, what: str) -> Measure:
    """The measure ``name``; an :class:`~irrepro.InputError` if it is a geometric mean over topics."""
    m = parse_measure(name)
    if m.agg in ("gm", "G"):
        whose = "trec_eval's" if m.agg == "gm" else "Sakai's"
        raise InputError(
            f"-m {name}: {m.name} is {whose} geometric mean over topics, a summary with no per-topic score, "
            f"and {what} works on per-topic scores: give the per-topic measure, -m {per_topic(m).name} "
            f"(irrepro eval -a {m.agg} prints its geometric mean)"
        )
    return m


def _canonical(m: Measure) -> str:
    """ir_measures' str() of the measure (parameters in its order, defaults left out)."""
    spec = _FAMILIES[m.family]
    shown = []
    for key in spec.params:
        if key == spec.at or key in ("judged_only", "dcg"):
            continue
        w = dict(zip(("rel_ret", "nonrel_ret", "rel_missed"), m.weights or ()))
        v = {"p": m.p, "rel": m.rel, "beta": m.beta, "relative": m.relative, "gains": m.gains, **w}[key]
        default = {**_DEFAULTS, "rel": 1 if spec.binary else None}[key]
        if key == "p" and m.family == "rbp_resid":
            default = _RBP_RESID_P
        if v == default:
            continue
        if key == "gains":
            shown.append("gains={" + ",".join(f"{g}:{x:g}" for g, x in m.gains or ()) + "}")
        else:
            shown.append(f"{key}={v!r}")
    name = m.family + (f"({','.join(shown)})" if shown else "")
    at = {"recall": m.recall, "mult": m.mult, "cutoff": m.cutoff}.get(spec.at or "")
    if at is not None:
        name += f"@{at}"
    if m.agg == "gm":
        name = {"AP": "gm_map", "Bpref": "gm_bpref"}.get(name, "gm_" + name)
    elif m.agg == "G":
        name = "G_" + name
    return name


def parse_measure(name, *, rel: int | None = None) -> Measure:
    """Parse a measure name, or an ir_measures measure object, into a :class:`Measure`."""
    if isinstance(name, Measure):
        return name
    if isinstance(name, str):
        fam, params, agg = _split_string(name)
        return _build(name, fam, params, agg, rel)
    if hasattr(name, "NAME") and isinstance(getattr(name, "params", None), dict):  # ir_measures
        params = {k: v for k, v in name.params.items()}
        return _build(str(name), name.NAME, params, "mean", rel)
    raise InputError(f"a measure must be a name or an ir_measures measure, got {name!r}")


def family_cutoff(name) -> tuple[str | None, int | None]:
    """A measure name's family and cutoff in any spelling; ``(None, None)`` for a name of no measure."""
    try:
        m = parse_measure(name)
    except InputError:
        return None, None
    return m.family, m.cutoff
