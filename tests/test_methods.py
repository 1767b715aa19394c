"""Issue 29, item 2: the methods paragraph (irrepro.significance.methods_paragraph) names every
setting that changes a number - each setting is changed alone and the paragraph must change and say
the new value -, its LaTeX compiles with hostile names (pdflatex) and its Markdown shows them
literally (markdown-it-py), its ir_metadata sidecar parses with the schema's fields, and
``irrepro compare --methods`` and ``irrepro report`` carry it from the settings they used."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy
import yaml

import irrepro
from _reference import pdflatex
from irrepro import escape
from irrepro._outputs import MARKER
from irrepro.cli import main as cli_main
from irrepro.errors import InputError
from irrepro.significance import methods_paragraph

BASE = dict(n_topics=50, n_runs=4, test="paired-t", correction="holm", alpha=0.05, baseline="bm25",
            seed=7, interval="bca", level=0.95, B_interval=1000)  # fmt: skip


def _both(**changes):
    kw = {**BASE, **changes}
    measures = kw.pop("measures", ["AP"])
    return methods_paragraph(measures, **kw)


#: (setting, new value, what the new paragraph says and the old one does not)
CHANGES = [
    ("test", "wilcoxon", "Wilcoxon signed-rank test"),
    ("test", "bootstrap", "B = 1,000 bootstrap samples"),
    ("alternative", "greater", "one-sided"),
    ("correction", "bonferroni", "Bonferroni"),
    ("correction", "none", "not adjusted"),
    ("correction", ("holm", "fdr_bh"), "Benjamini-Hochberg"),
    ("alpha", 0.01, "p < 0.01"),
    ("measures", ["P@10"], "P_10"),
    ("measures", ["nDCG@20"], "cut off at rank 20"),
    ("measures", ["RBP(p=0.5)"], "p = 0.5"),
    ("seed", 8, "seed 8"),
    ("n_topics", 49, "49 topics"),
    ("n_runs", 5, "5 runs"),
    ("baseline", None, "every pair of runs"),
    ("interval", "percentile", "percentile bootstrap"),
    ("interval", None, "No step is random"),
    ("interval_of", "mean", "each run's mean"),
    ("level", 0.9, "90%"),
    ("B_interval", 2000, "2,000 bootstrap samples"),
    ("rel", 2, "grade 2 or above"),
    ("depth", 100, "first 100 documents"),
    ("precision", "float64", "float64 precision"),
    ("missing_runs", 2, "2 of the 4 runs miss"),
    ("effect_sizes", ("difference", "d_z"), "Cohen's d"),
    ("n_comparisons", 6, "6 comparisons"),
]


@pytest.mark.parametrize("setting, value, says", CHANGES, ids=[f"{s}={v}" for s, v, _ in CHANGES])
def test_the_paragraph_names_every_setting_that_changes_a_number(setting, value, says):
    old, new = _both(), _both(**{setting: value})
    assert new.markdown != old.markdown and new.latex != old.latex and new.metadata != old.metadata
    plain_new = new.markdown.replace("\\", "")  # the Markdown's escapes off
    assert says in plain_new and says not in old.markdown.replace("\\", "")


def test_resamples_of_a_resampling_test_are_named():
    a, b = _both(test="permutation", B=5000), _both(test="permutation", B=20_000)
    assert "B = 5,000 random sign flips" in a.markdown and "B = 20,000 random sign flips" in b.markdown
    exact = _both(test="permutation", B=5000, exact=True)
    assert "exact: all sign flips" in exact.markdown and "5,000" not in exact.markdown
    tukey = _both(test="tukey", B=300)
    assert "family-wise" in tukey.markdown and "Holm" not in tukey.markdown and "B = 300" in tukey.markdown


def test_versions_and_the_missing_topic_convention_are_stated():
    m = _both()
    text = m.markdown.replace("\\", "")
    for v in (f"irrepro {irrepro.__version__}", f"numpy {np.__version__}", f"scipy {scipy.__version__}"):
        assert v in text
    assert "trec_eval -c" in text and "scores 0" in text and "Python 3." in text


def test_bad_settings_are_refused():
    for bad in (dict(test="t-test"), dict(correction="holmes"), dict(alpha=1.5), dict(interval="normal"),
                dict(effect_sizes=("r",)), dict(precision="float16"), dict(alternative="both"),
                dict(seed=None)):  # fmt: skip
        with pytest.raises(InputError):
            _both(**bad)
    with pytest.raises(InputError, match="measure"):
        _both(measures=["NoSuchMeasure@3"])


HOSTILE = ["a_b&c%$#{}~^\\", "<x>|y", "*bold* `tick`", "50% [link](x)", 'it\'s "q" a--b---c ,,d !`e']


@pytest.mark.parametrize("name", HOSTILE)
def test_the_latex_compiles_with_hostile_names(name, tmp_path):
    m = _both(baseline=name, qrels=name + ".qrels")
    assert escape.latex(name) in m.latex
    doc = tmp_path / "doc.tex"
    doc.write_text(
        "\\documentclass{article}\n\\begin{document}\n" + m.latex + "\\end{document}\n", encoding="utf-8"
    )
    import subprocess

    run = subprocess.run([pdflatex(), "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, errors="replace")  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:]
    pdftotext = __import__("shutil").which("pdftotext")
    if pdftotext:  # the name is printed as it is
        text = subprocess.run(
            [pdftotext, "doc.pdf", "-"], cwd=tmp_path, capture_output=True, text=True
        ).stdout
        assert name.replace(" ", "") in text.replace("\n", "").replace(" ", "")


@pytest.mark.parametrize("name", HOSTILE)
def test_the_markdown_shows_hostile_names_literally(name):
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py not installed")
    m = _both(baseline=name)
    tokens = markdown_it.MarkdownIt("commonmark").parseInline(m.markdown.strip())[0].children
    text = "".join(t.content for t in tokens if t.type in ("text", "code_inline"))
    assert name in text and not any(t.type in ("link_open", "em_open", "html_inline") for t in tokens)


def test_the_sidecar_parses_with_ir_metadata_fields():
    m = _both(measures=["AP", "nDCG@10", "RR@10"], command="irrepro compare ...", qrels="q.txt",
              correction=("holm", "fdr_bh"))  # fmt: skip
    back = yaml.safe_load(m.to_yaml())
    assert back == m.metadata and back["schema-version"] == "0.1"
    libs = back["platform"]["software"]["libraries"]["python"]
    assert f"numpy=={np.__version__}" in libs and f"irrepro=={irrepro.__version__}" in libs
    assert back["platform"]["hardware"]["cpu"]["number of cores"] >= 1
    assert back["implementation"]["executable"]["cmd"] == "irrepro compare ..."
    ev = back["research goal"]["evaluation"]
    assert ev["reported measures"] == ["map", "ndcg_cut_10", "RR@10"]  # trec_eval's names, else ir_measures'
    assert ev["baseline"] == ["bm25"]
    assert ev["significance test"] == [{"name": "paired t-test", "correction method": "holm"},
                                       {"name": "paired t-test", "correction method": "fdr_bh"}]  # fmt: skip
    assert back["data"]["test collection"]["qrels"] == "q.txt"
    own = back["irrepro"]
    assert (own["alpha"], own["seed"], own["level"], own["interval"], own["n_topics"]) == (
        0.05,
        7,
        0.95,
        "bca",
        50,
    )


# ---------------------------------------------------------------- the command line and the report


def _compare(sim_dir, capsys, *extra):
    rc = cli_main(
        [
            "compare",
            "--qrels",
            str(sim_dir / "qrels.txt"),
            str(sim_dir / "runs"),
            "-m",
            "AP",
            "--methods",
            *extra,
        ]
    )
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


#: compare's options that change a number, and what the paragraph then says
CLI_CHANGES = [
    (["--test", "sign"], "sign test"),
    (["--test", "bootstrap", "-B", "5000"], "B = 5,000"),
    (["--test", "bootstrap"], "B = 3,000"),  # 1000 raised for Holm over the 6 pairs of 4 runs: 20 x 6 / 0.05
    (["--correction", "bonferroni"], "Bonferroni"),
    (["--alpha", "0.1"], "p < 0.1"),
    (["-m", "P@5"], "P_5"),
    (["--intervals"], "BCa"),
    (["--intervals", "--level", "90"], "90%"),
    (["--intervals", "--seed", "5"], "seed 5"),
    (["--baseline", "simrun002"], "baseline run"),
    (["-l", "2"], "grade 2 or above"),
    (["--precision", "float64"], "float64 precision"),
]


@pytest.mark.parametrize("extra, says", CLI_CHANGES, ids=[" ".join(e) for e, _ in CLI_CHANGES])
def test_compare_methods_follows_the_options(sim_dir, capsys, extra, says):
    base = _compare(sim_dir, capsys)
    new = _compare(sim_dir, capsys, *extra)
    para = new[new.index("**Methods.**") :].replace("\\", "")
    assert says in para and says not in base[base.index("**Methods.**") :].replace("\\", "")


def test_compare_methods_in_latex_and_to_a_file(sim_dir, capsys, tmp_path):
    out = _compare(sim_dir, capsys, "--format", "latex")
    assert out.index("\\end{table}") < out.index("\\paragraph{Methods.}")
    f = tmp_path / "m.md"
    plain = _compare(sim_dir, capsys)
    out = _compare(sim_dir, capsys, "--methods-file", str(f))
    assert "Methods" not in out and f.read_text().startswith("**Methods.**")
    assert f.read_text() == plain[plain.index("**Methods.**") :]
    rc = cli_main(["compare", "--qrels", str(sim_dir / "qrels.txt"), str(sim_dir / "runs"), "-m", "AP", "--methods",
                   "--format", "csv"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and "--methods-file" in err


def test_the_report_writes_the_methods(sim_dir):
    out = sim_dir / "rep"
    rc = cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(out), "--scale",
                   "quick", "-q", "--seed", "3", "--test", "permutation"])  # fmt: skip
    assert rc == 0
    md, tex = (out / "methods.md").read_text(), (out / "methods.tex").read_text()
    meta = yaml.safe_load((out / "ir_metadata.yml").read_text())
    assert "seed 3" in md and "randomization (permutation) test" in md and "B = 200" in md
    assert "Corpus bootstrap" in md and "B = 200 Poisson(1)" in md and "50 random halves" in md
    assert tex.startswith("\\paragraph{Methods.}") and "seed 3" in tex
    assert meta["irrepro"]["seed"] == 3 and meta["irrepro"]["test"] == "permutation"
    assert "report" in meta["implementation"]["executable"]["cmd"]
    page = (out / "index.html").read_text()
    assert "<h2>Methods</h2>" in page and "href='methods.tex'" in page and "seed 3" in page
    manifest = json.loads((out / MARKER).read_text())
    assert {"methods.md", "methods.tex", "ir_metadata.yml"} <= set(json.dumps(manifest).split('"'))
