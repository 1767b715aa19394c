"""Benchmark: the designs of the "Which test?" chapter (issue 47) end to end at a scale, against the
anchor in the same run: the known-truth chapter's AP null experiment at 100 topics (its trials, seven
tests, B and pool at that scale; copulas cached), on the chapter's AP models (TREC-5..8, seeds of 2019).

Cases, each timed as the chapter would run it (copulas cached as the cold book leaves them: the
chapter's AP null pool, and its power pools at the large-query deltas, fitted first, untimed):

1. the anchor;
2. the large-query regime (:func:`irrepro.known_truth._large.large_query_experiments` with
   ``large_query_design(scale)``: the null and the two deltas at 250, 1,000 and 5,000 topics, every
   test, the trials' properties), with the copulas it had to fit beyond the chapter's (0 expected);
3. the ranking-level design (:func:`irrepro.known_truth.ranking_study` with ``ranking_design(scale)``
   on TREC-COVID round 5, loaded untimed: the models of rankings fitted, the pairs and the families);
4. several systems on the score-level design (:func:`irrepro.known_truth.multiple_experiment` at the
   scale: families of 3, 5 and 10 systems on the AP models, complete and partial nulls, by the
   closed-form tests as the chapter runs them).

Cases 3 and 4 draw from the "Which test?" chapter's seeds (children 0 and 1 of 2025). Wall seconds,
CPU seconds (this process and its reaped workers) and ratios against the anchor; ``--breakdown`` adds
the large-query regime's CPU ms per trial, per size, of the simulation alone and of each test. The
copula cache is a fresh temporary ``IRREPRO_CACHE`` unless ``--cache`` names one (a cache the chapter
filled skips the untimed fits). Run:

    IRREPRO_MIRROR=../shared/data python benchmarks/bench_which_test.py [--scale paper] [--jobs 2]
    IRREPRO_MIRROR=../shared/data python benchmarks/bench_which_test.py --breakdown [--trials 200]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time

import numpy as np

from irrepro import data
from irrepro import known_truth as kt
from irrepro import simulation as sim
from irrepro.known_truth import _copula_cache, _large, _urbano
from irrepro.known_truth._urbano_sizes import _fresh
from irrepro.significance.urbano import URBANO_TESTS

ALL_TESTS = URBANO_TESTS + kt.SAKAI_TESTS
#: The chapter's seeds (notebooks/known_truth.md): SEED, its children for the AP models, the AP null
#: (SEED_OF[44]) and the AP power experiments at 50 topics (children of SS[47], delta 0.01 first).
SEED = 2019
DELTAS = tuple(np.round(np.arange(1, 11) / 100, 2))
#: The "Which test?" chapter's seeds (notebooks/which_test.md: SS = children of 2025).
WHICH_SS = np.random.SeedSequence(2025).spawn(3)


def cpu() -> float:
    """CPU seconds of this process and of its reaped workers."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn, *args, **kwargs):
    """(wall s, CPU s, fn(*args, **kwargs))."""
    w, c = time.perf_counter(), cpu()
    out = fn(*args, **kwargs)
    return time.perf_counter() - w, cpu() - c, out


def cached(models) -> int:
    """Copulas in the cache of the models' ML twins."""
    return sum(len(_copula_cache.load(_urbano._twin(m, "mle"))) for m in models)


def breakdown(models, args):
    """CPU ms per trial of the large-query regime's null, per size: simulation alone, each test."""
    design = _large.large_query_design(args.scale)
    seed = np.random.SeedSequence(SEED, spawn_key=(44,))
    print(f"CPU ms per trial, the large-query null, B = {design.B} by size, {args.trials} trials, 1 process")
    print(
        f"{'topics':>6} {'simulation':>11} "
        + " ".join(f"{t:>18}" for t in ALL_TESTS[1:])
        + f" {'properties':>11}"
    )
    for n, B in zip(design.sizes, design.B):

        def ms(n=n, **kw):
            common = dict(trials=args.trials, pool=design.pool, n_jobs=1, seed=_fresh(seed))
            return timed(kt.urbano_experiment, models, n, **common, **kw)[1] * 1000 / args.trials

        base = ms(tests="paired-t", B=1)
        extra = [ms(tests=("paired-t", t), B=B) - base for t in ALL_TESTS[1:]]
        props = ms(tests="paired-t", B=1, properties=True) - base
        print(f"{n:6d} {base:11.1f} " + " ".join(f"{x:18.1f}" for x in extra) + f" {props:11.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="paper", choices=("quick", "paper", "full"))
    ap.add_argument("--jobs", type=int, default=2, help="workers")
    ap.add_argument("--cache", help="IRREPRO_CACHE to use (default: a fresh temporary one)")
    ap.add_argument("--breakdown", action="store_true", help="CPU ms per trial, per size and test")
    ap.add_argument("--trials", type=int, default=200, help="with --breakdown: trials per measurement")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["IRREPRO_CACHE"] = args.cache or tmp
        ss = np.random.SeedSequence(SEED).spawn(64)
        collections = ("trec5", "trec6", "trec7", "trec8")
        models = [sim.fit_collection(data.load_matrix(c, "AP"), seed=s) for c, s in zip(collections, ss[0:4])]
        if args.breakdown:
            return breakdown(models, args)
        urbano, design = kt.urbano_design(args.scale), _large.large_query_design(args.scale)
        ranking = kt.ranking_design(args.scale)
        null_seed = np.random.SeedSequence(SEED, spawn_key=(44,))
        at = urbano.power_topics.index(50) * len(DELTAS)  # the chapter's AP children at 50 topics
        power_seeds = dict(zip(DELTAS, ss[47].spawn(3 * len(urbano.power_topics) * len(DELTAS))[at:]))
        common = dict(pool=urbano.pool, n_jobs=args.jobs)
        anchor = (kt.urbano_experiment, models, 100)
        anchor_kw = dict(trials=urbano.trials, tests=ALL_TESTS, B=urbano.B, **common)
        # the chapter's fits, untimed: its null pool, its power pools at these deltas
        fits = timed(*anchor, seed=_fresh(null_seed), **anchor_kw)[0]
        for d in design.deltas:
            seed = _fresh(power_seeds[d])
            kw = dict(delta=d, trials=urbano.power_trials, tests="paired-t", B=1, seed=seed, **common)
            fits += timed(kt.urbano_experiment, models, 50, **kw)[0]
        print(f"scale {args.scale}, {args.jobs} worker(s); the chapter's copulas fitted first ({fits:.1f} s)")
        print(f"large-query design: {design}\nranking-level design: {ranking}")
        rows = [
            (
                "anchor: the chapter's AP null, 100 topics",
                *timed(*anchor, seed=_fresh(null_seed), **anchor_kw),
            )
        ]
        before = cached(models)
        kw = dict(null_seed=null_seed, power_seeds=power_seeds, n_jobs=args.jobs)
        rows.append(
            ("large-query regime, end to end", *timed(_large.large_query_experiments, models, design, **kw))
        )
        trials = sum(r.trials for r in rows[-1][3].values())
        notes = ["", f"{trials:,} trials, {cached(models) - before} copulas fitted"]
        covid = data.load_runs("trec-covid-round5")
        kw = dict(seed=WHICH_SS[0], n_jobs=args.jobs)
        rows.append(("ranking-level design, fit included", *timed(kt.ranking_study, covid, ranking, **kw)))
        study = rows[-1][3]
        pairs, fams = (sum(len(r.d) for r in x.values()) for x in (study.pairs, study.families))
        notes.append(f"{pairs:,} trials, {fams:,} families, {len(study.models['AP'].runs)} run models")
        kw = dict(
            seed=WHICH_SS[1], scale=args.scale, tests=("paired-t", "wilcoxon", "sign"), n_jobs=args.jobs
        )
        rows.append(("several systems (3, 5, 10), score level", *timed(kt.multiple_experiment, models, **kw)))
        notes.append(f"{sum(p.shape[1] for p in rows[-1][3].p.values()):,} families (null and partial)")
        print(f"\n{'case':<44} {'wall s':>8} {'CPU s':>8} {'x anchor':>9}  note")
        for (name, wall, cpus, _), note in zip(rows, notes):
            print(f"{name:<44} {wall:8.1f} {cpus:8.1f} {wall / rows[0][1]:9.2f}  {note}")


if __name__ == "__main__":
    main()
