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
    """One test of many pairs of systems under one measure.

    Attributes
    ----------
    test : str
        A name of :data:`TESTS`.
    measure : str
    systems : tuple
    pairs : numpy.ndarray
        ``(P, 2)`` system indices.
    difference, p, p_adjusted : numpy.ndarray
        ``(P,)``: the mean over topics of the first system's score minus the second's; the p-values
        (two-sided unless ``alternative`` says otherwise; NaN where the test has no answer, e.g. the
        t-test of two identical systems); the same adjusted over the P pairs by ``correction``.
    correction : str
        statsmodels' name, ``"none"`` or ``"tukey"`` (family-wise by the max statistic,
        ``p_adjusted`` = ``p``).
    n_topics, B : int
        Topics; resamples of a resampling test (0 for the classical ones).
    exact : bool
        The permutation test enumerated all 2^n sign flips.
    alternative : str
    baseline : str or None
        The system every pair is compared with, if the pairs are that family.
    effect_size : numpy.ndarray or None
        ``(P,)``, when the test gives it.
    interval : numpy.ndarray or None
        ``(P, 2)`` confidence interval of the difference, when the test gives it.

    Examples
    --------
    >>> from irrepro import significance as sg
    >>> r = sg.pairwise_test(scores, "paired-t", correction="holm")
    >>> r.to_frame().round(3)
      system_x system_y  difference      p  p_adjusted
    0        0        1        0.14  0.052       0.103
    1        0        2        0.02  0.621       0.621
    2        1        2       -0.12  0.004       0.012
    """

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
        """The test's name as the tables print it (:data:`TESTS`)."""
        return TESTS.get(self.test, self.test)

    def adjust(self, correction: str | None) -> PairwiseResult:
        """The same result with ``p_adjusted`` adjusted over its pairs by ``correction``.

        A NaN p-value counts in the family as 1 and stays NaN.

        Parameters
        ----------
        correction : str or None
            Any method of statsmodels' ``multipletests`` (``"holm"``, ``"fdr_bh"``, ...), ``"none"`` / None.

        Returns
        -------
        PairwiseResult

        Raises
        ------
        irrepro.InputError
            For randomised Tukey HSD, whose p-values are family-wise already.
        """
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
        """Which pairs are significant after the adjustment: adjusted p < ``alpha`` (NaN: not).

        Parameters
        ----------
        alpha : float

        Returns
        -------
        numpy.ndarray
            ``(P,)`` bool.
        """
        return np.nan_to_num(self.p_adjusted, nan=1.0) < _check_alpha(alpha)

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: systems, difference, p, adjusted p (effect size, ``ci_low``, ``ci_high``).

        ``attrs`` names the test, the correction and the measure.

        Returns
        -------
        pandas.DataFrame
        """
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
