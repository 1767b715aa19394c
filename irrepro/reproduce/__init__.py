"""Reproducibility and replicability measures with topic-bootstrap intervals.

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020), section 3: how far a
reproduction (the same topics) or a replication (other topics) of a baseline and an advanced run
got, at the ranking (KTU, RBO), score (RMSE), effect (ER, Delta RI) and significance (t-test
p-value) levels. :func:`reproduce_runs` is the work of ``irrepro reproduce``.

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
