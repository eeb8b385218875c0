"""Kernel values in compiled code: one implementation per built-in kernel.

Every kernel value (the solver's rows, the kernel objects' blocks, predictions) is made
by :func:`apply_kernel` from a dot product and, for RBF, two squared norms, with LIBSVM's
formulas; so a value is the same however it was asked for, up to the rounding of the dot
products themselves (BLAS sums in its own order). :func:`kernel_rows` computes whole rows
of thin dense, sparse or precomputed data with compiled loops; wider dense data take BLAS
products (in Python) followed by :func:`apply_kernel`.

Data travel as one :class:`KernelData` bundle. Unused arrays are empty, so every kind of
data compiles to one type per precision.
"""

from collections import namedtuple

import numpy as np

from ._exp import exp_nonpositive, exp_nonpositive_single
from ._jit import inlined_jit, internal_jit, jit
from .working_set import add_weighted_rows

#: Kernel codes of the compiled kernels.
LINEAR, POLYNOMIAL, RBF, SIGMOID, PRECOMPUTED = 0, 1, 2, 3, 4

KernelData = namedtuple("KernelData",
                        "code gamma coef0 degree XT sq_norms indptr indices values column_starts column_rows "
                        "column_values gram")
KernelData.__doc__ = """The rows of a kernel's data as compiled code reads them.

code, gamma, coef0, degree : the kernel (``LINEAR`` ... ``PRECOMPUTED``) and its parameters
XT : 2-D array, dense rows transposed (features by rows); for sparse rows an empty array of
    ``n_features`` rows; else empty
sq_norms : 1-D array, the squared norm of every row (empty for ``PRECOMPUTED``)
indptr, indices, values : CSR arrays of sparse rows (int64, int64, the values' type), or empty
column_starts, column_rows, column_values : the same sparse rows by feature (CSC arrays: int64,
    int64, the values' type), or empty
gram : 2-D float64 array, the Gram matrix for ``PRECOMPUTED``, else empty
"""


@jit
def apply_kernel(products, row_norms, col_norms, code, gamma, coef0, degree):
    """In place: ``products[i, j] <- k`` from the dot products of a block (LIBSVM's
    formulas), ``row_norms`` and ``col_norms`` the squared norms of the rows and columns
    (RBF only: ``exp(-gamma max(|a|^2 + |b|^2 - 2 a'b, 0))``). Polynomial powers are
    products (exact for whole degrees). A float32 block gets its exponentials to single
    precision.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> block = X @ X.T
    >>> apply_kernel(block, np.array([0.0, 1.0]), np.array([0.0, 1.0]), RBF, 0.5, 0.0, 3.0)
    >>> block.round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    if code == LINEAR:  # (the products are the values)
        return
    # (only RBF reads the norms; the other kernels may pass empty ones, never to be indexed)
    norms = row_norms if code == RBF else np.zeros(products.shape[0], dtype=row_norms.dtype)
    for i in range(products.shape[0]):
        kernel_of_products(products[i], norms[i], col_norms, code, gamma, coef0, degree)


@jit
def apply_kernel_after_sparse_products(products, sparse_features, XT, row_norms, col_norms, code, gamma, coef0,
                                       degree):
    """In place: each row ``i`` of ``products`` first adds the products of the nonzero entries
    of ``sparse_features[i]`` with the columns' same features, given by their transpose ``XT``
    (:func:`add_weighted_rows`), then becomes kernel values as in :func:`apply_kernel`: the
    products of a split of the features, the dense ones by BLAS and the sparse ones here, each
    row turned into kernel values while it is in the core's cache.

    Examples
    --------
    >>> import numpy as np
    >>> products = np.array([[1.0, 0.0]])  # (the first feature of [1, 2] with the columns [1, 0], [0, 1])
    >>> XT = np.array([[0.0, 1.0]])  # (the columns' second feature)
    >>> apply_kernel_after_sparse_products(products, np.array([[2.0]]), XT, np.array([5.0]), np.array([1.0, 1.0]),
    ...                                    LINEAR, 1.0, 0.0, 1.0)
    >>> products  # ([1, 2] with [1, 0] and with [0, 1])
    array([[1., 2.]])
    """
    norms = row_norms if code == RBF else np.zeros(products.shape[0], dtype=row_norms.dtype)
    n_columns = products.shape[1]
    slots = np.empty(sparse_features.shape[1], dtype=np.int64)
    weights = np.empty(sparse_features.shape[1], dtype=products.dtype)
    for i in range(products.shape[0]):
        count = 0
        for feature in range(sparse_features.shape[1]):
            if sparse_features[i, feature] != 0.0:
                slots[count] = feature
                weights[count] = sparse_features[i, feature]
                count += 1
        add_weighted_rows(XT, slots[:count], weights[:count], products[i], 0, n_columns)
        kernel_of_products(products[i], norms[i], col_norms, code, gamma, coef0, degree)


@internal_jit
def kernel_of_products(row, row_norm, col_norms, code, gamma, coef0, degree):
    """In place: ``row[j] <- k`` from the dot products of one row with the columns (see
    :func:`apply_kernel`), ``row_norm`` the row's squared norm."""
    if code == LINEAR:
        return
    single = row.itemsize == 4
    power = int(degree)
    if code == RBF:
        if single:  # (in float32 arithmetic: eight values at a time)
            scale, two, zero, norm = np.float32(-gamma), np.float32(2.0), np.float32(0.0), np.float32(row_norm)
            for j in range(row.shape[0]):
                distance = norm + np.float32(col_norms[j]) - two * np.float32(row[j])
                row[j] = exp_nonpositive_single(scale * (distance if distance > zero else zero))
        else:
            for j in range(row.shape[0]):
                distance = row_norm + col_norms[j] - 2.0 * row[j]
                row[j] = exp_nonpositive(-gamma * (distance if distance > 0.0 else 0.0))
    elif code == POLYNOMIAL:
        for j in range(row.shape[0]):
            base = gamma * row[j] + coef0
            value = 1.0
            exponent = power
            while exponent > 0:  # (repeated squaring)
                if exponent & 1:
                    value *= base
                base *= base
                exponent >>= 1
            row[j] = value
    elif code == SIGMOID:
        for j in range(row.shape[0]):
            row[j] = np.tanh(gamma * row[j] + coef0)


_TILE_COLUMNS = 4096  # columns of a tile of kernel_rows: the tile of thin data's transpose stays in a core's L2 cache


@jit
def kernel_rows(data, rows, out, places):
    """``out[places[k], c] = k(x_{rows[k]}, x_c)`` for every row ``c`` of ``data`` (a
    :class:`KernelData`): copied from the Gram matrix (``PRECOMPUTED``), or dot products
    by compiled loops followed by :func:`kernel_of_products`, a tile of columns at a time for
    all the rows (the tile's data stay in the core's cache, whatever the rows). Dense rows are
    read from their transpose, four features at a time, so that each pass runs along
    contiguous memory and every sum adds its features in order; sparse rows by feature
    (:func:`_sparse_kernel_columns`). ``places`` lets rows go
    straight to where a store keeps them.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> out = np.zeros((2, 3))
    >>> kernel_rows(dense_kernel_data(X, RBF, 0.5, 0.0, 3.0), np.array([1]), out, np.array([1]))
    >>> out.round(4)  # row 1 into place 1: exp(-0.5), 1, exp(-2.5)
    array([[0.    , 0.    , 0.    ],
           [0.6065, 1.    , 0.0821]])
    """
    if data.code == PRECOMPUTED:
        for k in range(rows.shape[0]):
            source = data.gram[rows[k]]
            target = out[places[k]]
            for c in range(out.shape[1]):
                target[c] = source[c]
        return
    # (int64 bounds, not the literal 0: the signature of rows_into's calls, compiled once for both)
    kernel_columns(data, rows, out, places, np.int64(0), np.int64(out.shape[1]))


@jit
def kernel_columns(data, rows, out, places, first, last):
    """The columns ``first:last`` of :func:`kernel_rows` (dense or sparse data), for every
    row: so that threads can share the work of a few rows by columns, each its own part of
    ``out``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> out = np.zeros((1, 3))
    >>> kernel_columns(dense_kernel_data(X, LINEAR, 1.0, 0.0, 1.0), np.array([2]), out, np.array([0]), 1, 3)
    >>> out  # row 2's products with rows 1 and 2
    array([[0., 0., 4.]])
    """
    if data.indptr.shape[0] > 0:
        _sparse_kernel_columns(data, rows, out, places, first, last)
        return
    for start in range(first, last, _TILE_COLUMNS):
        _kernel_rows_tile(data, rows, out, places, start, min(start + _TILE_COLUMNS, last))


@inlined_jit
def _sparse_kernel_columns(data, rows, out, places, first, last):
    """:func:`kernel_columns` of sparse data, by feature (:func:`_add_products_by_feature`),
    each row's products summed in float64 and then made kernel values."""
    sums = np.zeros(last - first)
    for k in range(rows.shape[0]):
        r = rows[k]
        _add_products_by_feature(data.indptr, data.indices, data.values, r, data, first, last, sums)
        acc = out[places[k]][first:last]  # (typed as the dense tiles' rows: one compiled kernel_of_products)
        for c in range(last - first):
            acc[c] = sums[c]
            sums[c] = 0.0
        kernel_of_products(acc, data.sq_norms[r], data.sq_norms[first:last], data.code, data.gamma, data.coef0,
                           data.degree)


#: Columns of dense data a pass of :func:`add_sparse_products` adds to: the pass's slice of every
#: feature's row of the transposed data stays in a core's L2 cache (123 features: 0.5 MB).
_PRODUCT_TILE = 512


@jit
def add_sparse_products(indptr, indices, values, rows, data, out):
    """``out[k, c] +=`` the dot product of CSR row ``rows[k]`` (``indptr``, ``indices``,
    ``values``: int64, int64, float64) with row ``c`` of ``data`` (a :class:`KernelData` of
    sparse or dense rows, one per column of ``out``), over the row's nonzeros only: sparse
    ``data`` by feature (:func:`_add_products_by_feature`, each sum in float64); dense ``data``
    by adding the row of its transpose of each nonzero's feature, a tile of columns at a time.
    Test rows against support vectors, and the features of training rows that BLAS does not
    take (:meth:`svmkit._solver.rows.KernelRows.common_split`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    >>> out = np.array([[0.5, 0.5]])
    >>> add_sparse_products(np.array([0, 0, 2]), np.array([0, 2]), np.array([4.0, 5.0]), np.array([1]),
    ...                     sparse_kernel_data(sp.csr_matrix(X), LINEAR, 1.0, 0.0, 1.0), out)
    >>> out  # 0.5 + ([4, 0, 5] with [1, 0, 2] and with [0, 3, 0])
    array([[14.5,  0.5]])
    >>> add_sparse_products(np.array([0, 2]), np.array([0, 2]), np.array([4.0, 5.0]), np.array([0]),
    ...                     dense_kernel_data(X, LINEAR, 1.0, 0.0, 1.0), out)
    >>> out
    array([[28.5,  0.5]])
    """
    n = out.shape[1]
    if n == 0:
        return
    if data.XT.shape[1] > 0:  # (dense rows, transposed)
        for first in range(0, n, _PRODUCT_TILE):
            last = min(first + _PRODUCT_TILE, n)
            for k in range(out.shape[0]):
                begin, end = indptr[rows[k]], indptr[rows[k] + 1]
                add_weighted_rows(data.XT, indices[begin:end], values[begin:end], out[k], first, last)
        return
    sums = np.zeros(n)
    for k in range(out.shape[0]):
        _add_products_by_feature(indptr, indices, values, rows[k], data, 0, n, sums)
        row = out[k]
        for c in range(n):
            row[c] += sums[c]
            sums[c] = 0.0


@internal_jit
def _add_products_by_feature(indptr, indices, values, r, data, first, last, sums):
    """``sums[c - first] +=`` the dot product of CSR row ``r`` (``indptr``, ``indices``,
    ``values``) with row ``c`` of the sparse ``data``, for the rows ``first <= c < last``: each
    nonzero ``v`` of the row, at feature ``f``, adds ``v x_cf`` for the rows ``c`` that have
    feature ``f`` (``data``'s columns, CSC). The products thus cost the entries of the row's
    features only, not every entry of the data (text rows share few of their features), and
    each sum adds its nonzero terms in feature order, as a dot product over the nonzeros would."""
    starts, column_rows, column_values = data.column_starts, data.column_rows, data.column_values
    for p in range(indptr[r], indptr[r + 1]):
        feature, value = indices[p], values[p]
        begin, end = starts[feature], starts[feature + 1]
        if first > 0:  # (the feature's first row in the part, by bisection)
            low, high = begin, end
            while low < high:
                middle = (low + high) // 2
                if column_rows[middle] < first:
                    low = middle + 1
                else:
                    high = middle
            begin = low
        for q in range(begin, end):
            c = column_rows[q]
            if c >= last:
                break
            sums[c - first] += value * column_values[q]


@inlined_jit
def _kernel_rows_tile(data, rows, out, places, start, stop):
    """The columns ``start:stop`` of :func:`kernel_columns` of dense data, for every row. (Unsigned column
    indices: numba then knows them non-negative and leaves out the wrap-around of negative
    indices, which keeps these loops from being vectorised.)"""
    XT = data.XT
    n_features = XT.shape[0]
    for k in range(rows.shape[0]):
        r = rows[k]
        acc = out[places[k]]
        for c in range(np.uint64(start), np.uint64(stop)):
            acc[c] = 0.0
        f = 0
        while f + 4 <= n_features:
            x0, x1, x2, x3 = XT[f, r], XT[f + 1, r], XT[f + 2, r], XT[f + 3, r]
            c0, c1, c2, c3 = XT[f], XT[f + 1], XT[f + 2], XT[f + 3]
            for c in range(np.uint64(start), np.uint64(stop)):
                acc[c] = acc[c] + x0 * c0[c] + x1 * c1[c] + x2 * c2[c] + x3 * c3[c]
            f += 4
        for f in range(f, n_features):
            x = XT[f, r]
            column = XT[f]
            for c in range(np.uint64(start), np.uint64(stop)):
                acc[c] += x * column[c]
        kernel_of_products(acc[start:stop], data.sq_norms[r], data.sq_norms[start:stop], data.code, data.gamma,
                           data.coef0, data.degree)


@jit
def squared_norms(XT):
    """The squared norm of each row of dense data from their transpose ``XT``, in its type,
    the features summed in order (as :func:`kernel_rows` sums a row's product with itself,
    so that the diagonal equals the rows' ``K[r, r]``)."""
    n_features, n = XT.shape
    out = np.zeros(n, dtype=XT.dtype)
    for f in range(n_features):
        column = XT[f]
        for c in range(n):
            out[c] = out[c] + column[c] * column[c]
    return out


#: Rows and columns of the tiles in which :func:`kernel_asymmetry` reads a matrix and
#: :func:`complete_lower_rows` writes one: a tile and its mirror image stay in the core's
#: first-level cache (docs/performance.md).
_SQUARE_TILE = 32


@jit
def kernel_asymmetry(K):
    """``(largest |K[i, j] - K[j, i]|, largest |K[i, j]|)`` of a square matrix, every value
    read once, a tile beside its mirror image.

    Examples
    --------
    >>> import numpy as np
    >>> largest, scale = kernel_asymmetry(np.array([[1.0, 0.5, 0.0], [0.5, -4.0, 2.0], [0.0, 1.5, 1.0]]))
    >>> float(largest), float(scale)
    (0.5, 4.0)
    """
    n = K.shape[0]
    largest = scale = 0.0
    for first_row in range(0, n, _SQUARE_TILE):
        last_row = min(first_row + _SQUARE_TILE, n)
        for first_column in range(first_row, n, _SQUARE_TILE):
            last_column = min(first_column + _SQUARE_TILE, n)
            for i in range(first_row, last_row):
                for j in range(first_column, last_column):
                    above, below = K[i, j], K[j, i]
                    scale = max(scale, max(abs(above), abs(below)))
                    largest = max(largest, abs(above - below))
    return largest, scale


@jit
def complete_lower_rows(out, norms, code, gamma, coef0, degree, first, last):
    """In place, the rows ``first:last`` of a square matrix whose values on and below the
    diagonal are the dot products of its rows: those made kernel values
    (:func:`kernel_of_products`; ``norms`` the rows' squared norms, read for RBF only), then
    each copied to its mirror image above the diagonal (``out[j, i] = out[i, j]``, ``j < i``),
    a tile at a time. The values of the rows of a part are written by that part only: threads
    may take parts.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> out = np.tril(X @ X.T)  # (the products on and below the diagonal)
    >>> complete_lower_rows(out, (X**2).ravel(), RBF, 0.5, 0.0, 3.0, 0, 3)
    >>> out.round(4)  # exp(-0.5 |x_i - x_j|^2)
    array([[1.    , 0.6065, 0.0111],
           [0.6065, 1.    , 0.1353],
           [0.0111, 0.1353, 1.    ]])
    """
    if code != LINEAR:
        for i in range(first, last):
            kernel_of_products(out[i, :i + 1], norms[i] if code == RBF else norms.dtype.type(0.0), norms[:i + 1],
                               code, gamma, coef0, degree)
    # (unsigned indices: no wrap-around of negative ones, whose checks slow the copy by half)
    for first_row in range(first, last, _SQUARE_TILE):
        last_row = min(first_row + _SQUARE_TILE, last)
        for first_column in range(0, last_row, _SQUARE_TILE):
            for i in range(np.uint64(first_row), np.uint64(last_row)):
                row = out[i]
                for j in range(np.uint64(first_column), np.uint64(min(first_column + _SQUARE_TILE, i))):
                    out[j, i] = row[j]


def dense_kernel_data(X, code, gamma, coef0, degree):
    """The :class:`KernelData` of dense rows ``X`` (float32 or float64), kept as their
    transpose (features by rows).

    Examples
    --------
    >>> import numpy as np
    >>> dense_kernel_data(np.array([[3.0, 4.0]]), LINEAR, 1.0, 0.0, 1.0).sq_norms
    array([25.])
    """
    XT = np.ascontiguousarray(np.asarray(X).T)
    no_index = np.empty(0, dtype=np.int64)
    no_values = np.empty(0, dtype=XT.dtype)
    return KernelData(int(code), float(gamma), float(coef0), float(degree), XT, squared_norms(XT), no_index,
                      no_index, no_values, no_index, no_index, no_values, np.empty((0, 0)))


def sparse_kernel_data(X, code, gamma, coef0, degree, dtype=np.float64):
    """The :class:`KernelData` of CSR rows ``X`` (canonical: sorted, no duplicate entries),
    their values in ``dtype``."""
    values = X.data.astype(dtype, copy=False)
    indptr = X.indptr.astype(np.int64)
    row_of_value = np.repeat(np.arange(X.shape[0]), np.diff(indptr))
    sq_norms = np.bincount(row_of_value, weights=values.astype(np.float64) ** 2, minlength=X.shape[0])
    by_feature = X.tocsc()  # (sorted row indices within each feature)
    return KernelData(int(code), float(gamma), float(coef0), float(degree), np.empty((X.shape[1], 0), dtype=dtype),
                      sq_norms.astype(dtype), indptr, X.indices.astype(np.int64), values,
                      by_feature.indptr.astype(np.int64), by_feature.indices.astype(np.int64),
                      by_feature.data.astype(dtype, copy=False), np.empty((0, 0)))


def precomputed_kernel_data(K):
    """The :class:`KernelData` of a float64 Gram matrix ``K`` (C-ordered, writeable)."""
    no_index = np.empty(0, dtype=np.int64)
    return KernelData(PRECOMPUTED, 0.0, 0.0, 1.0, np.empty((0, 0)), np.empty(0), no_index, no_index, np.empty(0),
                      no_index, no_index, np.empty(0), K)


def kernel_diagonal(data):
    """``k(x_r, x_r)`` of every row of ``data``, as :func:`apply_kernel` makes the value
    from the row's squared norm (RBF: 1 exactly, as ``|x|^2 + |x|^2 - 2 x'x = 0``)."""
    if data.code == PRECOMPUTED:
        return np.array(np.diagonal(data.gram), dtype=np.float64)
    if data.code == RBF:
        return np.ones(data.sq_norms.shape[0])
    sq_norms = data.sq_norms.astype(np.float64)
    diagonal = sq_norms[:, np.newaxis].copy()
    apply_kernel(diagonal, sq_norms, sq_norms, data.code, data.gamma, data.coef0, data.degree)
    return diagonal[:, 0]
