"""Benchmark: ``irrepro eval`` end to end on all 126 TREC-COVID round-5 runs (268 MB of run text,
AP + nDCG@10 + P@10), beside the parse floor, trec_eval and pytrec_eval, alternating in one run;
and the peak memory of ``load_runs`` + ``evaluate``.

Every tool runs cold in its own process, reading included (the gzipped run files as NIST
publishes them); the tools take turns (floor, irrepro, trec_eval, pytrec_eval, floor, ...,
``--repeat`` rounds), so a drift of the machine's speed hits them alike:

* floor: pyarrow alone reading every gzipped run into arrow columns (``pyarrow.csv.read_csv`` with
  its defaults: its own threads, its own gzip; the delimiter of each file's first line; the one
  line with an empty field skipped) and nothing else: no check, no ranking, no measure. The time
  any reader built on pyarrow's CSV reader needs at least;
* irrepro: ``irrepro eval --qrels Q RUNS_DIR -m AP -m nDCG@10 -m P@10 --format trec_eval``;
* trec_eval (with ``--trec-eval PATH``, repeatable): a shell loop that decompresses each run to a
  temporary file and runs ``trec_eval -c -m runid -m map -m ndcg_cut.10 -m P.10`` on it;
* pytrec_eval (when installed): a Python script that reads every run with
  ``pytrec_eval.parse_run`` and evaluates it with ``RelevanceEvaluator`` (``map``,
  ``ndcg_cut.10``, ``P.10``).

A tool that cannot run (no ``--trec-eval`` given, pytrec_eval not installed) gets a line saying
why, and the others run. Every figure is min / median / max over the rounds, wall and CPU (user +
system of the process and its children); the ratios (trec_eval / irrepro, irrepro / floor) are
taken round by round, then min / median / max.

The outputs are compared: irrepro's ``--format trec_eval`` text must equal trec_eval's, byte for
byte (irrepro ranks by 32-bit scores by default, like pytrec_eval and trec_eval <= 9.0.8; for
trec_eval 10, which ranks by double, irrepro is run once more, untimed, with ``--precision
float64``), and pytrec_eval's means, printed to 4 decimals, must equal irrepro's.

``--compare-with DIR`` also times (alternating with the others) and measures the memory of the
irrepro package found in DIR (e.g. ``git worktree add ../before main``), for before/after figures;
its output must equal this irrepro's, byte for byte.

Memory (``--memory``, default on): peak RSS of a fresh process doing ``data.load_runs`` +
``measures.evaluate`` on (a) the 126 runs and (b) 5 runs where one run has a 100,000-line topic
(made in a temporary directory from a real run).

    IRREPRO_MIRROR=../shared/data .venv/bin/python benchmarks/bench_eval.py --repeat 5 \\
        --trec-eval /path/to/trec_eval-9.0.8/trec_eval --trec-eval /path/to/trec_eval/trec_eval

Timings are wall-clock and noisy on a shared machine: the load average is printed before and
after (and with every round), and the median is the figure to quote.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTREC_SCRIPT = r"""
import gzip, sys
import pytrec_eval
qrels_path, out, *files = sys.argv[1:]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10"})
n = len(qrels)
with open(out, "w") as fo:
    for path in files:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            first = f.readline()
            f.seek(0)
            run = pytrec_eval.parse_run(f)
        tag = first.split()[5]
        res = ev.evaluate(run)
        for m in ("map", "ndcg_cut_10", "P_10"):
            # trec_eval -c: the mean over all qrels topics, a topic the run lacks scoring 0
            fo.write(f"{tag}\t{m}\t{sum(r[m] for r in res.values()) / n:.4f}\n")
"""

TREC_LOOP = r"""
set -e
te="$1"; q="$2"; tmp="$3"; shift 3
for f in "$@"; do
  case "$f" in *.gz) gzip -dc "$f" > "$tmp" ;; *) cp "$f" "$tmp" ;; esac
  "$te" -c -m runid -m map -m ndcg_cut.10 -m P.10 "$q" "$tmp"
done
"""

FLOOR_SCRIPT = r"""
import sys
import pyarrow as pa, pyarrow.csv as pcsv
names = ["topic", "q0", "doc", "rank", "score", "tag"]
rows = skipped = 0
def skip(row):  # a line pyarrow cannot split into 6 fields (round 5: one, with an empty field)
    global skipped
    skipped += 1
    return "skip"
for path in sys.argv[1:]:
    with pa.input_stream(path, compression="detect") as f:
        first = f.read(1 << 12).split(b"\n")[0]
    opts = pcsv.ParseOptions(delimiter="\t" if b"\t" in first else " ", invalid_row_handler=skip)
    rows += pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=names), parse_options=opts).num_rows
print(rows, skipped)
"""

MEMORY_SCRIPT = r"""
import resource, sys, time
from irrepro import data, measures
def rss():  # peak RSS in MB: VmHWM (reset at exec, unlike ru_maxrss, which a child inherits)
    try:
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmHWM")) / 1024
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
base = rss()
qrels, *files = sys.argv[1:]
t0 = time.perf_counter()
rs = data.load_runs(files, qrels=qrels)
t1 = time.perf_counter()
loaded = rss()
sc = measures.evaluate(rs, ["AP", "nDCG@10", "P@10"])
t2 = time.perf_counter()
print(f"{base:.0f} {loaded:.0f} {rss():.0f} {t1 - t0:.2f} {t2 - t1:.2f} {rs.shape[2]} {data.__file__}")
"""


def run_once(cmd, env=None, **kw) -> tuple[float, float, str | None, str]:
    """Wall and CPU seconds (user + system, of the process and its children) of one run of a
    command, its stdout, and why it failed ("" if it did not)."""
    import resource

    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)
    except OSError as exc:
        return 0.0, 0.0, None, f"cannot start {cmd[0]}: {exc}"
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        return dt, cpu, None, f"exit {p.returncode}: {p.stderr.strip()[-500:]}"
    return dt, cpu, p.stdout, ""


def spread(xs: list[float], fmt: str = "6.2f") -> str:
    """min / median / max of some figures."""
    import statistics

    return " / ".join(format(x, fmt) for x in (min(xs), statistics.median(xs), max(xs)))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def trec_eval_means(text: str) -> dict:
    """{(run, measure): value} of the summary lines of trec_eval's output (``-m runid`` first)."""
    out, run = {}, None
    for line in text.splitlines():
        m, q, v = (x.strip() for x in line.split("\t"))
        if m == "runid":
            run = v
        elif q == "all" and m != "num_q":
            out[(run, m)] = v
    return out


def same_text(name: str, ours: str, theirs: str) -> bool:
    """Whether two trec_eval outputs are the same text; the first differing lines if not."""
    if ours == theirs:
        print(
            f"  output: irrepro --format trec_eval == {name}, byte for byte ({len(ours.splitlines())} lines)"
        )
        return True
    a, b = ours.splitlines(), theirs.splitlines()
    bad = [i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]]
    print(f"  output: {len(bad)} of {len(b)} lines differ from {name}")
    for i in bad[:10]:
        print(
            f"    line {i + 1}: irrepro {a[i] if i < len(a) else None!r}  {name} {b[i] if i < len(b) else None!r}"
        )
    return False


def compare(name: str, ours: dict, theirs: dict) -> bool:
    diff = sorted(k for k in ours if theirs.get(k) != ours[k])
    missing = set(ours) ^ set(theirs)
    if not diff and not missing:
        print(f"  numbers: irrepro == {name} on all {len(ours)} (run, measure) means, to 4 decimals")
        return True
    print(f"  numbers: {len(diff)} of {len(ours)} means differ from {name}"
          + (f"; {len(missing)} missing" if missing else ""))  # fmt: skip
    for k in diff[:10]:
        print(f"    {k[0]:30s} {k[1]:12s} irrepro {ours[k]}  {name} {theirs.get(k)}")
    return False


def memory(python: str, qrels: str, files: list[Path], pythonpath: str | None) -> str:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    # run outside the repository: `python -c` puts the working directory first on sys.path
    p = subprocess.run([python, "-c", MEMORY_SCRIPT, qrels, *map(str, files)], env=env,
                       capture_output=True, text=True, cwd=tempfile.gettempdir())  # fmt: skip
    if p.returncode != 0:
        return f"failed: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}"
    base, loaded, peak, t_load, t_eval, k, where = p.stdout.split()
    return (
        f"peak RSS after load_runs {loaded:>5s} MB, after evaluate {peak:>5s} MB (imports {base} MB); "
        f"{t_load} s + {t_eval} s; longest list {k}; {Path(where).parent.parent}"
    )


def long_topic_runs(
    files: list[Path], qrels_topics: list[str], tmp: Path, n_lines: int = 100_000
) -> list[Path]:
    """5 real runs, the first rewritten so that its first topic has ``n_lines`` lines: its real
    documents of that topic, then made-up ones, scores descending."""
    out = []
    for i, f in enumerate(files[:5]):
        with gzip.open(f, "rt") as fh:
            lines = fh.read().splitlines()
        if i == 0:
            topic = qrels_topics[0]
            tag = lines[0].split()[5]
            mine = [ln.split() for ln in lines if ln.split()[0] == topic]
            rest = [ln for ln in lines if ln.split()[0] != topic]
            docs = [p[2] for p in mine] + [f"made-up-{j:07d}" for j in range(n_lines - len(mine))]
            lines = [f"{topic} Q0 {d} {r + 1} {n_lines - r} {tag}" for r, d in enumerate(docs)] + rest
        p = tmp / f"run{i}.gz"
        with gzip.open(p, "wt") as fh:
            fh.write("\n".join(lines) + "\n")
        out.append(p)
    return out


def memory_part(files: list[Path], qrels: str, tmp: Path, compare_with: str | None) -> None:
    from irrepro import data

    qt = data.read_qrels(qrels).topics
    five = long_topic_runs(files, list(qt), tmp)
    print("memory of data.load_runs + measures.evaluate (a fresh process each):")
    versions = [("this irrepro", None)]
    if compare_with:
        versions.append((f"irrepro in {compare_with}", compare_with))
    for label, path in versions:
        print(f"  {label}:")
        print(f"    126 runs                        {memory(sys.executable, qrels, files, path)}")
        print(f"    5 runs, one 100,000-line topic  {memory(sys.executable, qrels, five, path)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--trec-eval",
        action="append",
        default=[],
        metavar="PATH",
        help="a trec_eval binary to time beside irrepro (repeatable)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="rounds of every tool in turn (default 3)")
    ap.add_argument("--no-memory", dest="memory", action="store_false", help="skip the memory part")
    ap.add_argument("--memory-only", action="store_true", help="only the memory part")
    ap.add_argument("--compare-with", metavar="DIR", help="also time and measure the irrepro package in DIR")
    args = ap.parse_args()

    from irrepro import data

    coll = data.get_collection("trec-covid-round5")
    files = sorted(data.locate(p) for p in coll.files() if p.startswith(coll.run_dir))
    qrels = str(data.locate(data._registry_qrels_file(coll.ir_datasets_id)))
    run_dir = files[0].parent
    assert len(list(run_dir.iterdir())) == len(files) == 126, run_dir
    size = sum(len(gzip.open(f).read()) for f in files)
    print(f"job: {len(files)} runs ({size / 1e6:.0f} MB of run text), qrels {qrels}, AP + nDCG@10 + P@10")
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    if args.memory_only:
        with tempfile.TemporaryDirectory() as tmp:
            memory_part(files, qrels, Path(tmp), args.compare_with)
        return
    irrepro = str(Path(sys.executable).with_name("irrepro"))
    cmd = [irrepro, "eval", "--qrels", qrels, str(run_dir), "-m", "AP", "-m", "nDCG@10", "-m", "P@10",
           "--format", "trec_eval"]  # fmt: skip
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "floor.py").write_text(FLOOR_SCRIPT)
        (tmp / "pytrec.py").write_text(PYTREC_SCRIPT)
        (tmp / "loop.sh").write_text(TREC_LOOP)
        # the tools: label -> (command, environment); the ones that cannot run say why
        tools: dict[str, tuple[list[str], dict | None]] = {
            "floor (pyarrow read)": ([sys.executable, str(tmp / "floor.py"), *map(str, files)], None),
            "irrepro eval": (cmd, None),
        }
        if args.compare_with:
            env = dict(os.environ, PYTHONPATH=str(Path(args.compare_with).resolve()))
            tools[f"irrepro eval in {args.compare_with}"] = (cmd, env)
        missing: dict[str, str] = {}
        versions: dict[str, str] = {}
        for te in args.trec_eval:
            try:
                v = subprocess.run([te, "-v"], capture_output=True, text=True)
                v_text = (v.stdout + v.stderr).strip()
                version = v_text.splitlines()[0].replace(" version", "") if v_text else "trec_eval"
            except OSError as exc:
                missing[f"trec_eval [{te}]"] = f"cannot run it ({exc})"
                continue
            label = version if version not in tools else f"{version} [{te}]"
            versions[label] = te
            tools[label] = (
                ["bash", str(tmp / "loop.sh"), te, qrels, str(tmp / "run.txt"), *map(str, files)],
                None,
            )
        if not args.trec_eval:
            missing["trec_eval"] = (
                "not timed: no --trec-eval PATH given (build usnistgov/trec_eval with make and pass "
                "its binary)"
            )  # fmt: skip
        try:
            import pytrec_eval  # noqa: F401  # (only whether it is installed)

            tools["pytrec_eval"] = ([sys.executable, str(tmp / "pytrec.py"), qrels, str(tmp / "py.tsv"),
                                     *map(str, files)], None)  # fmt: skip
        except ImportError as exc:
            missing["pytrec_eval"] = f"not timed: {exc} (pip install pytrec_eval)"

        print(f"{args.repeat} rounds, the tools in turn: {', '.join(tools)}; wall and CPU seconds")
        wall: dict[str, list[float]] = {k: [] for k in tools}
        cpu: dict[str, list[float]] = {k: [] for k in tools}
        outs: dict[str, str] = {}
        for r in range(args.repeat):
            for label, (c, env) in list(tools.items()):
                dt, ct, out, why = run_once(c, env=env)
                if out is None:
                    missing[label] = f"failed: {why}"
                    del tools[label]
                    continue
                wall[label].append(dt)
                cpu[label].append(ct)
                outs.setdefault(label, out)
            print(f"  round {r + 1}: " + ", ".join(f"{k} {wall[k][-1]:.2f} s" for k in tools)
                  + f"   (load average {load()})", flush=True)  # fmt: skip
        print(f"{'':30s} {'wall s: min / median / max':>26s}   {'CPU s: min / median / max':>26s}")
        for label in tools:
            print(f"{label:30s} {spread(wall[label]):>26s}   {spread(cpu[label]):>26s}")
        for label, why in missing.items():
            print(f"{label:30s} {why}")

        def ratios(a: str, b: str) -> None:  # a / b, round by round
            if a in tools and b in tools:
                w = [x / y for x, y in zip(wall[a], wall[b])]
                c = [x / y for x, y in zip(cpu[a], cpu[b])]
                print(f"  {a + ' / ' + b:60s} wall {spread(w, '5.2f')}   CPU {spread(c, '5.2f')}")

        print("ratios, round by round (min / median / max):")
        for label in versions:
            ratios(label, "irrepro eval")
        ratios("pytrec_eval", "irrepro eval")
        ratios("irrepro eval", "floor (pyarrow read)")
        if args.compare_with:
            ratios(f"irrepro eval in {args.compare_with}", "floor (pyarrow read)")
            ratios(f"irrepro eval in {args.compare_with}", "irrepro eval")
        print(f"load average at the end: {load()}")

        if "floor (pyarrow read)" in outs:
            n_rows, n_skipped = outs["floor (pyarrow read)"].split()
            print(f"  floor: {int(n_rows):,} lines read into arrow columns, {n_skipped} skipped")
        if "irrepro eval" not in outs:
            sys.exit("irrepro eval failed: nothing to compare")
        out = outs["irrepro eval"]
        ours = trec_eval_means(out)
        if args.compare_with and f"irrepro eval in {args.compare_with}" in outs:
            ok &= same_text(
                f"irrepro in {args.compare_with}", out, outs[f"irrepro eval in {args.compare_with}"]
            )
        if "pytrec_eval" in outs:
            theirs = {}
            for line in (tmp / "py.tsv").read_text().splitlines():
                run, m, v = line.split("\t")
                theirs[(run, m)] = v
            ok &= compare("pytrec_eval", ours, theirs)
        out64 = None
        for version in versions:
            if version not in outs:
                continue
            text = outs[version]
            if "10." in version:  # trec_eval 10 ranks by double: irrepro --precision float64 (untimed)
                if out64 is None:
                    out64 = subprocess.run([*cmd, "--precision", "float64"], capture_output=True, text=True,
                                           check=True).stdout  # fmt: skip
                ok &= same_text(f"{version} (irrepro --precision float64)", out64, text)
                compare(f"{version} (irrepro by float32)", ours, trec_eval_means(text))
            else:
                ok &= same_text(version, out, text)

        if args.memory:
            memory_part(files, qrels, tmp, args.compare_with)
    print("numbers identical" if ok else "NUMBERS DIFFER")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
