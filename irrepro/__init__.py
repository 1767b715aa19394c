"""irrepro: executable replications of four papers on the statistics of IR evaluation.

Modules, by method family:

- :mod:`irrepro.data` - collections, verified downloads, TREC readers, the simulated stand-in,
  and the papers' conditions emulated on public data (thinned qrels, shallow pools:
  :mod:`irrepro.data.emulate`);
- :mod:`irrepro.measures` - evaluation measures over whole run sets (trec_eval parity,
  ir_measures' names, Sakai's Q-measure / nDCG / nCG, RBP) and their aggregates (a subpackage:
  names, kernel, outputs);
- :mod:`irrepro.corpus_bootstrap` - corpus-bootstrap intervals for AP and MAP, split-corpus
  validation and differences of two systems (Cormack & Lynam 2006; a subpackage by family);
- :mod:`irrepro.topic_split` - topic-split swap experiments filtered by paired significance
  tests, and assessor effort (Sanderson & Zobel 2005);
- :mod:`irrepro.sensitivity` - Sakai's (2006) study with the bootstrap tests of all pairs of
  systems: discriminative power, stability, swap rates and rank correlations (a subpackage);
- :mod:`irrepro.significance` - the one home of every paired test: the t, Wilcoxon and sign
  tests, Sakai's paired and unpaired bootstrap tests, the bootstrap-shift test, the randomization
  (permutation) test and randomised Tukey HSD, any of them with a baseline and a
  multiple-comparison correction, effect sizes with intervals, win / tie / loss, and the results
  table of a paper (``irrepro compare``; a subpackage);
- :mod:`irrepro.standardize` - score standardization, dRMSE and self-significance across
  collections (Webber, Moffat & Zobel 2008);
- :mod:`irrepro.stats` - generic statistics several families use: BCa, logit, Kendall's tau,
  bootstrap standard errors, meta-analysis, multiple-testing adjustment;
- :mod:`irrepro.plots` - every figure (the method modules draw nothing);
- :mod:`irrepro.escape` - one escaping function per output format (LaTeX, Markdown, CSV, HTML,
  figure labels, plain text) and shortened long names, used by every writer;
- :mod:`irrepro.simulation` - simulated scores with a known truth: margins and copulas fitted to
  real score matrices (Urbano & Nagler 2018; Urbano, Lima & Hanjalic 2019);
- :mod:`irrepro.known_truth` - the four papers' methods against a known truth: type I error and
  power of the paired tests, family-wise error, interval coverage, self-significance under the null
  (its figures in :mod:`irrepro.plots`);
- :mod:`irrepro.design` - plan a study from pilot runs: the two-way ANOVA and variance components,
  generalizability theory's D-study, Sakai's topic-set sizes with bootstrap intervals and power by
  simulation from the known-truth simulator (``irrepro design``);
- :mod:`irrepro.reproduce` - how far a reproduction or replication of an experiment got: Breuer et
  al.'s (2020) KTU, RBO, RMSE, effect ratio, Delta RI and p-values, each with a topic-bootstrap
  interval, for many experiments at once (``irrepro reproduce``);
- :mod:`irrepro.parallel` - seeds, workers and the quick / paper scale switch;
- :mod:`irrepro.report` - all four analyses of any runs as one HTML report (``irrepro report``;
  its page from a jinja2 template, its figures from :mod:`irrepro.plots`);
- :mod:`irrepro.book` - the book's data banners, paper-vs-ours tables and scorecard (no method
  module imports it).

Conventions across the API: ``B`` is the number of resamples (bootstrap samples, random topic
sets or partitions), ``level`` a confidence level, ``seed`` an int, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`
(:data:`irrepro.parallel.SeedLike`), and arrays are ``(systems, topics[, B])``.
"""

__version__ = "0.1.0"

from .errors import InputError  # the one exception type for what a user can fix

__all__ = ["InputError", "__version__"]
