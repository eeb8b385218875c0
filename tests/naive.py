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
