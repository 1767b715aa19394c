"""``irrepro standardize`` (:mod:`irrepro.cli`): the standardization factors of a set of
standardizing runs written in the format ``trec_eval -Z`` reads, or such a file applied to runs."""

from __future__ import annotations

import argparse
import io
import sys

from ..errors import InputError
from . import _options as opt


def _standardize(args: argparse.Namespace) -> int:
    from .. import measures, standardize
    from .._outputs import check_file, write_file
    from ..escape import plain, shell
    from ..measures.trec_names import _trec_eval_calls

    names, calls = _trec_eval_calls(args.measures, rel=args.rel)
    if args.export_zscores is not None:  # before any work: never over an input or a file of the user's
        inputs = [*args.runs, args.qrels]
        check_file(args.export_zscores, inputs=inputs, option="--export-zscores")
    rs = opt.runset(args, "standardize")
    banner = opt.notes("standardize", args.qrels, rs, "factors")
    scores = measures.evaluate(rs, list(names), rel=args.rel)
    out = [f"# {banner}"] if banner else []
    if args.export_zscores is not None:
        facs = {names[m]: standardize.factors(matrix) for m, matrix in scores.items()}
        text = io.StringIO()
        n = standardize.write_zscores(text, facs)
        write_file(args.export_zscores, text.getvalue(), option="--export-zscores")
        first = next(iter(scores.values()))
        out.append(
            f"wrote {n} lines ({len(facs)} measures x {len(first.topics)} topics, mean and sd of "
            f"{len(first.systems)} runs) to {plain(args.export_zscores)}"
        )
        lines, z = [], shell(args.export_zscores)
        for level, options in calls:  # the trec_eval calls that apply the file to QRELS and RUN
            head = ["trec_eval", "-c", "-Z", z, *([f"-l {level}"] if level != 1 else [])]
            lines.append("  " + " ".join([*head, *(f"-m {shell(o)}" for o in options), "QRELS", "RUN"]))
        how = (
            "this call"
            if len(lines) == 1
            else f"these {len(lines)} calls (one trec_eval call has one -l and one parameter set per measure)"
        )
        out += [f"apply it with {how}, adding -q for per-topic z-scores:", *lines]
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


def add_parser(sub) -> None:
    """``irrepro standardize``: standardization factors for ``trec_eval -Z``, or applied."""
    p = sub.add_parser(
        "standardize",
        help="standardization factors of runs for trec_eval -Z, or such factors applied",
        description="Webber, Moffat & Zobel's (2008) standardization: with --export-zscores, write the "
        "per-topic mean and sd of the RUNs' scores (the standardizing systems) in the format "
        "trec_eval -Z reads (qid measure mean sd, under trec_eval's names: map, P_10, "
        "utility_2,-0.5,-1,0, G_1=3,2=9, ...), and print the trec_eval command lines that apply it "
        "(trec_eval -c -Z FILE with the -l and -m options that compute each measure: AP(rel=2) is "
        "-l 2 -m map; one line per relevance level); with --zscores, read such a file and print the "
        "RUNs' standardized means (normal CDF of the z-scores). A missing topic scores 0. A topic on "
        "which every RUN scores the same has sd exactly 0: trec_eval -Z then gives z = 0 to a run "
        "scoring that value and -1000000 (its missing value) to a run scoring otherwise; irrepro's "
        "--zscores gives both z = 0 (standardized score 0.5: no spread, no scale to measure a "
        "difference in). trec_eval 10 ranks by float64 scores: with --precision float64 the "
        "factors are of the values it computes.",
    )
    opt.inputs_and_measures(p, "AP, nDCG@10, P@10, AP(rel=2) (per-topic measures trec_eval has; not a "
                            "geometric mean over topics, gm_map or G_AP: standardize AP)")  # fmt: skip
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--export-zscores", metavar="FILE",
                     help="write the factors to FILE (new, or written by irrepro before: never an input or a "
                     "file of yours)")  # fmt: skip
    how.add_argument("--zscores", metavar="FILE", help="apply the factors in FILE to the runs")
    opt.rel_option(p)
    opt.data_options(p)
    p.set_defaults(func=_standardize)
