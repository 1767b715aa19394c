"""The option types and help texts several commands of the ``irrepro`` command line share
(:mod:`irrepro.cli._parser` builds the parser with them): integers with a floor, irrepro's own
validators as argparse types (the same checks, and messages, as the Python API's), the scheduler's
address, and the run files with their qrels and measures."""

from __future__ import annotations

import argparse

from ..errors import InputError


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
            msg = msg[len(name) + 1 :] if msg.startswith(name + " ") else msg
            raise argparse.ArgumentTypeError(msg) from None

    parse.__name__ = name
    return parse


def _jobs_value(text: str) -> int:
    from ..parallel import check_jobs

    return check_jobs(text, "--jobs")


def _level_value(text: str) -> float:
    from ..stats import check_level

    try:
        value = float(text)
    except ValueError:
        raise InputError(
            f"--level must be a number, a fraction in (0, 1) or a percentage in [50, 100); got {text!r}"
        ) from None
    return check_level(value, "--level")


def _digits_value(text: str) -> int:
    from .._text import check_digits

    try:
        value = int(text)
    except ValueError:
        raise InputError(f"--digits must be an integer, got {text!r}") from None
    return check_digits(value, "--digits")


def _number(name: str, ok, words: str):
    """An argparse ``type``: a number for option ``name`` that ``ok`` accepts (NaN never), else an
    error saying it must be ``words``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not ok(value):
            raise InputError(f"{name} must be {words}, got {text!r}")
        return value

    return _checked(parse, name)


def _fraction(name: str):
    """A number in (0, 1) for option ``name`` (--alpha, --power)."""
    return _number(name, lambda v: 0 < v < 1, "a number in (0, 1)")


def _share(name: str):
    """A number in [0, 1) for option ``name`` (--drop-worst)."""
    return _number(name, lambda v: 0 <= v < 1, "a number in [0, 1)")


def _positive(name: str):
    """A finite number > 0 for option ``name`` (--min-diff, --variance)."""
    return _number(name, lambda v: 0 < v < float("inf"), "a number > 0")


def _scale_value(text: str) -> str:
    from ..parallel import check_scale

    return check_scale(text, "--scale")


_jobs = _checked(_jobs_value, "--jobs")
_scale = _checked(_scale_value, "--scale")
_level = _checked(_level_value, "--level")
_alpha = _fraction("--alpha")
_digits = _checked(_digits_value, "--digits")


def _scheduler(text: str) -> str:
    from .. import parallel

    try:
        return parallel.scheduler(text) or ""
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a Dask scheduler address (tcp://host:8786) or 'local', got {text!r}"
        ) from None


_SCHEDULER_HELP = (
    "run the tasks on a Dask cluster: its scheduler's address (tcp://host:8786) or 'local' "
    "(a cluster of this machine's cores); default IRREPRO_SCHEDULER, else this process's "
    "--jobs workers; the numbers do not depend on it (needs pip install 'irrepro[dask]')"
)


#: What every ``--scale`` says of its words (IRREPRO_SCALE's, checked by irrepro.parallel.check_scale).
_SCALE_WORDS = (
    "paper (the papers' sizes), quick (small ones, for a first look) or full (paper, and more where "
    "the book's known-truth chapter ran more), in any case; default IRREPRO_SCALE, else paper"
)


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
    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        required=True,
        help=f"measure name, repeatable: {examples}",
    )


def _parallel_options(p: argparse.ArgumentParser, default: str = "1") -> None:
    """-j/--jobs and --scheduler, as report and compare take them (``default``: the help's words
    for the count when neither -j nor IRREPRO_JOBS gives one)."""
    p.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        help=f"workers, >= 1 or -1 for all cores (default IRREPRO_JOBS or {default}; the numbers do not depend on it)",
    )
    p.add_argument("--scheduler", type=_scheduler, default=None, metavar="ADDRESS", help=_SCHEDULER_HELP)


def _rel_option(p: argparse.ArgumentParser) -> None:
    """-l/--rel, the lowest relevant grade, as every command that scores runs takes it."""
    p.add_argument("-l", "--rel", type=_int_at_least(1), default=1, metavar="LEVEL",
                   help="lowest relevant grade (trec_eval -l; default 1)")  # fmt: skip
