"""Issue 27, item 1: irrepro.significance is the one home of every paired test, with one
vocabulary (the command line's test names, statsmodels' correction names) and one result type;
the names before the reorganisation are gone (nothing was released under them)."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irrepro import sensitivity as bt
from irrepro import significance as sg
from irrepro import topic_split as ts
from irrepro.cli import main as cli_main
from irrepro.data import ScoreMatrix
from irrepro.errors import InputError, UnknownNameError
from irrepro.known_truth import _pvalues
from irrepro.significance.bootstrap import _paired

PACKAGE = Path(sg.__file__).resolve().parent.parent


@pytest.fixture
def x():
    rng = np.random.default_rng(27)
    return rng.beta(2, 5, size=(5, 20)) + np.linspace(0, 0.1, 5)[:, None]


# ------------------------------------------------------------------ old names: gone


@pytest.mark.parametrize(
    "module, old",
    [
        (bt, "paired_test"),
        (bt, "unpaired_test"),
        (bt, "PairwiseTest"),
        (bt, "SwapResult"),
        (bt, "kendall_tau"),
        (bt.study, "paired_test"),
        (ts, "paired_t_pvalues"),
        (ts, "SwapResult"),
        (ts, "plot_error_rates"),
    ],
)
def test_the_names_before_the_reorganisation_are_gone(module, old):
    """Nothing was released under the old names: the package serves none of them."""
    assert not hasattr(module, old)


def test_old_spellings_of_arguments_and_values_are_refused(x):
    r = sg.paired_bootstrap_test(x, B=200, seed=1)
    assert isinstance(r, sg.PairwiseResult)
    assert not hasattr(r, "asl") and not hasattr(r, "observed")
    with pytest.raises(InputError, match="'bh'"):
        sg.pairwise_test(x, "paired-t", correction="bh")
    with pytest.raises(TypeError, match="method"):
        bt.comparisons(r, method="holm")
    with pytest.raises(UnknownNameError, match="'t'"):
        ts.full_set_tests([ScoreMatrix(x, tuple("abcde"), tuple(map(str, range(20))), "AP")], tests=("t",))


def test_cli_compare_takes_the_correction_by_statsmodels_name(tmp_path, capsys):
    from irrepro import data

    rs = data.synthetic.runs(4, 12, list_length=30, seed=3)
    data.synthetic.write_trec(rs, tmp_path / "runs", qrels=tmp_path / "qrels.txt")
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
    outs = {}
    for corr in ("fdr_bh", "bonferroni"):
        assert cli_main(args + ["--correction", corr]) == 0
        outs[corr] = capsys.readouterr().out
    assert outs["fdr_bh"] != outs["bonferroni"]
    assert cli_main(args + ["--correction", "bh"]) == 2
    assert "argument --correction: invalid choice: 'bh'" in capsys.readouterr().err


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


def test_comparisons_take_the_correction_names_of_significance(x):
    """sensitivity.comparisons takes significance's names: "none" (refused before: not a
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
    assert set(_pvalues.TESTS) <= set(sg.TESTS)
    assert set(_pvalues.RESAMPLING) <= set(sg.TESTS)
    assert _pvalues.TESTS[0] == "paired-t" and _pvalues.TESTS[-1] == "unpaired-bootstrap"


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
        "_paired",
        "permutation_test",
        "tukey_hsd",
        "_studentised",
        "_tied_tail_table",
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
    r = _paired("bootstrap-shift", x, samples=samples)
    assert r.test == "bootstrap-shift" and r.B == 400
    for k, (i, j) in enumerate(r.pairs):
        z = x[i] - x[j]
        w = z - z.mean()
        ref = np.mean([abs(w[s].mean()) >= abs(z.mean()) for s in samples])
        assert r.p[k] == pytest.approx(ref, abs=1.5 / 400), (i, j)  # a replicate on the edge may round
        assert r.difference[k] == pytest.approx(z.mean())
    via = sg.pairwise_test(x, "bootstrap-shift", B=400, seed=9, correction="none")
    np.testing.assert_array_equal(via.p, _paired("bootstrap-shift", x, B=400, seed=9).p)


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


def test_comparisons_and_table2_use_significance_names(x):
    """sensitivity' comparisons and table2 speak significance's names (correction=, p,
    p_adjusted, correction; table2's "bootstrap" / "unpaired-bootstrap")."""
    r = sg.paired_bootstrap_test(x, B=200, seed=3)
    new = bt.comparisons(r, correction="holm")
    c = new[0]
    for attr in ("asl", "asl_adjusted", "adjustment"):
        assert not hasattr(c, attr)
    assert list(pd.DataFrame(new).columns[4:8]) == ["difference", "p", "p_adjusted", "correction"]
    assert c.p == r.p[0] and c.correction == "holm"

    m = {
        name: ScoreMatrix(x + k * 0.01, tuple("abcde"), tuple(map(str, range(20))), name)
        for k, name in enumerate(("AP", "Q"))
    }
    study = bt.measure_study(m, B=100, seed=1)
    assert list(study.table2("bootstrap").columns) == list(study.table2("unpaired-bootstrap").columns)
    for old_name in ("paired", "unpaired", "paired-t"):
        with pytest.raises(InputError, match="'bootstrap' or 'unpaired-bootstrap'"):
            study.table2(old_name)


# ------------------------------------------------------------------ the public surface: what is used

ROOT = PACKAGE.parent
#: Where a public name may be used: the chapters, the book's pages and every other package.
USERS = [
    *ROOT.glob("notebooks/*.md"),
    *ROOT.glob("notebooks/*/*.md"),
    *ROOT.glob("book/*.md"),
    *ROOT.glob("book/api/*.md"),
    *PACKAGE.rglob("*.py"),
]


@pytest.mark.parametrize("module", [sg, bt, ts], ids=lambda m: m.__name__)
def test_every_public_name_is_used_outside_its_package_or_describes_one_that_is(module):
    """A name in ``__all__`` is used by a chapter, a book page, the CLI or another package, or it is
    the type (annotation, dataclass field) or the named vocabulary (docstring) of a name that is."""
    import inspect

    home = Path(module.__file__).parent
    texts = [p.read_text() for p in USERS if home not in p.parents]
    used = {n for n in module.__all__ if any(re.search(rf"\b{n}\b", t) for t in texts)}
    described = set()
    for n in used:
        obj = getattr(module, n)
        words = (obj.__doc__ or "") if callable(obj) else ""
        if inspect.isclass(obj):
            words += " ".join(str(v) for v in getattr(obj, "__annotations__", {}).values())
        elif callable(obj):
            words += str(inspect.signature(obj))
        described |= {m for m in module.__all__ if re.search(rf"\b{m}\b", words)}
    assert set(module.__all__) <= used | described, sorted(set(module.__all__) - used - described)
