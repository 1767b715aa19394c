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


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m <tool> args`` from the repository's root, with this interpreter."""
    if importlib.util.find_spec(tool) is None:
        pytest.fail(f"{tool} is not installed in {sys.executable}: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check():
    res = _run("ruff", "check", "--no-cache", "--output-format", "concise", *TARGETS)
    assert res.returncode == 0, f"ruff check found problems:\n{res.stdout}{res.stderr}"


def test_ruff_format():
    res = _run("ruff", "format", "--check", "--no-cache", *TARGETS)
    assert res.returncode == 0, f"ruff format would change these files:\n{res.stdout}{res.stderr}"


@pytest.mark.slow  # from a fresh clone (no .mypy_cache) it checks the stubs of numpy, pandas, scipy: ~35 s
def test_mypy():
    res = _run("mypy", "irrepro")
    lines = res.stdout.splitlines()
    if res.returncode not in (0, 1) or (res.returncode == 1 and not any(": error:" in x for x in lines)):
        pytest.fail(f"mypy did not run (exit {res.returncode}):\n{res.stdout}{res.stderr}")
    errors = [x for x in lines if ": error:" in x]
    assert not errors, "mypy found errors:\n" + "\n".join(errors)
