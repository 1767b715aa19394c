"""The known-truth chapter's figures of our rates beside Urbano et al.'s: type I error against alpha
(:func:`type1_figure`, their Figures 2 and 3) and power or type III error against delta
(:func:`by_delta_figure`, their Figure 4), and the rows of its Monte Carlo check (:func:`mc_rows`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["type1_figure", "by_delta_figure", "mc_rows"]


def type1_figure(ours: pd.DataFrame, theirs: pd.DataFrame, *, tails: int, measures: Sequence[str],
                 sizes: Sequence[int], tests: Sequence[str]):  # fmt: skip
    """Type I error against alpha per measure (rows) and topic-set size (columns), ours (``ours``:
    the long frames of :meth:`PValues.frame` with a ``measure`` column) and theirs (``measure,
    topics, test, tails, alpha, value``), log-log."""
    from .. import plots

    fig, axes = plots.panels(len(measures), len(sizes), height=2.4, sharey=True)
    for row, m in zip(axes, measures):
        o = ours[(ours["measure"] == m) & ours["test"].isin(tests)]
        plots.plot_rates_by_alpha(o, theirs[theirs["measure"] == m], tails=tails, form="loglog", axes=row,
                                  ylabel=f"{m}: type I error", legend=m == measures[0])  # fmt: skip
    return fig


def by_delta_figure(ours: pd.DataFrame, theirs: pd.DataFrame, kind: str, *, tails: int,
                    measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str]):  # fmt: skip
    """Power or type III error (``kind``) against delta, one panel per measure and topic-set size,
    ours (with a ``measure`` column) and theirs (``kind, measure, topics, test, tails, delta,
    value``)."""
    from .. import plots

    fig, axes = plots.panels(len(sizes), len(measures), height=2.8, squeeze=False)
    for row, n in zip(axes, sizes):
        for ax, m in zip(row, measures):
            o = ours[(ours["measure"] == m) & (ours["topics"] == n) & ours["test"].isin(tests)]
            plots.plot_power_by_delta(o, theirs[(theirs["kind"] == kind) & (theirs["measure"] == m) & (theirs["topics"] == n) & (theirs["tails"] == tails)], tails=tails,
                                      rate="rate" if kind == "power" else "type3", ax=ax, title=f"{m}, {n} topics",
                                      legend=(m, n) == (measures[-1], sizes[0]))  # fmt: skip
    return fig


def mc_rows(label: str, rates: pd.Series, ses: pd.Series, n: int, target: float) -> list[dict]:
    """One row per test of an experiment's Monte Carlo check: its rate, trials, clustered se, the
    target and the Monte Carlo error a 5% rate would have with that design effect."""
    from ._pvalues import mc_error_at

    return [
        {
            "experiment": label,
            "test": t,
            "rate": rates[t],
            "trials": n,
            "se": ses[t],
            "target": target,
            "MC error of a 5% rate": mc_error_at(rates[t], ses[t], n),
        }  # fmt: skip
        for t in rates.index
    ]
