"""Runs and qrels from the tools users already hold (pandas frames with ir_measures' or PyTerrier's
columns, pytrec_eval-style dicts, ranx objects, lists and dicts of them), every value checked: a
run frame's ``name`` column splits it into runs; ranks come from the scores, as in trec_eval."""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Number
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputTypeError
from ._common import DataError
from ._qrels import Qrels, _checked_qrels
from ._runs import Run, read_run

#: Column names of runs and qrels frames: (topic, document, value) per convention.
RUN_COLUMNS = {"ir_measures": ("query_id", "doc_id", "score"), "PyTerrier": ("qid", "docno", "score")}
QRELS_COLUMNS = {"ir_measures": ("query_id", "doc_id", "relevance"), "PyTerrier": ("qid", "docno", "label")}


def _is_ranx(obj, kind: str) -> bool:
    t = type(obj)
    return t.__module__.startswith("ranx") and t.__name__ == kind


def _pick_columns(df: pd.DataFrame, conventions: Mapping, what: str) -> tuple[str, str, str]:
    cols = set(df.columns)
    for topic, doc, value in conventions.values():
        if {topic, doc} <= cols:
            values = [v for _, _, v in conventions.values() if v in cols]
            if value in cols or values:
                return topic, doc, value if value in cols else values[0]
    wanted = " or ".join(f"{', '.join(c)} ({k})" for k, c in conventions.items())
    raise DataError(f"{what} DataFrame", None, f"needs the columns {wanted}; it has {list(df.columns)}")


def _frame_runs(df: pd.DataFrame, default_name: str) -> list[Run]:
    topic, doc, score = _pick_columns(df, RUN_COLUMNS, "run")
    if len(df) == 0:
        raise DataError(
            "run DataFrame", None, "has no rows: a run needs at least one (topic, document, score)"
        )
    if "name" in df.columns:
        names = df["name"]
        if names.isna().any():
            i = int(np.flatnonzero(names.isna().to_numpy())[0])
            raise DataError("run DataFrame", None, f"row {i + 1}: missing run name")
        groups = [(str(n), g) for n, g in df.groupby("name", sort=False)]
    else:
        groups = [(default_name, df)]
    out = []
    for name, g in groups:
        table = pd.DataFrame(
            {"topic": g[topic].to_numpy(), "doc": g[doc].to_numpy(), "score": g[score].to_numpy()}
        )
        out.append(Run(name, table, f"run DataFrame ({name})"))
    return out


def _dict_rows(obj: Mapping, what: str) -> pd.DataFrame:
    rows = []
    for q, docs in obj.items():
        if not isinstance(docs, Mapping):
            raise DataError(
                f"{what} dict", None, f"topic {q!r}: expected {{docno: value}}, got {type(docs).__name__}"
            )
        rows += [(q, d, v) for d, v in docs.items()]
    return pd.DataFrame(rows, columns=["topic", "doc", "value"])


def _is_run_dict(obj) -> bool:
    """A pytrec_eval-style run ``{qid: {docno: score}}`` (as opposed to a dict of named runs)."""
    return isinstance(obj, Mapping) and all(
        isinstance(v, Mapping) and all(isinstance(x, (Number, np.number, str)) for x in v.values())
        for v in obj.values()
    )


def _one_run(obj, name: str) -> list[Run]:
    if isinstance(obj, Run):
        return [obj]
    if isinstance(obj, (str, Path)):  # a run file among other objects
        return [read_run(obj)]
    if isinstance(obj, pd.DataFrame):
        return _frame_runs(obj, name)
    if _is_ranx(obj, "Run"):
        return _one_run(dict(obj.to_dict()), obj.name or name)
    if _is_run_dict(obj):
        rows = _dict_rows(obj, "run")
        return [Run(name, rows.rename(columns={"value": "score"}), f"run dict ({name})")]
    raise InputTypeError(
        f"cannot read a run from a {type(obj).__name__}: give run files, a DataFrame, a "
        "{qid: {docno: score}} dict or a ranx Run"
    )


def runs_from_object(obj) -> list[Run]:
    """:class:`Run` objects from a DataFrame, a run dict, a ranx Run, or a list / dict of them."""
    if isinstance(obj, Mapping) and not _is_run_dict(obj):
        return [r for name, o in obj.items() for r in _one_run(o, str(name))]
    if isinstance(obj, (list, tuple)):
        return [r for i, o in enumerate(obj) for r in _one_run(o, f"run{i + 1}")]
    return _one_run(obj, "run")


def qrels_from_object(obj, name: str = "qrels") -> Qrels:
    """:class:`Qrels` from a DataFrame, a ``{qid: {docno: grade}}`` dict or a ranx Qrels."""
    if _is_ranx(obj, "Qrels"):
        obj = dict(obj.to_dict())
    named = f" {name}" if name not in ("", "qrels") else ""
    if isinstance(obj, pd.DataFrame):
        topic, doc, grade = _pick_columns(obj, QRELS_COLUMNS, "qrels")
        table = pd.DataFrame({"topic": obj[topic].to_numpy(), "doc": obj[doc].to_numpy(),
                              "grade": obj[grade].to_numpy()})  # fmt: skip
        return _checked_qrels(table, f"qrels DataFrame{named}", "row")
    if isinstance(obj, Mapping):
        return _checked_qrels(
            _dict_rows(obj, "qrels").rename(columns={"value": "grade"}), f"qrels dict{named}", "entry"
        )
    raise InputTypeError(
        f"cannot read qrels from a {type(obj).__name__}: give a qrels file, an ir_datasets id, a "
        "DataFrame, a {qid: {docno: grade}} dict or a ranx Qrels"
    )
