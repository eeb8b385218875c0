"""The fat-margin bound on the VC dimension: ``d_vc(rho) <= min(ceil(R^2 / rho^2), d) + 1``.

Hyperplanes that separate data lying in a ball of radius ``R`` with a margin of
half-width ``rho`` (``rho = 1 / ||w||``) have a VC dimension of at most
``min(ceil(R^2 / rho^2), d) + 1`` in a feature space of dimension ``d``
(Vapnik, *Statistical Learning Theory*, 1998). ``R`` is measured in
the kernel's feature space, from kernel values only.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .._solver import DualBatch, solve
from ..kernels import LinearKernel, PolynomialKernel

#: ``ceil`` of ``R^2 / rho^2`` ignores a relative excess this small (float rounding of an integer).
CEIL_TOLERANCE = 1e-9


def enclosing_radius(source, settings):
    """The radius of the smallest ball around the training points in the kernel's feature space.

    The ball ``min_c max_i ||phi(x_i) - c||`` has the dual ``min_a a'Ka - sum_i a_i K_ii``
    with ``sum_i a_i = 1``, ``a >= 0`` and centre ``c = sum_i a_i phi(x_i)`` (the support
    vector data description of Tax and Duin, 2004, at ``C = 1``): one problem for the
    library's SMO solver, with ``Q = K``, ``p = -diag(K) / 2`` and ``y = 1``. Distances come
    from the gradient ``g = Ka + p`` at its solution, ``||phi(x_i) - c||^2 = K_ii - 2 (Ka)_i +
    a'Ka = a'Ka - 2 g_i``, and the radius is the largest of them, so the ball holds every
    point whether or not the solver reached ``tol`` (an upper bound of the smallest radius,
    equal to it at the exact solution).

    Parameters
    ----------
    source : KernelRows or PrecomputedRows
        The kernel rows of the training data (:mod:`svmkit._solver.rows`).
    settings : SolverSettings
        ``tol``, ``max_iter``, ``cache_size`` and ``shrinking`` of the fit (no progress
        reports: this is not the estimator's problem).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._solver import KernelRows, SolverSettings
    >>> from svmkit.kernels import LinearKernel
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.5, 0.5]])
    >>> round(enclosing_radius(KernelRows(LinearKernel(), X), SolverSettings()), 6)  # centre (1, 1)
    1.414214
    """
    diagonal = source.diagonal()
    n = diagonal.shape[0]
    start = np.zeros(n)
    start[int(np.argmax(diagonal))] = 1.0
    batch = DualBatch.single(np.ones(n), -0.5 * diagonal, np.ones(n), start, np.arange(n, dtype=np.int64))
    quiet = replace(settings, verbose=False, callback=None, n_jobs=1)
    solution = solve(batch, source, quiet)
    centre_norm = float(solution.alpha @ (solution.grad + 0.5 * diagonal))  # a'Ka
    return math.sqrt(max(centre_norm - 2.0 * float(solution.grad.min()), 0.0))


def feature_space_dimension(kernel, n_features):
    """``d``: the dimension of the kernel's feature space that hyperplanes with a bias can use.

    The linear kernel: the number of features. The polynomial kernel ``(gamma x'y +
    coef0) ** p``: the monomials of degree ``p`` in ``n`` variables, ``C(n + p - 1, p)``,
    when ``coef0 = 0``, else those of degree 1 to ``p``, ``C(n + p, p) - 1`` (the constant
    monomial is absorbed by the bias). Every other kernel (RBF, whose feature space is
    infinite; sigmoid, combined, callable and precomputed kernels, whose dimension is
    not known): ``inf``, so that the bound is ``ceil(R^2 / rho^2) + 1``.

    Examples
    --------
    >>> from svmkit.kernels import LinearKernel, PolynomialKernel, RBFKernel
    >>> feature_space_dimension(LinearKernel(), 2), feature_space_dimension(PolynomialKernel(2, 1.0, 1.0), 2)
    (2, 5)
    >>> feature_space_dimension(RBFKernel(gamma=1.0), 2)
    inf
    """
    if type(kernel) is LinearKernel:
        return int(n_features)
    if type(kernel) is PolynomialKernel:
        if kernel.coef0 == 0.0:
            return math.comb(n_features + kernel.degree - 1, kernel.degree)
        return math.comb(n_features + kernel.degree, kernel.degree) - 1
    return math.inf


def vc_bound(radius, rho, dimension):
    """``min(ceil(R^2 / rho^2), d) + 1`` (an int; ``rho = inf``, ``w = 0``, gives 1).

    Examples
    --------
    >>> vc_bound(1.0, 0.5, 1), vc_bound(1.0, 0.5, float("inf")), vc_bound(2.0, 1.5, 10)
    (2, 5, 3)
    """
    ratio = (radius / rho) ** 2 if math.isfinite(rho) else 0.0
    terms = math.ceil(ratio * (1.0 - CEIL_TOLERANCE))
    return int(min(terms, dimension)) + 1
