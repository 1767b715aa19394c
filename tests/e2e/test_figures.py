"""Every figure of the built book has alt text, a caption and a number (issue 24, item 2), read from
the built HTML: every ``<img>`` of a page's content has non-empty ``alt``, and every image a
notebook cell drew sits in a ``<figure>`` whose caption starts with its number ("Fig. 3.2")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

pytestmark = pytest.mark.e2e

SITE = Path(__file__).resolve().parents[2] / "_build" / "html"


def figure_problems(html: str, page: str = "") -> list[str]:
    """Images without alt text, and drawn images outside a numbered, captioned figure."""
    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main") or soup
    out = []
    for k, img in enumerate(main.find_all("img")):
        src = img.get("src", "")
        if not (img.get("alt") or "").strip():
            out.append(f"{page}: image {k + 1} ({src[-40:]}) has no alt text")
        if "cell_output" in " ".join(" ".join(p.get("class") or []) for p in img.parents if p.name == "div"):
            fig = img.find_parent("figure")
            number = fig.find(class_="caption-number") if fig else None
            if fig is None or number is None or not fig.find("figcaption").get_text(strip=True):
                out.append(f"{page}: image {k + 1} ({src[-40:]}) is not a numbered figure with a caption")
    return out


def test_the_figure_check_finds_an_uncaptioned_image():
    bare = '<main><div class="cell_output"><img src="a.png" alt=""></div></main>'
    good = (
        '<main><div class="cell_output"><figure><img src="a.png" alt="a plot">'
        '<figcaption><p><span class="caption-number">Fig. 1 </span>What it shows.</p></figcaption></figure></div></main>'
    )
    assert len(figure_problems(bare)) == 2 and figure_problems(good) == []


def test_every_figure_has_alt_text_a_caption_and_a_number():
    if not (SITE / "index.html").is_file():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"no built site at {SITE}: run `make book` first")
        pytest.skip(f"no built site at {SITE}: run `make book` first")
    pages = [p for p in sorted(SITE.rglob("*.html")) if "_static" not in p.parts]
    problems = [
        x for p in pages for x in figure_problems(p.read_text(encoding="utf-8"), str(p.relative_to(SITE)))
    ]
    assert not problems, f"{len(problems)} figures:\n" + "\n".join(problems[:40])
