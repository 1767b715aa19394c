"""The package's shape: method modules import neither matplotlib nor the book's machinery, no two
public classes share a name, and every renamed or moved public name (CHANGELOG.md) still works
for one release with a DeprecationWarning."""

import ast
import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import irrepro
from irrepro import bootstrap_tests as bt
from irrepro import corpus_bootstrap as cb
from irrepro import plots, stats
from irrepro import significance as sg
from irrepro import standardize as sz
from irrepro import topic_split as ts

PACKAGE = Path(irrepro.__file__).parent
#: The method modules: they compute, and draw or format nothing.
METHOD_MODULES = [
    "irrepro.data",
    "irrepro.measures",
    "irrepro.stats",
    "irrepro.parallel",
    "irrepro.corpus_bootstrap",
    "irrepro.bootstrap_tests",
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
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


# ---------------------------------------------------------------- the old names, one release more

MOVED = [  # (module, old name, new object)
    (cb, "Z95", stats.Z95),
    (cb, "logit", stats.logit),
    (cb, "expit", stats.expit),
    (cb, "bca_interval", stats.bca_interval),
    (cb, "jackknife_acceleration", stats.jackknife_acceleration),
    (cb, "MetaAnalysis", stats.MetaAnalysis),
    (cb, "meta_analysis", stats.meta_analysis),
    (cb, "plot_run_intervals", plots.plot_run_intervals),
    (bt, "kendall_tau", stats.kendall_tau),
    (bt, "SwapResult", bt.SwapRates),
    (sz, "kendall_tau", stats.kendall_tau),
    (ts, "SwapResult", ts.SwapExperiment),
    (ts, "plot_error_rates", plots.plot_error_rates),
    (ts, "paired_t_pvalues", sg.paired_t_pvalues),
    (ts, "sign_test_pvalues", sg.sign_test_pvalues),
    (ts, "wilcoxon_pvalues", sg.wilcoxon_pvalues),
    (bt, "PairwiseTest", sg.BootstrapResult),
    (bt, "paired_test", sg.paired_bootstrap_test),
    (bt, "unpaired_test", sg.unpaired_bootstrap_test),
]


@pytest.mark.parametrize("module, old, new", MOVED, ids=[f"{m.__name__}.{o}" for m, o, _ in MOVED])
def test_moved_names_warn_and_give_the_new_object(module, old, new):
    with pytest.warns(DeprecationWarning, match=rf"{module.__name__}\.{old} is deprecated"):
        assert getattr(module, old) is new
    with pytest.warns(DeprecationWarning):
        got = {}
        exec(f"from {module.__name__} import {old} as x", got)
    assert got["x"] is new
    with pytest.raises(AttributeError):
        _ = module.no_such_name


def test_changelog_lists_every_moved_name():
    text = (PACKAGE.parent / "CHANGELOG.md").read_text()
    for module, old, _new in MOVED:
        assert f"{module.__name__}.{old}" in text, old
    for fn, old in RENAMED_ARGUMENTS:
        assert f"`{old}`" in text and fn.__name__ in text, (fn, old)


def _toy_runset():
    from irrepro.data import simulate

    return simulate.runs(3, 4, list_length=30, r_median=6, seed=5)


def _same(a, b):
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif hasattr(a, "__dataclass_fields__"):
        for f in a.__dataclass_fields__:
            _same(getattr(a, f), getattr(b, f))
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, list):
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif hasattr(a, "equals"):
        assert a.equals(b)
    else:
        assert a == b or (a != a and b != b)


RENAMED_ARGUMENTS = [  # (function, old keyword)
    (cb.bootstrap_ap, "n_boot"),
    (cb.bootstrap_ap_reference, "n_boot"),
    (cb.ap_intervals, "n_boot"),
    (cb.split_validation, "n_boot"),
    (cb.full_corpus, "n_boot"),
    (cb.difference_intervals, "n_boot"),
    (ts.swap_experiment, "repetitions"),
    (ts.map_sd, "n_samples"),
    (sz.partition_experiment, "n_partitions"),
    (sz.compare_collections, "n_partitions"),
    (sz.sampled_standardizers, "n_samples"),
    (bt.comparisons, "confidence"),
    (sg.BootstrapResult.confidence_interval, "confidence"),
]


def _calls(fn):
    """(positional args, new keyword, value) for a call of ``fn`` on small inputs."""
    rng = np.random.default_rng(3)
    x = rng.beta(2, 5, size=(6, 24))
    if fn in (cb.bootstrap_ap, cb.ap_intervals, cb.split_validation, cb.full_corpus):
        return (_toy_runset(),), {"seed": 1}, "B", 20
    if fn is cb.bootstrap_ap_reference:
        return (np.array([1, 0, 1, 0], bool), 3), {"seed": 1}, "B", 20
    if fn is cb.difference_intervals:
        rs = _toy_runset()
        return (rs, rs.runs[0], rs.runs[1]), {"seed": 1}, "B", 20
    if fn is ts.swap_experiment:
        from irrepro.data import ScoreMatrix

        m = ScoreMatrix(x, tuple(f"s{i}" for i in range(6)), tuple(str(t) for t in range(24)), "AP", "toy")
        return ([m],), {"sizes": [5], "seed": 1}, "B", 3
    if fn is ts.map_sd:
        from irrepro.data import ScoreMatrix

        m = ScoreMatrix(x, tuple(f"s{i}" for i in range(6)), tuple(str(t) for t in range(24)), "AP", "toy")
        return (m, [5]), {"seed": 1}, "B", 4
    if fn is sz.partition_experiment:
        return (x,), {"seed": 1}, "B", 5
    if fn is sz.compare_collections:
        return (x[:, :12], x[:, 12:]), {"seed": 1}, "B", 5
    if fn is sz.sampled_standardizers:
        return (x, x[:3], [2, 4]), {"seed": 1}, "B", 5
    test = sg.paired_bootstrap_test(x, B=50, seed=1)
    if fn is bt.comparisons:
        return (test,), {}, "level", 0.9
    return (test,), {}, "level", 0.9  # PairwiseTest.confidence_interval (unbound: self first)


@pytest.mark.parametrize(
    "fn, old", RENAMED_ARGUMENTS, ids=[f"{f.__qualname__}-{o}" for f, o in RENAMED_ARGUMENTS]
)
def test_renamed_arguments_warn_and_give_the_same_result(fn, old):
    args, kw, new, value = _calls(fn)
    expected = fn(*args, **kw, **{new: value})
    with pytest.warns(DeprecationWarning, match=rf"'{old}' of .*{fn.__name__}\(\).*'{new}'"):
        got = fn(*args, **kw, **{old: value})
    _same(expected, got)
    with pytest.raises(TypeError, match="both"):
        fn(*args, **kw, **{old: value, new: value})


def test_renamed_attributes_warn():
    rs = _toy_runset()
    v = cb.split_validation(rs, 20, seed=1)
    with pytest.warns(DeprecationWarning, match="SplitValidation.n_boot"):
        assert v.n_boot == v.B == 20
    m = irrepro.data.ScoreMatrix(
        np.random.default_rng(1).random((4, 12)), tuple("abcd"), tuple(str(t) for t in range(12)), "AP", "toy"
    )
    res = ts.swap_experiment([m], sizes=[5], B=3, seed=2)
    with pytest.warns(DeprecationWarning, match="SwapExperiment.repetitions"):
        assert res.repetitions == res.B == 3


def test_report_settings_old_names_warn():
    from irrepro import report

    st = report.settings("quick")
    for old, new in (
        ("B", "B_tests"),
        ("n_boot", "B_corpus"),
        ("repetitions", "B_swap"),
        ("partitions", "B_halves"),
    ):
        with pytest.warns(DeprecationWarning, match=rf"Settings\.{old} is deprecated.*Settings\.{new}"):
            assert getattr(st, old) == getattr(st, new)
    with pytest.warns(DeprecationWarning) as caught:
        old = report.Settings(B=200, n_boot=200, repetitions=10, max_size=25, partitions=50, scale="quick")
    assert old == st
    said = " ".join(str(w.message) for w in caught)
    for name in ("'B'", "'n_boot'", "'repetitions'", "'partitions'"):
        assert f"argument {name} of Settings" in said
