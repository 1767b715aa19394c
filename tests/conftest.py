"""Shared fixtures. Tests run at the quick scale; tests that need real data use ``real_runs`` /
``real_matrix``, which skip when the data cannot be had - except under CI (``CI=true``), where
missing real data is a failure."""

import os

import pytest

os.environ.setdefault("IRREPRO_SCALE", "quick")


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
