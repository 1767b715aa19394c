"""The one home of every paired significance test of pairs of runs, and the results table of a
paper: what researchers ask of ranx, PyTerrier and ir_measures (issue 16); the paper modules
(:mod:`irrepro.topic_split`, :mod:`irrepro.bootstrap_tests`, :mod:`irrepro.known_truth`,
:mod:`irrepro.report`) call these tests and define none.

- :func:`pairwise_test` - any of eight paired tests of many pairs at once (:data:`TESTS`: the paired
  t-test, Wilcoxon's signed-rank test and the sign test, equal to scipy's; Sakai's paired and
  unpaired bootstrap tests; the bootstrap-shift test; the randomization test; randomised Tukey
  HSD), with ``baseline=`` (a run against every other, the family being those S - 1 pairs) and the
  p-values adjusted over the family (statsmodels' names: ``"holm"``, ``"fdr_bh"``,
  ``"bonferroni"``, ``"none"``), as a :class:`PairwiseResult`;
- :func:`paired_t_pvalues`, :func:`wilcoxon_pvalues`, :func:`sign_test_pvalues` - the classical
  tests' vectorised p-values of many rows of differences, and :func:`two_sample_t_pvalues`, the
  unpaired t-test from the samples' summaries (:mod:`~irrepro.significance.classical`);
- :func:`paired_bootstrap_test`, :func:`unpaired_bootstrap_test` - Sakai's (2006) bootstrap
  tests, and :func:`bootstrap_shift_test`, on shared topic samples, as a :class:`BootstrapResult`
  (:mod:`~irrepro.significance.bootstrap`);
- :func:`permutation_test` - Fisher's paired randomization test (Smucker, Allan & Carterette 2007):
  exact for small topic sets, else one set of random sign flips (:func:`sign_flips`) for every
  pair, p-values equal to ``scipy.stats.permutation_test`` on the same permutations;
- :func:`tukey_hsd` - randomised Tukey HSD (Carterette 2012; Sakai 2018): family-wise p-values
  from the max statistic over all the pairs tested, per permutation of the scores within topics
  (:func:`tukey_hsd_pvalues`: the same for many score matrices at once, e.g. simulated families);
- :func:`urbano_tests` - the five tests as Urbano, Lima & Hanjalic (2019) ran them, each
  one- and two-tailed (:class:`TailedPValues`), on many pairs at once: the t-test,
  :func:`wilcoxon_r` (R's ``wilcox.test``), :func:`sign_test_urbano` (ties within 0.01),
  :func:`bootstrap_test_urbano` and :func:`permutation_test_urbano` (their C++ estimators)
  (:mod:`~irrepro.significance.urbano`);
- :func:`effect_sizes` - the difference, Cohen's d_z or Sakai's ES_E (residual variance of the
  two-way design, :func:`residual_variance`) of every pair, with BCa bootstrap intervals
  (:class:`EffectSizes`); :func:`win_tie_loss` - topics won, tied and lost per pair;
- :func:`compare` - runs as rows, measures as columns, the means marked by significance against
  a baseline or by the runs they beat, adjusted p-values and intervals
  (:class:`ComparisonTable`: ``to_frame``, ``to_string``, ``to_markdown``, ``to_latex``,
  ``to_csv``); ``irrepro compare`` on the command line;
- :func:`methods_paragraph` - the methods paragraph of a comparison, from the settings used, as
  Markdown and LaTeX, and its ir_metadata sidecar (:class:`Methods`; ``irrepro compare --methods``,
  ``irrepro report``'s Methods section).

Every function takes a ``(systems, topics)`` score matrix (a :class:`~irrepro.data.ScoreMatrix`
or an array), ``pairs`` ``(P, 2)`` or ``baseline``, and for the resampling tests ``B`` and
``seed``; the draws are made before the work is split, so the results are identical for any
``n_jobs``.

**Modules** (everything is re-exported here): :mod:`~irrepro.significance.result` (the result,
the tests' and corrections' names), :mod:`~irrepro.significance.classical` (t, Wilcoxon, sign),
:mod:`~irrepro.significance.bootstrap` (Sakai's bootstrap tests, the shift test),
:mod:`~irrepro.significance._samples` (bootstrap samples, pairs, summaries),
:mod:`~irrepro.significance.randomization` (permutation test,
Tukey HSD), :mod:`~irrepro.significance.pairwise` (any test in one call),
:mod:`~irrepro.significance.effects` (effect sizes, win / tie / loss),
:mod:`~irrepro.significance.urbano` (the tests as Urbano et al. 2019 ran them) and
:mod:`~irrepro.significance.table` (the table), :mod:`~irrepro.significance.comparison` (:func:`compare`,
which builds it) and :mod:`~irrepro.significance.methods` (the methods paragraph).
"""

# The names (TESTS, CORRECTIONS, FORMATS) load at once, the tests on first use (PEP 562): the
# command line offers the names as choices and `irrepro eval` loads neither pandas nor scipy.
from .. import _lazy
from ._names import CORRECTIONS, FORMATS, TESTS

_LAZY = {
    "EFFECTS": "effects", "EffectSizes": "effects", "effect_sizes": "effects", "residual_variance": "effects",
    "win_tie_loss": "effects", "pairwise_test": "pairwise", "classical_pairs": "pairwise", "permutation_test": "randomization",
    "sign_flips": "randomization", "tukey_hsd": "randomization", "tukey_hsd_pvalues": "randomization",
    "PairwiseResult": "result", "ComparisonTable": "table", "compare": "comparison",
    "paired_t_pvalues": "classical", "wilcoxon_pvalues": "classical", "sign_test_pvalues": "classical",
    "two_sample_t_pvalues": "classical",
    "BootstrapResult": "bootstrap", "paired_bootstrap_test": "bootstrap", "unpaired_bootstrap_test": "bootstrap",
    "bootstrap_shift_test": "bootstrap", "TailedPValues": "urbano", "wilcoxon_r": "urbano",
    "sign_test_urbano": "urbano", "bootstrap_test_urbano": "urbano", "permutation_test_urbano": "urbano",
    "urbano_tests": "urbano", "Methods": "methods", "methods_paragraph": "methods",
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
    "bootstrap_shift_test",
    "sign_flips",
    "permutation_test",
    "tukey_hsd",
    "tukey_hsd_pvalues",
    "TailedPValues",
    "wilcoxon_r",
    "sign_test_urbano",
    "bootstrap_test_urbano",
    "permutation_test_urbano",
    "urbano_tests",
    "EFFECTS",
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
