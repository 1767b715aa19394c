"""``irrepro compare``: the results table of a paper (means, significance marks, adjusted p-values, intervals), its ANOVA and its methods paragraph."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from . import _options as opt


def add_parser(sub) -> None:
    """``irrepro compare``: runs x measures with significance tests, as a paper's table."""
    from ..significance import CORRECTIONS, EFFECT_SIZES, TESTS
    from ..significance import FORMATS as TABLE_FORMATS

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
the difference from the baseline (or, without one, of the mean). --effect-size d_z or ES_E adds,
beside each run's difference from the baseline, its standardized mean difference with a BCa
bootstrap interval over topics (Sakai's recommendation: how large a difference is, beside whether
it is significant). Which test and effect size to trust on how many topics: the book's chapter
"Which test?" (notebooks/which_test.md).

Tests (--test): paired-t (default), wilcoxon, sign (equal to scipy's ttest_rel, wilcoxon,
binomtest), bootstrap (Sakai's paired bootstrap test, B = 1000), permutation (the paired
randomization test, exact for up to log2(B) topics, B = 10,000), tukey (randomised Tukey HSD,
B = 10,000: family-wise by itself, no --correction), unpaired-bootstrap (Sakai's unpaired test,
B = 1000) and bootstrap-shift (the unstudentised bootstrap test of the mean difference,
B = 1000). Formats: text, markdown, latex (a table float with booktabs rules:
\\usepackage{booktabs}), csv (every number).

Resamples (-B, the test's, --intervals' and --effect-size's, and --anova's): at least 100; a test
at --alpha needs B >= 1/alpha (its p-value, a count of resamples over B, falls between 0 and alpha
only then), and with a correction over m >= 2 pairs of a measure (S - 1 with --baseline,
S (S - 1) / 2 without) B >= 20 m / alpha, so that the correction's smallest threshold, alpha / m,
is resolved; an interval at --level at least one resample beyond each end, B (1 - level) / 2 >= 1
(1000 serve up to 99.8%). Fewer are refused, naming the B that serves, before any work. Without -B
a resampling test's default is raised to 20 m / alpha, rounded up to a multiple of 1000, and a
line on stderr says so.

--methods prints the methods paragraph of the comparison after the table, ready to paste into a
paper (Markdown; LaTeX with --format latex): the test and its tails, the correction and alpha, the
topics and how a topic missing from a run was scored, the measures with their trec_eval names and
cutoffs, the intervals, the seed, the resamples and the software versions; --methods-file FILE
writes it to FILE instead. FILE must be new, or a file irrepro wrote there before (the record
.irrepro-files beside it lists what irrepro wrote, with sha256): irrepro never writes over an input
or a file of yours, nor into a runs directory, and says so before any work.""",
    )
    opt.inputs_and_measures(p, "AP, P@10, nDCG@10, ...")
    p.add_argument(
        "--baseline", metavar="RUN", help="the run every other run is compared with (its name or its file)"
    )
    p.add_argument("--test", choices=list(TESTS), default="paired-t", help="the test (default paired-t)")
    p.add_argument(
        "--correction",
        choices=list(CORRECTIONS),
        help="adjustment over the comparisons of a measure (statsmodels' names): holm (default), "
        "fdr_bh (Benjamini-Hochberg), bonferroni or none; tukey takes none",
    )
    p.add_argument(
        "--alpha", type=opt.alpha, default=0.05, help="significance level of the marks (default 0.05)"
    )
    p.add_argument("--intervals", action="store_true", help="add BCa bootstrap intervals")
    p.add_argument(
        "--effect-size",
        choices=list(EFFECT_SIZES),
        help="add each run's standardized mean difference from the baseline with its BCa bootstrap interval "
        "over topics (at --level, from -B topic samples, those of --intervals): d_z, mean(z) / sd(z) of the "
        "per-topic differences z, or ES_E, Sakai's difference over the residual standard deviation of the "
        'two-way ANOVA of all the runs; needs --baseline (see the book\'s chapter "Which test?", '
        "notebooks/which_test.md)",
    )
    p.add_argument(
        "--level",
        type=opt.level,
        default=0.95,
        help="confidence level of the intervals: a fraction (default 0.95) or a percentage (95)",
    )
    p.add_argument(
        "-B",
        dest="B",
        type=opt.int_at_least(1),
        help="resamples of the resampling test (default 1000; permutation and tukey 10000; raised to "
        "20 m / alpha for a correction over m pairs), of --intervals and --effect-size (default 1000) and "
        "of --anova's randomised Tukey HSD (default 10000): at least 100, at least 1/alpha for a test and "
        "20 m / alpha with a correction (fewer are refused), and B (1 - level) / 2 >= 1 for an interval",
    )
    opt.seed_option(p)
    opt.parallel_options(p)
    p.add_argument(
        "--format", choices=list(TABLE_FORMATS), default="text", help="output format (default text)"
    )
    p.add_argument("--digits", type=opt.digits, default=4, help="decimals shown, 0 to 17 (default 4)")
    opt.rel_option(p)
    opt.data_options(p)
    p.add_argument(
        "--anova",
        action="store_true",
        help="also print each measure's two-way ANOVA and all pairs by Tukey HSD, classical and randomised",
    )
    p.add_argument(
        "--methods",
        action="store_true",
        help="also print the methods paragraph of the comparison after the table: Markdown, LaTeX with "
        "--format latex (not with --format csv: use --methods-file)",
    )
    p.add_argument(
        "--methods-file",
        metavar="FILE",
        help="write the methods paragraph to FILE instead (LaTeX with --format latex, else Markdown); "
        "FILE must be new or written by irrepro before",
    )
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from .. import measures, significance
    from .._measure_names import require_per_topic

    for m in args.measures:  # the tests, means and intervals are of per-topic scores
        require_per_topic(m, "irrepro compare")
    if args.methods and args.methods_file is None and args.format == "csv":
        raise InputError("--methods prints prose after the table, which would break the CSV: "
                         "give --methods-file FILE to write the paragraph to a file")  # fmt: skip
    from ..significance.comparison import _check_resamples, _comparisons, _test_resamples

    if args.effect_size is not None and args.baseline is None:
        raise InputError("--effect-size is each run's against the baseline: give --baseline RUN")
    # before any work: resamples enough for the test at --alpha, the intervals at --level, --anova's Tukey HSD
    resampled = args.intervals or args.effect_size is not None
    _check_resamples(args.test, args.B, args.alpha, resampled, args.B, args.level, ("-B", "-B"))
    if args.anova:
        _check_resamples("tukey", args.B, args.alpha, names=("-B", "-B"))
    if args.methods_file is not None:  # before any work: never over an input or a file of the user's
        from .._outputs import check_file

        inputs = [*args.runs, args.qrels, *([args.baseline] if args.baseline else [])]
        check_file(args.methods_file, inputs=inputs, option="--methods-file")
    rs = opt.runset(args, "compare", min_runs=2)
    baseline = opt.baseline_run(args.baseline, rs.runs)
    banner = opt.notes("compare", args.qrels, rs, "results")
    correction = args.correction
    # before any test: the test's resamples for its correction over the pairs of a measure (said when raised)
    m = _comparisons(len(rs.runs), baseline)
    B, raised = _test_resamples(args.test, args.B, args.alpha, correction, m, "-B")
    if raised:
        opt.err("compare", raised)
    scores = measures.evaluate(rs, args.measures, rel=args.rel)
    table = significance.compare(
        scores, baseline=baseline, test=args.test, correction=correction, alpha=args.alpha,
        intervals=args.intervals, effect_size=args.effect_size, level=args.level, B=B, B_intervals=args.B,
        seed=args.seed, n_jobs=args.jobs, digits=args.digits,
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
    """``irrepro compare --methods``: the methods paragraph after the table, or into ``--methods-file``."""
    from ..escape import plain, shell
    from ..significance import methods_paragraph
    from ..significance.comparison import B_INTERVALS
    from ..stats import level_percent

    r = table.test
    fmt = "latex" if args.format == "latex" else "markdown"
    missing = sum(1 for c in rs._coverage() if c["missing"])
    es = () if args.effect_size is None else (args.effect_size,)
    es_ci = [f"Each run's {k} against the baseline has a {level_percent(table.level)} bias-corrected and "
             f"accelerated (BCa) bootstrap interval from {args.B or B_INTERVALS:,} bootstrap samples of the "
             "topics." for k in es]  # fmt: skip
    cmd = " ".join(["irrepro", "compare", *map(shell, sys.argv[2:])]) if sys.argv[1:2] == ["compare"] else ""
    text = methods_paragraph(
        table.measures, n_topics=r.n_topics, n_runs=len(table.runs), test=r.test,
        correction=r.correction if r.test != "tukey" else "none", alpha=table.alpha,
        alternative=r.alternative, baseline=table.baseline, n_comparisons=len(r.pairs),
        B=r.B or None, exact=r.exact, effect_sizes=("difference", *es, "win-tie-loss"), analyses=es_ci,
        interval="bca" if table.low is not None else None,
        interval_of="difference" if table.baseline is not None else "mean", level=table.level,
        B_interval=args.B or B_INTERVALS, seed=args.seed, rel=args.rel, precision=rs.precision, missing_runs=missing, qrels=str(args.qrels),
        command=cmd,
    ).render(fmt)  # fmt: skip
    if args.methods_file is None:
        sys.stdout.write("\n" + text)
        return
    from .._outputs import write_file

    write_file(args.methods_file, text, option="--methods-file")
    print(f"methods paragraph: {plain(args.methods_file)}", file=sys.stderr)


def _anova_text(scores, args: argparse.Namespace) -> str:
    """``irrepro compare --anova``: per measure, the two-way ANOVA and Tukey HSD's pairs, or why it has none."""
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
