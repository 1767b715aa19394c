"""The paper's claims as numbers with their errors, section 9, and the rows of several thinning seeds pooled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.stats

from ... import _lazy, stats
from ..._rule import judge, spread_notes, verdict
from ...stats import clustered_se
from ..validation import SplitValidation, predicted_in_interval
from ._shares import (
    _TOPIC,
    CONTEXT,
    NO_EDGE,
    OUTLIER,
    SIDES,
    SMALL_R,
    _map_mc_se,
    _one,
    _parts,
    _pick,
    _vec,
    bootstrap_mc_se,
    list_topics,
    map_positions,
)

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


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
    rng = np.random.default_rng(seed)
    T = len(val.topics)
    boots: dict[tuple[str, str], list[float]] = {key: [] for key in keys}
    for _ in range(n_boot):
        idx = rng.integers(0, T, T)
        for k, m in keys:
            boots[k, m].append(np.mean([100 * np.mean(map_positions(val, s, k, m, idx) == 0) for s in "AB"]))
    mi = {
        (k, m): float(np.mean([100 * np.mean(map_positions(val, s, k, m) == 0) for s in "AB"]))
        for k, m in keys
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
        dist = np.abs(np.array(boots[worse]) - model_in) - np.abs(np.array(boots[better]) - model_in)
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
    from ..validation import mean_in_interval

    rows = []
    for seed, v in vals.items():
        t = {s: v.table(s, ["linear+smallR", "logit+smallR"]).set_index("method")["in"] for s in "AB"}
        rows.append({"seed": seed, "B": v.B, "R <= 5, halves A / B": f"{(v.n_rel['A'] <= 5).sum()} / {(v.n_rel['B'] <= 5).sum()}",
                     "logit+smallR in %, A / B": f"{t['A']['logit+smallR']:.1f} / {t['B']['logit+smallR']:.1f}",
                     "linear+smallR in %, A / B": f"{t['A']['linear+smallR']:.1f} / {t['B']['linear+smallR']:.1f}",
                     **{f"{m} {k} in % (mean)": mean_in_interval(v, k, m) for k in ("bootstrap", "parametric") for m in ("MAP", "L-MAP")}})  # fmt: skip
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
