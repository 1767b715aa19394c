"""Seeds, workers and scale: the conventions every random procedure of irrepro follows.

- **Seeds** (scikit-learn's convention): every random function takes ``seed``, an int, a
  :class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`.
- **Workers**: work is cut into a fixed number of *tasks* (independent of the number of workers)
  and task ``i`` draws from the ``i``-th child of the seed's :class:`~numpy.random.SeedSequence`,
  so results are identical with 1 or many workers. ``n_jobs=None`` reads ``IRREPRO_JOBS``
  (default 1); ``-1`` means all cores.
- **Scale**: ``"paper"`` (the papers' B, repetitions and set sizes; the default) or ``"quick"``
  (small, for tests), from ``IRREPRO_SCALE``.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, ProcessPoolExecutor
from typing import Any

import numpy as np

__all__ = ["scale", "n_jobs", "check_int", "as_seed_sequence", "as_generator", "spawn", "parallel_map"]

SeedLike = int | np.random.SeedSequence | np.random.Generator | None


def scale(default: str = "paper") -> str:
    """``"paper"`` or ``"quick"``, from ``IRREPRO_SCALE``."""
    value = os.environ.get("IRREPRO_SCALE", default).strip().lower()
    if value not in {"paper", "quick"}:
        raise ValueError(f"IRREPRO_SCALE must be 'paper' or 'quick', not {value!r}")
    return value


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """``value`` as an int, or a ValueError naming ``name``: the one check of every count (``B``:
    resamples, repetitions, partitions) and seed of irrepro. A float, even a whole one
    (``B=1.5``, ``seed=1.7``, ``B=1e3``), a bool or a string is refused rather than truncated;
    numpy integers are ints."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return value


def n_jobs(n: int | None = None) -> int:
    """Resolve a worker count: None -> ``IRREPRO_JOBS`` (default 1), -1 -> all cores."""
    if n is None:
        raw = os.environ.get("IRREPRO_JOBS", "1").strip() or "1"
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(
                f"IRREPRO_JOBS must be an integer (workers; -1 for all cores), not {raw!r}"
            ) from None
    n = check_int(n, "n_jobs")
    if n < 0:
        n = os.cpu_count() or 1
    return max(1, n)


def as_seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """A SeedSequence from an int >= 0, a SeedSequence or a Generator (whose state it advances)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    if seed is None:
        raise ValueError("pass a seed (int or numpy Generator): irrepro's results are reproducible")
    return np.random.SeedSequence(check_int(seed, "seed", minimum=0))


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A Generator from a seed: a Generator is used as it is (its state advances), anything else
    goes through :func:`as_seed_sequence` (so ``None`` is refused)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(as_seed_sequence(seed))


def spawn(seed: SeedLike, n: int) -> list[np.random.Generator]:
    """``n`` independent generators, child ``i`` of the seed's SeedSequence for task ``i``."""
    return [np.random.default_rng(s) for s in as_seed_sequence(seed).spawn(n)]


def parallel_map(
    fn: Callable[..., Any],
    items: Sequence[Any] | Iterable[Any],
    *,
    n_jobs: int | None = None,
    processes: bool = False,
    progress: bool | str = False,
    total: int | None = None,
) -> list[Any]:
    """``[fn(x) for x in items]`` on ``n_jobs`` workers (threads, or processes when the work holds
    the GIL), in order, with an optional tqdm progress bar (``progress`` may be its label)."""
    from tqdm import tqdm

    items = list(items)
    workers = globals()["n_jobs"](n_jobs)
    bar = tqdm(
        total=total or len(items),
        desc=progress if isinstance(progress, str) else None,
        disable=not progress,
    )
    try:
        if workers == 1 or len(items) <= 1:
            out = []
            for x in items:
                out.append(fn(x))
                bar.update()
            return out
        pool_cls = ProcessPoolExecutor if processes else ThreadPoolExecutor
        pool = pool_cls(max_workers=workers)
        try:
            futures = [pool.submit(fn, x) for x in items]
            out = []
            for f in futures:
                out.append(f.result())
                bar.update()
        except BaseException:  # an error or Ctrl-C: tasks not yet started never start
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return out
    finally:
        bar.close()
