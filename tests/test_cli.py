"""``irrepro eval`` and the command line's errors.

Numbers are checked against trec_eval binaries run in the test (9.0.8, which ranks by float32 as
irrepro does by default, and which - unlike 10.0 - averages over the run's own topics without
crashing when a run lacks a qrels topic); errors are checked for the file, the line and the
problem they name, and for exit status 2 (130 for Ctrl-C).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irrepro import data, report
from irrepro.cli import main as cli_main

TREC_EVAL_9 = Path("/work/tools/trec_eval-9.0.8/trec_eval")
TREC_EVAL_10 = Path("/work/tools/trec_eval/trec_eval")
QRELS = Path("ir_datasets/cord19/trec-covid/round5/qrels")  # inside the mirror
RUNS = ["BRPHJ_BM25", "CSIROmedFR", "uogTrDPH_QE_RF"]  # file name = run tag
#: irrepro's names of trec_eval's measures
NAMES = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "bpref": "bpref",
         "Rprec": "Rprec", "gm_map": "gm_AP"}
TE_ARGS = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "bpref", "-m", "Rprec"]
OUR_ARGS = ["-m", "AP", "-m", "P@10", "-m", "nDCG@10", "-m", "RR", "-m", "bpref", "-m", "Rprec"]


def run_cli(args, capsys) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Three real round-5 runs as plain text, and a fourth derived from the first that lacks
    topics 3 and 7 and has a topic (999) the qrels lack; the qrels file of the mirror."""
    m = data.mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    if not TREC_EVAL_9.is_file():
        pytest.skip("trec_eval 9.0.8 binary not available")
    d = tmp_path_factory.mktemp("runs")
    for r in RUNS:
        with gzip.open(m / "trec-covid" / "round5" / "runs" / f"{r}.gz", "rt") as f:
            (d / r).write_text(f.read())
    lines = (d / RUNS[0]).read_text().splitlines()
    kept = [ln.replace(RUNS[0], "gappy") for ln in lines if ln.split()[0] not in ("3", "7")]
    extra = [f"999 Q0 doc{i} {i + 1} {10 - i} gappy" for i in range(5)]
    (d / "gappy").write_text("\n".join(kept + extra) + "\n")
    return d, m / QRELS


def trec_eval(binary, qrels, run, *args) -> pd.DataFrame:
    out = subprocess.run([str(binary), *args, str(qrels), str(run)], capture_output=True, text=True, check=True)
    rows = [ln.split() for ln in out.stdout.splitlines()]
    frame = pd.DataFrame(rows, columns=["measure", "query_id", "value"])
    frame["measure"] = frame["measure"].map(NAMES)
    frame["value"] = frame["value"].astype(float)
    return frame.dropna()


def ours(capsys, *args) -> pd.DataFrame:
    rc, out, _ = run_cli(["eval", *args, "--format", "csv"], capsys)
    assert rc == 0
    return pd.read_csv(io.StringIO(out), dtype={"query_id": str})


def _compare(mine: pd.DataFrame, ref: pd.DataFrame, run: str):
    mine = mine[mine["run"] == run].set_index(["query_id", "measure"])["value"]
    ref = ref.set_index(["query_id", "measure"])["value"]
    joined = pd.concat([mine.rename("ours"), ref.rename("trec_eval")], axis=1, join="inner")
    assert len(joined) == len(ref)  # every value trec_eval printed, we printed too
    assert (joined["ours"] - joined["trec_eval"]).abs().max() <= 5e-5 + 1e-12  # trec_eval's 4 decimals


@pytest.mark.realdata
def test_eval_equals_trec_eval_both_averages(real, capsys):
    d, qrels = real
    files = [d / r for r in [*RUNS, "gappy"]]
    c = ours(capsys, "--qrels", qrels, *files, *OUR_ARGS, "-q", "-c", "-a", "mean", "-a", "gm")
    own = ours(capsys, "--qrels", qrels, *files, *OUR_ARGS, "-q", "--average", "run-topics")
    for f in files:
        run = f.name
        _compare(c, trec_eval(TREC_EVAL_9, qrels, f, "-c", "-q", *TE_ARGS, "-m", "gm_map"), run)
        _compare(own, trec_eval(TREC_EVAL_9, qrels, f, "-q", *TE_ARGS), run)
    # the two averages differ exactly where a run misses topics
    a = c[(c.query_id == "all") & (c.measure == "AP")].set_index("run")["value"]
    b = own[(own.query_id == "all") & (own.measure == "AP")].set_index("run")["value"]
    assert a["gappy"] < b["gappy"] and (a.drop("gappy") == b.drop("gappy")).all()
    # -c lists every qrels topic (a missing one as 0, as trec_eval 10 -c -q does); without it,
    # only the run's own topics, as trec_eval
    assert set(c[(c.run == "gappy") & (c.measure == "AP")].query_id) >= {"3", "7"}
    assert not set(own[(own.run == "gappy")].query_id) & {"3", "7", "999"}


@pytest.mark.realdata
def test_eval_depth_and_level_equal_trec_eval(real, capsys):
    d, qrels = real
    f = d / RUNS[1]
    _compare(ours(capsys, "--qrels", qrels, f, *OUR_ARGS, "-q", "-c", "-M", "100"),
             trec_eval(TREC_EVAL_9, qrels, f, "-c", "-q", "-M", "100", *TE_ARGS), RUNS[1])
    _compare(ours(capsys, "--qrels", qrels, f, *OUR_ARGS, "-q", "-c", "-l", "2"),
             trec_eval(TREC_EVAL_9, qrels, f, "-c", "-q", "-l", "2", *TE_ARGS), RUNS[1])
    _compare(ours(capsys, "--qrels", qrels, f, "-m", "AP", "-c", "--rel", "2"),
             trec_eval(TREC_EVAL_9, qrels, f, "-c", "-l", "2", "-m", "map"), RUNS[1])


@pytest.mark.realdata
def test_eval_trec_eval_format_reads_like_trec_eval(real, capsys):
    d, qrels = real
    f = d / RUNS[0]
    rc, out, _ = run_cli(["eval", "--qrels", qrels, f, "-m", "AP", "-q", "--format", "trec_eval"], capsys)
    assert rc == 0
    ref = subprocess.run([str(TREC_EVAL_9), "-c", "-q", "-m", "map", str(qrels), str(f)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    lines = out.splitlines()
    assert lines[0] == f"{'runid':<22}\tall\t{RUNS[0]}"
    # the same lines as trec_eval's, the measure named as irrepro names it
    assert sorted(ln.replace("AP    ", "map   ", 1) for ln in lines[1:]) == sorted(ref)


@pytest.mark.realdata
def test_eval_coverage_is_reported_per_run(real, capsys):
    d, qrels = real
    rc, out, err = run_cli(["eval", "--qrels", qrels, d / "gappy", d / RUNS[1], "-m", "AP"], capsys)
    assert rc == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1  # only the run whose topics differ from the qrels'
    assert lines[0] == ("irrepro eval: run gappy: 48 of the 50 qrels topics retrieved; 2 missing, scored 0 "
                        "(trec_eval -c): 3, 7; 1 run topics not in the qrels, ignored: 999")
    rc, _, err = run_cli(["eval", "--qrels", qrels, d / "gappy", "-m", "AP", "--average", "run-topics"], capsys)
    assert "2 missing, left out of its average: 3, 7" in err


@pytest.mark.realdata
def test_eval_json_and_tsv(real, capsys):
    d, qrels = real
    rc, out, _ = run_cli(["eval", "--qrels", qrels, d / RUNS[0], d / RUNS[1], "-m", "AP", "-m", "P@10",
                          "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["simulated"] is False and doc["average"] == "all-topics" and "warning" not in doc
    te = trec_eval(TREC_EVAL_9, qrels, d / RUNS[1], "-c", "-m", "map")
    got = [r["value"] for r in doc["scores"] if r["run"] == RUNS[1] and r["measure"] == "AP"]
    assert got == pytest.approx([te["value"].iloc[0]], abs=5e-5)
    rc, out, _ = run_cli(["eval", "--qrels", qrels, d / RUNS[0], d / RUNS[1], "-m", "AP", "--digits", "6"], capsys)
    rows = [ln.split("\t") for ln in out.splitlines()]
    assert [r[:2] for r in rows] == [[RUNS[0], "AP"], [RUNS[1], "AP"]]
    assert all(len(r[2].split(".")[1]) == 6 for r in rows)
    assert float(rows[1][2]) == pytest.approx(te["value"].iloc[0], abs=5e-5)


def test_eval_float64_ranking_equals_trec_eval_10(real, capsys):
    d, qrels = real
    f = d / RUNS[2]
    _compare(ours(capsys, "--qrels", qrels, f, *OUR_ARGS, "-q", "-c", "--precision", "float64"),
             trec_eval(TREC_EVAL_10, qrels, f, "-c", "-q", *TE_ARGS), RUNS[2])


# ---- errors -------------------------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d4 1 1.0 r\n")
    return tmp_path


def test_a_run_matching_no_qrels_topic_is_an_error(tiny, capsys):
    """Issue 12 #5: topic ids "T1", "T2" (the qrels have 1, 2) scored 0.0000 with exit 0."""
    (tiny / "t.txt").write_text("T1 Q0 d1 1 2.0 r\nT2 Q0 d4 1 1.0 r\n")
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "t.txt", "-m", "AP"], capsys)
    assert rc == 2 and out == ""
    assert err.startswith(f"irrepro eval: {tiny / 't.txt'}: run 'r' matches no topic of the qrels: "
                          "its topics are 'T1', 'T2'; the qrels' are '1', '2'")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--digits", "-1"], "argument --digits: must be an integer >= 0, got -1"),
        (["-M", "0"], "argument -M/--depth: must be an integer >= 1, got 0"),
        (["-l", "x"], "argument -l/--rel: must be an integer, got 'x'"),
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["-m", "NOPE"], "irrepro eval: unknown measure 'NOPE'"),
    ],
)
def test_eval_bad_options_exit_2_naming_the_option(tiny, capsys, args, message):
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP", *args], capsys)
    assert rc == 2 and out == "" and message in err and "Traceback" not in err


def test_eval_bad_files_name_file_line_and_problem(tiny, capsys):
    (tiny / "bad.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 high r\n")
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "bad.txt", "-m", "AP"], capsys)
    assert rc == 2 and f"{tiny / 'bad.txt'}, line 2: score 'high' is not a finite number" in err
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "nope.txt", "-m", "AP"], capsys)
    assert rc == 2 and f"{tiny / 'nope.txt'}: run file or directory not found" in err
    rc, _, err = run_cli(["eval", "--qrels", tiny / "no-qrels.txt", tiny / "run.txt", "-m", "AP"], capsys)
    assert rc == 2 and "no-qrels.txt" in err and "is neither a file nor an ir_datasets id" in err


def test_os_errors_print_the_file_name(tiny, capsys, monkeypatch):
    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", "/data/runs/r1.gz")

    monkeypatch.setattr(report, "load", denied)
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"], capsys)
    assert rc == 2 and err == "irrepro eval: /data/runs/r1.gz: Permission denied\n"


def test_ctrl_c_prints_interrupted_and_exits_130(tiny, capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "load", interrupted)
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"], capsys)
    assert rc == 130 and "irrepro: interrupted" in err and "Traceback" not in err


def test_ctrl_c_in_a_running_report(tmp_path):
    """A real SIGINT to `irrepro report` busy in its analyses (two worker threads)."""
    rs = data.simulate.runs(12, 40, list_length=200, seed=1)
    data.simulate.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    env = dict(os.environ, IRREPRO_SCALE="paper", IRREPRO_JOBS="2")
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "irrepro.cli", "report", str(tmp_path / "runs"), "--qrels",
             str(tmp_path / "qrels.txt"), "--out", str(tmp_path / "out")],
            stderr=err_file, stdout=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        try:
            deadline = time.time() + 120
            while time.time() < deadline and proc.poll() is None:  # until the analyses run
                time.sleep(0.3)
                if "corpus bootstrap" in log.read_text():
                    break
            assert proc.poll() is None, "the report finished before it could be interrupted"
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=120)
        finally:
            proc.kill()
    err = log.read_text()
    assert proc.returncode == 130
    assert "irrepro: interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_irrepro_jobs_is_checked_before_the_work(tiny, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("IRREPRO_JOBS", "abc")
    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    rc, _, err = run_cli(["report", tiny, "--qrels", tiny / "qrels.txt", "--out", tmp_path / "o", "-q"], capsys)
    assert rc == 2 and "IRREPRO_JOBS must be an integer" in err and "'abc'" in err
    rc, _, err = run_cli(["report", tiny, "--qrels", tiny / "qrels.txt", "--seed", "1.7", "-q"], capsys)
    assert rc == 2 and "argument --seed: must be an integer, got '1.7'" in err
    rc, _, err = run_cli(["report", tiny, "--qrels", tiny / "qrels.txt", "-j", "0", "-q"], capsys)
    assert rc == 2 and "argument -j/--jobs" in err


# ---- real data or a clear error ---------------------------------------------------------------


@pytest.fixture
def cached_stand_in(monkeypatch):
    """The data layer builds the stand-in's qrels from its whole simulated run set (~15 s): once."""
    import functools

    monkeypatch.setattr(data.simulate, "runs", functools.lru_cache(maxsize=None)(data.simulate.runs))


def test_eval_refuses_simulated_qrels_unless_allowed(isolated_data, cached_stand_in, tiny, capsys):
    """Issue 12 #1: offline, no mirror, empty cache: `--qrels trec-covid-round5` scored every run
    0.0000 against the simulated stand-in, with exit 0."""
    with pytest.warns(data.SimulatedDataWarning):  # the stand-in, to build runs from
        q = data.load_qrels("trec-covid-round5", allow_simulated=True)
    t = q.table[q.table["topic"] == "1"].head(30)
    (tiny / "sim.txt").write_text("".join(f"1 Q0 {d} {i + 1} {30 - i} sim\n" for i, d in enumerate(t["doc"])))
    args = ["eval", "--qrels", "trec-covid-round5", tiny / "sim.txt", "-m", "AP"]
    rc, out, err = run_cli(args, capsys)
    assert rc == 2 and out == ""
    assert "ir_datasets/cord19/trec-covid/round5/qrels: not found" in err and "IRREPRO_MIRROR" in err
    assert "--allow-simulated" in err
    rc, out, err = run_cli([*args, "--allow-simulated"], capsys)
    assert rc == 0
    first, *rest = out.splitlines()
    assert first.startswith("# SIMULATED DATA: the qrels 'trec-covid-round5' are irrepro's simulated stand-in")
    assert rest[0].startswith("sim\tAP\t") and float(rest[0].split("\t")[2]) > 0
    assert "SIMULATED DATA" in err
    rc, out, _ = run_cli([*args, "--allow-simulated", "--format", "json"], capsys)
    doc = json.loads(out)
    assert list(doc)[0] == "warning" and "SIMULATED" in doc["warning"] and doc["simulated"] is True
    # an ir_datasets id (no stand-in): the same clear error, and no suggestion of a stand-in
    rc, _, err = run_cli(["eval", "--qrels", "cord19/trec-covid/round5", tiny / "sim.txt", "-m", "AP"], capsys)
    assert rc == 2 and "not found" in err and "--allow-simulated" not in err


def test_help_names_both_averages(capsys):
    rc, out, _ = run_cli(["eval", "--help"], capsys)
    assert rc == 0
    text = " ".join(out.split())
    assert "trec_eval -c" in text and "--average run-topics" in text and "WITHOUT -c" in text
    for flag in ("-q", "-M DEPTH", "-l LEVEL", "--format", "--precision", "--allow-simulated"):
        assert flag in text
