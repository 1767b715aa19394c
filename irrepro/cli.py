"""The ``irrepro`` command line.

    irrepro data status               where every collection's files are found, verified or missing
    irrepro data fetch [NAME|all]     put collections into the cache (mirror or download), verified
    irrepro eval --qrels Q RUN... -m AP -m nDCG@10 [--per-topic]
                                      score runs like trec_eval -c: run<TAB>measure<TAB>value
    irrepro report RUNS_DIR --qrels Q [--out DIR] [-m AP] [--seed N]
                                      the four papers' analyses of your runs as one HTML report
"""

from __future__ import annotations

import argparse
import signal
import sys


def _data_status(args: argparse.Namespace) -> int:
    from . import data

    table = data.status()
    if args.brief:  # one line per collection: what a rebuild depends on
        for name, state in zip(table["collection"], table["status"]):
            print(name, state)
        return 0
    print(f"cache:  {data.cache_dir()}")
    print(f"mirror: {data.mirror_dir() or '(IRREPRO_MIRROR not set)'}")
    print(table.to_string(index=False))
    return 0 if (table["status"] == "verified").all() else 1


def _data_fetch(args: argparse.Namespace) -> int:
    from . import data

    names = args.names or ["all"]
    names = "all" if names == ["all"] else names
    try:
        paths = data.fetch(names, progress=not args.quiet)
    except (data.DataUnavailable, KeyError) as exc:
        print(f"irrepro: {exc}", file=sys.stderr)
        return 1
    print(f"{len(paths)} files verified in {data.cache_dir()}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import data, measures

    try:
        for m in args.measures:
            measures.parse_measure(m)
        files: list[Path] = []
        for src in args.runs:
            p = Path(src)
            if p.is_dir():
                files += data.run_files(p)
            elif p.is_file():
                files.append(p)
            else:
                raise FileNotFoundError(f"run file or directory not found: {src}")
        if not files:
            raise ValueError("no run files given")
        rs = data.load_runs(files, qrels=args.qrels)
        scores = measures.evaluate(rs, args.measures, rel=args.rel)
    except (ValueError, KeyError, FileNotFoundError, data.DataUnavailable) as exc:
        print(f"irrepro eval: {exc}", file=sys.stderr)
        return 2
    fmt = f"{{:.{args.digits}f}}"
    out = sys.stdout
    for s, run in enumerate(rs.runs):
        for m in args.measures:
            sm = scores[m]
            if args.per_topic:
                for t, topic in enumerate(rs.topics):
                    out.write(f"{run}\t{m}\t{topic}\t{fmt.format(sm.scores[s, t])}\n")
                out.write(f"{run}\t{m}\tall\t{fmt.format(sm.scores[s].mean())}\n")
            else:
                out.write(f"{run}\t{m}\t{fmt.format(sm.scores[s].mean())}\n")
    return 0


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import data, report

    try:
        if not Path(args.runs_dir).is_dir():
            raise FileNotFoundError(f"not a directory of run files: {args.runs_dir}")
        path = report.run(
            args.runs_dir, args.qrels, args.out, args.measure, seed=args.seed, rel=args.rel,
            scale=args.scale, n_jobs=args.jobs, progress=not args.quiet,
        )  # fmt: skip
    except (ValueError, KeyError, FileNotFoundError, data.DataUnavailable) as exc:
        print(f"irrepro report: {exc}", file=sys.stderr)
        return 2
    print(f"report: {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="irrepro", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p_data = sub.add_parser("data", help="the book's data: status and fetch")
    data_sub = p_data.add_subparsers(dest="data_command", required=True)
    p = data_sub.add_parser("status", help="where each collection's files are found")
    p.add_argument("--brief", action="store_true", help="only 'collection verified|missing N'")
    p.set_defaults(func=_data_status)
    p = data_sub.add_parser("fetch", help="put collections into the cache, verified")
    p.add_argument("names", nargs="*", help="collection names, or 'all' (default)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_data_fetch)

    p = sub.add_parser(
        "eval",
        help="score TREC runs (trec_eval -c conventions)",
        description="Score TREC run files against qrels. Prints run<TAB>measure<TAB>value (the "
        "mean over all the qrels' topics, a missing topic scoring 0, as trec_eval -c), or with "
        "--per-topic run<TAB>measure<TAB>topic<TAB>value plus an 'all' row per run and measure.",
    )
    p.add_argument("--qrels", required=True, help="qrels file or ir_datasets id")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files or directories of run files")
    p.add_argument(
        "-m", "--measure", dest="measures", action="append", required=True,
        help="measure name, repeatable: AP, P@10, nDCG@20, Q, RBP(p=0.95), bpref, ...",
    )  # fmt: skip
    p.add_argument("--per-topic", action="store_true", help="one row per topic (and 'all')")
    p.add_argument("--rel", type=int, default=1, help="lowest relevant grade (default 1)")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")
    p.set_defaults(func=_eval)

    p = sub.add_parser(
        "report",
        help="the four papers' analyses of your runs, as one HTML report",
        description="Apply the four papers' analyses to a directory of TREC runs: paired bootstrap "
        "tests of every pair with intervals and Holm / Benjamini-Hochberg adjusted ASLs (Sakai 2006), "
        "corpus-bootstrap intervals of every run's MAP (Cormack & Lynam 2006), topic-split error rates "
        "(Sanderson & Zobel 2005) and standardized scores (Webber, Moffat & Zobel 2008). Writes "
        "OUT/index.html (self-contained) and the tables as CSV.",
    )
    p.add_argument("runs_dir", metavar="RUNS_DIR", help="directory of TREC run files (plain or .gz)")
    p.add_argument("--qrels", required=True, help="qrels file or ir_datasets id")
    p.add_argument("--out", default="irrepro-report", help="output directory (default irrepro-report)")
    p.add_argument("-m", "--measure", default="AP", help="measure of the tests, topic split and "
                   "standardization (default AP; the corpus bootstrap is always on AP)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random step (default 0)")
    p.add_argument("--rel", type=int, default=1, help="lowest relevant grade (default 1)")
    p.add_argument("--scale", choices=["paper", "quick"], default=None,
                   help="the papers' sizes (default, or IRREPRO_SCALE) or quick ones")
    p.add_argument("-j", "--jobs", type=int, default=None, help="workers (default IRREPRO_JOBS or 1; "
                   "the numbers do not depend on it)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):  # `irrepro ... | head` exits quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
