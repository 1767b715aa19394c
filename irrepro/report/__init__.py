"""The four papers' analyses applied to any set of TREC runs, as one self-contained HTML report
(``irrepro report RUNS_DIR --qrels QRELS``), each analysis the package function its chapter uses:
:func:`load` the runs, :func:`analyse` them, ``Report.write`` the page; :func:`run` does all three."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import _lazy, parallel, significance
from .._measure_names import require_per_topic
from .._outputs import check_dir
from .._text import few
from .._user_inputs import load
from ..data import DataError, RunSet
from ..data._common import _release_memory
from ..errors import InputError, InputTypeError
from ..measures import evaluate
from ._settings import (  # noqa: F401  (Settings, the DESIGN_ names, PAIRS_B_MAX: the CLI and tests)
    DESIGN_ALPHA,
    DESIGN_MIN_DIFF,
    DESIGN_POWER,
    PAIRS_B_MAX,
    REPORT_FILES,
    Settings,
    _pairs_resamples,
    _per_topic_file,
    settings,
)

if TYPE_CHECKING:
    from ._page import Report

# the page's names load on first use (PEP 562): the runs are read before pandas, scipy, matplotlib
_LAZY = dict.fromkeys(("Report", "_run_blocks", "MAX_PAIRS_SHOWN", "_render", "_template"), "_page")


def __getattr__(name: str):
    return _lazy.load(__name__, _LAZY, name)


def __dir__():
    return _lazy.names(__name__, _LAZY)


__all__ = ["Report", "analyse", "run", "load"]


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
    """Apply the four papers' analyses to ``runs`` (3 runs and 4 topics at least) as a :class:`Report`.

    The topic split is left out below 10 topics (``Report.swap_note`` says why).

    Parameters
    ----------
    runs : irrepro.data.RunSet
        The runs with their qrels (:func:`load`, :func:`irrepro.data.load_runs`).
    measure : str
        The measure of the scores and the tests (``irrepro.measures.parse_measure``).
    seed, rel : int
        The seed (>= 0; each analysis draws from a child of it) and the lowest relevant grade.
    scale : {"paper", "quick"} or None
        The sizes of the computations (``settings``); None is ``"paper"``.
    n_jobs, progress : int or None, bool
        Workers (None is 1; the numbers do not depend on it); show progress bars.
    qrels_label, simulated : str, bool or None
        How the report names the qrels (default their name); computed on simulated data (default the runs' flag).
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
    from ._page import _SWAP_CHUNK, Report, _corpus_lists, _corpus_of, _design, _pair_table

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
    bar = tqdm(total=6, desc="report", unit="analysis", disable=not progress)  # the six steps below

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
                why = f"the swap experiment needs two disjoint sets of at least 5 topics, and these runs have {T} topics"
                return None, None, f"Left out: {why}."
            sizes = list(range(5, top + 1)) if st.scale != "quick" else sorted({5, (5 + top) // 2, top})
            res = ts.swap_experiment(
                [scores], sizes=sizes, B=st.B_swap, design="disjoint",
                filters=["none", "paired-t p<=0.05"], seed=rng_swap, n_jobs=n_jobs,
                progress="swap experiment" if progress else False, chunk=_SWAP_CHUNK
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
        raise InputError(f"baseline {baseline!r} is not one of the runs ({few(runs, 8)})")


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

    Parameters
    ----------
    runs_dir : str or Path
        A directory of TREC run files.
    qrels : str or Path
        A qrels file, an ir_datasets id or a collection name of the book.
    out : str or Path
        The report's directory: new, empty, or an earlier irrepro report.
    measure, seed, rel, scale, n_jobs, progress, test, baseline
        As for :func:`analyse`.
    allow_simulated, precision
        As for :func:`load`.

    Returns
    -------
    Path
        ``out/index.html``.

    Raises
    ------
    irrepro.InputError
        Anything the user can fix (``irrepro.data.DataError`` for a file, naming it).

    Examples
    --------
    >>> from irrepro import report
    >>> page = report.run(runs_dir, qrels_file, runs_dir.parent / "my-report", seed=1, scale="quick", progress=False)
    >>> page.relative_to(runs_dir.parent).as_posix(), sorted(f.name for f in page.parent.iterdir())
    ('my-report/index.html',
     ['.irrepro-report', 'ap-per-topic.csv', 'index.html', 'ir_metadata.yml', 'methods.md', 'methods.tex',
      'pairs.csv', 'runs.csv', 'summary.csv', 'topic-set-size.csv'])
    """
    check_dir(out, inputs=(runs_dir, qrels), files=(*REPORT_FILES, _per_topic_file(measure)), what="report")
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
