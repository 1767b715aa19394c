"""Sanderson & Zobel's (2005) rows for the book's rule: from the swap experiments (their error the
Monte Carlo error of the topic splits, clustered by repetition) and on the full topic sets
(significant pairs, pools, the sd of MAP).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import _lazy
from ..errors import InputError
from ._sets import in_band
from ._swap import SwapExperiment, _bin_lower_edge, _largest_projected_error, growth_fit, rate_se

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

if TYPE_CHECKING:
    from ..book import Errors


#: The paper's repetitions of each topic split and its TREC years (section 3): its rates rest on them.
PAPER_REPETITIONS, PAPER_YEARS = 50, 10
_SPLITS_REASON = (
    "a rate of the topic splits of our years' topics and runs (their difference from the paper's "
    "years is the data's, named in the data column): its random step is the splits, whose error is "
    "the Monte Carlo error clustered by repetition"
)


def pct(x: float, digits: int = 0) -> str:
    """A percentage as the chapter's rows print it, or ``"no bin"`` for NaN."""
    return f"{x:.{digits}f}%" if np.isfinite(x) else "no bin"


def _edge(res: SwapExperiment, filter: str = "none", kind: str = "relative") -> float:
    """The lower edge (%) of the first bin whose projection to 50 topics is below 5% (NaN: none)."""
    return _bin_lower_edge(growth_fit(res, filter=filter, kind=kind).first_reliable())


def _projected(res: SwapExperiment, b: int, kind: str = "relative") -> float:
    """The projected error at 50 topics of bin ``b``."""
    return float(growth_fit(res, kind=kind).projected[b])


def _largest(res: SwapExperiment, filter: str) -> float:
    """The largest projected error at 50 topics over the bins with a fit."""
    return float(_largest_projected_error(growth_fit(res, filter=filter)))


_STATS: dict[str, Callable[..., float]] = {"edge": _edge, "projected": _projected, "largest": _largest}


def _first_below(sd: pd.DataFrame, level: float = 0.01) -> float:
    """The smallest topic-set size whose sd of MAP is below ``level`` (NaN: none)."""
    below = sd.topics[sd.sd < level]
    return float(below.min()) if len(below) else math.nan


def rise(dependence: pd.DataFrame, sizes: Sequence[int] = (5, 25)) -> dict[int, float]:
    """The rise of Figure 8 per topic-set size: the last position's error minus the lowest."""
    return {n: float(dependence.loc[n].iloc[-1] - dependence.loc[n].min()) for n in sizes}


class SplitRows:
    """The rows of the chapter's swap experiments, each with its errors."""

    def __init__(
        self,
        numbers: Mapping,
        experiments: Mapping[str, SwapExperiment],
        *,
        n_boot: int,
        seed: int,
        min_trials: int = 100,
    ):
        self.P = numbers
        self.x = dict(experiments)
        Bs = {r.B for r in self.x.values()}
        if len(Bs) != 1:
            raise InputError(f"the experiments have different repetitions: {sorted(Bs)}")
        self.B = Bs.pop()
        self.n_boot = int(n_boot)
        self.min_trials = int(min_trials)
        self._idx = np.random.default_rng(seed).integers(0, self.B, (self.n_boot, self.B))
        self._boot: dict[tuple, np.ndarray] = {}

    # --- what the rows rest on -------------------------------------------------------------------

    def _paper(self, key):
        return None if key is None else self.P[key]

    def _boot_of(self, stat: str, exp: str, *args) -> np.ndarray:
        """``stat`` (``"edge"``, ``"projected"``, ``"largest"``) of ``exp`` over the resamples."""
        k = (stat, exp, *args)
        if k not in self._boot:
            f = _STATS[stat]
            flt, kind = {"edge": args, "projected": ("none", args[-1]), "largest": (args[0], "relative")}[
                stat
            ]
            res = _thin(self.x[exp], flt, kind)
            self._boot[k] = np.array([f(res.resampled(i), *args) for i in self._idx], dtype=float)
        return self._boot[k]

    def _errors(self, mc, note: str = "") -> Errors:
        return book.errors(
            sampling=0.0, unit="repetition", mc=mc, replicates=self.B, reason=_SPLITS_REASON + note
        )

    def _boot_se(self, vals: np.ndarray) -> tuple[np.ndarray, str]:
        v = np.asarray(vals, dtype=float).reshape(self.n_boot, -1)
        ok = np.isfinite(v).all(axis=1)
        se = v[ok].std(axis=0, ddof=1) if ok.sum() > 1 else np.full(v.shape[1], np.nan)
        why = f"; Monte Carlo error: sd over {self.n_boot} bootstrap resamples of the {self.B} repetitions"
        if (~ok).any():
            why += f" ({int((~ok).sum())} found no bin and are left out)"
        if (se == 0).any():
            why += "; every resample gives the same bin: the error is below the bins' resolution"
        return se, why

    def edge(self, exp: str, filter: str = "none", kind: str = "relative") -> float:
        """The lower edge (%) of the first bin of ``exp`` projected below 5% at 50 topics (NaN: none)."""
        return _edge(self.x[exp], filter, kind)

    def _compared(self, row: dict, mc, exp: str) -> dict:
        """``row`` with the paper's Monte Carlo error: ours scaled to its repetitions and years."""
        if row.get("paper") is not None:
            f = math.sqrt(self.B * len(self.x[exp].collections) / (PAPER_REPETITIONS * PAPER_YEARS))
            se = np.atleast_1d(np.asarray(mc, dtype=float)) * f
            row["paper_se"] = float(se[0]) if se.size == 1 else [float(v) for v in se]
        return row

    def _boot_row(self, build, quantity: str, key, exp: str, stat: str, *args, fmt=float, **extra) -> dict:
        """A row of ``stat`` of ``exp`` (:meth:`_boot_of`), its Monte Carlo error the bootstrap's spread."""
        se, why = self._boot_se(self._boot_of(stat, exp, *args))
        value = fmt(_STATS[stat](self.x[exp], *args))
        row = build(quantity, self._paper(key), value, self._errors(float(se[0]), why), **extra)
        return self._compared(row, float(se[0]), exp)

    # --- the rows --------------------------------------------------------------------------------

    def threshold(self, quantity: str, key: str | None, exp: str, filter: str = "none",
                  kind: str = "relative", **extra) -> dict:  # fmt: skip
        """A threshold row (kind ``"score"``): :meth:`edge`, with its bootstrap spread."""
        return self._boot_row(book.score, quantity, key, exp, "edge", filter, kind, fmt=pct, **extra)

    def edge_order(self, quantity: str, key: str, parts: Sequence[tuple], **extra) -> dict:
        """An ordering row of threshold differences (points), ``((exp, filter), (exp, filter))`` per part."""
        vals, boots = [], []
        for (e1, f1), (e2, f2) in parts:
            vals.append(self.edge(e1, f1) - self.edge(e2, f2))
            boots.append(
                self._boot_of("edge", e1, f1, "relative") - self._boot_of("edge", e2, f2, "relative")
            )
        se, why = self._boot_se(np.stack(boots, axis=1))
        mc = float(se[0]) if len(parts) == 1 else tuple(float(v) for v in se)
        ours = " / ".join(f"{v:g}" for v in vals)
        return book.ordering(quantity, self.P[key], ours, self._errors(mc, why), **extra)

    def projected(
        self, quantity: str, key: str | None, exp: str, b: int, kind: str = "relative", **extra
    ) -> dict:
        """The projected error at 50 topics of bin ``b`` (kind ``"rate"``), with its bootstrap spread."""
        return self._boot_row(book.rate, quantity, key, exp, "projected", b, kind, **extra)

    def largest_projected(self, quantity: str, key: str | None, exp: str, filter: str, **extra) -> dict:
        """The largest projected error at 50 topics over the bins with a fit (kind ``"rate"``)."""
        return self._boot_row(book.rate, quantity, key, exp, "largest", filter, **extra)

    def rates(self, quantity: str, key: str | None, exp: str, filter: str, bins: Sequence[slice],
              size: int, **extra) -> dict:  # fmt: skip
        """Error rates (%) of pooled bins at one topic-set size (``"a% -> b%"`` for several bins)."""
        vals, ses = [], []
        for b in bins:
            c = self.x[exp].pooled_counts(filter, "relative", b, size)
            vals.append(100 * self.x[exp].pooled_error(filter, "relative", b, size))
            ses.append(100 * rate_se(c))
        mc = ses[0] if len(ses) == 1 else tuple(ses)
        ours = " -> ".join(f"{v:.1f}%" for v in vals)
        row = book.rate(quantity, self._paper(key), ours, self._errors(mc), **extra)
        return self._compared(row, mc, exp)

    def rate_difference(self, quantity: str, key: str, terms: Sequence[Sequence[tuple]], **extra) -> dict:
        """An ordering row of paired differences of pooled error rates (points)."""
        vals, ses = [], []
        for a, b in terms:
            ca, cb = (self.x[t[0]].pooled_counts(t[1], "relative", t[2], t[3]) for t in (a, b))
            vals.append(100 * (self.x[a[0]].pooled_error(a[1], "relative", a[2], a[3])
                               - self.x[b[0]].pooled_error(b[1], "relative", b[2], b[3])))  # fmt: skip
            ses.append(100 * rate_se(ca, cb))
        mc = ses[0] if len(ses) == 1 else tuple(ses)
        ours = " / ".join(f"{v:.2f}" for v in vals)
        return book.ordering(quantity, self.P[key], ours if len(vals) > 1 else round(vals[0], 2),
                             self._errors(mc, "; the difference is paired by repetition"), **extra)  # fmt: skip

    def smallest_rate(self, quantity: str, key: str, exp: str, filter: str, n_bins: int = 8, **extra) -> dict:
        """The smallest measured error rate (%) over the first ``n_bins`` bins and every size."""
        info = self.smallest(exp, filter, n_bins)
        row = book.rate(quantity, self.P[key], pct(info["rate"], 1), self._errors(info["se"]),
                        note=f"bin {info['bin']} at {info['size']} topics, cells with at least {self.min_trials} "
                             "trials; the smallest of many noisy cells lies below their typical value", **extra)  # fmt: skip
        return self._compared(row, info["se"], exp)

    def smallest(self, exp: str, filter: str, n_bins: int = 8) -> dict:
        """The cell of the smallest measured error rate: ``rate`` and ``se`` (%), ``bin``, ``size``."""
        res = self.x[exp]
        rates = res.error_rates(filter).iloc[:n_bins].to_numpy()
        cells = np.where(res.counts(filter).iloc[:n_bins].to_numpy() >= self.min_trials, rates, np.nan)
        b, s = np.unravel_index(np.nanargmin(cells), cells.shape)
        size = int(res.sizes[s])
        se = rate_se(res.pooled_counts(filter, "relative", slice(b, b + 1), size))
        return {"rate": 100 * float(cells[b, s]), "se": 100 * se, "bin": res.bin_labels()[b], "size": size}


def _thin(res: SwapExperiment, filter: str, kind: str) -> SwapExperiment:
    """``res`` with the counts of one filter and one kind of bins (cheap to resample)."""
    f, k = res.filters.index(filter), res.kinds.index(kind)
    cut = {
        name: getattr(res, name)[f : f + 1, k : k + 1]
        for name in ("trials", "errors", "rep_trials", "rep_errors")
    }
    return replace(res, filters=(filter,), kinds=(kind,), **cut)


def _why(reason: str) -> dict:
    """A row's ``reason`` (appended to the rule's), when there is one."""
    return {"reason": reason} if reason else {}


def share_rows(full: pd.DataFrame, numbers: Mapping, spec: Sequence[tuple], *, alpha: float = 0.05,
               note: str = "") -> list[dict]:  # fmt: skip
    """Rows of the share (%) of run pairs significant on the full topic sets, per relative-difference band."""
    rows = []
    why = "every pair of kept runs on all its year's topics: no random step"
    for key, test, (lo, hi), least in spec:
        sel = in_band(full, lo, hi, least)
        band = f"{100 * lo:g}-{100 * hi:g}%"
        q = f"{test}: share significant, " + (f"relative difference {band}" if least is None
                                               else f"{band}, runs with MAP ≥ {least:g}")  # fmt: skip
        row = book.share(q, numbers[key], (sel[f"p_{test}"] <= alpha).to_numpy(), unit="system pair",
                         reason=why, note=f"{len(sel)} pairs; the paper gives no count per band")  # fmt: skip
        rows.append(row | _why(note))
    return rows


def half_claim_row(
    full: pd.DataFrame, numbers: Mapping, key: str, *, band=(0.2, 0.3), alpha: float = 0.05, reason: str = ""
) -> dict:
    """The row of the paper's "only about half" of pairs about 20% apart being significant (section 3)."""
    lo, hi = band
    sel = in_band(full, lo, hi)
    hits = (sel["p_paired-t"] <= alpha).to_numpy(dtype=float)
    err = book.errors(values=hits, unit="system pair", mc=0.0,
                      reason="every pair of kept runs on all its year's topics: no random step")  # fmt: skip
    return book.rate("t-test: share of pairs 20%-30% apart significant (\"about half\")",
                     numbers[key], round(float(hits.mean()), 3) if hits.size else float("nan"), err,
                     note=f"{len(sel)} pairs; the paper's share for 20%-30% is its evidence") | _why(reason)  # fmt: skip


def _pool_stats(a: Mapping[int, np.ndarray], ix: np.ndarray) -> tuple[float, float, float]:
    """The pool ratio, topics for the effort of 50 deep ones, and relevant per effort, of topics ``ix``."""
    s10, s100 = a[10][ix].sum(0), a[100][ix].sum(0)
    ratio = s10[0] / s100[0]
    return ratio, 50 / ratio, (s10[1] / s100[1]) / ratio


def pool_rows(pools: Mapping[int, pd.DataFrame], numbers: Mapping, keys: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
              runs: Mapping[int, str] | None = None, reason: str = "") -> list[dict]:  # fmt: skip
    """The rows of section 4 (pool depth and assessor effort), three per round."""
    rows = []
    rng = np.random.default_rng(seed)
    why = "counted from the runs and qrels: no random step"
    for r, p in pools.items():
        g = {d: p[p.depth == d].set_index("topic")[["pool", "relevant"]] for d in (10, 100)}
        topics = g[10].index.intersection(g[100].index)
        a = {d: g[d].loc[topics].to_numpy(dtype=float) for d in g}  # (topics, [pool, relevant])

        value = _pool_stats(a, np.arange(len(topics)))
        boots = np.array([_pool_stats(a, rng.integers(0, len(topics), len(topics))) for _ in range(n_boot)])
        se = boots.std(axis=0, ddof=1)
        unit = f"topic ({n_boot} bootstrap resamples of the {len(topics)} topics)"
        e = [book.errors(sampling=float(s), unit=unit, mc=0.0, reason=why) for s in se]
        where = (runs or {}).get(r, "")
        rows += [
            book.rate(f"round {r}: depth-10 pool / depth-100 pool", numbers[keys[0]], f"{100 * value[0]:.1f}%",
                      e[0].scaled(100), note=where),
            book.count(f"round {r}: topics for the effort of 50 at depth 100", numbers[keys[1]],
                       f"{value[1]:.0f}", e[1]),
            book.score(f"round {r}: relevant found, shallow many-topic vs deep 50-topic", numbers[keys[2]],
                       f"{value[2]:.1f} x", e[2],
                       note="judged-relevant only: deep pools are judged shallowly (a lower bound for depth 100)"),
        ]  # fmt: skip
    return [row | _why(reason) for row in rows]


def sd_rows(
    sds: Sequence[pd.DataFrame], numbers: Mapping, keys: Sequence[str], *, samples: int, reason: str = ""
) -> list[dict]:
    """The rows of section 5: the standard deviation of MAP against the number of topics."""
    sd = sds[0].set_index("topics").sd
    seeds = f"sd over {len(sds)} seeds of map_sd ({samples} samples per run and size): the spread of one seed's value"
    why = "the average over the runs and topics we have (a substitution for the paper's, named in the data column)"

    def err(vals):
        return book.errors(sampling=0.0, unit="", mc=float(np.nanstd(vals, ddof=1)), replicates=samples,
                           reason=why + "; " + seeds)  # fmt: skip

    at = {n: [float(d.set_index("topics").sd[n]) for d in sds] for n in (5, 25)}
    below = [_first_below(d) for d in sds]
    step = int(sds[0].topics.iloc[1] - sds[0].topics.iloc[0])
    b0 = below[0]
    rows = [
        book.score("sd of MAP, 5 topics", numbers[keys[0]], float(sd[5]), err(at[5])),
        book.score("sd of MAP, 25 topics", numbers[keys[1]], float(sd[25]), err(at[25])),
        book.score("implied per-topic sd of AP (sd at 5 topics x sqrt 5)", None, float(sd[5] * 5**0.5),
                   err(np.array(at[5]) * 5**0.5),
                   note=f"the paper's: {numbers[keys[0]].value} x sqrt 5 = {numbers[keys[0]].value * 5**0.5:.3f}; "
                        "the sd of a mean scales as sigma / sqrt(n)"),
        book.count("topics where sd first drops below 0.01", numbers[keys[2]],
                   int(b0) if np.isfinite(b0) else "not within the topics", err(below),
                   note=f"sizes in steps of {step}; the finite population of topics shrinks the sd of large samples"),
    ]  # fmt: skip
    return [row | _why(reason) for row in rows]
