"""The four papers' analyses applied to any set of TREC runs, as one self-contained HTML report.

One-line use (or ``irrepro report RUNS_DIR --qrels QRELS`` from the shell)::

    from irrepro import report
    inp = report.load("my-runs/", "qrels.txt")     # real qrels or an error; coverage checked
    rep = report.analyse(inp.runset, seed=1)
    rep.write("my-report/")             # my-report/index.html (+ the tables as CSV)

What it computes, each with the package function the book's chapter uses, at the papers' scale
(``scale="quick"``, ``--scale quick`` or ``IRREPRO_SCALE=quick`` on the command line, for a fast look):

1. **Scores** - the chosen measure per run and topic (:func:`irrepro.measures.evaluate`, trec_eval
   semantics; default ``AP``) and its mean over the qrels' topics, with each run's coverage of
   them (:meth:`irrepro.data.RunSet.coverage`).
2. **Bootstrap tests** (Sakai 2006) - the paired bootstrap test of every pair of runs
   (:func:`irrepro.significance.paired_bootstrap_test`, B = 1000), with a percentile 95% interval of each
   difference and the ASLs adjusted for multiple comparisons by Holm and Benjamini-Hochberg
   (:func:`irrepro.bootstrap_tests.comparisons`); the ASL curve (Sakai's Figure 7) and the
   discriminative power.
3. **Corpus bootstrap** (Cormack & Lynam 2006) - 95% intervals of every run's MAP over materially
   similar corpora (:func:`irrepro.corpus_bootstrap.full_corpus`, B = 2000): the parametric MAP
   interval and the L-MAP bootstrap interval (the chapter's Figure 4). Always on AP, with binary
   relevance ``grade >= rel``, as the paper defines it; run by blocks of runs (memory).
4. **Topic split** (Sanderson & Zobel 2005) - the swap experiment on the runs' own topics
   (:func:`irrepro.topic_split.swap_experiment`, disjoint topic sets of 5 .. min(25, T/2) topics,
   50 repetitions): how often a difference of a given relative size on one topic set reverses on
   another, with and without a significant t-test, and the GROWTH projection to the full topic set.
5. **Standardization** (Webber, Moffat & Zobel 2008) - every topic standardized by the runs'
   own per-topic mean and sd (:func:`irrepro.standardize.standardize`): standardized mean per
   run, the ranking beside the raw one (Kendall's tau), and random topic halves
   (:func:`irrepro.standardize.partition_experiment`): dRMSE of run means between halves and the
   share of runs a t-test finds different from themselves, raw vs standardized.

**One mean.** Every mean of the report is trec_eval -c's: over all the qrels' topics, a topic a
run lacks scoring 0 - also MAP and its corpus-bootstrap intervals (``average="all"``: a topic
without a usable list adds a fixed AP of 0, where the paper averages over usable lists only).

Every random step draws from its own child of ``seed`` (:func:`irrepro.parallel.spawn`), so the
report is reproducible and independent of the number of workers.

The runs are read by ``irrepro._report_inputs`` (:func:`load`, served from here, through
:func:`irrepro.data.load_runs`) and the page is drawn by ``irrepro._report_page`` (figures from :mod:`irrepro.plots`, HTML
from the jinja2 template ``irrepro/templates/report.html.j2``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import corpus_bootstrap as cb
from . import parallel, significance
from . import standardize as sz
from . import topic_split as ts
from ._deprecation import renamed_arguments, renamed_attribute

# the analyses' blocks of pairs and of runs (memory bounded whatever the number of runs)
from ._report_analyses import _corpus, _pair_table, _run_blocks  # noqa: F401

# the user's runs (loading) and the page (figures, tables, HTML) live in two modules of their own;
# Inputs, load, MAX_PAIRS_SHOWN, AVERAGING and _template are served from here
from ._report_inputs import Inputs, load

# --out: what irrepro may write, replace and remove there (the manifest in .irrepro-report)
from ._report_out import MARKER, REPORT_FILES, check_out, write_dir
from ._report_page import (  # noqa: F401
    _SIMULATED,
    AVERAGING,
    MAX_PAIRS_SHOWN,
    _error_table,
    _formatted,
    _render,
    _template,
)
from ._text import UNDEFINED, no_variance, slug
from .data import DataError, RunSet, ScoreMatrix
from .errors import InputError, InputTypeError
from .escape import to_csv
from .measures import evaluate, parse_measure
from .stats import kendall_tau

__all__ = ["Report", "Settings", "settings", "analyse", "run", "Inputs", "load", "check_out", "MARKER"]

@dataclass(frozen=True)
class Settings:
    """The sizes of the report's computations (the papers' values at ``scale="paper"``): the
    number of resamples ``B`` of each analysis (issue 14's one vocabulary)."""

    B_tests: int  # bootstrap samples of the paired tests (Sakai: B = 1000)
    B_corpus: int  # corpus-bootstrap samples per ranked list (Cormack & Lynam: 2000)
    B_swap: int  # swap-experiment repetitions per topic-set size (Sanderson & Zobel: 50)
    max_size: int  # largest topic-set size of the swap experiment (Sanderson & Zobel: 25)
    B_halves: int  # random topic halves (Webber et al.: "multiple"; we use 1000)
    scale: str

    # the names before 0.2 (deprecated; CHANGELOG.md)
    B = renamed_attribute("B", "B_tests")
    n_boot = renamed_attribute("n_boot", "B_corpus")
    repetitions = renamed_attribute("repetitions", "B_swap")
    partitions = renamed_attribute("partitions", "B_halves")


Settings.__init__ = renamed_arguments(  # type: ignore[method-assign]  # the old keywords, one release more
    B="B_tests", n_boot="B_corpus", repetitions="B_swap", partitions="B_halves"
)(Settings.__init__)


def settings(scale: str | None = None) -> Settings:
    """The papers' sizes (``"paper"``, the default) or small ones (``"quick"``).

    Parameters
    ----------
    scale : {"paper", "quick"} or None
        None is ``"paper"`` whatever ``IRREPRO_SCALE`` says: the command line reads it
        (``--scale`` or ``IRREPRO_SCALE``) and passes it.

    Returns
    -------
    Settings
        The resamples, repetitions and sizes of every analysis of the report.
    """
    scale = "paper" if scale is None else parallel.check_scale(scale)
    if scale == "paper":
        return Settings(B_tests=1000, B_corpus=2000, B_swap=50, max_size=25, B_halves=1000, scale=scale)
    return Settings(B_tests=200, B_corpus=200, B_swap=10, max_size=25, B_halves=50, scale=scale)


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Report:
    """Everything the report shows; :meth:`write` renders it. Built by :func:`analyse`.

    ``pairs`` has one row per pair of runs (difference, its 95% percentile interval, d_z, ASL,
    Holm- and BH-adjusted ASL); the bootstrap replicates themselves are not kept (7,875 pairs x
    B = 1000 would be 126 MB). ``coverage`` is the runs' :meth:`RunSet.coverage
    <irrepro.data.RunSet.coverage>`, indexed by run (the ``missing`` and ``ignored`` topic ids).
    """

    name: str
    qrels: str
    measure: str
    seed: int
    rel: int
    settings: Settings
    scores: ScoreMatrix
    n_relevant: np.ndarray  # (T,)
    pairs: pd.DataFrame  # one row per pair (comparisons, Holm and BH)
    corpus: cb.FullCorpus
    swap: ts.SwapExperiment | None
    growth: ts.GrowthFit | None
    swap_note: str
    standardized: np.ndarray  # (S, T) Phi(z)
    halves: dict[str, sz.PartitionResult]
    coverage: pd.DataFrame
    simulated: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    test: str = "bootstrap"  # the test of the pairs (irrepro.significance.TESTS)
    baseline: str | None = None  # with a baseline, only it against every other run

    @property
    def runs(self) -> tuple[str, ...]:
        return self.scores.systems

    @property
    def test_label(self) -> str:
        """The name of the pairs' test, as every table of the report prints it."""
        return significance.TESTS[self.test]

    @property
    def family_wise(self) -> str:
        """The column of :attr:`pairs` the significance counts use: the Holm-adjusted ASL, or
        randomised Tukey HSD's own (family-wise) ASL."""
        return "ASL" if self.test == "tukey" else "ASL (Holm)"

    def pair_index(self) -> np.ndarray:
        """``(P, 2)`` indices into :attr:`runs` of each row of :attr:`pairs`."""
        pos = {r: k for k, r in enumerate(self.runs)}
        return np.stack([self.pairs["run x"].map(pos).to_numpy(), self.pairs["run y"].map(pos).to_numpy()], axis=1)

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of pairs with (unadjusted) ASL < alpha (Sakai 2006, section 3.3)."""
        return float(np.mean(self.pairs["ASL"].to_numpy() < alpha))

    def runs_table(self) -> pd.DataFrame:
        """One row per run, best mean first: mean score, coverage, MAP intervals, standardized mean,
        ranks, and how many runs it beats / loses to significantly (Holm-adjusted ASL < 0.05;
        randomised Tukey HSD: its family-wise ASL < 0.05)."""
        mean = self.scores.mean()
        par = self.corpus.maps[("parametric", "MAP")]
        boot = self.corpus.maps[("bootstrap", "MAP")]
        std = self.standardized.mean(axis=1)
        sig = self.pairs[self.family_wise].to_numpy() < 0.05
        wins = np.zeros(len(mean), dtype=int)
        losses = np.zeros(len(mean), dtype=int)
        d = self.pairs["difference"].to_numpy()
        ij = self.pair_index()
        i, j = ij[:, 0], ij[:, 1]
        np.add.at(wins, i[sig & (d > 0)], 1)
        np.add.at(wins, j[sig & (d < 0)], 1)
        np.add.at(losses, i[sig & (d < 0)], 1)
        np.add.at(losses, j[sig & (d > 0)], 1)
        m, T = self.measure, len(self.scores.topics)
        cov = self.coverage.loc[list(self.runs)]
        frame = pd.DataFrame(
            {
                "run": self.runs,
                f"mean {m}": mean,
                f"topics retrieved (of {T})": cov["retrieved"].to_numpy(),
                "topics ignored (not in qrels)": cov["ignored"].map(len).to_numpy(),
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
        """The headline numbers of the report (first, when the qrels are simulated, a warning). A
        number that is undefined (Kendall's tau or the dRMSE of runs whose means do not differ) is
        the reason, e.g. "no variance: every run scores 1 on every topic", never NaN."""
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
            "discriminative power (ASL < 0.05)": self.discriminative_power(0.05),
        })  # fmt: skip
        if self.test == "tukey":
            out["significant pairs, family-wise (randomised Tukey HSD)"] = int((self.pairs["ASL"] < 0.05).sum())
        else:
            out["significant pairs, Holm"] = int((self.pairs["ASL (Holm)"] < 0.05).sum())
            out["significant pairs, Benjamini-Hochberg"] = int((self.pairs["ASL (BH)"] < 0.05).sum())
        out.update({
            "median width of the MAP interval (parametric)": float(
                np.nanmedian(self.corpus.maps[("parametric", "MAP")].width)
            ),
            "Kendall tau, raw vs standardized ranking": defined(tau),
        })  # fmt: skip
        for form, res in self.halves.items():
            s = res.summary()
            out[f"dRMSE between random halves, {form}"] = defined(s["dRMSE mean"])
            out[f"runs different from themselves, {form} (mean)"] = s["FP mean"]
        return out

    def to_html(self) -> str:
        """The report as one HTML document: figures embedded as PNG data, no external resource."""
        return _render(self, self.summary(), self.runs_table())

    def files(self) -> dict[str, str]:
        """The report's files by name: ``index.html`` and the tables as CSV (summary, runs, pairs,
        per-topic scores, error rates)."""
        summ, runs = self.summary(), self.runs_table()
        files = {
            "summary.csv": to_csv(pd.DataFrame({"quantity": list(summ), "value": _formatted(summ)}), index=False),
            "runs.csv": to_csv(runs, index=False),
            "pairs.csv": to_csv(self.pairs.assign(test=self.test_label), index=False),
            _per_topic_file(self.measure): to_csv(self.scores.to_frame()),
        }
        if self.swap is not None:
            files["error-rates.csv"] = to_csv(_error_table(self))
        files["index.html"] = _render(self, summ, runs)
        return files

    def write(self, out: str | Path) -> Path:
        """Write the report's :meth:`files` into the directory ``out``; returns the path of its
        ``index.html``.

        ``out`` must be new, empty, or an earlier irrepro report (its ``.irrepro-report`` holds a
        manifest of the files irrepro wrote, with their sha256); anything else is refused before
        the page is drawn (:func:`check_out`; ``irrepro.InputError`` naming ``out``). Of an earlier
        report only the listed files whose content still matches are replaced or removed; files of
        the user's beside them are left in place and named in a warning. The files are written
        into a temporary sibling directory which then takes ``out``'s place in one step where
        ``out`` holds nothing but irrepro's files: a write that fails part-way leaves an earlier
        report as it was (:mod:`irrepro._report_out`)."""
        d = check_out(out)
        write_dir(d, self.files(), given=out)
        return d / "index.html"


def _per_topic_file(measure: str) -> str:
    """The name of the report's per-topic table of ``measure``."""
    return f"{slug(measure) or 'scores'}-per-topic.csv"


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
    simulated: bool | None = None,
    test: str = "bootstrap",
    baseline: str | None = None,
) -> Report:
    """Apply the four papers' analyses to ``runs`` (module docstring) and return a :class:`Report`.

    ``measure`` is any measure of :mod:`irrepro.measures` (the corpus bootstrap is on AP whatever
    it is); ``rel`` the lowest relevant grade; ``seed`` an int (shown in the report). Needs at
    least 3 runs and 4 topics; the topic-split analysis needs 10 topics (two disjoint sets of 5)
    and is left out, with the reason in the report, below that. Every mean is over all the qrels'
    topics, a topic a run lacks scoring 0 (trec_eval -c). ``simulated`` (default: the run set's
    own flag) marks the report as computed on simulated data, in its header. ``test`` is the test
    of the pairs of runs (:data:`irrepro.significance.TESTS`; default Sakai's paired bootstrap
    test) and ``baseline`` a run's name: then only it is compared with every other run, and the
    ASLs are adjusted over those comparisons.
    """
    from tqdm import tqdm

    if not isinstance(runs, RunSet):
        raise InputTypeError(f"analyse takes a RunSet (irrepro.data.load_runs), not {type(runs).__name__}")
    parse_measure(measure)
    seed = parallel.check_int(seed, "seed", minimum=0)
    S, T = len(runs.runs), len(runs.topics)
    _check_run_count(S)
    if T < 4:
        raise InputError(f"need at least 4 topics with judgments, got {T}")
    cov = runs.coverage().set_index("run")
    _check_test(test, baseline, runs.runs)
    st = settings(scale)
    n_jobs = parallel.n_jobs(n_jobs)
    rng_tests, rng_corpus, rng_swap, rng_halves = parallel.as_seed_sequence(seed).spawn(4)
    timings: dict[str, float] = {}
    steps = ["scores", "corpus bootstrap", "pairwise tests", "topic split", "standardization"]
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
        corpus = step("corpus bootstrap", lambda: _corpus(runs, st.B_corpus, rng_corpus, rel, n_jobs, progress))
        pairs = step("pairwise tests", lambda: _pair_table(scores, st.B_tests, rng_tests, n_jobs, progress,
                                                           test, baseline))  # fmt: skip

        def split():
            top = min(st.max_size, T // 2)
            if top < 5:
                return None, None, (
                    f"Left out: the swap experiment needs two disjoint sets of at least 5 topics, "
                    f"and these runs have {T} topics."
                )
            sizes = list(range(5, top + 1)) if st.scale == "paper" else sorted({5, (5 + top) // 2, top})
            res = ts.swap_experiment(
                [scores], sizes=sizes, B=st.B_swap, design="disjoint",
                filters=["none", "paired-t p<=0.05"], seed=rng_swap, n_jobs=n_jobs,
                progress="swap experiment" if progress else False,
            )  # fmt: skip
            fit = ts.growth_fit(res, kind="relative", at=T)
            return res, fit, ""

        swap, growth, swap_note = step("topic split", split)

        def standardization():
            std = sz.standardize(scores)
            seed_halves = int(rng_halves.generate_state(1)[0])  # an int: both forms on the same halves
            halves = {
                "raw": sz.partition_experiment(scores.scores, st.B_halves, seed=seed_halves, n_jobs=n_jobs),
                "standardized": sz.partition_experiment(std, st.B_halves, seed=seed_halves, n_jobs=n_jobs),
            }
            return std, halves

        std, halves = step("standardization", standardization)
    finally:
        bar.close()
    return Report(
        name=runs.name,
        qrels=qrels_label or getattr(runs.qrels, "name", "") or "",
        measure=measure,
        seed=seed,
        rel=rel,
        settings=st,
        scores=scores,
        n_relevant=runs.n_relevant(rel),
        pairs=pairs,
        corpus=corpus,
        swap=swap,
        growth=growth,
        swap_note=swap_note,
        standardized=std,
        halves=halves,
        coverage=cov,
        simulated=runs.simulated if simulated is None else bool(simulated),
        timings=timings,
        test=test,
        baseline=baseline,
    )


def _check_test(test: str, baseline: str | None, runs) -> None:
    if test not in significance.TESTS:
        raise InputError(f"test must be one of {', '.join(significance.TESTS)}, not {test!r}")
    if baseline is not None and baseline not in runs:
        names = ", ".join(list(runs)[:8]) + (", ..." if len(runs) > 8 else "")
        raise InputError(f"baseline {baseline!r} is not one of the runs ({names})")


def _check_run_count(S: int) -> None:
    if S < 3:
        raise InputError(f"the report compares runs: need at least 3 runs, got {S}")


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
    allow_simulated: bool = False,
    precision: str | None = None,
    test: str = "bootstrap",
    baseline: str | None = None,
) -> Path:
    """Load the runs of ``runs_dir`` (a directory of TREC run files) with ``qrels`` (a file, an
    ir_datasets id or a collection name), :func:`analyse` them and write the report into ``out``;
    returns the path of its ``index.html``. What ``irrepro report`` does.

    Everything that can be checked without the data is checked first (``out``: see
    :func:`check_out` - not a link, a file, an input or holding one, a name too long, a directory
    irrepro did not write; the measure, the scale, the seed, ``n_jobs``,
    ``IRREPRO_SCHEDULER``). Real qrels or an error: the simulated stand-in of a book
    collection only with ``allow_simulated=True``, and the report then says so in its header.
    ``test`` and ``baseline`` as in :func:`analyse`."""
    check_out(out, inputs=(runs_dir, qrels), files=(*REPORT_FILES, _per_topic_file(measure)))
    _check_test(test, None, ())
    parse_measure(measure)
    settings(scale)
    parallel.check_int(seed, "seed", minimum=0)
    n_jobs = parallel.n_jobs(n_jobs)
    parallel.scheduler()  # IRREPRO_SCHEDULER / --scheduler: an address or 'local'
    if precision not in (None, "float32", "float64"):
        raise InputError(f"precision must be 'float32' or 'float64', not {precision!r}")
    if not Path(runs_dir).is_dir():
        raise DataError(runs_dir, None, "not a directory of run files")
    from .data import run_files

    _check_run_count(len(run_files(runs_dir)))  # before the qrels are read (a download, maybe)
    inp = load(runs_dir, qrels, allow_simulated=allow_simulated, precision=precision, progress=progress)
    rep = analyse(inp.runset, measure, seed=seed, rel=rel, scale=scale, n_jobs=n_jobs, progress=progress,
                  qrels_label=inp.qrels_label, simulated=inp.simulated, test=test, baseline=baseline)  # fmt: skip
    return rep.write(out)
