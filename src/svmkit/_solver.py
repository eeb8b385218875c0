"""One solver for every SVM dual: kernel rows through a bounded cache.

The problem (DESIGN.md section 1) is

    minimise 1/2 a'Qa + p'a  subject to  y'a = y'a0,  0 <= a_t <= U_t,

with ``Q_ts = y_t y_s K(x_{r_t}, x_{r_s})``. Formulation adapters (C-SVC, ...)
build a :class:`DualProblem`; :func:`solve_dual` returns a :class:`DualSolution`.

Two strategies, chosen by the problem size and the memory budget ``cache_size``:

* up to 6144 rows (and 8192 variables), when the whole Gram matrix fits: its rows are computed in
  BLAS blocks when first needed, and SMO
  (second-order working-set selection, LIBSVM's shrinking,
  :mod:`svmkit._core.smo`) runs on it;
* otherwise: blocked decomposition (ThunderSVM, oneDAL; the rounds' pieces compiled in
  :mod:`svmkit._core.blocked`): a working set of ``q`` variables is chosen by partial
  selection of the largest violators, SMO (with Newton steps on the face of the free
  multipliers where it zig-zags) runs on its ``q x q`` kernel block, and the gradient is
  updated with the whole kernel rows (float32; BLAS blocks, or compiled loops straight into the
  cache for thin dense data) of the multipliers that moved. An
  LRU cache bounded by ``cache_size`` keeps whole rows; when it is smaller than
  the working set, rows are streamed through the gradient update instead.
  Half of the working set is kept for the next round. Rows span all columns,
  so no gradient ever has to be rebuilt.

With the linear kernel the blocked rounds need no kernel row: the gradient follows the
change of ``w = sum_t a_t y_t x_t``. On dense data all the rounds are one compiled call, and
problems of 1024 rows or more that the full-Gram strategy would take (with no step limit)
start with them: problems with few support vectors end there; the rounds leave the others
to the full-Gram solver once their work passes 4x the Gram matrix's or more than 4q
multipliers are free.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace

import contextlib

import numpy as np
import scipy.sparse as sp

from ._core.row_cache import add_weighted_rows, add_weighted_rows_serial, copy_rows, gather_block
from ._core.smo import (
    SMO_NEED_ROW, SMO_OPTIMAL, SMO_STEP_LIMIT, bias_from_gradient, rows_to_prefetch, smo,
)
from ._core.kernel_blocks import (
    KERNEL_LINEAR, KERNEL_NONE, KERNEL_POLYNOMIAL, KERNEL_PRECOMPUTED, KERNEL_RBF, kernel_matrix,
    kernel_rows_into, kernel_rows_into_serial, sparse_kernel_rows, sparse_kernel_rows_serial,
    sparse_sparse_products, transpose_into,
)
from ._core.blocked import (
    BLOCKED_GO_ON, BLOCKED_LEFT, BLOCKED_OPTIMAL, BLOCKED_STALLED, BLOCKED_STEP_LIMIT, STATE_STEPS, block_moves,
    block_rows, finish_round, linear_blocked_rounds, new_state, solve_block, start_round,
)
from ._core.free_face import FACE_MAX_FREE
from ._core.full_gram import SMO_NEED_ROWS, full_gram_round, new_face_schedule
from ._parallel import blas_thread_count, map_in_threads, on_all_cores, single_threaded_blas, usable_cores
from .kernels import LinearKernel, PolynomialKernel, RBFKernel, row_sq_norms

logger = logging.getLogger("svmkit")

#: Solver status codes (``DualSolution.status``): the compiled SMO solvers' codes of a solved
#: problem and of one stopped at its step limit are the same numbers, so that the status arrays
#: of the solvers of many problems are read as they are (:func:`svmkit._stacked.solved_stack`).
OPTIMAL, ITERATION_LIMIT, STALLED = SMO_OPTIMAL, SMO_STEP_LIMIT, 2
_SOLUTION_STATUS = {BLOCKED_OPTIMAL: OPTIMAL, BLOCKED_STEP_LIMIT: ITERATION_LIMIT, BLOCKED_STALLED: STALLED}

#: Seconds between two progress reports.
PROGRESS_INTERVAL_S = 1.0

# Temporary float64 kernel blocks are computed in pieces of this size: below glibc's largest
# mmap threshold (32 MB), so that freed blocks are reused instead of page-faulted in again.
_BLOCK_BYTES = 16 * 2**20
_STALL_ROUNDS = 50  # rounds without a decrease of the dual objective
_FLOAT64_GRAM_BYTES = 4 * 2**20  # largest Gram matrix kept in float64
# Above this many rows the blocked strategy is faster even when the Gram matrix would fit
# (make_classification, RBF, median fit times full-Gram vs blocked: 20 features 73 vs 115 ms
# at n = 5000, 121 vs 120 ms at 6000, 147 vs 140 ms at 7000; 10 features 64 vs 93 ms and 100
# features 0.29 vs 0.40 s at 6500, but 40 features 0.22 vs 0.19 s at 6500)
_FULL_GRAM_MAX_ROWS = 6144
# ... and with more variables than this (epsilon-SVR and nu-SVR have two per row), whose passes
# run on one core (SVR on friedman1, n = 5000: 0.67 s full-Gram against 0.27 s blocked)
_FULL_GRAM_MAX_VARIABLES = 8192
_PREFETCH_ROWS = 128  # most kernel rows computed together in the full-Gram strategy
# Problems of dense data with the linear kernel of at least this many rows, which the full-Gram
# solver would take, start with the linear kernel's compiled blocked rounds (see solve_dual), and
# leave the problem to the full-Gram solver once their work (multiply-adds, and SMO steps times
# the working set's size) passes this many times the Gram matrix's n^2 d / 2 multiply-adds, or
# once more multipliers are free than this many times the working set. (The rounds won, in time
# against the full-Gram solver, on usps' one-vs-one problems at 0.04-0.41 of the Gram matrix's
# work and at most 148 free for q = 128; and on make_classification problems of 1,500-3,000 rows
# and 20-100 features at up to 3.1 times its work, and, but for one at 0.78x with 1,779, at most
# 387 free. 2,000 x 500 and 4,000 x 784 (wide-linear and the like: 500 and 771 free at the
# optimum) have 512 and 1,024 free after 7-9 rounds, some 5 ms.)
_LINEAR_BLOCKED_MIN_ROWS = 1024
_LINEAR_BLOCKED_SHARE = 4.0
_LINEAR_BLOCKED_FREE = 4
_LINEAR_ROUNDS_PER_CALL = 16  # rounds between two progress reports at most ...
_LINEAR_WORK_PER_CALL = 2**28  # ... and fewer where their gradient updates pass this many multiply-adds
_ALL_ROWS_WORK = 2**27  # multiply-adds (rows^2 x features) up to which all rows come first (_all_rows_first)
_HAND_OVER_FRACTION = 5  # shrinking takes over when it would keep fewer than 1/5 of the variables
_FACE_MAX_FREE = FACE_MAX_FREE  # most free multipliers for Newton steps on their face (the shared bound)
_FACE_MAX_STEPS = _FACE_MAX_FREE  # such steps in a row (all but the last take a multiplier off the face)
_STEPS_PER_CALL = 100_000  # SMO steps between two progress reports at most
# Long full-Gram solves try Newton steps on the face of all free multipliers (not only those of a
# shrunk sub-problem) every this many SMO steps per variable at first (see
# svmkit._core.full_gram.try_face_steps)
_FACE_PERIOD_PER_VARIABLE = 25
_FACE_ALL_MAX_FREE = 1024  # most free multipliers for such steps
_FACE_ALL_MAX_STEPS = _FACE_ALL_MAX_FREE  # such steps in a row (all but the last take a multiplier off the face)
# k^3 of a try's factorisation (and k^2 of each step after it) per SMO step on one variable that may
# go between two tries: a factorisation is some k^3 / 3 multiply-adds at about 0.5 ns, an SMO step
# some 2 ns a variable, so 11 would give the face steps the SMO steps' time; they repay much more.
# (Figures from when every step was a factorisation, and 10 steps a try:) Linear kernel, 2,000 x
# 500, make_classification standardised over all rows: 11 put the tries 320,000 steps apart after
# the first, on 891 free multipliers (1.7 million steps, 10.8 s); 44 and 200 tried at every return
# (0.9 million, 6.3-7.4 s). benchmarks/svc.py's wide-linear, 1,009 free at the first try: 44 tried
# at every other return (1.5 million steps, 10.2 s), 200 and no limit at all at every return (1.0
# million, 7.9-8.5 s).
_FACE_WORK_PER_SMO_VARIABLE = 200
_NO_STEP_LIMIT = 2**63 - 1
_NO_DATA_ROWS = np.empty(0, dtype=np.int64)  # (the full-Gram solver's data_rows: every row, in order)
_EPS = {np.dtype(t): float(np.finfo(t).eps) for t in (np.float32, np.float64)}  # (np.finfo costs 5 us a call)
# Below this many (rows x features) of a problem, its kernel blocks are too thin for
# several BLAS threads: they run single-threaded (threads then only cost synchronisation).
_SMALL_BLAS_WORK = 400_000
# ... but where even the Gram matrix of all rows (rows^2 x features multiply-adds) is below this,
# OpenBLAS runs every product on one thread by itself (m n k <= 4 x 65,536), and the threads are
# not set at all (setting and restoring them costs 4 us)
_ONE_THREAD_BLAS_WORK = 4 * 65_536
# Up to this many features, the full-Gram SMO computes linear, polynomial and RBF kernel
# rows in compiled code, one at a time as needed (svmguide1, d = 4, RBF: 13 ms instead of 23 ms
# per fit; make_classification, RBF, n = 3000: 27 vs 40 ms at d = 8, 65 vs 84 ms at d = 20,
# equal at d = 32, slower from d = 48; n = 1500 and 4000: equal or faster up to d = 28). Raised from
# 24 to 32 for small problems that need few of their rows, such as breast cancer (426 x 30, RBF: 112
# rows, 888 -> 559 us a fit after a oneDAL fit, alternating in one process; 4,000 x 30 RBF 44.8 ->
# 31.4 ms), at the price of hard small ones that need every row (400 x 30, flip_y 5%: 1.06-1.08x)
_COMPILED_ROW_FEATURES = 32
# the blocked solver's rows by compiled loops (_CompiledRows) up to this many features: 83 RBF
# rows of 50,000, 36 / 48 / 64 / 96 features, 5.7 / 6.8 / 8.6 / 11.4 ms, against BLAS's products,
# exponentials and copy into the cache 7.6 / 10.3 / 10.1 / 11.4 ms
_BLOCKED_COMPILED_ROW_FEATURES = 64
# Up to this many values times features, GramBlocks.square computes an RBF matrix of thin data
# in compiled code (one thread, median of 101, cold: after 64 MB written): 150 x 4 53 us against
# BLAS 75, 150 x 13 71 against 84, but 150 x 24 94 against 83, 500 x 13 454 against 308; the
# linear kernel's blocks were faster from BLAS at every size measured (150 x 13: 30 against 15 us)
_COMPILED_GRAM_WORK = 2**19
def blas_threads_for(n_rows, n_features):
    """The BLAS context for the kernel blocks of a problem of ``n_rows`` rows: one thread
    for thin blocks (below ``_SMALL_BLAS_WORK`` values of data, where several threads only
    cost synchronisation), else all; nothing set for problems whose products BLAS runs on one
    thread anyway (``_ONE_THREAD_BLAS_WORK``)."""
    thin = n_rows * n_features < _SMALL_BLAS_WORK and n_rows * n_rows * n_features > _ONE_THREAD_BLAS_WORK
    return single_threaded_blas() if thin else contextlib.nullcontext()


# The blocked solver's arrays per variable: float64 alpha, gradient, y, bound, linear
# term, violation scores and gradient update, int64 row, and masks.
_BYTES_PER_VARIABLE = 96
_WS_BLOCK_FEATURES = 512  # most features for which the blocked solver computes its q x q block
# The compiled kernels' codes of svmkit's kernel classes (not of their subclasses or combinations)
_KERNEL_CODES = {LinearKernel: KERNEL_LINEAR, PolynomialKernel: KERNEL_POLYNOMIAL, RBFKernel: KERNEL_RBF}
_PARTS_MAX_FEATURES = 32  # widest data whose blocked rows are computed in parts on threads
_FLOAT32_COPY_BYTES = 512 * 2**20  # largest dense float32 copy of the data made for fast kernel rows
# Sparse data with at most this fraction of nonzeros keep a sparse float32 copy: their kernel rows
# cost fewer multiply-adds than BLAS saves on a dense copy (blocks of 128 rows against 5,000, on
# one thread, time with the sparse copy against the dense copy: 20,000 features at 0.2% nonzeros
# 0.05; 1,000 at 5% 0.34; 300 at 4% 0.39; 123 at 11% 0.79; 300 at 15% 0.90; 300 at 25% 1.28; but a
# fit of a9a, 123 features at 11%, took 7.6-7.9 s with the sparse copy against 4.0-4.2 s with the
# dense one, whose BLAS products run on both cores)
_SPARSE_COPY_DENSITY = 0.08


def _add_weighted_rows(buffer, slots, weights, out):
    """``out += weights @ buffer[slots]``, over all cores where :func:`on_all_cores`."""
    if on_all_cores(slots.shape[0] * out.shape[0]):
        add_weighted_rows(buffer, slots, weights, out)
    else:
        add_weighted_rows_serial(buffer, slots, weights, out)


def _c_ordered(block):
    """``block`` C-ordered: a transposed one (the working set's block of sparse data) by the
    compiled tiled copy (:func:`transpose_into`; 1,024 x 1,024 float32 0.6 ms, NumPy's
    strided copy 3.5 ms), another by NumPy."""
    if block.flags.c_contiguous or not block.flags.f_contiguous:
        return np.ascontiguousarray(block)
    out = np.empty(block.shape, dtype=block.dtype)
    transpose_into(block.T, out)
    return out


def _rows_per_block(n_columns, itemsize=8):
    """How many kernel rows of ``n_columns`` values make one block of ``_BLOCK_BYTES``."""
    return max(1, _BLOCK_BYTES // (itemsize * max(1, n_columns)))


def _into(block, out):
    """``block``, or ``out`` with ``block`` copied into it."""
    if out is None:
        return block
    out[...] = block
    return out


def _is_every_row(rows, n_rows):
    """Whether ``rows`` (indices or a slice) is the array ``0, 1, ..., n_rows - 1``."""
    return isinstance(rows, np.ndarray) and rows.shape[0] == n_rows and _in_row_order(rows, n_rows)


class GramBlocks:
    """Blocks ``K(X[rows], X[cols])`` of the Gram matrix of a kernel on ``X``.

    For kernels that take precomputed squared row norms (RBF), the norms of
    ``X`` are computed once, not for every block.
    """

    #: Whether the full-Gram solver computes every row before SMO instead of the rows
    #: it asks for: true where rows are copies of blocks computed already.
    rows_are_copies = False

    #: Whether the full-Gram solver reads the rows in two parts where they are stored
    #: (``row_parts``) instead of computing or copying them into a matrix of their own.
    splits_rows = False

    def __init__(self, kernel, X):
        self.kernel = kernel
        self.X = X
        self._X32 = None
        self._sq_norms = {}
        self._transposed = {}  # sparse data of few nonzeros, transposed (CSR), by type

    @property
    def n_rows(self):
        return self.X.shape[0]

    @property
    def n_features(self):
        return self.X.shape[1]

    def subset(self, rows):
        """The Gram blocks of ``X[rows]`` (rows gathered once, not per block)."""
        return GramBlocks(self.kernel, self.X[rows])

    def square_memory(self, n, dtype):
        """Memory for the full-Gram solver's ``n x n`` matrix of ``dtype`` (any values)."""
        return np.empty((n, n), dtype=dtype)

    def block(self, rows, cols=None, out=None):
        """Return the dense block of kernel values for the given row indices (or slice of
        rows; ``cols=None``: every row of ``X``), written into ``out`` if given."""
        return self._block(self.X, rows, cols, out)

    def square(self):
        """The float64 Gram matrix of all rows. A small RBF matrix of thin dense data (at most
        ``_COMPILED_GRAM_WORK`` values times features, ``_compiled_row_code``) is computed row by
        row in one compiled call, the values of the rows that the full-Gram solver computes
        itself, with no BLAS call, whose code and buffers a fit right after another library's
        finds out of the caches (iris, alternating in one process, each fit after a
        scikit-learn-intelex fit: 379 -> 323 us; after 64 MB written: 536 -> 492 us); other
        matrices in one block (BLAS is faster for larger ones, and for the linear kernel)."""
        if (_compiled_row_code(self) != KERNEL_RBF
                or self.n_rows * self.n_rows * self.n_features > _COMPILED_GRAM_WORK):
            return self.block(slice(None))
        K = np.empty((self.n_rows, self.n_rows))
        kernel_matrix(*_compiled_row_kernel(self, K.dtype, KERNEL_RBF), K)
        return K

    def block32(self, rows, cols=None, out=None):
        """The same block computed in float32 where the kernel allows it.

        Kernel rows that are cached in float32 anyway are computed from a dense
        float32 copy of the data (made once, when it fits in 512 MB): half the
        memory traffic and twice the BLAS and ``exp`` speed of float64. Sparse
        data of few nonzeros (``_SPARSE_COPY_DENSITY``) keep a sparse copy.
        """
        if not getattr(self.kernel, "float32_safe", False):
            return self.block(rows, cols, out)
        return self._block(self.float32_data(), rows, cols, out)

    def float32_data(self):
        """The float32 copy of the data that :meth:`block32` computes from, made once: dense,
        or CSR for sparse data of few nonzeros (``_SPARSE_COPY_DENSITY``)."""
        if self._X32 is None:
            if self._float32_copy_stays_sparse():
                self._X32 = self.X.astype(np.float32)
            elif sp.issparse(self.X):
                self._X32 = self.X.toarray().astype(np.float32)
            else:
                self._X32 = self.X.astype(np.float32, copy=False)
        return self._X32

    def float32_copy_bytes(self):
        """Memory of the float32 copy of the data that :meth:`block32` makes (0: none)."""
        if not getattr(self.kernel, "float32_safe", False):
            return 0
        n, d = self.X.shape
        if self._float32_copy_stays_sparse():
            copies = 2 if self._scatters(self.X) else 1  # (and its transpose)
            return copies * self.X.nnz * 8 + (n + d + 2) * 8  # values and indices
        return n * d * 4

    def _float32_copy_stays_sparse(self):
        n, d = self.X.shape
        return sp.issparse(self.X) and (n * d * 4 > _FLOAT32_COPY_BYTES or self.X.nnz <= _SPARSE_COPY_DENSITY * n * d)

    def _block(self, X, rows, cols, out):
        if cols is None and self._scatters(X):
            return self._scattered_block(X, rows, out)
        from_sq_norms = getattr(self.kernel, "from_sq_norms", None)
        norms = None if from_sq_norms is None else self._norms(X)
        B = X if cols is None else X[cols]
        B_norms = norms if norms is None or cols is None else norms[cols]
        # every row in order: ``X`` itself, so that the products of all rows with all rows are
        # one symmetric BLAS product (NumPy's ``X @ X.T`` computes one triangle)
        every_row = _is_every_row(rows, X.shape[0])
        A = X if every_row else X[rows]
        A_norms = norms if norms is None or every_row else norms[rows]
        if self._products_into(X, out):
            # the product of dense rows straight into ``out``, the kernel applied there in place
            # (no block allocated and copied: 61 rows, same process alternating, breast cancer RBF 90 -> 71
            # us, linear 46 -> 38 us, 7 such blocks a fit; svmguide1 in float32 272 -> 235 us)
            np.matmul(A, B.T, out=out)
            block = self.kernel.from_products(out, A_norms, B_norms)
            return out if block is out else _into(block, out)
        if from_sq_norms is None:
            return _into(self.kernel(A, B), out)
        return _into(from_sq_norms(A, B, A_norms, B_norms), out)

    def _products_into(self, X, out):
        """Whether a block of dense ``X`` may be computed in ``out`` itself (a kernel computed
        from the products of rows, ``out`` C-ordered of ``X``'s type)."""
        return (out is not None and isinstance(X, np.ndarray) and hasattr(self.kernel, "from_products")
                and out.dtype == X.dtype and out.flags.c_contiguous)

    def _scatters(self, X):
        """Whether kernel rows of ``X`` come from its rows' nonzeros against its transpose, kept
        sparse (:func:`sparse_sparse_products`): sparse data of few nonzeros, such as text,
        and kernels computed from the products of rows."""
        return (sp.issparse(X) and hasattr(self.kernel, "from_products")
                and X.nnz <= _SPARSE_COPY_DENSITY * X.shape[0] * X.shape[1])

    def _scattered_block(self, X, rows, out):
        """The kernel rows ``rows`` of sparse ``X`` from their nonzeros against its transpose.
        Linear and RBF rows are computed whole in one compiled pass each, the kernel applied
        to a row's products while they are in the core's cache, over all cores
        (:func:`svmkit._parallel.on_all_cores`), into ``out`` where it is a C-ordered block
        of ``X``'s type (w8a-like data, 49,749 x 300 at 4% nonzeros, RBF, a fit's 12,311 rows:
        the products 1.06 s and their exponentials 0.54 s on one thread before, 0.84 s here);
        other kernels: their products, then the kernel."""
        if X.dtype not in self._transposed:
            self._transposed[X.dtype] = X.T.tocsr()
        XT, norms = self._transposed[X.dtype], self._norms(X)
        rows = rows if isinstance(rows, np.ndarray) else np.arange(X.shape[0])[rows]
        code = _KERNEL_CODES.get(type(self.kernel))
        if code not in (KERNEL_LINEAR, KERNEL_RBF):
            A = X[rows]
            products = np.empty((A.shape[0], X.shape[0]), dtype=X.dtype)
            sparse_sparse_products(A.indptr, A.indices, A.data, 0, A.shape[0], XT.indptr, XT.indices, XT.data,
                                   products)
            return _into(self.kernel.from_products(products, norms[rows], norms), out)
        fits_out = out is not None and out.dtype == X.dtype and out.flags.c_contiguous
        block = out if fits_out else np.empty((rows.shape[0], X.shape[0]), dtype=X.dtype)
        kernel_rows = sparse_kernel_rows if on_all_cores(block.size) else sparse_kernel_rows_serial
        kernel_rows(X.indptr, X.indices, X.data, rows, XT.indptr, XT.indices, XT.data,
                    norms.astype(X.dtype, copy=False), code, getattr(self.kernel, "gamma", 0.0), block)
        return block if block is out else _into(block, out)

    def _norms(self, X):
        """The squared norms of the rows of ``X`` (the data or its float32 copy), computed once."""
        if X.dtype not in self._sq_norms:
            self._sq_norms[X.dtype] = row_sq_norms(X)
        return self._sq_norms[X.dtype]

    def diag(self):
        """Return ``K(x, x)`` for every row of ``X``."""
        return np.asarray(self.kernel.diag(self.X), dtype=np.float64)


def gathered(K, rows, cols):
    """``K[np.ix_(rows, cols)]`` (``rows`` and ``cols`` int64 arrays) in one compiled pass (a
    seventh of NumPy's time for 288 of 360 rows and columns).

    Examples
    --------
    >>> gathered(np.arange(9.0).reshape(3, 3), np.array([2, 0]), np.array([1]))
    array([[7.],
           [1.]])
    """
    out = np.empty((rows.shape[0], cols.shape[0]), dtype=K.dtype)
    gather_block(K, rows, cols, out, np.arange(rows.shape[0]))
    return out


class PrecomputedGram:
    """Blocks of a Gram matrix held in memory: the user's (``kernel='precomputed'``), or one
    computed for several problems on the same rows.

    ``rows_are_copies``: whether the full-Gram solver copies every row at once (a matrix
    computed for the problem, all of it wanted) instead of the rows it needs as it needs them
    (the user's matrix, of which the solver may need few rows).
    """

    splits_rows = False

    def __init__(self, K, rows_are_copies=False):
        self.K = K
        self.rows_are_copies = rows_are_copies

    @property
    def n_rows(self):
        return self.K.shape[0]

    def subset(self, rows):
        return PrecomputedGram(gathered(self.K, rows, rows), self.rows_are_copies)

    def block(self, rows, cols=None, out=None):
        return _into(self.K[rows] if cols is None else gathered(self.K, rows, cols), out)

    def is_plain_float64(self):
        """Whether ``K`` is a float64 matrix of :func:`_plain_array_flags`, which compiled code
        reads where it is (the user's matrix; another would be compiled for anew)."""
        return self.K.dtype == np.float64 and _plain_array_flags(self.K)

    block32 = block
    square_memory = GramBlocks.square_memory

    def float32_copy_bytes(self):
        return 0

    def diag(self):
        return np.asarray(np.diagonal(self.K), dtype=np.float64)


@dataclass
class DualProblem:
    """The dual of one SVM formulation, in the solver's standard form.

    Attributes
    ----------
    rows : int64 array (m,)
        Gram-matrix row (training sample) of each variable.
    y : float64 array (m,)
        Sign of each variable, +1 or -1.
    p : float64 array (m,)
        Linear term.
    upper : float64 array (m,)
        Upper bounds ``U_t`` (``inf`` allowed: hard margin).
    alpha0 : float64 array (m,)
        A feasible start point.
    nu_mode : bool
        Also keep ``sum a_t`` fixed within each sign of ``y`` (nu-SVC,
        nu-SVR): pairs are chosen within one sign and the gap is the larger
        of the two per-sign gaps.
    """

    rows: np.ndarray
    y: np.ndarray
    p: np.ndarray
    upper: np.ndarray
    alpha0: np.ndarray
    nu_mode: bool = False


@dataclass
class DualSolution:
    """What :func:`solve_dual` returns.

    ``grad`` is the full gradient ``Qa + p`` at ``alpha``; ``gap`` the maximal
    violating-pair gap ``m(a) - M(a)``; ``n_iter`` the number of two-variable
    updates made; ``status`` one of ``OPTIMAL``, ``ITERATION_LIMIT``, ``STALLED``.
    """

    alpha: np.ndarray
    grad: np.ndarray
    gap: float
    n_iter: int
    status: int
    strategy: str


@dataclass
class SolverProgress:
    """A progress report, passed to the callback and logged when verbose."""

    n_iter: int
    gap: float
    active_size: int
    n_variables: int
    elapsed: float

    def __str__(self):
        return (
            f"iter {self.n_iter:>9d}  gap {self.gap:11.4e}  active {self.active_size:>8d}/{self.n_variables}"
            f"  {self.elapsed:8.2f} s"
        )


class _Progress:
    def __init__(self, verbose, callback, n_variables, start=None):
        self.verbose = verbose
        self.callback = callback
        self.n_variables = n_variables
        self.start = time.perf_counter() if start is None else start  # (time.perf_counter() of the solver's start)
        self.last = -np.inf
        self.last_n_iter = -1
        self.steps_before = 0  # steps of an earlier solver of the same problem, counted in the reports

    def report(self, n_iter, gap, active_size, force=False):
        """Report at most every ``PROGRESS_INTERVAL_S`` seconds (``force``: now) and never
        twice at the same step (a problem solved within the interval: one report, not two)."""
        if not (self.verbose or self.callback):
            return
        n_iter += self.steps_before
        now = time.perf_counter()
        if n_iter == self.last_n_iter or (not force and now - self.last < PROGRESS_INTERVAL_S):
            return
        self.last, self.last_n_iter = now, n_iter
        info = SolverProgress(n_iter, float(gap), int(active_size), self.n_variables, now - self.start)
        if self.verbose:
            logger.info("%s", info)
        if self.callback is not None:
            self.callback(info)


def _row_dot(gram, rows, cols, coef):
    """``K(rows, cols) @ coef`` computed in memory-bounded pieces."""
    out = np.empty(rows.shape[0])
    chunk = _rows_per_block(cols.shape[0])
    for start in range(0, rows.shape[0], chunk):
        out[start : start + chunk] = gram.block32(rows[start : start + chunk], cols) @ coef
    return out


def _start_coefficients(problem):
    """Data rows with a non-zero start multiplier and their weights ``sum y_t a0_t``."""
    moved = np.flatnonzero(problem.alpha0)
    if moved.size == 0:  # (C-SVC and epsilon-SVR start at 0)
        return moved, np.zeros(0)
    sv_rows, inverse = np.unique(problem.rows[moved], return_inverse=True)
    coef = np.zeros(sv_rows.shape[0])
    np.add.at(coef, inverse, problem.y[moved] * problem.alpha0[moved])
    return sv_rows, coef


def _initial_gradient(gram, problem):
    """``G = Q a0 + p`` for the start point (kernel columns of the support rows; with the
    linear kernel the data times ``w`` of the start point: a one-class start of nu n
    support rows costs n d multiply-adds, not n^2 nu d)."""
    grad = problem.p.astype(np.float64).copy()
    sv_rows, coef = _start_coefficients(problem)
    if sv_rows.size:
        X = _linear_kernel_data(gram)
        if X is not None:
            column_sum = linear_column_sum(X, sv_rows, coef)
        else:
            column_sum = _row_dot(gram, np.arange(gram.n_rows), sv_rows, coef)
        grad += problem.y * column_sum[problem.rows]
    return grad


def _linear_kernel_data(gram):
    """The data of ``gram`` where its kernel is the linear kernel (else None)."""
    return gram.X if isinstance(gram, GramBlocks) and type(gram.kernel) is LinearKernel else None


def linear_column_sum(X, rows, coef):
    """``sum_r coef_r x_r'x`` for every row ``x`` of ``X`` (dense or CSR): the linear kernel's
    columns ``rows`` weighted by ``coef``, as ``X`` times ``w = sum_r coef_r x_r`` (n d
    multiply-adds, not n d per row), in float64.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> linear_column_sum(X, np.array([0, 2]), np.array([1.0, -1.0]))  # X @ (x_0 - x_2)
    array([ 0., -2., -1.])
    """
    change_of_w = np.asarray(X[rows].T @ coef).ravel()
    return np.asarray(X @ change_of_w).ravel()


def solve_dual(
    gram,
    problem,
    *,
    tol=1e-3,
    max_iter=-1,
    shrinking=True,
    cache_size=200.0,
    working_set_size=None,
    verbose=False,
    callback=None,
):
    """Solve a dual problem to the maximal-violating-pair gap ``tol``.

    Parameters
    ----------
    gram : GramBlocks or PrecomputedGram
        Access to blocks of the kernel matrix.
    problem : DualProblem
    tol : float
        Stop when ``m(a) - M(a) < tol``.
    max_iter : int
        Maximal number of two-variable updates; -1 for no limit.
    shrinking : bool
        Set aside bounded variables that cannot move (full-Gram strategy; the
        blocked strategy selects among all variables at O(m) per round).
    cache_size : float
        Memory for kernel values, in MB (in the blocked strategy, for cached
        rows (none with the linear kernel), the float32 copy of the data they
        are computed from, the solver's per-variable arrays and the kernel
        blocks being computed).
    working_set_size : int, optional
        Size ``q`` of the blocked working set (a power of two; by default 1024, and for the
        linear kernel on dense data the power of two nearest ``3 sqrt(m)`` within 128 ... 1024).
    verbose : bool
        Log progress to the ``svmkit`` logger at INFO level.
    callback : callable, optional
        Called with a :class:`SolverProgress` every ``PROGRESS_INTERVAL_S`` seconds.

    Returns
    -------
    DualSolution
    """
    m = problem.rows.shape[0]
    max_steps = step_limit(max_iter)
    progress = _Progress(verbose, callback, m)
    # from here on the rows of the problem are numbered 0..n_data-1, in the order of their first
    # variable (one-vs-one problems: LIBSVM's order, the rows of one class, then the other's)
    # (a two-class C-SVC problem uses every row once, in order: nothing to renumber)
    all_rows = np.arange(gram.n_rows)
    if not np.array_equal(problem.rows, all_rows):
        data_rows, local_rows = _rows_in_order_of_use(problem.rows)
        if not np.array_equal(data_rows, all_rows):
            gram = gram.subset(data_rows)
        problem = replace(problem, rows=local_rows)
    budget = cache_size * 2**20
    n_data = gram.n_rows
    n_features = gram.n_features if isinstance(gram, GramBlocks) else 1
    # (a problem read where its rows are stored forms no n x n matrix: the memory of the blocks
    # it reads was set aside with them, see svmkit._class_blocks.shared_class_blocks)
    stored_parts = gram.splits_rows and not problem.alpha0.any() and _in_row_order(problem.rows, n_data)
    full_gram = _takes_full_gram(n_data, m, budget, stored_parts)
    if _takes_linear_blocked_rounds(gram, n_data, full_gram, max_steps):
        # the linear kernel's blocked rounds, compiled: where the full-Gram solver applies, they
        # leave the problem to it when their work or their free multipliers pass the limits
        # (_LINEAR_BLOCKED_SHARE, _LINEAR_BLOCKED_FREE), and it starts again from the start point:
        # from the rounds' multipliers it took twice the steps (make_classification, 4,000 x 784,
        # 6.4 -> 13.2 million steps, 10.5 -> 17.5 s). (With a step limit the full-Gram solver
        # takes such problems alone: the left rounds' steps would count against it.)
        with blas_threads_for(n_data, n_features):
            solution = _solve_blocked_linear(gram, problem, working_set_size, tol, max_steps, progress,
                                             may_leave=full_gram)
        if solution.status != BLOCKED_LEFT:
            return solution
        progress.steps_before = solution.n_iter  # (counted in the reports and in the solution)
    # (the full-Gram solver computes rows of few features in compiled code: no BLAS threads to set;
    # rows that are copies of shared blocks it never computes, and their data rows are not gathered)
    row_code = KERNEL_NONE if not full_gram or gram.rows_are_copies else _compiled_row_code(gram)
    with contextlib.nullcontext() if row_code != KERNEL_NONE else blas_threads_for(n_data, n_features):
        if full_gram:
            # float64 while the matrix is small (up to 724 rows); above, float32 (LIBSVM's
            # precision for its cache): half the memory touched, and rows computed from the
            # float32 copy of the data at twice the BLAS speed (usps: 0.60 s instead of 0.78 s)
            dtype = full_gram_dtype(n_data, budget)
            # thin rows are cheap, but each return from the compiled solver costs a fixed
            # overhead: at least 32 rows a time (svmguide1, d = 4: nu-SVC and one-class 15 %
            # faster than with 8); wide rows in BLAS-friendly blocks of up to 128
            prefetch = _prefetch_rows(n_features)
            solve = _solve_on_stored_parts if stored_parts else _solve_full
            solution = solve(gram, problem, n_data, dtype, tol, max_steps, shrinking, prefetch, row_code, progress)
        else:
            solution = _BlockedSolver(gram, problem, budget, working_set_size, tol, max_steps, progress).run()
    solution.n_iter += progress.steps_before
    return solution


def _takes_full_gram(n_data, m, budget, stored_parts=False):
    """Whether a problem of ``m`` variables on ``n_data`` rows takes the full-Gram strategy:
    few enough rows and variables, and the ``n_data x n_data`` matrix (float32) within
    ``budget`` bytes, or its parts read where they are stored."""
    return n_data <= _FULL_GRAM_MAX_ROWS and m <= _FULL_GRAM_MAX_VARIABLES and (
        stored_parts or n_data * n_data * 4 <= budget)


def _takes_linear_blocked_rounds(gram, n_data, full_gram, max_steps):
    """Whether a problem starts with the linear kernel's blocked rounds (:func:`_solve_blocked_linear`):
    dense data and the linear kernel, where the full-Gram strategy does not take it, or where
    it has 1024 rows or more and no step limit."""
    # (the size test first: a one-vs-one problem's data rows are gathered when asked for)
    return (not full_gram or (n_data >= _LINEAR_BLOCKED_MIN_ROWS and max_steps == _NO_STEP_LIMIT)) and (
        _dense_linear_data(gram) is not None)


def _prefetch_rows(n_features):
    """The fewest kernel rows the full-Gram solver asks for at once (``n_features`` wide)."""
    return min(max(2 * n_features, 32), _PREFETCH_ROWS)


def full_gram_row_kernel(gram, cache_size, max_iter):
    """``(XT, kernel, gamma, coef0, degree)`` of :func:`svmkit._core.full_gram.full_gram_smo`
    (its row arguments before ``data_rows``) where :func:`solve_dual` solves a problem with one
    variable per row of ``gram``, in row order, from the start 0 (two-class C-SVC) by the
    full-Gram solver on float64 rows that it computes itself, every one of them (a small
    problem of thin dense data and a linear, polynomial or RBF kernel); else None.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import RBFKernel
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> XT, code, gamma, coef0, degree = full_gram_row_kernel(GramBlocks(RBFKernel(0.5), X), 200, -1)
    >>> XT.shape, gamma
    ((5, 100), 0.5)
    >>> full_gram_row_kernel(GramBlocks(RBFKernel(0.5), np.hstack([X] * 7)), 200, -1) is None  # 35 features: BLAS
    True
    """
    # (the data transposed only where it is used: a larger problem's solve makes its own copy)
    code = _plain_row_code(gram)
    if code == KERNEL_NONE or not _two_class_full_gram(gram, cache_size, max_iter):
        return None
    return _compiled_row_kernel(gram, np.float64, code)


def two_class_gram(gram, cache_size, max_iter):
    """The float64 Gram matrix of all rows of ``gram`` where :func:`solve_dual` solves a problem
    with one variable per row, in row order, from the start 0 (two-class C-SVC) by the
    full-Gram solver on all of them, computed before it starts in one or a few BLAS blocks
    (:func:`_all_rows_first`; computed here as it computes them), or on the user's float64
    matrix of a precomputed kernel (returned as it is, to be read in place, where
    :func:`solve_dual` copies its rows as it needs them); else None (and where
    :func:`full_gram_row_kernel` applies).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import RBFKernel
    >>> X = np.random.default_rng(0).normal(size=(100, 35))
    >>> wide = GramBlocks(RBFKernel(0.5), X)  # 35 features: BLAS blocks
    >>> bool(np.array_equal(two_class_gram(wide, 200, -1), wide.block(slice(None))))
    True
    >>> two_class_gram(GramBlocks(RBFKernel(0.5), X[:, :5]), 200, -1) is None  # rows of the solver's own
    True
    """
    if not _two_class_full_gram(gram, cache_size, max_iter):
        return None
    if type(gram) is PrecomputedGram:
        return gram.K if gram.is_plain_float64() else None
    n = gram.n_rows
    if type(gram) is not GramBlocks or not _all_rows_first(gram, n, _compiled_row_code(gram)):
        return None
    K = gram.square_memory(n, np.float64)
    with blas_threads_for(n, gram.n_features):
        _fill_rows(K, np.full(n, -1, dtype=np.int64), np.zeros(1, dtype=np.int64), gram.block, np.arange(n))
    return K


def _two_class_full_gram(gram, cache_size, max_iter):
    """Whether :func:`solve_dual` solves a problem of one variable per row of ``gram`` by the
    full-Gram solver on a float64 matrix (not after the linear kernel's blocked rounds)."""
    n, budget = gram.n_rows, cache_size * 2**20
    return (_takes_full_gram(n, n, budget) and full_gram_dtype(n, budget) == np.float64
            and not _takes_linear_blocked_rounds(gram, n, True, step_limit(max_iter)))


def _plain_array_flags(a):
    """Whether ``a`` is C-contiguous, aligned and writeable: the arrays of the compiled solver's
    signatures (a read-only or unaligned one would be compiled for anew)."""
    return a.flags.c_contiguous and a.flags.aligned and a.flags.writeable


def compiled_row_kernel(gram):
    """``(XT, kernel, gamma, coef0, degree)`` with which compiled code computes the float64
    kernel rows of ``gram`` itself (:func:`svmkit._core.kernel_blocks.kernel_row`): plain
    :class:`GramBlocks` (not a subclass whose rows are copies or stored in parts) of a kernel
    of :func:`_compiled_row_code`; else None."""
    code = _plain_row_code(gram)
    return None if code == KERNEL_NONE else _compiled_row_kernel(gram, np.float64, code)


def _plain_row_code(gram):
    """:func:`_compiled_row_code` of plain :class:`GramBlocks`, ``KERNEL_NONE`` for any other."""
    return _compiled_row_code(gram) if type(gram) is GramBlocks else KERNEL_NONE


def linear_row_kernel(gram, dtype, max_features):
    """:func:`compiled_row_kernel` for the linear kernel of plain :class:`GramBlocks` on dense
    data of at most ``max_features`` features, its rows of type ``dtype``; else None."""
    dense = type(gram) is GramBlocks and _dense_linear_data(gram) is not None
    return _compiled_row_kernel(gram, dtype, KERNEL_LINEAR) if dense and gram.n_features <= max_features else None


def one_call_settings(nu_mode, tol, max_iter, shrinking, dtype=np.float64):
    """The solver's settings for one compiled call over many problems whose kernel values are
    of type ``dtype``, as :func:`solve_dual` sets them (read when called): ``(nu_mode, tol,
    max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps,
    face_settings)``, the arguments of :func:`svmkit._core.pairs.solve_pairs` after ``alpha``
    (``eps``: the precision of ``dtype``)."""
    return (
        nu_mode, tol, step_limit(max_iter), _STEPS_PER_CALL, _HAND_OVER_FRACTION if shrinking else 0,
        _FACE_MAX_FREE, _FACE_MAX_STEPS, _EPS[np.dtype(dtype)], face_settings(),
    )


def face_settings():
    """The settings of the Newton steps on the face of all free multipliers of long full-Gram
    solves (``face_settings`` of :func:`svmkit._core.full_gram.new_face_schedule`)."""
    return np.array([_FACE_PERIOD_PER_VARIABLE, _FACE_ALL_MAX_FREE, _FACE_ALL_MAX_STEPS, _FACE_WORK_PER_SMO_VARIABLE],
                    dtype=np.int64)


def _dense_linear_data(gram):
    """The data of ``gram`` where it is a dense array and its kernel the linear kernel (else None)."""
    X = _linear_kernel_data(gram)
    return X if isinstance(X, np.ndarray) else None


def _linear_working_set_size(m):
    """The linear kernel's working set for ``m`` variables: the power of two nearest ``3 sqrt(m)``
    (on a log scale), within 128 ... 1024 (the fastest of 64 ... 1024 on usps: a one-vs-one problem of 1,838 rows 128,
    one-vs-rest of 7,291 rows 256; a9a, 32,561 rows: 512 and 1,024 alike).

    Examples
    --------
    >>> [_linear_working_set_size(m) for m in (1000, 1838, 7291, 32561, 10**6)]
    [128, 128, 256, 512, 1024]
    """
    return int(np.clip(2 ** round(np.log2(3 * np.sqrt(m))), 128, 1024))


def _solve_blocked_linear(gram, problem, working_set_size, tol, max_steps, progress, may_leave=False):
    """The blocked decomposition with the linear kernel on dense data, every round compiled
    (:func:`svmkit._core.blocked.linear_blocked_rounds`), until ``tol``; with ``may_leave``,
    only until the rounds' work passes ``_LINEAR_BLOCKED_SHARE`` times the Gram matrix's or
    the free multipliers ``_LINEAR_BLOCKED_FREE`` times the working set (status
    ``BLOCKED_LEFT``: the caller solves the problem with the full-Gram solver)."""
    X = np.ascontiguousarray(_dense_linear_data(gram), dtype=np.float64)
    X32 = gram.float32_data() if X is gram.X else X.astype(np.float32)
    m = problem.rows.shape[0]
    q = _working_set_size(working_set_size or _linear_working_set_size(m), m)
    y, upper = problem.y.astype(np.float64), problem.upper.astype(np.float64)
    alpha = problem.alpha0.astype(np.float64).copy()
    grad = _initial_gradient(gram, problem)
    state = new_state(0.5 * alpha @ (grad + problem.p))
    kept = np.empty(q // 2, dtype=np.int64)
    rows = np.ascontiguousarray(problem.rows, dtype=np.int64)
    n_data, n_features = X.shape
    max_work = _LINEAR_BLOCKED_SHARE * n_data**2 * n_features / 2 if may_leave else np.inf
    max_free = _LINEAR_BLOCKED_FREE * q if may_leave else m
    # (some 2^28 multiply-adds of gradient updates between two returns for progress reports)
    rounds_per_call = int(np.clip(_LINEAR_WORK_PER_CALL // (n_data * n_features), 1, _LINEAR_ROUNDS_PER_CALL))
    while True:
        status, gap = linear_blocked_rounds(X, X32, rows, y, upper, alpha, grad, kept, state, q, tol, max_steps,
                                            rounds_per_call, max_work, max_free, _STALL_ROUNDS, problem.nu_mode)
        n_iter = int(state[STATE_STEPS])
        progress.report(n_iter, gap, m)
        if status != BLOCKED_GO_ON:
            break
    progress.report(n_iter, gap, m, force=status != BLOCKED_LEFT)
    return DualSolution(alpha, grad, float(gap), n_iter, _SOLUTION_STATUS.get(status, status), "blocked")


def _working_set_size(q, m):
    """``q``, but at most the largest power of two not above ``m`` (at least 2)."""
    return int(min(q, 2 ** int(np.floor(np.log2(max(m, 2))))))


def step_limit(max_iter):
    """The most SMO steps for ``max_iter`` (-1 or None: no limit).

    Examples
    --------
    >>> step_limit(500), step_limit(-1) == 2**63 - 1
    (500, True)
    """
    return _NO_STEP_LIMIT if max_iter is None or max_iter < 0 else int(max_iter)


def full_gram_dtype(n_rows, budget=np.inf):
    """The type of a full Gram matrix of ``n_rows`` rows: float64 while it is small (at most
    ``_FLOAT64_GRAM_BYTES``, and within ``budget`` bytes), float32 above."""
    return kernel_values_dtype(n_rows * n_rows, budget)


def full_gram_itemsizes(n_rows):
    """The item size of :func:`full_gram_dtype` for each of the row counts ``n_rows`` (an
    integer array).

    Examples
    --------
    >>> full_gram_itemsizes(np.array([100, 724, 725, 5000]))
    array([8, 8, 4, 4])
    """
    return np.where(_fit_in_float64(n_rows * n_rows), 8, 4)


def kernel_values_dtype(n_values, budget=np.inf):
    """The type of ``n_values`` kernel values held in memory at once: float64 while they are
    few (at most ``_FLOAT64_GRAM_BYTES``, and within ``budget`` bytes), float32 above."""
    return np.dtype(np.float64 if _fit_in_float64(n_values, budget) else np.float32)


def _fit_in_float64(n_values, budget=np.inf):
    """Whether ``n_values`` kernel values (a number or an array) are kept in float64."""
    return n_values * 8 <= min(budget, _FLOAT64_GRAM_BYTES)


def _rows_in_order_of_use(rows):
    """The distinct data rows in the order they first occur, and each variable's position among them."""
    if rows.shape[0] and np.bincount(rows).max() == 1:  # no row twice (C-SVC, one-class, nu-SVC)
        return rows, np.arange(rows.shape[0], dtype=np.int64)
    distinct, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first)
    position = np.empty_like(order)
    position[order] = np.arange(order.shape[0])
    return distinct[order], position[inverse].astype(np.int64)


def _solve_full(gram, problem, n, dtype, tol, max_steps, shrinking, prefetch, row_code, progress):
    """SMO on the Gram matrix held in memory; its rows are computed when first
    needed, in blocks together with the rows of the current top violators (by the
    solver itself where ``row_code``, :func:`_compiled_row_code`, is a kernel)."""
    m = problem.rows.shape[0]
    # rows are stored in the order they are computed (row r is K[slot[r]]): the memory touched
    # is one stretch as long as the rows computed, not pages scattered over the n x n matrix
    # (which the kernel faults in as 2 MB huge pages: svmguide1 fit 14.2 ms instead of 11.0)
    K = gram.square_memory(n, dtype)
    slot = np.full(n, -1, dtype=np.int64)
    n_filled = np.zeros(1, dtype=np.int64)
    block = gram.block if dtype == np.float64 else gram.block32
    rows = problem.rows
    y = problem.y.astype(np.float64)
    upper = problem.upper.astype(np.float64)
    qd = gram.diag()[rows]
    alpha = problem.alpha0.astype(np.float64)
    # G = Q a0 + p from the rows of the start support vectors, computed into K where the
    # solver will find them again (one-class, nu-SVC and nu-SVR start with many)
    grad = problem.p.astype(np.float64)
    sv_rows, coef = _start_coefficients(problem)
    if sv_rows.size:
        _fill_rows(K, slot, n_filled, block, sv_rows)
        _add_rows_to_gradient(K, slot, sv_rows, coef, rows, y, grad)
    # (all rows first where the solver would ask for all at once, unless it computes them itself:
    # then a fit of few rows takes SVC's one compiled call, whose rows these equal; 20 x 2,
    # alternating in one process, each fit after a oneDAL fit, time over LIBSVM's: RBF 0.49 -> 0.28,
    # linear 0.48 -> 0.27)
    if (n <= prefetch and row_code == KERNEL_NONE) or gram.rows_are_copies or _all_rows_first(gram, n, row_code):
        _fill_rows(K, slot, n_filled, block, np.flatnonzero(slot < 0))
    if _in_row_order(rows, n):
        no_part = np.empty((0, 0), dtype=K.dtype)
        return _solve_in_row_order(gram, K, slot, no_part, slot, n_filled, block, problem, y, upper, qd, alpha, grad,
                                   tol, max_steps, shrinking, prefetch, row_code, progress)
    # LIBSVM's loop, with its shrinking: variables that do not follow the kernel rows
    active = np.arange(m, dtype=np.int64)
    state = np.array([m, min(m, 1000), 0], dtype=np.int64)
    alpha_synced = alpha.copy()
    n_iter = 0
    while True:
        steps, status, gap, needed = smo(
            K, slot, rows, y, upper, alpha_synced, qd, alpha, grad, active, state, tol,
            min(_STEPS_PER_CALL, max_steps - n_iter), problem.nu_mode, shrinking,
        )
        n_iter += steps
        if status == SMO_NEED_ROW:
            _fill_rows(K, slot, n_filled, block, rows_to_prefetch(needed, rows, y, upper, alpha, grad, slot, prefetch))
            continue
        progress.report(n_iter, gap, int(state[0]))
        if status == SMO_OPTIMAL or n_iter >= max_steps:
            break
    return _full_gram_solution(alpha, grad, gap, n_iter, status, progress, m)


def _solve_on_stored_parts(gram, problem, n, dtype, tol, max_steps, shrinking, prefetch, row_code, progress):
    """The full-Gram solver on rows read in two parts where they are stored (a one-vs-one
    problem's within-class and cross blocks, :meth:`svmkit._class_blocks._PairGram.row_parts`),
    not copied into an ``n x n`` matrix (usps, 45 problems, alternating with the copies in one
    process, median of 15 fits on two threads: linear 234.6 -> 216.9 ms, RBF 249.6 -> 230.0 ms)."""
    block = gram.block if dtype == np.float64 else gram.block32
    with gram.row_parts(dtype) as (K, slot, R, slot_r):
        return _solve_in_row_order(
            gram, K, slot, R, slot_r, np.array([n]), block, problem, problem.y.astype(np.float64),
            problem.upper.astype(np.float64), gram.diag()[problem.rows], np.zeros(problem.rows.shape[0]),
            problem.p.astype(np.float64), tol, max_steps, shrinking, prefetch, row_code, progress,
        )


def _solve_in_row_order(gram, K, slot, R, slot_r, n_filled, block, problem, y, upper, qd, alpha, grad, tol, max_steps,
                        shrinking, prefetch, row_code, progress):
    """The full-Gram solver for variables in row order (every formulation here): SMO
    with contiguous passes, and when shrinking would leave few variables active,
    those solved as a sub-problem of their own, all in one compiled call
    (:func:`svmkit._core.full_gram.full_gram_smo`, rows in ``K`` and ``R`` as it reads
    them) that returns for rows it cannot compute and for progress reports, each return
    followed in a long solve by Newton steps on the face of all free multipliers
    (:func:`svmkit._core.full_gram.full_gram_round`)."""
    m = problem.rows.shape[0]
    state = np.zeros(2, dtype=np.int64)
    face = new_face_schedule(face_settings(), m)
    wanted = np.empty(K.shape[1] + R.shape[1], dtype=np.int64)
    eps = _EPS[K.dtype]
    row_kernel = _compiled_row_kernel(gram, K.dtype, row_code)
    n_iter = 0
    while True:
        steps, status, gap, count, _ = full_gram_round(
            K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, state, face, tol, _STEPS_PER_CALL,
            max_steps - n_iter, problem.nu_mode, _HAND_OVER_FRACTION if shrinking else 0, _FACE_MAX_FREE,
            _FACE_MAX_STEPS, eps, *row_kernel, _NO_DATA_ROWS, wanted,
        )
        n_iter += steps
        if status == SMO_NEED_ROW:
            _fill_rows(K, slot, n_filled, block,
                       rows_to_prefetch(wanted[0], problem.rows, y, upper, alpha, grad, slot, prefetch))
            continue
        if status == SMO_NEED_ROWS:
            _fill_rows(K, slot, n_filled, block, wanted[:count])
            continue
        progress.report(n_iter, gap, m)
        if status == SMO_OPTIMAL or n_iter >= max_steps:
            break
    return _full_gram_solution(alpha, grad, gap, n_iter, status, progress, m)


def _full_gram_solution(alpha, grad, gap, n_iter, status, progress, m):
    progress.report(n_iter, gap, m, force=True)
    return DualSolution(alpha, grad, float(gap), n_iter, OPTIMAL if status == SMO_OPTIMAL else ITERATION_LIMIT,
                        "full-gram")


def _square_block(buffer, slots, columns, block):
    """The kernel sub-matrix of ``columns`` (``K[columns][:, columns]``, C order, of
    ``buffer``'s type): row ``a`` is read from ``buffer[slots[a]]`` where it is stored
    there (``slots[a] >= 0``), the others are computed for these columns only."""
    out = np.empty((columns.shape[0], columns.shape[0]), dtype=buffer.dtype)
    stored = np.flatnonzero(slots >= 0)
    gather_block(buffer, slots[stored], columns, out, stored)
    missing = np.flatnonzero(slots < 0)
    if missing.size:
        out[missing] = block(columns[missing], columns)
    return out


def _add_rows_to_gradient(K, slot, data_rows, coef, rows, y, grad):
    """``G_t += y_t sum_r coef_r K[r, rows[t]]`` over the kernel rows ``data_rows`` stored in ``K``."""
    column_sum = np.zeros(K.shape[1])
    _add_weighted_rows(K, slot[data_rows], coef, column_sum)
    grad += y * column_sum[rows]


def _all_rows_first(gram, n, row_code):
    """Whether every kernel row of a small problem is computed before SMO, in one or a few BLAS
    blocks, instead of the rows SMO asks for (with the top violators') in a dozen blocks and
    returns to Python: such problems need (nearly) all rows anyway, and the solver does not
    compute them itself (``_compiled_row_kernel``). Alternating in one process, time all
    first / as needed: breast cancer RBF 0.87, linear 0.86; splice RBF 0.82, linear 0.95;
    make_classification 1,000 x 100 RBF 0.85, 1,000 x 30 linear 1.02; but easy data with
    few support vectors, 3,000 x 30: 1.46 (1,386 of 3,000 rows needed)."""
    return isinstance(gram, GramBlocks) and n * n * gram.n_features <= _ALL_ROWS_WORK and row_code == KERNEL_NONE


def _compiled_row_kernel(gram, dtype, code):
    """``(XT, kernel, gamma, coef0, degree)`` for :func:`smo_rows` (its row arguments before
    ``data_rows``) with the kernel ``code`` of :func:`_compiled_row_code`; with ``KERNEL_NONE``
    the rows come from the caller, with ``KERNEL_PRECOMPUTED`` they are copied from the Gram
    matrix (``XT``, of its own type: float64, whatever the type of the rows stored)."""
    if code == KERNEL_NONE:
        return np.empty((0, 0), dtype=dtype), KERNEL_NONE, 0.0, 0.0, 1
    if code == KERNEL_PRECOMPUTED:
        return gram.K, KERNEL_PRECOMPUTED, 0.0, 0.0, 1
    kernel = gram.kernel
    XT = np.empty(gram.X.shape[::-1], dtype=dtype)
    transpose_into(gram.X, XT)
    gamma = float(getattr(kernel, "gamma", 0.0))  # the linear kernel has none of the three
    coef0 = float(getattr(kernel, "coef0", 0.0))
    return XT, code, gamma, coef0, int(getattr(kernel, "degree", 1))


def _compiled_row_code(gram, max_features=_COMPILED_ROW_FEATURES):
    """The code of the kernel whose rows the full-Gram solver computes itself: linear,
    polynomial and RBF kernels on dense data with at most ``max_features`` features (its
    per-row loops beat a BLAS block there, and no row costs a return to Python; the blocked
    solver's :class:`_CompiledRows` take wider data), and ``KERNEL_PRECOMPUTED`` for a Gram matrix in memory of
    :meth:`PrecomputedGram.is_plain_float64` whose rows are copied as they are needed (the
    user's, or a subset gathered from it); otherwise ``KERNEL_NONE``."""
    if type(gram) is PrecomputedGram:
        # (copied in the solver, not 32 at a time from Python with a return for each: splice, two
        # classes, 1,000 float32 rows, RBF, fit 0.49 -> 0.32 of LIBSVM's time, benchmarks/precomputed.py)
        return KERNEL_PRECOMPUTED if gram.is_plain_float64() else KERNEL_NONE
    kernel = getattr(gram, "kernel", None)
    code = _KERNEL_CODES.get(type(kernel))
    if code is None or gram.n_features > max_features or sp.issparse(gram.X):
        return KERNEL_NONE
    return code


def _in_row_order(rows, n_columns):
    """Whether variable ``t`` uses kernel row ``t % n_columns`` (one or two variables per row)."""
    return rows.shape[0] % n_columns == 0 and bool((rows.reshape(-1, n_columns) == np.arange(n_columns)).all())


def _fill_rows(K, slot, n_filled, block, rows):
    """Compute the kernel rows ``rows`` (not computed yet) into the next free rows of ``K``."""
    first = int(n_filled[0])
    slot[rows] = first + np.arange(rows.shape[0])
    n_filled[0] = first + rows.shape[0]
    chunk = _rows_per_block(K.shape[1])
    for start in range(0, rows.shape[0], chunk):
        part = rows[start : start + chunk]
        block(part, out=K[first + start : first + start + part.shape[0]])


class _RowCache:
    """Whole kernel rows (all columns) in float32, least recently used out.

    Time is counted in rounds of the blocked solver: a row used in the current
    round is never evicted during it.
    """

    def __init__(self, n_data, budget_bytes):
        self.n_slots = int(min(budget_bytes // (4 * max(1, n_data)), n_data))
        self.buffer = np.empty((self.n_slots, n_data), dtype=np.float32)
        self.slot_of = np.full(n_data, -1, dtype=np.int64)
        self.row_in_slot = np.full(self.n_slots, -1, dtype=np.int64)
        self.last_used = np.zeros(self.n_slots, dtype=np.int64)
        self.round = 0

    def start_round(self, rows):
        """Begin a round that uses the given data rows: their slots (-1: not cached)."""
        self.round += 1
        slots = self.slot_of[rows]
        self.last_used[slots[slots >= 0]] = self.round
        return slots

    def free_slots(self):
        """How many slots may take a new row in this round."""
        return int(np.count_nonzero(self.last_used < self.round))

    def reserve(self, rows):
        """Slots for the (distinct, uncached) ``rows``, the least recently used ones, for
        as many of the first rows as slots are free (-1: not kept); the caller writes the
        rows into ``buffer`` at these slots before the next call."""
        slots = np.full(rows.shape[0], -1, dtype=np.int64)
        k = min(rows.shape[0], self.free_slots())
        if k == 0:
            return slots
        victims = np.argpartition(self.last_used, k - 1)[:k]
        evicted = self.row_in_slot[victims]
        self.slot_of[evicted[evicted >= 0]] = -1
        self.slot_of[rows[:k]] = victims
        self.row_in_slot[victims] = rows[:k]
        self.last_used[victims] = self.round
        slots[:k] = victims
        return slots

    def insert(self, rows, block):
        """Keep the (distinct, uncached) rows of ``block`` in the least recently used
        slots, as many as are free; return their slots (-1: not kept)."""
        slots = self.reserve(rows)
        kept = np.flatnonzero(slots >= 0)
        copy_rows(block, kept, self.buffer, slots[kept], 0)
        return slots


class _CompiledRows:
    """Kernel rows of thin dense data (the kernels of :func:`_compiled_row_code`) in float32,
    computed by compiled loops from the data transposed straight into their rows of the row
    cache or of a block (:func:`svmkit._core.kernel_blocks.kernel_rows_into`), with their
    weighted sum where asked for: no block of BLAS products to pass over again for the
    kernel, copy into the cache and read back for the gradient (50,000 x 20, 83 RBF rows
    into the cache: 3.5 ms, against 8.5 ms), and no BLAS thread left spinning beside the
    compiled parallel loops."""

    _NONE = np.empty(0)  # no weights

    def __init__(self, gram, code):
        self.XT, self.code, self.gamma, self.coef0, self.degree = _compiled_row_kernel(gram, np.float32, code)

    def into(self, rows, out, out_rows, weights=_NONE, column_sum=_NONE):
        """``out[out_rows[i]] =`` kernel row ``rows[i]``; with ``weights``, also
        ``column_sum += weights @ rows`` (float64)."""
        compute = kernel_rows_into if on_all_cores(rows.shape[0] * self.XT.shape[1]) else kernel_rows_into_serial
        compute(self.XT, rows, self.code, self.gamma, self.coef0, self.degree, out, out_rows, weights, column_sum)

    def square(self, columns):
        """The kernel block of ``columns`` with themselves, each value that of the rows."""
        local = np.arange(columns.shape[0])
        out = np.empty((local.shape[0], local.shape[0]), dtype=np.float32)
        compute = kernel_rows_into if on_all_cores(out.size) else kernel_rows_into_serial
        compute(np.ascontiguousarray(self.XT[:, columns]), local, self.code, self.gamma, self.coef0, self.degree,
                out, local, self._NONE, self._NONE)
        return out


class _BlockedSolver:
    """Blocked decomposition with a working set of ``q`` variables.

    Kernel rows always span every column, so the gradient of every variable
    stays exact and a cached row stays valid for the whole fit (ThunderSVM and
    oneDAL work the same way; the partial selection of violators over all
    variables costs O(m) per round, small next to the kernel rows).
    """

    def __init__(self, gram, problem, budget, working_set_size, tol, max_steps, progress):
        self.gram = gram
        self.problem = problem
        self.tol = tol
        self.max_steps = max_steps
        self.progress = progress
        self.y = problem.y.astype(np.float64)
        self.upper = problem.upper.astype(np.float64)
        self.rows = problem.rows
        m = self.rows.shape[0]
        n_data = gram.n_rows
        self.q = _working_set_size(working_set_size or 1024, m)
        self.alpha = problem.alpha0.astype(np.float64).copy()
        self.grad = _initial_gradient(gram, problem)
        # the linear kernel (CSR data here; dense data: _solve_blocked_linear): the gradient follows
        # the moved multipliers through the change of w = sum_j a_j y_j x_j (n d multiply-adds a
        # round, in float64) instead of their kernel rows (n d each; a9a, 32,561 x 123: 40,669 rows
        # in 109 rounds, fit 6.3 s; now 0.6-0.8 s): no row cache
        self.linear_X = _linear_kernel_data(gram)
        float32_rows = getattr(getattr(gram, "kernel", None), "float32_safe", False)
        # thin dense data: rows by compiled loops from the data transposed (no BLAS)
        code = (_compiled_row_code(gram, _BLOCKED_COMPILED_ROW_FEATURES) if float32_rows and self.linear_X is None
                else KERNEL_NONE)
        self.compiled_rows = _CompiledRows(gram, code) if code in (KERNEL_POLYNOMIAL, KERNEL_RBF) else None
        # the budget also pays for the float32 copy of the data that rows are computed
        # from, the solver's per-variable arrays, a block of rows being computed and the
        # working set's q x q block
        data_bytes = gram.float32_copy_bytes() if self.compiled_rows is None else self.compiled_rows.XT.nbytes
        own_bytes = data_bytes + _BYTES_PER_VARIABLE * m + _BLOCK_BYTES + 4 * self.q**2
        self.cache = _RowCache(n_data, 0 if self.linear_X is not None else max(0, budget - own_bytes))
        # kernel rows computed together: twice as many in float32 (a9a, 32,561 columns: 128-row
        # products run at 150 GFLOP/s, 64-row ones at 130)
        self.chunk = _rows_per_block(n_data, 4 if float32_rows else 8)
        self._block_memory = None  # the memory of such a block, reused (:meth:`_rows_block`)
        # with few features the working set's q x q block is computed directly: cheaper than
        # gathering it from cached rows, which reads a scattered cache line per value (a9a: 2 ms
        # instead of 8 ms a round; fit 7.4 -> 5.7 s linear, 4.4 -> 4.0 s RBF with the 128-row blocks)
        n_features = gram.n_features if isinstance(gram, GramBlocks) else np.inf
        self.compute_ws_block = self.linear_X is not None or (float32_rows and n_features <= _WS_BLOCK_FEATURES)

    def run(self):
        m = self.rows.shape[0]
        q = self.q
        kept = np.empty(q // 2, dtype=np.int64)
        # (the state follows the dual objective 1/2 a'Qa + p'a exactly with each block's decrease)
        state = new_state(0.5 * self.alpha @ (self.grad + self.problem.p))
        while True:
            status, gap, ws, new = start_round(self.y, self.upper, self.alpha, self.grad, kept, state, q, self.tol,
                                               self.max_steps, np.inf, m, _STALL_ROUNDS, self.problem.nu_mode)
            self.progress.report(int(state[STATE_STEPS]), gap, m)
            if status != BLOCKED_GO_ON:
                break
            steps = self._optimise_block(ws, state)
            finish_round(state, kept, new, q, m, steps, 0)
        n_iter = int(state[STATE_STEPS])
        self.progress.report(n_iter, gap, m, force=True)
        return DualSolution(self.alpha, self.grad, float(gap), n_iter, _SOLUTION_STATUS[status], "blocked")

    def _optimise_block(self, ws, state):
        """Solve the working set's block (:func:`svmkit._core.blocked.solve_block`), then
        update the gradient with the moved rows; return the steps made.

        The working set's own ``q x q`` kernel block is computed directly for data
        with few features; otherwise it comes from cached rows where possible and
        is computed directly for the others. When the cache has room
        for all of them, missing rows are computed whole before the SMO;
        otherwise only the rows whose multipliers moved are computed whole
        afterwards, streamed into the gradient and cached as far as room allows,
        so that ``q`` does not depend on the cache size. With the linear kernel no
        row is computed: the gradient follows the change of ``w``
        (:func:`linear_column_sum`).
        """
        ws, ws_columns, local_rows = block_rows(self.rows, ws)
        cache = self.cache
        slots = cache.start_round(ws_columns)
        n_columns = ws_columns.shape[0]
        missing = np.flatnonzero(slots < 0)
        if self.linear_X is None and missing.size <= cache.free_slots():
            slots[missing] = self._cache_rows(ws_columns[missing])
        if self.compiled_rows is not None:
            K_ws = self.compiled_rows.square(ws_columns)
        elif self.compute_ws_block:
            K_ws = np.asarray(self.gram.block32(ws_columns, ws_columns), dtype=np.float32)
        else:
            K_ws = _square_block(cache.buffer, slots, ws_columns, self.gram.block32)
        alpha_ws = self.alpha[ws]
        grad_ws = self.grad[ws]
        # (a strided block would run the loops' strided compilation: 3x slower per step)
        K_ws = _c_ordered(K_ws)
        steps = solve_block(K_ws, local_rows, self.y[ws], self.upper[ws], alpha_ws, grad_ws, self.tol,
                            self.max_steps - int(state[STATE_STEPS]), self.problem.nu_mode, _EPS[K_ws.dtype])
        coef = block_moves(ws, local_rows, n_columns, self.y, self.alpha, self.grad, alpha_ws, grad_ws, state)
        nonzero = np.flatnonzero(coef)
        if nonzero.size == 0:
            return steps
        if self.linear_X is not None:
            self.grad += self.y * linear_column_sum(self.linear_X, ws_columns[nonzero], coef[nonzero])[self.rows]
            return steps
        column_sum = np.zeros(self.gram.n_rows)
        in_cache = nonzero[slots[nonzero] >= 0]
        _add_weighted_rows(cache.buffer, slots[in_cache], coef[in_cache], column_sum)
        streamed = nonzero[slots[nonzero] < 0]
        if self.compiled_rows is not None:
            self._stream_compiled_rows(ws_columns[streamed], coef[streamed], column_sum)
        else:
            for start in range(0, streamed.size, self.chunk):
                part = streamed[start : start + self.chunk]
                block = self._rows_block(ws_columns[part])
                _add_weighted_rows(block, np.arange(part.size), coef[part], column_sum)
                cache.insert(ws_columns[part], block)
        self.grad += self.y * column_sum[self.rows]
        return steps

    def _cache_rows(self, rows):
        """Compute the kernel rows ``rows`` into the cache, which has room for all of them;
        return their slots."""
        if self.compiled_rows is not None:
            slots = self.cache.reserve(rows)
            self.compiled_rows.into(rows, self.cache.buffer, slots)
            return slots
        slots = np.empty(rows.shape[0], dtype=np.int64)
        for start in range(0, rows.size, self.chunk):
            part = rows[start : start + self.chunk]
            slots[start : start + part.size] = self.cache.insert(part, self._rows_block(part))
        return slots

    def _stream_compiled_rows(self, rows, coef, column_sum):
        """``column_sum += coef @ K[rows]`` by :class:`_CompiledRows`: the rows that the cache
        has room for computed into it, the others a block at a time into the block's memory."""
        slots = self.cache.reserve(rows)
        kept = slots >= 0
        self.compiled_rows.into(rows[kept], self.cache.buffer, slots[kept], coef[kept], column_sum)
        rest = np.flatnonzero(~kept)
        for start in range(0, rest.size, self.chunk):
            part = rest[start : start + self.chunk]
            self.compiled_rows.into(rows[part], self._block(part.size), np.arange(part.size), coef[part], column_sum)

    def _rows_block(self, rows):
        """The kernel rows ``rows`` (at most ``chunk``) in float32, computed into one block of
        memory kept for the whole solve: one block at a time, counted in the budget
        (``_BLOCK_BYTES``), instead of a new one each time while the last is still held
        (200,000 x 50 RBF: peak 15 MB lower)."""
        return _block32_on_all_cores(self.gram, rows, self._block(rows.shape[0]))

    def _block(self, n_rows):
        """The first ``n_rows`` (at most ``chunk``) rows of the block memory, made at the first use."""
        if self._block_memory is None:
            self._block_memory = np.empty((self.chunk, self.gram.n_rows), dtype=np.float32)
        return self._block_memory[:n_rows]


def _block32_on_all_cores(gram, rows, out):
    """``gram.block32`` of ``rows`` into ``out``, in parts on every core where
    :func:`on_all_cores`, as many as BLAS may have threads
    (:func:`svmkit._parallel.blas_thread_count`): a part of the rows on each thread, BLAS on
    one thread in each, so that the kernel's pass over the products (RBF's exponentials,
    0.9 ns a value on one core) runs on every core too. A compiled parallel loop right after BLAS's own threads
    is slowed by them, as they wait for work spinning for a while (83 RBF rows of 50,000 x
    22 float32 data: 4.4 ms by BLAS on two threads and the exponentials on one, 3.2 ms
    in two halves; the exponentials alone, 3.1 ms on one thread, 1.5 on two, 6.3 on two
    right after BLAS). Thin data only (``_PARTS_MAX_FEATURES``): each part's BLAS call packs
    all the columns' data again, which wider data pay for (a9a, 123 features: fit 2.95 ->
    4.43 s in parts)."""
    thin = getattr(gram, "n_features", np.inf) <= _PARTS_MAX_FEATURES
    n_parts = min(rows.shape[0], usable_cores(), blas_thread_count()) if thin and on_all_cores(out.size) else 1
    if n_parts < 2:
        return gram.block32(rows, out=out)
    bounds = np.linspace(0, rows.shape[0], n_parts + 1).astype(int)
    parts = [slice(start, stop) for start, stop in zip(bounds[:-1], bounds[1:])]
    map_in_threads(lambda part: gram.block32(rows[part], out=out[part]), parts, n_parts)
    return out


def intercept_from_gradient(y, alpha, grad, upper):
    """The bias ``b`` of ``f(x) = sum_j a_j y_j K(x_j, x) + b`` (LIBSVM's ``-rho``).

    The average over free multipliers (``0 < a_t < U_t``) of ``-y_t G_t``
    (the seeds' ``y_i - sum_j a_j y_j K_ij`` for C-SVC); with no free
    multiplier, the midpoint of the interval allowed by the KKT conditions
    (computed in one compiled pass, :func:`svmkit._core.smo.bias_from_gradient`).
    """
    return float(bias_from_gradient(y, alpha, grad, upper))
