"""``irrepro report``: the four papers' analyses of a directory of runs, as one HTML report.

The run directory is built here from the mirror's real TREC-COVID round-5 run files (the user's
situation: a folder of gzipped TREC runs and an ir_datasets qrels id). Its numbers are checked
against independent references - NIST's leaderboard for the means, scipy for the paired t-tests
of the topic split and for the standardization, statsmodels-free Holm / BH written out here - and
the HTML is checked to be self-contained.
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irrepro import data, report
from irrepro.cli import main as cli_main

RUNS = 8  # runs copied from the mirror (28 pairs)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from irrepro.data import mirror_dir

    m = mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    files = sorted((m / "trec-covid" / "round5" / "runs").glob("*.gz"))
    assert len(files) == 126
    d = tmp_path_factory.mktemp("my-runs")
    for f in files[:: len(files) // RUNS][:RUNS]:  # spread over the alphabet (several teams)
        shutil.copy(f, d / f.name)
    return d


@pytest.fixture(scope="module")
def written(run_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    rc = cli_main([
        "report", str(run_dir), "--qrels", "cord19/trec-covid/round5", "--out", str(out),
        "--seed", "7", "--scale", "quick", "-q",
    ])  # fmt: skip
    assert rc == 0
    return out


@pytest.mark.realdata
def test_report_files_and_self_contained_html(written):
    html = (written / "index.html").read_text()
    for section in ("1. Scores", "2. Paired bootstrap tests (Sakai 2006)",
                    "3. Corpus-bootstrap intervals (Cormack &amp; Lynam 2006)",
                    "4. Topic-split error rates (Sanderson &amp; Zobel 2005)",
                    "5. Standardized scores (Webber, Moffat &amp; Zobel 2008)"):  # fmt: skip
        assert f"<h2>{section}</h2>" in html
    # one embedded PNG per figure, and nothing loaded from elsewhere
    imgs = re.findall(r'<img src="([^"]+)"', html)
    assert len(imgs) == 5 and all(s.startswith("data:image/png;base64,") for s in imgs)
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<script" not in html
    assert re.findall(r"<link[^>]*>", html) == ["<link rel='icon' href='data:,'>"]  # no /favicon.ico request
    assert html.count("<table") >= 4
    for f in ("summary.csv", "runs.csv", "pairs.csv", "error-rates.csv", "ap-per-topic.csv"):
        assert (written / f).is_file()
    assert not list(written.glob(".*.tmp"))


@pytest.mark.realdata
def test_report_numbers_against_independent_references(written, run_dir):
    runs = pd.read_csv(written / "runs.csv")
    assert len(runs) == RUNS
    # the mean AP of every run is NIST's (4 decimals of the official leaderboard)
    lb = data.leaderboard("trec-covid-round5")
    lb = lb.set_index(lb.columns[0])["map"]
    diff = np.abs(runs.set_index("run")["mean AP"] - lb.loc[runs["run"]].to_numpy())
    assert diff.max() <= 5e-5 + 1e-12
    # MAP of the corpus bootstrap (usable lists) equals the mean AP here (every topic has R > 0)
    np.testing.assert_allclose(runs["MAP"], runs["mean AP"], atol=1e-12)
    assert (runs["MAP low (parametric)"] < runs["MAP"]).all() and (runs["MAP"] < runs["MAP high (parametric)"]).all()

    pairs = pd.read_csv(written / "pairs.csv")
    assert len(pairs) == RUNS * (RUNS - 1) // 2
    per_topic = pd.read_csv(written / "ap-per-topic.csv", index_col=0)
    x = per_topic.loc[pairs["run x"]].to_numpy()
    y = per_topic.loc[pairs["run y"]].to_numpy()
    np.testing.assert_allclose(pairs["difference"], (x - y).mean(axis=1), atol=1e-12)
    assert ((pairs["95% CI low"] <= pairs["difference"]) & (pairs["difference"] <= pairs["95% CI high"])).all()
    # the bootstrap ASL agrees with the paired t-test where the t-test is clear-cut
    p_t = stats.ttest_rel(x, y, axis=1).pvalue
    assert ((pairs["ASL"] < 0.05) == (p_t < 0.05))[(p_t < 0.01) | (p_t > 0.2)].all()
    # Holm and Benjamini-Hochberg, written out here
    p = pairs["ASL"].to_numpy()
    m = len(p)
    o = np.argsort(p, kind="stable")
    holm = np.empty(m)
    holm[o] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p[o]))
    np.testing.assert_allclose(pairs["ASL (Holm)"], holm, atol=1e-12)
    bh = np.empty(m)
    bh[o] = np.minimum(1, np.minimum.accumulate((m / np.arange(1, m + 1) * p[o])[::-1])[::-1])
    np.testing.assert_allclose(pairs["ASL (BH)"], bh, atol=1e-12)
    # significance counts in the runs table follow from the Holm column
    sig = pairs[pairs["ASL (Holm)"] < 0.05]
    better = pd.concat([sig.loc[sig.difference > 0, "run x"], sig.loc[sig.difference < 0, "run y"]]).value_counts()
    got = runs.set_index("run")["significantly better than"]
    assert (got == better.reindex(got.index, fill_value=0)).all()

    # standardization: scipy's z-scores (ddof=1) over the runs, through the normal CDF
    std = stats.norm.cdf(stats.zscore(per_topic.to_numpy(), axis=0, ddof=1)).mean(axis=1)
    np.testing.assert_allclose(runs.set_index("run")["standardized AP"], pd.Series(std, index=per_topic.index).loc[runs["run"]], atol=1e-12)

    err = pd.read_csv(written / "error-rates.csv", index_col=0)
    rates = err.filter(like="error at").to_numpy()
    assert np.nanmin(rates) >= 0 and np.nanmax(rates) <= 1


@pytest.mark.realdata
def test_report_is_reproducible_and_independent_of_workers(run_dir):
    rs = data.load_runs(run_dir, qrels="cord19/trec-covid/round5")
    a = report.analyse(rs, seed=3, scale="quick", progress=False, n_jobs=1)
    b = report.analyse(rs, seed=3, scale="quick", progress=False, n_jobs=2)
    c = report.analyse(rs, seed=4, scale="quick", progress=False)
    pd.testing.assert_frame_equal(a.pairs, b.pairs)
    pd.testing.assert_frame_equal(a.runs_table(), b.runs_table())
    np.testing.assert_array_equal(a.swap.errors, b.swap.errors)
    np.testing.assert_array_equal(a.halves["raw"].false_positive, b.halves["raw"].false_positive)
    assert not np.array_equal(a.tests.replicates, c.tests.replicates)  # the seed matters
    # raw and standardized forms are compared on the same random halves
    assert a.halves["raw"].drmse.shape == (report.settings("quick").partitions,)
    assert a.summary()["pairs"] == len(rs.runs) * (len(rs.runs) - 1) // 2


def test_report_on_few_topics_leaves_the_topic_split_out(tmp_path):
    rs = data.simulate.runs(4, 8, list_length=50, seed=1)
    data.simulate.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    out = report.run(tmp_path / "runs", tmp_path / "qrels.txt", tmp_path / "out", scale="quick", progress=False)
    html = out.read_text()
    assert "the swap experiment needs two disjoint sets of at least 5 topics" in html
    assert "these runs have 8 topics" in html
    assert html.count("<img ") == 4 and not (tmp_path / "out" / "error-rates.csv").exists()


def test_report_errors_are_clear(tmp_path, capsys):
    assert cli_main(["report", str(tmp_path / "nope"), "--qrels", "q.txt", "-q"]) == 2
    assert "not a directory of run files" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n")
    assert cli_main(["report", str(tmp_path / "empty"), "--qrels", str(tmp_path / "qrels.txt"), "-q"]) == 2
    assert "irrepro report:" in capsys.readouterr().err
    rs = data.simulate.runs(2, 8, list_length=20, seed=1)
    data.simulate.write_trec(rs, tmp_path / "two", qrels=tmp_path / "q2.txt")
    assert cli_main(["report", str(tmp_path / "two"), "--qrels", str(tmp_path / "q2.txt"), "-q"]) == 2
    assert "need at least 3 runs" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown|measure"):
        report.analyse(data.simulate.runs(3, 8, list_length=20, seed=1), "NOPE@x", progress=False)
    with pytest.raises(ValueError, match="scale"):
        report.settings("huge")
