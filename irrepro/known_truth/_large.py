"""The large-query regime of Ihemelandu & Ekstrand (SIGIR 2023) on Urbano et al.'s simulator: the
chapter's AP pairs drawn at 250, 1,000 and 5,000 topics, under the null and at small true differences.

As their code runs it (nihemelandu/Research-Prj2-Pairwise-Testing): Urbano et al.'s simulation, the
null both systems from the baseline's margin through the pair's copula (``11-pvals-type_1.R``), their
five tests (``ir_tests.R``), rates read two-tailed at alpha (their charts: .01, .05, .1), user-set
sizes up to 20,000 (``Utility.R``). Ours where theirs is out of reach or left open: the book's TREC AP
(theirs: recommendation data and MS MARCO), B by :func:`finite_b_bias` (theirs 1e5), the two smallest
deltas of the chapter's grid (theirs .01 to .1), and a minimal effect of d_z = 0.2 (Cohen's "small":
they ask for effect sizes and name no threshold).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import parallel
from ..parallel import SeedLike
from ..significance.urbano import URBANO_TESTS
from ._urbano import SAKAI_TESTS, urbano_experiment
from ._urbano_sizes import POOL_PAIRS, _fresh, trials_for_se

#: Topic-set sizes of the large-query regime: three of their user-set sizes (``R-scripts/Utility.R``
#: ``.N_USERS``: 25 to 20,000) above the chapter's 25-100 (250: Jones and Van Rijsbergen's "minimally
#: acceptable" topic set).
SIZES = (250, 1000, 5000)


@dataclass(frozen=True)
class LargeQueryDesign:
    """The sizes of the large-query experiments at one scale (:func:`large_query_design`)."""

    sizes: tuple
    trials: tuple  # null trials, per size
    power_trials: int  # per size and delta
    B: tuple  # resamples of the resampling tests, per size
    deltas: tuple
    se: float
    pool: int | None


def large_query_design(scale: str = "paper") -> LargeQueryDesign:
    """The sizes of the large-query experiments at ``scale``.

    ``"paper"``: the chapter's pool of 4,000 AP pairs; 1,900 null trials per size, so a type I rate of
    5% keeps a Monte Carlo error of 0.005 (the tests that hold their level have a design effect of
    1.0 over this pool at every size: their rejections on a pair are independent); 150 trials per size
    at delta = 0.01 and 0.02 (true standardised effects of about 0.07 and 0.15); B = 1,000 at 250
    topics and 500 above, where :func:`finite_b_bias` bounds the bias of a rate below its error.
    ``"full"``: a new pair every trial, error 0.002, 2,000 power trials, B = 2,000. ``"quick"``: 100, 50
    and 20 null trials, 20 power trials, B = 100, a pool of 100.
    """
    scale = parallel.check_scale(scale)
    deltas = (0.01, 0.02)
    if scale == "full":
        return LargeQueryDesign(SIZES, (trials_for_se(0.002),) * 3, 2000, (2000,) * 3, deltas, 0.002, None)
    if scale == "paper":
        return LargeQueryDesign(
            SIZES, (trials_for_se(0.005),) * 3, 150, (1000, 500, 500), deltas, 0.005, POOL_PAIRS
        )
    return LargeQueryDesign(SIZES, (100, 50, 20), 20, (100,) * 3, deltas, 0.049, 100)


def large_query_experiments(
    models,
    design: LargeQueryDesign,
    *,
    null_seed: SeedLike,
    power_seeds: Mapping[float, SeedLike],
    tests=URBANO_TESTS + SAKAI_TESTS,
    n_jobs: int | None = None,
) -> dict:
    """``{(topics, delta): UrbanoPValues}`` (with ``props``) of the design's null and power experiments.

    Every size draws from a fresh copy of ``null_seed`` (of ``power_seeds[delta]``): the same pool and
    the same pairs, trial by trial, at every size; the chapter's seeds give the chapter's pools.
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
