"""The known-truth chapter's findings as the texts its prose glues by name (``{"kt_...": "0.049"}``),
computed from its experiments' results, so that a sentence states what its table and figure show."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._rows import level, trials_needed

#: The simulator's check's columns: a margin's mean against the run's, a copula's tau against the data's.
_MARGIN, _TAU, _TAWN = "|margin mean - mean score|", "|copula tau - data tau|", "asymmetric copula (Tawn)"


def simulator_checks(models: Mapping[str, Any], seed, pairs: int = 100) -> pd.DataFrame:
    """Per random pair of runs of each measure's models: |margin mean - mean score|, |copula tau - tau-b|, Tawn."""
    from scipy.stats import kendalltau

    from .. import parallel
    from .. import simulation as sim

    rng = parallel.as_generator(seed)
    checks = []
    for m, fitted in models.items():
        for k in range(pairs):
            md = fitted[rng.integers(len(fitted))]
            i, j = rng.choice(len(md.margins), 2, replace=False)
            cop = sim.fit_copula(md.scores[i], md.scores[j], seed=k, method="mle")
            checks.append({"measure": m, _MARGIN: abs(md.margins[i].mean - md.scores[i].mean()),
                           _TAU: abs(cop.tau - kendalltau(md.scores[i], md.scores[j]).statistic),
                           _TAWN: cop.family.name == "tawn"})  # fmt: skip
    return pd.DataFrame(checks)


def design_effects(results, alpha: float = 0.05, tails: int = 2) -> pd.DataFrame:
    """The design effect (clustered se over binomial) of every rate: a row per key of ``results``, a column per test."""
    return pd.DataFrame({key: r.design_effect(alpha, tails) for key, r in results.items()}).T


def check_summary(checks: pd.DataFrame) -> pd.DataFrame:
    """The simulator's check per measure and gap: its pairs, mean, median, 95th percentile and largest."""
    rows = []
    for m, part in checks.groupby("measure", sort=False):
        for gap in (_MARGIN, _TAU):
            x = part[gap]
            rows.append({"measure": m, "gap": gap, "pairs": int(x.count()), "mean": x.mean(),
                         "median": x.median(), "95th percentile": x.quantile(0.95), "largest": x.max()})  # fmt: skip
    return pd.DataFrame(rows)


def check_text(checks: pd.DataFrame) -> dict[str, str]:
    """The simulator check's medians and shares of asymmetric copulas per measure, as glue texts."""
    med = checks.groupby("measure").median(numeric_only=True)
    asym = checks.groupby("measure")[_TAWN].mean()
    out = {}
    for m in med.index:
        key = m.lower().replace("@", "")
        out[f"kt_chk_mean_{key}"] = f"{med.loc[m, _MARGIN]:.4f}"
        out[f"kt_chk_tau_{key}"] = f"{med.loc[m, _TAU]:.4f}" if m != "P@10" else f"{med.loc[m, _TAU]:.3f}"
        out[f"kt_chk_tawn_{key}"] = f"{asym[m]:.0%}"
    return out


def type1_text(numbers, type1, trials: int, margin: float) -> dict[str, str]:
    """The type I comparison in words: trials, the rule's ``margin`` of a rate at 0.05, the rows far from theirs."""
    far = type1.frame[type1.frame["z"].astype(float).abs() > 3]
    return {
        "kt_trials": f"{trials:,}",
        "kt_their_trials": f"{numbers['trials.type1'].value:,}",
        "kt_margin": f"{margin:.2g}",
        "kt_type1_far": "; ".join(
            f"{q} (z = {z:+.1f}, {st})"
            for q, z, st in far[["quantity", "z", "status"]].itertuples(index=False)
        )
        or "none",
    }


def growth_text(numbers, r5: Any, s5: Any, *, measures: Sequence[str], sizes: Sequence[int],
                z_beyond: float) -> dict[str, str]:  # fmt: skip
    """How the type I error at alpha = 0.05 grows with the topics, beside Urbano et al.'s, in words."""
    lo, hi = sizes[0], sizes[-1]
    tests = list(r5.columns)
    path = {(t, m): " -> ".join(f"{r5.loc[(m, n), t]:.3f}" for n in sizes) for t in tests for m in measures}
    rising = {t: [m for m in measures if r5.loc[(m, hi), t] - r5.loc[(m, lo), t]
                  > z_beyond * np.hypot(s5.loc[(m, hi), t], s5.loc[(m, lo), t])] for t in tests}  # fmt: skip
    means = ("paired-t", "permutation", "bootstrap-shift")  # their tests of the mean
    also = [f"{t} on {m} ({path[t, m]})" for t in means for m in rising[t]]
    both = sorted(set(rising["wilcoxon"]) & set(rising["sign"]))

    def theirs(test: str) -> str:
        return " -> ".join(f"{numbers[f'type1.ap.{n}.{test}2.a0.05'].value:.3f}" for n in sizes)

    return {
        "kt_growth_wilcoxon": "; ".join(f"{path['wilcoxon', m]} ({m})" for m in measures),
        "kt_growth_sign": "; ".join(f"{path['sign', m]} ({m})" for m in measures),
        "kt_growth_both": (
            f"Both rise with the number of topics beyond their Monte Carlo error on {', '.join(both)}, "
            "as Urbano et al. found"
            if both
            else "Neither rises beyond its Monte Carlo error on every measure, unlike Urbano et al.'s"
        ),  # fmt: skip
        "kt_growth_theirs": f"Wilcoxon {theirs('w')}, sign {theirs('s')}",
        "kt_mean_levels": ", ".join(
            f"{t} {level('0.05', r5[t].tolist(), s5[t].tolist(), 'clustered by pair')}" for t in means
        ),
        "kt_mean_paths": (
            f"t {path['paired-t', 'AP']}, permutation {path['permutation', 'AP']}, bootstrap-shift "
            f"{path['bootstrap-shift', 'AP']}"
        ),  # fmt: skip
        "kt_mean_rise": (
            f"a rise beyond the Monte Carlo error from {lo} to {hi} topics appears for {'; '.join(also)}"
            if also
            else f"none of them rises beyond its Monte Carlo error from {lo} to {hi} topics on any measure"
        ),  # fmt: skip
        "kt_sakai_paired": f"{r5['bootstrap'].min():.3f}-{r5['bootstrap'].max():.3f}",
        "kt_sakai_unpaired": f"{r5['unpaired-bootstrap'].min():.3f}-{r5['unpaired-bootstrap'].max():.3f}",
    }


def equal_means_text(sm: pd.DataFrame) -> dict[str, str]:
    """The t, sign and Wilcoxon tests' rejection rates under equal means, per measure (rows of ``sm``)."""
    said = {"kt_sm_t": "paired-t", "kt_sm_sign": "sign", "kt_sm_wilcoxon": "wilcoxon"}
    return {k: ", ".join(f"{x:.3f}" for x in sm[t]) for k, t in said.items()} | {
        "kt_sm_measures": ", ".join(sm.index)
    }


def power_text(numbers, power: Mapping, *, measures: Sequence[str], deltas: Sequence[float], tests: Sequence[str],
               theirs: Sequence[str], fall_se: float, n: int = 50, delta: float = 0.05) -> dict[str, str]:  # fmt: skip
    """Power and type III errors per measure in words, beside Urbano et al.'s sign test."""
    p5 = pd.DataFrame({m: power[(m, n, delta)].rates([0.05]).iloc[0] for m in measures}).T
    paired = [t for t in tests if t != "unpaired-bootstrap"]
    t_by_delta = [power[("AP", n, d)].rates([0.05]).iloc[0]["paired-t"] for d in deltas]
    worst_fall = fall_se * max(power[("AP", n, d)].se(0.05)["paired-t"] for d in deltas)
    rises = bool(np.all(np.diff(t_by_delta) > -worst_fall))
    t3 = pd.DataFrame({m: power[(m, n, deltas[0])].type3(0.05) for m in measures}).T
    out = {f"kt_pow_{m.lower().replace('@', '')}": f"{p5.loc[m, paired].min():.2f}-{p5.loc[m, paired].max():.2f}"
           for m in measures}  # fmt: skip
    return out | {
        "kt_pow_best": str(p5.loc["AP", paired].idxmax()),
        "kt_pow_sign": ", ".join(f"{p5.loc[m, 'sign']:.2f}" for m in measures),
        "kt_pow_unpaired": ", ".join(f"{p5.loc[m, 'unpaired-bootstrap']:.2f}" for m in measures),
        "kt_pow_rises": "rises" if rises else "does not always rise",
        "kt_pow_t_ap": ", ".join(f"{x:.2f}" for x in t_by_delta),
        "kt_pow_se": f"{max(r.se(0.05).max() for r in power.values()):.3f}",
        "kt_t3_ap": f"{t3.loc['AP', list(theirs)].min():.3f}-{t3.loc['AP', list(theirs)].max():.3f}",
        "kt_t3_sign": f"{t3.loc['AP', 'sign']:.3f}",
        "kt_t3_their_sign": f"{numbers['type3.ap.50.s2.d0.01'].value:.3f}",
    }


def power_gap_text(pw, trials: int) -> dict[str, str]:
    """Our power minus theirs per measure, the counts by status and the rows outside the margin."""

    pf = pw.frame[pw.frame["paper"].notna()]
    gap = pf.assign(diff=pf["ours"].astype(float) - pf["paper"].astype(float))
    out = gap[gap["status"] == "not replicated"]
    by_m = (
        gap.assign(measure=gap["quantity"].str.split(",").str[0])
        .groupby("measure", sort=False)["diff"]
        .mean()
    )
    return {
        "kt_power_trials": f"{trials:,}",
        "kt_power_gap": ", ".join(f"{d:+.3f} ({m})" for m, d in by_m.items()),
        "kt_power_out": "; ".join(
            f"{q} ({d:+.3f})" for q, d in out[["quantity", "diff"]].itertuples(index=False)
        )
        or "none",
    }


def trials_needed_text(ran: dict, cap: int, *comparisons) -> dict[str, str]:
    """The trials each compared configuration ran and the rows still undecided, in words."""
    need = trials_needed(*comparisons)
    runs = "; ".join(f"{m}, {n} topics, delta = {d:g}: " + " -> ".join(f"{t:,}" for t in ts)
                     for (m, n, d), ts in ran.items())  # fmt: skip
    left = (
        "No compared row is left inconclusive for Monte Carlo reasons alone"
        if not need["rows"]
        else f"{need['rows']} compared rows still straddle the margin for Monte Carlo reasons alone, in "
        f"{need['configurations']} configurations that ran {need['ran']:,} trials; deciding them would "
        f"take about {need['needed']:,} (the largest single need {need['largest']:,})"
    )
    return {"kt_decide_runs": runs, "kt_decide_cap": f"{cap:,}", "kt_mc_left": left}


def _hsd_excess(beyond: list[str], n: int) -> str:
    """The sentence's lead-in for HSD's excess over alpha: accident or not, by the measures beyond 2 se."""
    if len(beyond) == n:
        return "An excess beyond 2 se is no Monte Carlo accident:"
    if beyond:
        return f"Where the excess passes 2 se ({', '.join(beyond)}) it is no Monte Carlo accident:"
    return "No excess passes 2 se here, so none is beyond Monte Carlo error; where one does, it comes from HSD's assumption:"


def fwer_text(fwer: pd.DataFrame, fwer_se: pd.DataFrame, *, trials: int, B: int) -> dict[str, str]:
    """The family-wise errors in words, with randomised Tukey HSD's level by the book's rule."""
    hsd, hsd_se = fwer["randomised Tukey HSD"], fwer_se["randomised Tukey HSD"]
    z_hsd = (hsd - 0.05) / hsd_se  # HSD's excess over alpha in Monte Carlo se
    return {
        "kt_fwer_unadj": f"{fwer['t, unadjusted'].min():.2f}-{fwer['t, unadjusted'].max():.2f}",
        "kt_fwer_holm": f"{fwer['t, Bonferroni / Holm'].max():.3f}",
        "kt_hsd": ", ".join(f"{hsd[m]:.3f} ± {hsd_se[m]:.3f} ({m})" for m in hsd.index),
        "kt_hsd_z": ", ".join(f"{z_hsd[m]:+.1f} ({m})" for m in hsd.index),
        "kt_hsd_excess": _hsd_excess([m for m in hsd.index if z_hsd[m] > 2], len(hsd)),
        "kt_hsd_level": level(
            "0.05", hsd.tolist(), hsd_se.tolist(), unit="simulated family", replicates=trials
        ),
        "kt_hsd_perm": f"{B // 4}",
        "kt_beyond_trials": f"{trials:,}",
        "kt_beyond_B": f"{B:,}",
    }


def coverage_text(tables: Mapping[str, pd.DataFrame], proxy: float, *, clear_shortfall: float, corpora: int,
                  B: int) -> dict[str, str]:  # fmt: skip
    """The corpus-bootstrap intervals' coverage and the paper's proxy in words."""
    c5, c6 = tables["TREC-COVID R"], tables["TREC-6 R"]
    allcov = pd.concat(tables)
    short = allcov[allcov["coverage"] < clear_shortfall]
    fine = allcov[allcov["coverage"] >= clear_shortfall]
    same_sign = bool((short["other corpus inside"] < proxy).all()) if len(short) else True
    worst_cov, worst_proxy = allcov["coverage"].min() - 0.95, allcov["other corpus inside"].min() - proxy
    inside = "other corpus inside"
    return {
        "kt_cov_lists": f"{c5['lists'].iloc[0]:,} and {c6['lists'].iloc[0]:,}",
        "kt_cov_corpora": f"{corpora}",
        "kt_cov_B": f"{B}",
        "kt_cov_covid": f"{c5['coverage'].min():.1%}-{c5['coverage'].max():.1%}",
        "kt_cov_trec6": f"{c6['coverage'].min():.1%}-{c6['coverage'].max():.1%}",
        "kt_cov_se": f"{max(c5['se'].max(), c6['se'].max()):.3f}",
        "kt_proxy_covid": f"{c5[inside].min():.1%}-{c5[inside].max():.1%}",
        "kt_proxy_trec6": f"{c6[inside].min():.1%}-{c6[inside].max():.1%}",
        "kt_proxy": f"{proxy:.1%}",
        "kt_cov_fine": (
            f"Even where coverage reaches {clear_shortfall:.0%} or more the proxy sits at {fine[inside].min():.1%}-"
            f"{fine[inside].max():.1%}: the prediction assumes a normal AP, equally variable on both "
            f"corpora, so a proxy a point or two under {proxy:.1%} is no evidence of short intervals."
            if len(fine)
            else ""
        ),  # fmt: skip
        "kt_cov_flag": (
            "Where coverage falls short of 95% the proxy falls short of the prediction too (largest shortfalls: coverage "
            f"{worst_cov:.1%}, proxy {worst_proxy:.1%}), so the paper's validation would have flagged it."
            if same_sign
            else "The proxy does not move with the coverage: the paper's validation could not have flagged the shortfall."
        ),  # fmt: skip
    }


def self_significance_text(summary: Any, webber) -> dict[str, str]:
    """Self-significance under the null in words, beside Webber et al.'s."""
    s = summary
    reason = "sd of the per-trial rate over trials / sqrt(trials)"
    return {
        f"kt_ss_level_{form[:3]}": level(
            "0.05",
            [float(s.loc[form, "false-positive rate"])],
            [float(s.loc[form, "se"])],
            reason,
            unit="trial",
        )
        for form in ("raw", "standardized")
    } | {
        "kt_ss_raw": f"{s.loc['raw', 'false-positive rate']:.3f}",
        "kt_ss_std": f"{s.loc['standardized', 'false-positive rate']:.3f}",
        "kt_ss_se": f"{s['se'].max():.4f}",
        "kt_ss_paper": webber["table5.fp-mean"].wording,
        "kt_ss_upper_raw": f"{s.loc['raw', 'upper 97.5th percentile']:.0%}",
        "kt_ss_upper_std": f"{s.loc['standardized', 'upper 97.5th percentile']:.0%}",
        "kt_ss_paper_raw": webber["fig6.upper-raw"].wording,
        "kt_ss_paper_std": webber["fig6.upper-std"].wording,
    }


def finite_b_summary(checks):
    """:func:`finite_b_checks` per test: rates checked and passing, range, largest bound, smallest se."""
    return checks.groupby("test", sort=False).agg(
        **{"rates": ("ok", "size"), "passing": ("ok", "sum"), "smallest rate": ("rate", "min"),
           "largest rate": ("rate", "max"), "largest bias bound": ("bound", "max"), "smallest se": ("se", "min")}
    )  # fmt: skip


def finite_b_text(checks, B: int, *, theirs, sakai, full_B: int) -> dict[str, str]:
    """:func:`finite_b_checks` in words: their tests' largest bound, and Sakai's rates that fail."""
    ours = checks[checks["test"].isin(theirs)]
    bad = checks[~checks["ok"]]
    n_sakai = int(checks["test"].isin(sakai).sum())
    failing = ", ".join(f"{r.test}, {r.measure}, {r.topics} topics: rate {r.rate:.4f}, bias up to {r.bound:.4f}"
                        for r in bad.itertuples())  # fmt: skip
    return {
        "kt_B": f"{B:,}",
        "kt_fb_bound": f"{ours['bound'].max():.5f}",
        "kt_fb_rates": f"{len(ours)}",
        "kt_fb_below": "below" if ours["ok"].all() else "NOT always below",
        "kt_fb_se": f"{ours['se'].min():.4f}-{ours['se'].max():.4f}",
        "kt_fb_sakai": (
            f"Sakai's tests fail the check in {len(bad)} of {n_sakai} rates ({failing}): a rate near 0 has a Monte "
            "Carlo error smaller than the bias of a finite B, so those rates are not known to better than "
            f"{bad['bound'].max():.4f} - which leaves them far below alpha."
            if len(bad)
            else "Sakai's two tests pass it too."
        ),  # fmt: skip
        "kt_full_B": f"{full_B:,}",
    }


def mc_text(mc: Any, *, target: float, family_target: float) -> dict[str, str]:
    """:func:`mc_check` in words: targets, largest design effect, rates below target, largest se."""
    worst = mc.loc[(mc["MC error of a 5% rate"] / mc["target"]).idxmax()]
    big = mc.loc[mc["se"].idxmax()]
    return {
        "kt_se_target_design": f"{target:g}",
        "kt_mc_target": f"{family_target:g}",
        "kt_mc_worst": f"{worst['experiment']}, {worst['test']}",
        "kt_mc_worst_error": f"{worst['MC error of a 5% rate']:.4f}",
        "kt_mc_worst_target": f"{worst['target']:g}",
        "kt_mc_below": f"{int(mc['below target'].sum())} of the {len(mc)}",
        "kt_mc_largest_se": f"{mc['se'].max():.4f}",
        "kt_mc_largest_at": f"{big['experiment']}, {big['test']}, a rate of {big['rate']:.3f}",
    }
