"""Plan a study before building it: how many topics a test collection needs, from a user's pilot
runs - topic-set size design (Sakai, "Topic set size design", Information Retrieval Journal 19,
2016), generalizability theory (Brennan 2001; Urbano, Marrero & Martin, SIGIR 2013) and power by
simulation from the known-truth simulator (Urbano, Lima & Hanjalic, SIGIR 2019).

``irrepro design RUNS --qrels Q -m nDCG@10 --min-diff 0.02`` prints the table and draws the power
curve. Every random step takes a ``seed``; the results do not depend on the number of workers.
"""

from . import _rows as rows  # noqa: F401  (the chapter's rows for the book's rule)
from ._anova import two_way_anova
from ._gtheory import d_study, drop_worst, expected_correlation, topics_for_reliability, topics_needed
from ._power import PowerCurve, simulated_power
from ._sizes import METHODS, power_closed_form, topic_set_size, topic_set_sizes
from ._tukey import tukey_table

__all__ = [
    "two_way_anova",
    "d_study",
    "topics_needed",
    "topics_for_reliability",
    "expected_correlation",
    "drop_worst",
    "METHODS",
    "topic_set_size",
    "topic_set_sizes",
    "power_closed_form",
    "simulated_power",
    "PowerCurve",
    "tukey_table",
]
