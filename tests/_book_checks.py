"""Checks of a built book against the rows it recorded: used by tests/e2e/test_verdicts.py on
``_build`` (after ``make book``) and by tests/test_book_checks.py on a small fake build, so the
checks themselves are tested in ``make test``.

Each ``check_*`` function returns a list of problems (empty: fine), one line each, naming the
file and the row."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bs4 import BeautifulSoup

from irrepro import book
from irrepro._rule import KINDS, _combine, book_dir, judge_row

#: classes of the parts of a page generated from rows (they may state statuses)
GENERATED = (
    "irrepro-verdicts",
    "irrepro-header",
    "irrepro-headlines",
    "irrepro-comparison",
    "irrepro-plain",
    "irrepro-aside",
    "irrepro-status",
    "irrepro-label",
    "cell_output",
    "highlight",
)
#: the keys of a recorded row the rule reads again (the recorded status and reason are its output)
_INPUTS = ("paper", "ours", "kind", "ours_se", "se_sampling", "se_mc", "se_reason", "paper_se", "paper_n",
           "nominal", "replicates", "unit")  # fmt: skip


# --- the rule, implemented a second time from the rule page's words (book/rule.md) -----------------

_ONE_SIDED = [  # (words, side, bound allowed, moved by the margin)
    (r"well above|well over|well in excess of|far above|far more than|well beyond", "above", False, True),
    (r"well below|well under|far below|far less than", "below", False, True),
    (r">=|≥|at least|no less than", "above", True, False),
    (r">|over|above|more than|exceeds?", "above", False, False),
    (r"<=|≤|at most|up to|no more than|not exceeding|as few as", "below", True, False),
    (r"<|under|below|less than", "below", False, False),
]
_WORDS = {"half": 0.5, "a half": 0.5, "one half": 0.5, "a third": 1 / 3, "one third": 1 / 3,
          "two thirds": 2 / 3, "two-thirds": 2 / 3, "a quarter": 0.25, "three quarters": 0.75}  # fmt: skip


def _paper_part(text: str) -> dict | None:
    """One part of a paper's printed value, read as the rule page says (an independent reading)."""
    import re

    t = re.sub(r"^(about|around|approximately|roughly|typically|some|circa|~)\s+", "", text.strip().lower())
    pct = "%" in t
    t = t.replace("%", "").strip()
    t = re.sub(
        r"^(almost|nearly|just under|just short of)\s+(\d+) of \d+$", r"\1 \2", t
    )  # "almost 110 of 110"
    t = re.sub(r"\s*x$", "", t)  # a ratio printed "1.7-3.6 x"
    if t in _WORDS:
        return {"lo": _WORDS[t], "hi": _WORDS[t], "half": 0.0, "pct": False, "side": ""}
    m = re.fullmatch(r"(almost|nearly|just under|just below|slightly under|slightly below|slightly less than|"
                     r"just short of)?\s*(\d+)/(\d+)", t)  # fmt: skip
    if m:
        v, d = int(m[2]) / int(m[3]), int(m[3])
        return {"lo": v - 0.5 / d if m[1] else v, "hi": v, "half": 0.0, "pct": False, "side": "", "point": v}
    for words, side, allowed, well in _ONE_SIDED:
        m = re.fullmatch(rf"(?:{words})\s*([+-]?[\d.]+)", t)
        if m:
            v = float(m[1])
            return {"lo": v, "hi": v, "half": 0.0, "pct": pct, "side": side, "allowed": allowed, "well": well}
    dec = lambda n: len(n.split(".")[1]) if "." in n else 0  # noqa: E731
    m = re.fullmatch(r"(just over|just above|slightly over|slightly above|slightly more than|just more than)\s*"
                     r"([\d.]+)", t)  # fmt: skip
    if m:
        v = float(m[2])
        return {"lo": v, "hi": v + 10.0 ** -dec(m[2]), "half": 0.0, "pct": pct, "side": "", "point": v}
    m = re.fullmatch(r"(just under|just below|slightly under|slightly below|slightly less than|almost|nearly|"
                     r"just short of)\s*([\d.]+)", t)  # fmt: skip
    if m:
        v = float(m[2])
        return {"lo": v - 10.0 ** -dec(m[2]), "hi": v, "half": 0.0, "pct": pct, "side": "", "point": v}
    m = re.fullmatch(r"([\d.]+)\s*[-–]\s*([\d.]+)", t)
    if m:
        return {"lo": float(m[1]), "hi": float(m[2]), "half": 0.5 * 10.0 ** -max(dec(m[1]), dec(m[2])), "pct": pct,
                "side": ""}  # fmt: skip
    m = re.fullmatch(r"([+-]?[\d.]+)\s*(x|of \d+(?: [a-z]+)?)?", t.replace(",", ""))
    if m:
        v = float(m[1])
        half = 0.0 if (m[2] or "").startswith("of") else 0.5 * 10.0 ** -dec(m[1])
        return {"lo": v, "hi": v, "half": half, "pct": pct, "side": ""}
    return None


def _independent_status(row: Mapping) -> str:
    """The status the rule page's words give a numeric row, computed here without irrepro.book's
    rule: the paper's interval (or one-sided bound), the margin of its kind from book/margins.yml,
    ours +- z sqrt(se_sampling^2 + se_mc^2 + paper_se^2), inside / wholly outside / across."""
    import math
    import re

    import yaml
    from scipy.stats import norm

    doc = yaml.safe_load((book_dir() / "margins.yml").read_text())
    z = float(norm.ppf(0.5 + doc["confidence"] / 2))
    e = doc["kinds"][row["kind"]]
    paper, ours = str(row["paper"]), row["ours"]
    split = r"\s+/\s+|\s+vs\.?\s+|\s*->\s*"
    pp = [_paper_part(x) for x in re.split(split, re.sub(r"\([^)]*\)", " ", paper).strip())]
    if isinstance(ours, str):  # a label after a value ("81.0 (round 1)") is not part of it
        ours = re.sub(r"\([^)]*\)", " ", ours).strip()
        oo = [
            float(re.sub(r"\s*x$", "", x.strip().replace("%", "").split(" of ")[0]))
            for x in re.split(split, ours)
        ]
    else:
        oo = [float(ours)]
    if len(pp) == 1 and len(oo) > 1:
        pp = pp * len(oo)
    if len(oo) == 1 and len(pp) > 1:
        oo = oo * len(pp)

    def per(key):
        v = row.get(key)
        v = [v] * len(pp) if not isinstance(v, list) else v
        return [0.0 if x is None else float(x) for x in v]

    legacy = row.get("se_sampling") is None and row.get("se_mc") is None
    se_s, se_m = ([0.0] * len(pp), per("ours_se")) if legacy else (per("se_sampling"), per("se_mc"))
    se_p = per("paper_se")
    n_p = per("paper_n")
    nominal = per("nominal")
    values = [v for p in pp for v in (p["lo"], p["hi"])] + oo
    scale = 100.0 if pp[0]["pct"] or (row["kind"] == "rate" and max(map(abs, values)) > 1) else 1.0
    out = []
    for p, o, s1, s2, sp, n, nom in zip(pp, oo, se_s, se_m, se_p, n_p, nominal):
        point = p.get("point", (p["lo"] + p["hi"]) / 2)  # the printed value; a range's middle
        if row.get("nominal") is not None:
            m = e["relative_to_nominal"] * min(nom, 1 - nom) * scale
        else:
            ms = []
            if e.get("absolute") is not None:
                ms.append(e["absolute"] * (scale if row["kind"] == "rate" else 1.0))
            if e.get("relative") is not None:
                ms.append(e["relative"] * abs(point))
            if e.get("relative_to_edge") is not None:
                q = min(max(abs(point) / scale, 0.0), 1.0)
                ms.append(e["relative_to_edge"] * min(q, 1 - q) * scale)
            m = min(ms) if ms else 0.0
        if sp == 0 and n > 0:
            q = min(max(point / scale, 0.0), 1.0)
            sp = scale * math.sqrt(q * (1 - q) / n)
        h = z * math.sqrt(s1**2 + s2**2 + sp**2)
        lo_o, hi_o = o - h, o + h
        tol = 1e-12 * max(1.0, abs(o))
        if p["side"] == "above":
            t = p["lo"] + (m if p["well"] else 0.0)
            strict = not p["allowed"] or p["well"]
            ok = lo_o > t + tol if strict else lo_o >= t - tol
            no = hi_o <= t + tol if strict else hi_o < t - tol
        elif p["side"] == "below":
            t = p["hi"] - (m if p["well"] else 0.0)
            strict = not p["allowed"] or p["well"]
            ok = hi_o < t - tol if strict else hi_o <= t + tol
            no = lo_o >= t - tol if strict else lo_o > t + tol
        else:
            lo, hi = p["lo"] - p["half"] - m, p["hi"] + p["half"] + m
            ok = lo_o >= lo - tol and hi_o <= hi + tol
            no = hi_o < lo - tol or lo_o > hi + tol
        out.append(book.REPLICATED if ok else book.NOT_REPLICATED if no else book.INCONCLUSIVE)
    if all(x == book.REPLICATED for x in out):
        return book.REPLICATED
    if 2 * out.count(book.NOT_REPLICATED) > len(out):
        return book.NOT_REPLICATED
    if book.REPLICATED in out and book.NOT_REPLICATED in out:
        return book.PARTLY
    return book.INCONCLUSIVE


def load_results(directory: str | Path) -> list[dict]:
    """The comparison records (``{paper, item, data, rows, [condition]}``) of a results directory,
    each with its file name as ``file``."""
    out = []
    for f in sorted(Path(directory).glob("*.json")):
        rec = json.loads(f.read_text(encoding="utf-8"))
        rec["file"] = f.name
        out.append(rec)
    return out


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and v.strip() in {"", "-"})


def _zero(se) -> bool:
    vals = se if isinstance(se, list) else [se]
    return all(v is None or v == 0 for v in vals)


def check_rows(records: Sequence[Mapping]) -> list[str]:
    """Every recorded row carries the rule's fields, and its status is the one the rule gives.

    - ``kind`` in :data:`~irrepro.book.KINDS`, ``status`` in :data:`~irrepro.book.STATUSES`;
    - a numeric row comparing two numbers has its ``margin``; its ``ours_se`` is null or 0 only
      with a ``se_reason``;
    - ``status_by`` "rule": :func:`~irrepro.book.judge_row` on the row's inputs gives its status;
      "chapter": a claim naming its ``supports``; "supports" / "restated": the combined status of
      the rows it names (looked up as ``"item: quantity"`` among the same paper's rows).
    """
    problems = []
    by_name = {
        (rec["paper"], f"{rec['item']}: {r.get('quantity')}"): r for rec in records for r in rec["rows"]
    }
    for rec in records:
        for r in rec["rows"]:
            where = f"{rec.get('file', rec['item'])}, row {r.get('quantity')!r}"
            kind, status, by = r.get("kind"), r.get("status"), r.get("status_by")
            if kind not in KINDS:
                problems.append(f"{where}: kind {kind!r} is not one of {KINDS}")
                continue
            if status not in book.STATUSES:
                problems.append(f"{where}: status {status!r} is not one of {book.STATUSES}")
                continue
            numeric = kind != "claim"
            if numeric and by == "rule" and not _missing(r.get("paper")) and not _missing(r.get("ours")):
                if r.get("margin") is None:
                    problems.append(f"{where}: no margin")
            if numeric and _zero(r.get("ours_se")) and _missing(r.get("se_reason")):
                problems.append(f"{where}: ours_se is {r.get('ours_se')!r} without a se_reason")
            if by == "rule":
                if not numeric:
                    problems.append(f"{where}: a claim judged as a number")
                    continue
                try:
                    again = judge_row({k: r[k] for k in _INPUTS if k in r}).status
                except ValueError as exc:
                    problems.append(f"{where}: the rule refuses it: {exc}")
                    continue
                if again != status:
                    problems.append(f"{where}: recorded {status!r}, the rule gives {again!r}")
                elif not _missing(r.get("paper")) and not _missing(r.get("ours")):
                    try:
                        other = _independent_status(r)
                    except (TypeError, ValueError, KeyError) as exc:
                        problems.append(f"{where}: the rule page's words cannot read it ({exc})")
                        continue
                    if other != status:
                        problems.append(f"{where}: recorded {status!r}, the rule page's words give {other!r}")
            elif by == "chapter":
                if numeric or _missing(r.get("supports")):
                    problems.append(
                        f"{where}: a status set by the chapter on a row that is not a claim with supports"
                    )
            elif by in ("supports", "restated"):
                names = str(r.get("supports" if by == "supports" else "same_as") or "")
                refs = [n.strip() for n in names.split("; ") if n.strip()]
                if not refs and _missing(r.get("paper")) and status == book.NOT_COMPARABLE:
                    continue  # a claim of ours beside no claim of the paper's: nothing to rest on
                found = [by_name.get((rec["paper"], n)) for n in refs]
                if not refs or None in found:
                    missing = [n for n, f in zip(refs, found) if f is None]
                    problems.append(f"{where}: rests on rows not recorded: {missing or names!r}")
                    continue
                combined = _combine([f["status"] for f in found])
                if combined != status:
                    problems.append(f"{where}: recorded {status!r}, its rows {refs} give {combined!r}")
            else:
                problems.append(f"{where}: status_by {by!r}")
    return problems


def _soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def verdict_sentences(html: str) -> list[dict]:
    """The verdict sentences of a page (``li.irrepro-verdict``): status, item, quantity, the
    status word and the sentence's text."""
    out = []
    for li in _soup(html).select("li.irrepro-verdict"):
        word = li.select_one(".irrepro-verdict-word")
        out.append(
            {
                "status": li.get("data-status"),
                "item": li.get("data-item"),
                "quantity": li.get("data-quantity"),
                "data": li.get("data-data"),
                "word": word.get_text(strip=True) if word else None,
                "text": " ".join(li.get_text(" ").split()),
            }
        )
    return out


def check_verdicts(html: str, records: Sequence[Mapping], page: str = "") -> list[str]:
    """Every verdict sentence of a page states its row's recorded fields: its status in its words
    (:data:`~irrepro.book.STATUS_WORDS`), the data it was judged on (its own, or its table's), and the
    rule's reason."""
    rows = {
        (rec["item"], r.get("quantity")): (r, r.get("data") or rec.get("data", ""))
        for rec in records
        for r in rec["rows"]
    }
    problems = []
    for s in verdict_sentences(html):
        where = f"{page}: {s['item']}: {s['quantity']}"
        row, data = rows.get((s["item"], s["quantity"]), (None, None))
        if row is None:
            problems.append(f"{where}: no recorded row")
            continue
        want = row["status"]
        if s["status"] != want:
            problems.append(f"{where}: the sentence says {s['status']!r}, the row is {want!r}")
        elif s["word"] != book.STATUS_WORDS[want]:
            problems.append(f"{where}: the sentence reads {s['word']!r}, not {book.STATUS_WORDS[want]!r}")
        if s["data"] != data:
            problems.append(f"{where}: the sentence names the data {s['data']!r}, the table {data!r}")
        reason = " ".join(str(row.get("reason", "")).split())
        if reason and reason not in s["text"]:
            problems.append(f"{where}: the sentence does not give the row's reason {reason[:60]!r}")
    return problems


#: Words that state a status. Outside the generated parts of a page (the verdict sentences of
#: :func:`verdict_text`, comparison tables, the chapter's header box, code and its output) no
#: sentence may use them: a status is stated only where it is generated from its row.
STATUS_PATTERN = re.compile(
    r"\b(?:not\s+)?replicated\b|\binconclusive\b|\[(?:~|¬)?Re\]|\bnot reproduced\b|\breproduced in part\b"
    r"|\bholds?\s+only\s+in\s+part\b|\bdoes\s+not\s+hold\b",
    re.IGNORECASE,
)


def stray_statements(text: str) -> list[str]:
    """The sentences of ``text`` (prose, without the generated parts) that state a status.

    Parameters
    ----------
    text : str
        Prose: a page's text outside its generated verdicts, tables, header and code.

    Returns
    -------
    list of str
        Each sentence (whitespace collapsed) that matches :data:`STATUS_PATTERN`.

    """
    sentences = re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text))
    return [s.strip() for s in sentences if STATUS_PATTERN.search(s)]


def markdown_prose(source: str) -> str:
    """The prose of a MyST notebook's source: its text without code cells, front matter, glue
    roles and HTML comments (what :func:`stray_statements` reads before the book is built)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", source, flags=re.S)
    text = re.sub(r"```\{code-cell\}.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return re.sub(r"\{glue:[a-z]*\}`[^`]*`", " ", text)


#: the elements whose text is read as prose, each on its own (a heading is not run into the next
#: paragraph's sentence)
_BLOCKS = ["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "td", "th", "caption", "figcaption"]


def page_prose(html: str) -> list[str]:
    """The text blocks (paragraphs, list items, headings, cells) of a page's article outside its
    generated parts (:data:`GENERATED`), code and scripts."""
    soup = _soup(html)
    root = soup.select_one("article.bd-article") or soup.body or soup
    for tag in root.find_all(["script", "style", "pre", "code", "math"]):
        tag.decompose()
    for cls in GENERATED:
        for tag in root.select(f".{cls}"):
            tag.decompose()
    for link in root.select("a.headerlink"):
        link.decompose()
    blocks = [" ".join(el.get_text(" ").split()) for el in root.find_all(_BLOCKS) if not el.find(_BLOCKS)]
    return [b for b in blocks if b]


def check_prose(html: str, page: str = "") -> list[str]:
    """No sentence of a page outside its generated parts states a status
    (:data:`STATUS_PATTERN`)."""
    return [f"{page}: states a status: {s!r}" for b in page_prose(html) for s in stray_statements(b)]


def header_counts(html: str) -> dict[str, dict[str, int]]:
    """The counts each chapter header (``.irrepro-header``) shows, per paper key."""
    out = {}
    for div in _soup(html).select(".irrepro-header"):
        if div.get("data-counts"):
            out[div.get("data-paper")] = {k: int(v) for k, v in json.loads(div["data-counts"]).items()}
    return out


def summary_table(html: str) -> dict[str, dict[str, int]]:
    """The counts the scorecard page shows (``table.irrepro-summary``), per paper title."""
    table = _soup(html).select_one("table.irrepro-summary")
    if table is None:
        return {}
    head = [th.get_text(strip=True) for th in table.select("thead tr")[-1].find_all("th")]
    out = {}
    for tr in table.select("tbody tr"):
        cells = [c.get_text(strip=True) for c in tr.find_all(["th", "td"])]
        row = dict(zip(head[1:], cells[1:]))
        out[cells[0]] = {k: int(row[k]) for k in (*book.STATUSES, "total")}
    return out


def expected_counts(results: str | Path) -> dict[str, dict[str, int]]:
    """The counts of :func:`~irrepro.book.summary` over the recorded rows, per paper title."""
    counts = book.summary(book.scorecard(results))
    return {t: {k: int(v) for k, v in r.items()} for t, r in counts.iterrows()}


def check_counts(pages: Iterable[tuple[str, str]], scorecard_html: str, results: str | Path) -> list[str]:
    """The counts in each chapter's header and on the scorecard page equal the scorecard's
    :func:`~irrepro.book.summary` of the recorded rows. ``pages``: (name, html) of the chapters."""
    want = expected_counts(results)
    title = dict((*book.PAPERS, *book.STUDIES))
    problems, seen = [], set()
    for name, html in pages:
        for key, got in header_counts(html).items():
            seen.add(key)
            exp = want.get(title.get(key, key))
            if got != exp:
                problems.append(f"{name}: header counts {got} != the scorecard's {exp}")
    shown = summary_table(scorecard_html)
    if not shown:
        problems.append("scorecard page: no table.irrepro-summary")
    for t, exp in want.items():
        if shown and shown.get(t) != exp:
            problems.append(f"scorecard page: {t} shows {shown.get(t)} != {exp}")
    missing = [k for k, t in title.items() if want.get(t, {}).get("total") and k not in seen]
    problems += [f"no chapter header with counts for {k}" for k in missing]
    return problems


def headline_rows(html: str) -> list[dict]:
    """The rows of a page's headline table (``.irrepro-headlines``, :func:`irrepro.book.headline_table`):
    per chapter the paper, the claim, the status its finding states (and in which words) and the label."""
    out = []
    for tr in _soup(html).select(".irrepro-headlines tbody tr"):
        span = tr.select_one("span.irrepro-headline")
        lab = tr.select_one(".irrepro-label")
        word = span.select_one(".irrepro-verdict-word") if span else None
        out.append(
            {
                "text": " ".join(tr.get_text(" ").split()),
                "paper": span.get("data-paper") if span else None,
                "quantity": span.get("data-quantity") if span else None,
                "status": span.get("data-status") if span else None,
                "data": span.get("data-data") if span else None,
                "word": word.get_text(strip=True) if word else None,
                "label": lab.get("data-label") if lab else None,
            }
        )
    return out


def check_headlines(html: str, results: str | Path, page: str = "") -> list[str]:
    """A page's headline table has a row per chapter (:data:`~irrepro.book.PAPERS`, then
    :data:`~irrepro.book.STUDIES`), each stating the status of its paper's central claim as the
    chapter's Verdict row records it, in its words, and the chapter's label as the scorecard gives it."""
    rows = headline_rows(html)
    keys = [k for k, _ in (*book.PAPERS, *book.STUDIES)]
    if len(rows) != len(keys):
        return [f"{page}: {len(rows)} headline rows, {len(keys)} chapters"]
    records = load_results(results)
    verdict = {
        (rec["paper"], r.get("quantity")): r["status"]
        for rec in records
        if rec["item"] == "Verdict"
        for r in rec["rows"]
    }
    judged_on = {
        (rec["paper"], r.get("quantity")): r.get("data") or rec.get("data", "")
        for rec in records
        if rec["item"] == "Verdict"
        for r in rec["rows"]
    }
    counts = book.summary(book.scorecard(results))
    title = dict((*book.PAPERS, *book.STUDIES))
    problems = []
    for key, r in zip(keys, rows):
        where = f"{page}: {key}"
        if r["paper"] != key:
            problems.append(f"{where}: the row is {r['paper']!r} ({r['text'][:60]!r})")
            continue
        want = verdict.get((key, r["quantity"]))
        if want is None:
            problems.append(f"{where}: no recorded Verdict row {r['quantity']!r}")
        elif r["status"] != want or r["word"] != book.STATUS_WORDS[want]:
            problems.append(f"{where}: states {r['status']!r} ({r['word']!r}), the row is {want!r}")
        on = judged_on.get((key, r["quantity"]))
        if r["data"] != on:
            problems.append(f"{where}: names the data {r['data']!r}, the Verdict row {on!r}")
        lab = "" if key in dict(book.STUDIES) else book.label(counts.loc[title[key]])
        if r["label"] != lab:
            problems.append(f"{where}: label {r['label']!r}, the scorecard's {lab!r}")
    # the phone's one line per chapter (ul.irrepro-headlines-compact) says what its table row says
    lines = _soup(html).select(".irrepro-headlines ul.irrepro-headlines-compact > li")
    if len(lines) != len(rows):
        return [*problems, f"{page}: {len(lines)} compact headline lines, {len(rows)} rows"]
    for key, r, li in zip(keys, rows, lines):
        badge, lab = li.select_one(".irrepro-status"), li.select_one(".irrepro-label")
        said = (badge.get("data-status") if badge else None, lab.get("data-label") if lab else "")
        if said != (r["status"], r["label"] or ""):
            problems.append(
                f"{page}: {key}: the compact line says {said}, the row {(r['status'], r['label'])}"
            )
    return problems


# --- for the tests: a small book directory -------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def fake_book(tmp_path, monkeypatch, margins_text=None) -> Path:
    """A book directory in tmp_path: the real margins.yml (or ``margins_text``) and references.bib,
    and small papers/*.yml; IRREPRO_BOOK points at it, IRREPRO_RESULTS at tmp_path / "results"."""
    d = tmp_path / "book"
    (d / "papers").mkdir(parents=True)
    shutil.copy(ROOT / "book" / "references.bib", d / "references.bib")
    if margins_text is None:
        shutil.copy(ROOT / "book" / "margins.yml", d / "margins.yml")
    else:
        (d / "margins.yml").write_text(margins_text)
    (d / "papers" / "webber2008score.yml").write_text(
        "paper: webber2008score\n"
        "numbers:\n"
        "  fig2.map: {table: Figure 2, row: 13th run, column: MAP, value: 0.324, section: '2'}\n"
        "  fig3.median: {table: Figure 3, value: '0.50', section: '3', wording: the median}\n"
        "  t1: {table: Table 1, row: linear, column: below / in / above, value: 3.7 / 77.8 / 11.1, section: '6.2'}\n"
        "  t2: {table: Table 1, row: logit, column: below / in / above, value: 11.1 / 76.5 / 12.5, section: '6.2'}\n"
        "  fp: {table: Section 5, value: 5%, section: '5'}\n"
        "  share: {table: Section 6, value: about 15%, section: '6'}\n"
        "  tau: {table: Table 3, value: 0.60, section: '4'}\n"
        "  runs: {table: Section 2, value: 15, section: '2'}\n"
        "  claim: {table: Section 7, value: every comparison is problematic, section: '7'}\n"
    )
    monkeypatch.setenv("IRREPRO_BOOK", str(d))
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path / "results"))
    book._tables._SESSION.clear()
    return d
