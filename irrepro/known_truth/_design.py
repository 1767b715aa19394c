"""Urbano, Lima & Hanjalic's (2019) design beside the known-truth chapter's."""

from __future__ import annotations

import pandas as pd


def design_table(numbers, scale: str) -> pd.DataFrame:
    """Urbano et al.'s design and ours at ``scale``: one row per aspect where they may differ, and why."""
    from ._urbano_sizes import urbano_design

    ours, full = urbano_design(scale), urbano_design("full")
    return pd.DataFrame([
        ("data", "TREC-5..8 ad hoc (AP, P@10), TREC 2010-13 Web (nDCG@20, ERR@20), RR",
         "the same score matrices (their repository's files); AP, P@10 and nDCG@20", "the measures of their main figures"),
        ("margins", "simIReff's candidates per system, chosen by AIC",
         "irrepro.simulation's candidates (truncated normal, beta, kernel; beta-binomial and discrete kernel for P@10), by AIC",
         "simIReff is R; the families cover the same shapes (checks below)"),
        ("copulas", "VineCopula's BiCopSelect: all parametric families, AIC, maximum likelihood",
         "pyvinecopulib: all parametric families with rotations, AIC, maximum likelihood", "the same selection"),
        ("null (type I)", "both systems' scores from the baseline's margin, through the pair's copula",
         "the same (null='same-margin')", "-"),
        ("alternative (power)", "experimental margin moved to the baseline's mean + delta by effTransform (a beta transformation)",
         "moved by a one-parameter Lehmann transformation, solved for the exact mean (eq. kt-lehmann)",
         "one parameter keeps the shape closest to the run's own; the mean is exact either way"),
        ("pairs", "a random collection, pair of systems and topic set per trial",
         ("the same; " if ours.pool is None else
          f"a pool of {ours.pool:,} pairs per measure drawn as their trials draw pairs (per delta for power), "
          "every trial one of them and a random topic set; ") + "the same sequence of pairs at 25, 50 and 100 topics",
         ("" if ours.pool is None else
          "each pair's copula is fitted once (a maximum-likelihood selection costs about 11 ms), the Monte Carlo "
          "error is clustered by pair and the trials sized for it; ")
         + "common random numbers: the growth with the number of topics is measured on the same pairs"),
        ("trials per row", f"{numbers['trials.type1'].value:,} (type I), {numbers['trials.power'].value:,} (power)",
         f"{ours.trials:,} (type I), {ours.power_trials:,} (power; up to {ours.decide_trials:,} where more decide a "
         f"compared row) at this scale; IRREPRO_SCALE=full: {full.trials:,} and {full.power_trials:,}",
         f"a type I rate at alpha = .05 to a Monte Carlo error of {ours.se}, clustered by pair, in a build of minutes"),
        ("resamples B", f"{numbers['resamples'].value:,}", f"{ours.B:,} (full: {full.B:,})",
         "the bias a finite B puts in a rate is checked below against its Monte Carlo error"),
        ("tests", "R's t.test and wilcox.test, their sign test (|d| <= 0.01 a tie), their C++ bootstrap and permutation",
         "ports checked against their README's p-values to 1e-6 (tests/test_significance_urbano.py)", "-"),
        ("more tests", "-", "Sakai's paired (studentised) and unpaired bootstrap tests on the same trials",
         "the tests of the Sakai chapter"),
        ("measures of 'power'", "power at every alpha and delta; type III from the power trials",
         "the same; power and type III at 50 topics at this scale (all three sizes at full)", "build time"),
    ], columns=["aspect", "Urbano et al. (2019)", "this chapter", "why"])  # fmt: skip
