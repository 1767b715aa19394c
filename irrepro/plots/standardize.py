"""Figures of Webber, Moffat & Zobel's score standardization (:mod:`irrepro.standardize`) and of score matrices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import escape
from ._base import GREY, PALETTE, _axes, _axes_row, _legend, _name, _names, series_colors, styled


def _ordinal(n: int) -> str:
    """``n`` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@styled
def plot_score_matrix(scores, measure: str = "", *, vmax: float | None = None, ax=None):
    """A (systems, topics) score matrix as a grey-scale heat map, best systems and easiest topics first.

    Parameters
    ----------
    scores : array_like
        (systems, topics).
    measure : str
        The colour bar's label.
    vmax : float, optional
        The top of the grey scale (None: the largest score).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    x = np.asarray(scores, dtype=np.float64)
    ax = _axes(ax, (7.5, max(2.5, min(8, 0.12 * x.shape[0] + 1.5))))
    order_s = np.argsort(-x.mean(axis=1), kind="stable")
    order_t = np.argsort(-x.mean(axis=0), kind="stable")
    top = max(1e-9, float(np.nanmax(x))) if vmax is None else vmax
    im = ax.imshow(x[order_s][:, order_t], cmap="gray", aspect="auto", vmin=0, vmax=top)
    measure = _name(measure)
    ax.set(xlabel="topic (easiest first)", ylabel=f"system (best mean {measure} first)".replace("  ", " "))
    ax.figure.colorbar(im, ax=ax, label=measure)
    return ax


@styled
def plot_scatter(x, y, *, xlabel: str = "", ylabel: str = "", ax=None):
    """One value per system on each axis (e.g. raw against standardized mean scores)."""
    ax = _axes(ax, (5, 4))
    ax.scatter(np.asarray(x), np.asarray(y), s=14, color=PALETTE[0])
    ax.set(xlabel=escape.mpl(xlabel), ylabel=escape.mpl(ylabel))
    return ax


@styled
def plot_false_positives(summaries: Mapping[str, Mapping[str, float]], *, alpha: float = 0.05, ax=None):
    """Share of systems significantly different from themselves, per form of the scores."""
    ax = _axes(ax, (5, 4))
    forms = list(summaries)
    xs = np.arange(len(forms))
    for dx, key, color, label in (
        (-0.2, "FP mean", PALETTE[0], "mean over partitions"),
        (0.2, "FP high", PALETTE[1], "upper end of 95% range"),
    ):
        ax.bar(xs + dx, [summaries[f][key] for f in forms], width=0.4, color=color, label=label)
    ax.set_xticks(xs, _names(forms))
    ax.axhline(alpha, color="k", lw=0.8, ls="--")
    ax.set_ylabel("share of systems significantly\ndifferent from themselves")
    _legend(ax)
    return ax


@styled
def plot_mean_intervals(mean, lower, upper, *, highlight: int | None = None, ax=None):
    """Every system's mean with its interval, best first (Webber, Moffat & Zobel 2008, Figure 2).

    Parameters
    ----------
    mean, lower, upper : array_like
        Per system: the mean and its interval (e.g. :func:`irrepro.standardize.mean_intervals`).
    highlight : int, optional
        The rank (1 = best) drawn in vermillion, labelled e.g. "13th run".
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (7, 3.5))
    m, lo, hi = (np.asarray(v, dtype=np.float64) for v in (mean, lower, upper))
    order = np.argsort(-m)
    yerr = [m[order] - lo[order], hi[order] - m[order]]
    ax.errorbar(np.arange(1, len(m) + 1), m[order], yerr=yerr, fmt=".", ms=3, lw=0.6, color=GREY)
    if highlight is not None:
        k = order[highlight - 1]
        label = f"{_ordinal(highlight)} run"
        ax.errorbar(
            [highlight], [m[k]], yerr=[[m[k] - lo[k]], [hi[k] - m[k]]], fmt="o", color=PALETTE[3], label=label
        )
        _legend(ax)
    return ax


@styled
def plot_score_histogram(scores, *, bins: int = 20, range: tuple[float, float] = (0, 1), color=GREY, ax=None):
    """Histogram of all the scores of a matrix (Webber, Moffat & Zobel 2008, Figure 3).

    Parameters
    ----------
    scores : array_like
        Any shape (flattened).
    bins : int
        Number of bins over ``range``.
    range : tuple of float
        The scores' range (a measure not bounded by [0, 1] needs its own).
    color : matplotlib colour
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (4, 3))
    ax.hist(np.ravel(np.asarray(scores, dtype=np.float64)), bins=bins, range=range, color=color)
    return ax


@styled
def plot_percentile_curves(
    percentiles, *, labels: Sequence[str], references: Mapping[str, float] | None = None, ax=None
):
    """Percentiles of a statistic against a size on a log scale (Webber, Moffat & Zobel 2008, Figure 4).

    Parameters
    ----------
    percentiles : pandas.DataFrame
        Sizes x percentiles.
    labels : sequence of str
        One label per column.
    references : mapping, optional
        Label -> value of a reference line.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (7, 3.5))
    colors = series_colors(labels)
    for col, lab in zip(percentiles.columns, labels):
        ax.plot(
            percentiles.index, percentiles[col], marker="o", ms=3, color=colors[lab], label=escape.mpl(lab)
        )
    for (lab, value), ls, grey in zip((references or {}).items(), ("--", ":", "-."), ("0.2", "0.5", "0.7")):
        ax.axhline(value, color=grey, ls=ls, lw=1, label=escape.mpl(lab))
    ax.set_xscale("log")
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))  # 1, 2, 5, 10, 20, ...
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    _legend(ax)
    return ax


@styled
def plot_partition_summaries(summaries, *, short: Mapping[str, str], kind: str = "dRMSE", axes=None):
    """dRMSE or false positives per metric and form, a panel per setting (Webber et al. 2008, Figures 5-6).

    Parameters
    ----------
    summaries : pandas.DataFrame
        Rows with setting, metric, form and ``PartitionResult.summary()``'s columns.
    short : mapping
        Form -> its short name in the tick labels.
    kind : {"dRMSE", "FP"}
        The dRMSE's mean with its 95% interval, or the false-positive rate's upper end (bars).
    axes : sequence of matplotlib Axes, optional
        One per setting.

    Returns
    -------
    numpy.ndarray of matplotlib Axes
    """
    groups = list(summaries.groupby("setting", sort=False))
    axes = _axes_row(axes, len(groups), (10, 2.6 * len(groups)), vertical=True)
    colors = series_colors(summaries["form"].unique())
    for ax, (setting, g) in zip(axes, groups):
        xs = np.arange(len(g))
        for form in g["form"].unique():
            at = (g["form"] == form).to_numpy()
            f = g[at]
            if kind == "dRMSE":
                yerr = [f["dRMSE mean"] - f["dRMSE low"], f["dRMSE high"] - f["dRMSE mean"]]
                ax.errorbar(
                    xs[at], f["dRMSE mean"], yerr=yerr, fmt="o", color=colors[form], label=escape.mpl(form)
                )
            else:
                ax.bar(xs[at], f["FP high"], color=colors[form], label=escape.mpl(form))
        if kind == "dRMSE":
            ylabel = "dRMSE between\nrandom halves"
        else:
            ax.axhline(0.05, color="k", lw=0.8, ls="--")
            ylabel = "false-positive rate\n(upper end of 95%)"
        lab = [escape.mpl(m) + "\n" + escape.mpl(short[f]) for m, f in zip(g["metric"], g["form"])]
        ax.set_xticks(xs, lab, rotation=90)
        ax.set(title=escape.mpl(setting), ylabel=ylabel)
        _legend(ax)
    return axes


@styled
def plot_grouped_bars(frame, *, ax=None):
    """A bar per cell of frame, one group per column (Webber, Moffat & Zobel 2008, Figure 7).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows x groups.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (6, 3.5))
    frame.T.plot.bar(ax=ax, rot=0, color=list(series_colors(frame.index).values()))
    _legend(ax)
    return ax
