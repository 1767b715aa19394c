"""The GROWTH-style exponential fit of the swap experiment's error rates (Sanderson & Zobel 2005, sec. 3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._results import SwapExperiment


@dataclass(frozen=True)
class GrowthFit:
    """error(n) = exp(log_a + b n) per bin, fitted by least squares on log(error) (Excel's GROWTH).

    Attributes
    ----------
    labels : tuple of str
    log_a, b : numpy.ndarray
        The fitted intercept (of the logarithm) and slope per bin.
    projected : numpy.ndarray
        The fitted error at ``at`` topics per bin (NaN when the bin was not fitted).
    n_points : numpy.ndarray
        The sizes used per bin.
    at : int
        The size projected to.
    threshold : float
        The error a reliable bin stays below (:meth:`first_reliable`).

    Examples
    --------
    >>> from irrepro.topic_split import GrowthFit
    >>> fit = GrowthFit(("0-5%", "5-10%"), np.log([0.4, 0.3]), np.array([-0.01, -0.05]),
    ...                 np.array([0.4, 0.3]) * np.exp(np.array([-0.01, -0.05]) * 50), np.array([5, 5]), 50)
    >>> fit.first_reliable()
    '5-10%'
    """

    labels: tuple[str, ...]
    log_a: np.ndarray
    b: np.ndarray
    projected: np.ndarray
    n_points: np.ndarray
    at: int
    threshold: float = 0.05

    def predict(self, n) -> np.ndarray:
        """Fitted error at sizes ``n``, ``(bins, len(n))``."""
        n = np.atleast_1d(np.asarray(n, dtype=float))
        return np.exp(self.log_a[:, None] + self.b[:, None] * n[None, :])

    def first_reliable(self) -> str | None:
        """Label of the smallest bin whose projected error is below ``threshold`` (None if none)."""
        ok = np.flatnonzero(self.projected < self.threshold)
        return self.labels[ok[0]] if len(ok) else None

    def table(self) -> pd.DataFrame:
        """The fit per bin: ``bin``, ``a``, ``b``, ``error at <at>`` and ``sizes used``."""
        cols = {
            "bin": self.labels,
            "a": np.exp(self.log_a),
            "b": self.b,
            f"error at {self.at}": self.projected,
        }
        return pd.DataFrame(cols | {"sizes used": self.n_points})


def growth_fit(
    result: SwapExperiment,
    *,
    filter: str = "none",
    kind: str = "relative",
    at: int = 50,
    min_trials: int = 20,
    min_points: int = 3,
    threshold: float = 0.05,
) -> GrowthFit:
    """Fit error = a exp(b n) per bin (Excel's GROWTH: least squares on log error), projected to ``at`` topics.

    Sizes with fewer than ``min_trials`` trials or no error are left out; a bin with fewer than
    ``min_points`` sizes left is not fitted (NaN).

    Parameters
    ----------
    result : SwapExperiment
    filter : str
    kind : {"relative", "absolute"}
    at : int
        The paper's 50.
    min_trials, min_points : int
        See above.
    threshold : float
        For :meth:`GrowthFit.first_reliable`.

    Returns
    -------
    GrowthFit

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import synthetic
    >>> m = synthetic.score_matrix(8, 50, seed=1)
    >>> res = ts.swap_experiment([m], sizes=[5, 10, 15, 20], B=20, seed=2, filters=["none"])
    >>> fit = ts.growth_fit(res, at=50)
    >>> bool((fit.b[fit.n_points >= 3] < 0).all())   # the error falls with the topics
    True
    """
    f, k = result._fk(filter, kind)
    tr = result.trials[f, k].T.astype(float)  # (bins, sizes)
    er = result.errors[f, k].T.astype(float)
    n = result.sizes.astype(float)
    use = (tr >= min_trials) & (er > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(er / tr)
    w = use.astype(float)
    cnt = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        nbar = (w * n).sum(1) / cnt
        ybar = np.where(use, y, 0).sum(1) / cnt
        sxx = (w * (n - nbar[:, None]) ** 2).sum(1)
        sxy = np.where(use, (n - nbar[:, None]) * (y - ybar[:, None]), 0).sum(1)
        b = sxy / sxx
    ok = cnt >= min_points
    b = np.where(ok, b, np.nan)
    log_a = np.where(ok, ybar - b * nbar, np.nan)
    return GrowthFit(
        tuple(result.bin_labels(kind)), log_a, b, np.exp(log_a + b * at), cnt.astype(int), at, threshold
    )


def _bin_lower_edge(label: str | None) -> float:
    """The lower edge, in %, of a bin label such as ``"25-30%"`` (NaN for ``None``)."""
    return float(label.split("-")[0]) if label else float("nan")


def _largest_projected_error(fit: GrowthFit) -> float:
    """The largest projected error at ``fit.at`` topics over the fitted bins (NaN if none)."""
    p = fit.projected
    return float(np.nanmax(p)) if np.isfinite(p).any() else float("nan")
