"""``irrepro report``: the four papers' analyses of a directory of runs, as one HTML report.

The run directory is built here from the mirror's real TREC-COVID round-5 run files (the user's
situation: a folder of gzipped TREC runs and an ir_datasets qrels id). Its numbers are checked
against independent references - NIST's leaderboard for the means, scipy for the paired t-tests
of the topic split and for the standardization, statsmodels-free Holm / BH written out here - and
the HTML is checked to be self-contained.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irrepro import _outputs, data, report
from irrepro._outputs import MARKER
from irrepro.cli import main as cli_main
from irrepro.report import _page as _report_page

pytestmark = pytest.mark.filterwarnings("error")  # any warning is an error here

RUNS = 8  # runs copied from the mirror (28 pairs)


def _check_out(out, inputs=()):
    """What ``irrepro report`` checks of ``--out`` before any work."""
    return _outputs.check_dir(out, inputs=inputs, files=report.REPORT_FILES, what="report")


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
    for f in (
        "summary.csv",
        "runs.csv",
        "pairs.csv",
        "error-rates.csv",
        "ap-per-topic.csv",
        "topic-set-size.csv",
    ):
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
    assert (runs["MAP low (parametric)"] < runs["MAP"]).all() and (
        runs["MAP"] < runs["MAP high (parametric)"]
    ).all()

    pairs = pd.read_csv(written / "pairs.csv")
    assert len(pairs) == RUNS * (RUNS - 1) // 2
    per_topic = pd.read_csv(written / "ap-per-topic.csv", index_col=0)
    x = per_topic.loc[pairs["run x"]].to_numpy()
    y = per_topic.loc[pairs["run y"]].to_numpy()
    np.testing.assert_allclose(pairs["difference"], (x - y).mean(axis=1), atol=1e-12)
    assert (
        (pairs["95% CI low"] <= pairs["difference"]) & (pairs["difference"] <= pairs["95% CI high"])
    ).all()
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
    better = pd.concat(
        [sig.loc[sig.difference > 0, "run x"], sig.loc[sig.difference < 0, "run y"]]
    ).value_counts()
    got = runs.set_index("run")["significantly better than"]
    assert (got == better.reindex(got.index, fill_value=0)).all()

    # standardization: scipy's z-scores (ddof=1) over the runs, through the normal CDF
    std = stats.norm.cdf(stats.zscore(per_topic.to_numpy(), axis=0, ddof=1)).mean(axis=1)
    np.testing.assert_allclose(
        runs.set_index("run")["standardized AP"],
        pd.Series(std, index=per_topic.index).loc[runs["run"]],
        atol=1e-12,
    )

    err = pd.read_csv(written / "error-rates.csv", index_col=0)
    rates = err.filter(like="error at").to_numpy()
    assert np.nanmin(rates) >= 0 and np.nanmax(rates) <= 1


@pytest.mark.realdata
def test_report_topic_set_size_section_is_design_on_the_same_runs(written):
    """Section 6 shows Sakai's three topic-set sizes of the report's runs, as irrepro.design computes
    them on the same per-topic scores, design and bootstrap (the fifth child of the seed)."""
    from irrepro import design, parallel
    from irrepro.report import DESIGN_ALPHA, DESIGN_MIN_DIFF, DESIGN_POWER

    html = (written / "index.html").read_text()
    assert "<h2>6. How many topics would this need? (Sakai 2016)</h2>" in html
    per_topic = pd.read_csv(written / "ap-per-topic.csv", index_col=0).to_numpy()
    shown = pd.read_csv(written / "topic-set-size.csv")
    seed = parallel.as_seed_sequence(7).spawn(5)[4]
    B = report.settings("quick").B_tests
    for method, name in design.METHODS.items():
        r = design._sizes._topic_set_size(per_topic, method, min_diff=DESIGN_MIN_DIFF, alpha=DESIGN_ALPHA,
                                  power=DESIGN_POWER, systems=RUNS, B=B, seed=seed)  # fmt: skip
        row = shown.set_index("method").loc[name]
        assert (row["topics"], row["low"], row["high"]) == (r.n_topics, r.low, r.high)
        assert f"<td>{r.n_topics:,}</td>" in html
    t = shown.set_index("method").loc["paired t-test", "topics"]
    assert f"needs <b>{t}</b> topics" in html


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
    assert not np.array_equal(a.pairs["95% CI low"], c.pairs["95% CI low"])  # the seed matters
    assert not np.array_equal(a.corpus.maps[("bootstrap", "MAP")].sd, c.corpus.maps[("bootstrap", "MAP")].sd)
    # raw and standardized forms are compared on the same random halves
    assert a.halves["raw"].drmse.shape == (report.settings("quick").B_halves,)
    assert a.summary()["pairs"] == len(rs.runs) * (len(rs.runs) - 1) // 2


def test_report_on_few_topics_leaves_the_topic_split_out(tmp_path):
    rs = data.synthetic.runs(4, 8, list_length=50, seed=1)
    data.synthetic.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    out = report.run(
        tmp_path / "runs", tmp_path / "qrels.txt", tmp_path / "out", scale="quick", progress=False
    )
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
    rs = data.synthetic.runs(2, 8, list_length=20, seed=1)
    data.synthetic.write_trec(rs, tmp_path / "two", qrels=tmp_path / "q2.txt")
    assert cli_main(["report", str(tmp_path / "two"), "--qrels", str(tmp_path / "q2.txt"), "-q"]) == 2
    assert "need at least 3 runs" in capsys.readouterr().err
    # counted before the qrels are read (the audit: a stand-in's qrels took 12 s to refuse 2 runs)
    assert (
        cli_main(["report", str(tmp_path / "two"), "--qrels", str(tmp_path / "no-such-qrels.txt"), "-q"]) == 2
    )
    assert "need at least 3 runs, got 2" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown|measure"):
        report.analyse(data.synthetic.runs(3, 8, list_length=20, seed=1), "NOPE@x", progress=False)
    with pytest.raises(ValueError, match="scale"):
        report.settings("huge")


# ---- issue 12: one mean, coverage, blocks, the output directory, simulated data ---------------


@pytest.fixture(scope="module")
def gappy_dir(tmp_path_factory):
    """Four real round-5 runs and a fifth derived from the first that lacks topics 3, 7 and 12
    and retrieves for a topic (999) the qrels lack."""
    import gzip

    from irrepro.data import mirror_dir

    m = mirror_dir()
    if m is None or not m.is_dir():
        from conftest import _need_real

        _need_real(RuntimeError("IRREPRO_MIRROR is not set to a directory"))
    src = m / "trec-covid" / "round5" / "runs"
    d = tmp_path_factory.mktemp("gappy-runs")
    for name in ("BRPHJ_BM25", "CSIROmedFR", "uogTrDPH_QE_RF", "r5.fusion1"):
        shutil.copy(src / f"{name}.gz", d / f"{name}.gz")
    with gzip.open(src / "BRPHJ_BM25.gz", "rt") as f:
        lines = [ln.replace("BRPHJ_BM25", "gappy") for ln in f if ln.split()[0] not in ("3", "7", "12")]
    lines += [f"999 Q0 extra{i} {i + 1} {9 - i} gappy\n" for i in range(5)]
    (d / "gappy.txt").write_text("".join(lines))
    return d, m / "ir_datasets" / "cord19" / "trec-covid" / "round5" / "qrels"


@pytest.mark.realdata
def test_one_mean_across_the_report_is_trec_eval_c(gappy_dir, tmp_path, capsys):
    """Issue 12 #2: 'mean AP' was over all qrels topics but 'MAP' and its intervals over the
    topics the run retrieved (0.1964 vs 0.3928 on one row). Now both are trec_eval -c's MAP
    (pytrec_eval's per topic, averaged over all the qrels topics)."""
    import gzip

    from _reference import pytrec_eval_frame

    d, qrels = gappy_dir
    out = tmp_path / "rep"
    assert (
        cli_main(["report", str(d), "--qrels", str(qrels), "--out", str(out), "--scale", "quick", "-q"]) == 0
    )
    runs = pd.read_csv(out / "runs.csv").set_index("run")
    for f in sorted(d.iterdir()):
        plain = tmp_path / f.name.removesuffix(".gz")
        if f.suffix == ".gz":
            with gzip.open(f, "rt") as g:
                plain.write_text(g.read())
        else:
            plain = f
        te = pytrec_eval_frame(qrels, plain, ["map"]).query("query_id == 'all'")["value"].iloc[0]
        run = plain.read_text().split("\n", 1)[0].split()[5]
        assert runs.at[run, "mean AP"] == pytest.approx(te, abs=1e-12)
    np.testing.assert_allclose(runs["MAP"], runs["mean AP"], atol=1e-12)  # one mean
    assert (runs["MAP low (parametric)"] <= runs["MAP"]).all() and (
        runs["MAP"] <= runs["MAP high (parametric)"]
    ).all()
    assert (runs["MAP low (bootstrap)"] <= runs["MAP"]).all() and (
        runs["MAP"] <= runs["MAP high (bootstrap)"]
    ).all()
    # coverage: the gappy run retrieved 47 of 50 topics and had one the qrels lack
    assert (
        runs.at["gappy", "topics retrieved (of 50)"] == 47
        and runs.at["gappy", "topics ignored (not in qrels)"] == 1
    )
    assert (runs.drop("gappy")["topics retrieved (of 50)"] == 50).all()
    html = (out / "index.html").read_text()
    assert "Every mean on this page is over all 50 topics of the qrels" in html and "trec_eval -c" in html
    assert "<td>gappy</td>" in html and "3, 7, 12" in html and "999" in html  # the coverage table
    summ = pd.read_csv(out / "summary.csv", index_col=0)["value"]
    assert summ["runs missing qrels topics"] == "1" and summ["mean"].startswith("over all qrels topics")


@pytest.mark.realdata
def test_pairs_computed_in_blocks_equal_one_paired_test(run_dir, monkeypatch):
    """The report tests pairs in blocks and keeps no replicates; its table must equal the plain
    one-call test (significance.paired_bootstrap_test + comparisons), Holm and BH by statsmodels."""
    from statsmodels.stats.multitest import multipletests

    from irrepro import parallel, significance
    from irrepro import sensitivity as bt

    monkeypatch.setattr(_report_page, "_PAIR_BLOCK", 5)  # 28 pairs: six blocks
    rs = data.load_runs(run_dir, qrels="cord19/trec-covid/round5")
    rep = report.analyse(rs, seed=3, scale="quick", progress=False)
    seed_tests = parallel.as_seed_sequence(3).spawn(4)[0]
    res = significance.paired_bootstrap_test(rep.scores, B=rep.B_pairs, seed=seed_tests)
    ref = pd.DataFrame(bt.comparisons(res, correction="holm"))
    # (the blocks' matrix products may round differently in the last bit)
    for ours, theirs in (
        ("difference", "difference"),
        ("95% CI low", "ci_low"),
        ("95% CI high", "ci_high"),
        ("effect size d_z", "effect_size"),
    ):
        np.testing.assert_allclose(rep.pairs[ours], ref[theirs], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(rep.pairs["ASL"], ref["p"])
    dz = significance.effect_sizes(
        rep.scores, kind="d_z", B=rep.B_pairs, seed=seed_tests
    )  # one call, all pairs
    np.testing.assert_allclose(rep.pairs["d_z 95% CI low"], dz.low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rep.pairs["d_z 95% CI high"], dz.high, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(rep.pairs["ASL (Holm)"], ref["p_adjusted"])
    np.testing.assert_array_equal(rep.pairs["ASL (BH)"], multipletests(res.p, method="fdr_bh")[1])


def test_the_pairs_d_z_interval_is_bca_on_the_tests_topic_samples(sim_runs_4x12):
    """The pairs' "d_z 95% CI low / high": scipy's BCa interval of d_z = mean(z) / sd(z) on the
    paired bootstrap's topic samples (the first child of the seed); it holds the point d_z, which
    stays the test's."""
    from irrepro import parallel

    rep = report.analyse(sim_runs_4x12, seed=4, scale="quick", progress=False)
    assert list(rep.pairs.columns[5:8]) == ["effect size d_z", "d_z 95% CI low", "d_z 95% CI high"]
    x = rep.scores.scores
    ss = parallel.as_seed_sequence(4).spawn(5)[0]

    def d_z(v, axis=-1):
        return v.mean(axis) / v.std(axis, ddof=1)

    for k, (i, j) in enumerate(rep.pair_index()):
        z = x[i] - x[j]
        rng = np.random.default_rng(ss)
        ci = stats.bootstrap((z,), d_z, n_resamples=rep.B_pairs, method="BCa", rng=rng).confidence_interval
        row = rep.pairs.iloc[k]
        assert row["effect size d_z"] == pytest.approx(z.mean() / z.std(ddof=1), rel=1e-12)
        assert (row["d_z 95% CI low"], row["d_z 95% CI high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
        assert row["d_z 95% CI low"] < row["effect size d_z"] < row["d_z 95% CI high"]
    page = rep.files()
    assert "<th>d_z 95% CI low</th>" in page["index.html"] and "d_z 95% CI high" in page["pairs.csv"]
    bca = "95% bias-corrected and accelerated (BCa) bootstrap interval"
    assert f"d\\_z has a {bca} from the same {rep.B_pairs:,}" in page["methods.md"]


def test_corpus_bootstrap_blocks_depend_on_the_data_only(monkeypatch):
    """Blocks of runs for the corpus bootstrap: the same intervals with 1 or 2 workers, and the
    blocks' MAP estimates are the runs' trec_eval -c MAP."""
    monkeypatch.setattr(_report_page, "_CORPUS_LISTS", 16)  # 8 topics: two runs per block
    rs = data.synthetic.runs(5, 8, list_length=30, seed=2)
    blocks = report._run_blocks(rs.lengths)
    assert [list(b) for b in blocks] == [[0, 1], [2, 3], [4]]
    a, b = (_report_page._corpus_of(_report_page._corpus_lists(rs, 1), rs.runs, rs.topics, 50, 9, n_jobs, False)
            for n_jobs in (1, 2))  # fmt: skip
    for k in a.maps:
        np.testing.assert_array_equal(a.maps[k].lower, b.maps[k].lower)
    from irrepro.measures import evaluate

    np.testing.assert_allclose(
        a.maps[("parametric", "MAP")].estimate, evaluate(rs, "AP")["AP"].mean(), atol=1e-12
    )
    assert a.intervals["logit"].lower.shape == (5, 8)


def test_a_run_matching_no_qrels_topic_is_refused(tmp_path, capsys):
    """Issue 12 #2/#5: such a run had MAP NaN and was 'significantly worse than 3 runs'."""
    rs = data.synthetic.runs(4, 8, list_length=20, seed=1)
    files = data.synthetic.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    bad = sorted((tmp_path / "runs").iterdir())[-1]
    bad.write_text("".join("T" + ln for ln in bad.read_text().splitlines(keepends=True)))
    rc = cli_main(["report", str(tmp_path / "runs"), "--qrels", str(tmp_path / "qrels.txt"),
                   "--out", str(tmp_path / "out"), "-q"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and f"irrepro report: {bad}: run " in err
    assert "matches no topic of the qrels: its topics are 'T1', 'T2', 'T3', 'T4', 'T5', ...;" in err
    assert not (tmp_path / "out").exists()
    with pytest.raises(data.DataError, match="matches no topic of the qrels"):
        data.load_runs(tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    del files


def _report(sim_dir, out, *extra):
    return cli_main(["report", str(sim_dir / "runs"), "--qrels", str(sim_dir / "qrels.txt"), "--out", str(out),
                     "--scale", "quick", "-q", *extra])  # fmt: skip


def test_the_report_raises_the_pairs_B_for_holm_and_bh_and_says_so(sim_dir, tmp_path, capsys):
    """Issue 42, item 8: the quick scale's 200 bootstrap samples cannot resolve Holm's alpha / m
    over the 6 pairs of 4 runs: the report draws 20 x 6 / 0.05 = 2400 -> 3000, and says so on
    stderr, on the page and in its methods; against a baseline (3 pairs) 2000; randomised Tukey
    HSD (family-wise, no correction) keeps 200."""
    from irrepro.stats import corrected_resamples

    assert _report(sim_dir, tmp_path / "all") == 0
    err = capsys.readouterr().err
    assert err == ("irrepro report: paired-test B = 3,000: the scale's 200 raised for Holm and Benjamini-Hochberg "
                   "over m = 6 pairs at alpha 0.05: B >= 20 m / alpha = 2,400 resolves their smallest threshold, "
                   "alpha / m\n"), err  # fmt: skip
    page = (tmp_path / "all" / "index.html").read_text()
    assert (
        "paired-test B = 3,000," in page and "test (B = 3,000, one set" in page and "raised for Holm" in page
    )
    assert "B = 3,000" in (tmp_path / "all" / "methods.md").read_text()
    assert corrected_resamples(6, 0.05, default=200) == 3000
    assert _report(sim_dir, tmp_path / "base", "--baseline", "simrun001") == 0
    assert "paired-test B = 2,000: " in capsys.readouterr().err
    assert "paired-test B = 2,000," in (tmp_path / "base" / "index.html").read_text()
    assert _report(sim_dir, tmp_path / "tukey", "--test", "tukey") == 0
    assert capsys.readouterr().err == ""
    page = (tmp_path / "tukey" / "index.html").read_text()
    assert "paired-test B = 200," in page and "raised for Holm" not in page


def test_beyond_its_largest_B_the_report_keeps_the_scales_and_says_the_corrections_are_unresolved(
    sim_dir, tmp_path, capsys, monkeypatch
):
    """All pairs of many runs would need millions of resamples: past PAIRS_B_MAX the report keeps
    the scale's B and says the Holm and BH counts are not resolved (here the cap set below the
    3,000 that 6 pairs need)."""
    from irrepro.report import _settings

    monkeypatch.setattr(_settings, "PAIRS_B_MAX", 2500)
    assert _report(sim_dir, tmp_path / "capped") == 0
    err = capsys.readouterr().err
    assert "are not resolved at the paired tests' B = 200 (B >= 20 m / alpha = 2,400" in err
    assert "may be too high" in err and err.count("\n") == 1
    page = (tmp_path / "capped" / "index.html").read_text()
    assert "paired-test B = 200," in page and "not resolved" in page


def _snapshot(d):
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_report_replaces_an_earlier_report_whole(sim_dir):
    """Issue 12 #4: stale files of an earlier report (another measure's per-topic CSV,
    error-rates.csv) stayed beside the new ones."""
    out = sim_dir / "out"
    assert _report(sim_dir, out, "-m", "P@10") == 0
    assert (out / "p-10-per-topic.csv").exists() and (out / MARKER).is_file()
    (out / "notes-of-mine.txt").write_text("inside the report directory: not irrepro's, kept (issue 26)")
    with pytest.warns(
        UserWarning, match="left in place, not written by irrepro as this report.*: notes-of-mine.txt"
    ):
        assert _report(sim_dir, out) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [
            MARKER,
            "ap-per-topic.csv",
            "error-rates.csv",
            "index.html",
            "ir_metadata.yml",
            "methods.md",
            "methods.tex",
            "pairs.csv",
            "runs.csv",
            "summary.csv",
            "topic-set-size.csv",
            "notes-of-mine.txt",
        ]
    )
    assert not [p for p in sim_dir.iterdir() if p.name.startswith(".")]  # no temporary left behind
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())  # not mkdtemp's 0700


def _umask():
    import os

    m = os.umask(0)
    os.umask(m)
    return m


def test_a_failed_write_leaves_the_earlier_report_intact(sim_dir, monkeypatch):
    out = sim_dir / "out"
    assert _report(sim_dir, out) == 0
    before = _snapshot(out)
    from pathlib import Path

    real_write = Path.write_bytes
    calls = []

    def failing(self, *a, **k):
        calls.append(self.name)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(self))
        return real_write(self, *a, **k)

    monkeypatch.setattr(Path, "write_bytes", failing)
    assert _report(sim_dir, out, "--seed", "5") == 2
    monkeypatch.undo()
    assert _snapshot(out) == before and len(calls) == 3
    assert not [p for p in sim_dir.iterdir() if p.name.startswith(".")]


def test_out_problems_are_found_before_any_analysis(sim_dir, monkeypatch, capsys):
    """Issue 12 #7: --out unwritable or naming a file failed only after all analyses ran."""
    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    (sim_dir / "a-file").write_text("x")
    mine = sim_dir / "my-thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("precious")
    cases = {
        sim_dir / "a-file": "--out names a file, not a directory",
        sim_dir / "a-file" / "sub": "cannot create the report there",
        mine: "not an irrepro report (no .irrepro-report file) and not empty; refusing to overwrite it",
        "/proc/irrepro-report": "cannot write the report there",
    }
    for out, message in cases.items():
        assert _report(sim_dir, out) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"irrepro report: {out}") and message in err, err
    assert (mine / "chapter1.tex").read_text() == "precious"
    # an empty directory is fine; a report written before the manifest existed proves nothing (issue 26)
    legacy = sim_dir / "legacy"
    legacy.mkdir()
    (legacy / "index.html").write_text("<!DOCTYPE html><html><head><title>irrepro report: x</title>")
    assert _check_out(sim_dir / "empty") == sim_dir / "empty"
    with pytest.raises(ValueError, match="titled 'irrepro report' but no .irrepro-report manifest"):
        _check_out(legacy)


def test_a_read_only_out_directory_is_refused_before_any_analysis(sim_dir, tmp_path, monkeypatch, capsys):
    """The audit of issue 12 #4: a read-only earlier report was left behind as a hidden .tmp
    directory beside the new one, and an empty read-only directory was replaced by a writable
    one. Both are refused now, naming the mode. (Root may write anywhere, so os.access answers
    as a user without privileges would, from the mode bits.)"""
    import stat

    monkeypatch.setattr(report, "load", lambda *a, **k: pytest.fail("the runs were read"))
    monkeypatch.setattr(os, "access", lambda p, mode: bool(os.stat(p).st_mode & stat.S_IWUSR))
    outs = tmp_path / "outs"
    earlier, empty = outs / "earlier", outs / "empty"
    _outputs.write_dir(earlier, {"index.html": "an earlier report"})
    empty.mkdir()
    for d in (earlier, empty):
        d.chmod(0o555)
        try:
            assert _report(sim_dir, d) == 2
            err = capsys.readouterr().err
            assert err.startswith(f"irrepro report: {d}: the directory is not writable (mode 555)"), err
        finally:
            d.chmod(0o755)
    assert sorted(p.name for p in outs.iterdir()) == ["earlier", "empty"]


@pytest.mark.slow
def test_report_on_simulated_qrels_says_so_or_is_refused(
    isolated_data, cached_stand_in, sim_dir, monkeypatch, capsys
):
    """Issue 12 #1: the HTML never said 'simulated'."""
    with pytest.warns(data.SimulatedDataWarning):  # the stand-in, to build runs from
        q = data.load_qrels("trec-covid-round5", allow_simulated=True)
    rng = np.random.default_rng(0)
    runs = sim_dir / "cov-runs"
    runs.mkdir()
    for r in range(3):
        with open(runs / f"r{r}.txt", "w") as f:
            for topic in [str(t) for t in range(1, 11)]:
                docs = q.table.loc[q.table["topic"] == topic, "doc"].to_numpy()[:40]
                for i, doc in enumerate(rng.permutation(docs)):
                    f.write(f"{topic} Q0 {doc} {i + 1} {40 - i} r{r}\n")
    args = [
        "report",
        str(runs),
        "--qrels",
        "trec-covid-round5",
        "--out",
        str(sim_dir / "o"),
        "--scale",
        "quick",
        "-q",
    ]
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert "trec-covid/round5/qrels: not found" in err and "--allow-simulated" in err
    assert not (sim_dir / "o").exists()
    assert cli_main([*args, "--allow-simulated"]) == 0
    html = (sim_dir / "o" / "index.html").read_text()
    head = html[: html.index("<h2>")]
    assert (
        "<title>irrepro report (SIMULATED DATA)" in head
        and "SIMULATED DATA. This report is computed on SIMULATED data" in head
    )
    summ = pd.read_csv(sim_dir / "o" / "summary.csv")
    assert summ.iloc[0]["quantity"] == "WARNING" and "SIMULATED" in summ.iloc[0]["value"]
    assert "--allow-simulated" in html[html.index("Reproducing") :]


def test_real_data_report_has_no_simulated_label(sim_dir):
    assert _report(sim_dir, sim_dir / "o") == 0
    html = (sim_dir / "o" / "index.html").read_text()
    assert "SIMULATED" not in html and "WARNING" not in (sim_dir / "o" / "summary.csv").read_text()


def test_template_is_package_data():
    """A non-editable install (pip install git+..., Binder) must ship the report's template."""
    import fnmatch
    from pathlib import Path

    import tomllib

    import irrepro

    root = Path(irrepro.__file__).parent
    globs = tomllib.loads((root.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "irrepro"
    ]
    template = root / "templates" / "report.html.j2"
    assert template.is_file()
    assert any(fnmatch.fnmatch("templates/report.html.j2", g) for g in globs)
    assert report._template().name == "report.html.j2"


def test_replacing_without_an_atomic_exchange(tmp_path, monkeypatch):
    """Where renameat2's exchange is missing: two renames, the earlier report put back when the
    second fails."""
    import os

    monkeypatch.setattr(_outputs, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    _outputs.write_dir(out, {"index.html": "old", "stale.csv": "x"})
    _outputs.write_dir(out, {"index.html": "new"})
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "index.html"]
    assert (out / "index.html").read_text() == "new"
    real_rename = os.rename

    calls = []

    def rename(a, b):  # the first move onto out fails as it must (not empty); the second breaks
        if str(b) == str(out) and str(a).endswith(".tmp"):
            calls.append(a)
            if len(calls) == 2:
                raise OSError(5, "Input/output error", str(b))
        return real_rename(a, b)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError, match="Input/output error"):
        _outputs.write_dir(out, {"index.html": "newer"})
    monkeypatch.undo()
    assert len(calls) == 2 and (out / "index.html").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_command_prints_the_report_path_as_it_was_given(monkeypatch, capsys, tmp_path):
    """``report: my-report/index.html``, not the resolved path (no directory of the machine on a page
    that shows the command's output: issue 24, item 7)."""
    from irrepro import report

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(report, "run", lambda *a, **k: (tmp_path / "my-report" / "index.html").resolve())
    assert cli_main(["report", "runs", "--qrels", "q.txt", "--out", "my-report", "-q"]) == 0
    assert capsys.readouterr().out.strip() == f"report: {Path('my-report') / 'index.html'}"


def test_the_report_reads_the_runs_before_it_loads_the_analyses_libraries():
    """``irrepro report`` reads the runs (its first memory peak) before pandas, scipy, numba and
    matplotlib are in memory: importing irrepro.report loads none of them; its names load on
    first use."""
    import subprocess
    import sys

    code = ("import sys, irrepro.report as r; heavy = ('pandas', 'scipy', 'numba', 'matplotlib', 'jinja2'); "
            "print(sorted(m for m in heavy if m in sys.modules)); r.Report, r._render, r.MAX_PAIRS_SHOWN; "
            "print('pandas' in sys.modules)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "True"]
    assert {"Report", "_run_blocks", "_template"} <= set(dir(report))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        report.nothing  # noqa: B018


def test_the_runs_are_let_go_before_the_corpus_bootstrap(monkeypatch):
    """report.run hands the run set over (_analyse empties the list holding it) and the run set is
    freed once the scores and the corpus bootstrap's lists are made, before the bootstrap: the
    same report as analyse's."""
    import weakref

    rs = data.synthetic.runs(5, 8, list_length=30, seed=2)
    ref = weakref.ref(rs)
    held = [rs]
    del rs
    seen = []
    corpus_of = _report_page._corpus_of

    def check(*a, **k):
        seen.append(ref())
        return corpus_of(*a, **k)

    monkeypatch.setattr(_report_page, "_corpus_of", check)
    kw = dict(seed=4, rel=1, scale="quick", n_jobs=1, progress=False, qrels_label="", simulated=None,
              test="bootstrap", baseline=None)  # fmt: skip
    got = report._analyse(held, "AP", **kw)
    assert seen == [None] and held == []
    want = report.analyse(data.synthetic.runs(5, 8, list_length=30, seed=2), "AP", seed=4, scale="quick",
                          progress=False)  # fmt: skip
    got_files, want_files = got.files(), want.files()
    assert got_files.keys() == want_files.keys()
    for name, text in want_files.items():
        if name != "index.html":  # (its time of writing)
            assert got_files[name] == text, name
