"""The ``irrepro`` command line.

    irrepro data status               where every collection's files are found, verified or missing
    irrepro data fetch [NAME|all]     put collections into the cache (mirror or download), verified
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
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):  # `irrepro ... | head` exits quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
