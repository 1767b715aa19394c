"""``irrepro design`` (how many topics a study needs, from pilot runs) and the ANOVA of ``irrepro
compare --anova`` (:mod:`irrepro.cli`): each a function of the parsed arguments."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from ..errors import InputError

#: The files ``irrepro design`` writes into ``--out`` (and no others).
FIGURE = "power-curve.png"
TABLE = "topics.csv"


def _pilot(args: argparse.Namespace, command: str, measure: str):
    """The pilot's score matrix of ``measure`` (a topic a run misses scored as trec_eval -c scores
    it), where runs miss topics (``missing``) and the banner."""
    from .. import measures
    from .._user_inputs import load
    from ._commands import _coverage_lines, _simulated_banner

    rs = load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision).runset
    if len(rs.runs) < 2:
        raise InputError(f"{command} needs at least 2 runs, got {len(rs.runs)}")
    banner = _simulated_banner(command, args.qrels, rs, "results")
    for line in _coverage_lines(rs, "all-topics"):
        print(f"irrepro {command}: {line}", file=sys.stderr)
    matrix = next(iter(measures.evaluate(rs, [measure], rel=args.rel).values()))
    missing = np.zeros(matrix.scores.shape, dtype=bool)
    col = {t: j for j, t in enumerate(matrix.topics)}
    for i, r in enumerate(rs._coverage()):
        for t in r["missing"]:
            if t in col:
                missing[i, col[t]] = True
    return matrix, missing, banner


def _fmt_n(n: int) -> str:
    return "not reached" if n < 0 else str(n)


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


def _design(args: argparse.Namespace) -> int:
    from .. import design
    from .._outputs import check_dir
    from .._text import missing_scored
    from ..escape import plain
    from ..measures.names import _require_per_topic

    # before any work: never into or over an input, never over a file irrepro did not write
    out = check_dir(args.out, files=(FIGURE, TABLE), inputs=[*args.runs, args.qrels], what="design output")
    # its range checks --min-diff, before the runs are read; the variances are of per-topic scores
    spec = _require_per_topic(args.measure, "irrepro design")
    min_diff, alpha, power, m = design._sizes.check_design(
        args.min_diff, args.alpha, args.power, args.systems, measure=spec, B=args.B, names=_OPTIONS
    )
    if args.simulate:  # enough resamples for the simulated test at --alpha, before any work
        design._sizes._simulation_B(args.sim_B, args.test, alpha, args.scale, "--sim-B")
    matrix, missing, banner = _pilot(args, "design", args.measure)
    lines = [f"# {banner}"] if banner else []
    anova = design.two_way_anova(matrix)  # every method on the one matrix: a missed topic scores 0
    sizes = design.topic_set_sizes(matrix, min_diff=min_diff, alpha=alpha, power=power, systems=m,
                                   B=args.B, seed=args.seed)  # fmt: skip
    S, T = matrix.shape
    lines.append(
        f"pilot: {S} runs x {T} topics, {matrix.measure}; V_E = {sizes['V_E'].iloc[0]:.6g} (two-way ANOVA); "
        f"min diff {min_diff:g}, alpha {alpha:g}, power {power:g}, m = {m} systems"
    )
    if missing.any():
        runs = int(missing.any(axis=1).sum())
        lines.append(
            f"missing topics: {missing_scored(matrix.scores[missing], runs)}; V_E, Sakai's sizes"
            + (", G-theory and the simulation" if args.simulate else " and G-theory")
            + " are all from these scores"
        )
    if args.B == 0:
        lines.append("-B 0: no bootstrap, so Sakai's sizes have no interval")
    rows: list[tuple[str, str, str]] = []
    for r in sizes.to_dict("records"):
        low, high = int(r["low"]), int(r["high"])
        rows.append(
            (
                str(r["method"]),
                _fmt_n(int(r["topics"])),
                "" if low < 0 else f"[{_fmt_n(low)}, {_fmt_n(high)}]",
            )
        )
    for target in (0.8, 0.95):
        try:
            needed = design.topics_for_reliability(anova, target)
        except InputError:  # no system variance: no number of topics
            needed = -1
        rows.append((f"G-theory E rho^2 >= {target:g}", _fmt_n(needed), ""))
    curve = None
    if args.simulate:
        curve = design.simulated_power(
            matrix, min_diff=min_diff, test=args.test, systems=m, correction=args.correction, alpha=alpha,
            B=args.sim_B, seed=args.seed, n_jobs=args.jobs, scale=args.scale,
        )  # fmt: skip
        n, lo, hi = (_up(curve.topics_needed(power, z)) for z in (0.0, 1.96, -1.96))
        label = f"simulated {args.test}" + (f", {curve.correction}" if curve.correction != "none" else "")
        rows.append((label, n, f"[{lo}, {hi}]"))
    width = max(len(r[0]) for r in rows)
    lines.append(f"{'method':<{width}}  {'topics':>11}  interval (95%)")
    lines += [f"{a:<{width}}  {b:>11}  {c}" for a, b, c in rows]
    _write(
        out,
        args.out,
        rows,
        curve,
        float(sizes["V_E"].iloc[0]),
        int(sizes["topics"].max()),
        min_diff,
        alpha,
        power,
        m,
    )
    lines.append(f"figure: {plain(Path(args.out) / FIGURE)}; table: {plain(Path(args.out) / TABLE)}")
    if curve is not None:
        lines.append("simulated power (+- Monte Carlo se): " + ", ".join(
            f"{n}: {p:.3f} +- {s:.3f}" for n, p, s in zip(curve.n_topics, curve.power, curve.se)))  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _write(out: Path, given: str, rows, curve, v: float, largest: int, min_diff, alpha, power, m) -> None:
    """The figure and the table as the output directory ``out`` (:func:`irrepro._outputs.write_dir`:
    only :data:`FIGURE` and :data:`TABLE`, and the manifest that proves them irrepro's): the
    simulated ``curve`` (or None) beside the closed forms from V_E ``v``, drawn up to twice the
    ``largest`` closed-form size."""
    import csv
    import io

    from .. import design
    from .._outputs import write_dir
    from ..escape import csv_cell
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
    table = io.StringIO()
    w = csv.writer(table, lineterminator="\n")
    w.writerow(["method", "topics", "interval"])
    w.writerows([csv_cell(c) for c in r] for r in rows)
    write_dir(out, {FIGURE: figure.getvalue(), TABLE: table.getvalue()}, given=given, what="design output")
