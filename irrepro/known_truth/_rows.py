"""The known-truth chapter's rows for the book's rule: our rejection rates beside Urbano et al.'s (2019)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ._pvalues import PValues, mc_error
from ._urbano import UrbanoPValues

#: The unit a known-truth rate's Monte Carlo error is clustered by: the trials of one simulated
#: pair share its margins and copula.
_UNIT = "system pair"

#: Tests of Urbano et al. that carry the name of one of ours but are another test: their rows are
#: context (no common quantity), the note giving their rate. ``{B}`` is their number of resamples.
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
    other_tests: Mapping[str, str] | None = None,
) -> list[dict]:
    """Rows for :func:`irrepro.book.compare`: our rejection rates beside Urbano et al.'s."""
    if kind not in ("type1", "power", "type3"):
        raise ValueError(f"kind {kind!r}: 'type1', 'power' or 'type3'")
    if kind == "type3":
        tails = 2
    names = dict(getattr(numbers, "names", {}) or {})
    code = {ours: theirs for theirs, ours in names.items()} or {
        "AP": "ap", "P@10": "p10", "nDCG@20": "ndcg20", "paired-t": "t", "wilcoxon": "w", "sign": "s",
        "bootstrap-shift": "b", "permutation": "p",
    }  # fmt: skip
    from ..book import errors
    from ..book import rate as rate_row

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
        others = (_OTHER_TESTS if not urbano else {}) if other_tests is None else other_tests
        pairs = len(np.unique(r.pair))
        for t in r.tests:
            at = f"a{alpha:g}" if kind == "type1" else f"d{r.delta:g}"
            key = f"{kind}.{code.get(m, m)}.{n}.{code.get(t)}{tails}.{at}"
            ours = float(rate[t])
            why = (f"no sampled data: the simulated pairs and topics are the Monte Carlo draws, clustered by system "
                   f"pair: {r.trials:,} trials in {pairs} pairs; binomial over the trials {mc_error(ours, r.trials):.2g}")  # fmt: skip
            err = errors(
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
            rows.append(rate_row(f"{m}, {n} topics, {t}", paper, ours, err, nominal=nominal, **extra))
    return rows


def _level_rows(
    method: str,
    promised: str,
    values: Sequence[float],
    ses: Sequence[float],
    settings: Sequence[str] | None = None,
    *,
    unit: str = _UNIT,
    replicates: int | None = None,
    reason: str = "",
) -> list[dict]:
    """A method's measured error rates beside the rate it promises: rows of kind ``"rate"`` for the rule."""
    from ..book import errors, rate

    if len(values) != len(ses) or not len(values):
        raise ValueError("level takes one standard error per measured rate")
    names = list(settings) if settings is not None else [f"setting {i + 1}" for i in range(len(values))]
    if len(names) != len(values):
        raise ValueError("level takes one setting name per measured rate")
    nominal = float(promised.split()[-1])
    # a promised level is exact, not a printed number of its precision: "0.05" is read as 0.0500
    exact = " ".join([*promised.split()[:-1], f"{nominal:.4f}"])
    why = reason or "no sampled data: the trials are the simulation's Monte Carlo draws"
    return [
        rate(
            f"{method}, {name}",
            exact,
            float(v),
            errors(mc=float(e), unit=unit, replicates=replicates, reason=why),
            nominal=nominal,
        )
        for name, v, e in zip(names, values, ses)
    ]


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
    from .._rule import judge_row

    rows = _level_rows("rate", promised, values, ses, unit=unit, replicates=replicates, reason=se_reason)
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


def _spread_text(values: Sequence[float], ses: Sequence[float], digits: int = 3) -> str:
    """The rates' range and their largest standard error: ``"0.049-0.052 (se ≤ 0.002)"``."""
    d = digits
    shown = f"{min(values):.{d}f}-{max(values):.{d}f}" if len(values) > 1 else f"{values[0]:.{d}f}"
    return shown + f" (se ≤ {max(ses):.2g})"


def status_counts(comparison) -> str:
    """The rows of a comparison by status, in words: ``"40 replicated, 5 inconclusive"``."""
    from ..book import STATUSES

    c = comparison.frame["status"].value_counts()
    return ", ".join(f"{int(c[s])} {s}" for s in STATUSES if s in c)


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
