"""Sanderson & Zobel's (2005) rows on the full topic sets for the book's one rule: shares of
significant pairs (:func:`share_rows`; the sampling error clustered by system pair), the paper's
"about half" (:func:`half_claim_row`), pool depths (:func:`pool_rows`; a bootstrap over topics)
and the standard deviation of MAP (:func:`sd_rows`)."""

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

    Each entry ``(key, test, (lo, hi), least)`` of ``spec`` gives one row (kind ``"rate"``, built by
    :func:`irrepro.book.share`): the share of the pairs of ``full`` whose relative difference lies in
    ``[lo, hi)`` and whose p-value by ``test`` is at most ``alpha``, printed in %, against the paper's
    number ``numbers[key]``. A ``least`` MAP (not None) keeps only the pairs whose two runs both score
    at least that. The sampling error is clustered by system pair (Agresti & Coull's where every pair
    agrees); there is no random step. The paper gives no count of pairs per band, so the rows carry
    no ``paper_se``.

    Parameters
    ----------
    full : pandas.DataFrame
        :func:`~irrepro.topic_split.full_set_tests`' rows: ``score_a``, ``score_b``, ``rel_diff`` and a
        ``p_<test>`` column per test.
    numbers : mapping
        The paper's numbers (:func:`irrepro.book.paper_numbers`), indexed by the keys of ``spec``.
    spec : sequence of tuple
        ``(key, test, (lo, hi), least)`` per row: the paper's number, the test (``"paired-t"``,
        ``"sign"``, ``"wilcoxon"``), the band of relative differences (fractions) and the least MAP
        of both runs or None.
    alpha : float
        The significance level (p <= alpha is significant).
    note : str
        Appended to each row as its ``reason`` (none when empty).

    Returns
    -------
    list of dict
        One row per entry of ``spec``, for :func:`irrepro.book.compare`; ``note`` gives the number of
        pairs in the band.

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
    """The row of the paper's "only about half" of pairs about 20% apart being significant, as a rate.

    Section 3 of the paper says "only about half of comparisons with a MAP difference of around 20%
    are significant" (its evidence: 57.3% in the band 20%-30%). The row (kind ``"rate"``) is the
    share of the pairs of ``full`` whose relative difference lies in ``band`` that the paired t-test
    finds significant at ``alpha`` on all topics, as a fraction rounded to 3 digits, with its
    sampling error clustered by system pair and no random step. Its quantity names the band
    20%-30%, the default.

    Parameters
    ----------
    full : pandas.DataFrame
        :func:`~irrepro.topic_split.full_set_tests`' rows, with ``rel_diff`` and ``p_paired-t``.
    numbers : mapping
        The paper's numbers (:func:`irrepro.book.paper_numbers`).
    key : str
        The key of the paper's number in ``numbers``.
    band : tuple of float
        ``(lo, hi)``: the relative differences ``[lo, hi)`` of the pairs read (fractions).
    alpha : float
        The t-test's level.
    reason : str
        Appended to the row as its ``reason`` (none when empty).

    Returns
    -------
    dict
        The row, for :func:`irrepro.book.compare`; its ``note`` gives the number of pairs.

    Examples
    --------
    >>> import pandas as pd
    >>> from irrepro import book, topic_split as ts
    >>> full = pd.DataFrame({"score_a": [0.3] * 4, "score_b": [0.24] * 4, "rel_diff": [0.21, 0.22, 0.25, 0.28],
    ...                      "p_paired-t": [0.01, 0.04, 0.2, 0.6]})
    >>> P = book.paper_numbers("sanderson2005information")
    >>> row = ts.half_claim_row(full, P, "full.t.half")
    >>> row["kind"], row["ours"], row["unit"]
    ('rate', 0.5, 'system pair')
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
    """The pool ratio, the topics for the effort of 50 deep ones and the relevant found per effort
    of the topics ``ix`` (``a``: depth -> (topics, [pool, relevant]))."""
    s10, s100 = a[10][ix].sum(0), a[100][ix].sum(0)
    ratio = s10[0] / s100[0]
    return ratio, 50 / ratio, (s10[1] / s100[1]) / ratio


def pool_rows(pools: Mapping[int, pd.DataFrame], numbers: Mapping, keys: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
              runs: Mapping[int, str] | None = None, reason: str = "") -> list[dict]:  # fmt: skip
    """The rows of section 4 (pool depth and assessor effort), three per round, each with a bootstrap error.

    Per round of ``pools``, over the topics with pools at both depth 10 and depth 100:

    1. the depth-10 pool over the depth-100 pool, summed over topics (kind ``"rate"``, in %);
    2. the topics pooled to depth 10 for the assessor effort of 50 topics at depth 100, that is 50
       over that ratio (kind ``"count"``);
    3. the relevant documents the shallow many-topic pools find against the deep 50-topic ones,
       per unit of effort (kind ``"score"``, ``"<x> x"``; judged-relevant documents only, so a
       lower bound for depth 100).

    Each carries its sampling error from ``n_boot`` bootstrap resamples of the topics (the sums are
    over topics); the counts have no random step.

    Parameters
    ----------
    pools : mapping of int to pandas.DataFrame
        Round -> :func:`~irrepro.topic_split.pool_sizes`' rows (``topic``, ``depth``, ``pool``,
        ``relevant``), with depths 10 and 100.
    numbers : mapping
        The paper's numbers (:func:`irrepro.book.paper_numbers`).
    keys : sequence of str
        The keys of the paper's three numbers in ``numbers``, in the order of the rows above.
    n_boot : int
        Bootstrap resamples of the topics.
    seed : int
        The seed of the resamples.
    runs : mapping of int to str, optional
        Round -> a note on its runs, put on the round's first row.
    reason : str
        Appended to each row as its ``reason`` (none when empty).

    Returns
    -------
    list of dict
        Three rows per round, for :func:`irrepro.book.compare`.

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

    Four rows from :func:`~irrepro.topic_split.map_sd` run at several seeds, the values of the
    first: the sd of MAP at 5 topics and at 25 topics (kind ``"score"``), the per-topic sd of AP
    they imply (the sd at 5 topics times sqrt 5; not compared, the paper's implied value in its
    note) and the smallest topic-set size whose sd is below 0.01 (kind ``"count"``). The Monte Carlo
    error of each is the sd over the seeds of its value (the spread of one seed's value); there is
    no sampling error, the sd being the average over the runs and topics we have.

    Parameters
    ----------
    sds : sequence of pandas.DataFrame
        :func:`~irrepro.topic_split.map_sd` at each seed (at least two, with the sizes 5 and 25).
    numbers : mapping
        The paper's numbers (:func:`irrepro.book.paper_numbers`).
    keys : sequence of str
        The keys in ``numbers`` of the paper's sd at 5 topics, sd at 25 topics and first size below
        0.01, in this order.
    samples : int
        The topic samples per run and size of each ``map_sd`` (the replicates of the rows).
    reason : str
        Appended to each row as its ``reason`` (none when empty).

    Returns
    -------
    list of dict
        The four rows, for :func:`irrepro.book.compare`.

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
