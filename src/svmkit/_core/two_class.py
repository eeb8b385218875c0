"""A small two-class C-SVC fit in one compiled call: dual, solve, biases and layout.

The full-Gram solver's Python loop around :func:`svmkit._core.full_gram.full_gram_round`,
the dual's and the model's arrays, and the steps between them took as long as the solve
itself on a few hundred rows (heart, 202 rows, linear kernel: some 120 us of SMO in a fit of
300 us). Where the solver computes every kernel row itself, or every row was computed before
it starts (by BLAS: wide data, other kernels; or the user's precomputed matrix), nothing in
between needs Python: :func:`solve_c_svc_two_class` and :func:`solve_c_svc_two_class_on_gram`
make the same calls as that path, in the same order.
Its pieces serve the one-call one-vs-one fits too (:mod:`svmkit._core.pairs`): the solve on
rows computed as they are needed (:func:`solve_on_own_rows`) and what such a fit returns
(:func:`c_svc_fit`).
"""

import numpy as np

from ._jit import jit
from .full_gram import full_gram_solve
from .kernel_blocks import KERNEL_NONE
from .libsvm_layout import libsvm_layout_and_objectives
from .smo import c_svc_biases_and_margins


@jit
def solve_c_svc_two_class(
    XT, kernel, gamma, coef0, degree, qd, y_index, row_upper, tol, max_steps, steps_per_call, hand_over_fraction,
    face_max_free, face_max_steps, eps, face_settings,
):
    """The C-SVC dual of the classes 1 (``y = +1``) and 0 (``y = -1``) of ``y_index``, one
    variable per row in row order, ``p = -1``, the bounds ``row_upper`` and the start 0, built,
    solved by the full-Gram solver on kernel rows that it computes itself from ``XT`` (the data
    transposed, of the rows' type) as they are needed, read (the bias and ``y f(x)`` of
    :func:`svmkit._core.smo.c_svc_biases_and_margins`) and laid out
    (:func:`svmkit._core.libsvm_layout.libsvm_layout_and_objectives`).

    ``kernel``, ``gamma``, ``coef0``, ``degree``: as
    :func:`svmkit._core.kernel_blocks.kernel_row` (not ``KERNEL_NONE``); ``qd``: the kernel
    diagonal; the settings as :func:`svmkit._core.full_gram.full_gram_round` takes them
    (``steps_per_call``: its ``budget``; ``face_settings``: those of its ``face`` schedule,
    :func:`svmkit._core.full_gram.new_face_schedule`).

    Returns what :func:`svmkit._core.pairs.solve_c_svc_pairs` returns for one problem: ``(bounds,
    rows, y, p, upper, alpha0)`` of the dual, ``(alpha, grad, n_iter, status, gap)`` of its
    solution (``status``: ``SMO_OPTIMAL`` or ``SMO_STEP_LIMIT``), ``(biases, margins)`` and the
    eight arrays of ``libsvm_layout_and_objectives``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_LINEAR
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> dual, solution, (biases, margins), model = solve_c_svc_two_class(
    ...     np.ascontiguousarray(X.T), KERNEL_LINEAR, 0.0, 0.0, 1, (X**2).ravel(), np.array([0, 0, 1, 1]),
    ...     np.full(4, 10.0), 1e-6, 1000, 1000, 5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]))
    >>> solution[0].round(6), biases.round(6)  # the margin 1 <= x <= 3: w = 1, b = -2
    (array([0. , 0.5, 0.5, 0. ]), array([-2.]))
    >>> model[0], model[5].round(6)  # the support vectors and the dual objective
    (array([1, 2]), array([0.5]))
    """
    K, slot, n_filled = _no_rows_computed(XT)
    return _c_svc_two_class_fit(
        K, slot, n_filled, XT, kernel, gamma, coef0, degree, qd, y_index, row_upper, tol, max_steps, steps_per_call,
        hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
    )


@jit
def solve_c_svc_two_class_on_gram(
    K, qd, y_index, row_upper, tol, max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps,
    eps, face_settings,
):
    """:func:`solve_c_svc_two_class` on the Gram matrix ``K`` of all rows (float64, read, not
    written): the same returns.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> dual, solution, (biases, margins), model = solve_c_svc_two_class_on_gram(
    ...     X @ X.T, (X**2).ravel(), np.array([0, 0, 1, 1]), np.full(4, 10.0), 1e-6, 1000, 1000, 5, 256, 30,
    ...     2.2e-16, np.array([25, 1024, 1024, 200]))
    >>> solution[0].round(6), biases.round(6)  # the margin 1 <= x <= 3: w = 1, b = -2
    (array([0. , 0.5, 0.5, 0. ]), array([-2.]))
    """
    n = y_index.shape[0]
    return _c_svc_two_class_fit(
        K, np.arange(n), np.array([n]), np.empty((0, 0), dtype=K.dtype), KERNEL_NONE, 0.0, 0.0, 1, qd, y_index,
        row_upper, tol, max_steps, steps_per_call, hand_over_fraction, face_max_free, face_max_steps, eps,
        face_settings,
    )


@jit
def _c_svc_two_class_fit(
    K, slot, n_filled, XT, kernel, gamma, coef0, degree, qd, y_index, row_upper, tol, max_steps, steps_per_call,
    hand_over_fraction, face_max_free, face_max_steps, eps, face_settings,
):
    """The fit of :func:`solve_c_svc_two_class` on the kernel rows stored in ``K`` at ``slot``
    (-1: not stored, then computed from ``XT`` into the next free row, ``n_filled``), as
    :func:`svmkit._core.full_gram.full_gram_solve` takes them."""
    n = y_index.shape[0]
    y = np.where(y_index == 1, 1.0, -1.0)
    p = np.full(n, -1.0)
    upper = row_upper.copy()
    alpha0 = np.zeros(n)
    alpha, grad = alpha0.copy(), p.copy()  # (G = Q a0 + p = p)
    steps, status, gap = full_gram_solve(
        K, slot, n_filled, y, upper, qd, alpha, grad, False, tol, max_steps, steps_per_call, hand_over_fraction,
        face_max_free, face_max_steps, eps, face_settings, XT, kernel, gamma, coef0, degree,
        np.empty(0, dtype=np.int64),
    )
    no_pairs = np.empty(0, dtype=np.int64)
    return c_svc_fit(
        (np.array([0, n]), np.arange(n), y, p, upper, alpha0), alpha, grad, np.array([steps]), np.array([status]),
        np.array([gap]), y_index, 2, no_pairs, no_pairs,
    )


@jit
def c_svc_fit(duals, alpha, grad, n_iter, status, gap, y_index, n_classes, first, second):
    """What a C-SVC fit in one compiled call returns, from its solved duals (``duals``:
    ``(bounds, rows, y, p, upper, alpha0)``, problem ``k`` the variables ``bounds[k]:bounds[k +
    1]``; the solution's arrays, one value per problem for ``n_iter``, ``status`` and ``gap``):
    ``duals``, ``(alpha, grad, n_iter, status, gap)``, the biases and ``y f(x)`` of
    :func:`svmkit._core.smo.c_svc_biases_and_margins`, and the eight arrays of
    :func:`svmkit._core.libsvm_layout.libsvm_layout_and_objectives` (the problems of the
    classes ``(first[k], second[k])`` of ``y_index``; none for two classes).

    Examples
    --------
    >>> import numpy as np
    >>> duals = (np.array([0, 3]), np.arange(3), np.array([1.0, -1.0, 1.0]), -np.ones(3), np.ones(3), np.zeros(3))
    >>> alpha, grad = np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.0, 1.0])
    >>> no_pairs = np.empty(0, dtype=np.int64)
    >>> _, _, (biases, margins), model = c_svc_fit(
    ...     duals, alpha, grad, np.array([1]), np.array([0]), np.array([0.0]), np.array([1, 0, 1]), 2, no_pairs,
    ...     no_pairs)
    >>> biases, margins, model[0]  # b from the free multipliers; y f(x) = G + 1 + y b; the support vectors
    (array([-0.]), array([1., 1., 2.]), array([1, 0]))
    """
    bounds, rows, y, _, upper, _ = duals
    biases, margins = c_svc_biases_and_margins(bounds, y, alpha, grad, upper)
    model = libsvm_layout_and_objectives(
        bounds, rows, y, alpha, upper, margins, biases, y_index, y_index.shape[0], n_classes, first, second
    )
    return duals, (alpha, grad, n_iter, status, gap), (biases, margins), model


@jit
def solve_on_own_rows(
    XT, kernel, gamma, coef0, degree, qd, y, upper, alpha, grad, tol, max_steps, steps_per_call, hand_over_fraction,
    face_max_free, face_max_steps, eps, face_settings,
):
    """A C-SVC dual of one variable per column of ``XT`` (the data transposed), in order, from
    ``alpha = 0`` (``grad = p``), solved by the full-Gram solver's loop on kernel rows that it
    computes from ``XT`` as they are needed (the arguments as :func:`solve_c_svc_two_class`;
    ``alpha`` and ``grad`` updated in place). Returns ``(steps, status, gap)``.
    """
    K, slot, n_filled = _no_rows_computed(XT)
    return full_gram_solve(
        K, slot, n_filled, y, upper, qd, alpha, grad, False, tol, max_steps, steps_per_call, hand_over_fraction,
        face_max_free, face_max_steps, eps, face_settings, XT, kernel, gamma, coef0, degree,
        np.empty(0, dtype=np.int64),
    )


@jit
def _no_rows_computed(XT):
    """``(K, slot, n_filled)`` of :func:`svmkit._core.full_gram.full_gram_solve` before any of
    the kernel rows of the columns of ``XT`` is computed: room for all of them, of its type."""
    n = XT.shape[1]
    return np.empty((n, n), dtype=XT.dtype), np.full(n, -1, dtype=np.int64), np.zeros(1, dtype=np.int64)
