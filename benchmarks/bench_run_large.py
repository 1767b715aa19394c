"""Benchmark: ``irrepro eval`` on one 5,000,000-line run, end to end, beside ``trec_eval`` and a
pyarrow read floor: wall time, CPU time and peak memory, and their ratios (issue 41: the goal is
at most 1.5x trec_eval's peak memory, numbers equal), for two shapes of run:

* long lists: ``--lines`` lines (default 5,000,000) over ``--topics`` topics (default 5,000: 1,000
  documents a topic), with pooled qrels: about 90 judgments a topic, most of them near the top of
  the lists, grades 0-2, and 30 judged documents the run lacks;
* many topics: the same number of lines over ``--many-topics`` topics (default 200,000: 25
  documents a topic; 0 leaves this shape out), with MS MARCO-like qrels: one to three judgments a
  topic, two in three of them of retrieved documents. What costs memory a topic (ids, per-topic
  arrays, the lines printed for each) shows here. trec_eval's time grows with the square of the
  topics (about 3.5 minutes a round here; at 1,000,000 topics of 5 documents more than 11).

Document ids are web ids such as ``clueweb09-en0003-55-31884``, every one distinct within its topic
and almost all distinct in the run, scores descending. Each shape's files are generated, seeded, in
a temporary directory. Then, alternating the tools, ``--repeat`` times (default 3), each in a
fresh process:

* floor: pyarrow alone reading the run into arrow columns (``pyarrow.csv.read_csv`` with its
  defaults, its own threads) and nothing else - the time any reader built on it needs at least;
* irrepro: ``python -m irrepro.cli eval --qrels Q RUN -m AP -m nDCG@10 -m P@10 -q --format
  trec_eval --precision P``, with ``IRREPRO_CACHE`` a new empty directory (nothing cached can hide
  a cost); P is float64 against trec_eval 10 (which ranks by double), float32 otherwise (the
  default, as trec_eval 9); ``--precision`` sets it;
* irrepro in ``--compare-with DIR`` (e.g. ``git worktree add ../before main``): the same command
  on the package found in DIR, for before/after figures;
* trec_eval (``--trec-eval PATH`` or the environment's ``TREC_EVAL``; without either its columns
  are skipped and the reason printed): ``trec_eval -c -q -m runid -m map -m ndcg_cut.10 -m P.10``.

Peak resident memory is the child's ``ru_maxrss`` (``os.wait4``); CPU time is its user + system
time. A child's ``ru_maxrss`` counts the memory of this process when it started the child (Linux
records it at ``exec``), so this script stays small (pure Python, no numpy) and prints that floor.
Every figure is min / median / max over the rounds; the ratios are taken round by round. The
outputs are compared: irrepro's ``--format trec_eval`` text must equal trec_eval's byte for byte
(every topic and the means), and that of the irrepro in DIR.

    TREC_EVAL=/path/to/trec_eval/trec_eval .venv/bin/python benchmarks/bench_run_large.py
    .venv/bin/python benchmarks/bench_run_large.py --lines 1000000 --topics 1000 --many-topics 0 --repeat 5

Timings are wall-clock on a possibly shared machine: the load average is printed; the CPU times
and the ratios of alternating runs are steadier than the wall times.
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

MEASURES = ["AP", "nDCG@10", "P@10"]
TREC_MEASURES = ["map", "ndcg_cut.10", "P.10"]
GOAL_MEMORY = 1.5  # irrepro's peak memory / trec_eval's

FLOOR_SCRIPT = r"""
import sys
import pyarrow.csv as pcsv
names = ["topic", "q0", "doc", "rank", "score", "tag"]
t = pcsv.read_csv(sys.argv[1], read_options=pcsv.ReadOptions(column_names=names),
                  parse_options=pcsv.ParseOptions(delimiter=" "))
print(t.num_rows)
"""


def write_files(
    directory: Path, lines: int, topics: int, seed: int, sparse: bool = False
) -> tuple[Path, Path]:
    """A run of ``lines`` lines over ``topics`` topics and its qrels (pooled, or ``sparse``: one to
    three judgments a topic), written topic by topic (this process stays small)."""
    rng = random.Random(seed)
    per = lines // topics
    extra = 3 if sparse else 30  # judged documents the run lacks (sparse: candidates)
    qrels, run = directory / "qrels.txt", directory / "run.txt"
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for t in range(1, topics + 1):
            # distinct ids: web documents "clueweb09-en<segment>-<file>-<record>"
            codes = rng.sample(range(10**11), per + extra)
            ids = [f"clueweb09-en{c // 10**7:04d}-{c // 10**5 % 100:02d}-{c % 10**5:05d}" for c in codes]
            ranked, unretrieved = ids[:per], ids[per:]
            score = 30.0
            out = []
            for r, d in enumerate(ranked, 1):
                score -= rng.expovariate(per / 20.0)
                out.append(f"{t} Q0 {d} {r} {score:.6f} bench\n")
            fr.write("".join(out))
            if sparse:  # MS MARCO-like: 1-3 judged, two in three retrieved (near the top), grades 0-2
                n = rng.randint(1, 3)
                docs = [
                    rng.choice(ranked[:10]) if rng.random() < 2 / 3 else rng.choice(unretrieved)
                    for _ in range(n)
                ]
                grades = [(d, rng.choice((0, 1, 1, 2))) for d in dict.fromkeys(docs)]
            else:
                judged = [
                    (d, r) for r, d in enumerate(ranked, 1) if rng.random() < (0.6 if r <= 100 else 0.03)
                ]
                grades = [(d, rng.choice((1, 2)) if rng.random() < 0.5 * 0.995**r else 0) for d, r in judged]
                grades += [(d, rng.choice((0, 1, 2))) for d in unretrieved]
            fq.write("".join(f"{t} 0 {d} {g}\n" for d, g in sorted(grades)))
    return qrels, run


def measure(cmd: list[str], env: dict | None = None) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, stdout) of one run of ``cmd`` in a fresh
    process, started outside the repository (``python -m`` puts the working directory first)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=tempfile.gettempdir())
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            sys.exit(f"{cmd[0]} failed ({p.returncode}):\n{err.read().decode(errors='replace')[-2000:]}")
        out.seek(0)
        text = out.read().decode()
    kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024  # macOS: bytes
    return wall, usage.ru_utime + usage.ru_stime, kb / 1024, text


def first_difference(ours: str, theirs: str) -> str:
    """ "" when the texts are equal, else how many lines differ and the first of them."""
    if ours == theirs:
        return ""
    a, b = ours.splitlines(), theirs.splitlines()
    bad = [i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]]
    return f"{len(bad)} of {len(b)} lines differ, e.g. line {bad[0] + 1}"


def spread(xs: list[float], fmt: str = "7.2f") -> str:
    """min / median / max."""
    return " / ".join(format(x, fmt) for x in (min(xs), statistics.median(xs), max(xs)))


def trec_eval_version(te: str) -> str:
    """``trec_eval -v``'s first line, e.g. 'trec_eval 10.0-rc2' (its own name when it says none)."""
    v = subprocess.run([te, "-v"], capture_output=True, text=True)
    text = (v.stdout + v.stderr).strip()
    return text.splitlines()[0].replace(" version", "") if text else "trec_eval"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trec-eval", metavar="PATH", default=os.environ.get("TREC_EVAL"),
                    help="the trec_eval binary (default: $TREC_EVAL)")  # fmt: skip
    ap.add_argument("--lines", type=int, default=5_000_000, help="run lines (default 5,000,000)")
    ap.add_argument("--topics", type=int, default=5_000, help="topics of the long lists (default 5,000)")
    ap.add_argument("--many-topics", type=int, default=200_000,
                    help="topics of the many-topic shape (default 200,000; 0: leave it out)")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool, alternating (default 3)")
    ap.add_argument("--precision", choices=["auto", "float32", "float64"], default="auto",
                    help="irrepro's ranking precision (auto: float64 against trec_eval 10, else float32)")  # fmt: skip
    ap.add_argument("--compare-with", metavar="DIR", help="also measure the irrepro package in DIR")
    ap.add_argument("--seed", type=int, default=41)
    args = ap.parse_args()
    for name in ("repeat", "lines", "topics"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be >= 1")
    if args.many_topics < 0:
        ap.error("--many-topics must be >= 0")

    te, why, version = args.trec_eval, None, ""
    if not te:
        why = "skipped: no trec_eval (give --trec-eval PATH or set TREC_EVAL)"
    elif not (os.path.isfile(te) and os.access(te, os.X_OK)):
        why, te = f"skipped: trec_eval {te!r} is not an executable file", None
    else:
        version = trec_eval_version(te)
    precision = args.precision
    if precision == "auto":
        precision = "float64" if version.startswith("trec_eval 10") else "float32"
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    shapes = [("long lists", args.topics, False)] + (
        [("many topics", args.many_topics, True)] if args.many_topics else []
    )
    ok, summary = True, []
    for label, topics, sparse in shapes:
        print(
            f"\n== {label}: {args.lines:,} lines over {topics:,} topics ({args.lines // topics:,} documents a topic)"
        )
        same, ratio = bench_shape(args, topics, sparse, te, version, precision, why)
        ok = ok and same
        summary.append((label, topics, ratio))
    if te:
        print(f"\nirrepro's peak memory / trec_eval's, median of the rounds (goal: <= {GOAL_MEMORY}x):")
        for label, topics, ratio in summary:
            flag = "" if ratio <= GOAL_MEMORY else "   ABOVE THE GOAL"
            print(f"  {label + ',':12s} {args.lines:,} lines over {topics:,} topics: {ratio:.2f}x{flag}")
    if te and not ok:
        sys.exit("NUMBERS DIFFER")


def bench_shape(args, topics: int, sparse: bool, te, version: str, precision: str, why) -> tuple[bool, float]:
    """One shape: its files made, the tools run in turn, the figures printed; (outputs equal,
    median ratio of irrepro's peak memory to trec_eval's)."""

    def env_for(root: str, cache: Path) -> dict:
        env = dict(os.environ, IRREPRO_CACHE=str(cache))
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        return env

    here = str(Path(__file__).resolve().parents[1])  # this checkout's irrepro first
    with tempfile.TemporaryDirectory(prefix="bench_run_large-") as tmp:
        t0 = time.perf_counter()
        qrels, run = write_files(Path(tmp), args.lines, topics, args.seed, sparse)
        made = time.perf_counter() - t0
        n_judged = sum(1 for _ in open(qrels))
        print(f"run: {args.lines:,} lines, {topics:,} topics ({run.stat().st_size / 1e6:.0f} MB); "
              f"qrels: {n_judged:,} lines ({qrels.stat().st_size / 1e6:.1f} MB); made in {made:.0f} s")  # fmt: skip
        ours = [sys.executable, "-m", "irrepro.cli", "eval", "--qrels", str(qrels), str(run),
                *(x for m in MEASURES for x in ("-m", m)), "-q", "--format", "trec_eval", "--precision", precision]  # fmt: skip
        tools: dict[str, tuple[list[str], dict | None]] = {
            "floor (pyarrow read)": ([sys.executable, "-c", FLOOR_SCRIPT, str(run)], None),
            "irrepro eval": (ours, env_for(here, Path(tmp) / "cache")),
        }
        if args.compare_with:
            other = str(Path(args.compare_with).resolve())
            tools[f"irrepro in {args.compare_with}"] = (ours, env_for(other, Path(tmp) / "cache-other"))
        if te:
            tools[version] = ([te, "-c", "-q", "-m", "runid", *(x for m in TREC_MEASURES for x in ("-m", m)),
                               str(qrels), str(run)], None)  # fmt: skip
        floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{args.repeat} rounds, the tools in turn: {', '.join(tools)}; irrepro ranks by {precision} "
              f"(peak RSS floor of a child: {floor:.0f} MB, this process)")  # fmt: skip
        wall: dict[str, list[float]] = {k: [] for k in tools}
        cpu: dict[str, list[float]] = {k: [] for k in tools}
        rss: dict[str, list[float]] = {k: [] for k in tools}
        differ: dict[str, str] = {}  # tool -> how its output differs from irrepro's ("": equal)
        n_lines = 0
        for r in range(args.repeat):
            ours_text = ""
            for label, (cmd, env) in tools.items():
                w, c, m, text = measure(cmd, env)
                wall[label].append(w)
                cpu[label].append(c)
                rss[label].append(m)
                if label == "irrepro eval":
                    ours_text, n_lines = text, text.count("\n")
                elif label.startswith("irrepro in") or label == version:
                    differ[label] = differ.get(label) or first_difference(ours_text, text)
                del text  # (the texts are not kept: this process's memory is a floor of the children's)
            print(f"  round {r + 1}: " + ", ".join(f"{k} {wall[k][-1]:.2f} s {rss[k][-1]:.0f} MB" for k in tools),
                  flush=True)  # fmt: skip

    print(f"{'':28s} {'wall s: min / median / max':>27s} {'CPU s: min / median / max':>27s} "
          f"{'peak RSS MB: min / median / max':>33s}")  # fmt: skip
    for label in tools:
        print(
            f"{label:28s} {spread(wall[label]):>27s} {spread(cpu[label]):>27s} {spread(rss[label], '9.0f'):>33s}"
        )
    if not te:
        print(f"{'trec_eval':28s} {why}")

    def ratios(a: str, b: str, note: str = "") -> None:  # a / b, round by round
        if a in tools and b in tools:
            w = [x / y for x, y in zip(wall[a], wall[b])]
            c = [x / y for x, y in zip(cpu[a], cpu[b])]
            m = [x / y for x, y in zip(rss[a], rss[b])]
            print(f"  {a + ' / ' + b:48s} wall {spread(w, '5.2f')}   CPU {spread(c, '5.2f')}   "
                  f"peak RSS {spread(m, '5.2f')}{note}")  # fmt: skip

    print("ratios, round by round (min / median / max):")
    ratios("irrepro eval", version, f"   (goal: peak RSS <= {GOAL_MEMORY}x)")
    ratios("irrepro eval", "floor (pyarrow read)")
    if args.compare_with:
        ratios(f"irrepro in {args.compare_with}", version)
        ratios(f"irrepro in {args.compare_with}", "irrepro eval")
    for label, how in differ.items():
        print(f"  output: {how} from {label}" if how else f"  output: irrepro --format trec_eval == {label}, "
              f"byte for byte ({n_lines:,} lines)")  # fmt: skip
    ok = not any(differ.values())
    ratio = (
        statistics.median(x / y for x, y in zip(rss["irrepro eval"], rss[version])) if te else float("nan")
    )
    return ok, ratio


if __name__ == "__main__":
    main()
