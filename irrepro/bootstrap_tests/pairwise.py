"""The paired and unpaired bootstrap tests of all pairs of systems (Sakai 2006, sections 3.1-3.2)
and the discriminative power they give a measure (section 3.3, Table 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import parallel
from ..parallel import SeedLike
from .._deprecation import renamed_arguments
from ..stats import check_level
from .samples import _as_matrix, _check_samples, _counts, _resolve_pairs, _summary, bootstrap_summaries, log_scores
from ..errors import InputError

__all__ = ["PairwiseTest", "paired_test", "unpaired_test", "sensitivity"]

#: Pairs handled per task (fixed, so the split does not depend on the number of workers).
_CHUNK = 512
#: Differences at most this share of the scores' scale are rounding noise (float64 resolves
#: ~1e-16; sums over thousands of ranks or topics keep ~1e-13): see :func:`_studentised`.
_NOISE = 1e-9


def _pair_noise(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(P,)``: the size of rounding noise of each pair, ``_NOISE`` times the larger absolute
    score of its two systems (a difference this small is no difference)."""
    return _NOISE * np.maximum(np.abs(x[pairs[:, 0]]).max(1), np.abs(x[pairs[:, 1]]).max(1))


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

    @renamed_arguments(confidence="level")
    def confidence_interval(self, level: float = 0.95) -> np.ndarray:
        """``(P, 2)`` percentile bootstrap interval of each difference (beyond the paper).

        Paired: mean(z) + the quantiles of mean(w*b) (mean(z) + mean(w*b) is the mean of z over
        Q*b). Unpaired: quantiles of M(x*b) - M(y*b) with x and y resampled separately.
        ``level``: a fraction or a percentage (:func:`irrepro.stats.check_level`).
        """
        level = check_level(level)
        q = [(1 - level) / 2, (1 + level) / 2]
        if self.test == "paired":
            return self.observed[:, None] + np.quantile(self.replicates, q, axis=1).T
        if callable(self._ci_summaries):   # computed on first use, then kept
            object.__setattr__(self, "_ci_summaries", self._ci_summaries())
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
        in absolute value (paired: sorted by ``|t(w*b)|``, the reported value is that replicate's
        ``|mean of w*b|``; unpaired: the ``B*alpha``-th largest ``|d*b|``); the estimate is the maximum
        over pairs, rounded to ``digits`` significant figures. ``per_pair=True`` returns the
        per-pair values (unrounded) instead.
        """
        k = int(round(self.B * alpha))
        if not 1 <= k <= self.B:
            raise InputError(f"B*alpha must be between 1 and B, got {self.B}*{alpha}")
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


def _map_chunks(fn, n_pairs: int, n_jobs, chunk: int | None = None) -> list:
    chunk = _CHUNK if chunk is None else chunk  # read when called (the tests make it small)
    chunks = [slice(a, min(a + chunk, n_pairs)) for a in range(0, n_pairs, chunk)]
    return parallel.parallel_map(fn, chunks, n_jobs=n_jobs)  # serial for one worker or one chunk


def paired_test(
    scores,
    pairs=None,
    *,
    baseline: str | int | None = None,
    B: int = 1000,
    seed: SeedLike = None,
    samples=None,
    log: bool = False,
    n_jobs: int | None = None,
) -> PairwiseTest:
    """Paired bootstrap test with the studentised statistic for every pair of systems
    (Sakai 2006, section 3.1, Figures 1 and 2).

    For a pair (X, Y) with per-topic scores x, y: z = x - y, t(z) = mean(z) / (sd(z) / sqrt n)
    (sd with n - 1), w = z - mean(z) (data obeying H0), and over B bootstrap topic samples Q*b,
    ``ASL = #{ |t(w*b)| >= |t(z)| } / B``.

    ``scores``: ScoreMatrix or (S, T) array. ``pairs``: (P, 2) system indices (default: all
    pairs i < j); or ``baseline`` (a system's name or index): every other system against it, pairs
    ``(s, baseline)`` (:func:`baseline_pairs`), so that :func:`comparisons` adjusts over that
    family only. ``samples``: a ``(B, T)`` matrix from :func:`bootstrap_samples`, shared by all
    pairs (drawn from ``seed`` when omitted). ``log=True`` tests the ``AG_`` form (mean of
    log(x + 0.00001), section 3.1). ``effect_size`` is mean(z)/sd(z) (Cohen's d_z); with
    :meth:`PairwiseTest.confidence_interval` it is beyond the paper.
    """
    x, systems, measure = _as_matrix(scores)
    if log:
        x = log_scores(x)
        measure = f"AG_{measure}" if measure else "AG"
    pairs = _resolve_pairs(pairs, baseline, systems)
    n = x.shape[1]
    samples = _check_samples(samples, n, B, seed)
    c = _counts(samples, n)  # (B, n)
    B = samples.shape[0]

    def run(sl: slice):
        p = pairs[sl]
        z = x[p[:, 0]] - x[p[:, 1]]  # (P, n)
        tol = _pair_noise(x, p)  # (P,)
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
    baseline: str | int | None = None,
    summary="mean",
    B: int = 1000,
    seed: SeedLike = None,
    samples=None,
    n_jobs: int | None = None,
) -> PairwiseTest:
    """Unpaired bootstrap test for every pair of systems with any summary statistic
    (Sakai 2006, section 3.2, Figures 3 and 4).

    d = M(x) - M(y); the pooled vector v = (x, y) is resampled with replacement (row b of
    ``samples``, shape (B, 2n): its first n entries give x*b, the rest y*b), d*b = M(x*b) - M(y*b)
    and ``ASL = #{ |d*b| >= |d| } / B``. ``pairs`` or ``baseline`` as in :func:`paired_test`.

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
    pairs = _resolve_pairs(pairs, baseline, systems)
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
    # They are computed when the interval is first asked for (a test of many pairs of few systems,
    # as irrepro.known_truth runs, would otherwise spend a fifth of its time on them).
    kind = s.fn if s.kind == "callable" else s.kind

    def ci():
        return (bootstrap_summaries(x, samples[:, :n] % n, summary=kind),
                bootstrap_summaries(x, samples[:, n:] % n, summary=kind))

    return PairwiseTest(
        "unpaired", measure, s.name, systems, pairs, obs, obs, asl, d, d, n, B, es, ci
    )
