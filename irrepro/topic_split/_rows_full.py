"""Sanderson & Zobel's (2005) rows on the full topic sets: significant pairs, pools, the sd of MAP."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import _lazy
from ._rows import _first_below, _why
from ._sets import significant_share

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


def share_rows(full: pd.DataFrame, numbers: Mapping, spec: Sequence[tuple], *, alpha: float = 0.05,
               note: str = "") -> list[dict]:  # fmt: skip
    """Rows of the share (%) of run pairs significant on the full topic sets, per relative-difference band.

    Per entry ``(key, test, (lo, hi), least)`` of ``spec``, one row (:func:`irrepro.book.share`): the
    share of the pairs whose relative difference lies in ``[lo, hi)`` and whose ``test`` p-value is at
    most ``alpha``, against ``numbers[key]``; a ``least`` MAP keeps only pairs whose two runs both score
    at least that. The sampling error is clustered by system pair; no random step, and no ``paper_se``
    (the paper gives no count of pairs per band).

    Parameters
    ----------
    full : pandas.DataFrame
        :func:`full_set_tests`' rows.
    numbers : mapping
        The paper's numbers (:func:`irrepro.book.paper_numbers`).
    spec : sequence of tuple
        ``(key, test, (lo, hi), least)`` per row; ``test`` one of ``"paired-t"``, ``"sign"``,
        ``"wilcoxon"``, the band in fractions, ``least`` a MAP or None.
    alpha : float
    note : str
        Each row's ``reason`` (none when empty).

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import book, topic_split as ts
    >>> full = pd.DataFrame({"score_a": [0.3] * 4, "score_b": [0.2] * 4, "rel_diff": [0.05, 0.06, 0.07, 0.08],
    ...                      "p_paired-t": [0.01, 0.5, 0.6, 0.7]})
    >>> P = book.paper_numbers("sanderson2005information")
    >>> row = ts.share_rows(full, P, [("full.t.0-10%", "paired-t", (0, 0.1), None)])[0]
    >>> row["ours"], row["unit"], round(row["se_sampling"], 1)
    ('25.0%', 'system pair', 25.0)
    """
    rows = []
    why = "every pair of kept runs on all its year's topics: no random step"
    for key, test, (lo, hi), least in spec:
        p = full if least is None else full[(full.score_a >= least) & (full.score_b >= least)]
        sel = p[(p.rel_diff >= lo - 1e-12) & (p.rel_diff < hi - 1e-12)]
        band = f"{100 * lo:g}-{100 * hi:g}%"
        q = f"{test}: share significant, " + (f"relative difference {band}" if least is None
                                               else f"{band}, runs with MAP ≥ {least:g}")  # fmt: skip
        row = book.share(q, numbers[key], (sel[f"p_{test}"] <= alpha).to_numpy(), unit="system pair",
                         reason=why, note=f"{len(sel)} pairs; the paper gives no count per band")  # fmt: skip
        rows.append(row | _why(note))
    return rows


def half_claim_row(
    full: pd.DataFrame, numbers: Mapping, key: str, *, band=(0.2, 0.3), alpha: float = 0.05, reason: str = ""
) -> dict:
    """The row of the paper's "only about half" of pairs about 20% apart being significant (section 3).

    The share of the pairs in ``band`` the paired t-test finds significant on all topics, a fraction
    rounded to 3 digits, its sampling error clustered by system pair (the paper's evidence: 57.3% in
    20%-30%, the band the row's quantity names).

    Parameters
    ----------
    full : pandas.DataFrame
        :func:`full_set_tests`' rows.
    numbers : mapping
        The paper's numbers.
    key : str
    band : tuple of float
        ``(lo, hi)``: relative differences ``[lo, hi)``, in fractions.
    alpha : float
    reason : str
        The row's ``reason`` (none when empty).

    Returns
    -------
    dict

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import book, topic_split as ts
    >>> full = pd.DataFrame({"score_a": [0.3] * 4, "score_b": [0.24] * 4, "rel_diff": [0.21, 0.22, 0.25, 0.28],
    ...                      "p_paired-t": [0.01, 0.04, 0.2, 0.6]})
    >>> P = book.paper_numbers("sanderson2005information")
    >>> ts.half_claim_row(full, P, "full.t.half")["ours"]
    0.5
    """
    lo, hi = band
    sel = full[(full.rel_diff >= lo - 1e-12) & (full.rel_diff < hi - 1e-12)]
    hits = (sel["p_paired-t"] <= alpha).to_numpy(dtype=float)
    err = book.errors(values=hits, unit="system pair", mc=0.0,
                      reason="every pair of kept runs on all its year's topics: no random step")  # fmt: skip
    share = float(significant_share(sel, [band], alpha=alpha, tests=["paired-t"])["paired-t"].iloc[0])
    return book.rate("t-test: share of pairs 20%-30% apart significant (\"about half\")",
                     numbers[key], round(share, 3), err,
                     note=f"{len(sel)} pairs; the paper's share for 20%-30% is its evidence") | _why(reason)  # fmt: skip


def _pool_stats(a: Mapping[int, np.ndarray], ix: np.ndarray) -> tuple[float, float, float]:
    """The pool ratio, topics for the effort of 50 deep ones, and relevant per effort, of topics ``ix``."""
    s10, s100 = a[10][ix].sum(0), a[100][ix].sum(0)
    ratio = s10[0] / s100[0]
    return ratio, 50 / ratio, (s10[1] / s100[1]) / ratio


def pool_rows(pools: Mapping[int, pd.DataFrame], numbers: Mapping, keys: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
              runs: Mapping[int, str] | None = None, reason: str = "") -> list[dict]:  # fmt: skip
    """The rows of section 4 (pool depth and assessor effort), three per round.

    Per round, over the topics pooled at both depth 10 and 100: the depth-10 over the depth-100 pool
    (%); the topics pooled to depth 10 for the effort of 50 at depth 100 (50 over that ratio); the
    relevant documents found per unit of effort, shallow against deep (judged-relevant only, so a lower
    bound for depth 100). Sampling error: a bootstrap over topics.

    Parameters
    ----------
    pools : mapping of int to pandas.DataFrame
        Round -> :func:`pool_sizes`' rows, with depths 10 and 100.
    numbers : mapping
        The paper's numbers.
    keys : sequence of str
        The paper's three numbers, in the order above.
    n_boot : int
        Bootstrap resamples of the topics.
    seed : int
    runs : mapping of int to str, optional
        Round -> a note on its runs, on the round's first row.
    reason : str
        Each row's ``reason`` (none when empty).

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import book, topic_split as ts
    >>> pools = {8: pd.DataFrame({"topic": ["1", "2", "1", "2"], "depth": [10, 10, 100, 100],
    ...                           "pool": [40, 60, 400, 500], "relevant": [10, 20, 30, 40]})}
    >>> P = book.paper_numbers("sanderson2005information")
    >>> rows = ts.pool_rows(pools, P, ["pools.ratio", "pools.topics", "pools.relevant"], n_boot=50)
    >>> [r["ours"] for r in rows]
    ['11.1%', '450', '3.9 x']
    """
    rows = []
    rng = np.random.default_rng(seed)
    why = "counted from the runs and qrels: no random step"
    for r, p in pools.items():
        g = {d: p[p.depth == d].set_index("topic")[["pool", "relevant"]] for d in (10, 100)}
        topics = g[10].index.intersection(g[100].index)
        a = {d: g[d].loc[topics].to_numpy(dtype=float) for d in g}  # (topics, [pool, relevant])

        value = _pool_stats(a, np.arange(len(topics)))
        boots = np.array([_pool_stats(a, rng.integers(0, len(topics), len(topics))) for _ in range(n_boot)])
        se = boots.std(axis=0, ddof=1)
        unit = f"topic ({n_boot} bootstrap resamples of the {len(topics)} topics)"
        e = [book.errors(sampling=float(s), unit=unit, mc=0.0, reason=why) for s in se]
        where = (runs or {}).get(r, "")
        rows += [
            book.rate(f"round {r}: depth-10 pool / depth-100 pool", numbers[keys[0]], f"{100 * value[0]:.1f}%",
                      e[0].scaled(100), note=where),
            book.count(f"round {r}: topics for the effort of 50 at depth 100", numbers[keys[1]],
                       f"{value[1]:.0f}", e[1]),
            book.score(f"round {r}: relevant found, shallow many-topic vs deep 50-topic", numbers[keys[2]],
                       f"{value[2]:.1f} x", e[2],
                       note="judged-relevant only: deep pools are judged shallowly (a lower bound for depth 100)"),
        ]  # fmt: skip
    return [row | _why(reason) for row in rows]


def sd_rows(
    sds: Sequence[pd.DataFrame], numbers: Mapping, keys: Sequence[str], *, samples: int, reason: str = ""
) -> list[dict]:
    """The rows of section 5: the standard deviation of MAP against the number of topics.

    The values of the first seed: the sd at 5 and at 25 topics, the per-topic sd of AP they imply (sd
    at 5 x sqrt 5; not compared) and the smallest size whose sd is below 0.01. Monte Carlo error: the sd
    over the seeds; no sampling error (the sd averages over the runs and topics we have).

    Parameters
    ----------
    sds : sequence of pandas.DataFrame
        :func:`map_sd` at each seed (at least two, with sizes 5 and 25).
    numbers : mapping
        The paper's numbers.
    keys : sequence of str
        The paper's sd at 5 topics, at 25 topics and first size below 0.01, in this order.
    samples : int
        The topic samples per run and size of each ``map_sd``.
    reason : str
        Each row's ``reason`` (none when empty).

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import book, topic_split as ts
    >>> sds = [pd.DataFrame({"topics": [5, 15, 25], "sd": [0.030 + d, 0.012, 0.009 + d]}) for d in (0, 0.0005)]
    >>> P = book.paper_numbers("sanderson2005information")
    >>> rows = ts.sd_rows(sds, P, ["sd.5", "sd.25", "sd.below-0.01"], samples=10)
    >>> [r["ours"] for r in rows]
    [0.03, 0.009, 0.067..., 25]
    """
    sd = sds[0].set_index("topics").sd
    seeds = f"sd over {len(sds)} seeds of map_sd ({samples} samples per run and size): the spread of one seed's value"
    why = "the average over the runs and topics we have (a substitution for the paper's, named in the data column)"

    def err(vals):
        return book.errors(sampling=0.0, unit="", mc=float(np.nanstd(vals, ddof=1)), replicates=samples,
                           reason=why + "; " + seeds)  # fmt: skip

    at = {n: [float(d.set_index("topics").sd[n]) for d in sds] for n in (5, 25)}
    below = [_first_below(d) for d in sds]
    step = int(sds[0].topics.iloc[1] - sds[0].topics.iloc[0])
    b0 = below[0]
    rows = [
        book.score("sd of MAP, 5 topics", numbers[keys[0]], float(sd[5]), err(at[5])),
        book.score("sd of MAP, 25 topics", numbers[keys[1]], float(sd[25]), err(at[25])),
        book.score("implied per-topic sd of AP (sd at 5 topics x sqrt 5)", None, float(sd[5] * 5**0.5),
                   err(np.array(at[5]) * 5**0.5),
                   note=f"the paper's: {numbers[keys[0]].value} x sqrt 5 = {numbers[keys[0]].value * 5**0.5:.3f}; "
                        "the sd of a mean scales as sigma / sqrt(n)"),
        book.count("topics where sd first drops below 0.01", numbers[keys[2]],
                   int(b0) if np.isfinite(b0) else "not within the topics", err(below),
                   note=f"sizes in steps of {step}; the finite population of topics shrinks the sd of large samples"),
    ]  # fmt: skip
    return [row | _why(reason) for row in rows]
