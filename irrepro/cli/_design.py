"""``irrepro design`` (how many topics a study needs, from pilot runs) and the ANOVA of ``irrepro
compare --anova`` (:mod:`irrepro.cli`): each a function of the parsed arguments."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import _options as opt

#: The files ``irrepro design`` writes into ``--out`` (and no others).
FIGURE = "power-curve.png"
TABLE = "topics.csv"


def _pilot(args: argparse.Namespace):
    """The pilot's score matrix of ``--measure`` (trec_eval -c), the mask of missed topics and the banner."""
    from .. import measures

    rs = opt.runset(args, "design", min_runs=2)
    banner = opt.notes("design", args.qrels, rs, "results")
    matrix = next(iter(measures.evaluate(rs, [args.measure], rel=args.rel).values()))
    missing = np.zeros(matrix.scores.shape, dtype=bool)
    col = {t: j for j, t in enumerate(matrix.topics)}
    for i, r in enumerate(rs._coverage()):
        for t in r["missing"]:
            if t in col:
                missing[i, col[t]] = True
    return matrix, missing, banner


def _fmt_n(n: int) -> str:
    return "not reached" if n < 0 else str(n)


def _row(label: str, n: int, low: int, high: int, interval: bool) -> tuple[str, str, str]:
    """A row of the table: method, size and (if ``interval``) its interval."""
    return label, _fmt_n(n), f"[{_fmt_n(low)}, {_fmt_n(high)}]" if interval else ""


def _up(n: float) -> str:
    """A simulated size (interpolated) rounded up, or "not reached" (NaN)."""
    return _fmt_n(math.ceil(n) if math.isfinite(n) else -1)


#: How the messages of :func:`irrepro.design._sizes.check_design` name ``irrepro design``'s options.
_OPTIONS = {
    "min_diff": "--min-diff",
    "alpha": "--alpha",
    "power": "--power",
    "systems": "--systems",
    "B": "-B",
}


def _source(args: argparse.Namespace) -> str:
    """The pilot - ``"runs"``, ``"scores"`` or ``"variance"`` - checked with its options, before any work."""
    given = [name for name, there in (("RUN... --qrels", bool(args.runs or args.qrels)),
                                      ("--scores", args.scores is not None),
                                      ("--variance", args.variance is not None)) if there]  # fmt: skip
    if len(given) != 1:
        raise InputError(
            "plans from one pilot: RUN... with --qrels, --scores FILE, or --variance V"
            + (f"; got {' and '.join(given)}" if given else "")
        )
    if args.runs or args.qrels:
        if not args.runs or not args.qrels:
            raise InputError("runs need --qrels, and --qrels needs runs")
        if not args.measure:
            raise InputError("-m/--measure is required with runs")
        return "runs"
    if args.variance is not None:
        if args.min_diff is None:
            raise InputError("--variance sizes a study by Sakai's methods: give --min-diff too")
        if args.drop_worst or args.topics or args.simulate:
            raise InputError(
                "--variance has no pilot scores: --topics, --drop-worst and --simulate need a pilot"
            )
        return "variance"
    return "scores"


def _dropped(matrix, fraction: float):
    """:func:`irrepro.design.drop_worst` of ``matrix``, the names dropped and the mask of the runs kept."""
    from ..design import drop_worst

    kept = drop_worst(matrix, fraction) if fraction else matrix
    return kept, [s for s in matrix.systems if s not in kept.systems], np.isin(matrix.systems, kept.systems)


def _design(args: argparse.Namespace) -> int:
    import pandas as pd

    from .. import design
    from .._measure_names import require_per_topic
    from .._outputs import check_dir
    from .._text import missing_scored
    from ..escape import plain, to_csv

    source = _source(args)
    inputs = [*args.runs, args.qrels, args.scores]
    # before any work: never into or over an input, never over a file irrepro did not write
    check_dir(args.out, files=(FIGURE, TABLE), inputs=[i for i in inputs if i], what="design output")
    # its range checks --min-diff, before the runs are read; the variances are of per-topic scores
    spec = require_per_topic(args.measure, "irrepro design") if source == "runs" else args.measure
    sized = args.min_diff is not None  # Sakai's sizes (and the simulation) as well as G-theory
    min_diff, alpha, power, m = math.nan, float(args.alpha), float(args.power), int(args.systems)
    if sized:
        min_diff, alpha, power, m = design._sizes.check_design(
            args.min_diff, args.alpha, args.power, args.systems, measure=spec, B=args.B, level=args.level,
            names=_OPTIONS,
        )  # fmt: skip
    elif args.simulate:
        raise InputError("--simulate simulates the power to detect --min-diff: give --min-diff")
    if args.simulate:  # enough resamples for the simulated test at --alpha, before any work
        design._sizes._simulation_B(args.sim_B, args.test, alpha, args.scale, "--sim-B")
    banner, missing, dropped = "", None, []
    if source == "runs":
        matrix, missing, banner = _pilot(args)
    elif source == "scores":
        from ..data import read_score_matrix

        matrix = read_score_matrix(args.scores, args.measure or "score")
    if source != "variance":
        matrix, dropped, keep = _dropped(matrix, args.drop_worst)
        if missing is not None:
            missing = missing[keep]
    lines = [f"# {banner}"] if banner else []
    doc: dict = {"level": args.level}
    rows: list[tuple[str, str, str]] = []
    if source != "variance":
        S, T = matrix.shape
        anova = design.two_way_anova(matrix)  # every method on the one matrix: a missed topic scores 0
        sizes_n = args.topics or sorted({T, 25, 50, 100, 200})
        dstudy = design.d_study(anova, sizes_n, level=args.level)
        needed = {t: _needed(design, anova, t, args.level) for t in (0.8, 0.95)}
        doc |= {"pilot": {"runs": S, "topics": T, "measure": matrix.measure, "dropped": dropped},
                "components": {k: float(v) for k, v in anova.components.items()},
                "d_study": [r | {k: design.expected_correlation(r["Erho2"], k) if r["Erho2"] > 0 else None
                                 for k in design._gtheory.CORRELATION_FITS}
                            for r in dstudy.to_frame().to_dict(orient="records")],
                "topics_needed": needed[0.95]}  # fmt: skip
        head = f"pilot: {S} runs x {T} topics, {plain(matrix.measure)}"
        if dropped:
            head += f" (dropped the worst {len(dropped)} by mean: {', '.join(plain(d) for d in dropped)})"
        lines.append(head + "; variance components " + ", ".join(
            f"{k} {v:.6g}" for k, v in anova.components.items()))  # fmt: skip
        if missing is not None and missing.any():
            runs = int(missing.any(axis=1).sum())
            lines.append(
                f"missing topics: {missing_scored(matrix.scores[missing], runs)}; V_E, Sakai's sizes"
                + (", G-theory and the simulation" if args.simulate else " and G-theory")
                + " are all from these scores"
            )
    pct = f"{args.level * 100:g}%"
    if sized:
        pilot = args.variance if source == "variance" else matrix
        sizes = design.topic_set_sizes(pilot, min_diff=min_diff, alpha=alpha, power=power, systems=m,
                                       B=args.B, level=args.level, seed=args.seed)  # fmt: skip
        doc["sizes"] = [{k: v if k == "method" else _number(v, k in ("topics", "low", "high"))
                         for k, v in r.items()} for r in sizes.to_dict("records")]  # fmt: skip
        lines.append(
            f"V_E = {sizes['V_E'].iloc[0]:.6g}" + (" (given)" if source == "variance" else " (two-way ANOVA)")
            + f"; min diff {min_diff:g}, alpha {alpha:g}, power {power:g}, m = {m} systems"
        )  # fmt: skip
        if args.B == 0 and source != "variance":
            lines.append("-B 0: no bootstrap, so Sakai's sizes have no interval")
        for r in sizes.to_dict("records"):
            low, high = int(r["low"]), int(r["high"])
            rows.append(_row(str(r["method"]), int(r["topics"]), low, high, interval=low >= 0))
    if source != "variance":
        for target, need in needed.items():
            for c, label in (("Erho2", "E rho^2"), ("Phi", "Phi")):
                n, lo, hi = (-1 if need[c][k] is None else need[c][k] for k in ("n", "low", "high"))
                rows.append(_row(f"G-theory {label} >= {target:g}", n, lo, hi, interval=n >= 0))
    curve = None
    if args.simulate:
        curve = design.simulated_power(
            matrix, min_diff=min_diff, test=args.test, systems=m, correction=args.correction, alpha=alpha,
            B=args.sim_B, seed=args.seed, n_jobs=args.jobs, scale=args.scale,
        )  # fmt: skip
        n, lo, hi = (_up(curve.topics_needed(power, z)) for z in (0.0, 1.96, -1.96))
        label = f"simulated {args.test}" + (f", {curve.correction}" if curve.correction != "none" else "")
        rows.append((label, n, f"[{lo}, {hi}]"))
    notes = list(lines)
    width = max(len(r[0]) for r in rows)
    lines.append(f"{'method':<{width}}  {'topics':>11}  interval ({pct})")
    lines += [f"{a:<{width}}  {b:>11}  {c}" for a, b, c in rows]
    d_rows = [] if source == "variance" else [
        (str(int(r["n_topics"])), f"{r['Erho2']:.4f} [{r['Erho2_low']:.4f}, {r['Erho2_high']:.4f}]",
         f"{r['Phi']:.4f} [{r['Phi_low']:.4f}, {r['Phi_high']:.4f}]",
         *("-" if r[k] is None else f"{r[k]:.3f}" for k in ("tau", "tau_AP")))
        for r in doc["d_study"]]  # fmt: skip
    d_title = (f"D-study ({pct} intervals; tau, tau_AP: the expected correlations with the true ranking, "
               "Urbano et al.'s 2013 empirical fit)")  # fmt: skip
    if d_rows:
        lines.append(d_title + ":")
        lines.append(f"{'topics':>7}  {'E rho^2':<23}  {'Phi':<23}  {'tau':>5}  {'tau_AP':>6}")
        lines += [f"{n:>7}  {e}  {ph}  {t:>5}  {ta:>6}" for n, e, ph, t, ta in d_rows]
    shown = len(lines)  # the notes and the tables; the lines after them follow the tables
    files: dict = {TABLE: to_csv(pd.DataFrame(rows, columns=["method", "topics", "interval"]), index=False)}
    if sized:
        v = float(sizes["V_E"].iloc[0])
        files[FIGURE] = _figure(curve, v, int(sizes["topics"].max()), min_diff, alpha, power, m)
    from .._outputs import write_dir

    write_dir(args.out, files, what="design output")
    names = {FIGURE: "figure", TABLE: "table"}
    lines.append("; ".join(f"{names[f]}: {plain(Path(args.out) / f)}" for f in names if f in files))
    if curve is not None:
        doc["simulated"] = [{"n_topics": int(n), "power": float(p), "se": float(s)}
                            for n, p, s in zip(curve.n_topics, curve.power, curve.se)]  # fmt: skip
        lines.append("simulated power (+- Monte Carlo se): " + ", ".join(
            f"{n}: {p:.3f} +- {s:.3f}" for n, p, s in zip(curve.n_topics, curve.power, curve.se)))  # fmt: skip
    if args.format == "json":
        from .._text import json_text

        if banner:
            doc = {"warning": banner} | doc
        sys.stdout.write(json_text(doc) + "\n")
    elif args.format in ("markdown", "latex"):
        tables: list = [(["method", "topics", f"interval ({pct})"], rows, "")]
        if d_rows:
            tables.append((["topics", "E rho^2", "Phi", "tau", "tau_AP"], d_rows, d_title))
        sys.stdout.write(_tables(args.format, notes + lines[shown:], tables))
    else:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _tables(fmt: str, notes: list[str], tables) -> str:
    """``tables`` ([(header, rows, caption)]) and ``notes`` as Markdown or LaTeX (every cell escaped)."""
    from ..escape import markdown

    out = []
    for head, rows, caption in tables:
        out += [*opt.table_lines(fmt, head, rows, caption), ""]
    out += [markdown(n.lstrip("# ")) if fmt == "markdown" else f"% {n.lstrip('# ')}" for n in notes]
    return "\n".join(out) + "\n"


def _needed(design, anova, target: float, level: float) -> dict:
    """:func:`irrepro.design.topics_needed` as plain numbers (None: not reached, or no system variance)."""
    try:
        t = design.topics_needed(anova, target, level=level)
    except InputError:
        return {c: {"target": target, "n": None, "low": None, "high": None} for c in ("Erho2", "Phi")}
    return {c: {"target": target, **{k: (int(v) if np.isfinite(v) else None) for k, v in t.loc[c, ["n", "low", "high"]].items()}}
            for c in t.index}  # fmt: skip


def _number(v, whole: bool):
    """A JSON number: None for NaN or a size never reached (-1), an int for a size."""
    if not np.isfinite(v) or (whole and v < 0):
        return None
    return int(v) if whole else float(v)


def _figure(curve, v: float, largest: int, min_diff, alpha, power, m) -> bytes:
    """The simulated ``curve`` (or None) beside the closed forms from V_E ``v``, to twice ``largest`` topics."""
    import io

    from .. import design
    from ..plots import save_power_curve

    hi = max([largest * 2, 20] + ([int(curve.n_topics.max())] if curve is not None else []))
    n = np.unique(np.linspace(3, hi, 60).round().astype(int))
    closed = {f"paired t, closed form (V_E = {v:.4g})": (n, design.power_closed_form(
        "paired-t", n, variance=v, min_diff=min_diff, alpha=alpha))}  # fmt: skip
    if m > 2:
        closed[f"ANOVA of {m} systems, closed form"] = (n, design.power_closed_form(
            "anova", n, variance=v, min_diff=min_diff, alpha=alpha, systems=m))  # fmt: skip
    figure = io.BytesIO()
    save_power_curve(figure, [] if curve is None else [curve], closed=closed, target=power,
                     title=f"minimum difference {min_diff:g}, alpha {alpha:g}")  # fmt: skip
    return figure.getvalue()


def _sizes(text: str, name: str) -> list[int]:
    """Comma-separated whole numbers >= 1 (``--topics 50,100,150``)."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise InputError(f"{name} must be whole numbers >= 1 separated by commas, got {text!r}")
    return sorted(set(values))


def add_parser(sub) -> None:
    """``irrepro design``: how many topics a study needs, from pilot runs."""
    from ..significance import CORRECTIONS, TESTS

    p = sub.add_parser(
        "design",
        help="plan a study: how many topics detect a difference, from pilot runs or a score matrix",
        description="How many topics a test collection needs, from a pilot: runs with --qrels, a "
        "topic-by-run score matrix (--scores, gt4ireval's and Sakai's layout) or, for Sakai's sizes "
        "alone, a variance estimate (--variance, as Sakai's calculators). Generalizability theory "
        "(Brennan 2001; gt4ireval): the variance components, E rho^2 and Phi of --topics topics and the "
        "topics that reach 0.8 and 0.95, each with its --level interval, after --drop-worst. With "
        "--min-diff also Sakai's (2016) topic set size design by the paired t-test, the one-way ANOVA "
        "of --systems systems and the CI width to detect --min-diff with --power, each with a bootstrap "
        "interval over the pilot's topics; with --simulate the power of --test simulated from the "
        "known-truth simulator fitted to the pilot. A topic a run misses scores 0 for all of them "
        "(trec_eval -c, as every mean of irrepro), said in one line. --format json prints one JSON "
        f"document. Writes OUT/{TABLE} (the table) and, with --min-diff, OUT/{FIGURE} (power against "
        "topics). OUT must be new, empty or an "
        "earlier output of irrepro's: irrepro replaces only the files its manifest (OUT/.irrepro-report) "
        "proves it wrote, and refuses - before any work - an input, a directory holding one, or a "
        "directory of yours.",
    )
    p.add_argument(
        "runs", nargs="*", metavar="RUN", help="run files or directories of run files (with --qrels)"
    )
    p.add_argument("--qrels", help="qrels file, ir_datasets id or collection name")
    p.add_argument("--scores", metavar="FILE",
                   help="instead of runs: a topic-by-run score matrix, CSV or TSV (first column the topic "
                        "ids, the header the run names; gt4ireval's and Sakai's layout)")  # fmt: skip
    p.add_argument("--variance", type=opt.positive("--variance"), metavar="V",
                   help="instead of a pilot: size the study from a variance estimate V_E alone (Sakai's "
                        "calculators), with --min-diff")  # fmt: skip
    p.add_argument("-m", "--measure", help="the measure, e.g. nDCG@10, AP, P@10 (with runs; with --scores "
                                           "its name, default 'score')")  # fmt: skip
    p.add_argument("--min-diff", type=opt.positive("--min-diff"),
                   help="the smallest difference of means to detect (the CI width for the CI method); below 1 "
                        "for a measure in [0, 1]; without it, generalizability theory only")  # fmt: skip
    p.add_argument(
        "--topics",
        type=opt.checked(_sizes, "--topics"),
        metavar="N,N,...",
        help="topic-set sizes of the D-study (default the pilot's, 25, 50, 100 and 200)",
    )
    p.add_argument("--drop-worst", type=opt.share("--drop-worst"), default=0.0, metavar="FRACTION",
                   help="drop the runs whose mean is below this quantile of the runs' means first, as "
                        "gt4ireval's drop (default 0: none)")  # fmt: skip
    p.add_argument(
        "--level",
        type=opt.level,
        default=0.95,
        help="confidence level of every interval, a fraction or a percentage (default 0.95)",
    )
    p.add_argument("--format", choices=("text", "json", "markdown", "latex"), default="text",
                   help="output format (default text)")  # fmt: skip
    p.add_argument(
        "--power", type=opt.fraction("--power"), default=0.8, help="power wanted, above --alpha (default 0.8)"
    )
    p.add_argument("--alpha", type=opt.alpha, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--systems", type=opt.int_at_least(2), default=2,
                   help="m, the systems the study compares (ANOVA method, simulated correction; default 2)")  # fmt: skip
    p.add_argument("--simulate", action="store_true", help="also the power simulated from the pilot")
    p.add_argument(
        "--test", choices=list(TESTS), default="paired-t", help="the simulated test (default paired-t)"
    )
    p.add_argument("--correction", choices=list(CORRECTIONS),
                   help="adjustment over the m systems' pairs in the simulation (default none)")  # fmt: skip
    p.add_argument("--scale", type=opt.scale, metavar="SCALE",
                   help=f"simulation precision, 24,000 trials per size or 600 at quick: {opt.SCALE_WORDS}")  # fmt: skip
    p.add_argument("-B", dest="B", type=opt.int_at_least(0), default=1000,
                   help="bootstrap samples of the pilot's topics for the 95%% intervals: 0 (no interval) or "
                        "at least 100, one beyond each end of the interval (default 1000)")  # fmt: skip
    p.add_argument("--sim-B", dest="sim_B", type=opt.int_at_least(1),
                   help="resamples of a simulated resampling test: at least 100 and 1/alpha, so that its "
                        "p-value can fall between 0 and alpha (default by --scale: 1000, 200 at quick)")  # fmt: skip
    opt.seed_option(p)
    p.add_argument("--out", default="irrepro-design", help="output directory (default irrepro-design)")
    p.add_argument("-j", "--jobs", type=opt.jobs,
                   help="workers (default IRREPRO_JOBS or 1; the numbers do not depend on it)")  # fmt: skip
    opt.rel_option(p)
    opt.data_options(p)
    p.set_defaults(func=_design)
