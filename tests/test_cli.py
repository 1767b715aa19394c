"""``irrepro eval`` and the command line's errors.

Numbers are checked against pytrec_eval (trec_eval 9's code, which ranks by float32 as irrepro does
by default) and, byte for byte, against the output of trec_eval binaries where ``TREC_EVAL`` /
``TREC_EVAL_9`` name them (9.0.8 - unlike 10.0 - averages over the run's own topics without
crashing when a run lacks a qrels topic); errors are checked for the file, the line and the
problem they name, and for exit status 2 (130 for Ctrl-C).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from _reference import pytrec_eval_frame
from irrepro import data, report
from irrepro.cli import main as cli_main

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here

QRELS = Path("ir_datasets/cord19/trec-covid/round5/qrels")  # inside the mirror
RUNS = ["BRPHJ_BM25", "CSIROmedFR", "uogTrDPH_QE_RF"]  # file name = run tag
TE_ARGS = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "bpref", "-m", "Rprec"]
OUR_ARGS = ["-m", "AP", "-m", "P@10", "-m", "nDCG@10", "-m", "RR", "-m", "bpref", "-m", "Rprec"]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Three real round-5 runs as plain text, and a fourth derived from the first that lacks
    topics 3 and 7 and has a topic (999) the qrels lack; the qrels file of the mirror."""
    m = data.mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    d = tmp_path_factory.mktemp("runs")
    for r in RUNS:
        with gzip.open(m / "trec-covid" / "round5" / "runs" / f"{r}.gz", "rt") as f:
            (d / r).write_text(f.read())
    lines = (d / RUNS[0]).read_text().splitlines()
    kept = [ln.replace(RUNS[0], "gappy") for ln in lines if ln.split()[0] not in ("3", "7")]
    extra = [f"999 Q0 doc{i} {i + 1} {10 - i} gappy" for i in range(5)]
    (d / "gappy").write_text("\n".join(kept + extra) + "\n")
    return d, m / QRELS


def trec_eval_text(binary, qrels, files, *args) -> str:
    """What trec_eval prints for each run file, run after run (``-m runid`` names the run)."""
    return "".join(
        subprocess.run([str(binary), "-m", "runid", *args, str(qrels), str(f)], capture_output=True,
                       text=True, check=True).stdout
        for f in files
    )  # fmt: skip


def ours(run_cli, *args) -> pd.DataFrame:
    rc, out, _ = run_cli(["eval", *args, "--format", "csv"])
    assert rc == 0
    return pd.read_csv(io.StringIO(out), dtype={"query_id": str})


@pytest.mark.realdata
@pytest.mark.parametrize(
    "ours_args, te_args, gappy",
    [
        (
            ["-c", "-q", "-m", "gm_map", "-m", "gm_bpref"],
            ["-c", "-q", "-m", "gm_map", "-m", "gm_bpref"],
            False,
        ),
        (["-q", "--average", "run-topics"], ["-q"], True),  # trec_eval without -c: the run's own topics
        (["-c", "-m", "gm_map"], ["-c", "-m", "gm_map"], True),
        (["-c", "-q", "-M", "100"], ["-c", "-q", "-M", "100"], False),
        (
            ["-c", "-q", "-l", "2", "-m", "NumRel", "-m", "NumRelRet", "-m", "NumQ", "-m", "NumRet"],
            ["-c", "-q", "-l", "2", "-m", "num_rel", "-m", "num_rel_ret", "-m", "num_q", "-m", "num_ret"],
            False,
        ),
    ],
)
def test_trec_eval_format_is_trec_eval_9_byte_for_byte(real, run_cli, ours_args, te_args, gappy, trec_eval_9):
    """--format trec_eval prints what trec_eval 9.0.8 (ranking by float, as irrepro by default)
    prints for the same job, run after run: names, order, topics, number format; the two
    averages, -M and -l included. (9.0.8 -c -q prints no line for a topic the run lacks, 10 does,
    and irrepro as 10: that case is the next test's.)"""
    d, qrels = real
    files = [d / r for r in [*RUNS, *(["gappy"] if gappy else [])]]
    rc, out, _ = run_cli(["eval", "--qrels", qrels, *files, *OUR_ARGS, *ours_args, "--format", "trec_eval"])
    assert rc == 0
    ref = trec_eval_text(trec_eval_9, qrels, files, *TE_ARGS, *te_args)
    if "-l" in te_args:  # trec_eval -c's num_rel summary counts grade > 0 whatever -l says (its bug)
        ref_lines, out_lines = ref.splitlines(), out.splitlines()
        bad = [i for i, ln in enumerate(ref_lines) if ln.startswith("num_rel ") and "\tall\t" in ln]
        assert len(bad) == len(files)
        for i in bad:
            assert out_lines[i].split("\t")[:2] == ref_lines[i].split("\t")[:2]
            assert int(out_lines[i].split("\t")[2]) < int(ref_lines[i].split("\t")[2])
            out_lines[i] = ref_lines[i]
        out, ref = "\n".join(out_lines), "\n".join(ref_lines)
    assert out == ref


@pytest.mark.realdata
def test_trec_eval_format_float64_is_trec_eval_10(real, run_cli, trec_eval_10):
    """--precision float64 ranks by double, as trec_eval 10 does: its output, byte for byte, with
    -c -q on a run that lacks two qrels topics (scored 0, one line each) and has one the qrels lack."""
    d, qrels = real
    files = [d / r for r in [*RUNS, "gappy"]]
    rc, out, _ = run_cli(["eval", "--qrels", qrels, *files, *OUR_ARGS, "-m", "gm_map", "-m", "NumRet",
                          "-q", "-c", "--precision", "float64", "--format", "trec_eval"])  # fmt: skip
    assert rc == 0
    ref = trec_eval_text(trec_eval_10, qrels, files, *TE_ARGS, "-m", "gm_map", "-m", "num_ret", "-q", "-c")
    assert "num_ret               \t3\t0\n" in ref
    assert out == ref
    # rbp alone: trec_eval 10's m_rbp.c reads its min and max gain uninitialised, so that beside
    # another measure (ndcg_cut, for one) it prints other values
    rc, out, _ = run_cli(["eval", "--qrels", qrels, *files, "-m", "RBP(p=0.5)", "-q", "-c",
                          "--precision", "float64", "--format", "trec_eval"])  # fmt: skip
    assert out == trec_eval_text(trec_eval_10, qrels, files, "-m", "rbp.p=0.5", "-q", "-c")


@pytest.mark.realdata
def test_eval_tsv_and_csv_carry_trec_eval_numbers(real, run_cli):
    """The default tsv and csv: irrepro's measure names, trec_eval's numbers (pytrec_eval's, to
    every digit of the csv), per-topic rows (-q) then each run's 'all' row; the two averages differ
    exactly where a run misses topics."""
    d, qrels = real
    files = [d / r for r in [*RUNS, "gappy"]]
    c = ours(run_cli, "--qrels", qrels, *files, *OUR_ARGS, "-q", "-c")
    own = ours(run_cli, "--qrels", qrels, *files, *OUR_ARGS, "-q", "--average", "run-topics")
    names = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "bpref": "Bpref",
             "Rprec": "Rprec"}  # fmt: skip
    for f in files:
        for mine, complete in ((c, True), (own, False)):
            ref = pytrec_eval_frame(qrels, f, names, complete=complete)
            ref["measure"] = ref["measure"].map(names)
            got = mine[mine["run"] == f.name].set_index(["query_id", "measure"])["value"]
            ref = ref.set_index(["query_id", "measure"])["value"]
            # -c lists the topics a run lacks, at 0 (as trec_eval 10 -c -q; 9.0.8 omits them)
            assert set(got.index) == set(ref.index)
            missing = {"3", "7"} if complete and f.name == "gappy" else set()
            assert (got.loc[sorted(missing)] == 0).all()
            assert (got.reindex(ref.index) - ref).abs().max() <= 1e-12
        assert mine["query_id"].tolist()[-6:] == ["all"] * 6
    a = c[(c.query_id == "all") & (c.measure == "AP")].set_index("run")["value"]
    b = own[(own.query_id == "all") & (own.measure == "AP")].set_index("run")["value"]
    assert a["gappy"] < b["gappy"] and (a.drop("gappy") == b.drop("gappy")).all()
    assert set(c[(c.run == "gappy") & (c.measure == "AP")].query_id) >= {"3", "7"}
    assert not set(own[(own.run == "gappy")].query_id) & {"3", "7", "999"}


@pytest.mark.realdata
def test_eval_coverage_is_reported_per_run(real, run_cli):
    d, qrels = real
    rc, out, err = run_cli(["eval", "--qrels", qrels, d / "gappy", d / RUNS[1], "-m", "AP"])
    assert rc == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1  # only the run whose topics differ from the qrels'
    assert lines[0] == (
        "irrepro eval: run gappy: 48 of the 50 qrels topics retrieved; 2 missing, scored 0 "
        "(trec_eval -c): 3, 7; 1 run topics not in the qrels, ignored: 999"
    )
    rc, _, err = run_cli(["eval", "--qrels", qrels, d / "gappy", "-m", "AP", "--average", "run-topics"])
    assert "2 missing, left out of its average: 3, 7" in err


@pytest.mark.realdata
def test_eval_json_and_tsv(real, run_cli):
    d, qrels = real
    rc, out, _ = run_cli(
        ["eval", "--qrels", qrels, d / RUNS[0], d / RUNS[1], "-m", "AP", "-m", "P@10", "--format", "json"],
    )
    doc = json.loads(out)
    assert doc["simulated"] is False and doc["average"] == "all-topics" and "warning" not in doc
    te = pytrec_eval_frame(qrels, d / RUNS[1], ["map"]).query("query_id == 'all'")
    got = [r["value"] for r in doc["scores"] if r["run"] == RUNS[1] and r["measure"] == "AP"]
    assert got == pytest.approx([te["value"].iloc[0]], abs=1e-12)
    rc, out, _ = run_cli(["eval", "--qrels", qrels, d / RUNS[0], d / RUNS[1], "-m", "AP", "--digits", "6"])
    rows = [ln.split("\t") for ln in out.splitlines()]
    assert [r[:2] for r in rows] == [[RUNS[0], "AP"], [RUNS[1], "AP"]]
    assert all(len(r[2].split(".")[1]) == 6 for r in rows)
    assert float(rows[1][2]) == pytest.approx(te["value"].iloc[0], abs=5e-5)


def _strict_json(text: str):
    """``text`` read by a strict JSON parser: a bare NaN or Infinity (not JSON) is an error."""

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_eval_json_is_strict_an_undefined_value_null_with_its_reason():
    """A run's average over the topics it retrieved for, when it retrieved for none (trec_eval's
    plain average; only through the API, the command refuses such a run): null and the reason,
    where the JSON held a bare NaN."""
    import numpy as np

    from irrepro.cli._eval import write_scores
    from irrepro.data import ScoreMatrix
    from irrepro.measures.evaluation import _rows

    sm = ScoreMatrix(np.array([[0.5, 0.25], [0.0, 0.0]]), ("a", "b"), ("1", "2"), "AP")
    rows = list(
        _rows(sm, per_topic=False, complete=False, retrieved=np.array([[True, True], [False, False]]))
    )
    out = io.StringIO()
    write_scores(rows, "json", 4, out)
    doc = _strict_json(out.getvalue())
    assert doc["scores"] == [
        {"run": "a", "query_id": "all", "measure": "AP", "value": (0.5 + 0.25) / 2},
        {"run": "b", "query_id": "all", "measure": "AP", "value": None, "reason": "no topic to average over"},
    ]


# ---- errors -------------------------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d4 1 1.0 r\n")
    return tmp_path


def test_a_run_matching_no_qrels_topic_is_an_error(tiny, run_cli):
    """Issue 12 #5: topic ids "T1", "T2" (the qrels have 1, 2) scored 0.0000 with exit 0."""
    (tiny / "t.txt").write_text("T1 Q0 d1 1 2.0 r\nT2 Q0 d4 1 1.0 r\n")
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "t.txt", "-m", "AP"])
    assert rc == 2 and out == ""
    assert err.startswith(
        f"irrepro eval: {tiny / 't.txt'}: run 'r' matches no topic of the qrels: "
        "its topics are 'T1', 'T2'; the qrels' are '1', '2'"
    )


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
def test_eval_bad_options_exit_2_naming_the_option(tiny, run_cli, args, message):
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP", *args])
    assert rc == 2 and out == "" and message in err and "Traceback" not in err


def test_eval_bad_files_name_file_line_and_problem(tiny, run_cli):
    (tiny / "bad.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 high r\n")
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "bad.txt", "-m", "AP"])
    assert rc == 2 and f"{tiny / 'bad.txt'}, line 2: score 'high' is not a finite number" in err
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "nope.txt", "-m", "AP"])
    assert rc == 2 and f"{tiny / 'nope.txt'}: run file or directory not found" in err
    rc, _, err = run_cli(["eval", "--qrels", tiny / "no-qrels.txt", tiny / "run.txt", "-m", "AP"])
    assert rc == 2 and "no-qrels.txt" in err and "is neither a file nor an ir_datasets id" in err


def test_os_errors_print_the_file_name(tiny, run_cli, monkeypatch):
    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", "/data/runs/r1.gz")

    monkeypatch.setattr(data, "load_runs", denied)
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"])
    assert rc == 2 and err == "irrepro eval: /data/runs/r1.gz: Permission denied\n"


def test_ctrl_c_prints_interrupted_and_exits_130(tiny, run_cli, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(data, "load_runs", interrupted)
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"])
    assert rc == 130 and "irrepro: interrupted" in err and "Traceback" not in err


def test_ctrl_c_wrapped_by_a_library_is_still_an_interrupt(tiny, run_cli, monkeypatch):
    """The audit of issue 12 #7: Ctrl-C while matplotlib was being imported came out as its
    RuntimeError (the KeyboardInterrupt as its cause) with a traceback."""

    def wrapped(*a, **k):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on '_axis_method_wrapper'") from exc

    monkeypatch.setattr(data, "load_runs", wrapped)
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"])
    assert rc == 130 and "irrepro: interrupted" in err and "Traceback" not in err

    def broken(*a, **k):
        raise RuntimeError("a bug, not an interrupt")

    monkeypatch.setattr(data, "load_runs", broken)
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"])
    assert rc == 1 and "Traceback" in err and "RuntimeError: a bug" in err  # a real bug shows its traceback


def test_warnings_are_one_line_without_python_source(tiny):
    """The audit of issue 12 #7: a repaired cache file was announced by Python's raw UserWarning
    with the source line that raised it. The command line prints one line of its own."""
    code = (
        "import warnings\nimport irrepro.data as d\norig = d.load_runs\n"
        "def load_runs(*a, **k):\n    warnings.warn('cached file x does not match its sha256; replacing it')\n"
        "    return orig(*a, **k)\n"
        "d.load_runs = load_runs\nfrom irrepro.cli import main\n"
        f"raise SystemExit(main(['eval', '--qrels', {str(tiny / 'qrels.txt')!r}, {str(tiny / 'run.txt')!r}, '-m', 'AP']))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr == "irrepro: warning: cached file x does not match its sha256; replacing it\n"


def test_ctrl_c_in_a_running_report(tmp_path):
    """A real SIGINT to `irrepro report` busy in its analyses (two worker threads). The child gets
    SIGINT's default disposition: a test run started in the background by a shell without job
    control (nohup, `cmd &` in a script) ignores SIGINT, which a child would inherit (a handled
    signal is reset to its default in the child)."""
    rs = data.synthetic.runs(12, 40, list_length=200, seed=1)
    data.synthetic.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    env = dict(os.environ, IRREPRO_SCALE="paper", IRREPRO_JOBS="2")
    log = tmp_path / "stderr.txt"
    parent_sigint = signal.signal(signal.SIGINT, signal.default_int_handler)
    with open(log, "w") as err_file:
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "irrepro.cli", "report", str(tmp_path / "runs"), "--qrels",
                 str(tmp_path / "qrels.txt"), "--out", str(tmp_path / "out")],
                stderr=err_file, stdout=subprocess.DEVNULL, env=env,
            )  # fmt: skip
        finally:
            signal.signal(signal.SIGINT, parent_sigint)
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


def test_irrepro_jobs_is_checked_before_the_work(tiny, run_cli, monkeypatch, tmp_path):
    monkeypatch.setenv("IRREPRO_JOBS", "abc")
    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    rc, _, err = run_cli(["report", tiny, "--qrels", tiny / "qrels.txt", "--out", tmp_path / "o", "-q"])
    assert rc == 2 and "IRREPRO_JOBS must be an integer" in err and "'abc'" in err
    rc, _, err = run_cli(["report", tiny, "--qrels", tiny / "qrels.txt", "--seed", "1.7", "-q"])
    assert rc == 2 and "argument --seed: must be an integer, got '1.7'" in err
    rc, _, err = run_cli(["report", tiny, "--qrels", tiny / "qrels.txt", "-j", "0", "-q"])
    assert rc == 2 and "argument -j/--jobs" in err


def test_report_runs_on_every_core_by_default_with_the_numbers_of_one(run_cli, monkeypatch, tmp_path):
    """Without -j and IRREPRO_JOBS, ``irrepro report`` runs on all cores (``os.cpu_count()``, made
    3 here so that the default differs from 1 on any machine); every file it writes but the page
    (which shows the timings) and the manifest (which lists the page's size) is byte for byte
    that of -j 1. ``compare`` keeps 1."""
    monkeypatch.delenv("IRREPRO_JOBS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    data.synthetic.write_trec(data.synthetic.runs(4, 8, list_length=30, seed=5), tmp_path / "runs",
                             gzip=True, qrels=tmp_path / "qrels.txt")  # fmt: skip
    seen = []
    analyse = report._analyse
    monkeypatch.setattr(report, "_analyse", lambda *a, **k: seen.append(k["n_jobs"]) or analyse(*a, **k))
    common = ["report", tmp_path / "runs", "--qrels", tmp_path / "qrels.txt", "--scale", "quick", "-q"]
    assert run_cli([*common, "--out", tmp_path / "default"])[0] == 0
    assert run_cli([*common, "--out", tmp_path / "one", "-j", "1"])[0] == 0
    assert seen == [3, 1]
    files = sorted(
        p.name for p in (tmp_path / "one").iterdir() if p.name not in ("index.html", ".irrepro-report")
    )
    assert "pairs.csv" in files and "methods.tex" in files
    for name in files:
        assert (tmp_path / "default" / name).read_bytes() == (tmp_path / "one" / name).read_bytes(), name
    rc, out, _ = run_cli(["report", "--help"])
    assert rc == 0 and "default IRREPRO_JOBS or -1, all cores" in " ".join(out.split())


# ---- real data or a clear error ---------------------------------------------------------------


@pytest.mark.slow
def test_eval_refuses_simulated_qrels_unless_allowed(isolated_data, cached_stand_in, tiny, run_cli):
    """Issue 12 #1: offline, no mirror, empty cache: `--qrels trec-covid-round5` scored every run
    0.0000 against the simulated stand-in, with exit 0."""
    with pytest.warns(data.SimulatedDataWarning):  # the stand-in, to build runs from
        q = data.load_qrels("trec-covid-round5", allow_simulated=True)
    t = q.table[q.table["topic"] == "1"].head(30)
    (tiny / "sim.txt").write_text("".join(f"1 Q0 {d} {i + 1} {30 - i} sim\n" for i, d in enumerate(t["doc"])))
    args = ["eval", "--qrels", "trec-covid-round5", tiny / "sim.txt", "-m", "AP"]
    rc, out, err = run_cli(args)
    assert rc == 2 and out == ""
    assert "ir_datasets/cord19/trec-covid/round5/qrels: not found" in err and "IRREPRO_MIRROR" in err
    assert "--allow-simulated" in err
    rc, out, err = run_cli([*args, "--allow-simulated"])
    assert rc == 0
    first, *rest = out.splitlines()
    assert first.startswith(
        "# SIMULATED DATA: the qrels 'trec-covid-round5' are irrepro's simulated stand-in"
    )
    assert rest[0].startswith("sim\tAP\t") and float(rest[0].split("\t")[2]) > 0
    assert "SIMULATED DATA" in err
    rc, out, _ = run_cli([*args, "--allow-simulated", "--format", "json"])
    doc = json.loads(out)
    assert list(doc)[0] == "warning" and "SIMULATED" in doc["warning"] and doc["simulated"] is True
    # an ir_datasets id (no stand-in): the same clear error, and no suggestion of a stand-in
    rc, _, err = run_cli(["eval", "--qrels", "cord19/trec-covid/round5", tiny / "sim.txt", "-m", "AP"])
    assert rc == 2 and "not found" in err and "--allow-simulated" not in err


def test_help_names_both_averages(run_cli):
    rc, out, _ = run_cli(["eval", "--help"])
    assert rc == 0
    text = " ".join(out.split())
    assert "trec_eval -c" in text and "--average run-topics" in text and "WITHOUT -c" in text
    for flag in ("-q", "-M DEPTH", "-l LEVEL", "--format", "--precision", "--allow-simulated"):
        assert flag in text


def test_eval_geometric_means(tiny, run_cli):
    """-a gm adds trec_eval's gm_ (gm_map for AP, named so), -a G Sakai's G_; beside the mean,
    each checked against a literal formula over the qrels' topics (a missing topic is 0)."""
    import math

    rc, out, _ = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP", "-m", "P@1",
                          "-q", "-a", "gm", "-a", "G", "--format", "csv"])  # fmt: skip
    assert rc == 0
    rows = pd.read_csv(io.StringIO(out), dtype={"query_id": str})
    per = rows[rows.query_id != "all"].set_index(["query_id", "measure"])["value"]
    assert set(per.index.get_level_values(1)) == {"AP", "P@1"}  # no per-topic line of a geometric mean
    summ = rows[rows.query_id == "all"].set_index("measure")["value"]
    assert list(summ.index) == ["AP", "gm_map", "G_AP", "P@1", "gm_P@1", "G_P@1"]
    for m in ("AP", "P@1"):
        x = [per[t, m] for t in ("1", "2")]
        assert summ[m] == pytest.approx(sum(x) / 2, abs=1e-15)
        assert summ[f"gm_{'map' if m == 'AP' else m}"] == pytest.approx(
            math.exp(sum(math.log(max(v, 1e-5)) for v in x) / 2), abs=1e-15
        )
        assert summ[f"G_{m}"] == pytest.approx(math.exp(sum(math.log(v + 1e-5) for v in x) / 2), abs=1e-15)
    rc, _, err = run_cli(
        ["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "NumRet", "-a", "gm"]
    )
    assert rc == 2 and "a geometric mean of a count (NumRet) is not offered" in err


@pytest.mark.parametrize("fmt", ["tsv", "csv", "trec_eval", "json"])
def test_eval_sakai_geometric_mean_of_a_measure_that_can_be_negative_is_refused(tiny, run_cli, fmt):
    """``-m utility -a G``: Sakai's G_ is log(x + 0.00001) of scores that can be negative; refused
    (exit 2, nothing printed) naming trec_eval's gm_, which stays defined (it printed G_utility nan,
    and the JSON's reason "no topic to average over"); with no negative weight it is computed."""
    base = ["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "--format", fmt]
    rc, out, err = run_cli([*base, "-m", "utility", "-a", "G"])
    assert rc == 2 and out == ""
    assert err.startswith("irrepro eval: -m utility -a G: measure 'G_utility': Sakai's G_ is exp(mean(log(x + "
                          "0.00001))), undefined for a score below -0.00001, and utility can be negative")  # fmt: skip
    assert "trec_eval's gm_, which takes max(x, 0.00001), stays defined: gm_utility" in err
    for measure, agg in (("utility", "gm"), ("utility(nonrel_ret=0)", "G")):
        rc, out, err = run_cli([*base, "-m", measure, "-a", agg])
        assert rc == 0 and f"{agg}_utility" in out and "nan" not in out.lower() and "reason" not in out


@pytest.mark.parametrize(("measure", "agg", "whose", "per_topic"),
                         [("gm_map", "gm", "trec_eval's", "AP"), ("gm_map", "G", "trec_eval's", "AP"),
                          ("gm_bpref", "G", "trec_eval's", "Bpref"), ("G_P@1", "gm", "Sakai's", "P@1")])  # fmt: skip
def test_eval_a_geometric_mean_of_a_geometric_mean_says_it_is_one(
    tiny, run_cli, measure, agg, whose, per_topic
):
    """``-m gm_map -a gm`` (or ``-a G``): the measure is already a geometric mean - not "unknown
    measure 'gm_gm_map'" - and the per-topic measure to give instead."""
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", measure, "-a", agg])  # fmt: skip
    assert rc == 2 and out == ""
    assert err == (f"irrepro eval: -m {measure} -a {agg}: {measure} is already a geometric mean over topics "
                   f"({whose}); -a {agg} adds one to a per-topic measure: -m {per_topic} -a {agg}\n")  # fmt: skip


def test_an_unusable_cache_is_named_not_blamed_on_missing_data(isolated_data, tiny, run_cli, monkeypatch):
    """IRREPRO_CACHE naming a file: the message says so (exit 2), and offers no simulated
    stand-in; a qrels file needs no cache at all."""
    (tiny / "afile").write_text("x")
    monkeypatch.setenv("IRREPRO_CACHE", str(tiny / "afile"))
    rc, out, err = run_cli(["eval", "--qrels", "trec-covid-round5", tiny / "run.txt", "-m", "AP"])
    assert rc == 2 and out == ""
    assert err == f"irrepro eval: IRREPRO_CACHE={tiny / 'afile'} is a file, not a directory\n"
    rc, out, _ = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP"])
    assert rc == 0 and out.startswith("r\tAP\t")


@pytest.mark.parametrize("env", [None, "jemalloc"])
def test_the_command_reads_on_the_system_allocator_unless_told(tiny, env):
    """The command's own process (``main()`` without arguments) runs pyarrow on the C library's
    allocator, whose freed memory the report hands back between its steps (mimalloc, pyarrow's
    default, kept ~60 MB of reading 126 runs); a pool the user names wins."""
    code = ("import sys; sys.argv = ['irrepro', 'eval', '--qrels', sys.argv[1], sys.argv[2], '-m', 'AP', '-q']; "
            "from irrepro.cli import main; rc = main(); import pyarrow; "
            "print(rc, pyarrow.default_memory_pool().backend_name)")  # fmt: skip
    environ = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if env is not None:
        environ["ARROW_DEFAULT_MEMORY_POOL"] = env
    out = subprocess.run([sys.executable, "-c", code, str(tiny / "qrels.txt"), str(tiny / "run.txt")],
                         capture_output=True, text=True, check=True, env=environ).stdout  # fmt: skip
    assert out.splitlines()[-1] == f"0 {env or 'system'}"


def test_eval_imports_only_what_it_needs(tiny):
    """The eval path (its time is mostly imports on small jobs) loads neither pandas nor the
    report's libraries: a fresh process, its modules listed after a run."""
    code = ("import sys; from irrepro.cli import main; "
            f"rc = main(['eval', '--qrels', {str(tiny / 'qrels.txt')!r}, {str(tiny / 'run.txt')!r}, '-m', 'AP', "
            "'-m', 'nDCG@10', '-q', '--format', 'trec_eval']); "
            "print(rc, sorted({m.split('.')[0] for m in sys.modules} | {m for m in sys.modules if m.startswith('irrepro')}))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    rc, mods = out.splitlines()[-1].split(" ", 1)
    assert rc == "0"
    for heavy in (
        "pandas",
        "scipy",
        "matplotlib",
        "statsmodels",
        "jinja2",
        "tqdm",
        "ir_datasets",
        "irrepro.report",
        "irrepro.stats",
        "irrepro.sensitivity",
    ):
        assert f"'{heavy}'" not in mods, heavy


@pytest.mark.parametrize(
    "command",
    [
        ["eval"],
        ["compare"],
        ["report"],
        ["design"],
        ["standardize"],
        ["reproduce"],
        ["data"],
        ["data", "fetch"],
    ],
)
def test_the_help_texts_fit_a_terminal(command, capsys, monkeypatch):
    """Every line of a command's --help fits 100 columns (the descriptions are written pre-wrapped;
    argparse's usage line of a choice list is the exception it cannot break)."""
    monkeypatch.setenv("COLUMNS", "80")
    assert cli_main([*command, "--help"]) == 0
    long = [line for line in capsys.readouterr().out.splitlines() if len(line) > 100 and "{" not in line]
    assert not long, long


# ---- output that cannot be written ---------------------------------------------------------


@pytest.fixture(scope="module")
def printing(tmp_path_factory):
    """Three simulated runs on 12 topics and their qrels, and the command line of every command
    that prints (a new --out per call)."""
    d = tmp_path_factory.mktemp("printing")
    rs = data.synthetic.runs(3, 12, list_length=30, seed=4)
    files = sorted(data.synthetic.write_trec(rs, d / "runs", qrels=d / "qrels.txt"))
    q, runs = str(d / "qrels.txt"), str(d / "runs")

    def command(name: str, out: Path) -> list[str]:
        return {
            "eval": ["eval", "--qrels", q, runs, "-m", "AP", "-q"],
            "compare": ["compare", "--qrels", q, runs, "-m", "AP"],
            "design": ["design", "--qrels", q, runs, "-m", "AP", "--min-diff", "0.1", "--out", str(out)],
            "standardize": ["standardize", "--qrels", q, runs, "-m", "AP", "--export-zscores", str(out)],
            "reproduce": ["reproduce", *map(str, files[:3]), str(files[0]), "--qrels", q, "-m", "AP",
                          "--resamples", "100"],
            "report": ["report", runs, "--qrels", q, "--out", str(out), "--scale", "quick", "-q"],
            "help": ["eval", "--help"],
        }[name]  # fmt: skip

    return command


COMMANDS = ["eval", "compare", "design", "standardize", "reproduce", "report", "help"]


def _printing_into(stdout, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "irrepro.cli", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=600)  # fmt: skip


def _one_line(res: subprocess.CompletedProcess, command: str, errno_: int) -> None:
    """Exit 1 and one line on stderr naming the command and the system's reason: no traceback,
    no "Exception ignored" of the interpreter's exit."""
    assert res.returncode == 1, res.stderr
    assert res.stderr == f"irrepro {command}: cannot write the output: {os.strerror(errno_)}\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("name", COMMANDS)
def test_a_full_stdout_is_one_line_and_exit_1(printing, tmp_path, name):
    """`irrepro eval ... > /dev/full`: every write fails with ENOSPC (the audit: a traceback)."""
    import errno

    with open("/dev/full", "w") as full:
        res = _printing_into(full, printing(name, tmp_path / "out"))
    _one_line(res, "eval" if name == "help" else name, errno.ENOSPC)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_pipe_closed_by_its_reader_is_one_line_and_exit_1(printing, tmp_path, name):
    """`irrepro eval ... | head -0`: the reader closed the pipe before anything was written (the
    audit: killed by SIGPIPE, exit 141 in a shell, nothing said)."""
    import errno

    read, write = os.pipe()
    os.close(read)
    try:
        res = _printing_into(write, printing(name, tmp_path / "out"))
    finally:
        os.close(write)
    _one_line(res, "eval" if name == "help" else name, errno.EPIPE)


def test_a_closed_stdout_is_one_line_and_exit_1(printing, tmp_path):
    """`irrepro eval ... >&-`: Python starts with no sys.stdout (the audit: a traceback)."""
    res = subprocess.run([sys.executable, "-m", "irrepro.cli", *printing("eval", tmp_path / "out")],
                         stderr=subprocess.PIPE, text=True, timeout=600, preexec_fn=lambda: os.close(1))  # fmt: skip
    assert res.returncode == 1
    assert res.stderr == "irrepro eval: cannot write the output: standard output is closed\n"


# ---- file names a terminal would act on ------------------------------------------------------

#: A name with a newline and a right-to-left override (U+202E), which a terminal shows as a line
#: break and as the text after it reversed.
ODD = "o\u202edd\nname"


def _shown(path) -> str:
    """``path`` as irrepro prints it: the newline and the override written as Python escapes."""
    return str(path).replace("\n", "\\n").replace("\u202e", "\\u202e")


def _visible(text: str) -> bool:
    """Whether ``text`` is lines holding no control or format character (Cc, Cf, Zl, Zp, Cs)."""
    import unicodedata

    return all(unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Cs") for c in text.replace("\n", ""))


def test_errors_name_odd_files_in_one_visible_line(tiny, run_cli):
    """The audit of issue 41 (D6): a run file named with a newline and U+202E gave a two-line error
    with the override raw; the qrels the same."""
    bad = tiny / f"bad{ODD}"
    bad.write_text("1 Q0 d1 1 abc r\n")
    rc, out, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", bad, "-m", "AP"])
    assert rc == 2 and out == ""
    assert err == f"irrepro eval: {tiny}/bado\\u202edd\\nname, line 1: score 'abc' is not a finite number\n"
    qrels = tiny / f"q{ODD}"
    qrels.write_text("1 0 d1\n")
    rc, out, err = run_cli(["eval", "--qrels", qrels, tiny / "run.txt", "-m", "AP"])
    assert rc == 2 and err.startswith(f"irrepro eval: {_shown(qrels)}, line 1: ") and err.count("\n") == 1
    assert _visible(err)


def test_argparse_errors_and_warnings_are_one_visible_line(tiny, run_cli):
    """argparse's message and a warning's (e.g. one naming an output file) hold the user's text as
    one line, control and format characters escaped."""
    from irrepro.cli import _format_warning

    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "run.txt", "-m", "AP", f"--x{ODD}"])  # fmt: skip
    assert rc == 2 and err.splitlines()[-1] == "irrepro: error: unrecognized arguments: --xo\\u202edd\\nname"
    said = _format_warning(f"{ODD}: written, but not recorded", UserWarning, "x.py", 1)
    assert said == "irrepro: warning: o\\u202edd\\nname: written, but not recorded\n"


def test_output_paths_are_printed_visibly(printing, tmp_path, run_cli, isolated_data, monkeypatch):
    """Every line naming an output - design's figure and table, standardize's z-score file (written
    and read), compare's methods file, data's cache - shows an odd name escaped, on one line."""
    d = tmp_path / f"d{ODD}"
    rc, out, err = run_cli(printing("design", d))
    assert rc == 0, err
    assert f"figure: {_shown(d)}/power-curve.png; table: {_shown(d)}/topics.csv\n" in out
    assert _visible(out + err)
    z = tmp_path / f"z{ODD}"
    rc, out, err = run_cli(printing("standardize", z))
    assert rc == 0 and f"runs) to {_shown(z)}\n" in out and _visible(out + err), err
    args = printing("standardize", z)
    i = args.index("--export-zscores")
    rc, out, err = run_cli([*args[:i], "--zscores", str(z), *args[i + 2 :]])
    assert rc == 0 and out.endswith(f"factors from {_shown(z)}\n") and _visible(out + err), err
    m = tmp_path / f"m{ODD}.md"
    rc, out, err = run_cli([*printing("compare", tmp_path), "--methods-file", m])
    assert rc == 0 and err == f"methods paragraph: {_shown(m)}\n" and _visible(out)
    cache = isolated_data / f"c{ODD}"
    monkeypatch.setenv("IRREPRO_CACHE", str(cache))
    rc, out, err = run_cli(["data", "status"])
    assert out.startswith(f"cache:  {_shown(cache)}\nmirror: ") and _visible(out + err)


@pytest.mark.parametrize("name", [f"z{ODD}", "it's a $file", "plain.z"])
def test_the_printed_trec_eval_command_names_the_z_score_file(printing, tmp_path, run_cli, bash_words, name):
    """`standardize --export-zscores FILE` prints trec_eval's command line: pasted into bash, its
    -Z argument is FILE, byte for byte (the audit: 'z\\nnl\\u202e' in single quotes, another file)."""
    z = tmp_path / name
    rc, out, err = run_cli(printing("standardize", z))
    assert rc == 0, err
    (command,) = [line.strip() for line in out.splitlines() if line.strip().startswith("trec_eval ")]
    words = bash_words(command)
    assert words[:3] == [b"trec_eval", b"-c", b"-Z"] and words[-2:] == [b"QRELS", b"RUN"]
    assert words[3] == os.fsencode(z) and z.is_file()


def test_trec_eval_runs_the_printed_command(printing, tmp_path, run_cli, trec_eval_10):
    """The printed command, run by bash with trec_eval 10, reads the odd-named file."""
    import shlex

    z = tmp_path / f"z{ODD}"
    args = printing("standardize", z)
    rc, out, err = run_cli(args)
    assert rc == 0, err
    (command,) = [line.strip() for line in out.splitlines() if line.strip().startswith("trec_eval ")]
    run = next(Path(args[args.index("--qrels") + 2]).iterdir())
    command = command.replace("trec_eval", shlex.quote(str(trec_eval_10)), 1).replace(
        "QRELS RUN", f"{shlex.quote(args[args.index('--qrels') + 1])} {shlex.quote(str(run))}"
    )
    res = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("Zmap"), res.stderr


@pytest.mark.slow
def test_report_names_odd_paths_visibly_and_quotes_them_in_its_command(
    printing, tmp_path, run_cli, bash_words
):
    """`irrepro report` prints its page's path escaped, and its ir_metadata's command quotes the
    qrels for bash (the command names the qrels file it read)."""
    import shutil

    import yaml

    args = printing("report", tmp_path / f"r{ODD}")
    qrels = tmp_path / f"q r{ODD}"
    shutil.copy(args[args.index("--qrels") + 1], qrels)
    args[args.index("--qrels") + 1] = str(qrels)
    rc, out, err = run_cli(args)
    assert rc == 0, err
    assert out == f"report: {_shown(tmp_path / f'r{ODD}')}/index.html\n"
    meta = yaml.safe_load((tmp_path / f"r{ODD}" / "ir_metadata.yml").read_text(encoding="utf-8"))
    words = bash_words(meta["implementation"]["executable"]["cmd"])
    assert words[words.index(b"--qrels") + 1] == os.fsencode(qrels)


# ---- a byte order mark ---------------------------------------------------------------------


def _bom_copies(printing, tmp_path) -> tuple[list[str], Path, Path, Path, Path]:
    """The eval command of the printing fixture's first run, and that run and its qrels with
    copies that start with a UTF-8 byte order mark."""
    args = printing("eval", tmp_path)
    qrels = Path(args[args.index("--qrels") + 1])
    run = sorted(Path(args[args.index("--qrels") + 2]).iterdir())[0]
    bom_run, bom_qrels = tmp_path / "bom-run", tmp_path / "bom-qrels"
    bom_run.write_bytes(b"\xef\xbb\xbf" + run.read_bytes())
    bom_qrels.write_bytes(b"\xef\xbb\xbf" + qrels.read_bytes())
    return args, run, qrels, bom_run, bom_qrels


def test_a_byte_order_mark_is_not_data(printing, tmp_path, run_cli):
    """A run or qrels file that starts with a UTF-8 byte order mark scores, topic by topic, as the
    same file without it (as the README and read_run say)."""
    _, run, qrels, bom_run, bom_qrels = _bom_copies(printing, tmp_path)
    measures = ["-m", "AP", "-m", "NumRet", "-m", "NumQ", "-q"]
    results = []
    for q, r in ((qrels, run), (qrels, bom_run), (bom_qrels, run), (bom_qrels, bom_run)):
        rc, out, err = run_cli(["eval", "--qrels", q, r, *measures])
        assert rc == 0 and err == "", err
        results.append(out)
    assert len(results[0].splitlines()) == 2 * 13 + 1 and results[0].endswith("\tNumQ\tall\t12\n")
    assert results[1:] == [results[0]] * 3


def test_trec_eval_keeps_a_byte_order_mark(printing, tmp_path, trec_eval_10):
    """What the README says trec_eval does with a byte order mark: a topic id of its own, so the
    run's first topic loses a document and the qrels gain a topic."""

    def counts(q, r, measure) -> dict[str, str]:
        res = subprocess.run([str(trec_eval_10), "-q", "-c", "-m", measure, str(q), str(r)], capture_output=True,
                             text=True, check=True)  # fmt: skip
        return {t: v for _, t, v in (line.split() for line in res.stdout.splitlines())}

    _, run, qrels, bom_run, bom_qrels = _bom_copies(printing, tmp_path)
    first = run.read_text().split()[0]
    plain, bom = counts(qrels, run, "num_ret"), counts(qrels, bom_run, "num_ret")
    assert int(bom[first]) == int(plain[first]) - 1 and {t: v for t, v in bom.items() if t != first} == {
        t: v for t, v in plain.items() if t not in (first, "all")
    } | {"all": str(int(plain["all"]) - 1)}
    assert int(counts(bom_qrels, run, "num_q")["all"]) == int(counts(qrels, run, "num_q")["all"]) + 1
