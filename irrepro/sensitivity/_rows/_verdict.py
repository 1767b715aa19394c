"""The Sakai (2006) chapter's claims as rows, the rows beyond the paper and its reruns under emulated
conditions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ... import _lazy
from ..._rule import combine, spread_notes
from ...stats import adjust_pvalues
from ._study import PAPER, TOP, Round, _names, _t2
from ._tables import _P, _names_of, stability_order

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


def agree_row(st: Mapping[str, Round]) -> dict:
    """Sakai's 'bootstrap, stability and swap methods agree' on round 5, as a claim's rows."""
    P = _P()
    r = st["round 5"]
    boot = [m.replace("AG_", "G_") for m in _names(r)]
    others = {
        "stability": list(stability_order(r.study)[1]["measure"]),
        "swap": list(r.study.table3()["measure"]),
    }
    groups = {"top three": slice(0, 3), "middle three": slice(3, 6), "last": slice(6, 7)}
    sub = {(o, g): book.ordering_status(order[sl], ", ".join(boot[sl]), supports="the paired test's ranking")["status"]
           for o, order in others.items() for g, sl in groups.items()}  # fmt: skip
    return book.claim(
        "bootstrap, stability and swap methods agree", P["claim.methods-agree"],
        ours="; ".join(f"{o} {g}: {w}" for (o, g), w in sub.items()), status=combine(list(sub.values())),
        supports="the rankings of round 5 by the paired test (Table 2 (a)), the stability method (Figure 10) and the swap method (Table 3 (a))",
        note="each group of the stability and swap rankings against the same group of the paired test's",
        data="TREC-COVID round 5",
    )  # fmt: skip


def agree_rows(st: Mapping[str, Round]) -> list[dict]:
    """:func:`agree_row` as a list of rows (for :func:`rerun`)."""
    return [agree_row(st)]


def _scope(refs: Sequence, comps: Sequence) -> str:
    """The data a claim was judged on: the round its rows name, else their comparison's rounds."""
    data = {c.item: c.data for c in comps}
    rounds: list[str] = []
    for ref in refs:
        q, where = ref.quantity, data.get(ref.item, "")
        named = [w for w, lab in (("5", "(a)"), ("1", "(b)")) if lab in q]
        if not named:
            named = [w for w in ("5", "1") if any(f"{k} {w}" in where for k in ("round", "rounds", "and"))]
        rounds += [w for w in named if w not in rounds]
    if not rounds:
        return ""
    return "TREC-COVID " + ("rounds " + " and ".join(rounds) if len(rounds) > 1 else f"round {rounds[0]}")


def verdict_rows(fig78, table2, table3, fig1213, st: Mapping[str, Round]) -> list[dict]:
    """The Verdict table's rows: each claim of the paper with the rows and data that judge it."""
    P = _P()

    def refs(comp, pred):
        return [comp.row(q) for q in comp.frame["quantity"] if pred(q)]

    def sensitivity_ours() -> str:
        rev = table2.frame.set_index("quantity")
        bits = []
        for lab, name in (("(a)", "round 5"), ("(b)", "round 1")):
            q = f"{lab} discriminative power, PDoc@1000 minus AP (points)"
            if q in rev.index:
                bits.append(f"{name}: {rev.loc[q, 'note'].split(': ', 1)[1]}")
        return "; ".join(bits)

    comps = (fig78, table2, table3, fig1213)
    top_refs = refs(
        table2,
        lambda q: q.endswith(("most sensitive three", "least sensitive", "PDoc@1000 minus AP (points)")),
    )
    paired_refs = refs(fig78, lambda q: q.startswith("paired minus unpaired"))
    swap_refs = refs(table3, lambda q: "minus swap" in q)
    geo_refs = refs(fig78, lambda q: q.startswith("rank of AG_"))
    tau_ref, ratio_ref = fig1213.row("smallest tau"), fig1213.row("median tau / se")
    comparable = table2.row("unpaired required differences comparable to the paired ones")
    on = _scope(paired_refs, comps)
    return [
        {"quantity": "Q, nDCG@1000 and AP are the most sensitive measures, PDoc@1000 the least", "paper": P["claim.top3"],
         "same_as": top_refs, "ours": sensitivity_ours(), "data": _scope(top_refs, comps)},
        {"quantity": "the paired test is more powerful than the unpaired", "paper": P["claim.paired"],
         "same_as": paired_refs, "data": on},
        book.claim("recommended: the paired test wherever it applies", P["claim.prefer-paired"],
                   ours=f"on our data ({on})", supports=paired_refs,
                   note=f"the paper's reason is the power of Figure 8; the rows it rests on are {on}'s", data=on),
        agree_row(st),
        {"quantity": "swap-based differences are smaller than ASL-based ones", "paper": P["claim.swap-smaller"],
         "same_as": swap_refs, "data": _scope(swap_refs, comps)},
        {"quantity": "AG_ forms in the paired test agree with G_ in the unpaired test", "paper": P["claim.geometric"],
         "same_as": geo_refs, "data": _scope(geo_refs, comps)},
        {"quantity": f"all rank correlations between the measures exceed {P['fig12.min-tau'].value.removeprefix('> ')}",
         "paper": P["claim.tau"], "same_as": tau_ref, "data": _scope([tau_ref], comps)},
        {"quantity": "rank correlations are accurate (se about tau / 10)", "paper": P["claim.tau-accurate"],
         "same_as": ratio_ref, "data": _scope([ratio_ref], comps)},
        {"quantity": "unpaired required differences comparable to the paired ones", "paper": P["table2.unpaired-comparable"],
         "same_as": comparable, "data": _scope([comparable], comps)},
    ]  # fmt: skip


def holm_rows(test, resolved: tuple, *, alpha: float = 0.05) -> list[dict]:
    """Pairs significant before and after Holm and BH (beyond the paper); unresolved when B is short."""
    p, B = resolved
    m = len(p)
    from ...stats import corrected_resamples

    need = corrected_resamples(m, alpha, "holm", default=1)
    raw = int((np.asarray(test.p) < alpha).sum())
    rows = [book.count(f"pairs with raw ASL < {alpha:g}", None, f"{raw} of {m}", None,
                       reason="beyond the paper", note=f"B = {int(test.B):,}")]  # fmt: skip
    for method, name in (("holm", "Holm"), ("fdr_bh", "Benjamini-Hochberg")):
        k = int((adjust_pvalues(p, method) < alpha).sum())
        ok = B >= need
        rows.append(book.count(
            f"pairs significant after {name}", None, f"{k} of {m}" if ok else f"{k} of {m}, unresolved", None,
            reason="beyond the paper",
            note=f"B = {B:,} " + (f">= 20 m / alpha = {need:,}" if ok else
                                  f"< 20 m / alpha = {need:,}: the smallest thresholds are not resolved, the count is not final")))  # fmt: skip
    return rows


def web_rows(web_power: pd.DataFrame, web_reps: Sequence[pd.DataFrame], *, top: int = TOP) -> list[dict]:
    """The TREC Web cross-check: how often AP leads, is top three, RR trails, with Monte Carlo errors."""
    years = [c for c in web_reps[0].columns if c != "mean rank"]

    def counts(w):
        rk = w[years].rank(ascending=False)
        return np.array(
            [(rk.loc["AP"] == 1).sum(), (rk.loc["AP"] <= top).sum(), (rk.loc["RR"] == len(w)).sum()]
        )

    c = counts(web_power)
    err = book.errors(
        sampling=0.0, mc=np.array([counts(w) for w in web_reps], dtype=float).std(axis=0, ddof=1),
        replicates=len(web_reps), unit="year",
        reason=f"no sampling error: counts of the years themselves; Monte Carlo: sd over {len(web_reps)} bootstrap seeds",
    )  # fmt: skip
    n = len(years)
    beyond = "beyond the paper"
    return [
        book.count("years where AP is the most sensitive", None, f"{c[0]} of {n}", _part(err, 0), reason=beyond,
                   note=f"mean rank {web_power['mean rank'].to_numpy(float)[list(web_power.index).index('AP')]:.1f}"),
        book.count("years where AP is among the three most sensitive", None, f"{c[1]} of {n}", _part(err, 1),
                   reason=beyond, note=""),
        book.count("years where RR is the least sensitive", None, f"{c[2]} of {n}", _part(err, 2), reason=beyond,
                   note="a one-document measure"),
        {"quantity": "ordering by mean rank", "paper": None, "ours": ", ".join(web_power.sort_values("mean rank").index),
         "kind": "claim", "note": "", "reason": beyond},
    ]  # fmt: skip


def _part(err, i: int):
    mc = err.mc[i] if isinstance(err.mc, tuple) else err.mc
    return book.Errors(0.0, float(mc), err.unit, err.replicates, err.reason)


def mc_table(r: Round, which: str, cols: Sequence[str]) -> pd.DataFrame:
    """A results table of the round, each of ``cols`` as 'value (±se)' over the seeds, ranked from 1."""

    def of(s):
        return s.table3() if which == "table3" else _t2(r, s, which)

    table = of(r.study)
    out = table.copy()
    for c in cols:
        reps = [of(x).set_index("measure")[c].reindex(table["measure"]).to_numpy(float) for x in r.replicates]
        se = np.array(reps).std(axis=0, ddof=1)
        out[c] = [book.with_error(float(v), e) for v, e in zip(table[c], se)]
    return out.set_index(out.index + 1).rename_axis("rank")


def ranks(st: Mapping[str, Round]) -> dict[str, str]:
    """Each measure's rank on round 5 by the paired test, stability and swap method, as 'p / s / w'."""
    r = st["round 5"]
    orders = [[m.replace("AG_", "G_") for m in _names(r)], list(stability_order(r.study)[1]["measure"]),
              list(r.study.table3()["measure"])]  # fmt: skip
    return {m: " / ".join(str(o.index(m) + 1) for o in orders) for m in _names_of(r)}


def rank_range(by_seed: Mapping, method: str = "paired") -> dict[str, str]:
    """Per measure, the range of its round-5 rank by ``method`` over the run sets of ``by_seed``."""

    def order(r):
        return _names(r) if method == "paired" else list(r.study.table3()["measure"])

    rk = [
        {m.replace("AG_", "G_"): i + 1 for i, m in enumerate(order(st["round 5"]))} for st in by_seed.values()
    ]
    return {m: "-".join(dict.fromkeys(str(f(x[m] for x in rk)) for f in (min, max))) for m in rk[0]}


#: Rows that depend on the number of runs only: not rerun under an emulated condition.
NOT_RERUN = frozenset({"tau significant at 0.01 (Z0), 30 runs, above"})


def rerun(as_is, rows_of: Callable, st: Mapping[str, Round], cond: str, *, data: str, spread: Mapping | None = None,
          spread_label: str = "", page: str = ""):  # fmt: skip
    """The rows of ``as_is`` under an emulated condition, with the spread over emulations in the note."""
    restated = {q for q, m in zip(as_is.frame["quantity"], as_is.meta) if m.get("same_as")}

    def keep(rows):
        return [x for x in rows if x.get("paper") is not None and x["quantity"] not in NOT_RERUN | restated]

    rows = keep(rows_of(st))
    if spread:
        notes = spread_notes([keep(rows_of(v)) for v in spread.values()], spread_label)
        rows = [{**x, "note": "; ".join(y for y in (x.get("note", ""), n) if y)} for x, n in zip(rows, notes)]
    return book.compare(PAPER, f"{as_is.item} under {cond}", rows, emulates=as_is, condition=cond, data=data,
                        page=page)  # fmt: skip
