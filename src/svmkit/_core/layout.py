"""Fitted problems' multipliers in LIBSVM's layout (compiled: a few passes over the variables
instead of some twenty NumPy calls, which a small fit would notice)."""

import numpy as np

from ._jit import jit


@jit
def libsvm_layout(bounds, rows, coef, y_index, n_classes, first, second):
    """The support vectors and coefficients of fitted problems in LIBSVM's layout.

    Problem ``p`` has the variables ``bounds[p]:bounds[p + 1]``; variable ``t`` is on data
    row ``rows[t]`` with coefficient ``coef[t] = alpha_t y_t`` (0: not a support vector);
    ``y_index`` is the class of every data row; ``first`` and ``second`` are the classes of
    each one-vs-one problem (empty: one problem, or one-vs-rest). A problem has each row once.

    Returns ``(support, n_support, problem_coef, dual_coef)``: the rows that are a support
    vector of some problem, by class then row; their number per class; the coefficient of
    support vector ``s`` in problem ``p`` (``problem_coef[s, p]``); and for one-vs-one
    problems LIBSVM's ``dual_coef_`` (a support vector of class ``i`` has its coefficient of
    pair ``(i, j)`` in row ``j - 1`` if ``i < j``, else ``j``), else an empty array.

    Examples
    --------
    >>> rows, coef = np.array([0, 1, 2, 0, 3, 2]), np.array([0.5, 0.25, 0.0, -0.5, 0.0, 0.0])
    >>> support, n_support, problem_coef, dual_coef = libsvm_layout(
    ...     np.array([0, 3, 6]), rows, coef, np.array([0, 1, 0, 2]), 3, np.array([0, 0]), np.array([1, 2]))
    >>> support, n_support
    (array([0, 1]), array([1, 1, 0]))
    >>> problem_coef
    array([[ 0.5 , -0.5 ],
           [ 0.25,  0.  ]])
    >>> dual_coef  # (row 0 of class 0: pair (0, 1) in row 0, (0, 2) in row 1; row 1 of class 1: (0, 1) in row 0)
    array([[ 0.5 ,  0.25],
           [-0.5 ,  0.  ]])
    """
    n_rows, n_problems = y_index.shape[0], bounds.shape[0] - 1
    is_support = np.zeros(n_rows, dtype=np.bool_)
    for t in range(coef.shape[0]):
        if coef[t] != 0:
            is_support[rows[t]] = True
    # (by class, then row: a counting sort over the classes)
    n_support = np.zeros(n_classes, dtype=np.int64)
    for r in range(n_rows):
        if is_support[r]:
            n_support[y_index[r]] += 1
    next_place = np.zeros(n_classes, dtype=np.int64)
    for c in range(1, n_classes):
        next_place[c] = next_place[c - 1] + n_support[c - 1]
    n_sv = next_place[n_classes - 1] + n_support[n_classes - 1] if n_classes > 0 else 0
    support = np.empty(n_sv, dtype=np.int64)
    position = np.full(n_rows, -1, dtype=np.int64)
    for r in range(n_rows):
        if is_support[r]:
            place = next_place[y_index[r]]
            support[place] = r
            position[r] = place
            next_place[y_index[r]] = place + 1
    problem_coef = np.zeros((n_sv, n_problems))
    one_vs_one = first.shape[0] > 0
    dual_coef = np.zeros((n_classes - 1 if one_vs_one else 0, n_sv))
    for p in range(n_problems):
        for t in range(bounds[p], bounds[p + 1]):
            if coef[t] != 0:
                s = position[rows[t]]
                problem_coef[s, p] = coef[t]
                if one_vs_one:
                    dual_coef[second[p] - 1 if y_index[rows[t]] == first[p] else first[p], s] = coef[t]
    return support, n_support, problem_coef, dual_coef
