"""The model of a whole collection: every kept system's margin and, on demand, every pair's copula."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field

import numpy as np

from .. import parallel
from .._measure_names import family_cutoff
from ..data._matrices import _checked_scores
from ..parallel import SeedLike
from ._copulas import PairModel, fit_copula
from ._margins import fit_margin


def _remove_duplicates(scores: np.ndarray, tol: float = 1e-5) -> np.ndarray:
    """Indices (int64, in order) of the systems kept, those equal within ``tol`` to an earlier one dropped."""
    x = np.asarray(scores, dtype=np.float64)
    keep: list[int] = []
    for i in range(x.shape[0]):
        if not any(np.all(np.abs(x[i] - x[k]) <= tol) for k in keep):
            keep.append(i)
    return np.array(keep, dtype=np.int64)


@dataclass(eq=False)
class CollectionModel:
    """Margins of every kept system of one score matrix, and their copulas (fitted on first use, cached)."""

    name: str
    measure: str
    systems: tuple
    scores: np.ndarray  # (S, T) of the kept systems
    margins: list
    seed: np.random.SeedSequence
    copula_method: str = "itau"
    _copulas: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __getstate__(self) -> dict:
        """The model without its lock (which does not pickle), with the copulas fitted so far."""
        state = self.__dict__.copy()
        del state["_lock"]
        with self._lock:
            state["_copulas"] = dict(self._copulas)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @functools.cached_property
    def means(self) -> np.ndarray:
        """Every kept system's expected score (the margins' means)."""
        return np.array([m.mean for m in self.margins])

    def copula(self, i: int, j: int):
        """The copula of systems i (first margin) and j (second), fitted on first use."""
        key = (int(i), int(j))
        with self._lock:
            if key in self._copulas:
                return self._copulas[key]
        ss = np.random.SeedSequence(self.seed.entropy, spawn_key=(*self.seed.spawn_key, *key))
        cop = fit_copula(self.scores[i], self.scores[j], seed=ss, method=self.copula_method)
        with self._lock:
            self._copulas.setdefault(key, cop)
        return cop

    def pair(self, i: int, j: int, *, mean_e: float | None = None, same_margin: bool = False) -> PairModel:
        """Systems ``i`` (baseline) and ``j``; ``same_margin``: both margin ``i``; ``mean_e``: ``j`` moved."""
        b = self.margins[i]
        e = b if same_margin else self.margins[j]
        if mean_e is not None:
            e = e.with_mean(mean_e)
        return PairModel(b, e, self.copula(i, j))


def fit_collection(matrix, *, seed: SeedLike, bottom: float = 0.1, support="auto", n_jobs: int | None = None,
                   copula_method: str = "itau") -> CollectionModel:  # fmt: skip
    """Margins of every system of a score matrix, as Urbano, Lima & Hanjalic (2019, section 3) prepare it.

    Parameters
    ----------
    matrix : irrepro.data.ScoreMatrix
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The seed of the copulas' pseudo-observations.
    bottom : float
        The share of systems with the lowest means left out, after duplicates.
    support : "auto", None or array_like
        ``"auto"`` (P@k on 0, 1/k, ..., 1; others continuous), None (continuous) or the support.
    n_jobs : int or None
    copula_method : {"itau", "mle"}
        How copulas are fitted (``fit_copula``).

    Returns
    -------
    CollectionModel

    Examples
    --------
    >>> from irrepro.data import ScoreMatrix
    >>> from irrepro.simulation import fit_collection
    >>> scores = np.random.default_rng(0).beta(2, 5, (6, 25))
    >>> m = ScoreMatrix(scores, tuple(f"s{i}" for i in range(6)), tuple(str(t) for t in range(25)), "AP", "toy")
    >>> model = fit_collection(m, seed=1)
    >>> len(model.margins)  # the lowest 10% by mean left out
    5
    """
    x = _checked_scores(matrix, "matrix")
    keep = _remove_duplicates(x)
    mu = x[keep].mean(axis=1)
    keep = keep[mu >= np.quantile(mu, bottom)]
    if support == "auto":
        family, k = family_cutoff(matrix.measure)
        support = None if family != "P" or k is None else np.round(np.arange(k + 1) / k, 10)
    margins = parallel.parallel_map(lambda i: fit_margin(x[i], support=support), keep, n_jobs=n_jobs)
    systems = tuple(np.asarray(matrix.systems)[keep])
    return CollectionModel(matrix.collection, matrix.measure, systems, x[keep], list(margins),
                           parallel.as_seed_sequence(seed), copula_method)  # fmt: skip
