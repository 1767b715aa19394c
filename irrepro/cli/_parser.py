"""The parser of the ``irrepro`` command line (:mod:`irrepro.cli`): its options, their checks (the
same validators as the Python API's, so the messages agree) and their help."""

from __future__ import annotations

import argparse
from typing import NoReturn

from . import _compare, _data, _design, _eval, _report, _reproduce, _standardize

__all__ = ["build_parser"]

#: The parser's description: the first line of :mod:`irrepro.cli`'s docstring.
_DESCRIPTION = "The ``irrepro`` command line."


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
    parser = _Parser(prog="irrepro", description=_DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in (_data, _eval, _compare, _design, _standardize, _reproduce, _report):
        command.add_parser(sub)
    return parser
