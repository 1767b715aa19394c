"""``irrepro reproduce`` (issue 29, item 1): the printed numbers are the API's
(:func:`irrepro.reproduce.reproduce_runs`) in every format, directories give one experiment per
file name, replicability prints only what is defined on other topics, and bad input exits 2
naming the files."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from irrepro import data, reproduce

pytestmark = pytest.mark.filterwarnings("error")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two experiments of simulated runs as four directories (x and y in each), their qrels and
    other qrels for a replication."""
    d = tmp_path_factory.mktemp("runs")
    rs = data.synthetic.runs(8, 12, list_length=30, seed=5)
    data.synthetic.write_trec(rs, d / "all", qrels=d / "q.txt")
    other = data.synthetic.runs(4, 9, list_length=30, seed=6)
    data.synthetic.write_trec(other, d / "other", qrels=d / "q2.txt")
    for k, role in enumerate(["ob", "oa", "rb", "ra"]):
        (d / role).mkdir()
        for j, name in enumerate(["x", "y"]):
            (d / role / name).write_text((d / "all" / rs.runs[2 * k + j]).read_text())
        if role in ("rb", "ra"):
            (d / f"{role}2").mkdir()
            for j, name in enumerate(["x", "y"]):
                (d / f"{role}2" / name).write_text((d / "other" / other.runs[2 * (k - 2) + j]).read_text())
    return d


def _api(d, **kw):
    return reproduce.reproduce_runs(d / "ob", d / "oa", d / "rb", d / "ra", d / "q.txt", measures=["AP", "P@10"],
                                    B=300, seed=3, **kw).to_frame()  # fmt: skip


ARGS = ["-m", "AP", "-m", "P@10", "--resamples", "300", "--seed", "3"]


def test_csv_and_json_carry_the_apis_numbers(runs, run_cli):
    d = runs
    want = _api(d)
    rc, out, err = run_cli(["reproduce", d / "ob", d / "oa", d / "rb", d / "ra", "--qrels", d / "q.txt", *ARGS,
                            "--format", "csv"])  # fmt: skip
    assert rc == 0, err
    got = list(csv.DictReader(io.StringIO(out)))
    # 2 experiments x (2 runs x (KTU, RBO, RMSE and p of 2 measures) + ER and Delta RI of 2 measures)
    assert len(got) == len(want) == 2 * (2 * (2 + 2 * 2) + 2 * 2)
    for g, w in zip(got, want.itertuples(index=False)):
        assert (g["experiment"], g["run"], g["measure"], g["statistic"]) == (
            w.experiment,
            w.run,
            w.measure,
            w.statistic,
        )
        assert [float(g[c]) for c in ("value", "low", "high")] == [w.value, w.low, w.high]
    rc, out, _ = run_cli(["reproduce", d / "ob", d / "oa", d / "rb", d / "ra", "--qrels", d / "q.txt", *ARGS,
                          "--format", "json"])  # fmt: skip
    doc = json.loads(out)
    assert doc["kind"].startswith("reproducibility") and doc["resamples"] == 300 and doc["level"] == 0.95
    assert [r["value"] for r in doc["rows"]] == list(want["value"])


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_the_tables_show_every_value_with_its_interval(runs, run_cli, fmt):
    d = runs
    want = _api(d, level=0.9)
    rc, out, err = run_cli(["reproduce", d / "ob", d / "oa", d / "rb", d / "ra", "--qrels", d / "q.txt", *ARGS,
                            "--level", "90", "--format", fmt, "--digits", "3"])  # fmt: skip
    assert rc == 0, err
    for w in want.itertuples(index=False):
        assert f"{w.value:.3f} [{w.low:.3f}, {w.high:.3f}]" in out
    assert "90% BCa intervals from 300 topic resamples" in out


def test_replicability_prints_er_delta_ri_and_unpaired_p_values_only(runs, run_cli):
    d = runs
    rc, out, err = run_cli(["reproduce", d / "ob", d / "oa", d / "rb2", d / "ra2", "--qrels", d / "q.txt",
                            "--repro-qrels", d / "q2.txt", *ARGS, "--format", "csv"])  # fmt: skip
    assert rc == 0, err
    got = list(csv.DictReader(io.StringIO(out)))
    assert {g["statistic"] for g in got} == {"p-value", "ER", "DeltaRI"}
    want = reproduce.reproduce_runs(d / "ob", d / "oa", d / "rb2", d / "ra2", d / "q.txt", repro_qrels=d / "q2.txt",
                                    measures=["AP", "P@10"], B=300, seed=3).to_frame()  # fmt: skip
    assert [float(g["value"]) for g in got] == list(want["value"])


def test_bad_input_exits_2_naming_the_files(runs, run_cli, tmp_path):
    d = runs
    rc, out, err = run_cli(["reproduce", d / "ob", d / "oa", d / "rb", tmp_path / "gone", "--qrels", d / "q.txt"])  # fmt: skip
    assert rc == 2 and out == "" and f"{tmp_path / 'gone'}: no such file or directory" in err
    (tmp_path / "ra").mkdir()
    (tmp_path / "ra" / "x").write_text((d / "ra" / "x").read_text())
    rc, out, err = run_cli(["reproduce", d / "ob", d / "oa", d / "rb", tmp_path / "ra", "--qrels", d / "q.txt"])  # fmt: skip
    assert rc == 2 and f"{tmp_path / 'ra'}/ has no 'y'" in err
    rc, out, err = run_cli(["reproduce", d / "ob", d / "oa", d / "rb", d / "ra", "--qrels", d / "q.txt",
                            "--resamples", "0"])  # fmt: skip
    assert rc == 2 and "--resamples: must be an integer >= 1" in err


def _strict(text: str):
    """``text`` read by a strict JSON parser: a bare NaN or Infinity (not JSON) is an error."""

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _undefined_experiments(d: Path, tmp_path: Path) -> list[Path]:
    """Two experiments: "same", whose original advanced run is its baseline (no effect: ER
    undefined), and "zero", whose original baseline retrieves nothing relevant (mean AP 0: Delta RI
    infinite); the four directories."""
    for role in ("ob", "oa", "rb", "ra"):
        (tmp_path / role).mkdir()
        same = (d / role / "x").read_text() if role != "oa" else (d / "ob" / "x").read_text()
        (tmp_path / role / "same").write_text(same)
        text = (d / role / "y").read_text()
        if role == "ob":  # every document unjudged: AP 0 on every topic
            text = "".join(f"{t} Q0 junk{i}-{doc} {r} {s} {tag}\n"
                           for i, (t, _, doc, r, s, tag) in enumerate(ln.split() for ln in text.splitlines()))  # fmt: skip
        (tmp_path / role / "zero").write_text(text)
    return [tmp_path / r for r in ("ob", "oa", "rb", "ra")]


def test_json_is_strict_with_the_reason_of_each_undefined_number(runs, tmp_path, run_cli):
    """The two experiments of :func:`_undefined_experiments`: strict JSON, each undefined number null
    with its reason beside it, every other number the API's."""
    d = runs
    files = _undefined_experiments(d, tmp_path)
    api = reproduce.reproduce_runs(*files, d / "q.txt", measures=["AP"], B=200, seed=1).to_frame()
    rc, out, err = run_cli(["reproduce", *files, "--qrels", d / "q.txt", "-m", "AP", "--resamples", "200",
                            "--seed", "1", "--format", "json"])  # fmt: skip
    assert rc == 0, err
    rows = _strict(out)["rows"]
    assert len(rows) == len(api)
    undefined = {}
    for got, want in zip(rows, api.to_dict(orient="records")):
        for c in ("value", "low", "high"):
            if math.isfinite(want[c]):
                assert got[c] == want[c]
            else:
                assert got[c] is None and got["reason"], got
        if not math.isfinite(want["value"]):
            undefined[want["experiment"], want["statistic"]] = (want["value"], got["reason"])
    assert undefined["same", "ER"][1].startswith("no effect to reproduce: the original advanced and baseline")
    assert math.isinf(undefined["zero", "DeltaRI"][0])  # 0.1 / 0: what json.dumps wrote as Infinity
    assert "baseline run's mean AP is 0" in undefined["zero", "DeltaRI"][1]
    assert set(undefined) == {("same", "ER"), ("zero", "DeltaRI")}


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv"])
def test_the_tables_say_undefined_and_why_never_nan(runs, tmp_path, run_cli, fmt):
    """The same two experiments in every table format: no "nan" or "inf"; an undefined number reads
    "undefined" with a numbered reason under the table (csv: an empty cell, the reason in its column)."""
    files = _undefined_experiments(runs, tmp_path)
    rc, out, err = run_cli(["reproduce", *files, "--qrels", runs / "q.txt", "-m", "AP", "--resamples", "200",
                            "--seed", "1", "--format", fmt])  # fmt: skip
    assert rc == 0, err
    assert not re.search(r"\b(nan|inf)\b", out, re.I), out
    if fmt == "csv":
        got = {(r["experiment"], r["statistic"]): r for r in csv.DictReader(io.StringIO(out))}
        assert got["same", "ER"]["value"] == "" and got["same", "ER"]["reason"].startswith(
            "no effect to reproduce"
        )
        assert got["zero", "DeltaRI"]["value"] == "" and "mean AP is 0" in got["zero", "DeltaRI"]["reason"]
        assert got["same", "RMSE"]["reason"] == "" and math.isfinite(float(got["same", "RMSE"]["value"]))
        return
    assert out.count("undefined (") == 2
    assert "(1) no effect to reproduce" in out and "mean AP is 0" in out


def test_runs_missing_topics_get_their_coverage_line_and_the_note_says_what_each_number_averages(
    tmp_path, run_cli
):
    """reproduce said nothing of runs that miss topics (eval, compare and design print a line per
    run), nor that KTU and RBO average over the topics both runs ranked while RMSE, ER and p take
    every qrels topic, a missed one scoring 0 (the audit). The reproduced baseline misses 2 of 6
    topics: by hand, KTU = 1 (four identical rankings; 4/6 if a missed topic counted 0), RMSE of AP
    = sqrt(2/6) (AP 1 against 0 on two topics), ER = (-1/6) / (-1/2) = 1/3 (1 without them)."""
    from scipy.stats import kendalltau

    (tmp_path / "q.txt").write_text("".join(f"{t} 0 d1 1\n{t} 0 d2 0\n" for t in range(1, 7)))

    def write(name, topics, docs):
        (tmp_path / name).write_text("".join(f"{t} Q0 {d} {i + 1} {3 - i} {name}\n"
                                             for t in topics for i, d in enumerate(docs)))  # fmt: skip
        return tmp_path / name

    ob, oa = write("ob", range(1, 7), ("d1", "d2", "d3")), write("oa", range(1, 7), ("d2", "d1", "d3"))
    rb, ra = write("rb", range(1, 5), ("d1", "d2", "d3")), write("ra", range(1, 7), ("d2", "d1", "d3"))
    base = ["reproduce", ob, oa, rb, ra, "--qrels", tmp_path / "q.txt", "-m", "AP", "--resamples", "100"]
    rc, out, err = run_cli([*base, "--format", "csv"])
    assert rc == 0, err
    _, _, eval_err = run_cli(["eval", "--qrels", tmp_path / "q.txt", rb, "-m", "AP"])
    assert eval_err.startswith("irrepro eval: run rb: 4 of the 6 qrels topics retrieved; 2 missing")
    assert err == eval_err.replace("irrepro eval: run rb:", f"irrepro reproduce: run {rb}:")
    got = {(r["run"], r["statistic"]): float(r["value"]) for r in csv.DictReader(io.StringIO(out))}
    taus = [kendalltau([0, 1, 2], [0, 1, 2]).statistic for _ in range(4)]  # the topics both ranked
    assert got["baseline", "KTU"] == pytest.approx(sum(taus) / len(taus))
    assert got["baseline", "RMSE"] == pytest.approx(math.sqrt(((1 - 1) ** 2 * 4 + (1 - 0) ** 2 * 2) / 6))
    assert got["effect", "ER"] == pytest.approx(((0.5 - 1) * 4 + (0.5 - 0) * 2) / 6 / (0.5 - 1))
    rc, out, err = run_cli(base)
    assert rc == 0 and out.splitlines()[-1].endswith(
        "KTU, RBO: over the topics both runs ranked; RMSE, ER, Delta RI, p: over all the qrels' topics, a topic a "
        "run misses scoring 0"), out  # fmt: skip
    rc, out, err = run_cli(["reproduce", "--help"])
    help_text = " ".join(out.split())
    assert (
        rc == 0
        and "KTU and RBO compare two rankings, so they are means over the topics both runs ranked"
        in help_text
    )
    assert "A topic a run misses scores 0 (trec_eval -c) in RMSE, ER, Delta RI and the p-values" in help_text
