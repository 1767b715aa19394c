"""The report's settings, without pandas or scipy (``irrepro report`` checks its arguments first): its
sizes, its files' names, the design of its topic-set sizes and the resamples of its pairwise tests."""

from __future__ import annotations

from dataclasses import dataclass

from .. import parallel
from .._text import slug

#: The files every report may write whatever its measure (the per-topic table is named after it).
REPORT_FILES = ("index.html", "summary.csv", "runs.csv", "pairs.csv", "error-rates.csv", "topic-set-size.csv",
                "methods.md", "methods.tex", "ir_metadata.yml")  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The sizes of the report's computations (:func:`settings`)."""

    B_tests: int
    B_corpus: int
    B_swap: int
    max_size: int
    B_halves: int
    scale: str


def settings(scale: str | None = None) -> Settings:
    """The papers' sizes (``"paper"``; None too, whatever ``IRREPRO_SCALE`` says) or small ones (``"quick"``).

    >>> from irrepro import report
    >>> report.settings("quick")
    Settings(B_tests=200, B_corpus=200, B_swap=10, max_size=25, B_halves=50, scale='quick')
    """
    scale = "paper" if scale is None else parallel.check_scale(scale)
    if scale != "quick":
        return Settings(B_tests=1000, B_corpus=2000, B_swap=50, max_size=25, B_halves=1000, scale=scale)
    return Settings(B_tests=200, B_corpus=200, B_swap=10, max_size=25, B_halves=50, scale=scale)


def _per_topic_file(measure: str) -> str:
    """The name of the report's per-topic table of ``measure``."""
    return f"{slug(measure) or 'scores'}-per-topic.csv"


#: The design of the topic-set sizes: a difference of 0.05 found with power 0.8 at alpha 0.05.
DESIGN_MIN_DIFF, DESIGN_POWER, DESIGN_ALPHA = 0.05, 0.8, 0.05


#: The most resamples the pairwise tests are raised to for the corrections (beyond: the scale's B, said).
PAIRS_B_MAX = 100_000


def _pairs_resamples(n_runs: int, baseline: str | None, test: str, B_tests: int) -> tuple[int, str]:
    """The pairwise tests' B, raised for Holm / BH over the pairs up to PAIRS_B_MAX, and why ("" if not)."""
    from ..significance.comparison import _comparisons
    from ..stats import corrected_resamples

    m = _comparisons(n_runs, baseline)
    if test == "tukey":
        return B_tests, ""
    B = corrected_resamples(m, DESIGN_ALPHA, "holm", default=B_tests)
    if B == B_tests:
        return B, ""
    need = f"B >= 20 m / alpha = {20 * m / DESIGN_ALPHA:,.0f} resolves their smallest threshold, alpha / m"
    if B > PAIRS_B_MAX:
        return B_tests, (
            f"Holm and Benjamini-Hochberg over m = {m:,} pairs at alpha {DESIGN_ALPHA:g} are not resolved at "
            f"the paired tests' B = {B_tests:,} ({need}, more than the report's {PAIRS_B_MAX:,}): a pair no "
            "replicate reaches has ASL 0, below every threshold, so their counts may be too high; "
            "--baseline tests fewer pairs"
        )
    return B, (f"paired-test B = {B:,}: the scale's {B_tests:,} raised for Holm and Benjamini-Hochberg over "
               f"m = {m:,} pairs at alpha {DESIGN_ALPHA:g}: {need}")  # fmt: skip
