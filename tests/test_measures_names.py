"""Measure names: every ir_measures spelling of a supported measure, as a string or as the
ir_measures object, parses to what ir_measures parses (ir_measures.parse_measure), prints as
ir_measures prints it, and scores what ir_measures' own providers score (iter_calc per topic,
calc_aggregate per run); the project's own names keep working; what is not supported is a clear
error."""

from __future__ import annotations

import numpy as np
import pytest

from irrepro import data, measures
from irrepro.measures import parse_measure

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here

ir_measures = pytest.importorskip("ir_measures")

# spellings ir_measures parses too
IR_SPELLINGS = [
    "AP", "MAP", "AP(rel=2)", "AP@10", "AP(rel=2)@10", "P@10", "P(rel=2)@10", "Precision@5",
    "R@1000", "Recall@20", "R(rel=2)@10", "Rprec", "RPrec", "Rprec(rel=2)", "RR", "RR@10", "MRR@10",
    "RR(rel=2)", "Success@10", "Success(rel=2)@5", "Bpref", "BPref", "Bpref(rel=2)", "infAP",
    "infAP(rel=2)", "nDCG", "nDCG@10", "NDCG@10", "nDCG(gains={0:0,1:1,2:3})@10",
    "nDCG(dcg='log2')@10", "nDCG(judged_only=False)@5", "RBP", "RBP(p=0.5)", "RBP(rel=1,p=0.5)",
    "RBP(p=0.5,rel=2)", "RBP(p=0.9)@10", "ERR@20", "ERR", "Judged@10", "Judged", "NumRet",
    "NumRelRet", "NumRet(rel=2)", "NumRel", "NumRel(rel=2)", "NumQ", "IPrec@0.5", "IPrec(rel=2)@0.3",
    "IPrec@1.0", "SetP", "SetRelP", "SetP(relative=True)", "SetP(rel=2)", "SetR", "SetF",
    "SetF(beta=0.5)", "SetAP",
]  # fmt: skip

# ir_measures objects, built the way a user writes them
IR_OBJECTS = {
    "AP(rel=2)": lambda m: m.AP(rel=2), "Bpref": lambda m: m.Bpref, "RBP(rel=1,p=0.5)": lambda m: m.RBP(rel=1, p=0.5),
    "RBP": lambda m: m.RBP, "nDCG@10": lambda m: m.nDCG @ 10, "R@1000": lambda m: m.R @ 1000,
    "RR@10": lambda m: m.RR @ 10, "Judged@10": lambda m: m.Judged @ 10, "P(rel=2)@10": lambda m: m.P(rel=2) @ 10,
    "MAP": lambda m: m.MAP, "NumRelRet": lambda m: m.NumRelRet, "IPrec@0.5": lambda m: m.IPrec @ 0.5,
    "SetF": lambda m: m.SetF, "ERR@20": lambda m: m.ERR @ 20, "Success@5": lambda m: m.Success @ 5,
    "infAP": lambda m: m.infAP, "SetRelP": lambda m: m.SetRelP,
}  # fmt: skip


def _effective(m) -> tuple:
    """An ir_measures measure's name and parameters, defaults and identity gains left out."""
    params = {}
    for k, v in m.params.items():
        if k == "gains" and isinstance(v, dict):
            v = {a: b for a, b in v.items() if a != b}
        if v != m.SUPPORTED_PARAMS[k].default:
            params[k] = v
    return m.NAME, params


@pytest.mark.parametrize("spelling", IR_SPELLINGS)
def test_every_ir_measures_spelling_parses_as_ir_measures_does(spelling):
    ours = parse_measure(spelling)
    theirs = ir_measures.parse_measure(spelling)
    # our canonical name is a spelling ir_measures reads back as the same measure ...
    assert _effective(ir_measures.parse_measure(ours.name)) == _effective(theirs)
    # ... and prints it as ir_measures does (parameters in ir_measures' order)
    assert str(ir_measures.parse_measure(ours.name)) == ours.name
    # the object form names the same measure; a name parses to itself
    assert parse_measure(theirs).name == ours.name
    assert parse_measure(ours.name) == ours
    assert parse_measure("ir_measures." + spelling).name == ours.name


@pytest.mark.parametrize("spelling", sorted(IR_OBJECTS))
def test_object_forms_name_the_same_measure(spelling):
    obj = IR_OBJECTS[spelling](ir_measures)
    assert (
        parse_measure(obj).name
        == parse_measure(spelling).name
        == str(ir_measures.parse_measure(parse_measure(spelling).name))
    )
    assert _effective(obj) == _effective(ir_measures.parse_measure(spelling))


def test_canonical_names_are_ir_measures_str():
    for spelling, want in [("MAP", "AP"), ("MRR@10", "RR@10"), ("BPref", "Bpref"), ("bpref", "Bpref"),
                           ("NDCG@10", "nDCG@10"), ("NumRelRet", "NumRet(rel=1)"), ("SetRelP", "SetP(relative=True)"),
                           ("RBP(p=0.8)", "RBP"), ("RBP(rel=1,p=0.5)", "RBP(p=0.5,rel=1)"), ("AP(rel=1)", "AP"),
                           ("Precision@5", "P@5")]:  # fmt: skip
        assert parse_measure(spelling).name == want, spelling
        if spelling != "bpref":  # (the project's former spelling; ir_measures has Bpref)
            assert _effective(ir_measures.parse_measure(spelling)) == _effective(
                ir_measures.parse_measure(want)
            )
    # a global relevance level shows in the name of the binary measures that take it
    assert parse_measure("AP", rel=2).name == "AP(rel=2)" == str(ir_measures.AP(rel=2))
    assert parse_measure("P@10", rel=3).name == "P(rel=3)@10" == str(ir_measures.P(rel=3) @ 10)
    assert parse_measure("AP(rel=1)", rel=2).name == "AP"  # the measure's own rel wins
    assert parse_measure("nDCG@10", rel=2).name == "nDCG@10"  # graded: no rel
    assert parse_measure("RBP(p=0.5)", rel=2).name == "RBP(p=0.5)"  # graded unless it sets rel
    assert parse_measure("NumRet", rel=2).name == "NumRet"  # every retrieved document
    assert parse_measure("NumRelRet", rel=2).name == "NumRet(rel=2)"


def test_trec_eval_and_project_names():
    for spelling, want in [
        ("map", "AP"), ("map_cut_10", "AP@10"), ("P_10", "P@10"), ("recall_1000", "R@1000"),
        ("ndcg", "nDCG"), ("ndcg_cut_20", "nDCG@20"), ("recip_rank", "RR"), ("bpref", "Bpref"),
        ("num_ret", "NumRet"), ("num_rel", "NumRel"), ("num_rel_ret", "NumRet(rel=1)"),
        ("num_q", "NumQ"), ("set_P", "SetP"), ("set_recall", "SetR"), ("set_F", "SetF"),
        ("set_map", "SetAP"), ("set_relative_P", "SetP(relative=True)"), ("success_5", "Success@5"),
        ("iprec_at_recall_0.10", "IPrec@0.1"), ("11pt_avg", "11pt_avg"), ("gm_map", "gm_map"),
        ("gm_bpref", "gm_bpref"), ("gm_AP", "gm_map"), ("gm_nDCG@10", "gm_nDCG@10"),
        ("infAP", "infAP"), ("Rprec", "Rprec"),
        # the project's own
        ("Q", "Q"), ("SP", "SP"), ("nDCG_sakai@1000", "nDCG_sakai@1000"), ("nCG@10", "nCG@10"),
        ("PDoc@10", "PDoc@10"), ("DCG@10", "DCG@10"), ("RBP(p=0.95)", "RBP(p=0.95)"),
        ("RBP(p=0.5,rel=2)", "RBP(p=0.5,rel=2)"), ("Q(rel=2)", "Q(rel=2)"),
    ]:  # fmt: skip
        m = parse_measure(spelling)
        assert m.name == want, spelling
        assert parse_measure(m.name) == m, spelling
    assert parse_measure("11pt_avg", rel=2).name == "11pt_avg(rel=2)"
    assert parse_measure("11pt_avg(rel=2)").rel == 2
    assert parse_measure("gm_map").agg == "gm" and parse_measure("NumRet").agg == "sum"
    assert parse_measure("RBP").p == 0.8  # ir_measures' default persistence


@pytest.mark.parametrize("bad, message", [
    ("Foo", "unknown measure"), ("P", "needs a cutoff"), ("IPrec", "needs a recall level"),
    ("AP(p=0.5)", "does not take p"), ("Bpref@10", "takes no @"), ("P@0", "at least 1"),
    ("P@x", "literal"), ("P@10.5", "must be int"), ("RBP(p=1.5)", r"\(0, 1\)"), ("IPrec@1.5", r"\[0, 1\]"),
    ("AP(rel=0)", "rel must be >= 1"), ("RBP(0.5)", "must be named"), ("gm_NumRet", "count"),
    ("SetF(beta=-1.0)", "beta"), ("nDCG(judged_only=True)@10", "judged_only"),
    ("nDCG(dcg='exp-log2')@20", "log2"), ("alpha_nDCG@20", "subtopic"), ("NERR8(max_rel=4)@10", "cwl"),
    ("P(cutoff=5)@10", "twice"), ("", "unknown measure"), ("AP; import os", "unknown measure"),
])  # fmt: skip
def test_errors_name_the_problem(bad, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(bad)


def test_unsupported_objects_and_parameters_are_clear_errors():
    with pytest.raises(ValueError, match="subtopic"):
        parse_measure(ir_measures.alpha_nDCG @ 20)
    with pytest.raises(ValueError, match="judged_only"):
        parse_measure(ir_measures.AP(judged_only=True))
    with pytest.raises(ValueError, match="a name or an ir_measures measure"):
        parse_measure(3.5)
    with pytest.raises(ValueError, match="known: AP"):  # the error lists what exists
        parse_measure("Prec@10")


# --------------------------------------------------------------------------------------------
# values: ours vs ir_measures' providers, per topic and aggregated
# --------------------------------------------------------------------------------------------

# spellings ir_measures can compute here: no provider computes RBP without cwl_eval, ERR without
# a cutoff (gdeval.pl needs one) or NumRel(rel=2) (pytrec_eval's provider: rel=1 only)
COMPUTABLE = [s for s in IR_SPELLINGS if not s.startswith("RBP") and s not in ("ERR", "NumRel(rel=2)")]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    from test_measures_parity import make_collection

    tmp = tmp_path_factory.mktemp("names")
    qpath, files, qrels, runs = make_collection(
        tmp, 7, n_topics=12, pooled=False, grades=(0, 0, 1, 1, 2, 3, 4)
    )
    return data.load_runs(files, qrels=qpath), qrels, runs


def _one_by_one(objs, qrels, run):
    """ir_measures' per-topic values and aggregates, each measure in a call of its own.

    Asked for together, ir_measures 0.4.3's pytrec_eval provider (``_build_invokers``) puts a
    plain nDCG (and NumQ, NumRet) into whichever pytrec_eval invocation its set of measures
    yields first - a custom-gains one (``nDCG(gains=...)``) included - so the plain nDCG it
    reports depends on the hash seed (PYTHONHASHSEED=2: nDCG computed with gains={2:3}).
    """
    per_topic, agg = {}, {}
    for obj in objs:
        per_topic.update(
            {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc([obj], qrels, run)}
        )
        agg.update(ir_measures.calc_aggregate([obj], qrels, run))
    return per_topic, agg


@pytest.mark.parametrize("form", ["string", "object"])
def test_values_equal_ir_measures_iter_calc_and_calc_aggregate(collection, form):
    """Per topic (iter_calc) and per run (calc_aggregate: means, and sums for the counts) for
    every spelling, given as strings or as ir_measures' parsed objects. ir_measures reports every
    qrels topic, 0 where the run has nothing: trec_eval -c's average (``complete=True``), except
    that -c (and irrepro) still count such a topic's NumRel and NumQ."""
    rs, qrels, runs = collection
    objs = [ir_measures.parse_measure(s) for s in COMPUTABLE]
    given = COMPUTABLE if form == "string" else objs
    ev = measures.evaluate(rs, given)
    summary = measures.summarize(ev, complete=True)
    R = {t: sum(g >= 1 for g in js.values()) for t, js in qrels.items()}
    for s, run in enumerate(rs.runs):
        per_topic, agg = _one_by_one(objs, qrels, runs[run])
        missing = [t for t in rs.topics if t not in runs[run]]
        assert missing
        for key, obj in zip(given, objs):
            sm = ev[key]
            tol = 5e-6 + 1e-12 if obj.NAME == "ERR" else 1e-12  # gdeval.pl prints 5 decimals
            for t, topic in enumerate(rs.topics):
                want = per_topic[str(obj), topic]
                if topic in missing and obj.NAME in ("NumRel", "NumQ"):
                    want = {"NumRel": R[topic], "NumQ": 1}[obj.NAME]
                assert sm.scores[s, t] == pytest.approx(want, abs=tol), (run, key, topic)
            want = agg[obj]
            if obj.NAME in ("NumRel", "NumQ"):
                want += sum(R[t] if obj.NAME == "NumRel" else 1 for t in missing)
            assert summary.loc[run, sm.measure] == pytest.approx(want, abs=tol), (run, key)


def test_objects_from_the_brief_and_per_measure_rel(collection):
    rs, qrels, runs = collection
    given = [ir_measures.AP(rel=2), ir_measures.Bpref, ir_measures.nDCG @ 10, ir_measures.R @ 1000,
             ir_measures.RR @ 10, ir_measures.Judged @ 10, ir_measures.P(rel=2) @ 10, "AP", "MAP"]  # fmt: skip
    ev = measures.evaluate(rs, given, rel=1)
    assert [ev[g].measure for g in given] == ["AP(rel=2)", "Bpref", "nDCG@10", "R@1000", "RR@10",
                                              "Judged@10", "P(rel=2)@10", "AP", "AP"]  # fmt: skip
    assert ev["AP"] is ev["MAP"]  # one computation for two spellings of one measure
    assert ev["map"] is ev["AP"] and ev[ir_measures.AP] is ev["AP"]  # any spelling finds it
    with pytest.raises(KeyError):
        ev["P@10"]
    # a per-measure rel overrides the global one: AP(rel=2) under rel=1 is AP under rel=2
    ev2 = measures.evaluate(rs, ["AP"], rel=2)
    np.testing.assert_array_equal(ev[ir_measures.AP(rel=2)].scores, ev2["AP"].scores)
    assert ev2["AP"].measure == "AP(rel=2)"
    agg = ir_measures.calc_aggregate([ir_measures.AP(rel=2)], qrels, runs[rs.runs[0]])
    assert measures.summarize(ev2).iloc[0]["AP(rel=2)"] == pytest.approx(
        agg[ir_measures.AP(rel=2)], abs=1e-12
    )
    # ERR without a cutoff: the whole list (gdeval.pl needs a cutoff; lists here are <= 40 long)
    ev3 = measures.evaluate(rs, ["ERR", "ERR@1000"])
    np.testing.assert_array_equal(ev3["ERR"].scores, ev3["ERR@1000"].scores)
