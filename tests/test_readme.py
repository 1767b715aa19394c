"""The README's "Evaluation" and "Your own runs" sections, run as written.

The Python blocks are executed in order in one namespace; the ``irrepro`` commands are run through
the command line's ``main`` on TREC files made from the README's own frames. The same job from a
DataFrame, a PyTerrier-style frame and the command line must give the same numbers, and those
numbers must be pytrec_eval's (and, where ``TREC_EVAL_9`` names the binary, trec_eval's own output).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from _reference import pytrec_eval_frame, run_trec_eval

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here

README = Path(__file__).resolve().parents[1] / "README.md"


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def commands(text: str) -> list[list[str]]:
    """The ``irrepro`` command lines of a section's bash blocks, as argument lists (comments cut)."""
    out = []
    for block in blocks(text, "bash"):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and Path(words[0]).name == "irrepro":
                out.append(words[1:])
    return out


def write_trec(run, qrels, run_path: Path, qrels_path: Path, tag: str = "run") -> None:
    """The README's frames as TREC files (the test's own writer: the format is trec_eval's)."""
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} {tag}\n"
                                for i, (q, d, s) in enumerate(run[["query_id", "doc_id", "score"]].itertuples(index=False))))  # fmt: skip
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False)))  # fmt: skip


@pytest.fixture
def evaluation(tmp_path, monkeypatch):
    """The Evaluation section's Python blocks, run in order in one namespace (in tmp_path)."""
    pytest.importorskip("ir_measures")
    monkeypatch.chdir(tmp_path)
    py = blocks(section("Evaluation"), "python")
    assert len(py) == 2, "the Evaluation section shows a DataFrame block and a PyTerrier block"
    ns: dict = {}
    results = []
    for code in py:
        exec(compile(code, str(README), "exec"), ns)  # the README's own examples
        results.append(ns["scores"])
    return ns, results, tmp_path


def test_readme_evaluation_three_forms_give_the_same_numbers(evaluation, run_cli):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from irrepro import measures

    ns, (frame_scores, pt_scores), tmp = evaluation
    run, qrels = ns["run"], ns["qrels"]
    a = measures.summarize(frame_scores)
    b = measures.summarize(pt_scores)
    assert list(a.columns) == list(b.columns) == ["AP", "nDCG@10"] and list(a.index) == list(b.index) == [
        "run"
    ]
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    # the independent reference: pytrec_eval on the same frames (every qrels topic is retrieved)
    q = {}
    for t, d, g in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        q.setdefault(t, {})[d] = int(g)
    r = {}
    for t, d, s in run[["query_id", "doc_id", "score"]].itertuples(index=False):
        r.setdefault(t, {})[d] = float(s)
    ref = pytrec_eval.RelevanceEvaluator(q, {"map", "ndcg_cut.10"}).evaluate(r)
    for ours, theirs in (("AP", "map"), ("nDCG@10", "ndcg_cut_10")):
        assert a.at["run", ours] == pytest.approx(np.mean([v[theirs] for v in ref.values()]), abs=1e-12)
    # ranx's and pytrec_eval's forms carry the same per-topic values
    ranx_form = measures.to_dict(pt_scores, form="ranx")["run"]
    for t, vals in ref.items():
        assert ranx_form["AP"][t] == pytest.approx(vals["map"], abs=1e-12)
    # the command line, on the same run and qrels as TREC files
    write_trec(run, qrels, tmp / "run.txt", tmp / "qrels.txt")
    (cmd,) = commands(section("Evaluation"))
    rc, out, err = run_cli(cmd)
    assert rc == 0 and err == ""
    got = {m: float(v) for _, m, v in (ln.split("\t") for ln in out.splitlines())}
    assert got == {m: round(float(a.at["run", m]), 4) for m in a.columns}
    rc, out, _ = run_cli([*cmd, "--format", "trec_eval"])
    assert out == measures.to_trec_eval(frame_scores)  # what the README's first block prints


def test_readme_own_runs_commands(evaluation, run_cli):
    """Every command of "Your own runs" runs as written (a runs/ directory of two runs, one of
    them missing a topic); the trec_eval-format one prints trec_eval's own output."""
    ns, _, tmp = evaluation
    run, qrels = ns["run"], ns["qrels"]
    write_trec(run, qrels, tmp / "run.txt", tmp / "qrels.txt")
    (tmp / "runs").mkdir()
    write_trec(run, qrels, tmp / "runs" / "a.txt", tmp / "qrels.txt", tag="a")
    write_trec(run[run["query_id"] == "1"], qrels, tmp / "runs" / "b.txt", tmp / "qrels.txt", tag="b")
    cmds = commands(section("Your own runs"))
    assert len(cmds) == 3
    outputs = []
    for cmd in cmds:
        rc, out, err = run_cli(cmd)
        assert rc == 0, err
        outputs.append((cmd, out, err))
    # the runs/ commands name run b, which lacks topic 2
    assert "run b: 1 of the 2 qrels topics retrieved; 1 missing, scored 0 (trec_eval -c): 2" in outputs[0][2]
    assert "1 missing, left out of its average: 2" in outputs[2][2]
    lines = dict(((r, m), float(v)) for r, m, v in (ln.split("\t") for ln in outputs[2][1].splitlines()))
    assert set(lines) == {("a", "AP"), ("a", "gm_map"), ("b", "AP"), ("b", "gm_map")}
    for r in ("a", "b"):  # without -c: trec_eval's own average over the run's topics (pytrec_eval's)
        ref = pytrec_eval_frame(tmp / "qrels.txt", tmp / "runs" / f"{r}.txt", ["map", "gm_map"],
                                complete=False)  # fmt: skip
        ref = ref[ref["query_id"] == "all"].set_index("measure")["value"]
        assert lines[(r, "AP")] == pytest.approx(ref["map"], abs=5e-5 + 1e-12)  # 4 decimals printed
        assert lines[(r, "gm_map")] == pytest.approx(ref["gm_map"], abs=5e-5 + 1e-12)


def test_readme_trec_eval_format_command_prints_trec_eval_9s_output(evaluation, run_cli, trec_eval_9):
    """The "Your own runs" command with ``--format trec_eval`` prints, byte for byte, what the
    trec_eval 9 binary prints for the same job."""
    ns, _, tmp = evaluation
    write_trec(ns["run"], ns["qrels"], tmp / "run.txt", tmp / "qrels.txt")
    (cmd,) = [c for c in commands(section("Your own runs")) if "trec_eval" in c]
    rc, out, err = run_cli(cmd)
    assert rc == 0, err
    ref = run_trec_eval(trec_eval_9, "qrels.txt", "run.txt", "-m", "runid", "-m", "map", "-q", "-c", cwd=tmp)
    assert out == ref
