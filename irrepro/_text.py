"""Text helpers shared by the command line, the report and the book's pages (none imports another)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

__all__ = ["slug", "few", "shown", "no_variance", "no_pair_variance", "missing_scored", "UNDEFINED", "json_text",
           "json_record", "check_digits"]  # fmt: skip

#: What an undefined statistic shows when no simpler reason is found (never "nan").
UNDEFINED = "undefined (not a number)"


def slug(text: str) -> str:
    """A file-name form of ``text``: letters and digits kept, everything else "-", lower case.

    Parameters
    ----------
    text : str
        Any text (a collection or run name).

    Returns
    -------
    str
        The file-name form.

    Examples
    --------
    >>> from irrepro.book import slug
    >>> slug("TREC-COVID round 5")
    'trec-covid-round-5'
    """
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()


def shown(text: str) -> str:
    """``text`` that can be written as UTF-8: the bytes of a name that is not UTF-8 as ``\\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # other lone surrogates
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def few(ids, limit: int = 5, sep: str = ", ") -> str:
    """Up to ``limit`` ids, separated by ``sep``, and ``sep + "..."`` when there are more."""
    ids = [str(i) for i in ids]
    return sep.join(ids[:limit]) + (sep + "..." if len(ids) > limit else "")


def no_variance(scores, what: str = "") -> str:
    """Why a statistic of the runs' means is undefined on ``scores`` (runs x topics); "" when the runs differ."""
    import numpy as np

    x = np.asarray(getattr(scores, "scores", scores), dtype=np.float64)
    if x.ndim != 2 or x.size == 0:
        return ""
    if (x == x.flat[0]).all():
        why = f"no variance: every run scores {x.flat[0]:g} on every topic"
        return why + (f" ({what.strip()})" if what else "")
    if (x == x[0]).all():
        return f"no variance between runs: every run {what}scores the same as every other on each topic"
    means = x.mean(axis=1)
    if (means == means[0]).all():
        return f"no variance between runs: every run's {what}mean is {means[0]:g}"
    return ""


def no_pair_variance(scores, i: int, j: int, names=None) -> str:
    """Why the test of runs ``i`` and ``j`` of ``scores`` (runs x topics) is undefined; "" when they differ."""
    import numpy as np

    x = np.asarray(getattr(scores, "scores", scores), dtype=np.float64)
    whole = no_variance(x)
    if whole.startswith("no variance:"):
        return whole
    if (x[i] == x[j]).all():
        a, b = (names[i], names[j]) if names is not None else (i, j)
        return f"no variance: runs {a} and {b} score the same on every topic"
    return ""


def json_text(doc, **kwargs) -> str:
    """``doc`` as strict JSON (indented by 1): a NaN or an infinity is a ValueError (:func:`json_record`)."""
    import json

    return json.dumps(doc, indent=1, allow_nan=False, **kwargs)


def json_record(record: dict, reason: str | Callable[[dict], str]) -> dict:
    """``record`` with its NaN or infinite numbers None and a ``"reason"`` (``reason(record)`` if callable)."""
    bad = [k for k, v in record.items()
           if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral) and not math.isfinite(v)]  # fmt: skip
    if not bad:
        return record
    out = {k: None if k in bad else v for k, v in record.items()}
    out["reason"] = reason(record) if callable(reason) else reason
    return out


def missing_scored(values, runs: int) -> str:
    """How the run-topics that ``runs`` runs miss were scored (``values``: their scores), as one clause."""
    import numpy as np

    v = np.unique(np.asarray(values, dtype=np.float64))
    n = int(np.asarray(values).size)
    how = f"scored {v[0]:g}" if len(v) == 1 else "scored as trec_eval -c scores an empty ranking"
    who = "1 run misses" if runs == 1 else f"{runs} runs miss"
    return f"{n} run-topic{'s' if n != 1 else ''} that {who} {how} (trec_eval -c, as every mean of irrepro)"


#: The most decimals irrepro prints (``--digits``): a double carries 17 significant digits.
MAX_DIGITS = 17


def check_digits(value, name: str = "digits") -> int:
    """``value`` as a count of decimals to print, 0 to :data:`MAX_DIGITS`, else an InputError."""
    from .errors import InputError
    from .parallel import check_int

    value = check_int(value, name, minimum=0)
    if value > MAX_DIGITS:
        raise InputError(
            f"{name} must be an integer from 0 to {MAX_DIGITS}, got {value}: a double carries at most "
            f"{MAX_DIGITS} significant digits, and further decimals are digits of its binary "
            "representation, not of the number"
        )
    return value
