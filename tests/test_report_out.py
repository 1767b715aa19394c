"""``irrepro report --out``: irrepro deletes or overwrites only what it wrote and can prove it wrote
(issue 26, item 1), and every problem with ``--out`` is found before any analysis.

The report's files are drawn once (a small simulated run set); the tests write them with
``Report.write`` (its ``files`` patched to return them) or through the command line, with the
loading of the runs made to fail (nothing may be analysed before ``--out`` is checked). Every
expected digest is computed here with hashlib from the bytes on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import irrepro
from irrepro import _outputs, data, report
from irrepro._outputs import MARKER
from irrepro.cli import main as cli_main

pytestmark = pytest.mark.filterwarnings("error")  # any warning not expected here is an error


def _check_out(out, inputs=()):
    """What ``irrepro report`` checks of ``--out`` before any work."""
    return _outputs.check_dir(out, inputs=inputs, files=report.REPORT_FILES, what="report")


@pytest.fixture(scope="module")
def files(sim_runs_4x12):
    """The files of one small report (4 runs, 12 topics, quick scale), drawn once."""
    return report.analyse(sim_runs_4x12, scale="quick", progress=False).files()


@pytest.fixture
def rep(files, monkeypatch):
    """A Report whose ``write`` writes :func:`files` (its page is not drawn again)."""
    monkeypatch.setattr(report.Report, "files", lambda self: dict(files))
    return object.__new__(report.Report)


@pytest.fixture
def sim_dir(sim_dir, monkeypatch):
    """The runs and qrels on disk (conftest's ``sim_dir``), for the command line; reading them
    fails the test."""
    monkeypatch.setattr(
        report, "load", lambda *a, **k: pytest.fail("the runs were read before --out was checked")
    )
    return sim_dir


def _cli(sim_dir, out) -> int:
    return cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(out),
                     "--scale", "quick", "-q"])  # fmt: skip


def _tree(d: Path) -> dict[str, bytes | None]:
    """Every entry under ``d`` (hidden ones too) and its bytes (None: a directory or a link)."""
    out = {}
    for p in sorted(d.rglob("*")):
        out[str(p.relative_to(d))] = p.read_bytes() if p.is_file() and not p.is_symlink() else None
    return out


def _hidden(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith("."))


def _thesis(d: Path) -> Path:
    d.mkdir(parents=True)
    (d / "thesis.tex").write_text("\\chapter{Results}\n")
    (d / "figs").mkdir()
    (d / "figs" / "map.pdf").write_bytes(b"%PDF-1.5 not irrepro's")
    (d / "data").mkdir()
    (d / "data" / "runs.csv").write_text("run,score\n")
    return d


# ---- the manifest ------------------------------------------------------------------------------


def test_the_marker_is_a_manifest_of_every_file(rep, files, tmp_path):
    out = tmp_path / "out"
    assert rep.write(out) == out / "index.html"
    doc = json.loads((out / MARKER).read_text())
    listed = doc["files"]
    assert sorted(listed) == sorted(files) == sorted(p.name for p in out.iterdir() if p.name != MARKER)
    for name, entry in listed.items():
        blob = (out / name).read_bytes()
        assert entry == {"size": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
    assert "pending" not in doc and _hidden(tmp_path) == []


# ---- what is not an earlier report: nothing in it is deleted -----------------------------------


def test_a_thesis_directory_with_an_empty_marker_is_not_touched(rep, sim_dir, capsys):
    """The issue's worst case: thesis.tex, figs/ and data/ beside an empty .irrepro-report were
    wiped, subdirectories included, and nothing was said."""
    d = _thesis(sim_dir / "thesis")
    (d / MARKER).write_bytes(b"")
    before = _tree(d)
    message = "not an earlier irrepro report: its .irrepro-report file is empty, so irrepro cannot tell which"
    with pytest.raises(irrepro.InputError, match=f"^{re.escape(str(d))}: {message}"):
        rep.write(d)
    assert _cli(sim_dir, d) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"irrepro report: {d}: not an earlier irrepro report") and err.count("\n") == 1
    assert "data/, figs/, thesis.tex" in err
    assert _tree(d) == before and _hidden(sim_dir) == []


def test_a_copied_report_is_not_an_earlier_report(rep, files, tmp_path):
    """A report's index.html copied beside a paper's sources (titled "irrepro report") made the
    whole directory an earlier report, to be replaced."""
    d = tmp_path / "paper"
    d.mkdir()
    (d / "paper.tex").write_text("\\input{results}")
    (d / "index.html").write_text(files["index.html"])
    before = _tree(d)
    with pytest.raises(
        irrepro.InputError, match="index.html titled 'irrepro report' but no .irrepro-report manifest"
    ):
        rep.write(d)
    assert _tree(d) == before


@pytest.mark.parametrize("marker", [
    "irrepro report, written 2026-01-01 10:00 UTC; irrepro report --out replaces this directory as a whole.\n",
    '{"format": "irrepro report manifest", "version": 1, "files": {"../victim.txt": '
    '{"size": 1, "sha256": "' + hashlib.sha256(b"v").hexdigest() + '"}}}',
    '{"format": "irrepro report manifest", "version": 1, "files": []}',
    "not json at all {",
], ids=["before-0.2", "names-outside", "damaged", "not-json"])  # fmt: skip
def test_a_marker_that_proves_nothing_is_refused(rep, tmp_path, marker):
    d = tmp_path / "out"
    d.mkdir()
    (d / MARKER).write_text(marker)
    (d / "mine.txt").write_text("the user's")
    (tmp_path / "victim.txt").write_text("v")
    before = _tree(tmp_path)
    with pytest.raises(irrepro.InputError, match=f"^{re.escape(str(d))}: not an earlier irrepro report"):
        rep.write(d)
    assert _tree(tmp_path) == before


# ---- a rerun into an earlier report -------------------------------------------------------------


def test_a_rerun_removes_only_its_own_files_and_names_the_others(rep, files, tmp_path, monkeypatch):
    out = tmp_path / "out"
    earlier = dict(files, **{"p-10-per-topic.csv": "run,1\nA,0.5\n"})  # another measure's table
    monkeypatch.setattr(report.Report, "files", lambda self: earlier)
    rep.write(out)
    (out / "notes.txt").write_text("my notes")
    (out / "figs").mkdir()
    (out / "figs" / "edited.pdf").write_bytes(b"mine")
    monkeypatch.setattr(report.Report, "files", lambda self: dict(files))
    message = "left in place, not written by irrepro as this report or changed since it wrote them: figs/, notes.txt"
    with pytest.warns(UserWarning, match=f"^{re.escape(str(out))}: {message}$"):
        rep.write(out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*files, MARKER, "notes.txt", "figs"])
    assert (out / "notes.txt").read_text() == "my notes" and (
        out / "figs" / "edited.pdf"
    ).read_bytes() == b"mine"
    assert sorted(json.loads((out / MARKER).read_text())["files"]) == sorted(files)
    assert all((out / n).read_text() == t for n, t in files.items()) and _hidden(tmp_path) == []


def test_a_changed_file_of_the_earlier_report_is_kept(rep, files, tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setattr(
        report.Report, "files", lambda self: dict(files, **{"p-10-per-topic.csv": "irrepro's"})
    )
    rep.write(out)
    (out / "p-10-per-topic.csv").write_text("irrepro's, then edited by hand")
    monkeypatch.setattr(report.Report, "files", lambda self: dict(files))
    with pytest.warns(UserWarning, match="changed since it wrote them: p-10-per-topic.csv"):
        rep.write(out)
    assert (out / "p-10-per-topic.csv").read_text() == "irrepro's, then edited by hand"
    assert "p-10-per-topic.csv" not in json.loads((out / MARKER).read_text())["files"]


def test_a_changed_file_the_new_report_would_overwrite_is_refused_before_any_analysis(rep, sim_dir, capsys):
    out = sim_dir / "out"
    rep.write(out)
    (out / "runs.csv").write_text("edited by hand")
    (out / "index.html").unlink()
    (out / "index.html").mkdir()  # a directory where the report's page goes
    before = _tree(out)
    assert _cli(sim_dir, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"irrepro report: {out}: the report would overwrite index.html, runs.csv, which irrepro "
                          "did not write or which changed since it did")  # fmt: skip
    with pytest.raises(irrepro.InputError, match="would overwrite index.html, runs.csv"):
        rep.write(out)
    assert _tree(out) == before


# ---- every other problem with --out, before any analysis ---------------------------------------


def _out_cases(sim_dir: Path, rep) -> dict[str, tuple[Path, str]]:
    earlier = sim_dir / "earlier"
    rep.write(earlier)
    (sim_dir / "link").symlink_to(earlier, target_is_directory=True)
    (sim_dir / "dangling").symlink_to(sim_dir / "nowhere")
    name_max = os.pathconf(sim_dir, "PC_NAME_MAX")
    return {
        "symlink to a report": (
            sim_dir / "link",
            f"--out is a symbolic link (to {earlier}); irrepro replaces",
        ),
        "dangling symlink": (sim_dir / "dangling", "--out is a symbolic link (to "),
        "name too long": (
            sim_dir / ("r" * (name_max + 1)),
            f"has {name_max + 1} bytes, more than the {name_max} a file name may have here",
        ),
        "the runs directory": (sim_dir / "runs", "--out is the input directory"),
        "holding the inputs": (sim_dir, "--out contains the input directory"),
        "the qrels file": (sim_dir / "qrels.txt", "--out is the input file"),
        "a run file": (sorted((sim_dir / "runs").iterdir())[0], "--out is a file of the input directory"),
    }


def test_out_problems_are_refused_before_any_analysis(rep, sim_dir, capsys):
    cases = _out_cases(sim_dir, rep)
    before = _tree(sim_dir)
    for case, (out, message) in cases.items():
        assert _cli(sim_dir, out) == 2, case
        err = capsys.readouterr().err
        assert err.startswith(f"irrepro report: {out}: ") and message in err, (case, err)
        assert ".tmp" not in err.replace("XXXXXXXX.tmp", ""), err
    assert _tree(sim_dir) == before  # the link, the earlier report and the inputs as they were
    assert (sim_dir / "link").is_symlink()
    # a new directory inside the runs directory is fine: only its visible files are runs
    inside = sim_dir / "runs" / "report"
    assert _check_out(inside, inputs=[sim_dir / "runs", sim_dir / "qrels.txt"]) == inside


def test_out_errors_are_input_errors_naming_the_path_given(tmp_path, monkeypatch):
    """irrepro.InputError, naming --out as the user spelled it (not its absolute form)."""
    monkeypatch.chdir(tmp_path)
    Path("a-file").write_text("x")
    Path("read-only").mkdir()
    Path("read-only").chmod(0o555)
    # root may write anywhere: os.access answers as a user without privileges would
    monkeypatch.setattr(os, "access", lambda p, mode: bool(os.stat(p).st_mode & stat.S_IWUSR))
    try:
        for out, message in (("a-file", "--out names a file"), ("read-only", "the directory is not writable"),
                             ("a-file/sub", "cannot create the report there")):  # fmt: skip
            with pytest.raises(irrepro.InputError, match=f"^{out}: ") as exc:
                _check_out(out)
            assert message in str(exc.value)
    finally:
        Path("read-only").chmod(0o755)


def test_errors_while_writing_name_out_not_the_temporary_directory(rep, files, tmp_path, monkeypatch):
    out = tmp_path / "out"
    rep.write(out)
    before = _tree(out)

    def full(self, *a, **k):
        raise OSError(28, "No space left on device", str(self))

    with monkeypatch.context() as m:
        m.setattr(Path, "write_bytes", full)
        m.setattr(Path, "write_text", full)
        with pytest.raises(OSError, match="No space left on device") as exc:
            rep.write(out)
    assert exc.value.filename == str(out) and ".tmp" not in str(exc.value)
    assert _tree(out) == before and _hidden(tmp_path) == []
    real_rename = os.rename

    def broken(a, b):  # moving the finished report into place fails
        if str(a).endswith(".tmp"):
            raise OSError(5, "Input/output error", str(a))
        return real_rename(a, b)

    with monkeypatch.context() as m:
        m.setattr(os, "rename", broken)
        with pytest.raises(OSError, match="Input/output error") as exc:
            rep.write(tmp_path / "new")
    assert exc.value.filename == str(tmp_path / "new") and ".tmp" not in str(exc.value)
    assert _hidden(tmp_path) == [] and not (tmp_path / "new").exists()


# ---- leftovers of a report that was stopped ----------------------------------------------------


def _age(p: Path, seconds: float = 3600) -> None:
    t = time.time() - seconds
    os.utime(p, (t, t))


def test_stale_temporary_siblings_are_cleaned_or_named(rep, tmp_path):
    out = tmp_path / "out"
    complete = tmp_path / ".out.abcdefgh.tmp"  # a killed run's finished report, never moved in place
    rep.write(tmp_path / "x")
    os.rename(tmp_path / "x", complete)
    old = tmp_path / ".out.ijklmnop.old"  # the fallback's earlier report, moved aside
    old.mkdir()
    rep.write(old / "report")
    empty = tmp_path / ".out.qrstuvwx.tmp"  # killed right after it was made
    empty.mkdir()
    foreign = tmp_path / ".out.zzzzzzzz.tmp"  # not provably irrepro's
    foreign.mkdir()
    (foreign / "mine.txt").write_text("?")
    unrelated = tmp_path / ".out.y.abcdefgh.tmp"  # the sibling of a report named "out.y"
    rep.write(unrelated)
    for p in (complete, old, empty, foreign, unrelated):
        _age(p)
    recent = tmp_path / ".out.recent01.tmp"  # younger than this process: maybe a running report's
    recent.mkdir()
    message = (
        "left by an earlier irrepro report that was stopped; kept, as irrepro cannot prove it wrote mine.txt"
    )
    with pytest.warns(UserWarning, match=f"^{re.escape(str(foreign))}: {message}"):
        rep.write(out)
    assert _hidden(tmp_path) == sorted([foreign.name, unrelated.name, recent.name])
    assert (foreign / "mine.txt").read_text() == "?"


_KILL = """
import json, os, pathlib, sys
from irrepro import report
files = json.loads(pathlib.Path(sys.argv[1]).read_text())
where, n = sys.argv[3], int(sys.argv[4])
calls = [0]

def kill(orig):
    def f(*a, **k):
        calls[0] += 1
        if calls[0] == n:
            os._exit(9)  # as kill -9: no cleanup of any kind
        return orig(*a, **k)
    return f

if where == "write":
    pathlib.Path.write_bytes = kill(pathlib.Path.write_bytes)
    pathlib.Path.write_text = kill(pathlib.Path.write_text)
else:
    os.replace = kill(os.replace)
report.Report.files = lambda self: files
report.Report.write(object.__new__(report.Report), sys.argv[2])
"""


def _killed(files: dict, out: Path, where: str, n: int) -> int:
    (out.parent / "files.json").write_text(json.dumps(files))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(irrepro.__file__).parents[1]),
                                                       os.environ.get("PYTHONPATH", "")]))  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", _KILL, str(out.parent / "files.json"), str(out), where, str(n)],
                          env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    (out.parent / "files.json").unlink()
    return proc.returncode


def test_a_report_killed_while_writing_leaves_the_earlier_one_and_nothing_unprovable(rep, files, tmp_path):
    out = tmp_path / "out"
    rep.write(out)
    before = _tree(out)
    assert _killed(dict(files, **{"index.html": "a newer page"}), out, "write", 3) == 9
    assert _tree(out) == before  # the earlier report, whole
    (left,) = [tmp_path / n for n in _hidden(tmp_path)]  # the killed run's temporary sibling
    _age(left)
    rep.write(out)  # removed, file by file, by its manifest: no warning
    assert _hidden(tmp_path) == []
    after = _tree(out)
    manifest = [json.loads(t.pop(MARKER))["files"] for t in (after, before)]
    assert after == before and manifest[0] == manifest[1]  # the same files, rewritten


def test_a_report_killed_while_moving_in_beside_user_files_loses_nothing(rep, files, tmp_path):
    """Where --out also holds a user's file the new files are moved in one by one; killed
    half-way, the directory's manifest still proves every file irrepro wrote."""
    out = tmp_path / "out"
    rep.write(out)
    (out / "notes.txt").write_text("my notes")
    newer = {n: t + "\n" for n, t in files.items()}  # every file differs from the earlier one
    assert _killed(newer, out, "replace", 3) == 9  # after the first move of a new file
    for n in _hidden(tmp_path):
        _age(tmp_path / n)
    with pytest.warns(UserWarning, match="left in place.*: notes.txt$"):
        rep.write(out)  # the rerun finds only files it can prove beside the user's
    assert (out / "notes.txt").read_text() == "my notes"
    assert sorted(p.name for p in out.iterdir()) == sorted([*files, MARKER, "notes.txt"])
    assert all((out / n).read_text() == t for n, t in files.items()) and _hidden(tmp_path) == []


def test_a_runs_directory_and_qrels_whose_names_are_not_utf8_give_a_report(tmp_path):
    """A runs directory and qrels named with bytes that are not UTF-8 (Linux keeps them as lone
    surrogates): the report is written, the names shown as \\xNN on its page (the audit: 'utf-8'
    codec can't encode character '\\udcff', after all the analyses)."""
    rs = data.synthetic.runs(4, 12, list_length=30, seed=1)
    runs, qrels = os.fsdecode(bytes(tmp_path) + b"/nu\xffdir"), os.fsdecode(bytes(tmp_path) + b"/q\xe9.txt")
    data.synthetic.write_trec(rs, Path(runs), qrels=Path(qrels))
    out = tmp_path / "rep"
    assert cli_main(["report", runs, "--qrels", qrels, "--out", str(out), "--scale", "quick", "-q"]) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "q\\xe9.txt" in page


def test_an_empty_out_is_refused_as_empty(sim_dir):
    """--out '' was read as '.' and refused for holding the runs (the audit): it is empty."""
    with pytest.raises(irrepro.InputError, match="--out is empty"):
        _check_out("")
    assert _cli(sim_dir, "") == 2
