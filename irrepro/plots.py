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
  (the "Against a known truth" chapter: :mod:`irrepro.simulation`, :mod:`irrepro.known_truth`).
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


def plot_score_matrix(scores, measure: str = "", *, ax=None):
    """A (systems, topics) score matrix as a grey-scale heat map, systems (rows) by mean score best
    first and topics (columns) easiest first, with a colour bar labelled ``measure``."""
    x = np.asarray(scores, dtype=np.float64)
    ax = _axes(ax, (7.5, max(2.5, min(8, 0.12 * x.shape[0] + 1.5))))
    order_s = np.argsort(-x.mean(axis=1), kind="stable")
    order_t = np.argsort(-x.mean(axis=0), kind="stable")
    im = ax.imshow(x[order_s][:, order_t], cmap="gray", aspect="auto", vmin=0, vmax=max(1e-9, float(np.nanmax(x))))
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
