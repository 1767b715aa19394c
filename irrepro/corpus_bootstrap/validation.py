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
from .intervals import METHODS, Intervals, _with_small_r, ap_acceleration, intervals_from_replicates
from .lists import Lists, _lists_of
from .maps import _fixed_share, _run_intervals, run_means
from .sampler import bootstrap_ap


def predicted_in_interval(level: float = 0.95) -> tuple[float, float, float]:
    """The paper's predicted shares below, in and above an interval (section 6).

    AP_A and AP_B have the same sd, so AP_B - AP_A has sd sigma*sqrt(2) and AP_B lies in
    AP_A +/- z sigma with probability ``P(|Z| <= z / sqrt 2)`` (the paper: 0.835 at 95%).

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


# --------------------------------------------------------------------------------------------
# the split-corpus validation (section 6)
# --------------------------------------------------------------------------------------------


def doc_half(doc_ids) -> np.ndarray:
    """0 (half A) or 1 (half B) per document id, from the MD5 digest of the id."""
    return np.fromiter((hashlib.md5(str(d).encode()).digest()[-1] & 1 for d in doc_ids), dtype=np.int8)


def split_corpus(rs: RunSet) -> tuple[RunSet, RunSet]:
    """The two half-corpora of section 6 as RunSets.

    Every ranked list keeps the documents of its half in their order; the qrels keep that half's
    judgments.

    Parameters
    ----------
    rs : irrepro.data.RunSet
        The runs on the whole corpus.

    Returns
    -------
    half_a, half_b : irrepro.data.RunSet
        The runs and qrels of each half (``doc_half``: the lowest bit of the MD5 of the id).

    Examples
    --------
    >>> from irrepro import data, corpus_bootstrap as cb
    >>> qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1, "d9": 1}, "q2": {"d2": 1, "d4": 1}})
    >>> runs = data.load_runs({"A": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d2": 2, "d5": 1}},
    ...                        "B": {"q1": {"d5": 2, "d1": 1}, "q2": {"d4": 2, "d2": 1}}}, qrels)
    >>> a, b = cb.split_corpus(runs)
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


def position(value, lower, upper) -> np.ndarray:
    """Where values lie: -1 below, 0 in (bounds included), +1 above the interval.

    Parameters
    ----------
    value, lower, upper : array_like
        Values and bounds (broadcast).

    Returns
    -------
    numpy.ndarray
        -1, 0 or 1; 0 where anything is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.corpus_bootstrap import position
    >>> position(np.array([0.1, 0.5, 0.9]), 0.2, 0.8)
    array([-1,  0,  1], dtype=int8)
    """
    value, lower, upper = map(np.asarray, (value, lower, upper))
    return np.where(value < lower, -1, np.where(value > upper, 1, 0)).astype(np.int8)


# --------------------------------------------------------------------------------------------
# the whole validation in one call
# --------------------------------------------------------------------------------------------


def _side_shares(pos: np.ndarray) -> np.ndarray:
    """The below / in / above shares (%) of positions (-1 / 0 / +1)."""
    return 100 * np.array([np.mean(pos < 0), np.mean(pos == 0), np.mean(pos > 0)])


def _shares(pos: np.ndarray) -> dict:
    """The count of positions and their below / in / above shares (%)."""
    return {"n": len(pos), **dict(zip(("below", "in", "above"), _side_shares(pos)))}


@dataclass(frozen=True, eq=False)
class SplitValidation:
    """Everything of the paper's sections 6-8 for one run set split in halves A and B."""

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
        iv = self.intervals[(src, method)]
        return position(self.ap[self.other(src)], iv.lower, iv.upper)

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
            rows.append({"measure": meas, **_shares(position(val, iv.lower, iv.upper))})
        return pd.DataFrame(rows)

    def normalized_difference(self, src: str, method: str) -> np.ndarray:
        """(AP_other - AP_src) scaled so that the interval from ``src`` spans [-1, 1] (Figures 1
        and 2): divided by ``upper - AP`` above AP and by ``AP - lower`` below; +/-inf when that
        half-width is 0 and the values differ; only usable lists (1-D)."""
        return _normalized(self.ap[self.other(src)], self.intervals[(src, method)])[self.usable]


def _normalized(value: np.ndarray, iv: Intervals) -> np.ndarray:
    """``value - estimate`` over the interval's half-width on its side (``SplitValidation.normalized_difference``)."""
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
    """The paper's validation (Cormack & Lynam 2006, sections 6-8) in one call.

    Half A is bootstrapped from child 0 of ``seed``, half B from child 1; intervals both directions.

    Parameters
    ----------
    rs : irrepro.data.RunSet
        The runs on the whole corpus.
    B : int
        Bootstrap samples.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The seed (an int, a SeedSequence or a Generator); None is refused.
    rel : int
        The lowest relevant grade.
    eps : float
        The logit's clipping of 0 and 1.
    n_jobs : int or None
        Workers (the values do not depend on them); with two or more, both halves at once.
    progress : bool
        A tqdm progress bar.

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
    """Intervals on the whole corpus (Cormack & Lynam 2006, Figure 4).

    Linear / logit (+ small-R) per list, MAP / L-MAP bootstrap and parametric per run.

    Parameters
    ----------
    rs : irrepro.data.RunSet or Lists
        The runs, or their ``Lists`` (``rel`` is theirs then; runs and topics are numbered).
    B : int
        Bootstrap samples.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The seed (an int, a SeedSequence or a Generator); None is refused.
    rel : int
        The lowest relevant grade.
    eps : float
        The logit's clipping of 0 and 1.
    keep_replicates : bool
        Keep the bootstrap replicates in the result.
    n_jobs : int or None
        Workers (the values do not depend on them).
    progress : bool or str
        A tqdm progress bar (a str is its label).
    average : {"usable", "all"}
        The run means over the usable lists (the paper) or over all topics, an unusable list
        counting as AP 0 (trec_eval -c, as ``irrepro report``).

    Returns
    -------
    FullCorpus

    Examples
    --------
    >>> from irrepro import data, corpus_bootstrap as cb
    >>> qrels = data.load_qrels({"q1": {"d1": 1, "d3": 1, "d9": 1}, "q2": {"d2": 1, "d4": 1}})
    >>> runs = data.load_runs({"A": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d2": 2, "d5": 1}},
    ...                        "B": {"q1": {"d5": 2, "d1": 1}, "q2": {"d4": 2, "d2": 1}}}, qrels)
    >>> fc = cb.full_corpus(runs, B=100, seed=1)
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


# --- summaries of a split validation that the book's chapter reports -----


def miss_ratio(normalized) -> float:
    """Above / below ratio of an interval's misses (Cormack & Lynam 2006, section 7).

    The paper finds the share above "roughly six times larger" for the linear interval. An empty
    lower tail counts as 1e-12.

    Parameters
    ----------
    normalized : array_like
        Normalized differences (``SplitValidation.normalized_difference``).

    Returns
    -------
    float
        The share above 1 over the share below -1.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import miss_ratio
    >>> miss_ratio([2.0, -2.0, 0.5, 3.0])
    2.0
    """
    x = np.asarray(normalized, dtype=float)
    return float(np.mean(x > 1) / max(np.mean(x < -1), 1e-12))


def mean_in_interval(val: SplitValidation, kind: str, measure: str) -> float:
    """The in-interval share (%) of the runs' MAP or L-MAP intervals, both directions.

    Parameters
    ----------
    val : SplitValidation
    kind : {"bootstrap", "parametric"}
        Table 3 or Table 4.
    measure : {"MAP", "L-MAP"}
        The run mean.

    Returns
    -------
    float
        A percentage.
    """
    return float(np.mean([val.map_table(s, kind).set_index("measure").loc[measure, "in"] for s in "AB"]))
