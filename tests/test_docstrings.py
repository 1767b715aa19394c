"""Every public name of every public module has a numpydoc docstring (issue 27 item 5): a one-line
summary; for a function, a Parameters section naming each of its parameters and a Returns (or
Yields) section (none for a function annotated ``-> None``); for a class, a Parameters or
Attributes section. The API reference (book/api) renders these sections; the Examples in them run
as doctests (pyproject's --doctest-modules). And every public docstring is valid reST (below).

numpydoc is not a dependency, so the sections are read here from the docstring's text, as numpydoc
writes them (a title underlined with dashes)."""

from __future__ import annotations

import importlib
import inspect
import io
import re

import pytest

#: The public modules: one page each in the API reference (book/api/<module>.md).
PUBLIC_MODULES = [
    "irrepro",
    "irrepro.data",
    "irrepro.measures",
    "irrepro.significance",
    "irrepro.sensitivity",
    "irrepro.corpus_bootstrap",
    "irrepro.topic_split",
    "irrepro.standardize",
    "irrepro.reproduce",
    "irrepro.known_truth",
    "irrepro.design",
    "irrepro.simulation",
    "irrepro.stats",
    "irrepro.parallel",
    "irrepro.plots",
    "irrepro.report",
    "irrepro.escape",
    "irrepro.book",
]

SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.M)


def sections(doc: str) -> dict[str, str]:
    """The numpydoc sections of a docstring (cleaned by inspect.getdoc): title -> body."""
    titles = list(SECTION.finditer(doc))
    return {
        m.group(1): doc[m.end() : titles[i + 1].start() if i + 1 < len(titles) else len(doc)]
        for i, m in enumerate(titles)
    }


def documented_names(body: str) -> set[str]:
    """The names a Parameters / Attributes section documents: its unindented lines, ``name : type``
    or ``name1, name2 : type`` or a bare ``name``."""
    names = set()
    for line in body.splitlines():
        if line and not line[0].isspace():
            for name in line.partition(" : ")[0].split(","):
                names.add(name.strip().lstrip("*"))
    return names


def public_names():
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield pytest.param(obj, id=f"{modname}.{name}")


def problems(obj) -> list[str]:
    """What the docstring of ``obj`` misses (empty when it is complete)."""
    doc = inspect.getdoc(obj) if obj.__doc__ else None
    if not doc:
        return ["no docstring"]
    found = []
    summary = doc.split("\n\n", 1)[0]
    if "\n" in summary:
        found.append("the summary is not one line")
    secs = sections(doc)
    if inspect.isclass(obj):
        own_init = "__init__" in vars(obj) or "__dataclass_fields__" in vars(obj)
        if own_init and not ({"Parameters", "Attributes"} & set(secs)):
            found.append("no Parameters or Attributes section")
        return found
    params = [
        p.name
        for p in inspect.signature(obj).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if params:
        if "Parameters" not in secs:
            found.append("no Parameters section")
        else:
            missing = set(params) - documented_names(secs["Parameters"])
            if missing:
                found.append(f"parameters not documented: {sorted(missing)}")
    returns_none = inspect.signature(obj).return_annotation in (None, "None")
    if not returns_none and not ({"Returns", "Yields"} & set(secs)):
        found.append("no Returns section")
    return found


@pytest.mark.parametrize("obj", list(public_names()))
def test_public_names_have_numpydoc_docstrings(obj):
    assert problems(obj) == []


def test_the_check_finds_what_is_missing():
    """The check itself: it flags a docstring without sections, and passes a complete one."""

    def bare(x, y=1):
        """Add."""

    def full(x, y=1):
        """Add ``y`` to ``x``.

        Parameters
        ----------
        x, y : float
            The terms.

        Returns
        -------
        float
        """

    def half(x, y=1):
        """Add.

        Parameters
        ----------
        x : float

        Returns
        -------
        float
        """

    assert problems(bare) == ["no Parameters section", "no Returns section"]
    assert problems(full) == []
    assert problems(half) == ["parameters not documented: ['y']"]


def test_every_public_module_has_a_page():
    """The book's API reference has one page per public module, each in _toc.yml."""
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    files = set(re.findall(r"file: (book/api/\S+)", toc))
    assert yaml.safe_load(toc)  # the toc stays valid YAML
    for modname in PUBLIC_MODULES:
        page = "book/api/index" if modname == "irrepro" else f"book/api/{modname.split('.')[1]}"
        assert page in files, f"{page} is not in _toc.yml"
        text = (root / f"{page}.md").read_text(encoding="utf-8")
        assert f".. irrepro-api:: {modname}\n" in text


# --------------------------------------------------------------------------------------------
# The docstrings are valid reStructuredText: the book's API reference builds with warnings as
# errors, so a docstring that docutils cannot read (``|d|`` is a substitution, ``AG_`` a link, a
# lone ``*`` starts emphasis) breaks the book. Checked here for every public module, as the book
# renders it: napoleon's reST of the numpydoc sections, parsed by docutils.
# --------------------------------------------------------------------------------------------

SPHINX_ROLES = (
    "func",
    "class",
    "meth",
    "mod",
    "data",
    "attr",
    "exc",
    "obj",
    "ref",
    "doc",
    "cite",
    "math",
    "py:func",
    "py:class",
    "py:meth",
    "py:mod",
    "py:data",
    "py:attr",
    "py:exc",
    "py:obj",
)
SPHINX_DIRECTIVES = (
    "seealso",
    "versionadded",
    "versionchanged",
    "deprecated",
    "attribute",
    "method",
    "autosummary",
    "rubric",
)


def documented_objects():
    """(name, object, what) of everything the API reference renders: each public module, its
    public names and their public members with a docstring of their own."""
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        yield modname, module, "module"
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            yield f"{modname}.{name}", obj, "class" if inspect.isclass(obj) else "function"
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    doc = getattr(member, "__doc__", None) if not attr.startswith("_") else None
                    if isinstance(doc, str) and doc.strip() and not isinstance(member, (int, float, str)):
                        yield f"{modname}.{name}.{attr}", member, "method"


def rest_problems(doc: str, what: str) -> list[str]:
    """The docutils messages (warnings and errors) of a docstring as the book renders it."""
    import docutils.core
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
    from sphinx.ext.napoleon import Config, NumpyDocstring

    for role in SPHINX_ROLES:
        roles.register_generic_role(role, nodes.literal)

    class Any(Directive):
        has_content, optional_arguments, final_argument_whitespace = True, 10, True
        option_spec = None

        def run(self):
            return []

    Any.option_spec = type(
        "AnyOptions",
        (dict,),
        {"__getitem__": lambda self, k: directives.unchanged, "__contains__": lambda self, k: True},
    )()
    for name in SPHINX_DIRECTIVES:
        directives.register_directive(name, Any)
    config = Config(napoleon_use_param=False, napoleon_use_rtype=False, napoleon_use_ivar=True)
    text = str(NumpyDocstring(doc, config, what=what)) if what != "property" else doc
    stream = io.StringIO()
    settings = {"report_level": 2, "halt_level": 5, "warning_stream": stream}
    docutils.core.publish_doctree(text, settings_overrides=settings)
    return re.findall(r"\((?:WARNING/2|ERROR/3|SEVERE/4)\) (.*)", stream.getvalue())


@pytest.mark.parametrize(
    "name, obj, what", [pytest.param(*o, id=o[0]) for o in documented_objects() if inspect.getdoc(o[1])]
)
def test_docstrings_are_valid_rest(name, obj, what):
    assert rest_problems(inspect.getdoc(obj), what) == []


def test_the_rest_check_finds_what_breaks_the_book():
    assert rest_problems("The largest |d| of the AG_ forms.", "function")
    assert rest_problems("D*b and D'*b have opposite signs.", "function")
    assert rest_problems("The largest ``|d|`` (:func:`max`) of the ``AG_`` forms.", "function") == []
