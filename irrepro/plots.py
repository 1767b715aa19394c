"""The package's figures, one function per kind of plot (the method modules import no matplotlib).

Every function draws on a matplotlib ``ax`` it is given (or a new one when ``ax`` is None, for the
functions that can make their own) and returns it, so that a chapter or :mod:`irrepro.report`
composes figures from them. Every text a function is given - a run, topic, measure or collection
name, a title or axis label - is drawn literally, never as mathtext (:func:`irrepro.escape.mpl`),
and names longer than :data:`irrepro.escape.MAX_NAME` characters are shortened
(:func:`irrepro.escape.shorten`; the tables beside a figure hold the full names):

- :func:`plot_run_intervals` - every run's estimate with its interval, runs sorted (Cormack &
  Lynam's Figures 3 and 4);
- :func:`plot_error_rates` - error rate against topic-set size per difference bin, with the
  GROWTH projection (Sanderson & Zobel's Figures 1-6 and 9-12);
- :func:`plot_asl_curves` - sorted achieved significance levels (Sakai's Figures 7 and 8);
- :func:`plot_significance_matrix` - which pairs of systems differ significantly, and in which
  direction;
- :func:`plot_score_matrix` - a (systems, topics) score matrix as a heat map, both sorted by mean;
- :func:`plot_scatter` - one score per system against another (e.g. raw vs standardized means);
- :func:`plot_false_positives` - the share of systems found different from themselves over random
  topic halves (Webber, Moffat & Zobel's section 5);
- :func:`plot_relevant_per_topic` - the numbers of relevant documents per topic of several
  collections (or of emulated qrels, :mod:`irrepro.data.emulate`), each ranked.
- :func:`plot_margin`, :func:`plot_rates_by_alpha`, :func:`plot_power_by_delta`,
  :func:`plot_coverage` - the simulator's fitted margins, type I error and power of the paired tests
  beside Urbano, Lima & Hanjalic's (2019), and the coverage of corpus-bootstrap intervals
  (the "Against a known truth" chapter: :mod:`irrepro.simulation`, :mod:`irrepro.known_truth`);
- the chapters' other figures: :func:`plot_normalized_differences`, :func:`plot_topic_differences`
  (Cormack & Lynam), :func:`plot_asl_panels`, :func:`plot_stability`, :func:`plot_lower_triangle` (Sakai),
  :func:`plot_pooled_error_rates`, :func:`plot_error_rates_by_effort`, :func:`plot_map_sd`,
  :func:`plot_dependence` (Sanderson & Zobel), :func:`plot_mean_intervals`,
  :func:`plot_score_histogram`, :func:`plot_percentile_curves`, :func:`plot_partition_summaries`,
  :func:`plot_grouped_bars` (Webber, Moffat & Zobel).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from . import escape
from .corpus_bootstrap import Intervals
from .stats import Z95, check_level
from .topic_split import GrowthFit, SwapExperiment, growth_fit

__all__ = [
    "plot_run_intervals",
    "plot_error_rates",
    "plot_asl_curves",
    "plot_significance_matrix",
    "plot_score_matrix",
    "plot_scatter",
    "plot_false_positives",
    "plot_relevant_per_topic",
    "plot_margin",
    "plot_rates_by_alpha",
    "plot_power_by_delta",
    "plot_coverage",
    "plot_normalized_differences",
    "plot_topic_differences",
    "plot_asl_panels",
    "plot_stability",
    "plot_pooled_error_rates",
    "plot_error_rates_by_effort",
    "plot_map_sd",
    "plot_dependence",
    "plot_lower_triangle",
    "plot_mean_intervals",
    "plot_score_histogram",
    "plot_percentile_curves",
    "plot_partition_summaries",
    "plot_grouped_bars",
]

#: One colour and marker per test of :data:`irrepro.known_truth.TESTS`, shared by the known-truth
#: figures (the markers keep them apart in grey scale).
TEST_STYLE = {
    "t": ("C0", "o"), "wilcoxon": ("C1", "s"), "sign": ("C2", "^"), "bootstrap": ("C3", "D"),
    "permutation": ("C4", "v"), "unpaired bootstrap": ("C7", "x"),
}


def _name(name) -> str:
    """A run, topic, measure or collection name as a label: shortened beyond
    :data:`irrepro.escape.MAX_NAME` characters, drawn literally (:func:`irrepro.escape.mpl`)."""
    return escape.mpl(escape.shorten(name))


def _axes(ax, figsize):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def plot_run_intervals(ax, iv: Intervals, other=None, title: str = "", transform=None):
    """The paper's Figures 3 and 4 (Cormack & Lynam 2006): every run's estimate (x) with its
    interval (``iv``, arrays of shape (systems,)), runs sorted by the estimate; ``other`` (e.g.
    the other half's value, o) drawn over it when given. ``transform`` maps the values before
    drawing (``irrepro.stats.expit`` for L-MAP)."""
    tf = transform or (lambda v: v)
    order = np.argsort(iv.estimate, kind="stable")
    xs = np.arange(len(order))
    ax.vlines(xs, tf(iv.lower[order]), tf(iv.upper[order]), color="0.6", lw=1.5)
    ax.scatter(xs, tf(iv.estimate[order]), marker="x", s=12, color="k", label="estimate (x)", zorder=3)
    if other is not None:
        ax.scatter(xs, tf(np.asarray(other)[order]), marker="o", s=10, facecolors="none", edgecolors="C3",
                   label="other half (o)", zorder=3)
    ax.set_title(escape.mpl(title))
    ax.set_xlabel("runs (sorted)")
    return ax


def plot_error_rates(
    result: SwapExperiment,
    *,
    filter: str = "none",
    kind: str = "relative",
    bins: Sequence[int] | None = None,
    fit: GrowthFit | None = None,
    at: int = 50,
    min_trials: int = 20,
    ax=None,
):
    """Sanderson & Zobel's (2005) Figures 1-6 and 9-12: error rate against topic-set size, one
    line per bin (measured points solid, GROWTH projection to ``at`` topics dashed), with the 5%
    line. Points with fewer than ``min_trials`` trials are not drawn (nor used by the default
    fit, :func:`irrepro.topic_split.growth_fit`)."""
    ax = _axes(ax, (7, 4.2))
    rates = result.error_rates(filter, kind).where(result.counts(filter, kind) >= min_trials)
    fit = growth_fit(result, filter=filter, kind=kind, at=at, min_trials=min_trials) if fit is None else fit
    bins = range(len(rates)) if bins is None else bins
    grid = np.linspace(result.sizes[0], at, 60)
    drawn = 0
    for b in bins:
        row = rates.iloc[b]
        if row.notna().sum() == 0:
            continue
        drawn += 1
        (line,) = ax.plot(result.sizes, row.to_numpy(), marker=".", lw=1, label=escape.mpl(rates.index[b]))
        if np.isfinite(fit.projected[b]):
            ax.plot(grid, fit.predict(grid)[b], ls="--", lw=0.8, color=line.get_color())
    ax.axhline(0.05, color="k", lw=0.8, ls=":")
    ax.set_xlabel("topic-set size")
    ax.set_ylabel("error rate")
    ax.set_xlim(0, at + 1)
    ax.set_ylim(0, None)
    if drawn:
        ax.legend(title=f"{kind} difference", fontsize=7, ncol=2, title_fontsize=8)
    else:  # (small run sets: no bin reaches min_trials at any size)
        ax.text(0.5, 0.5, f"no difference bin has {min_trials} trials at any size", transform=ax.transAxes,
                ha="center", va="center", fontsize=8)
    return ax


def plot_asl_curves(curves: Mapping[str, np.ndarray], *, alpha: float = 0.05, colors: Mapping | None = None,
                    ax=None):
    """Sakai's (2006) Figures 7 and 8: for each label, the achieved significance levels of all
    pairs sorted ascending (``PairwiseTest.asl_curve()``, or adjusted ASLs), against the pair's
    rank, with a dashed line at ``alpha``. ``colors`` maps a label to its colour."""
    ax = _axes(ax, (6, 4))
    for label, asl in curves.items():
        asl = np.sort(np.asarray(asl, dtype=np.float64))
        color = None if colors is None else colors.get(label)
        ax.plot(np.arange(1, len(asl) + 1), asl, color=color, label=_name(label))
    ax.axhline(alpha, ls="--", color="grey", lw=1)
    ax.set_xlabel("pairs sorted by ASL")
    ax.set_ylabel("achieved significance level")
    return ax


def plot_significance_matrix(pairs, difference, significant, order, *, labels: Sequence[str] | None = None,
                             ax=None):
    """Which pairs of systems differ significantly: a systems x systems matrix, systems in
    ``order`` (e.g. best mean first), blue where the row's system is significantly better, red
    where worse, grey where the difference is not significant. ``pairs`` (P, 2) system indices,
    ``difference`` (P,) score of the first minus the second, ``significant`` (P,) bool;
    ``labels`` (the systems' names, in index order) label the axes."""
    pairs = np.asarray(pairs)
    order = np.asarray(order)
    S = len(order)
    ax = _axes(ax, (5, 5))
    pos = np.empty(S, dtype=int)
    pos[order] = np.arange(S)
    mat = np.full((S, S), np.nan)
    val = np.where(np.asarray(significant, dtype=bool), np.sign(difference), 0.0)
    i, j = pairs[:, 0], pairs[:, 1]
    mat[pos[i], pos[j]] = val
    mat[pos[j], pos[i]] = -val
    ax.imshow(mat, cmap="coolwarm_r", vmin=-1.5, vmax=1.5, interpolation="nearest")
    ax.set(xlabel="system (rank)", ylabel="system (rank)")
    if labels is not None:
        short = escape.short_names(labels)  # long names shortened, none two alike
        names = [escape.mpl(short[k]) for k in order]
        ax.set_xticks(range(S), names, rotation=90, fontsize=6)
        ax.set_yticks(range(S), names, fontsize=6)
    return ax


def plot_score_matrix(scores, measure: str = "", *, vmax: float | None = None, ax=None):
    """A (systems, topics) score matrix as a grey-scale heat map, systems (rows) by mean score best
    first and topics (columns) easiest first, with a colour bar labelled ``measure``; the grey
    scale spans 0 to ``vmax`` (None: the largest score)."""
    x = np.asarray(scores, dtype=np.float64)
    ax = _axes(ax, (7.5, max(2.5, min(8, 0.12 * x.shape[0] + 1.5))))
    order_s = np.argsort(-x.mean(axis=1), kind="stable")
    order_t = np.argsort(-x.mean(axis=0), kind="stable")
    im = ax.imshow(x[order_s][:, order_t], cmap="gray", aspect="auto", vmin=0,
                   vmax=max(1e-9, float(np.nanmax(x))) if vmax is None else vmax)
    measure = _name(measure)
    ax.set(xlabel="topic (easiest first)", ylabel=f"system (best mean {measure} first)".replace("  ", " "))
    ax.figure.colorbar(im, ax=ax, label=measure)
    return ax


def plot_scatter(x, y, *, xlabel: str = "", ylabel: str = "", ax=None):
    """One value per system on each axis (e.g. raw against standardized mean scores)."""
    ax = _axes(ax, (5, 4))
    ax.scatter(np.asarray(x), np.asarray(y), s=14, color="C0")
    ax.set(xlabel=escape.mpl(xlabel), ylabel=escape.mpl(ylabel))
    return ax


def plot_false_positives(summaries: Mapping[str, Mapping[str, float]], *, alpha: float = 0.05, ax=None):
    """Share of systems found significantly different from themselves over random topic halves,
    per form of the scores (``{form: PartitionResult.summary()}``, e.g. raw and standardized): the
    mean over partitions and the upper end of its 95% range, against the nominal ``alpha``."""
    ax = _axes(ax, (5, 4))
    forms = list(summaries)
    xs = np.arange(len(forms))
    ax.bar(xs - 0.2, [summaries[f]["FP mean"] for f in forms], width=0.4, color="C0", label="mean over partitions")
    ax.bar(xs + 0.2, [summaries[f]["FP high"] for f in forms], width=0.4, color="C1", label="upper end of 95% range")
    ax.set_xticks(xs, [_name(f) for f in forms])
    ax.axhline(alpha, color="k", lw=0.8, ls="--")
    ax.set_ylabel("share of systems significantly\ndifferent from themselves")
    ax.legend(fontsize=8)
    return ax


#: The markers of :func:`plot_relevant_per_topic`, in the order of its series.
_R_MARKERS = ("o", "s", "x", "^", "v", "D", "+")


def plot_relevant_per_topic(relevant: Mapping[str, Sequence[int]], *, threshold: int | None = 5, ax=None):
    """R per topic of several collections in one figure: each series (label -> R of every topic)
    sorted ascending and drawn against its topics' rank as a share of its topics (so that sets of
    30 and 50 topics line up), on a log scale; ``threshold`` draws the paper's small-R line
    (Cormack & Lynam 2006, section 7: R <= 5) with the number of topics at or below it in the
    legend."""
    ax = _axes(ax, (7, 3.6))
    for (name, r), marker in zip(relevant.items(), _R_MARKERS * (1 + len(relevant) // len(_R_MARKERS))):
        r = np.sort(np.asarray(r, dtype=float))
        x = 100 * (np.arange(len(r)) + 0.5) / len(r)
        lab = f"{_name(name)} (median {np.median(r):g}" + (f", {int((r <= threshold).sum())} <= {threshold})"
                                                     if threshold is not None else ")")
        ax.plot(x, r, marker=marker, ms=4, lw=0.8, label=lab, fillstyle="none" if marker in "os^vD" else "full")
    if threshold is not None:
        ax.axhline(threshold, color="0.5", ls="--", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("topics ranked by R (% of the topics)")
    ax.set_ylabel("relevant documents (R)")
    ax.legend(fontsize=7)
    return ax


# --- the known-truth chapter: simulator, error rates, coverage ---------------------------------------


def plot_margin(model, i: int, *, delta: float | None = None, ax=None):
    """System ``i`` of a :class:`irrepro.simulation.CollectionModel`: its topic scores (grey
    histogram or bars) against its fitted margin (density, or probabilities for P@10) and, with
    ``delta``, the margin moved to its expected value + ``delta`` (dashed)."""
    ax = _axes(ax, (6, 3.5))
    m = model.margins[i]
    x = np.asarray(model.scores[i])
    if m.discrete:
        w = (m.x[1] - m.x[0]) * 0.4
        ax.bar(m.x - w / 2, [np.mean(np.isclose(x, v)) for v in m.x], width=w, color="0.7", label="data")
        ax.bar(m.x + w / 2, np.diff(np.r_[0.0, m.cdf]), width=w, color="C0", label=f"fitted ({m.family})")
        if delta is not None:
            t = m.with_mean(m.mean + delta)
            ax.plot(t.x, np.diff(np.r_[0.0, t.cdf]), "k.--", lw=0.8, label=f"moved to mean + {delta:g}")
        ax.set_ylabel("probability")
    else:
        ax.hist(x, bins=20, range=(0, 1), density=True, color="0.7", label="data")
        ax.plot(m.x, np.gradient(m.cdf, m.x), color="C0", label=f"fitted ({m.family})")
        if delta is not None:
            t = m.with_mean(m.mean + delta)
            ax.plot(t.x, np.gradient(t.cdf, t.x), "k--", lw=0.8, label=f"moved to mean + {delta:g}")
        ax.set_ylabel("density")
        ax.set_ylim(0, min(ax.get_ylim()[1], 12))
    ax.set_xlabel(f"{_name(model.measure)} ({_name(model.name)}, system {_name(model.systems[i])})")
    ax.legend(fontsize=7)
    return ax


def plot_rates_by_alpha(ours, theirs=None, *, tails: int = 2, axes=None):
    """Type I error divided by alpha against alpha, one panel per topic-set size, one line per test
    (ours, with +-1.96 se bands) and the published rates (``theirs``) as open markers. ``ours``: a
    long frame of :meth:`irrepro.known_truth.PValues.frame` rows (test, tails, alpha, rate, se,
    topics); ``theirs``: a frame with the columns test, tails, alpha, topics and value. ``axes``:
    one per topic-set size (new ones when None)."""
    sizes = sorted(ours["topics"].unique())
    if axes is None:
        import matplotlib.pyplot as plt

        axes = plt.subplots(1, len(sizes), figsize=(3.3 * len(sizes), 3.4), sharey=True)[1]
    axes = np.atleast_1d(axes)
    for ax, n in zip(axes, sizes):
        o = ours[(ours["topics"] == n) & (ours["tails"] == tails)]
        for test, g in o.groupby("test", sort=False):
            c, mk = TEST_STYLE.get(test, ("k", "."))
            g = g.sort_values("alpha")
            ax.plot(g["alpha"], g["rate"] / g["alpha"], color=c, marker=mk, ms=3, lw=1, label=_name(test))
            ax.fill_between(g["alpha"], (g["rate"] - Z95 * g["se"]) / g["alpha"],
                            (g["rate"] + Z95 * g["se"]) / g["alpha"], color=c, alpha=0.15, lw=0)
            if theirs is not None:
                u = theirs[(theirs["topics"] == n) & (theirs["tails"] == tails) & (theirs["test"] == test)]
                u = u.sort_values("alpha")
                ax.plot(u["alpha"], u["value"] / u["alpha"], ls="none", marker=mk, mfc="none", color=c, ms=6)
        ax.axhline(1.0, color="k", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set(title=f"{n} topics", xlabel="alpha")
    axes[0].set_ylabel("type I error / alpha")
    axes[0].legend(fontsize=7, title="lines: ours; open: published", title_fontsize=7)
    return axes


def plot_power_by_delta(ours, theirs=None, *, alpha: float = 0.05, tails: int = 2, ax=None):
    """Power at ``alpha`` against the true difference delta, one line per test (ours, long frame of
    :meth:`irrepro.known_truth.PValues.frame` rows, with +-1.96 se bands) and the published power
    (``theirs``: test, tails, delta, value) as open markers."""
    ax = _axes(ax, (6, 3.5))
    o = ours[(ours["tails"] == tails) & np.isclose(ours["alpha"], alpha)]
    for test, g in o.groupby("test", sort=False):
        c, mk = TEST_STYLE.get(test, ("k", "."))
        g = g.sort_values("delta")
        ax.plot(g["delta"], g["rate"], color=c, marker=mk, ms=3, lw=1, label=_name(test))
        ax.fill_between(g["delta"], g["rate"] - Z95 * g["se"], g["rate"] + Z95 * g["se"], color=c, alpha=0.15, lw=0)
        if theirs is not None:
            u = theirs[(theirs["tails"] == tails) & (theirs["test"] == test)].sort_values("delta")
            ax.plot(u["delta"], u["value"], ls="none", marker=mk, mfc="none", color=c, ms=6)
    ax.set(xlabel="true difference of expected scores (delta)", ylabel=f"power at alpha = {alpha:g}", ylim=(0, 1))
    ax.legend(fontsize=7, title="lines: ours; open: published", title_fontsize=7)
    return ax


def plot_coverage(tables: Mapping[str, "pd.DataFrame"], *, level: float = 0.95, proxy: float | None = None,
                  ax=None):
    """Coverage of each interval method (points with +-1.96 se) per setting (``tables``: label ->
    :meth:`irrepro.known_truth.Coverage.table`), the nominal ``level`` as a dotted line and, when
    given, the split-half concordance the paper predicts (``proxy``, dashed) beside the measured
    concordance (open squares). ``level``: a fraction or a percentage
    (:func:`irrepro.stats.check_level`)."""
    level = check_level(level)
    ax = _axes(ax, (6.5, 3.5))
    labels = list(tables)
    methods = list(next(iter(tables.values())).index)
    width = 0.8 / len(labels)
    for k, lab in enumerate(labels):
        t = tables[lab]
        x = np.arange(len(methods)) + (k - (len(labels) - 1) / 2) * width
        ax.errorbar(x, t["coverage"], yerr=Z95 * t["se"], fmt="o", color=f"C{k}", ms=4,
                    label=f"{_name(lab)}: coverage")
        ax.plot(x, t["other corpus inside"], ls="none", marker="s", mfc="none", color=f"C{k}", ms=5,
                label=f"{_name(lab)}: other corpus inside")
    ax.axhline(level, color="k", lw=0.8, ls=":")
    if proxy is not None:
        ax.axhline(proxy, color="k", lw=0.8, ls="--")
    ax.set_xticks(np.arange(len(methods)), [_name(m) for m in methods], rotation=20, fontsize=8)
    ax.set_ylabel("share of lists")
    ax.legend(fontsize=7)
    return ax


# --- the chapters' own figures (each drawn here so that a chapter only calls irrepro.plots) -------------


def plot_normalized_differences(x, *, clip: tuple[float, float], step: float = 0.25, xlabel: str = "",
                                title: str = "", ax=None):
    """Histogram of normalised differences (Cormack & Lynam's (2006) Figures 1 and 2: the other
    half's AP minus the interval's centre over its half-width, so that inside is [-1, 1]).

    Parameters
    ----------
    x : array_like
        The normalised differences (``SplitValidation.normalized_difference``).
    clip : tuple of float
        (low, high): values outside are drawn at the ends; the bins of width ``step`` span it.
    step : float
        Bin width.
    xlabel, title : str
        Axis label and title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on, with dashed lines at -1 and 1.
    """
    ax = _axes(ax, (7, 3.2))
    lo, hi = clip
    ax.hist(np.clip(np.asarray(x, dtype=np.float64), lo, hi), bins=np.arange(lo, hi + step, step), color="0.4")
    ax.axvline(-1, color="C3", ls="--")
    ax.axvline(1, color="C3", ls="--")
    ax.set_xlabel(escape.mpl(xlabel))
    if title:
        ax.set_title(escape.mpl(title))
    return ax


def plot_topic_differences(d, sd_separate, sd_paired, *, interval=None, ylabel: str = "", title: str = "", ax=None):
    """Per-topic differences of two runs (points, topics sorted by the difference) with their 95%
    intervals from separate and from paired bootstraps (d +- 1.96 sd, side by side) and, when given,
    a combined interval (``interval``: an object with ``lower`` and ``upper``, e.g.
    :func:`irrepro.stats.meta_analysis`'s fixed effect) as a band (Cormack & Lynam 2006, section 6).

    Parameters
    ----------
    d, sd_separate, sd_paired : array_like
        Per topic: the difference and the standard deviations of the two bootstraps.
    interval : object, optional
        The fixed-effect 95% interval (``lower``, ``upper``).
    ylabel, title : str
        The y axis label and the title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (9, 3.5))
    d = np.asarray(d, dtype=np.float64)
    t_order = np.argsort(d)
    xs = np.arange(len(t_order))
    for off, kind, sd, col in ((-0.15, "separate", sd_separate, "0.6"), (0.15, "paired", sd_paired, "C0")):
        sd = np.asarray(sd, dtype=np.float64)[t_order]
        ax.vlines(xs + off, d[t_order] - Z95 * sd, d[t_order] + Z95 * sd, color=col, lw=1.5,
                  label=f"{kind} bootstrap")
    ax.scatter(xs, d[t_order], s=10, color="k", zorder=3)
    ax.axhline(0, color="k", lw=0.5)
    if interval is not None:
        ax.axhspan(interval.lower, interval.upper, color="C1", alpha=0.3, label="fixed-effect 95% CI")
    ax.set_xlabel("topics (sorted by d)")
    ax.set_ylabel(escape.mpl(ylabel))
    ax.set_title(escape.mpl(title))
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_asl_panels(paired: Mapping, unpaired: Mapping, *, colors: Mapping | None = None, alpha: float = 0.05,
                    axes=None):
    """Sakai's (2006) Figures 7 and 8 side by side: the sorted ASL curves of the paired tests (left,
    labelled by measure) and of the unpaired tests (right, labelled by name), drawn by
    :func:`plot_asl_curves`.

    Parameters
    ----------
    paired, unpaired : mapping
        Name -> :class:`irrepro.bootstrap_tests.PairwiseTest` (``MeasureStudy.paired`` /
        ``.unpaired``).
    colors : mapping, optional
        Name -> colour, the same in both panels.
    alpha : float
        The dashed line.
    axes : sequence of two matplotlib Axes, optional
        Where to draw (a new figure, the y axis shared, when None).

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        The two axes.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)[1]
    colors = colors or {}
    panels = [("paired test (Figure 7)", paired, True), ("unpaired test (Figure 8)", unpaired, False)]
    for ax, (title, tests, by_measure) in zip(axes, panels):
        curves = {(t.measure if by_measure else name): t.asl_curve() for name, t in tests.items()}
        cols = {(t.measure if by_measure else name): colors.get(name) for name, t in tests.items()}
        plot_asl_curves(curves, alpha=alpha, colors=cols, ax=ax)
        ax.set_xlabel("system pairs sorted by ASL")
        ax.set_ylabel("")
        ax.set_title(title)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("achieved significance level")
    return np.asarray(axes)


def plot_stability(stability: Mapping, *, colors: Mapping | None = None, title: str = "", ax=None):
    """Sakai's (2006) stability method (Figures 9 and 10): minority rate against proportion of ties,
    one line per measure over the fuzziness values.

    Parameters
    ----------
    stability : mapping
        Name -> :class:`irrepro.bootstrap_tests.Stability` (``MeasureStudy.stability``).
    colors : mapping, optional
        Name -> colour.
    title : str
        The title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (6.5, 4.5))
    for name, st in stability.items():
        ax.plot(st.prop_ties, st.minority_rate, marker="o", ms=3, color=(colors or {}).get(name), label=_name(name))
    ax.set_xlabel("proportion of ties (PT)")
    ax.set_ylabel("minority rate (MR)")
    ax.set_title(escape.mpl(title))
    ax.legend(fontsize=8)
    return ax


def plot_pooled_error_rates(result: SwapExperiment, filters: Mapping[str, str], *, kind: str = "relative",
                            bins=slice(2, 6), ax=None):
    """Error rate against topic-set size over several bins pooled (errors and trials summed), one
    line per filter (Sanderson & Zobel 2005, section 3: t vs sign vs Wilcoxon); sizes without a
    trial are not drawn.

    Parameters
    ----------
    result : SwapExperiment
        The experiment.
    filters : mapping
        Label -> filter of ``result.filters``.
    kind : str
        "relative" or "absolute" difference bins.
    bins : slice or sequence of int
        The bins pooled.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 4))
    for label, flt in filters.items():
        f, k = result._fk(flt, kind)
        e = result.errors[f, k][:, bins].sum(1)
        t = result.trials[f, k][:, bins].sum(1)
        ax.plot(result.sizes, np.where(t > 0, e / np.maximum(t, 1), np.nan), marker=".", label=_name(label))
    ax.set_xlabel("topic-set size")
    ax.legend()
    return ax


def plot_error_rates_by_effort(results: Mapping[str, tuple], *, bins: Sequence[int] = (2, 5), axes=None):
    """Sanderson & Zobel's (2005) Figure 7: error rate of difference bins against topic-set size
    (left) and against assessor effort (right: sizes times the cost of a topic), per measure.

    Parameters
    ----------
    results : mapping
        Label -> (SwapExperiment, cost of one of its topics).
    bins : sequence of int
        The relative-difference bins drawn (solid, dashed, ...).
    axes : sequence of two matplotlib Axes, optional
        Where to draw (a new figure, the y axis shared, when None).

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        The two axes.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)[1]
    for name, (res, cost) in results.items():
        for b, ls in zip(bins, ("-", "--", ":", "-.")):
            e = res.error_rates("none").iloc[b]
            label = f"{_name(name)}, {escape.mpl(e.name)}"
            axes[0].plot(res.sizes, e, ls=ls, marker=".", label=label)
            axes[1].plot(res.sizes * cost, e, ls=ls, marker=".", label=label)
    axes[0].set_xlabel("topic-set size")
    axes[1].set_xlabel("assessor effort (depth-100 topics)")
    axes[0].set_ylabel("error rate")
    axes[0].legend(fontsize=8)
    return np.asarray(axes)


def plot_map_sd(sd, *, threshold: float | None = 0.01, ax=None):
    """The standard deviation of MAP against the number of topics (Sanderson & Zobel 2005, section
    5): ``sd`` is :func:`irrepro.topic_split.map_sd`'s frame (topics, sd, sd_p05, sd_p95), drawn as
    a line with its 5-95% band and a dotted line at ``threshold``.

    Parameters
    ----------
    sd : pandas.DataFrame
        Columns topics, sd, sd_p05, sd_p95.
    threshold : float, optional
        The dotted line (None: none).
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 3.5))
    ax.plot(sd["topics"], sd["sd"], marker=".")
    ax.fill_between(sd["topics"], sd["sd_p05"], sd["sd_p95"], alpha=0.2)
    if threshold is not None:
        ax.axhline(threshold, color="k", ls=":", lw=0.8)
    ax.set_xlabel("topics in the sample")
    ax.set_ylabel("sd of MAP (mean over runs)")
    return ax


def plot_dependence(dep, sizes: Sequence[int], *, title: str = "", ax=None):
    """Sanderson & Zobel's (2005) Figure 8: mean error by the rank of a pair's trials sorted by the
    set-1 difference, one line per topic-set size (``SwapExperiment.dependence()``'s rows; sizes
    it does not hold are skipped).

    Parameters
    ----------
    dep : pandas.DataFrame
        Sizes x trial ranks.
    sizes : sequence of int
        The sizes drawn.
    title : str
        The title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 4))
    for n in [s for s in sizes if s in dep.index]:
        ax.plot(dep.columns, dep.loc[n].to_numpy(), label=str(n))
    ax.set_xlabel(f"trial rank by set-1 difference (of {dep.shape[1]} per pair)")
    ax.set_ylabel("mean error")
    ax.set_title(escape.mpl(title))
    ax.legend(title="topics")
    return ax


def plot_lower_triangle(matrix, *, fmt: str = ".2f", label: str = "", title: str = "", ax=None, **heatmap):
    """A square table of pairwise values (e.g. Sakai's (2006) Figures 12 and 13: Kendall's tau
    between the measures' rankings, their bootstrap standard error) as an annotated heat map of its
    lower triangle (seaborn's ``heatmap``), the x tick labels turned 45 degrees.

    Parameters
    ----------
    matrix : pandas.DataFrame
        The table; its index and columns label the axes.
    fmt : str
        Format of the annotations.
    label, title : str
        The colour bar's label and the title, drawn literally.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).
    **heatmap
        Passed to ``seaborn.heatmap`` (``cmap``, ``vmin``, ``vmax``).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    import seaborn as sns

    ax = _axes(ax, (6, 4.8))
    mask = np.triu(np.ones_like(matrix, dtype=bool), k=1)
    sns.heatmap(matrix, mask=mask, annot=True, fmt=fmt, ax=ax, cbar_kws={"label": escape.mpl(label)}, **heatmap)
    ax.set_title(escape.mpl(title))
    ax.tick_params(axis="x", rotation=45)
    return ax


def plot_mean_intervals(mean, lower, upper, *, highlight: int | None = None, ax=None):
    """Every system's mean with its interval, systems sorted by the mean, best first (Webber, Moffat
    & Zobel's (2008) Figure 2); ``highlight`` (a rank from 1) is drawn again in red.

    Parameters
    ----------
    mean, lower, upper : array_like
        Per system: the mean and its interval (e.g. :func:`irrepro.standardize.mean_intervals`).
    highlight : int, optional
        The rank (1 = best) drawn in red, labelled "<rank>th run".
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 3.5))
    m, lo, hi = (np.asarray(v, dtype=np.float64) for v in (mean, lower, upper))
    order = np.argsort(-m)
    ax.errorbar(np.arange(1, len(m) + 1), m[order], yerr=[m[order] - lo[order], hi[order] - m[order]],
                fmt=".", ms=3, lw=0.6, color="0.3")
    if highlight is not None:
        k = order[highlight - 1]
        ax.errorbar([highlight], [m[k]], yerr=[[m[k] - lo[k]], [hi[k] - m[k]]], fmt="o", color="C3",
                    label=f"{highlight}th run")
        ax.legend()
    return ax


def plot_score_histogram(scores, *, bins: int = 20, range: tuple[float, float] = (0, 1), color="0.5", ax=None):
    """Histogram of all the scores of a matrix (raw or standardized; Webber, Moffat & Zobel's (2008)
    Figure 3).

    Parameters
    ----------
    scores : array_like
        The scores, any shape (flattened).
    bins : int
        Number of bins over ``range``.
    range : tuple of float
        The span of the bins.
    color : matplotlib colour
        The bars' colour.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (4, 3))
    ax.hist(np.ravel(np.asarray(scores, dtype=np.float64)), bins=bins, range=range, color=color)
    return ax


def plot_percentile_curves(percentiles, *, labels: Sequence[str], references: Mapping[str, float] | None = None,
                           ax=None):
    """Percentiles of a statistic against a size, one line per column of ``percentiles`` (index:
    the sizes, drawn on a log scale), with horizontal reference lines (label -> value; dashed,
    dotted, ...) - Webber, Moffat & Zobel's (2008) Figure 4.

    Parameters
    ----------
    percentiles : pandas.DataFrame
        Sizes x percentiles.
    labels : sequence of str
        One label per column.
    references : mapping, optional
        Label -> value of a reference line.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (7, 3.5))
    for col, lab in zip(percentiles.columns, labels):
        ax.plot(percentiles.index, percentiles[col], marker="o", ms=3, label=escape.mpl(lab))
    for (lab, value), ls in zip((references or {}).items(), ("--", ":", "-.")):
        ax.axhline(value, color="0.4", ls=ls, lw=1, label=escape.mpl(lab))
    ax.set_xscale("log")
    ax.legend(fontsize=8)
    return ax


def plot_partition_summaries(summaries, *, short: Mapping[str, str], kind: str = "dRMSE", axes=None):
    """Webber, Moffat & Zobel's (2008) Figures 5 and 6, one panel per setting: for each (metric,
    form) the dRMSE between random topic halves (``kind="dRMSE"``: mean with its 95% interval) or
    the upper end of the false-positive rate's 95% interval (``kind="FP"``: bars coloured by form,
    with a dashed line at 0.05).

    Parameters
    ----------
    summaries : pandas.DataFrame
        Rows with setting, metric, form and ``PartitionResult.summary()``'s columns.
    short : mapping
        Form -> its short name in the tick labels.
    kind : str
        "dRMSE" or "FP".
    axes : sequence of matplotlib Axes, optional
        One per setting (a new figure when None).

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        The axes, one per setting.
    """
    groups = list(summaries.groupby("setting", sort=False))
    if axes is None:
        import matplotlib.pyplot as plt

        axes = plt.subplots(1, len(groups), figsize=(10, 3.5))[1]
    axes = np.atleast_1d(axes)
    for ax, (setting, g) in zip(axes, groups):
        lab = [escape.mpl(m) + "\n" + escape.mpl(short[f]) for m, f in zip(g["metric"], g["form"])]
        if kind == "dRMSE":
            ax.errorbar(range(len(g)), g["dRMSE mean"],
                        yerr=[g["dRMSE mean"] - g["dRMSE low"], g["dRMSE high"] - g["dRMSE mean"]],
                        fmt="o", color="C0")
            ylabel = "dRMSE between random halves\n(mean, 95% interval)"
        else:
            ax.bar(range(len(g)), g["FP high"], color=g["form"].map({"raw": "0.5", "R-normalized": "C1",
                                                                    "standardized": "C0"}))
            ax.axhline(0.05, color="k", lw=0.8, ls="--")
            ylabel = "false-positive rate,\nupper end of 95% interval"
        ax.set_xticks(range(len(g)), lab, fontsize=7, rotation=90)
        ax.set(title=escape.mpl(setting), ylabel=ylabel)
    return axes


def plot_grouped_bars(frame, *, colors: Sequence | None = None, ax=None):
    """A bar per cell of ``frame``: one group per column, one bar per row (coloured by ``colors``),
    e.g. Webber, Moffat & Zobel's (2008) Figure 7 (rows: forms of the scores; columns: metrics).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows x groups.
    colors : sequence, optional
        One colour per row.
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib Axes
        The axes drawn on.
    """
    ax = _axes(ax, (6, 3.5))
    return frame.T.plot.bar(ax=ax, rot=0, color=colors)
