"""The manifests that prove which files irrepro wrote (used by :mod:`irrepro._outputs`): the marker
``.irrepro-report`` of an output directory and the record ``.irrepro-files`` of the single files
irrepro wrote into a user's directory, each listing every file's size and sha256; and the hidden
temporary siblings irrepro writes into, their names, locks and leftovers."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ._text import few
from .data._fetch import _umask

try:  # a running report holds a lock on its temporary directory (POSIX)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no locks there: _lock gives None

__all__ = ["MARKER", "RECORD"]

#: The manifest of an output directory of irrepro (a report, a design), written last.
MARKER = ".irrepro-report"
#: The record of the single files irrepro wrote into a directory of the user's.
RECORD = ".irrepro-files"
_FORMAT = "irrepro report manifest"
_RECORD_FORMAT = "irrepro files record"
_VERSION = 1
_MAX_MANIFEST = 1 << 20  # a bigger "manifest" is not irrepro's (and is not read whole)
_MAX_DEPTH = 3  # document, table, entry: deeper JSON is not irrepro's
_RANDOM = "[a-z0-9_]{8}"  # tempfile's random part
NAME_MAX = 255  # the longest file name where the system does not say
_TEMP_SUFFIX = 12  # what a temporary sibling adds to its stem: 8 random characters and ".tmp"
_STARTED = time.time()  # a temporary sibling older than this was not written by this process
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

Entry = tuple[int, str]  # (size in bytes, sha256 hex)


def _entry(blob: bytes) -> Entry:
    return len(blob), hashlib.sha256(blob).hexdigest()


def _at(path: Path, dir_fd: int | None) -> str | Path:
    """``path`` as the system calls take it: its name inside ``dir_fd``, or itself."""
    return path.name if dir_fd is not None else path


def _file_entry(path: Path, size: int, dir_fd: int | None = None) -> Entry | None:
    """Size and sha256 of the regular file ``path``, no link followed (else None; unread if sizes differ)."""
    try:
        st = os.lstat(_at(path, dir_fd), dir_fd=dir_fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size != size:
            return st.st_size, ""
        h = hashlib.sha256()
        fd = os.open(_at(path, dir_fd), os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
        with os.fdopen(fd, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return st.st_size, h.hexdigest()
    except OSError:
        return None


def _valid_name(name) -> bool:
    """A file name a manifest may list: one plain name in the directory itself."""
    return (isinstance(name, str) and name not in ("", ".", "..", MARKER, RECORD) and "/" not in name
            and "\\" not in name and "\0" not in name)  # fmt: skip


def _depth(doc, limit: int) -> int:
    """How deep the JSON value ``doc`` nests, counted no further than ``limit`` + 1."""
    if not isinstance(doc, (dict, list)) or limit < 0:
        return 0
    values = doc.values() if isinstance(doc, dict) else doc
    return 1 + max((_depth(v, limit - 1) for v in values), default=0)


_NOTES = {
    _FORMAT: "irrepro removes or replaces only the files listed here whose size and sha256 still "
    "match; anything else in this directory is left as it is.",
    _RECORD_FORMAT: "irrepro overwrites only the files listed here whose size and sha256 still "
    "match; it never removes a file of this directory.",
}


def _encode(
    files: dict[str, Entry], pending: dict[str, Entry] | None = None, fmt: str = _FORMAT, kind: str = ""
) -> bytes:
    doc = {
        "format": fmt,
        "version": _VERSION,
        **({"written_by": kind} if kind else {}),
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "note": _NOTES[fmt],
        "files": {n: {"size": s, "sha256": h} for n, (s, h) in files.items()},
    }
    if pending:  # while a report is being written: its new files, also irrepro's
        doc["pending"] = {n: {"size": s, "sha256": h} for n, (s, h) in pending.items()}
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


@dataclass
class _Survey:
    """A directory by ownership under its manifest (``listed`` None, and the ``reason``, without one)."""

    listed: dict[str, set[Entry]] | None
    reason: str = ""
    kind: str = "report"  # the command whose output it is ("report", "design output")
    owned: dict[str, Entry] = field(default_factory=dict)  # listed, content matching
    changed: list[str] = field(default_factory=list)  # listed, content not matching
    foreign: list[str] = field(default_factory=list)  # not listed
    empty: bool = False

    @property
    def only_owned(self) -> bool:
        return self.listed is not None and not self.changed and not self.foreign

    def kept(self) -> list[str]:
        """The entries irrepro leaves alone, as the warning names them (a directory with "/")."""
        return sorted(self.changed + self.foreign)


def _read_manifest(d: Path, marker: str = MARKER, dir_fd: int | None = None) -> _Survey:
    """The manifest ``d/marker``, read within limits and never through a link: a manifest or a reason."""
    fmt = _RECORD_FORMAT if marker == RECORD else _FORMAT
    name = marker if dir_fd is not None else d / marker
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return _Survey(None, f"no {marker} file")
    except OSError as exc:
        return _Survey(None, f"{marker}: {exc.strerror}")
    if not stat.S_ISREG(st.st_mode):
        return _Survey(None, f"{marker} is not a regular file")
    if st.st_size == 0:
        return _Survey(None, f"its {marker} file is empty")
    if st.st_size > _MAX_MANIFEST:
        return _Survey(None, f"its {marker} file is too large to be irrepro's manifest")
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
        with os.fdopen(fd, "rb") as f:
            doc = json.loads(f.read(_MAX_MANIFEST + 1), parse_constant=_no_constant)
    except (OSError, ValueError, RecursionError):  # (RecursionError: JSON nested thousands deep)
        return _Survey(
            None, f"its {marker} file holds no manifest (written by irrepro before 0.2, or not by irrepro)"
        )
    if _depth(doc, _MAX_DEPTH) > _MAX_DEPTH:
        return _Survey(None, f"its {marker} file is not an irrepro manifest (nested deeper than a manifest)")
    if not isinstance(doc, dict) or doc.get("format") != fmt or doc.get("version") != _VERSION:
        return _Survey(None, f"its {marker} file is not an irrepro manifest of version {_VERSION}")
    kind = doc.get("written_by", "report")
    if not isinstance(kind, str) or not kind or len(kind) > 40:
        return _Survey(None, f"its {marker} file is damaged ('written_by' is not a name)")
    listed: dict[str, set[Entry]] = {}
    for key in ("files", "pending"):
        part = doc.get(key, {})
        if not isinstance(part, dict):
            return _Survey(None, f"its {marker} file is damaged ({key!r} is not a table)")
        for name, e in part.items():
            ok = (_valid_name(name) and isinstance(e, dict) and type(e.get("size")) is int
                  and 0 <= e["size"] < 1 << 63 and isinstance(e.get("sha256"), str)
                  and re.fullmatch("[0-9a-f]{64}", e["sha256"]))  # fmt: skip
            if not ok:
                return _Survey(None, f"its {marker} file is damaged (entry {name!r})")
            listed.setdefault(name, set()).add((e["size"], e["sha256"]))
    return _Survey(listed, "", kind)


def _no_constant(name: str):
    """json's hook for NaN and Infinity, which no manifest holds."""
    raise ValueError(f"{name} in a manifest")


def _survey(d: Path, dir_fd: int | None = None) -> _Survey:
    """What ``d`` holds (read through ``dir_fd`` when given), by ownership under its manifest."""
    names = sorted(os.listdir(d if dir_fd is None else dir_fd))
    s = _read_manifest(d, dir_fd=dir_fd)
    s.empty = not names
    for name in names:
        if name == MARKER:
            continue
        label = name + "/" if _is_dir(_at(d / name, dir_fd), dir_fd) else name
        if s.listed is None or name not in s.listed:
            s.foreign.append(label)
            continue
        got = None
        for size in {size for size, _ in s.listed[name]}:
            got = _file_entry(d / name, size, dir_fd)
            if got in s.listed[name]:
                s.owned[name] = got
                break
        else:
            s.changed.append(label)
    return s


def _remove_owned(d: Path) -> list[str]:
    """Remove from ``d`` what its manifest proves irrepro's, then ``d`` if emptied; returns what is left."""
    try:
        fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW)
    except FileNotFoundError:
        return []
    except OSError as exc:  # a link, or no directory: not irrepro's to empty
        return [f"({exc.strerror})"]
    try:
        s = _survey(d, fd)
        left = s.kept()
        if s.listed is not None:
            for name in [*s.owned, *([] if left else [MARKER])]:
                try:
                    os.unlink(name, dir_fd=fd)
                except FileNotFoundError:  # removed by another process meanwhile
                    pass
        if not left:
            os.rmdir(d)
        return left
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"({exc.strerror})"]
    finally:
        os.close(fd)


def _replace(path: Path, blob: bytes, prefix: str, check=None) -> None:
    """Write ``blob`` into a new hidden sibling of ``path``, run ``check``, rename it over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")  # a new file: no link followed
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600, as a new file under the umask
        if check is not None:
            check()
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _record(d: Path, name: str, entry: Entry) -> None:
    """Add ``name`` (just written) to the record of ``d``, dropping files that are gone, under a lock."""
    lock = _lock(d, wait=True)
    try:
        listed = _read_manifest(d, RECORD).listed
        files = {n: max(es) for n, es in (listed or {}).items() if n != name and os.path.lexists(d / n)}
        files[name] = entry
        _replace(d / RECORD, _encode(dict(sorted(files.items())), fmt=_RECORD_FORMAT), RECORD + ".")
    finally:
        _unlock(lock)


def _recorded(d: Path, name: str) -> bool:
    """Whether the record of ``d`` proves the regular file ``d/name`` irrepro's (size and sha256 matching)."""
    listed = _read_manifest(d, RECORD).listed
    if not listed or name not in listed:
        return False
    return any(_file_entry(d / name, size) in listed[name] for size, _ in listed[name])


# --------------------------------------------------------------------------------------------
# temporary siblings: locks and leftovers
# --------------------------------------------------------------------------------------------


def _lock(d: Path, wait: bool = False) -> int | None:
    """Lock the directory ``d`` (None without flock, or when held elsewhere and not ``wait``)."""
    if fcntl is None:  # pragma: no cover
        return None
    fd = os.open(d, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        os.close(fd)
        return None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing releases the lock


def _in_use(d: Path) -> bool:
    """Whether a running process holds the lock of ``d`` (writes a report there now)."""
    fd = _lock(d)
    _unlock(fd)
    return fd is None and fcntl is not None


def _name_max(d: Path) -> int:
    """The longest file name (in bytes) the directory ``d`` takes."""
    try:
        return os.pathconf(d, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return NAME_MAX


def temp_stem(name: str, name_max: int = NAME_MAX) -> str:
    """The prefix ``.NAME.`` of ``name``'s temporary siblings, cut and hashed past ``name_max``."""
    stem = f".{name}."
    if len(os.fsencode(stem)) + _TEMP_SUFFIX <= name_max:
        return stem
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:8]
    room = name_max - _TEMP_SUFFIX - len(f"..~{digest}")
    part = os.fsencode(name)[:room].decode("utf-8", "ignore") if room > 0 else ""
    while len(os.fsencode(part)) > room:  # (a name that is not UTF-8: surrogates take 1 byte each)
        part = part[:-1]
    return f".{part}~{digest}."


def _stem(p: Path) -> str:
    """:func:`temp_stem` of ``p`` in its directory."""
    return temp_stem(p.name, _name_max(p.parent))


def _temp_dir(p: Path, suffix: str = ".tmp") -> Path:
    """A new hidden temporary sibling directory of ``p`` (mode 0700)."""
    return Path(tempfile.mkdtemp(dir=p.parent, prefix=_stem(p), suffix=suffix))


def _temp_pattern(name: str, name_max: int = NAME_MAX) -> re.Pattern:
    return re.compile(rf"{re.escape(temp_stem(name, name_max))}{_RANDOM}\.(tmp|old)")


def _is_dir(p: Path | str, dir_fd: int | None = None) -> bool:
    """Whether ``p`` is a directory itself (not a link to one)."""
    try:
        return stat.S_ISDIR(os.lstat(p, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _clean_stale(d: Path) -> None:
    """Remove the temporary siblings of ``d`` a killed run left; warn of what is not provably irrepro's."""
    pattern = _temp_pattern(d.name, _name_max(d.parent))
    try:
        siblings = [p for p in d.parent.iterdir() if pattern.fullmatch(p.name)]
    except OSError:
        return
    for p in sorted(siblings):
        try:
            st = os.lstat(p)
            if not stat.S_ISDIR(st.st_mode) or st.st_mtime >= _STARTED or _in_use(p):
                continue
            if p.name.endswith(".old") and _is_dir(p / "report"):  # the fallback's earlier report
                left = _remove_owned(p / "report") or sorted(os.listdir(p))
                if not left:
                    os.rmdir(p)
            else:
                left = _remove_owned(p)
        except OSError as exc:
            left = [f"({exc.strerror})"]
        if left:
            warnings.warn(
                f"{p}: left by an earlier irrepro report that was stopped; kept, as irrepro cannot prove "
                f"it wrote {few(left)}: look inside and remove it yourself", stacklevel=3)  # fmt: skip
