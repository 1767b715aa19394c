"""irrepro: executable replications of four papers on the statistics of IR evaluation.

Modules, by method family:

- :mod:`irrepro.data` - collections, verified downloads, TREC readers, the simulated stand-in;
- :mod:`irrepro.measures` - evaluation measures over whole run sets (trec_eval parity, Sakai's
  Q-measure / nDCG / nCG, RBP) and their aggregates;
- :mod:`irrepro.parallel` - seeds, workers and the quick / paper scale switch.
"""

__version__ = "0.1.0"
