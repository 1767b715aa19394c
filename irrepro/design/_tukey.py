"""All pairs after the ANOVA: the classical Tukey HSD beside the randomised one (``irrepro compare --anova``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..parallel import SeedLike
from ._anova import _matrix, two_way_anova


def tukey_table(
    scores, *, alpha: float = 0.05, B: int = 10_000, seed: SeedLike = 0, n_jobs=None
) -> pd.DataFrame:
    """Every pair of systems by the classical and the randomised Tukey HSD.

    The classical test is statsmodels' Tukey HSD on the two-way design: the residual variance V_E
    of the system x topic ANOVA and its (S - 1)(T - 1) degrees of freedom, so that the topics block
    as in a paired test (``pairwise_tukeyhsd`` would take the systems as independent groups). The
    randomised one is :func:`irrepro.significance.tukey_hsd` (Carterette, TOIS 30, 2012; Sakai 2018,
    ch. 4).

    Parameters
    ----------
    scores : ScoreMatrix or array_like
        ``(S, T)`` scores.
    alpha : float
        The family-wise level of the classical test's intervals and rejections.
    B : int
        Permutations of the randomised test.
    seed : SeedLike
    n_jobs : int, optional

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_1``, ``system_2``, ``difference`` (mean of 1 minus mean of 2),
        ``low``, ``high`` (the classical simultaneous interval), ``p_classical``,
        ``p_randomised``.

    Examples
    --------
    >>> from irrepro.design import tukey_table
    >>> tukey_table(scores, B=200, seed=1)[["system_1", "system_2"]].values.tolist()
    [['0', '1'], ['0', '2'], ['1', '2']]
    """
    from statsmodels.sandbox.stats.multicomp import tukeyhsd

    from .. import significance as sig

    anova = two_way_anova(scores)
    x, systems, _, _ = _matrix(scores)
    S, T = x.shape
    df_e = float((S - 1) * (T - 1))
    # statsmodels sums a per-group df: S equal shares of the residual df give it df_e in all
    (i, j), _, diffs, _, ci, _, _, _, p = tukeyhsd(
        x.mean(axis=1), T, anova.sigma2_residual, df=np.full(S, df_e / S), alpha=alpha
    )
    pairs = np.column_stack([i, j])
    rand = sig.tukey_hsd(scores, pairs, B=B, seed=seed, n_jobs=n_jobs)
    names = np.asarray(systems, dtype=object)
    # statsmodels' difference is mean[j] - mean[i]: turned to system_1 minus system_2
    return pd.DataFrame(
        {"system_1": names[i], "system_2": names[j], "difference": -diffs, "low": -ci[:, 1],
         "high": -ci[:, 0], "p_classical": np.atleast_1d(p), "p_randomised": rand.p_adjusted},
    )  # fmt: skip
