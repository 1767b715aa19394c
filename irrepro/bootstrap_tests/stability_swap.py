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
from .samples import (
    _as_matrix,
    _check_pairs,
    _check_samples,
    _summary,
    bootstrap_samples,
    bootstrap_summaries,
)

__all__ = ["Stability", "stability", "minority_rate_at", "SwapRates", "swap_rates"]


@dataclass(frozen=True)
class Stability:
    """Minority rate and proportion of ties at each fuzziness value (Sakai 2006, Figure 10)."""

    measure: str
    fuzziness: np.ndarray
    minority_rate: np.ndarray
    prop_ties: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"fuzziness": self.fuzziness, "MR": self.minority_rate, "PT": self.prop_ties}
        )


def minority_rate_at(st: Stability, prop_ties: float) -> float:
    """The minority rate of a stability curve (Figure 10) where its proportion of ties is
    ``prop_ties``, interpolated linearly (both grow with the fuzziness)."""
    return float(np.interp(prop_ties, st.prop_ties, st.minority_rate))


def _pair_summaries(scores, samples, summary, B, seed):
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

    For each pair (X, Y) and sample Q*b: if ``|M(X,Q*b) - M(Y,Q*b)| < f * max(M(X,Q*b), M(Y,Q*b))``
    the pair is a tie (EQ), else GT(X,Y) or GT(Y,X) counts the winner.
    ``MR = sum min(GT(X,Y), GT(Y,X)) / (B |C|)``, ``PT = sum EQ / (B |C|)``. ``fuzziness`` defaults to
    0.01, 0.02, ..., 0.20. The fuzziness is relative to the larger of the two scores, as in
    Buckley and Voorhees' method (our reading of Figure 9, whose formula the text does not show).
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
    """Swap rates per difference bin and the difference needed for swap rate <= threshold
    (Sakai 2006, Figure 11 and Table 3)."""

    measure: str
    bin_lower: np.ndarray
    counts: np.ndarray
    swaps: np.ndarray
    threshold: float
    abs_diff: float
    max_score: float
    sensitivity: float

    @property
    def swap_rate(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.counts > 0, self.swaps / np.maximum(self.counts, 1), np.nan)

    @property
    def rel_diff(self) -> float:
        """``abs_diff`` relative to the maximum score recorded over all trials."""
        return self.abs_diff / self.max_score if self.max_score > 0 else np.nan

    def table_row(self) -> dict:
        """The measure's row of Table 3: abs, rel, max and sensitivity."""
        return {
            "measure": self.measure,
            "abs": self.abs_diff,
            "rel": self.rel_diff,
            "max": self.max_score,
            "sensitivity": self.sensitivity,
        }


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
    """Swap method with two independent sets of bootstrap samples (Sakai 2006, section 3.5,
    Figure 11).

    For each pair and b: ``D*b = M(X,Q*b) - M(Y,Q*b)`` on the first set, ``D'*b`` on the second; the
    comparison falls in bin ``BIN(|D*b|)`` (``n_bins`` bins of ``bin_width``, the last one open:
    21 bins of 0.01 in the paper) and is a swap when ``D*b`` and ``D'*b`` have opposite signs.

    ``abs_diff`` (Table 3, "abs"): the lower edge of the first non-empty bin whose swap rate is
    <= ``threshold`` (our reading of "looking for bins whose swap rates do not exceed 5%"; the
    sparse bins of the largest differences hold a handful of comparisons and their rates are
    noise, so we do not require every later bin to stay under the threshold); ``max_score`` ("max"): the largest summary recorded in all trials (both sets);
    ``sensitivity``: the share of the P x B comparisons with ``|D*b| >= abs_diff``.
    When omitted, the two sample sets are drawn from two children of ``seed``.
    """
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
    if first_ok >= n_bins:
        abs_diff = np.nan
        sens = 0.0
    else:
        abs_diff = float(lower[first_ok])
        sens = float(np.mean(bins >= first_ok))
    max_score = float(max(m1.max(), m2.max()))
    return SwapRates(measure, lower, counts, swaps, threshold, abs_diff, max_score, sens)
