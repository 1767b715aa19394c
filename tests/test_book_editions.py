"""``make book``'s two editions (book/_ext/editions.py, issue 30): the student edition's build starts
beside the book's once the book's notebooks are cached, is stopped when the book's build fails,
is not started after a failed notebook, and is skipped when nothing it is built from changed.

The two builds are stood in for by small Python programs (the real ones: ``make book``, checked by
CI and the browser tests): the book's writes the file ``IRREPRO_PRE_EXECUTED`` names, then waits
for the student edition's to have started - which only finishes when both run at once."""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[1] / "book" / "_ext"

BOOK = """import os, pathlib, sys, time
here = pathlib.Path(sys.argv[1])
flag = os.environ.get("IRREPRO_PRE_EXECUTED")
(here / "book.flag-env").write_text(str(flag))
if flag:
    pathlib.Path(flag).write_text({status!r} + "\\n")
deadline = time.monotonic() + 60
while {wait} and not (here / "student.started").exists():
    assert time.monotonic() < deadline, "the student edition never started beside the book"
    time.sleep(0.05)
sys.exit({rc})
"""

STUDENT = """import os, pathlib, sys, time
here = pathlib.Path(sys.argv[1])
(here / "student.started").touch()
assert "IRREPRO_PRE_EXECUTED" not in os.environ
time.sleep({sleep})
html = here / "_build" / "student" / "_build" / "html"
html.mkdir(parents=True, exist_ok=True)
(html / "index.html").write_text("student")
(here / "student.done").touch()
sys.exit({rc})
"""


def _editions():
    spec = importlib.util.spec_from_file_location("editions", EXT / "editions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path, monkeypatch, *, status="ok", wait=True, book_rc=0, student_rc=0, sleep=0.0):
    """Run editions.main in ``tmp_path`` with the two stand-ins; (its exit code, the module)."""
    editions = _editions()
    here = tmp_path
    (here / "_build" / "html").mkdir(parents=True, exist_ok=True)
    (here / "_build" / ".inputs.new").write_text("fingerprint\n")
    book = BOOK.format(status=status, wait=wait, rc=book_rc)
    student = STUDENT.format(sleep=sleep, rc=student_rc)

    def command(*args):
        code = student if "--config" in args else book
        return [sys.executable, "-c", code, str(here)]

    monkeypatch.setattr(editions, "_jupyter_book", command)
    monkeypatch.chdir(here)
    monkeypatch.delenv("IRREPRO_BOOK_JOBS", raising=False)
    return editions.main(["--build", "_build"]), editions


def test_the_student_edition_builds_beside_the_book_and_is_copied_into_its_site(tmp_path, monkeypatch):
    rc, editions = _run(tmp_path, monkeypatch)
    assert rc == 0
    assert (tmp_path / "book.flag-env").read_text() == str((tmp_path / "_build" / ".pre-executed").resolve())
    assert (tmp_path / "_build" / "html" / "student" / "index.html").read_text() == "student"
    assert (tmp_path / "_build" / "student" / ".built").read_text() == "fingerprint\n"
    # nothing changed since: skipped (the book's build is not told to wait for anyone)
    os.utime(tmp_path / "_build" / "student" / ".built", (time.time() + 5,) * 2)
    (tmp_path / "student.started").unlink()
    rc, _ = _run(tmp_path, monkeypatch, wait=False)
    assert rc == 0 and not (tmp_path / "student.started").exists()
    assert (tmp_path / "book.flag-env").read_text() == "None"
    # another fingerprint (another scale, other data, other code): built again
    (tmp_path / "_build" / "student" / ".built").write_text("an older fingerprint\n")
    os.utime(tmp_path / "_build" / "student" / ".built", (time.time() + 5,) * 2)
    assert not editions.student_current(tmp_path / "_build")


def test_a_changed_page_makes_the_student_edition_stale(tmp_path, monkeypatch):
    rc, editions = _run(tmp_path, monkeypatch)
    assert rc == 0 and editions.student_current(Path("_build"))
    page = tmp_path / "book" / "a.md"
    page.parent.mkdir()
    page.write_text("# a\n")
    os.utime(page, (time.time() + 5,) * 2)
    assert not editions.student_current(Path("_build"))


def test_a_failed_book_build_stops_the_student_edition(tmp_path, monkeypatch, capsys):
    rc, _ = _run(tmp_path, monkeypatch, book_rc=3, sleep=60)
    assert rc == 3
    assert (tmp_path / "student.started").exists() and not (tmp_path / "student.done").exists()
    assert not (tmp_path / "_build" / "html" / "student").exists()
    assert "stopped (the book's build failed)" in capsys.readouterr().out


def test_a_failed_notebook_starts_no_student_edition(tmp_path, monkeypatch):
    rc, _ = _run(tmp_path, monkeypatch, status="failed", wait=False, book_rc=1)
    assert rc == 1 and not (tmp_path / "student.started").exists()


def test_a_failed_student_edition_fails_make_book_with_its_output(tmp_path, monkeypatch, capsys):
    rc, _ = _run(tmp_path, monkeypatch, student_rc=2)
    assert rc == 2
    err = capsys.readouterr().err
    assert "student book: the build failed (2)" in err and "student.log" in err
    assert not (tmp_path / "_build" / "html" / "student").exists()


def test_one_at_a_time_builds_them_one_after_the_other(tmp_path, monkeypatch):
    editions = _editions()
    monkeypatch.setenv("IRREPRO_BOOK_JOBS", "1")
    here = tmp_path
    (here / "_build" / "html").mkdir(parents=True)
    (here / "_build" / ".inputs.new").write_text("fingerprint\n")

    def command(*args):
        code = (
            STUDENT.format(sleep=0, rc=0)
            if "--config" in args
            else BOOK.format(status="ok", wait=False, rc=0)
        )
        return [sys.executable, "-c", code, str(here)]

    monkeypatch.setattr(editions, "_jupyter_book", command)
    monkeypatch.chdir(here)
    assert editions.main(["--build", "_build"]) == 0
    assert (here / "book.flag-env").read_text() == "None"  # not told: nobody waits for it
    assert (here / "_build" / "html" / "student" / "index.html").is_file()


def test_ctrl_c_stops_both_builds(tmp_path, monkeypatch):
    """Ctrl-C while both run: the book's build and the student edition's (its whole session) are
    stopped before ``make book`` exits, and the interrupt goes on."""
    editions = _editions()
    here = tmp_path
    (here / "_build" / "html").mkdir(parents=True)
    (here / "_build" / ".inputs.new").write_text("fingerprint\n")
    slow_book = BOOK.format(status="ok", wait=True, rc=0).replace("sys.exit(0)", "time.sleep(60)")

    def command(*args):
        code = STUDENT.format(sleep=60, rc=0) if "--config" in args else slow_book
        return [sys.executable, "-c", code, str(here)]

    real_sleep = time.sleep

    def sleep(seconds):
        if (here / "student.started").exists():
            raise KeyboardInterrupt
        real_sleep(seconds)

    monkeypatch.setattr(editions, "_jupyter_book", command)
    monkeypatch.setattr(editions.time, "sleep", sleep)
    monkeypatch.chdir(here)
    monkeypatch.delenv("IRREPRO_BOOK_JOBS", raising=False)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        editions.main(["--build", "_build"])
    assert time.monotonic() - started < 30  # stopped by SIGTERM, not waited for
    assert not (here / "student.done").exists()
