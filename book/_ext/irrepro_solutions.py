"""The exercises' solutions left out of a page's sources, for the student edition.

A solution is a ``{solution}`` directive, or everything from a ``{solution-start}`` directive to
the ``{solution-end}`` that closes it: the prose, and the code cells between them with their
outputs (sphinx-exercise's gated solutions). :func:`strip_solutions` removes them from a MyST
Markdown page (the text of its ``.md``) or from a notebook (nbformat), whose markdown cells may
open a gated solution in one cell and close it cells later. Directives are found as markdown-it
(the parser MyST is built on) reads the text, fenced by backticks or colons.
"""

from __future__ import annotations

import copy
import re
from typing import Any

#: The directive of a solution in one block, and the two that gate a solution spanning cells.
SOLUTION, START, END = "solution", "solution-start", "solution-end"
#: A check cell's line: the exercise's label, and what the answer is (its comment).
CHECK = re.compile(
    r'^book\.check\("(?P<label>ex-[\w-]+)", answer\)(?:[ \t]*#[ \t]*answer:[ \t]*(?P<what>[^\n]*?))?[ \t]*$',
    re.M,
)


def _student_check(m: re.Match, keys) -> str:
    """The student's form of a check cell's line ``m``: a placeholder answer and the check with its key."""
    label, what = m.group("label"), (m.group("what") or "").strip()
    if keys is None:
        key = ""
    elif label in keys:
        key = f', key="{keys[label]}"'
    else:
        raise ValueError(f"no recorded answer for the check cell of {label} (its solution did not run?)")
    comment = f"# your answer: {what}" if what else "# your answer"
    return f'answer = None  {comment}\nbook.check("{label}", answer{key})'


def student_checks(text: str, keys=None) -> str:
    """``text`` (a page's or a code cell's) with its check cells in the student's form.

    ``keys`` (label -> key, ``irrepro.book._exercises.recorded_keys``): every check needs its
    label's key (a ValueError names a missing one); None leaves the key out (the check then needs
    the answer recorded in its kernel)."""
    return CHECK.sub(lambda m: _student_check(m, keys), text)


def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin

    return MarkdownIt("commonmark").use(front_matter_plugin).use(colon_fence_plugin)


def _directive(info: str) -> str | None:
    """The directive a fence's info string names (``{solution-start} ex-1`` -> ``solution-start``)."""
    m = re.match(r"\{([\w:-]+)\}", info.strip())
    return m.group(1) if m else None


def _strip_text(text: str, inside: bool, md) -> tuple[str, bool, bool]:
    """``text`` without its solutions, whether a gated solution is still open at its end, and
    whether anything was removed; ``inside``: whether one is open at its start."""
    lines = text.splitlines(keepends=True)
    drops: list[tuple[int, int]] = []  # [start, end) line ranges
    start = 0 if inside else None
    for tok in md.parse(text):
        if tok.type not in ("fence", "colon_fence") or tok.map is None:
            continue
        name = _directive(tok.info)
        first, last = tok.map
        if start is not None:
            if name == END:
                drops.append((start, last))
                start = None
        elif name == START:
            start = first
        elif name == SOLUTION:
            drops.append((first, last))
        elif name == END:
            raise ValueError(f"{END} without {START} at line {first + 1}")
    if start is not None:
        drops.append((start, len(lines)))
    if not drops:
        return text, start is not None, False
    kept, pos = [], 0
    for first, last in drops:
        kept.append("".join(lines[pos:first]))
        pos = last
    kept.append("".join(lines[pos:]))
    # one blank line where a solution was: the blank lines around it joined
    out = kept[0]
    for part in kept[1:]:
        if not out.strip():
            out = part.lstrip("\n")
        elif part.strip():
            out = out.rstrip("\n") + "\n\n" + part.lstrip("\n")
    return out, start is not None, True


def strip_solutions(source: Any, keys=None) -> Any:
    """A page's source without the exercises' solutions, its check cells in the student's form.

    Parameters
    ----------
    source : str or nbformat.NotebookNode
        The text of a MyST Markdown page (its ``.md``, front matter and code cells included), or a
        notebook (nbformat 4), executed or not.
    keys : dict of str to str, optional
        The check cells' keys by label (:func:`student_checks`).

    Returns
    -------
    str or nbformat.NotebookNode
        The text without its ``{solution}`` directives and without everything from each
        ``{solution-start}`` to its ``{solution-end}`` (one blank line left in their place; the
        text unchanged when it has no solution); or a copy of the notebook without those, without
        the code cells between a ``{solution-start}`` and its ``{solution-end}`` (and so without
        their outputs), and without the markdown cells that held nothing else. Check cells are
        in the student's form (:func:`student_checks`), a notebook's without their outputs.

    Raises
    ------
    ValueError
        A ``{solution-start}`` without its ``{solution-end}``, or the other way round; a check
        cell whose key ``keys`` lacks.
    """
    md = _parser()
    if isinstance(source, str):
        text, open_, _ = _strip_text(source, False, md)
        if open_:
            raise ValueError(f"{START} without {END}")
        return student_checks(text, keys)
    nb = copy.deepcopy(source)
    cells, inside = [], False
    for cell in nb.cells:
        if cell.cell_type == "code":
            if not inside:
                checked = student_checks(cell.source, keys)
                if checked != cell.source:
                    cell.source, cell.outputs, cell.execution_count = checked, [], None
                cells.append(cell)
            continue
        text, inside, changed = _strip_text(cell.source, inside, md)
        if changed:
            if not text.strip():
                continue  # nothing but (part of) a solution
            cell.source = text
        cells.append(cell)
    if inside:
        raise ValueError(f"{START} without {END}")
    nb.cells = cells
    return nb
