"""The book's notebooks executed concurrently into myst-nb's cache before Sphinx reads them
(book/_ext/irrepro_sphinx.py, ``_pre_execute``; issue 30): a tiny Sphinx project with the book's
extension, built twice.

Concurrency is shown without timing anything: each notebook waits for the other to have started,
which only finishes when both run at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("myst_nb", reason="the book's extra (myst-nb) is not installed")
pytestmark = pytest.mark.slow  # each test runs Sphinx builds in processes of their own

EXT = Path(__file__).resolve().parents[1] / "book" / "_ext"

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# {title}

```{{code-cell}} ipython3
{code}
```
"""

WAIT = """import pathlib, time
here = pathlib.Path({here!r})
(here / "{me}.started").touch()
deadline = time.monotonic() + 120
while not (here / "{other}.started").exists():
    assert time.monotonic() < deadline, "{other} never ran beside {me}"
    time.sleep(0.05)
with open(here / "{me}.runs", "a") as f:
    f.write("x")
print("{me} done")"""


def _project(tmp_path: Path, pages: dict[str, str], conf: str = "") -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        conf + "\n" + f"import sys\nsys.path.insert(0, {str(EXT)!r})\n"
        "extensions = ['myst_nb', 'sphinx.ext.autodoc', 'sphinx_exercise', 'irrepro_sphinx']\n"
        "nb_execution_mode = 'cache'\n"
        f"nb_execution_cache_path = {str(tmp_path / 'cache')!r}\n"
        "nb_execution_raise_on_error = True\n"
        "exclude_patterns = ['_build']\n"
    )
    index = "# index\n\n```{toctree}\n" + "\n".join(pages) + "\n```\n"
    (src / "index.md").write_text(index)
    for name, code in pages.items():
        (src / f"{name}.md").write_text(HEADER.format(title=name, code=code))
    return src


def _build(src: Path, out: Path, **extra: str) -> subprocess.CompletedProcess:
    """``sphinx-build -E`` (a fresh environment) in a process of its own, two notebooks at a time
    (``extra``: more environment variables)."""
    env = {k: v for k, v in os.environ.items() if k != "IRREPRO_PRE_EXECUTED"}
    env |= {"IRREPRO_BOOK_JOBS": "2", **extra}
    cmd = [sys.executable, "-m", "sphinx", "-E", "-b", "html", str(src), str(out)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def test_notebooks_run_at_once_into_the_cache_and_a_rebuild_executes_nothing(tmp_path):
    here = tmp_path / "marks"
    here.mkdir()
    pages = {
        "a": WAIT.format(here=str(here), me="a", other="b"),
        "b": WAIT.format(here=str(here), me="b", other="a"),
    }
    src = _project(tmp_path, pages)
    # IRREPRO_PRE_EXECUTED (book/_ext/editions.py: the student edition's build waits for it): the
    # file says "ok" once every notebook is in the cache
    flag = tmp_path / "pre-executed"
    first = _build(src, tmp_path / "out1", IRREPRO_PRE_EXECUTED=str(flag))
    assert first.returncode == 0, first.stderr
    assert "executing 2 notebooks, 2 at a time" in first.stdout and flag.read_text() == "ok\n"
    # each executed once (by the pre-execution; Sphinx read both from the cache), both to the end
    assert (here / "a.runs").read_text() == "x" and (here / "b.runs").read_text() == "x"
    for name in pages:
        assert f"{name} done" in (tmp_path / "out1" / f"{name}.html").read_text()
    # a fresh environment on the same cache: nothing runs again
    flag.unlink()
    second = _build(src, tmp_path / "out2", IRREPRO_PRE_EXECUTED=str(flag))
    assert second.returncode == 0, second.stderr
    assert "executing" not in second.stdout and second.stdout.count("Using cached notebook") == 2
    assert (here / "a.runs").read_text() == "x" and (here / "b.runs").read_text() == "x"
    assert "a done" in (tmp_path / "out2" / "a.html").read_text() and flag.read_text() == "ok\n"
    # one page changed: with a build waiting, it is executed before Sphinx reads, not while it
    # reads (where the build beside would execute it again)
    (src / "a.md").write_text(HEADER.format(title="a", code="print('a again')"))
    flag.unlink()
    third = _build(src, tmp_path / "out3", IRREPRO_PRE_EXECUTED=str(flag))
    assert third.returncode == 0, third.stderr
    assert "executing 1 notebooks" in third.stdout and third.stdout.count("Using cached notebook") == 2
    assert "a again" in (tmp_path / "out3" / "a.html").read_text() and flag.read_text() == "ok\n"


def test_a_page_named_in_execute_after_starts_once_its_prerequisite_has_run(tmp_path):
    """``irrepro_execute_after``: "late" is first in the order but waits for "early"; the slot it
    would take runs "other" beside "early" (each of the two waits for the other to have started)."""
    here = tmp_path / "marks"
    here.mkdir()
    late = f"import pathlib\nassert (pathlib.Path({str(here)!r}) / 'early.finished').exists(), 'late ran before early'"
    early = WAIT.format(here=str(here), me="early", other="other") + "\n(here / 'early.finished').touch()"
    pages = {"late": late, "early": early, "other": WAIT.format(here=str(here), me="other", other="early")}
    conf = "irrepro_execute_first = ['late', 'early', 'other']\nirrepro_execute_after = {'late': 'early'}"
    src = _project(tmp_path, pages, conf)
    done = _build(src, tmp_path / "out", IRREPRO_PRE_EXECUTED=str(tmp_path / "flag"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "executing 3 notebooks, 2 at a time" in done.stdout and (tmp_path / "flag").read_text() == "ok\n"
    assert done.stdout.index("executed early.md") < done.stdout.index("executed late.md")


def test_a_failing_notebook_fails_the_build_with_its_error(tmp_path):
    pages = {"ok": "print('fine')", "bad": "raise ValueError('the chapter broke')"}
    src = _project(tmp_path, pages)
    done = _build(src, tmp_path / "out", IRREPRO_PRE_EXECUTED=str(tmp_path / "flag"))
    assert done.returncode != 0 and (tmp_path / "flag").read_text() == "failed\n"
    out = done.stdout + done.stderr
    assert "bad.md failed" in out and "ValueError: the chapter broke" in out, out
    # the good page was stored by the pre-execution, the failing one was not
    from jupyter_cache import get_cache

    uris = {Path(r.uri).name for r in get_cache(str(tmp_path / "cache")).list_cache_records()}
    assert uris == {"ok.md"}
