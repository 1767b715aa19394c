"""Family-wise error of all-pairs comparisons among m systems under the complete null, simulated as
Urbano et al. (2019) simulate; Carterette (2012) and Sakai (2018) for randomised Tukey HSD.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import parallel
from .. import significance as sig
from ..parallel import SeedLike, check_int
from ..stats import clustered_se
from ._papers import default_sizes


def vine_uniforms(scores, rows: int, g_fit, g_sim) -> np.ndarray:
    """``rows`` draws ``(rows, m)`` of the vine copula (parametric families by AIC, itau) of ``scores`` (m, topics)."""
    import pyvinecopulib as pv

    from ..simulation import pseudo_obs

    controls = pv.FitControlsVinecop(
        family_set=pv.families.parametric, selection_criterion="aic", parametric_method="itau"
    )
    vine = pv.Vinecop.from_data(pseudo_obs(np.asarray(scores).T, g_fit), controls=controls)
    return np.clip(vine.inverse_rosenblatt(g_sim.random((rows, len(scores)))), 0, 1)


@dataclass(frozen=True)
class FamilyResult:
    """Per trial (a family of ``m`` systems with identical distributions): the tests' smallest p."""

    min_p: np.ndarray
    hsd_asl: np.ndarray
    family: np.ndarray
    m: int
    n_topics: int
    B: int

    def fwer(self, alpha: float = 0.05) -> pd.Series:
        """Family-wise error: the share of trials in which any pair is rejected, per procedure."""
        return pd.Series({k: v.mean() for k, v in self._rejections(alpha).items()})

    def _rejections(self, alpha: float) -> dict:
        k = self.m * (self.m - 1) // 2
        return {
            "t, unadjusted": self.min_p <= alpha,
            "t, Bonferroni / Holm": self.min_p <= alpha / k,
            "randomised Tukey HSD": self.hsd_asl < alpha,
        }

    def se(self, alpha: float = 0.05) -> pd.Series:
        """Monte Carlo standard error of each family-wise error, clustered by simulated family."""
        return pd.Series(
            {name: float(clustered_se(r, self.family)) for name, r in self._rejections(alpha).items()}
        )


def family_experiment(
    models,
    *,
    m: int = 5,
    n_topics: int = 50,
    trials: int | None = None,
    n_families: int = 400,
    B: int | None = None,
    seed: SeedLike,
    n_jobs: int | None = None,
    families_per_task: int = 10,
    scale: str = "paper",
) -> FamilyResult:
    """Family-wise error of all-pairs comparisons under the complete null.

    Sets of ``m`` systems of one collection, a vine copula fitted to their scores, every margin the first's.

    Parameters
    ----------
    models : sequence of CollectionModel
    m : int
        Systems per family.
    n_topics : int
    trials : int, optional
        None: :func:`default_sizes` of ``scale``.
    n_families : int
    B : int, optional
        Permutations of Tukey HSD; None: :func:`default_sizes` of ``scale``.
    seed : SeedLike
    n_jobs : int, optional
    families_per_task : int
    scale : {"paper", "quick"}

    Returns
    -------
    FamilyResult

    Examples
    --------
    >>> from irrepro import known_truth as kt, simulation as sim
    >>> from irrepro.data import synthetic
    >>> models = [sim.fit_collection(synthetic.score_matrix(12, 40, seed=s), seed=s) for s in (1, 2)]
    >>> fam = kt.family_experiment(models, m=3, n_topics=20, trials=40, n_families=4, B=50, seed=4,
    ...                            families_per_task=2)
    >>> len(fam.min_p), fam.m
    (40, 3)
    """
    trials = default_sizes(scale).trials if trials is None else check_int(trials, "trials", minimum=1)
    B = default_sizes(scale).B if B is None else check_int(B, "B", minimum=1)
    per = -(-trials // n_families)
    g_pick, g_tasks = parallel.spawn(seed, 2)
    rng = parallel.as_generator(g_pick)
    sizes = np.array([len(md.margins) for md in models])
    families = rng.choice(len(models), size=n_families, p=sizes / sizes.sum())
    picks = [(int(c), rng.choice(sizes[c], size=m, replace=False)) for c in families]
    tasks = [range(n_families)[c] for c in parallel._chunks(n_families, families_per_task)]
    seeds = parallel.as_seed_sequence(g_tasks).spawn(len(tasks))
    i, j = np.triu_indices(m, 1)

    def run(k):
        g_fit, g_sim, g_perm = parallel.spawn(seeds[k], 3)
        xs = []
        for f in tasks[k]:
            c, systems = picks[f]
            u = vine_uniforms(models[c].scores[systems], per * n_topics, g_fit, g_sim)
            x = models[c].margins[systems[0]].ppf(u)  # (per * n, m)
            xs.append(x.reshape(per, n_topics, m).transpose(0, 2, 1))
        x = np.concatenate(xs)
        p = sig.paired_t_pvalues(x[:, i] - x[:, j])  # (trials, pairs)
        min_p = np.nanmin(np.where(np.isnan(p), 1.0, p), axis=1)
        perms = np.argsort(g_perm.random((B, n_topics, m)), axis=2)
        hsd = sig.tukey_hsd_pvalues(x, perms).min(axis=1)  # the family's smallest adjusted p
        return min_p, hsd, np.repeat(np.asarray(tasks[k]), per)

    out = parallel.parallel_map(run, range(len(tasks)), n_jobs=n_jobs)
    cat = [np.concatenate([o[q] for o in out])[:trials] for q in range(3)]
    return FamilyResult(cat[0], cat[1], cat[2], m, n_topics, B)
