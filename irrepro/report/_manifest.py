"""The report directory's manifest and its temporary siblings (used by :mod:`irrepro.report._out`,
which says what irrepro may write, replace and remove in ``--out``): the marker file
``.irrepro-report`` that proves which files irrepro wrote (every file's size and sha256), the survey
of a directory against it, the removal of what it proves irrepro's, and the locks and leftovers of
the temporary siblings a report is written into."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .._text import few

try:  # a running report holds a lock on its temporary directory (POSIX)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no locks there: _lock gives None

__all__ = ["MARKER", "REPORT_FILES"]

#: The manifest of an irrepro report (JSON: every file's size and sha256), written last.
MARKER = ".irrepro-report"
#: The files every report may write whatever its measure (the per-topic table is named after it).
REPORT_FILES = ("index.html", "summary.csv", "runs.csv", "pairs.csv", "error-rates.csv", "methods.md",
                "methods.tex", "ir_metadata.yml")  # fmt: skip
_FORMAT = "irrepro report manifest"
_VERSION = 1
#: A manifest is small; a bigger "marker" is not irrepro's (and is not read whole).
_MAX_MANIFEST = 1 << 20
#: mkdtemp's random part: 8 characters of this alphabet.
_RANDOM = "[a-z0-9_]{8}"
#: Bytes the temporary sibling's name adds to ``--out``'s: "." + "." + 8 random + ".tmp".
_TEMP_EXTRA = 14
#: This process's start, as far as irrepro can tell (the import of this module): a temporary
#: sibling older than this was not written by this process.
_STARTED = time.time()


# --------------------------------------------------------------------------------------------
# the manifest
# --------------------------------------------------------------------------------------------

Entry = tuple[int, str]  # (size in bytes, sha256 hex)


def _entry(blob: bytes) -> Entry:
    return len(blob), hashlib.sha256(blob).hexdigest()


def _file_entry(path: Path, size: int) -> Entry | None:
    """The size and sha256 of the regular file ``path`` (read afresh: a proof, not a memo), or
    None when it is not a regular file or cannot be read. Not read when ``size`` differs."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size != size:
            return st.st_size, ""
        h = hashlib.sha256()
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return st.st_size, h.hexdigest()
    except OSError:
        return None


def _valid_name(name) -> bool:
    """A file name a manifest may list: one plain name in the directory itself."""
    return (isinstance(name, str) and name not in ("", ".", "..", MARKER) and "/" not in name
            and "\\" not in name and "\0" not in name)  # fmt: skip


def _encode(files: dict[str, Entry], pending: dict[str, Entry] | None = None) -> bytes:
    doc = {
        "format": _FORMAT,
        "version": _VERSION,
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "note": "irrepro report --out removes or replaces only the files listed here whose size and "
        "sha256 still match; anything else in this directory is left as it is.",
        "files": {n: {"size": s, "sha256": h} for n, (s, h) in files.items()},
    }
    if pending:  # while a report is being written: its new files, also irrepro's
        doc["pending"] = {n: {"size": s, "sha256": h} for n, (s, h) in pending.items()}
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def _read_manifest(d: Path) -> tuple[dict[str, set[Entry]] | None, str]:
    """The files the manifest of ``d`` proves irrepro's (name -> the sizes and digests it may
    have), or None and the reason why ``d/.irrepro-report`` is no manifest."""
    m = d / MARKER
    try:
        st = os.lstat(m)
    except FileNotFoundError:
        return None, f"no {MARKER} file"
    except OSError as exc:
        return None, f"{MARKER}: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return None, f"{MARKER} is not a regular file"
    if st.st_size == 0:
        return None, f"its {MARKER} file is empty"
    if st.st_size > _MAX_MANIFEST:
        return None, f"its {MARKER} file is too large to be irrepro's manifest"
    try:
        doc = json.loads(m.read_bytes())
    except (OSError, ValueError):
        return None, f"its {MARKER} file holds no manifest (written by irrepro before 0.2, or not by irrepro)"
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT or doc.get("version") != _VERSION:
        return None, f"its {MARKER} file is not an irrepro manifest of version {_VERSION}"
    listed: dict[str, set[Entry]] = {}
    for key in ("files", "pending"):
        part = doc.get(key, {})
        if not isinstance(part, dict):
            return None, f"its {MARKER} file is damaged ({key!r} is not a table)"
        for name, e in part.items():
            ok = (_valid_name(name) and isinstance(e, dict) and type(e.get("size")) is int
                  and e["size"] >= 0 and isinstance(e.get("sha256"), str)
                  and re.fullmatch("[0-9a-f]{64}", e["sha256"]))  # fmt: skip
            if not ok:
                return None, f"its {MARKER} file is damaged (entry {name!r})"
            listed.setdefault(name, set()).add((e["size"], e["sha256"]))
    return listed, ""


@dataclass
class _Survey:
    """What a directory holds, by ownership: ``owned`` (listed by its manifest, content
    matching), ``changed`` (listed, but not matching or not a regular file any more) and
    ``foreign`` (not listed); ``reason`` says why there is no valid manifest (``listed`` None)."""

    listed: dict[str, set[Entry]] | None
    reason: str = ""
    owned: dict[str, Entry] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    empty: bool = False

    @property
    def only_owned(self) -> bool:
        return self.listed is not None and not self.changed and not self.foreign

    def kept(self) -> list[str]:
        """The entries irrepro leaves alone, as the warning names them (a directory with "/")."""
        return sorted(self.changed + self.foreign)


def _survey(d: Path) -> _Survey:
    names = sorted(os.listdir(d))
    listed, reason = _read_manifest(d)
    s = _Survey(listed, reason, empty=not names)
    for name in names:
        if name == MARKER:
            continue
        label = name + "/" if (d / name).is_dir() and not (d / name).is_symlink() else name
        if listed is None or name not in listed:
            s.foreign.append(label)
            continue
        sizes = {size for size, _ in listed[name]}
        got = None
        for size in sizes:
            got = _file_entry(d / name, size)
            if got in listed[name]:
                break
        if got in listed[name]:
            s.owned[name] = got
        else:
            s.changed.append(label)
    return s


def _remove_owned(d: Path) -> list[str]:
    """Remove from ``d`` every file its manifest proves irrepro's, then the manifest and ``d``
    itself if nothing else is left; returns what is left (empty when ``d`` is gone). What another
    process removed meanwhile is no error; any other failure is returned as "(its reason)"."""
    try:
        s = _survey(d)
        if s.listed is None:
            left = sorted(s.foreign)
        else:
            for name in s.owned:
                (d / name).unlink(missing_ok=True)
            left = s.kept()
            if not left:
                (d / MARKER).unlink(missing_ok=True)
        if not left:
            os.rmdir(d)
        return left
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"({exc.strerror})"]


def _write_marker(path: Path, files: dict[str, Entry], pending: dict[str, Entry] | None = None) -> None:
    path.write_bytes(_encode(files, pending))


# --------------------------------------------------------------------------------------------
# temporary siblings: locks and leftovers
# --------------------------------------------------------------------------------------------


def _lock(d: Path) -> int | None:
    """Hold a lock on the directory ``d`` while this process writes it (None without flock)."""
    if fcntl is None:  # pragma: no cover
        return None
    fd = os.open(d, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
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
    if fd is None:
        return fcntl is not None
    _unlock(fd)
    return False


def _temp_pattern(name: str) -> re.Pattern:
    return re.compile(rf"\.{re.escape(name)}\.{_RANDOM}\.(tmp|old)")


def _clean_stale(d: Path) -> None:
    """Remove the temporary siblings of ``d`` that a killed report left (older than this process,
    not locked by a running one), by their manifests; name in a warning what cannot be proven
    irrepro's."""
    pattern = _temp_pattern(d.name)
    try:
        siblings = [p for p in d.parent.iterdir() if pattern.fullmatch(p.name)]
    except OSError:
        return
    for p in sorted(siblings):
        try:
            st = os.lstat(p)
            if not stat.S_ISDIR(st.st_mode) or st.st_mtime >= _STARTED or _in_use(p):
                continue
            if p.name.endswith(".old") and (p / "report").is_dir():  # the fallback's earlier report
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
