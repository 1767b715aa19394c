"""trec_eval's summary of per-topic scores (:func:`irrepro.measures.summarize`, the ``all`` lines of
:func:`irrepro.measures.to_trec_eval`): the topics a run's average takes, in trec_eval's order
(the bytes of their ids), combined each measure its own way. No pandas."""

from __future__ import annotations

import numpy as np

from .._measure_names import parse_measure
from ..data import ScoreMatrix
from ..data._arrays import _np, _pa_strings
from ..errors import InputError
from .aggregates import GM_EPSILON


def _score_matrices(scores) -> list[ScoreMatrix]:
    if isinstance(scores, ScoreMatrix):
        return [scores]
    return list({id(sm): sm for sm in scores.values()}.values())  # each matrix once, in order


def _topic_mask(scores, sm: ScoreMatrix, complete: bool, retrieved) -> np.ndarray:
    if complete:
        return np.ones(sm.shape, dtype=bool)
    if retrieved is None:
        retrieved = getattr(scores, "retrieved", None)
    if retrieved is None:
        raise InputError(
            "complete=False averages over the topics each run retrieved: pass retrieved= "
            "(runs x topics booleans) or the Evaluation that evaluate() returned"
        )
    retrieved = np.asarray(retrieved, dtype=bool)
    if retrieved.shape != sm.shape:
        raise InputError(f"retrieved has shape {retrieved.shape}, the scores {sm.shape}")
    return retrieved


def _trec_eval_order(topics) -> np.ndarray:
    """Indices of ``topics`` in trec_eval's order."""
    import pyarrow.compute as pc

    ids = [str(t) for t in topics]
    try:
        arr = _pa_strings(ids)
    except UnicodeEncodeError:  # (a lone surrogate: no pyarrow string holds it)
        return np.array(sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8", "surrogatepass")),
                        dtype=np.int64)  # fmt: skip
    return _np(pc.sort_indices(arr), np.uint64).astype(np.int64)


def _combine(x: np.ndarray, mask: np.ndarray, agg: str, order: np.ndarray) -> np.ndarray:
    """Per run, the topics of ``mask`` combined as trec_eval combines them."""
    # The sum runs topic by topic in trec_eval's order (``order``), as its accumulator does,
    # so that equal per-topic values give trec_eval's summary to the last bit. NaN for a run
    # without topics (a sum: NaN too); a NaN score leaves its topic out.
    x, mask = x[:, order], mask[:, order] & ~np.isnan(x[:, order])
    with np.errstate(invalid="ignore", divide="ignore"):
        if agg == "gm":
            x = np.log(np.maximum(x, GM_EPSILON))
        elif agg == "G":
            x = np.log(x + GM_EPSILON)
        n = mask.sum(axis=1)
        total = np.cumsum(np.where(mask, x, 0.0), axis=1)[:, -1] if x.shape[1] else np.zeros(len(x))
        if agg == "sum":
            return np.where(n > 0, total, np.nan)
        v = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        return np.exp(v) if agg in ("gm", "G") else v


def _summary(scores, complete: bool, retrieved) -> tuple[tuple, dict[str, np.ndarray]]:
    """trec_eval's summary of every measure: ``(runs, {measure: (runs,) values})``."""
    cols: dict[str, np.ndarray] = {}
    runs: tuple[str, ...] = ()
    orders: dict[int, np.ndarray] = {}  # (the measures of an Evaluation share their topics)
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        if id(sm.topics) not in orders:
            orders[id(sm.topics)] = _trec_eval_order(sm.topics)
        cols[sm.measure] = _combine(sm.scores, mask, parse_measure(sm.measure).agg, orders[id(sm.topics)])
        runs = tuple(sm.systems)
    return runs, cols
