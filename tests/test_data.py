"""The data layer: registry and mirror, verified caching, offline behaviour, readers, simulation."""

import dataclasses
import gzip
import hashlib
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irrepro import data
from irrepro.data import DataError, DataUnavailable, _common, _fetch

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here

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
    fake = _fetch.RegistryEntry(
        entry.path, entry.sha256, entry.bytes, "http://127.0.0.1:9/adhoc5_p10.csv", ""
    )
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


# ------------------------------------------------------------------------------------------
# readers: errors name the file, the line and the problem
# ------------------------------------------------------------------------------------------

GOOD_RUN = "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 2.0 tag\n2 Q0 d3 1 1.5 tag\n"


@pytest.mark.parametrize(
    "kind, text, line, problem",
    [
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 tag\n", 2, "expected at least 6 fields, found 5"),
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 high tag\n", 2, "score 'high' is not a finite number"),
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 nan tag\n", 2, "score 'nan' is not a finite number"),
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 inf tag\n", 2, "score 'inf' is not a finite number"),
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 1e400 tag\n", 2, "score '1e400' is not a finite number"),
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 1.5abc tag\n", 2, "score '1.5abc' is not a finite number"),
        (
            "run",
            "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 2.0 tag\n1 Q0 d1 3 1.0 tag\n",
            3,
            "duplicate document 'd1' in topic '1' (first at line 1)",
        ),
        (
            "run",
            "1 Q0 d1 1 3.0 tagA\n1 Q0 d2 2 2.0 tagB\n",
            2,
            "run tag changes from 'tagA' (line 1) to 'tagB'",
        ),
        # every line with a 7th field: the error is still the score of line 3, not a shifted column
        (
            "run",
            "1 Q0 d1 1 3.0 t x\n1 Q0 d2 2 2.0 t x\n1 Q0 d3 3 oops t x\n",
            3,
            "score 'oops' is not a finite number",
        ),
        (
            "run",
            "1\tQ0\td1\t1\t3.0\tt\n# a comment\n\n1\tQ0\td2\t2\t2.0\n",
            4,
            "expected at least 6 fields, found 5",
        ),
        ("run", "1 Q0 d1 1 3.0 tag\n1 Q0 d\xe9 2 2.0 tag\n", 2, "document id"),
        # binary data: refused for its NUL byte (issue 26: an 8 GB sparse file is not read whole)
        ("run", "\x00\x01garbage\xff\n", 1, "NUL byte: this is not a text file"),
        ("run", "\x01garbage\xff\n", 1, "expected at least 6 fields, found 1"),
        ("run", "1 Q0 d1 1 3.0\n", 1, "expected at least 6 fields, found 5"),
        ("qrels", "1 0 d1 1\n1 0 d2 x\n", 2, "relevance grade 'x' is not an integer"),
        ("qrels", "1 0 d1 1\n1 0 d2 1.5\n", 2, "relevance grade '1.5' is not an integer"),
        ("qrels", "1 0 d1 1\n1 0 d2 1e20\n", 2, "relevance grade '1e20' is not an integer"),
        ("qrels", "1 0 d1 1\n1 0 d2 3000000000\n", 2, "relevance grade '3000000000' does not fit 32 bits"),
        ("qrels", "1 0 d1 1\n1 0 d2 99999999999999999999\n", 2, "does not fit 32 bits"),
        (
            "qrels",
            "1 0 d1 1\n1 0 d1 0\n",
            2,
            "duplicate judgment for document 'd1' in topic '1' (first at line 1)",
        ),
        ("qrels", "1 0 d1 1\n1 0 d2\n", 2, "malformed qrels line: expected 4 fields, found 3"),
        # a 5-column qrels is refused at its first line as such (trec_eval refuses it too), not
        # blamed on the grade or shifted into a wrong topic
        ("qrels", "1 0 d1 1 x\n1 0 d2 0 x\n", 1, "malformed qrels line: expected 4 fields, found 5"),
        ("qrels", "1 0 d1 1\n1 0 d2 0\n1 0 d3 2 extra\n", 3, "expected 4 fields, found 5"),
    ],
)
def test_malformed_lines_are_reported_with_file_line_and_problem(tmp_path, kind, text, line, problem):
    p = tmp_path / f"my{kind}.txt"
    p.write_bytes(text.encode("latin-1"))
    with pytest.raises(DataError) as err:
        data.read_run(p) if kind == "run" else data.read_qrels(p)
    assert err.value.line == line, str(err.value)
    assert str(p) in str(err.value) and f"line {line}:" in str(err.value)
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


@pytest.mark.slow
def test_readers_agree_with_pytrec_eval_parsing_on_all_round5_runs(real_runs, mirror, pytrec_eval_run, size):
    """Every run at full size; at quick size 24 runs spread over the sorted files."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rs = real_runs("trec-covid-round5")
    assert rs.shape == (126, 50, 1000)
    run_dir = mirror / "trec-covid/round5/runs"
    files = sorted(run_dir.iterdir())
    assert len(files) == 126
    ties = 0
    for f in size.spread(files, 24):
        tag, parsed = pytrec_eval_run(f)
        s = rs.runs.index(tag)  # runs are named by their tag
        ties += any(len(set(d.values())) < len(d) for d in parsed.values())
        for t, topic in enumerate(rs.topics):
            docs = parsed.get(topic, {})
            # trec_eval's order: scores as C float (single precision), ties by doc id descending
            expected = sorted(docs, key=lambda d: (np.float32(docs[d]), d), reverse=True)
            assert list(rs.doc_ids(s, t)) == expected, (f.name, topic)
    assert ties, "no run with tied scores among those read"
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


def test_round5_run_set_is_ragged_and_compact(real_runs):
    rs = real_runs("trec-covid-round5")
    n = int(rs.lengths.sum())
    assert rs.flat_grades.dtype == np.int32 and rs.flat_docs.dtype == np.int32
    assert len(rs.flat_grades) == n == rs.offsets[-1]
    assert rs.nbytes() == 8 * n + 8 * (len(rs.runs) * len(rs.topics) + 1)  # follows the lines


# ------------------------------------------------------------------------------------------
# the simulated stand-in
# ------------------------------------------------------------------------------------------


def test_simulation_is_deterministic_by_seed():
    a = data.synthetic.runs(6, 4, list_length=50, seed=3)
    b = data.synthetic.runs(6, 4, list_length=50, seed=3)
    c = data.synthetic.runs(6, 4, list_length=50, seed=4)
    np.testing.assert_array_equal(a.grades, b.grades)
    np.testing.assert_array_equal(
        a.vocab[a.doc_codes[a.doc_codes >= 0]], b.vocab[b.doc_codes[b.doc_codes >= 0]]
    )
    assert not np.array_equal(a.grades, c.grades)
    m1 = data.synthetic.score_matrix(10, 20, "AP", seed=1)
    m2 = data.synthetic.score_matrix(10, 20, "AP", seed=1)
    np.testing.assert_array_equal(m1.scores, m2.scores)
    assert m1.simulated and a.simulated


def test_simulated_data_looks_like_trec():
    m = data.synthetic.score_matrix(100, 50, "AP", seed=0)
    ap = m.scores
    assert 0.1 < ap.mean() < 0.45
    assert np.mean(ap) > np.median(ap)  # right-skewed, like real AP
    topic_means = ap.mean(axis=0)
    assert topic_means.max() - topic_means.min() > 0.4  # wide topic spread
    rs = data.synthetic.runs(20, 5, list_length=200, seed=0)
    assert (rs.grades >= 1).any() and (rs.grades == data.UNJUDGED).any() and (rs.grades == 0).any()
    assert rs.grade_counts().shape == (5, 3)


def test_simulated_runs_round_trip_through_trec_files(tmp_path):
    rs = data.synthetic.runs(3, 4, list_length=30, seed=9)
    data.synthetic.write_trec(rs, tmp_path, gzip=True)
    run_files = [p for p in tmp_path.iterdir() if p.name != "qrels.txt"]
    back = data.load_runs(run_files, qrels=tmp_path / "qrels.txt")
    order = [back.runs.index(r) for r in rs.runs]
    np.testing.assert_array_equal(back.grades[order], rs.grades)
    np.testing.assert_array_equal(back.lengths[order], rs.lengths)


def test_a_fresh_offline_machine_gets_a_clear_error_not_simulated_data(isolated_data, monkeypatch):
    for call in (
        lambda **k: data.load_matrix("trec8", "AP", **k),
        lambda **k: data.load_runs("trec-covid-round1", **k),
        lambda **k: data.load_qrels("trec-covid-round5", **k),
        lambda **k: data.load_qrels("robust2004", **k),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no SimulatedDataWarning either
            with pytest.raises(DataUnavailable) as err:
                call()
        msg = str(err.value)
        assert "irrepro data fetch" in msg and "IRREPRO_MIRROR" in msg and "allow_simulated" in msg
        assert "Missing: " in msg and "IRREPRO_OFFLINE" in msg  # names the file and why it was not fetched


def test_the_simulated_stand_in_only_when_asked_for(isolated_data, monkeypatch):
    with pytest.warns(data.SimulatedDataWarning, match="simulated stand-in"):
        m = data.load_matrix("trec8", "AP", allow_simulated=True)
    assert m.simulated and m.shape == (129, 50) and m.topics[0] == "401"
    monkeypatch.setenv("IRREPRO_ALLOW_SIMULATED", "1")  # how `make book` builds the book
    with pytest.warns(data.SimulatedDataWarning):
        rs = data.load_runs("trec-covid-round1")
    assert rs.simulated and rs.shape[:2] == (143, 30) and rs.qrels.source == "simulated"
    with pytest.raises(DataUnavailable):  # an explicit refusal wins over the environment
        data.load_matrix("trec8", "AP", allow_simulated=False)
    monkeypatch.setenv("IRREPRO_REQUIRE_REAL", "1")  # and IRREPRO_REQUIRE_REAL over everything
    with pytest.raises(DataUnavailable):
        data.load_matrix("trec8", "AP", allow_simulated=True)


@pytest.mark.slow
def test_own_runs_scored_against_simulated_qrels_say_so(isolated_data, cached_stand_in, tmp_path):
    run = tmp_path / "r"
    run.write_text("1 Q0 sim1-00001 1 2 mine\n2 Q0 sim2-00003 1 1 mine\n")
    with pytest.raises(DataUnavailable):
        data.load_runs(run, qrels="trec-covid-round5")
    with pytest.warns(data.SimulatedDataWarning):
        rs = data.load_runs(run, qrels="trec-covid-round5", allow_simulated=True)
    assert rs.simulated and rs.source == "simulated"


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
    for field in ("offsets", "flat_grades", "flat_docs", "grades", "lengths", "doc_codes", "vocab"):
        np.testing.assert_array_equal(getattr(first, field), getattr(second, field))
    assert first.runs == second.runs and first.topics == second.topics
    pd.testing.assert_frame_equal(first.qrels.table, second.qrels.table)
    cached.write_bytes(cached.read_bytes()[:1000])  # truncate it
    with pytest.warns(UserWarning, match="does not match its recorded sha256"):
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


def test_qrels_of_a_collection_fall_back_to_the_stand_in_when_asked(isolated_data):
    with pytest.warns(data.SimulatedDataWarning):
        q = data.load_qrels("robust2004", allow_simulated=True)
    coll = data.get_collection("robust2004")
    assert q.topics == tuple(_common.topic_order(coll.topics)) and q.source == "simulated"
    assert (q.n_relevant(1) > 0).all() and (q.n_judged() > q.n_relevant(1)).all()
    with pytest.warns(data.SimulatedDataWarning):
        q2 = data.load_qrels("robust2004", allow_simulated=True)
    pd.testing.assert_frame_equal(q.table, q2.table)


# ------------------------------------------------------------------------------------------
# reading the way trec_eval does: checked against the trec_eval binaries
# ------------------------------------------------------------------------------------------


def trec_eval(version: str, qrels, run, *measures: str) -> dict[tuple[str, str], float]:
    """``{(measure, topic): value}`` of ``trec_eval -q -c -m ...`` (topic ``all`` = the mean): the
    binary ``TREC_EVAL`` (version "10", ranks by double) or ``TREC_EVAL_9`` ("9", ranks by float)
    names - the test skips without it - or, for "pytrec_eval", trec_eval 9's code in pytrec_eval."""
    from _reference import pytrec_eval_frame, run_trec_eval, tool

    if version == "pytrec_eval":
        ref = pytrec_eval_frame(qrels, run, measures)
        return {(m, t): v for m, t, v in ref.itertuples(index=False)}
    var = {"10": "TREC_EVAL", "9": "TREC_EVAL_9"}[version]
    binary = tool(var, f"the checks against trec_eval {version}'s own output")
    out = run_trec_eval(binary, qrels, run, "-q", "-c", *[a for m in measures for a in ("-m", m)])
    res = {}
    for line in out.splitlines():
        m, topic, v = line.split()
        if m != "runid":
            res[(m, topic)] = float(v)
    return res


def ours(rs, measure: str, **kw) -> dict[str, float]:
    """Per-topic values and ``all`` (the -c mean) of one measure of a single-run RunSet."""
    from irrepro import measures

    sm = measures.evaluate(rs, [measure], **kw)[measure]
    out = {t: float(v) for t, v in zip(sm.topics, sm.scores[0])}
    out["all"] = float(sm.scores[0].mean())
    return out


def _lines(n_topics=3, n_docs=40, seed=0):
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for t in range(1, n_topics + 1):
        docs = [f"D{t}-{i:03d}" for i in range(n_docs)]
        scores = np.round(rng.normal(size=n_docs), 3)
        scores[5:9] = scores[4]  # ties: broken by document id
        for r, (d, s) in enumerate(zip(docs, scores)):
            runs.append([str(t), "Q0", d, str(r + 1), f"{s:.3f}", "myrun"])
        for d in rng.choice(docs + [f"U{t}-{i}" for i in range(10)], 25, replace=False):
            qrels.append([str(t), "0", d, str(int(rng.integers(0, 3)))])
    return runs, qrels


def _write(path, rows, sep=" ", end="\n"):
    path.write_text("".join(sep.join(r) + end for r in rows))
    return path


def test_unusual_but_valid_files_score_as_trec_eval_scores_the_plain_ones(tmp_path):
    runs, qrels = _lines()
    plain_run, plain_qrels = _write(tmp_path / "run", runs), _write(tmp_path / "qrels", qrels)
    ref = {m: trec_eval("pytrec_eval", plain_qrels, plain_run, m) for m in ("map", "ndcg_cut.10", "P.5")}
    rng = np.random.default_rng(1)
    shuffled = [runs[i] for i in rng.permutation(len(runs))]
    variants = {
        "tabs": "".join("\t".join(r) + "\n" for r in runs),
        "crlf": "".join(" ".join(r) + "\r\n" for r in runs),
        "mixed whitespace": "".join(f"  {r[0]}\t{r[1]}   {r[2]} \t{r[3]} {r[4]}\t\t{r[5]}  \n" for r in runs),
        "7th and 8th fields": "".join(" ".join(r + ["x", "y"]) + "\n" for r in runs),
        "blank and comment lines": "# my run\n\n"
        + "".join(" ".join(r) + "\n" + ("\n   \n# c\n" if i % 7 == 0 else "") for i, r in enumerate(runs))
        + "\n\n",
        "no final newline": "".join(" ".join(r) + "\n" for r in runs).rstrip("\n"),
        "byte order mark": "\ufeff" + "".join("\t".join(r) + "\n" for r in runs),
        "rank column ignored": "".join(" ".join(r[:3] + ["999", r[4], r[5]]) + "\n" for r in shuffled),
        "one odd line among tabs": "".join(
            ("\t\t".join(r) if i == 3 else "\t".join(r)) + "\n" for i, r in enumerate(runs)
        ),
    }
    qvariants = {
        "plain": plain_qrels.read_text(),
        "comments, blank lines, tabs, CRLF": "# judged by X\n"
        + "".join("\t".join(r) + "\r\n" for r in qrels)
        + "\n",
    }
    for qname, qtext in qvariants.items():
        qp = tmp_path / "q2"
        qp.write_text(qtext)
        for name, text in variants.items():
            rp = tmp_path / "r2"
            rp.write_text(text)
            rs = data.load_runs(rp, qrels=qp)
            assert rs.runs == ("myrun",)
            for m, ours_name in (("map", "AP"), ("ndcg_cut.10", "nDCG@10"), ("P.5", "P@5")):
                got = ours(rs, ours_name)
                for (_mm, topic), v in ref[m].items():
                    assert got[topic] == pytest.approx(v, abs=5e-5), (qname, name, m, topic)


def test_the_fast_reader_and_the_line_reader_agree_on_any_layout(tmp_path):
    """Random layouts (whitespace, blank and comment lines, extra fields, CRLF): the fast
    columnar pass and the line-by-line pass give the same run, equal to a literal split."""
    from irrepro.data import _runs

    rng = np.random.default_rng(5)
    ws = [" ", "\t", "  ", " \t", "\t\t", "\x0b", "\x0c"]
    for trial in range(40):
        n = int(rng.integers(1, 60))
        lines, expect = [], {}
        for i in range(n):
            t, d, s = str(rng.integers(1, 4)), f"d{i}", f"{rng.normal():.{int(rng.integers(1, 9))}f}"
            fields = [t, "Q0", d, str(i), s, "tag"] + ["extra"] * int(
                rng.integers(0, 3) if trial % 3 == 0 else 0
            )
            seps = [
                ws[int(rng.integers(0, len(ws)))] if trial % 2 else ("\t" if trial % 4 == 0 else " ")
                for _ in fields
            ]
            line = "".join(f + sep for f, sep in zip(fields, seps[:-1] + [""]))
            if trial % 5 == 0 and rng.random() < 0.3:
                line = " " + line + " "
            lines.append(line)
            expect[(t, d)] = float(s)
            if trial % 3 == 1 and rng.random() < 0.2:
                lines.append(["", "# comment q0 d 1 2 tag", "   ", "#x"][int(rng.integers(0, 4))])
        end = "\r\n" if trial % 6 == 5 else "\n"
        raw = (end.join(lines) + (end if trial % 2 else "")).encode()
        p = tmp_path / f"r{trial}"
        p.write_bytes(raw)
        fast = _runs._parse_run(p)
        slow = _runs._parse_run_slow(raw, p)
        for cols in (fast, slow):
            got = dict(zip(cols.frame()[["topic", "doc"]].itertuples(index=False, name=None), cols.score))
            assert got == expect and cols.name == "tag", (trial, raw[:200])


def test_float_syntax_of_the_two_passes_is_the_same():
    """Scores the fast pass (pyarrow) accepts are the ones the line pass accepts, same values."""
    from irrepro.data import _runs

    good = ["1", "-1", "+1.5", ".5", "5.", "1e5", "1E+05", "-2.5e-3", "00012", "0", "-0"]
    bad = [
        "nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "1e400",
        "0x10",
        "1_0",
        "1.5f",
        "e5",
        ".",
        "+",
        "--1",
        "1,5",
    ]
    for s in good + bad:
        text = f"1 Q0 a 1 {s} t\n".encode()
        try:
            slow = _runs._parse_run_slow(text, "x").score[0]
        except DataError:
            slow = None
        fast = _runs._parse_run_fast([text], Path("x"))
        fast = fast.score[0] if fast is not None else None
        assert (slow is None) == (s in bad) and fast == slow, s


# ------------------------------------------------------------------------------------------
# grades: stored in a type that holds them
# ------------------------------------------------------------------------------------------


def test_large_grades_keep_their_value_and_ideal_rankings_score_one(tmp_path):
    (tmp_path / "q").write_text("1 0 a 200\n1 0 b 150\n1 0 c 0\n2 0 x 1000000000\n2 0 y 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n2 Q0 x 1 2 r\n2 Q0 y 2 1 r\n")
    rs = data.load_runs(tmp_path / "r", qrels=tmp_path / "q")
    assert rs.flat_grades.tolist() == [200, 150, 0, 1_000_000_000, 1]
    levels, counts = rs.qrels.grade_levels()
    assert levels.tolist() == [0, 1, 150, 200, 1_000_000_000] and counts.tolist() == [
        [1, 0, 1, 1, 0],
        [0, 1, 0, 0, 1],
    ]
    with pytest.raises(ValueError, match="grade_levels"):
        rs.qrels.grade_counts()  # one column per grade would be a billion columns: refused
    # topic 1 alone (grades <= 200): nDCG@2 of its perfect ranking is 1, as trec_eval says
    (tmp_path / "q1").write_text("1 0 a 200\n1 0 b 150\n1 0 c 0\n")
    one = data.load_runs(tmp_path / "r", qrels=tmp_path / "q1")
    ref = trec_eval("pytrec_eval", tmp_path / "q1", tmp_path / "r", "ndcg_cut.2")
    assert ours(one, "nDCG@2")["1"] == pytest.approx(ref[("ndcg_cut_2", "1")]) == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------
# the ragged storage and its views
# ------------------------------------------------------------------------------------------


def _dense_reference(rs):
    """The dense (S, T, K) grades built by a literal loop over the lists."""
    S, T = len(rs.runs), len(rs.topics)
    K = max(int(rs.lengths.max()), 1)
    out = np.full((S, T, K), data.PAD)
    for s in range(S):
        for t in range(T):
            i = s * T + t
            g = rs.flat_grades[rs.offsets[i] : rs.offsets[i + 1]]
            out[s, t, : len(g)] = g
    return out


def test_ragged_lists_blocks_dense_views_and_truncation():
    rs = data.synthetic.runs(7, 6, list_length=40, seed=2)
    rs = rs.subset(topics=list(rs.topics[:4]))
    # uneven lengths, empty lists and one long list, through the public constructor
    keep = np.random.default_rng(0).random(len(rs.flat_grades)) < 0.6
    lists = np.repeat(np.arange(len(rs.offsets) - 1), np.diff(rs.offsets))
    keep[lists == 3] = False  # an empty list
    lens = np.bincount(lists[keep], minlength=len(rs.offsets) - 1)
    rs = dataclasses.replace(
        rs, offsets=np.r_[0, np.cumsum(lens)], flat_grades=rs.flat_grades[keep], flat_docs=rs.flat_docs[keep]
    )
    dense = _dense_reference(rs)
    np.testing.assert_array_equal(rs.grades, dense)
    assert rs.lengths.tolist() == (dense != data.PAD).sum(axis=-1).tolist()
    for max_cells in (1, 7, 50, 1 << 20):
        seen = []
        for idx, block in rs.iter_blocks(max_cells=max_cells):
            assert block.dtype == np.int32 and block.shape[1] >= 1 and len(idx) == len(block)
            assert len(idx) == 1 or len(idx) * block.shape[1] <= max_cells
            flat = dense.reshape(len(rs.offsets) - 1, -1)
            k = block.shape[1]
            np.testing.assert_array_equal(
                block,
                np.pad(flat[idx], ((0, 0), (0, max(0, k - flat.shape[1]))), constant_values=data.PAD)[:, :k],
            )
            seen += idx.tolist()
        assert sorted(seen) == list(range(len(rs.offsets) - 1))  # every list exactly once
    for depth in (1, 3, 1000):
        cut = rs.truncate(depth)
        np.testing.assert_array_equal(
            cut.grades,
            np.where(np.arange(dense.shape[2]) < depth, dense, data.PAD)[
                :, :, : max(min(depth, dense.shape[2]), 1)
            ],
        )
        blocks = dict()
        for idx, block in rs.iter_blocks(depth=depth):
            blocks.update({int(i): b for i, b in zip(idx, block)})
        assert all(len(b) <= max(depth, 1) for b in blocks.values())
    sub = rs.subset(runs=[rs.runs[2], rs.runs[0]], topics=[rs.topics[1]])
    np.testing.assert_array_equal(sub.grades, dense[[2, 0]][:, [1]][:, :, : sub.shape[2]])
    assert list(sub.doc_ids(0, 0)) == list(rs.doc_ids(2, 1))


def test_a_long_topic_costs_memory_for_its_lines_only(tmp_path):
    lines = [f"1 Q0 doc{i} {i} {100000 - i} long" for i in range(100_000)]
    lines += [f"{t} Q0 doc{i} {i} {10 - i} long" for t in range(2, 51) for i in range(10)]
    (tmp_path / "long").write_text("\n".join(lines) + "\n")
    for r in range(4):
        (tmp_path / f"short{r}").write_text(
            "".join(f"{t} Q0 doc{i} {i} {10 - i} s{r}\n" for t in range(1, 51) for i in range(10))
        )
    (tmp_path / "q").write_text(
        "".join(f"{t} 0 doc{i} {i % 3}\n" for t in range(1, 51) for i in range(0, 300, 7))
    )
    rs = data.load_runs(sorted(tmp_path.glob("*o*")), qrels=tmp_path / "q")
    n = 100_000 + 49 * 10 + 4 * 500
    assert len(rs.flat_grades) == n and rs.shape == (5, 50, 100_000)
    assert rs.nbytes() == 8 * n + 8 * (5 * 50 + 1)  # not 5 x 50 x 100,000 cells
    assert max(b.size for _, b in rs.iter_blocks(max_cells=1 << 16)) == 100_000  # the long list alone


def test_run_sets_save_and_load(tmp_path):
    rs = data.synthetic.runs(4, 5, list_length=30, seed=4)
    rs.save(tmp_path / "x.npz")
    back = data.RunSet.load(tmp_path / "x.npz", source="simulated")
    for f in ("offsets", "flat_grades", "flat_docs", "vocab"):
        np.testing.assert_array_equal(getattr(back, f), getattr(rs, f))
    assert back.runs == rs.runs and back.topics == rs.topics and back.qrels.to_dict() == rs.qrels.to_dict()
    assert back.run_dict(1) == rs.run_dict(1)


def test_corpus_bootstrap_lists_and_split_from_the_ragged_arrays():
    from irrepro import corpus_bootstrap as cb
    from irrepro import topic_split as ts
    from irrepro.corpus_bootstrap.sampler import _lists_of

    rs = data.synthetic.runs(6, 5, list_length=60, seed=3)
    lists = _lists_of(rs, 1)
    ref = cb.compact_lists(rs.relevant(1), rs.n_relevant(1)[None, :], rs.lengths)  # from the dense array
    for f in ("gaps", "start", "n_rel", "length"):
        np.testing.assert_array_equal(getattr(lists, f), getattr(ref, f))
    np.testing.assert_allclose(lists.ap, ref.ap, rtol=1e-12)
    a, b = cb.split_corpus(rs)
    half = cb.validation.doc_half(rs.vocab)
    for h, part in enumerate((a, b)):
        for s in range(len(rs.runs)):
            for t in range(len(rs.topics)):
                docs = rs.doc_ids(s, t)
                assert list(part.doc_ids(s, t)) == [d for d in docs if half[list(rs.vocab).index(d)] == h]
    pools = ts.pool_sizes(rs, depths=[3, 20])
    for row in pools.itertuples():
        t = rs.topics.index(row.topic)
        docs = {d for s in range(len(rs.runs)) for d in rs.doc_ids(s, t)[: row.depth]}
        assert row.pool == len(docs)


# ------------------------------------------------------------------------------------------
# ranking precision: float32 (trec_eval 9, pytrec_eval, NIST) or float64 (trec_eval 10)
# ------------------------------------------------------------------------------------------


def _precision_case(tmp_path):
    """Scores equal in single precision but not in double: float32 ties them (doc id decides),
    float64 orders them by score."""
    lines = []
    for t in (1, 2, 3):
        lines += [
            f"{t} Q0 a{t} 1 1.00000003 r",
            f"{t} Q0 b{t} 2 1.00000002 r",
            f"{t} Q0 c{t} 3 1.00000001 r",
            f"{t} Q0 z{t} 4 0.5 r",
        ]
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    (tmp_path / "q").write_text("".join(f"{t} 0 a{t} 1\n{t} 0 z{t} 2\n" for t in (1, 2, 3)))
    f32 = data.load_runs(tmp_path / "r", qrels=tmp_path / "q")
    f64 = data.load_runs(tmp_path / "r", qrels=tmp_path / "q", precision="float64")
    assert list(f32.doc_ids(0, 0)) == ["c1", "b1", "a1", "z1"]  # a tie in float: doc id descending
    assert list(f64.doc_ids(0, 0)) == ["a1", "b1", "c1", "z1"]  # by score in double
    with pytest.raises(ValueError, match="precision"):
        data.load_runs(tmp_path / "r", qrels=tmp_path / "q", precision="float16")
    return f32, f64


def _same_as(version, rs, tmp_path):
    for m, name in (("map", "AP"), ("P.1", "P@1"), ("ndcg_cut.3", "nDCG@3"), ("recip_rank", "RR")):
        ref = trec_eval(version, tmp_path / "q", tmp_path / "r", m)
        got = ours(rs, name)
        assert len(ref) == 4
        for (_, topic), v in ref.items():
            assert got[topic] == pytest.approx(v, abs=5e-5), (version, m, topic)


@pytest.mark.parametrize("version", ["pytrec_eval", "9"])
def test_ranking_by_float32_reproduces_trec_eval_9(tmp_path, version):
    f32, _ = _precision_case(tmp_path)
    _same_as(version, f32, tmp_path)


def test_ranking_by_float64_reproduces_trec_eval_10(tmp_path):
    _, f64 = _precision_case(tmp_path)
    _same_as("10", f64, tmp_path)


# ------------------------------------------------------------------------------------------
# runs and qrels from the ecosystem
# ------------------------------------------------------------------------------------------


def _reference_runset(tmp_path):
    runs, qrels = _lines(n_topics=4, n_docs=30, seed=3)
    two = [r[:5] + ["first"] for r in runs] + [r[:4] + [str(-float(r[4])), "second"] for r in runs]
    _write(tmp_path / "first", [r for r in two if r[5] == "first"])
    _write(tmp_path / "second", [r for r in two if r[5] == "second"])
    _write(tmp_path / "qrels", qrels)
    rs = data.load_runs([tmp_path / "first", tmp_path / "second"], qrels=tmp_path / "qrels")
    return rs, two, qrels


def _same(a, b):
    assert a.runs == b.runs and a.topics == b.topics
    for s in range(len(a.runs)):
        for t in range(len(a.topics)):
            assert list(a.doc_ids(s, t)) == list(b.doc_ids(s, t))
    np.testing.assert_array_equal(a.flat_grades, b.flat_grades)


@pytest.mark.slow
@pytest.mark.compiles("ranx")  # its numba kernels, once per process: with the other ranx test
def test_runs_and_qrels_from_frames_dicts_and_ranx(tmp_path):
    rs, two, qrels = _reference_runset(tmp_path)
    frame = pd.DataFrame(two, columns=["qid", "Q0", "docno", "rank", "score", "name"])
    frame["score"] = frame["score"].astype(float)
    qframe = pd.DataFrame(qrels, columns=["query_id", "it", "doc_id", "relevance"]).astype({"relevance": int})
    pyterrier = data.load_runs(
        frame, qrels=qframe.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    )
    _same(pyterrier, rs)
    ir_measures = {
        n: g.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
        for n, g in frame.groupby("name")
    }
    _same(data.load_runs(ir_measures, qrels=qframe), rs)
    dicts = {n: {} for n in ("first", "second")}
    for t, _, d, _, s, n in two:
        dicts[n].setdefault(t, {})[d] = float(s)
    qdict = {}
    for t, _, d, g in qrels:
        qdict.setdefault(t, {})[d] = int(g)
    _same(data.load_runs(dicts, qrels=qdict), rs)
    one = data.load_runs(dicts["first"], qrels=qdict)
    assert one.runs == ("run",) and list(one.doc_ids(0, 1)) == list(rs.doc_ids(0, 1))
    listed = data.load_runs([dicts["first"], dicts["second"]], qrels=tmp_path / "qrels")
    assert listed.runs == ("run1", "run2")
    _same(data.load_runs([tmp_path / "first", frame[frame["name"] == "second"]], qrels=qdict), rs)
    ranx = pytest.importorskip("ranx")
    runs = [ranx.Run(dicts[n], name=n) for n in ("first", "second")]
    _same(data.load_runs(runs, qrels=ranx.Qrels(qdict)), rs)
    # the numbers, against pytrec_eval on the same dicts
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ev = pytrec_eval.RelevanceEvaluator(qdict, {"map", "ndcg_cut.10"})
    from irrepro import measures

    sc = measures.evaluate(rs, ["AP", "nDCG@10"])
    for s, n in enumerate(rs.runs):
        res = ev.evaluate(dicts[n])
        for t, topic in enumerate(rs.topics):
            assert sc["AP"].scores[s, t] == pytest.approx(res[topic]["map"], abs=1e-12)
            assert sc["nDCG@10"].scores[s, t] == pytest.approx(res[topic]["ndcg_cut_10"], abs=1e-12)


@pytest.mark.parametrize(
    "frame, problem",
    [
        (
            pd.DataFrame({"qid": ["1"], "doc": ["a"], "score": [1.0]}),
            "needs the columns query_id, doc_id, score (ir_measures) or qid, docno, score (PyTerrier)",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, "high"]}),
            "row 2 (topic '1', document 'b'): score 'high' is not a finite number",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, np.nan]}),
            "row 2 (topic '1', document 'b'): score nan is not a finite number",
        ),
        (
            pd.DataFrame({"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]}),
            "row 2: missing topic",
        ),
        (
            pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}),
            "row 2 (topic '1', document 'a'): duplicate document (first at row 1)",
        ),
    ],
)
def test_bad_run_frames_name_the_row_and_the_problem(tmp_path, frame, problem):
    (tmp_path / "q").write_text("1 0 a 1\n")
    with pytest.raises(DataError) as err:
        data.load_runs(frame, qrels=tmp_path / "q")
    assert problem in str(err.value)


def test_bad_qrels_frames_and_dicts_name_the_row_and_the_problem():
    run = {"1": {"a": 1.0}}
    with pytest.raises(
        DataError, match=r"row 2 \(topic '1', document 'b'\): relevance grade 1.5 is not an integer"
    ):
        data.load_runs(
            run, qrels=pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 1.5]})
        )
    with pytest.raises(
        DataError, match=r"entry 1 \(topic '1', document 'a'\): relevance grade 'x' is not an integer"
    ):
        data.load_qrels({"1": {"a": "x"}})
    with pytest.raises(DataError, match="needs the columns"):
        data.load_qrels(pd.DataFrame({"q": ["1"], "d": ["a"], "g": [1]}))
    with pytest.raises(TypeError, match="cannot read qrels from a int"):
        data.load_qrels(3)


# ------------------------------------------------------------------------------------------
# the user's environment, offline ids, the cache
# ------------------------------------------------------------------------------------------


def test_ir_datasets_is_reached_without_changing_the_environment(mirror, tmp_path):
    import subprocess
    import sys

    code = (
        "import os, json; before = dict(os.environ)\n"
        "from irrepro import data\nfrom irrepro.data._sources import _prepare_ir_datasets\n"
        "q = data.load_qrels('cord19/trec-covid/round1'); _prepare_ir_datasets('cord19/trec-covid/round1')\n"
        "import ir_datasets\n"
        "ref = {(x.query_id, x.doc_id, int(x.relevance)) for x in ir_datasets.load('cord19/trec-covid/round1').qrels_iter()}\n"
        "mine = set(zip(*q._columns)); mine = {(a, b, int(c)) for a, b, c in mine}\n"
        "print(json.dumps([dict(os.environ) == before, str(ir_datasets.util.home_path()), len(mine), mine == ref]))"
    )
    for user_home in (tmp_path / "my-irds", None):  # the user's IR_DATASETS_HOME, or its default
        env = dict(
            os.environ, IRREPRO_CACHE=str(tmp_path / "c"), IRREPRO_OFFLINE="1", HOME=str(tmp_path / "home")
        )
        env.pop("IR_DATASETS_HOME", None)
        if user_home is not None:
            env["IR_DATASETS_HOME"] = str(user_home)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        import json

        unchanged, home, n, equal = json.loads(out.stdout.strip().splitlines()[-1])
        expected_home = user_home if user_home is not None else tmp_path / "home" / ".ir_datasets"
        assert unchanged and Path(home) == expected_home and (n, equal) == (8691, True)
        assert (expected_home / "cord19/trec-covid/round1/queries.xml").is_file()  # placed for ir_datasets


def test_an_unknown_ir_datasets_id_offline_is_a_clear_error_without_network(isolated_data):
    t0 = time.perf_counter()
    with pytest.raises(DataUnavailable, match="not in irrepro's data registry and IRREPRO_OFFLINE is set"):
        data.load_qrels("msmarco-passage/trec-dl-2019/judged")
    assert time.perf_counter() - t0 < 5


def test_a_cache_that_cannot_be_used_is_a_clear_error(mirror, tmp_path, monkeypatch):
    rel = "score-matrices/urbano/sigir2019-statistical/data/adhoc5_ap.csv"
    (tmp_path / "afile").write_text("x")
    for cache, words in (
        (tmp_path / "afile", "is a file"),
        (tmp_path / "afile" / "sub", "is a file"),
        (Path("/sys/irrepro-cache-test"), "cannot create the directory"),
    ):
        monkeypatch.setenv("IRREPRO_CACHE", str(cache))
        with pytest.raises(data.CacheError, match=words) as err:
            data.locate(rel)
        assert str(cache).split("/sub")[0] in str(err.value)
        with pytest.raises(data.DataUnavailable):  # what the command line catches
            data.load_matrix("trec5", "AP")


_REPAIR = """
import sys, warnings
warnings.simplefilter("ignore")
from irrepro import data
rel, n = sys.argv[1], int(sys.argv[2])
for _ in range(n):
    p = data.locate(rel)
    assert p.read_bytes()[:4], p
print("ok")
"""


def test_two_processes_repairing_the_same_corrupt_cache_file(mirror, tmp_path):
    import subprocess
    import sys

    rel = "trec-covid/round5/runs/BRPHJ_BM25.gz"
    env = dict(os.environ, IRREPRO_CACHE=str(tmp_path / "c"))
    target = tmp_path / "c" / rel
    good = (mirror / rel).read_bytes()
    for _trial in range(5):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(good[: len(good) // 2])  # corrupt
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _REPAIR, rel, "3"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=120) for p in procs]
        for p, (out, err) in zip(procs, outs):
            assert p.returncode == 0 and out.strip() == "ok", err[-2000:]
        assert target.read_bytes() == good
        assert not [f for f in target.parent.iterdir() if f.name.endswith(".part")]  # no leftovers


# ------------------------------------------------------------------------------------------
# coverage: topics retrieved, missing and ignored
# ------------------------------------------------------------------------------------------


def test_coverage_per_run_and_a_run_that_matches_no_topic(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n3 0 c 0\n")
    (tmp_path / "a").write_text("1 Q0 a 1 2 ra\n9 Q0 a 1 2 ra\n8 Q0 x 1 1 ra\n")
    (tmp_path / "b").write_text("1 Q0 a 1 1 rb\n2 Q0 b 1 1 rb\n3 Q0 c 1 1 rb\n")
    rs = data.load_runs([tmp_path / "a", tmp_path / "b"], qrels=tmp_path / "q")
    cov = rs.coverage().set_index("run")
    assert cov.loc["ra", "retrieved"] == 1 and cov.loc["ra", "missing"] == ("2", "3")
    assert cov.loc["ra", "ignored"] == ("8", "9") and rs.ignored_topics == {"ra": ("8", "9")}
    assert (
        cov.loc["rb", "retrieved"] == 3 and cov.loc["rb", "missing"] == () and cov.loc["rb", "ignored"] == ()
    )
    (tmp_path / "t").write_text("".join(f"T{i} Q0 a 1 1 wrong\n" for i in range(1, 9)))
    with pytest.raises(DataError) as err:
        data.load_runs([tmp_path / "b", tmp_path / "t"], qrels=tmp_path / "q")
    msg = str(err.value)
    assert str(tmp_path / "t") in msg and "matches no topic of the qrels" in msg
    assert "'T1', 'T2'" in msg and "'1', '2', '3'" in msg


def test_reading_does_not_depend_on_the_thread_count_and_caches_nothing(tmp_path, monkeypatch):
    from irrepro.data import _columns, _runs

    monkeypatch.setenv("IRREPRO_CACHE", str(tmp_path / "cache"))
    rs = data.synthetic.runs(9, 6, list_length=50, seed=8)
    paths = data.synthetic.write_trec(rs, tmp_path / "runs", gzip=True, qrels=tmp_path / "qrels")
    results = []
    for n in (1, 2, 5):
        monkeypatch.setattr(_runs, "_n_threads", lambda k, n=n: min(k, n))
        monkeypatch.setattr(_columns, "_n_threads", lambda k, n=n: min(k, n))  # the run vocabulary
        results.append(data.load_runs(tmp_path / "runs", qrels=tmp_path / "qrels"))
    for other in results[1:]:
        _same(results[0], other)
    order = [results[0].runs.index(r) for r in rs.runs]
    _same(results[0].subset(runs=order), rs)
    assert len(paths) == 9 and not (tmp_path / "cache").exists()  # nothing cached for the user's files


def test_the_union_dictionary_is_one_pass_encoding_whatever_the_thread_count(monkeypatch):
    import pyarrow as pa

    from irrepro.data import _columns

    arrays = [pa.array(x, pa.string()) for x in (["b", "a"], ["c", "a", "d"], [], ["d", "e", "b"], ["a"])]
    one = pa.chunked_array(arrays, pa.string()).dictionary_encode()
    want = pa.table({"c": one}).unify_dictionaries().column(0).combine_chunks()
    for n in (1, 2, 3, 5):
        monkeypatch.setattr(_columns, "_n_threads", lambda k, n=n: min(k, n))
        uniq, idx = _columns._union_dictionary(arrays)
        assert uniq.to_pylist() == want.dictionary.to_pylist() == ["b", "a", "c", "d", "e"]
        assert idx.tolist() == want.indices.to_pylist() == [0, 1, 2, 1, 3, 3, 4, 0, 1]


def test_dictionaries_merged_by_sorting_hold_the_same_values_in_byte_order():
    """A large run's document column (chunks with their own dictionaries) is merged by sorting,
    not by a hash table: each value once, in byte order, every line mapped to its own value; the
    chunks handed over in a list are let go as they are merged."""
    import pyarrow as pa

    from irrepro.data import _columns

    lines = [["b", "a", "é", "a"], [], ["c", "b", "ab", "c"], ["a"], ["", "zz", "b"]]
    chunks = [pa.array(x, pa.string()).dictionary_encode() for x in lines]
    flat = [v for x in lines for v in x]
    for col in (pa.chunked_array(chunks), list(chunks)):
        uniq, idx = _columns._dict_parts(col, by_sorting=True)
        assert uniq.to_pylist() == sorted(set(flat), key=str.encode)
        assert [uniq[i].as_py() for i in idx] == flat
    handed = list(chunks)
    _columns._dict_parts(handed, by_sorting=True)
    assert handed == []
    hashed, hidx = _columns._dict_parts(pa.chunked_array(chunks))  # the hash table's: first occurrence
    assert hashed.to_pylist() == list(dict.fromkeys(flat)) and [hashed[i].as_py() for i in hidx] == flat


def test_the_places_of_ids_are_index_in_whichever_side_is_hashed():
    """``_positions`` hashes the smaller side (the qrels' ids, not a large run's millions): the
    same places as ``pyarrow.compute.index_in``, -1 where absent, for either side the larger."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from irrepro.data import _columns

    rng = np.random.default_rng(7)
    for n_values, n_set in ((50, 400), (400, 50), (0, 10), (10, 0)):
        values = pa.chunked_array([pa.array([f"d{x}" for x in rng.integers(0, 300, n_values)], pa.string())])
        value_set = pa.array([f"d{x}" for x in rng.permutation(300)[:n_set]], pa.string())
        want = [-1 if x is None else x for x in pc.index_in(values, value_set=value_set).to_pylist()]
        assert _columns._positions(values, value_set).tolist() == want, (n_values, n_set)


def test_every_way_of_ranking_gives_trec_evals_order():
    """A run's lists are ordered by one 64-bit key (topic, score, document) where it fits; by the
    scores' ranks among the run's distinct scores in its place where it does not (always at
    float64); by three keys beyond that: each the order of a plain sort - topic, score descending
    (as C float or double), document code descending - on lists full of ties."""
    from irrepro.data import _columns, _runs

    rng = np.random.default_rng(3)
    n, T = 3000, 7
    t_idx = rng.integers(0, T, n).astype(np.int32)
    d_idx = np.zeros(n, dtype=np.int32)
    for t in range(T):  # distinct documents within a topic
        at = np.flatnonzero(t_idx == t)
        d_idx[at] = rng.permutation(n)[: len(at)]
    score = rng.choice([0.5, 1.0, 1.00000001, 2.0, -0.0, 0.0, 3.25], n) + rng.choice([0, 1e-9], n)
    topics = _columns._pa_strings([str(t) for t in range(T)])
    for precision, dtype in (("float32", np.float32), ("float64", np.float64)):
        s = score.astype(dtype) + dtype(0)  # (-0.0 ties with 0.0)
        want = sorted(range(n), key=lambda i: (t_idx[i], -s[i], -d_idx[i]))
        for V in (n, 1 << 40, 1 << 62):  # packed; by score ranks; three keys
            cols = [_runs._RunCols("r", "", topics, t_idx, None, d_idx, score)]  # (taken by the ranking)
            r = _runs._rank_run(cols, 0, np.arange(n, dtype=np.int32), V, topics, precision)
            assert cols == [None]
            assert r.t.tolist() == t_idx[want].tolist() and r.docs.tolist() == d_idx[want].tolist(), (
                precision,
                V,
            )


def test_gzip_files_of_several_members_are_read_whole(tmp_path):
    # `cat a.gz b.gz` is a valid gzip file (two members): both halves are read
    first, second = GOOD_RUN.splitlines(keepends=True)[:2], GOOD_RUN.splitlines(keepends=True)[2:]
    p = tmp_path / "two.gz"
    p.write_bytes(gzip.compress("".join(first).encode()) + gzip.compress("".join(second).encode()))
    run = data.read_run(p)
    assert sorted(run.table["doc"]) == ["d1", "d2", "d3"] and run.name == "tag"
