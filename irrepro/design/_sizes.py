"""Topic-set size design in closed form (Sakai, "Topic set size design", IRJ 19, 2016): the paired
t-test, one-way ANOVA and CI-width methods from a pilot's residual variance V_E, each with a
bootstrap interval over the pilot's topics."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike, check_int
from ..stats import check_resamples
from ._anova import two_way_anova

#: Sakai's (2016) three methods, by the name the functions take, with the name tables print.
METHODS = {"paired-t": "paired t-test", "anova": "one-way ANOVA", "ci-width": "CI width"}
#: The largest topic-set size searched: beyond it a design is reported as not reachable.
MAX_TOPICS = 1_000_000


def _bounds(measure) -> tuple[float, float] | None:
    """The range of ``measure`` (None: no range known)."""
    from ..measures import parse_measure

    if measure is None or hasattr(measure, "bounds"):
        return getattr(measure, "bounds", None)
    try:
        return parse_measure(measure).bounds
    except InputError:
        return None


def check_design(
    min_diff, alpha, power, systems: int = 2, *, measure=None, B=None, level=0.95, names=None
) -> tuple[float, float, float, int]:
    """A design's parameters, checked for type and meaning; ``names`` names them in messages."""
    name = {k: k for k in ("min_diff", "alpha", "power", "systems", "B")} | (names or {})
    out = []
    for key, v, lo in (("min_diff", min_diff, None), ("alpha", alpha, 1), ("power", power, 1)):
        if key == "power" and v is None:
            out.append(math.nan)
            continue
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise InputError(f"{name[key]} must be a number, got {v!r}") from None
        if not (v > 0 and (lo is None or v < lo)) or not math.isfinite(v):
            span = "> 0" if lo is None else "in (0, 1)"
            raise InputError(f"{name[key]} must be {span}, got {v!r}")
        out.append(v)
    min_diff, alpha, power = out
    bounds = _bounds(measure)
    if bounds is not None and min_diff >= bounds[1] - bounds[0]:
        label = getattr(measure, "name", measure)
        raise InputError(
            f"{name['min_diff']} {min_diff:g} is beyond the range of {label}: its scores lie in "
            f"[{bounds[0]:g}, {bounds[1]:g}], so two means differ by less than {bounds[1] - bounds[0]:g}"
        )
    if power <= alpha:
        raise InputError(
            f"{name['power']} {power:g} is at or below {name['alpha']} {alpha:g}: a test at level {alpha:g} "
            f"rejects with probability {alpha:g} when there is no difference at all, so any number of topics "
            "has that power; ask for a power above alpha (0.8 is usual)"
        )
    if B is not None and check_int(B, name["B"], minimum=0):
        check_resamples(B, name["B"], level=level, hint=f", or {name['B']} 0 for no interval")
    return min_diff, alpha, power, check_int(systems, name["systems"], minimum=2)


def _simulation_B(B, test, alpha: float, scale: str, name: str = "B") -> int:
    """``B`` or the scale's default, checked to resolve ``alpha`` for a resampling ``test``."""
    from ..known_truth import default_sizes
    from ..significance._names import RESAMPLING, TESTS

    n = default_sizes(scale).B if B is None else B
    for t in [test] if isinstance(test, str) else list(test):
        if t in RESAMPLING:
            check_resamples(n, name, alpha=alpha, test=f"the simulated {TESTS[t]}", default=B is None)
    return n


def power_closed_form(method: str, n_topics, *, variance: float, min_diff: float, alpha: float = 0.05,
                      systems: int = 2) -> np.ndarray:  # fmt: skip
    """Power of the paired t-test or the one-way ANOVA at each topic-set size, in closed form.

    Sakai (2016), sections 4 and 5: ``"paired-t"``, the two-sided paired t-test of per-topic
    differences of variance ``2 V_E`` (statsmodels' ``TTestPower.power``); ``"anova"``, ``systems``
    means of range ``min_diff``, the others at their centre (statsmodels' ``FTestAnovaPower``).

    Parameters
    ----------
    method : {"paired-t", "anova"}
    n_topics : int or array_like of int
    variance : float
        The pilot's residual variance V_E.
    min_diff, alpha, systems
        The difference to detect (the range of the means, for the ANOVA), the level, m.

    Returns
    -------
    numpy.ndarray
        The power at each size.

    Examples
    --------
    >>> from statsmodels.stats.power import TTestPower
    >>> from irrepro.design import power_closed_form
    >>> p = power_closed_form("paired-t", [10, 50], variance=0.01, min_diff=0.05)
    >>> p.round(3).tolist(), bool(np.allclose(p, TTestPower().power(0.05 / np.sqrt(0.02), np.array([10, 50]), 0.05)))
    ([0.171, 0.688], True)
    """
    from scipy import stats

    n = np.asarray(n_topics, dtype=float)
    if method == "paired-t":
        d = min_diff / math.sqrt(2 * variance)
        crit = stats.t.isf(alpha / 2, n - 1)
        nc = d * np.sqrt(n)
        lower = stats.nct.cdf(-crit, n - 1, nc)
        # scipy's cdf is NaN far in the lower tail at a large noncentrality: the same tail by symmetry
        lower = np.where(np.isnan(lower), stats.nct.sf(crit, n - 1, -nc), lower)
        return np.asarray(stats.nct.sf(crit, n - 1, nc) + lower)
    if method == "anova":
        m = systems
        crit = stats.f.isf(alpha, m - 1, m * (n - 1))
        return np.asarray(stats.ncf.sf(crit, m - 1, m * (n - 1), n * min_diff**2 / (2 * variance)))
    raise InputError(f"method must be 'paired-t' or 'anova' for a power, not {method!r}")


def _ci_width(n, variance: float, alpha: float) -> np.ndarray:
    """Expected width of the paired t interval with n topics: 2 t(n - 1) c*(n) sigma / sqrt(n)."""
    from scipy import special, stats

    n = np.asarray(n, dtype=float)
    c = np.sqrt(2 / (n - 1)) * np.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    return 2 * stats.t.isf(alpha / 2, n - 1) * c * math.sqrt(2 * variance) / np.sqrt(n)


def _smallest(ok) -> int:
    """The smallest n >= 2 with ``ok(n)`` (monotone in n): doubling, then bisection."""
    hi = 2
    while not ok(hi):
        if hi >= MAX_TOPICS:
            return -1
        hi = min(2 * hi, MAX_TOPICS)
    lo = hi // 2 if hi > 2 else 1  # ok(lo) is False (or lo = 1, below the range)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


@dataclass(frozen=True)
class TopicSetSize:
    """The topics one of Sakai's methods recommends, with a bootstrap interval."""

    method: str
    n_topics: int
    low: int
    high: int
    variance: float
    variance_low: float
    variance_high: float


def _variance_interval(scores, B: int, level: float, seed: SeedLike) -> tuple[float, float]:
    """The percentile interval of V_E over B bootstrap samples of the pilot's topics."""
    from ..significance._samples import bootstrap_samples
    from ..significance.effects import _ve_weighted

    x = np.asarray(getattr(scores, "scores", scores), dtype=np.float64)
    T = x.shape[1]
    idx = bootstrap_samples(T, B, seed=seed)
    w = np.zeros((B, T))
    np.add.at(w, (np.repeat(np.arange(B), T), idx.ravel()), 1.0)
    _, ve = _ve_weighted(x, w)
    a = (1 - level) / 2
    lo, hi = np.quantile(ve, [a, 1 - a], method="inverted_cdf")
    return float(lo), float(hi)


def _topic_set_size(
    pilot,
    method: str = "paired-t",
    *,
    min_diff: float,
    alpha: float = 0.05,
    power: float = 0.8,
    systems: int = 2,
    B: int = 1000,
    level: float = 0.95,
    seed: SeedLike = 0,
) -> TopicSetSize:
    """One row of :func:`topic_set_sizes`, as a :class:`TopicSetSize`."""
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    from ..stats import check_level

    level = check_level(level)
    min_diff, alpha, power, systems = check_design(
        min_diff, alpha, power, systems, measure=getattr(pilot, "measure", None), B=B, level=level
    )
    B = check_int(B, "B", minimum=0)
    if np.ndim(pilot) == 0 and not hasattr(pilot, "scores"):
        variance = float(pilot)
        if not variance > 0 or not math.isfinite(variance):
            raise InputError(f"the pilot variance must be a positive number, got {pilot!r}")
        v_lo = v_hi = math.nan
        B = 0
    else:
        variance = two_way_anova(pilot).sigma2_residual  # the checks: 2 x 2, finite, variance
        v_lo, v_hi = _variance_interval(pilot, B, level, seed) if B else (math.nan, math.nan)

    def size(v) -> int:
        if not v > 0:
            return 2
        if method == "ci-width":
            return _smallest(lambda n: bool(_ci_width(n, v, alpha) <= min_diff))
        kw = dict(variance=v, min_diff=min_diff, alpha=alpha, systems=systems)
        return _smallest(lambda n: bool(power_closed_form(method, n, **kw) >= power))

    n = size(variance)
    lo, hi = (size(v_lo), size(v_hi)) if B else (-1, -1)
    return TopicSetSize(method, n, lo, hi, variance, v_lo, v_hi)


def topic_set_sizes(
    pilot,
    method: str | Sequence[str] | None = None,
    *,
    min_diff: float,
    alpha: float = 0.05,
    power: float = 0.8,
    systems: int = 2,
    B: int = 1000,
    level: float = 0.95,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """The topics a study needs by Sakai's (2016) methods, from a pilot, with bootstrap intervals.

    From V_E, the residual variance of the pilot's :func:`two_way_anova`: the fewest topics with
    which the paired t-test (``"paired-t"``) or the one-way ANOVA of ``systems`` systems
    (``"anova"``) detects ``min_diff`` with probability ``power``, or whose expected (1 - alpha)
    interval is at most ``min_diff`` wide (``"ci-width"``); the interval is the size at each end
    of V_E's percentile interval over ``B`` bootstrap samples of the pilot's topics.

    Parameters
    ----------
    pilot : ScoreMatrix, array_like or float
        ``(S, T)`` pilot scores (S, T >= 2), or V_E itself (then no interval).
    method : str, sequence of str or None
        Names of :data:`METHODS`; None: all three.
    min_diff : float
        The minimum detectable difference, > 0 (the CI width for ``"ci-width"``).
    alpha, power : float
        The significance level and 1 - beta, in (0, 1), ``power`` above ``alpha``.
    systems : int
        m, the systems the ANOVA compares (>= 2).
    B, level, seed
        Bootstrap samples of the pilot's topics: 0 (no interval), or enough for an interval at
        ``level`` (``irrepro.stats.check_resamples``: at least 100, one beyond each end); the
        interval's level; the seed.

    Returns
    -------
    pandas.DataFrame
        One row per method: ``method`` (its label), ``topics``, ``low``, ``high`` (-1: not
        reached, or no interval), ``V_E``, ``V_E_low``, ``V_E_high``.

    Raises
    ------
    irrepro.InputError
        An argument out of its range, or a pilot without residual variance.

    Examples
    --------
    >>> from irrepro.design import topic_set_sizes
    >>> rng = np.random.default_rng(1)
    >>> x = np.clip(0.4 + rng.normal(0, 0.15, (1, 40)) + rng.normal(0, 0.1, (6, 40)), 0, 1)
    >>> topic_set_sizes(x, min_diff=0.05, B=200, seed=2)["method"].tolist()
    ['paired t-test', 'one-way ANOVA', 'CI width']
    """
    seed = parallel.as_seed_sequence(seed)
    methods = list(METHODS) if method is None else [method] if isinstance(method, str) else list(method)
    rows = []
    for m in methods:
        r = _topic_set_size(pilot, m, min_diff=min_diff, alpha=alpha, power=power, systems=systems,
                            B=B, level=level, seed=seed)  # fmt: skip
        rows.append({"method": METHODS[m], "topics": r.n_topics, "low": r.low, "high": r.high,
                     "V_E": r.variance, "V_E_low": r.variance_low, "V_E_high": r.variance_high})  # fmt: skip
    return pd.DataFrame(rows)
