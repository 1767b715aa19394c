"""The Sakai (2006) chapter's rows for the book's one rule, each with its sampling error and the Monte
Carlo error of the bootstrap (the sd over five seeds): the chapter's procedure on a judged run set,
the resampled p-values a correction needs, the results tables and figures beside the paper's, and
the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _lazy
from .._rule import combine, judge, spread_notes, verdict
from ..significance.bootstrap import paired_bootstrap_test
from ..stats import adjust_pvalues, clustered_se, corrected_resamples
from .study import _PARTS, MeasureStudy, _geometric_consistent, _tau_threshold, measure_study

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


PAPER = "sakai2006evaluating"
#: The arithmetic-mean measures of the study (the geometric means G_AP and G_Q are added to them).
MEASURES = ("AP", "Q", "nDCG_sakai@1000", "nCG@1000", "PDoc@1000")
#: The paper names its three most sensitive measures and its least sensitive one.
TOP = 3
#: What the replicates at the other seeds compute (the same numbers as a whole study at that seed).
LIGHT = ("paired", "unpaired", "swap")
_OTHER = "TREC-COVID is not the paper's NTCIR-3 data"


@dataclass
class Round:
    """The paper's procedure on one judged run set (:func:`paper_procedure`)."""

    runs: Any
    scores: dict
    replicates: list
    borrowed: str = ""
    _t2: dict = field(default_factory=dict, repr=False)

    @property
    def study(self) -> MeasureStudy:
        """The study at the chapter's seed."""
        return self.replicates[0]

    @property
    def B(self) -> int:
        """The bootstrap samples per set."""
        return int(self.study.B)


def _matrices(scores: Mapping) -> dict:
    return {m: scores[m] for m in MEASURES} | {"G_AP": (scores["AP"], "gmean"), "G_Q": (scores["Q"], "gmean")}


def top_runs(rs, k: int = 30):
    """The ``k`` best runs of the run set ``rs`` by relaxed AP (grade >= 1 relevant), as in the paper."""
    from .. import measures

    ap = measures.evaluate(rs, ["AP"], rel=1)["AP"]
    best = np.argsort(-ap.mean(), kind="stable")[:k]
    return rs.subset(runs=[rs.runs[i] for i in best])


def paper_procedure(rs, *, B: int, seeds: Sequence, n_jobs=None, borrow: Round | None = None, of: str = "",
                    top: bool = True, scores: Mapping | None = None) -> Round:  # fmt: skip
    """The paper's procedure on judged runs: the 30 best by relaxed AP, seven measures, a study per seed."""
    from .. import measures

    runs = top_runs(rs) if top else rs
    sc = dict(scores) if scores is not None else measures.evaluate(runs, list(MEASURES), rel=1)
    mats = _matrices(sc)
    first = measure_study(mats, B=B, seed=seeds[0], n_jobs=n_jobs, parts=_PARTS)
    if borrow is not None:
        return Round(runs, sc, [first, *borrow.replicates[1:]], borrowed=of)
    rest = [measure_study(mats, B=B, seed=s, n_jobs=n_jobs, parts=LIGHT) for s in seeds[1:]]
    return Round(runs, sc, [first, *rest])


def _table(r: Round, test: str = "bootstrap", s: MeasureStudy | None = None) -> pd.DataFrame:
    """s.table2(test) (s: the round's study by default), computed once per study."""
    s = r.study if s is None else s
    key = (id(s), test)
    if key not in r._t2:
        r._t2[key] = (s, s.table2(test))
    return r._t2[key][1]


def _names(r: Round, test: str = "bootstrap", s: MeasureStudy | None = None) -> list[str]:
    return list(_table(r, test, s)["measure"])


def _mc(r: Round, f: Callable) -> np.ndarray:
    """The sd of f(study) over the round's replicate studies (per part for a vector)."""
    v = np.array([f(s) for s in r.replicates], dtype=float)
    return v.std(axis=0, ddof=1)


def _mc_reason(r: Round, what: str = "the value") -> str:
    taken = f", taken from {r.borrowed}" if r.borrowed else ""
    return f"Monte Carlo: sd of {what} over {len(r.replicates)} bootstrap seeds (B = {r.B} each){taken}"


def _same_at(r: Round, f: Callable) -> str:
    if r.borrowed:
        return f"Monte Carlo errors of {r.borrowed}"
    return f"the same at {sum(f(s) == f(r.study) for s in r.replicates)} of {len(r.replicates)} seeds"


def _sig(test, alpha: float = 0.05) -> np.ndarray:
    """Per pair of a test: 1 where ASL < alpha."""
    return (np.asarray(test.p) < alpha).astype(float)


def pair_share_se(significant) -> np.ndarray:
    """Sampling error of a share of system pairs: sd / sqrt(n), Agresti & Coull's at a share of 0 or 1."""
    x = np.asarray(significant, dtype=float)
    se = np.atleast_1d(clustered_se(x))
    n = x.shape[-1]
    z2 = 1.959963984540054**2
    hits = np.atleast_1d(x.sum(axis=-1))
    p = np.clip((np.abs(hits) + z2 / 2) / (n + z2), 0, 1)  # every pair agrees: |hits| is 0 or n
    ac = np.sqrt(p * (1 - p) / (n + z2))
    out = np.where(se > 0, se, ac)
    return out.reshape(x.shape[:-1])


def tau_se(study: MeasureStudy, pair: tuple[str, str]) -> float:
    """Sampling error of Kendall's tau: its sd over the study's bootstrap topic samples (Figure 13)."""
    return float(study.rank_correlations[tuple(pair)].se_boot)


def resolved_pvalues(
    scores, *, m: int, alpha: float = 0.05, seed=0, chunk: int = 20_000, B: int | None = None
):
    """``(p, B)``: paired-test ASLs with B enough for a correction over ``m`` (20 m / alpha), in chunks."""
    need = corrected_resamples(m, alpha, "holm", default=1)
    total = need if B is None else int(B)
    sizes = [chunk] * (total // chunk) + ([total % chunk] if total % chunk else [])
    counts = 0.0
    for size, ss in zip(sizes, np.random.SeedSequence(seed).spawn(len(sizes))):
        counts = counts + np.rint(np.asarray(paired_bootstrap_test(scores, B=size, seed=ss).p) * size)
    return counts / total, total


# --- the results tables ------------------------------------------------------------------------


def _P():
    return book.paper_numbers(PAPER)


def _top(r: Round, k: int = TOP, test: str = "bootstrap", tail: bool = False, s=None) -> list[str]:
    m = _table(r, test, s)["measure"]
    return list(m.tail(k) if tail else m.head(k))


def _parts(v, fmt: str = "{:.1f}") -> str:
    return " / ".join(fmt.format(x) for x in v)


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
    s, names = r.study, list(r.study.names)
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


def _required(r: Round, s: MeasureStudy | None = None, test: str = "bootstrap") -> pd.Series:
    return _table(r, test, s).set_index("measure")["required difference"]


def _comparable(st: Mapping[str, Round]) -> tuple[str, str]:
    """Sakai's 'unpaired required differences comparable to paired' per measure and round, as rows."""
    sts, bits = [], []
    for name, r in st.items():
        bits.append(f"{name}:")
        for m in MEASURES:
            p_, u_ = _required(r)[m], _required(r, test="unpaired-bootstrap")[m]
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
    req = _required(r, test="unpaired-bootstrap")
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
        ours=", ".join(f"{name}: {_parts([_required(x, test='unpaired-bootstrap')[m] / _required(x)[m] for m in MEASURES], '{:.2f}')}"
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
        names = list(r5.study.names)
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


def _orders(r: Round) -> dict[str, list[str]]:
    """Round ``r``'s measures by the paired test (G_ names), the stability method and the swap method."""
    paired = [m.replace("AG_", "G_") for m in _names(r)]
    return {"paired": paired, "stability": list(stability_order(r.study)[1]["measure"]),
            "swap": list(r.study.table3()["measure"])}  # fmt: skip


def agree_rows(st: Mapping[str, Round]) -> list[dict]:
    """Sakai's 'bootstrap, stability and swap methods agree' on round 5: the claim's one row."""
    P = _P()
    r = st["round 5"]
    others = _orders(r)
    boot = others.pop("paired")
    groups = {"top three": slice(0, 3), "middle three": slice(3, 6), "last": slice(6, 7)}
    sub = {(o, g): book.ordering_status(order[sl], ", ".join(boot[sl]), supports="the paired test's ranking")["status"]
           for o, order in others.items() for g, sl in groups.items()}  # fmt: skip
    return [book.claim(
        "bootstrap, stability and swap methods agree", P["claim.methods-agree"],
        ours="; ".join(f"{o} {g}: {w}" for (o, g), w in sub.items()), status=combine(list(sub.values())),
        supports="the rankings of round 5 by the paired test (Table 2 (a)), the stability method (Figure 10) and the swap method (Table 3 (a))",
        note="each group of the stability and swap rankings against the same group of the paired test's",
        data="TREC-COVID round 5",
    )]  # fmt: skip


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
    on = _scope(paired_refs, comps)

    def restates(quantity: str, key: str, same_as, **ours) -> dict:
        data = _scope(same_as if isinstance(same_as, list) else [same_as], comps)
        return {"quantity": quantity, "paper": P[key], "same_as": same_as, **ours, "data": data}

    return [
        restates("Q, nDCG@1000 and AP are the most sensitive measures, PDoc@1000 the least", "claim.top3", top_refs,
                 ours=sensitivity_ours()),
        restates("the paired test is more powerful than the unpaired", "claim.paired", paired_refs),
        book.claim("recommended: the paired test wherever it applies", P["claim.prefer-paired"],
                   ours=f"on our data ({on})", supports=paired_refs,
                   note=f"the paper's reason is the power of Figure 8; the rows it rests on are {on}'s", data=on),
        *agree_rows(st),
        restates("swap-based differences are smaller than ASL-based ones", "claim.swap-smaller", swap_refs),
        restates("AG_ forms in the paired test agree with G_ in the unpaired test", "claim.geometric", geo_refs),
        restates(f"all rank correlations between the measures exceed {P['fig12.min-tau'].value.removeprefix('> ')}",
                 "claim.tau", fig1213.row("smallest tau")),
        restates("rank correlations are accurate (se about tau / 10)", "claim.tau-accurate", fig1213.row("median tau / se")),
        restates("unpaired required differences comparable to the paired ones", "table2.unpaired-comparable",
                 table2.row("unpaired required differences comparable to the paired ones")),
    ]  # fmt: skip


def holm_rows(test, resolved: tuple, *, alpha: float = 0.05) -> list[dict]:
    """Pairs significant before and after Holm and BH (beyond the paper); unresolved when B is short."""
    p, B = resolved
    m = len(p)
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
    mc = np.array([counts(w) for w in web_reps], dtype=float).std(axis=0, ddof=1)

    def err(i):
        return book.errors(sampling=0.0, mc=mc[i], replicates=len(web_reps), unit="year",
                           reason=f"no sampling error: counts of the years themselves; Monte Carlo: sd over {len(web_reps)} bootstrap seeds")  # fmt: skip

    n = len(years)
    beyond = "beyond the paper"
    return [
        book.count("years where AP is the most sensitive", None, f"{c[0]} of {n}", err(0), reason=beyond,
                   note=f"mean rank {web_power['mean rank'].to_numpy(float)[list(web_power.index).index('AP')]:.1f}"),
        book.count("years where AP is among the three most sensitive", None, f"{c[1]} of {n}", err(1),
                   reason=beyond, note=""),
        book.count("years where RR is the least sensitive", None, f"{c[2]} of {n}", err(2), reason=beyond,
                   note="a one-document measure"),
        {"quantity": "ordering by mean rank", "paper": None, "ours": ", ".join(web_power.sort_values("mean rank").index),
         "kind": "claim", "note": "", "reason": beyond},
    ]  # fmt: skip


def mc_table(r: Round, which: str, cols: Sequence[str]) -> pd.DataFrame:
    """A results table of the round, each of ``cols`` as 'value (±se)' over the seeds, ranked from 1."""

    def of(s):
        return s.table3() if which == "table3" else _table(r, which, s)

    table = of(r.study)
    out = table.copy()
    for c in cols:
        reps = [of(x).set_index("measure")[c].reindex(table["measure"]).to_numpy(float) for x in r.replicates]
        se = np.array(reps).std(axis=0, ddof=1)
        out[c] = [book.with_error(float(v), e) for v, e in zip(table[c], se)]
    return out.set_index(out.index + 1).rename_axis("rank")


def ranks(st: Mapping[str, Round]) -> dict[str, str]:
    """Each measure's rank on round 5 by the paired test, stability and swap method, as 'p / s / w'."""
    orders = _orders(st["round 5"]).values()
    return {m: " / ".join(str(o.index(m) + 1) for o in orders) for m in st["round 5"].study.names}


def rank_range(by_seed: Mapping, method: str = "paired") -> dict[str, str]:
    """Per measure, the range of its round-5 rank by ``method`` over the run sets of ``by_seed``."""
    rk = [{m: i + 1 for i, m in enumerate(_orders(st["round 5"])[method])} for st in by_seed.values()]
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
