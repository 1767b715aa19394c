"""What the commands of the ``irrepro`` command line share: option types, options and stderr lines."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ..parallel import check_jobs, check_scale


def int_at_least(minimum: int):
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


def checked(check, name: str):
    """An argparse ``type`` from one of irrepro's validators, ``check(text, name)``, its InputError argparse's message."""

    def parse(text: str):
        try:
            return check(text, name)
        except InputError as exc:
            msg = str(exc)
            msg = msg[len(name) + 1 :] if msg.startswith(name + " ") else msg
            raise argparse.ArgumentTypeError(msg) from None

    parse.__name__ = name
    return parse


def _level(text: str, name: str) -> float:
    from ..stats import check_level

    try:
        value = float(text)
    except ValueError:
        raise InputError(
            f"{name} must be a number, a fraction in (0, 1) or a percentage in [50, 100); got {text!r}"
        ) from None
    return check_level(value, name)


def _digits(text: str, name: str) -> int:
    from .._text import check_digits

    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{name} must be an integer, got {text!r}") from None
    return check_digits(value, name)


def number(name: str, ok, words: str):
    """An argparse ``type``: a number ``ok`` accepts (never NaN), else "``name`` must be ``words``"."""

    def parse(text: str, name: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not ok(value):
            raise InputError(f"{name} must be {words}, got {text!r}")
        return value

    return checked(parse, name)


def fraction(name: str):
    """A number in (0, 1) for option ``name`` (--alpha, --power)."""
    return number(name, lambda v: 0 < v < 1, "a number in (0, 1)")


def share(name: str):
    """A number in [0, 1) for option ``name`` (--drop-worst)."""
    return number(name, lambda v: 0 <= v < 1, "a number in [0, 1)")


def positive(name: str):
    """A finite number > 0 for option ``name`` (--min-diff, --variance)."""
    return number(name, lambda v: 0 < v < float("inf"), "a number > 0")


jobs = checked(check_jobs, "--jobs")
scale = checked(check_scale, "--scale")
level = checked(_level, "--level")
alpha = fraction("--alpha")
digits = checked(_digits, "--digits")


def scheduler(text: str) -> str:
    from .. import parallel

    try:
        return parallel.scheduler(text) or ""
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a Dask scheduler address (tcp://host:8786) or 'local', got {text!r}"
        ) from None


SCHEDULER_HELP = (
    "run the tasks on a Dask cluster: its scheduler's address (tcp://host:8786) or 'local' "
    "(a cluster of this machine's cores); default IRREPRO_SCHEDULER, else this process's "
    "--jobs workers; the numbers do not depend on it (needs pip install 'irrepro[dask]')"
)


#: What every ``--scale`` says of its words (IRREPRO_SCALE's, checked by irrepro.parallel.check_scale).
SCALE_WORDS = (
    "paper (the papers' sizes), quick (small ones, for a first look) or full (paper, and more where "
    "the book's known-truth chapter ran more), in any case; default IRREPRO_SCALE, else paper"
)


SIMULATED_HELP = (
    "when --qrels names a collection of the book whose files cannot be had (no network, no "
    "IRREPRO_MIRROR, empty cache), use its simulated stand-in instead of stopping with an error; "
    "everything computed from it says SIMULATED in its first line"
)
PRECISION_HELP = (
    "ranking precision of the scores: float32 (default: trec_eval <= 9.0.8, pytrec_eval and NIST's "
    "official scores, where scores equal to 7 digits tie and the document id decides) or float64 "
    "(trec_eval 10)"
)


def inputs_and_measures(p: argparse.ArgumentParser, examples: str) -> None:
    """The options eval and compare share: --qrels, the run files and repeatable -m."""
    p.add_argument("--qrels", required=True, help="qrels file, ir_datasets id or collection name")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files or directories of run files")
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        required=True,
        help=f"measure name, repeatable: {examples}",
    )


def parallel_options(p: argparse.ArgumentParser, default: str = "1") -> None:
    """-j/--jobs and --scheduler, as report and compare take them (``default``: the help's default count)."""
    p.add_argument(
        "-j",
        "--jobs",
        type=jobs,
        help=f"workers, >= 1 or -1 for all cores (default IRREPRO_JOBS or {default}; the numbers do not depend on it)",
    )
    p.add_argument("--scheduler", type=scheduler, metavar="ADDRESS", help=SCHEDULER_HELP)


def seed_option(p: argparse.ArgumentParser, what: str = "every random step") -> None:
    """--seed, as every command with a random step takes it."""
    p.add_argument("--seed", type=int_at_least(0), default=0, help=f"seed of {what} (default 0)")


def data_options(p: argparse.ArgumentParser) -> None:
    """--precision and --allow-simulated, as every command that reads runs and qrels takes them."""
    p.add_argument("--precision", choices=["float32", "float64"], help=PRECISION_HELP)
    p.add_argument("--allow-simulated", action="store_true", help=SIMULATED_HELP)


def rel_option(p: argparse.ArgumentParser) -> None:
    """-l/--rel, the lowest relevant grade, as every command that scores runs takes it."""
    p.add_argument("-l", "--rel", type=int_at_least(1), default=1, metavar="LEVEL",
                   help="lowest relevant grade (trec_eval -l; default 1)")  # fmt: skip


def table_lines(fmt: str, head, rows, caption: str = "", align: str = "", raw=()) -> list[str]:
    """A Markdown or LaTeX (booktabs) table's lines, every cell escaped but, in Markdown, the columns ``raw``."""
    from ..escape import latex, markdown

    if fmt == "markdown":

        def line(cells) -> str:
            return "| " + " | ".join(c if i in raw else markdown(c) for i, c in enumerate(cells)) + " |"

        top = [markdown(caption), ""] if caption else []
        return [*top, line(head), "|" + "---|" * len(head), *map(line, rows)]
    top = [f"% {caption}"] if caption else []
    spec = align or "l" + "r" * (len(head) - 1)
    lines = [" & ".join(map(latex, r)) + r" \\" for r in [head, *rows]]
    lines.insert(1, r"\midrule")  # under the header
    return [*top, rf"\begin{{tabular}}{{{spec}}}", r"\toprule", *lines, r"\bottomrule", r"\end{tabular}"]


def err(command: str, message: str) -> None:
    """``message`` on stderr as one line, ``irrepro COMMAND: ...``, through :func:`irrepro.escape.plain`."""
    from ..escape import plain

    print(plain(f"irrepro {command}: {message}"), file=sys.stderr)


def runset(args: argparse.Namespace, command: str, min_runs: int = 1):
    """The RunSet of ``args.runs`` and ``args.qrels`` (with --allow-simulated and --precision)."""
    from .._user_inputs import load

    rs = load(args.runs, args.qrels, allow_simulated=args.allow_simulated, precision=args.precision).runset
    if len(rs.runs) < min_runs:
        raise InputError(f"{command} needs at least {min_runs} runs, got {len(rs.runs)}")
    return rs


def warn_coverage(command: str, rs, average: str = "all-topics") -> None:
    """One stderr line per run whose topics differ from the qrels' (of a RunSet ``rs``, or its coverage rows)."""
    from .._text import few

    fate = "scored 0 (trec_eval -c)" if average == "all-topics" else "left out of its average"
    for r in rs._coverage() if hasattr(rs, "_coverage") else rs:  # (coverage()'s rows, without pandas)
        if not r["missing"] and not r["ignored"]:
            continue
        parts = [f"run {r['run']}: {r['retrieved']} of the {r['topics']} qrels topics retrieved"]
        if r["missing"]:
            parts.append(f"{len(r['missing'])} missing, {fate}: {few(r['missing'])}")
        if r["ignored"]:
            parts.append(f"{len(r['ignored'])} run topics not in the qrels, ignored: {few(r['ignored'])}")
        err(command, "; ".join(parts))


def notes(command: str, qrels, rs, what: str, average: str = "all-topics") -> str:
    """The banner of the simulated stand-in ("" for real qrels), first line of everything computed on it,
    on stderr with the coverage lines (:func:`warn_coverage`)."""
    banner = ""
    if rs.simulated:
        banner = (
            f"SIMULATED DATA: the qrels {qrels!r} are irrepro's simulated stand-in, not real "
            f"judgments; these {what} describe no real system"
        )
        err(command, banner)
    warn_coverage(command, rs, average)
    return banner


def baseline_run(baseline: str | None, runs=None) -> str | None:
    """The run ``--baseline`` names (a run's name, or a run file's path), checked against ``runs`` if given."""
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
