"""No page of the built book shows a path of the machine that built it (issue 24, item 7): not the
project's directory, the home directory, a temporary directory or the data cache."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"


def machine_paths() -> dict[str, str]:
    """What this machine's paths look like: name -> a regular expression."""
    out = {
        "the project's directory": re.escape(str(ROOT)),
        "the home directory": re.escape(str(Path.home()).rstrip("/") + "/"),
        "a temporary directory": re.escape(tempfile.gettempdir().rstrip("/")) + r"/tmp\w+",
    }
    cache = os.environ.get("IRREPRO_CACHE", "")
    if os.path.isabs(cache):
        out["the data cache"] = re.escape(cache)
    return out


def leaks(site: Path, patterns: dict[str, str]) -> list[str]:
    """``page: what (the text)`` for every match of a machine path in the site's HTML."""
    found = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        for what, rx in patterns.items():
            for m in re.finditer(rx, text):
                found.append(f"{page.relative_to(site)}: {what} ({text[m.start() : m.end() + 40]!r})")
    return found


def test_the_leak_finder_finds_a_path_it_is_given(tmp_path):
    (tmp_path / "a.html").write_text("<p>qrels <code>/tmp/tmpab12cd/qrels.txt</code></p>")
    (tmp_path / "b.html").write_text("<p>runs in ~/trec6/adhoc-runs and ../_build/results</p>")
    found = leaks(tmp_path, {"a temporary directory": r"/tmp/tmp\w+"})
    assert len(found) == 1 and found[0].startswith("a.html: a temporary directory")


def test_no_page_shows_a_machine_path():
    if not (SITE / "index.html").is_file():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"no built site at {SITE}: run `make book` first")
        pytest.skip(f"no built site at {SITE}: run `make book` first")
    found = leaks(SITE, machine_paths())
    assert not found, "machine paths in the built pages:\n" + "\n".join(found[:20])
