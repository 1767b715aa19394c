"""Issue 26, item 2: hostile names through every output format and every writer (irrepro.escape).

Each format is checked by its own reader, not by irrepro's escaping rules: LaTeX by pdflatex (the
table compiles, and TeX's own box listing shows which font sets ``<``, ``>`` and ``|``), Markdown
by markdown-it-py's pipe tables (cells per row, the text of each cell), CSV by pandas' reader
against OWASP's rule written out here, HTML by Python's html.parser, matplotlib by drawing the
label beside a ``parse_math=False`` text of the name (matplotlib's own literal mode).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from _reference import pdflatex
from irrepro import escape, plots
from irrepro import significance as sg
from irrepro.cli import main as cli_main
from irrepro.data import ScoreMatrix

LONG = "x" * 19_990 + "-the-end!"  # a 20,000-character run tag (the MemoryError)

#: Names a user (or an attacker) can give runs; the first part are valid TREC run tags (no
#: whitespace), the rest can come through the Python API.
TAGS = ["cost$\\foo$", "50%", "a|b", "=cmd()", "+1", "@x", "-x", "<script>alert(1)</script>", "&amp;", "_x",
        "#1", "{b}^~", "back\\slash", "é²ß", LONG]  # fmt: skip
HOSTILE = TAGS + ["  spaced ", "tab\there", "new\nline", "cr\rx", "\tlead", "esc\x1b[31mred"]


def _visible(name: str) -> str:
    """What a text format shows for a name: control characters as Python writes them."""
    return "".join(repr(c)[1:-1] if (ord(c) < 32 or 127 <= ord(c) < 160) else c for c in name)


def _owasp(name: str) -> str:
    """OWASP's rule as the test reads it: a text cell starting with = + - @ TAB CR gets a leading
    quote, unless the whole cell is a number (float() reads it)."""
    if name[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(name)
        except ValueError:
            return "'" + name
    return name


@pytest.fixture(scope="module")
def hostile():
    rng = np.random.default_rng(26)
    x = rng.beta(20, 50, size=(len(HOSTILE), 15)) + np.linspace(0, 0.3, len(HOSTILE))[:, None]
    topics = tuple(str(t) for t in range(401, 416))
    return {"AP": ScoreMatrix(x, tuple(HOSTILE), topics, "AP"),
            "P|x_$%": ScoreMatrix(x[:, ::-1].copy(), tuple(HOSTILE), topics, "P|x_$%")}  # fmt: skip


@pytest.fixture(scope="module")
def tables(hostile):
    return {
        "baseline": sg.compare(hostile, baseline="=cmd()", intervals=True, B_intervals=200, seed=1),
        "all pairs": sg.compare(hostile, test="paired-t", correction="none"),
    }


# ---------------------------------------------------------------- names shortened, never lost


def test_short_names_are_short_distinct_and_keep_the_full_name_in_the_key():
    names = ["a" * 30 + "-" + "b" * 30 + f"-v{k}" for k in range(3)] + ["z" * 50 + "-v1", "short"]
    labels = escape.short_names(names)
    assert len(set(labels)) == len(names)  # no two runs under one label
    assert all(len(lab) <= escape.MAX_NAME for lab in labels) and labels[-1] == "short"
    assert [n for _, n in escape.shortened_key(names, labels)] == names[:-1]


def test_text_table_keeps_one_line_per_run_and_no_control_character(tables):
    for tab in tables.values():
        text = tab.to_string()
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)  # no tab, CR, escape sequence
        lines = text.split("\n\n")[0].splitlines()
        assert len(lines) == 2 + len(HOSTILE)  # header, rule, one line per run
        for name in TAGS:
            if len(name) <= escape.MAX_NAME:
                assert name in text
        assert "tab\\there" in text and "new\\nline" in text and "esc\\x1b[31mred" in text
        assert LONG in text.split("\n\n", 1)[1]  # the full name in the note below
        assert max(map(len, lines)) < 400  # the long name is shortened in the table itself


# ---------------------------------------------------------------- Markdown


def _md_table(md: str):
    """The header and rows of the first pipe table of ``md`` as markdown-it-py parses it: each
    cell as (its text, whether it holds raw HTML)."""
    markdown_it = pytest.importorskip(
        "markdown_it", reason="markdown-it-py not installed (jupyter-book's parser)"
    )
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(md)
    rows, row = [], None
    for t in tokens:
        if t.type == "tr_open":
            row = []
        elif t.type == "tr_close":
            rows.append(row)
            row = None
        elif t.type == "inline" and row is not None:
            kids = t.children or []
            text = "".join(k.content for k in kids if k.type in ("text", "code_inline"))
            text += "".join("\n" for k in kids if k.type in ("softbreak", "hardbreak"))
            row.append((text, any(k.type == "html_inline" for k in kids)))
    return rows


def test_markdown_table_keeps_its_columns_and_shows_the_names(tables):
    for tab in tables.values():
        md = tab.to_markdown()
        rows = _md_table(md)
        assert len(rows) == 1 + len(HOSTILE)
        assert {len(r) for r in rows} == {len(tab._cells("markdown", 4).columns)}  # no cell split by "|"
        col = [c[0] for c in rows[0]].index("run")
        assert [c[0] for c in rows[0]].count("P|x_$%") == 1  # the measure header, literal
        shown = [r[col] for r in rows[1:]]
        assert not any(html for _, html in shown)  # "<script>" is text, not HTML
        for (text, _), name in zip(shown, HOSTILE):
            if len(name) <= escape.MAX_NAME:
                assert text == _visible(name)
            else:
                assert len(text) <= escape.MAX_NAME and text.startswith("xxx") and text.endswith("the-end!")
        note = md.split("\n\n", 1)[1]
        assert LONG in note.replace("\\", "")  # the full name in the note


# ---------------------------------------------------------------- CSV


def test_csv_follows_owasp_and_numbers_stay_numbers(tables):
    tab = tables["baseline"]
    back = pd.read_csv(io.StringIO(tab.to_csv()), index_col="run", keep_default_na=False)
    assert list(back.index) == [_owasp(n) for n in HOSTILE]
    assert "'=cmd()" in back.index and "'@x" in back.index and "'-x" in back.index and "'\tlead" in back.index
    assert "+1" in back.index  # a number-like name: a spreadsheet reads a number, no formula
    assert "'P|x_$% mean" not in back.columns and "P|x_$% mean" in back.columns
    diff = pd.read_csv(io.StringIO(tab.to_csv()), index_col="run")["AP difference"]
    assert diff.dtype == np.float64 and (diff < 0).any()  # negative numbers written as numbers


def test_to_csv_quotes_text_cells_labels_and_index_only():
    frame = pd.DataFrame({"name": ["=1+1", "-0.5", "-x", "@SUM(A1)", "+cmd|' /C calc'!A0", "\r=2", "ok", "nan"],
                          "value": [-0.5, 1.0, -2.0, 0.0, 3.0, -1e-9, 2.0, np.nan], "=head": range(8)},
                         index=pd.Index(["-i", "i", "=j", "k", "l", "m", "n", "o"], name="idx"))  # fmt: skip
    back = pd.read_csv(io.StringIO(escape.to_csv(frame)), index_col="idx", keep_default_na=False)
    assert list(back["name"]) == [_owasp(v) for v in frame["name"]]
    assert list(back.index) == [_owasp(v) for v in frame.index]
    assert "'=head" in back.columns
    np.testing.assert_array_equal(pd.to_numeric(back["value"]).to_numpy(), frame["value"].to_numpy())
    assert frame.loc["-i", "name"] == "=1+1"  # the frame itself is untouched


# ---------------------------------------------------------------- LaTeX


def _compile(exe, tmp_path, body: str) -> str:
    """Compile ``body`` in an article with booktabs; returns the log (lines not wrapped)."""
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + body
                   + "\n\\end{document}\n", encoding="utf-8")  # fmt: skip
    env = dict(os.environ, max_print_line="100000", error_line="254", half_error_line="238")
    run = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env=env, errors="replace")  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
    return (tmp_path / "doc.log").read_text(errors="replace")


def test_latex_beyond_pdflatex_is_what_pdflatex_cannot_set(tmp_path):
    """The rule behind compare's LaTeX warning, checked by pdflatex itself: every printable
    character it calls settable compiles (escaped), a Greek letter and a CJK one do not."""
    import unicodedata

    printable = [c for c in map(chr, [*range(0x20, 0x180), *range(0x2010, 0x2027)])
                 if unicodedata.category(c)[0] in "LNPSZ" and c != "\u00ad"]  # fmt: skip
    beyond = escape.latex_beyond_pdflatex("".join(printable))
    settable = "".join(c for c in printable if c not in beyond)
    assert len(settable) > 300 and escape.latex_beyond_pdflatex("résumé β 日 β «") == ["β", "日", "«"]
    exe = pdflatex()
    _compile(exe, tmp_path, escape.latex(settable))
    for c in ("β", "日", "«", "þ", "„"):
        with pytest.raises(AssertionError, match="not set up|unavailable in encoding"):
            _compile(exe, tmp_path, escape.latex(f"run-{c}"))


def test_a_latex_table_pdflatex_cannot_set_is_said(hostile):
    """compare --format latex with a Greek run tag: valid LaTeX for xelatex, but pdflatex stops at
    it - a warning names the characters (the audit: exit 0 and a table pdflatex refused)."""
    ap = hostile["AP"]
    greek = ScoreMatrix(ap.scores[:3], ("résumé", "β-run", "日本"), ap.topics, "AP")
    with pytest.warns(
        UserWarning, match="pdflatex does not set without a package .β 日 本.: compile it with xelatex"
    ):
        sg.compare(greek, test="paired-t").to_latex()
    latin = ScoreMatrix(ap.scores[:2], ("résumé", "é²ß"), ap.topics, "AP")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        latin_table = sg.compare(latin, test="paired-t").to_latex()
    assert "résumé" in latin_table


@pytest.mark.parametrize("which", ["baseline", "all pairs"])
def test_latex_table_with_hostile_names_compiles(tables, which, tmp_path):
    exe = pdflatex()
    tab = tables[which]
    latex = tab.to_latex(label="tab:hostile")
    assert LONG in latex.replace("\\allowbreak{}", "")  # the full name, in the key below the table
    log = _compile(exe, tmp_path, latex)
    assert "Missing $ inserted" not in log and "Undefined control sequence" not in log
    custom = tab.to_latex(caption="My runs")
    assert "\\caption{My runs}" in custom and "the-end!" in custom  # the key follows a caption of the user's


def test_latex_sets_less_than_greater_than_and_bar_as_themselves(tables, tmp_path):
    """In LaTeX's default OT1 encoding the slots of "<", ">" and "|" of the text font hold "¡",
    "¿" and an em dash: TeX's listing of the typeset pages (\\tracingoutput) must show no such
    glyph of an OT1 font, and those three characters set from the math fonts that hold them (OML's
    < and >, OMS's | in slot "j")."""
    exe = pdflatex()
    tab = tables["baseline"]
    assert "< 0.0001" in tab.to_string()  # a p-value below what 4 digits show
    latex = tab.to_latex()
    tabular = latex[latex.index("\\begin{tabular}") : latex.index("\\end{tabular}") + len("\\end{tabular}")]
    probe = "p: < 0.0001 | a>b"  # irrepro's own "< 0.0001" and the hostile names
    # \tracingoutput lists every glyph of the pages in the log, with its font (encoding/family/...)
    body = ("\\tracingoutput=1 \\showboxdepth=1000 \\showboxbreadth=1000000\n" + tabular + "\n\n"
            + escape.latex(probe) + "\n")  # fmt: skip
    log = _compile(exe, tmp_path, body)
    text_font = re.findall(r"\\OT1/[\w/.]+ ([<>|])$", log, flags=re.MULTILINE)
    assert not text_font, f"set from the text font's slots (printed as ¡ ¿ —): {sorted(set(text_font))}"
    math = set(re.findall(r"\\(OML/[\w/.]+ [<>]|OMS/[\w/.]+ j)$", log, flags=re.MULTILINE))  # cmsy's "j" is |
    assert {m.split("/")[0] + m[-1] for m in math} == {"OML<", "OML>", "OMSj"}, (
        "the probe did not reach the log"
    )


# ---------------------------------------------------------------- HTML


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.titles, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.titles += [v for k, v in attrs if k == "title"]

    def handle_data(self, data):
        self.text.append(data)


def test_html_escape_and_name_tooltip():
    p = _Tags()
    hostile = '<script>x</script> & "q"'
    p.feed("<p>" + str(escape.html(hostile)) + "</p>" + str(escape.html_name(LONG)))
    assert p.tags == ["p", "span"] and p.titles == [LONG]
    assert "".join(p.text).startswith('<script>x</script> & "q"')
    assert len(p.text[-1]) <= escape.MAX_NAME


def _write_runs(d, names, topics=12, seed=1):
    """A directory of TREC run files whose run tags are ``names`` (files run0, run1, ...) and
    its qrels."""
    from irrepro import data

    rs = data.synthetic.runs(len(names), topics, list_length=30, seed=seed)
    (d / "runs").mkdir()
    for s, name in enumerate(names):
        lines = []
        for t, topic in enumerate(rs.topics):
            docs = rs.doc_ids(s, t)
            lines += [f"{topic} Q0 {doc} {r + 1} {len(docs) - r} {name}\n" for r, doc in enumerate(docs)]
        (d / "runs" / f"run{s}").write_text("".join(lines), encoding="utf-8")
    qt = rs.qrels.table
    (d / "qrels.txt").write_text("".join(f"{t} 0 {doc} {g}\n" for t, doc, g in
                                         qt[["topic", "doc", "grade"]].itertuples(index=False)))  # fmt: skip
    return d / "runs", d / "qrels.txt"


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    """`irrepro report` on runs tagged with the hostile names, against the `$` name as baseline."""
    d = tmp_path_factory.mktemp("hostile")
    runs, qrels = _write_runs(d, TAGS)
    rc = cli_main(["report", str(runs), "--qrels", str(qrels), "--out", str(d / "out"), "--scale", "quick",
                   "-q", "--baseline", "cost$\\foo$"])  # fmt: skip
    assert rc == 0
    return d / "out"


def test_report_html_has_no_raw_tag_and_keeps_long_names_in_tooltips(hostile_report):
    html = (hostile_report / "index.html").read_text(encoding="utf-8")
    p = _Tags()
    p.feed(html)
    assert "script" not in p.tags
    assert LONG in p.titles  # the full name, as the tooltip of its shortened form
    assert all(len(t) < 200 for t in p.text if t.startswith("xxx"))  # never shown whole
    assert "<script>alert(1)</script>" in "".join(p.text)  # shown as text


def test_report_csvs_follow_owasp_with_every_name_in_full(hostile_report):
    runs = pd.read_csv(hostile_report / "runs.csv", keep_default_na=False)
    assert sorted(runs["run"]) == sorted(_owasp(n) for n in TAGS)
    assert runs["mean AP"].dtype == np.float64
    pairs = pd.read_csv(hostile_report / "pairs.csv", keep_default_na=False)
    assert set(pairs["run x"]) | set(pairs["run y"]) == {_owasp(n) for n in TAGS}
    per_topic = pd.read_csv(hostile_report / "ap-per-topic.csv", index_col=0)
    assert sorted(per_topic.index) == sorted(_owasp(n) for n in TAGS)


# ---------------------------------------------------------------- the command line


def test_cli_compare_latex_with_hostile_tags_compiles(tmp_path, capsys):
    runs, qrels = _write_runs(tmp_path, TAGS)
    rc = cli_main(["compare", "--qrels", str(qrels), str(runs), "-m", "AP", "--baseline", "cost$\\foo$",
                   "--format", "latex"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0 and "\\toprule" in out
    _compile(pdflatex(), tmp_path, out)


def test_cli_eval_csv_and_tsv_with_hostile_tags(tmp_path, capsys):
    runs, qrels = _write_runs(tmp_path, TAGS)
    assert cli_main(["eval", "--qrels", str(qrels), str(runs), "-m", "AP", "--format", "csv"]) == 0
    back = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    assert sorted(set(back["run"])) == sorted(_owasp(n) for n in TAGS)
    assert back["value"].dtype == np.float64


def test_write_scores_tsv_keeps_its_columns_with_control_characters():
    from irrepro.cli._eval import write_scores

    rows = [(n, "401", "AP", 0.5, False) for n in HOSTILE] + [(n, "all", "AP", 0.5, False) for n in HOSTILE]
    out = io.StringIO()
    write_scores(rows, "tsv", 4, out)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(rows) and all(line.count("\t") == 3 for line in lines)
    out = io.StringIO()
    write_scores(rows, "csv", 4, out)
    back = pd.read_csv(io.StringIO(out.getvalue()), keep_default_na=False)
    assert list(back["run"]) == [_owasp(n) for n in HOSTILE] * 2


#: File names a shell must be told literally: spaces, quotes, backslashes, what the shell expands,
#: control and format characters (a newline, a right-to-left override, an escape sequence, a zero-
#: width space, a BOM, the line separator), a byte that is not UTF-8 (Python's surrogateescape),
#: letters beyond ASCII.
SHELL_NAMES = [
    "plain.txt", "my runs/a b.txt", "it's", "back\\slash\\n", "$HOME `id` \"q\" !x *", "-rf", "",
    "z\nnl\u202e", "tab\there", "cr\rx", "esc\x1b[31m", "del\x7f", "c1\x85", "zw\u200bsp", "bom\ufeff",
    "ls\u2028ps\u2029", "caf\u00e9", "x\udce9y", "emoji\U0001f600", "trailing\n", "'\n'", "\\'$'\x01",
]  # fmt: skip


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
def test_shell_words_are_the_names_in_bash(bash_words, locale):
    """Each word :func:`escape.shell` makes, pasted into bash, is the name byte for byte (whatever
    the locale: the escapes are of bytes); it is one line a terminal shows as it is, and a name with
    nothing to escape is quoted as :func:`shlex.quote` quotes it."""
    import shlex

    words = [escape.shell(n) for n in SHELL_NAMES]
    assert bash_words(" ".join(words), locale) == [os.fsencode(n) for n in SHELL_NAMES]
    for name, word in zip(SHELL_NAMES, words):
        assert "\n" not in word and escape.plain(word) == word, (name, word)
        assert word == shlex.quote(name) or (word.startswith("$'") and escape.plain(name) != name), name
    assert escape.shell("z\nnl\u202e") == "$'z\\nnl\\xe2\\x80\\xae'"  # (not 'z\\nnl\\u202e': another file)


# ---------------------------------------------------------------- matplotlib


def _literal(fig, text) -> bool:
    """``text`` (a drawn Text) has the extent of its name drawn by matplotlib without mathtext."""
    from matplotlib.text import Text

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    ref = Text(
        0,
        0,
        text._irrepro_name,
        parse_math=False,
        fontproperties=text.get_fontproperties(),
        rotation=text.get_rotation(),
    )
    ref.set_figure(fig)
    a, b = text.get_window_extent(r), ref.get_window_extent(r)
    return abs(a.width - b.width) < 0.5 and abs(a.height - b.height) < 0.5


@pytest.fixture
def agg():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_plots_draw_hostile_names_literally_and_long_names_shortened(agg, tables):
    plt = agg
    names = list(TAGS)
    S = len(names)
    pairs = np.array([(i, j) for i in range(S) for j in range(i + 1, S)])
    fig, axes = plt.subplots(1, 3, figsize=(15, 5))
    plots.plot_significance_matrix(pairs, np.ones(len(pairs)), np.zeros(len(pairs), bool), np.arange(S),
                                   labels=names, ax=axes[0])  # fmt: skip
    plots.plot_asl_curves({n: np.linspace(0, 1, 5) for n in names}, ax=axes[1])
    axes[1].legend()
    plots.plot_relevant_per_topic({"cost$\\foo$": [1, 5, 9], LONG: [2, 3, 4]}, ax=axes[2])
    ticks = axes[0].get_xticklabels()
    assert (
        max(len(t.get_text()) for t in ticks) <= escape.MAX_NAME + 1
    )  # before drawing: 20,000 chars do not fit
    legend = [t.get_text() for t in axes[1].get_legend().get_texts()]
    assert len(legend) == S  # "_x" is not left out of the legend
    for t, name in zip(ticks, names):
        if len(name) <= escape.MAX_NAME:
            t._irrepro_name = name
            assert _literal(fig, t), name
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    assert 0 < len(buf.getvalue()) < 5_000_000


def test_mpl_escape_is_literal_for_dollars_and_backslashes(agg):
    plt = agg
    fig, ax = plt.subplots()
    for k, name in enumerate(["cost$\\foo$", "a\\$b", "$x$", "\\$", "50% $", "_x"]):
        t = ax.text(0.1, 0.1 * k, escape.mpl(name))
        t._irrepro_name = name if not name.startswith("_") else "\u200b" + name
        assert _literal(fig, t), name


# ---------------------------------------------------------------- names a reader cannot tell apart

#: Two 300-character run tags that differ in the middle only (one shortened form), one text in
#: two Unicode normalizations (NFC and NFD: drawn alike), and format characters a terminal, a
#: browser or a Markdown viewer acts on without showing them (a right-to-left override makes
#: "evil<RLO>abc" show as "evilcba"; a zero-width space shows as nothing).
LONG_X, LONG_Y = "a" * 150 + "X" + "b" * 149, "a" * 150 + "Y" + "b" * 149
CAFE_NFC, CAFE_NFD = "caf\u00e9", "cafe\u0301"
RLO, ZWSP = "evil\u202eabc", "zw\u200bsp"
TWINS = [LONG_X, LONG_Y, CAFE_NFC, CAFE_NFD, RLO, ZWSP]


def _format_characters() -> list[str]:
    """Every character of Unicode's category Cf (format) in this Python's Unicode database."""
    import sys
    import unicodedata

    return [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]


def _escaped(c: str) -> str:
    """A character as Python's string literals write it: \\xNN, \\uNNNN or \\UNNNNNNNN."""
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def _raw_format(text: str) -> list[str]:
    import unicodedata

    return sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cf"})


def test_every_escaper_writes_format_characters_visibly():
    """Bidirectional controls, zero-width and other format characters (category Cf: 163 in
    Unicode 14) come out of the text, Markdown, HTML, LaTeX and matplotlib escapers as their
    escapes, each format's reader showing the escape: none is written raw."""
    cf = _format_characters()
    assert {"\u200b", "\u200d", "\u200e", "\u202a", "\u202e", "\u2066", "\u2069", "\ufeff"} <= set(cf)
    for c in cf:
        name = f"a{c}b"
        shown = "a" + _escaped(c) + "b"
        assert escape.plain(name) == shown, c
        assert escape.mpl(name) == shown, c
        p = _Tags()
        p.feed(str(escape.html(name)))
        assert "".join(p.text) == shown, c
        assert escape.latex(name) == "a" + _escaped(c).replace("\\", "\\textbackslash{}") + "b", c
    md = "| run |\n|---|\n" + "".join(f"| {escape.markdown(f'a{c}b')} |\n" for c in cf)
    rows = _md_table(md)
    assert [text for ((text, _html),) in rows[1:]] == ["a" + _escaped(c) + "b" for c in cf]


def test_short_names_keep_long_twins_and_look_alikes_apart():
    """Labels are distinct as a reader sees them: two long names that shorten alike, and one text
    in two normalizations (equal in NFC), each get a label of their own; other names keep theirs."""
    import unicodedata

    names = [*TWINS, "short"]
    labels = escape.short_names(names)
    assert len({unicodedata.normalize("NFC", lab) for lab in labels}) == len(names)
    assert all(len(lab) <= escape.MAX_NAME for lab in labels)
    assert labels[4:] == [RLO, ZWSP, "short"]  # (different characters: their escapes tell them apart)
    assert unicodedata.normalize("NFC", labels[2]).startswith("café") and labels[2] != CAFE_NFC
    assert [n for _, n in escape.shortened_key(names, labels)] == names[:4]


def test_nfkc_twins_are_look_alikes_kept_apart():
    """Names equal in NFKC only - a ligature and its letters, fullwidth and ASCII letters, a
    superscript digit - are look-alikes, labelled apart like NFC twins; names that differ as a
    reader sees them are not. Letters of other scripts that look alike (Cyrillic "a") are not
    found: Unicode's confusables are not in the standard library."""
    fi, full, sup = "\ufb01le", "\uff21P", "run\u00b2"  # "ﬁle", "ＡP", "run²"
    names = [fi, "file", full, "AP", sup, "run2", "File", "p\u0430per", "paper"]
    assert escape.look_alikes(names) == [[fi, "file"], [full, "AP"], [sup, "run2"]]
    labels = escape.short_names(names)
    assert labels == [f"{fi}[1]", "file[2]", f"{full}[1]", "AP[2]", f"{sup}[1]", "run2[2]", "File",
                      "p\u0430per", "paper"]  # fmt: skip


@pytest.fixture(scope="module")
def twin_runs(tmp_path_factory):
    return _write_runs(tmp_path_factory.mktemp("twins"), TWINS)


def _one_warning(recwarn, what: str = "run names") -> str:
    """One warning names both normalizations of "café", in ASCII escapes; its text."""
    said = [str(w.message) for w in recwarn if "look the same" in str(w.message)]
    assert len(said) == 1, said
    assert said[0].startswith(f"{what} ") and "'caf\\xe9'" in said[0] and "'cafe\\u0301'" in said[0]
    assert _raw_format(said[0]) == []
    return said[0]


def test_eval_warns_of_nfkc_twins(tmp_path, run_cli, recwarn):
    """A run tagged "ﬁle" (the ligature) beside one tagged "file", and "ＡP" (fullwidth) beside
    "AP": one warning per pair, naming both in ASCII escapes and their files; the two still score
    as two runs."""
    runs, qrels = _write_runs(tmp_path, ["\ufb01le", "file", "\uff21P", "AP"])
    rc, out, err = run_cli(["eval", "--qrels", qrels, runs, "-m", "AP"])
    assert rc == 0, err
    said = [str(w.message) for w in recwarn if "look the same" in str(w.message)]
    assert len(said) == 2, said
    for a, b in (
        (("'\\ufb01le' (", "run0)"), ("'file' (", "run1)")),
        (("'\\uff21P' (", "run2)"), ("'AP' (", "run3)")),
    ):
        (one,) = [w for w in said if a[0] in w]
        assert one.startswith("run names ") and all(x in one for x in (*a, *b)), one
        assert one.isascii(), one  # (the names in ASCII escapes, their NFKC form in ASCII here)
    assert sorted(line.split("\t")[0] for line in out.splitlines()) == sorted(
        ["\ufb01le", "file", "\uff21P", "AP"]
    )


@pytest.mark.parametrize("fmt", ["tsv", "trec_eval", "csv", "json"])
def test_eval_with_look_alike_and_format_character_names(twin_runs, run_cli, recwarn, fmt):
    import json as json_module

    runs, qrels = twin_runs
    rc, out, err = run_cli(["eval", "--qrels", qrels, runs, "-m", "AP", "--format", fmt])
    assert rc == 0, err
    said = _one_warning(recwarn)
    assert "run2)" in said and "run3)" in said  # the files of the two "café"
    if fmt in ("csv", "json"):  # data, read back by programs: every name as it is
        if fmt == "csv":
            got = set(pd.read_csv(io.StringIO(out), keep_default_na=False)["run"])
        else:
            got = {r["run"] for r in json_module.loads(out)["scores"]}
        assert got == set(TWINS)
        return
    assert _raw_format(out) == []
    assert "evil\\u202eabc" in out and "zw\\u200bsp" in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv"])
def test_compare_with_look_alike_and_format_character_names(twin_runs, run_cli, recwarn, fmt):
    import unicodedata

    runs, qrels = twin_runs
    rc, out, err = run_cli(["compare", "--qrels", qrels, runs, "-m", "AP", "--format", fmt])
    assert rc == 0, err
    _one_warning(recwarn)
    if fmt == "csv":
        assert set(pd.read_csv(io.StringIO(out), keep_default_na=False)["run"]) == set(TWINS)
        return
    assert _raw_format(out) == [] and "u202eabc" in out
    if fmt == "markdown":
        shown = [r[1][0] for r in _md_table(out)[1:]]  # the run column as a Markdown reader shows it
    else:
        shown = [ln.split()[1] for ln in out.split("\n\n")[0].splitlines()[2:]] if fmt == "text" else None
    if shown is not None:
        assert len(shown) == len(TWINS)
        assert len({unicodedata.normalize("NFC", s) for s in shown}) == len(TWINS)  # every run its own label
    if fmt == "text":  # the key below the table tells the two "café" apart by their code points
        assert "= café ('caf\\xe9')" in out and "= café ('cafe\\u0301')" in unicodedata.normalize("NFC", out)


def test_report_with_look_alike_and_format_character_names(twin_runs, tmp_path, run_cli, recwarn):
    """The report's tables label every run apart (the two long names, the two "café"), with the
    full name as tooltip; nothing in its HTML, Markdown or LaTeX holds a raw format character; its
    CSVs keep the names as they are."""
    import unicodedata

    runs, qrels = twin_runs
    rc, out, err = run_cli(["report", runs, "--qrels", qrels, "--out", tmp_path / "out", "--scale", "quick", "-q",
                            "--baseline", RLO])  # fmt: skip
    assert rc == 0, err
    _one_warning(recwarn)
    d = tmp_path / "out"
    html = (d / "index.html").read_text(encoding="utf-8")
    for head, k in (("<th>run</th>", 1), ("<th>run x</th>", 2)):  # the runs and the pairs tables
        (table,) = [t for t in re.findall(r"<table.*?</table>", html, flags=re.DOTALL) if head in t]
        label_of: dict[str, set] = {}
        for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.DOTALL):  # (the header: <th>, no <td>)
            for cell in re.findall(r"<td>(.*?)</td>", row, flags=re.DOTALL)[:k]:
                p = _Tags()
                p.feed(cell)
                full = p.titles[0] if p.titles else "".join(p.text)  # a shortened label's tooltip
                label_of.setdefault(full, set()).add("".join(p.text))
        assert set(label_of) == {escape.plain(n) for n in TWINS}  # every run, its full name at hand
        assert all(len(labs) == 1 for labs in label_of.values())  # one label per run throughout
        shown = {unicodedata.normalize("NFC", lab) for labs in label_of.values() for lab in labs}
        assert len(shown) == len(TWINS), label_of  # ... and no two runs under one label
    for f in ("index.html", "methods.md", "methods.tex"):
        assert _raw_format((d / f).read_text(encoding="utf-8")) == [], f
    assert "against the baseline evil\\u202eabc" in html
    runs_csv = pd.read_csv(d / "runs.csv", keep_default_na=False)
    assert set(runs_csv["run"]) == set(TWINS)


def test_design_with_look_alike_and_format_character_names(twin_runs, tmp_path, run_cli, recwarn):
    runs, qrels = twin_runs
    # the first run misses a topic: design names it on stderr
    gappy = tmp_path / "runs"
    gappy.mkdir()
    for f in sorted(runs.iterdir()):
        lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
        (gappy / f.name).write_text("".join(ln for ln in lines if not (f.name == "run4" and ln.split()[0] == lines[0].split()[0])),
                                    encoding="utf-8")  # fmt: skip
    rc, out, err = run_cli(["design", "--qrels", qrels, gappy, "-m", "AP", "--min-diff", "0.1", "--out",
                            tmp_path / "out"])  # fmt: skip
    assert rc == 0, err
    _one_warning(recwarn)
    assert _raw_format(out) == [] and _raw_format(err) == []
    assert "run evil\\u202eabc:" in err  # the run missing a topic, named visibly
    assert _raw_format((tmp_path / "out" / "topics.csv").read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv", "json"])
def test_reproduce_with_look_alike_and_format_character_names(tmp_path_factory, run_cli, recwarn, fmt):
    """Experiments named by their files: a right-to-left override in a file name is escaped in the
    tables (kept in csv and json), and file names that look alike are warned of once."""
    import json as json_module

    d = tmp_path_factory.mktemp("repro")
    runs, qrels = _write_runs(d, ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"])
    names = [CAFE_NFC, CAFE_NFD, RLO, ZWSP]
    dirs = [d / role for role in ("ob", "oa", "rb", "ra")]
    for k, role in enumerate(dirs):
        role.mkdir()
        for j, name in enumerate(names):
            (role / name).write_text(
                (runs / f"run{(2 * k + j) % 8}").read_text(encoding="utf-8"), encoding="utf-8"
            )
    rc, out, err = run_cli(["reproduce", *dirs, "--qrels", qrels, "-m", "AP", "--resamples", "100", "--format", fmt])  # fmt: skip
    assert rc == 0, err
    _one_warning(recwarn, "experiments (file names)")
    if fmt == "csv":
        assert set(pd.read_csv(io.StringIO(out), keep_default_na=False)["experiment"]) == set(names)
    elif fmt == "json":
        assert {r["experiment"] for r in json_module.loads(out)["rows"]} == set(names)
    else:
        assert _raw_format(out) == [] and "u202eabc" in out


def test_figures_label_long_twins_and_look_alikes_apart(agg):
    """A figure's series and ticks: the two long names and the two "café" each under a label of
    their own, format characters escaped."""
    import unicodedata

    plt = agg
    fig, axes = plt.subplots(1, 3, figsize=(15, 5))
    plots.plot_asl_curves({n: np.linspace(0, 1, 5) for n in TWINS}, ax=axes[0])
    S = len(TWINS)
    pairs = np.array([(i, j) for i in range(S) for j in range(i + 1, S)])
    plots.plot_significance_matrix(pairs, np.ones(len(pairs)), np.zeros(len(pairs), bool), np.arange(S),
                                   labels=TWINS, ax=axes[1])  # fmt: skip
    frame = pd.DataFrame(
        {"experiment": [n for n in TWINS for _ in range(2)], "run": "effect", "measure": "AP",
         "statistic": ["ER", "DeltaRI"] * S, "value": 1.0, "low": 0.5, "high": 1.5}
    )  # fmt: skip
    rep = plots.plot_reproduction(frame)
    legends = [
        [t.get_text() for t in axes[0].get_legend().get_texts()],
        [t.get_text() for t in axes[1].get_xticklabels()],
        [t.get_text() for t in rep[0].get_legend().get_texts()],
    ]
    for shown in legends:
        assert len({unicodedata.normalize("NFC", s) for s in shown}) == S, shown
        assert all(_raw_format(s) == [] for s in shown)


def test_to_csv_ends_lines_with_newline_on_every_platform(monkeypatch):
    """The CSV writers quote for a ``"\\n"`` line end: pandas' default (``os.linesep``) is not used."""
    monkeypatch.setattr(os, "linesep", "\r\n")
    frame = pd.DataFrame({"run": ["a", "=b"], "AP": [0.5, 0.25]})
    assert frame.to_csv(index=False).endswith("\r\n")  # what the default would give here
    assert escape.to_csv(frame, index=False) == "run,AP\na,0.5\n'=b,0.25\n"
