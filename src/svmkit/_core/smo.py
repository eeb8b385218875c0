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
* ``SMO_STEP_LIMIT`` (1): ``max_steps`` pair updates were made first;
* ``SMO_NEED_ROW`` (2): the next step needs a kernel row that is not computed
  yet (``computed[r]`` is False); the caller fills it and calls again with the
  same state.
"""

import numpy as np

from ._jit import jit

SMO_OPTIMAL = 0
SMO_STEP_LIMIT = 1
SMO_NEED_ROW = 2

_TAU = 1e-12


@jit
def _membership(y_t, alpha_t, upper_t):
    """Whether a variable is in I_up (it may move in the direction that
    increases y_t a_t) and in I_low (the other direction). For the cold loops;
    the per-step selection writes the same tests branch-free."""
    if y_t > 0:
        return alpha_t < upper_t, alpha_t > 0
    return alpha_t > 0, alpha_t < upper_t


@jit
def violation_gap(y, alpha, grad, upper, nu_mode=False):
    """Return ``m(a) - M(a)``, the maximal violation of the KKT conditions.

    In ``nu_mode`` (two equality constraints, one per sign of ``y``) the
    larger of the two per-sign gaps.
    """
    m_up = np.full(2, -np.inf)
    m_low = np.full(2, np.inf)
    for t in range(alpha.shape[0]):
        g = 1 if (nu_mode and y[t] < 0) else 0
        v = -y[t] * grad[t]
        in_up, in_low = _membership(y[t], alpha[t], upper[t])
        if in_up and v > m_up[g]:
            m_up[g] = v
        if in_low and v < m_low[g]:
            m_low[g] = v
    return max(m_up[0] - m_low[0], m_up[1] - m_low[1])


_LANES = 8


@jit
def _argmax_last(values, n):
    """``(index, value)`` of the maximum of ``values[:n]``, the last index on ties
    (LIBSVM's ``>=``); index -1 when every value is ``-inf``.

    Eight independent running maxima: a single one is a chain of dependent
    compare-and-selects, several times slower than the loads.
    """
    acc = np.full(_LANES, -np.inf)
    idx = np.full(_LANES, -1, dtype=np.int64)
    for chunk in range(n // _LANES):
        base = chunk * _LANES
        for lane in range(_LANES):
            v = values[base + lane]
            take = v >= acc[lane]
            acc[lane] = v if take else acc[lane]
            idx[lane] = base + lane if take else idx[lane]
    best = -np.inf
    best_index = -1
    for lane in range(_LANES):
        take = (acc[lane] > best) | ((acc[lane] == best) & (idx[lane] > best_index))
        best = acc[lane] if take else best
        best_index = idx[lane] if take else best_index
    for k in range(n // _LANES * _LANES, n):
        take = values[k] >= best
        best = values[k] if take else best
        best_index = k if take else best_index
    return (best_index, best) if best > -np.inf else (-1, best)


@jit
def _side_scores(y, upper, alpha, grad, n, up_side, sign, out):
    """``out[k] = -y G`` over I_up (``up_side``) or ``y G`` over I_low, ``-inf`` elsewhere,
    for the variables with ``y == sign`` (``sign == 0``: all).

    Branch-free: ``t`` is in I_up when ``(a_t - B_t) y_t < 0`` with ``B_t = U_t``
    for ``y_t > 0`` and ``0`` otherwise, in I_low when ``(a_t - B_t) y_t > 0``
    with ``B_t = 0`` for ``y_t > 0`` and ``U_t`` otherwise.
    """
    flip = -1.0 if up_side else 1.0
    for k in range(n):
        yk = y[k]
        bound = upper[k] if (yk > 0) == up_side else 0.0
        inside = (alpha[k] - bound) * yk * flip > 0
        keep = inside & ((sign == 0.0) | (yk == sign))
        out[k] = flip * yk * grad[k] if keep else -np.inf


@jit
def _select_pair(K, rows, y, upper, alpha, grad, qd, computed, n_active, nu_mode, work):
    """Second-order working pair among the first ``n_active`` positions.

    Returns ``(i, j, gap, needed_row)``: ``j < 0`` when no pair can improve;
    ``needed_row >= 0`` when the kernel row of a chosen ``i`` must be computed
    first. In ``nu_mode`` the pair is chosen within one sign of ``y`` (LIBSVM's
    ``Solver_NU``) and the gap is the larger per-sign gap. Every pass is a
    branch-free map into a scratch row of ``work`` (shape ``(2, m)``) followed by
    a maximum: a branch per element would be mispredicted half of the time.
    """
    n = n_active
    scores = work[0]
    signs = (1.0, -1.0) if nu_mode else (0.0, 0.0)
    # i: the largest -y G over I_up (per sign in nu mode), the smallest -y G over I_low
    i_of = np.full(2, -1, dtype=np.int64)
    g_max = np.full(2, -np.inf)
    g_min = np.full(2, -np.inf)
    for group in range(2 if nu_mode else 1):
        _side_scores(y, upper, alpha, grad, n, True, signs[group], scores)
        i_of[group], g_max[group] = _argmax_last(scores, n)
        _side_scores(y, upper, alpha, grad, n, False, signs[group], scores)
        g_min[group] = _argmax_last(scores, n)[1]
        if i_of[group] >= 0 and not computed[rows[i_of[group]]]:
            return i_of[group], -1, np.inf, rows[i_of[group]]
    gap = max(g_max[0] + g_min[0], g_max[1] + g_min[1])
    # j: the largest decrease (g_max + y_j G_j)^2 / quad over I_low (of the sign of i)
    row0 = rows[i_of[0]] if i_of[0] >= 0 else rows[max(i_of[1], 0)]
    row1 = rows[i_of[1]] if i_of[1] >= 0 else row0
    qd0 = qd[i_of[0]] if i_of[0] >= 0 else 0.0
    qd1 = qd[i_of[1]] if i_of[1] >= 0 else 0.0
    decrease = work[1]
    for k in range(n):
        yk = y[k]
        in_low = (alpha[k] - (0.0 if yk > 0 else upper[k])) * yk > 0
        second = nu_mode & (yk < 0)
        grad_diff = (g_max[1] if second else g_max[0]) + yk * grad[k]
        quad = (qd1 if second else qd0) + qd[k] - 2.0 * K[row1 if second else row0, rows[k]]
        quad = quad if quad > 0 else _TAU
        decrease[k] = grad_diff * grad_diff / quad if (in_low & (grad_diff > 0)) else -np.inf
    j, _ = _argmax_last(decrease, n)
    i = i_of[1] if (j >= 0 and nu_mode and y[j] < 0) else i_of[0]
    return i, j, gap, -1


@jit
def _missing_support_row(rows, alpha, computed, n_active):
    """A row of a support vector that is not computed, or -1: needed before a
    gradient rebuild (variables that start above 0 may never have moved)."""
    if n_active == alpha.shape[0]:
        return -1
    for k in range(alpha.shape[0]):
        if alpha[k] > 0 and not computed[rows[k]]:
            return rows[k]
    return -1


@jit
def _reconstruct_gradient(K, rows, y, p, alpha, grad, n_active):
    """Recompute ``G_t = p_t + sum_s Q_ts a_s`` at the inactive positions ``n_active..m-1``."""
    m = alpha.shape[0]
    if n_active == m:
        return
    total = np.zeros(m - n_active)
    for s in np.flatnonzero(alpha > 0):  # rows of support vectors are computed (see _missing_support_row)
        row = K[rows[s]]
        weight = y[s] * alpha[s]
        for k in range(n_active, m):  # along the row, not down a column
            total[k - n_active] += weight * row[rows[k]]
    for k in range(n_active, m):
        grad[k] = p[k] + y[k] * total[k - n_active]


@jit
def _shrink(rows, y, upper, p, qd, alpha, grad, order, n_active, nu_mode):
    """Move bounded variables that cannot enter a violating pair behind the active ones.

    A variable only in I_up is dropped when ``-y G < M`` of its group, one only
    in I_low when ``-y G > m`` (LIBSVM's ``be_shrunk``). The partition is stable
    and moves every per-variable array (and ``order``) together, so that the
    hot loops read contiguous memory. Returns the new active size and the gap.
    """
    m_up = np.full(2, -np.inf)
    m_low = np.full(2, np.inf)
    for k in range(n_active):
        g = 1 if (nu_mode and y[k] < 0) else 0
        v = -y[k] * grad[k]
        in_up, in_low = _membership(y[k], alpha[k], upper[k])
        if in_up and v > m_up[g]:
            m_up[g] = v
        if in_low and v < m_low[g]:
            m_low[g] = v
    gap = max(m_up[0] - m_low[0], m_up[1] - m_low[1])
    kept = np.empty(n_active, dtype=np.int64)
    dropped = np.empty(n_active, dtype=np.int64)
    n_kept = 0
    n_dropped = 0
    for k in range(n_active):
        g = 1 if (nu_mode and y[k] < 0) else 0
        v = -y[k] * grad[k]
        in_up, in_low = _membership(y[k], alpha[k], upper[k])
        drop = (in_up and not in_low and v < m_low[g]) or (in_low and not in_up and v > m_up[g])
        if drop or (not in_up and not in_low):
            dropped[n_dropped] = k
            n_dropped += 1
        else:
            kept[n_kept] = k
            n_kept += 1
    if n_dropped:
        moved = np.concatenate((kept[:n_kept], dropped[:n_dropped]))
        rows[:n_active] = rows[moved]
        y[:n_active] = y[moved]
        upper[:n_active] = upper[moved]
        p[:n_active] = p[moved]
        qd[:n_active] = qd[moved]
        alpha[:n_active] = alpha[moved]
        grad[:n_active] = grad[moved]
        order[:n_active] = order[moved]
    return n_kept, gap


@jit
def _unshrink(rows, y, upper, p, qd, alpha, grad, order):
    """Make every variable active again, back in its original position
    (``order`` becomes the identity), as the selection order was before the
    first shrink: ties between equal candidates are broken the same way."""
    for values in (y, upper, p, qd, alpha, grad):
        original = np.empty_like(values)
        original[order] = values
        values[:] = original
    original_rows = np.empty_like(rows)
    original_rows[order] = rows
    rows[:] = original_rows
    order[:] = np.arange(order.shape[0])


@jit
def smo(K, rows, y, upper, p, qd, alpha, grad, computed, order, state, tol, max_steps, nu_mode, shrinking):
    """Run SMO until the gap is below ``tol``, ``max_steps`` updates were made,
    or a kernel row that is not computed yet is needed.

    Parameters
    ----------
    K : 2-D float array
        Kernel matrix; the variable at position ``k`` uses row/column ``rows[k]``.
        Only the rows ``r`` with ``computed[r]`` are read.
    rows : int64 array of shape (m,), permuted in place
    y : float64 array of +1/-1, shape (m,), permuted in place
    upper : float64 array, shape (m,); may hold ``inf`` (hard margin); permuted in place
    p : float64 array, shape (m,), permuted in place
        Linear term (used to rebuild the gradient after shrinking).
    qd : float64 array, shape (m,), permuted in place
        ``K[rows[k], rows[k]]``.
    alpha, grad : float64 arrays, shape (m,), updated and permuted in place
    computed : bool array, one per row of ``K``
    order : int64 array, shape (m,)
        ``order[k]`` is the variable held at position ``k``. Every per-variable
        array is indexed by position: shrinking permutes them all together so
        that the active variables are the first ``state[0]`` positions and the
        hot loops read contiguous memory (LIBSVM's ``swap_index``); when all
        variables become active again the original order is restored. Start
        with ``arange(m)``; scatter back with ``out[order] = alpha``.
    state : int64 array ``[n_active, countdown, unshrunk]``
        Shrinking state kept between calls. Start with ``[m, min(m, 1000), 0]``.
    tol : float
    max_steps : int
    nu_mode : bool
        Keep ``sum a_t`` fixed within each sign of ``y`` as well (nu-SVC,
        nu-SVR): pairs are chosen within one sign (LIBSVM's ``Solver_NU``).
    shrinking : bool
        Every ``min(m, 1000)`` steps set aside bounded variables that cannot
        move (LIBSVM's shrinking); the gradient is rebuilt before returning
        ``SMO_OPTIMAL`` or ``SMO_STEP_LIMIT``.

    Returns
    -------
    steps : int
    status : int
    gap : float
    needed_row : int
        The row to compute when ``status == SMO_NEED_ROW``, else -1.
    """
    m = alpha.shape[0]
    n_active = state[0]
    period = min(m, 1000)
    steps = 0
    work = np.empty((2, m))
    while True:
        if shrinking:
            state[1] -= 1
            if state[1] <= 0:
                missing = _missing_support_row(rows, alpha, computed, n_active)
                if missing >= 0:
                    return steps, SMO_NEED_ROW, np.inf, missing
                state[1] = period
                n_active, gap = _shrink(rows, y, upper, p, qd, alpha, grad, order, n_active, nu_mode)
                missing = _missing_support_row(rows, alpha, computed, n_active)
                if state[2] == 0 and gap <= 10 * tol and missing >= 0:
                    state[0] = n_active
                    return steps, SMO_NEED_ROW, gap, missing
                if state[2] == 0 and gap <= 10 * tol:
                    state[2] = 1
                    _reconstruct_gradient(K, rows, y, p, alpha, grad, n_active)
                    _unshrink(rows, y, upper, p, qd, alpha, grad, order)
                    n_active = m
        state[0] = n_active
        i, j, gap, needed = _select_pair(K, rows, y, upper, alpha, grad, qd, computed, n_active, nu_mode, work)
        if needed >= 0:
            return steps, SMO_NEED_ROW, gap, needed
        done = gap < tol or j < 0
        if (done or steps >= max_steps) and n_active < m:
            missing = _missing_support_row(rows, alpha, computed, n_active)
            if missing >= 0:
                return steps, SMO_NEED_ROW, gap, missing
        if done and n_active < m:
            # optimal on the active set: rebuild the gradient and check all variables
            _reconstruct_gradient(K, rows, y, p, alpha, grad, n_active)
            _unshrink(rows, y, upper, p, qd, alpha, grad, order)
            n_active = m
            state[0] = m
            state[1] = period
            continue
        if done:
            return steps, SMO_OPTIMAL, gap, -1
        if not computed[rows[j]]:
            return steps, SMO_NEED_ROW, gap, rows[j]
        if steps >= max_steps:
            _reconstruct_gradient(K, rows, y, p, alpha, grad, n_active)
            _unshrink(rows, y, upper, p, qd, alpha, grad, order)
            state[0] = m
            return steps, SMO_STEP_LIMIT, gap, -1
        steps += 1
        _update_pair(K, rows, y, upper, qd, alpha, grad, i, j, n_active, work)


@jit
def _update_pair(K, rows, y, upper, qd, alpha, grad, i, j, n_active, work):
    """LIBSVM's two-variable update of ``alpha[i], alpha[j]`` (clipped to the
    box) and of the gradient at the active positions."""
    ri = rows[i]
    rj = rows[j]
    old_i = alpha[i]
    old_j = alpha[j]
    ui = upper[i]
    uj = upper[j]
    quad = qd[i] + qd[j] - 2.0 * K[ri, rj]
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
    # G_t += Q_ti (ai - old_i) + Q_tj (aj - old_j), Q_ts = y_t y_s K, on the active set
    ci = y[i] * (ai - old_i)
    cj = y[j] * (aj - old_j)
    # gathered first, so that the update itself runs on contiguous memory
    row_i = work[0]
    row_j = work[1]
    for k in range(n_active):
        row_i[k] = K[ri, rows[k]]
        row_j[k] = K[rj, rows[k]]
    for k in range(n_active):
        grad[k] += y[k] * (ci * row_i[k] + cj * row_j[k])


@jit
def rows_to_prefetch(needed, rows, y, upper, alpha, grad, computed, n_rows):
    """Row ``needed`` and the rows of the strongest violators whose kernel rows
    are not computed yet: at most ``n_rows`` distinct rows, ascending.

    A variable's score is ``-y G`` when it is in I_up and ``y G`` when it is in
    I_low (the larger of the two): the variables that SMO picks next.
    """
    m = alpha.shape[0]
    score = np.full(m, -np.inf)
    for t in range(m):
        if computed[rows[t]]:
            continue
        in_up, in_low = _membership(y[t], alpha[t], upper[t])
        v = -y[t] * grad[t]
        if in_up:
            score[t] = v
        if in_low and -v > score[t]:
            score[t] = -v
    picked = np.zeros(computed.shape[0], dtype=np.bool_)
    picked[needed] = True
    room = n_rows - 1
    if room > 0:
        threshold = -np.inf
        if room < m:
            threshold = -np.partition(-score, room - 1)[room - 1]
        for t in range(m):
            if room == 0:
                break
            if score[t] > -np.inf and score[t] >= threshold and not picked[rows[t]]:
                picked[rows[t]] = True
                room -= 1
    return np.flatnonzero(picked)
