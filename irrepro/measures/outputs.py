"""What users call: :func:`evaluate` (a run set -> ``{measure: ScoreMatrix}``) and what comes out
of it in trec_eval's, pytrec_eval's, ir_measures' and ranx's forms (:func:`summarize`,
:func:`to_frame`, :func:`to_dict`), with either of trec_eval's averages."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..data import RunSet, ScoreMatrix
from .aggregates import GM_EPSILON
from .judgments import _Judgments
from .kernel import _blocks, _check_err, _run_kernel, _pooled_grades, _specs
from .names import parse_measure

__all__ = ["Evaluation", "evaluate", "summarize", "to_frame", "to_dict"]


class Evaluation(dict):
    """``{measure: ScoreMatrix}`` as :func:`evaluate` returns it, keyed by the measures as given
    (strings or ir_measures objects); any other spelling of an evaluated measure finds it too
    (``ev["MAP"]`` after evaluating ``"AP"``). ``retrieved`` is the (runs, topics) boolean array
    of the lists with at least one document - the topics plain trec_eval averages over."""

    def __init__(self, items, retrieved: np.ndarray, rel: int):
        super().__init__(items)
        self.retrieved = retrieved
        self.rel = rel

    def __missing__(self, key):
        try:
            name = parse_measure(key, rel=self.rel).name
        except ValueError:
            raise KeyError(key) from None
        for sm in self.values():
            if sm.measure == name:
                return sm
        raise KeyError(key)


def evaluate(
    runset: RunSet,
    measures: Sequence | str,
    *,
    rel: int = 1,
    gains: Mapping[int, float] | Sequence[float] | None = None,
    depth: int | None = None,
) -> Evaluation:
    """Score every run of ``runset`` on every topic for each measure (names in the module doc;
    strings or ir_measures objects).

    Returns an :class:`Evaluation`, ``{measure: ScoreMatrix}`` with systems x topics scores whose
    ``measure`` is the canonical name; ``ScoreMatrix.mean()`` is the mean over all the qrels'
    topics, as ``trec_eval -c`` reports it (:func:`summarize` gives either average, with each
    measure's own: sums for the counts, geometric means for ``gm_``). ``rel`` is the lowest
    relevant grade (trec_eval's ``-l``) of binary measures that do not set their own
    (``AP(rel=2)``); ``gains`` maps grade -> gain for graded measures without gains of their own
    (default: the grade itself, for any integer grade); ``depth`` keeps only the top ``depth``
    documents of each list (trec_eval's ``-M``).
    """
    integer = isinstance(depth, (int, np.integer)) and not isinstance(depth, bool)
    if depth is not None and (not integer or depth < 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    pairs, specs = _specs(measures, rel)
    topics = list(runset.topics)
    S, T = len(runset.runs), len(topics)
    table = runset.qrels.table
    judg = _Judgments.from_qrels(table, topics)
    if any(s.family == "ERR" for s in specs):
        _check_err(judg, topics)
    fix = _pooled_fix(runset, judg, table, topics, any(s.family == "infAP" for s in specs))
    out, retrieved = _run_kernel(_blocks(runset, depth=depth), T, specs, judg, gains, S * T, fix)
    mats = {
        s.name: ScoreMatrix(out[s.name].reshape(S, T), tuple(runset.runs), tuple(topics), s.name,
                            runset.name, runset.source)  # fmt: skip
        for s in specs
    }
    return Evaluation({key: mats[s.name] for key, s in pairs}, retrieved.reshape(S, T), rel)


def _pooled_fix(runset, judg: _Judgments, table: pd.DataFrame, topics, infap: bool):
    """A block fix-up for infAP on topics with negative qrels grades (pooled, not judged), or None."""
    pooled = set(judg.pooled_topics.tolist()) if infap else set()
    if not pooled:
        return None
    tindex = {x: i for i, x in enumerate(topics)}
    qrels: dict = {t: {} for t in pooled}
    for tp, d, gr in table[["topic", "doc", "grade"]].itertuples(index=False):
        i = tindex.get(tp)
        if i in qrels:
            qrels[i][d] = int(gr)
    return lambda index, block: _pooled_grades(runset, index, block, pooled, qrels)


def _score_matrices(scores) -> list[ScoreMatrix]:
    if isinstance(scores, ScoreMatrix):
        return [scores]
    seen, out = set(), []
    for sm in scores.values():
        if id(sm) not in seen:
            seen.add(id(sm))
            out.append(sm)
    return out


def _topic_mask(scores, sm: ScoreMatrix, complete: bool, retrieved) -> np.ndarray:
    if complete:
        return np.ones(sm.shape, dtype=bool)
    if retrieved is None:
        retrieved = getattr(scores, "retrieved", None)
    if retrieved is None:
        raise ValueError(
            "complete=False averages over the topics each run retrieved: pass retrieved= "
            "(runs x topics booleans) or the Evaluation that evaluate() returned"
        )
    retrieved = np.asarray(retrieved, dtype=bool)
    if retrieved.shape != sm.shape:
        raise ValueError(f"retrieved has shape {retrieved.shape}, the scores {sm.shape}")
    return retrieved


def _mean(x: np.ndarray) -> np.ndarray:
    """Mean over the topics that are not NaN; NaN for a run with none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (an all-NaN row: "mean of empty slice")
        return np.nanmean(x, axis=1) if x.shape[1] else np.full(len(x), np.nan)


def summarize(scores, *, complete: bool = True, retrieved=None) -> pd.DataFrame:
    """One row per run, one column per measure: trec_eval's summary ("all") line.

    Each measure is combined its own way: the mean over topics, the sum for the counts (NumRet,
    NumRel, NumQ), trec_eval's geometric mean for ``gm_`` measures (exp of the mean of
    log(max(x, 0.00001))). ``complete=True`` takes every qrels topic (a topic the run missed
    scores 0: ``trec_eval -c``); ``complete=False`` only the topics the run retrieved something
    for (plain trec_eval, pytrec_eval, ir_measures; a run that retrieved for no topic gets NaN).
    ``scores`` is what :func:`evaluate` returned (or one ScoreMatrix with ``retrieved``).
    """
    cols = {}
    index = None
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        spec = parse_measure(sm.measure)
        x = np.where(mask, sm.scores, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            if spec.agg == "sum":
                v = np.where(mask.any(axis=1), np.nansum(x, axis=1), np.nan)
            elif spec.agg == "gm":
                v = np.exp(_mean(np.log(np.maximum(x, GM_EPSILON))))
            else:
                v = _mean(x)
        cols[sm.measure] = v
        index = list(sm.systems)
    return pd.DataFrame(cols, index=pd.Index(index or [], name="run"))


def to_frame(scores, *, complete: bool = True, retrieved=None) -> pd.DataFrame:
    """Long form of per-topic scores: columns ``run``, ``query_id``, ``measure`` (the canonical
    name), ``value`` - ordered by run, measure, topic. ``complete=False`` keeps only the topics
    each run retrieved (what pytrec_eval and ir_measures' ``iter_calc`` report)."""
    parts = []
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        S, T = sm.shape
        s_idx, t_idx = np.nonzero(mask)
        parts.append(pd.DataFrame({
            "run": np.asarray(sm.systems, dtype=object)[s_idx],
            "query_id": np.asarray(sm.topics, dtype=object)[t_idx],
            "measure": sm.measure,
            "value": sm.scores[s_idx, t_idx],
            "_s": s_idx,
        }))  # fmt: skip
    if not parts:
        return pd.DataFrame(columns=["run", "query_id", "measure", "value"])
    df = pd.concat(parts, ignore_index=True)
    df = df.sort_values("_s", kind="stable").drop(columns="_s").reset_index(drop=True)
    return df


def to_dict(scores, *, form: str = "pytrec_eval", complete: bool = True, retrieved=None) -> dict:
    """Per-topic scores as nested dicts, keyed by run first.

    * ``form="pytrec_eval"``: ``{run: {query_id: {measure: value}}}`` - each run's part is what
      ``pytrec_eval.RelevanceEvaluator.evaluate`` returns (with irrepro's measure names);
    * ``form="ranx"``: ``{run: {measure: {query_id: value}}}`` - each run's part has the shape of
      ranx's ``Run.scores`` (what ``ranx.evaluate(..., return_mean=False)`` fills in).

    ``complete=False`` keeps only the topics each run retrieved (pytrec_eval's and ranx's own
    output); ``complete=True`` every qrels topic (trec_eval -c).
    """
    if form not in ("pytrec_eval", "ranx"):
        raise ValueError(f"form must be 'pytrec_eval' or 'ranx', got {form!r}")
    out: dict = {}
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        for s, run in enumerate(sm.systems):
            d = out.setdefault(run, {})
            vals = sm.scores[s].tolist()
            keep = mask[s].tolist()
            for topic, v, ok in zip(sm.topics, vals, keep):
                if not ok:
                    continue
                if form == "pytrec_eval":
                    d.setdefault(topic, {})[sm.measure] = v
                else:
                    d.setdefault(sm.measure, {})[topic] = v
    return out
