"""Evaluation measures over whole run sets at once, list by list (trec_eval's conventions), named as
ir_measures names them (strings or its objects, its aliases), by trec_eval's names or the project's
own; results carry ir_measures' canonical name (``parse_measure("MRR@10").name == "RR@10"``). Each
measure's definition and trec_eval's conventions: the API reference page (book/api/measures.md)."""

from .._measure_names import parse_measure  # noqa: F401  (the other families read measure names)
from .aggregates import GM_EPSILON, aggregate  # noqa: F401  (GM_EPSILON: the significance tests)
from .evaluation import evaluate, summarize, to_dict, to_frame, to_trec_eval
from .kernel import average_precision  # noqa: F401  (the corpus bootstrap's AP)
from .trec_names import trec_eval_name  # noqa: F401  (the significance tests' metadata)

__all__ = ["aggregate", "evaluate", "summarize", "to_dict", "to_frame", "to_trec_eval"]
