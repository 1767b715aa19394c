"""The Sakai (2006) chapter's procedure on a judged run set, the sampling errors of its numbers and
the resampled p-values a correction needs.
"""

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
    """The paper's procedure on one judged run set (:func:`paper_procedure`)."""

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
    """The ``k`` best runs of the run set ``rs`` by relaxed AP (grade >= 1 relevant), as in the paper."""
    from ... import measures

    ap = measures.evaluate(rs, ["AP"], rel=1)["AP"]
    best = np.argsort(-ap.mean(), kind="stable")[:k]
    return rs.subset(runs=[rs.runs[i] for i in best])


def paper_procedure(rs, *, B: int, seeds: Sequence, n_jobs=None, borrow: Round | None = None, of: str = "",
                    top: bool = True, scores: Mapping | None = None) -> Round:  # fmt: skip
    """The paper's procedure on judged runs: the 30 best by relaxed AP, seven measures, a study per seed."""
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
    taken = f", taken from {r.borrowed}" if r.borrowed else ""
    return f"Monte Carlo: sd of {what} over {len(r.replicates)} bootstrap seeds (B = {r.B} each){taken}"


def _same_at(r: Round, f: Callable) -> str:
    if r.borrowed:
        return f"Monte Carlo errors of {r.borrowed}"
    return f"the same at {sum(f(s) == f(r.study) for s in r.replicates)} of {len(r.replicates)} seeds"


def _sig(test, alpha: float = 0.05) -> np.ndarray:
    """Per pair of a test: 1 where ASL < alpha."""
    return (np.asarray(test.p) < alpha).astype(float)


def pair_share_se(significant) -> np.ndarray:
    """Sampling error of a share of system pairs: sd / sqrt(n), Agresti & Coull's at a share of 0 or 1."""
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
    """Sampling error of Kendall's tau: its sd over the study's bootstrap topic samples (Figure 13)."""
    return float(study.rank_correlations[tuple(pair)].se_boot)


def resolved_pvalues(
    scores, *, m: int, alpha: float = 0.05, seed=0, chunk: int = 20_000, B: int | None = None
):
    """``(p, B)``: paired-test ASLs with B enough for a correction over ``m`` (20 m / alpha), in chunks."""
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
