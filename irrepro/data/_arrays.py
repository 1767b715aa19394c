"""numpy and pyarrow arrays as each other, without pandas (which ``pyarrow.array`` and pyarrow's
own ``to_numpy`` import, and which reading and evaluating runs do without)."""

from __future__ import annotations

from typing import Any

import numpy as np


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
