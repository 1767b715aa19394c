"""Inputs of the bootstrap tests (Sakai 2006, Figure 1): score matrices, the topic samples shared by
every pair, measure and method, pairs of systems, and every system's summary on every sample.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import parallel
from ..data import ScoreMatrix
from ..data._matrices import _checked_scores
from ..errors import InputError, UnknownNameError
from ..measures import GM_EPSILON
from ..parallel import SeedLike


def _as_matrix(scores) -> tuple[np.ndarray, tuple, str]:
    """(S, T) finite float array, system names and measure name of a ScoreMatrix or an array."""
    arr = _checked_scores(scores)
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise InputError(f"need at least 2 systems and 2 topics, got shape {arr.shape}")
    if isinstance(scores, ScoreMatrix):
        return arr, tuple(scores.systems), scores.measure
    return arr, tuple(str(i) for i in range(arr.shape[0])), ""


def bootstrap_samples(n_topics: int, B: int = 1000, *, seed: SeedLike) -> np.ndarray:
    """The bootstrap topic samples ``Q*b`` (Sakai 2006, Figure 1): ``(B, n_topics)`` topic indices drawn with replacement.

    Parameters
    ----------
    n_topics : int
        Topics (columns) to draw from.
    B : int
        Samples (rows).
    seed : SeedLike

    Returns
    -------
    numpy.ndarray
        ``(B, n_topics)`` integer indices.

    Examples
    --------
    >>> from irrepro import sensitivity as bt
    >>> bt.bootstrap_samples(5, 3, seed=1).tolist()
    [[2, 2, 3, 4, 0], [0, 4, 4, 1, 1], [4, 2, 1, 4, 1]]
    """
    n_topics = parallel.check_int(n_topics, "n_topics", minimum=1)
    B = parallel.check_int(B, "B", minimum=1)
    return parallel.as_generator(seed).integers(0, n_topics, size=(B, n_topics))


def _counts(samples: np.ndarray, n: int) -> np.ndarray:
    """(B, n) float matrix: how often each sample drew each index."""
    c = np.empty((samples.shape[0], n), dtype=np.float64)
    for b, row in enumerate(samples):  # (a bincount a row: no index arrays of the samples' size, no ufunc.at)
        c[b] = np.bincount(row, minlength=n)
    return c


def _check_samples(samples, n_cols: int, B: int, seed, name: str = "samples") -> np.ndarray:
    if samples is None:
        if seed is None:
            raise InputError("pass seed (int or numpy Generator) or precomputed samples")
        return bootstrap_samples(n_cols, B, seed=seed)
    samples = np.asarray(samples)
    if samples.ndim != 2 or samples.shape[1] != n_cols:
        raise InputError(f"{name} must have shape (B, {n_cols}), got {samples.shape}")
    if not np.issubdtype(samples.dtype, np.integer):
        raise InputError(f"{name} must be integer topic indices")
    if samples.size and (samples.min() < 0 or samples.max() >= n_cols):
        raise InputError(f"{name} must index 0..{n_cols - 1}")
    return samples


def all_pairs(n_systems: int) -> np.ndarray:
    """Every pair of systems, ``(i, j)`` with ``i < j`` in row-major order (Sakai 2006, section 3.3's C)."""
    i, j = np.triu_indices(int(n_systems), k=1)
    return np.stack([i, j], axis=1)


def baseline_pairs(n_systems: int, baseline: int) -> np.ndarray:
    """Every other system against a baseline: ``(s, baseline)`` in index order (difference s minus baseline)."""
    n_systems = parallel.check_int(n_systems, "n_systems", minimum=2)
    baseline = parallel.check_int(baseline, "baseline", minimum=0)
    if baseline >= n_systems:
        raise InputError(f"baseline must index systems 0..{n_systems - 1}, got {baseline}")
    others = np.delete(np.arange(n_systems), baseline)
    return np.stack([others, np.full(len(others), baseline)], axis=1)


def _baseline_index(baseline, systems: tuple) -> int:
    """The index of ``baseline`` among ``systems``: a name (str) or an index (int)."""
    if isinstance(baseline, str):
        if baseline not in systems:
            names = ", ".join(map(repr, systems[:8])) + (", ..." if len(systems) > 8 else "")
            raise UnknownNameError(
                f"baseline {baseline!r} is not one of the {len(systems)} systems ({names})"
            )
        return systems.index(baseline)
    if isinstance(baseline, bool) or not isinstance(baseline, numbers.Integral):
        raise InputError(f"baseline must be a system's name (str) or index (int), got {baseline!r}")
    index = int(baseline)
    if not 0 <= index < len(systems):
        raise InputError(f"baseline index must be in 0..{len(systems) - 1}, got {baseline}")
    return index


def _resolve_pairs(pairs, baseline, systems: tuple) -> np.ndarray:
    """The pairs a test compares: ``pairs`` (default all), or all against ``baseline``; not both."""
    if baseline is None:
        return _check_pairs(pairs, len(systems))
    if pairs is not None:
        raise InputError("pass pairs or baseline, not both")
    return baseline_pairs(len(systems), _baseline_index(baseline, systems))


def _check_pairs(pairs, n_systems: int) -> np.ndarray:
    if pairs is None:
        return all_pairs(n_systems)
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise InputError(f"pairs must be an integer array of shape (P, 2), got {pairs.shape}")
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n_systems):
        raise InputError(f"pairs must index systems 0..{n_systems - 1}")
    if np.any(pairs[:, 0] == pairs[:, 1]):
        raise InputError("a pair compares a system with itself")
    return pairs


def log_scores(scores, eps: float = GM_EPSILON) -> np.ndarray:
    """The per-topic values ``log(x + eps)`` whose arithmetic mean is a measure's ``AG_`` form."""
    x = np.asarray(scores.scores if isinstance(scores, ScoreMatrix) else scores, dtype=np.float64)
    if np.any(x + eps <= 0):
        raise InputError(f"log_scores needs x + eps > 0 (eps={eps})")
    return np.log(x + eps)


@dataclass(frozen=True)
class _Summary:
    name: str
    kind: str  # "mean", "gmean" or "callable"
    fn: Callable[[np.ndarray], np.ndarray] | None = None

    def transform(self, v: np.ndarray) -> np.ndarray:
        return log_scores(v) if self.kind == "gmean" else v

    def back(self, m: np.ndarray) -> np.ndarray:
        """From the mean of transformed values to the summary (no eps subtracted, no truncation)."""
        return np.exp(m) if self.kind == "gmean" else m

    def apply(self, v: np.ndarray) -> np.ndarray:
        """Summary over the last axis."""
        if self.kind == "callable" and self.fn is not None:
            out = np.asarray(self.fn(v), dtype=np.float64)
            if out.shape != v.shape[:-1]:
                raise InputError(
                    f"summary function must reduce the last axis: input {v.shape} gave {out.shape}"
                )
            return out
        return self.back(self.transform(v).mean(axis=-1))


def _summary(summary) -> _Summary:
    if callable(summary):
        return _Summary(getattr(summary, "__name__", "custom"), "callable", summary)
    if summary in ("mean", "arithmetic"):
        return _Summary("mean", "mean")
    if summary in ("gmean", "geometric"):
        return _Summary("gmean", "gmean")
    raise InputError(f"summary must be 'mean', 'gmean' or a function, not {summary!r}")


def bootstrap_summaries(
    scores, samples=None, *, summary="mean", B: int = 1000, seed: SeedLike = None
) -> np.ndarray:
    """``(S, B)``: the summary ``M(X, Q*b)`` of every system on every bootstrap topic sample."""
    x, _, _ = _as_matrix(scores)
    samples = _check_samples(samples, x.shape[1], B, seed)
    s = _summary(summary)
    n = samples.shape[1]
    if s.kind == "callable":
        return np.stack([s.apply(x[:, row]) for row in samples], axis=1)
    c = _counts(samples, x.shape[1])
    return s.back(s.transform(x) @ c.T / n)
