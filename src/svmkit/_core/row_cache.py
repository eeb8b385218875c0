"""Operations on a cache of whole kernel rows (float32, one row per slot).

The loops index with unsigned integers: a signed index gets a wrap-around test
for negative values, which keeps LLVM from vectorising the loop (copy_rows ran
at 5 GB/s instead of 9.4, the weighted row sums five times slower).
"""

import numpy as np
from numba import prange

from ._jit import jit, parallel_jit


@jit
def gather_block(buffer, slots, columns, out, out_rows):
    """``out[out_rows[a], b] = buffer[slots[a], columns[b]]``: rows of the kernel
    sub-matrix of a working set, read from the cache (NumPy's ``np.ix_``
    indexing takes about twice as long)."""
    for a in range(slots.shape[0]):
        source = np.uint64(slots[a])
        target = np.uint64(out_rows[a])
        for b in range(columns.shape[0]):
            out[target, np.uint64(b)] = buffer[source, np.uint64(columns[b])]


@jit
def copy_rows(source, source_rows, out, out_rows, first_column):
    """``out[out_rows[a], first_column:first_column + w] = source[source_rows[a]]`` for a
    ``w``-column ``source``: kernel rows assembled from stored blocks in one pass (NumPy's
    fancy indexing copies twice)."""
    width = source.shape[1]
    first = np.uint64(first_column)
    for a in range(source_rows.shape[0]):
        row = np.uint64(source_rows[a])
        target = np.uint64(out_rows[a])
        for b in range(width):
            out[target, first + np.uint64(b)] = source[row, np.uint64(b)]


_TILE_ROWS = 64  # copy_columns reads tiles of 64 source rows by 16 columns: each tile of the
_TILE_COLUMNS = 16  # source and of ``out`` stays in the first-level cache


@jit
def copy_columns(source, source_columns, out, out_rows, first_column):
    """``out[out_rows[a], first_column:first_column + h] = source[:, source_columns[a]]`` for an
    ``h``-row ``source``: rows of the transposed block without forming the transpose, one
    tile of ``_TILE_ROWS x _TILE_COLUMNS`` source values at a time (usps, the 45 one-vs-one
    problems' 23.7 million values: 28 ms, against 41 ms with tiles of 32 whole source rows;
    tiles of 32 x 32, 64 x 32, 128 x 16: 40, 31 and 30 ms)."""
    height = source.shape[0]
    first = np.uint64(first_column)
    n_columns = source_columns.shape[0]
    for start in range(0, height, _TILE_ROWS):
        base = np.uint64(start)
        count = min(_TILE_ROWS, height - start)
        for tile in range(0, n_columns, _TILE_COLUMNS):
            for a in range(tile, min(tile + _TILE_COLUMNS, n_columns)):
                column = np.uint64(source_columns[a])
                target = np.uint64(out_rows[a])
                for k in range(count):
                    t = base + np.uint64(k)
                    out[target, first + t] = source[t, column]


_CHUNK = 2048  # columns per chunk: a chunk of ``out`` stays in the first-level cache


@jit
def _add_rows_to_chunk(buffer, slots, weights, out, start, stop):
    """``out[start:stop] += sum_k weights[k] * buffer[slots[k], start:stop]``, four
    rows at a time, so that the chunk of ``out`` is loaded and stored once per
    four rows (the loop is bound by memory, not arithmetic)."""
    n_rows = slots.shape[0]
    first = np.uint64(start)
    k = 0
    while k + 4 <= n_rows:
        w0, w1, w2, w3 = weights[k], weights[k + 1], weights[k + 2], weights[k + 3]
        r0, r1 = np.uint64(slots[k]), np.uint64(slots[k + 1])
        r2, r3 = np.uint64(slots[k + 2]), np.uint64(slots[k + 3])
        for i in range(stop - start):
            t = first + np.uint64(i)
            out[t] += w0 * buffer[r0, t] + w1 * buffer[r1, t] + w2 * buffer[r2, t] + w3 * buffer[r3, t]
        k += 4
    for last in range(k, n_rows):
        w = weights[last]
        row = np.uint64(slots[last])
        for i in range(stop - start):
            t = first + np.uint64(i)
            out[t] += w * buffer[row, t]


@parallel_jit
def add_weighted_rows(buffer, slots, weights, out):
    """``out += sum_k weights[k] * buffer[slots[k], :]`` in float64, chunks of
    columns split over threads. Call it from Python, from one thread at a time:
    numba's workqueue threading layer (the fallback when neither TBB nor OpenMP is
    available) aborts on concurrent launches, and compiled code that calls a
    parallel function crashes when it is loaded from numba's cache (compiled code
    calls :func:`add_weighted_rows_serial`)."""
    n = out.shape[0]
    for c in prange((n + _CHUNK - 1) // _CHUNK):
        _add_rows_to_chunk(buffer, slots, weights, out, c * _CHUNK, min((c + 1) * _CHUNK, n))


@jit
def add_weighted_rows_serial(buffer, slots, weights, out):
    """The same on the calling thread alone.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros(3)
    >>> add_weighted_rows_serial(np.arange(6.0).reshape(2, 3), np.array([1, 0]), np.array([1.0, 2.0]), out)
    >>> out
    array([3., 6., 9.])
    """
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        _add_rows_to_chunk(buffer, slots, weights, out, start, min(start + _CHUNK, n))
