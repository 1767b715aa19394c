"""irrepro.known_truth._rankings: the ranking-level simulation after Parapar et al. (SAC 2021) and Otero
et al. (ECIR 2025), checked where the answer is known: under its null (both systems one run's model)
the differences are symmetric and the exact tests hold their level; the fitted models reproduce the
real runs' mean AP; adjusting for multiplicity brings the family-wise error back to alpha; the whole
design runs in one call, as designed."""

from __future__ import annotations

import numpy as np
import pytest

from irrepro import InputError
from irrepro import known_truth as kt
from irrepro.known_truth._rankings import (
    _logistic,
    fit_ranking_models,
    ranking_design_table,
    ranking_experiment,
    ranking_family_experiment,
)
from irrepro.stats import clustered_se, expit

ALPHA = 0.05


@pytest.fixture(scope="module")
def covid(real_runs):
    """Every fourth TREC-COVID round 5 run (32) with its round-5 qrels."""
    return real_runs("trec-covid-round5").subset(runs=list(range(0, 126, 4)))


@pytest.fixture(scope="module")
def models(covid):
    return fit_ranking_models(covid, ["AP"], draws=60, seed=47)["AP"]


def test_logistic_fit_solves_the_likelihood_equations():
    """The intercept is not penalised: fitted probabilities sum to the relevant documents of a list,
    and a list of one class keeps its own relevance; on many points drawn from a known curve the fit
    finds it."""
    rng = np.random.default_rng(1)
    x = np.log(np.arange(1, 301, dtype=np.float64))
    truth = expit(1.0 - 0.8 * x)
    y = rng.random((400, 300)) < truth
    valid = np.ones_like(y)
    valid[:5, 150:] = False  # shorter lists
    y[-1], y[-2] = False, True  # one class only
    p = _logistic(y, valid, x)
    both = slice(0, 398)
    assert np.allclose(p[both].sum(axis=1), (y & valid)[both].sum(axis=1), atol=1e-6)
    assert (p[-1] == 0).all() and (p[-2] == 1).all() and (p[:5, 150:] == 0).all()
    pooled = _logistic(y[5:398].reshape(1, -1), valid[5:398].reshape(1, -1), np.tile(x, 393))[0, :300]
    assert np.abs(pooled - truth).max() < 0.01  # 117,900 points: the curve they were drawn from


def test_models_reproduce_the_real_runs_mean_ap(models):
    cal = models.calibration()
    assert (cal.z.abs() <= 3).mean() >= 0.9, cal.sort_values("z")
    assert abs(cal.real.mean() - cal.model.mean()) < 0.01
    assert np.corrcoef(cal.real, cal.model)[0, 1] > 0.99
    assert (models.mc_error < 0.002).all()


def test_null_differences_are_symmetric_and_exact_tests_hold_their_level(models):
    res = ranking_experiment(models, 50, trials=2000, B=200, seed=5, batch=500)
    for prop in ("sign_balance", "rank_balance", "d_z"):
        v = res.props[prop]
        v = v[~np.isnan(v)]
        assert abs(v.mean()) <= 3 * float(clustered_se(v)), prop
    rates, se = res.rates(alphas=(ALPHA,)).loc[ALPHA], res.se(ALPHA)
    for t in res.tests:
        assert rates[t] <= ALPHA + 3 * se[t], (t, rates[t], se[t])  # none is liberal
    for t in ("paired-t", "wilcoxon", "permutation"):  # exact (or nearly) under a symmetric null
        assert abs(rates[t] - ALPHA) <= 3 * se[t], (t, rates[t], se[t])
    assert 0 < se["paired-t"] < 0.006


def test_power_grows_with_the_true_difference(models):
    small, large = (ranking_experiment(models, 30, trials=300, delta=d, tests=("paired-t",), seed=6, properties=False)
                    for d in (0.01, 0.08))  # fmt: skip
    b, e = np.divmod(large.pair, len(models.runs))
    assert abs(models.difference(b, e).mean() - 0.08) < 0.02
    assert small.rates(alphas=(ALPHA,)).iloc[0, 0] < large.rates(alphas=(ALPHA,)).iloc[0, 0]


def test_holm_and_bh_bring_the_family_wise_error_back_to_alpha(models):
    fam = ranking_family_experiment(models, 30, k=5, families=1500, seed=7)
    f = fam.frame(ALPHA).set_index(["test", "procedure"])
    for t in fam.tests:
        assert f.loc[(t, "none"), "rate"] > ALPHA + 3 * f.loc[(t, "none"), "se"]
        for proc in ("holm", "fdr_bh"):  # under the complete null BH controls the FWER too
            assert f.loc[(t, proc), "rate"] <= ALPHA + 3 * f.loc[(t, proc), "se"]
    assert (fam.truth == 0).all() and set(f.what) == {"FWER"}


def test_results_do_not_depend_on_n_jobs(covid, models):
    small = covid.subset(runs=list(range(3)))
    one, two = (fit_ranking_models(small, ["AP", "P@10"], draws=5, seed=1, n_jobs=j) for j in (1, 2))
    assert all(np.array_equal(one[m].scores, two[m].scores) for m in one)
    a, b = (ranking_experiment(models, 20, trials=120, B=50, seed=3, batch=40, n_jobs=j) for j in (1, 2))
    assert np.array_equal(a.two, b.two) and np.array_equal(a.pair, b.pair) and np.array_equal(a.d, b.d)
    f1, f2 = (ranking_family_experiment(models, 20, k=3, families=60, delta=0.02, seed=4, batch=20, n_jobs=j)
              for j in (1, 2))  # fmt: skip
    assert np.array_equal(f1.p, f2.p) and np.array_equal(f1.truth, f2.truth)


def test_bad_input(covid, models):
    with pytest.raises(InputError):
        ranking_experiment(models, 20, trials=10, delta=-0.1, seed=1)
    with pytest.raises(InputError):
        ranking_experiment(models, 20, trials=10, tests=("t",), seed=1)
    with pytest.raises(InputError):
        ranking_family_experiment(models, 20, k=1, families=10, seed=1)
    with pytest.raises(InputError):
        ranking_family_experiment(models, 20, k=10, families=10, delta=0.5, seed=1)
    few = fit_ranking_models(covid.subset(runs=[0, 1]), ["AP"], draws=2, seed=1)["AP"]
    with pytest.raises(InputError):
        ranking_family_experiment(few, 20, k=3, families=10, seed=1)


def test_the_designs_trials_meet_their_monte_carlo_target():
    """A 5% rate's binomial se times the square root of a design effect of 1.3 is within each scale's se."""
    for scale in ("quick", "paper", "full"):
        d = kt.ranking_design(scale)
        assert np.sqrt(ALPHA * (1 - ALPHA) * 1.3 / d.trials) <= d.se, scale
        assert max(d.k) <= d.draws and d.topics in d.sizes and set(d.family_topics) <= set(d.sizes) | {10, 30}
    assert kt.ranking_design().se == 0.005 and kt.ranking_design().B == kt.urbano_design().B


def test_design_table_has_every_aspect_with_this_scales_sizes():
    paper, quick = ranking_design_table("paper"), ranking_design_table("quick")
    assert list(paper.aspect) == ["data", "system model", "relevance grades", "ranking simulation", "topics", "null",
                                  "alternative", "true difference", "tests", "multiple comparisons",
                                  "error rates counted", "trials / Monte Carlo error"]  # fmt: skip
    ours = paper.set_index("aspect")["this chapter"]
    assert "2,500 trials" in ours["trials / Monte Carlo error"] and "B = 2,000" in ours["tests"]
    assert "25, 50 and 100" in ours["topics"] and "100 rankings" in ours["ranking simulation"]
    assert "300 trials" in quick.set_index("aspect")["this chapter"]["trials / Monte Carlo error"]
    assert paper.iloc[:, 1].str.contains("java").sum() >= 10  # their choices name their code's files


@pytest.mark.slow
def test_ranking_study_runs_the_design_whatever_the_workers(covid):
    design = kt.ranking_design("quick")
    one, two = (kt.ranking_study(covid, design, seed=8, n_jobs=j) for j in (1, 2))
    nulls = {("AP", 25, 0.0), ("AP", 50, 0.0), ("AP", 100, 0.0), ("P@10", 50, 0.0), ("nDCG@20", 50, 0.0)}
    assert set(one.pairs) == nulls | {("AP", 50, 0.02), ("AP", 50, 0.05)}
    assert set(one.families) == {(k, n, d) for k in (3, 5, 10) for n in (25, 50) for d in (0.0, 0.02)}
    assert all(
        r.trials == (design.power_trials if d else design.trials) for (_, _, d), r in one.pairs.items()
    )
    assert all(
        f.p.shape[2] == (design.power_trials if d else design.trials) for (_, _, d), f in one.families.items()
    )
    assert all(len(r.props["d_z"]) == r.trials and r.n_topics == n for (_, n, _), r in one.pairs.items())
    for key, r in one.pairs.items():
        s = two.pairs[key]
        assert (
            np.array_equal(r.two, s.two)
            and np.array_equal(r.one, s.one)
            and np.array_equal(r.pair, s.pair)
            and np.array_equal(r.d, s.d)
        ), key
    for key, f in one.families.items():
        assert np.array_equal(f.p, two.families[key].p) and np.array_equal(
            f.truth, two.families[key].truth
        ), key
    assert all(np.array_equal(one.models[m].scores, two.models[m].scores) for m in design.measures)
    # common random numbers: one sequence of runs at every topic-set size
    assert np.array_equal(one.pairs["AP", 25, 0.0].pair, one.pairs["AP", 100, 0.0].pair)
    assert not np.array_equal(one.pairs["AP", 50, 0.0].pair, one.pairs["P@10", 50, 0.0].pair)
    assert np.array_equal(one.families[10, 25, 0.02].family, one.families[10, 50, 0.02].family)
