"""``irrepro design`` and ``irrepro compare --anova`` (issue 28) on real TREC-COVID round-5 runs:
the printed numbers are the API's on the same scores, the figure and the table are written, bad
options exit 2 naming the option."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from irrepro import data, design, measures
from irrepro.cli import main as cli_main

pytestmark = pytest.mark.filterwarnings("error")

QRELS = Path("ir_datasets/cord19/trec-covid/round5/qrels")  # inside the mirror
RUNS = ["BRPHJ_BM25", "CSIROmedFR", "uogTrDPH_QE_RF", "r5.fusion1"]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Four real round-5 runs as plain text, a fifth that lacks topics 3 and 7; the qrels."""
    m = data.mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    d = tmp_path_factory.mktemp("runs")
    (d / "full").mkdir()
    for r in RUNS:
        with gzip.open(m / "trec-covid" / "round5" / "runs" / f"{r}.gz", "rt") as f:
            (d / "full" / r).write_text(f.read())
    lines = (d / "full" / RUNS[0]).read_text().splitlines()
    (d / "gappy").write_text(
        "\n".join(ln.replace(RUNS[0], "gappy") for ln in lines if ln.split()[0] not in ("3", "7"))
    )
    return d, m / QRELS


def run_cli(args, capsys):
    rc = cli_main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def scores(real, measure="nDCG@10"):
    d, qrels = real
    rs = data.load_runs(sorted((d / "full").iterdir()), qrels)
    return next(iter(measures.evaluate(rs, [measure]).values()))


def test_design_prints_the_apis_sizes_and_writes_figure_and_table(real, capsys, tmp_path):
    d, qrels = real
    out = tmp_path / "plan"
    rc, text, err = run_cli(["design", d / "full", "--qrels", qrels, "-m", "nDCG@10", "--min-diff", "0.05",
                             "--systems", "3", "-B", "200", "--seed", "4", "--out", out], capsys)  # fmt: skip
    assert rc == 0, err
    x = scores(real)
    table = design.topic_set_sizes(x, min_diff=0.05, systems=3, B=200, seed=4)
    rows = {line[:30].strip(): line[30:].split() for line in text.splitlines()[2:]}
    for r in table.itertuples():
        assert rows[r.method][:3] == [str(r.topics), f"[{r.low},", f"{r.high}]"]
    n95 = design.topics_for_reliability(design.two_way_anova(x), 0.95)
    assert rows["G-theory E rho^2 >= 0.95"] == [str(n95)]
    assert f"{len(RUNS)} runs x {x.shape[1]} topics" in text
    assert (out / "power-curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "topics.csv").read_text().splitlines()[0] == "method,topics,interval"


def test_design_simulate_adds_the_simulated_row(real, capsys, tmp_path):
    d, qrels = real
    rc, text, err = run_cli(["design", d / "full", "--qrels", qrels, "-m", "nDCG@10", "--min-diff", "0.1",
                             "--simulate", "--scale", "quick", "-B", "0", "--out", tmp_path, "-j", "1"], capsys)  # fmt: skip
    assert rc == 0, err
    assert any(line.startswith("simulated paired-t") for line in text.splitlines())
    assert "simulated power (+- Monte Carlo se):" in text


def test_design_with_runs_missing_topics_uses_the_mixed_model(real, capsys, tmp_path):
    d, qrels = real
    rc, text, err = run_cli(["design", *sorted((d / "full").iterdir()), d / "gappy", "--qrels", qrels, "-m", "AP",
                             "--min-diff", "0.05", "--out", tmp_path], capsys)  # fmt: skip
    assert rc == 0, err
    assert "mixed model (runs miss 2 run-topics)" in text
    assert "run gappy" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--min-diff", "0"], "argument --min-diff: must be a number > 0, got '0'"),
        (["--min-diff", "-0.1"], "argument --min-diff: must be a number > 0"),
        (["--min-diff", "0.05", "--power", "1"], "argument --power: must be a number in (0, 1), got '1'"),
        (["--min-diff", "0.05", "--power", "0"], "argument --power: must be a number in (0, 1)"),
        (["--min-diff", "0.05", "--alpha", "2"], "argument --alpha: must be a number in (0, 1)"),
        (["--min-diff", "0.05", "--systems", "1"], "--systems: must be an integer >= 2"),
    ],
)
def test_design_bad_options_exit_2_naming_the_option(real, capsys, extra, message, tmp_path):
    d, qrels = real
    rc, text, err = run_cli(
        ["design", d / "full", "--qrels", qrels, "-m", "AP", *extra, "--out", tmp_path], capsys
    )
    assert rc == 2 and text == ""
    assert message in err


def test_design_needs_two_runs(real, capsys, tmp_path):
    d, qrels = real
    rc, _, err = run_cli(["design", d / "full" / RUNS[0], "--qrels", qrels, "-m", "AP", "--min-diff", "0.05",
                          "--out", tmp_path], capsys)  # fmt: skip
    assert rc == 2 and "design needs at least 2 runs, got 1" in err


def test_compare_anova_prints_the_anova_and_both_tukey_tests(real, capsys):
    d, qrels = real
    rc, text, err = run_cli(["compare", d / "full", "--qrels", qrels, "-m", "AP", "--anova", "-B", "200",
                             "--digits", "6"], capsys)  # fmt: skip
    assert rc == 0, err
    x = scores(real, "AP")
    a = design.two_way_anova(x)
    body = text[text.index("ANOVA of AP") :].splitlines()
    residual = next(line for line in body if line.startswith("residual")).split()
    assert float(residual[3]) == pytest.approx(a.sigma2_residual, abs=1e-6)
    t = design.tukey_table(x, B=200, seed=0)
    header = next(i for i, line in enumerate(body) if "p_classical" in line)
    got = np.array([[float(v) for v in line.split()[-2:]] for line in body[header + 1 : header + 1 + len(t)]])
    np.testing.assert_allclose(got, t[["p_classical", "p_randomised"]].to_numpy(), atol=1e-6)
