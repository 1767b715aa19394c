"""Locating, verifying and downloading the book's data files (``irrepro/registry.tsv``: URL and
sha256 of each): the cache, then the mirror (copied into the cache once verified, never written),
then the network (:func:`pooch.retrieve`); nothing is used before its sha256 matches, and files are
written whole or not at all (:func:`atomic_write`)."""

from __future__ import annotations

import csv
import errno
import functools
import hashlib
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import platformdirs

from .._env import env
from ..errors import InputError, UnknownNameError
from ._common import CacheError, DataUnavailable

_VERIFIED: dict[tuple[str, int, int], str] = {}


def _sha256(path: str | Path) -> str:
    """The sha256 of a file's bytes as they are now (read in blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_file(path: Path) -> str:
    """The sha256 of a file, memoised on (path, size, mtime) for this process."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _VERIFIED:
        _VERIFIED[key] = _sha256(path)
    return _VERIFIED[key]


def _writable_dir(directory: Path) -> None:
    """Create ``directory`` (and parents) or raise :class:`CacheError` saying why it cannot be."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CacheError(
            f"{directory} is a file, not a directory: point IRREPRO_CACHE at a directory"
        ) from None
    except NotADirectoryError:
        bad = next((p for p in [directory, *directory.parents] if p.exists() and not p.is_dir()), directory)
        raise CacheError(
            f"cannot create the directory {directory}: {bad} is a file (check IRREPRO_CACHE)"
        ) from None
    except OSError as exc:  # permission denied, read-only file system, ...
        raise CacheError(
            f"cannot create the directory {directory}: {exc.strerror or exc} (check IRREPRO_CACHE)"
        ) from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CacheError(f"the directory {directory} is not writable (check IRREPRO_CACHE)")


def _umask() -> int:
    """This process's umask, read without changing it where Linux tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode() -> int:
    """The mode of a new file under the umask, as ``open()`` would create it: ``0o666 & ~umask``."""
    return 0o666 & ~_umask()


_DISK_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _disk_full(dst: Path, exc: OSError) -> CacheError:
    """The error for a write into ``dst`` that ran out of space, naming that file and its directory."""
    return CacheError(
        f"cannot write {dst}: the disk is full ({exc.strerror or 'no space left'} in {dst.parent}); "
        "free some space there, or point IRREPRO_CACHE at a directory on a disk with room"
    )


def sha256_record(path: str | Path) -> Path:
    """Where the recorded sha256 of the derived file ``path`` is kept: ``path`` + ``.sha256``."""
    path = Path(path)
    return path.with_name(path.name + ".sha256")


def atomic_write(dst: str | Path, write, *, record_sha256: bool = False) -> None:
    """Create ``dst`` whole or not at all (a temporary file renamed over it, mode ``0o666 & ~umask``), with ``record_sha256`` its sha256 recorded; CacheError naming ``dst`` where it cannot be written."""
    dst = Path(dst)
    _writable_dir(dst.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".part")
    except OSError as exc:
        if exc.errno in _DISK_FULL:
            raise _disk_full(dst, exc) from exc
        raise CacheError(
            f"cannot write in {dst.parent}: {exc.strerror or exc} (check IRREPRO_CACHE)"
        ) from None
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, _new_file_mode())  # mkstemp's 0600 whatever the umask
        if record_sha256:
            digest = _sha256(tmp)
            atomic_write(sha256_record(dst), lambda t: Path(t).write_text(f"{digest}  {dst.name}\n"))
        os.replace(tmp, dst)
    except OSError as exc:
        if exc.errno in _DISK_FULL:  # a full disk is the destination's, whatever file the error names
            raise _disk_full(dst, exc) from exc
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def recorded_sha256_problem(path: str | Path) -> str | None:
    """None when the derived file ``path`` has the sha256 recorded when irrepro wrote it, else what is wrong (words following the file's name)."""
    path = Path(path)
    record = sha256_record(path)
    try:
        recorded = record.read_text(encoding="ascii").split()
    except FileNotFoundError:
        return f"has no recorded sha256 ({record} is missing)"
    except (OSError, UnicodeDecodeError) as exc:
        return f"has an unreadable sha256 record {record} ({exc})"
    if not recorded or len(recorded[0]) != 64 or set(recorded[0]) - set("0123456789abcdef"):
        return f"has a malformed sha256 record {record}"
    actual = _sha256(path)  # not memoised: the bytes as they are now
    if actual != recorded[0]:
        return (
            f"does not match its recorded sha256 (changed since irrepro wrote it: recorded "
            f"{recorded[0][:16]}..., now {actual[:16]}...)"
        )
    return None


def _copy_atomic(src: Path, dst: Path) -> None:
    atomic_write(dst, lambda tmp: shutil.copyfile(src, tmp))


#: Seconds to wait for a server to answer before giving up on the network.
NETWORK_TIMEOUT = 10


@dataclass(frozen=True)
class RegistryEntry:
    """One file of the registry: its path (relative to the cache / mirror root), checksum, size, source URL and licence."""

    path: str
    sha256: str
    bytes: int
    url: str
    license: str


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, RegistryEntry]:
    """Every file the book may read, keyed by its relative path (``irrepro/registry.tsv``)."""
    text = resources.files("irrepro").joinpath("registry.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {
        r["path"]: RegistryEntry(r["path"], r["sha256"], int(r["bytes"]), r["url"], r["license"])
        for r in rows
    }


def _env_flag(name: str) -> bool:
    """The yes / no environment variable ``name`` (1, true, yes, on / unset, empty, 0, false, no, off); anything else refused naming it."""
    value = (env(name) or "").strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"", "0", "false", "no", "off"}:
        return False
    raise InputError(f"{name} must be 1 or 0 (true / false, yes / no, on / off), not {os.environ[name]!r}")


def cache_dir() -> Path:
    """The user's data cache: ``IRREPRO_CACHE``, or the platform's cache directory."""
    cache = env("IRREPRO_CACHE")
    return Path(cache).expanduser().resolve() if cache else Path(platformdirs.user_cache_dir("irrepro"))


def mirror_dir() -> Path | None:
    """The offline mirror (``IRREPRO_MIRROR``), or None when it is not set."""
    mirror = env("IRREPRO_MIRROR")
    return Path(mirror).expanduser().resolve() if mirror else None


def is_offline() -> bool:
    """True when ``IRREPRO_OFFLINE`` forbids any network access."""
    return _env_flag("IRREPRO_OFFLINE")


_NETWORK_DOWN: list[str] = []  # the first network failure of this process, if any


def _matches(path: Path, entry: RegistryEntry) -> bool:
    return path.stat().st_size == entry.bytes and sha256_file(path) == entry.sha256


def _how_to_supply(entry: RegistryEntry, target: Path) -> str:
    return (
        f"To supply it: point IRREPRO_MIRROR at a directory holding '{entry.path}' "
        f"(laid out like the book's data mirror), or download {entry.url} yourself and save it as "
        f"{target} (sha256 {entry.sha256})."
    )


def where(relpath: str) -> str:
    """Where a registry file would be taken from now: cache, mirror, corrupt-cache, corrupt-mirror or missing."""
    entry = registry()[relpath]
    target = cache_dir() / relpath
    if target.exists() and _matches(target, entry):
        return "cache"
    state = "corrupt-cache" if target.exists() else "missing"
    mirror = mirror_dir()
    if mirror is not None and (mirror / relpath).is_file():
        return "mirror" if _matches(mirror / relpath, entry) else "corrupt-mirror"
    return state


def locate(relpath: str, *, progress: bool = False) -> Path:
    """A verified local copy of the registry file ``relpath``: the cache, then the mirror, then the network (DataUnavailable naming the file and how to supply it)."""
    try:
        entry = registry()[relpath]
    except KeyError:
        raise UnknownNameError(f"'{relpath}' is not a file of the irrepro data registry") from None
    target = cache_dir() / relpath
    if cache_dir().exists() and not cache_dir().is_dir():
        raise CacheError(f"IRREPRO_CACHE={cache_dir()} is a file, not a directory")
    corrupt = None  # (inode, mtime) of a cached copy that failed its checksum
    try:
        if _matches(target, entry):
            return target
        st = target.stat()
        corrupt = (st.st_ino, st.st_mtime_ns)
        warnings.warn(
            f"cached file {target} does not match its sha256 (corrupt or truncated); replacing it",
            stacklevel=2,
        )
    except FileNotFoundError:  # not cached (or another process is replacing it right now)
        pass
    except NotADirectoryError:
        raise CacheError(f"cannot use the cache {cache_dir()}: a part of {target} is a file") from None
    # A corrupt copy is never deleted first: the verified copy replaces it in one step (rename),
    # so a process reading the file meanwhile never finds it missing.
    looked = [f"cache {target}"]
    mirror = mirror_dir()
    if mirror is not None:
        src = mirror / relpath
        looked.append(f"mirror {src}")
        if src.is_file():
            if _matches(src, entry):
                _copy_atomic(src, target)
                return target
            warnings.warn(f"mirror file {src} does not match its sha256; not using it", stacklevel=2)

    try:
        if is_offline():
            raise _not_found(
                entry, target, looked, f" and IRREPRO_OFFLINE is set, so {entry.url} was not downloaded"
            )
        if _NETWORK_DOWN:
            raise _not_found(
                entry, target, looked, f", and the network failed earlier in this session ({_NETWORK_DOWN[0]}), "
                f"so {entry.url} was not tried"
            )  # fmt: skip
        return _download(entry, target, looked, progress)
    except DataUnavailable:
        _drop_corrupt(target, corrupt)
        raise


def _drop_corrupt(target: Path, corrupt: tuple | None) -> None:
    """Remove a corrupt cached copy that could not be replaced, unless another process replaced it meanwhile."""
    if corrupt is None:
        return
    try:
        st = target.stat()
        if (st.st_ino, st.st_mtime_ns) == corrupt:
            target.unlink()
    except OSError:
        pass


def _download(entry: RegistryEntry, target: Path, looked: list[str], progress: bool) -> Path:
    import pooch  # imported lazily: only the network path needs it

    _writable_dir(target.parent)
    downloader = pooch.HTTPDownloader(progressbar=progress, timeout=NETWORK_TIMEOUT)
    try:
        path = pooch.retrieve(
            entry.url,
            known_hash=f"sha256:{entry.sha256}",
            fname=target.name,
            path=target.parent,
            downloader=downloader,
            progressbar=progress,
        )
    except OSError as exc:
        if exc.errno in _DISK_FULL:  # requests' network errors are OSErrors too, without errno
            raise _disk_full(target, exc) from exc
        raise _download_failed(exc, entry, target, looked) from exc
    except ValueError as exc:  # pooch: checksum mismatch (the partial file is removed)
        raise DataUnavailable(
            f"{entry.path}: downloaded from {entry.url} but its sha256 does not match the registry "
            f"({exc}). {_how_to_supply(entry, target)}"
        ) from exc
    except Exception as exc:  # connection refused, DNS failure, timeout, HTTP error
        raise _download_failed(exc, entry, target, looked) from exc
    os.chmod(path, _new_file_mode())  # pooch's temporary file is 0600 whatever the umask
    return Path(path)


def _not_found(entry: RegistryEntry, target: Path, looked: list[str], why: str) -> DataUnavailable:
    """The error of a file found nowhere (``why``: why not downloaded), saying how to supply it."""
    return DataUnavailable(
        f"{entry.path}: not found (looked in {', '.join(looked)}){why}. {_how_to_supply(entry, target)}"
    )


def _download_failed(
    exc: Exception, entry: RegistryEntry, target: Path, looked: list[str]
) -> DataUnavailable:
    """The error of a failed download (a network that does not answer is remembered)."""
    reason = f"{type(exc).__name__}: {str(exc)[:200]}"
    if type(exc).__name__ != "HTTPError":  # an HTTP status error means the network works
        _NETWORK_DOWN.append(reason)
    return _not_found(entry, target, looked, f" and the download from {entry.url} failed ({reason})")
