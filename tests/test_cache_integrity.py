"""The data cache's integrity (issue 26, items 5 and 6): derived files are checked against the
sha256 recorded when they were written, every cache file's mode follows the umask, a full disk is
named as the cache's (never as the mirror file being read), and the simulated stand-in can show
the thinning the book's pages do."""

import errno
import hashlib
import os
import re
import shutil
import stat
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

from irrepro import data
from irrepro.data import _fetch, _loaders

COLL = data.get_collection("trec-covid-round1")  # only its file list (the cache key) is used


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Set the process's umask for one test (restored after)."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda m: os.umask(m)
    os.umask(old)


@pytest.fixture
def fake_entry(tmp_path, monkeypatch):
    """A registry file held by a mirror in tmp_path: (its registry path, its mirror copy)."""
    rel = "test-cache-integrity/file.txt"
    src = tmp_path / "mirror" / rel
    src.parent.mkdir(parents=True)
    src.write_bytes(b"1 0 doc1 1\n" * 1000)
    entry = _fetch.RegistryEntry(
        rel,
        hashlib.sha256(src.read_bytes()).hexdigest(),
        src.stat().st_size,
        "http://127.0.0.1:9/file.txt",
        "",
    )
    monkeypatch.setitem(data.registry(), rel, entry)
    monkeypatch.setenv("IRREPRO_MIRROR", str(tmp_path / "mirror"))
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("IRREPRO_OFFLINE", "1")
    _fetch._NETWORK_DOWN.clear()
    yield rel, src
    _fetch._NETWORK_DOWN.clear()


def _tamper_grades(path: Path) -> None:
    """Rewrite a run set's .npz as a valid file whose grades differ (every relevant one made 0)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    assert (arrays["flat_grades"] > 0).any()
    arrays["flat_grades"] = np.where(arrays["flat_grades"] > 0, 0, arrays["flat_grades"])
    with open(path, "wb") as f:
        np.savez(f, **arrays)


# -- a derived file's recorded sha256 ----------------------------------------------------------


def test_a_tampered_cached_run_set_is_rebuilt_with_a_warning_naming_it(isolated_data):
    rs = data.synthetic.runs(3, 5, list_length=20, seed=2)
    _loaders._store_runset(rs, COLL)
    path = data._runset_cache_path(COLL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an intact file loads without a word
        back = _loaders._cached_runset(COLL)
    np.testing.assert_array_equal(back.flat_grades, rs.flat_grades)
    _tamper_grades(path)
    expected = re.escape(str(path)) + r" does not match its recorded sha256.*rebuilding"
    with pytest.warns(UserWarning, match=expected):
        assert _loaders._cached_runset(COLL) is None  # never the tampered grades
    assert not path.exists() and not _fetch.sha256_record(path).exists()


def test_a_cached_run_set_without_its_record_is_rebuilt(isolated_data):
    _loaders._store_runset(data.synthetic.runs(2, 4, list_length=10, seed=1), COLL)
    path = data._runset_cache_path(COLL)
    _fetch.sha256_record(path).unlink()
    with pytest.warns(UserWarning, match=re.escape(str(path)) + r" has no recorded sha256"):
        assert _loaders._cached_runset(COLL) is None
    assert not path.exists()


def test_load_runs_rebuilds_a_tampered_cache_from_the_run_files(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "c"))
    first = data.load_runs("trec-covid-round1")
    path = data._runset_cache_path(COLL)
    _tamper_grades(path)
    with pytest.warns(UserWarning, match="does not match its recorded sha256"):
        again = data.load_runs("trec-covid-round1")
    np.testing.assert_array_equal(again.flat_grades, first.flat_grades)
    assert _fetch.recorded_sha256_problem(path) is None  # rebuilt, with a new record


def test_the_record_is_sha256sums_format_of_the_file_written(tmp_path):
    dst = tmp_path / "x.bin"
    _fetch.atomic_write(dst, lambda t: Path(t).write_bytes(b"abc"), record_sha256=True)
    assert _fetch.sha256_record(dst).read_text() == f"{hashlib.sha256(b'abc').hexdigest()}  x.bin\n"
    assert _fetch.recorded_sha256_problem(dst) is None


# -- modes follow the umask --------------------------------------------------------------------


@pytest.mark.parametrize(
    "mask, mode", [(0o077, 0o600), (0o002, 0o664), (0o022, 0o644)], ids=["077", "002", "022"]
)
def test_cache_files_get_the_mode_the_umask_gives(fake_entry, umask, mask, mode):
    rel, _ = fake_entry
    umask(mask)
    copied = data.locate(rel)  # copied from the mirror
    _loaders._store_runset(data.synthetic.runs(2, 3, list_length=10, seed=1), COLL)
    derived = data._runset_cache_path(COLL)
    for path in (copied, derived, _fetch.sha256_record(derived)):
        assert _mode(path) == mode, path


@pytest.mark.parametrize("mask, mode", [(0o077, 0o600), (0o022, 0o644)], ids=["077", "022"])
def test_a_downloaded_file_gets_the_mode_the_umask_gives(fake_entry, umask, monkeypatch, mask, mode):
    import pooch

    rel, src = fake_entry
    monkeypatch.delenv("IRREPRO_MIRROR")
    monkeypatch.delenv("IRREPRO_OFFLINE")

    def retrieve(url, known_hash, fname, path, **kw):  # as pooch does: a temporary file, moved
        Path(path).mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(delete=False, dir=path) as tmp:
            tmp.write(src.read_bytes())
        shutil.move(tmp.name, Path(path) / fname)
        return str(Path(path) / fname)

    monkeypatch.setattr(pooch, "retrieve", retrieve)
    umask(mask)
    assert _mode(data.locate(rel)) == mode


# -- a full disk is the cache's ----------------------------------------------------------------


def _disk_full(src, dst, *a, **kw):
    """shutil.copyfile on a full disk: part written, then ENOSPC naming the source first (as
    shutil's sendfile copy does)."""
    Path(dst).write_bytes(b"1 0 doc1")
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(src), None, str(dst))


def test_a_full_disk_while_copying_from_the_mirror_names_the_cache(fake_entry, monkeypatch):
    rel, src = fake_entry
    monkeypatch.setattr(_fetch.shutil, "copyfile", _disk_full)  # the copy from the mirror
    with pytest.raises(data.CacheError) as err:
        data.locate(rel)
    msg = str(err.value)
    target = data.cache_dir() / rel
    assert str(target) in msg and "disk is full" in msg and "IRREPRO_CACHE" in msg
    assert str(src) not in msg  # the read-only mirror file is not the problem
    assert list(target.parent.iterdir()) == []  # no partial file left behind


def test_a_full_disk_while_downloading_names_the_cache_not_the_network(fake_entry, monkeypatch):
    import pooch

    rel, _ = fake_entry
    monkeypatch.delenv("IRREPRO_MIRROR")
    monkeypatch.delenv("IRREPRO_OFFLINE")

    def retrieve(*a, **kw):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pooch, "retrieve", retrieve)
    with pytest.raises(data.CacheError, match=re.escape(str(data.cache_dir() / rel)) + ".*disk is full"):
        data.locate(rel)
    assert not _fetch._NETWORK_DOWN  # the network did not fail: later files are still tried


def test_a_full_disk_while_caching_a_run_set_is_a_warning_naming_the_cache_file(isolated_data, monkeypatch):
    def savez(*a, **kw):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(np, "savez", savez)
    path = data._runset_cache_path(COLL)
    with pytest.warns(UserWarning, match=re.escape(str(path)) + ".*disk is full"):
        _loaders._store_runset(data.synthetic.runs(2, 3, list_length=10, seed=1), COLL)
    assert list(path.parent.iterdir()) == []


# -- the stand-in can show the thinning of the book's pages ------------------------------------


@pytest.mark.slow
def test_thinning_to_trec6_r_works_on_the_stand_in_and_says_simulated(
    isolated_data, cached_stand_in, monkeypatch
):
    """Issue 26: offline without a mirror, book/data.md's cell raised "topic '2' has 24 relevant
    documents, fewer than its target 26" (the stand-in of round 5 had TREC-6's R, not its own)."""
    monkeypatch.setenv("IRREPRO_ALLOW_SIMULATED", "1")  # as `make book`
    with pytest.warns(data.SimulatedDataWarning):
        R6 = data.trec6_relevant()
        rs5 = data.load_runs("trec-covid-round5")
    thin = data.thin_qrels(rs5.qrels, R6, seed=1)
    np.testing.assert_array_equal(np.sort(thin.n_relevant(1)), np.sort(R6))  # TREC-6's distribution
    assert rs5.simulated and thin.source == "simulated"
    depth10 = data.pool_qrels(rs5, 10)
    assert depth10.source == "simulated" and (depth10.n_relevant(1) <= rs5.n_relevant()).all()


@pytest.mark.parametrize(
    "name", [c.name for c in data.COLLECTIONS.values() if getattr(c, "relevant_median", None)]
)
def test_the_stand_ins_median_r_is_the_real_qrels(name, mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "c"))
    real = data.load_qrels(name, allow_simulated=False)
    assert np.median(real.n_relevant(1)) == data.get_collection(name).relevant_median


def test_the_banner_takes_collection_names_for_the_scorecard(mirror, isolated_data, monkeypatch):
    """The scorecard shows the chapters' rows: computed on the stand-in, it says so too."""
    from irrepro import book

    assert "simulated-data" in book.data_banner("trec7").text  # no cache, no mirror, offline
    monkeypatch.setenv("IRREPRO_MIRROR", str(mirror))
    banner = book.data_banner("trec7").text
    assert "simulated-data" not in banner and "TREC-7 ad hoc" in banner
