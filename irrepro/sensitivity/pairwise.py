"""The discriminative power bootstrap tests give measures (Sakai 2006, section 3.3, Table 2).

The tests themselves are :mod:`irrepro.significance`'s (:func:`~irrepro.significance.paired_bootstrap_test`,
:func:`~irrepro.significance.unpaired_bootstrap_test`, their result
:class:`~irrepro.significance.BootstrapResult`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..significance.bootstrap import BootstrapResult


def sensitivity(
    tests: dict[str, BootstrapResult] | Sequence[BootstrapResult], alpha: float = 0.05
) -> pd.DataFrame:
    """Sakai's (2006) Table 2: discriminative power and required difference of several measures.

    Per test, the number and percentage of pairs with ASL < alpha and the estimated difference
    required for ASL < alpha (Figures 5 / 6), most sensitive first.

    Parameters
    ----------
    tests : dict or sequence of BootstrapResult
        Name -> test, or tests named by their measure (:func:`irrepro.significance.paired_bootstrap_test`,
        :func:`irrepro.significance.unpaired_bootstrap_test`).
    alpha : float
        The significance level.

    Returns
    -------
    pandas.DataFrame
        Columns measure, significant, pairs, sensitivity %, required difference; one row per test.

    Notes
    -----
    Sakai (2006), section 3.3: discriminative power (Figures 5-6) and Table 2 (the estimated
    difference required for ASL < alpha is :meth:`irrepro.significance.BootstrapResult.required_difference`).

    Examples
    --------
    >>> from irrepro import sensitivity as bt, significance as sg
    >>> tests = {"A": sg.paired_bootstrap_test(scores, B=200, seed=1), "B": sg.paired_bootstrap_test(scores**2, B=200, seed=1)}
    >>> bt.sensitivity(tests, alpha=0.1).round(2)
      measure  significant  pairs  sensitivity %  required difference
    0       A            1      3          33.33                 0.08
    1       B            1      3          33.33                 0.11
    """
    items = tests.items() if isinstance(tests, dict) else [(t.measure, t) for t in tests]
    rows = []
    for name, t in items:
        rows.append(
            {
                "measure": name,
                "significant": int(np.sum(t.p < alpha)),
                "pairs": len(t.p),
                "sensitivity %": 100 * t.discriminative_power(alpha),
                "required difference": t.required_difference(alpha),
            }
        )
    frame = pd.DataFrame(rows)
    return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)
