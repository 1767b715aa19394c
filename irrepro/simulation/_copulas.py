"""The dependence of two systems' scores: pseudo-observations, copulas and the model of a pair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import parallel
from ..parallel import SeedLike
from ._margins import Margin, _pyvinecopulib

if TYPE_CHECKING:  # imported where it is used (_margins._pyvinecopulib)
    import pyvinecopulib as pv


def pseudo_obs(x: np.ndarray, seed: SeedLike) -> np.ndarray:
    """Pseudo-observations: ranks / (n + 1) per column, ties broken at random."""
    x = np.asarray(x, dtype=np.float64)
    rng = parallel.as_generator(seed)
    n = x.shape[0]
    out = np.empty_like(x)
    for j in range(x.shape[1]):
        jitter = rng.permutation(n)
        order = np.lexsort((jitter, x[:, j]))
        out[order, j] = np.arange(1, n + 1)
    return out / (n + 1)


def fit_copula(x, y, *, seed: SeedLike, method: str = "itau") -> pv.Bicop:
    """A bivariate copula of the paired scores ``x``, ``y`` (pyvinecopulib ``Bicop``)."""
    pv = _pyvinecopulib()
    u = pseudo_obs(np.column_stack([x, y]), seed)
    controls = pv.FitControlsBicop(
        family_set=pv.families.parametric, selection_criterion="aic", parametric_method=method
    )
    return pv.Bicop.from_data(u, controls=controls)


@dataclass(frozen=True, eq=False)
class PairModel:
    """Two systems' margins (``b`` the baseline, ``e`` the experimental) and their copula."""

    b: Margin
    e: Margin
    copula: pv.Bicop

    def uniforms(self, n_topics: int, trials: int, seed: SeedLike) -> tuple[np.ndarray, np.ndarray]:
        """``(trials, n_topics)`` copula draws by conditional inversion (u2 from the inverse h-function of u1)."""
        rng = parallel.as_generator(seed)
        u1 = rng.random(trials * n_topics)
        u2 = self.copula.hinv1(np.column_stack([u1, rng.random(trials * n_topics)]))
        return u1.reshape(trials, n_topics), np.clip(u2, 0.0, 1.0).reshape(trials, n_topics)

    def sample(self, n_topics: int, trials: int, seed: SeedLike) -> tuple[np.ndarray, np.ndarray]:
        """Baseline and experimental scores, each ``(trials, n_topics)``."""
        u1, u2 = self.uniforms(n_topics, trials, seed)
        return self.b.ppf(u1), self.e.ppf(u2)
