"""The studies' claims as rows on known cases: moves to tests/ with the chapter (it reads drafts/papers)."""
# ruff: noqa: F821


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
    U, IE = book.paper_numbers("urbano2019statistical"), book.paper_numbers("ihemelandu2023inference")
    urbano = book.compare(
        "urbano2019statistical", "test", which.study_rows(U, pairwise, fam, at), data="known"
    )
    status = urbano.frame.set_index("quantity")["status"]
    assert status["Wilcoxon: type I error at 100 minus at 25 topics, leaning design"] == "replicated"
    assert status["Wilcoxon: type I error at 100 minus at 25 topics, symmetric design"] == "not replicated"
    assert (
        status["t-test: type I error at alpha = 0.05 (25 / 50 / 100 topics), symmetric design"]
        == "replicated"
    )
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
