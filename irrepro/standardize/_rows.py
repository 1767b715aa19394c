"""The score-standardization chapter's rows for :func:`irrepro.book.compare` (Webber, Moffat & Zobel 2008):
Figures 2-4 and Tables 1-2, then random halves and sub-collection pairs (section 5: Figures 5-7,
Tables 3-6) and the verdict.

The chapter computes on the paper's own runs and topics, so a difference from the paper's number has
no sampling error (``SAME_SAMPLE``); the random draws carry their Monte Carlo error; discriminative
power (:func:`power_rows`) carries the sampling error of a share over system pairs, clustered by pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from .. import _lazy
from ._comparability import CollectionPair, PartitionResult, significant_pairs

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

if TYPE_CHECKING:
    from ..book import Comparison, Errors

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


_Res = Mapping[tuple, PartitionResult]  # (setting, (metric, form)) -> the random halves


def _forms(res: _Res, setting: str, form: str) -> list:
    return [f for (s, f) in res if s == setting and f[1] == form]


def _extreme(res: _Res, setting: str, forms: Sequence, col: str, pick) -> tuple:
    vals = {(setting, f): res[(setting, f)].summary()[col] for f in forms}
    return pick(vals, key=vals.get)


def _upper(res: _Res, setting: str, forms: Sequence) -> tuple[float, float]:
    """The largest upper end (97.5th percentile) of the false-positive rate among ``forms``, and its se."""
    k = _extreme(res, setting, forms, "FP high", max)
    return res[k].summary()["FP high"], res[k].summary_se()["FP high"]


def _more_stable(res: _Res, setting: str, pairs: Sequence) -> tuple[float, float]:
    """The smallest mean dRMSE difference over (less, more stable) form pairs, with its paired se."""
    d = [res[(setting, a)].drmse - res[(setting, b)].drmse for a, b in pairs]
    i = int(np.argmin([x.mean() for x in d]))
    return float(d[i].mean()), float(d[i].std(ddof=1) / np.sqrt(d[i].size))


def fp_upper_ends(res: _Res, setting: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The largest upper ends of the false-positive interval: raw and R-normalized forms, standardized."""
    nonstd = _forms(res, setting, "raw") + _forms(res, setting, "R-normalized")
    return _upper(res, setting, nonstd), _upper(res, setting, _forms(res, setting, "standardized"))


def figures56_rows(P: Mapping, res: _Res, robust: str, second: str) -> list[dict]:
    """Rows of Figures 5 and 6: the random halves' dRMSE and false positives per metric form."""
    B = next(iter(res.values())).drmse.size
    mean_se, end_se = (
        f"sd over the {B} random halves / sqrt({B})",
        f"Maritz-Jarrett se of the 97.5th percentile of {B} halves",
    )
    diff_se = f"sd over the {B} random halves of the paired difference / sqrt({B})"
    context = "second setting (TREC-COVID): the paper's {} is for the Robust runs; shown, not compared"
    ap = (robust, ("SP/AP", "R-normalized"))
    lo_k = min(res, key=lambda k: res[k].summary()["FP mean"])
    hi_k = max(res, key=lambda k: res[k].summary()["FP mean"])
    (rb_raw, rb_raw_se), (rb_std, rb_std_se) = fp_upper_ends(res, robust)
    (cv_raw, cv_raw_se), (cv_std, cv_std_se) = fp_upper_ends(res, second)

    def raw_vs_std(s):  # the least stable standardized form against the most stable raw form
        return [(_extreme(res, s, _forms(res, s, "raw"), "dRMSE mean", min)[1],
                 _extreme(res, s, _forms(res, s, "standardized"), "dRMSE mean", max)[1])]  # fmt: skip

    def rnorm_vs_std(s):  # each metric's R-normalized form against its standardized form
        return [((m, "R-normalized"), (m, "standardized")) for (m, _) in _forms(res, s, "standardized")]

    st = {
        s: (_more_stable(res, s, raw_vs_std(s)), _more_stable(res, s, rnorm_vs_std(s)))
        for s in (robust, second)
    }
    ctx = book.errors(sampling=0.0, mc=0.0, reason="context: another collection, not compared")
    pct = lambda v: f"{100 * v:.2f}%"  # noqa: E731  (a rate as the paper prints this one)
    return [
        book.score("mean dRMSE of random halves, AP (351-450)", P["fig5.drmse-halves"], res[ap].summary()["dRMSE mean"],
                   _mc(res[ap].summary_se()["dRMSE mean"], B, mean_se)),
        book.rate("mean false-positive rate, lowest of all forms", P["fig6.fp-low"], res[lo_k].summary()["FP mean"],
                  _mc(res[lo_k].summary_se()["FP mean"], B, mean_se), note=f"{lo_k[0]}: {' '.join(lo_k[1])}"),
        book.rate("mean false-positive rate, highest of all forms", P["fig6.fp-high"], res[hi_k].summary()["FP mean"],
                  _mc(res[hi_k].summary_se()["FP mean"], B, mean_se), note=f"{hi_k[0]}: {' '.join(hi_k[1])}"),
        book.rate("FP upper end, raw and R-normalized, largest (Robust)", P["fig6.upper-raw"], pct(rb_raw),
                  _mc(100 * rb_raw_se, B, end_se), note=f"paper: {P['fig6.upper-raw'].wording}"),
        book.rate("FP upper end, standardized, largest (Robust)", P["fig6.upper-std"], pct(rb_std),
                  _mc(100 * rb_std_se, B, end_se), note=f"paper: {P['fig6.upper-std'].wording}"),
        book.rate("FP upper end, raw and R-normalized, largest (TREC-COVID)", None, pct(cv_raw), ctx,
                  note=context.format(P["fig6.upper-raw"].value) + f"; Monte Carlo se {100 * cv_raw_se:.2f}"),
        book.rate("FP upper end, standardized, largest (TREC-COVID)", None, pct(cv_std), ctx,
                  note=context.format(P["fig6.upper-std"].value) + f"; Monte Carlo se {100 * cv_std_se:.2f}"),
        book.ordering("standardized more stable than every raw form (Robust)", P["fig5.std-stable"], st[robust][0][0],
                      _mc(st[robust][0][1], B, diff_se), note="smallest mean dRMSE of a raw form minus the largest of a standardized form"),
        book.ordering("standardized more stable than every raw form (TREC-COVID)", None, st[second][0][0], ctx,
                      note=context.format("ordering")),
        book.ordering("standardized more stable than R-normalized, every metric (Robust)", P["fig5.std-vs-rnorm"],
                      st[robust][1][0], _mc(st[robust][1][1], B, diff_se),
                      note="smallest, over the metrics, R-normalized minus standardized mean dRMSE"),
        book.ordering("standardized more stable than R-normalized, every metric (TREC-COVID)", None, st[second][1][0], ctx,
                      note=context.format("ordering")),
    ]  # fmt: skip


def pair_table(pairs: Mapping[tuple, CollectionPair]) -> pd.DataFrame:
    """Tables 3-5: one row per pair of sub-collections, observed and against its random halves."""
    return pd.DataFrame([{"C": c, "D": d, "dRMSE": r.drmse, "random mean": r.random.drmse.mean(),
                          "random 95% high": np.percentile(r.random.drmse, 97.5), "percentile": r.percentile,
                          "self-significant": r.n_significant, "of": r.n_systems,
                          "rate 95% low": r.interval[0], "rate 95% high": r.interval[1],
                          "random FP mean": r.random.false_positive.mean(),
                          "percentile se": r.random.percentile_se(r.percentile)}
                         for (c, d), r in pairs.items()])  # fmt: skip


def _count_se(group: Sequence[CollectionPair], beyond: float) -> float:
    """The Monte Carlo error of a count of pairs on one side of the ``beyond`` percentile (binomial)."""
    pi = [stats.norm.cdf(-abs(r.percentile - beyond) / r.random.percentile_se(r.percentile)) for r in group]
    return float(np.sqrt(sum(x * (1 - x) for x in pi)))


def beyond_counts(raw: Mapping, std: Mapping, same_track: Sequence, beyond: float) -> dict:
    """The pairs within or beyond the random 95% interval of their halves, by group."""
    groups = {"same-track within": [raw[p] for p in same_track],
              "cross-track beyond": [r for p, r in raw.items() if p not in same_track],
              "sAP within": list(std.values())}  # fmt: skip
    return {k: (sum((r.percentile >= beyond) == k.endswith("beyond") for r in g), len(g), _count_se(g, beyond))
            for k, g in groups.items()}  # fmt: skip


def tables35_rows(
    P: Mapping, raw: Mapping, std: Mapping, same_track: Sequence, beyond: float, halves_row
) -> list[dict]:
    """Rows of Tables 3-5: the sub-collection pairs of raw and standardized AP against their halves."""
    r78, r73 = raw[("TREC 7", "TREC 8")], raw[("TREC 7", "TREC 2003")]
    B = r73.random.drmse.size
    t3, t5 = pair_table(raw), pair_table(std)
    rate5 = t5["self-significant"] / t5["of"]
    counts = beyond_counts(raw, std, same_track, beyond)
    fp73 = 100 * float(np.mean(r73.random.false_positive < r73.n_significant / r73.n_systems))
    pairs = _exact("the observed sub-collection pairs, no random step")
    binom, count = (
        f"binomial over {B} random halves",
        f"binomial error of each pair's percentile over {B} halves, summed",
    )
    (lo73, hi73), n = r73.interval, int(t5["of"].iloc[0])

    def k_of(key, paper, label):
        c, m, se = counts[key]
        return book.count(label, paper, f"{c} of {m}", _mc(se, B, count))

    rows = [
        book.score("AP dRMSE, TREC 7 vs TREC 8", P["table3.7-8"], r78.drmse, pairs),
        {"quantity": "AP random-halves mean dRMSE, TREC 7 + 8", "paper": P["fig5.drmse-halves"],
         "ours": r78.random.drmse.mean(), "same_as": halves_row},
        book.score("AP dRMSE, TREC 7 vs TREC 2003", P["table3.7-2003"], r73.drmse, pairs),
        book.score("AP random-halves mean dRMSE, TREC 7 + 2003", P["table3.7-2003-random"], r73.random.drmse.mean(),
                   _mc(r73.random.summary_se()["dRMSE mean"], B, f"sd over the {B} random halves / sqrt({B})")),
        book.rate(f"percentile of {P['table3.7-2003'].value} among random halves", P["table3.7-2003-percentile"],
                  r73.percentile, _mc(r73.random.percentile_se(r73.percentile), B, binom)),
        book.count("AP self-significant, TREC 7 vs 2003 (of 110)", P["table4.7-2003"], r73.n_significant, pairs,
                   note=f"paper: {P['table4.7-2003'].wording}; 95% binomial interval of the rate [{lo73:.2f}, {hi73:.2f}]"),
        book.rate("percentile of that false-positive rate among random halves", P["table4.7-2003-percentile"], fp73,
                  _mc(r73.random.percentile_se(fp73), B, binom)),
        k_of("same-track within", P["table3.same-track"], "AP: same-track pairs within the random 95% interval"),
        {**k_of("cross-track beyond", P["table3.cross-track"], "AP: AdHoc-Robust pairs beyond the random 95% interval"),
         "note": f"paper: {P['table3.cross-track'].wording}"},
        k_of("sAP within", P["table5.within"], "sAP: pairs within the random 95% interval"),
        book.ordering("sAP dRMSE below AP dRMSE, every pair", P["table5.lower-every-pair"],
                      float((t3["dRMSE"] - t5["dRMSE"]).min()), pairs, note="smallest, over the six pairs, AP minus sAP dRMSE"),
        book.rate("sAP self-significant rate, mean over pairs", P["table5.fp-mean"], float(rate5.mean()), pairs,
                  note=f"paper: {P['table5.fp-mean'].wording}; the same six pairs of the same runs"),
        book.rate("sAP self-significant rate, largest pair", P["table5.fp-max"], float(rate5.max()), pairs,
                  note=f"paper: {P['table5.fp-max'].wording}; {int(t5['self-significant'].max())} of {n} systems"),
    ]  # fmt: skip
    return rows


def figure7_rows(P: Mapping, fig7: pd.DataFrame) -> list[dict]:
    """Rows of Figure 7: mean dRMSE over the six sub-collection pairs per metric form."""
    e = _exact("the six observed sub-collection pairs, no random step")
    v = {(form, metric): float(fig7.loc[form, metric]) for form in fig7.index for metric in fig7.columns}
    return [
        book.score("AP (R-normalized SP), mean of Table 3", P["fig7.ap"], v["R-normalized", "SP/AP"], e),
        book.score("sAP / AP mean dRMSE", P["fig7.sap-ratio"], v["standardized", "SP/AP"] / v["R-normalized", "SP/AP"],
                   e, note=f"paper: {P['fig7.sap-ratio'].wording}; 1/3 read as a point value"),
        book.ordering("sP@10 minus raw P@10", P["fig7.p10"], v["standardized", "P@10"] - v["raw", "P@10"], e,
                      note=f"paper: {P['fig7.p10'].wording}"),
    ]  # fmt: skip


def table6_rows(P: Mapping, table6: pd.DataFrame, adhoc: Sequence[str], robust: Sequence[str]) -> list[dict]:
    """Rows of Table 6: each mean as a ratio of the ad hoc to the Robust sub-collections."""
    e = _exact("computed exactly from the score matrices and qrels, no random step")
    ratio = {
        r: table6.loc[r, list(adhoc)].mean() / table6.loc[r, list(robust)].mean()
        for r in ("R", "P@10", "AP", "SP")
    }
    rows = [(book.score if r == "P@10" else book.ordering)(f"mean {r}, ad hoc / Robust", P[f"table6.{r}"], ratio[r], e)
            for r in ratio]  # fmt: skip
    earlier = [*adhoc, robust[0]]
    return rows + [book.score("sAP with original standardizers, TREC 7 / 8 / 2003 mean", P["table6.sAP"],
                              table6.loc["sAP (original systems)", earlier].mean(), e)]  # fmt: skip


def verdict_rows(P: Mapping, c: Mapping[str, Comparison], ours: Mapping[str, str]) -> list[dict]:
    """The Verdict: each claim of the paper, restating the rows above that decide it."""
    t35, f56, f4 = c["Tables 3-5"], c["Figures 5 and 6"], c["Figure 4"]
    few = [f4.row(q) for q in f4.frame["quantity"][1:3]]
    outdated = [c["Table 2"].row(q) for q in c["Table 2"].frame["quantity"][:2]]
    power = c["Discriminative power"]
    return [
        {"quantity": "standardization cuts cross-collection dRMSE by about two thirds", "paper": P["claim.two-thirds"],
         "ours": ours["two-thirds"], "note": "1 - mean sAP / mean AP dRMSE over the six pairs",
         "same_as": c["Figure 7"].row("sAP / AP mean dRMSE")},
        {"quantity": "standardization is robust to differences in R", "paper": P["claim.robust-R"], "ours": ours["robust-R"],
         "note": "pairs whose observed dRMSE lies within the random 95% interval",
         "same_as": t35.row("sAP: pairs within the random 95% interval")},
        {"quantity": "every AdHoc-Robust comparison of raw AP is problematic", "paper": P["table3.cross-track"],
         "ours": ours["cross-track"], "note": "AdHoc-Robust pairs whose observed dRMSE lies beyond the random 95% interval",
         "same_as": t35.row("AP: AdHoc-Robust pairs beyond the random 95% interval")},
        {"quantity": "outdated standardizing systems distort less than a change of collection", "paper": P["table2.tau"],
         "ours": ours["outdated"], "same_as": outdated},
        {"quantity": f"a few standardizing systems suffice (as few as {P['fig4.n-742'].value.split()[-1]} beat "
                     f"{P['table2.tau-2003-2004'].value}; {P['fig4.n-919'].value} beat {P['fig4.tau-raw-std'].value})",
         "paper": P["claim.few-systems"], "ours": ours["few"], "same_as": few},
        {"quantity": "standardization cuts false positives (random halves and sub-collection pairs)",
         "paper": P["claim.false-positives"], "ours": ours["false-positives"],
         "same_as": [f56.row("FP upper end, raw and R-normalized, largest (Robust)"),
                     f56.row("FP upper end, standardized, largest (Robust)"),
                     t35.row("sAP self-significant rate, mean over pairs"), t35.row("sAP self-significant rate, largest pair")]},
        {"quantity": "... without harming discriminative power", "paper": P["power.no-harm"], "ours": ours["power"],
         "same_as": power.row(power.frame["quantity"].iloc[0])},
        {"quantity": "recommendation: publish standardization factors with test collections", "paper": P["claim.publish"],
         "kind": "claim", "ours": "on the TREC 2004 Robust runs only",
         "supports": [c["Figure 7"].row("sAP / AP mean dRMSE"), t35.row("sAP: pairs within the random 95% interval"),
                      *outdated, *few]},
    ]  # fmt: skip
