"""A ranking-level simulation after Parapar, Losada & Barreiro (ACM SAC 2021) and Otero, Parapar &
Barreiro (ECIR 2025): systems are models of rankings fitted to real runs and qrels, so the tests see the
scores of simulated rankings (design A, ``_urbano``, draws scores). Their design beside ours:
:func:`ranking_design_table`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
from ._urbano import _NEIGHBOURS, _TOP, SAKAI_TESTS, UrbanoPValues, _check_tests, batch_pvalues
from ._urbano_sizes import _fresh, urbano_design

#: Multiple-comparison procedures by ``irrepro.stats.adjust_pvalues``' (statsmodels') names.
PROCEDURES = ("none", "holm", "fdr_bh")
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
    return np.ascontiguousarray(np.stack([scores[m].T for m in measures]))  # one layout, one summation order


@dataclass(frozen=True)
class RankingModels:
    """One measure's scores ``(runs, topics, draws)`` of the rankings simulated from every run's model, and ``real``."""

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

    def difference(self, b, e) -> np.ndarray:
        """True differences ``e - b`` of runs (indices)."""
        return self.means[e] - self.means[b]

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
    """measure -> :class:`RankingModels`: ``draws`` lists per run and topic from a logistic model in log rank."""
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
    """``(trials, k)`` runs: one run k times (delta 0), or a baseline and runs about ``i delta`` above it."""
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
    return two, one, (e - b).mean(axis=1), difference_properties(e - b, tie=_MIN_D) if properties else {}


def _batches(models, n_topics, k, delta, trials, batch, seed, tests, B, what, null) -> tuple:
    """The arguments checked, and per batch (child k of the seed) its runs, their scores and test generators."""
    tests = _check_tests(tests)
    n_topics, k = check_int(n_topics, "n_topics", minimum=2), check_int(k, "k", minimum=2)
    trials, batch, B = (check_int(v, n, minimum=1) for v, n in ((trials, what), (batch, "batch"), (B, "B")))
    if not delta >= 0:
        raise InputError(f"delta must be >= 0 (0: {null}), got {delta}")
    out = []
    chunks = parallel._chunks(trials, batch)
    for c, s in zip(chunks, parallel.as_seed_sequence(seed).spawn(len(chunks))):
        g_draw, g_test, g_sakai = parallel.spawn(s, 3)
        runs = _systems(models, k, float(delta), c.stop - c.start, g_draw)
        out.append((runs, _draw(models, runs, n_topics, g_draw), g_test, g_sakai))
    return tests, B, out


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
    """Type I error (``delta == 0``) or power of the tests on pairs of run models, clustered by pair."""
    tests, B, batches = _batches(
        models, n_topics, 2, delta, trials, batch, seed, tests, B, "trials", "the null"
    )
    tasks = [(x[:, 0], x[:, 1], tests, B, g_test, g_sakai, properties) for _, x, g_test, g_sakai in batches]
    pairs = [runs[:, 0] * len(models.runs) + runs[:, 1] for runs, *_ in batches]
    out = parallel.parallel_map(_test_batch, tasks, n_jobs=n_jobs, processes=True)
    two, one = (np.nan_to_num(np.concatenate([o[i] for o in out], axis=1), nan=1.0) for i in (0, 1))
    props = {k: np.concatenate([o[3][k] for o in out]) for k in out[0][3]}
    return UrbanoPValues(tests, two, one, np.concatenate(pairs), float(delta), n_topics, B, models.measure,
                         d=np.concatenate([o[2] for o in out]), props=props)  # fmt: skip


@dataclass(frozen=True)
class RankingFamilies:
    """Adjusted two-tailed p-values ``(tests, procedures, families, pairs)`` of every simulated family."""

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
        """Per test and procedure: FWER (``delta == 0``) or power, complete and minus the t-test's, se by family."""
        strict = np.array([t in RESAMPLING for t in self.tests])[:, None, None, None]
        rejected = np.where(strict, self.p < alpha, self.p <= alpha + 1e-12)
        F, P = self.d.shape
        right = np.sign(self.d) == np.sign(self.truth)
        t0 = self.tests.index("paired-t") if "paired-t" in self.tests else None
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
                    found = (r & right).astype(float)
                    every = found.all(axis=1).astype(float)
                    row |= {"what": "power", "rate": found.mean(),
                            "se": float(clustered_se(found.ravel(), np.repeat(self.family, P))),
                            "complete": every.mean(), "complete_se": float(clustered_se(every, self.family))}  # fmt: skip
                    if t0 is not None:  # minus the t-test's on the same families: clustered per family
                        vs = found.mean(axis=1) - (rejected[t0, j] & right).mean(axis=1)
                        row |= {
                            "power_vs_t": vs.mean(),
                            "power_vs_t_se": float(clustered_se(vs, self.family)),
                        }
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
    adj = np.stack([two if m == "none" else adjust_pvalues(two, m) for m in PROCEDURES], axis=1)
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
    """FWER (``delta == 0``) or power of all pairs of ``k`` run models, adjusted by :data:`PROCEDURES`."""
    tests, B, batches = _batches(
        models, n_topics, k, delta, families, batch, seed, tests, B, "families", "the complete null"
    )
    tasks = [(x, tests, B, g_test, g_sakai) for _, x, g_test, g_sakai in batches]
    out = parallel.parallel_map(_family_batch, tasks, n_jobs=n_jobs, processes=True)
    fam = np.concatenate([runs for runs, *_ in batches])
    i, j = np.triu_indices(k, 1)
    cluster = np.unique(np.sort(fam, axis=1), axis=0, return_inverse=True)[1].ravel()
    return RankingFamilies(tests, PROCEDURES, np.concatenate([o[0] for o in out], axis=2),
                           np.concatenate([o[1] for o in out]), models.difference(fam[:, i], fam[:, j]),
                           cluster, k, n_topics, float(delta), models.measure)  # fmt: skip


@dataclass(frozen=True)
class RankingDesign:
    """The sizes of design B at one scale (``ranking_design``); ``se``: the 5% rate's Monte Carlo target."""

    measures: tuple
    sizes: tuple
    topics: int
    deltas: tuple
    k: tuple
    family_topics: tuple
    family_delta: float
    trials: int
    power_trials: int
    B: int
    draws: int
    se: float
    tests: tuple = (*URBANO_TESTS, "bootstrap")


def ranking_design(scale: str = "paper") -> RankingDesign:
    """The sizes of the ranking-level simulation (design B) in the book at ``scale``.

    Parameters
    ----------
    scale : {"paper", "quick", "full"}

    Returns
    -------
    RankingDesign

    Examples
    --------
    >>> from irrepro.known_truth import ranking_design
    >>> ranking_design().trials, ranking_design("quick").sizes
    (2500, (25, 50, 100))
    """
    scale = parallel.check_scale(scale)
    paper = RankingDesign(measures=("AP", "P@10", "nDCG@20"), sizes=(25, 50, 100), topics=50,
                          deltas=(0.01, 0.02, 0.05, 0.1), k=(3, 5, 10), family_topics=(25, 50), family_delta=0.02,
                          trials=2500, power_trials=2500, B=urbano_design(scale).B, draws=100, se=0.005)  # fmt: skip
    if scale == "quick":
        return replace(paper, deltas=(0.02, 0.05), trials=300, power_trials=100, draws=20, se=0.015)
    if scale == "full":
        return replace(paper, sizes=(10, 25, 30, 50, 100), deltas=tuple(i / 100 for i in range(1, 11)),
                       family_topics=(10, 25, 30, 50), trials=10_000, power_trials=4000, draws=200, se=0.0025)  # fmt: skip
    return paper


@dataclass(frozen=True)
class RankingStudy:
    """``ranking_study``'s models by measure, pairs by (measure, topics, delta), families by (k, topics, delta)."""

    design: RankingDesign
    models: dict
    pairs: dict
    families: dict


def ranking_study(
    runset: RunSet, design: RankingDesign, *, seed: SeedLike, n_jobs: int | None = None
) -> RankingStudy:
    """The ranking-level simulation after Parapar et al. (2021) and Otero et al. (2025), whole.

    Models of rankings fitted to every run, then the pairs of every test and the families.

    Parameters
    ----------
    runset : irrepro.data.RunSet
    design : RankingDesign
        ``ranking_design``'s, or one replaced in part (``dataclasses.replace``).
    seed : SeedLike
    n_jobs : int, optional

    Returns
    -------
    RankingStudy

    Examples
    --------
    >>> from dataclasses import replace
    >>> from irrepro import known_truth as kt
    >>> from irrepro.data import synthetic
    >>> rs = synthetic.runs(12, 8, list_length=50, r_median=10, seed=1)
    >>> design = replace(kt.ranking_design("quick"), measures=("AP",), sizes=(10,), topics=10, deltas=(0.02,),
    ...                  k=(3,), family_topics=(10,), trials=40, power_trials=40, B=50, draws=10)
    >>> study = kt.ranking_study(rs, design, seed=1)
    >>> sorted(study.pairs), sorted(study.families)
    ([('AP', 10, 0.0), ('AP', 10, 0.02)], [(3, 10, 0.0), (3, 10, 0.02)])
    """
    g_fit, g_pairs, g_families = parallel.as_seed_sequence(seed).spawn(3)
    models = fit_ranking_models(runset, design.measures, draws=design.draws, seed=g_fit, n_jobs=n_jobs)
    first, pairs, families = design.measures[0], {}, {}
    rows = [(first, n, 0.0) for n in design.sizes] + [(m, design.topics, 0.0) for m in design.measures[1:]]
    rows += [(first, design.topics, float(d)) for d in design.deltas]
    seeds = _common_seeds([(m, d) for m, _, d in rows], g_pairs)
    for m, n, d in rows:
        trials = design.power_trials if d else design.trials
        common = dict(delta=d, B=design.B, seed=seeds((m, d)), n_jobs=n_jobs)
        pairs[m, n, d] = ranking_experiment(models[m], n, trials=trials, tests=design.tests, **common)
    rows = [
        (k, n, d) for k in design.k for d in (0.0, float(design.family_delta)) for n in design.family_topics
    ]
    seeds = _common_seeds([(k, d) for k, _, d in rows], g_families)
    for k, n, d in rows:
        trials = design.power_trials if d else design.trials
        families[k, n, d] = ranking_family_experiment(
            models[first], n, k=k, families=trials, delta=d, B=design.B, seed=seeds((k, d)), n_jobs=n_jobs
        )
    return RankingStudy(design, models, pairs, families)


def _common_seeds(keys, seed):
    """Key -> a new copy of the child of ``seed`` of its distinct key (in order of first appearance)."""
    keys = list(dict.fromkeys(keys))
    kids = dict(zip(keys, parallel.as_seed_sequence(seed).spawn(len(keys))))
    return lambda key: _fresh(kids[key])


def ranking_design_table(scale: str = "paper") -> pd.DataFrame:
    """Parapar et al.'s and Otero et al.'s design as their code (davidoterof/ecir2025) runs it, and ours.

    Their files are under ``src/main/java/org/irlab/ecir25/`` unless the path starts with ``src/``.
    """
    d = ranking_design(scale)
    return pd.DataFrame([
        ("data", "TREC runs and qrels named on the command line (`experiment/Main.java`: -r, -q); the plotting "
         "scripts read TREC's `input.*` run files (`src/main/py/`)",
         "TREC-COVID round 5: its 126 runs (identical lists kept once) with the round-5 qrels (grades 0, 1, 2)",
         "the book's collection with rankings and graded qrels (design A's collections are score matrices)"),
        ("system model", "per run and topic, a logistic regression of relevance on the rank 1..L, the slope penalised "
         "by 0.5 x 0.1 slope^2 (smile's default lambda, BFGS; `models/ProbabilityModel.java`, "
         "`src/main/java/smile/classification/CustomLogitLogisticRegressor.java`); a list of one class keeps its own relevance",
         "the same penalised regression on the log of the rank (Newton's method); a list of one class keeps its own",
         "in rank it cannot reproduce the runs (mean AP 0.198 against their 0.265, P@10 0.415 against 0.745: a "
         "logistic curve in rank is too flat at the top); in log rank it does (0.268 and 0.755; "
         "`RankingModels.calibration`)"),
        ("relevance grades", "the qrels' grade is the class label (unjudged 0): binary qrels (with three grades in a "
         "list smile fits a multinomial model, whose `getW()` is null); the simulated lists are binary: AP's R counts "
         "the qrels' non-zero grades, nDCG (the whole list, linear gains) gains 1 per simulated relevant document "
         "against the qrels' graded ideal (`metric/MAP.java`, `metric/NDCG.java`)",
         "one regression per grade level (>= 1, >= 2), each capped by the level below, one uniform per rank giving "
         "the grade; AP, P@10 and nDCG@20 by the package's measure code (trec_eval's conventions)",
         "TREC-COVID's qrels are graded: nDCG@20 sees the grades, and a perfect list scores 1"),
        ("ranking simulation", "per system, topic and trial, a new Bernoulli draw at each of the run's L ranks "
         "(`ProbabilityModel.sampleRelevance`)",
         f"{d.draws} rankings per run and topic simulated once; a trial takes one per system and topic (distinct "
         "ones for systems of one run)",
         "one fit and one scoring per run; the expected scores are exact for the draws, and their distance to the "
         "model's is measured (`RankingModels.mc_error`)"),
        ("topics", "n = 10, 30, 50: the first n keys of the model's topic map (a fastutil hash map's order), the same "
         "in every trial and for every system (`ProbabilityModel.sampleMetric`, "
         "`experiment/ExperimentCompareTests.java`)",
         f"n drawn at random with replacement from the 50 in every trial: pairs at {_join(d.sizes)}, families at "
         f"{_join(d.family_topics)}; the same sequence of runs at every n",
         "the topics are a sample too, as in Urbano et al.'s design, and any n can be drawn (100 of 50 repeat "
         "topics); common random numbers across n"),
        ("null", "es = 0: all m systems the run's fitted model (`experiment/SystemModel.java`)",
         "both systems (all k of a family) one run's model, the run uniform among the distinct runs",
         "the same; the null holds exactly"),
        ("alternative", "system i: the run's two coefficients times 1 + i es (divided where negative), i = -1..1, "
         "-2..2, -4..5 for m = 3, 5, 10; es = 0.005, 0.010, ..., 0.25 (`ProbabilityModel.sampleRelevance`, "
         "`SystemModel.java`)",
         "real runs: a baseline among the bottom 75% by expected score, system i one of the 10 unused runs closest "
         f"to its mean + i delta; delta = {_join(d.deltas)} (pairs), {d.family_delta} apart (families)",
         "a scaled model is no system's, and es is no difference in the measure: real runs differ as systems do, "
         "and delta is in the measure's units, as in design A"),
        ("true difference", "not computed: every pair is different when es > 0",
         "the difference of the runs' expected scores over their simulated rankings (`RankingModels.difference`)",
         "power against the size of the difference it detects, and a sign for each rejection to be right or wrong"),
        ("tests", "Commons Math 3.3 (`nhst/UnadjustedTTest.java`, `nhst/UnadjustedWilcoxon.java`): paired t; "
         "Wilcoxon by the normal approximation (exactPValue false) with a continuity correction, zero differences "
         "kept and counted with the negative ranks, no tie correction; randomised Tukey HSD (100,000 permutations) "
         "and ANOVA + Tukey HSD; alpha = 0.05, rejected at p <= alpha, a NaN p counted as 1",
         "Urbano et al.'s five (R's conventions: Wilcoxon exact below 50 topics without ties or zeros, else normal "
         f"with continuity and tie corrections, zeros dropped) and Sakai's two, B = {d.B:,}; alpha = 0.05",
         "the tests of the chapter's other designs, on the same trials"),
        ("multiple comparisons", "Bonferroni, Holm, BH and BY as decisions at alpha (`nhst/*Correction.java`): Holm "
         "compares every sorted p with alpha / (m - i + 1) without stopping at the first failure, BH every one with "
         "i alpha / m without the step-up; so their BH's FWER is BH's and their Holm's complete power Holm's, but "
         "their Holm's FWER is at least Holm's and their BH's complete power at most BH's",
         "Holm and BH by statsmodels (`irrepro.stats.adjust_pvalues`), all pairs of a family, t and Wilcoxon",
         "the procedures as published; t and Wilcoxon are Otero et al.'s tests"),
        ("error rates counted", "FWER: families with any rejection (es = 0); complete power: families with every pair "
         "rejected, whatever the sign (`SystemModel.java`, computeMetric); per run, then averaged over the runs "
         "(`src/main/py/plot-simulation-*.py`)",
         "pairs: type I, power and type III per test; families: FWER, power (the share of pairs rejected with the "
         "sign of their true difference) and complete power (all of them)",
         "a rejection with the wrong sign is a type III error, not power"),
        ("trials / Monte Carlo error", "1,000 families per run, es and configuration "
         "(`ExperimentCompareTests.java`, SIMULATIONS; the FWER plot reads folders named `sims_1`, the power plot "
         "`sims_1000`); no Monte Carlo error",
         (f"{d.trials:,} trials (families) per row" if d.trials == d.power_trials else
          f"{d.trials:,} trials (families) per null row, {d.power_trials:,} per power row") + "; Monte Carlo errors "
         "clustered by pair of runs (families: by set of runs)",
         f"a 5% rate to a clustered Monte Carlo error of {d.se} (design effects measured near 1)"),
    ], columns=["aspect", "Parapar et al. 2021 / Otero et al. 2025", "this chapter", "why"])  # fmt: skip


def _join(values) -> str:
    """``values`` as ``a, b and c``."""
    words = [f"{v:g}" for v in values]
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]
