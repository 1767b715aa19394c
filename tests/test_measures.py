"""The measure engine, proved against independent references.

* pytrec_eval (trec_eval's own C code) on every run of TREC-COVID rounds 5 and 1, read straight
  from the mirror's run files with their original scores (so the ranking, ties included, is
  tested too), for every measure both have;
* NIST's official leaderboards, to their 4 decimals, for every column;
* pyNTCIREVAL (the Python port of Sakai's NTCIREVAL) for Q-measure, Sakai's nDCG, nCG, PDoc, AP
  and graded RBP, on real lists and on generated ones;
* hand-worked examples from Sakai's (2006, Sec. 2.1) formulas and a slow per-list implementation
  of them written here;
* properties (hypothesis): perfect rankings score 1, appending a relevant document never lowers
  AP (nor Q), permuting systems permutes rows.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irrepro import data, measures
from irrepro._measure_names import _FAMILIES, Measure
from irrepro.cli import main as cli_main
from irrepro.measures.kernel import score_grades

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here

# --------------------------------------------------------------------------------------------
# a slow, per-list implementation of the definitions (Sakai 2006, Sec. 2.1; trec_eval's docs)
# --------------------------------------------------------------------------------------------


def ref_measures(grades, counts, k=10, gain=lambda g: float(g) if g > 0 else 0.0, a=2):
    """Every measure of one ranked list, computed the obvious way.

    ``grades``: the grade at ranks 1..L (-1 = unjudged); ``counts[g]``: judged docs of grade g.
    """
    L = len(grades)
    R = sum(counts[1:])
    isrel = [1 if g >= 1 else 0 for g in grades]
    gains = [gain(g) for g in grades]
    ideal = sorted((gain(g) for g in range(len(counts)) for _ in range(counts[g]) if gain(g) > 0),
                   reverse=True)  # fmt: skip

    def count(r):
        return sum(isrel[:r])

    def cg(r):
        return sum(gains[:r])

    def cg_ideal(r):
        return sum(ideal[:r])

    def sakai_disc(i):  # rank i, 1-based
        return 1.0 if i <= a else 1.0 / math.log(i, a)

    def dcg(gs, n, disc):
        return sum(gs[i - 1] * disc(i) for i in range(1, min(n, len(gs)) + 1))

    out = {}
    out["AP"] = sum(count(r) / r for r in range(1, L + 1) if isrel[r - 1]) / R if R else 0.0
    out["SP"] = out["AP"] * R
    out["Q"] = (
        sum((count(r) + cg(r)) / (r + cg_ideal(r)) for r in range(1, L + 1) if isrel[r - 1]) / R if R else 0.0
    )
    out[f"PDoc@{k}"] = count(min(k, L)) / k
    out[f"nCG@{k}"] = cg(min(k, L)) / cg_ideal(k) if cg_ideal(k) else 0.0
    isd = dcg(ideal, k, sakai_disc)
    out[f"nDCG_sakai@{k}"] = dcg(gains, k, sakai_disc) / isd if isd else 0.0
    log2 = lambda i: 1.0 / math.log2(i + 1)  # noqa: E731
    idcg = dcg(ideal, k, log2)
    out[f"DCG@{k}"] = dcg(gains, k, log2)
    out[f"nDCG@{k}"] = out[f"DCG@{k}"] / idcg if idcg else 0.0
    first = next((r for r in range(1, L + 1) if isrel[r - 1]), None)
    out["RR"] = 1.0 / first if first else 0.0
    out["Rprec"] = count(min(R, L)) / R if R else 0.0
    return out


def _one(grades, counts, names):
    """Our engine on one list: (1, 1, L) block."""
    g = np.array([grades if len(grades) else [data.PAD]], dtype=np.int8)[None]
    return {m: float(v[0, 0]) for m, v in score_grades(g, np.array([counts]), names).items()}


# --------------------------------------------------------------------------------------------
# hand-worked examples (exact fractions, worked on paper from the definitions)
# --------------------------------------------------------------------------------------------


def test_hand_worked_q_measure_and_friends():
    # list: grade 2, non-relevant, grade 1; the topic has two grade-2 and one grade-1 documents,
    # so R = 3 and the ideal gains are 2, 2, 1 -> cg_I = 2, 4, 5, 5, ...
    grades, counts = [2, 0, 1], [5, 1, 2]
    got = _one(grades, counts, ["Q", "AP", "SP", "nCG@2", "nCG@3", "nDCG_sakai@3", "PDoc@3", "RR"])
    # BR(1) = (1 + 2) / (1 + 2) = 1 ; BR(3) = (2 + 3) / (3 + 5) = 5/8 ; Q = (1 + 5/8) / 3
    assert got["Q"] == pytest.approx(float(Fraction(13, 24)), abs=1e-15)
    assert got["AP"] == pytest.approx(float(Fraction(5, 9)), abs=1e-15)  # (1 + 2/3) / 3
    assert got["SP"] == pytest.approx(float(Fraction(5, 3)), abs=1e-15)
    assert got["nCG@2"] == pytest.approx(0.5, abs=1e-15)  # 2 / 4
    assert got["nCG@3"] == pytest.approx(0.6, abs=1e-15)  # 3 / 5
    # dcg(3) = 2 + 0 + 1/log2(3) ; ideal = 2 + 2 + 1/log2(3) (no discount at ranks 1, 2 = a)
    assert got["nDCG_sakai@3"] == pytest.approx((2 + 1 / math.log2(3)) / (4 + 1 / math.log2(3)))
    assert got["PDoc@3"] == pytest.approx(2 / 3) and got["RR"] == 1.0


def test_hand_worked_r_larger_than_the_list_and_ties_in_the_ideal_list():
    # one grade-2 document retrieved; five relevant exist (three of grade 1, two of grade 2)
    got = _one([2], [0, 3, 2], ["Q", "AP", "nCG@10", "nDCG_sakai@10", "PDoc@10", "Rprec"])
    assert got["Q"] == pytest.approx(0.2)  # BR(1) = (1 + 2) / (1 + 2) = 1, / R = 5
    assert got["AP"] == pytest.approx(0.2)
    assert got["nCG@10"] == pytest.approx(2 / 7)  # 2 / (2 + 2 + 1 + 1 + 1)
    ideal = 2 + 2 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    assert got["nDCG_sakai@10"] == pytest.approx(2 / ideal)
    assert got["PDoc@10"] == pytest.approx(0.1) and got["Rprec"] == pytest.approx(0.2)
    # the same grades in a different order of equal-grade documents score the same (ties)
    a = _one([1, 2, 1], [0, 2, 1], ["Q", "nDCG_sakai@3"])
    b = _one([1, 2, 1], [0, 2, 1], ["Q", "nDCG_sakai@3"])
    assert a == b


def test_binary_q_equals_ap_when_no_relevant_below_rank_r():
    # Sakai (2006, Sec. 2.1): with binary relevance Q = AveP if no relevant document is ranked
    # below R, and Q > AveP otherwise
    got = _one([1, 0, 1, -1], [3, 2], ["Q", "AP"])  # R = 2, last relevant at rank 3 > R
    assert got["Q"] > got["AP"]
    got = _one([1, 1, 0, 0], [3, 2], ["Q", "AP"])
    assert got["Q"] == pytest.approx(got["AP"]) == pytest.approx(1.0)


def test_rbp_and_its_residual_by_hand():
    # ranks: relevant, unjudged, judged non-relevant ; p = 0.5 -> weights 0.5, 0.25, 0.125
    g = np.array([[[1, data.UNJUDGED, 0, data.PAD]]], dtype=np.int8)
    got = score_grades(g, np.array([[3, 2]]), ["RBP(p=0.5)", "RBP(p=0.5,rel=1)", "rbp_resid(p=0.5)"])
    assert got["RBP(p=0.5)"][0, 0] == pytest.approx(0.5)
    assert got["RBP(p=0.5,rel=1)"][0, 0] == pytest.approx(0.5)
    # residual: the unjudged rank 2 (0.25) + everything past rank 3 (0.5 ** 3)
    assert got["rbp_resid(p=0.5)"][0, 0] == pytest.approx(0.25 + 0.125)
    # graded: gain / largest gain (grade 1 of 0/1/2 counts half)
    g2 = np.array([[[1, 2]]], dtype=np.int8)
    got = score_grades(g2, np.array([[0, 1, 1]]), ["RBP(p=0.5)", "RBP(p=0.5,rel=2)"])
    assert got["RBP(p=0.5)"][0, 0] == pytest.approx(0.5 * 0.5 + 0.25 * 1.0)
    assert got["RBP(p=0.5,rel=2)"][0, 0] == pytest.approx(0.25)


def test_gain_mapping_and_rel_level():
    grades, counts = [2, 1, 0], [1, 1, 1]
    default = _one(grades, counts, ["nDCG@3"])["nDCG@3"]
    assert default == pytest.approx(1.0)
    # gains 1 for grade 1 and 10 for grade 2: still ideal order
    g = np.array([[grades]], dtype=np.int8)
    got = score_grades(g, np.array([counts]), ["DCG@3", "Q"], gains={1: 1.0, 2: 10.0})
    assert got["DCG@3"][0, 0] == pytest.approx(10 + 1 / math.log2(3))
    assert got["Q"][0, 0] == pytest.approx(1.0)
    # rel=2: only the grade-2 document is relevant
    got = score_grades(g, np.array([counts]), ["AP", "P@2", "Rprec"], rel=2)
    assert got["AP"][0, 0] == 1.0 and got["P@2"][0, 0] == 0.5 and got["Rprec"][0, 0] == 1.0
    with pytest.raises(ValueError, match="gain"):
        score_grades(g, np.array([counts]), ["DCG@3"], gains={1: -1.0})


# --------------------------------------------------------------------------------------------
# generated lists: our engine vs the slow reference and vs pyNTCIREVAL
# --------------------------------------------------------------------------------------------

_grade = st.sampled_from([-1, 0, 0, 1, 2])


@st.composite
def topic_lists(draw, max_len=30):
    """A ranked list (grades, -1 unjudged) and grade counts consistent with it."""
    grades = draw(st.lists(_grade, min_size=0, max_size=max_len))
    extra = draw(st.lists(st.integers(0, 12), min_size=3, max_size=3))
    counts = [sum(1 for g in grades if g == v) + extra[v] for v in range(3)]
    return grades, counts


NAMES10 = ["AP", "SP", "Q", "PDoc@10", "nCG@10", "nDCG_sakai@10", "DCG@10", "nDCG@10", "RR", "Rprec"]


@settings(max_examples=200, deadline=None)
@given(topic_lists())
def test_engine_equals_slow_reference_on_generated_lists(lst):
    grades, counts = lst
    ours = _one(grades, counts, NAMES10)
    ref = ref_measures(grades, counts, k=10)
    for m in NAMES10:
        assert ours[m] == pytest.approx(ref[m], abs=1e-12), m


def _ntcir(grades, counts, k):
    """pyNTCIREVAL's values for one list (labels: None for unjudged)."""
    from pyNTCIREVAL.metrics import AP, RBP, Precision, QMeasure, nDCG

    lst = [(i, None if g < 0 else int(g)) for i, g in enumerate(grades)]
    xrel, levels, has_rel = list(counts), [1, 2], sum(counts[1:]) > 0
    # graded RBP: NTCIREVAL divides by the largest level declared; declare the topic's own levels
    # (trec_eval's rbp divides by the topic's largest grade: a topic never depends on another)
    top = max([g for g in range(len(counts)) if counts[g] > 0] + [1])
    rbp = RBP(list(counts[: top + 1]), list(range(1, top + 1)), 0.8).compute(lst)
    return {
        "Q": QMeasure(xrel, levels, 1.0).compute(lst) if has_rel else 0.0,
        "AP": AP(xrel, levels).compute(lst) if has_rel else 0.0,
        f"nDCG_sakai@{k}": nDCG(xrel, levels, 2, k).compute(lst) if has_rel else 0.0,
        # nCG is nDCG without discount: a log base above every rank never discounts
        f"nCG@{k}": nDCG(xrel, levels, k + 2, k).compute(lst) if has_rel else 0.0,
        f"PDoc@{k}": Precision(k).compute(lst),
        "RBP(p=0.8)": rbp,
    }


@settings(max_examples=150, deadline=None)
@given(topic_lists().filter(lambda lst: len(lst[0]) > 0), st.sampled_from([1, 3, 10, 50]))
def test_engine_equals_pyntcireval_on_generated_lists(lst, k):  # (the port needs a non-empty list)
    pytest.importorskip("pyNTCIREVAL")
    grades, counts = lst
    ref = _ntcir(grades, counts, k)
    ours = _one(grades, counts, list(ref))
    for m, v in ref.items():
        assert ours[m] == pytest.approx(v, abs=1e-12), m


@pytest.mark.realdata
def test_engine_equals_pyntcireval_on_real_round5_lists(real_runs):
    """Real TREC-COVID lists (5 runs spread over the ranking, all topics, first 150 ranks; the
    port's Q-measure is quadratic in the list length)."""
    pytest.importorskip("pyNTCIREVAL")
    rs = real_runs("trec-covid-round5")
    sel = list(range(0, len(rs.runs), 25))
    g = rs.grades[sel][:, :, :150]
    counts = rs.grade_counts()
    names = ["Q", "AP", "nDCG_sakai@1000", "nCG@1000", "PDoc@1000", "RBP(p=0.8)"]
    ours = score_grades(g, counts, names)
    worst = dict.fromkeys(names, 0.0)
    for i in range(len(sel)):
        for t in range(len(rs.topics)):
            lst = [int(x) for x in g[i, t] if x != data.PAD]
            for m, v in _ntcir(lst, list(counts[t]), 1000).items():
                worst[m] = max(worst[m], abs(v - ours[m][i, t]))
    assert max(worst.values()) < 1e-9, worst


# --------------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=3, max_size=3).filter(lambda c: c[1] + c[2] > 0),
       st.integers(0, 8), st.sampled_from([1, 5, 20]))  # fmt: skip
def test_perfect_ranking_scores_one_on_every_normalised_measure(counts, tail, k):
    grades = [2] * counts[2] + [1] * counts[1] + [0] * min(tail, counts[0]) + [-1] * tail
    names = ["AP", "Q", "Rprec", "RR", "bpref", "nDCG", f"nDCG@{k}", f"nDCG_sakai@{k}",
             f"nCG@{k}", f"R@{max(k, len(grades))}"]  # fmt: skip
    got = _one(grades, counts, names)
    for m in names:
        assert got[m] == pytest.approx(1.0, abs=1e-12), m


@settings(max_examples=150, deadline=None)
@given(topic_lists())
def test_appending_a_relevant_document_never_lowers_ap_or_q(lst):
    grades, counts = lst
    retrieved_rel = sum(1 for g in grades if g >= 1)
    if retrieved_rel >= sum(counts[1:]):
        counts = [counts[0], counts[1] + 1, counts[2]]  # one relevant document still missing
    before = _one(grades, counts, ["AP", "Q", "SP"])
    after = _one(grades + [1], counts, ["AP", "Q", "SP"])
    for m in before:
        assert after[m] >= before[m] - 1e-15, m


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_permuting_systems_permutes_rows(seed):
    rng = np.random.default_rng(seed)
    S, T, K = 7, 4, 25
    g = rng.choice(np.array([-1, 0, 1, 2], dtype=np.int8), size=(S, T, K))
    lengths = rng.integers(0, K + 1, size=(S, T))
    g[np.arange(K) >= lengths[..., None]] = data.PAD  # lists of different lengths
    counts = rng.integers(0, 30, size=(T, 3))
    names = ["AP", "Q", "nDCG@10", "bpref", "RBP(p=0.9)", "P@5", "nCG@20"]
    perm = rng.permutation(S)
    a = score_grades(g, counts, names)
    b = score_grades(g[perm], counts, names)
    for m in names:
        np.testing.assert_array_equal(b[m], a[m][perm])


def test_chunking_does_not_change_results(monkeypatch):
    rng = np.random.default_rng(3)
    g = rng.choice(np.array([-1, 0, 1, 2], dtype=np.int8), size=(40, 6, 50))
    counts = rng.integers(1, 40, size=(6, 3))
    names = ["AP", "Q", "nDCG@20", "bpref", "Rprec", "RBP(p=0.95)", "nDCG_sakai@1000"]
    whole = score_grades(g, counts, names)
    monkeypatch.setattr(measures.kernel, "_CHUNK_CELLS", 300)  # one run at a time
    blocks = []
    start = measures.kernel._Context.start
    monkeypatch.setattr(
        measures.kernel._Context, "start", lambda ctx, g, t: blocks.append(g.shape) or start(ctx, g, t)
    )
    chunked = score_grades(g, counts, names)
    assert blocks == [(6, 50)] * 40  # 40 runs x 6 topics, one run per block
    for m in names:
        np.testing.assert_array_equal(whole[m], chunked[m])


def test_every_family_has_one_function(monkeypatch):
    """The registry of the kernel holds one function per family parse_measure knows, and scoring a
    measure calls its family's function."""
    kernels = measures.kernel._KERNELS
    assert set(kernels) == set(_FAMILIES)
    called = []
    for family, fn in kernels.items():
        monkeypatch.setitem(
            kernels, family, lambda s, ctx, fn=fn, family=family: called.append(family) or fn(s, ctx)
        )
    at = {None: "", "cutoff": "@10", "recall": "@0.5", "mult": "@0.5"}
    names = [f + at[spec.at] for f, spec in _FAMILIES.items()]
    score_grades(np.array([[[2, 0, 1, -1]]]), np.array([[3, 1, 1]]), names)
    assert called == list(_FAMILIES)


def test_average_precision_keeps_its_signature():
    rel = np.array([[True, False, True, False], [False, False, False, False]])
    np.testing.assert_allclose(measures.average_precision(rel, np.array([2, 0])), [(1 + 2 / 3) / 2, 0])


# --------------------------------------------------------------------------------------------
# names and errors
# --------------------------------------------------------------------------------------------


def test_measure_names():
    assert measures.parse_measure("RBP(p=0.95)") == Measure("RBP(p=0.95)", "RBP", None, 0.95)
    assert measures.parse_measure("RBP(p=0.5,rel=2)").rel == 2
    assert measures.parse_measure("nDCG_sakai@1000").cutoff == 1000
    assert measures.parse_measure("nDCG").cutoff is None
    assert measures.parse_measure("MAP").name == "AP" and measures.parse_measure("RBP").p == 0.8
    for bad in ["MAPX", "P", "AP@x", "P@0", "RBP(p=1.5)", "nDCG@x", "Q@10", ""]:
        with pytest.raises(ValueError):
            measures.parse_measure(bad)
    g = np.zeros((1, 1, 3), dtype=np.int8)
    with pytest.raises(ValueError, match="unknown measure"):
        score_grades(g, np.array([[1, 1]]), ["AP", "nope"])
    with pytest.raises(ValueError, match="shape"):
        score_grades(g[0], np.array([[1, 1]]), ["AP"])
    with pytest.raises(ValueError, match="rel"):
        score_grades(g, np.array([[1, 1]]), ["AP"], rel=0)
    with pytest.raises(ValueError, match="PAD"):
        score_grades(g - 3, np.array([[1, 1]]), ["AP"])
    with pytest.raises(ValueError, match="grade_counts"):
        score_grades(g, np.array([[1, -1]]), ["AP"])
    with pytest.raises(ValueError, match="topics"):
        score_grades(g, np.array([[1, 1], [1, 1]]), ["AP"])


def test_aggregates_against_scipy():
    from scipy import special, stats

    x = np.array([[0.0, 0.2, 0.5, 1.0], [0.3, 0.3, 0.01, 0.9]])
    eps = 1e-5
    np.testing.assert_allclose(measures.aggregate(x, "mean"), x.mean(axis=1))
    np.testing.assert_allclose(measures.aggregate(x, "G"), stats.gmean(x + eps, axis=1), rtol=1e-12)
    np.testing.assert_allclose(measures.aggregate(x, "AG"), np.log(stats.gmean(x + eps, axis=1)))
    clipped = np.clip(x, eps, 1 - eps)
    np.testing.assert_allclose(measures.aggregate(x, "L"), special.logit(clipped).mean(axis=1))
    np.testing.assert_allclose(
        measures.aggregate(x, "L", eps=0.01), special.logit(np.clip(x, 0.01, 0.99)).mean(axis=1)
    )
    with pytest.raises(ValueError, match="aggregate"):
        measures.aggregate(x, "median")


# --------------------------------------------------------------------------------------------
# real data: pytrec_eval on every run, NIST's leaderboards
# --------------------------------------------------------------------------------------------

# ours -> pytrec_eval (trec_eval) names
TREC_NAMES = {
    "AP": "map", "P@5": "P_5", "P@10": "P_10", "P@20": "P_20", "P@100": "P_100",
    "P@1000": "P_1000", "R@100": "recall_100", "R@1000": "recall_1000", "Rprec": "Rprec",
    "RR": "recip_rank", "bpref": "bpref", "nDCG@10": "ndcg_cut_10", "nDCG@20": "ndcg_cut_20",
    "nDCG@1000": "ndcg_cut_1000", "nDCG": "ndcg",
    # added with issue 13
    "AP@10": "map_cut_10", "AP@100": "map_cut_100", "Success@1": "success_1",
    "Success@10": "success_10", "infAP": "infAP", "NumRet": "num_ret", "NumRelRet": "num_rel_ret",
    "NumRel": "num_rel", "NumQ": "num_q", "SetP": "set_P", "SetRelP": "set_relative_P",
    "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map", "IPrec@0.0": "iprec_at_recall_0.00",
    "IPrec@0.3": "iprec_at_recall_0.30", "IPrec@0.7": "iprec_at_recall_0.70", "11pt_avg": "11pt_avg",
    # added with issue 29 (pytrec_eval computes every multiple of Rprec_mult; relative_P at 5, 10, ...)
    "Rprec_mult@0.2": "Rprec_mult_0.20", "Rprec_mult@1.4": "Rprec_mult_1.40",
    "Rprec_mult@2.0": "Rprec_mult_2.00", "relative_P@10": "relative_P_10",
    "relative_P@100": "relative_P_100", "utility": "utility", "binG": "binG", "G": "G",
    "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg", "num_nonrel_judged_ret": "num_nonrel_judged_ret",
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.realdata
@pytest.mark.parametrize("rel", [1, 2])  # TREC-COVID: 1 partially relevant, 2 relevant
@pytest.mark.parametrize("name", ["trec-covid-round5", "trec-covid-round1"])
def test_equal_to_pytrec_eval_on_every_run(real_runs, mirror, pytrec_eval_run, size, name, rel):
    """Every run at full size; at quick size 24 runs spread over the sorted files, which must
    include runs with tied scores (checked below: trec_eval breaks ties by document id)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rs = real_runs(name)
    ev = pytrec_eval.RelevanceEvaluator(rs.qrels.to_dict(), set(TREC_NAMES.values()) | {"gm_map", "num_rel"},
                                        relevance_level=rel)  # fmt: skip
    ours = measures.evaluate(rs, [*TREC_NAMES, "SP", "PDoc@10"], rel=rel)
    files = sorted((mirror / "trec-covid" / name.split("-")[-1] / "runs").iterdir())
    assert len(files) == len(rs.runs) == {"trec-covid-round5": 126, "trec-covid-round1": 143}[name]
    worst = dict.fromkeys(TREC_NAMES, 0.0)
    seen = set()
    ties = 0
    for f in size.spread(files, 24):
        tag, run = pytrec_eval_run(f)  # the original scores: ranking and ties are pytrec_eval's
        s = rs.runs.index(tag)
        seen.add(s)
        ties += any(len(set(d.values())) < len(d) for d in run.values())
        res = ev.evaluate(run)
        R = rs.qrels.n_relevant(rel, rs.topics)
        for m, tm in TREC_NAMES.items():
            # trec_eval -c: a missing topic is scored on the empty list
            empty = {"NumRel": R, "NumQ": np.ones(len(R))}.get(m, np.zeros(len(R)))
            ref = np.array([res[t][tm] if t in res else empty[i] for i, t in enumerate(rs.topics)])
            worst[m] = max(worst[m], float(np.abs(ref - ours[m].scores[s]).max()))
        ap = np.array([res[t]["map"] if t in res else 0.0 for t in rs.topics])
        num_rel = np.array([res[t]["num_rel"] for t in rs.topics if t in res])
        np.testing.assert_allclose(
            ours["SP"].scores[s][[t in res for t in rs.topics]],
            ap[[t in res for t in rs.topics]] * num_rel,
            atol=1e-9,
        )
        gm = [res[t]["gm_map"] if t in res else math.log(1e-5) for t in rs.topics]
        assert measures.aggregate(ours["AP"].scores[s], "G_trec") == pytest.approx(
            pytrec_eval.compute_aggregated_measure("gm_map", gm), abs=1e-9
        )
    assert len(seen) == size(24, len(rs.runs)) and ties, "no run with tied scores among those read"
    assert max(worst.values()) < 1e-9, worst
    np.testing.assert_array_equal(ours["PDoc@10"].scores, ours["P@10"].scores)


LEADERBOARD = {  # NIST's column -> our measure
    "ndcg@20": "nDCG@20", "P@20": "P@20", "rbp_p5": "RBP(p=0.5)", "bpref": "bpref", "map": "AP",
    "ndcg@10": "nDCG@10", "p@5": "P@5", "RBP(p=.5)": "RBP(p=0.5)", "MAP": "AP",
}  # fmt: skip


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["trec-covid-round5", "trec-covid-round1"])
def test_reproduces_nist_leaderboard_to_four_decimals(real_runs, name):
    rs = real_runs(name)
    lb = data.leaderboard(name)
    lb = lb.set_index(lb.columns[0])
    assert set(lb.index) == set(rs.runs)
    cols = [c for c in lb.columns if c in LEADERBOARD]
    assert len(cols) == 5  # every score column of the leaderboard has a measure
    sc = measures.evaluate(rs, [LEADERBOARD[c] for c in cols])
    order = [rs.runs.index(r) for r in lb.index]
    for c in cols:
        ours = sc[LEADERBOARD[c]].mean()[order]
        # NIST printed 4 decimals: ours must round to theirs (half a unit of the last digit)
        diff = np.abs(ours - lb[c].to_numpy())
        assert diff.max() <= 5e-5 + 1e-12, (c, lb.index[int(diff.argmax())], diff.max())


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------


def _write(path, lines):
    path.write_text("".join(" ".join(map(str, x)) + "\n" for x in lines))
    return path


@pytest.fixture
def tiny(tmp_path):
    qrels = _write(tmp_path / "qrels.txt", [
        (1, 0, "d1", 2), (1, 0, "d2", 0), (1, 0, "d3", 1), (1, 0, "d9", 1),
        (2, 0, "d1", 0), (2, 0, "d4", 1),
        (3, 0, "d5", 0),
    ])  # fmt: skip
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs / "a.txt", [
        (1, "Q0", "d3", 1, 9.0, "runA"), (1, "Q0", "d1", 2, 8.0, "runA"), (1, "Q0", "d7", 3, 7.0, "runA"),
        (2, "Q0", "d4", 1, 5.0, "runA"),
        (3, "Q0", "d5", 1, 1.0, "runA"),
    ])  # fmt: skip
    _write(runs / "b.txt", [  # misses topic 2; ties on topic 1 broken by doc id descending
        (1, "Q0", "d1", 1, 3.0, "runB"), (1, "Q0", "d2", 2, 3.0, "runB"), (1, "Q0", "d9", 3, 1.0, "runB"),
        (3, "Q0", "d5", 1, 1.0, "runB"),
    ])  # fmt: skip
    return qrels, runs


def _rows(out):
    return [line.split("\t") for line in out.strip().splitlines()]


def test_cli_eval_matches_pytrec_eval(tiny, capsys):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, runs = tiny
    assert cli_main(["eval", "--qrels", str(qrels), str(runs), "-m", "AP", "-m", "nDCG@10",
                     "--digits", "12"]) == 0  # fmt: skip
    rows = _rows(capsys.readouterr().out)
    assert [r[:2] for r in rows] == [["runA", "AP"], ["runA", "nDCG@10"], ["runB", "AP"], ["runB", "nDCG@10"]]
    with open(qrels) as fh:
        q = pytrec_eval.parse_qrel(fh)
    ev = pytrec_eval.RelevanceEvaluator(q, {"map", "ndcg_cut_10"})
    for tag, fname in [("runA", "a.txt"), ("runB", "b.txt")]:
        with open(runs / fname) as fh:
            res = ev.evaluate(pytrec_eval.parse_run(fh))
        for m, tm in [("AP", "map"), ("nDCG@10", "ndcg_cut_10")]:
            ref = sum(res.get(t, {}).get(tm, 0.0) for t in ["1", "2", "3"]) / 3  # trec_eval -c
            (val,) = [float(r[2]) for r in rows if r[0] == tag and r[1] == m]
            assert val == pytest.approx(ref, abs=1e-11)
    # runB ranks d2 before d1 (tie at 3.0, doc id descending): AP on topic 1 = (1/2 + 2/3) / 3
    assert cli_main(["eval", "--qrels", str(qrels), str(runs / "b.txt"), "-m", "AP", "--per-topic"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows == [["runB", "AP", "1", f"{(1 / 2 + 2 / 3) / 3:.4f}"], ["runB", "AP", "2", "0.0000"],
                    ["runB", "AP", "3", "0.0000"], ["runB", "AP", "all", f"{(1 / 2 + 2 / 3) / 9:.4f}"]]  # fmt: skip


def test_cli_eval_errors(tiny, capsys):
    qrels, runs = tiny
    assert cli_main(["eval", "--qrels", str(qrels), str(runs), "-m", "MAPX"]) == 2
    assert "unknown measure" in capsys.readouterr().err
    assert cli_main(["eval", "--qrels", str(qrels), str(runs / "nope.txt"), "-m", "AP"]) == 2
    assert "not found" in capsys.readouterr().err


@pytest.mark.realdata
def test_cli_eval_with_an_ir_datasets_id_reproduces_nist(mirror, capsys):
    run = mirror / "trec-covid/round1/runs"
    f = sorted(run.iterdir())[0]
    assert cli_main(["eval", "--qrels", "cord19/trec-covid/round1", str(f), "-m", "nDCG@10",
                     "-m", "P@5", "-m", "bpref"]) == 0  # fmt: skip
    rows = _rows(capsys.readouterr().out)
    lb = data.leaderboard("trec-covid-round1").set_index("run")
    tag = rows[0][0]
    for _, m, v in rows:
        col = {"nDCG@10": "ndcg@10", "P@5": "p@5", "Bpref": "bpref"}[m]  # (canonical names)
        assert float(v) == pytest.approx(lb.loc[tag, col], abs=1e-12)
