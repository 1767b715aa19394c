"""Scoring a run set, and its scores in trec_eval's, pytrec_eval's, ir_measures' and ranx's forms,
with either of trec_eval's averages (the summary combines the topics a run's average takes in
trec_eval's order, the bytes of their ids, each measure its own way)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._measure_names import parse_measure
from ..data import UNJUDGED, RunSet, ScoreMatrix
from ..data._columns import _np, _pa_strings
from ..errors import InputError
from ..escape import plain
from . import kernel
from .aggregates import GM_EPSILON
from .judgments import _Judgments
from .kernel import _POOLED, _check_err, _run_kernel, _specs
from .trec_names import _trec_eval_key, trec_eval_name

if TYPE_CHECKING:  # pandas is imported by the functions that return frames: evaluating needs none
    import pandas as pd


class Evaluation(dict):
    """The scores of ``evaluate``: ``{measure: ScoreMatrix}``."""

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
    """Score every run of ``runset`` on every topic for each measure (:func:`summarize` averages them).

    Parameters
    ----------
    runset : irrepro.data.RunSet
        The runs and their qrels (:func:`irrepro.data.load_runs`).
    measures : str or sequence
        Measure names or ir_measures objects.
    rel : int
        The lowest relevant grade of binary measures that do not set their own (``AP(rel=2)``;
        trec_eval's ``-l``).
    gains : mapping or sequence or None
        Grade -> gain of graded measures without gains of their own (None: the grade itself).
    depth : int or None
        Keep only the top ``depth`` documents of each list (trec_eval's ``-M``).

    Returns
    -------
    Evaluation
        ``{measure: ScoreMatrix}``, (runs, topics) scores each.

    Examples
    --------
    >>> from irrepro import data, measures
    >>> qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}})
    >>> runs = data.load_runs({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 1.0}}, qrels)
    >>> ev = measures.evaluate(runs, ["AP", "P@2"])
    >>> ev["AP"].scores  # relevant at ranks 1 and 3 of 2: (1/1 + 2/3) / 2
    array([[0.83333333, 0.        ]])
    """
    integer = isinstance(depth, (int, np.integer)) and not isinstance(depth, bool)
    if depth is not None and (not integer or depth < 1):
        raise InputError(f"depth must be a positive integer, got {depth!r}")
    pairs, specs = _specs(measures, rel)
    topics = list(runset.topics)
    S, T = len(runset.runs), len(topics)
    judg = _Judgments.from_qrels(runset.qrels, topics)
    if any(s.family == "ERR" for s in specs):
        _check_err(judg, topics)
    fix = _pooled_fix(runset, judg, topics, any(s.family == "infAP" for s in specs))
    blocks = runset.iter_blocks(max_cells=kernel._CHUNK_CELLS, depth=depth)
    out, retrieved = _run_kernel(blocks, T, specs, judg, gains, S * T, fix)
    names = tuple(runset.runs), tuple(topics)
    mats = {
        s.name: ScoreMatrix(out[s.name].reshape(S, T), *names, s.name, runset.name, runset.source)
        for s in specs
    }
    return Evaluation({key: mats[s.name] for key, s in pairs}, retrieved.reshape(S, T), rel)


def _pooled_fix(runset, judg: _Judgments, topics, infap: bool):
    """For infAP: a block fix-up marking the pooled-but-unjudged documents (negative qrels grade), or None."""
    pooled = set(judg.pooled_topics.tolist()) if infap else set()
    if not pooled:
        return None
    T = len(topics)
    tindex = {x: i for i, x in enumerate(topics)}
    qrels: dict = {t: {} for t in pooled}
    for tp, d, gr in zip(*runset.qrels._columns):
        i = tindex.get(tp)
        if i in qrels:
            qrels[i][d] = int(gr)

    def fix(index: np.ndarray, block: np.ndarray) -> np.ndarray:
        rows = np.flatnonzero(np.isin(index % T, list(pooled)))
        if not len(rows):
            return block
        block = block.astype(np.int64)
        for i in rows.tolist():
            s, t = divmod(int(index[i]), T)
            docs = runset.doc_ids(s, t)[: block.shape[1]]
            vals = block[i, : len(docs)]
            in_pool = np.array([qrels[t].get(d, 0) < 0 for d in docs], dtype=bool)
            vals[in_pool & (vals == UNJUDGED)] = _POOLED
        return block

    return fix


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


def summarize(scores, *, complete: bool = True, retrieved=None) -> pd.DataFrame:
    """One row per run, one column per measure: trec_eval's summary ("all") line, to the last bit.

    The mean over topics, the sum of counts, the geometric mean of ``gm_`` measures.

    Parameters
    ----------
    scores : Evaluation or irrepro.data.ScoreMatrix
        What ``evaluate`` returned.
    complete : bool
        Average over every qrels topic, a missed one scoring 0 (``trec_eval -c``), or only those
        the run retrieved for (plain trec_eval, pytrec_eval, ir_measures; NaN for a run with none).
    retrieved : numpy.ndarray or None
        The (runs, topics) retrieved mask, with a single ScoreMatrix.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from irrepro import measures
    >>> measures.summarize(ev)
               AP   P@2
    run
    run  0.416667  0.25
    """
    import pandas as pd

    runs, cols = _summary(scores, complete, retrieved)
    return pd.DataFrame(cols, index=pd.Index(list(runs), name="run"))


def to_frame(scores, *, complete: bool = True, retrieved=None) -> pd.DataFrame:
    """Long form of per-topic scores: one row per run, measure and topic, in that order.

    Parameters
    ----------
    scores : Evaluation or irrepro.data.ScoreMatrix
        What ``evaluate`` returned.
    complete : bool
        Every qrels topic, or only those each run retrieved for (pytrec_eval, ``iter_calc``).
    retrieved : numpy.ndarray or None
        The (runs, topics) retrieved mask, with a single ScoreMatrix.

    Returns
    -------
    pandas.DataFrame
        Columns ``run``, ``query_id``, ``measure``, ``value``.

    Examples
    --------
    >>> from irrepro import measures
    >>> measures.to_frame(ev).head(2)
       run query_id measure     value
    0  run       q1      AP  0.833333
    1  run       q2      AP  0.000000
    """
    import pandas as pd

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
    return df.sort_values("_s", kind="stable").drop(columns="_s").reset_index(drop=True)


def to_dict(scores, *, form: str = "pytrec_eval", complete: bool = True, retrieved=None) -> dict:
    """Per-topic scores as nested dicts, keyed by run first.

    Parameters
    ----------
    scores : Evaluation or irrepro.data.ScoreMatrix
        What ``evaluate`` returned.
    form : {"pytrec_eval", "ranx"}
        ``{run: {query_id: {measure: value}}}`` as ``pytrec_eval.RelevanceEvaluator.evaluate``
        gives, or ``{run: {measure: {query_id: value}}}`` as ranx's ``Run.scores``.
    complete : bool
        Every qrels topic, or only those each run retrieved for.
    retrieved : numpy.ndarray or None
        The (runs, topics) retrieved mask, with a single ScoreMatrix.

    Returns
    -------
    dict
        ``{run: ...}`` as ``form`` says.

    Examples
    --------
    >>> from irrepro import measures
    >>> measures.to_dict(ev)["run"]["q1"]
    {'AP': 0.8333333333333333, 'P@2': 0.5}
    """
    if form not in ("pytrec_eval", "ranx"):
        raise InputError(f"form must be 'pytrec_eval' or 'ranx', got {form!r}")
    out: dict = {}
    for sm in _score_matrices(scores):
        mask = _topic_mask(scores, sm, complete, retrieved)
        for s, run in enumerate(sm.systems):
            d = out.setdefault(run, {})
            for topic, v, ok in zip(sm.topics, sm.scores[s].tolist(), mask[s].tolist()):
                if ok:
                    outer, inner = (topic, sm.measure) if form == "pytrec_eval" else (sm.measure, topic)
                    d.setdefault(outer, {})[inner] = v
    return out


def _rows(
    scores, *, per_topic: bool, complete: bool = True, retrieved=None, rel: int | None = None, trec_eval=False
) -> Iterator[tuple]:
    """The long table of per-topic and summary values, pandas-free, a row at a time (never all held)."""
    # ``trec_eval=False``: measures named and ordered as given, topics in the scores' order.
    # ``trec_eval=True``: as trec_eval prints them (:func:`to_trec_eval`): trec_eval's names
    # (under ``-l rel``) and order, topics by the bytes of their ids, and each summary opened
    # by the ``runid`` row (value: the run's name; is_count None).
    if rel is None:
        rel = getattr(scores, "rel", 1)
    mats = _score_matrices(scores)
    if trec_eval:
        mats = sorted(mats, key=lambda sm: _trec_eval_key(sm.measure, rel))
    if not mats:
        return
    specs = [parse_measure(sm.measure) for sm in mats]
    names = [
        (trec_eval_name(sp, rel=rel) or sm.measure) if trec_eval else sm.measure
        for sm, sp in zip(mats, specs)
    ]
    counts = [sp.agg == "sum" for sp in specs]
    per_line = [not (sp.family == "NumQ" or sp.agg in ("gm", "G")) for sp in specs]
    runs, summary = _summary(scores, complete, retrieved)
    topics = mats[0].topics
    order = _trec_eval_order(topics) if trec_eval else np.arange(len(topics))
    masks = [_topic_mask(scores, sm, complete, retrieved) for sm in mats]
    shown = [(sm, name, count, mask) for sm, name, count, line, mask in zip(mats, names, counts, per_line, masks)
             if line]  # fmt: skip
    step = 1 << 14  # (topics a block at a time: their values as Python floats, a block's worth)
    for s, run in enumerate(runs):
        for a in range(0, len(order) if per_topic else 0, step):
            at = order[a : a + step]
            block = [(name, count, np.asarray(sm.scores[s, at], dtype=np.float64).tolist(), mask[s, at].tolist())
                     for sm, name, count, mask in shown]  # fmt: skip
            for j, t in enumerate(at.tolist()):
                for name, count, values, keep in block:
                    if keep[j]:
                        yield run, topics[t], name, values[j], count
        if trec_eval:
            yield run, "all", "runid", run, None
        for sm, name, count in zip(mats, names, counts):
            yield run, "all", name, float(summary[sm.measure][s]), count


def to_trec_eval(
    scores,
    *,
    per_topic: bool = False,
    complete: bool = True,
    retrieved=None,
    rel: int | None = None,
    digits: int = 4,
) -> str:
    """The scores as ``trec_eval -m runid -m ...`` prints them, run after run, byte for byte.

    Exceptions: the API page. A measure trec_eval lacks at level ``rel`` comes last, under irrepro's name.

    Parameters
    ----------
    scores : Evaluation or irrepro.data.ScoreMatrix
        What ``evaluate`` returned.
    per_topic : bool
        Per-topic lines too (trec_eval's ``-q``).
    complete : bool
        Average over every qrels topic (trec_eval's ``-c``).
    retrieved : numpy.ndarray or None
        The (runs, topics) retrieved mask, with a single ScoreMatrix.
    rel : int or None
        trec_eval's ``-l`` for the names (None: the Evaluation's).
    digits : int
        Decimals of the values.

    Returns
    -------
    str
        trec_eval's output.

    Examples
    --------
    >>> from irrepro import measures
    >>> print(measures.to_trec_eval(ev))
    runid                   all   run
    map                     all   0.4167
    P_2                     all   0.2500
    """
    return "".join(_trec_eval_text(scores, per_topic=per_topic, complete=complete, retrieved=retrieved,
                                   rel=rel, digits=digits))  # fmt: skip


def _trec_eval_text(
    scores, *, per_topic: bool, complete: bool = True, retrieved=None, rel: int | None = None, digits: int = 4
) -> Iterator[str]:
    """The text of :func:`to_trec_eval` in pieces of some thousand lines, made as asked for."""
    lines: list[str] = []
    last, shown = None, ""
    for _, topic, name, v, count in _rows(scores, per_topic=per_topic, complete=complete,
                                          retrieved=retrieved, rel=rel, trec_eval=True):  # fmt: skip
        value = plain(v) if count is None else str(int(v)) if count and np.isfinite(v) else f"{v:6.{digits}f}"
        if topic is not last:  # (a topic's lines follow each other)
            last, shown = topic, plain(topic)  # a name's tab or newline made visible
        lines.append(f"{name:<22}\t{shown}\t{value}\n")
        if len(lines) >= 1 << 14:
            yield "".join(lines)
            lines.clear()
    if lines:
        yield "".join(lines)
