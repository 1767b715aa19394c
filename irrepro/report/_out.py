"""The report's output directory: what irrepro may write, replace and remove there (issue 26).

**Ownership, not guesses.** irrepro deletes or overwrites only files it wrote and can prove it
wrote. Every report directory holds the marker file ``.irrepro-report``: a JSON manifest of every
file of the report with its size and sha256, written last. A later report into the same ``--out``

* replaces or removes a file only if the manifest lists it and its content still matches (a
  regular file, not a link, of the listed size and sha256);
* leaves everything else in place - a file of the user's, a subdirectory, a listed file changed
  since - and says so in a warning naming them;
* refuses, before any analysis, when one of the new report's files would overwrite such a file
  (naming it), and when the directory is not empty and holds no valid manifest: an empty
  ``.irrepro-report``, one written by irrepro before 0.2 (no manifest), or a copied report's
  ``index.html`` titled "irrepro report" prove nothing, so nothing there is touched.

**Atomic where it can be.** The files are written into a hidden temporary sibling
``.NAME.XXXXXXXX.tmp`` first. A new or empty ``--out`` is that sibling renamed; an earlier report
holding only its own files is exchanged with it in one step (Linux ``renameat2``; elsewhere two
renames, the earlier report put back if the second fails) and then removed file by file, by its
manifest. Only where ``--out`` also holds files of the user's are the new files moved in one by one
(each move atomic; the manifest, written last, first lists old and new files as ``pending`` so
that a run killed half-way leaves nothing unprovable).

**Leftovers.** A temporary sibling of an earlier run that was killed (older than this process and
not locked by a running one) is removed by the same manifest rule; what cannot be proven irrepro's
is named in a warning, never deleted.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterable
from pathlib import Path

from .._text import few, shown
from ..data._files import _umask
from ..errors import InputError, OutputError

# the manifest that proves which files irrepro wrote, and the temporary siblings' locks and leftovers
from ._manifest import (
    _TEMP_EXTRA,
    MARKER,
    REPORT_FILES,
    Entry,
    _clean_stale,
    _entry,
    _file_entry,
    _lock,
    _remove_owned,
    _Survey,
    _survey,
    _unlock,
    _valid_name,
    _write_marker,
)

__all__ = ["MARKER", "REPORT_FILES", "check_out", "write_dir"]

# --------------------------------------------------------------------------------------------
# the checks, before any work
# --------------------------------------------------------------------------------------------


def _out_path(out: str | Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(os.fspath(out))))


def _check_inputs(given: str, d: Path, inputs: Iterable[str | Path]) -> None:
    """``out`` is none of ``inputs``, holds none of them, and is no file of an input directory
    (a run file). A new directory inside the runs directory is allowed: the runs are its
    visible files only (:func:`irrepro.data.run_files`), so a report there is never read as one."""
    rd = d.resolve()
    for p in inputs:
        try:
            if not isinstance(p, (str, os.PathLike)) or not Path(p).expanduser().exists():
                continue  # an ir_datasets id, a collection name, a Qrels object: no path
        except (OSError, ValueError):  # not a path this system can have
            continue
        rp = Path(p).expanduser().resolve()
        kind = "directory" if rp.is_dir() else "file"
        if rd == rp:
            raise InputError(f"{given}: --out is the input {kind} {p}; give another directory for the report")
        if rp.is_relative_to(rd):
            raise InputError(f"{given}: --out contains the input {kind} {p}; give a directory for the report "
                             "that holds none of the inputs")  # fmt: skip
        if rp.is_dir() and rd.parent == rp and os.path.lexists(rd) and not rd.is_dir():
            raise InputError(f"{given}: --out is a file of the input directory {p}; give a directory for the "
                             "report")  # fmt: skip


def _check_length(given: str, d: Path, base: Path) -> None:
    try:
        name_max = os.pathconf(base, "PC_NAME_MAX")
        path_max = os.pathconf(base, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        name_max, path_max = 255, 4096
    for part in d.relative_to(base).parts:
        if len(os.fsencode(part)) > name_max:
            raise InputError(f"{given}: the name {part[:40]!r}... has {len(os.fsencode(part))} bytes, more "
                             f"than the {name_max} a file name may have here; give a shorter --out")  # fmt: skip
    n = len(os.fsencode(d.name)) + _TEMP_EXTRA
    if n > name_max:
        raise InputError(
            f"{given}: the name is too long: the report is written first into a hidden sibling "
            f"'.NAME.XXXXXXXX.tmp' of {n} bytes, more than the {name_max} a file name may have here; give a "
            f"--out whose last part has at most {name_max - _TEMP_EXTRA} bytes"
        )
    longest = d.parent / ("." + d.name + ".XXXXXXXX.tmp") / ("x" * 64)
    if len(os.fsencode(str(longest))) >= path_max:
        raise InputError(f"{given}: the path is too long (the report's files would exceed the {path_max} bytes "
                         "a path may have here); give a shorter --out")  # fmt: skip


def _not_a_report(given: str, d: Path, s: _Survey) -> InputError:
    index = d / "index.html"
    try:
        titled = index.is_file() and "<title>irrepro report" in index.read_text(errors="replace")[:4000]
    except OSError:
        titled = False
    what = few(s.kept()) or f"nothing but {MARKER}"
    if os.path.lexists(d / MARKER):
        why = (f"{s.reason}, so irrepro cannot tell which of its files it wrote ({what}); it deletes only "
               "what it can prove it wrote, and will not write here")  # fmt: skip
    elif titled:
        why = (f"it holds an index.html titled 'irrepro report' but no {MARKER} manifest listing the files "
               "irrepro wrote (a copied report, or one written before irrepro 0.2); irrepro deletes only "
               "what it can prove it wrote, and will not write here")  # fmt: skip
    else:
        return InputError(f"{given}: not an irrepro report (no {MARKER} file) and not empty; refusing to overwrite "
                          "it: give a new or empty directory as --out")  # fmt: skip
    return InputError(f"{given}: not an earlier irrepro report: {why}: give a new or empty directory as --out "
                      "(or, if it is an old report of yours, remove it yourself)")  # fmt: skip


def _conflicts(given: str, s: _Survey, names: Iterable[str]) -> None:
    kept = {k.rstrip("/") for k in s.kept()}
    hit = sorted(n for n in names if n in kept)
    if hit:
        raise InputError(
            f"{given}: the report would overwrite {', '.join(hit)}, which irrepro did not write or which "
            "changed since it did; move them away, or give another --out"
        )


def check_out(
    out: str | Path, *, inputs: Iterable[str | Path] = (), files: Iterable[str] | None = None
) -> Path:
    """Check, before any work, that a report can be written to ``out``; returns it (absolute).

    Parameters
    ----------
    out : str or Path
        The report's directory, as the user gave it (``--out``); every error names it.
    inputs : iterable of paths, optional
        The inputs of the report (the runs directory, the qrels file); ``out`` may be none of
        them, hold none, nor be a file of an input directory (a new directory inside the runs
        directory is fine: only its visible files are runs). Names that are no path are skipped.
    files : iterable of str, optional
        The names of the files the report will write (default :data:`REPORT_FILES`): none may
        overwrite a file irrepro cannot prove it wrote.

    Returns
    -------
    Path
        ``out``, absolute.

    Raises
    ------
    irrepro.InputError
        ``out`` is a symbolic link, a file, the root, an input, a file of an input directory, or
        holds an input; its name
        (or that of the hidden temporary sibling ``.NAME.XXXXXXXX.tmp``) is too long; it is a
        non-empty directory without a valid manifest (not an earlier report: nothing is deleted
        there); a file of the new report would overwrite one irrepro did not write; it is not
        writable, or cannot be created (no write permission on its parent, a parent that is a
        file).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from irrepro import report
    >>> tmp = tempfile.TemporaryDirectory()
    >>> d = Path(tmp.name).resolve()
    >>> report.check_out(d / "my-report") == d / "my-report"  # new: the report may go there
    True
    >>> (d / "notes.txt").write_text("mine")
    4
    >>> report.check_out(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    irrepro.errors.InputError: ...: not an irrepro report (no .irrepro-report file) and not empty; ...
    >>> tmp.cleanup()
    """
    given = os.fspath(out)
    if not str(given).strip():  # Path("") is ".": the working directory, which the user did not name
        raise InputError("--out is empty: give a directory for the report")
    d = _out_path(out)
    if d == d.parent:
        raise InputError(f"{given}: --out is the root directory; give a directory for the report")
    base = d.parent
    while not os.path.lexists(base):  # (False, not an error, for a name too long)
        base = base.parent
    _check_length(given, d, base)  # first: a name too long fails every other test with ENAMETOOLONG
    if d.is_symlink():
        raise InputError(
            f"{given}: --out is a symbolic link (to {os.readlink(d)}); irrepro replaces the directory --out "
            "names and does not write through a link: give the directory itself, or a new name"
        )
    _check_inputs(given, d, inputs)
    if d.exists() and not d.is_dir():
        raise InputError(f"{given}: --out names a file, not a directory for the report")
    if not base.is_dir():
        raise InputError(f"{given}: cannot create the report there, {base} is a file")
    if d.is_dir():
        try:
            s = _survey(d)
        except OSError as exc:
            raise InputError(f"{given}: cannot read the directory ({exc.strerror})") from None
        if not s.empty and s.listed is None:
            raise _not_a_report(given, d, s)
        _conflicts(given, s, REPORT_FILES if files is None else files)
        if not os.access(d, os.W_OK | os.X_OK):
            raise InputError(
                f"{given}: the directory is not writable (mode {d.stat().st_mode & 0o777:o}); refusing to "
                "replace it: make it writable, or give another --out"
            )
    try:  # the one reliable test of writability: make (and remove) a sibling directory
        probe = tempfile.mkdtemp(dir=base, prefix=".irrepro-probe-")
        os.rmdir(probe)
    except OSError as exc:
        raise InputError(f"{given}: cannot write the report there ({base}: {exc.strerror})") from None
    return d


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not
    available (other systems, old kernels, some file systems)."""
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


def _say_kept(given: str, kept: list[str], where: str = "") -> None:
    if kept:
        warnings.warn(
            f"{given}: left in place, not written by irrepro or changed since it wrote them: {few(kept, 8)}"
            + where, stacklevel=4)  # fmt: skip


def write_dir(d: Path, files: dict[str, str], given: str | Path | None = None) -> None:
    """Write ``files`` (name -> text, UTF-8) as the report in the directory ``d``, by the rules of
    this module's docstring: only files irrepro can prove it wrote are replaced or removed.

    Parameters
    ----------
    d : Path
        The report's directory (absolute: :func:`check_out`'s answer).
    files : dict of str to str
        The report's files by name (plain names, no directories).
    given : str or Path, optional
        ``--out`` as the user gave it, for messages (default ``d``).

    Raises
    ------
    irrepro.InputError
        ``d`` is not empty and holds no manifest, or a file would overwrite one irrepro did not
        write (checked again here: the directory may have changed since :func:`check_out`).
    OSError
        Writing failed (e.g. a full disk); an earlier report is left as it was, and the message
        names ``given``, not the temporary directory.
    """
    given = os.fspath(given if given is not None else d)
    blobs = {name: shown(text).encode("utf-8") for name, text in files.items()}  # a non-UTF-8 path as \xNN
    bad = [n for n in blobs if not _valid_name(n)]
    if bad:
        raise InputError(f"report file names must be plain names, not {bad}")
    entries = {name: _entry(b) for name, b in blobs.items()}
    d.parent.mkdir(parents=True, exist_ok=True)
    _clean_stale(d)
    _survey_for_write(given, d, blobs)
    try:
        tmp = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}.", suffix=".tmp"))
    except OSError as exc:
        raise OutputError(
            exc.errno, f"{exc.strerror} (creating the report's temporary directory)", given
        ) from None
    lock = _lock(tmp)
    ours = [True]  # tmp holds only what this call wrote (after an exchange: the earlier report)
    try:
        try:
            _write_marker(tmp / MARKER, {}, pending=entries)
            for name, blob in blobs.items():
                (tmp / name).write_bytes(blob)
            _write_marker(tmp / MARKER, entries)  # written last
        except OSError as exc:
            raise OutputError(exc.errno, f"{exc.strerror} (writing the report)", given) from None
        try:
            _put_in_place(given, d, tmp, blobs, entries, ours)
        except OSError as exc:  # named by --out as given, never by the hidden temporary directory
            if isinstance(exc, InputError):
                raise
            if exc.filename == given:
                raise OutputError(exc.errno, exc.strerror, given) from exc
            raise OutputError(exc.errno, f"{exc.strerror} (putting the report in place)", given) from None
    finally:
        _unlock(lock)
        if ours[0] and tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _put_in_place(
    given: str, d: Path, tmp: Path, blobs: dict[str, bytes], entries: dict[str, Entry], ours: list[bool]
) -> None:
    """Put the finished report ``tmp`` in ``d``'s place (module docstring); ``ours[0]`` is set
    False the moment ``tmp`` no longer holds only what this process wrote (it must not then be
    removed whole, whatever happens next)."""
    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp's 0700 would hide the report from others
    try:
        os.rename(tmp, d)  # d absent or empty: one step
        ours[0] = False
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    s = _survey_for_write(given, d, blobs)  # d is not empty
    assert s is not None  # (None only for an absent d)
    if not s.only_owned:
        _write_in_place(given, d, tmp, blobs, entries, s)
        return
    if _exchange(tmp, d):  # tmp now holds the earlier report
        ours[0] = False
        left = _remove_owned(tmp)
        _say_kept(given, left, f"; they are in {tmp}, where the earlier report was moved")
        return
    old = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}.", suffix=".old"))
    try:
        os.rename(d, old / "report")
    except BaseException:
        os.rmdir(old)
        raise
    try:
        os.rename(tmp, d)
        ours[0] = False
    except BaseException:
        try:
            os.rename(old / "report", d)
        except OSError as exc:  # keep it where it is, and say where
            raise OutputError(
                exc.errno, f"{exc.strerror}; the earlier report is in {old / 'report'}", given
            ) from exc
        os.rmdir(old)
        raise
    left = _remove_owned(old / "report")
    if not left:
        try:
            os.rmdir(old)
        except OSError:
            pass
    _say_kept(given, left, f"; they are in {old / 'report'}, where the earlier report was moved")


def _survey_for_write(given: str, d: Path, blobs: dict[str, bytes]) -> _Survey | None:
    """The survey of ``d`` (None if absent), refusing what :func:`check_out` refuses."""
    if d.is_symlink() or (d.exists() and not d.is_dir()):
        check_out(given)  # raises, naming the problem
    if not d.is_dir():
        return None
    s = _survey(d)
    if not s.empty and s.listed is None:
        raise _not_a_report(given, d, s)
    _conflicts(given, s, blobs)
    return s


def _write_in_place(
    given: str, d: Path, tmp: Path, blobs: dict[str, bytes], entries: dict[str, Entry], s: _Survey
) -> None:
    """The new files moved one by one from ``tmp`` into ``d``, which also holds what irrepro
    leaves alone: first a manifest listing old and new files (a run killed here leaves only
    files it can prove), then each new file, then the old files not replaced, then the final
    manifest."""
    try:
        interim = tmp / (MARKER + ".interim")
        _write_marker(interim, s.owned, pending=entries)
        os.replace(interim, d / MARKER)
        for name in blobs:
            os.replace(tmp / name, d / name)
        for name, e in s.owned.items():
            if name not in blobs and _file_entry(d / name, e[0]) == e:
                (d / name).unlink()
        os.replace(tmp / MARKER, d / MARKER)  # the final manifest, last
    except OSError as exc:
        raise OutputError(exc.errno, f"{exc.strerror} (writing the report)", given) from None
    _say_kept(given, s.kept())
