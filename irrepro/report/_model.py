"""The report's results: :class:`Report`, everything the report shows, and its files (built by
:func:`irrepro.report.analyse`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import corpus_bootstrap as cb
from .. import significance
from .. import standardize as sz
from .. import topic_split as ts
from .._outputs import write_dir
from .._text import UNDEFINED, no_variance
from ..data import ScoreMatrix
from ..escape import to_csv
from ..stats import kendall_tau
from ._page import _SIMULATED, _error_table, _render, _summary_frame
from ._settings import Settings, _per_topic_file

__all__ = ["Report"]


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

    Attributes
    ----------
    name : str
        The run set's name (its directory).
    qrels : str
        How the qrels were named (a path, an ir_datasets id, a collection).
    measure : str
        The measure of the scores and the tests.
    seed : int
        The seed every random step drew from (a child each).
    rel : int
        The lowest relevant grade.
    settings : Settings
        The sizes of the computations.
    scores : irrepro.data.ScoreMatrix
        ``(S, T)`` per-topic scores of ``measure``.
    n_relevant : numpy.ndarray
        ``(T,)`` relevant documents per topic.
    pairs : pandas.DataFrame
        One row per pair of runs: run x, run y, difference, 95% CI low / high, effect size d_z,
        ASL and (but for randomised Tukey HSD) ASL (Holm) and ASL (BH).
    corpus : irrepro.corpus_bootstrap.FullCorpus
        The corpus bootstrap of every run (Cormack & Lynam 2006).
    swap : irrepro.topic_split.SwapExperiment or None
        The swap experiment (Sanderson & Zobel 2005); None below 10 topics.
    growth : irrepro.topic_split.GrowthFit or None
        Its GROWTH projection to the full topic set; None with ``swap``.
    swap_note : str
        Why the swap experiment is left out (empty when it is not).
    standardized : numpy.ndarray
        ``(S, T)`` standardized scores Phi(z) (Webber, Moffat & Zobel 2008).
    halves : dict of str to irrepro.standardize.PartitionResult
        The random-halves experiment, ``"raw"`` and ``"standardized"``.
    coverage : pandas.DataFrame
        The runs' coverage of the qrels' topics, indexed by run.
    simulated : bool
        The report is computed on simulated data (its header says so).
    timings : dict of str to float
        Seconds per analysis.
    test : str
        The test of the pairs (:data:`irrepro.significance.TESTS`).
    baseline : str or None
        With a baseline, only it is compared with every other run.
    design : pandas.DataFrame or None
        Sakai's topic-set sizes (:func:`irrepro.design.topic_set_sizes`).
    design_note : str
        Why there is no design table.
    precision : str
        How the run files' scores were ranked (``"float32"`` or ``"float64"``).
    B_pairs : int or None
        Resamples of the pairwise tests (``settings.B_tests`` raised for Holm and Benjamini-Hochberg
        over the pairs: ``irrepro.stats.corrected_resamples``); None: ``settings.B_tests``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from irrepro import data, report
    >>> tmp = tempfile.TemporaryDirectory()
    >>> d = Path(tmp.name)  # three simulated runs on four topics, written as TREC files
    >>> files = data.synthetic.write_trec(data.synthetic.runs(3, 4, list_length=10, seed=1), d / "runs",
    ...                                  qrels=d / "qrels.txt")
    >>> inp = report.load(d / "runs", d / "qrels.txt")
    >>> rep = report.analyse(inp.runset, seed=1, scale="quick", progress=False)
    >>> rep.runs, rep.test_label, rep.discriminative_power()
    (('simrun001', 'simrun002', 'simrun003'), 'paired bootstrap test', 0.0)
    >>> rep.settings.B_tests, rep.B_pairs  # the quick scale's 200 raised for Holm / BH over 3 pairs: 20 x 3 / 0.05
    (200, 2000)
    >>> rep.pairs[["run x", "run y", "difference", "ASL", "ASL (Holm)", "ASL (BH)"]].round(3)
           run x      run y  difference    ASL  ASL (Holm)  ASL (BH)
    0  simrun001  simrun002       0.085  0.308       0.616     0.452
    1  simrun001  simrun003       0.167  0.128       0.384     0.384
    2  simrun002  simrun003       0.082  0.452       0.616     0.452
    >>> rep.runs_table()[["run", "mean AP", "rank by AP", "rank standardized"]].round(4)
             run  mean AP  rank by AP  rank standardized
    0  simrun001   0.4584           1                  1
    1  simrun002   0.3735           2                  2
    2  simrun003   0.2913           3                  3
    >>> rep.swap is None, rep.summary()["significant pairs, Holm"]  # 4 topics: no topic split
    (True, 0)
    >>> tmp.cleanup()
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
    design: pd.DataFrame | None = None  # Sakai's topic-set sizes (irrepro.design.topic_set_sizes)
    design_note: str = ""  # why there is no design table
    precision: str = "float32"  # how the run files' scores were ranked (irrepro.data.RunSet.precision)
    B_pairs: int | None = None  # resamples of the pairwise tests (None: settings.B_tests)

    def __post_init__(self) -> None:
        if self.B_pairs is None:
            object.__setattr__(self, "B_pairs", self.settings.B_tests)

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
        """The column of :attr:`pairs` the significance counts use.

        The Holm-adjusted ASL, or randomised Tukey HSD's own (family-wise) ASL.
        """
        return "ASL" if self.test == "tukey" else "ASL (Holm)"

    def pair_index(self) -> np.ndarray:
        """``(P, 2)`` indices into :attr:`runs` of each row of :attr:`pairs`.

        Returns
        -------
        numpy.ndarray
            ``(P, 2)`` integer indices.
        """
        pos = {r: k for k, r in enumerate(self.runs)}
        return np.stack([self.pairs[c].map(pos).to_numpy() for c in ("run x", "run y")], axis=1)

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of pairs with (unadjusted) ASL < alpha (Sakai 2006, section 3.3).

        Parameters
        ----------
        alpha : float
            The significance level.

        Returns
        -------
        float
            The discriminative power, in [0, 1].
        """
        return float(np.mean(self.pairs["ASL"].to_numpy() < alpha))

    def runs_table(self) -> pd.DataFrame:
        """One row per run, best mean first (the report's runs table).

        Mean score, coverage, MAP intervals, standardized mean, ranks, and how many runs it beats /
        loses to significantly (Holm-adjusted ASL < 0.05; randomised Tukey HSD: its family-wise
        ASL < 0.05).

        Returns
        -------
        pandas.DataFrame
            One row per run, sorted by the mean of ``measure``.
        """
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
            "significantly better than": wins, "significantly worse than": losses,
        })  # fmt: skip
        return frame.sort_values(f"mean {m}", ascending=False, kind="stable").reset_index(drop=True)

    def summary(self) -> dict:
        """The headline numbers of the report (first, when the qrels are simulated, a warning).

        A number that is undefined (Kendall's tau or the dRMSE of runs whose means do not differ) is
        the reason, e.g. "no variance: every run scores 1 on every topic", never NaN.

        Returns
        -------
        dict
            Quantity -> number or text, in the order the report shows them.
        """
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
            out["significant pairs, family-wise (randomised Tukey HSD)"] = int(
                (self.pairs["ASL"] < 0.05).sum()
            )
        else:
            out["significant pairs, Holm"] = int((self.pairs["ASL (Holm)"] < 0.05).sum())
            out["significant pairs, Benjamini-Hochberg"] = int((self.pairs["ASL (BH)"] < 0.05).sum())
        width = float(np.nanmedian(self.corpus.maps[("parametric", "MAP")].width))
        out["median width of the MAP interval (parametric)"] = width
        out["Kendall tau, raw vs standardized ranking"] = defined(tau)
        for form, res in self.halves.items():
            s = res.summary()
            out[f"dRMSE between random halves, {form}"] = defined(s["dRMSE mean"])
            out[f"runs different from themselves, {form} (mean)"] = s["FP mean"]
        return out

    def to_html(self) -> str:
        """The report as one HTML document: figures embedded as PNG data, no external resource.

        Returns
        -------
        str
            The page (``index.html``).
        """
        return _render(self, self.summary(), self.runs_table(), self.methods().html)

    def methods(self) -> significance.Methods:
        """The report's methods paragraph and its ir_metadata sidecar, from its settings.

        Returns
        -------
        irrepro.significance.Methods
            :func:`irrepro.significance.methods_paragraph` of the report's settings.
        """
        from ._analyses import _methods

        return _methods(self)

    def files(self) -> dict[str, str]:
        """The report's files by name: ``index.html``, the tables as CSV and the methods.

        The tables: summary, runs, pairs, per-topic scores, (with the topic split) error rates and
        (where the runs can be a pilot) the topic-set sizes; the methods paragraph as Markdown and
        LaTeX (``methods.md``, ``methods.tex``) and its sidecar ``ir_metadata.yml`` (:meth:`methods`).

        Returns
        -------
        dict of str to str
            File name -> content.
        """
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
        """Write the report's :meth:`files` into the directory ``out``; returns its ``index.html``.

        Of an earlier report only the files its manifest ``.irrepro-report`` proves irrepro's are
        replaced or removed; the user's files beside them are left and named in a warning. A write
        that fails part-way leaves an earlier report as it was.

        Parameters
        ----------
        out : str or Path
            The report's directory: new, empty, or an earlier irrepro report.

        Returns
        -------
        Path
            ``out/index.html``.

        Raises
        ------
        irrepro.InputError
            ``out`` cannot take the report.
        """
        return write_dir(out, self.files(), what="report") / "index.html"
