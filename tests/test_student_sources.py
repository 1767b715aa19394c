"""The student edition's sources without the solutions (book/_ext/irrepro_solutions.py, issue 44):
``strip_solutions`` on MyST text and on notebooks, executed or not, and on the book's own pages."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext", reason="the book's extra (jupytext) is not installed")
nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from irrepro_solutions import strip_solutions  # noqa: E402

PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A chapter

```{code-cell} ipython3
x = 1
```

## Exercises

```{exercise} First
:label: ex-1
What is x + 1?
```

```{solution-start} ex-1
:class: dropdown
```

```{code-cell} ipython3
answer_one = x + 1
print(answer_one)
```

Gated prose of the first solution.

```{solution-end}
```

```{exercise} Second
:label: ex-2
Why?
```

````{solution} ex-2
:class: dropdown
Block prose of the second solution.
```python
block_code_of_the_second_solution()
```
````

:::{solution} ex-3
Colon-fenced prose of the third solution.
:::

Prose after the exercises.

```{code-cell} ipython3
y = x * 2
```
"""

SOLUTION_TEXTS = [
    "answer_one",
    "Gated prose",
    "Block prose",
    "block_code_of_the_second_solution",
    "Colon-fenced",
    "solution-start",
    "solution-end",
    "{solution}",
]
KEPT_TEXTS = [
    "# A chapter",
    "x = 1",
    ":label: ex-1",
    "What is x + 1?",
    ":label: ex-2",
    "Prose after",
    "y = x * 2",
]


def test_a_page_loses_its_solutions_and_keeps_everything_else():
    out = strip_solutions(PAGE)
    for text in SOLUTION_TEXTS:
        assert text in PAGE and text not in out, text
    for text in KEPT_TEXTS:
        assert text in out, text
    assert out.startswith(PAGE[: PAGE.index("# A chapter")])  # the front matter as it was
    assert "\n\n\n" not in out  # one blank line where a solution was
    assert strip_solutions(out) == out


def test_a_page_without_solutions_is_left_as_it_is():
    page = (
        PAGE[: PAGE.index("## Exercises")]
        + "Text with `{solution}` quoted inline.\n\n    {solution-start} indented code\n"
    )
    assert strip_solutions(page) == page


def _executed(nb):
    """``nb`` with an output on each code cell, as an executed notebook has."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"out of {cell.source}\n")]
    return nb


def test_a_notebook_loses_the_solution_cells_and_their_outputs():
    nb = _executed(jupytext.reads(PAGE, "md:myst"))
    out = strip_solutions(nb)
    code = [c.source for c in out.cells if c.cell_type == "code"]
    assert code == ["x = 1", "y = x * 2"]
    assert [c.outputs[0].text for c in out.cells if c.cell_type == "code"] == [
        "out of x = 1\n",
        "out of y = x * 2\n",
    ]
    text = nbformat.writes(out)
    for t in SOLUTION_TEXTS:
        assert t not in text, t
    for t in KEPT_TEXTS:
        assert t in text, t
    assert any("answer_one" in c.source for c in nb.cells), "the input was changed"
    nbformat.validate(out)
    # the same cells as the notebook of the stripped page
    assert code == [
        c.source for c in jupytext.reads(strip_solutions(PAGE), "md:myst").cells if c.cell_type == "code"
    ]


def test_a_gated_solution_may_open_and_close_in_the_middle_of_markdown_cells():
    cells = [
        nbformat.v4.new_markdown_cell("Before.\n\n```{solution-start} ex-1\n:class: dropdown\n```\n"),
        nbformat.v4.new_code_cell("solution_code()"),
        nbformat.v4.new_markdown_cell("Only solution prose."),
        nbformat.v4.new_raw_cell("raw solution text"),
        nbformat.v4.new_code_cell("more_solution_code()"),
        nbformat.v4.new_markdown_cell("Last solution words.\n\n```{solution-end}\n```\n\nAfter."),
        nbformat.v4.new_code_cell("kept()"),
    ]
    out = strip_solutions(nbformat.v4.new_notebook(cells=cells))
    assert [(c.cell_type, c.source.strip()) for c in out.cells] == [
        ("markdown", "Before."),
        ("markdown", "After."),
        ("code", "kept()"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "```{solution-start} ex-1\n```\n\nNo end.\n",
        "```{solution-end}\n```\n",
    ],
    ids=["start without end", "end without start"],
)
def test_an_unbalanced_gated_solution_is_an_error(text):
    with pytest.raises(ValueError, match="without"):
        strip_solutions(text)
    with pytest.raises(ValueError, match="without"):
        strip_solutions(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)]))


PAGES = sorted(
    p
    for p in [*ROOT.glob("notebooks/*.md"), *ROOT.glob("book/*.md")]
    if re.search(r"^[`:]{3,}\{solution", p.read_text(encoding="utf-8"), re.M)
)


def _gated_code_cells(text: str) -> int:
    """The code cells between ``solution-start`` and ``solution-end`` lines (a line scan)."""
    inside, n = False, 0
    for line in text.splitlines():
        if re.match(r"[`:]{3,}\{solution-start\}", line):
            inside = True
        elif re.match(r"[`:]{3,}\{solution-end\}", line):
            inside = False
        elif inside and re.match(r"`{3,}\{code-cell\}", line):
            n += 1
    return n


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_books_pages_lose_every_solution_and_keep_every_exercise(page):
    full = page.read_text(encoding="utf-8")
    out = strip_solutions(full)
    assert not re.search(r"\{solution(-start|-end)?\}", out)
    labels = re.findall(r"^:label: (ex-\S+)", full, re.M)
    assert labels and re.findall(r"^:label: (ex-\S+)", out, re.M) == labels
    n_code = len(re.findall(r"^`{3,}\{code-cell\}", full, re.M))
    assert len(re.findall(r"^`{3,}\{code-cell\}", out, re.M)) == n_code - _gated_code_cells(full)
    nb = strip_solutions(jupytext.reads(full, "md:myst"))
    assert [c.source for c in nb.cells if c.cell_type == "code"] == [
        c.source for c in jupytext.reads(out, "md:myst").cells if c.cell_type == "code"
    ]


def test_the_chapters_have_solutions_to_strip():
    assert {p.stem for p in PAGES} >= {"sakai_2006", "planning", "known_truth", "reproducibility"}


def _names(source: str, ctx: type) -> set[str]:
    """The names a code cell binds (``ast.Store``: assignments, imports, definitions) or reads."""
    from IPython.core.inputtransformer2 import TransformerManager

    tree = ast.parse(TransformerManager().transform_cell(source))  # magics as Python
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}
    if ctx is ast.Store:
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef | ast.ClassDef):
                out.add(n.name)
            elif isinstance(n, ast.Import | ast.ImportFrom):
                out |= {a.asname or a.name.split(".")[0] for a in n.names}
    return out


def _needing_a_solution(text: str) -> dict[str, int]:
    """The names that code cells the student edition keeps read and only a solution's code binds
    (name -> the kept code cell's index)."""
    full = jupytext.reads(text, "md:myst")
    kept = [c.source for c in strip_solutions(full).cells if c.cell_type == "code"]
    gone = [c.source for c in full.cells if c.cell_type == "code" and c.source not in kept]
    bound = set().union(*(_names(s, ast.Store) for s in gone)) - set().union(
        *(_names(s, ast.Store) for s in kept)
    )
    return {name: i for i, s in enumerate(kept) for name in _names(s, ast.Load) & bound}


def test_a_cell_reading_a_solutions_name_is_found():
    pytest.importorskip("IPython")
    assert _needing_a_solution(PAGE) == {}
    checked = PAGE + "\n```{code-cell} ipython3\nprint(check(answer_one))\n```\n"
    assert _needing_a_solution(checked) == {"answer_one": 2}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_no_cell_left_to_the_student_needs_a_solution(page):
    """The student's notebook runs without the solutions: no code cell it keeps reads a name that
    only a solution's code binds (such a cell needs a placeholder outside the solution)."""
    pytest.importorskip("IPython")
    needed = _needing_a_solution(page.read_text(encoding="utf-8"))
    assert not needed, f"cells left to the student read names only a solution binds: {needed}"
