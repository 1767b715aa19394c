"""The split-corpus validation (Cormack & Lynam 2006, sections 6-8) and the full-corpus intervals
(Figure 4), each in one call."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats

from .. import parallel
from ..data import RunSet
from ..errors import InputError
from ..stats import EPS, check_level
from .intervals import (
    METHODS,
    Intervals,
    _fixed_share,
    _run_intervals,
    _with_small_r,
    ap_acceleration,
    intervals_from_replicates,
    run_means,
)
from .sampler import Lists, _lists_of, bootstrap_ap


def predicted_in_interval(level: float = 0.95) -> tuple[float, float, float]:
    """The paper's predicted shares below, in and above an interval (section 6): ``P(|Z| <= z / sqrt 2)`` in.

    Parameters
    ----------
    level : float
        The confidence level, a fraction or a percentage (``irrepro.stats.check_level``).

    Returns
    -------
    below, inside, above : float
        The predicted shares.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import predicted_in_interval
    >>> [round(p, 4) for p in predicted_in_interval()]
    [0.0829, 0.8342, 0.0829]
    """
    z = stats.norm.ppf(0.5 + check_level(level) / 2)
    inside = float(stats.norm.cdf(z / np.sqrt(2)) - stats.norm.cdf(-z / np.sqrt(2)))
    return (1 - inside) / 2, inside, (1 - inside) / 2


def doc_half(doc_ids) -> np.ndarray:
    """0 (half A) or 1 (half B) per document id, from the MD5 digest of the id."""
    return np.fromiter((hashlib.md5(str(d).encode()).digest()[-1] & 1 for d in doc_ids), dtype=np.int8)


def split_corpus(rs: RunSet) -> tuple[RunSet, RunSet]:
    """The two half-corpora of section 6: each list and the qrels keep the documents of one half.

    Parameters
    ----------
    rs : irrepro.data.RunSet
        The runs on the whole corpus.

    Returns
    -------
    half_a, half_b : irrepro.data.RunSet
        By the lowest bit of the MD5 of the document id.

    Examples
    --------
    >>> from irrepro import corpus_bootstrap as cb
    >>> a, b = cb.split_corpus(runset)
    >>> a.runs, b.runs
    (('A', 'B'), ('A', 'B'))
    """
    half = doc_half(rs.vocab)
    keep_half = half[rs.flat_docs]  # the half of every retrieved document
    lists = np.repeat(np.arange(len(rs.offsets) - 1), np.diff(rs.offsets))
    out = []
    qt = rs.qrels.table
    qhalf = doc_half(qt["doc"].to_numpy())
    for h in (0, 1):
        keep = keep_half == h
        lens = np.bincount(lists[keep], minlength=len(rs.offsets) - 1)
        q = rs.qrels.select(qhalf == h, name=f"{rs.qrels.name} half {'AB'[h]}")
        out.append(
            replace(rs, offsets=np.r_[0, np.cumsum(lens)].astype(np.int64), flat_grades=rs.flat_grades[keep],
                    flat_docs=rs.flat_docs[keep], qrels=q, name=f"{rs.name} half {'AB'[h]}")
        )  # fmt: skip
    return out[0], out[1]


def _side_shares(pos: np.ndarray) -> np.ndarray:
    """The below / in / above shares (%) of positions (-1 / 0 / +1)."""
    return 100 * np.array([np.mean(pos < 0), np.mean(pos == 0), np.mean(pos > 0)])


def _shares(pos: np.ndarray) -> dict:
    """The count of positions and their below / in / above shares (%)."""
    return {"n": len(pos), **dict(zip(("below", "in", "above"), _side_shares(pos)))}


@dataclass(frozen=True, eq=False)
class SplitValidation:
    """The paper's sections 6-8 for one run set split in halves A and B."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    ap: dict
    n_rel: dict
    length: dict
    usable: np.ndarray
    intervals: dict
    maps: dict
    B: int
    seed: object

    @staticmethod
    def other(src: str) -> str:
        return {"A": "B", "B": "A"}[src]

    def positions(self, src: str, method: str) -> np.ndarray:
        """(systems, topics) -1 / 0 / +1: where AP of the other half falls w.r.t. the interval from ``src``."""
        return self.intervals[(src, method)].position(self.ap[self.other(src)])

    def lists_mask(self, src: str = "A", min_rel: int = 0) -> np.ndarray:
        """Usable lists whose topic has R > ``min_rel`` on half ``src``."""
        return self.usable & (self.n_rel[src] > min_rel)[None, :]

    def table(self, src: str, methods: Sequence[str], min_rel: int = 0) -> pd.DataFrame:
        """Below / in / above shares (%) of the other half's AP w.r.t. intervals from ``src``."""
        mask = self.lists_mask(src, min_rel)
        return pd.DataFrame(
            [{"method": meth, **_shares(self.positions(src, meth)[mask])} for meth in methods]
        )

    def map_table(self, src: str, kind: str) -> pd.DataFrame:
        """Below / in / above shares (%) of the other half's MAP / L-MAP (Tables 3 and 4)."""
        rows = []
        for meas in ("MAP", "L-MAP"):
            iv = self.maps[(src, kind, meas)]
            val = run_means(self.ap[self.other(src)], self.usable, meas)
            rows.append({"measure": meas, **_shares(iv.position(val))})
        return pd.DataFrame(rows)

    def normalized_difference(self, src: str, method: str) -> np.ndarray:
        """AP_other - AP_src over the half-width of ``src``'s interval on its side (Figures 1-2), usable lists."""
        return _normalized(self.ap[self.other(src)], self.intervals[(src, method)])[self.usable]

    def miss_ratio(self, src: str, method: str) -> float:
        """Above / below ratio of the misses of ``method`` from ``src`` (section 7); no miss below counts as 1e-12."""
        x = self.normalized_difference(src, method)
        return float(np.mean(x > 1) / max(np.mean(x < -1), 1e-12))

    def mean_in(self, kind: str, measure: str) -> float:
        """The in-interval share (%) of the runs' ``kind`` MAP or L-MAP intervals, both directions averaged."""
        return float(np.mean([self.map_table(s, kind).set_index("measure").loc[measure, "in"] for s in "AB"]))


def _normalized(value: np.ndarray, iv: Intervals) -> np.ndarray:
    """``value - estimate`` over the interval's half-width on its side; +/-inf for a half-width of 0."""
    d = value - iv.estimate
    half = np.where(d >= 0, iv.upper - iv.estimate, iv.estimate - iv.lower)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d == 0, 0.0, d / half)


def split_validation(
    rs: RunSet,
    B: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    eps: float = EPS,
    n_jobs: int | None = None,
    progress: bool = False,
) -> SplitValidation:
    """The split-corpus validation (sections 6-8): half A from child 0 of ``seed``, half B from child 1.

    Parameters
    ----------
    rs : irrepro.data.RunSet
        The runs on the whole corpus.
    B, seed, rel, eps
        Bootstrap samples, their seed (None refused), the lowest relevant grade, the logit's clipping.
    n_jobs, progress
        Workers (the values do not depend on them); a progress bar.

    Returns
    -------
    SplitValidation
    """
    halves = dict(zip("AB", split_corpus(rs)))
    seeds = parallel.as_seed_sequence(seed).spawn(2)
    lists = {h: _lists_of(r, rel) for h, r in halves.items()}
    shape = lists["A"].shape
    ap = {h: L.ap.reshape(shape) for h, L in lists.items()}
    n_rel = {h: L.n_rel.reshape(shape)[0] for h, L in lists.items()}  # R per topic
    length = {h: L.length.reshape(shape).astype(np.int64) for h, L in lists.items()}
    usable = lists["A"].usable.reshape(shape) & lists["B"].usable.reshape(shape)

    def half(h, ss):  # one half's bootstrap and intervals; with n_jobs > 1 both halves at once
        reps = bootstrap_ap(lists[h], B, ss, n_jobs=n_jobs, progress=progress and f"bootstrap half {h}")
        acc = ap_acceleration(lists[h]).reshape(shape)
        ivs = _with_small_r(
            intervals_from_replicates(ap[h], reps, METHODS, accel=acc, eps=eps), n_rel[h][None, :], length[h]
        )
        return h, ivs, _run_intervals(ap[h], reps, usable, ivs["logit+smallR"], eps)

    intervals, maps = {}, {}
    for h, ivs, run_ivs in parallel.parallel_map(
        lambda t: half(*t), list(zip("AB", seeds)), n_jobs=n_jobs, here=True
    ):
        intervals.update({(h, meth): iv for meth, iv in ivs.items()})
        maps.update({(h, *k): iv for k, iv in run_ivs.items()})
    return SplitValidation(rs.runs, rs.topics, ap, n_rel, length, usable, intervals, maps, B, seed)


@dataclass(frozen=True, eq=False)
class FullCorpus:
    """Full-corpus intervals (Cormack & Lynam 2006, Figure 4)."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    ap: np.ndarray
    usable: np.ndarray
    intervals: dict
    maps: dict
    replicates: np.ndarray | None


def full_corpus(
    rs: RunSet | Lists,
    B: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    eps: float = EPS,
    keep_replicates: bool = False,
    n_jobs: int | None = None,
    progress: bool | str = False,
    average: str = "usable",
) -> FullCorpus:
    """Intervals on the whole corpus (Figure 4): linear and logit (+ small-R) per list, MAP and L-MAP per run.

    Parameters
    ----------
    rs : irrepro.data.RunSet or Lists
        The runs, or their ``Lists`` (``rel`` is theirs then; runs and topics are numbered).
    B, seed, rel, eps
        Bootstrap samples, their seed (None refused), the lowest relevant grade, the logit's clipping.
    keep_replicates : bool
        Keep the bootstrap replicates in the result.
    n_jobs, progress
        Workers (the values do not depend on them); a progress bar (a str: its label).
    average : {"usable", "all"}
        Run means over the usable lists (the paper) or all topics, an unusable list as AP 0 (trec_eval -c).

    Returns
    -------
    FullCorpus

    Examples
    --------
    >>> from irrepro import corpus_bootstrap as cb
    >>> fc = cb.full_corpus(runset, B=100, seed=1)
    >>> sorted(fc.intervals), fc.ap.round(3)
    (['linear', 'linear+smallR', 'logit', 'logit+smallR'], array([[0.556, 0.5  ],
           [0.167, 1.   ]]))
    """
    _fixed_share(np.zeros((0, 0), dtype=bool), average)  # a bad ``average`` fails before the work
    lists = _lists_of(rs, rel)
    if len(shape := lists.shape) != 2:
        raise InputError(f"full_corpus needs lists of shape (systems, topics), not {shape}")
    numbered = (tuple(map(str, range(n))) for n in shape)  # (the names of Lists' runs and topics)
    runs, topics = (rs.runs, rs.topics) if isinstance(rs, RunSet) else numbered
    ap, usable = lists.ap.reshape(shape), lists.usable.reshape(shape)
    reps = bootstrap_ap(lists, B, seed, n_jobs=n_jobs, progress=progress)
    ivs = intervals_from_replicates(ap, reps, ("linear", "logit"), eps=eps)
    ivs = _with_small_r(ivs, lists.n_rel.reshape(shape), lists.length.reshape(shape))
    maps = _run_intervals(ap, reps, usable, ivs["logit+smallR"], eps, average)
    return FullCorpus(runs, topics, ap, usable, ivs, maps, reps if keep_replicates else None)
