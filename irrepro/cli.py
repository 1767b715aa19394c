"""The ``irrepro`` command line.

    irrepro data status               where every collection's files are found, verified or missing
    irrepro data fetch [NAME|all]     put collections into the cache (mirror or download), verified
    irrepro eval --qrels Q RUN... -m AP -m nDCG@10 [-q] [-c | --average run-topics] [-M N] [-l N]
                                      score runs like trec_eval: run<TAB>measure<TAB>value, or
                                      --format trec_eval|csv|json
    irrepro report RUNS_DIR --qrels Q [--out DIR] [-m AP] [--seed N]
                                      the four papers' analyses of your runs as one HTML report

Every problem with the input (a malformed file, a missing one, a bad option) is one line on stderr
naming the file, the line and the problem, and exit status 2; Ctrl-C prints "interrupted" and
exits with 130.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

#: The averages of ``irrepro eval`` (``--average``): over all the qrels' topics (trec_eval -c)
#: or over the topics the run retrieved for (trec_eval without -c).
AVERAGES = ("all-topics", "run-topics")
#: ``--aggregate``: the name given to its rows, and :func:`irrepro.measures.aggregate`'s name.
AGGREGATES = {"mean": ("{m}", "mean"), "gm": ("gm_{m}", "G_trec"), "G": ("G_{m}", "G")}
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


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer (-1: all cores), got {text!r}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"must be a positive integer or -1 (all cores), got {value}")
    return value


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
    try:
        paths = data.fetch(names, progress=not args.quiet)
    except (data.DataUnavailable, KeyError) as exc:
        print(f"irrepro: {exc}", file=sys.stderr)
        return 1
    print(f"{len(paths)} files verified in {data.cache_dir()}")
    return 0


# --------------------------------------------------------------------------------------------
# irrepro eval
# --------------------------------------------------------------------------------------------


def _coverage_lines(cov, average: str) -> list[str]:
    """One line per run whose topics differ from the qrels' topics (counts and a few ids)."""
    fate = "scored 0 (trec_eval -c)" if average == "all-topics" else "left out of its average"
    lines = []
    for run, r in cov.iterrows():
        if not r["missing"] and not r["ignored"]:
            continue
        parts = [f"run {run}: {r['retrieved']} of the {r['topics']} qrels topics retrieved"]
        if r["missing"]:
            parts.append(f"{r['missing']} missing, {fate}: {r['missing ids']}")
        if r["ignored"]:
            parts.append(f"{r['ignored']} run topics not in the qrels, ignored: {r['ignored ids']}")
        lines.append("; ".join(parts))
    return lines


def score_frame(rs, scores: dict, *, per_topic: bool, average: str, aggregates=("mean",)):
    """The long table ``irrepro eval`` prints: one row per run, query_id (a topic, or ``"all"``
    for an aggregate over topics), measure and value, in trec_eval's order (per-topic rows of a
    run first, then its ``all`` rows). ``average="all-topics"`` aggregates over every qrels topic,
    a missing one scoring 0 (trec_eval -c), and lists all of them per topic; ``"run-topics"`` over,
    and lists, only the topics the run retrieved for (trec_eval without -c)."""
    import numpy as np
    import pandas as pd

    from . import measures

    if average not in AVERAGES:
        raise ValueError(f"average must be one of {AVERAGES}, not {average!r}")
    names = list(scores)
    present = np.asarray(rs.lengths) > 0 if average == "run-topics" else np.ones(np.shape(rs.lengths), bool)
    frames = []
    for s, run in enumerate(rs.runs):
        keep = np.flatnonzero(present[s])
        topics = [rs.topics[t] for t in keep]
        if per_topic:
            vals = np.stack([scores[m].scores[s, keep] for m in names], axis=1)  # (topics, measures)
            frames.append(pd.DataFrame({
                "run": run, "query_id": np.repeat(topics, len(names)),
                "measure": np.tile(names, len(topics)), "value": vals.ravel(),
            }))  # fmt: skip
        rows = []
        for m in names:
            for agg in aggregates:
                label, how = AGGREGATES[agg]
                value = measures.aggregate(scores[m].scores[s, keep], how) if len(keep) else np.nan
                rows.append((run, "all", label.format(m=m), float(value)))
        frames.append(pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"]))
    return pd.concat(frames, ignore_index=True)


def write_scores(frame, fmt: str, digits: int, out, *, banner: str = "", meta: dict | None = None) -> None:
    """Print the long table of :func:`score_frame` as ``fmt``: ``tsv`` (run<TAB>measure<TAB>value,
    or run<TAB>measure<TAB>query_id<TAB>value when it holds per-topic rows), ``trec_eval`` (its three
    columns, measure<TAB>query_id<TAB>value, each run's block opened by trec_eval's ``runid`` line),
    ``csv`` (run,query_id,measure,value) or ``json`` (``meta`` plus the rows as ``scores``).
    ``banner`` (e.g. the simulated-data warning) is the first line of the text formats, after "#",
    and the JSON's first key ``warning``. ``digits`` applies to tsv and trec_eval; csv and json
    carry every digit."""
    if fmt == "json":
        doc = ({"warning": banner} if banner else {}) | (meta or {})
        doc["scores"] = frame.to_dict(orient="records")
        json.dump(doc, out, indent=1, allow_nan=True)
        out.write("\n")
        return
    if banner:
        out.write(f"# {banner}\n")
    if fmt == "csv":
        frame.to_csv(out, index=False)
        return
    val = [f"{v:.{digits}f}" for v in frame["value"]]
    per_topic = bool((frame["query_id"] != "all").any())
    if fmt == "tsv":
        for (run, q, m), v in zip(frame[["run", "query_id", "measure"]].itertuples(index=False), val):
            out.write(f"{run}\t{m}\t{q}\t{v}\n" if per_topic else f"{run}\t{m}\t{v}\n")
        return
    last = None
    for (run, q, m), v in zip(frame[["run", "query_id", "measure"]].itertuples(index=False), val):
        if run != last:
            out.write(f"{'runid':<22}\tall\t{run}\n")
            last = run
        out.write(f"{m:<22}\t{q}\t{v}\n")


def _eval(args: argparse.Namespace) -> int:
    from . import measures, report

    for m in args.measures:
        measures.parse_measure(m)
    inp = report.load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision)
    rs = inp.runset
    banner = ""
    if inp.simulated:
        banner = (f"SIMULATED DATA: the qrels {args.qrels!r} are irrepro's simulated stand-in, not real "
                  "judgments; these scores describe no real system")
        _err("eval", banner)
    for line in _coverage_lines(report.coverage(rs), args.average):
        _err("eval", line)
    if args.depth is not None:
        rs = rs.truncate(args.depth)
    scores = measures.evaluate(rs, args.measures, rel=args.rel)
    frame = score_frame(rs, scores, per_topic=args.per_topic, average=args.average,
                        aggregates=args.aggregates or ["mean"])  # fmt: skip
    meta = {"qrels": str(args.qrels), "simulated": inp.simulated, "average": args.average,
            "relevance_level": args.rel, "depth": args.depth}  # fmt: skip
    write_scores(frame, args.format, args.digits, sys.stdout, banner=banner, meta=meta)
    return 0


def _report(args: argparse.Namespace) -> int:
    from . import report

    path = report.run(
        args.runs_dir, args.qrels, args.out, args.measure, seed=args.seed, rel=args.rel,
        scale=args.scale, n_jobs=args.jobs, progress=not args.quiet,
        allow_simulated=args.allow_simulated, precision=args.precision,
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
run<TAB>measure<TAB>topic<TAB>value and an 'all' row per run and measure; trec_eval prints its
three columns (measure<TAB>topic-or-all<TAB>value), each run opened by a 'runid' line; csv and json
give the long table run, query_id, measure, value.""",
    )
    p.add_argument("--qrels", required=True, help="qrels file, ir_datasets id or collection name")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files or directories of run files")
    p.add_argument(
        "-m", "--measure", dest="measures", action="append", required=True,
        help="measure name, repeatable: AP, P@10, nDCG@20, Q, RBP(p=0.95), bpref, ...",
    )  # fmt: skip
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
                   help="repeatable: mean (default); gm, trec_eval's geometric mean "
                   "exp(mean(log(max(x, 1e-5)))), rows named gm_MEASURE; G, Sakai's "
                   "exp(mean(log(x + 1e-5))), rows named G_MEASURE")
    p.add_argument("--format", choices=FORMATS, default="tsv", help="output format (default tsv)")
    p.add_argument("--digits", type=_int_at_least(0), default=4,
                   help="decimals printed by tsv and trec_eval (default 4)")
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.set_defaults(func=_eval, average="all-topics")

    p = sub.add_parser(
        "report",
        help="the four papers' analyses of your runs, as one HTML report",
        description="Apply the four papers' analyses to a directory of TREC runs: paired bootstrap "
        "tests of every pair with intervals and Holm / Benjamini-Hochberg adjusted ASLs (Sakai 2006), "
        "corpus-bootstrap intervals of every run's MAP (Cormack & Lynam 2006), topic-split error rates "
        "(Sanderson & Zobel 2005) and standardized scores (Webber, Moffat & Zobel 2008). Every mean is "
        "over all the qrels' topics, a missing topic scoring 0 (trec_eval -c). Writes OUT/index.html "
        "(self-contained) and the tables as CSV; OUT must be new, empty or an earlier report, and is "
        "replaced as a whole.",
    )
    p.add_argument("runs_dir", metavar="RUNS_DIR", help="directory of TREC run files (plain or .gz)")
    p.add_argument("--qrels", required=True, help="qrels file, ir_datasets id or collection name")
    p.add_argument("--out", default="irrepro-report", help="output directory (default irrepro-report)")
    p.add_argument("-m", "--measure", default="AP", help="measure of the tests, topic split and "
                   "standardization (default AP; the corpus bootstrap is always on AP)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of every random step (default 0)")
    p.add_argument("-l", "--rel", type=_int_at_least(1), default=1, metavar="LEVEL",
                   help="lowest relevant grade (default 1)")
    p.add_argument("--scale", choices=["paper", "quick"], default=None,
                   help="the papers' sizes (default, or IRREPRO_SCALE) or quick ones")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help="workers (default IRREPRO_JOBS or 1; "
                   "the numbers do not depend on it)")
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
    if isinstance(exc, data.DataUnavailable) and str(getattr(args, "qrels", "")) in data.COLLECTIONS:
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
    from . import data

    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\nirrepro: interrupted", file=sys.stderr)
        return 130
    except (data.DataError, data.DataUnavailable, ValueError, KeyError, OSError) as exc:
        _err(args.command, _explain(exc, args))
        return 2


if __name__ == "__main__":
    sys.exit(main())
