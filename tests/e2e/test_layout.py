"""The book on a phone and a laptop (issue 24): every chapter, the introduction, the replications
index and the scorecard, opened in headless Chromium at 390 px and 1280 px wide. The page never
scrolls sideways (document scrollWidth <= viewport width) and no element is clipped (cut off by a
box that hides its overflow, or reaching past the viewport outside a box that scrolls) and no table
cell is cut off (its text hidden in the cell, or the cell out of view in a box that scrolls sideways,
every folded <details> opened); the page's length in screens and the boxes that scroll sideways inside
it (wide tables and code) are counted and printed per page (and written to
``_build/screenshots/scrollers-<width>.txt``); a screenshot of each page at each width
is written to ``_build/screenshots/`` for a person to look at."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_site import ALL_CHAPTERS, SUBPAGES, _load, browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.e2e

SHOTS = Path(__file__).resolve().parents[2] / "_build" / "screenshots"
PAGES = [
    "book/intro.html",
    "book/replications.html",
    *(p for c in ALL_CHAPTERS for p in (c, *SUBPAGES.get(c, []))),
    "book/scorecard.html",
]
#: the tallest screenshot taken (px): longer pages are cut there
TALLEST = 16000

_METRICS = r"""
const de = document.documentElement;
const scrollers = Array.from(document.querySelectorAll('main *')).filter(e => {
  const s = getComputedStyle(e);
  return (s.overflowX === 'auto' || s.overflowX === 'scroll') && e.scrollWidth > e.clientWidth + 1
    && e.clientWidth > 0;
});
const inTables = scrollers.filter(e => e.querySelector('table') || e.closest('.irrepro-comparison')).length;
// clipped: content cut off where no one can scroll to it - a box hiding what overflows it, or an
// element reaching past the viewport's right edge outside any box that scrolls sideways
const scrolls = e => { const s = getComputedStyle(e); return s.overflowX === 'auto' || s.overflowX === 'scroll'; };
const inScroller = e => { for (let p = e.parentElement; p; p = p.parentElement) if (scrolls(p)) return true; return false; };
const describe = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
  (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') +
  ' "' + Array.from((e.textContent || '').trim()).slice(0, 40).join('') + '"';
// (in the page's article: the theme's off-canvas drawers are not the book's)
const clipped = Array.from(document.querySelectorAll('article.bd-article *')).filter(e => {
  if (!e.offsetParent && getComputedStyle(e).position !== 'fixed') return false;  // not shown
  const s = getComputedStyle(e);
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return false;
  // text for screen readers only (MathJax's assistive MathML): clipped on purpose
  if (s.position === 'absolute' && (s.clip !== 'auto' || r.width <= 1 || r.height <= 1)) return false;
  const hides = (s.overflowX === 'hidden' || s.overflowX === 'clip') && e.scrollWidth > e.clientWidth + 1
    && e.clientWidth > 0 && s.textOverflow !== 'ellipsis';
  const past = r.right > window.innerWidth + 1 && !inScroller(e);
  return hides || past;
}).slice(0, 20).map(describe);
return {page: de.scrollWidth, view: window.innerWidth, scrollers: scrollers.length, tables: inTables,
        height: de.scrollHeight, clipped: clipped};
"""


#: the table cells a reader cannot read whole, every <details> opened: text cut off inside its cell
#: (overflow hidden or an ellipsis), a cell out of view in a box that scrolls sideways (the last
#: columns of a table wider than the page's column), or a cell past the window
_CUT_CELLS = r"""
document.querySelectorAll('article.bd-article details').forEach(d => { d.open = true; });
const boxed = e => getComputedStyle(e).overflowX !== 'visible';
const cut = [];
for (const c of document.querySelectorAll('article.bd-article td, article.bd-article th')) {
  const r = c.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;  // not shown
  const s = getComputedStyle(c);
  let why = c.scrollWidth > c.clientWidth + 1 && (s.overflowX !== 'visible' || s.textOverflow === 'ellipsis')
    ? 'text cut in its cell' : '';
  for (let p = c.parentElement; p && !why && p.tagName !== 'ARTICLE'; p = p.parentElement) {
    if (!boxed(p)) continue;
    const q = p.getBoundingClientRect();
    if (r.right > q.right + 1 || r.left < q.left - 1) why = 'out of view in a box scrolling sideways';
    break;
  }
  if (!why && r.right > window.innerWidth + 1) why = 'past the window';
  if (why) cut.push(why + ': "' + Array.from((c.textContent || '').trim()).slice(0, 40).join('') + '"');
}
return cut;
"""


@pytest.mark.parametrize("width", [390, 1280])
def test_no_page_scrolls_sideways_and_screenshots_are_written(server, browser, width):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    rows = {}
    try:
        for page in PAGES:
            browser.set_window_size(width, 1000)
            _load(browser, f"{server}/{page}")
            m = browser.execute_script(_METRICS)
            m["screens"] = m["height"] / browser.execute_script("return window.innerHeight")
            rows[page] = m
            browser.set_window_size(width, min(int(m["height"]) + 50, TALLEST))
            name = page.replace("/", "_").removesuffix(".html")
            assert browser.save_screenshot(str(SHOTS / f"{name}-{width}.png"))
            browser.set_window_size(width, 1000)
            m["cut"] = browser.execute_script(_CUT_CELLS)
    finally:
        browser.set_window_size(1280, 2000)
    lines = [
        f"at {width} px: page width / viewport, length in screens, boxes scrolling sideways (of them "
        "tables), elements clipped, table cells cut off"
    ]
    lines += [
        f"  {page:<45} {m['page']:>5} / {m['view']:<5} {m['screens']:>6.1f} {m['scrollers']:>4} ({m['tables']})"
        f" {len(m['clipped']):>4} {len(m['cut']):>4}"
        for page, m in rows.items()
    ]
    print("\n" + "\n".join(lines))  # shown with pytest -s; and kept beside the screenshots
    (SHOTS / f"scrollers-{width}.txt").write_text("\n".join(lines) + "\n")
    wide = {p: (m["page"], m["view"]) for p, m in rows.items() if m["page"] > m["view"]}
    assert not wide, f"pages scrolling sideways at {width} px: {wide}"
    clipped = {p: m["clipped"][:5] for p, m in rows.items() if m["clipped"]}
    assert not clipped, f"elements clipped at {width} px (first five per page): {clipped}"
    cut = {p: m["cut"][:5] for p, m in rows.items() if m["cut"]}
    assert not cut, f"table cells cut off at {width} px (first five per page): {cut}"


def test_the_introductions_first_screen_on_a_phone_holds_the_headlines(server, browser):  # noqa: F811
    """At 390 px (a phone's 844 px tall window) the introduction's first screen shows a line per
    chapter with its finding (irrepro.book.headline_table's compact list, issue 44)."""
    try:
        browser.set_window_size(390, 844)
        _load(browser, f"{server}/book/intro.html")
        got = browser.execute_script(
            """const ul = document.querySelector('ul.irrepro-headlines-compact');
            if (!ul) return null;
            const r = ul.getBoundingClientRect();
            return {bottom: r.bottom + window.scrollY, screen: window.innerHeight, shown: r.height > 0,
                    lines: ul.querySelectorAll(':scope > li').length,
                    table: document.querySelector('div.irrepro-headlines table').getBoundingClientRect().height};"""
        )
    finally:
        browser.set_window_size(1280, 2000)
    assert got is not None, "no compact headline list on the introduction"
    assert got["shown"] and got["lines"] >= 4 and got["table"] == 0, got
    assert got["bottom"] <= got["screen"], (
        f"the headlines end at {got['bottom']:.0f} px, the screen at {got['screen']}"
    )
