"""The simulation of Urbano, Lima & Hanjalic (SIGIR 2019, section 3) as their R code runs it
(julian-urbano/sigir2019-statistical, ``R/11-type_1.R``, ``12-type_2.R``, ``13-type_3.R``)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ..significance.urbano import URBANO_TESTS, urbano_tests
from ..simulation import CollectionModel, fit_copula
from ..stats import clustered_se
from . import _copula_cache
from ._differences import difference_properties
from ._pvalues import ALPHAS, PValues, _sakai_pvalues

#: Sakai's (2006) paired and unpaired bootstrap tests, run on the same trials as Urbano et al.'s.
SAKAI_TESTS = ("bootstrap", "unpaired-bootstrap")

#: The nulls of ``delta == 0``: both from the baseline's margin (theirs), or the other's moved to its mean.
_URBANO_NULLS = ("same-margin", "same-mean")
#: Urbano et al.'s baselines: all but the top quarter of systems by expected score.
_TOP = 0.25
#: Experimental candidates per baseline: the systems closest in mean to the baseline's + delta.
_NEIGHBOURS = 10
_TWINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CANDIDATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Copulas fitted per process task.
_CHUNK = 100
#: The spawn key (below the seed's) of an experiment's pool of pairs; its batches' are 0, 1, ...
_POOL_KEY = 2**32 - 1


def _check_tests(tests) -> tuple:
    """``tests`` as a tuple of names among theirs and Sakai's."""
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    bad = [t for t in tests if t not in URBANO_TESTS + SAKAI_TESTS]
    if bad or not tests:
        raise InputError(f"tests must be among {', '.join(URBANO_TESTS + SAKAI_TESTS)}, not {bad}")
    return tests


def _draw(cands, base, collections, g) -> list:
    """A trial's (collection, baseline, experimental, its margin) for each of ``collections``."""
    out = []
    for c in collections:
        i = base[c][g.integers(len(base[c]))]
        j, e_margin = cands[c][i][g.integers(len(cands[c][i]))]
        out.append((int(c), int(i), int(j), e_margin))
    return out


def _pool(cands, base, prob, size: int, ss: np.random.SeedSequence) -> list:
    """The experiment's pool of ``size`` draws, stratified by collection, from the seed's child."""
    g = np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, _POOL_KEY)))
    quota = prob * size
    n = np.floor(quota).astype(np.int64)
    n[np.argsort(-(quota - n), kind="stable")[: size - int(n.sum())]] += 1
    return _draw(cands, base, np.repeat(np.arange(len(prob)), n), g)


@dataclass(frozen=True)
class UrbanoPValues(PValues):
    """p-values of Urbano et al.'s tests on every trial of one configuration (``urbano_experiment``)."""

    d: np.ndarray = field(default_factory=lambda: np.empty(0))
    alphas: tuple = ALPHAS
    #: per trial, :func:`irrepro.known_truth._differences.difference_properties` of its differences
    props: dict = field(default_factory=dict)
    _strict: ClassVar[tuple] = ()  # every test rejected when p <= alpha (their convention)

    def binomial_se(self, alpha: float, tails: int = 2) -> pd.Series:
        """Binomial Monte Carlo standard error of each rate, ``sqrt(r (1 - r) / trials)``."""
        r = self.rejected(alpha, tails).mean(axis=1)
        return pd.Series(np.sqrt(r * (1 - r) / self.trials), index=list(self.tests))

    def design_effect(self, alpha: float = 0.05, tails: int = 2) -> pd.Series:
        """Each rate's clustered se over its binomial one: what the trials' sharing of pairs adds."""
        binomial = self.binomial_se(alpha, tails)
        return (self.se(alpha, tails) / binomial.where(binomial > 0)).rename("design effect")

    def type3(self, alpha: float) -> pd.Series:
        """Type III error rates: two-tailed p <= alpha with an observed ``d < 0`` (their ``13-type_3.R``)."""
        wrong = self.rejected(alpha, 2) & (self.d < 0)[None, :]
        return pd.Series(wrong.mean(axis=1), index=list(self.tests))

    def type3_se(self, alpha: float) -> pd.Series:
        """Monte Carlo standard error of each type III rate, clustered by pair."""
        return self._clustered_se(self.rejected(alpha, 2) & (self.d < 0)[None, :])

    def frame(self, alphas=None, tails=(1, 2)) -> pd.DataFrame:
        """``PValues.frame`` with ``se_binomial``, ``type3`` and ``type3_se`` (NaN on one-tailed rows)."""
        alphas = self.alphas if alphas is None else alphas
        out = super().frame(alphas, tails)
        rows = list(zip(out.test, out.tails, out.alpha))
        out["se_binomial"] = [self.binomial_se(a, tl)[t] for t, tl, a in rows]
        for col, f in (("type3", self.type3), ("type3_se", self.type3_se)):
            by_alpha = {a: f(a) for a in alphas}
            out[col] = [by_alpha[a][t] if tl == 2 else np.nan for t, tl, a in rows]
        return out

    def minimal_effect(self, minimal: float = 0.2, alpha: float = 0.05) -> pd.DataFrame:
        """Per test, the share of its rejections whose effect (observed, true) is below ``minimal``, se by pair."""
        if not self.props:
            raise InputError("minimal_effect needs the trials' properties: run with properties=True")
        if not minimal > 0:
            raise InputError(f"minimal must be > 0, got {minimal}")
        with np.errstate(divide="ignore", invalid="ignore"):
            var = (self.d / self.props["d_z"]) ** 2  # the trial's variance of differences
            _, at = np.unique(self.pair, return_inverse=True)
            ok = np.isfinite(var)
            sd = np.sqrt(np.bincount(at, np.where(ok, var, 0.0)) / np.bincount(at, ok))[at]
            true = self.delta / sd < minimal
        rej = self.rejected(alpha, 2).astype(float)
        out = {"rate": rej.mean(axis=1)}
        for name, small in (("observed", np.abs(self.props["d_z"]) < minimal), ("true", true)):
            with np.errstate(divide="ignore", invalid="ignore"):
                share = (rej * small).sum(axis=1) / rej.sum(axis=1)
                out[name] = share
                out[f"{name}_se"] = clustered_se(rej * small - share[:, None] * rej, self.pair) / out["rate"]
        out["trivial"] = np.full(len(self.tests), true.mean())
        out["trivial_se"] = np.full(len(self.tests), clustered_se(true.astype(float), self.pair))
        return pd.DataFrame(out, index=pd.Index(self.tests, name="test"))


def _twin(model: CollectionModel, method: str) -> CollectionModel:
    """``model`` with its copulas fitted by ``method`` (a twin sharing its margins, cached)."""
    if model.copula_method == method:
        return model
    twins = _TWINS.setdefault(model, {})
    if method not in twins:
        twins[method] = CollectionModel(
            model.name, model.measure, model.systems, model.scores, model.margins, model.seed, method
        )
    return twins[method]


def _candidates(model: CollectionModel, delta: float, null: str) -> dict:
    """Baseline -> [(experimental system, its margin or the mean to move its own margin to)], once per model."""
    found = _CANDIDATES.setdefault(model, {})
    mu = model.means
    if (delta, null) in found:
        return found[delta, null]
    if delta == 0:
        same = null == "same-margin"
        out = {
            i: [(j, model.margins[i] if same else float(mu[i])) for j in range(len(mu)) if j != i]
            for i in range(len(mu))
        }
    else:
        out = {}
        for i in np.argsort(-mu, kind="stable")[int(round(_TOP * len(mu))) :]:
            js = [j for j in np.argsort(np.abs(mu - mu[i] - delta), kind="stable") if j != i][:_NEIGHBOURS]
            target = float(mu[i] + delta)
            # their effTransform fails for some: such a pair is not a candidate
            moved = [(int(j), target) for j in js if model.margins[j].can_move_to(target)]
            if moved:
                out[int(i)] = moved
    found[delta, null] = out
    return out


def _fit_pairs(task):
    """The copulas of the pairs ``keys`` of one model (a process task)."""
    scores, seed, method, keys = task
    return [
        fit_copula(
            scores[i],
            scores[j],
            seed=np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, i, j)),
            method=method,
        )
        for i, j in keys
    ]


def _fit_copulas(models, keys, n_jobs) -> int:
    """Give the models the copulas of ``keys`` (memory, cache, or fitted); the number fitted."""
    todo = sorted(k for k in keys if (k[1], k[2]) not in models[k[0]]._copulas)
    for c in sorted({c for c, _, _ in todo}):
        for key, cop in _copula_cache.load(models[c]).items():
            models[c]._copulas.setdefault(key, cop)
    todo = [k for k in todo if (k[1], k[2]) not in models[k[0]]._copulas]
    if not todo:
        return 0
    tasks = []
    for c, m in enumerate(models):
        ij = [(i, j) for cc, i, j in todo if cc == c]
        tasks += [(c, (m.scores, m.seed, m.copula_method, ij[s])) for s in parallel._chunks(len(ij), _CHUNK)]
    serial = parallel.n_jobs(n_jobs) == 1 or len(todo) <= _CHUNK
    fitted = (
        [_fit_pairs(t) for _, t in tasks]
        if serial
        else parallel.parallel_map(_fit_pairs, [t for _, t in tasks], n_jobs=n_jobs, processes=True)
    )
    for (c, (*_, ij)), cops in zip(tasks, fitted):
        for key, cop in zip(ij, cops):
            models[c]._copulas.setdefault(key, cop)
    for c in sorted({c for c, _ in tasks}):
        _copula_cache.store(models[c], dict(models[c]._copulas))
    return len(todo)


def _simulate_and_test(task):
    """One batch simulated from ``g_u`` and tested (a process task): (two, one, d, properties or None)."""
    pairs, which, n_topics, g_u, g_test, g_sakai, tests, B, min_d, properties = task
    u1, w = g_u.random((len(which), n_topics)), g_u.random((len(which), n_topics))
    b, e = np.empty((len(which), n_topics)), np.empty((len(which), n_topics))
    for r, q in enumerate(which):  # conditional inversion of the copula of (min, max) of the pair's indices
        cop, i_first, b_margin, e_margin = pairs[q]
        v = np.clip(cop.hinv1(np.column_stack([u1[r], w[r]])), 0.0, 1.0)
        b[r], e[r] = b_margin.ppf(u1[r] if i_first else v), e_margin.ppf(v if i_first else u1[r])
    props = difference_properties(e - b, tie=min_d) if properties else None
    return (*batch_pvalues(b, e, tests, B, g_test, g_sakai, min_d), (e - b).mean(axis=1), props)


def batch_pvalues(b, e, tests, B: int, g_test, g_sakai, min_d: float) -> tuple[np.ndarray, np.ndarray]:
    """Two- and one-tailed p-values ``(tests, trials)`` of their tests and Sakai's on rows of (b, e)."""
    p = {}  # test -> (two-tailed, one-tailed) p-values
    if theirs := tuple(t for t in tests if t in URBANO_TESTS):
        res = urbano_tests(b, e, tests=theirs, B=B, seed=g_test, min_d=min_d, n_jobs=1)
        p = {t: (v.two_tailed, v.one_tailed) for t, v in res.items()}
    p |= _sakai_pvalues(b, e, tests, B, *parallel.spawn(g_sakai, 2))
    return np.array([p[t][0] for t in tests]), np.array([p[t][1] for t in tests])


def urbano_experiment(
    models,
    n_topics: int,
    *,
    trials: int,
    delta: float = 0.0,
    tests=URBANO_TESTS,
    B: int = 1000,
    seed: SeedLike,
    n_jobs: int | None = None,
    batch: int = 500,
    null: str = "same-margin",
    copula: str = "mle",
    min_d: float = 0.01,
    alphas=ALPHAS,
    label: str = "",
    pool: int | None = None,
    start: int = 0,
    properties: bool = False,
) -> UrbanoPValues:
    """Urbano et al.'s (2019) type I / II / III experiment: a new pair every trial, or a fixed pool.

    ``delta > 0``: a baseline among the bottom 75% by expected score, the experimental system among the 10
    closest to its mean + delta, its margin moved there (Lehmann). Copulas are cached in ``IRREPRO_CACHE``.

    Parameters
    ----------
    models : sequence of CollectionModel
    n_topics : int
    trials : int
    delta : float
        The true difference of expected scores, >= 0.
    tests : sequence of str
        Among ``irrepro.significance.urbano.URBANO_TESTS`` and :data:`SAKAI_TESTS`.
    B : int
        Resamples of the bootstrap and permutation tests (theirs: 1e6).
    seed : SeedLike
    n_jobs : int, optional
    batch : int
        Trials per batch (theirs: 1000).
    null : {"same-margin", "same-mean"}
        For ``delta == 0``: both from the first's margin (theirs), or the second's moved to the first's mean.
    copula : {"mle", "itau"}
        Maximum likelihood (theirs), or inverting Kendall's tau.
    min_d : float
        The sign test's tie threshold (theirs: 0.01).
    alphas : sequence of float
        The levels ``UrbanoPValues.frame`` reports by default.
    label : str
    pool : int, optional
        Pairs drawn first (stratified by collection) for every trial to draw from; None: a new pair a trial.
    start : int
        Run only trials ``start`` (a multiple of ``batch``) to ``trials`` (:func:`until_decided`).
    properties : bool
        Also measure each trial's differences (``props``).

    Returns
    -------
    UrbanoPValues
        Clustered by system pair.

    Raises
    ------
    irrepro.InputError
        For ``delta < 0``, an unknown null or test, no candidate pair, ``pool < 1`` or a bad ``start``.

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import synthetic
    >>> models = [sim.fit_collection(synthetic.score_matrix(8, 30, seed=s), seed=s) for s in (1, 2)]
    >>> res = kt.urbano_experiment(models, 20, trials=60, B=100, seed=3, tests=("paired-t", "sign"))
    >>> res.tests, res.trials
    (('paired-t', 'sign'), 60)
    """
    if delta < 0:
        raise InputError("delta must be >= 0 (the experimental system is the better one)")
    if null not in _URBANO_NULLS:
        raise InputError(f"null must be one of {', '.join(_URBANO_NULLS)}, got {null!r}")
    tests = _check_tests(tests)
    n_topics = check_int(n_topics, "n_topics", minimum=2)
    trials = check_int(trials, "trials", minimum=1)
    batch = check_int(batch, "batch", minimum=1)
    B = check_int(B, "B", minimum=1)
    if check_int(start, "start", minimum=0) % batch or start >= trials:
        raise InputError(f"start must be a multiple of batch ({batch}) below trials ({trials}), got {start}")
    if copula not in ("mle", "itau"):
        raise InputError(f"copula must be 'mle' or 'itau', got {copula!r}")
    models = [_twin(m, copula) for m in models]
    cands = parallel.parallel_map(lambda m: _candidates(m, float(delta), null), models, n_jobs=n_jobs)
    sizes = np.array([len(c) for c in cands], dtype=np.float64)
    if sizes.sum() == 0:
        raise InputError(f"no collection has a pair of systems whose means can differ by delta = {delta}")
    prob = sizes / sizes.sum()
    base = [sorted(c) for c in cands]
    width = max(len(m.margins) for m in models)
    ss = parallel.as_seed_sequence(seed)  # per batch: pair draws, topics, their tests, Sakai's tests
    members = None if pool is None else _pool(cands, base, prob, check_int(pool, "pool", minimum=1), ss)
    seeds = [parallel.spawn(s, 4) for s in ss.spawn(-(-trials // batch))][start // batch :]
    bounds = [(a - start, min(a + batch, trials) - start) for a in range(start, trials, batch)]
    drawn = []  # (collection, baseline, experimental, its margin) of every trial, batch by batch
    for (a, z), (g_draw, *_) in zip(bounds, seeds):
        if members is None:
            drawn += _draw(cands, base, g_draw.choice(len(models), size=z - a, p=prob), g_draw)
        else:
            drawn += [members[q] for q in g_draw.integers(len(members), size=z - a)]
    _fit_copulas(models, {(c, min(i, j), max(i, j)) for c, i, j, _ in drawn}, n_jobs)
    moved: dict = {}  # (collection, experimental system, target mean) -> its moved margin

    def task(k):  # what batch k's worker needs: its trials' copulas and margins, and its seeds
        (a, z), (_, g_u, g_test, g_sakai) = bounds[k], seeds[k]
        index: dict = {}
        pairs, which = [], []
        for c, i, j, e_margin in drawn[a:z]:
            key = (c, i, j, e_margin if isinstance(e_margin, float) else None)
            if key not in index:
                if isinstance(e_margin, float):
                    if (c, j, e_margin) not in moved:
                        moved[c, j, e_margin] = models[c].margins[j].with_mean(e_margin)
                    e_margin = moved[c, j, e_margin]
                cop = models[c].copula(min(i, j), max(i, j))
                index[key] = len(pairs)
                pairs.append((cop, i < j, models[c].margins[i], e_margin))
            which.append(index[key])
        return pairs, which, n_topics, g_u, g_test, g_sakai, tests, B, min_d, properties

    out = parallel.parallel_map(
        _simulate_and_test, (task(k) for k in range(len(bounds))), n_jobs=n_jobs, processes=True
    )
    pair = np.array([(c * width + i) * width + j for c, i, j, _ in drawn], dtype=np.int64)
    two, one = (np.nan_to_num(np.concatenate([o[x] for o in out], axis=1), nan=1.0) for x in (0, 1))
    d = np.concatenate([o[2] for o in out])
    props = {k: np.concatenate([o[3][k] for o in out]) for k in out[0][3]} if properties else {}
    return UrbanoPValues(
        tests, two, one, pair, float(delta), n_topics, B, label, d=d, alphas=tuple(alphas), props=props
    )
