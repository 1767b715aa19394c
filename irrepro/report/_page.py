"""The report's heavy analyses (by blocks: memory does not grow with the runs) and :class:`Report`, with
its page (template ``irrepro/templates/report.html.j2``)."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .. import corpus_bootstrap as cb
from .. import escape, parallel, plots, significance
from .. import sensitivity as bt
from .. import standardize as sz
from .. import topic_split as ts
from .._outputs import write_dir
from .._text import UNDEFINED, few, missing_scored, no_pair_variance, no_variance
from ..corpus_bootstrap.sampler import _lists_of, _release_tables
from ..data import RunSet, ScoreMatrix
from ..errors import InputError
from ..escape import to_csv
from ..stats import expit, kendall_tau
from ._settings import (
    DESIGN_ALPHA,
    DESIGN_MIN_DIFF,
    DESIGN_POWER,
    Settings,
    _pairs_resamples,
    _per_topic_file,
)

__all__ = ["Report"]

#: Above this many pairs the HTML lists only the pairs adjacent in the ranking (all are in the CSV).
MAX_PAIRS_SHOWN = 1000
#: What a mean is, everywhere in the report.
AVERAGING = (
    "Every mean on this page is over all {T} topics of the qrels, a topic a run retrieved nothing "
    "for counting as 0 (trec_eval -c); the corpus-bootstrap MAP intervals are of that same mean "
    "(a topic without a usable list - nothing retrieved, or no relevant document - adds a fixed AP "
    "of 0)."
)

#: The significance counts of the summary (label, column): Holm and BH's, or randomised Tukey HSD's.
_FAMILIES = {
    False: (("Holm", "ASL (Holm)"), ("Benjamini-Hochberg", "ASL (BH)")),
    True: (("family-wise (randomised Tukey HSD)", "ASL"),),
}
#: The ASL curves' labels, by column of the pairs.
_CURVES = {"ASL": "ASL", "ASL (Holm)": "Holm-adjusted", "ASL (BH)": "BH-adjusted"}

_SIMULATED = (
    "computed on SIMULATED data: the qrels {qrels!r} are irrepro's simulated stand-in, not real "
    "relevance judgments (the real files could not be had, and --allow-simulated was given)"
)


@dataclass(frozen=True, eq=False)
class Report:
    """Everything the report shows; :meth:`write` renders it. Built by :func:`analyse` (no replicates kept).

    Attributes
    ----------
    name, qrels, measure, test, precision : str
        The run set's name, the qrels' label, the measure, the pairs' test, how the scores were ranked.
    seed, rel, B_pairs : int
        The seed, the lowest relevant grade, the pairwise tests' resamples.
    settings : Settings
        The sizes of the computations.
    baseline : str or None
        The baseline run, if any.
    scores, standardized : irrepro.data.ScoreMatrix, numpy.ndarray
        ``(S, T)`` per-topic scores of ``measure``, and standardized (Phi(z)).
    n_relevant : numpy.ndarray
        ``(T,)`` relevant documents per topic.
    pairs : pandas.DataFrame
        One row per pair of runs: difference, 95% CI, d_z and its BCa CI, ASL (Holm, BH but for Tukey HSD).
    corpus : irrepro.corpus_bootstrap.FullCorpus
        The corpus bootstrap of every run.
    swap, growth, design : irrepro.topic_split.SwapExperiment, irrepro.topic_split.GrowthFit, pandas.DataFrame
        The swap experiment, its GROWTH fit, Sakai's topic-set sizes; None when left out.
    swap_note, design_note : str
        Why the swap experiment or the design table is left out.
    halves : dict of str to irrepro.standardize.PartitionResult
        The random-halves experiment, ``"raw"`` and ``"standardized"``.
    coverage : pandas.DataFrame
        The runs' :meth:`~irrepro.data.RunSet.coverage`, indexed by run.
    simulated, timings : bool, dict of str to float
        Computed on simulated data; seconds per analysis.

    Examples
    --------
    >>> from irrepro import report
    >>> inp = report.load(runs_dir, qrels_file)  # the doctests' three simulated runs as TREC files
    >>> rep = report.analyse(inp.runset, seed=1, scale="quick", progress=False)
    >>> rep.pairs[["run x", "run y", "difference", "ASL", "ASL (Holm)", "ASL (BH)"]].round(3)
           run x      run y  difference    ASL  ASL (Holm)  ASL (BH)
    0  simrun001  simrun002       0.085  0.308       0.616     0.452
    1  simrun001  simrun003       0.167  0.128       0.384     0.384
    2  simrun002  simrun003       0.082  0.452       0.616     0.452
    """

    name: str
    qrels: str
    measure: str
    seed: int
    rel: int
    settings: Settings
    scores: ScoreMatrix
    n_relevant: np.ndarray  # (T,)
    pairs: pd.DataFrame
    corpus: cb.FullCorpus
    swap: ts.SwapExperiment | None
    growth: ts.GrowthFit | None
    swap_note: str
    standardized: np.ndarray  # (S, T) Phi(z)
    halves: dict[str, sz.PartitionResult]
    coverage: pd.DataFrame
    B_pairs: int
    simulated: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    test: str = "bootstrap"
    baseline: str | None = None
    design: pd.DataFrame | None = None
    design_note: str = ""
    precision: str = "float32"

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs' names, in the order of ``scores``."""
        return self.scores.systems

    @property
    def test_label(self) -> str:
        """The name of the pairs' test, as every table of the report prints it."""
        return significance.TESTS[self.test]

    @property
    def family_wise(self) -> str:
        """The column of :attr:`pairs` the significance counts use: Holm's, or randomised Tukey HSD's ASL."""
        return "ASL" if self.test == "tukey" else "ASL (Holm)"

    def pair_index(self) -> np.ndarray:
        """``(P, 2)`` indices into :attr:`runs` of each row of :attr:`pairs`."""
        pos = {r: k for k, r in enumerate(self.runs)}
        return np.stack([self.pairs[c].map(pos).to_numpy() for c in ("run x", "run y")], axis=1)

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of pairs with (unadjusted) ASL < alpha (Sakai 2006, section 3.3)."""
        return float(np.mean(self.pairs["ASL"].to_numpy() < alpha))

    def runs_table(self) -> pd.DataFrame:
        """One row per run, best mean first: means, coverage, MAP intervals, ranks, significant wins / losses."""
        mean = self.scores.mean()
        par = self.corpus.maps[("parametric", "MAP")]
        boot = self.corpus.maps[("bootstrap", "MAP")]
        std = self.standardized.mean(axis=1)
        sig = self.pairs[self.family_wise].to_numpy() < 0.05
        d = self.pairs["difference"].to_numpy()
        i, j = self.pair_index().T
        wins = np.bincount(np.r_[i[sig & (d > 0)], j[sig & (d < 0)]], minlength=len(mean))
        losses = np.bincount(np.r_[i[sig & (d < 0)], j[sig & (d > 0)]], minlength=len(mean))
        m, T = self.measure, len(self.scores.topics)
        cov = self.coverage.loc[list(self.runs)]
        frame = pd.DataFrame({
            "run": self.runs, f"mean {m}": mean, f"topics retrieved (of {T})": cov["retrieved"].to_numpy(),
            "topics ignored (not in qrels)": cov["ignored"].map(len).to_numpy(),
            "MAP": par.estimate, "MAP low (parametric)": par.lower, "MAP high (parametric)": par.upper,
            "MAP low (bootstrap)": boot.lower, "MAP high (bootstrap)": boot.upper, f"standardized {m}": std,
            f"rank by {m}": pd.Series(-mean).rank(method="min").astype(int).to_numpy(),
            "rank standardized": pd.Series(-std).rank(method="min").astype(int).to_numpy(),
            "significantly better than": wins, "significantly worse than": losses
        })  # fmt: skip
        return frame.sort_values(f"mean {m}", ascending=False, kind="stable").reset_index(drop=True)

    def summary(self) -> dict:
        """The headline numbers, quantity -> number or text (an undefined one its reason, never NaN)."""
        S, T = self.scores.shape
        tau = float(kendall_tau(self.scores.mean(), self.standardized.mean(axis=1)))

        def defined(v: float):
            if np.isfinite(v):
                return v
            return no_variance(self.scores) or no_variance(self.standardized, "standardized ") or UNDEFINED

        out: dict = {}
        if self.simulated:
            out["WARNING"] = _SIMULATED.format(qrels=self.qrels)
        out.update({
            "runs": S,
            "topics": T,
            "mean": "over all qrels topics, a missing topic = 0 (trec_eval -c)",
            "runs missing qrels topics": int((self.coverage["missing"].map(len) > 0).sum()),
            "runs with topics not in the qrels (ignored)": int((self.coverage["ignored"].map(len) > 0).sum()),
            "test of the pairs": self.test_label + (f", against the baseline {self.baseline}" if self.baseline else ""),
            "pairs": len(self.pairs),
            "discriminative power (ASL < 0.05)": self.discriminative_power(0.05)
        })  # fmt: skip
        for label, col in _FAMILIES[self.test == "tukey"]:
            out[f"significant pairs, {label}"] = int((self.pairs[col] < 0.05).sum())
        width = float(np.nanmedian(self.corpus.maps[("parametric", "MAP")].width))
        out["median width of the MAP interval (parametric)"] = width
        out["Kendall tau, raw vs standardized ranking"] = defined(tau)
        for form, res in self.halves.items():
            s = res.summary()
            out[f"dRMSE between random halves, {form}"] = defined(s["dRMSE mean"])
            out[f"runs different from themselves, {form} (mean)"] = s["FP mean"]
        return out

    def methods(self) -> significance.Methods:
        """The report's methods paragraph and its ir_metadata sidecar (a ``Methods``)."""
        from ..escape import shell

        st, (S, T) = self.settings, self.scores.shape
        analyses = [
            f"Each pair's d_z has a 95% bias-corrected and accelerated (BCa) bootstrap interval from the same "
            f"{self.B_pairs:,} bootstrap samples of the topics.",
            f"Corpus bootstrap (Cormack & Lynam 2006): every run's MAP (AP at grade {self.rel} or above; a topic "
            f"without a usable list adds an AP of 0) with 95% parametric intervals (per-topic logit intervals, "
            f"small-R correction) and L-MAP bootstrap intervals, from B = {st.B_corpus:,} Poisson(1) "
            "replications of the documents of each ranked list.",
        ]
        if self.swap is not None:
            sizes = self.swap.sizes
            analyses.append(
                f"Topic split (Sanderson & Zobel 2005): {self.swap.B} random splits of the topics into two disjoint "
                f"sets of {sizes[0]} to {sizes[-1]} topics per size, swaps counted with and without a paired t-test "
                f"at p <= 0.05 on the first set, the error rates projected to {T} topics by an exponential fit."
            )
        else:
            analyses.append(f"Topic split (Sanderson & Zobel 2005): {self.swap_note}")
        analyses.append(
            "Standardization (Webber, Moffat & Zobel 2008): each topic's scores standardized by these runs' mean "
            f"and standard deviation on it and mapped by the normal CDF; {st.B_halves:,} random halves of the "
            "topics give the dRMSE of run means between halves and the runs a two-sample t-test (p < 0.05) "
            "finds different from themselves."
        )
        if self.design is not None:
            analyses.append(
                f"Topic-set sizes (Sakai 2016): to find a difference of {DESIGN_MIN_DIFF:g} with power "
                f"{DESIGN_POWER:g} at alpha {DESIGN_ALPHA:g}, from the residual variance of the two-way ANOVA, with "
                f"intervals from {st.B_tests:,} bootstrap samples of the topics."
            )
        cmd = (f"irrepro report RUNS_DIR --qrels {shell(self.qrels)} -m {shell(self.measure)} --seed {self.seed}"
               + f" --test {self.test}" + (f" --baseline {shell(self.baseline)}" if self.baseline else "")
               + f" -l {self.rel} --scale {st.scale}"
               + f" --precision {self.precision}")  # fmt: skip
        return significance.methods_paragraph(
            [self.measure], n_topics=T, n_runs=S, test=self.test, alpha=0.05,
            correction=("holm", "fdr_bh"), baseline=self.baseline, n_comparisons=len(self.pairs),
            B=self.B_pairs, exact=self.test == "permutation" and T < 63 and 2**T <= self.B_pairs,
            effect_sizes=("difference", "d_z"), interval="percentile", level=0.95,
            B_interval=self.B_pairs, seed=self.seed, rel=self.rel, precision=self.precision,
            missing_runs=int((self.coverage["missing"].map(len) > 0).sum()), qrels=self.qrels,
            analyses=analyses, command=cmd
        )  # fmt: skip

    def files(self) -> dict[str, str]:
        """The report's files, name -> content: the page, the tables as CSV, the methods and ir_metadata."""
        summ, runs = self.summary(), self.runs_table()
        files = {
            "summary.csv": to_csv(_summary_frame(summ), index=False),
            "runs.csv": to_csv(runs, index=False),
            "pairs.csv": to_csv(self.pairs.assign(test=self.test_label), index=False),
            _per_topic_file(self.measure): to_csv(self.scores.to_frame()),
        }
        if self.swap is not None:
            files["error-rates.csv"] = to_csv(_error_table(self))
        if self.design is not None:
            files["topic-set-size.csv"] = to_csv(self.design, index=False)
        methods = self.methods()
        files.update({"methods.md": methods.markdown, "methods.tex": methods.latex,
                      "ir_metadata.yml": methods.to_yaml()})  # fmt: skip
        files["index.html"] = _render(self, summ, runs, methods.html)
        return files

    def write(self, out: str | Path) -> Path:
        """Write the report's :meth:`files` into the directory ``out`` (new, empty, or an earlier report:
        only the files its manifest ``.irrepro-report`` proves irrepro's are replaced or removed, the
        rest named in a warning); returns ``out/index.html``, or raises :class:`~irrepro.InputError`."""
        return write_dir(out, self.files(), what="report") / "index.html"


def _summary_frame(summ: dict) -> pd.DataFrame:
    """The summary table: quantity, value (formatted; never "nan")."""

    def fmt(v):
        if isinstance(v, str):
            return v
        if isinstance(v, (int, np.integer)):
            return f"{v:,}"
        return f"{v:.3f}" if np.isfinite(v) else UNDEFINED

    return pd.DataFrame({"quantity": list(summ), "value": [fmt(v) for v in summ.values()]})


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(
    frame: pd.DataFrame,
    digits: int = 4,
    scroll: bool = False,
    caption: str = "",
    labels: Mapping | None = None,
) -> str:
    """``frame`` as an escaped HTML table, run names (columns run, run x, run y) shortened, full in a tooltip."""
    from markupsafe import Markup

    def run(v):
        return escape.html_name(v, label=(labels or {}).get(v))

    out = frame.copy(deep=False)
    for k, col in enumerate(out.columns):
        if not pd.api.types.is_numeric_dtype(out.iloc[:, k]):  # object or str: cells of text
            cell = run if col in ("run", "run x", "run y") else escape.html
            out.isetitem(k, out.iloc[:, k].map(lambda v, cell=cell: cell(v) if isinstance(v, str) else v))
    out.columns = [escape.html(c) for c in out.columns]
    html = out.to_html(
        index=False, float_format=lambda v: f"{v:.{digits}f}", na_rep="-", border=0, escape=False
    )
    if caption:  # pandas' to_html has no caption: put one after the opening tag
        head, rest = html.split(">", 1)
        html = f"{head}>\n  <caption>{escape.html(caption)}</caption>{rest}"
    return Markup(f'<div class="scroll">{html}</div>' if scroll else html)


def _labels(rep: Report) -> dict[str, str]:
    """Run -> the label the page shows for it (``irrepro.escape.short_names``)."""
    return dict(zip(rep.runs, escape.short_names(rep.runs)))


def _num(x) -> str:
    """A number of the page's prose with 3 decimals, or "undefined (REASON)", never "nan"."""
    if isinstance(x, str):
        return f"undefined ({x})"
    return f"{x:.3f}" if np.isfinite(x) else UNDEFINED


def _pct(x: float) -> str:
    return "-" if not np.isfinite(x) else f"{100 * x:.1f}%"


def _error_table(rep: Report) -> pd.DataFrame:
    """Error rate by relative-difference bin, at the largest size and projected, with and without a t-test."""
    res, fit = rep.swap, rep.growth
    assert res is not None and fit is not None  # (a report with the swap experiment)
    size = int(res.sizes[-1])
    cols = {}
    for f, lab in (("none", "all trials"), ("paired-t p<=0.05", "t-test p<=0.05")):
        rates = res.error_rates(f, "relative")[size]
        cnt = res.counts(f, "relative")[size]
        cols[f"error at {size} topics, {lab}"] = rates.where(cnt > 0)
        cols[f"trials at {size} topics, {lab}"] = cnt
    cols[f"projected error at {fit.at} topics (GROWTH, all trials)"] = pd.Series(
        fit.projected, index=fit.labels
    )
    frame = pd.DataFrame(cols)
    keep = frame[[c for c in frame.columns if c.startswith("trials")]].sum(axis=1) > 0
    return frame[keep]


def _fig_scores(rep: Report):
    x = rep.scores.scores
    fig, ax = plots.panels(height=max(2.5, min(8, 0.12 * x.shape[0] + 1.5)))
    plots.plot_score_matrix(x, rep.measure, ax=ax)
    m = escape.mpl(escape.shorten(rep.measure))
    ax.set(ylabel=f"run (best mean {m} first)", title=f"{m} per run and topic")
    return fig


def _fig_asl(rep: Report):
    fig, axes = plots.panels(2, 1, height=4.2)
    names = {"ASL": "ASL (family-wise)"} if rep.test == "tukey" else _CURVES
    curves = {names[col]: rep.pairs[col].to_numpy() for col in rep.pairs if col in names}
    plots.plot_asl_curves(curves, ax=axes[0])
    B = f" (B = {rep.B_pairs:,})" if rep.test in ("bootstrap", "permutation", "tukey") else ""
    axes[0].set(xlabel="run pairs sorted by ASL", title=f"ASL curve, {rep.test_label}{B}")
    # significance matrix: runs in order of mean score, sign of the difference where Holm-significant
    order = np.argsort(-rep.scores.mean(), kind="stable")
    sig = rep.pairs[rep.family_wise].to_numpy() < 0.05
    labels = rep.runs if len(rep.runs) <= 30 else None
    plots.plot_significance_matrix(
        rep.pair_index(), rep.pairs["difference"].to_numpy(), sig, order, labels=labels, ax=axes[1]
    )
    which = "Family-wise" if rep.test == "tukey" else "Holm-"
    axes[1].set(
        xlabel="run (rank)",
        ylabel="run (rank)",
        title=f"{which}significant differences\n(blue: row better, red: row worse, grey: not significant)",
    )
    return fig


def _fig_corpus(rep: Report):
    n = len(rep.corpus.maps[("parametric", "MAP")].estimate)
    rows = max(1, -(-n // plots.corpus_bootstrap.RUNS_PER_PANEL))  # the runs in groups by rank
    fig, axes = plots.panels(rows, 2, height=1.9, squeeze=False)
    maps = rep.corpus.maps
    plots.plot_run_intervals(axes[:, 0], maps[("parametric", "MAP")], title="MAP, parametric", ylabel="MAP")
    lmap = maps[("bootstrap", "L-MAP")]
    plots.plot_run_intervals(
        axes[:, 1], lmap, title="L-MAP, bootstrap", transform=expit, ylabel="expit(L-MAP)"
    )
    fig.suptitle(f"Corpus-bootstrap 95% intervals of every run (B = {rep.settings.B_corpus})")
    return fig


def _fig_split(rep: Report):
    swap, growth = rep.swap, rep.growth
    assert swap is not None and growth is not None  # drawn for a report with the swap experiment only
    fig, axes = plots.panels(2, 1, height=3.0, sharex=True)
    panels = (
        (axes[0], "none", "all trials", range(10)),
        (axes[1], "paired-t p<=0.05", "t-test p <= 0.05 on set 1", range(8)),
    )
    for ax, f, title, bins in panels:  # the bins the book's Figures 2-4 show
        fit = growth if f == "none" else ts.growth_fit(swap, filter=f, kind="relative", at=growth.at)
        plots.plot_error_rates(swap, filter=f, kind="relative", bins=bins, fit=fit, at=growth.at, ax=ax)
        ax.set_title(title)
    fig.suptitle(f"Swap experiment: {swap.B} repetitions per size, disjoint topic sets")
    return fig


def _fig_std(rep: Report):
    fig, axes = plots.panels(1, 2, height=3.8)
    m = escape.shorten(rep.measure)
    x, y = rep.scores.mean(), rep.standardized.mean(axis=1)
    plots.plot_scatter(x, y, xlabel=f"mean {m}", ylabel=f"mean standardized {m}", ax=axes[0])
    axes[0].set_title("Raw vs standardized means")
    plots.plot_false_positives({f: r.summary() for f, r in rep.halves.items()}, ax=axes[1])
    axes[1].set(
        ylabel="share of runs significantly\ndifferent from themselves",
        title=f"Random topic halves ({rep.settings.B_halves} partitions)",
    )
    return fig


def _template():
    import jinja2

    loader = jinja2.PackageLoader("irrepro", "templates")
    # StrictUndefined: a name the template needs and the page lacks fails
    env = jinja2.Environment(
        loader=loader, autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    env.filters["name"] = escape.html_name  # shortened beyond MAX_NAME, the full name as tooltip
    env.filters["short"] = lambda v: escape.html(escape.shorten(v))
    return env.get_template("report.html.j2")


def _design_context(rep: Report) -> dict:
    """The template's values of the section "How many topics would this need?"."""
    out = {"design_min_diff": DESIGN_MIN_DIFF, "design_power": DESIGN_POWER, "design_alpha": DESIGN_ALPHA,
           "design_table": "", "design_ve": "", "design_t": "", "design_missing": ""}  # fmt: skip
    if rep.design is None:
        return out
    d = rep.design
    x, col = rep.scores.scores, {t: j for j, t in enumerate(rep.scores.topics)}
    row = {r: i for i, r in enumerate(rep.scores.systems)}
    cells = [
        (row[r], col[t]) for r, ts in rep.coverage["missing"].items() for t in ts if t in col and r in row
    ]
    if cells:  # the sizes are those of irrepro design on the same runs: one matrix, stated
        from markupsafe import Markup

        i, j = np.array(cells).T
        out["design_missing"] = Markup(  # numbers only: no name of the user's
            f"Runs that miss topics: {missing_scored(x[i, j], len(set(i.tolist())))}; V<sub>E</sub> and "
            "the sizes are from these scores, as <code>irrepro design</code> computes them (its intervals "
            "draw their bootstrap samples from another seed stream than the report's, so they may differ "
            "within their Monte Carlo error)."
        )

    def size(n) -> str:
        return "more than 1,000,000" if n < 0 else f"{n:,}"

    shown = pd.DataFrame({
        "method": d["method"], "topics needed": [size(n) for n in d["topics"]],
        "95% interval": [f"{size(lo)} - {size(hi)}" for lo, hi in zip(d["low"], d["high"])]
    })  # fmt: skip
    out.update(design_table=_table(shown), design_ve=f"{float(d['V_E'].iloc[0]):.3g}",
               design_t=int(d.loc[d["method"] == "paired t-test", "topics"].iloc[0]))  # fmt: skip
    return out


#: Why a pair's d_z has no BCa interval when its runs' scores differ (the jackknife's d_z is 0 / 0).
_NO_DZ_INTERVAL = (
    "their differences are equal on all topics but at most one (the standard deviation of the differences "
    "is 0 on every topic or with one left out, the jackknife's)"
)


def _render(rep: Report, summ: dict, runs: pd.DataFrame, methods: str = "") -> str:
    """The report's HTML page (template ``report.html.j2``); ``methods`` the methods paragraph's HTML."""
    import matplotlib
    from markupsafe import Markup

    matplotlib.use("Agg", force=False)
    S, T = rep.scores.shape
    shown = rep.pairs
    pairs_note = ""
    if len(shown) > MAX_PAIRS_SHOWN:
        rank = {r: k for k, r in enumerate(runs["run"])}
        adj = (shown["run x"].map(rank) - shown["run y"].map(rank)).abs() == 1
        shown = shown[adj]
        pairs_note = (
            f"{len(rep.pairs)} pairs: only the {len(shown)} pairs of runs adjacent in the ranking are listed;"
        )
    shown = shown.sort_values("ASL", kind="stable").copy()
    for col in [c for c in ("ASL", "ASL (Holm)", "ASL (BH)") if c in shown]:
        if rep.test == "bootstrap":  # no replicate as extreme: below 1/B, not 0
            shown[col] = [f"< {1 / rep.B_pairs:g}" if v == 0 else f"{v:.4f}" for v in shown[col]]
        else:
            shown[col] = ["-" if np.isnan(v) else "< 0.0001" if v < 1e-4 else f"{v:.4f}" for v in shown[col]]
    pairs_undefined = ""
    for col, label, what, other in (
        ("ASL", "ASL", "no test", UNDEFINED),
        ("effect size d_z", "d_z", "no effect size", UNDEFINED),
        ("d_z 95% CI low", "d_z 95% CI", "no interval", _NO_DZ_INTERVAL),
    ):
        none = rep.pair_index()[np.isnan(rep.pairs[col].to_numpy())]
        if len(none):  # no answer for these pairs ("-"): why, never "nan"
            x = rep.scores.scores
            why = list(dict.fromkeys(no_pair_variance(x, int(i), int(j), rep.runs) or other for i, j in none))
            n = len(none)
            pairs_undefined += f" {label} -: {what} for {n} pair{'s' if n > 1 else ''}: {few(why, 3, '; ')}."
    pairs_undefined = pairs_undefined.strip()
    cov = rep.coverage[(rep.coverage["missing"].map(len) > 0) | (rep.coverage["ignored"].map(len) > 0)]
    cov_table = pd.DataFrame({
        "run": cov.index, f"topics retrieved (of {T})": cov["retrieved"].to_numpy(),
        "qrels topics missing (scored 0)": cov["missing"].map(len).to_numpy(),
        "missing, ids": cov["missing"].map(few).to_numpy(),
        "run topics not in the qrels (ignored)": cov["ignored"].map(len).to_numpy(),
        "ignored, ids": cov["ignored"].map(few).to_numpy()
    })  # fmt: skip
    first = rep.growth.first_reliable() if rep.growth is not None else None
    errors = _error_table(rep).rename_axis("relative difference on set 1") if rep.swap is not None else None
    labels = _labels(rep)
    baseline = escape.html_name(rep.baseline, label=labels.get(rep.baseline)) if rep.baseline else ""
    against = Markup(" against the baseline ") + baseline if rep.baseline else Markup("")

    def caption(text: str):
        return escape.html(f"{text} {rep.test_label}") + against

    context = {
        "rep": rep,
        "summ": summ,
        "baseline": baseline,
        "S": S,
        "T": T,
        "written": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "simulated_warning": _SIMULATED.format(qrels=rep.qrels) if rep.simulated else "",
        "averaging": AVERAGING.format(T=T),
        "summary_table": _table(_summary_frame(summ)),
        "no_relevant": int(np.sum(rep.n_relevant < 1)),
        "coverage_table": _table(cov_table, scroll=len(cov_table) > 30, labels=labels)
        if len(cov_table)
        else "",
        "n_coverage": len(cov_table),
        "runs_table": _table(runs, scroll=True, caption=caption("Runs; significance by the"), labels=labels),
        "fig_scores": _png(_fig_scores(rep)),
        "fig_asl": _png(_fig_asl(rep)),
        "fig_corpus": _png(_fig_corpus(rep)),
        "fig_split": _png(_fig_split(rep)) if rep.swap is not None else "",
        "fig_std": _png(_fig_std(rep)),
        "power": 100 * rep.discriminative_power(),
        "B_pairs": f"{rep.B_pairs:,}",
        "B_note": _pairs_resamples(len(rep.runs), rep.baseline, rep.test, rep.settings.B_tests)[1],
        "pairs_note": pairs_note,
        "pairs_undefined": pairs_undefined,
        "pairs_table": _table(
            shown, scroll=len(shown) > 30, labels=labels, caption=caption("Pairs of runs,")
        ),
        "error_table": _table(errors.reset_index(), digits=3) if errors is not None else "",
        "first_reliable": first or "none",
        "num": _num,
        "hr": rep.halves["raw"].summary(),
        "hs": rep.halves["standardized"].summary(),
        "pct": _pct,
        "timings": ", ".join(f"{k} {v:.1f} s" for k, v in rep.timings.items()),
        **_design_context(rep),
        "methods": Markup(methods),  # its names escaped by irrepro.escape.html
    }
    return _template().render(**context)


#: Pairs of runs tested per task (at most ``_PAIR_CELLS`` replicates): memory does not grow with the pairs.
_PAIR_BLOCK = 512
_PAIR_CELLS = 512 * 10_000
#: Corpus bootstrap, per block of runs: at most this many ranked lists and dense cells.
_CORPUS_LISTS = 800
_CORPUS_CELLS = 1 << 22
#: Pairs of runs per vectorised step of the swap experiment (its ``chunk``): about 5 MB per worker.
_SWAP_CHUNK = 500


def _design(scores: ScoreMatrix, B: int, seed) -> tuple[pd.DataFrame | None, str]:
    """Sakai's three topic-set sizes with the report's runs as the pilot, or None and the reason."""
    from .. import design

    try:
        table = design.topic_set_sizes(scores, min_diff=DESIGN_MIN_DIFF, alpha=DESIGN_ALPHA, power=DESIGN_POWER,
                                       systems=max(2, scores.shape[0]), B=B, seed=seed)  # fmt: skip
    except InputError as e:
        return None, f"Left out: {e}."
    return table, ""


def _pair_table(
    scores: ScoreMatrix, B: int, seed, n_jobs, progress, test: str = "bootstrap", baseline: str | None = None
) -> pd.DataFrame:
    """The pairs' tests as the report's table, by blocks of pairs (memory); Holm / BH but for Tukey HSD."""
    seed_test = None
    if test != "bootstrap":
        seed, seed_test = parallel.as_seed_sequence(seed).spawn(2)
    samples = bt.bootstrap_samples(scores.shape[1], B, seed=seed)
    S = scores.shape[0]
    pairs = (
        bt.all_pairs(S) if baseline is None else bt.baseline_pairs(S, list(scores.systems).index(baseline))
    )
    blocks = [pairs[b] for b in parallel._chunks(len(pairs), min(_PAIR_BLOCK, _PAIR_CELLS // B))]

    def block(p):
        res = significance.paired_bootstrap_test(scores, p, samples=samples, n_jobs=1)
        dz = significance.effect_sizes(scores, p, kind="d_z", samples=samples, n_jobs=1)  # BCa, same samples
        return res.difference, res.confidence_interval(0.95), res.effect_size, res.p, dz.low, dz.high

    parts = parallel.parallel_map(block, blocks, n_jobs=n_jobs, progress=progress and "bootstrap tests")
    obs, ci, es, asl, dz_low, dz_high = (np.concatenate(a) for a in zip(*parts))
    x = scores.scores
    es = np.where((x[pairs[:, 0]] == x[pairs[:, 1]]).all(axis=1), np.nan, es)  # d_z of identical runs: 0/0
    if test == "bootstrap":
        B_done = int(samples.shape[0])
        res = significance.PairwiseResult(
            "bootstrap",
            scores.measure,
            tuple(scores.systems),
            pairs,
            obs,
            asl,
            asl.copy(),
            "none",
            x.shape[1],
            B_done,
        )
    else:
        res = significance.pairwise_test(
            scores, test, pairs, correction="none", B=B, seed=seed_test, n_jobs=n_jobs
        )
    # the difference, interval and d_z are the paired bootstrap's whatever the test
    res = replace(res, difference=obs, effect_size=es, interval=ci)
    frame = res.to_frame()[["system_x", "system_y", "difference", "ci_low", "ci_high", "effect_size", "p"]]
    frame.columns = ["run x", "run y", "difference", "95% CI low", "95% CI high", "effect size d_z", "ASL"]
    frame.insert(6, "d_z 95% CI low", dz_low)
    frame.insert(7, "d_z 95% CI high", dz_high)
    if test != "tukey":  # no answer (NaN): p = 1 in the family
        frame["ASL (Holm)"] = res.adjust("holm").p_adjusted
        frame["ASL (BH)"] = res.adjust("fdr_bh").p_adjusted
    return frame


def _run_blocks(lengths: np.ndarray) -> list[np.ndarray]:
    """Consecutive runs in blocks of at most ``_CORPUS_LISTS`` lists and ``_CORPUS_CELLS`` cells."""
    S, T = lengths.shape
    longest = lengths.max(axis=1, initial=0)  # a run as wide as its longest list, T lists deep
    blocks = parallel._chunks(S, _CORPUS_CELLS // max(T, 1), longest, most=_CORPUS_LISTS // max(T, 1))
    return [np.arange(S)[b] for b in blocks]


def _corpus_lists(runs: RunSet, rel: int) -> list[cb.Lists]:
    """Each block's compact lists for the corpus bootstrap, so that the runs can go before it starts."""
    blocks = _run_blocks(np.asarray(runs.lengths))
    return [_lists_of(runs.subset(runs=idx), rel) for idx in blocks]  # type: ignore[arg-type]  # (indices)


def _corpus_of(blocks: list[cb.Lists], runs, topics, B: int, seed, n_jobs, progress) -> cb.FullCorpus:
    """The corpus bootstrap with trec_eval -c's mean from the blocks' lists (block ``b``: seed's child ``b``)."""
    from tqdm import tqdm

    seeds = parallel.as_seed_sequence(seed).spawn(len(blocks))
    parts = []
    with tqdm(total=len(runs), desc="corpus bootstrap", unit="run", disable=not progress) as bar:
        for lists, ss in zip(blocks, seeds):
            parts.append(cb.full_corpus(lists, B=B, seed=ss, n_jobs=n_jobs, average="all"))
            bar.update(lists.shape[0])
    _release_tables()  # the Poisson tables: not needed by the rest of the report

    def cat(ivs):
        return replace(ivs[0], **{f.name: np.concatenate([getattr(v, f.name) for v in ivs])
                                  for f in fields(ivs[0]) if f.name != "method"})  # fmt: skip

    first = parts[0]
    return cb.FullCorpus(
        tuple(runs), tuple(topics),
        np.concatenate([p.ap for p in parts]), np.concatenate([p.usable for p in parts]),
        {k: cat([p.intervals[k] for p in parts]) for k in first.intervals},
        {k: cat([p.maps[k] for p in parts]) for k in first.maps},
        None
    )  # fmt: skip
