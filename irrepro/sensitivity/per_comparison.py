"""Beyond Sakai (2006): one result object per comparison of two systems, with the p-value (the
ASL) adjusted for multiple comparisons (:func:`irrepro.stats.adjust_pvalues`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..significance.bootstrap import BootstrapResult
from ..stats import check_level


@dataclass(frozen=True)
class BootstrapComparison:
    """One bootstrap comparison of two systems, with its adjusted p-value, effect size and interval.

    Beyond Sakai (2006). Made by :func:`comparisons`.

    Attributes
    ----------
    system_x, system_y : str
        The two systems; the difference is ``system_x``'s summary minus ``system_y``'s.
    measure : str
        The measure tested (``AG_`` forms for geometric means).
    test : str
        The test (``"bootstrap"``, ``"bootstrap-shift"``, ``"unpaired-bootstrap"``).
    difference : float
        The observed difference.
    p : float
        The achieved significance level (ASL, Sakai's name of the bootstrap test's p-value),
        unadjusted.
    p_adjusted : float
        ``p`` adjusted over all the comparisons of the test by ``correction``.
    correction : str
        The correction (a ``statsmodels`` ``multipletests`` method), ``"none"`` when unadjusted.
    effect_size : float
        Paired: d_z = mean(z) / sd(z); unpaired: d / pooled sd; NaN when the test gives none.
    ci_low, ci_high : float
        The percentile bootstrap interval of the difference.
    """

    system_x: Any
    system_y: Any
    measure: str
    test: str
    difference: float
    p: float
    p_adjusted: float
    correction: str
    effect_size: float
    ci_low: float
    ci_high: float

    def significant(self, alpha: float = 0.05) -> bool:
        """Is the adjusted p-value below ``alpha``?

        Parameters
        ----------
        alpha : float
            The significance level.

        Returns
        -------
        bool
            ``p_adjusted < alpha``.
        """
        return self.p_adjusted < alpha


def comparisons(
    result: BootstrapResult, *, correction: str | None = "holm", level: float = 0.95
) -> list[BootstrapComparison]:
    """One :class:`BootstrapComparison` per pair of a bootstrap test, with adjusted p-values.

    The p-values (ASLs) are adjusted by ``correction`` (:meth:`~irrepro.significance.PairwiseResult.adjust`:
    ``"holm"``, ``"fdr_bh"`` (Benjamini-Hochberg), ``"bonferroni"``, ``"none"`` or any method of ``statsmodels.stats.multitest.multipletests``;
    None leaves them unadjusted) and ``level`` percentile intervals of the difference. Beyond
    the paper. ``pd.DataFrame(comparisons(r))`` makes a table. ``level``: a fraction or a
    percentage (:func:`irrepro.stats.check_level`).

    Parameters
    ----------
    result : BootstrapResult
        A test of :mod:`irrepro.significance` (:func:`~irrepro.significance.paired_bootstrap_test`,
        :func:`~irrepro.significance.unpaired_bootstrap_test`).
    correction : str or None
        The correction for multiple comparisons (:data:`irrepro.significance.CORRECTIONS` or a
        method of ``multipletests``); None or ``"none"``: unadjusted.
    level : float
        The level of the percentile intervals: a fraction or a percentage.

    Returns
    -------
    list of BootstrapComparison
        One per pair of ``result``, in its order.

    Notes
    -----
    Beyond Sakai (2006): the paper reports ASLs (section 3.1) and discriminative power (3.3), not
    adjusted ASLs, effect sizes or intervals.

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import sensitivity as bt, significance as sg
    >>> table = pd.DataFrame(bt.comparisons(sg.paired_bootstrap_test(scores, B=200, seed=1)))
    >>> table[["system_x", "system_y", "difference", "p", "p_adjusted", "ci_low", "ci_high"]].round(3)
      system_x system_y  difference      p  p_adjusted  ci_low  ci_high
    0        0        1        0.14  0.075         0.225    0.06     0.22
    1        0        2        0.02  0.520         0.670   -0.04     0.08
    2        1        2       -0.12  0.335         0.670   -0.16    -0.10
    """
    level = check_level(level)
    adjusted = result.adjust(correction)
    adj = adjusted.p_adjusted
    ci = result.confidence_interval(level)
    es = result.effect_size if result.effect_size is not None else np.full(len(result.p), np.nan)
    out = []
    for k, (i, j) in enumerate(result.pairs):
        out.append(
            BootstrapComparison(
                result.systems[i],
                result.systems[j],
                result.measure,
                result.test,
                float(result.difference[k]),
                float(result.p[k]),
                float(adj[k]),
                adjusted.correction,
                float(es[k]),
                float(ci[k, 0]),
                float(ci[k, 1]),
            )
        )
    return out
