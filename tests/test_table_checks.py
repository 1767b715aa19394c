"""The table checks of tests/_table_checks.py (run on the built book by tests/e2e/test_tables.py),
tested on small pages."""

from __future__ import annotations

import pandas as pd

from _table_checks import (
    check_bare_index,
    check_duplicates,
    check_legend,
    check_ours_precision,
    check_precision,
    check_stackable,
    significant_decimals,
)
from irrepro import book
from irrepro.book._display import status_badge, status_table


def test_significant_decimals_do_not_count_leading_zeros():
    assert significant_decimals("0.00271") == (3, "0.00271")
    assert significant_decimals("92.400000 MB") == (6, "92.400000")
    assert significant_decimals("0.049 ± 0.0041")[0] == 2
    assert significant_decimals("run-0.123456x")[0] == 0  # part of a longer token: not a number


def test_precision_flags_raw_floats_the_papers_raw_output_too():
    raw = pd.DataFrame({"ours": [0.8541234567], "paper": [0.123456]}).to_html()  # pandas shows 0.854123
    assert check_precision(raw, "p") and "0.854123" in check_precision(raw, "p")[0]
    paper_only = pd.DataFrame({"paper": ["0.0509202"], "ours": ["0.055 ± 0.011"]}).to_html(index=False)
    assert "'0.0509202' shows 6" in check_precision(paper_only, "p")[0]  # a file's value, shown raw
    printed = pd.DataFrame({"paper": ["0.0491"], "ours": ["0.049 ± 0.004"]}).to_html(index=False)
    assert check_precision(printed, "p") == []
    shown = status_table(pd.DataFrame({"paper": ["0.0509202"], "ours": ["0.055 ± 0.011"]})).text
    assert (
        check_precision(shown, "p") == [] and 'title="full value 0.0509202"' in shown
    )  # the helper rounds it


def test_the_books_table_helper_passes_every_check():
    df = pd.DataFrame({"method": ["linear", "logit"], "in": [80.123456, 81.5], "n": [3, 4]})
    html = book.table(df, digits=1)._repr_html_()
    assert check_precision(html) == [] and check_bare_index(html) == [] and check_stackable(_cell(html)) == []
    assert check_bare_index(df.to_html()) and check_precision(df.to_html())  # the raw frame fails both


def test_a_label_index_is_not_bare_and_a_repeated_table_is_found():
    df = pd.DataFrame({"measure": ["AP", "nDCG@10"], "x": [1, 2]}, index=["first run", "second run"])
    assert check_bare_index(df.to_html()) == []
    page = df.to_html() + "<p>text</p>" + df.to_html()
    (dup,) = check_duplicates(page, "page.html")
    assert "repeats table 1" in dup


def test_the_books_table_labels_its_cells_for_the_phone_layout():
    df = pd.DataFrame(
        {"aspect": ["data", "copulas"], "theirs": ["TREC", "AIC"], "ours": ["the same", "AIC, ML"]}
    )
    html = book.table(df).text
    assert 'class="irrepro-plain"' in html and "irrepro-comparison" not in html  # not read as a comparison
    assert (
        html.count('data-label="ours"') == 2 and check_bare_index(html) == [] and check_precision(html) == []
    )


def test_floats_in_an_object_column_are_rounded_too():
    df = pd.DataFrame({"ours": [0.11, "0.5 ± 0.1"], "n": [3, 4]}, index=[1, 2])  # object dtype
    html = book.table(df, digits=3)._repr_html_()
    assert "0.110" in html and "0.110000" not in html and check_precision(html) == []


def _cell(html: str) -> str:
    """``html`` as a chapter's cell shows it."""
    return f'<html><body><article><div class="cell_output docutils container">{html}</div></article></body></html>'


def test_a_plain_pandas_table_in_a_cell_is_not_stackable():
    df = pd.DataFrame({"measure": ["AP", "P@10"], "rate": [0.051, 0.048]})
    for raw in (df.to_html(index=False), df.style.hide(axis="index").format(precision=3).to_html()):
        (problem,) = check_stackable(_cell(raw), "chapter.html")
        assert problem.startswith("chapter.html: table 1") and "not stackable" in problem
    labelled = raw.replace("<td ", '<td data-label="x" ')  # every body cell labelled: stackable
    assert check_stackable(_cell(labelled)) == []
    assert check_stackable(raw) == []  # prose (not a cell's output) is not checked
    good = book.table(df, caption="rates").text + status_table(_rows(2), "cmp").text
    assert check_stackable(_cell(good)) == []
    (problem,) = check_stackable(_cell(good + df.to_html()), "p")
    assert "table 3" in problem


def _rows(n: int) -> pd.DataFrame:
    """n rows judged by the rule, every reason different, of two kinds (within / outside)."""
    rows = []
    for i in range(n):
        ours = 0.501 + 0.0001 * i if i % 2 else 0.7 + 0.01 * i
        j = book.judge("0.50", ours, kind="score", ours_se=0.0001 * (i + 1))
        rows.append(
            {"quantity": f"q{i}", "paper": "0.50", "ours": ours, "status": j.status, "reason": j.reason}
        )
    return pd.DataFrame(rows, dtype=object)


def test_a_legend_of_one_footnote_per_row_is_found():
    frame = _rows(10)
    good = status_table(frame, "cap").text
    assert check_legend(good, "p") == []
    # the old way: one numbered footnote per distinct reason, ten for two kinds
    notes = "".join(f"<li>{r}</li>" for r in frame["reason"])
    badges = "".join(
        f"<tr><td>{status_badge(s, r, i + 1)}</td></tr>"
        for i, (s, r) in enumerate(zip(frame["status"], frame["reason"]))
    )
    old = (
        f'<div class="irrepro-comparison"><table><caption>old</caption><tbody>{badges}</tbody></table>'
        f'<ol class="irrepro-reasons">{notes}</ol></div>'
    )
    (problem,) = check_legend(old, "p")
    assert "10 legend entries for 2 kinds of reason" in problem
    dangling = good.replace('irrepro-note-ref">2<', 'irrepro-note-ref">7<')
    assert "point to entries" in check_legend(dangling, "p")[0]


def test_ours_with_more_than_one_decimal_beyond_the_papers_is_found():
    frame = _rows(4)
    good = book.Comparison("webber2008score", "Figure 3", frame.assign(ours_se=0.0001))._repr_html_()
    assert check_ours_precision(good, "p") == [] and "0.501" in good  # the paper's two decimals + 1
    raw = status_table(frame.assign(ours=[f"{x:.4f}" for x in frame["ours"]]), "cap").text
    (problem,) = check_ours_precision(raw, "p")
    assert "has 4 decimals, the paper's '0.50' 2" in problem
    fraction = status_table(frame.assign(paper="2/3"), "cap").text  # a fraction: not checked
    assert check_ours_precision(fraction, "p") == []
    bound = status_table(frame.assign(paper="> 0", ours="0.1234"), "cap").text  # a threshold: neither
    assert check_ours_precision(bound, "p") == []
