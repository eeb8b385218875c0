"""The sums behind the objectives of fitted two-class problems, in one pass over their variables."""

import numpy as np

from ._jit import jit


@jit
def objective_sums(bounds, alpha, y, yf, upper, intercept):
    """Per problem ``k`` (variables ``bounds[k]:bounds[k + 1]``, intercept ``b_k``):
    ``sum a_t``, ``||w||^2 = sum a_t (y_t f(x_t) - y_t b_k)`` and the slack cost
    ``sum C_t max(0, 1 - y_t f(x_t))`` over the variables of finite bound ``C_t``.
    Returns three float64 arrays of one value per problem.

    Examples
    --------
    >>> import numpy as np
    >>> alpha, y = np.array([0.5, 0.5, 0.0]), np.array([1.0, -1.0, 1.0])
    >>> yf, upper = np.array([1.0, 1.0, 0.5]), np.array([1.0, 1.0, np.inf])
    >>> objective_sums(np.array([0, 3]), alpha, y, yf, upper, np.array([0.0]))
    (array([1.]), array([1.]), array([0.]))
    """
    n_problems = bounds.shape[0] - 1
    alpha_sum = np.zeros(n_problems)
    w_norm_squared = np.zeros(n_problems)
    slack_cost = np.zeros(n_problems)
    for k in range(n_problems):
        b = intercept[k]
        for t in range(bounds[k], bounds[k + 1]):
            alpha_sum[k] += alpha[t]
            w_norm_squared[k] += alpha[t] * (yf[t] - y[t] * b)
            if np.isfinite(upper[t]):
                slack_cost[k] += upper[t] * max(0.0, 1.0 - yf[t])
    return alpha_sum, w_norm_squared, slack_cost
