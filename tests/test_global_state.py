"""No hidden global state (issue 27, item 3): the library's sizes, seeds and workers are arguments
with fixed defaults (the papers' scale, one worker), so the same Python call gives the same result
whatever ``IRREPRO_SCALE`` and ``IRREPRO_JOBS`` say; the environment is read in one place - the
command line and the book's configuration (:func:`irrepro.book.config`) - and passed down."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irrepro
from irrepro import book, parallel, report
from irrepro import known_truth as kt
from irrepro import simulation as sim
from irrepro import standardize as sz
from irrepro import topic_split as ts
from irrepro.book._config import BookConfig
from irrepro.cli import main as cli_main
from irrepro.data import ScoreMatrix
from irrepro.known_truth import _pvalues

# (scale, jobs) settings of the environment: each call is made under every one and must not move
ENVIRONMENTS = [("paper", "1"), ("quick", "1"), ("quick", "2"), (None, None)]


def _matrix(scores, name="sim"):
    S, T = scores.shape
    return ScoreMatrix(scores, tuple(f"r{i}" for i in range(S)), tuple(str(t) for t in range(T)), "AP", name,
                       "simulated")  # fmt: skip


def _under_every_environment(monkeypatch, call):
    """``call()`` under each setting of IRREPRO_SCALE / IRREPRO_JOBS (unset included)."""
    out = []
    for scale, jobs in ENVIRONMENTS:
        for name, value in (("IRREPRO_SCALE", scale), ("IRREPRO_JOBS", jobs)):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        out.append(call())
    return out


def _equal(a, b):
    """Results equal, field by field (arrays, frames, dataclasses, tuples)."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, tuple | list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _equal(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _equal(a[k], b[k])
    elif hasattr(a, "__dataclass_fields__"):
        assert type(a) is type(b)
        for f in a.__dataclass_fields__:
            _equal(getattr(a, f), getattr(b, f))
    else:
        assert a == b or (a != a and b != b), (a, b)


rng = np.random.default_rng(27)
X = rng.beta(2, 5, size=(5, 12))
Y = rng.beta(2, 5, size=(5, 12))
CALLS = {
    "known_truth.default_sizes": lambda: kt.default_sizes(),
    "known_truth.paired_pvalues": lambda: _pvalues.paired_pvalues(X[:3], Y[:3], seed=1),
    "known_truth.self_significance_null": lambda: kt.self_significance_null(X, n_topics=10, seed=2).share,
    "standardize.default_partitions": lambda: sz.default_partitions(),
    "standardize.partition_experiment": lambda: sz.partition_experiment(X, seed=3),
    "standardize.sampled_standardizers": lambda: sz.sampled_standardizers(X, Y, [2], seed=4),
    "standardize.compare_collections": lambda: sz.compare_collections(X[:, :6], X[:, 6:], seed=5),
    "topic_split.swap_experiment": lambda: ts.swap_experiment(
        [_matrix(X)], sizes=[3], seed=6, filters=["none"]
    ),
    "report.settings": lambda: report.settings(),
    "parallel.n_jobs": lambda: parallel.n_jobs(),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_same_call_gives_the_same_result_whatever_the_environment(name, monkeypatch):
    """Each function whose default IRREPRO_SCALE or IRREPRO_JOBS changed (the partitions, trials,
    resamples, repetitions, report settings and workers) now gives one result: the papers'."""
    first, *rest = _under_every_environment(monkeypatch, CALLS[name])
    for other in rest:
        _equal(first, other)


def test_library_defaults_are_the_papers_and_quick_is_an_argument(monkeypatch):
    monkeypatch.setenv("IRREPRO_SCALE", "quick")
    monkeypatch.setenv("IRREPRO_JOBS", "2")
    assert (*kt.default_sizes()[:2], sz.default_partitions()) == (24_000, 1000, 1000)
    assert (*kt.default_sizes("quick")[:2], sz.default_partitions("quick")) == (
        600,
        200,
        50,
    )
    assert report.settings().scale == "paper" and report.settings("quick").B_tests == 200
    assert parallel.n_jobs() == 1
    assert sz.partition_experiment(X, seed=3).drmse.shape == (1000,)
    assert sz.partition_experiment(X, seed=3, scale="quick").drmse.shape == (50,)
    assert ts.swap_experiment([_matrix(X)], sizes=[3], seed=6, scale="quick").B == 10
    with pytest.raises(irrepro.InputError, match="scale must be 'paper', 'quick' or 'full', not 'huge'"):
        kt.default_sizes("huge")


def test_rejection_experiment_resamples_do_not_follow_the_environment(monkeypatch):
    models = [sim.fit_collection(_matrix(X), seed=7)]
    kw = dict(trials=20, n_pairs=2, seed=8, pairs_per_task=1)
    first, *rest = _under_every_environment(monkeypatch, lambda: kt.rejection_experiment(models, 6, **kw).two)
    for other in rest:
        np.testing.assert_array_equal(first, other)
    same = kt.rejection_experiment(models, 6, B=kt.default_sizes("quick").B, **kw).two
    np.testing.assert_array_equal(kt.rejection_experiment(models, 6, scale="quick", **kw).two, same)


def test_the_book_configuration_reads_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("IRREPRO_SCALE", "quick")
    monkeypatch.setenv("IRREPRO_JOBS", "2")
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path / "results"))
    assert book.config() == BookConfig(scale="quick", jobs=2, results=tmp_path / "results")
    for name in ("IRREPRO_SCALE", "IRREPRO_JOBS", "IRREPRO_RESULTS"):
        monkeypatch.delenv(name)
    assert book.config() == BookConfig(scale="paper", jobs=1, results=None)
    monkeypatch.setenv("IRREPRO_SCALE", "huge")
    with pytest.raises(
        irrepro.InputError, match="IRREPRO_SCALE must be 'paper', 'quick' or 'full', not 'huge'"
    ):
        book.config()


def test_the_comparison_tables_are_written_where_the_caller_says(monkeypatch, tmp_path):
    """compare's results directory is an argument (default: the book configuration's)."""
    rows = [
        {"quantity": "x", "paper": "-", "ours": 1.0, "kind": "count", "ours_se": 0, "se_reason": "counted"}
    ]
    monkeypatch.delenv("IRREPRO_RESULTS", raising=False)
    book.compare("sakai2006evaluating", "Table T", rows, results=tmp_path / "mine")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["sakai2006evaluating-table-t.json"]
    cards = book.scorecard(tmp_path / "mine")
    assert list(next(c for c in cards.values() if len(c))["quantity"]) == ["x"]
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path / "env"))  # the default: the configuration's
    book.compare("sakai2006evaluating", "Table T", rows)
    assert (tmp_path / "env" / "sakai2006evaluating-table-t.json").is_file()


@pytest.mark.parametrize(("env", "options", "want"), [
    ({"IRREPRO_SCALE": "quick", "IRREPRO_JOBS": "2"}, [], ("quick", 2)),
    ({"IRREPRO_SCALE": "paper", "IRREPRO_JOBS": "3"}, [], ("paper", 3)),
    ({}, [], ("paper", -1)),  # report: every core unless told
    ({"IRREPRO_SCALE": "paper", "IRREPRO_JOBS": "3"}, ["--scale", "quick", "-j", "2"], ("quick", 2)),
])  # fmt: skip
def test_the_command_line_reads_the_environment_and_passes_it_down(env, options, want, sim_dir, monkeypatch):
    seen = {}

    def run(*args, **kwargs):
        seen.update(kwargs)
        return sim_dir / "out" / "index.html"

    for name in ("IRREPRO_SCALE", "IRREPRO_JOBS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(report, "run", run)
    rc = cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out",
                   str(sim_dir / "out"), "-q", *options])  # fmt: skip
    assert rc == 0 and (seen["scale"], seen["n_jobs"]) == want


def test_the_command_line_report_honours_irrepro_scale(sim_dir, monkeypatch):
    """End to end: IRREPRO_SCALE=quick gives the report's quick settings (as before)."""
    monkeypatch.setenv("IRREPRO_SCALE", "quick")
    monkeypatch.setenv("IRREPRO_JOBS", "2")
    out = sim_dir / "out"
    rc = cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(out),
                   "-q"])  # fmt: skip
    assert rc == 0
    assert "(IRREPRO_SCALE=quick) gives the same numbers" in (out / "index.html").read_text()


# --------------------------------------------------------------------------------------------
# where the environment is read
# --------------------------------------------------------------------------------------------

PACKAGE = Path(irrepro.__file__).parent
#: the only readers of os.environ: (module, function or None for anywhere in the module)
ENV_READERS = {
    ("cli/__init__.py", None),  # the command line
    ("book/_config.py", None),  # the book's configuration: IRREPRO_SCALE, IRREPRO_JOBS, IRREPRO_RESULTS
    ("_rule.py", "book_dir"),  # IRREPRO_BOOK: where the book's files are
    ("data/_fetch.py", None),  # data locations: IRREPRO_CACHE, IRREPRO_MIRROR, IRREPRO_OFFLINE, ...
    ("parallel.py", "scale"),  # the one reader of IRREPRO_SCALE
    ("parallel.py", "env_jobs"),  # the one reader of IRREPRO_JOBS
    ("parallel.py", "_active"),  # IRREPRO_SCHEDULER: where the tasks run, never what they compute
    ("_env.py", "env"),  # the reader the others call: an empty variable is unset
}
#: the only callers of the environment's scale and workers
SCALE_CALLERS = {"cli/__init__.py", "book/_config.py"}


def _reads(tree):
    """(function, what) of every os.environ / os.getenv use and every call of parallel's readers."""
    found = []

    def visit(node, fn):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else fn
            if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                if child.value.id == "os" and child.attr in ("environ", "getenv", "putenv"):
                    found.append((name, "os." + child.attr))
            if isinstance(child, ast.Call):
                f = child.func
                called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if called in ("scale", "env_jobs"):
                    found.append((name, called + "()"))
                if called == "env":  # irrepro._env.env: os.environ, read for the caller
                    found.append((name, "os.environ (env())"))
            visit(child, name)

    visit(tree, None)
    return found


def test_the_environment_is_read_in_the_listed_places_only():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for fn, what in _reads(ast.parse(path.read_text(), rel)):
            if what.startswith("os."):
                ok = (rel, None) in ENV_READERS or (rel, fn) in ENV_READERS
            else:
                ok = rel in SCALE_CALLERS
            if not ok:
                bad.append(f"{rel}: {what} in {fn or 'the module'}")
    assert not bad, "the environment read outside the CLI and the book's configuration:\n" + "\n".join(bad)


def _n_jobs_of_chapter(path: Path) -> list[str]:
    """The ``n_jobs=`` arguments of a chapter's code cells that are not the configuration's
    workers: ``CFG.jobs`` itself, or a name the chapter binds to ``CFG.jobs`` only."""
    import jupytext

    cells = [c.source for c in jupytext.read(path).cells if c.cell_type == "code"]
    code = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for c in cells for ln in c.splitlines())
    tree = ast.parse(code)
    bound: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, set()).add(ast.unparse(node.value))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "n_jobs":
                    v = ast.unparse(kw.value)
                    if v != "CFG.jobs" and bound.get(v) != {"CFG.jobs"}:
                        bad.append(v)
    return bad


def test_n_jobs_of_chapter_finds_a_hard_coded_count(tmp_path):
    page = tmp_path / "x.md"
    page.write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        "```{code-cell} ipython3\nCFG = book.config()\nJOBS = 2\nW = CFG.jobs\nf(n_jobs=JOBS); g(n_jobs=W); h(n_jobs=CFG.jobs)\n```\n"
    )
    assert _n_jobs_of_chapter(page) == ["JOBS"]


@pytest.mark.parametrize(
    "path", sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.md")), ids=lambda p: p.name
)
def test_chapters_take_their_workers_from_the_configuration(path):
    """Every chapter passes the configuration's workers (``book.config().jobs``: IRREPRO_JOBS) to
    the functions that take ``n_jobs``, never a count of its own (it was ``JOBS = 2``)."""
    assert _n_jobs_of_chapter(path) == []
