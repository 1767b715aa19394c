"""Option values and help texts the parsers of the ``irrepro`` command line share
(:mod:`irrepro.cli`): :mod:`irrepro.cli._parser` and the commands that keep their own parser
(``irrepro reproduce``) import them from here."""

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


def _level_value(text: str) -> float:
    from ..stats import check_level

    try:
        value = float(text)
    except ValueError:
        raise InputError(
            f"--level must be a number, a fraction in (0, 1) or a percentage in (1, 100); got {text!r}"
        ) from None
    return check_level(value, "--level")


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
