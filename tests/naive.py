"""Slow, obvious references used as oracles by the tests."""

import numpy as np


def gram_by_loops(pair_function, A, B):
    """The Gram matrix computed one pair at a time."""
    return np.array([[pair_function(a, b) for b in B] for a in A])


def linear_pair(u, v):
    return float(np.dot(u, v))


def poly_pair(u, v, degree, gamma, coef0):
    return float((gamma * np.dot(u, v) + coef0) ** degree)


def rbf_pair(u, v, gamma):
    return float(np.exp(-gamma * np.sum((u - v) ** 2)))


def sigmoid_pair(u, v, gamma, coef0):
    return float(np.tanh(gamma * np.dot(u, v) + coef0))


def asymmetry_by_loops(K):
    """``(largest |K[i, j] - K[j, i]|, largest |K[i, j]|)``."""
    differences = [abs(K[i, j] - K[j, i]) for i in range(K.shape[0]) for j in range(i + 1, K.shape[0])]
    return max(differences, default=0.0), float(np.abs(K).max(initial=0.0))


def dual_objective(dual_coef, K_sv):
    """``sum |a_i y_i| - 1/2 c'Kc`` for binary dual coefficients ``c = a * y``."""
    return float(np.abs(dual_coef).sum() - 0.5 * dual_coef @ K_sv @ dual_coef)


def quadratic_feature_map(U):
    """The seeds' map Phi(u) = (u1^2, u2^2, sqrt2 u1, sqrt2 u2, sqrt2 u1 u2, 1) with
    Phi(u).Phi(v) = (u.v + 1)^2."""
    u1, u2 = U[:, 0], U[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([u1**2, u2**2, r2 * u1, r2 * u2, r2 * u1 * u2, np.ones_like(u1)])


def intercept_by_masks(y, alpha, grad, upper):
    """LIBSVM's ``-rho`` with NumPy masks: the mean of ``-y G`` over free multipliers, else
    minus the midpoint of the interval the KKT conditions leave for ``rho``."""
    yg = y * grad
    free = (alpha > 0) & (alpha < upper)
    if free.any():
        return -float(yg[free].mean())
    at_upper, at_zero = alpha >= upper, alpha <= 0
    lower_side = (at_upper & (y > 0)) | (at_zero & (y < 0))
    upper_side = (at_upper & (y < 0)) | (at_zero & (y > 0))
    lower = yg[lower_side].max() if lower_side.any() else -np.inf
    higher = yg[upper_side].min() if upper_side.any() else np.inf
    lower = higher if not np.isfinite(lower) else lower
    higher = lower if not np.isfinite(higher) else higher
    return -float(0.5 * (lower + higher)) if np.isfinite(lower) else 0.0


def kernel_by_formula(code, gamma, coef0, degree, A, B):
    """The built-in kernels' blocks from their formulas (codes of svmkit._core.kernels:
    0 linear, 1 polynomial, 2 RBF, 3 sigmoid), one pair at a time."""
    pair = {
        0: linear_pair,
        1: lambda u, v: poly_pair(u, v, degree, gamma, coef0),
        2: lambda u, v: rbf_pair(u, v, gamma),
        3: lambda u, v: sigmoid_pair(u, v, gamma, coef0),
    }[code]
    return gram_by_loops(pair, A, B)


def dual_by_projected_gradient(Q, p, y, upper, alpha0, nu=False, steps=20000):
    """The minimum of ``1/2 a'Qa + p'a`` subject to ``y'a = y'a0`` (and, with ``nu``, the sum
    of ``a`` over each sign of ``y`` fixed) and ``0 <= a <= U``, by SMO with the maximal
    violating pair (first-order selection) and the gradient recomputed from scratch at every
    step: slow and obvious. Returns ``(alpha, objective)``."""
    alpha = np.array(alpha0, dtype=float)
    upper = np.asarray(upper, dtype=float)
    for _ in range(steps):
        grad = Q @ alpha + p
        v = -y * grad
        in_up = np.where(y > 0, alpha < upper, alpha > 0)
        in_low = np.where(y > 0, alpha > 0, alpha < upper)
        best = None
        for group in ([y > 0, y < 0] if nu else [np.ones_like(y, dtype=bool)]):
            up, low = np.flatnonzero(in_up & group), np.flatnonzero(in_low & group)
            if up.size == 0 or low.size == 0:
                continue
            i, j = up[np.argmax(v[up])], low[np.argmin(v[low])]
            if best is None or v[i] - v[j] > best[0]:
                best = (v[i] - v[j], i, j)
        if best is None or best[0] < 1e-10:
            break
        _, i, j = best
        # move along d = y_i e_i - y_j e_j (keeps y'a), the exact minimiser clipped to the box
        d = np.zeros_like(alpha)
        d[i], d[j] = y[i], -y[j]
        curvature = d @ Q @ d
        slope = grad @ d
        t = -slope / curvature if curvature > 1e-15 else np.inf
        limits = [(upper[k] - alpha[k]) / d[k] if d[k] > 0 else -alpha[k] / d[k] for k in (i, j)]
        alpha += min(t, *limits) * d
    return alpha, float(0.5 * alpha @ Q @ alpha + p @ alpha)


def _dense_rows(X, bias_value=0.0):
    """The rows of ``X`` (dense or sparse) as lists, each with the constant feature ``bias_value``
    appended when it is not 0 (LIBLINEAR's augmented intercept)."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    rows = X.tolist()
    return [row + [bias_value] for row in rows] if bias_value != 0.0 else rows


def _dot_in_order(w, x):
    """``w'x`` summed one term at a time from the first (no pairwise or compensated sums)."""
    total = 0.0
    for w_j, x_j in zip(w, x):
        total += w_j * x_j
    return total


def perceptron_by_loops(X, y, eta, max_iter, fit_intercept=True):
    """Rosenblatt's perceptron: sweep the samples in their order; a mistake
    ``y_i (w'x_i + b) <= 0`` adds ``eta y_i x_i`` to ``w`` and ``eta y_i`` to ``b``. Stops after
    a sweep without mistakes or after ``max_iter`` sweeps. Returns ``(w, b, mistakes per
    sample, sweeps made, converged)``."""
    rows = _dense_rows(X)
    w, b = [0.0] * len(rows[0]), 0.0
    mistakes = [0] * len(rows)
    for sweep in range(1, max_iter + 1):
        errors = 0
        for i, x in enumerate(rows):
            if y[i] * (_dot_in_order(w, x) + b) <= 0.0:
                mistakes[i] += 1
                errors += 1
                w = [w_j + eta * y[i] * x_j for w_j, x_j in zip(w, x)]
                if fit_intercept:
                    b += eta * y[i]
        if errors == 0:
            return np.array(w), b, np.array(mistakes), sweep, True
    return np.array(w), b, np.array(mistakes), max_iter, False


def kernel_perceptron_by_loops(K, y, max_iter):
    """The dual perceptron over the Gram matrix ``K``: visiting ``j``, compute
    ``g_j = sum_i alpha_i y_i (K_ij + 1)`` from scratch; if ``y_j g_j <= 0``, ``alpha_j += 1``.
    Stops after a sweep without mistakes or after ``max_iter`` sweeps. Returns ``(alpha, g of
    every sample, sweeps made, converged)``."""
    n = len(y)
    alpha = np.zeros(n, dtype=np.int64)

    def g(j):
        return float(np.sum(alpha * y * (K[:, j] + 1.0)))

    for sweep in range(1, max_iter + 1):
        errors = 0
        for j in range(n):
            if y[j] * g(j) <= 0.0:
                alpha[j] += 1
                errors += 1
        if errors == 0:
            return alpha, np.array([g(j) for j in range(n)]), sweep, True
    return alpha, np.array([g(j) for j in range(n)]), max_iter, False


def dual_coordinate_descent_by_loops(X, y, C, loss, bias_value=0.0, tol=1e-10, max_passes=100000):
    """The linear SVM's dual ``min 1/2 a'(Q + D)a - 1'a`` subject to ``0 <= a_i <= U_i``,
    ``Q_ij = y_i y_j x_i'x_j`` on the samples augmented with ``bias_value``, by dual coordinate
    descent (Hsieh et al., ICML 2008, Algorithm 1) without shrinking, visiting the samples in
    their order: each coordinate is set to the exact minimiser along it, clipped to the box.
    ``loss="hinge"``: ``U_i = C_i``, ``D_ii = 0``; ``"squared_hinge"``: ``U_i = inf``,
    ``D_ii = 1 / (2 C_i)``. Samples with ``C_i = 0`` keep ``a_i = 0``. Stops when the spread
    of the projected gradient over a pass is at most ``tol``. Returns ``(alpha, w, dual
    objective)``, ``w = sum_i a_i y_i x_i`` (augmented)."""
    Xa = np.array(_dense_rows(X, bias_value))
    n = Xa.shape[0]
    C = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    if loss == "hinge":
        upper, diag = C.copy(), np.zeros(n)
    else:
        upper = np.full(n, np.inf)
        diag = np.array([0.5 / c if c > 0 else 0.0 for c in C])
    alpha, w = np.zeros(n), np.zeros(Xa.shape[1])
    for _ in range(max_passes):
        pg_max, pg_min = -np.inf, np.inf
        for i in range(n):
            if C[i] == 0:
                continue
            gradient = y[i] * (w @ Xa[i]) - 1.0 + diag[i] * alpha[i]
            if alpha[i] == 0.0:
                projected = min(gradient, 0.0)
            elif alpha[i] == upper[i]:
                projected = max(gradient, 0.0)
            else:
                projected = gradient
            pg_max, pg_min = max(pg_max, projected), min(pg_min, projected)
            if projected != 0.0:
                new = min(max(alpha[i] - gradient / (Xa[i] @ Xa[i] + diag[i]), 0.0), upper[i])
                w += (new - alpha[i]) * y[i] * Xa[i]
                alpha[i] = new
        if pg_max - pg_min <= tol:
            break
    return alpha, w, linear_dual_objective(alpha, w, diag)


def linear_dual_objective(alpha, w, diag):
    """``1/2 a'(Q + D)a - 1'a`` with ``a'Qa = ||w||^2`` for ``w = sum_i a_i y_i x_i``."""
    return float(0.5 * w @ w + 0.5 * np.sum(diag * alpha**2) - alpha.sum())


def linear_primal_objective(X, y, C, loss, w, bias_value=0.0):
    """``1/2 ||w||^2 + sum_i C_i loss(y_i w'x_i)`` (hinge or squared hinge), ``x`` augmented."""
    Xa = np.array(_dense_rows(X, bias_value))
    hinge = np.maximum(0.0, 1.0 - y * (Xa @ w))
    return float(0.5 * w @ w + np.sum(C * (hinge if loss == "hinge" else hinge**2)))


def pegasos_by_loops(X, y, lam, indices, weight=None, bias_value=0.0, radius=None, average_start=np.inf):
    """Pegasos (Shalev-Shwartz et al., ICML 2007) on the samples ``indices[0], indices[1], ...``:
    step ``t`` (from 1) with ``eta = 1 / (lam t)`` on sample ``i`` is
    ``w <- (1 - eta lam) w + eta s_i y_i x_i [y_i w'x_i < 1]``, then, when ``radius`` is given,
    ``w <- min(1, radius / ||w||) w``. Returns the last ``w`` and the mean of the ``w_t`` with
    ``t > average_start`` (the last ``w`` when there are none); ``x`` is augmented."""
    Xa = np.array(_dense_rows(X, bias_value))
    s = np.ones(len(y)) if weight is None else weight
    w = np.zeros(Xa.shape[1])
    total, averaged = np.zeros_like(w), 0
    for t, i in enumerate(indices, start=1):
        eta = 1.0 / (lam * t)
        margin = y[i] * (w @ Xa[i])
        w = (1.0 - eta * lam) * w
        if margin < 1.0:
            w = w + eta * s[i] * y[i] * Xa[i]
        if radius is not None and np.linalg.norm(w) > radius:
            w = radius / np.linalg.norm(w) * w
        if t > average_start:
            total += w
            averaged += 1
    return w, (total / averaged if averaged else w)


def kept_by_shrinking(y, upper, alpha, grad, nu):
    """LIBSVM's ``be_shrunk`` the slow way: a mask of the variables shrinking keeps, all but
    those that cannot enter a violating pair of their sign group (``nu``: the signs of ``y``
    apart): in I_up only with ``-y G`` below every I_low value, in I_low only with it above every
    I_up value (all of them where the other set is empty), or in neither set."""
    keep = []
    for t in range(len(y)):
        group = [s for s in range(len(y)) if not nu or y[s] == y[t]]
        up = {s for s in group if (alpha[s] < upper[s] if y[s] > 0 else alpha[s] > 0)}
        low = {s for s in group if (alpha[s] > 0 if y[s] > 0 else alpha[s] < upper[s])}
        v = {s: -y[s] * grad[s] for s in group}
        if t in up and t not in low:
            keep.append(not all(v[t] < v[s] for s in low))
        elif t in low and t not in up:
            keep.append(not all(v[t] > v[s] for s in up))
        else:
            keep.append(t in up)
    return np.array(keep)


def face_newton_step(Q, g, y, nu=False):
    """The step ``d`` minimising ``g'd + 1/2 d'Qd`` subject to ``y'd = 0`` (with ``nu``: the sum of
    ``d`` over each sign of ``y`` zero), from the KKT system ``[Q A'; A 0] [d; l] = [-g; 0]`` solved
    by least squares (``Q`` may be singular where ``g`` has no part along its null space)."""
    A = np.vstack([y > 0, y < 0]).astype(float) if nu else y[np.newaxis, :].astype(float)
    A = A[np.any(A != 0, axis=1)]
    k, c = Q.shape[0], A.shape[0]
    kkt = np.block([[Q, A.T], [A, np.zeros((c, c))]])
    solution = np.linalg.lstsq(kkt, np.concatenate([-g, np.zeros(c)]), rcond=None)[0]
    return solution[:k]


def libsvm_layout_by_loops(bounds, rows, coef, y_index, n_classes, first=(), second=()):
    """LIBSVM's layout of fitted problems one variable at a time: the support vectors (rows
    with a nonzero coefficient in some problem) sorted by class then row, their number per
    class, each one's coefficient per problem, and for one-vs-one pairs ``(first[p],
    second[p])`` LIBSVM's ``dual_coef_`` (a support vector of class ``i`` keeps its coefficient
    of pair ``(i, j)`` in row ``j - 1`` where ``i < j``, else in row ``j``)."""
    support = sorted({int(rows[t]) for t in range(len(coef)) if coef[t] != 0}, key=lambda r: (y_index[r], r))
    position = {r: s for s, r in enumerate(support)}
    n_support = np.array([sum(1 for r in support if y_index[r] == c) for c in range(n_classes)], dtype=np.int64)
    n_problems = len(bounds) - 1
    problem_coef = np.zeros((len(support), n_problems))
    dual_coef = np.zeros((n_classes - 1 if len(first) else 0, len(support)))
    for p in range(n_problems):
        for t in range(bounds[p], bounds[p + 1]):
            if coef[t] != 0:
                s = position[int(rows[t])]
                problem_coef[s, p] = coef[t]
                if len(first):
                    i, j = first[p], second[p]
                    dual_coef[j - 1 if y_index[rows[t]] == i else i, s] = coef[t]
    return np.array(support, dtype=np.int64), n_support, problem_coef, dual_coef
