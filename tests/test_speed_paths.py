"""The fast paths of issue 30 give the floats of the code they replaced, bit for bit: randomised
Tukey HSD's compiled kernel against the numpy expression it replaced, and the simulated power's
classical tests of all trials at once against :func:`irrepro.significance.pairwise_test` trial by
trial."""

from __future__ import annotations

import numpy as np
import pytest

from irrepro import significance as sg
from irrepro.design import _power
from irrepro.significance._hsd_kernel import family_max


def _family_max_numpy(x, perm, pairs):
    """The expression the kernel replaced (irrepro 0.x ``randomization._family_max``)."""
    xt = np.ascontiguousarray(x.transpose(0, 2, 1))
    m = np.take_along_axis(xt[:, None], perm[None], axis=-1).mean(axis=-2)
    return np.abs(m[..., pairs[:, 0]] - m[..., pairs[:, 1]]).max(axis=-1)


@pytest.mark.parametrize(
    "S, n, B, F, digits", [(5, 50, 64, 40, 3), (3, 25, 50, 20, 1), (10, 249, 16, 4, 8), (2, 7, 33, 9, 2)]
)
def test_hsd_kernel_equals_the_numpy_expression_bit_for_bit(S, n, B, F, digits):
    rng = np.random.default_rng(S * n)
    x = rng.random((F, S, n)).round(digits)  # rounded: ties among the scores
    perm = np.argsort(rng.random((B, n, S)), axis=2)
    for pairs in (
        np.array([(i, j) for i in range(S) for j in range(i + 1, S)]),
        np.array([(k, 0) for k in range(1, S)]),
    ):
        assert np.array_equal(family_max(x, perm, pairs), _family_max_numpy(x, perm, pairs))


def test_hsd_kernel_propagates_nan_as_numpy():
    x = np.random.default_rng(0).random((2, 3, 6))
    x[1, 2, 4] = np.nan
    perm = np.argsort(np.random.default_rng(1).random((5, 6, 3)), axis=2)
    pairs = np.array([(0, 1), (0, 2), (1, 2)])
    assert np.array_equal(family_max(x, perm, pairs), _family_max_numpy(x, perm, pairs), equal_nan=True)


@pytest.mark.parametrize("test", ["paired-t", "wilcoxon", "sign"])
@pytest.mark.parametrize("m, n", [(2, 10), (2, 50), (4, 12), (3, 60)])
def test_classical_pairs_of_all_trials_equal_pairwise_test_trial_by_trial(test, m, n):
    rng = np.random.default_rng(m * n)
    x = rng.random((60, m, n)).round(int(rng.integers(1, 4)))  # ties and zero differences
    x[:, 1] += rng.normal(0.05, 0.05, (60, 1))
    x[:10, 1] = x[:10, 0]  # identical systems
    x[10:20, 1] = x[10:20, 0] + 1e-12  # different by rounding noise only
    pairs = np.array([(1, 0)] + [(i, j) for i in range(m) for j in range(i + 1, m) if (i, j) != (0, 1)])
    diff, p = sg.classical_pairs(x, pairs, test)
    for correction in ("none", "holm", "fdr_bh"):
        hits = _power._hits(x, test, correction, 0.05, None, None)
        for k in range(len(x)):
            r = sg.pairwise_test(x[k], test, pairs, correction=correction)
            assert np.array_equal(r.p, p[k], equal_nan=True) and np.array_equal(r.difference, diff[k])
            assert hits[k] == (r.difference[0] > 0 and r.p_adjusted[0] <= 0.05 + 1e-12)


def test_several_tests_on_the_same_draws_equal_one_call_per_test():
    def gauss(family, n, trials, rng):  # two systems, differences N(0.05, 0.1^2), rounded: ties
        b = rng.normal(0.5, 0.1, (trials, 1, n))
        return np.concatenate([b, b + rng.normal(0.05, 0.1, (trials, 1, n))], axis=1).round(2)

    tests = ("paired-t", "wilcoxon", "bootstrap", "sign")
    both = _power.power_curve(gauss, [6, 20], families=3, trials=30, B=50, test=tests, seed=4)
    assert list(both) == list(tests)
    for t in tests:
        one = _power.power_curve(gauss, [6, 20], families=3, trials=30, B=50, test=t, seed=4)
        assert one.test == both[t].test == t
        assert np.array_equal(one.power, both[t].power) and np.array_equal(one.se, both[t].se)
