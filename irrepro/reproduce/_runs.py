"""Run files in, every reproducibility measure with its interval out: :func:`reproduce_runs`, the
work of ``irrepro reproduce`` - one quadruple of run files, or four directories whose files are
matched by name (many experiments at once, all scored together)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..parallel import SeedLike
from ._bootstrap import Estimate
from ._effects import delta_ri, effect_ratio, p_value, rmse, topic_mean
from ._ranking import RBO_DEPTH, RBO_P, RUN_LENGTH, ktu, rbo

if TYPE_CHECKING:
    import pandas as pd


#: The four runs of an experiment, in the command line's order.
ROLES = ("orig_baseline", "orig_advanced", "repro_baseline", "repro_advanced")
#: The columns of :meth:`Reproduction.to_frame`.
COLUMNS = ["experiment", "run", "measure", "statistic", "value", "low", "high"]
#: Why a statistic is undefined (NaN; Delta RI also infinite) where it is: the one case in which
#: its computation gives no number ({m}: the measure). RMSE and the p-value are always defined.
_UNDEFINED = {
    "KTU": "no topic on which both rankings hold 2 documents or more",
    "RBO": "no topic that both runs ranked",
    "ER": "no effect to reproduce: the original advanced and baseline runs' mean {m} are equal (up to rounding)",
    "DeltaRI": "a baseline run's mean {m} is 0 (original or reproduction): its relative improvement is undefined",
}


def _undefined(row: dict) -> str:
    """Why a row of :meth:`Reproduction.to_frame` holds an undefined number."""
    from .._text import UNDEFINED

    if np.isfinite(row["value"]):
        return "no interval: the statistic is undefined on the resamples of the topics"
    return _UNDEFINED.get(row["statistic"], UNDEFINED).format(m=row["measure"])


@dataclass(frozen=True, eq=False)
class Reproduction:
    """Every reproducibility measure of one or more experiments, each with its interval.

    Attributes
    ----------
    experiments : tuple of str
        The experiments (the run files' names; in directory mode the name shared by the four
        directories' files).
    files : dict
        Role (``orig_baseline``, ``orig_advanced``, ``repro_baseline``, ``repro_advanced``) -> the
        files, one per experiment.
    measures : tuple of str
        The evaluation measures.
    paired : bool
        True: reproducibility (the same qrels and topics); False: replicability (other qrels).
    topics : tuple of int
        The numbers of topics of the original and of the reproduction.
    estimates : dict
        ``(run, measure, statistic) ->`` an estimate with ``value``, ``low`` and ``high`` (arrays over
        the experiments) and its ``level``, ``B`` and ``paired``; run is ``baseline``,
        ``advanced`` or ``effect``, measure empty for the ranking measures (KTU, RBO).
    seed : object
        The seed of the resamples.
    simulated : bool
        The qrels are a collection's simulated stand-in (only with ``allow_simulated=True``).
    coverage : tuple of dict
        Each run file's coverage of its qrels' topics, as :meth:`RunSet.coverage
        <irrepro.data.RunSet.coverage>`'s rows (``run`` the file's path): the topics it misses
        score 0 in RMSE, ER, Delta RI and the p-value, and are left out of KTU and RBO.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from irrepro import data, reproduce
    >>> tmp = Path(tempfile.mkdtemp())
    >>> files = data.synthetic.write_trec(data.synthetic.runs(4, 6, list_length=20, seed=2), tmp / "r",
    ...                                  qrels=tmp / "q.txt")
    >>> rep = reproduce.reproduce_runs(*sorted(files), tmp / "q.txt", measures=["AP"], B=200, seed=0)
    >>> rep.to_frame()[["run", "measure", "statistic"]].head(3).values.tolist()
    [['baseline', '', 'KTU'], ['baseline', '', 'RBO'], ['baseline', 'AP', 'RMSE']]
    """

    experiments: tuple[str, ...]
    files: dict
    measures: tuple[str, ...]
    paired: bool
    topics: tuple[int, int]
    estimates: dict
    seed: object = None
    simulated: bool = False
    coverage: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """The long table: one row per experiment, run, measure and statistic.

        Returns
        -------
        pandas.DataFrame
            Columns ``experiment, run, measure, statistic, value, low, high``.
        """
        import pandas as pd

        rows = []
        for i, name in enumerate(self.experiments):
            for (run, measure, statistic), est in self.estimates.items():
                rows.append((name, run, measure, statistic, float(est.value[i]), float(est.low[i]),
                             float(est.high[i])))  # fmt: skip
        return pd.DataFrame(rows, columns=COLUMNS)


def _quadruples(paths: Sequence) -> tuple[list[str], dict[str, list[Path]]]:
    """The experiments' names and each role's files: four files, or four directories whose files match by name."""
    ps = [Path(p).expanduser() for p in paths]
    for role, p in zip(ROLES, ps):
        if not p.exists():
            raise InputError(f"{p}: no such file or directory ({role.replace('_', ' ')} run)")
    dirs = [p.is_dir() for p in ps]
    if all(not d for d in dirs):
        return [ps[1].name], {role: [p] for role, p in zip(ROLES, ps)}
    if not all(dirs):
        raise InputError("give four run files or four directories, not a mix: " + ", ".join(map(str, ps)))
    names = [{f.name: f for f in sorted(p.iterdir()) if f.is_file() and not f.name.startswith(".")}
             for p in ps]  # fmt: skip
    union = sorted(set().union(*names))
    problems = [f"{p}/ has no {n!r}" for p, got in zip(ps, names) for n in union if n not in got]
    if problems:
        shown = "; ".join(problems[:6]) + ("; ..." if len(problems) > 6 else "")
        raise InputError(f"the four directories' run files must match by name: {shown}")
    if not union:
        raise InputError(f"no run files in {ps[0]}")
    from ..data._common import look_alike

    look_alike(union, [""] * len(union), "experiments (file names)")
    return union, {role: [got[n] for n in union] for role, got in zip(ROLES, names)}


def _runset(files: list[Path], labels: list[str], qrels, precision: str, rankings: bool = False):
    """One RunSet of ``files`` named ``labels``, and with ``rankings`` the same runs ranked by their float64 scores (a run file's order)."""
    from ..data._runs import _assemble, _read_runs

    cols = [dataclasses.replace(c, name=lab) for c, lab in zip(_read_runs(files), labels)]
    source = "simulated" if qrels.source == "simulated" else "user files"
    # _assemble consumes the list; the experiments' names are checked by _quadruples
    rs = _assemble(list(cols), qrels, name="reproduce", source=source, precision=precision, twins=False)
    if not rankings:
        return rs, None
    exact = rs if precision == "float64" else _assemble(cols, qrels, name="reproduce", source=source,
                                                        precision="float64", twins=False)  # fmt: skip
    return rs, exact


def reproduce_runs(
    orig_baseline, orig_advanced, repro_baseline, repro_advanced, qrels, *, repro_qrels=None,
    measures: Sequence[str] = ("AP", "nDCG@10", "P@10"), B: int = 1000, level: float = 0.95,
    seed: SeedLike = 0, rel: int = 1, precision: str = "float32", allow_simulated: bool = False,
) -> Reproduction:  # fmt: skip
    """Read, score and compare original and reproduced runs: every measure of Breuer et al.

    Per experiment, each with a topic-bootstrap BCa interval on the same resamples: KTU and RBO of
    each reproduced run's rankings against the original's, means over the topics both runs ranked
    (KTU: 2 documents or more); RMSE and the t-test's p-value per run and measure; ER and Delta RI
    per measure. Scores follow trec_eval (every topic of the qrels; a topic a run misses scores 0;
    repro_eval averages over the topics a run retrieved for). With ``repro_qrels`` (replicability)
    only ER, Delta RI and the unpaired p-values are defined, the two topic sets resampled
    independently.

    Parameters
    ----------
    orig_baseline, orig_advanced, repro_baseline, repro_advanced : str or Path
        Four run files, or four directories whose run files are matched by name.
    qrels : str, Path or Qrels
        The judgments of the original (and, without ``repro_qrels``, of the reproduction):
        anything :func:`irrepro.data.load_qrels` takes.
    repro_qrels : optional
        The judgments of the reproduction's topics (replicability).
    measures : sequence of str
        Evaluation measures (``irrepro.measures.parse_measure`` names).
    B : int, default 1000
        Bootstrap resamples of the topics: at least 100, and one beyond each end of the intervals,
        ``B (1 - level) / 2 >= 1`` (``irrepro.stats.check_resamples``).
    level : float, default 0.95
        Confidence level.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The resamples' seed.
    rel : int, default 1
        Lowest relevant grade.
    precision : {"float32", "float64"}
        How scores are compared when ranking for the evaluation measures
        (:func:`irrepro.data.load_runs`; float32, the default, gives pytrec_eval's and so repro_eval's scores).
        KTU and RBO always rank by the scores in double precision, ties by document id descending:
        a run file's order for a file sorted by score (repro_eval takes the lines' order).
    allow_simulated : bool, default False
        Accept a collection's simulated stand-in for qrels that cannot be had.

    Returns
    -------
    Reproduction
        The estimates; :meth:`Reproduction.to_frame` is the long table.

    Raises
    ------
    irrepro.InputError
        Too few resamples for ``level``, a missing file, directories whose files do not match by
        name, or an original and its reproduction without a topic in common - naming the files.

    Examples
    --------
    See :class:`Reproduction`.
    """
    from .. import measures as ms
    from ..data import load_qrels
    from ..parallel import as_seed_sequence
    from ..stats import check_resamples

    check_resamples(B, "B", level=level)
    names, files = _quadruples([orig_baseline, orig_advanced, repro_baseline, repro_advanced])
    for m in measures:
        ms.parse_measure(m, rel=rel)
    paired = repro_qrels is None
    q_o = load_qrels(qrels, allow_simulated=allow_simulated)
    labels = {role: [f"{role}:{n}" for n in names] for role in ROLES}
    if paired:
        order = list(ROLES)
        rs_o, exact = _runset([f for r in order for f in files[r]], [x for r in order for x in labels[r]], q_o,
                              precision, rankings=True)  # fmt: skip
        rs_r = rs_o
    else:
        q_r = load_qrels(repro_qrels, allow_simulated=allow_simulated)
        o, r = ROLES[:2], ROLES[2:]
        rs_o = _runset([f for x in o for f in files[x]], [y for x in o for y in labels[x]], q_o, precision)[0]
        rs_r = _runset([f for x in r for f in files[x]], [y for x in r for y in labels[x]], q_r, precision)[0]
    idx = {role: [(rs_o if role.startswith("orig") else rs_r).runs.index(x) for x in labels[role]]
           for role in ROLES}  # fmt: skip
    if paired:
        _check_topics(rs_o, idx, files)
    path = {lab: str(f) for role in ROLES for lab, f in zip(labels[role], files[role])}
    covered = rs_o._coverage() + ([] if paired else rs_r._coverage())
    coverage = tuple({**r, "run": path[r["run"]]} for r in covered)
    seed = as_seed_sequence(seed)  # one seed: every statistic draws the same resamples
    scores_o = ms.evaluate(rs_o, list(measures), rel=rel)
    scores_r = scores_o if paired else ms.evaluate(rs_r, list(measures), rel=rel)
    kw: dict[str, Any] = {"B": B, "level": level}
    x = {role: np.stack([(scores_o if role.startswith("orig") else scores_r)[m].scores[idx[role]]
                         for m in scores_o]) for role in ROLES}  # fmt: skip  # (measures, experiments, topics)
    names_m = tuple(scores_o)
    est: dict[tuple[str, str, str], Estimate] = {}
    for run in ("baseline", "advanced"):
        xo, xr = x[f"orig_{run}"], x[f"repro_{run}"]
        if paired:
            assert exact is not None  # paired: the rankings were made
            codes = exact.doc_codes
            oc, rc = codes[idx[f"orig_{run}"], :, :RUN_LENGTH], codes[idx[f"repro_{run}"], :, :RUN_LENGTH]
            est[(run, "", "KTU")] = topic_mean(ktu(oc, rc), seed=_same(seed), **kw)
            est[(run, "", "RBO")] = topic_mean(rbo(oc, rc, p=RBO_P, depth=RBO_DEPTH), seed=_same(seed), **kw)
            _per_measure(est, run, names_m, "RMSE", rmse(xo, xr, seed=_same(seed), **kw))
        _per_measure(est, run, names_m, "p-value", p_value(xo, xr, paired=paired, seed=_same(seed), **kw))
    args = (x["orig_baseline"], x["orig_advanced"], x["repro_baseline"], x["repro_advanced"])
    _per_measure(est, "effect", names_m, "ER", effect_ratio(*args, paired=paired, seed=_same(seed), **kw))
    _per_measure(est, "effect", names_m, "DeltaRI", delta_ri(*args, paired=paired, seed=_same(seed), **kw))
    return Reproduction(tuple(names), files, names_m, paired, (len(rs_o.topics), len(rs_r.topics)), est, seed,
                        rs_o.simulated or rs_r.simulated, coverage)  # fmt: skip


def _same(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """A fresh copy of ``seed`` (a SeedSequence is stateless for ``default_rng``; copied to be sure)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)


def _per_measure(est: dict, run: str, names: tuple, statistic: str, e: Estimate) -> None:
    """Split an estimate over (measures, experiments) into one per measure."""
    for k, m in enumerate(names):
        est[(run, m, statistic)] = dataclasses.replace(e, value=e.value[k], low=e.low[k], high=e.high[k])


def _check_topics(rs, idx: dict, files: dict) -> None:
    """An original and its reproduction must rank documents for a topic in common."""
    got = rs.lengths > 0
    for run in ("baseline", "advanced"):
        for i, (a, b) in enumerate(zip(idx[f"orig_{run}"], idx[f"repro_{run}"])):
            if not (got[a] & got[b]).any():
                raise InputError(
                    f"{files[f'repro_{run}'][i]} and {files[f'orig_{run}'][i]} rank documents for no "
                    "topic in common: a reproduction on other topics is a replication (give --repro-qrels)"
                )
