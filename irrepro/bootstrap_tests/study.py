"""Everything of Sakai (2006) sections 3 and 4 for several measures of the same runs, on shared
bootstrap topic samples, in one call (Tables 2 and 3, Figures 7-13)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import parallel
from ..errors import InputError
from ..parallel import SeedLike
from ..significance.bootstrap import paired_bootstrap_test, unpaired_bootstrap_test
from .pairwise import sensitivity
from .rank import rank_correlation
from .samples import _as_matrix, _summary, bootstrap_samples
from .stability_swap import stability, swap_rates

__all__ = ["MeasureStudy", "measure_study", "geometric_consistent", "swaps_below_required"]


@dataclass(frozen=True)
class MeasureStudy:
    """Sakai's (2006) comparison of several measures on one set of runs: paired and unpaired
    tests of every pair of systems, stability, swap rates and rank correlations, all on the same
    bootstrap topic samples. ``names`` are the measures as given (``G_`` names for geometric
    means); the paired tests of geometric means are the ``AG_`` forms."""

    names: tuple[str, ...]
    paired: dict
    unpaired: dict
    stability: dict
    swap: dict
    rank_correlations: dict
    seed: Any
    B: int

    def table2(self, test: str = "paired", alpha: float = 0.05) -> pd.DataFrame:
        """Discriminative power and estimated required difference (Table 2), most sensitive
        first; ``test="unpaired"`` gives the table the paper describes but omits."""
        if test == "unpaired":
            return sensitivity(self.unpaired, alpha)
        if test != "paired":
            raise InputError(f"test must be 'paired' or 'unpaired', not {test!r}")
        # the paired test of a geometric mean G_X is the test of its AG_ form
        names = {
            k: ("AG_" + k.removeprefix("G_")) if t.measure.startswith("AG") else k
            for k, t in self.paired.items()
        }
        return sensitivity({names[k]: t for k, t in self.paired.items()}, alpha)

    def table3(self) -> pd.DataFrame:
        """Swap-method differences and sensitivity (Table 3), most sensitive first."""
        rows = [self.swap[k].table_row() | {"measure": k} for k in self.names]
        frame = pd.DataFrame(rows)
        frame["sensitivity %"] = 100 * frame.pop("sensitivity")
        return frame.sort_values("sensitivity %", ascending=False, kind="stable").reset_index(drop=True)

    def _square(self, attr: str) -> pd.DataFrame:
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


def measure_study(
    matrices: dict,
    *,
    B: int = 1000,
    seed: SeedLike,
    fuzziness: Sequence[float] | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> MeasureStudy:
    """Run everything of Sakai (2006) sections 3 and 4 on several measures of the same runs.

    ``matrices`` maps a name to a ScoreMatrix (arithmetic mean) or to ``(ScoreMatrix, "gmean")``
    (e.g. ``{"AP": ap, "G_AP": (ap, "gmean")}``); all must hold the same systems and topics.
    Three sets of samples are drawn from children of ``seed``: the topic samples Q*b (paired test,
    stability, first swap set, rank correlations), the pooled samples of the unpaired test, and
    the second, independent swap set.
    """
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
        paired[name] = paired_bootstrap_test(m, samples=sp, log=how == "gmean", n_jobs=n_jobs)
        unpaired[name] = unpaired_bootstrap_test(m, samples=su, summary=how, n_jobs=n_jobs)
        stab[name] = stability(m, sp, summary=how, fuzziness=fuzziness)
        swap[name] = swap_rates(m, sp, s2, summary=how)
    names = tuple(items)
    rc = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            rc[(a, b)] = rank_correlation(
                items[a][0], items[b][0], sp, summary_a=items[a][1], summary_b=items[b][1]
            )
    return MeasureStudy(names, paired, unpaired, stab, swap, rc, seed, B)


# --- summaries of a measure study that the book's chapter reports (moved out of its cells) -------


def geometric_consistent(study: MeasureStudy, measure: str) -> bool:
    """Do the paired test of ``AG_<measure>`` and the unpaired test of ``G_<measure>`` put the
    geometric mean on the same side of ``measure`` (the arithmetic mean) by discriminative power?
    (Sakai 2006, section 3.4: the indirect and the direct test of a geometric mean should agree.)"""
    dp = {test: np.sign(getattr(study, test)[f"G_{measure}"].discriminative_power()
                        - getattr(study, test)[measure].discriminative_power()) for test in ("paired", "unpaired")}
    return bool(dp["paired"] == dp["unpaired"])


def swaps_below_required(study: MeasureStudy) -> tuple[int, int]:
    """For how many of the arithmetic-mean measures the swap method's difference (Table 3, "abs")
    is smaller than the paired test's estimated required difference (Table 2): ``(k, n)``.
    Geometric means are left out (their paired test works on the log scale)."""
    req = study.table2("paired").set_index("measure")["required difference"]
    sw = study.table3().set_index("measure")["abs"]
    arith = [m for m in study.names if not m.startswith("G_")]
    return int(sum(sw[m] < req[m] for m in arith)), len(arith)
