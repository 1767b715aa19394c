"""Reproducibility and replicability measures with topic-bootstrap intervals.

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020), "How to Measure the
Reproducibility of System-oriented IR Experiments", section 3, measure at four levels how far a
reproduction (the same topics) or a replication (other topics) of an experiment - an original
baseline and advanced run - got:

- ranking level (reproducibility only): Kendall's tau union (KTU) and rank-biased overlap (RBO)
  of each topic's ranked lists, averaged over the topics both runs ranked;
- score level (reproducibility only): the RMSE of the per-topic scores;
- effect level: the effect ratio (ER) and Delta RI, the difference of the relative improvements;
- significance: the p-value of the paired (reproducibility) or unpaired (replicability) t-test
  between original and reproduced per-topic scores.

:func:`reproduce_runs` reads run files (four, or four directories matched by file name), scores
them with :mod:`irrepro.measures` and computes every measure with a topic-bootstrap BCa interval
(``irrepro.stats.bca_interval``): the work of ``irrepro reproduce``.

The point values equal those of the authors' package repro_eval 0.5.0, except: ER is undefined
(NaN) where the original's mean improvement is zero up to rounding (below 1e-12), where
repro_eval divides by the rounding error; the p-value is 1 where a run's scores of a measure are
reproduced on every topic (repro_eval: NaN unless every measure of the run is); KTU compares the
shorter list's ranks where the lists' lengths differ (repro_eval stops with scipy's error); RBO
is the truncated, normalised form repro_eval computes (not Webber et al.'s extrapolated RBO),
undefined on a topic one run did not rank (repro_eval: a KeyError).
"""

from ._runs import Reproduction, reproduce_runs

__all__ = ["reproduce_runs", "Reproduction"]
