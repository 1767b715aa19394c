"""Compare two builds' recorded results (``_build/results``, written by the book's pages through
:mod:`irrepro.book`): every number the book shows, file by file, exactly, apart from what
legitimately changes between two builds of the same code (the report page's temporary qrels path,
its time stamp and its timings).

Used by ``tests/test_results_unchanged.py`` and on the command line::

    python tests/_results_diff.py OLD/_build/results NEW/_build/results [--rename OLD=NEW ...]

``--rename`` maps a label that a redesign renamed (e.g. a test's name inside a row's quantity), so
that the comparison still matches the rows and checks their numbers. Exit status 1 and one line per
difference when the results differ.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path

#: What changes between two builds of the same code in the text files (HTML, CSV) of the example
#: report: the temporary directory of its qrels, the time it was written and how long it took.
VOLATILE = (
    re.compile(r"/tmp/tmp[\w-]+/"),
    re.compile(r"Written by irrepro on [0-9-]+ [0-9:]+ UTC"),
    re.compile(r"Computed in:[^<]*"),
)
#: JSON keys whose values are timings, never results.
#: (and the machine a chapter ran on, which its headline records: irrepro.book.headline)
TIMING_KEYS = frozenset({"seconds", "elapsed", "timings", "timing", "written", "workers", "cores"})
#: The report's ownership manifest (irrepro/report/_manifest.py) is JSON; its checksums follow the
#: files it lists (compared themselves, with their volatile parts masked).
MANIFEST = ".irrepro-report"


def _strip(text: str) -> str:
    for pattern in VOLATILE:
        text = pattern.sub("<volatile>", text)
    return text


def _rename(value: str, renames: Mapping[str, str]) -> str:
    """``value`` with each label ``old`` of ``renames`` (whole: not inside a longer word or
    hyphenated name; ending in ``$``: only at the end of the value) replaced by its new label."""
    for old, new in renames.items():
        end = "$" if old.endswith("$") else r"(?![\w-])"
        value = re.sub(rf"(?<![\w-]){re.escape(old.removesuffix('$'))}{end}", new, value)
    return value


def _normalise(obj, renames: Mapping[str, str]):
    if isinstance(obj, dict):
        return {_rename(k, renames): _normalise(v, renames) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [_normalise(v, renames) for v in obj]
    if isinstance(obj, str):
        return _rename(obj, renames)
    return obj


def _drop_checksums(obj):
    if isinstance(obj, dict):
        return {k: _drop_checksums(v) for k, v in obj.items() if k != "sha256"}
    if isinstance(obj, list):
        return [_drop_checksums(v) for v in obj]
    return obj


def _first_difference(a, b, where: str = "") -> str:
    """Where two normalised JSON values first differ, as a readable path."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{where}/{k}: only in {'new' if k not in a else 'old'}"
            if a[k] != b[k]:
                return _first_difference(a[k], b[k], f"{where}/{k}")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{where}[{i}]")
    return f"{where}: {a!r} vs {b!r}"


def compare(old: Path | str, new: Path | str, renames: Mapping[str, str] | None = None) -> list[str]:
    """The differences between two results directories, one line each (empty: the same results).

    JSON files are compared as parsed values with the :data:`TIMING_KEYS` left out and ``renames``
    applied to the old side's strings; every other file byte for byte after :data:`VOLATILE` is
    masked. A file only on one side is a difference.
    """
    old, new = Path(old), Path(new)
    renames = dict(renames or {})
    a = {p.relative_to(old) for p in old.rglob("*") if p.is_file()}
    b = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    out = [f"{f}: only in old" for f in sorted(a - b)] + [f"{f}: only in new" for f in sorted(b - a)]
    for f in sorted(a & b):
        x, y = (old / f).read_bytes(), (new / f).read_bytes()
        if x == y:
            continue
        if f.suffix == ".json" or f.name == MANIFEST:
            try:
                jx, jy = _normalise(json.loads(x), renames), _normalise(json.loads(y), {})
            except json.JSONDecodeError as e:  # e.g. a manifest of the format before 0.2
                out.append(f"{f}: not JSON on both sides ({e})")
                continue
            if f.name == MANIFEST:
                jx, jy = _drop_checksums(jx), _drop_checksums(jy)
            if jx != jy:
                out.append(f"{f}: {_first_difference(jx, jy)}")
        elif _rename(_strip(x.decode()), renames) != _strip(y.decode()):
            out.append(f"{f}: differs")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.add_argument("--rename", action="append", default=[], metavar="OLD=NEW", help="a renamed label")
    args = p.parse_args(argv)
    renames = dict(r.split("=", 1) for r in args.rename)
    for d in (args.old, args.new):
        if not d.is_dir():
            p.error(f"{d}: no such directory")
    diffs = compare(args.old, args.new, renames)
    n = sum(1 for _ in args.old.rglob("*.json"))
    for line in diffs:
        print(line)
    print(f"{n} JSON files in old; {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
