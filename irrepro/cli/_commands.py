"""The commands of the ``irrepro`` command line (:mod:`irrepro.cli`): ``data status``, ``data
fetch``, ``eval``, ``compare`` and ``report``, each a function of the parsed arguments that returns
the exit status; and how ``eval`` writes its scores (:func:`write_scores`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError

__all__ = ["AVERAGES", "AGGREGATES", "FORMATS", "write_scores"]

#: The averages of ``irrepro eval`` (``--average``): over all the qrels' topics (trec_eval -c)
#: or over the topics the run retrieved for (trec_eval without -c).
AVERAGES = ("all-topics", "run-topics")
#: ``--aggregate``: the prefix that makes a measure's geometric mean (trec_eval's ``gm_``,
#: Sakai's ``G_``; :func:`irrepro.measures.parse_measure` knows both); ``mean`` is the measure.
AGGREGATES = {"mean": "", "gm": "gm_", "G": "G_"}
FORMATS = ("tsv", "trec_eval", "csv", "json")


def _err(command: str, message: str) -> None:
    """``message`` on stderr as one line, ``irrepro COMMAND: ...``, every control and format
    character in it (a file name's newline or right-to-left override) made visible
    (:func:`irrepro.escape.plain`)."""
    from ..escape import plain

    print(plain(f"irrepro {command}: {message}"), file=sys.stderr)


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

    names = args.names or ["all"]
    names = "all" if names == ["all"] else names
    paths = data.fetch(names, progress=not args.quiet)  # an unknown name, data not to be had: exit 2
    print(f"{len(paths)} files verified in {plain(data.cache_dir())}")
    return 0


# --------------------------------------------------------------------------------------------
# irrepro eval
# --------------------------------------------------------------------------------------------


def _coverage_lines(rs, average: str) -> list[str]:
    """One line per run whose topics differ from the qrels' topics (counts and a few ids), from
    :meth:`RunSet.coverage <irrepro.data.RunSet.coverage>` of the RunSet ``rs``, or from such rows
    (:attr:`Reproduction.coverage <irrepro.reproduce.Reproduction.coverage>`); names through
    :func:`irrepro.escape.plain`."""
    from .._text import few
    from ..escape import plain

    fate = "scored 0 (trec_eval -c)" if average == "all-topics" else "left out of its average"
    lines = []
    for r in rs._coverage() if hasattr(rs, "_coverage") else rs:  # (coverage()'s rows, without pandas)
        if not r["missing"] and not r["ignored"]:
            continue
        parts = [f"run {r['run']}: {r['retrieved']} of the {r['topics']} qrels topics retrieved"]
        if r["missing"]:
            parts.append(f"{len(r['missing'])} missing, {fate}: {few(r['missing'])}")
        if r["ignored"]:
            parts.append(f"{len(r['ignored'])} run topics not in the qrels, ignored: {few(r['ignored'])}")
        lines.append(plain("; ".join(parts)))
    return lines


def _measure_list(names: list[str], aggregates: list[str], rel: int) -> list[str]:
    """The measures to evaluate: each of ``names`` as it is (aggregate ``mean``) and as its
    geometric means (``gm``: trec_eval's ``gm_``; ``G``: Sakai's ``G_``), checked and named by
    :func:`irrepro.measures.parse_measure` (unknown names, a geometric mean of a count or of a
    measure that can be negative are refused there; of a geometric mean, here)."""
    from ..measures import parse_measure
    from ..measures.names import _per_topic

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
                    f"adds one to a per-topic measure: -m {_per_topic(pm).name} -a {agg}"
                )
            try:
                out.append(parse_measure(AGGREGATES[agg] + pm.name, rel=rel).name)
            except InputError as e:
                raise InputError(f"-m {m} -a {agg}: {e}") from None
    return list(dict.fromkeys(out))


def write_scores(rows, fmt: str, digits: int, out, *, banner: str = "", meta: dict | None = None) -> None:
    """Print the rows of :func:`irrepro.measures.outputs._rows` as ``fmt``: ``tsv``
    (run<TAB>measure<TAB>value, or run<TAB>measure<TAB>query_id<TAB>value when it holds per-topic
    rows), ``csv`` (run,query_id,measure,value) or ``json`` (``meta`` plus the rows as
    ``scores``). ``banner`` (e.g. the simulated-data warning) is the first line of the text
    formats, after "#", and the JSON's first key ``warning``. ``digits`` applies to tsv (counts
    are printed as integers); csv and json carry every digit. The JSON is strict: a value that
    is undefined (a summary over no topic) is null with a ``reason`` beside it. Names go through
    :mod:`irrepro.escape`: in csv its OWASP rule (:func:`~irrepro.escape.csv_cell`), in tsv control
    and format characters made visible (:func:`~irrepro.escape.plain`)."""
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


def _simulated_banner(command: str, qrels, rs, what: str) -> str:
    """The first line of everything computed on the simulated stand-in (also said on stderr), or
    "" for real qrels."""
    if not rs.simulated:
        return ""
    banner = (
        f"SIMULATED DATA: the qrels {qrels!r} are irrepro's simulated stand-in, not real "
        f"judgments; these {what} describe no real system"
    )
    _err(command, banner)
    return banner


def _eval(args: argparse.Namespace) -> int:
    from .. import measures
    from .._user_inputs import load
    from ..measures.outputs import _rows, _trec_eval_text

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
        for piece in _trec_eval_text(scores, per_topic=args.per_topic, complete=complete, digits=args.digits):
            sys.stdout.write(piece)  # (a piece at a time: a million topics' text is never all held)
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
        from ..data import read_run

        name = read_run(Path(baseline).expanduser()).name
    if runs is None or name in runs:
        return name
    names = ", ".join(runs[:8]) + (", ..." if len(runs) > 8 else "")
    raise InputError(f"--baseline {baseline!r} is neither the name nor the file of a run ({names})")


def _compare(args: argparse.Namespace) -> int:
    from .. import measures, significance
    from .._user_inputs import load
    from ..measures.names import _require_per_topic

    for m in args.measures:  # the tests, means and intervals are of per-topic scores
        _require_per_topic(m, "irrepro compare")
    if args.methods and args.methods_file is None and args.format == "csv":
        raise InputError("--methods prints prose after the table, which would break the CSV: "
                         "give --methods-file FILE to write the paragraph to a file")  # fmt: skip
    from ..significance.comparison import _check_resamples, _comparisons, _test_resamples

    # before any work: resamples enough for the test at --alpha, the intervals at --level, --anova's Tukey HSD
    _check_resamples(args.test, args.B, args.alpha, args.intervals, args.B, args.level, ("-B", "-B"))
    if args.anova:
        _check_resamples("tukey", args.B, args.alpha, names=("-B", "-B"))
    if args.methods_file is not None:  # before any work: never over an input or a file of the user's
        from .._outputs import check_file

        inputs = [*args.runs, args.qrels, *([args.baseline] if args.baseline else [])]
        check_file(args.methods_file, inputs=inputs, option="--methods-file")
    rs = load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision).runset
    if len(rs.runs) < 2:
        raise InputError(f"compare needs at least 2 runs, got {len(rs.runs)}")
    baseline = _baseline_run(args.baseline, rs.runs)
    banner = _simulated_banner("compare", args.qrels, rs, "results")
    for line in _coverage_lines(rs, "all-topics"):
        _err("compare", line)
    correction = args.correction
    # before any test: the test's resamples for its correction over the pairs of a measure (said when raised)
    m = _comparisons(len(rs.runs), baseline)
    B, raised = _test_resamples(args.test, args.B, args.alpha, correction, m, "-B")
    if raised:
        _err("compare", raised)
    scores = measures.evaluate(rs, args.measures, rel=args.rel)
    table = significance.compare(
        scores, baseline=baseline, test=args.test, correction=correction, alpha=args.alpha,
        intervals=args.intervals, level=args.level, B=B, B_intervals=args.B, seed=args.seed,
        n_jobs=args.jobs, digits=args.digits,
    )  # fmt: skip
    anova = _anova_text(scores, args) if args.anova else ""  # every measure decided before any output
    out = table.render(args.format)
    if banner:
        out = ("% " if args.format == "latex" else "# ") + banner + "\n" + out
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    if args.methods or args.methods_file is not None:
        _write_methods(table, rs, args)
    sys.stdout.write(anova)
    return 0


def _write_methods(table, rs, args: argparse.Namespace) -> None:
    """``irrepro compare --methods``: the table's methods paragraph
    (:func:`irrepro.significance.methods_paragraph`) after the table, or into ``--methods-file``."""
    from ..escape import plain, shell
    from ..significance import methods_paragraph
    from ..significance.comparison import B_INTERVALS

    r = table.test
    fmt = "latex" if args.format == "latex" else "markdown"
    missing = sum(1 for c in rs._coverage() if c["missing"])
    cmd = " ".join(["irrepro", "compare", *map(shell, sys.argv[2:])]) if sys.argv[1:2] == ["compare"] else ""
    text = methods_paragraph(
        table.measures, n_topics=r.n_topics, n_runs=len(table.runs), test=r.test,
        correction=r.correction if r.test != "tukey" else "none", alpha=table.alpha,
        alternative=r.alternative, baseline=table.baseline, n_comparisons=len(r.pairs),
        B=r.B or None, exact=r.exact, effect_sizes=("difference", "win-tie-loss"),
        interval="bca" if table.low is not None else None,
        interval_of="difference" if table.baseline is not None else "mean", level=table.level,
        B_interval=args.B or B_INTERVALS, seed=args.seed, rel=args.rel, precision=rs.precision, missing_runs=missing, qrels=str(args.qrels),
        command=cmd,
    ).render(fmt)  # fmt: skip
    if args.methods_file is None:
        sys.stdout.write("\n" + text)
        return
    from .._outputs import write_file

    write_file(Path(args.methods_file).expanduser(), text, given=args.methods_file, option="--methods-file")
    print(f"methods paragraph: {plain(args.methods_file)}", file=sys.stderr)


def _anova_text(scores, args: argparse.Namespace) -> str:
    """``irrepro compare --anova``: per measure, the two-way ANOVA table and all pairs by the
    classical and the randomised Tukey HSD (:func:`irrepro.design.tukey_table`), or one line saying
    why a measure has none (no residual variance: identical runs, a constant measure)."""
    from .. import design
    from .._text import no_variance
    from ..significance._names import DEFAULT_B

    B = DEFAULT_B["tukey"] if args.B is None else args.B
    parts = []
    for name, matrix in scores.items():
        try:
            anova = design.two_way_anova(matrix)
        except InputError:  # no residual variance: F and both Tukey tests are undefined
            why = no_variance(matrix) or (
                "no residual variance: every score is a run effect plus a topic effect (each run differs "
                "from the others by the same amount on every topic)"
            )
            parts.append(f"\nANOVA of {name}: none - {why}, so F and Tukey's HSD are undefined\n")
            continue
        table = design.tukey_table(matrix, alpha=args.alpha, B=B, seed=args.seed, n_jobs=args.jobs)
        parts.append(
            f"\nANOVA of {name} (system x topic, without replication):\n{anova.to_string(args.digits)}\n"
            f"\nall pairs of {name}: Tukey HSD, classical (statsmodels, two-way V_E) and randomised (B = {B}):\n"
            + table.to_string(index=False, float_format=lambda v: f"{v:.{args.digits}f}")
            + "\n"
        )
    return "".join(parts)


def _report(args: argparse.Namespace) -> int:
    from .. import report
    from ..data import run_files
    from ..escape import plain
    from ..report._analyses import _pairs_resamples

    path = report.run(
        args.runs_dir, args.qrels, args.out, args.measure, seed=args.seed, rel=args.rel,
        scale=args.scale, n_jobs=args.jobs, progress=not args.quiet,
        allow_simulated=args.allow_simulated, precision=args.precision,
        test=args.test, baseline=_baseline_run(args.baseline),
    )  # fmt: skip
    print(f"report: {plain(Path(args.out) / path.name)}")  # as named (trec_eval's habit: no resolving)
    # the pairwise tests' B when raised for the corrections (the page and its methods paragraph say it too)
    S = len(run_files(args.runs_dir)) if Path(args.runs_dir).is_dir() else 0
    _, raised = _pairs_resamples(S, args.baseline, args.test, report.settings(args.scale).B_tests)
    if raised:
        _err("report", raised)
    return 0
