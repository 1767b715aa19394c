"""Examples of helpers that are not public API (their docstrings are one line): each runs as a
doctest in its module's namespace."""

import doctest
import importlib

import pytest

EXAMPLES = [
    (
        "irrepro.significance._samples",
        "all_pairs",
        ">>> from irrepro import sensitivity as bt\n>>> bt.all_pairs(3).tolist()\n[[0, 1], [0, 2], [1, 2]]",
    ),
    (
        "irrepro.significance._samples",
        "baseline_pairs",
        ">>> from irrepro import sensitivity as bt\n>>> bt.baseline_pairs(3, 1).tolist()\n[[0, 1], [2, 1]]",
    ),
    (
        "irrepro.parallel",
        "scheduler",
        ">>> from irrepro.parallel import scheduler\n>>> scheduler(\"tcp://127.0.0.1:8786\"), scheduler(\" LOCAL \")\n('tcp://127.0.0.1:8786', 'local')",
    ),
    (
        "irrepro.stats",
        "bootstrap_sd",
        ">>> from irrepro.stats import bootstrap_sd\n>>> bootstrap_sd([[1.0, 2.0, 3.0, np.nan], [1.0, np.nan, np.nan, np.nan]])\narray([ 1., nan])\n>>> bootstrap_sd([[1.0, 4.0, 9.0]], transform=np.sqrt)\narray([1.])",
    ),
    (
        "irrepro.stats",
        "check_level",
        ">>> from irrepro.stats import check_level\n>>> check_level(0.9), check_level(95)\n(0.9, 0.95)",
    ),
    (
        "irrepro.stats",
        "level_percent",
        ">>> from irrepro.stats import level_percent\n>>> level_percent(0.95), level_percent(0.9), level_percent(0.9999999), level_percent(99.9 / 100)\n('95%', '90%', '99.99999%', '99.9%')",
    ),
    (
        "irrepro.stats",
        "corrected_resamples",
        '>>> from irrepro.stats import corrected_resamples\n>>> corrected_resamples(4, 0.05)  # 20 x 4 / 0.05 = 1600, rounded up\n2000\n>>> corrected_resamples(45, 0.05, "fdr_bh", default=10_000)  # 10 runs, all pairs\n18000\n>>> corrected_resamples(45, 0.05, "none"), corrected_resamples(2, 0.05, default=10_000)\n(1000, 10000)',
    ),
    (
        "irrepro.stats",
        "check_resamples",
        '>>> from irrepro.stats import check_resamples\n>>> check_resamples(1000, level=0.95, alpha=0.05)\n1000\n>>> check_resamples(1000, "-B", level=0.999)\nTraceback (most recent call last):\nirrepro.errors.InputError: -B 1000: too few resamples for a 99.9% interval: an interval needs at least 100 resamples and at least one beyond each end, B (1 - level) / 2 >= 1; give -B >= 2000\n>>> check_resamples(1000, "-B", alpha=0.05, test="the paired bootstrap test", comparisons=45, correction="holm")\nTraceback (most recent call last):\nirrepro.errors.InputError: -B 1000: too few resamples for the paired bootstrap test at alpha 0.05 adjusted by holm over m = 45 comparisons: a resampling test needs at least 100 resamples and B >= 1 / alpha, so that its p-value, a count of resamples over B, can fall between 0 and alpha; a correction over m comparisons needs B >= 20 m / alpha, so that its smallest threshold, alpha / m, is resolved; give -B >= 18000',
    ),
    (
        "irrepro.stats",
        "jackknife_acceleration",
        ">>> from irrepro.stats import jackknife_acceleration\n>>> float(jackknife_acceleration([1.0, 2.0, 3.0]))  # symmetric values: no skew\n0.0",
    ),
    (
        "irrepro.data._common",
        "CacheError",
        ">>> from irrepro.data import CacheError, DataUnavailable\n>>> issubclass(CacheError, DataUnavailable)\nTrue",
    ),
    (
        "irrepro.data._fetch",
        "registry",
        ">>> from irrepro.data import registry\n>>> entry = registry()[\"ir_datasets/cord19/trec-covid/qrels\"]\n>>> entry.bytes, entry.sha256[:12]\n(1142244, '84a374f40a89')",
    ),
    (
        "irrepro.data._loaders",
        "run_files",
        '>>> import pathlib, tempfile\n>>> from irrepro.data import run_files\n>>> with tempfile.TemporaryDirectory() as d:\n...     for name in ("b.txt", "a.txt", ".hidden"):\n...         _ = (pathlib.Path(d) / name).write_text("")\n...     print([p.name for p in run_files(d)])\n[\'a.txt\', \'b.txt\']',
    ),
    (
        "irrepro.data._matrices",
        "read_score_matrix",
        ">>> import pathlib, tempfile\n>>> from irrepro.data import read_score_matrix\n>>> with tempfile.TemporaryDirectory() as d:\n...     path = pathlib.Path(d) / \"ap.csv\"\n...     _ = path.write_text(\"topic,A,B\\n401,0.2,0.3\\n402,0.4,0.1\\n\")\n...     m = read_score_matrix(path, \"AP\")\n>>> m.systems, m.topics, m.scores[0]\n(('A', 'B'), ('401', '402'), array([0.2, 0.4]))",
    ),
    (
        "irrepro.data._runs",
        "read_run",
        '>>> import pathlib, tempfile\n>>> from irrepro import data\n>>> with tempfile.TemporaryDirectory() as d:\n...     path = pathlib.Path(d) / "run.txt"\n...     _ = path.write_text("1 Q0 d1 1 2.5 mine\\n1 Q0 d2 2 1.0 mine\\n2 Q0 d3 1 0.7 mine\\n")\n...     run = data.read_run(path)\n>>> run.name\n\'mine\'\n>>> run.table\n  topic doc  score\n0     1  d1    2.5\n1     1  d2    1.0\n2     2  d3    0.7',
    ),
    (
        "irrepro.data.emulate",
        "pool_documents",
        ">>> from irrepro.data import pool_documents, synthetic\n>>> rs = synthetic.runs(3, 4, list_length=30, r_median=6, seed=5)\n>>> topic, doc, grade = pool_documents(rs, 2)\n>>> topic[:8], grade[:8]\n(array([0, 0, 0, 0, 0, 1, 1, 1]), array([1, 0, 0, 0, 2, 1, 0, 0]))",
    ),
    (
        "irrepro.escape",
        "shorten",
        ">>> from irrepro.escape import shorten\n>>> shorten(\"a-run-with-a-long-name-v1\", width=12)\n'a-run-wit…v1'",
    ),
    (
        "irrepro.escape",
        "short_names",
        ">>> from irrepro.escape import short_names\n>>> short_names([\"run-alpha-v1\", \"run-alpha-v2\"], width=8)\n['run-al…1', 'run-al…2']\n>>> short_names([\"café\", \"café\"])  # one text, two normalizations\n['café[1]', 'café[2]']\n>>> short_names([\"ﬁle\", \"file\"])  # a ligature and its letters\n['ﬁle[1]', 'file[2]']",
    ),
    (
        "irrepro.escape",
        "look_alikes",
        '>>> from irrepro.escape import look_alikes\n>>> for group in look_alikes(["caf\\u00e9", "tea", "cafe\\u0301"]):\n...     print(*map(ascii, group))\n\'caf\\xe9\' \'cafe\\u0301\'\n>>> look_alikes(["\\ufb01le", "file", "\\uff21P", "AP"])\n[[\'\\ufb01le\', \'file\'], [\'\\uff21P\', \'AP\']]',
    ),
    (
        "irrepro.escape",
        "plain",
        '>>> from irrepro.escape import plain\n>>> print(plain("run\\tA"), plain("evil\\u202eexe.txt"))\nrun\\tA evil\\u202eexe.txt',
    ),
    (
        "irrepro.escape",
        "latex_beyond_pdflatex",
        ">>> from irrepro.escape import latex_beyond_pdflatex\n>>> latex_beyond_pdflatex(\"café αβ\")\n['α', 'β']",
    ),
    (
        "irrepro.escape",
        "html_name",
        '>>> from irrepro.escape import html_name\n>>> print(html_name("run<1>"))\nrun&lt;1&gt;',
    ),
    ("irrepro.escape", "mpl", '>>> from irrepro.escape import mpl\n>>> print(mpl("$x$ run"))\n\\$x\\$ run'),
    (
        "irrepro.escape",
        "shell",
        ">>> from irrepro.escape import shell\n>>> print(shell(\"my runs/a.txt\"), shell(\"z\\nnl\\u202e\"))\n'my runs/a.txt' $'z\\nnl\\xe2\\x80\\xae'",
    ),
    (
        "irrepro.measures.kernel",
        "average_precision",
        ">>> import numpy as np\n>>> from irrepro.measures import average_precision\n>>> average_precision(np.array([[True, False, True], [False, False, False]]), np.array([2, 0]))\narray([0.83333333, 0.        ])",
    ),
    (
        "irrepro._measure_names",
        "Measure",
        ">>> from irrepro.measures import parse_measure\n>>> m = parse_measure(\"gm_NDCG(gains={0:0,1:1,2:3})@10\")\n>>> m.name, m.family, m.cutoff, m.gains, m.agg\n('gm_nDCG(gains={2:3})@10', 'nDCG', 10, ((2, 3.0),), 'gm')",
    ),
    (
        "irrepro._measure_names",
        "Measure.bounds",
        '>>> from irrepro.measures import parse_measure\n>>> parse_measure("nDCG@10").bounds, parse_measure("NumRet").bounds\n((0.0, 1.0), None)',
    ),
    (
        "irrepro._measure_names",
        "parse_measure",
        '>>> from irrepro.measures import parse_measure\n>>> parse_measure("MRR@10").name\n\'RR@10\'\n>>> m = parse_measure("P(rel=2)@10")\n>>> m.family, m.cutoff, m.rel\n(\'P\', 10, 2)\n>>> parse_measure("ndcg_cut.20") == parse_measure("nDCG@20")\nTrue\n>>> parse_measure("G_1=3,2=9").name, parse_measure("G_AP").name\n(\'G(gains={1:3,2:9})\', \'G_AP\')\n>>> parse_measure("AP", rel=2).name\n\'AP(rel=2)\'\n>>> parse_measure("P@x")\nTraceback (most recent call last):\n...\nirrepro.errors.InputError: measure \'P@x\': \'x\' is not a literal value ir_measures reads ...',
    ),
    (
        "irrepro.measures.trec_names",
        "trec_eval_name",
        '>>> from irrepro.measures import trec_eval_name\n>>> trec_eval_name("P@10"), trec_eval_name("IPrec@0.5"), trec_eval_name("RBP(p=0.5)")\n(\'P_10\', \'iprec_at_recall_0.50\', \'rbp_p=0.5\')\n>>> trec_eval_name("AP(rel=2)", rel=2), trec_eval_name("AP(rel=2)"), trec_eval_name("RR@10")\n(\'map\', None, None)\n>>> trec_eval_name("utility(rel_ret=2,nonrel_ret=-0.5,rel_missed=-1)"), trec_eval_name("G(gains={1:3})")\n(\'utility_2,-0.5,-1,0\', \'G_1=3\')',
    ),
    (
        "irrepro.parallel",
        "check_scale",
        ">>> from irrepro.parallel import check_scale\n>>> check_scale(\"quick\"), check_scale(\" PAPER \")\n('quick', 'paper')",
    ),
    (
        "irrepro.parallel",
        "check_int",
        '>>> import numpy as np\n>>> from irrepro.parallel import check_int\n>>> check_int(np.int64(1000), "B", minimum=1)\n1000\n>>> check_int(1e3, "B")\nTraceback (most recent call last):\nirrepro.errors.InputError: B must be an integer, got 1000.0 (float)',
    ),
    (
        "irrepro.parallel",
        "check_jobs",
        '>>> from irrepro.parallel import check_jobs\n>>> check_jobs(" 4 ", "--jobs"), check_jobs(-1)\n(4, -1)',
    ),
    (
        "irrepro.parallel",
        "as_seed_sequence",
        ">>> from irrepro.parallel import as_seed_sequence\n>>> as_seed_sequence(7).entropy\n7",
    ),
    (
        "irrepro.parallel",
        "as_generator",
        ">>> from irrepro.parallel import as_generator\n>>> int(as_generator(1).integers(10**6)) == int(as_generator(1).integers(10**6))\nTrue",
    ),
    (
        "irrepro.parallel",
        "parallel_map",
        ">>> from irrepro.parallel import parallel_map\n>>> parallel_map(lambda x: x * x, range(5), n_jobs=2)\n[0, 1, 4, 9, 16]",
    ),
    (
        "irrepro.stats",
        "adjust_pvalues",
        "Holm multiplies the smallest of two p-values by 2; a NaN counts in the family:\n\n>>> from irrepro.stats import adjust_pvalues\n>>> adjust_pvalues([0.01, 0.04])\narray([0.02, 0.04])\n>>> adjust_pvalues([0.01, 0.04, np.nan])\narray([0.03, 0.08,  nan])",
    ),
    (
        "irrepro.stats",
        "logit",
        ">>> from irrepro.stats import logit\n>>> logit([0.5, 0.0]).round(3)\narray([ 0.   , -6.907])",
    ),
    (
        "irrepro.stats",
        "kendall_tau",
        ">>> from irrepro.stats import kendall_tau\n>>> kendall_tau([[1, 2, 3], [3, 2, 1]], [0.1, 0.2, 0.3])\narray([ 1., -1.])",
    ),
    (
        "irrepro.parallel",
        "spawn",
        ">>> from irrepro.parallel import spawn\n>>> a, b = spawn(0, 2)\n>>> int(a.integers(10**9)) != int(b.integers(10**9))\nTrue",
    ),
    (
        "irrepro.stats",
        "bca_interval",
        ">>> from irrepro.stats import bca_interval\n>>> lo, hi = bca_interval(0.5, np.linspace(0.0, 1.0, 101), level=0.9)\n>>> round(float(lo), 3), round(float(hi), 3)\n(0.05, 0.95)",
    ),
    (
        "irrepro.errors",
        "OutputError",
        '>>> import errno\n>>> from irrepro.errors import OutputError\n>>> print(OutputError(errno.EACCES, "Permission denied", "out/report"))\n[Errno 13] Permission denied: \'out/report\'',
    ),
    (
        "irrepro.escape",
        "csv_cell",
        '>>> from irrepro.escape import csv_cell\n>>> csv_cell("=SUM(A1:A9)"), csv_cell(0.5)\n("\'=SUM(A1:A9)", 0.5)',
    ),
    (
        "irrepro.escape",
        "csv_quoting",
        '>>> import csv\n>>> from irrepro.escape import csv_quoting\n>>> csv_quoting(["a", 1.0]) == csv.QUOTE_MINIMAL, csv_quoting(["a\\rb"]) == csv.QUOTE_NONNUMERIC\n(True, True)',
    ),
    (
        "irrepro.escape",
        "to_csv",
        '>>> import pandas as pd\n>>> from irrepro.escape import to_csv\n>>> print(to_csv(pd.DataFrame({"run": ["=1+1"], "map": [0.25]}), index=False), end="")\nrun,map\n\'=1+1,0.25',
    ),
]


@pytest.mark.parametrize("module, name, example", EXAMPLES, ids=[f"{m}.{n}" for m, n, _ in EXAMPLES])
def test_example(module, name, example):
    globs = dict(vars(importlib.import_module(module)))
    test = doctest.DocTestParser().get_doctest(example, globs, f"{module}.{name}", module, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
