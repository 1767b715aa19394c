"""The known-truth chapter's rows for the book's one rule: our rejection rates beside Urbano, Lima &
Hanjalic's (2019) published ones (:func:`comparison_rows`), and a method's measured error rate against
the rate it promises (:func:`level`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ._pvalues import PValues, mc_error
from ._urbano import UrbanoPValues

__all__ = ["OTHER_TESTS", "LEVEL_WORDS", "comparison_rows", "level"]

#: Tests of Urbano et al. that carry the name of one of ours but are another test: their rows are
#: context (no common quantity), the note giving their rate. ``{B}`` is their number of resamples.
OTHER_TESTS = {
    "sign": "their sign test counts |d| <= 0.01 as a tie, ours only d = 0",
}

#: The rule's status of measured rates against a promised rate, in words of a method's level.
LEVEL_WORDS = {
    "replicated": "at its level",
    "not replicated": "off its level",
    "partly": "mixed",
    "inconclusive": "undecided",
}


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
    """Rows for :func:`irrepro.book.compare`: our rejection rates beside Urbano et al.'s.

    One row per configuration ``(measure, topics)`` of ``results`` and test of
    :data:`~irrepro.known_truth.TESTS`, each a rate (kind ``"rate"``) with our Monte Carlo standard
    error clustered by simulated pair (:meth:`PValues.se`; ``se_reason`` names the trials and pairs
    and gives the binomial error, which the trials of one pair would understate) and, where the
    paper's value is compared, its number of trials (``paper_n``, the yml's ``trials.type1`` or
    ``trials.power``). A test of theirs that is another test than ours of the same name
    (``other_tests``) gives a context row: no paper value, a note with their rate and the difference.

    Parameters
    ----------
    results : mapping
        ``(measure, topics)`` -> :class:`PValues` (``measure`` as the chapter names it: ``"AP"``).
    numbers : mapping
        Urbano et al.'s numbers (:func:`irrepro.book.paper_numbers`): keys
        ``type1.<m>.<topics>.<test><tails>.a<alpha>``, ``power.<m>.<topics>.<test><tails>.d<delta>``,
        ``trials.type1``, ``trials.power`` and ``resamples``; its ``names`` map their letters to ours.
    kind : {"type1", "power", "type3"}
        Which of their rates (type III: two-tailed significance with the observed difference of
        the wrong sign, :meth:`UrbanoPValues.type3`; ``tails`` is then 2).
    tails : {2, 1}
        Two- or one-tailed.
    alpha : float
        The significance level.
    notes : mapping or None
        Test -> a note for its compared rows.
    other_tests : mapping, optional
        Test -> why theirs is another test (formatted with ``B``, their resamples); None:
        :data:`OTHER_TESTS` for :func:`rejection_experiment`'s results, none for
        :func:`urbano_experiment`'s (their tests, as they ran them).

    Returns
    -------
    list of dict
        The rows: quantity, paper, ours, kind, ours_se, se_reason, note and, for compared rows,
        paper_n.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro import known_truth as kt
    >>> p = np.ones((len(kt.TESTS), 40)); p[:, :2] = 0.01                  # 2 of 40 trials reject
    >>> r = kt.PValues(kt.TESTS, p, p, np.repeat(np.arange(4), 10), 0.0, 25, 100)
    >>> numbers = {"trials.type1": 1000, "type1.ap.25.t2.a0.05": 0.05}
    >>> row = kt.comparison_rows({("AP", 25): r}, numbers)[0]
    >>> row["quantity"], row["kind"], row["ours"], row["paper_n"]
    ('AP, 25 topics, paired-t', 'rate', 0.05, 1000)
    """
    if kind not in ("type1", "power", "type3"):
        raise ValueError(f"kind {kind!r}: 'type1', 'power' or 'type3'")
    if kind == "type3":
        tails = 2
    names = dict(getattr(numbers, "names", {}) or {})
    code = {ours: theirs for theirs, ours in names.items()} or {
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
        others = (OTHER_TESTS if not urbano else {}) if other_tests is None else other_tests
        pairs = len(np.unique(r.pair))
        for t in r.tests:
            at = f"a{alpha:g}" if kind == "type1" else f"d{r.delta:g}"
            key = f"{kind}.{code.get(m, m)}.{n}.{code.get(t)}{tails}.{at}"
            ours = float(rate[t])
            row = {
                "quantity": f"{m}, {n} topics, {t}",
                "paper": numbers[key] if key in numbers else None,
                "ours": ours,
                "kind": "rate",
                "ours_se": float(se[t]),
                "se_reason": (
                    f"clustered by simulated pair: {r.trials:,} trials in {pairs} pairs; "
                    f"binomial over the trials {mc_error(ours, r.trials):.2g}"
                ),
                "note": notes.get(t, "" if key in numbers else "not in their study"),
            }
            if key in numbers and t in others:
                why = others[t].format(B=value(numbers.get("resamples", 0)) or 0)
                row["paper"] = None
                row["note"] = f"context: {why}; their rate {float(value(numbers[key]) or 'nan'):.4f}"
            elif key in numbers:
                row["paper_n"] = int(value(numbers[f"trials.{kind}"]) or 0)
            rows.append(row)
    return rows


def level(promised: str, values: Sequence[float], ses: Sequence[float], se_reason: str = "") -> str:
    """A method's measured error rates against the rate it promises, by the book's one rule.

    Each measured rate is judged by :func:`irrepro.book.judge` (kind ``"rate"``, our Monte Carlo
    error ``ses``) with the promised rate in the paper's place; the settings combine into one word
    of :data:`LEVEL_WORDS`: *at its level* (inside the margin on every setting), *off its level*
    (outside on every one), *mixed* (both), *undecided* (an interval straddles the margin); any word
    but the first says whether the rates lie above or below the promise.

    Parameters
    ----------
    promised : str
        The promised rate as the rule reads it: ``"0.05"``, ``"at most 0.05"``, ``"0.95"``.
    values, ses : sequence of float
        The measured rates, one per setting, and their Monte Carlo standard errors.
    se_reason : str
        Where the errors come from (required where one is 0).

    Returns
    -------
    str
        The word, e.g. ``"at its level"`` or ``"off its level (above)"``.

    Examples
    --------
    >>> from irrepro import known_truth as kt
    >>> kt.level("0.05", [0.049, 0.052], [0.002, 0.002]), kt.level("0.05", [0.11], [0.002])
    ('at its level', 'off its level (above)')
    """
    from ..book import judge

    if len(values) != len(ses) or not len(values):
        raise ValueError("level takes one standard error per measured rate")
    st = {
        judge(promised, float(v), kind="rate", ours_se=float(s), se_reason=se_reason).status
        for v, s in zip(values, ses)
    }
    if st == {"replicated"}:
        return LEVEL_WORDS["replicated"]
    if st == {"not replicated"}:
        word = LEVEL_WORDS["not replicated"]
    elif {"replicated", "not replicated"} <= st:
        word = LEVEL_WORDS["partly"]
    else:
        word = LEVEL_WORDS["inconclusive"]
    target = float(promised.split()[-1])
    return word + (" (above)" if float(np.mean(values)) > target else " (below)")
