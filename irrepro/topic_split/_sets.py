"""Sanderson & Zobel (2005) beyond the swap experiment: significance on the full topic sets (section
3), pool depth and assessor effort (4), the sd of MAP against the topic sample size (5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import parallel
from ..data import RunSet, ScoreMatrix, pool_documents
from ..data._matrices import _checked_scores
from ..errors import InputError, UnknownNameError
from ..parallel import SeedLike
from ..significance import classical

#: The paired tests of the significance filters (:mod:`irrepro.significance.classical`), by
#: :data:`irrepro.significance.TESTS`' names.
_TESTS = {
    "paired-t": classical.paired_t_pvalues,
    "sign": classical.sign_test_pvalues,
    "wilcoxon": classical.wilcoxon_pvalues,
}


def _test_names(tests: Sequence[str]) -> list[str]:
    """``tests`` as a list of :data:`_TESTS`' names; an unknown name is an error."""
    for t in tests:
        if t not in _TESTS:
            raise UnknownNameError(f"unknown test {t!r}; known: {list(_TESTS)}")
    return list(tests)


def full_set_tests(
    matrices: Sequence[ScoreMatrix], tests: Sequence[str] = ("paired-t", "sign", "wilcoxon")
) -> pd.DataFrame:
    """Every pair of runs within each matrix compared on all its topics (section 3, "the full sets").

    Parameters
    ----------
    matrices : sequence of ScoreMatrix
        One per year; pairs only within a matrix.
    tests : sequence of str
        Of ``"paired-t"``, ``"sign"``, ``"wilcoxon"``.

    Returns
    -------
    pandas.DataFrame
        Columns ``collection``, ``run_a``, ``run_b``, ``score_a``, ``score_b``, ``abs_diff``,
        ``rel_diff`` (relative to the smaller mean) and ``p_<test>`` per test.

    Examples
    --------
    >>> from irrepro.data import ScoreMatrix
    >>> from irrepro.topic_split import full_set_tests
    >>> m = ScoreMatrix(np.array([[0.4, 0.6, 0.5, 0.7, 0.3, 0.8], [0.2, 0.5, 0.3, 0.4, 0.2, 0.6]]),
    ...                 ("a", "b"), tuple("123456"), "AP")
    >>> full_set_tests([m])[["p_paired-t", "p_sign", "p_wilcoxon"]].round(4).to_dict("records")
    [{'p_paired-t': 0.0019, 'p_sign': 0.0312, 'p_wilcoxon': 0.0312}]
    """
    tests = _test_names(tests)
    rows = []
    for k, m in enumerate(matrices):
        a, b = np.triu_indices(m.shape[0], k=1)
        X = _checked_scores(m, f"matrices[{k}]")
        mean = X.mean(axis=1)
        hi = np.maximum(mean[a], mean[b])
        lo = np.minimum(mean[a], mean[b])
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(lo > 0, (hi - lo) / lo, np.inf)
        frame = pd.DataFrame(
            {
                "collection": m.collection,
                "run_a": np.asarray(m.systems)[a],
                "run_b": np.asarray(m.systems)[b],
                "score_a": mean[a],
                "score_b": mean[b],
                "abs_diff": hi - lo,
                "rel_diff": rel,
            }
        )
        D = X[a] - X[b]
        for t in tests:
            frame[f"p_{t}"] = _TESTS[t](D)
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def in_band(pairs: pd.DataFrame, lo: float, hi: float, min_score: float | None = None) -> pd.DataFrame:
    """The pairs whose relative difference lies in ``[lo, hi)`` (1e-12 slack), both means >= ``min_score``."""
    p = pairs if min_score is None else pairs[(pairs.score_a >= min_score) & (pairs.score_b >= min_score)]
    return p[(p.rel_diff >= lo - 1e-12) & (p.rel_diff < hi - 1e-12)]


def significant_share(
    pairs: pd.DataFrame,
    bands: Sequence[tuple[float, float]],
    *,
    alpha: float = 0.05,
    min_score: float | None = None,
    tests: Sequence[str] = ("paired-t", "sign", "wilcoxon"),
) -> pd.DataFrame:
    """Share of pairs with p <= ``alpha`` per relative-difference band ``[lo, hi)`` (section 3).

    Parameters
    ----------
    pairs : pandas.DataFrame
        :func:`full_set_tests`' rows.
    bands : sequence of (float, float)
    alpha : float
    min_score : float, optional
        Drop pairs in which either run's mean is below it (the paper's type II check).
    tests : sequence of str
        The tests of ``pairs``.

    Returns
    -------
    pandas.DataFrame
        One row per band: ``band`` (``"0-10%"``), ``pairs`` and a column of shares per test.

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro.topic_split import significant_share
    >>> pairs = pd.DataFrame({"score_a": [0.3, 0.2, 0.4], "score_b": [0.25, 0.1, 0.38],
    ...                       "rel_diff": [0.2, 1.0, 0.05], "p_paired-t": [0.01, 0.001, 0.6]})
    >>> significant_share(pairs, [(0, 0.5), (0.5, 2)], tests=["paired-t"])
        band  pairs  paired-t
    0  0-50%      2       0.5
    1  50-200%    1       1.0
    """
    tests = _test_names(tests)
    out = []
    for lo, hi in bands:
        sel = in_band(pairs, lo, hi, min_score)
        row = {"band": f"{100 * lo:g}-{100 * hi:g}%", "pairs": len(sel)}
        for t in tests:
            row[t] = float((sel[f"p_{t}"] <= alpha).mean()) if len(sel) else float("nan")
        out.append(row)
    return pd.DataFrame(out)


def pool_sizes(runset: RunSet, depths: Sequence[int] = (10, 100), *, rel: int = 1) -> pd.DataFrame:
    """Per topic and depth d, the pool of the runs' top-d documents and its relevant ones (section 4).

    Parameters
    ----------
    runset : RunSet
        The runs and their qrels.
    depths : sequence of int
        At least 1.
    rel : int
        The least relevant grade.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``depth``, ``pool``, ``relevant``.

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> from irrepro.topic_split import pool_sizes
    >>> pool_sizes(synthetic.runs(3, 2, list_length=20, seed=1), depths=[1, 10]).columns.tolist()
    ['topic', 'depth', 'pool', 'relevant']
    """
    depths = sorted(set(int(d) for d in depths))
    if depths[0] < 1:
        raise InputError("pool depths must be >= 1")
    T = len(runset.topics)
    rows = []
    for d in depths:
        topic, _, grade = pool_documents(runset, d)
        size = np.bincount(topic, minlength=T)
        nrel = np.bincount(topic[grade >= rel], minlength=T)
        rows.append(pd.DataFrame({"topic": runset.topics, "depth": d, "pool": size, "relevant": nrel}))
    return pd.concat(rows, ignore_index=True)


def map_sd(matrix: ScoreMatrix, sizes: Sequence[int], *, B: int = 10, seed: SeedLike = None) -> pd.DataFrame:
    """Average over runs of the sd (``ddof=1``) of the mean score over ``B`` random topic samples (section 5).

    Parameters
    ----------
    matrix : ScoreMatrix
    sizes : sequence of int
        Topics per sample, in 1..topics.
    B : int
        Samples per size (the paper's 10).
    seed : SeedLike

    Returns
    -------
    pandas.DataFrame
        Columns ``topics``, ``sd``, ``sd_p05``, ``sd_p95`` (percentiles of the per-run sd).

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> from irrepro.topic_split import map_sd
    >>> sd = map_sd(synthetic.score_matrix(5, 100, seed=1), [5, 50], B=20, seed=2)
    >>> bool(sd.sd[0] > sd.sd[1])        # the sd of MAP falls with more topics
    True
    """
    B = parallel.check_int(B, "B", minimum=2)
    X = _checked_scores(matrix, "matrix")
    S, T = X.shape
    sizes = [int(s) for s in sizes]
    if min(sizes) < 1 or max(sizes) > T:
        raise InputError(f"sizes must be in 1..{T}")
    rngs = parallel.spawn(seed, len(sizes))
    out = []
    for n, rng in zip(sizes, rngs):
        idx = rng.permuted(np.tile(np.arange(T), (B, 1)), axis=1)[:, :n]
        sd = X[:, idx].mean(axis=-1).std(axis=1, ddof=1)
        out.append(
            {"topics": n, "sd": sd.mean(), "sd_p05": np.quantile(sd, 0.05), "sd_p95": np.quantile(sd, 0.95)}
        )
    return pd.DataFrame(out)
