"""Issue 27, item 1: irrepro.significance is the one home of every paired test, with one
vocabulary (the command line's test names, statsmodels' correction names) and one result type;
the old names keep working for one release with a DeprecationWarning and give the same numbers."""

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irrepro import bootstrap_tests as bt
from irrepro import known_truth as kt
from irrepro import significance as sg
from irrepro import topic_split as ts
from irrepro.cli import main as cli_main
from irrepro.data import ScoreMatrix
from irrepro.errors import InputError

PACKAGE = Path(sg.__file__).resolve().parent.parent


@pytest.fixture
def x():
    rng = np.random.default_rng(27)
    return rng.beta(2, 5, size=(5, 20)) + np.linspace(0, 0.1, 5)[:, None]


# ------------------------------------------------------------------ old names: warn, same numbers


@pytest.mark.parametrize(
    "old, new", [("paired_test", "paired_bootstrap_test"), ("unpaired_test", "unpaired_bootstrap_test")]
)
@pytest.mark.parametrize("module", [bt, bt.pairwise], ids=["bootstrap_tests", "bootstrap_tests.pairwise"])
def test_old_bootstrap_test_names_warn_and_give_the_same_numbers(x, module, old, new):
    with pytest.warns(DeprecationWarning, match=rf"{module.__name__}\.{old} is deprecated.*{new}"):
        fn = getattr(module, old)
    a, b = fn(x, B=300, seed=4), getattr(sg, new)(x, B=300, seed=4)
    np.testing.assert_array_equal(a.p, b.p)
    np.testing.assert_array_equal(a.difference, b.difference)
    np.testing.assert_array_equal(a.confidence_interval(0.9), b.confidence_interval(0.9))


def test_old_result_name_and_attributes_warn_and_give_the_same_numbers(x):
    with pytest.warns(DeprecationWarning, match="PairwiseTest is deprecated.*BootstrapResult"):
        assert bt.PairwiseTest is sg.BootstrapResult
    r = sg.paired_bootstrap_test(x, B=200, seed=1)
    assert isinstance(r, sg.PairwiseResult)
    with pytest.warns(DeprecationWarning, match=r"BootstrapResult\.asl is deprecated.*BootstrapResult\.p"):
        np.testing.assert_array_equal(r.asl, r.p)
    with pytest.warns(DeprecationWarning, match=r"BootstrapResult\.observed is deprecated.*difference"):
        np.testing.assert_array_equal(r.observed, r.difference)


@pytest.mark.parametrize("name", ["paired_t_pvalues", "sign_test_pvalues", "wilcoxon_pvalues"])
def test_old_kernel_names_in_topic_split_warn_and_give_the_same_numbers(name):
    d = np.round(np.random.default_rng(3).normal(0.02, 0.1, (40, 12)), 2)  # ties and zeros
    with pytest.warns(DeprecationWarning, match=rf"irrepro\.topic_split\.{name} is deprecated"):
        old = getattr(ts, name)
    np.testing.assert_array_equal(old(d), getattr(sg, name)(d))


def test_correction_bh_warns_and_equals_fdr_bh(x):
    new = sg.pairwise_test(x, "paired-t", correction="fdr_bh")
    with pytest.warns(DeprecationWarning, match="'bh' is deprecated.*'fdr_bh'"):
        old = sg.pairwise_test(x, "paired-t", correction="bh")
    np.testing.assert_array_equal(old.p_adjusted, new.p_adjusted)
    assert old.correction == new.correction == "fdr_bh"
    with pytest.warns(DeprecationWarning, match="'bh' is deprecated"):
        np.testing.assert_array_equal(new.adjust("bh").p_adjusted, new.p_adjusted)
    with pytest.warns(DeprecationWarning, match="'bh' is deprecated"):
        t_old = sg.compare(x, baseline=0, correction="bh").to_frame()
    pd.testing.assert_frame_equal(t_old, sg.compare(x, baseline=0, correction="fdr_bh").to_frame())


def test_cli_compare_takes_the_correction_by_statsmodels_name_and_bh_still(tmp_path, capsys):
    from irrepro import data

    rs = data.simulate.runs(4, 12, list_length=30, seed=3)
    data.simulate.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
    args = [
        "compare",
        "--qrels",
        str(tmp_path / "qrels.txt"),
        str(tmp_path / "runs"),
        "-m",
        "AP",
        "--baseline",
        rs.runs[0],
        "--format",
        "csv",
    ]
    outs, errs = {}, {}
    for corr in ("fdr_bh", "bh", "bonferroni"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # the CLI says it on stderr instead
            assert cli_main(args + ["--correction", corr]) == 0
        outs[corr], errs[corr] = capsys.readouterr()
    assert outs["bh"] == outs["fdr_bh"] != outs["bonferroni"]
    assert (
        "irrepro compare: --correction bh is deprecated" in errs["bh"]
        and "use --correction fdr_bh" in errs["bh"]
    )
    assert "deprecated" not in errs["fdr_bh"]


#: The old names of CHANGELOG's issue-27 table as the prose would write them.
OLD_NAMES = re.compile(
    r"`bh`|--correction bh|(correction|method)=[\"']bh[\"']|\bPairwiseTest\b|\b(un)?paired_test\(|"
    r"topic_split\.(paired_t|sign_test|wilcoxon)_pvalues|[\"']t (0\.0[14]<)?p<=0\.05[\"']|tests=\([\"']t[\"']|"
    r"table2\([\"'](un)?paired[\"']\)|comparisons\([^)]*method=|\.asl_adjusted\b"
)


def test_the_docs_use_no_deprecated_name():
    """README, the book's pages and the chapters name the tests and corrections by their new names
    (the CHANGELOG alone lists the old ones)."""
    root = PACKAGE.parent
    pages = [root / "README.md", *(root / "book").rglob("*.md"), *(root / "notebooks").glob("*.md")]
    stale = [
        f"{page.relative_to(root)}:{n}: {line.strip()}"
        for page in pages
        if "_build" not in page.parts
        for n, line in enumerate(page.read_text().splitlines(), 1)
        if OLD_NAMES.search(line)
    ]
    assert len(pages) > 10 and not stale, stale


@pytest.mark.parametrize("call", ["pairwise_test", "adjust", "compare", "comparisons"])
def test_an_old_correction_name_warns_once_at_the_caller(x, call):
    """A DeprecationWarning pointing inside irrepro is hidden by Python's default filters: the
    warning of "bh" names the user's line, whichever function takes the correction."""
    r = sg.paired_bootstrap_test(x, B=200, seed=3)
    run = {
        "pairwise_test": lambda c: sg.pairwise_test(x, "paired-t", correction=c).p_adjusted,
        "adjust": lambda c: r.adjust(c).p_adjusted,
        "compare": lambda c: sg.compare({"AP": x, "P@10": x[::-1]}, baseline=0, correction=c).to_frame(),
        "comparisons": lambda c: pd.DataFrame(bt.comparisons(r, correction=c)),
    }[call]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = run("bh")
    assert [w.category for w in caught] == [DeprecationWarning], [str(w.message) for w in caught]
    assert caught[0].filename == __file__ and "'bh' is deprecated" in str(caught[0].message)
    new = run("fdr_bh")
    if isinstance(new, pd.DataFrame):
        pd.testing.assert_frame_equal(old, new)
    else:
        np.testing.assert_array_equal(old, new)


def test_comparisons_take_the_correction_names_of_significance(x):
    """bootstrap_tests.comparisons takes significance's names: "none" (refused before: not a
    statsmodels method) is the unadjusted ASL, as None is."""
    r = sg.paired_bootstrap_test(x, B=200, seed=3)
    none = pd.DataFrame(bt.comparisons(r, correction="none"))
    unadjusted = pd.DataFrame(bt.comparisons(r, correction=None))
    pd.testing.assert_frame_equal(none, unadjusted)
    np.testing.assert_array_equal(none.p_adjusted, r.p)
    assert set(none.correction) == {"none"}
    from statsmodels.stats.multitest import multipletests

    holm = pd.DataFrame(bt.comparisons(r, correction="holm"))  # unchanged: statsmodels' Holm
    np.testing.assert_array_equal(holm.p_adjusted, multipletests(r.p, method="holm")[1])
    assert set(holm.correction) == {"holm"}


@pytest.mark.parametrize("alpha", [0, 1, 2, -0.05, float("nan"), "0.05", None, True])
def test_alpha_outside_zero_one_is_an_input_error(x, alpha):
    r = sg.paired_bootstrap_test(x, B=200, seed=3)
    for call in (r.significant, r.discriminative_power, lambda a: sg.compare(x, alpha=a)):
        with pytest.raises(InputError, match="alpha must be a number in"):
            call(alpha)
    assert r.discriminative_power(0.05) == np.mean(r.p < 0.05)
    assert r.discriminative_power(np.array(0.05)) == np.mean(r.p < 0.05)  # a 0-d array is a number
    np.testing.assert_array_equal(r.significant(0.05), r.p_adjusted < 0.05)


@pytest.mark.parametrize("correction", [1, 0.05, ("holm",)])
def test_a_correction_that_is_not_a_name_is_an_input_error(x, correction):
    with pytest.raises(InputError, match="correction must be a name"):
        sg.pairwise_test(x, "paired-t", correction=correction)
    with pytest.raises(InputError, match="correction must be a name"):
        sg.pairwise_test(x, "paired-t").adjust(correction)


# ---------------------------------------------------------------------------- one vocabulary


def test_known_truth_names_its_tests_as_significance_does():
    assert set(kt.TESTS) <= set(sg.TESTS)
    assert set(kt.RESAMPLING) <= set(sg.TESTS)
    assert kt.TESTS[0] == "paired-t" and kt.TESTS[-1] == "unpaired-bootstrap"


def test_corrections_are_statsmodels_names():
    from statsmodels.stats.multitest import multipletests

    for name, (method, _) in sg.CORRECTIONS.items():
        assert name == (method or "none")
        if method:
            multipletests([0.01, 0.5], method=method)
    assert {"holm", "fdr_bh", "bonferroni", "none"} <= set(sg.CORRECTIONS)


def test_each_test_is_implemented_in_one_module_only():
    """No module outside irrepro/significance computes a test's p-values: the kernels' and the
    bootstrap tests' definitions appear once, in significance."""
    defs = {
        "paired_t_pvalues",
        "sign_test_pvalues",
        "wilcoxon_pvalues",
        "paired_bootstrap_test",
        "unpaired_bootstrap_test",
        "bootstrap_shift_test",
        "permutation_test",
        "tukey_hsd",
        "_studentised",
        "_signed_rank_counts",
    }
    found: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for name in re.findall(r"^def (\w+)\(", path.read_text(), flags=re.M):
            if name in defs:
                found.setdefault(name, []).append(str(path.relative_to(PACKAGE)))
    assert set(found) == defs
    for name, where in found.items():
        assert len(where) == 1 and where[0].startswith("significance/"), (name, where)


# ---------------------------------------------------------------------- the new tests, one result


def test_bootstrap_shift_is_efron_tibshirani_16_2_by_hand(x):
    """p = #{|mean(w*b)| >= |mean(z)|} / B with w = z - mean(z), on the paired test's samples."""
    samples = bt.bootstrap_samples(x.shape[1], 400, seed=9)
    r = sg.bootstrap_shift_test(x, samples=samples)
    assert r.test == "bootstrap-shift" and r.B == 400
    for k, (i, j) in enumerate(r.pairs):
        z = x[i] - x[j]
        w = z - z.mean()
        ref = np.mean([abs(w[s].mean()) >= abs(z.mean()) for s in samples])
        assert r.p[k] == pytest.approx(ref, abs=1.5 / 400), (i, j)  # a replicate on the edge may round
        assert r.difference[k] == pytest.approx(z.mean())
    via = sg.pairwise_test(x, "bootstrap-shift", B=400, seed=9, correction="none")
    np.testing.assert_array_equal(via.p, sg.bootstrap_shift_test(x, B=400, seed=9).p)


def test_unpaired_bootstrap_through_pairwise_test(x):
    r = sg.pairwise_test(x, "unpaired-bootstrap", B=300, seed=2, correction="holm")
    ref = sg.unpaired_bootstrap_test(x, B=300, seed=2)
    np.testing.assert_array_equal(r.p, ref.p)
    assert r.test == "unpaired-bootstrap" and r.correction == "holm"
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(r.p_adjusted, multipletests(ref.p, method="holm")[1])


def test_one_result_type_to_frame(x):
    sm = ScoreMatrix(x, tuple("abcde"), tuple(map(str, range(x.shape[1]))), "AP")
    r = sg.paired_bootstrap_test(sm, baseline="a", B=200, seed=3)
    f = r.to_frame()
    assert list(f.columns) == ["system_x", "system_y", "difference", "p", "p_adjusted", "effect_size"]
    assert f.attrs == {"test": "bootstrap", "correction": "none", "measure": "AP"}
    assert r.baseline == "a" and set(f["system_y"]) == {"a"}
    ci = r.confidence_interval()
    from dataclasses import replace

    g = replace(r, interval=ci).to_frame()
    np.testing.assert_array_equal(g[["ci_low", "ci_high"]].to_numpy(), ci)
    t = sg.pairwise_test(sm, "paired-t").to_frame()
    assert list(t.columns) == ["system_x", "system_y", "difference", "p", "p_adjusted"]


def test_comparisons_and_table2_use_significance_names_and_the_old_ones_warn(x):
    """bootstrap_tests spoke its own dialect (method=, asl, asl_adjusted, adjustment; table2's
    "paired" / "unpaired"): significance's names now, the old ones warning for one release."""
    r = sg.paired_bootstrap_test(x, B=200, seed=3)
    new = bt.comparisons(r, correction="holm")
    with pytest.warns(DeprecationWarning, match=r"'method' of comparisons\(\).*'correction'"):
        old = bt.comparisons(r, method="holm")
    assert old == new
    c = new[0]
    for attr, renamed in (("asl", "p"), ("asl_adjusted", "p_adjusted"), ("adjustment", "correction")):
        with pytest.warns(DeprecationWarning, match=rf"BootstrapComparison\.{attr} is deprecated.*{renamed}"):
            assert getattr(c, attr) == getattr(c, renamed)
    assert list(pd.DataFrame(new).columns[4:8]) == ["difference", "p", "p_adjusted", "correction"]
    assert c.p == r.p[0] and c.correction == "holm"

    m = {
        name: ScoreMatrix(x + k * 0.01, tuple("abcde"), tuple(map(str, range(20))), name)
        for k, name in enumerate(("AP", "Q"))
    }
    study = bt.measure_study(m, B=100, seed=1)
    for old_name, new_name in (("paired", "bootstrap"), ("unpaired", "unpaired-bootstrap")):
        with pytest.warns(DeprecationWarning, match=rf"table2\(test='{old_name}'\).*test='{new_name}'"):
            old_table = study.table2(old_name)
        pd.testing.assert_frame_equal(old_table, study.table2(new_name))
    with pytest.raises(InputError, match="'bootstrap' or 'unpaired-bootstrap'"):
        study.table2("paired-t")
