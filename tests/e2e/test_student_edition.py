"""The student edition serves no solution anywhere: not on its pages, not in what its
pages link - the download links (the page's ``.md`` and executed ``.ipynb`` in ``_sources``), every
other file of the site a page links, and the notebooks its Binder and Colab buttons open (on the
launch branch: ``student/<page>.ipynb`` of the built tree) - and a student notebook runs top to
bottom without its solutions.

The solution texts are read from the book's sources, not written here: every line of a solution
block (``{solution}``, or ``{solution-start}`` to ``{solution-end}``) that appears nowhere else in
the book's pages, and every line the book's executed notebooks print from a solution's code cell
that no other cell prints. The book's own site (the instructor edition) serves them, by the same
links: shown first, so that a test that finds nothing in the student edition has looked for
something. Run after ``make book`` with ``make e2e``.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import subprocess
import sys
import urllib.parse
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
STUDENT = SITE / "student"
#: The markup of a solution, never in a student's source.
MARKERS = ("{solution}", "{solution-start}", "{solution-end}")
#: Shorter lines are too common to be a solution's own (``plt.show()``, ``print(table)``).
MIN_CHARS = 24
#: Files read as bytes only (images, fonts): no solution text to find in them.
BINARY_SUFFIXES = set(".png .jpg .jpeg .gif .ico .svg .woff .woff2 .ttf .eot .otf .pdf".split())


def _unavailable(why: str):
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(why)
    pytest.skip(why)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _split(text: str) -> tuple[list[str], list[str]]:
    """The lines of a MyST page inside its solution blocks, and the others (a scan of its lines)."""
    lines = text.splitlines()
    inside: list[str] = []
    outside: list[str] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(`{3,}|:{3,})\{solution(-start)?\}", lines[i])
        if not m:
            outside.append(lines[i])
            i += 1
            continue
        fence = m.group(1)
        if m.group(2):  # gated: to the closing fence of its solution-end
            end = next(
                k for k in range(i + 1, len(lines)) if re.match(r"^[`:]{3,}\{solution-end\}", lines[k])
            )
            end = next(k for k in range(end + 1, len(lines)) if lines[k].strip().startswith(fence[0] * 3))
        else:
            end = next(k for k in range(i + 1, len(lines)) if lines[k].strip() == fence)
        inside += lines[i : end + 1]
        i = end + 1
    return inside, outside


def _sources() -> dict[str, str]:
    """The book's pages (``notebooks/*.md``, ``book/**/*.md``): docname -> text."""
    pages = [*ROOT.glob("notebooks/*.md"), *ROOT.glob("book/**/*.md")]
    return {str(p.relative_to(ROOT).with_suffix("")): p.read_text(encoding="utf-8") for p in sorted(pages)}


def _notebook_texts(nb: dict) -> list[tuple[str, str, list[str]]]:
    """Each cell of a notebook: its type, its source and the text of its outputs."""
    out = []
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        texts = []
        for o in cell.get("outputs", []):
            if "text" in o:
                texts.append("".join(o["text"]) if isinstance(o["text"], list) else o["text"])
            for mime in ("text/plain", "text/markdown", "text/html"):
                v = o.get("data", {}).get(mime)
                if v is not None:
                    v = "".join(v) if isinstance(v, list) else v
                    texts.append(_html_text(v) if mime == "text/html" else v)
        out.append((cell.get("cell_type", ""), source, texts))
    return out


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.links: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _html_text(text: str) -> str:
    p = _Text()
    p.feed(text)
    return " ".join(p.parts)


def _lines(text: str) -> set[str]:
    return {n for line in text.splitlines() if len(n := _norm(line)) >= MIN_CHARS}


@cache
def solution_texts() -> frozenset[str]:
    """The lines only the solutions have: of their sources, and of what their code cells print."""
    inside, outside = [], []
    for text in _sources().values():
        i, o = _split(text)
        inside += i
        outside += o
    elsewhere = _norm("\n".join(outside))
    texts = {
        line
        for line in _lines("\n".join(inside))
        if not re.match(r"^([`:]{3,}|:\w+:)", line) and line not in elsewhere
    }
    # what the solutions' code cells print, in the book's executed notebooks
    printed, printed_elsewhere = set(), []
    for nb_path in sorted((SITE / "_sources").rglob("*.ipynb")):
        for kind, source, outputs in _notebook_texts(json.loads(nb_path.read_text(encoding="utf-8"))):
            if kind != "code":
                continue
            if _lines(source) & texts:
                printed |= _lines("\n".join(outputs))
            else:
                printed_elsewhere += outputs
    elsewhere += " " + _norm("\n".join(printed_elsewhere))
    return frozenset(texts | {line for line in printed if line not in elsewhere})


def _file_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        cells = _notebook_texts(json.loads(text))
        return "\n".join(s + "\n" + "\n".join(o) for _, s, o in cells)
    if path.suffix == ".html":
        return _html_text(text)
    return text


def _leaks(path: Path, markers: bool) -> list[str]:
    """The solution texts (and, for a page's source, the solutions' markup) ``path`` holds."""
    text = _file_text(path)
    flat = _norm(text)
    found = sorted(t for t in solution_texts() if t in flat)
    if markers:
        found += [m for m in MARKERS if m in text]
    return found


def _launch_file(url: str) -> str | None:
    """The file of the repository a Binder or Colab link opens (its path on the launch branch)."""
    parts = urllib.parse.urlsplit(url)
    if "colab" in parts.netloc:
        m = re.match(r"/github/[^/]+/[^/]+/blob/[^/]+/(.+)$", parts.path)
        return urllib.parse.unquote(m.group(1)) if m else None
    if "binder" in parts.netloc:
        urlpath = urllib.parse.parse_qs(parts.query).get("urlpath", [""])[0]
        m = re.match(r"(?:lab/tree|tree)/(.+)$", urlpath)
        return m.group(1) if m else None
    return None


def _site_links(site: Path) -> tuple[dict[Path, set[str]], dict[str, set[str]]]:
    """Every file of ``site`` a page links (file -> the pages linking it), and every launch button's
    file of the repository (path -> pages)."""
    files: dict[Path, set[str]] = {}
    launches: dict[str, set[str]] = {}
    pages = [
        p
        for p in site.rglob("*.html")
        if not {"_static", "_sources", "student"} & set(p.relative_to(site).parts[:-1])
    ]
    for page in sorted(pages):
        parser = _Text()
        parser.feed(page.read_text(encoding="utf-8"))
        name = str(page.relative_to(site))
        for link in parser.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme in ("http", "https"):
                target = _launch_file(link)
                if target is not None:
                    launches.setdefault(target, set()).add(name)
                continue
            if parts.scheme or not parts.path:
                continue  # mailto:, javascript:, a fragment of the page itself
            path = (page.parent / urllib.parse.unquote(parts.path)).resolve()
            if path.is_dir():
                path = path / "index.html"
            if path.is_file() and path.is_relative_to(site.resolve()):
                files.setdefault(path, set()).add(name)
    return files, launches


def _need_sites():
    if not (SITE / "index.html").is_file():
        _unavailable(f"no built site at {SITE}: run `make book` first")
    if not (STUDENT / "index.html").is_file():
        _unavailable(f"no student edition at {STUDENT}: run `make book` (it builds both editions)")


CHAPTERS = sorted(
    f"notebooks/{p.stem}" for p in ROOT.glob("notebooks/*.md") if "{solution" in p.read_text(encoding="utf-8")
)


def test_the_book_serves_the_solutions_by_the_same_links():
    """The instructor edition's downloads and launch notebooks hold the solution texts (so that the
    next test, finding none in the student edition's, has looked for what is there)."""
    _need_sites()
    texts = solution_texts()
    assert len(texts) >= 50, f"only {len(texts)} solution texts found in the book's sources"
    for chapter in CHAPTERS:
        for path in (
            SITE / "_sources" / f"{chapter}.md",
            SITE / "_sources" / f"{chapter}.ipynb",
            ROOT / f"{chapter}.ipynb",
        ):
            assert path.is_file(), path
            assert len(_leaks(path, markers=True)) >= 3, f"{path}: the full source shows no solution"


def test_no_link_of_a_student_page_serves_a_solution():
    """Every file a student page links (its downloads, the pages, the search index, ...), every
    other file of the student edition, and every notebook its launch buttons open is free of
    solution text; the downloads are there for every chapter, and the launch buttons open the
    stripped notebooks of ``student/``."""
    _need_sites()
    files, launches = _site_links(STUDENT)
    sources = {p for p in files if "_sources" in p.relative_to(STUDENT.resolve()).parts}
    for chapter in CHAPTERS:
        for suffix in (".md", ".ipynb"):
            assert (STUDENT / "_sources" / f"{chapter}{suffix}").resolve() in sources, (
                f"no {suffix} download of {chapter} in the student edition"
            )
        assert f"student/{chapter}.ipynb" in launches, (
            f"no launch button of {chapter} opens student/{chapter}.ipynb"
        )
    assert not [t for t in launches if not t.startswith("student/")], "a launch button opens a full notebook"
    leaks = {}
    unlinked = {p.resolve() for p in STUDENT.rglob("*") if p.is_file()} - set(files)
    for path in sorted(set(files) | unlinked):
        if path.suffix not in BINARY_SUFFIXES:
            found = _leaks(path, markers=path in sources)
            if found:
                leaks[str(path.relative_to(STUDENT.resolve()))] = found[:3]
    for target in sorted(launches):
        path = ROOT / target
        assert path.is_file(), f"{target}, which a launch button opens, was not written by the build"
        found = _leaks(path, markers=True)
        if found:
            leaks[target] = found[:3]
    assert not leaks, f"{len(leaks)} files a student page links hold solution text:\n" + "\n".join(
        f"{k}: {v}" for k, v in leaks.items()
    )


#: The chapter a student runs in the next test: the quickest with exercises at quick scale.
RUN_CHAPTER = "notebooks/webber_moffat_zobel_2008"


def test_a_student_notebook_runs_top_to_bottom_without_its_solutions(tmp_path):
    """The notebook the student edition's launch buttons open runs from a clean environment (a
    kernel of its own, an empty data cache, the mirror, quick scale) where Binder runs it, with no
    solution in it: the exercises left for the student do not stop it."""
    _need_sites()
    mirror = os.environ.get("IRREPRO_MIRROR", "").strip()
    if not mirror or not Path(mirror).is_dir():
        pytest.skip("IRREPRO_MIRROR is not set to a directory: the chapter's data would be downloaded")
    nb_path = ROOT / "student" / f"{RUN_CHAPTER}.ipynb"
    assert nb_path.is_file(), f"{nb_path}: not written by `make book`"
    assert not _leaks(nb_path, markers=True)
    exercises = re.findall(
        r"^:label: (ex-\S+)", (ROOT / f"{RUN_CHAPTER}.md").read_text(encoding="utf-8"), re.M
    )
    assert exercises and exercises == re.findall(r":label: (ex-\S+)", _file_text(nb_path)), "an exercise went"
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")}
    env |= {
        "IRREPRO_MIRROR": str(Path(mirror).resolve()),
        "IRREPRO_SCALE": "quick",
        "IRREPRO_CACHE": str(tmp_path / "cache"),
        "IRREPRO_RESULTS": str(tmp_path / "results"),
        "MPLBACKEND": "Agg",
    }
    # the data policy of the book's build (real data where CI requires it, else the labelled stand-in)
    for k in ("IRREPRO_REQUIRE_REAL", "IRREPRO_ALLOW_SIMULATED"):
        if os.environ.get(k):
            env[k] = os.environ[k]
    if not env.get("IRREPRO_REQUIRE_REAL"):
        env.setdefault("IRREPRO_ALLOW_SIMULATED", "1")
    out = tmp_path / "executed.ipynb"
    jupytext = Path(sys.executable).parent / "jupytext"
    run = subprocess.run(
        [
            str(jupytext),
            "--to",
            "ipynb",
            "--execute",
            "--run-path",
            str(nb_path.parent),
            str(nb_path),
            "-o",
            str(out),
        ],
        cwd=nb_path.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    nb = json.loads(out.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c.get("execution_count") for c in code), "a code cell did not run"
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    assert not _leaks(out, markers=True)
    # the check cells, left for the student's answers, run and say so
    checked = _checked(RUN_CHAPTER)
    said = {}
    for c in code:
        source = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        m = re.search(r'^book\.check\("(ex-[\w-]+)", answer, key="[\w-]+"\)$', source, re.M)
        if m:
            assert source.startswith("answer = None  # your answer"), source
            said[m.group(1)] = "".join("".join(o.get("text", "")) for o in c.get("outputs", []))
    assert checked and said == {label: f"{label}: no answer yet\n" for label in checked}


def _checked(page: str) -> list[str]:
    """The exercises of ``page`` that end with a check cell (book/exercises.yml)."""
    import yaml

    listed = yaml.safe_load((ROOT / "book" / "exercises.yml").read_text(encoding="utf-8"))[page]
    return [e["label"] for e in listed if e["answer"] != "open"]


def test_every_check_cell_of_the_book_says_right_for_its_solutions_answer():
    """In the instructor edition each check cell follows its solution and checks the solution's own
    answer: each says "right" (a check that says anything else is a solution and a recorded answer
    that disagree), and the student edition's sources carry each one's key."""
    _need_sites()
    import yaml

    pages = yaml.safe_load((ROOT / "book" / "exercises.yml").read_text(encoding="utf-8"))
    for page in [p for p in pages if _checked(p)]:
        said = {}
        nb = json.loads((SITE / "_sources" / f"{page}.ipynb").read_text(encoding="utf-8"))
        for kind, source, outputs in _notebook_texts(nb):
            m = re.match(r'book\.check\("(ex-[\w-]+)", answer\)', source)
            if kind == "code" and m:
                said[m.group(1)] = "".join(outputs)
        assert said == {label: f"{label}: right\n" for label in _checked(page)}, page
        student = (STUDENT / "_sources" / f"{page}.ipynb").read_text(encoding="utf-8")
        for label in _checked(page):
            assert re.search(rf'book\.check\(\\"{label}\\", answer, key=\\"[\w-]+\\"\)', student), (
                page,
                label,
            )
