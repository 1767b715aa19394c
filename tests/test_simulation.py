"""The simulator of irrepro.simulation against independent references: sample means of many draws
against each margin's expected value (and the target of a transformation), scipy's distributions
for the parametric fits, scipy's Kendall tau for the copulas."""

import numpy as np
import pytest
from scipy import stats

from irrepro import simulation as sim
from irrepro.simulation import _collection, _margins

#: The support of P@10.
SUPPORT_P10 = np.round(np.arange(11) / 10, 10)


def _mc_ok(draws, target, z=4.0):
    se = draws.std(ddof=1) / np.sqrt(draws.size)
    return abs(draws.mean() - target) <= z * se + 1e-9


def test_truncnorm_and_beta_fits_match_scipy():
    rng = np.random.default_rng(0)
    x = stats.beta.rvs(2.0, 5.0, size=400, random_state=rng)
    m = _margins._fit_beta(np.clip(x, 1e-3, 1 - 1e-3))
    a, b, _, _ = stats.beta.fit(np.clip(x, 1e-3, 1 - 1e-3), floc=0, fscale=1)
    assert m.mean == pytest.approx(a / (a + b), abs=2e-4)
    y = stats.truncnorm.rvs(-0.3 / 0.2, 0.7 / 0.2, loc=0.3, scale=0.2, size=2000, random_state=rng)
    t = _margins._fit_truncnorm(y, np.clip(y, 1e-3, 1 - 1e-3))
    # the MLE's truncated normal has (about) the sample's mean; scipy's truncnorm gives the reference
    assert t.mean == pytest.approx(stats.truncnorm.mean(-0.3 / 0.2, 0.7 / 0.2, loc=0.3, scale=0.2), abs=0.01)
    assert t.family == "truncnorm"


def test_truncnorm_cdf_matches_scipy_also_far_in_the_tail():
    grid = np.linspace(0, 1, 11)
    for mu, sd in [(0.3, 0.2), (-2.0, 0.3), (2.5, 0.4), (0.5, 5.0)]:
        ref = stats.truncnorm.cdf(grid, -mu / sd, (1 - mu) / sd, loc=mu, scale=sd)
        np.testing.assert_allclose(_margins._truncnorm_cdf(grid, mu, sd), ref, atol=1e-9)


@pytest.mark.parametrize("support", [None, SUPPORT_P10])
def test_margin_means_reproduce_targets_within_monte_carlo_error(support):
    rng = np.random.default_rng(1)
    if support is None:
        x = np.clip(stats.beta.rvs(0.8, 2.5, size=50, random_state=rng), 0, 1)
    else:
        x = stats.betabinom.rvs(10, 1.5, 2.5, size=50, random_state=rng) / 10
    m = _margins.fit_margin(x, support=support)
    draws = m.ppf(np.random.default_rng(2).random(200_000))
    assert _mc_ok(draws, m.mean)
    if support is not None:
        assert np.isin(np.round(draws, 10), support).all()
    for target in (m.mean + 0.05, m.mean - 0.03):
        t = m.with_mean(target)
        assert t.mean == pytest.approx(target, abs=1e-7)
        assert _mc_ok(t.ppf(np.random.default_rng(3).random(200_000)), target)
    with pytest.raises(ValueError):
        m.with_mean(1.2)


def test_margin_selection_prefers_the_true_family_on_large_samples():
    rng = np.random.default_rng(3)
    x = stats.beta.rvs(0.7, 3.0, size=3000, random_state=rng)
    assert _margins.fit_margin(x).family in {"beta", "kde"}
    y = stats.betabinom.rvs(10, 2, 3, size=3000, random_state=rng) / 10
    assert _margins.fit_margin(y, support=SUPPORT_P10).family == "betabinom"


def test_pseudo_obs_are_ranks_with_random_ties():
    x = np.array([[0.1, 0.0], [0.1, 0.5], [0.3, 0.5], [0.2, 0.9]])
    u = sim.pseudo_obs(x, seed=0) * 5
    assert sorted(u[:, 0]) == [1, 2, 3, 4]
    assert set(u[:2, 0]) == {1, 2} and u[3, 0] == 3 and u[2, 0] == 4
    np.testing.assert_array_equal(sim.pseudo_obs(x, seed=0), sim.pseudo_obs(x, seed=0))


def test_copula_tau_matches_the_data_and_the_simulation(real_matrix):
    model = sim.fit_collection(real_matrix("trec8", "AP"), seed=4)
    rng = np.random.default_rng(5)
    diffs = []
    for _ in range(30):
        i, j = rng.choice(len(model.margins), 2, replace=False)
        cop = model.copula(i, j)
        diffs.append(cop.tau - stats.kendalltau(model.scores[i], model.scores[j]).statistic)
    # itau inverts Kendall's tau: the fitted tau is the data's (ties broken at random) up to
    # rounding and the few two-parameter families whose tau is not matched exactly
    assert np.median(np.abs(diffs)) < 0.02
    assert np.max(np.abs(diffs)) < 0.1
    pair = model.pair(i, j)
    u1, u2 = pair.uniforms(100, 300, seed=6)
    taus = [stats.kendalltau(a, b).statistic for a, b in zip(u1, u2)]
    assert _mc_ok(np.array(taus), pair.copula.tau)
    for u in (u1, u2):  # the copula's margins are uniform
        assert stats.kstest(u.ravel()[:5000], "uniform").pvalue > 1e-3


def test_collection_model_drops_duplicates_and_the_bottom_tenth(real_matrix):
    m = real_matrix("trec5", "P@10")
    model = sim.fit_collection(m, seed=7)
    keep = _collection._remove_duplicates(m.scores)
    mu = m.scores[keep].mean(1)
    assert len(model.margins) == int(np.sum(mu >= np.quantile(mu, 0.1)))
    assert all(mg.discrete for mg in model.margins)
    # the fitted margins' means are close to the systems' mean scores
    assert np.max(np.abs(model.means - model.scores.mean(1))) < 0.05
    # a copula does not depend on the order in which pairs are fitted
    again = sim.fit_collection(m, seed=7)
    again.copula(3, 4)
    assert again.copula(1, 2).parameters.tolist() == model.copula(1, 2).parameters.tolist()


def test_a_fitted_collection_model_pickles_with_its_copulas():
    """A CollectionModel goes to a Dask worker or a process (its lock did not pickle): the copy has
    the margins and the copulas fitted so far, a lock of its own, and draws what the original draws."""
    import pickle

    from irrepro.data import ScoreMatrix

    x = np.random.default_rng(0).beta(2, 5, (5, 30))
    model = sim.fit_collection(ScoreMatrix(x, tuple("abcde"), tuple(map(str, range(30))), "AP"), seed=1)
    model.copula(0, 1)
    copy = pickle.loads(pickle.dumps(model))
    assert copy._lock is not model._lock and set(copy._copulas) == {(0, 1)}
    np.testing.assert_array_equal(copy.means, model.means)
    a, b = (m.pair(0, 2).sample(20, 5, seed=3) for m in (model, copy))
    np.testing.assert_array_equal(np.stack(a), np.stack(b))
