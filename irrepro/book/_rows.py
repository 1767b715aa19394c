"""The rows a chapter compares with the paper, built by kind, each with its sampling error (clustered
by the unit sampled) and the Monte Carlo error of our resampling."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..stats import clustered_se


@dataclass(frozen=True)
class Errors:
    """Our two standard errors of a number and what they rest on (made by ``errors``)."""

    sampling: float | tuple[float, ...]
    mc: float | tuple[float, ...]
    unit: str = ""
    replicates: int | None = None
    reason: str = ""

    def scaled(self, factor: float) -> Errors:
        """The errors of the number times ``factor`` (a share as a percentage: 100)."""
        s, m = (np.asarray(x, dtype=float) * factor for x in (self.sampling, self.mc))
        return Errors(_per(s), _per(m), self.unit, self.replicates, self.reason)


def _per(x) -> float | tuple[float, ...]:
    """One error, or one per part."""
    arr = np.asarray(x, dtype=float).reshape(-1)
    return float(arr[0]) if arr.size == 1 else tuple(float(v) for v in arr)


def errors(
    *,
    values=None,
    clusters=None,
    sampling=None,
    unit: str = "",
    mc=None,
    replicate_values=None,
    replicates: int | None = None,
    reason: str = "",
) -> Errors:
    """Our two errors of a number: its sampling error and its Monte Carlo error.

    Parameters
    ----------
    values : array_like, optional
        ``(..., n)``: per sampled unit, the values whose mean is the number (a leading axis per part);
        the sampling error is their clustered standard error of the mean.
    clusters : array_like, optional
        ``(n,)``: the cluster of each value.
    sampling : float or sequence of float, optional
        The sampling error, when it is computed otherwise.
    unit : str
        What was sampled.
    mc : float or sequence of float, optional
        The Monte Carlo error, when it is computed otherwise.
    replicate_values : array_like, optional
        ``(k, ...)``: the number over ``k`` independent replicates; the Monte Carlo error is their
        sd / sqrt(k).
    replicates : int, optional
        The replicates the number rests on.
    reason : str
        Why an error is 0: required for one.

    Returns
    -------
    Errors

    Raises
    ------
    ValueError
        A sampling error given both ways, or an error that is 0 without a reason.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro import book
    >>> hits = np.array([1, 1, 1, 0, 0, 0, 1, 0])           # a share over lists
    >>> topic = np.array([1, 1, 1, 2, 2, 2, 3, 3])          # the topic of each list
    >>> e = book.errors(values=hits, clusters=topic, unit="topic", mc=0.01, replicates=1000)
    >>> round(e.sampling, 3), e.mc, e.unit
    (0.325, 0.01, 'topic')
    """
    if (values is None) == (sampling is None):
        if sampling is None and not reason:
            raise ValueError("errors: give values (and clusters) or sampling, or a reason there is none")
        if values is not None:
            raise ValueError("errors: give values or sampling, not both")
    if values is not None:
        sampling = clustered_se(values, clusters)
    s = _per(0.0 if sampling is None else sampling)
    if replicate_values is not None:
        if mc is not None:
            raise ValueError("errors: give mc or replicate_values, not both")
        r = np.asarray(replicate_values, dtype=float)
        k = r.shape[0]
        if k < 2:
            raise ValueError("errors: replicate_values needs at least 2 replicates")
        mc = np.std(r, axis=0, ddof=1) / math.sqrt(k)
    m = _per(0.0 if mc is None else mc)
    zero = any(v == 0 for v in np.atleast_1d(s)) or any(v == 0 for v in np.atleast_1d(m))
    if zero and not reason:
        raise ValueError("errors: an error is 0: say why in reason (no sampled unit, no random step)")
    return Errors(s, m, unit, replicates, reason)


def _row(quantity: str, paper, ours, kind: str, err: Errors | None, reason: str, extra: dict) -> dict:
    """A row of ``kind`` with its errors (or the reason it has none)."""
    row = {"quantity": quantity, "paper": paper, "ours": ours, "kind": kind}
    if err is None:
        if not reason:
            raise ValueError(f"{quantity}: give its errors (book.errors), or the reason it has none")
        row |= {"se_sampling": 0.0, "se_mc": 0.0, "se_reason": reason}
    else:
        row |= {"se_sampling": err.sampling, "se_mc": err.mc, "unit": err.unit}
        if err.replicates:
            row["replicates"] = int(err.replicates)
        if reason or err.reason:
            row["se_reason"] = reason or err.reason
    return row | extra


def share(
    quantity: str,
    paper,
    outcomes,
    *,
    categories: Sequence | None = None,
    clusters=None,
    unit: str = "",
    mc=0.0,
    replicates: int | None = None,
    reason: str = "",
    nominal=None,
    digits: int = 1,
    **extra,
) -> dict:
    """A row (kind ``"rate"``) of shares in % of outcomes (or of ``categories``), with clustered errors."""
    x = np.asarray(outcomes)
    if categories is None:
        hits = np.asarray(x, dtype=float)[None]
    else:
        hits = np.stack([(x == c).astype(float) for c in categories])
    shares = 100 * hits.mean(axis=-1)
    se = np.atleast_1d(clustered_se(hits, clusters))
    k = len(np.unique(clusters)) if clusters is not None else hits.shape[-1]
    se = np.where(se > 0, se, _agresti_coull_se(hits.sum(axis=-1) * k / hits.shape[-1], k))
    err = errors(
        sampling=100 * se, unit=unit, mc=mc, replicates=replicates, reason=reason or "no random step"
    )
    pct = "%" if "%" in str(getattr(paper, "value", paper) or "") else ""  # as the paper prints it
    ours = " / ".join(f"{v:.{digits}f}{pct}" for v in shares)
    return rate(quantity, paper, ours, err, nominal=nominal, **extra)


def _agresti_coull_se(x, n: int) -> np.ndarray:
    """The standard error of a share of ``x`` in ``n`` by Agresti & Coull's (1998) adjusted share."""
    z2 = 1.959963984540054**2
    p = (np.asarray(x, dtype=float) + z2 / 2) / (n + z2)
    return np.sqrt(p * (1 - p) / (n + z2))


def rate(quantity: str, paper, value, err: Errors | None, *, nominal=None, reason: str = "", **extra) -> dict:
    """A row (kind ``"rate"``) comparing a rate or a proportion with the paper's."""
    row = _row(quantity, paper, value, "rate", err, reason, extra)
    if nominal is not None:
        row["nominal"] = nominal
    return row


def score(quantity: str, paper, value, err: Errors | None, *, reason: str = "", **extra) -> dict:
    """A row (kind ``"score"``) comparing a score, a difference of scores or a standard deviation."""
    return _row(quantity, paper, value, "score", err, reason, extra)


def correlation(quantity: str, paper, value, err: Errors | None, *, reason: str = "", **extra) -> dict:
    """A row (kind ``"correlation"``) comparing a correlation between rankings or scores."""
    return _row(quantity, paper, value, "correlation", err, reason, extra)


def ordering(quantity: str, paper, difference, err: Errors | None, *, reason: str = "", **extra) -> dict:
    """A row (kind ``"ordering"``) comparing the direction of a difference with the paper's (``"> 0"``).

    Parameters
    ----------
    quantity : str
    paper : PaperValue or None
    difference : float or str
        Our difference (text for several parts, ``"0.8 / 1.2"``).
    err : Errors or None
    reason : str
        Why there is no error (with ``err`` None).

    Returns
    -------
    dict

    Examples
    --------
    >>> from irrepro import book
    >>> e = book.errors(sampling=0.4, unit="repetition", mc=0.1, replicates=200)
    >>> row = book.ordering("error rate, 5 topics minus 25 topics (points)", "> 0", 6.3, e)
    >>> row["kind"], row["ours"], row["replicates"]
    ('ordering', 6.3, 200)
    """
    return _row(quantity, paper, difference, "ordering", err, reason, extra)


def count(quantity: str, paper, value, err: Errors | None = None, *, reason: str = "", **extra) -> dict:
    """A row (kind ``"count"``) comparing a count: runs, topics, the systems a method needs.

    Parameters
    ----------
    quantity : str
    paper : PaperValue or None
    value : int or str
    err : Errors or None
    reason : str
        Why there is no error (a count of the data itself: ``err`` None).

    Returns
    -------
    dict

    Examples
    --------
    >>> from irrepro import book
    >>> row = book.count("runs kept", None, 120, reason="counted from the runs: no random step")
    >>> row["kind"], row["ours"], row["se_sampling"], row["se_reason"]
    ('count', 120, 0.0, 'counted from the runs: no random step')
    """
    return _row(quantity, paper, value, "count", err, reason, extra)


def claim(quantity: str, paper, *, supports, ours=None, status: str | None = None, reason: str = "",
          **extra) -> dict:  # fmt: skip
    """A row (kind ``"claim"``) of a claim of the paper in words, resting on other rows (``supports``)."""
    row = {"quantity": quantity, "paper": paper, "ours": ours, "kind": "claim", "supports": supports}
    if status is not None:
        row["status"] = status
    if reason:
        row["reason"] = reason
    return row | extra
