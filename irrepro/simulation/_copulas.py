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


# --------------------------------------------------------------------------------------------
# copulas
# --------------------------------------------------------------------------------------------


def pseudo_obs(x: np.ndarray, seed: SeedLike) -> np.ndarray:
    """Pseudo-observations: ranks / (n + 1) per column, ties broken at random.

    Parameters
    ----------
    x : numpy.ndarray
        Scores, (n, d).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Breaks ties.

    Returns
    -------
    numpy.ndarray
        Values in (0, 1), (n, d).

    Examples
    --------
    >>> from irrepro.simulation import pseudo_obs
    >>> pseudo_obs([[0.1], [0.3], [0.2]], seed=0).ravel()
    array([0.25, 0.75, 0.5 ])
    """
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
    """A bivariate copula of the paired scores ``x``, ``y`` (pyvinecopulib ``Bicop``).

    Parametric families (with rotations) selected by AIC; Urbano & Nagler (2018), section 3.3.

    Parameters
    ----------
    x, y : array_like
        Two systems' scores on the same topics.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Breaks ties in the pseudo-observations.
    method : {"itau", "mle"}
        How the parameters are estimated (inversion of Kendall's tau, or maximum likelihood).

    Returns
    -------
    pyvinecopulib.Bicop

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.simulation import fit_copula
    >>> x = np.random.default_rng(0).random(40)
    >>> cop = fit_copula(x, x ** 2, seed=1)
    >>> cop.tau > 0.9
    True
    """
    pv = _pyvinecopulib()
    u = pseudo_obs(np.column_stack([x, y]), seed)
    controls = pv.FitControlsBicop(
        family_set=pv.families.parametric, selection_criterion="aic", parametric_method=method
    )
    return pv.Bicop.from_data(u, controls=controls)


# --------------------------------------------------------------------------------------------
# pairs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PairModel:
    """Two systems' margins (``b`` the baseline, ``e`` the experimental) and their copula."""

    b: Margin
    e: Margin
    copula: pv.Bicop

    @property
    def delta(self) -> float:
        """The true difference of expected scores, E[e] - E[b]."""
        return self.e.mean - self.b.mean

    def uniforms(self, n_topics: int, trials: int, seed: SeedLike) -> tuple[np.ndarray, np.ndarray]:
        """``(trials, n_topics)`` copula draws by conditional inversion (u2 from the inverse h-function of u1)."""
        rng = parallel.as_generator(seed)
        u1 = rng.random(trials * n_topics)
        w = rng.random(trials * n_topics)
        u2 = self.copula.hinv1(np.column_stack([u1, w]))
        shape = (trials, n_topics)
        return u1.reshape(shape), np.clip(u2, 0.0, 1.0).reshape(shape)

    def sample(self, n_topics: int, trials: int, seed: SeedLike) -> tuple[np.ndarray, np.ndarray]:
        """Baseline and experimental scores, each ``(trials, n_topics)``."""
        u1, u2 = self.uniforms(n_topics, trials, seed)
        return self.b.ppf(u1), self.e.ppf(u2)
