"""What a user waits for around the book (issue 30's table): ``make book`` cold from a fresh clone
(the pinned environment created, every chapter executed at paper scale), the warm rebuild, and
``make test`` from another fresh clone, each beside its goal, with the machine's cores and load.

Each figure is the wall clock of one ``make`` command in a fresh ``git clone`` of this repository's
committed ``HEAD`` (uncommitted changes are not measured), with the offline mirror
(``IRREPRO_MIRROR``) and an empty data cache of its own (``IRREPRO_CACHE`` in the clone, so that no
earlier parse is reused: cold means cold). The book's own log gives each notebook's execution time
(``irrepro: executed ... in ... s``), printed beneath, longest first, the known-truth chapter's
also as a row of its own. Goals: cold book <= 300 s, the known-truth chapter <= 150 s (its
execution in the cold build), warm rebuild <= 15 s, ``make test`` <= 180 s. About 15-20 minutes
on 2 cores.

    IRREPRO_MIRROR=../shared/data python benchmarks/bench_book.py
    IRREPRO_MIRROR=../shared/data python benchmarks/bench_book.py --skip-test   # the book rows only
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOALS = {
    "make book, cold": 300.0,
    "known-truth chapter": 150.0,
    "make book, warm rebuild": 15.0,
    "make test, fresh clone": 180.0,
}
KNOWN_TRUTH = "notebooks/known_truth.md"
ROOT = Path(__file__).resolve().parents[1]


def _clone(dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)
    return dest


def _make(clone: Path, target: str, env: dict, log: Path) -> float:
    """Wall seconds of ``make target`` in ``clone`` (its output to ``log``); exits on a failure."""
    t0 = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.run(["make", target], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"make {target} failed ({proc.returncode}) in {clone}:\n{tail}")
    return seconds


def _env(clone: Path, mirror: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IRREPRO_") and k != "VIRTUAL_ENV"}
    env["IRREPRO_MIRROR"] = mirror
    env["IRREPRO_CACHE"] = str(clone / ".bench-cache")
    return env


def _row(name: str, seconds: float) -> str:
    goal = GOALS[name]
    verdict = "met" if seconds <= goal else "not met"
    return (
        f"{name:28s} {seconds:8.1f} s   goal {goal:5.0f} s   ratio to goal {seconds / goal:5.2f}  ({verdict})"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skip-test", action="store_true", help="only the book rows")
    ap.add_argument("--keep", action="store_true", help="keep the clones (their paths are printed)")
    args = ap.parse_args()
    mirror = os.environ.get("IRREPRO_MIRROR", "")
    if not mirror or not Path(mirror).is_dir():
        raise SystemExit("set IRREPRO_MIRROR to the offline mirror (the cold build is measured with it)")
    mirror = str(Path(mirror).resolve())
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"irrepro {head.stdout.strip()}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} (1 min) at the start"
    )
    work = Path(tempfile.mkdtemp(prefix="irrepro-bench-book-"))
    rows = []
    try:
        book = _clone(work / "book")
        env = _env(book, mirror)
        rows.append(("make book, cold", _make(book, "book", env, work / "book-cold.log")))
        print(_row(*rows[-1]), flush=True)
        executed = re.findall(r"irrepro: executed (\S+) in ([0-9.]+) s", (work / "book-cold.log").read_text())
        for path, sec in sorted(executed, key=lambda e: -float(e[1])):
            print(f"    {path:40s} {float(sec):7.1f} s")
        chapter = [float(sec) for path, sec in executed if path == KNOWN_TRUTH]
        if chapter:
            rows.append(("known-truth chapter", chapter[-1]))
            print(_row(*rows[-1]), flush=True)
        rows.append(("make book, warm rebuild", _make(book, "book", env, work / "book-warm.log")))
        print(_row(*rows[-1]), flush=True)
        if not args.skip_test:
            test = _clone(work / "test")
            rows.append(
                ("make test, fresh clone", _make(test, "test", _env(test, mirror), work / "test.log"))
            )
            print(_row(*rows[-1]), flush=True)
            summary = [
                ln for ln in (work / "test.log").read_text().splitlines() if re.search(r"\d+ passed", ln)
            ]
            print(f"    {summary[-1].strip('= ') if summary else '(no pytest summary)'}")
        print(f"load {os.getloadavg()[0]:.2f} (1 min) at the end")
    finally:
        if args.keep:
            print(f"clones and logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
