"""The report on a Dask cluster (``IRREPRO_SCHEDULER`` / ``--scheduler``): the same numbers, bit
for bit, as the serial run of this process.

A LocalCluster of 2 single-threaded worker processes on 127.0.0.1 (no other interface, no
dashboard) is started for this module and closed at its end, with the client irrepro opened. The
runs are real TREC-COVID round-5 runs of the mirror (as ``tests/test_report.py`` uses). The
reference is the serial run (one worker, no cluster); the cluster's run is checked to have really
run its tasks on the worker processes.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

import irrepro
from irrepro import data, parallel, report, significance
from irrepro.cli import main as cli_main

distributed = pytest.importorskip("distributed")  # the test extra installs it (pyproject)

RUNS = 8
QRELS = "cord19/trec-covid/round5"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    m = data.mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    files = sorted((m / "trec-covid" / "round5" / "runs").glob("*.gz"))
    d = tmp_path_factory.mktemp("runs")
    for f in files[:: len(files) // RUNS][:RUNS]:
        shutil.copy(f, d / f.name)
    return d


@pytest.fixture(scope="module")
def cluster():
    """A 2-worker LocalCluster (processes) on the loopback interface only; closed, with the client
    irrepro opened on it, when the module's tests are done."""
    c = parallel.local_cluster(2)
    try:
        yield c
    finally:
        parallel.close_clients()
        c.close()


def _serial(monkeypatch):
    monkeypatch.delenv("IRREPRO_SCHEDULER", raising=False)
    monkeypatch.setenv("IRREPRO_JOBS", "1")


@pytest.mark.realdata
def test_parallel_map_runs_on_the_cluster_workers(cluster, monkeypatch):
    monkeypatch.setenv("IRREPRO_SCHEDULER", cluster.scheduler_address)
    big = np.arange(100_000.0)  # held by the task function: scattered once to each worker

    def task(i):
        inner = parallel.parallel_map(lambda k: k * 2, range(3))  # serial inside a task
        return os.getpid(), big[i] + sum(inner)

    out = parallel.parallel_map(task, range(40))
    pids = {p for p, _ in out}
    client = parallel.dask_client()
    workers = set(client.run(os.getpid).values())
    assert all(a.startswith("tcp://127.0.0.1:") for a in client.scheduler_info()["workers"])
    trim = client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    assert set(trim.values()) == {None}, trim  # Dask's default would slow numpy down
    assert pids <= workers and os.getpid() not in pids and len(workers) == 2
    assert [v for _, v in out] == [i + 6.0 for i in range(40)]  # in order
    with pytest.raises(ZeroDivisionError):  # a task's error reaches the caller
        parallel.parallel_map(lambda i: 1 / (i - 7), range(12))
    # tasks that write this machine's files stay here (perturbed_archive), whatever the scheduler
    assert {p for p in parallel.parallel_map(lambda i: os.getpid(), range(6), here=True)} == {os.getpid()}


@pytest.mark.realdata
def test_report_on_a_local_cluster_is_bit_identical_to_the_serial_run(run_dir, cluster, monkeypatch):
    rs = data.load_runs(run_dir, qrels=QRELS)
    _serial(monkeypatch)
    a = report.analyse(rs, seed=5, scale="quick", progress=False)
    asl_a = significance.paired_bootstrap_test(a.scores, B=300, seed=11).p
    perm_a = significance.pairwise_test(a.scores, "tukey", B=600, seed=12).p
    monkeypatch.setenv("IRREPRO_SCHEDULER", cluster.scheduler_address)
    b = report.analyse(rs, seed=5, scale="quick", progress=False)
    asl_b = significance.paired_bootstrap_test(b.scores, B=300, seed=11).p
    perm_b = significance.pairwise_test(b.scores, "tukey", B=600, seed=12).p
    # the report's tables, to the last bit
    pd.testing.assert_frame_equal(a.pairs, b.pairs, check_exact=True)
    pd.testing.assert_frame_equal(a.runs_table(), b.runs_table(), check_exact=True)
    for key in a.corpus.maps:
        for f in ("lower", "upper"):
            np.testing.assert_array_equal(getattr(a.corpus.maps[key], f), getattr(b.corpus.maps[key], f))
    np.testing.assert_array_equal(a.swap.errors, b.swap.errors)
    np.testing.assert_array_equal(a.swap.trials, b.swap.trials)
    for form in a.halves:
        np.testing.assert_array_equal(a.halves[form].drmse, b.halves[form].drmse)
        np.testing.assert_array_equal(a.halves[form].false_positive, b.halves[form].false_positive)
    # the paired tests' ASLs (Sakai's bootstrap; randomised Tukey HSD), not only the report's
    np.testing.assert_array_equal(asl_a, asl_b)
    np.testing.assert_array_equal(perm_a, perm_b)
    assert np.isfinite(a.pairs["ASL"]).all() and len(a.pairs) == RUNS * (RUNS - 1) // 2


@pytest.mark.realdata
def test_report_cli_scheduler_writes_the_same_tables(run_dir, cluster, monkeypatch, tmp_path):
    _serial(monkeypatch)
    base = ["report", str(run_dir), "--qrels", QRELS, "--seed", "2", "--scale", "quick", "-q"]
    assert cli_main(base + ["--out", str(tmp_path / "serial")]) == 0
    assert cli_main(base + ["--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address]) == 0
    names = sorted(p.name for p in (tmp_path / "serial").glob("*.csv"))
    assert "pairs.csv" in names and "runs.csv" in names
    for name in names:
        assert (tmp_path / "serial" / name).read_text() == (tmp_path / "dask" / name).read_text(), name


@pytest.mark.realdata
def test_design_simulate_on_a_local_cluster_prints_the_serial_numbers(
    run_dir, cluster, monkeypatch, capsys, tmp_path
):
    """``IRREPRO_SCHEDULER=local irrepro design --simulate`` failed to serialise a local function
    holding the fitted simulator (its lock); on the cluster it prints the serial run's numbers."""
    runs = sorted(run_dir.iterdir())[:4]
    base = ["design", *map(str, runs), "--qrels", QRELS, "-m", "AP", "--min-diff", "0.1", "--simulate",
            "--scale", "quick", "-B", "0"]  # fmt: skip

    def printed(out: str) -> str:
        assert cli_main([*base, "--out", str(tmp_path / out)]) == 0
        return capsys.readouterr().out.replace(str(tmp_path / out), "OUT")

    _serial(monkeypatch)
    serial = printed("serial")
    monkeypatch.setenv("IRREPRO_SCHEDULER", cluster.scheduler_address)
    assert printed("dask") == serial
    assert "simulated paired-t" in serial and "simulated power (+- Monte Carlo se): " in serial


@pytest.mark.parametrize("where", ["function", "item"])
def test_a_task_that_does_not_serialise_is_refused_before_any_work(where, monkeypatch):
    """A task the cluster cannot be sent is a one-line error naming it and why, before connecting
    to the scheduler (nothing listens at this address) and before any task runs."""
    import threading

    monkeypatch.setenv("IRREPRO_SCHEDULER", "tcp://127.0.0.1:9")
    lock, ran = threading.Lock(), []
    fn, items = (lambda i: (lock, i), [1, 2]) if where == "function" else (ran.append, [1, lock])
    what = "its function" if where == "function" else "an item"
    with pytest.raises(irrepro.InputError) as err:
        parallel.parallel_map(fn, items)
    assert str(err.value).endswith(
        f"cannot be sent to the Dask cluster tcp://127.0.0.1:9 (IRREPRO_SCHEDULER): {what} does "
        "not serialise (TypeError: cannot pickle '_thread.lock' object); run it without a scheduler (-j N "
        "gives the same numbers)"
    )
    assert isinstance(err.value, TypeError) and ran == []


def test_scheduler_addresses_are_checked(monkeypatch, capsys):
    monkeypatch.delenv("IRREPRO_SCHEDULER", raising=False)
    assert parallel.scheduler() is None
    assert parallel.scheduler("tcp://10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    assert parallel.scheduler("local") == "local"
    monkeypatch.setenv("IRREPRO_SCHEDULER", "not an address")
    with pytest.raises(ValueError, match="IRREPRO_SCHEDULER"):
        parallel.scheduler()
    with pytest.raises(ValueError, match="IRREPRO_SCHEDULER"):
        parallel.parallel_map(abs, [1, 2])
    monkeypatch.delenv("IRREPRO_SCHEDULER")
    with parallel.using_scheduler("tcp://h:1"):
        assert parallel.scheduler() == "tcp://h:1"
    assert parallel.scheduler() is None
    assert cli_main(["report", ".", "--qrels", QRELS, "--scheduler", "nowhere"]) == 2
    assert "--scheduler" in capsys.readouterr().err


def _lists(path) -> dict[str, list[str]]:
    """topic -> ranked doc ids of a TREC run file, read with a literal loop (rank column order)."""
    import gzip

    rows: dict[str, list[tuple[int, str]]] = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            topic, _, doc, rank, *_ = line.split()
            rows.setdefault(topic, []).append((int(rank), doc))
    return {t: [d for _, d in sorted(v)] for t, v in rows.items()}


@pytest.mark.realdata
def test_perturbed_archive_runs_are_noisy_fusions_of_two_real_runs(run_dir, tmp_path):
    from irrepro.data import synthetic

    rs = data.load_runs(run_dir, qrels=QRELS)
    paths = synthetic.perturbed_archive(rs, 6, tmp_path / "a", seed=3)
    again = synthetic.perturbed_archive(rs, 3, tmp_path / "b", seed=3, n_jobs=2)  # a prefix, 2 workers
    other = synthetic.perturbed_archive(rs, 1, tmp_path / "c", seed=4)
    real = {p.name[: -len(".gz")]: _lists(p) for p in run_dir.glob("*.gz")}
    qrels_topics = set(rs.topics)
    for j, p in enumerate(paths):
        syn = _lists(p)
        base = real[rs.runs[j % len(rs.runs)]]
        assert p.name.startswith(f"synth{j:05d}-{rs.runs[j % len(rs.runs)]}")
        assert set(syn) == set(base) & qrels_topics
        for t, docs in syn.items():
            assert len(docs) == len(set(docs)) == len(base[t])  # no duplicates, the base's length
        donors = [n for n, r in real.items() if n != rs.runs[j % len(rs.runs)]
                  and all(set(d) <= set(base[t]) | set(r.get(t, [])) for t, d in syn.items())]  # fmt: skip
        assert donors, "every document comes from the base run or one donor run"
        assert syn != {t: base[t] for t in syn}  # perturbed, not a copy
    for p, q in zip(paths, again):
        assert _lists(p) == _lists(q)
    assert _lists(other[0]) != _lists(paths[0])
    back = data.load_runs(tmp_path / "a", qrels=QRELS)  # ordinary run files
    assert len(back.runs) == 6


@pytest.mark.realdata
def test_compare_cli_scheduler_prints_the_same_table(run_dir, cluster, monkeypatch, capsys):
    _serial(monkeypatch)
    # -B: Holm over the 28 pairs of 8 runs needs 20 x 28 / 0.05 = 11,200
    base = ["compare", "--qrels", QRELS, str(run_dir), "-m", "AP", "-m", "P@10", "--test", "permutation",
            "-B", "12000", "--intervals", "--seed", "4", "--format", "csv"]  # fmt: skip
    assert cli_main(base) == 0
    serial = capsys.readouterr().out
    assert cli_main(base + ["--scheduler", cluster.scheduler_address]) == 0
    assert capsys.readouterr().out == serial and serial.count("\n") > RUNS
