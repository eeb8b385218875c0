"""What every kernel SVM estimator shares: parameters, kernels, input checks,
the solver call and chunked kernel evaluation at prediction time."""

from __future__ import annotations

import contextlib
import logging
import math
import numbers
import os
import sys
import warnings
import weakref

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .. import kernels as kernel_module
from .._solver import (
    ITERATION_LIMIT,
    OPTIMAL,
    STALLED,
    GramBlocks,
    PrecomputedGram,
    gathered,
    solve_dual,
)
from .._core.checks import all_finite
from .._parallel import map_in_threads, on_pool_thread, single_threaded_blas, usable_cores
from .._core.kernel_blocks import KERNEL_LINEAR, KERNEL_RBF, sparse_row_products, sparse_sparse_products
from .._core.small_decisions import linear_weights, small_decisions, support_sq_norms
from ..kernels import LinearKernel, RBFKernel, _result_dtype, resolve_gamma, row_sq_norms

# Per block of test rows: each block passes through the kernel's steps and the product with
# the coefficients while it stays in a core's 2 MB L2 cache (splice: 5.2 ms instead of 7.5 ms
# with 16 MB blocks, svmguide1 3.6 instead of 4.7 ms; 256 kB blocks cost more in per-block calls)
_PREDICT_BLOCK_BYTES = 2 * 2**20
_PREDICT_MIN_ROWS = 64  # but blocks of at least this many rows, for efficient BLAS products
_DENSE_SV_BYTES = 256 * 2**20  # largest dense copy of sparse support vectors made for prediction
# fewer kernel values than this are computed by one worker, with BLAS on one thread: a product of
# a few million values on two BLAS threads waits for the second core, which on a shared machine
# may be away for milliseconds (synthetic n = 10,000, 3.1 million values, median of 15: 190 ms with
# two BLAS threads, 21-24 ms with one); two workers, each with one BLAS thread, win from about a
# million values (alternating, medians of 31-41: splice 1.5 million values 6.3-6.8 ms against 8.0
# with one worker, synthetic n = 10,000 8.2 against 10.1 ms; digits, 0.3 million: 2.9 against 2.1).
# Measured again with the workers' threads started once per process and each fit followed by
# scikit-learn's and oneDAL's as in the benchmark, digits right after its fit, median of 15: 2.48 ms
# with two workers against 2.96 ms with one in one run, 3.92 against 3.57 ms in another (with
# time stolen by the host), and 7.05 ms (0.23x LIBSVM) in a benchmark run with two: left at a
# million.
_PARALLEL_PREDICT_VALUES = 2**20
# Predictions with one column of coefficients (two classes, SVR, one class) on dense data with at
# least this many features and products of at least _SHARED_PRODUCT_WORK multiply-adds: each
# block's products run on all of BLAS's threads in the calling thread (one product on two threads
# ran twice as fast, where two single-threaded products on the workers ran 1.0-1.4x as fast as
# one), the kernel's remaining steps (exp) and the product with the coefficients on the workers
# where there are enough kernel values (_PARALLEL_PREDICT_VALUES), else in the calling thread.
# Synthetic two-class data, some 2,200-2,900 support vectors, same process, alternating, median of
# 7-25, ms, each worker with its own products / this / oneDAL: 1,500 test rows of 32 features 5.1
# / 5.8 / 9.3; 64: 10.1 / 10.3 / 17.9; 100: 13.2 / 12.9 / 23.6 (another run 15.5 / 12.4); 128:
# 17.5 / 14.4 / 24.5; 256: 41.3 / 23.9 / 40.1; 400: 57.6 / 37.3 / 53.9; benchmarks' wide-linear
# (500) 25.3 / 16.1 / 25.6; 300 test rows of 784 features (one worker) 28.7 / 17.5 / 26.2, 100
# rows 12.1 / 7.2 / 11.3; 300 rows of 200 6.9 / 5.0 / 8.9. Interleaved with oneDAL's predictions
# as in the benchmark, median of 20: 2,000 x 500 24.2 / 15.6, 128 features 22.8 / 18.4, 784
# features 75.1 / 76.5. Several columns (multiclass) stay with the workers' own products: there,
# this way took usps 39.5 against 34.4 ms, 10 classes x 300 features 43.0 against 35.9 ms;
# but where they have too few kernel values for two workers, their one worker computes its
# products on all of BLAS's threads, as every lone worker does (interleaved with oneDAL's calls, median of 25, ms, BLAS
# on one thread / on both / oneDAL: usps 400 test rows 9.43 / 6.12 / 26.3, 150 rows 4.22 / 2.60
# / 12.86; 10 classes, 300 test rows x 3,000 support vectors x 300 features 11.35 / 6.82 / 80.1).
_SHARED_PRODUCT_FEATURES = 100
_SHARED_PRODUCT_WORK = 2**25
# Those products are computed in blocks of up to this many bytes: BLAS runs faster on taller
# blocks (2,000 rows x 3,873 support vectors x 784 features, two threads, ms: blocks of 134 rows
# 148, 268 rows 126, 536 rows 116, 1,072 rows 86, one product 85; 1,932 x 500: 35 / 31 / 29 / 28
# / 27; 2,200 x 256: 21 / 17 / 17 / 16 / 16)
_SHARED_PRODUCT_BLOCK_BYTES = 32 * 2**20
# Kernel products of fewer multiply-adds than this take a few microseconds: setting BLAS to one
# thread and back (13 us) would cost more than it could save, and is left out (heart_scale, 68
# test rows x 104 support vectors x 13 features: decision_function 0.095 -> 0.077 ms, and 0.134
# -> 0.108 ms right after the fit). OpenBLAS runs them on one thread anyway: it gives a GEMM one
# thread per 2^18 multiply-adds (GEMM_MULTITHREAD_THRESHOLD 4 x 65,536). Breast cancer's 143 test
# rows x 104 support vectors x 30 features (446,160) in the benchmark's order: 73 against 82-89 us
# with the limit at 2^18.
_TINY_PREDICT_WORK = 2**19
# The linear kernel's weights are added up by compiled loops up to this many multiply-adds
# (support vectors x problems x features), by BLAS above. Warm, the loops take 0.8 us against
# BLAS's 1.0 at 858 (wine), and 3.0-6.5 us against 2.4-3.6 at 2^15; right after another
# library's fit BLAS took 9.5 us at 858 (its code out of the caches), the loops 3.1. One-vs-one
# weights take the loops whatever their size: a support vector has nonzero coefficients in its
# own class's problems only, whose products alone the loops add (digits, 404 support vectors x 64
# features x 45 problems, 966 of them nonzero: 27 against 71 us; 3,000 x 256 x 45, 366 against
# 2,241 us), while BLAS multiplies every zero too.
_LOOP_WEIGHTS_WORK = 2**15
# RBF decisions on dense data take one compiled call (small_decisions) up to this many
# multiply-adds of their products (test rows x support vectors x features), as do linear
# decisions of fewer than _TINY_PREDICT_WORK: NumPy's dozen calls cost more than their arithmetic
# there (heart_scale, 7,072 kernel values: 65 -> 42 us, and 120 -> 67 us right after the fit;
# breast cancer, 14,872 values: 118 -> 87 us), while NumPy's exp, twice as fast as the compiled
# one, and BLAS's products on both cores win on larger blocks. With the input check and the
# one-vs-rest scores in the same call, wine's 45 test rows (RBF, 60 support vectors, 3 classes)
# took 26 us instead of 48 in the benchmark's order (each fit followed by scikit-learn's and
# oneDAL's, median of 38), iris's 22 instead of 31 us. The limit was 2^15 kernel values at any
# width. Two-class RBF problems of make_classification, each prediction after oneDAL's and
# LIBSVM's, median of 61, compiled / NumPy's blocks, us (shape: test rows x support vectors x
# features, millions of multiply-adds): 117 x 294 x 34, 1.2: 151 / 240 (0.095 / 0.150 of LIBSVM's
# time); 150 x 354 x 40, 2.1: 239 / 356 (0.089 / 0.133); 100 x 288 x 100, 2.9: 248 / 292; 40 x 120
# x 784, 3.8: 326 / 388; 200 x 470 x 40, 3.8: 380 / 369; 166 x 438 x 60, 4.4: 378 / 433; 200 x 490
# x 60, 5.9: 507 / 446; 266 x 642 x 50, 8.5: 753 / 680; 100 x 300 x 784, 23.5: 1,472 / 1,149.
_COMPILED_DECISION_WORK = 2**22
# ... and on data of at most this many features, those of fewer kernel values than two workers
# take (_PARALLEL_PREDICT_VALUES): there the exponentials dominate, and the compiled call's
# (since fused multiply-adds) in the same pass as the distances beat NumPy's passes. Same order,
# median of 31, two runs: benchmarks' small shapes 768 x 8 (256 test rows x 334 support vectors)
# 186 / 257 -> 163 / 150 us, 690 x 14 198 / 290 -> 205 / 193 us, 1243 x 21 709 / 557 -> 564 / 582
# us; but with the products of wider rows on one BLAS thread, 600 x 40 229 / 234 -> 244 / 232 us,
# 600 x 60 279 / 265 -> 318 / 314 us, 1500 x 30 799 / 752 -> 922 / 878 us.
_COMPILED_DECISION_FEATURES = 24
# The arrays of each fitted estimator's compiled decision path (BaseKernelSVM._decision_model),
# made at the end of its fit (or at its first prediction, after a load): kept out of the
# estimator's attributes (which persistence saves) and made again where those they were made
# from are no longer the estimator's (a new fit, a new intercept_)
_DECISION_MODELS = weakref.WeakKeyDictionary()
_NO_PAIRS = np.empty(0, dtype=np.int64)
# Sparse test rows with at most this fraction of nonzeros are multiplied with the support vectors
# in compiled code (RBF), not densified for BLAS (4,000 random rows against some 2,950 support
# vectors, time against the densified path: 200 features, density 0.05 / 0.10 / 0.15 / 0.20 /
# 0.30: 0.46 / 0.60 / 0.70 / 0.95 / 1.18; 1,000 features, 0.01 / 0.05 / 0.10: 0.14 / 0.36 / 0.60;
# a9a's 16,281 test rows, 123 features, 0.11, against 11,579 support vectors: 0.5 against 0.9 s;
# the same rows as a dense matrix, turned into sparse rows: 0.58 against 0.85 s)
_SPARSE_PRODUCTS_DENSITY = 0.15
# Sparse support vectors with at most this fraction of nonzeros stay sparse for those products:
# each nonzero of a test row adds its feature's nonzeros only (2,000 random test rows against
# 3,000 support vectors of the same density, time against the dense transposed support vectors
# (or, where these would not fit, sparse blocks): 20,000 features at 0.2% nonzeros 0.16; 2,000 at
# 1% 0.26; 1,000 at 2% 0.47; 300 at 4% 0.62; 500 at 8% 0.63; 123 at 11% 1.06)
_SPARSE_SUPPORT_DENSITY = 0.08


def is_real(value):
    """``isinstance(value, numbers.Real)``, Python's float and int first: the abstract class's
    check costs 0.2 us a parameter (SVC's checks of its parameters, warm: 2.4 -> 0.4 us)."""
    return type(value) is float or type(value) is int or isinstance(value, numbers.Real)


def is_integer(value):
    """``isinstance(value, numbers.Integral)``, Python's int first (see :func:`is_real`)."""
    return type(value) is int or isinstance(value, numbers.Integral)


def resolve_n_jobs(n_jobs):
    """Number of worker threads: ``None`` or -1 every core, a positive integer that many."""
    cores = usable_cores()
    if n_jobs is None or n_jobs == -1:
        return cores
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}.")
    return int(n_jobs)


def _is_plain_matrix(X, check_finite=True):
    """Whether ``X`` is a finite, C-ordered float64 matrix with at least one row (what
    ``validate_data`` returns unchanged, as far as ``X`` itself goes); with ``check_finite=False``
    its values are not looked at (the caller checks them in its own pass)."""
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] > 0
        and (not check_finite or all_finite(X))  # (compiled, no temporary array: 38 x 4, 1.7 -> 0.35 us)
    )


def _is_plain_training_data(X, y):
    """Whether ``validate_data(X, y)`` would return ``X`` and ``y`` unchanged: ``X`` a plain
    matrix (:func:`_is_plain_matrix`) with at least one column, ``y`` a finite 1-D numeric
    array with one value per row (``y=None`` is left to ``validate_data``, which refuses it
    where the estimator needs ``y``)."""
    return (
        type(y) is np.ndarray
        and y.ndim == 1
        and y.dtype.kind in "biuf"
        and _is_plain_matrix(X)
        and X.shape[0] == y.shape[0]
        and X.shape[1] > 0
        and (y.dtype.kind != "f" or bool(np.isfinite(y).all()))
    )


def enable_logging():
    logger = logging.getLogger("svmkit")
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[svmkit] %(message)s"))
        logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)


def _equal_block_rows(n_rows, n_columns, min_rows, n_workers):
    """Rows per block of ``n_rows`` rows of ``n_columns`` float64 kernel values: blocks of at
    most ``_PREDICT_BLOCK_BYTES`` (but at least ``min_rows`` rows, for BLAS's products), as many
    as a multiple of the workers and of equal size, so that no worker is left with a larger share.

    Examples
    --------
    >>> _equal_block_rows(1000, 1000, 64, 2)  # 8 MB of values: 4 blocks of 2 MB
    250
    """
    n_blocks = min(-(-n_rows * 8 * max(1, n_columns) // _PREDICT_BLOCK_BYTES), -(-n_rows // min_rows))
    n_blocks = min(n_rows, -(-n_blocks // n_workers) * n_workers) or 1
    return -(-n_rows // n_blocks) or 1


def _sparse_row_multiplier(X, support_vectors, support_sparse):
    """``multiply(start, stop, out)``: ``out = X[start:stop] @ support_vectors.T`` in compiled
    code over the nonzeros of the CSR rows of ``X``; against the support vectors transposed and
    kept sparse where ``support_sparse`` (:func:`sparse_sparse_products`), else transposed and
    dense (:func:`sparse_row_products`)."""
    if support_sparse:
        BT = support_vectors.T.tocsr()
        return lambda start, stop, out: sparse_sparse_products(
            X.indptr, X.indices, X.data, start, stop, BT.indptr, BT.indices, BT.data, out)
    BT = support_vectors.T.toarray(order="C") if sp.issparse(support_vectors) else np.ascontiguousarray(support_vectors.T)
    return lambda start, stop, out: sparse_row_products(X.indptr, X.indices, X.data, start, stop, BT, out)


_PACKAGE_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_at_caller(message, category):
    """``warnings.warn`` attributed to the first caller outside svmkit: the line that called
    ``fit``, however deep the route of the fit. On one of svmkit's worker threads
    (:func:`map_in_threads`), which has no such caller, to the thread's outermost svmkit frame."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_back.f_code.co_filename.startswith(_PACKAGE_DIRECTORY):
        frame, level = frame.f_back, level + 1
    # (frame: the outermost svmkit frame of the calls that led here; stacklevel level + 1 names
    # it, level + 2 its caller)
    warnings.warn(message, category, stacklevel=level + (1 if on_pool_thread() else 2))


class BaseKernelSVM(BaseEstimator):
    """Parameters and machinery shared by the kernel SVM estimators."""

    def __sklearn_is_fitted__(self):
        """Whether a fit has set the decision function (what ``check_is_fitted`` asks; its
        default scan of every attribute name cost 40 us per prediction)."""
        return hasattr(self, "intercept_")

    def _check_common_params(self):
        kernel = self.kernel
        if isinstance(kernel, str) and kernel not in kernel_module.KERNEL_NAMES:
            raise ValueError(f"Unknown kernel {kernel!r}: use one of {kernel_module.KERNEL_NAMES}, "
                             "a svmkit.kernels.Kernel or a callable of two matrices.")
        if not isinstance(kernel, str) and not callable(kernel):
            raise ValueError(f"kernel must be a name, a svmkit.kernels.Kernel or a callable, got {kernel!r}.")
        if kernel == "poly" and (not is_integer(self.degree) or self.degree < 1):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}.")
        if not is_real(self.coef0) or not math.isfinite(self.coef0):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}.")
        if not is_real(self.tol) or not self.tol > 0:
            raise ValueError(f"tol must be > 0, got {self.tol!r}.")
        if not is_real(self.cache_size) or not self.cache_size > 0:
            raise ValueError(f"cache_size must be > 0 (MB), got {self.cache_size!r}.")
        if not is_integer(self.max_iter) or (self.max_iter < 1 and self.max_iter != -1):
            raise ValueError(f"max_iter must be a positive integer or -1 (no limit), got {self.max_iter!r}.")
        if self.callback is not None and not callable(self.callback):
            raise ValueError("callback must be a callable taking a svmkit SolverProgress.")

    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _validate_train_X(self, X, y, y_numeric=False):
        """Validated training ``(X, y)``; with ``y=None`` (one-class) ``y`` is not checked."""
        settings = dict(accept_sparse="csr", dtype=np.float64, order="C", ensure_all_finite=True)
        if _is_plain_training_data(X, y):  # (what validate_data returns unchanged; its checks cost 0.3 ms)
            self.n_features_in_ = X.shape[1]
            if hasattr(self, "feature_names_in_"):  # (fitted on a DataFrame before)
                del self.feature_names_in_
        elif y is None:
            X = validate_data(self, X, y=None, **settings)
        else:
            X, y = validate_data(self, X, y, y_numeric=y_numeric, **settings)
        if sp.issparse(X):
            X.sort_indices()
        if self._precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', X must be the square Gram matrix of the training set; "
                f"got shape {X.shape}."
            )
        return X, y

    def _validate_test_X(self, X):
        if not self.__sklearn_is_fitted__():  # (check_is_fitted itself costs 10 us a call)
            check_is_fitted(self)  # raises NotFittedError
        if not self._is_valid_test_array(X):  # (scikit-learn's checks cost 0.16 ms a call)
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C", reset=False)
        if self._precomputed and X.shape[1] != self.shape_fit_[0]:
            raise ValueError(
                f"With kernel='precomputed', X must hold the kernel between the test and the "
                f"{self.shape_fit_[0]} training samples; got {X.shape[1]} columns."
            )
        return X

    def _is_valid_test_array(self, X, check_finite=True):
        """Whether ``X`` is already what ``validate_data(reset=False)`` would return unchanged:
        a finite C-ordered float64 matrix with the fitted number of columns (and the
        estimator was fitted without feature names); finiteness as :func:`_is_plain_matrix`."""
        return (
            _is_plain_matrix(X, check_finite)
            and X.shape[1] == self.n_features_in_
            and not hasattr(self, "feature_names_in_")
        )

    @staticmethod
    def _check_weights(sample_weight, X):
        """Sample weights as float64, one per sample, non-negative (None: all ones); a new
        array, never the caller's."""
        if sample_weight is None:  # (scikit-learn's check costs 0.1 ms)
            return np.ones(X.shape[0])
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, copy=True)
        if np.any(sample_weight < 0):
            raise ValueError("sample_weight must be non-negative.")
        return sample_weight

    def _build_kernel(self, X):
        """The kernel object and the Gram-matrix access for the training data."""
        if self._precomputed:
            return None, PrecomputedGram(X.toarray() if sp.issparse(X) else X)
        gamma = resolve_gamma(self.gamma, X) if self.kernel in ("rbf", "poly", "sigmoid") else None
        kernel = kernel_module.make_kernel(self.kernel, degree=self.degree, gamma=gamma or 1.0, coef0=self.coef0)
        self._gamma = gamma
        return kernel, GramBlocks(kernel, X)

    def _solve(self, gram, problem, cache_size=None):
        if self.verbose:
            enable_logging()
        solution = solve_dual(
            gram,
            problem,
            tol=self.tol,
            max_iter=self.max_iter,
            shrinking=self.shrinking,
            cache_size=self.cache_size if cache_size is None else cache_size,
            verbose=bool(self.verbose),
            callback=self.callback,
        )
        self._warn_unless_optimal(solution)
        return solution

    def _warn_unless_optimal(self, solution):
        """A ConvergenceWarning where the solver stopped above ``tol``."""
        if solution.status == ITERATION_LIMIT:
            warn_at_caller(
                f"The solver stopped at max_iter={self.max_iter} with the KKT gap {solution.gap:.3e} "
                f"above tol={self.tol:g}; the solution is not optimal.",
                ConvergenceWarning,
            )
        elif solution.status == STALLED:
            warn_at_caller(
                f"The solver stopped improving at the KKT gap {solution.gap:.3e} > tol={self.tol:g} "
                "(round-off limits the accuracy); try a larger tol or scaled features.",
                ConvergenceWarning,
            )

    def _pair_classes(self):
        """The first and second class of each one-vs-one problem (int64 arrays; none here)."""
        return _NO_PAIRS, _NO_PAIRS

    def _decision_coef(self):
        """The coefficients (n_SV, k) of the support vectors in the ``k`` decision functions."""
        return self.dual_coef_.T

    def _decision_model(self):
        """The arguments of the compiled decision path (:func:`small_decisions`) but the test
        rows and the number of classes: ``(kernel code, arrays, squared norms, gamma, coef,
        intercept, first, second)``; None for kernels other than RBF (on dense support vectors)
        and linear. Linear: the weights ``SV' coef`` (d, k), which every linear prediction uses.
        Made once per fit."""
        coef = self._decision_coef()
        source = coef if coef.base is None else coef.base  # (an attribute, or a view of one)
        kept = _DECISION_MODELS.get(self)
        if kept is not None and kept[0] is self.support_vectors_ and kept[1] is self.intercept_ and kept[2] is source:
            return kept[3]
        support_vectors = self.support_vectors_
        first, second = self._pair_classes()
        if isinstance(self.kernel_, LinearKernel):
            # (compiled loops where few or one-vs-one, see _LOOP_WEIGHTS_WORK: wine, 22 support vectors
            # x 13 features x 3 problems, each fit after a oneDAL fit, 9.5 -> 3 us; else BLAS on one
            # thread, see _PARALLEL_PREDICT_VALUES: on two, digits' weights of 45 problems, when BLAS
            # made them at the end of each fit, added 3 ms to fits of 5 ms)
            few = coef.size * support_vectors.shape[1] <= _LOOP_WEIGHTS_WORK
            if (few or first.shape[0] > 1) and isinstance(support_vectors, np.ndarray):  # (> 1: not two classes)
                weights = linear_weights(np.ascontiguousarray(support_vectors), np.ascontiguousarray(coef))
            else:
                with single_threaded_blas():
                    weights = np.ascontiguousarray(support_vectors.T @ coef, dtype=np.float64)
            model = (KERNEL_LINEAR, weights, np.empty(0), 0.0, np.empty((0, coef.shape[1])), self.intercept_, first, second)
        elif type(self.kernel_) is RBFKernel and isinstance(support_vectors, np.ndarray):
            support_vectors = np.ascontiguousarray(support_vectors, dtype=np.float64)
            model = (KERNEL_RBF, support_vectors, support_sq_norms(support_vectors), float(self.kernel_.gamma),
                     np.ascontiguousarray(coef, dtype=np.float64), self.intercept_, first, second)
        else:
            model = None
        _DECISION_MODELS[self] = (self.support_vectors_, self.intercept_, source, model)
        return model

    @property
    def coef_(self):
        """``w = sum_i coef_i x_i`` of each problem, shape (n_problems, n_features): one row for
        two classes, regression and one-class (linear kernel only)."""
        check_is_fitted(self)
        if not isinstance(self.kernel_, LinearKernel):
            raise AttributeError("coef_ is only available with the linear kernel.")
        return self._decision_model()[1].T.copy()  # (the weights that predictions use, made once per fit)

    def _small_decisions(self, X, n_classes=0):
        """The decision values ``K(X, SV) @ coef + intercept_`` of a small test set in one compiled
        call (with ``n_classes``: the one-vs-rest scores of one-vs-one problems), or None where
        that path does not apply: ``X`` not a C-ordered float64 matrix of the fitted width, or
        holding a NaN or infinity (left for :meth:`_validate_test_X` to report), too much work
        for it (kernel values on narrow data, multiply-adds on wider data: ``_COMPILED_DECISION_WORK``),
        a kernel other than RBF and linear, sparse support vectors (RBF), an estimator fitted with
        feature names, or not fitted."""
        # (finiteness is checked in the compiled call's own pass)
        if not (self.__sklearn_is_fitted__() and self._is_valid_test_array(X, check_finite=False)):
            return None
        model = self._decision_model()
        if model is None:
            return None
        kernel_code, arrays = model[0], model[1]
        if kernel_code == KERNEL_RBF:
            n_values = X.shape[0] * arrays.shape[0]
            if X.shape[1] <= _COMPILED_DECISION_FEATURES:
                if n_values >= _PARALLEL_PREDICT_VALUES:
                    return None
            elif n_values * X.shape[1] > _COMPILED_DECISION_WORK:
                return None
        elif X.shape[0] * arrays.size >= _TINY_PREDICT_WORK:
            return None
        # (BLAS on one thread where the products are not tiny, see _PARALLEL_PREDICT_VALUES)
        with contextlib.nullcontext() if X.shape[0] * arrays.size < _TINY_PREDICT_WORK else single_threaded_blas():
            finite, decisions = small_decisions(X, *model, n_classes)
        return decisions if finite else None

    def _kernel_decision(self, X, coef, intercept, make_combine=None):
        """``K(X, SV) @ coef + intercept`` for a coefficient matrix (n_SV, k).

        Rows are taken in memory-bounded blocks, spread over the cores (the
        kernel's BLAS products and ``exp`` release the GIL). ``make_combine``, if
        given, returns a function that computes ``block @ coef`` from a block of
        kernel rows in its own way. (Small predictions take :meth:`_small_decisions`.)
        """
        if isinstance(self.kernel_, LinearKernel):
            # sum_s c_s <x, x_s> = <x, w> with w = sum_s c_s x_s: O(d) per row, not O(n_SV d);
            # BLAS on one thread (see _PARALLEL_PREDICT_VALUES: digits, 45 problems, 2.5 million
            # multiply-adds, took 4.4 ms instead of 0.8 in 3 of 5 benchmark repetitions on two)
            weights = self._decision_model()[1]
            with contextlib.nullcontext() if X.shape[0] * weights.size < _TINY_PREDICT_WORK else single_threaded_blas():
                return np.asarray(X @ weights) + intercept
        n_sv = self.support_.shape[0]
        n_rows = X.shape[0]
        combine = None if make_combine is None else make_combine()
        cores = resolve_n_jobs(getattr(self, "n_jobs", None))
        n_workers = cores if n_rows * n_sv >= _PARALLEL_PREDICT_VALUES else 1
        support_vectors = self.support_vectors_
        n_features = support_vectors.shape[1]
        densify = getattr(self.kernel_, "float32_safe", False) and n_sv * n_features * 8 <= _DENSE_SV_BYTES
        # the squared norms of the support vectors once, not per block (RBF)
        from_sq_norms = None if self._precomputed else getattr(self.kernel_, "from_sq_norms", None)
        sv_norms = row_sq_norms(support_vectors) if from_sq_norms is not None else None
        # RBF: sparse rows with few nonzeros multiply the support vectors in compiled code, where
        # only their nonzeros count: against the support vectors transposed, dense, or where these
        # are sparse with few nonzeros too (text-like data), sparse; other built-in kernels:
        # sparse rows are densified where that stays small (once for the support vectors, per
        # block for X), so that the products run in BLAS
        if (from_sq_norms is not None and densify and isinstance(X, np.ndarray) and n_rows * n_sv >= _PARALLEL_PREDICT_VALUES
                and np.count_nonzero(X) <= _SPARSE_PRODUCTS_DENSITY * X.size):
            X = sp.csr_matrix(X)  # a dense matrix of few nonzeros (one-hot columns): as sparse rows
        sparse_rows = from_sq_norms is not None and sp.issparse(X) and X.nnz <= _SPARSE_PRODUCTS_DENSITY * n_rows * n_features
        sparse_support = sp.issparse(support_vectors) and support_vectors.nnz <= _SPARSE_SUPPORT_DENSITY * n_sv * n_features
        sparse_products = sparse_rows and (densify or sparse_support)
        if sparse_products:
            multiply_rows = _sparse_row_multiplier(X, support_vectors, sparse_support)
            X_norms = row_sq_norms(X)
        elif sp.issparse(support_vectors) and densify:
            support_vectors = support_vectors.toarray()
        step = _equal_block_rows(n_rows, n_sv, 1 if sparse_products else _PREDICT_MIN_ROWS, n_workers)
        densify_rows = densify and step * n_features * 8 <= _PREDICT_BLOCK_BYTES
        out = np.empty((X.shape[0], coef.shape[1]))
        wide_products = n_features >= _SHARED_PRODUCT_FEATURES and n_rows * n_sv * n_features >= _SHARED_PRODUCT_WORK
        if (cores > 1 and combine is None and coef.shape[1] == 1 and wide_products and not self._precomputed
                and hasattr(self.kernel_, "from_products")
                and not sparse_products and (isinstance(X, np.ndarray) or densify_rows)
                and isinstance(support_vectors, np.ndarray)):
            self._decide_with_shared_products(X, support_vectors, sv_norms, coef, n_workers, out)
            out += intercept
            return out

        support_columns = self.support_.astype(np.int64) if self._precomputed else None

        def decide_block(start):
            rows = slice(start, start + step)
            if self._precomputed and sp.issparse(X):
                block = X[rows][:, self.support_].toarray()
            elif self._precomputed:  # (the support vectors' columns in one compiled pass: digits' 450
                # test rows, 705 of 1,347 columns, 0.18 ms instead of NumPy's 0.25)
                block = gathered(X, np.arange(start, min(start + step, n_rows)), support_columns)
            elif sparse_products:
                products = np.empty((min(start + step, n_rows) - start, n_sv))
                multiply_rows(start, start + products.shape[0], products)
                block = self.kernel_.from_products(products, X_norms[rows], sv_norms)
            else:
                X_rows = X[rows].toarray() if sp.issparse(X) and densify_rows else X[rows]
                if from_sq_norms is None:
                    block = self.kernel_(X_rows, support_vectors)
                else:
                    block = from_sq_norms(X_rows, support_vectors, row_sq_norms(X_rows), sv_norms)
            out[rows] = block @ coef if combine is None else combine(block)

        # Two workers run BLAS on one thread each (see _PARALLEL_PREDICT_VALUES); one worker on all
        # of BLAS's threads (digits' one-vs-one problems, 450 test rows x 702 support vectors x 64
        # features, each fit followed by scikit-learn's and oneDAL's, median of 15: 1.21 against
        # 1.50 ms with BLAS on one thread; 225 rows 0.75 / 0.84, 112 rows 0.49 / 0.53, 56 rows
        # 0.42 / 0.41; 450 rows of 6 features 1.33 / 1.34; usps, see _SHARED_PRODUCT_FEATURES),
        # unless n_jobs=1 asks for one thread
        with single_threaded_blas() if n_workers > 1 or cores == 1 else contextlib.nullcontext():
            map_in_threads(decide_block, range(0, n_rows, step), n_workers)
        out += intercept
        return out

    def _decide_with_shared_products(self, X, support_vectors, sv_norms, coef, n_workers, out):
        """``K(X, SV) @ coef`` into ``out`` for one column of coefficients and dense data (or
        sparse rows densified a block at a time) with many features: each block's products
        ``X_rows SV'`` on all of BLAS's threads, then the kernel's remaining steps and the
        product with the coefficients in equal parts on ``n_workers`` threads."""
        n_rows, n_sv = X.shape[0], support_vectors.shape[0]
        dtype = _result_dtype(X, support_vectors)
        part_rows = max(_PREDICT_MIN_ROWS, _PREDICT_BLOCK_BYTES // (8 * n_sv))  # a worker's part
        block_rows = max(part_rows * n_workers, _SHARED_PRODUCT_BLOCK_BYTES // (8 * n_sv))
        for start in range(0, n_rows, block_rows):
            X_rows = X[start:start + block_rows]
            X_rows = X_rows.toarray() if sp.issparse(X_rows) else X_rows
            products = (X_rows @ support_vectors.T).astype(dtype, copy=False)
            X_norms = row_sq_norms(X_rows) if sv_norms is not None else None
            part_rows_here = _equal_block_rows(X_rows.shape[0], n_sv, _PREDICT_MIN_ROWS, n_workers)

            def finish_part(part_start):
                part = slice(part_start, part_start + part_rows_here)
                block = self.kernel_.from_products(products[part], None if X_norms is None else X_norms[part], sv_norms)
                out[start + part_start:start + part_start + block.shape[0]] = block @ coef

            map_in_threads(finish_part, range(0, X_rows.shape[0], part_rows_here), n_workers)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self._precomputed
        return tags


class SingleProblemSVM(BaseKernelSVM):
    """Kernel machines with one dual problem (one-class SVM, SVR): their
    attributes in scikit-learn's (LIBSVM's) layout and their decision values."""

    def _set_solution(self, X, rows, coef, intercept, solution):
        """support_, dual_coef_, intercept_, ... from the coefficient of each row.

        Parameters
        ----------
        X : training data (or Gram matrix)
        rows : int array
            Training rows of the problem (those with a positive weight).
        coef : float array
            Coefficient of each of those rows in ``f(x) = sum coef K(x_i, x) + b``.
        intercept : float
        solution : DualSolution
        """
        keep = coef != 0
        support = rows[keep]
        self.shape_fit_ = X.shape
        self.support_ = support.astype(np.int32)
        self.support_vectors_ = np.empty((0, X.shape[1])) if self._precomputed else X[support]
        self.dual_coef_ = coef[keep][np.newaxis, :]
        self.intercept_ = np.array([intercept])
        self.n_support_ = np.array([support.shape[0]], dtype=np.int32)
        self.n_iter_ = int(solution.n_iter)
        self.fit_status_ = int(solution.status != OPTIMAL)
        self._decision_model()  # (now, as SVC does)

    def _decision_values(self, X):
        decisions = self._small_decisions(X)
        if decisions is None:
            X = self._validate_test_X(X)
            decisions = self._kernel_decision(X, self._decision_coef(), self.intercept_)
        return decisions[:, 0]
