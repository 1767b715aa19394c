"""Every measure, per topic, against independent references on generated collections:

* pytrec_eval (trec_eval 9's C code, full precision) for every measure, relevance level and cutoff
  it has, trec_eval's two averages (``-c`` or not) and depth (``-M``, as the lists' top documents):
  these run on every machine, CI included;
* the trec_eval binaries (10.0 and 9.0.8, 4 decimals; ``TREC_EVAL``, ``TREC_EVAL_9``) for what only
  they have: graded RBP, and ``-M`` given on trec_eval's own command line;
* ir_measures' own providers for RR@k (MS MARCO's), Judged@k and ERR@k (TREC Web's gdeval.pl);
* trec_eval's own test files (``TREC_EVAL_TEST``: qrels, results and expected outputs).

The collections are written as TREC files and read through ``data.load_runs``, so the path a
user takes is the one tested. Scores are distinct integers: no ties, so every tool ranks alike.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from _reference import pytrec_eval_frame, pytrec_eval_scores, run_trec_eval
from irrepro import data, measures

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here


# --------------------------------------------------------------------------------------------
# generated collections
# --------------------------------------------------------------------------------------------


def make_collection(tmp_path: Path, seed: int, *, n_topics=9, n_runs=3, grades=(0, 0, 0, 1, 1, 2, 3),
                    pooled=True, max_len=40):  # fmt: skip
    """Write a random qrels file and run files; return (qrels path, run paths, qrels dict, run
    dicts). Topic 1 has no relevant document; every run misses one topic and retrieves for a
    topic the qrels lack; unjudged documents and (with ``pooled``) qrels grades -1 appear."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    for t in range(1, n_topics + 1):
        docs = [f"d{t}_{i}" for i in range(int(rng.integers(5, 60)))]
        judged = {}
        for d in docs:
            g = int(rng.choice(grades))
            if t == 1:
                g = 0
            if pooled and rng.random() < 0.08:
                g = -1
            judged[d] = g
        qrels[str(t)] = judged
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(f"{t} 0 {d} {g}\n" for t, js in qrels.items() for d, g in js.items()))
    runs = {}
    rdir = tmp_path / "runs"
    rdir.mkdir(exist_ok=True)
    for r in range(n_runs):
        name = f"run{r}"
        skip = str(int(rng.integers(2, n_topics + 1)))
        run: dict[str, dict[str, float]] = {}
        for t in [*qrels, "999"]:
            if t == skip:
                continue
            pool = list(qrels.get(t, {})) + [f"u{t}_{i}" for i in range(20)]
            n = int(rng.integers(1, min(max_len, len(pool)) + 1))
            docs = rng.choice(pool, size=n, replace=False)
            scores = rng.permutation(np.arange(1, n + 1)) * 3 + 1000  # distinct: no ties
            run[t] = {str(d): float(s) for d, s in zip(docs, scores)}
        runs[name] = run
        (rdir / f"{name}.txt").write_text("".join(
            f"{t} Q0 {d} {i + 1} {s:g} {name}\n"
            for t, ds in run.items() for i, (d, s) in enumerate(sorted(ds.items(), key=lambda x: -x[1]))
        ))  # fmt: skip
    return qpath, sorted(rdir.iterdir()), qrels, runs


def trec_eval(binary: Path, qrels: Path, run: Path, meas: list[str], *flags: str) -> dict:
    """{(measure, topic): value} from a trec_eval binary with -q (4 decimals)."""
    out = run_trec_eval(binary, qrels, run, "-q", *flags, *[a for m in meas for a in ("-m", m)])
    res = {}
    for line in out.splitlines():
        name, topic, value = line.split()
        if name != "runid":
            res[name, topic] = float(value)
    return res


# our measure -> pytrec_eval's name
PYTREC = {
    "AP": "map", "AP@5": "map_cut_5", "AP@15": "map_cut_15", "P@5": "P_5", "P@20": "P_20",
    "R@10": "recall_10", "Rprec": "Rprec", "RR": "recip_rank", "Success@1": "success_1",
    "Success@10": "success_10", "Bpref": "bpref", "infAP": "infAP", "nDCG": "ndcg",
    "nDCG@3": "ndcg_cut_3", "nDCG@10": "ndcg_cut_10", "NumRet": "num_ret",
    "NumRelRet": "num_rel_ret", "NumRel": "num_rel", "NumQ": "num_q", "IPrec@0.0": "iprec_at_recall_0.00",
    "IPrec@0.1": "iprec_at_recall_0.10", "IPrec@0.2": "iprec_at_recall_0.20",
    "IPrec@0.3": "iprec_at_recall_0.30", "IPrec@0.7": "iprec_at_recall_0.70",
    "IPrec@1.0": "iprec_at_recall_1.00", "11pt_avg": "11pt_avg", "SetP": "set_P",
    "SetRelP": "set_relative_P", "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map",
    "P@3": "P_3", "P@7": "P_7", "R@2000": "recall_2000", "AP@7": "map_cut_7", "nDCG@23": "ndcg_cut_23",
    "Success@2": "success_2",
    # trec_eval 9's and pytrec_eval's (long)(r R + 0.9)-th relevant document (see IPrec in measures)
    **{f"IPrec@{x / 10}": f"iprec_at_recall_{x / 10:.2f}" for x in (4, 5, 6, 8, 9)},
}  # fmt: skip
# per topic the measure, summarised by trec_eval's geometric mean
GM = {"gm_map": "gm_map", "gm_bpref": "gm_bpref"}


def _ours(tmp_path, seed, names, rel=1, **kw):
    qpath, files, qrels, runs = make_collection(tmp_path, seed, **kw)
    rs = data.load_runs(files, qrels=qpath)
    return rs, measures.evaluate(rs, names, rel=rel), qrels, runs, qpath, files


@pytest.mark.parametrize("depth", [None, 7])
@pytest.mark.parametrize("rel", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_every_measure_equals_pytrec_eval_per_topic_and_averaged(tmp_path, seed, rel, depth):
    """Every measure pytrec_eval has, at every relevance level (its ``relevance_level``) and at
    depth (``-M``: the lists' top documents), per topic - a topic the run missed on the empty
    list - and both of trec_eval's averages, over all the qrels topics (-c) and over the run's."""
    qpath, files, qrels, runs = make_collection(tmp_path, seed + 10 * rel + 100 * bool(depth))
    rs = data.load_runs(files, qrels=qpath)
    names = {**PYTREC, **GM}
    ev = measures.evaluate(rs, list(names), rel=rel, depth=depth)
    summaries = {c: measures.summarize(ev, complete=c) for c in (True, False)}
    checked = 0
    for s, run in enumerate(rs.runs):
        for complete, summ in summaries.items():
            ref = pytrec_eval_scores(qrels, runs[run], set(names.values()), rel=rel, complete=complete,
                                     depth=depth)  # fmt: skip
            for m, tm in names.items():
                for t, topic in enumerate(rs.topics):
                    if (tm, topic) in ref:
                        ours = ev[m].scores[s, t]
                        if m in GM:  # gm_ per topic: pytrec_eval gives log(max(x, 1e-5))
                            ours = math.log(max(ours, 1e-5))
                        assert ours == pytest.approx(ref[tm, topic], abs=1e-12), (run, topic, m, complete)
                        checked += 1
                    else:
                        assert not complete and topic not in runs[run], (run, topic, m)
                want = ref[tm, "all"]  # (pytrec_eval's aggregate of gm_ is exp(mean(log(...))))
                got = summ.loc[run, ev[m].measure]
                assert got == pytest.approx(want, abs=1e-12, rel=1e-12), (run, m, complete)
    assert checked > 2000


def _compare(ours_ev, rs, ref: dict, names: dict, run_idx=0, tol=5e-5 + 1e-12):
    """ours vs {(trec_name, topic): value} for the topics and the 'all' line."""
    n = 0
    for m, tm in names.items():
        for t, topic in enumerate(rs.topics):
            if (tm, topic) in ref:
                assert ours_ev[m].scores[run_idx, t] == pytest.approx(ref[tm, topic], abs=tol), (m, topic)
                n += 1
    return n


RBP_NAMES = {"RBP(p=0.5)": "rbp_p=0.5", "RBP(p=0.8)": "rbp_p=0.8", "RBP": "rbp_p=0.8",
             "RBP(p=0.95)": "rbp_p=0.95"}  # fmt: skip


@pytest.mark.parametrize("seed", range(5))
def test_graded_rbp_per_topic_equals_trec_eval(tmp_path, seed, trec_eval_10):
    """m_rbp.c (trec_eval 10's; pytrec_eval has no RBP): a topic's gains over its own largest gain
    (when above 1)."""
    rs, ev, _, _, qpath, files = _ours(tmp_path, 100 + seed, list(RBP_NAMES), grades=(0, 0, 1, 1, 2, 3, 4))
    for f in files:
        ref = {}
        for p in ("0.5", "0.8", "0.95"):  # (trec_eval takes one rbp parameter per call)
            ref |= trec_eval(trec_eval_10, qpath, f, [f"rbp.p={p}"], "-c")
        assert _compare(ev, rs, ref, RBP_NAMES, rs.runs.index(f.stem)) == 4 * len(rs.topics)


@pytest.mark.parametrize("seed", range(5))
def test_graded_rbp_of_a_topic_never_depends_on_the_others_grades(tmp_path, seed):
    """The same topic scores the same in a collection whose other topics have larger grades."""
    rs, ev, _, _, qpath, files = _ours(tmp_path, 100 + seed, ["RBP(p=0.5)"], grades=(0, 0, 1, 1, 2, 3, 4))
    qpath2 = tmp_path / "qrels_bigger.txt"
    lines = qpath.read_text().splitlines()
    qpath2.write_text("".join(ln.rsplit(" ", 1)[0] + " " + str(int(ln.rsplit(" ", 1)[1]) * 3) + "\n"
                              if not ln.startswith("2 ") else ln + "\n" for ln in lines))  # fmt: skip
    rs2 = data.load_runs(files, qrels=qpath2)
    ev2 = measures.evaluate(rs2, ["RBP(p=0.5)"])
    t = rs.topics.index("2")
    assert np.any(ev["RBP(p=0.5)"].scores[:, t] > 0)
    np.testing.assert_array_equal(ev2["RBP(p=0.5)"].scores[:, t], ev["RBP(p=0.5)"].scores[:, t])


@pytest.mark.parametrize("complete", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_averages_depth_and_rel_equal_trec_eval_binary(tmp_path, seed, complete, request):
    """-M on trec_eval's own command line (the pytrec_eval test above cuts the lists itself): the
    'all' line with -c (trec_eval 10) and without (9.0.8: 10.0 refuses, without -c, a run that
    misses a qrels topic), with -l, for means, sums (num_*) and the geometric mean (gm_map), and
    every topic's line."""
    binary = request.getfixturevalue("trec_eval_10" if complete else "trec_eval_9")
    te = ["map", "P.5", "ndcg_cut.10", "num_ret", "num_rel", "num_rel_ret", "num_q", "gm_map",
          "bpref", "recip_rank", "set_F", "infAP", "success.1"]  # fmt: skip
    names = {"AP": "map", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "NumRet": "num_ret",
             "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "NumQ": "num_q", "gm_map": "gm_map",
             "Bpref": "bpref", "RR": "recip_rank", "SetF": "set_F", "infAP": "infAP",
             "Success@1": "success_1"}  # fmt: skip
    qpath, files, _, _ = make_collection(tmp_path, 200 + seed, grades=(0, 0, 1, 2, 3))
    rs = data.load_runs(files, qrels=qpath)
    for rel, depth in [(1, 7), (3, 4)]:
        ev = measures.evaluate(rs, list(names), rel=rel, depth=depth)
        summ = measures.summarize(ev, complete=complete)
        for f in files:
            s = rs.runs.index(f.stem)
            ref = trec_eval(binary, qpath, f, te, f"-l{rel}", f"-M{depth}", *(["-c"] if complete else []))
            assert _compare(ev, rs, ref, names, s) > 50
            for m, tm in names.items():
                got = summ.loc[f.stem, ev[m].measure]
                want = ref[tm, "all"]
                if tm == "num_rel" and complete and rel > 1:
                    # m_num_rel.c's -c summary counts grades > 0 whatever -l says; we sum the
                    # topics' num_rel at the level, as its per-topic lines are
                    want = sum(v for (name, topic), v in ref.items() if name == tm and topic != "all")
                assert got == pytest.approx(want, abs=5e-5 + 1e-12, rel=1e-12), (m, rel, depth, complete)


@pytest.mark.parametrize("beta", [0.25, 0.5, 2.0])
def test_set_f_beta_equals_pytrec_eval(tmp_path, beta):
    """SetF's beta, trec_eval's set_F parameter (which pytrec_eval prints as plain set_F, so it is
    checked here, one beta per evaluator), per topic and in both averages, at two relevance levels."""
    qpath, files, qrels, runs = make_collection(tmp_path, 600 + int(beta * 4))
    rs = data.load_runs(files, qrels=qpath)
    name = f"SetF(beta={beta})"
    for rel in (1, 2):
        ev = measures.evaluate(rs, [name], rel=rel)
        for complete in (True, False):
            summ = measures.summarize(ev, complete=complete)
            for s, run in enumerate(rs.runs):
                ref = pytrec_eval_scores(qrels, runs[run], {f"set_F.{beta}"}, rel=rel, complete=complete)
                assert _compare(ev, rs, ref, {name: "set_F"}, s, tol=1e-12) > 5
                assert summ.loc[run, ev[name].measure] == pytest.approx(ref["set_F", "all"], abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_rr_judged_err_equal_ir_measures_providers(tmp_path, seed):
    """RR@k (ir_measures' msmarco provider), Judged@k (its judged provider), ERR@k (its gdeval
    provider: TREC Web's gdeval.pl, printed to 5 decimals), per topic; qrels without negative
    grades (ir_measures counts a -1 line as a judgment, trec_eval does not)."""
    ir_measures = pytest.importorskip("ir_measures")
    if shutil.which("perl") is None:
        pytest.skip("gdeval.pl needs perl")
    names = ["RR@3", "RR@10", "MRR@10", "Judged@5", "Judged@10", "Judged", "ERR@5", "ERR@20"]
    rs, ev, qrels, runs, _, _ = _ours(tmp_path, 400 + seed, names, pooled=False,
                                       grades=(0, 0, 1, 1, 2, 3, 4))  # fmt: skip
    objs = [ir_measures.parse_measure(m) for m in names]
    for s, run in enumerate(rs.runs):
        got = {}
        for metric in ir_measures.iter_calc(objs, qrels, runs[run]):
            got[str(metric.measure), metric.query_id] = metric.value
        n = 0
        for m, obj in zip(names, objs):
            for t, topic in enumerate(rs.topics):
                if (str(obj), topic) in got:
                    tol = 5e-6 + 1e-12 if m.startswith("ERR") else 1e-12
                    assert ev[m].scores[s, t] == pytest.approx(got[str(obj), topic], abs=tol), (run, m, topic)
                    n += 1
                elif topic in runs[run] and m.startswith("ERR"):
                    # gdeval prints nothing for a topic without relevant documents: ERR is 0
                    assert ev[m].scores[s, t] == 0.0
        assert n > 40


def test_infap_tells_pooled_from_unpooled_documents(tmp_path):
    """A qrels grade -1 (pooled, not judged) counts in infAP's estimate; an unpooled document does
    not - pytrec_eval (m_infap.c) on the same list, and a value worked by hand."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 p -1\n1 0 e 1\n")
    r = tmp_path / "r.txt"
    r.write_text("".join(f"1 Q0 {d} {i} {10 - i} x\n" for i, d in enumerate(["a", "p", "u", "b", "c"], 1)))
    rs = data.load_runs([r], qrels=q)
    got = measures.evaluate(rs, ["infAP", "AP"])
    ref = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0, "c": 1, "p": -1, "e": 1}}, {"infAP"}).evaluate(
        {"1": {d: 10.0 - i for i, d in enumerate(["a", "p", "u", "b", "c"], 1)}})  # fmt: skip
    assert got["infAP"].scores[0, 0] == pytest.approx(ref["1"]["infAP"], abs=1e-12)
    # by hand: a at j=0 adds 1; c at j=4: rel=2, nonrel=1 (b), pooled=1 (p)
    e = 1e-5
    c_term = 1 / 5 + (4 / 5) * ((1 + 1 + 1) / 4) * ((1 + e) / (1 + 1 + 2 * e))
    assert got["infAP"].scores[0, 0] == pytest.approx((1 + c_term) / 3, abs=1e-12)
    # were p unpooled, the estimate would differ (it is not counted in (rel - 1 + nonrel + pooled))
    c_unpooled = 1 / 5 + (4 / 5) * ((1 + 1 + 0) / 4) * ((1 + e) / (1 + 1 + 2 * e))
    assert abs((1 + c_unpooled) / 3 - got["infAP"].scores[0, 0]) > 0.01


# --------------------------------------------------------------------------------------------
# trec_eval's own test files
# --------------------------------------------------------------------------------------------

# our spelling -> trec_eval's output name, for the measures of -m all_trec we compute
ALL_TREC = {
    "AP": "map", "gm_map": "gm_map", "Rprec": "Rprec", "bpref": "bpref", "gm_bpref": "gm_bpref",
    "RR": "recip_rank", "infAP": "infAP", "nDCG": "ndcg", "NumRet": "num_ret", "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret", "NumQ": "num_q", "SetP": "set_P", "SetR": "set_recall",
    "SetF": "set_F", "SetAP": "set_map", "SetRelP": "set_relative_P",
    "RBP(p=0.9)": "rbp",
    **{f"P@{k}": f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"R@{k}": f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"nDCG@{k}": f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"AP@{k}": f"map_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"Success@{k}": f"success_{k}" for k in (1, 5, 10)},
    # issue 29: the rest of all_trec
    **{f"Rprec_mult@{x / 10}": f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)},
    **{f"relative_P@{k}": f"relative_P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"unj@{k}": f"unj_{k}" for k in (5, 10, 20)},
    "utility": "utility", "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "rbp_resid": "rbp_resid",
}  # fmt: skip


def _read_expected(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        name, topic, value = line.split()
        try:
            out[name, topic] = float(value)
        except ValueError:
            pass
    return out


def _six_columns(src: Path, dst: Path) -> Path:
    """trec_eval ignores fields after the sixth (results.trunc has some): so do we here."""
    dst.write_text(
        "".join(" ".join(line.split()[:6]) + "\n" for line in src.read_text().splitlines() if line.strip())
    )
    return dst


@pytest.mark.parametrize("case", [
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"rel": 2}),
])  # fmt: skip
def test_trec_eval_test_files(tmp_path, case, trec_eval_test):
    """Per topic and the summary ('all', with or without -c), every all_trec measure we compute:
    equal to the expected outputs shipped with trec_eval 10 (4 decimals)."""
    expected, qname, rname, opts = case
    ref = _read_expected(trec_eval_test / expected)
    run = _six_columns(trec_eval_test / rname, tmp_path / "results.txt")
    rs = data.load_runs([run], qrels=trec_eval_test / qname)
    ev = measures.evaluate(rs, list(ALL_TREC), rel=opts.get("rel", 1), depth=opts.get("depth"))
    summ = measures.summarize(ev, complete=opts.get("complete", False))
    n = 0
    for m, tm in ALL_TREC.items():
        sm = ev[m]
        for t, topic in enumerate(rs.topics):
            if (tm, topic) in ref:
                assert sm.scores[0, t] == pytest.approx(ref[tm, topic], abs=5e-5 + 1e-12), (m, topic)
                n += 1
        assert summ.iloc[0][sm.measure] == pytest.approx(ref[tm, "all"], abs=5e-5 + 1e-12, rel=1e-12), m
    assert n > 150
    # (relstring is no number; IPrec and 11pt_avg: trec_eval 9's, checked below against pytrec_eval)
    missing = {name for name, _ in ref if not name.startswith("iprec_at_recall")}
    missing -= {*ALL_TREC.values(), "runid", "relstring", "11pt_avg"}
    assert not missing, f"all_trec measures irrepro does not compute: {sorted(missing)}"


def test_trec_eval_test_file_measure_parameters(trec_eval_test):
    """out.test.meas_params: P at 3, 5, 7; recall at 20 and 2000; nDCG with gains 1=3, 2=9,
    4=4.5; ndcg_cut at 10, 20, 23; success at 2, 5, 20 (per topic and summary)."""
    ref = _read_expected(trec_eval_test / "out.test.meas_params")
    rs = data.load_runs([trec_eval_test / "results.test"], qrels=trec_eval_test / "qrels.test")
    names = {"P@3": "P_3", "P@5": "P_5", "P@7": "P_7", "R@20": "recall_20", "R@2000": "recall_2000",
             "nDCG(gains={1:3,2:9,4:4.5})": "ndcg_1=3,2=9,4=4.5", "nDCG@10": "ndcg_cut_10",
             "nDCG@20": "ndcg_cut_20", "nDCG@23": "ndcg_cut_23", "Success@2": "success_2",
             "Success@5": "success_5", "Success@20": "success_20"}  # fmt: skip
    ev = measures.evaluate(rs, list(names))
    summ = measures.summarize(ev, complete=False)
    assert _compare(ev, rs, ref, names) == 3 * len(names)
    for m, tm in names.items():
        assert summ.iloc[0][ev[m].measure] == pytest.approx(ref[tm, "all"], abs=5e-5 + 1e-12)


def test_trec_eval_test_files_iprec_equal_pytrec_eval(trec_eval_test):
    """IPrec and 11pt_avg on trec_eval's test files: equal to pytrec_eval (trec_eval 9's code,
    whose count of relevant documents we follow); the 10.0 expected output differs only where r R
    rounds differently."""
    rs = data.load_runs([trec_eval_test / "results.test"], qrels=trec_eval_test / "qrels.test")
    levels = [x / 10 for x in range(11)]
    names = {f"IPrec@{x}": f"iprec_at_recall_{x:.2f}" for x in levels} | {"11pt_avg": "11pt_avg"}
    ev = measures.evaluate(rs, list(names))
    ref = pytrec_eval_frame(trec_eval_test / "qrels.test", trec_eval_test / "results.test",
                            ["iprec_at_recall", "11pt_avg"], complete=False)  # fmt: skip
    ref = ref.set_index(["measure", "query_id"])["value"].to_dict()
    assert _compare(ev, rs, ref, names, tol=1e-12) == 3 * len(names)


def test_trec_eval_names_are_the_names_trec_eval_prints(trec_eval_test):
    """measures.trec_eval_name gives, for every all_trec measure we compute, the name trec_eval 10
    prints in its own expected outputs (and with -l 2 too); the name parses back to the measure."""
    printed = {name for name, _ in _read_expected(trec_eval_test / "out.test.aq")}
    printed |= {name for name, _ in _read_expected(trec_eval_test / "out.test.meas_params")}
    for ours, theirs in ALL_TREC.items():
        assert theirs in printed
        assert measures.trec_eval_name(ours) == theirs, ours
        assert measures.trec_eval_name(ours, rel=2) == theirs, ours  # under trec_eval -l 2
        assert measures.parse_measure(theirs).name == measures.parse_measure(ours).name
    # what trec_eval has no name for: irrepro's own, and a relevance level other than -l's
    for m in ("RR@10", "ERR@20", "Judged@10", "Q", "nDCG_sakai@10", "RBP(rel=1,p=0.5)", "G_AP", "gm_nDCG@10"):
        assert measures.trec_eval_name(m) is None, m
    assert (
        measures.trec_eval_name("AP(rel=2)") is None and measures.trec_eval_name("AP(rel=2)", rel=2) == "map"
    )
    assert measures.trec_eval_name("IPrec@0.5") == "iprec_at_recall_0.50"
    assert measures.trec_eval_name("RBP(p=0.5)") == "rbp_p=0.5"  # as -m rbp.p=0.5 prints it
