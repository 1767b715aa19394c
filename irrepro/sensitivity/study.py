"""Everything of Sakai (2006) sections 3 and 4 for several measures of the same runs, on shared
bootstrap topic samples, in one call (Tables 2 and 3, Figures 7-13): the stability and swap methods
(section 3.5, Figures 9-11, Table 3), and Kendall's tau between the rankings by two measures, its
bootstrap standard error and the Z0 test (section 4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from .. import parallel
from ..data import ScoreMatrix
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
from ..significance.bootstrap import BootstrapResult, paired_bootstrap_test, unpaired_bootstrap_test
from ..stats import bootstrap_sd, kendall_tau


def sensitivity(
    tests: dict[str, BootstrapResult] | Sequence[BootstrapResult], alpha: float = 0.05
) -> pd.DataFrame:
    """Sakai's (2006) Table 2: the pairs with ASL < alpha and the difference that requires, most sensitive first.

    Parameters
    ----------
    tests : dict or sequence of BootstrapResult
        Name -> test, or tests named by their measure.
    alpha : float

    Returns
    -------
    pandas.DataFrame
        Columns measure, significant, pairs, sensitivity %, required difference; one row per test.

    Examples
    --------
    >>> from irrepro import sensitivity as bt, significance as sg
    >>> tests = {"A": sg.paired_bootstrap_test(scores, B=200, seed=1), "B": sg.paired_bootstrap_test(scores**2, B=200, seed=1)}
    >>> bt.sensitivity(tests, alpha=0.1).round(2)
      measure  significant  pairs  sensitivity %  required difference
    0       A            1      3          33.33                 0.08
    1       B            1      3          33.33                 0.11
    """
    items = tests.items() if isinstance(tests, dict) else [(t.measure, t) for t in tests]
    rows = []
    for name, t in items:
        rows.append(
            {
                "measure": name,
                "significant": int(np.sum(t.p < alpha)),
                "pairs": len(t.p),
                "sensitivity %": 100 * t.discriminative_power(alpha),
                "required difference": t.required_difference(alpha),
            }
        )
    frame = pd.DataFrame(rows)
    return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class MeasureStudy:
    """Sakai's (2006) comparison of several measures on one set of runs, on shared samples."""

    names: tuple[str, ...]
    paired: dict
    unpaired: dict
    stability: dict
    swap: dict
    rank_correlations: dict
    seed: Any
    B: int

    def table2(self, test: str = "bootstrap", alpha: float = 0.05) -> pd.DataFrame:
        """Discriminative power and estimated required difference (Table 2), most sensitive first."""
        if test == "unpaired-bootstrap":
            return sensitivity(self.unpaired, alpha)
        if test != "bootstrap":
            raise InputError(f"test must be 'bootstrap' or 'unpaired-bootstrap', not {test!r}")
        # the paired test of a geometric mean G_X is the test of its AG_ form
        tests = {
            ("AG_" + k.removeprefix("G_")) if t.measure.startswith("AG") else k: t
            for k, t in self.paired.items()
        }
        return sensitivity(tests, alpha)

    def table3(self) -> pd.DataFrame:
        """Swap-method differences and sensitivity (Table 3), most sensitive first."""
        rows = [self.swap[k].table_row() | {"measure": k} for k in self.names]
        frame = pd.DataFrame(rows)
        frame["sensitivity %"] = 100 * frame.pop("sensitivity")
        return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)

    def matrix(self, attr: str = "tau") -> pd.DataFrame:
        """Kendall's ``"tau"`` (Figure 12) or its ``"se_boot"`` (Figure 13) per pair of measures, lower triangle."""
        if attr not in ("tau", "se_boot"):
            raise InputError(f"matrix takes 'tau' or 'se_boot', not {attr!r}")
        out = pd.DataFrame(np.nan, index=list(self.names), columns=list(self.names))
        for (a, b), rc in self.rank_correlations.items():
            out.loc[b, a] = getattr(rc, attr)
        return out


#: The parts of a :func:`measure_study`: the paired and unpaired tests (Sakai 2006, sections 3.1-3.2),
#: the stability and swap methods (3.5) and the rank correlations between measures (4).
_PARTS = ("paired", "unpaired", "stability", "swap", "rank")


def measure_study(
    matrices: dict,
    *,
    B: int = 1000,
    seed: SeedLike,
    fuzziness: Sequence[float] | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
    parts: Sequence[str] = _PARTS,
) -> MeasureStudy:
    """Sakai (2006) sections 3 and 4 (Tables 2-3, Figures 7-13) on several measures of the same runs.

    Parameters
    ----------
    matrices : dict
        Name -> ScoreMatrix (or ``(S, T)`` array), or -> ``(ScoreMatrix, "gmean")`` for a geometric
        mean; all of the same systems and topics.
    B, seed : int, SeedLike
        Bootstrap samples per set (three sets, from children of ``seed``).
    fuzziness : sequence of float, optional
        The stability method's fuzziness values (:func:`stability`).
    n_jobs, progress
        Workers; a progress bar over the measures.
    parts : sequence of str
        Which of ``"paired"``, ``"unpaired"``, ``"stability"``, ``"swap"``, ``"rank"`` to compute (default
        all; one left out is an empty dict); each is the whole study's with the same seed.

    Returns
    -------
    MeasureStudy

    Raises
    ------
    irrepro.InputError
        The matrices differ in shape; a summary other than ``"mean"`` or ``"gmean"``; a part not
        among those five.

    Examples
    --------
    >>> from irrepro import sensitivity as bt
    >>> from irrepro.data import ScoreMatrix
    >>> a, b = np.vstack([scores, [0.3, 0.7, 0.4, 0.6, 0.5]]), scores_b
    >>> systems, topics = ("a", "b", "c", "d"), ("1", "2", "3", "4", "5")
    >>> ap, q = ScoreMatrix(a, systems, topics, "AP"), ScoreMatrix(b, systems, topics, "Q")
    >>> study = bt.measure_study({"AP": ap, "G_AP": (ap, "gmean"), "Q": q}, B=200, seed=1)
    >>> study.names, study.paired["G_AP"].measure
    (('AP', 'G_AP', 'Q'), 'AG_AP')
    """
    unknown = sorted(set(parts) - set(_PARTS))
    if unknown:
        raise InputError(f"measure_study: parts {unknown} unknown; choose from {list(_PARTS)}")
    items = {}
    for name, v in matrices.items():
        m, how = (v, "mean") if not isinstance(v, tuple) else v
        items[name] = (m, _summary(how).kind)
    shapes = {_as_matrix(m)[0].shape for m, _ in items.values()}
    if len(shapes) != 1:
        raise InputError(f"the matrices differ in shape: {sorted(shapes)}")
    n = shapes.pop()[1]
    g_p, g_u, g_2 = parallel.spawn(seed, 3)
    sp = bootstrap_samples(n, B, seed=g_p)
    su = bootstrap_samples(2 * n, B, seed=g_u)
    s2 = bootstrap_samples(n, B, seed=g_2)
    from tqdm import tqdm

    paired, unpaired, stab, swap = {}, {}, {}, {}
    for name, (m, how) in tqdm(items.items(), desc="measures", disable=not progress):
        if how == "callable":
            raise InputError("measure_study takes 'mean' or 'gmean' summaries")
        if "paired" in parts:
            paired[name] = paired_bootstrap_test(m, samples=sp, log=how == "gmean", n_jobs=n_jobs)
        if "unpaired" in parts:
            unpaired[name] = unpaired_bootstrap_test(m, samples=su, summary=how, n_jobs=n_jobs)
        if "stability" in parts:
            stab[name] = stability(m, sp, summary=how, fuzziness=fuzziness)
        if "swap" in parts:
            swap[name] = swap_rates(m, sp, s2, summary=how)
    names = tuple(items)
    rc = {}
    for i, a in enumerate(names if "rank" in parts else ()):
        for b in names[i + 1 :]:
            rc[(a, b)] = rank_correlation(
                items[a][0], items[b][0], sp, summary_a=items[a][1], summary_b=items[b][1]
            )
    return MeasureStudy(names, paired, unpaired, stab, swap, rc, seed, B)


def _geometric_consistent(study: MeasureStudy, measure: str) -> bool:
    """Do the paired and the unpaired test rank a geometric mean on the same side of its measure?"""
    paired, unpaired = (
        np.sign(tests[f"G_{measure}"].discriminative_power() - tests[measure].discriminative_power())
        for tests in (study.paired, study.unpaired)
    )
    return bool(paired == unpaired)


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau between the system rankings by two measures, its bootstrap error and test."""

    measures: tuple[str, str]
    tau: float
    se_boot: float
    z0: float
    p_value: float
    replicates: np.ndarray = field(repr=False)


def _z0(tau, n_s: int):
    """Z0 = 3 tau sqrt(n_s (n_s - 1)) / sqrt(2 (2 n_s + 5)), standard normal under no association."""
    return 3 * np.asarray(tau) * np.sqrt(n_s * (n_s - 1)) / np.sqrt(2 * (2 * n_s + 5))


def _tau_threshold(n_systems: int, alpha: float = 0.01) -> float:
    """The smallest ``|tau|`` significant at ``alpha`` (two-tailed) under the Z0 test."""
    return float(norm.ppf(1 - alpha / 2) / _z0(1.0, n_systems))


def rank_correlation(scores_a, scores_b, samples, *, summary_a="mean", summary_b="mean") -> RankCorrelation:
    """Kendall's tau between the rankings of the same systems by two measures, with its bootstrap error."""
    xa, sys_a, meas_a = _as_matrix(scores_a)
    xb, sys_b, meas_b = _as_matrix(scores_b)
    if xa.shape != xb.shape:
        raise InputError(f"the two score matrices differ in shape: {xa.shape} vs {xb.shape}")
    if isinstance(scores_a, ScoreMatrix) and isinstance(scores_b, ScoreMatrix) and sys_a != sys_b:
        raise InputError("the two score matrices list different systems (or in another order)")
    samples = _check_samples(samples, xa.shape[1], 0, None)
    sa, sb = _summary(summary_a), _summary(summary_b)
    tau = float(kendall_tau(sa.apply(xa), sb.apply(xb)))
    ma = bootstrap_summaries(xa, samples, summary=summary_a)
    mb = bootstrap_summaries(xb, samples, summary=summary_b)
    reps = kendall_tau(ma.T, mb.T)  # (B,)
    se = float(bootstrap_sd(reps))
    z0 = float(_z0(abs(tau), xa.shape[0]))
    name_a = ("G_" if sa.kind == "gmean" else "") + meas_a
    name_b = ("G_" if sb.kind == "gmean" else "") + meas_b
    return RankCorrelation((name_a, name_b), tau, se, z0, float(2 * norm.sf(z0)), reps)


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


def _pair_summaries(scores, samples, summary, B: int = 0, seed: SeedLike = None):
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
    samples,
    samples2,
    *,
    summary="mean",
    bin_width: float = 0.01,
    n_bins: int = 21,
) -> SwapRates:
    """Swap method with two independent ``(B, T)`` sets of bootstrap samples (Sakai 2006, section 3.5)."""
    x, _, _ = _as_matrix(scores)
    samples = _check_samples(samples, x.shape[1], 0, None)
    samples2 = _check_samples(samples2, x.shape[1], 0, None, "samples2")
    if samples.shape != samples2.shape:
        raise InputError("the two sample sets must have the same shape")
    m1, systems, measure = _pair_summaries(scores, samples, summary)
    m2, _, _ = _pair_summaries(scores, samples2, summary)
    i, j = np.triu_indices(m1.shape[0], k=1)  # every pair
    d1 = m1[i] - m1[j]
    d2 = m2[i] - m2[j]
    # Bin index; the small tolerance keeps e.g. |D| = 0.03 (in floating point 0.0299999...) in bin 3.
    bins = np.minimum(np.floor(np.abs(d1) / bin_width + 1e-9).astype(int), n_bins - 1)
    counts = np.bincount(bins.ravel(), minlength=n_bins)
    swaps = np.bincount(bins.ravel(), weights=(d1 * d2 < 0).ravel(), minlength=n_bins)
    rate = np.where(counts > 0, swaps / np.maximum(counts, 1), np.inf)
    threshold = 0.05  # the paper's swap rate
    ok = np.nonzero(rate <= threshold)[0]
    first_ok = int(ok[0]) if len(ok) else n_bins
    lower = np.round(np.arange(n_bins) * bin_width, 10)
    found = first_ok < n_bins
    abs_diff = float(lower[first_ok]) if found else np.nan
    sens = float(np.mean(bins >= first_ok)) if found else 0.0
    max_score = float(max(m1.max(), m2.max()))
    return SwapRates(measure, lower, counts, swaps, threshold, abs_diff, max_score, sens)
