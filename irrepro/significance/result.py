"""The result every test of :mod:`irrepro.significance` returns: one p-value per pair of systems,
with the adjustment for multiple comparisons over the pairs tested (the family)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..stats import adjust_pvalues
from ._names import CORRECTIONS, FAMILY_WISE, TESTS  # (served from here too)
from ..errors import InputError

__all__ = ["TESTS", "CORRECTIONS", "PairwiseResult"]


def _correction(correction: str | None) -> tuple[str | None, str]:
    """(statsmodels' method or None, label) of a correction's name."""
    if correction is None:
        return CORRECTIONS["none"]
    if correction in CORRECTIONS:
        return CORRECTIONS[correction]
    if correction == FAMILY_WISE:
        raise InputError("'tukey' is not a correction: randomised Tukey HSD (test='tukey') is family-wise by itself")
    from statsmodels.stats.multitest import multipletests

    try:
        multipletests([0.5], method=correction)
    except ValueError:
        raise InputError(
            f"correction must be one of {', '.join(CORRECTIONS)} or a method of statsmodels' "
            f"multipletests, not {correction!r}"
        ) from None
    return correction, correction


def _baseline_name(systems: tuple, pairs: np.ndarray, baseline) -> str | None:
    """The name of the baseline of a family of pairs ``(s, baseline)``, or None without one."""
    return None if baseline is None or not len(pairs) else systems[pairs[0, 1]]


@dataclass(frozen=True)
class PairwiseResult:
    """One test of many pairs of systems under one measure.

    ``pairs`` ``(P, 2)`` system indices; ``difference`` the mean over topics of the first system's
    score minus the second's; ``p`` the p-values (two-sided unless ``alternative`` says otherwise;
    NaN where the test has no answer, e.g. the t-test of two identical systems) and
    ``p_adjusted`` the same adjusted over the ``P`` pairs by ``correction`` (``"none"``, a
    statsmodels method such as ``"holm"`` / ``"fdr_bh"``, or ``"tukey"``: family-wise by the max
    statistic, ``p_adjusted`` = ``p``). ``B`` is the number of resamples of a resampling test (0 for
    the classical ones); ``exact`` is True when the permutation test enumerated all 2^n sign
    flips. ``baseline`` names the system every pair is compared with, if the pairs are that
    family."""

    test: str
    measure: str
    systems: tuple
    pairs: np.ndarray
    difference: np.ndarray
    p: np.ndarray
    p_adjusted: np.ndarray
    correction: str
    n_topics: int
    B: int = 0
    exact: bool = False
    alternative: str = "two-sided"
    baseline: str | None = None

    @property
    def label(self) -> str:
        """The test's name as the tables print it (:data:`TESTS`)."""
        return TESTS.get(self.test, self.test)

    def adjust(self, correction: str | None) -> PairwiseResult:
        """The same result with ``p_adjusted`` adjusted over its pairs by ``correction``: ``"holm"``,
        ``"bh"`` (Benjamini-Hochberg), ``"none"`` / None, or any method of statsmodels'
        ``multipletests``. A pair without a p-value (NaN) counts in the family as p = 1 and keeps
        NaN. Refused for randomised Tukey HSD, whose p-values are family-wise already."""
        if self.correction == FAMILY_WISE:
            if correction in (None, "none", FAMILY_WISE):
                return self
            raise InputError(
                f"randomised Tukey HSD's p-values are family-wise already: no {correction!r} "
                "correction on top (use correction 'none')"
            )
        method, _ = _correction(correction)
        adj = np.array(adjust_pvalues(self.p, method), dtype=np.float64)  # a copy; NaN stays NaN
        return replace(self, p_adjusted=adj, correction=method or "none")

    def significant(self, alpha: float = 0.05) -> np.ndarray:
        """``(P,)`` bool: adjusted p < ``alpha`` (a pair without a p-value is not significant)."""
        return np.nan_to_num(self.p_adjusted, nan=1.0) < alpha

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: systems, mean difference, p, adjusted p."""
        return pd.DataFrame(
            {
                "system_x": [self.systems[i] for i in self.pairs[:, 0]],
                "system_y": [self.systems[j] for j in self.pairs[:, 1]],
                "difference": self.difference,
                "p": self.p,
                "p_adjusted": self.p_adjusted,
            }
        )
