"""Build the book and its student edition (``make book``; issue 30): the student edition's Sphinx
run starts beside the book's as soon as the book's notebooks are in the execution cache.

The book's build executes its notebooks first (``irrepro_sphinx._pre_execute``) and then reads and
writes every page; the student edition (``hide_solutions``, ``_build/_config.student.yml``, made by
``make student-config``) reads the same cache and executes nothing. Run one after the other, the
second waits for the first's reading and writing (about a minute each at paper scale, one core
each). Here the book's build is told (``IRREPRO_PRE_EXECUTED``) to write a file when its notebooks
are cached; the student edition's build starts then, its output in ``_build/student.log``.

- A notebook that failed (``failed`` in that file), or a failed book build, stops the student
  edition (it would execute the failing notebook again); the book's error is the build's.
- ``IRREPRO_BOOK_JOBS=1`` (one at a time): the two builds run one after the other, as before.
- The student edition is skipped when nothing it is built from changed since it was last built:
  the inputs' fingerprint (``_build/.inputs.new``, written by ``make book``), the pages, the toc
  and the configuration, and the execution cache.

    python book/_ext/editions.py [--build _build]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

PRE_EXECUTED_ENV = "IRREPRO_PRE_EXECUTED"  # irrepro_sphinx.PRE_EXECUTED_ENV
SOURCES = ("book", "notebooks", "_config.yml", "_toc.yml")


def _newer(path: Path, than: float) -> bool:
    """Whether ``path`` or anything under it was modified after ``than`` (``find -newer``)."""
    if not path.exists():
        return False
    if path.stat().st_mtime > than:
        return True
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            try:
                if os.stat(os.path.join(root, name)).st_mtime > than:
                    return True
            except FileNotFoundError:
                continue
    return False


def student_current(build: Path) -> bool:
    """Whether the student edition in ``build`` was built from what the book is built from now."""
    built = build / "student" / ".built"
    if not (build / "html" / "student").is_dir() or not built.is_file():
        return False
    if built.read_bytes() != (build / ".inputs.new").read_bytes():
        return False
    since = built.stat().st_mtime
    return not any(_newer(Path(p), since) for p in (*SOURCES, build / ".jupyter_cache"))


def _jupyter_book(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "jupyter-book"), "build", ".", *args, "--builder", "html",
            "-W", "-n", "--keep-going"]  # fmt: skip


def _stop(proc: subprocess.Popen, group: bool) -> None:
    """Stop ``proc`` - with everything it started when ``group`` (it leads a session of its own)."""

    def signal_it(sig: int) -> None:
        try:
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        except ProcessLookupError:
            pass

    if proc.poll() is None:
        signal_it(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            signal_it(signal.SIGKILL)
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="_build", help="the build directory (default: _build)")
    build = Path(parser.parse_args(argv).build)
    student_cmd = _jupyter_book("--config", str(build / "_config.student.yml"), "--path-output",
                                str(build / "student"))  # fmt: skip
    need = not student_current(build)
    beside = need and os.environ.get("IRREPRO_BOOK_JOBS", "").strip() != "1"
    flag = build / ".pre-executed"
    flag.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != PRE_EXECUTED_ENV}
    if beside:
        env[PRE_EXECUTED_ENV] = str(flag.resolve())
    without_flag = dict(env)
    without_flag.pop(PRE_EXECUTED_ENV, None)
    log_path = build / "student.log"
    student: subprocess.Popen | None = None
    book = subprocess.Popen(_jupyter_book(), env=env)

    def start_student() -> subprocess.Popen:
        print(f"student book: building beside the book (its output: {log_path})", flush=True)
        with open(log_path, "wb") as log:
            return subprocess.Popen(student_cmd, stdout=log, stderr=subprocess.STDOUT, env=without_flag,
                                    start_new_session=True)  # fmt: skip

    try:
        while book.poll() is None:
            if beside and student is None and flag.is_file() and flag.read_text().strip() == "ok":
                student = start_student()
            time.sleep(0.5)
    except BaseException:
        _stop(book, group=False)  # the terminal's Ctrl-C reached it too
        if student is not None:
            _stop(student, group=True)
        raise
    if book.returncode != 0:
        if student is not None:
            _stop(student, group=True)
            print(f"student book: stopped (the book's build failed); its output so far: {log_path}")
        return book.returncode
    if not need:
        print(f"student book: up to date ({build / 'html' / 'student'}/)")
        return 0
    if student is None:  # one at a time, or the book's build executed nothing of its own
        student = start_student()
    if student.wait() != 0:
        text = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        print("\n".join(text[-60:]), file=sys.stderr)
        print(
            f"student book: the build failed ({student.returncode}); its output: {log_path}", file=sys.stderr
        )
        return student.returncode
    site = build / "html" / "student"
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(build / "student" / "_build" / "html", site)
    shutil.copyfile(build / ".inputs.new", build / "student" / ".built")
    print(
        f"student book: {build / 'student' / '_build' / 'html' / 'index.html'} (and in the book's site: {site}/)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
