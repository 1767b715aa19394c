"""Benchmark: ``irrepro eval`` end to end on all 126 TREC-COVID round-5 runs (268 MB of run text,
AP + nDCG@10 + P@10), beside pytrec_eval and trec_eval, in the same run; and the peak memory of
``load_runs`` + ``evaluate``.

Every tool runs cold in its own process, reading included (the gzipped run files as NIST
publishes them), and prints the mean over all the qrels' topics (trec_eval ``-c``):

* irrepro: ``irrepro eval --qrels Q RUNS_DIR -m AP -m nDCG@10 -m P@10 --format trec_eval`` (a
  subprocess);
* pytrec_eval: a Python script that reads every run with ``pytrec_eval.parse_run`` and evaluates
  it with ``RelevanceEvaluator`` (``map``, ``ndcg_cut.10``, ``P.10``);
* trec_eval (with ``--trec-eval PATH``, repeatable): a shell loop that decompresses each run to a
  temporary file and runs ``trec_eval -c -m runid -m map -m ndcg_cut.10 -m P.10`` on it.

The outputs are compared: irrepro's ``--format trec_eval`` text must equal trec_eval's, byte for
byte (irrepro ranks by 32-bit scores by default, like pytrec_eval and trec_eval <= 9.0.8; for
trec_eval 10, which ranks by double, irrepro is run once more, untimed, with ``--precision
float64``), and pytrec_eval's means, printed to 4 decimals, must equal irrepro's.

Memory (``--memory``, default on): peak RSS of a fresh process doing ``data.load_runs`` +
``measures.evaluate`` on (a) the 126 runs and (b) 5 runs where one run has a 100,000-line topic
(made in a temporary directory from a real run). ``--compare-with DIR`` also measures the package
found in DIR (e.g. ``git worktree add ../before main``), for before/after figures.

    IRREPRO_MIRROR=../shared/data .venv/bin/python benchmarks/bench_eval.py \\
        --trec-eval /path/to/trec_eval-9.0.8/trec_eval --trec-eval /path/to/trec_eval/trec_eval

Timings are wall-clock, best of ``--repeat`` (default 1); they are noisy on a shared machine: say
what ``uptime`` said.
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


CPU = {}  # label -> CPU seconds (user + system) of the best run


def run_timed(cmd, env=None, repeat=1, label=None, **kw):
    """Best wall time of ``repeat`` runs of a command, and its last stdout; the CPU time (user +
    system, of the process and its children) of that run goes to ``CPU[label]``."""
    import resource

    best, out = float("inf"), None
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)
        dt = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.exit(f"{cmd[0]} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        if dt < best:
            best, out = dt, p.stdout
            CPU[label] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return best, out


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
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs per tool (default 1)")
    ap.add_argument("--no-memory", dest="memory", action="store_false", help="skip the memory part")
    ap.add_argument("--memory-only", action="store_true", help="only the memory part")
    ap.add_argument(
        "--compare-with", metavar="DIR", help="also measure memory with the irrepro package in DIR"
    )
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
    t_ours, out = run_timed(cmd, repeat=args.repeat, label="irrepro")
    ours = trec_eval_means(out)
    print(f"irrepro eval        {t_ours:7.2f} s wall, {CPU['irrepro']:6.2f} s CPU")

    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        script = tmp / "pytrec.py"
        script.write_text(PYTREC_SCRIPT)
        t_py, _ = run_timed([sys.executable, str(script), qrels, str(tmp / "py.tsv"), *map(str, files)],
                            repeat=args.repeat, label="pytrec_eval")  # fmt: skip
        print(
            f"pytrec_eval         {t_py:7.2f} s wall, {CPU['pytrec_eval']:6.2f} s CPU   irrepro is "
            f"{t_py / t_ours:4.1f}x faster (wall), {CPU['pytrec_eval'] / CPU['irrepro']:4.1f}x (CPU)"
        )
        theirs = {}
        for line in (tmp / "py.tsv").read_text().splitlines():
            run, m, v = line.split("\t")
            theirs[(run, m)] = v
        ok &= compare("pytrec_eval", ours, theirs)

        loop = tmp / "loop.sh"
        loop.write_text(TREC_LOOP)
        out64 = None
        for te in args.trec_eval:
            t_te, text = run_timed(["bash", str(loop), te, qrels, str(tmp / "run.txt"), *map(str, files)],
                                   repeat=args.repeat, label=te)  # fmt: skip
            version = subprocess.run([te, "-v"], capture_output=True, text=True)
            version = (version.stdout + version.stderr).strip()
            version = version.splitlines()[0].replace(" version", "") if version else "trec_eval"
            print(
                f"{version:19s} {t_te:7.2f} s wall, {CPU[te]:6.2f} s CPU   irrepro is {t_te / t_ours:4.1f}x "
                f"faster (wall), {CPU[te] / CPU['irrepro']:4.1f}x (CPU)   [{te}]"
            )
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
