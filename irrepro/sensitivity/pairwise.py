"""The discriminative power bootstrap tests give measures (Sakai 2006, section 3.3, Table 2)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..significance.bootstrap import BootstrapResult


def sensitivity(
    tests: dict[str, BootstrapResult] | Sequence[BootstrapResult], alpha: float = 0.05
) -> pd.DataFrame:
    """Sakai's (2006) Table 2: discriminative power and required difference of several measures.

    Per test, the pairs with ASL < alpha and the estimated difference required for ASL < alpha
    (``BootstrapResult.required_difference``, ``irrepro.significance.bootstrap``), most sensitive first.

    Parameters
    ----------
    tests : dict or sequence of BootstrapResult
        Name -> test, or tests named by their measure.
    alpha : float

    Returns
    -------
    pandas.DataFrame
        Columns measure, significant, pairs, sensitivity %, required difference; one row per test.

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
