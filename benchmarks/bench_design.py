"""Time of ``irrepro design`` on all 126 TREC-COVID round-5 runs, end to end (reading and scoring
included), in a child process (issue 28):

1. the closed forms (Sakai's three methods with their bootstrap intervals, G-theory) - goal
   under 10 s;
2. the same with ``--simulate`` at the quick precision (600 trials per topic-set size, eight sizes)
   on 2 workers - goal under 2 minutes on 2 cores.

Each is timed by the wall clock around ``python -m irrepro.cli design ...`` (its CPU time, user +
system of the child, beside it: the figure to compare on a shared machine); the table the command
printed follows each time.

    IRREPRO_MIRROR=/path/to/mirror python benchmarks/bench_design.py
    python benchmarks/bench_design.py --runs DIR --qrels cord19/trec-covid/round5 --jobs 2 -m nDCG@10
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_CLOSED_S = 10
GOAL_SIMULATED_S = 120


def run_design(args: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one ``irrepro design`` in a child process."""
    cmd = [sys.executable, "-m", "irrepro.cli", "design", *args]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"irrepro design failed ({proc.returncode}):\n{err}")
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, usage.ru_utime + usage.ru_stime, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", default=None, help="round-5 run directory (default: IRREPRO_MIRROR's)")
    ap.add_argument("--qrels", default="cord19/trec-covid/round5")
    ap.add_argument("-m", "--measure", default="nDCG@10")
    ap.add_argument("--min-diff", default="0.02")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    src = (
        Path(args.runs)
        if args.runs
        else Path(os.environ.get("IRREPRO_MIRROR", "")) / "trec-covid/round5/runs"
    )
    if not src.is_dir():
        raise SystemExit(f"no run directory {src}: set IRREPRO_MIRROR or give --runs")
    n = len(list(src.glob("*.gz")))
    print(f"irrepro design, {n} runs, {args.measure}, min diff {args.min_diff}; load: "
          f"{os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")  # fmt: skip
    common = [str(src), "--qrels", args.qrels, "-m", args.measure, "--min-diff", args.min_diff]
    cpu_before = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra, goal in (
            ("closed form", [], GOAL_CLOSED_S),
            (f"simulated, quick, {args.jobs} workers", ["--simulate", "--scale", "quick", "-j", str(args.jobs)],
             GOAL_SIMULATED_S),
        ):  # fmt: skip
            sec, cpu_total, out = run_design([*common, *extra, "--out", str(Path(tmp) / "out")])
            cpu, cpu_before = cpu_total - cpu_before, cpu_total
            print(f"\n{label}: {sec:6.1f} s (CPU {cpu:.1f} s)  goal {goal} s, ratio {sec / goal:.2f}")
            print(out.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
