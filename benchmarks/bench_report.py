"""Peak memory and time of ``irrepro report``, end to end (reading included), in a child process.

Three cases:

1. sizes (issue 30 item 4): the first 25 and 50 TREC-COVID round-5 runs (sorted by file name),
   all 126, and 250 (the 126 and 124 of them again under new names, in a temporary directory),
   with the round-5 qrels at the papers' scale. Per size: wall time, CPU time, peak RSS, then the
   growth against the smallest size: time per pair of runs and MB per run as ratios to it
   (time growing no faster than the pairs means a ratio <= 1; memory linear in runs means the MB per
   run above the smallest size's, ``(peak - peak_25) / (n - 25)``, stays flat), and at 126 runs
   the budget ratios (:data:`BUDGET_126_S`, :data:`BUDGET_126_MB`);
2. five round-5 runs, then the same five with one topic of one run grown to 100,000 lines (the
   extra documents ranked below the run's own, scores descending, the topic's judged documents the
   run lacked spread among them down to the last rank) - budget: at most 100 MB more (issue 12 #9);
3. the report as a user runs it (issue 43 item 5): all of the mirror's round-5 gzip files where
   they are, an empty ``IRREPRO_CACHE``, default options (no ``-j``, ``--scale``, ``IRREPRO_JOBS``
   or ``IRREPRO_SCALE``: every core, paper scale), against the same budgets as 126 runs above
   (``--skip-user`` leaves it out).

Each report runs as ``python -m irrepro.cli report ...`` in its own child; its peak RSS is the
child's ``ru_maxrss`` (``os.wait4``), its time the wall clock around it, its CPU time user +
system (the figure to compare on a shared machine). ``--repeat`` runs each size that many times
and keeps the fastest (the smallest peak). A first, untimed report of five runs warms the caches
(numba's compiled kernel on disk, the file system's).

    python benchmarks/bench_report.py                      # all sizes and the long topic, paper scale
    python benchmarks/bench_report.py --sizes 25,50 --skip-long
    python benchmarks/bench_report.py --sizes none --skip-long     # the user's path only
    python benchmarks/bench_report.py --scale quick --sizes none
    IRREPRO_MIRROR=/path/to/mirror python benchmarks/bench_report.py --jobs 2 --repeat 3
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_126_MB = 400
BUDGET_126_S = 20.0
SIZES = (25, 50, 126, 250)
BUDGET_LONG_MB = 100
FIVE = ["BRPHJ_BM25", "CSIROmedFR", "uogTrDPH_QE_RF", "r5.fusion1", "sab20.5.dfo"]


def run_report(
    runs_dir: Path, qrels: str, out: Path, scale: str | None, jobs: int | None, env: dict | None = None
) -> tuple[float, float, float]:
    """(peak RSS in MB, wall seconds, CPU seconds) of one ``irrepro report`` in a child process
    (CPU time, user + system, is the figure to compare on a shared machine); ``scale`` or ``jobs``
    None leaves that option out (the default), ``env`` is the child's environment."""
    cmd = [
        sys.executable,
        "-m",
        "irrepro.cli",
        "report",
        str(runs_dir),
        "--qrels",
        qrels,
        "--out",
        str(out),
        "-q",
    ]
    cmd += ["--scale", scale] if scale is not None else []
    cmd += ["-j", str(jobs)] if jobs is not None else []
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise SystemExit(f"irrepro report failed ({proc.returncode}):\n{text}")
    return usage.ru_maxrss / 1024, seconds, usage.ru_utime + usage.ru_stime  # Linux: ru_maxrss in KiB


def long_topic_dirs(src: Path, work: Path, lines: int, qrels: Path | None) -> tuple[Path, Path]:
    """Five runs as they are, and the same five with topic 1 of the first grown to ``lines``: the
    added documents rank below the run's own, and among them, evenly spread down to the last rank,
    are the topic's judged documents the run had not retrieved (``qrels``, a TREC qrels file), so
    that relevant documents sit deep in the list as in a real long run."""
    base, grown = work / "five", work / "five-long"
    base.mkdir()
    grown.mkdir()
    for name in FIVE:
        shutil.copy(src / f"{name}.gz", base / f"{name}.gz")
        if name != FIVE[0]:
            shutil.copy(src / f"{name}.gz", grown / f"{name}.gz")
    with gzip.open(src / f"{FIVE[0]}.gz", "rt") as f:
        rows = f.read().splitlines()
    tag = rows[0].split()[5]
    first = [r for r in rows if r.split()[0] == "1"]
    have = {r.split()[2] for r in first}
    judged = []
    if qrels is not None and qrels.is_file():
        judged = sorted(
            {ln.split()[2] for ln in qrels.read_text().splitlines() if ln.split()[:1] == ["1"]} - have
        )
    n_new = lines - len(first)
    docs = [f"bench-doc-{i:06d}" for i in range(n_new)]
    for j, doc in enumerate(judged[:n_new]):  # evenly spread, the last one at the very end
        docs[(j + 1) * n_new // len(judged) - 1] = doc
    low = min(float(r.split()[4]) for r in first)
    extra = [
        f"1 Q0 {doc} {len(first) + i + 1} {low - 1e-3 * (i + 1):.6f} {tag}" for i, doc in enumerate(docs)
    ]
    with gzip.open(grown / f"{FIVE[0]}.gz", "wt") as f:
        f.write("\n".join(rows + extra) + "\n")
    print(
        f"long topic: {lines:,} lines, {len(judged[:n_new])} of them judged documents spread down to rank {lines:,}"
    )
    return base, grown


def size_dir(src: Path, work: Path, n: int) -> Path:
    """A directory of ``n`` runs: the first ``n`` of ``src`` (sorted by name) as links, or, past
    the runs there, all of them and then copies of the first ones with the tag (the run's name)
    and the file name suffixed ``-dup``."""
    files = sorted(src.glob("*.gz"))
    d = work / f"runs{n}"
    d.mkdir()
    for f in files[:n]:
        (d / f.name).symlink_to(f.resolve())
    for f in files[: max(0, n - len(files))]:
        with gzip.open(f, "rt") as fin, gzip.open(d / f"{f.name[:-3]}-dup.gz", "wt", compresslevel=1) as fout:
            for line in fin:
                head, tag = line.rsplit(None, 1)
                fout.write(f"{head} {tag}-dup\n")
    return d


def _sizes(text: str) -> list[int]:
    if text in ("", "none"):
        return []
    sizes = sorted({int(x) for x in text.split(",")})
    if sizes[0] < 3:
        raise SystemExit("--sizes: at least 3 runs (the report compares runs)")
    return sizes


def size_table(src: Path, work: Path, sizes: list[int], args) -> None:
    """Time and peak memory per number of runs, with the growth ratios and the budgets (module
    docstring)."""
    rows = []
    for n in sizes:
        d = size_dir(src, work, n)
        best = None
        for i in range(args.repeat):
            out = work / f"r{n}-{i}"
            peak, sec, cpu = run_report(d, args.qrels, out, args.scale, args.jobs)
            shutil.rmtree(out)
            best = (peak, sec, cpu) if best is None else tuple(map(min, best, (peak, sec, cpu)))
        assert best is not None
        peak, sec, cpu = best
        rows.append((n, peak, sec, cpu))
        n0, p0, s0, c0 = rows[0]
        pairs, pairs0 = n * (n - 1) // 2, n0 * (n0 - 1) // 2
        growth = ""
        if n != n0:
            growth = (f"  time/pair {sec / pairs / (s0 / pairs0):5.2f}x (CPU {cpu / pairs / (c0 / pairs0):5.2f}x) the {n0}-run row's"
                      f"  MB/run {peak / n / (p0 / n0):5.2f}x, +{(peak - p0) / (n - n0):5.2f} MB/run above {n0}")  # fmt: skip
        budget = ""
        if n == 126:
            budget = f"  budget ratios: time {sec / BUDGET_126_S:.2f}, memory {peak / BUDGET_126_MB:.2f}"
        print(f"{n:4d} runs ({pairs:6,d} pairs): time {sec:6.1f} s  CPU {cpu:6.1f} s  peak RSS {peak:5.0f} MB"
              f"  ({peak / n:5.2f} MB/run){growth}{budget}", flush=True)  # fmt: skip
    if rows and 126 in sizes:
        _, peak, sec, _ = next(r for r in rows if r[0] == 126)
        print(f"126 runs against the budget ({BUDGET_126_S:g} s, {BUDGET_126_MB} MB): time {sec / BUDGET_126_S:.2f}, "
              f"memory {peak / BUDGET_126_MB:.2f} (<= 1 is within)")  # fmt: skip


def user_path(src: Path, work: Path, args) -> None:
    """The report as a user runs it: every run of ``src`` (the mirror's gzip files, read where
    they are), default options (no -j, no --scale; IRREPRO_JOBS and IRREPRO_SCALE unset: all cores,
    paper scale), an empty IRREPRO_CACHE of its own per report; the fastest of ``--repeat``."""
    env = {k: v for k, v in os.environ.items() if k not in ("IRREPRO_JOBS", "IRREPRO_SCALE")}
    best = None
    for i in range(args.repeat):
        cache = work / f"user-cache-{i}"
        cache.mkdir()
        out = work / f"user-{i}"
        got = run_report(src, args.qrels, out, None, None, dict(env, IRREPRO_CACHE=str(cache)))
        shutil.rmtree(out)
        shutil.rmtree(cache)
        best = got if best is None else tuple(map(min, best, got))
    assert best is not None
    peak, sec, cpu = best
    n = len(list(src.glob("*.gz")))
    print(f"as a user runs it ({n} gzip runs, empty cache, defaults: {os.cpu_count()} workers, paper scale): "
          f"time {sec:6.1f} s  CPU {cpu:6.1f} s  peak RSS {peak:5.0f} MB  budget ratios: time "
          f"{sec / BUDGET_126_S:.2f}, memory {peak / BUDGET_126_MB:.2f}", flush=True)  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", default=None, help="round-5 run directory (default: IRREPRO_MIRROR's)")
    ap.add_argument("--qrels", default="cord19/trec-covid/round5")
    ap.add_argument("--scale", choices=["paper", "quick"], default="paper")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)),
                    help="numbers of runs, comma-separated, or 'none' (default %(default)s)")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=1, help="reports per size, the fastest kept")
    ap.add_argument("--long-lines", type=int, default=100_000)
    ap.add_argument("--skip-long", action="store_true", help="leave out the long-topic case")
    ap.add_argument("--skip-user", action="store_true", help="leave out the report as a user runs it")
    args = ap.parse_args()
    sizes = _sizes(args.sizes)

    src = (
        Path(args.runs)
        if args.runs
        else Path(os.environ.get("IRREPRO_MIRROR", "")) / "trec-covid/round5/runs"
    )
    if not src.is_dir():
        raise SystemExit(f"no run directory {src}: set IRREPRO_MIRROR or give --runs")
    print(f"irrepro report, scale {args.scale}, {args.jobs} worker(s); load: {os.getloadavg()[0]:.2f} "
          f"(1 min), {os.cpu_count()} cores")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        mirror = Path(os.environ.get("IRREPRO_MIRROR", "/nonexistent"))
        qrels_file = (
            Path(args.qrels) if Path(args.qrels).is_file() else mirror / "ir_datasets" / args.qrels / "qrels"
        )
        base, grown = long_topic_dirs(src, work, args.long_lines, qrels_file)
        run_report(base, args.qrels, work / "warm", "quick", args.jobs)  # warm-up, untimed
        if not args.skip_user:
            user_path(src, work, args)
        size_table(src, work, sizes, args)
        if not args.skip_long:
            p0, s0, c0 = run_report(base, args.qrels, work / "r5", args.scale, args.jobs)
            p1, s1, c1 = run_report(grown, args.qrels, work / "r5long", args.scale, args.jobs)
            print(f"5 runs:                         peak RSS {p0:7.0f} MB  time {s0:6.1f} s (CPU {c0:.1f} s)")
            print(
                f"5 runs, one {args.long_lines:,}-line topic: peak RSS {p1:7.0f} MB  time {s1:6.1f} s (CPU {c1:.1f} s)"
            )
            print(
                f"the long topic adds             {p1 - p0:7.0f} MB  (budget {BUDGET_LONG_MB} MB, ratio {(p1 - p0) / BUDGET_LONG_MB:.2f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
