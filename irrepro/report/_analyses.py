"""The report's heavy analyses, by blocks so that memory does not grow with the number of runs (the
paired tests of every pair, the corpus bootstrap of every run), its topic-set sizes and its methods."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pandas as pd

from .. import corpus_bootstrap as cb
from .. import parallel, significance
from .. import sensitivity as bt
from ..corpus_bootstrap.sampler import _lists_of, _release_tables
from ..data import RunSet, ScoreMatrix
from ..errors import InputError

#: Pairs of runs tested per task: the bootstrap replicates of one block (pairs x B) are reduced to
#: the report's columns at once, so memory does not grow with the number of pairs; fewer pairs a
#: block when B is large (at most :data:`_PAIR_CELLS` replicates a block, at least one pair).
_PAIR_BLOCK = 512
_PAIR_CELLS = 512 * 10_000
#: Corpus bootstrap, per block of runs: at most this many ranked lists (their replicates, lists x
#: B floats, live at once) and this many (runs x topics x ranks) cells of the dense lists.
_CORPUS_LISTS = 800
_CORPUS_CELLS = 1 << 22
#: Pairs of runs per vectorised step of the swap experiment (its ``chunk``): its differences,
#: pairs x repetitions x topics floats per worker, stay near 5 MB (the function's default, 2000,
#: makes 20 MB per worker at 25 topics and 50 repetitions).
_SWAP_CHUNK = 500
#: The design of the report's topic-set-size section: a difference of 0.05 in the measure's mean,
#: found with power 0.8 at alpha 0.05 (the design of the book's chapter "Planning an evaluation").
DESIGN_MIN_DIFF, DESIGN_POWER, DESIGN_ALPHA = 0.05, 0.8, 0.05


# --------------------------------------------------------------------------------------------
# the analyses
# --------------------------------------------------------------------------------------------


def _design(scores: ScoreMatrix, B: int, seed) -> tuple[pd.DataFrame | None, str]:
    """Sakai's three topic-set sizes with the report's runs as the pilot, or None and the reason."""
    from .. import design

    try:
        table = design.topic_set_sizes(scores, min_diff=DESIGN_MIN_DIFF, alpha=DESIGN_ALPHA, power=DESIGN_POWER,
                                       systems=max(2, scores.shape[0]), B=B, seed=seed)  # fmt: skip
    except InputError as e:
        return None, f"Left out: {e}."
    return table, ""


#: The most resamples the report's pairwise tests are raised to for the corrections: beyond it
#: (all pairs of more than about 50 runs) the report keeps the scale's B and says the corrected
#: counts are not resolved (2 s a 1,000 resamples of 7,875 pairs: 3,150,000 would take hours).
PAIRS_B_MAX = 100_000


def _pairs_resamples(n_runs: int, baseline: str | None, test: str, B_tests: int) -> tuple[int, str]:
    """The pairwise tests' B, raised for Holm / BH over the pairs up to PAIRS_B_MAX, and why ("" if not)."""
    from ..significance.comparison import _comparisons
    from ..stats import corrected_resamples

    m = _comparisons(n_runs, baseline)
    if test == "tukey":
        return B_tests, ""
    B = corrected_resamples(m, DESIGN_ALPHA, "holm", default=B_tests)
    if B == B_tests:
        return B, ""
    need = f"B >= 20 m / alpha = {20 * m / DESIGN_ALPHA:,.0f} resolves their smallest threshold, alpha / m"
    if B > PAIRS_B_MAX:
        return B_tests, (
            f"Holm and Benjamini-Hochberg over m = {m:,} pairs at alpha {DESIGN_ALPHA:g} are not resolved at "
            f"the paired tests' B = {B_tests:,} ({need}, more than the report's {PAIRS_B_MAX:,}): a pair no "
            "replicate reaches has ASL 0, below every threshold, so their counts may be too high; "
            "--baseline tests fewer pairs"
        )
    return B, (f"paired-test B = {B:,}: the scale's {B_tests:,} raised for Holm and Benjamini-Hochberg over "
               f"m = {m:,} pairs at alpha {DESIGN_ALPHA:g}: {need}")  # fmt: skip


def _pair_table(
    scores: ScoreMatrix, B: int, seed, n_jobs, progress, test: str = "bootstrap", baseline: str | None = None
) -> pd.DataFrame:
    """The pairs' tests as the report's table, by blocks of pairs (memory); Holm / BH but for Tukey HSD."""
    seed_test = None
    if test != "bootstrap":
        seed, seed_test = parallel.as_seed_sequence(seed).spawn(2)
    samples = bt.bootstrap_samples(scores.shape[1], B, seed=seed)
    if baseline is None:
        pairs = bt.all_pairs(scores.shape[0])
    else:
        pairs = bt.baseline_pairs(scores.shape[0], list(scores.systems).index(baseline))
    blocks = [pairs[b] for b in parallel._chunks(len(pairs), min(_PAIR_BLOCK, _PAIR_CELLS // B))]

    def block(p):
        res = significance.paired_bootstrap_test(scores, p, samples=samples, n_jobs=1)
        dz = significance.effect_sizes(scores, p, kind="d_z", samples=samples, n_jobs=1)  # BCa, same samples
        return res.difference, res.confidence_interval(0.95), res.effect_size, res.p, dz.low, dz.high

    parts = parallel.parallel_map(block, blocks, n_jobs=n_jobs, progress=progress and "bootstrap tests")
    obs, ci, es, asl, dz_low, dz_high = (np.concatenate(a) for a in zip(*parts))
    x = scores.scores
    es = np.where((x[pairs[:, 0]] == x[pairs[:, 1]]).all(axis=1), np.nan, es)  # d_z of identical runs: 0/0
    if test == "bootstrap":
        res = significance.PairwiseResult(
            "bootstrap",
            scores.measure,
            tuple(scores.systems),
            pairs,
            obs,
            asl,
            asl.copy(),
            "none",
            x.shape[1],
            int(samples.shape[0]),
        )
    else:
        res = significance.pairwise_test(
            scores, test, pairs, correction="none", B=B, seed=seed_test, n_jobs=n_jobs
        )
    # the difference, interval and d_z are the paired bootstrap's whatever the test
    res = replace(res, difference=obs, effect_size=es, interval=ci)
    frame = res.to_frame()[["system_x", "system_y", "difference", "ci_low", "ci_high", "effect_size", "p"]]
    frame.columns = ["run x", "run y", "difference", "95% CI low", "95% CI high", "effect size d_z", "ASL"]
    frame.insert(6, "d_z 95% CI low", dz_low)
    frame.insert(7, "d_z 95% CI high", dz_high)
    if test != "tukey":  # no answer (NaN): p = 1 in the family
        frame["ASL (Holm)"] = res.adjust("holm").p_adjusted
        frame["ASL (BH)"] = res.adjust("fdr_bh").p_adjusted
    return frame


def _run_blocks(lengths: np.ndarray) -> list[np.ndarray]:
    """Consecutive runs in blocks of at most ``_CORPUS_LISTS`` lists and ``_CORPUS_CELLS`` cells."""
    S, T = lengths.shape
    longest = lengths.max(axis=1, initial=0)  # a run as wide as its longest list, T lists deep
    blocks = parallel._chunks(S, _CORPUS_CELLS // max(T, 1), longest, most=_CORPUS_LISTS // max(T, 1))
    return [np.arange(S)[b] for b in blocks]


def _corpus_lists(runs: RunSet, rel: int) -> list[cb.Lists]:
    """Each block's compact lists for the corpus bootstrap, so that the runs can go before it starts."""
    blocks = _run_blocks(np.asarray(runs.lengths))
    return [_lists_of(runs.subset(runs=idx), rel) for idx in blocks]  # type: ignore[arg-type]  # (indices)


def _corpus(runs: RunSet, B: int, seed, rel: int, n_jobs, progress) -> cb.FullCorpus:
    """The corpus bootstrap with trec_eval -c's mean, by blocks of runs (block ``b``: seed's child ``b``)."""
    return _corpus_of(_corpus_lists(runs, rel), runs.runs, runs.topics, B, seed, n_jobs, progress)


def _corpus_of(blocks: list[cb.Lists], runs, topics, B: int, seed, n_jobs, progress) -> cb.FullCorpus:
    """:func:`_corpus` from the blocks' lists and the names of the runs and topics."""
    from tqdm import tqdm

    seeds = parallel.as_seed_sequence(seed).spawn(len(blocks))
    parts = []
    with tqdm(total=len(runs), desc="corpus bootstrap", unit="run", disable=not progress) as bar:
        for lists, ss in zip(blocks, seeds):
            parts.append(cb.full_corpus(lists, B=B, seed=ss, n_jobs=n_jobs, average="all"))
            bar.update(lists.shape[0])
    _release_tables()  # the Poisson tables: not needed by the rest of the report
    if len(parts) == 1:
        return replace(parts[0], runs=tuple(runs), topics=tuple(topics))

    def cat(ivs):
        return replace(ivs[0], **{f.name: np.concatenate([getattr(v, f.name) for v in ivs])
                                  for f in fields(ivs[0]) if f.name != "method"})  # fmt: skip

    first = parts[0]
    return cb.FullCorpus(
        tuple(runs), tuple(topics),
        np.concatenate([p.ap for p in parts]), np.concatenate([p.usable for p in parts]),
        {k: cat([p.intervals[k] for p in parts]) for k in first.intervals},
        {k: cat([p.maps[k] for p in parts]) for k in first.maps},
        None,
    )  # fmt: skip


def _methods(rep):
    """The report's methods paragraph (``rep`` a Report): its pairs' test, then a sentence per analysis."""
    from ..escape import shell

    st, (S, T) = rep.settings, rep.scores.shape
    analyses = [
        f"Each pair's d_z has a 95% bias-corrected and accelerated (BCa) bootstrap interval from the same "
        f"{rep.B_pairs:,} bootstrap samples of the topics.",
        f"Corpus bootstrap (Cormack & Lynam 2006): every run's MAP (AP at grade {rep.rel} or above; a topic "
        f"without a usable list adds an AP of 0) with 95% parametric intervals (per-topic logit intervals, "
        f"small-R correction) and L-MAP bootstrap intervals, from B = {st.B_corpus:,} Poisson(1) "
        "replications of the documents of each ranked list.",
    ]
    if rep.swap is not None:
        sizes = rep.swap.sizes
        analyses.append(
            f"Topic split (Sanderson & Zobel 2005): {rep.swap.B} random splits of the topics into two disjoint "
            f"sets of {sizes[0]} to {sizes[-1]} topics per size, swaps counted with and without a paired t-test "
            f"at p <= 0.05 on the first set, the error rates projected to {T} topics by an exponential fit."
        )
    else:
        analyses.append(f"Topic split (Sanderson & Zobel 2005): {rep.swap_note}")
    analyses.append(
        "Standardization (Webber, Moffat & Zobel 2008): each topic's scores standardized by these runs' mean "
        f"and standard deviation on it and mapped by the normal CDF; {st.B_halves:,} random halves of the "
        "topics give the dRMSE of run means between halves and the runs a two-sample t-test (p < 0.05) "
        "finds different from themselves."
    )
    if rep.design is not None:
        analyses.append(
            f"Topic-set sizes (Sakai 2016): to find a difference of {DESIGN_MIN_DIFF:g} with power "
            f"{DESIGN_POWER:g} at alpha {DESIGN_ALPHA:g}, from the residual variance of the two-way ANOVA, with "
            f"intervals from {st.B_tests:,} bootstrap samples of the topics."
        )
    cmd = (f"irrepro report RUNS_DIR --qrels {shell(rep.qrels)} -m {shell(rep.measure)} --seed {rep.seed}"
           + f" --test {rep.test}" + (f" --baseline {shell(rep.baseline)}" if rep.baseline else "")
           + f" -l {rep.rel} --scale {st.scale}"
           + f" --precision {rep.precision}")  # fmt: skip
    return significance.methods_paragraph(
        [rep.measure], n_topics=T, n_runs=S, test=rep.test, alpha=0.05,
        correction=("holm", "fdr_bh"), baseline=rep.baseline, n_comparisons=len(rep.pairs),
        B=rep.B_pairs, exact=rep.test == "permutation" and T < 63 and 2**T <= rep.B_pairs,
        effect_sizes=("difference", "d_z"), interval="percentile", level=0.95,
        B_interval=rep.B_pairs, seed=rep.seed, rel=rep.rel, precision=rep.precision,
        missing_runs=int((rep.coverage["missing"].map(len) > 0).sum()), qrels=rep.qrels,
        analyses=analyses, command=cmd,
    )  # fmt: skip
