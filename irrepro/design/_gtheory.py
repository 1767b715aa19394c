"""Generalizability theory's D-study of a test collection (Brennan 2001; Urbano, Marrero &
Martin, SIGIR 2013): E rho^2 and Phi for any number of topics, and the topics needed to reach a
target (:func:`d_study` -> :class:`DStudy`, :func:`topics_for_reliability`); served from
:mod:`irrepro.design`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ._anova import Anova

__all__ = ["DStudy", "d_study", "topics_for_reliability"]

#: The two coefficients of a D-study: relative (E rho^2, for ranking systems) and absolute (Phi,
#: for their absolute scores).
COEFFICIENTS = ("Erho2", "Phi")


@dataclass(frozen=True)
class DStudy:
    """E rho^2 and Phi of a collection of each number of topics, from a pilot's variance components.

    Attributes
    ----------
    n_topics : numpy.ndarray
        The topic-set sizes.
    erho2 : numpy.ndarray
        The generalizability coefficient ``s2_s / (s2_s + s2_e / n)``: how reliably the topic set
        ranks the systems.
    phi : numpy.ndarray
        The dependability index ``s2_s / (s2_s + (s2_t + s2_e) / n)``: how reliably it measures
        their absolute scores.
    anova : Anova
        The pilot's variance components.
    """

    n_topics: np.ndarray
    erho2: np.ndarray
    phi: np.ndarray
    anova: Anova

    def to_frame(self) -> pd.DataFrame:
        """One row per topic-set size: ``n_topics``, ``Erho2``, ``Phi``."""
        return pd.DataFrame({"n_topics": self.n_topics, "Erho2": self.erho2, "Phi": self.phi})


def _components(anova: Anova) -> tuple[float, float, float]:
    if not isinstance(anova, Anova):
        raise InputError(f"expected the Anova of irrepro.design.two_way_anova, got {type(anova).__name__}")
    return anova.sigma2_system, anova.sigma2_topic, anova.sigma2_residual


def d_study(anova: Anova, n_topics=None) -> DStudy:
    """E rho^2 and Phi for topic sets of each size in ``n_topics``.

    Parameters
    ----------
    anova : Anova
        The pilot's :func:`~irrepro.design.two_way_anova`.
    n_topics : int or sequence of int, optional
        Topic-set sizes; default 5, 10, ..., 200 and the pilot's own.

    Returns
    -------
    DStudy

    Notes
    -----
    Brennan, "Generalizability Theory" (Springer 2001), ch. 4 (the p x I design); Urbano,
    Marrero & Martin, "On the measurement of test collection reliability", SIGIR 2013. At the
    pilot's own number of topics E rho^2 equals ``1 - MS_e / MS_s`` (unless the system component
    was negative and set to 0), the reliability of the pilot itself.

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.design import d_study, two_way_anova
    >>> x = np.array([[0.5, 0.6, 0.7, 0.4, 0.9], [0.4, 0.5, 0.5, 0.4, 0.6], [0.5, 0.6, 0.6, 0.5, 0.8]])
    >>> d_study(two_way_anova(x), [5, 50]).to_frame().round(3).values.tolist()
    [[5.0, 0.872, 0.56], [50.0, 0.986, 0.927]]
    """
    s2_s, s2_t, s2_e = _components(anova)
    if n_topics is None:
        n_topics = sorted({*range(5, 201, 5), anova.n_topics})
    n = np.atleast_1d(np.asarray(n_topics))
    if n.ndim != 1 or not np.issubdtype(n.dtype, np.integer) or np.any(n < 1):
        raise InputError(f"n_topics must be whole numbers >= 1, got {n_topics!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        erho2 = s2_s / (s2_s + s2_e / n)
        phi = s2_s / (s2_s + (s2_t + s2_e) / n)
    return DStudy(n.astype(np.int64), np.asarray(erho2, float), np.asarray(phi, float), anova)


def topics_for_reliability(anova: Anova, target: float = 0.95, coefficient: str = "Erho2") -> int:
    """The fewest topics whose E rho^2 (or Phi) reaches ``target``.

    Parameters
    ----------
    anova : Anova
        The pilot's :func:`~irrepro.design.two_way_anova`.
    target : float
        The coefficient wanted, in (0, 1).
    coefficient : {"Erho2", "Phi"}
        Which coefficient.

    Returns
    -------
    int

    Raises
    ------
    irrepro.InputError
        ``target`` outside (0, 1), or a pilot without system variance (no number of topics
        separates its systems).

    Notes
    -----
    Solving ``s2_s / (s2_s + s2 / n) >= target`` for n: ``n >= target s2 / ((1 - target) s2_s)``
    (Brennan 2001, ch. 4; Urbano et al. 2013, section 4).

    Examples
    --------
    >>> import numpy as np
    >>> from irrepro.design import topics_for_reliability, two_way_anova
    >>> x = np.array([[0.5, 0.6, 0.7, 0.4, 0.9], [0.4, 0.5, 0.5, 0.4, 0.6], [0.5, 0.6, 0.6, 0.5, 0.8]])
    >>> a = two_way_anova(x)
    >>> n = topics_for_reliability(a, 0.95)
    >>> n, d_study(a, [n - 1, n]).erho2.round(4).tolist()
    (14, [0.9466, 0.9502])
    """
    if coefficient not in COEFFICIENTS:
        raise InputError(f"coefficient must be one of {', '.join(COEFFICIENTS)}, not {coefficient!r}")
    target = float(target)
    if not 0 < target < 1:
        raise InputError(f"target must be in (0, 1), got {target!r}")
    s2_s, s2_t, s2_e = _components(anova)
    if s2_s <= 0:
        raise InputError(
            "the pilot shows no variance between systems (MS_system <= MS_residual): no number of "
            "topics makes its systems' ranking reliable"
        )
    s2 = s2_e if coefficient == "Erho2" else s2_t + s2_e
    n = target * s2 / ((1 - target) * s2_s)
    return max(1, math.ceil(n - 1e-9 * max(1.0, n)))
