"""``irrepro report`` beyond one process: serially, on a Dask LocalCluster, and on a synthetic
archive of many runs (issue 18), end to end (reading included), in one run.

Cases:

1. the 126 TREC-COVID round-5 runs, serially (``-j 1``, no scheduler) - the anchor;
2. the same 126 runs on a LocalCluster of ``--workers`` single-threaded worker processes
   (:func:`irrepro.parallel.local_cluster`, as ``IRREPRO_SCHEDULER=local`` starts it; the report
   gets ``--scheduler tcp://127.0.0.1:...``), whose tables must equal case 1's byte for byte;
3. a synthetic archive of ``--runs`` runs (:func:`irrepro.data.synthetic.perturbed_archive` of the
   126 real runs, seed 0) on a fresh LocalCluster of the same size.

Each report runs as ``irrepro.cli.main(["report", ...])`` in a child process (the client): its
peak resident set is the child's own high-water mark ``VmHWM`` (``/proc/self/status``, read as it
ends: ``ru_maxrss`` would include the parent's peak, which a child inherits across exec), its time
the wall clock around it and its CPU time user + system (``os.wait4``). A worker's peak is its
``VmHWM`` too, read on every worker by ``Client.run`` after the report (each cluster case has a
fresh cluster). Ratios are against case 1. Linux only (``/proc``).

    python benchmarks/bench_scale.py                          # paper scale, 500 synthetic runs
    python benchmarks/bench_scale.py --scale quick --runs 500 --workers 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QRELS = "cord19/trec-covid/round5"


def report(runs_dir: Path, out: Path, scale: str, scheduler: str | None) -> tuple[float, float, float]:
    """(client peak RSS MB, wall s, client CPU s) of one ``irrepro report`` in a child process."""
    cmd = [sys.executable, "-c", _CLIENT, "report", str(runs_dir), "--qrels", QRELS,
           "--out", str(out), "--scale", scale, "-q"]  # fmt: skip
    env = dict(os.environ)
    env.pop("IRREPRO_SCHEDULER", None)
    if scheduler:
        cmd += ["--scheduler", scheduler]
    else:
        cmd += ["-j", "1"]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        err.seek(0)
        text = err.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"irrepro report failed:\n{text}")
    peak = float(text.strip().splitlines()[-1].split()[1])
    return peak / 1024, seconds, usage.ru_utime + usage.ru_stime


# the client: irrepro report, then its own peak resident set (kB) as the last line of stderr
_CLIENT = """import sys
from irrepro.cli import main
rc = main(sys.argv[1:])
hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0]
print(hwm.strip(), file=sys.stderr)
sys.exit(rc)
"""


_ARCHIVE = f"""import sys
from irrepro import data
from irrepro.data import synthetic
rs = data.load_runs(sys.argv[1], qrels={QRELS!r}, progress=False)
synthetic.perturbed_archive(rs, int(sys.argv[3]), sys.argv[2], seed=0)
"""


def _peak_mb() -> float:
    """This process's peak resident set in MB (VmHWM: of this process image only)."""
    with open("/proc/self/status") as f:
        return next(float(ln.split()[1]) for ln in f if ln.startswith("VmHWM:")) / 1024


def on_cluster(
    runs_dir: Path, out: Path, scale: str, workers: int
) -> tuple[float, float, float, list[float]]:
    """:func:`report` on a fresh LocalCluster of ``workers`` processes (127.0.0.1), and the
    workers' peak RSS in MB."""
    from distributed import Client

    from irrepro.parallel import local_cluster

    with local_cluster(workers) as cluster, Client(cluster) as client:
        mb, wall, cpu = report(runs_dir, out, scale, cluster.scheduler_address)
        peaks = sorted(client.run(_peak_mb).values())
    return mb, wall, cpu, peaks


def same_tables(a: Path, b: Path) -> bool:
    names = sorted(p.name for p in a.glob("*.csv"))
    return bool(names) and all((a / n).read_bytes() == (b / n).read_bytes() for n in names)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", choices=["paper", "quick"], default="paper")
    ap.add_argument("--runs", type=int, default=500, help="runs of the synthetic archive (default 500)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
    ap.add_argument(
        "--archive",
        type=Path,
        default=None,
        help="directory of the synthetic archive (made there if empty; default a temporary one)",
    )
    args = ap.parse_args()

    from irrepro import data

    src = data.mirror_dir()
    if src is None or not (src / "trec-covid" / "round5" / "runs").is_dir():
        raise SystemExit("set IRREPRO_MIRROR to the data mirror (trec-covid/round5/runs)")
    real = src / "trec-covid" / "round5" / "runs"
    print(
        f"bench_scale: scale={args.scale}, workers={args.workers}, cores={os.cpu_count()}, "
        f"load before={os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        archive = args.archive or tmp / "archive"
        t0 = time.perf_counter()
        if not archive.is_dir() or not any(archive.glob("*.gz")):  # in a child: this process stays small
            subprocess.run(
                [sys.executable, "-c", _ARCHIVE, str(real), str(archive), str(args.runs)], check=True
            )
        n_arch = len(list(archive.glob("*.gz")))
        made = time.perf_counter() - t0
        mb_arch = sum(p.stat().st_size for p in archive.glob("*.gz")) / 2**20
        print(f"synthetic archive: {n_arch} runs, {mb_arch:.0f} MB gzipped, {made:.1f} s (made or found)\n")

        rows = []
        s_mb, s_wall, s_cpu = report(real, tmp / "serial", args.scale, None)
        rows.append(("126 runs, serial (-j 1)", 126, s_mb, s_wall, s_cpu, []))
        c_mb, c_wall, c_cpu, c_peaks = on_cluster(real, tmp / "cluster", args.scale, args.workers)
        rows.append((f"126 runs, LocalCluster {args.workers} workers", 126, c_mb, c_wall, c_cpu, c_peaks))
        identical = same_tables(tmp / "serial", tmp / "cluster")
        a_mb, a_wall, a_cpu, a_peaks = on_cluster(archive, tmp / "archive-report", args.scale, args.workers)
        rows.append((f"{n_arch} synthetic runs, LocalCluster {args.workers} workers", n_arch, a_mb, a_wall,
                     a_cpu, a_peaks))  # fmt: skip

    head = (
        f"{'case':<44} {'runs':>5} {'pairs':>8} {'wall s':>8} {'x serial':>8} {'client CPU s':>12} "
        f"{'client MB':>9} {'worker peaks MB':>18}"
    )
    print(head)
    print("-" * len(head))
    for name, n, mb, wall, cpu, peaks in rows:
        w = ", ".join(f"{p:.0f}" for p in peaks) or "-"
        print(
            f"{name:<44} {n:>5} {n * (n - 1) // 2:>8} {wall:>8.1f} {wall / s_wall:>8.2f} {cpu:>12.1f} "
            f"{mb:>9.0f} {w:>18}"
        )
    print(
        f"\n126-run tables (CSV) of the cluster run byte-identical to the serial run's: {'yes' if identical else 'NO'}"
    )
    print(f"load after={os.getloadavg()[0]:.2f} (2 cores shared: wall times are upper bounds; compare CPU)")
    if not identical:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
