"""The linter, the formatter and the type checker, as `make test` and CI run them: ``ruff check`` and
``ruff format --check`` on the package, the tests, the benchmarks and the book's Sphinx extension,
``mypy irrepro``; each with the configuration in pyproject.toml, each failing with the tool's own
output. The tools come with the ``test`` extra (``pip install -e ".[test]"``); without them these
tests fail, saying so, rather than skip."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ["irrepro", "tests", "benchmarks", "book/_ext"]

# TEMPORARY (issue 27 merge; the lead empties this list once the branches are in): the files other
# helpers were moving while ruff and mypy came in. ruff check skips them and mypy's errors in them
# are not counted; everything else is checked in full.
PENDING: list[str] = []
# TEMPORARY (issue 27 merge): True until the lead has run `ruff format irrepro tests benchmarks
# book/_ext` once after the merges; then False. While True the format check is an expected failure
# (strict: it fails the run as soon as the tree is formatted, so that this flag is not forgotten).
FORMAT_PENDING = True


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m <tool> args`` from the repository's root, with this interpreter."""
    if importlib.util.find_spec(tool) is None:
        pytest.fail(f"{tool} is not installed in {sys.executable}: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True)


def _pending(path: str) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in PENDING)


def test_ruff_check():
    exclude = [f"{p}*" if p.endswith("/") else p for p in PENDING]
    args = ["--force-exclude", *(["--extend-exclude", ",".join(exclude)] if exclude else [])]
    res = _run("ruff", "check", "--no-cache", "--output-format", "concise", *args, *TARGETS)
    assert res.returncode == 0, f"ruff check found problems:\n{res.stdout}{res.stderr}"


@pytest.mark.xfail(FORMAT_PENDING, strict=True, reason="FORMAT_PENDING: the tree is not formatted yet")
def test_ruff_format():
    res = _run("ruff", "format", "--check", "--no-cache", *TARGETS)
    assert res.returncode == 0, f"ruff format would change these files:\n{res.stdout}{res.stderr}"


def test_mypy():
    res = _run("mypy", "irrepro")
    lines = res.stdout.splitlines()
    if res.returncode not in (0, 1) or (res.returncode == 1 and not any(": error:" in x for x in lines)):
        pytest.fail(f"mypy did not run (exit {res.returncode}):\n{res.stdout}{res.stderr}")
    errors = [x for x in lines if ": error:" in x and not _pending(x.split(":", 1)[0])]
    assert not errors, "mypy found errors:\n" + "\n".join(errors)
