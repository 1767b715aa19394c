"""The papers' own conditions emulated on public data: fewer relevant documents per topic
(:func:`thin_qrels`, e.g. to TREC-6's :func:`trec6_relevant`) and shallow pools (:func:`pool_qrels`),
as qrels to judge a run set with (:meth:`RunSet.with_qrels`). Not :mod:`irrepro.simulation`, which
simulates scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import parallel
from ..errors import InputError
from ._collections import COLLECTIONS
from ._qrels import Qrels
from ._runset import RunSet

#: The TREC-6 ad hoc topics (301-350), whose judgments the TREC 2004 Robust qrels hold.
TREC6_TOPICS = COLLECTIONS["trec6"].topics


def trec6_relevant(rel: int = 1, *, allow_simulated: bool | None = None) -> np.ndarray:
    """R per topic of TREC-6 ad hoc (topics 301-350) in the TREC 2004 Robust qrels (no Congressional Record).

    Parameters
    ----------
    rel : int, default 1
        The lowest relevant grade.
    allow_simulated : bool, optional
        As for :func:`load_qrels`.

    Returns
    -------
    numpy.ndarray
        R per topic, ``(50,)``, in the order of TREC-6's topics (301 to 350).

    Examples
    --------
    >>> from irrepro.data import trec6_relevant
    >>> int((trec6_relevant() <= 5).sum())  # doctest: +SKIP
    5
    """
    from ._sources import load_qrels

    return load_qrels("robust2004", allow_simulated=allow_simulated).n_relevant(rel, TREC6_TOPICS)


def thin_qrels(
    qrels: Qrels,
    target,
    *,
    seed: parallel.SeedLike,
    rel: int = 1,
    match: str = "rank",
    too_few: str = "error",
    name: str | None = None,
) -> Qrels:
    """Qrels with every topic's relevant documents thinned at random to a target number.

    A uniformly random subset of each topic's relevant documents keeps its grade; every other relevant
    document becomes judged non-relevant (grade 0; why: the book's *Data sources* page).

    Parameters
    ----------
    qrels : Qrels
        The judgments to thin.
    target : mapping or sequence of int
        R wanted: ``{topic: R}`` (every topic with a relevant document), or one number per topic,
        matched to the topics by ``match``.
    seed : int, numpy.random.Generator or SeedSequence
        The random draws, in the order of (topic, document id): the order of the lines does not matter.
    rel : int, default 1
        The lowest relevant grade.
    match : {"rank", "order"}
        ``"rank"``: the smallest target to the topic with the fewest relevant documents, and so on
        up (ties in topic order): exactly the target's distribution of R; ``"order"``: ``target[i]``
        to ``qrels.topics[i]``.
    too_few : {"error", "keep"}
        A topic with fewer relevant documents than its target: an error naming it (default), or it
        keeps all it has.
    name : str, optional
        The result's name.

    Returns
    -------
    Qrels
        The thinned judgments, line for line those of ``qrels``.

    Raises
    ------
    irrepro.InputError
        A topic with too few relevant documents (``too_few="error"``), or a target of 0 (AP is
        undefined without relevant documents).

    Examples
    --------
    >>> from irrepro.data import synthetic, thin_qrels
    >>> qrels = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5).qrels
    >>> qrels.n_relevant()
    array([4, 1, 9, 5])
    >>> thin_qrels(qrels, [1, 2, 2, 3], seed=1).n_relevant()  # by rank: the fewest get the least
    array([2, 1, 3, 2])
    """
    if match not in ("rank", "order"):
        raise InputError(f"match must be 'rank' or 'order', not {match!r}")
    if too_few not in ("error", "keep"):
        raise InputError(f"too_few must be 'error' or 'keep', not {too_few!r}")
    topics = qrels.topics
    R = qrels.n_relevant(rel)
    want = _targets(target, topics, R, match)
    short = np.flatnonzero(want > R)
    if len(short) and too_few == "error":
        i = short[0]
        raise InputError(
            f"topic {topics[i]!r} has {R[i]} relevant documents, fewer than its target {want[i]} "
            f"({len(short)} topic(s) short; too_few='keep' keeps all they have)"
        )
    want = np.minimum(want, R)
    t_col, d_col, g_col = qrels._columns
    t_idx = qrels._topic_index.astype(np.int64)
    lines = np.flatnonzero(g_col >= rel)
    # a uniform key per relevant line, drawn in (topic, doc id) order; a topic keeps its
    # want[t] smallest keys: a uniformly random subset of that size
    by_id = lines[np.lexsort((d_col[lines].astype(str), t_idx[lines]))]
    key = np.empty(len(g_col))
    key[by_id] = parallel.as_generator(seed).random(len(by_id))
    order = lines[np.lexsort((key[lines], t_idx[lines]))]
    first = np.searchsorted(t_idx[order], np.arange(len(topics)))
    rank = np.arange(len(order)) - first[t_idx[order]]
    grade = g_col.copy()
    grade[order[rank >= want[t_idx[order]]]] = 0
    label = name if name is not None else f"{qrels.name} (relevant documents thinned)"
    return Qrels(columns=(t_col, d_col, grade), name=label, source=qrels.source)


def _targets(target, topics: Sequence[str], R: np.ndarray, match: str) -> np.ndarray:
    """The target R of every topic (``topics`` order) from :func:`thin_qrels`' ``target``."""
    T = len(topics)
    no_zero = "a target of 0 relevant documents leaves AP undefined; give each topic at least 1"
    if isinstance(target, Mapping):
        missing = [t for t, r in zip(topics, R) if r > 0 and t not in target]
        if missing:
            raise InputError(f"target has no number for topic(s) {missing[:5]} (of {len(missing)})")
        unknown = sorted(set(map(str, target)) - set(topics))
        if unknown:
            raise InputError(f"target names topic(s) the qrels lack: {unknown[:5]}")
        want = np.array([parallel.check_int(target.get(t, 0), f"target[{t!r}]", minimum=0) for t in topics])
        if np.any((want == 0) & (R > 0)):
            raise InputError(no_zero)
        return want.astype(np.int64)
    want = np.asarray(target)
    if want.ndim != 1 or len(want) != T:
        raise InputError(
            f"target has {want.size} number(s) for {T} topics: give one per topic (for another number "
            "of topics, take quantiles of the target first), or a mapping {topic: R}"
        )
    if not np.issubdtype(want.dtype, np.integer):
        raise InputError(f"target must hold integers, got {want.dtype}")
    if want.min() < 1:
        raise InputError(no_zero)
    want = want.astype(np.int64)
    if match == "order":
        return want
    out = np.empty(T, dtype=np.int64)
    out[np.argsort(R, kind="stable")] = np.sort(want)
    return out


def pool_documents(runs: RunSet, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pool of depth ``depth``: the union over the runs of their top ``depth`` documents per topic."""
    depth = parallel.check_int(depth, "depth", minimum=1)
    T = len(runs.topics)
    V = np.int64(max(len(runs.vocab), 1))
    top = runs.truncate(depth)  # ragged: memory follows the number of retrieved documents
    tix = np.repeat(np.arange(len(top.offsets) - 1) % T, np.diff(top.offsets))
    keys, first = np.unique(tix * V + top.flat_docs, return_index=True)
    return keys // V, keys % V, top.flat_grades[first].astype(np.int64)


def pool_qrels(runs: RunSet, depth: int, *, name: str | None = None) -> Qrels:
    """The qrels of ``runs`` restricted to the pool of depth ``depth`` (other judgments dropped).

    A topic whose pool holds no judgment is dropped too: ``runs.subset(topics=q.topics).with_qrels(q)``.

    Parameters
    ----------
    runs : RunSet
        The runs that pool, with their qrels.
    depth : int
        The pool depth.
    name : str, optional
        The result's name.

    Returns
    -------
    Qrels
        The judgments of the pooled documents.

    Examples
    --------
    >>> from irrepro.data import pool_qrels, synthetic
    >>> rs = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5)
    >>> rs.qrels.n_relevant(), pool_qrels(rs, 2).n_relevant()
    (array([4, 1, 9, 5]), array([2, 1, 4, 3]))
    """
    t, d, _ = pool_documents(runs, depth)
    qt, qd = runs._codes_of(runs.qrels)
    V = np.int64(max(len(runs.vocab), 1))
    keep = (qt >= 0) & (qd >= 0) & np.isin(qt * V + qd, t * V + d)
    label = name if name is not None else f"{runs.qrels.name} (depth-{depth} pool)"
    return runs.qrels.select(keep, name=label)
