"""Features that mostly hold one value (one-hot and binary ones, also scaled to [-1, 1]): which
of them a product of rows takes over their few other entries, and around which centre.

BLAS's dense products cost every feature of every row; a sparse feature's products can be
summed over its entries instead (:func:`svmkit._core.kernels.apply_kernel_after_sparse_products`).
RBF's values depend on ``x - y`` only, so its data may first be moved so that each feature's
median, the value most rows hold where there is one, is zero; other kernels' may not.

The other way round, the products of sparse rows are taken by feature (the entries of a row's
features only), and a few features held by many rows can take most of that work: BLAS takes
theirs on a dense copy of them (:func:`common_features`).
"""

import numpy as np

from ._plan import (
    BY_FEATURE_VALUE_COST, COMMON_FEATURE_DENSITY, COMMON_FEATURES_MIN_ROWS, COMMON_SPLIT_MIN_GAIN,
    COMMON_SPLIT_PASS_COST, DENSE_COPY_BYTES, SPARSE_ENTRY_COST, SPARSE_FEATURE_DENSITY, SPLIT_MIN_SAVING,
)

#: Rows, spread over all, that decide the split (medians and densities): any split gives the
#: same kernel values, and a sample's densities are within a few hundredths of all rows'.
SAMPLE_ROWS = 512
#: Rows of that sample, spread over it, whose medians centre the features: a sparse feature
#: holds one value in at least 7/8 of its rows (``SPARSE_FEATURE_DENSITY``), so that the median of
#: 64 of them is that value but at odds of about 1e-11; another feature is dense whatever its
#: centre. (Sorting all the sampled values costs a noticeable share of a model's first
#: prediction: docs/performance.md.)
CENTRE_SAMPLE_ROWS = 64


def nonzero_fraction(X):
    """The fraction of the entries of the CSR matrix ``X`` that are stored (0 for an empty one).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> nonzero_fraction(sp.csr_matrix([[1.0, 0.0], [0.0, 0.0]]))
    0.25
    """
    return X.nnz / max(X.shape[0] * X.shape[1], 1)


def split_features(columns, centred):
    """``(centre, dense, sparse)`` for data given as their transpose ``columns`` (features by
    rows; the transposed view of the rows will do): the float64 centre subtracted from every row
    (each feature's median where ``centred``, else zeros), and the dense and the sparse features
    (``SPARSE_FEATURE_DENSITY``); None where taking the sparse features over their entries
    (``SPARSE_ENTRY_COST``) saves less than ``SPLIT_MIN_SAVING`` of the work of dense products.
    Decided on up to ``SAMPLE_ROWS`` rows spread over all, the only ones read (the medians on
    ``CENTRE_SAMPLE_ROWS`` of them).

    Examples
    --------
    >>> rows = np.full((8, 4), -1.0)  # (three binary features scaled to [-1, 1], two entries of 1)
    >>> rows[:, 0] = [0.3, 0.7, 0.2, 0.9, 0.4, 0.6, 0.1, 0.8]
    >>> rows[0, 1] = rows[2, 3] = 1.0
    >>> split_features(np.ascontiguousarray(rows.T), centred=True)
    (array([ 0.6, -1. , -1. , -1. ]), array([0]), array([1, 2, 3]))
    >>> split_features(np.ascontiguousarray(rows.T), centred=False) is None  # (no zeros)
    True
    """
    n_features, n_rows = columns.shape
    if n_rows == 0:
        return None
    sample = columns[:, ::max(1, n_rows // SAMPLE_ROWS)]
    centre = np.zeros(n_features)
    if centred:
        # (sorted: np.partition is many times slower on features of few distinct values)
        few = sample[:, ::max(1, sample.shape[1] // CENTRE_SAMPLE_ROWS)]
        centre = np.sort(few, axis=1)[:, few.shape[1] // 2].astype(np.float64)
    density = np.count_nonzero(sample != centre.astype(sample.dtype)[:, np.newaxis], axis=1) / sample.shape[1]
    sparse = np.flatnonzero(density <= SPARSE_FEATURE_DENSITY)
    entries = density[sparse].sum()  # (a row's entries of sparse features, on average)
    if sparse.size == 0 or sparse.size - SPARSE_ENTRY_COST * entries < SPLIT_MIN_SAVING * n_features:
        return None
    return centre, np.flatnonzero(density > SPARSE_FEATURE_DENSITY), sparse


def centred_parts(columns, split):
    """``(dense, sparse, sq_norms)`` of data given as their transpose ``columns`` and a ``split``
    of :func:`split_features`: the dense and the sparse features of the rows less the centre,
    still transposed, in ``columns``' type, and the squared norm of every centred row.

    Examples
    --------
    >>> columns = np.array([[0.5, 1.5, 2.5], [-1.0, -1.0, 1.0]])  # (two features of three rows)
    >>> dense, sparse, sq_norms = centred_parts(columns, (np.array([0.0, -1.0]), [0], [1]))
    >>> sparse, sq_norms
    (array([[0., 0., 2.]]), array([ 0.25,  2.25, 10.25]))
    """
    centre, dense, sparse = split
    parts = [columns[features] - centre[features].astype(columns.dtype)[:, np.newaxis] for features in (dense, sparse)]
    return (*parts, sum(np.einsum("ij,ij->j", part, part) for part in parts))


def common_features(column_counts, n_rows, itemsize):
    """The features of sparse rows whose products BLAS takes on a dense copy of them, the others'
    taken by feature: those in more than ``COMMON_FEATURE_DENSITY`` of the ``n_rows`` rows
    (``column_counts``: the rows holding each feature), the most common first as far as
    ``DENSE_COPY_BYTES`` hold them at ``itemsize`` bytes a value, in feature order. None where
    the products by feature they save (a feature held by ``c`` rows makes ``c^2`` of them over all
    pairs of rows, ``BY_FEATURE_VALUE_COST`` each) come to less than ``COMMON_SPLIT_MIN_GAIN``
    times what they cost instead (BLAS's products, a multiply-add a feature and a value, and
    ``COMMON_SPLIT_PASS_COST`` a value), or the rows are fewer than ``COMMON_FEATURES_MIN_ROWS``.

    Examples
    --------
    >>> counts = np.array([9000, 30, 0, 8000, 1300, 70])  # (rows holding each feature, of 10,000)
    >>> common_features(counts, 10_000, 4)  # (1.47 products a value saved: 109 against 2 x 51)
    array([0, 3, 4])
    >>> common_features(np.array([5000, 1000, 1000]), 10_000, 4) is None  # (0.25 a value: 19 against 2 x 49)
    True
    """
    if n_rows < COMMON_FEATURES_MIN_ROWS:
        return None
    counts = np.asarray(column_counts, dtype=np.float64)
    common = np.flatnonzero(counts > COMMON_FEATURE_DENSITY * n_rows)
    most = int(DENSE_COPY_BYTES // (itemsize * max(n_rows, 1)))
    common = common[np.argsort(-counts[common], kind="stable")[:most]]
    saved = BY_FEATURE_VALUE_COST * float(np.dot(counts[common], counts[common])) / float(n_rows) ** 2
    if common.size == 0 or saved < COMMON_SPLIT_MIN_GAIN * (common.size + COMMON_SPLIT_PASS_COST):
        return None
    return np.sort(common)
