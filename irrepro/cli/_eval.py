"""``irrepro eval``: score TREC runs as trec_eval does, and how it writes its scores (:func:`write_scores`)."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from . import _options as opt

#: The averages of ``irrepro eval`` (``--average``): over all the qrels' topics (trec_eval -c)
#: or over the topics the run retrieved for (trec_eval without -c).
AVERAGES = ("all-topics", "run-topics")
#: ``--aggregate``: the prefix that makes a measure's geometric mean (trec_eval's ``gm_``,
#: Sakai's ``G_``; ``irrepro.measures.parse_measure`` knows both); ``mean`` is the measure.
AGGREGATES = {"mean": "", "gm": "gm_", "G": "G_"}
FORMATS = ("tsv", "trec_eval", "csv", "json")


def add_parser(sub) -> None:
    """``irrepro eval``: its parser."""
    p = sub.add_parser(
        "eval",
        help="score TREC runs (trec_eval conventions)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""Score TREC run files against qrels, as trec_eval does.

Averages. By default (-c, trec_eval -c) a run's mean is over all the qrels' topics, a topic the
run retrieved nothing for scoring 0 (the empty list's value: see below for weighted utility): the
mean NIST's leaderboards and the irrepro report use.
trec_eval WITHOUT -c averages over the topics the run retrieved for only: --average run-topics.
The two differ only for runs that miss topics; every such run gets one line on stderr (how many
topics it retrieved, which qrels topics it misses, which of its topics the qrels lack - those are
never evaluated). A run none of whose topics is in the qrels is an error.

Output (--format): tsv (default) prints run<TAB>measure<TAB>value, with -q
run<TAB>measure<TAB>topic<TAB>value and an 'all' row per run and measure; trec_eval prints, run
after run, exactly what `trec_eval -m runid -m ...` prints for the same job (its measure names,
parameters included - utility_2,-0.5,-1,0, G_1=3,2=9, set_F_0.5 -, order and number format; a
measure trec_eval lacks, or has only at another -l, keeps irrepro's name; with -q and the default
average a topic the run lacks gets its line, as trec_eval 10 -c -q prints it - trec_eval 9.0.8
leaves it out); csv and json give the long table run, query_id, measure, value.

A topic the run lacks is scored on the empty list (0, but p3 R for weighted utility with
rel_missed p3). trec_eval -c agrees but on two measures: weighted utility, where trec_eval 10
gives that + p2 (it scores a missing topic on a stand-in list of one unjudged document and zeroes
only measures named exactly utility) and 9.0.8 gives 0, and rbp_resid with its own p (trec_eval
10: + 1). irrepro keeps the empty list, what a run that retrieved nothing scores.""",
    )
    opt.inputs_and_measures(p, "AP, P@10, nDCG@20, Q, RBP(p=0.95), Rndcg, ... (all of trec_eval -m all_trec)")
    p.add_argument("-q", "--per-topic", action="store_true", help="also one row per topic (trec_eval -q)")
    avg = p.add_mutually_exclusive_group()
    avg.add_argument(
        "-c",
        dest="average",
        action="store_const",
        const="all-topics",
        help="average over all the qrels' topics, a missing topic scoring 0 (trec_eval -c; the default)",
    )
    avg.add_argument(
        "--average",
        choices=AVERAGES,
        help="all-topics (= -c, default) or run-topics: over the topics the run "
        "retrieved for, as trec_eval without -c",
    )
    p.add_argument(
        "-M",
        "--depth",
        type=opt.int_at_least(1),
        metavar="DEPTH",
        help="use only the first DEPTH documents of every ranked list (trec_eval -M)",
    )
    opt.rel_option(p)
    p.add_argument(
        "-a",
        "--aggregate",
        dest="aggregates",
        action="append",
        choices=list(AGGREGATES),
        help="repeatable: a geometric mean to print beside every measure's mean: gm, "
        "trec_eval's exp(mean(log(max(x, 1e-5)))), rows named gm_MEASURE (gm_map for AP, "
        "as trec_eval; -m gm_map is the same); G, Sakai's exp(mean(log(x + 1e-5))), rows "
        "named G_MEASURE, refused for a measure that can be negative (utility: use gm); not on a "
        "geometric mean (-m gm_map: give -m AP) (the mean is always printed; -a mean says so)",
    )
    p.add_argument("--format", choices=FORMATS, default="tsv", help="output format (default tsv)")
    p.add_argument(
        "--digits",
        type=opt.digits,
        default=4,
        help="decimals printed by tsv and trec_eval, 0 to 17 (default 4)",
    )
    opt.data_options(p)
    p.set_defaults(func=_eval, average="all-topics")


def _measure_list(names: list[str], aggregates: list[str], rel: int) -> list[str]:
    """The measures to evaluate: each of ``names`` and its geometric means (``gm``: ``gm_``; ``G``: Sakai's ``G_``)."""
    from .._measure_names import per_topic
    from ..measures import parse_measure

    out = []
    for m in names:
        pm = parse_measure(m, rel=rel)
        for agg in aggregates:
            if agg == "mean":
                out.append(m)
                continue
            if pm.agg in ("gm", "G"):
                whose = "trec_eval's" if pm.agg == "gm" else "Sakai's"
                raise InputError(
                    f"-m {m} -a {agg}: {pm.name} is already a geometric mean over topics ({whose}); -a {agg} "
                    f"adds one to a per-topic measure: -m {per_topic(pm).name} -a {agg}"
                )
            try:
                out.append(parse_measure(AGGREGATES[agg] + pm.name, rel=rel).name)
            except InputError as e:
                raise InputError(f"-m {m} -a {agg}: {e}") from None
    return list(dict.fromkeys(out))


def write_scores(rows, fmt: str, digits: int, out, *, banner: str = "", meta: dict | None = None) -> None:
    """Print the rows of :func:`irrepro.measures.evaluation._rows` as tsv, csv or json (strict: an undefined
    value null with its ``reason``), ``banner`` first, every name escaped (:mod:`irrepro.escape`)."""
    from .._text import UNDEFINED, json_record, json_text
    from ..escape import csv_cell, csv_quoting, plain

    if fmt == "json":
        # a summary is undefined only over no topic: parse_measure refuses Sakai's G_ of a measure
        # that can be negative, and gains and weights whose sums could overflow
        def why(row: dict) -> str:
            return "no topic to average over" if row["query_id"] == "all" else UNDEFINED

        doc = ({"warning": banner} if banner else {}) | (meta or {})
        doc["scores"] = [json_record({"run": r, "query_id": q, "measure": m, "value": v}, why)
                         for r, q, m, v, _ in rows]  # fmt: skip
        out.write(json_text(doc) + "\n")
        return
    if banner:
        out.write(f"# {banner}\n")
    if fmt == "csv":
        import csv

        cells = [(csv_cell(r), csv_cell(q), csv_cell(m), int(v) if count and v == v else float(v))
                 for r, q, m, v, count in rows]  # fmt: skip
        quoting = csv_quoting(c for row in cells for c in row[:3])
        w = csv.writer(out, lineterminator="\n", quoting=quoting)  # type: ignore[arg-type]  # a csv.QUOTE_* int
        w.writerow(["run", "query_id", "measure", "value"])
        w.writerows(cells)
        return
    per_topic = any(q != "all" for _, q, _, _, _ in rows)
    for run, q, m, v, count in rows:
        value = str(int(v)) if count and v == v else f"{v:.{digits}f}"
        run, q = plain(run), plain(q)  # a tab or newline in a name would shift the columns
        out.write(f"{run}\t{m}\t{q}\t{value}\n" if per_topic else f"{run}\t{m}\t{value}\n")


def _eval(args: argparse.Namespace) -> int:
    from .. import measures
    from ..measures.evaluation import _rows, _trec_eval_text

    names = _measure_list(args.measures, ["mean", *(args.aggregates or [])], args.rel)
    rs = opt.runset(args, "eval")
    banner = opt.notes("eval", args.qrels, rs, "scores", args.average)
    scores = measures.evaluate(rs, names, rel=args.rel, depth=args.depth)
    complete = args.average == "all-topics"
    if args.format == "trec_eval":
        if banner:
            sys.stdout.write(f"# {banner}\n")
        for piece in _trec_eval_text(scores, per_topic=args.per_topic, complete=complete, digits=args.digits):
            sys.stdout.write(piece)  # (a piece at a time: a million topics' text is never all held)
        return 0
    rows = list(_rows(scores, per_topic=args.per_topic, complete=complete))
    meta = {"qrels": str(args.qrels), "simulated": rs.simulated, "average": args.average,
            "relevance_level": args.rel, "depth": args.depth}  # fmt: skip
    write_scores(rows, args.format, args.digits, sys.stdout, banner=banner, meta=meta)
    return 0
