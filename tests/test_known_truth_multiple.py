"""All-pairs comparisons of several systems (irrepro.known_truth.multiple_experiment): family-wise
error under the complete null (unadjusted far above alpha, Holm and Benjamini-Hochberg at most alpha),
the rates of ``frame`` against rejections counted with statsmodels on known p-values, the simulator's
true null and true differences, and invariance to the number of workers."""

import gc

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from irrepro import known_truth as kt
from irrepro import simulation as sim
from irrepro.errors import InputError
from irrepro.known_truth._multiple import MultipleResult

ALPHA = 0.05


@pytest.fixture(scope="module")
def models(real_matrix):
    return [sim.fit_collection(real_matrix(c, "AP"), seed=18) for c in ("trec5", "trec6")]


@pytest.fixture(scope="module")
def five(models):
    """400 families-trials of 5 systems x 25 topics, t-test and Wilcoxon, delta = 0.1."""
    return kt.multiple_experiment(
        models, m=(5,), n_topics=(25,), delta=0.1, tests=("paired-t", "wilcoxon"), trials=400,
        n_families=100, seed=31, n_jobs=1,
    )  # fmt: skip


def test_complete_null_fwer_unadjusted_far_above_alpha_holm_and_bh_at_most_alpha(five):
    f = five.frame(ALPHA).set_index(["test", "procedure"])
    for test in ("paired-t", "wilcoxon"):
        # ten tests at alpha: well above alpha (1 - 0.95^10 = 0.40 were they independent)
        assert f.fwer[test, "unadjusted"] - 4 * f.fwer_se[test, "unadjusted"] > 2 * ALPHA
        # Holm controls the FWER; so does BH under the complete null (there FWER = FDR <= alpha)
        for proc in ("Holm", "BH"):
            assert f.fwer[test, proc] <= ALPHA + 3 * max(f.fwer_se[test, proc], 0.011)
        assert f.fwer[test, "Holm"] <= f.fwer[test, "BH"] <= f.fwer[test, "unadjusted"]
        assert f.power[test, "Holm"] <= f.power[test, "BH"] <= f.power[test, "unadjusted"]


def test_the_t_test_holds_its_level_on_every_true_null_pair_and_finds_the_true_differences(five):
    p = five.p[5, 25, "null"][0]  # (trials, pairs): every pair a true null
    rate = (p <= ALPHA).mean()
    se = np.sqrt(ALPHA * (1 - ALPHA) / len(p))  # per pair; the rate over the ten pairs is as precise or more
    assert abs(rate - ALPHA) <= 4 * se
    alt = five.p[5, 25, "partial"][0]
    i, j = np.triu_indices(5, 1)
    true = (i < 3) & (j >= 3)  # the last 5 // 2 = 2 systems are the better ones
    assert abs((alt[:, ~true] <= ALPHA).mean() - ALPHA) <= 4 * se  # the pairs within a group: true nulls
    assert (alt[:, true] <= ALPHA).mean() > 0.5  # delta = 0.1 at 25 topics: mostly found


def test_frame_rates_equal_rejections_counted_with_statsmodels(monkeypatch):
    monkeypatch.setattr(gc, "collect", lambda *a: 0)  # multipletests collects garbage on every call
    rng = np.random.default_rng(5)
    m, trials = 4, 60  # pairs (0,1) (2,3) true nulls; the other four true differences
    i, j = np.triu_indices(m, 1)
    true = (i < 2) & (j >= 2)
    p = {
        (m, 10, "null"): rng.choice([0.001, 0.01, 0.02, 0.04, 0.2, 0.7], size=(1, trials, 6)),
        (m, 10, "partial"): rng.choice([0.001, 0.008, 0.013, 0.03, 0.06, 0.5], size=(1, trials, 6)),
    }
    family = np.repeat(np.arange(20), 3)
    two = {k: np.concatenate([v, v]) for k, v in p.items()}  # a closed-form test and a resampling one
    f = MultipleResult(("paired-t", "permutation"), two, {m: family}, 0.1, 100).frame(ALPHA)
    f = f.set_index(["test", "procedure"])
    for proc, method in (("unadjusted", None), ("Holm", "holm"), ("BH", "fdr_bh")):
        null, alt = (
            p[m, 10, kind][0] <= ALPHA
            if method is None
            else np.array([multipletests(r, alpha=ALPHA, method=method)[0] for r in p[m, 10, kind][0]])
            for kind in ("null", "partial")
        )
        v, r = alt[:, ~true].sum(axis=1), alt.sum(axis=1)
        row = f.loc["paired-t", proc]
        assert row.fwer == pytest.approx(null.any(axis=1).mean())
        assert row.power == pytest.approx(alt[:, true].mean())
        assert row.power_all == pytest.approx(alt[:, true].all(axis=1).mean())
        assert row.fwer_partial == pytest.approx((v > 0).mean())
        assert row.fdr == pytest.approx(np.mean(v / np.maximum(r, 1)))
        # B = 100 resolves a p-value at alpha, not at alpha / 6 (the project's 20 resamples there)
        assert row.resolved and f.loc["permutation", proc].resolved == (method is None)
    assert (f.trials == trials).all() and (f.families == 20).all()


def test_results_do_not_depend_on_the_number_of_workers(models):
    kw = dict(m=(3, 4), n_topics=(8, 12), tests=("paired-t", "permutation"), trials=30, n_families=6, B=50,
              seed=33, families_per_task=2)  # fmt: skip
    one = kt.multiple_experiment(models, n_jobs=1, **kw)
    two = kt.multiple_experiment(models, n_jobs=2, **kw)
    assert one.p.keys() == two.p.keys()
    for key in one.p:
        np.testing.assert_array_equal(one.p[key], two.p[key])
    assert one.frame().equals(two.frame())


@pytest.mark.parametrize(
    "kw",
    [dict(delta=0.0), dict(tests=("t",)), dict(m=(1,)), dict(m=(10_000,))],
    ids=["delta", "test", "m<2", "m>S"],
)
def test_bad_input_is_refused(models, kw):
    with pytest.raises(InputError):
        kt.multiple_experiment(models, seed=1, **kw)
