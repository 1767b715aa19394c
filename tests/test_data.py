"""The data layer: registry and mirror, verified caching, offline behaviour, readers, simulation."""

import gzip
import hashlib
import os
import shutil
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irrepro import data
from irrepro.data import DataError, DataUnavailable, _fetch

# ------------------------------------------------------------------------------------------
# registry, mirror and cache
# ------------------------------------------------------------------------------------------


def test_registry_matches_the_mirror_manifest(mirror):
    manifest = pd.read_csv(mirror / "MANIFEST.tsv", sep="\t")
    reg = data.registry()
    assert set(manifest["path"]) == set(reg)
    for row in manifest.itertuples():
        e = reg[row.path]
        assert (e.sha256, e.bytes, e.url) == (row.sha256, row.bytes, row.source_url)


def test_every_collection_file_is_in_the_registry():
    reg = data.registry()
    for coll in data.COLLECTIONS.values():
        files = coll.files()
        assert files, coll.name
        assert set(files) <= set(reg), coll.name
    assert len(data.COLLECTIONS["trec-covid-round5"].files()) == 126 + 2 + 1
    assert len(data.COLLECTIONS["trec-covid-round1"].files()) == 143 + 2 + 1


def test_status_shows_every_collection_verified_from_the_mirror(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    table = data.status()
    assert list(table["collection"]) == list(data.COLLECTIONS)
    assert (table["status"] == "verified").all(), table
    assert table["where"].str.contains("mirror").all()


def test_locate_copies_from_the_mirror_and_never_writes_into_it(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    rel = "score-matrices/urbano/sigir2019-statistical/data/adhoc8_ap.csv"
    before = {p: p.stat().st_mtime_ns for p in (mirror / rel).parent.iterdir()}
    path = data.locate(rel)
    assert path == tmp_path / "cache" / rel
    assert hashlib.sha256(path.read_bytes()).hexdigest() == data.registry()[rel].sha256
    assert {p: p.stat().st_mtime_ns for p in (mirror / rel).parent.iterdir()} == before
    assert data.where(rel) == "cache"


def test_corrupt_cached_file_is_detected_and_replaced(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    rel = "score-matrices/urbano/sigir2019-statistical/data/adhoc7_ap.csv"
    path = data.locate(rel)
    good = path.read_bytes()
    path.write_bytes(good[:-10] + b"9999999999")  # same size, different bytes
    assert data.where(rel) == "mirror"  # the corrupt cache is not counted as available
    with pytest.warns(UserWarning, match="does not match its sha256"):
        again = data.locate(rel)
    assert again.read_bytes() == good


def test_truncated_cached_file_is_not_used_offline(isolated_data):
    rel = "score-matrices/urbano/sigir2019-statistical/data/adhoc5_ap.csv"
    target = data.cache_dir() / rel
    target.parent.mkdir(parents=True)
    target.write_text("run1,run2\n0.1,0.2\n")  # truncated / wrong
    assert data.where(rel) == "corrupt-cache"
    with pytest.warns(UserWarning, match="sha256"), pytest.raises(DataUnavailable):
        data.locate(rel)
    assert not target.exists()


def test_offline_without_mirror_fails_at_once_with_a_helpful_message(isolated_data):
    rel = "trec-covid/round5/runs/BRPHJ_BM25.gz"
    t0 = time.perf_counter()
    with pytest.raises(DataUnavailable) as err:
        data.locate(rel)
    assert time.perf_counter() - t0 < 1
    msg = str(err.value)
    assert rel in msg and data.registry()[rel].url in msg
    assert "IRREPRO_OFFLINE" in msg and "IRREPRO_MIRROR" in msg


def test_unreachable_network_fails_within_seconds_and_is_remembered(isolated_data, monkeypatch):
    monkeypatch.delenv("IRREPRO_OFFLINE")
    rel = "score-matrices/urbano/sigir2019-statistical/data/adhoc5_p10.csv"
    entry = data.registry()[rel]
    fake = _fetch.RegistryEntry(entry.path, entry.sha256, entry.bytes, "http://127.0.0.1:9/adhoc5_p10.csv", "")
    monkeypatch.setitem(data.registry(), rel, fake)
    t0 = time.perf_counter()
    with pytest.raises(DataUnavailable, match="127.0.0.1:9"):
        data.locate(rel)
    assert time.perf_counter() - t0 < 15
    t0 = time.perf_counter()
    with pytest.raises(DataUnavailable, match="network failed earlier"):
        data.locate(rel)
    assert time.perf_counter() - t0 < 0.5
    assert not (data.cache_dir() / rel).exists()


def test_ir_datasets_home_is_inside_the_cache_and_filled_from_the_mirror(mirror, tmp_path):
    import subprocess
    import sys

    code = (
        "from irrepro import data; import ir_datasets; "
        "q = data.load_qrels('cord19/trec-covid/round1'); t = data.load_topics('trec-covid-round1'); "
        "print(ir_datasets.util.home_path(), len(q.table), len(q.topics), len(t))"
    )
    env = dict(os.environ, IRREPRO_CACHE=str(tmp_path / "c"), IRREPRO_OFFLINE="1")
    env.pop("IR_DATASETS_HOME", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    home, n_qrels, n_topics, n_queries = out.stdout.split()
    assert Path(home) == tmp_path / "c" / "ir_datasets"
    assert (int(n_qrels), int(n_topics), int(n_queries)) == (8691, 30, 30)
    assert (Path(home) / "cord19/trec-covid/round1/qrels").is_file()


# ------------------------------------------------------------------------------------------
# readers: errors name the file, the line and the problem
# ------------------------------------------------------------------------------------------

GOOD_RUN = "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 2.0 tag\n2 Q0 d3 1 1.5 tag\n"


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 tag\n", 2, "expected 6 fields, found 5"),
        ("1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 2.0 tag extra\n", 2, "Expected 6 fields in line 2, saw 7"),
        ("1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 high tag\n", 2, "score 'high' is not a finite number"),
        ("1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 nan tag\n", 2, "is not a finite number"),
        ("1 Q0 d1 1 3.0 tag\n\n1 Q0 d2 2 2.0 tag\n", 2, "blank line"),
        ("1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 2.0 tag\n1 Q0 d1 3 1.0 tag\n", 3, "duplicate document 'd1' in topic '1' (first at line 1)"),
        ("1 Q0 d1 1 3.0 tagA\n1 Q0 d2 2 2.0 tagB\n", 2, "run tag changes"),
    ],
)
def test_malformed_run_lines_are_reported_with_file_and_line(tmp_path, text, line, problem):
    p = tmp_path / "myrun.txt"
    p.write_text(text)
    with pytest.raises(DataError) as err:
        data.read_run(p)
    assert err.value.line == line
    assert str(p) in str(err.value) and f"line {line}" in str(err.value)
    assert problem in str(err.value)


def test_empty_and_missing_files(tmp_path):
    p = tmp_path / "empty"
    p.write_text("")
    with pytest.raises(DataError, match="empty run file"):
        data.read_run(p)
    with pytest.raises(DataError, match="not found"):
        data.read_run(tmp_path / "nope")
    with pytest.raises(DataError, match="empty qrels file"):
        data.read_qrels(p)


def test_truncated_and_corrupt_gzip_are_reported(tmp_path):
    raw = gzip.compress((GOOD_RUN * 2000).replace("tag", "t").encode())
    lines = (GOOD_RUN * 2000).splitlines()
    # make doc ids unique so that only the truncation can fail
    body = "".join(f"{i % 7} Q0 doc{i} 1 {1.0 / (i + 1)} t\n" for i in range(len(lines)))
    raw = gzip.compress(body.encode())
    trunc = tmp_path / "run.gz"
    trunc.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(DataError, match="corrupt or truncated gzip") as err:
        data.read_run(trunc)
    assert str(trunc) in str(err.value)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(raw[:20] + b"\x00" * 50 + raw[70:])
    with pytest.raises(DataError, match="gzip"):
        data.read_run(bad)


def test_qrels_reader_errors(tmp_path):
    p = tmp_path / "qrels.txt"
    p.write_text("1 0 d1 1\n1 0 d2 x\n")
    with pytest.raises(DataError, match=r"line 2: relevance grade 'x' is not an integer"):
        data.read_qrels(p)
    p.write_text("1 0 d1 1\n1 0 d1 0\n")
    with pytest.raises(DataError, match=r"line 2: duplicate judgment for document 'd1'"):
        data.read_qrels(p)
    p.write_text("1 0 d1 1\n1 0 d2\n")
    with pytest.raises(DataError, match=r"line 2: malformed qrels line: expected 4 fields, found 3"):
        data.read_qrels(p)


def test_score_matrix_reader(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("topic,a,b\n7,0.1,0.2\n9,0.3,0.4\n")
    m = data.read_score_matrix(p, "AP")
    assert m.systems == ("a", "b") and m.topics == ("7", "9")
    np.testing.assert_array_equal(m.scores, [[0.1, 0.3], [0.2, 0.4]])
    p.write_text("a,b\n0.1,0.2\n0.3,oops\n")
    with pytest.raises(DataError, match=r"line 3: value 'oops' in column 'b' is not a finite number"):
        data.read_score_matrix(p, "AP")


def test_trec_eval_ranking_ties_broken_by_docno_descending(tmp_path):
    (tmp_path / "r").write_text(
        "1 Q0 b 1 1.0 x\n1 Q0 c 2 1.0 x\n1 Q0 a 3 2.0 x\n1 Q0 d 4 0.5 x\n1 Q0 aa 5 1.0 x\n"
    )
    (tmp_path / "q").write_text("1 0 a 1\n1 0 c 0\n1 0 zz 2\n")
    rs = data.load_runs(tmp_path / "r", qrels=tmp_path / "q")
    assert list(rs.doc_ids(0, 0)) == ["a", "c", "b", "aa", "d"]
    assert list(rs.grades[0, 0]) == [1, 0, data.UNJUDGED, data.UNJUDGED, data.UNJUDGED]
    assert rs.n_relevant().tolist() == [2]
    assert rs.grade_counts().tolist() == [[1, 1, 1]]


def test_runset_pads_short_lists_and_missing_topics(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    (d / "a").write_text("1 Q0 x 1 2 a\n1 Q0 y 2 1 a\n2 Q0 x 1 1 a\n")
    (d / "b").write_text("1 Q0 y 1 1 b\n9 Q0 y 1 1 b\n")
    (tmp_path / "q").write_text("1 0 x 1\n2 0 x 2\n")
    rs = data.load_runs(d, qrels=str(tmp_path / "q"))
    assert rs.runs == ("a", "b") and rs.topics == ("1", "2")
    assert rs.lengths.tolist() == [[2, 1], [1, 0]]
    assert rs.grades[1, 1].tolist() == [data.PAD, data.PAD]
    assert rs.ignored_topics == {"b": ("9",)}


# ------------------------------------------------------------------------------------------
# the real collections
# ------------------------------------------------------------------------------------------


def test_readers_agree_with_pytrec_eval_parsing_on_all_round5_runs(real_runs, mirror):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rs = real_runs("trec-covid-round5")
    assert rs.shape == (126, 50, 1000)
    run_dir = mirror / "trec-covid/round5/runs"
    files = sorted(run_dir.iterdir())
    assert len(files) == 126
    for f in files:
        with gzip.open(f, "rt") as fh:
            parsed = pytrec_eval.parse_run(fh)
        with gzip.open(f, "rt") as fh:
            s = rs.runs.index(fh.readline().split()[5])  # runs are named by their tag
        for t, topic in enumerate(rs.topics):
            docs = parsed.get(topic, {})
            # trec_eval's order: scores as C float (single precision), ties by doc id descending
            expected = sorted(docs, key=lambda d: (np.float32(docs[d]), d), reverse=True)
            assert list(rs.doc_ids(s, t)) == expected, (f.name, topic)
    qrels_file = data.locate("ir_datasets/cord19/trec-covid/round5/qrels")
    with open(qrels_file) as fh:
        q = pytrec_eval.parse_qrel(fh)
    assert rs.qrels.to_dict() == q


def test_score_matrices_have_the_published_shapes(real_matrix):
    for name, coll in data.COLLECTIONS.items():
        for measure in coll.measures:
            m = real_matrix(name, measure)
            assert m.shape == coll.shape, (name, measure)
            assert m.source == "real"
    r04 = real_matrix("robust2004", "AP")
    assert r04.topics[:2] == ("301", "302") and "672" not in r04.topics and len(r04.topics) == 249
    # Webber et al. (2008), Figure 2: the TREC-8 run of MAP 0.324 ranks 13th of 129
    trec8 = real_matrix("trec8", "AP").mean()
    assert round(float(np.sort(trec8)[::-1][12]), 3) == 0.324


def test_round5_block_is_compact(real_runs):
    rs = real_runs("trec-covid-round5")
    assert rs.nbytes() < 200e6
    assert rs.grades.dtype == np.int8


# ------------------------------------------------------------------------------------------
# the simulated stand-in
# ------------------------------------------------------------------------------------------


def test_simulation_is_deterministic_by_seed():
    a = data.simulate.runs(6, 4, list_length=50, seed=3)
    b = data.simulate.runs(6, 4, list_length=50, seed=3)
    c = data.simulate.runs(6, 4, list_length=50, seed=4)
    np.testing.assert_array_equal(a.grades, b.grades)
    np.testing.assert_array_equal(a.vocab[a.doc_codes[a.doc_codes >= 0]], b.vocab[b.doc_codes[b.doc_codes >= 0]])
    assert not np.array_equal(a.grades, c.grades)
    m1 = data.simulate.score_matrix(10, 20, "AP", seed=1)
    m2 = data.simulate.score_matrix(10, 20, "AP", seed=1)
    np.testing.assert_array_equal(m1.scores, m2.scores)
    assert m1.simulated and a.simulated


def test_simulated_data_looks_like_trec():
    m = data.simulate.score_matrix(100, 50, "AP", seed=0)
    ap = m.scores
    assert 0.1 < ap.mean() < 0.45
    assert np.mean(ap) > np.median(ap)  # right-skewed, like real AP
    topic_means = ap.mean(axis=0)
    assert topic_means.max() - topic_means.min() > 0.4  # wide topic spread
    rs = data.simulate.runs(20, 5, list_length=200, seed=0)
    assert (rs.grades >= 1).any() and (rs.grades == data.UNJUDGED).any() and (rs.grades == 0).any()
    assert rs.grade_counts().shape == (5, 3)


def test_simulated_runs_round_trip_through_trec_files(tmp_path):
    rs = data.simulate.runs(3, 4, list_length=30, seed=9)
    data.simulate.write_trec(rs, tmp_path, gzip=True)
    run_files = [p for p in tmp_path.iterdir() if p.name != "qrels.txt"]
    back = data.load_runs(run_files, qrels=tmp_path / "qrels.txt")
    order = [back.runs.index(r) for r in rs.runs]
    np.testing.assert_array_equal(back.grades[order], rs.grades)
    np.testing.assert_array_equal(back.lengths[order], rs.lengths)


def test_fresh_offline_machine_falls_back_to_the_simulated_stand_in(isolated_data, monkeypatch):
    with pytest.warns(data.SimulatedDataWarning, match="simulated stand-in"):
        m = data.load_matrix("trec8", "AP")
    assert m.simulated and m.shape == (129, 50) and m.topics[0] == "401"
    with pytest.warns(data.SimulatedDataWarning):
        rs = data.load_runs("trec-covid-round1")
    assert rs.simulated and rs.shape[:2] == (143, 30)
    monkeypatch.setenv("IRREPRO_REQUIRE_REAL", "1")
    with pytest.raises(DataUnavailable):
        data.load_matrix("trec8", "AP")


def test_cli_data_status_and_fetch(mirror, tmp_path, monkeypatch, capsys):
    from irrepro.cli import main

    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "c"))
    assert main(["data", "fetch", "trec7", "-q"]) == 0
    assert "3 files verified" in capsys.readouterr().out
    assert main(["data", "status"]) == 0
    out = capsys.readouterr().out
    assert "trec7" in out and "cache: 3" in out and "missing" not in out


def test_runset_cache_round_trips_and_a_corrupt_one_is_rebuilt(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "c"))
    first = data.load_runs("trec-covid-round1")
    cached = data._runset_cache_path(data.get_collection("trec-covid-round1"))
    assert cached.is_file()
    second = data.load_runs("trec-covid-round1")
    for field in ("grades", "lengths", "doc_codes", "vocab"):
        np.testing.assert_array_equal(getattr(first, field), getattr(second, field))
    assert first.runs == second.runs and first.topics == second.topics
    pd.testing.assert_frame_equal(first.qrels.table, second.qrels.table)
    cached.write_bytes(cached.read_bytes()[:1000])  # truncate it
    with pytest.warns(UserWarning, match="unreadable"):
        third = data.load_runs("trec-covid-round1")
    np.testing.assert_array_equal(first.grades, third.grades)
    sub = data.load_runs("trec-covid-round1", runs=first.runs[:3])
    assert sub.runs == first.runs[:3]


def test_negative_qrels_values_count_as_unjudged_like_trec_eval(tmp_path):
    (tmp_path / "r").write_text("1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n")
    (tmp_path / "q").write_text("1 0 a -1\n1 0 b 0\n1 0 c 2\n")
    rs = data.load_runs(tmp_path / "r", qrels=tmp_path / "q")
    assert rs.grades[0, 0].tolist() == [data.UNJUDGED, 0, 2]
    assert rs.grade_counts().tolist() == [[1, 0, 1]]
    assert rs.qrels.n_judged().tolist() == [2]


def test_qrels_of_a_collection_fall_back_to_the_stand_in(isolated_data):
    with pytest.warns(data.SimulatedDataWarning):
        q = data.load_qrels("robust2004")
    coll = data.get_collection("robust2004")
    assert q.topics == tuple(data.topic_order(coll.topics))
    assert (q.n_relevant(1) > 0).all() and (q.n_judged() > q.n_relevant(1)).all()
    with pytest.warns(data.SimulatedDataWarning):
        q2 = data.load_qrels("robust2004")
    pd.testing.assert_frame_equal(q.table, q2.table)
