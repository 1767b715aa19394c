"""The one reader of irrepro's environment variables (``IRREPRO_SCALE``, ``IRREPRO_JOBS``,
``IRREPRO_SCHEDULER``, ``IRREPRO_CACHE``, ...): a variable set to nothing, or to white space only,
is unset, whichever it is."""

from __future__ import annotations

import os


def env(name: str) -> str | None:
    """The value of the environment variable ``name``, or None when it is unset, empty or white
    space only; a value is returned as it is (its checks strip the words they take).

    Examples
    --------
    >>> import os
    >>> from irrepro._env import env
    >>> os.environ["IRREPRO_DOCTEST_EMPTY"] = " "
    >>> env("IRREPRO_DOCTEST_EMPTY") is None
    True
    >>> del os.environ["IRREPRO_DOCTEST_EMPTY"]
    """
    value = os.environ.get(name)
    return value if value is not None and value.strip() else None
