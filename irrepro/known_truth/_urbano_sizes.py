"""The sizes of Urbano, Lima & Hanjalic's (2019) experiments in the book, and what its pool of pairs costs."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ..significance.urbano import URBANO_TESTS
from ._urbano import urbano_experiment

#: Pairs in each measure's pool at the paper scale: about the cheapest that meets the Monte Carlo target.
POOL_PAIRS = 4000
#: The intra-pair correlation of rejections the pool is sized for: the largest measured, rounded up.
_POOL_ICC = 0.35


def trials_for_se(se: float, rate: float = 0.05, *, pool: int | None = None, icc: float = 0.0) -> int:
    """Trials T giving a rate an se of at most ``se``: over a pool, var = r(1-r)/T (1 + icc T/pool)."""
    if not se > 0 or not 0 <= rate <= 1 or not 0 <= icc <= 1:
        raise InputError(f"se must be > 0, rate and icc in [0, 1], got se={se}, rate={rate}, icc={icc}")
    room = se**2 - (0.0 if pool is None else rate * (1 - rate) * icc / check_int(pool, "pool", minimum=1))
    if room <= 0:
        raise InputError(
            f"a pool of {pool} pairs with icc {icc} cannot give a rate of {rate} an error of {se}"
        )
    return max(1, math.ceil(round(rate * (1 - rate) / room, 9)))


@dataclass(frozen=True)
class UrbanoDesign:
    """The sizes of the chapter's Urbano et al. experiments at one scale (``urbano_design``)."""

    trials: int
    power_trials: int
    B: int
    power_topics: tuple
    se: float
    pool: int | None = None
    decide_trials: int = 0
    #: The intra-pair correlation the pool's trials are sized for (0: no pool).
    icc: float = 0.0


def urbano_design(scale: str = "paper") -> UrbanoDesign:
    """The sizes of Urbano et al.'s experiments in the book at ``scale``.

    Theirs (``R/common.R``): 1,667,000 type I and 167,000 power trials, B = 1e6.

    Parameters
    ----------
    scale : {"paper", "quick", "full"}

    Returns
    -------
    UrbanoDesign

    Examples
    --------
    >>> from irrepro.known_truth import urbano_design
    >>> urbano_design().trials, urbano_design("full").trials
    (9807, 215030)
    """
    scale = parallel.check_scale(scale)
    if scale == "full":
        return UrbanoDesign(trials_for_se(0.00047), 20_000, 10_000, (25, 50, 100), 0.0005, None, 167_000)
    if scale == "paper":
        trials = trials_for_se(0.003, pool=POOL_PAIRS, icc=_POOL_ICC)
        return UrbanoDesign(trials, 500, 2000, (50,), 0.003, POOL_PAIRS, 20_000, _POOL_ICC)
    return UrbanoDesign(400, 100, 200, (50,), 0.011, 100, 400, _POOL_ICC)


def until_decided(
    models,
    n_topics: int,
    *,
    measure: str,
    numbers,
    kind: str,
    trials: int,
    cap: int,
    seed: SeedLike,
    factor: float = 1.25,
    **experiment,
):
    """:func:`urbano_experiment` extended with more trials until the book's rule decides its rows.

    To ``max(factor x the largest need, 2 x the trials so far)``, at most ``cap``, as if all had run at once.

    Parameters
    ----------
    models : sequence of CollectionModel
    n_topics : int
    measure : str
        As ``comparison_rows`` names it (``"AP"``).
    numbers : mapping
        The paper's numbers.
    kind : {"type1", "power", "type3"}
    trials : int
        The first run's trials (and the batch size).
    cap : int
    seed : SeedLike
    factor : float
        >= 1.
    **experiment
        The other arguments of :func:`urbano_experiment`.

    Returns
    -------
    UrbanoPValues
        All the trials run.
    list of int
        The trials after each run.

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import synthetic
    >>> models = [sim.fit_collection(synthetic.score_matrix(8, 30, seed=1), seed=1)]
    >>> numbers = {"trials.type1": 10**6, "type1.ap.20.t2.a0.05": 0.09}
    >>> result, ran = kt.until_decided(models, 20, measure="AP", numbers=numbers, kind="type1", trials=100,
    ...                                cap=3000, seed=3, tests="paired-t", B=50)
    >>> ran[0], result.trials == ran[-1]
    (100, True)
    """
    from ._rows import comparison_rows

    def run(t, ss, start):
        return urbano_experiment(models, n_topics, trials=t, seed=ss, batch=trials, start=start, **experiment)

    def rows(result):
        return comparison_rows({(measure, n_topics): result}, numbers, kind)

    return _extended(run, rows, seed=seed, trials=trials, cap=cap, factor=factor)


def _extended(run, rows, *, seed: SeedLike, trials: int, cap: int, factor: float = 1.25):
    """:func:`until_decided` for any ``run(trials, seed, start)`` and ``rows(result)``."""
    from .._rule import judge_row

    trials, cap = check_int(trials, "trials", minimum=1), check_int(cap, "cap", minimum=1)
    if not factor >= 1:
        raise InputError(f"factor must be >= 1, got {factor}")
    ss, step = parallel.as_seed_sequence(seed), trials
    result, ran = run(trials, _fresh(ss), 0), [trials]
    while True:
        js = [judge_row(r) for r in rows(result) if r.get("paper") is not None]
        need = max((j.needed or 0 for j in js if j.why == "monte-carlo"), default=0)
        if not need or trials >= cap:
            return result, ran
        start, trials = trials, min(cap, step * math.ceil(max(factor * need, 2 * trials) / step))
        more = run(trials, _fresh(ss), start)
        result = replace(
            result,
            two=np.hstack([result.two, more.two]),
            one=np.hstack([result.one, more.one]),
            pair=np.concatenate([result.pair, more.pair]),
            d=np.concatenate([result.d, more.d]),
            props={k: np.concatenate([v, more.props[k]]) for k, v in result.props.items()},
        )
        ran.append(trials)


def _fresh(seed: SeedLike) -> np.random.SeedSequence:
    """A copy of the seed's SeedSequence with no child spawned: the same children however often it is used."""
    ss = parallel.as_seed_sequence(seed)
    return np.random.SeedSequence(ss.entropy, spawn_key=ss.spawn_key, pool_size=ss.pool_size)


def pool_check(
    models,
    n_topics: int,
    *,
    trials: int,
    pool: int,
    tests=URBANO_TESTS,
    B: int = 1000,
    seed: SeedLike,
    n_jobs: int | None = None,
    alpha: float = 0.05,
    tails: int = 2,
) -> pd.DataFrame:
    """The type I error of each test from a pool of pairs beside a new pair every trial's, with z."""
    g_pool, g_new = parallel.as_seed_sequence(seed).spawn(2)
    common = dict(trials=trials, tests=tests, B=B, n_jobs=n_jobs)
    pooled = urbano_experiment(models, n_topics, seed=g_pool, pool=pool, **common)
    new = urbano_experiment(models, n_topics, seed=g_new, **common)
    out = pd.DataFrame(
        {
            "pool": pooled.rejected(alpha, tails).mean(axis=1),
            "pool_se": pooled.se(alpha, tails).to_numpy(),
            "design_effect": pooled.design_effect(alpha, tails).to_numpy(),
            "new": new.rejected(alpha, tails).mean(axis=1),
            "new_se": new.se(alpha, tails).to_numpy(),
        },
        index=pd.Index(pooled.tests, name="test"),
    )
    out["z"] = (out["pool"] - out["new"]) / np.sqrt(out["pool_se"] ** 2 + out["new_se"] ** 2)
    out["agree"] = out["z"].abs() <= 1.96
    return out
