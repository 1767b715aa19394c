"""Reproducibility and replicability measures with topic-bootstrap intervals.

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020), section 3: how far a
reproduction (the same topics) or a replication (other topics) of a baseline and an advanced run
got, at the ranking (KTU, RBO), score (RMSE), effect (ER, Delta RI) and significance (t-test
p-value) levels. :func:`reproduce_runs` is the work of ``irrepro reproduce``.

The point values equal those of the authors' package repro_eval 0.5.0, except: ER is undefined
(NaN) where the original's mean improvement is zero up to rounding (below 1e-12), where
repro_eval divides by the rounding error; the p-value is 1 where a run's scores of a measure are
reproduced on every topic (repro_eval: NaN unless every measure of the run is); KTU compares the
shorter list's ranks where the lists' lengths differ (repro_eval stops with scipy's error); RBO
is the truncated, normalised form repro_eval computes (not Webber et al.'s extrapolated RBO),
undefined on a topic one run did not rank (repro_eval: a KeyError).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special

from . import parallel
from .errors import InputError
from .parallel import SeedLike
from .significance._samples import _counts, bootstrap_samples
from .stats import bca_interval, check_level

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["reproduce_runs", "Reproduction"]


#: The ranks compared by KTU (repro_eval's ``RUN_LENGTH``: runs trimmed to 1000 documents).
RUN_LENGTH = 1000
#: RBO's depth and persistence (repro_eval's ``RBO_DEPTH`` and ``RBO_P``).
RBO_DEPTH = 1000
RBO_P = 0.95


def _rankings(orig, repro) -> tuple[np.ndarray, np.ndarray, tuple]:
    o, r = np.asarray(orig), np.asarray(repro)
    if not (np.issubdtype(o.dtype, np.integer) and np.issubdtype(r.dtype, np.integer)):
        raise InputError("rankings must be integer document codes (-1 past a list's end)")
    if o.ndim < 1 or o.shape[:-1] != r.shape[:-1]:
        raise InputError(f"orig and repro must hold the same lists, got shapes {o.shape} and {r.shape}")
    lead = o.shape[:-1]
    return o.reshape(-1, o.shape[-1]).astype(np.int64), r.reshape(-1, r.shape[-1]).astype(np.int64), lead


def ktu(orig, repro, *, depth: int = RUN_LENGTH) -> np.ndarray:
    """Kendall's tau union per list (topic), as repro_eval computes it: tau between the documents at equal ranks, numbered in the sorted union of both lists, over the first ranks both hold (at most ``depth``); NaN below 2 documents."""
    o, r, lead = _rankings(orig, repro)
    n = np.minimum(np.minimum((o >= 0).sum(axis=1), (r >= 0).sum(axis=1)), depth)
    k = int(n.max(initial=0))
    pos = np.arange(k)
    valid = pos < n[:, None]
    big = np.iinfo(np.int64).max
    by_orig = np.argsort(np.where(valid, o[:, :k], big), axis=1, kind="stable")  # the valid ranks first
    y = np.where(valid, np.take_along_axis(r[:, :k], by_orig, axis=1), big)
    ranks = np.argsort(np.argsort(y, axis=1, kind="stable"), axis=1, kind="stable")  # 0..n-1 on the valid
    discordant = _inversions(ranks, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = 1.0 - 4.0 * discordant / (n * (n - 1.0))
    return np.where(n >= 2, tau, np.nan).reshape(lead)


def _inversions(ranks: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per row, the pairs ``i < j < n`` with ``ranks[i] > ranks[j]`` (a Fenwick tree per row, all rows at once)."""
    R, K = ranks.shape
    tree = np.zeros((R, K + 1), dtype=np.int64)
    rows = np.arange(R)
    out = np.zeros(R, dtype=np.int64)
    for k in range(K):
        active = k < n
        v = np.where(active, ranks[:, k] + 1, 0)
        seen = np.zeros(R, dtype=np.int64)  # earlier documents ranked at most v
        i = v.copy()
        while (i > 0).any():
            seen += tree[rows, i] * (i > 0)
            i = i - (i & -i)
        out += np.where(active, k - seen, 0)
        i = v.copy()
        while ((i > 0) & (i <= K)).any():
            ok = (i > 0) & (i <= K)
            tree[rows[ok], i[ok]] += 1
            i = np.where(ok, i + (i & -i), 0)
    return out


def rbo(orig, repro, *, p: float = RBO_P, depth: int = RBO_DEPTH) -> np.ndarray:
    """Rank-biased overlap per list, truncated at ``depth`` and normalised as repro_eval computes it; NaN where a list is empty."""
    if not 0 < p < 1:
        raise InputError(f"p must be in (0, 1), got {p!r}")
    if depth < 1:
        raise InputError(f"depth must be >= 1, got {depth!r}")
    o, r, lead = _rankings(orig, repro)
    R, K = o.shape
    rows = np.arange(R, dtype=np.int64)[:, None]
    span = int(max(o.max(initial=-1), r.max(initial=-1))) + 1
    ok_r = r >= 0
    key_r = (rows * span + r)[ok_r]
    rank_r = np.broadcast_to(np.arange(r.shape[1], dtype=np.int64), r.shape)[ok_r]
    order = np.argsort(key_r, kind="stable")
    key_r, rank_r = key_r[order], rank_r[order]
    ok_o = o >= 0
    key_o = (rows * span + o)[ok_o]
    rank_o = np.broadcast_to(np.arange(K, dtype=np.int64), o.shape)[ok_o]
    row_o = np.broadcast_to(rows, o.shape)[ok_o]
    hist = np.zeros(R * depth, dtype=np.int64)
    if len(key_r) and len(key_o):
        pos = np.minimum(np.searchsorted(key_r, key_o), len(key_r) - 1)
        hit = key_r[pos] == key_o
        m = np.maximum(rank_o[hit], rank_r[pos[hit]])  # both prefixes hold the document from rank m
        keep = m < depth
        hist += np.bincount(row_o[hit][keep] * depth + m[keep], minlength=R * depth)
    overlap = np.cumsum(hist.reshape(R, depth), axis=1)
    w = p ** np.arange(depth, dtype=np.float64)
    out = (overlap / np.arange(1, depth + 1)) @ w / w.sum()
    out[~(ok_o.any(axis=1) & ok_r.any(axis=1))] = np.nan  # a topic one of the runs did not rank
    return out.reshape(lead)


@dataclass(frozen=True, eq=False)
class Estimate:
    """A statistic (``value``) with its BCa interval (``low``, ``high``) at ``level`` from ``B`` topic resamples."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    B: int


class Weights:
    """M weightings of T topics: the weighted sums of per-topic values and the total weights ``n``."""

    n: np.ndarray  # (M,) float64

    def sums(self, x: np.ndarray) -> np.ndarray:
        """The weighted sums over the last axis of ``x`` (..., T): (..., M)."""
        raise NotImplementedError


class _Matrix(Weights):
    """The rows of a weight matrix ``w`` (M, T)."""

    def __init__(self, w: np.ndarray):
        self.w, self.n = w, w.sum(axis=1)

    def sums(self, x: np.ndarray) -> np.ndarray:
        return x @ self.w.T


class _LeaveOneOut(Weights):
    """The T weightings that leave one topic out, their sums in O(T)."""

    def __init__(self, T: int):
        self.n = np.full(T, T - 1.0)

    def sums(self, x: np.ndarray) -> np.ndarray:
        return x.sum(axis=-1, keepdims=True) - x


class _All(Weights):
    """M weightings of T topics, each weighing every topic 1."""

    def __init__(self, M: int, T: int):
        self.n = np.full(M, float(T))

    def sums(self, x: np.ndarray) -> np.ndarray:
        total = x.sum(axis=-1, keepdims=True)
        return np.broadcast_to(total, total.shape[:-1] + self.n.shape)


#: A statistic of topic weights: ``stat(w_orig, w_repro)`` returns its M values on the last axis.
Statistic = Callable[[Weights, Weights], np.ndarray]


def wmean(x: np.ndarray, w: Weights) -> np.ndarray:
    """Weighted means of ``x`` (..., T) under the M weightings ``w``: (..., M)."""
    return w.sums(x) / w.n


def estimate(
    stat: Statistic, n_orig: int, n_repro: int, *, paired: bool, B: int, level: float, seed: SeedLike
) -> Estimate:
    """``stat`` on all topics with its BCa interval from ``B`` topic resamples, paired (one resample for both
    sides) or not (independent resamples); its jackknife from the leave-one-out sums."""
    B, level = parallel.check_int(B, "B", minimum=2), check_level(level)
    if n_orig < 2 or n_repro < 2:
        raise InputError(f"need at least 2 topics on each side, got {n_orig} and {n_repro}")
    if paired and n_orig != n_repro:
        raise InputError(f"paired statistics need the same topics: got {n_orig} and {n_repro}")
    value = stat(_Matrix(np.ones((1, n_orig))), _Matrix(np.ones((1, n_repro))))[..., 0]
    if paired:
        w = _Matrix(_counts(bootstrap_samples(n_orig, B, seed=seed), n_orig))
        reps = stat(w, w)
        del w
        jack = stat(_LeaveOneOut(n_orig), _LeaveOneOut(n_orig))
    else:
        g_o, g_r = parallel.spawn(seed, 2)
        w_o = _Matrix(_counts(bootstrap_samples(n_orig, B, seed=g_o), n_orig))
        w_r = _Matrix(_counts(bootstrap_samples(n_repro, B, seed=g_r), n_repro))
        reps = stat(w_o, w_r)
        del w_o, w_r
        jack = np.concatenate([stat(_LeaveOneOut(n_orig), _All(n_orig, n_repro)),
                               stat(_All(n_repro, n_orig), _LeaveOneOut(n_repro))], axis=-1)  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        jack = np.where(np.isfinite(jack), jack, np.nan)
        reps = np.where(np.isfinite(reps), reps, np.nan)
        ok = ~np.isnan(jack)
        centre = np.where(ok, jack, 0.0).sum(axis=-1, keepdims=True) / ok.sum(axis=-1, keepdims=True)
        jack = np.where(np.isnan(jack), centre, jack)  # an undefined leave-one-out value adds no skew
    low, high = bca_interval(value, reps, jackknife=jack, level=level)
    return Estimate(np.asarray(value), np.asarray(low), np.asarray(high), level, B)


#: An original mean improvement smaller than this in absolute value is none (zero up to rounding):
#: :func:`effect_ratio` is NaN for it.
NO_EFFECT = 1e-12


def _scores(name: str, x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim < 1 or a.shape[-1] < 2:
        raise InputError(
            f"{name} must hold per-topic scores on its last axis (at least 2), got shape {a.shape}"
        )
    if not np.isfinite(a).all():
        raise InputError(f"{name} holds a NaN or infinite score")
    return a


def _same_topics(**arrays: np.ndarray) -> None:
    shapes = {k: v.shape[-1] for k, v in arrays.items()}
    if len(set(shapes.values())) > 1:
        raise InputError(f"paired inputs must score the same topics, got {shapes} topics")


def topic_mean(values, *, B: int = 1000, level: float = 0.95, seed: SeedLike = None) -> Estimate:
    """The mean over topics of per-topic values (NaN topics left out), with its topic-bootstrap interval."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise InputError(f"values must hold per-topic values on the last axis, got shape {x.shape}")
    ok = ~np.isnan(x)
    filled = np.where(ok, x, 0.0)
    okf = ok.astype(np.float64)

    def stat(w, _):
        with np.errstate(invalid="ignore", divide="ignore"):
            return w.sums(filled) / w.sums(okf)

    return estimate(stat, x.shape[-1], x.shape[-1], paired=True, B=B, level=level, seed=seed)


def rmse(orig, repro, *, B: int = 1000, level: float = 0.95, seed: SeedLike = None) -> Estimate:
    """Root mean square error between original and reproduced per-topic scores, with its interval."""
    o, r = _scores("orig", orig), _scores("repro", repro)
    _same_topics(orig=o, repro=r)
    d2 = (o - r) ** 2

    def stat(w, _):
        return np.sqrt(wmean(d2, w))

    return estimate(stat, o.shape[-1], o.shape[-1], paired=True, B=B, level=level, seed=seed)


def _effect_inputs(ob, oa, rb, ra, paired: bool):
    ob, oa = _scores("orig_baseline", ob), _scores("orig_advanced", oa)
    rb, ra = _scores("repro_baseline", rb), _scores("repro_advanced", ra)
    _same_topics(orig_baseline=ob, orig_advanced=oa)
    _same_topics(repro_baseline=rb, repro_advanced=ra)
    if paired:
        _same_topics(orig=ob, repro=rb)
    return ob, oa, rb, ra


def effect_ratio(
    orig_baseline, orig_advanced, repro_baseline, repro_advanced, *, paired: bool = True,
    B: int = 1000, level: float = 0.95, seed: SeedLike = None
) -> Estimate:  # fmt: skip
    """Effect ratio: the reproduced mean improvement over the original one (NaN where that is below ``NO_EFFECT``), with its interval."""
    ob, oa, rb, ra = _effect_inputs(orig_baseline, orig_advanced, repro_baseline, repro_advanced, paired)
    d_o, d_r = oa - ob, ra - rb

    def stat(w_o, w_r):
        den = wmean(d_o, w_o)
        with np.errstate(invalid="ignore", divide="ignore"):
            # no original improvement (zero up to rounding: a mean of differences that cancel
            # leaves ~1e-17, which would give an ER of ~1e14): nothing to reproduce, NaN
            return np.where(np.abs(den) < NO_EFFECT, np.nan, wmean(d_r, w_r) / den)

    return estimate(stat, ob.shape[-1], rb.shape[-1], paired=paired, B=B, level=level, seed=seed)


def delta_ri(
    orig_baseline, orig_advanced, repro_baseline, repro_advanced, *, paired: bool = True,
    B: int = 1000, level: float = 0.95, seed: SeedLike = None
) -> Estimate:  # fmt: skip
    """Delta RI: the original's relative improvement minus the reproduction's, with its interval."""
    ob, oa, rb, ra = _effect_inputs(orig_baseline, orig_advanced, repro_baseline, repro_advanced, paired)

    def stat(w_o, w_r):
        mb_o, mb_r = wmean(ob, w_o), wmean(rb, w_r)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (wmean(oa, w_o) - mb_o) / mb_o - (wmean(ra, w_r) - mb_r) / mb_r

    return estimate(stat, ob.shape[-1], rb.shape[-1], paired=paired, B=B, level=level, seed=seed)


def _mean_var(x: np.ndarray, w: Weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted mean, variance (ddof 1) and n of ``x`` (..., T) under the M weightings ``w``, centred first to keep digits."""
    c = x - x.mean(axis=-1, keepdims=True)
    n = w.n
    m = w.sums(c) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        v = (w.sums(c**2) / n - m**2) * n / (n - 1)
    return m + x.mean(axis=-1, keepdims=True), np.maximum(v, 0.0), n


def _two_sided(t: np.ndarray, df) -> np.ndarray:
    return 2.0 * special.stdtr(df, -np.abs(t))


def p_value(
    orig, repro, *, paired: bool = True, B: int = 1000, level: float = 0.95, seed: SeedLike = None
) -> Estimate:
    """The two-sided t-test's p-value (paired: scipy's ``ttest_rel``; unpaired: Student's pooled ``ttest_ind``; 1 where the scores are equal), with its interval."""
    o, r = _scores("orig", orig), _scores("repro", repro)
    if paired:
        _same_topics(orig=o, repro=r)
        d = o - r
        same = np.all(d == 0, axis=-1)[..., None]

        def stat(w, _):
            m, v, n = _mean_var(d, w)
            with np.errstate(invalid="ignore", divide="ignore"):
                p = _two_sided(m / np.sqrt(v / n), n - 1)
            return np.where(same, 1.0, p)

    else:
        same = (np.all(o == o[..., :1], axis=-1) & np.all(r == o[..., :1], axis=-1))[..., None]

        def stat(w_o, w_r):
            m1, v1, n1 = _mean_var(o, w_o)
            m2, v2, n2 = _mean_var(r, w_r)
            df = n1 + n2 - 2
            sp = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
            with np.errstate(invalid="ignore", divide="ignore"):
                p = _two_sided((m1 - m2) / np.sqrt(sp * (1 / n1 + 1 / n2)), df)
            return np.where(same, 1.0, p)

    return estimate(stat, o.shape[-1], r.shape[-1], paired=paired, B=B, level=level, seed=seed)


#: The four runs of an experiment, in the command line's order.
ROLES = ("orig_baseline", "orig_advanced", "repro_baseline", "repro_advanced")
#: The columns of :meth:`Reproduction.to_frame`.
COLUMNS = ["experiment", "run", "measure", "statistic", "value", "low", "high"]
#: Why a statistic is undefined (NaN; Delta RI also infinite) where it is: the one case in which
#: its computation gives no number ({m}: the measure). RMSE and the p-value are always defined.
_UNDEFINED = {
    "KTU": "no topic on which both rankings hold 2 documents or more",
    "RBO": "no topic that both runs ranked",
    "ER": "no effect to reproduce: the original advanced and baseline runs' mean {m} are equal (up to rounding)",
    "DeltaRI": "a baseline run's mean {m} is 0 (original or reproduction): its relative improvement is undefined",
}


def _undefined(row: dict) -> str:
    """Why a row of :meth:`Reproduction.to_frame` holds an undefined number."""
    from ._text import UNDEFINED

    if np.isfinite(row["value"]):
        return "no interval: the statistic is undefined on the resamples of the topics"
    return _UNDEFINED.get(row["statistic"], UNDEFINED).format(m=row["measure"])


@dataclass(frozen=True, eq=False)
class Reproduction:
    """Every reproducibility measure of one or more experiments, each with its interval.

    Attributes
    ----------
    experiments : tuple of str
        The experiments (the run files' names, shared by the four directories' files).
    files : dict
        Role (``orig_baseline``, ``orig_advanced``, ``repro_baseline``, ``repro_advanced``) -> the
        files, one per experiment.
    measures : tuple of str
        The evaluation measures.
    paired : bool
        True: reproducibility (the same qrels and topics); False: replicability (other qrels).
    topics : tuple of int
        The numbers of topics of the original and of the reproduction.
    estimates : dict
        ``(run, measure, statistic) ->`` an estimate with ``value``, ``low``, ``high`` (over the
        experiments), ``level`` and ``B``; run ``baseline``, ``advanced`` or ``effect``.
    seed : object
        The seed of the resamples.
    simulated : bool
        The qrels are a collection's simulated stand-in.
    coverage : tuple of dict
        Each run file's :meth:`~irrepro.data.RunSet.coverage` row (``run`` its path).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from irrepro import data, reproduce
    >>> tmp = Path(tempfile.mkdtemp())
    >>> files = data.synthetic.write_trec(data.synthetic.runs(4, 6, list_length=20, seed=2), tmp / "r",
    ...                                  qrels=tmp / "q.txt")
    >>> rep = reproduce.reproduce_runs(*sorted(files), tmp / "q.txt", measures=["AP"], B=200, seed=0)
    >>> rep.to_frame()[["run", "measure", "statistic"]].head(3).values.tolist()
    [['baseline', '', 'KTU'], ['baseline', '', 'RBO'], ['baseline', 'AP', 'RMSE']]
    """

    experiments: tuple[str, ...]
    files: dict
    measures: tuple[str, ...]
    paired: bool
    topics: tuple[int, int]
    estimates: dict
    seed: object = None
    simulated: bool = False
    coverage: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """The long table: one row per experiment, run, measure and statistic (``COLUMNS``)."""
        import pandas as pd

        rows = []
        for i, name in enumerate(self.experiments):
            for (run, measure, statistic), est in self.estimates.items():
                rows.append((name, run, measure, statistic, float(est.value[i]), float(est.low[i]),
                             float(est.high[i])))  # fmt: skip
        return pd.DataFrame(rows, columns=COLUMNS)


def _quadruples(paths: Sequence) -> tuple[list[str], dict[str, list[Path]]]:
    """The experiments' names and each role's files: four files, or four directories whose files match by name."""
    ps = [Path(p).expanduser() for p in paths]
    for role, p in zip(ROLES, ps):
        if not p.exists():
            raise InputError(f"{p}: no such file or directory ({role.replace('_', ' ')} run)")
    dirs = [p.is_dir() for p in ps]
    if all(not d for d in dirs):
        return [ps[1].name], {role: [p] for role, p in zip(ROLES, ps)}
    if not all(dirs):
        raise InputError("give four run files or four directories, not a mix: " + ", ".join(map(str, ps)))
    names = [{f.name: f for f in sorted(p.iterdir()) if f.is_file() and not f.name.startswith(".")}
             for p in ps]  # fmt: skip
    union = sorted(set().union(*names))
    problems = [f"{p}/ has no {n!r}" for p, got in zip(ps, names) for n in union if n not in got]
    if problems:
        shown = "; ".join(problems[:6]) + ("; ..." if len(problems) > 6 else "")
        raise InputError(f"the four directories' run files must match by name: {shown}")
    if not union:
        raise InputError(f"no run files in {ps[0]}")
    from .data._common import look_alike

    look_alike(union, [""] * len(union), "experiments (file names)")
    return union, {role: [got[n] for n in union] for role, got in zip(ROLES, names)}


def _runset(files: list[Path], labels: list[str], qrels, precision: str, rankings: bool = False):
    """One RunSet of ``files`` named ``labels``, and with ``rankings`` the same runs ranked by their float64 scores (a run file's order)."""
    from .data._runs import _assemble, _read_runs

    cols = [dataclasses.replace(c, name=lab) for c, lab in zip(_read_runs(files), labels)]
    source = "simulated" if qrels.source == "simulated" else "user files"
    # _assemble consumes the list; the experiments' names are checked by _quadruples
    rs = _assemble(list(cols), qrels, name="reproduce", source=source, precision=precision, twins=False)
    if not rankings:
        return rs, None
    exact = rs if precision == "float64" else _assemble(cols, qrels, name="reproduce", source=source,
                                                        precision="float64", twins=False)  # fmt: skip
    return rs, exact


def reproduce_runs(
    orig_baseline, orig_advanced, repro_baseline, repro_advanced, qrels, *, repro_qrels=None,
    measures: Sequence[str] = ("AP", "nDCG@10", "P@10"), B: int = 1000, level: float = 0.95,
    seed: SeedLike = 0, rel: int = 1, precision: str = "float32", allow_simulated: bool = False
) -> Reproduction:  # fmt: skip
    """Read, score and compare original and reproduced runs: every measure of Breuer et al. (module docstring).

    Parameters
    ----------
    orig_baseline, orig_advanced, repro_baseline, repro_advanced : str or Path
        Four run files, or four directories whose run files are matched by name.
    qrels : str, Path or Qrels
        The judgments of the original (and, without ``repro_qrels``, of the reproduction):
        anything :func:`irrepro.data.load_qrels` takes.
    repro_qrels : optional
        The judgments of the reproduction's topics (replicability).
    measures : sequence of str
        Evaluation measures (``irrepro.measures.parse_measure`` names).
    B, level, seed : int, float, int or numpy.random.SeedSequence or numpy.random.Generator
        The topic resamples (``irrepro.stats.check_resamples``), the confidence level and their seed.
    rel : int, default 1
        Lowest relevant grade.
    precision : {"float32", "float64"}
        How scores rank for the evaluation measures (:func:`irrepro.data.load_runs`); KTU and RBO
        always rank by the scores in double precision, ties by document id descending.
    allow_simulated : bool, default False
        Accept a collection's simulated stand-in for qrels that cannot be had.

    Returns
    -------
    Reproduction
        The estimates; :meth:`Reproduction.to_frame` is the long table.

    Raises
    ------
    irrepro.InputError
        Too few resamples, a missing file, directories whose files do not match by name, or no topic
        in common, naming the files.

    Examples
    --------
    See :class:`Reproduction`.
    """
    from . import measures as ms
    from .data import load_qrels
    from .parallel import as_seed_sequence
    from .stats import check_resamples

    check_resamples(B, "B", level=level)
    names, files = _quadruples([orig_baseline, orig_advanced, repro_baseline, repro_advanced])
    for m in measures:
        ms.parse_measure(m, rel=rel)
    paired = repro_qrels is None
    q_o = load_qrels(qrels, allow_simulated=allow_simulated)
    labels = {role: [f"{role}:{n}" for n in names] for role in ROLES}
    if paired:
        order = list(ROLES)
        rs_o, exact = _runset([f for r in order for f in files[r]], [x for r in order for x in labels[r]], q_o,
                              precision, rankings=True)  # fmt: skip
        rs_r = rs_o
    else:
        q_r = load_qrels(repro_qrels, allow_simulated=allow_simulated)
        o, r = ROLES[:2], ROLES[2:]
        rs_o = _runset([f for x in o for f in files[x]], [y for x in o for y in labels[x]], q_o, precision)[0]
        rs_r = _runset([f for x in r for f in files[x]], [y for x in r for y in labels[x]], q_r, precision)[0]
    idx = {role: [(rs_o if role.startswith("orig") else rs_r).runs.index(x) for x in labels[role]]
           for role in ROLES}  # fmt: skip
    if paired:
        _check_topics(rs_o, idx, files)
    path = {lab: str(f) for role in ROLES for lab, f in zip(labels[role], files[role])}
    covered = rs_o._coverage() + ([] if paired else rs_r._coverage())
    coverage = tuple({**r, "run": path[r["run"]]} for r in covered)
    seed = as_seed_sequence(seed)  # one seed: every statistic draws the same resamples
    scores_o = ms.evaluate(rs_o, list(measures), rel=rel)
    scores_r = scores_o if paired else ms.evaluate(rs_r, list(measures), rel=rel)
    kw: dict[str, Any] = {"B": B, "level": level}
    x = {role: np.stack([(scores_o if role.startswith("orig") else scores_r)[m].scores[idx[role]]
                         for m in scores_o]) for role in ROLES}  # fmt: skip  # (measures, experiments, topics)
    names_m = tuple(scores_o)
    est: dict[tuple[str, str, str], Estimate] = {}
    for run in ("baseline", "advanced"):
        xo, xr = x[f"orig_{run}"], x[f"repro_{run}"]
        if paired:
            assert exact is not None  # paired: the rankings were made
            codes = exact.doc_codes
            oc, rc = codes[idx[f"orig_{run}"], :, :RUN_LENGTH], codes[idx[f"repro_{run}"], :, :RUN_LENGTH]
            est[(run, "", "KTU")] = topic_mean(ktu(oc, rc), seed=_same(seed), **kw)
            est[(run, "", "RBO")] = topic_mean(rbo(oc, rc), seed=_same(seed), **kw)
            _per_measure(est, run, names_m, "RMSE", rmse(xo, xr, seed=_same(seed), **kw))
        _per_measure(est, run, names_m, "p-value", p_value(xo, xr, paired=paired, seed=_same(seed), **kw))
    args = (x["orig_baseline"], x["orig_advanced"], x["repro_baseline"], x["repro_advanced"])
    _per_measure(est, "effect", names_m, "ER", effect_ratio(*args, paired=paired, seed=_same(seed), **kw))
    _per_measure(est, "effect", names_m, "DeltaRI", delta_ri(*args, paired=paired, seed=_same(seed), **kw))
    return Reproduction(tuple(names), files, names_m, paired, (len(rs_o.topics), len(rs_r.topics)), est, seed,
                        rs_o.simulated or rs_r.simulated, coverage)  # fmt: skip


def _same(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """A fresh copy of ``seed`` (a SeedSequence is stateless for ``default_rng``; copied to be sure)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)


def _per_measure(est: dict, run: str, names: tuple, statistic: str, e: Estimate) -> None:
    """Split an estimate over (measures, experiments) into one per measure."""
    for k, m in enumerate(names):
        est[(run, m, statistic)] = dataclasses.replace(e, value=e.value[k], low=e.low[k], high=e.high[k])


def _check_topics(rs, idx: dict, files: dict) -> None:
    """An original and its reproduction must rank documents for a topic in common."""
    got = rs.lengths > 0
    for run in ("baseline", "advanced"):
        for i, (a, b) in enumerate(zip(idx[f"orig_{run}"], idx[f"repro_{run}"])):
            if not (got[a] & got[b]).any():
                raise InputError(
                    f"{files[f'repro_{run}'][i]} and {files[f'orig_{run}'][i]} rank documents for no "
                    "topic in common: a reproduction on other topics is a replication (give --repro-qrels)"
                )
