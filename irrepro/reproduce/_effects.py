"""Score level (RMSE), effect level (ER, Delta RI), p-values and topic means of
:mod:`irrepro.reproduce` (Breuer et al. 2020, section 3), each with a topic-bootstrap interval."""

from __future__ import annotations

import numpy as np
from scipy import special

from ..errors import InputError
from ..parallel import SeedLike
from ._bootstrap import Estimate, Weights, estimate, wmean

#: An original mean improvement smaller than this in absolute value is none (zero up to rounding):
#: :func:`effect_ratio` is NaN for it.
NO_EFFECT = 1e-12


def _scores(name: str, x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim < 1 or a.shape[-1] < 2:
        raise InputError(
            f"{name} must hold per-topic scores on its last axis (at least 2), got shape {a.shape}"
        )
    if not np.isfinite(a).all():
        raise InputError(f"{name} holds a NaN or infinite score")
    return a


def _same_topics(**arrays: np.ndarray) -> None:
    shapes = {k: v.shape[-1] for k, v in arrays.items()}
    if len(set(shapes.values())) > 1:
        raise InputError(f"paired inputs must score the same topics, got {shapes} topics")


def topic_mean(values, *, B: int = 1000, level: float = 0.95, seed: SeedLike = None) -> Estimate:
    """The mean over topics of per-topic values (NaN topics left out), with its topic-bootstrap interval."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise InputError(f"values must hold per-topic values on the last axis, got shape {x.shape}")
    ok = ~np.isnan(x)
    filled = np.where(ok, x, 0.0)
    okf = ok.astype(np.float64)

    def stat(w, _):
        with np.errstate(invalid="ignore", divide="ignore"):
            return w.sums(filled) / w.sums(okf)

    return estimate(stat, x.shape[-1], x.shape[-1], paired=True, B=B, level=level, seed=seed)


def rmse(orig, repro, *, B: int = 1000, level: float = 0.95, seed: SeedLike = None) -> Estimate:
    """Root mean square error between original and reproduced per-topic scores, with its interval."""
    o, r = _scores("orig", orig), _scores("repro", repro)
    _same_topics(orig=o, repro=r)
    d2 = (o - r) ** 2

    def stat(w, _):
        return np.sqrt(wmean(d2, w))

    return estimate(stat, o.shape[-1], o.shape[-1], paired=True, B=B, level=level, seed=seed)


def _effect_inputs(ob, oa, rb, ra, paired: bool):
    ob, oa = _scores("orig_baseline", ob), _scores("orig_advanced", oa)
    rb, ra = _scores("repro_baseline", rb), _scores("repro_advanced", ra)
    _same_topics(orig_baseline=ob, orig_advanced=oa)
    _same_topics(repro_baseline=rb, repro_advanced=ra)
    if paired:
        _same_topics(orig=ob, repro=rb)
    return ob, oa, rb, ra


def effect_ratio(
    orig_baseline, orig_advanced, repro_baseline, repro_advanced, *, paired: bool = True,
    B: int = 1000, level: float = 0.95, seed: SeedLike = None,
) -> Estimate:  # fmt: skip
    """Effect ratio: the reproduced mean improvement over the original one (NaN where that is below ``NO_EFFECT``), with its interval."""
    ob, oa, rb, ra = _effect_inputs(orig_baseline, orig_advanced, repro_baseline, repro_advanced, paired)
    d_o, d_r = oa - ob, ra - rb

    def stat(w_o, w_r):
        den = wmean(d_o, w_o)
        with np.errstate(invalid="ignore", divide="ignore"):
            # no original improvement (zero up to rounding: a mean of differences that cancel
            # leaves ~1e-17, which would give an ER of ~1e14): nothing to reproduce, NaN
            return np.where(np.abs(den) < NO_EFFECT, np.nan, wmean(d_r, w_r) / den)

    return estimate(stat, ob.shape[-1], rb.shape[-1], paired=paired, B=B, level=level, seed=seed)


def delta_ri(
    orig_baseline, orig_advanced, repro_baseline, repro_advanced, *, paired: bool = True,
    B: int = 1000, level: float = 0.95, seed: SeedLike = None,
) -> Estimate:  # fmt: skip
    """Delta RI: the original's relative improvement minus the reproduction's, with its interval."""
    ob, oa, rb, ra = _effect_inputs(orig_baseline, orig_advanced, repro_baseline, repro_advanced, paired)

    def stat(w_o, w_r):
        mb_o, mb_r = wmean(ob, w_o), wmean(rb, w_r)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (wmean(oa, w_o) - mb_o) / mb_o - (wmean(ra, w_r) - mb_r) / mb_r

    return estimate(stat, ob.shape[-1], rb.shape[-1], paired=paired, B=B, level=level, seed=seed)


def _mean_var(x: np.ndarray, w: Weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted mean, variance (ddof 1) and n of ``x`` (..., T) under the M weightings ``w``, centred first to keep digits."""
    c = x - x.mean(axis=-1, keepdims=True)
    n = w.n
    m = w.sums(c) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        v = (w.sums(c**2) / n - m**2) * n / (n - 1)
    return m + x.mean(axis=-1, keepdims=True), np.maximum(v, 0.0), n


def _two_sided(t: np.ndarray, df) -> np.ndarray:
    return 2.0 * special.stdtr(df, -np.abs(t))


def p_value(
    orig, repro, *, paired: bool = True, B: int = 1000, level: float = 0.95, seed: SeedLike = None
) -> Estimate:
    """The two-sided t-test's p-value (paired: scipy's ``ttest_rel``; unpaired: Student's pooled ``ttest_ind``; 1 where the scores are equal), with its interval."""
    o, r = _scores("orig", orig), _scores("repro", repro)
    if paired:
        _same_topics(orig=o, repro=r)
        d = o - r
        same = np.all(d == 0, axis=-1)[..., None]

        def stat(w, _):
            m, v, n = _mean_var(d, w)
            with np.errstate(invalid="ignore", divide="ignore"):
                p = _two_sided(m / np.sqrt(v / n), n - 1)
            return np.where(same, 1.0, p)

    else:
        same = (np.all(o == o[..., :1], axis=-1) & np.all(r == o[..., :1], axis=-1))[..., None]

        def stat(w_o, w_r):
            m1, v1, n1 = _mean_var(o, w_o)
            m2, v2, n2 = _mean_var(r, w_r)
            df = n1 + n2 - 2
            sp = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
            with np.errstate(invalid="ignore", divide="ignore"):
                p = _two_sided((m1 - m2) / np.sqrt(sp * (1 / n1 + 1 / n2)), df)
            return np.where(same, 1.0, p)

    return estimate(stat, o.shape[-1], r.shape[-1], paired=paired, B=B, level=level, seed=seed)
