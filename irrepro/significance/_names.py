"""The names of the tests, corrections and table formats, without imports, so that the command line
offers them as choices without loading the tests.
"""

#: The tests of :func:`~irrepro.significance.compare` (``irrepro compare --test``), by the
#: name the command line takes, with the name the tables print.
TESTS = {
    "paired-t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "bootstrap": "paired bootstrap test",
    "permutation": "randomization (permutation) test",
    "tukey": "randomised Tukey HSD",
    "unpaired-bootstrap": "unpaired bootstrap test",
    "bootstrap-shift": "bootstrap-shift test",
}

#: The tests that resample (they take ``B`` and a seed), with their resamples when none are given.
DEFAULT_B = {"bootstrap": 1000, "permutation": 10_000, "tukey": 10_000, "unpaired-bootstrap": 1000,
             "bootstrap-shift": 1000}  # fmt: skip
RESAMPLING = tuple(DEFAULT_B)

#: The classical tests, computed in closed form (``comparison.classical_pairs``).
CLASSICAL = tuple(t for t in TESTS if t not in RESAMPLING)

#: Adjustments for multiple comparisons (``--correction``), by the name of statsmodels'
#: ``multipletests`` method (``irrepro.stats.adjust_pvalues``), with that method (None for
#: "none") and the label the tables print. Any other method name of ``multipletests`` is accepted
#: as it is.
CORRECTIONS = {
    "holm": ("holm", "Holm"),
    "fdr_bh": ("fdr_bh", "Benjamini-Hochberg"),
    "bonferroni": ("bonferroni", "Bonferroni"),
    "none": (None, "none"),
}
#: The correction of randomised Tukey HSD: its p-values are family-wise by construction.
FAMILY_WISE = "tukey"

#: The standardized effect sizes :func:`~irrepro.significance.compare` shows beside each run's
#: difference from the baseline (``irrepro compare --effect-size``;
#: :func:`~irrepro.significance.effect_sizes`).
EFFECT_SIZES = ("d_z", "ES_E")

#: The formats of the table :func:`~irrepro.significance.compare` returns (its ``render``).
FORMATS = ("text", "markdown", "latex", "csv")
