"""The chapter "Which test?": every design's rates side by side, the properties of its simulated
differences, and each study's claims as rows for the book's rule (``kt.which``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import _lazy
from .._rule import judge_row
from ..stats import clustered_se
from ._differences import PROPERTIES, difference_properties  # noqa: F401  (the chapter's exercise)
from ._rankings import ranking_design_table  # noqa: F401  (the chapter's)
from ._rows import _LEVEL_WORDS, level, simulation_se
from ._urbano import UrbanoPValues
from ._urbano_sizes import urbano_design

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

#: The designs, by the name the chapter's tables give them, and what each simulates.
DESIGNS = {
    "score-level": "Urbano et al. (2019): margins and copulas fitted to TREC score matrices, 25-100 topics",
    "ranking-level": "after Parapar et al. (2021) and Otero et al. (2025): rankings simulated from "
    "models of TREC-COVID runs, scored against the qrels",
    "large-query": "after Ihemelandu & Ekstrand (2023): the score-level simulator at 250-5,000 topics",
}
#: The collection each design's claims are judged on (AP).
COLLECTIONS = {"score-level": "TREC-5..8 ad hoc", "ranking-level": "TREC-COVID round 5",
               "large-query": "TREC-5..8 ad hoc"}  # fmt: skip
#: The unit a pairwise rate's Monte Carlo error is clustered by, and a family's.
_PAIR, _FAMILY = "system pair", "family of systems"
_NO_SAMPLE = "no sampled data: the simulated systems and topics are the Monte Carlo draws"
#: Test names as the chapter's sentences give them.
NAMES = {"paired-t": "t-test", "wilcoxon": "Wilcoxon", "sign": "sign test", "bootstrap-shift": "bootstrap (shift)",
         "permutation": "permutation test", "bootstrap": "Sakai's bootstrap",
         "unpaired-bootstrap": "unpaired bootstrap"}  # fmt: skip
#: Multiple-comparison procedures by the chapter's names.
PROCEDURES = {"none": "unadjusted", "unadjusted": "unadjusted", "holm": "Holm", "Holm": "Holm",
              "fdr_bh": "BH", "BH": "BH"}  # fmt: skip


def known_truth_seeds(scale: str) -> tuple:
    """The known-truth chapter's seeds of its AP models, null pool and AP power pools (delta 0.01, 0.02), for its cache."""
    ss = np.random.SeedSequence(2019).spawn(64)
    deltas = tuple(np.round(np.arange(1, 11) / 100, 2))
    topics = urbano_design(scale).power_topics
    power = ss[47].spawn(3 * len(topics) * len(deltas))  # (measure, topics, delta), AP first
    at = topics.index(50) * len(deltas)
    return ss[0:4], np.random.SeedSequence(2019, spawn_key=(44,)), {0.01: power[at], 0.02: power[at + 1]}


def _rate(r: UrbanoPValues, test: str, alpha: float) -> tuple[np.ndarray, float, float]:
    """Per trial whether ``test`` rejects (under a true difference, with the right sign), its rate and clustered error."""
    hit = r.rejected(alpha)[list(r.tests).index(test)] & ((r.d > 0) if r.delta > 0 else True)
    hit = hit.astype(float)
    rate = float(hit.mean())
    return hit, rate, simulation_se(rate, float(clustered_se(hit, r.pair)), len(np.unique(r.pair)))


def rates_table(results: Mapping[str, Mapping[tuple, UrbanoPValues]], alpha: float = 0.05) -> pd.DataFrame:
    """Type I error (``delta == 0``) and power of every test, per design, measure, topics and delta."""
    rows = []
    for design, res in results.items():
        for (measure, n, delta), r in res.items():
            for t in r.tests:
                _, rate, se = _rate(r, t, alpha)
                rows.append({"design": design, "measure": measure, "topics": n, "delta": delta, "test": t,
                             "what": "type I error" if delta == 0 else "power", "rate": rate, "se": se,
                             "trials": r.trials, "pairs": len(np.unique(r.pair))})  # fmt: skip
    return pd.DataFrame(rows)


#: The shares and skewness of :func:`properties_table`, by the columns it gives them.
_SHARES = {"zeros": "zeros", "sign_ties": "sign ties", "ties": "ties", "skewness": "|skewness|"}


def properties_table(results: Mapping[str, Mapping[tuple, UrbanoPValues]]) -> pd.DataFrame:
    """Under each design's null, per size: the mean :func:`difference_properties`, each with its error."""
    rows = []
    for design, res in results.items():
        for (measure, n, delta), r in res.items():
            if delta != 0 or not r.props:
                continue
            row = {"design": design, "measure": measure, "topics": n}
            for p, name in _SHARES.items():
                v = np.asarray(r.props[p], dtype=float)
                v = np.abs(v) if p == "skewness" else v
                ok = ~np.isnan(v)
                row[name], row[f"{name} se"] = float(v[ok].mean()), float(clustered_se(v[ok], r.pair[ok]))
            for p, var0 in (("sign_balance", "sign_var0"), ("rank_balance", "rank_var0")):
                excess = np.asarray(r.props[p], dtype=float) ** 2 - np.asarray(r.props[var0], dtype=float)
                ok = np.isfinite(excess)
                ms, se = float(excess[ok].mean()), float(clustered_se(excess[ok], r.pair[ok]))
                rms = float(np.sqrt(max(ms, 0.0)))
                name = p.replace("_", " ")
                row[name] = rms
                row[f"{name} se"] = se / (2 * rms) if rms > 0 else float(np.sqrt(se))
            rows.append(row)
    return pd.DataFrame(rows)


#: The columns of :func:`family_table`.
_FAMILY_COLUMNS = ["design", "test", "procedure", "m", "topics", "what", "rate", "se", "trials", "power_vs_t",
                   "power_vs_t_se"]  # fmt: skip


def family_table(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Family-wise error and power of the adjusted tests per design, in one schema."""
    out = []
    for design, f in frames.items():
        if "what" in f:  # the ranking-level design's frames: one of FWER or power per row
            g = f.rename(columns={"k": "m", "families": "trials"})
        else:  # the score-level design's: FWER under the complete null, power under a partial one
            g = pd.concat(
                [
                    f.assign(what=w, rate=f[c], se=f[f"{c}_se"])
                    for w, c in (("FWER", "fwer"), ("power", "power"))
                ]
            )
            g = g[g.get("resolved", pd.Series(True, index=g.index)).to_numpy(dtype=bool)]
        out.append(
            g.assign(design=design, procedure=g["procedure"].map(PROCEDURES)).reindex(columns=_FAMILY_COLUMNS)
        )
    return pd.concat(out, ignore_index=True)


def _errors(se, trials, unit=_PAIR):
    """A row's errors: Monte Carlo only (the simulated systems and topics are the draws)."""
    return book.errors(mc=se, unit=unit, replicates=int(trials), reason=_NO_SAMPLE)


def _parts(values: Sequence[float], digits: int = 3) -> str:
    """Several numbers of one row, as the rule reads them ("a / b / c")."""
    return " / ".join(f"{v:.{digits}f}" for v in values)


def _difference(a: UrbanoPValues, b: UrbanoPValues, ta: str, tb: str, alpha: float) -> tuple[float, float]:
    """Rate of ``ta`` on ``a`` minus rate of ``tb`` on ``b`` and its error (paired per trial on common pairs)."""
    ha, ra, sa = _rate(a, ta, alpha)
    hb, rb, sb = _rate(b, tb, alpha)
    n = min(a.trials, b.trials)
    if not np.array_equal(a.pair[:n], b.pair[:n]):
        return ra - rb, float(np.hypot(sa, sb))
    # the same pairs trial by trial (common random numbers): the difference per trial, on the trials
    # both have; where no trial disagrees, Agresti & Coull's error of that share keeps it above 0
    d, pair = ha[:n] - hb[:n], a.pair[:n]
    return float(d.mean()), simulation_se(float(np.mean(d != 0)), float(clustered_se(d, pair)), n)


def level_row(
    quantity: str,
    paper,
    results: Mapping[int, UrbanoPValues],
    test: str,
    alpha: float = 0.05,
    *,
    on: str = "",
) -> dict:
    """A test's type I error at each topic-set size (parts) against the level ``paper`` reads."""
    sizes = sorted(results)
    rates = [_rate(results[n], test, alpha)[1:] for n in sizes]
    trials = min(results[n].trials for n in sizes)
    return book.rate(f"{quantity} ({_topics(sizes)}){on}", paper, _parts([r for r, _ in rates]),
                _errors(tuple(s for _, s in rates), trials), nominal=alpha)  # fmt: skip


def _topics(sizes: Sequence[int]) -> str:
    """Topic-set sizes in words."""
    return " / ".join(f"{n:,}" for n in sizes) + " topics"


def difference_row(quantity: str, paper, a: UrbanoPValues, b: UrbanoPValues, ta: str, tb: str,
                   alpha: float = 0.05, *, level: bool = False) -> dict:  # fmt: skip
    """A difference of two rates against ``paper``: an ordering, or with ``level`` a rate at ``alpha``'s margin."""
    d, se = _difference(a, b, ta, tb, alpha)
    err = _errors(se, min(a.trials, b.trials))
    return (
        book.rate(quantity, paper, round(d, 4), err, nominal=alpha)
        if level
        else book.ordering(quantity, paper, round(d, 4), err)
    )


def spread_row(quantity: str, paper, r: UrbanoPValues, tests: Sequence[str], alpha: float = 0.05) -> dict:
    """The largest minus the smallest rate of ``tests`` on the same trials, against ``paper``."""
    rates = {t: _rate(r, t, alpha)[1] for t in tests}
    hi, lo = max(rates, key=rates.__getitem__), min(rates, key=rates.__getitem__)
    d, se = _difference(r, r, hi, lo, alpha)
    return book.rate(
        quantity, paper, round(d, 4), _errors(se, r.trials), note=f"{NAMES[hi]} minus {NAMES[lo]}"
    )


def min_rate_row(quantity: str, paper, r: UrbanoPValues, tests: Sequence[str], alpha: float = 0.05) -> dict:
    """The smallest rate of ``tests`` in %, against ``paper``."""
    rates = {t: _rate(r, t, alpha)[1:] for t in tests}
    t = min(rates, key=lambda k: rates[k][0])
    return book.rate(quantity, paper, f"{100 * rates[t][0]:.1f}%", _errors(100 * rates[t][1], r.trials),
                note=f"the {NAMES[t]}'s")  # fmt: skip


def family_row(quantity: str, paper, fam: pd.DataFrame, test: str, what: str, *, on: str = "") -> dict:
    """Under BH per systems and topics (parts): a test's FWER at 0.05 (``what="FWER"``), or its power minus the t-test's."""
    f = fam[(fam.test == test) & (fam.procedure == "BH") & (fam.what == what)].sort_values(["m", "topics"])
    q = f"{quantity} (systems x topics: {' / '.join(f'{m}x{n}' for m, n in zip(f.m, f.topics))}){on}"
    if what == "FWER":
        return book.rate(
            q, paper, _parts(f.rate), _errors(tuple(f.se), int(f.trials.min()), _FAMILY), nominal=0.05
        )
    return book.ordering(
        q, paper, _parts(f.power_vs_t, 4), _errors(tuple(f.power_vs_t_se), int(f.trials.min()), _FAMILY)
    )


#: The measure the claims are judged on, and the tests Ihemelandu & Ekstrand compare.
CLAIM_MEASURE = "AP"
#: The smallest topic-set size their claims about large samples are judged at (the large-query design's).
LARGE = 250
_FIVE = ("paired-t", "wilcoxon", "sign", "bootstrap-shift", "permutation")


def _off_level(level, null: UrbanoPValues, n: int, tests: Sequence[str], alpha: float = 0.05) -> str:
    """The tests whose type I error on ``null`` the rule finds off ``level``, in words ("" when none)."""
    rows = {t: level_row(f"{NAMES[t]}: type I error", level, {n: null}, t, alpha) for t in tests}
    return "; ".join(
        "{}'s type I error at {:,} topics is {:.3f} (se {:.3f})".format(
            NAMES[t], n, *_rate(null, t, alpha)[1:]
        )
        for t, r in rows.items()
        if judge_row(r).status == "not replicated"
    )


def study_rows(numbers, pairwise: Mapping[str, Mapping[tuple, UrbanoPValues]], families: pd.DataFrame,
               power_at: Mapping[str, tuple[int, float]]) -> list[dict]:  # fmt: skip
    """A study's claims read as numbers on every design, one row per design and reading."""
    study, rows = numbers.paper, []
    for design, res in pairwise.items():
        null = {n: r for (m, n, d), r in res.items() if m == CLAIM_MEASURE and d == 0}
        on = f", {design} design"
        big = max(null)
        n_at, d_at = power_at[design]
        pw, at = res[(CLAIM_MEASURE, n_at, d_at)], f"{n_at:,} topics, delta = {d_at:g}"
        if study == "ihemelandu2023inference":  # at the largest size, the smallest difference simulated there
            n_pw = max(n for m, n, d in res if m == CLAIM_MEASURE and d > 0)
            d_pw = min(d for m, n, d in res if m == CLAIM_MEASURE and d > 0 and n == n_pw)
            pw, at = res[(CLAIM_MEASURE, n_pw, d_pw)], f"{n_pw:,} topics, delta = {d_pw:g}"
        if study == "parapar2021testing":
            power = difference_row(f"Wilcoxon minus t-test: power at {at}{on}", numbers["power.wilcoxon-t"], pw, pw,
                                   "wilcoxon", "paired-t")  # fmt: skip
            n_pw = n_at
            off = (
                _off_level(numbers["level.wilcoxon"], null[n_pw], n_pw, ("wilcoxon", "paired-t"))
                if n_pw in null
                else f"no null results at {n_pw:,} topics: the levels are not checked"
            )
            if off:  # at unequal sizes part of a difference in power is a difference in type I error
                why = "" if n_pw not in null else "a test off its level, "
                power |= {"paper": None, "note": f"not comparable: {why}{off}"}
            rows += [level_row("Wilcoxon: type I error at alpha = 0.05", numbers["level.wilcoxon"], null, "wilcoxon", on=on),
                     power]  # fmt: skip
        elif study == "otero2025towards":
            fam = families[families.design == design]
            if fam.empty:
                continue
            level = numbers["level.wilcoxon-bh"]
            rows.append(family_row("Wilcoxon with BH: family-wise type I error", level, fam, "wilcoxon", "FWER",
                                         on=on))  # fmt: skip
            # power compared per configuration where neither test's family-wise error is above the level
            high: dict[tuple, list[str]] = {}
            for (m, n), one in fam.groupby(["m", "topics"]):
                for t in ("wilcoxon", "paired-t"):
                    f = one[(one.test == t) & (one.procedure == "BH") & (one.what == "FWER")]
                    if f.empty:
                        high.setdefault((m, n), []).append(f"{NAMES[t]}'s not simulated")
                    elif judge_row(family_row(t, level, one, t, "FWER")).status == "not replicated":
                        high.setdefault((m, n), []).append(
                            f"{NAMES[t]}'s {f.rate.iloc[0]:.3f} (se {f.se.iloc[0]:.3f})"
                        )
            said = "; ".join(f"{m}x{n}: " + ", ".join(v) for (m, n), v in high.items())
            keep = fam[[(m, n) not in high for m, n in zip(fam.m, fam.topics)]]
            base = keep if len(keep) else fam
            if base[(base.test == "wilcoxon") & (base.procedure == "BH") & (base.what == "power")].empty:
                continue  # no power simulated: no row to judge
            power = family_row("Wilcoxon with BH minus t-test with BH: power", numbers["power.wilcoxon-bh-t"],
                               base, "wilcoxon", "power", on=on)  # fmt: skip
            if not len(keep):
                power |= {"paper": None, "note": "not comparable: a test off its level (family-wise error with BH above it) "
                                                 f"or not simulated in every configuration ({said})"}  # fmt: skip
            elif high:
                power |= {
                    "note": f"left out, a test off its level (family-wise error with BH above it): {said}"
                }
            rows.append(power)
        elif study == "ihemelandu2023inference":
            others = ("paired-t", "bootstrap-shift", "permutation")
            top = max(others, key=lambda t: _rate(null[big], t, 0.05)[1])  # the highest of the three
            mine = [difference_row(f"{NAMES[t]} minus the highest of the t, bootstrap and permutation tests "
                                   f"({NAMES[top]}): type I error at {big:,} topics{on}",
                                   numbers["higher.wilcoxon-sign"], null[big], null[big], t, top, level=True)
                    for t in ("wilcoxon", "sign")]  # fmt: skip
            mine += [level_row(f"{NAMES[t]}: type I error at alpha = 0.05", numbers["level.others"], {big: null[big]}, t, on=on)
                     for t in others]  # fmt: skip
            # their powers compared among the tests at their level there (as two tests' power elsewhere)
            why_off = (
                {t: _off_level(numbers["level.others"], null[n_pw], n_pw, (t,)) for t in _FIVE}
                if n_pw in null
                else dict.fromkeys(_FIVE, f"no null results at {n_pw:,} topics: the levels are not checked")
            )
            held = [t for t in _FIVE if not why_off.get(t)]
            spread = spread_row(f"largest minus smallest power of the tests at their level at {at}{on}",
                                numbers["power.spread"], pw, held if len(held) > 1 else _FIVE)  # fmt: skip
            left = "; ".join(dict.fromkeys(v for v in why_off.values() if v))
            if len(held) < 2:
                spread |= {
                    "paper": None,
                    "note": f"not comparable: fewer than two tests at their level; {left}",
                }
            elif left:
                spread |= {"note": f"{spread['note']}; left out, off their level: {left}"}
            mine += [spread,
                     min_rate_row(f"smallest power of the five tests at {at}{on}", numbers["power.all"], pw, _FIVE)]  # fmt: skip
            if big < LARGE:  # their claims are about large samples: here, ours beside no number of theirs
                why = f"outside the claim's scope: this design simulates at most {big:,} topics (large: {LARGE:,} or more)"
                mine = [r | {"paper": None, "note": why} for r in mine]
            rows += mine
        else:
            raise ValueError(f"no claims of {study!r} in this chapter")
    return rows


def _claims(numbers) -> list[tuple]:
    """A study's claims, each with the starts of the quantities of the :func:`study_rows` it rests on."""
    study = numbers.paper
    if study == "parapar2021testing":
        return [(numbers["claim.wilcoxon-most-reliable"], ("Wilcoxon",))]
    if study == "otero2025towards":
        return [(numbers["claim.wilcoxon-bh-level"], ("Wilcoxon with BH: family-wise",)),
                (numbers["claim.wilcoxon-bh-power"], ("Wilcoxon with BH minus",))]  # fmt: skip
    if study == "ihemelandu2023inference":
        return [(numbers["claim.wilcoxon-sign-higher"], ("Wilcoxon minus", "sign test minus")),
                (numbers["claim.others-level"], ("t-test:", "bootstrap (shift):", "permutation test:")),
                (numbers["claim.power-equal"], ("largest minus smallest power",)),
                (numbers["claim.effect-size"], ("smallest power",))]  # fmt: skip
    raise ValueError(f"no claims of {study!r} in this chapter")


def verdict_rows(numbers, table) -> list[dict]:
    """The study's claims on every design (its rows of ``table``) and over all designs."""
    q = list(table.frame["quantity"])
    designs = dict.fromkeys(x.rsplit(", ", 1)[1] for x in q)
    rows = []
    for said, starts in _claims(numbers):
        mine = [x for x in q if x.startswith(starts)]
        for d in designs:
            on = [x for x in mine if x.endswith(d)]
            if on:
                sup = [table.row(x) for x in on]
                out = [x for x, r in zip(on, sup) if r.status == "not comparable"]
                extra = (
                    {"note": f"rests on its other rows alone; not comparable here: {'; '.join(out)}"}
                    if 0 < len(out) < len(on)
                    else {}
                )
                rows.append(book.claim(f"{said.row} - on the {d}", said, supports=sup, **extra))
        rows.append(book.claim(said.row, said, supports=[table.row(x) for x in mine],
                          note="over every design: replicated only where it holds on each"))  # fmt: skip
    return rows


def _count(x) -> int:
    """A row's replicates (0 where it records none)."""
    return int(x) if pd.notna(x) else 0


def undecided_text(*comparisons) -> str:
    """The compared rows left inconclusive for Monte Carlo reasons alone, with their replicates, in words."""
    left, edge = [], []
    for c in comparisons:
        for _, r in c.frame.iterrows():
            if r["status"] != "inconclusive":
                continue
            if r.get("why") == "monte-carlo" and pd.notna(r.get("replicates_needed")):
                left.append((r["quantity"], _count(r.get("replicates")), int(r["replicates_needed"])))
            elif "Monte Carlo error alone" in str(r.get("reason", "")):
                edge.append((r["quantity"], _count(r.get("replicates"))))
    if not left and not edge:
        return "No compared row is left inconclusive for Monte Carlo reasons alone."
    parts = []
    if left:
        each = "; ".join(f"{q} (ran {ran:,}, about {need:,} would decide it: {need / ran:,.1f} times as many)"
                         for q, ran, need in left)  # fmt: skip
        parts.append(f"{len(left)} by an estimated number of replicates - {each}")
    if edge:
        each = "; ".join(f"{q} (ran {ran:,})" for q, ran in edge)
        parts.append(f"{len(edge)} whose estimate sits on an edge, for which no number is estimated - {each}")
    n = len(left) + len(edge)
    return (
        f"{n} compared row{'s are' if n > 1 else ' is'} left inconclusive for Monte Carlo reasons alone, which "
        f"this chapter does not run further within its time at this scale: {'; and '.join(parts)}."
    )


def rates_wide(rates: pd.DataFrame, what: str = "type I error") -> pd.DataFrame:
    """``rates_table``'s ``what`` as a table: a row per design, measure and size, a column per test, rate (se)."""
    r = rates[rates["what"] == what]
    if what == "power":
        r = r[r["delta"] == r.groupby(["design", "measure", "topics"])["delta"].transform("min")]
    cell = r.assign(cell=[f"{v:.3f} ({s:.3f})" for v, s in zip(r["rate"], r["se"])])
    out = cell.pivot_table(index=["design", "measure", "topics"], columns="test", values="cell", aggfunc="first",
                           sort=False)  # fmt: skip
    return out[[t for t in NAMES if t in out]].rename(columns=NAMES).rename_axis(columns=None).reset_index()


def family_wide(fam: pd.DataFrame, tests: Sequence[str] = ("paired-t", "wilcoxon")) -> pd.DataFrame:
    """``family_table`` as a table: a row per design, systems, topics and procedure; FWER and power (se)."""
    f = fam[fam["test"].isin(tests)]
    f = f.assign(col=[f"{NAMES[t]}: {w}" for t, w in zip(f["test"], f["what"])],
                 cell=[f"{v:.3f} ({s:.3f})" for v, s in zip(f["rate"], f["se"])])  # fmt: skip
    out = f.pivot_table(index=["design", "m", "topics", "procedure"], columns="col", values="cell",
                        aggfunc="first", sort=False)  # fmt: skip
    return (
        out[[f"{NAMES[t]}: {w}" for w in ("FWER", "power") for t in tests]]
        .rename_axis(columns=None)
        .reset_index()
    )


def advice_table(rates: pd.DataFrame, measure: str = "AP") -> pd.DataFrame:
    """Each test's type I error against its level per design over the design's sizes (the rule's words)."""
    r = rates[(rates["what"] == "type I error") & (rates["measure"] == measure)]
    rows = []
    for t in [t for t in NAMES if t in set(r["test"])]:
        row = {"test": NAMES[t]}
        for d, g in r[r["test"] == t].groupby("design", sort=False):
            g = g.sort_values("topics")
            row[f"{d}: {measure}, {COLLECTIONS.get(d, d)}, {_topics(g['topics'].tolist())}"] = (
                f"{level('0.05', list(g['rate']), list(g['se']), 'clustered by pair')}: {_parts(g['rate'])}"
            )
        rows.append(row)
    return pd.DataFrame(rows)


def recommendation(rates: pd.DataFrame, props: pd.DataFrame, trivial: pd.DataFrame | None = None,
                   measure: str = "AP") -> str:  # fmt: skip
    """The chapter's advice in sentences, each generated from the rows it names (markdown)."""
    adv = advice_table(rates, measure).set_index("test")
    words = {"at its level": _LEVEL_WORDS["replicated"], "too liberal": _LEVEL_WORDS["not replicated"] + " (above)",
             "conservative": _LEVEL_WORDS["not replicated"] + " (below)"}  # fmt: skip

    def having(col, word):
        return [t for t in adv.index if str(adv.loc[t, col]).split(":")[0] == words[word]]

    lines = []
    for col in adv.columns:
        told = {w: having(col, w) for w in words}
        rest = [t for t in adv.index if not any(t in v for v in told.values())]
        p = props[(props["design"] == col.split(":")[0]) & (props["measure"] == measure)]
        lean = (f"; its null differences lean by a signed-rank balance of {p['rank balance'].min():.3f} to "
                f"{p['rank balance'].max():.3f} (root mean square over pairs)" if len(p) else "")  # fmt: skip
        said = "; ".join(f"{w} on every size: {', '.join(v)}" for w, v in told.items() if v)
        more = f"; mixed or undecided: {', '.join(rest)}" if rest else ""
        lines.append(f"- **{col}**: {said or 'no test decided'}{more}{lean}.")
    every = [t for t in adv.index if all(str(v).split(":")[0] == words["at its level"] for v in adv.loc[t])]
    lines.append(f"- **On every design and size**: {', '.join(every) or 'no test'} kept its level by the rule "
                 "(the table above, one cell per design).")  # fmt: skip
    if trivial is not None and len(trivial):
        big = trivial[trivial["topics"] == trivial["topics"].max()]
        lines.append(f"- **At {int(big['topics'].iloc[0]):,} topics** {big['share'].min():.0%} to "
                     f"{big['share'].max():.0%} of each test's rejections are of an observed effect below the "
                     "minimal one: read the effect size and its interval (`irrepro compare --effect-size d_z`), "
                     "not the p-value alone.")  # fmt: skip
    return "\n".join(lines)


def by_measure(results: Mapping[tuple, UrbanoPValues], measure: str = "AP") -> dict:
    """``{(topics, delta): r}`` (``large_query_experiments``) keyed ``(measure, topics, delta)`` as the others."""
    return {(measure, *k): r for k, r in results.items()}


def families_frame(study, alpha: float = 0.05) -> pd.DataFrame:
    """The ranking-level design's families (``RankingStudy.families``) as one frame."""
    return pd.concat([f.frame(alpha) for f in study.families.values()], ignore_index=True)


def design_table(score, large, ranking) -> pd.DataFrame:
    """The three designs side by side: what each simulates, its sizes and trials at this scale."""
    rows = [
        ("after", "Urbano et al. (2019), section 3, as their code runs it (julian-urbano/sigir2019-statistical)",
         "Parapar et al. (2021); Otero et al. (2025), as their code runs it (davidoterof/ecir2025; table below)",
         "Ihemelandu & Ekstrand (2023), as their code runs it (nihemelandu/Research-Prj2-Pairwise-Testing)"),
        ("their data", "TREC-5..8 ad hoc, TREC 2010-13 Web score matrices", "TREC runs and qrels",
         "search and recommendation runs with thousands of queries or users (their data: not ours)"),
        ("data", "TREC-5..8 ad hoc: AP score matrices", "TREC-COVID round 5: its runs (identical lists once), round-5 qrels",
         "as the score-level design"),
        ("a system", "a margin per run, a copula per pair (AIC, maximum likelihood)",
         "per run and topic, the probability of relevance by log rank (penalised logistic), per grade",
         "as the score-level design"),
        ("null", "both systems from one run's margin, through the pair's copula",
         "both systems one run's model, drawn independently",
         "as the score-level design (their `11-pvals-type_1.R`: one margin through the pair's copula)"),
        ("alternative", "a run's margin moved to the baseline's mean + delta",
         "two runs whose expected scores differ by about delta", "as the score-level design"),
        ("topics", _topics(score.sizes), _topics(ranking.sizes),
         f"{_topics(large.sizes)} (their `R-scripts/Utility.R`: 25 to 20,000 users)"),
        ("trials per null row", f"{score.trials[0]:,}", f"{ranking.trials:,}", f"{large.trials[0]:,}"),
        ("deltas (power)", " / ".join(map(str, score.deltas)), " / ".join(map(str, ranking.deltas)),
         " / ".join(map(str, large.deltas))),
        ("resamples B", " / ".join(f"{b:,}" for b in score.B), f"{ranking.B:,}", " / ".join(f"{b:,}" for b in large.B)),
        ("several systems", "3, 5, 10 systems on 10, 30, 50 topics (vine copula per family)",
         f"{', '.join(map(str, ranking.k))} systems on {_topics(ranking.family_topics)}",
         "3, 5, 10 systems on 250 topics (the t-test and the Wilcoxon test)"),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["", *DESIGNS])


def _pm(rate: float, se: float) -> str:
    """A number with its 95% Monte Carlo interval's half-width."""
    return f"{rate:.3f} ± {1.96 * se:.3f}"


def findings_text(rates: pd.DataFrame, measure: str = "AP") -> dict[str, str]:
    """The type I rates the chapter's prose quotes, each with its 95% Monte Carlo interval."""
    r = rates[(rates["what"] == "type I error") & (rates["measure"] == measure)]
    top = r[r["topics"] == r.groupby("design")["topics"].transform("max")].set_index(["design", "test"])
    out = {f"wt_{t[0]}_{d.split('-')[0]}": _pm(top.loc[(d, t), "rate"], top.loc[(d, t), "se"])
           for d in DESIGNS for t in ("wilcoxon", "sign") if (d, t) in top.index}  # fmt: skip
    t = r[r["test"] == "paired-t"]
    out["wt_t_range"] = f"{t['rate'].min():.3f}-{t['rate'].max():.3f}"
    return out


def properties_text(props: pd.DataFrame, measure: str = "AP") -> dict[str, str]:
    """The leans in signed-rank balance the prose quotes: their range over each design's sizes, with errors."""
    p = props[props["measure"] == measure]
    out = {}
    for d in DESIGNS:
        g = p[p["design"] == d]
        if len(g):
            ends = dict.fromkeys(_pm(g.loc[i, "rank balance"], g.loc[i, "rank balance se"])
                                 for i in (g["rank balance"].idxmin(), g["rank balance"].idxmax()))  # fmt: skip
            out[f"wt_rank_{d.split('-')[0]}"] = " to ".join(ends)
    return out


def trivial_table(
    results: Mapping[tuple, UrbanoPValues], minimal: float = 0.2, alpha: float = 0.05
) -> pd.DataFrame:
    """Per size and delta: each test's power and the share of its rejections whose effect is below ``minimal``."""
    out = []
    for (n, delta), r in results.items():
        if delta == 0:
            continue
        m = r.minimal_effect(minimal, alpha).reset_index()
        out.append(m.assign(topics=n, delta=delta))
    f = pd.concat(out, ignore_index=True)
    f["test"] = f["test"].map(NAMES)
    return f.rename(columns={"rate": "power", "observed": "share"})[
        ["topics", "delta", "test", "power", "share", "observed_se", "true", "true_se", "trivial"]
    ]


def trivial_wide(trivial: pd.DataFrame) -> pd.DataFrame:
    """``trivial_table`` as a table: a row per size and delta, per test power / share below minimal (se)."""
    t = trivial.assign(cell=[f"{p:.3f} / {v:.3f} ({e:.3f})" for p, v, e in
                             zip(trivial["power"], trivial["share"], trivial["observed_se"])])  # fmt: skip
    out = t.pivot_table(index=["topics", "delta"], columns="test", values="cell", aggfunc="first", sort=False)
    out = out[[n for n in NAMES.values() if n in out]].rename_axis(columns=None)
    out.columns = [f"{c}: power / below" for c in out.columns]
    below = trivial.groupby(["topics", "delta"], sort=False)["trivial"].first().rename("true effect below")
    return out.join(below).reset_index()


def trivial_text(trivial: pd.DataFrame) -> dict[str, str]:
    """The share of the t-test's rejections below the minimal effect at the largest size, smallest delta."""
    t = trivial[trivial["test"] == NAMES["paired-t"]]
    row = t[(t["topics"] == t["topics"].max())].sort_values("delta").iloc[0]
    return {"wt_trivial_share": f"{row['share']:.0%} (± {1.96 * row['observed_se']:.0%})",
            "wt_trivial_size": f"{int(row['topics']):,}", "wt_trivial_delta": f"{row['delta']:g}"}  # fmt: skip
