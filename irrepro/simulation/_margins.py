"""The margins: one system's score distribution, its candidate families and the choice by AIC."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from ..errors import InputError

_GRID = np.linspace(0.0, 1.0, 4097)  # score grid on which continuous margins are tabulated
_CLIP = 1e-3


def _pyvinecopulib():
    import pyvinecopulib as pv

    return pv


@dataclass(frozen=True, eq=False)
class Margin:
    """The distribution of one system's per-topic scores, tabulated by its CDF."""

    family: str
    discrete: bool
    x: np.ndarray
    cdf: np.ndarray
    aic: float = np.nan
    n_params: float = np.nan

    @functools.cached_property
    def mean(self) -> float:
        """The expected score: sum of x p(x) (discrete) or the integral of 1 - F (continuous)."""
        if self.discrete:
            return float(np.sum(self.x * np.diff(np.r_[0.0, self.cdf])))
        g = 1.0 - self.cdf
        return float(np.sum((g[1:] + g[:-1]) * np.diff(self.x)) / 2)

    def ppf(self, u) -> np.ndarray:
        """The quantile function Q(u) = min{x : F(x) >= u}, interpolated when continuous."""
        u = np.asarray(u, dtype=np.float64)
        if self.discrete:
            k = np.searchsorted(self.cdf, u, side="left")
            return self.x[np.minimum(k, len(self.x) - 1)]
        # strictly increasing knots (flat stretches of F carry no probability)
        f = self.cdf + np.arange(len(self.cdf)) * 1e-14
        return np.interp(u, f, self.x)

    def lehmann(self, power: float) -> Margin:
        """CDF ``F^power`` (power >= 1) or ``1 - (1 - F)^b`` (power = -b <= -1); (-1, 1) is refused."""
        if -1 < power < 1:
            raise InputError("the Lehmann power must be >= 1 (raise) or <= -1 (lower)")
        f = self.cdf**power if power >= 1 else 1.0 - (1.0 - self.cdf) ** (-power)
        return Margin(f"t({self.family})", self.discrete, self.x, f, np.nan, self.n_params)

    def can_move_to(self, mean: float, tol: float = 1e-9) -> bool:
        """Whether :meth:`with_mean` can move this margin to expected value ``mean`` (no root search)."""
        now = self.mean
        if abs(mean - now) <= tol:
            return True
        if not float(self.x[0]) < mean < float(self.x[-1]):
            return False
        sign = 1.0 if mean > now else -1.0
        return bool((self.lehmann(sign * np.exp(_TOP_LOG_POWER)).mean - mean) * sign >= 0)

    def with_mean(self, mean: float, tol: float = 1e-9) -> Margin:
        """This margin moved to expected value ``mean`` (Lehmann); InputError outside the support."""
        now = self.mean
        if abs(mean - now) <= tol:
            return self
        lo, hi = float(self.x[0]), float(self.x[-1])
        if not lo < mean < hi:
            raise InputError(f"target mean {mean} outside the support ({lo}, {hi})")
        sign = 1.0 if mean > now else -1.0

        def gap(log_p):
            return self.lehmann(sign * np.exp(log_p)).mean - mean

        top = 1.0
        while gap(top) * sign < 0:
            top *= 2
            if top > _TOP_LOG_POWER:
                raise InputError(f"cannot move the margin's mean from {now:.4f} to {mean:.4f}")
        log_p = optimize.brentq(gap, 0.0, top, xtol=1e-12)
        return self.lehmann(sign * np.exp(log_p))


#: The largest log power :meth:`Margin.with_mean` tries (its root search doubles up to it).
_TOP_LOG_POWER = 64.0


def _aic(loglik: float, k: float) -> float:
    return float(2 * k - 2 * loglik)


_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def _log_mass(a: float, b: float, upper: bool) -> float:
    """log(Phi(b) - Phi(a)), a < b, from the tail holding the mass (``upper``) so that far tails do not underflow."""
    if upper:
        la, lb = special.log_ndtr(-a), special.log_ndtr(-b)
        return float(la + np.log1p(-np.exp(lb - la)))
    la, lb = special.log_ndtr(a), special.log_ndtr(b)
    return float(lb + np.log1p(-np.exp(la - lb)))


def _truncnorm_cdf(x, mu, sd):
    """CDF on [0, 1] of N(mu, sd) truncated to [0, 1], stable when the mass sits in a far tail."""
    a, b, z = -mu / sd, (1 - mu) / sd, (np.asarray(x) - mu) / sd
    upper = mu < 0.5
    lm = _log_mass(a, b, upper)
    with np.errstate(divide="ignore"):  # log(0) at the end points: F = 0 there
        if upper:  # (sf(a) - sf(z)) / (sf(a) - sf(b))
            la = special.log_ndtr(-a)
            num = la + np.log1p(-np.exp(np.minimum(special.log_ndtr(-z) - la, 0.0)))
        else:  # (Phi(z) - Phi(a)) / (Phi(b) - Phi(a))
            lz = special.log_ndtr(z)
            num = lz + np.log1p(-np.exp(np.minimum(special.log_ndtr(a) - lz, 0.0)))
        return np.clip(np.exp(num - lm), 0.0, 1.0)


def _fit_truncnorm(x: np.ndarray, xc: np.ndarray) -> Margin:
    n = len(xc)

    def nll(p):  # negative log-likelihood and its gradient in (mu, log sd)
        mu, sd = p[0], np.exp(p[1])
        z = (xc - mu) / sd
        a, b = -mu / sd, (1 - mu) / sd
        lm = _log_mass(a, b, mu < 0.5)
        ra = np.exp(-0.5 * a * a - _LOG_SQRT_2PI - lm)  # phi(a) / mass
        rb = np.exp(-0.5 * b * b - _LOG_SQRT_2PI - lm)
        f = n * (p[1] + _LOG_SQRT_2PI) + 0.5 * np.sum(z * z) + n * lm
        g_mu = -np.sum(z) / sd + n * (ra - rb) / sd
        g_ls = n - np.sum(z * z) + n * (a * ra - b * rb)
        return f, np.array([g_mu, g_ls])

    sd0 = max(x.std(ddof=1), 1e-2)
    bounds = [(-3.0, 4.0), (np.log(1e-2), np.log(20.0))]
    res = optimize.minimize(nll, [x.mean(), np.log(sd0)], jac=True, method="TNC", bounds=bounds)
    mu, sd = res.x[0], np.exp(res.x[1])
    f = _truncnorm_cdf(_GRID, mu, sd)
    f[0], f[-1] = 0.0, 1.0
    return Margin("truncnorm", False, _GRID, f, _aic(-res.fun, 2), 2)


def _fit_beta(xc: np.ndarray) -> Margin:
    n = len(xc)
    s1, s2 = np.log(xc).sum(), np.log1p(-xc).sum()

    def nll(p):  # in (log a, log b), with the analytic gradient
        a, b = np.exp(p)
        f = -((a - 1) * s1 + (b - 1) * s2 - n * special.betaln(a, b))
        dab = special.digamma(a + b)
        return f, -np.array(
            [a * (s1 - n * (special.digamma(a) - dab)), b * (s2 - n * (special.digamma(b) - dab))]
        )

    m, v = xc.mean(), max(xc.var(), 1e-6)  # start from the method of moments
    c = max(m * (1 - m) / v - 1, 0.05)
    res = optimize.minimize(
        nll, np.log([m * c, (1 - m) * c]), jac=True, method="TNC", bounds=[(np.log(1e-3), np.log(1e4))] * 2
    )
    a, b = np.exp(res.x)
    return Margin("beta", False, _GRID, stats.beta.cdf(_GRID, a, b), _aic(-res.fun, 2), 2)


def _fit_kde(x: np.ndarray, xc: np.ndarray) -> Margin:
    pv = _pyvinecopulib()
    k = pv.core.Kde1d(xmin=0.0, xmax=1.0)
    k.fit(x)
    ll = float(np.log(np.maximum(k.pdf(xc), 1e-300)).sum())
    f = np.clip(k.cdf(_GRID), 0.0, 1.0)
    f = np.maximum.accumulate(f)
    f[0], f[-1] = 0.0, 1.0
    return Margin("kde", False, _GRID, f, _aic(ll, k.npars), float(k.npars))


def _fit_betabinom(counts: np.ndarray, m: int, support: np.ndarray) -> Margin:
    k = np.arange(m + 1)
    c = np.bincount(counts, minlength=m + 1).astype(np.float64)
    log_choose = special.gammaln(m + 1) - special.gammaln(k + 1) - special.gammaln(m - k + 1)

    def logpmf(a, b):
        return log_choose + special.betaln(k + a, m - k + b) - special.betaln(a, b)

    def nll(p):  # in (log a, log b), with the analytic gradient
        a, b = np.exp(p)
        n, dab, dm = c.sum(), special.digamma(a + b), special.digamma(m + a + b)
        ga = np.sum(c * special.digamma(k + a)) - n * (dm + special.digamma(a) - dab)
        gb = np.sum(c * special.digamma(m - k + b)) - n * (dm + special.digamma(b) - dab)
        return -np.sum(c * logpmf(a, b)), -np.array([a * ga, b * gb])

    mean = np.clip(counts.mean() / m, 0.02, 0.98)
    start, bounds = [np.log(mean * 2), np.log((1 - mean) * 2)], [(np.log(1e-3), np.log(1e4))] * 2
    res = optimize.minimize(nll, start, jac=True, method="TNC", bounds=bounds)
    a, b = np.exp(res.x)
    cdf = np.cumsum(np.exp(logpmf(a, b)))
    cdf[-1] = 1.0
    return Margin("betabinom", True, support, np.minimum(cdf, 1.0), _aic(-res.fun, 2), 2)


def _fit_kde_discrete(counts: np.ndarray, m: int, support: np.ndarray, mult: float) -> Margin:
    pv = _pyvinecopulib()
    k = pv.core.Kde1d(xmin=0.0, xmax=float(m), var_type="d", multiplier=mult)
    k.fit(counts.astype(np.float64))
    pmf = np.maximum(k.pdf(np.arange(m + 1, dtype=np.float64)), 0.0)
    pmf /= pmf.sum()
    ll = float(np.log(np.maximum(pmf[counts], 1e-300)).sum())
    cdf = np.cumsum(pmf)
    cdf[-1] = 1.0
    return Margin(f"kde(x{mult:g})", True, support, cdf, _aic(ll, k.npars), float(k.npars))


def fit_margin(scores, *, support=None) -> Margin:
    """The margin of one system's topic scores selected by AIC among the candidates."""
    x = np.asarray(scores, dtype=np.float64).ravel()
    if x.size < 5 or not np.all(np.isfinite(x)) or x.min() < 0 or x.max() > 1:
        raise InputError("fit_margin needs at least 5 finite scores in [0, 1]")
    fits = []
    if support is None:
        xc = np.clip(x, _CLIP, 1 - _CLIP)
        for fn in (lambda: _fit_truncnorm(x, xc), lambda: _fit_beta(xc), lambda: _fit_kde(x, xc)):
            try:
                fits.append(fn())
            except Exception:  # a candidate that cannot be fitted is not a candidate
                continue
    else:
        support = np.asarray(support, dtype=np.float64)
        m = len(support) - 1
        counts = np.rint((x - support[0]) / (support[-1] - support[0]) * m).astype(np.int64)
        if np.abs(support[counts] - x).max() > 1e-6:
            raise InputError("scores do not lie on the given support")
        fits.append(_fit_betabinom(counts, m, support))
        for mult in (1.0, 2.0, 5.0):
            try:
                fits.append(_fit_kde_discrete(counts, m, support, mult))
            except Exception:
                continue
    fits = [f for f in fits if np.isfinite(f.aic)]
    if not fits:
        raise InputError("no candidate distribution could be fitted")
    return min(fits, key=lambda f: f.aic)
