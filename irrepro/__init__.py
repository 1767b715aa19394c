"""irrepro: executable replications of four papers on the statistics of IR evaluation.

Modules, by method family:

- :mod:`irrepro.data` - collections, verified downloads, TREC readers, the simulated stand-in;
- :mod:`irrepro.parallel` - seeds, workers and the quick / paper scale switch;
- :mod:`irrepro.bootstrap_tests` - paired and unpaired bootstrap tests of all pairs of systems,
  discriminative power, stability, swap rates and rank correlations (Sakai 2006).
"""

__version__ = "0.1.0"
