"""The large-query regime of Ihemelandu & Ekstrand (SIGIR 2023) on Urbano et al.'s simulator: the chapter's
AP pairs at 250, 1,000 and 5,000 topics, under the null and at small true differences, as their code
(nihemelandu/Research-Prj2-Pairwise-Testing) runs it: Urbano et al.'s null, their five tests, rates read
two-tailed. Ours: the book's TREC AP, B checked by :func:`finite_b_checks` (theirs 1e5), two small deltas.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import parallel
from ..parallel import SeedLike
from ..significance.urbano import URBANO_TESTS
from ._urbano import SAKAI_TESTS, urbano_experiment
from ._urbano_sizes import POOL_PAIRS, _fresh, trials_for_se

#: Three of their user-set sizes (``R-scripts/Utility.R``: 25 to 20,000) above the chapter's 25-100.
SIZES = (250, 1000, 5000)


@dataclass(frozen=True)
class LargeQueryDesign:
    """The sizes of the large-query experiments at one scale (:func:`irrepro.known_truth.large_query_design`)."""

    sizes: tuple
    trials: tuple  # null trials, per size
    power_trials: int  # per size and delta
    B: tuple  # resamples of the resampling tests, per size
    deltas: tuple
    se: float
    pool: int | None


def large_query_design(scale: str = "paper", sizes: tuple = SIZES) -> LargeQueryDesign:
    """The sizes of the large-query experiments (Ihemelandu & Ekstrand 2023) at ``scale``.

    Parameters
    ----------
    scale : {"paper", "quick", "full"}
    sizes : tuple of int
        The topic-set sizes (the chapter "Which test?" also runs 25, 50 and 100).

    Returns
    -------
    LargeQueryDesign

    Examples
    --------
    >>> from irrepro import known_truth as kt
    >>> d = kt.large_query_design("quick")
    >>> d.sizes, d.deltas
    ((250, 1000, 5000), (0.01, 0.02))
    """
    scale = parallel.check_scale(scale)
    sizes, deltas = tuple(sizes), (0.01, 0.02)
    if scale == "full":
        return LargeQueryDesign(
            sizes, (trials_for_se(0.002),) * len(sizes), 2000, (2000,) * len(sizes), deltas, 0.002, None
        )
    if scale == "paper":  # a trial costs about 1.5 ms up to 100 topics, 12 ms at 1,000, 50 ms at 5,000
        B = tuple(1000 if n <= 250 else 500 for n in sizes)
        se = tuple(0.002 if n <= 100 else 0.003 if n <= 250 else 0.004 if n <= 1000 else 0.006 for n in sizes)
        power = 1000 if max(sizes) <= 250 else 150
        return LargeQueryDesign(
            sizes, tuple(trials_for_se(x) for x in se), power, B, deltas, max(se), POOL_PAIRS
        )
    trials = tuple(100 if n <= 250 else 50 if n <= 1000 else 20 for n in sizes)
    return LargeQueryDesign(sizes, trials, 20, (100,) * len(sizes), deltas, 0.049, 100)


def large_query_experiments(
    models,
    design: LargeQueryDesign,
    *,
    null_seed: SeedLike,
    power_seeds: Mapping[float, SeedLike],
    tests=URBANO_TESTS + SAKAI_TESTS,
    n_jobs: int | None = None,
) -> dict:
    """The null and power experiments of ``design`` (:func:`urbano_experiment` with ``properties=True``).

    Every size runs on the same pool and pairs.

    Parameters
    ----------
    models : sequence of CollectionModel
    design : LargeQueryDesign
    null_seed : SeedLike
    power_seeds : mapping
        delta -> SeedLike, one per delta of the design.
    tests : sequence of str
    n_jobs : int, optional

    Returns
    -------
    dict
        ``(topics, delta)`` -> ``UrbanoPValues`` (delta 0: the null).

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import synthetic
    >>> models = [sim.fit_collection(synthetic.score_matrix(8, 30, seed=s), seed=s) for s in (1, 2)]
    >>> d = kt.large_query_design("quick", sizes=(20,))
    >>> res = kt.large_query_experiments(models, d, null_seed=1, power_seeds={0.01: 2, 0.02: 3},
    ...                                  tests=("paired-t", "wilcoxon"))
    >>> sorted(res), res[20, 0.0].trials
    ([(20, 0.0), (20, 0.01), (20, 0.02)], 100)
    """
    common = dict(tests=tests, pool=design.pool, n_jobs=n_jobs, properties=True)
    out = {}
    for n, trials, B in zip(design.sizes, design.trials, design.B):
        out[n, 0.0] = urbano_experiment(models, n, trials=trials, B=B, seed=_fresh(null_seed), **common)
        for delta in design.deltas:
            seed = _fresh(power_seeds[delta])
            out[n, delta] = urbano_experiment(
                models, n, delta=delta, trials=design.power_trials, B=B, seed=seed, **common
            )
    return out
