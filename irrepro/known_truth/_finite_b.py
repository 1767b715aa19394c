"""The bias of a rejection rate from p-values estimated with B resamples, against its Monte Carlo error."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from .. import _spread
from ..errors import InputError
from ..parallel import check_int

#: Points per lattice cell at which :func:`finite_b_bias` averages the misclassification.
_CELL = 32


class FiniteB(NamedTuple):
    """A rejection rate at B, its bias, the bound on it, its binomial se and whether bound < se."""

    rate: float
    bias: float
    bound: float
    se: float
    ok: bool


def finite_b_bias(p, B: int, alpha: float = 0.05) -> FiniteB:
    """Bound the bias of a rejection rate caused by estimating each p-value with B resamples.

    A trial with ideal p-value p gets k / B, k ~ binomial(B, p) (Urbano et al.'s C++ counts, no +1),
    and is rejected when k / B <= alpha: misclassified with the signed probability m(p) = P(k <= alpha
    B) - [p <= alpha]. The bias is the mean of m over the estimated p-values, each spread over its
    lattice cell (right to first order); ``bound`` adds two standard errors of that mean; ``ok`` says
    whether it is below the rate's binomial Monte Carlo error.

    Parameters
    ----------
    p : array_like
        The estimated p-values of one test on every trial (NaN dropped).
    B : int
        The resamples each p-value was estimated with.
    alpha : float

    Returns
    -------
    FiniteB
        ``rate, bias, bound, se, ok``.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.known_truth import finite_b_bias
    >>> p = np.random.default_rng(1).binomial(1000, np.linspace(0, 1, 20_000)) / 1000  # p uniform
    >>> r = finite_b_bias(p, B=1000)
    >>> round(r.bias, 4), r.ok  # (1 - alpha) / B: p-hat <= alpha counts the k = 50 ties
    (0.0009, True)
    """
    B = check_int(B, "B", minimum=1)
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    p = np.asarray(p, dtype=np.float64).ravel()
    p = p[~np.isnan(p)]
    if p.size == 0 or ((p < 0) | (p > 1)).any():
        raise InputError("p must hold p-values in [0, 1] (at least one that is not NaN)")
    k = math.floor(alpha * B + 1e-9)
    # m averaged over each estimate's cell [p - 1/2B, p + 1/2B] (the estimates sit on the lattice
    # k / B, one of whose atoms is alpha, where m jumps); m < 1e-20 beyond 10 sd of alpha
    m = np.zeros(p.size)
    near = np.flatnonzero(np.abs(p - alpha) < 10 * math.sqrt(alpha * (1 - alpha) / B) + 2 / B)
    q = np.clip(p[near, None] + (np.arange(_CELL) + 0.5 - _CELL / 2) / (_CELL * B), 0, 1)
    m[near] = (stats.binom.cdf(k, B, q) - (q <= alpha)).mean(axis=1)
    mean, sd = _spread.mean_sd(m) if p.size > 1 else (m[0], 0.0)  # (equal estimates: their m, sd 0)
    bias = float(mean)
    bound = abs(bias) + 2 * float(sd / math.sqrt(p.size))
    rate = float(np.mean(p <= alpha + 1e-12))
    se = math.sqrt(rate * (1 - rate) / p.size)
    return FiniteB(rate, bias, bound, se, bound < se)


def finite_b_checks(results, B: int, tests, alpha: float = 0.05):
    """:func:`finite_b_bias` of each of ``tests`` (two-tailed) in every configuration of ``results``.

    Parameters
    ----------
    results : mapping
        ``(measure, topics)`` -> ``UrbanoPValues``.
    B : int
    tests : sequence of str
        The resampling tests to check.
    alpha : float

    Returns
    -------
    pandas.DataFrame
        ``measure, topics, test`` and :func:`finite_b_bias`'s ``rate, bias, bound, se, ok``.
    """
    import pandas as pd

    return pd.DataFrame([{"measure": m, "topics": n, "test": t, **finite_b_bias(r.two[r.tests.index(t)], B, alpha)._asdict()}
                         for (m, n), r in results.items() for t in tests])  # fmt: skip
