"""The known-truth experiments' tests and rates, with clustered Monte Carlo errors (Urbano et al. 2019),
and the bias of a rate from p-values estimated with B resamples."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from .. import parallel
from .. import sensitivity as bt
from .. import significance as sig
from .._spread import mean_sd
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ..stats import clustered_se
from ._papers import default_sizes

#: Significance levels of Urbano et al. (2019): 0.001..0.009, 0.01..0.09, 0.1.
ALPHAS: tuple[float, ...] = tuple(np.round(np.r_[np.arange(1, 10) * 0.001, np.arange(1, 10) * 0.01, 0.1], 3))  # type: ignore[arg-type]
#: The paired tests, in the order of ``PValues``, by :data:`irrepro.significance.TESTS`' names.
TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap", "permutation", "unpaired-bootstrap")
#: Tests whose p-value is a resampling ASL (rejected when ASL < alpha).
RESAMPLING = ("bootstrap", "permutation", "unpaired-bootstrap")


def mc_error(rate: float, n: int) -> float:
    """Binomial Monte Carlo standard error ``sqrt(rate (1 - rate) / n)`` of a rate over n independent trials.

    Parameters
    ----------
    rate : float
        In [0, 1].
    n : int

    Returns
    -------
    float

    Examples
    --------
    >>> from irrepro.known_truth import mc_error
    >>> round(mc_error(0.05, 24000), 4)
    0.0014
    """
    return float(np.sqrt(rate * (1 - rate) / n))


def _mc_error_at(rate: float, se: float, n: int, at: float = 0.05) -> float:
    """The error a rate of ``at`` would have in the design that gave ``rate`` its clustered ``se`` (deff >= 1)."""
    binomial = mc_error(rate, n)
    deff = (se / binomial) ** 2 if binomial > 0 else 1.0
    return mc_error(at, n) * float(np.sqrt(max(deff, 1.0)))


def _one_sided(p2: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """One-tailed p (H1: positive) from a two-sided p of a symmetric null distribution."""
    p2 = np.where(np.isnan(p2), 1.0, p2)
    return np.where(direction > 0, p2 / 2, 1 - p2 / 2)


def _signed_rank_direction(d: np.ndarray) -> np.ndarray:
    """Sign of W+ - W- (zeros dropped, ties at average ranks): the side of Wilcoxon's statistic."""
    a = np.abs(d)
    ranks = stats.rankdata(a, axis=-1) - (a == 0).sum(axis=-1, keepdims=True)
    return np.sign(np.sum(np.sign(d) * ranks, axis=-1))


def paired_pvalues(
    b, e, *, B: int | None = None, seed: SeedLike, scale: str = "paper"
) -> tuple[np.ndarray, np.ndarray]:
    """Two- and one-tailed (H1: e > b) p-values ``(tests, trials)`` of :data:`TESTS` for every row."""
    b = np.asarray(b, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    if b.shape != e.shape or b.ndim != 2:
        raise InputError(f"b and e must be (trials, topics) arrays of one shape, got {b.shape}, {e.shape}")
    B = default_sizes(scale).B if B is None else check_int(B, "B", minimum=1)
    m, n = b.shape
    g_boot, g_pool, g_sign = parallel.spawn(seed, 3)
    d = e - b
    two, one = np.empty((len(TESTS), m)), np.empty((len(TESTS), m))
    mean_dir = np.sign(d.mean(axis=1))
    two[0] = sig.paired_t_pvalues(d)
    one[0] = _one_sided(two[0], mean_dir)
    two[1] = sig.wilcoxon_pvalues(d)
    one[1] = _one_sided(two[1], _signed_rank_direction(d))
    two[2] = sig.sign_test_pvalues(d)
    one[2] = _one_sided(two[2], np.sign((d > 0).sum(1) - (d < 0).sum(1)))
    scores, pairs = _as_pairs(b, e)
    sakai = _sakai_pvalues(b, e, ("bootstrap", "unpaired-bootstrap"), B, g_boot, g_pool)
    two[3], one[3] = sakai["bootstrap"]
    signs = sig.sign_flips(n, B, seed=g_sign)  # one set of flips for every row
    both, greater = sig.permutation_test(scores, pairs, signs=signs, alternative=("two-sided", "greater"))
    two[4], one[4] = both.p, greater.p
    two[5], one[5] = sakai["unpaired-bootstrap"]
    two = np.where(np.isnan(two), 1.0, two)  # no test (e.g. all differences zero): not rejected
    return two, one


def _as_pairs(b: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows (e_0, b_0, e_1, b_1, ...) and the pairs (2r, 2r + 1) of them: z = e - b per trial."""
    m, n = b.shape
    scores = np.empty((2 * m, n))
    scores[0::2], scores[1::2] = e, b
    return scores, np.column_stack([np.arange(0, 2 * m, 2), np.arange(1, 2 * m, 2)])


def _sakai_pvalues(b, e, tests, B: int, g_paired, g_pool) -> dict:
    """Sakai's paired and unpaired bootstrap tests of every row: test -> (two-tailed, one-tailed) ASLs."""
    scores, pairs = _as_pairs(b, e)
    n = b.shape[1]
    out = {}
    if "bootstrap" in tests:
        r = sig.paired_bootstrap_test(
            scores, pairs, samples=bt.bootstrap_samples(n, B, seed=g_paired), n_jobs=1
        )
        one = np.count_nonzero(r.replicate_statistic >= r.statistic[:, None], axis=1) / B
        out["bootstrap"] = (np.where(np.isnan(r.p), 1.0, r.p), one)
    if "unpaired-bootstrap" in tests:
        u = sig.unpaired_bootstrap_test(
            scores, pairs, samples=bt.bootstrap_samples(2 * n, B, seed=g_pool), n_jobs=1
        )
        one = np.count_nonzero(u.replicates >= u.difference[:, None], axis=1) / B
        out["unpaired-bootstrap"] = (np.where(np.isnan(u.p), 1.0, u.p), one)
    return out


@dataclass(frozen=True)
class PValues:
    """p-values of every test on every trial of one configuration (``rejection_experiment``)."""

    tests: tuple[str, ...]
    two: np.ndarray
    one: np.ndarray
    pair: np.ndarray
    delta: float
    n_topics: int
    B: int
    label: str = ""
    #: The tests rejected when p < alpha (a resampling ASL), not p <= alpha.
    _strict: ClassVar[tuple] = RESAMPLING

    @property
    def trials(self) -> int:
        """The number of trials."""
        return self.two.shape[1]

    def rejected(self, alpha: float, tails: int = 2) -> np.ndarray:
        """Which trials each test rejects: p <= alpha for closed-form tests, ASL < alpha for resampling."""
        if tails not in (1, 2):
            raise InputError("tails must be 1 or 2")
        p = self.two if tails == 2 else self.one
        strict = np.array([t in self._strict for t in self.tests])[:, None]
        return np.where(strict, p < alpha, p <= alpha + 1e-12)

    def rates(self, alphas: Sequence[float] = ALPHAS, tails: int = 2) -> pd.DataFrame:
        """Rejection rates: one row per alpha, one column per test."""
        return pd.DataFrame(
            {t: [self.rejected(a, tails)[k].mean() for a in alphas] for k, t in enumerate(self.tests)},
            index=pd.Index(list(alphas), name="alpha"),
        )

    def se(self, alpha: float, tails: int = 2) -> pd.Series:
        """Monte Carlo standard error of each rate, clustered by simulated pair (shared margins, copula)."""
        return self._clustered_se(self.rejected(alpha, tails))

    def _clustered_se(self, events: np.ndarray) -> pd.Series:
        """The clustered standard error of each test's rate of ``events`` ``(tests, trials)``."""
        se = clustered_se(np.asarray(events, dtype=float), self.pair)
        return pd.Series({t: float(v) for t, v in zip(self.tests, se)})

    def frame(self, alphas: Sequence[float] = ALPHAS, tails: Sequence[int] = (1, 2)) -> pd.DataFrame:
        """Long table: test, tails, alpha, rate, se, trials, delta, topics."""
        rows = []
        for tl in tails:
            for a in alphas:
                rej = self.rejected(a, tl).mean(axis=1)
                se = self.se(a, tl)
                rows += [{"test": t, "tails": tl, "alpha": a, "rate": rej[k], "se": se[t], "trials": self.trials,
                          "delta": self.delta, "topics": self.n_topics} for k, t in enumerate(self.tests)]  # fmt: skip
        return pd.DataFrame(rows)


#: Points per lattice cell at which :func:`_finite_b_bias` averages the misclassification.
_CELL = 32


class FiniteB(NamedTuple):
    """A rejection rate at B, its bias, the bound on it, its binomial se and whether bound < se."""

    rate: float
    bias: float
    bound: float
    se: float
    ok: bool


def _finite_b_bias(p, B: int, alpha: float = 0.05) -> FiniteB:
    """The bias of a rejection rate from p-values estimated as k / B, k ~ binomial(B, p), bounded by 2 se."""
    B = check_int(B, "B", minimum=1)
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    p = np.asarray(p, dtype=np.float64).ravel()
    p = p[~np.isnan(p)]
    if p.size == 0 or ((p < 0) | (p > 1)).any():
        raise InputError("p must hold p-values in [0, 1] (at least one that is not NaN)")
    k = math.floor(alpha * B + 1e-9)
    # a trial is misclassified with the signed probability m(p) = P(k <= alpha B) - [p <= alpha],
    # m averaged over each estimate's cell [p - 1/2B, p + 1/2B] (the estimates sit on the lattice
    # k / B, one of whose atoms is alpha, where m jumps); m < 1e-20 beyond 10 sd of alpha
    m = np.zeros(p.size)
    near = np.flatnonzero(np.abs(p - alpha) < 10 * math.sqrt(alpha * (1 - alpha) / B) + 2 / B)
    q = np.clip(p[near, None] + (np.arange(_CELL) + 0.5 - _CELL / 2) / (_CELL * B), 0, 1)
    m[near] = (stats.binom.cdf(k, B, q) - (q <= alpha)).mean(axis=1)
    mean, sd = mean_sd(m) if p.size > 1 else (m[0], 0.0)  # (equal estimates: their m, sd 0)
    bias = float(mean)
    bound = abs(bias) + 2 * float(sd / math.sqrt(p.size))
    rate = float(np.mean(p <= alpha + 1e-12))
    se = math.sqrt(rate * (1 - rate) / p.size)
    return FiniteB(rate, bias, bound, se, bound < se)


def finite_b_checks(results, B: int, tests, alpha: float = 0.05) -> pd.DataFrame:
    """Bound the bias of each rejection rate caused by estimating its p-values as k / B, k ~ binomial(B, p).

    Parameters
    ----------
    results : mapping
        ``(measure, topics)`` -> ``UrbanoPValues``.
    B : int
    tests : sequence of str
        The resampling tests to check (two-tailed).
    alpha : float

    Returns
    -------
    pandas.DataFrame
        ``measure, topics, test, rate, bias, bound`` (two se added), ``se`` (binomial) and ``ok`` (bound < se).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from irrepro.known_truth import finite_b_checks
    >>> p = np.random.default_rng(1).binomial(1000, np.linspace(0, 1, 20_000)) / 1000  # p uniform
    >>> r = SimpleNamespace(tests=("permutation",), two=p[None, :])
    >>> fb = finite_b_checks({("AP", 50): r}, B=1000, tests=("permutation",))
    >>> round(float(fb.bias[0]), 4), bool(fb.ok[0])  # (1 - alpha) / B: p-hat <= alpha counts the k = 50 ties
    (0.0009, True)
    """
    return pd.DataFrame([{"measure": m, "topics": n, "test": t, **_finite_b_bias(r.two[r.tests.index(t)], B, alpha)._asdict()}
                         for (m, n), r in results.items() for t in tests])  # fmt: skip
