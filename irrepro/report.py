"""The four papers' analyses applied to any set of TREC runs, as one self-contained HTML report.

One-line use (or ``irrepro report RUNS_DIR --qrels QRELS`` from the shell)::

    from irrepro import data, report
    rep = report.analyse(data.load_runs("my-runs/", qrels="qrels.txt"), seed=1)
    rep.write("my-report/")             # my-report/index.html (+ the tables as CSV)

What it computes, each with the package function the book's chapter uses, at the papers' scale
(``IRREPRO_SCALE=quick`` for a fast look):

1. **Scores** - the chosen measure per run and topic (:func:`irrepro.measures.evaluate`, trec_eval
   semantics; default ``AP``) and its mean over the qrels' topics.
2. **Bootstrap tests** (Sakai 2006) - the paired bootstrap test of every pair of runs
   (:func:`irrepro.bootstrap_tests.paired_test`, B = 1000), with a percentile 95% interval of each
   difference and the ASLs adjusted for multiple comparisons by Holm and Benjamini-Hochberg
   (:func:`irrepro.bootstrap_tests.comparisons`); the ASL curve (Sakai's Figure 7) and the
   discriminative power.
3. **Corpus bootstrap** (Cormack & Lynam 2006) - 95% intervals of every run's MAP over materially
   similar corpora (:func:`irrepro.corpus_bootstrap.full_corpus`, B = 2000): the parametric MAP
   interval and the L-MAP bootstrap interval (the chapter's Figure 4). Always on AP, with binary
   relevance ``grade >= rel``, as the paper defines it.
4. **Topic split** (Sanderson & Zobel 2005) - the swap experiment on the runs' own topics
   (:func:`irrepro.topic_split.swap_experiment`, disjoint topic sets of 5 .. min(25, T/2) topics,
   50 repetitions): how often a difference of a given relative size on one topic set reverses on
   another, with and without a significant t-test, and the GROWTH projection to the full topic set.
5. **Standardization** (Webber, Moffat & Zobel 2008) - every topic standardized by the runs'
   own per-topic mean and sd (:func:`irrepro.standardize.standardize`): standardized mean per
   run, the ranking beside the raw one (Kendall's tau), and random topic halves
   (:func:`irrepro.standardize.partition_experiment`): dRMSE of run means between halves and the
   share of runs a t-test finds different from themselves, raw vs standardized.

Every random step draws from its own child of ``seed`` (:func:`irrepro.parallel.spawn`), so the
report is reproducible and independent of the number of workers.
"""

from __future__ import annotations

import base64
import html
import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import bootstrap_tests as bt
from . import corpus_bootstrap as cb
from . import parallel
from . import standardize as sz
from . import topic_split as ts
from .book import slug
from .data import RunSet, ScoreMatrix
from .measures import evaluate, parse_measure

__all__ = ["Report", "Settings", "settings", "analyse", "run"]

#: Above this many pairs the HTML lists only the pairs adjacent in the ranking (all are in the CSV).
MAX_PAIRS_SHOWN = 1000


@dataclass(frozen=True)
class Settings:
    """The sizes of the report's computations (the papers' values at ``scale="paper"``)."""

    B: int  # bootstrap samples of the paired tests (Sakai: 1000)
    n_boot: int  # corpus-bootstrap samples (Cormack & Lynam: 2000)
    repetitions: int  # swap-experiment repetitions per topic-set size (Sanderson & Zobel: 50)
    max_size: int  # largest topic-set size of the swap experiment (Sanderson & Zobel: 25)
    partitions: int  # random topic halves (Webber et al.: "multiple"; we use 1000)
    scale: str


def settings(scale: str | None = None) -> Settings:
    """The papers' sizes (``"paper"``, default from ``IRREPRO_SCALE``) or small ones (``"quick"``)."""
    scale = parallel.scale() if scale is None else scale
    if scale == "paper":
        return Settings(B=1000, n_boot=2000, repetitions=50, max_size=25, partitions=1000, scale=scale)
    if scale == "quick":
        return Settings(B=200, n_boot=200, repetitions=10, max_size=25, partitions=50, scale=scale)
    raise ValueError(f"scale must be 'paper' or 'quick', not {scale!r}")


@dataclass(frozen=True, eq=False)
class Report:
    """Everything the report shows; :meth:`write` renders it. Built by :func:`analyse`."""

    name: str
    qrels: str
    measure: str
    seed: int
    rel: int
    settings: Settings
    scores: ScoreMatrix
    n_relevant: np.ndarray  # (T,)
    tests: bt.PairwiseTest
    pairs: pd.DataFrame  # one row per pair (comparisons, Holm and BH)
    corpus: cb.FullCorpus
    swap: ts.SwapResult | None
    growth: ts.GrowthFit | None
    swap_note: str
    standardized: np.ndarray  # (S, T) Phi(z)
    halves: dict[str, sz.PartitionResult]
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def runs(self) -> tuple[str, ...]:
        return self.scores.systems

    def runs_table(self) -> pd.DataFrame:
        """One row per run, best mean first: mean score, MAP intervals, standardized mean, ranks,
        and how many runs it beats / loses to significantly (Holm-adjusted ASL < 0.05)."""
        mean = self.scores.mean()
        par = self.corpus.maps[("parametric", "MAP")]
        boot = self.corpus.maps[("bootstrap", "MAP")]
        std = self.standardized.mean(axis=1)
        sig = self.pairs["ASL (Holm)"].to_numpy() < 0.05
        wins = np.zeros(len(mean), dtype=int)
        losses = np.zeros(len(mean), dtype=int)
        d = self.pairs["difference"].to_numpy()
        i, j = self.tests.pairs[:, 0], self.tests.pairs[:, 1]
        np.add.at(wins, i[sig & (d > 0)], 1)
        np.add.at(wins, j[sig & (d < 0)], 1)
        np.add.at(losses, i[sig & (d < 0)], 1)
        np.add.at(losses, j[sig & (d > 0)], 1)
        m = self.measure
        frame = pd.DataFrame(
            {
                "run": self.runs,
                f"mean {m}": mean,
                "MAP": par.estimate,
                "MAP low (parametric)": par.lower,
                "MAP high (parametric)": par.upper,
                "MAP low (bootstrap)": boot.lower,
                "MAP high (bootstrap)": boot.upper,
                f"standardized {m}": std,
                f"rank by {m}": pd.Series(-mean).rank(method="min").astype(int).to_numpy(),
                "rank standardized": pd.Series(-std).rank(method="min").astype(int).to_numpy(),
                "significantly better than": wins,
                "significantly worse than": losses,
            }
        )
        return frame.sort_values(f"mean {m}", ascending=False, kind="stable").reset_index(drop=True)

    def summary(self) -> dict:
        """The headline numbers of the report."""
        S, T = self.scores.shape
        tau = float(bt.kendall_tau(self.scores.mean(), self.standardized.mean(axis=1)))
        out = {
            "runs": S,
            "topics": T,
            "pairs": len(self.pairs),
            "discriminative power (ASL < 0.05)": self.tests.discriminative_power(0.05),
            "significant pairs, Holm": int((self.pairs["ASL (Holm)"] < 0.05).sum()),
            "significant pairs, Benjamini-Hochberg": int((self.pairs["ASL (BH)"] < 0.05).sum()),
            "median width of the MAP interval (parametric)": float(
                np.nanmedian(self.corpus.maps[("parametric", "MAP")].width)
            ),
            "Kendall tau, raw vs standardized ranking": tau,
        }
        for form, res in self.halves.items():
            s = res.summary()
            out[f"dRMSE between random halves, {form}"] = s["dRMSE mean"]
            out[f"runs different from themselves, {form} (mean)"] = s["FP mean"]
        return out

    def to_html(self) -> str:
        """The report as one HTML document: figures embedded as PNG data, no external resource."""
        return _render(self, self.summary(), self.runs_table())

    def write(self, out: str | Path) -> Path:
        """Write ``index.html`` and the tables as CSV (summary, runs, pairs, per-topic scores, error
        rates) into ``out``; returns the path of ``index.html``. Each file is written whole
        (temporary name, then rename)."""
        from .data._fetch import atomic_write

        d = Path(out)
        summ, runs = self.summary(), self.runs_table()
        files = {
            "summary.csv": pd.DataFrame({"quantity": list(summ), "value": _formatted(summ)}).to_csv(index=False),
            "runs.csv": runs.to_csv(index=False),
            "pairs.csv": self.pairs.to_csv(index=False),
            f"{slug(self.measure) or 'scores'}-per-topic.csv": self.scores.to_frame().to_csv(),
        }
        if self.swap is not None:
            files["error-rates.csv"] = _error_table(self).to_csv()
        files["index.html"] = _render(self, summ, runs)
        for fname, text in files.items():
            atomic_write(d / fname, lambda tmp, text=text: tmp.write_text(text, encoding="utf-8"))
        return d / "index.html"


def _formatted(values: dict) -> list[str]:
    return [f"{v:,}" if isinstance(v, (int, np.integer)) else f"{v:.3f}" for v in values.values()]


def analyse(
    runs: RunSet,
    measure: str = "AP",
    *,
    seed: int = 0,
    rel: int = 1,
    scale: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    qrels_label: str = "",
) -> Report:
    """Apply the four papers' analyses to ``runs`` (module docstring) and return a :class:`Report`.

    ``measure`` is any measure of :mod:`irrepro.measures` (the corpus bootstrap is on AP whatever
    it is); ``rel`` the lowest relevant grade; ``seed`` an int (shown in the report). Needs at
    least 3 runs and 4 topics; the topic-split analysis needs 10 topics (two disjoint sets of 5)
    and is left out, with the reason in the report, below that.
    """
    from tqdm import tqdm

    if not isinstance(runs, RunSet):
        raise TypeError(f"analyse takes a RunSet (irrepro.data.load_runs), not {type(runs).__name__}")
    parse_measure(measure)
    S, T = len(runs.runs), len(runs.topics)
    if S < 3:
        raise ValueError(f"the report compares runs: need at least 3 runs, got {S}")
    if T < 4:
        raise ValueError(f"need at least 4 topics with judgments, got {T}")
    if not isinstance(seed, (int, np.integer)):
        raise TypeError("seed must be an int (it is printed in the report)")
    st = settings(scale)
    rng_tests, rng_corpus, rng_swap, rng_halves = parallel.as_seed_sequence(int(seed)).spawn(4)
    timings: dict[str, float] = {}
    steps = ["scores", "bootstrap tests", "corpus bootstrap", "topic split", "standardization"]
    bar = tqdm(total=len(steps), desc="report", unit="analysis", disable=not progress)

    def step(name: str, fn: Callable):
        bar.set_postfix_str(name)
        t0 = time.perf_counter()
        out = fn()
        timings[name] = time.perf_counter() - t0
        bar.update()
        return out

    try:
        scores = step("scores", lambda: evaluate(runs, [measure], rel=rel)[measure])

        def tests():
            res = bt.paired_test(scores, B=st.B, seed=rng_tests, n_jobs=n_jobs)
            holm = pd.DataFrame(bt.comparisons(res, method="holm"))
            from statsmodels.stats.multitest import multipletests  # as comparisons() adjusts
            frame = pd.DataFrame(
                {
                    "run x": holm["system_x"],
                    "run y": holm["system_y"],
                    "difference": holm["difference"],
                    "95% CI low": holm["ci_low"],
                    "95% CI high": holm["ci_high"],
                    "effect size d_z": holm["effect_size"],
                    "ASL": holm["asl"],
                    "ASL (Holm)": holm["asl_adjusted"],
                    "ASL (BH)": multipletests(res.asl, method="fdr_bh")[1],
                }
            )
            return res, frame

        test, pairs = step("bootstrap tests", tests)
        corpus = step(
            "corpus bootstrap",
            lambda: cb.full_corpus(runs, n_boot=st.n_boot, seed=rng_corpus, rel=rel, n_jobs=n_jobs,
                                   progress="corpus bootstrap" if progress else False),
        )

        def split():
            top = min(st.max_size, T // 2)
            if top < 5:
                return None, None, (
                    f"Left out: the swap experiment needs two disjoint sets of at least 5 topics, "
                    f"and these runs have {T} topics."
                )
            sizes = list(range(5, top + 1)) if st.scale == "paper" else sorted({5, (5 + top) // 2, top})
            res = ts.swap_experiment(
                [scores], sizes=sizes, repetitions=st.repetitions, design="disjoint",
                filters=["none", "t p<=0.05"], seed=rng_swap, n_jobs=n_jobs,
                progress="swap experiment" if progress else False,
            )  # fmt: skip
            fit = ts.growth_fit(res, kind="relative", at=T)
            return res, fit, ""

        swap, growth, swap_note = step("topic split", split)

        def standardization():
            std = sz.standardize(scores)
            seed_halves = int(rng_halves.generate_state(1)[0])  # an int: both forms on the same halves
            halves = {
                "raw": sz.partition_experiment(scores.scores, st.partitions, seed=seed_halves, n_jobs=n_jobs),
                "standardized": sz.partition_experiment(std, st.partitions, seed=seed_halves, n_jobs=n_jobs),
            }
            return std, halves

        std, halves = step("standardization", standardization)
    finally:
        bar.close()
    return Report(
        name=runs.name,
        qrels=qrels_label or getattr(runs.qrels, "name", "") or "",
        measure=measure,
        seed=int(seed),
        rel=rel,
        settings=st,
        scores=scores,
        n_relevant=runs.n_relevant(rel),
        tests=test,
        pairs=pairs,
        corpus=corpus,
        swap=swap,
        growth=growth,
        swap_note=swap_note,
        standardized=std,
        halves=halves,
        timings=timings,
    )


def run(
    runs_dir: str | Path,
    qrels: str | Path,
    out: str | Path = "irrepro-report",
    measure: str = "AP",
    *,
    seed: int = 0,
    rel: int = 1,
    scale: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
) -> Path:
    """Load the runs of ``runs_dir`` (a directory of TREC run files) with ``qrels`` (a file or an
    ir_datasets id), :func:`analyse` them and write the report into ``out``; returns the path of
    its ``index.html``. What ``irrepro report`` does."""
    from . import data

    parse_measure(measure)  # bad arguments fail before the runs are read
    settings(scale)
    rs = data.load_runs(runs_dir, qrels=qrels, progress=progress)
    rep = analyse(rs, measure, seed=seed, rel=rel, scale=scale, n_jobs=n_jobs, progress=progress,
                  qrels_label=str(qrels))
    return rep.write(out)


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.7em; margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: .85em; margin: .8em 0; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: right; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
.scroll { max-height: 32em; overflow: auto; border: 1px solid #eee; }
figure { margin: 1em 0; } figcaption { font-size: .9em; color: #555; }
img { max-width: 100%; height: auto; }
.meta { color: #555; font-size: .9em; } .note { background: #f7f7fb; padding: .6em 1em; border-left: 3px solid #88a; }
code { background: #f4f4f4; padding: 0 .2em; }
"""


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(fig, caption: str, alt: str) -> str:
    return (f'<figure><img src="{_png(fig)}" alt="{html.escape(alt)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _table(frame: pd.DataFrame, digits: int = 4, index: bool = False, scroll: bool = False) -> str:
    out = frame.to_html(index=index, float_format=lambda v: f"{v:.{digits}f}", na_rep="-",
                        border=0, escape=True)
    return f'<div class="scroll">{out}</div>' if scroll else out


def _pct(x: float) -> str:
    return "-" if not np.isfinite(x) else f"{100 * x:.1f}%"


def _error_table(rep: Report) -> pd.DataFrame:
    """Error rate by relative-difference bin at the largest topic-set size, and projected to all
    topics, with and without a significant t-test (p <= 0.05) on set 1."""
    res, size = rep.swap, int(rep.swap.sizes[-1])
    cols = {}
    for f, lab in (("none", "all trials"), ("t p<=0.05", "t-test p<=0.05")):
        rates = res.error_rates(f, "relative")[size]
        cnt = res.counts(f, "relative")[size]
        cols[f"error at {size} topics, {lab}"] = rates.where(cnt > 0)
        cols[f"trials at {size} topics, {lab}"] = cnt
    fit = rep.growth
    cols[f"projected error at {fit.at} topics (GROWTH, all trials)"] = pd.Series(fit.projected, index=fit.labels)
    frame = pd.DataFrame(cols)
    keep = frame[[c for c in frame.columns if c.startswith("trials")]].sum(axis=1) > 0
    return frame[keep]


def _fig_scores(rep: Report):
    import matplotlib.pyplot as plt

    x = rep.scores.scores
    order_s = np.argsort(-x.mean(axis=1), kind="stable")
    order_t = np.argsort(-x.mean(axis=0), kind="stable")
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, min(8, 0.12 * len(order_s) + 1.5))))
    im = ax.imshow(x[order_s][:, order_t], cmap="gray", aspect="auto", vmin=0, vmax=max(1e-9, float(np.nanmax(x))))
    ax.set(xlabel="topic (easiest first)", ylabel=f"run (best mean {rep.measure} first)",
           title=f"{rep.measure} per run and topic")
    fig.colorbar(im, ax=ax, label=rep.measure)
    return fig


def _fig_asl(rep: Report):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    t = rep.tests
    ax = axes[0]
    ax.plot(np.arange(1, len(t.asl) + 1), t.asl_curve(), color="C0", label="ASL")
    ax.plot(np.arange(1, len(t.asl) + 1), np.sort(rep.pairs["ASL (Holm)"].to_numpy()), color="C3", label="Holm-adjusted")
    ax.plot(np.arange(1, len(t.asl) + 1), np.sort(rep.pairs["ASL (BH)"].to_numpy()), color="C2", label="BH-adjusted")
    ax.axhline(0.05, ls="--", color="grey", lw=1)
    ax.set(xlabel="run pairs sorted by ASL", ylabel="achieved significance level",
           title=f"ASL curve, paired bootstrap test (B = {t.B})")
    ax.legend(fontsize=8)
    # significance matrix: runs in order of mean score, sign of the difference where Holm-significant
    S = len(rep.runs)
    order = np.argsort(-rep.scores.mean(), kind="stable")
    pos = np.empty(S, dtype=int)
    pos[order] = np.arange(S)
    mat = np.full((S, S), np.nan)
    d = rep.pairs["difference"].to_numpy()
    sig = rep.pairs["ASL (Holm)"].to_numpy() < 0.05
    val = np.where(sig, np.sign(d), 0.0)
    i, j = t.pairs[:, 0], t.pairs[:, 1]
    mat[pos[i], pos[j]] = val
    mat[pos[j], pos[i]] = -val
    ax = axes[1]
    ax.imshow(mat, cmap="coolwarm_r", vmin=-1.5, vmax=1.5, interpolation="nearest")
    ax.set(xlabel="run (rank)", ylabel="run (rank)",
           title="Holm-significant differences\n(blue: row better, red: row worse, grey: not significant)")
    if S <= 30:
        labels = [rep.runs[k] for k in order]
        ax.set_xticks(range(S), labels, rotation=90, fontsize=6)
        ax.set_yticks(range(S), labels, fontsize=6)
    fig.tight_layout()
    return fig


def _fig_corpus(rep: Report):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    cb.plot_run_intervals(axes[0], rep.corpus.maps[("parametric", "MAP")], title="MAP, parametric")
    cb.plot_run_intervals(axes[1], rep.corpus.maps[("bootstrap", "L-MAP")], title="L-MAP, bootstrap",
                          transform=cb.expit)
    axes[0].set_ylabel("MAP")
    axes[1].set_ylabel("expit(L-MAP)")
    fig.suptitle(f"Corpus-bootstrap 95% intervals of every run (B = {rep.settings.n_boot})")
    fig.tight_layout()
    return fig


def _fig_split(rep: Report):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    panels = ((axes[0], "none", "all trials", range(10)), (axes[1], "t p<=0.05", "t-test p <= 0.05 on set 1", range(8)))
    for ax, f, title, bins in panels:  # the bins the book's Figures 2-4 show
        fit = rep.growth if f == "none" else ts.growth_fit(rep.swap, filter=f, kind="relative", at=rep.growth.at)
        ts.plot_error_rates(rep.swap, filter=f, kind="relative", bins=bins, fit=fit, at=rep.growth.at, ax=ax)
        ax.set_title(title)
    fig.suptitle(f"Swap experiment: {rep.swap.repetitions} repetitions per size, disjoint topic sets")
    fig.tight_layout()
    return fig


def _fig_std(rep: Report):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    raw, std = rep.scores.mean(), rep.standardized.mean(axis=1)
    ax = axes[0]
    ax.scatter(raw, std, s=14, color="C0")
    ax.set(xlabel=f"mean {rep.measure}", ylabel=f"mean standardized {rep.measure}",
           title="Raw vs standardized means")
    ax = axes[1]
    forms = list(rep.halves)
    summ = [rep.halves[f].summary() for f in forms]
    xs = np.arange(len(forms))
    ax.bar(xs - 0.2, [s["FP mean"] for s in summ], width=0.4, color="C0", label="mean over partitions")
    ax.bar(xs + 0.2, [s["FP high"] for s in summ], width=0.4, color="C1", label="upper end of 95% range")
    ax.set_xticks(xs, forms)
    ax.axhline(0.05, color="k", lw=0.8, ls="--")
    ax.set(ylabel="share of runs significantly\ndifferent from themselves",
           title=f"Random topic halves ({rep.settings.partitions} partitions)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _render(rep: Report, summ: dict, runs: pd.DataFrame) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    S, T = rep.scores.shape
    st = rep.settings
    m = rep.measure
    esc = html.escape
    parts: list[str] = []
    add = parts.append
    # an empty inline icon: the page asks nothing of any server, not even /favicon.ico
    add("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><link rel='icon' href='data:,'>")
    add(f"<title>irrepro report: {esc(rep.name)}</title><style>{_CSS}</style></head><body>")
    add(f"<h1>irrepro report: {esc(rep.name)}</h1>")
    add(
        f"<p class='meta'>{S} runs x {T} topics; qrels <code>{esc(rep.qrels)}</code>; relevant: grade &ge; "
        f"{rep.rel}; measure <b>{esc(m)}</b>; seed {rep.seed}; scale {esc(st.scale)} (paired-test B = {st.B}, "
        f"corpus bootstrap B = {st.n_boot}, swap repetitions = {st.repetitions}, random halves = "
        f"{st.partitions}). Written by irrepro on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.</p>"
    )
    add("<h2>Summary</h2>")
    add(_table(pd.DataFrame({"quantity": list(summ), "value": _formatted(summ)})))
    lowR = int(np.sum(rep.n_relevant < 1))
    if lowR:
        add(f"<p class='note'>{lowR} topic(s) have no relevant document at grade &ge; {rep.rel}; they count "
            f"as 0 in every mean (trec_eval -c) and carry no information.</p>")

    add("<h2>1. Scores</h2>")
    add(_figure(_fig_scores(rep), f"{m} of every run on every topic, runs and topics sorted by mean.",
                f"heat map of {m} per run and topic"))
    add(f"<h3>Runs</h3><p>Best mean {esc(m)} first. MAP intervals are the corpus bootstrap's (section 3); "
        "&lsquo;significantly better/worse than&rsquo; counts Holm-adjusted paired bootstrap tests at 0.05 "
        "(section 2).</p>")
    add(_table(runs, scroll=len(runs) > 30))

    # --- bootstrap tests
    t = rep.tests
    n_holm = summ["significant pairs, Holm"]
    add("<h2>2. Paired bootstrap tests (Sakai 2006)</h2>")
    add(
        f"<p>Every pair of runs is tested with the studentised paired bootstrap test on the {T} topics "
        f"(B = {t.B}, one set of bootstrap topic samples for all pairs). {100 * t.discriminative_power():.1f}% "
        f"of the {len(rep.pairs)} pairs have ASL &lt; 0.05 (the discriminative power of {esc(m)} on these "
        f"runs); after Holm's adjustment for {len(rep.pairs)} comparisons {n_holm} pairs remain "
        f"significant, after Benjamini-Hochberg {summ['significant pairs, Benjamini-Hochberg']}. Intervals are "
        "percentile bootstrap intervals of the difference in mean.</p>"
    )
    add(_figure(_fig_asl(rep), "Left: the ASL curve (Sakai's Figure 7), raw and adjusted. Right: which pairs differ.",
                "ASL curve and significance matrix"))
    shown = rep.pairs
    note = ""
    if len(shown) > MAX_PAIRS_SHOWN:
        rank = {r: k for k, r in enumerate(runs["run"])}
        adj = (shown["run x"].map(rank) - shown["run y"].map(rank)).abs() == 1
        shown = shown[adj]
        note = (f"<p class='note'>{len(rep.pairs)} pairs: only the {len(shown)} pairs of runs adjacent in the "
                "ranking are listed; <a href='pairs.csv'>pairs.csv</a> has all.</p>")
    add(note)
    shown = shown.sort_values("ASL", kind="stable").copy()
    for col in ("ASL", "ASL (Holm)", "ASL (BH)"):  # no replicate as extreme: below 1/B, not 0
        shown[col] = [f"< {1 / t.B:g}" if v == 0 else f"{v:.4f}" for v in shown[col]]
    add(_table(shown, scroll=len(shown) > 30))

    # --- corpus bootstrap
    par = rep.corpus.maps[("parametric", "MAP")]
    add("<h2>3. Corpus-bootstrap intervals (Cormack &amp; Lynam 2006)</h2>")
    add(
        f"<p>How much would each run's MAP change on another, materially similar corpus? Every document is "
        f"replicated Poisson(1) times, B = {st.n_boot} times per ranked list; the interval of MAP combines "
        f"the per-topic logit intervals (parametric, with the small-R correction) and the L-MAP interval is "
        f"the bootstrap's. Median width of the MAP interval: {np.nanmedian(par.width):.3f}. Binary relevance "
        f"(grade &ge; {rep.rel}) and AP, whatever the report's measure, as in the paper.</p>"
    )
    add(_figure(_fig_corpus(rep), "Each run's MAP (x) with its 95% interval, runs sorted by MAP.",
                "corpus bootstrap intervals of MAP per run"))

    # --- topic split
    add("<h2>4. Topic-split error rates (Sanderson &amp; Zobel 2005)</h2>")
    if rep.swap is None:
        add(f"<p class='note'>{esc(rep.swap_note)}</p>")
    else:
        sw = rep.swap
        add(
            f"<p>The topics are split {sw.repetitions} times into two disjoint sets of n = {sw.sizes[0]} .. "
            f"{sw.sizes[-1]} topics; for every pair of runs, a trial is an error when the order of their mean "
            f"{esc(m)} on set 2 reverses the order on set 1. Trials are binned by the relative difference on "
            f"set 1. Dashed lines: the exponential (GROWTH) fit projected to all {T} topics. Right: only the "
            "trials whose paired t-test on set 1 gave p &le; 0.05.</p>"
        )
        add(_figure(_fig_split(rep), "Error rate against topic-set size per relative-difference bin; dotted line: 5%.",
                    "swap experiment error rates"))
        first = rep.growth.first_reliable()
        add(f"<p>Smallest relative-difference bin whose projected error at {T} topics is below 5%: "
            f"<b>{esc(first) if first else 'none'}</b>.</p>")
        add(_table(_error_table(rep).rename_axis("relative difference on set 1").reset_index(), digits=3))

    # --- standardization
    tau = summ["Kendall tau, raw vs standardized ranking"]
    hr, hs = rep.halves["raw"].summary(), rep.halves["standardized"].summary()
    add("<h2>5. Standardized scores (Webber, Moffat &amp; Zobel 2008)</h2>")
    add(
        f"<p>Each topic's scores are standardized by the mean and sd of these runs on it, z = (x - &mu;)/&sigma;, "
        f"and mapped through the normal CDF. Kendall's tau between the rankings by raw and standardized mean: "
        f"{tau:.3f}. Over {st.partitions} random halves of the topics, the dRMSE of run means between the "
        f"halves, normalized by the spread of the run means (lower: the halves agree better), is "
        f"{hr['dRMSE mean']:.3f} raw and {hs['dRMSE mean']:.3f} standardized, and on average {_pct(hr['FP mean'])} (raw) vs "
        f"{_pct(hs['FP mean'])} (standardized) of the runs are found significantly different from themselves "
        f"by a two-sample t-test (upper end of the 95% range: {_pct(hr['FP high'])} vs {_pct(hs['FP high'])}; "
        "nominal 5%).</p>"
    )
    add(_figure(_fig_std(rep), "Left: raw against standardized means. Right: false positives over random halves.",
                "standardized scores"))

    tm = ", ".join(f"{k} {v:.1f} s" for k, v in rep.timings.items())
    add(f"<h2>Reproducing this report</h2><p class='meta'>Computed in: {esc(tm)}. "
        f"<code>irrepro report RUNS_DIR --qrels {esc(rep.qrels)} -m {esc(m)} --seed {rep.seed}</code> "
        f"(IRREPRO_SCALE={esc(st.scale)}) gives the same numbers. Tables as CSV: <a href='runs.csv'>runs.csv</a>, "
        "<a href='pairs.csv'>pairs.csv</a>"
        + (", <a href='error-rates.csv'>error-rates.csv</a>" if rep.swap is not None else "")
        + ".</p>")
    add("</body></html>")
    return "\n".join(parts)
