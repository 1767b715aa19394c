"""Plan a study before building it: how many topics a test collection needs, from a user's pilot
runs - topic-set size design (Sakai, "Topic set size design", Information Retrieval Journal 19,
2016), generalizability theory (Brennan 2001; Urbano, Marrero & Martin, SIGIR 2013) and power by
simulation from the known-truth simulator (:mod:`irrepro.simulation`; Urbano, Lima & Hanjalic,
SIGIR 2019).

One-line use::

    from irrepro import data, design
    pilot = data.load_matrix("trec8", "AP")
    design.two_way_anova(pilot).table                        # ANOVA, omega^2
    design.topic_set_sizes(pilot, min_diff=0.02, power=0.8)  # Sakai's three methods, intervals
    design.d_study(design.two_way_anova(pilot), [25, 50, 100]).to_frame()   # E rho^2, Phi
    design.simulated_power(pilot, min_diff=0.02, test="wilcoxon", seed=1).to_frame()

What is here:

- :func:`two_way_anova` -> :class:`Anova` - the system x topic ANOVA without replication (equal to
  statsmodels' ``anova_lm``), omega^2 and the variance components;
- :func:`d_study` -> :class:`DStudy` - E rho^2 and Phi for any number of topics;
  :func:`topics_for_reliability` and :func:`topics_needed` - the topics that reach a target
  coefficient; :func:`expected_correlation` - the correlation with the systems' true ranking
  that a coefficient predicts; :func:`drop_worst` - the pilot without its worst runs;
- :func:`topic_set_size` -> :class:`TopicSetSize`, :func:`topic_set_sizes` - Sakai's paired t-test,
  one-way ANOVA and CI-width methods (:data:`METHODS`), each with a bootstrap interval over the
  pilot's topics; :func:`power_closed_form` - their power curves;
- :func:`simulated_power` -> :class:`PowerCurve` - power of any test of
  :mod:`irrepro.significance` (with or without a correction across m systems) against the number
  of topics, simulated from the pilot, with clustered Monte Carlo errors; :func:`power_curve` - the
  same from any sampler of scores;
- :func:`tukey_table` - all pairs after the ANOVA: the classical Tukey HSD (statsmodels', on the
  two-way residual) beside the package's randomised one (``irrepro compare --anova``);
- :func:`size_rows`, :func:`variance_rows`, :func:`agreement_rows`, :func:`claim_rows` and
  :func:`pair_power` - the planning chapter's rows for the book's rule.

``irrepro design RUNS --qrels Q -m nDCG@10 --min-diff 0.02`` prints the table and draws the power
curve (:func:`irrepro.plots.plot_power_curve`). Every random step takes a ``seed``; the results do
not depend on the number of workers.
"""

from ._anova import Anova, two_way_anova
from ._gtheory import DStudy, d_study, drop_worst, expected_correlation, topics_for_reliability, topics_needed
from ._power import PowerCurve, power_curve, simulated_power
from ._rows import agreement_rows, claim_rows, pair_power, size_rows, variance_rows
from ._sizes import METHODS, TopicSetSize, power_closed_form, topic_set_size, topic_set_sizes
from ._tukey import tukey_table

__all__ = [
    "Anova",
    "two_way_anova",
    "DStudy",
    "d_study",
    "drop_worst",
    "expected_correlation",
    "topics_for_reliability",
    "topics_needed",
    "METHODS",
    "TopicSetSize",
    "topic_set_size",
    "topic_set_sizes",
    "power_closed_form",
    "PowerCurve",
    "power_curve",
    "simulated_power",
    "tukey_table",
    "size_rows",
    "variance_rows",
    "agreement_rows",
    "claim_rows",
    "pair_power",
]
