"""The four papers' methods measured where the truth is known: type I error and power of paired
significance tests, family-wise error, corpus-bootstrap coverage and self-significance under the null.

Trials are simulated as Urbano, Lima & Hanjalic (SIGIR 2019, section 3) do, from
:mod:`irrepro.simulation`'s margins and copulas. A closed-form test rejects when p <= alpha, a
resampling test when its ASL < alpha (Sakai 2006); one-tailed tests take H1: E[e] > E[b]. Task ``i``
of an experiment draws from child ``i`` of the seed, so results do not depend on ``n_jobs``.
"""

from __future__ import annotations

from . import _findings as findings  # noqa: F401  (the chapter's numbers for its prose)
from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from . import _rows_which as which  # noqa: F401  (the chapter "Which test?": its tables and rows)
from ._experiments import rejection_experiment
from ._family import family_experiment
from ._large import large_query_design, large_query_experiments
from ._multiple import multiple_experiment
from ._papers import corpus_coverage, default_sizes, self_significance_null
from ._pvalues import finite_b_checks, mc_error
from ._rankings import ranking_design, ranking_study
from ._urbano import SAKAI_TESTS, urbano_experiment
from ._urbano_sizes import until_decided, urbano_design

__all__ = [
    "SAKAI_TESTS",
    "default_sizes",
    "mc_error",
    "rejection_experiment",
    "urbano_experiment",
    "urbano_design",
    "ranking_design",
    "ranking_study",
    "large_query_design",
    "large_query_experiments",
    "until_decided",
    "finite_b_checks",
    "family_experiment",
    "multiple_experiment",
    "corpus_coverage",
    "self_significance_null",
]
