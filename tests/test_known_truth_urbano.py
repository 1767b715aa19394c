"""irrepro.known_truth.urbano_experiment: Urbano, Lima & Hanjalic's (2019) simulation as their R code
runs it (a new pair of systems every trial, ML / AIC copulas, their five tests in one call per batch)."""

from __future__ import annotations

import numpy as np
import pytest

from irrepro import InputError
from irrepro import known_truth as kt
from irrepro import significance as sg
from irrepro import simulation as sim
from irrepro._rule import judge_row
from irrepro.data import ScoreMatrix
from irrepro.known_truth import _urbano_sizes
from irrepro.known_truth._pvalues import _finite_b_bias
from irrepro.known_truth._rows import simulation_se
from irrepro.known_truth._urbano import UrbanoPValues, _candidates, _twin
from irrepro.known_truth._urbano_sizes import _extended
from irrepro.significance.urbano import _resample


def _gaussian(n_systems=10, n_topics=60, rho=0.5, seed=0, low=0.3, high=0.7):
    """Systems with normal scores (sd 0.08) around means from ``low`` to ``high``, correlated across
    systems by a shared topic effect (a Gaussian copula with correlation ``rho``)."""
    rng = np.random.default_rng(seed)
    topic = rng.standard_normal(n_topics)
    z = np.sqrt(rho) * topic + np.sqrt(1 - rho) * rng.standard_normal((n_systems, n_topics))
    x = np.clip(np.linspace(low, high, n_systems)[:, None] + 0.08 * z, 0.0, 1.0)
    names = tuple(f"s{i}" for i in range(n_systems))
    return ScoreMatrix(x, names, tuple(str(t) for t in range(n_topics)), "AP", f"gauss{seed}")


@pytest.fixture(scope="module")
def models():
    return [sim.fit_collection(_gaussian(seed=s), seed=s, bottom=0.0) for s in (1, 2)]


def test_t_test_type_i_error_at_alpha_under_the_null(models):
    res = kt.urbano_experiment(models, 30, trials=4000, tests=("paired-t",), seed=11, batch=1000)
    rate = res.rates(alphas=(0.05,)).loc[0.05, "paired-t"]
    se = res.se(0.05)["paired-t"]
    assert 0 < se < 0.006
    assert abs(rate - 0.05) <= 3 * se, (rate, se)


def test_copula_is_the_aic_minimum_of_ml_fits(models):
    import pyvinecopulib as pv

    model = _twin(models[0], "mle")
    assert model.copula_method == "mle" and _twin(models[0], "mle") is model  # the twin is cached
    lo, hi = 2, 5
    chosen = model.copula(lo, hi)
    ss = np.random.SeedSequence(model.seed.entropy, spawn_key=(*model.seed.spawn_key, lo, hi))
    u = sim.pseudo_obs(np.column_stack([model.scores[lo], model.scores[hi]]), ss)
    mle = pv.FitControlsBicop(parametric_method="mle")
    aics = {}
    for fam in pv.families.parametric:
        for rot in (0, 90, 180, 270):
            try:
                cop = pv.Bicop(family=fam, rotation=rot)
                cop.fit(u, controls=mle)
            except Exception:  # a rotation the family does not have
                continue
            aics[(fam, rot)] = cop.aic(u)
    best = min(aics, key=aics.get)
    assert chosen.aic(u) == pytest.approx(aics[best], abs=1e-6)
    assert (chosen.family, chosen.rotation) == best or aics[
        (chosen.family, chosen.rotation)
    ] == pytest.approx(aics[best], abs=1e-6)


@pytest.mark.parametrize("delta", [0.0, 0.03, 0.08])
def test_moved_margins_have_the_target_mean(models, delta):
    model = models[0]
    null = "same-mean" if delta == 0 else "same-margin"
    cands = _candidates(model, delta, null)
    assert cands
    for i, moved in cands.items():
        for j, target in moved:
            assert j != i and target == pytest.approx(model.means[i] + delta)  # moved when drawn
            got = model.margins[j].with_mean(target).mean
            assert got == pytest.approx(model.means[i] + delta, abs=1e-3)
    if delta > 0:  # baselines: the bottom 75% by mean; candidates: the 10 closest to mu + delta
        top = set(np.argsort(-model.means)[: round(0.25 * len(model.means))])
        assert not top & set(cands)
        assert all(len(m) <= 10 for m in cands.values())


def test_results_do_not_depend_on_workers(models):
    runs = [
        kt.urbano_experiment(
            models, 15, trials=90, B=200, seed=5, batch=25, delta=0.02, n_jobs=k, tests=ALL_SEVEN
        )
        for k in (1, 2, 4)
    ]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.two, runs[0].two)
        np.testing.assert_array_equal(r.one, runs[0].one)
        np.testing.assert_array_equal(r.pair, runs[0].pair)
        np.testing.assert_array_equal(r.d, runs[0].d)
    assert runs[0].tests == ALL_SEVEN


#: Their five tests and Sakai's two, as the chapter runs them.
ALL_SEVEN = (
    "paired-t",
    "wilcoxon",
    "sign",
    "bootstrap-shift",
    "permutation",
    "bootstrap",
    "unpaired-bootstrap",
)


def test_power_rises_with_delta(models):
    power = [
        kt.urbano_experiment(models, 25, trials=600, delta=d, tests=("paired-t", "wilcoxon"), seed=7)
        .rates(alphas=(0.05,))
        .loc[0.05]
        for d in (0.01, 0.04, 0.1)
    ]
    assert (power[0] < power[1]).all() and (power[1] < power[2]).all()


def test_type_iii_errors(models):
    big = kt.urbano_experiment(models, 25, trials=400, delta=0.1, tests=("paired-t", "sign"), seed=8)
    assert (big.d > 0).all()
    assert (big.type3(0.05) == 0).all()
    small = kt.urbano_experiment(models, 25, trials=400, delta=0.01, tests=("paired-t",), seed=8)
    wrong = (small.d < 0) & (small.two[0] <= 0.1)
    assert small.type3(0.1)["paired-t"] == pytest.approx(wrong.mean()) and wrong.any()
    frame = small.frame(alphas=(0.05, 0.1))
    two = frame[frame.tails == 2].set_index("alpha")
    assert two.loc[0.1, "type3"] == pytest.approx(wrong.mean())
    assert frame[frame.tails == 1].type3.isna().all()
    r = small.rejected(0.05)[0].mean()
    assert two.loc[0.05, "se_binomial"] == pytest.approx(np.sqrt(r * (1 - r) / 400))


def test_rejection_counts_p_equal_to_alpha(models):
    res = kt.urbano_experiment(models, 10, trials=200, B=50, tests=("bootstrap-shift",), seed=9)
    alpha = np.unique(res.two[0])[1]  # a p-value that occurs: their ecdf counts p <= alpha
    assert res.rejected(alpha)[0].sum() == (res.two[0] <= alpha).sum() > (res.two[0] < alpha).sum()


def test_trials_for_se():
    n = _urbano_sizes.trials_for_se(0.003)
    assert kt.mc_error(0.05, n) <= 0.003 < kt.mc_error(0.05, n - 1)
    with pytest.raises(InputError):
        _urbano_sizes.trials_for_se(0)


def test_trials_for_se_with_a_pool():
    """The variance of a rate over T trials from P pairs whose trials correlate by icc within a
    pair is p (1 - p) / T (1 + icc T / P): the trials it gives meet se, one fewer does not."""

    def se(t, pool, icc, p=0.05):
        return (p * (1 - p) / t * (1 + icc * t / pool)) ** 0.5

    for pool, icc in ((4000, 0.35), (3000, 0.1), (10**6, 0.5)):
        n = _urbano_sizes.trials_for_se(0.003, pool=pool, icc=icc)
        assert se(n, pool, icc) <= 0.003 < se(n - 1, pool, icc)
    assert _urbano_sizes.trials_for_se(0.003, pool=4000, icc=0) == _urbano_sizes.trials_for_se(0.003)
    assert _urbano_sizes.trials_for_se(0.003, pool=4000, icc=0.35) > _urbano_sizes.trials_for_se(0.003)
    with pytest.raises(InputError, match="cannot give"):  # the floor 0.05 x 0.95 x 0.5 / 1000 > 0.003^2
        _urbano_sizes.trials_for_se(0.003, pool=1000, icc=0.5)
    with pytest.raises(InputError):
        _urbano_sizes.trials_for_se(0.003, pool=0, icc=0.1)


@pytest.mark.parametrize(
    "kwargs, words",
    [({"delta": -0.1}, "delta"), ({"null": "same"}, "null"), ({"tests": ("paired-t", "z")}, "tests")],
)
def test_input_errors(models, kwargs, words):
    with pytest.raises(InputError, match=words):
        kt.urbano_experiment(models, 10, trials=5, seed=1, **kwargs)


@pytest.mark.realdata
def test_trec8_ap(real_matrix):
    model = sim.fit_collection(real_matrix("trec8", "AP"), seed=1)
    res = kt.urbano_experiment([model], 50, trials=300, B=200, seed=2)
    rates = res.rates(alphas=(0.05,)).loc[0.05]
    assert ((rates > 0) & (rates < 0.2)).all()
    alt = kt.urbano_experiment([model], 50, trials=200, B=200, delta=0.05, seed=3, tests=("paired-t",))
    assert alt.rates(alphas=(0.05,)).loc[0.05, "paired-t"] > 0.3


def test_copulas_fitted_on_processes_equal_the_serial_fits(tmp_path, monkeypatch):
    from irrepro.known_truth._urbano import _CHUNK, _fit_copulas

    fitted = []
    for jobs in (1, 2):
        monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / str(jobs)))  # fitted, not read from the cache
        x = _gaussian(n_systems=18, seed=3)  # scores rounded to 0.05: ties, broken by the pair's seed
        x = ScoreMatrix(np.round(x.scores * 20) / 20, x.systems, x.topics, x.measure, x.collection)
        model = _twin(sim.fit_collection(x, seed=3, bottom=0.0), "mle")
        keys = {(0, i, j) for i in range(18) for j in range(i + 1, 18)}
        assert len(keys) > _CHUNK  # more than one process task
        assert _fit_copulas([model], keys, jobs) == len(keys)
        fitted.append(model._copulas)
    assert fitted[0].keys() == fitted[1].keys()
    for key, cop in fitted[0].items():
        other = fitted[1][key]
        assert (cop.family, cop.rotation) == (other.family, other.rotation)
        np.testing.assert_array_equal(cop.parameters, other.parameters)


# ------------------------------------------------------------------------------------ finite-B bias


def test_finite_b_bias_matches_brute_force_at_a_large_b():
    """The same 8000 null trials (permutation test, 20 Gaussian topics) at B = 100 and B = 10000
    (the ideal test, up to a bias ~ 1/10000): the rates' difference is the finite-B bias, which
    finite_b_bias estimates from the B = 100 p-values alone (within the difference's own noise)
    and bounds; at B = 100 it is well above the Monte Carlo error (ok is False)."""
    rng = np.random.default_rng(21)
    b, e = rng.normal(0.3, 0.1, (2, 8000, 20))
    small = _resample("permutation", b, e, 100, 22, None).two_tailed
    large = _resample("permutation", b, e, 10_000, 23, None).two_tailed
    diff = np.mean(small <= 0.05) - np.mean(large <= 0.05)
    # noise of diff: the trials whose classification differs, each +-1
    noise = np.sqrt(np.mean((small <= 0.05) != (large <= 0.05)) / len(small))
    r = _finite_b_bias(small, B=100)
    assert r.bias > 3 * noise  # a real bias here: a stub returning 0 fails
    assert abs(diff - r.bias) <= 3 * noise + (r.bound - abs(r.bias))
    assert r.bound >= diff - 3 * noise
    assert not r.ok and r.se == pytest.approx(np.sqrt(r.rate * (1 - r.rate) / 8000))
    big = _finite_b_bias(large, B=10_000)
    assert big.ok and abs(big.bias) < 2e-4


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p": [0.1, 1.2], "B": 100}, "p-values"),
        ({"p": [0.1], "B": 0}, "B"),
        ({"p": [0.1], "B": 10, "alpha": 1}, "alpha"),
    ],
)
def test_finite_b_bias_rejects_bad_input(kwargs, match):
    with pytest.raises(InputError, match=match):
        _finite_b_bias(**kwargs)


def test_sakais_tests_run_on_the_same_trials_and_leave_theirs_unchanged(models):
    five = kt.urbano_experiment(models, 20, trials=300, B=200, seed=12)
    seven = kt.urbano_experiment(models, 20, trials=300, B=200, seed=12, tests=five.tests + kt.SAKAI_TESTS)
    assert seven.tests[-2:] == ("bootstrap", "unpaired-bootstrap")
    assert np.array_equal(seven.two[:5], five.two) and np.array_equal(seven.one[:5], five.one)
    # under the null Sakai's paired test is near alpha and the unpaired one conservative (paired data)
    rates = seven.rates(alphas=(0.05,)).iloc[0]
    assert abs(rates["bootstrap"] - 0.05) < 0.04 and rates["unpaired-bootstrap"] < rates["bootstrap"]


def test_sakais_paired_bootstrap_p_values_are_the_significance_packages(models):
    """A batch's Sakai p-values equal irrepro.significance.paired_bootstrap_test on the same draws."""
    from irrepro import parallel
    from irrepro import sensitivity as bt
    from irrepro.known_truth._pvalues import _sakai_pvalues

    rng = np.random.default_rng(3)
    b = rng.beta(2, 5, size=(6, 25))
    e = np.clip(b + rng.normal(0.03, 0.1, size=b.shape), 0, 1)
    g_paired, g_pool = parallel.spawn(np.random.default_rng(7), 2)
    got = _sakai_pvalues(b, e, ("bootstrap",), 300, g_paired, g_pool)["bootstrap"][0]
    g_paired, _ = parallel.spawn(np.random.default_rng(7), 2)
    scores = np.empty((12, 25))
    scores[0::2], scores[1::2] = e, b
    pairs = np.column_stack([np.arange(0, 12, 2), np.arange(1, 12, 2)])
    ref = sg.paired_bootstrap_test(scores, pairs, samples=bt.bootstrap_samples(25, 300, seed=g_paired))
    assert np.allclose(got, ref.p)


def test_copula_itau_uses_exchangeable_fits_on_the_same_pairs(models):
    mle = kt.urbano_experiment(models, 20, trials=200, B=50, seed=13, tests=("paired-t",))
    tau = kt.urbano_experiment(models, 20, trials=200, B=50, seed=13, tests=("paired-t",), copula="itau")
    assert np.array_equal(mle.pair, tau.pair)  # the same draws of pairs
    assert _twin(models[0], "itau").copula_method == "itau"
    with pytest.raises(InputError, match="copula"):
        kt.urbano_experiment(models, 20, trials=10, seed=1, copula="tau")


def test_type3_se_is_the_clustered_error_of_wrong_sign_rejections(models):
    res = kt.urbano_experiment(models, 15, trials=500, delta=0.01, tests=("paired-t", "sign"), seed=14)
    wrong = res.rejected(0.1, 2) & (res.d < 0)[None, :]
    r = wrong.mean(axis=1)
    # every trial draws a new pair, so with few repeats the clustered error is near the binomial one
    assert np.allclose(res.type3_se(0.1), np.sqrt(r * (1 - r) / 500), rtol=0.35)
    frame = res.frame(alphas=(0.1,))
    two = frame[frame.tails == 2].set_index("test")
    assert two.loc["sign", "type3_se"] == pytest.approx(res.type3_se(0.1)["sign"])


def test_comparison_rows_for_type3_and_their_tests(models):
    res = kt.urbano_experiment(models, 25, trials=200, delta=0.01, seed=15)
    numbers = {"trials.type3": 167000, "type3.ap.25.s2.d0.01": 0.012, "type3.ap.25.t2.d0.01": 0.007}
    rows = {r["quantity"]: r for r in kt.rows.comparison_rows({("AP", 25): res}, numbers, "type3")}
    sign = rows["AP, 25 topics, sign"]
    assert sign["paper"] == 0.012 and sign["paper_n"] == 167000  # their sign test: compared, not context
    assert sign["ours"] == pytest.approx(res.type3(0.05)["sign"])
    se = res.type3_se(0.05)["sign"]  # clustered by pair; Agresti & Coull's over the pairs where it is 0
    assert sign["se_mc"] == pytest.approx(simulation_se(sign["ours"], se, len(np.unique(res.pair))))
    assert sign["unit"] == "system pair" and sign["replicates"] == 200 and "nominal" not in sign
    assert rows["AP, 25 topics, wilcoxon"]["paper"] is None  # not in the numbers: context


def test_urbano_design_meets_the_chapters_precision():
    paper, full = kt.urbano_design("paper"), kt.urbano_design("full")
    assert kt.mc_error(0.05, paper.trials) <= 0.0027 and kt.mc_error(0.05, full.trials) <= 0.00047
    assert full.B > paper.B and set(full.power_topics) == {25, 50, 100}
    with pytest.raises(InputError):
        kt.urbano_design("huge")


def test_can_move_to_agrees_with_with_mean(models):
    for margin in models[0].margins:
        for target in np.linspace(-0.05, 1.05, 23):
            try:
                margin.with_mean(float(target))
                ok = True
            except ValueError:
                ok = False
            assert margin.can_move_to(float(target)) == ok, (margin.family, target)


# -------------------------------------------------------------- the pool of pairs and the copula cache


def _fresh(n_systems=10, seeds=(1, 2)):
    """New model objects (no copula in memory) of the same content as the ``models`` fixture's."""
    return [sim.fit_collection(_gaussian(n_systems=n_systems, seed=s), seed=s, bottom=0.0) for s in seeds]


def test_a_pool_is_drawn_once_per_seed_and_stratified_by_collection(models):
    from irrepro.known_truth._urbano import _candidates, _pool

    runs = [
        kt.urbano_experiment(models, n, trials=600, B=50, seed=7, tests=("paired-t",), pool=30, null=null)
        for n, null in ((10, "same-margin"), (30, "same-margin"), (30, "same-mean"))
    ]
    pairs = set().union(*(set(r.pair) for r in runs))
    assert len(pairs) <= 30  # the three experiments share one pool of 30 draws
    new = kt.urbano_experiment(models, 10, trials=600, B=50, seed=7, tests=("paired-t",))
    assert len(set(new.pair)) > 100  # a new pair every trial: many more distinct pairs
    cands = [_candidates(m, 0.0, "same-margin") for m in models]
    sizes = np.array([len(c) for c in cands], dtype=float)
    members = _pool(cands, [sorted(c) for c in cands], sizes / sizes.sum(), 31, np.random.SeedSequence(7))
    counts = np.bincount([c for c, *_ in members], minlength=2)
    assert abs(counts - 31 * sizes / sizes.sum()).max() < 1  # each collection its share, rounded


def test_pool_results_do_not_depend_on_workers(tmp_path, monkeypatch):
    from irrepro.known_truth._urbano import _CHUNK

    runs = []
    for k in (1, 2):
        monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / f"cache{k}"))  # every copula fitted by each
        ms = _fresh(n_systems=18)
        runs.append(
            kt.urbano_experiment(
                ms, 15, trials=700, B=100, seed=5, batch=100, n_jobs=k, tests=ALL_SEVEN, pool=250
            )
        )
        assert sum(len(_twin(m, "mle")._copulas) for m in ms) > _CHUNK  # the 2-worker run's fits on processes
    np.testing.assert_array_equal(runs[1].two, runs[0].two)
    np.testing.assert_array_equal(runs[1].one, runs[0].one)
    np.testing.assert_array_equal(runs[1].pair, runs[0].pair)
    np.testing.assert_array_equal(runs[1].d, runs[0].d)


def test_a_warm_rerun_fits_no_copula(tmp_path, monkeypatch):
    from irrepro.known_truth import _urbano

    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    fits = []
    real_fit = _urbano.fit_copula

    def counted(*args, **kwargs):
        fits.append(1)
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(_urbano, "fit_copula", counted)
    run = dict(trials=300, B=50, seed=8, tests=("paired-t", "sign"), n_jobs=1)
    cold = kt.urbano_experiment(_fresh(), 20, pool=40, **run)
    cold_alt = kt.urbano_experiment(_fresh(), 20, delta=0.05, **run)
    assert len(fits) > 40  # the cold runs fitted their pairs
    fits.clear()
    warm = kt.urbano_experiment(_fresh(), 20, pool=40, **run)  # new models: nothing in memory
    warm_alt = kt.urbano_experiment(_fresh(), 20, delta=0.05, **run)
    assert fits == []
    for a, b in ((cold, warm), (cold_alt, warm_alt)):
        np.testing.assert_array_equal(a.two, b.two)
        np.testing.assert_array_equal(a.d, b.d)


def test_a_damaged_copula_cache_is_refitted(tmp_path, monkeypatch):
    from irrepro.known_truth import _copula_cache

    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    run = dict(trials=100, B=50, seed=9, tests=("paired-t",), n_jobs=1, pool=20)
    first = kt.urbano_experiment(_fresh(), 20, **run)
    path = _copula_cache.cache_path(_twin(_fresh(seeds=(1,))[0], "mle"))
    assert path.exists()
    path.write_bytes(path.read_bytes()[:-7] + b"garbage")
    with pytest.warns(UserWarning, match="recorded sha256"):
        again = kt.urbano_experiment(_fresh(), 20, **run)
    np.testing.assert_array_equal(first.two, again.two)
    assert _copula_cache.load(_twin(_fresh(seeds=(1,))[0], "mle"))  # rewritten whole


def test_pool_type_i_rates_agree_with_a_new_pair_every_trial(models):
    check = _urbano_sizes.pool_check(
        models, 20, trials=3000, pool=100, tests=sg.urbano.URBANO_TESTS, B=200, seed=12
    )
    assert check["agree"].all(), check
    assert (check["design_effect"] < 1.5).all(), check
    # the clustered error carries the reuse: the trials of a pool of three pairs less independent
    # than those of the ~130 candidate pairs (a new pair every trial)
    run = dict(trials=3000, B=50, seed=12, tests=("sign",), delta=0.03)
    tiny = kt.urbano_experiment(models, 20, pool=3, **run).design_effect(0.05)["sign"]
    new = kt.urbano_experiment(models, 20, **run).design_effect(0.05)["sign"]
    assert tiny > new + 0.2, (tiny, new)


def test_design_effect_is_clustered_over_binomial_se(models):
    res = kt.urbano_experiment(models, 20, trials=400, B=50, seed=13, tests=("paired-t", "sign"), pool=15)
    np.testing.assert_allclose(res.design_effect(0.05, 1), res.se(0.05, 1) / res.binomial_se(0.05, 1))
    table = kt.findings.design_effects({"a": res, "b": res}, 0.05, 1)
    assert list(table.index) == ["a", "b"] and list(table.columns) == ["paired-t", "sign"]
    np.testing.assert_allclose(table.loc["b"], res.design_effect(0.05, 1))


def test_the_pool_is_a_named_constant_of_the_paper_design():
    assert kt.urbano_design("paper").pool == _urbano_sizes.POOL_PAIRS
    assert kt.urbano_design("full").pool is None  # Urbano et al.'s design: a new pair every trial
    assert 0 < kt.urbano_design("quick").pool < _urbano_sizes.POOL_PAIRS


def test_a_run_extended_from_start_is_the_longer_run(models):
    """urbano_experiment's start runs only the later batches of a longer run (until_decided's extensions)."""
    seed = np.random.SeedSequence(8, spawn_key=(3,))
    copy = lambda: np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)  # noqa: E731
    common = dict(delta=0.02, B=50, pool=15, batch=20)
    short = kt.urbano_experiment(models, 20, trials=60, seed=copy(), **common)
    more = kt.urbano_experiment(models, 20, trials=130, seed=copy(), start=60, **common)
    long = kt.urbano_experiment(models, 20, trials=130, seed=copy(), **common)
    np.testing.assert_array_equal(long.two, np.hstack([short.two, more.two]))
    np.testing.assert_array_equal(long.pair, np.concatenate([short.pair, more.pair]))
    np.testing.assert_array_equal(long.d, np.concatenate([short.d, more.d]))
    with pytest.raises(InputError, match="multiple of batch"):
        kt.urbano_experiment(models, 20, trials=130, seed=copy(), start=50, **common)


def _rate_run(rate):
    """Trials of one test that reject with probability ``rate`` (an experiment for until_decided)."""

    def run(t, seed, start):
        p = np.where(np.random.default_rng(seed).random((1, t))[:, start:] < rate, 0.01, 1.0)
        return UrbanoPValues(("paired-t",), p, p, np.arange(start, t), 0.0, 25, 100, d=np.zeros(t - start))

    return run


def _rows(paper):
    numbers = {"trials.type1": 10**6, "type1.ap.25.t2.a0.05": paper}
    return lambda r: kt.rows.comparison_rows({("AP", 25): r}, numbers)


def test_until_decided_is_one_experiment_of_its_last_trials(models):
    """Extended run by run, the experiment is the one that runs all its trials at once."""
    probe = kt.urbano_experiment(models, 20, trials=100, delta=0.02, tests="paired-t", B=50, seed=6, pool=15)
    rate = float(probe.rates([0.05], 2).iloc[0]["paired-t"])
    numbers = {"trials.power": 10**6, "power.ap.20.t2.d0.02": rate + 0.03}  # undecided on 100 trials
    common = dict(delta=0.02, tests="paired-t", B=50, pool=15)
    result, ran = kt.until_decided(models, 20, measure="AP", numbers=numbers, kind="power", trials=100, cap=1500,
                                   seed=6, **common)  # fmt: skip
    assert ran[0] == 100 and len(ran) > 1 and ran[-1] <= 1500 and result.trials == ran[-1]
    whole = kt.urbano_experiment(models, 20, trials=ran[-1], seed=6, batch=100, **common)
    np.testing.assert_array_equal(result.two, whole.two)
    np.testing.assert_array_equal(result.pair, whole.pair)


def test_until_decided_runs_more_trials_only_while_more_would_decide():

    # 0.05 against a paper's 0.05: decided at once
    result, ran = _extended(_rate_run(0.05), _rows(0.05), seed=1, trials=2000, cap=50_000)
    assert ran == [2000] and judge_row(_rows(0.05)(result)[0]).status == "replicated"
    # about 0.08 against 0.05: undecided at 200 trials, decided by the trials the rule asked for
    result, ran = _extended(_rate_run(0.08), _rows(0.05), seed=1, trials=200, cap=50_000)
    j = judge_row(_rows(0.05)(result)[0])
    assert ran[0] == 200 and len(ran) > 1 and all(b >= 2 * a and b % 200 == 0 for a, b in zip(ran, ran[1:]))
    assert j.why != "monte-carlo" and result.trials == ran[-1]
    first = judge_row(_rows(0.05)(_rate_run(0.08)(200, np.random.SeedSequence(1), 0))[0])
    assert first.why == "monte-carlo"  # the first run alone was undecided
    whole = _rate_run(0.08)(ran[-1], np.random.SeedSequence(1), 0)  # the extensions joined are one run
    np.testing.assert_array_equal(result.two, whole.two)
    np.testing.assert_array_equal(result.pair, whole.pair)
    # a row at the edge of the margin: stops at the cap, still undecided, and says so
    result, ran = _extended(_rate_run(0.0605), _rows(0.05), seed=1, trials=200, cap=3000)
    assert ran[-1] == 3000 and judge_row(_rows(0.05)(result)[0]).why == "monte-carlo"


@pytest.mark.parametrize("kwargs", [{"factor": 0.5}, {"cap": 0}, {"trials": 0}])
def test_until_decided_rejects_bad_input(kwargs):
    args = {"seed": 1, "trials": 100, "cap": 1000} | kwargs
    with pytest.raises(InputError):
        _extended(_rate_run(0.05), _rows(0.05), **args)
