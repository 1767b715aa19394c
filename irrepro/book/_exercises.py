"""Exercises a student can check against the answer the instructor edition records, without seeing
it: the student edition carries it as a key (its JSON XOR-ed with a digest of the label, base64)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import numbers
from pathlib import Path
from typing import Any

import numpy as np

from .._text import slug
from ._config import results_dir

#: A numeric answer off by at most this many times its tolerance is "close" (and in which direction).
CLOSE = 5.0
#: The answers recorded in this kernel: label -> the recorded answer (see :func:`_record`).
_ANSWERS: dict[str, dict[str, Any]] = {}
_DIR = "answers"


def _answers_dir(results=None) -> Path | None:
    """``answers/`` under ``results`` (default the configuration's results directory), or None."""
    out = results_dir() if results is None else results
    return Path(out) / _DIR if out else None


def _record(label: str, value: Any, rel: float | None, abs_: float | None) -> dict[str, Any]:
    """The JSON form of an answer: its kind, its value and, for a number, its tolerance."""
    if isinstance(value, bool | np.bool_):
        return {"label": label, "kind": "bool", "value": bool(value)}
    if isinstance(value, str):
        return {"label": label, "kind": "text", "value": _norm(value)}
    if isinstance(value, set | frozenset) and all(isinstance(v, str) for v in value):
        return {"label": label, "kind": "set", "value": sorted({_norm(v) for v in value})}
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"{label}: the answer {value!r} is not a finite number")
        if rel is None and abs_ is None:
            raise TypeError(f"{label}: a numeric answer needs its tolerance (rel= or abs=)")
        if any(t is not None and not (math.isfinite(t) and t >= 0) for t in (rel, abs_)):
            raise ValueError(f"{label}: a tolerance is a finite number, not negative")
        tol = max(abs_ or 0.0, (rel or 0.0) * abs(x))
        return {"label": label, "kind": "number", "value": x, "tolerance": tol}
    raise TypeError(
        f"{label}: an answer is a number, a str, a bool or a set of str, not {type(value).__name__}"
    )


def _norm(text: str) -> str:
    """Text with case and spacing ignored."""
    return " ".join(text.split()).casefold()


def answer(label: str, value: Any, *, rel: float | None = None, abs: float | None = None) -> Any:
    """Record the answer of an exercise for :func:`check` (and in ``IRREPRO_RESULTS``'s ``answers/``).

    Parameters
    ----------
    label : str
        The exercise's label (``"ex-sakai-2"``).
    value : float, int, str, bool or set of str
        The answer: a number within its tolerance, the others exactly (case, spacing and order ignored).
    rel, abs : float, optional
        A numeric answer's tolerance, relative and absolute (the larger counts); one is required.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    TypeError
        A value of another type, or a number without a tolerance.
    ValueError
        A number that is not finite, or a tolerance that is negative or not finite.

    Examples
    --------
    >>> from irrepro import book
    >>> book.answer("ex-doc-1", 0.25, abs=0.01)
    0.25
    """
    record = _record(label, value, rel, abs)
    _ANSWERS[label] = record
    d = _answers_dir()
    if d is not None:
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{slug(label)}.json").write_text(json.dumps(record, sort_keys=True) + "\n", encoding="utf-8")
    return value


def _mask(label: str, n: int) -> bytes:
    """``n`` bytes drawn from the label's digest (SHA-256 in counter mode)."""
    digests = (hashlib.sha256(f"{i}:{label}".encode()).digest() for i in range(math.ceil(n / 32)))
    return b"".join(digests)[:n]


def answer_key(record: dict[str, Any]) -> str:
    """The key of a recorded answer (its JSON XOR-ed with the label's digest, in base64)."""
    raw = json.dumps(record, sort_keys=True).encode()
    masked = bytes(a ^ b for a, b in zip(raw, _mask(record["label"], len(raw)), strict=True))
    return base64.urlsafe_b64encode(masked).decode().rstrip("=")


def _from_key(label: str, key: str) -> dict[str, Any]:
    """The answer a key carries; a ValueError naming the label when it is not that label's."""
    try:
        masked = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
        raw = bytes(a ^ b for a, b in zip(masked, _mask(label, len(masked)), strict=True))
        record = json.loads(raw.decode())
    except (ValueError, UnicodeDecodeError):
        record = None
    if not isinstance(record, dict) or record.get("label") != label:
        raise ValueError(f"the key given is not the key of exercise {label!r}")
    return record


def recorded_keys(results: str | Path | None = None) -> dict[str, str]:
    """The keys of the answers recorded under ``results``: label -> key."""
    d = _answers_dir(results)
    if d is None or not d.is_dir():
        return {}
    records = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(d.glob("*.json"))]
    return {r["label"]: answer_key(r) for r in records}


def _expected(label: str, key: str | None) -> dict[str, Any]:
    """The recorded answer: from ``key``, this kernel or the results directory."""
    if key is not None:
        return _from_key(label, key)
    if label in _ANSWERS:
        return _ANSWERS[label]
    d = _answers_dir()
    f = d / f"{slug(label)}.json" if d is not None else None
    if f is not None and f.is_file():
        return json.loads(f.read_text(encoding="utf-8"))
    raise KeyError(
        f"no answer is recorded for exercise {label!r} (a check without a key needs its solution run first)"
    )


def _verdict(expected: dict[str, Any], given: Any) -> str:
    """right / close - a little high or low / wrong (- too high or low) of ``given``."""
    kind = expected["kind"]
    if kind == "number":
        if isinstance(given, bool) or not isinstance(given, numbers.Real) or not math.isfinite(float(given)):
            return "wrong - not a number"
        diff, tol = float(given) - expected["value"], expected["tolerance"]
        if abs(diff) <= tol:
            return "right"
        side = "high" if diff > 0 else "low"
        return f"close - a little {side}" if abs(diff) <= CLOSE * tol else f"wrong - too {side}"
    if kind == "bool":
        ok = isinstance(given, bool | np.bool_) and bool(given) == expected["value"]
    elif kind == "text":
        ok = isinstance(given, str) and _norm(given) == expected["value"]
    else:
        ok = (
            isinstance(given, set | frozenset | list | tuple)
            and all(isinstance(v, str) for v in given)
            and sorted({_norm(v) for v in given}) == expected["value"]
        )
    return "right" if ok else "wrong"


def check(label: str, answer: Any, *, key: str | None = None) -> None:
    """Print whether an answer is right, close (within five tolerances: a little high or low) or wrong.

    Parameters
    ----------
    label : str
        The exercise's label (``"ex-sakai-2"``).
    answer : object
        The student's answer (None or ``...``: no answer yet).
    key : str, optional
        The expected answer as the student edition carries it (None: the answer recorded).

    Raises
    ------
    KeyError
        No key, and no answer recorded for ``label``.
    ValueError
        A key that is not ``label``'s.

    Examples
    --------
    >>> from irrepro import book
    >>> book.answer("ex-doc-2", 120, abs=3)
    120
    >>> book.check("ex-doc-2", 126)
    ex-doc-2: close - a little high
    """
    if answer is None or answer is Ellipsis:
        print(f"{label}: no answer yet")
        return
    print(f"{label}: {_verdict(_expected(label, key), answer)}")
