"""trec_eval's names of irrepro's measures (:func:`trec_eval_name`) and the order in which
trec_eval prints them."""

from __future__ import annotations

from .names import Measure, parse_measure

__all__ = ["trec_eval_name"]


# trec_eval's measures in the order it prints them (measures.c's te_trec_measures, trec_eval 10;
# 9.0.8 lacks rbp): a measure's lines come out in this order whatever the order of the -m options
_TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
)  # fmt: skip


def _trec_eval_parts(m: Measure, rel: int) -> tuple[str, float | None] | None:
    """(trec_eval's measure, its parameter or None) of ``m`` under ``trec_eval -l rel``, or None."""
    if m.rel is not None and m.rel != rel:
        return None  # a relevance level of its own: not what trec_eval -l rel computes
    f, k = m.family, m.cutoff
    if m.agg == "G":  # Sakai's geometric mean: not a trec_eval measure
        return None
    if m.agg == "gm":
        return {"AP": ("gm_map", None), "Bpref": ("gm_bpref", None)}.get(f) if k is None else None
    if f == "NumRet":
        return ("num_ret", None) if m.rel is None else ("num_rel_ret", None)
    simple = {"NumRel": "num_rel", "NumQ": "num_q", "Rprec": "Rprec", "Bpref": "bpref",
              "infAP": "infAP", "11pt_avg": "11pt_avg", "SetR": "set_recall", "SetAP": "set_map",
              "binG": "binG", "num_nonrel_judged_ret": "num_nonrel_judged_ret"}  # fmt: skip
    if f in simple:
        return simple[f], None
    if f in ("G", "ndcg_rel", "Rndcg"):  # (trec_eval prints other gains as given: G_1=3,2=9)
        return (f, None) if m.gains is None else None
    if f == "utility":  # (likewise its weights: utility_2,-1,0,0)
        return ("utility", None) if m.weights == (1.0, -1.0, 0.0) else None
    if f in ("relative_P", "unj"):
        return f, k
    if f == "Rprec_mult":
        return f, m.mult
    if f == "rbp_resid":
        return f, (None if m.p == 0.9 else m.p)
    if f in ("AP", "RR", "nDCG"):
        if f == "nDCG" and m.gains is not None:
            return None
        if k is None:
            return {"AP": "map", "RR": "recip_rank", "nDCG": "ndcg"}[f], None
        return ({"AP": "map_cut", "nDCG": "ndcg_cut"}[f], k) if f != "RR" else None
    if f in ("P", "R", "Success"):
        return {"P": "P", "R": "recall", "Success": "success"}[f], k
    if f == "IPrec":
        return "iprec_at_recall", m.recall
    if f == "SetP":
        return ("set_relative_P" if m.relative else "set_P"), None
    if f == "SetF":
        return "set_F", (None if m.beta == 1.0 else m.beta)
    if f == "RBP" and m.rel is None and k is None:  # trec_eval's rbp: graded, p = 0.9 unless given
        return "rbp", (None if m.p == 0.9 else m.p)
    return None


def trec_eval_name(measure, *, rel: int | None = None) -> str | None:
    """The name trec_eval prints for a measure, or None when trec_eval has no such measure.

    Parameters
    ----------
    measure : str, Measure or ir_measures measure
        The measure, as :func:`parse_measure` reads it.
    rel : int, optional
        trec_eval's ``-l`` (1 when None): the level of binary measures that set none of their own.

    Returns
    -------
    str or None
        ``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank``, ``num_rel_ret``,
        ``iprec_at_recall_0.50``, ``gm_map``, ``rbp_p=0.5`` (as ``-m rbp.p=0.5`` prints it),
        ``Rprec_mult_0.20``, ``relative_P_5``, ``unj_10``, ...; None for ``RR@10``, ``ERR@20``,
        ``Q``, a relevance level other than ``rel``, gains (``G``, ``ndcg_rel``, ``Rndcg``, like
        ``nDCG``) or weights (``utility``) other than trec_eval's defaults, ...
        (trec_eval 9.0.8 lacks ``rbp``; its ``iprec_at_recall`` counts as irrepro's ``IPrec``.)

    Examples
    --------
    >>> from irrepro.measures import trec_eval_name
    >>> trec_eval_name("P@10"), trec_eval_name("IPrec@0.5"), trec_eval_name("RBP(p=0.5)")
    ('P_10', 'iprec_at_recall_0.50', 'rbp_p=0.5')
    >>> trec_eval_name("AP(rel=2)", rel=2), trec_eval_name("AP(rel=2)"), trec_eval_name("RR@10")
    ('map', None, None)
    """
    parts = _trec_eval_parts(parse_measure(measure, rel=rel), 1 if rel is None else rel)
    if parts is None:
        return None
    name, param = parts
    if param is None:
        return name
    if name in ("iprec_at_recall", "Rprec_mult"):
        return f"{name}_{param:3.2f}"
    if name in ("rbp", "rbp_resid"):
        return f"{name}_p={param!r}"
    if name == "set_F":
        return f"set_F_{param:g}"
    return f"{name}_{param}"


def _trec_eval_key(measure, rel: int | None = None) -> tuple:
    """Sort key putting measures in the order trec_eval prints them (cutoffs ascending within a
    measure); measures trec_eval lacks come after, in their given order (a stable sort)."""
    parts = _trec_eval_parts(parse_measure(measure, rel=rel), 1 if rel is None else rel)
    if parts is None:
        return (len(_TREC_ORDER), 0.0)
    name, param = parts
    return (_TREC_ORDER.index(name), 0.0 if param is None else float(param))
