"""irrepro: executable replications of four papers on the statistics of IR evaluation.

Modules, by method family:

- :mod:`irrepro.data` - collections, verified downloads, TREC readers, the simulated stand-in;
- :mod:`irrepro.measures` - evaluation measures over whole run sets (trec_eval parity, Sakai's
  Q-measure / nDCG / nCG, RBP) and their aggregates;
- :mod:`irrepro.corpus_bootstrap` - corpus-bootstrap intervals for AP and MAP, split-corpus
  validation, differences and meta-analysis (Cormack & Lynam 2006);
- :mod:`irrepro.topic_split` - topic-split swap experiments with paired significance tests, and
  assessor effort (Sanderson & Zobel 2005);
- :mod:`irrepro.bootstrap_tests` - paired and unpaired bootstrap tests of all pairs of systems,
  discriminative power, stability, swap rates and rank correlations (Sakai 2006);
- :mod:`irrepro.standardize` - score standardization, dRMSE and self-significance across
  collections (Webber, Moffat & Zobel 2008);
- :mod:`irrepro.simulation` - simulated scores with a known truth: margins and copulas fitted to
  real score matrices (Urbano & Nagler 2018; Urbano, Lima & Hanjalic 2019);
- :mod:`irrepro.known_truth` - the four papers' methods against a known truth: type I error and
  power of the paired tests, family-wise error, interval coverage, self-significance under the null
  (figures in :mod:`irrepro.known_truth_plots`);
- :mod:`irrepro.parallel` - seeds, workers and the quick / paper scale switch;
- :mod:`irrepro.book` - the book's data banners, paper-vs-ours tables and scorecard.
"""

__version__ = "0.1.0"
