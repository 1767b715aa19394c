"""Where irrepro writes the user's outputs (an output directory, a single file), checked before any work
and again when writing: never over or into an input, never through a link; replace or remove only what a
manifest (``.irrepro-report`` of a directory, ``.irrepro-files`` of single files: sizes and sha256) proves
irrepro wrote; atomic where it can be (a hidden temporary sibling renamed or exchanged into place)."""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
import warnings
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from ._text import few, shown
from .data._fetch import _umask
from .errors import InputError, OutputError

__all__ = ["check_dir", "check_file", "write_dir", "write_file", "MARKER", "RECORD"]

try:  # a running report holds a lock on its temporary directory (POSIX)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no locks there: _lock gives None

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
    others: list[str] = field(default_factory=list)  # not listed, or content not matching
    empty: bool = False

    def kept(self) -> list[str]:
        """The entries irrepro leaves alone, as the warning names them (a directory with "/")."""
        return sorted(self.others)


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
        got = _matching(d / name, s.listed[name], dir_fd) if s.listed and name in s.listed else None
        if got is None:
            s.others.append(label)
        else:
            s.owned[name] = got
    return s


def _matching(path: Path, entries: set[Entry], dir_fd: int | None = None) -> Entry | None:
    """The entry of the regular file ``path`` if it is one of ``entries``, else None."""
    for size in {size for size, _ in entries}:
        got = _file_entry(path, size, dir_fd)
        if got in entries:
            return got
    return None


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


def _name_max(d: Path, limit: str = "PC_NAME_MAX", default: int = NAME_MAX) -> int:
    """The longest file name (in bytes; or the system's other ``limit``) the directory ``d`` takes."""
    try:
        return os.pathconf(d, limit)
    except (OSError, ValueError, AttributeError):
        return default


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
            if not stat.S_ISDIR(st.st_mode) or st.st_mtime >= _STARTED:
                continue
            fd = _lock(p)
            _unlock(fd)
            if fd is None and fcntl is not None:  # a running process holds its lock: writes there now
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


def _out_path(out: str | Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(os.fspath(out))))


def _input_paths(inputs: Iterable) -> list[Path]:
    """The inputs that are existing paths (resolved); ids, collection names and objects are left out."""
    paths = []
    for p in inputs:
        try:
            if isinstance(p, (str, os.PathLike)) and Path(p).expanduser().exists():
                paths.append(Path(p).expanduser().resolve())
        except (OSError, ValueError):  # not a path this system can have
            continue
    return paths


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _check_inputs(given: str, d: Path, inputs: Iterable, option: str, what: str, file: bool = False) -> None:
    """Refuse ``d`` if it is an input or a hard link to one, holds one, or would be read as a run."""
    rd = d.resolve()
    for rp in _input_paths(inputs):
        kind = "directory" if rp.is_dir() else "file"
        if rd == rp or (os.path.lexists(d) and _same(d, rp)):
            raise InputError(f"{given}: {option} is the input {kind} {rp}; give another {what}")
        if rp.is_relative_to(rd):
            raise InputError(f"{given}: {option} contains the input {kind} {rp}; give a {what} that holds none "
                             "of the inputs")  # fmt: skip
        if rp.is_dir() and rd.parent == rp and (rd.is_file() or (file and not rd.name.startswith("."))):
            raise InputError(f"{given}: {option} is a file of the input directory {rp}, where it would be read "
                             f"as a run; give a {what} outside it")  # fmt: skip


def _check_length(given: str, d: Path, base: Path, option: str) -> None:
    name_max = _name_max(base)
    path_max = _name_max(base, "PC_PATH_MAX", 4096)
    for part in d.relative_to(base).parts:
        if len(os.fsencode(part)) > name_max:
            raise InputError(f"{given}: the name {part[:40]!r}... has {len(os.fsencode(part))} bytes, more "
                             f"than the {name_max} a file name may have here; give a shorter {option}")  # fmt: skip
    longest = d.parent / (temp_stem(d.name, name_max) + "XXXXXXXX.tmp") / ("x" * 64)
    if len(os.fsencode(str(longest))) >= path_max:
        raise InputError(f"{given}: the path is too long (the files written there would exceed the {path_max} "
                         f"bytes a path may have here); give a shorter {option}")  # fmt: skip


def _base(given: str, d: Path, option: str, what: str, file: bool = False) -> Path:
    """The nearest existing ancestor of ``d``, once ``d`` is no root, a name the system takes and no link."""
    if d == d.parent:
        raise InputError(f"{given}: {option} is the root directory; give a {what}")
    base = d.parent
    while not os.path.lexists(base):  # (False, not an error, for a name too long)
        base = base.parent
    _check_length(given, d, base, option)  # first: a name too long fails every other test with ENAMETOOLONG
    if d.is_symlink():
        how = ("does not write through a link: give the file itself" if file else
               f"replaces the directory {option} names and does not write through a link: give the directory itself")  # fmt: skip
        raise InputError(
            f"{given}: {option} is a symbolic link (to {os.readlink(d)}); irrepro {how}, or a new name"
        )
    return base


def _not_a_report(given: str, d: Path, s: _Survey, what: str) -> InputError:
    index = d / "index.html"
    try:
        titled = index.is_file() and "<title>irrepro report" in index.read_text(errors="replace")[:4000]
    except OSError:
        titled = False
    kept = few(s.kept()) or f"nothing but {MARKER}"
    if os.path.lexists(d / MARKER):
        why = (f"{s.reason}, so irrepro cannot tell which of its files it wrote ({kept}); it deletes only "
               "what it can prove it wrote, and will not write here")  # fmt: skip
    elif titled:
        why = (f"it holds an index.html titled 'irrepro report' but no {MARKER} manifest listing the files "
               "irrepro wrote (a copied report, or one written before irrepro 0.2); irrepro deletes only "
               "what it can prove it wrote, and will not write here")  # fmt: skip
    else:
        return InputError(f"{given}: not an irrepro {what} (no {MARKER} file) and not empty; refusing to "
                          "overwrite it: give a new or empty directory as --out")  # fmt: skip
    return InputError(f"{given}: not an earlier irrepro {what}: {why}: give a new or empty directory as --out "
                      f"(or, if it is an old {what} of yours, remove it yourself)")  # fmt: skip


def _probe(given: str, base: Path, what: str) -> None:
    """The one reliable test of writability: make (and remove) a hidden directory in ``base``."""
    try:
        os.rmdir(tempfile.mkdtemp(dir=base, prefix=".irrepro-probe-"))
    except OSError as exc:
        raise InputError(f"{given}: cannot write the {what} there ({base}: {exc.strerror})") from None


def check_dir(out: str | Path, *, files: Iterable[str], inputs: Iterable = (), what: str = "report") -> Path:
    """The absolute ``out`` if an output directory of ``files`` may go there, else an InputError naming it."""
    given = os.fspath(out)
    if not str(given).strip():  # Path("") is ".": the working directory, which the user did not name
        raise InputError(f"--out is empty: give a directory for the {what}")
    d = _out_path(out)
    base = _base(given, d, "--out", f"directory for the {what}")
    _check_inputs(given, d, inputs, "--out", f"directory for the {what}")
    if d.exists() and not d.is_dir():
        raise InputError(f"{given}: --out names a file, not a directory for the {what}")
    if not base.is_dir():
        raise InputError(f"{given}: cannot create the {what} there, {base} is a file")
    if _surveyed(given, d, files, what) is not None:
        if not os.access(d, os.W_OK | os.X_OK):
            try:
                read_only = bool(os.statvfs(d).f_flag & getattr(os, "ST_RDONLY", 1))
            except OSError:
                read_only = False
            why = ("it is on a read-only file system" if read_only else
                   f"the directory is not writable (mode {d.stat().st_mode & 0o777:o})")  # fmt: skip
            raise InputError(
                f"{given}: {why}; refusing to replace it: make it writable, or give another --out"
            )
    _probe(given, base, what)
    return d


def check_file(out: str | Path, *, inputs: Iterable = (), option: str = "--out") -> Path:
    """The absolute ``out`` if the file may be written there, else an InputError naming it."""
    given = os.fspath(out)
    if not str(given).strip():
        raise InputError(f"{option} is empty: give a file name")
    if given.endswith(("/", os.sep)) or os.path.basename(given) in (".", ".."):
        raise InputError(f"{given}: {option} names a directory (it ends with {os.path.basename(given) or '/'}); "
                         "give a file name")  # fmt: skip
    d = _out_path(out)
    if _stream(d):
        return d
    base = _base(given, d, option, "file name", file=True)
    if d.name in (MARKER, RECORD):
        raise InputError(f"{given}: {d.name} is the name of irrepro's own record; give another file name")
    _check_inputs(given, d, inputs, option, "file name", file=True)
    if d.is_dir():
        raise InputError(f"{given}: {option} names a directory, not a file")
    if base != d.parent or not base.is_dir():
        raise InputError(
            f"{given}: the directory {d.parent} does not exist; create it, or give another {option}"
        )
    recorded = _read_manifest(d.parent, RECORD).listed or {}  # irrepro's if it still matches its record
    if os.path.lexists(d) and (d.name not in recorded or _matching(d, recorded[d.name]) is None):
        m = _read_manifest(d.parent)
        if m.listed is not None and d.name in m.listed:
            raise InputError(f"{given}: a file of an irrepro {m.kind} (its {MARKER} lists it), which irrepro replaces "
                             f"only as a whole; give another {option}")  # fmt: skip
        raise InputError(
            f"{given}: the file exists and irrepro did not write it (or it changed since): irrepro overwrites "
            f"only files it wrote, as the record {RECORD} beside them proves; move it away, or give another "
            f"{option}"
        )
    _probe(given, base, "file")
    return d


def _stream(d: Path) -> bool:
    """Whether ``d`` leads, through any links, to a character device, a pipe or a socket (written through)."""
    try:
        mode = os.stat(d).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _blob(data: str | bytes) -> bytes:
    return data if isinstance(data, bytes) else shown(data).encode("utf-8")  # a non-UTF-8 path as \xNN


def write_file(out: str | Path, data: str | bytes, option: str = "--out") -> None:
    """Write ``data`` (text as UTF-8) to the file ``out`` (:func:`check_file`) atomically, and record it."""
    given = os.fspath(out)
    blob = _blob(data)
    path = check_file(out, option=option)
    try:
        if _stream(path):
            with open(path, "wb") as f:
                f.write(blob)
            return
        _replace(path, blob, _stem(path), check=lambda: check_file(given, option=option))
    except OSError as exc:
        raise OutputError(exc.errno or errno.EIO, exc.strerror or str(exc), given) from None
    try:
        _record(path.parent, path.name, _entry(blob))
    except OSError as exc:  # written, but not provably irrepro's: a later run will not overwrite it
        warnings.warn(f"{given}: written, but irrepro could not record it in {RECORD} ({exc.strerror}), so it "
                      "will not overwrite it later", stacklevel=2)  # fmt: skip


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _say_kept(given: str, kept: list[str], what: str, where: str = "") -> None:
    if kept:
        warnings.warn(
            f"{given}: left in place, not written by irrepro as this {what} or changed since it wrote them: "
            f"{few(kept, 8)}" + where, stacklevel=4)  # fmt: skip


def write_dir(out: str | Path, files: Mapping[str, str | bytes], what: str = "report") -> Path:
    """Write ``files`` (name -> text or bytes) as the output directory ``out`` (checked again); returns it."""
    given = os.fspath(out)
    blobs = {name: _blob(data) for name, data in files.items()}
    bad = [n for n in blobs if not _valid_name(n)]
    if bad:
        raise InputError(f"{what} file names must be plain names, not {bad}")
    d = check_dir(out, files=blobs, what=what)
    entries = {name: _entry(b) for name, b in blobs.items()}
    d.parent.mkdir(parents=True, exist_ok=True)
    _clean_stale(d)
    tmp, lock = None, None
    ours = [True]  # tmp holds only what this call wrote (after an exchange: the earlier output)
    try:
        tmp = _temp_dir(d)
        lock = _lock(tmp)
        (tmp / MARKER).write_bytes(_encode({}, entries, kind=what))
        for name, blob in blobs.items():
            (tmp / name).write_bytes(blob)
        (tmp / MARKER).write_bytes(_encode(entries, kind=what))  # written last
        _put_in_place(given, d, tmp, blobs, entries, ours, what)
    except OSError as exc:  # named by --out as given, never by the hidden temporary directory
        if exc.filename == given:
            raise OutputError(exc.errno, exc.strerror, given) from exc
        raise OutputError(exc.errno, f"{exc.strerror} (writing the {what})", given) from None
    finally:
        _unlock(lock)
        if ours[0] and tmp is not None and tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return d


def _put_in_place(
    given: str,
    d: Path,
    tmp: Path,
    blobs: dict[str, bytes],
    entries: dict[str, Entry],
    ours: list[bool],
    what: str,
) -> None:
    """Put the finished ``tmp`` in ``d``'s place; ``ours[0]`` False once ``tmp`` holds more than it wrote."""
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp's 0700 would hide the output from others
    try:
        os.rename(tmp, d)  # d absent or empty: one step
        ours[0] = False
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    s = _surveyed(given, d, blobs, what)
    assert s is not None  # (None only for an absent d)
    if s.listed is None or s.others:
        _write_in_place(given, d, tmp, blobs, entries, s, what)
        return
    if _exchange(tmp, d):  # tmp now holds the earlier output
        ours[0] = False
        left = _remove_owned(tmp)
        _say_kept(given, left, what, f"; they are in {tmp}, where the earlier {what} was moved")
        return
    old = _temp_dir(d, ".old")
    prev = old / "report"
    try:
        os.rename(d, prev)
    except BaseException:
        os.rmdir(old)
        raise
    try:
        os.rename(tmp, d)
        ours[0] = False
    except BaseException:
        try:
            os.rename(prev, d)
        except OSError as exc:  # keep it where it is, and say where
            raise OutputError(exc.errno, f"{exc.strerror}; the earlier {what} is in {prev}", given) from exc
        os.rmdir(old)
        raise
    left = _remove_owned(prev)
    if not left:
        with suppress(OSError):
            os.rmdir(old)
    _say_kept(given, left, what, f"; they are in {prev}, where the earlier {what} was moved")


def _surveyed(given: str, d: Path, files: Iterable[str], what: str) -> _Survey | None:
    """The survey of the directory ``d`` (None if absent), once it may take the ``what`` of ``files``."""
    if not d.is_dir():
        return None
    try:
        s = _survey(d)
    except OSError as exc:
        raise InputError(f"{given}: cannot read the directory ({exc.strerror})") from None
    if not s.empty and s.listed is None:
        raise _not_a_report(given, d, s, what)
    if s.listed is not None and s.kind != what:  # an earlier output of another command
        raise InputError(
            f"{given}: an earlier irrepro {s.kind} (so its manifest says), not a {what}: irrepro replaces an "
            f"output only with one of the same command; give another --out (or remove the {s.kind} yourself)"
        )
    kept = {k.rstrip("/") for k in s.kept()}
    hit = sorted(n for n in files if n in kept)
    if hit:
        raise InputError(
            f"{given}: the {what} would overwrite {', '.join(hit)}, which irrepro did not write or which "
            "changed since it did; move them away, or give another --out"
        )
    return s


def _write_in_place(
    given: str, d: Path, tmp: Path, blobs: dict[str, bytes], entries: dict[str, Entry], s: _Survey, what: str
) -> None:
    """Move the new files one by one into ``d``, beside files irrepro leaves, under a ``pending`` manifest."""
    interim = tmp / (MARKER + ".interim")
    interim.write_bytes(_encode(s.owned, entries, kind=what))
    os.replace(interim, d / MARKER)
    for name in blobs:
        os.replace(tmp / name, d / name)
    for name, e in s.owned.items():
        if name not in blobs and _file_entry(d / name, e[0]) == e:
            (d / name).unlink()
    os.replace(tmp / MARKER, d / MARKER)  # the final manifest, last
    _say_kept(given, s.kept(), what)
