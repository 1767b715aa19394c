"""Benchmark of the measure engine on all 126 TREC-COVID round-5 runs (50 topics x 1000 ranks).

Prints, in one run:
* the time to load the 126 runs with ``data.load_runs`` (from irrepro's cache if it holds the
  block, else read, rank and lay out), and the time to read the run files alone;
* irrepro vs pytrec_eval on AP, nDCG@1000 and P@10, both starting from the parsed runs and qrels
  (irrepro: ``build_runset`` + ``evaluate``; pytrec_eval: ``RelevanceEvaluator`` + ``evaluate``
  of every run's dict), and irrepro's ``evaluate`` alone on the ready block; the ratios;
* per measure (each one alone, the new ones of issue 13 included): irrepro's ``evaluate`` on the
  ready block beside pytrec_eval's evaluator on the same run dicts, where pytrec_eval has the
  measure, and the largest per-topic difference;
* the peak memory (tracemalloc) of building the block and of evaluating it, and the block's size.

Usage: ``IRREPRO_MIRROR=/path/to/mirror python benchmarks/bench_measures.py [--repeat 3]``.
Timings are wall-clock, best of ``--repeat``; they are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from irrepro import data, measures

MEASURES = ["AP", "nDCG@1000", "P@10"]
TREC = {"AP": "map", "nDCG@1000": "ndcg_cut_1000", "P@10": "P_10"}
# every measure alone: ours -> pytrec_eval's name, or where the tests check a measure it lacks
EACH = {
    "AP": "map", "AP@100": "map_cut_100", "P@10": "P_10", "R@1000": "recall_1000", "Rprec": "Rprec",
    "RR": "recip_rank", "RR@10": "-ir_measures (msmarco)", "Success@10": "success_10", "Bpref": "bpref",
    "infAP": "infAP", "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg", "RBP(p=0.5)": "-trec_eval 10, NIST",
    "ERR@20": "-ir_measures (gdeval.pl)", "Judged@10": "-ir_measures (judged)", "NumRet": "num_ret",
    "NumRelRet": "num_rel_ret", "NumRel": "num_rel", "IPrec@0.5": "iprec_at_recall_0.50",
    "11pt_avg": "11pt_avg", "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F",
    "Q": "-pyNTCIREVAL", "nDCG_sakai@1000": "-pyNTCIREVAL",
}  # fmt: skip


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _worst(res, runs, block, sc, names):
    """Largest |irrepro - pytrec_eval| per topic (trec_eval -c: a missing topic is the empty list)."""
    R = block.qrels.n_relevant(1, block.topics)
    worst = 0.0
    for i, r in enumerate(runs):
        s = block.runs.index(r.name)
        for m, tm in names.items():
            empty = {"num_rel": R, "num_q": np.ones(len(R))}.get(tm, np.zeros(len(R)))
            ref = np.array([res[i][t][tm] if t in res[i] else empty[j] for j, t in enumerate(block.topics)])
            worst = max(worst, float(np.abs(ref - sc[m].scores[s]).max()))
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import pytrec_eval

    name = "trec-covid-round5"
    coll = data.get_collection(name)
    cached = data._runset_cache_path(coll).exists()
    t0 = time.perf_counter()
    rs = data.load_runs(name, allow_simulated=False)
    t_load = time.perf_counter() - t0
    how = "from irrepro's .npz cache" if cached else "from the run files: read + rank + lay out"
    print(
        f"data.load_runs({name!r}): {len(rs.runs)} runs x {len(rs.topics)} topics in {t_load:.2f} s ({how})"
    )

    # the parsed inputs both start from
    files = [data.locate(p) for p in coll.files() if p.startswith(coll.run_dir)]
    t0 = time.perf_counter()
    runs = [data.read_run(f) for f in files]
    print(f"reading the {len(files)} run files (data.read_run): {time.perf_counter() - t0:.2f} s")
    qrels = rs.qrels
    run_dicts = []
    for r in runs:
        d: dict[str, dict[str, float]] = {}
        for t, doc, score in r.table[["topic", "doc", "score"]].itertuples(index=False):
            d.setdefault(t, {})[doc] = float(score)
        run_dicts.append(d)
    qrels_dict = qrels.to_dict()

    def ours_from_parsed():
        block = data.build_runset(runs, qrels, name=name)
        return block, measures.evaluate(block, MEASURES)

    def ours_eval_only():
        return measures.evaluate(rs, MEASURES)

    def trec():
        ev = pytrec_eval.RelevanceEvaluator(qrels_dict, set(TREC.values()))
        return [ev.evaluate(d) for d in run_dicts]

    t_ours, (block, sc) = best(ours_from_parsed, args.repeat)
    t_eval, _ = best(ours_eval_only, args.repeat)
    t_trec, res = best(trec, args.repeat)
    worst = _worst(res, runs, block, sc, TREC)

    print(f"measures {MEASURES} on {len(runs)} runs (best of {args.repeat}):")
    print(f"  pytrec_eval (evaluator + evaluate, from dicts)  {t_trec:8.3f} s")
    print(
        f"  irrepro (build_runset + evaluate, from parsed)  {t_ours:8.3f} s   ratio {t_trec / t_ours:6.1f}x"
    )
    print(
        f"  irrepro evaluate on the ready block             {t_eval:8.3f} s   ratio {t_trec / t_eval:6.1f}x"
    )
    print(f"  largest |irrepro - pytrec_eval| per topic: {worst:.2e}")

    print(f"each measure alone on the ready block (best of {args.repeat}; pytrec_eval from dicts):")
    print(f"  {'measure':<18}{'irrepro':>10}{'pytrec_eval':>13}{'ratio':>8}  largest |difference|")
    for m, tm in EACH.items():
        t_m, sc_m = best(lambda m=m: measures.evaluate(rs, [m]), args.repeat)
        if tm.startswith("-"):
            print(
                f"  {m:<18}{t_m:9.3f}s{'-':>13}{'':>8}  (not in pytrec_eval; the tests check it with {tm[1:]})"
            )
            continue
        ev = pytrec_eval.RelevanceEvaluator(qrels_dict, {tm})
        t_p, res_m = best(lambda ev=ev: [ev.evaluate(d) for d in run_dicts], args.repeat)
        w = _worst(res_m, runs, rs, sc_m, {m: tm})
        print(f"  {m:<18}{t_m:9.3f}s{t_p:12.3f}s{t_p / t_m:7.1f}x  {w:.1e}")

    tracemalloc.start()
    b2 = data.build_runset(runs, qrels, name=name)
    _, peak_build = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    measures.evaluate(b2, MEASURES)
    _, peak_eval = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    base2, _ = tracemalloc.get_traced_memory()
    measures.evaluate(b2, list(EACH))
    _, peak_all = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory: block arrays {b2.nbytes() / 1e6:.1f} MB; tracemalloc peak building it "
          f"{peak_build / 1e6:.1f} MB; peak while evaluating {MEASURES} {(peak_eval - base) / 1e6:.1f} MB "
          f"above the block, all {len(EACH)} measures at once {(peak_all - base2) / 1e6:.1f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
