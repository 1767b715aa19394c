"""Simulated per-topic scores with a known truth: a margin per system and a copula per pair of systems,
after Urbano & Nagler (SIGIR 2018) as used by Urbano, Lima & Hanjalic (SIGIR 2019, section 3).

Unlike their R code, a margin is moved to an expected value by Lehmann alternatives solved exactly,
and copula parameters are estimated by inversion of Kendall's tau.
"""

from ._collection import CollectionModel, fit_collection  # noqa: F401  (CollectionModel: known_truth's)
from ._copulas import fit_copula, pseudo_obs  # noqa: F401  (known_truth's and design's)

__all__ = ["fit_collection"]
