"""The named collections of the book, the files each needs, where they are and their download."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UnknownNameError
from ._fetch import locate, registry, where

if TYPE_CHECKING:
    import pandas as pd


def _r(a: int, b: int, skip: tuple[int, ...] = ()) -> tuple[str, ...]:
    return tuple(str(t) for t in range(a, b + 1) if t not in skip)


#: ir_datasets ids and the registry files (relative paths) each needs in IR_DATASETS_HOME.
IR_DATASETS_FILES: dict[str, tuple[str, ...]] = {
    "cord19/trec-covid/round1": (
        "ir_datasets/cord19/trec-covid/round1/qrels",
        "ir_datasets/cord19/trec-covid/round1/queries.xml",
    ),
    "cord19/trec-covid/round5": (
        "ir_datasets/cord19/trec-covid/round5/qrels",
        "ir_datasets/cord19/trec-covid/queries.xml",
    ),
    "cord19/trec-covid": (
        "ir_datasets/cord19/trec-covid/qrels",
        "ir_datasets/cord19/trec-covid/queries.xml",
    ),
    "disks45/nocr/trec-robust-2004": ("ir_datasets/disks45/qrels.robust2004.txt",),
}

_U = "score-matrices/urbano/"
_STAT = _U + "sigir2019-statistical/data/"
_SIM = _U + "sigir2018-simulation/data/"
_STD = _U + "sigir2019-standardization/data/"
_REL = _U + "irj2015-reliability/data/"


@dataclass(frozen=True)
class Collection:
    """A named data set of the book: its kind (``runs`` or ``matrices``), published shape, files and citation."""

    name: str
    title: str
    kind: str
    shape: tuple[int, int]
    topics: tuple[str, ...] | None = None  # topic ids of matrix rows (None: the file has them)
    matrices: dict[str, str] = field(default_factory=dict)  # measure -> registry path
    run_dir: str | None = None  # registry folder of the run files
    ir_datasets_id: str | None = None  # qrels (and topics) through ir_datasets
    extra_files: tuple[str, ...] = ()  # e.g. NIST's leaderboard
    relevant_median: float | None = None  # median R of the real qrels (the stand-in's r_median)
    citation: str = ""

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.matrices)

    def files(self) -> list[str]:
        """Every registry path this collection needs."""
        out = list(self.matrices.values())
        if self.run_dir:
            out += sorted(p for p in registry() if p.startswith(self.run_dir + "/"))
        if self.ir_datasets_id:
            out += list(IR_DATASETS_FILES[self.ir_datasets_id])
        out += list(self.extra_files)
        return out


def _covid(round_: int, n_runs: int, n_topics: int, relevant_median: float) -> Collection:
    return Collection(
        name=f"trec-covid-round{round_}",
        title=f"TREC-COVID round {round_}",
        kind="runs",
        shape=(n_runs, n_topics),
        topics=_r(1, n_topics),
        run_dir=f"trec-covid/round{round_}/runs",
        ir_datasets_id=f"cord19/trec-covid/round{round_}",
        extra_files=(f"trec-covid/round{round_}/leaderboard.csv",),
        relevant_median=relevant_median,
        citation="voorhees2020treccovid",
    )


def _unlabelled(
    name: str, title: str, shape: tuple[int, int], matrices=None, citation="urbano2015reliability"
):
    """Matrices whose topic ids are not published with them (rows labelled row1..); by default Urbano et al. (2015)'s AP."""
    return Collection(
        name=name,
        title=title,
        kind="matrices",
        shape=shape,
        topics=tuple(f"row{i}" for i in range(1, shape[1] + 1)),
        matrices=matrices or {"AP": f"{_REL}{name}.csv"},
        citation=citation,
    )


def _adhoc(year: int, n_runs: int, first_topic: int) -> Collection:
    return Collection(
        name=f"trec{year}",
        title=f"TREC-{year} ad hoc",
        kind="matrices",
        shape=(n_runs, 50),
        topics=_r(first_topic, first_topic + 49),
        matrices={m: f"{_STAT}adhoc{year}_{f}.csv" for m, f in [("AP", "ap"), ("P@10", "p10"), ("RR", "rr")]},
        citation="urbano2019statistical",
    )


def _web(year: int, n_runs: int, topics: tuple[str, ...]) -> Collection:
    ms = {"AP": "ap", "P@10": "p10", "P@20": "p20", "RR": "rr", "nDCG@20": "ndcg20", "ERR@20": "err20"}
    return Collection(
        name=f"web{year}",
        title=f"TREC {year} Web track",
        kind="matrices",
        shape=(n_runs, len(topics)),
        topics=topics,
        matrices={m: f"{_SIM}web{year}_{f}.csv" for m, f in ms.items()},
        citation="urbano2018simulation",
    )


COLLECTIONS: dict[str, Collection] = {
    c.name: c
    for c in [
        _covid(5, 126, 50, 189),  # every run, judged with the round's own qrels
        _covid(1, 143, 30, 71.5),
        Collection(
            name="trec3",
            title="TREC-3 ad hoc",
            kind="matrices",
            shape=(40, 50),
            topics=_r(151, 200),
            matrices={"AP": _U + "gt4ireval/data/adhoc3.rda"},
            citation="urbano2013measurement",
        ),
        _adhoc(5, 61, 251),
        _adhoc(6, 74, 301),  # the 74 runs Cormack & Lynam used
        _adhoc(7, 103, 351),
        _adhoc(8, 129, 401),
        Collection(
            name="robust2003",
            title="TREC 2003 Robust",
            kind="matrices",
            shape=(78, 100),
            # rows 1-50: older topics of TREC 6-8, their ids not published with the matrix
            topics=tuple(f"old{i}" for i in range(1, 51)) + _r(601, 650),
            matrices={"AP": _REL + "robust2003.csv"},
            citation="urbano2015reliability",
        ),
        Collection(
            name="robust2004",
            title="TREC 2004 Robust (249 topics)",
            kind="matrices",
            shape=(110, 249),
            topics=_r(301, 450) + _r(601, 700, skip=(672,)),
            matrices={"AP": _SIM + "robust2004_ap.csv", "P@10": _SIM + "robust2004_p10.csv"},
            ir_datasets_id="disks45/nocr/trec-robust-2004",
            relevant_median=41,
            citation="urbano2018simulation",
        ),
        Collection(
            name="robust2004-601-700",
            title="TREC 2004 Robust, topics 601-700",
            kind="matrices",
            shape=(110, 99),
            topics=_r(601, 700, skip=(672,)),
            matrices={"AP": _STD + "robust2004_ap.csv", "nDCG": _STD + "robust2004_ndcg.csv"},
            citation="urbano2019standardization",
        ),
        _unlabelled(
            "terabyte2006",
            "TREC 2006 Terabyte",
            (61, 149),
            {"AP": _STD + "terabyte2006_ap.csv", "nDCG": _STD + "terabyte2006_ndcg.csv"},
            "urbano2019standardization",
        ),
        _web(2010, 88, _r(51, 100, skip=(95, 100))),
        _web(2011, 62, _r(101, 150)),
        _web(2012, 48, _r(151, 200)),
        _web(2013, 34, _r(201, 250)),
        _web(2014, 30, _r(251, 300)),
        _unlabelled("web2004", "TREC 2004 Web track", (73, 150)),
        _unlabelled("genomics2004", "TREC 2004 Genomics track", (47, 50)),
        _unlabelled("enterprise2006", "TREC 2006 Enterprise track", (91, 49)),
    ]
}


def get_collection(name: str) -> Collection:
    """The collection named ``name`` (UnknownNameError listing the known ones)."""
    try:
        return COLLECTIONS[name]
    except KeyError:
        raise UnknownNameError(f"unknown collection {name!r}; known: {', '.join(COLLECTIONS)}") from None


def status(collections: Sequence[str] | None = None) -> pd.DataFrame:
    """Where each collection's files are found now (nothing is downloaded or copied), and whether all are verified.

    Parameters
    ----------
    collections : sequence of str, optional
        The collections (default: all of ``COLLECTIONS``).

    Returns
    -------
    pandas.DataFrame
        One row per collection: its number of files, where they are (cache, mirror, missing, ...),
        and ``"verified"`` or how many are missing.

    Examples
    --------
    >>> from irrepro import data
    >>> data.status(["trec8"]).columns.tolist()
    ['collection', 'files', 'where', 'status']
    """
    import pandas as pd

    rows = []
    for name in collections or COLLECTIONS:
        coll = get_collection(name)
        files = coll.files()
        places = pd.Series([where(p) for p in files]).value_counts().to_dict()
        ok = places.get("cache", 0) + places.get("mirror", 0)
        rows.append(
            {
                "collection": name,
                "files": len(files),
                "where": ", ".join(f"{k}: {v}" for k, v in sorted(places.items())),
                "status": "verified" if ok == len(files) else f"missing {len(files) - ok}",
            }
        )
    return pd.DataFrame(rows)


def fetch(names: str | Sequence[str] = "all", *, progress: bool = True) -> list[Path]:
    """Put every file of the named collections into the cache, verified.

    Parameters
    ----------
    names : str or sequence of str, default "all"
        Collection names, or ``"all"``.
    progress : bool, default True
        A progress bar over the files.

    Returns
    -------
    list of pathlib.Path
        The verified files in the cache (:class:`DataUnavailable` for one that cannot be had).

    Examples
    --------
    >>> from irrepro import data
    >>> paths = data.fetch("trec8")  # doctest: +SKIP
    """
    from tqdm import tqdm

    if isinstance(names, str):
        names = list(COLLECTIONS) if names == "all" else [names]
    files = list(dict.fromkeys(p for n in names for p in get_collection(n).files()))
    out = []
    for rel in tqdm(files, desc="fetching", unit="file", disable=not progress):
        out.append(locate(rel))
    return out
