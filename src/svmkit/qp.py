"""The textbook quadratic programs of the SVM, solved by a general QP solver.

The seed "Optimal Linear Classifiers" writes both problems in the standard
form ``minimise 1/2 u'Qu + p'u subject to A u >= c`` (plus equalities):

* hard-margin primal, ``u = [b; w]``: ``Q = diag(0, I_d)``, ``p = 0``, row ``n``
  of ``A`` is ``[y_n, y_n x_n']`` and ``c = 1``;
* dual: ``minimise 1/2 a'Q_D a - 1'a`` with ``(Q_D)_nm = y_n y_m K(x_n, x_m)``,
  subject to ``y'a = 0`` and ``0 <= a <= upper`` (``upper = inf``: hard margin,
  ``upper = C``: soft margin; one bound per sample allowed).

These dense formulations cost O(n^2) memory and O(n^3) time: they are the
reference (oracle) for the fast solvers on small problems and the way to
check a derivation by hand, not a way to train on large data.

Solver choice: `Clarabel <https://clarabel.org>`_, an interior-point solver
for convex quadratic and conic programs. It is written in Rust and actively
maintained (Oxford Control Group), handles equality constraints, bounds and
inequalities directly, certifies infeasibility (primal or dual), reaches high
accuracy (tolerances of 1e-10 here, so objectives are accurate to about
1e-8), is Apache-2.0 licensed and installs as binary wheels
(``pip install clarabel``, or ``pip install svmkit[qp]``).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

__all__ = [
    "hard_margin_primal_matrices",
    "solve_hard_margin_primal",
    "svm_dual_matrices",
    "solve_svm_dual",
    "intercept_from_dual",
    "solve_dual_qp",
]

#: Clarabel tolerances: duality gap (absolute and relative) and feasibility.
QP_TOLERANCE = 1e-10

#: Multipliers within this fraction of the largest bound of a bound are put on it.
BOUND_SNAP = 1e-6

#: Largest eigenvalue deficit (relative to the largest diagonal entry) still
#: taken for round-off when checking that ``Q_D`` is positive semi-definite.
PSD_TOLERANCE = 1e-9


def _import_clarabel():
    try:
        import clarabel
    except ImportError as error:  # pragma: no cover - clarabel is a test dependency
        raise ImportError("svmkit.qp needs the clarabel QP solver: pip install clarabel (or svmkit[qp]).") from error
    return clarabel


def _settings(clarabel):
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = QP_TOLERANCE
    settings.tol_gap_rel = QP_TOLERANCE
    settings.tol_feas = QP_TOLERANCE
    settings.max_iter = 500
    return settings


def _check_labels(y, n_samples):
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y must be a 1-D array with one label per sample ({n_samples}), got shape {y.shape}.")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold the labels -1 and +1 only.")
    if np.unique(y).size < 2:
        raise ValueError("y must contain both classes, -1 and +1.")
    return y


def _check_finite_matrix(name, M):
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {M.shape}.")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return M


def _warn_unless_solved(status):
    """Warn when Clarabel stopped short of its tolerances."""
    if status != "Solved":
        warnings.warn(
            f"The QP solver stopped with status {status!r}: the solution may be inaccurate.",
            ConvergenceWarning,
        )


def hard_margin_primal_matrices(X, y):
    """The seed's matrices of the linear hard-margin primal.

    ``minimise 1/2 u'Qu + p'u subject to A u >= c`` with ``u = [b; w]``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1/+1

    Returns
    -------
    Q : ndarray of shape (n_features + 1, n_features + 1), ``diag(0, I)``
    p : ndarray of shape (n_features + 1,), zeros
    A : ndarray of shape (n_samples, n_features + 1), rows ``[y_n, y_n x_n']``
    c : ndarray of shape (n_samples,), ones

    Examples
    --------
    >>> Q, p, A, c = hard_margin_primal_matrices([[-1.0], [0.0], [1.0]], [1, -1, -1])
    >>> A
    array([[ 1., -1.],
           [-1., -0.],
           [-1., -1.]])
    """
    X = _check_finite_matrix("X", X)
    y = _check_labels(y, X.shape[0])
    n_features = X.shape[1]
    Q = np.diag(np.r_[0.0, np.ones(n_features)])
    A = y[:, None] * np.hstack([np.ones((X.shape[0], 1)), X])
    return Q, np.zeros(n_features + 1), A, np.ones(X.shape[0])


def solve_hard_margin_primal(X, y):
    """Solve the linear hard-margin primal: the widest margin separating the two classes.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1/+1

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float
        The hyperplane ``w'x + b = 0``; ``y_n (w'x_n + b) >= 1`` for all ``n``.

    Raises
    ------
    ValueError
        When the data are not linearly separable (the QP is infeasible).

    Examples
    --------
    The seed's exercise ``D = {(-1, +1), (0, -1), (1, -1)}``:

    >>> w, b = solve_hard_margin_primal([[-1.0], [0.0], [1.0]], [1, -1, -1])
    >>> print(np.round(w, 6), round(b, 6))
    [-2.] -1.0
    """
    clarabel = _import_clarabel()
    Q, p, A, c = hard_margin_primal_matrices(X, y)
    cones = [clarabel.NonnegativeConeT(A.shape[0])]
    # Clarabel's form is  A_s u + s = b_s, s >= 0;  A u >= c  is  -A u + s = -c.
    solver = clarabel.DefaultSolver(sp.csc_matrix(Q), p, sp.csc_matrix(-A), -c, cones, _settings(clarabel))
    solution = solver.solve()
    status = str(solution.status)
    if status in ("PrimalInfeasible", "AlmostPrimalInfeasible"):
        raise ValueError(
            "The data are not linearly separable: no hyperplane satisfies y_n (w'x_n + b) >= 1 for all "
            "samples, so the hard-margin primal is infeasible. Use a soft margin (finite C) or a kernel."
        )
    _warn_unless_solved(status)
    u = np.asarray(solution.x)
    return u[1:], float(u[0])


def svm_dual_matrices(K, y):
    """The seed's matrices of the SVM dual: ``Q_D = (y_n y_m K_nm)`` and ``p = -1``.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples), the Gram matrix
    y : array-like of shape (n_samples,), labels -1/+1

    Returns
    -------
    Q_D : ndarray of shape (n_samples, n_samples)
    p : ndarray of shape (n_samples,), ``-1``

    Examples
    --------
    >>> Q, p = svm_dual_matrices([[1.0, 0.0], [0.0, 1.0]], [1, -1])
    >>> Q
    array([[ 1., -0.],
           [-0.,  1.]])
    """
    K = _check_finite_matrix("K", K)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square (the Gram matrix of the training samples), got shape {K.shape}.")
    y = _check_labels(y, K.shape[0])
    return y[:, None] * K * y[None, :], -np.ones(K.shape[0])


def _smallest_eigenvalue_if_indefinite(Q):
    """``None`` when ``Q`` is positive semi-definite up to round-off, else its smallest eigenvalue."""
    scale = max(float(np.max(np.abs(np.diag(Q)))), np.finfo(float).tiny)
    try:
        np.linalg.cholesky(Q + PSD_TOLERANCE * scale * np.eye(Q.shape[0]))
    except np.linalg.LinAlgError:
        return float(scipy.linalg.eigvalsh(Q, subset_by_index=[0, 0])[0])
    return None


def solve_svm_dual(K, y, upper):
    """Solve the SVM dual ``min 1/2 a'Q_D a - 1'a, y'a = 0, 0 <= a <= upper``.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        Gram matrix ``K(x_n, x_m)`` of the training samples (positive
        semi-definite).
    y : array-like of shape (n_samples,), labels -1/+1
    upper : float or array-like of shape (n_samples,)
        Upper bounds ``U_n``: ``C`` (soft margin), ``C * weight_n``, or
        ``np.inf`` (hard margin).

    Returns
    -------
    alpha : ndarray of shape (n_samples,)
        The multipliers, as returned by the interior-point method: entries
        at a bound are within about 1e-9 of it, not exactly on it.
    status : str
        Clarabel's status, ``'Solved'`` (a ``ConvergenceWarning`` is raised
        for any other status that still returns a solution).

    Raises
    ------
    ValueError
        When the dual is unbounded (hard margin on data that are not
        separable in the kernel's feature space), infeasible, or not convex
        and the solver fails on it.

    Warns
    -----
    UserWarning
        When ``Q_D`` is not positive semi-definite (a kernel that is not a
        Mercer kernel on these data, such as most sigmoid kernels) but the
        solver still converged: the result is a stationary point, as SMO's.

    Examples
    --------
    >>> X = np.array([[-1.0], [0.0], [1.0]])
    >>> alpha, status = solve_svm_dual(X @ X.T, [1, -1, -1], np.inf)
    >>> np.round(alpha, 6), status
    (array([2., 2., 0.]), 'Solved')
    """
    clarabel = _import_clarabel()
    Q, p = svm_dual_matrices(K, y)
    n_samples = Q.shape[0]
    upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), (n_samples,))
    if np.any(np.isnan(upper)) or np.any(upper <= 0):
        raise ValueError("upper must be positive (C > 0 or np.inf) for every sample.")
    smallest_eigenvalue = _smallest_eigenvalue_if_indefinite(Q)
    y = np.asarray(y, dtype=np.float64)
    bounded = np.flatnonzero(np.isfinite(upper))
    identity = sp.identity(n_samples, format="csr")
    # Rows: y'a = 0 (zero cone); -a <= 0 and a_n <= U_n (non-negative cone of the slacks).
    A = sp.vstack([sp.csr_matrix(y[None, :]), -identity, identity[bounded]]).tocsc()
    b = np.concatenate([[0.0], np.zeros(n_samples), upper[bounded]])
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(n_samples + bounded.size)]
    P = sp.csc_matrix(np.triu(Q))
    solution = clarabel.DefaultSolver(P, p, A, b, cones, _settings(clarabel)).solve()
    status = str(solution.status)
    if status in ("DualInfeasible", "AlmostDualInfeasible"):
        raise ValueError(
            "The SVM dual is unbounded: the data are not separable in the kernel's feature space, so the "
            "hard-margin problem has no solution (its primal is infeasible). Use a finite upper bound C."
        )
    if status in ("PrimalInfeasible", "AlmostPrimalInfeasible"):
        raise ValueError("The SVM dual is infeasible: no 0 <= a <= upper satisfies y'a = 0.")
    if smallest_eigenvalue is not None:
        not_psd = (
            f"The dual matrix Q_D = (y_n y_m K_nm) is not positive semi-definite (smallest eigenvalue "
            f"{smallest_eigenvalue:.3g}): the kernel is not a Mercer kernel on these data, so the dual is not convex"
        )
        if status != "Solved":
            raise ValueError(f"{not_psd} and the QP solver failed on it (status {status!r}).")
        warnings.warn(f"{not_psd}; the solution returned is a stationary point.", UserWarning)
    _warn_unless_solved(status)
    return np.asarray(solution.x), status


def intercept_from_dual(K, y, alpha, upper, *, tol=1e-6):
    """The intercept ``b`` from the dual solution (the seeds' rule).

    ``b`` is the average over the free support vectors (``0 < a_i < U_i``)
    of ``y_i - sum_j a_j y_j K_ij``. Without free support vectors every
    sample only bounds ``b`` (from below or above, by its label and whether
    ``a_i = 0`` or ``a_i = U_i``), and ``b`` is the midpoint of that interval.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
    y : array-like of shape (n_samples,), labels -1/+1
    alpha : array-like of shape (n_samples,)
    upper : float or array-like of shape (n_samples,)
    tol : float, default=1e-6
        ``a_i`` counts as 0 below ``tol * max(1, max a)`` and as ``U_i``
        within that distance of it (QP solutions are not exactly on bounds).

    Returns
    -------
    float

    Examples
    --------
    >>> X = np.array([[-1.0], [0.0], [1.0]])
    >>> K, y = X @ X.T, np.array([1.0, -1.0, -1.0])
    >>> alpha, _ = solve_svm_dual(K, y, np.inf)
    >>> round(intercept_from_dual(K, y, alpha, np.inf), 6)
    -1.0
    """
    K = _check_finite_matrix("K", K)
    y = _check_labels(y, K.shape[0])
    alpha = np.asarray(alpha, dtype=np.float64)
    upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), alpha.shape)
    threshold = tol * max(1.0, float(alpha.max()))
    residual = y - K @ (alpha * y)  # y_i - sum_j a_j y_j K_ij
    at_lower = alpha <= threshold
    at_upper = alpha >= upper - threshold
    free = ~at_lower & ~at_upper
    if np.any(free):
        return float(residual[free].mean())
    # y_i f(x_i) >= 1 where a_i = 0 and <= 1 where a_i = U_i.
    lower_side = (at_lower & (y > 0)) | (at_upper & (y < 0))
    upper_side = (at_lower & (y < 0)) | (at_upper & (y > 0))
    low = residual[lower_side].max() if np.any(lower_side) else -np.inf
    high = residual[upper_side].min() if np.any(upper_side) else np.inf
    if not np.isfinite(low):
        return float(high)
    if not np.isfinite(high):
        return float(low)
    return float(0.5 * (low + high))


def solve_dual_qp(source, batch):
    """Solve the C-SVC duals of a :class:`~svmkit._solver.DualBatch` with the QP solver.

    This is ``SVC(solver='qp')``: each problem's dual matrices are formed densely and handed
    to Clarabel. Interior-point multipliers approach their bounds without reaching them, so
    values within ``BOUND_SNAP`` (relative) of 0 or of ``U_i`` are put on the bound, which
    makes the support-vector categories of the KKT report exact. Samples with ``U_i = 0``
    (zero weight) keep ``a_i = 0``.

    Parameters
    ----------
    source : a row source of :mod:`svmkit._solver.rows`
    batch : DualBatch
        C-SVC duals (``p = -1``, start at 0), as :func:`svmkit.svm._formulations.c_svc_batch`
        builds them.

    Returns
    -------
    DualSolution
        With ``n_iter = 0`` (SMO's counter of pair updates does not apply).
    """
    from ._core.smo import group_rho
    from ._solver import ITERATION_LIMIT, OPTIMAL, DualSolution

    n_groups = batch.n_groups
    alpha, grad = np.zeros(batch.y.shape[0]), np.zeros(batch.y.shape[0])
    status, gap = np.zeros(n_groups, dtype=np.int64), np.zeros(n_groups)
    for g in range(n_groups):
        part = batch.group(g)
        rows, y, upper = batch.rows[part], batch.y[part], batch.upper[part]
        K = source.block(rows)
        a = np.zeros(rows.shape[0])
        movable = np.flatnonzero(upper > 0)
        solved, outcome = solve_svm_dual(K[np.ix_(movable, movable)], y[movable], upper[movable])
        a[movable] = solved
        finite = upper[np.isfinite(upper)]
        snap = BOUND_SNAP * max(1.0, float(a.max()), float(finite.max()) if finite.size else 0.0)
        a[a <= snap] = 0.0
        a[upper - a <= snap] = upper[upper - a <= snap]
        alpha[part] = a
        grad[part] = y * (K @ (y * a)) + batch.p[part]
        v = -y * grad[part]
        in_up = np.where(y > 0, a < upper, a > 0)
        in_low = np.where(y > 0, a > 0, a < upper)
        gap[g] = v[in_up].max(initial=-np.inf) - v[in_low].min(initial=np.inf)
        status[g] = OPTIMAL if outcome == "Solved" else ITERATION_LIMIT
    rho1, rho2 = group_rho(batch.compiled(), alpha, grad)
    return DualSolution(alpha, grad, np.zeros(n_groups, dtype=np.int64), status, gap, rho1, rho2)
