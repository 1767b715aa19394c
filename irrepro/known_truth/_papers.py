"""Known-truth experiments of Webber, Moffat & Zobel (2008) and Cormack & Lynam (2006); the default sizes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import _spread, parallel
from .. import corpus_bootstrap as cb
from .. import standardize as sz
from ..data._matrices import _checked_scores
from ..parallel import SeedLike, check_int
from ..stats import check_level, clustered_se


class Sizes(NamedTuple):
    """Trials per configuration, resamples of the resampling tests, and the Monte Carlo target."""

    trials: int
    B: int
    se: float


def default_sizes(scale: str = "paper") -> Sizes:
    """The known-truth experiments' default sizes at ``scale``; ``se``: the Monte Carlo target of a 5% rate.

    Parameters
    ----------
    scale : {"paper", "quick"}
        Read by the caller (the book passes ``IRREPRO_SCALE``), never here.

    Returns
    -------
    Sizes
        ``trials, B, se``.

    Examples
    --------
    >>> from irrepro.known_truth import default_sizes
    >>> default_sizes(), default_sizes("quick").trials
    (Sizes(trials=24000, B=1000, se=0.002), 600)
    """
    quick = parallel.check_scale(scale) == "quick"
    return Sizes(600 if quick else 24_000, 200 if quick else 1000, 0.002)


@dataclass(frozen=True)
class SelfSignificance:
    """The share of systems a two-sample t-test finds different from themselves, per trial and form."""

    share: dict
    n_systems: int
    n_topics: int
    alpha: float

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Per form: the mean false-positive rate, its Monte Carlo se over trials, and an upper percentile."""
        level = check_level(level)
        rows = []
        for form, s in self.share.items():
            rate, sd = _spread.mean_sd(s)  # (every trial at one share: that share, se 0)
            rows.append({"form": form, "false-positive rate": rate, "se": sd / np.sqrt(len(s)),
                         f"upper {100 * (1 + level) / 2:g}th percentile": np.percentile(s, 50 * (1 + level)),
                         "trials": len(s)})  # fmt: skip
        return pd.DataFrame(rows).set_index("form")


def self_significance_null(
    matrix,
    *,
    n_topics: int = 50,
    trials: int | None = None,
    alpha: float = 0.05,
    factors=None,
    seed: SeedLike,
    n_jobs: int | None = None,
    per_task: int = 500,
    scale: str = "paper",
) -> SelfSignificance:
    """Webber et al.'s (2008, section 5) self-significance where the truth is known.

    Per trial, two topic sets drawn from the population ``matrix``, raw and standardized.

    Parameters
    ----------
    matrix : ScoreMatrix or array_like
        ``(systems, topics)``: the population of topics.
    n_topics : int
    trials : int, optional
        None: :func:`default_sizes` of ``scale``.
    alpha : float
    factors : optional
        The standardization factors; None: the matrix's own systems'.
    seed : SeedLike
    n_jobs : int, optional
    per_task : int
        Trials per task.
    scale : {"paper", "quick"}

    Returns
    -------
    SelfSignificance

    Examples
    --------
    >>> from irrepro import known_truth as kt
    >>> pop = np.random.default_rng(1).normal(0.3, 0.1, size=(20, 200))
    >>> res = kt.self_significance_null(pop, n_topics=30, trials=200, seed=2)
    >>> bool(abs(res.summary()["false-positive rate"]["raw"] - 0.05) < 0.02)  # the t-test's alpha
    True
    """
    x = _checked_scores(matrix, "matrix")
    forms = {"raw": x, "standardized": sz.standardize(x, factors)}
    trials = default_sizes(scale).trials if trials is None else check_int(trials, "trials", minimum=1)
    sizes = [c.stop - c.start for c in parallel._chunks(trials, per_task)]
    rngs = parallel.spawn(seed, len(sizes))
    S, T = x.shape

    def run(k):
        idx = rngs[k].integers(0, T, size=(2, sizes[k], n_topics))
        out = {}
        for form, v in forms.items():
            a = v[:, idx[0]].reshape(S * sizes[k], n_topics)
            b = v[:, idx[1]].reshape(S * sizes[k], n_topics)
            out[form] = sz.self_significance(a, b, alpha=alpha).reshape(S, sizes[k]).mean(axis=0)
        return out

    out = parallel.parallel_map(run, range(len(sizes)), n_jobs=n_jobs)
    share = {f: np.concatenate([o[f] for o in out]) for f in forms}
    return SelfSignificance(share, S, n_topics, alpha)


@dataclass(frozen=True)
class Coverage:
    """Where the population's AP and another corpus's AP fall against each method's interval."""

    methods: tuple[str, ...]
    truth: dict
    other: dict
    cluster: np.ndarray
    n_rel: np.ndarray
    B: int
    n_corpora: int

    def table(self, min_rel: int = 0) -> pd.DataFrame:
        """Per method: below / in / above shares of the population's AP, and the other corpus's in-share."""
        keep = self.n_rel > min_rel
        rows = []
        for m in self.methods:
            pos, oth = self.truth[m][keep], self.other[m][keep]
            inside = (pos == 0).astype(float)
            se = float(clustered_se(inside, self.cluster[keep]))
            rows.append({"method": m, "lists": int(keep.sum()), "below": np.mean(pos < 0), "coverage": inside.mean(),
                         "above": np.mean(pos > 0), "se": se, "other corpus inside": np.mean(oth == 0)})  # fmt: skip
        return pd.DataFrame(rows).set_index("method")


def _draw_corpus(
    relevant: np.ndarray,
    codes: np.ndarray,
    r_not_vocab: np.ndarray,
    rel_in_vocab: list,
    n_vocab: int,
    rng: np.random.Generator,
):
    """One corpus by Cormack & Lynam's model: each document Poisson(1) times, copies consecutive."""
    mult = rng.poisson(1.0, size=n_vocab)
    L, K = relevant.shape
    k = np.where(codes >= 0, mult[np.maximum(codes, 0)], 0)
    new_len = k.sum(axis=1)
    width = max(int(new_len.max(initial=1)), 1)
    rows = np.repeat(np.repeat(np.arange(L), K), k.ravel())
    cols = np.arange(len(rows)) - np.repeat(np.r_[0, np.cumsum(new_len)[:-1]], new_len)
    out = np.zeros((L, width), dtype=bool)
    out[rows, cols] = np.repeat(relevant.ravel(), k.ravel())
    r_star = np.array([mult[d].sum() for d in rel_in_vocab]) + rng.poisson(r_not_vocab)
    return out, new_len, r_star


def corpus_coverage(
    runs,
    *,
    n_corpora: int = 4,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
    rel: int = 1,
    level: float = 0.95,
    scale: str = "paper",
) -> Coverage:
    """Coverage of the corpus-bootstrap intervals where the truth is known (Cormack & Lynam 2006).

    The truth is the population's AP; the AP on a second corpus drawn by the paper's model is set beside it.

    Parameters
    ----------
    runs : RunSet
        The population: ranked lists and qrels.
    n_corpora : int
    B : int, optional
        Corpus-bootstrap samples; None: :func:`default_sizes` of ``scale``.
    seed : SeedLike
    n_jobs : int, optional
    rel : int
        The least relevant grade.
    level : float
        A fraction or a percentage.
    scale : {"paper", "quick"}

    Returns
    -------
    Coverage

    Examples
    --------
    >>> from irrepro import known_truth as kt
    >>> from irrepro.data import synthetic
    >>> cov = kt.corpus_coverage(synthetic.runs(4, 3, list_length=30, seed=1), n_corpora=1, B=30, seed=2)
    >>> cov.table().index.tolist()
    ['linear', 'logit', 'bca', 'linear+smallR', 'logit+smallR']
    """
    level = check_level(level)
    B = default_sizes(scale).B if B is None else check_int(B, "B", minimum=1)
    S, T, K = runs.grades.shape
    vocab = {d: i for i, d in enumerate(runs.vocab)}
    codes = runs.doc_codes.astype(np.int64)
    relevant = runs.relevant(rel)
    qt = runs.qrels.table
    qt = qt[qt["grade"] >= rel]
    rel_docs = [qt.loc[qt["topic"] == t, "doc"].to_numpy() for t in runs.topics]
    rel_in_vocab = [np.array([vocab[d] for d in docs if d in vocab], dtype=np.int64) for docs in rel_docs]
    n_rel = np.array([len(d) for d in rel_docs])
    r_not_vocab = n_rel - np.array([len(d) for d in rel_in_vocab])
    lengths = (codes >= 0).sum(axis=-1)
    pop = cb.compact_lists(relevant, n_rel[None, :], lengths)
    flat_rel, flat_codes = relevant.reshape(S * T, K), codes.reshape(S * T, K)
    seeds = parallel.as_seed_sequence(seed).spawn(n_corpora)
    methods = ("linear", "logit", "bca", "linear+smallR", "logit+smallR")
    truth: dict[str, list] = {m: [] for m in methods}
    other: dict[str, list] = {m: [] for m in methods}
    clusters, rels = [], []
    for c, ss in enumerate(seeds):
        g_a, g_b, g_boot = parallel.spawn(ss, 3)
        drawn = []
        for g in (g_a, g_b):
            lst, ln, r_star = _draw_corpus(
                flat_rel, flat_codes, r_not_vocab, rel_in_vocab, len(runs.vocab), g
            )
            drawn.append(cb.compact_lists(lst.reshape(S, T, -1), r_star[None, :], ln.reshape(S, T)))
        a, b_ = drawn
        reps = cb.bootstrap_ap(a, B, g_boot, n_jobs=n_jobs)
        est = a.ap.reshape(S, T)
        ivs = cb.intervals_from_replicates(
            est, reps, cb.METHODS, accel=cb.ap_acceleration(a).reshape(S, T), level=level
        )
        r_a = a.n_rel.reshape(S, T)
        for m in ("linear", "logit"):
            ivs[m + "+smallR"] = cb.small_r_correct(ivs[m], r_a, a.length.reshape(S, T), alpha=1 - level)
        ok = (a.usable & b_.usable & pop.usable).reshape(S, T)
        for m in methods:
            iv = ivs[m]
            truth[m].append(iv.position(pop.ap.reshape(S, T))[ok])
            other[m].append(iv.position(b_.ap.reshape(S, T))[ok])
        clusters.append((c * T + np.broadcast_to(np.arange(T), (S, T)))[ok])
        rels.append(np.broadcast_to(n_rel, (S, T))[ok])
    return Coverage(
        methods,
        {m: np.concatenate(v) for m, v in truth.items()},
        {m: np.concatenate(v) for m, v in other.items()},
        np.concatenate(clusters),
        np.concatenate(rels),
        B,
        n_corpora,
    )
