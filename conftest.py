"""The names the docstrings' examples share (pytest's ``doctest_namespace``): ``np`` and ``scores``,
a toy score matrix of 3 systems x 5 topics; ``scores_b``, a second matrix of 4 systems x 5 topics
(the same topics under another measure) for the examples that compare two; ``ev``, the AP and P@2 of
one toy run on two topics (``irrepro.measures.evaluate``'s example) for the examples of its outputs;
``runset``, two runs A and B on two topics (a RunSet with its qrels) for the corpus bootstrap's examples;
``runs_dir`` and ``qrels_file``, three simulated runs on four topics written as TREC run files and
their qrels in a fresh temporary directory, for the examples that read files (``irrepro.report``)."""

import functools

import numpy as np
import pytest


@functools.cache
def _toy_evaluation():
    """``irrepro.measures.evaluate``'s example: AP and P@2 of one run on two topics."""
    from irrepro import data, measures

    qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}})
    runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 1.0}}, qrels)
    return measures.evaluate(runs, ["AP", "P@2"])


@functools.cache
def _toy_runset():
    """Two runs A and B on two topics, with their qrels (the corpus bootstrap's examples)."""
    from irrepro import data

    qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1, "d9": 1}, "q2": {"d2": 1, "d4": 1}})
    return data.load_runs(
        {"A": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d2": 2, "d5": 1}},
         "B": {"q1": {"d5": 2, "d1": 1}, "q2": {"d4": 2, "d2": 1}}},
        qrels,
    )  # fmt: skip


@pytest.fixture(autouse=True)
def _doctest_names(request, doctest_namespace):
    """Put ``np``, ``scores``, ``scores_b``, ``ev``, ``runset`` (and ``runs_dir``, ``qrels_file`` where the example
    names them) into a doctest's namespace (other tests: nothing)."""
    if type(request.node).__name__ != "DoctestItem":
        return
    doctest_namespace["np"] = np
    doctest_namespace["scores"] = np.array(
        [[0.5, 0.6, 0.7, 0.4, 0.9], [0.4, 0.5, 0.5, 0.4, 0.6], [0.5, 0.6, 0.6, 0.5, 0.8]]
    )
    doctest_namespace["scores_b"] = np.array(
        [
            [0.6, 0.5, 0.6, 0.4, 0.7],
            [0.5, 0.4, 0.5, 0.5, 0.5],
            [0.4, 0.5, 0.6, 0.5, 0.8],
            [0.3, 0.6, 0.4, 0.5, 0.6],
        ]
    )
    doctest_namespace["ev"] = _toy_evaluation()
    doctest_namespace["runset"] = _toy_runset()
    if "runs_dir" in (request.node.dtest.docstring or ""):
        from irrepro import data

        tmp = request.getfixturevalue("tmp_path")
        runs = data.synthetic.runs(3, 4, list_length=10, seed=1)
        data.synthetic.write_trec(runs, tmp / "runs", qrels=tmp / "qrels.txt")
        doctest_namespace["runs_dir"], doctest_namespace["qrels_file"] = tmp / "runs", tmp / "qrels.txt"
