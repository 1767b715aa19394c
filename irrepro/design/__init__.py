"""Plan a study before building it: how many topics a test collection needs, from a user's pilot
runs - topic-set size design (Sakai, "Topic set size design", Information Retrieval Journal 19,
2016), generalizability theory (Brennan 2001; Urbano, Marrero & Martin, SIGIR 2013) and power by
simulation from the known-truth simulator (Urbano, Lima & Hanjalic, SIGIR 2019); ``irrepro design``.
"""

from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from ._anova import tukey_table, two_way_anova
from ._gtheory import d_study, drop_worst, expected_correlation, topics_needed
from ._power import simulated_power
from ._sizes import METHODS, power_closed_form, topic_set_sizes

__all__ = [
    "two_way_anova",
    "d_study",
    "topics_needed",
    "expected_correlation",
    "drop_worst",
    "METHODS",
    "topic_set_sizes",
    "power_closed_form",
    "simulated_power",
    "tukey_table",
]
