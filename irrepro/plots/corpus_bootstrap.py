"""Figures of Cormack & Lynam's corpus bootstrap (:mod:`irrepro.corpus_bootstrap`)."""

from __future__ import annotations

import numpy as np

from .. import escape
from ..corpus_bootstrap import Intervals
from ..stats import Z95
from ._base import GREY, PALETTE, WIDTH, _axes, _axes_row, _legend, styled

#: The most runs one panel of :func:`plot_run_intervals` holds when it makes its own panels.
RUNS_PER_PANEL = 25


@styled
def plot_run_intervals(ax, iv: Intervals, other=None, title: str = "", transform=None, *, ylabel: str = ""):
    """Every run's estimate with its interval, sorted by the estimate (Cormack & Lynam 2006, Figures 3-4).

    Parameters
    ----------
    ax : matplotlib Axes or sequence of Axes, optional
        One axes, or one per consecutive group of runs (None: a panel per ``RUNS_PER_PANEL`` runs).
    iv : irrepro.corpus_bootstrap.intervals.Intervals
        Per run, (systems,).
    other : array_like, optional
        The other half's values: open circles inside the interval (bounds included), dots outside.
    title : str
        Of the first axes.
    transform : callable, optional
        Maps the values before drawing (``irrepro.stats.expit`` for L-MAP).
    ylabel : str

    Returns
    -------
    matplotlib Axes or numpy.ndarray of Axes
        ``ax``, or the new axes.
    """
    tf = transform or (lambda v: v)
    order = np.argsort(iv.estimate, kind="stable")
    n = len(order)
    if ax is None:
        rows = max(1, -(-n // RUNS_PER_PANEL))
        ax = _axes_row(None, rows, (WIDTH, 1.9 * rows + 0.6), vertical=True)
    axes = np.atleast_1d(ax)
    lo, hi, est = (np.asarray(tf(v[order]), dtype=np.float64) for v in (iv.lower, iv.upper, iv.estimate))
    if other is not None:
        oth = np.asarray(tf(np.asarray(other)[order]), dtype=np.float64)
        inside = iv.position(np.asarray(other))[order] == 0  # as Tables 3-4 count
    ranks = np.arange(1, n + 1)
    for a, idx in zip(axes, np.array_split(np.arange(n), len(axes))):
        a.vlines(ranks[idx], lo[idx], hi[idx], color=GREY, lw=3, label="interval")
        a.scatter(ranks[idx], est[idx], marker="x", s=16, color="k", label="estimate (x)", zorder=3)
        if other is not None:
            i_in, i_out = idx[inside[idx]], idx[~inside[idx]]
            a.scatter(ranks[i_in], oth[i_in], marker="o", s=18, facecolors="none", edgecolors=PALETTE[0],
                      label=f"other half inside ({int(inside.sum())} of {n})", zorder=4)  # fmt: skip
            a.scatter(ranks[i_out], oth[i_out], marker="o", s=18, color=PALETTE[3],
                      label=f"other half outside ({int((~inside).sum())})", zorder=4)  # fmt: skip
        a.set_ylabel(escape.mpl(ylabel))
        if len(idx):
            a.set_xlim(ranks[idx[0]] - 0.8, ranks[idx[-1]] + 0.8)
    axes[0].set_title(escape.mpl(title))
    axes[-1].set_xlabel("run (rank by estimate)")
    _legend(axes[-1], below=34)
    return ax


@styled
def plot_normalized_differences(
    x,
    *,
    clip: tuple[float, float],
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    ax=None,
):
    """Histogram of normalised differences, dashed at -1 and 1 (Cormack & Lynam 2006, Figures 1 and 2).

    Parameters
    ----------
    x : array_like
        The normalised differences (``SplitValidation.normalized_difference``).
    clip : tuple of float
        (low, high): values outside are drawn at the ends; bins of width 0.25 span it.
    xlabel, ylabel, title : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (7, 3.2))
    lo, hi = clip
    ax.hist(
        np.clip(np.asarray(x, dtype=np.float64), lo, hi), bins=np.arange(lo, hi + 0.25, 0.25), color="0.4"
    )
    for edge in (-1, 1):
        ax.axvline(edge, color=PALETTE[3], ls="--")
    ax.set_xlabel(escape.mpl(xlabel))
    ax.set_ylabel(escape.mpl(ylabel))
    if title:
        ax.set_title(escape.mpl(title))
    return ax


@styled
def plot_topic_differences(
    d, sd_separate, sd_paired, *, interval=None, ylabel: str = "", title: str = "", ax=None
):
    """Per-topic differences of two runs, sorted, with 95% intervals of separate and paired bootstraps.

    Parameters
    ----------
    d, sd_separate, sd_paired : array_like
        Per topic: the difference and the standard deviations of the two bootstraps.
    interval : object, optional
        A combined interval (``lower``, ``upper``) drawn as a band.
    ylabel, title : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (9, 3.5))
    d = np.asarray(d, dtype=np.float64)
    t_order = np.argsort(d)
    xs = np.arange(len(t_order))
    for off, kind, sd, col in (
        (-0.15, "separate", sd_separate, GREY),
        (0.15, "paired", sd_paired, PALETTE[0]),
    ):
        half = Z95 * np.asarray(sd, dtype=np.float64)[t_order]
        ax.vlines(
            xs + off, d[t_order] - half, d[t_order] + half, color=col, lw=1.5, label=f"{kind} bootstrap"
        )
    ax.scatter(xs, d[t_order], s=10, color="k", zorder=3)
    ax.axhline(0, color="k", lw=0.5)
    if interval is not None:
        ax.axhspan(interval.lower, interval.upper, color=PALETTE[1], alpha=0.3, label="fixed-effect 95% CI")
    ax.set_xlabel("topics (sorted by d)")
    ax.set_ylabel(escape.mpl(ylabel))
    ax.set_title(escape.mpl(title))
    _legend(ax, below=34, ncol=3)
    return ax
