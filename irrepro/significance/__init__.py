"""Every paired significance test of pairs of runs, and the results table of a paper; the paper
modules call these tests and define none.

Every test takes a ``(systems, topics)`` score matrix (a :class:`~irrepro.data.ScoreMatrix` or an
array, ``scores``), the ``pairs`` it compares (``(P, 2)`` system indices, default all pairs) or a
``baseline`` (a system's name or index: every other system against it), and for the resampling
tests ``B`` and ``seed``; the draws are made before the work is split, so the results are
identical for any ``n_jobs``.
"""

# The names (TESTS, CORRECTIONS, FORMATS) load at once, the tests on first use (PEP 562): the
# command line offers the names as choices and `irrepro eval` loads neither pandas nor scipy.
from .. import _lazy
from ._names import CORRECTIONS, FORMATS, TESTS

_LAZY = {
    "EffectSizes": "effects", "effect_sizes": "effects", "residual_variance": "effects",
    "win_tie_loss": "effects", "pairwise_test": "pairwise", "classical_pairs": "pairwise", "permutation_test": "randomization",
    "sign_flips": "randomization", "tukey_hsd": "randomization", "tukey_hsd_pvalues": "randomization",
    "PairwiseResult": "result", "ComparisonTable": "table", "compare": "comparison",
    "paired_t_pvalues": "classical", "wilcoxon_pvalues": "classical", "sign_test_pvalues": "classical",
    "two_sample_t_pvalues": "classical",
    "BootstrapResult": "bootstrap", "paired_bootstrap_test": "bootstrap", "unpaired_bootstrap_test": "bootstrap",
    "TailedPValues": "urbano", "urbano_tests": "urbano", "Methods": "methods", "methods_paragraph": "methods",
}  # fmt: skip


def __getattr__(name: str):
    return _lazy.load(__name__, _LAZY, name)


def __dir__():
    return _lazy.names(__name__, _LAZY)


__all__ = [
    "TESTS",
    "CORRECTIONS",
    "PairwiseResult",
    "pairwise_test",
    "classical_pairs",
    "paired_t_pvalues",
    "wilcoxon_pvalues",
    "sign_test_pvalues",
    "two_sample_t_pvalues",
    "BootstrapResult",
    "paired_bootstrap_test",
    "unpaired_bootstrap_test",
    "sign_flips",
    "permutation_test",
    "tukey_hsd",
    "tukey_hsd_pvalues",
    "TailedPValues",
    "urbano_tests",
    "EffectSizes",
    "effect_sizes",
    "residual_variance",
    "win_tie_loss",
    "FORMATS",
    "ComparisonTable",
    "compare",
    "Methods",
    "methods_paragraph",
]
