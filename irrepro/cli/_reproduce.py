"""``irrepro reproduce`` (:mod:`irrepro.cli`): how far a reproduction of an experiment got
(Breuer et al. 2020, :mod:`irrepro.reproduce`) - its parser and its command."""

from __future__ import annotations

import argparse
import sys

from . import _options as opt

#: The output formats of ``irrepro reproduce``.
FORMATS = ("text", "csv", "json", "markdown", "latex")

_DESCRIPTION = """\
How far a reproduction of an experiment got, after Breuer et al. (SIGIR 2020): an original
baseline and advanced run and their reproductions, compared at four levels, every number with a
topic-bootstrap BCa interval (the same --resamples of the topics for all). Ranking level
(KTU, RBO of the ranked lists, mean over topics) and score level (RMSE per measure), the effect
ratio ER and Delta RI per measure, and the t-test's p-value between original and reproduced
per-topic scores. With --repro-qrels the reproduction ran on other topics (replicability): only
ER, Delta RI and the unpaired t-test apply, the two topic sets resampled independently. The four
arguments are run files, or four directories whose run files are matched by name (one
experiment per name, all computed at once).

A topic a run misses scores 0 (trec_eval -c) in RMSE, ER, Delta RI and the p-values, which are
over all the qrels' topics; KTU and RBO compare two rankings, so they are means over the topics
both runs ranked (KTU: 2 documents or more), a topic either run misses left out. Every run that
misses topics gets one line on stderr, as in eval and compare; the note under the table says it.

--resamples: at least 100, and at least one resample beyond each end of a --level interval,
resamples x (1 - level) / 2 >= 1 (1000 serve up to 99.8%); fewer are refused before any work."""


def add_parser(sub) -> None:
    """``irrepro reproduce``: the parser, registered by :func:`irrepro.cli.build_parser`."""
    p = sub.add_parser(
        "reproduce",
        help="how far a reproduction got: KTU, RBO, RMSE, ER, Delta RI, p-values, with intervals",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for name in ("ORIG_BASELINE", "ORIG_ADVANCED", "REPRO_BASELINE", "REPRO_ADVANCED"):
        p.add_argument(
            name.lower(), metavar=name, help=f"{name.lower().replace('_', ' ')} run file or directory"
        )
    p.add_argument("--qrels", required=True, help="qrels of the original (and of the reproduction)")
    p.add_argument("--repro-qrels", metavar="QRELS",
                   help="qrels of the reproduction's other topics: replicability (unpaired)")  # fmt: skip
    p.add_argument("-m", "--measure", dest="measures", action="append",
                   help="measure, repeatable (default AP, nDCG@10, P@10)")  # fmt: skip
    p.add_argument("--resamples", type=opt.int_at_least(1), default=1000,
                   help="bootstrap resamples of the topics: at least 100, and resamples x (1 - level) / 2 >= 1 "
                        "(default 1000)")  # fmt: skip
    p.add_argument("--level", type=opt.level, default=0.95,
                   help="confidence level: a fraction (default 0.95) or a percentage (95)")  # fmt: skip
    opt.seed_option(p, "the resamples")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    p.add_argument("--digits", type=opt.digits, default=4, help="decimals shown, 0 to 17 (default 4)")
    opt.rel_option(p)
    opt.data_options(p)
    p.set_defaults(func=_reproduce)


def _reproduce(args: argparse.Namespace) -> int:
    from .. import reproduce
    from ..stats import check_resamples

    check_resamples(args.resamples, "--resamples", level=args.level)  # before any work
    rep = reproduce.reproduce_runs(
        args.orig_baseline, args.orig_advanced, args.repro_baseline, args.repro_advanced, args.qrels,
        repro_qrels=args.repro_qrels, measures=args.measures or ["AP", "nDCG@10", "P@10"],
        B=args.resamples, level=args.level, seed=args.seed, rel=args.rel,
        precision=args.precision or "float32", allow_simulated=args.allow_simulated,
    )  # fmt: skip
    opt.warn_coverage("reproduce", rep.coverage)
    sys.stdout.write(render(rep, args.format, args.digits))
    return 0


def render(rep, fmt: str, digits: int = 4) -> str:
    """The table of a Reproduction as ``fmt``: ``value [low, high]`` to ``digits`` decimals, csv and json all."""
    from ..stats import level_percent

    df = rep.to_frame()
    first = next(iter(rep.estimates.values()))
    pct = level_percent(first.level)
    kind = "reproducibility (paired)" if rep.paired else "replicability (unpaired)"
    over = "ER, Delta RI, p: over all the qrels' topics, a topic a run misses scoring 0"
    if rep.paired:
        over = "KTU, RBO: over the topics both runs ranked; RMSE, " + over
    note = (
        f"{kind}; {rep.topics[0]} original / {rep.topics[1]} reproduction topics; "
        f"{pct} BCa intervals from {first.B} topic resamples; {over}"
    )
    banner = (
        "SIMULATED DATA: the qrels are irrepro's simulated stand-in, not real judgments; these "
        "results describe no real system"
        if rep.simulated
        else ""
    )
    if fmt == "json":  # strict: an undefined number is null, with the reason beside it
        from .._text import json_record, json_text
        from ..reproduce import _undefined

        doc = ({"warning": banner} if banner else {}) | {
            "kind": kind, "topics": list(rep.topics), "level": first.level, "resamples": first.B,
            "rows": [json_record(r, _undefined) for r in df.to_dict(orient="records")],
        }  # fmt: skip
        return json_text(doc) + "\n"
    top = (("% " if fmt == "latex" else "# ") + banner + "\n") if banner else ""
    return top + _table(df, fmt, digits, pct, note)


def _table(df, fmt: str, digits: int, pct: str, note: str) -> str:
    import math

    from ..escape import csv_cell, csv_quoting, markdown, plain
    from ..reproduce import _undefined

    records = df.to_dict(orient="records")
    why = [
        _undefined(r) if not all(map(math.isfinite, (r["value"], r["low"], r["high"]))) else ""
        for r in records
    ]
    if fmt == "csv":  # an undefined number an empty cell, its reason in the last column
        import csv
        import io

        out = io.StringIO()
        cells = [
            [csv_cell(c) if isinstance(c, str) else ("" if not math.isfinite(c) else c) for c in r.values()]
            + [csv_cell(w)]
            for r, w in zip(records, why)
        ]
        w = csv.writer(out, lineterminator="\n", quoting=csv_quoting(c for r in cells for c in r[:4]))  # type: ignore[arg-type]
        w.writerow([*df.columns, "reason"])
        w.writerows(cells)
        return out.getvalue()

    reasons = list(dict.fromkeys(w for w in why if w))  # each reason once, numbered in the cells

    def cell(r: dict, w: str) -> str:
        mark = f" ({reasons.index(w) + 1})" if w else ""
        if not math.isfinite(r["value"]):
            return "undefined" + mark
        v = f"{r['value']:.{digits}f}"
        if not (math.isfinite(r["low"]) and math.isfinite(r["high"])):
            return f"{v} [no interval]{mark}"
        return f"{v} [{r['low']:.{digits}f}, {r['high']:.{digits}f}]"

    head = ["experiment", "run", "measure", "statistic", f"value [{pct} CI]"]
    rows = [
        [r["experiment"], r["run"], r["measure"], r["statistic"], cell(r, w)] for r, w in zip(records, why)
    ]
    notes = [note, *(f"({i}) {w}" for i, w in enumerate(reasons, 1))]
    if fmt == "markdown":  # the interval column as it is: numbers and brackets
        lines = opt.table_lines(fmt, head, rows, raw=(4,))
        return "\n".join(lines) + "\n\n" + "\n".join(markdown(n) for n in notes) + "\n"
    if fmt == "latex":  # the notes as comments: to the line end
        lines = [*opt.table_lines(fmt, head, rows, align="llllr"), *(f"% {plain(n)}" for n in notes)]
        return "\n".join(lines) + "\n"
    rows = [[plain(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    fmt_row = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + f"  {{:>{widths[-1]}}}"
    return "\n".join([fmt_row.format(*head), *(fmt_row.format(*r) for r in rows), *notes]) + "\n"
