"""The tests' independent references: trec_eval binaries and test files named by environment
variables (never by a path on one machine), and pytrec_eval (trec_eval 9's own C code) standing in
for the binary wherever it computes the same thing, so that parity is checked on every machine.

* ``TREC_EVAL``: a trec_eval 10 binary (ranks by double; refuses a run missing a qrels topic
  without ``-c``);
* ``TREC_EVAL_9``: a trec_eval 9.0.x binary (ranks by float, as irrepro by default and pytrec_eval);
* ``TREC_EVAL_TEST``: trec_eval's own ``test/`` directory (qrels, results and expected outputs);
* ``PDFLATEX``: a pdflatex binary (else the one on PATH) for the LaTeX tables (``.ci/run`` installs
  Debian's texlive-latex-recommended and sets it, so CI cannot skip them).

A test that needs one of them and does not find it skips, naming the variable to set.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

#: variable -> what it names (the skip reason says it)
TOOLS = {
    "TREC_EVAL": "a trec_eval 10 binary",
    "TREC_EVAL_9": "a trec_eval 9.0.x binary",
    "TREC_EVAL_TEST": "trec_eval's test/ directory",
}


def tool(var: str, what: str) -> Path:
    """The path the environment variable ``var`` names; unset, skip (``set VAR to ... to run
    WHAT``); set to something else, fail."""
    value = os.environ.get(var, "")
    path = Path(value) if value else None
    if var == "TREC_EVAL_TEST":
        ok = path is not None and path.is_dir()
    else:
        ok = path is not None and path.is_file() and os.access(path, os.X_OK)
    if value and not ok:  # asked for, and not there: a mistake to say, not a check to leave out
        pytest.fail(f"{var}={value} is not {TOOLS[var]}: fix or unset it")
    if not ok:
        pytest.skip(f"set {var} to {TOOLS[var]} to run {what}")
    return path


def pdflatex() -> str:
    """pdflatex: ``PDFLATEX`` when set (fail when it names nothing runnable), else the one on PATH;
    neither, skip naming what to install."""
    import shutil

    value = os.environ.get("PDFLATEX", "")
    if value:
        if not (Path(value).is_file() and os.access(value, os.X_OK)):
            pytest.fail(f"PDFLATEX={value} is not a pdflatex binary: fix or unset it")
        return value
    exe = shutil.which("pdflatex")
    if exe is None:
        pytest.skip("pdflatex not installed (Debian: texlive-latex-recommended; or set PDFLATEX)")
    return exe


def run_trec_eval(binary: Path, qrels, run, *args, cwd=None) -> str:
    """What ``binary *args qrels run`` prints."""
    args = [str(binary), *map(str, args), str(qrels), str(run)]
    return subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd).stdout


def pytrec_eval_scores(
    qrels: dict, run: dict, measures, *, rel: int = 1, complete: bool = True, depth: int | None = None
) -> dict:
    """``{(measure, topic): value}`` computed by pytrec_eval, trec_eval's summary ``all`` included
    as trec_eval forms it: for every topic the run and the qrels share and the summary over them;
    with ``complete`` (``-c``), also every qrels topic the run lacks, evaluated on the empty list,
    and the summary over all the qrels topics. ``depth`` keeps each list's top ``depth``
    documents by score (``-M``; the lists must have no tied scores)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {t: docs for t, docs in run.items() if t in qrels}
    if depth is not None:
        run = {t: dict(sorted(docs.items(), key=lambda x: -x[1])[:depth]) for t, docs in run.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=rel)
    per_topic = evaluator.evaluate(run)
    if complete:
        for t, vals in evaluator.evaluate({t: {} for t in qrels if t not in run}).items():
            # on the empty list pytrec_eval leaves iprec_at_recall_0.00 (and with R = 0 every level,
            # so 11pt_avg) NaN, where trec_eval -c counts 0: an empty list's precision at any recall
            bad = {m for m, v in vals.items() if math.isnan(v)}
            assert all(m.startswith("iprec_at_recall_") or m == "11pt_avg" for m in bad), bad
            per_topic[t] = {m: 0.0 if m in bad else v for m, v in vals.items()}
    out = {(m, t): v for t, vals in per_topic.items() for m, v in vals.items()}
    for m in {m for vals in per_topic.values() for m in vals}:
        out[m, "all"] = pytrec_eval.compute_aggregated_measure(m, [vals[m] for vals in per_topic.values()])
    return out


def pytrec_eval_frame(qrels, run, measures, *, rel: int = 1, complete: bool = True) -> pd.DataFrame:
    """:func:`pytrec_eval_scores` of a qrels file and a run file, as pytrec_eval's own parsers read
    them, as trec_eval's table (measure, query_id, value)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    with open(qrels) as f:
        q = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        r = pytrec_eval.parse_run(f)
    scores = pytrec_eval_scores(q, r, measures, rel=rel, complete=complete)
    return pd.DataFrame([(m, t, v) for (m, t), v in scores.items()], columns=["measure", "query_id", "value"])
