"""The planning chapter's rows for the book's one rule, built with :mod:`irrepro.book`'s builders.
They compare nothing with Sakai's numbers (his pilots are not ours), so a claim resting on them is
not comparable: our finding is its ``ours``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import _lazy
from ._sizes import _topic_set_size, power_closed_form

book = _lazy.module("irrepro.book")  # on first use: importing the method family does not import the book


def size_rows(t_sizes: pd.DataFrame) -> list[dict]:
    """One count row per pilot: the paired t-test's topic-set size, its bootstrap interval as the note."""
    return [
        book.count(
            f"{k[0]}, {k[1]}: t-test topics",
            None,
            int(r["topics"]),
            reason="closed form on the pilot's V_E; its bootstrap interval in the note",
            note=f"95% interval {int(r['low']):,}-{int(r['high']):,}",
        )
        for k, r in zip(t_sizes.index, t_sizes.to_dict("records"))
    ]


def variance_rows(
    pilots: Mapping[tuple[str, str], object], *, min_diff: float, alpha: float, power: float
) -> list[dict]:
    """One count row per pilot: the t-test's size from the within-system and the total variance."""
    rows = []
    for (c, m), x in pilots.items():
        a = np.asarray(getattr(x, "scores", x), dtype=float)
        total = a.var(ddof=1)
        within = ((a - a.mean(axis=1, keepdims=True)) ** 2).sum() / (a.shape[0] * (a.shape[1] - 1))
        n_tot, n_within = (
            _topic_set_size(v, min_diff=min_diff, alpha=alpha, power=power, B=0).n_topics
            for v in (total, within)
        )
        rows.append(
            book.count(
                f"{c}, {m}: t-test topics, within-system / total variance",
                None,
                f"{n_within} / {n_tot}",
                reason="closed form on the pilot's variances (no resampling)",
                note=f"{1 - n_within / n_tot:.1%} fewer",
            )
        )
    return rows


def agreement_rows(
    curves: Mapping, t_sizes: pd.DataFrame, anovas: Mapping, *, min_diff: float, power: float, trials: int
) -> tuple[list[dict], dict]:
    """The simulated t-test's power at the closed form's size, and the size reaching ``power``."""
    rows, at_n = [], {}
    for k, c in curves.items():
        n_cf = int(t_sizes.loc[k, "topics"])
        j = int(np.argmin(np.abs(c.n_topics - n_cf)))
        n_j, p_j, se_j = int(c.n_topics[j]), float(c.power[j]), float(c.se[j])
        at_n[k] = (n_j, p_j, se_j)
        lo, hi = c.topics_needed(power, z=1.96), c.topics_needed(power, z=-1.96)
        cf = power_closed_form("paired-t", n_j, variance=anovas[k].sigma2_residual, min_diff=min_diff)
        why = "no sampled data: the simulated pairs and topics are the Monte Carlo draws"
        rows += [
            book.rate(
                f"{k[0]}, {k[1]}: simulated power of the t-test at {n_j} topics (closed form: {n_cf} for {power})",
                None,
                round(p_j, 3),
                book.errors(mc=se_j, unit="system pair", replicates=trials, reason=why),
                note=f"± {se_j:.3f} Monte Carlo se; closed form at {n_j} topics: {cf:.3f}",
            ),
            book.count(
                f"{k[0]}, {k[1]}: topics for power {power}, simulated t-test",
                None,
                round(c.topics_needed(power)),
                book.errors(mc=(hi - lo) / (2 * 1.96), unit="system pair", replicates=trials, reason=why),
                note=f"{lo:.0f}-{hi:.0f} where the curve ± 1.96 se reaches {power}; closed form {n_cf}",
            ),
        ]
    return rows, at_n


def claim_rows(
    measures_differ, within_smaller, *, by_measure, variances, sizes: pd.DataFrame, collections: Sequence[str]
) -> list[dict]:
    """The Verdict's rows of Sakai's two claims, not comparable by the rule, ours in words."""
    t = sizes[sizes["method"] == "paired t-test"]
    ratio, apart = {}, {}  # largest / smallest t-test size, and whether their intervals do not overlap
    for c in collections:
        sub = t[t["collection"] == c]
        lo, hi = sub.loc[sub["topics"].idxmin()], sub.loc[sub["topics"].idxmax()]
        ratio[c], apart[c] = hi["topics"] / lo["topics"], bool(hi["low"] > lo["high"])
    sizes_of = (r["ours"].split(" / ") for r in variances.frame.to_dict("records"))  # within / total
    fewer = [1 - int(within) / int(total) for within, total in sizes_of]
    return [
        book.claim(
            "different measures need substantially different topic-set sizes under the same requirements",
            measures_differ,
            supports=[by_measure.row(q) for q in by_measure.frame["quantity"]],
            ours="; ".join(
                f"{c}: largest / smallest {ratio[c]:.1f}, intervals {'apart' if apart[c] else 'overlap'}"
                for c in collections
            ),
            note="substantially: the bootstrap intervals of the largest and smallest size do not overlap; "
            "Sakai's sizes are on his pilots, not ours",
        ),
        book.claim(
            "within-system variances give slightly smaller topic-set sizes than total variances",
            within_smaller,
            supports=[variances.row(q) for q in variances.frame["quantity"]],
            ours=f"{min(fewer):.1%}-{max(fewer):.1%} fewer topics",
            note="slightly: fewer topics, by less than 20%; Sakai's sizes are on his pilots, not ours",
        ),
    ]


def pair_power(x, n: int, *, min_diff: float, alpha: float, bottom: float = 0.75) -> float:
    """The t-test's closed-form power at ``n`` topics averaged over the pilot's own pairs."""
    from scipy import stats

    a = np.asarray(getattr(x, "scores", x), dtype=float)
    low = np.argsort(-a.mean(axis=1), kind="stable")[int(round((1 - bottom) * len(a))) :]
    v = np.array([np.var(a[i] - a[j], ddof=1) / 2 for i in low for j in range(len(a)) if j != i])
    v = v[v > 1e-9]  # identical runs: no variance, found every time
    nc = np.sqrt(n) * min_diff / np.sqrt(2 * v)
    crit = stats.t.isf(alpha / 2, n - 1)
    p = np.nan_to_num(stats.nct.sf(crit, n - 1, nc) + stats.nct.cdf(-crit, n - 1, nc), nan=1.0)
    return float(p.mean())
