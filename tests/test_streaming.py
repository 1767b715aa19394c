"""Reading runs and qrels from anything that can be opened, in bounded pieces (issue 26): pipes,
FIFOs, /dev/stdin and /dev/fd paths; names that are not UTF-8; binary and sparse files refused
after a bounded prefix; gzip bombs refused with the ratio that makes them one."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest

from irrepro import data, measures
from irrepro.data import DataError
from irrepro.data._textfiles import GZIP_MAX_RATIO

RUN = "1 Q0 d1 1 3.0 tag\n1 Q0 d2 2 2.0 tag\n2 Q0 d3 1 1.5 tag\n2 Q0 d4 2 0.5 tag\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d4 2\n2 0 d9 1\n"
ROOT = Path(__file__).resolve().parents[1]


def _files(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return run, qrels


def _ap(runs, qrels):
    return measures.evaluate(data.load_runs(runs, qrels=qrels), ["AP"])["AP"].scores


def _cli(*args, stdin=None, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "irrepro.cli", *args], input=stdin, capture_output=True,
                          env=env, **kw)  # fmt: skip


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="needs /dev/stdin (Linux, macOS)")
def test_a_run_piped_to_dev_stdin_is_read(tmp_path):
    run, qrels = _files(tmp_path)
    piped = _cli("eval", "--qrels", str(qrels), "/dev/stdin", "-m", "AP", stdin=run.read_bytes())
    from_file = _cli("eval", "--qrels", str(qrels), str(run), "-m", "AP")
    assert piped.returncode == 0, piped.stderr.decode()
    assert piped.stdout == from_file.stdout and b"tag\tAP\t" in piped.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo (POSIX)")
def test_runs_and_qrels_from_fifos_match_the_files(tmp_path):
    run, qrels = _files(tmp_path)
    fifos = []
    for name, text in (("run.fifo", RUN), ("qrels.fifo", QRELS)):
        f = tmp_path / name
        os.mkfifo(f)
        fifos.append(f)
        # a writer in a thread, as a shell would feed a FIFO; gzipped, like `zcat`'s input
        threading.Thread(
            target=lambda f=f, t=text: f.write_bytes(gzip.compress(t.encode())), daemon=True
        ).start()
    got = _ap([fifos[0]], fifos[1])
    np.testing.assert_array_equal(got, _ap([run], qrels))


def test_a_dev_fd_path_is_read_as_bash_process_substitution_gives_it(tmp_path):
    run, qrels = _files(tmp_path)
    r, w = os.pipe()
    os.write(w, RUN.encode())
    os.close(w)
    try:
        got = data.read_run(f"/dev/fd/{r}")
    finally:
        os.close(r)
    assert sorted(got.table["doc"]) == ["d1", "d2", "d3", "d4"] and got.name == "tag"


@pytest.mark.skipif(sys.platform != "linux", reason="file names of any bytes: Linux file systems")
def test_names_that_are_not_utf8_are_read_and_shown_as_bytes(tmp_path):
    folder = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(folder)
    with open(folder + b"/run\xff.txt", "w") as f:
        f.write(RUN)
    with open(os.fsencode(tmp_path) + b"/q\xfe", "w") as f:
        f.write(QRELS)
    qrels_b = os.fsencode(tmp_path) + b"/q\xfe"
    expected = _ap([tmp_path / "run.txt"], _files(tmp_path)[1])
    np.testing.assert_array_equal(_ap(folder, qrels_b), expected)  # bytes, as os.fsencode gives them
    np.testing.assert_array_equal(_ap(os.fsdecode(folder), os.fsdecode(qrels_b)), expected)  # str (argv)
    with pytest.raises(DataError, match=r"caf\\xe9/nope\\xff: run file or directory not found"):
        data.load_runs([folder + b"/nope\xff"], qrels=qrels_b)
    out = _cli("eval", "--qrels", os.fsdecode(qrels_b), os.fsdecode(folder + b"/missing\xff"), "-m", "AP")
    assert out.returncode == 2 and b"missing\\xff" in out.stderr and b"Traceback" not in out.stderr


def test_a_sparse_8gb_file_is_refused_after_a_bounded_prefix(tmp_path):
    big = tmp_path / "sparse"
    with open(big, "wb") as f:
        f.truncate(8 << 30)  # 8 GB of holes (NUL bytes), no disk used
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(DataError, match="line 1: NUL byte: this is not a text file"):
        data.read_run(big)
    with pytest.raises(DataError, match="NUL byte"):
        data.read_qrels(big)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024  # KB on Linux
    assert grown_mb < 100


def test_a_nul_byte_later_in_a_file_is_refused_with_its_line(tmp_path):
    p = tmp_path / "run.txt"
    p.write_bytes(RUN.encode() * 30000 + b"3 Q0 d\x00 1 1.0 tag\n")  # past the first 64 KiB
    with pytest.raises(DataError, match=f"line {4 * 30000 + 1}: NUL byte"):
        data.read_run(p)


def _bomb(path: Path, mb: int, line: bytes = b"1 Q0 d 1 1 t\n") -> int:
    """A gzip file of ``mb`` MiB of one repeated line, written in pieces; its compressed size."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = line * ((1 << 20) // len(line))
    with open(path, "wb") as f:
        for _ in range(mb):
            f.write(c.compress(block))
        f.write(c.flush())
    return path.stat().st_size


def test_a_gzip_bomb_is_refused_with_its_ratio_not_as_corrupt(tmp_path):
    bomb = tmp_path / "bomb.gz"
    size = _bomb(bomb, 64)
    assert (64 << 20) > GZIP_MAX_RATIO * size + (1 << 20)  # it is one, by the stated limit
    for read in (data.read_run, data.read_qrels):
        with pytest.raises(DataError, match=f"decompresses to more than {GZIP_MAX_RATIO} times its size"):
            read(bomb)
    zeros = tmp_path / "zeros.gz"
    _bomb(zeros, 64, b"\0" * 64)  # the classic bomb: refused by its ratio before any NUL is read
    with pytest.raises(DataError, match="decompression bomb"):
        data.read_run(zeros)


def test_a_gzip_bomb_through_a_pipe_is_refused_too(tmp_path):
    bomb = tmp_path / "bomb.gz"
    _bomb(bomb, 64)
    r, w = os.pipe()
    threading.Thread(target=lambda: (os.write(w, bomb.read_bytes()), os.close(w)), daemon=True).start()
    try:
        with pytest.raises(DataError, match="decompression bomb"):
            data.read_run(f"/dev/fd/{r}")
    finally:
        os.close(r)


def test_real_gzip_files_of_any_size_are_read(tmp_path):
    # a run of unique lines compresses a few times: far below the limit, read whole
    lines = "".join(f"{i % 50} Q0 doc{i} {i} {1.0 / (i + 1)} tag\n" for i in range(200_000))
    p = tmp_path / "run.gz"
    p.write_bytes(gzip.compress(lines.encode()))
    assert len(data.read_run(p).table) == 200_000
    small = tmp_path / "small.gz"  # a tiny file may have any ratio (up to 1 MiB of text)
    text = "".join(f"1 Q0 d{i:05d} 1 1.0 {'t' * 480}\n" for i in range(2000)).encode()
    small.write_bytes(gzip.compress(text))
    assert len(text) > GZIP_MAX_RATIO * small.stat().st_size and len(text) < 1 << 20
    assert len(data.read_run(small).table) == 2000


def test_a_directory_given_as_qrels_is_named_as_such(tmp_path):
    with pytest.raises(DataError, match="is a directory, not a qrels file"):
        data.read_qrels(tmp_path)


# ------------------------------------------------------------ memory: a large qrels, and its ids

MEMORY_SCRIPT = r"""
import sys
from irrepro import data, measures
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key))
small_run, small_qrels, run, qrels = sys.argv[1:]
measures.evaluate(data.load_runs([small_run], qrels=small_qrels), ["AP"])  # lazy imports first
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from here
base = status("VmRSS")
measures.evaluate(data.load_runs([run], qrels=qrels), ["AP", "nDCG@10"])
print((status("VmHWM") - base) * 1024)
"""


#: the peak-memory tests reset the process's peak (VmHWM) through Linux's /proc/self/clear_refs
_needs_clear_refs = pytest.mark.skipif(
    not os.access("/proc/self/clear_refs", os.W_OK), reason="needs Linux's /proc/self/clear_refs"
)


@_needs_clear_refs
def test_a_large_qrels_is_read_and_evaluated_in_a_few_times_its_size(tmp_path):
    # 400,000 judgments of distinct documents: the peak memory of reading and evaluating them
    # was ~24 times the file (a Python string per id, twice, and a hash table of the ids)
    rng = np.random.default_rng(26)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for t in range(1, 101):
            docs = rng.choice(10**9, 4000, replace=False)
            fq.write("".join(f"{t} 0 doc{d:09d} {g}\n" for d, g in zip(docs, rng.integers(0, 3, 4000))))
            fr.write("".join(f"{t} Q0 doc{d:09d} {r} {100 - r} run\n" for r, d in enumerate(docs[:50], 1)))
    small_run, small_qrels = _files(tmp_path)
    args = [str(small_run), str(small_qrels), str(run), str(qrels)]
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, *args], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))  # fmt: skip
    assert out.returncode == 0, out.stderr
    peak = int(out.stdout)
    assert peak < 10 * qrels.stat().st_size, (
        f"{peak / 1e6:.0f} MB for a {qrels.stat().st_size / 1e6:.0f} MB qrels"
    )


@_needs_clear_refs
def test_a_large_run_is_read_and_evaluated_in_a_few_times_its_size(tmp_path):
    # 1,000,000 lines (49 MB), every document id distinct, as in a run on a web collection: reading
    # and evaluating it peaks at 2.2-2.7 times the file; 4.6-5.7 times with the ids in hash tables
    # (~160 bytes an id at their peak) and the file's text held beside its columns (5,000,000
    # lines: 1.6 GB, where trec_eval takes 0.5 GB)
    rng = np.random.default_rng(41)
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    ids = np.char.add("clueweb09-en", rng.integers(0, 10**13, 1_000_000).astype("U13"))
    with open(run, "w") as fr, open(qrels, "w") as fq:
        for t in range(1000):
            docs = ids[t * 1000 : (t + 1) * 1000]
            fr.write("".join(f"{t} Q0 {d} {r} {1000 - r}.{r % 7} myrun\n" for r, d in enumerate(docs, 1)))
            fq.write("".join(f"{t} 0 {d} {r % 3}\n" for r, d in enumerate(docs[::50])))
    small_run, small_qrels = _files(tmp_path)
    args = [str(small_run), str(small_qrels), str(run), str(qrels)]
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, *args], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))  # fmt: skip
    assert out.returncode == 0, out.stderr
    peak = int(out.stdout)
    assert peak < 3.5 * run.stat().st_size, f"{peak / 1e6:.0f} MB for a {run.stat().st_size / 1e6:.0f} MB run"


EVAL_SCRIPT = r"""
import os, sys
from irrepro.cli import main
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key))
small_run, small_qrels, run, qrels = sys.argv[1:]
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the printed scores: written, not kept
command = ["eval", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "-q", "--format", "trec_eval", "--qrels"]
assert main([*command, small_qrels, small_run]) == 0  # lazy imports first
sys.stdout.flush()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from here
base = status("VmRSS")
assert main([*command, qrels, run]) == 0
sys.stdout.flush()
print((status("VmHWM") - base) * 1024, file=sys.stderr)
"""


@_needs_clear_refs
def test_a_run_of_many_topics_is_evaluated_and_printed_in_a_few_times_its_size(tmp_path):
    # 1,000,000 lines over 200,000 topics of 5 documents, one judgment a topic (the shape that costs
    # memory a topic: ids, per-topic arrays, the lines printed for each): `irrepro eval -q --format
    # trec_eval` peaks at 4.2 times the run file
    rng = np.random.default_rng(8)
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    with open(run, "w") as fr, open(qrels, "w") as fq:
        for a in range(1, 200_001, 10_000):
            topics = range(a, a + 10_000)
            fr.write("".join(f"{t} Q0 d{t}-{r} {r + 1} {5 - r} many\n" for t in topics for r in range(5)))
            fq.write("".join(f"{t} 0 d{t}-{rng.integers(7)} {rng.integers(3)}\n" for t in topics))
    small_run, small_qrels = _files(tmp_path)
    args = [str(small_run), str(small_qrels), str(run), str(qrels)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), ARROW_DEFAULT_MEMORY_POOL="system")  # (the command line's)
    out = subprocess.run([sys.executable, "-c", EVAL_SCRIPT, *args], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    peak = int(out.stderr.splitlines()[-1])
    assert peak < 6 * run.stat().st_size, f"{peak / 1e6:.0f} MB for a {run.stat().st_size / 1e6:.0f} MB run"


def test_a_run_read_a_piece_at_a_time_is_the_run_read_whole(tmp_path, monkeypatch):
    """The fast pass reads a run file a piece at a time (pieces of 4 KiB here): the same run as the
    slow pass reads whole, plain or gzipped, from a file or a pipe, with a byte order mark, CRLF
    line ends, comments and blank lines; and the slow pass's errors, naming the line, for what
    only a later piece shows (the tag changes, a document repeats in a topic, a NUL byte)."""
    from irrepro.data import _runs, _textfiles

    rng = np.random.default_rng(5)
    lines = [f"{t} Q0 doc{rng.integers(0, 10**6)}-{i} {i} {rng.choice([1.5, 2.0, 0.25])} tag"
             for i, t in enumerate(rng.integers(1, 9, 4000))]  # fmt: skip
    text = "\ufeff" + "\r\n".join(lines[:1500]) + "\r\n# a comment\n\n" + "\n".join(lines[1500:]) + "\n"
    p = tmp_path / "run.txt"
    p.write_text(text, encoding="utf-8")
    (tmp_path / "run.gz").write_bytes(gzip.compress(text.encode()))
    slow = _runs._parse_run_slow(text.encode()[3:], p).frame()  # (the mark is not data)

    def same(frame):
        key = ["topic", "doc"]
        return (
            frame.sort_values(key).reset_index(drop=True).equals(slow.sort_values(key).reset_index(drop=True))
        )

    monkeypatch.setattr(_textfiles, "_PIECE", 4096)
    assert len(list(_textfiles._line_pieces(p, "run"))) > 10
    assert same(data.read_run(p).table) and same(data.read_run(tmp_path / "run.gz").table)
    r, w = os.pipe()
    threading.Thread(target=lambda: (os.write(w, text.encode()), os.close(w)), daemon=True).start()
    try:
        assert same(data.read_run(f"/dev/fd/{r}").table)
    finally:
        os.close(r)
    # what only a later piece shows: the slow pass reads the file (or the pipe's pieces) and says where
    late = len(lines) - 10
    changed = lines[:late] + [lines[late].replace(" tag", " other")] + lines[late + 1 :]
    p.write_text("\n".join(changed) + "\n")
    with pytest.raises(
        DataError, match=f"line {late + 1}: run tag changes from 'tag' \\(line 1\\) to 'other'"
    ):
        data.read_run(p)
    r, w = os.pipe()
    body = ("\n".join(changed) + "\n").encode()
    threading.Thread(target=lambda: (os.write(w, body), os.close(w)), daemon=True).start()
    try:
        with pytest.raises(DataError, match=f"line {late + 1}: run tag changes"):
            data.read_run(f"/dev/fd/{r}")
    finally:
        os.close(r)
    t, _, d = lines[5].split()[:3]
    p.write_text("\n".join(lines) + f"\n{t} Q0 {d} 9 0.1 tag\n")
    with pytest.raises(DataError, match=f"line {len(lines) + 1}: duplicate document '{d}' in topic '{t}'"):
        data.read_run(p)
    p.write_bytes(("\n".join(lines) + "\n").encode() + b"1 Q0 x\x00 1 1 tag\n")
    with pytest.raises(DataError, match=f"line {len(lines) + 1}: NUL byte"):
        data.read_run(p)
    p.write_text(" \n" * 5000)
    with pytest.raises(DataError, match="empty run file"):
        data.read_run(p)


def test_the_vocabulary_made_on_first_use_is_every_id_of_runs_and_qrels_sorted(tmp_path):
    # RunSet.vocab and flat_docs are made when first read: the same as reading them at once
    run_a = "1 Q0 b 1 2.0 A\n1 Q0 a 2 2.0 A\n1 Q0 zz 3 1.0 A\n2 Q0 c 1 5.0 A\n"
    run_b = "2 Q0 q9 1 1.0 B\n2 Q0 c 2 3.0 B\n7 Q0 x 1 1.0 B\n"
    qrels = "1 0 a 1\n1 0 y 0\n2 0 c 2\n2 0 m 1\n2 0 q9 -1\n"
    (tmp_path / "a").write_text(run_a)
    (tmp_path / "b").write_text(run_b)
    (tmp_path / "q").write_text(qrels)
    rs = data.load_runs([tmp_path / "a", tmp_path / "b"], qrels=tmp_path / "q")
    import pickle

    copy = pickle.loads(pickle.dumps(rs))  # (a process pool's copy: its fields still to be made)
    ids = {line.split()[2] for text in (run_a, run_b, qrels) for line in text.splitlines()}
    for r in (rs, copy):
        assert list(r.vocab) == sorted(ids, key=str.encode)
        # each list: by score descending, ties by doc id descending (trec_eval)
        assert list(r.doc_ids(0, 0)) == ["b", "a", "zz"] and list(r.doc_ids(0, 1)) == ["c"]
        assert list(r.doc_ids(1, 0)) == [] and list(r.doc_ids(1, 1)) == ["c", "q9"]
    # grades of the ranked documents (topic 7, absent from the qrels, is not evaluated; a negative
    # grade counts as unjudged, -1)
    grades = {(t, d): max(int(g), -1) for t, _, d, g in (line.split() for line in qrels.splitlines())}
    ranked = [("1", "b"), ("1", "a"), ("1", "zz"), ("2", "c"), ("2", "c"), ("2", "q9")]
    assert rs.flat_grades.tolist() == [grades.get(key, -1) for key in ranked]
    sub = rs.subset(topics=["2"])
    assert list(sub.doc_ids(1, 0)) == ["c", "q9"] and set(sub.qrels.table["doc"]) == {"c", "m", "q9"}


def test_a_subset_or_a_cut_of_a_run_set_leaves_its_documents_unmade(tmp_path):
    # irrepro report takes subsets of its runs (the corpus bootstrap's blocks): making the vocabulary
    # (every id a Python string) and every document's code for them cost ~40 MB it never read
    from irrepro.data._runset import Deferred

    (tmp_path / "a").write_text("1 Q0 b 1 2.0 A\n1 Q0 a 2 2.0 A\n1 Q0 zz 3 1.0 A\n2 Q0 c 1 5.0 A\n")
    (tmp_path / "b").write_text("2 Q0 q9 1 1.0 B\n2 Q0 c 2 3.0 B\n1 Q0 y 1 1.0 B\n")
    (tmp_path / "q").write_text("1 0 a 1\n1 0 y 0\n2 0 c 2\n2 0 m 1\n")
    rs = data.load_runs([tmp_path / "a", tmp_path / "b"], qrels=tmp_path / "q")
    sub, cut = rs.subset(runs=["B"], topics=["2"]), rs.truncate(1)
    for r in (rs, sub, cut):
        for name in ("flat_docs", "vocab"):
            assert isinstance(type(r).__dict__[name].stored(r), Deferred), name
    # made, they are those of the whole run set's, subset or cut
    assert list(sub.doc_ids(0, 0)) == list(rs.doc_ids(1, 1)) == ["c", "q9"]
    assert [list(cut.doc_ids(s, t)) for s in (0, 1) for t in (0, 1)] == [["b"], ["c"], ["y"], ["c"]]
    assert list(sub.vocab) == list(rs.vocab)
    keep = rs._ranks() < 1
    np.testing.assert_array_equal(cut.flat_docs, rs.flat_docs[keep])


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_runs_kept_for_ranking_only_rank_as_the_runs_read_whole(tmp_path, precision):
    # load_runs keeps of each run file only its scores' order and narrow indices while it reads the
    # others (memory): the same run set as ranking the runs read whole (read_run, build_runset)
    rng = np.random.default_rng(5)
    lines = {"A": [], "B": []}
    for t in range(1, 4):
        for i in range(300):  # 300 documents a run: indices of two bytes
            score = 1.0 + (i // 3) * 1e-9  # ties at float32, not at float64
            lines["A"].append(f"{t} Q0 d{rng.integers(10_000):05d}x{i} 0 {score!r} A")
            lines["B"].append(f"{t} Q0 d{i:05d} 0 {-rng.random():.17g} B")
    lines["B"].append("9 Q0 d00001 0 1.0 B")  # a topic the qrels lack
    for name, rows in lines.items():
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    (tmp_path / "q").write_text("1 0 d00003 1\n2 0 d00010 2\n3 0 d00299 0\n")
    files = [tmp_path / "A", tmp_path / "B"]
    got = data.load_runs(files, qrels=tmp_path / "q", precision=precision)
    qrels = data.read_qrels(tmp_path / "q")
    want = data.build_runset([data.read_run(f) for f in files], qrels, precision=precision)
    for field in ("offsets", "flat_grades", "flat_docs"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    assert list(got.vocab) == list(want.vocab) and got.ignored_topics == want.ignored_topics == {"B": ("9",)}


def test_duplicate_judgments_are_found_when_the_ids_hashes_collide(tmp_path, monkeypatch):
    from irrepro.data import _columns

    # every id hashes alike: only the exact comparison of (topic, doc) can tell them apart
    monkeypatch.setattr(_columns, "_hash_strings", lambda arr, salt=None: np.zeros(len(arr), dtype=np.uint64))
    p = tmp_path / "qrels"
    p.write_text("1 0 a 1\n2 0 a 1\n1 0 b 0\n2 0 b 1\n")
    assert len(data.read_qrels(p)) == 4
    p.write_text("1 0 a 1\n2 0 a 1\n1 0 b 0\n2 0 b 1\n2 0 a 0\n")
    with pytest.raises(
        DataError, match=r"line 5: duplicate judgment for document 'a' in topic '2' \(first at line 2"
    ):
        data.read_qrels(p)


def test_a_file_of_many_pieces_reads_as_one_and_a_late_nul_names_its_line(tmp_path, monkeypatch):
    from irrepro.data import _textfiles

    lines = "".join(f"{i % 7 + 1} Q0 doc{i} {i} {1.0 / (i + 1)} tag\n" for i in range(3000))
    p, q = tmp_path / "run.txt", tmp_path / "qrels.txt"
    p.write_text(lines)
    q.write_text("".join(f"{i % 7 + 1} 0 doc{i} {i % 3}\n" for i in range(0, 3000, 2)))
    whole, whole_q = data.read_run(p).table, data.read_qrels(q).table
    monkeypatch.setattr(_textfiles, "_CHUNK", 4096)  # read in pieces of 4 KiB: file and pipe
    assert isinstance(_textfiles._read_bytes(p, "run"), bytearray)
    assert whole.equals(data.read_run(p).table) and whole_q.equals(data.read_qrels(q).table)
    r, w = os.pipe()
    threading.Thread(target=lambda: (os.write(w, lines.encode()), os.close(w)), daemon=True).start()
    try:
        assert (
            whole.sort_values(["topic", "doc"])
            .reset_index(drop=True)
            .equals(data.read_run(f"/dev/fd/{r}").table.sort_values(["topic", "doc"]).reset_index(drop=True))
        )
    finally:
        os.close(r)
    p.write_text(lines + "1 Q0 d\x00 1 1.0 tag\n" + lines[:5000])
    with pytest.raises(DataError, match="line 3001: NUL byte"):
        data.read_run(p)
    p.write_text(lines.replace("doc2996 ", "doc0 ", 1))  # topic 1, as doc0: the slow pass names the line
    with pytest.raises(DataError, match="line 2997: duplicate document 'doc0' in topic '1'"):
        data.read_run(p)


def test_a_gzip_bomb_of_binary_data_is_refused_after_one_piece(tmp_path):
    """Zeros gzipped at level 1 (about 220 times smaller): refused at the first NUL byte of the
    first decompressed piece (at most one 64 MiB piece held), not after 100 times the file's size
    is decompressed into memory (the audit: 0.51 GB for a 4.7 MB file, and a MemoryError reported
    as 'corrupt or truncated')."""
    import tracemalloc
    import zlib

    bomb = tmp_path / "zeros.gz"
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(bomb, "wb") as f:
        for _ in range(600):
            f.write(c.compress(bytes(1 << 20)))
        f.write(c.flush())
    bound = GZIP_MAX_RATIO * bomb.stat().st_size + (1 << 20)
    assert bound > 200 << 20  # the ratio alone would let 200+ MiB be decompressed first
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match="line 1: NUL byte"):
            data.read_run(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 150 << 20, peak / 2**20
