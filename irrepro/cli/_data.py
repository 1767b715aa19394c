"""``irrepro data status`` and ``irrepro data fetch``: where the book's collections are, and putting them into the cache."""

from __future__ import annotations

import argparse


def add_parser(sub) -> None:
    """``irrepro data``: its parsers."""
    p_data = sub.add_parser("data", help="the book's data: status and fetch")
    data_sub = p_data.add_subparsers(dest="data_command", required=True)
    p = data_sub.add_parser("status", help="where each collection's files are found")
    p.add_argument("--brief", action="store_true", help="only 'collection verified|missing N'")
    p.set_defaults(func=_data_status)
    p = data_sub.add_parser("fetch", help="put collections into the cache, verified")
    p.add_argument("names", nargs="*", help="collection names, or 'all' (default)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_data_fetch)


def _data_status(args: argparse.Namespace) -> int:
    from .. import data
    from ..escape import plain

    table = data.status()
    if args.brief:  # one line per collection: what a rebuild depends on
        for name, state in zip(table["collection"], table["status"]):
            print(name, state)
        return 0
    print(f"cache:  {plain(data.cache_dir())}")
    print(f"mirror: {plain(data.mirror_dir() or '(IRREPRO_MIRROR not set)')}")
    print(table.to_string(index=False))
    return 0 if (table["status"] == "verified").all() else 1


def _data_fetch(args: argparse.Namespace) -> int:
    from .. import data
    from ..escape import plain

    names = "all" if args.names in ([], ["all"]) else args.names
    paths = data.fetch(names, progress=not args.quiet)  # an unknown name, data not to be had: exit 2
    print(f"{len(paths)} files verified in {plain(data.cache_dir())}")
    return 0
