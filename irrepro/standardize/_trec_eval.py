"""Standardization factors in the file format ``trec_eval -Z`` reads (Webber, Moffat & Zobel 2008,
section 3).

The format, from usnistgov/trec_eval (``get_zscores.c`` lines 16-23 and ``parse_zscore_line``
lines 183-230; ``trec_eval.c`` lines 82-89, the ``-Z`` usage): one line per query and measure,

    qid  measure_name  mean  std_dev

four whitespace-separated fields (strings without whitespace, two doubles read with ``atof``), in
any order. ``convert_zscores.c`` lines 26-65 applies it per query and measure as
``(value - mean) / std_dev`` - the z-score, *not* mapped through the normal CDF; a zero std_dev
gives 0 when the value equals the mean and ``MISSING_ZSCORE_VALUE`` (-1000000, ``trec_eval.h``)
otherwise, as does a query or measure the file lacks."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

import numpy as np

from ..errors import InputError, OutputError
from ._scores import Factors


def write_zscores(path, factors_by_measure: Mapping[str, Factors]) -> int:
    """Write standardization factors in the format ``trec_eval -Z`` reads.

    Parameters
    ----------
    path : str, os.PathLike or text file object
        The file to write (replaced if it exists), or an open text file to write into.
    factors_by_measure : mapping of str to Factors
        Per measure name *as trec_eval prints it* (``map``, ``P_10``, ``ndcg_cut_10``: see
        :func:`irrepro.measures.trec_eval_name`), the factors of :func:`factors` (with topic ids).

    Returns
    -------
    int
        The number of lines written (one per measure and topic).

    Raises
    ------
    irrepro.InputError
        Factors without topic ids, a name or topic id with whitespace, or a mean or sd that is not
        finite or a negative sd.
    irrepro.errors.OutputError
        When the file cannot be written.

    Notes
    -----
    Lines are ``qid measure mean sd`` (trec_eval's ``get_zscores.c``), the numbers written with 17
    significant digits so that :func:`read_zscores` and trec_eval's ``atof`` give back exactly the
    same doubles. The factors are the per-topic mean and sample sd of the standardizing systems,
    eq. 1 of Webber, Moffat & Zobel (2008, section 3); ``trec_eval -c -Z FILE`` (with the ``-m``
    options and ``-l`` that print these names: ``irrepro standardize`` prints the command) then
    prints the z-scores ``z_st``, to which :func:`standardize` with ``cdf=False`` is equal.

    A topic on which every standardizing system scored the same has that score as its mean and sd
    exactly 0 (:func:`factors`), and is written so. trec_eval's ``-Z`` convention for it
    (``convert_zscores.c`` lines 49-60): z = 0 for a run whose value equals the mean - each
    standardizing run, and any run scoring the same - and ``MISSING_ZSCORE_VALUE``, -1000000, for
    a run scoring otherwise (which then dominates trec_eval's mean of the z-scores). irrepro's
    :func:`zscores` gives such a run z = 0 as well (standardized score 0.5; its Notes say why).
    The values trec_eval compares with the mean are its own: equal to irrepro's where irrepro
    evaluates as trec_eval does (trec_eval 10 ranks by float64 scores: ``--precision float64``).

    Examples
    --------
    >>> import numpy as np, tempfile, os
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
    """Read a ``trec_eval -Z`` file back into standardization factors.

    Parameters
    ----------
    path : str or os.PathLike
        A file of lines ``qid measure_name mean std_dev`` (see :func:`write_zscores`).

    Returns
    -------
    dict of str to Factors
        Per measure name (as in the file), the factors with their topic ids in file order.

    Raises
    ------
    irrepro.InputError
        Naming the file and line: a line without exactly four fields, a mean or sd that is not a
        finite number, a negative sd, a measure and topic given twice; or a file that cannot be
        read or holds no line.

    Notes
    -----
    Blank lines are skipped (trec_eval's ``get_zscores.c`` calls them malformed). An sd of 0 is
    accepted, as trec_eval accepts it (see :func:`write_zscores` for what each then gives); a
    negative one is refused. Webber, Moffat & Zobel (2008, section 3) publish such factors
    with a collection to standardize later systems.

    Examples
    --------
    See :func:`write_zscores`.
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
