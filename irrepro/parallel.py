"""Seeds, workers and scale: the conventions every random procedure of irrepro follows.

- **Seeds** (scikit-learn's convention): every random function takes ``seed``, an int, a
  :class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`.
- **Workers**: work is cut into a fixed number of *tasks* (independent of the number of workers)
  and task ``i`` draws from the ``i``-th child of the seed's :class:`~numpy.random.SeedSequence`,
  so results are identical with 1 or many workers. ``n_jobs=None`` means 1 and ``-1`` all cores;
  the environment's ``IRREPRO_JOBS`` (``env_jobs``) is read only by the command line and the
  book's configuration (:func:`irrepro.book.config`), which pass it down.
- **Cluster**: with ``IRREPRO_SCHEDULER`` (or ``irrepro ... --scheduler``) set to a Dask scheduler
  address (``tcp://host:8786``) or ``local`` (a :class:`distributed.LocalCluster` with one worker
  process per core), ``parallel_map`` runs its tasks on that Dask cluster instead (the
  optional extra ``pip install irrepro[dask]``): the same tasks with the same seeds, so the same
  numbers bit for bit.
- **Scale**: ``"paper"`` (the papers' B, repetitions and set sizes; the default) or ``"quick"``
  (small, for tests): every library function takes it (or its sizes) as an argument whose default
  is the papers' scale; the environment's ``IRREPRO_SCALE`` (:func:`scale`) is read only by the
  command line and the book's configuration, which pass it down. The same call gives the same
  result in every shell.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import numpy as np

from ._cluster import _TASK, _dask_map, local_cluster, scheduler, using_scheduler
from ._env import env
from .errors import InputError

__all__ = ["SeedLike", "scale", "n_jobs", "using_scheduler", "local_cluster"]

#: What a ``seed`` argument accepts: an int, a :class:`numpy.random.SeedSequence`, a
#: :class:`numpy.random.Generator`, or None (fresh entropy).
SeedLike = int | np.random.SeedSequence | np.random.Generator | None


#: The book's scales: the papers' sizes, small ones for tests, and "full" - the papers' sizes
#: everywhere except where a chapter's anchor ran more (the known-truth chapter: Urbano et al.'s
#: Monte Carlo precision); every function that sizes work treats "full" as "paper"
#: unless it says otherwise.
SCALES = ("paper", "quick", "full")


def scale(default: str = "paper") -> str:
    """``"paper"``, ``"quick"`` or ``"full"``, from the environment's ``IRREPRO_SCALE`` (else ``default``).

    The one reader of ``IRREPRO_SCALE``, called by the command line and the book's configuration
    only (:func:`irrepro.book.config`); library functions take ``scale`` as an argument. Checked
    and normalised by ``check_scale``, as every ``--scale`` option is.

    Parameters
    ----------
    default : str, default "paper"
        The scale when ``IRREPRO_SCALE`` is unset (or set to nothing).

    Returns
    -------
    str
        ``"paper"``, ``"quick"`` or ``"full"``.

    Raises
    ------
    irrepro.InputError
        When ``IRREPRO_SCALE`` is set to anything else.

    Examples
    --------
    >>> import os
    >>> from irrepro.parallel import scale
    >>> scale() if "IRREPRO_SCALE" in os.environ else scale("quick")
    '...'
    """
    return check_scale(env("IRREPRO_SCALE") or default, "IRREPRO_SCALE")


def check_scale(value: Any, name: str = "scale") -> str:
    """The scale ``value`` names: ``"paper"``, ``"quick"`` or ``"full"``, in any case, spaces around."""
    word = value.strip().lower() if isinstance(value, str) else value
    if word not in SCALES:
        raise InputError(f"{name} must be 'paper', 'quick' or 'full', not {value!r}")
    return word


def env_jobs(default: int = 1) -> int:
    """The worker count of the environment's ``IRREPRO_JOBS`` (unset or empty: ``default``)."""
    return check_jobs(env("IRREPRO_JOBS") or str(check_jobs(default)), "IRREPRO_JOBS")


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """``value`` as an int: the one check of every count and seed of irrepro."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value}")
    return value


def check_jobs(value: Any, name: str = "n_jobs") -> int:
    """A number of workers as given: an integer >= 1, or -1 for all cores."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text)
        except ValueError:
            raise InputError(f"{name} must be an integer (workers; -1 for all cores), not {text!r}") from None
    value = check_int(value, name)
    if value == 0 or value < -1:
        raise InputError(f"{name} must be a positive integer (workers) or -1 (all cores), not {value}")
    return value


def n_jobs(n: int | None = None) -> int:
    """Resolve a worker count: None -> 1, -1 -> all cores.

    None is 1 whatever ``IRREPRO_JOBS`` says (the command line and the book pass it,
    ``env_jobs``).

    Parameters
    ----------
    n : int or None
        The count as given.

    Returns
    -------
    int
        The number of workers, >= 1.

    Raises
    ------
    irrepro.InputError
        For anything ``check_jobs`` refuses, naming ``n_jobs``.

    Examples
    --------
    >>> import os
    >>> from irrepro.parallel import n_jobs
    >>> n_jobs(), n_jobs(3), n_jobs(-1) == (os.cpu_count() or 1)
    (1, 3, True)
    """
    n = 1 if n is None else check_jobs(n, "n_jobs")
    return (os.cpu_count() or 1) if n == -1 else n


def as_seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """A :class:`numpy.random.SeedSequence` from a seed."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    if seed is None:
        raise InputError("pass a seed (int or numpy Generator): irrepro's results are reproducible")
    return np.random.SeedSequence(check_int(seed, "seed", minimum=0))


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a seed."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(as_seed_sequence(seed))


def spawn(seed: SeedLike, n: int) -> list[np.random.Generator]:
    """``n`` generators, child ``i`` of the seed's SeedSequence for task ``i`` (the same with any number of workers)."""
    return [np.random.default_rng(s) for s in as_seed_sequence(seed).spawn(n)]


def _chunks(n: int, size: int, widths=None, most: int | None = None) -> list[slice]:
    """Consecutive slices of ``range(n)`` of at most ``most`` items and ``size`` cells (widest item x items)."""
    size, most = max(int(size), 1), max(int(n if most is None else most), 1)
    if widths is None:
        step = min(size, most)
        return [slice(a, min(a + step, n)) for a in range(0, n, step)]
    w = np.maximum(np.asarray(widths, dtype=np.int64), 1)
    out: list[slice] = []
    a, guess = 0, 64
    while a < n:
        while True:  # the widest-so-far of a window of items from a, widened until a slice ends in it
            widest = np.maximum.accumulate(w[a : a + guess])
            fit = int(np.searchsorted(np.arange(1, len(widest) + 1) * widest, size, side="right"))
            if fit < len(widest) or a + guess >= n or fit >= most:
                break
            guess *= 2
        b = a + min(max(fit, 1), most)
        out.append(slice(a, b))
        a, guess = b, max(2 * (b - a), 64)
    return out


def parallel_map(
    fn: Callable[..., Any],
    items: Sequence[Any] | Iterable[Any],
    *,
    n_jobs: int | None = None,
    processes: bool = False,
    progress: bool | str = False,
    total: int | None = None,
    here: bool = False,
) -> list[Any]:
    """``[fn(x) for x in items]`` on ``n_jobs`` workers, in order."""
    from tqdm import tqdm

    items = list(items)
    on_worker = getattr(_TASK, "active", False)
    address = None if on_worker or here else scheduler()
    workers = 1 if on_worker else globals()["n_jobs"](n_jobs)
    bar = tqdm(
        total=total or len(items),
        desc=progress if isinstance(progress, str) else None,
        disable=not progress,
    )
    try:
        if address is not None and len(items) > 1:
            return _dask_map(fn, items, bar, address)
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
