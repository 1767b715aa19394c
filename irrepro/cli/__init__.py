"""The ``irrepro`` command line: one module per command (``irrepro --help`` lists them).

Every problem with the input (a malformed file, a missing one, a bad option, an unknown name, data
not to be had) is an :class:`irrepro.InputError`: one line on stderr naming the file, the line and
the problem, and exit status 2, for every command alike. Anything else is a bug in irrepro: its
traceback, a line asking to report it, and exit status 1. Ctrl-C prints "interrupted" and exits
with 130. Output that cannot be written - a full disk (``> /dev/full``), a pipe whose reader has
gone (``| head``), a closed stdout - ends the command with one line on stderr ("irrepro eval:
cannot write the output: No space left on device") and exit status 1.
"""

from __future__ import annotations

import argparse
import errno
import functools
import os
import sys
import traceback
import warnings
from typing import NoReturn

from ..errors import ISSUES_URL, InputError

# one module per command; ``python -m irrepro.cli`` runs __main__.py
from . import _compare, _data, _design, _eval, _report, _reproduce, _standardize
from . import _options as opt


class _Once(argparse.Action):
    """Stores an option's value and refuses the option given twice: every single-valued option's action."""

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
    """argparse's parser whose options store with :class:`_Once` by default, and whose errors are one line."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)

    def error(self, message: str) -> NoReturn:
        """argparse's usage and one line for a bad command line (through :func:`irrepro.escape.plain`)."""
        from ..escape import plain

        super().error(plain(message))


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    parser = _Parser(prog="irrepro", description="The ``irrepro`` command line.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in (_data, _eval, _compare, _design, _standardize, _reproduce, _report):
        command.add_parser(sub)
    return parser


def _explain(exc: BaseException, args: argparse.Namespace) -> str:
    """One line for a failure (the data layer's messages name file and line; an OSError gets its file)."""
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


class _OutputFailed(OSError):
    """Writing the command's output (stdout) failed: a full disk, a pipe without reader, ..."""


class _Stdout:
    """``sys.stdout`` while a command runs: a failure to write it is an :class:`_OutputFailed`."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.failed: _OutputFailed | None = None  # the first failure (also when a caller swallowed it)

    def _call(self, name: str, *args):
        if self._stream is None:  # started with stdout closed (`irrepro ... >&-`)
            self.failed = self.failed or _OutputFailed(errno.EBADF, "standard output is closed")
            raise self.failed
        try:
            return getattr(self._stream, name)(*args)
        except UnicodeError:  # (a ValueError, but irrepro's: every name is escaped before it is written)
            raise
        except (OSError, ValueError) as exc:  # ValueError: "I/O operation on closed file"
            code = getattr(exc, "errno", None) or errno.EIO
            failed = _OutputFailed(code, getattr(exc, "strerror", None) or str(exc))
            self.failed = self.failed or failed
            raise failed from exc

    def __getattr__(self, name: str):
        if name in ("write", "writelines", "flush"):
            return functools.partial(self._call, name)
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """Run the command of ``argv`` (None: the process's arguments); its exit status (module docstring)."""
    stdout = sys.stdout
    out = _Stdout(stdout)
    sys.stdout = out  # (a failure to write it named as such)
    given = sys.argv[1:] if argv is None else argv
    command = str(given[0]) if given and not str(given[0]).startswith("-") else ""  # (until parsed)
    try:
        if argv is None:  # the command's own process (not a call from Python): pyarrow not loaded yet
            # pyarrow on the C library's allocator: what reading the runs frees goes back to the
            # system (irrepro.data's _release_memory), where mimalloc, pyarrow's default, keeps ~60
            # MB of 126 runs' parsing for good (irrepro report: 390 -> 332 MB while loading, and no
            # slower). A value the user set wins.
            os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # argparse: --help (0) or a bad option (2, message printed)
            status = exc.code if isinstance(exc.code, int) else 2
        else:
            command = args.command
            status = _run(args)
        out.flush()  # (what is still buffered fails here, not at exit)
        if out.failed is not None:  # a failure someone caught (argparse's --help ignores its own)
            raise out.failed
        return status
    except _OutputFailed as exc:
        return _output_failed(command, exc, stdout if argv is None else None)
    finally:
        sys.stdout = stdout


def _output_failed(command: str, exc: _OutputFailed, stdout) -> int:
    """One line on stderr for output that cannot be written, exit status 1; ``stdout`` then to the null device."""
    from ..escape import plain

    try:
        fd = stdout.fileno() if stdout is not None else -1
    except (OSError, ValueError):  # (closed, or not a file)
        fd = -1
    if fd >= 0:  # what it still buffers dropped at exit, not failing again ("Exception ignored ...")
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
        try:
            stdout.flush()  # (into the null device now)
        except (OSError, ValueError):
            pass
    try:
        print(plain(f"irrepro{' ' + command if command else ''}: cannot write the output: {exc.strerror}"),
              file=sys.stderr, flush=True)  # fmt: skip
    except (OSError, ValueError):  # stderr gone too: the exit status says it
        pass
    return 1


def _run(args: argparse.Namespace) -> int:
    """The command of the parsed ``args``: its exit status, or 1, 2 or 130 for what it raised."""
    if args.command in ("report", "compare"):  # no progress-bar monitor thread to interrupt at exit
        import tqdm

        tqdm.tqdm.monitor_interval = 0
    shown = warnings.formatwarning
    warnings.formatwarning = _format_warning  # "irrepro: warning: ...", not Python's source line
    try:
        if hasattr(args, "jobs") or hasattr(args, "scale"):
            from .. import parallel

            # the environment is read here (and in the book's configuration) only, and passed down:
            # report, compare: -j or IRREPRO_JOBS, checked before any work (else report: all cores,
            # compare: 1); report: --scale or IRREPRO_SCALE
            if hasattr(args, "jobs") and args.jobs is None:
                args.jobs = parallel.env_jobs(-1 if args.command == "report" else 1)
            if getattr(args, "scale", "") is None:
                args.scale = parallel.scale()
            if hasattr(args, "jobs") and not getattr(args, "scheduler", None):
                parallel.scheduler()  # IRREPRO_SCHEDULER: an address or 'local', before any work
        if getattr(args, "scheduler", None):  # report, compare --scheduler
            from .. import parallel

            with parallel.using_scheduler(args.scheduler, "--scheduler"):
                return args.func(args)
        return args.func(args)
    except KeyboardInterrupt:
        print("\nirrepro: interrupted", file=sys.stderr)
        return 130
    except _OutputFailed:
        raise
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
        opt.err(args.command, _explain(exc, args))
        return 2
    finally:
        warnings.formatwarning = shown


def _users(exc: BaseException) -> bool:
    """Whether ``exc`` is the user's to fix: an InputError, or an OSError carrying the path the user named."""
    return isinstance(exc, InputError) or (isinstance(exc, OSError) and exc.filename is not None)


def _format_warning(message, category, filename, lineno, line=None) -> str:
    """A warning as the command line prints it: one line (:func:`irrepro.escape.plain`), no source."""
    from ..escape import plain

    return plain(f"irrepro: warning: {message}") + "\n"


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
