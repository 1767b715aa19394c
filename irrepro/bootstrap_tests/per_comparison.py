"""Beyond Sakai (2006): one result object per comparison of two systems, with the ASL adjusted
for multiple comparisons (:func:`irrepro.stats.adjust_pvalues`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._deprecation import renamed_arguments
from ..significance.bootstrap import BootstrapResult
from ..stats import adjust_pvalues, check_level

__all__ = ["BootstrapComparison", "comparisons"]


@dataclass(frozen=True)
class BootstrapComparison:
    """One comparison of two systems (beyond Sakai 2006): the observed difference, the bootstrap
    ASL (a p-value), the ASL adjusted across all comparisons of the test, an effect size
    (paired: d_z = mean(z)/sd(z); unpaired: d / pooled sd) and a percentile bootstrap CI of the
    difference."""

    system_x: Any
    system_y: Any
    measure: str
    test: str
    difference: float
    asl: float
    asl_adjusted: float
    adjustment: str
    effect_size: float
    ci_low: float
    ci_high: float

    def significant(self, alpha: float = 0.05) -> bool:
        return self.asl_adjusted < alpha


@renamed_arguments(confidence="level")
def comparisons(
    result: BootstrapResult, *, method: str | None = "holm", level: float = 0.95
) -> list[BootstrapComparison]:
    """One :class:`BootstrapComparison` per pair of ``result``, with the ASLs adjusted for
    multiple comparisons by ``method`` (:func:`irrepro.stats.adjust_pvalues`: any method of
    ``statsmodels.stats.multitest.multipletests``, ``"holm"``, ``"fdr_bh"`` (Benjamini-Hochberg),
    ...; None leaves them unadjusted) and ``level`` percentile intervals of the difference. Beyond
    the paper. ``pd.DataFrame(comparisons(r))`` makes a table. ``level``: a fraction or a
    percentage (:func:`irrepro.stats.check_level`)."""
    level = check_level(level)
    adj = adjust_pvalues(result.p, method)
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
                method or "none",
                float(es[k]),
                float(ci[k, 0]),
                float(ci[k, 1]),
            )
        )
    return out
