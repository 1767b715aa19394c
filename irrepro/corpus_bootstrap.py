"""Corpus-bootstrap confidence intervals for AP and MAP (Cormack & Lynam, SIGIR 2006).

The test corpus is treated as one sample from an infinite population of "materially similar"
corpora (paper section 5). Resampling the corpus with replacement, in the limit of a corpus much
larger than the ranked list, replicates every document ``k ~ Poisson(1)`` times; copies of a
retrieved document are ranked consecutively where the original was, and the unretrieved relevant
documents are replicated the same way, so ``R* = R_ret* + R_not*`` (section 5, "The bootstrap").

One-line use::

    from irrepro import corpus_bootstrap as cb
    rs = data.load_runs("trec-covid-round5")
    reps = cb.bootstrap_ap(rs, n_boot=2000, seed=1)          # (S, T, B) bootstrap AP values
    iv = cb.ap_intervals(rs, n_boot=2000, seed=1)             # linear, logit and BCa intervals
    a, b = cb.split_corpus(rs)                                # the MD5 split of section 6
    val = cb.split_validation(rs, n_boot=2000, seed=1)        # Tables 1-4 of the paper

**How it is computed (our own derivation, same distribution as the paper's model).** AP depends on
the non-relevant documents only through how many of them precede each relevant one. The sum of
``g`` independent Poisson(1) multiplicities is Poisson(g), so a bootstrap sample of a list is
drawn exactly by one Poisson(1) multiplicity per retrieved relevant document, one Poisson(g_j)
count per gap of ``g_j`` non-relevant documents before the ``j``-th relevant one, and
``R_not* ~ Poisson(R_not)``. The cost per list scales with its number of retrieved relevant
documents, not its length. :func:`bootstrap_ap_reference` is the literal expand-the-list
implementation the tests and the benchmark compare against.

**Conventions we chose (the paper does not state them).**

- Relevance is ``grade >= rel`` (default 1: TREC-COVID's "partially relevant" counts).
  Retrieved unjudged documents are non-relevant (trec_eval).
- A bootstrap sample with ``R* = 0`` (no relevant document in the resampled corpus) has no AP:
  it is ``NaN`` and every statistic uses the samples that have one (the bootstrap conditioned on
  ``R* > 0``, as TREC only keeps topics with relevant documents). It matters only for R <= 5.
- A list is *usable* when it retrieved at least one document and its topic has R > 0; the
  paper's "non-empty lists". Unusable lists get NaN everywhere.
- logit intervals replace AP = 0 and 1 by ``eps`` and ``1 - eps`` (``EPS = 1e-3``).
- BCa's acceleration is the jackknife over *documents* (leave one document of the corpus out),
  in the infinite-corpus limit the Poisson bootstrap itself assumes: see :func:`ap_acceleration`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import special, stats

from . import parallel
from .data import PAD, Qrels, RunSet
from .measures import average_precision

__all__ = [
    "EPS",
    "Z95",
    "predicted_in_interval",
    "Lists",
    "compact_lists",
    "ap_from_counts",
    "bootstrap_ap",
    "bootstrap_ap_reference",
    "bca_interval",
    "ap_acceleration",
    "Intervals",
    "ap_intervals",
    "intervals_from_replicates",
    "logit",
    "expit",
    "silver_bullet_fraction",
    "expected_ap_uniform",
    "small_r_limits",
    "small_r_correct",
    "split_corpus",
    "doc_half",
    "position",
    "SplitValidation",
    "split_validation",
    "map_bootstrap_intervals",
    "map_parametric_intervals",
    "DifferenceIntervals",
    "difference_intervals",
    "MetaAnalysis",
    "meta_analysis",
]

#: AP = 0 / 1 become EPS / 1 - EPS before the logit (our choice; the paper does not give it).
EPS = 1e-3
#: The two-sided 95% normal quantile, computed (1.959963...).
Z95 = float(stats.norm.ppf(0.975))


def predicted_in_interval(level: float = 0.95) -> tuple[float, float, float]:
    """The paper's prediction (section 6): AP_A and AP_B have the same sd, so AP_B - AP_A has sd
    sigma*sqrt(2) and AP_B lies in AP_A +/- z sigma with probability P(|Z| <= z / sqrt 2).

    Returns (below, in, above): 0.0825, 0.835, 0.0825 for 95% intervals (computed with scipy)."""
    z = stats.norm.ppf(0.5 + level / 2)
    inside = float(stats.norm.cdf(z / np.sqrt(2)) - stats.norm.cdf(-z / np.sqrt(2)))
    return (1 - inside) / 2, inside, (1 - inside) / 2


def logit(p, eps: float = EPS) -> np.ndarray:
    """log(p / (1 - p)) with p clipped to [eps, 1 - eps] (the paper's replacement of 0 and 1)."""
    p = np.clip(np.asarray(p, dtype=np.float64), eps, 1 - eps)
    return np.log(p) - np.log1p(-p)


def expit(x) -> np.ndarray:
    """The inverse of :func:`logit`."""
    return special.expit(x)


# --------------------------------------------------------------------------------------------
# compact lists: what the bootstrap needs of a ranked list
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Lists:
    """Ranked lists reduced to what AP depends on, for ``shape`` = (S, T) lists (CSR layout).

    ``gaps[start[i]:start[i+1]]`` are the numbers of non-relevant documents before each retrieved
    relevant document of list ``i`` (counted from the previous relevant one); ``n_rel`` is R,
    ``length`` the list length, ``ap`` the list's AP (``measures.average_precision``), ``usable``
    whether the list is non-empty and R > 0.
    """

    gaps: np.ndarray  # int64 (M,)
    start: np.ndarray  # int64 (L + 1,)
    n_rel: np.ndarray  # int64 (L,)
    length: np.ndarray  # int64 (L,)
    ap: np.ndarray  # float64 (L,)
    shape: tuple[int, ...]

    @property
    def n_ret_rel(self) -> np.ndarray:
        return np.diff(self.start)

    @property
    def usable(self) -> np.ndarray:
        return (self.length > 0) & (self.n_rel > 0)

    def __len__(self) -> int:
        return len(self.n_rel)


def compact_lists(relevant: np.ndarray, n_rel, lengths=None) -> Lists:
    """:class:`Lists` from a boolean ``(..., K)`` relevance array (rank axis last) and R
    (broadcastable to ``relevant.shape[:-1]``); ``lengths`` default: all K ranks retrieved."""
    relevant = np.asarray(relevant, dtype=bool)
    if relevant.ndim < 1:
        raise ValueError("relevant must have a rank axis (last)")
    shape = relevant.shape[:-1]
    flat = relevant.reshape(-1, relevant.shape[-1])
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.int64), shape).reshape(-1)
    if lengths is None:
        lengths = np.full(shape, relevant.shape[-1])
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), shape).reshape(-1)
    m = flat.sum(axis=1)
    if np.any(m > n_rel):
        i = int(np.flatnonzero(m > n_rel)[0])
        raise ValueError(f"list {np.unravel_index(i, shape)} retrieves {m[i]} relevant documents but R = {n_rel[i]}")
    li, rank = np.nonzero(flat)  # row-major: lists in order, ranks ascending
    start = np.r_[0, np.cumsum(m)].astype(np.int64)
    j = np.arange(len(rank)) - np.repeat(start[:-1], m)  # index of the relevant doc in its list
    gaps = rank - j  # non-relevant docs before it
    first = j == 0
    gaps = np.where(first, gaps, gaps - np.r_[0, gaps[:-1]]).astype(np.int64)
    ap = average_precision(flat, n_rel)
    return Lists(gaps, start, n_rel, lengths, ap, tuple(shape))


def _lists_of(obj, rel: int) -> Lists:
    if isinstance(obj, Lists):
        return obj
    if isinstance(obj, RunSet):
        return compact_lists(obj.relevant(rel), obj.n_relevant(rel)[None, :], obj.lengths)
    raise TypeError(f"expected a RunSet or Lists, not {type(obj).__name__}")


# --------------------------------------------------------------------------------------------
# exact, fast Poisson draws for integer means (inverse CDF with guide tables)
# --------------------------------------------------------------------------------------------


class _PoissonTables:
    """Inverse-CDF tables of Poisson(lam) for lam = 0..lam_max (integers).

    A draw is ``X = #{k : F(k) <= U}`` for one float64 uniform ``U`` (exact inversion up to the
    uniform's 2**-53 resolution; the tail beyond ``lam + 12 sqrt(lam) + 30``, below 1e-20, is cut
    there). A guide table of ``size`` slots gives the start of the search, so a draw costs a few
    array operations instead of numpy's rejection sampler (about 5x faster)."""

    def __init__(self, lam_max: int):
        lam_max = max(int(lam_max), 1)
        cdfs, guides, sizes = [], [], []
        for lam in range(lam_max + 1):
            n = int(lam + 12 * np.sqrt(lam) + 30)
            f = stats.poisson.cdf(np.arange(n), lam) if lam > 0 else np.ones(n)
            f[-1] = 1.0  # every uniform (< 1) stops here
            cdfs.append(f)
            guides.append(np.searchsorted(f, np.arange(n) / n, side="right").astype(np.int64))
            sizes.append(n)
        self.size = np.array(sizes, dtype=np.int64)
        self.offset = np.r_[0, np.cumsum(self.size)[:-1]].astype(np.int64)
        self.cdf = np.concatenate(cdfs)
        self.guide = np.concatenate(guides)
        self.lam_max = lam_max

    def draw(self, rng: np.random.Generator, lam: np.ndarray, n: int) -> np.ndarray:
        """``(len(lam), n)`` int64 draws, row ``i`` from Poisson(lam[i])."""
        lam = np.asarray(lam, dtype=np.int64)
        if lam.size and (lam.min() < 0 or lam.max() > self.lam_max):
            raise ValueError(f"Poisson means must lie in 0..{self.lam_max}")
        u = rng.random((len(lam), n))
        off = self.offset[lam][:, None]
        k = self.guide[off + (u * self.size[lam][:, None]).astype(np.int64)]
        idx = off + k
        act = np.nonzero(u >= self.cdf[idx])
        while act[0].size:
            k[act] += 1
            idx[act] += 1
            sub = u[act] >= self.cdf[idx[act]]
            act = tuple(a[sub] for a in act)
        return k


_ONES = None


def _poisson_ones(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Poisson(1) draws by inverse CDF: four comparisons, then a search for the 1.9% above 3."""
    global _ONES
    if _ONES is None:
        f = stats.poisson.cdf(np.arange(30), 1.0)
        f[-1] = 1.0
        _ONES = f
    f = _ONES
    u = rng.random(shape)
    k = (u >= f[0]).astype(np.int32)
    k += u >= f[1]
    k += u >= f[2]
    big = np.nonzero(u >= f[3])
    if big[0].size:
        k[big] = np.searchsorted(f, u[big], side="right")
    return k


# --------------------------------------------------------------------------------------------
# the bootstrap
# --------------------------------------------------------------------------------------------


def ap_from_counts(k: np.ndarray, nonrel: np.ndarray, r_star: np.ndarray) -> np.ndarray:
    """AP of resampled lists computed from counts over the relevant documents only.

    ``k`` (m, ...): copies of each retrieved relevant document, in rank order; ``nonrel`` (m, ...):
    non-relevant documents in the gap just above each of them; ``r_star`` (...): R of the resampled
    corpus. The ``k_j`` copies of relevant document ``j`` are ranked consecutively below ``p``
    documents of which ``h`` are relevant, each copy counts as a hit, so they add
    ``sum_{c=1..k_j} (h + c) / (p + c) = k_j - N_j sum_{c=1..k_j} 1 / (p + c)`` to the precision
    sum (``N_j = p - h``, the non-relevant documents above them). AP = sum / R*; NaN where R* = 0.
    """
    k = np.asarray(k)
    n_above = np.cumsum(nonrel, axis=0, dtype=np.int64)
    p = np.cumsum(k, axis=0, dtype=np.int64)
    p -= k
    p += n_above
    p = p.astype(np.float64)
    p += 1.0  # rank of the first copy
    harm = (k >= 1) / p  # sum_{c=1..k} 1/(p0 + c), p = p0 + 1
    for c in (1.0, 2.0, 3.0):  # k >= 2, 3, 4: full passes are cheaper than indexing
        harm += (k > c) / (p + c)
    big = np.flatnonzero(k.ravel() > 4)  # rare (0.4% of Poisson(1) draws)
    if big.size:
        kb, pb = k.ravel()[big], p.ravel()[big]
        extra = np.zeros(big.size)
        for c in range(4, int(kb.max())):
            extra += (kb > c) / (pb + c)
        harm.ravel()[big] += extra
    psum = k.sum(axis=0) - np.einsum("i...,i...->...", n_above, harm)
    r_star = np.asarray(r_star, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r_star > 0, psum / np.where(r_star > 0, r_star, 1.0), np.nan)


_BLOCK = 65_536  # cells (relevant doc x sample) per block: keeps the arrays in cache


def _boot_list(gaps: np.ndarray, n_rel: int, n_boot: int, rng: np.random.Generator, tables) -> np.ndarray:
    m = len(gaps)
    out = np.empty(n_boot)
    nz = np.flatnonzero(gaps)
    step = max(1, _BLOCK // max(m, 1))
    for b0 in range(0, n_boot, step):
        bb = min(step, n_boot - b0)
        k = _poisson_ones(rng, (m, bb))
        g = np.zeros((m, bb), dtype=np.int32)
        if nz.size:
            g[nz] = tables.draw(rng, gaps[nz], bb)
        r_not = rng.poisson(float(n_rel - m), size=bb)
        out[b0 : b0 + bb] = ap_from_counts(k, g, k.sum(axis=0) + r_not)
    return out


def bootstrap_ap(
    runs: RunSet | Lists,
    n_boot: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    n_jobs: int | None = None,
    progress: bool | str = False,
) -> np.ndarray:
    """B corpus-bootstrap AP values of every list: array ``Lists.shape + (B,)`` ((S, T, B) for a
    RunSet).

    Paper section 5 (Poisson(1) replication of every document, copies ranked consecutively,
    ``R* = R_ret* + R_not*``), drawn from counts between relevant documents (module docstring).
    List ``i`` (row-major over runs x topics) draws from child ``i`` of the seed's SeedSequence,
    so its values do not depend on the other lists or on ``n_jobs``. Unusable lists (empty or
    R = 0) are NaN, and so are samples with R* = 0.
    """
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    lists = _lists_of(runs, rel)
    seeds = parallel.as_seed_sequence(seed).spawn(len(lists))
    tables = _PoissonTables(int(lists.gaps.max(initial=1)))
    out = np.full((len(lists), n_boot), np.nan)
    todo = np.flatnonzero(lists.usable)
    # tasks: fixed groups of lists (independent of n_jobs); each list has its own generator
    groups = np.array_split(todo, max(1, len(todo) // 64)) if len(todo) else []

    def work(idx):
        return [
            _boot_list(
                lists.gaps[lists.start[i] : lists.start[i + 1]],
                int(lists.n_rel[i]),
                n_boot,
                np.random.default_rng(seeds[i]),
                tables,
            )
            for i in idx
        ]

    res = parallel.parallel_map(work, groups, n_jobs=n_jobs, progress=progress)
    for idx, vals in zip(groups, res):
        out[idx] = np.array(vals)
    return out.reshape(lists.shape + (n_boot,))


def bootstrap_ap_reference(
    relevant: np.ndarray, n_rel: int, n_boot: int, seed: parallel.SeedLike
) -> np.ndarray:
    """The paper's construction, literally, for ONE list (reference for tests and benchmark).

    ``relevant`` is the boolean list (rank order). Each sample replicates every retrieved document
    k ~ Poisson(1) times in rank order (``np.repeat``), draws R_not* as a sum of R_not Poisson(1)
    values, and recomputes AP with :func:`irrepro.measures.average_precision`.
    """
    rng = np.random.default_rng(parallel.as_seed_sequence(seed))
    relevant = np.asarray(relevant, dtype=bool)
    r_not = int(n_rel) - int(relevant.sum())
    out = np.empty(n_boot)
    for b in range(n_boot):
        k = rng.poisson(1.0, size=len(relevant))
        expanded = np.repeat(relevant, k)
        r_star = expanded.sum() + rng.poisson(1.0, size=r_not).sum()
        out[b] = average_precision(expanded, r_star) if r_star > 0 else np.nan
    return out
