"""Every paired significance test of pairs of runs, and the results table of a paper; the paper
modules (:mod:`irrepro.topic_split`, :mod:`irrepro.sensitivity`, :mod:`irrepro.known_truth`,
:mod:`irrepro.report`) call these tests and define none.

- :func:`pairwise_test` - any of the paired tests of :data:`TESTS` (the paired t-test, Wilcoxon's
  signed-rank test and the sign test, equal to scipy's; Sakai's paired and unpaired bootstrap
  tests; the bootstrap-shift test; the randomization test; randomised Tukey HSD) of many pairs at
  once, with ``baseline=`` and the p-values adjusted over the family (:data:`CORRECTIONS`), as a
  :class:`PairwiseResult`;
- :func:`paired_t_pvalues`, :func:`wilcoxon_pvalues`, :func:`sign_test_pvalues` - vectorised
  p-values of many rows of differences; :func:`two_sample_t_pvalues` - the unpaired t-test from
  the samples' summaries;
- :func:`paired_bootstrap_test`, :func:`unpaired_bootstrap_test` - Sakai's (2006) bootstrap tests
  on shared topic samples, as a :class:`BootstrapResult`;
- :func:`permutation_test` - Fisher's paired randomization test (Smucker, Allan & Carterette
  2007), exact for small topic sets, else one set of random sign flips (:func:`sign_flips`);
- :func:`tukey_hsd` - randomised Tukey HSD (Carterette 2012; Sakai 2018);
  :func:`tukey_hsd_pvalues` - the same for many score matrices at once;
- :func:`urbano_tests` - the five tests as Urbano, Lima & Hanjalic (2019) ran them, one- and
  two-tailed (:class:`TailedPValues`);
- :func:`effect_sizes` - the difference, Cohen's d_z or Sakai's ES_E (:func:`residual_variance`)
  of every pair with BCa intervals (:class:`EffectSizes`); :func:`win_tie_loss`;
- :func:`compare` - runs as rows, measures as columns, the means marked by significance
  (:class:`ComparisonTable`, written in any of :data:`FORMATS`); ``irrepro compare`` on the
  command line;
- :func:`methods_paragraph` - the methods paragraph of a comparison and its ir_metadata sidecar
  (:class:`Methods`).

Every function takes a ``(systems, topics)`` score matrix (a :class:`~irrepro.data.ScoreMatrix`
or an array), ``pairs`` ``(P, 2)`` or ``baseline``, and for the resampling tests ``B`` and
``seed``; the draws are made before the work is split, so the results are identical for any
``n_jobs``.
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
