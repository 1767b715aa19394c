"""The Sakai (2006) chapter's procedure on a judged run set (:func:`paper_procedure`, a
:class:`Round`) and the errors of its numbers: the sampling error of what was sampled (the system
pairs of a share over pairs, the topics of Kendall's tau: :func:`pair_share_se`, :func:`tau_se`),
the resampled p-values a correction needs (:func:`resolved_pvalues`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...stats import clustered_se
from ..study import _PARTS, MeasureStudy, measure_study

PAPER = "sakai2006evaluating"
#: The arithmetic-mean measures of the study (the geometric means G_AP and G_Q are added to them).
MEASURES = ("AP", "Q", "nDCG_sakai@1000", "nCG@1000", "PDoc@1000")
#: The paper names its three most sensitive measures and its least sensitive one.
TOP = 3
#: What the replicates at the other seeds compute (the same numbers as a whole study at that seed).
LIGHT = ("paired", "unpaired", "swap")
_OTHER = "TREC-COVID is not the paper's NTCIR-3 data"


@dataclass
class Round:
    """The paper's procedure on one judged run set (:func:`paper_procedure`).

    Attributes
    ----------
    runs : RunSet
        The 30 best runs by relaxed AP.
    scores : dict
        Measure -> score matrix of ``runs``.
    replicates : list of MeasureStudy
        The study at each seed: the first whole (the chapter's), the others its tests and swap
        method only.
    borrowed : str
        Whose replicates these are, when another run set's stand for this one's (``""``: its own).
    """

    runs: Any
    scores: dict
    replicates: list
    borrowed: str = ""
    _t2: dict = field(default_factory=dict, repr=False)

    @property
    def study(self) -> MeasureStudy:
        """The study at the chapter's seed."""
        return self.replicates[0]

    @property
    def B(self) -> int:
        """The bootstrap samples per set."""
        return int(self.study.B)


def _matrices(scores: Mapping) -> dict:
    return {m: scores[m] for m in MEASURES} | {"G_AP": (scores["AP"], "gmean"), "G_Q": (scores["Q"], "gmean")}


def top_runs(rs, k: int = 30):
    """The ``k`` best runs of the run set ``rs`` by relaxed AP (grade >= 1 relevant), as in the paper.

    Parameters
    ----------
    rs : RunSet
        Judged runs.
    k : int
        How many to keep.

    Returns
    -------
    RunSet
    """
    from ... import measures

    ap = measures.evaluate(rs, ["AP"], rel=1)["AP"]
    best = np.argsort(-ap.mean(), kind="stable")[:k]
    return rs.subset(runs=[rs.runs[i] for i in best])


def paper_procedure(
    rs,
    *,
    B: int,
    seeds: Sequence,
    n_jobs=None,
    borrow: Round | None = None,
    of: str = "",
    top: bool = True,
    scores: Mapping | None = None,
) -> Round:
    """The paper's procedure on a judged run set: its 30 best runs by relaxed AP, the seven
    measures, the study at each of ``seeds``.

    Parameters
    ----------
    rs : RunSet
        Judged runs (all of a round's, or already the 30 best with ``top=False``).
    B : int
        Bootstrap samples per set.
    seeds : sequence
        The chapter's seed first, then the others of the Monte Carlo error.
    n_jobs : int or None
        Workers.
    borrow : Round, optional
        Another run set's procedure whose replicates give this one's Monte Carlo errors (``of``:
        whose, in words); then only the study at the first seed is computed.
    top : bool
        Keep the 30 best runs first.
    scores : mapping, optional
        The measures of ``rs`` (``top=False``), when already evaluated.

    Returns
    -------
    Round

    Notes
    -----
    The study at each seed is one call of :func:`~irrepro.sensitivity.measure_study` on the
    five arithmetic-mean measures and the geometric means of AP and Q.
    """
    from ... import measures

    runs = top_runs(rs) if top else rs
    sc = dict(scores) if scores is not None else measures.evaluate(runs, list(MEASURES), rel=1)
    mats = _matrices(sc)
    first = measure_study(mats, B=B, seed=seeds[0], n_jobs=n_jobs, parts=_PARTS)
    if borrow is not None:
        return Round(runs, sc, [first, *borrow.replicates[1:]], borrowed=of)
    rest = [measure_study(mats, B=B, seed=s, n_jobs=n_jobs, parts=LIGHT) for s in seeds[1:]]
    return Round(runs, sc, [first, *rest])


def _t2(r: Round, s: MeasureStudy, test: str = "bootstrap") -> pd.DataFrame:
    """s.table2(test), computed once per study."""
    key = (id(s), test)
    if key not in r._t2:
        r._t2[key] = (s, s.table2(test))
    return r._t2[key][1]


def _table(r: Round, test: str = "bootstrap", s: MeasureStudy | None = None) -> pd.DataFrame:
    return _t2(r, r.study if s is None else s, test)


def _names(r: Round, test: str = "bootstrap", s: MeasureStudy | None = None) -> list[str]:
    return list(_table(r, test, s)["measure"])


def _mc(r: Round, f: Callable) -> np.ndarray:
    """The sd of f(study) over the round's replicate studies (per part for a vector)."""
    v = np.array([f(s) for s in r.replicates], dtype=float)
    return v.std(axis=0, ddof=1)


def _mc_reason(r: Round, what: str = "the value") -> str:
    return f"Monte Carlo: sd of {what} over {len(r.replicates)} bootstrap seeds (B = {r.B} each)" + (
        f", taken from {r.borrowed}" if r.borrowed else ""
    )


def _same_at(r: Round, f: Callable) -> str:
    if r.borrowed:
        return f"Monte Carlo errors of {r.borrowed}"
    return f"the same at {sum(f(s) == f(r.study) for s in r.replicates)} of {len(r.replicates)} seeds"


def _sig(test, alpha: float = 0.05) -> np.ndarray:
    """Per pair of a test: 1 where ASL < alpha."""
    return (np.asarray(test.p) < alpha).astype(float)


def pair_share_se(significant) -> np.ndarray:
    """The sampling error of a share of system pairs (or of a difference of two shares over the same pairs),
    the pairs the sampled unit: ``sd / sqrt(n)`` over the pairs, Agresti & Coull's where every pair agrees
    (a share of 0 or 1)."""
    x = np.asarray(significant, dtype=float)
    se = np.atleast_1d(clustered_se(x))
    n = x.shape[-1]
    z2 = 1.959963984540054**2
    hits = np.atleast_1d(x.sum(axis=-1))
    p = np.clip((np.abs(hits) + z2 / 2) / (n + z2), 0, 1)  # every pair agrees: |hits| is 0 or n
    ac = np.sqrt(p * (1 - p) / (n + z2))
    out = np.where(se > 0, se, ac)
    return out.reshape(x.shape[:-1])


def tau_se(study: MeasureStudy, pair: tuple[str, str]) -> float:
    """The sampling error of Kendall's tau between two measures' rankings: the sd of tau over the study's B
    bootstrap topic samples (the paper's Figure 13), the topic the sampled unit."""
    return float(study.rank_correlations[tuple(pair)].se_boot)


def resolved_pvalues(
    scores, *, m: int, alpha: float = 0.05, seed=0, chunk: int = 20_000, B: int | None = None
):
    """The paired bootstrap test's ASLs of every pair with enough samples for a correction over
    ``m`` comparisons (:func:`irrepro.stats.corrected_resamples`), drawn in chunks of independent samples so that memory stays bounded.

    Parameters
    ----------
    scores : ScoreMatrix or array_like
        ``(systems, topics)``.
    m : int
        The comparisons the correction runs over.
    alpha : float
        The family's level.
    seed : SeedLike
        Spawns one seed per chunk.
    chunk : int
        Samples per chunk.
    B : int, optional
        Fewer samples than the rule asks (the counts of a correction are then unresolved: a pair
        no sample reaches has ASL 0, below every threshold); default
        :func:`irrepro.stats.corrected_resamples`, 20 m / alpha.

    Returns
    -------
    tuple
        ``(p, B)``: the ASLs (count / B) and the samples drawn.
    """
    from ...significance import paired_bootstrap_test
    from ...stats import corrected_resamples

    need = corrected_resamples(m, alpha, "holm", default=1)
    total = need if B is None else int(B)
    sizes = [chunk] * (total // chunk) + ([total % chunk] if total % chunk else [])
    counts = np.zeros(0)
    for size, ss in zip(sizes, np.random.SeedSequence(seed).spawn(len(sizes))):
        t = paired_bootstrap_test(scores, B=size, seed=ss)
        c = np.rint(np.asarray(t.p) * size)
        counts = c if counts.size == 0 else counts + c
    return counts / total, total
