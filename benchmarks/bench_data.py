"""Benchmark: loading all 126 TREC-COVID round-5 runs into the shared in-memory form.

Prints, in one run: irrepro's load from the run files (``data.load_runs`` on the files: concurrent
parse + trec_eval ranking + ragged layout), irrepro's load from its verified .npz cache, and a
plain reference (pytrec_eval's parser into dicts, then a per-topic Python sort and a grade lookup
per document), with the ratios. (``benchmarks/bench_eval.py`` times the whole ``irrepro eval``
against pytrec_eval and trec_eval, and measures peak memory.)

    IRREPRO_MIRROR=../shared/data .venv/bin/python benchmarks/bench_data.py
"""

from __future__ import annotations

import gzip
import resource
import time

import numpy as np


def plain_reference(files, qrels: dict[str, dict[str, int]]):
    """What a straightforward script does: parse every run into dicts, rank each topic's documents
    by (score, docno) descending in Python, and look up each grade."""
    import pytrec_eval

    out = {}
    for f in files:
        with gzip.open(f, "rt") as fh:
            run = pytrec_eval.parse_run(fh)
        ranked = {}
        for topic, docs in run.items():
            if topic not in qrels:
                continue
            order = sorted(
                docs, key=lambda d: (np.float32(docs[d]), d), reverse=True
            )  # C float, as trec_eval
            ranked[topic] = [qrels[topic].get(d, -1) for d in order]
        out[f.name] = ranked
    return out


def main() -> None:
    from irrepro import data

    coll = data.get_collection("trec-covid-round5")
    files = [data.locate(p) for p in coll.files() if p.startswith(coll.run_dir)]
    qrels = data.load_qrels("trec-covid-round5")

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    rs = data.load_runs(files, qrels=qrels)
    t_files = time.perf_counter() - t0
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) * 1024  # KiB on Linux

    path = data._runset_cache_path(coll)
    rs.save(path)
    t0 = time.perf_counter()
    cached = data.RunSet.load(path, name=coll.name, source="real")
    t_cache = time.perf_counter() - t0
    assert np.array_equal(cached.flat_grades, rs.flat_grades) and np.array_equal(cached.offsets, rs.offsets)

    qd = qrels.to_dict()
    t0 = time.perf_counter()
    ref = plain_reference(files, qd)
    t_ref = time.perf_counter() - t0
    # same grades in the same order as the reference, for every run and topic
    for f in files:
        with gzip.open(f, "rt") as fh:
            i = rs.runs.index(fh.readline().split()[5])
        for t, topic in enumerate(rs.topics):
            k = i * len(rs.topics) + t
            assert rs.flat_grades[rs.offsets[k] : rs.offsets[k + 1]].tolist() == ref[f.name].get(topic, []), (
                f,
                topic,
            )

    print(
        f"runs x topics x longest list   : {rs.shape}  ({len(rs.flat_grades)} documents, "
        f"{rs.nbytes() / 1e6:.1f} MB of ragged arrays)"
    )
    print(
        f"irrepro, from the run files    : {t_files:6.2f} s  (peak RSS grew by {peak / 1e6:.0f} MB while loading)"
    )
    print(f"irrepro, from its .npz cache   : {t_cache:6.2f} s")
    print(f"plain reference (pytrec_eval parser + Python sort): {t_ref:6.2f} s")
    print(f"ratio reference / irrepro (files): {t_ref / t_files:5.1f}x")
    print(f"ratio reference / irrepro (cache): {t_ref / t_cache:5.1f}x")


if __name__ == "__main__":
    main()
