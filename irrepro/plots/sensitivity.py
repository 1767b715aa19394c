"""Figures of Sakai's bootstrap tests (:mod:`irrepro.sensitivity`, :mod:`irrepro.significance`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import escape
from ._base import _axes, _axes_row, _legend, _names, series_colors, styled


@styled
def plot_asl_curves(
    curves: Mapping[str, np.ndarray], *, alpha: float = 0.05, colors: Mapping | None = None, ax=None
):
    """Sorted achieved significance levels of all pairs (Sakai 2006, Figures 7 and 8)."""
    ax = _axes(ax, (6, 4))
    colors = series_colors(curves) if colors is None else colors
    for (label, asl), shown in zip(curves.items(), _names(curves)):
        asl = np.sort(np.asarray(asl, dtype=np.float64))
        ax.plot(np.arange(1, len(asl) + 1), asl, color=colors.get(label), label=shown)
    ax.axhline(alpha, ls="--", color="0.5", lw=1)
    ax.set_xlabel("pairs sorted by ASL")
    ax.set_ylabel("achieved significance level")
    _legend(ax)
    return ax


@styled
def plot_significance_matrix(
    pairs, difference, significant, order, *, labels: Sequence[str] | None = None, ax=None
):
    """Which pairs of systems differ significantly, as a systems x systems matrix."""
    pairs = np.asarray(pairs)
    order = np.asarray(order)
    S = len(order)
    ax = _axes(ax, (5, 5))
    pos = np.empty(S, dtype=int)
    pos[order] = np.arange(S)
    mat = np.full((S, S), np.nan)
    val = np.where(np.asarray(significant, dtype=bool), np.sign(difference), 0.0)
    i, j = pairs[:, 0], pairs[:, 1]
    mat[pos[i], pos[j]] = val
    mat[pos[j], pos[i]] = -val
    ax.imshow(mat, cmap="coolwarm_r", vmin=-1.5, vmax=1.5, interpolation="nearest")
    ax.set(xlabel="system (rank)", ylabel="system (rank)")
    if labels is not None:
        short = escape.short_names(labels)  # long names shortened, none two alike
        names = [escape.mpl(short[k]) for k in order]
        ax.set_xticks(range(S), names, rotation=90)
        ax.set_yticks(range(S), names)
    return ax


@styled
def plot_asl_panels(paired: Mapping, unpaired: Mapping, *, colors: Mapping | None = None, axes=None):
    """Sakai's (2006) Figures 7 and 8 side by side: paired (by measure) and unpaired (by name) ASL curves.

    Parameters
    ----------
    paired, unpaired : mapping
        Name -> ``BootstrapResult`` (``MeasureStudy.paired`` / ``.unpaired``).
    colors : mapping, optional
        Name -> colour, the same in both panels (default: :func:`series_colors`).
    axes : sequence of two matplotlib Axes, optional

    Returns
    -------
    numpy.ndarray of matplotlib Axes
    """
    axes = _axes_row(axes, 2, (11, 4.6), sharey=True)
    colors = series_colors([*paired, *[n for n in unpaired if n not in paired]]) if colors is None else colors
    panels = [("paired test (Figure 7)", paired, True), ("unpaired test (Figure 8)", unpaired, False)]
    for ax, (title, tests, by_measure) in zip(axes, panels):
        curves = {(t.measure if by_measure else name): t.asl_curve() for name, t in tests.items()}
        cols = {(t.measure if by_measure else name): colors.get(name) for name, t in tests.items()}
        plot_asl_curves(curves, colors=cols, ax=ax)
        ax.set_xlabel("system pairs sorted by ASL")
        ax.set_ylabel("")
        ax.set_title(title)
        ax.get_legend().remove()
        _legend(ax, below=34, ncol=2)
    axes[0].set_ylabel("achieved significance level")
    return axes


@styled
def plot_stability(stability: Mapping, *, colors: Mapping | None = None, title: str = "", ax=None):
    """Sakai's (2006) stability method (Figures 9 and 10): minority rate against ties, per measure.

    Parameters
    ----------
    stability : mapping
        Name -> ``Stability`` (``MeasureStudy.stability``).
    colors : mapping, optional
        Name -> colour (default: :func:`series_colors`).
    title : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax, (6.5, 4.5))
    colors = series_colors(stability) if colors is None else colors
    for (name, st), shown in zip(stability.items(), _names(stability)):
        ax.plot(st.prop_ties, st.minority_rate, marker="o", ms=3, color=colors.get(name), label=shown)
    ax.set_xlabel("proportion of ties (PT)")
    ax.set_ylabel("minority rate (MR)")
    ax.set_title(escape.mpl(title))
    _legend(ax)
    return ax


@styled
def plot_lower_triangle(matrix, *, fmt: str = ".2f", label: str = "", title: str = "", ax=None, **heatmap):
    """A square table of pairwise values as an annotated heat map of its lower triangle (Sakai 2006).

    Parameters
    ----------
    matrix : pandas.DataFrame
        The table; its index and columns label the axes.
    fmt : str
        Format of the annotations.
    label, title : str
        The colour bar's label and the title.
    ax : matplotlib Axes, optional
    **heatmap
        Passed to ``seaborn.heatmap`` (``cmap``, ``vmin``, ``vmax``).

    Returns
    -------
    matplotlib Axes
    """
    import seaborn as sns

    ax = _axes(ax, (6, 4.8))
    mask = np.triu(np.ones_like(matrix, dtype=bool), k=1)
    heatmap.setdefault("xticklabels", _names(matrix.columns))  # drawn literally, kept apart
    heatmap.setdefault("yticklabels", _names(matrix.index))
    sns.heatmap(
        matrix, mask=mask, annot=True, fmt=fmt, ax=ax, cbar_kws={"label": escape.mpl(label)}, **heatmap
    )
    ax.set_title(escape.mpl(title))
    # labels turned about their right end, so each ends under its column
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    ax.set_xticks(ax.get_xticks(), ticks, rotation=45, ha="right", rotation_mode="anchor")
    return ax
