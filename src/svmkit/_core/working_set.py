"""The compiled steps of the blocked strategy's rounds (DESIGN.md section 3).

A round (ThunderSVM, oneDAL) picks a working set of the largest violators of each side,
keeping half of the last round's new ones (:func:`select_working_set`), solves the set's
block with :func:`svmkit._core.smo.solve_batch`, and adds the kernel columns of the
multipliers that moved, times their change, to every gradient (:func:`add_rows_to_gradient`).
"""

import numpy as np
from numba import prange

from ._jit import internal_jit, jit, parallel_jit


@jit
def smallest(score, k):
    """The positions of ``k`` smallest values of ``score`` in no particular order (ties at the
    k-th value broken by the heap's order): a max-heap of ``k`` that most values only compare
    with, one pass.

    Examples
    --------
    >>> import numpy as np
    >>> sorted(smallest(np.array([5.0, 1.0, 4.0, 1.0, 3.0]), 3).tolist())
    [1, 3, 4]
    """
    heap = np.empty(k, dtype=np.int64)
    if k == 0:
        return heap
    for t in range(k):  # sift each of the first k up
        heap[t] = t
        child = t
        while child > 0:
            parent = (child - 1) // 2
            if score[heap[parent]] >= score[heap[child]]:
                break
            heap[parent], heap[child] = heap[child], heap[parent]
            child = parent
    for t in range(k, score.shape[0]):
        if score[t] >= score[heap[0]]:
            continue
        heap[0] = t  # the largest out, sifted down
        parent = 0
        while True:
            child = 2 * parent + 1
            if child >= k:
                break
            if child + 1 < k and score[heap[child + 1]] > score[heap[child]]:
                child += 1
            if score[heap[child]] <= score[heap[parent]]:
                break
            heap[parent], heap[child] = heap[child], heap[parent]
            parent = child
    return heap


@jit
def select_working_set(batch, alpha, grad, kept, size):
    """``(ws, gap)``: the ``kept`` variables followed by the largest violators not among them,
    ``size`` variables or fewer in all: an equal share from I_up (largest ``-y G``) and I_low
    (smallest), with ``batch.nu`` from each sign of ``y`` apart; and the gap of all the
    variables (every variable where there are at most ``size``).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.smo import Batch
    >>> y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    >>> grad = -y * np.array([3.0, -1.0, 2.0, 0.5, -2.0])  # -y G = (3, -1, 2, 0.5, -2)
    >>> batch = Batch(y, -np.ones(5), np.ones(5), np.arange(5), np.array([0, 5]), False)
    >>> ws, gap = select_working_set(batch, np.array([0.0, 0.5, 0.5, 0.0, 1.0]), grad, np.array([0]), 3)
    >>> ws.tolist(), float(gap)  # 0 kept; I_up {0, 1, 2}: 2; I_low {1, 2, 3, 4}: 4
    ([0, 2, 4], 5.0)
    """
    y, upper = batch.y, batch.upper
    m = y.shape[0]
    # each variable's score on each side, the order of the choice (inf: not on that side):
    # I_up's largest -y G are the smallest y G, I_low's the smallest -y G; the extremes per
    # sign of y with nu
    up_score = np.empty(m)
    low_score = np.empty(m)
    up_max = np.full(2, -np.inf)
    low_min = np.full(2, np.inf)
    for t in range(m):
        positive = y[t] > 0
        in_up = (alpha[t] < upper[t]) if positive else (alpha[t] > 0)
        in_low = (alpha[t] > 0) if positive else (alpha[t] < upper[t])
        v = -y[t] * grad[t]
        sign = 1 if (batch.nu and not positive) else 0
        up_score[t] = -v if in_up else np.inf
        low_score[t] = v if in_low else np.inf
        up_max[sign] = max(up_max[sign], v if in_up else -np.inf)
        low_min[sign] = min(low_min[sign], v if in_low else np.inf)
    gap = max(up_max[0] - low_min[0], up_max[1] - low_min[1])
    if m <= size:
        return np.arange(m), gap
    for t in kept:
        up_score[t] = low_score[t] = np.inf
    n_signs = 2 if batch.nu else 1
    share = max(1, (size - kept.shape[0]) // (2 * n_signs))
    chosen = np.empty(kept.shape[0] + 2 * n_signs * share, dtype=np.int64)
    for k in range(kept.shape[0]):
        chosen[k] = kept[k]
    n_chosen = kept.shape[0]
    for side in range(2):
        for sign in range(n_signs):
            score = up_score if side == 0 else low_score
            if batch.nu:  # (the other sign's variables left out)
                score = score.copy()
                for t in range(m):
                    if (y[t] < 0) != (sign == 1):
                        score[t] = np.inf
            for t in smallest(score, share):  # (share <= size < m)
                if score[t] < np.inf:
                    chosen[n_chosen] = t
                    n_chosen += 1
                    up_score[t] = low_score[t] = np.inf  # (taken)
    return chosen[:n_chosen], gap


@jit
def gather_block(buffer, slots, columns, out):
    """``out[a, b] = buffer[slots[a], columns[b]]``: the kernel block of a working set from
    the cached rows of its data rows (in ``out``'s precision)."""
    for a in range(slots.shape[0]):
        row = buffer[slots[a]]
        for b in range(columns.shape[0]):
            out[a, b] = row[columns[b]]


_CHUNK = 2048  # columns per chunk of add_rows_to_gradient: a chunk of the sum stays in the L1 cache


@internal_jit
def add_weighted_rows(buffer, slots, weights, out, start, stop):
    """``out[start:stop] += sum_k weights[k] buffer[slots[k], start:stop]``, four rows at a
    time (the loop is bound by memory: the chunk is loaded and stored once per four rows). For
    the gradient's sums of cached rows and for the products of sparse features
    (:func:`svmkit._core.kernels.apply_kernel_after_sparse_products`).
    (Unsigned column indices: numba then leaves out the wrap-around of negative indices, which
    keeps the loops from being vectorised.)"""
    k = 0
    n_rows = slots.shape[0]
    while k + 4 <= n_rows:
        w0, w1, w2, w3 = weights[k], weights[k + 1], weights[k + 2], weights[k + 3]
        r0, r1, r2, r3 = buffer[slots[k]], buffer[slots[k + 1]], buffer[slots[k + 2]], buffer[slots[k + 3]]
        for c in range(np.uint64(start), np.uint64(stop)):
            out[c] += w0 * r0[c] + w1 * r1[c] + w2 * r2[c] + w3 * r3[c]
        k += 4
    for last in range(k, n_rows):
        w = weights[last]
        row = buffer[slots[last]]
        for c in range(np.uint64(start), np.uint64(stop)):
            out[c] += w * row[c]


@parallel_jit
def column_sum_parallel(buffer, slots, weights, out):
    """``out += sum_k weights[k] buffer[slots[k]]`` (float64), chunks of columns over numba's
    threads. Call it from Python on one thread at a time (numba's workqueue layer aborts on
    concurrent launches); :func:`column_sum` computes the same on the calling thread."""
    n = out.shape[0]
    for chunk in prange((n + _CHUNK - 1) // _CHUNK):
        add_weighted_rows(buffer, slots, weights, out, chunk * _CHUNK, min((chunk + 1) * _CHUNK, n))


@jit
def column_sum(buffer, slots, weights, out):
    """``out += sum_k weights[k] buffer[slots[k]]`` on the calling thread.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros(3)
    >>> column_sum(np.arange(6.0).reshape(2, 3), np.array([1, 0]), np.array([1.0, 2.0]), out)
    >>> out
    array([3., 6., 9.])
    """
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        add_weighted_rows(buffer, slots, weights, out, start, min(start + _CHUNK, n))


@jit
def add_by_rows(grad, y, rows, column_values):
    """``grad[t] += y[t] column_values[rows[t]]``: a change of ``K a`` over the data rows
    into the gradient of every variable."""
    for t in range(grad.shape[0]):
        grad[t] += y[t] * column_values[rows[t]]
