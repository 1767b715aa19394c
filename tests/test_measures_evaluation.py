"""What comes out of ``measures.evaluate``: the long DataFrame, the dicts pytrec_eval's and ranx's
users hold (checked against pytrec_eval and ranx themselves, ranx's significance tests included),
the two trec_eval averages; and grades of any size: a perfect ranking scores 1 with memory that
does not grow with the largest grade, equal to pytrec_eval."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from irrepro import data, measures
from irrepro.measures.evaluation import Evaluation

# any warning is an error here (ranx's numba kernels warn about their own casts)
pytestmark = pytest.mark.filterwarnings("error", "ignore:unsafe cast from uint64 to int64")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    from test_measures_parity import make_collection

    tmp = tmp_path_factory.mktemp("outputs")
    qpath, files, qrels, runs = make_collection(tmp, 11, n_topics=10, pooled=False)
    rs = data.load_runs(files, qrels=qpath)
    return rs, qrels, runs


def test_to_frame_long_form(collection):
    rs, _, runs = collection
    ev = measures.evaluate(rs, ["AP", "MAP", "nDCG@10", "NumRet"])
    df = measures.to_frame(ev)
    assert list(df.columns) == ["run", "query_id", "measure", "value"]
    S, T = len(rs.runs), len(rs.topics)
    assert len(df) == S * T * 3  # MAP is AP: once
    assert df["measure"].unique().tolist() == ["AP", "nDCG@10", "NumRet"]
    assert df["run"].tolist() == sorted(df["run"].tolist(), key=rs.runs.index)  # grouped by run
    wide = df.pivot_table(index=["run", "query_id"], columns="measure", values="value")
    for m in ["AP", "nDCG@10", "NumRet"]:
        for s, run in enumerate(rs.runs):
            np.testing.assert_array_equal(
                wide.loc[run][m].reindex(list(rs.topics)).to_numpy(), ev[m].scores[s]
            )
    # plain trec_eval's topics: only those each run retrieved
    part = measures.to_frame(ev, complete=False)
    for run in rs.runs:
        got = set(part.loc[part["run"] == run, "query_id"])
        assert got == {t for t in runs[run] if t in rs.topics}
    # a ScoreMatrix alone needs the retrieved topics for complete=False
    with pytest.raises(ValueError, match="retrieved"):
        measures.to_frame(ev["AP"], complete=False)
    one = measures.to_frame(ev["AP"], complete=False, retrieved=ev.retrieved)
    pd.testing.assert_frame_equal(one, part[part["measure"] == "AP"].reset_index(drop=True))


def test_to_dict_is_pytrec_eval_evaluate(collection):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rs, qrels, runs = collection
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "NumRet": "num_ret", "Bpref": "bpref"}
    ev = measures.evaluate(rs, list(names))
    ours = measures.to_dict(ev, complete=False)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names.values()))
    for run in rs.runs:
        ref = evaluator.evaluate(runs[run])
        assert set(ours[run]) == set(ref)  # the same topics
        for topic, vals in ref.items():
            assert set(ours[run][topic]) == set(names)
            for m, tm in names.items():
                assert ours[run][topic][m] == pytest.approx(vals[tm], abs=1e-12)
        # pytrec_eval's own aggregation takes our values
        vals = [ours[run][t]["AP"] for t in ours[run]]
        assert pytrec_eval.compute_aggregated_measure("map", vals) == pytest.approx(
            measures.summarize(ev, complete=False).loc[run, "AP"], abs=1e-12
        )
    full = measures.to_dict(ev)  # complete: every qrels topic
    assert all(set(full[run]) == set(rs.topics) for run in rs.runs)


@pytest.mark.slow
@pytest.mark.compiles("ranx")  # its numba kernels, once per process: with the other ranx test
def test_to_dict_is_ranx_run_scores_and_feeds_its_tests(collection):
    """form='ranx' has the shape of ranx's Run.scores, with ranx's values (make_comparable: the
    -c average); fed to ranx's significance tests it gives the p-values of ranx.compare."""
    ranx = pytest.importorskip("ranx")
    from ranx.statistical_tests import compute_statistical_significance

    rs, qrels, runs = collection
    names = {"AP": "map", "nDCG@10": "ndcg@10", "P@5": "precision@5", "R@10": "recall@10", "RR": "mrr"}
    ev = measures.evaluate(rs, list(names))
    ours = measures.to_dict(ev, form="ranx")
    rq = ranx.Qrels.from_dict(qrels)
    ranx_runs = []
    for run in rs.runs:
        r = ranx.Run.from_dict(runs[run], name=run)
        ranx.evaluate(rq, r, list(names.values()), make_comparable=True)
        ranx_runs.append(ranx.Run.from_dict(runs[run], name=run))
        for m, rm in names.items():
            assert set(r.scores[rm]) == set(ours[run][m]) == set(rs.topics)
            for topic, v in r.scores[rm].items():
                assert ours[run][m][topic] == pytest.approx(v, abs=1e-9), (run, m, topic)
    report = ranx.compare(rq, ranx_runs, list(names.values()), stat_test="student", make_comparable=True)
    topics = list(rs.topics)
    mine = compute_statistical_significance(
        list(rs.runs),
        {run: {names[m]: np.array([ours[run][m][t] for t in topics]) for m in names} for run in rs.runs},
        stat_test="student",
    )
    for pair, res in report.comparisons.items():
        for rm in names.values():
            assert mine[pair][rm]["p_value"] == pytest.approx(res[rm]["p_value"], abs=1e-9)


def test_summarize_and_evaluation_object(collection):
    rs, qrels, runs = collection
    ev = measures.evaluate(rs, ["AP", "NumQ", "NumRel", "gm_map"])
    assert isinstance(ev, Evaluation) and ev.retrieved.shape == (len(rs.runs), len(rs.topics))
    assert ev.retrieved.tolist() == [[t in runs[r] for t in rs.topics] for r in rs.runs]
    full, part = measures.summarize(ev), measures.summarize(ev, complete=False)
    R = np.array([sum(g >= 1 for g in qrels[t].values()) for t in rs.topics])
    for s, run in enumerate(rs.runs):
        got = ev.retrieved[s]
        assert full.loc[run, "AP"] == pytest.approx(ev["AP"].mean()[s])  # trec_eval -c: ScoreMatrix.mean
        assert part.loc[run, "AP"] == pytest.approx(ev["AP"].scores[s][got].mean())
        assert full.loc[run, "NumQ"] == len(rs.topics) and part.loc[run, "NumQ"] == got.sum()
        assert full.loc[run, "NumRel"] == R.sum() and part.loc[run, "NumRel"] == R[got].sum()
        x = ev["gm_map"].scores[s]
        assert full.loc[run, "gm_map"] == pytest.approx(np.exp(np.log(np.maximum(x, 1e-5)).mean()))
        assert full.loc[run, "gm_map"] == pytest.approx(measures.aggregate(x, "G_trec"))


# --------------------------------------------------------------------------------------------
# grades of any size
# --------------------------------------------------------------------------------------------


def _ndcg_literal(ranked: list[int], judged: list[int], k: int | None) -> float:
    """nDCG the obvious way: gain = grade, discount 1 / log2(rank + 1)."""
    k = k or max(len(ranked), len(judged))
    dcg = sum(g / np.log2(i + 2) for i, g in enumerate(ranked[:k]) if g > 0)
    ideal = sorted((g for g in judged if g > 0), reverse=True)[:k]
    idcg = sum(g / np.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


@pytest.mark.parametrize("top", [200, 1000, 10**9])
def test_large_grades_perfect_ranking_scores_one_in_bounded_memory(tmp_path, top):
    grades = {"a": top, "b": top // 2, "c": 1, "d": 0, "e": top}
    (tmp_path / "q.txt").write_text(
        "".join(f"1 0 {d} {g}\n" for d, g in grades.items()) + "2 0 x 3\n2 0 y 0\n"
    )
    lists = {"good": (["a", "e", "b", "c", "d"], "x"), "worse": (["c", "b", "a", "d", "e"], "y")}
    for run, (docs, doc2) in lists.items():
        (tmp_path / f"{run}.txt").write_text(
            "".join(f"1 Q0 {d} {i} {10 - i} {run}\n" for i, d in enumerate(docs, 1))
            + f"2 Q0 {doc2} 1 1 {run}\n"
        )
    rs = data.load_runs([tmp_path / "good.txt", tmp_path / "worse.txt"], qrels=tmp_path / "q.txt")
    names = ["nDCG@2", "nDCG", "nDCG@10", "Q", "nCG@3", "nDCG_sakai@3", "RBP(p=0.5)", "AP"]
    tracemalloc.start()
    ev = measures.evaluate(rs, names)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20e6, peak  # (a table sized by the largest grade takes 8 GB at 10**9)
    good = rs.runs.index("good")
    for m in ["nDCG@2", "nDCG", "nDCG@10", "Q", "nCG@3", "nDCG_sakai@3", "AP"]:
        assert ev[m].scores[good, 0] == pytest.approx(1.0, abs=1e-12), m
    # graded RBP: gains over the topic's largest grade (the perfect list's first two gain 1 each)
    w = [0.5, 0.25, 0.125, 0.0625]
    assert ev["RBP(p=0.5)"].scores[good, 0] == pytest.approx(
        w[0] + w[1] + w[2] * (top // 2) / top + w[3] / top
    )
    # every list against the literal definition, and pytrec_eval where it can hold the grades
    qrels = {"1": grades, "2": {"x": 3, "y": 0}}
    for s, run in enumerate(rs.runs):
        for t, topic in enumerate(rs.topics):
            docs = lists[run][0] if topic == "1" else [lists[run][1]]
            ranked = [qrels[topic][d] for d in docs]
            for m, k in [("nDCG@2", 2), ("nDCG", None), ("nDCG@10", 10)]:
                assert ev[m].scores[s, t] == pytest.approx(
                    _ndcg_literal(ranked, list(qrels[topic].values()), k), rel=1e-12
                )
    if top > 10**6:
        return  # (trec_eval sizes a table by the largest grade: 8 GB at 10**9)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_2", "ndcg", "ndcg_cut_10", "map"})
    for s, run in enumerate(rs.runs):
        docs, doc2 = lists[run]
        res = evaluator.evaluate({"1": {d: 10.0 - i for i, d in enumerate(docs, 1)}, "2": {doc2: 1.0}})
        for m, tm in [("nDCG@2", "ndcg_cut_2"), ("nDCG", "ndcg"), ("nDCG@10", "ndcg_cut_10"), ("AP", "map")]:
            for t, topic in enumerate(rs.topics):
                assert ev[m].scores[s, t] == pytest.approx(res[topic][tm], abs=1e-12), (m, run, topic)


def test_err_refuses_grades_beyond_gdeval(collection, tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 5\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    rs = data.load_runs([tmp_path / "r.txt"], qrels=tmp_path / "q.txt")
    with pytest.raises(ValueError, match=r"gdeval.*topic '1' has grade 5"):
        measures.evaluate(rs, ["ERR@20"])
    assert measures.evaluate(rs, ["nDCG@20"])["nDCG@20"].scores[0, 0] == 1.0


def test_standardize_ideal_score_is_rbp_of_the_ideal_ranking():
    """standardize.ideal_score (R-normalised RBP) uses graded RBP's per-topic gains: it equals our
    RBP of a perfect ranking, on a topic whose largest grade is below the qrels' largest too."""
    from irrepro import standardize

    counts = np.array([[2, 1, 3], [4, 2, 0], [3, 0, 0], [0, 0, 1]])  # topic 1: grades 0-1 only
    lists = [[2, 2, 2, 1, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0], [2]]
    K = max(map(len, lists))
    g = np.full((1, len(lists), K), data.PAD, dtype=np.int8)
    for t, lst in enumerate(lists):
        g[0, t, : len(lst)] = lst
    for p in (0.5, 0.95):
        ours = measures.kernel.score_grades(g, counts, [f"RBP(p={p})"])[f"RBP(p={p})"][0]
        np.testing.assert_allclose(standardize.ideal_score(counts, p=p), ours, rtol=1e-12, atol=1e-15)
    assert ours[1] == pytest.approx(1 - 0.95**2)  # grade 1 is that topic's largest: gain 1


def test_a_run_that_retrieved_no_qrels_topic_averages_to_nan_over_its_topics(tmp_path, recwarn):
    (tmp_path / "q.txt").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "good.txt").write_text("1 Q0 a 1 2 good\n")
    (tmp_path / "off.txt").write_text("2 Q0 b 1 2 off\n")
    # on topic 1 alone, run "off" retrieved no qrels topic (a whole file like that is refused
    # when read; a subset of topics can still leave a run with nothing)
    rs = data.load_runs([tmp_path / "good.txt", tmp_path / "off.txt"], qrels=tmp_path / "q.txt")
    rs = rs.subset(topics=["1"])
    ev = measures.evaluate(rs, ["AP", "NumRet", "gm_map"])
    part = measures.summarize(ev, complete=False)
    assert part.loc["good"].tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(part.loc["off"].to_numpy()).all()  # nothing to average over: NaN, not 0
    full = measures.summarize(ev)
    assert full.loc["off", "AP"] == 0.0 and full.loc["good", "AP"] == 1.0
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_trec_eval_text_in_pieces_is_to_trec_eval_with_topics_in_byte_order():
    """``irrepro eval --format trec_eval`` writes the text a piece at a time (a million topics'
    lines are never all held): pieces of at most 16,384 lines that join to :func:`to_trec_eval`,
    whose topics come in trec_eval's order, the bytes of their ids (C's strcmp: "10" before "9",
    "Z" before "a", "é" after "z"), sorted here by Python on the UTF-8 bytes."""
    from irrepro.measures.evaluation import _trec_eval_text

    rng = np.random.default_rng(2)
    ids = [str(t) for t in range(12_000)] + ["Z", "a", "z", "é", "\u202e", "日本", "a b"]
    qrels = data.qrels_from_records([(t, "d1", 1) for t in ids])
    run = data.Run("r", pd.DataFrame({"topic": ids, "doc": "d1", "score": rng.random(len(ids))}))
    ev = measures.evaluate(data.build_runset([run], qrels), ["AP", "P@10"])
    pieces = list(_trec_eval_text(ev, per_topic=True))
    text = measures.to_trec_eval(ev, per_topic=True)
    assert len(pieces) > 1 and max(p.count("\n") for p in pieces) <= 1 << 14
    assert "".join(pieces) == text
    topics = [line.split("\t")[1] for line in text.splitlines() if line.startswith("map ")][
        :-1
    ]  # (not "all")
    shown = {t: t.replace("\u202e", "\\u202e") for t in ids}  # (a format character made visible)
    assert topics == [shown[t] for t in sorted(ids, key=str.encode)]


def test_a_topic_id_pyarrow_cannot_hold_is_evaluated_and_printed():
    """A Qrels object's topic id with a lone surrogate (no file or table holds one: pyarrow and
    pandas refuse it) is looked up, ordered and printed escaped: to_trec_eval raised
    UnicodeEncodeError."""
    qrels = data.Qrels(columns=(["\ud800", "1", "2"], ["d1", "d2", "d3"], [1, 1, 0]), name="q")
    run = data.Run(
        "r", pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["d1", "d2", "d3"], "score": [2.0, 1.0, 0.5]})
    )
    ev = measures.evaluate(data.build_runset([run], qrels), ["AP"])
    assert ev["AP"].scores.tolist() == [[0.5, 0.0, 0.0]]  # d2, the relevant one, at rank 2
    lines = measures.to_trec_eval(ev, per_topic=True).splitlines()
    assert [ln.split("\t")[1] for ln in lines[:3]] == ["1", "2", "\\ud800"] and lines[2].endswith("0.0000")
