"""The layouts of a multiclass fit's problems: the variables of one-vs-one pairs, and the
support vectors and coefficients of the fitted problems in LIBSVM's layout.

Both are index bookkeeping in a few passes here, where NumPy would take some twenty calls,
each costing more than the work itself on small problems.
"""

import numpy as np

from ._jit import jit


@jit
def pair_variables(class_start, first, second, upper):
    """``(rows, labels, bounds, runs, upper_of_variables)`` of one-vs-one problems on rows
    ordered by class (class ``c``: rows ``class_start[c]:class_start[c + 1]``): problem ``p``
    has the rows of class ``first[p]`` labelled +1, then those of ``second[p]`` labelled -1
    (LIBSVM's order), its variables ``bounds[p]:bounds[p + 1]`` in two runs (the ``runs`` of
    :class:`svmkit._core.smo.Batch`), each variable with its row's bound ``upper[row]``.

    Examples
    --------
    >>> rows, labels, bounds, runs, _ = pair_variables(np.array([0, 2, 3, 5]), np.array([0, 1]), np.array([2, 2]),
    ...                                                np.ones(5))
    >>> rows, labels, bounds
    (array([0, 1, 3, 4, 2, 3, 4]), array([ 1.,  1., -1., -1.,  1., -1., -1.]), array([0, 4, 7]))
    >>> runs  # (first variable, first of the second run, the runs' first rows)
    array([[0, 2, 0, 3],
           [4, 5, 2, 3],
           [7, 0, 0, 0]])
    """
    n_problems = first.shape[0]
    bounds = np.zeros(n_problems + 1, dtype=np.int64)
    for p in range(n_problems):
        bounds[p + 1] = (bounds[p] + class_start[first[p] + 1] - class_start[first[p]]
                         + class_start[second[p] + 1] - class_start[second[p]])
    m = bounds[n_problems]
    rows = np.empty(m, dtype=np.int64)
    labels = np.empty(m)
    runs = np.zeros((n_problems + 1, 4), dtype=np.int64)
    t = 0
    for p in range(n_problems):
        runs[p, 0], runs[p, 2], runs[p, 3] = t, class_start[first[p]], class_start[second[p]]
        for r in range(class_start[first[p]], class_start[first[p] + 1]):
            rows[t], labels[t] = r, 1.0
            t += 1
        runs[p, 1] = t
        for r in range(class_start[second[p]], class_start[second[p] + 1]):
            rows[t], labels[t] = r, -1.0
            t += 1
    runs[n_problems, 0] = m
    variable_upper = np.empty(m)
    for t in range(m):
        variable_upper[t] = upper[rows[t]]
    return rows, labels, bounds, runs, variable_upper


@jit
def support_layout(bounds, rows, coef, y_index, n_classes, first, second):
    """``(support, n_support, problem_coef, dual_coef)`` of fitted problems.

    Problem ``p`` has the variables ``bounds[p]:bounds[p + 1]``; variable ``t`` is on data
    row ``rows[t]`` with coefficient ``coef[t]`` (0: not a support vector); ``y_index`` is the
    class of every data row (int64, ``0 <= y_index < n_classes``); ``first`` and ``second``
    are the classes of each one-vs-one problem (int64; empty: one problem, or one-vs-rest).

    Returns the rows that are a support vector of some problem, by class then row (int64);
    their number per class (int64); the coefficient of support vector ``s`` in problem ``p``
    (``problem_coef[s, p]``); and for one-vs-one problems LIBSVM's ``dual_coef_`` (a support
    vector of class ``i`` has its coefficient of pair ``(i, j)`` in row ``j - 1`` if ``i < j``,
    else ``j``), else an empty ``(0, n_SV)`` array.

    Examples
    --------
    >>> rows, coef = np.array([0, 1, 2, 0, 3, 2]), np.array([0.5, 0.25, 0.0, -0.5, 0.0, 0.0])
    >>> support, n_support, problem_coef, dual_coef = support_layout(
    ...     np.array([0, 3, 6]), rows, coef, np.array([0, 1, 0, 2]), 3, np.array([0, 0]), np.array([1, 2]))
    >>> support, n_support
    (array([0, 1]), array([1, 1, 0]))
    >>> problem_coef
    array([[ 0.5 , -0.5 ],
           [ 0.25,  0.  ]])
    >>> dual_coef  # (row 0 is class 0's: its pair with 1 in row 0, with 2 in row 1)
    array([[ 0.5 ,  0.25],
           [-0.5 ,  0.  ]])
    """
    n = y_index.shape[0]
    is_support = np.zeros(n, dtype=np.bool_)
    for t in range(coef.shape[0]):
        if coef[t] != 0.0:
            is_support[rows[t]] = True
    n_support = np.zeros(n_classes, dtype=np.int64)
    for r in range(n):
        if is_support[r]:
            n_support[y_index[r]] += 1
    next_place = np.zeros(n_classes, dtype=np.int64)  # (where each class's next support vector goes)
    for c in range(1, n_classes):
        next_place[c] = next_place[c - 1] + n_support[c - 1]
    n_sv = next_place[n_classes - 1] + n_support[n_classes - 1] if n_classes > 0 else 0
    support = np.empty(n_sv, dtype=np.int64)
    position = np.empty(n, dtype=np.int64)  # (read at support vectors' rows only)
    for r in range(n):
        if is_support[r]:
            c = y_index[r]
            support[next_place[c]] = r
            position[r] = next_place[c]
            next_place[c] += 1
    n_problems = bounds.shape[0] - 1
    problem_coef = np.zeros((n_sv, n_problems))
    pairs = first.shape[0] > 0
    dual_coef = np.zeros((n_classes - 1 if pairs else 0, n_sv))
    for p in range(n_problems):
        for t in range(bounds[p], bounds[p + 1]):
            if coef[t] != 0.0:
                s = position[rows[t]]
                problem_coef[s, p] = coef[t]
                if pairs:
                    place = second[p] - 1 if y_index[rows[t]] == first[p] else first[p]
                    dual_coef[place, s] = coef[t]
    return support, n_support, problem_coef, dual_coef
