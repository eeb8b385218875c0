"""The objectives of fitted two-class problems, in one pass over their variables."""

import numpy as np

from ._jit import jit


@jit
def objectives_per_problem(bounds, alpha, y, yf, upper, intercept):
    """Per problem ``k`` (variables ``bounds[k]:bounds[k + 1]``, intercept ``b_k``): the
    margin ``2 / ||w||`` (inf where ``w = 0``), the dual objective ``sum a_t - ||w||^2 / 2``,
    the primal objective ``||w||^2 / 2 + sum C_t max(0, 1 - y_t f(x_t))`` (over the variables
    of finite bound ``C_t``) and the duality gap, with ``||w||^2 = sum a_t (y_t f(x_t) - y_t
    b_k)``. Returns four float64 arrays of one value per problem.

    Examples
    --------
    >>> import numpy as np
    >>> alpha, y = np.array([0.5, 0.5, 0.0]), np.array([1.0, -1.0, 1.0])
    >>> yf, upper = np.array([1.0, 1.0, 0.5]), np.array([1.0, 1.0, np.inf])
    >>> objectives_per_problem(np.array([0, 3]), alpha, y, yf, upper, np.array([0.0]))
    (array([2.]), array([0.5]), array([0.5]), array([0.]))
    """
    n_problems = bounds.shape[0] - 1
    margin, dual, primal, gap = np.empty(n_problems), np.empty(n_problems), np.empty(n_problems), np.empty(n_problems)
    for k in range(n_problems):
        b = intercept[k]
        alpha_sum = w_norm_squared = slack_cost = 0.0
        for t in range(bounds[k], bounds[k + 1]):
            alpha_sum += alpha[t]
            w_norm_squared += alpha[t] * (yf[t] - y[t] * b)
            if np.isfinite(upper[t]):
                slack_cost += upper[t] * max(0.0, 1.0 - yf[t])
        margin[k] = 2.0 / np.sqrt(w_norm_squared) if w_norm_squared > 0 else np.inf
        dual[k] = alpha_sum - 0.5 * w_norm_squared
        primal[k] = 0.5 * w_norm_squared + slack_cost
        gap[k] = primal[k] - dual[k]
    return margin, dual, primal, gap
