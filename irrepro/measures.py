"""Evaluation measures over whole run sets at once, list by list (trec_eval's conventions).

One call scores many runs on many measures::

    from irrepro import data, measures
    rs = data.load_runs("trec-covid-round5")
    sc = measures.evaluate(rs, ["AP", "nDCG@20", "P@20", "Q", "RBP(p=0.5)"])
    sc["AP"].mean()                        # MAP per run, as trec_eval -c reports it
    measures.summarize(sc)                 # runs x measures, each with trec_eval's average
    measures.to_frame(sc)                  # long form: run, query_id, measure, value
    measures.aggregate(sc["AP"], "G")      # Sakai's / Voorhees' geometric mean (G_AveP)

Measures are named as ir_measures names them - as strings (``"nDCG@10"``, ``"AP(rel=2)"``,
``"RBP(rel=1,p=0.5)"``, ``"ir_measures.nDCG@10"``) or as ir_measures objects (``nDCG@10``,
``AP(rel=2)``) - with ir_measures' aliases (``MAP``, ``MRR``, ``BPref``, ``NDCG``, ``NumRelRet``,
``SetRelP``, ...), trec_eval's names (``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank``,
``num_rel_ret``, ``iprec_at_recall_0.10``, ``11pt_avg``, ``gm_map``, ...) and the project's own
(``Q``, ``nDCG_sakai@k``, ...). Results carry the canonical name: ir_measures' ``str()`` of the
measure where ir_measures has it (``parse_measure("MRR@10").name == "RR@10"``), including a
relevance level other than 1 (``evaluate(..., rel=2)`` names AP ``"AP(rel=2)"``).

=====================  ========================  ================================================
irrepro / ir_measures  trec_eval                 definition and convention
=====================  ========================  ================================================
``AP``                 ``map``                   average precision: (1/R) sum over the relevant
                                                 ranks of the precision there (Sakai's AveP)
``AP@k``               ``map_cut_k``             the same over the top k, still divided by R
``P@k``                ``P_k``                   relevant in the top k / k
``R@k``                ``recall_k``              relevant in the top k / R
``Rprec``              ``Rprec``                 precision at rank R
``RR``, ``RR@k``       ``recip_rank``            1 / rank of the first relevant document (in the
                                                 top k); ``MRR@10`` is ``RR@10`` (MS MARCO's)
``Success@k``          ``success_k``             1 if a relevant document is in the top k
``Bpref``              ``bpref``                 Buckley & Voorhees 2004, as m_bpref.c
``infAP``              ``infAP``                 Yilmaz & Aslam's inferred AP, as m_infap.c: a
                                                 qrels grade < 0 marks a pooled but unjudged
                                                 document
``nDCG``, ``nDCG@k``   ``ndcg``, ``ndcg_cut_k``  DCG / ideal DCG, gain = grade (or ``gains``),
                                                 discount 1/log2(rank + 1);
                                                 ``nDCG(gains={0:0,1:1,2:3})@10`` sets its own
                                                 gains
``RBP``, ``RBP@k``     ``rbp``                   rank-biased precision (Moffat & Zobel 2008), p =
                                                 0.8 unless given (ir_measures' default;
                                                 trec_eval's is 0.9). Graded unless ``rel`` is
                                                 given: a topic's gains are divided by that
                                                 topic's largest gain when it exceeds 1 (m_rbp.c;
                                                 NIST's TREC-COVID ``rbp_p5`` is ``RBP(p=0.5)``);
                                                 ``RBP(rel=r)``: binary, relevant = grade >= r;
                                                 ``@k``: the sum stops at rank k
``ERR``, ``ERR@k``     (gdeval.pl)               expected reciprocal rank as TREC Web 2010-2014's
                                                 gdeval.pl computes it (ir_measures' provider):
                                                 stop probability (2**grade - 1) / 2**4, grades
                                                 0..4 (a larger judged grade is an error, as
                                                 there)
``Judged@k``           (1 - ``unj_k``)           judged documents in the top min(k, L) / min(k,
                                                 L) (ir_measures'); a qrels grade < 0 is not a
                                                 judgment (trec_eval's convention; ir_measures
                                                 counts any qrels line)
``NumRet``             ``num_ret``               documents retrieved (summed over topics, not
                                                 averaged)
``NumRelRet``          ``num_rel_ret``           relevant documents retrieved, summed
                                                 (``NumRet(rel=r)``)
``NumRel``             ``num_rel``               R, the relevant documents judged, summed
``NumQ``               ``num_q``                 topics, summed
``IPrec@r``            ``iprec_at_recall_r``     interpolated precision at recall r, at the
                                                 (long)(r R + 0.9)-th relevant document as
                                                 trec_eval 9 and pytrec_eval count (trec_eval 10
                                                 rounds r R to nearest: other values when its
                                                 fraction is in [0.1, 0.5))
``11pt_avg``           ``11pt_avg``              the mean of ``IPrec@0.0`` ... ``IPrec@1.0``
                                                 (ir_measures has no name for it)
``SetP``               ``set_P``                 relevant retrieved / retrieved
``SetRelP``            ``set_relative_P``        relevant retrieved / min(retrieved, R)
                                                 (``SetP(relative=True)``)
``SetR``               ``set_recall``            relevant retrieved / R
``SetF``               ``set_F``                 (beta + 1) P R / (beta P + R) with SetP and
                                                 SetR, beta = 1 unless given (``SetF(beta=0.5)``;
                                                 trec_eval's x, not squared)
``SetAP``              ``set_map``               SetP x SetR
``gm_map``             ``gm_map``                per topic AP; summarised by trec_eval's
                                                 geometric mean exp(mean(log(max(x, 0.00001))));
                                                 likewise ``gm_bpref`` and ``gm_`` before any
                                                 measure
``SP``                 (irrepro)                 AP x R: the sum of the precisions at the
                                                 relevant ranks
``PDoc@k``             (irrepro)                 ``P@k`` under Sakai's (2006) name
``DCG@k``              (irrepro)                 the sum over the top k of gain / log2(rank + 1)
``nDCG_sakai@k``       (irrepro)                 Sakai's nDCG_l: discount 1 at ranks <= 2, 1 /
                                                 log2(rank) beyond (NTCIREVAL)
``nCG@k``              (irrepro)                 cumulative gain at k / the ideal one (Sakai
                                                 2006, Sec. 2.1)
``Q``                  (irrepro)                 Sakai's Q-measure, beta = 1 (Sakai 2006, Sec.
                                                 2.1)
=====================  ========================  ================================================

Conventions (trec_eval's, which NIST's official scores use):

* **Topics.** Only topics with judgments are evaluated: a :class:`~irrepro.data.RunSet` holds
  the qrels' topics; topics a run has but the qrels lack are ignored (``RunSet.ignored_topics``).
* **Averages.** A run missing a topic scores 0 there (every measure is computed on the empty
  list, as ``trec_eval -c`` does; ``NumRel`` and ``NumQ`` still count the topic). :func:`summarize`,
  :func:`to_frame` and :func:`to_dict` give either of trec_eval's averages: ``complete=True``
  (the default; ``trec_eval -c``, and ir_measures' ``calc_aggregate``, which reports a missing
  topic as 0 - also for NumRel and NumQ) over all the qrels' topics, or ``complete=False``
  (plain trec_eval 9, pytrec_eval) over the topics the run retrieved something for. (trec_eval
  10.0 without ``-c`` stops with an error on a run that misses a qrels topic.)
* **Topics without relevant documents** (R = 0) score 0 on every measure normalised by R or an
  ideal list, and still count in the mean, as in trec_eval.
* **Relevance** is ``grade >= rel`` (``rel=1`` by default: trec_eval's ``-l``); a measure's own
  ``rel`` (``AP(rel=2)``) overrides it. Graded measures use a gain per grade: the grade itself by
  default (trec_eval's convention, for any integer grade), ``gains`` maps grades to other gains
  (grades it does not name keep gain = grade). The (n)DCG / nCG family and graded RBP ignore
  ``rel``; Q-measure uses ``rel`` for isrel(r) and R, the gains for cg(r) and cg_I(r).
* **Negative qrels grades** mean "in the pool but not judged" to trec_eval: such a document is
  neither relevant nor judged non-relevant (``UNJUDGED``), and only infAP tells it from an unpooled
  one.
* **Ranking** is trec_eval's (score descending, ties by document id descending), done by the data
  layer; lists are used in full unless ``depth`` cuts them (trec_eval's ``-M``).

The kernel scores blocks of ranked lists (``RunSet.iter_blocks``), summing over the positions of
the relevant (or positive-gain) documents in rank order as trec_eval's loops do: memory follows the
block (about 130,000 list cells), not runs x topics x longest list, and nothing is sized by the
largest grade.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .data import PAD, UNJUDGED, RunSet, ScoreMatrix

#: The offset of the geometric-mean forms (Sakai 2006: log(x + 0.00001)); also trec_eval's
#: MIN_GEO_MEAN and INFAP_EPSILON.
GM_EPSILON = 1e-5

__all__ = [
    "MEASURE_FAMILIES",
    "Evaluation",
    "Measure",
    "aggregate",
    "average_precision",
    "evaluate",
    "parse_measure",
    "rbp_residual",
    "score_grades",
    "summarize",
    "to_dict",
    "to_frame",
]

# numbers of list cells (lists x ranks) handled at once: bounds the temporaries' memory
_CHUNK_CELLS = 1 << 17

# in a block, a retrieved document whose qrels grade is negative (pooled but unjudged); every
# measure but infAP treats it as UNJUDGED
_POOLED = -3

# ERR (gdeval.pl): stop probability (2**g - 1) / 2**_ERR_MAX_GRADE, grades up to _ERR_MAX_GRADE
_ERR_MAX_GRADE = 4


# --------------------------------------------------------------------------------------------
# names
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Family:
    params: tuple[str, ...]  # ir_measures' SUPPORTED_PARAMS order (the order str() prints)
    at: str | None = None  # the parameter ``@x`` sets
    at_required: bool = False
    binary: bool = False  # takes the global relevance level when it sets no rel of its own
    agg: str = "mean"  # trec_eval's summary: mean over topics or sum
    ir_measures: bool = True


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
    "SP": _Family(("rel",), binary=True, ir_measures=False),
    "Q": _Family(("rel",), binary=True, ir_measures=False),
    "PDoc": _Family(("cutoff", "rel"), "cutoff", True, binary=True, ir_measures=False),
    "DCG": _Family(("cutoff", "gains"), "cutoff", True, ir_measures=False),
    "nDCG_sakai": _Family(("cutoff",), "cutoff", True, ir_measures=False),
    "nCG": _Family(("cutoff",), "cutoff", True, ir_measures=False),
    "11pt_avg": _Family(("rel",), binary=True, ir_measures=False),
}

#: Families of measures :func:`evaluate` knows, with what ``@x`` sets and whether it is needed:
#: ``"none"``, ``"optional"``, ``"required"`` (a rank cutoff) or ``"recall"`` (IPrec's level).
MEASURE_FAMILIES = {
    name: ("recall" if f.at == "recall" else "none" if f.at is None else "required" if f.at_required else "optional")
    for name, f in _FAMILIES.items()
}  # fmt: skip

# ir_measures' aliases (and the project's former spelling of Bpref) -> family, fixed parameters
_ALIASES: dict[str, tuple[str, dict]] = {
    "MAP": ("AP", {}),
    "BPref": ("Bpref", {}),
    "bpref": ("Bpref", {}),
    "NDCG": ("nDCG", {}),
    "Precision": ("P", {}),
    "Recall": ("R", {}),
    "RPrec": ("Rprec", {}),
    "MRR": ("RR", {}),
    "SetRelP": ("SetP", {"relative": True}),
    "NumRelRet": ("NumRet", {"rel": None}),  # rel None here: the global relevance level
}

# ir_measures measures irrepro does not compute, and why
_MISSING = {
    **dict.fromkeys(
        ["alpha_DCG", "α_DCG", "alpha_nDCG", "α_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP",
         "AP_IA", "MAP_IA", "P_IA", "StRecall"],
        "a diversity measure: it needs subtopic (intent) judgments, which irrepro does not read",
    ),
    **dict.fromkeys(
        ["BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ"],
        "a C/W/L measure (cwl_eval) that irrepro does not implement",
    ),
    "Compat": "it needs ideal rankings (preference judgments), which irrepro does not read",
    "Accuracy": "it needs a run of paired relevant / non-relevant scores, not ranked lists",
}  # fmt: skip

# trec_eval's names: exact ones, then ones with a number
_TREC_EXACT = {
    "map": ("AP", {}), "ndcg": ("nDCG", {}), "recip_rank": ("RR", {}), "infAP": ("infAP", {}),
    "num_ret": ("NumRet", {}), "num_rel": ("NumRel", {}), "num_rel_ret": ("NumRet", {"rel": None}),
    "num_q": ("NumQ", {}), "set_P": ("SetP", {}), "set_recall": ("SetR", {}),
    "set_F": ("SetF", {}), "set_map": ("SetAP", {}), "set_relative_P": ("SetP", {"relative": True}),
    "11pt_avg": ("11pt_avg", {}),
}  # fmt: skip
_TREC_CUT = re.compile(r"^(map_cut|P|recall|ndcg_cut|success)_(\d+)$")
_TREC_CUT_FAMILY = {"map_cut": "AP", "P": "P", "recall": "R", "ndcg_cut": "nDCG", "success": "Success"}
_TREC_IPREC = re.compile(r"^iprec_at_recall_(\d*\.?\d+)$")


@dataclass(frozen=True)
class Measure:
    """A parsed measure: ``name`` is the canonical name (ir_measures' ``str()`` where ir_measures
    has the measure), ``family`` e.g. ``"nDCG"``; the parameters it uses (None when it has none):
    ``cutoff`` k, RBP's ``p``, the relevance level ``rel`` (None: graded, or every document for
    ``NumRet``), IPrec's ``recall``, SetF's ``beta``, SetP's ``relative``, ``gains`` as sorted
    (grade, gain) pairs, and ``agg``: how :func:`summarize` combines topics (``"mean"``,
    ``"sum"`` or ``"gm"``, trec_eval's geometric mean)."""

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


def _known_names() -> str:
    return (
        "AP, AP@k, P@k, R@k, Rprec, RR, RR@k, Success@k, Bpref, infAP, nDCG, nDCG@k, RBP, "
        "RBP(p=0.5), RBP(rel=1,p=0.5), ERR@k, Judged@k, NumRet, NumRelRet, NumRel, NumQ, IPrec@0.5, "
        "11pt_avg, SetP, SetR, SetF, SetAP, gm_map, gm_bpref, SP, PDoc@k, DCG@k, nDCG_sakai@k, "
        "nCG@k, Q; parameters as ir_measures writes them, e.g. AP(rel=2), P(rel=2)@10, "
        "nDCG(gains={0:0,1:1,2:3})@10; trec_eval's names (map, P_10, ndcg_cut_10, ...)"
    )


def _literal(node, text):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"measure {text!r}: {ast.unparse(node)!r} is not a literal value") from None


def _split_string(text: str) -> tuple[str, dict, str]:
    """A measure string -> (family or alias, explicit params, aggregate)."""
    s = text.strip()
    if s.startswith("ir_measures."):
        s = s[len("ir_measures.") :]
    agg = "mean"
    if s.startswith("gm_"):
        agg, s = "gm", s[3:]
    if s in _TREC_EXACT:
        fam, params = _TREC_EXACT[s]
        return fam, dict(params), agg
    m = _TREC_CUT.match(s)
    if m:
        return _TREC_CUT_FAMILY[m.group(1)], {"cutoff": int(m.group(2))}, agg
    m = _TREC_IPREC.match(s)
    if m:
        return "IPrec", {"recall": float(m.group(1))}, agg
    if s.startswith("11pt_avg"):  # not a Python identifier: parse it under another name
        s = "_11pt_avg" + s[len("11pt_avg") :]
    try:
        node = ast.parse(s, mode="eval").body
    except SyntaxError:
        raise ValueError(f"unknown measure {text!r}; known: {_known_names()}") from None
    params: dict = {}
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = _literal(node.right, text), node.left
    if isinstance(node, ast.Call):
        if node.args:
            raise ValueError(f"measure {text!r}: parameters must be named, e.g. AP(rel=2)")
        for kw in node.keywords:
            if kw.arg is None or kw.arg in params:
                raise ValueError(f"measure {text!r}: a parameter is given twice or unnamed")
            params[kw.arg] = _literal(kw.value, text)
        node = node.func
    if not isinstance(node, ast.Name):
        raise ValueError(f"unknown measure {text!r}; known: {_known_names()}")
    fam = "11pt_avg" if node.id == "_11pt_avg" else node.id
    if at is not None:
        params["@"] = at
    return fam, params, agg


def _check_type(text, key, value, kind):
    if kind is int:
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    elif kind is float:
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise ValueError(f"measure {text!r}: {key}={value!r} must be {kind.__name__}")
    return value


def _build(text: str, fam: str, params: dict, agg: str, rel: int | None) -> Measure:
    """Check a family's parameters and make the resolved :class:`Measure`."""
    if fam in _ALIASES:
        fam, fixed = _ALIASES[fam]
        params = {**fixed, **params}
    if fam not in _FAMILIES:
        if fam in _MISSING:
            raise ValueError(
                f"measure {text!r} is not computed by irrepro: {_MISSING[fam]}. "
                f"Supported: {_known_names()}"
            )
        raise ValueError(f"unknown measure {text!r}; known: {_known_names()}")
    spec = _FAMILIES[fam]
    if "@" in params:
        if spec.at is None:
            raise ValueError(f"measure {text!r}: {fam} takes no @ parameter (a cutoff); use {fam}")
        if spec.at in params:
            raise ValueError(f"measure {text!r}: {spec.at} is given twice")
        params[spec.at] = params.pop("@")
    unknown = [k for k in params if k not in spec.params]
    if unknown:
        takes = ", ".join(spec.params) or "no parameters"
        raise ValueError(f"measure {text!r}: {fam} does not take {', '.join(unknown)} (it takes {takes})")
    if params.get("judged_only", False) is not False:
        raise ValueError(
            f"measure {text!r}: judged_only=True (trec_eval -J) is not supported by irrepro; "
            "drop it to score every retrieved document"
        )
    if params.get("dcg", "log2") != "log2":
        raise ValueError(
            f"measure {text!r}: only dcg='log2' (trec_eval's discount, gain = grade) is supported"
        )
    kw: dict = {"agg": "gm" if agg == "gm" else spec.agg}
    if spec.at_required and params.get(spec.at) is None:
        what, example = ("a recall level", "@0.5") if spec.at == "recall" else ("a cutoff", "@10")
        raise ValueError(f"measure {text!r} needs {what}, e.g. {fam}{example}")
    if spec.at == "cutoff" and params.get("cutoff") is not None:
        k = _check_type(text, "cutoff", params["cutoff"], int)
        if k < 1:
            raise ValueError(f"measure {text!r}: the cutoff must be at least 1")
        kw["cutoff"] = int(k)
    if spec.at == "recall":
        r = float(_check_type(text, "recall", params["recall"], float))
        if not 0.0 <= r <= 1.0:
            raise ValueError(f"measure {text!r}: the recall level must be in [0, 1]")
        kw["recall"] = r
    if fam == "RBP":
        p = float(_check_type(text, "p", params.get("p", 0.8), float))
        if not 0.0 < p < 1.0:
            raise ValueError(f"measure {text!r}: RBP's persistence p must be in (0, 1)")
        kw["p"] = p
    if fam == "SetF":
        b = float(_check_type(text, "beta", params.get("beta", 1.0), float))
        if not b >= 0 or not math.isfinite(b):
            raise ValueError(f"measure {text!r}: beta must be a finite number >= 0")
        kw["beta"] = b
    if fam == "SetP":
        kw["relative"] = bool(_check_type(text, "relative", params.get("relative", False), bool))
    if "gains" in params:
        kw["gains"] = _gain_pairs(_check_type(text, "gains", params["gains"], dict))
    # the relevance level: the measure's own, else the global one (binary measures), else none
    if "rel" in spec.params:
        own = params.get("rel", "absent")
        if own is None or (own == "absent" and spec.binary):
            own = 1 if rel is None else rel
        if own != "absent":
            r = _check_type(text, "rel", own, int)
            if r < 1:
                raise ValueError(f"measure {text!r}: rel must be >= 1 (a relevance level)")
            kw["rel"] = int(r)
    if agg == "gm" and spec.agg != "mean":
        raise ValueError(f"measure {text!r}: a geometric mean of a count ({fam}) is not offered")
    m = Measure("", fam, **kw)
    return replace(m, name=_canonical(m))


def _canonical(m: Measure) -> str:
    """ir_measures' str() of the measure (parameters in its order, defaults left out)."""
    spec = _FAMILIES[m.family]
    shown = []
    for key in spec.params:
        if key == spec.at or key in ("judged_only", "dcg"):
            continue
        v = {"p": m.p, "rel": m.rel, "beta": m.beta, "relative": m.relative, "gains": m.gains}[key]
        default = {"p": 0.8, "rel": 1 if spec.binary else None, "beta": 1.0, "relative": False,
                   "gains": None}[key]  # fmt: skip
        if v == default:
            continue
        if key == "gains":
            shown.append("gains={" + ",".join(f"{g}:{x:g}" for g, x in v) + "}")
        else:
            shown.append(f"{key}={v!r}")
    name = m.family + (f"({','.join(shown)})" if shown else "")
    at = m.recall if spec.at == "recall" else m.cutoff if spec.at == "cutoff" else None
    if at is not None:
        name += f"@{at}"
    if m.agg == "gm":
        name = {"AP": "gm_map", "Bpref": "gm_bpref"}.get(name, "gm_" + name)
    return name


def parse_measure(name, *, rel: int | None = None) -> Measure:
    """Parse a measure given as a string (ir_measures', trec_eval's or the project's spelling, see
    the module doc) or an ir_measures measure object; ValueError if unknown or mis-parameterised.

    ``rel`` is the relevance level of binary measures that do not set their own (trec_eval's
    ``-l``; 1 when None). A :class:`Measure` is returned as it is (its level is already set)."""
    if isinstance(name, Measure):
        return name
    if isinstance(name, str):
        fam, params, agg = _split_string(name)
        return _build(name, fam, params, agg, rel)
    if hasattr(name, "NAME") and isinstance(getattr(name, "params", None), dict):  # ir_measures
        params = {k: v for k, v in name.params.items()}
        return _build(str(name), name.NAME, params, "mean", rel)
    raise ValueError(f"a measure must be a name or an ir_measures measure, got {name!r}")


# --------------------------------------------------------------------------------------------
# gains and per-topic judgment information
# --------------------------------------------------------------------------------------------


def _gain_pairs(gains) -> tuple[tuple[int, float], ...] | None:
    """A grade -> gain mapping (or sequence indexed by grade) as sorted pairs, checked."""
    if gains is None:
        return None
    items = gains.items() if isinstance(gains, Mapping) else enumerate(gains)
    out = {}
    for g, v in items:
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)):
            raise ValueError(f"gains: grade {g!r} is not an integer")
        v = float(v)
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"gain {v!r} of grade {g} must be a finite number >= 0")
        if g <= 0 and v != 0:
            raise ValueError(f"gain {v!r} of grade {g}: grades <= 0 are not relevant and gain 0")
        if v != g and not (g <= 0 and v == 0):  # (a grade's own gain is the default)
            out[int(g)] = v
    return tuple(sorted(out.items())) or None


class _Gains:
    """Gain of any integer grade: the grade itself (trec_eval's convention) unless ``pairs``
    names it; grades <= 0 (and UNJUDGED / PAD) gain 0. No table sized by the largest grade."""

    def __init__(self, pairs):
        self.pairs = pairs
        if pairs:
            self.keys = np.array([g for g, _ in pairs], dtype=np.int64)
            self.vals = np.array([v for _, v in pairs], dtype=np.float64)

    def __call__(self, g: np.ndarray) -> np.ndarray:
        out = np.maximum(g, 0).astype(np.float64)
        if self.pairs:
            idx = np.searchsorted(self.keys, g)
            np.minimum(idx, len(self.keys) - 1, out=idx)
            hit = self.keys[idx] == g
            out[hit] = self.vals[idx[hit]]
        return out

    def max_upto(self, top: np.ndarray) -> np.ndarray:
        """Per topic: the largest gain of the levels 0..top (trec_eval's rbp takes every level
        up to the topic's largest judged grade); 0 where top < 1."""
        top = np.asarray(top, dtype=np.int64)
        out = np.maximum(top, 0).astype(np.float64)
        if not self.pairs:
            return out
        named = set(self.keys.tolist())
        for i, m in enumerate(top.tolist()):
            if m < 1:
                out[i] = 0.0
                continue
            best = 0.0
            lvl = m  # the largest level the mapping does not name keeps gain = level
            while lvl in named:
                lvl -= 1
            best = max(best, float(lvl) if lvl > 0 else 0.0)
            mask = self.keys <= m
            if mask.any():
                best = max(best, float(self.vals[mask].max()))
            out[i] = best
        return out


class _Ideal:
    """The ideal ranked list of every topic for one gain mapping: the positive gains of its
    judged documents, descending, stored ragged (``flat`` from ``start[t]``, ``length[t]``)."""

    def __init__(self, judg: "_Judgments", gains: _Gains):
        gain = gains(judg.grade)
        keep = gain > 0
        t, n, gain = judg.topic[keep], judg.count[keep], gain[keep]
        order = np.lexsort((-gain, t))
        t, n, gain = t[order], n[order], gain[order]
        self.flat = np.repeat(gain, n)
        self.topic_of = np.repeat(t, n)
        self.length = np.bincount(t, weights=n, minlength=judg.T).astype(np.int64)
        self.start = np.r_[0, np.cumsum(self.length)[:-1]].astype(np.int64)
        self.pos = np.arange(len(self.flat), dtype=np.int64) - np.repeat(self.start, self.length)
        self.T = judg.T
        self._cum = None

    def normaliser(self, disc: np.ndarray, cutoff: int | None) -> np.ndarray:
        """Per topic: sum over the ideal list's first ``cutoff`` ranks of gain x disc[rank - 1]."""
        keep = slice(None) if cutoff is None else self.pos < cutoff
        w = self.flat[keep] * disc[self.pos[keep]]
        return np.bincount(self.topic_of[keep], weights=w, minlength=self.T)

    def cg_at(self, topics: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Ideal cumulative gain cg_I at 0-based ranks ``cols`` of lists of ``topics``."""
        if self._cum is None:
            cum = np.empty_like(self.flat)
            for s, n in zip(self.start.tolist(), self.length.tolist()):
                np.cumsum(self.flat[s : s + n], out=cum[s : s + n])
            self._cum = np.r_[cum, 0.0]  # index len(flat): cg_I of an empty ideal list
        length = self.length[topics]
        idx = np.minimum(cols, length - 1) + self.start[topics]
        return self._cum[np.where(length > 0, idx, len(self.flat))]


class _Judgments:
    """Per-topic judgment information, from the distinct grades of the qrels (no dense table):
    ``topic, grade, count`` of judged documents (grade >= 0) sorted by topic and grade, and the
    topics with pooled-but-unjudged documents (negative grades)."""

    def __init__(self, topic: np.ndarray, grade: np.ndarray, count: np.ndarray, T: int,
                 pooled_topics=()):  # fmt: skip
        self.topic = topic.astype(np.int64)
        self.grade = grade.astype(np.int64)
        self.count = count.astype(np.int64)
        self.T = T
        self.pooled_topics = np.asarray(sorted(pooled_topics), dtype=np.int64)
        self.max_grade = np.full(T, -1, dtype=np.int64)
        np.maximum.at(self.max_grade, self.topic, self.grade)
        self._ideal: dict = {}

    @classmethod
    def from_qrels(cls, table: pd.DataFrame, topics: Sequence[str]) -> "_Judgments":
        t = pd.Index(list(topics)).get_indexer(table["topic"])
        g = table["grade"].to_numpy(dtype=np.int64)
        ok = t >= 0
        t, g = t[ok], g[ok]
        judged = g >= 0
        pooled = set(np.unique(t[~judged]).tolist())
        tj, gj = t[judged], g[judged]
        order = np.lexsort((gj, tj))
        tj, gj = tj[order], gj[order]
        new = np.r_[True, (tj[1:] != tj[:-1]) | (gj[1:] != gj[:-1])] if len(tj) else np.zeros(0, bool)
        first = np.flatnonzero(new)
        count = np.diff(np.r_[first, len(tj)])
        return cls(tj[first], gj[first], count, len(topics), pooled)

    @classmethod
    def from_counts(cls, grade_counts: np.ndarray) -> "_Judgments":
        t, g = np.nonzero(grade_counts)
        return cls(t, g, grade_counts[t, g], grade_counts.shape[0])

    def n_rel(self, rel: int) -> np.ndarray:
        return np.bincount(self.topic, weights=self.count * (self.grade >= rel), minlength=self.T)

    def n_nonrel(self, rel: int) -> np.ndarray:
        return np.bincount(self.topic, weights=self.count * (self.grade < rel), minlength=self.T)

    def ideal(self, gains: _Gains) -> _Ideal:
        if gains.pairs not in self._ideal:
            self._ideal[gains.pairs] = _Ideal(self, gains)
        return self._ideal[gains.pairs]


# --------------------------------------------------------------------------------------------
# public single-purpose kernels
# --------------------------------------------------------------------------------------------


def average_precision(relevant: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Average precision of ranked lists (trec_eval's ``map``; Sakai's AveP, Sec. 2.1).

    ``relevant`` is boolean ``(..., K)`` (rank axis last, padding False); ``n_rel`` is the number
    of relevant documents R, broadcastable to ``relevant.shape[:-1]``. AP = (1/R) sum over relevant
    ranks r of precision@r; 0 when R = 0.
    """
    relevant = np.asarray(relevant, dtype=bool)
    k = relevant.shape[-1]
    hits = np.cumsum(relevant, axis=-1, dtype=np.int32)
    prec = np.where(relevant, hits / np.arange(1, k + 1, dtype=np.float64), 0.0).sum(axis=-1)
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.float64), prec.shape)
    return np.divide(prec, n_rel, out=np.zeros_like(prec), where=n_rel > 0)


def rbp_residual(grades: RunSet | np.ndarray, p: float) -> np.ndarray:
    """The RBP residual (Moffat & Zobel 2008, Sec. 4; trec_eval's ``rbp_resid``): the most RBP
    could still rise if every unjudged document retrieved, and every document past the end of the
    list, were relevant: ``(1 - p) * sum over unjudged ranks i of p**(i-1) + p**L`` (L the list
    length).

    ``grades`` is a RunSet or an int array ``(..., K)`` with ``UNJUDGED``/``PAD`` codes; returns
    ``(...)`` (``(S, T)`` for a RunSet). RBP + residual is the upper bound of the RBP interval.
    """
    if not 0.0 < p < 1.0:
        raise ValueError("RBP's persistence p must be in (0, 1)")
    if isinstance(grades, RunSet):
        S, T = len(grades.runs), len(grades.topics)
        out = np.zeros(S * T)
        for index, block in _blocks(grades):
            out[index] = rbp_residual(block, p)
        return out.reshape(S, T)
    g = np.asarray(grades)
    w = (1.0 - p) * p ** np.arange(g.shape[-1], dtype=np.float64)
    length = (g != PAD).sum(axis=-1)
    unjudged = (g < 0) & (g != PAD)
    return (unjudged * w).sum(axis=-1) + p ** length.astype(np.float64)


# --------------------------------------------------------------------------------------------
# blocks of ranked lists
# --------------------------------------------------------------------------------------------


def _blocks(runset, max_cells: int | None = None, depth: int | None = None):
    """``(index, block)`` pairs covering every list of ``runset`` once (``RunSet.iter_blocks``):
    ``index`` the flat list indices s * T + t, ``block`` (n, k) grades with PAD / UNJUDGED codes."""
    max_cells = _CHUNK_CELLS if max_cells is None else max_cells
    yield from runset.iter_blocks(max_cells=max_cells, depth=depth)


def _pooled_grades(runset, index: np.ndarray, block: np.ndarray, pooled: set, qrels: dict) -> np.ndarray:
    """For infAP: mark the pooled-but-unjudged documents (a negative qrels grade; ``_POOLED``) of
    lists whose topic has any, which the run set stores as UNJUDGED like any unjudged document."""
    T = len(runset.topics)
    t_of = index % T
    rows = np.flatnonzero(np.isin(t_of, list(pooled)))
    if not len(rows):
        return block
    block = block.astype(np.int64)
    for i in rows.tolist():
        s, t = divmod(int(index[i]), T)
        docs = runset.doc_ids(s, t)[: block.shape[1]]
        if not len(docs):
            continue
        judged = qrels[t]
        vals = block[i, : len(docs)]
        in_pool = np.array([judged.get(d, 0) < 0 for d in docs], dtype=bool)
        vals[in_pool & (vals == UNJUDGED)] = _POOLED
    return block


# --------------------------------------------------------------------------------------------
# the block kernel
# --------------------------------------------------------------------------------------------


class _Context:
    """What the kernel needs beyond a block: per-topic judgment info, per gain mapping the
    ideal lists, discounts, and per-measure normalisers - all sized by topics or ranks, never by
    grades."""

    def __init__(self, judg: _Judgments, specs: Sequence[Measure], gains):
        self.judg = judg
        self.specs = specs
        self.gains = _Gains(_gain_pairs(gains))
        self._gains: dict = {None: self.gains}
        self._cache: dict = {}
        self.max_rank = 1

    def gain_of(self, spec: Measure) -> _Gains:
        if spec.gains is None:
            return self.gains
        if spec.gains not in self._gains:
            self._gains[spec.gains] = _Gains(spec.gains)
        return self._gains[spec.gains]

    def topic(self, key, fn):
        """A per-topic (T,) array, computed once."""
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    def disc(self, kind: str, n: int) -> np.ndarray:
        n = max(n, 1)
        key = ("disc", kind)
        if key not in self._cache or len(self._cache[key]) < n:
            r = np.arange(1, max(n, 2 * self.max_rank) + 1, dtype=np.float64)
            self._cache[key] = (
                1.0 / np.log2(r + 1.0) if kind == "log2" else np.where(r <= 2, 1.0, 1.0 / np.maximum(np.log2(r), 1.0))
            )  # fmt: skip
        return self._cache[key][:n]

    def n_rel(self, rel):
        return self.topic(("R", rel), lambda: self.judg.n_rel(rel))

    def n_nonrel(self, rel):
        return self.topic(("N", rel), lambda: self.judg.n_nonrel(rel))

    def ideal_norm(self, spec: Measure, kind: str) -> np.ndarray:
        """Per topic: the ideal DCG (``"log2"``, ``"sakai"``) or ideal cg (``"cg"``) at the cutoff."""
        gains = self.gain_of(spec)

        def compute():
            ideal = self.judg.ideal(gains)
            length = int(ideal.length.max(initial=0))
            if kind == "cg":
                return ideal.normaliser(np.ones(max(length, 1)), spec.cutoff)
            return ideal.normaliser(self.disc(kind, length), spec.cutoff)

        return self.topic(("norm", kind, spec.cutoff, gains.pairs), compute)

    def rbp_scale(self, gains: _Gains) -> np.ndarray:
        """Per topic: the divisor of graded RBP's gains - the largest gain of the topic's levels
        when it exceeds 1, else 1 (m_rbp.c: gains already within [0, 1] are kept)."""
        def compute():
            top = gains.max_upto(self.judg.max_grade)
            return np.where(top > 1.0, top, 1.0)

        return self.topic(("rbp", gains.pairs), compute)


def _safe_div(num, den):
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    return np.divide(num, den, out=np.zeros(num.shape, dtype=np.float64), where=den > 0)


class _Hits:
    """The relevant documents of a block's lists at one relevance level, as positions: ``rows``,
    ``cols`` (0-based rank) in rank order within each row, ``nth`` (1-based: how many relevant
    documents are at or above it), ``count`` per row, ``first`` index of each row's first one.
    Sums over them with ``np.bincount`` run in rank order, as trec_eval's loops do."""

    def __init__(self, relb: np.ndarray):
        n = relb.shape[0]
        self.rows, self.cols = np.nonzero(relb)
        self.count = np.bincount(self.rows, minlength=n)
        self.first = np.r_[0, np.cumsum(self.count)[:-1]]
        self.nth = np.arange(1, len(self.rows) + 1) - self.first[self.rows]
        self.n = n

    def sum(self, weights, keep=None) -> np.ndarray:
        if keep is None:
            return np.bincount(self.rows, weights=weights, minlength=self.n)
        return np.bincount(self.rows[keep], weights=weights[keep], minlength=self.n)

    def upto(self, c: int) -> np.ndarray:
        """Relevant documents in the top c of each row."""
        return np.bincount(self.rows[self.cols < c], minlength=self.n)


def _score_block(g: np.ndarray, t: np.ndarray, ctx: _Context, out: dict, index: np.ndarray) -> None:
    """Score the lists of one block: ``g`` (n, k) grades, ``t`` (n,) their topics' indices;
    writes ``out[name][index]`` for every measure of ``ctx.specs``."""
    n, k = g.shape
    if k == 0:
        g = np.full((n, 1), PAD, dtype=np.int8)
        k = 1
    ctx.max_rank = max(ctx.max_rank, k)
    ranks = np.arange(1, k + 1, dtype=np.float64)
    cache: dict = {}

    def get(key, fn):
        if key not in cache:
            cache[key] = fn()
        return cache[key]

    length = lambda: get("L", lambda: (g != PAD).sum(axis=1))  # noqa: E731
    rel_at = lambda r: get(("hits", r), lambda: _Hits(g >= r))  # noqa: E731
    # documents with a positive grade (every one that can have a gain), and their gains
    pos_at = lambda: get("pos", lambda: _Hits(g > 0))  # noqa: E731
    gain_at = lambda gm: get(("gain", gm.pairs), lambda: gm(g[pos_at().rows, pos_at().cols]))  # noqa: E731

    def top(r, c):  # relevant documents in the top c: from the positions if at hand
        if ("hits", r) in cache or c >= k:
            return rel_at(r).upto(c)
        return (g[:, :c] >= r).sum(axis=1)

    def prec_sum(r, c=None):  # sum of precisions at the relevant ranks (within the top c)
        h = rel_at(r)
        w = get(("prec", r), lambda: h.nth / (h.cols + 1.0))
        return h.sum(w) if c is None or c >= k else h.sum(w, h.cols < c)

    def gain_sum(gm, disc, c=None):  # sum of gain x disc[rank - 1] over the top c
        h = pos_at()
        w = gain_at(gm) * disc[h.cols] if disc is not None else gain_at(gm)
        return h.sum(w) if c is None or c >= k else h.sum(w, h.cols < c)

    def count_above(mask_fn, key, h):  # per relevant document: how many mask cells are above it
        cum = get(key, lambda: np.cumsum(mask_fn(), axis=1, dtype=np.int32))
        return cum[h.rows, h.cols]

    def iprec(r, level):  # trec_eval 9.0.8 / pytrec_eval: at the (long)(level R + 0.9)-th relevant
        h = rel_at(r)
        curve = get(("ip", r), lambda: np.maximum.accumulate(
            (np.cumsum(g >= r, axis=1, dtype=np.int32) / ranks)[:, ::-1], axis=1)[:, ::-1])  # fmt: skip
        c = np.floor(level * ctx.n_rel(r)[t] + 0.9)
        ok = (c <= h.count) & (h.count > 0)
        nth = np.where(ok, np.maximum(c, 1), 1).astype(np.int64)
        if not len(h.cols):
            return np.zeros(n)
        col = h.cols[np.minimum(h.first + nth - 1, len(h.cols) - 1)]
        return np.where(ok, curve[np.arange(n), col], 0.0)

    for s in ctx.specs:
        fam, c, r = s.family, s.cutoff, s.rel
        if fam == "AP":
            res = _safe_div(prec_sum(r, c), ctx.n_rel(r)[t])
        elif fam == "SP":
            res = prec_sum(r)
        elif fam in ("P", "PDoc"):
            res = top(r, c) / float(c)
        elif fam == "R":
            res = _safe_div(top(r, c), ctx.n_rel(r)[t])
        elif fam == "Success":
            res = (top(r, c) > 0).astype(np.float64)
        elif fam == "Rprec":
            h, R = rel_at(r), ctx.n_rel(r)[t]
            res = _safe_div(np.bincount(h.rows, weights=h.cols < R[h.rows], minlength=n), R)
        elif fam == "RR":
            h = rel_at(r)
            first = h.cols[np.minimum(h.first, len(h.cols) - 1)] if len(h.cols) else np.zeros(n, np.int64)
            first = np.where(h.count > 0, first, k)
            res = np.where(first < (k if c is None else c), 1.0 / (first + 1.0), 0.0)
        elif fam == "Bpref":
            # m_bpref.c: (1/R) sum over retrieved relevant documents of 1 - min(n, R) / min(R, N),
            # n the judged non-relevant documents above it, N all of them
            h, R, N = rel_at(r), ctx.n_rel(r)[t], ctx.n_nonrel(r)[t]
            above = count_above(lambda: (g >= 0) & (g < r), ("nonrel", r), h)
            Rh, cap = R[h.rows], np.minimum(R, N)[h.rows]
            frac = np.divide(np.minimum(above, Rh), cap, out=np.zeros(len(above)), where=cap > 0)
            res = _safe_div(h.sum(np.where(above > 0, 1.0 - frac, 1.0)), R)
        elif fam == "infAP":
            h = rel_at(r)
            nonrel = count_above(lambda: (g >= 0) & (g < r), ("nonrel", r), h)
            pooled = count_above(lambda: g == _POOLED, "pooled", h) if (g == _POOLED).any() else 0
            res = _safe_div(h.sum(_infap_terms(h.cols, h.nth, nonrel, pooled)), ctx.n_rel(r)[t])
        elif fam in ("nDCG", "DCG"):
            dcg = gain_sum(ctx.gain_of(s), ctx.disc("log2", k), c)
            res = dcg if fam == "DCG" else _safe_div(dcg, ctx.ideal_norm(s, "log2")[t])
        elif fam == "nDCG_sakai":
            res = _safe_div(gain_sum(ctx.gains, ctx.disc("sakai", k), c), ctx.ideal_norm(s, "sakai")[t])
        elif fam == "nCG":
            res = _safe_div(gain_sum(ctx.gains, None, c), ctx.ideal_norm(s, "cg")[t])
        elif fam == "Q":
            # BR(r) = (count(r) + beta cg(r)) / (r + beta cg_I(r)), beta = 1, at relevant ranks
            h = rel_at(r)
            gfull = get("gain_full", lambda: ctx.gains(g))
            cg = get("cg", lambda: np.cumsum(gfull, axis=1))[h.rows, h.cols]
            cg_ideal = ctx.judg.ideal(ctx.gains).cg_at(t[h.rows], h.cols)
            res = _safe_div(h.sum((h.nth + cg) / (h.cols + 1.0 + cg_ideal)), ctx.n_rel(r)[t])
        elif fam == "RBP":
            w = (1.0 - s.p) * s.p ** (ranks - 1.0)
            if r is None:  # graded: a topic's gains over its largest gain (when above 1)
                res = gain_sum(ctx.gains, w, c) / ctx.rbp_scale(ctx.gains)[t]
            else:
                h = rel_at(r)
                res = h.sum(w[h.cols]) if c is None or c >= k else h.sum(w[h.cols], h.cols < c)
        elif fam == "ERR":
            kk = k if c is None else min(c, k)
            stop = (np.exp2(np.clip(g[:, :kk], 0, None).astype(np.float64)) - 1.0) / 2.0**_ERR_MAX_GRADE
            reach = np.cumprod(1.0 - stop, axis=1)
            reach = np.hstack([np.ones((n, 1)), reach[:, :-1]])
            res = (stop * reach / ranks[:kk]).sum(axis=1)
        elif fam == "Judged":
            L = length()
            cut = L if c is None else np.minimum(L, c)
            res = _safe_div((g[:, : (k if c is None else min(c, k))] >= 0).sum(axis=1), cut)
        elif fam == "NumRet":
            res = (length() if r is None else rel_at(r).count).astype(np.float64)
        elif fam == "NumRel":
            res = ctx.n_rel(r)[t].astype(np.float64)
        elif fam == "NumQ":
            res = np.ones(n)
        elif fam == "IPrec":
            res = iprec(r, s.recall)
        elif fam == "11pt_avg":
            res = sum(iprec(r, x / 10) for x in range(11)) / 11.0
        elif fam in ("SetP", "SetR", "SetF", "SetAP"):
            got, L, R = rel_at(r).count, length(), ctx.n_rel(r)[t]
            P, Rc = _safe_div(got, L), _safe_div(got, R)
            if fam == "SetP":
                res = _safe_div(got, np.minimum(L, R)) if s.relative else P
            elif fam == "SetR":
                res = Rc
            elif fam == "SetF":
                res = np.where(got > 0, _safe_div((s.beta + 1.0) * P * Rc, s.beta * P + Rc), 0.0)
            else:
                res = P * Rc
        else:  # pragma: no cover - parse_measure guards this
            raise AssertionError(fam)
        out[s.name][index] = res


def _infap_terms(cols, nth, nonrel, pooled):
    """trec_eval's infAP (m_infap.c), per relevant document at rank j = 0, 1, ...: 1 if j = 0,
    else 1/(j+1) + (j/(j+1)) ((rel - 1 + nonrel + pooled)/j) ((rel - 1 + e)/(rel - 1 + nonrel +
    2e)), with rel, nonrel, pooled the relevant (this one included), judged non-relevant and
    pooled-but-unjudged documents at ranks <= j, e = 0.00001 (the sum is then divided by R)."""
    fj = cols.astype(np.float64)
    prev = nth - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((prev + nonrel + pooled) / fj) * (
            (prev + GM_EPSILON) / (prev + nonrel + 2 * GM_EPSILON)
        )
    return np.where(cols == 0, 1.0, term)


def _check_err(judg: _Judgments, topics: Sequence[str]) -> None:
    bad = np.flatnonzero(judg.grade > _ERR_MAX_GRADE)
    if len(bad):
        i = int(bad[0])
        raise ValueError(
            f"ERR follows TREC Web's gdeval.pl: grades 0..{_ERR_MAX_GRADE}, stop probability "
            f"(2**grade - 1) / 2**{_ERR_MAX_GRADE}; topic {topics[judg.topic[i]]!r} has grade "
            f"{int(judg.grade[i])}"
        )


def _run_kernel(blocks: Iterable, T: int, specs: Sequence[Measure], judg: _Judgments, gains,
                n_lists: int, fix=None) -> tuple[dict, np.ndarray]:  # fmt: skip
    ctx = _Context(judg, specs, gains)
    out = {s.name: np.zeros(n_lists, dtype=np.float64) for s in specs}
    retrieved = np.zeros(n_lists, dtype=bool)
    for index, block in blocks:
        index = np.asarray(index, dtype=np.int64)
        if fix is not None:
            block = fix(index, block)
        if block.shape[1]:
            retrieved[index] = block[:, 0] != PAD
        _score_block(block, index % T, ctx, out, index)
    return out, retrieved


def _specs(measures, rel) -> tuple[list, list[Measure]]:
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 1):
        raise ValueError(f"rel must be an integer >= 1 (a relevance level), got {rel!r}")
    keys = list(dict.fromkeys(measures))
    parsed = [parse_measure(m, rel=rel) for m in keys]
    unique = list({s.name: s for s in parsed}.values())
    return list(zip(keys, parsed)), unique


def score_grades(
    grades: np.ndarray,
    grade_counts: np.ndarray,
    measures: Sequence[str],
    *,
    rel: int = 1,
    gains: Mapping[int, float] | Sequence[float] | None = None,
) -> dict[str, np.ndarray]:
    """Score a dense block of ranked lists given as grades (the engine behind :func:`evaluate`,
    for arrays).

    ``grades`` is an int array ``(S, T, K)`` (grade at each rank, ``UNJUDGED`` = -1 for a
    retrieved document without a judgment, ``PAD`` = -2 past the end of the list);
    ``grade_counts`` is ``(T, G + 1)``: judged documents of each grade 0..G per topic (the
    relevant ones need not be retrieved). Returns ``{name: (S, T) float64 array}`` keyed by the
    names given.
    """
    grades = np.asarray(grades)
    if grades.ndim != 3:
        raise ValueError(f"grades must be (runs, topics, ranks), got shape {grades.shape}")
    grade_counts = np.asarray(grade_counts, dtype=np.int64)
    S, T, K = grades.shape
    if grade_counts.ndim != 2 or grade_counts.shape[0] != T:
        raise ValueError(f"grade_counts must be (topics={T}, grades), got {grade_counts.shape}")
    if rel < 1:
        raise ValueError(f"rel must be >= 1 (a relevance level), got {rel}")
    if grades.size and int(grades.min()) < PAD:
        raise ValueError(f"grades below {PAD} (PAD): {int(grades.min())}; use UNJUDGED = -1 / PAD = -2")
    if (grade_counts < 0).any():
        raise ValueError("grade_counts must be >= 0")
    pairs, specs = _specs(measures, rel)
    judg = _Judgments.from_counts(grade_counts)
    if any(s.family == "ERR" for s in specs):
        _check_err(judg, [str(i) for i in range(T)])
    flat = grades.reshape(S * T, K)
    step = max(1, _CHUNK_CELLS // max(K, 1))
    blocks = ((np.arange(i, min(i + step, S * T)), flat[i : i + step]) for i in range(0, S * T, step))
    out, _ = _run_kernel(blocks, T, specs, judg, gains, S * T)
    return {key: out[s.name].reshape(S, T) for key, s in pairs}


# --------------------------------------------------------------------------------------------
# evaluate, and what comes out of it
# --------------------------------------------------------------------------------------------


class Evaluation(dict):
    """``{measure: ScoreMatrix}`` as :func:`evaluate` returns it, keyed by the measures as given
    (strings or ir_measures objects); any other spelling of an evaluated measure finds it too
    (``ev["MAP"]`` after evaluating ``"AP"``). ``retrieved`` is the (runs, topics) boolean array
    of the lists with at least one document - the topics plain trec_eval averages over."""

    def __init__(self, items, retrieved: np.ndarray, rel: int):
        super().__init__(items)
        self.retrieved = retrieved
        self.rel = rel

    def __missing__(self, key):
        try:
            name = parse_measure(key, rel=self.rel).name
        except ValueError:
            raise KeyError(key) from None
        for sm in self.values():
            if sm.measure == name:
                return sm
        raise KeyError(key)


def evaluate(
    runset: RunSet,
    measures: Sequence | str,
    *,
    rel: int = 1,
    gains: Mapping[int, float] | Sequence[float] | None = None,
    depth: int | None = None,
) -> Evaluation:
    """Score every run of ``runset`` on every topic for each measure (names in the module doc;
    strings or ir_measures objects).

    Returns an :class:`Evaluation`, ``{measure: ScoreMatrix}`` with systems x topics scores whose
    ``measure`` is the canonical name; ``ScoreMatrix.mean()`` is the mean over all the qrels'
    topics, as ``trec_eval -c`` reports it (:func:`summarize` gives either average, with each
    measure's own: sums for the counts, geometric means for ``gm_``). ``rel`` is the lowest
    relevant grade (trec_eval's ``-l``) of binary measures that do not set their own
    (``AP(rel=2)``); ``gains`` maps grade -> gain for graded measures without gains of their own
    (default: the grade itself, for any integer grade); ``depth`` keeps only the top ``depth``
    documents of each list (trec_eval's ``-M``).
    """
    integer = isinstance(depth, (int, np.integer)) and not isinstance(depth, bool)
    if depth is not None and (not integer or depth < 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    pairs, specs = _specs(measures, rel)
    topics = list(runset.topics)
    S, T = len(runset.runs), len(topics)
    table = runset.qrels.table
    judg = _Judgments.from_qrels(table, topics)
    if any(s.family == "ERR" for s in specs):
        _check_err(judg, topics)
    fix = _pooled_fix(runset, judg, table, topics, any(s.family == "infAP" for s in specs))
    out, retrieved = _run_kernel(_blocks(runset, depth=depth), T, specs, judg, gains, S * T, fix)
    mats = {
        s.name: ScoreMatrix(out[s.name].reshape(S, T), tuple(runset.runs), tuple(topics), s.name,
                            runset.name, runset.source)  # fmt: skip
        for s in specs
    }
    return Evaluation({key: mats[s.name] for key, s in pairs}, retrieved.reshape(S, T), rel)


def _pooled_fix(runset, judg: _Judgments, table: pd.DataFrame, topics, infap: bool):
    """A block fix-up for infAP on topics with negative qrels grades (pooled, not judged), or None."""
    pooled = set(judg.pooled_topics.tolist()) if infap else set()
    if not pooled:
        return None
    tindex = {x: i for i, x in enumerate(topics)}
    qrels: dict = {t: {} for t in pooled}
    for tp, d, gr in table[["topic", "doc", "grade"]].itertuples(index=False):
        i = tindex.get(tp)
        if i in qrels:
            qrels[i][d] = int(gr)
    return lambda index, block: _pooled_grades(runset, index, block, pooled, qrels)


def _score_matrices(scores) -> list[ScoreMatrix]:
    if isinstance(scores, ScoreMatrix):
        return [scores]
    seen, out = set(), []
    for sm in scores.values():
        if id(sm) not in seen:
            seen.add(id(sm))
            out.append(sm)
    return out


def _topic_mask(scores, sm: ScoreMatrix, complete: bool, retrieved) -> np.ndarray:
    if complete:
        return np.ones(sm.shape, dtype=bool)
    if retrieved is None:
        retrieved = getattr(scores, "retrieved", None)
    if retrieved is None:
        raise ValueError(
            "complete=False averages over the topics each run retrieved: pass retrieved= "
            "(runs x topics booleans) or the Evaluation that evaluate() returned"
        )
    retrieved = np.asarray(retrieved, dtype=bool)
    if retrieved.shape != sm.shape:
        raise ValueError(f"retrieved has shape {retrieved.shape}, the scores {sm.shape}")
    return retrieved


def _mean(x: np.ndarray) -> np.ndarray:
    """Mean over the topics that are not NaN; NaN for a run with none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (an all-NaN row: "mean of empty slice")
        return np.nanmean(x, axis=1) if x.shape[1] else np.full(len(x), np.nan)


def summarize(scores, *, complete: bool = True, retrieved=None) -> pd.DataFrame:
    """One row per run, one column per measure: trec_eval's summary ("all") line.

    Each measure is combined its own way: the mean over topics, the sum for the counts (NumRet,
    NumRel, NumQ), trec_eval's geometric mean for ``gm_`` measures (exp of the mean of
    log(max(x, 0.00001))). ``complete=True`` takes every qrels topic (a topic the run missed
    scores 0: ``trec_eval -c``); ``complete=False`` only the topics the run retrieved something
    for (plain trec_eval, pytrec_eval, ir_measures; a run that retrieved for no topic gets NaN).
    ``scores`` is what :func:`evaluate` returned (or one ScoreMatrix with ``retrieved``).
    """
    cols = {}
    index = None
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        spec = parse_measure(sm.measure)
        x = np.where(mask, sm.scores, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            if spec.agg == "sum":
                v = np.where(mask.any(axis=1), np.nansum(x, axis=1), np.nan)
            elif spec.agg == "gm":
                v = np.exp(_mean(np.log(np.maximum(x, GM_EPSILON))))
            else:
                v = _mean(x)
        cols[sm.measure] = v
        index = list(sm.systems)
    return pd.DataFrame(cols, index=pd.Index(index or [], name="run"))


def to_frame(scores, *, complete: bool = True, retrieved=None) -> pd.DataFrame:
    """Long form of per-topic scores: columns ``run``, ``query_id``, ``measure`` (the canonical
    name), ``value`` - ordered by run, measure, topic. ``complete=False`` keeps only the topics
    each run retrieved (what pytrec_eval and ir_measures' ``iter_calc`` report)."""
    parts = []
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        S, T = sm.shape
        s_idx, t_idx = np.nonzero(mask)
        parts.append(pd.DataFrame({
            "run": np.asarray(sm.systems, dtype=object)[s_idx],
            "query_id": np.asarray(sm.topics, dtype=object)[t_idx],
            "measure": sm.measure,
            "value": sm.scores[s_idx, t_idx],
            "_s": s_idx,
        }))  # fmt: skip
    if not parts:
        return pd.DataFrame(columns=["run", "query_id", "measure", "value"])
    df = pd.concat(parts, ignore_index=True)
    df = df.sort_values("_s", kind="stable").drop(columns="_s").reset_index(drop=True)
    return df


def to_dict(scores, *, form: str = "pytrec_eval", complete: bool = True, retrieved=None) -> dict:
    """Per-topic scores as nested dicts, keyed by run first.

    * ``form="pytrec_eval"``: ``{run: {query_id: {measure: value}}}`` - each run's part is what
      ``pytrec_eval.RelevanceEvaluator.evaluate`` returns (with irrepro's measure names);
    * ``form="ranx"``: ``{run: {measure: {query_id: value}}}`` - each run's part has the shape of
      ranx's ``Run.scores`` (what ``ranx.evaluate(..., return_mean=False)`` fills in).

    ``complete=False`` keeps only the topics each run retrieved (pytrec_eval's and ranx's own
    output); ``complete=True`` every qrels topic (trec_eval -c).
    """
    if form not in ("pytrec_eval", "ranx"):
        raise ValueError(f"form must be 'pytrec_eval' or 'ranx', got {form!r}")
    out: dict = {}
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        for s, run in enumerate(sm.systems):
            d = out.setdefault(run, {})
            vals = sm.scores[s].tolist()
            keep = mask[s].tolist()
            for topic, v, ok in zip(sm.topics, vals, keep):
                if not ok:
                    continue
                if form == "pytrec_eval":
                    d.setdefault(topic, {})[sm.measure] = v
                else:
                    d.setdefault(sm.measure, {})[topic] = v
    return out


# --------------------------------------------------------------------------------------------
# aggregates over topics
# --------------------------------------------------------------------------------------------

_AGGREGATES = ("mean", "G", "AG", "L", "G_trec")


def aggregate(scores: ScoreMatrix | np.ndarray, how: str = "mean", *, eps: float = GM_EPSILON,
              axis: int = -1) -> np.ndarray:  # fmt: skip
    """Aggregate per-topic scores over topics (``axis``; the topics of a ScoreMatrix).

    ``how``:

    * ``"mean"`` - arithmetic mean (MAP from AP, ...).
    * ``"G"`` - Sakai's (2006, Sec. 2.1, after Voorhees' Robust track) geometric mean with an
      offset: ``exp(mean(log(x + eps)))``, eps = 0.00001 (G_AveP, G_Q-measure, GMAP).
      (Interpretation: the extracted paper text loses the formula; we do not subtract eps again
      afterwards, which would move every value by exactly 1e-5. Sakai also takes each x_i "down
      to four significant figures" first; round the scores yourself if you want that too.)
    * ``"AG"`` - the arithmetic mean of ``log(x + eps)`` (Sakai's AG_ forms, the quantity his
      paired bootstrap test compares; ``exp`` of it is ``"G"``).
    * ``"L"`` - L-MAP (Cormack & Lynam 2006): the mean of ``logit(x)``, with x clipped to
      ``[eps, 1 - eps]`` first (the paper replaces AP = 0 and 1 by eps and 1 - eps but does not
      give eps), eps = 0.00001 unless given. The Cormack & Lynam chapter and ``irrepro report``
      use ``corpus_bootstrap.EPS`` (0.001): pass ``eps=corpus_bootstrap.EPS`` for their L-MAP.
    * ``"G_trec"`` - trec_eval's ``gm_map``: ``exp(mean(log(max(x, eps))))`` (what
      :func:`summarize` does for ``gm_`` measures).
    """
    x = scores.scores if isinstance(scores, ScoreMatrix) else np.asarray(scores, dtype=np.float64)
    if how not in _AGGREGATES:
        raise ValueError(f"unknown aggregate {how!r}; use one of {_AGGREGATES}")
    if not eps > 0:
        raise ValueError("eps must be > 0")
    if how == "mean":
        return x.mean(axis=axis)
    if how in ("G", "AG"):
        if np.any(x + eps <= 0):
            raise ValueError("geometric means need scores > -eps")
        logs = np.log(x + eps).mean(axis=axis)
        return np.exp(logs) if how == "G" else logs
    if how == "G_trec":
        return np.exp(np.log(np.maximum(x, eps)).mean(axis=axis))
    if not eps < 0.5:
        raise ValueError("the logit's eps must be < 0.5")
    c = np.clip(x, eps, 1.0 - eps)
    return np.log(c / (1.0 - c)).mean(axis=axis)
