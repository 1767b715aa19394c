"""The report's page: figures (:mod:`irrepro.plots`), tables and the HTML of the jinja2 template
``irrepro/templates/report.html.j2``."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from .. import escape, plots
from .. import topic_split as ts
from .._text import UNDEFINED, few, missing_scored, no_pair_variance
from ..stats import expit

if TYPE_CHECKING:
    from .. import corpus_bootstrap as cb
    from .. import standardize as sz
    from ..data import ScoreMatrix


class ReportLike(Protocol):
    """What the page reads of a Report (named here: the report imports this module)."""

    @property
    def qrels(self) -> str: ...

    @property
    def measure(self) -> str: ...

    @property
    def settings(self) -> Any: ...  # the report's Settings

    @property
    def B_pairs(self) -> int | None: ...  # the pairwise tests' resamples (None: settings.B_tests)

    @property
    def scores(self) -> ScoreMatrix: ...

    @property
    def n_relevant(self) -> np.ndarray: ...

    @property
    def pairs(self) -> pd.DataFrame: ...

    @property
    def corpus(self) -> cb.FullCorpus: ...

    @property
    def swap(self) -> ts.SwapExperiment | None: ...

    @property
    def growth(self) -> ts.GrowthFit | None: ...

    @property
    def standardized(self) -> np.ndarray: ...

    @property
    def halves(self) -> dict[str, sz.PartitionResult]: ...

    @property
    def coverage(self) -> pd.DataFrame: ...

    @property
    def simulated(self) -> bool: ...

    @property
    def timings(self) -> dict[str, float]: ...

    @property
    def test(self) -> str: ...

    @property
    def baseline(self) -> str | None: ...

    @property
    def design(self) -> pd.DataFrame | None: ...

    @property
    def design_note(self) -> str: ...

    @property
    def runs(self) -> tuple[str, ...]: ...

    @property
    def test_label(self) -> str: ...

    @property
    def family_wise(self) -> str: ...

    def pair_index(self) -> np.ndarray: ...

    def discriminative_power(self, alpha: float = 0.05) -> float: ...


#: Above this many pairs the HTML lists only the pairs adjacent in the ranking (all are in the CSV).
MAX_PAIRS_SHOWN = 1000
#: What a mean is, everywhere in the report.
AVERAGING = (
    "Every mean on this page is over all {T} topics of the qrels, a topic a run retrieved nothing "
    "for counting as 0 (trec_eval -c); the corpus-bootstrap MAP intervals are of that same mean "
    "(a topic without a usable list - nothing retrieved, or no relevant document - adds a fixed AP "
    "of 0)."
)

_SIMULATED = (
    "computed on SIMULATED data: the qrels {qrels!r} are irrepro's simulated stand-in, not real "
    "relevance judgments (the real files could not be had, and --allow-simulated was given)"
)


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
    index: bool = False,
    scroll: bool = False,
    caption: str = "",
    names: tuple = (),
    labels: Mapping[str, str] | None = None,
) -> str:
    """``frame`` as an escaped HTML table, run names (columns ``names``) shortened, full in a tooltip."""
    from markupsafe import Markup

    shown = labels or {}

    def run(v):
        return escape.html_name(v, label=shown.get(v))

    out = frame.copy(deep=False)
    for k, col in enumerate(out.columns):
        if not pd.api.types.is_numeric_dtype(out.iloc[:, k]):  # object or str: cells of text
            cell = run if col in names else escape.html
            out.isetitem(k, out.iloc[:, k].map(lambda v, cell=cell: cell(v) if isinstance(v, str) else v))
    out.columns = [escape.html(c) for c in out.columns]
    if index:
        out.index = out.index.map(escape.html)
    html = out.to_html(
        index=index, float_format=lambda v: f"{v:.{digits}f}", na_rep="-", border=0, escape=False
    )
    if caption:  # pandas' to_html has no caption: put one after the opening tag
        head, rest = html.split(">", 1)
        html = f"{head}>\n  <caption>{escape.html(caption)}</caption>{rest}"
    return Markup(f'<div class="scroll">{html}</div>' if scroll else html)


#: The columns of the report's tables that hold run names (shortened, with the full name as tooltip).
_NAMES = ("run", "run x", "run y")


def _pairs_B(rep: ReportLike) -> int:
    """The resamples of the report's pairwise tests."""
    return int(rep.B_pairs or rep.settings.B_tests)


def _labels(rep: ReportLike) -> dict[str, str]:
    """Run -> the label the page shows for it (``irrepro.escape.short_names``)."""
    return dict(zip(rep.runs, escape.short_names(rep.runs)))


def _run_name(rep: ReportLike, run: str):
    """A run's name in the page's HTML: its label (:func:`_labels`), the full name as tooltip."""
    return escape.html_name(run, label=_labels(rep).get(run))


def _against(rep: ReportLike):
    """ " against the baseline NAME" (HTML, the name shortened with its tooltip), or nothing."""
    from markupsafe import Markup

    return Markup(" against the baseline ") + _run_name(rep, rep.baseline) if rep.baseline else Markup("")


def _num(x) -> str:
    """A number of the page's prose with 3 decimals, or "undefined (REASON)", never "nan"."""
    if isinstance(x, str):
        return f"undefined ({x})"
    return f"{x:.3f}" if np.isfinite(x) else UNDEFINED


def _pct(x: float) -> str:
    return "-" if not np.isfinite(x) else f"{100 * x:.1f}%"


def _error_table(rep: ReportLike) -> pd.DataFrame:
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


def _fig_scores(rep: ReportLike):
    x = rep.scores.scores
    fig, ax = plots.panels(height=max(2.5, min(8, 0.12 * x.shape[0] + 1.5)))
    plots.plot_score_matrix(x, rep.measure, ax=ax)
    m = escape.mpl(escape.shorten(rep.measure))
    ax.set(ylabel=f"run (best mean {m} first)", title=f"{m} per run and topic")
    return fig


def _fig_asl(rep: ReportLike):
    fig, axes = plots.panels(2, 1, height=4.2)
    if rep.test == "tukey":
        curves = {"ASL (family-wise)": rep.pairs["ASL"].to_numpy()}
    else:
        curves = {
            name: rep.pairs[col].to_numpy()
            for name, col in (("ASL", "ASL"), ("Holm-adjusted", "ASL (Holm)"), ("BH-adjusted", "ASL (BH)"))
        }
    plots.plot_asl_curves(curves, ax=axes[0])
    B = f" (B = {_pairs_B(rep):,})" if rep.test in ("bootstrap", "permutation", "tukey") else ""
    axes[0].set(xlabel="run pairs sorted by ASL", title=f"ASL curve, {rep.test_label}{B}")
    # significance matrix: runs in order of mean score, sign of the difference where Holm-significant
    order = np.argsort(-rep.scores.mean(), kind="stable")
    plots.plot_significance_matrix(
        rep.pair_index(),
        rep.pairs["difference"].to_numpy(),
        rep.pairs[rep.family_wise].to_numpy() < 0.05,
        order,
        labels=rep.runs if len(rep.runs) <= 30 else None,
        ax=axes[1],
    )
    which = "Family-wise" if rep.test == "tukey" else "Holm-"
    axes[1].set(
        xlabel="run (rank)",
        ylabel="run (rank)",
        title=f"{which}significant differences\n(blue: row better, red: row worse, grey: not significant)",
    )
    return fig


def _fig_corpus(rep: ReportLike):
    n = len(rep.corpus.maps[("parametric", "MAP")].estimate)
    rows = max(1, -(-n // plots.corpus_bootstrap.RUNS_PER_PANEL))  # the runs in groups by rank
    fig, axes = plots.panels(rows, 2, height=1.9, squeeze=False)
    maps = rep.corpus.maps
    plots.plot_run_intervals(axes[:, 0], maps[("parametric", "MAP")], title="MAP, parametric", ylabel="MAP")
    plots.plot_run_intervals(
        axes[:, 1],
        maps[("bootstrap", "L-MAP")],
        title="L-MAP, bootstrap",
        transform=expit,
        ylabel="expit(L-MAP)",
    )
    fig.suptitle(f"Corpus-bootstrap 95% intervals of every run (B = {rep.settings.B_corpus})")
    return fig


def _fig_split(rep: ReportLike):
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


def _fig_std(rep: ReportLike):
    fig, axes = plots.panels(1, 2, height=3.8)
    m = escape.shorten(rep.measure)
    plots.plot_scatter(
        rep.scores.mean(),
        rep.standardized.mean(axis=1),
        xlabel=f"mean {m}",
        ylabel=f"mean standardized {m}",
        ax=axes[0],
    )
    axes[0].set_title("Raw vs standardized means")
    plots.plot_false_positives({f: r.summary() for f, r in rep.halves.items()}, ax=axes[1])
    axes[1].set(
        ylabel="share of runs significantly\ndifferent from themselves",
        title=f"Random topic halves ({rep.settings.B_halves} partitions)",
    )
    return fig


def _template():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("irrepro", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a name the template needs and the page lacks fails
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["name"] = (
        escape.html_name
    )  # a user's name: shortened beyond MAX_NAME, the full one as tooltip
    env.filters["short"] = lambda v: escape.html(escape.shorten(v))
    return env.get_template("report.html.j2")


def _design_context(rep: ReportLike) -> dict:
    """The template's values of the section "How many topics would this need?"."""
    from ._analyses import DESIGN_ALPHA, DESIGN_MIN_DIFF, DESIGN_POWER

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
        "95% interval": [f"{size(lo)} - {size(hi)}" for lo, hi in zip(d["low"], d["high"])],
    })  # fmt: skip
    out.update(design_table=_table(shown), design_ve=f"{float(d['V_E'].iloc[0]):.3g}",
               design_t=int(d.loc[d["method"] == "paired t-test", "topics"].iloc[0]))  # fmt: skip
    return out


def _render(rep: ReportLike, summ: dict, runs: pd.DataFrame, methods: str = "") -> str:
    """The report's HTML page (template ``report.html.j2``); ``methods`` the methods paragraph's HTML."""
    import matplotlib
    from markupsafe import Markup

    from ._analyses import _pairs_resamples

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
            shown[col] = [f"< {1 / _pairs_B(rep):g}" if v == 0 else f"{v:.4f}" for v in shown[col]]
        else:
            shown[col] = ["-" if np.isnan(v) else "< 0.0001" if v < 1e-4 else f"{v:.4f}" for v in shown[col]]
    pairs_undefined = ""
    for col, what in (("ASL", "no test"), ("effect size d_z", "no effect size")):
        none = rep.pair_index()[np.isnan(rep.pairs[col].to_numpy())]
        if len(none):  # no answer for these pairs ("-"): why, never "nan"
            x = rep.scores.scores
            why = list(
                dict.fromkeys(no_pair_variance(x, int(i), int(j), rep.runs) or UNDEFINED for i, j in none)
            )
            pairs_undefined += (
                f" {col.split()[-1]} -: {what} for {len(none)} pair{'s' if len(none) > 1 else ''}: "
                + "; ".join(why[:3])
                + ("; ..." if len(why) > 3 else "")
                + "."
            )
    pairs_undefined = pairs_undefined.strip()
    cov = rep.coverage[(rep.coverage["missing"].map(len) > 0) | (rep.coverage["ignored"].map(len) > 0)]
    cov_table = pd.DataFrame({
        "run": cov.index, f"topics retrieved (of {T})": cov["retrieved"].to_numpy(),
        "qrels topics missing (scored 0)": cov["missing"].map(len).to_numpy(),
        "missing, ids": cov["missing"].map(few).to_numpy(),
        "run topics not in the qrels (ignored)": cov["ignored"].map(len).to_numpy(),
        "ignored, ids": cov["ignored"].map(few).to_numpy(),
    })  # fmt: skip
    first = rep.growth.first_reliable() if rep.growth is not None else None
    labels = _labels(rep)
    context = {
        "rep": rep,
        "baseline": _run_name(rep, rep.baseline) if rep.baseline else "",
        "S": S,
        "T": T,
        "m": rep.measure,
        "st": rep.settings,
        "written": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "simulated_warning": _SIMULATED.format(qrels=rep.qrels) if rep.simulated else "",
        "averaging": AVERAGING.format(T=T),
        "summary_table": _table(_summary_frame(summ)),
        "no_relevant": int(np.sum(rep.n_relevant < 1)),
        "coverage_table": _table(cov_table, scroll=len(cov_table) > 30, names=_NAMES, labels=labels)
        if len(cov_table)
        else "",
        "n_coverage": len(cov_table),
        "runs_table": _table(
            runs,
            scroll=True,
            caption=escape.html(f"Runs; significance by the {rep.test_label}") + _against(rep),
            names=_NAMES,
            labels=labels,
        ),  # wide: scrolls
        "fig_scores": _png(_fig_scores(rep)),
        "fig_asl": _png(_fig_asl(rep)),
        "fig_corpus": _png(_fig_corpus(rep)),
        "fig_split": _png(_fig_split(rep)) if rep.swap is not None else "",
        "fig_std": _png(_fig_std(rep)),
        "power": 100 * rep.discriminative_power(),
        "n_pairs": len(rep.pairs),
        "n_holm": summ.get("significant pairs, Holm", 0),
        "n_bh": summ.get("significant pairs, Benjamini-Hochberg", 0),
        "n_fw": summ.get("significant pairs, family-wise (randomised Tukey HSD)", 0),
        "test_label": rep.test_label,
        "B_pairs": f"{_pairs_B(rep):,}",
        "B_note": _pairs_resamples(len(rep.runs), rep.baseline, rep.test, rep.settings.B_tests)[1],
        "pairs_note": pairs_note,
        "pairs_undefined": pairs_undefined,
        "pairs_table": _table(
            shown,
            scroll=len(shown) > 30,
            names=_NAMES,
            labels=labels,
            caption=escape.html(f"Pairs of runs, {rep.test_label}") + _against(rep),
        ),
        "map_width": float(np.nanmedian(rep.corpus.maps[("parametric", "MAP")].width)),
        "error_table": (
            _table(_error_table(rep).rename_axis("relative difference on set 1").reset_index(), digits=3)
            if rep.swap is not None
            else ""
        ),
        "first_reliable": first or "none",
        "tau": summ["Kendall tau, raw vs standardized ranking"],
        "drmse_raw": summ["dRMSE between random halves, raw"],
        "drmse_std": summ["dRMSE between random halves, standardized"],
        "num": _num,
        "hr": rep.halves["raw"].summary(),
        "hs": rep.halves["standardized"].summary(),
        "pct": _pct,
        "timings": ", ".join(f"{k} {v:.1f} s" for k, v in rep.timings.items()),
        **_design_context(rep),
        "methods": Markup(methods),  # its names escaped by irrepro.escape.html
    }
    return _template().render(**context)
