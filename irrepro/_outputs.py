"""What irrepro may write, replace and remove where a command writes the user's outputs (``report``
and ``design --out DIR``, ``compare --methods-file``, ``standardize --export-zscores``), checked
before any work and again when writing: never over or into an input; replace or remove only what a
manifest (:mod:`irrepro._manifest`) proves irrepro wrote, naming the rest; never through a link;
every name the system takes; atomic where it can be (a hidden temporary sibling renamed or
exchanged into place; beside the user's files, moved in one by one under a ``pending`` manifest).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import stat
import tempfile
import warnings
from collections.abc import Iterable, Mapping
from contextlib import suppress
from pathlib import Path

from ._manifest import (
    MARKER,
    RECORD,
    Entry,
    _clean_stale,
    _encode,
    _entry,
    _file_entry,
    _lock,
    _name_max,
    _read_manifest,
    _record,
    _recorded,
    _remove_owned,
    _replace,
    _stem,
    _Survey,
    _survey,
    _temp_dir,
    _unlock,
    _valid_name,
    temp_stem,
)
from ._text import few, shown
from .data._fetch import _umask
from .errors import InputError, OutputError

__all__ = ["check_dir", "check_file", "write_dir", "write_file"]

# --------------------------------------------------------------------------------------------
# the checks, before any work
# --------------------------------------------------------------------------------------------


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
    try:
        path_max = os.pathconf(base, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        path_max = 4096
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


def _read_only(d: Path) -> bool:
    try:
        return bool(os.statvfs(d).f_flag & getattr(os, "ST_RDONLY", 1))
    except OSError:
        return False


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
            why = ("it is on a read-only file system" if _read_only(d) else
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
    if os.path.lexists(d) and not _recorded(d.parent, d.name):
        kind = _listed_by(d)
        if kind:
            raise InputError(f"{given}: a file of an irrepro {kind} (its {MARKER} lists it), which irrepro replaces "
                             f"only as a whole; give another {option}")  # fmt: skip
        raise InputError(
            f"{given}: the file exists and irrepro did not write it (or it changed since): irrepro overwrites "
            f"only files it wrote, as the record {RECORD} beside them proves; move it away, or give another "
            f"{option}"
        )
    _probe(given, base, "file")
    return d


def _listed_by(path: Path) -> str:
    """The kind of irrepro output directory whose manifest lists ``path`` ("" for none)."""
    m = _read_manifest(path.parent)
    return m.kind if m.listed is not None and path.name in m.listed else ""


def _stream(d: Path) -> bool:
    """Whether ``d`` leads, through any links, to a character device, a pipe or a socket (written through)."""
    try:
        mode = os.stat(d).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


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
    if not s.only_owned:
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
