"""Fitted copulas kept in the user's cache (``IRREPRO_CACHE``), one ``.npz`` per collection model named
by the sha256 of what its fit depends on, so that a rerun never refits."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import numpy as np

from ..data._common import CacheError
from ..data._fetch import atomic_write, cache_dir, recorded_sha256_problem, sha256_record

#: Bump when what is stored, or how, changes.
_LAYOUT = "copulas-v1"
#: Parameters stored per copula (the most of a parametric family: Tawn's 3).
_MAX_PARAMS = 3


def _pv():
    """pyvinecopulib (imported on first use)."""
    import pyvinecopulib

    return pyvinecopulib


def _families() -> list:
    """pyvinecopulib's family names, in the order their codes are stored."""
    return list(_pv().BicopFamily.__members__)


def cache_path(model) -> Path:
    """Where the copulas of ``model`` (a ``CollectionModel``) are kept."""
    h = hashlib.sha256(f"{_LAYOUT}|{_pv().__version__}|{model.copula_method}".encode())
    h.update(repr((model.seed.entropy, tuple(model.seed.spawn_key))).encode())
    scores = np.ascontiguousarray(model.scores, dtype=np.float64)
    h.update(repr(scores.shape).encode())
    h.update(scores.tobytes())
    return cache_dir() / "copulas" / f"{model.name}-{h.hexdigest()[:24]}.npz"


def load(model) -> dict:
    """The cached copulas of ``model``, ``{(i, j): Bicop}`` (empty when none or unreadable)."""
    path = cache_path(model)
    if not path.exists():
        return {}
    problem = recorded_sha256_problem(path)
    if problem is None:
        try:
            with np.load(path, allow_pickle=False) as z:
                keys, fam, rot, par, npar = z["keys"], z["family"], z["rotation"], z["parameters"], z["npar"]
            names, pv = _families(), _pv()
            return {
                (int(i), int(j)): pv.Bicop(
                    family=pv.BicopFamily.__members__[names[f]],
                    rotation=int(r),
                    parameters=p[:n].reshape(-1, 1) if n else np.empty((0, 0)),
                )
                for (i, j), f, r, p, n in zip(keys, fam, rot, par, npar)
            }
        except Exception as exc:  # a damaged cache file of any kind is refitted
            problem = f"is unreadable ({exc})"
    warnings.warn(f"cached copulas {path} {problem}; refitting them", stacklevel=3)
    path.unlink(missing_ok=True)
    sha256_record(path).unlink(missing_ok=True)
    return {}


def store(model, copulas: dict) -> None:
    """Keep ``copulas`` (``{(i, j): Bicop}``) in the cache; a cache that cannot be written only warns."""
    names = _families()
    keys = sorted(copulas)
    par = np.zeros((len(keys), _MAX_PARAMS))
    npar = np.zeros(len(keys), dtype=np.int8)
    for r, k in enumerate(keys):
        p = np.asarray(copulas[k].parameters, dtype=np.float64).ravel()
        par[r, : p.size], npar[r] = p, p.size

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(
                f,
                keys=np.array(keys, dtype=np.int32).reshape(-1, 2),
                family=np.array([names.index(copulas[k].family.name) for k in keys], dtype=np.int8),
                rotation=np.array([copulas[k].rotation for k in keys], dtype=np.int16),
                parameters=par,
                npar=npar,
            )

    path = cache_path(model)
    try:
        atomic_write(path, write, record_sha256=True)
    except (OSError, CacheError) as exc:
        warnings.warn(f"could not cache the copulas of {model.name}: {exc}", stacklevel=3)
