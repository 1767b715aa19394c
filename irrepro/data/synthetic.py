"""The simulated stand-in: runs, qrels and score matrices drawn from a documented generative model,
used only when a collection's real files cannot be had (every page showing its numbers says so),
meant to *look like* TREC data; and TREC files written from runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from ..parallel import as_generator
from ._matrices import ScoreMatrix
from ._qrels import Qrels
from ._runs import Run, build_runset
from ._runset import RunSet

__all__ = ["runs", "score_matrix", "write_trec", "perturbed_archive"]


def _topics(topics: int | Sequence[str]) -> tuple[str, ...]:
    if isinstance(topics, (int, np.integer)):
        return tuple(str(i) for i in range(1, int(topics) + 1))
    return tuple(str(t) for t in topics)


def _relevant_grades(rng: np.random.Generator, n: int, max_grade: int) -> np.ndarray:
    """Grades of ``n`` relevant documents: 1, or with probability 1/2 ``max_grade``."""
    return 1 + (rng.random(n) < 0.5) * (max_grade - 1) if max_grade > 1 else np.ones(n, dtype=np.int64)


def runs(
    n_runs: int = 126,
    topics: int | Sequence[str] = 50,
    *,
    list_length: int = 1000,
    r_median: float = 60.0,
    max_grade: int = 2,
    pool_depth: int = 20,
    seed: int | np.random.Generator = 0,
    name: str = "simulated",
) -> RunSet:
    """Draw a :class:`~irrepro.data.RunSet` (runs with doc ids, and its qrels) from the runs model.

    Per topic ``t`` and system ``s``: difficulty ``d_t ~ N(0, 0.6^2)``, quality ``q_s ~ N(0, 0.35^2)``,
    interaction ``e_st ~ N(0, 0.45^2)``; ``R_t = round(LogNormal(log(r_median), 0.8))`` clipped to
    ``[1, 2 * list_length]`` relevant documents of grade 1 or, with probability 1/2, ``max_grade``; a
    pool of ``R_t + 3 * list_length`` documents ``sim{t}-{i:05d}`` shared by all systems, each scored
    independently (binormal): non-relevant ``N(0, 1)``, grade ``g`` ``N(delta_st * (0.6 + 0.4 g), 1)``
    with ``delta_st = 1.1 + q_s - d_t + e_st``; a system retrieves its ``list_length`` best. Judged:
    every relevant document, and as 0 the others in the union of the systems' top ``pool_depth``.
    Deterministic for a given ``seed``.

    Parameters
    ----------
    n_runs : int, default 126
        Number of runs (TREC-COVID round 5 has 126).
    topics : int or sequence of str, default 50
        Number of topics (ids ``"1"``, ``"2"``, ...) or the topic ids.
    list_length : int, default 1000
        Documents retrieved per topic.
    r_median : float, default 60.0
        Median number of relevant documents per topic.
    max_grade : int, default 2
        Highest relevance grade.
    pool_depth : int, default 20
        Depth of the pool whose non-relevant documents are judged.
    seed : int or numpy.random.Generator, default 0
        The random numbers' source.
    name : str, default "simulated"
        The run set's name.

    Returns
    -------
    RunSet
        ``source == "simulated"``.

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> rs = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5)
    >>> rs.runs, rs.topics, rs.source
    (('simrun001', 'simrun002', 'simrun003'), ('1', '2', '3', '4'), 'simulated')
    """
    rng = as_generator(seed)
    topic_ids = _topics(topics)
    T = len(topic_ids)
    d = rng.normal(0, 0.6, T)
    q = rng.normal(0, 0.35, n_runs)
    e = rng.normal(0, 0.45, (n_runs, T))
    run_tables: list[list[pd.DataFrame]] = [[] for _ in range(n_runs)]
    qrel_rows = []
    for t, topic in enumerate(topic_ids):
        R = int(np.clip(round(rng.lognormal(np.log(r_median), 0.8)), 1, 2 * list_length))
        n_docs = R + 3 * list_length
        grade = np.zeros(n_docs, dtype=np.int64)
        grade[:R] = _relevant_grades(rng, R, max_grade)
        perm = rng.permutation(n_docs)  # relevant documents get random ids
        doc_ids = np.array([f"sim{topic}-{i:05d}" for i in range(n_docs)], dtype=object)[perm]
        delta = 1.1 + q - d[t] + e[:, t]  # (S,)
        mean = np.where(grade > 0, 0.6 + 0.4 * grade, 0.0)[None, :] * delta[:, None]
        scores = mean + rng.standard_normal((n_runs, n_docs))
        k = min(list_length, n_docs)
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        pooled = set()
        for s in range(n_runs):
            idx = top[s][np.argsort(-scores[s, top[s]], kind="stable")]
            run_tables[s].append(
                pd.DataFrame({"topic": topic, "doc": doc_ids[idx], "score": np.round(scores[s, idx], 6)})
            )
            pooled.update(idx[:pool_depth].tolist())
        judged = np.zeros(n_docs, dtype=bool)
        judged[:R] = True
        judged[list(pooled)] = True
        qrel_rows += [(topic, doc_ids[i], int(grade[i])) for i in np.flatnonzero(judged)]
    runs_ = [
        Run(f"simrun{s + 1:03d}", pd.concat(tabs, ignore_index=True), "<simulated>")
        for s, tabs in enumerate(run_tables)
    ]
    qrels = Qrels(pd.DataFrame(qrel_rows, columns=["topic", "doc", "grade"]), f"{name} qrels", "simulated")
    return build_runset(runs_, qrels, name=name, source="simulated")


def _qrels(
    topics: int | Sequence[str], *, r_median: float = 60.0, seed: int | np.random.Generator = 0, name: str
) -> Qrels:
    """Judgments alone (no runs): per topic round(LogNormal(log(r_median), 0.8)) relevant documents
    (grade 1 or, with probability 1/2, 2) and round(LogNormal(log(1200), 0.4)) judged non-relevant."""
    rng = as_generator(seed)
    rows = []
    for topic in _topics(topics):
        R = max(1, int(round(rng.lognormal(np.log(r_median), 0.8))))
        N = max(1, int(round(rng.lognormal(np.log(1200.0), 0.4))))
        grades = np.r_[_relevant_grades(rng, R, 2), np.zeros(N, dtype=int)]
        rows += [(topic, f"sim{topic}-{i:05d}", int(g)) for i, g in enumerate(grades)]
    return Qrels(pd.DataFrame(rows, columns=["topic", "doc", "grade"]), name, "simulated")


def score_matrix(
    n_systems: int,
    topics: int | Sequence[str],
    measure: str = "AP",
    *,
    seed: int | np.random.Generator = 0,
    collection: str = "simulated",
) -> ScoreMatrix:
    """Draw a systems x topics :class:`~irrepro.data.ScoreMatrix` of ``measure`` from the score-matrix model.

    A latent ``eta_st = -1.1 + q_s - d_t + e_st`` (normals of sd 0.35, 0.9, 0.55) gives ``AP =
    expit(eta)``, ``nDCG = expit(eta + 0.6)``, ``P@k ~ Binomial(k, expit(eta + 0.7)) / k``, ``RR =
    expit(eta + 1.2)`` (DCG and nDCG_sakai as nDCG, ERR as RR, in any spelling ``parse_measure``
    reads), anything else ``expit(eta)``. Deterministic for a given ``seed``, which gives the same
    latent qualities for every measure (so they correlate as real ones do).

    Parameters
    ----------
    n_systems : int
        Number of systems.
    topics : int or sequence of str
        Number of topics or the topic ids.
    measure : str, default "AP"
        The measure (``"AP"``, ``"nDCG"``, ``"P@10"``, ``"RR"``; anything else is drawn as AP).
    seed : int or numpy.random.Generator, default 0
        The random numbers' source.
    collection : str, default "simulated"
        The collection's name.

    Returns
    -------
    ScoreMatrix
        ``source == "simulated"``.

    Examples
    --------
    >>> from irrepro.data import synthetic
    >>> m = synthetic.score_matrix(4, 3, "AP", seed=1)
    >>> m.systems, m.scores[0].round(3)
    (('sys1', 'sys2', 'sys3', 'sys4'), array([0.186, 0.235, 0.417]))
    """
    from .._measure_names import family_cutoff

    rng = as_generator(seed)
    topic_ids = _topics(topics)
    T = len(topic_ids)
    q = rng.normal(0, 0.35, n_systems)
    d = rng.normal(0, 0.9, T)
    e = rng.normal(0, 0.55, (n_systems, T))
    eta = -1.1 + q[:, None] - d[None, :] + e
    family, k = family_cutoff(measure)  # (P@10, P_10, Precision@10; a name of no measure is a label)
    noise = np.random.default_rng(rng.integers(2**63))  # measure-specific draws after the latent ones
    if family == "P" and k is not None:
        scores = noise.binomial(k, expit(eta + 0.7)) / k
    elif family in ("nDCG", "DCG", "nDCG_sakai"):
        scores = expit(eta + 0.6)
    elif family in ("RR", "ERR"):
        scores = expit(eta + 1.2)
    else:
        scores = expit(eta)
    systems = tuple(f"sys{i + 1}" for i in range(n_systems))
    return ScoreMatrix(
        np.round(scores, 4), systems, topic_ids, measure, collection=collection, source="simulated"
    )


def write_trec(runset: RunSet, directory, *, gzip: bool = False, qrels=None) -> list:
    """Write each run of ``runset`` as a TREC run file into ``directory`` (scores: the reversed ranks), and its qrels.

    Parameters
    ----------
    runset : RunSet
        The runs.
    directory : str or os.PathLike
        Where the run files go (created if need be), one per run, named by the run.
    gzip : bool, default False
        Write gzip-compressed files.
    qrels : str or os.PathLike, optional
        Where the qrels go (default ``directory/qrels.txt``).

    Returns
    -------
    list of pathlib.Path
        The run files.

    Examples
    --------
    >>> import tempfile
    >>> from irrepro.data import synthetic
    >>> rs = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     print([p.name for p in synthetic.write_trec(rs, d)])
    ['simrun001', 'simrun002', 'simrun003']
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for s, name in enumerate(runset.runs):
        lists = [(topic, runset.doc_ids(s, t)) for t, topic in enumerate(runset.topics)]
        paths.append(_write_run(out / (f"{name}.gz" if gzip else name), name, lists, gzip=gzip))
    qt = runset.qrels.table
    Path(qrels or out / "qrels.txt").write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, d, g in qt[["topic", "doc", "grade"]].itertuples(index=False))
    )
    return paths


def _write_run(path, name: str, lists, *, gzip: bool):
    """One TREC run file: ``lists`` of (topic, ranked doc ids); scores are the reversed ranks."""
    lines: list[str] = []
    for topic, docs in lists:
        n = len(docs)
        lines.extend(f"{topic} Q0 {doc} {r + 1} {n - r} {name}\n" for r, doc in enumerate(docs))
    if gzip:
        import gzip as gz

        with gz.open(path, "wt", compresslevel=1) as f:
            f.writelines(lines)
    else:
        path.write_text("".join(lines))
    return path


def perturbed_archive(
    source: RunSet,
    n_runs: int,
    directory,
    *,
    seed: int = 0,
    gzip: bool = True,
    n_jobs: int | None = None,
    progress: bool | str = False,
) -> list:
    """Write ``n_runs`` synthetic runs, made by perturbing the real runs of ``source``, as TREC run files.

    Run ``j`` (from child ``j`` of ``seed``, whatever ``n_runs`` and ``n_jobs``) fuses run ``j mod S``
    of ``source`` (its base) and another drawn at random: per topic, a base document's key is
    ``log(rank) + sigma * e``, a donor's ``log(rank) + shift + sigma * e`` (``e ~ N(0, 1)``, ``sigma ~
    U(0.2, 1.5)``, ``shift ~ U(0, 2)`` per run), a document in both keeps its smaller key, and the
    list ranked by key is cut to the base's length. Named ``synthNNNNN-<base>``.

    Parameters
    ----------
    source : RunSet
        The real runs.
    n_runs : int
        Number of synthetic runs.
    directory : str or os.PathLike
        Where they go.
    seed : int, default 0
        The random numbers' source.
    gzip : bool, default True
        Write gzip-compressed files.
    n_jobs : int, optional
        Worker processes (``irrepro.parallel.parallel_map``).
    progress : bool or str, default False
        A progress bar (a str: its label).

    Returns
    -------
    list of pathlib.Path
        The run files.

    Examples
    --------
    >>> import tempfile
    >>> from irrepro.data import synthetic
    >>> rs = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     print([p.name for p in synthetic.perturbed_archive(rs, 2, d, seed=1, gzip=False)])
    ['synth00000-simrun001', 'synth00001-simrun002']
    """
    from ..parallel import as_seed_sequence, check_int, parallel_map

    n_runs = check_int(n_runs, "n_runs", minimum=1)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    seeds = as_seed_sequence(seed).spawn(n_runs)
    S, T = len(source.runs), len(source.topics)
    width = max(5, len(str(n_runs - 1)))

    def lists_of(s: int, t: int) -> np.ndarray:
        i = s * T + t
        return source.flat_docs[source.offsets[i] : source.offsets[i + 1]]

    def one(j: int):
        rng = as_generator(seeds[j])
        base = j % S
        donor = (base + 1 + int(rng.integers(S - 1))) % S if S > 1 else base
        sigma, shift = rng.uniform(0.2, 1.5), rng.uniform(0.0, 2.0)
        lists = []
        for t, topic in enumerate(source.topics):
            a, b = lists_of(base, t), lists_of(donor, t)
            if len(a) == 0:
                continue
            docs = np.concatenate([a, b])
            key = np.concatenate([np.log1p(np.arange(len(a))), np.log1p(np.arange(len(b))) + shift])
            key += sigma * rng.standard_normal(len(key))
            order = np.argsort(key, kind="stable")
            _, first = np.unique(docs[order], return_index=True)  # each document at its smallest key
            keep = order[np.sort(first)][: len(a)]
            lists.append((topic, source.vocab[docs[keep]]))
        name = f"synth{j:0{width}d}-{source.runs[base]}"
        return _write_run(out / (f"{name}.gz" if gzip else name), name, lists, gzip=gzip)

    # the files are this machine's: the tasks stay here even when a Dask scheduler is set
    return parallel_map(one, range(n_runs), n_jobs=n_jobs, progress=progress, here=True)
