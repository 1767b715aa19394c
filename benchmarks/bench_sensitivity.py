"""Benchmark of irrepro.sensitivity at the scale of Sakai (2006): 30 runs (435 pairs) x 7
metrics x B = 1000, paired and unpaired tests, against plain per-pair Python loops in the same run.

References:
- "loop": the paper's algorithms written literally (Figures 1-4): for each pair, for each of the B
  samples, resample and compute the statistic with numpy on n-vectors. Run on a subsample of pairs
  and extrapolated linearly to all pairs (the loop's cost is the same for every pair).
- "per-pair numpy": one pair at a time, vectorised over the B samples (gather a (B, n) array).

Scores are simulated (timing does not depend on the values): 7 matrices of 30 runs x 50 topics,
the shape of TREC-COVID round 5. Run: ``python benchmarks/bench_sensitivity.py``.
"""

import time

import numpy as np

from irrepro import sensitivity as bt
from irrepro import significance as sg

S, N, B = 30, 50, 1000
METRICS = ["AP", "Q", "nDCG_sakai@1000", "nCG@1000", "PDoc@1000", "G_AP", "G_Q"]
SUBSAMPLE = 15  # pairs per metric for the literal loop


def _t(v):
    return v.mean() / (v.std(ddof=1) / np.sqrt(len(v)))


def loop_paired(x, y, samples):
    z = x - y
    tz = abs(_t(z))
    w = z - z.mean()
    count = 0
    for idx in samples:
        if abs(_t(w[idx])) >= tz:
            count += 1
    return count / len(samples)


def loop_unpaired(x, y, samples, M):
    n = len(x)
    v = np.concatenate([x, y])
    d = abs(M(x) - M(y))
    count = 0
    for idx in samples:
        if abs(M(v[idx[:n]]) - M(v[idx[n:]])) >= d:
            count += 1
    return count / len(samples)


def numpy_paired(x, y, samples):
    z = x - y
    w = (z - z.mean())[samples]
    t = w.mean(1) / (w.std(1, ddof=1) / np.sqrt(w.shape[1]))
    return np.mean(np.abs(t) >= abs(_t(z)))


def numpy_unpaired(x, y, samples, M):
    n = len(x)
    v = np.concatenate([x, y])[samples]
    d = M(v[:, :n], axis=1) - M(v[:, n:], axis=1)
    return np.mean(np.abs(d) >= abs(M(x) - M(y)))


def gmean(a, axis=None):
    return np.exp(np.mean(np.log(a + 1e-5), axis=axis))


def main():
    rng = np.random.default_rng(2006)
    mats = {m: rng.beta(2, 4, size=(S, N)) for m in METRICS}
    pairs = bt.all_pairs(S)
    P = len(pairs)
    samples_p = bt.bootstrap_samples(N, B, seed=1)
    samples_u = bt.bootstrap_samples(2 * N, B, seed=2)
    summaries = {m: ("gmean" if m.startswith("G_") else "mean") for m in METRICS}
    mfun = {"mean": np.mean, "gmean": gmean}

    print(f"{P} pairs x {len(METRICS)} metrics x B = {B}, n = {N} topics")
    # ours
    t0 = time.perf_counter()
    ours_p = {
        m: sg.paired_bootstrap_test(mats[m], samples=samples_p, log=m.startswith("G_")) for m in METRICS
    }
    t_ours_p = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours_u = {
        m: sg.unpaired_bootstrap_test(mats[m], samples=samples_u, summary=summaries[m]) for m in METRICS
    }
    t_ours_u = time.perf_counter() - t0

    # literal loop on a subsample of pairs, extrapolated
    sub = np.random.default_rng(0).choice(P, SUBSAMPLE, replace=False)
    t0 = time.perf_counter()
    for m in METRICS:
        x = np.log(mats[m] + 1e-5) if m.startswith("G_") else mats[m]
        for k in sub:
            i, j = pairs[k]
            assert loop_paired(x[i], x[j], samples_p) == ours_p[m].p[k]
    t_loop_p = (time.perf_counter() - t0) * P / SUBSAMPLE
    t0 = time.perf_counter()
    for m in METRICS:
        M = mfun[summaries[m]]
        for k in sub:
            i, j = pairs[k]
            assert loop_unpaired(mats[m][i], mats[m][j], samples_u, M) == ours_u[m].p[k]
    t_loop_u = (time.perf_counter() - t0) * P / SUBSAMPLE

    # per-pair numpy over all pairs
    t0 = time.perf_counter()
    for m in METRICS:
        x = np.log(mats[m] + 1e-5) if m.startswith("G_") else mats[m]
        for i, j in pairs:
            numpy_paired(x[i], x[j], samples_p)
    t_np_p = time.perf_counter() - t0
    t0 = time.perf_counter()
    for m in METRICS:
        M = mfun[summaries[m]]
        for i, j in pairs:
            numpy_unpaired(mats[m][i], mats[m][j], samples_u, M)
    t_np_u = time.perf_counter() - t0

    print(f"{'':28s}{'paired':>10s}{'unpaired':>10s}")
    print(f"{'irrepro (all pairs at once)':28s}{t_ours_p:9.2f}s{t_ours_u:9.2f}s")
    print(
        f"{'literal loop (extrapolated)':28s}{t_loop_p:9.1f}s{t_loop_u:9.1f}s"
        f"   ({SUBSAMPLE} of {P} pairs per metric timed, ASLs checked equal)"
    )
    print(f"{'per-pair numpy loop':28s}{t_np_p:9.2f}s{t_np_u:9.2f}s")
    print(
        f"ratio vs literal loop:     {t_loop_p / t_ours_p:8.0f}x {t_loop_u / t_ours_u:8.0f}x"
        f"   (both tests: {(t_loop_p + t_loop_u) / (t_ours_p + t_ours_u):.0f}x)"
    )
    print(f"ratio vs per-pair numpy:   {t_np_p / t_ours_p:8.1f}x {t_np_u / t_ours_u:8.1f}x")
    print("(2 shared cores: timings are noisy)")


if __name__ == "__main__":
    main()
