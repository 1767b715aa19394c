"""Benchmark: irrepro.significance.classical's vectorised kernels against scipy's vectorised calls
on all pairs of runs at once, in one run (issue 27, item 2: delegate to scipy where it is within
about 2x of ours; keep ours only where it is much faster).

All 8,256 pairs of TREC-8's 129 ad hoc runs on 50 topics (AP; a random stand-in of the same shape
without the mirror): the paired t-test (``scipy.stats.ttest_rel(x, y, axis=1)``), Wilcoxon's
signed-rank test (``scipy.stats.wilcoxon(d, axis=1)``) and the sign test (``scipy.stats.binomtest``
per row: it takes no array). Each timing is the minimum of ``--repeats`` runs. The report also
says whether scipy's vectorised p-values equal ours (and so scipy's row-by-row call, which
tests/test_significance_classical.py checks). Run:

    IRREPRO_MIRROR=../shared/data python benchmarks/bench_tests.py [--repeats 5] [--sign-rows 1000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from irrepro import significance as sg


def _matrix() -> tuple[np.ndarray, str]:
    try:
        from irrepro import data

        return data.load_matrix("trec8", "AP").scores, "TREC-8 AP, 129 runs x 50 topics"
    except Exception as e:  # no mirror: a stand-in of the same shape, rounded like trec_eval's output
        x = np.round(np.random.default_rng(0).beta(2, 5, (129, 50)), 4)
        return x, f"random stand-in 129 x 50 ({type(e).__name__})"


def _best(fn, repeats: int) -> tuple[float, np.ndarray]:
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _sign_scipy(d: np.ndarray) -> np.ndarray:
    out = np.full(len(d), np.nan)
    for k, r in enumerate(d):
        m = int((r != 0).sum())
        if m:
            out[k] = stats.binomtest(int((r > 0).sum()), m).pvalue
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--sign-rows", type=int, default=1000, help="rows for scipy's per-row binomtest (scaled up)"
    )
    args = ap.parse_args()
    x, what = _matrix()
    a, b = np.triu_indices(x.shape[0], 1)
    X, Y = x[a], x[b]
    d = X - Y
    print(f"{what}: {len(d):,} pairs; minimum of {args.repeats} runs each")
    print(f"{'test':10} {'ours s':>9} {'scipy s':>9} {'scipy/ours':>10}  scipy's p equal ours?")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = [
            ("paired-t", lambda: sg.paired_t_pvalues(d), lambda: stats.ttest_rel(X, Y, axis=1).pvalue, 1.0),
            ("wilcoxon", lambda: sg.wilcoxon_pvalues(d), lambda: stats.wilcoxon(d, axis=1).pvalue, 1.0),
        ]
        k = min(args.sign_rows, len(d))
        rows.append(("sign", lambda: sg.sign_test_pvalues(d), lambda: _sign_scipy(d[:k]), len(d) / k))
        for name, ours_fn, scipy_fn, scale in rows:
            t_o, p_o = _best(ours_fn, args.repeats)
            t_s, p_s = _best(scipy_fn, 1 if scale > 1 else args.repeats)
            t_s *= scale
            same = np.allclose(p_o[: len(p_s)], p_s, rtol=1e-9, atol=1e-14, equal_nan=True)
            worst = np.nanmax(np.abs(p_o[: len(p_s)] - p_s))
            note = "" if scale == 1 else f"  (per-row loop on {k:,} rows, scaled)"
            print(
                f"{name:10} {t_o:9.4f} {t_s:9.4f} {t_s / t_o:10.1f}  {'yes' if same else f'no (max |diff| {worst:.2g})'}{note}"
            )


if __name__ == "__main__":
    main()
