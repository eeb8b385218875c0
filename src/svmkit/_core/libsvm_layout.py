"""The support vectors and coefficients of fitted two-class problems in LIBSVM's layout."""

import numpy as np

from ._jit import jit
from .objectives import objectives_per_problem


@jit
def libsvm_layout(rows, coef, bounds, y_index, n_rows, n_classes, first, second):
    """Support vectors and coefficients of problems whose variables are concatenated.

    Problem ``p`` has the variables ``bounds[p]:bounds[p + 1]``; variable ``t`` is on data
    row ``rows[t]`` with coefficient ``coef[t] = alpha_t y_t`` (0: not a support vector).
    ``y_index`` is the class of every data row. ``first`` and ``second`` are the classes of
    each one-vs-one problem, or empty arrays (one problem, or one-vs-rest).

    Returns ``(support, n_support, problem_coef, dual_coef)``: the rows that are a support
    vector of some problem, by class, then row; their number per class; the coefficient of
    support vector ``s`` in problem ``p`` (``problem_coef[s, p]``); and for one-vs-one
    problems LIBSVM's ``dual_coef_`` (a support vector of class ``i`` has its coefficient of
    pair ``(i, j)`` in row ``j - 1`` if ``i < j``, else ``j``), else an empty array.

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.array([0, 1, 2, 0, 1, 3])  # pairs (0, 1) and (0, 2) of classes [0, 1, 0, 2]
    >>> coef = np.array([0.5, -0.5, 0.0, 0.25, 0.0, -0.25])
    >>> support, n_support, problem_coef, dual_coef = libsvm_layout(
    ...     rows, coef, np.array([0, 3, 6]), np.array([0, 1, 0, 2]), 4, 3, np.array([0, 0]), np.array([1, 2]))
    >>> support, n_support
    (array([0, 1, 3]), array([1, 1, 1]))
    >>> dual_coef
    array([[ 0.5 , -0.5 , -0.25],
           [ 0.25,  0.  ,  0.  ]])
    """
    n_problems = bounds.shape[0] - 1
    is_support = np.zeros(n_rows, dtype=np.bool_)
    for t in range(rows.shape[0]):
        if coef[t] != 0.0:
            is_support[rows[t]] = True
    n_support = np.zeros(n_classes, dtype=np.int64)
    for r in range(n_rows):
        if is_support[r]:
            n_support[y_index[r]] += 1
    next_position = np.zeros(n_classes, dtype=np.int64)
    for k in range(1, n_classes):
        next_position[k] = next_position[k - 1] + n_support[k - 1]
    n_sv = next_position[n_classes - 1] + n_support[n_classes - 1]
    support = np.empty(n_sv, dtype=np.int64)
    position = np.full(n_rows, -1, dtype=np.int64)
    for r in range(n_rows):
        if is_support[r]:
            position[r] = next_position[y_index[r]]
            support[position[r]] = r
            next_position[y_index[r]] += 1
    problem_coef = np.zeros((n_sv, n_problems))
    one_vs_one = first.shape[0] > 0
    dual_coef = np.zeros((n_classes - 1, n_sv) if one_vs_one else (0, 0))
    for p in range(n_problems):
        for t in range(bounds[p], bounds[p + 1]):
            if coef[t] != 0.0:
                s = position[rows[t]]
                problem_coef[s, p] = coef[t]
                if one_vs_one:
                    dual_coef[second[p] - 1 if y_index[rows[t]] == first[p] else first[p], s] = coef[t]
    return support, n_support, problem_coef, dual_coef


@jit
def libsvm_layout_and_objectives(bounds, rows, y, alpha, upper, yf, intercept, y_index, n_rows, n_classes, first,
                                 second):
    """:func:`libsvm_layout` of fitted problems (variables ``bounds[p]:bounds[p + 1]`` on the
    data rows ``rows``, with ``y``, ``alpha``, ``upper`` and ``y f(x)`` per variable, and an
    intercept per problem) and their objectives
    (:func:`svmkit._core.objectives.objectives_per_problem`), in one call: the eight arrays
    ``(support, n_support, problem_coef, dual_coef, margin, dual, primal, gap)``.

    Examples
    --------
    >>> import numpy as np
    >>> y, alpha = np.array([1.0, -1.0, 1.0]), np.array([0.5, 0.5, 0.0])
    >>> support, n_support, problem_coef, dual_coef, margin, dual, primal, gap = libsvm_layout_and_objectives(
    ...     np.array([0, 3]), np.array([0, 1, 2]), y, alpha, np.ones(3), np.array([1.0, 1.0, 2.0]), np.array([0.0]),
    ...     np.array([1, 0, 1]), 3, 2, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
    >>> support, problem_coef.ravel(), margin, dual
    (array([1, 0]), array([-0.5,  0.5]), array([2.]), array([0.5]))
    """
    support, n_support, problem_coef, dual_coef = libsvm_layout(
        rows, alpha * y, bounds, y_index, n_rows, n_classes, first, second
    )
    margin, dual, primal, gap = objectives_per_problem(bounds, alpha, y, yf, upper, intercept)
    return support, n_support, problem_coef, dual_coef, margin, dual, primal, gap
