"""irrepro.reproduce (issue 29, item 1): Breuer et al.'s (SIGIR 2020) reproducibility measures with
topic-bootstrap intervals.

- equal to repro_eval 0.5.0 (the authors' package, run live where it is installed: the test
  extra pins it) on repro_eval's own test layout (an original baseline / advanced pair, its
  reproduction on the same qrels and its replication on other qrels, here simulated) and on real
  TREC-COVID round-5 pairs (a reproduction by other teams' runs, by the same runs with noise, and
  a replication by round-1 runs on round-1's qrels);
- equal to the definitions written out independently (scipy's t-tests, the formulas, a plain
  loop for KTU and RBO), which run without repro_eval;
- intervals that cover a known truth at their nominal rate (a small simulation);
- bad input: clear errors naming the files.
"""

from __future__ import annotations

import gzip
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from irrepro import data, reproduce
from irrepro.errors import InputError

pytestmark = pytest.mark.filterwarnings("error")

TOL = 1e-9
#: repro_eval's names of the measures it computes, all of which irrepro has.
MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "Rprec", "Bpref", "RR", "R@100"]
QRELS5 = Path("ir_datasets/cord19/trec-covid/round5/qrels")  # inside the mirror
QRELS1 = Path("ir_datasets/cord19/trec-covid/round1/qrels")


def noisy(src: Path, dst: Path, sd: float, seed: int) -> Path:
    """A 'reproduction' of the run in ``src``: its scores plus N(0, sd^2) noise (seeded), written
    as a run file is, each topic's lines by descending score (repro_eval ranks by line order)."""
    rng = np.random.default_rng(seed)
    opener = gzip.open if src.suffix == ".gz" else open
    with opener(src, "rt") as f:
        rows = [line.split() for line in f if line.strip()]
    scores = np.array([float(r[4]) for r in rows]) + rng.normal(0.0, sd, len(rows))
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], -scores[i]))
    dst.write_text("".join(f"{rows[i][0]} Q0 {rows[i][2]} {k + 1} {float(scores[i])!r} {rows[i][5]}\n"
                           for k, i in enumerate(order)))  # fmt: skip
    return dst


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """repro_eval's test layout (orig_b, orig_a, rpd_b, rpd_a, rpl_b, rpl_a; core17 and core18
    qrels), simulated: the reproductions are the originals with noise on their scores."""
    d = tmp_path_factory.mktemp("example")
    orig = data.synthetic.runs(2, 25, list_length=100, seed=11)
    data.synthetic.write_trec(orig, d / "orig", qrels=d / "core17.txt")
    rpl = data.synthetic.runs(2, 20, list_length=100, seed=12)
    data.synthetic.write_trec(rpl, d / "rpl", qrels=d / "core18.txt")
    f = {}
    for role, name in (("b", orig.runs[0]), ("a", orig.runs[1])):
        f[f"orig_{role}"] = d / "orig" / name
        f[f"rpd_{role}"] = noisy(d / "orig" / name, d / f"rpd_{role}.txt", 20.0, seed=ord(role))
    f["rpl_b"], f["rpl_a"] = d / "rpl" / rpl.runs[0], d / "rpl" / rpl.runs[1]
    return d, f


@pytest.fixture(scope="module")
def covid(tmp_path_factory):
    """Real round-5 runs as plain files, noisy copies of two of them, round-1 runs; the qrels."""
    m = data.mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    d = tmp_path_factory.mktemp("covid")
    f = {}
    for r in ["BRPHJ_BM25", "BRPHJ_bert", "CSIROmedFR", "uogTrDPH_QE_RF"]:
        with gzip.open(m / "trec-covid" / "round5" / "runs" / f"{r}.gz", "rt") as src:
            (d / r).write_text(src.read())
        f[r] = d / r
    f["bm25_noisy"] = noisy(f["BRPHJ_BM25"], d / "bm25_noisy", 0.5, seed=1)
    f["bert_noisy"] = noisy(f["BRPHJ_bert"], d / "bert_noisy", 0.01, seed=2)
    r1 = sorted((m / "trec-covid" / "round1" / "runs").iterdir())[:2]
    for p in r1:
        with gzip.open(p, "rt") as src:
            (d / p.stem).write_text(src.read())
    f["r1_b"], f["r1_a"] = d / r1[0].stem, d / r1[1].stem
    return f, m / QRELS5, m / QRELS1


def _ours(files, qrels, repro_qrels=None) -> dict:
    rep = reproduce.reproduce_runs(*files, qrels, repro_qrels=repro_qrels, measures=MEASURES, B=200, seed=0)
    return {k: float(v.value[0]) for k, v in rep.estimates.items()}


def _repro_eval(files, qrels, repro_qrels=None, ktu: bool = True) -> dict:
    """repro_eval's point values, keyed as :attr:`Reproduction.estimates`."""
    ev = pytest.importorskip(
        "repro_eval.Evaluator", reason="repro_eval (pip install 'irrepro[test]') compares live"
    )
    paths = dict(
        zip(["run_b_orig_path", "run_a_orig_path", "run_b_rep_path", "run_a_rep_path"], map(str, files))
    )
    with warnings.catch_warnings():  # its deprecated ir_measures calls; 0 / 0 without an improvement
        warnings.simplefilter("ignore")
        if repro_qrels is None:
            e = ev.RpdEvaluator(qrels_orig_path=str(qrels), **paths)
        else:
            e = ev.RplEvaluator(qrels_orig_path=str(qrels), qrels_rpl_path=str(repro_qrels), **paths)
        e.trim()
        e.evaluate()
        out = {}
        if repro_qrels is None:
            for stat, values in [("KTU", e.ktu() if ktu else {}), ("RBO", e.rbo())]:
                out |= {(run, "", stat): v for run, v in values.items()}
            for run, values in e.rmse().items():
                out |= {(run, m, "RMSE"): values[m] for m in MEASURES}
        for run, values in e.ttest().items():
            out |= {(run, m, "p-value"): values[m] for m in MEASURES}
        er, dri = e.er(), e.dri()
        out |= {("effect", m, "ER"): er[m] for m in MEASURES} | {
            ("effect", m, "DeltaRI"): dri[m] for m in MEASURES
        }
    return out


def _assert_equal(ours: dict, ref: dict) -> None:
    """Every value of repro_eval's equal to irrepro's, to 1e-9; the one documented difference:
    where a run's scores of a measure are reproduced on every topic, repro_eval's t-test is NaN
    (0 / 0) and irrepro's p-value 1 (see :func:`irrepro.reproduce.p_value`)."""
    assert ref, "nothing compared"
    for key, v in ref.items():
        if key[2] == "p-value" and math.isnan(v):
            assert ours[key] == 1.0, key
            continue
        assert math.isclose(ours[key], v, rel_tol=TOL, abs_tol=TOL) or (math.isnan(v) and math.isnan(ours[key])), (
            key, ours[key], v,
        )  # fmt: skip


# --------------------------------------------------------------------------------------------
# equal to repro_eval
# --------------------------------------------------------------------------------------------


def test_reproducibility_equals_repro_eval_on_its_test_layout(example):
    d, f = example
    files = [f["orig_b"], f["orig_a"], f["rpd_b"], f["rpd_a"]]
    ref = _repro_eval(files, d / "core17.txt")
    assert len(ref) == 4 + 2 * 2 * len(MEASURES) + 2 * len(MEASURES)
    _assert_equal(_ours(files, d / "core17.txt"), ref)


def test_replicability_equals_repro_eval_on_its_test_layout(example):
    d, f = example
    files = [f["orig_b"], f["orig_a"], f["rpl_b"], f["rpl_a"]]
    ref = _repro_eval(files, d / "core17.txt", d / "core18.txt")
    ours = _ours(files, d / "core17.txt", d / "core18.txt")
    assert not any(s in ("KTU", "RBO", "RMSE") for _, _, s in ours)  # defined on the same topics only
    _assert_equal(ours, ref)


def test_identical_runs_have_p_value_1_as_in_repro_eval(example):
    """repro_eval's test_ttest: a run reproduced exactly has p = 1 for every measure (and KTU 1,
    RMSE 0, ER 1, Delta RI 0; RBO that of identical lists of 100 documents at depth 1000)."""
    d, f = example
    files = [f["orig_b"], f["orig_a"], f["orig_b"], f["orig_a"]]
    ours = _ours(files, d / "core17.txt")
    for (run, m, s), v in ours.items():
        want = {
            "p-value": 1.0,
            "KTU": 1.0,
            "RBO": _rbo_by_hand(list(range(100)), list(range(100)), 0.95, 1000),
            "RMSE": 0.0,
            "ER": 1.0,
            "DeltaRI": 0.0,
        }[s]
        assert v == pytest.approx(want, abs=1e-12), (run, m, s)
    ref = _repro_eval(files, d / "core17.txt")
    assert {k: v for k, v in ref.items() if k[2] == "p-value"} == {
        k: v for k, v in ours.items() if k[2] == "p-value"
    }


@pytest.mark.parametrize(
    "repro", [("CSIROmedFR", "uogTrDPH_QE_RF"), ("bm25_noisy", "bert_noisy")], ids=["other-runs", "noisy"]
)
def test_reproducibility_equals_repro_eval_on_trec_covid(covid, repro):
    f, q5, _ = covid
    files = [f["BRPHJ_BM25"], f["BRPHJ_bert"], f[repro[0]], f[repro[1]]]
    lengths_differ = repro[0] == "CSIROmedFR"  # repro_eval's KTU stops on lists of unequal lengths
    ref = _repro_eval(files, q5, ktu=not lengths_differ)
    _assert_equal(_ours(files, q5), ref)


def test_replicability_equals_repro_eval_on_trec_covid_round1(covid):
    f, q5, q1 = covid
    files = [f["BRPHJ_BM25"], f["BRPHJ_bert"], f["r1_b"], f["r1_a"]]
    _assert_equal(_ours(files, q5, q1), _repro_eval(files, q5, q1))


# --------------------------------------------------------------------------------------------
# equal to the definitions (no repro_eval needed)
# --------------------------------------------------------------------------------------------


def _ktu_by_hand(a: list, b: list) -> float:
    n = min(len(a), len(b))
    union = sorted(set(a[:n]) | set(b[:n]))
    return stats.kendalltau([union.index(x) for x in a[:n]], [union.index(x) for x in b[:n]]).statistic


def _rbo_by_hand(a: list, b: list, p: float, depth: int) -> float:
    num = den = 0.0
    for d in range(1, depth + 1):
        num += p ** (d - 1) * len(set(a[:d]) & set(b[:d])) / d
        den += p ** (d - 1)
    return num / den


def test_ktu_and_rbo_equal_their_definitions_on_random_lists():
    rng = np.random.default_rng(3)
    lists = [(rng.permutation(60)[: rng.integers(5, 40)], rng.permutation(60)[: rng.integers(5, 40)])
             for _ in range(30)]  # fmt: skip
    K = 40
    o = np.full((30, K), -1)
    r = np.full((30, K), -1)
    for i, (a, b) in enumerate(lists):
        o[i, : len(a)], r[i, : len(b)] = a, b
    got_ktu, got_rbo = reproduce.ktu(o, r), reproduce.rbo(o, r, p=0.9, depth=25)
    for i, (a, b) in enumerate(lists):
        assert got_ktu[i] == pytest.approx(_ktu_by_hand(list(a), list(b)), abs=1e-12)
        assert got_rbo[i] == pytest.approx(_rbo_by_hand(list(a), list(b), 0.9, 25), abs=1e-12)


def test_score_and_effect_measures_equal_their_definitions():
    rng = np.random.default_rng(4)
    ob, oa, rb, ra = rng.random((4, 30)) * [[0.5], [0.8], [0.5], [0.7]]
    kw = {"B": 50, "seed": 0}
    assert float(reproduce.rmse(ob, rb, **kw).value) == pytest.approx(
        np.sqrt(np.mean((ob - rb) ** 2)), abs=1e-15
    )
    assert float(reproduce.effect_ratio(ob, oa, rb, ra, **kw).value) == pytest.approx(
        np.mean(ra - rb) / np.mean(oa - ob), rel=1e-12
    )
    ri = (oa.mean() - ob.mean()) / ob.mean() - (ra.mean() - rb.mean()) / rb.mean()
    assert float(reproduce.delta_ri(ob, oa, rb, ra, **kw).value) == pytest.approx(ri, rel=1e-12)
    assert float(reproduce.p_value(ob, rb, **kw).value) == pytest.approx(
        stats.ttest_rel(ob, rb).pvalue, rel=1e-9
    )
    assert float(reproduce.p_value(ob, rb[:20], paired=False, **kw).value) == pytest.approx(
        stats.ttest_ind(ob, rb[:20]).pvalue, rel=1e-9
    )


def test_many_experiments_at_once_equal_one_at_a_time():
    x = np.random.default_rng(5).random((4, 6, 25))
    many = reproduce.effect_ratio(*x, B=300, seed=7)
    for i in range(6):
        one = reproduce.effect_ratio(*x[:, i], B=300, seed=7)
        assert (float(one.value), float(one.low), float(one.high)) == pytest.approx(
            (many.value[i], many.low[i], many.high[i]), rel=1e-12
        )


# --------------------------------------------------------------------------------------------
# intervals cover the truth
# --------------------------------------------------------------------------------------------


def _covered(est, truth) -> float:
    return float(np.mean((est.low <= truth) & (truth <= est.high)))


def test_intervals_cover_a_known_truth_at_the_nominal_rate():
    """1000 simulated experiments of 50 topics (replication: 40 other topics), normal per-topic
    scores with known means: each 90% interval's coverage is within 4 binomial standard errors
    (0.038) of 0.90. A bootstrap interval that ignored the topics' variability (or doubled it)
    would miss the band. (RMSE's BCa interval under-covers a little at 50 topics, as bootstrap
    intervals of a standard deviation do: 0.88 at 90%, 0.93 at 95% in 2000 simulations.)"""
    rng = np.random.default_rng(2026)
    n, T, level = 1000, 50, 0.9
    mu = {"ob": 0.30, "oa": 0.40, "rb": 0.32, "ra": 0.38}
    sd = 0.1
    x = {k: m + sd * rng.standard_normal((n, T)) for k, m in mu.items()}
    kw = {"B": 999, "level": level, "seed": 1}
    band = 4 * math.sqrt(level * (1 - level) / n)
    er = reproduce.effect_ratio(x["ob"], x["oa"], x["rb"], x["ra"], **kw)
    dri = reproduce.delta_ri(x["ob"], x["oa"], x["rb"], x["ra"], **kw)
    rm = reproduce.rmse(x["ob"], x["rb"], **kw)
    mean = reproduce.topic_mean(x["oa"], **kw)
    truth = {
        "ER": (mu["ra"] - mu["rb"]) / (mu["oa"] - mu["ob"]),
        "DeltaRI": mu["oa"] / mu["ob"] - mu["ra"] / mu["rb"],
        "RMSE": math.sqrt((mu["ob"] - mu["rb"]) ** 2 + 2 * sd**2),
        "mean": mu["oa"],
    }
    y = {k: m + sd * rng.standard_normal((n, 40)) for k, m in mu.items() if k.startswith("r")}
    er_rpl = reproduce.effect_ratio(x["ob"], x["oa"], y["rb"], y["ra"], paired=False, **kw)
    cover = {"ER": _covered(er, truth["ER"]), "DeltaRI": _covered(dri, truth["DeltaRI"]),
             "RMSE": _covered(rm, truth["RMSE"]), "mean": _covered(mean, truth["mean"]),
             "ER unpaired": _covered(er_rpl, truth["ER"])}  # fmt: skip
    assert all(abs(c - level) <= band for c in cover.values()), cover


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


def _write(path: Path, topics, tag="r", docs=("d1", "d2", "d3")) -> Path:
    path.write_text("".join(f"{t} Q0 {d} {i} {3 - i} {tag}\n" for t in topics for i, d in enumerate(docs)))
    return path


@pytest.fixture
def small(tmp_path):
    (tmp_path / "q.txt").write_text("".join(f"{t} 0 d1 1\n{t} 0 d2 0\n" for t in range(1, 7)))
    for name in ("ob", "oa", "rb", "ra"):
        _write(tmp_path / name, range(1, 7))
    return tmp_path


def test_disjoint_topics_are_refused_naming_both_files(small):
    _write(small / "ob", [1, 2, 3])
    _write(small / "rb", [4, 5, 6])
    with pytest.raises(InputError, match=r"rb and .*ob rank documents for no topic in common"):
        reproduce.reproduce_runs(
            small / "ob", small / "oa", small / "rb", small / "ra", small / "q.txt", B=100
        )


def test_a_missing_run_is_refused_naming_it(small):
    with pytest.raises(InputError, match=r"nope: no such file or directory \(repro advanced run\)"):
        reproduce.reproduce_runs(
            small / "ob", small / "oa", small / "rb", small / "nope", small / "q.txt", B=100
        )


def test_directories_whose_names_do_not_match_are_refused_naming_the_files(small):
    for name in ("ob", "oa", "rb", "ra"):
        (small / f"{name}_dir").mkdir()
        for run in ("x", "y"):
            _write(small / f"{name}_dir" / run, range(1, 7))
    (small / "ra_dir" / "y").rename(small / "ra_dir" / "z")
    with pytest.raises(InputError, match=r"must match by name: .*ob_dir/ has no 'z'.*ra_dir/ has no 'y'"):
        reproduce.reproduce_runs(
            *(small / f"{n}_dir" for n in ("ob", "oa", "rb", "ra")), small / "q.txt", B=100
        )
    with pytest.raises(InputError, match="four run files or four directories, not a mix"):
        reproduce.reproduce_runs(small / "ob_dir", small / "oa", small / "rb", small / "ra", small / "q.txt")


def test_a_run_without_a_qrels_topic_is_refused_naming_it(small):
    _write(small / "ra", [40, 41])
    with pytest.raises(data.DataError, match="ra"):
        reproduce.reproduce_runs(
            small / "ob", small / "oa", small / "rb", small / "ra", small / "q.txt", B=100
        )


def test_directories_give_one_experiment_per_name(small):
    for name in ("ob", "oa", "rb", "ra"):
        (small / f"{name}_dir").mkdir()
        for run in ("x", "y"):
            docs = ("d1", "d2", "d3") if (name, run) != ("ra", "y") else ("d2", "d1", "d3")
            _write(small / f"{name}_dir" / run, range(1, 7), tag=name, docs=docs)
    rep = reproduce.reproduce_runs(*(small / f"{n}_dir" for n in ("ob", "oa", "rb", "ra")), small / "q.txt",
                                   measures=["AP"], B=100, seed=0)  # fmt: skip
    assert rep.experiments == ("x", "y")
    rbo = rep.estimates[("advanced", "", "RBO")].value
    assert rbo[0] == pytest.approx(reproduce.rbo([[0, 1, 2]], [[0, 1, 2]])[0]) and rbo[1] < rbo[0]


def test_no_original_improvement_gives_no_effect_ratio():
    """An original pair whose per-topic differences cancel (0.2 and -0.2, as floats leave them) has
    no improvement to reproduce: ER is NaN, not the reproduced mean over the rounding error."""
    import numpy as np

    ob, oa = np.array([0.1, 0.7, 0.3]), np.array([0.3, 0.5, 0.3])
    assert (oa - ob).mean() != 0  # the rounding error the division would blow up
    est = reproduce.effect_ratio(ob, oa, [0.2, 0.3, 0.4], [0.3, 0.4, 0.5], B=50, seed=0)
    assert np.isnan(est.value)
    # an improvement just above the threshold is divided as usual
    est = reproduce.effect_ratio(ob, oa + 1e-9, [0.2, 0.3, 0.4], [0.3, 0.4, 0.5], B=50, seed=0)
    assert np.isfinite(est.value) and est.value > 1e6


# ------------------------------------------------------------------------------------------
# time and memory linear in the topics: the jackknife from the leave-one-out sums; the general
# path (leave-one-out weights, a block of rows at a time) for a statistic that needs the weights
# ------------------------------------------------------------------------------------------


def _peak_bytes(fn) -> int:
    """The peak of the memory Python and numpy allocate while ``fn()`` runs (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _estimates(n: int, m: int, B: int) -> dict:
    """Every statistic of irrepro.reproduce on random per-topic scores of ``n`` topics (``m`` for
    the unpaired reproduction), two measures x three experiments, and on scores with ties
    (P@10-like: tenths)."""
    rng = np.random.default_rng(n + m)
    ob, oa, rb, ra = (rng.random((2, 3, n)) for _ in range(4))
    rb_u, ra_u = rng.random((2, 3, m)), rng.random((2, 3, m))
    topic_values = np.where(rng.random((2, n)) < 0.1, np.nan, rng.random((2, n)))
    p10 = rng.integers(0, 11, (4, 2, n)) / 10
    return {
        "rmse": reproduce.rmse(ob, rb, B=B, seed=1),
        "p paired": reproduce.p_value(ob, rb, B=B, seed=2),
        "p unpaired": reproduce.p_value(ob, rb_u, paired=False, B=B, seed=3),
        "ER paired": reproduce.effect_ratio(ob, oa, rb, ra, B=B, seed=4),
        "ER unpaired": reproduce.effect_ratio(ob, oa, rb_u, ra_u, paired=False, B=B, seed=5),
        "DeltaRI paired": reproduce.delta_ri(ob, oa, rb, ra, B=B, seed=6),
        "DeltaRI unpaired": reproduce.delta_ri(ob, oa, rb_u, ra_u, paired=False, B=B, seed=7),
        "topic mean": reproduce.topic_mean(topic_values, B=B, seed=8),
        "ER ties": reproduce.effect_ratio(*p10, B=B, seed=9),
        "p ties": reproduce.p_value(p10[0], p10[2], B=B, seed=10),
    }


def test_the_jackknife_by_sums_equals_leaving_each_topic_out_by_weights(monkeypatch):
    """Every statistic's interval with its jackknife from the leave-one-out sums equals the one with
    the leave-one-out values computed by explicit weights (topic i's weight 0, the others 1)."""
    fast = _estimates(30, 20, B=200)
    monkeypatch.setattr(reproduce, "_LeaveOneOut", lambda T: reproduce._Matrix(1.0 - np.eye(T)))
    slow = _estimates(30, 20, B=200)
    for name, est in fast.items():
        for part in ("value", "low", "high"):
            np.testing.assert_allclose(getattr(est, part), getattr(slow[name], part), rtol=1e-9, atol=1e-12,
                                       err_msg=f"{name}: {part}")  # fmt: skip


def test_memory_is_linear_in_the_topics():
    """Twice the topics take about twice the memory, not four times: the jackknife's leave-one-out
    sums are O(topics) (20,000 topics took 3 GiB in one (topics x topics) array)."""
    rng = np.random.default_rng(0)
    peaks = {}
    for n in (1500, 3000):
        o, r = rng.random((2, n)), rng.random((2, n))
        peaks[n] = (_peak_bytes(lambda o=o, r=r: reproduce.rmse(o, r, B=20, seed=0)),
                    _peak_bytes(lambda o=o, r=r: reproduce.effect_ratio(o, r, r, o, paired=False, B=20, seed=0)))  # fmt: skip
    for k, what in enumerate(("paired (RMSE)", "unpaired (ER)")):
        ratio = peaks[3000][k] / peaks[1500][k]
        assert ratio < 2.5, (what, peaks)  # quadratic: 4


def test_time_is_linear_in_the_topics():
    """The jackknife of a function of topic means (all of irrepro.reproduce's statistics) costs
    O(topics), not O(topics^2): its leave-one-out values come from the total less each topic's
    value, not from (topics x topics) weights. 16,000 topics, paired and unpaired, with few
    resamples (their cost is linear anyway): 0.01 s of CPU; by the leave-one-out weights 3.6 s
    (256 million cells per statistic and side). The bound leaves a factor of 7 to 50."""
    import time

    rng = np.random.default_rng(0)
    o, r = rng.random((2, 16_000)), rng.random((2, 16_000))
    best = []
    for _ in range(3):
        t0 = time.process_time()
        reproduce.rmse(o, r, B=2, seed=0)
        reproduce.effect_ratio(o, r, r, o, paired=False, B=2, seed=0)
        best.append(time.process_time() - t0)
    assert min(best) < 0.5, best


def test_the_jackknife_of_a_mean_is_the_mean_of_the_others():
    """By hand: leaving topic i out of a mean gives the mean of the other topics (np.delete), by
    the leave-one-out sums; unpaired, the other side's weights are all 1."""
    rng = np.random.default_rng(3)
    x = rng.random((2, 40))
    want = np.array([[np.delete(row, i).mean() for i in range(40)] for row in x])
    got = reproduce.wmean(x, reproduce._LeaveOneOut(40))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    y = rng.random((2, 25))  # (the other side of an unpaired jackknife: every topic, each time)
    np.testing.assert_allclose(reproduce.wmean(y, reproduce._All(40, 25)), np.repeat(y.mean(axis=1)[:, None], 40, 1),
                               rtol=1e-14, atol=0)  # fmt: skip


def test_twenty_thousand_topics_take_megabytes_not_gigabytes():
    """The issue's case: 20,000 topics within 100 MB of allocations (one (topics x topics) array
    of float64 is 3.2 GB; the CLI took 6.6 GB)."""
    rng = np.random.default_rng(0)
    o, r = rng.random(20_000), rng.random(20_000)
    peak = _peak_bytes(lambda: reproduce.rmse(o, r, B=10, seed=0))
    assert peak < 100e6, peak
