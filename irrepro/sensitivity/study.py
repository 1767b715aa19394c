"""Everything of Sakai (2006) sections 3 and 4 for several measures of the same runs, on shared
bootstrap topic samples, in one call (Tables 2 and 3, Figures 7-13), with Kendall's tau between
the rankings by two measures, its bootstrap standard error and the Z0 test (section 4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from .. import parallel
from ..data import ScoreMatrix
from ..errors import InputError
from ..parallel import SeedLike
from ..significance._samples import (
    _as_matrix,
    _check_samples,
    _summary,
    bootstrap_samples,
    bootstrap_summaries,
)
from ..significance.bootstrap import BootstrapResult, paired_bootstrap_test, unpaired_bootstrap_test
from ..stats import bootstrap_sd, kendall_tau
from .stability_swap import stability, swap_rates


def sensitivity(
    tests: dict[str, BootstrapResult] | Sequence[BootstrapResult], alpha: float = 0.05
) -> pd.DataFrame:
    """Sakai's (2006) Table 2: the pairs with ASL < alpha and the difference that requires, most sensitive first.

    Parameters
    ----------
    tests : dict or sequence of BootstrapResult
        Name -> test, or tests named by their measure.
    alpha : float

    Returns
    -------
    pandas.DataFrame
        Columns measure, significant, pairs, sensitivity %, required difference; one row per test.

    Examples
    --------
    >>> from irrepro import sensitivity as bt, significance as sg
    >>> tests = {"A": sg.paired_bootstrap_test(scores, B=200, seed=1), "B": sg.paired_bootstrap_test(scores**2, B=200, seed=1)}
    >>> bt.sensitivity(tests, alpha=0.1).round(2)
      measure  significant  pairs  sensitivity %  required difference
    0       A            1      3          33.33                 0.08
    1       B            1      3          33.33                 0.11
    """
    items = tests.items() if isinstance(tests, dict) else [(t.measure, t) for t in tests]
    rows = []
    for name, t in items:
        rows.append(
            {
                "measure": name,
                "significant": int(np.sum(t.p < alpha)),
                "pairs": len(t.p),
                "sensitivity %": 100 * t.discriminative_power(alpha),
                "required difference": t.required_difference(alpha),
            }
        )
    frame = pd.DataFrame(rows)
    return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class MeasureStudy:
    """Sakai's (2006) comparison of several measures on one set of runs, on shared samples."""

    names: tuple[str, ...]
    paired: dict
    unpaired: dict
    stability: dict
    swap: dict
    rank_correlations: dict
    seed: Any
    B: int

    def table2(self, test: str = "bootstrap", alpha: float = 0.05) -> pd.DataFrame:
        """Discriminative power and estimated required difference (Table 2), most sensitive first."""
        if test == "unpaired-bootstrap":
            return sensitivity(self.unpaired, alpha)
        if test != "bootstrap":
            raise InputError(f"test must be 'bootstrap' or 'unpaired-bootstrap', not {test!r}")
        # the paired test of a geometric mean G_X is the test of its AG_ form
        tests = {
            ("AG_" + k.removeprefix("G_")) if t.measure.startswith("AG") else k: t
            for k, t in self.paired.items()
        }
        return sensitivity(tests, alpha)

    def table3(self) -> pd.DataFrame:
        """Swap-method differences and sensitivity (Table 3), most sensitive first."""
        rows = [self.swap[k].table_row() | {"measure": k} for k in self.names]
        frame = pd.DataFrame(rows)
        frame["sensitivity %"] = 100 * frame.pop("sensitivity")
        return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)

    def _square(self, attr: str) -> pd.DataFrame:
        """A rank correlations' attribute for every pair of measures (lower triangle)."""
        out = pd.DataFrame(np.nan, index=list(self.names), columns=list(self.names))
        for (a, b), rc in self.rank_correlations.items():
            out.loc[b, a] = getattr(rc, attr)
        return out

    def tau_matrix(self) -> pd.DataFrame:
        """Kendall's tau for every pair of measures (lower triangle; Figure 12)."""
        return self._square("tau")

    def se_matrix(self) -> pd.DataFrame:
        """Bootstrap standard error of each tau (lower triangle; Figure 13)."""
        return self._square("se_boot")


#: The parts of a :func:`measure_study`: the paired and unpaired tests (Sakai 2006, sections 3.1-3.2),
#: the stability and swap methods (3.5) and the rank correlations between measures (4).
_PARTS = ("paired", "unpaired", "stability", "swap", "rank")


def measure_study(
    matrices: dict,
    *,
    B: int = 1000,
    seed: SeedLike,
    fuzziness: Sequence[float] | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
    parts: Sequence[str] = _PARTS,
) -> MeasureStudy:
    """Sakai (2006) sections 3 and 4 (Tables 2-3, Figures 7-13) on several measures of the same runs.

    Parameters
    ----------
    matrices : dict
        Name -> ScoreMatrix (or ``(S, T)`` array), or -> ``(ScoreMatrix, "gmean")`` for a geometric
        mean; all of the same systems and topics.
    B, seed : int, SeedLike
        Bootstrap samples per set (three sets, from children of ``seed``).
    fuzziness : sequence of float, optional
        The stability method's fuzziness values (:func:`stability`).
    n_jobs, progress
        Workers; a progress bar over the measures.
    parts : sequence of str
        Which of ``"paired"``, ``"unpaired"``, ``"stability"``, ``"swap"``, ``"rank"`` to compute (default
        all; one left out is an empty dict); each is the whole study's with the same seed.

    Returns
    -------
    MeasureStudy

    Raises
    ------
    irrepro.InputError
        The matrices differ in shape; a summary other than ``"mean"`` or ``"gmean"``; a part not
        among those five.

    Examples
    --------
    >>> from irrepro import sensitivity as bt
    >>> from irrepro.data import ScoreMatrix
    >>> a, b = np.vstack([scores, [0.3, 0.7, 0.4, 0.6, 0.5]]), scores_b
    >>> systems, topics = ("a", "b", "c", "d"), ("1", "2", "3", "4", "5")
    >>> ap, q = ScoreMatrix(a, systems, topics, "AP"), ScoreMatrix(b, systems, topics, "Q")
    >>> study = bt.measure_study({"AP": ap, "G_AP": (ap, "gmean"), "Q": q}, B=200, seed=1)
    >>> study.names, study.paired["G_AP"].measure
    (('AP', 'G_AP', 'Q'), 'AG_AP')
    """
    unknown = sorted(set(parts) - set(_PARTS))
    if unknown:
        raise InputError(f"measure_study: parts {unknown} unknown; choose from {list(_PARTS)}")
    items = {}
    for name, v in matrices.items():
        m, how = (v, "mean") if not isinstance(v, tuple) else v
        items[name] = (m, _summary(how).kind)
    shapes = {_as_matrix(m)[0].shape for m, _ in items.values()}
    if len(shapes) != 1:
        raise InputError(f"the matrices differ in shape: {sorted(shapes)}")
    n = shapes.pop()[1]
    g_p, g_u, g_2 = parallel.spawn(seed, 3)
    sp = bootstrap_samples(n, B, seed=g_p)
    su = bootstrap_samples(2 * n, B, seed=g_u)
    s2 = bootstrap_samples(n, B, seed=g_2)
    from tqdm import tqdm

    paired, unpaired, stab, swap = {}, {}, {}, {}
    for name, (m, how) in tqdm(items.items(), desc="measures", disable=not progress):
        if how == "callable":
            raise InputError("measure_study takes 'mean' or 'gmean' summaries")
        if "paired" in parts:
            paired[name] = paired_bootstrap_test(m, samples=sp, log=how == "gmean", n_jobs=n_jobs)
        if "unpaired" in parts:
            unpaired[name] = unpaired_bootstrap_test(m, samples=su, summary=how, n_jobs=n_jobs)
        if "stability" in parts:
            stab[name] = stability(m, sp, summary=how, fuzziness=fuzziness)
        if "swap" in parts:
            swap[name] = swap_rates(m, sp, s2, summary=how)
    names = tuple(items)
    rc = {}
    for i, a in enumerate(names if "rank" in parts else ()):
        for b in names[i + 1 :]:
            rc[(a, b)] = rank_correlation(
                items[a][0], items[b][0], sp, summary_a=items[a][1], summary_b=items[b][1]
            )
    return MeasureStudy(names, paired, unpaired, stab, swap, rc, seed, B)


def _geometric_consistent(study: MeasureStudy, measure: str) -> bool:
    """Do the paired and the unpaired test rank a geometric mean on the same side of its measure?"""
    paired, unpaired = (
        np.sign(tests[f"G_{measure}"].discriminative_power() - tests[measure].discriminative_power())
        for tests in (study.paired, study.unpaired)
    )
    return bool(paired == unpaired)


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau between the system rankings by two measures, its bootstrap error and test."""

    measures: tuple[str, str]
    tau: float
    se_boot: float
    z0: float
    p_value: float
    replicates: np.ndarray = field(repr=False)


def _z0(tau, n_s: int):
    """Z0 = 3 tau sqrt(n_s (n_s - 1)) / sqrt(2 (2 n_s + 5)), standard normal under no association."""
    return 3 * np.asarray(tau) * np.sqrt(n_s * (n_s - 1)) / np.sqrt(2 * (2 * n_s + 5))


def _tau_threshold(n_systems: int, alpha: float = 0.01) -> float:
    """The smallest ``|tau|`` significant at ``alpha`` (two-tailed) under the Z0 test."""
    return float(norm.ppf(1 - alpha / 2) / _z0(1.0, n_systems))


def rank_correlation(
    scores_a,
    scores_b,
    samples=None,
    *,
    summary_a="mean",
    summary_b="mean",
    B: int = 1000,
    seed: SeedLike = None,
) -> RankCorrelation:
    """Kendall's tau between the rankings of the same systems by two measures, with its bootstrap error."""
    xa, sys_a, meas_a = _as_matrix(scores_a)
    xb, sys_b, meas_b = _as_matrix(scores_b)
    if xa.shape != xb.shape:
        raise InputError(f"the two score matrices differ in shape: {xa.shape} vs {xb.shape}")
    if isinstance(scores_a, ScoreMatrix) and isinstance(scores_b, ScoreMatrix) and sys_a != sys_b:
        raise InputError("the two score matrices list different systems (or in another order)")
    samples = _check_samples(samples, xa.shape[1], B, seed)
    sa, sb = _summary(summary_a), _summary(summary_b)
    tau = float(kendall_tau(sa.apply(xa), sb.apply(xb)))
    ma = bootstrap_summaries(xa, samples, summary=summary_a)
    mb = bootstrap_summaries(xb, samples, summary=summary_b)
    reps = kendall_tau(ma.T, mb.T)  # (B,)
    se = float(bootstrap_sd(reps))
    z0 = float(_z0(abs(tau), xa.shape[0]))
    name_a = ("G_" if sa.kind == "gmean" else "") + meas_a
    name_b = ("G_" if sb.kind == "gmean" else "") + meas_b
    return RankCorrelation((name_a, name_b), tau, se, z0, float(2 * norm.sf(z0)), reps)
