"""Standardization factors in trec_eval's ``-Z`` format (:func:`irrepro.standardize.write_zscores`,
:func:`~irrepro.standardize.read_zscores`, ``irrepro standardize``): written and read back
exactly, applied to the same standardized scores as irrepro's, refused with the file and line when
malformed, and - where ``TREC_EVAL`` names a trec_eval binary - equal to what ``trec_eval -Z``
prints for the same runs and qrels."""

import re
import shlex
import subprocess

import numpy as np
import pytest

from irrepro import data, measures, standardize
from irrepro.errors import InputError


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Five simulated runs on six topics as TREC files, and their AP and P@10 score matrices."""
    d = tmp_path_factory.mktemp("zs")
    rs = data.synthetic.runs(5, 6, list_length=30, seed=3)
    data.synthetic.write_trec(rs, d / "runs", qrels=d / "qrels.txt")
    from irrepro._user_inputs import load

    runset = load(d / "runs", d / "qrels.txt").runset
    scores = measures.evaluate(runset, ["AP", "P@10"])
    return d, scores


def _factors(scores):
    return {measures.trec_eval_name(m): standardize.factors(x) for m, x in scores.items()}


def test_written_factors_read_back_exactly(sim, tmp_path):
    _, scores = sim
    fac = _factors(scores)
    assert standardize.write_zscores(tmp_path / "z", fac) == sum(len(f.mean) for f in fac.values())
    back = standardize.read_zscores(tmp_path / "z")
    assert set(back) == set(fac) == {"map", "P_10"}
    for m, f in fac.items():
        assert back[m].topics == f.topics
        assert np.array_equal(back[m].mean, f.mean) and np.array_equal(back[m].sd, f.sd)


def test_read_back_factors_standardize_as_irrepro_does(sim, tmp_path):
    _, scores = sim
    standardize.write_zscores(tmp_path / "z", _factors(scores))
    back = standardize.read_zscores(tmp_path / "z")
    for m, x in scores.items():
        for cdf in (True, False):
            ours = standardize.standardize(x, cdf=cdf)
            assert np.array_equal(standardize.standardize(x, back[measures.trec_eval_name(m)], cdf=cdf), ours)


@pytest.mark.parametrize(
    "text,problem",
    [
        ("401 map 0.3\n", "line 1: expected 'qid measure mean sd', got 3 fields"),
        ("401 map 0.3 0.1\n402 map 0.3 0.1 9\n", "line 2: expected 'qid measure mean sd', got 5 fields"),
        ("401 map 0.3 0.1\n\n402 map x 0.1\n", "line 3: mean 'x' or sd '0.1' is not a number"),
        ("401 map 0.3 nan\n", "line 1: mean '0.3' or sd 'nan' is not finite"),
        ("401 map 0.3 -0.1\n", "line 1: sd -0.1 of map, topic 401 is negative"),
        ("401 map 0.3 0.1\n401 P_10 0.3 0.1\n401 map 0.2 0.1\n", "line 3: map, topic 401 given twice"),
        ("\n\n", "no 'qid measure mean sd' line"),
    ],
)
def test_a_malformed_file_is_refused_naming_file_line_and_problem(tmp_path, text, problem):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(InputError, match=re.escape(f"{p}") + ".*" + re.escape(problem)):
        standardize.read_zscores(p)


def test_factors_without_topic_ids_are_refused(tmp_path):
    with pytest.raises(InputError, match="no topic ids"):
        standardize.write_zscores(tmp_path / "z", {"map": standardize.factors(np.eye(3))})


def test_the_command_exports_then_applies_the_factors(sim, tmp_path, run_cli):
    d, scores = sim
    z = tmp_path / "z.txt"
    base = ["standardize", d / "runs", "--qrels", d / "qrels.txt", "-m", "AP", "-m", "P@10"]
    rc, out, err = run_cli([*base, "--export-zscores", z])
    assert rc == 0, err
    assert out.splitlines() == [
        f"wrote 12 lines (2 measures x 6 topics, mean and sd of 5 runs) to {z}",
        "apply it with this call, adding -q for per-topic z-scores:",
        f"  trec_eval -c -Z {z} -m map -m P.10 QRELS RUN",
    ]
    back = standardize.read_zscores(z)
    assert np.array_equal(back["map"].mean, standardize.factors(scores["AP"]).mean)
    rc, out, err = run_cli([*base, "--zscores", z])
    assert rc == 0, err
    rows = [line.split() for line in out.splitlines()[1:-1]]
    assert [r[0] for r in rows] == list(scores["AP"].systems)
    for j, m in enumerate(["AP", "P@10"], 1):
        want = standardize.standardize(scores[m]).mean(axis=1)
        assert [float(r[j]) for r in rows] == pytest.approx(want, abs=5e-5)


def test_the_command_refuses_a_file_lacking_a_measure_and_a_measure_trec_eval_lacks(sim, tmp_path, run_cli):
    d, _ = sim
    z = tmp_path / "z.txt"
    z.write_text("1 map 0.3 0.1\n")
    base = ["standardize", d / "runs", "--qrels", d / "qrels.txt"]
    rc, out, err = run_cli([*base, "-m", "P@10", "--zscores", z])
    assert rc == 2 and out == "" and "no factors for P_10" in err
    rc, out, err = run_cli([*base, "-m", "RR@10", "--export-zscores", tmp_path / "new.txt"])
    assert rc == 2 and "trec_eval has no such measure" in err


def test_trec_eval_z_prints_irrepros_z_scores(sim, tmp_path, trec_eval_10):
    """``trec_eval -q -Z FILE`` on each run: its per-topic values (printed to 4 decimals) equal
    irrepro's z-scores from the same factors."""
    d, scores = sim
    z = tmp_path / "z.txt"
    standardize.write_zscores(z, _factors(scores))
    for i, run in enumerate(scores["AP"].systems):
        res = subprocess.run([str(trec_eval_10), "-q", "-Z", str(z), "-m", "map", "-m", "P.10",
                              str(d / "qrels.txt"), str(d / "runs" / run)],
                             capture_output=True, text=True, check=True)  # fmt: skip
        got = {}
        for line in res.stdout.splitlines():
            name, topic, value = line.split()
            if topic != "all":
                got[(name, topic)] = float(value)
        for m, te in (("AP", "map"), ("P@10", "P_10")):
            x = scores[m]
            ours = standardize.standardize(x, cdf=False)[i]
            theirs = [got[("Z" + te, t)] for t in x.topics]
            assert theirs == pytest.approx(ours, abs=5e-5), (run, m)


def _ranked(path, run, lists):
    """Write a run file: ``lists`` maps a topic to its documents, best first."""
    path.write_text("".join(f"{t} Q0 {d} {i + 1} {100 - i} {run}\n" for t, docs in lists.items()
                            for i, d in enumerate(docs)))  # fmt: skip


@pytest.fixture
def tied(tmp_path):
    """Qrels of topics 1 and 2 (d{t}_0..9 relevant, d{t}_10..19 not); runs A, B, C (the
    standardizing runs) each with 7 relevant documents in their top 10 on topic 1 (P@10 = 0.7:
    numpy's mean of the three is 0.6999999999999998, its sd 1.4e-16) and 3, 5, 6 on topic 2; a
    later run D with 5 and 6."""
    q = tmp_path / "qrels"
    q.write_text("".join(f"{t} 0 d{t}_{i} {int(i < 10)}\n" for t in (1, 2) for i in range(20)))
    (tmp_path / "runs").mkdir()
    (tmp_path / "later").mkdir()

    def lists(rel1, rel2, shift):
        out = {}
        for t, r in ((1, rel1), (2, rel2)):
            docs = [f"d{t}_{i}" for i in range(r)] + [f"d{t}_{10 + i}" for i in range(10 - r)]
            out[t] = docs[shift:] + docs[:shift]  # other orders: other AP
        return out

    for name, (r1, r2, shift) in {"A": (7, 3, 1), "B": (7, 5, 2), "C": (7, 6, 3)}.items():
        _ranked(tmp_path / "runs" / name, name, lists(r1, r2, shift))
    _ranked(tmp_path / "later" / "D", "D", lists(5, 6, 4))
    return tmp_path


def _z_of_trec_eval(binary, line, zfile, qrels, run) -> dict:
    """{(measure, topic): z} of trec_eval -q, called as ``line`` (printed by irrepro standardize)."""
    args = shlex.split(line.strip())
    assert args[:4] == ["trec_eval", "-c", "-Z", str(zfile)] and args[-2:] == ["QRELS", "RUN"]
    out = subprocess.run([str(binary), "-q", *args[1:-2], str(qrels), str(run)], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    return {(name[1:], topic): float(v) for name, topic, v in (ln.split() for ln in out.splitlines())}


def test_a_tied_topic_has_sd_zero_and_round_trips_through_trec_eval(tied, tmp_path, run_cli, trec_eval_10):
    """The three runs at P@10 = 0.7 on topic 1: the file says mean 0.7 (its 17 digits), sd 0;
    trec_eval -Z, called as irrepro prints it, gives them z = 0 there (not 0.8165: its value minus
    numpy's mean over numpy's sd), the later run D -1000000 (its missing value, not -1.5e15), and
    on every other topic and measure irrepro's z-scores."""
    z = tmp_path / "z.txt"
    base = ["standardize", tied / "runs", "--qrels", tied / "qrels", "-m", "P@10", "-m", "AP"]
    rc, out, err = run_cli([*base, "--export-zscores", z, "--precision", "float64"])
    assert rc == 0, err
    assert "1 P_10 0.69999999999999996 0\n" in z.read_text()
    line = out.splitlines()[-1]
    fac = standardize.read_zscores(z)
    assert fac["P_10"].sd[0] == 0.0 and fac["P_10"].mean[0] == 0.7
    for run in ("runs/A", "runs/B", "runs/C", "later/D"):
        got = _z_of_trec_eval(trec_eval_10, line, z, tied / "qrels", tied / run)
        rs = data.load_runs([tied / run], qrels=tied / "qrels", precision="float64")
        ev = measures.evaluate(rs, ["P@10", "AP"])
        for m, te in (("P@10", "P_10"), ("AP", "map")):
            ours = standardize.standardize(ev[m], fac[te], cdf=False)[0]
            for t, topic in enumerate(ev[m].topics):
                if (te, topic) == ("P_10", "1"):
                    assert ours[t] == 0.0  # irrepro: z = 0 on a topic with sd 0, whatever the value
                    assert got[te, topic] == (-1000000.0 if run == "later/D" else 0.0)
                else:
                    assert got[te, topic] == pytest.approx(ours[t], abs=5e-5), (run, te, topic)


def test_a_measure_at_its_own_level_and_the_calls_for_two_levels(tmp_path, run_cli, trec_eval_10):
    """``-m 'AP(rel=2)' -m P@10`` exports trec_eval's map (at -l 2) and P_10 (at -l 1) and prints
    the two trec_eval calls that apply them; each, run as printed, gives irrepro's z-scores."""
    from test_measures_parity import make_collection

    qpath, files, _, _ = make_collection(tmp_path, 7, grades=(0, 0, 1, 1, 2, 3))
    z = tmp_path / "z.txt"
    rc, out, err = run_cli(["standardize", *files, "--qrels", qpath, "-m", "AP(rel=2)", "-m", "P@10",
                            "--export-zscores", z, "--precision", "float64"])  # fmt: skip
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("apply it with these 2 calls (one trec_eval call has one -l")
    assert lines[2:] == [
        f"  trec_eval -c -Z {z} -l 2 -m map QRELS RUN",
        f"  trec_eval -c -Z {z} -m P.10 QRELS RUN",
    ]
    fac = standardize.read_zscores(z)
    ev = measures.evaluate(data.load_runs(files, qrels=qpath, precision="float64"), ["AP(rel=2)", "P@10"])
    for s, f in enumerate(files):
        got = {**_z_of_trec_eval(trec_eval_10, lines[2], z, qpath, f),
               **_z_of_trec_eval(trec_eval_10, lines[3], z, qpath, f)}  # fmt: skip
        for m, te in (("AP(rel=2)", "map"), ("P@10", "P_10")):
            ours = standardize.standardize(ev[m], fac[te], cdf=False)[s]
            for t, topic in enumerate(ev[m].topics):
                if fac[te].sd[t] > 0:
                    assert got[te, topic] == pytest.approx(ours[t], abs=5e-5), (f, te, topic)


def test_weighted_utility_exports_under_trec_eval_name(tmp_path, run_cli, trec_eval_10):
    """Weighted utility is trec_eval's utility_2,-0.5,-1,0 (``-m utility.2,-0.5,-1,0``): trec_eval's
    z-scores equal irrepro's on every topic a run retrieved for; on the topic it misses, trec_eval
    scores its stand-in list (irrepro's value + p2 = -0.5), so its z is irrepro's - 0.5 / sd."""
    from test_measures_parity import make_collection

    qpath, files, _, _ = make_collection(tmp_path, 8, grades=(0, 0, 1, 1, 2, 3), n_runs=4)
    z = tmp_path / "z.txt"
    utility = "utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)"
    rc, out, err = run_cli(["standardize", *files, "--qrels", qpath, "-m", utility, "--export-zscores", z,
                            "--precision", "float64"])  # fmt: skip
    assert rc == 0, err
    assert out.splitlines()[-1] == f"  trec_eval -c -Z {z} -m utility.2,-0.5,-1,0 QRELS RUN"
    fac = standardize.read_zscores(z)["utility_2,-0.5,-1,0"]
    ev = measures.evaluate(data.load_runs(files, qrels=qpath, precision="float64"), [utility])[utility]
    for s, f in enumerate(files):
        got = _z_of_trec_eval(trec_eval_10, out.splitlines()[-1], z, qpath, f)
        ours = standardize.standardize(ev, fac, cdf=False)[s]
        lines = f.read_text().splitlines()
        for t, topic in enumerate(ev.topics):
            if fac.sd[t] == 0:
                continue
            missed = not any(ln.startswith(f"{topic} ") for ln in lines)
            want = ours[t] - (0.5 / fac.sd[t] if missed else 0.0)
            assert got["utility_2,-0.5,-1,0", topic] == pytest.approx(want, abs=5e-5), (f, topic, missed)


def test_two_measures_trec_eval_names_alike_are_refused(sim, tmp_path, run_cli):
    d, _ = sim
    z = tmp_path / "z.txt"
    rc, out, err = run_cli(["standardize", d / "runs", "--qrels", d / "qrels.txt", "-m", "AP", "-m", "AP(rel=2)",
                            "--export-zscores", z])  # fmt: skip
    assert rc == 2 and out == "" and not z.exists()
    assert "-m AP and -m AP(rel=2) are both trec_eval's map (at -l 1 and -l 2)" in err


def test_the_printed_command_quotes_the_file(sim, tmp_path, run_cli):
    d, _ = sim
    z = tmp_path / "my z.txt"
    rc, out, err = run_cli(["standardize", d / "runs", "--qrels", d / "qrels.txt", "-m", "AP", "-m", "P@5",
                            "-m", "P@10", "--export-zscores", z])  # fmt: skip
    assert rc == 0, err
    assert out.splitlines()[-1] == f"  trec_eval -c -Z '{z}' -m map -m P.5,10 QRELS RUN"


@pytest.mark.parametrize(
    ("given", "then"),
    [
        ("gm_map", "standardize the per-topic measure, -m AP (trec_eval's map)"),
        ("gm_bpref", "standardize the per-topic measure, -m Bpref (trec_eval's bpref)"),
        ("G_AP", "standardize the per-topic measure, -m AP (trec_eval's map)"),
        ("gm_P@10", "standardize the per-topic measure, -m P@10 (trec_eval's P_10)"),
        ("G_Q", "the per-topic Q is not trec_eval's either"),
    ],
)
@pytest.mark.parametrize("mode", ["--export-zscores", "--zscores"])
def test_a_geometric_mean_over_topics_is_refused_naming_the_per_topic_measure(sim, tmp_path, run_cli, given,
                                                                              then, mode):  # fmt: skip
    """gm_map, gm_bpref, G_...: a summary over topics has no per-topic score, which trec_eval -Z
    standardizes; refused before any work, saying so (it exported AP's factors under gm_map, whose
    trec_eval -Z line reads Zgm_map 0, and --zscores printed AP's standardized means as gm_map)."""
    d, scores = sim
    z = tmp_path / "z.txt"
    if mode == "--zscores":  # a file that holds the measure's name, with AP's factors
        standardize.write_zscores(z, {measures.parse_measure(given).name: standardize.factors(scores["AP"])})
    rc, out, err = run_cli(["standardize", d / "runs", "--qrels", d / "qrels.txt", "-m", given, mode, z])
    assert rc == 2 and out == "" and z.exists() == (mode == "--zscores")
    whose = "trec_eval's" if given.startswith("gm_") else "Sakai's"
    assert err == (f"irrepro standardize: -m {given}: {measures.parse_measure(given).name} is {whose} geometric "
                   f"mean over topics ({given[:given.index('_')]}_), a summary with no per-topic score, and "
                   f"trec_eval -Z standardizes each topic's score; {then}\n")  # fmt: skip
