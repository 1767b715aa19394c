"""Figures of reproducibility and replicability measures (:mod:`irrepro.reproduce`): the effect
level and the p-values, each with its topic-bootstrap interval."""

from __future__ import annotations

import numpy as np

from .. import escape
from ._base import GREY, _axes_row, _legend, _names, series_colors, styled

#: The panels of :func:`plot_reproduction`: statistic -> (x label, reference lines).
_PANELS = {
    "ER": ("effect ratio ER", (0.0, 1.0)),
    "DeltaRI": ("\u0394RI", (0.0,)),
    "p-value": ("p-value, orig. vs repro.", ()),
}


@styled
def plot_reproduction(frame, *, axes=None):
    """The effect ratio, Delta RI and p-values of a reproduction with their intervals, a row per measure.

    Parameters
    ----------
    frame : pandas.DataFrame
        :meth:`irrepro.reproduce.Reproduction.to_frame`'s long table.
    axes : sequence of matplotlib Axes, optional
        Three axes (None: a new row of three).

    Returns
    -------
    numpy.ndarray of matplotlib Axes
    """
    f = frame[frame["statistic"].isin(list(_PANELS))]
    measures = list(dict.fromkeys(f["measure"]))
    experiments = list(dict.fromkeys(f["experiment"]))
    short = dict(zip(experiments, escape.short_names(experiments)))  # no two experiments alike
    axes = _axes_row(axes, len(_PANELS), (10, 0.5 * len(measures) + 1.6), sharey=True)
    y = {m: k for k, m in enumerate(measures)}
    for ax, (stat, (label, refs)) in zip(axes, _PANELS.items()):
        part = f[f["statistic"] == stat]
        keys = list(dict.fromkeys(zip(part["experiment"], part["run"])))
        names = [_series(short[e], r, len(experiments) > 1, stat == "p-value") for e, r in keys]
        colors = series_colors(names)
        offsets = np.linspace(-0.2, 0.2, len(keys)) if len(keys) > 1 else np.zeros(1)
        for (e, r), name, dy in zip(keys, names, offsets):
            g = part[(part["experiment"] == e) & (part["run"] == r)]
            ys = np.array([y[m] for m in g["measure"]], dtype=float) - dy
            v, lo, hi = (g[c].to_numpy(dtype=float) for c in ("value", "low", "high"))
            ax.errorbar(v, ys, xerr=[np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)], fmt="o", ms=4,
                        capsize=2, color=colors[name], label=name)  # fmt: skip
        for x in refs:
            ax.axvline(x, color=GREY, lw=0.8, ls=":")
        if stat == "p-value":
            ax.axvline(0.05, color="k", lw=0.8, ls="--")
        ax.set_xlabel(label)
        if len(keys) > 1:
            _legend(ax, below=32, ncols=1)
    axes[0].set_yticks(range(len(measures)), _names(measures))
    axes[0].set_ylim(len(measures) - 0.5, -0.5)
    return axes


def _series(experiment: str, run: str, several: bool, per_run: bool) -> str:
    """A series' label: the run (p-values), the experiment (its label) when there are several."""
    parts = ([experiment] if several else []) + ([run] if per_run else [])
    return escape.mpl(", ".join(parts) or "effect")
