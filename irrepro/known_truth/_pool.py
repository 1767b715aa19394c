"""The pool of pairs the known-truth experiments draw their trials from at the paper and quick scales."""

from __future__ import annotations

import numpy as np

#: The spawn key (below the seed's) of an experiment's pool of pairs; its batches' are 0, 1, ...
_POOL_KEY = 2**32 - 1


def _draw(cands, base, collections, g) -> list:
    """A trial's (collection, baseline, experimental, its margin) for each of ``collections``."""
    out = []
    for c in collections:
        i = base[c][g.integers(len(base[c]))]
        j, e_margin = cands[c][i][g.integers(len(cands[c][i]))]
        out.append((int(c), int(i), int(j), e_margin))
    return out


def _pool(cands, base, prob, size: int, ss: np.random.SeedSequence) -> list:
    """The experiment's pool of ``size`` draws, stratified by collection, from the seed's child."""
    g = np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, _POOL_KEY)))
    quota = prob * size
    n = np.floor(quota).astype(np.int64)
    n[np.argsort(-(quota - n), kind="stable")[: size - int(n.sum())]] += 1
    return _draw(cands, base, np.repeat(np.arange(len(prob)), n), g)
