"""Benchmark: trials per second of the vectorised paired tests of irrepro.known_truth (all trials
of a configuration as one array operation) against a per-trial scipy loop, in the same run.

Trials are simulated pairs of TREC-8 AP runs (irrepro.simulation: margins + copula, H0 true) on
50 topics. Both sides compute the same tests with the same B: the closed-form tests (scipy's
``ttest_rel``, ``wilcoxon``, ``binomtest``) and the resampling tests (the loop: a paired
studentised bootstrap and a sign-flip permutation test with numpy per trial, as a careful user
would write them, and ``scipy.stats.permutation_test`` on a smaller subsample, against
``irrepro.significance.permutation_test`` of all trials with one set of sign flips). Simulation time
is excluded from both.

``--urbano``: Urbano, Lima & Hanjalic's five tests as their R code runs them
(:func:`irrepro.significance.urbano.urbano_tests`, one call per test on all trials) against a per-trial
loop (scipy's ``ttest_rel``, ``wilcoxon``, ``binomtest``; numpy bootstrap-shift and sign-flip
permutation tests at the same B), each test's trials/s and the ratio; then the end-to-end trials/s
of :func:`irrepro.known_truth.urbano_experiment` on TREC-5..8 AP at 25/50/100 topics on 1 and 2
workers (copulas fitted in a first, separately timed pass and cached; with an empty
``IRREPRO_CACHE``: its copulas cache leaves nothing to fit). Run:

    IRREPRO_MIRROR=../shared/data python benchmarks/bench_known_truth.py [--trials 24000] [--loop 300]
    IRREPRO_MIRROR=../shared/data python benchmarks/bench_known_truth.py --urbano [--trials 2000] [--loop 200]
    IRREPRO_MIRROR=../shared/data python benchmarks/bench_known_truth.py --pool [--trials 9807] [--B 2000]
    IRREPRO_MIRROR=../shared/data python benchmarks/bench_known_truth.py --pool-check [--trials 9807] [--B 2000]

``--pool``: the copula fits per second, then the chapter's null experiments of one
measure (TREC-5..8 AP; type I at 25, 50 and 100 topics and the same-mean null at 50, one seed,
as the chapter runs them) with the trials drawn from a pool of ``_urbano_sizes.POOL_PAIRS`` pairs and with a
new pair every trial, each with an empty copula cache (cold: every drawn pair fitted) and again
with new models and the cache the cold run left (warm: nothing fitted), in a fresh temporary
``IRREPRO_CACHE``; seconds, copulas fitted, and the ratios, in the same run. ``--pool-check``: the
type I rates (alpha = .05, two-tailed) of their five tests on the chapter's AP models at 25 and
100 topics from the pool and from a new pair every trial (:func:`irrepro.known_truth._urbano_sizes.pool_check`),
with the pool's design effect.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings

import numpy as np
from scipy import stats

from irrepro import data
from irrepro import known_truth as kt
from irrepro import significance as sg
from irrepro import simulation as sim
from irrepro.known_truth import _pvalues, _urbano_sizes
from irrepro.significance.urbano import URBANO_TESTS, urbano_tests


def loop_closed_form(b, e):
    out = np.empty((3, len(b)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(len(b)):
            d = e[r] - b[r]
            out[0, r] = stats.ttest_rel(e[r], b[r]).pvalue
            out[1, r] = stats.wilcoxon(d).pvalue
            k, m = int((d > 0).sum()), int((d != 0).sum())
            out[2, r] = stats.binomtest(k, m).pvalue if m else np.nan
    return out


def loop_resampling(b, e, B, rng):
    out = np.empty((2, len(b)))
    n = b.shape[1]
    for r in range(len(b)):
        d = e[r] - b[r]
        t = d.mean() / (d.std(ddof=1) / np.sqrt(n))
        w = d - d.mean()
        idx = rng.integers(0, n, size=(B, n))
        ws = w[idx]
        tb = ws.mean(1) / (ws.std(1, ddof=1) / np.sqrt(n))
        out[0, r] = np.mean(np.abs(tb) >= abs(t))
        s = np.where(rng.random((B, n)) < 0.5, -1.0, 1.0)
        out[1, r] = np.mean(np.abs((s * d).mean(1)) >= abs(d.mean()))
    return out


def loop_scipy_permutation(b, e, B, seed):
    out = np.empty(len(b))
    for r in range(len(b)):
        res = stats.permutation_test(
            (e[r], b[r]),
            lambda x, y: np.mean(x - y),
            permutation_type="samples",
            n_resamples=B,
            random_state=seed + r,
        )
        out[r] = res.pvalue
    return out


def loop_urbano(name, b, e, B, rng, min_d=0.01):
    """One of Urbano et al.'s tests, trial by trial: scipy for the closed-form ones, numpy for the
    resampling ones (their C++: bootstrap of the centred differences, random sign flips)."""
    out = np.empty(len(b))
    n = b.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(len(b)):
            d = e[r] - b[r]
            if name == "paired-t":
                out[r] = stats.ttest_rel(e[r], b[r]).pvalue
            elif name == "wilcoxon":
                out[r] = stats.wilcoxon(e[r], b[r], correction=True).pvalue
            elif name == "sign":
                k, m = int((d > min_d).sum()), int((np.abs(d) > min_d).sum())
                out[r] = stats.binomtest(k, m).pvalue if m else 1.0
            elif name == "bootstrap-shift":
                w = d - d.mean()
                reps = w[rng.integers(0, n, size=(B, n))].mean(1)
                out[r] = np.mean(np.abs(reps) >= abs(d.mean()))
            else:
                s = np.where(rng.random((B, n)) < 0.5, -1.0, 1.0)
                out[r] = np.mean(np.abs((s * d).mean(1)) >= abs(d.mean()))
    return out


def bench_urbano(args):
    """Their five tests vectorised vs a per-trial loop; urbano_experiment end to end."""
    models = [
        sim.fit_collection(data.load_matrix(c, "AP"), seed=1) for c in ("trec5", "trec6", "trec7", "trec8")
    ]
    model = models[-1]
    rng = np.random.default_rng(2)
    pairs = [
        model.pair(*rng.choice(len(model.margins), 2, replace=False), same_margin=True) for _ in range(60)
    ]
    per = -(-args.trials // len(pairs))
    sims = [p.sample(50, per, seed=k) for k, p in enumerate(pairs)]
    b = np.concatenate([s[0] for s in sims])[: args.trials]
    e = np.concatenate([s[1] for s in sims])[: args.trials]
    lb, le = b[: args.loop], e[: args.loop]
    print(f"Urbano et al.'s tests on trials of 50 topics (simulated TREC-8 AP pairs, B = {args.B});")
    print(f"vectorised: {args.trials} trials in one urbano_tests call per test; loop: {args.loop} trials")
    print(f"{'test':<14} {'vectorised/s':>13} {'loop/s':>10} {'ratio':>8}")
    for name in URBANO_TESTS:
        t0 = time.perf_counter()
        urbano_tests(b, e, tests=(name,), B=args.B, seed=3, n_jobs=1)
        v = args.trials / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        loop_urbano(name, lb, le, args.B, np.random.default_rng(4))
        lo = args.loop / (time.perf_counter() - t0)
        print(f"{name:<14} {v:13.0f} {lo:10.1f} {v / lo:8.1f}")

    print(f"\nurbano_experiment, TREC-5..8 AP, H0 true, all five tests, B = {args.B}, {args.trials} trials")
    for n_topics in (25, 50, 100):
        t0 = time.perf_counter()
        kt.urbano_experiment(models, n_topics, trials=args.trials, B=args.B, seed=5)
        first = time.perf_counter() - t0
        rates = []
        for jobs in (1, 2):
            t0 = time.perf_counter()
            kt.urbano_experiment(models, n_topics, trials=args.trials, B=args.B, seed=5, n_jobs=jobs)
            rates.append(args.trials / (time.perf_counter() - t0))
        print(
            f"{n_topics:4d} topics: first pass (fits the drawn pairs' copulas) {first:6.1f} s; "
            f"cached: {rates[0]:7.0f} trials/s on 1 worker, {rates[1]:7.0f} on 2"
        )
    fitted = sum(len(t._copulas) for twins in kt._urbano._TWINS.values() for t in twins.values())
    print(f"copulas fitted (ML / AIC) and cached: {fitted}")
    if args.full_grid:
        full_grid(models, args)


def bench_pool(args):
    """Fits per second; the null experiments' seconds with a pool vs a new pair per trial,
    cold vs warm copula cache."""
    from irrepro.known_truth import _copula_cache, _urbano

    matrices = [data.load_matrix(c, "AP") for c in ("trec5", "trec6", "trec7", "trec8")]
    fresh = [sim.fit_collection(x, seed=k + 1) for k, x in enumerate(matrices)]
    m = fresh[-1]
    rng = np.random.default_rng(8)
    keys = [tuple(sorted(rng.choice(len(m.margins), 2, replace=False))) for _ in range(args.fits)]
    t0 = time.perf_counter()
    _urbano._fit_pairs((m.scores, m.seed, "mle", keys))
    per_fit = (time.perf_counter() - t0) / len(keys)
    print(
        f"copula fits (ML / AIC over pyvinecopulib's parametric families), TREC-8 AP, 1 process: "
        f"{1 / per_fit:.1f} fits/s ({per_fit * 1000:.1f} ms each, {len(keys)} fits)"
    )
    tests = sg.urbano.URBANO_TESTS + kt.SAKAI_TESTS
    runs = [(n, "same-margin") for n in (25, 50, 100)] + [(50, "same-mean")]
    print(
        f"\nnull experiments of TREC-5..8 AP as the chapter runs them: {', '.join(f'{n} topics {x}' for n, x in runs)};"
    )
    print(f"{args.trials:,} trials each, the seven tests, B = {args.B}, {args.jobs} worker(s)")
    times = {}
    old = os.environ.get("IRREPRO_CACHE")
    try:
        for pool in (_urbano_sizes.POOL_PAIRS, None):
            with tempfile.TemporaryDirectory() as cache:
                os.environ["IRREPRO_CACHE"] = cache
                for state in ("cold", "warm"):
                    models = [sim.fit_collection(x, seed=k + 1) for k, x in enumerate(matrices)]
                    cached = sum(len(_copula_cache.load(_urbano._twin(x, "mle"))) for x in models)
                    t0 = time.perf_counter()
                    pairs = set()
                    for n, null in runs:
                        r = kt.urbano_experiment(
                            models,
                            n,
                            trials=args.trials,
                            tests=tests,
                            B=args.B,
                            seed=44,
                            null=null,
                            n_jobs=args.jobs,
                            pool=pool,
                        )
                        pairs |= set(r.pair)
                    times[pool, state] = time.perf_counter() - t0
                    held = sum(len(_urbano._twin(x, "mle")._copulas) for x in models)
                    name = f"pool of {pool:,}" if pool else "new pair every trial"
                    print(
                        f"{name:<22} {state}: {times[pool, state]:7.1f} s, {len(pairs):,} distinct pairs drawn, "
                        f"{held - cached:,} copulas fitted ({cached:,} in the cache before)"
                    )
    finally:
        if old is None:
            os.environ.pop("IRREPRO_CACHE", None)
        else:
            os.environ["IRREPRO_CACHE"] = old
    p, n = _urbano_sizes.POOL_PAIRS, None
    print(
        f"ratios: new pair / pool, cold {times[n, 'cold'] / times[p, 'cold']:.2f}x; "
        f"cold / warm, pool {times[p, 'cold'] / times[p, 'warm']:.2f}x, new pair "
        f"{times[n, 'cold'] / times[n, 'warm']:.2f}x; new pair cold / pool warm "
        f"{times[n, 'cold'] / times[p, 'warm']:.2f}x"
    )


def bench_pool_check(args):
    """The pool's type I rates beside a new pair every trial's, AP at 25 and 100 topics."""
    ss = np.random.SeedSequence(2019).spawn(64)  # the chapter's SEED and children
    models = [
        sim.fit_collection(data.load_matrix(c, "AP"), seed=s)
        for c, s in zip(("trec5", "trec6", "trec7", "trec8"), ss[0:4])
    ]
    print(
        f"AP (TREC-5..8), {args.trials:,} trials per run, B = {args.B}, pool of {_urbano_sizes.POOL_PAIRS:,} pairs"
    )
    for n in (25, 100):
        t0 = time.perf_counter()
        check = _urbano_sizes.pool_check(
            models, n, trials=args.trials, pool=_urbano_sizes.POOL_PAIRS, B=args.B, seed=44, n_jobs=args.jobs
        )
        print(f"\n{n} topics ({time.perf_counter() - t0:.0f} s):")
        print(check.round(4).to_string())


def full_grid(models, args):
    """The chapter's grid at IRREPRO_SCALE=full (kt.urbano_design("full")), estimated from trials/s
    measured here on 1 worker at its B with all seven tests (copulas cached) and the time of a
    copula fit; the grid's batches are independent tasks, so its time on c cores is the 1-worker
    time / c (an estimate: memory bandwidth and Dask's overhead are not measured)."""
    d = kt.urbano_design("full")
    tests = sg.urbano.URBANO_TESTS + kt.SAKAI_TESTS
    n = args.full_trials
    per_trial = {}
    for n_topics in (25, 50, 100):
        kt.urbano_experiment(models, n_topics, trials=n, B=d.B, seed=7, tests=tests, n_jobs=1)  # fits
        t0 = time.perf_counter()
        kt.urbano_experiment(models, n_topics, trials=n, B=d.B, seed=7, tests=tests, n_jobs=1)
        per_trial[n_topics] = (time.perf_counter() - t0) / n
    m = models[-1]
    rng = np.random.default_rng(8)
    t0 = time.perf_counter()
    for _ in range(40):
        i, j = rng.choice(len(m.margins), 2, replace=False)
        sim.fit_copula(m.scores[i], m.scores[j], seed=1, method="mle")
    per_fit = (time.perf_counter() - t0) / 40
    measures = 3  # AP, P@10 (TREC-5..8) and nDCG@20 (TREC 2010-13 Web)
    trials_s = measures * sum(per_trial[k] * (d.trials + 10 * d.power_trials) for k in d.power_topics)
    pairs = sum(len(x.margins) * (len(x.margins) - 1) // 2 for x in models)  # AP's; P@10 the same
    web = 3_000  # nDCG@20's pairs over the four Web tracks (fewer runs)
    fits_s = (2 * pairs + web) * per_fit
    print(
        f"\nfull grid (IRREPRO_SCALE=full): B = {d.B:,}, {d.trials:,} type I and 10 x {d.power_trials:,} power trials"
    )
    print("per measure and topic-set size, 3 measures, all seven tests; measured on 1 worker:")
    for k, v in per_trial.items():
        print(f"  {k:4d} topics: {1 / v:7.1f} trials/s")
    print(f"  a copula fit: {per_fit * 1000:.1f} ms; at most {2 * pairs + web:,} pairs to fit")
    total = trials_s + fits_s
    for cores in (2, 16):
        print(f"  estimated on {cores:2d} cores: {total / cores / 60:6.1f} min")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--trials",
        type=int,
        default=24_000,
        help="trials of the vectorised run (the chapter's per configuration)",
    )
    ap.add_argument("--loop", type=int, default=300, help="trials of the per-trial loops")
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--urbano", action="store_true", help="Urbano et al.'s tests and urbano_experiment")
    ap.add_argument(
        "--full-grid",
        action="store_true",
        help="with --urbano: estimate the chapter's grid at IRREPRO_SCALE=full",
    )
    ap.add_argument("--full-trials", type=int, default=1000, help="trials measured per size for --full-grid")
    ap.add_argument("--pool", action="store_true", help="the pool of pairs and the copula cache")
    ap.add_argument("--pool-check", action="store_true", help="the pool's type I rates against a new pair's")
    ap.add_argument("--fits", type=int, default=200, help="with --pool: copula fits timed")
    ap.add_argument("--jobs", type=int, default=2, help="with --pool: workers")
    args = ap.parse_args()
    if args.pool_check:
        return bench_pool_check(args)
    if args.pool:
        return bench_pool(args)
    if args.urbano:
        return bench_urbano(args)
    model = sim.fit_collection(data.load_matrix("trec8", "AP"), seed=1)
    rng = np.random.default_rng(2)
    pairs = [
        model.pair(*rng.choice(len(model.margins), 2, replace=False), same_margin=True) for _ in range(60)
    ]
    per = -(-args.trials // len(pairs))
    sims = [p.sample(50, per, seed=k) for k, p in enumerate(pairs)]
    b = np.concatenate([s[0] for s in sims])[: args.trials]
    e = np.concatenate([s[1] for s in sims])[: args.trials]
    lb, le = b[: args.loop], e[: args.loop]

    rows = []
    t0 = time.perf_counter()
    d = e - b
    sg.paired_t_pvalues(d), sg.wilcoxon_pvalues(d), sg.sign_test_pvalues(d)
    t_vec_cf = time.perf_counter() - t0
    t0 = time.perf_counter()
    loop_closed_form(lb, le)
    t_loop_cf = time.perf_counter() - t0
    rows.append(("t + Wilcoxon + sign", args.trials / t_vec_cf, args.loop / t_loop_cf))

    t0 = time.perf_counter()
    _pvalues.paired_pvalues(b, e, B=args.B, seed=3)
    t_vec_all = time.perf_counter() - t0
    t0 = time.perf_counter()
    loop_closed_form(lb, le)
    loop_resampling(lb, le, args.B, np.random.default_rng(4))
    t_loop_all = time.perf_counter() - t0
    rows.append(
        (
            f"all six tests (B = {args.B}; loop: 3 scipy + numpy bootstrap and permutation)",
            args.trials / t_vec_all,
            args.loop / t_loop_all,
        )
    )

    k = max(20, args.loop // 10)
    t0 = time.perf_counter()
    loop_scipy_permutation(lb[:k], le[:k], args.B, 5)
    t_sp = time.perf_counter() - t0
    scores = np.empty((2 * len(d), 50))
    scores[0::2], scores[1::2] = e, b  # trial r is the pair (2r, 2r + 1): e - b
    pairs = np.column_stack([np.arange(0, len(scores), 2), np.arange(1, len(scores), 2)])
    t0 = time.perf_counter()
    sg.permutation_test(scores, pairs, signs=sg.sign_flips(50, args.B, seed=6))
    t_vp = time.perf_counter() - t0
    rows.append(
        (f"permutation test (B = {args.B}; loop: scipy.stats.permutation_test)", args.trials / t_vp, k / t_sp)
    )

    print(
        f"trials of 50 topics (simulated TREC-8 AP pairs); vectorised: {args.trials} trials, loop: {args.loop}"
    )
    print(f"{'tests':<80} {'vectorised/s':>13} {'loop/s':>10} {'ratio':>8}")
    for name, v, lo in rows:
        print(f"{name:<80} {v:13.0f} {lo:10.1f} {v / lo:8.1f}")


if __name__ == "__main__":
    main()
