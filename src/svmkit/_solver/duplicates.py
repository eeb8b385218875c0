"""Copies of one training point solved as one variable.

Where rows ``s`` and ``t`` of the data are equal, their kernel rows are equal; two variables of
one problem on them with the same sign and linear term then enter the dual only through their
sum, and the dual of the merged variable, bounded by the sum of their bounds, has the same
optimum. :func:`merge_copies` builds that smaller batch (and the source of the distinct rows,
whose kernel rows are shorter); :meth:`MergedCopies.expand` puts each merged multiplier back
on as few copies as hold it, in order, each up to its own bound, as LIBSVM's SMO keeps a
point's multiplier on one of its copies instead of spreading it over all.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from .. import _plan
from .dual import DualBatch

#: Rows compared at once (a copy of this many rows of the data and of their first copies).
_COMPARE_ROWS = 65_536


def first_copies(X, min_copies=0):
    """For every row of ``X`` (a dense array or a CSR matrix with sorted indices), the index
    of the first row equal to it (its own where none before it is); None where fewer than
    ``min_copies`` rows could be a copy of an earlier one (not even their products are equal).

    Rows are grouped by their product with a fixed random vector, then compared value by
    value; equal rows have equal products (the same sum in the same order), and rows whose
    products only happen to be equal stay apart.

    Examples
    --------
    >>> import numpy as np
    >>> first_copies(np.array([[1.0, 2.0], [0.0, 1.0], [1.0, 2.0], [0.0, 1.0], [3.0, 0.0]]))
    array([0, 1, 0, 1, 4])
    """
    n = X.shape[0]
    hashes = np.asarray(X @ _probe(X.shape[1])).ravel()
    order = np.argsort(hashes, kind="stable")  # (equal products in the order of the rows)
    sorted_hashes = hashes[order]
    starts = np.empty(n, dtype=bool)
    starts[:1] = True
    np.not_equal(sorted_hashes[1:], sorted_hashes[:-1], out=starts[1:])
    n_candidates = n - int(np.count_nonzero(starts))
    if n_candidates < min_copies:
        return None
    first_of = np.arange(n)
    if n_candidates == 0:  # (no two rows alike)
        return first_of
    first = order[np.flatnonzero(starts)][np.cumsum(starts) - 1]
    candidates = np.flatnonzero(first != order)
    rows, firsts = order[candidates], first[candidates]
    for start in range(0, rows.shape[0], _COMPARE_ROWS):
        part = slice(start, start + _COMPARE_ROWS)
        equal = _rows_equal(X, rows[part], firsts[part])
        first_of[rows[part][equal]] = firsts[part][equal]
    return first_of


@functools.lru_cache(maxsize=8)
def _probe(n_features):
    """The fixed random vector rows are hashed by (made once per width: a generator costs
    more than hashing a small data set)."""
    probe = np.random.default_rng(0).standard_normal(n_features)
    probe.flags.writeable = False
    return probe


def _rows_equal(X, a, b):
    """Whether row ``a[k]`` of ``X`` equals row ``b[k]``, for every ``k``."""
    if sp.issparse(X):
        differ = sp.csr_matrix(X[a] != X[b])
        differ.eliminate_zeros()
        return np.diff(differ.indptr) == 0
    return np.all(X[a] == X[b], axis=1)


@dataclass
class MergedCopies:
    """A batch whose variables on copies of one row are merged (:func:`merge_copies`).

    Attributes
    ----------
    batch : DualBatch
        The merged batch, on the rows of ``source``.
    source : row source
        The distinct rows' source.
    merged_of : int64 array
        The merged variable of each variable of the original batch.
    upper : float64 array
        The original variables' bounds.
    """

    batch: DualBatch
    source: object
    merged_of: np.ndarray
    upper: np.ndarray

    def expand(self, solution):
        """The solution of the original batch from the merged batch's: every multiplier on
        its first copies, each up to its bound; the gradient the merged variable's (the
        copies' rows, signs and linear terms are its own)."""
        m = self.merged_of.shape[0]
        order = np.argsort(self.merged_of, kind="stable")  # (each merged variable's copies in order)
        keys = self.merged_of[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        place = np.arange(m) - np.repeat(starts, np.diff(np.r_[starts, m]))  # (0: first copy, 1: second ...)
        by_place = np.argsort(place, kind="stable")
        place_bounds = np.searchsorted(place[by_place], np.arange(place.max(initial=0) + 2))
        left = np.array(solution.alpha, dtype=np.float64)
        alpha = np.zeros(m)
        for k in range(place_bounds.shape[0] - 1):  # (the k-th copies of every merged variable at once)
            at = by_place[place_bounds[k]:place_bounds[k + 1]]
            variables, merged = order[at], keys[at]
            alpha[variables] = np.minimum(left[merged], self.upper[variables])
            left[merged] -= alpha[variables]
        return replace(solution, alpha=alpha, grad=solution.grad[self.merged_of])


def merge_copies(batch, source):
    """A :class:`MergedCopies` of ``batch`` on ``source``'s rows, or None where fewer than
    ``MERGE_COPIES_MIN_FRACTION`` of the variables are copies (the hashing, the smaller
    batch and a copy of the distinct rows would cost more than they save) or the source has
    no rows to compare (a precomputed kernel).

    Variables of one problem merge where their rows are equal and their signs and linear
    terms are (SVR's two variables of a row differ in both, one-vs-one pairs' rows of one
    point in two classes in sign).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import LinearKernel
    >>> from svmkit._solver.rows import KernelRows
    >>> X = np.array([[0.0], [0.0], [0.0], [2.0]])
    >>> batch = DualBatch.single(np.array([-1.0, -1.0, -1.0, 1.0]), -np.ones(4), np.full(4, 1.0), np.zeros(4),
    ...                          np.arange(4))
    >>> merged = merge_copies(batch, KernelRows(LinearKernel(), X))
    >>> merged.batch.upper, merged.batch.rows, merged.merged_of
    (array([3., 1.]), array([0, 1]), array([0, 0, 0, 1]))
    """
    X = getattr(source, "X", None)
    if X is None or batch.y.shape[0] < 2:
        return None
    min_copies = _plan.MERGE_COPIES_MIN_FRACTION * X.shape[0]
    first_of = first_copies(X, min_copies)
    if first_of is None or np.count_nonzero(first_of != np.arange(first_of.shape[0])) < min_copies:
        return None
    m = batch.y.shape[0]
    group = np.repeat(np.arange(batch.n_groups), np.diff(batch.bounds))
    point = first_of[batch.rows]
    # variables sorted by problem, point, sign and linear term, then index: runs of equal keys
    order = np.lexsort((np.arange(m), batch.p, batch.y, point, group))
    new_key = np.r_[True, (np.diff(group[order]) != 0) | (np.diff(point[order]) != 0)
                    | (np.diff(batch.y[order]) != 0) | (np.diff(batch.p[order]) != 0)]
    if np.count_nonzero(new_key) > (1.0 - _plan.MERGE_COPIES_MIN_FRACTION) * m:
        return None
    key_of = np.empty(m, dtype=np.int64)
    key_of[order] = np.cumsum(new_key) - 1
    representative = order[new_key]  # (the first variable of each key)
    # merged variables in the order of their first variables, so each problem stays one run
    rank = np.empty(representative.shape[0], dtype=np.int64)
    rank[np.argsort(representative, kind="stable")] = np.arange(representative.shape[0])
    merged_of = rank[key_of]
    first = np.sort(representative)
    # each merged variable on its first variable's row: a point's copies in two classes keep
    # rows of their own, and a problem's rows stay runs where they were
    distinct = np.unique(batch.rows[first])
    merged = DualBatch(
        y=batch.y[first], p=batch.p[first],
        upper=np.bincount(merged_of, weights=batch.upper, minlength=first.shape[0]),
        alpha0=np.bincount(merged_of, weights=batch.alpha0, minlength=first.shape[0]),
        rows=np.searchsorted(distinct, batch.rows[first]).astype(np.int64),
        bounds=np.r_[0, np.cumsum(np.bincount(group[first], minlength=batch.n_groups))].astype(np.int64),
        nu=batch.nu,
        grad0=None if batch.grad0 is None else batch.grad0[first],  # (copies share point, sign and p: one gradient)
    )
    return MergedCopies(merged, source.subset(distinct), merged_of, np.asarray(batch.upper, dtype=np.float64))
