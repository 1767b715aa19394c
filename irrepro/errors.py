"""The one exception type for what a user can fix (public as :class:`irrepro.InputError`) and its
subclasses, each also the built-in type of its kind."""

from __future__ import annotations

#: The project's repository (``repository.url`` of the book's ``_config.yml``).
REPOSITORY_URL = "https://github.com/irrepro/irrepro"
#: Where a bug in irrepro is reported (the command line names it under a traceback).
ISSUES_URL = f"{REPOSITORY_URL}/issues"


class InputError(ValueError):
    """Something the user can fix: the message says what, and where (file, line, option).

    A :class:`ValueError`; its subclasses are also the built-in type of their kind (``KeyError``,
    ``TypeError``, ``OSError``). The command line prints it as one line on stderr, exit status 2.

    Examples
    --------
    >>> from irrepro import InputError
    >>> from irrepro.stats import check_level
    >>> try:
    ...     check_level(100)
    ... except InputError as exc:
    ...     print(exc)
    level must be a fraction in (0, 1) (0.95) or a percentage in [50, 100) (95), got 100
    """


class UnknownNameError(InputError, KeyError):
    """An unknown name (a collection, a run, a filter, a test); a KeyError whose message is shown unquoted."""

    __str__ = Exception.__str__


class InputTypeError(InputError, TypeError):
    """An argument of a type irrepro cannot read (e.g. qrels given as a number); also a :class:`TypeError`."""


class OutputError(InputError, OSError):
    """An output the user named cannot be written; also an :class:`OSError`, built like one: ``OutputError(errno, strerror, path)``."""

    # OSError's constructor, which object's signature for __new__ cannot describe
    __new__ = OSError.__new__  # type: ignore[assignment]
    __init__ = OSError.__init__
    __str__ = OSError.__str__
    __reduce__ = OSError.__reduce__
