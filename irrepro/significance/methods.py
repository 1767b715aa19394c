"""The methods paragraph of an evaluation, ready to paste into a paper: what Sakai's and Ferro et
al.'s checklists ask a paper to say, written from the settings actually used, and the same settings
in the fields of the ir_metadata schema (PRIMAD; Breuer et al., SIGIR 2022)."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import escape
from ..errors import REPOSITORY_URL, InputError
from ._names import CORRECTIONS, DEFAULT_B, FAMILY_WISE, RESAMPLING, TESTS

#: How each test computes its p-value, after its name (:data:`~irrepro.significance.TESTS`).
_HOW = {
    "paired-t": "on the per-topic differences (as scipy.stats.ttest_rel)",
    "wilcoxon": "on the per-topic differences (as scipy.stats.wilcoxon)",
    "sign": "on the topics won and lost (as scipy.stats.binomtest)",
    "bootstrap": "of Sakai (2006): studentised, {B} bootstrap samples of the topics shared by all pairs",
    "permutation": "of Fisher (Smucker et al. 2007): {B} random sign flips of the per-topic differences "
    "shared by all pairs",
    "tukey": "(Carterette 2012): {B} permutations of the scores within topics, the largest difference "
    "of each judging every pair",
    "unpaired-bootstrap": "of Sakai (2006): {B} bootstrap samples of each run's topics",
    "bootstrap-shift": "(unstudentised, of the mean difference): {B} bootstrap samples of the topics",
}
#: Effect sizes (``effect_sizes=``) as the paragraph names them.
_EFFECTS = {
    "difference": "the difference in mean score",
    "win-tie-loss": "the topics won, tied and lost",
    "d_z": "Cohen's d_z (the mean difference over the standard deviation of the per-topic differences)",
    "ES_E": "Sakai's ES_E (the mean difference over the residual standard deviation of the two-way design)",
}
#: Interval methods (``interval=``).
_INTERVALS = {"bca": "bias-corrected and accelerated (BCa) bootstrap", "percentile": "percentile bootstrap"}
#: What each family of measures is, in trec_eval's terms (``irrepro._measure_names._FAMILIES``).
_DEFINED = {
    "AP": "average precision: the precision at each relevant document's rank, summed and divided by R",
    "P": "precision: relevant documents in the top k over k",
    "R": "recall: relevant documents in the top k over R",
    "Rprec": "precision at rank R",
    "RR": "reciprocal rank of the first relevant document",
    "Success": "1 if a relevant document is in the top k, else 0",
    "Bpref": "bpref (Buckley & Voorhees 2004)",
    "infAP": "inferred AP (Yilmaz & Aslam 2006)",
    "nDCG": "DCG over the ideal DCG, gain = grade, discount 1/log2(rank + 1)",
    "RBP": "rank-biased precision (Moffat & Zobel 2008)",
    "ERR": "expected reciprocal rank (as gdeval.pl)",
    "Judged": "the share of judged documents in the top k",
    "NumRet": "documents retrieved",
    "NumRel": "relevant documents",
    "NumQ": "topics",
    "IPrec": "interpolated precision at a recall level",
    "SetP": "precision of the whole retrieved set",
    "SetR": "recall of the whole retrieved set",
    "SetF": "F of the whole retrieved set",
    "SetAP": "set precision times set recall",
    "SP": "Sakai's S-measure",
    "Q": "Sakai's Q-measure",
    "PDoc": "precision at k documents",
    "DCG": "discounted cumulative gain",
    "nDCG_sakai": "Sakai's nDCG",
    "nCG": "normalised cumulative gain",
    "11pt_avg": "mean interpolated precision at the 11 recall levels 0.0, 0.1, ..., 1.0",
}


@dataclass(frozen=True)
class Methods:
    """The methods paragraph of a comparison, in markdown, HTML, LaTeX or ir_metadata YAML."""

    markdown: str
    latex: str
    metadata: dict = field(default_factory=dict)
    html: str = ""

    def render(self, fmt: str = "markdown") -> str:
        """The paragraph in ``"markdown"`` or ``"latex"``."""
        if fmt not in ("markdown", "latex"):
            raise InputError(f"the methods paragraph is 'markdown' or 'latex', not {fmt!r}")
        return self.latex if fmt == "latex" else self.markdown

    def to_yaml(self) -> str:
        """``metadata`` as the YAML of an ``ir_metadata.yml`` sidecar (without the run-file markers)."""
        import yaml

        head = "# ir_metadata (https://www.ir-metadata.org) of an evaluation by irrepro\n"
        return head + yaml.safe_dump(self.metadata, sort_keys=False, allow_unicode=True, width=100)


def _md(text: str) -> str:
    """Inline Markdown of prose: :func:`irrepro.escape.markdown` of its words, its spaces kept."""
    core = text.strip(" ")
    if not core:
        return text
    start = text.index(core)
    return text[:start] + escape.markdown(core).replace("&#32;", " ") + text[start + len(core) :]


class _Code(str):
    """A name shown in monospace (a measure, trec_eval's name, a run, a file)."""


def _render(parts: Sequence[str], fmt: str) -> str:
    out = []
    for p in parts:
        if fmt == "html":
            out.append(f"<code>{escape.html(p)}</code>" if isinstance(p, _Code) else str(escape.html(p)))
        elif fmt == "latex":
            out.append(
                f"\\texttt{{{escape.latex(p)}}}" if isinstance(p, _Code) else escape.latex(p, prose=True)
            )
        elif isinstance(p, _Code) and "`" not in p and p.strip() == p and p:
            out.append(f"`{escape.plain(p)}`")
        else:
            out.append(_md(p))
    return "".join(out)


def _measure_parts(names: Sequence[str], rel: int, depth: int | None) -> tuple[list[str], list[str]]:
    """The paragraph's parts naming each measure, and the names ir_metadata's measures take."""
    from ..measures import parse_measure, trec_eval_name

    parts: list[str] = []
    reported = []
    for k, name in enumerate(names):
        m = parse_measure(name, rel=rel)
        te = trec_eval_name(m, rel=rel)
        reported.append(te or m.name)
        what = _DEFINED.get(m.family, m.family)
        if m.gains is not None:  # nDCG's, DCG's own gains
            what = what.replace(
                "gain = grade", "gain = grade but " + ", ".join(f"{v:g} for grade {g}" for g, v in m.gains)
            )
        if m.cutoff is not None:
            what += f", cut off at rank {m.cutoff}"
        elif m.family not in ("NumQ", "NumRel", "IPrec", "11pt_avg"):
            what += ", over the whole ranking" + (
                f" (first {depth} documents, trec_eval -M {depth})" if depth else ""
            )
        if m.family == "RBP" and m.p is not None:
            what += f", persistence p = {m.p:g}"
        if m.agg in ("gm", "G"):
            what += ", geometric mean over topics" + (
                " (trec_eval's gm_)" if m.agg == "gm" else " (Sakai's G_)"
            )
        parts += ["; " if k else "", _Code(m.name)]
        parts += [" (trec_eval ", _Code(te), f": {what})"] if te else [f" (not in trec_eval: {what})"]
    return parts, reported


def methods_paragraph(
    measures: str | Sequence[str],
    *,
    n_topics: int,
    n_runs: int,
    test: str = "paired-t",
    correction: str | Sequence[str] | None = "holm",
    alpha: float = 0.05,
    alternative: str = "two-sided",
    baseline: str | None = None,
    n_comparisons: int | None = None,
    B: int | None = None,
    exact: bool = False,
    effect_sizes: Sequence[str] = ("difference",),
    interval: str | None = None,
    interval_of: str = "difference",
    level: float = 0.95,
    B_interval: int = 1000,
    seed: int | None = None,
    rel: int = 1,
    depth: int | None = None,
    precision: str | None = None,
    missing_runs: int = 0,
    qrels: str = "",
    analyses: Sequence[str] = (),
    command: str = "",
) -> Methods:
    """The methods paragraph of a comparison of runs, as Markdown and LaTeX, and its ir_metadata.

    Parameters
    ----------
    measures : str or sequence of str
        The measures (``irrepro.measures.parse_measure``'s names).
    n_topics, n_runs : int
        The topics of the qrels every mean is over, and the runs compared.
    test : str
        A name of :data:`~irrepro.significance.TESTS`.
    correction : str, sequence of str or None
        statsmodels' name of the adjustment, or several; None is ``"holm"``.
    alpha, alternative, baseline
        As the comparison took them (``baseline`` None: all pairs).
    n_comparisons : int, optional
        The pairs in the family (default ``n_runs - 1`` with a baseline, else all pairs).
    B : int, optional
        Resamples of a resampling test (default the test's).
    exact : bool
        The permutation test enumerated all sign flips.
    effect_sizes : sequence of str
        ``"difference"``, ``"win-tie-loss"``, ``"d_z"``, ``"ES_E"``.
    interval : {"bca", "percentile"} or None
    interval_of : {"difference", "mean"}
    level, B_interval
        The intervals' confidence level and bootstrap samples of the topics.
    seed : int, optional
        The seed every random step drew from; None when no step is random.
    rel, depth
        trec_eval's ``-l`` and ``-M``.
    precision : {"float32", "float64"} or None
        How scores tie when ranking (None is ``"float32"``).
    missing_runs : int
        How many runs lack some of the qrels' topics.
    qrels : str
        How the qrels were named.
    analyses : sequence of str
        Further sentences, plain text, on analyses of the caller's own.
    command : str
        The command that computed the numbers.

    Returns
    -------
    Methods
        ``markdown``, ``latex``, ``html`` and the ir_metadata ``metadata`` (``to_yaml()``).

    Raises
    ------
    irrepro.InputError
        An unknown test, correction, effect size, interval method or measure; alpha or level
        outside (0, 1).

    Examples
    --------
    >>> from irrepro.significance import methods_paragraph
    >>> m = methods_paragraph(["AP", "P@10"], n_topics=50, n_runs=3, baseline="bm25", seed=1,
    ...                       interval="bca")
    >>> print(m.markdown[:45])
    **Methods.** We compared 3 runs on 50 topics.
    >>> print(m.latex[m.latex.index("We tested"):].split(".")[0])
    We tested each run against the baseline run \\texttt{bm25} (2 comparisons per measure) by the two-sided paired t-test on the per-topic differences (as scipy
    >>> sorted(m.metadata)
    ['data', 'implementation', 'irrepro', 'platform', 'research goal', 'schema-version']
    """
    from ..stats import check_level, level_percent
    from .result import _check_alpha

    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise InputError("methods_paragraph needs at least one measure")
    if test not in TESTS:
        raise InputError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    corrections = _corrections(correction)
    alpha = _check_alpha(alpha)
    level = check_level(level)
    if alternative not in ("two-sided", "greater", "less"):
        raise InputError(f"alternative must be 'two-sided', 'greater' or 'less', not {alternative!r}")
    for e in effect_sizes:
        if e not in _EFFECTS:
            raise InputError(f"effect size {e!r} is none of {', '.join(_EFFECTS)}")
    if interval is not None and interval not in _INTERVALS:
        raise InputError(f"interval must be one of {', '.join(_INTERVALS)} or None, not {interval!r}")
    precision = precision or "float32"
    if precision not in ("float32", "float64"):
        raise InputError(f"precision must be 'float32' or 'float64', not {precision!r}")
    if n_comparisons is None:
        n_comparisons = n_runs - 1 if baseline is not None else n_runs * (n_runs - 1) // 2
    comparisons = f"{n_comparisons} comparison" + ("s" if n_comparisons != 1 else "")
    resampled = test in RESAMPLING
    if resampled and B is None:
        B = DEFAULT_B[test]

    s: list[list[str]] = []  # the sentences, as parts
    s.append([f"We compared {n_runs} runs on {n_topics} topics" + (" (qrels " if qrels else "")]
             + ([_Code(qrels), ")"] if qrels else []) + ["."])  # fmt: skip
    s.append([f"Every score is a run's mean over all {n_topics} topics of the qrels (trec_eval -c): a topic a "
              "run retrieved nothing for scores 0 ("
              + (f"{missing_runs} of the {n_runs} runs {'misses' if missing_runs == 1 else 'miss'} some of them"
                 if missing_runs else "every run retrieved "
                 "documents for every topic")
              + "), and a run's topics the qrels lack are not evaluated."])  # fmt: skip
    tie = ("as trec_eval 9.0.8, pytrec_eval and NIST's official scores: scores equal to about 7 digits tie"
           if precision == "float32" else "as trec_eval 10")  # fmt: skip
    s.append([f"For the binary measures a document is relevant at grade {rel} or above (trec_eval -l {rel}); documents are ranked by "
              f"score compared at {precision} precision ({tie}), ties broken by document id, descending, as trec_eval does"
              + (f", and only the first {depth} documents of a ranking count (trec_eval -M {depth})" if depth else "")
              + "."])  # fmt: skip
    mparts, reported = _measure_parts(names, rel, depth)
    s.append(["Measures (ir_measures' names, else irrepro's): ", *mparts, "."])
    tails = {"two-sided": "two-sided", "greater": "one-sided (the first run better)",
             "less": "one-sided (the first run worse)"}[alternative]  # fmt: skip
    how = _HOW[test].format(B=f"B = {B:,}" if B is not None else "")
    if test == "permutation" and exact:
        how = "of Fisher (Smucker et al. 2007), exact: all sign flips of the per-topic differences"
    family: list[str] = (
        ["each run against the baseline run ", _Code(baseline), f" ({comparisons} per measure)"]
        if baseline is not None else [f"every pair of runs ({comparisons} per measure)"]
    )  # fmt: skip
    s.append(["We tested ", *family, f" by the {tails} {TESTS[test]} {how}."])
    if test == FAMILY_WISE:
        s.append([f"Its p-values are family-wise over the {comparisons} by construction; a "
                  f"difference is significant at p < {alpha:g}."])  # fmt: skip
    elif corrections == ["none"]:
        s.append([f"The p-values are not adjusted for multiple comparisons; a difference is significant at "
                  f"p < {alpha:g}."])  # fmt: skip
    else:
        labels = " and, separately, ".join(f"{CORRECTIONS[c][1]}'s method" for c in corrections)
        s.append([f"The p-values are adjusted for the {comparisons} of each measure by {labels} "
                  f"(statsmodels' multipletests: {', '.join(corrections)}); a difference is significant at "
                  f"an adjusted p < {alpha:g}."])  # fmt: skip
    effects = [_EFFECTS[e] for e in effect_sizes]
    if effects:
        s.append(["Effect sizes: " + "; ".join(effects) + "."])
    if interval is not None:
        of = "the difference in mean" + (" from the baseline" if baseline is not None else " of each pair")
        of = of if interval_of == "difference" else "each run's mean"
        s.append([f"Intervals: {level_percent(level)} {_INTERVALS[interval]} intervals of {of}, from {B_interval:,} "
                  "bootstrap samples of the topics."])  # fmt: skip
    s += [[a] for a in analyses]
    random = resampled or interval is not None or bool(analyses)
    if seed is None and random:
        raise InputError("pass seed: the paragraph names the seed of the random steps")
    if random:
        s.append([f"Every random step drew from seed {seed} (a child of NumPy's SeedSequence({seed}) each); "
                  "the numbers do not depend on the number of workers."])  # fmt: skip
    else:
        s.append(["No step is random."])
    v = _versions()
    s.append(
        ["Software: " + ", ".join(f"{k} {v[k]}" for k in v if k != "python") + f", Python {v['python']}."]
    )
    md = "**Methods.** " + " ".join(_render(p, "markdown") for p in s)
    tex = "\\paragraph{Methods.} " + " ".join(_render(p, "latex") for p in s)
    meta = _metadata(
        names=names, reported=reported, test=test, corrections=corrections, alpha=alpha, alternative=alternative,
        baseline=baseline, n_comparisons=n_comparisons, B=B if resampled else None, exact=exact,
        effect_sizes=list(effect_sizes), interval=interval, interval_of=interval_of, level=level,
        B_interval=B_interval if interval else None, seed=seed, rel=rel, depth=depth, precision=precision,
        n_topics=n_topics, n_runs=n_runs, missing_runs=missing_runs, qrels=qrels, analyses=list(analyses),
        command=command, versions=v,
    )  # fmt: skip
    html = "<b>Methods.</b> " + " ".join(_render(p, "html") for p in s)
    return Methods(md + "\n", tex + "\n", meta, html)


def _corrections(correction) -> list[str]:
    out = (
        ["holm"] if correction is None else [correction] if isinstance(correction, str) else list(correction)
    )
    for c in out:
        if c not in CORRECTIONS:
            raise InputError(f"correction must be one of {', '.join(CORRECTIONS)}, not {c!r}")
    if not out:
        raise InputError("give a correction, or 'none'")
    return ["none"] if out == ["none"] else [c for c in out if c != "none"]


def _versions() -> dict[str, str]:
    """The versions of the software the numbers depend on."""
    import numpy
    import pandas
    import scipy
    import statsmodels  # (the corrections: multipletests)

    from .. import __version__

    return {"irrepro": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "pandas": pandas.__version__, "statsmodels": statsmodels.__version__,
            "python": platform.python_version()}  # fmt: skip


def _metadata(*, names, reported, test, corrections, versions, command, qrels, baseline, **settings) -> dict:
    """The settings in ir_metadata's (v0.1) fields, and the rest under ``irrepro``."""
    libraries = [f"{k}=={v}" for k, v in versions.items() if k != "python"]
    methods = ["none (family-wise by itself)"] if test == FAMILY_WISE else corrections
    significance = [{"name": TESTS[test], "correction method": c} for c in methods]
    return {
        "schema-version": "0.1",
        "platform": {
            "hardware": {"cpu": {"architecture": platform.machine(), "number of cores": os.cpu_count() or 1}},
            "operating system": {
                "kernel": f"{platform.system()} {platform.release()}".strip(),
                "distribution": _distribution(),
            },  # fmt: skip
            "software": {"libraries": {"python": [f"python=={versions['python']}", *libraries]}},
        },
        "implementation": {
            **({"executable": {"cmd": command}} if command else {}),
            "source": {"lang": ["python"], "repository": REPOSITORY_URL},
        },
        "research goal": {
            "evaluation": {
                "reported measures": reported,
                **({"baseline": [baseline]} if baseline is not None else {}),
                "significance test": significance,
            }
        },
        "data": {"test collection": {"qrels": qrels}} if qrels else {},
        "irrepro": {
            "measures": names,
            "test": test,
            "corrections": corrections,
            **settings,
            "python": sys.version.split()[0],
        },  # fmt: skip
    }


def _distribution() -> str:
    """The operating system's name and version (freedesktop os-release where there is one)."""
    try:
        info = platform.freedesktop_os_release()
        return info.get("PRETTY_NAME") or info.get("NAME", "")
    except (OSError, AttributeError):
        return platform.platform()
