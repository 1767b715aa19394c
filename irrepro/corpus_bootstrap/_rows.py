"""The Cormack & Lynam chapter's rows for the book's rule: coverage shares beside the paper's
(Tables 1-4, the second corpus), its claims as numbers, the rows of several thinning seeds pooled.

A share over lists is clustered by topic; a share over runs has one outcome per run resting on every
topic, so its sampling error is the spread over topics resampled with replacement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.stats

from .. import _lazy, stats
from .._rule import judge, spread_notes, verdict
from ..stats import clustered_se
from .intervals import Intervals, map_parametric_intervals, run_means
from .validation import SplitValidation, _normalized, _side_shares, predicted_in_interval

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
                   mc=mc, replicates=val.B, nominal=predicted_in_interval(), note=note,
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
        return iv.position(run_means(val.ap[o], val.usable, measure))
    use = val.usable[:, idx]
    if kind == "parametric":
        iv = map_parametric_intervals(_sub(val.intervals[(src, "logit+smallR")], idx), use)[measure]
    else:
        sd = _bootstrap_sd(val, src, measure, idx)
        est = run_means(val.ap[src][:, idx], use, measure)
        iv = Intervals("bootstrap", est, est - stats.Z95 * sd, est + stats.Z95 * sd, sd)
    return iv.position(run_means(val.ap[o][:, idx], use, measure))


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
    return book.rate(quantity, paper, ours, err, nominal=predicted_in_interval(), note=note,
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


def small_r_rows(P: Mapping, R, RA, RB, *, compared: bool = True) -> list[dict]:
    """The topics with few relevant documents: full corpus (R) and halves (RA, RB)."""

    def row(quantity, key, ours, note=""):
        p = P[key]
        if compared:
            return book.count(quantity, p, ours, reason=EXACT, note=note)
        tail = f"TREC-6: {p.value} (the paper, section {p.section})"
        return book.count(
            quantity, None, ours, reason=f"{EXACT}; {CONTEXT}", note="; ".join(x for x in (note, tail) if x)
        )

    R, RA, RB = (np.asarray(x) for x in (R, RA, RB))
    return [
        row("topics with R <= 5 (full corpus)", "data.r5-full", int((R <= 5).sum())),
        row("topics with R <= 5 (half A / half B)", "data.r5-halves", f"{(RA <= 5).sum()} / {(RB <= 5).sum()}", "MD5 split"),
        row("topics with R <= 2 (half A / half B)", "data.r2-halves", f"{(RA <= 2).sum()} / {(RB <= 2).sum()}"),
    ]  # fmt: skip


def data_rows(P: Mapping, rs5, a5, ap5: np.ndarray, trec6) -> list[dict]:
    """The data section's rows: round 5 described, TREC-6's numbers in the notes."""
    R5, RA, RB = rs5.n_relevant(), a5.n_relevant(), rs5.n_relevant() - a5.n_relevant()
    rt, nl = P["data.runs-topics"], P["data.lists"]
    return [
        book.count("runs x topics", None, f"{len(rs5.runs)} x {len(rs5.topics)}", reason=f"{EXACT}; {CONTEXT}",
                   note=f"TREC-6: {rt.value} (the paper, section {rt.section})"),
        book.count("non-empty lists", None, int((rs5.lengths > 0).sum()), reason=f"{EXACT}; {CONTEXT}",
                   note=f"runs x topics with a retrieved document; TREC-6: {nl.value} (the paper, section {nl.section})"),
        *small_r_rows(P, R5, RA, RB, compared=False),
        book.count("median R per topic", None, float(np.median(R5)), reason=f"{EXACT}; {CONTEXT}",
                   note="TREC-6 median not given in the paper"),
        book.rate("documents in half A (share of judged)", P["data.half-share"],
                  f"{len(a5.qrels.table) / len(rs5.qrels.table):.3f}", None,
                  reason="computed exactly from the MD5 split of the judged documents, no random step",
                  note="lowest bit of MD5(doc id) = 0"),
        book.score("MAP, median run (full corpus)", None, float(np.median(ap5.mean(axis=1))), None,
                   reason=f"{EXACT}; {CONTEXT}",
                   note=f"not printed in the paper; the TREC-6 AP matrix of its 74 runs gives {np.median(trec6.mean()):.3f}"),
        book.rate("share of lists with AP = 0", None, float(np.mean(ap5[rs5.lengths > 0] == 0)), None,
                  reason=f"{EXACT}; {CONTEXT}",
                  note=f"not printed in the paper; the TREC-6 AP matrix gives {np.mean(trec6.scores == 0):.3f}"),
    ]  # fmt: skip


def trec6_r_rows(P: Mapping, R6) -> list[dict]:
    """TREC-6's R from the Robust 2004 qrels against what the paper says of TREC-6."""
    R6 = np.asarray(R6)
    why = "counted exactly from the Robust 2004 qrels, no random step"
    return [
        book.count("TREC-6 topics with R <= 5", P["data.r5-full"], int((R6 <= 5).sum()), reason=why,
                   note="Robust 2004 qrels, topics 301-350"),
        *[book.count(f"TREC-6 topics with R = {r}", P[f"data.r-eq-{r}"], int((R6 == r).sum()), reason=why,
                     note="the Robust 2004 qrels lack the Congressional Record documents") for r in (3, 4, 5)],
        book.count("TREC-6 topics with R <= 2", P["data.r2-full"], int((R6 <= 2).sum()), reason=why),
    ]  # fmt: skip


def table1_rows(P: Mapping, val: SplitValidation) -> list[dict]:
    """Table 1 (all lists; topics with R_A > 5) of a split validation, the paper's beside ours."""
    rows = []
    for sub, min_rel, n_paper in (("all", 0, P["data.lists"].value), ("r5", SMALL_R, P["table1.r5.n"].value)):
        n = int(val.lists_mask("A", min_rel).sum())
        for meth in ("linear", "logit", "bca"):
            pv = P[f"table1.{sub}.{meth}"]
            extra = (
                f"; paper row sums to {sum(map(float, pv.value.split(' / '))):.1f}"
                if (sub, meth) == ("all", "linear")
                else ""
            )
            rows.append(list_share_row(f"{meth}, {'all lists' if sub == 'all' else 'R_A > 5'} (below / in / above %)", pv,
                                       val, "A", meth, min_rel=min_rel, paper_n=int(n_paper),
                                       note=f"n = {n_paper} (paper), {n} (ours)" + extra))  # fmt: skip
    return rows


def model_row(P: Mapping) -> dict:
    """The model's prediction, computed, against the paper's rounding."""
    below, inside, above = predicted_in_interval()
    model = P["table1.model"].value.split(" / ")
    return book.rate("model prediction", P["table1.model"], f"{100 * below:.2f} / {100 * inside:.2f} / {100 * above:.2f}",
                     None, reason="computed exactly: P(|Z| <= 1.96 / sqrt 2) from scipy's normal distribution",
                     note=f"computed; the paper rounds {model[0]} = (100 - {model[1]}) / 2")  # fmt: skip


def table2_rows(P: Mapping, val: SplitValidation) -> list[dict]:
    """Table 2 (small-R corrected, both directions) and the above / below ratio of the misses."""
    rows = []
    for src in "AB":
        for meth in ("linear", "logit"):
            m = meth + "+smallR"
            fixed = int((val.intervals[(src, m)].width != val.intervals[(src, meth)].width)[val.usable].sum())
            rows.append(list_share_row(f"{meth}, AP_{val.other(src)} w.r.t. {src} (below / in / above %)",
                                       P[f"table2.{src}.{meth}"], val, src, m, paper_n=int(P["data.lists"].value),
                                       note=f"{fixed} lists corrected"))  # fmt: skip
    # above / below ratio of the misses from A: its error by the delta method on the two counts,
    # each clustered by topic (var(log ratio) = (se_up / up)^2 + (se_down / down)^2, no credit for their correlation)
    topics = list_topics(val.usable)
    ratio, ratio_se, counts = [], [], []
    for m in ("linear+smallR", "logit+smallR"):
        x = val.normalized_difference("A", m)
        up, down = (x > 1).astype(float), (x < -1).astype(float)
        n_up, n_down = up.sum(), down.sum()
        r = float(n_up / max(n_down, 1))
        se_up, se_down = (float(clustered_se(v, topics)) * len(x) for v in (up, down))
        ratio.append(r)
        ratio_se.append(r * float(np.sqrt((se_up / max(n_up, 1)) ** 2 + (se_down / max(n_down, 1)) ** 2)))
        counts.append(f"{m.split('+')[0]}: {int(n_up)} above, {int(n_down)} below")
    err = book.errors(sampling=ratio_se, unit=_TOPIC, mc=0.0,
                      reason="Monte Carlo error not estimated for the ratio (the counts' bootstrap noise is in the shares above)")  # fmt: skip
    rows.append(book.score("above / below ratio of misses, linear / logit (from A)", P["table2.skew"],
                           " / ".join(f"{r:.2f}" for r in ratio), err, note="; ".join(counts)))  # fmt: skip
    return rows


def map_rows(P: Mapping, val: SplitValidation, kind: str, *, n_boot: int = 200, seed=0) -> list[dict]:
    """Table 3 (``kind="bootstrap"``) or 4 (``"parametric"``): shares of runs, both directions."""
    table = {"bootstrap": "table3", "parametric": "table4"}[kind]
    runs = int(P["map.runs"].value)
    return [map_share_row(f"{meas}, {val.other(src)} w.r.t. {src} (below / in / above %)", P[f"{table}.{src}.{meas}"],
                          val, src, kind, meas, paper_runs=runs, n_boot=n_boot, seed=seed,
                          note=f"{len(val.runs)} runs (paper: {runs})")
            for meas in ("MAP", "L-MAP") for src in "AB"]  # fmt: skip


def _one_part(row: dict, i: int, quantity: str, paper, suffix: str, note: str) -> dict:
    """Part ``i`` of a below / in / above row as a row of its own."""
    out = {k: _pick(v, i) for k, v in row.items() if k in ("se_sampling", "se_mc", "paper_se", "nominal")}
    ours = f"{row['ours'].split(' / ')[i]} ({suffix})"
    return {**row, **out, "quantity": quantity, "paper": paper, "ours": ours, "note": note}


def _joined(rows: Sequence[dict], quantity: str, paper, suffix: str, note: str = "") -> dict:
    """The in-interval parts of several below / in / above rows as one row of several numbers."""
    parts = [_one_part(r, 1, quantity, None, suffix, "") for r in rows]
    out = dict(parts[0])
    for key in ("se_sampling", "se_mc", "paper_se", "nominal"):
        if key in out:
            out[key] = tuple(float(p[key]) for p in parts)
    out["ours"] = " / ".join(p["ours"].split(" (")[0] for p in parts) + f" ({suffix})"
    return {**out, "paper": paper, "note": note}


def second_corpus_rows(
    P: Mapping, val1: SplitValidation, round5_in: Mapping, *, n_boot: int = 200, seed=0
) -> list[dict]:
    """The in-interval shares of round 1 against the paper's (round 5's in the notes)."""
    n_lists = int(P["data.lists"].value)
    rows = []
    for meth in ("linear", "logit", "bca"):
        r = list_share_row("", P[f"table1.all.{meth}"], val1, "A", meth, paper_n=n_lists)
        rows.append(_one_part(r, 1, f"Table 1, {meth}: in-interval %, A to B", P[f"table1.all.{meth}"].part(1, "in (%)"),
                              "round 1", f"round 5: {round5_in[meth]:.1f} (Table 1)"))  # fmt: skip
    for meth in ("linear", "logit"):
        rs = [list_share_row("", None, val1, s, meth + "+smallR", paper_n=n_lists) for s in "AB"]
        paper = book.PaperValue.join([P[f"table2.{s}.{meth}"].part(1, "in (%)") for s in "AB"])
        rows.append(_joined(rs, f"Table 2, {meth}: in-interval %, A to B / B to A", paper, "round 1"))
    runs = int(P["map.runs"].value)
    for kind, table in (("bootstrap", "table3"), ("parametric", "table4")):
        for meas in ("MAP", "L-MAP"):
            rs = [
                map_share_row("", None, val1, s, kind, meas, paper_runs=runs, n_boot=n_boot, seed=seed)
                for s in "AB"
            ]
            paper = book.PaperValue.join([P[f"{table}.{s}.{meas}"].part(1, "in (%)") for s in "AB"])
            rows.append(_joined(rs, f"{meas} {kind}: in-interval %, A to B / B to A", paper, "round 1",
                                note=f"{len(val1.runs)} runs"))  # fmt: skip
    return rows


def width_rows(P: Mapping, full, half, B: int) -> list[dict]:
    """Figure 4: the median widths of the full-corpus MAP and L-MAP intervals (and half A's)."""
    lmap = full.maps[("bootstrap", "L-MAP")]
    widths = {
        "median width, MAP parametric interval (full corpus)":
            (full.maps[("parametric", "MAP")].width, P["fig4.width"], f"paper: 'typically about {P['fig4.width'].value}'"),
        "median width, L-MAP bootstrap interval (full corpus, on the MAP scale)":
            (stats.expit(lmap.upper) - stats.expit(lmap.lower), P["fig4.width"], "expit(upper) - expit(lower)"),
        "median width, MAP parametric interval (half A)":
            (half.maps[("A", "parametric", "MAP")].width, None, f"wider than the full corpus, as expected; {CONTEXT}"),
    }  # fmt: skip
    reason = (f"sampling: the median's error over the runs (bootstrap of the runs); Monte Carlo: a bootstrap sd "
              f"from B = {B} has relative error 1/sqrt(2(B - 1)), taken whole for the median")  # fmt: skip
    rows = []
    for quantity, (w, paper, note) in widths.items():
        med = float(np.nanmedian(w))
        err = book.errors(sampling=_median_se(w), unit="run", mc=med / np.sqrt(2 * (B - 1)), replicates=B)
        rows.append(book.score(quantity, paper, med, err, note=note, reason=reason))
    return rows


def _median_se(w, n_boot: int = 500, seed: int = 0) -> float:
    """The sd of the median of ``w`` over resamples of its values."""
    w = np.asarray(w, dtype=float)
    w = w[np.isfinite(w)]
    rng = np.random.default_rng(seed)
    return float(np.std(np.median(w[rng.integers(0, len(w), (n_boot, len(w)))], axis=1), ddof=1))


def section9_rows(P: Mapping, diff, fixed, dl, B: int) -> list[dict]:
    """Section 9 on one pair: difference intervals, meta-analyses, paired against separate sd."""
    z = stats.Z95
    ctx = f"an interval from the bootstrap (B = {B}); {CONTEXT}"
    n = int(diff.usable.sum())
    sig = {
        f"{kind} {name}": int(np.sum(np.abs(diff.d[sc]) > z * sd[sc]))
        for kind, sd in (("separate", diff.sd_separate), ("paired", diff.sd_paired))
        for name, sc in (("AP", "AP"), ("logit", "logit AP"))
    }
    iv = {
        m: f"{diff.mean_d[m]:+.4f} [{diff.mean_d[m] - z * diff.mean_sd_paired[m]:+.4f}, {diff.mean_d[m] + z * diff.mean_sd_paired[m]:+.4f}]"
        for m in ("MAP", "L-MAP")
    }
    ratio = diff.sd_paired["logit AP"] / diff.sd_separate["logit AP"]
    med = float(np.nanmedian(ratio))
    topics = np.arange(len(ratio))[np.isfinite(ratio)]
    err = book.errors(sampling=_median_se(ratio), unit=_TOPIC, mc=med / np.sqrt(B - 1), replicates=B)
    return [
        book.score("MAP difference, paired-bootstrap 95% interval", None, iv["MAP"], None, reason=ctx, note="corpus variation only"),
        book.score("L-MAP difference, paired-bootstrap 95% interval", None, iv["L-MAP"], None, reason=ctx),
        book.count("topics where 0 is outside the interval: AP separate / paired", None,
                   f"{sig['separate AP']} / {sig['paired AP']} of {n}", reason=ctx, note="paired accounts for the shared corpus"),
        book.count("topics where 0 is outside the interval: logit separate / paired", None,
                   f"{sig['separate logit']} / {sig['paired logit']} of {n}", reason=ctx),
        book.score("median sd ratio paired / separate (logit)", P["sec9.paired"], med, err,
                   reason=f"sampling: the median's spread over resampled topics ({len(topics)}); Monte Carlo: each "
                   f"bootstrap sd from B = {B} has relative error about 1/sqrt(2(B - 1)), a ratio of two about 1/sqrt(B - 1)"),
        book.score("fixed-effect logit difference [95% CI], one-sided p", None,
                   f"{fixed.effect:+.3f} [{fixed.lower:+.3f}, {fixed.upper:+.3f}], p = {fixed.p_one_sided:.2g}", None,
                   reason=ctx, note=f"k = {fixed.k} topics, Q = {fixed.q:.1f}"),
        book.score("DerSimonian-Laird (beyond the paper) [95% CI]", None,
                   f"{dl.effect:+.3f} [{dl.lower:+.3f}, {dl.upper:+.3f}], tau^2 = {dl.tau2:.2g}", None, reason=ctx,
                   note="random effects"),
    ]  # fmt: skip


def meta_analysis_row(P: Mapping, fixed, dl, pair: str) -> dict:
    """The paper's meta-analysis argument as a claim."""
    p = float(scipy.stats.chi2.sf(fixed.q, fixed.k - 1))
    holds = p >= 0.05
    return book.claim(
        "per-topic corpus intervals combine by fixed-effect meta-analysis (one effect for all topics: Cochran's Q "
        "within chance, chi-square on k - 1 df)",
        P["claim.meta-fixed"], ours=f"Q = {fixed.q:.1f} on {fixed.k - 1} df, p = {p:.2g}",
        status=verdict(holds),
        supports=[f"Cochran's Q of the section-9 pair {pair} (Section 9 table)"],
        reason=("the topics' logit differences agree within their corpus errors"
                if holds else f"the topics disagree far beyond their corpus errors (tau^2 = {dl.tau2:.2g}): the "
                f"fixed-effect interval [{fixed.lower:+.3f}, {fixed.upper:+.3f}] is narrower than the random-effects "
                f"one [{dl.lower:+.3f}, {dl.upper:+.3f}], which the paper names for heterogeneous topics"),
        note="Q's p-value from the chi-square law of Q under the fixed-effect model",
    )  # fmt: skip


# --- the paper's claims as numbers ---------------------------------------------------------------


def claim_rows(P: Mapping, val: SplitValidation, *, n_boot: int = 200, seed=0) -> list[dict]:
    """The paper's claims on AP and MAP intervals, each a number of a split validation with its errors."""
    methods = ("linear+smallR", "logit+smallR")
    model_in = 100 * predicted_in_interval()[1]
    topics = list_topics(val.usable)
    pos = {(s, m): val.positions(s, m)[val.usable] for s in "AB" for m in methods}
    ins = np.stack([(pos[s, m] == 0).astype(float) for s in "AB" for m in methods])
    mc = [bootstrap_mc_se(val.normalized_difference(s, m), m, val.B) for s in "AB" for m in methods]
    err_in = book.errors(
        values=100 * ins,
        clusters=topics,
        unit=_TOPIC,
        mc=[x[1] for x in mc],
        replicates=val.B,
        reason=NO_EDGE,
    )

    # |above - below| of linear minus that of logit, mean of both directions: per list with the signs fixed
    signs = {k: np.sign(np.mean(np.sign(v))) or 1.0 for k, v in pos.items()}
    per_list = np.mean(
        [signs[s, "linear+smallR"] * pos[s, "linear+smallR"] - signs[s, "logit+smallR"] * pos[s, "logit+smallR"]
         for s in "AB"], axis=0
    )  # fmt: skip
    gap = {m: np.mean([100 * abs(np.mean(np.sign(pos[s, m]))) for s in "AB"]) for m in methods}
    bias = gap["linear+smallR"] - gap["logit+smallR"]
    mc_bias = float(np.sqrt(np.mean([x[0] ** 2 * 2 for x in mc])))
    err_bias = book.errors(
        values=100 * per_list, clusters=topics, unit=_TOPIC, mc=mc_bias, replicates=val.B, reason=NO_EDGE
    )

    small = ((val.ap["A"] == 0) | (val.ap["A"] == 1) | (val.n_rel["A"] <= SMALL_R)[None, :])[val.usable]
    out = np.abs(val.normalized_difference("A", "bca")) > OUTLIER
    n_out = int(out.sum())
    p_small = float(np.mean(small[out])) if n_out else 0.0
    out_log = np.abs(val.normalized_difference("A", "logit+smallR")) > OUTLIER
    ap_a = val.ap["A"][val.usable]
    other = (out_log & (ap_a != 0)).astype(float)
    not0 = int(other.sum())
    if n_out:
        r_out = book.share(
            "", P["claim.outliers"], small[out], clusters=topics[out], unit=_TOPIC, reason="no random step"
        )
        se_out = r_out["se_sampling"]
    else:
        se_out = 0.0
    se_not0 = float(clustered_se(other, topics)) * len(other)

    # MAP and L-MAP in-interval shares: distances to the model's share, over resampled topics
    keys = [(k, m) for k in ("bootstrap", "parametric") for m in ("MAP", "L-MAP")]
    boots = {
        (k, m): np.mean(
            [map_shares_by_topic(val, s, k, m, n_boot=n_boot, seed=seed)[:, 1] for s in "AB"], axis=0
        )
        for k, m in keys
    }
    mi = {
        (k, m): float(np.mean([_side_shares(map_positions(val, s, k, m))[1] for s in "AB"])) for k, m in keys
    }
    mc_map = {
        (k, m): float(np.sqrt(np.mean([_map_mc_se(val, s, k, m)[1] ** 2 for s in "AB"]))) for k, m in keys
    }
    paper_in = {
        (k, m): float(np.mean([float(P[f"{t}.{s}.{m}"].part(1).value) for s in "AB"]))
        for k, t in (("bootstrap", "table3"), ("parametric", "table4"))
        for m in ("MAP", "L-MAP")
    }

    def order(key, quantity, better, worse):
        d = abs(mi[worse] - model_in) - abs(mi[better] - model_in)
        dist = np.abs(boots[worse] - model_in) - np.abs(boots[better] - model_in)
        mc_both = float(np.hypot(mc_map[better], mc_map[worse]))
        err = book.errors(
            sampling=float(np.std(dist, ddof=1)), unit=_TOPIC, mc=mc_both, replicates=val.B, reason=NO_EDGE
        )
        side = (
            "closer to the model's share, in the paper's order"
            if d > 0
            else "farther from the model's share, the reverse of the paper's order"
        )
        return book.ordering(
            quantity,
            P[key],
            float(d),
            err,
            reason=f"sampling: sd over {n_boot} resamples of the topics; Monte Carlo of both shares, no credit for their correlation",
            note=f"in-interval: {better[0]} {better[1]} {mi[better]:.1f}%, {worse[0]} {worse[1]} {mi[worse]:.1f}% "
            f"(model {model_in:.1f}%; paper {paper_in[better]:.1f}% and {paper_in[worse]:.1f}%); "
            f"our point estimates put the {better[0]} {better[1]} interval {side}",
        )

    return [
        book.rate("in-interval share of the small-R corrected intervals is the model's (linear A to B / logit A to B / linear B to A / logit B to A, %)",
                  P["claim.prediction"], " / ".join(f"{100 * v:.1f}" for v in ins.mean(axis=1)), err_in,
                  nominal=predicted_in_interval()[1],
                  note=f"the model's {model_in:.2f}%; Table 2 above compares the same shares with the paper's"),
        book.ordering("logit intervals are less biased than linear ones (|above - below|, linear minus logit, points)",
                      P["claim.bias"], float(bias), err_bias,
                      note=f"|above - below|, mean of both directions: linear {gap['linear+smallR']:.1f}, logit {gap['logit+smallR']:.1f} points"),
        book.rate("most outliers come from small R or AP_A = 0 / 1 (% of the BCa outliers)", P["claim.outliers"], 100 * p_small,
                  book.errors(sampling=se_out, unit=_TOPIC, reason="no random step counted: the outliers lie far from the edges"),
                  note=f"{n_out} lists beyond {OUTLIER} BCa half-widths from A (the model: probability "
                       f"{2 * scipy.stats.norm.sf(OUTLIER * stats.Z95 / np.sqrt(2)):.1g} each); lists with R_A <= 5 or AP_A = 0 / 1 "
                       f"are {100 * small.mean():.2f}% of all lists"),
        book.count("all logit outliers have AP_A = 0 (outliers with AP_A other than 0)", P["claim.logit-outliers"], not0,
                   book.errors(sampling=se_not0, unit=_TOPIC, reason="no random step counted: the outliers lie far from the edges"),
                   note=f"{int(out_log.sum())} lists beyond {OUTLIER} small-R corrected logit half-widths from A, "
                        f"{int(np.sum(out_log & (ap_a == 0)))} of them with AP_A = 0"
                        + (f"; the others have AP_A of at most {ap_a[out_log & (ap_a != 0)].max():.3f}" if not0 else "")),
        order("claim.map-lmap", "MAP bootstrap intervals are worse than L-MAP ones (distance to the model's share, MAP minus L-MAP, points)",
              ("bootstrap", "L-MAP"), ("bootstrap", "MAP")),
        order("claim.map-parametric", "parametric MAP intervals are better than bootstrap ones (Table 4 vs Table 3; distance to the model's share, bootstrap minus parametric, points)",
              ("parametric", "MAP"), ("bootstrap", "MAP")),
        order("claim.lmap-parametric", "parametric L-MAP intervals are worse than bootstrap ones (Table 4 vs Table 3; distance to the model's share, parametric minus bootstrap, points)",
              ("bootstrap", "L-MAP"), ("parametric", "L-MAP")),
    ]  # fmt: skip


# --- several thinning seeds ---------------------------------------------------------------------


def pooled(rows_by_seed: Sequence[Sequence[Mapping]], label: str = "thinning seeds") -> list[dict]:
    """Each row's mean over the seeds of an emulation of the data (the qrels thinned at random)."""
    k, out = len(rows_by_seed), []
    for rows in zip(*rows_by_seed):
        vals = np.array([_parts(r["ours"]) for r in rows])
        n = vals.shape[1]
        mean, sd = vals.mean(axis=0), vals.std(axis=0, ddof=1)
        own = np.array([_vec(r.get("se_sampling"), n) for r in rows])
        rms = np.sqrt(np.mean(own**2, axis=0))
        r = dict(rows[0])
        text = str(rows[0]["ours"]).split(" (")[0]
        dec = max(1, len(text.split(" / ")[0].split(".")[1]) if "." in text else 1)
        r["ours"] = " / ".join(f"{m:.{dec}f}" for m in mean) if n > 1 else round(float(mean[0]), dec + 1)
        r["se_sampling"] = _one(np.maximum(rms, sd))
        r["se_mc"] = _one(sd / np.sqrt(k))  # 0 where every seed gives the same number
        r["replicates"] = k
        if "paper_se" in rows[0]:
            r["paper_se"] = _one(np.sqrt(np.mean([_vec(x["paper_se"], n) ** 2 for x in rows], axis=0)))
        ratio = "/".join(f"{s / q:.2f}" if q > 0 else "-" for s, q in zip(sd, rms))
        r["se_reason"] = (f"mean of {k} {label}: sampling, the larger of the seeds' own errors by {r.get('unit') or 'topic'} "
                          f"(root mean square) and their sd; Monte Carlo, sd over the seeds / sqrt({k})"
                          + (f"; a seed's spread is {ratio} x its sampling error" if rms.max() > 0 else ""))  # fmt: skip
        out.append(r)
    return out


def cell_moves(as_is, rerun, condition: str) -> pd.DataFrame:
    """Per share of each row of ``as_is`` and its ``rerun``."""
    rank = {book.REPLICATED: 2, book.PARTLY: 1, book.INCONCLUSIVE: 1, book.NOT_REPLICATED: 0}
    out = []
    base = as_is.frame.set_index("quantity")
    for _, e in rerun.frame.iterrows():
        a = base.loc[e["quantity"]]
        for i, share in enumerate(SIDES):
            pv = str(e["paper"]).split(" / ")[i]
            st, dist = [], []
            for r in (a, e):
                v = _parts(r["ours"])[i]
                st.append(judge(pv, v, kind="rate", se_sampling=_pick(r["se_sampling"], i), se_mc=_pick(r["se_mc"], i),
                                     paper_se=_pick(r.get("paper_se"), i), nominal=_pick(r.get("nominal"), i),
                                     se_reason=str(r.get("se_reason") or "")).status)  # fmt: skip
                dist.append(abs(v - float(pv)))
            d = rank[st[1]] - rank[st[0]]
            out.append({"row": e["quantity"].split(" (")[0], "share": share, "paper": pv,
                        "ours, as is": f"{_parts(a['ours'])[i]:.1f}", "as is": st[0], "distance, as is": round(dist[0], 1),
                        f"ours, {condition}": f"{_parts(e['ours'])[i]:.1f}", condition: st[1],
                        f"distance, {condition}": round(dist[1], 1),
                        "move": "toward the paper" if d > 0 else "away from the paper" if d < 0 else "unchanged"})  # fmt: skip
    return pd.DataFrame(out)


def seed_table(vals: Mapping) -> pd.DataFrame:
    """One line per thinning seed: its small-R topics and in-interval shares."""
    rows = []
    for seed, v in vals.items():
        t = {s: v.table(s, ["linear+smallR", "logit+smallR"]).set_index("method")["in"] for s in "AB"}
        rows.append({"seed": seed, "B": v.B, "R <= 5, halves A / B": f"{(v.n_rel['A'] <= 5).sum()} / {(v.n_rel['B'] <= 5).sum()}",
                     "logit+smallR in %, A / B": f"{t['A']['logit+smallR']:.1f} / {t['B']['logit+smallR']:.1f}",
                     "linear+smallR in %, A / B": f"{t['A']['linear+smallR']:.1f} / {t['B']['linear+smallR']:.1f}",
                     **{f"{m} {k} in % (mean)": v.mean_in(k, m) for k in ("bootstrap", "parametric") for m in ("MAP", "L-MAP")}})  # fmt: skip
    return pd.DataFrame(rows)


def rerun(paper: str, as_is, item: str, rows_by_seed: Sequence[Sequence[Mapping]], *, condition: str, label: str,
          data: str, page: str = ""):  # fmt: skip
    """The rows of ``as_is`` rerun once per seed of an emulation of the data, judged as their mean."""
    notes = spread_notes(rows_by_seed, label)
    rows = [
        {**r, "note": "; ".join(x for x in (r.get("note", ""), n) if x)}
        for r, n in zip(pooled(rows_by_seed), notes)
    ]
    return book.compare(
        paper, f"{item} under {condition}", rows, emulates=as_is, condition=condition, data=data, page=page
    )
