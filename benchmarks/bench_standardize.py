"""Benchmark: the random topic-half experiment (dRMSE + self t-tests over B partitions) and the
sampled-standardizers experiment, vectorised (irrepro.standardize) vs a plain loop calling
numpy / scipy per partition, per system. Prints times and the speed-up ratio in one run.

Data: the 110 TREC 2004 Robust runs on TREC 7 + TREC 8 topics (AP), as in Figure 5 / 6."""

import os
import time

import numpy as np
from scipy import special, stats

from irrepro import data, parallel
from irrepro import standardize as sz


def loop_partitions(x, masks, alpha=0.05):
    d, fp = [], []
    for m in masks:
        a, b = x[:, m], x[:, ~m]
        ma, mb = a.mean(axis=1), b.mean(axis=1)
        d.append(np.sqrt(np.mean((ma - mb) ** 2)) / ((ma.std(ddof=1) + mb.std(ddof=1)) / 2))
        fp.append(np.mean([stats.ttest_ind(a[s], b[s]).pvalue < alpha for s in range(x.shape[0])]))
    return np.array(d), np.array(fp)


def loop_sampled(std, ev, n, B, rng):
    full = special.ndtr((ev - std.mean(0)) / std.std(0, ddof=1)).mean(1)
    taus = []
    for _ in range(B):
        s = std[rng.choice(std.shape[0], n, replace=False)]
        taus.append(stats.kendalltau(special.ndtr((ev - s.mean(0)) / s.std(0, ddof=1)).mean(1), full)[0])
    return np.array(taus)


def main():
    r = data.load_matrix("robust2004", "AP")
    x = np.hstack([sz.topic_range(r, 351, 400).scores, sz.topic_range(r, 401, 450).scores])
    B = 1000 if parallel.scale() == "paper" else 100
    jobs = parallel.n_jobs(parallel.env_jobs())  # a script: it reads IRREPRO_JOBS, as the CLI does

    t0 = time.perf_counter()
    res = sz.partition_experiment(x, B, seed=1, n_jobs=jobs)
    t_vec = time.perf_counter() - t0
    masks = np.vstack(
        [
            sz._comparability.random_halves(x.shape[1], n, g)
            for n, g in zip([min(100, B - s) for s in range(0, B, 100)], parallel.spawn(1, -(-B // 100)))
        ]
    )
    n_loop = min(B, 100)  # the loop takes ~0.35 s per partition: time it on the first 100
    t0 = time.perf_counter()
    d, fp = loop_partitions(x, masks[:n_loop])
    t_loop = (time.perf_counter() - t0) * B / n_loop
    assert np.allclose(d, res.drmse[:n_loop]) and np.array_equal(fp, res.false_positive[:n_loop])
    print(f"random halves, {B} partitions x {x.shape[0]} systems x {x.shape[1]} topics (n_jobs={jobs})")
    print(
        f"  vectorised {t_vec:8.3f} s   loop (scipy ttest_ind per system; timed on {n_loop}, scaled to {B}) "
        f"{t_loop:8.3f} s   ratio {t_loop / t_vec:6.1f}x   (same numbers: yes)"
    )

    std = sz.topic_range(data.load_matrix("robust2003", "AP"), 601, 650).scores
    ev = sz.topic_range(r, 601, 650).scores
    B = 1000 if parallel.scale() == "paper" else 100
    t0 = time.perf_counter()
    sz.sampled_standardizers(std, ev, [5], B, seed=2, n_jobs=jobs)
    t_vec = time.perf_counter() - t0
    t0 = time.perf_counter()
    loop_sampled(std, ev, 5, B, np.random.default_rng(2))
    t_loop = time.perf_counter() - t0
    print(f"sampled standardizers, {B} samples of 5 of {std.shape[0]} systems, {ev.shape[0]} evaluated")
    print(
        f"  vectorised {t_vec:8.3f} s   loop (scipy kendalltau per sample) {t_loop:8.3f} s   "
        f"ratio {t_loop / t_vec:6.1f}x"
    )
    print(f"(machine shared with other jobs; cpu count {os.cpu_count()})")


if __name__ == "__main__":
    main()
