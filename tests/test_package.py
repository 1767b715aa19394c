"""The package's shape: method modules import neither matplotlib nor the book's machinery, no two
public classes share a name, and the names before the reorganisation (CHANGELOG.md lists them
once) are gone: nothing was released under them."""

import ast
import dataclasses
import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import irrepro
from irrepro import corpus_bootstrap as cb
from irrepro import data, plots, stats
from irrepro import known_truth as kt
from irrepro import sensitivity as bt
from irrepro import significance as sg
from irrepro import standardize as sz
from irrepro import topic_split as ts
from irrepro.significance.bootstrap import BootstrapResult

PACKAGE = Path(irrepro.__file__).parent
#: The method modules: they compute, and draw or format nothing.
METHOD_MODULES = [
    "irrepro.data",
    "irrepro.measures",
    "irrepro.stats",
    "irrepro.parallel",
    "irrepro.corpus_bootstrap",
    "irrepro.sensitivity",
    "irrepro.significance",
    "irrepro.topic_split",
    "irrepro.standardize",
    "irrepro.reproduce",
    "irrepro.simulation",
    "irrepro.known_truth",
]


def _all_modules() -> list[str]:
    return ["irrepro"] + [m.name for m in pkgutil.walk_packages([str(PACKAGE)], "irrepro.")]


#: A child that has imported what every method module imports (numpy, scipy.stats, pandas) once,
#: then forks a fresh copy of itself per module asked for (stdin: a module name; stdout: one JSON
#: line, the modules the copy holds after importing it, or the import's error): what a fresh
#: interpreter holds after the import, plus that common part (which holds neither matplotlib nor
#: irrepro: checked), without paying for the common part 14 times.
_PROBE = r"""
import json, os, sys, traceback
import numpy, pandas, scipy.stats
print(json.dumps(sorted(sys.modules)), flush=True)
for line in sys.stdin:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            __import__(line.strip())
            out = {"modules": sorted(sys.modules)}
        except BaseException:
            out = {"error": traceback.format_exc()}
        with os.fdopen(w, "w") as f:
            f.write(json.dumps(out))
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    os.waitpid(pid, 0)
    print(text, flush=True)
"""


@pytest.fixture(scope="module")
def imported_by():
    """``imported_by(module)`` -> the modules a fresh interpreter holds after importing ``module``,
    with the common part :data:`_PROBE` loads first (``imported_by.base``; checked to hold no
    module the tests look for)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    with subprocess.Popen(
        [sys.executable, "-c", _PROBE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    ) as probe:
        assert probe.stdin is not None and probe.stdout is not None
        base = set(json.loads(probe.stdout.readline()))
        assert not {m for m in base if m.split(".")[0] == "matplotlib" or m.startswith("irrepro")}, base

        def get(module: str) -> set[str]:
            probe.stdin.write(module + "\n")
            probe.stdin.flush()
            out = json.loads(probe.stdout.readline())
            assert "error" not in out, out.get("error")
            return set(out["modules"])

        get.base = base  # type: ignore[attr-defined]
        yield get
        probe.stdin.close()


@pytest.mark.parametrize("module", METHOD_MODULES)  # a subpackage's import loads all its modules
def test_method_modules_import_no_matplotlib_and_no_book(module, imported_by):
    loaded = imported_by(module)
    assert "matplotlib" not in loaded, f"{module} imports matplotlib"
    assert "irrepro.book" not in loaded and "irrepro.report" not in loaded, f"{module} imports the book"


def test_the_import_probe_sees_what_a_fresh_interpreter_sees(imported_by):
    """The probe's list is a fresh interpreter's plus the common part: it sees matplotlib and the
    book when they are imported (``irrepro.plots`` imports matplotlib only when it draws), and for
    ``irrepro.stats`` and ``irrepro.report`` it holds every module ``python -c`` lists and nothing
    else outside the common part."""
    assert "matplotlib" in imported_by("matplotlib.pyplot") and "irrepro.book" in imported_by("irrepro.book")
    for module in ("irrepro.stats", "irrepro.report"):
        code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
        fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        seen, listed = imported_by(module), set(fresh.stdout.split())
        assert listed <= seen and seen - listed <= imported_by.base, (module, listed ^ seen)


def test_only_plots_report_and_book_mention_matplotlib():
    users = sorted(
        str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if "matplotlib" in p.read_text()
    )
    users = [u for u in users if not u.startswith("book/")]  # the book's machinery may draw
    # escape.py writes matplotlib's text format (irrepro.escape.mpl) and imports nothing of it
    users = ["plots.py" if u.startswith("plots/") else u for u in users]  # the plots subpackage
    assert set(users) <= {"plots.py", "report/__init__.py", "report/_page.py", "escape.py"}, users


def test_report_takes_nothing_from_the_book(imported_by):
    for path in sorted((PACKAGE / "report").glob("*.py")) + [PACKAGE / "_user_inputs.py"]:
        tree = ast.parse(path.read_text())
        from_book = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module in ("book", "irrepro.book")
        ]
        assert not from_book, path.name
    assert "irrepro.book" not in imported_by("irrepro.report")


def test_no_two_public_classes_share_a_name():
    seen: dict[str, object] = {}
    for name in _all_modules():
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr)
            if inspect.isclass(obj) and obj.__module__.startswith("irrepro"):
                other = seen.setdefault(attr, obj)
                assert other is obj, f"two public classes named {attr}: {other} and {obj}"


def test_book_slug_still_works():
    from irrepro import _text, book

    assert book.slug is _text.slug and book.slug("Table 1: MAP") == "table-1--map"


# ---------------------------------------------------------------- the names before the reorganisation

MOVED = [  # (module, old name, its new object)
    (cb, "Z95", stats.Z95),
    (cb, "logit", stats.logit),
    (cb, "expit", stats.expit),
    (cb, "bca_interval", stats.bca_interval),
    (cb, "jackknife_acceleration", stats.jackknife_acceleration),
    (cb, "MetaAnalysis", stats.MetaAnalysis),
    (cb, "meta_analysis", stats.meta_analysis),
    (cb, "plot_run_intervals", plots.plot_run_intervals),
    (bt, "kendall_tau", stats.kendall_tau),
    (bt, "SwapResult", bt.study.SwapRates),
    (sz, "kendall_tau", stats.kendall_tau),
    (ts, "SwapResult", ts.SwapExperiment),
    (ts, "plot_error_rates", plots.plot_error_rates),
    (ts, "paired_t_pvalues", sg.paired_t_pvalues),
    (ts, "sign_test_pvalues", sg.sign_test_pvalues),
    (ts, "wilcoxon_pvalues", sg.wilcoxon_pvalues),
    (bt, "PairwiseTest", BootstrapResult),
    (bt, "paired_test", sg.paired_bootstrap_test),
    (bt, "unpaired_test", sg.unpaired_bootstrap_test),
    (kt, "type1_figure", plots.plot_rate_panels),
    (kt, "by_delta_figure", plots.plot_rate_panels),
    (data, "simulate", data.synthetic),
]


@pytest.mark.parametrize("module, old, new", MOVED, ids=[f"{m.__name__}.{o}" for m, o, _ in MOVED])
def test_a_moved_name_is_served_only_where_it_lives(module, old, new):
    assert not hasattr(module, old)
    with pytest.raises(ImportError):
        exec(f"from {module.__name__} import {old}", {})


RENAMED_ARGUMENTS = [  # (function, old keyword, new keyword)
    (cb.bootstrap_ap, "n_boot", "B"),
    (cb.sampler.bootstrap_ap_reference, "n_boot", "B"),
    (cb.split_validation, "n_boot", "B"),
    (cb.full_corpus, "n_boot", "B"),
    (cb.difference_intervals, "n_boot", "B"),
    (ts.swap_experiment, "repetitions", "B"),
    (ts.map_sd, "n_samples", "B"),
    (sz.partition_experiment, "n_partitions", "B"),
    (sz.compare_collections, "n_partitions", "B"),
    (sz.sampled_standardizers, "n_samples", "B"),
    (bt.comparisons, "confidence", "level"),
    (bt.comparisons, "method", "correction"),
    (BootstrapResult.confidence_interval, "confidence", "level"),
]


@pytest.mark.parametrize(
    "fn, old, new", RENAMED_ARGUMENTS, ids=[f"{f.__qualname__}-{o}" for f, o, _ in RENAMED_ARGUMENTS]
)
def test_a_function_takes_its_argument_by_the_new_name_only(fn, old, new):
    params = inspect.signature(fn).parameters
    assert new in params and old not in params
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{old}'"):
        fn(**{old: 1})


def test_result_classes_have_only_the_new_attribute_names():
    from irrepro import report

    renamed = [
        (cb.validation.SplitValidation, "n_boot", "B"),
        (ts.SwapExperiment, "repetitions", "B"),
        (bt.per_comparison.BootstrapComparison, "asl", "p"),
        (bt.per_comparison.BootstrapComparison, "asl_adjusted", "p_adjusted"),
        (bt.per_comparison.BootstrapComparison, "adjustment", "correction"),
        (BootstrapResult, "asl", "p"),
        (BootstrapResult, "observed", "difference"),
        *[(report.Settings, o, n) for o, n in (("B", "B_tests"), ("n_boot", "B_corpus"),
                                                ("repetitions", "B_swap"), ("partitions", "B_halves"))],
    ]  # fmt: skip
    for cls, old, new in renamed:
        assert new in {f.name for f in dataclasses.fields(cls)}, (cls, new)
        assert not hasattr(cls, old), (cls, old)
    with pytest.raises(TypeError, match="n_boot"):
        report.Settings(B_tests=1, n_boot=1, B_swap=1, max_size=2, B_halves=1, scale="quick")


def test_changelog_lists_every_renamed_name_once():
    text = (PACKAGE.parent / "CHANGELOG.md").read_text()
    was = {"irrepro.sensitivity": "irrepro.bootstrap_tests"}  # a package renamed since (CHANGELOG)
    for module, old, _new in MOVED:
        assert text.count(f"`{was.get(module.__name__, module.__name__)}.{old}`") == 1, old
    for fn, old, _new in RENAMED_ARGUMENTS:
        assert f"`{old}`" in text and fn.__name__ in text, (fn, old)
    assert "DeprecationWarning" not in text.split("\n## ", 2)[1]  # the unreleased section
