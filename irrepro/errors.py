"""The one exception type for what a user can fix.

:class:`InputError` is raised for every problem a user can mend - a malformed file (its subclass
:class:`irrepro.data.DataError` names file, line and problem), a parameter out of range, an
output directory irrepro must not touch. It is a :class:`ValueError`, so ``except ValueError``
keeps working. The command line turns it into one line on stderr and exit status 2; anything
else is a bug in irrepro and shows its traceback.
"""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Something the user can fix: the message says what, and where (file, line, option)."""
