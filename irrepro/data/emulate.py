"""The papers' own conditions, emulated on public data: fewer relevant documents per topic, and
shallow pools.

The book replaces the papers' collections (TREC-6 ad hoc, NTCIR-3 CLIR) by TREC-COVID, whose
topics have hundreds of relevant documents where theirs had tens. Two emulations bring those
conditions back on TREC-COVID's own runs and judgments, each returning ordinary :class:`Qrels`
(judge a run set with them by :meth:`RunSet.with_qrels`):

- :func:`thin_qrels` keeps, in every topic, a uniformly drawn subset of its relevant documents
  of a target size, e.g. TREC-6's numbers of relevant documents (:func:`trec6_relevant`) matched
  topic by topic in rank order of R;
- :func:`pool_qrels` keeps only the judgments of the documents in the top ``depth`` of the runs
  (``pool_documents``), as a pool of that depth would have judged them.

One-line use::

    from irrepro import data
    rs = data.load_runs("trec-covid-round5")
    thin = data.thin_qrels(rs.qrels, data.trec6_relevant(), seed=1)   # TREC-6's R, rank order
    rs6 = rs.with_qrels(thin)                                         # the same runs, judged so
    rs100 = rs.with_qrels(data.pool_qrels(rs, 100))                   # a depth-100 pool
"""

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
    """R per topic of TREC-6 ad hoc (topics 301-350), from the TREC 2004 Robust qrels.

    The documents with grade >= ``rel`` in ``disks45/nocr/trec-robust-2004``, in
    the order of TREC-6's topics. Those qrels hold TREC-6's ad hoc judgments of topics 301-350 on TREC
    disks 4 and 5 *without the Congressional Record* (the Robust track's "nocr" collection), so a
    topic's R here can be below TREC-6's own where a relevant document was a Congressional Record one.
    Cormack & Lynam (2006, section 7) give TREC-6's small values: 5 of 50 topics with R <= 5 (three
    with R = 5, one with 4, one with 3); these qrels have 5 too (two with 5, two with 4, one with 3).

    Parameters
    ----------
    rel : int, default 1
        The lowest relevant grade.
    allow_simulated : bool, optional
        When the qrels cannot be had: the simulated stand-in's (see :func:`irrepro.data.load_qrels`)
        rather than :class:`~irrepro.data.DataUnavailable`.

    Returns
    -------
    numpy.ndarray
        R per topic, ``(50,)``.

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

    In each topic, a uniformly random subset of its relevant documents (grade >= ``rel``) of size
    ``target`` keeps its grade; every other relevant document becomes **judged non-relevant (grade
    0)**. Nothing else changes: judged non-relevant documents, documents with grades below ``rel``,
    unjudged (negative) lines and the line order are kept, so line ``i`` of the result is line ``i``
    of ``qrels`` (``(qrels.table.grade >= rel) & (result.table.grade < rel)`` are the thinned
    documents). The kept documents keep their grades, so graded measures see the same mix of grades
    in expectation. This emulates Cormack & Lynam's (2006, section 7) TREC-6 numbers of relevant
    documents on public data.

    Parameters
    ----------
    qrels : Qrels
        The judgments to thin.
    target : mapping or sequence of int
        The numbers of relevant documents wanted: a mapping ``{topic: R}`` (every topic of the qrels
        with a relevant document), or a sequence with one number per topic, matched to the topics
        (``qrels.topics`` order) by ``match``.
    seed : int, numpy.random.Generator or SeedSequence
        The random draws: one uniform number per relevant line, taken in the order of (topic,
        document id), so the result does not depend on the order of the qrels' lines.
    rel : int, default 1
        The lowest relevant grade.
    match : {"rank", "order"}
        ``"rank"`` (default) gives the smallest target to the topic with the fewest relevant
        documents and so on up (ties in R broken by topic order), so the thinned qrels have exactly
        the target's distribution of R and keep the topics' order of R; ``"order"`` gives
        ``target[i]`` to ``qrels.topics[i]``.
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

    Notes
    -----
    Why grade 0 and not unjudged: every thinned document was in the pool of the collection (it was
    judged), and in the emulated collection it is not relevant, so an assessor of a pool like
    TREC-6's would have judged it non-relevant. For AP, P@k, nDCG and Q the two are the same
    (trec_eval counts an unjudged document as non-relevant); they differ for the measures that look
    at judgments (bpref, infAP, Judged@k, condensed lists), where unjudged would emulate a shallower
    pool instead, which is :func:`pool_qrels`' job. R of the thinned topic is the target; the number
    of judged documents does not change. (To remove the thinned documents from the corpus
    altogether, drop their lines and their places in the runs.)

    Examples
    --------
    >>> from irrepro.data import synthetic, thin_qrels
    >>> qrels = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5).qrels
    >>> qrels.n_relevant()
    array([4, 1, 9, 5])
    >>> thin_qrels(qrels, [1, 2, 2, 3], seed=1).n_relevant()  # by rank: the fewest get the least
    array([2, 1, 3, 2])
    >>> thin_qrels(qrels, {"1": 1, "2": 1, "3": 1, "4": 1}, seed=1).n_relevant()
    array([1, 1, 1, 1])
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
    """The qrels of ``runs`` restricted to the pool of depth ``depth`` (``pool_documents``).

    The judgments of the pooled documents, as they are; every other judgment is dropped, so its
    document becomes unjudged, as a pool of that depth would have left it. R, and which documents are
    judged, change as pooling changes them (Sanderson & Zobel 2005, section 4). A topic whose pool
    holds no judged document drops out of the qrels; judge the run set's other topics with them
    through ``runs.subset(topics=q.topics).with_qrels(q)``.

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
    >>> shallow = rs.with_qrels(pool_qrels(rs, 2))  # the runs judged by the shallow pool
    """
    t, d, _ = pool_documents(runs, depth)
    qt, qd = runs._codes_of(runs.qrels)
    V = np.int64(max(len(runs.vocab), 1))
    keep = (qt >= 0) & (qd >= 0) & np.isin(qt * V + qd, t * V + d)
    label = name if name is not None else f"{runs.qrels.name} (depth-{depth} pool)"
    return runs.qrels.select(keep, name=label)
