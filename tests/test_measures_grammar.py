"""One grammar of measure names, proven against ir_measures' own parsers (issue 27, item 2).

Names are generated from ir_measures' grammar - every name of its registry (supported or not),
parameters in any order and spelling (spaces, ``@`` or keyword cutoffs, hex and ``_`` digits,
``.5``, signs, None, bools, strings, dicts, a parameter given twice) and trec_eval's names as
``parse_trec_measure`` reads them (``P_10``, ``P.10``, ``P_5,10``, ...). For each, irrepro's
:func:`~irrepro.measures.parse_measure` must give what ir_measures gives (same family, same
effective parameters, a canonical name ir_measures reads back as the same measure) exactly when
irrepro computes that measure, and an :class:`irrepro.InputError` otherwise - also for every name
ir_measures rejects. What irrepro computes is written here, from its documentation, not read from
the code under test.
"""

from __future__ import annotations

import math
import numbers
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from irrepro import InputError
from irrepro._measure_names import _FAMILIES
from irrepro.measures import parse_measure

pytestmark = pytest.mark.filterwarnings("error")
ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pytrec_eval")  # parse_trec_measure imports it
REGISTRY = ir_measures.measures.registry
NOT_PROVIDED = ir_measures.measures.base._NOT_PROVIDED

# ir_measures' measures irrepro computes (the table on irrepro.measures' API page)
SUPPORTED = {"AP", "P", "R", "Rprec", "RR", "Success", "Bpref", "infAP", "nDCG", "RBP", "ERR", "Judged",
             "NumRet", "NumRel", "NumQ", "IPrec", "SetP", "SetR", "SetF", "SetAP"}  # fmt: skip
# the project's own names (no ir_measures equivalent), with a cutoff where they need one
OWN = ["SP", "Q", "PDoc@10", "DCG@10", "nDCG_sakai@10", "nCG@10", "11pt_avg", "gm_map", "gm_bpref",
       "G_AP", "gm_nDCG@10", "Q(rel=2)",
       # trec_eval's measures that ir_measures lacks, under trec_eval's names (issue 29)
       "relative_P@10", "Rprec_mult@0.5", "utility", "utility(rel_ret=2.0,nonrel_ret=-0.5)", "binG", "G",
       "G(gains={1:3})", "ndcg_rel", "Rndcg", "num_nonrel_judged_ret", "unj@10", "rbp_resid",
       "rbp_resid(p=0.5)"]  # fmt: skip
# trec_eval names irrepro reads that ir_measures' parse_trec_measure does not
TREC_OWN = {"11pt_avg", "gm_map", "gm_bpref", "rbp", "Rndcg", "num_nonrel_judged_ret", "binG", "ndcg_rel",
            "utility", "G", "rbp_resid"}  # fmt: skip
# ... and those with one number (a cutoff: a whole one), as trec_eval prints them
TREC_OWN_NUMBERED = {"relative_P": "cutoff", "unj": "cutoff", "Rprec_mult": "multiple"}
TREC_NAMES = ["ndcg", "P", "map_cut", "Rndcg", "num_nonrel_judged_ret", "set_map", "11pt_avg", "relative_P",
              "gm_map", "binG", "set_P", "infAP", "bpref", "num_rel_ret", "ndcg_rel", "recip_rank", "recall",
              "set_recall", "utility", "set_relative_P", "num_ret", "num_rel", "ndcg_cut", "Rprec", "Rprec_mult",
              "relstring", "gm_bpref", "num_q", "map", "G", "success", "set_F", "iprec_at_recall", "rbp",
              "unj", "rbp_resid"]  # fmt: skip


def _in_domain(m) -> bool:
    """Whether irrepro computes ir_measures' (valid) measure ``m``: its family, and parameter
    values irrepro supports (no judged_only, trec_eval's log2 discount, cutoffs and levels >= 1,
    no bool as a number, RBP's p in (0, 1), recall in [0, 1], a finite beta >= 0, gains of
    integer grades >= 0 with grades <= 0 gaining 0)."""
    if m.NAME not in SUPPORTED:
        return False
    for k, v in m.params.items():
        if k == "judged_only" and v:
            return False
        if k == "dcg" and v != "log2":
            return False
        if k in ("cutoff", "rel") and (type(v) is not int or v < 1):
            return False
        if (k == "p" and not 0 < v < 1) or (k == "recall" and not 0 <= v <= 1):
            return False
        if k == "beta" and not (math.isfinite(v) and v >= 0):
            return False
        if k == "gains":
            for g, x in v.items():
                if type(g) is not int or not isinstance(x, numbers.Real) or not (math.isfinite(x) and x >= 0):
                    return False
                if g <= 0 and x != 0:
                    return False
    return True


def _theirs(m) -> tuple:
    """ir_measures' measure as (family, every supported parameter's effective value); identity
    gains (ir_measures' str() leaves them out) and no gains alike are None."""
    params = {}
    for k, info in m.SUPPORTED_PARAMS.items():
        v = m.params.get(k, info.default)
        if k == "gains" and v is not NOT_PROVIDED:
            v = {g: x for g, x in v.items() if g != x} or NOT_PROVIDED
        params[k] = None if v is NOT_PROVIDED else v
    return m.NAME, params


def _ours(o, m) -> tuple:
    """irrepro's :class:`Measure` ``o`` in the terms of ir_measures' measure ``m``."""
    fields = {"cutoff": o.cutoff, "rel": o.rel, "p": o.p, "recall": o.recall, "beta": o.beta,
              "relative": o.relative, "judged_only": False, "dcg": "log2",
              "gains": dict(o.gains) if o.gains else None}  # fmt: skip
    return o.family, {k: fields[k] for k in m.SUPPORTED_PARAMS}


def _parse_ours(text: str):
    """irrepro's parse, or None when it raises InputError (anything else is a bug: it propagates)."""
    try:
        return parse_measure(text)
    except InputError as e:
        assert str(e), text
        return None


def _check(text: str, theirs, ambiguous: bool = False):
    """irrepro's parse of ``text`` against ir_measures' (``theirs``: a valid measure or None)."""
    ours = _parse_ours(text)
    if theirs is None or ambiguous or not _in_domain(theirs):
        assert ours is None, f"{text!r}: irrepro reads {ours}, ir_measures {theirs!r}"
        return
    assert ours is not None, f"{text!r}: irrepro rejects what ir_measures reads as {theirs!r}"
    assert _ours(ours, theirs) == _theirs(theirs), text
    # the canonical name is ir_measures' str(): it reads it back as the same measure
    assert _theirs(ir_measures.parse_measure(ours.name)) == _theirs(theirs), (text, ours.name)
    assert parse_measure(ours.name) == ours and parse_measure(theirs) == ours, text


def _ir_measures_parse(text: str):
    try:
        m = ir_measures.parse_measure(text)
        m.validate_params()
        return m
    except Exception:  # ValueError, NameError, TypeError, AssertionError: ir_measures rejects it
        return None


# ------------------------------------------------------------------------------------------
# generated names: ir_measures' grammar
# ------------------------------------------------------------------------------------------


def _spell_int(v: int):
    forms = [st.just(str(v)), st.just(hex(v)) if v >= 0 else st.just(str(v))]
    if v >= 10:
        forms.append(st.just(f"{str(v)[:1]}_{str(v)[1:]}"))
    if v >= 0:
        forms.append(st.just(f"+{v}"))
    return st.one_of(forms)


def _spell_float(v: float):
    forms = [st.just(repr(v)), st.just(f"{v:e}")]
    if 0 < v < 1:
        forms.append(st.just(repr(v)[1:]))  # .5
    return st.one_of(forms)


INTS = st.sampled_from([-1, 0, 1, 2, 3, 5, 10, 20, 100, 1000]).flatmap(_spell_int)
FLOATS = st.sampled_from([-0.5, 0.0, 0.1, 0.5, 0.8, 0.95, 1.0, 1.5, 2.0]).flatmap(_spell_float)
OTHER = st.sampled_from(
    ["True", "False", "None", "'log2'", '"exp-log2"', "'x'", "1j", "(1)", "[1]", "x", "1+1"]
)
GAINS = st.lists(st.tuples(st.sampled_from(["0", "1", "2", "3", "4", "True", "1.0", "'a'"]),
                           st.sampled_from(["0", "1", "2", "3", "7", "0.5", "True", "'x'", "None"])),
                 max_size=4).map(lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}")  # fmt: skip
VALUES = {"cutoff": INTS, "rel": INTS, "p": FLOATS, "recall": FLOATS, "beta": FLOATS,
          "relative": st.sampled_from(["True", "False"]), "judged_only": st.sampled_from(["True", "False"]),
          "dcg": st.sampled_from(["'log2'", "'exp-log2'"]), "gains": GAINS}  # fmt: skip
SPACE = st.sampled_from(["", "", " "])


@st.composite
def ir_measures_names(draw) -> tuple[str, bool]:
    """(a name in ir_measures' grammar, whether it gives a parameter twice)."""
    name = draw(st.sampled_from(sorted(REGISTRY) + ["Foo", "ap", "NDCG_cut", "P10"]))
    supported = list(getattr(REGISTRY.get(name), "SUPPORTED_PARAMS", {}))
    keys = draw(st.lists(st.sampled_from(supported + ["cutoff", "rel", "p", "beta", "foo"]), max_size=4))
    parts = []
    for k in keys:
        value = draw(
            st.one_of(VALUES.get(k, INTS), OTHER) if draw(st.integers(0, 5)) == 0 else VALUES.get(k, INTS)
        )
        parts.append(f"{k}{draw(SPACE)}={draw(SPACE)}{value}")
    text = name
    if parts or draw(st.booleans()):
        text += "(" + ("," + draw(SPACE)).join(parts) + ")"
    at_param = getattr(REGISTRY.get(name), "AT_PARAM", "cutoff")
    at = draw(st.sampled_from([None, None, "int", "float", "None", "other"]))
    at_value = None
    if at is not None:
        value = {"int": INTS, "float": FLOATS, "None": st.just("None"), "other": OTHER}[at]
        at_value = draw(value)
        text += f"{draw(SPACE)}@{draw(SPACE)}{at_value}"
    text += draw(st.sampled_from(["", "", " ", ";", "  # a comment", "\n"]))
    # "@None" (also drawn among the other values) sets no parameter: not a second cutoff
    twice = len(set(keys)) < len(keys) or (at_value not in (None, "None") and at_param in keys)
    return text, twice


@given(ir_measures_names())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(("IPrec@1", False))  # ir_measures: recall=1 is no float
@example(("SetF(beta=2)", False))
@example(("AP(rel=None)", False))  # ir_measures: rel=None is invalid (irrepro read AP)
@example(("NumRet(rel=None)", False))
@example(("RR(cutoff=None)", False))
@example(("P@+10", False))  # a sign: not a value ir_measures reads
@example(("SetF(beta=-0.0)", False))
@example(("AP;", False))  # one statement, as ir_measures reads it
@example(("nDCG(gains={1:'2'})@10", False))
@example(("AP(judged_only=False,cutoff=1,rel=1)@None", False))  # @None: the cutoff given once
def test_ir_measures_grammar(case):
    text, twice = case
    _check(text, _ir_measures_parse(text), ambiguous=twice)


@st.composite
def trec_names(draw) -> str:
    base = draw(st.sampled_from(TREC_NAMES))
    if draw(st.booleans()):
        return base
    numbers_ = draw(st.lists(st.sampled_from(["0", "1", "5", "10", "010", "1000", "0.5", "1.0", "0.25", "5.5"]),
                             min_size=1, max_size=3))  # fmt: skip
    return base + draw(st.sampled_from(["_", "."])) + ",".join(numbers_)


def _trec_parse(text: str):
    try:
        return ir_measures.parse_trec_measure(text)
    except Exception:
        return None


@given(trec_names())
@settings(max_examples=300, deadline=None)
@example("P.10")  # trec_eval's -m spelling: ir_measures reads it, irrepro did not
@example("ndcg_cut.20")
@example("iprec_at_recall_.5")  # ir_measures needs a digit before the point
@example("P_5,10")  # two measures
@example("Rprec_mult_0.5")  # trec_eval's, that ir_measures does not read
@example("relative_P.010")
@example("unj_5.5")
@example("unj_5,10")
def test_trec_eval_grammar(text):
    theirs = _trec_parse(text)
    if theirs is None and text in TREC_OWN:
        assert _parse_ours(text) is not None, text  # trec_eval's, that irrepro reads beyond ir_measures
        return
    own = re.fullmatch(rf"({'|'.join(TREC_OWN_NUMBERED)})[._]([0-9.]+)", text)
    if theirs is None and own:
        ours, number = _parse_ours(text), own.group(2)
        whole = number.isdigit() and int(number) >= 1
        if TREC_OWN_NUMBERED[own.group(1)] == "cutoff":
            assert (ours is not None) == whole and (ours is None or ours.cutoff == int(number)), text
        else:
            assert ours is not None and ours.mult == float(number), text
        return
    if theirs is not None and len(theirs) == 1:
        (m,) = theirs
        m.validate_params()
        _check(text, m)
    else:  # ir_measures rejects it, or reads several measures (irrepro: one name, one measure)
        assert _parse_ours(text) is None, (text, theirs)


# ------------------------------------------------------------------------------------------
# every name irrepro documents parses in both (where ir_measures has it)
# ------------------------------------------------------------------------------------------


def _documented() -> tuple[list[str], list[str]]:
    """The names in the table of irrepro.measures' API page (book/api/measures.md): (irrepro / ir_measures column,
    trec_eval column), with k = 10 and r = 0.5."""
    import re

    doc = (Path(__file__).resolve().parents[1] / "book" / "api" / "measures.md").read_text()
    table = doc[doc.index("irrepro / ir_measures") :].split("\n=====")[1]
    ours, trec = [], []
    for line in table.splitlines()[1:]:
        first, second = line[:23], line[23:49]
        ours += re.findall(r"``([^`]+)``", first)
        if not second.lstrip().startswith("("):  # "(irrepro)", "(gdeval.pl)", "(1 - unj_k)"
            trec += re.findall(r"``([^`]+)``", second)

    def sub(n):
        return re.sub(r"([@_])k$", r"\g<1>10", re.sub(r"([@_])r$", r"\g<1>0.5", n))

    return [sub(n) for n in ours], [sub(n) for n in trec]


def test_documented_names_parse_in_both():
    ours, trec = _documented()
    assert len(ours) >= 35 and len(trec) >= 20 and "nDCG_sakai@10" in ours and "ndcg_cut_10" in trec
    for name in ours:
        if name in OWN:
            assert _parse_ours(name) is not None, name
        else:
            _check(name, _ir_measures_parse(name))
            assert _ir_measures_parse(name) is not None, name
    for name in trec:
        if name in TREC_OWN:
            assert _parse_ours(name) is not None, name
        else:
            (m,) = ir_measures.parse_trec_measure(name)
            _check(name, m)


@pytest.mark.parametrize("family", sorted(_FAMILIES))
def test_every_family_parses_in_both(family):
    name = family + {None: "", "cutoff": "@10", "recall": "@0.5", "mult": "@0.5"}[_FAMILIES[family].at]
    if family in SUPPORTED:
        _check(name, _ir_measures_parse(name))
        assert _ir_measures_parse(name) is not None
    else:
        assert _ir_measures_parse(name) is None and _parse_ours(name) is not None


def test_every_ir_measures_name_is_read_or_refused_by_name():
    """Every name of ir_measures' registry parses, or is refused saying why and what irrepro has."""
    for name, m in REGISTRY.items():
        if m.NAME in SUPPORTED:
            assert _parse_ours(
                name + ("@0.5" if m.NAME == "IPrec" else "@10" if m.NAME in ("P", "R", "Success") else "")
            ), name
        else:
            with pytest.raises(InputError, match=r"not computed by irrepro: .*Supported: AP"):
                parse_measure(name)


def test_space_around_a_name_is_read():
    """irrepro reads space around a name (ir_measures reads "AP " but stops at " AP")."""
    for text in [" AP", "\tP@10 ", "  nDCG(gains={0:0, 1:1, 2:3}) @ 10\n", " map "]:
        assert parse_measure(text) == parse_measure(text.strip())


def test_several_measures_in_one_trec_name_are_refused_naming_each():
    with pytest.raises(InputError, match="names 2 measures .*P_5, P_10"):
        parse_measure("P_5,10")
    with pytest.raises(InputError, match="several measures; name one, e.g. ndcg_cut_10"):
        parse_measure("ndcg_cut")
    with pytest.raises(InputError, match="cutoff 10.5 must be a whole number"):
        parse_measure("P_10.5")


def test_a_whole_number_for_a_float_parameter_is_refused_naming_the_fix():
    """ir_measures refuses IPrec@1 and SetF(beta=2), and so does irrepro, saying what to write."""
    with pytest.raises(InputError, match=r"'IPrec@1': recall=1 must be float \(write recall=1\.0"):
        parse_measure("IPrec@1")
    with pytest.raises(InputError, match=r"beta=2 must be float \(write beta=2\.0"):
        parse_measure("SetF(beta=2)")
    assert parse_measure("IPrec@1.0").recall == 1.0 and parse_measure("SetF(beta=2.0)").beta == 2.0


def test_the_grammar_does_not_import_ir_measures():
    """The grammar is irrepro's own: ``irrepro eval`` stays light (ir_measures is a test tool)."""
    code = (
        "import sys, irrepro.measures as m; m.parse_measure('nDCG@10'); print('ir_measures' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# ------------------------------------------------------------------------------------------
# the package's other readers of measure names go through the grammar
# ------------------------------------------------------------------------------------------


def test_simulated_score_matrices_read_any_spelling_of_a_measure():
    from irrepro.data import synthetic

    def draw(name):
        return synthetic.score_matrix(6, 8, name, seed=3).scores

    p10 = draw("P@10")
    assert np.allclose(p10 * 10, np.round(p10 * 10)) and not np.allclose(p10, draw("AP"))  # binomial / 10
    for same in ("P_10", "P.10", "Precision@10", "P(rel=2)@10"):
        np.testing.assert_array_equal(draw(same), p10, err_msg=same)
    for a, b in [("recip_rank", "RR"), ("MRR", "RR"), ("ndcg_cut_20", "nDCG@20"), ("NDCG@20", "nDCG@20")]:
        np.testing.assert_array_equal(draw(a), draw(b), err_msg=a)
    np.testing.assert_array_equal(draw("a label"), draw("AP"))  # a name of no measure: a label


def test_fit_collection_puts_any_spelling_of_p_at_k_on_its_grid():
    from irrepro import simulation
    from irrepro.data import synthetic

    m = synthetic.score_matrix(6, 30, "P(rel=2)@10", seed=1)
    model = simulation.fit_collection(m, seed=0, n_jobs=1)
    assert all(mg.discrete for mg in model.margins)
    np.testing.assert_allclose(model.margins[0].x, np.arange(11) / 10)
