"""Evaluation measures over whole run sets at once (systems x topics x ranks arrays).

One call scores many runs on many measures::

    from irrepro import data, measures
    rs = data.load_runs("trec-covid-round5")
    sc = measures.evaluate(rs, ["AP", "nDCG@20", "P@20", "Q", "RBP(p=0.5)"])
    sc["AP"].mean()                       # MAP per run, as trec_eval -c reports it
    measures.aggregate(sc["AP"], "G")     # Sakai's / Voorhees' geometric mean (G_AveP)

Measure names (ir_measures' where it has one, the project's otherwise; ``k`` a positive integer):

==================  ==========================================================================
``AP``              average precision (trec_eval ``map``; Sakai's AveP)
``SP``              sum of precisions at the relevant ranks, AP x R (unnormalised AP)
``P@k``             precision at k: relevant in the top k, divided by k (trec_eval ``P_k``)
``PDoc@k``          the same as ``P@k``, under Sakai's (2006) name
``R@k``             recall at k (trec_eval ``recall_k``)
``Rprec``           precision at rank R (trec_eval ``Rprec``)
``RR``              reciprocal rank of the first relevant document (trec_eval ``recip_rank``)
``bpref``           trec_eval's ``bpref`` (Buckley & Voorhees 2004)
``DCG@k``           sum over the top k of gain / log2(rank + 1)
``nDCG@k``          ``DCG@k`` / ideal ``DCG@k`` (trec_eval ``ndcg_cut_k``)
``nDCG``            the same over the whole list and the whole ideal list (trec_eval ``ndcg``)
``nDCG_sakai@k``    Sakai's nDCG_l: discount 1 for rank <= a, log_a(rank) beyond, a = 2
``nCG@k``           cumulative gain at k / ideal cumulative gain at k (Sakai 2006, Sec. 2.1)
``Q``               Q-measure with beta = 1 over the whole list (Sakai 2006, Sec. 2.1)
``RBP(p=x)``        rank-biased precision, persistence x (Moffat & Zobel 2008), graded: the gain
                    of a document is its gain / the largest gain of the qrels' grades
                    (NTCIREVAL's and rbp_eval's graded RBP; NIST's TREC-COVID ``rbp_p5`` is
                    ``RBP(p=0.5)``)
``RBP(p=x,rel=r)``  binary RBP: relevant = grade >= r (ir_measures' naming); the same as
                    ``RBP(p=x)`` on binary judgments
==================  ==========================================================================

Conventions (trec_eval's, which NIST's official scores use):

* **Topics.** Only topics with judgments are evaluated: a :class:`~irrepro.data.RunSet` holds
  exactly the qrels' topics, and topics a run has but the qrels lack are ignored
  (``RunSet.ignored_topics``).
* **Runs missing a topic** (or retrieving nothing there) score 0 on it, and means are taken over
  all the qrels' topics: this is ``trec_eval -c``. (Plain ``trec_eval`` averages only over the
  topics the run retrieved for; pytrec_eval returns no value for such a topic.)
* **Topics without relevant documents** (R = 0) score 0 on every measure (AP, Rprec, bpref, nDCG,
  Q, ... are all 0/0 there), and still count in the mean, as in trec_eval.
* **Relevance** is ``grade >= rel`` (``rel=1`` by default: trec_eval's ``-l``). Graded measures
  use a gain per grade: by default the grade itself for positive grades (trec_eval's gains, and
  TREC-COVID's 0/1/2), settable with ``gains``. The (n)DCG / nCG family and graded RBP ignore
  ``rel`` (as trec_eval's ``ndcg`` does); Q-measure uses ``rel`` for isrel(r) and R, and the
  gains for cg(r) and the ideal cg_I(r).
* **Negative judgments** (a qrels grade < 0) mean "in the pool but not judged" to trec_eval: such
  a document counts neither as relevant nor as judged non-relevant (it matters only for bpref and
  the RBP residual); the data layer reads them so (``UNJUDGED`` in ``RunSet.grades``, not counted
  in ``grade_counts``).
* **Ranking** is trec_eval's (score descending, ties by document id descending), done by the
  data layer; lists are used in full (no cut at 1000 unless the run file is).

All kernels are array operations over the whole S x T x K block, done in chunks of runs so that
memory stays bounded (a few tens of MB whatever the number of runs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .data import PAD, UNJUDGED, RunSet, ScoreMatrix

#: The offset of the geometric-mean forms (Sakai 2006: log(x + 0.00001)).
GM_EPSILON = 1e-5

__all__ = [
    "MEASURE_FAMILIES",
    "Measure",
    "aggregate",
    "average_precision",
    "evaluate",
    "parse_measure",
    "rbp_residual",
    "score_grades",
]

#: Families of measures :func:`evaluate` knows, with whether they take a cutoff ``@k``.
MEASURE_FAMILIES = {
    "AP": "none",
    "SP": "none",
    "Rprec": "none",
    "RR": "none",
    "bpref": "none",
    "Q": "none",
    "nDCG": "optional",
    "P": "required",
    "PDoc": "required",
    "R": "required",
    "DCG": "required",
    "nDCG_sakai": "required",
    "nCG": "required",
    "RBP": "p",
}

_NAME = re.compile(r"^(?P<fam>[A-Za-z_]+)(?:@(?P<k>\d+))?$")
_RBP = re.compile(
    r"^RBP\(\s*p\s*=\s*(?P<p>[0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*(?:,\s*rel\s*=\s*(?P<rel>\d+)\s*)?\)$"
)

# numbers of list cells (runs x topics x ranks) handled at once: bounds the temporaries' memory
_CHUNK_CELLS = 1 << 20


@dataclass(frozen=True)
class Measure:
    """A parsed measure name: ``family`` (e.g. ``"nDCG"``), ``cutoff`` k or None, ``p`` for RBP
    and ``rel`` for binary RBP (None: graded)."""

    name: str
    family: str
    cutoff: int | None = None
    p: float | None = None
    rel: int | None = None


def parse_measure(name: str) -> Measure:
    """Parse a measure name (``"AP"``, ``"P@10"``, ``"RBP(p=0.95)"``, ...); ValueError if unknown."""
    if not isinstance(name, str):
        raise ValueError(f"a measure name must be a string, got {name!r}")
    m = _RBP.match(name.strip())
    if m:
        p = float(m.group("p"))
        if not 0.0 < p < 1.0:
            raise ValueError(f"{name!r}: RBP's persistence p must be in (0, 1)")
        rel = m.group("rel")
        if rel is not None and int(rel) < 1:
            raise ValueError(f"{name!r}: rel must be >= 1")
        return Measure(name, "RBP", None, p, int(rel) if rel is not None else None)
    m = _NAME.match(name.strip())
    fam = m.group("fam") if m else None
    if fam not in MEASURE_FAMILIES or MEASURE_FAMILIES[fam] == "p":
        raise ValueError(
            f"unknown measure {name!r}; known: AP, SP, Rprec, RR, bpref, Q, nDCG, P@k, PDoc@k, "
            "R@k, DCG@k, nDCG@k, nDCG_sakai@k, nCG@k, RBP(p=0.95)"
        )
    k = m.group("k")
    kind = MEASURE_FAMILIES[fam]
    if k is None and kind == "required":
        raise ValueError(f"measure {name!r} needs a cutoff, e.g. {fam}@10")
    if k is not None and kind == "none":
        raise ValueError(f"measure {name!r} takes no cutoff; use {fam}")
    if k is not None and int(k) < 1:
        raise ValueError(f"measure {name!r}: the cutoff must be at least 1")
    return Measure(name, fam, int(k) if k is not None else None, None)


# --------------------------------------------------------------------------------------------
# public single-purpose kernels
# --------------------------------------------------------------------------------------------


def average_precision(relevant: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Average precision of ranked lists (trec_eval's ``map``; Sakai's AveP, Sec. 2.1).

    ``relevant`` is boolean ``(..., K)`` (rank axis last, padding False); ``n_rel`` is the number
    of relevant documents R, broadcastable to ``relevant.shape[:-1]``. AP = (1/R) sum over relevant
    ranks r of precision@r; 0 when R = 0.
    """
    relevant = np.asarray(relevant, dtype=bool)
    k = relevant.shape[-1]
    hits = np.cumsum(relevant, axis=-1, dtype=np.int32)
    prec = np.where(relevant, hits / np.arange(1, k + 1, dtype=np.float64), 0.0).sum(axis=-1)
    n_rel = np.broadcast_to(np.asarray(n_rel, dtype=np.float64), prec.shape)
    return np.divide(prec, n_rel, out=np.zeros_like(prec), where=n_rel > 0)


def rbp_residual(grades: RunSet | np.ndarray, p: float) -> np.ndarray:
    """The RBP residual (Moffat & Zobel 2008, Sec. 4): the most RBP could still rise if every
    unjudged document retrieved, and every document past the end of the list, were relevant:
    ``(1 - p) * sum over unjudged ranks i of p**(i-1) + p**L`` (L the list length).

    ``grades`` is a RunSet or an int array ``(..., K)`` with ``UNJUDGED``/``PAD`` codes; returns
    ``(...)`` (``(S, T)`` for a RunSet). RBP + residual is the upper bound of the RBP interval.
    """
    if isinstance(grades, RunSet):
        grades = grades.grades
    g = np.asarray(grades)
    if not 0.0 < p < 1.0:
        raise ValueError("RBP's persistence p must be in (0, 1)")
    w = (1.0 - p) * p ** np.arange(g.shape[-1], dtype=np.float64)
    length = (g != PAD).sum(axis=-1)
    return ((g == UNJUDGED) * w).sum(axis=-1) + p ** length.astype(np.float64)


# --------------------------------------------------------------------------------------------
# the block evaluator
# --------------------------------------------------------------------------------------------


def _gain_table(max_grade: int, gains: Mapping[int, float] | Sequence[float] | None) -> np.ndarray:
    """Gain per grade 0..max_grade (index = grade); grades <= 0 gain nothing."""
    table = np.arange(max_grade + 1, dtype=np.float64)
    if gains is not None:
        items = gains.items() if isinstance(gains, Mapping) else enumerate(gains)
        table = np.zeros(max_grade + 1, dtype=np.float64)
        for g, v in items:
            g, v = int(g), float(v)
            if not np.isfinite(v) or v < 0:
                raise ValueError(f"gain {v!r} of grade {g} must be a finite number >= 0")
            if 0 <= g <= max_grade:
                table[g] = v
    table[0] = 0.0
    return table


def _ideal_gains(grade_counts: np.ndarray, table: np.ndarray, length: int) -> np.ndarray:
    """``(T, length)`` gains of the ideal ranked list of each topic (judged documents by gain
    descending, zeros after the last one with a positive gain)."""
    T, G = grade_counts.shape
    out = np.zeros((T, length), dtype=np.float64)
    order = np.argsort(-table[:G], kind="stable")
    for t in range(T):  # T topics, not lists: a handful of repeats each
        vals = np.repeat(table[order], grade_counts[t, order])
        vals = vals[vals > 0][:length]
        out[t, : len(vals)] = vals
    return out


def score_grades(
    grades: np.ndarray,
    grade_counts: np.ndarray,
    measures: Sequence[str],
    *,
    rel: int = 1,
    gains: Mapping[int, float] | Sequence[float] | None = None,
) -> dict[str, np.ndarray]:
    """Score a block of ranked lists given as grades: the engine behind :func:`evaluate`.

    ``grades`` is an int array ``(S, T, K)`` (grade at each rank, ``UNJUDGED`` = -1 for a
    retrieved document without a judgment, ``PAD`` = -2 past the end of the list);
    ``grade_counts`` is ``(T, G + 1)``: judged documents of each grade 0..G per topic (the
    relevant ones need not be retrieved). Returns ``{name: (S, T) float64 array}``.
    """
    grades = np.asarray(grades)
    if grades.ndim != 3:
        raise ValueError(f"grades must be (runs, topics, ranks), got shape {grades.shape}")
    grade_counts = np.asarray(grade_counts, dtype=np.int64)
    S, T, K = grades.shape
    if grade_counts.ndim != 2 or grade_counts.shape[0] != T:
        raise ValueError(f"grade_counts must be (topics={T}, grades), got {grade_counts.shape}")
    if rel < 1:
        raise ValueError(f"rel must be >= 1 (a relevance level), got {rel}")
    if grades.size and int(grades.min()) < PAD:
        raise ValueError(f"grades below {PAD} (PAD): {int(grades.min())}; use UNJUDGED = -1 / PAD = -2")
    if (grade_counts < 0).any():
        raise ValueError("grade_counts must be >= 0")
    specs = [parse_measure(m) for m in measures]
    G = grade_counts.shape[1] - 1
    max_grade = max(G, int(grades.max(initial=0)))
    if grade_counts.shape[1] < max_grade + 1:
        grade_counts = np.pad(grade_counts, ((0, 0), (0, max_grade + 1 - grade_counts.shape[1])))
    table = _gain_table(max_grade, gains)
    # lookup over codes -2..max_grade: PAD and UNJUDGED gain nothing
    gain_lut = np.r_[0.0, 0.0, table]

    n_rel = grade_counts[:, rel:].sum(axis=1).astype(np.float64)  # R per topic
    n_nonrel = grade_counts[:, :rel].sum(axis=1).astype(np.float64)  # judged non-relevant
    total_gain_docs = int((grade_counts * (table > 0)).sum(axis=1).max(initial=0))
    cutoffs = [s.cutoff for s in specs if s.cutoff]
    id_len = max([K, total_gain_docs, *cutoffs])
    need_ideal = any(s.family in {"nDCG", "nDCG_sakai", "nCG", "Q"} for s in specs)
    ideal = _ideal_gains(grade_counts, table, id_len) if need_ideal else None
    ideal_cg = np.cumsum(ideal, axis=1) if need_ideal else None

    ranks_all = np.arange(1, max(id_len, K) + 1, dtype=np.float64)
    disc_log2 = 1.0 / np.log2(ranks_all + 1.0)
    disc_sakai = np.where(ranks_all <= 2, 1.0, 1.0 / np.maximum(np.log2(ranks_all), 1.0))

    # per-measure normalisers that depend on topics only
    norms = {}
    for s in specs:
        if s.family == "nDCG":
            k = s.cutoff or id_len
            norms[s.name] = (ideal[:, :k] * disc_log2[:k]).sum(axis=1)
        elif s.family == "nDCG_sakai":
            norms[s.name] = (ideal[:, : s.cutoff] * disc_sakai[: s.cutoff]).sum(axis=1)
        elif s.family == "nCG":
            norms[s.name] = ideal_cg[:, s.cutoff - 1]

    out = {s.name: np.zeros((S, T), dtype=np.float64) for s in specs}
    step = max(1, _CHUNK_CELLS // max(1, T * K))
    ranks = ranks_all[:K]
    for s0 in range(0, S, step):
        s1 = min(S, s0 + step)
        _score_chunk(
            grades[s0:s1], specs, out, s0, s1, rel=rel, gain_lut=gain_lut, n_rel=n_rel,
            n_nonrel=n_nonrel, ideal_cg=ideal_cg, ranks=ranks, disc_log2=disc_log2[:K],
            disc_sakai=disc_sakai[:K], norms=norms,
        )  # fmt: skip
    return out


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.broadcast_arrays(num, den)
    return np.divide(num, den, out=np.zeros(num.shape, dtype=np.float64), where=den > 0)


def _score_chunk(g, specs, out, s0, s1, *, rel, gain_lut, n_rel, n_nonrel, ideal_cg, ranks,
                 disc_log2, disc_sakai, norms):  # fmt: skip
    K = g.shape[-1]
    max_gain = float(gain_lut.max())
    cache: dict[str, np.ndarray] = {}

    def relb():
        if "rel" not in cache:
            cache["rel"] = g >= rel
        return cache["rel"]

    def hits():
        if "hits" not in cache:
            cache["hits"] = np.cumsum(relb(), axis=-1, dtype=np.int32)
        return cache["hits"]

    def prec_sum():  # sum of precisions at relevant ranks = SP
        if "sp" not in cache:
            cache["sp"] = (relb() * (hits() / ranks)).sum(axis=-1)
        return cache["sp"]

    def gain():
        if "gain" not in cache:
            cache["gain"] = gain_lut[g.astype(np.intp) + 2]
        return cache["gain"]

    def cg():
        if "cg" not in cache:
            cache["cg"] = np.cumsum(gain(), axis=-1)
        return cache["cg"]

    for s in specs:
        fam, k = s.family, s.cutoff
        if fam == "AP":
            res = _safe_div(prec_sum(), n_rel)
        elif fam == "SP":
            res = prec_sum()
        elif fam in ("P", "PDoc"):
            res = hits()[..., min(k, K) - 1] / float(k)
        elif fam == "R":
            res = _safe_div(hits()[..., min(k, K) - 1].astype(np.float64), n_rel)
        elif fam == "Rprec":
            idx = (np.clip(n_rel, 1, K) - 1).astype(np.intp)
            h = np.take_along_axis(hits(), np.broadcast_to(idx[None, :, None], g.shape[:2] + (1,)), -1)
            res = _safe_div(h[..., 0].astype(np.float64), n_rel)
        elif fam == "RR":
            r = relb()
            first = np.argmax(r, axis=-1)
            res = np.where(r.any(axis=-1), 1.0 / (first + 1.0), 0.0)
        elif fam == "bpref":
            res = _bpref(g, relb(), rel, n_rel, n_nonrel)
        elif fam == "DCG":
            res = (gain()[..., :k] * disc_log2[:k]).sum(axis=-1)
        elif fam == "nDCG":
            kk = K if k is None else min(k, K)
            res = _safe_div((gain()[..., :kk] * disc_log2[:kk]).sum(axis=-1), norms[s.name])
        elif fam == "nDCG_sakai":
            res = _safe_div((gain()[..., :k] * disc_sakai[:k]).sum(axis=-1), norms[s.name])
        elif fam == "nCG":
            res = _safe_div(cg()[..., min(k, K) - 1], norms[s.name])
        elif fam == "Q":
            # BR(r) = (count(r) + beta cg(r)) / (r + beta cg_I(r)), beta = 1, at relevant ranks
            br = (hits() + cg()) / (ranks + ideal_cg[:, :K])
            res = _safe_div((relb() * br).sum(axis=-1), n_rel)
        elif fam == "RBP":
            w = (1.0 - s.p) * s.p ** (ranks - 1.0)
            if s.rel is None:  # graded: gain / largest gain
                res = (gain() * w).sum(axis=-1) / max_gain if max_gain > 0 else np.zeros(g.shape[:2])
            else:
                res = ((g >= s.rel) * w).sum(axis=-1)
        else:  # pragma: no cover - parse_measure guards this
            raise AssertionError(fam)
        out[s.name][s0:s1] = res


def _bpref(g, relb, rel, n_rel, n_nonrel):
    """trec_eval's bpref (m_bpref.c): (1/R) sum over retrieved relevant documents of
    1 - min(n, R) / min(R, N), n the judged non-relevant documents above it, N all of them."""
    nonrel = (g >= 0) & (g < rel)
    above = np.cumsum(nonrel, axis=-1, dtype=np.int32)  # at a relevant rank: those above it
    cap = np.minimum(n_rel, n_nonrel)[None, :, None]
    frac = np.divide(
        np.minimum(above, n_rel[None, :, None]), cap, out=np.zeros(above.shape), where=cap > 0
    )
    term = np.where(above > 0, 1.0 - frac, 1.0)
    return _safe_div((relb * term).sum(axis=-1), n_rel)


def evaluate(
    runset: RunSet,
    measures: Sequence[str],
    *,
    rel: int = 1,
    gains: Mapping[int, float] | Sequence[float] | None = None,
) -> dict[str, ScoreMatrix]:
    """Score every run of ``runset`` on every topic for each measure (names in the module doc).

    Returns ``{measure: ScoreMatrix}`` with systems x topics scores; ``ScoreMatrix.mean()`` is
    then the mean over all the qrels' topics, as ``trec_eval -c`` reports it. ``rel`` is the
    lowest relevant grade (binary measures, Q's isrel and R); ``gains`` maps grade -> gain for the
    graded measures (default: the grade itself). Conventions (trec_eval's) are in the module doc.
    """
    if isinstance(measures, str):
        measures = [measures]
    names = list(dict.fromkeys(measures))
    scores = score_grades(runset.grades, runset.grade_counts(), names, rel=rel, gains=gains)
    return {
        m: ScoreMatrix(scores[m], runset.runs, runset.topics, m, runset.name, runset.source)
        for m in names
    }


# --------------------------------------------------------------------------------------------
# aggregates over topics
# --------------------------------------------------------------------------------------------

_AGGREGATES = ("mean", "G", "AG", "L", "G_trec")


def aggregate(scores: ScoreMatrix | np.ndarray, how: str = "mean", *, eps: float = GM_EPSILON,
              axis: int = -1) -> np.ndarray:  # fmt: skip
    """Aggregate per-topic scores over topics (``axis``; the topics of a ScoreMatrix).

    ``how``:

    * ``"mean"`` - arithmetic mean (MAP from AP, ...).
    * ``"G"`` - Sakai's (2006, Sec. 2.1, after Voorhees' Robust track) geometric mean with an
      offset: ``exp(mean(log(x + eps)))``, eps = 0.00001 (G_AveP, G_Q-measure, GMAP).
      (Interpretation: the extracted paper text loses the formula; we do not subtract eps again
      afterwards, which would move every value by exactly 1e-5. Sakai also takes each x_i "down
      to four significant figures" first; round the scores yourself if you want that too.)
    * ``"AG"`` - the arithmetic mean of ``log(x + eps)`` (Sakai's AG_ forms, the quantity his
      paired bootstrap test compares; ``exp`` of it is ``"G"``).
    * ``"L"`` - L-MAP (Cormack & Lynam 2006): the mean of ``logit(x)``, with x clipped to
      ``[eps, 1 - eps]`` first (the paper replaces AP = 0 and 1 by eps and 1 - eps but does not
      give eps), eps = 0.00001 unless given. The Cormack & Lynam chapter and ``irrepro report``
      use ``corpus_bootstrap.EPS`` (0.001): pass ``eps=corpus_bootstrap.EPS`` for their L-MAP.
    * ``"G_trec"`` - trec_eval's ``gm_map``: ``exp(mean(log(max(x, eps))))``.
    """
    x = scores.scores if isinstance(scores, ScoreMatrix) else np.asarray(scores, dtype=np.float64)
    if how not in _AGGREGATES:
        raise ValueError(f"unknown aggregate {how!r}; use one of {_AGGREGATES}")
    if not eps > 0:
        raise ValueError("eps must be > 0")
    if how == "mean":
        return x.mean(axis=axis)
    if how in ("G", "AG"):
        if np.any(x + eps <= 0):
            raise ValueError("geometric means need scores > -eps")
        logs = np.log(x + eps).mean(axis=axis)
        return np.exp(logs) if how == "G" else logs
    if how == "G_trec":
        return np.exp(np.log(np.maximum(x, eps)).mean(axis=axis))
    if not eps < 0.5:
        raise ValueError("the logit's eps must be < 0.5")
    c = np.clip(x, eps, 1.0 - eps)
    return np.log(c / (1.0 - c)).mean(axis=axis)

