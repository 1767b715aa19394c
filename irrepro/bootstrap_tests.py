"""Bootstrap hypothesis tests for comparing IR systems, and the bootstrap-based ways of comparing
the *sensitivity* of evaluation measures, after Sakai (2006), "Evaluating evaluation metrics based
on the bootstrap" (SIGIR 2006).

Every function works on a systems x topics score matrix (a :class:`~irrepro.data.ScoreMatrix` or a
2-d array) and tests **all pairs of systems at once**. The topic samples are drawn once, as a
``(B, n)`` matrix of topic indices (:func:`bootstrap_samples`, the paper's Figure 1), and shared by
every pair, every measure and every method, as in the paper (section 3.5 reuses the paired test's
samples for the stability and swap methods). A bootstrap sample enters the arithmetic-mean
computations only through how many times it drew each topic, so the B replicates of all pairs are
one matrix product ``(pairs x n) @ (n x B)``; other summaries gather ``pairs x B x n`` arrays in
chunks. Because the samples are drawn before any work is split, results are identical with any
number of workers.

What the paper defines (section numbers of Sakai 2006):

- :func:`paired_test` - the paired test with the studentised statistic (3.1, Figures 1-2); on
  ``log(x + 0.00001)`` it tests the AG_ forms that stand for the geometric means (3.1, end).
- :func:`unpaired_test` - the unpaired test for any summary: arithmetic mean, geometric mean or a
  user function (3.2, Figures 3-4).
- :meth:`PairwiseTest.discriminative_power`, :meth:`PairwiseTest.asl_curve` and
  :meth:`PairwiseTest.required_difference` (3.3, Figures 5-8 and Table 2).
- :func:`stability` - minority rate / proportion of ties over fuzziness values (3.5, Figures 9-10).
- :func:`swap_rates` - the swap method on two independent sets of bootstrap samples (3.5,
  Figure 11, Table 3).
- :func:`rank_correlation` - Kendall's tau between the system rankings by two measures, its
  bootstrap standard error and the Z0 normal test (4, Figures 12-13).
- :func:`measure_study` - all of the above for several measures of the same runs, on shared
  samples (Tables 2 and 3, Figures 7-13 in one call).

Beyond the paper (clearly not in it): :func:`comparisons` turns a test into one
:class:`BootstrapComparison` per pair of systems carrying the difference, the ASL, an effect size,
a percentile bootstrap confidence interval and the ASL adjusted for multiple comparisons (Holm or
Benjamini-Hochberg, through statsmodels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import parallel
from .data import ScoreMatrix
from .measures import GM_EPSILON

__all__ = [
    "GM_EPSILON",
    "bootstrap_samples",
    "all_pairs",
    "log_scores",
    "PairwiseTest",
    "paired_test",
    "unpaired_test",
    "bootstrap_summaries",
    "sensitivity",
    "Stability",
    "stability",
    "SwapResult",
    "swap_rates",
    "RankCorrelation",
    "rank_correlation",
    "BootstrapComparison",
    "comparisons",
    "MeasureStudy",
    "measure_study",
    "tau_threshold",
    "kendall_tau",
]

#: Pairs handled per task (fixed, so the split does not depend on the number of workers).
_CHUNK = 512
#: Differences at most this share of the scores' scale are rounding noise (float64 resolves
#: ~1e-16; sums over thousands of ranks or topics keep ~1e-13): see :func:`_studentised`.
_NOISE = 1e-9


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------


def _as_matrix(scores) -> tuple[np.ndarray, tuple, str]:
    """(S, T) float array, system names, measure name, from a ScoreMatrix or an array."""
    if isinstance(scores, ScoreMatrix):
        arr, systems, measure = scores.scores, tuple(scores.systems), scores.measure
    else:
        arr = np.asarray(scores)
        systems, measure = None, ""
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"scores must be a systems x topics matrix (2-d), got shape {arr.shape}")
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise ValueError(f"need at least 2 systems and 2 topics, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("scores contain NaN or infinite values")
    if systems is None:
        systems = tuple(str(i) for i in range(arr.shape[0]))
    return arr, systems, measure


def bootstrap_samples(n_topics: int, B: int = 1000, *, seed) -> np.ndarray:
    """``(B, n_topics)`` topic indices drawn uniformly with replacement: the bootstrap topic
    samples ``Q*b`` of Sakai (2006), Figure 1. Row ``b`` lists the topics of sample ``b``.

    For the unpaired test pass ``n_topics = n + m`` (Figure 3 resamples the pooled vector).
    """
    n_topics = parallel.check_int(n_topics, "n_topics", minimum=1)
    B = parallel.check_int(B, "B", minimum=1)
    return parallel.as_generator(seed).integers(0, n_topics, size=(B, n_topics))


def _counts(samples: np.ndarray, n: int) -> np.ndarray:
    """(B, n) float matrix: how often each sample drew each index."""
    B = samples.shape[0]
    c = np.zeros((B, n), dtype=np.float64)
    np.add.at(c, (np.repeat(np.arange(B), samples.shape[1]), samples.ravel()), 1.0)
    return c


def _check_samples(samples, n_cols: int, B: int, seed, name: str = "samples") -> np.ndarray:
    if samples is None:
        if seed is None:
            raise ValueError("pass seed (int or numpy Generator) or precomputed samples")
        return bootstrap_samples(n_cols, B, seed=seed)
    samples = np.asarray(samples)
    if samples.ndim != 2 or samples.shape[1] != n_cols:
        raise ValueError(f"{name} must have shape (B, {n_cols}), got {samples.shape}")
    if not np.issubdtype(samples.dtype, np.integer):
        raise ValueError(f"{name} must be integer topic indices")
    if samples.size and (samples.min() < 0 or samples.max() >= n_cols):
        raise ValueError(f"{name} must index 0..{n_cols - 1}")
    return samples


def all_pairs(n_systems: int) -> np.ndarray:
    """``(n(n-1)/2, 2)`` index pairs ``(i, j)``, ``i < j``, in row-major order (the set C)."""
    i, j = np.triu_indices(int(n_systems), k=1)
    return np.stack([i, j], axis=1)


def _check_pairs(pairs, n_systems: int) -> np.ndarray:
    if pairs is None:
        return all_pairs(n_systems)
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"pairs must be an integer array of shape (P, 2), got {pairs.shape}")
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n_systems):
        raise ValueError(f"pairs must index systems 0..{n_systems - 1}")
    if np.any(pairs[:, 0] == pairs[:, 1]):
        raise ValueError("a pair compares a system with itself")
    return pairs


# --------------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------------


def log_scores(scores, eps: float = GM_EPSILON) -> np.ndarray:
    """``log(x + eps)``: the per-topic values whose arithmetic mean is the AG_ form of a
    measure (Sakai 2006, section 3.1: testing AG_AveP in the paired test stands for G_AveP)."""
    x = np.asarray(scores.scores if isinstance(scores, ScoreMatrix) else scores, dtype=np.float64)
    if np.any(x + eps <= 0):
        raise ValueError(f"log_scores needs x + eps > 0 (eps={eps})")
    return np.log(x + eps)


@dataclass(frozen=True)
class _Summary:
    name: str
    kind: str  # "mean", "gmean" or "callable"
    fn: Callable[[np.ndarray], np.ndarray] | None = None

    def transform(self, v: np.ndarray) -> np.ndarray:
        return log_scores(v) if self.kind == "gmean" else v

    def back(self, m: np.ndarray) -> np.ndarray:
        """From the mean of transformed values to the summary (exp of the mean of logs is
        ``measures.aggregate(x, "G")``: no eps subtracted, x not truncated to 4 figures)."""
        return np.exp(m) if self.kind == "gmean" else m

    def apply(self, v: np.ndarray) -> np.ndarray:
        """Summary over the last axis."""
        if self.kind == "callable":
            out = np.asarray(self.fn(v), dtype=np.float64)
            if out.shape != v.shape[:-1]:
                raise ValueError(
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
    raise ValueError(f"summary must be 'mean', 'gmean' or a function, not {summary!r}")


def bootstrap_summaries(scores, samples=None, *, summary="mean", B: int = 1000, seed=None) -> np.ndarray:
    """``(S, B)``: the summary ``M(X, Q*b)`` of every system on every bootstrap topic sample.

    This is what the stability and swap methods and the bootstrap standard error of a rank
    correlation compare (Sakai 2006, sections 3.5 and 4).
    """
    x, _, _ = _as_matrix(scores)
    samples = _check_samples(samples, x.shape[1], B, seed)
    s = _summary(summary)
    n = samples.shape[1]
    if s.kind == "callable":
        return np.stack([s.apply(x[:, row]) for row in samples], axis=1)
    c = _counts(samples, x.shape[1])
    return s.back(s.transform(x) @ c.T / n)


# --------------------------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairwiseTest:
    """Bootstrap tests of every pair of systems under one measure.

    ``observed`` is the observed difference M(x) - M(y) (paired: the mean of z = x - y);
    ``statistic`` the test statistic (paired: t(z); unpaired: the difference); ``asl`` the
    achieved significance level; ``replicates`` ``(P, B)`` the bootstrap replicates of the
    difference under H0 (paired: the mean of w*b; unpaired: d*b) and ``replicate_statistic``
    the replicates of the statistic (paired: t(w*b); unpaired: d*b).
    """

    test: str
    measure: str
    summary: str
    systems: tuple
    pairs: np.ndarray
    observed: np.ndarray
    statistic: np.ndarray
    asl: np.ndarray
    replicates: np.ndarray = field(repr=False)
    replicate_statistic: np.ndarray = field(repr=False)
    n_topics: int = 0
    B: int = 0
    effect_size: np.ndarray | None = field(default=None, repr=False)
    _ci_summaries: tuple | None = field(default=None, repr=False)

    def confidence_interval(self, confidence: float = 0.95) -> np.ndarray:
        """``(P, 2)`` percentile bootstrap interval of each difference (beyond the paper).

        Paired: mean(z) + the quantiles of mean(w*b) (mean(z) + mean(w*b) is the mean of z over
        Q*b). Unpaired: quantiles of M(x*b) - M(y*b) with x and y resampled separately.
        """
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {confidence}")
        q = [(1 - confidence) / 2, (1 + confidence) / 2]
        if self.test == "paired":
            return self.observed[:, None] + np.quantile(self.replicates, q, axis=1).T
        mx, my = self._ci_summaries
        return np.quantile(mx[self.pairs[:, 0]] - my[self.pairs[:, 1]], q, axis=1).T

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of pairs with ASL < alpha (Sakai 2006, section 3.3, Table 2 column 2)."""
        return float(np.mean(self.asl < alpha))

    def asl_curve(self) -> np.ndarray:
        """The ASLs sorted ascending: the curves of Sakai's Figures 7 and 8."""
        return np.sort(self.asl)

    def required_difference(self, alpha: float = 0.05, *, per_pair: bool = False, digits: int = 2):
        """Estimated difference required for ASL < alpha (Sakai 2006, Figures 5 and 6).

        For each pair take the bootstrap replicate whose statistic is the ``B*alpha``-th largest
        in absolute value (paired: sorted by |t(w*b)|, the reported value is that replicate's
        |mean of w*b|; unpaired: the ``B*alpha``-th largest |d*b|); the estimate is the maximum
        over pairs, rounded to ``digits`` significant figures. ``per_pair=True`` returns the
        per-pair values (unrounded) instead.
        """
        k = int(round(self.B * alpha))
        if not 1 <= k <= self.B:
            raise ValueError(f"B*alpha must be between 1 and B, got {self.B}*{alpha}")
        key = np.abs(self.replicate_statistic)
        b = np.argpartition(-key, k - 1, axis=1)[:, k - 1]
        diffs = np.abs(self.replicates[np.arange(len(b)), b])
        if per_pair:
            return diffs
        return _round_sig(float(diffs.max()), digits)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: systems, observed difference, statistic, ASL."""
        return pd.DataFrame(
            {
                "system_x": [self.systems[i] for i in self.pairs[:, 0]],
                "system_y": [self.systems[j] for j in self.pairs[:, 1]],
                "difference": self.observed,
                "statistic": self.statistic,
                "asl": self.asl,
            }
        )


def _round_sig(x: float, digits: int) -> float:
    if x == 0 or not np.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


def sensitivity(tests: dict[str, PairwiseTest] | Sequence[PairwiseTest], alpha: float = 0.05) -> pd.DataFrame:
    """Sakai's (2006) Table 2 for several measures: for each test, the number and percentage of
    pairs with ASL < alpha (discriminative power) and the estimated difference required for
    ASL < alpha (Figures 5 / 6), sorted by discriminative power, most sensitive first."""
    items = tests.items() if isinstance(tests, dict) else [(t.measure, t) for t in tests]
    rows = []
    for name, t in items:
        rows.append(
            {
                "measure": name,
                "significant": int(np.sum(t.asl < alpha)),
                "pairs": len(t.asl),
                "sensitivity %": 100 * t.discriminative_power(alpha),
                "required difference": t.required_difference(alpha),
            }
        )
    frame = pd.DataFrame(rows)
    return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)


def _studentised(s1: np.ndarray, s2: np.ndarray, n: int, tol) -> tuple[np.ndarray, np.ndarray]:
    """Mean and t = mean / (sd / sqrt n) from sums and sums of squares (sd with n - 1).

    ``tol`` (broadcastable to the result) is the size of rounding noise *on the scale of the
    scores* (``_NOISE`` times the larger absolute score of the pair), not of the difference: a
    sample whose sd is within ``tol`` (or zero up to the rounding of the sums) is constant, and a
    constant sample gives t = 0 when its mean is within ``tol`` too (no difference at all, e.g.
    1e-12 on every topic), else +-inf (a real difference on which every topic agrees)."""
    mean = s1 / n
    var = s2 - s1 * mean
    var *= 1.0 / (n * (n - 1))  # var / n
    degenerate = (var <= 1e-13 * np.abs(s2) / (n * n)) | (var * n <= np.square(tol))
    np.maximum(var, 0.0, out=var)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var, out=var)
    if degenerate.any():
        md = mean[degenerate]
        td = np.broadcast_to(tol, mean.shape)[degenerate]
        t[degenerate] = np.where(np.abs(md) <= td, 0.0, np.copysign(np.inf, md))
    return mean, t


def _map_chunks(fn, n_pairs: int, n_jobs, chunk: int = _CHUNK) -> list:
    chunks = [slice(a, min(a + chunk, n_pairs)) for a in range(0, n_pairs, chunk)]
    return parallel.parallel_map(fn, chunks, n_jobs=n_jobs)  # serial for one worker or one chunk


def paired_test(
    scores,
    pairs=None,
    *,
    B: int = 1000,
    seed=None,
    samples=None,
    log: bool = False,
    n_jobs: int | None = None,
) -> PairwiseTest:
    """Paired bootstrap test with the studentised statistic for every pair of systems
    (Sakai 2006, section 3.1, Figures 1 and 2).

    For a pair (X, Y) with per-topic scores x, y: z = x - y, t(z) = mean(z) / (sd(z) / sqrt n)
    (sd with n - 1), w = z - mean(z) (data obeying H0), and over B bootstrap topic samples Q*b,
    ASL = #{ |t(w*b)| >= |t(z)| } / B.

    ``scores``: ScoreMatrix or (S, T) array. ``pairs``: (P, 2) system indices (default: all
    pairs i < j). ``samples``: a ``(B, T)`` matrix from :func:`bootstrap_samples`, shared by all
    pairs (drawn from ``seed`` when omitted). ``log=True`` tests the AG_ form (mean of
    log(x + 0.00001), section 3.1). ``effect_size`` is mean(z)/sd(z) (Cohen's d_z); with
    :meth:`PairwiseTest.confidence_interval` it is beyond the paper.
    """
    x, systems, measure = _as_matrix(scores)
    if log:
        x = log_scores(x)
        measure = f"AG_{measure}" if measure else "AG"
    pairs = _check_pairs(pairs, x.shape[0])
    n = x.shape[1]
    samples = _check_samples(samples, n, B, seed)
    c = _counts(samples, n)  # (B, n)
    B = samples.shape[0]

    def run(sl: slice):
        p = pairs[sl]
        z = x[p[:, 0]] - x[p[:, 1]]  # (P, n)
        tol = _NOISE * np.maximum(np.abs(x[p[:, 0]]).max(1), np.abs(x[p[:, 1]]).max(1))  # (P,)
        zbar, tz = _studentised(z.sum(1), (z * z).sum(1), n, tol)
        w = z - zbar[:, None]
        wbar, tw = _studentised(w @ c.T, (w * w) @ c.T, n, tol[:, None])  # (P, B)
        asl = np.count_nonzero(np.abs(tw) >= np.abs(tz)[:, None], axis=1) / B
        sd = z.std(axis=1, ddof=1)
        return zbar, tz, asl, wbar, tw, np.where(sd > tol, sd, 0.0)  # noise-level sd: none

    parts = _map_chunks(run, len(pairs), n_jobs)
    zbar, tz, asl, wbar, tw, sd = (np.concatenate(a) for a in zip(*parts))
    with np.errstate(divide="ignore", invalid="ignore"):
        es = np.where(sd > 0, zbar / np.where(sd > 0, sd, 1.0), 0.0)
    return PairwiseTest(
        "paired", measure, "mean", systems, pairs, zbar, tz, asl, wbar, tw, n, B, es
    )


def unpaired_test(
    scores,
    pairs=None,
    *,
    summary="mean",
    B: int = 1000,
    seed=None,
    samples=None,
    n_jobs: int | None = None,
) -> PairwiseTest:
    """Unpaired bootstrap test for every pair of systems with any summary statistic
    (Sakai 2006, section 3.2, Figures 3 and 4).

    d = M(x) - M(y); the pooled vector v = (x, y) is resampled with replacement (row b of
    ``samples``, shape (B, 2n): its first n entries give x*b, the rest y*b), d*b = M(x*b) - M(y*b)
    and ASL = #{ |d*b| >= |d| } / B.

    ``summary``: ``"mean"``, ``"gmean"`` (Sakai's eq. 7 geometric mean, so G_AveP is tested
    directly) or a function reducing the last axis of an array (e.g. ``np.median`` via
    ``lambda a: np.median(a, axis=-1)``). The arithmetic and geometric means run as one matrix
    product over all pairs; a function is applied to ``pairs x B x 2n`` arrays in chunks.
    ``effect_size`` is d over the pooled per-topic sd and :meth:`PairwiseTest.confidence_interval`
    a percentile interval of d from resampling x and y separately (beyond the paper; x*b from the
    first half of row b of ``samples`` and y*b from the second, both taken modulo n).
    """
    x, systems, measure = _as_matrix(scores)
    s = _summary(summary)
    pairs = _check_pairs(pairs, x.shape[0])
    n = x.shape[1]
    samples = _check_samples(samples, 2 * n, B, seed)
    B = samples.shape[0]
    if s.kind == "gmean":
        measure = f"G_{measure}" if measure else "G"
    xt = s.transform(x)
    if s.kind != "callable":
        cx = _counts(samples[:, :n], 2 * n) / n
        cy = _counts(samples[:, n:], 2 * n) / n
        diff_w = (cx - cy).T  # (2n, B)

    def run(sl: slice):
        p = pairs[sl]
        v = np.concatenate([xt[p[:, 0]], xt[p[:, 1]]], axis=1)  # (P, 2n)
        if s.kind == "callable":
            obs = s.apply(x[p[:, 0]]) - s.apply(x[p[:, 1]])
            g = v[:, samples]  # (P, B, 2n)
            d = s.apply(g[..., :n]) - s.apply(g[..., n:])
        elif s.kind == "mean":
            obs = v[:, :n].mean(1) - v[:, n:].mean(1)
            d = v @ diff_w
        else:  # gmean: exp of the mean of logs
            obs = s.back(v[:, :n].mean(1)) - s.back(v[:, n:].mean(1))
            d = np.exp(v @ cx.T) - np.exp(v @ cy.T)
        asl = np.count_nonzero(np.abs(d) >= np.abs(obs)[:, None], axis=1) / B
        pooled = np.concatenate([x[p[:, 0]], x[p[:, 1]]], axis=1).std(axis=1, ddof=1)
        return obs, asl, d, pooled

    # a function gathers (pairs, B, 2n) arrays: keep each chunk near 5 million values
    chunk = _CHUNK if s.kind != "callable" else max(1, 5_000_000 // (B * 2 * n))
    parts = _map_chunks(run, len(pairs), n_jobs, chunk)
    obs, asl, d, pooled = (np.concatenate(a) for a in zip(*parts))
    with np.errstate(divide="ignore", invalid="ignore"):
        es = np.where(pooled > 0, obs / np.where(pooled > 0, pooled, 1.0), 0.0)
    # For the confidence interval of d (not under H0): x and y resampled separately. The pooled
    # samples taken modulo n are uniform over the n topics, and their two halves are independent.
    kind = s.fn if s.kind == "callable" else s.kind
    mx = bootstrap_summaries(x, samples[:, :n] % n, summary=kind)
    my = bootstrap_summaries(x, samples[:, n:] % n, summary=kind)
    return PairwiseTest(
        "unpaired", measure, s.name, systems, pairs, obs, obs, asl, d, d, n, B, es, (mx, my)
    )


# --------------------------------------------------------------------------------------------
# stability and swap methods (section 3.5)
# --------------------------------------------------------------------------------------------


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
    seed=None,
) -> Stability:
    """Stability method on bootstrap topic samples (Sakai 2006, section 3.5, Figure 9).

    For each pair (X, Y) and sample Q*b: if |M(X,Q*b) - M(Y,Q*b)| < f * max(M(X,Q*b), M(Y,Q*b))
    the pair is a tie (EQ), else GT(X,Y) or GT(Y,X) counts the winner.
    MR = sum min(GT(X,Y), GT(Y,X)) / (B |C|), PT = sum EQ / (B |C|). ``fuzziness`` defaults to
    0.01, 0.02, ..., 0.20. The fuzziness is relative to the larger of the two scores, as in
    Buckley and Voorhees' method (our reading of Figure 9, whose formula the text does not show).
    """
    m, systems, measure = _pair_summaries(scores, samples, summary, B, seed)
    if m.min() < 0:
        raise ValueError("the stability method's fuzziness is relative: it needs summaries >= 0")
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
class SwapResult:
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
    seed=None,
) -> SwapResult:
    """Swap method with two independent sets of bootstrap samples (Sakai 2006, section 3.5,
    Figure 11).

    For each pair and b: D*b = M(X,Q*b) - M(Y,Q*b) on the first set, D'*b on the second; the
    comparison falls in bin BIN(|D*b|) (``n_bins`` bins of ``bin_width``, the last one open:
    21 bins of 0.01 in the paper) and is a swap when D*b and D'*b have opposite signs.

    ``abs_diff`` (Table 3, "abs"): the lower edge of the first non-empty bin whose swap rate is
    <= ``threshold`` (our reading of "looking for bins whose swap rates do not exceed 5%"; the
    sparse bins of the largest differences hold a handful of comparisons and their rates are
    noise, so we do not require every later bin to stay under the threshold); ``max_score`` ("max"): the largest summary recorded in all trials (both sets);
    ``sensitivity``: the share of the P x B comparisons with |D*b| >= ``abs_diff``.
    When omitted, the two sample sets are drawn from two children of ``seed``.
    """
    x, _, _ = _as_matrix(scores)
    n = x.shape[1]
    if samples is None or samples2 is None:
        if seed is None:
            raise ValueError("pass seed or both sample sets")
        g1, g2 = parallel.spawn(seed, 2)
        samples = bootstrap_samples(n, B, seed=g1) if samples is None else samples
        samples2 = bootstrap_samples(n, B, seed=g2) if samples2 is None else samples2
    samples = _check_samples(samples, n, B, None)
    samples2 = _check_samples(samples2, n, B, None, "samples2")
    if samples.shape != samples2.shape:
        raise ValueError("the two sample sets must have the same shape")
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
    return SwapResult(measure, lower, counts, swaps, threshold, abs_diff, max_score, sens)


# --------------------------------------------------------------------------------------------
# rank correlation (section 4)
# --------------------------------------------------------------------------------------------


def kendall_tau(x, y) -> np.ndarray:
    """Kendall's tau-b between the last axes of ``x`` and ``y`` (leading axes broadcast), as
    ``scipy.stats.kendalltau`` computes it (NaN when a ranking is constant), by comparing all pairs
    of systems in blocks of rows so that the pair arrays stay small."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"x and y rank different numbers of systems: {x.shape} and {y.shape}")
    n_sys = x.shape[-1]
    lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    i, j = np.triu_indices(n_sys, k=1)
    fixed_y = y.ndim == 1  # one reference ranking: its pair signs are computed once
    dy_fixed = np.sign(y[i] - y[j]) if fixed_y else None
    xf = np.broadcast_to(x, lead + (n_sys,)).reshape(-1, n_sys)
    yf = None if fixed_y else np.broadcast_to(y, lead + (n_sys,)).reshape(-1, n_sys)
    out = np.empty(xf.shape[0])
    for s in range(0, xf.shape[0], 128):
        dx = np.sign(xf[s : s + 128, i] - xf[s : s + 128, j])
        dy = dy_fixed if fixed_y else np.sign(yf[s : s + 128, i] - yf[s : s + 128, j])
        num = (dx * dy).sum(axis=-1)
        den = np.sqrt((dx != 0).sum(axis=-1) * np.broadcast_to((dy != 0).sum(axis=-1), num.shape).astype(float))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s : s + 128] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out.reshape(lead)


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau between the system rankings by two measures, with its bootstrap standard
    error and the Z0 normal test (Sakai 2006, section 4, Figures 12-13)."""

    measures: tuple[str, str]
    tau: float
    se_boot: float
    z0: float
    p_value: float
    replicates: np.ndarray = field(repr=False)


def _z0(tau, n_s: int):
    """Z0 = 3 tau sqrt(n_s (n_s - 1)) / sqrt(2 (2 n_s + 5)), standard normal under no association."""
    return 3 * np.asarray(tau) * np.sqrt(n_s * (n_s - 1)) / np.sqrt(2 * (2 * n_s + 5))


def tau_threshold(n_systems: int, alpha: float = 0.01) -> float:
    """The smallest |tau| significant at ``alpha`` (two-tailed) under the Z0 test; 0.33 for 30
    systems at 0.01 (the paper says "over 0.34")."""
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2) / _z0(1.0, n_systems))


def rank_correlation(
    scores_a,
    scores_b,
    samples=None,
    *,
    summary_a="mean",
    summary_b="mean",
    B: int = 1000,
    seed=None,
) -> RankCorrelation:
    """Kendall's tau (tau-b) between the rankings of the same systems by two measures on the
    full topic set, its bootstrap estimate of standard error over the topic samples Q*b
    (se = sqrt(sum (tau*b - mean)^2 / (B - 1))) and the two-tailed Z0 test."""
    from scipy.stats import norm

    xa, sys_a, meas_a = _as_matrix(scores_a)
    xb, sys_b, meas_b = _as_matrix(scores_b)
    if xa.shape != xb.shape:
        raise ValueError(f"the two score matrices differ in shape: {xa.shape} vs {xb.shape}")
    if isinstance(scores_a, ScoreMatrix) and isinstance(scores_b, ScoreMatrix) and sys_a != sys_b:
        raise ValueError("the two score matrices list different systems (or in another order)")
    samples = _check_samples(samples, xa.shape[1], B, seed)
    sa, sb = _summary(summary_a), _summary(summary_b)
    tau = float(kendall_tau(sa.apply(xa), sb.apply(xb)))
    ma = bootstrap_summaries(xa, samples, summary=summary_a)
    mb = bootstrap_summaries(xb, samples, summary=summary_b)
    reps = kendall_tau(ma.T, mb.T)  # (B,)
    se = float(np.std(reps, ddof=1))
    z0 = float(_z0(abs(tau), xa.shape[0]))
    name_a = ("G_" if sa.kind == "gmean" else "") + meas_a
    name_b = ("G_" if sb.kind == "gmean" else "") + meas_b
    return RankCorrelation((name_a, name_b), tau, se, z0, float(2 * norm.sf(z0)), reps)


# --------------------------------------------------------------------------------------------
# beyond the paper: one result object per comparison, with multiple-comparison adjustment
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BootstrapComparison:
    """One comparison of two systems (beyond Sakai 2006): the observed difference, the bootstrap
    ASL (a p-value), the ASL adjusted across all comparisons of the test, an effect size
    (paired: d_z = mean(z)/sd(z); unpaired: d / pooled sd) and a percentile bootstrap CI of the
    difference."""

    system_x: Any
    system_y: Any
    measure: str
    test: str
    difference: float
    asl: float
    asl_adjusted: float
    adjustment: str
    effect_size: float
    ci_low: float
    ci_high: float

    def significant(self, alpha: float = 0.05) -> bool:
        return self.asl_adjusted < alpha


def comparisons(
    result: PairwiseTest, *, method: str | None = "holm", confidence: float = 0.95
) -> list[BootstrapComparison]:
    """One :class:`BootstrapComparison` per pair of ``result``, with the ASLs adjusted for
    multiple comparisons by ``method`` (any method of
    ``statsmodels.stats.multitest.multipletests``: ``"holm"``, ``"fdr_bh"`` (Benjamini-Hochberg),
    ...; None leaves them unadjusted). Beyond the paper. ``pd.DataFrame(comparisons(r))`` makes
    a table."""
    from statsmodels.stats.multitest import multipletests

    if method is None:
        adj = result.asl
    else:
        adj = multipletests(result.asl, method=method)[1]
    ci = result.confidence_interval(confidence)
    out = []
    for k, (i, j) in enumerate(result.pairs):
        out.append(
            BootstrapComparison(
                result.systems[i],
                result.systems[j],
                result.measure,
                result.test,
                float(result.observed[k]),
                float(result.asl[k]),
                float(adj[k]),
                method or "none",
                float(result.effect_size[k]),
                float(ci[k, 0]),
                float(ci[k, 1]),
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# the whole study of section 3-4 in one call
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasureStudy:
    """Sakai's (2006) comparison of several measures on one set of runs: paired and unpaired
    tests of every pair of systems, stability, swap rates and rank correlations, all on the same
    bootstrap topic samples. ``names`` are the measures as given (``G_`` names for geometric
    means); the paired tests of geometric means are the AG_ forms."""

    names: tuple[str, ...]
    paired: dict
    unpaired: dict
    stability: dict
    swap: dict
    rank_correlations: dict
    seed: Any
    B: int

    def table2(self, test: str = "paired", alpha: float = 0.05) -> pd.DataFrame:
        """Discriminative power and estimated required difference (Table 2), most sensitive
        first; ``test="unpaired"`` gives the table the paper describes but omits."""
        if test == "unpaired":
            return sensitivity(self.unpaired, alpha)
        if test != "paired":
            raise ValueError(f"test must be 'paired' or 'unpaired', not {test!r}")
        # the paired test of a geometric mean G_X is the test of its AG_ form
        names = {
            k: ("AG_" + k.removeprefix("G_")) if t.measure.startswith("AG") else k
            for k, t in self.paired.items()
        }
        return sensitivity({names[k]: t for k, t in self.paired.items()}, alpha)

    def table3(self) -> pd.DataFrame:
        """Swap-method differences and sensitivity (Table 3), most sensitive first."""
        rows = [self.swap[k].table_row() | {"measure": k} for k in self.names]
        frame = pd.DataFrame(rows)
        frame["sensitivity %"] = 100 * frame.pop("sensitivity")
        return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)

    def _square(self, attr: str) -> pd.DataFrame:
        out = pd.DataFrame(np.nan, index=list(self.names), columns=list(self.names))
        for (a, b), rc in self.rank_correlations.items():
            out.loc[b, a] = getattr(rc, attr)
        return out

    def tau_matrix(self) -> pd.DataFrame:
        """Kendall's tau for every pair of measures (lower triangle; Figure 12)."""
        return self._square("tau")

    def se_matrix(self) -> pd.DataFrame:
        """Bootstrap standard error of each tau (lower triangle; Figure 13)."""
        return self._square("se_boot")


def measure_study(
    matrices: dict,
    *,
    B: int = 1000,
    seed,
    fuzziness: Sequence[float] | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> MeasureStudy:
    """Run everything of Sakai (2006) sections 3 and 4 on several measures of the same runs.

    ``matrices`` maps a name to a ScoreMatrix (arithmetic mean) or to ``(ScoreMatrix, "gmean")``
    (e.g. ``{"AP": ap, "G_AP": (ap, "gmean")}``); all must hold the same systems and topics.
    Three sets of samples are drawn from children of ``seed``: the topic samples Q*b (paired test,
    stability, first swap set, rank correlations), the pooled samples of the unpaired test, and
    the second, independent swap set.
    """
    items = {}
    for name, v in matrices.items():
        m, how = (v, "mean") if not isinstance(v, tuple) else v
        items[name] = (m, _summary(how).kind)
    shapes = {_as_matrix(m)[0].shape for m, _ in items.values()}
    if len(shapes) != 1:
        raise ValueError(f"the matrices differ in shape: {sorted(shapes)}")
    n = shapes.pop()[1]
    g_p, g_u, g_2 = parallel.spawn(seed, 3)
    sp = bootstrap_samples(n, B, seed=g_p)
    su = bootstrap_samples(2 * n, B, seed=g_u)
    s2 = bootstrap_samples(n, B, seed=g_2)
    from tqdm import tqdm

    paired, unpaired, stab, swap = {}, {}, {}, {}
    for name, (m, how) in tqdm(items.items(), desc="measures", disable=not progress):
        if how == "callable":
            raise ValueError("measure_study takes 'mean' or 'gmean' summaries")
        paired[name] = paired_test(m, samples=sp, log=how == "gmean", n_jobs=n_jobs)
        unpaired[name] = unpaired_test(m, samples=su, summary=how, n_jobs=n_jobs)
        stab[name] = stability(m, sp, summary=how, fuzziness=fuzziness)
        swap[name] = swap_rates(m, sp, s2, summary=how)
    names = tuple(items)
    rc = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            rc[(a, b)] = rank_correlation(
                items[a][0], items[b][0], sp, summary_a=items[a][1], summary_b=items[b][1]
            )
    return MeasureStudy(names, paired, unpaired, stab, swap, rc, seed, B)


# --- summaries of a measure study that the book's chapter reports (moved out of its cells) -------

def geometric_consistent(study: MeasureStudy, measure: str) -> bool:
    """Do the paired test of ``AG_<measure>`` and the unpaired test of ``G_<measure>`` put the
    geometric mean on the same side of ``measure`` (the arithmetic mean) by discriminative power?
    (Sakai 2006, section 3.4: the indirect and the direct test of a geometric mean should agree.)"""
    dp = {test: np.sign(getattr(study, test)[f"G_{measure}"].discriminative_power()
                        - getattr(study, test)[measure].discriminative_power()) for test in ("paired", "unpaired")}
    return bool(dp["paired"] == dp["unpaired"])


def minority_rate_at(st: Stability, prop_ties: float) -> float:
    """The minority rate of a stability curve (Figure 10) where its proportion of ties is
    ``prop_ties``, interpolated linearly (both grow with the fuzziness)."""
    return float(np.interp(prop_ties, st.prop_ties, st.minority_rate))


def swaps_below_required(study: MeasureStudy) -> tuple[int, int]:
    """For how many of the arithmetic-mean measures the swap method's difference (Table 3, "abs")
    is smaller than the paired test's estimated required difference (Table 2): ``(k, n)``.
    Geometric means are left out (their paired test works on the log scale)."""
    req = study.table2("paired").set_index("measure")["required difference"]
    sw = study.table3().set_index("measure")["abs"]
    arith = [m for m in study.names if not m.startswith("G_")]
    return int(sum(sw[m] < req[m] for m in arith)), len(arith)
