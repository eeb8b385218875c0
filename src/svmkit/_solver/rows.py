"""Where kernel rows come from: the row sources the solver asks, without knowing which.

* :class:`KernelRows`: a kernel on dense or CSR data; a built-in kernel (one that declares
  its compiled form, :meth:`svmkit.kernels.Kernel.compiled_form`) has its rows computed in
  compiled code, any other kernel object in Python, block by block.
* :class:`PrecomputedRows`: a Gram matrix in memory (``kernel='precomputed'``).

Each gives the solver what it needs: its compiled form, which the Gram strategy's compiled
solver computes rows from (:meth:`compiled`), rows written into a store or cache
(:meth:`rows_into`: compiled loops, BLAS or Python), blocks, the diagonal, the source of a
subset of the rows (a problem's own), and for the linear kernel the change of ``K a`` through
``w`` (:meth:`weighted_columns`).
"""

from __future__ import annotations

import threading
from collections import namedtuple

import numpy as np
import scipy.sparse as sp

from .. import _plan
from .._parallel import blas_in_equal_parts, in_equal_parts
from ..kernels import row_sq_norms
from .._core.kernels import (
    LINEAR, PRECOMPUTED, RBF, SIGMOID, add_sparse_products, apply_kernel, apply_kernel_after_sparse_products,
    complete_lower_rows, dense_kernel_data, kernel_diagonal, kernel_columns, precomputed_kernel_data,
    sparse_kernel_data,
)
from .._core.working_set import gather_block
from .._exact import exact_in_float32, float32_grid
from .._first_use import notice_compilation
from .._features import centred_parts, common_features, nonzero_fraction, split_features

_BLOCK_VALUES = 2**21  # values of a block of a Python kernel computed at once (16 MB of float64)

CommonSplit = namedtuple("CommonSplit", "common rest sq_norms rest_products in_common")
CommonSplit.__doc__ = """Sparse rows whose products BLAS takes for a few common features and
compiled loops by feature for the others (:meth:`KernelRows.common_split`).

common : 2-D array, the common features of every row, dense and transposed (features by rows,
    C-ordered), for BLAS's products
rest : :class:`svmkit._core.kernels.KernelData` of the rows without those features (products
    only, by feature: :func:`svmkit._core.kernels.add_sparse_products`)
sq_norms : 1-D array, the squared norm of every whole row, in ``common``'s type
rest_products : float, the products by feature of the other features a kernel value takes on
    average
in_common : 1-D bool array, whether each feature is one of the common ones
"""


class KernelRows:
    """The kernel rows of ``kernel`` on the training rows ``X`` (a C-ordered float64 array or
    a canonical CSR matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import RBFKernel
    >>> source = KernelRows(RBFKernel(gamma=0.5), np.array([[0.0], [1.0]]))
    >>> source.block(np.array([0, 1])).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """

    def __init__(self, kernel, X, whole=None):
        self.kernel = kernel
        self._X = X
        self.form = kernel.compiled_form()
        self._data = {}
        self._making = threading.Lock()  # (threads solving problems on one source make its data once)
        self._whole = whole  # (a subset gathered from another source's data: that source and the rows)

    @property
    def X(self):
        """The rows; those of a subset gathered from another source's data (``X`` None) copied
        where first read (compiled code and BLAS read the gathered data instead)."""
        if self._X is None:
            source, rows, _ = self._whole
            self._X = source.X[rows]
        return self._X

    @property
    def n_rows(self):
        return self.X.shape[0] if self._X is not None else self._whole[1].shape[0]

    @property
    def n_features(self):
        return self.X.shape[1] if self._X is not None else self._whole[0].n_features

    @property
    def kernel_code(self):
        """The compiled kernel's code, or None for a kernel computed in Python."""
        return None if self.form is None else self.form[0]

    @property
    def is_linear(self):
        return self.kernel_code == LINEAR

    @property
    def sparse_density(self):
        """The fraction of nonzeros of sparse data (None for dense data)."""
        if self._X is None or not sp.issparse(self.X):
            return None
        return nonzero_fraction(self.X)

    def value_bound(self):
        """The largest magnitude a kernel value can have: 1 for the RBF and sigmoid kernels,
        from the largest squared norm for the linear and polynomial ones (``|x'z| <= max
        |x|^2``), the largest diagonal value for a kernel computed in Python (a positive
        semi-definite kernel's ``|k(x, z)|`` is at most ``max k(x, x)``)."""
        if self.form is None:
            return float(np.max(np.abs(self.diagonal()), initial=0.0))
        code, gamma, coef0, degree = self.form
        if code in (RBF, SIGMOID):
            return 1.0
        largest = float(np.max(self._sq_norms(), initial=0.0))
        if code == LINEAR:
            return largest
        with np.errstate(over="ignore"):  # (beyond float64: inf, and the kernel's own checks name the problem)
            return float(np.float64(abs(gamma) * largest + abs(coef0)) ** degree)

    def values_exact_in_float32(self):
        """Whether every kernel value is exact in float32: the linear kernel on rows whose dot
        products and their partial sums all are (counts and small integers;
        :func:`svmkit._exact.exact_in_float32`), so that float32 rows are the float64 ones;
        found once."""
        if not self.is_linear:
            return False
        if "exact_in_float32" not in self._data:
            if self._whole is not None:  # (rows of exact rows)
                exact = self._whole[0].values_exact_in_float32()
            else:
                X = self.X
                grid = float32_grid(X.data if sp.issparse(X) else X)
                exact = grid is not None and exact_in_float32(X, grid)
            self._data["exact_in_float32"] = exact
        return self._data["exact_in_float32"]

    def _sq_norms(self):
        """The float64 squared norm of every row, made once (a subset's from its source's)."""
        if "sq_norms" not in self._data:
            if self._X is None:
                source, rows, _ = self._whole
                self._data["sq_norms"] = source._sq_norms()[rows]
            else:
                self._data["sq_norms"] = np.asarray(row_sq_norms(self.X), dtype=np.float64)
        return self._data["sq_norms"]

    def compiled(self, dtype):
        """The :class:`svmkit._core.kernels.KernelData` of the rows in ``dtype``, made once:
        the dense rows transposed, or the CSR arrays."""
        key = np.dtype(dtype)
        with self._making:
            if key not in self._data:
                code, gamma, coef0, degree = self.form
                if self._whole is not None:
                    # (gathered from the whole's transpose, made once for all its subsets: a
                    # gather along rows of the transpose, not a transposition per subset; or,
                    # for a subset that must not make the whole's, from the whole's rows)
                    source, rows, make_whole = self._whole
                    whole = source.compiled(key) if make_whole else source.made(key)
                    if whole is None:
                        self._data[key] = dense_kernel_data(_transposed(source.X, key, rows).T, code, gamma, coef0,
                                                            degree)
                    else:
                        self._data[key] = whole._replace(XT=_columns(whole.XT, rows), sq_norms=whole.sq_norms[rows])
                elif sp.issparse(self.X):
                    self._data[key] = sparse_kernel_data(self.X, code, gamma, coef0, degree, dtype)
                else:
                    # (dense_kernel_data keeps the transpose of its rows: that of this view is the copy)
                    self._data[key] = dense_kernel_data(_transposed(self.X, key).T, code, gamma, coef0, degree)
            return self._data[key]

    def made(self, dtype):
        """The :meth:`compiled` data in ``dtype`` where made already, else None."""
        with self._making:
            return self._data.get(np.dtype(dtype))

    def dense_rows(self, dtype):
        """The rows as a C-ordered array in ``dtype`` (the rows themselves in float64, else a
        copy made once), or None for sparse rows."""
        if sp.issparse(self.X):
            return None
        if np.dtype(dtype) == self.X.dtype:
            return self.X
        key = ("rows", np.dtype(dtype))
        with self._making:
            if key not in self._data:
                self._data[key] = self.X.astype(dtype)
            return self._data[key]

    def transposed(self, dtype):
        """The rows transposed (features by rows), dense, C-ordered, in ``dtype``, and their
        squared norms, for BLAS products; made once (for dense rows, those of :meth:`compiled`).

        BLAS multiplies a few rows by this layout several times faster than by the
        transposed view of the rows themselves (docs/performance.md)."""
        if self._X is None or not sp.issparse(self.X):
            data = self.compiled(dtype)
            return data.XT, data.sq_norms
        key = ("transposed", np.dtype(dtype))
        if key not in self._data:
            X = self.X.astype(dtype)
            self._data[key] = (np.ascontiguousarray(X.T.toarray()), row_sq_norms(X))
        return self._data[key]

    def split_transposed(self, dtype):
        """For sparse rows made dense for BLAS's products: ``(dense, sparse, sq_norms)`` where
        their features split (:mod:`svmkit._features`), the dense and the sparse features of
        the rows, centred for RBF, transposed as in :meth:`transposed` (whose copy it replaces),
        and the squared norms of the centred rows; else None. Made once. (Dense rows are not
        split: their products' time was measured unchanged, and the split would be a second
        copy of them.)"""
        key = ("split", np.dtype(dtype))
        if key not in self._data:
            split = None
            if self._X is not None and sp.issparse(self.X):
                XT = self.transposed(dtype)[0]
                found = split_features(XT, centred=self.form[0] == RBF)
                if found is not None:
                    split = centred_parts(XT, found)
                    del self._data[("transposed", np.dtype(dtype))]  # (no longer read)
            self._data[key] = split
        return self._data[key]

    def common_features(self):
        """For sparse rows of a compiled kernel, the few features held by many rows that take
        most of their products by feature (:func:`svmkit._features.common_features`, as many
        as a float64 copy may hold), else None; found once."""
        with self._making:
            if "common_features" not in self._data:
                found = None
                if self._X is not None and sp.issparse(self.X) and self.form is not None:
                    found = common_features(np.bincount(self.X.indices, minlength=self.n_features), self.n_rows, 8)
                self._data["common_features"] = found
            return self._data["common_features"]

    def common_split(self, dtype):
        """For sparse rows whose :meth:`common_features` there are, a :class:`CommonSplit` in
        ``dtype``; else None. Made once."""
        key = ("common", np.dtype(dtype))
        common = self.common_features()
        with self._making:
            if key not in self._data:
                split = None
                if common is not None:
                    X = self.X
                    if "common_rest" not in self._data:  # (the other features: one copy for every type)
                        in_common = np.zeros(X.shape[1], dtype=bool)
                        in_common[common] = True
                        rest = sparse_kernel_data(_without_features(X, in_common), LINEAR, 1.0, 0.0, 1.0)
                        rest_counts = np.diff(rest.column_starts).astype(np.float64)  # (rows holding each feature)
                        self._data["common_rest"] = (rest, float(np.dot(rest_counts, rest_counts)) / X.shape[0] ** 2,
                                                     in_common)
                    rest, rest_products, in_common = self._data["common_rest"]
                    split = CommonSplit(np.ascontiguousarray(X[:, common].T.toarray(), dtype=dtype), rest,
                                        self._sq_norms().astype(dtype), rest_products, in_common)
                self._data[key] = split
            return self._data[key]

    def diagonal(self):
        """``k(x, x)`` of every row (float64), as the compiled rows compute it; made once (the
        plan's :meth:`value_bound` of a Python kernel reads it before the solver does)."""
        if "diagonal" not in self._data:
            if self._whole is not None:
                source, rows, _ = self._whole
                diagonal = source.diagonal()[rows]
            elif self.form is None:
                diagonal = np.asarray(self.kernel.diag(self.X), dtype=np.float64)
            elif self.form[0] == RBF:
                diagonal = np.ones(self.n_rows)  # (kernel_diagonal's 1 exactly: no data to read)
            elif sp.issparse(self.X) or np.dtype(np.float64) in self._data:
                diagonal = kernel_diagonal(self.compiled(np.float64))
            else:
                # (dense rows a block at a time: no float64 transpose of all of them kept for it)
                step = max(1, _BLOCK_VALUES // max(self.n_features, 1))
                diagonal = np.concatenate([
                    kernel_diagonal(dense_kernel_data(_transposed(self.X[start:start + step], np.float64).T, *self.form))
                    for start in range(0, max(self.n_rows, 1), step)])
            self._data["diagonal"] = diagonal
        return self._data["diagonal"]

    def subset(self, rows, dense=False, gather=False):
        """The source of the rows ``rows`` only (gathered once; with ``dense``, sparse rows
        made dense, for BLAS products). With ``gather`` (many subsets of one source: one-vs-one
        problems), dense rows of a compiled kernel take their data for compiled code from this
        source's, made once, and their diagonal from its diagonal; with ``gather='made'`` (a
        subset of a large source, solved while the source's data stay), from this source's
        data where made already, else from its rows, and no copy of the rows in float64. A
        subset of a gathered subset is one of the source it was gathered from (no copy of the
        gathered rows made on the way), its data never making that source's."""
        if self._X is None:
            source, whole_rows, make_whole = self._whole
            return source.subset(whole_rows[rows], dense, gather if make_whole or not gather else "made")
        if gather and self.form is not None and not sp.issparse(self.X):
            return KernelRows(self.kernel, None, whole=(self, rows, gather != "made"))
        X = self.X[rows]
        if sp.issparse(X):
            return KernelRows(self.kernel, X.toarray() if dense else X)
        return KernelRows(self.kernel, X)

    def rows_into(self, rows, out, dots, places=None):
        """``out[places[k]] =`` the kernel row ``rows[k]`` over every row of the data
        (``places`` None: ``out[k]``), in ``out``'s type: by compiled loops (``dots``:
        ``'loops'``, ``'sparse'``; the columns shared out over the cores), by BLAS products
        and :func:`svmkit._core.kernels.apply_kernel` (``'blas'``; ``'common'``: those of the
        :meth:`common_split`'s features, the others' by feature, or compiled loops where the
        rows have no such features), or by the kernel object
        (``'python'``); the last two straight into runs of consecutive places, the other rows
        through a block of at most ``SCATTERED_ROWS_BYTES``."""
        if places is None:
            places = np.arange(rows.shape[0])
        if self.form is not None and dots != "blas" and (dots != "common" or self.common_split(out.dtype) is None):
            data = self.compiled(out.dtype)
            # (a part of the columns of every row on each core: equal work however few the rows)
            in_equal_parts(lambda first, last: kernel_columns(data, rows, out, places, first, last), out.shape[1],
                           rows.shape[0] * out.shape[1])
            return
        runs, scattered = _runs_of_slots(places)
        for start, stop in runs:
            self._rows_into_block(rows[start:stop], out[places[start]:places[start] + stop - start], dots)
        if scattered.size:
            step = max(1, _plan.SCATTERED_ROWS_BYTES // (out.shape[1] * out.itemsize))
            block = np.empty((min(step, scattered.shape[0]), out.shape[1]), dtype=out.dtype)
            for start in range(0, scattered.shape[0], step):
                part = scattered[start:start + step]
                self._rows_into_block(rows[part], block[:part.shape[0]], dots)
                out[places[part]] = block[:part.shape[0]]

    def gram_into(self, out, dots):
        """``out =`` the square kernel matrix of all the rows, in ``out``'s type, as
        :meth:`rows_into` computes its rows; by BLAS (dense rows, ``dots`` ``'blas'``) each
        value once: BLAS's products on and below the diagonal, by parts of the rows of equal
        work, made kernel values and mirrored above it
        (:func:`svmkit._core.kernels.complete_lower_rows`), so that the matrix is symmetric
        exactly (BLAS's products of two rows in either order may differ in their last bits).
        Compiled loops give both orders the same value already, and take whole rows: a block
        of rows up to the diagonal, a call each, costs more than it saves at the sizes whose
        rows are all computed first."""
        n = self.n_rows
        if self.form is None or dots != "blas" or self.split_transposed(out.dtype) is not None:
            self.rows_into(np.arange(n), out, dots)
            return
        XT, norms = self.transposed(out.dtype)
        notice_compilation(complete_lower_rows)

        def lower_rows(first, last):
            for start in range(first, last, _plan.GRAM_BLOCK_ROWS):  # (a block's columns up to its last row)
                stop = min(start + _plan.GRAM_BLOCK_ROWS, last)
                np.matmul(XT[:, start:stop].T, XT[:, :stop], out=out[start:stop, :stop])
            complete_lower_rows(out, norms, *self.form, first, last)

        blas_in_equal_parts(lower_rows, n, (n * (n + 1) // 2) * self.n_features, lower_triangle=True)

    def cross_into(self, split, out):
        """``out =`` the kernel values of the rows before ``split`` against those from it on
        (C-ordered, ``split`` rows, in ``out``'s type): BLAS products and the compiled kernel,
        for dense rows of a compiled kernel (the block of two classes of a one-vs-one pair)."""
        XT, norms = self.transposed(out.dtype)
        notice_compilation(apply_kernel)

        def cross_rows(first, last):
            np.matmul(XT[:, first:last].T, XT[:, split:], out=out[first:last])
            apply_kernel(out[first:last], norms[first:last], norms[split:], *self.form)

        blas_in_equal_parts(cross_rows, split, out.size * self.n_features)

    def _rows_into_block(self, rows, block, dots):
        """``block[k] =`` the kernel row ``rows[k]``: BLAS products (of the common features
        and then those of the others by feature, where ``dots`` is ``'common'``) and the
        compiled kernel, the rows shared out over BLAS's threads
        (:func:`svmkit._parallel.blas_in_equal_parts`), or the kernel object."""
        if self.form is None:
            step = max(1, _BLOCK_VALUES // max(self.n_rows, 1))
            for start in range(0, rows.shape[0], step):
                block[start:start + step] = self.kernel(self.X[rows[start:start + step]], self.X)
            return
        if dots == "common":
            common, rest, norms, rest_products, _ = self.common_split(block.dtype)
            notice_compilation(add_sparse_products)

            def common_rows(first, last):
                part, out = rows[first:last], block[first:last]
                np.matmul(common[:, part].T, common, out=out)
                add_sparse_products(rest.indptr, rest.indices, rest.values, part, rest, out)
                if self.form[0] != LINEAR:
                    apply_kernel(out, norms[part], norms, *self.form)

            # (the work in BLAS's multiply-adds: the common features', and those by feature)
            blas_in_equal_parts(common_rows, rows.shape[0],
                                block.size * (common.shape[0] + _plan.BY_FEATURE_VALUE_COST * rest_products))
            return
        split = self.split_transposed(block.dtype)
        if split is not None:
            dense, sparse, norms = split
            notice_compilation(apply_kernel_after_sparse_products)

            def split_rows(first, last):
                part, out = rows[first:last], block[first:last]
                np.matmul(dense[:, part].T, dense, out=out)
                apply_kernel_after_sparse_products(out, np.ascontiguousarray(sparse[:, part].T), sparse, norms[part],
                                                   norms, *self.form)

            blas_in_equal_parts(split_rows, rows.shape[0], block.size * self.n_features)
            return
        XT, norms = self.transposed(block.dtype)

        def dense_rows(first, last):
            part, out = rows[first:last], block[first:last]
            np.matmul(XT[:, part].T, XT, out=out)
            if self.form[0] != LINEAR:
                apply_kernel(out, norms[part], norms, *self.form)

        blas_in_equal_parts(dense_rows, rows.shape[0], block.size * self.n_features)

    def block(self, rows, out=None, precision=np.float64):
        """The float64 block ``K(x_rows, x_rows)`` (a working set's), into ``out`` where given
        (float64, C-ordered); sparse rows made dense for BLAS's products where such a copy pays
        (:func:`svmkit._plan.dense_copy_pays`, as for the solver's rows: SciPy's sparse-by-sparse
        products are far slower), else where they have :meth:`common_features`, BLAS's
        products of those (in ``precision``: a row cache's type) and compiled loops' of the
        others; a built-in kernel's rows shared out over BLAS's threads
        (:func:`svmkit._parallel.blas_in_equal_parts`)."""
        A = self.X[rows]
        if sp.issparse(A) and _plan.dense_copy_pays(self.sparse_density, A.shape[0], self.n_features, np.float64):
            A = A.toarray()
        elif sp.issparse(A) and self.form is not None and self.common_features() is not None:
            return self._common_block(rows, out, precision)
        if out is None:
            out = np.empty((A.shape[0], A.shape[0]))
        if self.form is None:
            out[:] = self.kernel(A, A)
            return out
        if not sp.issparse(A):
            # (straight into the block, as rows are: the products of the rows and their
            # transposed copy, two buffers, which NumPy multiplies by BLAS's gemm, not by its
            # syrk and a copy of one triangle; then the compiled kernel on their squared norms)
            A = np.asarray(A, dtype=precision)
            AT, norms = np.array(A.T, order="C"), row_sq_norms(A)
            products = out if A.dtype == out.dtype else np.empty(out.shape, dtype=A.dtype)

            def block_rows(first, last):
                np.matmul(A[first:last], AT, out=products[first:last])
                if products is not out:
                    out[first:last] = products[first:last]
                if self.form[0] != LINEAR:
                    apply_kernel(out[first:last], norms[first:last], norms, *self.form)

            blas_in_equal_parts(block_rows, A.shape[0], out.size * self.n_features)
            return out

        def block_rows(first, last):
            out[first:last] = self.kernel(A[first:last], A)

        blas_in_equal_parts(block_rows, A.shape[0], out.size * self.n_features)
        return out

    def _common_block(self, rows, out, precision):
        """:meth:`block` of sparse rows by their :meth:`common_split` in ``precision``: BLAS's
        products of the common features (of a copy of the rows' columns, so that BLAS multiplies
        two buffers, not one by its own transpose), then those of the others by feature, over the
        features these rows hold only (numbered anew: by-feature data of all the columns take a
        pass over them), then the kernel."""
        common, _, norms, _, in_common = self.common_split(precision)
        if out is None:
            out = np.empty((rows.shape[0], rows.shape[0]))
        part = common[:, rows]
        out[:] = np.ascontiguousarray(part.T) @ part
        others = _without_features(self.X[rows], in_common)  # (these rows' entries only)
        held, features = np.unique(others.indices, return_inverse=True)
        others = sp.csr_matrix((others.data, features, others.indptr), shape=(rows.shape[0], held.size))
        others = sparse_kernel_data(others, LINEAR, 1.0, 0.0, 1.0)
        notice_compilation(add_sparse_products)
        add_sparse_products(others.indptr, others.indices, others.values, np.arange(rows.shape[0]), others, out)
        if self.form[0] != LINEAR:
            block_norms = norms[rows].astype(np.float64)
            apply_kernel(out, block_norms, block_norms, *self.form)
        if np.dtype(precision) != np.float64:
            out[:] = out.astype(precision)  # (rounded as the cached rows are)
        return out

    def weighted_columns(self, rows, coef):
        """``sum_k coef_k K(x, x_{rows[k]})`` for every row ``x`` of the data, through
        ``w = sum_k coef_k x_{rows[k]}`` (n d multiply-adds in float64, not one row per
        ``k``); linear kernel only."""
        w = np.asarray(self.X[rows].T @ coef).ravel()
        return np.asarray(self.X @ w).ravel()


def _columns(XT, rows):
    """``XT[:, rows]``, C-ordered: copied a run of consecutive rows at a time where ``rows``
    are few such runs (a one-vs-one pair's rows in class order: two), several times faster
    than a gather of every column."""
    run_starts = np.flatnonzero(np.diff(rows) != 1) + 1
    if rows.shape[0] == 0 or run_starts.shape[0] >= _plan.MOST_COPIED_RUNS:
        return np.take(XT, rows, axis=1)
    bounds = np.concatenate(([0], run_starts, [rows.shape[0]]))
    return np.concatenate([XT[:, rows[first]:rows[last - 1] + 1] for first, last in zip(bounds[:-1], bounds[1:])],
                          axis=1)


def _without_features(X, features):
    """A copy of CSR rows ``X`` without the entries of the ``features`` (a bool per feature).

    Examples
    --------
    >>> rows = _without_features(sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]])), np.array([False, True]))
    >>> rows.toarray()
    array([[1., 0.],
           [0., 0.]])
    """
    rest = X.copy()
    rest.data[features[rest.indices]] = 0.0
    rest.eliminate_zeros()
    return rest


def _transposed(X, dtype, rows=None):
    """``X.T`` (``X[rows].T`` where ``rows`` are given) as a C-ordered array in ``dtype``,
    copied :data:`svmkit._plan.TRANSPOSE_BLOCK_ROWS` rows at a time (converted on the way).

    Examples
    --------
    >>> _transposed(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.float32)
    array([[1., 3., 5.],
           [2., 4., 6.]], dtype=float32)
    """
    n = X.shape[0] if rows is None else rows.shape[0]
    out = np.empty((X.shape[1], n), dtype=dtype)
    for start in range(0, n, _plan.TRANSPOSE_BLOCK_ROWS):
        block = slice(start, start + _plan.TRANSPOSE_BLOCK_ROWS)
        out[:, block] = (X[block] if rows is None else X[rows[block]]).T
    return out


def _runs_of_slots(places):
    """The runs ``(start, stop)`` of at least ``DIRECT_ROWS_MIN_RUN`` consecutive slots in
    ``places`` (all of it where it is one run), and the positions of the others.

    Examples
    --------
    >>> runs, others = _runs_of_slots(np.array([7, 1, 2, 3] + list(range(40, 80))))
    >>> runs, others
    ([(4, 44)], array([0, 1, 2, 3]))
    """
    n = places.shape[0]
    if n and places[-1] - places[0] == n - 1 and np.all(np.diff(places) == 1):
        return [(0, n)], np.empty(0, dtype=np.int64)
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(places) != 1) + 1, [n]))
    runs = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b - a >= _plan.DIRECT_ROWS_MIN_RUN]
    in_runs = np.zeros(n, dtype=bool)
    for a, b in runs:
        in_runs[a:b] = True
    return runs, np.flatnonzero(~in_runs)


def square_block(K, rows, out=None):
    """``K[np.ix_(rows, rows)]`` of a square matrix, float64: gathered by compiled code, a row
    of ``K`` at a time, its values picked in cache (several times faster than NumPy's fancy
    indexing of the columns); into ``out`` where given (float64, C-ordered).

    Examples
    --------
    >>> square_block(np.arange(9.0).reshape(3, 3), np.array([2, 0]))
    array([[8., 6.],
           [2., 0.]])
    """
    rows = np.asarray(rows, dtype=np.int64)
    if out is None:
        out = np.empty((rows.shape[0], rows.shape[0]))
    notice_compilation(gather_block)
    gather_block(np.ascontiguousarray(K, dtype=np.float64), rows, rows, out)
    return out


class PrecomputedRows:
    """The rows of a Gram matrix ``K`` in memory (``kernel='precomputed'``), float64.

    Examples
    --------
    >>> import numpy as np
    >>> PrecomputedRows(np.array([[2.0, 1.0], [1.0, 3.0]])).diagonal()
    array([2., 3.])
    """

    kernel_code = PRECOMPUTED
    is_linear = False
    sparse_density = None
    n_features = 0

    def __init__(self, K):
        self.K = K

    def common_features(self):
        """None: a Gram matrix has no features (:meth:`KernelRows.common_features`)."""
        return None

    @property
    def n_rows(self):
        return self.K.shape[0]

    def compiled(self):
        """The Gram matrix as compiled code reads it (C-ordered, writeable float64: a copy of
        another)."""
        K = self.K
        if not (K.dtype == np.float64 and K.flags.c_contiguous and K.flags.writeable):
            K = np.array(K, dtype=np.float64, order="C")
        return precomputed_kernel_data(K)

    def rows_into(self, rows, out, dots=None, places=None):
        out[np.arange(rows.shape[0]) if places is None else places] = self.K[rows]

    def value_bound(self):
        """The largest magnitude of the Gram matrix's values."""
        return float(max(np.max(self.K, initial=0.0), -np.min(self.K, initial=0.0)))  # (no copy of K)

    def diagonal(self):
        return np.array(np.diagonal(self.K), dtype=np.float64)

    def subset(self, rows):
        return PrecomputedRows(square_block(self.K, rows))

    def block(self, rows, out=None):
        return square_block(self.K, rows, out)
