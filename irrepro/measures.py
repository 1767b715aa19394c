"""Evaluation measures over whole run sets at once (systems x topics x ranks arrays).

Conventions (trec_eval's): only topics with judgments are evaluated; a run that retrieves nothing
for a topic scores 0 there; a topic with no relevant document scores 0 on recall-oriented
measures. Relevance is ``grade >= rel`` (default 1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data import RunSet, ScoreMatrix

__all__ = ["average_precision", "evaluate"]


def average_precision(relevant: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Average precision of ranked lists (trec_eval's ``map``).

    ``relevant`` is boolean ``(..., K)`` (rank axis last, padding False); ``n_rel`` is the number
    of relevant documents R, broadcastable to ``relevant.shape[:-1]``. AP = (1/R) sum over relevant
    ranks r of precision@r; 0 when R = 0.
    """
    relevant = np.asarray(relevant, dtype=bool)
    k = relevant.shape[-1]
    hits = np.cumsum(relevant, axis=-1, dtype=np.int32)
    prec = np.where(relevant, hits / np.arange(1, k + 1, dtype=np.float64), 0.0).sum(axis=-1)
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.float64), prec.shape)
    return np.divide(prec, n_rel, out=np.zeros_like(prec), where=n_rel > 0)


def evaluate(runset: RunSet, measures: Sequence[str], *, rel: int = 1) -> dict[str, ScoreMatrix]:
    """Score every run of ``runset`` on every topic for each measure (ir_measures' names).

    Returns ``{measure: ScoreMatrix}`` with systems x topics scores.
    """
    out = {}
    for m in measures:
        if m == "AP":
            scores = average_precision(runset.relevant(rel), runset.n_relevant(rel)[None, :])
        else:
            raise KeyError(f"unknown measure {m!r}; known: AP")
        out[m] = ScoreMatrix(scores, runset.runs, runset.topics, m, runset.name, runset.source)
    return out
