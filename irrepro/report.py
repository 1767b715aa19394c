"""The four papers' analyses applied to any set of TREC runs, as one self-contained HTML report.

One-line use (or ``irrepro report RUNS_DIR --qrels QRELS`` from the shell)::

    from irrepro import report
    inp = report.load("my-runs/", "qrels.txt")     # real qrels or an error; coverage checked
    rep = report.analyse(inp.runset, seed=1)
    rep.write("my-report/")             # my-report/index.html (+ the tables as CSV)

What it computes, each with the package function the book's chapter uses, at the papers' scale
(``IRREPRO_SCALE=quick`` for a fast look):

1. **Scores** - the chosen measure per run and topic (:func:`irrepro.measures.evaluate`, trec_eval
   semantics; default ``AP``) and its mean over the qrels' topics, with each run's coverage of
   them (:func:`coverage`).
2. **Bootstrap tests** (Sakai 2006) - the paired bootstrap test of every pair of runs
   (:func:`irrepro.bootstrap_tests.paired_test`, B = 1000), with a percentile 95% interval of each
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
"""

from __future__ import annotations

import base64
import ctypes
import errno
import io
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np
import pandas as pd

from . import bootstrap_tests as bt
from . import corpus_bootstrap as cb
from . import parallel
from . import standardize as sz
from . import topic_split as ts
from .book import slug
from .data import DataError, Qrels, RunSet, ScoreMatrix
from .measures import evaluate, parse_measure

__all__ = ["Report", "Settings", "settings", "analyse", "run", "Inputs", "load", "coverage", "check_out", "MARKER"]

#: Above this many pairs the HTML lists only the pairs adjacent in the ranking (all are in the CSV).
MAX_PAIRS_SHOWN = 1000
#: The file that marks a directory as an irrepro report (only such a directory is overwritten).
MARKER = ".irrepro-report"
#: Pairs of runs tested per task: the bootstrap replicates of one block (pairs x B) are reduced to
#: the report's columns at once, so memory does not grow with the number of pairs.
_PAIR_BLOCK = 512
#: Corpus bootstrap, per block of runs: at most this many ranked lists (their replicates, lists x
#: B floats, live at once) and this many (runs x topics x ranks) cells of the dense lists.
_CORPUS_LISTS = 800
_CORPUS_CELLS = 1 << 22
#: What a mean is, everywhere in the report.
AVERAGING = (
    "Every mean on this page is over all {T} topics of the qrels, a topic a run retrieved nothing "
    "for counting as 0 (trec_eval -c); the corpus-bootstrap MAP intervals are of that same mean "
    "(a topic without a usable list - nothing retrieved, or no relevant document - adds a fixed AP "
    "of 0)."
)


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


# --------------------------------------------------------------------------------------------
# the user's runs: loading, coverage, real or simulated qrels
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Inputs:
    """What :func:`load` read: the run set, its files (``files[i]`` holds ``runset.runs[i]``),
    whether the qrels are the simulated stand-in, and how the qrels were named."""

    runset: RunSet
    files: tuple[Path, ...]
    simulated: bool
    qrels_label: str


def coverage(rs: RunSet, limit: int = 5) -> pd.DataFrame:
    """One row per run: how many of the qrels' topics it retrieved for (``retrieved`` of
    ``topics``), the qrels topics it lacks (``missing``: they score 0 in trec_eval -c's mean, and
    are left out of the mean over the run's own topics) and its topics the qrels lack (``ignored``:
    never evaluated, as trec_eval does), with up to ``limit`` ids of each (``missing ids``,
    ``ignored ids``)."""
    has = np.asarray(rs.lengths) > 0  # (S, T)
    T = len(rs.topics)
    rows = []
    for s, run in enumerate(rs.runs):
        missing = [rs.topics[t] for t in np.flatnonzero(~has[s])]
        ignored = list(rs.ignored_topics.get(run, ()))
        rows.append({
            "run": run, "retrieved": int(has[s].sum()), "topics": T,
            "missing": len(missing), "missing ids": _ids(missing, limit),
            "ignored": len(ignored), "ignored ids": _ids(ignored, limit),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("run")


def _ids(ids: Sequence[str], limit: int) -> str:
    return ", ".join(ids[:limit]) + (", ..." if len(ids) > limit else "")


def _check_matches(rs: RunSet, files: Sequence[Path] | None, qrels_label: str) -> pd.DataFrame:
    """The coverage of ``rs``; a run that matches none of the qrels' topics is a DataError naming
    its file (a wrong qrels file, or topic ids written another way, e.g. "T1" for "1")."""
    cov = coverage(rs)
    for s, run in enumerate(rs.runs):
        if cov.at[run, "retrieved"] == 0:
            where = files[s] if files is not None and s < len(files) else f"run {run!r}"
            qtopics = _ids(list(rs.topics), 5)
            raise DataError(
                where, None,
                f"none of the run's {cov.at[run, 'ignored']} topics ({cov.at[run, 'ignored ids']}) is a "
                f"topic of the qrels {qrels_label or rs.qrels.name} ({len(rs.topics)} topics: {qtopics}); "
                "is it the right qrels file, or are the topic ids written another way?",
            )  # fmt: skip
    return cov


def _load_qrels(source, allow_simulated: bool) -> tuple[Qrels, bool]:
    """The qrels of ``source`` and whether they are the simulated stand-in (which the data layer
    gives for a book collection's name only with ``allow_simulated``; else DataUnavailable)."""
    from . import data

    if isinstance(source, Qrels):
        return source, source.source == "simulated"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        q = data.load_qrels(source, allow_simulated=allow_simulated)
    simulated = q.source == "simulated"
    for w in caught:
        if issubclass(w.category, data.SimulatedDataWarning):
            simulated = True
        else:  # pass every other warning on
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return q, simulated


def load(
    runs: str | Path | Sequence[str | Path],
    qrels: str | Path | Qrels,
    *,
    allow_simulated: bool = False,
    precision: str | None = None,
    progress: bool = False,
) -> Inputs:
    """Read the user's runs (a directory of run files, or files and directories) with ``qrels`` (a
    file, an ir_datasets id, a collection name of the book, or :class:`~irrepro.data.Qrels`): what
    ``irrepro eval`` and ``irrepro report`` do first.

    Real data or an error: a collection's simulated stand-in is used only with
    ``allow_simulated=True``, and then ``Inputs.simulated`` says so. A run none of whose topics is
    a topic of the qrels raises :class:`~irrepro.data.DataError` naming its file. ``precision``:
    rank scores as ``"float32"`` (trec_eval <= 9.0.8, pytrec_eval, NIST's leaderboards; the
    default) or ``"float64"`` (trec_eval 10).
    """
    from . import data

    kwargs = {} if precision is None else {"precision": precision}
    sources = [runs] if isinstance(runs, (str, Path)) else list(runs)
    files: list[Path] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            files += data.run_files(p)
        elif p.is_file():
            files.append(p)
        else:
            raise DataError(p, None, "run file or directory not found")
    if not files:
        raise ValueError("no run files given")
    q, simulated = _load_qrels(qrels, allow_simulated)
    single_dir = len(sources) == 1 and Path(sources[0]).is_dir()
    rs = data.load_runs(sources[0] if single_dir else files, qrels=q, progress=progress, **kwargs)
    label = q.name if isinstance(qrels, Qrels) else str(qrels)
    _check_matches(rs, files, label)
    return Inputs(rs, tuple(files), simulated, label)


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Report:
    """Everything the report shows; :meth:`write` renders it. Built by :func:`analyse`.

    ``pairs`` has one row per pair of runs (difference, its 95% percentile interval, d_z, ASL,
    Holm- and BH-adjusted ASL); the bootstrap replicates themselves are not kept (7,875 pairs x
    B = 1000 would be 126 MB). ``coverage`` is :func:`coverage` of the runs.
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
    swap: ts.SwapResult | None
    growth: ts.GrowthFit | None
    swap_note: str
    standardized: np.ndarray  # (S, T) Phi(z)
    halves: dict[str, sz.PartitionResult]
    coverage: pd.DataFrame
    simulated: bool = False
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def runs(self) -> tuple[str, ...]:
        return self.scores.systems

    def pair_index(self) -> np.ndarray:
        """``(P, 2)`` indices into :attr:`runs` of each row of :attr:`pairs`."""
        pos = {r: k for k, r in enumerate(self.runs)}
        return np.stack([self.pairs["run x"].map(pos).to_numpy(), self.pairs["run y"].map(pos).to_numpy()], axis=1)

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Share of pairs with (unadjusted) ASL < alpha (Sakai 2006, section 3.3)."""
        return float(np.mean(self.pairs["ASL"].to_numpy() < alpha))

    def runs_table(self) -> pd.DataFrame:
        """One row per run, best mean first: mean score, coverage, MAP intervals, standardized mean,
        ranks, and how many runs it beats / loses to significantly (Holm-adjusted ASL < 0.05)."""
        mean = self.scores.mean()
        par = self.corpus.maps[("parametric", "MAP")]
        boot = self.corpus.maps[("bootstrap", "MAP")]
        std = self.standardized.mean(axis=1)
        sig = self.pairs["ASL (Holm)"].to_numpy() < 0.05
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
                "topics ignored (not in qrels)": cov["ignored"].to_numpy(),
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
        """The headline numbers of the report (first, when the qrels are simulated, a warning)."""
        S, T = self.scores.shape
        tau = float(bt.kendall_tau(self.scores.mean(), self.standardized.mean(axis=1)))
        out: dict = {}
        if self.simulated:
            out["WARNING"] = _SIMULATED.format(qrels=self.qrels)
        out.update({
            "runs": S,
            "topics": T,
            "mean": "over all qrels topics, a missing topic = 0 (trec_eval -c)",
            "runs missing qrels topics": int((self.coverage["missing"] > 0).sum()),
            "runs with topics not in the qrels (ignored)": int((self.coverage["ignored"] > 0).sum()),
            "pairs": len(self.pairs),
            "discriminative power (ASL < 0.05)": self.discriminative_power(0.05),
            "significant pairs, Holm": int((self.pairs["ASL (Holm)"] < 0.05).sum()),
            "significant pairs, Benjamini-Hochberg": int((self.pairs["ASL (BH)"] < 0.05).sum()),
            "median width of the MAP interval (parametric)": float(
                np.nanmedian(self.corpus.maps[("parametric", "MAP")].width)
            ),
            "Kendall tau, raw vs standardized ranking": tau,
        })  # fmt: skip
        for form, res in self.halves.items():
            s = res.summary()
            out[f"dRMSE between random halves, {form}"] = s["dRMSE mean"]
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
            "summary.csv": pd.DataFrame({"quantity": list(summ), "value": _formatted(summ)}).to_csv(index=False),
            "runs.csv": runs.to_csv(index=False),
            "pairs.csv": self.pairs.to_csv(index=False),
            f"{slug(self.measure) or 'scores'}-per-topic.csv": self.scores.to_frame().to_csv(),
        }
        if self.swap is not None:
            files["error-rates.csv"] = _error_table(self).to_csv()
        files["index.html"] = _render(self, summ, runs)
        return files

    def write(self, out: str | Path) -> Path:
        """Write the report's :meth:`files` into the directory ``out``; returns the path of its
        ``index.html``.

        The files are written into a temporary sibling directory which then takes ``out``'s place
        in one step: a write that fails part-way leaves an earlier report in ``out`` as it was, and
        no file of an earlier report survives beside the new ones. ``out`` must be new, empty, or
        an earlier irrepro report (it holds the marker file ``.irrepro-report``); anything else is
        refused (:func:`check_out`)."""
        d = check_out(out)
        _write_dir(d, self.files())
        return d / "index.html"


def _formatted(values: dict) -> list[str]:
    def fmt(v):
        if isinstance(v, str):
            return v
        return f"{v:,}" if isinstance(v, (int, np.integer)) else f"{v:.3f}"

    return [fmt(v) for v in values.values()]


_SIMULATED = (
    "computed on SIMULATED data: the qrels {qrels!r} are irrepro's simulated stand-in, not real "
    "relevance judgments (the real files could not be had, and --allow-simulated was given)"
)


# --------------------------------------------------------------------------------------------
# the output directory
# --------------------------------------------------------------------------------------------


def _is_report(d: Path) -> bool:
    """``d`` holds an irrepro report: the marker file, or (reports written before the marker) an
    ``index.html`` titled "irrepro report"."""
    if (d / MARKER).is_file():
        return True
    index = d / "index.html"
    try:
        return index.is_file() and "<title>irrepro report" in index.read_text(errors="replace")[:4000]
    except OSError:
        return False


def check_out(out: str | Path) -> Path:
    """Check, before any work, that a report can be written to ``out``; returns it (absolute).

    Refused (ValueError naming the path and the problem): ``out`` is a file; ``out`` is a
    directory that holds files but no irrepro report (an earlier report is replaced, nothing
    else); ``out`` cannot be created or replaced there (no write permission on its parent, or a
    parent that is a file)."""
    d = Path(out).expanduser().absolute()
    if d.exists() and not d.is_dir():
        raise ValueError(f"{d}: --out names a file, not a directory for the report")
    if d.is_dir() and any(d.iterdir()) and not _is_report(d):
        raise ValueError(
            f"{d}: not an irrepro report (no {MARKER} file) and not empty; refusing to overwrite "
            "it: give a new or empty directory as --out"
        )
    base = d.parent
    while not base.exists():
        base = base.parent
    if not base.is_dir():
        raise ValueError(f"{d}: cannot create the report there, {base} is a file")
    try:  # the one reliable test of writability: make (and remove) a sibling directory
        probe = tempfile.mkdtemp(dir=base, prefix=".irrepro-probe-")
        os.rmdir(probe)
    except OSError as exc:
        raise ValueError(f"{d}: cannot write the report there ({base}: {exc.strerror})") from None
    return d


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not
    available (other systems, old kernels, some file systems)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _write_dir(d: Path, files: dict[str, str]) -> None:
    """Write ``files`` into a temporary sibling of ``d``, then put it in ``d``'s place: a rename
    onto a new or empty ``d``, an atomic exchange with an earlier report (Linux), or elsewhere two
    renames with the earlier report put back if the second fails."""
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}.", suffix=".tmp"))
    try:
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        (tmp / MARKER).write_text(
            f"irrepro report, written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
            "irrepro report --out replaces this directory as a whole.\n",
            encoding="utf-8",
        )
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp's 0700 would hide the report from others
        try:
            os.rename(tmp, d)  # d absent or empty: one step
            return
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        if _exchange(tmp, d):  # tmp now holds the earlier report
            shutil.rmtree(tmp, ignore_errors=True)
            return
        old = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}.", suffix=".old"))
        try:
            os.rename(d, old / "report")
        except BaseException:
            os.rmdir(old)
            raise
        try:
            os.rename(tmp, d)
        except BaseException:
            try:
                os.rename(old / "report", d)
            except OSError as exc:  # keep it where it is, and say where
                raise OSError(exc.errno, f"{exc.strerror}; the earlier report is in {old / 'report'}", str(d)) from exc
            os.rmdir(old)
            raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# the analyses
# --------------------------------------------------------------------------------------------


def _pair_table(scores: ScoreMatrix, B: int, seed, n_jobs, progress) -> pd.DataFrame:
    """Paired bootstrap tests of every pair (one set of topic samples for all), in blocks of
    pairs whose replicates are reduced at once to the difference, its percentile interval, d_z and
    the ASL; Holm and Benjamini-Hochberg over all pairs. Equal to
    ``bt.comparisons(bt.paired_test(scores, B=B, seed=seed))``, in a fraction of its memory."""
    from statsmodels.stats.multitest import multipletests

    samples = bt.bootstrap_samples(scores.shape[1], B, seed=seed)
    pairs = bt.all_pairs(scores.shape[0])
    blocks = [pairs[a : a + _PAIR_BLOCK] for a in range(0, len(pairs), _PAIR_BLOCK)]

    def block(p):
        res = bt.paired_test(scores, p, samples=samples, n_jobs=1)
        return res.observed, res.confidence_interval(0.95), res.effect_size, res.asl

    parts = parallel.parallel_map(block, blocks, n_jobs=n_jobs, progress=progress and "bootstrap tests")
    obs, ci, es, asl = (np.concatenate(a) for a in zip(*parts))
    runs = scores.systems
    return pd.DataFrame(
        {
            "run x": [runs[i] for i in pairs[:, 0]],
            "run y": [runs[j] for j in pairs[:, 1]],
            "difference": obs,
            "95% CI low": ci[:, 0],
            "95% CI high": ci[:, 1],
            "effect size d_z": es,
            "ASL": asl,
            "ASL (Holm)": multipletests(asl, method="holm")[1],
            "ASL (BH)": multipletests(asl, method="fdr_bh")[1],
        }
    )


def _run_blocks(lengths: np.ndarray) -> list[np.ndarray]:
    """Consecutive runs in blocks of at most ``_CORPUS_LISTS`` lists and ``_CORPUS_CELLS`` dense
    cells (at least one run each): a rule of the data alone, not of the number of workers."""
    S, T = lengths.shape
    longest = lengths.max(axis=1, initial=0)
    blocks, start, k = [], 0, 1
    for s in range(S):
        k_new = max(k, int(longest[s]), 1)
        n = s - start + 1
        if n > 1 and (n * T > _CORPUS_LISTS or n * T * k_new > _CORPUS_CELLS):
            blocks.append(np.arange(start, s))
            start, k_new = s, max(int(longest[s]), 1)
        k = k_new
    blocks.append(np.arange(start, S))
    return blocks


def _corpus(runs: RunSet, n_boot: int, seed, rel: int, n_jobs, progress) -> cb.FullCorpus:
    """:func:`~irrepro.corpus_bootstrap.full_corpus` with trec_eval -c's mean (``average="all"``),
    run by blocks of runs (block ``b`` draws from child ``b`` of ``seed``), so that replicates and
    the dense lists of one block at a time are in memory."""
    from tqdm import tqdm

    blocks = _run_blocks(np.asarray(runs.lengths))
    seeds = parallel.as_seed_sequence(seed).spawn(len(blocks))
    parts = []
    with tqdm(total=len(runs.runs), desc="corpus bootstrap", unit="run", disable=not progress) as bar:
        for idx, ss in zip(blocks, seeds):
            parts.append(cb.full_corpus(runs.subset(runs=idx), n_boot=n_boot, seed=ss, rel=rel,
                                        n_jobs=n_jobs, average="all"))  # fmt: skip
            bar.update(len(idx))
    if len(parts) == 1:
        return parts[0]

    def cat(ivs):
        return replace(ivs[0], **{f.name: np.concatenate([getattr(v, f.name) for v in ivs])
                                  for f in fields(ivs[0]) if f.name != "method"})  # fmt: skip

    first = parts[0]
    return cb.FullCorpus(
        runs.runs, runs.topics,
        np.concatenate([p.ap for p in parts]), np.concatenate([p.usable for p in parts]),
        {k: cat([p.intervals[k] for p in parts]) for k in first.intervals},
        {k: cat([p.maps[k] for p in parts]) for k in first.maps},
        None,
    )  # fmt: skip


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
) -> Report:
    """Apply the four papers' analyses to ``runs`` (module docstring) and return a :class:`Report`.

    ``measure`` is any measure of :mod:`irrepro.measures` (the corpus bootstrap is on AP whatever
    it is); ``rel`` the lowest relevant grade; ``seed`` an int (shown in the report). Needs at
    least 3 runs and 4 topics; the topic-split analysis needs 10 topics (two disjoint sets of 5)
    and is left out, with the reason in the report, below that. Every mean is over all the qrels'
    topics, a topic a run lacks scoring 0 (trec_eval -c). ``simulated`` (default: the run set's
    own flag) marks the report as computed on simulated data, in its header.
    """
    from tqdm import tqdm

    if not isinstance(runs, RunSet):
        raise TypeError(f"analyse takes a RunSet (irrepro.data.load_runs), not {type(runs).__name__}")
    parse_measure(measure)
    seed = parallel.check_int(seed, "seed", minimum=0)
    S, T = len(runs.runs), len(runs.topics)
    if S < 3:
        raise ValueError(f"the report compares runs: need at least 3 runs, got {S}")
    if T < 4:
        raise ValueError(f"need at least 4 topics with judgments, got {T}")
    cov = _check_matches(runs, None, qrels_label)
    st = settings(scale)
    n_jobs = parallel.n_jobs(n_jobs)
    rng_tests, rng_corpus, rng_swap, rng_halves = parallel.as_seed_sequence(seed).spawn(4)
    timings: dict[str, float] = {}
    steps = ["scores", "corpus bootstrap", "bootstrap tests", "topic split", "standardization"]
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
        corpus = step("corpus bootstrap", lambda: _corpus(runs, st.n_boot, rng_corpus, rel, n_jobs, progress))
        pairs = step("bootstrap tests", lambda: _pair_table(scores, st.B, rng_tests, n_jobs, progress))

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
    allow_simulated: bool = False,
    precision: str | None = None,
) -> Path:
    """Load the runs of ``runs_dir`` (a directory of TREC run files) with ``qrels`` (a file, an
    ir_datasets id or a collection name), :func:`analyse` them and write the report into ``out``;
    returns the path of its ``index.html``. What ``irrepro report`` does.

    Everything that can be checked without the data is checked first (``out``, the measure, the
    scale, the seed, ``IRREPRO_JOBS``). Real qrels or an error: the simulated stand-in of a book
    collection only with ``allow_simulated=True``, and the report then says so in its header."""
    out = check_out(out)
    parse_measure(measure)
    settings(scale)
    parallel.check_int(seed, "seed", minimum=0)
    n_jobs = parallel.n_jobs(n_jobs)
    if precision not in (None, "float32", "float64"):
        raise ValueError(f"precision must be 'float32' or 'float64', not {precision!r}")
    if not Path(runs_dir).is_dir():
        raise DataError(runs_dir, None, "not a directory of run files")
    inp = load(runs_dir, qrels, allow_simulated=allow_simulated, precision=precision, progress=progress)
    rep = analyse(inp.runset, measure, seed=seed, rel=rel, scale=scale, n_jobs=n_jobs, progress=progress,
                  qrels_label=inp.qrels_label, simulated=inp.simulated)  # fmt: skip
    return rep.write(out)


# --------------------------------------------------------------------------------------------
# rendering: figures here, the page in templates/report.html.j2
# --------------------------------------------------------------------------------------------


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(frame: pd.DataFrame, digits: int = 4, index: bool = False, scroll: bool = False) -> str:
    from markupsafe import Markup

    out = frame.to_html(index=index, float_format=lambda v: f"{v:.{digits}f}", na_rep="-",
                        border=0, escape=True)
    return Markup(f'<div class="scroll">{out}</div>' if scroll else out)


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
    asl = rep.pairs["ASL"].to_numpy()
    ax = axes[0]
    xs = np.arange(1, len(asl) + 1)
    ax.plot(xs, np.sort(asl), color="C0", label="ASL")
    ax.plot(xs, np.sort(rep.pairs["ASL (Holm)"].to_numpy()), color="C3", label="Holm-adjusted")
    ax.plot(xs, np.sort(rep.pairs["ASL (BH)"].to_numpy()), color="C2", label="BH-adjusted")
    ax.axhline(0.05, ls="--", color="grey", lw=1)
    ax.set(xlabel="run pairs sorted by ASL", ylabel="achieved significance level",
           title=f"ASL curve, paired bootstrap test (B = {rep.settings.B})")
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
    ij = rep.pair_index()
    i, j = ij[:, 0], ij[:, 1]
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


def _template():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("irrepro", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a name the template needs and the page lacks fails
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2")


def _render(rep: Report, summ: dict, runs: pd.DataFrame) -> str:
    """The report's HTML: the numbers, tables and figures computed here, the page laid out by the
    jinja2 template ``irrepro/templates/report.html.j2``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    S, T = rep.scores.shape
    shown = rep.pairs
    pairs_note = ""
    if len(shown) > MAX_PAIRS_SHOWN:
        rank = {r: k for k, r in enumerate(runs["run"])}
        adj = (shown["run x"].map(rank) - shown["run y"].map(rank)).abs() == 1
        shown = shown[adj]
        pairs_note = f"{len(rep.pairs)} pairs: only the {len(shown)} pairs of runs adjacent in the ranking are listed;"
    shown = shown.sort_values("ASL", kind="stable").copy()
    for col in ("ASL", "ASL (Holm)", "ASL (BH)"):  # no replicate as extreme: below 1/B, not 0
        shown[col] = [f"< {1 / rep.settings.B:g}" if v == 0 else f"{v:.4f}" for v in shown[col]]
    cov = rep.coverage[(rep.coverage["missing"] > 0) | (rep.coverage["ignored"] > 0)]
    cov_table = cov.rename(columns={
        "retrieved": f"topics retrieved (of {T})", "missing": "qrels topics missing (scored 0)",
        "missing ids": "missing, ids", "ignored": "run topics not in the qrels (ignored)", "ignored ids": "ignored, ids",
    }).drop(columns="topics").reset_index()  # fmt: skip
    first = rep.growth.first_reliable() if rep.growth is not None else None
    context = {
        "rep": rep,
        "S": S,
        "T": T,
        "m": rep.measure,
        "st": rep.settings,
        "written": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "simulated_warning": _SIMULATED.format(qrels=rep.qrels) if rep.simulated else "",
        "averaging": AVERAGING.format(T=T),
        "summary_table": _table(pd.DataFrame({"quantity": list(summ), "value": _formatted(summ)})),
        "no_relevant": int(np.sum(rep.n_relevant < 1)),
        "coverage_table": _table(cov_table, scroll=len(cov_table) > 30) if len(cov_table) else "",
        "n_coverage": len(cov_table),
        "runs_table": _table(runs, scroll=True),  # wide: scrolls sideways on narrow screens
        "fig_scores": _png(_fig_scores(rep)),
        "fig_asl": _png(_fig_asl(rep)),
        "fig_corpus": _png(_fig_corpus(rep)),
        "fig_split": _png(_fig_split(rep)) if rep.swap is not None else "",
        "fig_std": _png(_fig_std(rep)),
        "power": 100 * rep.discriminative_power(),
        "n_pairs": len(rep.pairs),
        "n_holm": summ["significant pairs, Holm"],
        "n_bh": summ["significant pairs, Benjamini-Hochberg"],
        "pairs_note": pairs_note,
        "pairs_table": _table(shown, scroll=len(shown) > 30),
        "map_width": float(np.nanmedian(rep.corpus.maps[("parametric", "MAP")].width)),
        "error_table": (_table(_error_table(rep).rename_axis("relative difference on set 1").reset_index(), digits=3)
                        if rep.swap is not None else ""),
        "first_reliable": first or "none",
        "tau": summ["Kendall tau, raw vs standardized ranking"],
        "hr": rep.halves["raw"].summary(),
        "hs": rep.halves["standardized"].summary(),
        "pct": _pct,
        "timings": ", ".join(f"{k} {v:.1f} s" for k, v in rep.timings.items()),
    }
    return _template().render(**context)
