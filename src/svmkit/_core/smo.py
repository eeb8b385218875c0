"""Sequential minimal optimisation on a (sub-)problem held in memory.

The dual problem is

    minimise 1/2 a'Qa + p'a   subject to  y'a = const,  0 <= a_t <= U_t,

with ``Q_ts = y_t y_s K[r_t, r_s]``: variable ``t`` belongs to row ``r_t`` of the
kernel matrix ``K`` (several variables may share a row, as in epsilon-SVR).
Working pairs are chosen by second-order selection (Fan, Chen and Lin, JMLR
2005) and updated as in LIBSVM's ``Solver::Solve``. The gradient ``G = Qa + p``
is kept up to date in place.

Status codes returned to the Python layer:

* ``SMO_OPTIMAL`` (0): the maximal violating pair gap fell below ``tol``;
* ``SMO_STEP_LIMIT`` (1): ``max_steps`` pair updates were made first.
"""

import numpy as np
from numba import prange

from ._jit import jit, parallel_jit

SMO_OPTIMAL = 0
SMO_STEP_LIMIT = 1

_TAU = 1e-12


@jit
def _in_up(y, alpha, upper, t):
    return (y[t] > 0 and alpha[t] < upper[t]) or (y[t] < 0 and alpha[t] > 0)


@jit
def _in_low(y, alpha, upper, t):
    return (y[t] < 0 and alpha[t] < upper[t]) or (y[t] > 0 and alpha[t] > 0)


@jit
def violation_gap(y, alpha, grad, upper, nu_mode=False):
    """Return ``m(a) - M(a)``, the maximal violation of the KKT conditions.

    In ``nu_mode`` (two equality constraints, one per sign of ``y``) the
    larger of the two per-sign gaps.
    """
    worst = -np.inf
    signs = np.array([1.0, -1.0]) if nu_mode else np.array([0.0])
    for sign in signs:
        m_up = -np.inf
        m_low = np.inf
        for t in range(alpha.shape[0]):
            if sign != 0.0 and y[t] != sign:
                continue
            v = -y[t] * grad[t]
            if _in_up(y, alpha, upper, t) and v > m_up:
                m_up = v
            if _in_low(y, alpha, upper, t) and v < m_low:
                m_low = v
        worst = max(worst, m_up - m_low)
    return worst


@jit
def _select_pair(K, rows, y, upper, alpha, grad, qd, sign):
    """Second-order working pair among the variables of sign ``sign`` (0: all).

    Returns ``(i, j, gap, obj_diff)``; ``j < 0`` when no pair can improve.
    """
    m = alpha.shape[0]
    g_max = -np.inf
    i = -1
    for t in range(m):
        if sign != 0.0 and y[t] != sign:
            continue
        if _in_up(y, alpha, upper, t) and -y[t] * grad[t] >= g_max:
            g_max = -y[t] * grad[t]
            i = t
    g_max2 = -np.inf
    j = -1
    obj_diff_min = np.inf
    ri = rows[i] if i >= 0 else 0
    for t in range(m):
        if (sign != 0.0 and y[t] != sign) or not _in_low(y, alpha, upper, t):
            continue
        yg = y[t] * grad[t]
        if yg >= g_max2:
            g_max2 = yg
        grad_diff = g_max + yg
        if i >= 0 and grad_diff > 0:
            quad = qd[i] + qd[t] - 2.0 * K[ri, rows[t]]
            if quad <= 0:
                quad = _TAU
            obj_diff = -(grad_diff * grad_diff) / quad
            if obj_diff <= obj_diff_min:
                obj_diff_min = obj_diff
                j = t
    return i, j, g_max + g_max2, obj_diff_min


@jit
def smo(K, rows, y, upper, alpha, grad, tol, max_steps, nu_mode=False):
    """Run SMO until the gap is below ``tol`` or ``max_steps`` updates were made.

    Parameters
    ----------
    K : 2-D float array
        Kernel matrix; variable ``t`` uses row/column ``rows[t]``.
    rows : int64 array of shape (m,)
    y : float64 array of +1/-1, shape (m,)
    upper : float64 array, shape (m,); may hold ``inf`` (hard margin)
    alpha, grad : float64 arrays, shape (m,), updated in place
    tol : float
    max_steps : int
    nu_mode : bool
        Keep ``sum a_t`` fixed within each sign of ``y`` as well (nu-SVC,
        nu-SVR): pairs are chosen within one sign (LIBSVM's ``Solver_NU``).

    Returns
    -------
    steps : int
    status : int
    gap : float
    """
    m = alpha.shape[0]
    qd = np.empty(m)
    for t in range(m):
        qd[t] = K[rows[t], rows[t]]
    steps = 0
    while True:
        if nu_mode:
            i, j, gap, obj = _select_pair(K, rows, y, upper, alpha, grad, qd, 1.0)
            i2, j2, gap2, obj2 = _select_pair(K, rows, y, upper, alpha, grad, qd, -1.0)
            if j < 0 or (j2 >= 0 and obj2 < obj):
                i, j = i2, j2
            gap = max(gap, gap2)
        else:
            i, j, gap, obj = _select_pair(K, rows, y, upper, alpha, grad, qd, 0.0)
        if gap < tol or j < 0:
            return steps, SMO_OPTIMAL, gap
        if steps >= max_steps:
            return steps, SMO_STEP_LIMIT, gap
        steps += 1

        ri = rows[i]
        rj = rows[j]
        k_ij = K[ri, rj]
        old_i = alpha[i]
        old_j = alpha[j]
        ui = upper[i]
        uj = upper[j]
        quad = qd[i] + qd[j] - 2.0 * k_ij
        if quad <= 0:
            quad = _TAU
        if y[i] != y[j]:
            delta = (-grad[i] - grad[j]) / quad
            diff = old_i - old_j
            ai = old_i + delta
            aj = old_j + delta
            if diff > 0:
                if aj < 0:
                    aj = 0.0
                    ai = diff
            elif ai < 0:
                ai = 0.0
                aj = -diff
            if diff > ui - uj:
                if ai > ui:
                    ai = ui
                    aj = ui - diff
            elif aj > uj:
                aj = uj
                ai = uj + diff
        else:
            delta = (grad[i] - grad[j]) / quad
            total = old_i + old_j
            ai = old_i - delta
            aj = old_j + delta
            if total > ui:
                if ai > ui:
                    ai = ui
                    aj = total - ui
            elif aj < 0:
                aj = 0.0
                ai = total
            if total > uj:
                if aj > uj:
                    aj = uj
                    ai = total - uj
            elif ai < 0:
                ai = 0.0
                aj = total
        alpha[i] = ai
        alpha[j] = aj
        # G_t += Q_ti (ai - old_i) + Q_tj (aj - old_j), Q_ts = y_t y_s K
        ci = y[i] * (ai - old_i)
        cj = y[j] * (aj - old_j)
        for t in range(m):
            rt = rows[t]
            grad[t] += y[t] * (ci * K[ri, rt] + cj * K[rj, rt])


@parallel_jit
def add_weighted_rows(buffer, slots, weights, out):
    """``out += sum_k weights[k] * buffer[slots[k], :]`` in float64, split over threads."""
    n = out.shape[0]
    n_chunks = (n + 2047) // 2048
    for c in prange(n_chunks):
        start = c * 2048
        stop = min(start + 2048, n)
        for k in range(slots.shape[0]):
            w = weights[k]
            row = buffer[slots[k]]
            for t in range(start, stop):
                out[t] += w * row[t]
