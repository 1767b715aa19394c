"""Urbano et al.'s published rates in the form of the known-truth chapter's figures, and the Monte Carlo check of our rates."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def _mc_rows(label: str, rates: pd.Series, ses: pd.Series, n: int, target: float) -> list[dict]:
    """One row per test of an experiment's Monte Carlo check (:func:`mc_check`)."""
    from ._pvalues import mc_error_at

    return [{"experiment": label, "test": t, "rate": rates[t], "trials": n, "se": ses[t], "target": target,
             "MC error of a 5% rate": mc_error_at(rates[t], ses[t], n)} for t in rates.index]  # fmt: skip


def _codes(numbers) -> dict[str, str]:
    """Our names of tests and measures -> theirs in the yml's keys (``"wilcoxon"`` -> ``"w"``)."""
    return {ours: theirs for theirs, ours in numbers.names.items()}


def their_type1(
    numbers, *, measures: Sequence[str], sizes: Sequence[int], tests: Sequence[str]
) -> pd.DataFrame:
    """Urbano et al.'s published type I rates (both tails, every alpha in the yml), for the type I panels."""
    from ._pvalues import ALPHAS

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
