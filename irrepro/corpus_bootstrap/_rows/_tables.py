"""The rows of the chapter's data section and of the paper's Tables 1-4 and its second corpus."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ... import _lazy
from ...stats import clustered_se
from ..validation import SplitValidation, predicted_in_interval
from ._shares import _TOPIC, CONTEXT, EXACT, SMALL_R, _pick, list_share_row, list_topics, map_share_row

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


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
