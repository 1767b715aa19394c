"""irrepro.parallel: the one check of counts and seeds (``check_int``), used by every public
function that takes a number of resamples, repetitions or partitions, and ``IRREPRO_JOBS``."""

import numpy as np
import pytest

from irrepro import corpus_bootstrap as cb
from irrepro import data, parallel
from irrepro import sensitivity as bt
from irrepro import significance as sg
from irrepro import standardize as sz
from irrepro import topic_split as ts
from irrepro.significance._samples import bootstrap_summaries


@pytest.mark.parametrize("bad", [1.5, 1.0, 1e3, "3", True, None, np.float64(2.0)])
def test_check_int_refuses_what_is_not_an_integer(bad):
    with pytest.raises(ValueError, match=r"B must be an integer, got"):
        parallel.check_int(bad, "B")


def test_check_int_accepts_ints_and_numpy_ints_and_bounds():
    assert parallel.check_int(np.int64(7), "B") == 7 and type(parallel.check_int(np.int32(7), "B")) is int
    with pytest.raises(ValueError, match=r"B must be an integer >= 1, got 0"):
        parallel.check_int(0, "B", minimum=1)


def test_seed_must_be_a_non_negative_integer():
    for bad in (1.7, 2.0, "1", True):
        with pytest.raises(ValueError, match="seed must be an integer"):
            parallel.as_seed_sequence(bad)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        parallel.as_seed_sequence(-1)
    # what is accepted, unchanged: ints, numpy ints, SeedSequences, Generators
    a = np.random.default_rng(parallel.as_seed_sequence(5)).random()
    assert a == np.random.default_rng(parallel.as_seed_sequence(np.int64(5))).random()
    assert a == np.random.default_rng(np.random.SeedSequence(5)).random()


def test_irrepro_jobs_is_named_when_it_is_not_a_number(monkeypatch):
    monkeypatch.setenv("IRREPRO_JOBS", "abc")
    with pytest.raises(ValueError, match=r"IRREPRO_JOBS must be an integer .* not 'abc'"):
        parallel.env_jobs()
    monkeypatch.setenv("IRREPRO_JOBS", "2")
    assert parallel.env_jobs() == 2 and parallel.n_jobs(3) == 3
    with pytest.raises(ValueError, match="n_jobs must be an integer"):
        parallel.n_jobs(1.5)


def test_fractional_counts_are_refused_not_truncated_everywhere():
    """B=1.5 used to run with B=1 (int() truncation) or fail deep inside numpy. Every count of
    resamples is ``B`` (issue 14's one vocabulary); the old keywords still reach the same check."""
    x = np.random.default_rng(0).random((4, 12))
    rs = data.synthetic.runs(3, 6, list_length=20, seed=1)
    m = data.ScoreMatrix(x, tuple("abcd"), tuple(str(i) for i in range(12)), "AP")
    calls = {
        "B": [
            lambda: bt.bootstrap_samples(12, 1.5, seed=1),
            lambda: sg.paired_bootstrap_test(x, B=1.5, seed=1),
            lambda: sg.unpaired_bootstrap_test(x, B=1.5, seed=1),
            lambda: bootstrap_summaries(x, B=1.5, seed=1),
            lambda: bt.stability(x, B=1.5, seed=1),
            lambda: bt.measure_study({"a": x}, B=1.5, seed=1),
            lambda: cb.bootstrap_ap(rs, B=1.5, seed=1),
            lambda: cb.full_corpus(rs, B=1.5, seed=1),
            lambda: cb.split_validation(rs, B=1.5, seed=1),
            lambda: cb.difference_intervals(rs, rs.runs[0], rs.runs[1], B=1.5, seed=1),
            lambda: cb.sampler.bootstrap_ap_reference(np.array([True, False]), 2, 1.5, seed=1),
            lambda: ts.swap_experiment([m], sizes=[3], B=2.5, seed=1),
            lambda: ts.map_sd(m, [3], B=2.5, seed=1),
            lambda: sz.sampled_standardizers(x, x, [2], 2.5, seed=1),
            lambda: sz.partition_experiment(x, 1.5, seed=1),
            lambda: sz.compare_collections(x[:, :6], x[:, 6:], 1.5, seed=1),
        ],
        "seed": [
            lambda: sg.paired_bootstrap_test(x, B=10, seed=1.7),
            lambda: cb.bootstrap_ap(rs, B=10, seed=1.7),
            lambda: ts.swap_experiment([m], sizes=[3], B=2, seed=1.7),
            lambda: sz.partition_experiment(x, 10, seed=1.7),
        ],
    }
    for name, fns in calls.items():
        for fn in fns:
            with pytest.raises(ValueError, match=rf"{name} must be an integer"):
                fn()


def test_parallel_map_stops_starting_tasks_after_an_error():
    started = []

    def fn(i):
        started.append(i)
        if i == 0:
            raise KeyboardInterrupt
        import time

        time.sleep(0.05)
        return i

    with pytest.raises(KeyboardInterrupt):
        parallel.parallel_map(fn, range(50), n_jobs=2)
    assert len(started) < 50  # the queued tasks were cancelled


def _greedy(n, size, widths=None, most=None):
    """The chunks written out: items taken one at a time while the chunk (count x widest) fits."""
    w = [1] * n if widths is None else [max(int(x), 1) for x in widths]
    size, most = max(size, 1), max(n if most is None else most, 1)
    out, start, widest = [], 0, 0
    for i in range(n):
        count, wider = i - start + 1, max(widest, w[i])
        if count > 1 and (count * wider > size or count > most):
            out.append((start, i))
            start, wider = i, w[i]
        widest = wider
    return out + ([(start, n)] if n else [])


@pytest.mark.parametrize("seed", range(20))
def test_chunks_are_the_longest_consecutive_runs_that_fit(seed):
    """The one chunking helper (pairs per task, rows of replicates, runs and lists per block): each
    chunk the longest that fits ``size`` cells and ``most`` items, an oversized item alone."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    size = int(rng.choice([0, 1, 5, 64, 1000, 1 << 16]))
    widths = rng.integers(0, rng.choice([2, 30, 5000]), n) if seed % 4 else None
    if seed % 3 == 0 and widths is not None:
        widths = np.sort(widths)  # as RunSet.iter_blocks sorts its lists
    most = (0, 1, 3, 40)[seed // 5] if seed % 5 == 1 else None  # (0: one item a chunk, as 1)
    got = [(s.start, s.stop) for s in parallel._chunks(n, size, widths, most)]
    assert got == _greedy(n, size, widths, most)
    assert [a for a, _ in got] + [n] * bool(got) == [0] + [b for _, b in got] if n else got == []


def test_chunks_by_hand():
    def spans(*args, **kwargs):
        return [(s.start, s.stop) for s in parallel._chunks(*args, **kwargs)]

    assert spans(0, 5) == [] and spans(7, 3) == [(0, 3), (3, 6), (6, 7)]
    assert spans(4, 10, [1, 2, 3, 4]) == [(0, 3), (3, 4)]  # 3 x 3 = 9 cells fit, 4 x 4 = 16 do not
    assert spans(3, 1, [5, 5, 5]) == [(0, 1), (1, 2), (2, 3)]  # an item wider than size alone
    assert spans(5, 100, [1] * 5, most=0) == spans(5, 100, most=1) == [(i, i + 1) for i in range(5)]


def test_an_empty_or_blank_variable_is_unset(monkeypatch):
    from irrepro._env import env

    monkeypatch.setenv("IRREPRO_TEST_BLANK", " ")
    monkeypatch.setenv("IRREPRO_TEST_SET", " 2 ")
    monkeypatch.delenv("IRREPRO_TEST_UNSET", raising=False)
    assert env("IRREPRO_TEST_BLANK") is None and env("IRREPRO_TEST_UNSET") is None
    assert env("IRREPRO_TEST_SET") == " 2 "
