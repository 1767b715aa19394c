"""The Poisson corpus bootstrap of AP (Cormack & Lynam 2006, section 5), drawn from the compact lists
(per retrieved relevant document, the non-relevant documents above it: all AP depends on), and the
literal expand-the-list reference."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .. import parallel
from ..data import RunSet
from ..errors import InputError, InputTypeError
from ..measures import average_precision


class _PoissonTables:
    """Inverse-CDF tables of Poisson(lam) for lam = 0..lam_max (integers)."""

    # A draw is ``X = #{k : F(k) <= U}`` for one float64 uniform ``U`` (exact inversion up to
    # the uniform's 2**-53 resolution; the tail beyond ``lam + 12 sqrt(lam) + 30``, below
    # 1e-20, is cut there). A guide table of ``size`` slots gives the start of the search, so
    # a draw costs a few array operations instead of numpy's rejection sampler (about 5x
    # faster).

    def __init__(self, lam_max: int):
        lam_max = max(int(lam_max), 1)
        lams = np.arange(lam_max + 1)
        self.size = (lams + 12 * np.sqrt(lams) + 30).astype(np.int64)
        self.offset = np.r_[0, np.cumsum(self.size)[:-1]].astype(np.int64)
        n_all = int(self.offset[-1] + self.size[-1])
        self.cdf = np.empty(n_all)
        self.guide = np.empty(n_all, dtype=np.int64)
        self.guide_cdf = np.empty(n_all)
        for a in range(0, lam_max + 1, 64):  # 64 tables at a time: the temporaries stay small
            self._fill(lams[a : a + 64])
        self.scale = self.size * (1 - 2.0**-52)
        self.lam_max = lam_max

    def _fill(self, lams: np.ndarray) -> None:
        """The tables of consecutive means ``lams`` (every entry computed on its own)."""
        start, stop = self.offset[lams[0]], self.offset[lams[-1]] + self.size[lams[-1]]
        owner = np.repeat(lams, self.size[lams])
        pos = np.arange(start, stop) - self.offset[owner]  # k within its table
        cdf = np.asarray(stats.poisson.cdf(pos, np.maximum(owner, 1e-300)), dtype=np.float64)
        cdf[owner == 0] = 1.0
        cdf[self.offset[lams] + self.size[lams] - 1 - start] = 1.0  # every uniform (< 1) stops there
        self.cdf[start:stop] = cdf
        # guide[i] = #{k : F(k) <= i / size} within each table: a search start never past the draw
        frac = pos / self.size[owner]
        guide = self.guide[start:stop]
        for lam in lams:  # one searchsorted per table (fast); values are exact
            o, n = self.offset[lam] - start, self.size[lam]
            guide[o : o + n] = np.searchsorted(cdf[o : o + n], frac[o : o + n], side="right")
        # per slot: the search start and the CDF there, so that most draws need one gather each
        self.guide_cdf[start:stop] = cdf[self.offset[owner] - start + guide]

    def draw(self, rng: np.random.Generator, lam: np.ndarray, n: int) -> np.ndarray:
        """``(len(lam), n)`` int64 draws, row ``i`` from Poisson(lam[i])."""
        lam = np.asarray(lam, dtype=np.int64)
        if lam.size and lam.min() < 0:
            raise InputError("Poisson means must be >= 0")
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


_TABLES: list[_PoissonTables] = []  # the largest tables built so far (one set, shared)
_TABLES_LOCK = threading.Lock()  # bootstraps run in threads (split_validation's two halves at once)


def _tables_for(lam_max: int) -> _PoissonTables:
    """Tables covering 0..lam_max (at most ``_TABLE_MAX``), built for the next power of two and kept."""
    size = min(_TABLE_MAX, 1 << max(6, int(lam_max - 1).bit_length()))
    with _TABLES_LOCK:  # check and replace at once: a thread must never get a set smaller than it asked
        if not _TABLES or _TABLES[0].lam_max < size:
            _TABLES[:] = [_PoissonTables(size)]
        return _TABLES[0]


def _release_tables() -> None:
    """Let the shared tables go (a later bootstrap builds them again, the same)."""
    with _TABLES_LOCK:
        _TABLES.clear()


_ONES = np.r_[stats.poisson.cdf(np.arange(29), 1.0), 1.0]  # Poisson(1)'s CDF, every uniform stopped at 29


def _poisson_ones(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Poisson(1) draws by inverse CDF: four comparisons, then a search for the 1.9% above 3."""
    f = _ONES
    u = rng.random(shape)
    k = (u >= f[0]).astype(np.int32)
    k += u >= f[1]
    k += u >= f[2]
    big = np.nonzero(u >= f[3])
    if big[0].size:
        k[big] = np.searchsorted(f, u[big], side="right")
    return k


def ap_from_counts(k: np.ndarray, nonrel: np.ndarray, r_star: np.ndarray) -> np.ndarray:
    """AP of resampled lists from ``k`` (m, ...) copies of each retrieved relevant document and the
    ``nonrel`` above each; NaN where ``r_star`` = 0."""
    # The k_j copies of relevant document j, ranked consecutively below p documents of which h are
    # relevant, add sum_{c=1..k_j} (h + c) / (p + c) = k_j - N_j sum_{c=1..k_j} 1 / (p + c) to the
    # precision sum (N_j = p - h, the non-relevant documents above them); AP = sum / R*.
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


def _boot_list(
    gaps: np.ndarray, n_rel: int, B: int, rng: np.random.Generator, tables, compiled: bool = True
) -> np.ndarray:
    """B bootstrap APs of one list, relevant documents with no non-relevant between them as one block."""
    # Samples go in groups of about ``_BLOCK`` cells; per group the generator gives the
    # blocks' uniforms, the non-empty gaps' uniforms, then R_not*. The compiled kernel
    # (:mod:`~irrepro.corpus_bootstrap._kernel`) turns them into AP*; a group of one sample,
    # or a list with a mean beyond the tables (a gap of more than ``_TABLE_MAX`` documents),
    # goes the numpy way (:meth:`_PoissonTables.draw`, ``ap_from_counts``). Both give the same
    # numbers, bit for bit, from the same generator (``compiled=False``: numpy for every
    # group, for the tests).
    m = len(gaps)
    out = np.empty(B)
    if m == 0:
        r_not = rng.poisson(float(n_rel), size=B)
        return np.where(r_not > 0, 0.0, np.nan)
    first = np.flatnonzero(np.r_[True, gaps[1:] > 0])  # block starts
    size = np.diff(np.r_[first, m])
    bgap = gaps[first]
    nz = np.flatnonzero(bgap)
    nb = len(first)
    step = max(1, _BLOCK // nb)
    compiled = compiled and max(int(size.max()), int(bgap.max())) <= tables.lam_max
    if compiled:
        from . import _kernel  # numba, imported at the first bootstrap

        g_row = np.full(nb, -1, dtype=np.int64)
        g_row[nz] = np.arange(len(nz))
    for b0 in range(0, B, step):
        bb = min(step, B - b0)
        if compiled and bb > 1:
            u_k = rng.random((nb, bb))
            u_g = rng.random((len(nz), bb)) if nz.size else np.empty((0, bb))
            r_not = rng.poisson(float(n_rel - m), size=bb)
            _kernel.boot_block(u_k, u_g, g_row, size, bgap, r_not, tables, out[b0 : b0 + bb])
            continue
        k = tables.draw(rng, size, bb)
        g = np.zeros((nb, bb), dtype=np.int64)
        if nz.size:
            g[nz] = tables.draw(rng, bgap[nz], bb)
        r_not = rng.poisson(float(n_rel - m), size=bb)
        out[b0 : b0 + bb] = ap_from_counts(k, g, k.sum(axis=0) + r_not)
    return out


def bootstrap_ap(
    runs: RunSet | Lists,
    B: int = 2000,
    seed: parallel.SeedLike = None,
    *,
    rel: int = 1,
    n_jobs: int | None = None,
    progress: bool | str = False,
) -> np.ndarray:
    """B corpus-bootstrap AP values of every list (Cormack & Lynam 2006, section 5).

    List ``i`` (row-major over runs x topics) draws from child ``i`` of the seed, so its values do
    not depend on ``n_jobs``. Unusable lists (empty or R = 0) are NaN, and so are samples with R* = 0.

    Parameters
    ----------
    runs : irrepro.data.RunSet or Lists
        The ranked lists.
    B, seed, rel
        Bootstrap samples, their seed (None refused), the lowest relevant grade.
    n_jobs, progress
        Workers (the values do not depend on them); a progress bar (a str: its label).

    Returns
    -------
    numpy.ndarray
        ``Lists.shape + (B,)``: ``(systems, topics, B)`` for a RunSet.

    Examples
    --------
    >>> from irrepro import corpus_bootstrap as cb
    >>> ap = cb.bootstrap_ap(runset, B=200, seed=1)
    >>> ap.shape
    (2, 2, 200)
    """
    B = parallel.check_int(B, "B", minimum=2)
    lists = _lists_of(runs, rel)
    seeds = parallel.as_seed_sequence(seed).spawn(len(lists))
    lam_max = int(max(lists.gaps.max(initial=1), lists.n_ret_rel.max(initial=1)))
    out = np.full((len(lists), B), np.nan)
    todo = np.flatnonzero(lists.usable)
    # tasks: fixed groups of lists (independent of n_jobs); each list has its own generator
    groups = np.array_split(todo, max(1, len(todo) // 64)) if len(todo) else []

    def work(idx):
        tables = _tables_for(lam_max)  # built (and cached) where the task runs: not shipped with it
        out = []
        for i in idx:
            gaps = lists.gaps[lists.start[i] : lists.start[i + 1]]
            out.append(_boot_list(gaps, int(lists.n_rel[i]), B, np.random.default_rng(seeds[i]), tables))
        return out

    res = parallel.parallel_map(work, groups, n_jobs=n_jobs, progress=progress)
    for idx, vals in zip(groups, res):
        out[idx] = np.array(vals)
    return out.reshape(lists.shape + (B,))


def bootstrap_ap_reference(relevant: np.ndarray, n_rel: int, B: int, seed: parallel.SeedLike) -> np.ndarray:
    """The paper's construction, literally, for one boolean list in rank order: (B,) AP values (the tests' reference)."""
    B = parallel.check_int(B, "B", minimum=1)
    rng = parallel.as_generator(seed)
    relevant = np.asarray(relevant, dtype=bool)
    r_not = int(n_rel) - int(relevant.sum())
    out = np.empty(B)
    for b in range(B):
        k = rng.poisson(1.0, size=len(relevant))
        expanded = np.repeat(relevant, k)
        r_star = expanded.sum() + rng.poisson(1.0, size=r_not).sum()
        out[b] = average_precision(expanded, r_star) if r_star > 0 else np.nan
    return out


@dataclass(frozen=True, eq=False)
class Lists:
    """Ranked lists reduced to what AP depends on (CSR layout)."""

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
    """The ``Lists`` of a boolean relevance array.

    Parameters
    ----------
    relevant : numpy.ndarray
        Boolean ``(..., K)``, rank axis last.
    n_rel : array_like
        R, broadcastable to ``relevant.shape[:-1]``.
    lengths : array_like or None
        The lists' lengths (None: all K ranks retrieved).

    Returns
    -------
    Lists
        The lists, of shape ``relevant.shape[:-1]``.

    Examples
    --------
    >>> from irrepro.corpus_bootstrap import compact_lists
    >>> compact_lists(np.array([[True, False, True]]), 3).shape
    (1,)
    """
    relevant = np.asarray(relevant, dtype=bool)
    if relevant.ndim < 1:
        raise InputError("relevant must have a rank axis (last)")
    shape = relevant.shape[:-1]
    flat = relevant.reshape(-1, relevant.shape[-1])
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.int64), shape).reshape(-1)
    if lengths is None:
        lengths = np.full(shape, relevant.shape[-1])
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), shape).reshape(-1)
    m = flat.sum(axis=1)
    if np.any(m > n_rel):
        i = int(np.flatnonzero(m > n_rel)[0])
        raise InputError(
            f"list {np.unravel_index(i, shape)} retrieves {m[i]} relevant documents but R = {n_rel[i]}"
        )
    _, rank = np.nonzero(flat)  # row-major: lists in order, ranks ascending
    start, _, gaps = _gaps(m, rank)
    return Lists(gaps, start, n_rel, lengths, average_precision(flat, n_rel), tuple(shape))


def _gaps(m: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR starts of lists with ``m`` relevant documents at 0-based ``rank`` (list by list), each one's
    index in its list, and the non-relevant documents between it and the one above."""
    start = np.r_[0, np.cumsum(m)].astype(np.int64)
    j = np.arange(len(rank)) - np.repeat(start[:-1], m)
    gaps = rank - j  # non-relevant docs before it
    return start, j, np.where(j == 0, gaps, gaps - np.r_[0, gaps[:-1]]).astype(np.int64)


def _lists_of(obj, rel: int) -> Lists:
    if isinstance(obj, Lists):
        return obj
    if isinstance(obj, RunSet):  # from the ragged arrays: memory follows the number of lines
        S, T = obj.lengths.shape
        li, rank = obj.relevant_positions(rel)
        m = np.bincount(li, minlength=S * T)
        n_rel = np.broadcast_to(obj.n_relevant(rel)[None, :], (S, T)).reshape(-1).astype(np.int64)
        start, j, gaps = _gaps(m, rank)
        prec = np.bincount(li, weights=(j + 1) / (rank + 1.0), minlength=S * T)
        ap = np.divide(prec, n_rel, out=np.zeros(S * T), where=n_rel > 0)
        return Lists(gaps, start, n_rel, obj.lengths.reshape(-1).astype(np.int64), ap, (S, T))
    raise InputTypeError(f"expected a RunSet or Lists, not {type(obj).__name__}")
