"""Urbano, Lima & Hanjalic's (SIGIR 2019) experiments on pairs of simulated systems."""

from __future__ import annotations

import numpy as np

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ._papers import default_sizes
from ._pvalues import TESTS, PValues, paired_pvalues


def sample_pairs(
    models, k: int, *, delta: float = 0.0, seed: SeedLike, neighbours: int = 10
) -> list[tuple[int, int, int]]:
    """``k`` (model, baseline, experimental) triples drawn as Urbano et al. (2019, section 3) draw them."""
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


def _pair_model(models, c: int, i: int, j: int, delta: float):
    """The pair's model: both from the baseline's margin (``delta == 0``), or the other's moved by ``delta``."""
    m = models[c]
    if delta == 0:
        return m.pair(i, j, same_margin=True)
    return m.pair(i, j, mean_e=m.margins[i].mean + delta)


def rejection_experiment(
    models,
    n_topics: int,
    *,
    delta: float = 0.0,
    trials: int | None = None,
    n_pairs: int = 400,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
    pairs_per_task: int = 20,
    scale: str = "paper",
) -> PValues:
    """p-values of every test on ``trials`` simulated comparisons of ``n_topics`` topics (section 3).

    The trials are shared out among ``n_pairs`` pairs; under the null both draw from the baseline's margin.

    Parameters
    ----------
    models : sequence of CollectionModel
    n_topics : int
    delta : float
        The true difference of expected scores, >= 0.
    trials : int, optional
        None: :func:`default_sizes` of ``scale``.
    n_pairs : int
    B : int, optional
        None: :func:`default_sizes` of ``scale``.
    seed : SeedLike
    n_jobs : int, optional
    pairs_per_task : int
    scale : {"paper", "quick"}

    Returns
    -------
    PValues

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import synthetic
    >>> models = [sim.fit_collection(synthetic.score_matrix(12, 40, seed=s), seed=s) for s in (1, 2)]
    >>> alt = kt.rejection_experiment(models, 20, delta=0.1, trials=200, n_pairs=20, B=100, seed=3)
    >>> bool(alt.rates(alphas=(0.05,), tails=1).loc[0.05, "paired-t"] > 0.05)
    True
    """
    if delta < 0:
        raise InputError("delta must be >= 0 (the experimental system is the better one)")
    trials = default_sizes(scale).trials if trials is None else check_int(trials, "trials", minimum=1)
    B = default_sizes(scale).B if B is None else check_int(B, "B", minimum=1)
    n_pairs = min(check_int(n_pairs, "n_pairs", minimum=1), trials)
    per_pair = -(-trials // n_pairs)
    g_pairs, g_tasks = parallel.spawn(seed, 2)
    # spare pairs replace those whose margin cannot be moved to the target mean
    drawn = sample_pairs(models, 2 * n_pairs, delta=delta, seed=g_pairs)
    chosen = []
    for c, i, j in drawn:
        try:
            chosen.append(_pair_model(models, c, i, j, delta))
        except ValueError:
            continue
        if len(chosen) == n_pairs:
            break
    if len(chosen) < n_pairs:
        raise InputError(f"only {len(chosen)} of {n_pairs} pairs could be moved to delta = {delta}")
    tasks = [range(n_pairs)[c] for c in parallel._chunks(n_pairs, pairs_per_task)]
    seeds = parallel.as_seed_sequence(g_tasks).spawn(len(tasks))

    def run(k):
        rng = np.random.default_rng(seeds[k])
        g_sim, g_test = parallel.spawn(rng, 2)
        sims = [chosen[p].sample(n_topics, per_pair, g_sim) for p in tasks[k]]
        b, e = (np.concatenate([s[q] for s in sims]) for q in (0, 1))
        two, one = paired_pvalues(b, e, B=B, seed=g_test)
        return two, one, np.repeat(np.asarray(tasks[k]), per_pair)

    out = parallel.parallel_map(run, range(len(tasks)), n_jobs=n_jobs)
    two, one = (np.concatenate([o[q] for o in out], axis=1)[:, :trials] for q in (0, 1))
    pair = np.concatenate([o[2] for o in out])[:trials]
    return PValues(TESTS, two, one, pair, float(delta), int(n_topics), B)
