"""The known-truth chapter's figures of our rates beside Urbano et al.'s (their Figures 2-4)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def type1_figure(ours: pd.DataFrame, theirs: pd.DataFrame, *, tails: int, measures: Sequence[str],
                 sizes: Sequence[int], tests: Sequence[str]):  # fmt: skip
    """Type I error against alpha per measure (rows) and topic-set size (columns), ours beside theirs.

    Log-log panels with the diagonal (:func:`irrepro.plots.plot_rates_by_alpha`): our rates as lines
    with +-1.96 se bands, theirs as open markers.

    Parameters
    ----------
    ours : pandas.DataFrame
        :meth:`PValues.frame`'s rows with a ``measure`` column.
    theirs : pandas.DataFrame
        :func:`their_type1`.
    tails : {2, 1}
    measures : sequence of str
    sizes : sequence of int
        The number of columns; ``ours`` holds these sizes.
    tests : sequence of str
        The tests of ours to draw.

    Returns
    -------
    Figure
    """
    from .. import plots

    fig, axes = plots.panels(len(measures), len(sizes), height=2.4, sharey=True)
    for row, m in zip(axes, measures):
        o = ours[(ours["measure"] == m) & ours["test"].isin(tests)]
        plots.plot_rates_by_alpha(o, theirs[theirs["measure"] == m], tails=tails, form="loglog", axes=row,
                                  ylabel=f"{m}: type I error", legend=m == measures[0])  # fmt: skip
    return fig


def by_delta_figure(ours: pd.DataFrame, theirs: pd.DataFrame, kind: str, *, tails: int,
                    measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str]):  # fmt: skip
    """Power or type III error against delta at alpha = 0.05, a row of panels per size, a column per measure.

    Our rates as lines with +-1.96 se bands (:func:`irrepro.plots.plot_power_by_delta`), theirs as
    open markers.

    Parameters
    ----------
    ours : pandas.DataFrame
        :meth:`PValues.frame`'s rows (for type III :meth:`UrbanoPValues.frame`'s) with a ``measure``
        column.
    theirs : pandas.DataFrame
        :func:`their_by_delta`.
    kind : {"power", "type3"}
    tails : {2, 1}
    measures : sequence of str
    sizes : sequence of int
    tests : sequence of str
        The tests of ours to draw.

    Returns
    -------
    Figure
    """
    from .. import plots

    fig, axes = plots.panels(len(sizes), len(measures), height=2.8, squeeze=False)
    for row, n in zip(axes, sizes):
        for ax, m in zip(row, measures):
            o = ours[(ours["measure"] == m) & (ours["topics"] == n) & ours["test"].isin(tests)]
            plots.plot_power_by_delta(o, theirs[(theirs["kind"] == kind) & (theirs["measure"] == m) & (theirs["topics"] == n) & (theirs["tails"] == tails)], tails=tails,
                                      rate="rate" if kind == "power" else "type3", ax=ax, title=f"{m}, {n} topics",
                                      legend=(m, n) == (measures[-1], sizes[0]))  # fmt: skip
    return fig


def _mc_rows(label: str, rates: pd.Series, ses: pd.Series, n: int, target: float) -> list[dict]:
    """One row per test of an experiment's Monte Carlo check (:func:`mc_check`)."""
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


def _codes(numbers) -> dict[str, str]:
    """Our names of tests and measures -> theirs in the yml's keys (``"wilcoxon"`` -> ``"w"``)."""
    return {ours: theirs for theirs, ours in numbers.names.items()}


def their_type1(
    numbers, *, measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str]
) -> pd.DataFrame:
    """Urbano et al.'s published type I rates (both tails, every alpha in the yml), for :func:`type1_figure`.

    Parameters
    ----------
    numbers : PaperNumbers
        ``book.paper_numbers("urbano2019statistical")``; its ``names`` map their codes to ours.
    measures, sizes, tests : sequence

    Returns
    -------
    pandas.DataFrame
        Columns ``measure, topics, test, tails, alpha, value``.
    """
    from ._pvalues import ALPHAS

    code = _codes(numbers)
    return pd.DataFrame([{"measure": m, "topics": n, "test": t, "tails": tl, "alpha": a,
                          "value": numbers[f"type1.{code[m]}.{n}.{code[t]}{tl}.a{a:g}"].value}
                         for m in measures for n in sizes for t in tests for tl in (1, 2) for a in ALPHAS
                         if f"type1.{code[m]}.{n}.{code[t]}{tl}.a{a:g}" in numbers])  # fmt: skip


def their_by_delta(numbers, *, measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str],
                   deltas: Sequence[float]) -> pd.DataFrame:  # fmt: skip
    """Urbano et al.'s power (both tails) and type III (two-tailed) rates, for :func:`by_delta_figure`.

    Parameters
    ----------
    numbers : PaperNumbers
        ``book.paper_numbers("urbano2019statistical")``.
    measures, sizes, tests : sequence
    deltas : sequence of float

    Returns
    -------
    pandas.DataFrame
        Columns ``kind, measure, topics, test, tails, delta, value``.
    """
    code = _codes(numbers)
    return pd.DataFrame([{"kind": kind, "measure": m, "topics": n, "test": t, "tails": tl, "delta": d,
                          "value": numbers[f"{kind}.{code[m]}.{n}.{code[t]}{tl}.d{d:g}"].value}
                         for kind, tails in (("power", (1, 2)), ("type3", (2,))) for m in measures for n in sizes
                         for t in tests for tl in tails for d in deltas])  # fmt: skip


#: The tests whose null holds under equal means (the sign and Wilcoxon tests' does not).
MEAN_TESTS = ["paired-t", "bootstrap-shift", "permutation", "bootstrap", "unpaired-bootstrap"]


def mc_check(null, same_mean, family, target: float, family_target: float) -> pd.DataFrame:
    """The Monte Carlo check of every type I error rate at alpha = 0.05 against its experiment's target.

    One row per rate: every test of ``null`` (both tails), the tests whose null holds under equal means
    (``MEAN_TESTS``) and the family-wise errors, with whether the Monte Carlo error of a 5% rate,
    with the rate's design effect, lies below the target.

    Parameters
    ----------
    null : mapping
        ``(measure, topics)`` -> :class:`UrbanoPValues` under the null.
    same_mean : mapping
        Measure -> :class:`UrbanoPValues` under equal means.
    family : mapping
        Measure -> :class:`FamilyResult`.
    target, family_target : float
        The targets of the pairs' and of the families' experiments.

    Returns
    -------
    pandas.DataFrame
        ``experiment``, ``test``, ``rate``, ``trials``, ``se``, ``target``, ``MC error of a 5% rate``
        and ``below target``.
    """
    mc = pd.DataFrame(
        [row for (m, n), r in null.items() for tl in (1, 2)
         for row in _mc_rows(f"{m}, {n} topics, {tl}-tailed", r.rates([0.05], tl).iloc[0], r.se(0.05, tl), r.trials, target)]
        + [row for m, r in same_mean.items()
           for row in _mc_rows(f"{m}, equal means", r.rates([0.05]).iloc[0][MEAN_TESTS], r.se(0.05), r.trials, target)]
        + [row for m, f in family.items()
           for row in _mc_rows(f"{m}, families of 5", f.fwer(0.05), f.se(0.05), len(f.min_p), family_target)]
    )  # fmt: skip
    mc["below target"] = mc["MC error of a 5% rate"] <= mc["target"]
    return mc
