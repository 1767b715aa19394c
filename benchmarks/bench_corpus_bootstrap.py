"""Benchmark: irrepro.corpus_bootstrap.bootstrap_ap vs the literal reference (expand every list
per bootstrap sample with np.repeat and recompute AP with numpy), on the same lists, in one run;
and the compiled kernel (numba, ``corpus_bootstrap._kernel``) vs the numpy path it replaces (the
Poisson tables' draw + ``ap_from_counts``) on the same lists and seeds, alternating, best of
``--repeat``: their ratio, and that the two give the same floats bit for bit.

    IRREPRO_MIRROR=... python benchmarks/bench_corpus_bootstrap.py [--lists 40] [--boot 2000] [--full]

Default: every 160th list of TREC-COVID round 5, half A of the MD5 split (40 lists), B = 2000.
``--full`` also times all lists of both halves at B = 2000 with all three interval methods (the
issue's paper-scale target). The machine may be shared: timings are wall-clock, best of 1.
"""

import argparse
import os
import time

import numpy as np

from irrepro import corpus_bootstrap as cb
from irrepro import data, parallel
from irrepro.corpus_bootstrap import sampler


def kernel_vs_numpy(lists, B, repeat):
    """(seconds compiled, seconds numpy, identical?) of every usable list's B samples, one worker,
    CPU time (process_time: less moved by other load than the wall clock), alternating, best of
    ``repeat``; each list from the seed child ``bootstrap_ap`` gives it."""
    todo = np.flatnonzero(lists.usable)
    seeds = parallel.as_seed_sequence(1).spawn(len(lists))
    tables = sampler._tables_for(int(max(lists.gaps.max(initial=1), lists.n_ret_rel.max(initial=1))))

    def run(compiled):
        t0 = time.process_time()
        out = [
            sampler._boot_list(lists.gaps[lists.start[i] : lists.start[i + 1]], int(lists.n_rel[i]), B,
                               np.random.default_rng(seeds[i]), tables, compiled=compiled)
            for i in todo
        ]  # fmt: skip
        return time.process_time() - t0, np.array(out)

    run(True)  # compile (or load numba's cache) outside the timing
    best = {True: np.inf, False: np.inf}
    vals = {}
    for _ in range(repeat):
        for compiled in (False, True):
            sec, vals[compiled] = run(compiled)
            best[compiled] = min(best[compiled], sec)
    same = np.array_equal(vals[True].view(np.int64), vals[False].view(np.int64))
    return best[True], best[False], same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lists", type=int, default=40)
    ap.add_argument("--boot", type=int, default=2000)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--kernel-lists", type=int, default=400, help="lists of the kernel-vs-numpy comparison")
    ap.add_argument("--repeat", type=int, default=2, help="best of N for the kernel-vs-numpy comparison")
    args = ap.parse_args()

    t0 = time.perf_counter()
    rs = data.load_runs("trec-covid-round5")
    print(f"load round 5: {time.perf_counter() - t0:.1f} s ({'simulated' if rs.simulated else 'real'} data)")
    half_a, half_b = cb.split_corpus(rs)
    rel = half_a.relevant(1)
    R = half_a.n_relevant(1)
    S, T = rs.lengths.shape
    flat = [(s, t) for s in range(S) for t in range(T) if half_a.lengths[s, t] > 0 and R[t] > 0]
    pick = [flat[i] for i in np.linspace(0, len(flat) - 1, args.lists).astype(int)]
    B = args.boot

    t0 = time.perf_counter()
    ref = [
        cb.sampler.bootstrap_ap_reference(rel[s, t, : half_a.lengths[s, t]], R[t], B, seed=i)
        for i, (s, t) in enumerate(pick)
    ]
    t_ref = time.perf_counter() - t0

    sel = np.array([[rel[s, t]] for s, t in pick])[:, 0]
    lists = cb.compact_lists(
        sel, np.array([R[t] for _, t in pick]), np.array([half_a.lengths[s, t] for s, t in pick])
    )
    cb.bootstrap_ap(lists, 2, seed=0)  # compile the kernel (or load numba's cache) outside the timing
    t0 = time.perf_counter()
    ours = cb.bootstrap_ap(lists, B, seed=1, n_jobs=args.jobs)
    t_ours = time.perf_counter() - t0

    m = lists.n_ret_rel
    print(
        f"{len(pick)} lists (mean length {lists.length.mean():.0f}, mean relevant retrieved {m.mean():.1f}), B = {B}"
    )
    print(f"  reference (expand + numpy AP, per sample): {t_ref:8.2f} s")
    print(f"  irrepro bootstrap_ap (n_jobs={args.jobs}):          {t_ours:8.2f} s")
    print(f"  speed-up: {t_ref / t_ours:.1f}x")
    sd_ref = np.array([np.nanstd(r, ddof=1) for r in ref])
    sd_ours = np.nanstd(ours, axis=1, ddof=1)
    print(
        f"  same law: median |sd_ours / sd_ref - 1| = {np.median(np.abs(sd_ours / sd_ref - 1)):.3f} "
        f"(Monte-Carlo sd of the ratio of two independent sds at B={B}: about {1 / np.sqrt(B):.3f} "
        f"for normal data, so a median |ratio - 1| near {0.674 / np.sqrt(B):.3f} or a bit more)"
    )

    every = half_a.lengths.size // max(args.kernel_lists, 1)
    sub = cb.compact_lists(rel.reshape(S * T, -1)[::every], np.broadcast_to(R, (S, T)).reshape(-1)[::every],
                           half_a.lengths.reshape(-1)[::every])  # fmt: skip
    t_nb, t_np, same = kernel_vs_numpy(sub, B, args.repeat)
    cells = int(sub.n_ret_rel[sub.usable].sum()) * B
    print(
        f"{int(sub.usable.sum())} lists (every {every}th of half A), B = {B}, one worker, CPU time, best of {args.repeat}:"
    )
    print(
        f"  numpy path (tables' draw + ap_from_counts): {t_np:8.2f} s ({t_np / cells * 1e9:.1f} ns per relevant document x sample)"
    )
    print(
        f"  compiled kernel (numba):                    {t_nb:8.2f} s ({t_nb / cells * 1e9:.1f} ns per relevant document x sample)"
    )
    print(
        f"  ratio numpy / compiled: {t_np / t_nb:.2f}x; the same floats bit for bit: {'yes' if same else 'NO'}"
    )

    if args.full:
        cells = 0
        t0 = time.perf_counter()
        cb.split_validation(rs, B, seed=2006, n_jobs=args.jobs)
        t_full = time.perf_counter() - t0
        for h in (half_a, half_b):
            cells += int(h.relevant(1).sum()) * B
        print(
            f"all {S}x{T} lists of both halves, B = {B}, linear + logit + BCa (+ small-R, MAP): {t_full:.1f} s "
            f"({t_full / cells * 1e9:.0f} ns per relevant-document x sample)"
        )
        print(
            f"  (reference at the same scale, extrapolated from the sample: "
            f"{t_ref / lists.length.sum() * (half_a.lengths.sum() + half_b.lengths.sum()):.0f} s)"
        )
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
