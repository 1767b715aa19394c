"""What a chapter displays as HTML: the data banner, status badges, tables and ours as it is shown; and
where: on its chapter's page, or on a sub-page (pasted by myst-nb's ``glue``) with a line linking to it."""

from __future__ import annotations

import html
import math
import posixpath
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._rule import (
    INCONCLUSIVE,
    NOT_COMPARABLE,
    NOT_REPLICATED,
    PARTLY,
    REPLICATED,
    STATUSES,
    _decimals,
    _missing,
)
from .._text import slug
from ..data import COLLECTIONS, RunSet, ScoreMatrix, registry
from ..errors import InputError
from ._config import in_book_build
from ._papers import paper_numbers


def _label(obj) -> tuple[str, bool]:
    """The banner's name of a collection, RunSet or ScoreMatrix, and whether it is simulated."""
    if isinstance(obj, str) and obj in COLLECTIONS:  # by name: simulated when its files cannot be had now
        from ..data import where

        coll = COLLECTIONS[obj]
        return coll.title, any(where(p) not in ("cache", "mirror") for p in coll.files())
    if isinstance(obj, RunSet):
        name = COLLECTIONS[obj.name].title if obj.name in COLLECTIONS else obj.name
        return f"{name} ({len(obj.runs)} runs x {len(obj.topics)} topics)", obj.simulated
    if isinstance(obj, ScoreMatrix):
        name = COLLECTIONS[obj.collection].title if obj.collection in COLLECTIONS else obj.collection
        return f"{name}, {obj.measure} ({obj.shape[0]} runs x {obj.shape[1]} topics)", obj.simulated
    raise TypeError(f"data_banner takes RunSets, ScoreMatrices and collection names, not {obj!r:.80}")


class _HTML:
    """HTML that Jupyter displays, with a plain-text fallback."""

    def __init__(self, text: str, plain: str | None = None):
        self.text = text
        self.plain = plain

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:  # plain-text fallback
        if self.plain is not None:
            return self.plain
        return html.unescape(self.text.replace("<p>", "\n").replace("</p>", ""))


def data_banner(*objs) -> _HTML:
    """A box naming the data of a page, a warning (CSS class ``simulated-data``) when any is simulated.

    Parameters
    ----------
    *objs : irrepro.data.RunSet, irrepro.data.ScoreMatrix or str
        The page's data (a collection by name is simulated when its real files cannot be had now).

    Returns
    -------
    object
        HTML that Jupyter displays.
    """
    labels = [_label(o) for o in objs]
    sim = [name for name, s in labels if s]
    real = [name for name, s in labels if not s]
    if sim:
        items = "".join(f"<li>{html.escape(n)}</li>" for n in sim)
        return _HTML(
            '<div class="admonition warning simulated-data">'
            '<p class="admonition-title">Simulated data</p>'
            "<p>The real files of these collections could not be found (no cache, no mirror, no "
            "network), so this page shows the <b>simulated stand-in</b> of the same shape. Its "
            "numbers illustrate the method only and must not be compared with the paper's.</p>"
            f"<ul>{items}</ul>"
            "<p>Run <code>irrepro data fetch</code> (or set <code>IRREPRO_MIRROR</code>) and "
            "rebuild to see the real results.</p></div>"
        )
    items = "".join(f"<li>{html.escape(n)}</li>" for n in real)
    return _HTML(
        '<div class="admonition note"><p class="admonition-title">Data</p>'
        f"<p>Real data, checksum-verified:</p><ul>{items}</ul></div>"
    )


#: A status's badge: symbol, colours (text, background, border), border style (differing in greyscale).
_BADGES = {
    "replicated": ("✓", "#0b4a1f", "#dafbe1", "#1a7f37", "solid"),
    "partly": ("◐", "#5c3c00", "#fff1c2", "#9a6700", "dashed"),
    "inconclusive": ("?", "#1f3a70", "#ddeaff", "#0969da", "dashed"),
    "not replicated": ("✗", "#7d1414", "#ffe0e0", "#cf222e", "double"),
    "not comparable": ("–", "#3d444d", "#f0f1f3", "#8c959f", "dotted"),
}


#: How a sentence says each status (the scan of the built book reads these words back).
STATUS_WORDS = {
    REPLICATED: "replicated",
    PARTLY: "replicated in part",
    INCONCLUSIVE: "inconclusive",
    NOT_REPLICATED: "not replicated",
    NOT_COMPARABLE: "not comparable",
}


def status_badge(status: str, reason: str = "", note: int | None = None, *, word: bool = True) -> str:
    """The HTML badge of a status (symbol and, with ``word``, the word; ``reason`` on hover, ``note`` its legend entry)."""
    if status not in _BADGES:
        raise ValueError(f"status {status!r}: one of {STATUSES}")
    sym, fg, bg, border, style = _BADGES[status]
    width = "3px" if style == "double" else "1px"
    badge = (
        f'<span class="irrepro-status" data-status="{status}" title="{html.escape(reason)}" '
        f'style="display:inline-block;white-space:nowrap;padding:0 .45em;border-radius:.7em;'
        f'font-size:.85em;line-height:1.5;color:{fg};background:{bg};border:{width} {style} {border}">'
        f'<span aria-hidden="true">{sym}</span>{" " + status if word else ""}</span>'
    )
    if note is not None:
        badge += f'<sup class="irrepro-note-ref">{note}</sup>'
    return badge


def with_error(ours, se, paper=None) -> str | object:
    """Our value with its standard error, as tables print it: ``"0.049 ± 0.004"``.

    Parameters
    ----------
    ours : object
        Our value: a number, or text with parts (``"3.1 / 80.2"``).
    se : float, sequence of float or None
        Its standard error (per part); 0 or None: the value alone.
    paper : object
        The paper's value as printed, or None.

    Returns
    -------
    object
        The value with ``± se``, or as it is (an integer, words, no paper and no error).

    Examples
    --------
    >>> from irrepro.book import with_error
    >>> with_error(0.0491, 0.00412), with_error(0.3, 0), with_error("3.1 / 80.2", [0.21, 1.3])
    ('0.0491 ± 0.0041', 0.3, '3.1 (±0.2) / 80.2 (±1.3)')
    """
    arr = np.asarray([np.nan] if se is None else se, dtype=float).reshape(-1)
    # no error, or one that is rounding noise (the sd of equal replicates: 1e-17), shows the value alone
    noise = not np.isfinite(arr).any() or np.nanmax(arr) <= 1e-9
    printed = [d for d in (_decimals(paper) or []) if d is not None]
    allowed = max(printed) + 1 if printed else None  # the paper's decimals, plus one
    number = isinstance(ours, (float, np.floating)) and not isinstance(ours, bool)
    if noise and (allowed is None or not (number or isinstance(ours, str))):
        return ours
    # the error's two significant digits, then the paper's precision + 1
    digits = 6 if noise else min(max(0, -int(np.floor(np.log10(np.nanmax(arr)))) + 1), 6)
    if allowed is not None:
        digits = min(digits, allowed) if not noise else allowed
    if number:
        v = float(ours)
        if math.isfinite(v) and v != 0 and abs(v) < 1:  # at most four significant decimals
            digits = min(digits, MAX_SIGNIFICANT - 1 - int(np.floor(np.log10(abs(v)))))
        shown = f"{v:.{digits}f}"
        return shown if noise else f"{shown} ± {_err(float(np.nanmax(arr)), digits)}"
    if allowed is None:  # text, no paper precision: the error to the decimals ours shows (else two digits)
        places = max((len(m[2]) for m in _DECIMAL.finditer(str(ours))), default=0)
        errs = [_err(x, places) for x in arr] if places else [f"{x:.2g}" for x in arr]
        return _with_errors(str(ours), errs)
    if not isinstance(ours, str):  # an integer: exact, or with its error to the paper's decimals + 1
        return f"{ours} ± {_err(float(np.nanmax(arr)), digits)}"
    text = _DECIMAL.sub(
        lambda m: f"{float(m[0]):+.{digits}f}"[0 if m[0][0] in "+-" else 1 :] if len(m[2]) > digits else m[0],
        ours,
    )
    if noise:
        return text
    shown_digits = max((len(m[2]) for m in _DECIMAL.finditer(text)), default=0) or digits
    return _with_errors(text, [_err(x, shown_digits) for x in arr])


def _with_errors(text: str, errs: list[str]) -> str:
    """Text of one or more parts with each part's error beside it: ``"10.3 (±0.4) / 86.5 (±1.2)"``."""
    parts = _PARTS.split(text)
    if len(parts) == 1 or len(errs) not in (1, len(parts)):
        return f"{text} ± {' / '.join(errs)}"
    errs = errs * len(parts) if len(errs) == 1 else errs
    return "".join(f"{sep}{part} (±{e})" for sep, part, e in zip(["", *_PARTS.findall(text)], parts, errs))


#: the separators of a row's parts, as the rule reads them (irrepro._rule)
_PARTS = re.compile(r"\s+/\s+|\s*->\s*")


#: the most significant decimals a table shows (tests/_table_checks.py checks the pages)
MAX_SIGNIFICANT = 4
#: a decimal number in text, its integer part and decimals (``-0.25``, ``+3.10``)
_DECIMAL = re.compile(r"(?<![\w.])([+-]?\d+)\.(\d+)(?![\w.])")


def _err(x: float, digits: int) -> str:
    """An error to ``digits`` decimals; ``"<0.001"`` when it rounds to 0 there."""
    if not math.isfinite(x):
        return "-"
    shown = f"{x:.{digits}f}"
    return shown if float(shown) > 0 or x == 0 else f"<{10.0**-digits:.{digits}f}"


def _cell(x, digits: int = 3) -> str:
    """A table cell as the book shows it: a float to ``digits`` decimals, "-" for missing, text escaped."""
    if x is None or x is pd.NA or x is pd.NaT or (isinstance(x, (float, np.floating)) and math.isnan(x)):
        return "-"
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.{digits}f}"
    return html.escape(str(x))


def _paper_shown(text: str, places: int) -> str:
    """A paper's raw number of more than :data:`MAX_SIGNIFICANT` significant decimals, rounded."""
    m = _DECIMAL.fullmatch(text.strip())
    v = float(m[0]) if m and len(m[2].lstrip("0")) > MAX_SIGNIFICANT else 0.0
    cap = MAX_SIGNIFICANT - 1 - int(np.floor(np.log10(abs(v)))) if 0 < abs(v) < 1 else places
    return f"{v:.{min(places, cap)}f}" if v else text


#: Every kind of reason the rule writes: how its text begins and its sentence in a table's legend.
_REASON_KINDS = (
    ("within", re.compile(r"within "),
     "Within: our value with its error interval (Monte Carlo, and the paper's sampling error where it gives "
     "n) lies inside the paper's printed value widened by its rounding and the margin of the row's kind."),
    ("outside", re.compile(r"outside(?= by )"),
     "Outside: our value with its error interval lies wholly outside the paper's printed value widened by "
     "its rounding and the margin of the row's kind (by how much: on hover)."),
    ("straddles", re.compile(r"straddles "),
     "Straddles: our value's error interval crosses an edge of the paper's value widened by its rounding and "
     "the row's margin; more replicates would decide."),
    ("parts", re.compile(r"(?=(\d+ [a-z ]+, )*\d+ [a-z ]+ of the parts:)"),  # the counts: particulars
     "Several numbers (a / b / c), each judged on its own against the paper's: replicated when all are, not "
     "replicated when all are not, partly when both occur, inconclusive otherwise."),
    ("no number", re.compile(r"the paper gives no number"),
     "The paper prints no number here: ours is for the record."),
    ("no claim", re.compile(r"the paper gives no claim"),
     "The paper makes no such claim: ours is for the record."),
    ("no value", re.compile(r"no value of ours to compare"), "We have no value to compare with the paper's."),
    ("verdict", re.compile(r"the chapter's verdict on "),
     "A claim in words: the chapter's verdict, computed from the rows it names."),
    ("from", re.compile(r"from "), "A claim in words: the combined status of the rows it rests on."),
    ("restates", re.compile(r"as "),
     "Restates rows judged above and takes their status (the scorecard counts it once)."),
)  # fmt: skip


def reason_kind(reason: str) -> tuple[str, str]:
    """The legend's sentence for a reason's kind, and its particulars (a chapter's own reason: itself)."""
    text = str(reason).strip()
    for _name, start, sentence in _REASON_KINDS:
        m = start.match(text)
        if m:
            return sentence, text[m.end() :].strip(" :;")
    return text, ""


def status_table(
    frame: pd.DataFrame,
    caption: str = "",
    *,
    titles: Mapping[str, Sequence[str]] | None = None,
    anchor: str = "",
    hide: Sequence[str] = (),
    badges: Sequence[str] = (),
    comparison: bool = True,
    links: Mapping[str, Sequence[str]] | None = None,
    html_columns: Sequence[str] = (),
) -> _HTML:
    """A table with ``status`` (and ``badges``) as badges, each reason on hover, their kinds in a legend."""
    titles = titles or {}
    cols = [c for c in frame.columns if c not in ("reason", *hide, *(f"{b} reason" for b in badges))]
    notes: dict[str, int] = {}  # the legend: the sentence of each kind of reason -> its number
    body = []
    # data-label: the column's name, shown before the value when a phone stacks the row (irrepro.css)
    label = {c: f' data-label="{html.escape(str(c), quote=True)}"' for c in cols}
    ours = [_cell(x) for x in frame.get("ours", []) if not _missing(x)]  # a raw paper value: ours' decimals
    places = max((len(m[2]) for x in ours for m in _DECIMAL.finditer(x)), default=3)
    for i, (_, r) in enumerate(frame.iterrows()):
        cells = []
        for c in cols:
            if c == "status" or c in badges:  # its reason on hover; the status's kind of reason in the legend
                tip = r.get("reason" if c == "status" else f"{c} reason")
                tip = "" if _missing(tip) else str(tip)
                n = notes.setdefault(reason_kind(tip)[0], len(notes) + 1) if c == "status" and tip else None
                if c != "status" and _missing(r[c]):
                    cells.append(f"<td{label[c]}>{_cell(None)}</td>")
                else:
                    cells.append(
                        f'<td{label[c]} style="white-space:nowrap">{status_badge(r[c], tip, n)}</td>'
                    )
            else:
                t = titles.get(c, [])
                hover = str(t[i]) if i < len(t) and t[i] else ""
                x = r[c]  # a whole count (189.0) shown whole; a paper's raw value rounded as ours
                whole = c == "ours" and r.get("kind") == "count" and isinstance(x, float) and x.is_integer()
                raw = c == "paper" and isinstance(x, str) and _paper_shown(x, places) != x
                shown = _paper_shown(x, places) if raw else _cell(int(x) if whole else x)
                hover = (f"{hover} (full value {x})" if hover else f"full value {x}") if raw else hover
                tip = f' title="{html.escape(hover)}"' if hover else ""
                if c in html_columns:
                    shown = _cell(None) if _missing(x) else str(x)
                to = (links or {}).get(c, [])
                if i < len(to) and to[i]:
                    shown = f'<a href="{html.escape(str(to[i]))}">{shown}</a>'
                cells.append(f"<td{label[c]}{tip}>{shown}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    foot = ""
    if notes:
        items = "".join(f"<li>{html.escape(k)}</li>" for k in notes)
        # one entry per kind of reason; a row's particulars are in its badge's hover text
        foot = (
            '<ol class="irrepro-reasons" style="font-size:.8em;margin-top:.2em" '
            'title="the numbers of each row: hover over its badge">'
            f"{items}</ol>"
        )
    wrapper = "irrepro-comparison" if comparison else "irrepro-plain"
    return _HTML(_wrap([str(c) for c in cols], body, caption, wrapper, anchor=anchor, foot=foot))


def _wrap(
    heads: Sequence[str],
    body: Sequence[str],
    caption: str,
    wrapper: str,
    *,
    anchor: str = "",
    foot: str = "",
    classes: str = "",
) -> str:
    """A book table's HTML: header, rows, caption and legend in ``div.<wrapper>``."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    ident = f' id="cmp-{anchor}"' if anchor else ""
    more = f" {classes}" if classes else ""
    return (
        f'<div class="{wrapper}"{ident}><table class="dataframe irrepro-table{more}">{cap}'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{foot}</div>"
    )


def collections_table() -> pd.DataFrame:
    """The book's collections: size, measures, files, licence and citation key.

    Returns
    -------
    pandas.DataFrame
        One row per collection.
    """
    reg, rows = registry(), []
    for c in COLLECTIONS.values():
        files = c.files()
        qrels = f" + qrels ({c.ir_datasets_id})" if c.ir_datasets_id or c.kind == "runs" else ""
        content = "ranked runs" + qrels if c.kind == "runs" else ", ".join(c.measures) + qrels
        mb = round(sum(reg[p].bytes for p in files) / 1e6, 2)
        lic = "; ".join(sorted({reg[p].license for p in files}))
        rows.append(
            [c.name, c.title, f"{c.shape[0]} x {c.shape[1]}", content, len(files), mb, lic, c.citation]
        )
    return pd.DataFrame(
        rows, columns=["collection", "what", "runs x topics", "content", "files", "MB", "licence", "cite"]
    )


def table(
    frame,
    *,
    digits: int | Mapping[str, int] = 3,
    caption: str = "",
    classes: str = "",
    statuses: bool = False,
) -> _HTML:
    """A table as a reader of the book sees it: numbers to ``digits`` decimals, a card per row on a phone.

    Parameters
    ----------
    frame : pandas.DataFrame or pandas.Series
    digits : int or mapping
        Decimals of the floats, or column -> decimals (columns not named: 3).
    caption : str
    classes : str
        More CSS classes of the ``<table>``.
    statuses : bool
        Draw the ``status`` column as badges, each ``reason`` on hover and its kind in a legend
        (the statuses' table: its cells as the rows give them, no ``digits`` or ``classes``).

    Returns
    -------
    object
        HTML that Jupyter displays.

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import book
    >>> html = book.table(pd.DataFrame({"rate": [0.0454545, None]}), digits=3)._repr_html_()
    >>> '<td data-label="rate">0.045</td>' in html, "0.0454545" in html, ">0<" in html
    (True, False, False)
    """
    if statuses:
        if digits != 3 or classes:
            raise InputError("a table of statuses takes no digits or classes")
        return status_table(frame, caption, comparison=False)
    df = frame.to_frame() if isinstance(frame, pd.Series) else frame
    places = dict(digits) if isinstance(digits, Mapping) else {}
    default = 3 if isinstance(digits, Mapping) else digits

    def name(c) -> str:  # a column's header: a MultiIndex's levels as "a / b"
        return " / ".join(str(p) for p in c if str(p) != "") if isinstance(c, tuple) else str(c)

    bare = isinstance(df.index, pd.RangeIndex) and df.index.start == 0 and df.index.step == 1
    keys = [] if bare else [("" if n is None else str(n)) for n in df.index.names]
    heads = keys + [name(c) for c in df.columns]
    label = [f' data-label="{html.escape(h, quote=True)}"' for h in heads]
    cells = []
    for idx, row in zip(df.index, df.itertuples(index=False, name=None)):
        labels = [] if bare else (list(idx) if isinstance(idx, tuple) else [idx])
        values = ["-" if _missing(x) else html.escape(str(x)) for x in labels]  # labels as they are
        cells.append(values + [_cell(x, places.get(c, default)) for c, x in zip(df.columns, row)])
    body = ["<tr>" + "".join(f"<td{a}>{v}</td>" for a, v in zip(label, r)) + "</tr>" for r in cells]
    # the plain-text fallback
    text = pd.DataFrame([[html.unescape(v) for v in r] for r in cells], columns=heads)
    plain = (caption + "\n" if caption else "") + text.to_string(index=False)
    return _HTML(_wrap(heads, body, caption, "irrepro-plain", classes=classes), plain)


def anchor(paper: str, item: str) -> str:
    """The HTML id of the table of ``paper``'s ``item`` (``cmp-<paper>-<item>``), the target of the links to it."""
    return "cmp-" + slug(f"{paper}-{item}")


def docname(paper: str, page: str = "") -> str:
    """The docname of the page of ``paper``'s chapter (or of its sub-page ``page``) that shows a table."""
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
