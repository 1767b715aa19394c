"""Reproducibility and replicability measures with topic-bootstrap intervals.

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020), "How to Measure the
Reproducibility of System-oriented IR Experiments", section 3, measure at four levels how far a
reproduction (the same topics) or a replication (other topics) of an experiment - an original
baseline and advanced run - got:

- ranking level (reproducibility only): Kendall's tau union :func:`ktu` and rank-biased overlap
  :func:`rbo` of each topic's ranked lists, averaged over topics (:func:`topic_mean`);
- score level (reproducibility only): :func:`rmse` of the per-topic scores;
- effect level: the effect ratio :func:`effect_ratio` and :func:`delta_ri`, the difference of
  the relative improvements;
- significance: :func:`p_value`, the paired (reproducibility) or unpaired (replicability)
  t-test between original and reproduced per-topic scores.

The point values equal those of the authors' package repro_eval 0.5.0 (where a definition
differs, the function's Notes say which one irrepro follows and why). repro_eval gives point
values of one experiment; here every number comes with a topic-bootstrap BCa interval
(:class:`Estimate`; :func:`irrepro.stats.bca_interval`), and the functions take arrays whose
leading axes are runs or experiments, so that many are computed at once.
:func:`reproduce_runs` reads run files (four, or four directories matched by file name),
scores them with :mod:`irrepro.measures` and computes everything: the work of ``irrepro
reproduce``.
"""

from ._bootstrap import Estimate
from ._effects import NO_EFFECT, delta_ri, effect_ratio, p_value, rmse, topic_mean
from ._ranking import RBO_DEPTH, RBO_P, RUN_LENGTH, ktu, rbo
from ._runs import ROLES, Reproduction, reproduce_runs

__all__ = [
    "Estimate",
    "ktu",
    "rbo",
    "topic_mean",
    "rmse",
    "effect_ratio",
    "delta_ri",
    "p_value",
    "reproduce_runs",
    "Reproduction",
    "ROLES",
    "RUN_LENGTH",
    "RBO_DEPTH",
    "RBO_P",
    "NO_EFFECT",
]
