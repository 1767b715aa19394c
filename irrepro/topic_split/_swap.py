"""The swap experiment (Sanderson & Zobel 2005, sections 3, 4 and 7): order swaps between two topic
sets per pair of runs, binned by the difference on the first."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from .. import parallel
from ..data import ScoreMatrix
from ..data._matrices import _checked_scores
from ..errors import InputError, UnknownNameError
from ..parallel import SeedLike
from ._results import FILTERS, SwapExperiment
from ._sets import _TESTS


def drop_bottom(matrix: ScoreMatrix, fraction: float = 0.25, by: ScoreMatrix | None = None) -> ScoreMatrix:
    """The runs of ``matrix`` without the bottom ``floor(fraction * S)`` by mean score of ``by`` (section 3).

    Parameters
    ----------
    matrix : ScoreMatrix
    fraction : float
        In [0, 1).
    by : ScoreMatrix, optional
        The scores ranking the runs (default ``matrix``; the paper: AP for P@10 too); ties keep the earlier.

    Returns
    -------
    ScoreMatrix
        The kept runs, in their order in ``matrix``.

    Examples
    --------
    >>> from irrepro.data import ScoreMatrix
    >>> from irrepro.topic_split import drop_bottom
    >>> m = ScoreMatrix(np.array([[0.5, 0.3], [0.1, 0.2], [0.4, 0.4], [0.2, 0.6]]), ("a", "b", "c", "d"),
    ...                 ("1", "2"), "AP")
    >>> drop_bottom(m).systems        # means 0.4, 0.15, 0.4, 0.4: b goes
    ('a', 'c', 'd')
    """
    if not 0 <= fraction < 1:
        raise InputError(f"fraction must be in [0, 1), got {fraction}")
    ref = matrix if by is None else by
    _checked_scores(matrix, "matrix")
    _checked_scores(ref, "by")
    if ref.systems != matrix.systems:
        raise InputError("`by` must hold the same systems, in the same order, as `matrix`")
    k = int(np.floor(fraction * len(ref.systems)))
    keep = np.sort(np.argsort(-ref.mean(), kind="stable")[: len(ref.systems) - k])
    return matrix.subset(systems=[matrix.systems[i] for i in keep])


def _swap_task(matrices: list[np.ndarray], reps, design, abs_w, rel_w, n_bins, filters, chunk, args) -> tuple:
    """Counts of one (matrix number, size, generator) task (the matrices travel with the function)."""
    k, n, rng = args
    X = matrices[k]
    S, T = X.shape
    if design == "disjoint":
        if 2 * n > T:
            raise InputError(f"two disjoint sets of {n} topics need {2 * n} topics; have {T}")
        perm = rng.permuted(np.tile(np.arange(T), (reps, 1)), axis=1)
        i1, i2 = perm[:, :n], perm[:, n : 2 * n]
    else:
        i1 = rng.permuted(np.tile(np.arange(T), (reps, 1)), axis=1)[:, :n]
        i2 = rng.permuted(np.tile(np.arange(T), (reps, 1)), axis=1)[:, :n]
    M1 = X[:, i1].mean(axis=-1)  # (S, R)
    M2 = X[:, i2].mean(axis=-1)
    a, b = np.triu_indices(S, k=1)
    F = len(filters)
    trials = np.zeros((F, 2, reps, n_bins), dtype=np.int64)  # per repetition (its Monte Carlo error)
    errors = np.zeros_like(trials)
    dep_e = np.zeros(reps, dtype=np.int64)
    dep_t = np.zeros(reps, dtype=np.int64)
    need = sorted({filters[f][0] for f in range(F)} - {None})
    for lo in range(0, len(a), chunk):
        pa, pb = a[lo : lo + chunk], b[lo : lo + chunk]
        d1 = M1[pa] - M1[pb]  # (P, R)
        d2 = M2[pa] - M2[pb]
        valid = d1 != 0
        err = valid & (d1 * d2 < 0)
        absd = np.abs(d1)
        smaller = np.minimum(M1[pa], M1[pb])
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(smaller > 0, absd / smaller, np.inf)
        bins = [
            np.floor(absd / abs_w + 1e-9),
            np.where(np.isfinite(rel), np.floor(rel / rel_w + 1e-9), n_bins),
        ]
        pv = {}
        if need:
            D = (X[pa] - X[pb])[:, i1]  # (P, R, n)
            for t in need:
                pv[t] = _TESTS[t](D)
        rep = np.broadcast_to(np.arange(reps, dtype=np.int64) * n_bins, d1.shape)
        for f, (test, plo, phi) in enumerate(filters):
            keep = valid if test is None else valid & (pv[test] > plo) & (pv[test] <= phi)
            for k in range(2):
                bk = bins[k]
                sel = keep & (bk < n_bins)
                idx = bk[sel].astype(np.int64) + rep[sel]  # (repetition, bin), flattened
                size = reps * n_bins
                trials[f, k] += np.bincount(idx, minlength=size).reshape(reps, n_bins)
                errors[f, k] += (
                    np.bincount(idx, weights=err[sel], minlength=size).astype(np.int64).reshape(reps, n_bins)
                )
        order = np.argsort(absd, axis=1, kind="stable")
        dep_e += np.take_along_axis(err, order, axis=1).sum(axis=0)
        dep_t += np.take_along_axis(valid, order, axis=1).sum(axis=0)
    return trials, errors, dep_e, dep_t, len(a)


def swap_experiment(
    matrices: Sequence[ScoreMatrix],
    *,
    sizes: Sequence[int] | None = None,
    B: int | None = None,
    design: str = "disjoint",
    filters: Sequence[str] | None = None,
    abs_width: float = 0.01,
    rel_width: float = 0.05,
    n_bins: int = 20,
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool | str = False,
    chunk: int = 2000,
    scale: str = "paper",
) -> SwapExperiment:
    """The swap experiment over one score matrix per TREC year, pairs of runs within a year (sections 3, 4, 7).

    Per year, size n and repetition, two sets of n topics (``"disjoint"``, or two ``"independent"``
    samples) compare every pair of runs (our reading). A trial is an error when the order on set 2 is
    strictly reversed from set 1 (a set-1 tie dropped); trials are binned ``[lo, hi)`` (1e-9 slack) by
    the set-1 difference, absolute and relative to the smaller mean. With the same seed and years, AP
    and P@10 draw the same topic sets.

    Parameters
    ----------
    matrices : sequence of ScoreMatrix
        One per year, all of one measure.
    sizes : sequence of int, optional
        Topic-set sizes; None: the paper's 5..25 at ``scale="paper"``, 5, 15, 25 at ``"quick"``.
    B : int, optional
        Repetitions per size; None: 50 (paper) or 10 (quick).
    design : {"disjoint", "independent"}
    filters : sequence of str, optional
        Names of ``FILTERS`` (default all): keep trials whose set-1 paired test lands in a band.
    abs_width, rel_width : float
        Bin widths.
    n_bins : int
        Bins of each kind.
    seed, n_jobs, progress
        The seed; workers (the values do not depend on them); a progress bar (a str: its label).
    chunk : int
        Pairs of runs per vectorised step (memory only).
    scale : {"paper", "quick"}
        What ``sizes`` and ``B`` left at None stand for.

    Returns
    -------
    SwapExperiment

    Examples
    --------
    >>> from irrepro import topic_split as ts
    >>> from irrepro.data import synthetic
    >>> years = [synthetic.score_matrix(8, 50, seed=s) for s in (1, 2)]
    >>> res = ts.swap_experiment(years, sizes=[5, 25], B=10, seed=3, filters=["none", "paired-t p<=0.05"])
    >>> res.n_pairs                       # 2 x 8 x 7 / 2
    56
    >>> rates = res.errors[0, 1].sum(1) / res.trials[0, 1].sum(1)   # no filter, relative bins
    >>> bool(rates[1] < rates[0])         # fewer swaps on 25 topics than on 5
    True
    """
    if design not in {"disjoint", "independent"}:
        raise InputError(f"design must be 'disjoint' or 'independent', not {design!r}")
    if not matrices:
        raise InputError("give at least one score matrix")
    measures = {m.measure for m in matrices}
    if len(measures) != 1:
        raise InputError(f"all matrices must hold the same measure, got {sorted(measures)}")
    quick = parallel.check_scale(scale) == "quick"
    if sizes is None:
        sizes = (5, 15, 25) if quick else tuple(range(5, 26))
    if B is None:
        B = 10 if quick else 50
    sizes_arr = np.asarray(sorted(set(int(s) for s in sizes)))
    sizes = sizes_arr  # type: ignore[assignment]  # (an array from here on)
    if sizes[0] < 2:
        raise InputError("topic-set sizes must be at least 2")
    B = parallel.check_int(B, "B", minimum=1)
    filters = tuple(FILTERS if filters is None else filters)
    for f in filters:
        if f not in FILTERS:
            raise UnknownNameError(f"unknown filter {f!r}; known: {list(FILTERS)}")
    fdefs = [FILTERS[f] for f in filters]
    tasks = [(k, s) for k in range(len(matrices)) for s in range(len(sizes))]
    rngs = parallel.spawn(seed, len(tasks))
    xs = [np.ascontiguousarray(_checked_scores(m, f"matrices[{k}]")) for k, m in enumerate(matrices)]
    items = [(k, int(sizes[s]), rngs[i]) for i, (k, s) in enumerate(tasks)]
    task = partial(_swap_task, xs, B, design, abs_width, rel_width, n_bins, fdefs, chunk)
    label = progress if isinstance(progress, str) else ("swap experiment" if progress else False)
    out = parallel.parallel_map(task, items, n_jobs=n_jobs, progress=label)
    F = len(filters)
    rep_trials = np.zeros((F, 2, len(sizes), B, n_bins), dtype=np.int64)
    rep_errors = np.zeros_like(rep_trials)
    dep_e = np.zeros((len(sizes), B), dtype=np.int64)
    dep_t = np.zeros_like(dep_e)
    n_pairs = 0
    for (_k, s), (tr, er, de, dt, npairs) in zip(tasks, out):
        rep_trials[:, :, s] += tr
        rep_errors[:, :, s] += er
        dep_e[s] += de
        dep_t[s] += dt
        if s == 0:
            n_pairs += npairs
    return SwapExperiment(
        measure=matrices[0].measure,
        design=design,
        sizes=sizes_arr,
        B=B,
        filters=filters,
        kinds=("absolute", "relative"),
        abs_width=abs_width,
        rel_width=rel_width,
        trials=rep_trials.sum(axis=3),
        errors=rep_errors.sum(axis=3),
        dep_errors=dep_e,
        dep_trials=dep_t,
        n_pairs=n_pairs,
        collections=tuple(m.collection for m in matrices),
        seed=seed if isinstance(seed, (int, np.integer)) else None,
        rep_trials=rep_trials,
        rep_errors=rep_errors,
    )
