"""The result every test of :mod:`irrepro.significance` returns: one p-value per pair of systems,
with the adjustment for multiple comparisons over the pairs tested (the family)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import InputError
from ..stats import adjust_pvalues
from ._names import CORRECTIONS, FAMILY_WISE, TESTS


def _correction(correction: str | None) -> tuple[str | None, str]:
    """(statsmodels' method or None, label) of a correction's name."""
    if correction is None:
        return CORRECTIONS["none"]
    if not isinstance(correction, str):
        raise InputError(
            f"correction must be a name ({', '.join(CORRECTIONS)} or a method of statsmodels' "
            f"multipletests), not {correction!r}"
        )
    if correction in CORRECTIONS:
        return CORRECTIONS[correction]
    if correction == FAMILY_WISE:
        raise InputError(
            "'tukey' is not a correction: randomised Tukey HSD (test='tukey') is family-wise by itself"
        )
    from statsmodels.stats.multitest import multipletests

    try:
        multipletests([0.5], method=correction)
    except ValueError:
        raise InputError(
            f"correction must be one of {', '.join(CORRECTIONS)} or a method of statsmodels' "
            f"multipletests, not {correction!r}"
        ) from None
    return correction, correction


def _check_alpha(alpha) -> float:
    """``alpha`` as a float in (0, 1), else an InputError."""
    try:
        value = float(alpha) if not isinstance(alpha, (bool, str)) else np.nan
    except (TypeError, ValueError):
        value = np.nan
    if not 0 < value < 1:  # NaN too
        raise InputError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return value


def _baseline_name(systems: tuple, pairs: np.ndarray, baseline) -> str | None:
    """The name of the baseline of a family of pairs ``(s, baseline)``, or None without one."""
    return None if baseline is None or not len(pairs) else systems[pairs[0, 1]]


@dataclass(frozen=True)
class PairwiseResult:
    """One test of many pairs of systems under one measure: ``difference``, ``p`` and ``p_adjusted`` ``(P,)``
    for the rows of ``pairs``."""

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
    effect_size: np.ndarray | None = None
    interval: np.ndarray | None = None

    @property
    def label(self) -> str:
        """The test's name as the tables print it (``TESTS``)."""
        return TESTS.get(self.test, self.test)

    def adjust(self, correction: str | None) -> PairwiseResult:
        """The same result with ``p_adjusted`` adjusted over its pairs by ``correction``."""
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
        """Which pairs are significant after the adjustment: adjusted p < ``alpha`` (NaN: not)."""
        return np.nan_to_num(self.p_adjusted, nan=1.0) < _check_alpha(alpha)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: systems, difference, p, adjusted p (effect size, ``ci_low``, ``ci_high``)."""
        cols = {
            "system_x": [self.systems[i] for i in self.pairs[:, 0]],
            "system_y": [self.systems[j] for j in self.pairs[:, 1]],
            "difference": self.difference,
            "p": self.p,
            "p_adjusted": self.p_adjusted,
        }
        if self.effect_size is not None:
            cols["effect_size"] = self.effect_size
        if self.interval is not None:
            cols["ci_low"], cols["ci_high"] = self.interval[:, 0], self.interval[:, 1]
        frame = pd.DataFrame(cols)
        frame.attrs.update(test=self.test, correction=self.correction, measure=self.measure)
        return frame
