"""The fast columnar pass over a TREC text file (pyarrow's CSV reader; the slow pass of
:mod:`._textfiles` takes over at anything unusual) and its columns as numpy arrays, without pandas."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ._common import _n_threads, _release_memory
from ._textfiles import _TO_SPACE


def _np(arr, dtype) -> np.ndarray:
    """A numpy view (no copy) of a primitive pyarrow (Chunked)Array without nulls, without importing pandas."""
    import pyarrow as pa

    dt = np.dtype(dtype)
    if isinstance(arr, pa.ChunkedArray):
        parts = [_np(c, dt) for c in arr.chunks]
        return parts[0] if len(parts) == 1 else (np.concatenate(parts) if parts else np.zeros(0, dt))
    if arr.null_count:
        raise ValueError("_np needs an array without nulls")
    if len(arr) == 0:
        return np.zeros(0, dt)
    return np.frombuffer(arr.buffers()[1], dtype=dt, count=len(arr), offset=arr.offset * dt.itemsize)


def _np_bool(arr) -> np.ndarray:
    """A numpy bool copy of a pyarrow (Chunked) BooleanArray without nulls."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        parts = [_np_bool(c) for c in arr.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)
    if arr.null_count:
        raise ValueError("_np_bool needs an array without nulls")
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
    return np.unpackbits(bits, count=arr.offset + len(arr), bitorder="little")[arr.offset :].view(bool)


def _np_filled(arr, dtype, fill) -> np.ndarray:
    """A numpy copy of a primitive pyarrow (Chunked)Array, ``fill`` where it is null, without importing pandas."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        out, a = np.empty(len(arr), dtype=dtype), 0
        for c in arr.chunks:
            out[a : a + len(c)] = _np_filled(c, dtype, fill)
            a += len(c)
        return out
    dt = np.dtype(dtype)
    if len(arr) == 0:
        return np.zeros(0, dt)
    values = np.frombuffer(arr.buffers()[1], dtype=dt, count=len(arr), offset=arr.offset * dt.itemsize).copy()
    if arr.null_count:
        bits = np.frombuffer(arr.buffers()[0], dtype=np.uint8)
        valid = np.unpackbits(bits, count=arr.offset + len(arr), bitorder="little")[arr.offset :].astype(bool)
        values[~valid] = fill
    return values


def _pa_view(values: np.ndarray):
    """A pyarrow array sharing a contiguous 1-d numpy array's memory, without importing pandas."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    data = pa.py_buffer(values)  # type: ignore[arg-type]  # (the stubs know no numpy array: a buffer)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, data])


def _strings(arr) -> np.ndarray:
    """An object array of the Python strings of a pyarrow string array."""
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out


def _pa_strings(values) -> Any:
    """A pyarrow string array of a sequence of str."""
    import pyarrow as pa

    text = "".join(values)
    if text.isascii():  # (a character a byte: no bytes object per string)
        data, sizes = text.encode("ascii"), map(len, values)
    else:
        parts = [s.encode("utf-8") for s in values]
        data, sizes = b"".join(parts), map(len, parts)
    del text
    ends = np.fromiter(sizes, dtype=np.int64, count=len(values)).cumsum()
    large = len(data) >= 1 << 31
    offsets = np.r_[0, ends].astype(np.int64 if large else np.int32)
    kind = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _fast_table(
    data: bytes | bytearray, ncols: int, types: dict, extra_empty: bool, lean: tuple = (), pool=None
):
    """The fast columnar pass: a pyarrow table (columns c0.., ``lean`` columns left out and a constant last field in its metadata) of the file's data lines, or None when anything is unusual (then the slow pass reads the file)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not data.isascii():  # invalid UTF-8: the slow pass names the line
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    # delimiter: that of the first data line
    lines = data[: 1 << 16].split(b"\n")
    sample = next((x for x in lines if x.strip() and not x.lstrip().startswith(b"#")), b"")
    delim = b"\t" if b"\t" in sample else b" "
    other = b" " if delim == b"\t" else b"\t"
    odd = (
        other in data
        or b"\x0b" in data
        or b"\x0c" in data
        or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n"))
        or (delim == b" " and b"  " in data)
    )
    if odd:  # one space between fields, none at the ends of lines
        data = re.sub(rb" {2,}", b" ", data.translate(_TO_SPACE))
        data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n").removeprefix(b" ")
        sample = re.sub(rb" {2,}", b" ", sample.translate(_TO_SPACE)).strip()
        delim = b" "
    first = sample.rstrip(b"\r").split(delim)
    width = max(ncols, len(first))
    regular = bool(lean) and len(first) == ncols and b"#" not in data and not _has_pair(data, delim[0])
    skip, last = lean if regular else ((), None)
    const = first[last] if last is not None else None
    rows: list[bytes] = []
    failed: list[bool] = []
    ending = [0]  # lines split trec_eval's way that end with the constant last field

    def invalid(row) -> str:
        text = row.text.encode("utf-8", "surrogateescape")
        fields = text.split()
        if not fields or fields[0].startswith(b"#"):
            return "skip"  # blank or comment line
        if len(fields) == ncols or (len(fields) > ncols and not extra_empty):
            rows.append(b"\t".join(fields[:ncols]))
            if const is not None and text.rstrip(b"\r").endswith(delim + const):
                ending[0] += 1
        else:
            failed.append(True)
        return "skip"

    keep = [f"c{i}" for i in range(ncols) if i not in skip and i != last]
    extra = [f"c{i}" for i in range(ncols, width)] if extra_empty else []
    table = _csv(data, delim, width, types, keep + extra, invalid, pool)
    if table is None or failed:
        return None
    for name in extra:  # trailing whitespace only
        d, _ = _dict_parts(table.column(name))
        if len(d) > 1 or (len(d) == 1 and d[0].as_py() != ""):
            return None
    table = table.select(keep)
    if const is not None:  # every line read by pyarrow ends with the same last field?
        n = data.count(delim + const + b"\n") + (data.count(delim + const + b"\r\n") if b"\r" in data else 0)
        n += data.endswith(delim + const) or data.endswith(delim + const + b"\r")
        if n - ending[0] != table.num_rows:
            return None
    if rows:  # the lines split trec_eval's way, read as tab-separated text
        more = _csv(b"\n".join(rows), b"\t", ncols, types, keep + ([f"c{last}"] if last is not None else []), None,
                    pool)  # fmt: skip
        if more is None:
            return None
        if last is not None:
            if not pc.all(pc.equal(more.column(f"c{last}"), pa.scalar(const, pa.binary()))).as_py():
                return None
            more = more.select(keep)
        table = pa.concat_tables([table, more])
    for c in table.column("c0").chunks:  # a comment line that happens to have ncols fields
        if pc.any(pc.starts_with(c.dictionary, "#")).as_py():
            return None
    for name in keep:
        col = table.column(name)
        if col.null_count:
            return None
        if pa.types.is_dictionary(col.type):
            if any(len(c.dictionary) and _min_length(c.dictionary) == 0 for c in col.chunks):
                return None  # an empty field: two delimiters in a row
        elif pa.types.is_binary(col.type) and len(col) and _min_length(col) == 0:
            return None
    if const is not None:
        table = table.replace_schema_metadata({b"constant": const})
    return table


def _has_pair(data: bytes | bytearray, byte: int) -> bool:
    """Whether ``data`` holds two ``byte`` in a row (numpy on 16-bit words)."""
    pair = byte * 257
    step = 1 << 22  # in blocks (overlapping by a byte): a few MB of temporaries, whatever the size
    for a in range(0, max(len(data) - 1, 0), step):
        block = memoryview(data)[a : a + step + 1]
        even = np.frombuffer(block, dtype=np.uint16, count=len(block) // 2)
        odd = np.frombuffer(block, dtype=np.uint16, count=(len(block) - 1) // 2, offset=1)
        if (even == pair).any() or (odd == pair).any():
            return True
    return False


def _csv(
    data: bytes | bytearray, delim: bytes, width: int, types: dict, include: list[str], invalid, pool=None
):
    """pyarrow's CSV reader on ``data`` (no quoting; columns c0..c{width-1}, ``types`` by number, others dictionary strings); None if it fails."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    dict_t = pa.dictionary(pa.int32(), pa.string())
    col_types = {f"c{i}": types.get(i, dict_t) for i in range(width)}
    try:
        return pcsv.read_csv(
            pa.py_buffer(data),  # type: ignore[arg-type]  # a Buffer is a readable input to pyarrow
            memory_pool=pool,
            read_options=pcsv.ReadOptions(
                # one thread: with threads, pyarrow parses blocks ahead of their conversion (a
                # 266 MB run: 300 MB more at the peak); the runs are read in threads anyway
                column_names=[f"c{i}" for i in range(width)], use_threads=False, block_size=1 << 22,
            ),
            parse_options=pcsv.ParseOptions(
                delimiter=delim.decode(), quote_char=False, double_quote=False, escape_char=False,
                newlines_in_values=False, ignore_empty_lines=True, invalid_row_handler=invalid,
            ),
            convert_options=pcsv.ConvertOptions(
                column_types=col_types, include_columns=include, strings_can_be_null=False
            ),
        )  # fmt: skip
    except (pa.ArrowException, UnicodeDecodeError):
        return None


def _min_length(arr) -> int:
    import pyarrow.compute as pc

    return int(pc.min(pc.binary_length(arr)).as_py())


def _dict_parts(col, by_sorting: bool = False) -> tuple:
    """(dictionary in order of first occurrence, int32 indices) of a dictionary-typed array or list of chunks (emptied as merged); ``by_sorting``: merged by sorting, in byte order, for less memory."""
    import pyarrow as pa

    # (type: ignore below: the stubs know no dictionary-typed (Chunked)Array, whose parts these are)
    if not isinstance(col, (list, pa.ChunkedArray)):
        return col.dictionary, _np(col.indices, np.int32)
    chunks: list[Any] = col if isinstance(col, list) else col.chunks
    if len(chunks) == 1:
        c = chunks.pop()
        return c.dictionary, _np(c.indices, np.int32)
    if not chunks:
        return pa.array([], pa.string()), np.zeros(0, dtype=np.int32)
    if all(_same_array(c.dictionary, chunks[0].dictionary) for c in chunks[1:]):
        # one dictionary shared by every chunk (``ChunkedArray.dictionary_encode`` makes it)
        idx = np.concatenate([_np(c.indices, np.int32) for c in chunks])
        return chunks[0].dictionary, idx
    if not by_sorting:
        col = pa.table({"c": pa.chunked_array(chunks)}).unify_dictionaries().column(0).combine_chunks()  # type: ignore[dict-item]
        return col.dictionary, _np(col.indices, np.int32)
    dicts, indices = [c.dictionary for c in chunks], [c.indices for c in chunks]
    chunks.clear()
    sizes = [len(d) for d in dicts]
    uniq, codes = _sorted_union(dicts)
    idx, a, start = np.empty(sum(len(i) for i in indices), dtype=np.int32), 0, 0
    for k, size in enumerate(sizes):
        i, indices[k] = _np(indices[k], np.int32), None
        idx[a : a + len(i)] = codes[start : start + size][i]
        a, start = a + len(i), start + size
    return uniq, idx


def _sorted_union(arrays: list) -> tuple:
    """(dictionary in byte order, int32 codes) of pyarrow string arrays taken as one, by sorting; ``arrays`` is emptied once joined."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # one array (a take from several chunks joins them anew every time)
    values = arrays[0] if len(arrays) == 1 else pa.concat_arrays(arrays)
    arrays.clear()
    _release_memory()  # (the C heap keeps what the parts freed otherwise)
    n = len(values)
    at = _np(pc.sort_indices(values), np.uint64).astype(np.uint32 if n < (1 << 32) else np.uint64)
    new = np.ones(n, dtype=bool)  # where the sorted values change
    step = 1 << 16  # (compared a block at a time: a MB or two, not a sorted copy of all)
    for a in range(0, max(n - 1, 0), step):
        b = min(n, a + step + 1)
        block = values.take(_pa_view(at[a:b]))
        new[a + 1 : b] = _np_bool(pc.not_equal(block.slice(1), block.slice(0, b - a - 1)))
        del block
    codes = np.empty(n, dtype=np.int32)
    codes[at] = np.cumsum(new, dtype=np.int32) - 1
    first = at[new]
    del at, new
    return values.take(_pa_view(first)), codes


def _ascending(arr) -> bool:
    """Whether a pyarrow string array is in strictly ascending byte order (sorted, no repeats)."""
    import pyarrow.compute as pc

    n = len(arr)
    return n < 2 or bool(pc.all(pc.greater(arr.slice(1), arr.slice(0, n - 1))).as_py())


def _positions(values, value_set) -> np.ndarray:
    """int32 place of each of ``values`` in ``value_set`` (-1: absent), the hash table made of the smaller of the two."""
    import pyarrow.compute as pc

    if len(value_set) <= len(values):
        return _np_filled(pc.index_in(values, value_set=value_set), np.int32, -1)
    d, idx = _dict_parts(values.dictionary_encode())
    back = _np_filled(pc.index_in(value_set, value_set=d), np.int32, -1)  # each value_set item in d
    found = np.flatnonzero(back >= 0).astype(np.int32)
    place = np.full(len(d), -1, dtype=np.int32)
    place[back[found]] = found
    return place[idx]


def _places(values, keys) -> np.ndarray:
    """int32 place of each of ``values`` in ``keys`` (-1: absent), by :func:`_positions`."""
    import pyarrow as pa

    arrow = (pa.Array, pa.ChunkedArray)
    try:
        v, k = (x if isinstance(x, arrow) else _pa_strings(x) for x in (values, keys))
    except UnicodeEncodeError:  # (a lone surrogate, which no pyarrow string holds: a dict)
        v, k = (x.to_pylist() if isinstance(x, arrow) else x for x in (values, keys))
        pos = {x: i for i, x in enumerate(k)}
        return np.array([pos.get(x, -1) for x in v], dtype=np.int32)
    if v.type != k.type:  # (string and large_string: ids of more than 2 GB)
        v, k = v.cast(pa.large_string()), k.cast(pa.large_string())
    return _positions(v, k)


def _union_dictionary(arrays: list) -> tuple:
    """(dictionary in order of first occurrence, int32 indices) of several pyarrow string arrays taken as one, encoded on one thread per core."""
    import pyarrow as pa

    k = min(_n_threads(len(arrays)), 8)
    if k < 2:
        return _encode(pa.chunked_array(arrays, pa.string()))
    from concurrent.futures import ThreadPoolExecutor

    shares = [arrays[i * len(arrays) // k : (i + 1) * len(arrays) // k] for i in range(k)]
    with ThreadPoolExecutor(k) as ex:  # (pyarrow's kernels release the GIL)
        parts = list(ex.map(lambda a: _encode(pa.chunked_array(a, pa.string())), shares))
    uniq, codes = _encode(pa.chunked_array([d for d, _ in parts], pa.string()))
    starts = np.cumsum([0] + [len(d) for d, _ in parts])
    return uniq, np.concatenate([codes[a:b][i] for (_, i), a, b in zip(parts, starts[:-1], starts[1:])])


def _same_array(a, b) -> bool:
    """``a.equals(b)``, at once when both are views of the same buffers."""
    same = len(a) == len(b) and a.offset == b.offset and all(
        (x is None and y is None) or (x is not None and y is not None and x.address == y.address)
        for x, y in zip(a.buffers(), b.buffers())
    )  # fmt: skip
    return same or a.equals(b)


def _encode(values) -> tuple:
    """(dictionary, int32 indices) of a sequence of strings."""
    import pyarrow as pa

    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, pa.string())
    return _dict_parts(arr.dictionary_encode())


def _hash_strings(arr, salt: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash (uint64) of every string of a pyarrow string array, in blocks, with an optional per-string ``salt``; callers check collisions exactly."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        out, a = np.empty(len(arr), dtype=np.uint64), 0
        for c in arr.chunks:
            out[a : a + len(c)] = _hash_strings(c, None if salt is None else salt[a : a + len(c)])
            a += len(c)
        return out
    n = len(arr)
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out
    ot = np.int64 if arr.type == pa.large_string() else np.int32
    off = np.frombuffer(arr.buffers()[1], dtype=ot, count=n + 1, offset=arr.offset * np.dtype(ot).itemsize)
    data = arr.buffers()[2]
    buf = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(1, np.uint8)
    buf = np.concatenate([buf, np.zeros(8, np.uint8)]) if len(buf) < 8 else buf
    lens = np.diff(off).astype(np.int64)
    mul, gold = np.uint64(0x100000001B3), np.uint64(0x9E3779B97F4A7C15)
    a = 0
    while a < n:
        width = 8 * ((int(lens[a : a + 4096].max()) + 7) // 8) or 8
        b = min(n, a + max(256, (1 << 19) // width))
        width = 8 * ((int(lens[a:b].max()) + 7) // 8) or 8
        cols = np.arange(width, dtype=np.int64)
        pos = off[a:b, None].astype(np.int64) + cols
        inside = cols < lens[a:b, None]
        m = np.where(inside, buf[np.minimum(pos, len(buf) - 1)], 0).astype(np.uint8)
        words = m.view("<u8")
        h = (lens[a:b].astype(np.uint64) + gold) * mul
        if salt is not None:
            h ^= salt[a:b].astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
            h *= mul
        for j in range(words.shape[1]):
            h ^= words[:, j]
            h *= mul
            h ^= h >> np.uint64(29)
        out[a:b] = h
        a = b
    return out


def _duplicate_line(t_idx: np.ndarray, docs) -> int | None:
    """Index of the first line whose (topic, doc) pair occurs on an earlier line, or None (by 64-bit hashes, checked exactly)."""
    n = len(t_idx)
    if n < 2:
        return None
    key = _hash_strings(docs, t_idx)
    key.sort()  # (in place: the lines' order is needed only when two hashes are equal)
    same = key[1:][key[1:] == key[:-1]]
    del key
    if not len(same):
        return None
    rows = np.flatnonzero(np.isin(_hash_strings(docs, t_idx), same))
    seen: set = set()
    for i in rows.tolist():
        pair = (int(t_idx[i]), docs[i].as_py())
        if pair in seen:
            return i
        seen.add(pair)
    return None


def _duplicate_pair(t_idx: np.ndarray, d_idx: np.ndarray, n_docs: int) -> int | None:
    """Index of the first row whose (topic, doc) pair occurs earlier, or None."""
    n = len(t_idx)
    if n < 2:
        return None
    many = np.bincount(d_idx, minlength=n_docs)[d_idx] > 1  # only a doc on several rows can repeat
    if not many.all():
        rows = np.flatnonzero(many)
        first = _duplicate_pair(t_idx[rows], d_idx[rows], n_docs)
        return None if first is None else int(rows[first])
    key = t_idx.astype(np.int64) * max(n_docs, 1) + d_idx
    span = int(key.max()) + 1
    if span <= 64 * n + (1 << 24):  # a byte per possible pair: distinct pairs == rows?
        seen = np.zeros(span, dtype=np.uint8)
        seen[key] = 1
        if int(np.count_nonzero(seen)) == n:
            return None
    order = np.argsort(key, kind="stable")
    ks = key[order]
    same = np.flatnonzero(ks[1:] == ks[:-1])
    return None if len(same) == 0 else int(order[same + 1].min())
