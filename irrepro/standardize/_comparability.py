"""Comparability of collections (Webber, Moffat & Zobel 2008, sections 4 and 5): per-collection
summaries, dRMSE and self-significance, random topic halves, collection pairs against them and
sampled standardizing systems."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from .. import _spread
from ..errors import InputError
from ..parallel import SeedLike, as_generator, check_int, check_scale, parallel_map, spawn
from ..significance.classical import paired_t_pvalues, two_sample_t_pvalues
from ..stats import check_level
from ..stats import kendall_tau as _kendall_tau
from ._scores import _checked_scores, _z, factors, standardize


def mean_intervals(scores, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each system's mean score with its t interval over topics, ``mean +- t_{T-1} sd / sqrt(T)`` (Figure 2).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    level : float, default 0.95
        A fraction or a percentage.

    Returns
    -------
    mean, low, high : numpy.ndarray
        Each ``(S,)``.

    Examples
    --------
    >>> from irrepro.standardize import mean_intervals
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> [a.round(3) for a in mean_intervals(x)]
    [array([0.267, 0.467, 0.267]), array([-0.25 , -0.05 ,  0.123]), array([0.784, 0.984, 0.41 ])]
    """
    level = check_level(level)
    x = _checked_scores(scores)
    t = x.shape[1]
    m, sd = _spread.mean_sd(x, axis=1)
    half = stats.t.ppf(0.5 + level / 2, t - 1) * sd / np.sqrt(t)
    return m, m - half, m + half


def percentile_items(values, q: Sequence[float] = (1, 10, 40, 75)) -> np.ndarray:
    """Indices of the items at the ``q``-th percentiles, best first: position ``ceil(q n / 100)`` (Table 1).

    Parameters
    ----------
    values : array_like
        One value per item (e.g. system means).
    q : sequence of float, default (1, 10, 40, 75)
        The percentiles.

    Returns
    -------
    numpy.ndarray
        Indices into ``values``, one per percentile.

    Examples
    --------
    >>> from irrepro.standardize import percentile_items
    >>> percentile_items([0.3, 0.9, 0.5, 0.1], q=(25, 50, 100))
    array([1, 2, 3])
    """
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(-v, kind="stable")
    pos = np.clip(np.ceil(np.asarray(q, dtype=float) / 100 * len(v)).astype(int) - 1, 0, len(v) - 1)
    return order[pos]


def item_total_correlation(scores, *, corrected: bool = True) -> np.ndarray:
    """Each topic's Pearson correlation over systems with the systems' total score (Bodoff & Li 2007).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    corrected : bool, default True
        Correlate with the total over the other topics, or over all topics.

    Returns
    -------
    numpy.ndarray
        ``(T,)``; NaN for a topic (or total) that does not vary over systems.

    Examples
    --------
    >>> from irrepro.standardize import item_total_correlation
    >>> x = np.array([[0.2, 0.5, 0.1], [0.4, 0.7, 0.3], [0.3, 0.3, 0.2]])
    >>> item_total_correlation(x).round(3)
    array([0.756, 0.5  , 0.756])
    """
    x = _checked_scores(scores)
    total = x.sum(axis=1, keepdims=True)
    other = total - x if corrected else np.broadcast_to(total, x.shape)
    xc = _spread.centred(x, axis=0)  # a topic every system scores the same on: exactly 0
    oc = _spread.centred(other, axis=0)
    den = np.sqrt((xc**2).sum(axis=0) * (oc**2).sum(axis=0))
    return np.divide((xc * oc).sum(axis=0), den, out=np.full(x.shape[1], np.nan), where=den > 0)


def drmse(a, b, *, ddof: int = 1) -> np.ndarray:
    """The sd-normalized RMSE of system means on two collections, ``RMSE(a, b) / ((sd(a) + sd(b)) / 2)`` (eq. 4).

    Parameters
    ----------
    a, b : array_like
        System means on the two collections, ``(..., S)`` with S >= 2 (leading axes: batches).
    ddof : int, default 1

    Returns
    -------
    numpy.ndarray or float
        Shape ``(...)``; NaN where neither collection's means vary.

    Examples
    --------
    >>> from irrepro.standardize import drmse
    >>> float(drmse([0.2, 0.3, 0.4], [0.25, 0.3, 0.5]).round(3))
    0.556
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.shape[-1] < 2:
        raise InputError(f"a and b need the same shape with >= 2 systems, got {a.shape} and {b.shape}")
    rmse = np.sqrt(np.mean((a - b) ** 2, axis=-1))
    den = np.asarray(_spread.sd(a, ddof=ddof) + _spread.sd(b, ddof=ddof))
    # undefined (NaN, no warning) where neither collection's means vary, e.g. every score 0
    out = np.divide(2 * rmse, den, out=np.full(den.shape, np.nan), where=den > 0)
    return out[()]


def self_significance(scores_c, scores_d, *, alpha: float = 0.05) -> np.ndarray:
    """Which systems a two-sample t-test finds significantly different from themselves on two collections."""
    c, d = _checked_scores(scores_c), _checked_scores(scores_d)
    if c.shape[0] != d.shape[0]:
        raise InputError("both collections need the same systems (rows)")
    flat = _spread.constant(c, axis=1) & _spread.constant(d, axis=1)
    p = np.full(len(c), np.nan)
    if not flat.all():
        p[~flat] = stats.ttest_ind(c[~flat], d[~flat], axis=1).pvalue
    # no spread on either collection: t = +-inf (p = 0) between two scores, 0/0 for one score
    p[flat] = np.where(c[flat, 0] == d[flat, 0], np.nan, 0.0)
    return np.nan_to_num(p, nan=1.0) < alpha


def binomial_interval(k, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a rate ``k / n`` at ``level`` (a fraction or a percentage)."""
    level = check_level(level)
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def discriminative_power(scores, *, alpha: float = 0.05) -> float:
    """The share of system pairs a two-sided paired t-test over topics finds significant (Sakai 2006).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
    alpha : float, default 0.05

    Returns
    -------
    float

    Examples
    --------
    >>> from irrepro.standardize import discriminative_power
    >>> x = np.array([[0.2, 0.5, 0.1, 0.4], [0.4, 0.7, 0.3, 0.7], [0.3, 0.3, 0.2, 0.2]])
    >>> round(discriminative_power(x), 3)
    0.333
    """
    return float(np.mean(significant_pairs(scores, alpha=alpha)))


def significant_pairs(scores, *, alpha: float = 0.05) -> np.ndarray:
    """Per system pair (``numpy.triu_indices`` order), whether a paired t-test finds it significant."""
    x = _checked_scores(scores)
    i, j = np.triu_indices(x.shape[0], 1)
    p = paired_t_pvalues(x[i] - x[j])  # scipy's ttest_rel, with exact degenerate pairs
    return np.nan_to_num(p, nan=1.0) < alpha


def rank_agreement(a, b) -> tuple[float, float]:
    """Kendall's tau and Pearson's r between two vectors of system scores (Table 2).

    Parameters
    ----------
    a, b : array_like
        One score per system each, in the same system order.

    Returns
    -------
    tuple of float
        (Kendall's tau, Pearson's r).

    Examples
    --------
    >>> from irrepro.standardize import rank_agreement
    >>> [round(v, 3) for v in rank_agreement([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.5])]
    [0.667, 0.832]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(_kendall_tau(a, b)), float(stats.pearsonr(a, b)[0])


def default_partitions(scale: str = "paper") -> int:
    """The number of random partitions per experiment: 1000 at the paper scale, 50 at the quick one.

    Parameters
    ----------
    scale : {"paper", "quick"}
        The scale (the caller reads ``IRREPRO_SCALE``).

    Returns
    -------
    int

    Examples
    --------
    >>> from irrepro.standardize import default_partitions
    >>> default_partitions(), default_partitions("quick")
    (1000, 50)
    """
    return 1000 if check_scale(scale) != "quick" else 50


def random_halves(n_topics: int, n: int, seed: SeedLike) -> np.ndarray:
    """``n`` random halvings of ``n_topics`` topics: bool (n, n_topics), True for the first floor(T/2)."""
    n = check_int(n, "n", minimum=1)
    if n_topics < 4:
        raise InputError("need at least 4 topics to split into halves")
    rng = as_generator(seed)
    ranks = np.argsort(rng.random((n, n_topics)), axis=1).argsort(axis=1)
    return ranks < n_topics // 2


@dataclass(frozen=True)
class PartitionResult:
    """The random-halves experiment's results, one value per partition."""

    drmse: np.ndarray
    false_positive: np.ndarray
    n_systems: int
    alpha: float

    def summary(self, level: float = 0.95) -> dict:
        """Mean and the central ``level`` interval (a fraction or a percentage) of both quantities."""
        level = check_level(level)
        lo, hi = 50 * (1 - level), 50 * (1 + level)
        out: dict[str, float] = {}
        for name, v in (("dRMSE", self.drmse), ("FP", self.false_positive)):
            low, high = float(np.percentile(v, lo)), float(np.percentile(v, hi))
            out |= {f"{name} mean": float(v.mean()), f"{name} low": low, f"{name} high": high}
        return out

    def summary_se(self, level: float = 0.95) -> dict:
        """The Monte Carlo standard errors of :meth:`summary`'s numbers."""
        from scipy.stats import mstats

        level = check_level(level)
        probs = [0.5 * (1 - level), 0.5 * (1 + level)]
        out: dict[str, float] = {}
        for name, v in (("dRMSE", self.drmse), ("FP", self.false_positive)):
            v = np.asarray(v, dtype=float)
            if v.size < 2:
                out |= {f"{name} {k}": float("nan") for k in ("mean", "low", "high")}
                continue
            out[f"{name} mean"] = float(_spread.sd(v) / np.sqrt(v.size))
            lo, hi = (float(s) for s in mstats.mjci(v, prob=probs))
            out[f"{name} low"], out[f"{name} high"] = lo, hi
        return {k: out[k] for k in self.summary(level)}

    def percentile_of(self, observed: float) -> float:
        """Share of partitions with dRMSE below an observed collection pair's dRMSE (in %)."""
        return float(100 * np.mean(self.drmse < observed))

    def percentile_se(self, percentile: float) -> float:
        """The Monte Carlo standard error of a percentile among the partitions (in %)."""
        b = self.drmse.size
        p = min(max(float(percentile) / 100, 0.5 / b), 1 - 0.5 / b)
        return float(100 * np.sqrt(p * (1 - p) / b))


def _halves_block(x: np.ndarray, masks: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """dRMSE and false-positive share of the halves ``masks`` (b, T); squares about each system's mean."""
    a = masks.astype(np.float64)
    n_s, n_t = x.shape
    na = a.sum(axis=1, keepdims=True)
    nb = n_t - na
    centre = _spread.mean(x, axis=1)
    xc = x - centre[:, None]
    y = np.vstack([xc, xc**2])  # one product gives first-half sums and sums of squares
    part = a @ y.T  # (b, 2S)
    tot = y.sum(axis=1)
    sa, qa = part[:, :n_s], part[:, n_s:]
    sb, qb = tot[:n_s] - sa, tot[n_s:] - qa
    ca, cb = sa / na, sb / nb  # centred half means, (b, S)
    ssa = qa - na * ca**2
    ssb = qb - nb * cb**2
    ma, mb = ca + centre, cb + centre
    d = drmse(ma, mb)
    p = two_sample_t_pvalues(ma, mb, ssa, ssb, na, nb)
    fp = (np.nan_to_num(p, nan=1.0) < alpha).mean(axis=1)
    return d, fp


def partition_experiment(
    scores,
    B: int | None = None,
    *,
    seed: SeedLike,
    alpha: float = 0.05,
    n_jobs: int | None = None,
    block: int = 100,
    progress: bool | str = False,
    scale: str = "paper",
) -> PartitionResult:
    """dRMSE and self-significance between the halves of ``B`` random topic splits (section 5, Figures 5-6).

    Parameters
    ----------
    scores : array_like or irrepro.data.ScoreMatrix
        Systems x topics, already in the form to compare: raw, R-normalized or standardized.
    B : int, optional
        Number of partitions; None: :func:`default_partitions` of ``scale``.
    seed : int, numpy.random.Generator or SeedSequence
    alpha : float, default 0.05
    n_jobs : int, optional
        Workers (the values do not depend on them).
    block : int, default 100
        Partitions per task (each with its own child seed).
    progress : bool or str, default False
        A progress bar (a str: its label).
    scale : {"paper", "quick"}
        The size ``B=None`` stands for.

    Returns
    -------
    PartitionResult
    """
    x = _checked_scores(scores)
    B = check_int(default_partitions(scale) if B is None else B, "B", minimum=1)
    sizes = [min(block, B - s) for s in range(0, B, block)]
    rngs = spawn(seed, len(sizes))

    def task(i):
        return _halves_block(x, random_halves(x.shape[1], sizes[i], rngs[i]), alpha)

    d, fp = zip(*parallel_map(task, range(len(sizes)), n_jobs=n_jobs, progress=progress))
    return PartitionResult(np.concatenate(d), np.concatenate(fp), x.shape[0], alpha)


@dataclass(frozen=True)
class CollectionPair:
    """Two collections compared on the same systems (Tables 3-5)."""

    drmse: float
    n_significant: int
    n_systems: int
    interval: tuple[float, float]
    random: PartitionResult

    @property
    def percentile(self) -> float:
        """Percentile of the observed dRMSE among the random halves' dRMSE."""
        return self.random.percentile_of(self.drmse)


def compare_collections(
    scores_c,
    scores_d,
    B: int | None = None,
    *,
    seed: SeedLike,
    alpha: float = 0.05,
    n_jobs: int | None = None,
    scale: str = "paper",
) -> CollectionPair:
    """dRMSE and self-significance of the same systems on collections C and D, and of random halves (5.2).

    Parameters
    ----------
    scores_c, scores_d : array_like or irrepro.data.ScoreMatrix
        Systems x topics scores on C and on D (the same systems).
    B : int, optional
        Number of random partitions; None: :func:`default_partitions` of ``scale``.
    seed : int, numpy.random.Generator or SeedSequence
    alpha : float, default 0.05
    n_jobs : int, optional
        Workers (the values do not depend on them).
    scale : {"paper", "quick"}
        The size ``B=None`` stands for.

    Returns
    -------
    CollectionPair

    Examples
    --------
    >>> x = np.random.default_rng(0).random((5, 20)) + np.linspace(0, 0.5, 5)[:, None]
    >>> from irrepro.standardize import compare_collections
    >>> c = compare_collections(x[:, :10], x[:, 10:], 20, seed=1)
    >>> round(c.drmse, 3), c.n_significant, c.n_systems, c.percentile
    (0.593, 1, 5, 80.0)
    """
    c, d = _checked_scores(scores_c), _checked_scores(scores_d)
    sig = self_significance(c, d, alpha=alpha)
    rand = partition_experiment(np.hstack([c, d]), B, seed=seed, alpha=alpha, n_jobs=n_jobs, scale=scale)
    return CollectionPair(
        float(drmse(c.mean(axis=1), d.mean(axis=1))),
        int(sig.sum()),
        len(sig),
        binomial_interval(sig.sum(), len(sig)),
        rand,
    )


@dataclass(frozen=True)
class SampledStandardizers:
    """Kendall's tau between the rankings from sampled and from all standardizing systems."""

    sizes: np.ndarray
    taus: np.ndarray

    def percentiles(self, q: Sequence[float] = (50, 5, 1)) -> pd.DataFrame:
        """Lowest-percentiles of tau per size (the paper's median, 95th and 99th lowest: q = 50, 5, 1)."""
        p = np.percentile(self.taus, q, axis=1)
        return pd.DataFrame(
            {f"q{g:g}": p[k] for k, g in enumerate(q)}, index=pd.Index(self.sizes, name="systems")
        )

    def smallest_size_beating(self, threshold: float, q: float = 1) -> int | None:
        """The fewest systems from which on (larger sizes too) the q-th lowest tau exceeds ``threshold``."""
        p = np.percentile(self.taus, q, axis=1)
        return _fewest(self.sizes, p > threshold)

    def smallest_size_se(
        self, threshold: float, q: float = 1, *, n_resamples: int = 200, seed: SeedLike = 0
    ) -> float:
        """The bootstrap standard error of :meth:`smallest_size_beating`."""
        n_resamples = check_int(n_resamples, "n_resamples", minimum=2)
        rng = as_generator(seed)
        k, b = self.taus.shape
        idx = rng.integers(0, b, size=(n_resamples, k, b))
        boot = np.take_along_axis(np.broadcast_to(self.taus, (n_resamples, k, b)), idx, axis=2)
        p = np.percentile(boot, q, axis=2)  # (n_resamples, k)
        sizes = [_fewest(self.sizes, row > threshold) for row in p]
        found = np.array([s for s in sizes if s is not None], dtype=float)
        return float(_spread.sd(found)) if found.size > 1 else float("nan")


def _fewest(sizes: np.ndarray, ok: np.ndarray) -> int | None:
    """The smallest size from which every larger size is ``ok``."""
    for k in range(len(ok)):
        if ok[k:].all():
            return int(sizes[k])
    return None


def sampled_standardizers(
    standardizing,
    evaluated,
    sizes: Sequence[int],
    B: int | None = None,
    *,
    seed: SeedLike,
    n_jobs: int | None = None,
    progress: bool | str = False,
    scale: str = "paper",
) -> SampledStandardizers:
    """Kendall's tau between the rankings standardized by ``B`` samples of n systems and by all (Figure 4).

    Parameters
    ----------
    standardizing : array_like or irrepro.data.ScoreMatrix
        Scores of the standardizing systems, systems x topics.
    evaluated : array_like or irrepro.data.ScoreMatrix
        Scores of the systems ranked, on the same topics.
    sizes : sequence of int
        Each in [2, number of standardizing systems].
    B : int, optional
        Samples per size; None: :func:`default_partitions` of ``scale``.
    seed, n_jobs, progress
        The seed; workers (the values do not depend on them); a progress bar (a str: its label).
    scale : {"paper", "quick"}

    Returns
    -------
    SampledStandardizers
    """
    std = _checked_scores(standardizing, "standardizing scores")
    ev = _checked_scores(evaluated, "evaluated scores")
    if std.shape[1] != ev.shape[1]:
        raise InputError("standardizing and evaluated scores need the same topics (columns)")
    n_sampled = np.asarray(sizes, dtype=int)
    if n_sampled.min() < 2 or n_sampled.max() > std.shape[0]:
        raise InputError(f"sizes must lie in [2, {std.shape[0]}]")
    B = check_int(default_partitions(scale) if B is None else B, "B", minimum=1)
    full = standardize(ev, factors(std)).mean(axis=1)
    rngs = spawn(seed, len(n_sampled))

    def task(k):
        n, rng = int(n_sampled[k]), rngs[k]
        idx = np.argsort(rng.random((B, std.shape[0])), axis=1)[:, :n]
        means = np.empty((B, ev.shape[0]))
        for s in range(0, B, 50):  # blocks of samples keep (b, S, T) arrays in cache
            sample = std[idx[s : s + 50]]  # (b, n, T)
            mu, sd = _spread.mean_sd(sample, axis=1)
            z = _z(ev[None], mu[:, None, :], sd[:, None, :], "average")
            means[s : s + 50] = special.ndtr(z).mean(axis=2)
        return _kendall_tau(means, full)

    taus = parallel_map(task, range(len(n_sampled)), n_jobs=n_jobs, progress=progress)
    return SampledStandardizers(n_sampled, np.stack(taus))
