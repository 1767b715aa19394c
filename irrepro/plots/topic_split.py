"""Figures of Sanderson & Zobel's topic-split experiments (:mod:`irrepro.topic_split`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import escape
from ..topic_split import GrowthFit, SwapExperiment, growth_fit
from ._base import PALETTE, _axes, _axes_row, _legend, _names, series_colors, styled


@styled
def plot_error_rates(
    result: SwapExperiment,
    *,
    filter: str | Mapping[str, str] = "none",
    kind: str = "relative",
    bins: Sequence[int] | slice | None = None,
    fit: GrowthFit | None = None,
    at: int = 50,
    min_trials: int = 20,
    ylabel: str = "error rate",
    title: str = "",
    legend: bool = True,
    ax=None,
):
    """Error rate against topic-set size, a line per bin or per filter (Sanderson & Zobel 2005).

    Parameters
    ----------
    result : irrepro.topic_split.SwapExperiment
    filter : str or mapping
        The significance filter of the pairs counted: a line per bin, its projection dashed; or
        label -> filter: a line per filter, errors and trials summed over ``bins``.
    kind : {"relative", "absolute"}
        The difference bins.
    bins : sequence of int or slice, optional
        The bins drawn, or (with a mapping ``filter``) the bins pooled (None: all).
    fit : irrepro.topic_split.GrowthFit, optional
        The projection to ``at`` topics (None: :func:`irrepro.topic_split.growth_fit`).
    at : int
    min_trials : int
        The fewest trials a bin's point needs to be drawn (and fitted). ``fit``, ``at``,
        ``min_trials`` and ``legend`` are of the line per bin (a mapping ``filter`` has a legend).
    ylabel, title : str
    legend : bool
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    if isinstance(filter, Mapping):  # a line per filter, the bins pooled
        ax = _axes(ax, (7, 4))
        colors, pool = series_colors(filter), slice(None) if bins is None else bins
        for (label, flt), shown in zip(filter.items(), _names(filter)):
            y = [result.pooled_error(flt, kind, pool, n) for n in result.sizes]
            ax.plot(result.sizes, y, marker=".", color=colors[label], label=shown)
        ax.set(xlabel="topic-set size", ylabel=escape.mpl(ylabel), title=escape.mpl(title))
        _legend(ax)
        return ax
    ax = _axes(ax, (7, 4.2))
    rates = result.error_rates(filter, kind).where(result.counts(filter, kind) >= min_trials)
    fit = growth_fit(result, filter=filter, kind=kind, at=at, min_trials=min_trials) if fit is None else fit
    bins = range(len(rates)) if bins is None or isinstance(bins, slice) else bins
    grid = np.linspace(result.sizes[0], at, 60)
    colors = series_colors(list(bins), ordered=True)  # the same bins: the same colours in every panel
    drawn = [b for b in bins if rates.iloc[b].notna().sum() > 0]
    for b in drawn:
        row = rates.iloc[b]
        ax.plot(
            result.sizes, row.to_numpy(), marker=".", lw=1, color=colors[b], label=escape.mpl(rates.index[b])
        )
        if np.isfinite(fit.projected[b]):
            ax.plot(grid, fit.predict(grid)[b], ls="--", lw=0.8, color=colors[b])
    ax.axhline(0.05, color="k", lw=0.8, ls=":")
    ax.set(
        xlabel="topic-set size",
        ylabel=escape.mpl(ylabel),
        xlim=(0, at + 1),
        ylim=(0, None),
        title=escape.mpl(title),
    )
    if drawn and legend:
        _legend(ax, title=f"{kind}\ndifference")
    elif not drawn:  # (small run sets: no bin reaches min_trials at any size)
        text = f"no difference bin has {min_trials} trials at any size"
        ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center")
    return ax


@styled
def plot_error_rates_by_effort(
    results: Mapping[str, tuple],
    *,
    bins: Sequence[int] = (2, 5),
    titles: Sequence[str] = ("per topic", "per unit of effort"),
    axes=None,
):
    """Error rate against topic-set size and assessor effort (sizes times a topic's cost; SZ 2005, Figure 7).

    Parameters
    ----------
    results : mapping
        Label -> (SwapExperiment, cost of one of its topics).
    bins : sequence of int
        The relative-difference bins drawn (solid, dashed, ...).
    titles : sequence of two str
    axes : sequence of two matplotlib Axes, optional

    Returns
    -------
    numpy.ndarray of matplotlib Axes
    """
    axes = _axes_row(axes, 2, (11, 3.6), sharey=True)
    colors = series_colors([(name, b) for name in results for b in bins])
    for (name, (res, cost)), shown in zip(results.items(), _names(results)):
        for b, ls in zip(bins, ("-", "--", ":", "-.")):
            e = res.error_rates("none").iloc[b]
            label = f"{shown}, {escape.mpl(e.name)}"
            axes[0].plot(res.sizes, e, ls=ls, marker=".", color=colors[name, b], label=label)
            axes[1].plot(res.sizes * cost, e, ls=ls, marker=".", color=colors[name, b], label=label)
    axes[0].set_xlabel("topic-set size")
    axes[1].set_xlabel("assessor effort (depth-100 topics)")
    axes[0].set_ylabel("error rate")
    for ax, title in zip(axes, titles):
        ax.set_title(escape.mpl(title))
    _legend(axes[-1], handles=axes[0].get_legend_handles_labels()[0])
    return axes


@styled
def plot_map_sd(sd, *, threshold: float = 0.01, ax=None):
    """The standard deviation of MAP against the number of topics, with its 5-95% band (SZ 2005).

    Parameters
    ----------
    sd : pandas.DataFrame
        :func:`irrepro.topic_split.map_sd`'s frame (topics, sd, sd_p05, sd_p95).
    threshold : float, optional
        The dotted line.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (7, 3.5))
    ax.plot(sd["topics"], sd["sd"], marker=".", color=PALETTE[0])
    ax.fill_between(sd["topics"], sd["sd_p05"], sd["sd_p95"], color=PALETTE[0], alpha=0.2)
    ax.axhline(threshold, color="k", ls=":", lw=0.8)
    ax.set_xlabel("topics in the sample")
    ax.set_ylabel("sd of MAP (mean over runs)")
    return ax


@styled
def plot_dependence(dep, sizes: Sequence[int], *, title: str = "", ax=None):
    """Mean error by the rank of a pair's trials by set-1 difference, a line per size (SZ 2005, Figure 8).

    Parameters
    ----------
    dep : pandas.DataFrame
        Sizes x trial ranks (``SwapExperiment.dependence()``).
    sizes : sequence of int
        The sizes drawn (those ``dep`` lacks skipped).
    title : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (7, 4))
    drawn = [s for s in sizes if s in dep.index]
    colors = series_colors(drawn, ordered=True)
    for n in drawn:
        ax.plot(dep.columns, dep.loc[n].to_numpy(), color=colors[n], label=str(n))
    ax.set_xlabel(f"trial rank by set-1 difference (of {dep.shape[1]} per pair)")
    ax.set_ylabel("mean error")
    ax.set_title(escape.mpl(title))
    _legend(ax, title="topics")
    return ax
