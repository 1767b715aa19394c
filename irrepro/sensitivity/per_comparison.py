"""Beyond Sakai (2006), who reports ASLs and discriminative power: one result per comparison of two
systems, with the ASL adjusted for multiple comparisons, an effect size and an interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..significance.bootstrap import BootstrapResult
from ..stats import check_level


@dataclass(frozen=True)
class BootstrapComparison:
    """One bootstrap comparison of two systems, with its adjusted p-value, effect size and interval."""

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
        """Whether the adjusted p-value is below ``alpha``."""
        return self.p_adjusted < alpha


def comparisons(
    result: BootstrapResult, *, correction: str | None = "holm", level: float = 0.95
) -> list[BootstrapComparison]:
    """One ``BootstrapComparison`` per pair of a bootstrap test, with adjusted p-values.

    Parameters
    ----------
    result : BootstrapResult
        A bootstrap test of :mod:`irrepro.significance`.
    correction : str or None
        Any method of statsmodels' ``multipletests`` (``"holm"``, ``"fdr_bh"``, ...); None or
        ``"none"``: unadjusted.
    level : float
        The level of the percentile intervals: a fraction or a percentage.

    Returns
    -------
    list of BootstrapComparison
        One per pair of ``result``, in its order.

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
    return [
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
        for k, (i, j) in enumerate(result.pairs)
    ]
