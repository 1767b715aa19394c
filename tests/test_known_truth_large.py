"""The large-query regime (irrepro.known_truth._large) on Urbano et al.'s simulator: the trials'
difference properties, every test's level under a symmetric null at 1,000 topics, and the share of
significant differences below a minimal effect."""

from __future__ import annotations

import numpy as np
import pytest

from irrepro import InputError
from irrepro import known_truth as kt
from irrepro import simulation as sim
from irrepro.data import ScoreMatrix
from irrepro.known_truth import _large, _pvalues, _urbano
from irrepro.known_truth._differences import PROPERTIES, difference_properties
from irrepro.known_truth._urbano import UrbanoPValues

ALL = ("paired-t", "wilcoxon", "sign", "bootstrap-shift", "permutation") + kt.SAKAI_TESTS


@pytest.fixture(scope="module")
def models():
    """Two collections of 8 systems with skewed (beta) scores on 40 topics, correlated by topic."""
    out = []
    for s in (1, 2):
        rng = np.random.default_rng(s)
        topic = rng.standard_normal(40)
        z = 0.7 * topic + 0.7 * rng.standard_normal((8, 40))
        x = np.clip(np.linspace(0.15, 0.4, 8)[:, None] + 0.1 * z + 0.05 * z**2, 0.0, 1.0)
        m = ScoreMatrix(x, tuple(f"s{i}" for i in range(8)), tuple(map(str, range(40))), "AP", f"skew{s}")
        out.append(sim.fit_collection(m, seed=s, bottom=0.0, copula_method="mle"))
    return out


def test_properties_leave_the_p_values_and_equal_those_of_the_simulated_differences(models, monkeypatch):
    common = dict(trials=90, batch=40, tests=ALL, B=50, seed=4, n_jobs=1)
    plain = kt.urbano_experiment(models, 30, **common)
    seen = []  # the (b, e) of every batch, as the worker tested them (n_jobs=1: in this process)
    batch_pvalues = _urbano.batch_pvalues
    monkeypatch.setattr(
        _urbano, "batch_pvalues", lambda b, e, *a: seen.append((b, e)) or batch_pvalues(b, e, *a)
    )
    res = kt.urbano_experiment(models, 30, properties=True, **common)
    for x in ("two", "one", "pair", "d"):
        np.testing.assert_array_equal(getattr(res, x), getattr(plain, x))
    assert plain.props == {} and tuple(res.props) == PROPERTIES
    d = np.vstack([e - b for b, e in seen])
    want = difference_properties(d, tie=0.01)  # the sign test's ties, as urbano_experiment's
    for k in PROPERTIES:
        np.testing.assert_allclose(res.props[k], want[k], rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.d, d.mean(axis=1), atol=1e-12)


def test_every_test_holds_its_level_at_1000_topics_under_a_symmetric_null(models):
    # both systems from the first's margin through an exchangeable (Gaussian) copula: d = e - b is
    # symmetric about 0, the null of all seven tests
    import pyvinecopulib as pv

    for m in models:
        for i in range(len(m.margins)):
            for j in range(i + 1, len(m.margins)):
                m._copulas[i, j] = pv.Bicop(family=pv.families.gaussian, parameters=np.array([[0.6]]))
    res = kt.urbano_experiment(
        models, 1000, trials=1600, tests=ALL, B=400, seed=7, batch=400, properties=True
    )
    assert abs(np.nanmean(res.props["skewness"])) < 0.01 and abs(np.nanmean(res.props["rank_balance"])) < 0.01
    rate, se = res.rejected(0.05).mean(axis=1), res.se(0.05)
    # the unpaired bootstrap ignores the pairing (correlation 0.6): conservative, not at its level
    for k, t in enumerate(res.tests):
        bias = (
            0.95 / (res.B + 1) if t in ("bootstrap-shift", "permutation", "bootstrap") else 0.0
        )  # p <= alpha
        if t == "unpaired-bootstrap":
            assert rate[k] < 0.05 - 3 * se[t], rate[k]
        else:
            assert abs(rate[k] - 0.05 - bias) <= 3 * se[t], (t, rate[k], se[t])


def _result(two, d, d_z, pair, delta):
    """An UrbanoPValues of one test from its p-values and the trials' d and d_z."""
    two = np.atleast_2d(np.asarray(two, dtype=float))
    props = {"d_z": np.asarray(d_z, dtype=float)}
    return UrbanoPValues(
        ("paired-t",), two, two, np.asarray(pair), delta, 100, 1, d=np.asarray(d, float), props=props
    )


def test_minimal_effect_shares_on_a_known_case():
    # pairs 0, 1, 2 with sd of differences (per trial) 0.3 and 0.4 (pooled sqrt(0.125) = 0.354: true
    # effect 0.07 / 0.354 = 0.198 < 0.2, where the mean sd, 0.35, would give 0.2), 0.2 and 0.2 (0.35),
    # 0.5 and 0.5 (0.14)
    sd = np.array([0.3, 0.4, 0.2, 0.2, 0.5, 0.5])
    d_z = np.array([0.1, 0.3, 0.15, 0.5, 0.1, -0.05])
    two = [0.01, 0.01, 0.01, 0.01, 0.5, 0.01]  # rejected: 0, 1, 2, 3, 5
    r = _result(two, d_z * sd, d_z, [0, 0, 1, 1, 2, 2], 0.07).minimal_effect(0.2)
    row = r.loc["paired-t"]
    assert row["rate"] == pytest.approx(5 / 6)
    assert row["observed"] == pytest.approx(3 / 5)  # |d_z| < 0.2: trials 0, 2, 5
    assert row["true"] == pytest.approx(3 / 5)  # pairs 0 and 2: trials 0, 1, 5
    assert row["trivial"] == pytest.approx(4 / 6)
    assert row["observed_se"] > 0 and row["true_se"] > 0


def test_minimal_effect_errors_and_edges():
    d_z = np.array([0.1, 0.05, 0.1, 0.05])
    every = _result([0.01] * 4, d_z * 0.2, d_z, [0, 1, 2, 3], 0.01).minimal_effect()
    assert every.loc["paired-t", "observed"] == 1 and every.loc["paired-t", "observed_se"] == 0
    none = _result([0.9] * 4, d_z * 0.2, d_z, [0, 1, 2, 3], 0.01).minimal_effect()
    assert np.isnan(none.loc["paired-t", "observed"])
    bare = UrbanoPValues(("paired-t",), np.zeros((1, 2)), np.zeros((1, 2)), np.arange(2), 0.0, 10, 1)
    with pytest.raises(InputError, match="properties=True"):
        bare.minimal_effect()
    with pytest.raises(InputError, match="minimal"):
        _result([0.01] * 4, d_z, d_z, [0, 1, 2, 3], 0.01).minimal_effect(0.0)


def test_design_meets_its_monte_carlo_target_and_finite_b_bound():
    for scale in ("quick", "paper", "full"):
        d = _large.large_query_design(scale)
        assert d.sizes == (250, 1000, 5000) and len(d.trials) == 3
        assert kt.mc_error(0.05, min(d.trials)) <= d.se + 1e-9
    d = _large.large_query_design("paper")
    # p-values uniform near alpha, each estimated with B resamples: the bias stays below the error
    for trials, B in zip(d.trials, d.B):
        p = np.random.default_rng(3).binomial(B, np.linspace(0, 1, 40 * trials)) / B
        fb = _pvalues._finite_b_bias(p, B)
        assert fb.bound < kt.mc_error(0.05, trials), (B, fb)


def test_large_query_experiments_draw_the_same_pairs_at_every_size(models):
    design = _large.LargeQueryDesign((20, 60), (60, 60), 30, (20, 20), (0.05,), 0.05, 30)
    seed = np.random.SeedSequence(5)
    seed.spawn(3)  # a seed used before: its fresh copy still gives the same pool and pairs
    res = _large.large_query_experiments(
        models, design, null_seed=seed, power_seeds={0.05: 6}, tests=("paired-t",)
    )
    assert sorted(res) == [(20, 0.0), (20, 0.05), (60, 0.0), (60, 0.05)]
    np.testing.assert_array_equal(res[20, 0.0].pair, res[60, 0.0].pair)
    np.testing.assert_array_equal(res[20, 0.05].pair, res[60, 0.05].pair)
    again = kt.urbano_experiment(models, 60, trials=60, tests="paired-t", B=20, seed=5, pool=30)
    np.testing.assert_array_equal(again.two, res[60, 0.0].two)
    assert all(len(r.props["d_z"]) == r.trials for r in res.values())
