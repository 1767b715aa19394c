"""A ranking-level simulation after Parapar, Losada & Barreiro ("Testing the tests", ACM SAC 2021) and
Otero, Parapar & Barreiro (ECIR 2025, arXiv:2501.03930): systems are models of rankings fitted to
real runs and qrels, so the scores the tests see are those of simulated rankings, not draws from
fitted score distributions (design A, ``_urbano``).

Their design, as the authors' code runs it (davidoterof/ecir2025: ``models/ProbabilityModel.java``,
``experiment/SystemModel.java``, ``experiment/ExperimentCompareTests.java``, ``nhst/*.java``):

- a system is one run; per topic, a logistic regression of a document's relevance (grade > 0,
  unjudged 0) on its rank ``1..L``, penalised by ``0.5 lambda slope^2``, lambda = 0.1 (smile's
  default); a topic whose list holds one class only keeps the run's own relevance;
- a simulated ranking: one Bernoulli draw of relevance at each of the run's ``L`` ranks; AP divides
  by the qrels' R, nDCG's ideal is the qrels' (binary gains in the simulated list);
- a family of m = 3, 5 or 10 systems: the fitted run with both coefficients multiplied by
  ``1 + i es`` (divided where negative), ``i`` centred on the run, es = 0.005, 0.010, ..., 0.25;
  es = 0 is the complete null; the topics are the run's first n (no topic sampling);
- n = 10, 30, 50 topics; AP and nDCG; alpha = 0.05; 1,000 families per run and es; t and Wilcoxon
  (Apache Commons, normal approximation) unadjusted, with Bonferroni, Holm, BH, BY, and randomised
  Tukey HSD and ANOVA; FWER = families with any rejection, "complete power" = families with every
  pair rejected.

Ours (TREC-COVID round 5 with its round-5 qrels, every distinct run):

- the same penalised logistic model per run and topic, in **log** rank: in rank it cannot reproduce
  the runs (mean AP 0.198 against their real 0.265, P@10 0.415 against 0.745, nDCG@20 0.370 against
  0.633: a logistic curve in rank is too flat at the top); in log rank it does (AP 0.268 against 0.265, P@10 0.755 against 0.745,
  nDCG@20 0.668 against 0.633: :meth:`RankingModels.calibration`);
- graded: one regression per grade level (grade >= 1, >= 2, ...), each probability capped by the
  level below's, one uniform per rank giving the grade, so that nDCG@20 sees the grades; the
  package's measure code (``irrepro.measures.kernel.score_grades``) scores the simulated lists (a
  document drawn grade 0 is judged non-relevant: these measures count an unjudged one so);
- ``draws`` rankings are simulated once per run and topic, and a trial takes, per system and topic,
  one of them (distinct ones for systems of one run): the simulated score distribution is that of
  the draws, the expected scores are exact for it (``RankingModels.means``) and their distance to
  the fitted model's is their Monte Carlo error (``RankingModels.mc_error``);
- topics drawn at random with replacement from the collection's (so any n: Urbano et al.'s 25, 50,
  100 and Otero et al.'s 10, 30, 50);
- the null: both systems (all k of a family) one run's model; the alternative: different runs, no
  synthetic improvement of a run: a baseline among the bottom 75% by expected score, then system i
  one of the 10 unused runs closest to the baseline's mean + ``i delta`` (design A's choice of a
  pair; Otero et al.'s spacing ``i es`` for families); the true difference is the difference of
  expected scores;
- Urbano et al.'s five tests and Sakai's two (``batch_pvalues``; R's Wilcoxon, exact for small
  samples); in families, Holm and BH by statsmodels (``irrepro.stats.adjust_pvalues``); a pair is
  found when rejected with the sign of its true difference (theirs: any rejection).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import parallel
from ..data import PAD, RunSet
from ..errors import InputError
from ..measures import evaluate
from ..measures.kernel import score_grades
from ..parallel import SeedLike, check_int
from ..significance.urbano import URBANO_TESTS
from ..stats import adjust_pvalues, clustered_se, expit
from ._differences import difference_properties
from ._pvalues import RESAMPLING
from ._urbano import _NEIGHBOURS, _TOP, SAKAI_TESTS, UrbanoPValues, batch_pvalues

#: Topic-set sizes: Otero et al.'s 10, 30 and 50 and Urbano et al.'s 25, 50 and 100.
RANKING_TOPICS = (10, 25, 30, 50, 100)
#: Systems per family (Otero et al.).
FAMILY_SIZES = (3, 5, 10)
#: Multiple-comparison procedures by ``irrepro.stats.adjust_pvalues``' (statsmodels') names.
PROCEDURES = ("none", "holm", "fdr_bh")
#: Trials (families) per configuration: a 5% rate to a clustered Monte Carlo error <= 0.005.
RANKING_TRIALS = {"paper": 2500, "quick": 300}
#: Their penalty on the slope (smile's ``smile.logistic.lambda``).
_LAMBDA = 0.1
#: Newton steps at most (a damped step changes no logit by more than 4).
_ITERATIONS = 100
#: The sign test's tie threshold, design A's (Urbano et al.'s).
_MIN_D = 0.01


def _logistic(y, valid, x) -> np.ndarray:
    """P(y | x) per row of ``y`` (lists, ranks): Newton's method on the penalised logistic likelihood."""
    y = y & valid
    n, k = valid.sum(axis=1), y.sum(axis=1)
    both = (k > 0) & (k < n)
    w = np.column_stack([np.log((k + 0.5) / (n - k + 0.5)), np.zeros(len(y))])
    todo = np.flatnonzero(both)
    for _ in range(_ITERATIONS):
        if not todo.size:
            break
        p = expit(w[todo, :1] + w[todo, 1:] * x)
        r, h = np.where(valid[todo], y[todo] - p, 0.0), np.where(valid[todo], p * (1 - p), 0.0)
        g0, g1 = r.sum(axis=1), r @ x - _LAMBDA * w[todo, 1]
        h00, h01, h11 = h.sum(axis=1), h @ x, h @ (x * x) + _LAMBDA
        det = h00 * h11 - h01**2
        step = np.column_stack([h11 * g0 - h01 * g1, h00 * g1 - h01 * g0]) / det[:, None]
        size = np.abs(step[:, 0]) + np.abs(step[:, 1]) * x.max()  # the largest change of the logit
        w[todo] += step * np.minimum(1.0, 4.0 / np.maximum(size, 1e-300))[:, None]
        todo = todo[size > 1e-8]
    p = np.where(both[:, None], expit(w[:, :1] + w[:, 1:] * x), (k == n)[:, None])
    return np.where(valid, p, 0.0)


def _simulate_run(task) -> np.ndarray:
    """One run's model fitted and ``draws`` rankings per topic scored: ``(measures, topics, draws)``."""
    grades, counts, measures, draws, g = task
    valid = grades != PAD
    x = np.log(np.arange(1, grades.shape[1] + 1, dtype=np.float64))
    p = [np.ones(grades.shape)]  # P(grade >= 0)
    for level in range(1, counts.shape[1]):  # P(grade >= level), at most P(grade >= level - 1)
        p.append(np.minimum(_logistic(grades >= level, valid, x), p[-1]))
    u = g.random((draws, *grades.shape), dtype=np.float32)
    sim = sum((u < q.astype(np.float32)).astype(np.int8) for q in p[1:])
    sim[:, ~valid] = PAD
    scores = score_grades(sim, counts, list(measures))
    return np.stack([scores[m].T for m in measures])


@dataclass(frozen=True)
class RankingModels:
    """One measure's scores of the rankings simulated from every run's model (``fit_ranking_models``).

    Attributes
    ----------
    measure : str
    runs, topics : tuple of str
    scores : numpy.ndarray
        ``(runs, topics, draws)``: the measure on each simulated ranking.
    real : numpy.ndarray
        ``(runs, topics)``: the measure on the real runs.
    """

    measure: str
    runs: tuple
    topics: tuple
    scores: np.ndarray
    real: np.ndarray

    @property
    def means(self) -> np.ndarray:
        """Each run's expected score over a random topic: the truth of the simulation."""
        return self.scores.mean(axis=(1, 2))

    @property
    def mc_error(self) -> np.ndarray:
        """Monte Carlo error of ``means`` as the fitted models' expected scores."""
        return np.sqrt(self.scores.var(axis=2, ddof=1).sum(axis=1) / self.scores.shape[2]) / len(self.topics)

    def difference(self, b, e) -> tuple[np.ndarray, np.ndarray]:
        """True differences ``e - b`` of runs (indices) and their Monte Carlo errors."""
        var = self.scores.var(axis=2, ddof=1).sum(axis=1) / self.scores.shape[2]
        return self.means[e] - self.means[b], np.sqrt(var[b] + var[e]) / len(self.topics)

    def calibration(self) -> pd.DataFrame:
        """Per run: real and model mean score, the sd of a mean over the topics under the model, z."""
        sd = np.sqrt(self.scores.var(axis=2, ddof=1).sum(axis=1)) / len(self.topics)
        real = self.real.mean(axis=1)
        return pd.DataFrame({"run": self.runs, "real": real, "model": self.means, "sd": sd,
                             "z": (real - self.means) / np.hypot(sd, self.mc_error)})  # fmt: skip


def fit_ranking_models(
    runset: RunSet,
    measures=("AP", "P@10", "nDCG@20"),
    *,
    draws: int = 100,
    seed: SeedLike,
    n_jobs: int | None = None,
) -> dict[str, RankingModels]:
    """Fit a model of rankings to every run and score ``draws`` rankings per run and topic from it.

    Per run and topic, logistic regressions of relevance (grade >= 1, >= 2, ... up to the qrels') on
    the log of the rank, fitted to the run's list and the qrels (Parapar et al.'s model in log rank:
    see the module's notes); then ``draws`` lists of the run's length drawn from it, one uniform per
    rank giving its grade, scored by the package's measure code. Runs whose lists are identical
    (grade by grade) are kept once. Run ``s`` draws from child ``s`` of the seed, so the result does
    not depend on ``n_jobs``.

    Parameters
    ----------
    runset : irrepro.data.RunSet
        Runs and qrels (``irrepro.data.load_runs``).
    measures : sequence of str
    draws : int
        Rankings per run and topic.
    seed : SeedLike
    n_jobs : int, optional

    Returns
    -------
    dict
        measure -> :class:`RankingModels`, all from the same simulated rankings.

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> from irrepro.known_truth._rankings import fit_ranking_models
    >>> rs = synthetic.runs(4, 6, list_length=50, r_median=10, seed=1)
    >>> models = fit_ranking_models(rs, ["AP"], draws=20, seed=2)
    >>> models["AP"].scores.shape
    (4, 6, 20)
    """
    measures = (measures,) if isinstance(measures, str) else tuple(measures)
    draws = check_int(draws, "draws", minimum=2)
    grades = runset.grades
    keep = np.sort(np.unique(grades.reshape(len(grades), -1), axis=0, return_index=True)[1])
    seeds = parallel.as_seed_sequence(seed).spawn(len(grades))
    counts = runset.grade_counts()
    tasks = [(grades[s], counts, measures, draws, np.random.default_rng(seeds[s])) for s in keep]
    out = np.stack(parallel.parallel_map(_simulate_run, tasks, n_jobs=n_jobs, processes=True), axis=1)
    runs = tuple(runset.runs[s] for s in keep)
    real = evaluate(runset.subset(runs=runs), list(measures))
    return {
        m: RankingModels(m, runs, tuple(runset.topics), out[i], real[m].scores)
        for i, m in enumerate(measures)
    }


def _draw(models: RankingModels, systems, n_topics: int, g) -> np.ndarray:
    """Scores ``(trials, k, topics)`` of the trials' ``systems`` ``(trials, k)`` on random topics."""
    trials, k = systems.shape
    T, D = models.scores.shape[1:]
    if k > D:
        raise InputError(f"{k} systems of one run need {k} distinct rankings a topic, the models have {D}")
    topics = g.integers(T, size=(trials, 1, n_topics))
    draw = np.argpartition(g.random((trials, n_topics, D)), k - 1, axis=2)[..., :k]  # k distinct a topic
    return models.scores[systems[:, :, None], topics, draw.transpose(0, 2, 1)]


def _systems(models: RankingModels, k: int, delta: float, trials: int, g) -> np.ndarray:
    """``(trials, k)`` runs: one run k times (delta 0), or a baseline and runs about ``delta`` apart.

    The baseline is uniform among the bottom 75% by expected score with room for ``(k - 1) delta``
    above it; system ``i`` uniform among the 10 unused runs closest to the baseline's mean + ``i delta``.
    """
    mu = models.means
    if delta == 0:
        return np.repeat(g.integers(len(mu), size=(trials, 1)), k, axis=1)
    base = np.argsort(-mu, kind="stable")[int(round(_TOP * len(mu))) :]
    base = base[mu[base] + (k - 1) * delta <= mu.max()]
    if len(base) == 0 or len(mu) < k:
        raise InputError(f"no baseline leaves room for {k} systems {delta} apart among {len(mu)} runs")
    out = np.empty((trials, k), dtype=np.int64)
    out[:, 0] = base[g.integers(len(base), size=trials)]
    used = np.zeros((trials, len(mu)), dtype=bool)
    rows = np.arange(trials)
    for i in range(1, k):
        used[rows, out[:, i - 1]] = True
        gap = np.abs(mu[None, :] - mu[out[:, :1]] - i * delta) + np.where(used, np.inf, 0.0)
        m = min(_NEIGHBOURS, len(mu) - i)
        out[:, i] = np.argsort(gap, axis=1, kind="stable")[rows, g.integers(m, size=trials)]
    return out


def _test_batch(task):
    """One batch's p-values, mean differences and (optionally) properties of its differences."""
    b, e, tests, B, g_test, g_sakai, properties = task
    two, one = batch_pvalues(b, e, tests, B, g_test, g_sakai, _MIN_D)
    return two, one, (e - b).mean(axis=1), difference_properties(e - b) if properties else {}


def _batches(trials: int, batch: int, seed: SeedLike) -> list:
    """``(first, last, [draws, tests, Sakai's tests generators])`` of each batch: batch k from child k."""
    seeds = parallel.as_seed_sequence(seed).spawn(-(-trials // batch))
    return [(a, min(a + batch, trials), parallel.spawn(s, 3)) for a, s in zip(range(0, trials, batch), seeds)]


def _tests(tests) -> tuple:
    """``tests`` as a tuple of known names."""
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    bad = [t for t in tests if t not in URBANO_TESTS + SAKAI_TESTS]
    if bad or not tests:
        raise InputError(f"tests must be among {', '.join(URBANO_TESTS + SAKAI_TESTS)}, not {bad}")
    return tests


def ranking_experiment(
    models: RankingModels,
    n_topics: int,
    *,
    trials: int,
    delta: float = 0.0,
    tests=URBANO_TESTS + SAKAI_TESTS,
    B: int = 1000,
    seed: SeedLike,
    n_jobs: int | None = None,
    batch: int = 500,
    properties: bool = True,
) -> UrbanoPValues:
    """Type I error (``delta == 0``) or power of the paired tests on simulated rankings' scores.

    Each trial draws a pair of runs, ``n_topics`` topics at random with replacement and, per topic,
    one simulated ranking of each system (distinct ones when both are one run). ``delta == 0``: both
    systems are the same run's model (the null holds exactly). ``delta > 0``: the baseline is a run
    among the bottom 75% by expected score, the experimental one of the 10 runs whose expected score
    is closest to the baseline's + delta (``models.difference`` gives each pair's true difference).
    Batch ``k`` draws from child ``k`` of the seed, so results do not depend on ``n_jobs``.

    Parameters
    ----------
    models : RankingModels
        One measure's (:func:`fit_ranking_models`).
    n_topics : int
    trials : int
    delta : float
        0 for the null; else the wanted true difference, > 0.
    tests : sequence of str
        Among ``irrepro.significance.urbano.URBANO_TESTS`` and ``SAKAI_TESTS``.
    B : int
        Resamples of the bootstrap and permutation tests.
    seed : SeedLike
    n_jobs : int, optional
    batch : int
        Trials per batch.
    properties : bool
        Measure :func:`~irrepro.known_truth._differences.difference_properties` of every trial.

    Returns
    -------
    UrbanoPValues
        Clustered by pair of run models (``baseline * runs + experimental``), labelled by measure.

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> from irrepro.known_truth._rankings import fit_ranking_models, ranking_experiment
    >>> rs = synthetic.runs(4, 6, list_length=50, r_median=10, seed=1)
    >>> models = fit_ranking_models(rs, ["AP"], draws=20, seed=2)["AP"]
    >>> res = ranking_experiment(models, 10, trials=50, tests=("paired-t", "wilcoxon"), seed=3)
    >>> res.trials, sorted(res.props)[:2]
    (50, ['d_z', 'rank_balance'])
    """
    tests = _tests(tests)
    n_topics = check_int(n_topics, "n_topics", minimum=2)
    trials, batch, B = (
        check_int(v, k, minimum=1) for v, k in ((trials, "trials"), (batch, "batch"), (B, "B"))
    )
    if not delta >= 0:
        raise InputError(f"delta must be >= 0 (0: the null), got {delta}")
    tasks, pairs = [], []
    for a, z, (g_draw, g_test, g_sakai) in _batches(trials, batch, seed):
        runs = _systems(models, 2, float(delta), z - a, g_draw)
        x = _draw(models, runs, n_topics, g_draw)
        tasks.append((x[:, 0], x[:, 1], tests, B, g_test, g_sakai, properties))
        pairs.append(runs[:, 0] * len(models.runs) + runs[:, 1])
    out = parallel.parallel_map(_test_batch, tasks, n_jobs=n_jobs, processes=True)
    two, one = (np.nan_to_num(np.concatenate([o[i] for o in out], axis=1), nan=1.0) for i in (0, 1))
    props = {k: np.concatenate([o[3][k] for o in out]) for k in out[0][3]}
    return UrbanoPValues(tests, two, one, np.concatenate(pairs), float(delta), n_topics, B, models.measure,
                         d=np.concatenate([o[2] for o in out]), props=props)  # fmt: skip


@dataclass(frozen=True)
class RankingFamilies:
    """Adjusted p-values of all pairs of every simulated family (``ranking_family_experiment``).

    Attributes
    ----------
    tests, procedures : tuple of str
    p : numpy.ndarray
        ``(tests, procedures, families, pairs)`` two-tailed p-values, adjusted within each family.
    d, truth : numpy.ndarray
        ``(families, pairs)`` observed and true mean differences (system j - system i, i < j).
    family : numpy.ndarray
        ``(families,)``: the cluster of each family (its set of runs).
    k, n_topics : int
    delta : float
        0: the complete null; else the spacing of the systems' expected scores asked for.
    label : str
    """

    tests: tuple
    procedures: tuple
    p: np.ndarray
    d: np.ndarray
    truth: np.ndarray
    family: np.ndarray
    k: int
    n_topics: int
    delta: float
    label: str = ""

    def frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """Per test and procedure: FWER (``delta == 0``) or power (the share of pairs found), its Monte
        Carlo error clustered by family; for power also ``complete`` (every pair found, Otero et al.'s)."""
        strict = np.array([t in RESAMPLING for t in self.tests])[:, None, None, None]
        rejected = np.where(strict, self.p < alpha, self.p <= alpha + 1e-12)
        F, P = self.d.shape
        rows = []
        for i, t in enumerate(self.tests):
            for j, proc in enumerate(self.procedures):
                r = rejected[i, j]
                row = {"test": t, "procedure": proc, "k": self.k, "topics": self.n_topics, "delta": self.delta,
                       "families": F, "label": self.label, "alpha": alpha}  # fmt: skip
                if self.delta == 0:
                    hit = r.any(axis=1).astype(float)
                    row |= {"what": "FWER", "rate": hit.mean(), "se": float(clustered_se(hit, self.family))}
                else:
                    found = (r & (np.sign(self.d) == np.sign(self.truth))).astype(float)
                    every = found.all(axis=1).astype(float)
                    row |= {"what": "power", "rate": found.mean(),
                            "se": float(clustered_se(found.ravel(), np.repeat(self.family, P))),
                            "complete": every.mean(), "complete_se": float(clustered_se(every, self.family))}  # fmt: skip
                rows.append(row)
        return pd.DataFrame(rows)


def _family_batch(task):
    """One batch of families: adjusted p-values ``(tests, procedures, families, pairs)`` and mean differences."""
    x, tests, B, g_test, g_sakai = task
    F, k, n = x.shape
    i, j = np.triu_indices(k, 1)
    b, e = x[:, i].reshape(-1, n), x[:, j].reshape(-1, n)
    two = np.nan_to_num(batch_pvalues(b, e, tests, B, g_test, g_sakai, _MIN_D)[0], nan=1.0).reshape(
        len(tests), F, -1
    )
    adj = np.stack([two if m == "none" else np.stack([[adjust_pvalues(r, m) for r in t] for t in two])
                    for m in PROCEDURES], axis=1)  # fmt: skip
    return adj, (e - b).mean(axis=1).reshape(F, -1)


def ranking_family_experiment(
    models: RankingModels,
    n_topics: int,
    *,
    k: int,
    families: int,
    delta: float = 0.0,
    tests=("paired-t", "wilcoxon"),
    B: int = 1000,
    seed: SeedLike,
    n_jobs: int | None = None,
    batch: int = 250,
) -> RankingFamilies:
    """All-pairs comparisons of ``k`` simulated systems: FWER under the complete null, or power.

    Each family draws ``n_topics`` topics at random with replacement and, per topic, one simulated
    ranking of each system (distinct ones for systems of one run). ``delta == 0``: all ``k`` systems
    are one run's model (the complete null). ``delta > 0``: ``k`` distinct runs whose expected scores
    are about ``delta`` apart (as Otero et al.'s effects ``i es``, but real runs), every pair truly
    different: a baseline among the bottom 75% by expected score with room above it, system ``i``
    one of the 10 unused runs closest to its mean + ``i delta``. The ``k (k - 1) / 2`` pairs'
    two-tailed p-values are adjusted within the family by each of :data:`PROCEDURES`. Batch ``b``
    draws from child ``b`` of the seed, so results do not depend on ``n_jobs``.

    Parameters
    ----------
    models : RankingModels
    n_topics : int
    k : int
        Systems per family, >= 2.
    families : int
    delta : float
        0 for the complete null; else the spacing, > 0.
    tests : sequence of str
        Among ``URBANO_TESTS`` and ``SAKAI_TESTS`` (Otero et al.'s: t and Wilcoxon).
    B : int
        Resamples of any resampling test.
    seed : SeedLike
    n_jobs : int, optional
    batch : int
        Families per batch.

    Returns
    -------
    RankingFamilies

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> from irrepro.known_truth._rankings import fit_ranking_models, ranking_family_experiment
    >>> rs = synthetic.runs(4, 6, list_length=50, r_median=10, seed=1)
    >>> models = fit_ranking_models(rs, ["AP"], draws=20, seed=2)["AP"]
    >>> fam = ranking_family_experiment(models, 10, k=3, families=40, seed=3)
    >>> list(fam.frame().procedure[:3]), fam.p.shape
    (['none', 'holm', 'fdr_bh'], (2, 3, 40, 3))
    """
    tests = _tests(tests)
    n_topics, k = check_int(n_topics, "n_topics", minimum=2), check_int(k, "k", minimum=2)
    families, batch, B = (
        check_int(v, n, minimum=1) for v, n in ((families, "families"), (batch, "batch"), (B, "B"))
    )
    if not delta >= 0:
        raise InputError(f"delta must be >= 0 (0: the complete null), got {delta}")
    tasks, runs = [], []
    for a, z, (g_draw, g_test, g_sakai) in _batches(families, batch, seed):
        runs.append(_systems(models, k, float(delta), z - a, g_draw))
        tasks.append((_draw(models, runs[-1], n_topics, g_draw), tests, B, g_test, g_sakai))
    out = parallel.parallel_map(_family_batch, tasks, n_jobs=n_jobs, processes=True)
    fam = np.concatenate(runs)
    i, j = np.triu_indices(k, 1)
    cluster = np.unique(np.sort(fam, axis=1), axis=0, return_inverse=True)[1].ravel()
    return RankingFamilies(tests, PROCEDURES, np.concatenate([o[0] for o in out], axis=2),
                           np.concatenate([o[1] for o in out]), models.difference(fam[:, i], fam[:, j])[0],
                           cluster, k, n_topics, float(delta), models.measure)  # fmt: skip
