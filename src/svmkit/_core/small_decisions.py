"""Decision values of a small dense test set in one compiled call.

For a few dozen test rows the arithmetic of a prediction takes a few
microseconds, less than NumPy's dozen calls (products, norms, exponent,
exponential, the product with the coefficients, the intercept, the
one-vs-rest scores) and the input check would cost around it; here they are
one call.
"""

import numpy as np

from ._jit import jit
from .checks import all_finite
from .kernel_blocks import KERNEL_RBF, _row_sq_norms, exp_nonpositive
from .multiclass import ovr_scores

#: Linear: test rows of at most this many features are multiplied with the weights by loops
#: here, not by BLAS, whose call costs more than such products right after other work has left
#: the caches (the benchmark's order, each fit followed by scikit-learn's and oneDAL's, median
#: of 38: iris, 38 test rows of 4 features, 9.6 / 6.5 against 18.6 / 15.1 us; breast cancer's
#: 30 features 13.2 against 6.9 us)
LOOP_FEATURES = 8

#: RBF: products ``SV X'`` of at most this many multiply-adds are computed by loops here (along
#: the test rows, vectorised), not by BLAS (the benchmark's order, median of 20, the kernel
#: values and their sums alone: iris, 38 x 44 x 4, 7.7 against 11.3 us; wine, 45 x 60 x 13,
#: 12.0 against 16.0; heart, 68 x 104 x 13 = 91,936, 17.7 against 18.2; breast cancer,
#: 143 x 104 x 30, 52.7 against 42.0)
RBF_LOOP_PRODUCTS = 2**16


@jit
def small_decisions(X, kernel_code, model, model_norms, gamma, coef, intercept, first, second, n_classes):
    """``(finite, values)``: the decision values ``K(X, SV) @ coef + intercept`` of the rows
    of ``X`` (C-ordered float64), or ``(False, empty)`` where ``X`` holds a NaN or infinity.

    ``kernel_code`` ``KERNEL_RBF``: ``model`` holds the support vectors (n_SV, d) and
    ``model_norms`` their squared norms (:func:`support_sq_norms`), ``coef`` (n_SV, k) their
    coefficients; ``K(x, s) = exp(-gamma |x - s|^2)``. ``KERNEL_LINEAR``: ``model`` is the
    weight matrix ``SV' coef`` (d, k), and ``model_norms``, ``gamma``, ``coef`` are not used.
    With ``n_classes > 0`` the values are those of one-vs-one problems (``first[k]``,
    ``second[k]``: the classes of problem ``k``) and the result is scikit-learn's
    one-vs-rest scores of them (:func:`svmkit._core.multiclass.ovr_scores`).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_LINEAR, KERNEL_RBF
    >>> X, none = np.array([[0.0, 0.0], [1.0, 0.0]]), np.empty(0, dtype=np.int64)
    >>> finite, values = small_decisions(X, KERNEL_RBF, X, support_sq_norms(X), 0.5,
    ...                                  np.array([[1.0], [-1.0]]), np.array([0.25]), none, none, 0)
    >>> finite, values.round(4)
    (True, array([[ 0.6435],
           [-0.1435]]))
    >>> small_decisions(X, KERNEL_LINEAR, np.array([[2.0], [1.0]]), np.empty(0), 0.0, np.empty((0, 1)),
    ...                 np.array([-1.0]), none, none, 0)[1].ravel()
    array([-1.,  1.])
    >>> small_decisions(np.array([[np.nan, 0.0]]), KERNEL_LINEAR, np.ones((2, 1)), np.empty(0), 0.0,
    ...                 np.empty((0, 1)), np.zeros(1), none, none, 0)[0]
    False
    """
    if not all_finite(X):
        return False, np.empty((0, 0))
    if kernel_code == KERNEL_RBF:
        decisions = np.ascontiguousarray(_rbf_sums(X, model, model_norms, gamma, coef).T)
    else:
        decisions = _times(X, model) if X.shape[1] <= LOOP_FEATURES else X @ model
    for i in range(decisions.shape[0]):
        for k in range(decisions.shape[1]):
            decisions[i, k] += intercept[k]
    if n_classes > 0:
        return True, ovr_scores(decisions, first, second, n_classes)
    return True, decisions


@jit
def support_sq_norms(support_vectors):
    """The squared norms of the rows of ``support_vectors``, as :func:`small_decisions` takes
    them (summed in the order its test rows' norms are).

    Examples
    --------
    >>> import numpy as np
    >>> support_sq_norms(np.array([[3.0, 4.0], [1.0, 0.0]]))
    array([25.,  1.])
    """
    return _row_sq_norms(support_vectors)


@jit
def linear_weights(support_vectors, coef):
    """``support_vectors.T @ coef`` as a C-ordered (n_features, k) array: the weights ``w`` of
    the linear kernel's ``k`` decision functions, each added up one support vector at a time
    (no BLAS call, whose code a fit right after another library's finds out of the caches).
    Not :func:`_times` of the transpose: that loop runs along the ``k`` problems and adds the
    zero coefficients too (warm, 60 support vectors x 30 features x 10 problems, 60% zeros: 6.0
    against 1.7 us).

    Examples
    --------
    >>> import numpy as np
    >>> linear_weights(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, 1.0], [-1.0, 0.0]]))
    array([[-2.5,  1. ],
           [-3. ,  2. ]])
    """
    weights = np.zeros((coef.shape[1], support_vectors.shape[1]))
    for s in range(support_vectors.shape[0]):
        for c in range(coef.shape[1]):
            weight = coef[s, c]
            if weight != 0.0:  # (one-vs-one: a support vector is in its own class's problems only)
                for f in range(support_vectors.shape[1]):
                    weights[c, f] += weight * support_vectors[s, f]
    return np.ascontiguousarray(weights.T)


@jit
def _times(A, B):
    """``A @ B`` by loops (the rows of ``B`` added into each row of the result)."""
    out = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for f in range(A.shape[1]):
            a = A[i, f]
            for j in range(B.shape[1]):
                out[i, j] += a * B[f, j]
    return out


@jit
def _rbf_sums(X, support_vectors, support_norms, gamma, coef):
    """``(K(X, SV) @ coef).T`` (k, n_test), one support vector at a time: its row of the
    products ``SV X'`` (by :func:`_times` up to ``RBF_LOOP_PRODUCTS``, else BLAS), the kernel
    values of that row (the squared distances as
    :func:`svmkit._core.kernel_blocks.rbf_from_products` forms them) and its coefficients'
    terms, each a loop along the row's contiguous ``n_test`` values, which vectorises (a
    second product by BLAS, of the kernel block with the coefficients, cost more: in the
    benchmark's order wine, 45 test rows x 60 support vectors, took 12.7 against 14.4 us,
    iris 9.5 against 12.6)."""
    loops = X.shape[0] * support_vectors.shape[0] * X.shape[1] <= RBF_LOOP_PRODUCTS
    products = _times(support_vectors, np.ascontiguousarray(X.T)) if loops else support_vectors @ X.T
    test_norms = _row_sq_norms(X)
    sums = np.zeros((coef.shape[1], X.shape[0]))
    for j in range(support_vectors.shape[0]):
        row = products[j]
        for i in range(row.shape[0]):
            distance = test_norms[i] + support_norms[j] - 2.0 * row[i]
            row[i] = exp_nonpositive(-gamma * (distance if distance > 0.0 else 0.0))
        for c in range(coef.shape[1]):
            weight = coef[j, c]
            if weight == 0.0:  # (one-vs-one: a support vector is in its own class's problems only)
                continue
            sums_c = sums[c]
            for i in range(row.shape[0]):
                sums_c[i] += row[i] * weight
    return sums
