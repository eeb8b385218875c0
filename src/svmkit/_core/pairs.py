"""Problems of one fit solved one after another in one compiled call, each on a Gram matrix in memory.

:func:`solve_pairs`: the one-vs-one problems of a multiclass fit, each Gram
matrix assembled from the class strips (the kernel values of each class against
itself and every later class); :func:`solve_subsets`: problems on rows of one
Gram matrix (the cross-validation fits of ``probability=True``); others on kernel
rows computed (:func:`solve_pairs_on_own_rows`) or copied from a Gram matrix
(:func:`solve_pairs_on_gram_rows`) as their solver asks for them. Each is solved
by :func:`svmkit._core.full_gram.full_gram_solve` as the full-Gram solver does it,
with no return to Python in between: for problems of a few hundred rows the
Python around each call took as long as its SMO (digits, 45 problems).
"""

import numpy as np

from ._jit import jit
from .full_gram import full_gram_solve
from .kernel_blocks import KERNEL_NONE, KERNEL_PRECOMPUTED
from .labels import class_order
from .multiclass import one_vs_one_rows
from .row_cache import add_weighted_rows_serial, gather_block
from .two_class import c_svc_fit, solve_on_own_rows

_TILE = 32  # rows of a strip read together by the transposed copy (they stay in the first-level cache)


@jit
def assemble_pair_gram(strips, class_start, a, b, out):
    """``out`` = the Gram matrix of the rows of class ``a`` then those of class ``b`` (``a < b``).

    ``strips`` holds one strip per class ``k``, one after another: ``K(X_k, X_k..)``, the
    ``class_start[k + 1] - class_start[k]`` rows of class ``k`` against the rows of class
    ``k`` and every later class, ``n - class_start[k]`` values each (``n =
    class_start[-1]``; class ``c`` from column ``class_start[c] - class_start[k]``). The
    block ``K_ba`` is read from ``K_ab``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])  # classes 0, 0, 1, 2
    >>> K = X @ X.T
    >>> strips = np.concatenate([K[0:2, 0:].ravel(), K[2:3, 2:].ravel(), K[3:4, 3:].ravel()])
    >>> out = np.empty((3, 3))
    >>> assemble_pair_gram(strips, np.array([0, 2, 3, 4]), 0, 2, out)  # rows 0, 1, 3
    >>> bool(np.array_equal(out, K[np.ix_([0, 1, 3], [0, 1, 3])]))
    True
    """
    strip_a = _strip(strips, class_start, a)
    strip_b = _strip(strips, class_start, b)
    n_a = strip_a.shape[0]
    n_b = strip_b.shape[0]
    offset = np.uint64(class_start[b] - class_start[a])
    first_b = np.uint64(n_a)
    for r in range(n_a):
        row = np.uint64(r)
        for c in range(n_a):
            out[row, np.uint64(c)] = strip_a[row, np.uint64(c)]
        for c in range(n_b):
            out[row, first_b + np.uint64(c)] = strip_a[row, offset + np.uint64(c)]
    for r in range(n_b):
        row = np.uint64(r)
        for c in range(n_b):
            out[first_b + row, first_b + np.uint64(c)] = strip_b[row, np.uint64(c)]
    for start in range(0, n_a, _TILE):  # K_ba = K_ab transposed, a tile of K_ab's rows at a time
        for r in range(n_b):
            for c in range(start, min(start + _TILE, n_a)):
                out[first_b + np.uint64(r), np.uint64(c)] = strip_a[np.uint64(c), offset + np.uint64(r)]


@jit
def _strip(strips, class_start, k):
    """The strip of class ``k`` (see :func:`assemble_pair_gram`) as a matrix."""
    n = class_start[-1]
    offset = 0
    for c in range(k):
        offset += (class_start[c + 1] - class_start[c]) * (n - class_start[c])
    rows = class_start[k + 1] - class_start[k]
    return strips[offset : offset + rows * (n - class_start[k])].reshape((rows, n - class_start[k]))


@jit
def solve_pairs(
    strips, class_start, first, second, bounds, y, upper, p, qd, alpha, nu_mode, tol, max_steps, steps_per_call,
    hand_over_fraction, face_max_free, face_max_steps, eps, face_settings, grad, n_iter, status, gap,
):
    """Solve the one-vs-one problems ``k`` of classes ``first[k] < second[k]``.

    Problem ``k`` has the variables ``bounds[k]:bounds[k + 1]`` of the
    concatenated arrays, one per row, in LIBSVM's order (the rows of the first
    class, then those of the second).

    Parameters
    ----------
    strips, class_start
        The kernel values, as :func:`assemble_pair_gram` (float64 or float32: each
        problem's Gram matrix is of the same type).
    first, second, bounds : int64 arrays
    y, upper, p, qd : float64 arrays
        Every problem's signs, bounds, linear terms and kernel diagonal.
    alpha : float64 array
        The start points; receives the solutions.
    nu_mode : bool
    tol, max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps
        As :func:`svmkit._core.full_gram.full_gram_smo` (``max_steps`` per problem;
        ``steps_per_call``: its ``budget``).
    face_settings : int64 array
        Those of the Newton steps on the face of all free multipliers of each long solve
        (:func:`svmkit._core.full_gram.new_face_schedule`).
    grad : float64 array
        Receives the gradients ``Q a + p``.
    n_iter, status : int64 arrays, gap : float64 array, one value per problem
        Receive the steps, the status of the last call (``SMO_OPTIMAL`` or
        ``SMO_STEP_LIMIT``) and the gap.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])  # classes 0, 0, 1, 1, 2
    >>> K = X @ X.T
    >>> strips = np.concatenate([K[0:2, 0:].ravel(), K[2:4, 2:].ravel(), K[4:5, 4:].ravel()])
    >>> bounds = np.array([0, 4, 7, 10])  # pairs (0, 1), (0, 2), (1, 2)
    >>> y = np.array([1.0, 1, -1, -1, 1, 1, -1, 1, 1, -1])
    >>> alpha, grad = np.zeros(10), np.empty(10)
    >>> n_iter, status, gap = np.empty(3, dtype=np.int64), np.empty(3, dtype=np.int64), np.empty(3)
    >>> solve_pairs(
    ...     strips, np.array([0, 2, 4, 5]), np.array([0, 0, 1]), np.array([1, 2, 2]), bounds, y, np.full(10, 10.0),
    ...     -np.ones(10), (X**2).ravel()[[0, 1, 2, 3, 0, 1, 4, 2, 3, 4]], alpha, False, 1e-6, 1000, 1000, 5, 256,
    ...     30, 2.2e-16, np.array([25, 1024, 1024, 200]), grad, n_iter, status, gap)
    >>> alpha[:4].round(6)  # classes 0 and 1: the margin 1 <= x <= 3, w = -1
    array([0. , 0.5, 0.5, 0. ])
    """
    buffer = np.empty(most_variables(bounds) ** 2, dtype=strips.dtype)
    for k in range(first.shape[0]):
        start, stop = bounds[k], bounds[k + 1]
        K = buffer[: (stop - start) ** 2].reshape((stop - start, stop - start))
        assemble_pair_gram(strips, class_start, first[k], second[k], K)
        n_iter[k], status[k], gap[k] = _solve_on(
            K, y[start:stop], upper[start:stop], p[start:stop], qd[start:stop], alpha[start:stop], grad[start:stop],
            nu_mode, tol, max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps,
            face_settings,
        )


@jit
def solve_linear_pairs(
    X_grouped, class_start, first, second, bounds, y, upper, p, qd, alpha, nu_mode, tol, max_steps, steps_per_call,
    hand_over_fraction, face_max_free, face_max_steps, eps, face_settings, grad, n_iter, status, gap,
):
    """:func:`solve_pairs` for the linear kernel: each problem's Gram matrix is ``Z Z'``, one
    BLAS product of its rows ``Z`` (those of class ``first[k]``, then those of ``second[k]``),
    taken from ``X_grouped``, the data in class order (class ``c``: rows ``class_start[c]`` to
    ``class_start[c + 1]``), instead of the class strips: with few features the product costs
    less than reading the strips, and the strips' memory (``n^2 / 2`` values) is not needed (26
    classes of some 190 rows, 16 features, one thread: 323 ms instead of 394 ms with the strips
    computed and read). The other arguments are as :func:`solve_pairs`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])  # classes 0, 0, 1, 1, 2
    >>> bounds = np.array([0, 4, 7, 10])  # pairs (0, 1), (0, 2), (1, 2)
    >>> y = np.array([1.0, 1, -1, -1, 1, 1, -1, 1, 1, -1])
    >>> alpha, grad = np.zeros(10), np.empty(10)
    >>> n_iter, status, gap = np.empty(3, dtype=np.int64), np.empty(3, dtype=np.int64), np.empty(3)
    >>> solve_linear_pairs(
    ...     X, np.array([0, 2, 4, 5]), np.array([0, 0, 1]), np.array([1, 2, 2]), bounds, y, np.full(10, 10.0),
    ...     -np.ones(10), (X**2).ravel()[[0, 1, 2, 3, 0, 1, 4, 2, 3, 4]], alpha, False, 1e-6, 1000, 1000, 5, 256,
    ...     30, 2.2e-16, np.array([25, 1024, 1024, 200]), grad, n_iter, status, gap)
    >>> alpha[:4].round(6)  # classes 0 and 1: the margin 1 <= x <= 3, w = -1
    array([0. , 0.5, 0.5, 0. ])
    """
    largest = most_variables(bounds)
    buffer = np.empty(largest**2)
    rows = np.empty((largest, X_grouped.shape[1]))
    for k in range(first.shape[0]):
        start, stop = bounds[k], bounds[k + 1]
        a, b = first[k], second[k]
        n_a = class_start[a + 1] - class_start[a]
        Z = rows[: stop - start]
        Z[:n_a] = X_grouped[class_start[a] : class_start[a + 1]]
        Z[n_a:] = X_grouped[class_start[b] : class_start[b + 1]]
        K = buffer[: (stop - start) ** 2].reshape((stop - start, stop - start))
        np.dot(Z, Z.T, K)
        n_iter[k], status[k], gap[k] = _solve_on(
            K, y[start:stop], upper[start:stop], p[start:stop], qd[start:stop], alpha[start:stop], grad[start:stop],
            nu_mode, tol, max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps,
            face_settings,
        )


@jit
def solve_subsets(
    gram, rows, bounds, y, upper, p, alpha, nu_mode, tol, max_steps, steps_per_call, hand_over_fraction,
    face_max_free, face_max_steps, eps, face_settings, grad, n_iter, status, gap,
):
    """Solve the problems ``k`` on the rows ``rows[bounds[k]:bounds[k + 1]]`` of the Gram matrix
    ``gram`` (one variable per row, in that order), each on its sub-matrix: the
    cross-validation fits of a pair (``probability=True``). The other arguments are as
    :func:`solve_pairs`; the kernel diagonal is ``gram``'s.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> rows, bounds = np.array([0, 1, 2, 3, 1, 2, 4]), np.array([0, 4, 7])  # two problems
    >>> y = np.array([1.0, 1, -1, -1, 1, -1, -1])
    >>> alpha, grad = np.zeros(7), np.empty(7)
    >>> n_iter, status, gap = np.empty(2, dtype=np.int64), np.empty(2, dtype=np.int64), np.empty(2)
    >>> solve_subsets(X @ X.T, rows, bounds, y, np.full(7, 10.0), -np.ones(7), alpha, False, 1e-6, 1000, 1000, 5,
    ...               256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]), grad, n_iter, status, gap)
    >>> alpha.round(6)  # the margins 1 <= x <= 3 and 1 <= x <= 3
    array([0. , 0.5, 0.5, 0. , 0.5, 0.5, 0. ])
    """
    buffer = np.empty(most_variables(bounds) ** 2)
    for k in range(bounds.shape[0] - 1):
        start, stop = bounds[k], bounds[k + 1]
        K = buffer[: (stop - start) ** 2].reshape((stop - start, stop - start))
        gather_block(gram, rows[start:stop], rows[start:stop], K, np.arange(stop - start))
        qd = np.empty(stop - start)
        for t in range(stop - start):
            qd[t] = gram[rows[start + t], rows[start + t]]
        n_iter[k], status[k], gap[k] = _solve_on(
            K, y[start:stop], upper[start:stop], p[start:stop], qd, alpha[start:stop], grad[start:stop], nu_mode,
            tol, max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
        )


@jit
def c_svc_pair_dual_arrays(order, class_start, first, second, row_upper):
    """The arrays of the C-SVC duals of the one-vs-one problems of the classes ``(first[k],
    second[k])``, one problem after another: the rows and labels of
    :func:`svmkit._core.multiclass.one_vs_one_rows` (LIBSVM's order), ``p = -1``, the bounds
    ``row_upper`` of their rows and the start 0. Returns ``(bounds, rows, y, p, upper,
    alpha0)``, as :class:`svmkit._stacked.StackedDuals` takes them.

    Examples
    --------
    >>> import numpy as np
    >>> order, class_start = np.array([0, 3, 1, 2]), np.array([0, 2, 3, 4])  # classes 0 1 2 0
    >>> bounds, rows, y, p, upper, alpha0 = c_svc_pair_dual_arrays(
    ...     order, class_start, np.array([0, 0]), np.array([1, 2]), np.array([1.0, 2.0, 3.0, 4.0]))
    >>> bounds, rows, upper
    (array([0, 3, 6]), array([0, 3, 1, 0, 3, 2]), array([1., 4., 2., 1., 4., 3.]))
    """
    rows, y, bounds = one_vs_one_rows(order, class_start, first, second)
    n_variables = rows.shape[0]
    return bounds, rows, y, np.full(n_variables, -1.0), row_upper[rows], np.zeros(n_variables)


@jit
def solve_c_svc_pairs(
    gram, y_index, n_classes, first, second, row_upper, tol, max_steps, steps_per_call, hand_over_fraction,
    face_max_free, face_max_steps, eps, face_settings,
):
    """The C-SVC duals of the one-vs-one problems of the classes ``(first[k], second[k])`` on
    the rows of one Gram matrix ``gram`` (``y_index``: the class of each row), built
    (:func:`c_svc_pair_dual_arrays`), solved (:func:`solve_subsets`, the settings as there),
    read (the biases and ``y f(x)`` of :func:`svmkit._core.smo.c_svc_biases_and_margins`) and
    laid out (:func:`svmkit._core.libsvm_layout.libsvm_layout_and_objectives`) in one call: for
    the few hundred rows of iris or wine, the Python between these steps took as long as the
    steps.

    Returns ``(bounds, rows, y, p, upper, alpha0)`` of the duals (problem ``k``: the variables
    ``bounds[k]:bounds[k + 1]``), ``(alpha, grad, n_iter, status, gap)`` of their solutions,
    ``(biases, margins)`` and the eight arrays of ``libsvm_layout_and_objectives``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> y_index = np.array([0, 0, 1, 1, 2])
    >>> duals, solutions, (biases, margins), model = solve_c_svc_pairs(
    ...     X @ X.T, y_index, 3, np.array([0, 0, 1]), np.array([1, 2, 2]), np.full(5, 10.0), 1e-6, 1000,
    ...     1000, 5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]))
    >>> solutions[0].round(6), biases.round(6)  # the margins 1 <= x <= 3, 1 <= x <= 6 and 4 <= x <= 6
    (array([0.  , 0.5 , 0.5 , 0.  , 0.  , 0.08, 0.08, 0.  , 0.5 , 0.5 ]), array([2. , 1.4, 5. ]))
    >>> model[0], model[5].round(6)  # the support vectors and the dual objectives
    (array([1, 2, 3, 4]), array([0.5 , 0.08, 0.5 ]))
    """
    duals, (alpha, grad, n_iter, status, gap) = unsolved_pairs(y_index, n_classes, first, second, row_upper)
    bounds, rows, y, p, upper, _ = duals
    solve_subsets(
        gram, rows, bounds, y, upper, p, alpha, False, tol, max_steps, steps_per_call, hand_over_fraction,
        face_max_free, face_max_steps, eps, face_settings, grad, n_iter, status, gap,
    )
    return c_svc_fit(duals, alpha, grad, n_iter, status, gap, y_index, n_classes, first, second)


@jit
def solve_c_svc_pairs_on_own_rows(
    XT, kernel, gamma, coef0, degree, diag, y_index, n_classes, first, second, row_upper, tol, max_steps,
    steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
):
    """:func:`solve_c_svc_pairs` with each problem's kernel rows computed in the call, as
    its solver needs them, from its rows of ``XT`` (the data transposed, features by rows;
    ``kernel``, ``gamma``, ``coef0``, ``degree`` as :func:`svmkit._core.kernel_blocks.kernel_row`,
    not ``KERNEL_NONE``; ``diag``: the kernel diagonal), instead of read from a Gram matrix of
    all rows: no such matrix is computed, and only the rows each solver asks for (wine, three
    pairs, each call after a oneDAL fit: linear 113 -> 102 us with the Gram matrix it no longer
    needs, RBF 112 -> 92 us; iris 72 -> 63 and 78 -> 66 us). The same returns.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_LINEAR
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> duals, solutions, (biases, margins), model = solve_c_svc_pairs_on_own_rows(
    ...     np.ascontiguousarray(X.T), KERNEL_LINEAR, 0.0, 0.0, 1, (X**2).ravel(), np.array([0, 0, 1, 1, 2]), 3,
    ...     np.array([0, 0, 1]), np.array([1, 2, 2]), np.full(5, 10.0), 1e-6, 1000, 1000, 5, 256, 30, 2.2e-16,
    ...     np.array([25, 1024, 1024, 200]))
    >>> solutions[0].round(6), biases.round(6)  # the margins 1 <= x <= 3, 1 <= x <= 6 and 4 <= x <= 6
    (array([0.  , 0.5 , 0.5 , 0.  , 0.  , 0.08, 0.08, 0.  , 0.5 , 0.5 ]), array([2. , 1.4, 5. ]))
    """
    duals, (alpha, grad, n_iter, status, gap) = unsolved_pairs(y_index, n_classes, first, second, row_upper)
    bounds, rows, y, _, upper, _ = duals
    solve_pairs_on_own_rows(
        XT, kernel, gamma, coef0, degree, diag, bounds, rows, y, upper, alpha, grad, n_iter, status, gap, tol,
        max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
    )
    return c_svc_fit(duals, alpha, grad, n_iter, status, gap, y_index, n_classes, first, second)


@jit
def solve_pairs_on_own_rows(
    XT, kernel, gamma, coef0, degree, diag, bounds, rows, y, upper, alpha, grad, n_iter, status, gap, tol, max_steps,
    steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
):
    """Solve the C-SVC duals ``k`` of the variables ``bounds[k]:bounds[k + 1]`` (one per row
    ``rows[t]`` of the data, from ``alpha = 0``, ``grad = p``, as :func:`unsolved_pairs` makes
    them), each by the full-Gram solver's loop on the kernel rows of its own rows, computed
    from ``XT`` as it asks for them (:func:`svmkit._core.two_class.solve_on_own_rows`; the
    kernel and settings as :func:`solve_c_svc_pairs_on_own_rows`). ``alpha`` and ``grad`` are
    updated in place; ``n_iter``, ``status`` and ``gap`` receive one value per problem. A
    group of a fit's problems may be solved by one call, other groups on other threads.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_LINEAR
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> duals, (alpha, grad, n_iter, status, gap) = unsolved_pairs(
    ...     np.array([0, 0, 1, 1, 2]), 3, np.array([0, 1]), np.array([1, 2]), np.full(5, 10.0))
    >>> bounds, rows, y, _, upper, _ = duals  # pairs (0, 1) and (1, 2)
    >>> solve_pairs_on_own_rows(
    ...     np.ascontiguousarray(X.T), KERNEL_LINEAR, 0.0, 0.0, 1, (X**2).ravel(), bounds, rows, y, upper, alpha,
    ...     grad, n_iter, status, gap, 1e-6, 1000, 1000, 5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]))
    >>> rows, alpha.round(6)  # the margins 1 <= x <= 3 and 4 <= x <= 6
    (array([0, 1, 2, 3, 2, 3, 4]), array([0. , 0.5, 0.5, 0. , 0. , 0.5, 0.5]))
    """
    for k in range(bounds.shape[0] - 1):
        start, stop = bounds[k], bounds[k + 1]
        problem_rows = rows[start:stop]
        n_iter[k], status[k], gap[k] = solve_on_own_rows(
            np.ascontiguousarray(XT[:, problem_rows]), kernel, gamma, coef0, degree, diag[problem_rows],
            y[start:stop], upper[start:stop], alpha[start:stop], grad[start:stop], tol, max_steps, steps_per_call,
            hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
        )


@jit
def solve_c_svc_pairs_on_gram_rows(
    gram, y_index, n_classes, first, second, row_upper, tol, max_steps, steps_per_call, hand_over_fraction,
    face_max_free, face_max_steps, eps, face_settings,
):
    """:func:`solve_c_svc_pairs` with each problem's kernel rows copied from ``gram`` (the
    float64 Gram matrix of all rows: a precomputed kernel, read, not written) as its solver asks
    for them (:func:`solve_pairs_on_gram_rows`), instead of its whole Gram matrix gathered
    first: a problem's rows are scattered over the rows and columns of ``gram``, so that each
    value gathered costs a read of memory, and SMO asks for a fraction of the rows (digits'
    1,347 training rows, 45 problems in groups on two threads, against each problem's matrix
    gathered and solved from Python: RBF 18.9 -> 4.7 ms, linear 17.3 -> 3.4 ms,
    ``benchmarks/precomputed.py``). The same returns.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> duals, solutions, (biases, margins), model = solve_c_svc_pairs_on_gram_rows(
    ...     X @ X.T, np.array([0, 0, 1, 1, 2]), 3, np.array([0, 0, 1]), np.array([1, 2, 2]), np.full(5, 10.0), 1e-6,
    ...     1000, 1000, 5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]))
    >>> solutions[0].round(6), biases.round(6)  # the margins 1 <= x <= 3, 1 <= x <= 6 and 4 <= x <= 6
    (array([0.  , 0.5 , 0.5 , 0.  , 0.  , 0.08, 0.08, 0.  , 0.5 , 0.5 ]), array([2. , 1.4, 5. ]))
    """
    duals, (alpha, grad, n_iter, status, gap) = unsolved_pairs(y_index, n_classes, first, second, row_upper)
    bounds, rows, y, _, upper, _ = duals
    solve_pairs_on_gram_rows(
        gram, bounds, rows, y, upper, alpha, grad, n_iter, status, gap, tol, max_steps, steps_per_call,
        hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
    )
    return c_svc_fit(duals, alpha, grad, n_iter, status, gap, y_index, n_classes, first, second)


@jit
def solve_pairs_on_gram_rows(
    gram, bounds, rows, y, upper, alpha, grad, n_iter, status, gap, tol, max_steps, steps_per_call,
    hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
):
    """:func:`solve_pairs_on_own_rows` with the kernel rows of each problem copied from the
    Gram matrix ``gram`` of all rows (float64; each problem's are float64 too) as its solver
    asks for them, the settings as :func:`solve_c_svc_pairs_on_gram_rows`. ``alpha`` and
    ``grad`` (from ``alpha = 0``, ``grad = p``) are updated in place; ``n_iter``, ``status``
    and ``gap`` receive one value per problem. A group of a fit's problems may be solved by
    one call, other groups on other threads.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> duals, (alpha, grad, n_iter, status, gap) = unsolved_pairs(
    ...     np.array([0, 0, 1, 1, 2]), 3, np.array([0, 1]), np.array([1, 2]), np.full(5, 10.0))
    >>> bounds, rows, y, _, upper, _ = duals  # pairs (0, 1) and (1, 2)
    >>> solve_pairs_on_gram_rows(X @ X.T, bounds, rows, y, upper, alpha, grad, n_iter, status, gap, 1e-6, 1000, 1000,
    ...                          5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]))
    >>> rows, alpha.round(6)  # the margins 1 <= x <= 3 and 4 <= x <= 6
    (array([0, 1, 2, 3, 2, 3, 4]), array([0. , 0.5, 0.5, 0. , 0. , 0.5, 0.5]))
    """
    buffer = np.empty(most_variables(bounds) ** 2, dtype=gram.dtype)
    for k in range(bounds.shape[0] - 1):
        start, stop = bounds[k], bounds[k + 1]
        n = stop - start
        problem_rows = rows[start:stop]
        qd = np.empty(n)
        for t in range(n):
            qd[t] = gram[problem_rows[t], problem_rows[t]]
        # (each row copied into the next free row of the buffer when the solver first asks for it)
        n_iter[k], status[k], gap[k] = full_gram_solve(
            buffer[: n * n].reshape((n, n)), np.full(n, -1, dtype=np.int64), np.zeros(1, dtype=np.int64),
            y[start:stop], upper[start:stop], qd, alpha[start:stop], grad[start:stop], False, tol, max_steps,
            steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps, face_settings, gram,
            KERNEL_PRECOMPUTED, 0.0, 0.0, 1, problem_rows,
        )


@jit
def unsolved_pairs(y_index, n_classes, first, second, row_upper):
    """The dual arrays of :func:`c_svc_pair_dual_arrays` for the classes of ``y_index``, and
    the arrays for their solutions: ``alpha`` at the start 0, ``grad = p`` (``Q 0 + p``), and
    one step count, status and gap per problem."""
    order, class_start = class_order(y_index, n_classes)
    duals = c_svc_pair_dual_arrays(order, class_start, first, second, row_upper)
    n_problems = first.shape[0]
    solution = (duals[5].copy(), duals[3].copy(), np.empty(n_problems, dtype=np.int64),
                np.empty(n_problems, dtype=np.int64), np.empty(n_problems))
    return duals, solution


@jit
def has_a_row_twice(rows, bounds, n_rows):
    """Whether some problem ``k`` (variables ``bounds[k]:bounds[k + 1]``) has two variables
    on one of the ``n_rows`` rows (``rows``: the row of each variable).

    Examples
    --------
    >>> import numpy as np
    >>> has_a_row_twice(np.array([0, 1, 0, 2]), np.array([0, 2, 4]), 3)
    False
    >>> has_a_row_twice(np.array([0, 1, 1, 2]), np.array([0, 3, 4]), 3)
    True
    """
    last_problem = np.full(n_rows, -1, dtype=np.int64)
    for k in range(bounds.shape[0] - 1):
        for t in range(bounds[k], bounds[k + 1]):
            if last_problem[rows[t]] == k:
                return True
            last_problem[rows[t]] = k
    return False


@jit
def most_variables(bounds):
    """The most variables of one problem (problem ``k``: ``bounds[k]:bounds[k + 1]``).

    Examples
    --------
    >>> import numpy as np
    >>> most_variables(np.array([0, 4, 10, 12]))
    6
    """
    largest = 0
    for k in range(bounds.shape[0] - 1):
        largest = max(largest, bounds[k + 1] - bounds[k])
    return largest


@jit
def _solve_on(K, y, upper, p, qd, alpha, grad, nu_mode, tol, max_steps, steps_per_call, hand_over_fraction,
              face_max_free, face_max_steps, eps, face_settings):
    """One problem on its whole Gram matrix ``K``, from the start ``alpha`` (updated in place,
    ``grad`` receives ``Q a + p``), as the full-Gram solver solves it (the Newton steps on the
    face of all free multipliers of a long solve too); ``(steps, status, gap)``."""
    n = K.shape[0]
    # G = Q a0 + p, summed as the full-Gram solver does for its start support vectors
    grad[:] = p
    moved = np.flatnonzero(alpha)
    if moved.shape[0]:
        column_sum = np.zeros(n)
        add_weighted_rows_serial(K, moved, y[moved] * alpha[moved], column_sum)
        grad += y * column_sum
    return full_gram_solve(  # (all rows stored, in order)
        K, np.arange(n), np.array([n]), y, upper, qd, alpha, grad, nu_mode, tol, max_steps, steps_per_call,
        hand_over_fraction, face_max_free, face_max_steps, eps, face_settings, np.empty((0, 0), dtype=K.dtype),
        KERNEL_NONE, 0.0, 0.0, 1, np.empty(0, dtype=np.int64),
    )
