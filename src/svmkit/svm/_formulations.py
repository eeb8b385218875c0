"""Formulation adapters: each builds the duals of one SVM type as a batch for the shared
solver (:func:`svmkit._solver.solve`) and reads the solution back (DESIGN.md section 1;
LIBSVM's ``solve_c_svc``, ``solve_nu_svc``, ``solve_one_class``, ``solve_epsilon_svr``,
``solve_nu_svr``)."""

from collections import namedtuple

import numpy as np

from .._solver import DualBatch


Problems = namedtuple("Problems", "rows labels upper bounds runs")
Problems.__doc__ = """Two-class problems one after another (problem ``k``: ``bounds[k]:bounds[k + 1]``):
each variable's training row, label (+1/-1) and bound ``C_i`` (``inf``: hard margin; 0: a
sample that cannot move), and each problem's rows as at most two runs (the ``runs`` of
:class:`svmkit._core.smo.Batch`)."""


def one_vs_one(class_start, pairs, upper):
    """The one-vs-one :class:`Problems` of the classes ``pairs`` (``(a, b)``: the rows of class
    ``a`` labelled +1, then those of class ``b`` labelled -1, LIBSVM's order) on rows ordered
    by class (class ``c``: rows ``class_start[c]:class_start[c + 1]``), bounds ``upper``.

    Examples
    --------
    >>> import numpy as np
    >>> problems = one_vs_one(np.array([0, 2, 3, 5]), [(0, 2), (1, 2)], np.ones(5))
    >>> problems.rows, problems.labels, problems.bounds
    (array([0, 1, 3, 4, 2, 3, 4]), array([ 1.,  1., -1., -1.,  1., -1., -1.]), array([0, 4, 7]))
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    starts = class_start[pairs]  # (first class's start, second's)
    lengths = class_start[pairs + 1] - starts
    bounds = np.zeros(pairs.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths.sum(axis=1), out=bounds[1:])
    segment_first = np.empty(2 * pairs.shape[0], dtype=np.int64)  # (the first variable of each class's run)
    segment_first[0::2] = bounds[:-1]
    segment_first[1::2] = bounds[:-1] + lengths[:, 0]
    rows = np.arange(bounds[-1]) + np.repeat(starts.ravel() - segment_first, lengths.ravel())
    labels = np.repeat(np.array([1.0, -1.0] * pairs.shape[0]), lengths.ravel())
    runs = np.zeros((pairs.shape[0] + 1, 4), dtype=np.int64)
    runs[:, 0] = bounds
    runs[:-1, 1] = bounds[:-1] + lengths[:, 0]
    runs[:-1, 2:] = starts
    return Problems(rows, labels, upper[rows], bounds, runs)


def against_the_rest(y_index, positives, upper):
    """The :class:`Problems` of each class of ``positives`` against all other rows (labelled
    +1 and -1), every row in order; two classes: ``positives = [1]``.

    Examples
    --------
    >>> import numpy as np
    >>> problems = against_the_rest(np.array([0, 1, 2]), [1, 2], np.ones(3))
    >>> problems.labels, problems.bounds
    (array([-1.,  1., -1., -1., -1.,  1.]), array([0, 3, 6]))
    """
    n, k = y_index.shape[0], len(positives)
    bounds = np.arange(0, (k + 1) * n, n, dtype=np.int64)
    labels = np.where(y_index == np.asarray(positives)[:, np.newaxis], 1.0, -1.0).ravel()  # (problem by problem)
    runs = np.zeros((k + 1, 4), dtype=np.int64)
    runs[:, 0] = bounds
    runs[:-1, 1] = bounds[1:]
    rows = np.arange(n)
    return Problems(rows, labels, upper, bounds, runs) if k == 1 else \
        Problems(np.tile(rows, k), labels, np.tile(upper, k), bounds, runs)


def stacked(problem_list):
    """One :class:`Problems` of several, one after another."""
    if len(problem_list) == 1:
        return problem_list[0]
    offsets = np.cumsum([0] + [problems.bounds[-1] for problems in problem_list])
    bounds = np.concatenate([problems.bounds[:-1] + offset for problems, offset in zip(problem_list, offsets)]
                            + [offsets[-1:]])
    runs = np.concatenate([problems.runs[:-1] + [offset, offset, 0, 0]
                           for problems, offset in zip(problem_list, offsets)] + [[[offsets[-1], 0, 0, 0]]])
    return Problems(*(np.concatenate([getattr(problems, name) for problems in problem_list])
                      for name in ("rows", "labels", "upper")), bounds, runs.astype(np.int64))


def c_svc_batch(problems):
    """The C-SVC duals ``Q = (y_i y_j K_ij)``, ``p = -1``, ``y'a = 0``, ``0 <= a <= U`` of
    :class:`Problems`.

    Examples
    --------
    >>> import numpy as np
    >>> batch = c_svc_batch(against_the_rest(np.array([0, 1]), [1], np.ones(2)))
    >>> batch.y, batch.p, batch.bounds
    (array([-1.,  1.]), array([-1., -1.]), array([0, 2]))
    """
    m = problems.rows.shape[0]
    return DualBatch(problems.labels, np.full(m, -1.0), problems.upper, np.zeros(m), problems.rows,
                     problems.bounds, False, None, problems.runs)


def c_svc_read(batch, solution):
    """``(alpha, b, y f(x))`` of solved C-SVC duals: one bias per problem (``-rho``) and,
    per variable, the functional margin ``y_t f(x_t) = G_t + 1 + y_t b``, read from the
    gradient ``G_t = y_t sum_s a_s y_s K_ts - 1`` without another kernel value."""
    b = -solution.rho1
    b_of_variables = b[0] if b.shape[0] == 1 else np.repeat(b, np.diff(batch.bounds))
    return solution.alpha, b, solution.grad + 1.0 + batch.y * b_of_variables


def _greedy_fill(capacities, total):
    """LIBSVM's start point: ``a_i = min(U_i, what is left of total)`` in order."""
    filled_before = np.cumsum(capacities) - capacities
    return np.clip(total - filled_before, 0.0, capacities)


def nu_svc_batch(problems, nu):
    """The nu-SVC duals in LIBSVM's scaling (``solve_nu_svc``) of :class:`Problems` (bounds:
    the sample weights): minimise ``1/2 a'Qa`` with ``Q = (y_i y_j K_ij)``, ``0 <= a_i <= w_i``,
    ``y'a = 0`` and ``e'a = nu sum(w)``, each class carrying ``nu sum(w) / 2`` (the solver's
    ``nu`` keeps both sums), started by filling each class in order."""
    alpha0 = np.zeros(problems.rows.shape[0])
    for k in range(problems.bounds.shape[0] - 1):
        part = slice(problems.bounds[k], problems.bounds[k + 1])
        weights, labels = problems.upper[part], problems.labels[part]
        half = nu * weights.sum() / 2
        for sign in (1.0, -1.0):
            members = np.flatnonzero(labels == sign) + part.start
            alpha0[members] = _greedy_fill(problems.upper[members], half)
    return DualBatch(problems.labels, np.zeros(problems.rows.shape[0]), problems.upper, alpha0, problems.rows,
                     problems.bounds, True, None, problems.runs)


def nu_svc_read(batch, solution):
    """``(alpha, b, y f(x), r)`` of solved nu-SVC duals, scaled by ``1/r`` per problem.

    With ``r = (r1 + r2) / 2`` and ``rho = (r1 - r2) / 2`` (``Solver_NU::calculate_rho``),
    LIBSVM divides the multipliers and ``rho`` by ``r``: the result is the C-SVC solution
    with ``C_i = w_i / r`` (Chang and Lin 2001). ``y f(x)`` is ``G_t / r + y_t b`` since
    ``G_t = y_t sum_s a_s y_s K_ts``. A degenerate problem (``w = 0`` at the optimum, so
    ``r = 0`` within the solver's accuracy) can give ``r <= 0``: its solution is left
    unscaled, which keeps the sign of the decision function."""
    r = (solution.rho1 + solution.rho2) / 2
    scale = np.where(r > 0, r, 1.0)
    b = -(solution.rho1 - solution.rho2) / 2 / scale
    counts = np.diff(batch.bounds)
    per_variable = np.repeat(scale, counts)
    yf = solution.grad / per_variable + batch.y * np.repeat(b, counts)
    return solution.alpha / per_variable, b, yf, r


def one_class_batch(rows, weights, nu):
    """The one-class dual in LIBSVM's scaling (``solve_one_class``): minimise ``1/2 a'Ka``
    with ``0 <= a_i <= w_i`` and ``e'a = nu sum(w)``, started by filling the samples in order."""
    m = rows.shape[0]
    return DualBatch.single(np.ones(m), np.zeros(m), weights, _greedy_fill(weights, nu * weights.sum()), rows)


def one_class_read(batch, solution):
    """``(alpha, b, f(x))`` of a solved one-class dual: ``b = -rho``, ``f(x_i) = G_i + b``."""
    b = -float(solution.rho1[0])
    return solution.alpha, b, solution.grad + b


def epsilon_svr_batch(rows, z, upper, epsilon):
    """The epsilon-SVR dual over ``(a, a*)`` (``solve_epsilon_svr``): ``2n`` variables
    sharing the kernel rows, ``y = (+1, -1)``, ``p = (epsilon - z, epsilon + z)``,
    ``0 <= a, a* <= U``, started at zero."""
    m = rows.shape[0]
    return _svr_batch(rows, np.r_[epsilon - z, epsilon + z], upper, np.zeros(2 * m), nu=False)


def nu_svr_batch(rows, z, upper, nu):
    """The nu-SVR dual over ``(a, a*)`` (``solve_nu_svr``): ``p = (-z, z)``,
    ``0 <= a, a* <= U``, ``e'(a - a*) = 0`` and ``e'(a + a*) = nu sum(U)``; ``a`` and ``a*``
    both filled in order up to ``nu sum(U) / 2``."""
    start = _greedy_fill(upper, nu * upper.sum() / 2)
    return _svr_batch(rows, np.r_[-z, z], upper, np.r_[start, start], nu=True)


def _svr_batch(rows, linear, upper, alpha0, nu):
    m = rows.shape[0]
    batch = DualBatch.single(np.r_[np.ones(m), -np.ones(m)], linear, np.r_[upper, upper], alpha0,
                             np.concatenate([rows, rows]), nu=nu)
    batch.group_rows = np.array([m])
    return batch


def svr_read(batch, solution):
    """``(a, a*, b, f(x), epsilon)`` of a solved epsilon- or nu-SVR dual.

    ``f(x_i) = sum_j (a_j - a*_j) K_ij + b`` is read from the gradient of ``a_i``:
    ``G_i = (K(a - a*))_i + p_i``. epsilon-SVR: ``b = -rho`` and ``epsilon = (p_i + p*_i) /
    2``; nu-SVR: ``b = -(r1 - r2) / 2`` and the tube's half-width ``epsilon = -(r1 + r2) / 2``
    learned (LIBSVM's ``-r``)."""
    m = batch.rows.shape[0] // 2
    r1, r2 = float(solution.rho1[0]), float(solution.rho2[0])
    if batch.nu:
        b, epsilon = -(r1 - r2) / 2, -(r1 + r2) / 2
    else:
        b, epsilon = -r1, float(batch.p[0] + batch.p[m]) / 2
    f = solution.grad[:m] - batch.p[:m] + b
    return solution.alpha[:m], solution.alpha[m:], b, f, epsilon
