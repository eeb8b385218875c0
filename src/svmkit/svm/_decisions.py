"""Decision values ``K(X, SV) @ coef`` of kernel machines, a block of test rows at a time.

A block's dot products with the support vectors are BLAS products; a built-in kernel's
compiled form turns them into kernel values in place, and one more product with the
coefficients gives the block's decisions. Blocks stay within the shared cache, parts of many
support vectors within a core's, and each thread writes its products into buffers of its own,
made once per call: fresh memory costs page faults, which on some virtual machines cost as
much as the arithmetic.

Where the support vectors and the test rows hold integer multiples of a power of two that are
small enough (binary and count features), every dot product and every partial sum of one is
exact in float32 (:mod:`svmkit._exact`): the products are then taken in float32, at about
half the cost of float64's, and are the same numbers.

Where many features of the support vectors mostly hold one value (one-hot and binary features,
also once scaled to [-1, 1], an image's background), the features are split
(:mod:`svmkit._features`): the dense ones go to BLAS, the sparse ones are summed over their few
other entries in compiled code that then turns each row of products into kernel values. For
RBF, a function of ``x - y`` only, the data are first moved so that each feature's median (its
value in most rows, where there is one) is zero.
"""

import threading
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from .. import kernels as kernel_module
from .._buffers import reused_array
from .._core.kernels import (
    LINEAR, RBF, add_sparse_products, apply_kernel, apply_kernel_after_sparse_products, dense_kernel_data,
    sparse_kernel_data,
)
from .._exact import exact_in_float32, float32_grid
from .._features import centred_parts, nonzero_fraction, split_features
from .._first_use import notice_compilation
from .._parallel import blas_in_equal_parts, map_in_threads, resolve_n_jobs
from .._plan import (
    BLAS_UNTHREADED_WORK, PAIR_PRODUCTS_MIN_WORK, PARALLEL_PREDICT_VALUES, PREDICT_BLOCK_BYTES, PREDICT_DENSE_BYTES,
    PREDICT_SUPPORT_BYTES, dense_copy_pays, exact_float32_pays, sparse_test_products_pay,
)
from ..kernels import apply_kernel_on_cores, row_sq_norms

FeatureSplit = namedtuple("FeatureSplit", "centre dense sparse dense_rows dense_rows32 sparse_parts sq_norms dense_grid")
FeatureSplit.__doc__ = """The support vectors with their features split into dense and sparse ones.

centre : 1-D float64 array, subtracted from the support vectors and the test rows (zeros but for
    RBF, whose values depend on ``x - y`` only)
dense, sparse : int arrays, the dense and the sparse features
dense_rows : (n_SV, n_dense) float64, the support vectors' dense features, centred
dense_rows32 : ``dense_rows`` in float32 where ``dense_grid`` is found, else None
sparse_parts : tuple of (n_sparse, part) float64 arrays, their sparse features, centred,
    transposed, a part of :func:`_support_step` support vectors each (contiguous, as the
    compiled loops read them)
sq_norms : 1-D float64 array, the squared norm of every centred support vector
dense_grid : the :func:`svmkit._exact.float32_grid` of ``dense_rows`` where exact float32 products
    would pay (:func:`svmkit._plan.exact_float32_pays`), else None
"""


def _support_step(n_features):
    """Support vectors multiplied a part at a time, each part staying in cache for all of a
    block's test rows (``PREDICT_SUPPORT_BYTES``): ``n_features`` float64 values a row."""
    return max(1, PREDICT_SUPPORT_BYTES // (8 * max(n_features, 1)))


def _values_per_row(rows):
    """What a row of dense or CSR ``rows`` holds, in float64 values: its features, or its
    nonzeros with their column indices (a sparse row's size is its entries', not its width's:
    a million-feature text row of some hundred words is a few kilobytes)."""
    if not sp.issparse(rows):
        return rows.shape[1]
    return -(-(rows.nnz * (rows.data.itemsize + rows.indices.itemsize)) // (8 * max(rows.shape[0], 1)))


def support_split(rows, centred):
    """The :class:`FeatureSplit` of dense support vectors ``rows`` where
    :func:`svmkit._features.split_features` splits them (centred on each feature's median where
    ``centred``), else None.

    Examples
    --------
    >>> rows = np.full((8, 4), -1.0)  # (three binary features scaled to [-1, 1], two entries of 1)
    >>> rows[:, 0] = [0.3, 0.7, 0.2, 0.9, 0.4, 0.6, 0.1, 0.8]
    >>> rows[0, 1] = rows[2, 3] = 1.0
    >>> split = support_split(rows, centred=True)
    >>> split.centre, split.dense, split.sparse
    (array([ 0.6, -1. , -1. , -1. ]), array([0]), array([1, 2, 3]))
    >>> split.sparse_parts[0][:, :3]
    array([[2., 0., 0.],
           [0., 0., 0.],
           [0., 0., 2.]])
    """
    # (decided on the transposed view, of which split_features reads its sample: all the rows
    # transposed only where they split)
    found = split_features(rows.T, centred)
    if found is None:
        return None
    n_sv, step = rows.shape[0], _support_step(rows.shape[1])
    dense_rows, sq_norms, sparse_parts = np.empty((n_sv, found[1].shape[0])), np.empty(n_sv), []
    # (a part of the support vectors at a time: no transposed copy of them all beside the split)
    for start in range(0, n_sv, step):
        dense_columns, sparse_columns, sq_norms[start:start + step] = centred_parts(rows[start:start + step].T, found)
        dense_rows[start:start + step] = dense_columns.T
        sparse_parts.append(sparse_columns)
    grid = float32_grid(dense_rows) if exact_float32_pays(n_sv, dense_rows.shape[1]) else None
    return FeatureSplit(*found, dense_rows, None if grid is None else dense_rows.astype(np.float32),
                        tuple(sparse_parts), sq_norms, grid)


class SupportVectors:
    """The support vectors as predictions read them, made once per fit (or load).

    Parameters
    ----------
    support_vectors : dense or CSR rows
    form : tuple, optional
        The compiled form of the kernel (``Kernel.compiled_form``): a split of the features
        (:meth:`feature_split`) centres them where it is RBF's, whose values depend on
        ``x - y`` only.

    Attributes
    ----------
    rows : float64 rows, dense (also a dense copy of sparse ones where BLAS's products pay,
        as the solver's rows of such data) or CSR (multiplied by feature: :meth:`products_data`)
    sq_norms : 1-D float64 array, the squared norm of every row

    Examples
    --------
    >>> support = SupportVectors(np.array([[1.0, 0.0], [0.0, 2.0]]))
    >>> support.sq_norms
    array([1., 4.])
    >>> rows32, grid = support.float32_rows()
    >>> rows32.dtype, grid
    (dtype('float32'), (0, 2.0))
    """

    def __init__(self, support_vectors, form=None):
        rows = support_vectors
        n_sv, n_features = rows.shape
        if sp.issparse(rows) and dense_copy_pays(nonzero_fraction(rows), n_sv, n_features, np.float64):
            rows = rows.toarray()
        self.rows = rows
        self.sq_norms = row_sq_norms(support_vectors).astype(np.float64)
        self.translation_invariant = form is not None and form[0] == RBF
        self._float32 = None
        self._by_feature = None
        self._split, self._split_made = None, False  # (plain values: models travel pickled to workers)

    def feature_split(self):
        """The :class:`FeatureSplit` of dense rows (:func:`support_split`), or None; found at the
        first call."""
        if not self._split_made:
            self._split = None if sp.issparse(self.rows) else support_split(self.rows, self.translation_invariant)
            self._split_made = True
        return self._split

    def products_data(self):
        """The :class:`svmkit._core.kernels.KernelData` of the rows, whose products with sparse
        test rows :func:`svmkit._core.kernels.add_sparse_products` takes over the test rows'
        nonzeros: sparse rows by feature, made at the first call and kept; dense rows
        transposed, made at each call (a copy of the support vectors, which the model does
        not keep, nor a saved or pickled one carry)."""
        # (products only, whatever the kernel: kernel_decisions makes them kernel values)
        if not sp.issparse(self.rows):
            return dense_kernel_data(self.rows, LINEAR, 1.0, 0.0, 1.0)
        if self._by_feature is None:
            self._by_feature = sparse_kernel_data(self.rows, LINEAR, 1.0, 0.0, 1.0)
        return self._by_feature

    def float32_rows(self):
        """``(rows in float32, grid)`` where the dense rows lie on a grid that makes products
        with suitable test rows exact in float32 (:func:`svmkit._exact.float32_grid`), else
        ``(None, None)``; found at the first call."""
        if self._float32 is None:
            grid = None if sp.issparse(self.rows) else float32_grid(self.rows)
            self._float32 = (None, None) if grid is None else (self.rows.astype(np.float32), grid)
        return self._float32


class PairCoefficients:
    """The coefficients of one-vs-one problems as LIBSVM's ``dual_coef_`` holds them: a support
    vector of class ``c`` has a coefficient in the ``k - 1`` pairs of ``c`` only, so a block of
    kernel values times each class's ``(n_c, k - 1)`` coefficients, summed per pair, gives the
    pairs' decisions with ``k / 2`` times fewer multiply-adds than times the ``(n_SV, n_pairs)``
    matrix of every pair's coefficients, most of them zero.

    Parameters
    ----------
    problem_coef : (n_SV, n_pairs) float array, the coefficient of each support vector in
        each pair (zero in the pairs of other classes)
    n_support : int array, the support vectors of each class (they are in class order)
    pairs : sequence of ``(i, j)`` class indices, one per column of ``problem_coef``

    Examples
    --------
    >>> problem_coef = np.array([[1.0, 2.0, 0.0], [-1.0, 0.0, 3.0], [0.0, 0.0, -4.0], [0.0, -2.0, 0.0]])
    >>> coef = PairCoefficients(problem_coef, np.array([1, 1, 1, 1]), [(0, 1), (0, 3), (1, 2)])
    >>> values = np.array([[1.0, 10.0, 100.0, 1000.0]])  # (one test row, one support vector per class)
    >>> coef.products(values, slice(0, 4)), values @ problem_coef
    (array([[   -9., -1998.,  -370.]]), array([[   -9., -1998.,  -370.]]))
    >>> coef.products(values[:, 1:3], slice(1, 3))  # (the support vectors 1 and 2 alone)
    array([[ -10.,    0., -370.]])
    """

    def __init__(self, problem_coef, n_support, pairs):
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        n_classes, n_pairs = n_support.shape[0], pairs.shape[0]
        self.n_decisions = n_pairs
        self.size = problem_coef.size
        self.starts = np.concatenate([[0], np.cumsum(n_support)]).astype(np.int64)
        # in_pair[c, p]: class c is one of pair p's; a class's pairs in order are its columns
        in_pair = np.zeros((n_classes, n_pairs), dtype=bool)
        in_pair[pairs[:, 0], np.arange(n_pairs)] = in_pair[pairs[:, 1], np.arange(n_pairs)] = True
        column = np.cumsum(in_pair, axis=1) - 1
        self.width = int(in_pair.sum(axis=1).max(initial=0))
        self.first = pairs[:, 0] * self.width + column[pairs[:, 0], np.arange(n_pairs)]
        self.second = pairs[:, 1] * self.width + column[pairs[:, 1], np.arange(n_pairs)]
        self.blocks = [np.ascontiguousarray(problem_coef[self.starts[c]:self.starts[c + 1], in_pair[c]])
                       for c in range(n_classes)]

    def pays(self, n_rows):
        """Whether predictions of ``n_rows`` rows take these coefficients: at least
        ``PAIR_PRODUCTS_MIN_WORK`` multiply-adds of every pair's."""
        return n_rows * self.size >= PAIR_PRODUCTS_MIN_WORK

    def products(self, values, part):
        """``values @ problem_coef[part]``: ``values`` the kernel values of a block of rows with
        the support vectors ``part`` (a slice with a start and a stop)."""
        sums = np.zeros((values.shape[0], len(self.blocks) * self.width))
        for c, block in enumerate(self.blocks):
            first, last = max(self.starts[c], part.start), min(self.starts[c + 1], part.stop)
            if first < last:
                columns = slice(c * self.width, c * self.width + block.shape[1])
                sums[:, columns] = values[:, first - part.start:last - part.start] @ \
                    block[first - self.starts[c]:last - self.starts[c]]
        return sums[:, self.first] + sums[:, self.second]


def _coefficient_products(values, coef, part):
    """``values @ coef[part]`` for a coefficient matrix or :class:`PairCoefficients`."""
    if isinstance(coef, PairCoefficients):
        return coef.products(values, part)
    return values @ coef[part]


def _n_decisions(coef):
    """The columns of ``coef``'s products (:func:`_coefficient_products`)."""
    return coef.n_decisions if isinstance(coef, PairCoefficients) else coef.shape[1]


def kernel_decisions(X, support_vectors, support, coef, kernel, n_jobs):
    """``K(X, SV) @ coef`` (n_rows, k) for a coefficient matrix (n_SV, k) or
    :class:`PairCoefficients`, ``support`` the
    :class:`SupportVectors` of a built-in kernel or None for another kernel (called on blocks
    of ``X`` and ``support_vectors``). Blocks of test rows are spread over ``n_jobs`` threads
    (the estimator's parameter, :func:`svmkit._parallel.resolve_n_jobs`, counted only then)
    where there are many kernel values; there, support vectors whose features split
    (:meth:`SupportVectors.feature_split`) have the split's products. Sparse test rows of few
    nonzeros (:func:`svmkit._plan.sparse_test_products_pay`) and those against sparse support
    vectors are multiplied over their nonzeros in compiled code
    (:func:`svmkit._core.kernels.add_sparse_products`).
    """
    n_rows = X.shape[0]
    sparse_products = False
    if support is not None and sp.issparse(X):
        # (against sparse support vectors, or of few enough nonzeros: compiled products over the
        # test rows' nonzeros; else made dense at once where that stays small, for the dense
        # rows' products)
        sparse_products = sp.issparse(support.rows) or sparse_test_products_pay(nonzero_fraction(X),
                                                                                *support.rows.shape)
        if not sparse_products and X.shape[0] * X.shape[1] * 8 <= PREDICT_DENSE_BYTES:
            X = X.toarray()
    if support is not None and isinstance(X, np.ndarray) and isinstance(support.rows, np.ndarray) and \
            support.rows.dtype == np.float64:
        n_sv, n_features = support.rows.shape
        if n_rows * n_sv < PARALLEL_PREDICT_VALUES and _support_step(n_features) >= n_sv and \
                not exact_float32_pays(n_sv, n_features):
            return _whole_support_decisions(X, support, coef, kernel)
    if support is not None and not sparse_products and n_rows * support.rows.shape[0] >= PARALLEL_PREDICT_VALUES:
        split = support.feature_split()
        if split is not None:
            return _split_decisions(X, split, coef, kernel.compiled_form(), n_jobs)
    if support is not None:
        support_vectors = support.rows
        if not sparse_products and exact_float32_pays(*support_vectors.shape):
            rows32, grid = support.float32_rows()
            if rows32 is not None and exact_in_float32(X, grid):
                support_vectors = rows32
        X_norms = row_sq_norms(X).astype(np.float64, copy=False)
    n_sv, n_features = support_vectors.shape
    n_decisions = _n_decisions(coef)
    dense_support = not sp.issparse(support_vectors)
    products_data = support.products_data() if sparse_products else None
    support_step = n_sv if sparse_products else _support_step(_values_per_row(support_vectors))
    buffers = threading.local()

    def products_of(rows, part):
        """The float64 dot products of a block's ``rows`` with a part of the support vectors."""
        if sparse_products:
            products = reused_array(buffers, "products", (rows.shape[0], n_sv), np.float64)
            products[...] = 0.0
            return _add_sparse_products(rows, products_data, products)
        if not (dense_support and isinstance(rows, np.ndarray)):
            return kernel_module._dot_block(rows, support_vectors[part])
        return _dense_products(buffers, rows, support_vectors[part])

    def block_decisions(first, last):
        rows = X[first:last]
        if support is not None and dense_support and not sparse_products and sp.issparse(rows) and \
                rows.shape[0] * rows.shape[1] * 8 <= PREDICT_DENSE_BYTES:
            rows = rows.toarray()  # (BLAS's dense products, a block at a time)
        if support is not None and dense_support and isinstance(rows, np.ndarray):
            rows = rows.astype(support_vectors.dtype, copy=False)
        decisions = np.zeros((last - first, n_decisions))
        for start in range(0, n_sv, support_step):
            part = slice(start, start + support_step)
            if support is None:
                values = kernel(rows, support_vectors[part])
            else:
                values = kernel.from_products(products_of(rows, part), X_norms[first:last], support.sq_norms[part])
            decisions += _coefficient_products(values, coef, part)
        return decisions

    if n_rows * n_sv < PARALLEL_PREDICT_VALUES:
        out = np.empty((n_rows, n_decisions))

        def decide_rows(first, last):
            out[first:last] = block_decisions(first, last)

        # (the products, then the decisions)
        blas_in_equal_parts(decide_rows, n_rows, n_rows * n_sv * (n_features + n_decisions))
        return out
    return _in_blocks_on_threads(block_decisions, n_rows, n_decisions, min(n_sv, support_step), n_jobs)


def _whole_support_decisions(X, support, coef, kernel):
    """:func:`kernel_decisions` of dense rows ``X`` against dense support vectors few enough to
    be one part (:func:`_support_step`) in float64, and kernel values few enough for one
    block: the same blocks and products, without the set-up that larger predictions pay for
    (thread buffers, float32 and sparse products), which is most of a small prediction's time."""
    n_rows, (n_sv, n_features) = X.shape[0], support.rows.shape
    n_decisions = _n_decisions(coef)
    form = kernel.compiled_form()
    X_norms = row_sq_norms(X) if form[0] == RBF else np.empty(0)  # (only RBF's values read them)
    notice_compilation(apply_kernel)

    def decisions(first, last):
        products = np.matmul(X[first:last], support.rows.T)
        apply_kernel_on_cores(products, X_norms[first:last], support.sq_norms, form)
        return _coefficient_products(products, coef, slice(0, n_sv))

    multiply_adds = n_rows * n_sv * (n_features + n_decisions)
    if multiply_adds < BLAS_UNTHREADED_WORK:
        return decisions(0, n_rows)  # (what blas_in_equal_parts does, without the copy)
    out = np.empty((n_rows, n_decisions))

    def decide_rows(first, last):
        out[first:last] = decisions(first, last)

    blas_in_equal_parts(decide_rows, n_rows, multiply_adds)
    return out


def _in_blocks_on_threads(block_decisions, n_rows, n_decisions, part_size, n_jobs):
    """The (n_rows, n_decisions) decisions of ``block_decisions(first, last)`` of blocks of test
    rows, whose kernel values against parts of ``part_size`` support vectors stay within
    ``PREDICT_BLOCK_BYTES``, spread over ``n_jobs`` threads: blocks of equal size, as many as a
    multiple of the threads, so that no thread is left with a block more than the others
    (``n_jobs``: the estimator's parameter)."""
    n_jobs = resolve_n_jobs(n_jobs)
    out = np.empty((n_rows, n_decisions))
    n_blocks = -(-n_rows // max(1, PREDICT_BLOCK_BYTES // (8 * part_size)))
    n_blocks = -(-n_blocks // n_jobs) * n_jobs
    step = max(1, -(-n_rows // n_blocks))

    def decide_block(first):
        last = min(first + step, n_rows)
        out[first:last] = block_decisions(first, last)

    map_in_threads(decide_block, range(0, n_rows, step), n_jobs)
    return out


def _split_decisions(X, split, coef, form, n_jobs):
    """``K(X, SV) @ coef`` of a built-in kernel's compiled ``form`` with the support vectors'
    :class:`FeatureSplit`: per block of (centred) test rows, BLAS's products of the dense
    features, then in compiled code those of the sparse ones and the kernel values, a part of
    the support vectors at a time."""
    n_rows = X.shape[0]
    # (the parts of the support vectors as the split's sparse parts hold them)
    ends = np.cumsum([part.shape[1] for part in split.sparse_parts])
    parts = [slice(end - part.shape[1], end) for end, part in zip(ends, split.sparse_parts)]
    dense_rows = split.dense_rows
    if split.dense_grid is not None and exact_in_float32(
            X, split.dense_grid, lambda rows: _centred(rows[:, split.dense], split.centre[split.dense])):
        dense_rows = split.dense_rows32
    buffers = threading.local()
    notice_compilation(apply_kernel_after_sparse_products)

    def block_decisions(first, last):
        rows = _centred(X[first:last], split.centre)
        row_norms = row_sq_norms(rows)
        dense_part, sparse_part = rows[:, split.dense].astype(dense_rows.dtype), rows[:, split.sparse]  # (copies)
        decisions = np.zeros((last - first, _n_decisions(coef)))
        for part, sparse_transpose in zip(parts, split.sparse_parts):
            products = _dense_products(buffers, dense_part, dense_rows[part])
            apply_kernel_after_sparse_products(products, sparse_part, sparse_transpose, row_norms,
                                               split.sq_norms[part], *form)
            decisions += _coefficient_products(products, coef, part)
        return decisions

    return _in_blocks_on_threads(block_decisions, n_rows, _n_decisions(coef), split.sparse_parts[0].shape[1],
                                 n_jobs)


def _dense_products(buffers, rows, part_rows):
    """The float64 products ``rows @ part_rows.T`` of two dense arrays of one type, in this
    thread's buffers: float32 ones (exact products, :func:`svmkit._exact.exact_in_float32`) widened."""
    products = reused_array(buffers, "products", (rows.shape[0], part_rows.shape[0]), part_rows.dtype)
    np.matmul(rows, part_rows.T, out=products)
    if products.dtype == np.float64:
        return products
    widened = reused_array(buffers, "widened", (rows.shape[0], part_rows.shape[0]), np.float64)
    widened[...] = products
    return widened


def _add_sparse_products(rows, data, products):
    """``products +=`` the float64 products of CSR ``rows`` with the rows of ``data`` (a
    :class:`svmkit._core.kernels.KernelData`) over the nonzeros of ``rows``; returns ``products``."""
    notice_compilation(add_sparse_products)
    add_sparse_products(rows.indptr.astype(np.int64), rows.indices.astype(np.int64),
                        rows.data.astype(np.float64, copy=False), np.arange(rows.shape[0]), data, products)
    return products


def _centred(rows, centre):
    """Dense float64 ``rows - centre`` (a new array) of dense or CSR rows."""
    return (rows.toarray() if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)) - centre
