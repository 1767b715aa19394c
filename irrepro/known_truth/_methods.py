"""The known-truth chapter's method table: each method's measured error rate beside the rate it promises."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

#: The paper each test's use comes from.
_FROM = {"paired-t": "Sanderson & Zobel", "wilcoxon": "Sanderson & Zobel", "sign": "Sanderson & Zobel",
         "bootstrap-shift": "Urbano et al.", "permutation": "Urbano et al.", "bootstrap": "Sakai",
         "unpaired-bootstrap": "Sakai"}  # fmt: skip


def _advice() -> dict[str, str]:
    """What a level means for a reader of the chapter's data, by the level's word."""
    from ._rows import _LEVEL_WORDS as LEVEL

    return {LEVEL["replicated"]: "keeps its level on our data",
            LEVEL["not replicated"] + " (above)": "avoid on our data: rejects true nulls too often",
            LEVEL["not replicated"] + " (below)": "conservative on our data: less power than its level allows",
            LEVEL["partly"] + " (above)": "level depends on the setting: check on your data",
            LEVEL["partly"] + " (below)": "level depends on the setting: check on your data",
            LEVEL["inconclusive"] + " (above)": "more trials would decide",
            LEVEL["inconclusive"] + " (below)": "more trials would decide"}  # fmt: skip


def method_table(null: Mapping, power: Mapping, fwer: pd.DataFrame, fwer_se: pd.DataFrame,
                 coverage: Mapping[str, pd.DataFrame], selfsig: Any, *, tests: Sequence[str],
                 measures: Sequence[str], sizes: Sequence[int], trials: int, self_trials: int,
                 corpora: int) -> pd.DataFrame:  # fmt: skip
    """Each method's measured error rate beside the rate it promises, judged by the book's rule."""
    from ._findings import rates_at
    from ._rows import _LEVEL_WORDS as LEVEL
    from ._rows import _TEST_NAMES as TEST_NAMES
    from ._rows import _spread_text as spread
    from ._rows import level as against

    advice_of = _advice()
    r5: Any
    s5: Any
    r5, s5 = rates_at(null)
    power_col = f"power, delta 0.05, 50 topics ({' / '.join(measures)})"
    above = LEVEL["not replicated"] + " (above)"
    truth = []
    for t in tests:
        rates = [float(null[k].rates([0.05]).iloc[0][t]) for k in null]
        ses = [float(null[k].se(0.05)[t]) for k in null]
        pows = [float(power[(m, 50, 0.05)].rates([0.05]).iloc[0][t]) for m in measures]
        pses = [float(power[(m, 50, 0.05)].se(0.05)[t]) for m in measures]
        lv = against("0.05", rates, ses, f"clustered by pair over {trials:,} trials")
        by_size = {n: against("0.05", r5.loc[[(m, n) for m in measures], t].tolist(),  # its level per size
                              s5.loc[[(m, n) for m in measures], t].tolist(), "clustered by pair") for n in sizes}  # fmt: skip
        ok = [n for n in sizes if by_size[n] == LEVEL["replicated"]]
        high = [n for n in sizes if by_size[n] == above]
        advice = advice_of[lv]
        off = [f"{m}, {n} topics" for (m, n) in null
               if against("0.05", [float(r5.loc[(m, n), t])], [float(s5.loc[(m, n), t])], "clustered by pair") == above]  # fmt: skip
        if ok and high and max(ok) < min(high):  # at its level with few topics, above it with many
            advice = (f"avoid with many topics on our data: at its level at {', '.join(map(str, ok))} topics, "
                      f"rejects true nulls too often at {', '.join(map(str, high))}")  # fmt: skip
        elif off and lv != above:
            advice += f" (above its level on {'; '.join(off)})"
        name = TEST_NAMES.get(t, {"bootstrap": "paired bootstrap (Sakai)"}.get(t, "unpaired bootstrap"))
        truth.append({"method": name, "from": _FROM[t], "promises": "alpha = 0.05",
                      "measured": "type I error " + spread(rates, ses), "level": lv,
                      power_col: " / ".join(f"{p_:.2f} ± {q:.2f}" for p_, q in zip(pows, pses)),
                      "on our data": advice,
                      "rests on": f"type I error, two-tailed, {len(rates)} settings ({', '.join(measures)} x 25, 50, 100 topics)"})  # fmt: skip
    for label, col, promise in [("unadjusted t-tests, 5 systems", "t, unadjusted", "0.05"),
                                ("Bonferroni / Holm", "t, Bonferroni / Holm", "at most 0.05"),
                                ("randomised Tukey HSD", "randomised Tukey HSD", "0.05")]:  # fmt: skip
        vals, ses = [float(x) for x in fwer[col]], [float(x) for x in fwer_se[col]]
        lv = against(promise, vals, ses, "clustered by family", unit="simulated family")
        truth.append({"method": label, "from": "Carterette (families)", "promises": f"family-wise error {promise}",
                      "measured": "family-wise error " + spread(vals, ses), "level": lv,
                      power_col: "", "on our data": advice_of[lv],
                      "rests on": "families of 5 systems x 50 topics, AP and P@10"})  # fmt: skip
    for meth in coverage["TREC-COVID R"].index:
        cov = [float(coverage[k].loc[meth, "coverage"]) for k in coverage]
        ses = [float(coverage[k].loc[meth, "se"]) for k in coverage]
        lv = against("0.95", cov, ses, "clustered by corpus and topic", unit="topic")
        adv = {LEVEL["not replicated"] + " (below)": "intervals too short on our data",
               LEVEL["not replicated"] + " (above)": "intervals too wide on our data"}.get(lv, advice_of[lv])  # fmt: skip
        truth.append({"method": f"corpus bootstrap, {meth}", "from": "Cormack & Lynam", "promises": "coverage 0.95",
                      "measured": "coverage " + spread(cov, ses), "level": lv,
                      power_col: "", "on our data": adv,
                      "rests on": f"TREC-COVID round 5, its own R and TREC-6's R, {corpora} drawn corpora each"})  # fmt: skip
    for form in ("raw", "standardized"):
        fp, se_ = float(selfsig.loc[form, "false-positive rate"]), float(selfsig.loc[form, "se"])
        lv = against("0.05", [fp], [se_], "sd of the per-trial rate over trials / sqrt(trials)", unit="trial")
        truth.append({"method": f"self-significance, {form} AP", "from": "Webber et al.", "promises": "alpha = 0.05",
                      "measured": "false-positive rate " + spread([fp], [se_]), "level": lv,
                      power_col: "", "on our data": advice_of[lv],
                      "rests on": f"TREC 2004 Robust, two topic sets of 50, {self_trials:,} trials"})  # fmt: skip
    return pd.DataFrame(truth)
