"""Where ``irrepro.parallel.parallel_map`` runs its tasks on a Dask cluster: the scheduler's
address (``IRREPRO_SCHEDULER`` or ``--scheduler``), the clients connected to it, and the map of
tasks over the cluster's workers. Served from :mod:`irrepro.parallel`, whose docstring states the
conventions."""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import re
import threading
from collections.abc import Callable
from typing import Any

from ._env import env
from .errors import InputError, InputTypeError

#: Tasks in flight per worker thread of a Dask cluster: the client submits this many ahead and
#: submits the next as one completes, so that neither the cluster nor the client holds more than
#: a few tasks' inputs and results at once (a rule of the cluster's size that affects memory and
#: speed only: every task's result is the same whatever runs it).
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
    """A context within which ``parallel_map`` uses the Dask scheduler ``address``.

    What ``--scheduler`` of ``irrepro report`` and ``irrepro compare`` does. The address is checked
    on entry.

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

    Single-threaded worker processes, everything on 127.0.0.1 (scheduler, workers, the HTTP server
    on a free port). Its workers run without Dask's ``MALLOC_TRIM_THRESHOLD_=65536``, which makes
    glibc map and unmap every large numpy array and doubled the corpus bootstrap's time here.

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
