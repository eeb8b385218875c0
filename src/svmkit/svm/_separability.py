"""Is a two-class sample strictly separable in a kernel's feature space?

The hard-margin dual is bounded exactly when the primal is feasible, i.e. when
some ``w`` in the span of the training points and some ``b`` satisfy
``y_i (w'phi(x_i) + b) >= 1`` for all ``i``. Writing ``w = sum_j beta_j
phi(x_j)`` makes that a linear feasibility problem in ``(beta, b)``, which the
HiGHS LP solver (through SciPy) decides within an iteration limit: the dual
simplex first, its interior-point method where the simplex stops undecided (it
can cycle on a nearly singular Gram matrix). For the linear kernel the smaller
problem in ``(w, b)`` is solved instead. A test that stays undecided returns
``None``; the caller then solves the dual within the solver's step limit.
"""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..kernels import LinearKernel

#: Largest sample for which the n x n Gram matrix is formed for the test.
MAX_SAMPLES_FOR_KERNEL_TEST = 15000
#: Iterations each LP method may take, per constraint and variable: a basis change per
#: constraint and variable a few times over, far more than a decided test needs.
LP_ITERATIONS_PER_ROW = 20


class NotSeparableError(ValueError):
    """Raised when a hard-margin SVM (C = inf) is fitted on non-separable data."""


def is_separable(gram, kernel, X, rows, y):
    """Decide strict separability of the rows ``rows`` of ``X`` with labels ``y`` (+1/-1).

    Returns
    -------
    bool or None
        None where the LP solver stopped undecided (iteration limit or numerical trouble).
    """
    n = rows.shape[0]
    if isinstance(kernel, LinearKernel):
        features = X[rows]
    else:
        if n > MAX_SAMPLES_FOR_KERNEL_TEST:
            raise ValueError(
                f"A hard-margin SVM (C=inf) with a non-linear kernel is limited to "
                f"{MAX_SAMPLES_FOR_KERNEL_TEST} samples per two-class problem (its separability test forms "
                f"the Gram matrix); this problem has {n}. Use a large finite C instead."
            )
        features = gram.block(rows)
    if sp.issparse(features):
        constraints = sp.hstack([features, sp.csr_matrix(np.ones((n, 1)))]).tocsr()
        constraints = -sp.diags(y) @ constraints
    else:
        constraints = -y[:, None] * np.hstack([features, np.ones((n, 1))])
    n_vars = constraints.shape[1]
    for method in ("highs-ds", "highs-ipm"):
        result = linprog(
            c=np.zeros(n_vars),
            A_ub=constraints,
            b_ub=-np.ones(n),
            bounds=[(None, None)] * n_vars,
            method=method,
            options={"maxiter": LP_ITERATIONS_PER_ROW * (n + n_vars)},
        )
        if result.status in (0, 2):
            return result.status == 0
    return None
