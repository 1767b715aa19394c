"""The one reader of irrepro's environment variables (``IRREPRO_SCALE``, ``IRREPRO_JOBS``,
``IRREPRO_SCHEDULER``, ``IRREPRO_CACHE``, ...): a variable set to nothing, or to white space only,
is unset, whichever it is."""

from __future__ import annotations

import os


def env(name: str) -> str | None:
    """The environment variable ``name`` as set, or None when it is unset, empty or white space only."""
    value = os.environ.get(name)
    return value if value is not None and value.strip() else None
