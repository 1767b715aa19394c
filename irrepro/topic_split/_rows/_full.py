"""Sanderson & Zobel's (2005) rows on the full topic sets: significant pairs, pools, the sd of MAP."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ... import _lazy
from .._sets import in_band
from ._splits import _first_below, _why

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


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
