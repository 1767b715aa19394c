"""Old public names kept working for one release, each with a :class:`DeprecationWarning` naming
its replacement (the list is in CHANGELOG.md).

- :func:`moved_names` builds a module's ``__getattr__`` for names that moved or were renamed;
- :func:`renamed_arguments` lets a function still take a keyword argument by its old name;
- :func:`renamed_attribute` keeps an old attribute name of a result class readable.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping

from .errors import InputTypeError

#: The release in which the old names disappear.
REMOVED_IN = "0.3"


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(
        f"{old} is deprecated and will be removed in irrepro {REMOVED_IN}: use {new} (see CHANGELOG.md)",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def moved_names(module: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` (PEP 562) serving old names: ``names`` maps an old name of ``module``
    to its new home ``"package.module:name"``. Each access warns and returns the new object."""

    def __getattr__(name: str):
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, _, attr = target.partition(":")
        _warn(f"{module}.{name}", f"{where}.{attr}", stacklevel=2)
        return getattr(importlib.import_module(where), attr)

    return __getattr__


def renamed_arguments(**renames: str) -> Callable:
    """Decorator: keyword arguments passed by an old name (``old="new"``) are passed on as the new
    one, with a warning; passing both is a TypeError."""

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputTypeError(f"{fn.__name__}() got both {old!r} (deprecated) and {new!r}")
                    _warn(f"the argument {old!r} of {fn.__qualname__}()", repr(new), stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` of a class, returning attribute ``new`` with a warning."""

    def get(self):
        _warn(f"{type(self).__name__}.{old}", f"{type(self).__name__}.{new}", stacklevel=2)
        return getattr(self, new)

    return property(get, doc=f"Deprecated name of ``{new}``.")
