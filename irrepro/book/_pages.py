"""Where the book shows a table: on its chapter's page, or on a sub-page of the chapter (pasted by
myst-nb's ``glue``) with a line linking to it; and the links from one page to a table on another."""

from __future__ import annotations

import html
import posixpath

from .._rule import STATUSES
from .._text import slug
from ._config import in_book_build
from ._display import _HTML, status_badge


def anchor(paper: str, item: str) -> str:
    """The HTML id of the table of ``paper``'s ``item`` (``cmp-<paper>-<item>``), the target of the links to it."""
    return "cmp-" + slug(f"{paper}-{item}")


def docname(paper: str, page: str = "") -> str:
    """The docname of the page of ``paper``'s chapter (or of its sub-page ``page``) that shows a table."""
    from ._papers import paper_numbers

    try:
        chapter = paper_numbers(paper).headline.get("chapter", "")
    except (FileNotFoundError, KeyError, ValueError):
        chapter = ""
    return f"{chapter}/{page}" if chapter and page else chapter


def href(target: str, anchor: str, source: str) -> str:
    """The link from the page ``source`` to the element ``anchor`` of the page ``target`` (docnames)."""
    if not target or target == source:
        return f"#{anchor}"
    rel = posixpath.relpath(f"{target}.html", posixpath.dirname(source) or ".")
    return f"{rel}#{anchor}"


def _paste(key: str, obj, line: str) -> None:
    """In the book's build, glue ``obj`` under ``key`` and show ``line``; anywhere else show ``obj``."""
    from IPython.display import display

    if not in_book_build():
        display(obj)
        return
    from myst_nb import glue  # type: ignore[import-untyped]

    glue(key, obj, display=False)
    display(_HTML(line))


def show(comp, whole) -> None:
    """Display ``comp``'s table ``whole`` here, or on its sub-page with a line here counting its statuses."""
    from IPython.display import display

    if not comp.page:
        display(whole)
        return
    counts = comp.frame["status"].value_counts()
    words = ", ".join(f"{status_badge(s, word=False)} {counts[s]} {s}" for s in STATUSES if s in counts)
    to = html.escape(href(docname(comp.paper, comp.page), comp.anchor, docname(comp.paper)))
    line = (
        f'<p class="irrepro-aside"><a href="{to}">{html.escape(comp.item)}: the paper beside ours</a> '
        f"({len(comp.frame)} rows: {words}) on its page</p>"
    )
    _paste(comp.anchor, whole, line)


def rests_on(comp, session) -> list[str]:
    """Per row of ``comp``, links to the tables of the rows it rests on ("" for none)."""
    here, cells = docname(comp.paper, comp.page), []
    for m in comp.meta:
        links = []
        for paper, item in m.get("rests_on", ()):
            other = session.get(paper, {}).get(item)
            to = href(docname(paper, other.page if other else ""), anchor(paper, item), here)
            links.append(f'<a href="{html.escape(to)}">{html.escape(item)}</a>')
        cells.append(", ".join(links))
    return cells


class _Aside:
    """A table or figure of a chapter shown on a sub-page, a line linking to it where it is displayed."""

    def __init__(self, obj, key: str, title: str, target: str, source: str):
        self.obj, self.key, self.title, self.target, self.source = obj, key, title, target, source

    def _ipython_display_(self) -> None:
        to = html.escape(href(self.target, self.key, self.source))
        line = f'<p class="irrepro-aside"><a href="{to}">{html.escape(self.title)}</a> (on its page)</p>'
        _paste(self.key, _Anchored(self.obj, self.key, self.title), line)
        if hasattr(self.obj, "savefig"):  # shown once, where it is pasted: not again by the inline backend
            import matplotlib.pyplot as plt

            plt.close(self.obj)


class _Anchored:
    """``obj``'s HTML in an element whose id is ``key``, the target of the links to it."""

    def __init__(self, obj, key: str, alt: str = ""):
        self.obj, self.key, self.alt = obj, key, alt

    def _repr_html_(self) -> str:
        if hasattr(self.obj, "savefig"):  # a matplotlib figure: its PNG, as Jupyter's inline backend draws it
            inner = _png_img(self.obj, self.alt)
        elif hasattr(self.obj, "_repr_html_"):
            inner = self.obj._repr_html_()
        else:
            inner = html.escape(repr(self.obj))
        return f'<div id="{html.escape(self.key)}">{inner}</div>'

    def __repr__(self) -> str:
        return repr(self.obj)


def _png_img(fig, alt: str) -> str:
    """A matplotlib figure's PNG (base64, cropped as the inline backend crops it), ``alt`` its alt text and caption."""
    import base64
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return (
        f'<figure><img src="data:image/png;base64,{data}" style="max-width: 100%" alt="{html.escape(alt)}">'
        f"<figcaption>{html.escape(alt)}</figcaption></figure>"
    )


def aside(obj, *, paper: str, page: str, title: str):
    """Show ``obj`` on the sub-page ``page`` of ``paper``'s chapter, and a link to it here.

    Parameters
    ----------
    obj : object
        HTML (``_repr_html_``) or a matplotlib figure (shown as a PNG, and closed).
    paper : str
        The citation key of the chapter's paper.
    page : str
        The sub-page's file name, without ``.md``, in the chapter's directory.
    title : str
        The link's text; its slug is the glue key (``aside-<slug>``).

    Returns
    -------
    object
        What the chapter displays.
    """
    return _Aside(obj, f"aside-{slug(title)}", title, docname(paper, page), docname(paper))
