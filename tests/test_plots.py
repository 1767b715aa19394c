"""Tests of irrepro.plots: each figure draws exactly the numbers it is given (read back from the
matplotlib artists and compared with the inputs arranged by plain Python)."""

import ast
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from irrepro import corpus_bootstrap as cb
from irrepro import plots, stats
from irrepro import topic_split as ts
from irrepro.data import ScoreMatrix


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_run_intervals_sorted_by_estimate_and_transformed():
    est = np.array([0.3, -1.0, 0.8, 0.1])
    iv = cb.Intervals("L-MAP bootstrap", est, est - 0.2, est + 0.3, np.full(4, 0.1))
    other = np.array([0.2, -0.9, 1.2, 0.0])  # run 2's other value falls above its interval
    _, ax = plt.subplots()
    plots.plot_run_intervals(ax, iv, other, "t", transform=stats.expit)
    order = sorted(range(4), key=lambda i: est[i])
    segs = ax.collections[0].get_segments()
    for k, i in enumerate(order):  # x: the rank from 1
        assert segs[k][0] == pytest.approx([k + 1, stats.expit(est[i] - 0.2)])
        assert segs[k][1] == pytest.approx([k + 1, stats.expit(est[i] + 0.3)])
    np.testing.assert_allclose(ax.collections[1].get_offsets()[:, 1], [stats.expit(est[i]) for i in order])
    inside, outside = ax.collections[2].get_offsets(), ax.collections[3].get_offsets()
    np.testing.assert_allclose(
        inside, [[k + 1, stats.expit(other[i])] for k, i in enumerate(order) if i != 2]
    )
    np.testing.assert_allclose(outside, [[4, stats.expit(other[2])]])
    assert ax.get_title() == "t"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["interval", "estimate (x)", "other half inside (3 of 4)", "other half outside (1)"]


def test_run_intervals_in_small_multiples_split_the_sorted_runs():
    est = np.linspace(0.05, 0.5, 60)[::-1]
    iv = cb.Intervals("MAP parametric", est, est - 0.02, est + 0.02, np.full(60, 0.01))
    axes = plots.plot_run_intervals(None, iv, title="MAP")
    assert len(axes) == -(-60 // plots.corpus_bootstrap.RUNS_PER_PANEL)
    xs = np.concatenate([ax.collections[0].get_segments() for ax in axes])[:, 0, 0]
    np.testing.assert_array_equal(xs, np.arange(1, 61))  # every run once, in rank order
    first = axes[0].collections[1].get_offsets()[:, 1]
    np.testing.assert_allclose(first, np.sort(est)[: len(first)])
    assert axes[0].get_ylim()[1] < est.max()  # each panel's y axis spans its own runs


def test_error_rates_draw_the_measured_rates_and_the_fit():
    rng = np.random.default_rng(1)
    m = ScoreMatrix(
        rng.beta(2, 5, (8, 40)), tuple(f"s{i}" for i in range(8)), tuple(map(str, range(40))), "AP", "toy"
    )
    res = ts.swap_experiment([m], sizes=[5, 10, 15, 20], B=20, seed=3, filters=["none"])
    fit = ts.growth_fit(res, min_trials=1)
    ax = plots.plot_error_rates(res, bins=[0, 1], fit=fit, min_trials=1, at=40)
    rates = res.error_rates("none", "relative")
    solid = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    drawn = [b for b in (0, 1) if rates.iloc[b].notna().any()]
    assert len(solid) == len(drawn)
    for ln, b in zip(solid, drawn):
        np.testing.assert_array_equal(ln.get_xdata(), res.sizes)
        np.testing.assert_allclose(ln.get_ydata(), rates.iloc[b].to_numpy())
    fitted = [b for b in drawn if np.isfinite(fit.projected[b])]
    assert len(dashed) == len(fitted) > 0
    for ln, b in zip(dashed, fitted):  # GROWTH: a exp(b n)
        np.testing.assert_allclose(ln.get_ydata(), np.exp(fit.log_a[b]) * np.exp(fit.b[b] * ln.get_xdata()))
        assert ln.get_xdata()[-1] == 40


def test_asl_curves_are_sorted_asls():
    asl = {"AP": np.array([0.3, 0.01, 0.2]), "nDCG": np.array([0.5, 0.0, 0.04])}
    ax = plots.plot_asl_curves(asl, colors={"AP": "C3"})
    lines = ax.get_lines()
    np.testing.assert_array_equal(lines[0].get_ydata(), sorted(asl["AP"]))
    np.testing.assert_array_equal(lines[1].get_ydata(), sorted(asl["nDCG"]))
    np.testing.assert_array_equal(lines[0].get_xdata(), [1, 2, 3])
    assert lines[2].get_ydata()[0] == 0.05  # the alpha line


def test_significance_matrix_by_hand():
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    diff = np.array([0.1, -0.2, 0.05])
    sig = np.array([True, True, False])
    order = np.array([2, 0, 1])  # system 2 ranked first
    ax = plots.plot_significance_matrix(pairs, diff, sig, order, labels=["a", "b", "c"])
    img = ax.get_images()[0].get_array()
    rank = {s: r for r, s in enumerate(order)}
    want = np.full((3, 3), np.nan)
    for (i, j), d, s in zip(pairs, diff, sig):
        want[rank[i], rank[j]] = np.sign(d) if s else 0.0
        want[rank[j], rank[i]] = -np.sign(d) if s else 0.0
    np.testing.assert_array_equal(np.ma.filled(img, np.nan), want)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["c", "a", "b"]


def test_score_matrix_sorted_by_means():
    x = np.array([[0.1, 0.9, 0.5], [0.8, 0.7, 0.6], [0.0, 0.2, 0.1]])
    _, ax = plt.subplots()
    plots.plot_score_matrix(x, "AP", ax=ax)
    rows = sorted(range(3), key=lambda s: -x[s].mean())
    cols = sorted(range(3), key=lambda t: -x[:, t].mean())
    want = [[x[s][t] for t in cols] for s in rows]
    np.testing.assert_array_equal(ax.get_images()[0].get_array(), want)


def test_scatter_and_false_positive_bars():
    ax = plots.plot_scatter([1, 2], [3, 4], xlabel="raw", ylabel="std")
    np.testing.assert_array_equal(ax.collections[0].get_offsets(), [[1, 3], [2, 4]])
    summ = {"raw": {"FP mean": 0.1, "FP high": 0.3}, "standardized": {"FP mean": 0.05, "FP high": 0.1}}
    ax = plots.plot_false_positives(summ)
    heights = [p.get_height() for p in ax.patches]
    assert heights == [0.1, 0.05, 0.3, 0.1]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["raw", "standardized"]


def test_relevant_per_topic_draws_each_series_sorted_against_its_rank_share():
    r = {"a": [9, 3, 5, 200], "b": [1, 40]}
    ax = plots.plot_relevant_per_topic(r)
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[0].get_ydata(), [3, 5, 9, 200])
    np.testing.assert_allclose(lines[0].get_xdata(), [12.5, 37.5, 62.5, 87.5])
    np.testing.assert_allclose(lines[1].get_ydata(), [1, 40])
    np.testing.assert_allclose(lines[1].get_xdata(), [25, 75])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["a (median 7, 2 <= 5)", "b (median 20.5, 1 <= 5)"]
    assert ax.get_yscale() == "log" and lines[2].get_ydata()[0] == 5


# --- the known-truth chapter's figures -------------------------------------------------------------


def _rates_frame():
    rows = []
    for n in (25, 50):
        for t, base in (("t", 0.05), ("sign", 0.03)):
            for a in (0.01, 0.05, 0.1):
                rows.append(
                    {
                        "test": t,
                        "tails": 2,
                        "alpha": a,
                        "rate": base * a / 0.05 + n / 1e4,
                        "se": 0.002,
                        "topics": n,
                        "delta": 0.0,
                    }
                )
    return pd.DataFrame(rows)


def test_rates_by_alpha_draw_the_rate_on_log_log_axes_with_the_diagonal():
    ours = _rates_frame()
    theirs = ours.rename(columns={"rate": "value"}).assign(value=lambda f: f["value"] * 1.2)
    axes = plots.panels(1, 2)[1]
    plots.known_truth._by_alpha(ours, theirs, axes, tails=2, ylabel="type I error", legend=True)
    assert [ax.get_title() for ax in axes] == ["25 topics", "50 topics"]
    for ax, n in zip(axes, (25, 50)):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        lines = {ln.get_label(): ln for ln in ax.lines if not ln.get_label().startswith("_")}
        o = ours[(ours.topics == n) & (ours.test == "sign")].sort_values("alpha")
        np.testing.assert_allclose(lines["sign"].get_ydata(), o["rate"])  # the rate itself
        diagonal = [ln for ln in ax.lines if ln.get_linestyle() == ":"]
        np.testing.assert_allclose(diagonal[0].get_xdata(), diagonal[0].get_ydata())
        published = [ln for ln in ax.lines if ln.get_linestyle() == "None"]
        assert len(published) == 2
        np.testing.assert_allclose(
            sorted(np.concatenate([ln.get_ydata() for ln in published])),
            sorted(1.2 * ours[ours.topics == n]["rate"]),
        )
    assert axes[0].get_ylabel() == "type I error"


_NONE_PUBLISHED = pd.DataFrame({"tails": [], "test": [], "delta": [], "value": []})


def _by_delta(rows, rate="rate"):
    ax = plots.panels()[1]
    plots.known_truth._by_delta(
        pd.DataFrame(rows), _NONE_PUBLISHED, ax, tails=2, rate=rate, title="", legend=True
    )
    return ax


def test_type3_by_delta_draws_the_type3_column_and_its_error():
    rows = [
        {
            "test": "sign",
            "tails": 2,
            "alpha": 0.05,
            "delta": d,
            "rate": 0.5,
            "se": 0.01,
            "type3": t3,
            "type3_se": 0.001,
        }
        for d, t3 in ((0.01, 0.012), (0.05, 0.001))
    ]
    ax = _by_delta(rows, rate="type3")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.012, 0.001])
    assert "type III" in ax.get_ylabel()


def test_power_by_delta_draws_the_rates_at_alpha():
    rows = [
        {"test": "t", "tails": 2, "alpha": a, "delta": d, "rate": d * 5 + a, "se": 0.01}
        for d in (0.01, 0.05)
        for a in (0.05, 0.01)
    ]
    ax = _by_delta(rows)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [0.01, 0.05])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.1, 0.3])
    assert ax.get_ylim() == (0, 1)


def test_power_at_a_single_delta_shows_its_monte_carlo_error_as_bars():
    from matplotlib.collections import LineCollection, PolyCollection

    ax = _by_delta([{"test": "t", "tails": 2, "alpha": 0.05, "delta": 0.05, "rate": 0.4, "se": 0.02}])
    bars = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(bars) == 1 and not [c for c in ax.collections if isinstance(c, PolyCollection)]
    (seg,) = bars[0].get_segments()
    np.testing.assert_allclose(seg[:, 1], [0.4 - 1.959964 * 0.02, 0.4 + 1.959964 * 0.02], rtol=1e-5)


def test_coverage_draws_coverage_and_the_other_corpus_per_method():
    t = pd.DataFrame(
        {"coverage": [0.9, 0.95], "se": [0.01, 0.02], "other corpus inside": [0.8, 0.83]},
        index=["linear", "logit"],
    )
    ax = plots.plot_coverage({"a": t}, proxy=0.835)
    pts = [ln for ln in ax.lines if ln.get_marker() == "o"]
    np.testing.assert_allclose(np.asarray(pts[0].get_ydata(), dtype=float), t["coverage"].to_numpy())
    squares = [ln for ln in ax.lines if ln.get_marker() == "s"]
    np.testing.assert_allclose(
        np.asarray(squares[0].get_ydata(), dtype=float), t["other corpus inside"].to_numpy()
    )
    assert {ln.get_ydata()[0] for ln in ax.lines if ln.get_linestyle() in (":", "--")} == {0.95, 0.835}
    assert [x.get_text() for x in ax.get_xticklabels()] == ["linear", "logit"]


def test_margin_draws_the_fitted_probabilities():
    from irrepro import simulation as sim

    rng = np.random.default_rng(2)
    x = np.round(rng.binomial(10, 0.3, size=(3, 40)) / 10, 1)
    m = ScoreMatrix(x, ("a", "b", "c"), tuple(str(i) for i in range(40)), "P@10", "toy")
    model = sim.fit_collection(m, seed=1, bottom=0.0)
    ax = plots.plot_margin(model, 0, delta=0.05)
    fitted = ax.containers[1]  # the fitted margin's bars
    np.testing.assert_allclose([b.get_height() for b in fitted], np.diff(np.r_[0.0, model.margins[0].cdf]))
    moved = model.margins[0].with_mean(model.margins[0].mean + 0.05)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.diff(np.r_[0.0, moved.cdf]))


# --- the chapters draw every figure through irrepro.plots ------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
#: matplotlib's (and pandas', seaborn's) drawing primitives: a chapter that calls one draws by hand
DRAWING = {
    "plot",
    "hist",
    "hist2d",
    "scatter",
    "bar",
    "barh",
    "vlines",
    "hlines",
    "axhline",
    "axvline",
    "axhspan",
    "axvspan",
    "fill_between",
    "fill_betweenx",
    "errorbar",
    "imshow",
    "pcolormesh",
    "matshow",
    "contour",
    "contourf",
    "text",
    "annotate",
    "pie",
    "boxplot",
    "violinplot",
    "step",
    "stem",
    "stairs",
    "heatmap",
    "arrow",
    "quiver",
}


def _drawing_calls(source: str) -> list[str]:
    """The drawing calls of a cell's code: ``x.<primitive>(...)`` for a primitive of
    :data:`DRAWING`, and any call of seaborn (``sns.``); IPython magics are left out."""
    code = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())
    calls = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = node.func.value
            if node.func.attr in DRAWING or (isinstance(base, ast.Name) and base.id in ("sns", "seaborn")):
                calls.append(ast.unparse(node.func))
    return calls


def test_drawing_calls_finds_hand_drawn_figures():
    cell = "fig, ax = plt.subplots()\nax.hist(x)\n%time y = 1\nsd.plot(x='t')"
    assert _drawing_calls(cell) == ["ax.hist", "sd.plot"]
    assert _drawing_calls("sns.heatmap(t)") == ["sns.heatmap"]
    assert (
        _drawing_calls("plots.plot_map_sd(sd)\nfig.suptitle('a'); ax.set_title('b'); plt.tight_layout()")
        == []
    )


PAGES = sorted([*ROOT.glob("notebooks/*.md"), *ROOT.glob("book/*.md")])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_chapters_draw_figures_only_through_irrepro_plots(page):
    """Every figure of a chapter (notebooks/*.md) or book page (book/*.md) is drawn by a function of
    :mod:`irrepro.plots`: no code cell calls a drawing primitive itself (:data:`DRAWING`: ``ax.plot``,
    ``ax.hist``, ``ax.scatter``, ``axhline``, ..., ``DataFrame.plot``, anything of seaborn).

    The rule: a cell may lay a figure out and label it - ``plt.subplots``, ``fig.suptitle``,
    ``ax.set_title`` / ``set_xlabel`` / ``set_ylabel``, ``legend``, ``tight_layout``, ``show`` - as
    that arranges and names what the plot functions drew but draws no data; every mark on the
    axes comes from ``irrepro.plots``, where it is tested."""
    import jupytext

    # (a page without a MyST code-cell runs no code: its fenced blocks are text for the reader)
    notebook = "{code-cell}" in page.read_text()
    cells = [c for c in jupytext.read(page).cells if c.cell_type == "code"] if notebook else []
    found = [(k, call) for k, c in enumerate(cells) for call in _drawing_calls(c.source)]
    assert not found, f"{page.name}: code cells (numbered from 0) drawing by hand: {found}"


# --- the chapters' own figures ---------------------------------------------------------------------------


def _rendered(ax):
    """Draw the figure with Agg into memory (every artist must render) and return the axes."""
    import io

    ax = np.ravel(ax)[0]
    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png")
    assert buf.getvalue()[:4] == b"\x89PNG"
    return ax


def test_normalized_differences_histogram_clips_into_the_end_bins():
    x = np.array([-9.0, -0.5, 0.2, 0.3, 1.5, 7.0])
    ax = _rendered(plots.plot_normalized_differences(x, clip=(-2, 2), xlabel="d $x$", title="Figure 1"))
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 16 and sum(heights) == 6
    assert heights[0] == 1 and heights[-1] == 1  # -9 and 7 land in the end bins
    assert sorted(ln.get_xdata()[0] for ln in ax.get_lines()) == [-1, 1]
    assert ax.get_title() == "Figure 1" and ax.get_xlabel() == r"d \$x\$"


def test_topic_differences_sorted_with_both_intervals_and_the_band():
    d = np.array([0.5, -1.0, 0.2])
    sep, pai = np.array([0.1, 0.2, 0.3]), np.array([0.05, 0.1, 0.15])
    fixed = stats.meta_analysis(d, pai, model="fixed")
    ax = _rendered(plots.plot_topic_differences(d, sep, pai, interval=fixed, ylabel="y", title="x vs y"))
    order = [1, 2, 0]
    for coll, sd, off in ((ax.collections[0], sep, -0.15), (ax.collections[1], pai, 0.15)):
        segs = coll.get_segments()
        for k, i in enumerate(order):
            assert segs[k][0] == pytest.approx([k + off, d[i] - stats.Z95 * sd[i]])
            assert segs[k][1] == pytest.approx([k + off, d[i] + stats.Z95 * sd[i]])
    np.testing.assert_allclose(ax.collections[2].get_offsets()[:, 1], d[order])
    ys = ax.patches[0].get_path().transformed(ax.patches[0].get_patch_transform()).vertices[:, 1]
    assert (ys.min(), ys.max()) == pytest.approx((fixed.lower, fixed.upper))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["separate bootstrap", "paired bootstrap", "fixed-effect 95% CI"]
    assert (ax.get_ylabel(), ax.get_title()) == ("y", "x vs y")


def _test(measure, asl):
    from types import SimpleNamespace

    return SimpleNamespace(measure=measure, asl=np.asarray(asl), asl_curve=lambda: np.sort(asl))


def test_asl_panels_label_paired_by_measure_and_unpaired_by_name():
    paired = {"nDCG'": _test("nDCG", [0.3, 0.01, 0.2]), "AP'": _test("AP", [0.5, 0.04, 0.0])}
    unpaired = {"nDCG'": _test("nDCG", [0.6, 0.1, 0.2])}
    axes = plots.plot_asl_panels(paired, unpaired, colors={"nDCG'": "C3", "AP'": "C1"})
    _rendered(axes)
    left, right = axes
    curves = [ln for ln in left.get_lines() if ln.get_linestyle() == "-"]
    assert [ln.get_label() for ln in curves] == ["nDCG", "AP"]
    np.testing.assert_array_equal(curves[0].get_ydata(), [0.01, 0.2, 0.3])
    np.testing.assert_array_equal(curves[0].get_xdata(), [1, 2, 3])
    assert curves[0].get_color() == "C3"
    assert [ln.get_label() for ln in right.get_lines() if ln.get_linestyle() == "-"] == ["nDCG'"]
    assert (left.get_title(), right.get_title()) == ("paired test (Figure 7)", "unpaired test (Figure 8)")
    assert (left.get_ylabel(), right.get_ylabel()) == ("achieved significance level", "")
    assert right.get_legend() is not None


def test_stability_draws_mr_against_pt_per_measure():
    from irrepro.sensitivity.study import Stability

    st = {"AP": Stability("AP", np.array([0.01, 0.1]), np.array([0.02, 0.01]), np.array([0.1, 0.3]))}
    ax = _rendered(plots.plot_stability(st, colors={"AP": "C2"}, title="T"))
    (ln,) = ax.get_lines()
    np.testing.assert_array_equal(ln.get_xdata(), [0.1, 0.3])
    np.testing.assert_array_equal(ln.get_ydata(), [0.02, 0.01])
    assert (ln.get_label(), ln.get_color(), ax.get_title()) == ("AP", "C2", "T")


@pytest.fixture(scope="module")
def swap():
    rng = np.random.default_rng(5)
    m = ScoreMatrix(
        rng.beta(2, 5, (8, 40)), tuple(f"s{i}" for i in range(8)), tuple(map(str, range(40))), "AP", "toy"
    )
    return ts.swap_experiment(
        [m], sizes=[5, 10, 15, 20], B=20, seed=3, filters=["none", "paired-t 0.01<p<=0.05"]
    )


def test_pooled_error_rates_sum_errors_and_trials_over_the_bins(swap):
    ax = _rendered(
        plots.plot_error_rates(swap, filter={"all": "none", "t": "paired-t 0.01<p<=0.05"}, bins=slice(2, 6))
    )
    assert [ln.get_label() for ln in ax.get_lines()] == ["all", "t"]
    f, k = swap.filters.index("none"), swap.kinds.index("relative")
    for s, _size in enumerate(swap.sizes):
        e = sum(swap.errors[f, k, s, b] for b in range(2, 6))
        t = sum(swap.trials[f, k, s, b] for b in range(2, 6))
        got = ax.get_lines()[0].get_ydata()[s]
        assert (np.isnan(got) and t == 0) or got == pytest.approx(e / t)


def test_error_rates_by_effort_scale_the_sizes_by_the_cost(swap):
    axes = plots.plot_error_rates_by_effort({"MAP": (swap, 1.0), "P@10": (swap, 0.5)}, bins=(2, 5))
    _rendered(axes)
    rates = swap.error_rates("none")
    left, right = axes[0].get_lines(), axes[1].get_lines()
    assert [ln.get_linestyle() for ln in left] == ["-", "--", "-", "--"]
    assert left[3].get_label() == f"P@10, {rates.index[5]}"
    np.testing.assert_allclose(left[1].get_ydata(), rates.iloc[5].to_numpy())
    np.testing.assert_allclose(right[2].get_xdata(), np.asarray(swap.sizes) * 0.5)
    assert axes[1].get_xlabel() == "assessor effort (depth-100 topics)"


def test_map_sd_line_band_and_threshold():
    sd = pd.DataFrame({"topics": [5, 25], "sd": [0.05, 0.02], "sd_p05": [0.04, 0.01], "sd_p95": [0.06, 0.03]})
    ax = _rendered(plots.plot_map_sd(sd, threshold=0.01))
    line, thr = ax.get_lines()
    np.testing.assert_array_equal(line.get_ydata(), [0.05, 0.02])
    assert list(thr.get_ydata()) == [0.01, 0.01]
    assert len(ax.collections) == 1 and ax.get_xlabel() == "topics in the sample"


def test_dependence_one_line_per_size_it_holds(swap):
    dep = swap.dependence()
    ax = _rendered(plots.plot_dependence(dep, [5, 20, 999], title="F8"))
    assert [ln.get_label() for ln in ax.get_lines()] == ["5", "20"]
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), dep.loc[20].to_numpy())
    assert ax.get_xlabel() == f"trial rank by set-1 difference (of {swap.B} per pair)"


def test_lower_triangle_annotates_only_the_lower_triangle():
    t = pd.DataFrame(
        [[1.0, 0.5, 0.2], [0.5, 1.0, 0.3], [0.2, 0.3, 1.0]], index=list("abc"), columns=list("abc")
    )
    ax = _rendered(plots.plot_lower_triangle(t, fmt=".1f", label="tau", title="F12", vmin=0, vmax=1))
    assert sorted(x.get_text() for x in ax.texts) == sorted(["1.0", "0.5", "1.0", "0.2", "0.3", "1.0"])
    assert ax.get_title() == "F12" and ax.figure.axes[-1].get_ylabel() == "tau"


def test_mean_intervals_sorted_best_first_with_the_highlighted_rank():
    m, lo, hi = np.array([0.2, 0.5, 0.3]), np.array([0.1, 0.4, 0.25]), np.array([0.3, 0.7, 0.4])
    ax = _rendered(plots.plot_mean_intervals(m, lo, hi, highlight=2))
    np.testing.assert_array_equal(ax.containers[0].lines[0].get_ydata(), [0.5, 0.3, 0.2])
    seg = ax.containers[1].lines[2][0].get_segments()[0]
    assert seg[0] == pytest.approx([2, 0.25]) and seg[1] == pytest.approx([2, 0.4])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["2nd run"]


def test_score_histogram_counts_every_score():
    x = np.array([[0.0, 0.04], [0.5, 1.0]])
    ax = _rendered(plots.plot_score_histogram(x, color="C0"))
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 20 and heights[0] == 2 and heights[10] == 1 and heights[-1] == 1


def test_percentile_curves_and_reference_lines():
    pct = pd.DataFrame({50: [0.8, 0.9], 5: [0.6, 0.8]}, index=[2, 10])
    ax = _rendered(
        plots.plot_percentile_curves(pct, labels=["median", "p5"], references={"a": 0.7, "b": 0.75})
    )
    assert [ln.get_label() for ln in ax.get_lines()] == ["median", "p5", "a", "b"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), [0.6, 0.8])
    assert [ln.get_linestyle() for ln in ax.get_lines()[2:]] == ["--", ":"]
    assert ax.get_xscale() == "log"


def test_partition_summaries_one_panel_per_setting():
    rows = pd.DataFrame(
        {
            "setting": ["A", "A", "B"],
            "metric": ["AP", "AP", "AP"],
            "form": ["raw", "standardized", "raw"],
            "dRMSE mean": [0.1, 0.05, 0.2],
            "dRMSE low": [0.08, 0.04, 0.1],
            "dRMSE high": [0.12, 0.07, 0.3],
            "FP high": [0.2, 0.06, 0.1],
        }
    )
    short = {"raw": "raw", "standardized": "std"}
    axes = plots.plot_partition_summaries(rows, short=short, kind="dRMSE")
    _rendered(axes)
    drawn = {c.get_label(): c.lines[0].get_ydata() for c in axes[0].containers}  # one series per form
    assert list(drawn) == ["raw", "standardized"]
    np.testing.assert_array_equal(np.concatenate(list(drawn.values())), [0.1, 0.05])
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["AP\nraw", "AP\nstd"]
    assert (axes[0].get_title(), axes[1].get_title()) == ("A", "B")
    axes = plots.plot_partition_summaries(rows, short=short, kind="FP")
    _rendered(axes)
    assert [p.get_height() for p in axes[0].patches] == [0.2, 0.06]
    assert axes[1].get_lines()[0].get_ydata()[0] == 0.05


def test_grouped_bars_one_group_per_column():
    f = pd.DataFrame({"P@10": [0.3, 0.2], "AP": [0.1, 0.05]}, index=["raw", "std"])
    ax = _rendered(plots.plot_grouped_bars(f))
    assert sorted(p.get_height() for p in ax.patches) == sorted([0.3, 0.2, 0.1, 0.05])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["P@10", "AP"]


def test_score_matrix_vmax():
    ax = _rendered(plots.plot_score_matrix(np.array([[0.1, 0.4], [0.2, 0.3]]), "AP", vmax=1))
    assert ax.images[0].get_clim() == (0, 1)


def test_save_power_curve_writes_a_png_of_closed_curves_alone(tmp_path):
    plots.save_power_curve(tmp_path / "p.png", [], closed={"closed": ([10, 40], [0.3, 0.8])})
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
