"""Standardization factors in trec_eval's ``-Z`` format (:func:`irrepro.standardize.write_zscores`,
:func:`~irrepro.standardize.read_zscores`, ``irrepro standardize``): written and read back
exactly, applied to the same standardized scores as irrepro's, refused with the file and line when
malformed, and - where ``TREC_EVAL`` names a trec_eval binary - equal to what ``trec_eval -Z``
prints for the same runs and qrels."""

import re
import subprocess

import numpy as np
import pytest

from irrepro import data, measures, standardize
from irrepro.cli import main as cli_main
from irrepro.errors import InputError


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Five simulated runs on six topics as TREC files, and their AP and P@10 score matrices."""
    d = tmp_path_factory.mktemp("zs")
    rs = data.simulate.runs(5, 6, list_length=30, seed=3)
    data.simulate.write_trec(rs, d / "runs", qrels=d / "qrels.txt")
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


def _cli(args, capsys):
    rc = cli_main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_the_command_exports_then_applies_the_factors(sim, tmp_path, capsys):
    d, scores = sim
    z = tmp_path / "z.txt"
    base = ["standardize", d / "runs", "--qrels", d / "qrels.txt", "-m", "AP", "-m", "P@10"]
    rc, out, err = _cli([*base, "--export-zscores", z], capsys)
    assert rc == 0, err
    assert out == f"wrote 12 lines (2 measures x 6 topics, mean and sd of 5 runs) to {z}\n"
    back = standardize.read_zscores(z)
    assert np.array_equal(back["map"].mean, standardize.factors(scores["AP"]).mean)
    rc, out, err = _cli([*base, "--zscores", z], capsys)
    assert rc == 0, err
    rows = [line.split() for line in out.splitlines()[1:-1]]
    assert [r[0] for r in rows] == list(scores["AP"].systems)
    for j, m in enumerate(["AP", "P@10"], 1):
        want = standardize.standardize(scores[m]).mean(axis=1)
        assert [float(r[j]) for r in rows] == pytest.approx(want, abs=5e-5)


def test_the_command_refuses_a_file_lacking_a_measure_and_a_measure_trec_eval_lacks(sim, tmp_path, capsys):
    d, _ = sim
    z = tmp_path / "z.txt"
    z.write_text("1 map 0.3 0.1\n")
    base = ["standardize", d / "runs", "--qrels", d / "qrels.txt"]
    rc, out, err = _cli([*base, "-m", "P@10", "--zscores", z], capsys)
    assert rc == 2 and out == "" and "no factors for P_10" in err
    rc, out, err = _cli([*base, "-m", "RR@10", "--export-zscores", tmp_path / "new.txt"], capsys)
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
