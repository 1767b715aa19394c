"""The grammar of measure names: :func:`_split_string` reads a name as ir_measures reads it
(``ir_measures.parse_measure``; trec_eval's names as ``parse_trec_measure``) into its family (or
alias), its parameters and its aggregate; :mod:`irrepro.measures.names` checks them. The one
parser of measure names in irrepro."""

from __future__ import annotations

import ast
import re

from ..errors import InputError

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
    "set_relative_P": ("SetP", {"relative": True}), "11pt_avg": ("11pt_avg", {}),
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


def _known_names() -> str:
    return (
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
    # Strings are read as ir_measures reads them (``parse_measure``: one Python expression
    # ``Name``, ``Name(k=v, ...)``, either followed by ``@x``; values as :func:`_value`) and
    # as ``parse_trec_measure`` reads trec_eval's names; beyond ir_measures: space around the
    # name, the prefix ``ir_measures.``, the aggregates ``gm_`` / ``G_`` (not two),
    # trec_eval's names that ir_measures lacks, with their gains and weights (``G_1=3,2=9``,
    # ``utility.2,-0.5,-1,0``: ``G_`` before ``<grade>=`` is trec_eval's G, before a measure
    # Sakai's geometric mean) and the project's own names.
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
        raise InputError(f"unknown measure {text!r}; known: {_known_names()}") from None
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        raise InputError(f"unknown measure {text!r}; known: {_known_names()}")
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
        raise InputError(f"unknown measure {text!r}; known: {_known_names()}")
    fam = "11pt_avg" if node.id == "_11pt_avg" else node.id
    if at is not None:  # (as ir_measures: @None sets nothing)
        params["@"] = at
    return fam, params, agg
