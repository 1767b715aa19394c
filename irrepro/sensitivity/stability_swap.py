"""The stability and swap methods on bootstrap topic samples (Sakai 2006, section 3.5, Figures
9-11, Table 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike
from ..significance._samples import (
    _as_matrix,
    _check_pairs,
    _check_samples,
    _summary,
    bootstrap_samples,
    bootstrap_summaries,
)


@dataclass(frozen=True)
class Stability:
    """Minority rate and proportion of ties at each fuzziness value (Sakai 2006, Figure 10)."""

    measure: str
    fuzziness: np.ndarray
    minority_rate: np.ndarray
    prop_ties: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """The curve as a table: columns fuzziness, MR and PT, a row per fuzziness value."""
        return pd.DataFrame({"fuzziness": self.fuzziness, "MR": self.minority_rate, "PT": self.prop_ties})

    def minority_rate_at(self, prop_ties: float) -> float:
        """The minority rate, interpolated linearly, at a proportion of ties (the end value beyond the curve)."""
        return float(np.interp(prop_ties, self.prop_ties, self.minority_rate))


def _pair_summaries(scores, samples, summary, B, seed):
    """Per system and bootstrap sample, the summary score; the systems and the measure's name."""
    x, systems, measure = _as_matrix(scores)
    s = _summary(summary)
    if s.kind == "gmean" and not measure.startswith("G_"):
        measure = f"G_{measure}" if measure else "G"
    m = bootstrap_summaries(x, samples, summary=summary, B=B, seed=seed)
    return m, systems, measure


def stability(
    scores,
    samples=None,
    *,
    fuzziness: Sequence[float] | None = None,
    summary="mean",
    pairs=None,
    B: int = 1000,
    seed: SeedLike = None,
) -> Stability:
    """Stability method on bootstrap topic samples (Sakai 2006, section 3.5, Figure 9).

    A pair is a tie on a sample when its difference is below ``f`` times the larger score (our reading);
    ``MR = sum min(GT(X,Y), GT(Y,X)) / (B |C|)``, ``PT = sum EQ / (B |C|)``.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
        ``(S, T)`` scores, summaries >= 0.
    samples : array_like, optional
        ``(B, T)`` bootstrap topic samples (:func:`bootstrap_samples`), drawn from ``seed`` when omitted.
    fuzziness : sequence of float, optional
        The fuzziness values ``f`` (default 0.01, 0.02, ..., 0.20).
    summary : str or callable
        ``"mean"``, ``"gmean"`` or a function reducing the last axis.
    pairs : array_like, optional
        ``(P, 2)`` system indices (default all pairs): the set C.
    B, seed : int, SeedLike
        The samples to draw when ``samples`` is omitted.

    Returns
    -------
    Stability

    Raises
    ------
    irrepro.InputError
        A summary below 0 (the fuzziness is relative); neither ``samples`` nor ``seed``.

    Examples
    --------
    >>> from irrepro import sensitivity as bt
    >>> st = bt.stability(scores, B=200, seed=1, fuzziness=[0.05, 0.1, 0.2])
    >>> st.to_frame().round(3)
       fuzziness     MR     PT
    0       0.05  0.020  0.180
    1       0.10  0.007  0.320
    2       0.20  0.000  0.583
    """
    m, systems, measure = _pair_summaries(scores, samples, summary, B, seed)
    if m.min() < 0:
        raise InputError("the stability method's fuzziness is relative: it needs summaries >= 0")
    pairs = _check_pairs(pairs, m.shape[0])
    f = np.round(np.arange(1, 21) * 0.01, 2) if fuzziness is None else np.asarray(fuzziness, float)
    a, b = m[pairs[:, 0]], m[pairs[:, 1]]  # (P, B)
    gap = np.abs(a - b)
    top = np.maximum(a, b)
    mr, pt = [], []
    n_tot = a.size
    for fz in f:
        eq = gap < fz * top
        gt_xy = np.sum(~eq & (a > b), axis=1)
        gt_yx = np.sum(~eq & (b > a), axis=1)
        mr.append(np.minimum(gt_xy, gt_yx).sum() / n_tot)
        pt.append(eq.sum() / n_tot)
    return Stability(measure, f, np.array(mr), np.array(pt))


@dataclass(frozen=True)
class SwapRates:
    """Swap rates per difference bin and the difference needed for a swap rate <= threshold."""

    measure: str
    bin_lower: np.ndarray
    counts: np.ndarray
    swaps: np.ndarray
    threshold: float
    abs_diff: float
    max_score: float
    sensitivity: float

    @property
    def rel_diff(self) -> float:
        """``abs_diff`` relative to the maximum score recorded over all trials."""
        return self.abs_diff / self.max_score if self.max_score > 0 else np.nan

    def table_row(self) -> dict:
        """The measure's row of Table 3: abs, rel, max and sensitivity."""
        return {"measure": self.measure, "abs": self.abs_diff, "rel": self.rel_diff, "max": self.max_score,
                "sensitivity": self.sensitivity}  # fmt: skip


def swap_rates(
    scores,
    samples=None,
    samples2=None,
    *,
    summary="mean",
    pairs=None,
    bin_width: float = 0.01,
    n_bins: int = 21,
    threshold: float = 0.05,
    B: int = 1000,
    seed: SeedLike = None,
) -> SwapRates:
    """Swap method with two independent sets of bootstrap samples (Sakai 2006, section 3.5)."""
    x, _, _ = _as_matrix(scores)
    n = x.shape[1]
    if samples is None or samples2 is None:
        if seed is None:
            raise InputError("pass seed or both sample sets")
        g1, g2 = parallel.spawn(seed, 2)
        samples = bootstrap_samples(n, B, seed=g1) if samples is None else samples
        samples2 = bootstrap_samples(n, B, seed=g2) if samples2 is None else samples2
    samples = _check_samples(samples, n, B, None)
    samples2 = _check_samples(samples2, n, B, None, "samples2")
    if samples.shape != samples2.shape:
        raise InputError("the two sample sets must have the same shape")
    m1, systems, measure = _pair_summaries(scores, samples, summary, B, None)
    m2, _, _ = _pair_summaries(scores, samples2, summary, B, None)
    pairs = _check_pairs(pairs, m1.shape[0])
    d1 = m1[pairs[:, 0]] - m1[pairs[:, 1]]
    d2 = m2[pairs[:, 0]] - m2[pairs[:, 1]]
    # Bin index; the small tolerance keeps e.g. |D| = 0.03 (in floating point 0.0299999...) in bin 3.
    bins = np.minimum(np.floor(np.abs(d1) / bin_width + 1e-9).astype(int), n_bins - 1)
    counts = np.bincount(bins.ravel(), minlength=n_bins)
    swaps = np.bincount(bins.ravel(), weights=(d1 * d2 < 0).ravel(), minlength=n_bins)
    rate = np.where(counts > 0, swaps / np.maximum(counts, 1), np.inf)
    ok = np.nonzero(rate <= threshold)[0]
    first_ok = int(ok[0]) if len(ok) else n_bins
    lower = np.round(np.arange(n_bins) * bin_width, 10)
    found = first_ok < n_bins
    abs_diff = float(lower[first_ok]) if found else np.nan
    sens = float(np.mean(bins >= first_ok)) if found else 0.0
    max_score = float(max(m1.max(), m2.max()))
    return SwapRates(measure, lower, counts, swaps, threshold, abs_diff, max_score, sens)
