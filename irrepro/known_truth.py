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

**Modules** (every name is served from here): the tests' p-values and rates live in
:mod:`irrepro._known_truth_pvalues`, the family-wise error in :mod:`irrepro._known_truth_family`,
the default sizes, self-significance and coverage in :mod:`irrepro._known_truth_papers`.
"""

from __future__ import annotations

import numpy as np

from . import parallel
from ._known_truth_family import FamilyResult, family_experiment
from ._known_truth_papers import (
    Coverage,
    SelfSignificance,
    corpus_coverage,
    default_B,
    default_trials,
    self_significance_null,
)
from ._known_truth_pvalues import (
    ALPHAS,
    MC_TARGET,
    RESAMPLING,
    TESTS,
    PValues,
    mc_error,
    mc_error_at,
    paired_pvalues,
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

# --------------------------------------------------------------------------------------------
# the experiments of Urbano et al. (2019): pairs of simulated systems
# --------------------------------------------------------------------------------------------


def sample_pairs(
    models, k: int, *, delta: float = 0.0, seed: SeedLike, neighbours: int = 10
) -> list[tuple[int, int, int]]:
    """``k`` (model, baseline, experimental) system triples as Urbano et al. (2019) draw them.

    A collection with probability proportional to its number of systems, then under H0
    (``delta == 0``) two distinct systems uniformly; with ``delta > 0`` a baseline uniformly from
    the bottom 75% by expected score and the experimental system uniformly from the
    ``neighbours`` others whose expected score is closest to the baseline's + delta.

    Parameters
    ----------
    models : sequence of CollectionModel
        :func:`irrepro.simulation.fit_collection`'s models.
    k : int
        Triples drawn.
    delta : float
        The target difference of expected scores (0: H0).
    seed : SeedLike
        The seed of the draws.
    neighbours : int
        Candidates for the experimental system.

    Returns
    -------
    list of (int, int, int)
        (model, baseline system, experimental system).

    Notes
    -----
    Urbano et al. (2019), section 3.

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import simulate
    >>> models = [sim.fit_collection(simulate.score_matrix(12, 40, seed=s), seed=s) for s in (1, 2)]
    >>> triples = kt.sample_pairs(models, 4, seed=1)
    >>> len(triples), all(i != j for _, i, j in triples)
    (4, True)
    """
    rng = parallel.as_generator(seed)
    sizes = np.array([len(m.margins) for m in models])
    out = []
    for c in rng.choice(len(models), size=k, p=sizes / sizes.sum()):
        mu = models[c].means
        if delta == 0:
            i, j = rng.choice(len(mu), size=2, replace=False)
        else:
            lower = np.argsort(-mu, kind="stable")[int(round(0.25 * len(mu))) :]
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
    """p-values of every test on ``trials`` simulated comparisons of ``n_topics`` topics.

    Type I error with ``delta=0``, power with ``delta > 0``.

    ``n_pairs`` system pairs are drawn by :func:`sample_pairs` and the trials shared out evenly
    among them (each pair's copula is fitted once). Under H0, ``null="same-margin"`` draws both
    systems' scores from the baseline's margin with the pair's copula (Urbano et al.'s null:
    identical distributions, so the null of every test holds); ``null="same-mean"`` moves the
    experimental system's own margin to the baseline's expected value (equal means only: the
    t-test's and the bootstrap's null, not the sign test's or Wilcoxon's). With ``delta > 0`` the
    experimental margin is moved to the baseline's expected value + delta; a pair whose margin
    cannot be moved is replaced by the next candidate. Trials of ``pairs_per_task`` pairs form one
    vectorised task with its own child seed.

    Parameters
    ----------
    models : sequence of CollectionModel
        :func:`irrepro.simulation.fit_collection`'s models.
    n_topics : int
        Topics per trial.
    delta : float
        The true difference of expected scores, >= 0.
    trials : int, optional
        Trials; None: :func:`default_trials` of ``scale``.
    n_pairs : int
        Simulated system pairs the trials are shared out among.
    B : int, optional
        Resamples of the resampling tests; None: :func:`default_B` of ``scale``.
    null : {"same-margin", "same-mean"}
        The null hypothesis simulated when ``delta == 0``.
    seed : SeedLike
        The seed of all draws.
    n_jobs : int, optional
        Workers; the result does not depend on them.
    pairs_per_task : int
        Pairs per vectorised task.
    label : str
        Stored in the result.
    scale : {"paper", "quick"}
        The sizes of ``trials`` and ``B`` left at None (the papers' by default).

    Returns
    -------
    PValues

    Notes
    -----
    Urbano, Lima & Hanjalic (2019), section 3.

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import simulate
    >>> models = [sim.fit_collection(simulate.score_matrix(12, 40, seed=s), seed=s) for s in (1, 2)]
    >>> alt = kt.rejection_experiment(models, 20, delta=0.1, trials=200, n_pairs=20, B=100, seed=3)
    >>> power = alt.rates(alphas=(0.05,), tails=1).loc[0.05]
    >>> bool(power["paired-t"] > 0.05)      # a true difference of 0.1 is found more often than alpha
    True
    """
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
