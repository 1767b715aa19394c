"""Figures of Cormack & Lynam's corpus bootstrap (:mod:`irrepro.corpus_bootstrap`)."""

from __future__ import annotations

import numpy as np

from .. import escape
from ..corpus_bootstrap import Intervals
from ..stats import Z95
from ._base import _axes

__all__ = ["plot_run_intervals", "plot_normalized_differences", "plot_topic_differences"]


def plot_run_intervals(ax, iv: Intervals, other=None, title: str = "", transform=None):
    """Every run's estimate with its interval (Cormack & Lynam 2006, Figures 3 and 4).

    The paper's Figures 3 and 4 (Cormack & Lynam 2006): every run's estimate (x) with its
    interval (``iv``, arrays of shape (systems,)), runs sorted by the estimate; ``other`` (e.g.
    the other half's value, o) drawn over it when given. ``transform`` maps the values before
    drawing (``irrepro.stats.expit`` for L-MAP).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    iv : irrepro.corpus_bootstrap.Intervals
        Per run, (systems,).
    other : array_like, optional
        Values drawn over the intervals (the other half's).
    title : str
        The title, drawn literally.
    transform : callable, optional
        Maps the values before drawing.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    tf = transform or (lambda v: v)
    order = np.argsort(iv.estimate, kind="stable")
    xs = np.arange(len(order))
    ax.vlines(xs, tf(iv.lower[order]), tf(iv.upper[order]), color="0.6", lw=1.5)
    ax.scatter(xs, tf(iv.estimate[order]), marker="x", s=12, color="k", label="estimate (x)", zorder=3)
    if other is not None:
        ax.scatter(
            xs,
            tf(np.asarray(other)[order]),
            marker="o",
            s=10,
            facecolors="none",
            edgecolors="C3",
            label="other half (o)",
            zorder=3,
        )
    ax.set_title(escape.mpl(title))
    ax.set_xlabel("runs (sorted)")
    return ax


def plot_normalized_differences(
    x, *, clip: tuple[float, float], step: float = 0.25, xlabel: str = "", title: str = "", ax=None
):
    """Histogram of normalised differences (Cormack & Lynam 2006, Figures 1 and 2).

    Histogram of normalised differences (Cormack & Lynam's (2006) Figures 1 and 2: the other
    half's AP minus the interval's centre over its half-width, so that inside is [-1, 1]).

    Parameters
    ----------
    x : array_like
        The normalised differences (``SplitValidation.normalized_difference``).
    clip : tuple of float
        (low, high): values outside are drawn at the ends; the bins of width ``step`` span it.
    step : float
        Bin width.
    xlabel, title : str
        Axis label and title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on, with dashed lines at -1 and 1.
    """
    ax = _axes(ax, (7, 3.2))
    lo, hi = clip
    ax.hist(
        np.clip(np.asarray(x, dtype=np.float64), lo, hi), bins=np.arange(lo, hi + step, step), color="0.4"
    )
    ax.axvline(-1, color="C3", ls="--")
    ax.axvline(1, color="C3", ls="--")
    ax.set_xlabel(escape.mpl(xlabel))
    if title:
        ax.set_title(escape.mpl(title))
    return ax


def plot_topic_differences(
    d, sd_separate, sd_paired, *, interval=None, ylabel: str = "", title: str = "", ax=None
):
    """Per-topic differences of two runs with their intervals (Cormack & Lynam 2006).

    Per-topic differences of two runs (points, topics sorted by the difference) with their 95%
    intervals from separate and from paired bootstraps (d +- 1.96 sd, side by side) and, when given,
    a combined interval (``interval``: an object with ``lower`` and ``upper``, e.g.
    :func:`irrepro.stats.meta_analysis`'s fixed effect) as a band (Cormack & Lynam 2006, section 6).

    Parameters
    ----------
    d, sd_separate, sd_paired : array_like
        Per topic: the difference and the standard deviations of the two bootstraps.
    interval : object, optional
        The fixed-effect 95% interval (``lower``, ``upper``).
    ylabel, title : str
        The y axis label and the title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (9, 3.5))
    d = np.asarray(d, dtype=np.float64)
    t_order = np.argsort(d)
    xs = np.arange(len(t_order))
    for off, kind, sd, col in ((-0.15, "separate", sd_separate, "0.6"), (0.15, "paired", sd_paired, "C0")):
        sd = np.asarray(sd, dtype=np.float64)[t_order]
        ax.vlines(
            xs + off,
            d[t_order] - Z95 * sd,
            d[t_order] + Z95 * sd,
            color=col,
            lw=1.5,
            label=f"{kind} bootstrap",
        )
    ax.scatter(xs, d[t_order], s=10, color="k", zorder=3)
    ax.axhline(0, color="k", lw=0.5)
    if interval is not None:
        ax.axhspan(interval.lower, interval.upper, color="C1", alpha=0.3, label="fixed-effect 95% CI")
    ax.set_xlabel("topics (sorted by d)")
    ax.set_ylabel(escape.mpl(ylabel))
    ax.set_title(escape.mpl(title))
    ax.legend(fontsize=8, loc="upper left")
    return ax
