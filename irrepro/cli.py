"""The ``irrepro`` command line.

    irrepro data status               where every collection's files are found, verified or missing
    irrepro data fetch [NAME|all]     put collections into the cache (mirror or download), verified
    irrepro eval --qrels Q RUN... -m AP -m nDCG@10 [-q] [-c | --average run-topics] [-M N] [-l N]
                                      score runs like trec_eval: run<TAB>measure<TAB>value, or
                                      --format trec_eval|csv|json
    irrepro compare --qrels Q RUN... -m AP -m nDCG@10 [--baseline RUN] [--test T] [--format F]
                                      the results table of a paper: means, significance marks,
                                      adjusted p-values, intervals (text, markdown, latex, csv)
    irrepro report RUNS_DIR --qrels Q [--out DIR] [-m AP] [--seed N] [--test T] [--baseline RUN]
                                      the four papers' analyses of your runs as one HTML report

Every problem with the input (a malformed file, a missing one, a bad option, an unknown name, data
not to be had) is an :class:`irrepro.InputError`: one line on stderr naming the file, the line and
the problem, and exit status 2, for every command alike. Anything else is a bug in irrepro: its
traceback, a line asking to report it, and exit status 1. Ctrl-C prints "interrupted" and exits
with 130.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import traceback
import warnings

from .errors import ISSUES_URL, InputError

#: The averages of ``irrepro eval`` (``--average``): over all the qrels' topics (trec_eval -c)
#: or over the topics the run retrieved for (trec_eval without -c).
AVERAGES = ("all-topics", "run-topics")
#: ``--aggregate``: the prefix that makes a measure's geometric mean (trec_eval's ``gm_``,
#: Sakai's ``G_``; :func:`irrepro.measures.parse_measure` knows both); ``mean`` is the measure.
AGGREGATES = {"mean": "", "gm": "gm_", "G": "G_"}
FORMATS = ("tsv", "trec_eval", "csv", "json")


def _int_at_least(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def _checked(check, name: str):
    """An argparse ``type`` from one of irrepro's validators (the same check as the Python API's
    and the environment's): its :class:`~irrepro.InputError` becomes argparse's message, which
    names the option already."""

    def parse(text: str):
        try:
            return check(text)
        except InputError as exc:
            msg = str(exc)
            msg = msg[len(name) + 1:] if msg.startswith(name + " ") else msg
            raise argparse.ArgumentTypeError(msg) from None

    parse.__name__ = name
    return parse


def _jobs_value(text: str) -> int:
    from .parallel import check_jobs

    return check_jobs(text, "--jobs")


def _level_value(text: str) -> float:
    from .stats import check_level

    try:
        value = float(text)
    except ValueError:
        raise InputError(f"--level must be a number, a fraction in (0, 1) or a percentage in (1, 100); "
                         f"got {text!r}") from None
    return check_level(value, "--level")


def _alpha_value(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1:  # (NaN too)
        raise InputError(f"--alpha must be a number in (0, 1), got {text!r}")
    return value


_jobs = _checked(_jobs_value, "--jobs")
_level = _checked(_level_value, "--level")
_alpha = _checked(_alpha_value, "--alpha")


class _Once(argparse.Action):
    """Stores an option's value and refuses the option given twice (``--baseline a --baseline b``
    kept the last one silently): the action of every single-valued option of every command
    (:class:`_Parser` makes it the default). Options meant to repeat say ``action="append"``."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None:
            given = namespace.__dict__.setdefault("_given", {})
            if self.dest in given:
                first_string, first = given[self.dest]
                twice = f"{first_string} {first!r}, then {option_string} {values!r}"
                raise argparse.ArgumentError(self, f"given twice ({twice}): give it once")
            given[self.dest] = (option_string, values)
        setattr(namespace, self.dest, values)


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose options store with :class:`_Once` unless they say otherwise; its
    sub-commands' parsers are of this class too."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)


def _scheduler(text: str) -> str:
    from . import parallel

    try:
        return parallel.scheduler(text) or ""
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a Dask scheduler address (tcp://host:8786) or 'local', got {text!r}") from None


_SCHEDULER_HELP = ("run the tasks on a Dask cluster: its scheduler's address (tcp://host:8786) or 'local' "
                   "(a cluster of this machine's cores); default IRREPRO_SCHEDULER, else this process's "
                   "--jobs workers; the numbers do not depend on it (needs pip install 'irrepro[dask]')")


def _err(command: str, message: str) -> None:
    print(f"irrepro {command}: {message}", file=sys.stderr)


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
    paths = data.fetch(names, progress=not args.quiet)  # an unknown name, data not to be had: exit 2
    print(f"{len(paths)} files verified in {data.cache_dir()}")
    return 0


# --------------------------------------------------------------------------------------------
# irrepro eval
# --------------------------------------------------------------------------------------------


def _coverage_lines(rs, average: str) -> list[str]:
    """One line per run whose topics differ from the qrels' topics (counts and a few ids), from
    :meth:`RunSet.coverage <irrepro.data.RunSet.coverage>`."""
    from ._text import few

    fate = "scored 0 (trec_eval -c)" if average == "all-topics" else "left out of its average"
    lines = []
    for r in rs._coverage():  # (coverage()'s rows, without pandas)
        if not r["missing"] and not r["ignored"]:
            continue
        parts = [f"run {r['run']}: {r['retrieved']} of the {r['topics']} qrels topics retrieved"]
        if r["missing"]:
            parts.append(f"{len(r['missing'])} missing, {fate}: {few(r['missing'])}")
        if r["ignored"]:
            parts.append(f"{len(r['ignored'])} run topics not in the qrels, ignored: {few(r['ignored'])}")
        lines.append("; ".join(parts))
    return lines


def _measure_list(names: list[str], aggregates: list[str], rel: int) -> list[str]:
    """The measures to evaluate: each of ``names`` as it is (aggregate ``mean``) and as its
    geometric means (``gm``: trec_eval's ``gm_``; ``G``: Sakai's ``G_``), checked and named by
    :func:`irrepro.measures.parse_measure` (unknown names and a geometric mean of a count are
    refused there)."""
    from .measures import parse_measure

    out = []
    for m in names:
        parse_measure(m, rel=rel)
        for agg in aggregates:
            out.append(m if agg == "mean" else parse_measure(AGGREGATES[agg] + m, rel=rel).name)
    return list(dict.fromkeys(out))


def write_scores(rows, fmt: str, digits: int, out, *, banner: str = "", meta: dict | None = None) -> None:
    """Print the rows of :func:`irrepro.measures.outputs._rows` as ``fmt``: ``tsv``
    (run<TAB>measure<TAB>value, or run<TAB>measure<TAB>query_id<TAB>value when it holds per-topic
    rows), ``csv`` (run,query_id,measure,value) or ``json`` (``meta`` plus the rows as
    ``scores``). ``banner`` (e.g. the simulated-data warning) is the first line of the text
    formats, after "#", and the JSON's first key ``warning``. ``digits`` applies to tsv (counts
    are printed as integers); csv and json carry every digit. Names go through
    :mod:`irrepro.escape`: in csv its OWASP rule (:func:`~irrepro.escape.csv_cell`), in tsv control
    characters made visible (:func:`~irrepro.escape.plain`)."""
    from .escape import csv_cell, csv_quoting, plain

    if fmt == "json":
        doc = ({"warning": banner} if banner else {}) | (meta or {})
        doc["scores"] = [{"run": r, "query_id": q, "measure": m, "value": v} for r, q, m, v, _ in rows]
        json.dump(doc, out, indent=1, allow_nan=True)
        out.write("\n")
        return
    if banner:
        out.write(f"# {banner}\n")
    if fmt == "csv":
        import csv

        cells = [(csv_cell(r), csv_cell(q), csv_cell(m), int(v) if count and v == v else float(v))
                 for r, q, m, v, count in rows]  # fmt: skip
        w = csv.writer(out, lineterminator="\n", quoting=csv_quoting(c for row in cells for c in row[:3]))
        w.writerow(["run", "query_id", "measure", "value"])
        w.writerows(cells)
        return
    per_topic = any(q != "all" for _, q, _, _, _ in rows)
    for run, q, m, v, count in rows:
        value = str(int(v)) if count and v == v else f"{v:.{digits}f}"
        run, q = plain(run), plain(q)  # a tab or newline in a name would shift the columns
        out.write(f"{run}\t{m}\t{q}\t{value}\n" if per_topic else f"{run}\t{m}\t{value}\n")


def _simulated_banner(command: str, qrels, rs, what: str) -> str:
    """The first line of everything computed on the simulated stand-in (also said on stderr), or
    "" for real qrels."""
    if not rs.simulated:
        return ""
    banner = (f"SIMULATED DATA: the qrels {qrels!r} are irrepro's simulated stand-in, not real "
              f"judgments; these {what} describe no real system")
    _err(command, banner)
    return banner


def _eval(args: argparse.Namespace) -> int:
    from . import measures
    from ._report_inputs import load
    from .measures.outputs import _rows

    names = _measure_list(args.measures, ["mean", *(args.aggregates or [])], args.rel)
    rs = load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision).runset
    banner = _simulated_banner("eval", args.qrels, rs, "scores")
    for line in _coverage_lines(rs, args.average):
        _err("eval", line)
    scores = measures.evaluate(rs, names, rel=args.rel, depth=args.depth)
    complete = args.average == "all-topics"
    if args.format == "trec_eval":
        if banner:
            sys.stdout.write(f"# {banner}\n")
        sys.stdout.write(measures.to_trec_eval(scores, per_topic=args.per_topic, complete=complete,
                                               digits=args.digits))  # fmt: skip
        return 0
    rows = _rows(scores, per_topic=args.per_topic, complete=complete)
    meta = {"qrels": str(args.qrels), "simulated": rs.simulated, "average": args.average,
            "relevance_level": args.rel, "depth": args.depth}  # fmt: skip
    write_scores(rows, args.format, args.digits, sys.stdout, banner=banner, meta=meta)
    return 0


# --------------------------------------------------------------------------------------------
# irrepro compare
# --------------------------------------------------------------------------------------------


def _baseline_run(baseline: str | None, runs=None) -> str | None:
    """The run ``--baseline`` names: a run's name, or the path of a run file (its run tag is read
    from the file); checked against ``runs`` when given (else where the runs are read)."""
    from pathlib import Path

    if baseline is None or (runs is not None and baseline in runs):
        return baseline
    name = baseline
    if Path(baseline).expanduser().is_file():
        from .data import read_run

        name = read_run(Path(baseline).expanduser()).name
    if runs is None or name in runs:
        return name
    names = ", ".join(runs[:8]) + (", ..." if len(runs) > 8 else "")
    raise InputError(f"--baseline {baseline!r} is neither the name nor the file of a run ({names})")


def _compare(args: argparse.Namespace) -> int:
    from . import measures, significance
    from ._report_inputs import load
    from .significance._names import DEPRECATED_CORRECTIONS

    for m in args.measures:
        measures.parse_measure(m)
    rs = load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision).runset
    if len(rs.runs) < 2:
        raise InputError(f"compare needs at least 2 runs, got {len(rs.runs)}")
    baseline = _baseline_run(args.baseline, rs.runs)
    banner = _simulated_banner("compare", args.qrels, rs, "results")
    for line in _coverage_lines(rs, "all-topics"):
        _err("compare", line)
    scores = measures.evaluate(rs, args.measures, rel=args.rel)
    correction = args.correction
    if correction in DEPRECATED_CORRECTIONS:  # said here: a DeprecationWarning is hidden outside __main__
        correction = DEPRECATED_CORRECTIONS[correction]
        _err("compare", f"--correction {args.correction} is deprecated and will be removed in irrepro 0.3: "
             f"use --correction {correction}")
    table = significance.compare(
        scores, baseline=baseline, test=args.test, correction=correction, alpha=args.alpha,
        intervals=args.intervals, level=args.level, B=args.B, seed=args.seed, n_jobs=args.jobs,
        digits=args.digits,
    )  # fmt: skip
    out = table.render(args.format)
    if banner:
        out = ("% " if args.format == "latex" else "# ") + banner + "\n" + out
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def _report(args: argparse.Namespace) -> int:
    from . import report

    path = report.run(
        args.runs_dir, args.qrels, args.out, args.measure, seed=args.seed, rel=args.rel,
        scale=args.scale, n_jobs=args.jobs, progress=not args.quiet,
        allow_simulated=args.allow_simulated, precision=args.precision,
        test=args.test, baseline=_baseline_run(args.baseline),
    )  # fmt: skip
    print(f"report: {path}")
    return 0


# --------------------------------------------------------------------------------------------
# the parser
# --------------------------------------------------------------------------------------------

_SIMULATED_HELP = (
    "when --qrels names a collection of the book whose files cannot be had (no network, no "
    "IRREPRO_MIRROR, empty cache), use its simulated stand-in instead of stopping with an error; "
    "everything computed from it says SIMULATED in its first line"
)
_PRECISION_HELP = (
    "ranking precision of the scores: float32 (default: trec_eval <= 9.0.8, pytrec_eval and NIST's "
    "official scores, where scores equal to 7 digits tie and the document id decides) or float64 "
    "(trec_eval 10)"
)


def _inputs_and_measures(p: argparse.ArgumentParser, examples: str) -> None:
    """The options eval and compare share: --qrels, the run files and repeatable -m."""
    p.add_argument("--qrels", required=True, help="qrels file, ir_datasets id or collection name")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files or directories of run files")
    p.add_argument("-m", "--measure", dest="measures", action="append", required=True,
                   help=f"measure name, repeatable: {examples}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="irrepro", description=__doc__.split("\n")[0])
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
        help="score TREC runs (trec_eval conventions)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""Score TREC run files against qrels, as trec_eval does.

Averages. By default (-c, trec_eval -c) a run's mean is over all the qrels' topics, a topic the
run retrieved nothing for scoring 0: the mean NIST's leaderboards and the irrepro report use.
trec_eval WITHOUT -c averages over the topics the run retrieved for only: --average run-topics.
The two differ only for runs that miss topics; every such run gets one line on stderr (how many
topics it retrieved, which qrels topics it misses, which of its topics the qrels lack - those are
never evaluated). A run none of whose topics is in the qrels is an error.

Output (--format): tsv (default) prints run<TAB>measure<TAB>value, with -q
run<TAB>measure<TAB>topic<TAB>value and an 'all' row per run and measure; trec_eval prints, run
after run, exactly what `trec_eval -m runid -m ...` prints for the same job (its measure names,
order and number format; a measure trec_eval lacks keeps irrepro's name; with -q and the default
average a topic the run lacks gets its line at 0, as trec_eval 10 -c -q prints it - trec_eval
9.0.8 leaves it out); csv and json give the long table run, query_id, measure, value.""",
    )
    _inputs_and_measures(p, "AP, P@10, nDCG@20, Q, RBP(p=0.95), bpref, ...")
    p.add_argument("-q", "--per-topic", action="store_true",
                   help="also one row per topic (trec_eval -q)")
    avg = p.add_mutually_exclusive_group()
    avg.add_argument("-c", dest="average", action="store_const", const="all-topics",
                     help="average over all the qrels' topics, a missing topic scoring 0 "
                     "(trec_eval -c; the default)")
    avg.add_argument("--average", choices=AVERAGES,
                     help="all-topics (= -c, default) or run-topics: over the topics the run "
                     "retrieved for, as trec_eval without -c")
    p.add_argument("-M", "--depth", type=_int_at_least(1), default=None, metavar="DEPTH",
                   help="use only the first DEPTH documents of every ranked list (trec_eval -M)")
    p.add_argument("-l", "--rel", type=_int_at_least(1), default=1, metavar="LEVEL",
                   help="lowest relevant grade (trec_eval -l; default 1)")
    p.add_argument("-a", "--aggregate", dest="aggregates", action="append", choices=list(AGGREGATES),
                   help="repeatable: a geometric mean to print beside every measure's mean: gm, "
                   "trec_eval's exp(mean(log(max(x, 1e-5)))), rows named gm_MEASURE (gm_map for AP, "
                   "as trec_eval; -m gm_map is the same); G, Sakai's exp(mean(log(x + 1e-5))), rows "
                   "named G_MEASURE (the mean is always printed; -a mean says so)")
    p.add_argument("--format", choices=FORMATS, default="tsv", help="output format (default tsv)")
    p.add_argument("--digits", type=_int_at_least(0), default=4,
                   help="decimals printed by tsv and trec_eval (default 4)")
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.set_defaults(func=_eval, average="all-topics")

    from .significance import CORRECTIONS, TESTS
    from .significance import FORMATS as TABLE_FORMATS
    from .significance._names import DEPRECATED_CORRECTIONS

    p = sub.add_parser(
        "compare",
        help="the results table of a paper: runs x measures with significance tests",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""Compare runs under one or more measures, as a table for a paper.

Rows are runs, columns measures; a cell is the run's mean over all the qrels' topics (a topic a
run misses scores 0, trec_eval -c). With --baseline every other run is tested against the
baseline run, the p-values are adjusted over those comparisons (per measure), and a mean
significantly higher / lower than the baseline's is marked with an arrow, its adjusted p-value
beside it. Without --baseline all pairs are tested and each mean carries the letters of the runs
it is significantly better than (ranx's convention). --intervals adds a BCa bootstrap interval of
the difference from the baseline (or, without one, of the mean).

Tests (--test): paired-t (default), wilcoxon, sign (equal to scipy's ttest_rel, wilcoxon,
binomtest), bootstrap (Sakai's paired bootstrap test, B = 1000), permutation (the paired
randomization test, exact for up to log2(B) topics, B = 10,000), tukey (randomised Tukey HSD,
B = 10,000: family-wise by itself, no --correction), unpaired-bootstrap (Sakai's unpaired test,
B = 1000) and bootstrap-shift (the unstudentised bootstrap test of the mean difference, B = 1000). Formats: text, markdown, latex (a table
float with booktabs rules: \\usepackage{booktabs}), csv (every number).""",
    )
    _inputs_and_measures(p, "AP, P@10, nDCG@10, ...")
    p.add_argument("--baseline", default=None, metavar="RUN",
                   help="the run every other run is compared with (its name or its file)")
    p.add_argument("--test", choices=list(TESTS), default="paired-t", help="the test (default paired-t)")
    p.add_argument("--correction", choices=[*CORRECTIONS, *DEPRECATED_CORRECTIONS], default=None,
                   help="adjustment over the comparisons of a measure (statsmodels' names): holm (default), "
                   "fdr_bh (Benjamini-Hochberg; bh is its deprecated name), bonferroni or none; tukey takes none")
    p.add_argument("--alpha", type=_alpha, default=0.05,
                   help="significance level of the marks (default 0.05)")
    p.add_argument("--intervals", action="store_true", help="add BCa bootstrap intervals")
    p.add_argument("--level", type=_level, default=0.95,
                   help="confidence level of the intervals: a fraction (default 0.95) or a percentage (95)")
    p.add_argument("-B", dest="B", type=_int_at_least(1), default=None,
                   help="resamples of the bootstrap, permutation or Tukey test (default 1000, 10000, 10000)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of every random step (default 0)")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help="workers, >= 1 or -1 for all cores (default "
                   "IRREPRO_JOBS or 1; the numbers do not depend on it)")
    p.add_argument("--scheduler", type=_scheduler, default=None, metavar="ADDRESS", help=_SCHEDULER_HELP)
    p.add_argument("--format", choices=list(TABLE_FORMATS), default="text", help="output format (default text)")
    p.add_argument("--digits", type=_int_at_least(0), default=4, help="decimals shown (default 4)")
    p.add_argument("-l", "--rel", type=_int_at_least(1), default=1, metavar="LEVEL",
                   help="lowest relevant grade (default 1)")
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.set_defaults(func=_compare)

    p = sub.add_parser(
        "report",
        help="the four papers' analyses of your runs, as one HTML report",
        description="Apply the four papers' analyses to a directory of TREC runs: paired bootstrap "
        "tests of every pair with intervals and Holm / Benjamini-Hochberg adjusted ASLs (Sakai 2006), "
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
    p.add_argument("--out", default="irrepro-report", help="output directory (default irrepro-report): new, "
                   "empty, or an earlier report")
    p.add_argument("-m", "--measure", default="AP", help="measure of the tests, topic split and "
                   "standardization (default AP; the corpus bootstrap is always on AP)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of every random step (default 0)")
    p.add_argument("-l", "--rel", type=_int_at_least(1), default=1, metavar="LEVEL",
                   help="lowest relevant grade (default 1)")
    p.add_argument("--scale", choices=["paper", "quick"], default=None,
                   help="the papers' sizes (default, or IRREPRO_SCALE) or quick ones")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help="workers, >= 1 or -1 for all cores (default "
                   "IRREPRO_JOBS or 1; the numbers do not depend on it)")
    p.add_argument("--scheduler", type=_scheduler, default=None, metavar="ADDRESS", help=_SCHEDULER_HELP)
    p.add_argument("--test", choices=list(TESTS), default="bootstrap",
                   help="the test of the pairs of runs (default bootstrap, Sakai's paired bootstrap test)")
    p.add_argument("--baseline", default=None, metavar="RUN",
                   help="test only the baseline run against every other (its name), adjusting over those pairs")
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_report)
    return parser


def _explain(exc: BaseException, args: argparse.Namespace) -> str:
    """One line for a failure: the data layer's messages already name file, line and problem; an
    OSError is given its file name."""
    from . import data

    if isinstance(exc, OSError) and not isinstance(exc, data.DataUnavailable):
        name = exc.filename or ""
        text = exc.strerror or str(exc)
        return f"{name}: {text}" if name else text
    msg = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if (isinstance(exc, data.DataUnavailable) and not isinstance(exc, data.CacheError)
            and str(getattr(args, "qrels", "")) in data.COLLECTIONS):  # fmt: skip
        msg += (" (irrepro answers a request for real data with real data only; --allow-simulated "
                "uses the book's simulated stand-in, labelled as such)")
    return msg


def main(argv: list[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):  # `irrepro ... | head` exits quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a bad option (2, message printed)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command in ("report", "compare"):  # no progress-bar monitor thread to interrupt at exit
        import tqdm

        tqdm.tqdm.monitor_interval = 0
    shown = warnings.formatwarning
    warnings.formatwarning = _format_warning  # "irrepro: warning: ...", not Python's source line
    try:
        if hasattr(args, "jobs") or hasattr(args, "scale"):
            from . import parallel

            # the environment is read here (and in the book's configuration) only, and passed down:
            # report, compare: -j or IRREPRO_JOBS, checked before any work; report: --scale or IRREPRO_SCALE
            if hasattr(args, "jobs"):
                args.jobs = parallel.env_jobs() if args.jobs is None else args.jobs
            if getattr(args, "scale", "") is None:
                args.scale = parallel.scale()
        if getattr(args, "scheduler", None):  # report, compare --scheduler
            from . import parallel

            with parallel.using_scheduler(args.scheduler):
                return args.func(args)
        return args.func(args)
    except KeyboardInterrupt:
        print("\nirrepro: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if _interrupted(exc):  # Ctrl-C inside a library that wraps it (e.g. during an import)
            print("\nirrepro: interrupted", file=sys.stderr)
            return 130
        if not _users(exc):
            traceback.print_exc()
            print(f"irrepro: this is a bug in irrepro, not in your input - please report it with the command "
                  f"and the traceback above: {ISSUES_URL}", file=sys.stderr)
            return 1
        _err(args.command, _explain(exc, args))
        return 2
    finally:
        warnings.formatwarning = shown


def _users(exc: BaseException) -> bool:
    """Whether ``exc`` is the user's to fix: an :class:`~irrepro.InputError`, or an OSError on a
    file the user named (a run file without read permission, an unwritable ``--out``: it carries
    the path). Anything else is a bug in irrepro."""
    return isinstance(exc, InputError) or (isinstance(exc, OSError) and exc.filename is not None)


def _format_warning(message, category, filename, lineno, line=None) -> str:
    """A warning as the command line prints it: one line, no Python source."""
    return f"irrepro: warning: {message}\n"


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by a KeyboardInterrupt (its chain of causes and contexts)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


if __name__ == "__main__":
    sys.exit(main())
