"""Kernel blocks shared by the one-vs-one problems of a batch.

The problem of classes ``a`` and ``b`` reads the Gram matrix ``[[K_aa, K_ab], [K_ba, K_bb]]``
of their rows (LIBSVM's order: those of ``a``, then those of ``b``), and ``K_aa`` is part of
all ``k - 1`` problems of class ``a``. Where the plan says so
(:func:`svmkit._plan.class_blocks_pay`), :class:`ClassBlocks` computes each class's block once
and each problem's ``K_ab`` once, by BLAS, and assembles each problem's Gram matrix from them
before SMO starts, instead of computing the rows SMO asks for one at a time.
"""

from __future__ import annotations

import threading

import numpy as np

from .. import _plan
from .._buffers import reused_array


class ClassBlocks:
    """The class blocks of a one-vs-one batch whose problems are two runs of rows, a class each.

    Parameters
    ----------
    source : svmkit._solver.rows.KernelRows
        The kernel rows of all the data (dense rows of a compiled kernel).
    segments : list of (int, int, int, int)
        Each problem's two runs of rows, ``(first row, rows, first row, rows)``.
    dtypes : list of numpy dtype
        The type of each problem's Gram matrix.
    counts : svmkit._solver.dual.SolverCounts
        Where the kernel values computed, and the seconds taken, are counted.

    Examples
    --------
    >>> from svmkit.kernels import RBFKernel
    >>> from svmkit._solver.dual import SolverCounts
    >>> from svmkit._solver.rows import KernelRows
    >>> X = np.arange(10.0).reshape(5, 2)  # (class 0: rows 0 and 1, class 1: rows 2 and 3, class 2: row 4)
    >>> source = KernelRows(RBFKernel(gamma=0.1), X)
    >>> blocks = ClassBlocks(source, [(0, 2, 2, 2), (0, 2, 4, 1), (2, 2, 4, 1)], [np.float64] * 3, SolverCounts())
    >>> pair = np.array([0, 1, 4])  # (classes 0 and 2)
    >>> bool(np.allclose(blocks.gram(1, source.subset(pair, gather=True)), RBFKernel(gamma=0.1)(X[pair], X[pair])))
    True
    >>> blocks.counts.kernel_values  # (three class blocks, then the block of classes 0 and 2)
    11
    """

    def __init__(self, source, segments, dtypes, counts):
        self.segments = segments
        self.dtypes = [np.dtype(dtype) for dtype in dtypes]
        self.counts = counts
        self.blocks = {}
        with counts.timed("rows"):
            for key in _class_keys(segments, self.dtypes):
                start, n, dtype = key
                block = np.empty((n, n), dtype=dtype)
                source.subset(np.arange(start, start + n), gather=True).gram_into(block, "blas")
                counts.add(n, n * n)
                self.blocks[key] = block
        # (each thread's matrices, made once at the largest size: a fresh matrix of some megabytes
        # for each problem costs a page fault per page on its first write, more than the copies)
        self._buffers = threading.local()
        self._largest = {}  # (the most values of a Gram matrix and of a pair's block, by type)
        for (_, n_a, _, n_b), dtype in zip(segments, self.dtypes):
            gram, cross = self._largest.get(dtype, (0, 0))
            self._largest[dtype] = (max(gram, (n_a + n_b) ** 2), max(cross, n_a * n_b))

    @classmethod
    def for_batch(cls, batch, source, plan, budget_bytes, counts):
        """The :class:`ClassBlocks` of ``batch`` where :func:`svmkit._plan.class_blocks_pay`
        says so (each problem's Gram matrix in the type its store would take), else None."""
        if batch.n_groups < 2 or source.form is None or source.sparse_density is not None \
                or not _plan.class_blocks_pay(plan, linear=source.is_linear):
            return None
        runs = batch.runs()
        if runs is None:
            return None
        segments = []
        for g in range(batch.n_groups):
            start, split, col0, col1 = (int(value) for value in runs[g])
            n_a, n_b = split - start, int(runs[g + 1, 0]) - split
            if n_a == 0 or n_b == 0 or (col0 < col1 + n_b and col1 < col0 + n_a):
                return None  # (not two classes: one run, or runs over shared rows)
            segments.append((col0, n_a, col1, n_b))
        per_thread = budget_bytes / max(plan.threads, 1)
        dtypes = [_plan.gram_dtype(n_a + n_b, per_thread, plan.single_precision) for _, n_a, _, n_b in segments]
        if any(dtype is None for dtype in dtypes):
            return None
        class_bytes = sum(n * n * dtype.itemsize for _, n, dtype in _class_keys(segments, dtypes))
        pair_bytes = max(((n_a + n_b) ** 2 + n_a * n_b) * dtype.itemsize
                         for (_, n_a, _, n_b), dtype in zip(segments, dtypes))
        if not _plan.class_blocks_pay(plan, class_bytes, pair_bytes, budget_bytes, source.is_linear):
            return None
        return cls(source, segments, dtypes, counts)

    def gram(self, g, pair_source):
        """Problem ``g``'s Gram matrix (in this thread's buffer, until its next problem),
        ``pair_source`` the kernel rows of its two classes in the problem's order."""
        start_a, n_a, start_b, n_b = self.segments[g]
        dtype = self.dtypes[g]
        for name, values in zip(("gram", "cross"), self._largest[dtype]):
            reused_array(self._buffers, f"{name}_{dtype.name}", (values,), dtype)
        K = reused_array(self._buffers, f"gram_{dtype.name}", (n_a + n_b, n_a + n_b), dtype)
        cross = reused_array(self._buffers, f"cross_{dtype.name}", (n_a, n_b), dtype)
        with self.counts.timed("rows"):
            pair_source.cross_into(n_a, cross)
            K[:n_a, :n_a] = self.blocks[(start_a, n_a, dtype)]
            K[:n_a, n_a:] = cross
            K[n_a:, :n_a] = cross.T
            K[n_a:, n_a:] = self.blocks[(start_b, n_b, dtype)]
        self.counts.add(0, n_a * n_b)
        return K


def _class_keys(segments, dtypes):
    """The distinct ``(first row, rows, dtype)`` of the classes of ``segments``, in order."""
    keys = {}
    for (start_a, n_a, start_b, n_b), dtype in zip(segments, dtypes):
        keys.setdefault((start_a, n_a, np.dtype(dtype)), None)
        keys.setdefault((start_b, n_b, np.dtype(dtype)), None)
    return list(keys)
