"""Compact lists: what the corpus bootstrap needs of a ranked list (Cormack & Lynam 2006,
section 5): for every retrieved relevant document, the number of non-relevant documents above it.
AP depends on the non-relevant documents only through these gaps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import RunSet
from ..errors import InputError, InputTypeError
from ..measures import average_precision


@dataclass(frozen=True, eq=False)
class Lists:
    """Ranked lists reduced to what AP depends on (CSR layout)."""

    gaps: np.ndarray  # int64 (M,)
    start: np.ndarray  # int64 (L + 1,)
    n_rel: np.ndarray  # int64 (L,)
    length: np.ndarray  # int64 (L,)
    ap: np.ndarray  # float64 (L,)
    shape: tuple[int, ...]

    @property
    def n_ret_rel(self) -> np.ndarray:
        return np.diff(self.start)

    @property
    def usable(self) -> np.ndarray:
        return (self.length > 0) & (self.n_rel > 0)

    def __len__(self) -> int:
        return len(self.n_rel)


def compact_lists(relevant: np.ndarray, n_rel, lengths=None) -> Lists:
    """The ``Lists`` of a boolean relevance array.

    Parameters
    ----------
    relevant : numpy.ndarray
        Boolean ``(..., K)``, rank axis last.
    n_rel : array_like
        R, broadcastable to ``relevant.shape[:-1]``.
    lengths : array_like or None
        The lists' lengths (None: all K ranks retrieved).

    Returns
    -------
    Lists
        The lists, of shape ``relevant.shape[:-1]``.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import compact_lists
    >>> compact_lists(np.array([[True, False, True]]), 3).shape
    (1,)
    """
    relevant = np.asarray(relevant, dtype=bool)
    if relevant.ndim < 1:
        raise InputError("relevant must have a rank axis (last)")
    shape = relevant.shape[:-1]
    flat = relevant.reshape(-1, relevant.shape[-1])
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.int64), shape).reshape(-1)
    if lengths is None:
        lengths = np.full(shape, relevant.shape[-1])
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), shape).reshape(-1)
    m = flat.sum(axis=1)
    if np.any(m > n_rel):
        i = int(np.flatnonzero(m > n_rel)[0])
        raise InputError(
            f"list {np.unravel_index(i, shape)} retrieves {m[i]} relevant documents but R = {n_rel[i]}"
        )
    _, rank = np.nonzero(flat)  # row-major: lists in order, ranks ascending
    start, _, gaps = _gaps(m, rank)
    return Lists(gaps, start, n_rel, lengths, average_precision(flat, n_rel), tuple(shape))


def _gaps(m: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR starts of lists with ``m`` relevant documents at 0-based ``rank`` (list by list), each one's
    index in its list, and the non-relevant documents between it and the one above."""
    start = np.r_[0, np.cumsum(m)].astype(np.int64)
    j = np.arange(len(rank)) - np.repeat(start[:-1], m)
    gaps = rank - j  # non-relevant docs before it
    return start, j, np.where(j == 0, gaps, gaps - np.r_[0, gaps[:-1]]).astype(np.int64)


def _lists_of(obj, rel: int) -> Lists:
    if isinstance(obj, Lists):
        return obj
    if isinstance(obj, RunSet):  # from the ragged arrays: memory follows the number of lines
        S, T = obj.lengths.shape
        li, rank = obj.relevant_positions(rel)
        m = np.bincount(li, minlength=S * T)
        n_rel = np.broadcast_to(obj.n_relevant(rel)[None, :], (S, T)).reshape(-1).astype(np.int64)
        start, j, gaps = _gaps(m, rank)
        prec = np.bincount(li, weights=(j + 1) / (rank + 1.0), minlength=S * T)
        ap = np.divide(prec, n_rel, out=np.zeros(S * T), where=n_rel > 0)
        return Lists(gaps, start, n_rel, obj.lengths.reshape(-1).astype(np.int64), ap, (S, T))
    raise InputTypeError(f"expected a RunSet or Lists, not {type(obj).__name__}")
