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
