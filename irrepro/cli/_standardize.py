"""``irrepro standardize`` (:mod:`irrepro.cli`): the standardization factors of a set of
standardizing runs written in the format ``trec_eval -Z`` reads, or such a file applied to runs."""

from __future__ import annotations

import argparse
import io
import sys

from ..errors import InputError


def _trec_eval_lines(path: str, calls: list[tuple[int, list[str]]]) -> list[str]:
    """The trec_eval command lines that apply the z-score file ``path`` (QRELS and RUN stand for
    the user's files): one per call of :func:`~irrepro.measures.trec_names._trec_eval_calls`, every
    word quoted for bash (:func:`irrepro.escape.shell`: pasted, ``path`` names that file)."""
    from ..escape import shell

    lines = []
    for level, options in calls:
        args = ["trec_eval", "-c", "-Z", shell(path), *([f"-l {level}"] if level != 1 else [])]
        lines.append("  " + " ".join([*args, *(f"-m {shell(o)}" for o in options), "QRELS", "RUN"]))
    how = (
        "this call"
        if len(lines) == 1
        else f"these {len(lines)} calls (one trec_eval call has one -l and one parameter set per measure)"
    )
    return [f"apply it with {how}, adding -q for per-topic z-scores:", *lines]


def _standardize(args: argparse.Namespace) -> int:
    from .. import measures, standardize
    from .._outputs import check_file, write_file
    from .._user_inputs import load
    from ..escape import plain
    from ..measures.trec_names import _trec_eval_calls
    from ._commands import _coverage_lines, _simulated_banner

    names, calls = _trec_eval_calls(args.measures, rel=args.rel)
    if args.export_zscores is not None:  # before any work: never over an input or a file of the user's
        inputs = [*args.runs, args.qrels]
        target = check_file(args.export_zscores, inputs=inputs, option="--export-zscores")
    rs = load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision).runset
    banner = _simulated_banner("standardize", args.qrels, rs, "factors")
    for line in _coverage_lines(rs, "all-topics"):
        print(f"irrepro standardize: {line}", file=sys.stderr)
    scores = measures.evaluate(rs, list(names), rel=args.rel)
    out = [f"# {banner}"] if banner else []
    if args.export_zscores is not None:
        facs = {names[m]: standardize.factors(matrix) for m, matrix in scores.items()}
        text = io.StringIO()
        n = standardize.write_zscores(text, facs)
        write_file(target, text.getvalue(), given=args.export_zscores, option="--export-zscores")
        first = next(iter(scores.values()))
        out.append(
            f"wrote {n} lines ({len(facs)} measures x {len(first.topics)} topics, mean and sd of "
            f"{len(first.systems)} runs) to {plain(args.export_zscores)}"
        )
        out += _trec_eval_lines(args.export_zscores, calls)
    else:
        read = standardize.read_zscores(args.zscores)
        cols = {}
        for m, matrix in scores.items():
            if names[m] not in read:
                raise InputError(f"{args.zscores}: no factors for {names[m]} (-m {m})")
            cols[m] = standardize.standardize(matrix, read[names[m]]).mean(axis=1)
        systems = [plain(s) for s in next(iter(scores.values())).systems]  # no raw control characters
        width = max(len("run"), *(len(s) for s in systems))
        out.append(f"{'run':<{width}}  " + "  ".join(f"{m:>10}" for m in cols))
        out += [
            f"{s:<{width}}  " + "  ".join(f"{cols[m][i]:>10.4f}" for m in cols) for i, s in enumerate(systems)
        ]
        out.append(f"standardized means Phi(z) over {len(next(iter(scores.values())).topics)} topics, "
                   f"factors from {plain(args.zscores)}")  # fmt: skip
    sys.stdout.write("\n".join(out) + "\n")
    return 0
