"""Names of a package served on first use (PEP 562): what the package's ``__getattr__`` and
``__dir__`` return, so that importing the package does not import the submodules (and their heavy
libraries) that only some of its names need."""

from __future__ import annotations

import importlib
import sys


def load(package: str, names: dict[str, str], name: str):
    """The attribute ``name`` of ``package`` from its submodule ``names[name]``, kept once loaded."""
    if name not in names:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{names[name]}", package), name)
    setattr(sys.modules[package], name, value)
    return value


def names(package: str, served: dict[str, str]) -> list[str]:
    """The package's ``dir()``: what it holds and what it serves on first use."""
    return sorted(set(vars(sys.modules[package])) | set(served))


class module:
    """A module imported on its first attribute use (a family's rule rows, which need :mod:`irrepro.book`)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)
