"""The ``irrepro`` command line.

    irrepro data status               where every collection's files are found, verified or missing
    irrepro data fetch [NAME|all]     put collections into the cache (mirror or download), verified
    irrepro eval --qrels Q RUN... -m AP -m nDCG@10 [-q] [-c | --average run-topics] [-M N] [-l N]
                                      score runs like trec_eval: run<TAB>measure<TAB>value, or
                                      --format trec_eval|csv|json
    irrepro compare --qrels Q RUN... -m AP -m nDCG@10 [--baseline RUN] [--test T] [--format F]
                                      the results table of a paper: means, significance marks,
                                      adjusted p-values, intervals (text, markdown, latex, csv);
                                      --anova adds the ANOVA table and all pairs by Tukey HSD;
                                      --methods the methods paragraph (--methods-file FILE)
    irrepro design --qrels Q RUN... -m nDCG@10 --min-diff 0.02 [--power 0.8] [--systems m] [--simulate]
                                      how many topics a study needs, from pilot runs (table, figure)
    irrepro standardize --qrels Q RUN... -m AP (--export-zscores FILE | --zscores FILE)
                                      standardization factors for trec_eval -Z, or such a file applied
    irrepro reproduce ORIG_BASELINE ORIG_ADVANCED REPRO_BASELINE REPRO_ADVANCED --qrels Q [-m AP]
                                      [--repro-qrels Q2] [--resamples N] [--seed N] [--format F]
                                      how far a reproduction got: KTU, RBO, RMSE, ER, Delta RI,
                                      p-values, each with an interval (four files or directories)
    irrepro report RUNS_DIR --qrels Q [--out DIR] [-m AP] [--seed N] [--test T] [--baseline RUN]
                                      the four papers' analyses of your runs as one HTML report,
                                      its methods as methods.md, methods.tex and ir_metadata.yml

Every problem with the input (a malformed file, a missing one, a bad option, an unknown name, data
not to be had) is an :class:`irrepro.InputError`: one line on stderr naming the file, the line and
the problem, and exit status 2, for every command alike. Anything else is a bug in irrepro: its
traceback, a line asking to report it, and exit status 1. Ctrl-C prints "interrupted" and exits
with 130.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
import warnings

from ..errors import ISSUES_URL, InputError

# the parser, and the commands it calls, live in the private modules _parser and _commands;
# served from here as before (``python -m irrepro.cli`` runs __main__.py)
from ._commands import AGGREGATES, AVERAGES, FORMATS, _err, write_scores  # noqa: F401
from ._parser import build_parser


def _explain(exc: BaseException, args: argparse.Namespace) -> str:
    """One line for a failure: the data layer's messages already name file, line and problem; an
    OSError is given its file name."""
    from .. import data

    if isinstance(exc, OSError) and not isinstance(exc, data.DataUnavailable):
        name = exc.filename or ""
        text = exc.strerror or str(exc)
        return f"{name}: {text}" if name else text
    msg = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if (isinstance(exc, data.DataUnavailable) and not isinstance(exc, data.CacheError)
            and str(getattr(args, "qrels", "")) in data.COLLECTIONS):  # fmt: skip
        msg += (
            " (irrepro answers a request for real data with real data only; --allow-simulated "
            "uses the book's simulated stand-in, labelled as such)"
        )
    return msg


def main(argv: list[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):  # `irrepro ... | head` exits quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if argv is None:  # the command's own process (not a call from Python): pyarrow not loaded yet
        # pyarrow on the C library's allocator: what reading the runs frees goes back to the system
        # (irrepro.data's _release_memory), where mimalloc, pyarrow's default, keeps ~60 MB of 126
        # runs' parsing for good (irrepro report: 390 -> 332 MB while loading, and no slower). A
        # value the user set wins.
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a bad option (2, message printed)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command in ("report", "compare"):  # no progress-bar monitor thread to interrupt at exit
        import tqdm

        tqdm.tqdm.monitor_interval = 0
    shown = warnings.formatwarning
    warnings.formatwarning = _format_warning  # "irrepro: warning: ...", not Python's source line
    try:
        if hasattr(args, "jobs") or hasattr(args, "scale"):
            from .. import parallel

            # the environment is read here (and in the book's configuration) only, and passed down:
            # report, compare: -j or IRREPRO_JOBS, checked before any work; report: --scale or IRREPRO_SCALE
            if hasattr(args, "jobs"):
                args.jobs = parallel.env_jobs() if args.jobs is None else args.jobs
            if getattr(args, "scale", "") is None:
                args.scale = parallel.scale()
        if getattr(args, "scheduler", None):  # report, compare --scheduler
            from .. import parallel

            with parallel.using_scheduler(args.scheduler):
                return args.func(args)
        return args.func(args)
    except KeyboardInterrupt:
        print("\nirrepro: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if _interrupted(exc):  # Ctrl-C inside a library that wraps it (e.g. during an import)
            print("\nirrepro: interrupted", file=sys.stderr)
            return 130
        if not _users(exc):
            traceback.print_exc()
            print(
                f"irrepro: this is a bug in irrepro, not in your input - please report it with the command "
                f"and the traceback above: {ISSUES_URL}",
                file=sys.stderr,
            )
            return 1
        _err(args.command, _explain(exc, args))
        return 2
    finally:
        warnings.formatwarning = shown


def _users(exc: BaseException) -> bool:
    """Whether ``exc`` is the user's to fix: an :class:`~irrepro.InputError`, or an OSError on a
    file the user named (a run file without read permission, an unwritable ``--out``: it carries
    the path). Anything else is a bug in irrepro."""
    return isinstance(exc, InputError) or (isinstance(exc, OSError) and exc.filename is not None)


def _format_warning(message, category, filename, lineno, line=None) -> str:
    """A warning as the command line prints it: one line, no Python source."""
    return f"irrepro: warning: {message}\n"


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by a KeyboardInterrupt (its chain of causes and contexts)."""
    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False
