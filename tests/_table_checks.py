"""Checks of the tables of a built page as a reader sees them (issue 24): no number with more
than four significant decimals (digits after the point, leading zeros not counted: 0.00271 has
three, 92.400000 six; a paper's value too: a raw output's 0.0509202 is rounded by the table helper,
its full value on hover), no bare 0..N-1 index column, no
table shown twice; in a comparison table, ours printed with at most one decimal more than the
paper's value of its row, and one legend entry per kind of reason (not one footnote per row); in a chapter, every table a cell
shows stackable into cards at phone width (:func:`check_stackable`). Used by tests/e2e/test_tables.py on ``_build/html`` and by
tests/test_table_checks.py on small pages, so the checks are tested in ``make test``.

Each ``check_*`` function returns a list of problems (empty: fine), one line each, naming the page
and the table."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from irrepro.book._display import reason_kind

#: a decimal number (not part of a longer token): its digits after the point
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.(\d+)(?![\w.])")
#: the most significant decimals a cell may show
MAX_DECIMALS = 4


def significant_decimals(text: str) -> tuple[int, str]:
    """The most significant decimals of a number in ``text`` (leading zeros after the point not
    counted) and that number."""
    best = (0, "")
    for m in _DECIMAL.finditer(text):
        n = len(m.group(1).lstrip("0"))
        if n > best[0]:
            best = (n, m.group(0))
    return best


def _tables(html: str):
    soup = BeautifulSoup(html, "html.parser")
    return [t for t in soup.find_all("table") if not t.find_parent("table")]


def _header(table) -> list[str]:
    row = table.find("thead")
    row = row.find_all("tr")[-1] if row else table.find("tr")
    return [c.get_text(" ", strip=True).lower() for c in row.find_all(["th", "td"])] if row else []


def _label(table, k: int) -> str:
    cap = table.find("caption")
    head = ", ".join(h for h in _header(table) if h)[:60]
    return f"table {k + 1}" + (f" ({cap.get_text(' ', strip=True)[:60]})" if cap else f" [{head}]")


def check_precision(html: str, page: str = "") -> list[str]:
    """The first cell of each table showing a number with more than :data:`MAX_DECIMALS`
    significant decimals."""
    out = []
    for k, table in enumerate(_tables(html)):
        for tr in table.find_all("tr"):
            for cell in tr.find_all(["td", "th"]):
                n, number = significant_decimals(cell.get_text(" ", strip=True))
                if n > MAX_DECIMALS:
                    out.append(f"{page}: {_label(table, k)}: {number!r} shows {n} significant decimals")
                    break
            else:
                continue
            break
    return out


def check_bare_index(html: str, page: str = "") -> list[str]:
    """pandas tables whose first column is the bare index 0, 1, ..., n - 1 (n >= 2)."""
    out = []
    for k, table in enumerate(_tables(html)):
        if "dataframe" not in (table.get("class") or []):
            continue
        body = table.find("tbody") or table
        firsts = []
        for tr in body.find_all("tr"):
            cell = tr.find(["th", "td"])
            firsts.append(cell.get_text(strip=True) if cell else "")
        if len(firsts) >= 2 and firsts == [str(i) for i in range(len(firsts))]:
            out.append(f"{page}: {_label(table, k)}: a bare 0..{len(firsts) - 1} index column")
    return out


def check_duplicates(html: str, page: str = "") -> list[str]:
    """Tables shown twice on the page (the same text in every cell)."""
    seen: dict[str, int] = {}
    out = []
    for k, table in enumerate(_tables(html)):
        text = " ".join(table.get_text(" ", strip=True).split())
        if len(text) < 20:
            continue
        if text in seen:
            out.append(f"{page}: {_label(table, k)} repeats table {seen[text] + 1}")
        else:
            seen[text] = k
    return out


def _decimals(text: str) -> int | None:
    """The most decimals of a number in ``text`` (0 for integers), None when it holds no number, a
    fraction ("2/3", printed to half its denominator's unit) or a bound ("> 0")."""
    if re.search(r"\d\s*/\s*\d", text) and not re.search(r"\d\s+/\s+\d", text):
        return None
    if re.search(
        r"(^|/)\s*(>|<|≥|≤|over|under|above|below|more than|less than|at least|at most|up to|as few as"
        r"|no more than|no less than|not exceeding|exceeds?|(?:well|far) (?:above|over|below|under|more than|less than))",
        text,
    ):
        return None  # a bound is a threshold, not a printed precision
    numbers = re.findall(r"(?<![\w.])-?\d+(?:\.(\d+))?(?![\w])", text)
    return max((len(d) for d in numbers), default=None) if numbers else None


def _comparisons(html: str):
    soup = BeautifulSoup(html, "html.parser")
    return [d for d in soup.find_all("div", class_="irrepro-comparison") if d.find("table")]


def check_ours_precision(html: str, page: str = "") -> list[str]:
    """Rows of comparison tables whose ours (and its error) shows more than one decimal more than
    the paper's value of the row (a row whose paper value holds no number, or a fraction, is not
    checked)."""
    out = []
    for k, div in enumerate(_comparisons(html)):
        table = div.find("table")
        header = _header(table)
        if "paper" not in header or "ours" not in header:
            continue
        ip, io = header.index("paper"), header.index("ours")
        for tr in (table.find("tbody") or table).find_all("tr"):
            cells = tr.find_all(["td", "th"])
            if len(cells) <= max(ip, io):
                continue
            paper, ours = (cells[i].get_text(" ", strip=True) for i in (ip, io))
            dp, do = _decimals(paper), _decimals(ours)
            if dp is not None and do is not None and do > dp + 1:
                out.append(
                    f"{page}: {_label(table, k)}: ours {ours!r} has {do} decimals, the paper's {paper!r} {dp}"
                )
                break
    return out


def check_legend(html: str, page: str = "") -> list[str]:
    """Comparison tables whose legend has more entries than the kinds of reason of its rows (one
    footnote per row's reason, not one legend entry per kind: :func:`irrepro.book.reason_kind`),
    or a badge pointing to no entry."""
    out = []
    for k, div in enumerate(_comparisons(html)):
        badges = [b for b in div.select(".irrepro-status") if b.get("title") and b.find_next_sibling("sup")]
        kinds = {reason_kind(b["title"])[0] for b in badges}
        legend = div.select("ol.irrepro-reasons > li")
        refs = {int(s.get_text(strip=True)) for s in div.select("sup.irrepro-note-ref")}
        if len(legend) > len(kinds):
            out.append(
                f"{page}: {_label(div.find('table'), k)}: {len(legend)} legend entries for "
                f"{len(kinds)} kinds of reason"
            )
        elif refs - set(range(1, len(legend) + 1)):
            out.append(
                f"{page}: {_label(div.find('table'), k)}: badges point to entries {sorted(refs)} of {len(legend)}"
            )
    return out


def check_tables(html: str, page: str = "") -> list[str]:
    """All the checks."""
    return (
        check_precision(html, page)
        + check_bare_index(html, page)
        + check_duplicates(html, page)
        + check_ours_precision(html, page)
        + check_legend(html, page)
    )


#: the wrappers of the book's tables (irrepro.book.table, status_table, compare), stacked at phone width
_STACKED = ("irrepro-comparison", "irrepro-plain")


def check_stackable(html: str, page: str = "") -> list[str]:
    """Tables a cell shows (in ``div.cell_output``) that a phone cannot stack into cards: neither
    inside a ``div.irrepro-comparison`` / ``div.irrepro-plain`` nor with a ``data-label`` on every
    body cell (book/_static/irrepro.css turns such a table's rows into cards of "column: value"
    lines at <= 640 px; any other table scrolls sideways inside its own box). Tables of the page's
    prose (MyST Markdown) are not cell outputs and are not checked."""
    out = []
    for k, table in enumerate(_tables(html)):
        if not table.find_parent("div", class_="cell_output"):
            continue
        if any(table.find_parent("div", class_=w) for w in _STACKED):
            continue
        cells = (table.find("tbody") or table).find_all("td")
        if cells and all(c.has_attr("data-label") for c in cells):
            continue
        out.append(
            f"{page}: {_label(table, k)}: not stackable at phone width (not drawn by irrepro.book.table)"
        )
    return out
