"""The four papers' analyses applied to any set of TREC runs, as one self-contained HTML report.

One-line use (or ``irrepro report RUNS_DIR --qrels QRELS`` from the shell)::

    from irrepro import report
    inp = report.load("my-runs/", "qrels.txt")     # real qrels or an error; coverage checked
    rep = report.analyse(inp.runset, seed=1)
    rep.write("my-report/")             # my-report/index.html (+ the tables as CSV)

What it computes, each with the package function the book's chapter uses, at the papers' scale
(``irrepro.report.settings``; ``scale="quick"`` or ``--scale quick`` for a fast look):

1. **Scores** - the measure per run and topic (:func:`irrepro.measures.evaluate`; default ``AP``),
   its means, and each run's coverage of the qrels' topics.
2. **Bootstrap tests** (Sakai 2006, sections 3.1, 3.3) - the paired bootstrap test of every pair
   (:func:`irrepro.significance.paired_bootstrap_test`) with a percentile 95% interval of each
   difference, its effect size d_z with a BCa 95% interval on the same topic samples
   (:func:`irrepro.significance.effect_sizes`), the ASLs adjusted by Holm and Benjamini-Hochberg,
   the ASL curve and the discriminative power. B is raised to B >= 20 m / alpha over the m pairs,
   rounded up to a multiple of 1000 (``irrepro.stats.corrected_resamples``), and the report says so.
3. **Corpus bootstrap** (Cormack & Lynam 2006) - the parametric and the L-MAP bootstrap 95%
   intervals of every run's MAP (:func:`irrepro.corpus_bootstrap.full_corpus`), always on AP with
   binary relevance ``grade >= rel``, as the paper defines it.
4. **Topic split** (Sanderson & Zobel 2005) - the swap experiment on disjoint topic sets of 5 ..
   min(25, T/2) topics (:func:`irrepro.topic_split.swap_experiment`) and its GROWTH projection.
5. **Standardization** (Webber, Moffat & Zobel 2008) - the runs' standardized means and ranking
   (:func:`irrepro.standardize.standardize`), and random topic halves, raw vs standardized
   (:func:`irrepro.standardize.partition_experiment`).
6. **How many topics?** (Sakai 2016) - the runs as a pilot: the topics Sakai's methods need to find
   a difference of 0.05 with power 0.8 at alpha 0.05 (:func:`irrepro.design.topic_set_sizes`).

**One mean.** Every mean of the report is trec_eval -c's: over all the qrels' topics, a topic a
run lacks scoring 0 - also MAP and its corpus-bootstrap intervals (``average="all"``: a topic
without a usable list adds a fixed AP of 0, where the paper averages over usable lists only).

Every random step draws from its own child of ``seed`` (``irrepro.parallel.spawn``), so the
report is reproducible and independent of the number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import _lazy, parallel, significance
from .._measure_names import require_per_topic
from .._outputs import check_dir
from .._user_inputs import load
from ..data import DataError, RunSet
from ..data._common import _release_memory
from ..errors import InputError, InputTypeError
from ..measures import evaluate
from ._settings import REPORT_FILES, Settings, _per_topic_file, settings  # noqa: F401  (Settings: the CLI and tests)

if TYPE_CHECKING:
    from ._page import Report

# The analyses, the results and the page import pandas, scipy and matplotlib: their names load on
# first use (PEP 562), so that ``irrepro report`` reads the runs before those libraries are in
# memory (its peak).
_LAZY = {
    "Report": "_page", "_corpus": "_analyses", "_run_blocks": "_analyses", "MAX_PAIRS_SHOWN": "_page",
    "_render": "_page", "_template": "_page",
}  # fmt: skip


def __getattr__(name: str):
    return _lazy.load(__name__, _LAZY, name)


def __dir__():
    return _lazy.names(__name__, _LAZY)


__all__ = ["Report", "analyse", "run", "load"]


def check_out(out: str | Path, *, inputs=(), files=None) -> Path:
    """``out`` (absolute) once a report of ``files`` (default ``REPORT_FILES``) may go there."""
    return check_dir(out, inputs=inputs, files=REPORT_FILES if files is None else files, what="report")


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

    Needs at least 3 runs and 4 topics; the topic split needs 10 topics (two disjoint sets of 5)
    and is left out below that, the report saying why. The corpus bootstrap is on AP whatever
    ``measure`` is.

    Parameters
    ----------
    runs : irrepro.data.RunSet
        The runs with their qrels (:func:`load`, :func:`irrepro.data.load_runs`).
    measure : str
        The measure of the scores and the tests (``irrepro.measures.parse_measure``).
    seed : int
        The seed (>= 0); each analysis draws from a child of it.
    rel : int
        The lowest relevant grade.
    scale : {"paper", "quick"} or None
        The sizes of the computations (``settings``); None is ``"paper"``.
    n_jobs : int, optional
        Workers (:func:`irrepro.parallel.n_jobs`; None is 1); the numbers do not depend on it.
    progress : bool
        Show progress bars.
    qrels_label : str
        How the report names the qrels (default the qrels' own name).
    simulated : bool, optional
        Mark the report as computed on simulated data (default the run set's flag).
    test : str
        The test of the pairs, a key of :data:`irrepro.significance.TESTS`.
    baseline : str, optional
        A run's name: only it against every other run, the ASLs adjusted over those pairs.

    Returns
    -------
    Report
        Everything the report shows.

    Raises
    ------
    irrepro.InputError
        Fewer than 3 runs or 4 topics; an unknown measure, scale, test or baseline; a bad seed.

    Examples
    --------
    >>> from irrepro import report
    >>> inp = report.load(runs_dir, qrels_file)  # the doctests' three simulated runs as TREC files
    >>> rep = report.analyse(inp.runset, seed=1, scale="quick", progress=False)
    >>> rep.scores.mean().round(4).tolist(), len(rep.pairs)
    ([0.4584, 0.3735, 0.2913], 3)
    >>> rep = report.analyse(inp.runset, seed=1, scale="quick", progress=False, baseline="simrun002")
    >>> rep.pairs[["run x", "run y"]].values.tolist()
    [['simrun001', 'simrun002'], ['simrun003', 'simrun002']]
    """
    return _analyse([runs], measure, seed=seed, rel=rel, scale=scale, n_jobs=n_jobs, progress=progress,
                    qrels_label=qrels_label, simulated=simulated, test=test, baseline=baseline)  # fmt: skip


def _analyse(held: list, measure: str, *, seed, rel, scale, n_jobs, progress, qrels_label, simulated, test,
             baseline) -> Report:  # fmt: skip
    """:func:`analyse` of ``held[0]``, emptying ``held`` once the runs are read (so ``run`` frees them)."""
    from tqdm import tqdm

    from .. import standardize as sz
    from .. import topic_split as ts
    from ._analyses import _SWAP_CHUNK, _corpus_lists, _corpus_of, _design, _pair_table, _pairs_resamples
    from ._page import Report

    if not isinstance(held[0], RunSet):
        raise InputTypeError(f"analyse takes a RunSet (irrepro.data.load_runs), not {type(held[0]).__name__}")
    require_per_topic(measure, "the report")
    seed = parallel.check_int(seed, "seed", minimum=0)
    S, T = len(held[0].runs), len(held[0].topics)
    _check_run_count(S)
    if T < 4:
        raise InputError(f"need at least 4 topics with judgments, got {T}")
    cov = held[0].coverage().set_index("run")
    _check_test(test, baseline, held[0].runs)
    st = settings(scale)
    B_pairs, _ = _pairs_resamples(S, baseline, test, st.B_tests)
    n_jobs = parallel.n_jobs(n_jobs)
    rng_tests, rng_corpus, rng_swap, rng_halves, rng_design = parallel.as_seed_sequence(seed).spawn(5)
    timings: dict[str, float] = {}
    steps = [
        "scores",
        "corpus bootstrap",
        "pairwise tests",
        "topic split",
        "standardization",
        "topic-set size",
    ]
    bar = tqdm(total=len(steps), desc="report", unit="analysis", disable=not progress)

    def step(name: str, fn: Callable, t0: float | None = None):
        bar.set_postfix_str(name)
        t0 = time.perf_counter() if t0 is None else t0
        out = fn()
        timings[name] = time.perf_counter() - t0
        bar.update()
        _release_memory()  # what the analysis freed: not under the next one's peak
        return out

    rs = held[0]  # what the report shows of the runs themselves
    set_name, names, topics = rs.name, rs.runs, rs.topics
    n_relevant, precision = rs.n_relevant(rel), rs.precision
    qrels_label = qrels_label or getattr(rs.qrels, "name", "") or ""
    simulated = rs.simulated if simulated is None else bool(simulated)
    del rs
    try:
        scores = step("scores", lambda: evaluate(held[0], [measure], rel=rel)[measure])
        t0 = time.perf_counter()
        lists = _corpus_lists(held[0], rel)
        held.clear()  # nothing reads the runs from here on (their memory goes if the caller lets them go)
        _release_memory()
        corpus = step("corpus bootstrap", lambda: _corpus_of(lists, names, topics, st.B_corpus, rng_corpus,
                                                             n_jobs, progress), t0)  # fmt: skip
        lists.clear()
        pairs = step("pairwise tests", lambda: _pair_table(scores, B_pairs, rng_tests, n_jobs, progress,
                                                           test, baseline))  # fmt: skip

        def split():
            top = min(st.max_size, T // 2)
            if top < 5:
                return (
                    None,
                    None,
                    (
                        f"Left out: the swap experiment needs two disjoint sets of at least 5 topics, "
                        f"and these runs have {T} topics."
                    ),
                )
            sizes = list(range(5, top + 1)) if st.scale != "quick" else sorted({5, (5 + top) // 2, top})
            res = ts.swap_experiment(
                [scores], sizes=sizes, B=st.B_swap, design="disjoint",
                filters=["none", "paired-t p<=0.05"], seed=rng_swap, n_jobs=n_jobs,
                progress="swap experiment" if progress else False, chunk=_SWAP_CHUNK,
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
        design, design_note = step("topic-set size", lambda: _design(scores, st.B_tests, rng_design))
    finally:
        bar.close()
    return Report(
        name=set_name,
        qrels=qrels_label,
        measure=measure,
        seed=seed,
        rel=rel,
        settings=st,
        scores=scores,
        n_relevant=n_relevant,
        pairs=pairs,
        corpus=corpus,
        swap=swap,
        growth=growth,
        swap_note=swap_note,
        standardized=std,
        halves=halves,
        coverage=cov,
        simulated=simulated,
        timings=timings,
        test=test,
        baseline=baseline,
        design=design,
        design_note=design_note,
        precision=precision,
        B_pairs=B_pairs,
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
    """Load, analyse and write the report of a directory of runs: what ``irrepro report`` does.

    Everything that can be checked without the data is checked first (``out``, the measure, the
    scale, the seed, ``n_jobs``, ``IRREPRO_SCHEDULER``). Real qrels or an error: a collection's
    simulated stand-in only with ``allow_simulated=True``, and the report then says so.

    Parameters
    ----------
    runs_dir : str or Path
        A directory of TREC run files.
    qrels : str or Path
        A qrels file, an ir_datasets id or a collection name of the book.
    out : str or Path
        The report's directory: new, empty, or an earlier irrepro report.
    measure : str
        The measure of the scores and the tests.
    seed : int
        The seed (>= 0).
    rel : int
        The lowest relevant grade.
    scale : {"paper", "quick"} or None
        The sizes of the computations (``settings``); None is ``"paper"``.
    n_jobs : int, optional
        Workers; the numbers do not depend on it.
    progress : bool
        Show progress bars.
    allow_simulated : bool
        Accept a collection's simulated stand-in when its real qrels are not there.
    precision : {"float32", "float64"} or None
        How the run files' scores rank (:func:`load`); None is ``"float32"``.
    test : str
        The test of the pairs, a key of :data:`irrepro.significance.TESTS`.
    baseline : str, optional
        A run's name: only it against every other run.

    Returns
    -------
    Path
        ``out/index.html``.

    Raises
    ------
    irrepro.InputError
        Anything the user can fix, before the work where it can be checked without the data
        (``irrepro.data.DataError`` for a file, naming it).

    Examples
    --------
    >>> from irrepro import report
    >>> page = report.run(runs_dir, qrels_file, runs_dir.parent / "my-report", seed=1, scale="quick", progress=False)
    >>> page.relative_to(runs_dir.parent).as_posix(), sorted(f.name for f in page.parent.iterdir())
    ('my-report/index.html',
     ['.irrepro-report', 'ap-per-topic.csv', 'index.html', 'ir_metadata.yml', 'methods.md', 'methods.tex',
      'pairs.csv', 'runs.csv', 'summary.csv', 'topic-set-size.csv'])
    """
    check_out(out, inputs=(runs_dir, qrels), files=(*REPORT_FILES, _per_topic_file(measure)))
    _check_test(test, None, ())
    require_per_topic(measure, "the report")
    settings(scale)
    parallel.check_int(seed, "seed", minimum=0)
    n_jobs = parallel.n_jobs(n_jobs)
    parallel.scheduler()  # IRREPRO_SCHEDULER / --scheduler: an address or 'local'
    if precision not in (None, "float32", "float64"):
        raise InputError(f"precision must be 'float32' or 'float64', not {precision!r}")
    if not Path(runs_dir).is_dir():
        raise DataError(runs_dir, None, "not a directory of run files")
    from ..data import run_files

    _check_run_count(len(run_files(runs_dir)))  # before the qrels are read (a download, maybe)
    inp = load(runs_dir, qrels, allow_simulated=allow_simulated, precision=precision, progress=progress)
    held, label, sim = [inp.runset], inp.qrels_label, inp.simulated
    del inp  # the run set is held by `held` alone: _analyse lets it go once it has read it
    rep = _analyse(held, measure, seed=seed, rel=rel, scale=scale, n_jobs=n_jobs, progress=progress,
                   qrels_label=label, simulated=sim, test=test, baseline=baseline)  # fmt: skip
    return rep.write(out)
