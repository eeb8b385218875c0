"""A round of the blocked strategy with the linear kernel on dense rows, compiled whole.

The blocked strategy's rounds (:func:`svmkit._solver.driver._blocked_group`) are a Python
loop of compiled and BLAS steps; for the linear kernel a round needs no kernel rows, only the
working set's block and the change of ``w``, and the loop's own work between those steps
cost more than the steps on problems of a few thousand rows (usps's one-vs-one pairs;
docs/performance.md). :func:`linear_round` makes the whole round (the block, its
SMO, the moves and the gradient) in one call that releases the GIL, so that the problems of
a batch run on threads. The loop's tests stay in Python, and a round whose block SMO does
not settle is left to the Python round, which takes steps on the face of its free
multipliers (:mod:`svmkit._solver.face`).
"""

import numpy as np

from ._jit import jit
from .smo import OPTIMAL, Variables, _side, smo_on_block

#: :func:`linear_round`'s steps where the block's SMO did not settle: nothing was changed,
#: and the caller makes the round its own way.
ROUND_LEFT = -1


@jit
def linear_round(problem, X, X_block, ws, alpha, grad, tol, max_steps, no_data):
    """One round of the blocked strategy from its working set ``ws`` with the linear kernel:
    the block of the set's data rows (``X_block``, the rows in the type of the kernel
    values, float32 or float64), SMO on it from the multipliers ``alpha[ws]`` to ``tol`` in at
    most ``max_steps`` steps, and where it settles, the moves written into ``alpha`` and the
    change of ``K a`` through ``w`` (the rows ``X``, float64) added to every gradient ``grad``.

    ``problem`` is the :class:`svmkit._core.smo.Batch` of one problem (its variables' ``y``,
    ``p``, ``upper``, data ``rows`` and ``nu``); ``no_data`` an empty
    :class:`svmkit._core.kernels.KernelData` of a precomputed kernel. Returns ``(steps,
    change)``: the steps made (at least 1) and the change of the dual objective; ``steps`` is
    :data:`ROUND_LEFT` where SMO did not settle (``max_steps`` reached, or a value not
    finite): nothing was changed.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernels import precomputed_kernel_data
    >>> from svmkit._core.smo import Batch
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> problem = Batch(y, -np.ones(4), np.full(4, 10.0), np.arange(4), np.array([[0, 4, 0, 0], [4, 0, 0, 0]]), False)
    >>> alpha, grad = np.zeros(4), -np.ones(4)
    >>> steps, change = linear_round(problem, X, X, np.arange(4), alpha, grad, 1e-6, 1000,
    ...                              precomputed_kernel_data(np.empty((0, 0))))
    >>> alpha.round(6).tolist(), round(float(change), 6)  # the margin 1 <= x <= 3; the dual objective -1/2
    ([0.0, 0.5, 0.5, 0.0], -0.5)
    """
    y, upper, rows = problem.y, problem.upper, problem.rows
    n_ws = ws.shape[0]
    # the set's distinct data rows (an epsilon-SVR row has two variables: then each variable's
    # place among them) and their block
    distinct = np.unique(rows[ws])
    if distinct.shape[0] < n_ws:
        local = np.searchsorted(distinct, rows[ws])
    else:  # (a row each: the block in the set's order)
        distinct, local = rows[ws], np.arange(n_ws)
    A = np.empty((distinct.shape[0], X_block.shape[1]), dtype=X_block.dtype)
    for k in range(distinct.shape[0]):
        A[k] = X_block[distinct[k]]
    products = np.dot(A, A.T)
    block = np.empty((n_ws, n_ws))
    sub_y, sub_upper, sub_alpha = np.empty(n_ws), np.empty(n_ws), np.empty(n_ws)
    sub_grad, sub_flags, sub_qd = np.empty(n_ws), np.empty(n_ws, dtype=np.int8), np.empty(n_ws)
    for a in range(n_ws):
        t = ws[a]
        row = products[local[a]]
        for b in range(n_ws):
            block[a, b] = row[local[b]]
        sub_y[a], sub_upper[a], sub_alpha[a], sub_grad[a] = y[t], upper[t], alpha[t], grad[t]
        sub_flags[a], sub_qd[a] = _side(y[t], alpha[t], upper[t]), block[a, a]
    status, steps = smo_on_block(block, Variables(sub_y, sub_upper, sub_qd, sub_alpha, sub_grad, sub_flags,
                                                  np.arange(n_ws)), problem.nu, tol, max_steps, no_data)
    if status != OPTIMAL:
        return ROUND_LEFT, 0.0
    # the moves, and w's change: the sum of the moved rows, each times y (a_new - a_old)
    change = 0.0
    coef = np.zeros(distinct.shape[0])
    for a in range(n_ws):
        t = ws[a]
        delta = sub_alpha[a] - alpha[t]
        if delta != 0.0:
            # f(a + d) - f(a) = d'G + 1/2 d'Qd, Qd on the block being the change of G there
            change += delta * 0.5 * (sub_grad[a] + grad[t])
            coef[local[a]] += y[t] * delta
            alpha[t] = sub_alpha[a]
    w = np.zeros(X.shape[1])
    for k in range(distinct.shape[0]):
        if coef[k] != 0.0:
            row = X[distinct[k]]
            for f in range(X.shape[1]):
                w[f] += coef[k] * row[f]
    products_with_w = np.dot(X, w)
    for t in range(y.shape[0]):
        grad[t] += y[t] * products_with_w[rows[t]]
    return max(steps, 1), change
