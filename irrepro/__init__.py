"""irrepro: executable replications of four papers on the statistics of IR evaluation.

Modules, by method family: :mod:`irrepro.data`, :mod:`irrepro.measures`, :mod:`irrepro.corpus_bootstrap`
(Cormack & Lynam 2006), :mod:`irrepro.topic_split` (Sanderson & Zobel 2005), :mod:`irrepro.sensitivity`
(Sakai 2006), :mod:`irrepro.standardize` (Webber, Moffat & Zobel 2008), :mod:`irrepro.significance`,
:mod:`irrepro.simulation`, :mod:`irrepro.known_truth`, :mod:`irrepro.design`, :mod:`irrepro.reproduce`,
:mod:`irrepro.report`, :mod:`irrepro.plots`; shared: :mod:`irrepro.stats`, :mod:`irrepro.parallel`,
:mod:`irrepro.escape`; the book's tables: :mod:`irrepro.book`.

Conventions across the API: ``B`` is the number of resamples (bootstrap samples, random topic
sets or partitions), ``level`` a confidence level, ``seed`` an int, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`,
and arrays are ``(systems, topics[, B])``. Every problem a user can fix raises :class:`InputError`.
"""

__version__ = "0.1.0"

from .errors import InputError  # the one exception type for what a user can fix

__all__ = ["InputError", "__version__"]
