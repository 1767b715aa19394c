"""Figures of Sanderson & Zobel's topic-split experiments (:mod:`irrepro.topic_split`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import escape
from ..topic_split import GrowthFit, SwapExperiment, growth_fit
from ._base import _axes, _axes_row, _name

__all__ = [
    "plot_error_rates",
    "plot_pooled_error_rates",
    "plot_error_rates_by_effort",
    "plot_map_sd",
    "plot_dependence",
]


def plot_error_rates(
    result: SwapExperiment,
    *,
    filter: str = "none",
    kind: str = "relative",
    bins: Sequence[int] | None = None,
    fit: GrowthFit | None = None,
    at: int = 50,
    min_trials: int = 20,
    ax=None,
):
    """Error rate against topic-set size (Sanderson & Zobel 2005, Figures 1-6 and 9-12).

    Sanderson & Zobel's (2005) Figures 1-6 and 9-12: error rate against topic-set size, one
    line per bin (measured points solid, GROWTH projection to ``at`` topics dashed), with the 5%
    line. Points with fewer than ``min_trials`` trials are not drawn (nor used by the default
    fit, :func:`irrepro.topic_split.growth_fit`).

    Parameters
    ----------
    result : irrepro.topic_split.SwapExperiment
        The experiment.
    filter : str
        The significance filter of the pairs counted.
    kind : str
        "relative" or "absolute" difference bins.
    bins : sequence of int, optional
        The bins drawn (None: all).
    fit : irrepro.topic_split.GrowthFit, optional
        The projection (None: :func:`irrepro.topic_split.growth_fit`).
    at : int
        The topic-set size projected to.
    min_trials : int
        The fewest trials a point needs.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 4.2))
    rates = result.error_rates(filter, kind).where(result.counts(filter, kind) >= min_trials)
    fit = growth_fit(result, filter=filter, kind=kind, at=at, min_trials=min_trials) if fit is None else fit
    bins = range(len(rates)) if bins is None else bins
    grid = np.linspace(result.sizes[0], at, 60)
    drawn = 0
    for b in bins:
        row = rates.iloc[b]
        if row.notna().sum() == 0:
            continue
        drawn += 1
        (line,) = ax.plot(result.sizes, row.to_numpy(), marker=".", lw=1, label=escape.mpl(rates.index[b]))
        if np.isfinite(fit.projected[b]):
            ax.plot(grid, fit.predict(grid)[b], ls="--", lw=0.8, color=line.get_color())
    ax.axhline(0.05, color="k", lw=0.8, ls=":")
    ax.set_xlabel("topic-set size")
    ax.set_ylabel("error rate")
    ax.set_xlim(0, at + 1)
    ax.set_ylim(0, None)
    if drawn:
        ax.legend(title=f"{kind} difference", fontsize=7, ncol=2, title_fontsize=8)
    else:  # (small run sets: no bin reaches min_trials at any size)
        ax.text(
            0.5,
            0.5,
            f"no difference bin has {min_trials} trials at any size",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=8,
        )
    return ax


def plot_pooled_error_rates(
    result: SwapExperiment, filters: Mapping[str, str], *, kind: str = "relative", bins=slice(2, 6), ax=None
):
    """Error rate against topic-set size, bins pooled, one line per filter.

    Error rate against topic-set size over several bins pooled (errors and trials summed), one
    line per filter (Sanderson & Zobel 2005, section 3: t vs sign vs Wilcoxon); sizes without a
    trial are not drawn.

    Parameters
    ----------
    result : SwapExperiment
        The experiment.
    filters : mapping
        Label -> filter of ``result.filters``.
    kind : str
        "relative" or "absolute" difference bins.
    bins : slice or sequence of int
        The bins pooled.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 4))
    for label, flt in filters.items():
        f, k = result._fk(flt, kind)
        e = result.errors[f, k][:, bins].sum(1)
        t = result.trials[f, k][:, bins].sum(1)
        ax.plot(result.sizes, np.where(t > 0, e / np.maximum(t, 1), np.nan), marker=".", label=_name(label))
    ax.set_xlabel("topic-set size")
    ax.legend()
    return ax


def plot_error_rates_by_effort(results: Mapping[str, tuple], *, bins: Sequence[int] = (2, 5), axes=None):
    """Error rate against topic-set size and assessor effort (Sanderson & Zobel 2005, Figure 7).

    Sanderson & Zobel's (2005) Figure 7: error rate of difference bins against topic-set size
    (left) and against assessor effort (right: sizes times the cost of a topic), per measure.

    Parameters
    ----------
    results : mapping
        Label -> (SwapExperiment, cost of one of its topics).
    bins : sequence of int
        The relative-difference bins drawn (solid, dashed, ...).
    axes : sequence of two matplotlib Axes, optional
        Where to draw (a new figure, the y axis shared, when None).

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        The two axes.
    """
    axes = _axes_row(axes, 2, (11, 4), sharey=True)
    for name, (res, cost) in results.items():
        for b, ls in zip(bins, ("-", "--", ":", "-.")):
            e = res.error_rates("none").iloc[b]
            label = f"{_name(name)}, {escape.mpl(e.name)}"
            axes[0].plot(res.sizes, e, ls=ls, marker=".", label=label)
            axes[1].plot(res.sizes * cost, e, ls=ls, marker=".", label=label)
    axes[0].set_xlabel("topic-set size")
    axes[1].set_xlabel("assessor effort (depth-100 topics)")
    axes[0].set_ylabel("error rate")
    axes[0].legend(fontsize=8)
    return axes


def plot_map_sd(sd, *, threshold: float | None = 0.01, ax=None):
    """The standard deviation of MAP against the number of topics (Sanderson & Zobel 2005).

    The standard deviation of MAP against the number of topics (Sanderson & Zobel 2005, section
    5): ``sd`` is :func:`irrepro.topic_split.map_sd`'s frame (topics, sd, sd_p05, sd_p95), drawn as
    a line with its 5-95% band and a dotted line at ``threshold``.

    Parameters
    ----------
    sd : pandas.DataFrame
        Columns topics, sd, sd_p05, sd_p95.
    threshold : float, optional
        The dotted line (None: none).
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 3.5))
    ax.plot(sd["topics"], sd["sd"], marker=".")
    ax.fill_between(sd["topics"], sd["sd_p05"], sd["sd_p95"], alpha=0.2)
    if threshold is not None:
        ax.axhline(threshold, color="k", ls=":", lw=0.8)
    ax.set_xlabel("topics in the sample")
    ax.set_ylabel("sd of MAP (mean over runs)")
    return ax


def plot_dependence(dep, sizes: Sequence[int], *, title: str = "", ax=None):
    """Mean error by the rank of a pair's trials (Sanderson & Zobel 2005, Figure 8).

    Sanderson & Zobel's (2005) Figure 8: mean error by the rank of a pair's trials sorted by the
    set-1 difference, one line per topic-set size (``SwapExperiment.dependence()``'s rows; sizes
    it does not hold are skipped).

    Parameters
    ----------
    dep : pandas.DataFrame
        Sizes x trial ranks.
    sizes : sequence of int
        The sizes drawn.
    title : str
        The title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 4))
    for n in [s for s in sizes if s in dep.index]:
        ax.plot(dep.columns, dep.loc[n].to_numpy(), label=str(n))
    ax.set_xlabel(f"trial rank by set-1 difference (of {dep.shape[1]} per pair)")
    ax.set_ylabel("mean error")
    ax.set_title(escape.mpl(title))
    ax.legend(title="topics")
    return ax
