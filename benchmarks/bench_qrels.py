"""Benchmark: reading a 2-million-line qrels, end to end, ``irrepro eval`` beside ``trec_eval``
(issue 26: the goal is at most 2x trec_eval's wall time and 2x its peak memory).

A qrels of ``--lines`` lines (default 2,000,000: ``--topics`` 200 topics of 10,000 judged
documents, grades 0-2) and a small run (100 documents per topic, half of them judged) are
generated, seeded, in a temporary directory. Then, alternating the tools, ``--repeat`` times
(default 5), each in a fresh process:

* irrepro: ``python -m irrepro.cli eval --qrels Q RUN -m AP --format trec_eval``;
* trec_eval (``--trec-eval PATH`` or the environment's ``TREC_EVAL``; without either, its
  column is skipped and the reason printed): ``trec_eval -m map Q RUN``.

Wall time and peak resident memory (``ru_maxrss`` of the child from ``os.wait4``) are measured
per run; the medians and the ratios irrepro / trec_eval are printed, and the AP both print must
agree to 4 decimals. A child's ``ru_maxrss`` counts the memory of this process when it started
the child (Linux records it at ``exec``), so this script stays small (pure Python, no numpy) and
prints that floor.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_qrels.py --trec-eval /path/to/trec_eval

Timings are wall-clock on a possibly shared machine: the load average is printed; the ratios of
alternating runs are steadier than the times.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_files(directory: Path, lines: int, topics: int, seed: int) -> tuple[Path, Path]:
    """A qrels of ``lines`` judgments over ``topics`` topics and a run retrieving 100 documents per
    topic (half judged), written topic by topic (this process stays small)."""
    rng = random.Random(seed)
    per = lines // topics
    qrels, run = directory / "qrels.txt", directory / "run.txt"
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for t in range(1, topics + 1):
            docs = rng.sample(range(100_000_000), per + 50)
            judged, unjudged = docs[:per], docs[per:]
            fq.write("".join(f"{t} 0 doc{d:09d} {rng.choice((0, 0, 0, 1, 2))}\n" for d in judged))
            ranked = rng.sample(judged[:1000], 50) + unjudged
            rng.shuffle(ranked)
            fr.write("".join(f"{t} Q0 doc{d:09d} {r} {100 - r + rng.random():.6f} bench\n"
                             for r, d in enumerate(ranked, 1)))  # fmt: skip
    return qrels, run


def measure(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of one run of ``cmd`` in a fresh process."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        if p.returncode != 0:
            sys.exit(f"{cmd[0]} failed ({p.returncode}):\n{err[-2000:]}")
        out.seek(0)
        text = out.read().decode()
    kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024  # macOS: bytes
    return wall, kb / 1024, text


def mean_ap(text: str, key: str) -> float:
    """The value of the trec_eval-format line whose measure is ``key`` (``map``)."""
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == key and f[1] == "all":
            return float(f[2])
    sys.exit(f"no '{key} all' line in:\n{text[:500]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--trec-eval",
        metavar="PATH",
        default=os.environ.get("TREC_EVAL"),
        help="the trec_eval binary (default: $TREC_EVAL)",
    )
    ap.add_argument("--lines", type=int, default=2_000_000, help="qrels lines (default 2,000,000)")
    ap.add_argument("--topics", type=int, default=200, help="topics (default 200)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per tool, alternating (default 5)")
    ap.add_argument("--seed", type=int, default=26)
    args = ap.parse_args()  # fmt: skip
    for name in ("repeat", "lines", "topics"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be >= 1")

    te, why = args.trec_eval, None
    if not te:
        why = "no trec_eval: give --trec-eval PATH or set TREC_EVAL"
    elif not (os.path.isfile(te) and os.access(te, os.X_OK)):
        why, te = f"trec_eval {te!r} is not an executable file", None
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])  # this checkout's irrepro first
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    with tempfile.TemporaryDirectory(prefix="bench_qrels-") as tmp:
        qrels, run = write_files(Path(tmp), args.lines, args.topics, args.seed)
        floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        ours_cmd = [sys.executable, "-m", "irrepro.cli", "eval", "--qrels", str(qrels), str(run), "-m", "AP",
                    "--format", "trec_eval"]  # fmt: skip
        te_cmd = [te, "-m", "map", str(qrels), str(run)] if te else None
        print(f"qrels: {args.lines:,} lines, {args.topics} topics ({qrels.stat().st_size / 1e6:.1f} MB); "
              f"run: {sum(1 for _ in open(run)):,} lines")  # fmt: skip
        print(
            f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        print(f"{args.repeat} runs per tool, alternating; medians (peak RSS floor of a child: {floor:.0f} MB, "
              "this process)")  # fmt: skip
        results: dict[str, list] = {"irrepro": [], "trec_eval": []}
        outputs: dict[str, str] = {}
        for _ in range(args.repeat):
            for name, cmd in (("irrepro", ours_cmd), ("trec_eval", te_cmd)):
                if cmd is None:
                    continue
                wall, rss, outputs[name] = measure(cmd, env)
                results[name].append((wall, rss))

    med = {k: (statistics.median(w for w, _ in v), statistics.median(r for _, r in v))
           for k, v in results.items() if v}  # fmt: skip
    print(f"{'':12s} {'wall s':>8s} {'peak RSS MB':>12s}")
    for name in ("irrepro", "trec_eval"):
        if name in med:
            print(f"{name:12s} {med[name][0]:8.2f} {med[name][1]:12.0f}")
        else:
            print(f"{name:12s} {'skipped':>8s} {'':12s} ({why})")
    if "trec_eval" not in med:
        return
    tr, mr = med["irrepro"][0] / med["trec_eval"][0], med["irrepro"][1] / med["trec_eval"][1]
    print(f"{'ratio':12s} {tr:7.2f}x {mr:11.2f}x   (irrepro / trec_eval; goal <= 2x each)")
    ours, theirs = mean_ap(outputs["irrepro"], "map"), mean_ap(outputs["trec_eval"], "map")
    same = f"{ours:.4f}" == f"{theirs:.4f}"
    print(f"mean AP: irrepro {ours:.4f}, trec_eval map {theirs:.4f}: {'the same' if same else 'DIFFERENT'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
