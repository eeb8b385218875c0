"""Compiled steps of kernel blocks and rows.

* :func:`rbf_from_products`: the element-wise steps of an RBF block (distance,
  exponent, exponential) fused into one pass, in place on a C-contiguous 2-D
  block (NumPy would pass over a large block once per operation, and its
  float64 ``exp`` is a call to the C library per element on processors
  without AVX-512).
* :func:`kernel_row`: one whole kernel row of thin data, for solvers that need
  rows inside compiled code (no return to Python per row); :func:`kernel_matrix`,
  all of them; :func:`kernel_rows_into`, a block of them into a row cache over all
  cores; :func:`transpose_into`, the data transposed as they read it.
* :func:`sparse_row_products`: products of sparse rows with dense columns,
  only their nonzeros counted (BLAS would need the rows densified).
* :func:`sparse_sparse_products`: the same with sparse columns, only the
  nonzeros of both sides counted; :func:`sparse_kernel_rows`, whole kernel rows
  of sparse data from these products, over all cores.
"""

import math

import numpy as np
from numba import prange

from ._bits import bits_float, float_bits
from ._jit import contracting_jit, inlined_jit, jit, parallel_jit


#: Kernels whose rows :func:`kernel_row` computes (``KERNEL_NONE``: rows come from the caller).
KERNEL_NONE, KERNEL_LINEAR, KERNEL_POLYNOMIAL, KERNEL_RBF = 0, 1, 2, 3
#: Rows copied from a Gram matrix in memory (a precomputed kernel) by the full-Gram solver
#: (:func:`svmkit._core.smo_rows.compute_row`), not computed by :func:`kernel_row`.
KERNEL_PRECOMPUTED = 4

_LOG2_E = 1.4426950408889634
_LN2_HIGH = 6.93147180369123816490e-01  # ln 2 in two parts (fdlibm): k * _LN2_HIGH is exact
_LN2_LOW = 1.90821492927058770002e-10
_EXP_MIN = -708.0  # exp(x) of smaller x is taken as 0 (below 3.3e-308)
# k = round(x / ln 2) as the float x log2(e) + 1.5 2^52, whose low bits are k: 2^k without a
# float-to-integer conversion (which AVX2 lacks for four float64 at once: 1.47 million
# values 2.6 -> 1.9 ms, the same results)
_ROUNDING_SHIFT = 6755399441055744.0


_TAYLOR = tuple(1.0 / math.factorial(i) for i in range(14))  # exp(r) to degree 13


@contracting_jit
def _range_reduction(x):
    """``(shifted, r)`` with ``max(x, _EXP_MIN) = k ln 2 + r``, ``|r| <= ln(2) / 2``:
    ``k = round(max(x, _EXP_MIN) / ln 2)`` (at least -1021), held in the low bits of the
    float ``shifted`` (:func:`_power_of_two`)."""
    x = max(x, _EXP_MIN)
    shifted = x * _LOG2_E + _ROUNDING_SHIFT
    k = shifted - _ROUNDING_SHIFT
    return shifted, (x - k * _LN2_HIGH) - k * _LN2_LOW


@contracting_jit
def _power_of_two(shifted):
    """``2^k`` from the bits of ``shifted`` (:func:`_range_reduction`): its low bits plus the
    exponent bias, moved into the exponent field."""
    return bits_float((float_bits(shifted) + 1023) << 52)


@contracting_jit
def exp_nonpositive(x):
    """``exp(x)`` for ``x <= 0`` in arithmetic that vectorises (NumPy's ``exp``
    cannot be called from compiled loops, and a call to the C library per
    element costs several times more).

    ``x = k ln 2 + r`` with ``|r| <= ln(2) / 2``; ``exp(r)`` by its Taylor
    polynomial of degree 13 (truncation below 1e-17 relative) in Estrin's
    scheme (short dependency chains), ``2^k`` from the exponent bits. Relative
    error within two units in the last place.
    """
    c = _TAYLOR
    shifted, r = _range_reduction(x)
    r2 = r * r
    r4 = r2 * r2
    low = ((c[0] + c[1] * r) + (c[2] + c[3] * r) * r2) + ((c[4] + c[5] * r) + (c[6] + c[7] * r) * r2) * r4
    high = ((c[8] + c[9] * r) + (c[10] + c[11] * r) * r2) + (c[12] + c[13] * r) * r4
    return (low + high * (r4 * r4)) * _power_of_two(shifted) if x >= _EXP_MIN else 0.0


@contracting_jit
def exp_nonpositive_single(x):
    """:func:`exp_nonpositive` to single precision (relative error below 1e-8,
    Taylor degree 7), for values stored as float32."""
    c = _TAYLOR
    shifted, r = _range_reduction(x)
    r2 = r * r
    low = (c[0] + c[1] * r) + (c[2] + c[3] * r) * r2
    high = (c[4] + c[5] * r) + (c[6] + c[7] * r) * r2
    return (low + high * (r2 * r2)) * _power_of_two(shifted) if x >= _EXP_MIN else 0.0


@jit
def _rbf_row(row, row_norm, col_norms, gamma):
    """One row of :func:`rbf_from_products`, in place."""
    single = row.itemsize == 4
    for j in range(row.shape[0]):
        distance = row_norm + col_norms[j] - 2.0 * row[j]
        exponent = -gamma * np.float64(distance if distance > 0.0 else 0.0)
        row[j] = exp_nonpositive_single(exponent) if single else exp_nonpositive(exponent)


@jit
def rbf_from_products(products, row_norms, col_norms, gamma):
    """In place: ``products[i, j] <- exp(-gamma * max(row_norms[i] + col_norms[j] - 2 products[i, j], 0))``.

    The squared distance is formed in LIBSVM's order, ``|a|^2 + |b|^2 - 2 a'b``,
    in the block's precision; it is clipped at 0 because rounding may leave it
    slightly negative. The exponential is :func:`exp_nonpositive` for a float64
    block and :func:`exp_nonpositive_single` for a float32 one (AVX2, the RBF block
    of 4,000 x 368 rows of 4 features: 4.5 ms in float64 instead of 15.0 with
    NumPy's ``exp``; 2.9 ms in float32 instead of 4.7).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> block = X @ X.T
    >>> rbf_from_products(block, np.array([0.0, 1.0]), np.array([0.0, 1.0]), 0.5)
    >>> block.round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    for i in range(products.shape[0]):
        _rbf_row(products[i], row_norms[i], col_norms, gamma)


@jit
def kernel_row(XT, r, code, gamma, coef0, degree, acc, out):
    """``out[c] = k(x_r, x_c)`` for every column ``c`` of ``XT`` (the data transposed,
    features by rows): the row of one kernel matrix, four features at a time so
    that every loop runs along contiguous memory. ``acc`` is scratch of the
    row's length and of ``XT``'s type; float32 ``out`` (with float32 ``XT``) is
    computed to single precision.

    RBF: ``exp(-gamma |x_r - x_c|^2)`` from the differences (no cancellation);
    linear: ``x_r'x_c``; polynomial: ``(gamma x_r'x_c + coef0)^degree``.

    (Each sum adds its features in order, one at a time, whatever the grouping: the values
    are those of a loop over single features, which loaded and stored ``acc`` once per
    feature; a row of 426 x 30, linear 1.32 -> 1.10 us, RBF 1.63 -> 1.35, as BENCHMARKS.md.)
    """
    _kernel_row_columns(XT, r, 0, XT.shape[1], code, gamma, coef0, degree, acc, out)


@inlined_jit
def _kernel_row_columns(XT, r, start, stop, code, gamma, coef0, degree, acc, out):
    """``out[c] = k(x_r, x_c)`` for the columns ``start <= c < stop`` of :func:`kernel_row`
    (``acc``: scratch of at least ``stop - start`` values), the same values. Columns are
    indexed by unsigned offsets from ``start``: a signed index gets a wrap-around test for
    negative values, which keeps the loops from vectorising (a tile of 1,024 columns: 2.5
    times slower), and slices cost some 4% of a row of 426 columns."""
    n_features = XT.shape[0]
    m = stop - start
    first = np.uint64(start)
    for c in range(m):
        acc[c] = 0.0
    f = 0
    if code == KERNEL_RBF:
        while f + 4 <= n_features:
            x0, x1, x2, x3 = XT[f, r], XT[f + 1, r], XT[f + 2, r], XT[f + 3, r]
            c0, c1, c2, c3 = XT[f], XT[f + 1], XT[f + 2], XT[f + 3]
            for c in range(m):
                t = first + np.uint64(c)
                d0, d1, d2, d3 = x0 - c0[t], x1 - c1[t], x2 - c2[t], x3 - c3[t]
                acc[c] = acc[c] + d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3
            f += 4
        for f in range(f, n_features):
            x = XT[f, r]
            column = XT[f]
            for c in range(m):
                diff = x - column[first + np.uint64(c)]
                acc[c] += diff * diff
        # (a loop of its own per precision: one loop with the choice inside it did not vectorise,
        # svmguide1 RBF fit 8.2 -> 17.1 ms; rbf_from_products' loop does, with the same choice)
        if out.itemsize == 4:
            for c in range(m):
                out[first + np.uint64(c)] = exp_nonpositive_single(-gamma * np.float64(acc[c]))
        else:
            for c in range(m):
                out[first + np.uint64(c)] = exp_nonpositive(-gamma * acc[c])
        return
    while f + 4 <= n_features:
        x0, x1, x2, x3 = XT[f, r], XT[f + 1, r], XT[f + 2, r], XT[f + 3, r]
        c0, c1, c2, c3 = XT[f], XT[f + 1], XT[f + 2], XT[f + 3]
        for c in range(m):
            t = first + np.uint64(c)
            acc[c] = acc[c] + x0 * c0[t] + x1 * c1[t] + x2 * c2[t] + x3 * c3[t]
        f += 4
    for f in range(f, n_features):
        x = XT[f, r]
        column = XT[f]
        for c in range(m):
            acc[c] += x * column[first + np.uint64(c)]
    if code == KERNEL_LINEAR:
        for c in range(m):
            out[first + np.uint64(c)] = acc[c]
        return
    for c in range(m):
        out[first + np.uint64(c)] = (gamma * acc[c] + coef0) ** degree


_ROWS_TILE = 1024  # columns of a tile of kernel_rows_into: the tile of XT stays in the core's cache


@jit
def _kernel_rows_tile(XT, rows, tile, code, gamma, coef0, degree, out, out_rows, weights, column_sum):
    """The columns of tile ``tile`` (``_ROWS_TILE`` wide) of :func:`kernel_rows_into`."""
    start = tile * _ROWS_TILE
    stop = min(XT.shape[1], start + _ROWS_TILE)
    acc = np.empty(_ROWS_TILE, dtype=XT.dtype)
    for i in range(rows.shape[0]):
        row = out[out_rows[i]]
        _kernel_row_columns(XT, rows[i], start, stop, code, gamma, coef0, degree, acc, row)
        if weights.shape[0]:
            w = weights[i]
            for c in range(np.uint64(start), np.uint64(stop)):
                column_sum[c] += w * row[c]


@parallel_jit
def kernel_rows_into(XT, rows, code, gamma, coef0, degree, out, out_rows, weights, column_sum):
    """``out[out_rows[i]] = `` the :func:`kernel_row` ``rows[i]`` of ``XT`` (the same values),
    for every ``i``; with ``weights`` (else empty), also ``column_sum += sum_i weights[i]
    out[out_rows[i]]`` (float64). The rows of a block straight into their places in a row
    cache, tiles of ``_ROWS_TILE`` columns split over threads: each tile of ``XT`` is read
    once for all the rows, each value written once (thin data, 50,000 x 20 float32, 83 RBF
    rows into scattered rows of a cache: 3.5 ms, against 8.5 ms for BLAS's products, their
    exponentials and a copy into the cache). Call it from Python, from one thread at a time
    (see :func:`svmkit._core.row_cache.add_weighted_rows`);
    :func:`kernel_rows_into_serial` computes the same on the calling thread."""
    for tile in prange((XT.shape[1] + _ROWS_TILE - 1) // _ROWS_TILE):
        _kernel_rows_tile(XT, rows, tile, code, gamma, coef0, degree, out, out_rows, weights, column_sum)


@jit
def kernel_rows_into_serial(XT, rows, code, gamma, coef0, degree, out, out_rows, weights, column_sum):
    """:func:`kernel_rows_into` on the calling thread alone.

    Examples
    --------
    >>> import numpy as np
    >>> XT = np.array([[0.0, 1.0, 3.0]])  # three rows of one feature
    >>> out, column_sum = np.zeros((3, 3)), np.zeros(3)
    >>> kernel_rows_into_serial(XT, np.array([2, 0]), KERNEL_LINEAR, 0.0, 0.0, 1, out, np.array([0, 2]),
    ...                         np.array([1.0, -1.0]), column_sum)
    >>> out  # row 2 into out[0], row 0 into out[2]
    array([[0., 3., 9.],
           [0., 0., 0.],
           [0., 0., 0.]])
    >>> column_sum  # 1 * row 2 - 1 * row 0
    array([0., 3., 9.])
    """
    for tile in range((XT.shape[1] + _ROWS_TILE - 1) // _ROWS_TILE):
        _kernel_rows_tile(XT, rows, tile, code, gamma, coef0, degree, out, out_rows, weights, column_sum)


@jit
def transpose_into(X, out):
    """``out[f, r] = X[r, f]``: the rows of ``X`` transposed into ``out`` (features by rows,
    the ``XT`` of :func:`kernel_row`), converted to ``out``'s type. Eight rows at a time, so
    that each feature's eight values are one contiguous write (1,347 x 64 into float32: 58 us
    by NumPy's strided copy, 28 here; 2,000 x 500, 877 and 310 us).

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty((2, 3), dtype=np.float32)
    >>> transpose_into(np.arange(6.0).reshape(3, 2), out)
    >>> out
    array([[0., 2., 4.],
           [1., 3., 5.]], dtype=float32)
    """
    n, d = X.shape
    r = 0
    while r + 8 <= n:
        for f in range(d):
            for k in range(8):
                out[f, r + k] = X[r + k, f]
        r += 8
    for r in range(r, n):
        for f in range(d):
            out[f, r] = X[r, f]


@jit
def kernel_matrix(XT, code, gamma, coef0, degree, out):
    """``out[r, c] = k(x_r, x_c)`` for every pair of columns of ``XT`` (the data transposed):
    the whole kernel matrix of thin data, row by row with :func:`kernel_row`, so that its
    values are those of the rows that the full-Gram solver computes itself.

    Examples
    --------
    >>> import numpy as np
    >>> XT = np.array([[0.0, 1.0], [0.0, 0.0]])  # two rows, (0, 0) and (1, 0)
    >>> out = np.empty((2, 2))
    >>> kernel_matrix(XT, KERNEL_RBF, 0.5, 0.0, 1, out)
    >>> out.round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    scratch = np.empty(XT.shape[1], dtype=XT.dtype)
    for r in range(XT.shape[1]):
        kernel_row(XT, r, code, gamma, coef0, degree, scratch, out[r])


@jit
def squared_norms_in_feature_order(A):
    """The squared norm of each row of ``A`` (float64), summed one feature after another from
    the first, as :func:`kernel_row` sums the linear kernel's products: its values ``K[r, r]``,
    bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> squared_norms_in_feature_order(np.array([[3.0, 4.0], [1.0, 0.5]]))
    array([25.  ,  1.25])
    """
    n, d = A.shape
    norms = np.empty(n)
    i = 0
    while i + 4 <= n:  # (four rows' sums side by side, each in its own order: 1,347 x 64, 42 -> 22 us)
        s0 = s1 = s2 = s3 = 0.0
        for f in range(d):
            a0, a1, a2, a3 = A[i, f], A[i + 1, f], A[i + 2, f], A[i + 3, f]
            s0 += a0 * a0
            s1 += a1 * a1
            s2 += a2 * a2
            s3 += a3 * a3
        norms[i], norms[i + 1], norms[i + 2], norms[i + 3] = s0, s1, s2, s3
        i += 4
    for i in range(i, n):
        total = 0.0
        for f in range(d):
            total += A[i, f] * A[i, f]
        norms[i] = total
    return norms


@jit
def _row_sq_norms(A):
    """The squared norm of each row of ``A``, summed in four running sums (one sum is a chain
    of dependent additions: 200 rows of 5,000 features took 0.74 ms instead of 0.38)."""
    norms = np.empty(A.shape[0])
    d = A.shape[1]
    for i in range(A.shape[0]):
        s0 = s1 = s2 = s3 = 0.0
        f = 0
        while f + 4 <= d:
            s0 += A[i, f] * A[i, f]
            s1 += A[i, f + 1] * A[i, f + 1]
            s2 += A[i, f + 2] * A[i, f + 2]
            s3 += A[i, f + 3] * A[i, f + 3]
            f += 4
        while f < d:
            s0 += A[i, f] * A[i, f]
            f += 1
        norms[i] = (s0 + s1) + (s2 + s3)
    return norms


#: Columns per pass of :func:`sparse_row_products`: the slice of every feature's
#: row that a pass reads stays in a core's L2 cache (a9a's 123 features: 0.5 MB).
_PRODUCT_TILE = 512


@jit
def sparse_row_products(indptr, indices, data, start, stop, BT, out):
    """``out[r - start] = X[r] @ BT`` for the rows ``start:stop`` of a CSR matrix
    ``X`` (``indptr, indices, data``) and a dense C-ordered ``BT`` (features by
    columns): ``out[r - start, j] = sum_p data[p] BT[indices[p], j]``.

    Each row adds its nonzeros' rows of ``BT``, four at a time (one pass over
    ``out`` per four), in passes over ``_PRODUCT_TILE`` columns.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, data = np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0])
    >>> BT = np.arange(6.0).reshape(3, 2)  # X = [[1, 0, 2], [0, 3, 0]]
    >>> out = np.empty((2, 2))
    >>> sparse_row_products(indptr, indices, data, 0, 2, BT, out)
    >>> out
    array([[ 8., 11.],
           [ 6.,  9.]])
    """
    n_columns = BT.shape[1]
    for first in range(0, n_columns, _PRODUCT_TILE):
        width = min(_PRODUCT_TILE, n_columns - first)
        for r in range(start, stop):
            acc = out[r - start, first:first + width]
            for j in range(width):
                acc[j] = 0.0
            p, end = indptr[r], indptr[r + 1]
            while p + 4 <= end:
                v0, v1, v2, v3 = data[p], data[p + 1], data[p + 2], data[p + 3]
                b0 = BT[indices[p], first:first + width]
                b1 = BT[indices[p + 1], first:first + width]
                b2 = BT[indices[p + 2], first:first + width]
                b3 = BT[indices[p + 3], first:first + width]
                for j in range(width):
                    acc[j] += (v0 * b0[j] + v1 * b1[j]) + (v2 * b2[j] + v3 * b3[j])
                p += 4
            while p < end:
                v = data[p]
                b = BT[indices[p], first:first + width]
                for j in range(width):
                    acc[j] += v * b[j]
                p += 1


@jit
def sparse_sparse_products(indptr, indices, data, start, stop, b_indptr, b_indices, b_data, out):
    """``out[r - start] = X[r] @ B`` for the rows ``start:stop`` of a CSR matrix ``X`` and a
    CSR matrix ``B`` (features by columns, ``b_indptr, b_indices, b_data``): each nonzero
    ``X[r, f]`` adds ``X[r, f] B[f]`` over the nonzeros of row ``f`` of ``B`` only, so that
    both sides' zeros cost nothing (text-like data, where ``B`` densified would not fit).

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, data = np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0])
    >>> b_indptr, b_indices, b_data = np.array([0, 1, 2, 4]), np.array([1, 0, 0, 1]), np.array([5.0, 4.0, 1.0, 2.0])
    >>> out = np.empty((2, 2))  # X = [[1, 0, 2], [0, 3, 0]], B = [[0, 5], [4, 0], [1, 2]]
    >>> sparse_sparse_products(indptr, indices, data, 0, 2, b_indptr, b_indices, b_data, out)
    >>> out
    array([[ 2.,  9.],
           [12.,  0.]])
    """
    for r in range(start, stop):
        acc = out[r - start]
        acc[:] = 0.0
        for p in range(indptr[r], indptr[r + 1]):
            v = data[p]
            f = indices[p]
            for q in range(b_indptr[f], b_indptr[f + 1]):
                acc[b_indices[q]] += v * b_data[q]


@jit
def _sparse_kernel_row(indptr, indices, data, rows, i, b_indptr, b_indices, b_data, sq_norms, code, gamma, out):
    """Row ``i`` of :func:`sparse_kernel_rows`: the products of row ``rows[i]``, then the
    kernel applied to them while they are in the core's cache."""
    r = rows[i]
    sparse_sparse_products(indptr, indices, data, r, r + 1, b_indptr, b_indices, b_data, out[i : i + 1])
    if code == KERNEL_RBF:
        _rbf_row(out[i], sq_norms[r], sq_norms, gamma)


@parallel_jit
def sparse_kernel_rows(indptr, indices, data, rows, b_indptr, b_indices, b_data, sq_norms, code, gamma, out):
    """``out[i] = k(x_{rows[i]}, x_c)`` for every row ``c`` of a CSR matrix ``X``
    (``indptr, indices, data``; ``b_indptr, b_indices, b_data``: its transpose, CSR), the
    linear or RBF kernel (``code``; ``sq_norms``, the squared norms of ``X``'s rows, of
    ``out``'s type), rows split over threads: the values of
    :func:`sparse_sparse_products` followed by :func:`rbf_from_products` on the same block,
    without a block of products written out and read back. Call it from Python, from one
    thread at a time (see :func:`svmkit._core.row_cache.add_weighted_rows`);
    :func:`sparse_kernel_rows_serial` computes the same on the calling thread."""
    for i in prange(rows.shape[0]):
        _sparse_kernel_row(indptr, indices, data, rows, i, b_indptr, b_indices, b_data, sq_norms, code, gamma, out)


@jit
def sparse_kernel_rows_serial(indptr, indices, data, rows, b_indptr, b_indices, b_data, sq_norms, code, gamma, out):
    """:func:`sparse_kernel_rows` on the calling thread alone.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, data = np.array([0, 1, 2]), np.array([0, 1]), np.array([1.0, 2.0])
    >>> t_indptr, t_indices = np.array([0, 1, 2]), np.array([0, 1])  # X = [[1, 0], [0, 2]]
    >>> out = np.empty((1, 2))
    >>> sparse_kernel_rows_serial(indptr, indices, data, np.array([1]), t_indptr, t_indices, data,
    ...                           np.array([1.0, 4.0]), KERNEL_RBF, 0.5, out)
    >>> out.round(4)  # exp(-0.5 * 5), 1
    array([[0.0821, 1.    ]])
    """
    for i in range(rows.shape[0]):
        _sparse_kernel_row(indptr, indices, data, rows, i, b_indptr, b_indices, b_data, sq_norms, code, gamma, out)
