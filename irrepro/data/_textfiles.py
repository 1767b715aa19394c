"""Reading TREC text files: the (decompressed) bytes and the helpers of the line-numbered slow
pass that takes over, naming the offending line, whenever the fast columnar pass
(:mod:`irrepro.data._columns`) meets anything unusual. trec_eval's conventions are listed in
:func:`~irrepro.data.load_runs` and :func:`~irrepro.data.load_qrels`."""

from __future__ import annotations

import math
import re
from collections.abc import Generator, Iterator
from pathlib import Path

from ._common import _GRADE_MAX, _GRADE_MIN, DataError

_RUN_LAYOUT = "topic Q0 doc rank score tag"
_QRELS_LAYOUT = "topic iteration doc grade"
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+(?:\.0*)?")
_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")


#: gzip input that decompresses to more than this many times its compressed size (plus
#: :data:`_GZIP_SLACK`) is refused as a decompression bomb: the run files NIST publishes compress
#: 3-6 times (TREC-COVID's 269 gzipped runs: at most 5.2), qrels about as much.
GZIP_MAX_RATIO = 100
_GZIP_SLACK = 1 << 20  # any gzip file may decompress to 1 MiB, whatever its ratio
_PREFIX = 1 << 16  # read first: a NUL byte there rejects a binary (or sparse) file at once
_CHUNK = 1 << 26  # then read (and check) in pieces of this size
_PIECE = 1 << 24  # the pieces of a file read a piece at a time (:func:`_line_pieces`)


def _fspath(path) -> Path:
    """A path given as str, bytes (any name the file system allows) or PathLike."""
    import os

    return Path(os.fsdecode(path)) if isinstance(path, bytes) else Path(path)


def _rereadable(path: Path) -> bool:
    """Whether a file can be read again from its start (a regular file; not a pipe or a FIFO)."""
    import os
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _open_input(path: Path, what: str):
    """``open(path, "rb")`` of anything that can be opened, the user's errors as DataError."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise DataError(path, None, f"{what} file not found") from None
    except IsADirectoryError:
        raise DataError(path, None, f"is a directory, not a {what} file") from None
    except OSError as exc:
        raise DataError(path, None, f"cannot read the {what} file ({exc.strerror or exc})") from exc


def _check_text(piece: bytes, before: int, path, what: str) -> None:
    """Refuse a NUL byte (a binary or sparse file), naming its line (``before``: the lines before ``piece``)."""
    at = piece.find(b"\0")
    if at >= 0:
        line = before + piece.count(b"\n", 0, at) + 1
        raise DataError(path, line, f"NUL byte: this is not a text file (a {what} file is TREC text)")


def _gunzip_pieces(
    head: bytes, f, path, what: str, size: int | None, lines_before, piece_size: int
) -> Iterator[bytes]:
    """The decompressed pieces of the gzip stream ``head`` + ``f``, refused past GZIP_MAX_RATIO times the compressed size plus 1 MiB, or at a NUL byte."""
    try:
        from isal import isal_zlib as zlib
    except ImportError:  # pragma: no cover - isal is a dependency; a platform without its wheel
        import zlib  # type: ignore[no-redef]  # the same interface

    src = head if size is None else head + f.read()  # (a file: its compressed bytes, at once)
    produced, read = 0, len(src)
    # the size its (last) member's trailer states, mod 2**32: a hint for the output buffer (an
    # exact one is as fast as decompressing in one piece), never trusted as a bound
    hint = int.from_bytes(src[-4:], "little") if size is not None and len(src) > 18 else 0

    def bound() -> int:
        return GZIP_MAX_RATIO * (size if size is not None else read) + _GZIP_SLACK

    def more() -> bytes:
        nonlocal read
        b = f.read(_CHUNK)
        read += len(b)
        return b

    d = zlib.decompressobj(31)
    try:
        while True:
            limit = bound() - produced
            # at most one piece at a time, so binary data is refused after one piece, whatever the bound
            want = min(limit, hint - produced if hint > produced else limit, piece_size) + 1
            piece = d.decompress(src, want)
            produced += len(piece)
            if produced > bound():
                raise DataError(
                    path, None, f"gzip data that decompresses to more than {GZIP_MAX_RATIO} times its "
                    f"size (refused as a decompression bomb; real {what} files compress 3-10 times)"
                )  # fmt: skip
            if piece:
                if b"\0" in piece:  # binary data (a gzipped image, zeros): refused now, not once whole
                    _check_text(piece, lines_before(), path, what)
                yield piece
                del piece
            if d.eof:  # the end of a member: another one may follow (``cat a.gz b.gz``)
                src = d.unused_data or more()
                if not src.strip(b"\0"):  # the end (NUL padding after the last member is allowed)
                    break
                d = zlib.decompressobj(31)
                continue
            src = d.unconsumed_tail or more()
            if not src:
                raise EOFError("the stream ends before the end of its last member")
    except (DataError, MemoryError):  # out of memory is not a corrupt file
        raise
    except Exception as exc:  # EOFError, zlib / isal errors
        raise DataError(path, None, f"corrupt or truncated gzip file ({exc})") from exc


def _byte_pieces(path: Path, what: str, piece_size: int, lines_before) -> Iterator[bytes]:
    """The (decompressed) bytes of a file, pipe or FIFO in pieces of about ``piece_size``; DataError if missing, unreadable, binary (``lines_before()``: the lines before a piece), broken gzip or a gzip bomb."""
    import os
    import stat

    with _open_input(path, what) as f:
        try:
            st = os.fstat(f.fileno())
            size = st.st_size if stat.S_ISREG(st.st_mode) else None
            head = f.read(_PREFIX)
            if head[:2] == b"\x1f\x8b":
                yield from _gunzip_pieces(head, f, path, what, size, lines_before, piece_size)
            else:
                yield from _plain_pieces(head, f, path, what, size, lines_before, piece_size)
        except OSError as exc:
            raise DataError(path, None, f"cannot read the {what} file ({exc.strerror or exc})") from exc


def _read_bytes(path: Path, what: str) -> bytes | bytearray:
    """The bytes of :func:`_byte_pieces` as one, read in pieces of ``_CHUNK``; DataError also if empty."""
    raw: bytes | bytearray = b""

    def lines_before() -> int:
        return raw.count(b"\n")

    for piece in _byte_pieces(path, what, _CHUNK, lines_before):
        if not raw:
            raw = piece  # (one piece: no copy)
        else:
            raw = raw if isinstance(raw, bytearray) else bytearray(raw)
            raw += piece
    raw = _bom_dropped(raw, True)
    if not raw or raw.isspace():
        raise DataError(path, None, f"empty {what} file")
    return raw


def _line_pieces(
    path: Path, what: str, piece_size: int | None = None
) -> Generator[bytes | bytearray, None, None]:
    """The bytes of :func:`_byte_pieces` as pieces of about ``piece_size`` ending at line ends, DataError also if empty."""
    piece_size = _PIECE if piece_size is None else piece_size  # (read when called: the tests make it small)
    parts: list[bytes] = []  # read, not given yet
    n_parts = given_lines = 0  # bytes in parts; lines in the pieces given (each ends a line)

    def lines_before() -> int:
        return given_lines + sum(p.count(b"\n") for p in parts)

    for chunk in _byte_pieces(path, what, piece_size, lines_before):
        parts.append(chunk)
        n_parts += len(chunk)
        del chunk
        if n_parts >= piece_size and any(b"\n" in p for p in parts):
            whole = _bom_dropped(bytearray().join(parts), given_lines == 0)
            cut = whole.rfind(b"\n") + 1
            parts = [bytes(memoryview(whole)[cut:])]
            n_parts = len(parts[0])
            del whole[cut:]
            given_lines += whole.count(b"\n")
            yield whole
            del whole
    last = _bom_dropped(parts[0] if len(parts) == 1 else b"".join(parts), given_lines == 0)
    parts = []
    if given_lines == 0 and (not last or last.isspace()):
        raise DataError(path, None, f"empty {what} file")
    if last:
        yield last


def _bom_dropped(data, at_start: bool):
    """``data`` without a UTF-8 byte order mark at its start, when it is the start of the file."""
    return data[3:] if at_start and data[:3] == b"\xef\xbb\xbf" else data


def _plain_pieces(
    head: bytes, f, path, what: str, size: int | None, lines_before, piece_size: int
) -> Iterator[bytes]:
    """The bytes of an uncompressed file (first bytes ``head``) in pieces of ``piece_size``, each checked for a NUL byte."""
    _check_text(head, 0, path, what)
    if size is not None and len(head) < size <= piece_size:  # read again from the start: one piece
        f.seek(0)
        head = f.read(size + 1)
        _check_text(head, 0, path, what)
    piece = head
    while piece:
        yield piece
        del piece
        piece = f.read(piece_size)
        if b"\0" in piece:
            _check_text(piece, lines_before(), path, what)


def _text(value: bytes, path, line: int, what: str) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(path, line, f"{what} {value!r} is not UTF-8 text") from None


def _slow_pass(data: bytes | bytearray, path, what: str, value, duplicate: str) -> tuple[list, list, list]:
    """The line-numbered slow pass: topic ids, doc ids and ``value(fields, line)`` of every data line, the first bad line named (``duplicate``: what a repeated (topic, doc) pair is called)."""
    layout = _RUN_LAYOUT if what == "run" else _QRELS_LAYOUT
    n = len(layout.split())  # (a run line may have more fields, a qrels line not)
    topics, docs, values = [], [], []
    first: dict[tuple[bytes, bytes], int] = {}
    for i, line in enumerate(bytes(data).split(b"\n"), 1):  # (bytes: a bytearray's fields are unhashable)
        f = line.split()
        if not f or f[0].startswith(b"#"):  # blank and comment lines, as trec_eval skips them
            continue
        if len(f) < n or (len(f) > n and what == "qrels"):
            more = "at least " if what == "run" else ""
            raise DataError(
                path, i, f"malformed {what} line: expected {more}{n} fields, found {len(f)} (a {what} line is: {layout})"
            )  # fmt: skip
        t, d = _text(f[0], path, i, "topic id"), _text(f[2], path, i, "document id")
        v = value(f, i)
        key = (f[0], f[2])
        if key in first:
            raise DataError(
                path, i, f"duplicate {duplicate} {d!r} in topic {t!r} (first at line {first[key]})"
            )
        first[key] = i
        topics.append(t)
        docs.append(d)
        values.append(v)
    if not topics:
        raise DataError(path, None, f"empty {what} file (only blank or comment lines)")
    return topics, docs, values


def _parse_score(value: bytes, path, line: int) -> float:
    if _NUMBER.fullmatch(value):
        x = float(value)
        if math.isfinite(x):
            return x
    raise DataError(path, line, f"score {value.decode('utf-8', 'replace')!r} is not a finite number")


def _parse_grade(value: bytes, path, line: int) -> int:
    if not _INTEGER.fullmatch(value):
        raise DataError(path, line, f"relevance grade {value.decode('utf-8', 'replace')!r} is not an integer")
    g = int(value.split(b".")[0])
    if not _GRADE_MIN <= g <= _GRADE_MAX:
        raise DataError(
            path, line, f"relevance grade {value.decode()!r} does not fit 32 bits "
            f"({_GRADE_MIN}..{_GRADE_MAX})"
        )  # fmt: skip
    return g
