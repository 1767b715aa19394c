"""The built book, tested as a reader would: served on localhost and driven by headless Chromium.

Run after ``make book`` with ``make e2e`` (``.ci/run`` does). Needs Debian's ``chromium`` and
``chromium-driver`` packages (no browser download). Under CI a missing browser or site fails.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SITE = Path(__file__).resolve().parents[2] / "_build" / "html"
# the browser and its driver: IRREPRO_CHROMIUM / IRREPRO_CHROMEDRIVER, or the ones on PATH
CHROMIUM = Path(os.environ.get("IRREPRO_CHROMIUM") or shutil.which("chromium") or "chromium")
CHROMEDRIVER = Path(os.environ.get("IRREPRO_CHROMEDRIVER") or shutil.which("chromedriver") or "chromedriver")
# Sphinx's own pages that are not part of the book's content
SKIP_PAGES = {"genindex.html", "search.html"}


def _unavailable(why: str):
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="module")
def server():
    if not (SITE / "index.html").is_file():
        _unavailable(f"no built site at {SITE}: run `make book` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(SITE))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        _unavailable(
            "Chromium / ChromeDriver not installed (apt-get install chromium chromium-driver; "
            "or set IRREPRO_CHROMIUM / IRREPRO_CHROMEDRIVER)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,2000",
    ):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _pages() -> list[str]:
    return sorted(
        str(p.relative_to(SITE))
        for p in SITE.rglob("*.html")
        if p.name not in SKIP_PAGES
        and "_static" not in p.parts
        and "_sources" not in p.parts
        and "student" not in p.relative_to(SITE).parts  # the student edition's copy: its own test
    )


def _load(browser, url: str):
    browser.get(url)
    # wait for the page's scripts (theme, MathJax's typesetting) and the fonts they ask for to
    # settle, so that a late failure (a missing web font) is reported for this page
    settled = (
        "return document.readyState == 'complete' && document.fonts.status == 'loaded'"
        " && !(window.MathJax && MathJax.Hub && MathJax.Hub.queue"
        "      && (MathJax.Hub.queue.pending || MathJax.Hub.queue.running))"
    )
    for _ in range(150):
        if browser.execute_script(settled):
            break
        time.sleep(0.1)
    time.sleep(0.3)
    browser.execute_script("return document.fonts.ready")


# MathJax 2 probes whether a web font is usable by loading it from about:blank; Chromium logs the
# refused probe as an error although nothing on the page fails (the font then loads from _static).
# Headless Chromium may also ask the server root for /favicon.ico whatever icon a page declares
# (after the report page, say); every page's declared icon is checked instead
# (test_every_page_renders_without_errors, test_scorecard_and_report_pages_load).
BENIGN = (
    "Access to font at 'about:blank'",
    "about:blank - Failed to load resource",
    "/favicon.ico - Failed to load resource",
)
ICON = "const l = document.querySelector('link[rel~=icon]'); return l ? l.getAttribute('href') : null"


def _severe_console_messages(browser) -> list[str]:
    return [
        e["message"]
        for e in browser.get_log("browser")
        if e["level"] == "SEVERE" and not any(b in e["message"] for b in BENIGN)
    ]


def test_every_page_renders_without_errors(server, browser):
    pages = _pages()
    assert "book/intro.html" in pages and "book/data.html" in pages
    problems = []
    for page in pages:
        _load(browser, f"{server}/{page}")
        title = browser.title
        if not title or "404" in title:
            problems.append(f"{page}: bad title {title!r}")
        broken = browser.execute_script(
            "return Array.from(document.images)"
            ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'))"
        )
        if broken:
            problems.append(f"{page}: broken images {broken}")
        errors = _severe_console_messages(browser)
        if errors:
            problems.append(f"{page}: console errors {errors}")
        if not browser.execute_script(ICON):
            problems.append(f"{page}: declares no icon (the browser would ask for /favicon.ico)")
        if os.environ.get("IRREPRO_REQUIRE_REAL") == "1":
            if browser.execute_script("return document.querySelectorAll('.simulated-data').length"):
                problems.append(f"{page}: shows the simulated-data warning although real data was required")
    assert not problems, "\n".join(problems)


def test_every_figure_is_rendered(server, browser):
    """Figures of executed notebooks are inline images; each must have decoded to real pixels."""
    count = 0
    for page in _pages():
        _load(browser, f"{server}/{page}")
        sizes = browser.execute_script(
            "return Array.from(document.querySelectorAll('.cell_output img, figure img'))"
            ".map(i => [i.getAttribute('src').slice(0, 60), i.naturalWidth, i.naturalHeight])"
        )
        for src, w, h in sizes:
            count += 1
            assert w > 50 and h > 50, f"{page}: figure {src} is {w}x{h}"
    chapters = [p for p in _pages() if p.startswith("notebooks/")]
    if chapters:
        assert count > 0, "the replication chapters show no figure"


def test_internal_links_resolve(server, browser):
    """Every internal link points at an existing page and, when it has one, an existing anchor."""
    missing = []
    ids_cache: dict[str, set[str]] = {}

    def ids_of(page: str) -> set[str]:
        if page not in ids_cache:
            import re

            text = (SITE / page).read_text(encoding="utf-8", errors="replace")
            ids_cache[page] = set(re.findall(r'\bid="([^"]+)"', text))
        return ids_cache[page]

    for page in _pages():
        _load(browser, f"{server}/{page}")
        hrefs = browser.execute_script(
            "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"
        )
        for href in hrefs:
            if not href.startswith(server):
                continue
            parsed = urllib.parse.urlparse(href)
            target = urllib.parse.unquote(parsed.path.lstrip("/")) or "index.html"
            if target.endswith("/"):
                target += "index.html"
            if not (SITE / target).is_file():
                missing.append(f"{page} -> {target}")
                continue
            if parsed.fragment and target.endswith(".html") and parsed.fragment not in ids_of(target):
                missing.append(f"{page} -> {target}#{parsed.fragment}")
    assert not missing, "broken internal links:\n" + "\n".join(sorted(set(missing)))


def test_search_finds_a_known_word(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    _load(browser, f"{server}/search.html?q=bootstrap")
    WebDriverWait(browser, 30).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "#search-results ul.search li"))
    )
    hits = browser.find_elements(By.CSS_SELECTOR, "#search-results ul.search li a")
    assert hits, "searching 'bootstrap' found nothing"
    assert any("intro" in h.get_attribute("href") or "notebooks" in h.get_attribute("href") for h in hits)


# --- Publishing: repository link, launch buttons (Binder, Colab) and downloads -------------------

ROOT = SITE.parents[1]


def _publishing() -> tuple[str, str, dict]:
    """Where the build points the buttons: ``_config.yml``, or ``IRREPRO_REPOSITORY_URL`` (the
    GitHub workflow sets it), as ``book/_ext/irrepro_sphinx.py`` reads them."""
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    url = os.environ.get("IRREPRO_REPOSITORY_URL", "").strip().rstrip("/") or cfg["repository"]["url"]
    return url, cfg["repository"]["branch"], cfg["launch_buttons"]


def _notebook_pages() -> list[str]:
    """Pages built from a notebook (a jupytext header with a kernelspec): chapters, data, ..."""
    import jupytext

    pages = []
    for page in _pages():
        md = ROOT / page.replace(".html", ".md")
        if md.is_file() and "kernelspec" in jupytext.read(md).metadata:
            pages.append(page[: -len(".html")])
    return pages


def _fetch(url: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200, f"{url}: HTTP {response.status}"
        return response.read()


def test_repository_link_and_launch_buttons(server, browser):
    """Every notebook page links the repository and opens its own paired .ipynb, on the launch
    branch, in Binder (JupyterLab) and Colab; the .ipynb the URLs name is the one the build
    generated beside the .md (the workflow pushes exactly these files to that branch)."""
    import jupytext
    import nbformat
    from selenium.webdriver.common.by import By

    url, branch, launch = _publishing()
    owner_repo = url.split("github.com/", 1)[1]
    pages = _notebook_pages()
    assert sum(p.startswith("notebooks/") for p in pages) >= 4, pages
    for doc in pages:
        _load(browser, f"{server}/{doc}.html")
        repo = browser.find_element(By.CSS_SELECTOR, "a.btn-source-repository-button")
        assert repo.get_attribute("href").rstrip("/") == url
        binder = f"{launch['binderhub_url']}/v2/gh/{owner_repo}/{branch}?urlpath=lab/tree/{doc}.ipynb"
        colab = f"{launch['colab_url']}/github/{owner_repo}/blob/{branch}/{doc}.ipynb"
        # the launch menu opens on a click and shows both
        browser.find_element(By.CSS_SELECTOR, ".dropdown-launch-buttons button").click()
        shown = {
            a.text.strip(): a.get_attribute("href")
            for a in browser.find_elements(By.CSS_SELECTOR, ".dropdown-launch-buttons a")
            if a.is_displayed()
        }
        assert shown == {"Binder": binder, "Colab": colab}, f"{doc}: {shown}"

        paired = ROOT / f"{doc}.ipynb"
        assert paired.is_file(), f"{doc}: the build did not generate {paired}"
        nb = nbformat.read(paired, as_version=4)
        nbformat.validate(nb)
        setup, *cells = nb.cells
        assert f'"irrepro @ git+{url}@{branch}"' in setup.source
        assert "find_spec" in setup.source  # installs only where irrepro is missing
        source = jupytext.read(ROOT / f"{doc}.md")
        assert [(c.cell_type, c.source) for c in cells] == [(c.cell_type, c.source) for c in source.cells], (
            f"{paired} is not the notebook of {doc}.md"
        )
        assert not any(c.get("outputs") for c in cells if c.cell_type == "code")


def test_download_buttons(server, browser):
    """Every page offers its source (.md, byte for byte); notebook pages also the executed .ipynb:
    a valid notebook with the page's cells and their outputs, after the same set-up cell."""
    import jupytext
    import nbformat
    from selenium.webdriver.common.by import By

    url, branch, _ = _publishing()
    notebooks = set(_notebook_pages())
    for page in _pages():
        md = ROOT / page.replace(".html", ".md")
        if not md.is_file():
            continue  # genindex, search
        doc = page[: -len(".html")]
        _load(browser, f"{server}/{page}")
        links = {
            a.get_attribute("class"): a.get_attribute("href")
            for a in browser.find_elements(By.CSS_SELECTOR, ".dropdown-download-buttons a")
        }
        source = next(h for c, h in links.items() if "btn-download-source-button" in c)
        assert source == f"{server}/_sources/{doc}.md"
        assert _fetch(source) == md.read_bytes()
        ipynb = [h for c, h in links.items() if "btn-download-notebook-button" in c]
        if doc not in notebooks:
            assert not ipynb, f"{page}: a text page offers a notebook"
            continue
        assert ipynb == [f"{server}/_sources/{doc}.ipynb"], f"{page}: {ipynb}"
        nb = nbformat.reads(_fetch(ipynb[0]).decode("utf-8"), as_version=4)
        nbformat.validate(nb)
        setup, *cells = nb.cells
        assert f'"irrepro @ git+{url}@{branch}"' in setup.source
        code = [c for c in cells if c.cell_type == "code"]
        expected = [c.source for c in jupytext.read(md).cells if c.cell_type == "code"]
        assert [c.source for c in code] == expected, f"{page}: the download is not this page's notebook"
        assert any(c.outputs for c in code), f"{page}: the downloaded notebook has no outputs"


def test_scorecard_and_report_pages_load(server, browser):
    """The generated scorecard lists claims with statuses; the example report (``irrepro report``
    on twenty TREC-COVID runs) loads on its own and inside the book's report page."""
    from selenium.webdriver.common.by import By

    _load(browser, f"{server}/book/scorecard.html")
    from irrepro.book import STATUSES

    # every row of the four papers' tables (those with a "status" column) has a status badge
    statuses = browser.execute_script(
        "const out = [];"
        "for (const t of document.querySelectorAll('table')) {"
        "  const heads = Array.from(t.querySelectorAll('thead th')).map(th => th.textContent.trim());"
        "  const k = heads.indexOf('status'); if (k < 0 || !heads.includes('quantity')) continue;"
        "  for (const tr of t.querySelectorAll('tbody tr')) {"
        "    const b = tr.children[k].querySelector('.irrepro-status');"
        "    out.push(b ? b.getAttribute('data-status') : tr.children[k].textContent.trim()); }"
        "} return out;"
    )
    assert len(statuses) > 100, f"the scorecard lists only {len(statuses)} rows"
    assert set(statuses) <= set(STATUSES), set(statuses) - set(STATUSES)
    assert "replicated" in statuses
    # the page says how many of each paper's numbers (book/papers/<key>.yml) its chapter compares
    import re

    text = browser.find_element(By.TAG_NAME, "main").text
    from irrepro.book import PAPERS

    for key, title in PAPERS:
        m = re.search(rf"(\d+) of the (\d+) numbers and claims of book/papers/{key}\.yml are compared", text)
        assert m and int(m[1]) > 0.8 * int(m[2]), (key, title, m and m.group(0))

    _load(browser, f"{server}/example-report/index.html")
    assert browser.title.startswith("irrepro report")
    heads = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    for word in ("Sakai", "Cormack", "Sanderson", "Webber"):
        assert any(word in h for h in heads), (word, heads)
    sizes = browser.execute_script(
        "return Array.from(document.images).map(i => [i.naturalWidth, i.naturalHeight])"
    )
    assert len(sizes) == 5 and all(w > 200 and h > 100 for w, h in sizes), sizes
    assert not _severe_console_messages(browser)
    assert browser.execute_script(ICON), "the report declares no icon"

    _load(browser, f"{server}/book/report.html")
    frame = browser.find_element(By.CSS_SELECTOR, "iframe[src$='example-report/index.html']")
    browser.switch_to.frame(frame)
    try:
        assert browser.find_element(By.TAG_NAME, "h1").text.startswith("irrepro report")
    finally:
        browser.switch_to.default_content()


# --- the chapters: header, visible method code, status badges, numbered contents ---------------------

CHAPTERS = {
    "notebooks/cormack_lynam_2006.html": "Cormack & Lynam 2006",
    "notebooks/sanderson_zobel_2005.html": "Sanderson & Zobel 2005",
    "notebooks/sakai_2006.html": "Sakai 2006",
    "notebooks/webber_moffat_zobel_2008.html": "Webber, Moffat & Zobel 2008",
}
#: Chapters beyond the papers (irrepro.book.STUDIES): a header without a label, the rest as above.
#: A page may judge several studies, one header box each.
STUDY_CHAPTERS = {
    "notebooks/known_truth.html": ("Against a known truth (beside Urbano, Lima & Hanjalic 2019)",),
    "notebooks/which_test.html": (
        "Which test? (beside Parapar, Losada & Barreiro 2021)",
        "Which test? (beside Otero, Parapar & Barreiro 2025)",
        "Which test? (beside Ihemelandu & Ekstrand 2023)",
    ),
    "notebooks/planning.html": ("Planning an evaluation (beside Sakai 2016)",),
}
ALL_CHAPTERS = {**CHAPTERS, **STUDY_CHAPTERS}


def _subpages() -> dict[str, list[str]]:
    """Per chapter page, the pages of its sections in the book's table of contents (its full tables)."""
    import yaml

    toc = yaml.safe_load((Path(__file__).resolve().parents[2] / "_toc.yml").read_text(encoding="utf-8"))
    out = {}
    for part in toc["parts"]:
        for ch in part.get("chapters", []):
            if f"{ch['file']}.html" in ALL_CHAPTERS:
                out[f"{ch['file']}.html"] = [f"{s['file']}.html" for s in ch.get("sections", [])]
    return out


#: per chapter page, its sub-pages (the paper's tables beside ours, the emulated conditions)
SUBPAGES = _subpages()


def _scorecard_labels(server, browser) -> dict[str, str]:
    """The label column of the scorecard's summary table, by paper title."""
    _load(browser, f"{server}/book/scorecard.html")
    return browser.execute_script(
        "for (const t of document.querySelectorAll('table')) {"
        "  const heads = Array.from(t.querySelectorAll('thead tr:last-child th, thead th')).map(th => th.textContent.trim());"
        "  const k = heads.lastIndexOf('label'); if (k < 0) continue;"
        "  const out = {};"
        "  for (const tr of t.querySelectorAll('tbody tr')) out[tr.children[0].textContent.trim()] = tr.children[tr.children.length - 1].textContent.trim();"
        "  return out;"
        "} return null;"
    )


def test_chapters_open_with_the_reference_doi_and_the_scorecards_label(server, browser):
    from selenium.webdriver.common.by import By

    from irrepro.book import LABELS

    labels = _scorecard_labels(server, browser)
    assert labels and set(CHAPTERS.values()) <= set(labels), labels
    for page, title in CHAPTERS.items():
        _load(browser, f"{server}/{page}")
        header = browser.find_element(By.CSS_SELECTOR, ".irrepro-header")
        assert header.is_displayed(), page
        first_h2 = browser.find_element(By.CSS_SELECTOR, "#the-question > h2")
        assert header.location["y"] < first_h2.location["y"], f"{page}: the header is not at the top"
        doi = header.find_element(By.CSS_SELECTOR, 'a[href^="https://doi.org/10.1145/"]')
        assert doi.text.startswith("doi:10.1145/"), doi.text
        label = header.find_element(By.CSS_SELECTOR, ".irrepro-label").get_attribute("data-label")
        assert label in LABELS, (page, label)
        assert label == labels[title], f"{page}: header {label}, scorecard {labels[title]}"
        # the rule is stated once, on its own page, and the chapter's header links to it
        link = header.find_element(By.CSS_SELECTOR, "a.irrepro-rule-link")
        assert link.is_displayed() and link.get_attribute("href").endswith("/book/rule.html"), page
    _load(browser, link.get_attribute("href"))
    assert "How a row is judged" in browser.find_element(By.CSS_SELECTOR, "article h1").text


def test_a_chapter_beyond_the_papers_opens_with_its_study_and_no_label(server, browser):
    from selenium.webdriver.common.by import By

    from irrepro.book import STUDIES

    assert {t for titles in STUDY_CHAPTERS.values() for t in titles} == {title for _, title in STUDIES}
    labels = _scorecard_labels(server, browser)
    for page, titles in STUDY_CHAPTERS.items():
        assert all(labels[t] == "none (not a replication)" for t in titles), labels
        _load(browser, f"{server}/{page}")
        headers = browser.find_elements(By.CSS_SELECTOR, ".irrepro-header")
        assert len(headers) == len(titles), f"{page}: {len(headers)} header boxes, {len(titles)} studies"
        first_h2 = browser.find_element(By.CSS_SELECTOR, "#the-question > h2")
        for header in headers:
            assert header.is_displayed() and header.location["y"] < first_h2.location["y"], page
            assert not header.find_elements(By.CSS_SELECTOR, ".irrepro-label"), (
                f"{page}: a label on a study chapter"
            )
            assert "No verdict label" in header.text
            dois = {
                a.text for a in header.find_elements(By.CSS_SELECTOR, 'a[href^="https://doi.org/10.1145/"]')
            }
            assert len(dois) >= 2 and all(d.startswith("doi:10.1145/") for d in dois), (
                dois
            )  # the study and the papers
            assert header.find_element(By.CSS_SELECTOR, "a.irrepro-rule-link").is_displayed()


def test_every_results_section_shows_its_code(server, browser):
    """Each subsection of a chapter's Results shows at least one code cell without a click;
    code behind a toggle (hide-input) does not count."""
    for page in ALL_CHAPTERS:
        _load(browser, f"{server}/{page}")
        shown = browser.execute_script(
            "const res = document.getElementById('results'); if (!res) return null;"
            "const out = {};"
            "for (const sec of res.querySelectorAll(':scope > section')) {"
            "  const h = sec.querySelector('h3'); const name = h ? h.textContent.replace('#', '').trim() : sec.id;"
            "  out[name] = Array.from(sec.querySelectorAll('.cell_input'))"
            "    .filter(e => e.offsetParent !== null && !e.closest('details:not([open])')).length;"
            "} return out;"
        )
        assert shown, f"{page}: no Results section"
        empty = [name for name, n in shown.items() if n == 0]
        assert not empty, f"{page}: results sections without visible code: {empty}"


def test_comparison_tables_show_status_badges_with_reasons(server, browser):
    from irrepro.book import STATUSES

    for chapter in ALL_CHAPTERS:
        badges = []  # the chapter's and its sub-pages' (its full tables)
        for page in (chapter, *SUBPAGES.get(chapter, [])):
            _load(browser, f"{server}/{page}")
            badges += browser.execute_script(
                "return Array.from(document.querySelectorAll('.irrepro-comparison .irrepro-status')).map(b => {"
                "  const s = getComputedStyle(b);"
                "  return [b.getAttribute('data-status'), b.getAttribute('title'), b.offsetWidth, b.offsetHeight,"
                "          s.backgroundColor, s.borderStyle, b.textContent.trim()]; });"
            )
            notes = browser.execute_script(
                "return Array.from(document.querySelectorAll('.irrepro-comparison')).map(c =>"
                "  [c.querySelectorAll('.irrepro-note-ref').length, c.querySelectorAll('.irrepro-reasons li').length]);"
            )
            assert all(refs >= items > 0 for refs, items in notes), (page, notes)
        assert len(badges) > 10, f"{chapter} and its sub-pages: {len(badges)} badges"
        for status, title, w, h, bg, _border, text in badges:
            assert status in STATUSES and text.endswith(status), (chapter, status, text)
            assert title, f"{chapter}: a {status} badge without its reason"
            assert w > 20 and h > 8 and bg not in ("rgba(0, 0, 0, 0)", "transparent"), (
                chapter,
                status,
                w,
                h,
                bg,
            )
        # the four statuses differ in symbol and border, not only in colour
        looks = {(status, text[0], border) for status, _, _, _, _, border, text in badges}
        assert len({(sym, border) for _, sym, border in looks}) == len({status for status, _, _ in looks}), (
            looks
        )


def test_every_table_on_a_sub_page_is_linked_and_every_link_to_a_table_lands_on_it():
    """The chapters' full tables are on sub-pages: each recorded table is on the page its
    record names (``page`` of ``_build/results``, its id ``cmp-<paper>-<item>``), the chapter links
    to every table of its sub-pages, and every link of the site to a table (``#cmp-`` / ``#aside-``:
    the chapters' lines, the verdicts' *rests on*, the scorecard's rows) finds it on its page. (A
    chapter may show a table of its own page in sentences only: a verdict read as ``verdict_text``.)"""
    import json
    import re

    from irrepro._text import slug

    if not (SITE / "index.html").is_file():
        _unavailable(f"no built book at {SITE}: run `make book`")
    ids = {}
    for html in SITE.rglob("*.html"):
        ids[html] = set(re.findall(r'id="((?:cmp|aside)-[^"]+)"', html.read_text(encoding="utf-8")))
    missing, unlinked = [], []
    for rec_file in sorted((SITE.parent / "results").glob("*.json")):
        rec = json.loads(rec_file.read_text(encoding="utf-8"))
        if rec.get("page", "").count("/") < 2:  # shown on its chapter (as a table or in sentences only)
            continue
        anchor = "cmp-" + slug(f"{rec['paper']}-{rec['item']}")
        if anchor not in ids.get(SITE / f"{rec['page']}.html", set()):
            missing.append(f"{rec['item']}: not on {rec['page']}.html")
    bad = []
    for html in SITE.rglob("*.html"):
        for href in re.findall(r'href="([^"#]*)#((?:cmp|aside)-[^"]+)"', html.read_text(encoding="utf-8")):
            target = (html.parent / href[0]).resolve() if href[0] else html
            if href[1] not in ids.get(target, set()):
                bad.append(f"{html.relative_to(SITE)} -> {href[0]}#{href[1]}")
    for chapter, subs in SUBPAGES.items():
        text = (SITE / chapter).read_text(encoding="utf-8")
        for sub in subs:
            for anchor in ids.get(SITE / sub, set()):
                if f"#{anchor}" not in text:
                    unlinked.append(f"{sub}#{anchor}")
    assert not missing, f"recorded tables not on their page: {missing[:10]}"
    assert not bad, f"links to tables that are not there: {bad[:10]}"
    assert not unlinked, f"sub-page tables no line of their chapter links to: {unlinked[:10]}"


def test_table_of_contents_is_numbered(server, browser):
    import re

    from selenium.webdriver.common.by import By

    _load(browser, f"{server}/book/intro.html")
    entries = {
        a.get_attribute("href").rsplit("/", 2)[-2]
        + "/"
        + a.get_attribute("href").rsplit("/", 1)[-1]: a.text.strip()
        for a in browser.find_elements(By.CSS_SELECTOR, "nav.bd-docs-nav a.reference.internal")
    }
    for page in ALL_CHAPTERS:
        text = entries.get(page)
        assert text and re.match(r"^\d+\.\s", text), (page, text, entries)
    for page in ALL_CHAPTERS:
        _load(browser, f"{server}/{page}")
        number = browser.find_element(By.CSS_SELECTOR, "h1 .section-number").text
        assert re.match(r"^\d+\.$", number.strip()), number


def test_student_edition_leaves_out_the_solutions():
    """``make book`` builds the student edition too: the same exercises, none of the solutions
    (nor the code cells of the gated ones, which the book executes)."""
    import re

    student = SITE.parents[0] / "student" / "_build" / "html"
    if not (student / "index.html").is_file():
        _unavailable(f"no student edition at {student}: run `make book` (it builds both editions)")
    for page in ALL_CHAPTERS:
        full, stud = ((d / page).read_text(encoding="utf-8") for d in (SITE, student))
        count = lambda html, cls: len(re.findall(rf'class="{cls}[ "]', html))  # noqa: E731
        assert count(full, "solution") >= 4 and count(stud, "solution") == 0, page
        assert count(stud, "exercise") == count(full, "exercise") >= 4, page
        # no code or output of a solution is left between the exercises
        assert stud.count('class="cell') < full.count('class="cell'), page


def test_the_coursework_page_links_the_student_edition_inside_the_site():
    """``make book`` copies the student edition into the site (``student/``), and the coursework
    page links it; the student edition's own coursework page says which edition it is instead."""
    page = SITE / "book" / "coursework.html"
    if not page.is_file():
        _unavailable(f"no built site at {SITE}: run `make book` first")
    html = page.read_text(encoding="utf-8")
    assert 'href="../student/index.html"' in html
    student = SITE / "student"
    assert (student / "index.html").is_file(), "make book did not copy the student edition into the site"
    own = (student / "book" / "coursework.html").read_text(encoding="utf-8")
    assert "This is the student edition" in own and "../student/index.html" not in own
    assert 'class="solution' not in (student / "notebooks" / "sakai_2006.html").read_text(encoding="utf-8")
