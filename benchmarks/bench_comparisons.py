"""Benchmark of the paired randomization (permutation) test of irrepro.significance against ranx's
``compare(..., stat_test="fisher")``, in the same run: all 7,875 pairs of the 126 TREC-COVID
round-5 runs on AP, 10,000 permutations (issue 16).

Both are timed end to end from runs in memory: ranx's ``compare`` evaluates MAP and runs Fisher's
randomization test on every ordered pair of runs (numba, all cores; its JIT compilation is done
on two runs before the clock starts); irrepro evaluates AP (``measures.evaluate``) and tests all
pairs with one set of sign flips (``significance.permutation_test``, one worker unless
``IRREPRO_JOBS`` says otherwise). Reading the run files and building ranx's ``Run`` objects are
not timed.

The p-values are two Monte Carlo estimates of the same exact p-value from independent
permutations, with different conventions: ranx counts both tails at once, #{|d*| >= |d|} / B,
variance p (1 - p) / B; irrepro follows scipy, min(1, 2 min(less, greater)) with (count + 1) /
(B + 1), variance p (2 - p) / B (one tail doubled). They agree within Monte Carlo error when
|difference| / se stays within normal bounds, se = sqrt((p (1 - p) + p (2 - p)) / B). irrepro's
errors are correlated across pairs (one set of sign flips for all), so the share above 3 varies
from seed to seed more than for independent pairs. The per-topic AP of the two is compared first
(it must be equal).

Run: ``python benchmarks/bench_comparisons.py [--runs 126] [--B 10000]`` (real data:
``IRREPRO_MIRROR`` or the cache).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from irrepro import data, measures, parallel
from irrepro import significance as sg


def main() -> None:
    ap_ = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap_.add_argument("--runs", type=int, default=126, help="the first N runs (default all 126)")
    ap_.add_argument("--B", type=int, default=10_000, help="permutations (default 10,000)")
    args = ap_.parse_args()
    warnings.filterwarnings("ignore", category=Warning, module="ranx|numba")
    from ranx import Qrels, Run, compare

    rs = data.load_runs("trec-covid-round5", allow_simulated=False)
    rs = rs.subset(runs=list(range(min(args.runs, len(rs.runs)))))
    S, T = len(rs.runs), len(rs.topics)
    B = args.B
    jobs = parallel.n_jobs(parallel.env_jobs())  # a script: it reads IRREPRO_JOBS, as the CLI does
    P = S * (S - 1) // 2
    print(f"TREC-COVID round 5: {S} runs, {T} topics, {P:,} pairs, AP, B = {B:,} permutations")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"irrepro workers: {jobs}")  # fmt: skip

    t0 = time.perf_counter()
    qrels = Qrels({t: v for t, v in rs.qrels.to_dict().items() if t in set(rs.topics)})
    runs = [Run(rs.run_dict(s), name=rs.runs[s]) for s in range(S)]
    print(f"ranx Run / Qrels objects built in {time.perf_counter() - t0:.1f} s (not timed)")
    compare(qrels, runs[:2], "map", stat_test="fisher", n_permutations=100, make_comparable=True)  # JIT

    t0 = time.perf_counter()
    report = compare(qrels, runs, "map", stat_test="fisher", n_permutations=B, max_p=0.05,
                     random_seed=42, make_comparable=True)  # fmt: skip
    t_ranx = time.perf_counter() - t0

    t0 = time.perf_counter()
    ap = measures.evaluate(rs, ["AP"])["AP"]
    t_eval = time.perf_counter() - t0
    res = sg.permutation_test(ap, B=B, seed=2007, n_jobs=jobs)
    t_ours = time.perf_counter() - t0

    # the same per-topic AP (ranx orders topics as strings)
    order = [list(qrels.keys()).index(t) for t in rs.topics]
    from ranx import evaluate

    ap_ranx = np.stack([np.asarray(evaluate(qrels, r, "map", return_mean=False, make_comparable=True))[order]
                        for r in runs[:5]])  # fmt: skip
    print(
        f"per-topic AP, max |ranx - irrepro| over the first 5 runs: {np.abs(ap_ranx - ap.scores[:5]).max():.2e}"
    )

    p_ranx = np.array([report.comparisons[rs.runs[i], rs.runs[j]]["map"]["p_value"] for i, j in res.pairs])
    diff = np.abs(res.p - p_ranx)
    pm = np.clip((res.p + p_ranx) / 2, 1 / B, 1)
    se = np.sqrt((pm * (1 - pm) + pm * (2 - pm)) / B)  # Monte Carlo se of the difference (docstring)
    z = diff / se
    k = int(np.argmax(diff))
    print()
    print(f"{'':34s}{'time':>10s}")
    print(f"{'ranx compare (fisher), end to end':34s}{t_ranx:9.1f}s")
    print(
        f"{'irrepro evaluate + permutation':34s}{t_ours:9.2f}s   (evaluate {t_eval:.2f} s, test {t_ours - t_eval:.2f} s)"
    )
    print(f"speed-up: {t_ranx / t_ours:.0f}x end to end, {t_ranx / (t_ours - t_eval):.0f}x the test alone")
    print()
    print(f"p-values, {P:,} pairs: max |irrepro - ranx| = {diff.max():.4f} (pair {res.pairs[k].tolist()}: "
          f"{res.p[k]:.4f} vs {p_ranx[k]:.4f}, Monte Carlo se of the difference {se[k]:.4f})")  # fmt: skip
    print(f"  |difference| / MC se: max {z.max():.2f}, mean {z.mean():.2f}; share above 3: {np.mean(z > 3):.4f} "
          f"(normal: 0.0027); significant at 0.05, unadjusted: irrepro {np.mean(res.p < 0.05):.4f}, "
          f"ranx {np.mean(p_ranx < 0.05):.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
