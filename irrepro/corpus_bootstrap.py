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
drawn exactly by one Poisson(g_j) count per gap of ``g_j`` non-relevant documents above the
``j``-th block of consecutive relevant documents, one Poisson(r_j) count of copies for a block of
``r_j`` relevant documents (their copies are consecutive hits however they are shared out), and
``R_not* ~ Poisson(R_not)``; AP* then follows from cumulative counts over the blocks
(:func:`ap_from_counts`). The cost per list scales with its number of retrieved relevant
documents, not its length, and all B samples of a list are one set of array operations.
:func:`bootstrap_ap_reference` is the literal expand-the-list implementation the tests and the
benchmark compare against.

**Conventions we chose (the paper does not state them).**

- Relevance is ``grade >= rel`` (default 1: TREC-COVID's "partially relevant" counts).
  Retrieved unjudged documents are non-relevant (trec_eval).
- A bootstrap sample with ``R* = 0`` (no relevant document in the resampled corpus) has no AP:
  it is ``NaN`` and every statistic uses the samples that have one (the bootstrap conditioned on
  ``R* > 0``, as TREC only keeps topics with relevant documents). It matters only for R <= 5.
- A list is *usable* when it retrieved at least one document and its topic has R > 0; the
  paper's "non-empty lists". Unusable lists get NaN everywhere.
- logit intervals replace AP = 0 and 1 by ``eps`` and ``1 - eps`` (``EPS = 1e-3``).
- The split (section 6): a document is in half A when the lowest bit of the MD5 digest of its
  UTF-8 id is 0; "R > 5" (Table 1) is R of the half the interval is computed from.
- Small-R limits (section 7): silver bullets and lead balloons land at uniformly random ranks of a
  list of ``max(length, R)`` ranks (see :func:`small_r_limits` for our reading of the lead
  balloons); MAP's parametric weight ``AP - AP^2`` is applied by the delta method.
- BCa's acceleration is the jackknife over *documents* (leave one document of the corpus out),
  in the infinite-corpus limit the Poisson bootstrap itself assumes: see :func:`ap_acceleration`.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import special, stats

from . import parallel
from .data import RunSet
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
    "run_means",
    "FullCorpus",
    "full_corpus",
    "plot_run_intervals",
    "jackknife_acceleration",
    "METHODS",
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
    if isinstance(obj, RunSet):  # from the ragged arrays: memory follows the number of lines
        S, T = obj.lengths.shape
        li, rank = obj.relevant_positions(rel)
        m = np.bincount(li, minlength=S * T)
        n_rel = np.broadcast_to(obj.n_relevant(rel)[None, :], (S, T)).reshape(-1).astype(np.int64)
        start = np.r_[0, np.cumsum(m)].astype(np.int64)
        j = np.arange(len(rank)) - np.repeat(start[:-1], m)  # index of the relevant doc in its list
        gaps = rank - j
        gaps = np.where(j == 0, gaps, gaps - np.r_[0, gaps[:-1]]).astype(np.int64)
        prec = np.bincount(li, weights=(j + 1) / (rank + 1.0), minlength=S * T)
        ap = np.divide(prec, n_rel, out=np.zeros(S * T), where=n_rel > 0)
        return Lists(gaps, start, n_rel, obj.lengths.reshape(-1).astype(np.int64), ap, (S, T))
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
        lams = np.arange(lam_max + 1)
        self.size = (lams + 12 * np.sqrt(lams) + 30).astype(np.int64)
        self.offset = np.r_[0, np.cumsum(self.size)[:-1]].astype(np.int64)
        owner = np.repeat(lams, self.size)
        pos = np.arange(owner.size) - self.offset[owner]  # k within its table
        cdf = stats.poisson.cdf(pos, np.maximum(owner, 1e-300))
        cdf[owner == 0] = 1.0
        cdf[self.offset + self.size - 1] = 1.0  # every uniform (< 1) stops at the last entry
        self.cdf = cdf
        # guide[i] = #{k : F(k) <= i / size} within each table: a search start never past the draw
        frac = pos / self.size[owner]
        self.guide = np.empty(owner.size, dtype=np.int64)
        for lam in range(lam_max + 1):  # one searchsorted per table (fast); values are exact
            o, n = self.offset[lam], self.size[lam]
            self.guide[o : o + n] = np.searchsorted(cdf[o : o + n], frac[o : o + n], side="right")
        # per slot: the search start and the CDF there, so that most draws need one gather each
        self.guide_cdf = self.cdf[np.repeat(self.offset, self.size) + self.guide]
        self.scale = self.size * (1 - 2.0**-52)
        self.lam_max = lam_max

    def draw(self, rng: np.random.Generator, lam: np.ndarray, n: int) -> np.ndarray:
        """``(len(lam), n)`` int64 draws, row ``i`` from Poisson(lam[i]); means above the tables'
        ``lam_max`` (deep gaps of very long lists) by numpy's sampler, after the others."""
        lam = np.asarray(lam, dtype=np.int64)
        if lam.size and lam.min() < 0:
            raise ValueError("Poisson means must be >= 0")
        big = lam > self.lam_max
        if big.any():
            out = np.empty((len(lam), n), dtype=np.int64)
            out[~big] = self.draw(rng, lam[~big], n)
            out[big] = rng.poisson(lam[big, None], size=(int(big.sum()), n))
            return out
        u = rng.random((len(lam), n))
        off = self.offset[lam][:, None]
        slot = (u * self.scale[lam][:, None]).astype(np.int64)  # < size even for u = 1 - 2**-53
        slot += off
        k = self.guide[slot]
        act = np.flatnonzero(u.ravel() >= self.guide_cdf[slot.ravel()])
        if act.size:  # one step up resolves most; the rest (deep tails) by a search in their table
            kf, uf = k.ravel(), u.ravel()
            kf[act] += 1
            rows = act // n
            act = act[uf[act] >= self.cdf[self.offset[lam[rows]] + kf[act]]]
            if act.size:
                lam_act = np.broadcast_to(lam[:, None], u.shape).ravel()[act]
                for lv in np.unique(lam_act):
                    sel = act[lam_act == lv]
                    o, n_ = self.offset[lv], self.size[lv]
                    kf[sel] = np.searchsorted(self.cdf[o : o + n_], uf[sel], side="right")
        return k


#: The largest Poisson mean drawn from tables (their memory grows with its square: ~40 MB here);
#: lists up to ~1000 deep never need more, a 100,000-line list's gaps go to numpy's sampler.
_TABLE_MAX = 1024


@functools.lru_cache(maxsize=4)
def _tables_for(lam_max: int) -> _PoissonTables:
    """Cached tables covering 0..lam_max (at most ``_TABLE_MAX``), built for the next power of two
    (a table for lam does not depend on lam_max, so draws are the same whichever cached set serves
    them)."""
    return _PoissonTables(min(_TABLE_MAX, 1 << max(6, int(lam_max - 1).bit_length())))


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
    n_above = np.cumsum(nonrel, axis=0)
    p = np.cumsum(k, axis=0)
    p -= k
    p += n_above
    p = p + 1.0  # rank of the first copy (float64)
    harm = (k >= 1) / p  # sum_{c=1..k} 1/(p0 + c), p = p0 + 1
    for c in (1.0, 2.0, 3.0):  # k >= 2, 3, 4: full passes are cheaper than indexing
        harm += (k > c) / (p + c)
    big = np.flatnonzero(k.ravel() > 4)  # sum_{c=4..k-1} 1/(p + c) = psi(p + k) - psi(p + 4)
    if big.size:
        kb, pb = k.ravel()[big], p.ravel()[big]
        harm.ravel()[big] += special.digamma(pb + kb) - special.digamma(pb + 4.0)
    psum = k.sum(axis=0) - np.einsum("i...,i...->...", n_above, harm)
    r_star = np.asarray(r_star, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r_star > 0, psum / np.where(r_star > 0, r_star, 1.0), np.nan)


_BLOCK = 65_536  # cells (relevant doc x sample) per block: keeps the arrays in cache


def _boot_list(gaps: np.ndarray, n_rel: int, n_boot: int, rng: np.random.Generator, tables) -> np.ndarray:
    """B bootstrap APs of one list. Consecutive relevant documents (no non-relevant between them)
    form a block whose copies are consecutive hits wherever they come from, so a block of r
    documents needs only its total multiplicity, Poisson(r)."""
    m = len(gaps)
    out = np.empty(n_boot)
    if m == 0:
        r_not = rng.poisson(float(n_rel), size=n_boot)
        return np.where(r_not > 0, 0.0, np.nan)
    first = np.flatnonzero(np.r_[True, gaps[1:] > 0])  # block starts
    size = np.diff(np.r_[first, m])
    bgap = gaps[first]
    nz = np.flatnonzero(bgap)
    nb = len(first)
    step = max(1, _BLOCK // nb)
    for b0 in range(0, n_boot, step):
        bb = min(step, n_boot - b0)
        k = tables.draw(rng, size, bb)
        g = np.zeros((nb, bb), dtype=np.int64)
        if nz.size:
            g[nz] = tables.draw(rng, bgap[nz], bb)
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
    n_boot = parallel.check_int(n_boot, "n_boot", minimum=2)
    lists = _lists_of(runs, rel)
    seeds = parallel.as_seed_sequence(seed).spawn(len(lists))
    tables = _tables_for(int(max(lists.gaps.max(initial=1), lists.n_ret_rel.max(initial=1))))
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
    n_boot = parallel.check_int(n_boot, "n_boot", minimum=1)
    rng = parallel.as_generator(seed)
    relevant = np.asarray(relevant, dtype=bool)
    r_not = int(n_rel) - int(relevant.sum())
    out = np.empty(n_boot)
    for b in range(n_boot):
        k = rng.poisson(1.0, size=len(relevant))
        expanded = np.repeat(relevant, k)
        r_star = expanded.sum() + rng.poisson(1.0, size=r_not).sum()
        out[b] = average_precision(expanded, r_star) if r_star > 0 else np.nan
    return out


# --------------------------------------------------------------------------------------------
# BCa (generic) and the document jackknife of AP
# --------------------------------------------------------------------------------------------


def _sorted_valid(replicates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    reps = np.sort(np.asarray(replicates, dtype=np.float64), axis=-1)  # NaN last
    return reps, np.sum(~np.isnan(reps), axis=-1)


def _quantile_sorted(reps: np.ndarray, n: np.ndarray, q: np.ndarray) -> np.ndarray:
    """np.percentile's 'linear' quantile of the first ``n`` (valid) values of sorted rows."""
    q = np.broadcast_to(np.asarray(q, dtype=np.float64), n.shape)
    pos = q * (n - 1)
    lo = np.clip(np.floor(pos), 0, np.maximum(n - 1, 0)).astype(np.int64)
    hi = np.clip(lo + 1, 0, np.maximum(n - 1, 0))
    frac = pos - lo
    a = np.take_along_axis(reps, lo[..., None], axis=-1)[..., 0]
    b = np.take_along_axis(reps, hi[..., None], axis=-1)[..., 0]
    out = a + (b - a) * frac
    return np.where((n > 0) & np.isfinite(q), out, np.nan)


def jackknife_acceleration(values: np.ndarray, weights: np.ndarray | None = None, center=None) -> np.ndarray:
    """Efron's acceleration ``a = sum w U^3 / (6 (sum w U^2)^1.5)``, ``U = center - theta_(i)``,
    from jackknife values along the last axis (``weights`` = multiplicities; ``center`` defaults
    to their weighted mean, as in Efron & Tibshirani eq. 14.15 and scipy). 0 when all U are 0."""
    values = np.asarray(values, dtype=np.float64)
    w = np.ones_like(values) if weights is None else np.broadcast_to(weights, values.shape)
    if center is None:
        center = (w * values).sum(axis=-1) / w.sum(axis=-1)
    u = np.asarray(center)[..., None] - values
    num = (w * u**3).sum(axis=-1)
    den = (w * u**2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / (6 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)


def bca_interval(
    theta_hat,
    replicates: np.ndarray,
    *,
    jackknife: np.ndarray | None = None,
    accel=None,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """BCa interval (Efron & Tibshirani 1993, ch. 14) from bootstrap replicates (last axis).

    Generic: ``theta_hat`` (...), ``replicates`` (..., B) (NaN = undefined sample, ignored), and
    either ``jackknife`` values (..., n) or the acceleration ``accel`` (...). Bias correction
    ``z0 = Phi^-1(p)`` with p the mid-rank share of replicates below theta_hat
    (``(#< + #<=) / 2B``), the same rule as ``scipy.stats.bootstrap(method="BCa")``, whose
    interval this reproduces exactly on the same replicates. When every replicate lies on one side
    of theta_hat, p is clipped to [1/2B, 1 - 1/2B] (scipy returns NaN there).
    """
    theta_hat = np.asarray(theta_hat, dtype=np.float64)
    reps, n = _sorted_valid(replicates)
    th = theta_hat[..., None]
    p = (np.sum(reps < th, axis=-1) + np.sum(reps <= th, axis=-1)) / (2.0 * np.maximum(n, 1))
    p = np.clip(p, 0.5 / np.maximum(n, 1), 1 - 0.5 / np.maximum(n, 1))
    z0 = special.ndtri(p)
    if accel is None:
        accel = np.zeros(theta_hat.shape) if jackknife is None else jackknife_acceleration(jackknife)
    a = np.asarray(accel, dtype=np.float64)
    alpha = (1 - level) / 2
    out = []
    for z in (special.ndtri(alpha), -special.ndtri(alpha)):
        num = z0 + z
        q = special.ndtr(z0 + num / (1 - a * num))
        out.append(_quantile_sorted(reps, n, q))
    return out[0], out[1]


def ap_acceleration(runs: RunSet | Lists, *, rel: int = 1) -> np.ndarray:
    """BCa acceleration of every list's AP from the leave-one-document-out jackknife.

    The corpus bootstrap resamples documents, so the matching jackknife leaves out one document of
    the corpus at a time. Only documents that change AP matter: a non-relevant document in the gap
    above the j-th retrieved relevant one (all ``g_j`` of them give the same value: the relevant
    documents from j on move up one rank), a retrieved relevant document (R - 1, the ones below
    lose a hit and a rank), an unretrieved relevant document (R - 1; ``R_not`` equal values).
    Every other document leaves AP unchanged (U = 0). In the infinite-corpus limit that the
    Poisson bootstrap assumes, the jackknife mean is AP itself, so ``U_i = AP - AP_(i)`` and
    ``a = sum w U^3 / (6 (sum w U^2)^1.5)``. Leaving out the only relevant document (R = 1) has no
    AP and is skipped. Returns ``Lists.shape``; 0 for unusable lists.
    """
    lists = _lists_of(runs, rel)
    m = lists.n_ret_rel
    L = len(lists)
    seg = np.repeat(np.arange(L), m)
    j = np.arange(len(seg)) - np.repeat(lists.start[:-1], m) + 1.0  # 1-based hit number
    rank = np.cumsum(lists.gaps + 1) - np.repeat(np.r_[0, np.cumsum(lists.gaps + 1)][lists.start[:-1]], m)
    rank = rank.astype(np.float64)
    R = lists.n_rel[seg].astype(np.float64)
    ap = lists.ap[seg]

    def seg_excl_prefix(x):  # sum over earlier entries of the same list
        c = np.r_[0.0, np.cumsum(x)]
        return c[:-1] - c[lists.start[:-1]][seg]

    def seg_total(x):
        c = np.r_[0.0, np.cumsum(x)]
        return (c[lists.start[1:]] - c[lists.start[:-1]])[seg]

    a_ = j / rank
    b_ = np.where(rank > 1, j / np.maximum(rank - 1, 1), 0.0)
    c_ = np.where(rank > 1, (j - 1) / np.maximum(rank - 1, 1), 0.0)
    pre_a = seg_excl_prefix(a_)
    # drop a non-relevant doc in gap j: ranks from j on shrink by one
    suf_b = seg_total(b_) - seg_excl_prefix(b_)
    v_gap = (pre_a + suf_b) / R
    # drop relevant doc j: R - 1, the ones below lose one hit and one rank
    suf_c_after = seg_total(c_) - seg_excl_prefix(c_) - c_
    with np.errstate(invalid="ignore", divide="ignore"):
        v_rel = np.where(R > 1, (pre_a + suf_c_after) / np.maximum(R - 1, 1), ap)
    w_rel = np.where(R > 1, 1.0, 0.0)
    u_gap, u_rel = ap - v_gap, ap - v_rel
    num = np.bincount(seg, lists.gaps * u_gap**3 + w_rel * u_rel**3, minlength=L)
    den = np.bincount(seg, lists.gaps * u_gap**2 + w_rel * u_rel**2, minlength=L)
    # unretrieved relevant documents: AP * R / (R - 1)
    r_not = (lists.n_rel - m).astype(np.float64)
    Rl = lists.n_rel.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        u_not = np.where(Rl > 1, lists.ap - lists.ap * Rl / np.maximum(Rl - 1, 1), 0.0)
    num += r_not * u_not**3
    den += r_not * u_not**2
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where((den > 0) & lists.usable, num / (6 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)
    return acc.reshape(lists.shape)


# --------------------------------------------------------------------------------------------
# intervals for AP
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Intervals:
    """95% intervals of one method for an array of lists (or runs): ``lower``, ``upper`` around
    ``estimate``; ``sd`` is the bootstrap sd on the method's scale (NaN for BCa)."""

    method: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd: np.ndarray

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower


METHODS = ("linear", "logit", "bca")


def intervals_from_replicates(
    estimate,
    replicates: np.ndarray,
    methods: Sequence[str] = METHODS,
    *,
    accel=None,
    eps: float = EPS,
    level: float = 0.95,
) -> dict[str, Intervals]:
    """Linear, logit and BCa intervals (paper section 5) from replicates along the last axis.

    linear: ``AP +/- z sd(AP*)`` (not clipped to [0, 1], as in the paper); logit:
    ``expit(logit AP +/- z sd(logit AP*))`` with 0/1 replaced by eps/1-eps (and a limit at or
    beyond eps / 1 - eps read back as 0 / 1, so that AP = 0 with sd 0 gives [0, eps]); bca:
    :func:`bca_interval` with acceleration ``accel`` (0 if None: plain bias-corrected BC).
    Replicates that are NaN (R* = 0) are ignored; the sd uses ddof = 1.
    """
    est = np.asarray(estimate, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    z = stats.norm.ppf(0.5 + level / 2)
    out = {}
    for meth in methods:
        if meth == "linear":
            sd = _nansd(reps)
            out[meth] = Intervals(meth, est, est - z * sd, est + z * sd, sd)
        elif meth == "logit":
            sd = _nansd(logit(reps, eps))
            c = logit(est, eps)
            # eps stands for 0 (1 - eps for 1): a limit at or beyond it is 0 (1)
            edge = float(logit(eps, eps)) + 1e-9
            lo = np.where(c - z * sd <= edge, 0.0, expit(c - z * sd))
            hi = np.where(c + z * sd >= -edge, 1.0, expit(c + z * sd))
            out[meth] = Intervals(meth, est, lo, hi, sd)
        elif meth == "bca":
            lo, hi = bca_interval(est, reps, accel=accel, level=level)
            out[meth] = Intervals(meth, est, lo, hi, np.full(est.shape, np.nan))
        else:
            raise ValueError(f"unknown interval method {meth!r}; use {METHODS}")
    return out


def _nansd(x: np.ndarray) -> np.ndarray:
    n = np.sum(~np.isnan(x), axis=-1)
    mean = np.nansum(x, axis=-1) / np.maximum(n, 1)
    ss = np.nansum((x - mean[..., None]) ** 2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 1, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)


def ap_intervals(
    runs: RunSet | Lists,
    n_boot: int = 2000,
    seed: parallel.SeedLike = None,
    methods: Sequence[str] = METHODS,
    *,
    rel: int = 1,
    eps: float = EPS,
    small_r: bool = False,
    n_jobs: int | None = None,
) -> dict[str, Intervals]:
    """Corpus-bootstrap 95% intervals of every list's AP, one :class:`Intervals` per method.
    ``small_r=True`` applies the section-7 correction (:func:`small_r_correct`) to linear and logit
    (keys ``"linear+smallR"``, ``"logit+smallR"``)."""
    lists = _lists_of(runs, rel)
    reps = bootstrap_ap(lists, n_boot, seed, n_jobs=n_jobs)
    ap = lists.ap.reshape(lists.shape)
    accel = ap_acceleration(lists).reshape(lists.shape) if "bca" in methods else None
    out = intervals_from_replicates(ap, reps, methods, accel=accel, eps=eps)
    if small_r:  # the corrected linear and logit intervals replace the plain ones
        out = _with_small_r(out, lists.n_rel.reshape(lists.shape), lists.length.reshape(lists.shape))
        out = {m: iv for m, iv in out.items() if m not in ("linear", "logit")}
    return out


# --------------------------------------------------------------------------------------------
# small-R correction (section 7)
# --------------------------------------------------------------------------------------------


def silver_bullet_fraction(n_rel, alpha: float = 0.05) -> np.ndarray:
    """Upper limit u of the silver-bullet (or lead-balloon) proportion: the smallest u with
    ``(1 - u)^R <= alpha``, i.e. ``1 - alpha^(1/R)`` (R = 4: 0.527)."""
    n_rel = np.asarray(n_rel, dtype=np.float64)
    return 1.0 - alpha ** (1.0 / n_rel)


def expected_ap_uniform(n_rel: int, depth: int, n_top: int, n_placed) -> np.ndarray:
    """E[AP] of a list of ``depth`` ranks whose top ``n_top`` documents are relevant and whose
    ``n_placed`` further relevant documents occupy a uniformly random set of the remaining ranks;
    R = ``n_rel``. Exact: by linearity, rank ``r`` of the N = depth - n_top free ranks holds a
    placed document with probability x/N and then has on average 1 + (x-1)(r-1)/(N-1) placed
    documents at or above it, so E[AP] = (n_top + sum_r x/N (n_top + 1 + (x-1)(r-1)/(N-1)) /
    (n_top + r)) / R. (The paper enumerates the same expectation by dynamic programming.)
    ``n_placed`` may be an array (vectorised)."""
    x = np.asarray(n_placed, dtype=np.float64)[..., None]
    N = depth - n_top
    if N <= 0:
        return np.full(x.shape[:-1], n_top / n_rel)
    r = np.arange(1, N + 1, dtype=np.float64)
    hits = n_top + 1 + (x - 1) * (r - 1) / max(N - 1, 1)
    e = (x / N * hits / (n_top + r)).sum(axis=-1)
    return (n_top + e) / n_rel


def small_r_limits(n_rel: int, depth: int, alpha: float = 0.05, tail: float = 1e-12) -> tuple[float, float]:
    """(upper limit when AP = 0, lower limit when AP = 1) for R = ``n_rel`` and a list of
    ``depth`` ranks (section 7).

    Silver bullets: a proportion u = :func:`silver_bullet_fraction` of the population's relevant
    documents is retrievable by the system; with R relevant documents, X ~ Binomial(R, u) of them
    are silver bullets, each at a uniformly random rank in 1..depth: the limit is E[AP].
    Lead balloons (our reading of "a similar dynamic approach"): with AP = 1 all R relevant
    documents lead the list; X ~ Binomial(R, u) of them are lead balloons, which the system cannot
    rank well: they land at uniformly random ranks below the R - X others; the limit is E[AP].
    The binomial is summed up to its 1 - ``tail`` quantile.
    """
    n_rel, depth = int(n_rel), max(int(depth), int(n_rel))
    u = float(silver_bullet_fraction(n_rel, alpha))
    xmax = int(stats.binom.ppf(1 - tail, n_rel, u))
    x = np.arange(xmax + 1)
    w = stats.binom.pmf(x, n_rel, u)
    w = w / w.sum()
    upper0 = float((w * expected_ap_uniform(n_rel, depth, 0, x)).sum())
    lower1 = float(sum(wi * expected_ap_uniform(n_rel, depth, n_rel - xi, xi) for xi, wi in zip(x, w)))
    return upper0, lower1


def small_r_correct(iv: Intervals, n_rel, depth, alpha: float = 0.05) -> Intervals:
    """Section 7: for AP at or near 0 (AP below the silver-bullet limit U0) the interval becomes
    the larger (wider) of the bootstrap interval and [0, U0]; at or near 1 (AP above the
    lead-balloon limit L1) the wider of it and [L1, 1]. ``n_rel``, ``depth`` broadcast to the
    interval's shape (depth = list length, at least R)."""
    est = iv.estimate
    R = np.broadcast_to(np.asarray(n_rel), est.shape)
    n = np.maximum(np.broadcast_to(np.asarray(depth), est.shape), R)
    lo, hi = iv.lower.copy(), iv.upper.copy()
    ok = np.isfinite(est) & (R > 0)
    u = silver_bullet_fraction(np.maximum(R, 1), alpha)
    # U0 <= E[#silver] / R = u and L1 >= 1 - u: only these lists can be corrected
    cand = ok & ((est <= u) | (est >= 1 - u))
    cache: dict[tuple[int, int], tuple[float, float]] = {}
    for idx in zip(*np.nonzero(cand)):
        key = (int(R[idx]), int(n[idx]))
        if key not in cache:
            cache[key] = small_r_limits(*key, alpha=alpha)
        u0, l1 = cache[key]
        for a, b in ((0.0, u0), (l1, 1.0)):
            if a <= est[idx] <= b and (b - a) > (hi[idx] - lo[idx]):
                lo[idx], hi[idx] = a, b
    return replace(iv, lower=lo, upper=hi, method=iv.method + "+smallR")


def _with_small_r(ivs: dict[str, Intervals], n_rel, depth) -> dict[str, Intervals]:
    """``ivs`` plus the section-7 corrections of its linear and logit intervals
    (keys ``"linear+smallR"``, ``"logit+smallR"``)."""
    return {**ivs, **{m + "+smallR": small_r_correct(ivs[m], n_rel, depth) for m in ("linear", "logit") if m in ivs}}


def _run_intervals(ap, replicates, usable, logit_small_r: Intervals, eps: float, average: str = "usable") -> dict:
    """Per-run intervals: ``("bootstrap" | "parametric", "MAP" | "L-MAP") -> Intervals``
    (Tables 3 and 4; the parametric ones from the small-R-corrected logit intervals)."""
    kw = {"eps": eps, "average": average}
    out = {("bootstrap", k): v for k, v in map_bootstrap_intervals(ap, replicates, usable, **kw).items()}
    out.update({("parametric", k): v for k, v in map_parametric_intervals(logit_small_r, usable, **kw).items()})
    return out


# --------------------------------------------------------------------------------------------
# the split-corpus validation (section 6)
# --------------------------------------------------------------------------------------------


def doc_half(doc_ids) -> np.ndarray:
    """0 (half A) or 1 (half B) per document id: the lowest bit of the MD5 digest of the UTF-8 id
    (A = even MD5). Deterministic and independent of everything but the id."""
    return np.fromiter((hashlib.md5(str(d).encode()).digest()[-1] & 1 for d in doc_ids), dtype=np.int8)


def split_corpus(rs: RunSet) -> tuple[RunSet, RunSet]:
    """The two half-corpora of section 6 as RunSets: every ranked list keeps the documents of its
    half in their original order, and the qrels keep the judgments of that half (so R_A, R_B come
    from the qrels)."""
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
    """-1 below, 0 in (bounds included), +1 above the interval; 0 where anything is NaN."""
    value, lower, upper = map(np.asarray, (value, lower, upper))
    return np.where(value < lower, -1, np.where(value > upper, 1, 0)).astype(np.int8)


# --------------------------------------------------------------------------------------------
# MAP and L-MAP (section 8)
# --------------------------------------------------------------------------------------------


_AVERAGES = ("usable", "all")


def _fixed_share(usable: np.ndarray, average: str) -> tuple[np.ndarray, np.ndarray]:
    """Per run, (weight of the mean over usable lists, weight of the fixed AP = 0 of the others)
    in the run mean: (1, 0) for ``average="usable"`` (the paper's non-empty lists); the shares of
    usable and unusable topics for ``"all"`` (trec_eval -c: a topic without a usable list - nothing
    retrieved, or R = 0 - counts as AP 0, a constant, in a mean over all T topics)."""
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES}, not {average!r}")
    n_u = usable.sum(axis=1)
    if average == "usable":
        return np.ones(len(n_u)), np.zeros(len(n_u))
    return n_u / usable.shape[1], 1.0 - n_u / usable.shape[1]


def map_bootstrap_intervals(
    ap: np.ndarray, replicates: np.ndarray, usable: np.ndarray, *, eps: float = EPS, level: float = 0.95,
    average: str = "usable",
) -> dict[str, Intervals]:
    """Table 3: per run, MAP (L-MAP: mean logit AP) of each bootstrap sample over its usable
    topics, and ``estimate +/- z sd``. ``ap`` (S, T), ``replicates`` (S, T, B). ``average="all"``
    takes the mean over all T topics instead, an unusable list contributing a fixed AP of 0
    (logit(eps) to L-MAP): trec_eval -c's MAP and its interval."""
    z = stats.norm.ppf(0.5 + level / 2)
    share, fixed = _fixed_share(usable, average)
    w = np.where(usable, 1.0, np.nan)
    out = {}
    for name, f in (("MAP", lambda x: x), ("L-MAP", lambda x: logit(x, eps))):
        with np.errstate(invalid="ignore"):
            est = np.nanmean(f(ap) * w, axis=1)
            reps = np.nanmean(f(replicates) * w[..., None], axis=1)  # (S, B)
        if average == "all":  # no usable list: the run's mean is the constant
            f0 = float(f(0.0))
            est = np.where(share > 0, share * est, 0.0) + fixed * f0
            reps = np.where(share[:, None] > 0, share[:, None] * reps, 0.0) + fixed[:, None] * f0
        sd = _nansd(reps)
        out[name] = Intervals(name + " bootstrap", est, est - z * sd, est + z * sd, sd)
    return out


def map_parametric_intervals(
    logit_iv: Intervals, usable: np.ndarray, *, eps: float = EPS, level: float = 0.95,
    average: str = "usable",
) -> dict[str, Intervals]:
    """Table 4: MAP and L-MAP intervals combined from the per-topic logit intervals.

    Per topic, ``sigma_t = (logit(upper) - logit(lower)) / (2 z)`` (the logit sd; for
    small-R-corrected intervals, the sd they imply). L-MAP: ``var = sum sigma_t^2 / T^2``. MAP (our
    reading of the paper's weight AP - AP^2, the derivative of AP w.r.t. logit AP): the delta
    method, ``sd(AP_t) = (AP_t - AP_t^2) sigma_t`` and ``var = sum sd(AP_t)^2 / T^2``. T counts
    the usable topics, or all topics with ``average="all"`` (an unusable one adding a fixed AP of
    0, logit(eps) to L-MAP, without variance: trec_eval -c's MAP)."""
    z = stats.norm.ppf(0.5 + level / 2)
    _, fixed = _fixed_share(usable, average)
    ap = logit_iv.estimate
    sig = (logit(logit_iv.upper, eps) - logit(logit_iv.lower, eps)) / (2 * z)
    T = usable.sum(axis=1) if average == "usable" else usable.shape[1]
    sig = np.where(usable, sig, 0.0)
    apu = np.where(usable, ap, 0.0)
    map_ = apu.sum(axis=1) / T
    lmap = np.where(usable, logit(ap, eps), 0.0).sum(axis=1) / T + fixed * float(logit(0.0, eps))
    sd_map = np.sqrt((((apu - apu**2) * sig) ** 2).sum(axis=1)) / T
    sd_lmap = np.sqrt((sig**2).sum(axis=1)) / T
    return {
        "MAP": Intervals("MAP parametric", map_, map_ - z * sd_map, map_ + z * sd_map, sd_map),
        "L-MAP": Intervals("L-MAP parametric", lmap, lmap - z * sd_lmap, lmap + z * sd_lmap, sd_lmap),
    }


# --------------------------------------------------------------------------------------------
# the whole validation in one call
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SplitValidation:
    """Everything of the paper's sections 6-8 for one run set split in halves A and B.

    ``ap[h]`` (S, T) AP on half h; ``n_rel[h]`` (T,) R of half h; ``length[h]`` (S, T);
    ``usable`` (S, T): both half-lists non-empty and R_A, R_B > 0 (the lists counted);
    ``intervals[(src, method)]`` per-list intervals computed on half ``src`` ("A" or "B"), methods
    linear, logit, bca, linear+smallR, logit+smallR; ``maps[(src, kind, measure)]`` per-run
    intervals, kind "bootstrap" / "parametric", measure "MAP" / "L-MAP".
    """

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    ap: dict
    n_rel: dict
    length: dict
    usable: np.ndarray
    intervals: dict
    maps: dict
    n_boot: int
    seed: object

    @staticmethod
    def other(src: str) -> str:
        return {"A": "B", "B": "A"}[src]

    def positions(self, src: str, method: str) -> np.ndarray:
        """(S, T) -1 / 0 / +1: where AP of the other half falls w.r.t. the interval from ``src``."""
        iv = self.intervals[(src, method)]
        return position(self.ap[self.other(src)], iv.lower, iv.upper)

    def lists_mask(self, src: str = "A", min_rel: int = 0) -> np.ndarray:
        """Usable lists whose topic has R > ``min_rel`` on half ``src``."""
        return self.usable & (self.n_rel[src] > min_rel)[None, :]

    def table(self, src: str, methods: Sequence[str], min_rel: int = 0) -> pd.DataFrame:
        """Below / in / above shares (%) of the other half's AP w.r.t. intervals from ``src``."""
        mask = self.lists_mask(src, min_rel)
        rows = []
        for meth in methods:
            pos = self.positions(src, meth)[mask]
            rows.append(
                {
                    "method": meth,
                    "n": int(mask.sum()),
                    "below": 100 * np.mean(pos < 0),
                    "in": 100 * np.mean(pos == 0),
                    "above": 100 * np.mean(pos > 0),
                }
            )
        return pd.DataFrame(rows)

    def map_table(self, src: str, kind: str) -> pd.DataFrame:
        """Below / in / above shares (%) of the other half's MAP / L-MAP (Tables 3 and 4)."""
        o = self.other(src)
        rows = []
        for meas in ("MAP", "L-MAP"):
            iv = self.maps[(src, kind, meas)]
            val = run_means(self.ap[o], self.usable, meas)
            pos = position(val, iv.lower, iv.upper)
            rows.append({"measure": meas, "n": len(pos), "below": 100 * np.mean(pos < 0),
                         "in": 100 * np.mean(pos == 0), "above": 100 * np.mean(pos > 0)})
        return pd.DataFrame(rows)

    def normalized_difference(self, src: str, method: str) -> np.ndarray:
        """(AP_other - AP_src) scaled so that the interval from ``src`` spans [-1, 1] (Figures 1
        and 2): divided by ``upper - AP`` above AP and by ``AP - lower`` below; +/-inf when that
        half-width is 0 and the values differ; only usable lists (1-D)."""
        iv = self.intervals[(src, method)]
        a, b = self.ap[src], self.ap[self.other(src)]
        d = b - a
        half = np.where(d >= 0, iv.upper - a, a - iv.lower)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(d == 0, 0.0, d / half)
        return out[self.usable]


def run_means(ap: np.ndarray, usable: np.ndarray, measure: str = "MAP", eps: float = EPS,
              average: str = "usable") -> np.ndarray:
    """Per run: MAP (``measure="MAP"``) or L-MAP (``"L-MAP"``, mean logit AP) over usable topics,
    or over all topics with ``average="all"`` (an unusable list counting as AP 0: trec_eval -c)."""
    _, fixed = _fixed_share(usable, average)
    f = (lambda v: v) if measure == "MAP" else (lambda v: logit(v, eps))
    T = usable.sum(axis=1) if average == "usable" else usable.shape[1]
    return np.where(usable, f(ap), 0.0).sum(axis=1) / T + fixed * float(f(0.0))


def split_validation(
    rs: RunSet,
    n_boot: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    eps: float = EPS,
    n_jobs: int | None = None,
    progress: bool = False,
) -> SplitValidation:
    """The paper's validation (sections 6-8) in one call: split the corpus by MD5 (:func:`split_corpus`),
    bootstrap every list of each half (B = ``n_boot``; half A from child 0 of ``seed``, half B from
    child 1), build linear / logit / BCa intervals and their small-R corrections, and the MAP and
    L-MAP intervals (bootstrap and parametric) of every run, both directions."""
    halves = dict(zip("AB", split_corpus(rs)))
    seeds = parallel.as_seed_sequence(seed).spawn(2)
    lists = {h: _lists_of(r, rel) for h, r in halves.items()}
    shape = lists["A"].shape
    ap = {h: L.ap.reshape(shape) for h, L in lists.items()}
    n_rel = {h: L.n_rel.reshape(shape)[0] for h, L in lists.items()}  # R per topic
    length = {h: L.length.reshape(shape).astype(np.int64) for h, L in lists.items()}
    usable = lists["A"].usable.reshape(shape) & lists["B"].usable.reshape(shape)
    intervals, maps = {}, {}
    for h, ss in zip("AB", seeds):
        reps = bootstrap_ap(lists[h], n_boot, ss, n_jobs=n_jobs, progress=progress and f"bootstrap half {h}")
        acc = ap_acceleration(lists[h]).reshape(shape)
        ivs = _with_small_r(intervals_from_replicates(ap[h], reps, METHODS, accel=acc, eps=eps),
                            n_rel[h][None, :], length[h])
        intervals.update({(h, meth): iv for meth, iv in ivs.items()})
        maps.update({(h, *k): iv for k, iv in _run_intervals(ap[h], reps, usable, ivs["logit+smallR"], eps).items()})
        del reps
    return SplitValidation(rs.runs, rs.topics, ap, n_rel, length, usable, intervals, maps, n_boot, seed)


@dataclass(frozen=True, eq=False)
class FullCorpus:
    """Full-corpus intervals (Figure 4): per-list intervals and per-run MAP / L-MAP intervals."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    ap: np.ndarray
    usable: np.ndarray
    intervals: dict
    maps: dict
    replicates: np.ndarray | None


def full_corpus(
    rs: RunSet,
    n_boot: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    eps: float = EPS,
    keep_replicates: bool = False,
    n_jobs: int | None = None,
    progress: bool | str = False,
    average: str = "usable",
) -> FullCorpus:
    """Intervals on the whole corpus (paper Figure 4): linear / logit (+ small-R) per list, and
    MAP parametric / L-MAP bootstrap (and the other two) per run. ``progress``: a tqdm bar over
    the lists (or its label). ``average``: the run means over the usable lists (the paper) or
    over ``"all"`` topics, an unusable list counting as AP 0 (trec_eval -c, as ``irrepro
    report`` and ``measures.evaluate(...).mean()``)."""
    _fixed_share(np.zeros((0, 0), dtype=bool), average)  # a bad ``average`` fails before the work
    lists = _lists_of(rs, rel)
    shape = lists.shape
    ap = lists.ap.reshape(shape)
    usable = lists.usable.reshape(shape)
    reps = bootstrap_ap(lists, n_boot, seed, n_jobs=n_jobs, progress=progress)
    ivs = _with_small_r(intervals_from_replicates(ap, reps, ("linear", "logit"), eps=eps),
                        lists.n_rel.reshape(shape), lists.length.reshape(shape))
    maps = _run_intervals(ap, reps, usable, ivs["logit+smallR"], eps, average)
    return FullCorpus(rs.runs, rs.topics, ap, usable, ivs, maps, reps if keep_replicates else None)


def plot_run_intervals(ax, iv: Intervals, other=None, title: str = "", transform=None):
    """The paper's Figures 3 and 4: every run's estimate (x) with its interval, runs sorted by
    the estimate; ``other`` (e.g. the other half's value, o) drawn over it when given.
    ``transform`` maps the values before drawing (``expit`` for L-MAP)."""
    tf = transform or (lambda v: v)
    order = np.argsort(iv.estimate, kind="stable")
    xs = np.arange(len(order))
    ax.vlines(xs, tf(iv.lower[order]), tf(iv.upper[order]), color="0.6", lw=1.5)
    ax.scatter(xs, tf(iv.estimate[order]), marker="x", s=12, color="k", label="estimate (x)", zorder=3)
    if other is not None:
        ax.scatter(xs, tf(np.asarray(other)[order]), marker="o", s=10, facecolors="none", edgecolors="C3",
                   label="other half (o)", zorder=3)
    ax.set_title(title)
    ax.set_xlabel("runs (sorted)")
    return ax


# --------------------------------------------------------------------------------------------
# two systems (section 9)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DifferenceIntervals:
    """Per-topic differences of two runs x - y on AP and on logit AP, with the sd of the
    *separate* bootstrap (``sqrt(sd_x^2 + sd_y^2)``) and of the *paired* bootstrap (both lists on
    the same resampled corpus), and the paired bootstrap of the MAP and L-MAP differences."""

    topics: tuple[str, ...]
    runs: tuple[str, str]
    d: dict  # scale -> (T,) difference
    sd_separate: dict  # scale -> (T,)
    sd_paired: dict  # scale -> (T,)
    mean_d: dict  # "MAP" / "L-MAP" -> difference of means
    mean_sd_paired: dict  # "MAP" / "L-MAP" -> paired-bootstrap sd
    usable: np.ndarray

    def frame(self, z: float = Z95) -> pd.DataFrame:
        rows = {"topic": list(self.topics)}
        for sc in ("AP", "logit AP"):
            rows[f"d {sc}"] = self.d[sc]
            for kind, sd in (("separate", self.sd_separate[sc]), ("paired", self.sd_paired[sc])):
                rows[f"{kind} lower ({sc})"] = self.d[sc] - z * sd
                rows[f"{kind} upper ({sc})"] = self.d[sc] + z * sd
        return pd.DataFrame(rows)[self.usable]


def _paired_topic(codes_x, rel_x, codes_y, rel_y, n_rel, n_boot, rng):
    """Paired bootstrap of one topic: one Poisson(1) multiplicity per document of the union of
    the two lists (only ranks down to each list's last relevant document matter), one Poisson
    count of the relevant documents neither retrieved. Returns AP*_x, AP*_y (B,)."""
    cut_x = (np.flatnonzero(rel_x)[-1] + 1) if rel_x.any() else 0
    cut_y = (np.flatnonzero(rel_y)[-1] + 1) if rel_y.any() else 0
    cx, rx, cy, ry = codes_x[:cut_x], rel_x[:cut_x], codes_y[:cut_y], rel_y[:cut_y]
    union = np.union1d(np.union1d(cx, cy), np.r_[codes_x[rel_x], codes_y[rel_y]])
    k = _poisson_ones(rng, (len(union), n_boot))
    rel_union = np.zeros(len(union), dtype=bool)
    rel_union[np.searchsorted(union, np.r_[cx[rx], cy[ry]])] = True
    r_not = n_rel - int(rel_union.sum())
    r_star = k[rel_union].sum(axis=0) + rng.poisson(float(r_not), size=n_boot)
    out = []
    for c, r in ((cx, rx), (cy, ry)):
        kd = k[np.searchsorted(union, c)]
        if not r.any():
            out.append(np.where(r_star > 0, 0.0, np.nan))
            continue
        nonrel = np.cumsum(np.where(r[:, None], 0, kd), axis=0)
        at = nonrel[r]
        gaps = np.diff(np.vstack([np.zeros((1, n_boot), dtype=at.dtype), at]), axis=0)
        out.append(ap_from_counts(kd[r], gaps, r_star))
    return out


def difference_intervals(
    rs: RunSet,
    run_x: str,
    run_y: str,
    n_boot: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    eps: float = EPS,
) -> DifferenceIntervals:
    """Section 9: the difference of two runs per topic, d = AP_x - AP_y and logit AP_x - logit
    AP_y, with 95% intervals from separate bootstraps (``sd_d = sqrt(sd_x^2 + sd_y^2)``) and from
    the paired bootstrap of d (the paper's "more powerful estimate"), and the paired bootstrap of
    the MAP and L-MAP differences over the topics where both lists are usable. Topic ``t`` draws
    from child ``t`` of ``seed`` (paired) and child ``T + t`` (separate)."""
    n_boot = parallel.check_int(n_boot, "n_boot", minimum=2)
    sub = rs.subset(runs=[run_x, run_y])
    lists = compact_lists(sub.relevant(rel), sub.n_relevant(rel)[None, :], sub.lengths)
    T = len(sub.topics)
    seeds = parallel.as_seed_sequence(seed).spawn(2)
    sep = bootstrap_ap(lists, n_boot, seeds[1])  # (2, T, B)
    ap = lists.ap.reshape(2, T)
    usable = lists.usable.reshape(2, T).all(axis=0)
    R = sub.n_relevant(rel)
    rngs = parallel.spawn(seeds[0], T)
    rel_arr = sub.relevant(rel)
    paired = np.full((2, T, n_boot), np.nan)
    for t in np.flatnonzero(usable):
        n0, n1 = sub.lengths[0, t], sub.lengths[1, t]
        px, py = _paired_topic(sub.doc_codes[0, t, :n0], rel_arr[0, t, :n0], sub.doc_codes[1, t, :n1],
                               rel_arr[1, t, :n1], int(R[t]), n_boot, rngs[t])
        paired[0, t], paired[1, t] = px, py
    d, sd_sep, sd_pair = {}, {}, {}
    for sc, f in (("AP", lambda x: x), ("logit AP", lambda x: logit(x, eps))):
        d[sc] = np.where(usable, f(ap[0]) - f(ap[1]), np.nan)
        sd_sep[sc] = np.where(usable, np.sqrt(_nansd(f(sep[0])) ** 2 + _nansd(f(sep[1])) ** 2), np.nan)
        sd_pair[sc] = np.where(usable, _nansd(f(paired[0]) - f(paired[1])), np.nan)
    mean_d, mean_sd = {}, {}
    for meas, f in (("MAP", lambda x: x), ("L-MAP", lambda x: logit(x, eps))):
        mean_d[meas] = float(np.mean(f(ap[0][usable]) - f(ap[1][usable])))
        dm = np.nanmean(f(paired[0][usable]) - f(paired[1][usable]), axis=0)
        mean_sd[meas] = float(_nansd(dm))
    return DifferenceIntervals(sub.topics, (run_x, run_y), d, sd_sep, sd_pair, mean_d, mean_sd, usable)


@dataclass(frozen=True)
class MetaAnalysis:
    """Inverse-variance meta-analysis of k per-topic effects."""

    model: str
    effect: float
    se: float
    lower: float
    upper: float
    k: int
    p_one_sided: float  # fixed: Stouffer's 1 - Phi(sum(d_i / s_i) / sqrt k) (the paper's); DL: 1 - Phi(effect / se)
    q: float  # Cochran's heterogeneity Q
    tau2: float  # between-topic variance (DerSimonian-Laird; 0 for fixed effect)


def meta_analysis(d, sd, model: str = "fixed", level: float = 0.95) -> MetaAnalysis:
    """Combine per-topic effects ``d`` with standard errors ``sd`` (section 9).

    ``model="fixed"``: the paper's fixed-effect estimate ``sum(d/s^2) / sum(1/s^2)`` with
    ``se = (sum 1/s^2)^-1/2``, and its one-sided p-value (Stouffer). ``model="dl"``: the
    DerSimonian-Laird random-effects estimate (beyond the paper): ``tau^2 = max(0, (Q - (k-1)) /
    (sum w - sum w^2 / sum w))``, weights ``1 / (s^2 + tau^2)``. Topics with a non-finite effect or
    a zero / non-finite sd are left out (``k`` counts the rest)."""
    d, sd = np.asarray(d, dtype=np.float64), np.asarray(sd, dtype=np.float64)
    keep = np.isfinite(d) & np.isfinite(sd) & (sd > 0)
    d, sd = d[keep], sd[keep]
    k = len(d)
    if k == 0:
        raise ValueError("no topic has a finite effect and a positive standard error")
    w = 1 / sd**2
    fixed = float((w * d).sum() / w.sum())
    q = float((w * (d - fixed) ** 2).sum())
    z = stats.norm.ppf(0.5 + level / 2)
    if model == "fixed":
        se = float(w.sum() ** -0.5)
        p = float(stats.norm.sf((d / sd).sum() / np.sqrt(k)))
        return MetaAnalysis("fixed", fixed, se, fixed - z * se, fixed + z * se, k, p, q, 0.0)
    if model == "dl":
        c = w.sum() - (w**2).sum() / w.sum()
        tau2 = float(max(0.0, (q - (k - 1)) / c)) if c > 0 else 0.0
        ws = 1 / (sd**2 + tau2)
        eff = float((ws * d).sum() / ws.sum())
        se = float(ws.sum() ** -0.5)
        return MetaAnalysis("DerSimonian-Laird", eff, se, eff - z * se, eff + z * se, k, float(stats.norm.sf(eff / se)), q, tau2)
    raise ValueError(f"model must be 'fixed' or 'dl', not {model!r}")


# --- summaries of a split validation that the book's chapter reports (moved out of its cells) -----

def miss_ratio(normalized) -> float:
    """Above / below ratio of an interval's misses (section 7: the fraction above "roughly six times
    larger" than below for the linear interval): the share of normalized differences
    (:meth:`SplitValidation.normalized_difference`) above 1 over the share below -1 (an empty lower
    tail counts as 1e-12)."""
    x = np.asarray(normalized, dtype=float)
    return float(np.mean(x > 1) / max(np.mean(x < -1), 1e-12))


def mean_in_interval(val: SplitValidation, kind: str, measure: str) -> float:
    """The in-interval share (%) of the runs' ``measure`` ("MAP" or "L-MAP") intervals of ``kind``
    ("bootstrap": Table 3, "parametric": Table 4), averaged over both directions (A to B, B to A)."""
    return float(np.mean([val.map_table(s, kind).set_index("measure").loc[measure, "in"] for s in "AB"]))
