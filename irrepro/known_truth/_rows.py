"""The known-truth chapter's rows and tables for the book's rule: our rejection rates beside Urbano
et al.'s (2019), and each method's measured error rate beside the rate it promises."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _lazy
from .._rule import judge_row
from ._pvalues import ALPHAS, PValues, _mc_error_at, mc_error
from ._urbano import UrbanoPValues

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book

#: The unit a known-truth rate's Monte Carlo error is clustered by (its trials share margins and copula).
_UNIT = "system pair"

#: Tests of Urbano et al. named as one of ours but another test: context rows (``{B}``: their resamples).
_OTHER_TESTS = {
    "sign": "their sign test counts |d| <= 0.01 as a tie, ours only d = 0",
}

#: Urbano et al.'s five tests by name.
_TEST_NAMES = {
    "paired-t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "bootstrap-shift": "bootstrap test of the mean",
    "permutation": "paired permutation test",
}

#: The rule's status of measured rates against a promised rate, in words of a method's level.
_LEVEL_WORDS = {"replicated": "at its level", "not replicated": "off its level", "partly": "mixed",
               "inconclusive": "undecided"}  # fmt: skip


def simulation_se(rate: float, clustered: float, clusters: int) -> float:
    """The Monte Carlo error of a simulated rate: the clustered one, or Agresti & Coull's where that is 0."""
    from ..book._rows import _agresti_coull_se

    if clustered > 0 or clusters < 1:
        return float(clustered)
    return float(_agresti_coull_se(rate * clusters, clusters))


def comparison_rows(
    results: Mapping[tuple, PValues],
    numbers: Mapping,
    kind: str = "type1",
    *,
    tails: int = 2,
    alpha: float = 0.05,
    notes: Mapping[str, str] | None = None,
) -> list[dict]:
    """Rows for :func:`irrepro.book.compare`: our rejection rates beside Urbano et al.'s."""
    if kind not in ("type1", "power", "type3"):
        raise ValueError(f"kind {kind!r}: 'type1', 'power' or 'type3'")
    if kind == "type3":
        tails = 2
    code = _codes(numbers) or {
        "AP": "ap", "P@10": "p10", "nDCG@20": "ndcg20", "paired-t": "t", "wilcoxon": "w", "sign": "s",
        "bootstrap-shift": "b", "permutation": "p",
    }  # fmt: skip
    value = lambda x: getattr(x, "value", x)  # noqa: E731  (a PaperValue, or the number itself)
    notes = dict(notes or {})
    rows = []
    for (m, n), r in results.items():
        urbano = isinstance(r, UrbanoPValues)
        if kind == "type3":
            if not isinstance(r, UrbanoPValues):
                raise ValueError("type III rates need urbano_experiment's results (UrbanoPValues)")
            rate, se = r.type3(alpha), r.type3_se(alpha)
        else:
            rate, se = r.rates([alpha], tails).iloc[0], r.se(alpha, tails)
        others = {} if urbano else _OTHER_TESTS
        pairs = len(np.unique(r.pair))
        for t in r.tests:
            at = f"a{alpha:g}" if kind == "type1" else f"d{r.delta:g}"
            key = f"{kind}.{code.get(m, m)}.{n}.{code.get(t)}{tails}.{at}"
            ours = float(rate[t])
            why = (f"no sampled data: the simulated pairs and topics are the Monte Carlo draws, clustered by system "
                   f"pair: {r.trials:,} trials in {pairs} pairs; binomial over the trials {mc_error(ours, r.trials):.2g}")  # fmt: skip
            err = book.errors(
                mc=simulation_se(ours, float(se[t]), pairs), unit=_UNIT, replicates=int(r.trials), reason=why
            )
            extra: dict = {"note": notes.get(t, "" if key in numbers else "not in their study")}
            paper = numbers[key] if key in numbers else None
            if key in numbers and t in others:
                why = others[t].format(B=value(numbers.get("resamples", 0)) or 0)
                paper = None
                extra["note"] = f"context: {why}; their rate {float(value(numbers[key]) or 'nan'):.4f}"
            elif key in numbers:
                extra["paper_n"] = int(value(numbers[f"trials.{kind}"]) or 0)
            nominal = alpha if kind == "type1" else None
            rows.append(book.rate(f"{m}, {n} topics, {t}", paper, ours, err, nominal=nominal, **extra))
    return rows


def _level_rows(
    promised: str,
    values: Sequence[float],
    ses: Sequence[float],
    *,
    unit: str,
    replicates: int | None,
    reason: str,
) -> list[dict]:
    """Measured error rates beside the rate promised: rows of kind ``"rate"`` for the rule."""
    if len(values) != len(ses) or not len(values):
        raise ValueError("level takes one standard error per measured rate")
    nominal = float(promised.split()[-1])
    # a promised level is exact, not a printed number of its precision: "0.05" is read as 0.0500
    exact = " ".join([*promised.split()[:-1], f"{nominal:.4f}"])
    why = reason or "no sampled data: the trials are the simulation's Monte Carlo draws"
    return [
        book.rate(f"rate, setting {i + 1}", exact, float(v), book.errors(mc=float(e), unit=unit, replicates=replicates, reason=why),
             nominal=nominal)
        for i, (v, e) in enumerate(zip(values, ses))
    ]  # fmt: skip


def level(
    promised: str,
    values: Sequence[float],
    ses: Sequence[float],
    se_reason: str = "",
    *,
    unit: str = _UNIT,
    replicates: int | None = None,
) -> str:
    """A method's measured rates against its promised rate, in one word of :data:`_LEVEL_WORDS`."""
    rows = _level_rows(promised, values, ses, unit=unit, replicates=replicates, reason=se_reason)
    st = {judge_row(r).status for r in rows}
    if st == {"replicated"}:
        return _LEVEL_WORDS["replicated"]
    if st == {"not replicated"}:
        word = _LEVEL_WORDS["not replicated"]
    elif {"replicated", "not replicated"} <= st:
        word = _LEVEL_WORDS["partly"]
    else:
        word = _LEVEL_WORDS["inconclusive"]
    target = float(promised.split()[-1])
    return word + (" (above)" if float(np.mean(values)) > target else " (below)")


def rates_at(results: Mapping, alpha: float = 0.05) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two-tailed rejection rates at ``alpha`` of every configuration and test, and their clustered se."""
    rates = pd.DataFrame({k: r.rates([alpha]).iloc[0] for k, r in results.items()}).T
    ses = pd.DataFrame({k: r.se(alpha) for k, r in results.items()}).T
    return rates, ses


def with_z(comparison):
    """A copy of the comparison with a column ``z = (ours - theirs) / se`` after ``status``."""
    import dataclasses

    f = comparison.frame.copy()
    z = [
        f"{v:+.1f}" if isinstance(v, (int, float)) and np.isfinite(v) else ""
        for v in f.get("z", [None] * len(f))
    ]
    cols = list(f.columns)
    f.insert(cols.index("status") + 1, "z = (ours - theirs) / se", z)
    return dataclasses.replace(comparison, frame=f)


def _spread_text(values: Sequence[float], ses: Sequence[float]) -> str:
    """The rates' range and their largest standard error: ``"0.049-0.052 (se ≤ 0.002)"``."""
    shown = f"{min(values):.3f}-{max(values):.3f}" if len(values) > 1 else f"{values[0]:.3f}"
    return shown + f" (se ≤ {max(ses):.2g})"


def status_counts(comparison) -> str:
    """The rows of a comparison by status, in words: ``"40 replicated, 5 inconclusive"``."""
    c = comparison.frame["status"].value_counts()
    return ", ".join(f"{int(c[s])} {s}" for s in book.STATUSES if s in c)


def trials_needed(*comparisons) -> dict:
    """The trials that would decide the rows found inconclusive for Monte Carlo reasons, per configuration."""
    need: dict = {}
    ran: dict = {}
    rows = 0
    for c in comparisons:
        f = c.frame
        if "why" not in f:
            continue
        for _, r in f[f["why"] == "monte-carlo"].iterrows():
            rows += 1
            key = (c.item, r["quantity"].rsplit(", ", 1)[0])
            need[key] = max(need.get(key, 0), int(r["replicates_needed"]))
            ran[key] = int(r["replicates"])
    return {
        "rows": rows,
        "configurations": len(need),
        "needed": int(sum(need.values())),
        "ran": int(sum(ran.values())),
        "largest": int(max(need.values(), default=0)),
    }


def verdict_rows(type1, type1_one, power, power_topics) -> list[dict]:
    """The verdict's rows: per test of Urbano et al.'s, its type I error and its power beside theirs."""
    rows = []
    for t, label in _TEST_NAMES.items():
        ends = f", {t}"
        rows += [
            {"quantity": f"{label}: type I error at alpha = 0.05 beside Urbano et al.'s (both tails, 25-100 topics)",
             "paper": None, "same_as": [c.row(q) for c in (type1, type1_one) for q in c.frame["quantity"] if q.endswith(ends)]},
            {"quantity": f"{label}: power at delta = 0.05 beside Urbano et al.'s ({', '.join(map(str, power_topics))} topics)",
             "paper": None, "same_as": [power.row(q) for q in power.frame["quantity"] if q.endswith(ends)]},
        ]  # fmt: skip
    return rows


def _mc_rows(label: str, rates: pd.Series, ses: pd.Series, n: int, target: float) -> list[dict]:
    """One row per test of an experiment's Monte Carlo check (:func:`mc_check`)."""
    return [{"experiment": label, "test": t, "rate": rates[t], "trials": n, "se": ses[t], "target": target,
             "MC error of a 5% rate": _mc_error_at(rates[t], ses[t], n)} for t in rates.index]  # fmt: skip


def _codes(numbers) -> dict[str, str]:
    """Our names of tests and measures -> theirs in the yml's keys (``"wilcoxon"`` -> ``"w"``)."""
    return {ours: theirs for theirs, ours in (getattr(numbers, "names", None) or {}).items()}


def their_type1(
    numbers, *, measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str]
) -> pd.DataFrame:
    """Urbano et al.'s published type I rates (both tails, every alpha in the yml), for the type I panels."""
    code = _codes(numbers)
    return pd.DataFrame([{"measure": m, "topics": n, "test": t, "tails": tl, "alpha": a,
                          "value": numbers[f"type1.{code[m]}.{n}.{code[t]}{tl}.a{a:g}"].value}
                         for m in measures for n in sizes for t in tests for tl in (1, 2) for a in ALPHAS
                         if f"type1.{code[m]}.{n}.{code[t]}{tl}.a{a:g}" in numbers])  # fmt: skip


def their_by_delta(numbers, *, measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str],
                   deltas: Sequence[float]) -> pd.DataFrame:  # fmt: skip
    """Urbano et al.'s power (both tails) and type III (two-tailed) rates, for the by-delta panels."""
    code = _codes(numbers)
    return pd.DataFrame([{"kind": kind, "measure": m, "topics": n, "test": t, "tails": tl, "delta": d,
                          "value": numbers[f"{kind}.{code[m]}.{n}.{code[t]}{tl}.d{d:g}"].value}
                         for kind, tails in (("power", (1, 2)), ("type3", (2,))) for m in measures for n in sizes
                         for t in tests for tl in tails for d in deltas])  # fmt: skip


#: The tests whose null holds under equal means (the sign and Wilcoxon tests' does not).
MEAN_TESTS = ["paired-t", "bootstrap-shift", "permutation", "bootstrap", "unpaired-bootstrap"]


def mc_check(null, same_mean, family, target: float, family_target: float) -> pd.DataFrame:
    """The Monte Carlo check of every type I error rate at alpha = 0.05 against its experiment's target."""
    mc = pd.DataFrame(
        [row for (m, n), r in null.items() for tl in (1, 2)
         for row in _mc_rows(f"{m}, {n} topics, {tl}-tailed", r.rates([0.05], tl).iloc[0], r.se(0.05, tl), r.trials, target)]
        + [row for m, r in same_mean.items()
           for row in _mc_rows(f"{m}, equal means", r.rates([0.05]).iloc[0][MEAN_TESTS], r.se(0.05), r.trials, target)]
        + [row for m, f in family.items()
           for row in _mc_rows(f"{m}, families of 5", f.fwer(0.05), f.se(0.05), len(f.min_p), family_target)]
    )  # fmt: skip
    mc["below target"] = mc["MC error of a 5% rate"] <= mc["target"]
    return mc


#: The paper each test's use comes from.
_FROM = {"paired-t": "Sanderson & Zobel", "wilcoxon": "Sanderson & Zobel", "sign": "Sanderson & Zobel",
         "bootstrap-shift": "Urbano et al.", "permutation": "Urbano et al.", "bootstrap": "Sakai",
         "unpaired-bootstrap": "Sakai"}  # fmt: skip


#: What a level means for a reader of the chapter's data, by the level's word.
_ADVICE = {_LEVEL_WORDS["replicated"]: "keeps its level on our data",
           _LEVEL_WORDS["not replicated"] + " (above)": "avoid on our data: rejects true nulls too often",
           _LEVEL_WORDS["not replicated"] + " (below)": "conservative on our data: less power than its level allows",
           _LEVEL_WORDS["partly"] + " (above)": "level depends on the setting: check on your data",
           _LEVEL_WORDS["partly"] + " (below)": "level depends on the setting: check on your data",
           _LEVEL_WORDS["inconclusive"] + " (above)": "more trials would decide",
           _LEVEL_WORDS["inconclusive"] + " (below)": "more trials would decide"}  # fmt: skip


def method_table(null: Mapping, power: Mapping, fwer: pd.DataFrame, fwer_se: pd.DataFrame,
                 coverage: Mapping[str, pd.DataFrame], selfsig: Any, *, tests: Sequence[str],
                 measures: Sequence[str], sizes: Sequence[int], trials: int, self_trials: int,
                 corpora: int) -> pd.DataFrame:  # fmt: skip
    """Each method's measured error rate beside the rate it promises, judged by the book's rule."""

    r5: Any
    s5: Any
    r5, s5 = rates_at(null)
    power_col = f"power, delta 0.05, 50 topics ({' / '.join(measures)})"
    above = _LEVEL_WORDS["not replicated"] + " (above)"
    truth = []

    def add(method, source, promises, what, values, ses, lv, advice, rests, power=""):
        truth.append({"method": method, "from": source, "promises": promises, "measured": f"{what} {_spread_text(values, ses)}",
                      "level": lv, power_col: power, "on our data": advice, "rests on": rests})  # fmt: skip

    for t in tests:
        rates = [float(null[k].rates([0.05]).iloc[0][t]) for k in null]
        ses = [float(null[k].se(0.05)[t]) for k in null]
        pows = [float(power[(m, 50, 0.05)].rates([0.05]).iloc[0][t]) for m in measures]
        pses = [float(power[(m, 50, 0.05)].se(0.05)[t]) for m in measures]
        lv = level("0.05", rates, ses, f"clustered by pair over {trials:,} trials")
        by_size = {n: level("0.05", r5.loc[[(m, n) for m in measures], t].tolist(),  # its level per size
                              s5.loc[[(m, n) for m in measures], t].tolist(), "clustered by pair") for n in sizes}  # fmt: skip
        ok = [n for n in sizes if by_size[n] == _LEVEL_WORDS["replicated"]]
        high = [n for n in sizes if by_size[n] == above]
        advice = _ADVICE[lv]
        off = [f"{m}, {n} topics" for (m, n) in null
               if level("0.05", [float(r5.loc[(m, n), t])], [float(s5.loc[(m, n), t])], "clustered by pair") == above]  # fmt: skip
        if ok and high and max(ok) < min(high):  # at its level with few topics, above it with many
            advice = (f"avoid with many topics on our data: at its level at {', '.join(map(str, ok))} topics, "
                      f"rejects true nulls too often at {', '.join(map(str, high))}")  # fmt: skip
        elif off and lv != above:
            advice += f" (above its level on {'; '.join(off)})"
        name = _TEST_NAMES.get(t, {"bootstrap": "paired bootstrap (Sakai)"}.get(t, "unpaired bootstrap"))
        add(name, _FROM[t], "alpha = 0.05", "type I error", rates, ses, lv, advice,
            f"type I error, two-tailed, {len(rates)} settings ({', '.join(measures)} x 25, 50, 100 topics)",
            " / ".join(f"{p_:.2f} ± {q:.2f}" for p_, q in zip(pows, pses)))  # fmt: skip
    for label, col, promise in [("unadjusted t-tests, 5 systems", "t, unadjusted", "0.05"),
                                ("Bonferroni / Holm", "t, Bonferroni / Holm", "at most 0.05"),
                                ("randomised Tukey HSD", "randomised Tukey HSD", "0.05")]:  # fmt: skip
        vals, ses = [float(x) for x in fwer[col]], [float(x) for x in fwer_se[col]]
        lv = level(promise, vals, ses, "clustered by family", unit="simulated family")
        add(label, "Carterette (families)", f"family-wise error {promise}", "family-wise error", vals, ses, lv,
            _ADVICE[lv], "families of 5 systems x 50 topics, AP and P@10")  # fmt: skip
    for meth in coverage["TREC-COVID R"].index:
        cov = [float(coverage[k].loc[meth, "coverage"]) for k in coverage]
        ses = [float(coverage[k].loc[meth, "se"]) for k in coverage]
        lv = level("0.95", cov, ses, "clustered by corpus and topic", unit="topic")
        adv = {_LEVEL_WORDS["not replicated"] + " (below)": "intervals too short on our data",
               _LEVEL_WORDS["not replicated"] + " (above)": "intervals too wide on our data"}.get(lv, _ADVICE[lv])  # fmt: skip
        add(f"corpus bootstrap, {meth}", "Cormack & Lynam", "coverage 0.95", "coverage", cov, ses, lv, adv,
            f"TREC-COVID round 5, its own R and TREC-6's R, {corpora} drawn corpora each")  # fmt: skip
    for form in ("raw", "standardized"):
        fp, se_ = float(selfsig.loc[form, "false-positive rate"]), float(selfsig.loc[form, "se"])
        lv = level("0.05", [fp], [se_], "sd of the per-trial rate over trials / sqrt(trials)", unit="trial")
        add(f"self-significance, {form} AP", "Webber et al.", "alpha = 0.05", "false-positive rate", [fp], [se_], lv,
            _ADVICE[lv], f"TREC 2004 Robust, two topic sets of 50, {self_trials:,} trials")  # fmt: skip
    return pd.DataFrame(truth)


def design_table(numbers, ours, full) -> pd.DataFrame:
    """Urbano et al.'s design and ours (``urbano_design`` at this scale, and at full): a row per aspect, and why."""
    return pd.DataFrame([
        ("data", "TREC-5..8 ad hoc (AP, P@10), TREC 2010-13 Web (nDCG@20, ERR@20), RR",
         "the same score matrices (their repository's files); AP, P@10 and nDCG@20", "the measures of their main figures"),
        ("margins", "simIReff's candidates per system, chosen by AIC",
         "irrepro.simulation's candidates (truncated normal, beta, kernel; beta-binomial and discrete kernel for P@10), by AIC",
         "simIReff is R; the families cover the same shapes (checks below)"),
        ("copulas", "VineCopula's BiCopSelect: all parametric families, AIC, maximum likelihood",
         "pyvinecopulib: all parametric families with rotations, AIC, maximum likelihood", "the same selection"),
        ("null (type I)", "both systems' scores from the baseline's margin, through the pair's copula",
         "the same (null='same-margin')", "-"),
        ("alternative (power)", "experimental margin moved to the baseline's mean + delta by effTransform (a beta transformation)",
         "moved by a one-parameter Lehmann transformation, solved for the exact mean (eq. kt-lehmann)",
         "one parameter keeps the shape closest to the run's own; the mean is exact either way"),
        ("pairs", "a random collection, pair of systems and topic set per trial",
         ("the same; " if ours.pool is None else
          f"a pool of {ours.pool:,} pairs per measure drawn as their trials draw pairs (per delta for power), "
          "every trial one of them and a random topic set; ") + "the same sequence of pairs at 25, 50 and 100 topics",
         ("" if ours.pool is None else
          "each pair's copula is fitted once (a maximum-likelihood selection costs about 11 ms), the Monte Carlo "
          "error is clustered by pair and the trials sized for it; ")
         + "common random numbers: the growth with the number of topics is measured on the same pairs"),
        ("trials per row", f"{numbers['trials.type1'].value:,} (type I), {numbers['trials.power'].value:,} (power)",
         f"{ours.trials:,} (type I), {ours.power_trials:,} (power; up to {ours.decide_trials:,} where more decide a "
         f"compared row) at this scale; IRREPRO_SCALE=full: {full.trials:,} and {full.power_trials:,}",
         f"a type I rate at alpha = .05 to a Monte Carlo error of {ours.se}, clustered by pair, in a build of minutes"),
        ("resamples B", f"{numbers['resamples'].value:,}", f"{ours.B:,} (full: {full.B:,})",
         "the bias a finite B puts in a rate is checked below against its Monte Carlo error"),
        ("tests", "R's t.test and wilcox.test, their sign test (|d| <= 0.01 a tie), their C++ bootstrap and permutation",
         "ports checked against their README's p-values to 1e-6 (tests/test_significance_urbano.py)", "-"),
        ("more tests", "-", "Sakai's paired (studentised) and unpaired bootstrap tests on the same trials",
         "the tests of the Sakai chapter"),
        ("measures of 'power'", "power at every alpha and delta; type III from the power trials",
         "the same; power and type III at 50 topics at this scale (all three sizes at full)", "build time"),
    ], columns=["aspect", "Urbano et al. (2019)", "this chapter", "why"])  # fmt: skip
