"""Errors by type (issue 27, item 4): what a user can fix is an :class:`irrepro.InputError` and the
command line says it in one line with exit status 2, for every command alike; anything else is a
bug in irrepro: its traceback, a line asking to report it, exit status 1."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

import irrepro
from irrepro import data, measures, parallel
from irrepro.errors import ISSUES_URL, REPOSITORY_URL, InputError, InputTypeError, UnknownNameError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d4 1 1.0 r\n")
    (tmp_path / "s.txt").write_text("1 Q0 d2 1 2.0 s\n1 Q0 d1 2 1.0 s\n2 Q0 d3 1 1.0 s\n")
    return tmp_path


def _user_errors(d: Path) -> dict[str, list]:
    """One user error per command (an unknown name, a missing directory), its command's word."""
    return {
        "data": ["data", "fetch", "NOSUCH"],
        "eval": ["eval", "--qrels", d / "qrels.txt", d / "r.txt", "-m", "NOSUCH"],
        "compare": [
            "compare",
            "--qrels",
            d / "qrels.txt",
            d / "r.txt",
            d / "s.txt",
            "-m",
            "AP",
            "--baseline",
            "nosuch",
        ],
        "report": ["report", d / "nodir", "--qrels", d / "qrels.txt", "--out", d / "out"],
    }


@pytest.mark.parametrize("command", ["data", "eval", "compare", "report"])
def test_a_user_error_is_one_line_and_exit_2_in_every_command(tiny, run_cli, command):
    rc, _, err = run_cli(_user_errors(tiny)[command])
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith(f"irrepro {command}: ")
    assert "Traceback" not in err and ISSUES_URL not in err


def test_data_fetch_of_an_unknown_collection_exits_2(run_cli):
    """It exited 1, where every other command exits 2 for bad input."""
    rc, out, err = run_cli(["data", "fetch", "NOSUCH"])
    assert rc == 2 and out == ""
    assert err.startswith("irrepro data: unknown collection 'NOSUCH'; known: ") and err.count("\n") == 1


def test_data_fetch_of_data_not_to_be_had_exits_2(tmp_path, run_cli, monkeypatch):
    """Offline, no mirror, an empty cache: DataUnavailable, which the user mends (a mirror, the
    network) - exit 2 with one line naming what to do, as for any other input error."""
    monkeypatch.delenv("IRREPRO_MIRROR", raising=False)
    monkeypatch.setenv("IRREPRO_OFFLINE", "1")
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    rc, _, err = run_cli(["data", "fetch", "-q", "trec3"])
    assert rc == 2 and err.count("\n") == 1 and "IRREPRO_MIRROR" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "bug",
    [ValueError("a bad internal value"), KeyError("an internal key"), ZeroDivisionError("division by zero")],
    ids=lambda e: type(e).__name__,
)
def test_a_bug_shows_its_traceback_a_report_line_and_exits_1(tiny, run_cli, monkeypatch, bug):
    """ValueError and KeyError were taken for the user's mistakes (one line, exit 2), hiding the
    bug; other exceptions escaped main."""

    def broken(*a, **k):
        raise bug

    monkeypatch.setattr(data, "load_runs", broken)
    rc, _, err = run_cli(["eval", "--qrels", tiny / "qrels.txt", tiny / "r.txt", "-m", "AP"])
    assert rc == 1
    assert "Traceback (most recent call last)" in err and f"{type(bug).__name__}: " in err
    last = err.rstrip("\n").splitlines()[-1]
    assert last == (
        "irrepro: this is a bug in irrepro, not in your input - please report it with the "
        f"command and the traceback above: {ISSUES_URL}"
    )


def test_a_bug_in_data_fetch_is_a_bug_too(run_cli, monkeypatch):
    def broken(*a, **k):
        raise KeyError("an internal key")

    monkeypatch.setattr(data, "fetch", broken)
    rc, _, err = run_cli(["data", "fetch", "trec3"])
    assert rc == 1 and "Traceback" in err and err.rstrip().endswith(ISSUES_URL)


def test_the_issues_url_is_the_books_repository():
    """The URL is written once in the package; the book's _config.yml must name the same."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert REPOSITORY_URL == config["repository"]["url"]
    assert ISSUES_URL == REPOSITORY_URL + "/issues"


def test_data_unavailable_is_an_input_error_and_a_runtime_error():
    assert issubclass(data.DataUnavailable, irrepro.InputError)
    assert issubclass(data.DataUnavailable, RuntimeError)
    assert issubclass(data.CacheError, irrepro.InputError)
    with pytest.raises(RuntimeError):  # callers that catch RuntimeError still catch it
        raise data.DataUnavailable("no mirror")
    with pytest.raises(irrepro.InputError):
        raise data.CacheError("IRREPRO_CACHE names a file")


def test_unknown_names_are_input_errors_and_stay_key_errors():
    with pytest.raises(UnknownNameError) as exc:
        data.get_collection("NOSUCH")
    assert isinstance(exc.value, KeyError) and isinstance(exc.value, InputError)
    assert str(exc.value).startswith("unknown collection 'NOSUCH'")  # not quoted as a KeyError's
    with pytest.raises(InputError, match="unknown measure 'NOSUCH'"):
        measures.parse_measure("NOSUCH")


def test_parameter_validation_is_an_input_error():
    with pytest.raises(InputError, match="the cutoff must be at least 1"):
        measures.parse_measure("P@0")
    with pytest.raises(InputTypeError, match="cannot read qrels from a int") as exc:
        data.load_qrels(3)
    assert isinstance(exc.value, TypeError)


def test_a_missing_dask_is_an_input_error_saying_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(InputError, match=r"pip install 'irrepro\[dask\]'"):
        parallel.dask_client("tcp://127.0.0.1:8786")


def test_an_unwritable_out_is_an_input_error_naming_it(tmp_path, monkeypatch, run_cli):
    """A full disk under ``report --out``: an OutputError - an InputError that is still the OSError
    it was, naming --out as given - and one line with exit 2 from the command line."""
    from irrepro import report
    from irrepro.errors import OutputError

    monkeypatch.setattr(report.Report, "files", lambda self: {"index.html": "<html></html>"})
    rep = object.__new__(report.Report)

    def full(self, *a, **k):
        raise OSError(28, "No space left on device", str(self))

    out = tmp_path / "out"
    with monkeypatch.context() as m:
        m.setattr(Path, "write_bytes", full)
        m.setattr(Path, "write_text", full)
        with pytest.raises(OutputError, match="No space left on device") as exc:
            rep.write(out)
    assert isinstance(exc.value, InputError) and isinstance(exc.value, OSError)
    assert exc.value.errno == 28 and exc.value.filename == str(out)

    def run(*a, **k):
        raise exc.value

    monkeypatch.setattr(report, "run", run)
    (tmp_path / "runs").mkdir()
    rc, _, err = run_cli(["report", tmp_path / "runs", "--qrels", tmp_path / "q.txt", "--out", out, "-q"])
    assert rc == 2 and err == f"irrepro report: {out}: No space left on device (writing the report)\n"
