"""Ranking level of :mod:`irrepro.reproduce` (Breuer et al. 2020, section 3, "order of
documents"): Kendall's tau union (KTU) and rank-biased overlap (RBO) of the original's and the
reproduction's ranked lists, per topic, for many lists at once."""

from __future__ import annotations

import numpy as np

from ..errors import InputError

#: The ranks compared by KTU (repro_eval's ``RUN_LENGTH``: runs trimmed to 1000 documents).
RUN_LENGTH = 1000
#: RBO's depth and persistence (repro_eval's ``RBO_DEPTH`` and ``RBO_P``).
RBO_DEPTH = 1000
RBO_P = 0.95


def _rankings(orig, repro) -> tuple[np.ndarray, np.ndarray, tuple]:
    o, r = np.asarray(orig), np.asarray(repro)
    if not (np.issubdtype(o.dtype, np.integer) and np.issubdtype(r.dtype, np.integer)):
        raise InputError("rankings must be integer document codes (-1 past a list's end)")
    if o.ndim < 1 or o.shape[:-1] != r.shape[:-1]:
        raise InputError(f"orig and repro must hold the same lists, got shapes {o.shape} and {r.shape}")
    lead = o.shape[:-1]
    return o.reshape(-1, o.shape[-1]).astype(np.int64), r.reshape(-1, r.shape[-1]).astype(np.int64), lead


def ktu(orig, repro, *, depth: int = RUN_LENGTH) -> np.ndarray:
    """Kendall's tau union per list (topic), as repro_eval computes it: tau between the documents at equal ranks, numbered in the sorted union of both lists, over the first ranks both hold (at most ``depth``); NaN below 2 documents."""
    o, r, lead = _rankings(orig, repro)
    n = np.minimum(np.minimum((o >= 0).sum(axis=1), (r >= 0).sum(axis=1)), depth)
    k = int(n.max(initial=0))
    pos = np.arange(k)
    valid = pos < n[:, None]
    big = np.iinfo(np.int64).max
    by_orig = np.argsort(np.where(valid, o[:, :k], big), axis=1, kind="stable")  # the valid ranks first
    y = np.where(valid, np.take_along_axis(r[:, :k], by_orig, axis=1), big)
    ranks = np.argsort(np.argsort(y, axis=1, kind="stable"), axis=1, kind="stable")  # 0..n-1 on the valid
    discordant = _inversions(ranks, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = 1.0 - 4.0 * discordant / (n * (n - 1.0))
    return np.where(n >= 2, tau, np.nan).reshape(lead)


def _inversions(ranks: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per row, the pairs ``i < j < n`` with ``ranks[i] > ranks[j]`` (a Fenwick tree per row, all rows at once)."""
    R, K = ranks.shape
    tree = np.zeros((R, K + 1), dtype=np.int64)
    rows = np.arange(R)
    out = np.zeros(R, dtype=np.int64)
    for k in range(K):
        active = k < n
        v = np.where(active, ranks[:, k] + 1, 0)
        seen = np.zeros(R, dtype=np.int64)  # earlier documents ranked at most v
        i = v.copy()
        while (i > 0).any():
            seen += tree[rows, i] * (i > 0)
            i = i - (i & -i)
        out += np.where(active, k - seen, 0)
        i = v.copy()
        while ((i > 0) & (i <= K)).any():
            ok = (i > 0) & (i <= K)
            tree[rows[ok], i[ok]] += 1
            i = np.where(ok, i + (i & -i), 0)
    return out


def rbo(orig, repro, *, p: float = RBO_P, depth: int = RBO_DEPTH) -> np.ndarray:
    """Rank-biased overlap per list, truncated at ``depth`` and normalised as repro_eval computes it; NaN where a list is empty."""
    if not 0 < p < 1:
        raise InputError(f"p must be in (0, 1), got {p!r}")
    if depth < 1:
        raise InputError(f"depth must be >= 1, got {depth!r}")
    o, r, lead = _rankings(orig, repro)
    R, K = o.shape
    rows = np.arange(R, dtype=np.int64)[:, None]
    span = int(max(o.max(initial=-1), r.max(initial=-1))) + 1
    ok_r = r >= 0
    key_r = (rows * span + r)[ok_r]
    rank_r = np.broadcast_to(np.arange(r.shape[1], dtype=np.int64), r.shape)[ok_r]
    order = np.argsort(key_r, kind="stable")
    key_r, rank_r = key_r[order], rank_r[order]
    ok_o = o >= 0
    key_o = (rows * span + o)[ok_o]
    rank_o = np.broadcast_to(np.arange(K, dtype=np.int64), o.shape)[ok_o]
    row_o = np.broadcast_to(rows, o.shape)[ok_o]
    hist = np.zeros(R * depth, dtype=np.int64)
    if len(key_r) and len(key_o):
        pos = np.minimum(np.searchsorted(key_r, key_o), len(key_r) - 1)
        hit = key_r[pos] == key_o
        m = np.maximum(rank_o[hit], rank_r[pos[hit]])  # both prefixes hold the document from rank m
        keep = m < depth
        hist += np.bincount(row_o[hit][keep] * depth + m[keep], minlength=R * depth)
    overlap = np.cumsum(hist.reshape(R, depth), axis=1)
    w = p ** np.arange(depth, dtype=np.float64)
    out = (overlap / np.arange(1, depth + 1)) @ w / w.sum()
    out[~(ok_o.any(axis=1) & ok_r.any(axis=1))] = np.nan  # a topic one of the runs did not rank
    return out.reshape(lead)
