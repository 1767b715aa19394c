"""``irrepro report``: the four papers' analyses of a directory of runs, as one HTML report."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import _options as opt


def add_parser(sub) -> None:
    """``irrepro report``: its parser."""
    from ..significance import TESTS

    p = sub.add_parser(
        "report",
        help="the four papers' analyses of your runs, as one HTML report",
        description="Apply the four papers' analyses to a directory of TREC runs: paired bootstrap "
        "tests of every pair with intervals and Holm / Benjamini-Hochberg adjusted ASLs (Sakai 2006; B, "
        "the scale's 1000 or 200, raised to 20 m / alpha for the m pairs tested, so that the corrections' "
        "smallest threshold alpha / m is resolved: printed on stderr and on the page; --baseline tests "
        "fewer pairs), "
        "corpus-bootstrap intervals of every run's MAP (Cormack & Lynam 2006), topic-split error rates "
        "(Sanderson & Zobel 2005) and standardized scores (Webber, Moffat & Zobel 2008). Every mean is "
        "over all the qrels' topics, a missing topic scoring 0 (trec_eval -c). Writes OUT/index.html "
        "(self-contained) and the tables as CSV. OUT must be new, empty or an earlier report: irrepro replaces "
        "or removes only the files its manifest (OUT/.irrepro-report: names and sha256) proves it wrote, "
        "leaves anything else in place and names it in a warning, and refuses - before any analysis - a "
        "directory it did not write, a symbolic link, an input, or a name too long.",
    )
    p.add_argument("runs_dir", metavar="RUNS_DIR", help="directory of TREC run files (plain or .gz)")
    p.add_argument("--qrels", required=True, help="qrels file, ir_datasets id or collection name")
    p.add_argument(
        "--out",
        default="irrepro-report",
        help="output directory (default irrepro-report): new, empty, or an earlier report",
    )
    p.add_argument(
        "-m",
        "--measure",
        default="AP",
        help="measure of the tests, topic split and "
        "standardization (default AP; the corpus bootstrap is always on AP)",
    )
    opt.seed_option(p)
    opt.rel_option(p)
    p.add_argument("--scale", type=opt.scale, metavar="SCALE", help=f"the analyses' sizes: {opt.SCALE_WORDS}")
    opt.parallel_options(p, default="-1, all cores")
    p.add_argument(
        "--test",
        choices=list(TESTS),
        default="bootstrap",
        help="the test of the pairs of runs (default bootstrap, Sakai's paired bootstrap test)",
    )
    p.add_argument(
        "--baseline",
        metavar="RUN",
        help="test only the baseline run against every other (its name), adjusting over those pairs",
    )
    opt.data_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    from .. import report
    from ..data import run_files
    from ..escape import plain

    path = report.run(
        args.runs_dir, args.qrels, args.out, args.measure, seed=args.seed, rel=args.rel,
        scale=args.scale, n_jobs=args.jobs, progress=not args.quiet,
        allow_simulated=args.allow_simulated, precision=args.precision,
        test=args.test, baseline=opt.baseline_run(args.baseline),
    )  # fmt: skip
    print(f"report: {plain(Path(args.out) / path.name)}")  # as named (trec_eval's habit: no resolving)
    # the pairwise tests' B when raised for the corrections (the page and its methods paragraph say it too)
    S = len(run_files(args.runs_dir)) if Path(args.runs_dir).is_dir() else 0
    _, raised = report._pairs_resamples(S, args.baseline, args.test, report.settings(args.scale).B_tests)
    if raised:
        opt.err("report", raised)
    return 0
