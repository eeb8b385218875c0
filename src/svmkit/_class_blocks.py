"""Kernel blocks shared by the one-vs-one problems of a multiclass fit (DESIGN.md section 3).

The problem of classes ``a`` and ``b`` uses the rows of both, in LIBSVM's
order (those of ``a``, then those of ``b``), so its Gram matrix is
``[[K_aa, K_ab], [K_ba, K_bb]]``. The within-class block ``K_aa`` is part of
all ``n_classes - 1`` problems of class ``a``: :class:`ClassBlockGram` computes
it once, in float32 (the precision of the solver's kernel rows), and each
problem computes only its cross block ``K_ab``, once, in one BLAS call.
On usps (10 classes) that is 29 million kernel values for the 45 problems
instead of the 66 million of their rows computed one problem at a time.

Where the cache has room for them, each within-class block is kept with scratch
places below it, one per worker: a problem computes ``K_ab`` into a place below
``K_bb`` and transposes it into a place below ``K_aa``, and the solver reads each
row in two parts where they are stored (:meth:`_PairGram.row_parts`), instead of
copying the four blocks into a Gram matrix of the problem's own.

Where all the problems are small (a float64 Gram matrix each) and the strips
fit, :func:`solve_pairs_in_one_call` computes one strip per class instead (its
rows against those of the class and of every later class, in one BLAS block)
and solves every problem in one compiled call, which assembles each Gram
matrix from the strips (the linear kernel on few features: from the product of
the pair's rows, with no strips): no return to Python between the problems. From some
hundred thousand Gram matrix values, groups of consecutive problems are such
calls, on worker threads.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from functools import lru_cache

import numpy as np

from ._core.pairs import solve_linear_pairs, solve_pairs
from ._core.row_cache import copy_columns, copy_rows
from ._solver import GramBlocks, _into, full_gram_dtype, full_gram_itemsizes, kernel_values_dtype
from ._stacked import StackedDuals, solutions_in_one_call, starts_and_stops
from .kernels import LinearKernel

# Gram matrix values of the problems solved by one compiled call (:func:`pair_groups`) when
# groups run on worker threads, at most (digits' 45 problems, 3.5 million values: 13 groups) ...
_GROUP_VALUES = 2**18
# ... and at least, where a fit would have fewer than _GROUPS_PER_FIT groups: the threads share
# smaller groups more evenly (700 x 16 in 26 classes, linear, 325 problems of some 54 rows, 0.95
# million values, 4 -> 15 groups: fit time over LIBSVM's, each fit after a oneDAL fit, 0.319 ->
# 0.295; digits alike)
_MIN_GROUP_VALUES = 2**16
_GROUPS_PER_FIT = 16
# Linear one-vs-one problems in one compiled call on dense data of at most this many features
# compute each Gram matrix from their rows (ClassBlockGram.linear_pairs_from_data)
_LINEAR_PAIRS_MAX_FEATURES = 32


class ClassBlockGram(GramBlocks):
    """The Gram blocks of ``X`` whose within-class blocks are shared by the one-vs-one problems.

    Parameters
    ----------
    kernel : Kernel
        A kernel whose values may be computed in float32 (``float32_safe``).
    X : array or CSR matrix of shape (n_samples, n_features)
    members : list of int arrays
        The rows of each class, in increasing order.
    n_scratch : int
        How many problems at once may read their rows where they are stored
        (:meth:`_PairGram.row_parts`): each class's within-class block is kept with
        room below it for that many cross blocks against another class (0: none; the
        problems' rows are copied into a matrix of their own).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import RBFKernel
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> gram = ClassBlockGram(RBFKernel(gamma=0.1), X, [np.array([0, 3]), np.array([1, 4]), np.array([2, 5])])
    >>> pair = gram.subset(np.array([0, 3, 2, 5]))  # classes 0 and 2, LIBSVM's order
    >>> bool(np.allclose(pair.block32(np.arange(4)), RBFKernel(gamma=0.1)(X[[0, 3, 2, 5]], X[[0, 3, 2, 5]])))
    True
    """

    def __init__(self, kernel, X, members, n_scratch=0):
        super().__init__(kernel, X)
        self.members = members
        self.n_scratch = n_scratch
        self._free_scratch = queue.SimpleQueue()
        for place in range(n_scratch):
            self._free_scratch.put(place)
        sizes = np.array([rows.shape[0] for rows in members], dtype=np.int64)
        self._partner_rows = _largest_other(sizes)
        self._class_of = np.empty(X.shape[0], dtype=np.int64)
        for k, rows in enumerate(members):
            self._class_of[rows] = k
        self._diag = None
        # the data grouped by class, each class one slice: blocks read views, not gathered rows
        bounds = np.concatenate([[0], sizes.cumsum()])
        self._order = np.concatenate(members)
        self._grouped = {}  # by the type of the blocks (_grouped_blocks)
        self._grouped_lock = threading.Lock()
        self._slices = [slice(start, stop) for start, stop in starts_and_stops(bounds)]
        self._class_blocks = [{} for _ in members]  # by dtype, each with its room for cross blocks
        self._locks = [threading.Lock() for _ in members]  # problems run in worker threads
        self._square = threading.local()  # each worker thread's full-Gram matrix memory

    def subset(self, rows):
        """The Gram blocks of ``X[rows]``; for the rows of two classes in LIBSVM's order, with
        the shared within-class blocks."""
        a, b = self._class_of[rows[0]], self._class_of[rows[-1]]
        n_a = self.members[a].shape[0]
        is_pair = (
            a != b
            and rows.shape[0] == n_a + self.members[b].shape[0]
            and np.array_equal(rows[:n_a], self.members[a])
            and np.array_equal(rows[n_a:], self.members[b])
        )
        return _PairGram(self, a, b) if is_pair else super().subset(rows)

    def square_memory(self, n, dtype):
        """The calling thread's memory for one problem's ``n x n`` matrix at a time, kept from
        problem to problem: the pages are faulted in and zeroed by the system once per worker,
        not once per problem (usps, 45 problems of 8.5 MB: 96-138 ms of one thread's time to
        assemble their Gram matrices in new memory, 64-80 ms in reused memory)."""
        size = n * n * np.dtype(dtype).itemsize
        memory = getattr(self._square, "memory", None)
        if memory is None or memory.shape[0] < size:
            memory = self._square.memory = np.empty(size, dtype=np.uint8)
        return memory[:size].view(dtype).reshape(n, n)

    def diag(self):
        if self._diag is None:  # benign race: worker threads may both compute it
            self._diag = super().diag()
        return self._diag

    def class_block(self, k, dtype=np.float32):
        """``K(X_k, X_k)`` for the rows ``X_k`` of class ``k``, in float32 (the solver's large
        Gram matrices) or float64 (its small ones), computed on first use."""
        return self.class_rows(k, dtype)[: self.members[k].shape[0]]

    def class_rows(self, k, dtype):
        """The within-class block of class ``k`` followed by the room for ``n_scratch``
        cross blocks ``K(X_b, X_k)`` of as many rows as the largest other class."""
        dtype = np.dtype(dtype)
        with self._locks[k]:
            if dtype not in self._class_blocks[k]:
                n_k = self.members[k].shape[0]
                rows = np.empty((n_k + self.n_scratch * self._partner_rows[k], n_k), dtype=dtype)
                self.cross_block(k, k, dtype, out=rows[:n_k])
                self._class_blocks[k][dtype] = rows
            return self._class_blocks[k][dtype]

    @contextlib.contextmanager
    def scratch_place(self):
        """One of the ``n_scratch`` places for cross blocks below the within-class blocks,
        held in the ``with`` block (waits for one to be free)."""
        place = self._free_scratch.get()
        try:
            yield place
        finally:
            self._free_scratch.put(place)

    def scratch_rows(self, k, place):
        """The first row of scratch place ``place`` in :meth:`class_rows` of class ``k``."""
        return self.members[k].shape[0] + place * self._partner_rows[k]

    def cross_block(self, a, b, dtype, out=None):
        """``K(X_a, X_b)`` in ``dtype`` (float32 values computed as :meth:`block32` does),
        in ``out`` if given."""
        grouped = self._grouped_blocks(np.dtype(dtype))
        compute = grouped.block32 if dtype == np.float32 else grouped.block
        if out is not None:
            return compute(self._slices[a], self._slices[b], out=out)
        return np.asarray(compute(self._slices[a], self._slices[b]), dtype=dtype)

    def _grouped_blocks(self, dtype):
        """The Gram blocks of the data grouped by class, for blocks of ``dtype``: dense data
        for float32 blocks are gathered straight into their float32 copy (usps: no float64
        copy of 14 MB, which a fit of float32 blocks never reads)."""
        with self._grouped_lock:
            key = dtype if isinstance(self.X, np.ndarray) else None
            if key not in self._grouped:
                if key == np.float32:
                    X32 = np.empty(self.X.shape, dtype=np.float32)
                    copy_rows(self.X, self._order, X32, np.arange(self._order.shape[0]), 0)
                    self._grouped[key] = GramBlocks(self.kernel, X32)
                else:
                    self._grouped[key] = GramBlocks(self.kernel, self.X[self._order])
            return self._grouped[key]

    def class_strips(self, map_blocks=None):
        """``K(X_k, [X_k, X_k+1, ...])`` for each class ``k``, of :meth:`class_strip_dtype`, one
        after another in one flat array: the rows of class ``k`` against those of class ``k``
        and every later class (see :func:`svmkit._core.pairs.assemble_pair_gram`); one BLAS
        block per class instead of one per pair. ``map_blocks(function, classes)``, if given,
        computes the classes' blocks (on worker threads, say); else they are computed one after
        another."""
        dtype = self.class_strip_dtype()
        strips = np.empty(self.class_strip_values(), dtype=dtype)
        end = self.n_rows
        widths = [end - part.start for part in self._slices]
        sizes = [(part.stop - part.start) * width for part, width in zip(self._slices, widths)]
        offsets = np.array([0] + sizes).cumsum()

        grouped = self._grouped_blocks(dtype)
        compute = grouped.block32 if dtype == np.float32 else grouped.block

        def compute_strip(k):
            out = strips[offsets[k] : offsets[k + 1]].reshape(-1, widths[k])
            compute(self._slices[k], slice(self._slices[k].start, end), out=out)

        def in_turn(function, classes):
            return [function(k) for k in classes]

        (map_blocks or in_turn)(compute_strip, range(len(self._slices)))
        return strips

    def linear_pairs_from_data(self):
        """Whether the one-vs-one problems solved in one compiled call compute each Gram matrix
        from the data (:func:`svmkit._core.pairs.solve_linear_pairs`) instead of the class
        strips: the linear kernel on dense data of at most ``_LINEAR_PAIRS_MAX_FEATURES``
        features."""
        return (type(self.kernel) is LinearKernel and isinstance(self.X, np.ndarray)
                and self.n_features <= _LINEAR_PAIRS_MAX_FEATURES)

    def class_ordered_data(self):
        """The rows of every class, one class after another (float64, C-ordered): the data of
        the float64 blocks (:meth:`_grouped_blocks`)."""
        return np.ascontiguousarray(self._grouped_blocks(np.dtype(np.float64)).X, dtype=np.float64)

    def class_strip_dtype(self):
        """The type of :meth:`class_strips` (:func:`class_strip_dtype`)."""
        return class_strip_dtype([rows.shape[0] for rows in self.members])

    def class_strip_bytes(self):
        """The memory of :meth:`class_strips`."""
        return self.class_strip_values() * self.class_strip_dtype().itemsize

    def class_strip_values(self):
        """How many kernel values :meth:`class_strips` holds."""
        return class_strip_values([rows.shape[0] for rows in self.members])

    def class_start(self):
        """The first row of each class in class order, and the number of rows."""
        return np.array([part.start for part in self._slices] + [self.n_rows], dtype=np.int64)


class _PairGram(GramBlocks):
    """The Gram blocks of the rows of classes ``a`` and ``b``; whole rows (float32 or float64)
    are assembled from the shared within-class blocks and the pair's cross block, or read
    in two parts where they are stored (:meth:`row_parts`)."""

    # once the cross block is computed, every row is a copy: the solver takes them all at
    # once, with no return to Python per block of rows (usps RBF fit 263 ms instead of 295)
    rows_are_copies = True

    def __init__(self, shared, a, b):
        # every block comes from the shared blocks; the pair's data rows are gathered only if
        # ``X`` is asked for (a fit of usps gathers 45 x 4 MB less)
        self.kernel = shared.kernel
        self._X = None
        self._shared = shared
        self._classes = (a, b)
        self._rows = np.concatenate([shared.members[a], shared.members[b]])
        self._n_a = shared.members[a].shape[0]
        self._cross = {}  # K_ab by dtype
        self._X32 = None  # (float32_data: the pair's rows in float32, made if asked for)

    @property
    def X(self):
        if self._X is None:
            self._X = self._shared.X[self._rows]
        return self._X

    @property
    def n_rows(self):
        return self._rows.shape[0]

    @property
    def n_features(self):
        return self._shared.n_features

    def diag(self):
        return self._shared.diag()[self._rows]

    def square_memory(self, n, dtype):
        return self._shared.square_memory(n, dtype)

    def float32_copy_bytes(self):
        return 0  # no float32 copy of the pair's data is made (see block32)

    @property
    def splits_rows(self):
        """Whether :meth:`row_parts` applies (the shared blocks have scratch places)."""
        return self._shared.n_scratch > 0

    @contextlib.contextmanager
    def row_parts(self, dtype):
        """The pair's kernel rows where they are stored, as
        :func:`svmkit._core.smo_rows.smo_rows` reads them: ``(K, slot, R, slot_r)``, row
        ``r``'s first ``n_a`` columns ``K[slot[r]]`` and the others ``R[slot_r[r]]``.
        ``K`` holds the within-class block of class ``a`` and, in a scratch place below
        it, ``K_ba``; ``R`` holds ``K_ab`` in a scratch place and the within-class block of
        ``b``. The cross block is computed into its place and transposed into the other;
        nothing else is copied. Valid in the ``with`` block."""
        shared, (a, b), n_a = self._shared, self._classes, self._n_a
        n_b = self.n_rows - n_a
        with shared.scratch_place() as place:
            K, R = shared.class_rows(a, dtype), shared.class_rows(b, dtype)
            ab_first, ba_first = shared.scratch_rows(b, place), shared.scratch_rows(a, place)
            K_ab = R[ab_first : ab_first + n_a]
            shared.cross_block(a, b, np.dtype(dtype), out=K_ab)
            copy_columns(K_ab, np.arange(n_b), K, ba_first + np.arange(n_b), 0)
            slot = np.concatenate([np.arange(n_a), ba_first + np.arange(n_b)])
            slot_r = np.concatenate([ab_first + np.arange(n_a), np.arange(n_b)])
            yield K, slot, R, slot_r

    def block(self, rows, cols=None, out=None):
        return self._assembled(rows, cols, out, np.dtype(np.float64))

    def block32(self, rows, cols=None, out=None):
        return self._assembled(rows, cols, out, np.dtype(np.float32))

    def _assembled(self, rows, cols, out, dtype):
        """Rows of the pair's Gram matrix copied from the shared blocks (with ``cols``: those
        columns of them; the pair's data rows are never gathered)."""
        if cols is not None:
            return _into(self._assembled(rows, None, None, dtype)[:, cols], out)
        shared, (a, b), n_a = self._shared, self._classes, self._n_a
        if dtype not in self._cross:
            self._cross[dtype] = shared.cross_block(a, b, dtype)
        K_ab = self._cross[dtype]
        if out is None:
            out = np.empty((rows.shape[0], self.n_rows), dtype=dtype)
        in_a = rows < n_a
        out_a, out_b = np.flatnonzero(in_a), np.flatnonzero(~in_a)
        rows_a, rows_b = rows[out_a], rows[out_b] - n_a
        copy_rows(shared.class_block(a, dtype), rows_a, out, out_a, 0)
        copy_rows(K_ab, rows_a, out, out_a, n_a)
        copy_columns(K_ab, rows_b, out, out_b, 0)  # the rows of K_ba, read from K_ab
        copy_rows(shared.class_block(b, dtype), rows_b, out, out_b, n_a)
        return out


@lru_cache(maxsize=64)
def _pair_class_arrays(pairs):
    """:func:`pair_class_arrays` of a tuple of pairs, made once."""
    return tuple(np.ascontiguousarray(side, dtype=np.int64) for side in np.array(pairs, dtype=np.int64).reshape(-1, 2).T)


def pair_class_arrays(pairs):
    """The first and second class of each one-vs-one problem of ``pairs`` (``(a, b)``), as two
    int64 arrays made once per set of pairs and shared by the fits and predictions that use
    them, which only read them (a conversion of the list costs 1.7 us warm and 13 us alone after
    a flush of the caches; a one-vs-one fit made one for its compiled call and two for its
    decision model, and each prediction two).

    Examples
    --------
    >>> pair_class_arrays([(0, 1), (0, 2), (1, 2)])
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    return _pair_class_arrays(tuple(pairs))


def shared_class_blocks(gram, members, problems, cache_size, n_workers):
    """The Gram access and the cache (MB) of each of ``n_workers`` concurrent problems.

    One-vs-one problems of three or more classes get a :class:`ClassBlockGram`
    when its blocks (all within-class blocks, and one cross block per worker)
    fit in half of ``cache_size``, with scratch places for the workers' cross
    blocks below the within-class blocks where those fit too; the rest is shared
    by the workers. Otherwise ``gram`` is returned as it is, with ``cache_size /
    n_workers`` each.
    """
    kernel = getattr(gram, "kernel", None)
    one_vs_one = len(problems) > 1 and all(negative is not None for _, negative in problems)
    if type(gram) is not GramBlocks or not getattr(kernel, "float32_safe", False) or not one_vs_one:
        return gram, cache_size / n_workers
    sizes = np.array([rows.shape[0] for rows in members], dtype=np.int64)
    first, second = pair_class_arrays(problems)
    # the solver keeps a small Gram matrix in float64: the blocks of such pairs are float64
    # (digits, 45 pairs, warm: 106 -> 81 us, with a dictionary of pairs before)
    value_bytes = full_gram_itemsizes(sizes[first] + sizes[second])
    class_value_bytes = np.zeros(len(members), dtype=np.int64)  # 4, 8 or both (12)
    for side in (first, second):
        np.bitwise_or.at(class_value_bytes, side, value_bytes)
    class_bytes = int(np.sum(class_value_bytes * sizes**2))
    cross_bytes = int(np.max(value_bytes * sizes[first] * sizes[second]))
    shared_bytes = class_bytes + n_workers * cross_bytes
    half = cache_size * 2**20 / 2
    if shared_bytes > half:
        return gram, cache_size / n_workers
    scratch_bytes = n_workers * int(np.sum(class_value_bytes * _largest_other(sizes) * sizes))
    n_scratch = n_workers if shared_bytes + scratch_bytes <= half else 0
    shared_bytes += scratch_bytes if n_scratch else 0
    return ClassBlockGram(kernel, gram.X, members, n_scratch), (cache_size - shared_bytes / 2**20) / n_workers


def class_strip_values(sizes):
    """How many kernel values the class strips of classes of ``sizes`` rows hold: each class
    against itself and every later class, half of all pairs of rows and of those within one
    class.

    Examples
    --------
    >>> class_strip_values([2, 1, 1])  # 2 x 4, 1 x 2 and 1 x 1
    11
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    return int(np.sum(sizes) ** 2 + np.sum(sizes**2)) // 2


def class_strip_dtype(sizes):
    """The type of the class strips of classes of ``sizes`` rows, as that of a Gram matrix of
    as many values (:func:`svmkit._solver.kernel_values_dtype`): float32 from 4 MB of them
    (digits, 10 classes, 1,347 rows, one million values: BLAS products and ``exp`` twice as
    fast, and each problem's Gram matrix assembled and solved in float32 too; fits back to
    back, median of 41, two runs: RBF 5.3-5.5 -> 4.1 ms, linear 5.7 -> 4.0 ms; the benchmark's
    ratios to LIBSVM 0.42 -> 0.35 and 0.47 -> 0.42, the dual objectives unchanged).

    Examples
    --------
    >>> class_strip_dtype([300, 300]), class_strip_dtype([700] * 2)
    (dtype('float64'), dtype('float32'))
    """
    return kernel_values_dtype(class_strip_values(sizes))


def solve_pair_groups(solve_group, bounds, map_groups=None):
    """``solve_group(group, part, group_bounds)`` for groups of the consecutive problems whose
    variables ``bounds`` delimits (problem ``k``: ``bounds[k]:bounds[k + 1]``): ``group`` a slice
    of problems, ``part`` the slice of their variables and ``group_bounds`` their bounds counted
    from its start (:func:`_group_variables`). All problems in one group where ``map_groups`` is
    None; else groups of some ``_GROUP_VALUES`` Gram matrix values, or fewer where that would
    make fewer than ``_GROUPS_PER_FIT`` groups (:func:`pair_groups`), through
    ``map_groups(function, groups)`` (on worker threads, say).

    Examples
    --------
    >>> calls = []
    >>> solve_pair_groups(lambda *args: calls.append(args), np.array([0, 3, 7, 9]))
    >>> calls
    [(slice(0, 3, None), slice(0, 9, None), array([0, 3, 7, 9]))]
    """
    def solve(group):
        solve_group(group, *_group_variables(bounds, group))

    if map_groups is None:
        solve(slice(0, bounds.shape[0] - 1))
    else:
        sizes = np.diff(bounds)
        values = int(np.dot(sizes, sizes))
        map_groups(solve, pair_groups(sizes, min(_GROUP_VALUES, max(_MIN_GROUP_VALUES, values // _GROUPS_PER_FIT))))


def _group_variables(bounds, group):
    """The variables of the consecutive problems ``group`` (a slice of problems; problem ``k``
    has the variables ``bounds[k]:bounds[k + 1]``) as a slice, and their problems' bounds
    counted from its start.

    Examples
    --------
    >>> _group_variables(np.array([0, 3, 7, 9]), slice(1, 3))
    (slice(3, 9, None), array([0, 4, 6]))
    """
    part = slice(int(bounds[group.start]), int(bounds[group.stop]))
    return part, bounds[group.start : group.stop + 1] - part.start


def _largest_other(sizes):
    """For each class, the rows of the largest other class.

    Examples
    --------
    >>> _largest_other(np.array([5, 9, 7]))
    array([9, 7, 9])
    """
    if sizes.shape[0] < 2:
        return np.zeros_like(sizes)
    order = np.argsort(sizes, kind="stable")
    largest = np.full_like(sizes, sizes[order[-1]])
    largest[order[-1]] = sizes[order[-2]]
    return largest


def pairs_fit_in_one_call(gram, pairs, cache_size):
    """Whether the one-vs-one problems of the classes ``pairs`` (``a < b``) may be solved in one
    compiled call: ``gram`` is a :class:`ClassBlockGram` whose class strips fit in half of
    ``cache_size`` (MB), and the float64 Gram matrix of every problem in the other half.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import RBFKernel
    >>> members = [np.arange(0, 300), np.arange(300, 600), np.arange(600, 1200)]
    >>> gram = ClassBlockGram(RBFKernel(gamma=0.1), np.zeros((1200, 2)), members)
    >>> pairs_fit_in_one_call(gram, [(0, 1), (0, 2)], cache_size=200)  # 600 and 900 rows
    False
    >>> pairs_fit_in_one_call(gram, [(0, 1)], cache_size=200)
    True
    """
    if not isinstance(gram, ClassBlockGram) or not all(b is not None and a < b for a, b in pairs):
        return False
    budget = cache_size * 2**20 / 2
    largest = max(gram.members[a].shape[0] + gram.members[b].shape[0] for a, b in pairs)
    return gram.class_strip_bytes() <= budget and full_gram_dtype(largest, budget) == np.float64


def solve_pairs_in_one_call(gram, problems, pairs, tol, max_iter, shrinking, verbose=False, callback=None,
                            map_blocks=None, map_groups=None):
    """The solutions of the one-vs-one ``problems`` of the classes ``pairs``, for which
    :func:`pairs_fit_in_one_call` holds (the caller checks it first, before it builds the
    problems), all computed in one compiled call (:func:`svmkit._core.pairs.solve_pairs`), or
    None where that does not apply. ``map_blocks``: as :meth:`ClassBlockGram.class_strips`.
    ``map_groups(function, groups)``, if given, solves groups of consecutive problems (one
    compiled call each, on worker threads, say); else all are one call.

    It applies where every problem has one variable per row of its two classes, in LIBSVM's
    order (C-SVC; nu-SVC unless a sample has weight 0). The problems are solved as
    :func:`svmkit._solver.solve_dual` solves them; their progress (``verbose``, ``callback``)
    is reported when all are solved, each report with the time of the whole call.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import LinearKernel
    >>> from svmkit.svm._formulations import c_svc_dual
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> members = [np.array([0, 1]), np.array([2, 3]), np.array([4])]
    >>> gram = ClassBlockGram(LinearKernel(), X, members)
    >>> pairs = [(0, 1), (0, 2), (1, 2)]
    >>> problems = [
    ...     c_svc_dual(np.concatenate([members[a], members[b]]),
    ...                np.repeat([1.0, -1.0], [members[a].size, members[b].size]), np.full(3 if b == 2 else 4, 10.0))
    ...     for a, b in pairs]
    >>> solutions = solve_pairs_in_one_call(gram, problems, pairs, 1e-6, -1, True)
    >>> solutions[0].alpha.round(6)  # classes 0 and 1: the margin 1 <= x <= 3
    array([0. , 0.5, 0.5, 0. ])
    """
    members = gram.members
    stack = StackedDuals.of(problems)
    # (one comparison of all problems' rows, not two per problem: 325 pairs, 3 ms)
    if stack is None or not np.array_equal(stack.rows, np.concatenate([members[k] for pair in pairs for k in pair])):
        return None
    lengths = [members[a].shape[0] + members[b].shape[0] for a, b in pairs]
    if not np.array_equal(np.diff(stack.bounds), lengths):
        return None

    first, second = pair_class_arrays(pairs)
    qd = gram.diag()[stack.rows]

    from_data = gram.linear_pairs_from_data()

    def solve(bounds, y, upper, p, alpha, settings, grad, n_iter, status, gap):
        if from_data:
            kernel_values, solve_problems = gram.class_ordered_data(), solve_linear_pairs
        else:
            kernel_values, solve_problems = gram.class_strips(map_blocks), solve_pairs
        class_start = gram.class_start()

        def solve_group(group, part, group_bounds):
            solve_problems(
                kernel_values, class_start, first[group], second[group], group_bounds,
                y[part], upper[part], p[part], qd[part], alpha[part], *settings, grad[part], n_iter[group],
                status[group], gap[group],
            )

        solve_pair_groups(solve_group, bounds, map_groups)

    dtype = np.float64 if from_data else gram.class_strip_dtype()
    return solutions_in_one_call(stack, solve, tol, max_iter, shrinking, verbose, callback, dtype)


def pair_groups(sizes, per_group):
    """Slices of consecutive problems of ``sizes`` rows, each closed once its Gram matrix
    values (``sizes**2`` summed) reach ``per_group``.

    Examples
    --------
    >>> pair_groups(np.array([300, 300, 300, 100, 100]), per_group=150_000)
    [slice(0, 2, None), slice(2, 5, None)]
    """
    groups, start, values = [], 0, 0
    for k, size in enumerate(sizes):
        values += int(size) ** 2
        if values >= per_group:
            groups.append(slice(start, k + 1))
            start, values = k + 1, 0
    if start < len(sizes):
        groups.append(slice(start, len(sizes)))
    return groups
