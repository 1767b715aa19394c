"""Figures of :mod:`irrepro.design`: power and generalizability theory's E rho^2 and Phi against the
number of topics."""

from __future__ import annotations

import numpy as np

from .. import escape
from ..stats import Z95
from ._base import TEST_STYLE, WIDTH, _axes, _legend, _names, series_colors, styled


@styled
def plot_power_curve(curves, *, closed=None, target: float | None = 0.8, ax=None):
    """Simulated power (+-1.96 Monte Carlo se) against the number of topics, the closed forms dashed.

    Parameters
    ----------
    curves : PowerCurve or sequence of PowerCurve
        Simulated curves (:func:`irrepro.design.simulated_power`).
    closed : mapping of str to (array_like, array_like), optional
        label -> (topic-set sizes, power) (:func:`irrepro.design.power_closed_form`).
    target : float, optional
        The power wanted; None draws no line.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax, (WIDTH * 0.62, 3.2))
    curves = [curves] if hasattr(curves, "power") else list(curves)
    closed = closed or {}
    labels = [c.test if c.correction in ("none", "tukey") else f"{c.test}, {c.correction}" for c in curves]
    labels = [lab + (f", m = {c.systems}" if c.systems > 2 else "") for lab, c in zip(labels, curves)]
    shown = _names([*labels, *closed])
    for c, label in zip(curves, shown):
        colour, marker = TEST_STYLE.get(c.test, ("k", "."))
        ax.plot(c.n_topics, c.power, color=colour, marker=marker, ms=3, lw=1, label=label)
        ax.fill_between(c.n_topics, np.clip(c.power - Z95 * c.se, 0, 1), np.clip(c.power + Z95 * c.se, 0, 1),
                        color=colour, alpha=0.15, lw=0)  # fmt: skip
    for k, ((n, p), label) in enumerate(zip(closed.values(), shown[len(curves) :])):
        # the closed forms dashed, in greys (the palette's colours are the tests')
        ax.plot(n, p, color=str(round(0.15 + 0.2 * (k % 4), 2)), ls="--", lw=1.2, label=label)
    if target is not None:
        ax.axhline(target, color="0.4", lw=0.8, ls=":")
    ax.set(xlabel="topics", ylabel="power", ylim=(0, 1))
    _legend(ax, title="bands: ±1.96 Monte Carlo se")
    return ax


@styled
def plot_reliability(studies, *, ax=None):
    """E rho^2 (solid) and Phi (dashed) against the number of topics, a colour per pilot, 0.95 dotted.

    Parameters
    ----------
    studies : mapping of str to DStudy
        label -> :func:`irrepro.design.d_study` of a pilot.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax, (WIDTH * 0.62, 3.2))
    colours = series_colors([(label, k) for label in studies for k in ("Erho2", "Phi")])
    shown = _names([f"{label}: {c}" for label in studies for c in ("Eρ²", "Φ")])
    for k, (label, d) in enumerate(studies.items()):
        ax.plot(d.n_topics, d.erho2, color=colours[label, "Erho2"], lw=1.2, label=shown[2 * k])
        ax.plot(d.n_topics, d.phi, color=colours[label, "Phi"], lw=1.2, ls="--", label=shown[2 * k + 1])
    ax.axhline(0.95, color="0.4", lw=0.8, ls=":")
    low = min((float(np.nanmin(np.r_[d.erho2, d.phi])) for d in studies.values()), default=0.0)
    ax.set(xlabel="topics", ylabel="coefficient", ylim=(max(0.0, np.floor(low * 10) / 10), 1))
    _legend(ax, title="solid: Eρ², dashed: Φ")
    return ax


def save_power_curve(file, curves, *, closed=None, target: float | None = 0.8, title: str = "") -> None:
    """:func:`plot_power_curve` on a new figure (Agg unless another backend is in use), written as a PNG.

    Parameters
    ----------
    file : str, Path or binary file object
    curves, closed, target
        As :func:`plot_power_curve` takes them.
    title : str
        A title above the axes ("" for none).
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH * 0.62, 3.2))
    try:
        plot_power_curve(curves, closed=closed, target=target, ax=ax)
        if title:
            ax.set_title(escape.mpl(title))
        fig.savefig(file, dpi=120, bbox_inches="tight", format="png")
    finally:
        plt.close(fig)
