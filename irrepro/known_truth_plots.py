"""Figures of the "Against a known truth" chapter (:mod:`irrepro.simulation`,
:mod:`irrepro.known_truth`). Kept apart from the method modules, which import no matplotlib;
these functions are meant to join :mod:`irrepro.plots` when that module exists."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["plot_margin", "plot_rates_by_alpha", "plot_power_by_delta", "plot_coverage"]

#: One colour and marker per test, shared by every figure (reads in grey scale through the markers).
STYLE = {
    "t": ("C0", "o"), "wilcoxon": ("C1", "s"), "sign": ("C2", "^"), "bootstrap": ("C3", "D"),
    "permutation": ("C4", "v"), "unpaired bootstrap": ("C7", "x"),
}


def _axes(ax, figsize=(6, 3.5)):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_margin(model, i: int, *, delta: float | None = None, ax=None, seed=0):
    """System ``i``'s scores (histogram) against its fitted margin, and, with ``delta``, the
    margin moved to its expected value + delta (Lehmann transformation)."""
    ax = _axes(ax)
    m = model.margins[i]
    x = model.scores[i]
    if m.discrete:
        p = np.diff(np.r_[0.0, m.cdf])
        obs = np.array([np.mean(np.isclose(x, s)) for s in m.x])
        w = (m.x[1] - m.x[0]) * 0.4
        ax.bar(m.x - w / 2, obs, width=w, color="0.7", label="data")
        ax.bar(m.x + w / 2, p, width=w, color="C0", label=f"fitted ({m.family})")
        if delta is not None:
            t = m.with_mean(m.mean + delta)
            ax.plot(t.x, np.diff(np.r_[0.0, t.cdf]), "k.--", lw=0.8, label=f"moved to mean + {delta:g}")
        ax.set_ylabel("probability")
    else:
        ax.hist(x, bins=20, range=(0, 1), density=True, color="0.7", label="data")
        g = m.x
        pdf = np.gradient(m.cdf, g)
        ax.plot(g, pdf, color="C0", label=f"fitted ({m.family})")
        if delta is not None:
            t = m.with_mean(m.mean + delta)
            ax.plot(g, np.gradient(t.cdf, g), "k--", lw=0.8, label=f"moved to mean + {delta:g}")
        ax.set_ylabel("density")
        ax.set_ylim(0, min(ax.get_ylim()[1], 12))
    ax.set_xlabel(f"{model.measure} ({model.name}, system {model.systems[i]})")
    ax.legend(fontsize=7)
    return ax


def plot_rates_by_alpha(ours: pd.DataFrame, theirs: pd.DataFrame | None = None, *, tails: int = 2, axes=None):
    """Type I error divided by alpha against alpha, one panel per topic-set size, one line per
    test (ours, with +-1.96 se bands) and Urbano et al.'s published rates as open markers.
    ``ours``: long frame (test, tails, alpha, rate, se, topics); ``theirs``: rows of
    ``book/papers/urbano2019statistical.yml`` (test, tails, alpha, value, topics)."""
    import matplotlib.pyplot as plt

    sizes = sorted(ours["topics"].unique())
    if axes is None:
        _, axes = plt.subplots(1, len(sizes), figsize=(3.3 * len(sizes), 3.4), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, n in zip(axes, sizes):
        o = ours[(ours.topics == n) & (ours.tails == tails)]
        for test, g in o.groupby("test", sort=False):
            c, mk = STYLE.get(test, ("k", "."))
            g = g.sort_values("alpha")
            ax.plot(g.alpha, g.rate / g.alpha, color=c, marker=mk, ms=3, lw=1, label=test)
            ax.fill_between(g.alpha, (g.rate - 1.96 * g.se) / g.alpha, (g.rate + 1.96 * g.se) / g.alpha,
                            color=c, alpha=0.15, lw=0)
            if theirs is not None:
                u = theirs[(theirs.topics == n) & (theirs.tails == tails) & (theirs.test == test)].sort_values("alpha")
                ax.plot(u.alpha, u.value / u.alpha, ls="none", marker=mk, mfc="none", color=c, ms=6)
        ax.axhline(1.0, color="k", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set(title=f"{n} topics", xlabel="alpha")
    axes[0].set_ylabel("type I error / alpha")
    axes[0].legend(fontsize=7, title="lines: ours; open: Urbano et al.", title_fontsize=7)
    return axes


def plot_power_by_delta(ours: pd.DataFrame, theirs: pd.DataFrame | None = None, *, alpha: float = 0.05,
                        tails: int = 2, ax=None):
    """Power at ``alpha`` against the true difference delta, one line per test (ours with
    +-1.96 se bands), Urbano et al.'s published power as open markers."""
    ax = _axes(ax)
    o = ours[(ours.tails == tails) & np.isclose(ours.alpha, alpha)]
    for test, g in o.groupby("test", sort=False):
        c, mk = STYLE.get(test, ("k", "."))
        g = g.sort_values("delta")
        ax.plot(g.delta, g.rate, color=c, marker=mk, ms=3, lw=1, label=test)
        ax.fill_between(g.delta, g.rate - 1.96 * g.se, g.rate + 1.96 * g.se, color=c, alpha=0.15, lw=0)
        if theirs is not None:
            u = theirs[(theirs.tails == tails) & (theirs.test == test)].sort_values("delta")
            ax.plot(u.delta, u.value, ls="none", marker=mk, mfc="none", color=c, ms=6)
    ax.set(xlabel="true difference of expected scores (delta)", ylabel=f"power at alpha = {alpha:g}", ylim=(0, 1))
    ax.legend(fontsize=7, title="lines: ours; open: Urbano et al.", title_fontsize=7)
    return ax


def plot_coverage(tables: dict, *, nominal: float = 0.95, proxy: float | None = None, ax=None):
    """Coverage of each interval method (points with +-1.96 se) per setting (``tables``: label ->
    :meth:`irrepro.known_truth.Coverage.table`), the nominal level as a line and, when given, the
    split-half concordance the paper predicts (``proxy``) as a dashed line beside the measured
    concordance (open markers)."""
    ax = _axes(ax, figsize=(6.5, 3.5))
    labels = list(tables)
    methods = list(next(iter(tables.values())).index)
    width = 0.8 / len(labels)
    for k, lab in enumerate(labels):
        t = tables[lab]
        x = np.arange(len(methods)) + (k - (len(labels) - 1) / 2) * width
        ax.errorbar(x, t["coverage"], yerr=1.96 * t["se"], fmt="o", color=f"C{k}", ms=4, label=f"{lab}: coverage")
        ax.plot(x, t["other corpus inside"], ls="none", marker="s", mfc="none", color=f"C{k}", ms=5,
                label=f"{lab}: other corpus inside")
    ax.axhline(nominal, color="k", lw=0.8, ls=":")
    if proxy is not None:
        ax.axhline(proxy, color="k", lw=0.8, ls="--")
    ax.set_xticks(np.arange(len(methods)), methods, rotation=20, fontsize=8)
    ax.set_ylabel("share of lists")
    ax.legend(fontsize=7)
    return ax
