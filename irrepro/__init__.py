"""irrepro: executable replications of four papers on the statistics of IR evaluation.

Modules, by method family: :mod:`irrepro.data` (collections, verified downloads, TREC readers, the
simulated stand-in, the papers' conditions emulated), :mod:`irrepro.measures` (trec_eval's and
ir_measures' measures over whole run sets), :mod:`irrepro.corpus_bootstrap` (Cormack & Lynam 2006),
:mod:`irrepro.topic_split` (Sanderson & Zobel 2005), :mod:`irrepro.sensitivity` (Sakai 2006),
:mod:`irrepro.standardize` (Webber, Moffat & Zobel 2008), :mod:`irrepro.significance` (every paired
test, ``irrepro compare``), :mod:`irrepro.simulation` and :mod:`irrepro.known_truth` (scores with a
known truth; Urbano et al.), :mod:`irrepro.design` (plan a study from pilot runs, ``irrepro
design``), :mod:`irrepro.reproduce` (Breuer et al. 2020, ``irrepro reproduce``), :mod:`irrepro.report`
(all four analyses as one HTML page, ``irrepro report``), :mod:`irrepro.plots` (every figure),
:mod:`irrepro.stats`, :mod:`irrepro.parallel` and :mod:`irrepro.escape` (shared statistics, seeds
and workers, escaping), :mod:`irrepro.book` (the book's tables; no method module imports it).

Conventions across the API: ``B`` is the number of resamples (bootstrap samples, random topic
sets or partitions), ``level`` a confidence level, ``seed`` an int, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`,
and arrays are ``(systems, topics[, B])``. Every problem a user can fix raises :class:`InputError`.
"""

__version__ = "0.1.0"

from .errors import InputError  # the one exception type for what a user can fix

__all__ = ["InputError", "__version__"]
