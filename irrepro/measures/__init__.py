"""Evaluation measures over whole run sets at once, list by list (trec_eval's conventions).

Measures are named as ir_measures names them - as strings (``"nDCG@10"``, ``"AP(rel=2)"``,
``"RBP(rel=1,p=0.5)"``, ``"ir_measures.nDCG@10"``) or as ir_measures objects (``nDCG@10``,
``AP(rel=2)``) - with ir_measures' aliases (``MAP``, ``MRR``, ``BPref``, ``NDCG``, ``NumRelRet``,
``SetRelP``, ...), trec_eval's names (``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank``,
``num_rel_ret``, ``iprec_at_recall_0.10``, ``11pt_avg``, ``gm_map``, ...) and the project's own
(``Q``, ``nDCG_sakai@k``, ...). Results carry the canonical name: ir_measures' ``str()`` of the
measure where ir_measures has it (``parse_measure("MRR@10").name == "RR@10"``), including a
relevance level other than 1 (``evaluate(..., rel=2)`` names AP ``"AP(rel=2)"``).

Each measure's definition, its trec_eval name and trec_eval's conventions (topics, averages,
relevance, ranking) are tabled on the API reference's page of this module (book/api/measures.md).
"""

from .._measure_names import parse_measure  # noqa: F401  (the other families read measure names)
from .aggregates import GM_EPSILON, aggregate  # noqa: F401  (GM_EPSILON: the significance tests)
from .evaluation import evaluate, summarize, to_dict, to_frame, to_trec_eval
from .kernel import average_precision  # noqa: F401  (the corpus bootstrap's AP)
from .trec_names import trec_eval_name  # noqa: F401  (the significance tests' metadata)

__all__ = ["aggregate", "evaluate", "summarize", "to_dict", "to_frame", "to_trec_eval"]
