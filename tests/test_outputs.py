"""The one output guard of every command that writes (issue 41, items 1, 2 and 8): ``irrepro design
--out DIR``, ``compare --methods-file FILE`` and ``standardize --export-zscores FILE`` never write
into or over an input, never overwrite a file irrepro did not write, and refuse before any work;
manifests are read within limits; every legal ``--out`` name is accepted.

Each refusal is checked on the bytes of every file under the test's directory before and after (the
user's files unchanged, nothing left behind), and through the command line's exit status and
one-line message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from irrepro import _outputs, data, report
from irrepro.cli import main as cli_main
from irrepro.errors import InputError

pytestmark = pytest.mark.filterwarnings("error")  # any warning not expected here is an error


def _check_out(out, inputs=()):
    """What ``irrepro report`` checks of ``--out`` before any work."""
    return _outputs.check_dir(out, inputs=inputs, files=report.REPORT_FILES, what="report")


def _tree(d: Path) -> dict[str, bytes | None]:
    """Every entry under ``d`` (hidden ones too) and its bytes (None: a directory or a link)."""
    return {str(p.relative_to(d)): p.read_bytes() if p.is_file() and not p.is_symlink() else None
            for p in sorted(d.rglob("*"))}  # fmt: skip


def _no_work(monkeypatch):
    """Reading the runs fails the test: every refusal must come before any work."""
    import irrepro._user_inputs

    monkeypatch.setattr(irrepro._user_inputs, "load", lambda *a, **k: pytest.fail("the runs were read"))


def _design(sim_dir, out):
    return ["design", sim_dir / "runs", "--qrels", sim_dir / "qrels.txt", "-m", "P@10", "--min-diff", "0.1", "-B", "0",
            "--out", out]  # fmt: skip


def _compare(sim_dir, target):
    return [
        "compare",
        sim_dir / "runs",
        "--qrels",
        sim_dir / "qrels.txt",
        "-m",
        "AP",
        "--methods-file",
        target,
    ]


def _export(sim_dir, target):
    return [
        "standardize",
        sim_dir / "runs",
        "--qrels",
        sim_dir / "qrels.txt",
        "-m",
        "AP",
        "--export-zscores",
        target,
    ]


def _a_run(sim_dir) -> Path:
    return sorted((sim_dir / "runs").iterdir())[0]


# ---- every command that writes: never into or over an input, never over a user's file ------------


def _refusals(sim_dir: Path) -> dict[str, list[tuple[list, str]]]:
    """Per command, (arguments, words of the message) of every target it must refuse."""
    (sim_dir / "mine").mkdir()
    (sim_dir / "mine" / "topics.csv").write_text("my,own,table\n")
    (sim_dir / "notes.md").write_text("my notes\n")
    os.link(sim_dir / "qrels.txt", sim_dir / "qrels-link.txt")
    (sim_dir / "to-notes").symlink_to(sim_dir / "notes.md")
    return {
        "design": [
            (_design(sim_dir, sim_dir / "runs"), "--out is the input directory"),
            (_design(sim_dir, sim_dir), "--out contains the input directory"),
            (_design(sim_dir, sim_dir / "qrels.txt"), "--out is the input file"),
            (
                _design(sim_dir, sim_dir / "mine"),
                "not an irrepro design output (no .irrepro-report file) and not empty",
            ),
        ],
        "compare": [
            (_compare(sim_dir, sim_dir / "qrels.txt"), "--methods-file is the input file"),
            (_compare(sim_dir, sim_dir / "qrels-link.txt"), "--methods-file is the input file"),
            (_compare(sim_dir, _a_run(sim_dir)), "--methods-file is a file of the input directory"),
            (_compare(sim_dir, sim_dir / "runs" / "methods.md"), "is a file of the input directory"),
            (_compare(sim_dir, sim_dir / "notes.md"), "the file exists and irrepro did not write it"),
            (_compare(sim_dir, sim_dir / "to-notes"), "is a symbolic link"),
            (_compare(sim_dir, sim_dir / "runs"), "--methods-file is the input directory"),
            (_compare(sim_dir, sim_dir / "mine"), "names a directory, not a file"),
            (_compare(sim_dir, sim_dir / "nowhere" / "m.md"), "does not exist"),
            (_compare(sim_dir, sim_dir / ".irrepro-files"), "is the name of irrepro's own record"),
        ],
        "standardize": [
            (_export(sim_dir, _a_run(sim_dir)), "--export-zscores is a file of the input directory"),
            (_export(sim_dir, sim_dir / "qrels.txt"), "--export-zscores is the input file"),
            (_export(sim_dir, sim_dir / "runs" / "z.txt"), "is a file of the input directory"),
            (_export(sim_dir, sim_dir / "notes.md"), "the file exists and irrepro did not write it"),
            (
                [
                    "standardize",
                    *sorted((sim_dir / "runs").iterdir()),
                    "--qrels",
                    sim_dir / "qrels.txt",
                    "-m",
                    "AP",
                    "--export-zscores",
                    _a_run(sim_dir),
                ],
                "--export-zscores is the input file",
            ),
        ],
    }


@pytest.mark.parametrize("command", ["design", "compare", "standardize"])
def test_outputs_never_go_into_or_over_inputs_or_users_files(command, sim_dir, run_cli, monkeypatch):
    cases = _refusals(sim_dir)[command]
    before = _tree(sim_dir)
    _no_work(monkeypatch)
    for args, words in cases:
        rc, out, err = run_cli(args)
        target = str(args[-1])
        assert rc == 2 and out == "", (args, err)
        assert err.startswith(f"irrepro {command}: {target}: ") and words in err, (words, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert _tree(sim_dir) == before  # every input and every file of the user's as it was, nothing added


def test_design_writes_its_own_directory_and_replaces_only_its_own_files(sim_dir, run_cli):
    out = sim_dir / "plan"
    rc, _, err = run_cli(_design(sim_dir, out))
    assert rc == 0, err
    assert sorted(p.name for p in out.iterdir()) == [".irrepro-report", "power-curve.png", "topics.csv"]
    listed = json.loads((out / ".irrepro-report").read_text())["files"]
    assert sorted(listed) == ["power-curve.png", "topics.csv"]
    (out / "my-notes.txt").write_text("kept")
    with pytest.warns(
        UserWarning, match="left in place, not written by irrepro as this design output.*my-notes.txt"
    ):
        rc, _, err = run_cli(_design(sim_dir, out))
    assert rc == 0, err
    assert (out / "my-notes.txt").read_text() == "kept"
    # the table changed by the user is no longer irrepro's: refused before any work, and kept
    (out / "topics.csv").write_text("edited by hand\n")
    rc, _, err = run_cli(_design(sim_dir, out))
    assert rc == 2 and "would overwrite topics.csv, which irrepro did not write or which changed" in err
    assert (out / "topics.csv").read_text() == "edited by hand\n"
    # a new directory inside the runs directory is fine (only its visible files are runs), and the runs
    # directory then still reads as before
    rc, _, err = run_cli(_design(sim_dir, sim_dir / "runs" / "plan"))
    assert rc == 0, err
    assert len(data.run_files(sim_dir / "runs")) == 4


@pytest.mark.parametrize("command", ["compare", "standardize"])
def test_a_file_irrepro_wrote_is_overwritten_and_recorded(command, sim_dir, run_cli):
    target = sim_dir / "out.txt"
    args = _compare(sim_dir, target) if command == "compare" else _export(sim_dir, target)
    rc, _, err = run_cli(args)
    assert rc == 0, err
    first = target.read_bytes()
    record = json.loads((sim_dir / ".irrepro-files").read_text())
    assert record["format"] == "irrepro files record" and list(record["files"]) == ["out.txt"]
    assert record["files"]["out.txt"]["size"] == len(first)
    rc, _, err = run_cli(args)  # irrepro's own file: replaced
    assert rc == 0, err and target.read_bytes() == first
    target.write_bytes(first + b"% my edit\n")  # changed since: no longer provably irrepro's
    rc, _, err = run_cli(args)
    assert rc == 2 and "the file exists and irrepro did not write it (or it changed since)" in err
    assert target.read_bytes().endswith(b"% my edit\n")
    assert sorted(p.name for p in sim_dir.iterdir()) == [".irrepro-files", "out.txt", "qrels.txt", "runs"]


def test_a_file_target_may_be_a_device(sim_dir, run_cli):
    rc, out, err = run_cli(_compare(sim_dir, "/dev/null"))
    assert rc == 0, err
    assert "methods paragraph: /dev/null" in err


def test_the_file_guard_from_python(tmp_path):
    """write_file: a temporary sibling renamed over the target (nothing left behind), under the
    umask; a forged record entry proves nothing (its digest must match)."""
    target = tmp_path / "m.md"
    _outputs.write_file(_outputs.check_file(target), "text")
    assert target.read_text() == "text" and sorted(p.name for p in tmp_path.iterdir()) == [
        ".irrepro-files",
        "m.md",
    ]
    assert target.stat().st_mode & 0o777 == 0o666 & ~_outputs._umask()
    (tmp_path / "yours.md").write_text("yours")
    doc = json.loads((tmp_path / ".irrepro-files").read_text())
    doc["files"]["yours.md"] = {"size": 5, "sha256": "0" * 64}
    (tmp_path / ".irrepro-files").write_text(json.dumps(doc))
    with pytest.raises(InputError, match="irrepro did not write it"):
        _outputs.check_file(tmp_path / "yours.md")
    assert (tmp_path / "yours.md").read_text() == "yours"


# ---- manifests read within limits ---------------------------------------------------------------

_NESTED = ("[" * 200_000 + "]" * 200_000).encode()  # 400 KB: deeper than Python's recursion limit


@pytest.mark.parametrize(
    "marker",
    [
        _NESTED,
        b'{"format": "irrepro report manifest", "version": 1, "files": {"a": {"size": NaN}}}',
        b'{"format": "irrepro report manifest", "version": 1, "files": {"a": {"size": '
        + b"9" * 5000
        + b"}}}",
        b'{"format": "irrepro report manifest", "version": 1, "files": {"a": [[[[[1]]]]]}}',
    ],
    ids=["nested-400KB", "NaN", "huge-int", "deep-entry"],
)
def test_a_hostile_manifest_is_not_a_manifest_never_a_traceback(marker, tmp_path, capsys, monkeypatch):
    m = _outputs._read_manifest(_write(tmp_path / "a", marker))
    assert m.listed is None and ".irrepro-report" in m.reason
    out = _write(tmp_path / "out", marker)
    (out / "index.html").write_text("x")
    before = _tree(tmp_path)
    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    rc = cli_main(["report", str(tmp_path / "a"), "--qrels", "q", "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and "not an earlier irrepro report" in err and "Traceback" not in err, err
    assert _tree(tmp_path) == before


def _write(d: Path, marker: bytes) -> Path:
    d.mkdir()
    (d / _outputs.MARKER).write_bytes(marker)
    return d


def test_a_hostile_manifest_in_a_stale_sibling_does_not_stop_a_later_report(tmp_path):
    """A killed report's temporary sibling holding a hostile manifest: named in a warning and
    kept; the new report is written."""
    out = tmp_path / "out"
    stale = tmp_path / (_outputs.temp_stem("out") + "abcd1234.tmp")
    _write(stale, _NESTED)
    os.utime(stale, (0, 0))  # older than this process
    with pytest.warns(UserWarning, match="left by an earlier irrepro report that was stopped"):
        _outputs.write_dir(out, {"index.html": "new"})
    assert (out / "index.html").read_text() == "new"
    assert (stale / _outputs.MARKER).read_bytes() == _NESTED


# ---- every legal name is accepted --------------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 1, 13, 14])
def test_every_legal_out_name_is_accepted_and_its_leftovers_found(extra, tmp_path):
    """Names up to NAME_MAX bytes (the hidden sibling's name is then cut and hashed); a rerun
    replaces the report, and a stale sibling of a killed run of that name is cleaned."""
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    name = "é" * ((name_max - extra) // 2) + "r" * ((name_max - extra) % 2)  # two bytes each, in UTF-8
    assert len(os.fsencode(name)) == name_max - extra
    out = _check_out(tmp_path / name)
    _outputs.write_dir(out, {"index.html": "first"})
    stem = _outputs.temp_stem(name, name_max)
    assert len(os.fsencode(stem)) + 12 <= name_max
    stale = tmp_path / (stem + "abcd1234.tmp")
    _outputs.write_dir(stale, {"index.html": "killed"})  # a killed run's sibling, with its manifest
    os.utime(stale, (0, 0))
    _outputs.write_dir(_check_out(tmp_path / name), {"index.html": "second"})
    assert (out / "index.html").read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # the stale sibling removed, nothing left
    # a sibling of another name is not taken for this one's
    assert _outputs._temp_pattern(name + "x", name_max).fullmatch(stem + "abcd1234.tmp") is None


# ---- what an attacker plants beside an output (the audit of issue 41) ---------------------------


def test_a_planted_stale_sibling_linking_to_another_output_deletes_nothing(sim_dir, run_cli):
    """A killed run's fallback sibling ``.NAME.XXXXXXXX.old/report`` planted as a symbolic link to
    another irrepro output: named in a warning, and that output left whole (it was emptied)."""
    victim = sim_dir / "victim"
    assert run_cli(_design(sim_dir, victim))[0] == 0
    before = _tree(victim)
    shared = sim_dir / "shared"
    old = shared / (_outputs.temp_stem("out") + "abcd1234.old")
    old.mkdir(parents=True)
    (old / "report").symlink_to(victim, target_is_directory=True)
    os.utime(old / "report", (0, 0), follow_symlinks=False)
    os.utime(old, (0, 0))
    stale = shared / (_outputs.temp_stem("out") + "efgh5678.tmp")
    stale.symlink_to(victim, target_is_directory=True)  # a linked .tmp sibling: not even looked into
    with pytest.warns(UserWarning, match="left by an earlier irrepro report that was stopped"):
        rc, _, err = run_cli(_design(sim_dir, shared / "out"))
    assert rc == 0, err
    assert _tree(victim) == before and len(before) == 3
    assert (old / "report").is_symlink() and stale.is_symlink()


def test_the_record_is_never_written_through_a_planted_link(sim_dir, run_cli):
    """The record's temporary file has a name nobody can plant beforehand (the pid-named one was
    written through a link to the qrels); a record that is itself a link proves nothing."""
    qrels = (sim_dir / "qrels.txt").read_bytes()
    for pid in range(os.getpid() - 50, os.getpid() + 50):
        (sim_dir / f".irrepro-files.{pid}.tmp").symlink_to(sim_dir / "qrels.txt")
    assert run_cli(_compare(sim_dir, sim_dir / "m.md"))[0] == 0
    assert (sim_dir / "qrels.txt").read_bytes() == qrels
    assert not (sim_dir / ".irrepro-files").is_symlink()
    assert json.loads((sim_dir / ".irrepro-files").read_text())["files"].keys() == {"m.md"}
    # a record replaced by a link to a forged one: not a regular file, so m.md is no longer provably irrepro's
    forged = sim_dir / "forged.json"
    forged.write_bytes((sim_dir / ".irrepro-files").read_bytes())
    (sim_dir / ".irrepro-files").unlink()
    (sim_dir / ".irrepro-files").symlink_to(forged)
    rc, _, err = run_cli(_compare(sim_dir, sim_dir / "m.md"))
    assert rc == 2 and "irrepro did not write it" in err


@pytest.mark.parametrize("command", ["compare", "standardize"])
def test_a_file_name_ending_in_a_slash_names_a_directory(command, sim_dir, run_cli, monkeypatch):
    _no_work(monkeypatch)
    before = _tree(sim_dir)
    for target in ("newdir/", f"{sim_dir}/runs/", "x/.", "x/.."):
        args = _compare(sim_dir, target) if command == "compare" else _export(sim_dir, target)
        rc, _, err = run_cli(args)
        assert rc == 2 and "names a directory" in err, err
    assert _tree(sim_dir) == before


def test_one_commands_output_is_never_replaced_by_anothers(sim_dir, run_cli, capsys, monkeypatch):
    """A design into a report's directory, or a report into a design's: refused, before any work,
    saying what the directory holds; each manifest says which command wrote it."""
    rep, plan = sim_dir / "rep", sim_dir / "plan"
    assert cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(rep),
                     "--scale", "quick", "-q"]) == 0  # fmt: skip
    assert run_cli(_design(sim_dir, plan))[0] == 0
    assert json.loads((plan / ".irrepro-report").read_text())["written_by"] == "design output"
    assert json.loads((rep / ".irrepro-report").read_text())["written_by"] == "report"
    before = _tree(sim_dir)
    _no_work(monkeypatch)
    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    rc, _, err = run_cli(_design(sim_dir, rep))
    assert rc == 2 and "an earlier irrepro report (so its manifest says), not a design output" in err
    rc = cli_main(
        ["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(plan), "-q"]
    )
    assert (
        rc == 2
        and "an earlier irrepro design output (so its manifest says), not a report" in capsys.readouterr().err
    )
    assert _tree(sim_dir) == before


def test_a_reports_own_file_is_named_as_such(sim_dir, run_cli):
    rep = sim_dir / "rep"
    assert cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(rep),
                     "--scale", "quick", "-q"]) == 0  # fmt: skip
    rc, _, err = run_cli(_compare(sim_dir, rep / "methods.md"))
    assert rc == 2 and "a file of an irrepro report (its .irrepro-report lists it)" in err


def test_a_read_only_file_system_is_named(sim_dir, run_cli, monkeypatch):
    """An earlier output on a read-only file system: said so, not "mode 755" (statvfs's flag, as a
    read-only mount sets it; root may write anywhere, so os.access answers as for a read-only mount)."""
    plan = sim_dir / "plan"
    assert run_cli(_design(sim_dir, plan))[0] == 0

    class _ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(os, "access", lambda p, mode: False)
    monkeypatch.setattr(os, "statvfs", lambda p: _ReadOnly())
    _no_work(monkeypatch)
    rc, _, err = run_cli(_design(sim_dir, plan))
    assert rc == 2 and f"{plan}: it is on a read-only file system" in err, err


@pytest.mark.parametrize("command", ["compare", "design", "report"])
@pytest.mark.parametrize("measure", ["gm_map", "G_AP", "gm_P@10"])
def test_a_geometric_mean_over_topics_is_refused_by_methods_on_per_topic_scores(command, measure, sim_dir, run_cli,
                                                                               monkeypatch):  # fmt: skip
    """compare printed AP's means under the heading gm_map (the matrix's per-topic values are AP's):
    every command whose method works on per-topic scores refuses a summary, naming the per-topic
    measure, before any work."""
    _no_work(monkeypatch)
    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    args = {"compare": ["compare", sim_dir / "runs", "--qrels", sim_dir / "qrels.txt", "-m", measure],
            "design": ["design", sim_dir / "runs", "--qrels", sim_dir / "qrels.txt", "-m", measure, "--min-diff", "0.1",
                       "--out", sim_dir / "plan"],
            "report": ["report", sim_dir / "runs", "--qrels", sim_dir / "qrels.txt", "-m", measure, "--out", sim_dir / "r"]}  # fmt: skip
    rc, out, err = run_cli(args[command])
    base = "P@10" if "P@10" in measure else "AP"
    assert (
        rc == 2
        and out == ""
        and f"is {'Sakai' if measure.startswith('G_') else 'trec_eval'}'s geometric mean" in err
    )
    assert f"give the per-topic measure, -m {base}" in err
