"""Figures of the known-truth chapters (:mod:`irrepro.simulation`, :mod:`irrepro.known_truth`) and
of the collections' relevant documents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import escape
from ..errors import InputError
from ..stats import Z95, check_level
from ._base import (
    GREY,
    PALETTE,
    TEST_STYLE,
    _axes,
    _legend,
    _name,
    _names,
    panels,
    series_colors,
    styled,
)

if TYPE_CHECKING:
    import pandas as pd


#: Pairs of :data:`PALETTE` colours of one hue (dark, light), for two series of one setting.
_PAIRS = ((PALETTE[0], PALETTE[5]), (PALETTE[3], PALETTE[1]), (PALETTE[6], PALETTE[2]))

#: The markers of :func:`plot_relevant_per_topic`, in the order of its series.
_R_MARKERS = ("o", "s", "x", "^", "v", "D", "+")


@styled
def plot_relevant_per_topic(relevant: Mapping[str, Sequence[int]], *, title: str = "", ax=None):
    """R per topic of several collections against its topics' rank share, with the small-R line (R <= 5).

    Parameters
    ----------
    relevant : mapping
        Label -> R of every topic.
    title : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (7, 3.6))
    colors = series_colors(relevant)
    shown = dict(zip(relevant, _names(relevant)))
    for (name, values), marker in zip(relevant.items(), _R_MARKERS * (1 + len(relevant) // len(_R_MARKERS))):
        r = np.sort(np.asarray(values, dtype=float))
        x = 100 * (np.arange(len(r)) + 0.5) / len(r)
        lab = f"{shown[name]} (median {np.median(r):g}, {int((r <= 5).sum())} <= 5)"
        fill = "none" if marker in "os^vD" else "full"
        ax.plot(x, r, marker=marker, ms=4, lw=0.8, color=colors[name], label=lab, fillstyle=fill)
    ax.axhline(5, color="0.5", ls="--", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("topics ranked by R (% of the topics)")
    ax.set_ylabel("relevant documents (R)")
    ax.set_title(escape.mpl(title))
    _legend(ax, below=34)
    return ax


@styled
def plot_margin(model, i: int, *, delta: float | None = None, ax=None):
    """One system's topic scores against its fitted margin (a density cut at twice the highest bar).

    Parameters
    ----------
    model : irrepro.simulation._collection.CollectionModel
    i : int
        The system.
    delta : float, optional
        Also draw the margin moved to its expected value + delta (dashed).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (6, 3.5))
    m = model.margins[i]
    x = np.asarray(model.scores[i])

    def mass(d):  # the probability of each value of a discrete margin, else the density
        return np.diff(np.r_[0.0, d.cdf]) if m.discrete else np.gradient(d.cdf, d.x)

    if m.discrete:
        w = (m.x[1] - m.x[0]) * 0.4
        ax.bar(m.x - w / 2, [np.mean(np.isclose(x, v)) for v in m.x], width=w, color=GREY, label="data")
        ax.bar(m.x + w / 2, mass(m), width=w, color=PALETTE[0], label=f"fitted ({m.family})")
    else:
        heights = ax.hist(x, bins=20, range=(0, 1), density=True, color=GREY, label="data")[0]
        ax.plot(m.x, mass(m), color=PALETTE[0], label=f"fitted ({m.family})")
    if delta is not None:
        t = m.with_mean(m.mean + delta)
        style = ".--" if m.discrete else "--"
        ax.plot(t.x, mass(t), style, color=PALETTE[3], lw=0.8, label=f"moved to mean + {delta:g}")
    ax.set_ylabel("probability" if m.discrete else "density")
    if not m.discrete:
        ax.set_ylim(0, min(ax.get_ylim()[1], 2 * heights.max()))
    ax.set_xlabel(_name(model.measure))
    ax.set_title(f"{_name(model.name)}, system {_name(model.systems[i])}")
    _legend(ax, below=34)
    return ax


def _by_alpha(ours, theirs, axes, *, tails: int, ylabel: str, legend: bool):
    """Type I error against alpha on log-log axes with the diagonal, one panel per topic-set size."""
    sizes = sorted(ours["topics"].unique())
    # a band reaching 0 is cut at half the smallest rate (or alpha) drawn: the y axis spans the data
    rates = ours.loc[(ours["tails"] == tails) & (ours["rate"] > 0), "rate"]
    floor = 0.5 * min(rates.min() if len(rates) else np.inf, ours["alpha"].min())
    for ax, n in zip(axes, sizes):
        o = ours[(ours["topics"] == n) & (ours["tails"] == tails)]
        for test, g in o.groupby("test", sort=False):
            c, mk = TEST_STYLE.get(test, ("k", "."))
            g = g.sort_values("alpha")
            ax.plot(g["alpha"], g["rate"], color=c, marker=mk, ms=3, lw=1, label=_name(test))
            band = (np.maximum(g["rate"] - Z95 * g["se"], floor), g["rate"] + Z95 * g["se"])
            ax.fill_between(g["alpha"], *band, color=c, alpha=0.15, lw=0)
            u = theirs[(theirs["topics"] == n) & (theirs["tails"] == tails) & (theirs["test"] == test)]
            u = u.sort_values("alpha")
            ax.plot(u["alpha"], u["value"], ls="none", marker=mk, mfc="none", color=c, ms=6)
        a = np.sort(o["alpha"].unique())
        ax.plot(a, a, color="k", lw=0.8, ls=":")
        ax.set_yscale("log", nonpositive="mask")  # a rate of 0 is not drawn
        ax.set_xscale("log")
        ax.set(title=f"{n} topics", xlabel="alpha")
    axes[0].set_ylabel(escape.mpl(ylabel))
    for ax in axes[1:]:
        ax.set_ylabel("")
    if legend:
        _legend(
            axes[-1], handles=axes[0].get_legend_handles_labels()[0], title="lines: ours\nopen: published"
        )


def _by_delta(ours, theirs, ax, *, tails: int, rate: str, title: str, legend: bool, alpha: float = 0.05):
    """Power (or type III error, ``rate="type3"``) at alpha against the true difference, one line per test."""
    se_col = "se" if rate == "rate" else f"{rate}_se"
    o = ours[(ours["tails"] == tails) & np.isclose(ours["alpha"], alpha)]
    for test, g in o.groupby("test", sort=False):
        c, mk = TEST_STYLE.get(test, ("k", "."))
        g = g.sort_values("delta")
        y, e = g[rate], g[se_col]
        ax.plot(g["delta"], y, color=c, marker=mk, ms=3, lw=1, label=_name(test))
        if g["delta"].nunique() > 1:
            ax.fill_between(g["delta"], y - Z95 * e, y + Z95 * e, color=c, alpha=0.15, lw=0)
        else:  # a single delta: a band has no width, so bars show +-1.96 se
            ax.errorbar(g["delta"], y, yerr=Z95 * e, fmt="none", capsize=3, lw=1, color=c)
        u = theirs[(theirs["tails"] == tails) & (theirs["test"] == test)].sort_values("delta")
        ax.plot(u["delta"], u["value"], ls="none", marker=mk, mfc="none", color=c, ms=6)
    if rate == "rate":
        ax.set(ylabel=f"power at alpha = {alpha:g}", ylim=(0, 1))
    else:
        ax.set(ylabel=f"type III error at alpha = {alpha:g}", ylim=(0, None))
    ax.set(xlabel="true difference (delta)", title=escape.mpl(title))
    if legend:
        _legend(ax, title="lines: ours\nopen: published")


@styled
def plot_coverage(
    tables: Mapping[str, pd.DataFrame],
    *,
    level: float = 0.95,
    proxy: float | None = None,
    title: str = "",
    ax=None,
):
    """Coverage (+-1.96 se; the nominal level dotted) and the other corpus inside (open squares) per method and setting.

    Parameters
    ----------
    tables : mapping
        Label -> ``Coverage.table()``.
    level : float
        The intervals' nominal level, a fraction or a percentage (``irrepro.stats.check_level``).
    proxy : float, optional
        The split-half concordance the paper predicts (dashed).
    title : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (6.5, 3.5))
    labels = list(tables)
    methods = list(next(iter(tables.values())).index)
    width = 0.8 / len(labels)
    colors = series_colors([(lab, q) for lab in labels for q in ("coverage", "inside")])
    if len(labels) <= len(_PAIRS):  # a setting's two series in a dark and a light shade of one hue
        colors = {
            (lab, q): c for lab, pair in zip(labels, _PAIRS) for q, c in zip(("coverage", "inside"), pair)
        }
    shown = dict(zip(labels, _names(labels)))
    for k, lab in enumerate(labels):
        t = tables[lab]
        x = np.arange(len(methods)) + (k - (len(labels) - 1) / 2) * width
        c, other = colors[lab, "coverage"], colors[lab, "inside"]
        ax.errorbar(
            x, t["coverage"], yerr=Z95 * t["se"], fmt="o", color=c, ms=4, label=f"{shown[lab]}: coverage"
        )
        inside = f"{shown[lab]}: other corpus inside"
        ax.plot(
            x, t["other corpus inside"], ls="none", marker="s", mfc="none", color=other, ms=5, label=inside
        )
    ax.axhline(check_level(level), color="k", lw=0.8, ls=":")
    if proxy is not None:
        ax.axhline(proxy, color="k", lw=0.8, ls="--")
    ax.set_xticks(np.arange(len(methods)), _names(methods), rotation=20, ha="right")
    ax.set_ylabel("share of lists")
    ax.set_title(escape.mpl(title))
    _legend(ax, below=50, ncol=2)
    return ax


@styled
def plot_rate_panels(ours: pd.DataFrame, theirs: pd.DataFrame, kind: str, *, tails: int,
                     measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str]):  # fmt: skip
    """Our rates beside the published ones (open markers), a panel per measure and topic-set size.

    Parameters
    ----------
    ours : pandas.DataFrame
        ``PValues.frame()``'s rows (for type III ``UrbanoPValues.frame()``'s) with a ``measure`` column.
    theirs : pandas.DataFrame
        ``kt.rows.their_type1`` or ``kt.rows.their_by_delta``.
    kind : {"type1", "power", "type3"}
        Type I error against alpha on log-log axes (a row per measure), or power or type III error at
        alpha = 0.05 against delta (a row per size).
    tails : {2, 1}
    measures : sequence of str
    sizes : sequence of int
    tests : sequence of str
        The tests of ours to draw.

    Returns
    -------
    Figure
    """
    if kind not in ("type1", "power", "type3"):
        raise InputError(f"kind must be 'type1', 'power' or 'type3', not {kind!r}")
    if kind == "type1":
        fig, axes = panels(len(measures), len(sizes), height=2.4, sharey=True)
        for row, m in zip(axes, measures):
            o = ours[(ours["measure"] == m) & ours["test"].isin(tests)]
            t, ylabel = theirs[theirs["measure"] == m], f"{m}: type I error"
            _by_alpha(o, t, np.atleast_1d(row), tails=tails, ylabel=ylabel, legend=m == measures[0])
        return fig
    fig, axes = panels(len(sizes), len(measures), height=2.8, squeeze=False)
    theirs = theirs[(theirs["kind"] == kind) & (theirs["tails"] == tails)]
    rate = "rate" if kind == "power" else "type3"
    for row, n in zip(axes, sizes):
        for ax, m in zip(row, measures):
            o = ours[(ours["measure"] == m) & (ours["topics"] == n) & ours["test"].isin(tests)]
            u = theirs[(theirs["measure"] == m) & (theirs["topics"] == n)]
            last = (m, n) == (measures[-1], sizes[0])
            _by_delta(o, u, ax, tails=tails, rate=rate, title=f"{m}, {n} topics", legend=last)
    return fig


@styled
def plot_which_rates(rates: pd.DataFrame, *, what: str = "type I error", level: float = 0.05):
    """A rate of every test on AP against the number of topics, one panel per design.

    Parameters
    ----------
    rates : pandas.DataFrame
        ``kt.which.rates_table``'s rows (design, measure, topics, delta, test, what, rate, se).
    what : {"type I error", "power"}
    level : float
        The nominal level, with the rule's margin (20% of it) as a band.

    Returns
    -------
    Figure
    """
    r = rates[(rates["what"] == what) & (rates["measure"] == "AP")]
    if what == "power":
        r = r[r["delta"] == r.groupby(["design", "topics"])["delta"].transform("min")]
    designs = list(dict.fromkeys(r["design"]))
    fig, axes = panels(1, len(designs), height=2.8, sharey=True)
    for ax, d in zip(np.atleast_1d(axes), designs):
        for t, g in r[r["design"] == d].groupby("test", sort=False):
            color, marker = TEST_STYLE.get(t, (GREY, "o"))
            ax.errorbar(g["topics"], g["rate"], yerr=Z95 * g["se"], color=color, marker=marker, ms=4,
                        capsize=2, label=_name(t))  # fmt: skip
        ax.axhspan(0.8 * level, 1.2 * level, color=GREY, alpha=0.2, lw=0)
        ax.axhline(level, color=GREY, lw=0.8)
        sizes = sorted(set(r.loc[r["design"] == d, "topics"]))
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
        ax.set_xlabel("topics")
        ax.set_title(escape.mpl(f"{d} design"))
    np.atleast_1d(axes)[0].set_ylabel(f"AP: {what}")
    _legend(np.atleast_1d(axes)[-1], below=None, ncol=1, loc="upper left", bbox_to_anchor=(1.02, 1))
    return fig


@styled
def plot_which_balance(props: pd.DataFrame, rates: pd.DataFrame, *, level: float = 0.05):
    """Wilcoxon's type I error on AP against the rank balance of the null differences, per design and size.

    Parameters
    ----------
    props : pandas.DataFrame
        ``kt.which.properties_table``.
    rates : pandas.DataFrame
        ``kt.which.rates_table``.
    level : float

    Returns
    -------
    Axes
    """
    r = rates[(rates["what"] == "type I error") & (rates["test"] == "wilcoxon") & (rates["measure"] == "AP")]
    m = props[props["measure"] == "AP"].merge(r, on=["design", "measure", "topics"])
    balance = "rank balance"
    ax = _axes(None, (5.5, 3.4))
    colors = series_colors(list(dict.fromkeys(m["design"])))
    for d, g in m.groupby("design", sort=False):
        half = Z95 * g[f"{balance} se"]  # a lean is at least 0: its interval is cut there
        ax.errorbar(g[balance], g["rate"], xerr=[np.minimum(half, g[balance]), half], yerr=Z95 * g["se"], fmt="o",
                    color=colors[d], ms=4, capsize=2, label=escape.mpl(f"{d} design"))  # fmt: skip
        for _, row in g.iterrows():
            ax.annotate(f"{row['topics']:,}", (row[balance], row["rate"]), textcoords="offset points",
                        xytext=(4, 3), fontsize=9)  # fmt: skip
    ax.axhline(level, color=GREY, lw=0.8)
    ax.set_xlabel(escape.mpl(f"{balance} of the null differences (root mean square over pairs)"))
    ax.set_ylabel(escape.mpl(f"{_name('wilcoxon')}: type I error"))
    _legend(ax, below=None, loc="upper left")
    return ax
