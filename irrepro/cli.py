"""The ``irrepro`` command line.

    irrepro data status               where every collection's files are found, verified or missing
    irrepro data fetch [NAME|all]     put collections into the cache (mirror or download), verified
    irrepro eval --qrels Q RUN... -m AP -m nDCG@10 [--per-topic]
                                      score runs like trec_eval -c: run<TAB>measure<TAB>value
"""

from __future__ import annotations

import argparse
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
                files += sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
