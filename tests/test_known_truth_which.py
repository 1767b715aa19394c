"""The chapter "Which test?": its tables and the studies' claims as rows, on cases with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irrepro import book
from irrepro.known_truth import _rows_which as which
from irrepro.known_truth._differences import difference_properties
from irrepro.known_truth._urbano import UrbanoPValues

TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap-shift", "permutation")


def _results(
    d: np.ndarray, rates: dict, *, delta: float = 0.0, pairs: int = 200, seed: int = 0
) -> UrbanoPValues:
    """Trials whose differences are ``d`` (trials, topics) and whose tests reject at ``rates`` exactly."""
    trials, n = d.shape
    g = np.random.default_rng(seed)
    two = np.ones((len(TESTS), trials))
    for k, t in enumerate(TESTS):
        two[k, g.permutation(trials)[: int(round(rates.get(t, 0.05) * trials))]] = 0.001
    pair = np.arange(trials) % pairs
    return UrbanoPValues(
        TESTS, two, two / 2, pair, delta, n, 1000, "", d=d.mean(axis=1), props=difference_properties(d)
    )


@pytest.mark.parametrize("n", [50, 500])
def test_the_lean_of_symmetric_differences_is_zero_and_of_skewed_ones_their_balance_at_any_size(n):
    g = np.random.default_rng(1)
    symmetric = _results(g.normal(size=(2000, n)), {})
    skewed = _results(g.exponential(size=(2000, n)) - 1.0, {})  # mean 0, P(d > 0) = 1/e
    p = which.properties_table(
        {"sym": {("AP", n, 0.0): symmetric}, "skew": {("AP", n, 0.0): skewed}}
    ).set_index("design")
    assert p.loc["sym", "sign balance"] <= 3 * p.loc["sym", "sign balance se"] + 0.01
    assert p.loc["sym", "rank balance"] <= 3 * p.loc["sym", "rank balance se"] + 0.01
    lean = 1 - 2 * np.exp(-1.0)  # |P(d > 0) - P(d < 0)|
    assert abs(p.loc["skew", "sign balance"] - lean) < 4 * p.loc["skew", "sign balance se"] + 0.01
    assert p.loc["skew", "rank balance"] > 0.1


def test_a_difference_of_two_tests_on_the_same_trials_is_clustered_per_trial():
    d = np.random.default_rng(2).normal(size=(4000, 20))
    r = _results(d, {"paired-t": 0.05, "wilcoxon": 0.05})
    r = UrbanoPValues(
        r.tests,
        np.vstack([r.two[:1], r.two[:1], r.two[2:]]),
        r.one,
        r.pair,
        0.0,
        20,
        1000,
        d=r.d,
        props=r.props,
    )
    diff, se = which._difference(r, r, "paired-t", "wilcoxon", 0.05)
    assert diff == 0.0  # the same rejections: no difference, and its error is not the sum of two rates'
    _, _, se_t = which._rate(r, "paired-t", 0.05)
    assert se < se_t


def _design(rates_by_n: dict, n_pow: int, pw: dict) -> dict:
    g = np.random.default_rng(3)
    out = {("AP", n, 0.0): _results(g.normal(size=(8000, 5)), r, seed=n) for n, r in rates_by_n.items()}
    out["AP", n_pow, 0.02] = _results(g.normal(size=(8000, 5)) + 0.5, pw, delta=0.02, seed=9)
    return out


def test_the_studies_claims_are_judged_per_design_and_over_the_designs(tmp_path, monkeypatch):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    level = {"paired-t": 0.05, "permutation": 0.05, "bootstrap-shift": 0.05, "wilcoxon": 0.05, "sign": 0.05}
    grows = {n: level | {"wilcoxon": w, "sign": w} for n, w in ((25, 0.05), (50, 0.09), (100, 0.15))}
    pw = {"paired-t": 0.5, "wilcoxon": 0.7, "sign": 0.4, "bootstrap-shift": 0.5, "permutation": 0.5}
    pairwise = {"symmetric": _design({n: level for n in (25, 50, 100)}, 100, pw),
                "leaning": _design(grows, 100, pw)}  # fmt: skip
    fam = pd.DataFrame(columns=["design", "test", "procedure", "m", "topics", "what", "rate", "se", "trials"])
    at = {"symmetric": (100, 0.02), "leaning": (100, 0.02)}
    PA, IE = book.paper_numbers("parapar2021testing"), book.paper_numbers("ihemelandu2023inference")
    parapar = book.compare(
        "parapar2021testing", "test", which.study_rows(PA, pairwise, fam, at), data="known"
    )
    status = parapar.frame.set_index("quantity")["status"]
    w = "Wilcoxon: type I error at alpha = 0.05 (25 / 50 / 100 topics)"
    assert status[f"{w}, symmetric design"] == "replicated"
    assert status[f"{w}, leaning design"] == "not replicated"  # 0.15 at 100 topics
    # power compared only at equal sizes: the leaning design's Wilcoxon rejects 0.15 of true nulls
    power = "Wilcoxon minus t-test: power at 100 topics, delta = 0.02"
    assert status[f"{power}, symmetric design"] == "replicated"
    assert status[f"{power}, leaning design"] == "not comparable"
    note = parapar.frame.set_index("quantity").loc[f"{power}, leaning design", "note"]
    assert "Wilcoxon's type I error at 100 topics is 0.150" in note and "t-test" not in note
    verdict = book.compare(
        "parapar2021testing", "Verdict test", which.verdict_rows(PA, parapar), data="known"
    )
    v = verdict.frame.set_index("quantity")["status"]
    claim = PA["claim.wilcoxon-most-reliable"].row
    assert v[f"{claim} - on the symmetric design"] == "replicated"
    assert v[f"{claim} - on the leaning design"] == "not replicated"  # its level fails, power not comparable
    assert v[claim] == "partly"
    notes = verdict.frame.set_index("quantity")["note"]
    assert "rests on its other rows alone" in notes[f"{claim} - on the leaning design"]
    assert "rests on" not in str(notes[f"{claim} - on the symmetric design"])
    # Ihemelandu & Ekstrand's claims are about large samples: judged where a design reaches 250 topics
    big = {"symmetric": _design({n: level for n in (250, 1000)}, 1000, pw),
           "leaning": _design({n: level | {"wilcoxon": 0.15, "sign": 0.15} for n in (250, 1000)}, 1000, pw),
           "small": pairwise["leaning"]}  # fmt: skip
    at = {d: (1000, 0.02) for d in big} | {"small": (100, 0.02)}
    ihem = book.compare("ihemelandu2023inference", "test", which.study_rows(IE, big, fam, at), data="known")
    verdict = book.compare(
        "ihemelandu2023inference", "Verdict test", which.verdict_rows(IE, ihem), data="known"
    )
    v = verdict.frame.set_index("quantity")["status"]
    claim = IE["claim.wilcoxon-sign-higher"].row
    assert v[f"{claim} - on the leaning design"] == "replicated"
    assert v[f"{claim} - on the symmetric design"] == "not replicated"
    assert v[f"{claim} - on the small design"] == "not comparable"  # at most 100 topics
    assert v[claim] == "partly"  # holds on one design, not on the other
    # their power claim compares the tests at their level only: on the leaning design the t, bootstrap
    # and permutation tests (0.5 each), Wilcoxon (0.7) and sign (0.4) left out at 0.15 type I error
    f = ihem.frame.set_index("quantity")
    spread = "largest minus smallest power of the tests at their level at 1,000 topics, delta = 0.02"
    assert f.loc[f"{spread}, symmetric design", "status"] == "not replicated"  # 0.7 - 0.4
    lean = f.loc[f"{spread}, leaning design"]  # 0.5 - 0.5: no difference but its Monte Carlo error
    assert abs(float(lean["ours"])) < 0.02 and lean["status"] == "inconclusive"
    assert "Wilcoxon's type I error at 1,000 topics is 0.150" in f.loc[f"{spread}, leaning design", "note"]


def test_the_family_tables_of_both_designs_share_one_schema():
    ranking = pd.DataFrame({"test": ["wilcoxon"] * 2, "procedure": ["fdr_bh", "none"], "k": 3, "topics": 25,
                            "what": "FWER", "rate": [0.04, 0.1], "se": 0.01, "families": 500})  # fmt: skip
    score = pd.DataFrame({"test": ["wilcoxon"], "procedure": ["BH"], "m": 3, "topics": 30, "fwer": 0.05, "fwer_se": 0.01,
                          "power": 0.6, "power_se": 0.02, "trials": 600, "resolved": True})  # fmt: skip
    f = which.family_table({"ranking-level": ranking, "score-level": score})
    assert set(f["procedure"]) == {"BH", "unadjusted"}
    assert len(f) == 4 and set(f["what"]) == {"FWER", "power"}
    assert f.loc[f["design"] == "ranking-level", "trials"].eq(500).all()


def test_a_power_difference_of_families_is_judged_only_where_both_tests_hold_their_level(
    tmp_path, monkeypatch
):
    """Otero et al.'s power row, configuration by configuration: a family size whose Wilcoxon or t-test
    family-wise error the rule finds above the level is left out of it (and named); none left, the row
    is not comparable."""
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    OT = book.paper_numbers("otero2025towards")

    def fam(design: str, fwer: dict) -> pd.DataFrame:  # fwer: (m, test) -> rate
        rows = [{"design": design, "test": t, "procedure": "BH", "m": m, "topics": 30, "what": w, "trials": 2000,
                 "rate": fwer.get((m, t), 0.03) if w == "FWER" else 0.6, "se": 0.004,
                 "power_vs_t": 0.05 if t == "wilcoxon" else 0.0, "power_vs_t_se": 0.005}
                for m in (5, 10) for t in ("wilcoxon", "paired-t") for w in ("FWER", "power")]  # fmt: skip
        return pd.DataFrame(rows)

    pw = {"paired-t": 0.5, "wilcoxon": 0.7, "sign": 0.4, "bootstrap-shift": 0.5, "permutation": 0.5}
    level = {"paired-t": 0.05, "wilcoxon": 0.05, "sign": 0.05, "bootstrap-shift": 0.05, "permutation": 0.05}
    cases = {
        "holding": {},
        "one above": {(10, "wilcoxon"): 0.15},
        "t above": {(5, "paired-t"): 0.12, (10, "paired-t"): 0.12},
    }
    pairwise = {d: _design({n: level for n in (25, 50)}, 50, pw) for d in cases}
    families = pd.concat([fam(d, f) for d, f in cases.items()], ignore_index=True)
    at = {d: (50, 0.02) for d in pairwise}
    rows = book.compare(
        "otero2025towards", "test", which.study_rows(OT, pairwise, families, at), data="known"
    )
    f = rows.frame.set_index("quantity")
    power = "Wilcoxon with BH minus t-test with BH: power (systems x topics: "
    assert f.loc[f"{power}5x30 / 10x30), holding design", "status"] == "replicated"  # 0.05 (0.005) > 0
    one = f.loc[f"{power}5x30), one above design"]  # 10 systems left out
    assert one["status"] == "replicated" and "10x30: Wilcoxon's 0.150 (se 0.004)" in one["note"]
    none = f.loc[f"{power}5x30 / 10x30), t above design"]
    assert none["status"] == "not comparable" and "t-test's 0.120" in none["note"]
    verdict = book.compare("otero2025towards", "Verdict test", which.verdict_rows(OT, rows), data="known")
    v = verdict.frame.set_index("quantity")
    claim = OT["claim.wilcoxon-bh-power"].row
    assert v.loc[f"{claim} - on the t above design", "status"] == "not comparable"


def test_the_rows_left_undecided_by_monte_carlo_error_are_named_with_the_replicates_that_would_decide_them(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    level = book.paper_numbers("parapar2021testing")["level.wilcoxon"]  # "0.0500"
    rows = [book.rate("decided", level, 0.05, book.errors(mc=0.001, replicates=2000, reason="simulated"), nominal=0.05),
            book.rate("undecided", level, 0.058, book.errors(mc=0.004, replicates=2000, reason="simulated"), nominal=0.05)]  # fmt: skip
    c = book.compare("parapar2021testing", "test", rows, data="known")
    text = which.undecided_text(c)
    need = int(c.frame.set_index("quantity").loc["undecided", "replicates_needed"])
    assert need > 2000 and text.startswith("1 compared row is left inconclusive")
    assert (
        f"undecided (ran 2,000, about {need:,} would decide it" in text
        and "decided (ran" not in text.replace("undecided", "")
    )
    assert which.undecided_text(
        book.compare("parapar2021testing", "test2", rows[:1], data="known")
    ).startswith("No compared row")
    # an estimate on an edge with Monte Carlo error alone: named, with no number of replicates
    at_most = book.paper_numbers("otero2025towards")["level.wilcoxon-bh"]  # "at most 0.0500"
    edge = book.compare("otero2025towards", "test", [book.rate("on the edge", at_most, 0.05, book.errors(
        mc=0.004, replicates=600, reason="simulated"), nominal=0.05)], data="known")  # fmt: skip
    text = which.undecided_text(edge)
    assert text.startswith("1 compared row is left inconclusive") and "on the edge (ran 600)" in text
    assert "no number is estimated" in text and "would decide it" not in text


def test_a_power_row_without_the_level_it_needs_is_left_out_not_judged(tmp_path, monkeypatch):
    """A family size without the t-test's family-wise error is left out of Otero et al.'s power row,
    named; a power size without null results makes Parapar et al.'s power row not comparable."""
    monkeypatch.setenv("IRREPRO_RESULTS", str(tmp_path))
    PA, OT = book.paper_numbers("parapar2021testing"), book.paper_numbers("otero2025towards")
    pw = {"paired-t": 0.5, "wilcoxon": 0.7, "sign": 0.4, "bootstrap-shift": 0.5, "permutation": 0.5}
    level = {"paired-t": 0.05, "wilcoxon": 0.05, "sign": 0.05, "bootstrap-shift": 0.05, "permutation": 0.05}
    pairwise = {
        "d": _design({n: level for n in (25, 50)}, 100, pw)
    }  # power at 100 topics, nulls at 25 and 50
    fam = pd.DataFrame([{"design": "d", "test": t, "procedure": "BH", "m": m, "topics": 30, "what": w, "trials": 2000,
                         "rate": 0.03 if w == "FWER" else 0.6, "se": 0.004, "power_vs_t": 0.05 if t == "wilcoxon" else 0.0,
                         "power_vs_t_se": 0.005}
                        for m in (5, 10) for t in ("wilcoxon", "paired-t") for w in ("FWER", "power")
                        if not (m == 10 and t == "paired-t")])  # fmt: skip
    para = book.compare("parapar2021testing", "test", which.study_rows(PA, pairwise, fam, {"d": (100, 0.02)}),
                        data="known").frame.set_index("quantity")  # fmt: skip
    row = para.loc["Wilcoxon minus t-test: power at 100 topics, delta = 0.02, d design"]
    assert row["status"] == "not comparable" and row["note"].startswith(
        "not comparable: no null results at 100 topics"
    )
    otero = book.compare("otero2025towards", "test", which.study_rows(OT, pairwise, fam, {"d": (100, 0.02)}),
                         data="known").frame.set_index("quantity")  # fmt: skip
    row = otero.loc["Wilcoxon with BH minus t-test with BH: power (systems x topics: 5x30), d design"]
    assert row["status"] == "replicated" and "10x30: t-test's not simulated" in row["note"]
