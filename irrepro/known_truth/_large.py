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

    ``"paper"``: the chapter's pool of 4,000 AP pairs; null trials so that a type I rate of 5% keeps a
    Monte Carlo error of 0.002 up to 100 topics (11,875 trials, the known-truth chapter's target),
    0.003 up to 250 (5,278), 0.004 up to 1,000 (2,969) and 0.006 above (1,320) - the tests that hold their level have a design effect of 1.0 over this pool at every
    size, their rejections on a pair being independent; 1,000 power trials per size and delta where no
    size is above 250 topics, 150 otherwise, at delta = 0.01 and 0.02 (true standardised effects of
    about 0.07 and 0.15 at 1,000 topics); B = 1,000 up to 250 topics and 500 above, where
    :func:`irrepro.known_truth.finite_b_bias` bounds the bias of a rate below its error. ``"full"``: a
    new pair every trial, error 0.002, 2,000 power trials, B = 2,000. ``"quick"``: 100 null trials up to
    250 topics, 50 up to 1,000 and 20 above, 20 power trials, B = 100, a pool of 100.

    Parameters
    ----------
    scale : {"paper", "quick", "full"}
    sizes : tuple of int
        The topic-set sizes (default 250, 1,000 and 5,000; the chapter "Which test?" runs its
        score-level design as the same experiments at 25, 50 and 100).

    Returns
    -------
    LargeQueryDesign
        ``sizes``, ``trials`` (null trials per size), ``power_trials``, ``B`` (per size), ``deltas``,
        ``se`` (the Monte Carlo error a 5% rate is sized for) and ``pool``.

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
    """The null and power experiments of ``design`` on Urbano et al.'s simulator, with the trials' properties.

    Each is :func:`irrepro.known_truth.urbano_experiment` with ``properties=True`` (every trial's
    :func:`~irrepro.known_truth._differences.difference_properties`), so that
    ``UrbanoPValues.minimal_effect`` gives the share of significant differences below a minimal
    standardised effect. Every size draws from a fresh copy of ``null_seed`` (of ``power_seeds[delta]``):
    the same pool and the same pairs, trial by trial, at every size (common random numbers).

    Parameters
    ----------
    models : sequence of CollectionModel
    design : LargeQueryDesign
        :func:`irrepro.known_truth.large_query_design`'s.
    null_seed : SeedLike
    power_seeds : mapping
        delta -> SeedLike, one per delta of the design.
    tests : sequence of str
        Urbano et al.'s five and Sakai's two by default.
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
