"""Every figure of the book is a numbered MyST figure with a caption and alt text (issue 24, item 2):
each code cell of a page that draws at top level carries myst-nb's ``figure`` (``name``,
``caption``) and ``image`` (``alt``) cell metadata, and the names are unique within the book. (A
figure a chapter draws for a sub-page, ``book.aside(<figure>, ...)``, is captioned where it is pasted.)"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("notebooks/*.md"), *ROOT.glob("book/*.md")])
#: a top-level line (not in a function) that draws or shows a figure
_DRAWS = re.compile(r"plt\.show\(\)|plots\.plot_\w+\(|plt\.subplots\(")


def _figure_cells(path: Path):
    nb = jupytext.read(path)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        top = [line for line in cell.source.splitlines() if not line.startswith((" ", "\t", "def ", "#"))]
        if any(_DRAWS.search(line) for line in top) and "book.aside(" not in cell.source:
            yield k, cell.metadata.get("mystnb", {})


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_figure_cell_has_a_name_a_caption_and_alt_text(path):
    missing = [
        k
        for k, meta in _figure_cells(path)
        if not (
            meta.get("figure", {}).get("name")
            and meta.get("figure", {}).get("caption")
            and meta.get("image", {}).get("alt")
        )
    ]
    assert not missing, f"{path.name}: figure cells {missing} lack a name, caption or alt text"


def test_figure_names_are_unique_in_the_book():
    names = [meta["figure"]["name"] for p in PAGES for _, meta in _figure_cells(p) if "figure" in meta]
    assert names and len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
