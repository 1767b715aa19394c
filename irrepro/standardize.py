"""Score standardization and inter-collection comparability (Webber, Moffat & Zobel 2008).

A score matrix ``M`` holds one score per system (row) and topic (column). Standardization
(section 3 of the paper) rescales every topic by the mean and standard deviation of the scores a
set of *standardizing systems* achieved on it,

    z_st = (m_st - mu_t) / sigma_t,        standardized score = Phi(z_st),

so that each topic has mean 0 and sd 1 over the standardizing systems, and the normal CDF maps the
result into [0, 1]. Factors (``mu_t``, ``sigma_t``) can be published with a collection and applied
to any later system (:class:`Factors`).

Comparability between collections (section 5) is measured with the standard-deviation normalized
RMSE of system mean scores (:func:`drmse`) and with the number of systems found significantly
different from themselves by a two-sample t-test (:func:`self_significance`), both on observed
collection pairs and on random topic halves (:func:`random_halves`, :func:`partition_experiment`).

Interpretations (the paper does not say):

- **sd normalisation**: sample standard deviations (``ddof=1``) throughout - for the
  standardization factors (the standardizing systems are a sample of possible systems, and
  ``sigma_t`` estimates the population value) and for the system-score sd in dRMSE, where only
  ``ddof=1`` reproduces the paper's 1.857 for TREC 7 vs TREC 2003 (``ddof=0`` gives 1.866).
- **zero sd**: a topic on which every standardizing system scored the same (possible with very few
  standardizing systems) carries no information on spread; its z-scores are set to 0 (every
  system "average", standardized score 0.5) unless ``zero_sd="raise"``.
- **two-sample t-test**: Student's equal-variance test (scipy's default), two-sided.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from ._deprecation import moved_names, renamed_arguments
from .parallel import SeedLike, as_generator, check_int, check_scale, parallel_map, spawn
from .data._matrices import _checked_scores
from .stats import check_level
from .stats import kendall_tau as _kendall_tau  # not re-exported: irrepro.stats.kendall_tau
from .errors import InputError

__all__ = [
    "Factors",
    "factors",
    "zscores",
    "standardize",
    "r_normalize",
    "ideal_precision",
    "mean_intervals",
    "percentile_items",
    "item_total_correlation",
    "drmse",
    "self_significance",
    "binomial_interval",
    "discriminative_power",
    "rank_agreement",
    "random_halves",
    "PartitionResult",
    "partition_experiment",
    "SampledStandardizers",
    "sampled_standardizers",
    "default_partitions",
    "SUBCOLLECTIONS",
    "ideal_rbp",
    "CollectionPair",
    "compare_collections",
    "topic_range",
]

#: The Robust 2004 sub-collections of the paper (section 3.1): name -> (first topic, last topic).
#: TREC 6 (301-350) is excluded as in the paper; TREC 2004 has 49 topics (672 has no relevant).
SUBCOLLECTIONS = {"TREC 7": (351, 400), "TREC 8": (401, 450), "TREC 2003": (601, 650), "TREC 2004": (651, 700)}


def topic_range(matrix, first: int, last: int):
    """The ScoreMatrix ``matrix`` restricted to numeric topic ids in [first, last]."""
    keep = [t for t in matrix.topics if str(t).isdecimal() and first <= int(t) <= last]
    if not keep:
        raise InputError(f"no topics between {first} and {last} in {matrix.collection}")
    return matrix.subset(topics=keep)


def _matrix(scores, name: str = "scores") -> np.ndarray:
    return _checked_scores(scores, name)


# --------------------------------------------------------------------------------------------
# Standardization (section 3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Factors:
    """Per-topic standardization factors: ``mean`` and ``sd`` (shape ``(T,)``) of the scores of
    ``n_systems`` standardizing systems, with the topic ids they belong to (section 3, eq. 1)."""

    mean: np.ndarray
    sd: np.ndarray
    topics: tuple[str, ...] | None = None
    n_systems: int = 0
    ddof: int = 1

    def select(self, topics: Sequence[str]) -> "Factors":
        """The factors of ``topics`` (ids), in that order - to apply published factors to a new
        matrix whose topics are a subset or another order."""
        if self.topics is None:
            raise InputError("these factors carry no topic ids; pass arrays in matching order")
        where = {t: i for i, t in enumerate(self.topics)}
        missing = [t for t in topics if str(t) not in where]
        if missing:
            raise InputError(f"no standardization factors for topics {missing[:5]}")
        idx = np.array([where[str(t)] for t in topics])
        return Factors(self.mean[idx], self.sd[idx], tuple(str(t) for t in topics), self.n_systems, self.ddof)

    def to_frame(self) -> pd.DataFrame:
        """The factors as a table (topic, mean, sd) - the form to publish with a collection."""
        topics = self.topics if self.topics is not None else range(len(self.mean))
        return pd.DataFrame({"topic": list(topics), "mean": self.mean, "sd": self.sd})

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, n_systems: int = 0, ddof: int = 1) -> "Factors":
        """Published factors (columns topic, mean, sd) back as :class:`Factors`."""
        for c in ("topic", "mean", "sd"):
            if c not in frame.columns:
                raise InputError(f"a factors table needs the column {c!r}")
        return cls(frame["mean"].to_numpy(float), frame["sd"].to_numpy(float),
                   tuple(frame["topic"].astype(str)), n_systems, ddof)


def factors(standardizing, *, topics: Sequence[str] | None = None, ddof: int = 1) -> Factors:
    """Standardization factors from the standardizing systems' scores (systems x topics array or
    ScoreMatrix): per-topic mean and sample sd (``ddof=1``, see the module notes). Section 3."""
    x = _matrix(standardizing, "standardizing scores")
    if x.shape[0] <= ddof:
        raise InputError(f"need more than {ddof} standardizing systems, got {x.shape[0]}")
    if topics is None and hasattr(standardizing, "topics"):
        topics = standardizing.topics
    if topics is not None and len(topics) != x.shape[1]:
        raise InputError(f"{len(topics)} topic ids for {x.shape[1]} topics")
    return Factors(x.mean(axis=0), x.std(axis=0, ddof=ddof),
                   None if topics is None else tuple(str(t) for t in topics), x.shape[0], ddof)


def _z(x: np.ndarray, mean: np.ndarray, sd: np.ndarray, zero_sd: str) -> np.ndarray:
    zero = sd <= 0
    if zero_sd not in ("average", "raise"):
        raise InputError("zero_sd must be 'average' or 'raise'")
    if not np.any(zero):
        return (x - mean) / sd
    if zero_sd == "raise":
        raise InputError(f"{int(np.sum(zero))} topics have zero sd over the standardizing systems")
    safe = np.where(zero, 1.0, sd)
    return np.where(zero, 0.0, (x - mean) / safe)


def zscores(scores, fac: Factors | None = None, *, zero_sd: str = "average") -> np.ndarray:
    """z_st = (m_st - mu_t) / sigma_t (eq. 1). ``fac`` defaults to the factors of ``scores``
    itself (the systems standardize themselves). When ``scores`` is a ScoreMatrix and ``fac``
    carries topic ids, factors are matched by topic id."""
    x = _matrix(scores)
    if fac is None:
        fac = factors(scores)
    elif fac.topics is not None and hasattr(scores, "topics"):
        fac = fac.select(scores.topics)
    if len(fac.mean) != x.shape[1]:
        raise InputError(f"factors for {len(fac.mean)} topics, scores have {x.shape[1]}")
    return _z(x, fac.mean, fac.sd, zero_sd)


def standardize(scores, fac: Factors | None = None, *, cdf: bool = True, zero_sd: str = "average") -> np.ndarray:
    """Standardized scores Phi(z_st) in [0, 1] (eq. 2), or the z-scores when ``cdf=False``."""
    z = zscores(scores, fac, zero_sd=zero_sd)
    return special.ndtr(z) if cdf else z


def ideal_precision(n_relevant, k: int) -> np.ndarray:
    """Score of an ideal ranking under P@k: min(R, k) / k per topic (for R-normalizing P@k)."""
    r = np.asarray(n_relevant, dtype=np.float64)
    return np.minimum(r, k) / k


def ideal_rbp(grade_counts, p: float) -> np.ndarray:
    """Score of an ideal ranking under graded RBP(p) (``irrepro.measures``' definition, trec_eval's:
    a document's gain is its grade / its topic's largest grade when that exceeds 1), for
    R-normalizing RBP.

    ``grade_counts`` is ``(T, G+1)``: documents judged at grade 0..G per topic (``Qrels.grade_counts``).
    The ideal list holds the highest grades first: RBP = (1-p) * sum_i gain_i p^(i-1)."""
    gc = np.asarray(grade_counts, dtype=np.int64)
    if gc.ndim != 2 or not 0 < p < 1:
        raise InputError("grade_counts must be (topics, grades) and p in (0, 1)")
    top = gc.shape[1] - 1
    judged = gc > 0
    scale = np.maximum(np.where(judged.any(axis=1), top - np.argmax(judged[:, ::-1], axis=1), 0), 1)
    out = np.zeros(gc.shape[0])
    start = np.zeros(gc.shape[0])  # documents placed so far
    for g in range(top, 0, -1):  # few grades: a loop over grades, vectorised over topics
        n = gc[:, g]
        out += (g / scale) * p**start * (1 - p**n)
        start += n
    return out


def r_normalize(scores, ideal) -> np.ndarray:
    """R-normalization (section 2): each topic's scores divided by the score of an ideal ranking
    ``ideal`` (shape ``(T,)``; e.g. R for SP, giving AP). Topics with ideal 0 score 0."""
    x = _matrix(scores)
    ideal = np.asarray(ideal, dtype=np.float64)
    if ideal.shape != (x.shape[1],):
        raise InputError(f"ideal must have one value per topic ({x.shape[1]}), got shape {ideal.shape}")
    return np.divide(x, ideal, out=np.zeros_like(x), where=ideal > 0)


# --------------------------------------------------------------------------------------------
# Variability within a collection (section 2: Figure 2, Table 1, item-total correlation)
# --------------------------------------------------------------------------------------------


def mean_intervals(scores, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-system mean score and its t confidence interval over topics (Figure 2):
    mean +- t_{T-1} * sd / sqrt(T). Returns (mean, low, high), each ``(S,)``. ``level``: a
    fraction or a percentage (:func:`irrepro.stats.check_level`)."""
    level = check_level(level)
    x = _matrix(scores)
    t = x.shape[1]
    m = x.mean(axis=1)
    half = stats.t.ppf(0.5 + level / 2, t - 1) * x.std(axis=1, ddof=1) / np.sqrt(t)
    return m, m - half, m + half


def percentile_items(values, q: Sequence[float] = (1, 10, 40, 75)) -> np.ndarray:
    """Indices of the items at the ``q``-th percentiles when ordered best first (Table 1: the
    "first, tenth, fortieth and seventy-fifth percentile" systems or topics by mean score).
    Interpretation: the item at 0-based position ceil(q/100 * n) - 1 of the descending order."""
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(-v, kind="stable")
    pos = np.clip(np.ceil(np.asarray(q, dtype=float) / 100 * len(v)).astype(int) - 1, 0, len(v) - 1)
    return order[pos]


def item_total_correlation(scores, *, corrected: bool = True) -> np.ndarray:
    """Item-total correlation of each topic (Bodoff & Li 2007; section 2): Pearson correlation,
    over systems, between the topic's scores and the systems' total score - the total over the
    other topics when ``corrected`` (psychometrics' corrected item-total correlation), or over
    all topics. Returns ``(T,)``."""
    x = _matrix(scores)
    total = x.sum(axis=1, keepdims=True)
    other = total - x if corrected else np.broadcast_to(total, x.shape)
    xc = x - x.mean(axis=0)
    oc = other - other.mean(axis=0)
    den = np.sqrt((xc**2).sum(axis=0) * (oc**2).sum(axis=0))
    return np.divide((xc * oc).sum(axis=0), den, out=np.full(x.shape[1], np.nan), where=den > 0)


# --------------------------------------------------------------------------------------------
# Comparability between collections (section 5)
# --------------------------------------------------------------------------------------------


def drmse(a, b, *, ddof: int = 1) -> np.ndarray:
    """Standard-deviation normalized RMSE between system mean scores on two collections (eq. 4):
    RMSE(a, b) / ((sd(a) + sd(b)) / 2), sd over systems with ``ddof`` (sample sd: see notes).

    ``a`` and ``b`` are system means, shape ``(..., S)``; leading axes are batches (e.g. random
    partitions), so one call scores many collection pairs. NaN where both sds are 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.shape[-1] < 2:
        raise InputError(f"a and b need the same shape with >= 2 systems, got {a.shape} and {b.shape}")
    rmse = np.sqrt(np.mean((a - b) ** 2, axis=-1))
    den = np.asarray(a.std(axis=-1, ddof=ddof) + b.std(axis=-1, ddof=ddof))
    # undefined (NaN, no warning) where neither collection's means vary, e.g. every score 0
    out = np.divide(2 * rmse, den, out=np.full(den.shape, np.nan), where=den > 0)
    return out[()]


@dataclass(frozen=True)
class CollectionPair:
    """Two collections C and D compared on the same systems (Tables 3-5): the observed dRMSE, the
    number of systems significantly different from themselves (with its exact binomial interval),
    and the random-halves distribution over the pooled topics of C and D."""

    drmse: float
    n_significant: int
    n_systems: int
    interval: tuple[float, float]
    random: PartitionResult

    @property
    def percentile(self) -> float:
        """Percentile of the observed dRMSE among the random halves' dRMSE."""
        return self.random.percentile_of(self.drmse)


@renamed_arguments(n_partitions="B")
def compare_collections(scores_c, scores_d, B: int | None = None, *, seed: SeedLike,
                        alpha: float = 0.05, n_jobs: int | None = None,
                        scale: str = "paper") -> CollectionPair:
    """Section 5.2: compare the same systems on collections C and D (systems x topics each), and
    set the observed values against ``B`` random halves of the pooled topics (same seed rules as
    :func:`partition_experiment`; ``B=None``: :func:`default_partitions` of ``scale``)."""
    c, d = _matrix(scores_c), _matrix(scores_d)
    sig = self_significance(c, d, alpha=alpha)
    rand = partition_experiment(np.hstack([c, d]), B, seed=seed, alpha=alpha, n_jobs=n_jobs, scale=scale)
    return CollectionPair(float(drmse(c.mean(axis=1), d.mean(axis=1))), int(sig.sum()), len(sig),
                          binomial_interval(sig.sum(), len(sig)), rand)


def self_significance(scores_c, scores_d, *, alpha: float = 0.05) -> np.ndarray:
    """Which systems a two-sided two-sample (Student) t-test finds significantly different from
    themselves between collections C and D (section 5; Table 4). ``scores_c`` is systems x topics
    of C, ``scores_d`` systems x topics of D (same systems, any topics). Returns bool ``(S,)``."""
    c, d = _matrix(scores_c), _matrix(scores_d)
    if c.shape[0] != d.shape[0]:
        raise InputError("both collections need the same systems (rows)")
    p = stats.ttest_ind(c, d, axis=1).pvalue
    return np.nan_to_num(p, nan=1.0) < alpha


def binomial_interval(k, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a rate k / n, e.g. the false-positive rate of
    :func:`self_significance` over the n systems. ``level``: a fraction or a percentage
    (:func:`irrepro.stats.check_level`)."""
    level = check_level(level)
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def discriminative_power(scores, *, alpha: float = 0.05) -> float:
    """Share of system pairs a two-sided paired t-test over topics finds significant at
    ``alpha`` (section 5; Sakai 2006's discriminative power). Uses scipy's vectorised
    ``ttest_rel`` over all S(S-1)/2 pairs at once."""
    x = _matrix(scores)
    i, j = np.triu_indices(x.shape[0], 1)
    p = stats.ttest_rel(x[i], x[j], axis=1).pvalue
    return float(np.mean(np.nan_to_num(p, nan=1.0) < alpha))


def rank_agreement(a, b) -> tuple[float, float]:
    """(Kendall's tau, Pearson's r) between two vectors of system scores (Table 2)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(_kendall_tau(a, b)), float(stats.pearsonr(a, b)[0])


# --------------------------------------------------------------------------------------------
# Random topic halves (section 5: Figures 5 and 6)
# --------------------------------------------------------------------------------------------


def default_partitions(scale: str = "paper") -> int:
    """Random partitions per experiment: 1000 at the paper scale (the paper says only "multiple
    times"), 50 at the quick scale.

    Parameters
    ----------
    scale : {"paper", "quick"}
        The papers' sizes (default) or small ones; the command line and the book pass
        ``IRREPRO_SCALE`` (:func:`irrepro.book.config`), this function never reads it.

    Returns
    -------
    int
        The number of partitions.
    """
    return 1000 if check_scale(scale) == "paper" else 50


def random_halves(n_topics: int, n: int, seed: SeedLike) -> np.ndarray:
    """``n`` random partitions of ``n_topics`` topics into two halves: bool ``(n, n_topics)``,
    True for the first half (floor(T/2) topics)."""
    n = check_int(n, "n", minimum=1)
    if n_topics < 4:
        raise InputError("need at least 4 topics to split into halves")
    rng = as_generator(seed)
    ranks = np.argsort(rng.random((n, n_topics)), axis=1).argsort(axis=1)
    return ranks < n_topics // 2


@dataclass(frozen=True)
class PartitionResult:
    """Per random partition (``(B,)`` each): dRMSE of system means between the halves and the
    share of systems significantly different from themselves (two-sample t-test)."""

    drmse: np.ndarray
    false_positive: np.ndarray
    n_systems: int
    alpha: float

    def summary(self, level: float = 0.95) -> dict:
        """Mean and the central ``level`` interval over partitions of both quantities. ``level``:
        a fraction or a percentage (:func:`irrepro.stats.check_level`)."""
        level = check_level(level)
        lo, hi = 50 * (1 - level), 50 * (1 + level)
        return {
            "dRMSE mean": float(self.drmse.mean()),
            "dRMSE low": float(np.percentile(self.drmse, lo)),
            "dRMSE high": float(np.percentile(self.drmse, hi)),
            "FP mean": float(self.false_positive.mean()),
            "FP low": float(np.percentile(self.false_positive, lo)),
            "FP high": float(np.percentile(self.false_positive, hi)),
        }

    def percentile_of(self, observed: float) -> float:
        """Share of partitions with dRMSE below an observed collection pair's dRMSE (in %)."""
        return float(100 * np.mean(self.drmse < observed))


def _halves_block(x: np.ndarray, masks: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    # x: systems x topics; masks: (b, T) first-half indicators. Sums of squares are taken about
    # each system's overall mean (exact, and better conditioned for large-valued measures).
    a = masks.astype(np.float64)
    n_s, n_t = x.shape
    na = a.sum(axis=1, keepdims=True)
    nb = n_t - na
    centre = x.mean(axis=1)
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
    df = na + nb - 2
    sp2 = np.maximum(ssa + ssb, 0.0) / df
    se = np.sqrt(sp2 * (1 / na + 1 / nb))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (ma - mb) / se
    p = 2 * stats.t.sf(np.abs(t), df)
    fp = (np.nan_to_num(p, nan=1.0) < alpha).mean(axis=1)
    return d, fp


@renamed_arguments(n_partitions="B")
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
    """Random topic halves (section 5): split the topics of ``scores`` (systems x topics, already
    in the form to compare: raw, R-normalized or standardized) into two halves ``B`` times
    (default :func:`default_partitions` of ``scale``, the papers' by default); per split, the
    dRMSE of system means and the share of systems a two-sample t-test finds
    significantly different from themselves. Vectorised over blocks of ``block`` partitions (one
    task per block, each with its own child seed, so results do not depend on ``n_jobs``)."""
    x = _matrix(scores)
    if B is None:
        B = default_partitions(scale)
    B = check_int(B, "B", minimum=1)
    sizes = [min(block, B - s) for s in range(0, B, block)]
    rngs = spawn(seed, len(sizes))

    def task(i):
        return _halves_block(x, random_halves(x.shape[1], sizes[i], rngs[i]), alpha)

    out = parallel_map(task, range(len(sizes)), n_jobs=n_jobs, progress=progress)
    return PartitionResult(np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out]),
                           x.shape[0], alpha)


# --------------------------------------------------------------------------------------------
# How many standardizing systems (section 4: Figure 4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampledStandardizers:
    """Kendall's tau between the ranking from factors of ``sizes[k]`` sampled standardizing
    systems and the ranking from all of them: ``taus`` is ``(len(sizes), B)``."""

    sizes: np.ndarray
    taus: np.ndarray

    def percentiles(self, q: Sequence[float] = (50, 5, 1)) -> pd.DataFrame:
        """Lowest-percentiles of tau per size (the paper's median, 95th and 99th percentile
        lowest values are q = 50, 5, 1)."""
        p = np.percentile(self.taus, q, axis=1)
        return pd.DataFrame({f"q{g:g}": p[k] for k, g in enumerate(q)}, index=pd.Index(self.sizes, name="systems"))

    def smallest_size_beating(self, threshold: float, q: float = 1) -> int | None:
        """Fewest sampled systems whose q-th lowest percentile of tau, and that of every larger
        size, exceeds ``threshold``."""
        p = np.percentile(self.taus, q, axis=1)
        ok = p > threshold
        for k in range(len(ok)):
            if ok[k:].all():
                return int(self.sizes[k])
        return None


@renamed_arguments(n_samples="B")
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
    """Section 4 / Figure 4: for each size n, draw ``B`` sets of n standardizing systems
    (without replacement), standardize the evaluated systems with their factors, and compute
    Kendall's tau between the resulting ranking (mean standardized score) and the ranking from
    the factors of all standardizing systems. One task per size, each with its own child seed.
    ``B=None``: 1000 sets at ``scale="paper"`` (the default), 50 at ``"quick"``."""
    std = _matrix(standardizing, "standardizing scores")
    ev = _matrix(evaluated, "evaluated scores")
    if std.shape[1] != ev.shape[1]:
        raise InputError("standardizing and evaluated scores need the same topics (columns)")
    sizes = np.asarray(sizes, dtype=int)
    if sizes.min() < 2 or sizes.max() > std.shape[0]:
        raise InputError(f"sizes must lie in [2, {std.shape[0]}]")
    if B is None:
        B = default_partitions(scale)
    B = check_int(B, "B", minimum=1)
    full = standardize(ev, factors(std)).mean(axis=1)
    rngs = spawn(seed, len(sizes))

    def task(k):
        n, rng = int(sizes[k]), rngs[k]
        idx = np.argsort(rng.random((B, std.shape[0])), axis=1)[:, :n]
        means = np.empty((B, ev.shape[0]))
        for s in range(0, B, 50):  # blocks of samples keep (b, S, T) arrays in cache
            sample = std[idx[s : s + 50]]  # (b, n, T)
            mu = sample.mean(axis=1)[:, None, :]
            sd = sample.std(axis=1, ddof=1)[:, None, :]
            means[s : s + 50] = special.ndtr(_z(ev[None], mu, sd, "average")).mean(axis=2)
        return _kendall_tau(means, full)

    taus = parallel_map(task, range(len(sizes)), n_jobs=n_jobs, progress=progress)
    return SampledStandardizers(sizes, np.stack(taus))


#: Names that moved (deprecated; see CHANGELOG.md).
__getattr__ = moved_names(__name__, {"kendall_tau": "irrepro.stats:kendall_tau"})
