"""Verified files on disk: the sha256 of a file (memoised per process), files written whole or not
at all (:func:`atomic_write`) with the mode the umask gives, and the sha256 recorded beside a file
irrepro derived (:func:`recorded_sha256_problem`)."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from ._common import CacheError

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
