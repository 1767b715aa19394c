"""The rows of the Sakai (2006) chapter's results tables and figures beside the paper's."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ... import _lazy
from ..._rule import combine, judge, verdict
from ..study import MeasureStudy, _geometric_consistent, _tau_threshold
from ._study import (
    _OTHER,
    MEASURES,
    PAPER,
    TOP,
    Round,
    _mc,
    _mc_reason,
    _names,
    _same_at,
    _sig,
    _t2,
    _table,
    pair_share_se,
    tau_se,
)

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

# --- the results tables ------------------------------------------------------------------------


def _P():
    return book.paper_numbers(PAPER)


def _top(r: Round, k: int = TOP, test: str = "bootstrap", tail: bool = False, s=None) -> list[str]:
    m = _table(r, test, s)["measure"]
    return list(m.tail(k) if tail else m.head(k))


def _parts(v, fmt: str = "{:.1f}") -> str:
    return " / ".join(fmt.format(x) for x in v)


def _names_of(r: Round) -> list[str]:
    return list(r.study.names)


def _ordering_row(quantity: str, paper, ours, supports: str, note: str = "", pairs: bool = False) -> dict:
    """A row naming measures (or pairs) as the paper does, its status by ``book.ordering_status``."""
    row = {"quantity": quantity, "paper": paper, "ours": ("; " if pairs else ", ").join(ours), "note": note}
    return row | book.ordering_status(ours, paper, _P().names, pairs=pairs, supports=supports)


def _power(s: MeasureStudy, names, test: str = "paired") -> np.ndarray:
    return np.array([100 * getattr(s, test)[n].discriminative_power() for n in names])


def fig78_rows(st: Mapping[str, Round]) -> list[dict]:
    """Figures 7 and 8 of round 5 (``st["round 5"]``), the paper's beside ours."""
    P = _P()
    r = st["round 5"]
    s, names = r.study, _names_of(r)
    tp, tu = _table(r), _table(r, "unpaired-bootstrap")
    ranking = "the paired test's ranking of round 5 by discriminative power (Table 2 (a))"
    gap = _power(s, names) - _power(s, names, "unpaired")
    per_pair = np.stack([_sig(s.paired[n]) - _sig(s.unpaired[n]) for n in names])
    gap_err = book.errors(
        sampling=100 * pair_share_se(per_pair), unit="system pair",
        mc=_mc(r, lambda x: _power(x, names) - _power(x, names, "unpaired")), replicates=r.B,
        reason="Monte Carlo 0 where every seed agrees",
    )  # fmt: skip
    pdoc = s.unpaired["PDoc@1000"]
    pdoc_row = book.share(
        "PDoc1000 pairs with unpaired ASL < 0.05", P["fig8.pdoc"], _sig(pdoc), unit="system pair",
        mc=float(_mc(r, lambda x: 100 * x.unpaired["PDoc@1000"].discriminative_power())), replicates=r.B,
        reason="Monte Carlo 0 where every seed agrees", note="the paper's 'outlier' curve",
    )  # fmt: skip

    def geo(m, g, key):
        side = _geometric_consistent(s, m)
        return book.claim(
            f"rank of AG_{g} (paired) / G_{g} (unpaired) among 7", P[f"fig78.ag-{key}"],
            ours=f"{list(tp['measure']).index('AG_' + m) + 1} / {list(tu['measure']).index('G_' + m) + 1}",
            note=f"the indirect and direct tests of G_{g}; same side " + _same_at(r, lambda x: _geometric_consistent(x, m)),
            status=verdict(side),
            supports=f"the discriminative power of {m}, AG_{m} (paired) and G_{m} (unpaired), Table 2 (a) and its unpaired table",
            reason=f"AG_{m} (paired) and G_{m} (unpaired) on the same side of {m}: " + ("yes" if side else "no"),
        )  # fmt: skip

    return [
        _ordering_row("most sensitive (paired)", P["fig7.top3"], _top(r), ranking,
               "top three of Figure 7; " + _same_at(r, lambda x: set(_top(r, s=x)))),
        _ordering_row("least sensitive (paired)", P["fig7.least"], _top(r, 1, tail=True), ranking,
               _same_at(r, lambda x: _top(r, 1, tail=True, s=x))),
        book.ordering(
            "paired minus unpaired discriminative power (points), " + " / ".join(names), P["fig8.less-power"],
            _parts(gap), gap_err, note=f"Figure 8 vs 7: less power unpaired for {int((gap > 0).sum())} of 7 measures"),
        pdoc_row,
        geo("AP", "AveP", "ap"),
        geo("Q", "Q", "q"),
    ]  # fmt: skip


def _required(r: Round, s: MeasureStudy, test: str = "bootstrap") -> pd.Series:
    return _t2(r, s, test).set_index("measure")["required difference"]


def _comparable(st: Mapping[str, Round]) -> tuple[str, str]:
    """Sakai's 'unpaired required differences comparable to paired' per measure and round, as rows."""
    sts, bits = [], []
    for name, r in st.items():
        bits.append(f"{name}:")
        for m in MEASURES:
            p_, u_ = _required(r, r.study)[m], _required(r, r.study, "unpaired-bootstrap")[m]
            se = float(
                np.hypot(
                    _mc(r, lambda x, r=r, m=m: _required(r, x)[m]),
                    _mc(r, lambda x, r=r, m=m: _required(r, x, "unpaired-bootstrap")[m]),
                )
            )
            j = judge(f"{p_:.2g}", float(u_), kind="score", se_mc=se, se_sampling=0.0,
                      se_reason="the paired value stands where the paper's would; " + _mc_reason(r))  # fmt: skip
            sts.append(j.status)
            bits.append(f"{m} {u_:.2g} vs {p_:.2g};")
    status = combine(sts)
    counts = ", ".join(f"{sts.count(x)} {x}" for x in book.STATUSES if x in sts)
    return status, "unpaired vs paired, " + " ".join(bits).rstrip(";") + f" ({counts} by the score margin)"


def _pdoc_minus_ap(r: Round, label: str, name: str) -> dict:
    """'AveP very sensitive, PDoc1000 very insensitive' as a difference of discriminative power."""
    P = _P()
    s = r.study
    d = 100 * (s.paired["PDoc@1000"].discriminative_power() - s.paired["AP"].discriminative_power())
    err = book.errors(
        sampling=100 * pair_share_se(_sig(s.paired["PDoc@1000"]) - _sig(s.paired["AP"])), unit="system pair",
        mc=float(_mc(r, lambda x: 100 * (x.paired["PDoc@1000"].discriminative_power() - x.paired["AP"].discriminative_power()))),
        replicates=r.B, reason="Monte Carlo 0 where every seed agrees",
    )  # fmt: skip
    pd_, ap_ = (100 * s.paired[m].discriminative_power() for m in ("PDoc@1000", "AP"))
    return book.ordering(
        f"{label} discriminative power, PDoc@1000 minus AP (points)", P["table2.pdoc-below-ap"], round(d, 1), err,
        note=f"{name}: PDoc@1000 {pd_:.1f} % of pairs, AP {ap_:.1f} %; PDoc@1000 ranks "
        f"{_names(r).index('PDoc@1000') + 1} of 7",
    )  # fmt: skip


def table2_rows(st: Mapping[str, Round], restate=None) -> list[dict]:
    """Table 2 of the rounds in ``st`` ((a) round 5, (b) round 1 when there), the paper's beside ours."""
    P = _P()
    paper_top = {P.names.get(n, n) for n in P["table2.a.top3"].value.split(", ")}
    rows: list[dict] = []
    for name, lab in (("round 5", "(a)"), ("round 1", "(b)")):
        if name not in st:
            continue
        r = st[name]
        tp = _table(r)
        ranking = f"the paired test's ranking of {name} by discriminative power (Table 2 {lab})"
        first = [
            _ordering_row(f"{lab} most sensitive three", P[f"table2.{lab[1]}.top3"], _top(r), ranking,
                   f"{len(set(_top(r)) & paper_top)} of the paper's three in our top three; " + _same_at(r, lambda x, r=r: set(_top(r, s=x)))),
            _ordering_row(f"{lab} least sensitive", P[f"table2.{lab[1]}.least"], _top(r, 1, tail=True), ranking,
                   f"PDoc@1000 ranks {list(tp['measure']).index('PDoc@1000') + 1} of 7; " + _same_at(r, lambda x, r=r: _top(r, 1, tail=True, s=x))),
        ]  # fmt: skip
        if restate is not None and lab == "(a)":
            keep = ("quantity", "paper", "ours", "note")
            first = [
                {**{k: x[k] for k in keep}, "same_as": restate.row(q)}
                for x, q in zip(first, ("most sensitive (paired)", "least sensitive (paired)"))
            ]
        rows += first
        rows.append(_pdoc_minus_ap(r, lab, name))
        if lab == "(a)":
            mid = list(tp["measure"].iloc[3:6])
            note = _same_at(r, lambda x, r=r: set(_names(r, s=x)[3:6]))
            rows.append(_ordering_row("(a) middle", P["table2.a.middle"], mid, ranking, note))
    r = st["round 5"]
    req = _required(r, r.study, "unpaired-bootstrap")
    for m, g in (("G_AP", "G_AveP"), ("G_Q", "G_Q")):
        se = float(_mc(r, lambda x, r=r, m=m: _required(r, x, "unpaired-bootstrap")[m]))
        rows.append(book.score(
            f"unpaired required difference, {g} (a)", P[f"table2.unpaired.{m}"], req[m],
            book.errors(sampling=0.0, mc=se, replicates=r.B, reason=(
                "sampling error not estimated (a maximum over pairs of a bootstrap quantile: a topic bootstrap "
                "of the whole test would be needed); " + _mc_reason(r))),
            note="Figure 6 algorithm", reason=_OTHER))  # fmt: skip
    status, note = _comparable(st)
    rows.append(book.claim(
        "unpaired required differences comparable to the paired ones", P["table2.unpaired-comparable"],
        ours=", ".join(f"{name}: {_parts([_required(x, x.study, 'unpaired-bootstrap')[m] / _required(x, x.study)[m] for m in MEASURES], '{:.2f}')}"
                       for name, x in st.items()) + " (unpaired / paired, " + ", ".join(MEASURES) + ")",
        status=status, note=note,
        supports="the required differences of the paired and unpaired tables above, each pair judged by the rule (kind score)"))  # fmt: skip
    for name, lab, key, where in (
        ("round 5", "(a)", "a", "NTCIR-3 Chinese"),
        ("round 1", "(b)", "b", "NTCIR-3 Japanese"),
    ):
        if name in st:
            mp = st[name].scores["AP"].mean()
            rows.append(book.score(
                f"max / min MAP of the 30 runs {lab}", None, f"{mp.max():.4f} / {mp.min():.4f}", None,
                reason="MAP on all topics of the runs themselves: describes the runs",
                note=f"describes the runs; the paper's {where} runs: {P[f'table2.{key}.spread'].value}"))  # fmt: skip
    if "round 1" in st:
        r1, r5 = st["round 1"], st["round 5"]
        names = _names_of(r5)
        d = _power(r1.study, names) - _power(r5.study, names)
        se = np.hypot(*(pair_share_se(np.stack([_sig(x.study.paired[n]) for n in names])) for x in (r1, r5)))
        mc = np.hypot(_mc(r1, lambda x: _power(x, names)), _mc(r5, lambda x: _power(x, names)))
        sp_ = {
            n: float(st[n].scores["AP"].mean().max() - st[n].scores["AP"].mean().min())
            for n in ("round 1", "round 5")
        }
        rows.append(book.ordering(
            "discriminative power, (b) minus (a) (points), " + " / ".join(names), P["table2.b-more-sensitive"], _parts(d),
            book.errors(sampling=100 * se, unit="system pair", mc=mc, replicates=r5.B,
                        reason="Monte Carlo 0 where every seed agrees"),
            note=f"(b) higher for {int((d > 0).sum())} of 7 measures",
            reason=f"our (b) is round 1, MAP spread {sp_['round 1']:.3f} against {sp_['round 5']:.3f} for (a)"))  # fmt: skip
    return rows


def stability_order(s: MeasureStudy) -> tuple[float, pd.DataFrame]:
    """``(pt0, table)``: measures by minority rate at a common proportion of ties pt0 (0.2 if it can)."""
    names = list(s.names)
    pt0 = round(max(0.2, max(s.stability[n].prop_ties[0] for n in names)), 2)
    t = pd.DataFrame({"measure": names, f"MR at PT = {pt0}": [s.stability[n].minority_rate_at(pt0) for n in names],
                      "MR at f = 0.05": [s.stability[n].minority_rate[4] for n in names]})  # fmt: skip
    return pt0, t.sort_values(f"MR at PT = {pt0}", kind="stable").reset_index(drop=True)


def fig10_rows(st: Mapping[str, Round]) -> list[dict]:
    """Figure 10 of round 5, the paper's beside ours."""
    P = _P()
    pt0, t = stability_order(st["round 5"].study)
    ranking = f"the stability method's ranking of round 5 by minority rate at PT = {pt0} (the table above)"
    return [
        _ordering_row("most stable three", P["fig10.top3"], list(t["measure"].head(3)), ranking, f"lowest MR at PT = {pt0}"),
        _ordering_row("least stable", P["fig10.least"], list(t["measure"].tail(1)), ranking,
               f"PDoc@1000 ranks {list(t['measure']).index('PDoc@1000') + 1} of 7"),
        _ordering_row("middle", P["fig10.middle"], list(t["measure"].iloc[3:6]), ranking),
    ]  # fmt: skip


def _below_required(r: Round, s: MeasureStudy) -> np.ndarray:
    t3 = s.table3().set_index("measure")["abs"]
    return np.array([_required(r, s)[m] - t3[m] for m in MEASURES])


def table3_rows(st: Mapping[str, Round]) -> list[dict]:
    """Table 3 of the rounds in ``st`` ((a) round 5, (b) round 1 when there), the paper's beside ours."""
    P = _P()
    rows = []
    for key, label in (("round 5", "(a)"), ("round 1", "(b)")):
        if key not in st:
            continue
        r = st[key]
        t = r.study.table3()
        ranking = f"the swap method's ranking of {key} by sensitivity (Table 3 above)"
        d = _below_required(r, r.study)
        grp = lambda a, b: lambda x: set(x.table3()["measure"].iloc[a:b])  # noqa: E731
        rows += [
            _ordering_row(f"{label} most sensitive three", P["table3.top3"], t["measure"].head(3), ranking, _same_at(r, grp(0, 3))),
            _ordering_row(f"{label} least sensitive", P["table3.least"], t["measure"].tail(1), ranking,
                   f"PDoc@1000 ranks {list(t['measure']).index('PDoc@1000') + 1} of 7; " + _same_at(r, grp(6, 7))),
            book.ordering(
                f"{label} paired-test required difference minus swap 'abs', " + " / ".join(MEASURES), P["table3.below-required"],
                _parts(d, "{:.3f}"),
                book.errors(sampling=0.0, mc=_mc(r, lambda x, r=r: _below_required(r, x)), replicates=r.B, reason=(
                    "sampling error not estimated (both are maxima or thresholds over the bootstrap samples of every pair: "
                    "a topic bootstrap of the whole study would be needed); " + _mc_reason(r, "each difference"))),
                note=f"'abs' below the required difference for {int((d > 0).sum())} of {len(d)} arithmetic-mean measures"),
        ]  # fmt: skip
    return rows


def tau_table(s: MeasureStudy) -> pd.DataFrame:
    """Kendall's tau between the measures' rankings of a study, with its bootstrap se, highest first."""
    return pd.DataFrame(
        [{"pair": f"{a} / {b}", "measures": (a, b), "tau": x.tau, "se": x.se_boot, "p (Z0)": x.p_value}
         for (a, b), x in s.rank_correlations.items()]
    ).sort_values("tau", ascending=False, ignore_index=True)  # fmt: skip


def fig1213_rows(st: Mapping[str, Round]) -> list[dict]:
    """Figures 12 and 13 of round 5, the paper's beside ours."""
    P = _P()
    r = st["round 5"]
    s = r.study
    t = tau_table(s)
    th = _tau_threshold(len(r.runs.runs), 0.01)
    low = set(t.sort_values("se")["pair"].head(2))
    smallest = t.iloc[-1]
    ratio = float(np.median(t["tau"] / t["se"]))  # Figure 13's 'about ten times smaller'
    # each se is an sd of B replicates: relative Monte Carlo error about 1 / sqrt(2 (B - 1)), and so
    # the ratio's (an upper bound for the median of the ratios)
    ratio_mc = ratio / np.sqrt(2 * (s.B - 1))
    return [
        book.correlation(
            "smallest tau", P["fig12.min-tau"], float(smallest["tau"]),
            book.errors(sampling=tau_se(s, smallest["measures"]), unit="topic", mc=0.0, replicates=s.B,
                        reason="Kendall's tau on all topics: no random step; its sampling error the sd over the B bootstrap topic samples"),
            note=smallest["pair"]),
        book.correlation(
            "tau significant at 0.01 (Z0), 30 runs, above", P["fig12.threshold"], th, None,
            reason="closed form of the Z0 test for 30 runs: no random step, no sampled unit",
            note=f"{int((t['tau'] > th).sum())} of {len(t)} pairs above"),
        _ordering_row("two highest tau", P["fig12.top2"], t["pair"].head(2), "Kendall's tau on all topics (Figure 12)", pairs=True),
        _ordering_row("two smallest se", P["fig13.top2-se"], sorted(low), "the bootstrap standard errors (Figure 13)", pairs=True),
        book.score(
            "median tau / se", P["fig13.ratio"], ratio,
            book.errors(sampling=0.0, unit="topic", mc=ratio_mc, replicates=s.B, reason=(
                "sampling error not estimated: a topic bootstrap of a ratio to a bootstrap se overstates it (by about a "
                "third against fresh topic samples of a simulated population), a jackknife more; Monte Carlo: the relative "
                f"error of a bootstrap sd from B = {s.B} replicates, 1 / sqrt(2 (B - 1)), an upper bound for the median of "
                "the ratios")),
            note="se about ten times smaller than tau"),
    ]  # fmt: skip
