"""Standardization factors in the file format ``trec_eval -Z`` reads (Webber, Moffat & Zobel 2008, section 3).

The format (usnistgov/trec_eval, ``get_zscores.c``): one line ``qid measure_name mean std_dev`` per
query and measure, in any order. trec_eval applies it as ``(value - mean) / std_dev`` - the z-score,
not its normal CDF; a zero std_dev gives 0 when the value equals the mean and -1000000 (its missing
value) otherwise, as does a query or measure the file lacks (``convert_zscores.c``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

import numpy as np

from ..errors import InputError, OutputError
from ._scores import Factors


def write_zscores(path, factors_by_measure: Mapping[str, Factors]) -> int:
    """Write standardization factors as ``trec_eval -Z`` reads them, with 17 significant digits.

    Parameters
    ----------
    path : str, os.PathLike or text file object
        The file to write (replaced if it exists), or an open text file.
    factors_by_measure : mapping of str to Factors
        Per measure name as trec_eval prints it, the factors (with topic ids).

    Returns
    -------
    int
        The number of lines written.

    Raises
    ------
    irrepro.InputError
        Factors without topic ids, a name or id with whitespace, a mean or sd not finite, a negative sd.
    irrepro.errors.OutputError
        The file cannot be written.

    Examples
    --------
    >>> import tempfile, os
    >>> from irrepro.standardize import factors, write_zscores, read_zscores
    >>> f = factors(np.array([[0.2, 0.5], [0.4, 0.7], [0.3, 0.3]]), topics=["401", "402"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "zscores.txt")
    ...     n = write_zscores(p, {"map": f})
    ...     print(open(p).read(), end="")
    ...     back = read_zscores(p)["map"]
    401 map 0.30000000000000004 0.10000000000000001
    402 map 0.5 0.19999999999999998
    >>> n, bool((back.mean == f.mean).all() and (back.sd == f.sd).all())
    (2, True)
    """
    lines = []
    for measure, fac in factors_by_measure.items():
        if fac.topics is None:
            raise InputError(f"the factors of {measure} carry no topic ids; trec_eval needs them")
        if not measure or any(c.isspace() for c in measure):
            raise InputError(f"measure name {measure!r} is empty or holds whitespace")
        for topic, mean, sd in zip(fac.topics, fac.mean, fac.sd):
            if not topic or any(c.isspace() for c in topic):
                raise InputError(f"topic id {topic!r} is empty or holds whitespace")
            if not (math.isfinite(mean) and math.isfinite(sd) and sd >= 0):
                raise InputError(
                    f"{measure}, topic {topic}: mean {float(mean)!r}, sd {float(sd)!r}; trec_eval -Z "
                    "needs a finite mean and sd >= 0"
                )
            lines.append(f"{topic} {measure} {float(mean):.17g} {float(sd):.17g}\n")
    if hasattr(path, "write"):
        path.writelines(lines)
        return len(lines)
    try:
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.writelines(lines)
    except OSError as exc:
        raise OutputError(exc.errno or 5, exc.strerror or str(exc), str(path)) from None
    return len(lines)


def read_zscores(path) -> dict[str, Factors]:
    """Read a ``trec_eval -Z`` file back into standardization factors (blank lines skipped).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    dict of str to Factors
        Per measure name, the factors with their topic ids in file order.

    Raises
    ------
    irrepro.InputError
        Naming file and line: not four fields, a mean or sd not finite, a negative sd, a measure and
        topic twice, a file that cannot be read or holds no line.
    """
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: cannot read the z-score file ({exc})") from None
    rows: dict[str, dict[str, tuple[float, float]]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        where = f"{name}, line {number}"
        if len(fields) != 4:
            raise InputError(f"{where}: expected 'qid measure mean sd', got {len(fields)} fields")
        topic, measure, mean_text, sd_text = fields
        try:
            mean, sd = float(mean_text), float(sd_text)
        except ValueError:
            raise InputError(f"{where}: mean {mean_text!r} or sd {sd_text!r} is not a number") from None
        if not (math.isfinite(mean) and math.isfinite(sd)):
            raise InputError(f"{where}: mean {mean_text!r} or sd {sd_text!r} is not finite")
        if sd < 0:
            raise InputError(f"{where}: sd {sd_text} of {measure}, topic {topic} is negative")
        per = rows.setdefault(measure, {})
        if topic in per:
            raise InputError(f"{where}: {measure}, topic {topic} given twice")
        per[topic] = (mean, sd)
    if not rows:
        raise InputError(f"{name}: no 'qid measure mean sd' line")
    return {
        m: Factors(np.array([v[0] for v in per.values()]), np.array([v[1] for v in per.values()]), tuple(per))
        for m, per in rows.items()
    }
