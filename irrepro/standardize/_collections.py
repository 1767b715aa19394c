"""Two collections compared on the same systems (Webber, Moffat & Zobel 2008, section 5.2: Tables 3-5)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..parallel import SeedLike
from ._comparability import binomial_interval, drmse, self_significance
from ._partitions import PartitionResult, partition_experiment
from ._scores import _checked_scores

# --------------------------------------------------------------------------------------------
# Two collections compared (section 5.2)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CollectionPair:
    """Two collections compared on the same systems (Tables 3-5)."""

    drmse: float
    n_significant: int
    n_systems: int
    interval: tuple[float, float]
    random: PartitionResult

    @property
    def percentile(self) -> float:
        """Percentile of the observed dRMSE among the random halves' dRMSE."""
        return self.random.percentile_of(self.drmse)


def compare_collections(
    scores_c,
    scores_d,
    B: int | None = None,
    *,
    seed: SeedLike,
    alpha: float = 0.05,
    n_jobs: int | None = None,
    scale: str = "paper",
) -> CollectionPair:
    """Compare the same systems on collections C and D, observed and against random halves.

    Section 5.2: the observed dRMSE and self-significance of C against D, set against ``B`` random
    halves of the pooled topics (seeded as in :func:`partition_experiment`).

    Parameters
    ----------
    scores_c, scores_d : array_like or irrepro.data.ScoreMatrix
        Systems x topics scores on C and on D (the same systems).
    B : int, optional
        Number of random partitions; None: :func:`default_partitions` of ``scale``.
    seed : int, numpy.random.Generator or SeedSequence
    alpha : float, default 0.05
    n_jobs : int, optional
        Worker processes (``irrepro.parallel.parallel_map``).
    scale : {"paper", "quick"}
        The size ``B=None`` stands for.

    Returns
    -------
    CollectionPair

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).random((5, 20)) + np.linspace(0, 0.5, 5)[:, None]
    >>> from irrepro.standardize import compare_collections
    >>> c = compare_collections(x[:, :10], x[:, 10:], 20, seed=1)
    >>> round(c.drmse, 3), c.n_significant, c.n_systems, c.percentile
    (0.593, 1, 5, 80.0)
    """
    c, d = _checked_scores(scores_c), _checked_scores(scores_d)
    sig = self_significance(c, d, alpha=alpha)
    rand = partition_experiment(np.hstack([c, d]), B, seed=seed, alpha=alpha, n_jobs=n_jobs, scale=scale)
    return CollectionPair(
        float(drmse(c.mean(axis=1), d.mean(axis=1))),
        int(sig.sum()),
        len(sig),
        binomial_interval(sig.sum(), len(sig)),
        rand,
    )
