"""``irrepro design`` and ``irrepro compare --anova`` (issue 28) on real TREC-COVID round-5 runs:
the printed numbers are the API's on the same scores, the figure and the table are written, bad
options exit 2 naming the option."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from irrepro import data, design, measures

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


def scores(real, measure="nDCG@10"):
    d, qrels = real
    rs = data.load_runs(sorted((d / "full").iterdir()), qrels)
    return next(iter(measures.evaluate(rs, [measure]).values()))


def test_design_prints_the_apis_sizes_and_writes_figure_and_table(real, run_cli, tmp_path):
    d, qrels = real
    out = tmp_path / "plan"
    rc, text, err = run_cli(["design", d / "full", "--qrels", qrels, "-m", "nDCG@10", "--min-diff", "0.05",
                             "--systems", "3", "-B", "200", "--seed", "4", "--out", out])  # fmt: skip
    assert rc == 0, err
    x = scores(real)
    table = design.topic_set_sizes(x, min_diff=0.05, systems=3, B=200, seed=4)
    rows = {line[:30].strip(): line[30:].split() for line in text.splitlines()[2:]}
    for r in table.itertuples():
        assert rows[r.method][:3] == [str(r.topics), f"[{r.low},", f"{r.high}]"]
    need = design.topics_needed(design.two_way_anova(x), 0.95)  # its 95% interval
    for c, label in (("Erho2", "E rho^2"), ("Phi", "Phi")):
        n, low, high = need.loc[c, ["n", "low", "high"]].astype(int)
        assert rows[f"G-theory {label} >= 0.95"] == [str(n), f"[{low},", f"{high}]"]
    assert f"{len(RUNS)} runs x {x.shape[1]} topics" in text
    assert (out / "power-curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "topics.csv").read_text().splitlines()[0] == "method,topics,interval"


def test_design_simulate_adds_the_simulated_row(real, run_cli, tmp_path):
    d, qrels = real
    rc, text, err = run_cli(["design", d / "full", "--qrels", qrels, "-m", "nDCG@10", "--min-diff", "0.1",
                             "--simulate", "--scale", "quick", "-B", "0", "--out", tmp_path, "-j", "1"])  # fmt: skip
    assert rc == 0, err
    assert any(line.startswith("simulated paired-t") for line in text.splitlines())
    assert "simulated power (+- Monte Carlo se):" in text


def _zero_filled_sizes(x: np.ndarray, min_diff: float, systems: int) -> tuple[float, int]:
    """V_E (the two-way ANOVA's residual mean square, by hand) and the paired t-test's size
    (statsmodels' solve_power, rounded up) of the score matrix ``x``."""
    from statsmodels.stats.power import TTestPower

    S, T = x.shape
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    v_e = float((r**2).sum() / ((S - 1) * (T - 1)))
    n = TTestPower().solve_power(min_diff / np.sqrt(2 * v_e), alpha=0.05, power=0.8, alternative="two-sided")
    return v_e, int(np.ceil(n))


def test_runs_missing_topics_get_one_treatment_in_design_and_the_report(real, run_cli, tmp_path):
    """A topic a run misses scores 0 (trec_eval -c) for Sakai's sizes as for G-theory, in design as
    in the report's section 6 (design took V_E from a mixed model and the report from the zero-filled
    matrix: two answers), and both say so in one line."""
    import shutil

    import pandas as pd

    from irrepro.report import DESIGN_MIN_DIFF

    d, qrels = real
    runs = tmp_path / "runs"
    runs.mkdir()
    for f in [*(d / "full").iterdir(), d / "gappy"]:
        shutil.copy(f, runs / f.name)
    S = len(RUNS) + 1
    rc, text, err = run_cli(["design", runs, "--qrels", qrels, "-m", "AP", "--min-diff", DESIGN_MIN_DIFF,
                             "--systems", S, "-B", "0", "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 0, err
    rc, _, err = run_cli(["report", runs, "--qrels", qrels, "-m", "AP", "--scale", "quick", "-q",
                          "--out", tmp_path / "report"])  # fmt: skip
    assert rc == 0, err
    x = next(iter(measures.evaluate(data.load_runs(runs, qrels), ["AP"]).values()))
    gappy = x.systems.index("gappy")
    assert (x.scores[gappy, [x.topics.index("3"), x.topics.index("7")]] == 0).all()  # trec_eval -c
    v_e, n_t = _zero_filled_sizes(x.scores, DESIGN_MIN_DIFF, S)
    assert f"V_E = {v_e:.6g} (two-way ANOVA)" in text
    shown = pd.read_csv(tmp_path / "report" / "topic-set-size.csv").set_index("method")
    assert shown["V_E"].iloc[0] == pytest.approx(v_e, rel=1e-12)
    rows = {line[:30].strip(): line[30:].split() for line in text.splitlines()}
    for method in design.METHODS.values():  # the same sizes, method by method
        assert rows[method][0] == str(shown.loc[method, "topics"]), method
    assert shown.loc["paired t-test", "topics"] == n_t
    said = "2 run-topics that 1 run misses scored 0 (trec_eval -c, as every mean of irrepro)"
    assert f"missing topics: {said}; V_E, Sakai's sizes and G-theory are all from these scores" in text
    assert f"Runs that miss topics: {said}" in (tmp_path / "report" / "index.html").read_text()
    assert "-B 0: no bootstrap, so Sakai's sizes have no interval" in text


def test_design_refuses_a_design_that_means_nothing_before_reading_the_runs(real, run_cli, tmp_path):
    """A difference beyond the measure's range, a power at or below alpha and a bootstrap too small
    for a 95% interval gave "2 topics" or an interval [19, 19] around 20: each is refused, naming the
    option and why, before the runs are read (no line about the run that misses topics)."""
    d, qrels = real
    base = ["design", d / "full", d / "gappy", "--qrels", qrels, "--out", tmp_path / "plan"]
    for extra, message in [
        (
            ["-m", "AP", "--min-diff", "1.5"],
            "--min-diff 1.5 is beyond the range of AP: its scores lie in [0, 1]",
        ),
        (["-m", "nDCG@10", "--min-diff", "1"], "--min-diff 1 is beyond the range of nDCG@10"),
        (["-m", "AP", "--min-diff", "0.05", "--power", "0.01"], "--power 0.01 is at or below --alpha 0.05"),
        (
            ["-m", "AP", "--min-diff", "0.05", "--power", "0.1", "--alpha", "0.1"],
            "--power 0.1 is at or below",
        ),
        (
            ["-m", "AP", "--min-diff", "0.05", "-B", "1"],
            "-B 1: too few resamples for a 95% interval",
        ),
        (["-m", "AP", "--min-diff", "0.05", "-B", "99"], "give -B >= 100, or -B 0 for no interval"),
    ]:
        rc, text, err = run_cli([*base, *extra])
        assert rc == 2 and text == "", (extra, err)
        assert message in err and "run gappy" not in err, (extra, err)
        assert not (tmp_path / "plan").exists()
    # a count has no range: a difference of 5 retrieved documents is a design
    rc, text, err = run_cli([*base, "-m", "NumRet", "--min-diff", "5", "-B", "0"])
    assert rc == 0 and "paired t-test" in text, err
    rc, text, err = run_cli([*base, "-m", "AP", "--min-diff", "0.05", "-B", "100"])
    assert rc == 0, err


def test_design_api_refuses_the_same_designs():
    """topic_set_size(s) and check_design refuse what the command line refuses, with the reason."""
    x = data.ScoreMatrix(
        np.clip(np.random.default_rng(3).normal(0.3, 0.1, (4, 30)), 0, 1),
        tuple("abcd"), tuple(map(str, range(30))), "AP",
    )  # fmt: skip
    from irrepro import InputError
    from irrepro.design._sizes import check_design

    for call, message in [
        (lambda: design.topic_set_sizes(x, min_diff=1.5), "min_diff 1.5 is beyond the range of AP"),
        (
            lambda: design.topic_set_sizes(x, min_diff=0.05, power=0.01),
            "power 0.01 is at or below alpha 0.05",
        ),
        (
            lambda: design.topic_set_sizes(x, min_diff=0.05, B=1),
            "B 1: too few resamples for a 95% interval",
        ),
        (lambda: design.topic_set_sizes(x, min_diff=0.05, B=50, level=0.9), "for a 90% interval"),
        (lambda: check_design(2, 0.05, 0.8, measure="P@10"), "min_diff 2 is beyond the range of P@10"),
        (lambda: check_design(0.05, 0.05, 0.05), "power 0.05 is at or below alpha 0.05"),
        (lambda: design.simulated_power(x, min_diff=1.0, seed=1), "min_diff 1 is beyond the range of AP"),
    ]:
        with pytest.raises(InputError, match=message):
            call()
    assert check_design(0.05, 0.05, 0.8, measure="AP", B=0) == (0.05, 0.05, 0.8, 2)
    assert check_design(40, 0.05, 0.8, measure="NumRet")[0] == 40  # a count: no range
    design.topic_set_sizes(x.scores, min_diff=1.5, B=0)  # an array names no measure: no range to check


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
def test_design_bad_options_exit_2_naming_the_option(real, run_cli, extra, message, tmp_path):
    d, qrels = real
    rc, text, err = run_cli(["design", d / "full", "--qrels", qrels, "-m", "AP", *extra, "--out", tmp_path])
    assert rc == 2 and text == ""
    assert message in err


def test_design_needs_two_runs(real, run_cli, tmp_path):
    d, qrels = real
    rc, _, err = run_cli(["design", d / "full" / RUNS[0], "--qrels", qrels, "-m", "AP", "--min-diff", "0.05",
                          "--out", tmp_path])  # fmt: skip
    assert rc == 2 and "design needs at least 2 runs, got 1" in err


def test_compare_anova_prints_the_anova_and_both_tukey_tests(real, run_cli):
    d, qrels = real
    rc, text, err = run_cli(["compare", d / "full", "--qrels", qrels, "-m", "AP", "--anova", "-B", "200",
                             "--digits", "6"])  # fmt: skip
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


def test_compare_anova_of_identical_runs_says_why_there_is_none_and_exits_0(real, run_cli, tmp_path):
    """Two identical runs: the table, then one line saying why AP has no ANOVA (it printed the table,
    then exited 2 saying there was "nothing to plan a study from")."""
    d, qrels = real
    twin = tmp_path / "twin"
    twin.write_text((d / "full" / RUNS[0]).read_text().replace(RUNS[0], "twin"))
    rc, text, err = run_cli(["compare", d / "full" / RUNS[0], twin, "--qrels", qrels, "-m", "AP", "--anova",
                             "-B", "200"])  # fmt: skip
    assert rc == 0 and err == "", err
    assert text.index("twin") < text.index("ANOVA of AP: none - no variance between runs: every run scores "
                                           "the same as every other on each topic")  # fmt: skip
    assert "nothing to plan" not in text + err and "Tukey HSD, classical" not in text


def test_compare_anova_prints_every_measure_beside_a_constant_one(real, run_cli):
    """A constant measure (NumQ: 1 on every topic) beside AP: its reason in one line, and AP's ANOVA
    and Tukey tables printed as on their own (AP's were never printed)."""
    d, qrels = real
    base = ["compare", d / "full", "--qrels", qrels, "-B", "200", "--digits", "6", "--anova"]
    rc, alone, err = run_cli([*base, "-m", "AP"])
    assert rc == 0, err
    rc, text, err = run_cli([*base, "-m", "NumQ", "-m", "AP"])
    assert rc == 0 and err == "", err
    assert "\nANOVA of NumQ: none - no variance: every run scores 1 on every topic, so F and Tukey's HSD are " \
           "undefined\n" in text  # fmt: skip
    ap = alone[alone.index("\nANOVA of AP") :]
    assert text.endswith(ap)  # AP's ANOVA and both Tukey tests, as without NumQ
    residual = next(line for line in ap.splitlines() if line.startswith("residual")).split()
    a = design.two_way_anova(scores(real, "AP"))
    assert float(residual[3]) == pytest.approx(a.sigma2_residual, abs=1e-6)


def _matrix_file(path, matrix, sep="\t", first=""):
    """``matrix`` (systems x topics) as a topic-by-run file: the header the run names after
    ``first``, a row per topic."""
    lines = [sep.join([first, *matrix.systems])]
    lines += [
        sep.join([t, *(repr(float(v)) for v in matrix.scores[:, j])]) for j, t in enumerate(matrix.topics)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_design_from_a_score_matrix_is_gt4irevals_readme(real_matrix, run_cli, tmp_path):
    """gt4ireval's README: TREC-3 ad hoc AP, the worst 25% dropped, D-study at 50, 100 and 150
    topics and the topics needed for 0.95, with their 95% intervals, to its printed precision."""
    src = _matrix_file(tmp_path / "adhoc3.tsv", real_matrix("trec3", "AP"))
    rc, text, err = run_cli(["design", "--scores", src, "--drop-worst", "0.25", "--topics", "50,100,150",
                             "--format", "json", "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 0, err
    doc = __import__("json").loads(text)
    assert doc["pilot"]["runs"] == 30 and len(doc["pilot"]["dropped"]) == 10
    assert [round(v, 5) for v in doc["components"].values()] == [0.00281, 0.02809, 0.01015]
    got = [[round(r[k], 5) for k in ("Erho2", "Erho2_low", "Erho2_high", "Phi", "Phi_low", "Phi_high")]
           for r in doc["d_study"]]  # fmt: skip
    assert got == [
        [0.93265, 0.89311, 0.96287, 0.78613, 0.66141, 0.88039],
        [0.96515, 0.94354, 0.98109, 0.88026, 0.79621, 0.93639],
        [0.97649, 0.96164, 0.98731, 0.91686, 0.85423, 0.95668],
    ]
    assert doc["topics_needed"] == {"Erho2": {"target": 0.95, "n": 69, "low": 37, "high": 114},
                                    "Phi": {"target": 0.95, "n": 259, "low": 130, "high": 487}}  # fmt: skip
    assert "sizes" not in doc  # no --min-diff: G-theory alone
    csv_src = _matrix_file(tmp_path / "adhoc3.csv", real_matrix("trec3", "AP"), sep=",", first="topic")
    rc, text2, _ = run_cli(["design", "--scores", csv_src, "--drop-worst", "0.25", "--topics", "50,100,150",
                            "--format", "json", "--out", tmp_path / "plan2"])  # fmt: skip
    assert rc == 0 and __import__("json").loads(text2)["d_study"] == doc["d_study"]  # CSV as TSV


def test_design_from_a_variance_alone_is_statsmodels_power_calculation(run_cli, tmp_path):
    """Sakai's calculators: the topics from V_E alone, the paired t-test's as statsmodels solves it."""
    from statsmodels.stats.power import TTestPower

    rc, text, err = run_cli(["design", "--variance", "0.0102", "--min-diff", "0.05", "--format", "json",
                             "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 0, err
    doc = __import__("json").loads(text)
    t = next(r for r in doc["sizes"] if r["method"] == "paired t-test")
    n = TTestPower().solve_power(effect_size=0.05 / (2 * 0.0102) ** 0.5, alpha=0.05, power=0.8)
    assert t["topics"] == int(np.ceil(n)) and t["V_E"] == 0.0102 and "components" not in doc


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("\tA\tA\n1\t0.1\t0.2\n2\t0.3\t0.4\n", "line 1: the header names 'A' more than once"),
        ("\tA\tB\n1\t0.1\t0.2\n1\t0.3\t0.4\n", "line 3: topic '1' has more than one row"),
        ("\tA\tB\n1\t0.1\t0.2\n2\tx\t0.4\n", "line 3: value 'x' in column 'A' is not a finite number"),
    ],
)
def test_design_names_file_line_and_problem_of_a_bad_matrix(run_cli, tmp_path, content, message):
    src = tmp_path / "pilot.tsv"
    src.write_text(content)
    rc, text, err = run_cli(["design", "--scores", src, "--out", tmp_path / "plan"])
    assert rc == 2 and text == "" and f"pilot.tsv, {message}" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variance", "0.01"], "--variance sizes a study by Sakai's methods: give --min-diff too"),
        (["--variance", "0.01", "--min-diff", "0.05", "--topics", "50"], "--variance has no pilot scores"),
        (["--scores", "{src}", "--variance", "0.01", "--min-diff", "0.05"], "got --scores and --variance"),
        ([], "plans from one pilot: RUN... with --qrels, --scores FILE, or --variance V"),
        (["--scores", "{src}", "--simulate"], "--simulate simulates the power to detect --min-diff"),
        (["--scores", "{src}", "--drop-worst", "1"], "argument --drop-worst: must be a number in [0, 1)"),
        (["--scores", "{src}", "--topics", "0,5"], "argument --topics: must be whole numbers >= 1"),
        (["--scores", "{src}", "--out", "{dir}"], "{dir}"),  # the directory holding the input
    ],
)
def test_design_refuses_a_pilot_that_does_not_fit_before_any_work(run_cli, tmp_path, args, message):
    src = tmp_path / "in" / "pilot.tsv"
    src.parent.mkdir()
    src.write_text("\tA\tB\tC\n1\t0.1\t0.2\t0.3\n2\t0.3\t0.4\t0.2\n3\t0.5\t0.4\t0.1\n")
    fill = {"src": str(src), "dir": str(src.parent)}
    argv = [a.format(**fill) for a in args]
    out = [] if "--out" in argv else ["--out", str(tmp_path / "plan")]
    rc, text, err = run_cli(["design", *argv, *out])
    assert rc == 2 and text == "" and message.format(**fill) in err
    assert src.read_text().startswith("\tA\tB\tC")  # the input untouched
    assert not (tmp_path / "plan").exists()


def test_design_from_brennans_matrix_is_his_table_6_5(run_cli, tmp_path):
    """Brennan (2001) Table 6.5 (gt4ireval's tests): the 80% intervals from the command line."""
    from test_design import BRENNAN_4

    m = data.ScoreMatrix(
        BRENNAN_4, tuple(f"p{i}" for i in range(1, 11)), tuple(map(str, range(1, 13))), "score"
    )
    src = _matrix_file(tmp_path / "synthetic4.csv", m, sep=",", first="query")
    rc, text, err = run_cli(["design", "--scores", src, "--level", "80", "--topics", "12", "--format", "json",
                             "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 0, err
    doc = __import__("json").loads(text)
    assert [round(v, 4) for v in doc["components"].values()] == [0.6258, 0.8840, 2.7872]
    r = doc["d_study"][0]
    got = [round(r[k], 3) for k in ("Erho2", "Erho2_low", "Erho2_high", "Phi", "Phi_low", "Phi_high")]
    assert got == [0.729, 0.541, 0.876, 0.672, 0.457, 0.845] and doc["level"] == 0.8


def test_design_from_a_variance_alone_sizes_the_anova_as_statsmodels(run_cli, tmp_path):
    from statsmodels.stats.power import FTestAnovaPower

    rc, text, err = run_cli(["design", "--variance", "0.0102", "--min-diff", "0.1", "--systems", "5",
                             "--format", "json", "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 0, err
    got = next(r for r in __import__("json").loads(text)["sizes"] if r["method"] == "one-way ANOVA")
    f = 0.1 / (2 * 5 * 0.0102) ** 0.5  # Cohen's f of a range min_diff over m means (Sakai 2016)
    N = FTestAnovaPower().solve_power(effect_size=f, nobs=None, alpha=0.05, power=0.8, k_groups=5)
    assert got["topics"] == int(np.ceil(N / 5 - 1e-6))


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_design_prints_its_tables_as_markdown_and_latex(run_cli, tmp_path, fmt):
    src = tmp_path / "pilot.tsv"
    src.write_text("\tA_1\tB\tC\n1\t0.1\t0.2\t0.35\n2\t0.3\t0.4\t0.5\n3\t0.5\t0.4\t0.7\n4\t0.2\t0.1\t0.3\n")
    rc, text, err = run_cli(["design", "--scores", src, "--topics", "10", "--format", fmt, "--out", tmp_path / "o"])  # fmt: skip
    assert rc == 0, err
    if fmt == "markdown":
        assert (
            "| method | topics | interval (95%) |" in text
            and "| topics | E rho^2 | Phi | tau | tau\\_AP |" in text
        )
    else:
        assert text.count(r"\begin{tabular}") == 2 and r"tau{\usefont{OT1}{cmtt}{m}{n}\char95}AP" in text
        assert all(
            line.startswith("%") or "&" in line or line.startswith("\\") or not line
            for line in text.splitlines()
        )  # fmt: skip  (every note a comment)


def test_a_quoted_run_name_with_the_separator_is_one_run(tmp_path):
    src = tmp_path / "pilot.csv"
    src.write_text('topic,"a,b",c,"c "\n1,0.1,0.2,0.3\n2,0.3,0.5,0.1\n')
    m = data.read_score_matrix(src, "AP")
    assert m.systems == ("a,b", "c", "c ") and m.topics == ("1", "2")
