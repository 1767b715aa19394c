"""The bootstrap tests of all pairs of systems on shared topic samples: Sakai's (2006, sections
3.1-3.3) studentised paired and unpaired tests with the discriminative power they give a measure,
and the bootstrap-shift test of the mean difference (Efron & Tibshirani 1993, algorithm 16.2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import _spread, parallel
from ..errors import InputError
from ..parallel import SeedLike
from ..stats import check_level
from ._samples import (
    _as_matrix,
    _check_samples,
    _counts,
    _resolve_pairs,
    _summary,
    bootstrap_summaries,
    log_scores,
)
from .result import PairwiseResult, _baseline_name, _check_alpha

#: Pairs handled per task (fixed, so the split does not depend on the number of workers).
_CHUNK = 512
#: Differences at most this share of the scores' scale are rounding noise (float64 resolves
#: ~1e-16; sums over thousands of ranks or topics keep ~1e-13): see :func:`_studentised`.
_NOISE = 1e-9


def _pair_noise(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(..., P)``: each pair's rounding noise, ``_NOISE`` times its larger absolute score."""
    a, b = x[..., pairs[:, 0], :], x[..., pairs[:, 1], :]
    return _NOISE * np.maximum(np.abs(a).max(-1), np.abs(b).max(-1))


@dataclass(frozen=True)
class BootstrapResult(PairwiseResult):
    """A bootstrap test of every pair of systems (``p`` the ASLs), with its replicates under H0."""

    summary: str = "mean"
    statistic: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    replicates: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False)
    replicate_statistic: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False)
    _ci_summaries: tuple | Callable[[], tuple] | None = field(default=None, repr=False)

    def confidence_interval(self, level: float = 0.95) -> np.ndarray:
        """``(P, 2)`` percentile bootstrap interval of each difference (beyond the paper)."""
        level = check_level(level)
        q = [(1 - level) / 2, (1 + level) / 2]
        if self.test != "unpaired-bootstrap":
            return self.difference[:, None] + np.quantile(self.replicates, q, axis=1).T
        ci = self._ci_summaries
        if callable(ci):  # computed on first use, then kept
            ci = ci()
            object.__setattr__(self, "_ci_summaries", ci)
        if ci is None:
            raise InputError("this unpaired test carries no resamples for an interval")
        mx, my = ci
        return np.quantile(mx[self.pairs[:, 0]] - my[self.pairs[:, 1]], q, axis=1).T

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of pairs with ASL < alpha (Sakai 2006, section 3.3, Table 2 column 2)."""
        return float(np.mean(self.p < _check_alpha(alpha)))

    def asl_curve(self) -> np.ndarray:
        """The ASLs sorted ascending: the curves of Sakai's (2006) Figures 7 and 8."""
        return np.sort(self.p)

    def required_difference(self, alpha: float = 0.05, *, per_pair: bool = False, digits: int = 2):
        """Estimated difference required for ASL < alpha (Sakai 2006, Figures 5 and 6)."""
        k = int(round(self.B * alpha))
        if not 1 <= k <= self.B:
            raise InputError(f"B*alpha must be between 1 and B, got {self.B}*{alpha}")
        key = np.abs(self.replicate_statistic)
        b = np.argpartition(-key, k - 1, axis=1)[:, k - 1]
        diffs = np.abs(self.replicates[np.arange(len(b)), b])
        if per_pair:
            return diffs
        top = float(diffs.max())
        return top if top == 0 or not np.isfinite(top) else float(f"{top:.{digits}g}")  # (digits significant)


def _studentised(s1: np.ndarray, s2: np.ndarray, n: int, tol) -> tuple[np.ndarray, np.ndarray]:
    """Mean and t = mean / (sd / sqrt n) from sums and sums of squares (sd with n - 1)."""
    # tol is rounding noise on the scale of the scores (_NOISE x the pair's larger |score|): a sample
    # whose sd is within tol is constant, and gives t = 0 if its mean is within tol too, else +-inf
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
    chunks = parallel._chunks(n_pairs, _CHUNK if chunk is None else chunk)  # (_CHUNK read when called)
    return parallel.parallel_map(fn, chunks, n_jobs=n_jobs)  # serial for one worker or one chunk


def _paired(
    test, scores, pairs=None, *, baseline=None, B=1000, seed=None, samples=None, log=False, n_jobs=None
) -> BootstrapResult:
    """Sakai's studentised (``bootstrap``) or the shift (``bootstrap-shift``, Efron & Tibshirani 16.2) paired test."""
    x, systems, measure = _as_matrix(scores)
    if log:
        x = log_scores(x)
        measure = f"AG_{measure}" if measure else "AG"
    pairs = _resolve_pairs(pairs, baseline, systems)
    n = x.shape[1]
    samples = _check_samples(samples, n, B, seed)
    c = _counts(samples, n)  # (B, n)
    B = samples.shape[0]
    shift = test == "bootstrap-shift"

    def run(sl: slice):
        p = pairs[sl]
        z = x[p[:, 0]] - x[p[:, 1]]  # (P, n)
        tol = _pair_noise(x, p)  # (P,)
        zbar, tz = _studentised(z.sum(1), (z * z).sum(1), n, tol)
        w = z - zbar[:, None]
        wbar, tw = _studentised(w @ c.T, (w * w) @ c.T, n, tol[:, None])  # (P, B)
        if shift:  # |mean(w*b)| >= |mean(z)|; a mean within rounding noise is no difference
            asl = np.where(
                np.abs(zbar) <= tol, 1.0, np.count_nonzero(np.abs(wbar) >= np.abs(zbar)[:, None], axis=1) / B
            )
        else:
            asl = np.count_nonzero(np.abs(tw) >= np.abs(tz)[:, None], axis=1) / B
        sd = _spread.sd(z, axis=1)
        return zbar, tz, asl, wbar, tw, np.where(sd > tol, sd, 0.0)  # noise-level sd: none

    parts = _map_chunks(run, len(pairs), n_jobs)
    zbar, tz, asl, wbar, tw, sd = (np.concatenate(a) for a in zip(*parts))
    with np.errstate(divide="ignore", invalid="ignore"):
        es = np.where(sd > 0, zbar / np.where(sd > 0, sd, 1.0), 0.0)
    stat, rep_stat = (zbar, wbar) if shift else (tz, tw)
    return BootstrapResult(
        test, measure, systems, pairs, zbar, asl, asl.copy(), "none", n, B,
        baseline=_baseline_name(systems, pairs, baseline), effect_size=es, summary="mean",
        statistic=stat, replicates=wbar, replicate_statistic=rep_stat,
    )  # fmt: skip


def paired_bootstrap_test(
    scores,
    pairs=None,
    *,
    baseline: str | int | None = None,
    B: int = 1000,
    seed: SeedLike = None,
    samples=None,
    log: bool = False,
    n_jobs: int | None = None,
) -> BootstrapResult:
    """Sakai's (2006) paired bootstrap test with the studentised statistic, every pair at once.

    ``ASL = #{ |t(w*b)| >= |t(z)| } / B``, z = x - y, w = z - mean(z), t the studentised mean.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    pairs : array_like, optional
    baseline : str or int, optional
    B, seed, samples
        Bootstrap samples drawn from ``seed``, or given ``(B, T)``
        (:func:`irrepro.sensitivity.bootstrap_samples`).
    log : bool
        Test the ``AG_`` form (mean of log(x + 0.00001), section 3.1).
    n_jobs : int, optional

    Returns
    -------
    BootstrapResult
        ``test="bootstrap"``, ``p`` the ASLs (unadjusted), ``effect_size`` Cohen's d_z.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> sg.paired_bootstrap_test(scores, B=200, seed=1).p.tolist()
    [0.075, 0.52, 0.335]
    """
    return _paired(
        "bootstrap", scores, pairs, baseline=baseline, B=B, seed=seed, samples=samples, log=log, n_jobs=n_jobs
    )


def unpaired_bootstrap_test(
    scores,
    pairs=None,
    *,
    baseline: str | int | None = None,
    summary="mean",
    B: int = 1000,
    seed: SeedLike = None,
    samples=None,
    n_jobs: int | None = None,
) -> BootstrapResult:
    """Sakai's (2006) unpaired bootstrap test of any summary, every pair at once.

    ``ASL = #{ |d*b| >= |d| } / B``, d = M(x) - M(y), the pooled (x, y) resampled with replacement.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
    pairs : array_like, optional
    baseline : str or int, optional
    summary : str or callable
        ``"mean"``, ``"gmean"`` (Sakai's eq. 7, so G_AveP is tested directly) or a function reducing
        the last axis (e.g. ``lambda a: np.median(a, axis=-1)``).
    B, seed, samples
        Bootstrap samples drawn from ``seed``, or given ``(B, 2T)`` indices into the pooled vector.
    n_jobs : int, optional

    Returns
    -------
    BootstrapResult
        ``test="unpaired-bootstrap"``, ``p`` the ASLs (unadjusted).

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> sg.unpaired_bootstrap_test(scores, B=200, seed=1).p.tolist()
    [0.11, 0.8, 0.12]
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
        pooled = _spread.sd(np.concatenate([x[p[:, 0]], x[p[:, 1]]], axis=1), axis=1)
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
        return (
            bootstrap_summaries(x, samples[:, :n] % n, summary=kind),
            bootstrap_summaries(x, samples[:, n:] % n, summary=kind),
        )

    return BootstrapResult(
        "unpaired-bootstrap", measure, systems, pairs, obs, asl, asl.copy(), "none", n, B,
        baseline=_baseline_name(systems, pairs, baseline), effect_size=es, summary=s.name,
        statistic=obs, replicates=d, replicate_statistic=d, _ci_summaries=ci,
    )  # fmt: skip
