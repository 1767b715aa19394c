"""Seeds, workers and scale: the conventions every random procedure of irrepro follows.

- **Seeds**: every random function takes ``seed``, an int, a :class:`numpy.random.SeedSequence`
  or a :class:`numpy.random.Generator`.
- **Workers**: work is cut into a fixed number of tasks, task ``i`` drawing from the ``i``-th
  child of the seed, so results are identical with 1 or many workers (``n_jobs=None``: 1; ``-1``:
  all cores). With ``IRREPRO_SCHEDULER`` (or ``--scheduler``) set to a Dask scheduler address or
  ``local``, the same tasks run on that Dask cluster (``pip install irrepro[dask]``).
- **Scale**: ``"paper"`` (the default) or ``"quick"`` (small, for tests), an argument of every
  library function; ``IRREPRO_SCALE`` and ``IRREPRO_JOBS`` are read only by the command line and
  the book's configuration, which pass them down.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import numbers
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import numpy as np

from ._env import env
from .errors import InputError, InputTypeError

__all__ = ["scale", "n_jobs", "using_scheduler", "local_cluster"]

#: What a ``seed`` argument accepts.
SeedLike = int | np.random.SeedSequence | np.random.Generator | None


#: The book's scales; "full" is "paper" except where a chapter's anchor ran more (Urbano et al.).
SCALES = ("paper", "quick", "full")


def scale(default: str = "paper") -> str:
    """``"paper"``, ``"quick"`` or ``"full"``, from the environment's ``IRREPRO_SCALE`` (else ``default``).

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
    """Resolve a worker count: None -> 1 (whatever ``IRREPRO_JOBS`` says), -1 -> all cores.

    Parameters
    ----------
    n : int or None
        The count as given.

    Returns
    -------
    int
        The number of workers, >= 1.

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
    here: bool = False,
) -> list[Any]:
    """``[fn(x) for x in items]`` on ``n_jobs`` workers, in order."""
    from tqdm import tqdm

    items = list(items)
    on_worker = getattr(_TASK, "active", False)
    address = None if on_worker or here else scheduler()
    workers = 1 if on_worker else globals()["n_jobs"](n_jobs)
    bar = tqdm(total=len(items), desc=progress if isinstance(progress, str) else None, disable=not progress)
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


# --- the Dask cluster ------------------------------------------------------------------------------


#: Tasks in flight per worker thread of a Dask cluster (memory and speed only, never the results).
IN_FLIGHT = 2

_ADDRESS = re.compile(r"^(local|[a-z][a-z0-9+.-]*://\S+|[^\s:/]+:\d+)$")
_CLIENTS: dict[str, Any] = {}
_OVERRIDE: list[tuple[str, str] | None] = []  # using_scheduler's (address, name), innermost last
_TASK = threading.local()  # set while a task of parallel_map runs on a Dask worker


def _active() -> tuple[str | None, str]:
    """The address ``parallel_map`` would use and what set it (the innermost :func:`using_scheduler`'s)."""
    if _OVERRIDE and _OVERRIDE[-1] is not None:
        return _OVERRIDE[-1]
    return env("IRREPRO_SCHEDULER"), "IRREPRO_SCHEDULER"


def _origin(address: str) -> str:
    """How a message names what set the scheduler ``address`` (an option, the environment, or itself)."""
    active, name = _active()
    return name if active is not None and scheduler(active, name) == address else "the scheduler address"


def scheduler(address: str | None = None, name: str = "address") -> str | None:
    """The Dask scheduler ``parallel_map`` uses: ``address``, else ``IRREPRO_SCHEDULER``."""
    if address is None:
        address, name = _active()
    address = (address or "").strip()
    if not address:
        return None
    if address.lower() == "local":
        return "local"
    if not _ADDRESS.match(address):
        raise InputError(
            f"{name} must be a Dask scheduler address (tcp://host:8786) or 'local', not {address!r}"
        )
    return address


@contextlib.contextmanager
def using_scheduler(address: str | None, name: str = "address"):
    """A context within which ``parallel_map`` uses the Dask scheduler ``address`` (``--scheduler``).

    Parameters
    ----------
    address : str or None
        The scheduler's address or ``local``; None: as before, ``IRREPRO_SCHEDULER`` or none.
    name : str
        How messages name it (the command line's ``--scheduler``).

    Yields
    ------
    None
        Nothing: the block runs with the scheduler set.

    Examples
    --------
    >>> from irrepro.parallel import scheduler, using_scheduler
    >>> with using_scheduler("tcp://127.0.0.1:8786"):
    ...     scheduler()
    'tcp://127.0.0.1:8786'
    """
    checked = None if address is None else scheduler(address, name)
    _OVERRIDE.append(None if checked is None else (checked, name))
    try:
        yield
    finally:
        _OVERRIDE.pop()


def local_cluster(n_workers: int | None = None, **kwargs):
    """A :class:`distributed.LocalCluster` as irrepro starts it for ``IRREPRO_SCHEDULER=local``.

    Single-threaded workers on 127.0.0.1, without ``MALLOC_TRIM_THRESHOLD_`` (it doubled the corpus bootstrap's time).

    Parameters
    ----------
    n_workers : int or None
        The number of worker processes (None: the machine's cores).
    **kwargs
        Passed to LocalCluster, over irrepro's options.

    Returns
    -------
    distributed.LocalCluster
        The running cluster (close it when done).
    """
    import dask
    from distributed import LocalCluster

    options = dict(n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                   host="127.0.0.1", dashboard_address="127.0.0.1:0")  # fmt: skip
    options.update(kwargs)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        return LocalCluster(**options)


def dask_client(address: str | None = None):
    """The :class:`distributed.Client` of ``address`` (None: ``scheduler``), connected once per process."""
    address = scheduler(address)
    if address is None:
        raise InputError("no Dask scheduler: set IRREPRO_SCHEDULER (tcp://host:8786 or 'local')")
    origin = _origin(address)
    client = _CLIENTS.get(address)
    if client is not None and client.status == "running":
        return client
    try:
        from distributed import Client
    except ImportError:
        raise InputError(
            f"{origin} {address} needs dask.distributed, which is not installed: pip install 'irrepro[dask]'"
        ) from None
    if address == "local":
        client = Client(local_cluster())
    else:
        try:
            client = Client(address, timeout="30s")
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler {address} ({origin}): {exc}") from None
    _CLIENTS[address] = client
    return client


def close_clients() -> None:
    """Close the clients :func:`dask_client` opened and their ``local`` cluster (at exit; harmless earlier)."""
    while _CLIENTS:
        _, client = _CLIENTS.popitem()
        cluster = client.cluster
        client.close()
        if cluster is not None:
            cluster.close()


atexit.register(close_clients)


def _run_task(fn: Callable[..., Any], x: Any) -> Any:
    """One task of ``parallel_map`` on a Dask worker; a parallel_map inside it runs serially."""
    _TASK.active = True
    try:
        return fn(x)
    finally:
        _TASK.active = False


def _check_serialisable(fn: Callable[..., Any], items: list, address: str) -> None:
    """Refuse, before any work and before connecting, a task the cluster of ``address`` cannot be sent."""
    import pickle

    try:
        import cloudpickle  # type: ignore[import-untyped]  # (no stubs)
    except ImportError:  # no Dask: dask_client says so
        return
    firsts = {type(x): x for x in reversed(items)}  # the first item of each type
    for what, obj in [("its function", fn), *(("an item", x) for x in firsts.values())]:
        try:
            try:
                pickle.dumps(obj, protocol=5)
            except Exception:
                cloudpickle.dumps(obj, protocol=5)
        except Exception as exc:
            name = getattr(fn, "__qualname__", type(fn).__name__)
            raise InputTypeError(
                f"the task {name} cannot be sent to the Dask cluster {address} ({_origin(address)}): {what} "
                f"does not serialise ({type(exc).__name__}: {exc}); run it without a scheduler (-j N gives "
                "the same numbers)"
            ) from None


def _dask_map(fn: Callable[..., Any], items: list, bar, address: str) -> list:
    """``[fn(x) for x in items]`` on the Dask cluster of ``address``."""
    from distributed import as_completed

    _check_serialisable(fn, items, address)
    client = dask_client(address)
    threads = max(1, sum(client.nthreads().values()))
    fn_on_workers = client.scatter(fn, broadcast=True, hash=False)
    out: list[Any] = [None] * len(items)
    todo = iter(enumerate(items))
    index: dict[str, int] = {}

    def submit(i, x):
        f = client.submit(_run_task, fn_on_workers, x, pure=False)
        index[f.key] = i
        return f

    running = as_completed([submit(i, x) for i, x in itertools.islice(todo, IN_FLIGHT * threads)])
    try:
        for f in running:
            out[index.pop(f.key)] = f.result()
            f.release()
            bar.update()
            for i, x in itertools.islice(todo, 1):
                running.add(submit(i, x))
    except BaseException:  # an error or Ctrl-C: tasks not yet run never run
        client.cancel(list(running.futures))
        raise
    finally:
        fn_on_workers.release()
    return out
