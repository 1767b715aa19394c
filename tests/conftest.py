"""Shared fixtures. Tests run at the quick scale; tests that need real data use ``real_runs`` /
``real_matrix``, which skip when the data cannot be had - except under CI (``CI=true``), where
missing real data is a failure."""

import os
from collections import Counter

import pytest

os.environ.setdefault("IRREPRO_SCALE", "quick")


def pytest_terminal_summary(terminalreporter):
    """Skips counted by reason (``-ra`` lists each one): what a run did not check, and what to
    set or install to check it."""
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
    _fetch.reset_network_state()
    yield tmp_path
    _fetch.reset_network_state()


@pytest.fixture
def mirror():
    """The offline mirror directory (IRREPRO_MIRROR), or skip / fail as for real data."""
    from irrepro.data import mirror_dir

    m = mirror_dir()
    if m is None or not m.is_dir():
        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    return m
