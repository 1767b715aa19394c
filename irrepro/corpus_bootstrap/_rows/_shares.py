"""Shares of lists and of runs with their sampling error (by topic) and the bootstrap's Monte Carlo error."""

from __future__ import annotations

import numpy as np
import scipy.stats

from ... import _lazy, stats
from ..intervals import Intervals
from ..maps import map_parametric_intervals, run_means
from ..validation import SplitValidation, _normalized, _side_shares, position, predicted_in_interval

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

#: the three places of the other half's value w.r.t. an interval
SIDES = ("below", "in", "above")
#: "small R": at most 5 relevant documents (the paper's Table 1)
SMALL_R = 5
#: an outlier lies beyond OUTLIER half-widths of the 95% interval
OUTLIER = 4
EXACT = "computed exactly from the qrels and runs, no random step"
CONTEXT = "describes our data (not compared with the paper)"
_TOPIC = "topic"
NO_EDGE = "a Monte Carlo error of 0: no list or run lies near its interval's edge"


def nominal() -> tuple[float, float, float]:
    """The model's below / in / above shares (fractions): the level the shares' margin is set by."""
    return predicted_in_interval()


def list_sides(pos: np.ndarray) -> np.ndarray:
    """ "below" / "in" / "above" for positions -1 / 0 / +1."""
    return np.where(pos < 0, "below", np.where(pos > 0, "above", "in"))


def list_topics(mask: np.ndarray) -> np.ndarray:
    """The topic (column) of each list selected by a (systems, topics) ``mask``, in its order."""
    return np.broadcast_to(np.arange(mask.shape[1]), mask.shape)[mask]


def _edge_noise(method: str, B: int) -> float:
    """The relative Monte Carlo sd of an interval's half-width from B bootstrap samples."""
    if method.startswith("bca"):
        z = stats.Z95
        return float(np.sqrt(0.025 * 0.975 / B) / (scipy.stats.norm.pdf(z) * z))
    return float(1 / np.sqrt(2 * (B - 1)))


def bootstrap_mc_se(normalized: np.ndarray, method: str, B: int) -> tuple[float, float, float]:
    """The Monte Carlo error (in points) of the below / in / above shares of ``normalized`` values."""
    x = np.asarray(normalized, dtype=float)
    n = max(len(x), 1)
    c = _edge_noise(method, B)
    with np.errstate(invalid="ignore"):
        p = scipy.stats.norm.cdf((1 - np.abs(x)) / c)
    v = np.where(np.isfinite(x), p * (1 - p), 0.0)
    return tuple(float(100 * np.sqrt(np.sum(v[s])) / n) for s in (x < 0, np.ones_like(x, bool), x > 0))  # type: ignore[return-value]


def _paper_se(shares, se, n_ours: int, n_paper: int) -> list[float]:
    """The paper's sampling error of shares (in %) over its ``n_paper`` units, clustered as ours."""
    p = np.clip(np.asarray(shares, dtype=float) / 100, 0, 1)
    binom = 100 * np.sqrt(p * (1 - p) / max(n_ours, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = np.where(binom > 0, np.asarray(se, dtype=float) / binom, np.nan)
    d = np.where(np.isfinite(deff), deff, np.nanmax(deff) if np.isfinite(deff).any() else 1.0)
    q = np.clip(p, 0.005, 0.995)
    return [float(x) for x in 100 * np.sqrt(q * (1 - q) / n_paper) * d]


def list_share_row(quantity: str, paper, val: SplitValidation, src: str, method: str, *, min_rel: int = 0,
                   paper_n: int | None = None, note: str = "") -> dict:  # fmt: skip
    """A below / in / above row of the other half's AP w.r.t. ``method``'s intervals from ``src``."""
    mask = val.lists_mask(src, min_rel)
    pos = val.positions(src, method)[mask]
    x = val.normalized_difference(src, method)[mask[val.usable]]
    mc = bootstrap_mc_se(x, method, val.B)
    r = book.share(quantity, paper, list_sides(pos), categories=SIDES, clusters=list_topics(mask), unit=_TOPIC,
                   mc=mc, replicates=val.B, nominal=nominal(), note=note,
                   reason=f"bootstrap Monte Carlo error from B = {val.B}: each list near its interval's edge "
                   "may flip (the edges' relative noise 1/sqrt(2B), BCa's percentiles more)")  # fmt: skip
    if paper_n:
        r["paper_se"] = _paper_se(
            [float(v) for v in r["ours"].split(" / ")], r["se_sampling"], len(pos), paper_n
        )
    return r


def _sub(iv: Intervals, idx) -> Intervals:
    return Intervals(iv.method, iv.estimate[:, idx], iv.lower[:, idx], iv.upper[:, idx], iv.sd[:, idx])


def map_positions(val: SplitValidation, src: str, kind: str, measure: str, idx=None) -> np.ndarray:
    """Per run, where the other half's MAP falls w.r.t. the ``kind`` interval: -1 / 0 / +1."""
    o = val.other(src)
    if idx is None:
        iv = val.maps[(src, kind, measure)]
        return position(run_means(val.ap[o], val.usable, measure), iv.lower, iv.upper)
    use = val.usable[:, idx]
    if kind == "parametric":
        iv = map_parametric_intervals(_sub(val.intervals[(src, "logit+smallR")], idx), use)[measure]
        lower, upper = iv.lower, iv.upper
    else:
        sd = _bootstrap_sd(val, src, measure, idx)
        est = run_means(val.ap[src][:, idx], use, measure)
        z = stats.Z95
        lower, upper = est - z * sd, est + z * sd
    return position(run_means(val.ap[o][:, idx], use, measure), lower, upper)


def _bootstrap_sd(val: SplitValidation, src: str, measure: str, idx) -> np.ndarray:
    """The sd of a run's bootstrap MAP (L-MAP) over the topics ``idx`` from its lists' sds."""
    sd_t = val.intervals[(src, "linear" if measure == "MAP" else "logit")].sd

    def of(cols):
        u = val.usable[:, cols]
        return np.sqrt(np.where(u, sd_t[:, cols] ** 2, 0.0).sum(axis=1)) / np.maximum(u.sum(axis=1), 1)

    own = val.maps[(src, "bootstrap", measure)].sd
    base = of(np.arange(len(val.topics)))
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(base > 0, own / base, 1.0)
    return of(np.asarray(idx)) * scale


def map_shares_by_topic(val: SplitValidation, src: str, kind: str, measure: str, *, n_boot: int = 200,
                        seed=0) -> np.ndarray:  # fmt: skip
    """(n_boot, 3) below / in / above shares (%) of runs over topics resampled with replacement."""
    rng = np.random.default_rng(seed)
    T = len(val.topics)
    out = np.empty((n_boot, 3))
    for b in range(n_boot):
        pos = map_positions(val, src, kind, measure, rng.integers(0, T, T))
        out[b] = _side_shares(pos)
    return out


def _map_mc_se(val: SplitValidation, src: str, kind: str, measure: str) -> tuple[float, float, float]:
    """The Monte Carlo error of a run share (Tables 3 and 4)."""
    x = _normalized(run_means(val.ap[val.other(src)], val.usable, measure), val.maps[(src, kind, measure)])
    return bootstrap_mc_se(x, "linear", val.B)


def map_share_row(quantity: str, paper, val: SplitValidation, src: str, kind: str, measure: str, *,
                  paper_runs: int, n_boot: int = 200, seed=0, note: str = "") -> dict:  # fmt: skip
    """A below / in / above row of runs (Tables 3 and 4)."""
    pos = map_positions(val, src, kind, measure)
    shares = _side_shares(pos)
    boot = map_shares_by_topic(val, src, kind, measure, n_boot=n_boot, seed=seed)
    se = np.std(boot, axis=0, ddof=1)
    k = len(pos)
    z2 = stats.Z95**2  # Agresti & Coull where every run agrees (0% or 100%) and the spread is 0
    p = (shares / 100 * k + z2 / 2) / (k + z2)
    se = np.where(se > 0, se, 100 * np.sqrt(p * (1 - p) / (k + z2)))
    err = book.errors(
        sampling=tuple(se),
        unit=_TOPIC,
        mc=_map_mc_se(val, src, kind, measure),
        replicates=val.B,
        reason=NO_EDGE,
    )
    ours = " / ".join(f"{v:.1f}" for v in shares)
    return book.rate(quantity, paper, ours, err, nominal=nominal(), note=note,
                     paper_se=_paper_se(shares, se, k, paper_runs),
                     reason=f"sampling: sd of the shares over {n_boot} resamples of the {len(val.topics)} topics "
                     f"(the runs share them); Monte Carlo: each run near its interval's edge may flip (B = {val.B})")  # fmt: skip


def _pick(x, i: int):
    """Part ``i`` of a per-part error (one value for all parts: that value)."""
    return x[i] if isinstance(x, (list, tuple)) else x


def _one(a):
    """Per-part values as a row keeps them: a tuple, or one float for a row of one part."""
    return tuple(float(x) for x in a) if len(a) > 1 else float(a[0])


def _parts(ours) -> list[float]:
    return [float(x) for x in str(ours).split(" (")[0].split(" / ")]


def _vec(x, k: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(0.0 if x is None else x, dtype=float), (k,)).astype(float)
