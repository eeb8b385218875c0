"""Formulation adapters: each builds the dual of one SVM type for the shared
solver (:func:`svmkit._solver.solve_dual`) and reads its solution back."""

import numpy as np

from .._solver import DualProblem, intercept_from_gradient


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
    return DualProblem(rows=indices, y=y, p=-np.ones(m), upper=upper, alpha0=np.zeros(m))


def c_svc_solution(problem, solution):
    """``(alpha, b, y f(x))`` of a solved C-SVC dual.

    With ``G_i = y_i sum_j a_j y_j K_ij - 1``, the functional margin is
    ``y_i f(x_i) = G_i + 1 + y_i b`` without another kernel evaluation.
    """
    alpha = solution.alpha
    b = intercept_from_gradient(problem.y, alpha, solution.grad, problem.upper)
    yf = solution.grad + 1.0 + problem.y * b
    return alpha, b, yf
