"""Exercises a student can check (issue 44): ``irrepro.book.answer`` records a solution's answer,
``irrepro.book.check`` says right / close / wrong without showing it, the student edition's sources
carry the answer as a key (book/_ext/irrepro_solutions.py), and book/exercises.yml lists exactly
the book's exercises, with a check cell for each one it says is checked."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from irrepro import book
from irrepro.book import _exercises

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from irrepro_solutions import strip_solutions  # noqa: E402


@pytest.fixture(autouse=True)
def _own_answers(monkeypatch, tmp_path):
    """Each test records its answers in a kernel and a results directory of its own."""
    monkeypatch.setattr(_exercises, "_ANSWERS", {})
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path / "results"))


def _said(capsys, label, value, **kw) -> str:
    book.check(label, value, **kw)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(f"{label}: ")
    return out.strip().split(": ", 1)[1]


@pytest.mark.parametrize(
    "given, said",
    [
        (0.30, "right"),
        (0.305, "right"),  # within abs=0.01
        (0.2905, "right"),
        (0.33, "close - a little high"),  # 3 tolerances off
        (0.27, "close - a little low"),
        (0.36, "wrong - too high"),  # 6 tolerances off
        (0.20, "wrong - too low"),
        ("0.3", "wrong - not a number"),
        (None, "no answer yet"),
        (..., "no answer yet"),
    ],
)
def test_a_number_is_right_close_or_wrong_in_its_direction(capsys, given, said):
    book.answer("ex-t-1", 0.30, abs=0.01)
    assert _said(capsys, "ex-t-1", given) == said
    key = _exercises.recorded_keys()["ex-t-1"]
    _exercises._ANSWERS.clear()  # the student's kernel: the key only
    assert _said(capsys, "ex-t-1", given, key=key) == said


def test_a_relative_tolerance_scales_with_the_answer(capsys):
    book.answer("ex-t-2", 200, rel=0.05)  # 10
    assert [_said(capsys, "ex-t-2", v) for v in (209, 230, 140)] == [
        "right",
        "close - a little high",
        "wrong - too low",
    ]


@pytest.mark.parametrize(
    "expected, given, said",
    [
        ("topics", " Topics ", "right"),
        ("topics", "corpus", "wrong"),
        ("topics", 1, "wrong"),
        (True, True, "right"),
        (True, False, "wrong"),
        (False, 0, "wrong"),  # a bool answer is a bool
        ({"AP", "Q"}, {"q", "ap"}, "right"),
        ({"AP", "Q"}, ["Q", "AP"], "right"),
        ({"AP", "Q"}, {"AP"}, "wrong"),
        ({"AP", "Q"}, None, "no answer yet"),
    ],
)
def test_a_category_is_right_or_wrong(capsys, expected, given, said):
    book.answer("ex-t-3", expected)
    key = _exercises.recorded_keys()["ex-t-3"]
    assert _said(capsys, "ex-t-3", given) == said
    assert _said(capsys, "ex-t-3", given, key=key) == said


def test_the_key_round_trips_and_does_not_show_the_answer():
    for value, kw in ((123456.789, {"abs": 0.5}), ("mean of the worst ten", {}), ({"alpha", "beta"}, {})):
        book.answer("ex-t-4", value, **kw)
        key = _exercises.recorded_keys()["ex-t-4"]
        assert _exercises._from_key("ex-t-4", key) == _exercises._ANSWERS["ex-t-4"]
        for text in ("123456", "worst", "alpha", "label", "value"):
            assert text not in key
        assert re.fullmatch(r"[A-Za-z0-9_-]+", key)


def test_the_check_never_prints_the_answer(capsys):
    book.answer("ex-t-5", 0.4321, abs=1e-4)
    for given in (0.4321, 0.4325, 0.9):
        book.check("ex-t-5", given)
    assert "4321" not in capsys.readouterr().out


def test_an_unknown_label_or_a_wrong_key_is_an_error_naming_the_label():
    with pytest.raises(KeyError, match="ex-nowhere-9"):
        book.check("ex-nowhere-9", 1)
    book.answer("ex-t-6", 3, abs=0)
    key = _exercises.recorded_keys()["ex-t-6"]
    with pytest.raises(ValueError, match="ex-t-7"):
        book.check("ex-t-7", 3, key=key)
    with pytest.raises(ValueError, match="ex-t-6"):
        book.check("ex-t-6", 3, key="not-a-key")


def test_an_answer_is_recorded_in_the_results_directory_and_read_from_it(tmp_path, capsys):
    book.answer("ex-t-8", 12, abs=1)
    record = json.loads((tmp_path / "results" / "answers" / "ex-t-8.json").read_text())
    assert record == {"label": "ex-t-8", "kind": "number", "value": 12.0, "tolerance": 1.0}
    _exercises._ANSWERS.clear()  # another kernel of the same build
    assert _said(capsys, "ex-t-8", 11) == "right"


@pytest.mark.parametrize(
    "value, kw, error",
    [
        (0.5, {}, TypeError),
        (float("nan"), {"abs": 1}, ValueError),
        (0.5, {"abs": float("nan")}, ValueError),
        (0.5, {"abs": -0.1}, ValueError),
        ([1, 2], {}, TypeError),
    ],
)
def test_an_answer_the_check_could_not_judge_is_refused(value, kw, error):
    with pytest.raises(error, match="ex-t-9"):
        book.answer("ex-t-9", value, **kw)


PAGE = """---
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

```{exercise} Count
:label: ex-t-10
How many?
```

```{solution-start} ex-t-10
:class: dropdown
```

```{code-cell} ipython3
answer = book.answer("ex-t-10", 987654, abs=0)
print(f"the solution's count: {answer}")
```

```{solution-end}
```

```{code-cell} ipython3
book.check("ex-t-10", answer)  # answer: a number of pairs
```
"""


def test_the_student_sources_carry_a_placeholder_and_the_key_of_each_check_cell():
    jupytext = pytest.importorskip("jupytext")
    book.answer("ex-t-10", 987654, abs=0)
    keys = _exercises.recorded_keys()
    text = strip_solutions(PAGE, keys)
    assert (
        'answer = None  # your answer: a number of pairs\nbook.check("ex-t-10", answer, key="'
        + keys["ex-t-10"]
        + '")'
    ) in text
    nb = jupytext.reads(PAGE, "md:myst")
    for cell in nb.cells:  # as executed by the instructor edition
        if cell.cell_type == "code":
            cell.outputs = [{"output_type": "stream", "name": "stdout", "text": "ex-t-10: right 987654\n"}]
    out = strip_solutions(nb, keys)
    code = [c for c in out.cells if c.cell_type == "code"]
    assert len(code) == 1 and code[0].source == text.split("```{code-cell} ipython3\n")[1].split("\n```")[0]
    assert code[0].outputs == []
    written = json.dumps(out)
    assert "987654" not in written and "solution" not in written
    with pytest.raises(ValueError, match="ex-t-10"):
        strip_solutions(PAGE, {})


def _labels(text: str) -> list[str]:
    return re.findall(r"^:label: (ex-\S+)", text, re.M)


def _exercise_texts(text: str) -> dict[str, str]:
    """Each exercise's directive text, by label."""
    return {
        m.group(2): m.group(0)
        for m in re.finditer(r"^```\{exercise\}[^\n]*\n:label: (?P<l>(ex-\S+))\n.*?^```$", text, re.M | re.S)
    }


EXERCISES = yaml.safe_load((ROOT / "book" / "exercises.yml").read_text(encoding="utf-8"))


def test_the_exercise_list_has_exactly_the_books_exercises_in_order():
    for page, listed in EXERCISES.items():
        text = (ROOT / f"{page}.md").read_text(encoding="utf-8")
        assert [e["label"] for e in listed] == _labels(text), page
        for e in listed:
            assert e["level"] in {"reading", "computing", "extending", "own runs"}, e
            assert isinstance(e["minutes"], int) and 5 <= e["minutes"] <= 120, e
            assert e["answer"] in {"number", "category", "open"}, e
    pages = [*ROOT.glob("notebooks/*.md"), *ROOT.glob("book/**/*.md")]
    with_exercises = {
        str(p.relative_to(ROOT).with_suffix("")) for p in pages if _labels(p.read_text("utf-8"))
    }
    assert with_exercises == set(EXERCISES)


@pytest.mark.parametrize("page", sorted(EXERCISES))
def test_a_checked_exercise_ends_with_its_check_cell_and_an_open_one_says_what_a_good_answer_holds(page):
    text = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    texts = _exercise_texts(text)
    for e in EXERCISES[page]:
        label = e["label"]
        check = re.search(rf'^book\.check\("{label}", answer\)  # answer: \S', text, re.M)
        if e["answer"] == "open":
            assert check is None, f"{label}: open-ended, with a check cell"
            assert "A good answer" in " ".join(texts[label].split()), (
                f"{label}: no sentence on what a good answer contains"
            )
            continue
        assert check, f"{label}: no check cell"
        assert "`answer`" in texts[label], f"{label}: the exercise does not say what `answer` is"
        # after the solution's end and before the next exercise, and the solution records the answer
        start = text.index(f":label: {label}\n")
        end = text.find("```{exercise}", start)
        end = len(text) if end < 0 else end
        solution = text[start : check.start()]
        assert "{solution-end}" in solution and start < check.start() < end, f"{label}: misplaced check cell"
        assert re.search(rf'answer = book\.answer\("{label}", ', solution), (
            f"{label}: the solution records no answer"
        )


def _titles(page: str) -> dict[str, str]:
    text = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    return {
        label: m.split("\n")[0].removeprefix("```{exercise}").strip()
        for label, m in _exercise_texts(text).items()
    }


def test_the_coursework_tables_give_each_exercise_its_level_minutes_and_answer():
    irrepro_sphinx = pytest.importorskip("irrepro_sphinx")
    text = "\n".join(irrepro_sphinx._exercises_lines())
    for page, listed in EXERCISES.items():
        assert f":doc:`/{page}`" in text
        for e in listed:
            row = f"   * - :ref:`{_titles(page)[e['label']]} <{e['label']}>`\n     - {e['level']}\n     - {e['minutes']}\n     - "
            assert row + irrepro_sphinx.ANSWER_WORDS[e["answer"]] + "\n" in text + "\n", e["label"]


def test_a_student_page_shows_the_check_cell_in_the_students_form_without_its_output(tmp_path):
    pytest.importorskip("sphinx")
    irrepro_sphinx = pytest.importorskip("irrepro_sphinx")
    from types import SimpleNamespace

    from docutils import nodes

    book.answer("ex-t-11", 5, abs=0)
    source = 'book.check("ex-t-11", answer)  # answer: a number of runs'
    cell = nodes.container(classes=["cell"])
    cell += nodes.container("", nodes.literal_block(source, source), classes=["cell_input"])
    cell += nodes.container(
        "", nodes.literal_block("ex-t-11: right", "ex-t-11: right"), classes=["cell_output"]
    )
    doctree = nodes.section()
    doctree += cell
    app = SimpleNamespace(srcdir=str(tmp_path), config=SimpleNamespace(hide_solutions=True))
    irrepro_sphinx._student_check_cells(app, doctree)
    key = _exercises.recorded_keys()["ex-t-11"]
    assert (
        doctree.astext()
        == f'answer = None  # your answer: a number of runs\nbook.check("ex-t-11", answer, key="{key}")'
    )


CHAPTER = PAGE.replace(
    "---\nkernelspec:",
    "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\nkernelspec:",
    1,
).replace(
    "---\n\n```{exercise}",
    "---\n\n# A chapter\n\n```{code-cell} ipython3\nfrom irrepro import book\n```\n\n```{exercise}",
    1,
)


@pytest.mark.slow
def test_the_student_edition_checks_with_keys_on_its_pages_downloads_and_launch_notebooks(tmp_path):
    """Both editions of a one-chapter book built as ``make book`` builds them (the instructor's
    first, recording the answer; the student's from its results): the instructor's check cell says
    right; the student's page, ``.md`` and ``.ipynb`` downloads and launch notebook hold the
    placeholder and the key, and neither the solution nor its answer."""
    jb = Path(sys.executable).parent / "jupyter-book"
    if not jb.exists():
        pytest.skip("jupyter-book is not installed (pip install -e '.[book]')")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["sphinx"]["local_extensions"] = {"irrepro_sphinx": str(ROOT / "book" / "_ext")}
    config["sphinx"]["config"] |= {"irrepro_execute_first": [], "irrepro_execute_after": {}}
    config.pop("bibtex_bibfiles", None)
    config["html"].pop("favicon", None)
    config["execute"]["cache"] = str(tmp_path / "cache")
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    config["sphinx"]["config"] |= {"hide_solutions": True, "irrepro_edition": "student"}
    (tmp_path / "_config.student.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "chapter"}))
    (tmp_path / "chapter.md").write_text(CHAPTER)
    env = {**__import__("os").environ, "IRREPRO_RESULTS": str(tmp_path / "results")}
    for args in (
        [],
        ["--config", str(tmp_path / "_config.student.yml"), "--path-output", str(tmp_path / "st")],
    ):
        res = subprocess.run(
            [str(jb), "build", str(tmp_path), *args, "--builder", "html", "--keep-going"],
            cwd=tmp_path, capture_output=True, text=True, env=env,
        )  # fmt: skip
        assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    key = _exercises.recorded_keys(tmp_path / "results")["ex-t-10"]
    placeholder = 'answer = None  # your answer: a number of pairs\nbook.check("ex-t-10", answer, key="' + key
    instructor = (tmp_path / "_build" / "html" / "chapter.html").read_text(encoding="utf-8")
    assert "ex-t-10: right" in instructor and "987654" in instructor
    html = tmp_path / "st" / "_build" / "html"
    page = (html / "chapter.html").read_text(encoding="utf-8")
    assert key in page and "answer = None" in page and "ex-t-10: right" not in page
    for path in (
        html / "_sources" / "chapter.md",
        html / "_sources" / "chapter.ipynb",
        tmp_path / "student" / "chapter.ipynb",
    ):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            code = [c["source"] for c in json.loads(text)["cells"] if c["cell_type"] == "code"]
            assert placeholder.replace("\n", "") in "".join("".join(s) for s in code).replace("\n", ""), path
        else:
            assert placeholder in text, path
        assert "987654" not in text and "book.answer" not in text, path
    assert "987654" not in page and "book.answer" not in page
