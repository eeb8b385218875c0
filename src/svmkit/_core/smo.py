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
  yet (``slot[r] < 0``); the caller fills it and calls again with the same
  state.

Kernel rows are stored in the order they are computed: row ``r`` of the kernel
matrix is ``K[slot[r]]`` (its columns in data order), so the memory touched is
that of the rows computed, in one contiguous stretch.
"""

import numpy as np

from ._jit import jit
from .row_cache import add_weighted_rows_serial

SMO_OPTIMAL = 0
SMO_STEP_LIMIT = 1
SMO_NEED_ROW = 2

_TAU = 1e-12


@jit
def membership(y_t, alpha_t, upper_t):
    """Whether a variable is in I_up (it may move in the direction that
    increases y_t a_t) and in I_low (the other direction). For the cold loops
    only: in the per-step selection the tests are written out, since numba
    does not inline there and a call per element costs a factor of ten."""
    if y_t > 0:
        return alpha_t < upper_t, alpha_t > 0
    return alpha_t > 0, alpha_t < upper_t


@jit
def violation_extremes(y, upper, alpha, grad, variables, nu_mode):
    """``m(a)`` (largest ``-y G`` over I_up) and ``M(a)`` (smallest over I_low) of
    the given variables, per sign of ``y`` in nu mode (else at index 0), and the
    gap ``m(a) - M(a)`` (nu mode: the larger of the per-sign gaps)."""
    up_0, up_1, low_0, low_1 = -np.inf, -np.inf, np.inf, np.inf
    for t in variables:
        # (the tests of membership written out with no branches: with the variables' sides in no
        # order, mispredicted branches took 230 us instead of 40 us for 32,561 variables)
        v = -y[t] * grad[t]
        positive = y[t] > 0
        below, above = alpha[t] < upper[t], alpha[t] > 0
        v_up = v if (positive & below) | ((not positive) & above) else -np.inf
        v_low = v if (positive & above) | ((not positive) & below) else np.inf
        second = nu_mode & (not positive)
        up_0 = max(up_0, -np.inf if second else v_up)
        low_0 = min(low_0, np.inf if second else v_low)
        up_1 = max(up_1, v_up if second else -np.inf)
        low_1 = min(low_1, v_low if second else np.inf)
    m_up, m_low = np.array([up_0, up_1]), np.array([low_0, low_1])
    return m_up, m_low, max(up_0 - low_0, up_1 - low_1)


@jit
def violation_gap(y, alpha, grad, upper, nu_mode=False):
    """Return ``m(a) - M(a)``, the maximal violation of the KKT conditions.

    In ``nu_mode`` (two equality constraints, one per sign of ``y``) the
    larger of the two per-sign gaps.
    """
    return violation_extremes(y, upper, alpha, grad, range(alpha.shape[0]), nu_mode)[2]


@jit
def _select_pair(K, rows, y, upper, alpha, grad, qd, slot, active, n_active):
    """Second-order working pair among the active variables (Fan, Chen and Lin 2005).

    Returns ``(i, j, gap, needed_row)``: ``j < 0`` when no pair can improve;
    ``needed_row >= 0`` when the kernel row of ``i`` must be computed first.
    (Membership tests are written out in the loops: numba does not inline
    small helper functions there, which costs a factor of ten.)
    """
    g_max = -np.inf
    i = -1
    for k in range(n_active):
        t = active[k]
        if y[t] > 0:
            if alpha[t] < upper[t] and -grad[t] >= g_max:
                g_max = -grad[t]
                i = t
        elif alpha[t] > 0 and grad[t] >= g_max:
            g_max = grad[t]
            i = t
    g_max2 = -np.inf
    j = -1
    obj_diff_min = np.inf
    ri = rows[i] if i >= 0 else 0
    if i >= 0 and slot[ri] < 0:
        return i, -1, np.inf, ri
    row_i = K[slot[ri] if i >= 0 else 0]
    for k in range(n_active):
        t = active[k]
        if y[t] > 0:
            if alpha[t] <= 0:
                continue
        elif alpha[t] >= upper[t]:
            continue
        yg = y[t] * grad[t]
        if yg >= g_max2:
            g_max2 = yg
        grad_diff = g_max + yg
        if i >= 0 and grad_diff > 0:
            quad = qd[i] + qd[t] - 2.0 * row_i[rows[t]]
            if quad <= 0:
                quad = _TAU
            obj_diff = -(grad_diff * grad_diff) / quad
            if obj_diff <= obj_diff_min:
                obj_diff_min = obj_diff
                j = t
    return i, j, g_max + g_max2, -1


@jit
def _select_pair_nu(K, rows, y, upper, alpha, grad, qd, slot, active, n_active):
    """Second-order working pair within one sign of ``y`` (LIBSVM's
    ``Solver_NU::select_working_set``): both signs in the same two passes.

    Returns ``(i, j, gap, needed_row)``: ``j < 0`` when no pair can improve;
    ``needed_row >= 0`` when the kernel row of a candidate ``i`` must be
    computed first; ``gap`` is the larger of the two per-sign gaps.
    """
    g_max_pos = -np.inf
    g_max_neg = -np.inf
    i_pos = -1
    i_neg = -1
    for k in range(n_active):
        t = active[k]
        if y[t] > 0:
            if alpha[t] < upper[t] and -grad[t] >= g_max_pos:
                g_max_pos = -grad[t]
                i_pos = t
        elif alpha[t] > 0 and grad[t] >= g_max_neg:
            g_max_neg = grad[t]
            i_neg = t
    if i_pos >= 0 and slot[rows[i_pos]] < 0:
        return i_pos, -1, np.inf, rows[i_pos]
    if i_neg >= 0 and slot[rows[i_neg]] < 0:
        return i_neg, -1, np.inf, rows[i_neg]
    row_pos = K[slot[rows[i_pos]] if i_pos >= 0 else 0]
    row_neg = K[slot[rows[i_neg]] if i_neg >= 0 else 0]
    g_max2_pos = -np.inf
    g_max2_neg = -np.inf
    j = -1
    obj_diff_min = np.inf
    for k in range(n_active):
        t = active[k]
        if y[t] > 0:
            if alpha[t] <= 0:
                continue
            yg = grad[t]
            if yg >= g_max2_pos:
                g_max2_pos = yg
            grad_diff = g_max_pos + yg
            if i_pos < 0 or grad_diff <= 0:
                continue
            quad = qd[i_pos] + qd[t] - 2.0 * row_pos[rows[t]]
        else:
            if alpha[t] >= upper[t]:
                continue
            yg = -grad[t]
            if yg >= g_max2_neg:
                g_max2_neg = yg
            grad_diff = g_max_neg + yg
            if i_neg < 0 or grad_diff <= 0:
                continue
            quad = qd[i_neg] + qd[t] - 2.0 * row_neg[rows[t]]
        if quad <= 0:
            quad = _TAU
        obj_diff = -(grad_diff * grad_diff) / quad
        if obj_diff <= obj_diff_min:
            obj_diff_min = obj_diff
            j = t
    gap = max(g_max_pos + g_max2_pos, g_max_neg + g_max2_neg)
    i = i_pos if (j >= 0 and y[j] > 0) else i_neg
    return i, j, gap, -1


@jit
def _sync_inactive_gradient(K, slot, rows, y, alpha, alpha_synced, grad, active, n_active):
    """Bring the gradients of the inactive variables ``active[n_active:]`` up to date.

    They are exact for ``alpha_synced``, and since then only active variables
    moved, each with its kernel row computed (it was in a working pair): so
    ``G_t += y_t sum_s y_s (a_s - a_synced_s) K[r_s, r_t]`` over the moved ones,
    whole rows at a time (contiguous SIMD passes, four rows at once). LIBSVM
    rebuilds from all free support vectors instead, keeping those at the upper
    bound in ``G_bar``; svmguide1, linear: 96 or fewer moved rows instead of
    489 support vectors, 1.2 ms each time on this machine.
    """
    candidates = active[:n_active]
    moved = candidates[alpha[candidates] != alpha_synced[candidates]]
    if n_active < alpha.shape[0] and moved.shape[0] > 0:
        column_sum = np.zeros(K.shape[1])
        change = y[moved] * (alpha[moved] - alpha_synced[moved])
        add_weighted_rows_serial(K, slot[rows[moved]], change, column_sum)
        for t in active[n_active:]:
            grad[t] += y[t] * column_sum[rows[t]]
    alpha_synced[moved] = alpha[moved]


@jit
def _shrink(y, upper, alpha, grad, active, n_active, nu_mode, m_up, m_low):
    """Move bounded variables that cannot enter a violating pair behind the active
    ones and return the new active size.

    A variable only in I_up is dropped when ``-y G < M`` of its group, one only
    in I_low when ``-y G > m`` (LIBSVM's ``be_shrunk``, with the extremes
    ``m_up``, ``m_low`` of :func:`violation_extremes`).
    """
    # stable partition: kept variables stay in ascending order for sequential row access
    dropped = np.empty(n_active, dtype=active.dtype)
    n_kept = 0
    n_dropped = 0
    for k in range(n_active):
        t = active[k]
        g = 1 if (nu_mode and y[t] < 0) else 0
        v = -y[t] * grad[t]
        in_up, in_low = membership(y[t], alpha[t], upper[t])
        if can_be_shrunk(in_up, in_low, v, m_up[g], m_low[g]):
            dropped[n_dropped] = t
            n_dropped += 1
        else:
            active[n_kept] = t
            n_kept += 1
    active[n_kept:n_active] = dropped[:n_dropped]
    return n_kept


@jit
def pair_update(opposite_signs, grad_i, grad_j, old_i, old_j, upper_i, upper_j, quad):
    """The new ``(a_i, a_j)`` of one SMO step (LIBSVM's ``Solver::Solve``): the
    unconstrained minimiser along the pair's feasible line, clipped to the box.
    ``quad = K_ii + K_jj - 2 K_ij`` (replaced by a tiny positive value when not positive)."""
    if quad <= 0:
        quad = _TAU
    ai = old_i
    aj = old_j
    if opposite_signs:
        delta = (-grad_i - grad_j) / quad
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
        if diff > upper_i - upper_j:
            if ai > upper_i:
                ai = upper_i
                aj = upper_i - diff
        elif aj > upper_j:
            aj = upper_j
            ai = upper_j + diff
        return ai, aj
    delta = (grad_i - grad_j) / quad
    total = old_i + old_j
    ai = old_i - delta
    aj = old_j + delta
    if total > upper_i:
        if ai > upper_i:
            ai = upper_i
            aj = total - upper_i
    elif aj < 0:
        aj = 0.0
        ai = total
    if total > upper_j:
        if aj > upper_j:
            aj = upper_j
            ai = total - upper_j
    elif ai < 0:
        ai = 0.0
        aj = total
    return ai, aj


@jit
def can_be_shrunk(in_up, in_low, v, m_up, m_low):
    """LIBSVM's ``be_shrunk``: a variable with ``-y G = v`` that cannot enter a
    violating pair of its group (``m_up``, ``m_low``: the group's extremes)."""
    if not (in_up or in_low):
        return True
    return (in_up and not in_low and v < m_low) or (in_low and not in_up and v > m_up)


@jit
def kept_by_shrinking(y, upper, alpha, grad, nu_mode):
    """Mask of the variables that LIBSVM's shrinking would keep (:func:`can_be_shrunk` false,
    with the extremes of all the given variables)."""
    m_up, m_low, _ = violation_extremes(y, upper, alpha, grad, np.arange(y.shape[0]), nu_mode)
    kept = np.empty(y.shape[0], dtype=np.bool_)
    for t in range(y.shape[0]):
        g = 1 if (nu_mode and y[t] < 0) else 0
        in_up, in_low = membership(y[t], alpha[t], upper[t])
        kept[t] = not can_be_shrunk(in_up, in_low, -y[t] * grad[t], m_up[g], m_low[g])
    return kept


@jit
def smo(K, slot, rows, y, upper, alpha_synced, qd, alpha, grad, active, state, tol, max_steps, nu_mode, shrinking):
    """Run SMO until the gap is below ``tol``, ``max_steps`` updates were made,
    or a kernel row that is not computed yet is needed.

    Parameters
    ----------
    K : 2-D float array
        Computed kernel rows: row ``r`` of the kernel matrix is ``K[slot[r]]``.
    slot : int64 array, one per kernel row
        Where each row is stored in ``K``; -1: not computed yet.
    rows : int64 array of shape (m,)
        Variable ``t`` uses kernel row and column ``rows[t]``.
    y : float64 array of +1/-1, shape (m,)
    upper : float64 array, shape (m,); may hold ``inf`` (hard margin)
    alpha_synced : float64 array, shape (m,), updated in place
        The multipliers for which the gradients of the inactive variables are
        exact (they are brought up to date when variables are shrunk or come
        back). Start with a copy of ``alpha``.
    qd : float64 array, shape (m,)
        ``K[rows[t], rows[t]]``.
    alpha, grad : float64 arrays, shape (m,), updated in place
    active : int64 array, shape (m,)
        Variable order; the first ``state[0]`` are active. Start with ``arange(m)``.
    state : int64 array ``[n_active, countdown, unshrunk]``
        Shrinking state kept between calls. Start with ``[m, min(m, 1000), 0]``.
    tol : float
    max_steps : int
    nu_mode : bool
        Keep ``sum a_t`` fixed within each sign of ``y`` as well (nu-SVC,
        nu-SVR): pairs are chosen within one sign (LIBSVM's ``Solver_NU``).
    shrinking : bool
        Every ``min(m, 1000)`` steps set aside bounded variables that cannot
        move (LIBSVM's shrinking); the whole gradient is up to date again before
        ``SMO_OPTIMAL`` or ``SMO_STEP_LIMIT`` is returned.

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
    while True:
        if shrinking:
            state[1] -= 1
            if state[1] <= 0:
                # LIBSVM's do_shrinking: the first time the gap is within 10 tol, all
                # variables come back (their gradients brought up to date) before shrinking again
                m_up, m_low, gap = violation_extremes(y, upper, alpha, grad, active[:n_active], nu_mode)
                # the variables set aside keep gradients exact for one ``alpha_synced``: the
                # earlier ones are brought up to date before more join them
                _sync_inactive_gradient(K, slot, rows, y, alpha, alpha_synced, grad, active, n_active)
                if state[2] == 0 and gap <= 10 * tol:
                    state[2] = 1
                    active[:] = np.arange(m)
                    n_active = m
                state[1] = period
                n_active = _shrink(y, upper, alpha, grad, active, n_active, nu_mode, m_up, m_low)
        state[0] = n_active
        if nu_mode:
            i, j, gap, needed = _select_pair_nu(K, rows, y, upper, alpha, grad, qd, slot, active, n_active)
        else:
            i, j, gap, needed = _select_pair(K, rows, y, upper, alpha, grad, qd, slot, active, n_active)
        if needed >= 0:
            return steps, SMO_NEED_ROW, gap, needed
        done = gap < tol or j < 0
        if done and n_active < m:
            # optimal on the active set: update the other gradients and check all variables; if
            # they are not optimal, take that step and shrink at the next (LIBSVM's
            # ``counter = 1``; the countdown is decremented once more before the check)
            _sync_inactive_gradient(K, slot, rows, y, alpha, alpha_synced, grad, active, n_active)
            active[:] = np.arange(m)
            n_active = m
            state[0] = m
            state[1] = 2
            continue
        if done:
            return steps, SMO_OPTIMAL, gap, -1
        if slot[rows[j]] < 0:
            return steps, SMO_NEED_ROW, gap, rows[j]
        if steps >= max_steps:
            _sync_inactive_gradient(K, slot, rows, y, alpha, alpha_synced, grad, active, n_active)
            active[:] = np.arange(m)
            state[0] = m
            return steps, SMO_STEP_LIMIT, gap, -1
        steps += 1

        row_i = K[slot[rows[i]]]
        row_j = K[slot[rows[j]]]
        k_ij = row_i[rows[j]]
        old_i = alpha[i]
        old_j = alpha[j]
        ui = upper[i]
        uj = upper[j]
        ai, aj = pair_update(y[i] != y[j], grad[i], grad[j], old_i, old_j, ui, uj, qd[i] + qd[j] - 2.0 * k_ij)
        alpha[i] = ai
        alpha[j] = aj
        # G_t += Q_ti (ai - old_i) + Q_tj (aj - old_j), Q_ts = y_t y_s K, on the active set
        ci = y[i] * (ai - old_i)
        cj = y[j] * (aj - old_j)
        for k in range(n_active):
            t = active[k]
            rt = rows[t]
            grad[t] += y[t] * (ci * row_i[rt] + cj * row_j[rt])


@jit
def rows_to_prefetch(needed, rows, y, upper, alpha, grad, slot, n_rows):
    """Row ``needed`` and the rows of the strongest violators whose kernel rows
    are not computed yet: at most ``n_rows`` distinct rows, ascending.

    A variable's score is ``-y G`` when it is in I_up and ``y G`` when it is in
    I_low (the larger of the two): the variables that SMO picks next. The best
    ``n_rows - 1`` are kept in a small array while scanning (no sort).
    """
    room = n_rows - 1
    top_score = np.empty(max(room, 1))
    top_row = np.empty(max(room, 1), dtype=np.int64)
    count = 0
    weakest = 0  # position of the smallest kept score once the array is full
    for t in range(alpha.shape[0]):
        r = rows[t]
        if slot[r] >= 0 or r == needed:
            continue
        in_up, in_low = membership(y[t], alpha[t], upper[t])
        v = -y[t] * grad[t]
        score = -np.inf
        if in_up:
            score = v
        if in_low and -v > score:
            score = -v
        if score == -np.inf:
            continue
        if count < room:
            top_score[count] = score
            top_row[count] = r
            count += 1
            if count == room:
                weakest = np.argmin(top_score[:count])
        elif room > 0 and score > top_score[weakest]:
            top_score[weakest] = score
            top_row[weakest] = r
            weakest = np.argmin(top_score[:count])
    picked = np.zeros(slot.shape[0], dtype=np.bool_)
    picked[needed] = True
    picked[top_row[:count]] = True
    return np.flatnonzero(picked)


@jit
def c_svc_biases_and_margins(bounds, y, alpha, grad, upper):
    """The biases (:func:`bias_from_gradient`) of several C-SVC problems whose variables are
    concatenated (problem ``k``: ``bounds[k]:bounds[k + 1]``), and the functional margin
    ``y_t f(x_t) = G_t + 1 + y_t b_k`` of every variable, in one call.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    >>> alpha, grad = np.array([0.5, 0.5, 0.0, 0.5, 0.5]), np.array([-1.0, -3.0, 2.0, 0.0, -2.0])
    >>> c_svc_biases_and_margins(np.array([0, 3, 5]), y, alpha, grad, np.ones(5))
    (array([-1., -1.]), array([-1., -1.,  2.,  0.,  0.]))
    """
    biases = np.empty(bounds.shape[0] - 1)
    margins = np.empty(grad.shape[0])
    for k in range(biases.shape[0]):
        part = slice(bounds[k], bounds[k + 1])
        b = bias_from_gradient(y[part], alpha[part], grad[part], upper[part])
        biases[k] = b
        for t in range(bounds[k], bounds[k + 1]):
            margins[t] = grad[t] + 1.0 + y[t] * b
    return biases, margins


@jit
def bias_from_gradient(y, alpha, grad, upper):
    """LIBSVM's ``-rho`` from the gradient ``G`` at the solution, in one pass: the average
    of ``-y_t G_t`` over the free multipliers (``0 < a_t < U_t``); with none, minus the
    midpoint of the interval of ``rho`` that the KKT conditions allow (``rho >= y G`` for
    multipliers outside I_up: at the upper bound with ``y = +1``, at zero with ``y = -1``;
    ``rho <= y G`` outside I_low); 0 when nothing bounds it.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> float(bias_from_gradient(y, np.array([0.5, 0.5, 0.0]), np.array([-1.0, -3.0, 2.0]), np.ones(3)))
    -1.0
    """
    total = 0.0
    n_free = 0
    lower = -np.inf
    higher = np.inf
    for t in range(y.shape[0]):
        yg = y[t] * grad[t]
        in_up, in_low = membership(y[t], alpha[t], upper[t])
        if in_up and in_low:  # free
            total += yg
            n_free += 1
            continue
        if not in_up:
            lower = max(lower, yg)
        if not in_low:  # (both where U_t = 0)
            higher = min(higher, yg)
    if n_free:
        return -total / n_free
    if not np.isfinite(lower):
        lower = higher
    if not np.isfinite(higher):
        higher = lower
    return -0.5 * (lower + higher) if np.isfinite(lower) else 0.0
