"""Issue 26, item 3: every parameter is validated at the boundary, by one check shared by the
command line, the environment and the Python API; undefined statistics say why.

- a confidence level is a fraction in (0, 1) or a percentage in (1, 100), everywhere
  (``compare --intervals --level 95`` was an IndexError, ``--level 0`` printed a "0% CI");
- a number of workers is >= 1 or -1, from ``n_jobs``, ``-j`` and ``IRREPRO_JOBS`` alike
  (``IRREPRO_JOBS=0`` / ``-5`` were accepted while ``-j 0`` was refused);
- ``adjust_pvalues`` refuses p outside [0, 1]; every function taking a score matrix refuses a
  non-finite score (``swap_experiment`` accepted inf);
- a single-valued option given twice is refused (``--baseline a --baseline b`` kept ``b``);
- a statistic without variance gives its reason, never "nan";
- an empty DataFrame of runs or qrels is a clear error; a topic id '²' works.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pandas as pd
import pytest

import irrepro
from irrepro import cli, data, parallel, significance, stats
from irrepro import corpus_bootstrap as cb
from irrepro import known_truth as kt
from irrepro import sensitivity as bt
from irrepro import standardize as sz
from irrepro import topic_split as ts
from irrepro._rule import book_dir

InputError = irrepro.InputError


def _matrix(seed: int = 0, S: int = 4, T: int = 12) -> data.ScoreMatrix:
    x = np.random.default_rng(seed).random((S, T))
    return data.ScoreMatrix(x, tuple("abcdefgh"[:S]), tuple(str(t + 1) for t in range(T)), "AP")


def _write_runs(d, scores: dict[str, list[float]]) -> tuple:
    """A qrels file (topic t: d1 relevant, d2 not) and one run file per name whose list on topic
    t is d1 then d2 when its score there is 1, else d2 then d1 (AP 1 or 0.5)."""
    T = len(next(iter(scores.values())))
    (d / "qrels.txt").write_text("".join(f"{t} 0 d1 1\n{t} 0 d2 0\n" for t in range(1, T + 1)))
    (d / "runs").mkdir()
    files = []
    for name, ap in scores.items():
        lines = []
        for t, a in enumerate(ap, start=1):
            first, second = ("d1", "d2") if a == 1 else ("d2", "d1")
            lines.append(f"{t} Q0 {first} 1 2.0 {name}\n{t} Q0 {second} 2 1.0 {name}\n")
        (d / "runs" / name).write_text("".join(lines))
        files.append(d / "runs" / name)
    return d / "qrels.txt", files


@pytest.fixture
def three_runs(tmp_path):
    """Three runs on 8 topics (:func:`_write_runs`): the qrels and the run files."""
    return _write_runs(tmp_path, {"a": [1, 0, 1, 1, 0, 1, 1, 0], "b": [0, 0, 1, 0, 1, 1, 0, 0],
                                  "c": [1, 1, 1, 0, 0, 1, 1, 1]})  # fmt: skip


# --------------------------------------------------------------------------------------------
# confidence levels
# --------------------------------------------------------------------------------------------

_X = _matrix()
_REPS = np.random.default_rng(1).random((4, 200))
_PAIRED = significance.paired_bootstrap_test(_X, B=50, seed=1)


def _level_entries():
    """Every public entry that takes a confidence level: name -> level -> a result to compare."""
    return {
        "stats.check_level": lambda lv: stats.check_level(lv),
        "stats.bca_interval": lambda lv: stats.bca_interval(_REPS.mean(axis=1), _REPS, level=lv),
        "stats.meta_analysis": lambda lv: (
            stats.meta_analysis([0.1, 0.3, 0.2], [0.1, 0.2, 0.1], level=lv).upper
        ),
        "significance.compare": lambda lv: significance.compare(
            _X, intervals=True, level=lv, seed=1
        ).low.to_numpy(),
        "significance.compare(baseline)": lambda lv: significance.compare(
            _X, baseline=0, intervals=True, level=lv, seed=1
        ).high.to_numpy(),
        "significance.effect_sizes": lambda lv: (
            significance.effect_sizes(_X, baseline=0, level=lv, B=50, seed=1).low
        ),
        "BootstrapResult.confidence_interval": lambda lv: _PAIRED.confidence_interval(lv),
        "sensitivity.comparisons": lambda lv: [c.ci_low for c in bt.comparisons(_PAIRED, level=lv)],
        "corpus_bootstrap.intervals_from_replicates": lambda lv: (
            cb.intervals_from_replicates(_REPS.mean(axis=1), _REPS, level=lv)["logit"].upper
        ),
        "corpus_bootstrap.predicted_in_interval": lambda lv: cb.predicted_in_interval(lv),
        "standardize.mean_intervals": lambda lv: sz.mean_intervals(_X, level=lv),
        "standardize.binomial_interval": lambda lv: sz._comparability.binomial_interval(3, 20, level=lv),
        "PartitionResult.summary": lambda lv: sz.PartitionResult(_REPS[0], _REPS[1], 4, 0.05).summary(lv),
    }


@pytest.mark.parametrize("entry", list(_level_entries()))
def test_a_level_given_as_a_percentage_is_read_as_the_fraction(entry):
    """``level=95`` is 0.95 everywhere (an IndexError in compare's intervals, NaN intervals in
    mean_intervals, a refusal in effect_sizes): the same numbers as ``level=0.95``."""
    f = _level_entries()[entry]
    as_fraction, as_percent = f(0.95), f(95)
    np.testing.assert_equal(
        np.asarray(as_percent, dtype=object if isinstance(as_percent, dict) else None),
        np.asarray(as_fraction, dtype=object if isinstance(as_fraction, dict) else None),
    )


@pytest.mark.parametrize("bad", [0, 1, 100, -5, 150, math.nan, math.inf, True, "95"])
@pytest.mark.parametrize("entry", list(_level_entries()))
def test_a_level_out_of_range_is_refused_naming_it(entry, bad):
    with pytest.raises(InputError, match=r"level must be"):
        _level_entries()[entry](bad)


@pytest.mark.parametrize("bad", [1.5, 10, 49.99])
@pytest.mark.parametrize("entry", list(_level_entries()))
def test_a_level_that_reads_as_a_percentage_below_50_is_refused(entry, bad):
    """``level=1.5`` is 1.5%, which nobody means (``compare --level 1.5`` printed a "1.5% CI"):
    refused by the one check of every level, suggesting 0.95 or 95; 50 is still 0.5."""
    with pytest.raises(
        InputError, match=r"\(0\.95\) or a percentage in \[50, 100\) \(95\), got .* \(read as a "
    ):
        _level_entries()[entry](bad)
    assert stats.check_level(50) == 0.5 and stats.check_level(0.3) == 0.3


def test_compare_level_read_as_a_small_percentage_is_refused(tmp_path, run_cli):
    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1, 1, 0, 1], "b": [0, 0, 1, 0, 1, 1]})
    rc, out, err = run_cli(["compare", "--qrels", qrels, *runs, "-m", "AP", "--intervals", "--level", "1.5"])
    assert rc == 2 and out == ""
    assert (
        "argument --level: must be a fraction in (0, 1) (0.95) or a percentage in [50, 100) (95), got 1.5 "
        "(read as a percentage: a 1.5% interval)"
    ) in err


def test_every_scale_option_takes_the_words_irrepro_scale_takes(monkeypatch, tmp_path, run_cli):
    """``IRREPRO_SCALE=full`` and ``=PAPER`` were accepted and ``--scale full`` / ``PAPER`` refused:
    one check (parallel.check_scale) for the environment, every --scale and the Python API."""
    argv = {"report": ["report", "runs", "--qrels", "q"],
            "design": ["design", "r1", "r2", "--qrels", "q", "-m", "AP", "--min-diff", "0.05"]}  # fmt: skip
    for word in ["paper", "quick", "full", "PAPER", " Full ", "Quick"]:
        monkeypatch.setenv("IRREPRO_SCALE", word)
        expected = parallel.scale()
        assert expected == word.strip().lower() == parallel.check_scale(word)
        for command, base in argv.items():
            assert cli.build_parser().parse_args([*base, "--scale", word]).scale == expected, (command, word)
    for word in ["huge", "", "papers"]:
        if word:  # (IRREPRO_SCALE= is unset: test_an_empty_irrepro_variable_is_unset)
            monkeypatch.setenv("IRREPRO_SCALE", word)
            with pytest.raises(InputError, match="IRREPRO_SCALE must be 'paper', 'quick' or 'full'"):
                parallel.scale()
        for base in argv.values():
            rc, out, err = run_cli([*base, "--scale", word])
            assert rc == 2 and f"argument --scale: must be 'paper', 'quick' or 'full', not {word!r}" in err
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `IRREPRO_SCALE`"))
    assert all(f"`{w}`" in row for w in parallel.SCALES), row
    for command in argv:
        rc, out, _ = run_cli([command, "--help"])
        out = " ".join(out.split())  # argparse's wrapping
        assert all(f"{w} (" in out for w in parallel.SCALES) and "in any case" in out


def test_compare_level_on_the_command_line(tmp_path, run_cli):
    """``--level 95`` gives the table of ``--level 0.95`` (it was an IndexError); 0, 1, 100, a
    negative and NaN are refused by argparse, naming --level (``--level 0`` printed a "0% CI")."""
    qrels, runs = _write_runs(
        tmp_path, {"a": [1, 0, 1, 1, 0, 1], "b": [0, 0, 1, 0, 1, 1], "c": [1, 1, 1, 0, 0, 1]}
    )
    base = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--intervals", "--seed", "1"]
    rc, fraction, err = run_cli([*base, "--level", "0.95"])
    assert rc == 0, err
    rc, percent, err = run_cli([*base, "--level", "95"])
    assert rc == 0, err
    assert percent == fraction and "95% CI" in percent
    for bad in ("0", "1", "100", "-5", "nan", "x"):
        rc, out, err = run_cli([*base, "--level", bad])
        assert rc == 2 and out == "" and "argument --level: must be" in err, (bad, err)
    rc, out, err = run_cli([*base, "--alpha", "5"])
    assert rc == 2 and "argument --alpha: must be a number in (0, 1)" in err


# --------------------------------------------------------------------------------------------
# workers
# --------------------------------------------------------------------------------------------

_JOBS_RULE = "must be a positive integer (workers) or -1 (all cores)"


@pytest.mark.parametrize("bad", ["0", "-5"])
@pytest.mark.parametrize("source", ["api", "env", "cli", "cli-env"])
def test_a_worker_count_below_one_is_refused_from_every_source(source, bad, monkeypatch, tmp_path, run_cli):
    """One rule, one message, naming where the value came from (IRREPRO_JOBS=0 and -5 were
    accepted - as 1 and as all cores - while -j 0 was refused)."""
    monkeypatch.delenv("IRREPRO_JOBS", raising=False)
    if source == "api":
        with pytest.raises(InputError, match=re.escape(f"n_jobs {_JOBS_RULE}, not {bad}")):
            parallel.n_jobs(int(bad))
        return
    if source == "env":
        monkeypatch.setenv("IRREPRO_JOBS", bad)
        with pytest.raises(InputError, match=re.escape(f"IRREPRO_JOBS {_JOBS_RULE}, not {bad}")):
            parallel.env_jobs()
        return
    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1], "b": [0, 1, 1]})
    argv = ["compare", "--qrels", qrels, *runs, "-m", "AP"]
    if source == "cli":
        rc, out, err = run_cli([*argv, f"--jobs={bad}"])
        assert rc == 2 and out == "" and f"argument -j/--jobs: {_JOBS_RULE}, not {bad}" in err
    else:
        monkeypatch.setenv("IRREPRO_JOBS", bad)
        rc, out, err = run_cli(argv)
        assert rc == 2 and out == "" and err == f"irrepro compare: IRREPRO_JOBS {_JOBS_RULE}, not {bad}\n"


def test_valid_worker_counts_are_read_the_same_from_every_source(monkeypatch):
    monkeypatch.setenv("IRREPRO_JOBS", "-1")
    assert parallel.n_jobs(parallel.env_jobs()) == parallel.n_jobs(-1) == (os.cpu_count() or 1)
    monkeypatch.setenv("IRREPRO_JOBS", " 3 ")
    assert parallel.env_jobs() == parallel.n_jobs(3) == parallel.check_jobs("3", "--jobs") == 3
    for bad in (1.5, True, "2.0"):
        with pytest.raises(InputError, match="n_jobs must be an integer"):
            parallel.check_jobs(bad)


# --------------------------------------------------------------------------------------------
# p-values and scores
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-0.01, 1.01, math.inf, -math.inf])
@pytest.mark.parametrize("method", ["holm", "fdr_bh", None])
def test_adjust_pvalues_refuses_a_p_value_outside_0_1(bad, method):
    with pytest.raises(InputError, match=r"p-values must be in \[0, 1\].*at position 2"):
        stats.adjust_pvalues([0.01, 0.2, bad], method)
    # a missing p-value keeps its documented meaning: 1 in the family, NaN in the result
    out = stats.adjust_pvalues([0.01, np.nan, 0.04], method)
    assert np.isnan(out[1]) and np.isfinite(out[[0, 2]]).all()


def _matrix_entries():
    """Every public entry that takes a score matrix: name -> matrix -> call."""
    return {
        "topic_split.swap_experiment": lambda m: ts.swap_experiment([m], sizes=[3], B=2, seed=1),
        "topic_split.full_set_tests": lambda m: ts.full_set_tests([m]),
        "topic_split.map_sd": lambda m: ts.map_sd(m, [3], B=3, seed=1),
        "topic_split.drop_bottom": lambda m: ts.drop_bottom(m),
        "significance.paired_bootstrap_test": lambda m: significance.paired_bootstrap_test(m, B=10, seed=1),
        "significance.compare": lambda m: significance.compare(m),
        "significance.pairwise_test": lambda m: significance.pairwise_test(m, "wilcoxon"),
        "standardize.standardize": lambda m: sz.standardize(m),
        "known_truth.self_significance_null": lambda m: kt.self_significance_null(
            m, n_topics=5, trials=2, seed=1
        ),
    }


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("entry", list(_matrix_entries()))
def test_a_non_finite_score_is_refused_naming_its_system_and_topic(entry, bad):
    m = _matrix()
    m.scores[2, 5] = bad
    where = r"at system 'c', topic '6' \(row 3, column 6\)"
    with pytest.raises(InputError, match=r"must be finite numbers, not NaN or infinite: .* " + where):
        _matrix_entries()[entry](m)


# --------------------------------------------------------------------------------------------
# repeated options
# --------------------------------------------------------------------------------------------

_VALUES = {
    "qrels": "q",
    "baseline": "r",
    "alpha": "0.05",
    "level": "0.95",
    "B": "10",
    "seed": "1",
    "jobs": "1",
    "scheduler": "local",
    "digits": "3",
    "rel": "1",
    "depth": "10",
    "out": "o",
    "measure": "AP",
    "min_diff": "0.02",
    "power": "0.8",
    "systems": "2",
    "sim_B": "10",
    "export_zscores": "z",
    "zscores": "z",
    "methods_file": "m.md",
    "repro_qrels": "q2",
    "resamples": "10",
    "scale": "quick",
    "scores": "s.tsv",
    "variance": "0.01",
    "topics": "50",
    "drop_worst": "0.25",
}


def _single_valued_options():
    """(command, option, value) for every option of every command that takes one value: found in
    the parser itself, so an option added later is covered too."""
    import argparse

    out = []
    parser = cli.build_parser()
    stack = [((), parser)]
    while stack:
        path, p = stack.pop()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                stack += [((*path, name), sub) for name, sub in a.choices.items()]
            elif a.option_strings and a.nargs is None and type(a).__name__ in ("_StoreAction", "_Once"):
                value = a.choices[0] if a.choices else _VALUES[a.dest]
                out.append((" ".join(path), a.option_strings[-1], str(value)))
    return sorted(out)


@pytest.mark.parametrize("command,option,value", _single_valued_options())
def test_a_single_valued_option_given_twice_is_refused(command, option, value, run_cli):
    rc, out, err = run_cli([*command.split(), option, value, option, value])
    assert rc == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert re.search(
        rf"error: argument (\S+/)?{re.escape(option)}: given twice \({re.escape(option)} .*, then "
        rf"{re.escape(option)} .*\): give it once$",
        line,
    ), line


def test_the_single_valued_options_are_all_found():
    found = {(c, o) for c, o, _ in _single_valued_options()}
    assert {
        ("compare", "--baseline"),
        ("report", "--baseline"),
        ("compare", "--level"),
        ("eval", "--format"),
        ("report", "--out"),
        ("report", "--measure"),
    } <= found


def test_options_meant_to_repeat_still_repeat():
    argv = ["eval", "--qrels", "q", "r", "-m", "AP", "-m", "P@10", "-a", "gm", "-a", "G"]
    args = cli.build_parser().parse_args(argv)
    assert args.measures == ["AP", "P@10"] and args.aggregates == ["gm", "G"]


def test_baseline_given_twice_on_the_command_line_names_both(run_cli, tmp_path):
    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1], "b": [0, 1, 1]})
    argv = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--baseline", "a", "--baseline", "b"]
    rc, out, err = run_cli(argv)
    assert rc == 2 and out == ""
    assert "argument --baseline: given twice (--baseline 'a', then --baseline 'b'): give it once" in err


# --------------------------------------------------------------------------------------------
# undefined statistics: a reason, never "nan"
# --------------------------------------------------------------------------------------------


def _no_nan(text: str) -> None:
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", text)
    assert not re.search(r"\bnan\b", text, flags=re.IGNORECASE), re.search(r".{60}\bnan\b.{60}", text, re.I)


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
@pytest.mark.parametrize("baseline", [None, "a"])
def test_compare_says_why_a_test_has_no_answer(fmt, baseline, tmp_path, run_cli):
    qrels, runs = _write_runs(tmp_path, {"a": [1] * 5, "b": [1] * 5, "c": [1] * 5})
    argv = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--format", fmt]
    rc, out, err = run_cli(argv + (["--baseline", baseline] if baseline else []))
    assert rc == 0, err
    assert "no variance: every run scores 1 on every topic" in out
    _no_nan(out)


def test_compare_names_two_identical_runs(tmp_path, run_cli):
    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1, 0, 1], "b": [1, 0, 1, 0, 1], "c": [0, 1, 1, 1, 0]})
    rc, out, err = run_cli(["compare", "--qrels", qrels, *runs, "-m", "AP", "--baseline", "a"])
    assert rc == 0, err
    assert re.search(
        r"No test of AP for 1 pair \(p: -\): no variance: runs (b and a|a and b) score the same "
        r"on every topic\.",
        out,
    )
    _no_nan(out)


@pytest.mark.parametrize("test", ["bootstrap", "paired-t"])
def test_the_report_says_why_a_statistic_is_undefined(test, tmp_path):
    """Runs scoring 1 on every topic: Kendall's tau and the dRMSE printed "nan" in the summary,
    its CSV and the page's prose; the t-test's ASL of the pairs was a bare "-"."""
    from irrepro import report

    qrels, _ = _write_runs(tmp_path, {"a": [1] * 5, "b": [1] * 5, "c": [1] * 5})
    rs = data.load_runs(tmp_path / "runs", qrels)
    rep = report.analyse(rs, seed=1, progress=False, scale="quick", test=test)
    why = "no variance: every run scores 1 on every topic"
    summ = rep.summary()
    assert summ["Kendall tau, raw vs standardized ranking"] == why
    assert summ["dRMSE between random halves, raw"] == why
    files = rep.files()
    assert why in files["summary.csv"] and f"undefined ({why})" in files["index.html"]
    if test == "paired-t":
        assert f"<p class='note'>ASL -: no test for 3 pairs: {why}." in files["index.html"]
    # identical runs have no effect size (d_z = 0 / 0): "-" with the reason, not 0 (the audit)
    assert f"d_z -: no effect size for 3 pairs: {why}." in files["index.html"]
    assert rep.pairs["effect size d_z"].isna().all()
    for name in ("summary.csv", "index.html"):
        _no_nan(files[name])


# --------------------------------------------------------------------------------------------
# empty tables, odd topic ids
# --------------------------------------------------------------------------------------------

_QRELS = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
_RUN = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})


def _empty(*columns: str) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


@pytest.mark.parametrize(
    "what,call,message",
    [
        (
            "runs DataFrame",
            lambda: data.load_runs(_empty("query_id", "doc_id", "score"), _QRELS),
            "run DataFrame: has no rows",
        ),
        (
            "named runs DataFrame",
            lambda: data.load_runs(_empty("qid", "docno", "score", "name"), _QRELS),
            "run DataFrame: has no rows",
        ),
        ("runs dict", lambda: data.load_runs({"x": {}}, _QRELS), "run 'run' has no rows"),
        (
            "qrels DataFrame",
            lambda: data.load_qrels(_empty("query_id", "doc_id", "relevance")),
            "qrels DataFrame: empty",
        ),
        (
            "qrels DataFrame of runs",
            lambda: data.load_runs(_RUN, _empty("qid", "docno", "label")),
            "qrels DataFrame: empty",
        ),
        ("qrels dict", lambda: data.load_qrels({}), "qrels dict: empty"),
    ],
)
def test_an_empty_table_of_runs_or_qrels_is_a_clear_error(what, call, message):
    with pytest.raises(InputError, match=re.escape(message)):
        call()


@pytest.mark.parametrize("source", ["api", "cli"])
def test_a_topic_id_that_is_a_digit_but_no_integer_works(source, tmp_path, run_cli):
    """'²'.isdigit() is True but int('²') fails: topic_order raised ValueError."""
    from irrepro.data._common import topic_order

    assert topic_order(["²", "10", "2"]) == ["10", "2", "²"]  # sorted as strings
    assert topic_order(["10", "2"]) == ["2", "10"]  # integers: numerically, as before
    if source == "api":
        q = data.load_qrels({"²": {"a": 1}, "1": {"b": 1}})
        assert q.topics == ("1", "²")
        rs = data.load_runs({"²": {"a": 1.0}, "1": {"c": 2.0}}, q)
        from irrepro import measures

        assert measures.evaluate(rs, ["AP"])["AP"].scores.tolist() == [[0.0, 1.0]]
        return
    (tmp_path / "q").write_text("² 0 a 1\n1 0 b 1\n")
    (tmp_path / "r").write_text("² Q0 a 1 1.0 r\n1 Q0 c 1 2.0 r\n")
    rc, out, err = run_cli(["eval", "--qrels", tmp_path / "q", tmp_path / "r", "-m", "AP", "-q"])
    assert rc == 0, err
    assert out.splitlines() == ["r\tAP\t1\t0.0000", "r\tAP\t²\t1.0000", "r\tAP\tall\t0.5000"]


@pytest.mark.parametrize("var", ["IRREPRO_ALLOW_SIMULATED", "IRREPRO_REQUIRE_REAL", "IRREPRO_OFFLINE"])
def test_a_yes_no_variable_with_another_value_is_refused_naming_it(var, monkeypatch):
    """IRREPRO_ALLOW_SIMULATED=maybe was taken as no, silently (the audit): the yes / no variables
    take 1 / 0, true / false, yes / no, on / off, and refuse anything else by name."""
    from irrepro.data._fetch import _env_flag

    for value, flag in (("1", True), ("Yes", True), ("on", True), ("", False), ("0", False), ("off", False)):
        monkeypatch.setenv(var, value)
        assert _env_flag(var) is flag
    monkeypatch.setenv(var, "maybe")
    with pytest.raises(irrepro.InputError, match=f"{var} must be 1 or 0 .* not 'maybe'"):
        _env_flag(var)


def test_adjust_pvalues_names_its_methods_for_an_unknown_one():
    """stats.adjust_pvalues(p, "bh") raised statsmodels' bare 'method not recognized' (the audit)."""
    with pytest.raises(irrepro.InputError, match="unknown multiple-comparison method 'bh'.*'fdr_bh'"):
        stats.adjust_pvalues([0.01, 0.2], "bh")
    assert np.allclose(stats.adjust_pvalues([0.01, 0.2], "fdr_bh"), [0.02, 0.2])


# --------------------------------------------------------------------------------------------
# resamples: enough for the interval or the test they are printed as (one check, stats.check_resamples)
# --------------------------------------------------------------------------------------------

#: (level, the smallest B): B >= 100 and B (1 - level) / 2 >= 1, by hand: 2 / 0.05 = 40 -> 100,
#: 2 / 0.01 = 200, 2 / 0.002 = 1000, 2 / 0.001 = 2000, 2 / 1e-7 = 20,000,000.
_INTERVAL_B = [(0.95, 100), (0.99, 200), (0.998, 1000), (0.999, 2000), (0.9999999, 20_000_000)]
#: (alpha, the smallest B): B >= 100 and B >= 1 / alpha: 1 / 0.003 = 333.3 -> 334.
_TEST_B = [(0.05, 100), (0.01, 100), (0.003, 334), (0.001, 1000), (0.0001, 10_000)]


@pytest.mark.parametrize("level, smallest", _INTERVAL_B)
def test_an_interval_needs_100_resamples_and_one_beyond_each_end(level, smallest):
    assert stats.check_resamples(smallest, level=level) == smallest
    assert smallest * (1 - level) / 2 >= 1 - 1e-9 or smallest == 100
    with pytest.raises(InputError, match=rf"^B {smallest - 1}: too few resamples for a .*% interval: .*; "
                                         rf"give B >= {smallest}$"):  # fmt: skip
        stats.check_resamples(smallest - 1, level=level)


@pytest.mark.parametrize("alpha, smallest", _TEST_B)
def test_a_resampling_test_needs_100_resamples_and_one_over_alpha(alpha, smallest):
    assert stats.check_resamples(smallest, alpha=alpha) == smallest
    with pytest.raises(InputError, match=rf"too few resamples for a resampling test at alpha {alpha:g}: .* "
                                         rf"B >= 1 / alpha.*give B >= {smallest}$"):  # fmt: skip
        stats.check_resamples(smallest - 1, alpha=alpha)
    for bad in (0, 1.5, True, "100"):
        with pytest.raises(InputError, match="B must be an integer"):
            stats.check_resamples(bad, alpha=alpha)


#: (m comparisons, alpha, the smallest B for a correction over them, the default B of a test whose
#: own default is 1000): 20 m / alpha by hand (20 x 4 / 0.05 = 1600, 20 x 45 / 0.05 = 18,000,
#: 20 x 7875 / 0.05 = 3,150,000, 20 x 3 / 0.01 = 6000, 20 x 10 / 0.003 = 66,666.7 -> 66,667), the
#: default that number rounded up to a multiple of 1000, never below 1000.
_CORRECTED_B = [(2, 0.05, 800, 1000), (4, 0.05, 1600, 2000), (45, 0.05, 18_000, 18_000),
                (7875, 0.05, 3_150_000, 3_150_000), (3, 0.01, 6000, 6000), (10, 0.003, 66_667, 67_000)]  # fmt: skip


@pytest.mark.parametrize("m, alpha, smallest, default", _CORRECTED_B)
def test_a_corrected_test_needs_20_m_over_alpha_resamples(m, alpha, smallest, default):
    """Issue 42, item 8: Holm / BH / Bonferroni over m comparisons compare a p-value with alpha / m;
    B >= 20 m / alpha resolves it (the default B of compare and report), fewer are refused."""
    for correction in ("holm", "fdr_bh", "bonferroni"):
        assert stats.check_resamples(smallest, alpha=alpha, comparisons=m, correction=correction) == smallest
        with pytest.raises(InputError, match=rf"^-B {smallest - 1}: too few resamples for the x test at alpha "
                                             rf"{alpha:g} adjusted by {correction} over m = {m} comparisons: .*"
                                             rf"B >= 20 m / alpha.*; give -B >= {smallest}$"):  # fmt: skip
            stats.check_resamples(smallest - 1, "-B", alpha=alpha, test="the x test", comparisons=m,
                                  correction=correction)  # fmt: skip
        assert stats.corrected_resamples(m, alpha, correction) == default
    # no correction, or one comparison (nothing to adjust): only B >= 1 / alpha and 100
    for correction, k in (("none", m), (None, m), ("holm", 1)):
        assert stats.check_resamples(100, alpha=0.05, comparisons=k, correction=correction) == 100
        assert stats.corrected_resamples(k, 0.05, correction, default=1000) == 1000
    assert stats.corrected_resamples(m, alpha, "holm", default=10**7) == 10**7  # a larger default stays


@pytest.mark.parametrize("B, m", [(1000, 100), (15_000, 1000)])
def test_below_m_over_alpha_resamples_holm_rejects_nothing(B, m):
    """Why the rule (:func:`irrepro.stats.corrected_resamples`' docstring): a Monte Carlo p-value
    (1 + count) / (B + 1) is at least 1 / (B + 1), and when that exceeds Holm's smallest threshold
    alpha / m (B + 1 < m / alpha) no pair is significant after Holm, however far apart the runs:
    here m pairs whose every p-value is the floor."""
    assert 1 / (B + 1) > 0.05 / m
    p = np.full(m, 1 / (B + 1))  # every resample less extreme than every observed difference
    assert not (stats.adjust_pvalues(p, "holm") < 0.05).any()
    B_rule = stats.corrected_resamples(m, 0.05)
    assert 1 / (B_rule + 1) <= 0.05 / m / 20  # at the rule's B the floor is a 20th of the threshold
    assert (stats.adjust_pvalues(np.full(m, 1 / (B_rule + 1)), "holm") < 0.05).all()


def test_compare_raises_its_default_B_for_the_correction_and_says_so(tmp_path, run_cli):
    """Issue 42, item 8: ``compare --test bootstrap`` over 4 runs (m = 6 pairs, Holm) draws
    20 x 6 / 0.05 = 2400 -> 3000 resamples, not 1000, and says so on stderr and in the methods;
    without a correction it keeps 1000 and says nothing."""
    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1, 1, 0, 1, 1, 0], "b": [0, 0, 1, 0, 1, 1, 0, 0],
                                         "c": [1, 1, 1, 0, 0, 1, 1, 1], "d": [1, 1, 1, 1, 1, 1, 1, 0]})  # fmt: skip
    base = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--test", "bootstrap", "--methods"]
    rc, out, err = run_cli(base)
    assert rc == 0 and err == (
        "irrepro compare: -B 3000: the paired bootstrap test's default 1000 raised for holm over m = 6 "
        "comparisons at alpha 0.05: B >= 20 m / alpha = 2,400 resolves its smallest threshold, alpha / m\n"
    ), err
    assert "B = 3,000" in out and "B = 1,000" not in out, out
    rc, out, err = run_cli([*base, "--correction", "fdr_bh", "--alpha", "0.1"])  # 20 x 6 / 0.1 = 1200
    assert rc == 0 and "-B 2000: " in err and "for fdr_bh over m = 6" in err and "B = 2,000" in out, err
    rc, out, err = run_cli([*base, "--correction", "none"])
    assert rc == 0 and err == "" and "B = 1,000" in out, err
    rc, out, err = run_cli([*base, "--baseline", "a"])  # 3 pairs: 1200 -> 2000
    assert rc == 0 and "-B 2000: " in err and "over m = 3 comparisons" in err and "B = 2,000" in out, err
    rc, out, err = run_cli([*base, "-B", "2399"])
    assert rc == 2 and out == "" and err.startswith("irrepro compare: -B 2399: too few resamples for the paired "
                                                    "bootstrap test at alpha 0.05 adjusted by holm over m = 6 "
                                                    "comparisons: ") and err.endswith("give -B >= 2400\n"), err  # fmt: skip
    rc, out, err = run_cli([*base, "-B", "2400"])
    assert rc == 0 and err == "" and "B = 2,400" in out, err
    # the Python entry point takes the same B
    x = np.random.default_rng(0).random((4, 8))
    table = significance.compare(x, test="bootstrap", seed=1)
    assert {r.B for r in table.tests.values()} == {3000}
    with pytest.raises(InputError, match="give B >= 2400$"):
        significance.compare(x, test="bootstrap", seed=1, B=1000)


def test_a_default_B_past_its_largest_is_refused_before_any_work(tmp_path, run_cli, monkeypatch):
    """All pairs of many runs would need millions of resamples: past DEFAULT_B_MAX the default is
    not raised silently into hours, the user is asked for -B (here the largest set below the 3,000
    that 6 pairs need)."""
    from irrepro.significance import comparison

    monkeypatch.setattr(comparison, "DEFAULT_B_MAX", 2500)
    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1, 1, 0, 1, 1, 0], "b": [0, 0, 1, 0, 1, 1, 0, 0],
                                         "c": [1, 1, 1, 0, 0, 1, 1, 1], "d": [1, 1, 1, 1, 1, 1, 1, 0]})  # fmt: skip
    base = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--test", "bootstrap"]
    rc, out, err = run_cli(base)
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert (
        "needs B >= 20 m / alpha = 2,400" in err
        and "give -B 3000 to draw them" in err
        and "--baseline" in err
    )
    rc, out, err = run_cli([*base, "-B", "3000"])
    assert rc == 0 and err == "", err


def test_the_defaults_and_the_quick_scale_pass_the_resamples_rule():
    """The rule applies to the library's entry points too, so every default must pass it: the
    tests' B, compare's intervals, the simulation's B at both scales, the report's sizes."""
    from irrepro import report
    from irrepro.significance._names import DEFAULT_B
    from irrepro.significance.comparison import B_INTERVALS

    for B in DEFAULT_B.values():
        stats.check_resamples(B, alpha=0.05)
    stats.check_resamples(B_INTERVALS, level=0.95)
    for scale in ("quick", "paper"):
        stats.check_resamples(kt.default_sizes(scale).B, alpha=0.05)
        st = report.settings(scale)
        stats.check_resamples(st.B_tests, level=0.95, alpha=0.05)
        stats.check_resamples(st.B_corpus, level=0.95)


@pytest.mark.parametrize(
    "test", ["bootstrap", "permutation", "tukey", "unpaired-bootstrap", "bootstrap-shift"]
)
def test_compare_refuses_too_few_resamples_for_its_test(test, three_runs, run_cli):
    """``compare --test bootstrap -B 1`` printed significance marks, exit 0 (the audit)."""
    qrels, runs = three_runs
    base = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--test", test, "--baseline", "a"]
    rc, out, err = run_cli([*base, "-B", "1"])
    assert rc == 2 and out == "", err
    assert err.startswith(f"irrepro compare: -B 1: too few resamples for the {significance.TESTS[test]} at "
                          "alpha 0.05: ") and err.endswith("give -B >= 100\n")  # fmt: skip
    rc, out, err = run_cli([*base, "-B", "100"])
    if test == "tukey":  # family-wise by itself: no correction, 100 serve at alpha 0.05
        assert rc == 0 and "B = 100" in out, err
    else:  # Holm over the 2 runs against the baseline: 20 m / alpha = 800 resamples
        assert rc == 2 and out == "" and err.startswith(
            f"irrepro compare: -B 100: too few resamples for the {significance.TESTS[test]} at alpha 0.05 "
            "adjusted by holm over m = 2 comparisons: ") and err.endswith("give -B >= 800\n"), err  # fmt: skip
        rc, out, err = run_cli([*base, "-B", "800"])  # (800 sign flips: all of them, exact, for these topics)
        assert rc == 0 and ("B = 800" in out or test == "permutation" and "exact" in out), err
    rc, out, err = run_cli([*base, "--alpha", "0.0001"])  # the test's default B is checked too
    default = 1000 if test in ("bootstrap", "unpaired-bootstrap", "bootstrap-shift") else 10_000
    if default < 10_000:  # below 1 / alpha
        assert rc == 2 and f"the default -B {default}: " in err, err
    elif test == "permutation":  # Holm over 2 pairs at 0.0001: 400,000, past what a default draws
        assert rc == 2 and "needs B >= 20 m / alpha = 400,000" in err and "give -B 400000" in err, err
    else:  # randomised Tukey HSD: family-wise by itself, 10,000 serve
        assert rc == 0, err


def test_compare_intervals_and_anova_need_resamples_for_their_level(three_runs, run_cli):
    """``--intervals --level 0.9999999`` printed "AP 100% CI" from 1000 resamples (the audit);
    -B sets the intervals' resamples, refused when fewer than one lies beyond each end."""
    qrels, runs = three_runs
    base = ["compare", "--qrels", qrels, *runs, "-m", "AP", "--baseline", "a", "--intervals"]
    rc, out, err = run_cli([*base, "--level", "0.9999999"])
    assert rc == 2 and out == "" and err.startswith(
        "irrepro compare: the default -B 1000: too few resamples for a 99.99999% interval: ") and (
        err.endswith("give -B >= 20000000\n")), err  # fmt: skip
    rc, out, err = run_cli([*base, "--level", "0.999"])
    assert rc == 2 and "give -B >= 2000" in err, err
    rc, out, err = run_cli([*base, "--level", "0.999", "-B", "2000", "--methods"])
    assert rc == 0 and "from 2,000 bootstrap samples of the topics" in out, err
    rc, out, err = run_cli([*base, "-B", "50"])
    assert rc == 2 and "-B 50: too few resamples for a 95% interval" in err, err
    rc, out, err = run_cli(["compare", "--qrels", qrels, *runs, "-m", "AP", "--anova", "-B", "50"])
    assert rc == 2 and "-B 50: too few resamples for the randomised Tukey HSD at alpha 0.05" in err, err
    with pytest.raises(InputError, match="B_intervals 150: too few resamples for a 99% interval"):
        significance.compare(_X, intervals=True, level=0.99, B_intervals=150, seed=1)
    with pytest.raises(InputError, match="the default B 1000: too few resamples for the paired bootstrap"):
        significance.compare(_X, test="bootstrap", alpha=0.0005, seed=1)


def test_design_refuses_too_few_simulated_resamples_before_any_work(three_runs, run_cli):
    """``design --simulate --test bootstrap --sim-B 1`` gave 27 topics where the paired t-test gave
    70 (the audit): a test whose p-value cannot fall between 0 and alpha rejects too often."""
    from irrepro import design

    qrels, runs = three_runs
    out_dir = runs[0].parent.parent / "plan"
    base = ["design", *runs, "--qrels", qrels, "-m", "AP", "--min-diff", "0.1", "--simulate", "--test",
            "bootstrap", "--out", out_dir, "-B", "0"]  # fmt: skip
    rc, out, err = run_cli([*base, "--sim-B", "1"])
    assert rc == 2 and out == "" and not out_dir.exists(), err
    assert err == (
        "irrepro design: --sim-B 1: too few resamples for the simulated paired bootstrap test at alpha 0.05: a "
        "resampling test needs at least 100 resamples and B >= 1 / alpha, so that its p-value, a count of "
        "resamples over B, can fall between 0 and alpha; give --sim-B >= 100\n"
    )
    rc, out, err = run_cli([*base, "--scale", "quick", "--alpha", "0.001", "--power", "0.5"])
    assert rc == 2 and "the default --sim-B 200: " in err and "give --sim-B >= 1000" in err, err
    with pytest.raises(InputError, match="B 20: too few resamples for the simulated paired bootstrap test"):
        design.simulated_power(_X, min_diff=0.1, test=("paired-t", "bootstrap"), B=20, seed=1)


def test_reproduce_refuses_too_few_resamples_for_its_level(tmp_path, run_cli):
    """``reproduce --resamples 2`` printed a "95% BCa" interval that excluded its estimate, and
    ``--level 0.9999999`` "100% BCa intervals" (the audit)."""
    from irrepro import reproduce

    qrels, runs = _write_runs(tmp_path, {n: [1, 0, 1, 1, 0, 1] for n in ("ob", "oa", "rb", "ra")})
    base = ["reproduce", *runs, "--qrels", qrels, "-m", "AP"]
    rc, out, err = run_cli([*base, "--resamples", "2"])
    assert (
        rc == 2
        and out == ""
        and err.startswith("irrepro reproduce: --resamples 2: too few resamples for a 95% interval: ")
        and err.endswith("give --resamples >= 100\n")
    )
    rc, out, err = run_cli([*base, "--level", "0.9999999"])
    assert rc == 2 and "--resamples 1000: too few resamples for a 99.99999% interval" in err, err
    rc, out, err = run_cli([*base, "--resamples", "100"])
    assert rc == 0 and "95% BCa intervals from 100 topic resamples" in out, err
    with pytest.raises(InputError, match="B 99: too few resamples for a 95% interval"):
        reproduce.reproduce_runs(*runs, qrels, B=99)


# --------------------------------------------------------------------------------------------
# levels printed with the digits they need, never "100%"
# --------------------------------------------------------------------------------------------


def test_a_level_is_printed_with_the_digits_it_needs_never_as_100_percent():
    for k in range(1, 17):
        level = 1 - 10.0**-k
        text = stats.level_percent(level)
        assert text.endswith("%") and float(text[:-1]) < 100, (k, text)
        assert math.isclose(float(text[:-1]) / 100, level, rel_tol=1e-13), (k, text)
    assert [stats.level_percent(x) for x in (0.95, 0.9, 0.999, 0.9123456, 0.5)] == [
        "95%", "90%", "99.9%", "91.23456%", "50%"]  # fmt: skip
    frame = significance.effect_sizes(_X, baseline=0, level=0.9123456, B=100, seed=1).to_frame()
    assert "91.23456% low" in frame.columns


def test_every_table_prints_the_level_it_computed(three_runs, run_cli):
    """``:g`` printed 0.9123456 as "91.2346%" (and 0.9999999 as "100%")."""
    qrels, runs = three_runs
    rc, out, err = run_cli(["compare", "--qrels", qrels, *runs, "-m", "AP", "--baseline", "a", "--intervals",
                            "--level", "0.9123456", "--methods"])  # fmt: skip
    assert rc == 0, err
    assert "AP 91.23456% CI" in out and "91.23456% BCa bootstrap interval of the difference" in out
    assert "Intervals: 91.23456% bias-corrected" in out and "91.2346%" not in out
    rs = [runs[0], runs[1], runs[0], runs[2]]
    rc, out, err = run_cli(["reproduce", *rs, "--qrels", qrels, "-m", "AP", "--level", "0.9123456"])
    assert rc == 0 and "91.23456% CI" in out and "91.23456% BCa intervals" in out and "91.2346%" not in out


# --------------------------------------------------------------------------------------------
# --digits: at most the 17 digits a double carries
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["eval", "compare", "reproduce"])
def test_digits_beyond_a_doubles_17_are_refused(command, three_runs, run_cli):
    qrels, runs = three_runs
    base = {"eval": ["eval", "--qrels", qrels, *runs, "-m", "AP"],
            "compare": ["compare", "--qrels", qrels, *runs, "-m", "AP"],
            "reproduce": ["reproduce", runs[0], runs[1], runs[0], runs[2], "--qrels", qrels, "-m", "AP",
                          "--resamples", "100"]}[command]  # fmt: skip
    for bad in ("18", "100"):
        rc, out, err = run_cli([*base, "--digits", bad])
        assert rc == 2 and out == "", err
        assert (
            f"argument --digits: must be an integer from 0 to 17, got {bad}: a double carries at most 17"
            in err
        )
    rc, out, err = run_cli([*base, "--digits", "17"])
    assert rc == 0 and re.search(r"\d\.\d{17}\b", out), err
    if command == "compare":
        with pytest.raises(InputError, match="digits must be an integer from 0 to 17, got 18"):
            significance.compare(_X, digits=18)


# --------------------------------------------------------------------------------------------
# the environment: an empty IRREPRO_ variable is unset; scheduler words as scale words
# --------------------------------------------------------------------------------------------


def test_an_empty_irrepro_variable_is_unset(monkeypatch, tmp_path, run_cli):
    """``IRREPRO_SCALE=`` was refused while ``IRREPRO_JOBS=`` and ``IRREPRO_SCHEDULER=`` meant
    unset; ``IRREPRO_CACHE=' '`` was a directory named ' ' (the audit): one rule for all."""
    from irrepro.book._config import results_dir
    from irrepro.data import _fetch, _sources, cache_dir, mirror_dir

    readers = {
        "IRREPRO_SCALE": parallel.scale, "IRREPRO_JOBS": parallel.env_jobs, "IRREPRO_SCHEDULER": parallel.scheduler,
        "IRREPRO_CACHE": cache_dir, "IRREPRO_MIRROR": mirror_dir, "IRREPRO_RESULTS": results_dir,
        "IRREPRO_OFFLINE": _fetch.is_offline, "IRREPRO_BOOK": book_dir,
        "IRREPRO_ALLOW_SIMULATED": lambda: _sources._simulated_allowed(None),
        "IRREPRO_REQUIRE_REAL": lambda: _sources._simulated_allowed(True),
    }  # fmt: skip
    for var, read in readers.items():
        monkeypatch.delenv(var, raising=False)
        unset = read()
        for empty in ("", " ", "\t"):
            monkeypatch.setenv(var, empty)
            assert read() == unset, (var, empty)
        monkeypatch.delenv(var)
    (tmp_path / "w").mkdir()
    qrels, runs = _write_runs(tmp_path / "w", {"a": [1, 0, 1, 1, 0, 1], "b": [0, 0, 1, 0, 1, 1]})
    monkeypatch.setenv("IRREPRO_SCALE", "")
    rc, out, err = run_cli(["design", *runs, "--qrels", qrels, "-m", "AP", "--min-diff", "0.2", "-B", "0",
                            "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 0 and "paired t-test" in out, err


def test_irrepro_scheduler_takes_local_in_any_case(monkeypatch):
    for word in ("LOCAL", " Local ", "local"):
        monkeypatch.setenv("IRREPRO_SCHEDULER", word)
        assert parallel.scheduler() == "local"
        assert cli.build_parser().parse_args(["compare", "--qrels", "q", "r", "-m", "AP", "--scheduler",
                                              word]).scheduler == "local"  # fmt: skip
    monkeypatch.setenv("IRREPRO_SCHEDULER", "LOCALE")
    with pytest.raises(InputError, match="IRREPRO_SCHEDULER must be a Dask scheduler address"):
        parallel.scheduler()


def test_a_scheduler_error_names_what_the_user_set(monkeypatch, tmp_path, run_cli):
    """design has no --scheduler, yet its scheduler errors named it (the audit): a message names
    IRREPRO_SCHEDULER or --scheduler, whichever was set, before any work."""
    import threading

    qrels, runs = _write_runs(tmp_path, {"a": [1, 0, 1, 1, 0, 1], "b": [0, 0, 1, 0, 1, 1]})
    monkeypatch.setenv("IRREPRO_SCHEDULER", "not an address")
    rc, out, err = run_cli(["design", *runs, "--qrels", qrels, "-m", "AP", "--min-diff", "0.2", "-B", "0",
                            "--out", tmp_path / "plan"])  # fmt: skip
    assert rc == 2 and out == "" and not (tmp_path / "plan").exists()
    assert err == ("irrepro design: IRREPRO_SCHEDULER must be a Dask scheduler address (tcp://host:8786) or "
                   "'local', not 'not an address'\n")  # fmt: skip
    lock = threading.Lock()
    monkeypatch.setenv("IRREPRO_SCHEDULER", "tcp://127.0.0.1:9")
    with pytest.raises(
        InputError, match=r"tcp://127\.0\.0\.1:9 \(IRREPRO_SCHEDULER\): its function"
    ) as env_err:
        parallel.parallel_map(lambda i: (lock, i), [1, 2])
    assert "--scheduler" not in str(env_err.value)
    with parallel.using_scheduler("tcp://127.0.0.1:8", "--scheduler"):
        with pytest.raises(InputError, match=r"tcp://127\.0\.0\.1:8 \(--scheduler\): its function"):
            parallel.parallel_map(lambda i: (lock, i), [1, 2])
