"""The book's one figure style (issue 24, item 2), checked on every public function of irrepro.plots
drawn from small synthetic inputs: every text is read at 9 pt or more at the size the page shows the
image, every legend lies outside the data, no two series of one axes share a colour, and drawing
leaves matplotlib's global settings alone.

"Rendered size" is measured the way the book shows a figure: the inline backend saves the PNG with
``bbox_inches="tight"`` at the figure's dpi, and a page column ``irrepro.plots._base.CONTENT_PX`` CSS
pixels wide scales a wider image down, so a font of ``s`` points is read at
``s * min(1, CONTENT_PX / png_width)`` points."""

import functools
import importlib
import io
import struct
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.text import Text

from irrepro import corpus_bootstrap as cb
from irrepro import plots, stats
from irrepro import topic_split as ts
from irrepro.data import ScoreMatrix
from irrepro.plots import _base
from irrepro.plots._base import PALETTE, TEST_STYLE

#: The smallest font a reader may meet, in points (the issue's rule, not the package's constant).
MIN_PT = 9.0


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


# --- small synthetic inputs, one drawing per public function ---------------------------------------------


def _matrix(S=8, T=40, seed=5):
    rng = np.random.default_rng(seed)
    return ScoreMatrix(
        rng.beta(2, 5, (S, T)), tuple(f"s{i}" for i in range(S)), tuple(map(str, range(T))), "AP", "toy"
    )


@functools.cache
def _swap():
    return ts.swap_experiment(
        [_matrix()], sizes=[5, 10, 15, 20], B=20, seed=3, filters=["none", "paired-t 0.01<p<=0.05"]
    )


def _rates():
    tests = list(TEST_STYLE)
    return pd.DataFrame(
        [
            {
                "test": t,
                "tails": 2,
                "alpha": a,
                "rate": a * (1 + k / 10) + n / 1e4,
                "se": 0.002,
                "topics": n,
                "delta": d,
                "type3": 0.01,
                "type3_se": 0.001,
            }  # fmt: skip
            for n in (25, 50)
            for k, t in enumerate(tests)
            for a in (0.01, 0.05, 0.1)
            for d in (0.01, 0.05)
        ]
    )


def _intervals(n=60, seed=1):
    rng = np.random.default_rng(seed)
    est = rng.uniform(0.05, 0.45, n)
    hw = rng.uniform(0.02, 0.06, n)
    return cb.Intervals("MAP parametric", est, est - hw, est + hw, hw / stats.Z95), est + rng.normal(
        0, 0.03, n
    )


def _asl_test(measure, seed):
    asl = np.random.default_rng(seed).uniform(0, 1, 40)
    return SimpleNamespace(measure=measure, p=asl, asl_curve=lambda: np.sort(asl))


@functools.cache
def _model():
    from irrepro import simulation as sim

    return sim.fit_collection(_matrix(3, 40), seed=1, bottom=0.0)


def _stability(names):
    from irrepro.sensitivity.study import Stability

    return {
        n: Stability(
            n, np.array([0.01, 0.1, 0.2]), np.array([0.02, 0.01, 0.005]) * (k + 1), np.array([0.1, 0.3, 0.5])
        )
        for k, n in enumerate(names)
    }


def _partitions():
    rows = [
        {
            "setting": s,
            "metric": m,
            "form": f,
            "dRMSE mean": 0.1 + k / 100,
            "dRMSE low": 0.08,
            "dRMSE high": 0.25,
            "FP high": 0.05 + k / 200,
        }  # fmt: skip
        for s in ("TREC 2004 Robust", "TREC-COVID round 5")
        for k, (m, f) in enumerate(
            (m, f)
            for m in ("P@10", "SP/AP", "RBP(p=0.95)", "DCG")
            for f in ("raw", "R-normalized", "standardized")
        )
    ]
    return pd.DataFrame(rows)


def _reproduction(experiments=("UIowaS_Run3",)):
    """A long table as :meth:`irrepro.reproduce.Reproduction.to_frame` gives it (replicability:
    no ranking or score level), with an interval wider than the others."""
    rows = [
        (e, run, m, stat, v, v - 0.1 - k / 10, v + 0.2 + k / 5)
        for e in experiments
        for k, m in enumerate(("AP", "nDCG@10", "P@10"))
        for run, stat, v in (
            ("baseline", "p-value", 0.01),
            ("advanced", "p-value", 0.2),
            ("effect", "ER", 0.3 * k),
            ("effect", "DeltaRI", 0.05),
        )
    ]
    return pd.DataFrame(rows, columns=["experiment", "run", "measure", "statistic", "value", "low", "high"])


MEASURES = ["AP", "Q", "nDCG_sakai@1000", "nCG@1000", "PDoc@1000", "AG_AP", "AG_Q"]


#: Name -> a call drawing it on small synthetic inputs (new figures where the function makes its own).
def _d_study(seed):
    from irrepro import design

    return design.d_study(design.two_way_anova(_matrix(seed=seed)), [5, 10, 25, 50, 100, 200])


def _power_curves():
    from irrepro.design._power import power_curve

    def gauss(family, n, trials, rng):
        b = rng.normal(0.5, 0.1, (trials, 1, n))
        return np.concatenate([b, b + rng.normal(0.05, 0.1, (trials, 1, n))], axis=1)

    return [
        power_curve(gauss, [10, 20, 40], families=2, trials=50, seed=1, test=t)
        for t in ("paired-t", "wilcoxon")
    ]


def _which_rates():
    """``kt.which.rates_table``'s shape: two designs, three sizes, two tests."""
    return pd.DataFrame([{"design": d, "measure": "AP", "topics": n, "delta": 0.0, "test": t, "what": "type I error",
                          "rate": 0.05 + (0.01 * k * (d == "score-level")), "se": 0.004, "trials": 2000, "pairs": 500}
                         for d in ("score-level", "ranking-level") for k, n in enumerate((25, 50, 100))
                         for t in ("paired-t", "wilcoxon")])  # fmt: skip


def _which_props():
    """``kt.which.properties_table``'s shape."""
    return pd.DataFrame([{"design": d, "measure": "AP", "topics": n, "rank balance": b, "rank balance se": 0.005}
                         for d, b in (("score-level", 0.07), ("ranking-level", 0.0)) for n in (25, 50, 100)])  # fmt: skip


CASES = {
    "plot_run_intervals": lambda: plots.plot_run_intervals(None, *_intervals(), title="MAP, parametric"),
    "plot_error_rates": lambda: plots.plot_error_rates(_swap(), bins=range(0, 12), min_trials=1, at=50),
    "plot_asl_curves": lambda: plots.plot_asl_curves({m: _asl_test(m, k).p for k, m in enumerate(MEASURES)}),
    "plot_significance_matrix": lambda: plots.plot_significance_matrix(
        np.array([(i, j) for i in range(30) for j in range(i + 1, 30)]),
        np.linspace(-1, 1, 435),
        np.arange(435) % 3 == 0,
        np.arange(30),
        labels=[f"run-{i:02d}" for i in range(30)],
    ),
    "plot_score_matrix": lambda: plots.plot_score_matrix(_matrix(30, 50).scores, "AP", vmax=1),
    "plot_scatter": lambda: plots.plot_scatter(
        [1, 2, 3], [3, 4, 2], xlabel="raw MAP", ylabel="standardized MAP"
    ),
    "plot_false_positives": lambda: plots.plot_false_positives(
        {"raw": {"FP mean": 0.1, "FP high": 0.3}, "standardized": {"FP mean": 0.05, "FP high": 0.1}}
    ),
    "plot_relevant_per_topic": lambda: plots.plot_relevant_per_topic(
        {
            "TREC-6 (Robust 2004 qrels, 301-350)": np.arange(1, 51) * 3,
            "TREC-COVID round 5": np.arange(1, 51) * 20,
        }
    ),
    "plot_margin": lambda: plots.plot_margin(_model(), 0, delta=0.05),
    "plot_rate_panels": lambda: plots.plot_rate_panels(
        _rates().assign(measure="AP"),
        _rates().rename(columns={"rate": "value"}).assign(measure="AP"),
        "type1",
        tails=2,
        measures=["AP"],
        sizes=[25, 50],
        tests=list(TEST_STYLE),
    ),
    "plot_which_rates": lambda: plots.plot_which_rates(_which_rates()),
    "plot_which_balance": lambda: plots.plot_which_balance(_which_props(), _which_rates()),
    "plot_rate_panels (power)": lambda: plots.plot_rate_panels(
        _rates().assign(measure="AP"),
        _rates().rename(columns={"rate": "value"}).assign(measure="AP", kind="power"),
        "power",
        tails=2,
        measures=["AP"],
        sizes=[25, 50],
        tests=list(TEST_STYLE),
    ),
    "plot_coverage": lambda: plots.plot_coverage(
        {
            lab: pd.DataFrame(
                {"coverage": [0.9, 0.95, 0.93], "se": [0.01] * 3, "other corpus inside": [0.8, 0.83, 0.85]},
                index=["linear", "logit", "small-R corrected"],
            )
            for lab in ("TREC-6 emulated", "Robust 2004 emulated")
        },
        proxy=0.835,
    ),
    "plot_power_curve": lambda: plots.plot_power_curve(
        _power_curves(),
        closed={"t, closed form": ([10, 40], [0.3, 0.8]), "ANOVA, closed form": ([10, 40], [0.25, 0.7])},
    ),
    "plot_reliability": lambda: plots.plot_reliability(
        {lab: _d_study(seed) for lab, seed in (("AP", 5), ("P@10", 6))}
    ),
    "plot_normalized_differences": lambda: plots.plot_normalized_differences(
        np.random.default_rng(2).normal(0, 1, 300), clip=(-4, 4), xlabel="normalised difference", title="BCa"
    ),
    "plot_topic_differences": lambda: plots.plot_topic_differences(
        np.linspace(-1, 1, 50),
        np.full(50, 0.3),
        np.full(50, 0.2),
        interval=stats.meta_analysis(np.linspace(-1, 1, 50), np.full(50, 0.2), model="fixed"),
        ylabel="logit AP difference",
        title="run x vs run y",
    ),  # fmt: skip
    "plot_asl_panels": lambda: plots.plot_asl_panels(
        {m: _asl_test(m, k) for k, m in enumerate(MEASURES)},
        {m.replace("AG_", "G_"): _asl_test(m, k + 9) for k, m in enumerate(MEASURES)},
    ),
    "plot_stability": lambda: plots.plot_stability(_stability(MEASURES), title="stability"),
    "plot_error_rates (pooled)": lambda: plots.plot_error_rates(
        _swap(), filter={"all": "none", "t 0.01<p<=0.05": "paired-t 0.01<p<=0.05"}, bins=slice(2, 6)
    ),
    "plot_error_rates_by_effort": lambda: plots.plot_error_rates_by_effort(
        {"MAP": (_swap(), 1.0), "P@10": (_swap(), 0.5)}
    ),
    "plot_map_sd": lambda: plots.plot_map_sd(
        pd.DataFrame({"topics": [5, 25], "sd": [0.05, 0.02], "sd_p05": [0.04, 0.01], "sd_p95": [0.06, 0.03]})
    ),
    "plot_dependence": lambda: plots.plot_dependence(_swap().dependence(), [5, 10, 15, 20], title="Figure 8"),
    "plot_lower_triangle": lambda: plots.plot_lower_triangle(
        pd.DataFrame(np.eye(7) * 0.5 + 0.5, index=MEASURES, columns=MEASURES),
        label="tau",
        title="Kendall's tau",
    ),
    "plot_mean_intervals": lambda: plots.plot_mean_intervals(
        np.linspace(0.1, 0.4, 129), np.linspace(0.05, 0.35, 129), np.linspace(0.15, 0.45, 129), highlight=13
    ),
    "plot_score_histogram": lambda: plots.plot_score_histogram(_matrix().scores),
    "plot_percentile_curves": lambda: plots.plot_percentile_curves(
        pd.DataFrame({50: [0.8, 0.9, 0.95], 5: [0.6, 0.8, 0.9], 1: [0.5, 0.7, 0.85]}, index=[2, 10, 50]),
        labels=["median", "95th percentile lowest", "99th percentile lowest"],
        references={"tau between TREC runs": 0.9, "tau of assessors": 0.8},
    ),
    "plot_partition_summaries": lambda: plots.plot_partition_summaries(
        _partitions(), short={"raw": "raw", "R-normalized": "R-norm", "standardized": "std"}
    ),
    "plot_reproduction": lambda: plots.plot_reproduction(_reproduction()),
    "plot_grouped_bars": lambda: plots.plot_grouped_bars(
        pd.DataFrame(
            {"P@10": [0.3, 0.2, 0.1], "SP/AP": [0.1, 0.05, 0.04]},
            index=["raw", "R-normalized", "standardized"],
        )
    ),
}


def _figure(out):
    return np.ravel(out)[0].figure


def _png_width(fig) -> int:
    """The width in pixels of the PNG the inline backend saves (``bbox_inches="tight"``)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return struct.unpack(">II", buf.getvalue()[16:24])[0]


def _texts(fig):
    """Every visible, non-empty text of ``fig``: tick labels, axis labels, titles, legend texts,
    annotations, colour-bar labels."""
    fig.canvas.draw()
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _series_colors(ax):
    """(label, colour) of every labelled series of ``ax`` (lines, collections, bar and error-bar
    containers; unlabelled artists - reference lines, bands, fitted curves - are not series)."""
    out = []
    for ln in ax.get_lines():
        if not ln.get_label().startswith("_"):
            out.append((ln.get_label(), to_rgba(ln.get_color())))
    for c in ax.collections:
        if not c.get_label().startswith("_"):
            fc = c.get_facecolor()
            col = fc if len(fc) and fc[0][3] > 0 else c.get_edgecolor()
            out.append((c.get_label(), tuple(np.round(col[0], 3))))
    for c in ax.containers:
        if c.get_label() and not c.get_label().startswith("_"):
            if isinstance(c, BarContainer):
                out.append((c.get_label(), to_rgba(c.patches[0].get_facecolor())))
            elif isinstance(c, ErrorbarContainer):
                out.append((c.get_label(), to_rgba(c.lines[0].get_color())))
    return [(lab, tuple(np.round(col, 3))) for lab, col in out]


def check_style(fig) -> list[str]:
    """The rule's breaches in ``fig`` (an empty list when it keeps the book's style)."""
    bad = []
    width = _png_width(fig)
    scale = min(1.0, _base.CONTENT_PX / width)
    for t in _texts(fig):
        if t.get_fontsize() * scale < MIN_PT - 1e-9:
            bad.append(
                f"text {t.get_text()[:30]!r}: {t.get_fontsize():.1f} pt x {scale:.2f} (png {width} px)"
            )
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box, data = legend.get_window_extent(renderer), ax.patch.get_window_extent(renderer)
            if box.overlaps(data):
                bad.append(f"legend over the data of axes {ax.get_title()!r}")
        series = _series_colors(ax)
        colors = [c for _, c in series]
        for lab, c in series:
            if colors.count(c) > 1:
                bad.append(f"series {lab!r} of axes {ax.get_title()!r} shares its colour {c}")
    for legend in fig.legends:
        for ax in fig.axes:
            if legend.get_window_extent(renderer).overlaps(ax.patch.get_window_extent(renderer)):
                bad.append("figure legend over the data")
    return bad


def test_every_plot_function_is_checked():
    import inspect
    import pkgutil

    defined = set()
    for info in pkgutil.iter_modules(plots.__path__):
        module = importlib.import_module(f"irrepro.plots.{info.name}")
        defined |= {n for n, f in inspect.getmembers(module, inspect.isfunction)
                    if n.startswith("plot_") and f.__module__ == module.__name__}  # fmt: skip
    assert {n for n in plots.__all__ if n.startswith("plot_")} <= defined == {k.split()[0] for k in CASES}
    assert {n for n in plots.__all__ if not n.startswith("plot_")} <= {
        "panels",
        "series_colors",
        "save_power_curve",  # plot_power_curve (checked above) written to a file
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_figure_keeps_the_book_style(name):
    before = dict(matplotlib.rcParams)
    fig = _figure(CASES[name]())
    assert check_style(fig) == []
    after = dict(matplotlib.rcParams)
    assert {
        k for k in before if before[k] != after[k] and k != "backend"
    } == set()  # global settings untouched


def test_panels_given_to_a_plot_function_keep_the_style():
    """A chapter's layout (``plots.panels``) passed to the functions keeps the rule too."""
    fig, axes = plots.panels(1, 2, sharey=True)
    for ax, res in zip(axes, (_swap(), _swap())):
        plots.plot_error_rates(res, bins=range(0, 8), min_trials=1, ax=ax)
    assert check_style(fig) == []


def test_a_reproduction_of_several_experiments_keeps_the_style():
    """Several experiments: one colour per experiment (and run), the legends under the panels."""
    axes = plots.plot_reproduction(_reproduction(("UIowaS_Run3", "udel_fang_run3")))
    assert check_style(axes[0].figure) == []
    assert len(axes[2].get_legend().get_texts()) == 4


def test_the_check_finds_small_fonts_legends_over_the_data_and_shared_colours():
    """The check can fail: the old style (a 12-inch figure at 7-pt legends inside the axes, C0
    reused for two series) breaks every rule."""
    fig, ax = plt.subplots(figsize=(12, 4))
    ax.plot([0, 1], [0, 1], color="C0", label="a")
    ax.plot([0, 1], [1, 0], color="C0", label="b")
    ax.legend(fontsize=7, loc="center")
    bad = check_style(fig)
    assert any(b.startswith("text 'a'") for b in bad)
    assert any(b.startswith("legend over the data") for b in bad)
    assert any("shares its colour" in b for b in bad)


def test_series_colors_are_distinct_and_colour_blind_safe():
    few = plots.series_colors(["a", "b", "c"])
    assert list(few.values()) == list(PALETTE[:3])
    many = plots.series_colors(range(12), ordered=True)
    assert len(set(many.values())) == 12
    assert len({c for c, _ in TEST_STYLE.values()}) == len(TEST_STYLE)
    assert {c for c, _ in TEST_STYLE.values()} <= set(PALETTE)


def test_the_style_restores_only_its_own_settings():
    """A setting changed during a call other than the style's stays changed: the inline backend
    turns interactive mode on when pyplot first loads it, inside the first plot call of a notebook,
    and restoring every setting (``matplotlib.rc_context``) turned it off again, so no later figure
    of the notebook was shown."""
    was = matplotlib.is_interactive()
    font = matplotlib.rcParams["font.size"]
    try:
        matplotlib.interactive(False)
        _base.styled(lambda: matplotlib.interactive(True))()
        assert matplotlib.is_interactive()
        assert matplotlib.rcParams["font.size"] == font
    finally:
        matplotlib.interactive(was)
