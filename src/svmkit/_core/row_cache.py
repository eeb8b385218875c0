"""Operations on a cache of whole kernel rows (float32, one row per slot)."""

from numba import prange

from ._jit import jit, parallel_jit


@jit
def gather_block(buffer, slots, columns, out, out_rows):
    """``out[out_rows[a], b] = buffer[slots[a], columns[b]]``: rows of the kernel
    sub-matrix of a working set, read from the cache (NumPy's ``np.ix_``
    indexing takes about twice as long)."""
    for a in range(slots.shape[0]):
        row = buffer[slots[a]]
        target = out[out_rows[a]]
        for b in range(columns.shape[0]):
            target[b] = row[columns[b]]


@jit
def copy_rows(source, source_rows, out, out_rows, first_column):
    """``out[out_rows[a], first_column:first_column + w] = source[source_rows[a]]`` for a
    ``w``-column ``source``: kernel rows assembled from stored blocks in one pass (NumPy's
    fancy indexing copies twice)."""
    width = source.shape[1]
    for a in range(source_rows.shape[0]):
        row = source[source_rows[a]]
        target = out[out_rows[a]]
        for b in range(width):
            target[first_column + b] = row[b]


_CHUNK = 2048  # columns per chunk: a chunk of ``out`` stays in the first-level cache


@jit
def _add_rows_to_chunk(buffer, slots, weights, out, start, stop):
    """``out[start:stop] += sum_k weights[k] * buffer[slots[k], start:stop]``, four
    rows at a time, so that the chunk of ``out`` is loaded and stored once per
    four rows (the loop is bound by memory, not arithmetic)."""
    n_rows = slots.shape[0]
    k = 0
    while k + 4 <= n_rows:
        w0, w1, w2, w3 = weights[k], weights[k + 1], weights[k + 2], weights[k + 3]
        r0, r1, r2, r3 = buffer[slots[k]], buffer[slots[k + 1]], buffer[slots[k + 2]], buffer[slots[k + 3]]
        for t in range(start, stop):
            out[t] += w0 * r0[t] + w1 * r1[t] + w2 * r2[t] + w3 * r3[t]
        k += 4
    for last in range(k, n_rows):
        w = weights[last]
        row = buffer[slots[last]]
        for t in range(start, stop):
            out[t] += w * row[t]


@parallel_jit
def add_weighted_rows(buffer, slots, weights, out):
    """``out += sum_k weights[k] * buffer[slots[k], :]`` in float64, chunks of
    columns split over threads. Call it from one thread at a time: numba's
    workqueue threading layer (the fallback when neither TBB nor OpenMP is
    available) aborts on concurrent launches."""
    n = out.shape[0]
    for c in prange((n + _CHUNK - 1) // _CHUNK):
        _add_rows_to_chunk(buffer, slots, weights, out, c * _CHUNK, min((c + 1) * _CHUNK, n))


@jit
def add_weighted_rows_serial(buffer, slots, weights, out):
    """The same on the calling thread alone (for worker threads running in parallel)."""
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        _add_rows_to_chunk(buffer, slots, weights, out, start, min(start + _CHUNK, n))
