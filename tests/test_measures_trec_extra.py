"""trec_eval's measures that ir_measures lacks (issue 29, item 4): ``Rprec_mult@x``,
``relative_P@k``, ``utility``, ``binG``, ``G``, ``ndcg_rel``, ``Rndcg``,
``num_nonrel_judged_ret``, ``unj@k`` and ``rbp_resid``, per topic and in both of trec_eval's
averages, against

* pytrec_eval (trec_eval's C code, full precision; every measure it has: all but unj and
  rbp_resid) on generated collections - graded grades, qrels grades -1 (pooled, not judged),
  unjudged documents, a topic without relevant documents, runs missing a topic, tied scores - at
  several relevance levels and depths: these run on every machine, CI included;
* the trec_eval 10 binary (``TREC_EVAL``; 4 decimals) for all of them, with ``-c``, ``-l``,
  ``-M`` and the measures' parameters (gains, utility's weights, rbp_resid's p).

The trec_eval test files (``TREC_EVAL_TEST``) are checked in test_measures_parity.py, and the
TREC-COVID runs against pytrec_eval in test_measures.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from _reference import pytrec_eval_scores, run_trec_eval
from irrepro import InputError, data, measures
from test_measures_parity import make_collection

pytestmark = pytest.mark.filterwarnings("error")

# our name -> pytrec_eval's (trec_eval's) name
PYTREC = {
    **{f"Rprec_mult@{x}": f"Rprec_mult_{x:.2f}" for x in (0.2, 0.4, 0.6, 1.0, 1.4, 2.0)},
    **{f"relative_P@{k}": f"relative_P_{k}" for k in (1, 3, 5, 10, 100)},
    "utility": "utility", "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
}  # fmt: skip
# pytrec_eval's measure options: every multiple and cutoff above in one evaluator
PYTREC_OPTIONS = {"Rprec_mult", "relative_P.1,3,5,10,100", "utility", "binG", "G", "ndcg_rel", "Rndcg",
                  "num_nonrel_judged_ret"}  # fmt: skip


def _with_ties(tmp_path: Path, files: list[Path]) -> list[Path]:
    """The same runs with scores rounded to a few values: many ties, broken by document id."""
    out = []
    for f in files:
        g = tmp_path / "tied" / f.name
        g.parent.mkdir(exist_ok=True)
        lines = [ln.split() for ln in f.read_text().splitlines()]
        g.write_text("".join(f"{t} Q0 {d} {r} {float(s) // 20:g} {n}\n" for t, _, d, r, s, n in lines))
        out.append(g)
    return out


def _runs_of(files: list[Path]) -> dict:
    runs: dict = {}
    for f in files:
        run = runs.setdefault(f.stem, {})
        for t, _, d, _, s, _ in (ln.split() for ln in f.read_text().splitlines()):
            run.setdefault(t, {})[d] = float(s)
    return runs


# (depth on tied lists is left out: the reference cuts a list by score, irrepro by rank)
@pytest.mark.parametrize(("depth", "ties"), [(None, False), (6, False), (None, True)])
@pytest.mark.parametrize("rel", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_equal_to_pytrec_eval(tmp_path, seed, rel, depth, ties):
    """Per topic (a topic the run missed: on the empty list) and both averages, to 1e-12."""
    qpath, files, qrels, runs = make_collection(tmp_path, 900 + seed + 10 * rel)
    if ties:
        files = _with_ties(tmp_path, files)
        runs = _runs_of(files)
    rs = data.load_runs(files, qrels=qpath)
    ev = measures.evaluate(rs, list(PYTREC), rel=rel, depth=depth)
    checked = 0
    for complete in (True, False):
        summ = measures.summarize(ev, complete=complete)
        for s, run in enumerate(rs.runs):
            ref = pytrec_eval_scores(
                qrels, runs[run], PYTREC_OPTIONS, rel=rel, complete=complete, depth=depth
            )
            for m, tm in PYTREC.items():
                for t, topic in enumerate(rs.topics):
                    if (tm, topic) in ref:
                        assert ev[m].scores[s, t] == pytest.approx(ref[tm, topic], abs=1e-12), (run, topic, m)
                        checked += 1
                got = summ.loc[run, ev[m].measure]
                assert got == pytest.approx(ref[tm, "all"], abs=1e-12, rel=1e-12), (run, m, complete)
    assert checked > 600  # 16 measures x 9 topics x 3 runs x 2 averages, less the missed topics


def _trec_eval(binary, qrels, run, meas, *flags) -> dict:
    out = run_trec_eval(binary, qrels, run, "-q", *flags, *[a for m in meas for a in ("-m", m)])
    res = {}
    for line in out.splitlines():
        name, topic, value = line.split()
        if name != "runid":
            res[name, topic] = float(value)
    return res


# our name -> trec_eval's printed name, and the -m options that print them
BINARY = {
    **PYTREC,
    "unj@5": "unj_5", "unj@10": "unj_10", "unj@20": "unj_20", "rbp_resid": "rbp_resid",
    "rbp_resid(p=0.5)": "rbp_resid_p=0.5", "G(gains={1:3,2:9})": "G_1=3,2=9",
    "ndcg_rel(gains={2:5})": "ndcg_rel_2=5", "Rndcg(gains={1:2,3:4})": "Rndcg_1=2,3=4",
    "utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)": "utility_2,-0.5,-1,0",
}  # fmt: skip
BINARY_OPTIONS = [["Rprec_mult", "relative_P.1,3,5,10,100", "utility", "binG", "G", "ndcg_rel", "Rndcg",
                   "num_nonrel_judged_ret", "unj.5,10,20", "rbp_resid"],
                  ["rbp_resid.p=0.5", "G.1=3,2=9", "ndcg_rel.2=5", "Rndcg.1=2,3=4",
                   "utility.2,-0.5,-1,0"]]  # fmt: skip


# trec_eval -c scores a topic the run missed on a stand-in list of one unjudged document
# (trec_eval.c's bogus ranking), then zeroes what that document changes - for ``utility`` and
# ``rbp_resid`` only under these names: with other weights or p it keeps the document's part
# (utility: p2 = -0.5; rbp_resid: p + (1 - p) = 1). irrepro scores the empty list, as for every
# measure (utility: p3 R).
BOGUS = {"rbp_resid(p=0.5)": 1.0, "utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)": -0.5}


@pytest.mark.parametrize("seed", range(3))
def test_equal_to_trec_eval_binary(tmp_path, seed, trec_eval_10):
    """Every new measure, with -c, at -l 1 and 2, with and without -M, per topic and the summary,
    against trec_eval 10 (4 decimals)."""
    qpath, files, _, _ = make_collection(tmp_path, 950 + seed, grades=(0, 0, 1, 1, 2, 3))
    rs = data.load_runs(files, qrels=qpath)
    for rel, depth in [(1, None), (2, 8)]:
        ev = measures.evaluate(rs, list(BINARY), rel=rel, depth=depth)
        summ = measures.summarize(ev, complete=True)
        for f in files:
            s = rs.runs.index(f.stem)
            flags = ["-c", f"-l{rel}", *([f"-M{depth}"] if depth else [])]
            ref: dict = {}
            for options in BINARY_OPTIONS:  # (one parameter set per measure and call)
                ref |= _trec_eval(trec_eval_10, qpath, f, options, *flags)
            missed = {
                t for t in rs.topics if not any(ln.startswith(f"{t} ") for ln in f.read_text().splitlines())
            }
            assert len(missed) == 1
            n = 0
            for m, tm in BINARY.items():
                for t, topic in enumerate(rs.topics):
                    if topic in missed and m in BOGUS:  # trec_eval's stand-in list, not the empty one
                        # ours: the empty list's; theirs: plus the stand-in's one unjudged document
                        assert ref[tm, topic] - ev[m].scores[s, t] == pytest.approx(BOGUS[m], abs=5e-5)
                        continue
                    assert ev[m].scores[s, t] == pytest.approx(ref[tm, topic], abs=5e-5 + 1e-12), (m, topic)
                    n += 1
                if m not in BOGUS:
                    got = summ.loc[f.stem, ev[m].measure]
                    assert got == pytest.approx(ref[tm, "all"], abs=5e-5 + 1e-12, rel=1e-12), (m, rel)
            assert n == len(BINARY) * len(rs.topics) - len(BOGUS)


@pytest.mark.parametrize("rel", [1, 2])
def test_irrepro_eval_prints_what_trec_eval_prints(tmp_path, capsys, rel, trec_eval_10):
    """``irrepro eval --format trec_eval --precision float64 -c -q``: trec_eval 10's output of the
    same job, byte for byte - names, order, per-topic lines (a missed topic's too), summaries."""
    from irrepro.cli import main

    qpath, files, _, _ = make_collection(tmp_path, 980 + rel, grades=(0, 0, 1, 1, 2, 3))
    ours = ["Rprec_mult@0.4", "relative_P@5", "utility", "binG", "G", "ndcg_rel", "Rndcg",
            "num_nonrel_judged_ret", "unj@10", "rbp_resid"]  # fmt: skip
    theirs = ["Rprec_mult.0.4", "relative_P.5", "utility", "binG", "G", "ndcg_rel", "Rndcg",
              "num_nonrel_judged_ret", "unj.10", "rbp_resid"]  # fmt: skip
    args = ["eval", "--qrels", qpath, *files, *[a for m in ours for a in ("-m", m)], "-l", rel, "-c", "-q",
            "--precision", "float64", "--format", "trec_eval"]  # fmt: skip
    assert main([str(a) for a in args]) == 0
    out = capsys.readouterr().out
    opts = ["-m", "runid", *[a for m in theirs for a in ("-m", m)], f"-l{rel}", "-c", "-q"]
    assert out == "".join(run_trec_eval(trec_eval_10, qpath, f, *opts) for f in files)


def test_to_trec_eval_prints_trec_eval_names_in_its_order():
    qrels = data.load_qrels({"q1": {"d1": 1, "d2": 0, "d3": 2}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "u": 1.0}}, qrels)
    ev = measures.evaluate(runs, ["unj@5", "Rndcg", "utility", "Rprec_mult@0.2", "num_nonrel_judged_ret"])
    names = [line.split()[0] for line in measures.to_trec_eval(ev).splitlines()]
    assert names == ["runid", "Rprec_mult_0.20", "utility", "Rndcg", "num_nonrel_judged_ret", "unj_5"]
    assert "num_nonrel_judged_ret \tall\t1" in measures.to_trec_eval(ev)  # a count: summed, an integer


def test_worked_values():
    """One list worked by hand: relevant d1 (grade 1) at rank 1, judged non-relevant d2 at 2, an
    unjudged document at 3; d3 (grade 2) not retrieved. R = 2."""
    qrels = data.load_qrels({"q1": {"d1": 1, "d2": 0, "d3": 2}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "u": 1.0}}, qrels)
    ev = measures.evaluate(runs, ["binG", "utility", "relative_P@2", "Rprec_mult@1.0", "unj@2", "unj@5",
                                  "num_nonrel_judged_ret", "rbp_resid(p=0.5)", "G", "ndcg_rel", "Rndcg"])  # fmt: skip
    v = {m: sm.scores[0, 0] for m, sm in ev.items()}
    assert v["binG"] == pytest.approx(1 / np.log2(2) / 2)  # d1: no non-relevant above it
    assert v["utility"] == 1 - 2  # a - b: 1 relevant, 2 others retrieved
    assert v["relative_P@2"] == 1 / 2 and v["Rprec_mult@1.0"] == 1 / 2
    assert v["unj@2"] == 0 and v["unj@5"] == 1 / 5  # over k, not over the list's length
    assert v["num_nonrel_judged_ret"] == 1
    assert v["rbp_resid(p=0.5)"] == pytest.approx(0.5 * 0.25 + 0.5**3)
    # G: gains 1, 0, 0; cost 2, 3, 4 (ideal 2, 1, then 1); cg 1, 1, 1: 1 / log2(2 + 2 - 1) over 3
    assert v["G"] == pytest.approx(1 / np.log2(3) / 3)
    idcg1, idcg2 = 2.0, 2.0 + 1 / np.log2(3)
    # ndcg_rel: at d1 DCG 1 / ideal 2; d3 not retrieved: the run's DCG 1 / the whole ideal DCG
    assert v["ndcg_rel"] == pytest.approx((1 / idcg1 + 1 / idcg2) / 2)
    # Rndcg: the ideal gain changes after rank 1 (2 -> 1) and rank 2 (1 -> 0): nDCG@1 and nDCG@2
    assert v["Rndcg"] == pytest.approx((1 / idcg1 + 1 / idcg2) / 2)


@pytest.mark.parametrize("bad", ["unj", "Rprec_mult", "relative_P", "Rprec_mult@-0.5", "unj@0",
                                 "utility(d=1)", "utility(rel_ret=True)", "rbp_resid(p=1.5)", "G(rel=2)",
                                 "G(gains={1:-1})", "gm_num_nonrel_judged_ret", "P(rel=-1)@5"])  # fmt: skip
def test_bad_names_are_refused_saying_why(bad):
    with pytest.raises(InputError, match="measure"):
        measures.parse_measure(bad)


def test_names_round_trip():
    """Canonical names parse back to the same measure; trec_eval's spellings give the same one."""
    pairs = {"Rprec_mult_0.20": "Rprec_mult@0.2", "Rprec_mult.1.5": "Rprec_mult@1.5",
             "relative_P_5": "relative_P@5", "relative_P.5": "relative_P@5", "unj_10": "unj@10",
             "rbp_resid_p=0.5": "rbp_resid(p=0.5)", "rbp_resid": "rbp_resid(p=0.9)",
             "utility(nonrel_ret=-1)": "utility"}  # fmt: skip
    for trec, ours in pairs.items():
        assert measures.parse_measure(trec) == measures.parse_measure(ours), trec
    for name in [*BINARY, "Rndcg(rel=2)", "utility(rel_ret=-2.5)", "gm_binG"]:
        m = measures.parse_measure(name)
        assert measures.parse_measure(m.name) == m, name


def test_documented_names_parse_and_give_trec_eval_names():
    """The second table of irrepro.measures' API page (book/api/measures.md): each name parses (k = 10, x = 0.5), its
    trec_eval name is the table's, and that parses back to the same measure."""
    doc = (Path(__file__).resolve().parents[1] / "book" / "api" / "measures.md").read_text()
    table = doc[doc.index("irrepro                    trec_eval") :].split("\n=====")[1]
    rows = [line.split()[:2] for line in table.splitlines()[1:] if line[:1] == "`"]
    assert len(rows) == 10
    for ours, theirs in rows:
        ours, theirs = (n.strip("`").replace("@k", "@10").replace("@x", "@0.5") for n in (ours, theirs))
        theirs = theirs.replace("_k", "_10").replace("_x", "_0.50")
        assert measures.trec_eval_name(ours) == theirs, ours
        assert measures.parse_measure(theirs) == measures.parse_measure(ours), theirs


# irrepro's measure -> the -m option of trec_eval 10 that computes it, written by hand from trec_eval's
# measure descriptions (trec_eval -h -m ...): trec_eval prints each under the name trec_eval_name gives
PARAMETERISED = {
    "P@5": "P.5", "R@10": "recall.10", "AP@10": "map_cut.10", "nDCG@10": "ndcg_cut.10",
    "Success@5": "success.5", "IPrec@0.125": "iprec_at_recall.0.125", "SetF(beta=0.5)": "set_F.0.5",
    "SetF(beta=2.0)": "set_F.2", "RBP(p=0.5)": "rbp.p=0.5", "rbp_resid(p=0.25)": "rbp_resid.p=0.25",
    "Rprec_mult@0.25": "Rprec_mult.0.25", "relative_P@5": "relative_P.5", "unj@10": "unj.10",
    "utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)": "utility.2,-0.5,-1,0",
    "utility(rel_ret=1.5)": "utility.1.5,-1,0,0", "G(gains={1:3,2:9})": "G.1=3,2=9",
    "nDCG(gains={1:3,2:9})": "ndcg.1=3,2=9", "ndcg_rel(gains={2:5})": "ndcg_rel.2=5",
    "Rndcg(gains={1:2,3:4})": "Rndcg.1=2,3=4", "gm_map": "gm_map", "gm_bpref": "gm_bpref",
    "SetRelP": "set_relative_P", "RBP": "rbp.p=0.8", "RBP(p=0.9)": "rbp",
}  # fmt: skip


def test_trec_eval_names_of_parameterised_measures(tmp_path, trec_eval_10):
    """Each parameterised measure's name is what trec_eval 10 prints for the -m option computing it."""
    qpath, files, _, _ = make_collection(tmp_path, 990, grades=(0, 0, 1, 1, 2, 3))
    for ours, option in PARAMETERISED.items():
        out = run_trec_eval(trec_eval_10, qpath, files[0], "-c", "-m", option)
        printed = {line.split()[0] for line in out.splitlines()}
        assert printed == {measures.trec_eval_name(ours)}, (ours, option)


def test_to_trec_eval_names_weights_and_gains_as_trec_eval_prints_them():
    qrels = data.load_qrels({"q1": {"d1": 1, "d2": 0, "d3": 2}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "u": 1.0}}, qrels)
    ev = measures.evaluate(runs, ["Rndcg(gains={1:2})", "utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)",
                                  "G(gains={1:3,2:9})", "SetF(beta=0.5)", "AP(rel=2)"])  # fmt: skip
    names = [line.split()[0] for line in measures.to_trec_eval(ev).splitlines()]
    # trec_eval's order (utility, G, Rndcg, set_F); AP(rel=2) is trec_eval's map only under -l 2
    assert names == ["runid", "utility_2,-0.5,-1,0", "G_1=3,2=9", "Rndcg_1=2", "set_F_0.5", "AP(rel=2)"]


# the weighted utility of irrepro eval -m, its trec_eval -m option and its weight of a non-relevant
# document retrieved (p2): the stand-in document's share on a topic the run misses
WEIGHTED = ("utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)", "utility.2,-0.5,-1,0", -0.5)


@pytest.mark.parametrize("rel", [1, 2])
def test_eval_format_trec_eval_weighted_utility_and_the_missing_topic(tmp_path, capsys, rel, trec_eval_10):
    """``irrepro eval --format trec_eval -c -q`` with weighted utility and gains prints trec_eval 10's
    lines byte for byte - names included - but for weighted utility on the topic the run misses and
    in its summary: there trec_eval 10's value is irrepro's + p2 (its stand-in document; over the
    number of topics in the mean)."""
    from irrepro.cli import main

    qpath, files, _, _ = make_collection(tmp_path, 970 + rel, grades=(0, 0, 1, 1, 2, 3))
    topics = data.load_qrels(qpath).topics
    ours = [WEIGHTED[0], "G(gains={1:3,2:9})", "ndcg_rel(gains={2:5})", "Rndcg(gains={1:2,3:4})",
            "SetF(beta=0.5)", "Success@5"]  # fmt: skip
    theirs = [WEIGHTED[1], "G.1=3,2=9", "ndcg_rel.2=5", "Rndcg.1=2,3=4", "set_F.0.5", "success.5"]
    for f in files:
        args = ["eval", "--qrels", qpath, f, *[a for m in ours for a in ("-m", m)], "-l", rel, "-c", "-q",
                "--precision", "float64", "--format", "trec_eval"]  # fmt: skip
        assert main([str(a) for a in args]) == 0
        mine = capsys.readouterr().out.splitlines()
        opts = ["-m", "runid", *[a for m in theirs for a in ("-m", m)], f"-l{rel}", "-c", "-q"]
        reference = run_trec_eval(trec_eval_10, qpath, f, *opts).splitlines()
        (missed,) = {
            t for t in topics if not any(ln.startswith(f"{t} ") for ln in f.read_text().splitlines())
        }
        assert len(mine) == len(reference) > 6 * len(topics)
        differ = []
        for a, b in zip(mine, reference):
            if a != b:
                (name, topic, value), theirs_value = a.split("\t"), b.split("\t")[2]
                assert b.split("\t")[:2] == [name, topic]
                share = WEIGHTED[2] / (len(topics) if topic == "all" else 1)
                assert float(theirs_value) == pytest.approx(float(value) + share, abs=1e-4), (
                    f,
                    topic,
                )  # (both rounded)
                differ.append((name.strip(), topic))
        assert differ == [("utility_2,-0.5,-1,0", missed), ("utility_2,-0.5,-1,0", "all")]


# ---- trec_eval's names read back (-m options and what --format trec_eval prints) ------------------


def test_trec_eval_options_and_printed_names_are_read_as_the_measure():
    """Each -m option of trec_eval (written by hand above) and the name trec_eval prints for it read
    as the measure they compute: ``utility.2,-0.5,-1,0``, ``G.1=3,2=9``, ``ndcg.1=3,2=9``,
    ``rbp.p=0.5`` as well as ``P.5`` and ``set_F.0.5`` (the first were refused)."""
    for ours, option in PARAMETERISED.items():
        m = measures.parse_measure(ours)
        assert measures.parse_measure(option) == m, option
        if ours != "IPrec@0.125":  # (printed iprec_at_recall_0.12, as trec_eval prints it: %3.2f)
            assert measures.parse_measure(measures.trec_eval_name(m)) == m, ours
    for ours, theirs in BINARY.items():
        assert measures.parse_measure(theirs) == measures.parse_measure(ours), theirs


# a measure of every family trec_eval prints under a name of its own (levels with two decimals:
# trec_eval prints iprec_at_recall and Rprec_mult with %3.2f), and some it does not (printed under
# irrepro's names: G_AP, Q, ERR@10, gm_nDCG@10, nDCG with gains and a cutoff)
PRINTED = ["AP", "AP@10", "P@5", "R@10", "Rprec", "RR", "Success@5", "Bpref", "infAP", "nDCG", "nDCG@10",
           "RBP", "RBP(p=0.5)", "RBP(p=0.9)", "NumRet", "NumRelRet", "NumRel", "NumQ", "IPrec@0.25",
           "11pt_avg", "SetP", "SetRelP", "SetR", "SetF", "SetF(beta=0.5)", "SetAP", "gm_map", "gm_bpref",
           "relative_P@5", "Rprec_mult@0.4", "utility", "utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)",
           "utility(rel_ret=0.00001)", "binG", "G", "G(gains={1:3,2:9})", "nDCG(gains={1:3,2:9})",
           "ndcg_rel", "ndcg_rel(gains={2:5})", "Rndcg", "Rndcg(gains={1:2})", "num_nonrel_judged_ret",
           "unj@10", "rbp_resid", "rbp_resid(p=0.5)", "G_AP", "G_G(gains={1:3})", "Q", "ERR@10",
           "gm_nDCG@10", "nDCG(gains={2:3})@10", "AP(rel=2)"]  # fmt: skip


@pytest.mark.parametrize("rel", [1, 2])
def test_every_name_format_trec_eval_prints_reads_back_as_its_measure(rel):
    """``to_trec_eval`` (``irrepro eval --format trec_eval``) under ``-l rel``: the names it prints,
    read with the same level, are the measures evaluated - one for one."""
    qrels = data.load_qrels({"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 3, "d5": 1}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "u": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}}, qrels)
    ev = measures.evaluate(runs, PRINTED, rel=rel)
    printed = [line.split("\t")[0].strip() for line in measures.to_trec_eval(ev).splitlines()]
    distinct = {measures.parse_measure(m, rel=rel).name for m in PRINTED}  # (under -l 2, AP is AP(rel=2))
    assert printed[0] == "runid" and len(printed) == len(distinct) + 1
    assert {"utility_2,-0.5,-1,0", "G_1=3,2=9", "ndcg_1=3,2=9", "ndcg_rel_2=5", "Rndcg_1=2"} <= set(printed)
    back = [measures.parse_measure(name, rel=rel).name for name in printed[1:]]
    assert sorted(back) == sorted(distinct)


_WEIGHT = st.floats(min_value=-1e100, max_value=1e100, allow_nan=False)
_GAIN = st.floats(min_value=0, max_value=1e100, allow_nan=False)


@given(w=st.tuples(_WEIGHT, _WEIGHT, _WEIGHT),
       gains=st.dictionaries(st.integers(1, 12), _GAIN, min_size=1, max_size=4),
       family=st.sampled_from(["G", "nDCG", "ndcg_rel", "Rndcg"]),
       beta=st.floats(min_value=0, max_value=1e6, allow_nan=False),
       p=st.floats(min_value=1e-9, max_value=1 - 1e-9, exclude_max=True))  # fmt: skip
@settings(max_examples=200, deadline=None)
@example(w=(2.0, -0.5, -1.0), gains={1: 3.0, 2: 9.0}, family="G", beta=0.5, p=0.5)
@example(w=(1e-05, -1.5e20, 5e-324), gains={1: 1e-05, 2: 1e100}, family="nDCG", beta=1e-05, p=1e-05)
def test_trec_eval_names_read_back_for_any_weights_and_gains(w, gains, family, beta, p):
    """trec_eval's name of utility with any weights, a gain-taking measure with any gains, SetF
    with any beta and RBP with any p reads back as the same measure (numbers printed without an
    exponent, as trec_eval's -m takes and prints them)."""
    weights = dict(zip(("rel_ret", "nonrel_ret", "rel_missed"), w))
    gain_text = ",".join(f"{g}:{v!r}" for g, v in gains.items())
    for m in [measures.parse_measure(ir_measures_call("utility", weights)),
              measures.parse_measure(f"{family}(gains={{{gain_text}}})"),
              measures.parse_measure(f"SetF(beta={float(beta)!r})"), measures.parse_measure(f"RBP(p={p!r})")]:  # fmt: skip
        name = measures.trec_eval_name(m)
        assert name is not None and not re.search(r"[0-9][eE]", name), name
        assert measures.parse_measure(name) == m, name


def ir_measures_call(family: str, params: dict) -> str:
    """``family(k=v, ...)`` with each value's repr (a sign allowed: utility's weights)."""
    return f"{family}({','.join(f'{k}={float(v)!r}' for k, v in params.items())})"


def test_g_before_a_grade_is_trec_eval_g_before_a_measure_sakai_geometric_mean():
    """``G_<grade>=`` is trec_eval's G with gains; ``G_`` before a measure name is Sakai's geometric
    mean - of trec_eval's G with gains too (``G_G_1=3``)."""
    p = measures.parse_measure
    assert p("G_1=3,2=9") == p("G.1=3,2=9") == p("G(gains={1:3,2:9})")
    assert p("G_1=3,2=9").agg == "mean"
    assert p("G_G_1=3") == p("G_G(gains={1:3})") and p("G_G_1=3").agg == "G"
    assert p("G_nDCG@10").agg == "G" and p("G_ndcg_1=3") == p("G_nDCG(gains={1:3})")
    assert p("gm_ndcg.1=3").agg == "gm" and p("G_G").agg == "G" and p("G_G").family == "G"


@pytest.mark.parametrize(("bad", "why"), [
    ("utility_1,-1,0", "trec_eval's utility takes four weights p1,p2,p3,p4 (e.g. utility.1,-1,0,0), not 3"),
    ("utility.1,-1,0,2", "p4 = 2, trec_eval's weight of the documents neither relevant nor retrieved, needs "
                         "the collection's size"),
    ("ndcg_1=3,1=4", "a grade is given two gains"),
    ("G.1=-3", "gain -3.0 of grade 1 must be a number in [0, 1e100]"),
    ("ndcg_rel_1=1e200", "gain 1e+200 of grade 1 must be a number in [0, 1e100]"),
    ("utility_1,-1e101,0,0", "a weight must lie in [-1e100, 1e100]"),
])  # fmt: skip
def test_trec_eval_weights_and_gains_out_of_range_are_refused_saying_why(bad, why):
    with pytest.raises(InputError, match=f"measure {re.escape(repr(bad))}: {re.escape(why)}"):
        measures.parse_measure(bad)


@pytest.mark.parametrize("name", ["G_utility", "G_utility(rel_missed=-0.5,nonrel_ret=0)", "G_utility_2,-0.5,-1,0",
                                  "ir_measures.G_utility(nonrel_ret=-1e-9)"])  # fmt: skip
def test_sakai_geometric_mean_of_a_measure_that_can_be_negative_is_refused(name):
    """Sakai's G_ (log(x + 0.00001)) of utility with a negative weight is undefined for a topic
    scoring below -0.00001: refused when the name is read, naming trec_eval's gm_, which stays
    defined (it printed G_utility nan)."""
    with pytest.raises(InputError, match=r"Sakai's G_ is exp\(mean\(log\(x \+ 0.00001\)\)\), undefined for a "
                                         r"score below -0.00001, and utility.* can be negative \(a negative "
                                         r"weight\); trec_eval's gm_.* stays defined: gm_utility"):  # fmt: skip
        measures.parse_measure(name)


def test_geometric_means_of_utility_that_stay_defined():
    """trec_eval's gm_ of utility with negative weights, and Sakai's G_ of utility without one:
    the formulas over the topics' scores (a topic scoring -2 is clamped at 0.00001 by gm_)."""
    qrels = data.load_qrels({"q1": {"d1": 1, "d2": 0, "d3": 0}, "q2": {"d4": 1}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}}, qrels)
    ev = measures.evaluate(runs, ["utility", "gm_utility", "G_utility(nonrel_ret=0)"])
    s = measures.summarize(ev).iloc[0]
    assert ev["utility"].scores[0].tolist() == [1 - 2, 1]  # q1: 1 relevant, 2 others retrieved; q2: 1
    assert s["gm_utility"] == pytest.approx(np.exp((np.log(1e-5) + np.log(1)) / 2), rel=1e-12)
    assert s["G_utility(nonrel_ret=0.0)"] == pytest.approx(np.exp(np.log(1 + 1e-5)), rel=1e-12)


@pytest.mark.parametrize(("name", "why"), [
    ("gm_gm_map", "gm_map is already a geometric mean over topics; gm_ goes before a per-topic measure, e.g. gm_map"),
    ("G_gm_map", "gm_map is already a geometric mean over topics; G_ goes before a per-topic measure, e.g. G_map"),
    ("G_G_AP", "G_AP is already a geometric mean over topics; G_ goes before a per-topic measure, e.g. G_AP"),
    ("gm_G_nDCG@10", "G_nDCG@10 is already a geometric mean over topics; gm_ goes before a per-topic measure"),
])  # fmt: skip
def test_a_geometric_mean_of_a_geometric_mean_is_refused_saying_so(name, why):
    with pytest.raises(InputError, match=f"measure {re.escape(repr(name))}: {re.escape(why)}"):
        measures.parse_measure(name)


def test_weights_and_gains_that_could_overflow_are_refused():
    """A utility weight or a gain beyond 1e100 in magnitude is refused: its sums over documents and
    topics could overflow (``utility(rel_ret=1e308,nonrel_ret=-1e308)`` scored inf - inf = NaN
    per topic, and ``irrepro eval --format json`` gave its mean the reason "no topic to average
    over"); at the bound, scores are the formula's."""
    for bad in ("utility(rel_ret=1e101)", "utility(rel_ret=1e308,nonrel_ret=-1e308)", "nDCG(gains={1:1e101})",
                "G(gains={2:1e300})", "DCG(gains={1:1e308})@10"):  # fmt: skip
        with pytest.raises(InputError, match=r"1e100\]"):
            measures.parse_measure(bad)
    qrels = data.load_qrels({"q1": {"d1": 1, "d2": 0, "d3": 2}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "u": 1.0}}, qrels)
    big = ["utility(rel_ret=1e100,nonrel_ret=1e100,rel_missed=-1e100)", "DCG(gains={1:1e100,2:1e100})@10"]
    ev = measures.evaluate(runs, big)
    assert ev[big[0]].scores[0, 0] == pytest.approx(1e100 * (1 + 2 - 1), rel=1e-12)  # a = 1, b = 2, c = 1
    assert ev[big[1]].scores[0, 0] == pytest.approx(1e100, rel=1e-12)  # d1 at rank 1: gain / log2(2)
