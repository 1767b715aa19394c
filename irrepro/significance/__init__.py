"""Every paired significance test of pairs of runs, and the results table of a paper; the paper
modules call these tests and define none.

Every test takes a ``(systems, topics)`` score matrix (a :class:`~irrepro.data.ScoreMatrix` or an
array, ``scores``), the ``pairs`` it compares (``(P, 2)`` system indices, default all pairs) or a
``baseline`` (a system's name or index: every other system against it), and for the resampling
tests ``B`` and ``seed``; the draws are made before the work is split, so the results are
identical for any ``n_jobs``.
"""

# The names (TESTS, CORRECTIONS, EFFECT_SIZES, FORMATS) load at once, the tests on first use (PEP 562): the
# command line offers the names as choices and `irrepro eval` loads neither pandas nor scipy.
from .. import _lazy
from ._names import CORRECTIONS, EFFECT_SIZES, FORMATS, TESTS

_LAZY = {
    "paired_t_pvalues": "classical", "wilcoxon_pvalues": "classical", "sign_test_pvalues": "classical",
    "permutation_test": "randomization", "paired_bootstrap_test": "bootstrap", "unpaired_bootstrap_test": "bootstrap",
    "effect_sizes": "effects", "win_tie_loss": "effects", "compare": "comparison", "methods_paragraph": "methods",
    # not API: what other subpackages reach here (tests, results and tables are imported from their modules)
    "pairwise_test": "comparison", "classical_pairs": "comparison", "PairwiseResult": "result",
    "tukey_hsd": "randomization", "sign_flips": "randomization", "tukey_hsd_pvalues": "randomization",
    "residual_variance": "effects", "Methods": "methods",
}  # fmt: skip


def __getattr__(name: str):
    return _lazy.load(__name__, _LAZY, name)


def __dir__():
    return _lazy.names(__name__, _LAZY)


__all__ = [
    "TESTS",
    "CORRECTIONS",
    "EFFECT_SIZES",
    "FORMATS",
    "paired_t_pvalues",
    "wilcoxon_pvalues",
    "sign_test_pvalues",
    "permutation_test",
    "paired_bootstrap_test",
    "unpaired_bootstrap_test",
    "effect_sizes",
    "win_tie_loss",
    "compare",
    "methods_paragraph",
]
