"""The table of a paper's results (``irrepro compare``): runs as rows, measures as columns, each mean
marked by a significance test against a baseline, or (as ranx's report does) by the runs it beats."""

from __future__ import annotations

import string
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import escape
from ..errors import InputError
from ..stats import level_percent
from ._names import FAMILY_WISE, FORMATS
from .effects import EffectSizes
from .result import PairwiseResult, _correction

#: Unicode superscripts of the letters naming runs in the text format (ranx's convention; there is
#: no superscript q, so the Canadian syllabics' final "ᑫ" stands in, as in many typeset tables).
_SUPER = dict(zip(string.ascii_lowercase, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ"))
_UP, _DOWN = "↑", "↓"


def _letters(k: int) -> list[str]:
    """a, b, ..., z, aa, ab, ...: the labels of k runs."""
    out = []
    for i in range(k):
        s, i = "", i + 1
        while i:
            i, r = divmod(i - 1, 26)
            s = string.ascii_lowercase[r] + s
        out.append(s)
    return out


@dataclass(frozen=True, eq=False)
class ComparisonTable:
    """A paper's results table: every run's score under every measure, marked where it differs significantly."""

    runs: tuple
    means: pd.DataFrame
    tests: dict[str, PairwiseResult]
    wtl: dict[str, pd.DataFrame]
    baseline: str | None
    alpha: float
    level: float
    low: pd.DataFrame | None = None
    high: pd.DataFrame | None = None
    digits: int = 4
    undefined: dict[str, tuple[str, ...]] = field(default_factory=dict)
    effects: dict[str, EffectSizes] = field(default_factory=dict)

    @property
    def measures(self) -> tuple:
        return tuple(self.means.columns)

    @property
    def test(self) -> PairwiseResult:
        """The first measure's test (they all share the test and the correction)."""
        return next(iter(self.tests.values()))

    def _significance(self, m: str) -> tuple[np.ndarray, np.ndarray]:
        """(sign of the difference where significant, else 0) per pair, and the pairs."""
        r = self.tests[m]
        return np.where(r.significant(self.alpha), np.sign(r.difference), 0.0), r.pairs

    def beats(self, measure: str) -> list[list[str]]:
        """For each run, the runs it is significantly better than under ``measure``."""
        sig, pairs = self._significance(measure)
        out: list[list[str]] = [[] for _ in self.runs]
        for (i, j), s in zip(pairs, sig):
            if s > 0:
                out[i].append(self.runs[j])
            elif s < 0:
                out[j].append(self.runs[i])
        return out

    def _effect(self, m: str) -> np.ndarray:
        """``(3, runs)``: each run's effect size of ``m`` against the baseline, low, high (baseline NaN)."""
        es = self.effects[m]
        out = np.full((3, len(self.runs)), np.nan)
        out[:, es.pairs[:, 0]] = es.estimate, es.low, es.high
        return out

    def to_frame(self) -> pd.DataFrame:
        """Runs as rows, ``(measure, quantity)`` columns with every number at full precision."""
        cols: dict[tuple[str, str], Any] = {}
        for m in self.measures:
            cols[(m, "mean")] = self.means[m].to_numpy()
            if self.baseline is not None:
                r = self.tests[m]
                idx = r.pairs[:, 0]
                sig, _ = self._significance(m)
                w = self.wtl[m]
                for name, v in (("difference", r.difference), ("p", r.p), ("p adjusted", r.p_adjusted)):
                    col = np.full(len(self.runs), np.nan)
                    col[idx] = v
                    cols[(m, name)] = col
                for name, counts in (("significant", sig), *((c, w[c]) for c in ("wins", "ties", "losses"))):
                    ints = pd.array([pd.NA] * len(self.runs), dtype="Int64")
                    ints[idx] = np.asarray(counts, dtype=np.int64)
                    cols[(m, name)] = ints
            else:
                cols[(m, "beats")] = [";".join(b) for b in self.beats(m)]
            if self.low is not None and self.high is not None:
                cols[(m, "low")] = self.low[m].to_numpy()
                cols[(m, "high")] = self.high[m].to_numpy()
            if m in self.effects:
                kind = self.effects[m].kind
                cols.update(zip([(m, kind), (m, f"{kind} low"), (m, f"{kind} high")], self._effect(m)))
        frame = pd.DataFrame(cols, index=pd.Index(self.runs, name="run"))
        frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["measure", "quantity"])
        return frame

    def to_csv(self, path=None) -> str | None:
        """:meth:`to_frame` as CSV, the columns named ``measure quantity`` (``AP mean``, ...)."""
        frame = self.to_frame()
        frame.columns = [f"{m} {q}" for m, q in frame.columns]  # type: ignore[str-unpack]  # (measure, quantity) pairs
        return escape.to_csv(frame, path)  # OWASP's rule for the names (irrepro.escape.csv_cell)

    # ---- the display table ----------------------------------------------------------------

    def note(self, fmt: str = "text", *, key: bool = True) -> str:
        """What the marks mean: the test, the correction, alpha, the family, in ``fmt``'s markup."""
        r = self.test
        e = _ESCAPE.get(fmt, escape.plain)
        pairs = f"{len(r.pairs)} pair" + ("s" if len(r.pairs) != 1 else "")
        if r.correction == FAMILY_WISE:
            how = f"family-wise p < {self.alpha:g} over the {pairs}"
        elif r.correction == "none":
            how = f"unadjusted p < {self.alpha:g}"
        else:
            how = f"p < {self.alpha:g} after {_correction(r.correction)[1]}'s adjustment over {pairs}"
        test = r.label + (f", B = {r.B:,}" if r.B and not r.exact else (", exact" if r.exact else ""))
        up, down = ("$\\uparrow$", "$\\downarrow$") if fmt == "latex" else (_UP, _DOWN)
        if self.baseline is not None:
            labels = dict(zip(self.runs, escape.short_names(self.runs)))
            base = labels[self.baseline]  # as the table labels it
            text = (f"{up} / {down}: " + e(f"significantly higher / lower than the baseline {base} "
                                            f"({test}; {how} per measure); p: the adjusted p-value"))  # fmt: skip
        else:
            text = e(f"Superscripts: the runs (by letter) a run is significantly better than ({test}; "
                     f"{how} per measure)")  # fmt: skip
        if self.low is not None:
            what = "the difference from the baseline" if self.baseline is not None else "the mean"
            text += e(f"; {level_percent(self.level)} BCa bootstrap interval of {what}")
        if self.effects:
            es = next(iter(self.effects.values()))
            same = ", the samples of the difference's" if self.low is not None else ""
            text += e(f"; {es.kind}: {_EFFECT_NOTES[es.kind][0]}, with its {level_percent(self.level)} BCa "
                      f"bootstrap interval over topics (B = {es.B:,}{same})")  # fmt: skip
        best = "bold: the best mean of a measure" if fmt in ("markdown", "latex") else ""
        text += f"; {best}." if best else "."
        for m, why in self.undefined.items():  # the tests with no answer: the reason, never "nan"
            n = int(np.isnan(self.tests[m].p).sum())
            mark = " (p: -)" if self.baseline is not None else ""
            text += " " + e(f"No test of {m} for {n} pair{'s' if n > 1 else ''}{mark}: {'; '.join(why)}.")
        for m, es in self.effects.items():  # the effect sizes without an interval: why
            n = int(np.isnan(es.low).sum())
            if n:
                runs = f"{n} run{'s' if n > 1 else ''}"
                text += " " + e(
                    f"No {es.kind} interval of {m} for {runs} ({es.kind}: -): {_EFFECT_NOTES[es.kind][1]}."
                )
        return text + (" " + self.key(fmt) if key and self._shortened() else "")

    def key(self, fmt: str = "text") -> str:
        """The full names of the runs the table shortens (``irrepro.escape.short_names``), "" for none."""
        e = _ESCAPE.get(fmt, escape.plain)

        def full(n: str) -> str:
            if fmt != "latex":
                return e(n)
            return r"\allowbreak{}".join(e(n[k : k + 40]) for k in range(0, len(n), 40))

        twins = {n for group in escape.look_alikes(self.runs) for n in group}  # shown with their code points
        pairs = [
            f"{e(lab)} = {full(n)}" + (e(f" ({ascii(n)})") if n in twins else "")
            for lab, n in self._shortened()
        ]
        return e("Run names shortened: ") + "; ".join(pairs) + "." if pairs else ""

    def _shortened(self) -> list[tuple[str, str]]:
        """(label, full name) of the runs whose names the display table shortens."""
        return escape.shortened_key(self.runs, escape.short_names(self.runs))

    def _cells(self, fmt: str, digits: int) -> pd.DataFrame:
        """The display table as strings, formatted for ``fmt`` (text, markdown or latex)."""
        f = f"{{:.{digits}f}}".format
        S = len(self.runs)
        letters = _letters(S) if self.baseline is None else []
        cols: dict = {}
        if self.baseline is None:  # (letters name the runs)
            cols[("", "#")] = letters
        e = _ESCAPE[fmt]  # names: the format's escape
        eq = escape.latex if fmt == "latex" else str  # irrepro's words ("< 0.0001", "95% CI"): LaTeX's only
        cols[("", "run")] = [e(r) for r in escape.short_names(self.runs)]
        for m in self.measures:
            mean = self.means[m].to_numpy()
            best = np.flatnonzero(mean == mean.max())
            bold = {"markdown": "**{}**", "latex": "\\textbf{{{}}}"}.get(fmt, "{}")
            cells = [bold.format(f(v)) if s in best else f(v) for s, v in enumerate(mean)]
            cols[(m, "mean")] = cells  # (marked below)
            if self.baseline is not None:
                sig, pairs = self._significance(m)
                p = np.full(S, "", dtype=object)
                for (i, _), s, pa in zip(pairs, sig, self.tests[m].p_adjusted):
                    if s:
                        up, down = ("$^{\\uparrow}$", "$^{\\downarrow}$") if fmt == "latex" else (_UP, _DOWN)
                        cells[i] += up if s > 0 else down
                    p[i] = "-" if np.isnan(pa) else eq(_p(pa, digits))
                cols[(m, "p")] = list(p)
            else:
                for s, beaten in enumerate(self.beats(m)):
                    if beaten:
                        labs = [letters[self.runs.index(b)] for b in beaten]
                        sep = "," if any(len(lab) > 1 for lab in labs) else ""
                        sup = sep.join(labs)
                        text = "".join(_SUPER.get(ch, ch) for ch in sup)
                        cells[s] += {"latex": f"$^{{{sup}}}$", "markdown": f"<sup>{sup}</sup>"}.get(fmt, text)
            if self.low is not None and self.high is not None:
                lo, hi = self.low[m].to_numpy(), self.high[m].to_numpy()
                ci = ["" if np.isnan(a) else f"[{f(a)}, {f(b)}]" for a, b in zip(lo, hi)]
                cols[(m, f"{level_percent(self.level)} CI")] = ci
            if m in self.effects:
                kind, base = self.effects[m].kind, self.runs.index(self.baseline)
                est, lo, hi = self._effect(m)
                cols[(m, kind)] = [
                    "" if s == base else "-" if np.isnan(v) else f(v) for s, v in enumerate(est)
                ]
                cols[(m, f"{kind} {level_percent(self.level)} CI")] = [
                    "" if s == base else "-" if np.isnan(a) else f"[{f(a)}, {f(b)}]"
                    for s, (a, b) in enumerate(zip(lo, hi))
                ]
        frame = pd.DataFrame(cols)
        short = dict(zip(self.measures, escape.short_names(self.measures)))  # long measure names, kept apart
        frame.columns = pd.MultiIndex.from_tuples(
            [(e(short[m]) if m else m, eq(q)) for m, q in frame.columns]
        )
        return frame

    def _tabulated(self, fmt: str, digits: int | None, tablefmt: str) -> str:
        """The display table with one header row (``AP``, ``AP p``, ``AP 95% CI``) by tabulate, the note below it."""
        frame = self._cells(fmt, self.digits if digits is None else digits)
        frame.columns = [q if m == "" else (m if q == "mean" else f"{m} {q}") for m, q in frame.columns]  # type: ignore[str-unpack]  # (measure, quantity) pairs
        table = frame.to_markdown(index=False, tablefmt=tablefmt, disable_numparse=True)
        return f"{table}\n\n{self.note(fmt)}"

    def to_string(self, digits: int | None = None) -> str:
        """The table as plain text (tabulate's ``simple`` format), the note below it."""
        return self._tabulated("text", digits, "simple")

    def to_markdown(self, digits: int | None = None) -> str:
        """The table as Markdown (tabulate's ``pipe``, best means in bold), the note below it."""
        return self._tabulated("markdown", digits, "pipe")

    def to_latex(
        self, digits: int | None = None, *, caption: str | None = None, label: str | None = None
    ) -> str:
        """The table as a LaTeX ``table`` float with booktabs rules, measures as column groups, best in bold."""
        digits = self.digits if digits is None else digits
        frame = self._cells("latex", digits)
        labels = [c for c in frame.columns if c[0] == ""]  # run (and #); every cell escaped by _cells
        styler = frame.style.hide(axis="index")
        ncol = frame.shape[1]
        out = styler.to_latex(
            hrules=True,
            column_format="l" * len(labels) + "r" * (ncol - len(labels)),
            multicol_align="c",
            caption=self.note("latex", key=False) if caption is None else caption,
            label=label,
            position_float="centering",
        )
        if self._shortened():
            end = out.rindex("\\end{table}")
            out = out[:end] + f"\\par\\smallskip{{\\footnotesize {self.key('latex')}\\par}}\n" + out[end:]
        beyond = escape.latex_beyond_pdflatex(out)
        if beyond:  # valid LaTeX, but pdflatex stops at them: say so rather than leave it to the user's build
            warnings.warn(f"the LaTeX table holds characters pdflatex does not set without a package "
                          f"({' '.join(beyond[:10])}{' ...' if len(beyond) > 10 else ''}): compile it with "
                          "xelatex or lualatex, or load a package for them", stacklevel=2)  # fmt: skip
        return out

    def render(self, fmt: str = "text", digits: int | None = None) -> str:
        """The table in one of ``FORMATS``."""
        if fmt not in FORMATS:
            raise InputError(f"format must be one of {FORMATS}, not {fmt!r}")
        if fmt == "csv":
            return self.to_csv() or ""  # (no path: the text)
        return {"text": self.to_string, "markdown": self.to_markdown, "latex": self.to_latex}[fmt](digits)

    def __str__(self) -> str:
        return self.to_string()


def _p(p: float, digits: int) -> str:
    """A p-value with ``digits`` decimals, or ``< 0.0001`` below what they show."""
    floor = 10.0**-digits
    return f"< {floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"


#: What each effect size of the table is, and why it may have no interval.
_EFFECT_NOTES = {
    "d_z": ("Cohen's standardized mean difference, mean(z) / sd(z) of the per-topic differences z from the "
            "baseline", "its differences from the baseline are equal on all topics but at most one (sd(z) is "
            "0 on every topic or with one left out, the jackknife's)"),
    "ES_E": ("Sakai's standardized mean difference, the difference from the baseline over the residual "
             "standard deviation of the two-way ANOVA of all the runs and topics, sqrt(V_E)", "no residual "
             "variance on every topic or with one left out, the jackknife's (every score a run effect plus "
             "a topic effect)"),
}  # fmt: skip


#: The escape of each display format's text (:mod:`irrepro.escape`).
_ESCAPE = {"text": escape.plain, "markdown": escape.markdown, "latex": escape.latex}
