"""The book's API reference builds as the book builds it - warnings and unresolved
cross-references are errors (``-W -n``) - so a docstring that would break ``make book`` fails
``make test`` first. Only the reference's pages are built (no notebook is executed): about 20 s."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _api_part() -> dict:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    (part,) = [p for p in toc["parts"] if p.get("caption") == "API reference"]
    return part


@pytest.mark.slow
def test_the_api_reference_builds_without_a_warning(tmp_path):
    (index,) = _api_part()["chapters"]
    toc = {"format": "jb-book", "root": index["file"], "chapters": index["sections"]}
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc))
    jb = Path(sys.executable).parent / "jupyter-book"
    assert jb.exists(), f"{jb}: jupyter-book is not installed (pip install -e '.[book]')"
    res = subprocess.run(
        [str(jb), "build", str(ROOT), "--toc", str(tmp_path / "_toc.yml"), "--path-output", str(tmp_path),
         "--builder", "html", "-W", "-n", "--keep-going"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    warnings = [
        line for line in (res.stdout + res.stderr).splitlines() if "WARNING" in line or "ERROR" in line
    ]
    assert res.returncode == 0 and not warnings, (
        "\n".join(warnings) or res.stdout[-3000:] + res.stderr[-3000:]
    )
    pages = {p.stem for p in (tmp_path / "_build" / "html" / "book" / "api").glob("*.html")}
    assert pages == {Path(s["file"]).name for s in index["sections"]} | {"index"}


def test_every_public_module_has_a_page_in_the_part():
    pages = {Path(s["file"]).name for s in _api_part()["chapters"][0]["sections"]}
    assert pages == {p.stem for p in (ROOT / "book" / "api").glob("*.md")} - {"index"}
