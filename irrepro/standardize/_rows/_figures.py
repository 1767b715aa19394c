"""The score-standardization chapter's rows for :func:`irrepro.book.compare` (Webber, Moffat & Zobel 2008).

The chapter computes on the paper's own runs and topics, so a difference from the paper's number has
no sampling error (``SAME_SAMPLE``); the random draws carry their Monte Carlo error; discriminative
power (:func:`power_rows`) carries the sampling error of a share over system pairs, clustered by pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ... import _lazy
from .._comparability import significant_pairs

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

if TYPE_CHECKING:
    from ...book import Errors

#: Why a row compared on the paper's own runs and topics has no sampling error.
SAME_SAMPLE = "the paper's own runs and topics: ours and the paper's number rest on the same sample"


def _exact(what: str = "no random step") -> Errors:
    """The errors of a number computed exactly from the paper's own data: none, and why."""
    return book.errors(sampling=0.0, mc=0.0, reason=f"{SAME_SAMPLE}; {what}")


def _mc(se, replicates: int, what: str) -> Errors:
    """The errors of a number resting on our random draws from the paper's own data."""
    return book.errors(
        sampling=0.0, mc=se, replicates=replicates, reason=f"{SAME_SAMPLE}; Monte Carlo: {what}"
    )


def figure2_rows(P: Mapping, mean: float, low: float, high: float, overlapped: Sequence[int]) -> list[dict]:
    """Rows of Figure 2: the 13th-ranked TREC 8 run's MAP, its 95% interval and the runs it overlaps."""
    e = _exact()
    return [
        book.score("MAP of the 13th run", P["fig2.map"], mean, e),
        book.score("95% interval, low", P["fig2.low"], low, e),
        book.score("95% interval, high", P["fig2.high"], high, e),
        book.count("best-ranked other run overlapped", P["fig2.best"], int(min(overlapped)), e),
        book.count("worst-ranked run overlapped", P["fig2.worst"], int(max(overlapped)), e),
    ]


def table1_rows(P: Mapping, ratios: Mapping[str, float], itc: Mapping[bool, float]) -> list[dict]:
    """Rows of Table 1's ratios and the item-total correlation; other readings shown, not compared."""
    e = _exact()
    other = "another reading of the paper's {}: shown, not compared"
    return [
        book.score("system means, 1st / 75th percentile", P["table1.system-means"], ratios["system means"], e),
        book.score("topic means, range of the four", P["table1.topic-means"], ratios["topic means"], e,
                   note=f"paper: {P['table1.topic-means'].wording}; best-first percentiles"),
        book.score("topic means, range of the four (worst first)", None, ratios["topic means, worst first"], e,
                   note="percentiles counted from the hardest topic; "
                   + other.format(P["table1.topic-means"].value)),
        book.score("topic sd, range of the four", P["table1.topic-sd"], ratios["topic sd"], e),
        book.score("topic sd ordered by sd, 1st / 75th percentile", P["table1.topic-sd-by-sd"],
                   ratios["topic sd by sd"], e, note=f"paper: {P['table1.topic-sd-by-sd'].wording}; largest sd first"),
        book.score("the same, smallest sd first", None, ratios["topic sd by sd, smallest first"], e,
                   note=other.format(P["table1.topic-sd-by-sd"].value)),
        book.correlation("Pearson(item-total corr., topic sd), best 75% systems", P["itc.correlation"], itc[True], e,
                         note="corrected item-total (topic left out of the total)"),
        book.correlation("the same, uncorrected item-total", None, itc[False], e,
                         note="topic included in the total; " + other.format(P["itc.correlation"].value)),
    ]  # fmt: skip


def figure3_rows(P: Mapping, quartiles: Sequence[float], below: float) -> list[dict]:
    """Rows of Figure 3: the quartiles of standardized AP and the share of raw AP below 0.2."""
    e = _exact()
    return [
        book.score("sAP 25th percentile", P["fig3.q25"], quartiles[0], e),
        book.score("sAP median", P["fig3.median"], quartiles[1], e),
        book.score("sAP 75th percentile", P["fig3.q75"], quartiles[2], e),
        book.rate(
            "share of AP below 0.2",
            P["fig3.below-0.2"],
            below,
            e,
            note=f"paper: {P['fig3.below-0.2'].wording}",
        ),
    ]


def table2_rows(P: Mapping, agreement: Mapping[str, tuple], between: tuple[float, float]) -> list[dict]:
    """Rows of Table 2: original against 2004 standardizing systems, and the 2003-vs-2004 topics."""
    e = _exact()
    parts = " / ".join(agreement)
    return [
        book.correlation(f"Kendall tau, {parts}", P["table2.tau"], " / ".join(f"{v[0]:.3f}" for v in agreement.values()),
                         e, note=f"paper: {P['table2.tau'].wording}"),
        book.correlation(f"Pearson r, {parts}", P["table2.pearson"], " / ".join(f"{v[1]:.3f}" for v in agreement.values()),
                         e, note=f"paper: {P['table2.pearson'].wording}"),
        book.correlation("raw AP, 2003 vs 2004 topics: Kendall tau", P["table2.tau-2003-2004"], between[0], e),
        book.correlation("raw AP, 2003 vs 2004 topics: Pearson r", P["table2.pearson-2003-2004"], between[1], e),
    ]  # fmt: skip


def figure4_rows(
    P: Mapping, tau_raw_std: float, fewest: Sequence[int], se: Sequence[float], samples: int
) -> list[dict]:
    """Rows of Figure 4: the fewest sampled standardizing systems that beat each reference tau."""
    what = f"bootstrap sd over the {samples} samples per size (200 resamples)"
    return [
        book.correlation("tau raw vs standardized AP, 2003 topics", P["fig4.tau-raw-std"], tau_raw_std, _exact()),
        book.count("systems for 99th pct lowest tau > 2003-vs-2004 tau", P["fig4.n-742"], fewest[0],
                   _mc(se[0], samples, what), note=f"paper: {P['fig4.n-742'].wording}; the number needed is at most 5"),
        book.count("systems for 95th / 99th pct lowest tau > raw-vs-std tau", P["fig4.n-919"], f"{fewest[1]} / {fewest[2]}",
                   _mc(list(se[1:]), samples, what), note="the paper's range for both percentiles"),
    ]  # fmt: skip


def power_ratio(raw, standardized, *, alpha: float = 0.05) -> tuple[float, Errors]:
    """The discriminative power of a standardized form over that of its raw form, with its error."""
    a = significant_pairs(raw, alpha=alpha).astype(float)
    b = significant_pairs(standardized, alpha=alpha).astype(float)
    r = float(b.mean() / a.mean())
    err = book.errors(values=(b - r * a) / a.mean(), clusters=np.arange(a.size), unit="system pair",
                      mc=0.0, reason="every pair tested once, no random step")  # fmt: skip
    return r, err


def power_rows(P: Mapping, forms: Mapping[str, tuple], context: Mapping[str, float]) -> list[dict]:
    """Rows of discriminative power: standardized over raw, against the paper's sDCG over DCG."""
    got = {m: power_ratio(*x) for m, x in forms.items()}
    sampling = tuple(float(np.asarray(e.sampling)) for _, e in got.values())
    err = book.Errors(sampling, 0.0, "system pair", None, "every pair tested once, no random step")
    rows = [
        book.score(f"discriminative power, standardized / raw: {' / '.join(got)} (TREC 8 topics)", P["power.no-harm"],
                   " / ".join(f"{r:.4f}" for r, _ in got.values()), err, paper_se=sampling[0],
                   note=f"paper: {P['power.no-harm'].wording}; the paper's error taken as ours for "
                   f"{next(iter(got))} (the same runs, topics and test)"),
    ]  # fmt: skip
    for name, v in context.items():
        metric = name.split(": ")[-1]
        key = f"power.{metric}"
        rows.append(
            book.rate(name, None, v, None, reason="context: another collection, not compared",
                      note=f"the paper's {metric} on the TREC 8 Robust runs: {P[key].value}" if key in P else "")
        )  # fmt: skip
    return rows
