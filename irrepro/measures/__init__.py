"""Evaluation measures over whole run sets at once, list by list (trec_eval's conventions).

Measures are named as ir_measures names them - as strings (``"nDCG@10"``, ``"AP(rel=2)"``,
``"RBP(rel=1,p=0.5)"``, ``"ir_measures.nDCG@10"``) or as ir_measures objects (``nDCG@10``,
``AP(rel=2)``) - with ir_measures' aliases (``MAP``, ``MRR``, ``BPref``, ``NDCG``, ``NumRelRet``,
``SetRelP``, ...), trec_eval's names (``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank``,
``num_rel_ret``, ``iprec_at_recall_0.10``, ``11pt_avg``, ``gm_map``, ...) and the project's own
(``Q``, ``nDCG_sakai@k``, ...). Results carry the canonical name: ir_measures' ``str()`` of the
measure where ir_measures has it (``parse_measure("MRR@10").name == "RR@10"``), including a
relevance level other than 1 (``evaluate(..., rel=2)`` names AP ``"AP(rel=2)"``).

=====================  ========================  ===========================================================
irrepro / ir_measures  trec_eval                 definition and convention
=====================  ========================  ===========================================================
``AP``                 ``map``                   average precision: (1/R) sum over the relevant ranks of the
                                                 precision there (Sakai's AveP)
``AP@k``               ``map_cut_k``             the same over the top k, still divided by R
``P@k``                ``P_k``                   relevant in the top k / k
``R@k``                ``recall_k``              relevant in the top k / R
``Rprec``              ``Rprec``                 precision at rank R
``RR``, ``RR@k``       ``recip_rank``            1 / rank of the first relevant document (in the top k);
                                                 ``MRR@10`` is ``RR@10`` (MS MARCO's)
``Success@k``          ``success_k``             1 if a relevant document is in the top k
``Bpref``              ``bpref``                 Buckley & Voorhees 2004, as m_bpref.c
``infAP``              ``infAP``                 Yilmaz & Aslam's inferred AP, as m_infap.c: a qrels grade <
                                                 0 marks a pooled but unjudged document
``nDCG``, ``nDCG@k``   ``ndcg``, ``ndcg_cut_k``  DCG / ideal DCG, gain = grade (or ``gains``), discount
                                                 1/log2(rank + 1); ``nDCG(gains={0:0,1:1,2:3})@10`` sets its
                                                 own gains
``RBP``, ``RBP@k``     ``rbp``                   rank-biased precision (Moffat & Zobel 2008), p = 0.8 unless
                                                 given (ir_measures' default; trec_eval's is 0.9). Graded
                                                 unless ``rel`` is given: a topic's gains are divided by
                                                 that topic's largest gain when it exceeds 1 (m_rbp.c;
                                                 NIST's TREC-COVID ``rbp_p5`` is ``RBP(p=0.5)``);
                                                 ``RBP(rel=r)``: binary, relevant = grade >= r; ``@k``: the
                                                 sum stops at rank k
``ERR``, ``ERR@k``     (gdeval.pl)               expected reciprocal rank as TREC Web 2010-2014's gdeval.pl
                                                 computes it (ir_measures' provider): stop probability
                                                 (2**grade - 1) / 2**4, grades 0..4 (a larger judged grade
                                                 is an error, as there)
``Judged@k``           (cf. ``unj_k``)           judged documents in the top min(k, L) / min(k, L)
                                                 (ir_measures'); a qrels grade < 0 is not a judgment
                                                 (trec_eval's convention; ir_measures counts any qrels line)
``NumRet``             ``num_ret``               documents retrieved (summed over topics, not averaged)
``NumRelRet``          ``num_rel_ret``           relevant documents retrieved, summed (``NumRet(rel=r)``)
``NumRel``             ``num_rel``               R, the relevant documents judged, summed
``NumQ``               ``num_q``                 topics, summed
``IPrec@r``            ``iprec_at_recall_r``     interpolated precision at recall r, at the (long)(r R +
                                                 0.9)-th relevant document as trec_eval 9 and pytrec_eval
                                                 count (trec_eval 10 rounds r R to nearest: other values
                                                 when its fraction is in [0.1, 0.5))
``11pt_avg``           ``11pt_avg``              the mean of ``IPrec@0.0`` ... ``IPrec@1.0`` (ir_measures
                                                 has no name for it)
``SetP``               ``set_P``                 relevant retrieved / retrieved
``SetRelP``            ``set_relative_P``        relevant retrieved / min(retrieved, R)
                                                 (``SetP(relative=True)``)
``SetR``               ``set_recall``            relevant retrieved / R
``SetF``               ``set_F``                 (beta + 1) P R / (beta P + R) with SetP and SetR, beta = 1
                                                 unless given (``SetF(beta=0.5)``; trec_eval's x, not
                                                 squared)
``SetAP``              ``set_map``               SetP x SetR
``gm_map``             ``gm_map``                per topic AP; summarised by trec_eval's geometric mean
                                                 exp(mean(log(max(x, 0.00001)))); likewise ``gm_bpref`` and
                                                 ``gm_`` before any measure
``G_AP``               (irrepro)                 per topic AP; summarised by Sakai's (2006) geometric mean
                                                 exp(mean(log(x + 0.00001))) (G_AveP); ``G_`` before any
                                                 measure
``SP``                 (irrepro)                 AP x R: the sum of the precisions at the relevant ranks
``PDoc@k``             (irrepro)                 ``P@k`` under Sakai's (2006) name
``DCG@k``              (irrepro)                 the sum over the top k of gain / log2(rank + 1)
``nDCG_sakai@k``       (irrepro)                 Sakai's nDCG_l: discount 1 at ranks <= 2, 1 / log2(rank)
                                                 beyond (NTCIREVAL)
``nCG@k``              (irrepro)                 cumulative gain at k / the ideal one (Sakai 2006, Sec. 2.1)
``Q``                  (irrepro)                 Sakai's Q-measure, beta = 1 (Sakai 2006, Sec. 2.1)
=====================  ========================  ===========================================================

**Geometric means.** ``gm_`` and ``G_`` go before a per-topic measure, once: ``gm_gm_map`` and
``G_gm_map`` are refused (``gm_map`` is already a geometric mean). ``G_`` takes log(x + 0.00001),
undefined for a score below -0.00001, so it is refused for a measure that can be negative
(``utility`` with a negative weight); ``gm_`` takes log(max(x, 0.00001)) and stays defined. A
geometric mean over topics has no per-topic score: ``irrepro standardize`` refuses it (standardize
the per-topic measure). The prefix ``G_`` is read by what follows it: ``G_`` followed by digits
and ``=`` (``G_1=3,2=9``: grade 1 gains 3, grade 2 gains 9) is trec_eval's measure G with its
gains, as trec_eval prints it; ``G_`` followed by a measure name is Sakai's geometric mean of that
measure (``G_AP``; ``G_G`` of trec_eval's G, ``G_G_1=3,2=9`` of G with gains).

trec_eval's measures that ir_measures lacks go by trec_eval's names, with ir_measures' syntax for
their parameters (``relative_P@5`` is trec_eval's ``relative_P_5``, which is read too), each
computed as trec_eval 10's C code (its ``m_*.c``) computes it; with the table above, every measure
of ``trec_eval -m all_trec`` but ``relstring`` (a string, not a number):

=========================  ==========================  =====================================================
irrepro                    trec_eval                   definition and convention
=========================  ==========================  =====================================================
``relative_P@k``           ``relative_P_k``            relevant in the top k / min(k, R)
``Rprec_mult@x``           ``Rprec_mult_x``            precision at rank (long)(x R + 0.9), 0 there when
                                                       that is 0: at multiples of R (trec_eval prints x =
                                                       0.2, 0.4, ..., 2.0)
``utility``                ``utility``                 p1 a + p2 b + p3 c, with a the relevant documents
                                                       retrieved, b the others retrieved, c the relevant not
                                                       retrieved; ``utility(rel_ret=p1,nonrel_ret=p2,``
                                                       ``rel_missed=p3)``, by default 1, -1, 0 (the weights
                                                       may be negative; trec_eval's p4, of the documents
                                                       neither relevant nor retrieved, needs the
                                                       collection's size: not offered); averaged over topics
``binG``                   ``binG``                    (1/R) sum over the relevant documents retrieved of 1
                                                       / log2(2 + the documents above it that are not
                                                       relevant)
``G``                      ``G``                       sum over the retrieved documents of gain / log2(2 +
                                                       cost - cg), cg the run's cumulative gain there, cost
                                                       the sum so far of max(ideal gain, 1); over the ideal
                                                       list's total gain (m_G.c)
``ndcg_rel``               ``ndcg_rel``                nDCG averaged over the documents with a positive
                                                       gain: at the rank of each one retrieved, the whole
                                                       run's for each one not retrieved (0 unless positive)
``Rndcg``                  ``Rndcg``                   nDCG@c averaged over the ranks c where the ideal gain
                                                       drops, and the whole run's when the run is longer
                                                       than the ideal list plus one; 0 where R = 0 at
                                                       ``rel`` (its only use of ``rel``)
``num_nonrel_judged_ret``  ``num_nonrel_judged_ret``   judged non-relevant documents retrieved (summed over
                                                       topics)
``unj@k``                  ``unj_k``                   unjudged documents in the top k / k (``Judged@k``
                                                       divides by min(k, L))
``rbp_resid``              ``rbp_resid``               RBP's residual (1 - p) sum over the unjudged ranks i
                                                       of p**(i-1), + p**L: how much RBP could still rise, p
                                                       = 0.9 unless given (trec_eval's: ``rbp_resid(p=0.5)``
                                                       is its ``rbp_resid_p=0.5``), but 0 for a list without
                                                       unjudged documents, as there
=========================  ==========================  =====================================================

``G``, ``ndcg_rel`` and ``Rndcg`` take ``gains`` as ``nDCG`` does (gains >= 0; trec_eval also
allows negative ones and a gain for grade 0), and order the ideal list by gain exactly (trec_eval
compares gains by their difference cast to an integer, so gains less than 1 apart may come in
either order there). ``Rndcg`` where R > 0 but no gain is positive (``gains={1:0}``) is 0 (trec_eval:
NaN).

Every name ``irrepro eval --format trec_eval`` prints reads back as its measure, and so do
trec_eval's ``-m`` options: gains as ``grade=gain`` pairs (``ndcg_1=3,2=9`` or ``ndcg.1=3,2=9`` is
``nDCG(gains={1:3,2:9})``, and likewise ``G``, ``ndcg_rel``, ``Rndcg``), utility's four weights
p1,p2,p3,p4 (``utility_2,-0.5,-1,0`` or ``utility.2,-0.5,-1,0`` is
``utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)``; p4 must be 0), ``rbp_p=0.5`` or ``rbp.p=0.5``.
(``iprec_at_recall`` and ``Rprec_mult`` print their level with two decimals, as trec_eval does:
``IPrec@0.125`` prints ``iprec_at_recall_0.12``.) A utility weight lies in [-1e100, 1e100] and a
gain in [0, 1e100]: beyond, sums over documents and topics could overflow.

Conventions (trec_eval's, which NIST's official scores use):

* **Topics.** Only topics with judgments are evaluated: a :class:`~irrepro.data.RunSet` holds
  the qrels' topics; topics a run has but the qrels lack are ignored (``RunSet.ignored_topics``).
* **Averages.** A run missing a topic is scored there on the empty list, as a run that retrieved
  nothing: 0 on every measure but ``utility`` with a weight ``rel_missed`` p3 other than 0, which
  gives p3 R (every relevant document missed); ``NumRel`` and ``NumQ`` still count the topic.
  :func:`summarize`, :func:`to_frame` and :func:`to_dict` give either of trec_eval's averages:
  ``complete=True`` (the default; ``trec_eval -c``, and ir_measures' ``calc_aggregate``, which
  reports a missing topic as 0 - also for NumRel and NumQ) over all the qrels' topics, or
  ``complete=False`` (plain trec_eval 9, pytrec_eval) over the topics the run retrieved something
  for. (trec_eval 10.0 without ``-c`` stops with an error on a run that misses a qrels topic.)
* **A missing topic in trec_eval -c.** trec_eval 9.0.8 adds 0 for it; trec_eval 10 scores a
  stand-in list of one unjudged document and zeroes, by name, ``num_ret``, ``unj*``, ``utility``
  and ``rbp_resid``. irrepro scores the empty list, which both equal on every measure but
  weighted utility (trec_eval 10: irrepro's + p2; 9.0.8: 0, irrepro's - p3 R) and ``rbp_resid``
  with its own p (trec_eval 10: irrepro's + 1): one value per measure whatever the spelling of
  its name, and no reward for dropping topics.
* **Topics without relevant documents** (R = 0) score 0 on every measure normalised by R or an
  ideal list, and still count in the mean, as in trec_eval.
* **Relevance** is ``grade >= rel`` (``rel=1`` by default: trec_eval's ``-l``); a measure's own
  ``rel`` (``AP(rel=2)``) overrides it. Graded measures use a gain per grade: the grade itself by
  default (trec_eval's convention, for any integer grade), ``gains`` maps grades to other gains
  (grades it does not name keep gain = grade). The (n)DCG / nCG family and graded RBP ignore
  ``rel``; Q-measure uses ``rel`` for isrel(r) and R, the gains for cg(r) and cg_I(r).
* **Negative qrels grades** mean "in the pool but not judged" to trec_eval: such a document is
  neither relevant nor judged non-relevant (``UNJUDGED``), and only infAP tells it from an unpooled
  one.
* **Ranking** is trec_eval's (score descending, ties by document id descending), done by the data
  layer; lists are used in full unless ``depth`` cuts them (trec_eval's ``-M``).

Memory follows a block of ranked lists (about 130,000 list cells), not runs x topics x longest
list; nothing is sized by the largest grade.
"""

from .._measure_names import parse_measure  # noqa: F401  (the other families read measure names)
from .aggregates import GM_EPSILON, aggregate  # noqa: F401  (GM_EPSILON: the significance tests)
from .evaluation import evaluate, summarize, to_dict, to_frame, to_trec_eval
from .kernel import average_precision  # noqa: F401  (the corpus bootstrap's AP)
from .trec_names import trec_eval_name  # noqa: F401  (the significance tests' metadata)

__all__ = ["aggregate", "evaluate", "summarize", "to_dict", "to_frame", "to_trec_eval"]
