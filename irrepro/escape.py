"""One escaping function per output format (LaTeX, Markdown, HTML; plain text, CSV, matplotlib, shell),
so that any name a user chose comes out of every writer as itself: hidden characters written as
Python's escapes (``\\n``, ``\\u202e``), long names shortened with the full one kept beside, CSV cells
guarded against formula injection (OWASP)."""

from __future__ import annotations

import csv
import os
import re
import shlex
import unicodedata
from collections.abc import Iterable

from .errors import InputError

__all__ = ["html", "latex", "markdown"]

#: Names longer than this are shortened in tables and figures (a column or a tick label's width).
MAX_NAME = 40
ELLIPSIS = "\u2026"  #: what stands for the characters a shortened name leaves out

#: The Unicode categories the escapers write as escapes: control, format, surrogate, separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _visible(text: str) -> str:
    """Hidden characters (:data:`_HIDDEN`) as Python's escapes (``\\n``, ``\\x1b``, ``\\u202e``)."""
    if text.isprintable():  # (printable: none of those; the usual case, at C speed)
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _HIDDEN else c for c in text)


def shorten(name, width: int = MAX_NAME) -> str:
    """A name shortened to at most ``width`` characters for display."""
    name = str(name)
    if width < 5:
        raise InputError(f"width must be at least 5, got {width}")
    if len(name) <= width:
        return name
    tail = (width - 1) // 4
    return name[: width - 1 - tail] + ELLIPSIS + name[len(name) - tail :]


def short_names(names: Iterable, width: int = MAX_NAME) -> list[str]:
    """The shortened names, kept apart."""
    names = [str(n) for n in names]
    out = [shorten(n, width) for n in names]
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(out):
        groups.setdefault(unicodedata.normalize("NFKC", s), []).append(i)
    taken = set(groups)
    for idx in groups.values():
        if len(idx) < 2:
            continue
        whole = [i for i in idx if out[i] == names[i]]
        k = 0
        for i in idx:
            if len(whole) == 1 and i == whole[0]:
                continue
            while True:  # the next tag whose label no other name has
                k += 1
                tag = f"[{k}]"
                n = names[i]
                label = shorten(n, width - len(tag)) + tag if len(n) > width - len(tag) else n + tag
                if unicodedata.normalize("NFKC", label) not in taken:
                    break
            out[i] = label
            taken.add(unicodedata.normalize("NFKC", label))
    return out


def shortened_key(names: Iterable, labels: Iterable[str]) -> list[tuple[str, str]]:
    """The names a table or figure shows shortened, for its key."""
    return [(lab, str(n)) for n, lab in zip(names, labels) if lab != str(n)]


def look_alikes(names: Iterable) -> list[list[str]]:
    """The names that differ but look the same: equal in Unicode's normalization NFKC."""
    groups: dict[str, list[str]] = {}
    for n in dict.fromkeys(str(n) for n in names):
        groups.setdefault(unicodedata.normalize("NFKC", n), []).append(n)
    return [g for g in groups.values() if len(g) > 1]


def plain(text) -> str:
    """``text`` for a terminal or a tab-separated file."""
    return _visible(str(text))


#: Computer Modern Typewriter's glyph (OT1 cmtt: in every TeX installation) of a character OT1's
#: text fonts print otherwise ("_" a rule, "~" "^" accents, "`" "'" '"' curly quotes).
_TT = r"{\usefont{OT1}{cmtt}{m}{n}\char%d}"
_LATEX = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%",
    "_": _TT % 95, "~": _TT % 126, "^": _TT % 94, "`": _TT % 18, "'": _TT % 13, '"': _TT % 34,
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    "-": "-{}", ",": ",{}"
}  # fmt: skip
#: "-" and "," only before another: "--" and "---" would print dashes, ",," (T1) a low quote.
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX if k not in "-,") + "|-(?=-)|,(?=,)")
#: Prose: its apostrophes, quotes and dashes typeset as LaTeX types them (’ ” – —).
_LATEX_PROSE_RE = re.compile("|".join(re.escape(k) for k in _LATEX if k not in "-,'\"") + "|,(?=,)")


def latex(text, *, prose: bool = False) -> str:
    """``text`` for LaTeX's text mode (a table cell, a caption), every character printed as it is.

    Special characters escaped or set in Computer Modern Typewriter's glyphs, ``--`` and ``,,`` kept
    apart, control characters made visible; letters beyond ASCII kept (pdflatex sets the Latin ones).

    Parameters
    ----------
    text : object
        The text (made a string).
    prose : bool, default False
        irrepro's own sentences: ``'``, ``"``, ``--``, ``---`` left to LaTeX's typography.

    Returns
    -------
    str
        LaTeX source that prints ``text``.

    Examples
    --------
    >>> from irrepro.escape import latex
    >>> print(latex("50% of A_1 <= B"))
    50\\% of A{\\usefont{OT1}{cmtt}{m}{n}\\char95}1 \\textless{}= B
    >>> print(latex("a--b's"), latex("a--b's", prose=True))
    a-{}-b{\\usefont{OT1}{cmtt}{m}{n}\\char13}s a--b's
    """
    pattern = _LATEX_PROSE_RE if prose else _LATEX_RE
    return pattern.sub(lambda mo: _LATEX[mo.group(0)], _visible(str(text)))


#: Letters and punctuation of those ranges that pdflatex's default font encoding (OT1) lacks.
_OT1_MISSING = frozenset("«»ÐÞðþĄąĐđĘęĦħĮįĸĿŀŉŊŋŦŧŲųſ‗‚‛„‟‣․‥")


def latex_beyond_pdflatex(text) -> list[str]:
    """The characters of ``text`` that pdflatex cannot set in its default font encoding."""
    beyond = [
        c for c in str(text) if (ord(c) > 0x17F and not 0x2010 <= ord(c) <= 0x2026) or c in _OT1_MISSING
    ]
    return list(dict.fromkeys(beyond))


# CommonMark's inline constructs (code, emphasis, links, HTML, entities, math, table cells) start anywhere
_MD_INLINE = re.compile(r"([\\`*_\[\]<>|~$&])")
# ... and these only at the start of a line (headings, list items, setext underlines).
_MD_LEADING = re.compile(r"^([#+\-=])")


def markdown(text) -> str:
    """``text`` for a Markdown table cell or inline text, shown literally.

    ``\\ ` * _ [ ] < > | ~ $ &`` backslash-escaped anywhere, a leading ``# + - =`` too, spaces at
    either end as ``&#32;``, control characters made visible.

    Parameters
    ----------
    text : object
        The text (made a string).

    Returns
    -------
    str
        Markdown that renders as ``text``.

    Examples
    --------
    >>> from irrepro.escape import markdown
    >>> print(markdown("a|b *c*"))
    a\\|b \\*c\\*
    """
    out = _MD_LEADING.sub(r"\\\1", _MD_INLINE.sub(r"\\\1", _visible(str(text))))
    core = out.strip(" ")  # spaces at either end: a table cell's are trimmed, a character reference's not
    start = out.index(core) if core else len(out)
    return "&#32;" * start + core + "&#32;" * (len(out) - start - len(core))


def html(text):
    """``text`` for HTML (text or an attribute value); a :class:`markupsafe.Markup` as it is.

    Parameters
    ----------
    text : object
        The text.

    Returns
    -------
    markupsafe.Markup
        HTML that shows ``text``.

    Examples
    --------
    >>> from irrepro.escape import html
    >>> print(html('<b>"A&B"</b>'))
    &lt;b&gt;&#34;A&amp;B&#34;&lt;/b&gt;
    """
    from markupsafe import Markup, escape

    if isinstance(text, Markup):
        return text
    return escape(_visible(str(text)))


def html_name(name, width: int = MAX_NAME, label: str | None = None):
    """A name for an HTML page, shortened with its full form as a tooltip."""
    from markupsafe import Markup

    name = str(name)
    short = label if label is not None else shorten(name, width)
    if short == name:
        return html(name)
    return Markup('<span title="{}">{}</span>').format(html(name), html(short))


def mpl(text) -> str:
    """``text`` for matplotlib, drawn literally and never as mathtext."""
    out = _visible(str(text)).replace("$", r"\$")
    return "\u200b" + out if out.startswith("_") else out


#: The characters ``shell`` writes by the names bash's ``$'...'`` knows.
_SHELL_NAMED = {"\\": "\\\\", "'": "\\'", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def shell(text) -> str:
    r"""``text`` as one word of a bash command line: pasted into bash, it is ``text``, byte for byte."""
    text = os.fspath(text) if isinstance(text, os.PathLike) else str(text)
    if not any(unicodedata.category(c) in _HIDDEN for c in text):
        return shlex.quote(text)

    def word(c: str) -> str:
        if c in _SHELL_NAMED or unicodedata.category(c) not in _HIDDEN:
            return _SHELL_NAMED.get(c, c)
        try:
            raw = os.fsencode(c)
        except UnicodeError:  # a lone surrogate no file name holds: its UTF-8 form
            raw = c.encode("utf-8", "surrogatepass")
        return "".join(f"\\x{b:02x}" for b in raw)

    return "$'" + "".join(map(word, text)) + "'"


_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def csv_cell(value):
    """``value``, or ``"'" + value`` for a text cell a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(_CSV_FORMULA) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_quoting(cells: Iterable) -> int:
    """The ``quoting`` of Python's csv writer (and pandas') for ``cells``."""
    cr = any(isinstance(c, str) and "\r" in c for c in cells)
    return csv.QUOTE_NONNUMERIC if cr else csv.QUOTE_MINIMAL


def to_csv(frame, path=None, **kwargs):
    """``frame.to_csv(path, **kwargs)``, every text cell, column name and index label through :func:`csv_cell`."""
    import pandas as pd

    out = frame.copy(deep=False)

    def text(x) -> bool:  # object or str dtype: the cells may be text
        return not pd.api.types.is_numeric_dtype(x) and not pd.api.types.is_datetime64_any_dtype(x)

    def labels(index):
        if isinstance(index, pd.MultiIndex):
            return index.set_levels([lev.map(csv_cell) if text(lev) else lev for lev in index.levels])
        return index.map(csv_cell) if text(index) else index

    out.columns = labels(out.columns)
    out.index = labels(out.index)
    for k in range(out.shape[1]):
        col = out.iloc[:, k]
        if text(col):
            out.isetitem(k, col.map(csv_cell))
    texts = [*out.columns.to_flat_index(), *out.index.to_flat_index()]
    texts += [v for k in range(out.shape[1]) if text(out.iloc[:, k]) for v in out.iloc[:, k]]
    kwargs.setdefault("quoting", csv_quoting(texts))
    kwargs.setdefault("lineterminator", "\n")  # the quoting above assumes it, on every platform
    return out.to_csv(path, **kwargs)
