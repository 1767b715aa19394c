"""The four papers' methods measured where the truth is known.

Type I error and power of paired significance tests, family-wise error, corpus-bootstrap coverage
and self-significance under the null.

One-line use::

    from irrepro import data, simulation as sim, known_truth as kt
    models = [sim.fit_collection(data.load_matrix(c, "AP"), seed=1) for c in ("trec5", "trec6", "trec7", "trec8")]
    null = kt.rejection_experiment(models, n_topics=50, seed=2)          # H0 true
    null.rates(alphas=(0.01, 0.05), tails=2)                              # tests x alphas
    alt = kt.rejection_experiment(models, n_topics=50, delta=0.05, seed=3)  # power

Trials are simulated in the manner of Urbano, Lima & Hanjalic (SIGIR 2019, section 3) from
:mod:`irrepro.simulation`'s margins and copulas.

**Decision rules.** A closed-form test rejects when p <= alpha (Urbano et al.'s empirical CDF of
p at alpha); a resampling test when its ASL < alpha (Sakai 2006), which with B resamples keeps
its type I error at or below alpha. One-tailed tests take H1: E[e] > E[b] (Urbano et al.'s
direction); for the closed-form tests the one-tailed p is p/2 on the side of the observed
statistic and 1 - p/2 on the other: exact below 1/2 for their symmetric null distributions; above
1/2 the discrete tests' exact value is a little larger.

**Seeds and workers.** Every experiment is cut into a fixed number of tasks, task ``i`` drawing
from child ``i`` of the seed (:func:`irrepro.parallel.spawn`), so results do not depend on ``n_jobs``.
"""

from __future__ import annotations

from . import _chapter_rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from . import _findings as findings  # noqa: F401  (the chapter's numbers for its prose)
from ._experiments import rejection_experiment
from ._family import family_experiment
from ._findings import simulator_checks
from ._finite_b import finite_b_bias, finite_b_checks
from ._papers import corpus_coverage, default_B, default_trials, self_significance_null
from ._pvalues import MC_TARGET, mc_error, mc_error_at
from ._urbano import SAKAI_TESTS, urbano_experiment
from ._urbano_sizes import POOL_ICC, design_effects, until_decided, urbano_design

__all__ = [
    "MC_TARGET",
    "POOL_ICC",
    "SAKAI_TESTS",
    "default_trials",
    "default_B",
    "mc_error",
    "mc_error_at",
    "rejection_experiment",
    "urbano_experiment",
    "urbano_design",
    "until_decided",
    "design_effects",
    "finite_b_bias",
    "finite_b_checks",
    "family_experiment",
    "corpus_coverage",
    "self_significance_null",
    "simulator_checks",
]
