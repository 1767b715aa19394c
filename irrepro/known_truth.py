"""The four papers' methods measured where the truth is known: type I error and power of paired
significance tests, family-wise error of multiple comparisons, coverage of corpus-bootstrap
intervals and the false-positive rate of self-significance under the null.

One-line use::

    from irrepro import data, simulation as sim, known_truth as kt
    models = [sim.fit_collection(data.load_matrix(c, "AP"), seed=1) for c in ("trec5", "trec6", "trec7", "trec8")]
    null = kt.rejection_experiment(models, n_topics=50, seed=2)          # H0 true
    null.rates(alphas=(0.01, 0.05), tails=2)                              # tests x alphas
    alt = kt.rejection_experiment(models, n_topics=50, delta=0.05, seed=3)  # power

What is here, and which paper each part tests:

- :func:`paired_pvalues` - the paired t, Wilcoxon and sign tests (as Sanderson & Zobel 2005 use
  them), Sakai's paired and unpaired bootstrap tests (Sakai 2006) and a paired permutation
  (sign-flip) test, all :mod:`irrepro.significance`'s, on all trials of a configuration at once;
- :func:`rejection_experiment` -> :class:`PValues` - trials simulated in the manner of Urbano,
  Lima & Hanjalic (SIGIR 2019, section 3) from :mod:`irrepro.simulation`'s margins and copulas,
  under H0 (``delta=0``) or with a true difference ``delta`` of expected scores;
- :func:`family_experiment` - the family-wise error of all-pairs comparisons among m systems
  under the complete null: unadjusted t-tests, Bonferroni / Holm and randomised Tukey HSD;
- :func:`corpus_coverage` - how often Cormack & Lynam's (2006) corpus-bootstrap intervals hold
  the population's AP, and the split-half concordance the paper uses as its proxy;
- :func:`self_significance_null` - Webber, Moffat & Zobel's (2008) self-significance on two topic
  sets drawn from the same population, raw and standardized.

**Decision rules.** A closed-form test rejects when p <= alpha (Urbano et al.'s empirical CDF of
p at alpha); a resampling test when its ASL < alpha (Sakai 2006), which with B resamples keeps
its type I error at or below alpha. One-tailed tests take H1: E[e] > E[b] (Urbano et al.'s
direction); for the closed-form tests the one-tailed p is p/2 on the side of the observed
statistic and 1 - p/2 on the other: exact below 1/2 for their symmetric null distributions (the
only side where a test at alpha < 1/2 rejects); above 1/2 the discrete tests' exact value is a
little larger (the probability of the observed statistic counts on both sides).

**Seeds and workers.** Every experiment is cut into a fixed number of tasks; task ``i`` draws
from child ``i`` of the seed's SeedSequence (:func:`irrepro.parallel.spawn`), so results do not
depend on ``n_jobs``.

The permutation test and randomised Tukey HSD are the package's (:func:`irrepro.significance.permutation_test`,
:func:`irrepro.significance.tukey_hsd_pvalues`), and so is the thinning of qrels to TREC-6's
numbers of relevant documents (:func:`irrepro.data.thin_qrels`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from . import bootstrap_tests as bt
from . import parallel
from . import significance as sig
from ._known_truth_papers import (
    Coverage,
    SelfSignificance,
    corpus_coverage,
    default_B,
    default_trials,
    self_significance_null,
)
from .errors import InputError
from .parallel import SeedLike, check_int

__all__ = [
    "ALPHAS",
    "TESTS",
    "RESAMPLING",
    "MC_TARGET",
    "default_trials",
    "default_B",
    "mc_error",
    "mc_error_at",
    "paired_pvalues",
    "PValues",
    "sample_pairs",
    "rejection_experiment",
    "FamilyResult",
    "family_experiment",
    "Coverage",
    "corpus_coverage",
    "SelfSignificance",
    "self_significance_null",
]

#: Significance levels of Urbano et al. (2019): 0.001..0.009, 0.01..0.09, 0.1.
ALPHAS: tuple[float, ...] = tuple(np.round(np.r_[np.arange(1, 10) * 0.001, np.arange(1, 10) * 0.01, 0.1], 3))  # type: ignore[arg-type]
#: The paired tests, in the order of :class:`PValues`, by :data:`irrepro.significance.TESTS`' names
#: (until 0.2 "t" and "unpaired bootstrap").
TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap", "permutation", "unpaired-bootstrap")
#: Tests whose p-value is a resampling ASL (rejected when ASL < alpha).
RESAMPLING = ("bootstrap", "permutation", "unpaired-bootstrap")


#: The Monte Carlo error a type I error rate of 5% must stay below (issue 17's rule), clustered
#: standard error included (:meth:`PValues.se`, :meth:`FamilyResult.se`).
MC_TARGET = 0.002


def mc_error(rate: float, n: int) -> float:
    """Binomial Monte Carlo standard error of a rate over n independent trials."""
    return float(np.sqrt(rate * (1 - rate) / n))


def mc_error_at(rate: float, se: float, n: int, at: float = 0.05) -> float:
    """The Monte Carlo error a rate of ``at`` would have in the design that gave ``rate`` its
    standard error ``se`` over ``n`` trials: ``mc_error(at, n)`` times the square root of the design
    effect ``(se / mc_error(rate, n))^2`` (trials that share a simulated pair or family are not
    independent). :data:`MC_TARGET` bounds it for ``at = 0.05``; a rate of 0 or 1 (no variance)
    gives the binomial error."""
    binomial = mc_error(rate, n)
    deff = (se / binomial) ** 2 if binomial > 0 else 1.0
    return mc_error(at, n) * float(np.sqrt(max(deff, 1.0)))


# --------------------------------------------------------------------------------------------
# the paired tests, vectorised over trials
# --------------------------------------------------------------------------------------------


def _one_sided(p2: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """One-tailed p (H1: positive) from a two-sided p of a symmetric null distribution (exact below
    1/2; see the module notes)."""
    p2 = np.where(np.isnan(p2), 1.0, p2)
    return np.where(direction > 0, p2 / 2, 1 - p2 / 2)


def _signed_rank_direction(d: np.ndarray) -> np.ndarray:
    """Sign of W+ - W- (zeros dropped, ties at average ranks): the side of Wilcoxon's statistic."""
    a = np.abs(d)
    ranks = stats.rankdata(a, axis=-1) - (a == 0).sum(axis=-1, keepdims=True)
    return np.sign(np.sum(np.sign(d) * ranks, axis=-1))


def paired_pvalues(b, e, *, B: int | None = None, seed: SeedLike,
                   scale: str = "paper") -> tuple[np.ndarray, np.ndarray]:
    """Two-sided and one-sided (H1: e > b) p-values of the :data:`TESTS` for every row of the
    baseline scores ``b`` and experimental scores ``e`` (trials, topics): two ``(tests, trials)``
    arrays. The bootstrap and permutation tests share one set of B resamples over all rows
    (drawn from ``seed``), as Sakai (2006) shares them over all pairs of systems; ``B=None``:
    :func:`default_B` of ``scale`` (the papers' by default)."""
    b = np.asarray(b, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    if b.shape != e.shape or b.ndim != 2:
        raise InputError(f"b and e must be (trials, topics) arrays of one shape, got {b.shape}, {e.shape}")
    B = default_B(scale) if B is None else check_int(B, "B", minimum=1)
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
    scores = np.empty((2 * m, n))
    scores[0::2], scores[1::2] = e, b
    pairs = np.column_stack([np.arange(0, 2 * m, 2), np.arange(1, 2 * m, 2)])  # (e, b): z = e - b
    paired = sig.paired_bootstrap_test(scores, pairs, samples=bt.bootstrap_samples(n, B, seed=g_boot), n_jobs=1)
    two[3] = paired.p
    one[3] = np.count_nonzero(paired.replicate_statistic >= paired.statistic[:, None], axis=1) / B
    signs = sig.sign_flips(n, B, seed=g_sign)  # one set of flips for every row
    both, greater = sig.permutation_test(scores, pairs, signs=signs, alternative=("two-sided", "greater"))
    two[4], one[4] = both.p, greater.p
    unp = sig.unpaired_bootstrap_test(scores, pairs, samples=bt.bootstrap_samples(2 * n, B, seed=g_pool), n_jobs=1)
    two[5] = unp.p
    one[5] = np.count_nonzero(unp.replicates >= unp.difference[:, None], axis=1) / B
    two = np.where(np.isnan(two), 1.0, two)  # no test (e.g. all differences zero): not rejected
    return two, one


@dataclass(frozen=True)
class PValues:
    """p-values of every test on every trial of one configuration.

    ``two`` and ``one`` are (tests, trials) two- and one-tailed p-values; ``pair`` (trials,) the
    index of the simulated pair (system pair and its models) each trial came from, for cluster
    standard errors; ``delta`` the true difference of expected scores (0 under H0)."""

    tests: tuple[str, ...]
    two: np.ndarray
    one: np.ndarray
    pair: np.ndarray
    delta: float
    n_topics: int
    B: int
    label: str = ""

    @property
    def trials(self) -> int:
        return self.two.shape[1]

    def rejected(self, alpha: float, tails: int = 2) -> np.ndarray:
        """(tests, trials) bool: p <= alpha for closed-form tests, ASL < alpha for resampling."""
        p = self.two if tails == 2 else self.one
        if tails not in (1, 2):
            raise InputError("tails must be 1 or 2")
        strict = np.array([t in RESAMPLING for t in self.tests])[:, None]
        return np.where(strict, p < alpha, p <= alpha + 1e-12)

    def rates(self, alphas: Sequence[float] = ALPHAS, tails: int = 2) -> pd.DataFrame:
        """Rejection rates: one row per alpha, one column per test."""
        return pd.DataFrame({t: [self.rejected(a, tails)[k].mean() for a in alphas] for k, t in enumerate(self.tests)},
                            index=pd.Index(list(alphas), name="alpha"))

    def se(self, alpha: float, tails: int = 2) -> pd.Series:
        """Monte Carlo standard error of each rate, clustered by simulated pair (the trials of a
        pair share its margins and copula): sqrt(sum_c (r_c - rate n_c)^2) / N."""
        r = self.rejected(alpha, tails).astype(float)
        _, inv = np.unique(self.pair, return_inverse=True)
        k = inv.max() + 1
        n_c = np.bincount(inv, minlength=k)
        out = {}
        for i, t in enumerate(self.tests):
            r_c = np.bincount(inv, weights=r[i], minlength=k)
            rate = r[i].mean()
            out[t] = float(np.sqrt(np.sum((r_c - rate * n_c) ** 2) * k / max(k - 1, 1)) / len(r[i]))
        return pd.Series(out)

    def frame(self, alphas: Sequence[float] = ALPHAS, tails: Sequence[int] = (1, 2)) -> pd.DataFrame:
        """Long table: test, tails, alpha, rate, se, trials, delta, topics."""
        rows = []
        for tl in tails:
            for a in alphas:
                rej = self.rejected(a, tl).mean(axis=1)
                se = self.se(a, tl)
                rows += [{"test": t, "tails": tl, "alpha": a, "rate": rej[k], "se": se[t], "trials": self.trials,
                          "delta": self.delta, "topics": self.n_topics} for k, t in enumerate(self.tests)]
        return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# the experiments of Urbano et al. (2019): pairs of simulated systems
# --------------------------------------------------------------------------------------------


def sample_pairs(models, k: int, *, delta: float = 0.0, seed: SeedLike, neighbours: int = 10) -> list[tuple[int, int, int]]:
    """``k`` (model, baseline, experimental) system triples as Urbano et al. (2019) draw them: a
    collection with probability proportional to its number of systems, then under H0
    (``delta == 0``) two distinct systems uniformly; with ``delta > 0`` a baseline uniformly from
    the bottom 75% by expected score and the experimental system uniformly from the
    ``neighbours`` others whose expected score is closest to the baseline's + delta."""
    rng = parallel.as_generator(seed)
    sizes = np.array([len(m.margins) for m in models])
    out = []
    for c in rng.choice(len(models), size=k, p=sizes / sizes.sum()):
        mu = models[c].means
        if delta == 0:
            i, j = rng.choice(len(mu), size=2, replace=False)
        else:
            lower = np.argsort(-mu, kind="stable")[int(round(0.25 * len(mu))):]
            i = int(rng.choice(lower))
            cand = [j for j in np.argsort(np.abs(mu - mu[i] - delta), kind="stable") if j != i][:neighbours]
            j = int(rng.choice(cand))
        out.append((int(c), int(i), int(j)))
    return out


def _pair_model(models, c: int, i: int, j: int, delta: float, null: str):
    m = models[c]
    if delta == 0:
        if null == "same-margin":
            return m.pair(i, j, same_margin=True)
        return m.pair(i, j, mean_e=m.margins[i].mean)
    return m.pair(i, j, mean_e=m.margins[i].mean + delta)


def rejection_experiment(
    models,
    n_topics: int,
    *,
    delta: float = 0.0,
    trials: int | None = None,
    n_pairs: int = 400,
    B: int | None = None,
    null: str = "same-margin",
    seed: SeedLike,
    n_jobs: int | None = None,
    pairs_per_task: int = 20,
    label: str = "",
    scale: str = "paper",
) -> PValues:
    """p-values of every test on ``trials`` simulated comparisons of ``n_topics`` topics
    (Urbano et al. 2019, section 3: type I error with ``delta=0``, power with ``delta > 0``).

    ``n_pairs`` system pairs are drawn by :func:`sample_pairs` and the trials shared out evenly
    among them (each pair's copula is fitted once). Under H0, ``null="same-margin"`` draws both
    systems' scores from the baseline's margin with the pair's copula (Urbano et al.'s null:
    identical distributions, so the null of every test holds); ``null="same-mean"`` moves the
    experimental system's own margin to the baseline's expected value (equal means only: the
    t-test's and the bootstrap's null, not the sign test's or Wilcoxon's). With ``delta > 0`` the
    experimental margin is moved to the baseline's expected value + delta; a pair whose margin
    cannot be moved is replaced by the next candidate. Trials of ``pairs_per_task`` pairs form one
    vectorised task with its own child seed. ``trials`` and ``B`` left at None take
    :func:`default_trials` and :func:`default_B` of ``scale`` (the papers' sizes by default)."""
    if null not in ("same-margin", "same-mean"):
        raise InputError("null must be 'same-margin' or 'same-mean'")
    if delta < 0:
        raise InputError("delta must be >= 0 (the experimental system is the better one)")
    trials = default_trials(scale) if trials is None else check_int(trials, "trials", minimum=1)
    B = default_B(scale) if B is None else check_int(B, "B", minimum=1)
    n_pairs = min(check_int(n_pairs, "n_pairs", minimum=1), trials)
    per_pair = -(-trials // n_pairs)
    g_pairs, g_tasks = parallel.spawn(seed, 2)
    # spare pairs replace those whose margin cannot be moved to the target mean
    drawn = sample_pairs(models, 2 * n_pairs, delta=delta, seed=g_pairs)
    chosen = []
    for c, i, j in drawn:
        try:
            model = _pair_model(models, c, i, j, delta, null)
        except ValueError:
            continue
        chosen.append(model)
        if len(chosen) == n_pairs:
            break
    if len(chosen) < n_pairs:
        raise InputError(f"only {len(chosen)} of {n_pairs} pairs could be moved to delta = {delta}")
    tasks = [range(a, min(a + pairs_per_task, n_pairs)) for a in range(0, n_pairs, pairs_per_task)]
    seeds = parallel.as_seed_sequence(g_tasks).spawn(len(tasks))

    def run(k):
        rng = np.random.default_rng(seeds[k])
        g_sim, g_test = parallel.spawn(rng, 2)
        sims = [chosen[p].sample(n_topics, per_pair, g_sim) for p in tasks[k]]
        b = np.concatenate([s[0] for s in sims])
        e = np.concatenate([s[1] for s in sims])
        two, one = paired_pvalues(b, e, B=B, seed=g_test)
        return two, one, np.repeat(np.asarray(tasks[k]), per_pair)

    out = parallel.parallel_map(run, range(len(tasks)), n_jobs=n_jobs)
    two = np.concatenate([o[0] for o in out], axis=1)[:, :trials]
    one = np.concatenate([o[1] for o in out], axis=1)[:, :trials]
    pair = np.concatenate([o[2] for o in out])[:trials]
    return PValues(TESTS, two, one, pair, float(delta), int(n_topics), B, label)


# --------------------------------------------------------------------------------------------
# families of systems: family-wise error under the complete null
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyResult:
    """Per trial (a family of ``m`` systems with identical distributions): the smallest paired
    t-test p-value over the m(m-1)/2 pairs and the randomised Tukey HSD ASL of the largest
    difference; ``family`` (trials,) which simulated family each trial came from."""

    min_p: np.ndarray
    hsd_asl: np.ndarray
    family: np.ndarray
    m: int
    n_topics: int
    B: int

    def fwer(self, alpha: float = 0.05) -> pd.Series:
        """Family-wise error: any pair rejected, by unadjusted t-tests, Bonferroni / Holm (both
        reject some pair exactly when min p <= alpha / k) and randomised Tukey HSD."""
        return pd.Series({k: v.mean() for k, v in self._rejections(alpha).items()})

    def _rejections(self, alpha: float) -> dict:
        k = self.m * (self.m - 1) // 2
        return {"t, unadjusted": self.min_p <= alpha, "t, Bonferroni / Holm": self.min_p <= alpha / k,
                "randomised Tukey HSD": self.hsd_asl < alpha}

    def se(self, alpha: float = 0.05) -> pd.Series:
        """Monte Carlo standard error of each family-wise error, clustered by simulated family
        (the trials of a family share its vine copula and margin)."""
        _, inv = np.unique(self.family, return_inverse=True)
        k = inv.max() + 1
        n_c = np.bincount(inv, minlength=k)
        out = {}
        for name, r in self._rejections(alpha).items():
            r_c = np.bincount(inv, weights=r.astype(float), minlength=k)
            out[name] = float(np.sqrt(np.sum((r_c - r.mean() * n_c) ** 2) * k / max(k - 1, 1)) / len(r))
        return pd.Series(out)


def family_experiment(models, *, m: int = 5, n_topics: int = 50, trials: int | None = None,
                      n_families: int = 400, B: int | None = None, seed: SeedLike, n_jobs: int | None = None,
                      families_per_task: int = 10, scale: str = "paper") -> FamilyResult:
    """Family-wise error under the complete null: ``n_families`` sets of ``m`` systems of one
    collection (collection drawn by size), their dependence a vine copula fitted to their scores
    (pyvinecopulib ``Vinecop``, parametric families by AIC, itau), every margin the first
    system's (so all m systems have one distribution); ``trials`` families of scores shared out
    among them, each compared on all pairs. ``trials`` and ``B`` left at None take
    :func:`default_trials` and :func:`default_B` of ``scale`` (the papers' sizes by default)."""
    import pyvinecopulib as pv

    from .simulation import pseudo_obs

    trials = default_trials(scale) if trials is None else check_int(trials, "trials", minimum=1)
    B = default_B(scale) if B is None else check_int(B, "B", minimum=1)
    per = -(-trials // n_families)
    g_pick, g_tasks = parallel.spawn(seed, 2)
    rng = parallel.as_generator(g_pick)
    sizes = np.array([len(md.margins) for md in models])
    picks = []
    for c in rng.choice(len(models), size=n_families, p=sizes / sizes.sum()):
        picks.append((int(c), rng.choice(sizes[c], size=m, replace=False)))
    tasks = [range(a, min(a + families_per_task, n_families)) for a in range(0, n_families, families_per_task)]
    seeds = parallel.as_seed_sequence(g_tasks).spawn(len(tasks))
    controls = pv.FitControlsVinecop(family_set=pv.families.parametric, selection_criterion="aic", parametric_method="itau")
    i, j = np.triu_indices(m, 1)

    def run(k):
        g_fit, g_sim, g_perm = parallel.spawn(seeds[k], 3)
        xs = []
        for f in tasks[k]:
            c, systems = picks[f]
            md = models[c]
            vine = pv.Vinecop.from_data(pseudo_obs(md.scores[systems].T, g_fit), controls=controls)
            u = vine.inverse_rosenblatt(g_sim.random((per * n_topics, m)))
            x = md.margins[systems[0]].ppf(np.clip(u, 0, 1))  # (per * n, m)
            xs.append(x.reshape(per, n_topics, m).transpose(0, 2, 1))
        x = np.concatenate(xs)
        p = sig.paired_t_pvalues(x[:, i] - x[:, j])  # (trials, pairs)
        min_p = np.nanmin(np.where(np.isnan(p), 1.0, p), axis=1)
        perms = np.argsort(g_perm.random((B, n_topics, m)), axis=2)
        hsd = sig.tukey_hsd_pvalues(x, perms).min(axis=1)  # the family's smallest adjusted p
        return min_p, hsd, np.repeat(np.asarray(tasks[k]), per)

    out = parallel.parallel_map(run, range(len(tasks)), n_jobs=n_jobs)
    cat = [np.concatenate([o[q] for o in out])[:trials] for q in range(3)]
    return FamilyResult(cat[0], cat[1], cat[2], m, n_topics, B)
