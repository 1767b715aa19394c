"""Shared fixtures. Tests run at the quick scale; tests that need real data use ``real_runs`` /
``real_matrix``, which skip when the data cannot be had - except under CI (``CI=true``), where
missing real data is a failure.

The tests marked ``slow`` take seconds; they are started first (below: so that no xdist worker ends
the run on a long test). Those that take the ``size`` fixture run the same check on a smaller input
in ``make test`` (fewer random cases, a spread of the runs) and at full size under ``--full``
(``make test-full``)."""

import functools
import os
from collections import Counter
from dataclasses import dataclass

import pytest

os.environ.setdefault("IRREPRO_SCALE", "quick")


def pytest_addoption(parser):
    parser.addoption(
        "--full",
        action="store_true",
        help="run the tests marked slow at their full size (`make test-full`); by default they run "
        "at their quick size (`make test`)",
    )


@dataclass(frozen=True)
class Size:
    """The size a slow test runs at: quick (``make test``) or full (``--full``, ``make test-full``).

    Parameters
    ----------
    full : bool
        Whether the full size was asked for.
    """

    full: bool

    def __call__(self, quick, full):
        """``full`` under ``--full``, else ``quick``."""
        return full if self.full else quick

    def spread(self, items, n: int) -> list:
        """All of ``items`` at full size; at quick size ``n`` (>= 2) of them spread evenly over
        the sequence, the first and the last included, in their order."""
        items = list(items)
        if self.full or n >= len(items):
            return items
        return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


@pytest.fixture(scope="session")
def size(request) -> Size:
    """The :class:`Size` of this run; only tests marked ``slow`` take it."""
    return Size(bool(request.config.getoption("--full")))


def pytest_collection_modifyitems(config, items):
    """The tests marked ``compiles`` first, then those marked ``slow``, in their order (stable
    sort): xdist hands them out before the short ones, which then fill in around them. A test that takes ``size`` must be marked slow
    (the marker is how ``-m "not slow"`` and the summary find the tests that have two sizes)."""
    full = config.getoption("--full")
    for item in items:
        if "size" in getattr(item, "fixturenames", ()):
            if item.get_closest_marker("slow") is None:
                raise pytest.UsageError(f"{item.nodeid} takes the `size` fixture: mark it @pytest.mark.slow")
            item.user_properties.append(("size", "full" if full else "quick"))  # for the summary

    # the tests marked `compiles` first of all, grouped by name: xdist's worksteal hands the first
    # tests to the first worker, which runs them in order, and steals only from a queue's end - so
    # they share one process and its compilation (a fresh clone compiles ranx's kernels once, not
    # on two workers at once)
    def key(item):
        mark = item.get_closest_marker("compiles")
        return (mark is None, mark.args[0] if mark else "", item.get_closest_marker("slow") is None)

    items.sort(key=key)


def pytest_terminal_summary(terminalreporter, config):
    """Skips counted by reason (``-ra`` lists each one): what a run did not check, and what to
    set or install to check it; and the size the slow tests ran at."""
    quick = sum(
        1
        for key in ("passed", "failed")
        for rep in terminalreporter.stats.get(key, [])
        if rep.when == "call" and ["size", "quick"] in [list(p) for p in rep.user_properties]
    )
    if quick:
        terminalreporter.write_sep(
            "-",
            f"{quick} tests ran at their quick size; `make test-full` (pytest --full) runs them at full size",
        )
    reasons = Counter()
    for rep in terminalreporter.stats.get("skipped", []):
        longrepr = rep.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    if reasons:
        terminalreporter.write_sep("-", f"{sum(reasons.values())} skipped, by reason")
        for reason, n in reasons.most_common():
            terminalreporter.write_line(f"{n:5d}  {reason}")


def _need_real(exc: Exception):
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"real data needed under CI but unavailable: {exc}")
    pytest.skip(f"real data unavailable: {exc}")


@pytest.fixture(scope="session")
def real_runs():
    """``real_runs(name)`` -> the real RunSet of a collection (cached per session)."""
    from irrepro import data

    cache = {}

    def get(name: str):
        if name not in cache:
            try:
                cache[name] = data.load_runs(name, allow_simulated=False)
            except data.DataUnavailable as exc:
                _need_real(exc)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def real_matrix():
    """``real_matrix(collection, measure)`` -> the real ScoreMatrix."""
    from irrepro import data

    def get(name: str, measure: str = "AP"):
        try:
            return data.load_matrix(name, measure, allow_simulated=False)
        except data.DataUnavailable as exc:
            _need_real(exc)

    return get


@pytest.fixture(scope="session")
def trec_eval_10():
    """The trec_eval 10 binary ``TREC_EVAL`` names, or skip saying so."""
    from _reference import tool

    return tool("TREC_EVAL", "the checks against trec_eval 10's own output")


@pytest.fixture(scope="session")
def trec_eval_9():
    """The trec_eval 9.0.x binary ``TREC_EVAL_9`` names, or skip saying so."""
    from _reference import tool

    return tool("TREC_EVAL_9", "the checks against trec_eval 9's own output")


@pytest.fixture(scope="session")
def trec_eval_test():
    """trec_eval's test/ directory (``TREC_EVAL_TEST``), or skip saying so."""
    from _reference import tool

    return tool("TREC_EVAL_TEST", "the checks against trec_eval's own test files")


@pytest.fixture
def isolated_data(tmp_path, monkeypatch):
    """An empty cache, no mirror, offline: the fresh-machine situation."""
    from irrepro.data import _fetch

    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("IRREPRO_MIRROR", raising=False)
    monkeypatch.setenv("IRREPRO_OFFLINE", "1")
    monkeypatch.delenv("IRREPRO_REQUIRE_REAL", raising=False)
    _fetch._NETWORK_DOWN.clear()
    yield tmp_path
    _fetch._NETWORK_DOWN.clear()


@pytest.fixture
def mirror():
    """The offline mirror directory (IRREPRO_MIRROR), or skip / fail as for real data."""
    from irrepro.data import mirror_dir

    m = mirror_dir()
    if m is None or not m.is_dir():
        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    return m


@pytest.fixture(scope="session")
def _stand_in_runs_memo():
    """``data.synthetic.runs`` memoised for the whole session (one per xdist worker) where the seed
    is an int; the memoised run sets' arrays are read-only, so a test that wrote into one fails."""
    from irrepro.data import synthetic

    draw = synthetic.runs

    @functools.cache
    def memo(*args, **kwargs):
        rs = draw(*args, **kwargs)
        rs.offsets.setflags(write=False)
        rs.flat_grades.setflags(write=False)
        return rs

    def runs(*args, **kwargs):
        if isinstance(kwargs.get("seed", 0), int) and not any(isinstance(a, list) for a in args):
            return memo(*args, **kwargs)
        return draw(*args, **kwargs)

    return runs


@pytest.fixture
def cached_stand_in(monkeypatch, _stand_in_runs_memo):
    """The simulated stand-ins drawn once per session: the data layer builds a stand-in's qrels
    from its whole simulated run set (round 5's: 126 runs x 50 topics x 1000 documents, seconds).
    ``synthetic.runs`` is deterministic for an int seed (its docstring); the tests that take this
    fixture share its run sets, read-only."""
    from irrepro.data import synthetic

    monkeypatch.setattr(synthetic, "runs", _stand_in_runs_memo)


@pytest.fixture(scope="session")
def sim_runs_4x12():
    """Four simulated runs on twelve topics (30 documents a list, seed 1), drawn once per session;
    their arrays are read-only, so a test that wrote into them fails."""
    from irrepro.data import synthetic

    rs = synthetic.runs(4, 12, list_length=30, seed=1)
    rs.offsets.setflags(write=False)
    rs.flat_grades.setflags(write=False)
    return rs


@pytest.fixture
def sim_dir(tmp_path, sim_runs_4x12):
    """:func:`sim_runs_4x12` written as TREC files in ``tmp_path`` (returned): ``runs/`` (a file a
    run) and ``qrels.txt``."""
    from irrepro.data import synthetic

    synthetic.write_trec(sim_runs_4x12, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    return tmp_path


@pytest.fixture
def run_cli(capsys):
    """``run_cli(args)`` -> ``(rc, out, err)``: the command line run in-process on ``args`` (each
    made a string), its exit code and what it printed to stdout and stderr."""
    from irrepro.cli import main

    def run(args) -> tuple[int, str, str]:
        rc = main([str(a) for a in args])
        out = capsys.readouterr()
        return rc, out.out, out.err

    return run


@pytest.fixture(scope="session")
def pytrec_eval_run():
    """``pytrec_eval_run(path)`` -> ``(tag, run)``: a gzipped TREC run file as pytrec_eval's own
    reader parses it (a pure-Python reader: most of the time of the checks against pytrec_eval on
    the real runs), with the run's tag (its first line's) - read once per session."""
    import gzip

    pytrec_eval = pytest.importorskip("pytrec_eval")

    @functools.cache
    def read(path):
        with gzip.open(path, "rt") as fh:
            tag = fh.readline().split()[5]
        with gzip.open(path, "rt") as fh:
            return tag, pytrec_eval.parse_run(fh)

    return read


@pytest.fixture(scope="session")
def bash_words():
    """``bash_words(command, locale="C")`` -> the words bash makes of ``command`` (a command line
    as irrepro prints it: quoting, ``$'...'`` escapes), as bytes; or skip without bash."""
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash not found: the checks of the shell words irrepro prints need it")

    def words(command: str, locale: str = "C") -> list[bytes]:
        env = {**os.environ, "LC_ALL": locale}
        res = subprocess.run(
            [bash, "-c", "printf '%s\\0' " + command], capture_output=True, env=env, check=True
        )
        return res.stdout.split(b"\0")[:-1]

    return words
