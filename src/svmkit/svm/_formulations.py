"""Formulation adapters: each builds the dual of one SVM type for the shared
solver (:func:`svmkit._solver.solve_dual`) and reads its solution back."""

import time

import numpy as np

from .._class_blocks import pair_class_arrays, solve_pair_groups
from .._core.pairs import (
    c_svc_pair_dual_arrays, solve_c_svc_pairs, solve_c_svc_pairs_on_gram_rows, solve_c_svc_pairs_on_own_rows,
    solve_pairs_on_gram_rows, solve_pairs_on_own_rows, unsolved_pairs,
)
from .._core.smo import c_svc_biases_and_margins
from .._core.two_class import c_svc_fit, solve_c_svc_two_class, solve_c_svc_two_class_on_gram
from .._solver import DualProblem, intercept_from_gradient, one_call_settings
from .._stacked import StackedDuals, StackedSolutions, solved_stack


def c_svc_dual(indices, y, upper):
    """The C-SVC dual: ``Q = (y_i y_j K_ij)``, ``p = -1``, ``y'a = 0``, ``0 <= a <= U``.

    Parameters
    ----------
    indices : int array
        Training rows of the two-class problem.
    y : float array
        Their labels, +1 or -1.
    upper : float array
        ``U_i = C * class_weight[y_i] * sample_weight_i`` (``inf`` for a hard margin).
    """
    m = indices.shape[0]
    return DualProblem(indices, y, -np.ones(m), upper, np.zeros(m))


def c_svc_pair_duals(order, class_start, upper, pairs):
    """The C-SVC duals of the one-vs-one problems of the classes ``pairs`` (``(a, b)``: the
    rows of class ``a`` labelled +1, then those of class ``b`` labelled -1, LIBSVM's order;
    class ``c`` has the rows ``order[class_start[c]:class_start[c + 1]]``), built at once
    (:func:`svmkit._core.pairs.c_svc_pair_dual_arrays`, as :func:`c_svc_dual` builds one)
    instead of one problem at a time (11 classes, 55 problems: some 0.25 ms less).

    Examples
    --------
    >>> import numpy as np
    >>> order, class_start = np.array([0, 3, 1, 2]), np.array([0, 2, 3, 4])  # classes 0 1 2 0
    >>> duals = c_svc_pair_duals(order, class_start, np.full(4, 2.0), [(0, 1), (0, 2), (1, 2)])
    >>> duals[1].rows, duals[1].y
    (array([0, 3, 2]), array([ 1.,  1., -1.]))
    """
    first, second = pair_class_arrays(pairs)
    return StackedDuals(*c_svc_pair_dual_arrays(order, class_start, first, second, upper))


def c_svc_pairs_in_one_call(gram, y_index, n_classes, upper, pairs, tol, max_iter, shrinking, verbose=False,
                            callback=None):
    """The one-vs-one problems of :func:`c_svc_pair_duals` on the rows of the Gram matrix
    ``gram`` of all rows (``y_index``: the class of each row) built, solved, read and laid out
    in one compiled call (:func:`svmkit._core.pairs.solve_c_svc_pairs`): their
    :class:`svmkit._stacked.StackedDuals` and :class:`svmkit._stacked.StackedSolutions`, as
    :func:`svmkit._stacked.solve_subsets_in_one_call` solves them, their biases and ``y f(x)``
    as :func:`c_svc_solutions` reads them, and the eight arrays of
    :func:`svmkit._core.libsvm_layout.libsvm_layout_and_objectives` (iris RBF, each fit after
    a oneDAL fit: 218 -> 203 us; with the layout and objectives in the call too, fit time over
    LIBSVM's, alternating in one process: iris RBF 0.392 -> 0.354, linear 0.382 -> 0.336).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> y_index = np.array([0, 0, 1, 1, 2])
    >>> duals, solutions, biases, margins, model = c_svc_pairs_in_one_call(
    ...     X @ X.T, y_index, 3, np.full(5, 10.0), [(0, 1), (0, 2), (1, 2)], 1e-6, -1, True)
    >>> duals[1].rows, solutions[1].alpha.round(6), biases.round(6)
    (array([0, 1, 4]), array([0.  , 0.08, 0.08]), array([2. , 1.4, 5. ]))
    """
    first, second = pair_class_arrays(pairs)
    return _fit_in_one_call(
        solve_c_svc_pairs, (np.ascontiguousarray(gram, dtype=np.float64), y_index, n_classes, first, second, upper),
        tol, max_iter, shrinking, verbose, callback,
    )


def c_svc_pairs_on_own_rows_in_one_call(row_kernel, diag, y_index, n_classes, upper, pairs, tol, max_iter, shrinking,
                                        verbose=False, callback=None, map_groups=None):
    """:func:`c_svc_pairs_in_one_call` with each problem's kernel rows computed in the call as
    its solver asks for them (:func:`svmkit._core.pairs.solve_c_svc_pairs_on_own_rows`;
    ``row_kernel``: :func:`svmkit._solver.compiled_row_kernel`, ``diag``: the kernel diagonal),
    not read from a Gram matrix of all rows; the rows are of the type of ``row_kernel``'s data.

    ``map_groups(function, groups)``, if given, solves groups of consecutive problems (on
    worker threads, say; :func:`svmkit._core.pairs.solve_pairs_on_own_rows`, one compiled
    call a group), between one call that builds the duals and one that reads and lays out
    their solutions.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._solver import GramBlocks, compiled_row_kernel
    >>> from svmkit.kernels import LinearKernel
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> gram = GramBlocks(LinearKernel(), X)
    >>> duals, solutions, biases, margins, model = c_svc_pairs_on_own_rows_in_one_call(
    ...     compiled_row_kernel(gram), gram.diag(), np.array([0, 0, 1, 1, 2]), 3, np.full(5, 10.0),
    ...     [(0, 1), (0, 2), (1, 2)], 1e-6, -1, True)
    >>> duals[1].rows, solutions[1].alpha.round(6), biases.round(6)
    (array([0, 1, 4]), array([0.  , 0.08, 0.08]), array([2. , 1.4, 5. ]))
    """
    return _pairs_on_rows_in_one_call(
        solve_c_svc_pairs_on_own_rows, solve_pairs_on_own_rows, (*row_kernel, diag), row_kernel[0].dtype, y_index,
        n_classes, upper, pairs, (tol, max_iter, shrinking, verbose, callback), map_groups,
    )


def c_svc_pairs_on_gram_rows_in_one_call(gram, y_index, n_classes, upper, pairs, tol, max_iter, shrinking,
                                         verbose=False, callback=None, map_groups=None):
    """:func:`c_svc_pairs_on_own_rows_in_one_call` with each problem's kernel rows copied from
    ``gram``, the float64 Gram matrix of all rows (a precomputed kernel, read in place), as its
    solver asks for them (:func:`svmkit._core.pairs.solve_c_svc_pairs_on_gram_rows`; groups:
    :func:`svmkit._core.pairs.solve_pairs_on_gram_rows`), instead of each problem's whole Gram
    matrix gathered from it (:func:`c_svc_pairs_in_one_call`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> duals, solutions, biases, margins, model = c_svc_pairs_on_gram_rows_in_one_call(
    ...     X @ X.T, np.array([0, 0, 1, 1, 2]), 3, np.full(5, 10.0), [(0, 1), (0, 2), (1, 2)], 1e-6, -1, True)
    >>> duals[1].rows, solutions[1].alpha.round(6), biases.round(6)
    (array([0, 1, 4]), array([0.  , 0.08, 0.08]), array([2. , 1.4, 5. ]))
    """
    return _pairs_on_rows_in_one_call(
        solve_c_svc_pairs_on_gram_rows, solve_pairs_on_gram_rows, (gram,), gram.dtype, y_index, n_classes, upper,
        pairs, (tol, max_iter, shrinking, verbose, callback), map_groups,
    )


def _pairs_on_rows_in_one_call(solve_all, solve_group_of, rows_from, dtype, y_index, n_classes, upper, pairs, options,
                               map_groups):
    """The one-vs-one fit of :func:`c_svc_pairs_on_own_rows_in_one_call` and
    :func:`c_svc_pairs_on_gram_rows_in_one_call`: ``solve_all(*rows_from, y_index, n_classes,
    first, second, upper, *settings)`` builds, solves, reads and lays out every problem in one
    compiled call; with ``map_groups``, ``solve_group_of(*rows_from, bounds, rows, y, upper,
    alpha, grad, n_iter, status, gap, *settings)`` solves each group of problems between one
    call that builds the duals and one that reads and lays out their solutions. ``dtype``: the
    type of the kernel rows; ``options``: ``(tol, max_iter, shrinking, verbose, callback)``."""
    first, second = pair_class_arrays(pairs)
    if map_groups is None:
        return _fit_in_one_call(solve_all, (*rows_from, y_index, n_classes, first, second, upper), *options, dtype)

    def solve_in_groups(*settings):
        duals, solution = unsolved_pairs(y_index, n_classes, first, second, upper)
        bounds, rows, y, _, variable_upper, _ = duals
        alpha, grad, n_iter, status, gap = solution

        def solve_group(group, part, group_bounds):
            solve_group_of(
                *rows_from, group_bounds, rows[part], y[part], variable_upper[part], alpha[part], grad[part],
                n_iter[group], status[group], gap[group], *settings,
            )

        solve_pair_groups(solve_group, bounds, map_groups)
        return c_svc_fit(duals, *solution, y_index, n_classes, first, second)

    return _fit_in_one_call(solve_in_groups, (), *options, dtype)


def c_svc_two_class_in_one_call(row_kernel, qd, y_index, upper, tol, max_iter, shrinking, verbose=False,
                                callback=None):
    """The two-class problem of the classes 1 and 0 of ``y_index`` (as :func:`c_svc_dual`
    builds it on all rows) built, solved, read and laid out in one compiled call
    (:func:`svmkit._core.two_class.solve_c_svc_two_class`), on kernel rows computed there
    (``row_kernel``: :func:`svmkit._solver.full_gram_row_kernel`; ``qd``: the kernel diagonal):
    as :func:`c_svc_pairs_in_one_call` returns one-vs-one problems, with the solution that
    :func:`svmkit._solver.solve_dual` finds.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._solver import GramBlocks, full_gram_row_kernel
    >>> from svmkit.kernels import LinearKernel
    >>> X = np.concatenate([np.linspace(-3.0, -1.0, 20), np.linspace(1.0, 3.0, 20)]).reshape(-1, 1)
    >>> gram = GramBlocks(LinearKernel(), X)
    >>> duals, solutions, biases, margins, model = c_svc_two_class_in_one_call(
    ...     full_gram_row_kernel(gram, 200, -1), gram.diag(), (X[:, 0] > 0).astype(np.int64), np.full(40, 10.0),
    ...     1e-6, -1, True)
    >>> np.flatnonzero(solutions[0].alpha), solutions[0].alpha[[19, 20]].round(6)  # the margin -1 <= x <= 1
    (array([19, 20]), array([0.5, 0.5]))
    >>> float(abs(biases[0])) < 1e-6, model[0]  # b = 0; the support vectors
    (True, array([19, 20]))
    """
    return _fit_in_one_call(
        solve_c_svc_two_class, (*row_kernel, qd, y_index, upper), tol, max_iter, shrinking, verbose, callback
    )


def c_svc_two_class_on_gram_in_one_call(K, qd, y_index, upper, tol, max_iter, shrinking, verbose=False,
                                        callback=None):
    """:func:`c_svc_two_class_in_one_call` on the float64 Gram matrix ``K`` of all rows
    (:func:`svmkit._solver.two_class_gram`), in one compiled call
    (:func:`svmkit._core.two_class.solve_c_svc_two_class_on_gram`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.concatenate([np.linspace(-3.0, -1.0, 20), np.linspace(1.0, 3.0, 20)]).reshape(-1, 1)
    >>> duals, solutions, biases, margins, model = c_svc_two_class_on_gram_in_one_call(
    ...     X @ X.T, (X**2).ravel(), (X[:, 0] > 0).astype(np.int64), np.full(40, 10.0), 1e-6, -1, True)
    >>> np.flatnonzero(solutions[0].alpha), solutions[0].alpha[[19, 20]].round(6)  # the margin -1 <= x <= 1
    (array([19, 20]), array([0.5, 0.5]))
    """
    return _fit_in_one_call(
        solve_c_svc_two_class_on_gram, (K, qd, y_index, upper), tol, max_iter, shrinking, verbose, callback
    )


def _fit_in_one_call(solve, arguments, tol, max_iter, shrinking, verbose, callback, dtype=np.float64):
    """``solve(*arguments, *settings)``, a compiled call that builds, solves, reads and lays out
    C-SVC duals, with the solver's settings (:func:`svmkit._solver.one_call_settings`, for
    kernel values of type ``dtype``): their
    :class:`svmkit._stacked.StackedDuals`, :class:`svmkit._stacked.StackedSolutions` (progress
    reported once each), biases, ``y f(x)`` and layout."""
    started = time.perf_counter()
    dual_arrays, (alpha, grad, n_iter, status, gap), (biases, margins), model = solve(
        *arguments, *one_call_settings(False, tol, max_iter, shrinking, dtype)[1:]
    )
    duals = StackedDuals(*dual_arrays)
    solutions = solved_stack(duals.bounds, alpha, grad, n_iter, status, gap, started, verbose, callback)
    return duals, solutions, biases, margins, model


def c_svc_solution(problem, solution):
    """``(alpha, b, y f(x))`` of a solved C-SVC dual.

    With ``G_i = y_i sum_j a_j y_j K_ij - 1``, the functional margin is
    ``y_i f(x_i) = G_i + 1 + y_i b`` without another kernel evaluation
    (:func:`svmkit._core.smo.c_svc_biases_and_margins`, as for several duals).
    """
    bounds = np.array([0, problem.rows.shape[0]])
    biases, margins = c_svc_biases_and_margins(bounds, problem.y, solution.alpha, solution.grad, problem.upper)
    return solution.alpha, float(biases[0]), margins


def c_svc_solutions(problems, solutions):
    """The biases (one per problem) and ``y f(x)`` (of all variables, one problem after
    another) of several solved C-SVC duals (:class:`svmkit._stacked.StackedDuals` and
    :class:`svmkit._stacked.StackedSolutions`, or sequences of single ones): as
    :func:`c_svc_solution` reads them, in one compiled call
    (:func:`svmkit._core.smo.c_svc_biases_and_margins`)."""
    problems, solutions = StackedDuals.of(problems), StackedSolutions.of(solutions)
    return c_svc_biases_and_margins(problems.bounds, problems.y, solutions.alpha, solutions.grad, problems.upper)


def _greedy_fill(capacities, total):
    """LIBSVM's start point: ``a_i = min(U_i, what is left of total)`` in order."""
    filled_before = np.cumsum(capacities) - capacities
    return np.clip(total - filled_before, 0.0, capacities)


def nu_rho(problem, solution):
    """``(r1, r2)`` of LIBSVM's ``Solver_NU::calculate_rho``.

    For each sign of ``y``, the average gradient over its free variables or,
    with none, the midpoint between the largest gradient at the upper bound and
    the smallest at zero.
    """
    y, alpha, grad, upper = problem.y, solution.alpha, solution.grad, problem.upper
    values = []
    for sign in (1.0, -1.0):
        group = y == sign
        at_upper = group & (alpha >= upper)
        at_lower = group & ~at_upper & (alpha <= 0)
        free = group & ~at_upper & ~at_lower
        if free.any():
            values.append(float(grad[free].mean()))
        else:
            lb = grad[at_upper].max() if at_upper.any() else -np.inf
            ub = grad[at_lower].min() if at_lower.any() else np.inf
            values.append(float((lb + ub) / 2))
    return values[0], values[1]


def nu_svc_dual(indices, y, weights, nu):
    """The nu-SVC dual in LIBSVM's scaling (``solve_nu_svc``).

    Minimise ``1/2 a'Qa`` with ``Q = (y_i y_j K_ij)``, ``0 <= a_i <= w_i``,
    ``y'a = 0`` and ``e'a = nu sum(w)``: each class carries ``nu sum(w) / 2``
    (the solver's ``nu_mode`` keeps both sums). The start fills each class in
    order up to that amount.

    Parameters
    ----------
    indices : int array
        Training rows of the two-class problem (positive weights only).
    y : float array
        Their labels, +1 or -1.
    weights : float array
        Sample weights (times class weights).
    nu : float
        In (0, 1].
    """
    alpha0 = np.zeros(indices.shape[0])
    half = nu * weights.sum() / 2
    for sign in (1.0, -1.0):
        members = np.flatnonzero(y == sign)
        alpha0[members] = _greedy_fill(weights[members], half)
    return DualProblem(rows=indices, y=y, p=np.zeros(indices.shape[0]), upper=weights, alpha0=alpha0, nu_mode=True)


def nu_svc_solution(problem, solution):
    """``(alpha, b, y f(x), r)`` of a solved nu-SVC dual, scaled by ``1/r``.

    With ``r = (r1 + r2) / 2`` and ``rho = (r1 - r2) / 2`` (:func:`nu_rho`),
    LIBSVM divides the multipliers and ``rho`` by ``r``: the result is the
    C-SVC solution with ``C_i = w_i / r`` (Chang and Lin 2001). ``y f(x)`` is
    ``G_i / r + y_i b`` since ``G_i = y_i sum_j a_j y_j K_ij``. A degenerate
    problem (``w = 0`` at the optimum, so ``r = 0`` up to the solver's
    accuracy) can give ``r <= 0``: the solution is then left unscaled, which
    keeps the sign of the decision function.
    """
    r1, r2 = nu_rho(problem, solution)
    r = (r1 + r2) / 2
    scale = r if r > 0 else 1.0
    b = -(r1 - r2) / 2 / scale
    yf = solution.grad / scale + problem.y * b
    return solution.alpha / scale, b, yf, r


def one_class_dual(indices, weights, nu):
    """The one-class dual in LIBSVM's scaling (``solve_one_class``).

    Minimise ``1/2 a'Ka`` with ``0 <= a_i <= w_i`` and ``e'a = nu sum(w)``,
    started by filling the samples in order.
    """
    m = indices.shape[0]
    alpha0 = _greedy_fill(weights, nu * weights.sum())
    return DualProblem(rows=indices, y=np.ones(m), p=np.zeros(m), upper=weights, alpha0=alpha0)


def one_class_solution(problem, solution):
    """``(alpha, b, f(x))`` of a solved one-class dual; ``f(x_i) = G_i + b``, ``b = -rho``."""
    b = intercept_from_gradient(problem.y, solution.alpha, solution.grad, problem.upper)
    return solution.alpha, b, solution.grad + b


def _svr_problem(indices, linear, upper, alpha0, nu_mode):
    m = indices.shape[0]
    return DualProblem(
        rows=np.concatenate([indices, indices]),
        y=np.r_[np.ones(m), -np.ones(m)],
        p=linear,
        upper=np.r_[upper, upper],
        alpha0=alpha0,
        nu_mode=nu_mode,
    )


def epsilon_svr_dual(indices, z, upper, epsilon):
    """The epsilon-SVR dual over ``(a, a*)`` (``solve_epsilon_svr``).

    ``2n`` variables sharing the kernel rows: ``y = (+1, -1)``,
    ``p = (epsilon - z, epsilon + z)``, ``0 <= a, a* <= U``, start at zero.
    """
    m = indices.shape[0]
    return _svr_problem(indices, np.r_[epsilon - z, epsilon + z], upper, np.zeros(2 * m), nu_mode=False)


def nu_svr_dual(indices, z, upper, nu):
    """The nu-SVR dual over ``(a, a*)`` (``solve_nu_svr``).

    ``p = (-z, z)``, ``0 <= a, a* <= U``, ``e'(a - a*) = 0`` and
    ``e'(a + a*) = nu sum(U)`` (``nu_mode``); ``a`` and ``a*`` both start
    filled in order up to ``nu sum(U) / 2``.
    """
    start = _greedy_fill(upper, nu * upper.sum() / 2)
    return _svr_problem(indices, np.r_[-z, z], upper, np.r_[start, start], nu_mode=True)


def svr_solution(problem, solution):
    """``(a, a*, b, f(x), epsilon)`` of a solved epsilon- or nu-SVR dual.

    ``f(x_i) = sum_j (a_j - a*_j) K_ij + b`` is read from the gradient of
    ``a_i``: ``G_i = (K(a - a*))_i + p_i``. epsilon-SVR: ``b`` from the free
    variables (``-rho``) and ``epsilon = (p_i + p*_i) / 2``; nu-SVR: ``b = -(r1 - r2)/2``
    and the tube half-width ``epsilon = -(r1 + r2)/2`` learned (LIBSVM's ``-r``).
    """
    m = problem.rows.shape[0] // 2
    alpha = solution.alpha
    if problem.nu_mode:
        r1, r2 = nu_rho(problem, solution)
        b, epsilon = -(r1 - r2) / 2, -(r1 + r2) / 2
    else:
        b = intercept_from_gradient(problem.y, alpha, solution.grad, problem.upper)
        epsilon = float(problem.p[0] + problem.p[m]) / 2
    f = solution.grad[:m] - problem.p[:m] + b
    return alpha[:m], alpha[m:], b, f, epsilon
