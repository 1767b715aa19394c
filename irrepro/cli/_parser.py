"""The parser of the ``irrepro`` command line (:mod:`irrepro.cli`): its options, their checks (the
same validators as the Python API's, so the messages agree) and their help."""

from __future__ import annotations

import argparse
from typing import NoReturn

from ..errors import InputError
from ._commands import (
    AGGREGATES,
    AVERAGES,
    FORMATS,
    _data_fetch,
    _data_status,
    _eval,
    _report,
)
from ._compare_parser import _compare_parser
from ._design import FIGURE, TABLE, _design
from ._options import (
    _PRECISION_HELP,
    _SCALE_WORDS,
    _SIMULATED_HELP,
    _alpha,
    _checked,
    _digits,
    _fraction,
    _inputs_and_measures,
    _int_at_least,
    _jobs,
    _level,
    _parallel_options,
    _positive,
    _rel_option,
    _scale,
    _share,
)
from ._reproduce import _reproduce_parser
from ._standardize import _standardize

__all__ = ["build_parser"]

#: The parser's description: the first line of :mod:`irrepro.cli`'s docstring.
_DESCRIPTION = "The ``irrepro`` command line."


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
    """argparse's parser whose options store with :class:`_Once` unless they say otherwise, and
    whose errors are one line; its sub-commands' parsers are of this class too."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)

    def error(self, message: str) -> NoReturn:
        """argparse's usage and one line for a bad command line, the user's text in it made
        visible (:func:`irrepro.escape.plain`: ``unrecognized arguments: --bo\\u202e``)."""
        from ..escape import plain

        super().error(plain(message))


# --------------------------------------------------------------------------------------------
# the parser
# --------------------------------------------------------------------------------------------


def _sizes(name: str):
    """An argparse ``type``: comma-separated whole numbers >= 1 (``--topics 50,100,150``)."""

    def parse(text: str) -> list[int]:
        try:
            values = [int(v) for v in text.split(",")]
        except ValueError:
            values = []
        if not values or min(values) < 1:
            raise InputError(f"{name} must be whole numbers >= 1 separated by commas, got {text!r}")
        return sorted(set(values))

    return _checked(parse, name)


def _design_parser(sub) -> None:
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
    p.add_argument("--variance", type=_positive("--variance"), metavar="V",
                   help="instead of a pilot: size the study from a variance estimate V_E alone (Sakai's "
                        "calculators), with --min-diff")  # fmt: skip
    p.add_argument("-m", "--measure", help="the measure, e.g. nDCG@10, AP, P@10 (with runs; with --scores "
                                           "its name, default 'score')")  # fmt: skip
    p.add_argument("--min-diff", type=_positive("--min-diff"),
                   help="the smallest difference of means to detect (the CI width for the CI method); below 1 "
                        "for a measure in [0, 1]; without it, generalizability theory only")  # fmt: skip
    p.add_argument(
        "--topics",
        type=_sizes("--topics"),
        default=None,
        metavar="N,N,...",
        help="topic-set sizes of the D-study (default the pilot's, 25, 50, 100 and 200)",
    )
    p.add_argument("--drop-worst", type=_share("--drop-worst"), default=0.0, metavar="FRACTION",
                   help="drop the runs whose mean is below this quantile of the runs' means first, as "
                        "gt4ireval's drop (default 0: none)")  # fmt: skip
    p.add_argument(
        "--level",
        type=_level,
        default=0.95,
        help="confidence level of every interval, a fraction or a percentage (default 0.95)",
    )
    p.add_argument("--format", choices=("text", "json", "markdown", "latex"), default="text",
                   help="output format (default text)")  # fmt: skip
    p.add_argument(
        "--power", type=_fraction("--power"), default=0.8, help="power wanted, above --alpha (default 0.8)"
    )
    p.add_argument("--alpha", type=_alpha, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--systems", type=_int_at_least(2), default=2,
                   help="m, the systems the study compares (ANOVA method, simulated correction; default 2)")  # fmt: skip
    p.add_argument("--simulate", action="store_true", help="also the power simulated from the pilot")
    p.add_argument(
        "--test", choices=list(TESTS), default="paired-t", help="the simulated test (default paired-t)"
    )
    p.add_argument("--correction", choices=list(CORRECTIONS), default=None,
                   help="adjustment over the m systems' pairs in the simulation (default none)")  # fmt: skip
    p.add_argument("--scale", type=_scale, default=None, metavar="SCALE",
                   help=f"simulation precision, 24,000 trials per size or 600 at quick: {_SCALE_WORDS}")  # fmt: skip
    p.add_argument("-B", dest="B", type=_int_at_least(0), default=1000,
                   help="bootstrap samples of the pilot's topics for the 95%% intervals: 0 (no interval) or "
                        "at least 100, one beyond each end of the interval (default 1000)")  # fmt: skip
    p.add_argument("--sim-B", dest="sim_B", type=_int_at_least(1), default=None,
                   help="resamples of a simulated resampling test: at least 100 and 1/alpha, so that its "
                        "p-value can fall between 0 and alpha (default by --scale: 1000, 200 at quick)")  # fmt: skip
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of every random step (default 0)")
    p.add_argument("--out", default="irrepro-design", help="output directory (default irrepro-design)")
    p.add_argument("-j", "--jobs", type=_jobs, default=None,
                   help="workers (default IRREPRO_JOBS or 1; the numbers do not depend on it)")  # fmt: skip
    _rel_option(p)
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.set_defaults(func=_design)


def _standardize_parser(sub) -> None:
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
    _inputs_and_measures(p, "AP, nDCG@10, P@10, AP(rel=2) (per-topic measures trec_eval has; not a "
                            "geometric mean over topics, gm_map or G_AP: standardize AP)")  # fmt: skip
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--export-zscores", metavar="FILE",
                     help="write the factors to FILE (new, or written by irrepro before: never an input or a "
                     "file of yours)")  # fmt: skip
    how.add_argument("--zscores", metavar="FILE", help="apply the factors in FILE to the runs")
    _rel_option(p)
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.set_defaults(func=_standardize)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="irrepro", description=_DESCRIPTION)
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
    _inputs_and_measures(p, "AP, P@10, nDCG@20, Q, RBP(p=0.95), Rndcg, ... (all of trec_eval -m all_trec)")
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
        type=_int_at_least(1),
        default=None,
        metavar="DEPTH",
        help="use only the first DEPTH documents of every ranked list (trec_eval -M)",
    )
    _rel_option(p)
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
        "--digits", type=_digits, default=4, help="decimals printed by tsv and trec_eval, 0 to 17 (default 4)"
    )
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.set_defaults(func=_eval, average="all-topics")

    _compare_parser(sub)
    from ..significance import TESTS

    _design_parser(sub)
    _standardize_parser(sub)
    _reproduce_parser(sub)

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
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of every random step (default 0)")
    _rel_option(p)
    p.add_argument(
        "--scale", type=_scale, default=None, metavar="SCALE", help=f"the analyses' sizes: {_SCALE_WORDS}"
    )
    _parallel_options(p, default="-1, all cores")
    p.add_argument(
        "--test",
        choices=list(TESTS),
        default="bootstrap",
        help="the test of the pairs of runs (default bootstrap, Sakai's paired bootstrap test)",
    )
    p.add_argument(
        "--baseline",
        default=None,
        metavar="RUN",
        help="test only the baseline run against every other (its name), adjusting over those pairs",
    )
    p.add_argument("--precision", choices=["float32", "float64"], default=None, help=_PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=_SIMULATED_HELP)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_report)
    return parser
