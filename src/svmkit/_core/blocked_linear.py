"""The blocked decomposition's rounds, compiled: working-set selection, and the linear kernel's whole loop.

A round of the blocked strategy (ThunderSVM, oneDAL; DESIGN.md section 3) picks
a working set of ``q`` variables, the largest violators of each side with half
of the last round's new ones kept, solves SMO on their ``q x q`` kernel block,
and updates the gradient of every variable with the multipliers that moved.
:func:`select_violators` is the selection, for the Python loop of the kernels
whose rows are cached too. With the linear kernel on dense data no kernel row is
ever needed: the gradient follows the change of ``w = sum_t a_t y_t x_t`` (the
data times ``X_ws' coef``, ``n d`` multiply-adds a round), so
:func:`linear_blocked_rounds` runs every round in one call, with BLAS products
(NumPy's ``@`` in numba), no return to Python in between (usps, 45 one-vs-one
problems of 1,100-2,200 rows and 256 features: some 7 rounds each).

Status codes returned: ``BLOCKED_OPTIMAL`` (0), ``BLOCKED_STEP_LIMIT`` (1),
``BLOCKED_STALLED`` (2, no decrease of the dual objective for ``stall_rounds``
rounds), ``BLOCKED_MORE_ROUNDS`` (3: ``max_rounds`` rounds done, call again with
the same state), ``BLOCKED_LEFT`` (4: the rounds' work or the number of free
multipliers passed its limit: the problem is left to another solver).
"""

import numpy as np

from ._jit import jit
from .free_face import free_face_steps
from .full_gram import distinct_rows, smo_on_block
from .smo import violation_gap

BLOCKED_OPTIMAL = 0
BLOCKED_STEP_LIMIT = 1
BLOCKED_STALLED = 2
BLOCKED_MORE_ROUNDS = 3
BLOCKED_LEFT = 4

# A round's SMO that ends above its tolerance is followed by up to this many tries of Newton steps on
# the face of at most _FACE_MAX_FREE free multipliers, each followed by up to _SMO_AFTER_FACE SMO steps
_FACE_TRIES = 10
_FACE_MAX_FREE = 256
_SMO_AFTER_FACE = 1000
_EPS32 = float(np.finfo(np.float32).eps)  # the precision of the working set's kernel block

#: Places of the ``state`` array of :func:`linear_blocked_rounds` (float64): the dual objective,
#: its best value, the rounds since the best value, the number of kept variables, the SMO steps
#: made, the rounds made, and their work.
STATE_SIZE = 7
STATE_OBJECTIVE, STATE_BEST, STATE_SINCE_BEST, STATE_N_KEPT, STATE_STEPS, STATE_ROUNDS, STATE_WORK = range(STATE_SIZE)


@jit
def violator_masks(y, alpha, upper):
    """Masks of I_up (``y a`` may grow) and I_low (it may shrink), DESIGN.md section 1.

    Examples
    --------
    >>> import numpy as np
    >>> up, low = violator_masks(np.array([1.0, 1.0, -1.0]), np.array([0.0, 1.0, 0.5]), np.ones(3))
    >>> up.tolist(), low.tolist()
    ([True, False, True], [False, True, True])
    """
    up = np.empty(y.shape[0], dtype=np.bool_)
    low = np.empty(y.shape[0], dtype=np.bool_)
    for t in range(y.shape[0]):
        below, above = alpha[t] < upper[t], alpha[t] > 0
        up[t] = below if y[t] > 0 else above
        low[t] = above if y[t] > 0 else below
    return up, low


@jit
def select_violators(v, up, low, y, nu_mode, kept, n_new):
    """The largest violators not in ``kept``: up to ``n_new`` variables, an equal share
    (at least one) from each side, I_up by largest ``v = -y G`` and I_low by smallest,
    and in nu mode from each sign of ``y`` apart. Returned in the order of the sides
    (I_up, then I_low; positive ``y`` first), each side's share in no particular order.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([3.0, -1.0, 2.0, 0.5, -2.0])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    >>> up, low = violator_masks(y, np.array([0.0, 0.5, 0.5, 0.0, 1.0]), np.ones(5))
    >>> select_violators(v, up, low, y, False, np.array([0]), 2).tolist()  # 0 is kept; I_up {1, 2}, I_low {1, 3, 4}
    [2, 4]
    """
    m = v.shape[0]
    taken = np.zeros(m, dtype=np.bool_)
    for t in kept:
        taken[t] = True
    n_groups = 2 if nu_mode else 1
    share = max(1, n_new // (2 * n_groups))
    chosen = np.empty(2 * n_groups * share, dtype=np.int64)
    n_chosen = 0
    candidates = np.empty(m, dtype=np.int64)
    score = np.empty(m)
    for side in range(2):
        mask = up if side == 0 else low
        sign = -1.0 if side == 0 else 1.0
        for group in range(n_groups):
            n_candidates = 0
            for t in range(m):  # (written at every place, counted where it applies: no branches)
                candidates[n_candidates] = t
                score[n_candidates] = sign * v[t]
                n_candidates += mask[t] & (not taken[t]) & ((not nu_mode) | ((y[t] < 0) == (group == 1)))
            k = min(share, n_candidates)
            order = _smallest(score[:n_candidates], k)
            for a in range(k):
                t = candidates[order[a]]
                taken[t] = True
                chosen[n_chosen] = t
                n_chosen += 1
    return chosen[:n_chosen]


@jit
def _smallest(score, k):
    """The positions of ``k`` smallest values of ``score`` (ties at the k-th value broken by
    the heap's order), in no particular order: a max-heap of ``k`` that most values only compare with (numba's
    ``np.argpartition`` took 190 us for 128 of 21,000 values, NumPy's 31 us).

    Examples
    --------
    >>> import numpy as np
    >>> sorted(_smallest(np.array([5.0, 1.0, 4.0, 1.0, 3.0]), 3).tolist())
    [1, 3, 4]
    """
    heap = np.empty(k, dtype=np.int64)
    if k == 0:
        return heap
    for t in range(k):  # sift each of the first k up
        heap[t] = t
        child = t
        while child > 0:
            parent = (child - 1) // 2
            if score[heap[parent]] >= score[heap[child]]:
                break
            heap[parent], heap[child] = heap[child], heap[parent]
            child = parent
    for t in range(k, score.shape[0]):
        if score[t] >= score[heap[0]]:
            continue
        heap[0] = t  # the largest out, sifted down
        parent = 0
        while True:
            child = 2 * parent + 1
            if child >= k:
                break
            if child + 1 < k and score[heap[child + 1]] > score[heap[child]]:
                child += 1
            if score[heap[child]] <= score[heap[parent]]:
                break
            heap[parent], heap[child] = heap[child], heap[parent]
            parent = child
    return heap


@jit
def group_gap(y, alpha, grad, upper, nu_mode):
    """``m(a) - M(a)`` where both sides have variables (``-inf`` where none has), per sign
    of ``y`` in nu mode (the larger): the blocked loop's stopping test (the tests of
    :func:`svmkit._core.smo.membership` written out: 32,561 variables 230 -> 40 us).

    Examples
    --------
    >>> import numpy as np
    >>> y, upper = np.array([1.0, -1.0, 1.0]), np.ones(3)
    >>> float(group_gap(y, np.array([0.0, 0.0, 1.0]), np.array([-1.0, -1.0, 0.5]), upper, False))  # v = (1, -1, -0.5)
    2.0
    """
    up_0, up_1, low_0, low_1 = -np.inf, -np.inf, np.inf, np.inf
    for t in range(y.shape[0]):
        # (no branches: with the variables' sides in no order, mispredicted ones took 230 us instead
        # of 40 us for 32,561 variables)
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
    gap = -np.inf
    if up_0 > -np.inf and low_0 < np.inf:
        gap = up_0 - low_0
    if up_1 > -np.inf and low_1 < np.inf:
        gap = max(gap, up_1 - low_1)
    return gap


@jit
def _linear_round(X, X32, rows, y, upper, alpha, grad, ws, tol, max_steps, nu_mode, state):
    """SMO on the working set ``ws`` with its linear kernel block computed from ``X32``, then
    the gradient of every variable updated through the change of ``w`` (in float64); the
    objective in ``state`` follows. Returns the number of steps (at least 1)."""
    ws = ws[np.argsort(rows[ws], kind="mergesort")]  # in row order: smo_on_block's fast passes
    columns, local_rows = distinct_rows(rows[ws])
    X_ws = np.ascontiguousarray(X32[columns])
    K_ws = X_ws @ X_ws.T
    alpha_ws = alpha[ws]  # (fancy indexing: copies)
    grad_ws = grad[ws]
    y_ws, upper_ws = y[ws], upper[ws]
    local_tol = max(tol, 0.1 * violation_gap(y_ws, alpha_ws, grad_ws, upper_ws, nu_mode))
    budget = min(max(20 * ws.shape[0], 1000), max_steps)
    steps, gap = smo_on_block(K_ws, local_rows, y_ws, upper_ws, alpha_ws, grad_ws, local_tol, budget, nu_mode)
    # SMO that ran out of steps zig-zags on a badly conditioned block: Newton steps on the face of
    # its free multipliers (as the full-Gram solver takes them), then SMO again (svmguide1 unscaled,
    # C = 2: 2.4 million steps in 937 rounds, 374 ms -> 105,000 steps in 17 rounds, 18 ms)
    for _ in range(_FACE_TRIES):
        if gap < local_tol:
            break
        steps += free_face_steps(K_ws, local_rows, y_ws, upper_ws, alpha_ws, grad_ws, nu_mode, _FACE_MAX_FREE,
                                 _FACE_MAX_FREE, _EPS32)
        more, gap = smo_on_block(K_ws, local_rows, y_ws, upper_ws, alpha_ws, grad_ws, local_tol, _SMO_AFTER_FACE,
                                 nu_mode)
        steps += more
    coef = np.zeros(columns.shape[0])
    decrease = 0.0
    for a in range(ws.shape[0]):
        t = ws[a]
        delta = alpha_ws[a] - alpha[t]
        if delta != 0.0:
            # f(a + d) - f(a) = d'G + 1/2 d'Qd, Qd on the block being grad_ws - grad[ws]
            decrease += delta * 0.5 * (grad_ws[a] + grad[t])
            coef[local_rows[a]] += y_ws[a] * delta
            alpha[t] = alpha_ws[a]
    state[STATE_OBJECTIVE] += decrease
    change_of_w = np.ascontiguousarray(X[columns]).T @ coef
    products = X @ change_of_w
    for t in range(y.shape[0]):
        grad[t] += y[t] * products[rows[t]]
    return max(steps, 1)


@jit
def _n_free(alpha, upper):
    """How many multipliers are free, ``0 < a_t < U_t``."""
    count = 0
    for t in range(alpha.shape[0]):
        count += (alpha[t] > 0) & (alpha[t] < upper[t])
    return count


@jit
def linear_blocked_rounds(X, X32, rows, y, upper, alpha, grad, kept, state, q, tol, max_steps, max_rounds,
                          max_work, max_free, stall_rounds, nu_mode):
    """Rounds of the blocked decomposition with the linear kernel on dense data.

    Variable ``t`` (sign ``y[t]``, bound ``upper[t]``) uses data row ``rows[t]`` of ``X``
    (float64; ``X32`` its float32 copy, from which the working set's kernel block is
    computed). ``alpha`` and ``grad`` (``Q a + p``, exact at the start) are updated in
    place; ``kept`` (``q // 2`` places) and ``state`` (float64: objective ``1/2 a'Qa + p'a``,
    its best value, rounds since then, number of kept variables, steps, rounds, work) carry
    the loop from call to call. At most ``max_rounds`` rounds are made in one call; none
    once the work of all rounds (multiply-adds of the products, and SMO steps times the
    working set's size) has reached ``max_work``, or once more than ``max_free``
    multipliers are free (``0 < a_t < U_t``: more than the working sets can settle).

    Returns
    -------
    status : int
        ``BLOCKED_OPTIMAL``, ``BLOCKED_STEP_LIMIT``, ``BLOCKED_STALLED``, ``BLOCKED_MORE_ROUNDS``
        (``max_rounds`` reached) or ``BLOCKED_LEFT`` (``max_work`` or ``max_free`` passed).
    gap : float
        The maximal violating-pair gap at the end.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> alpha, grad = np.zeros(4), -np.ones(4)  # C-SVC starts at a = 0, G = p = -1
    >>> state = np.array([0.0, np.inf, 0.0, 0.0, 0.0, 0.0, 0.0])
    >>> status, gap = linear_blocked_rounds(X, X.astype(np.float32), np.arange(4), y, np.full(4, 10.0), alpha, grad,
    ...                                     np.zeros(1, dtype=np.int64), state, 2, 1e-6, 10**6, 100, np.inf, 4, 50, False)
    >>> status, alpha.round(6).tolist()  # the margin 1 <= x <= 3: a = 1/2 on x = 1 and x = 3
    (0, [0.0, 0.5, 0.5, 0.0])
    """
    m = y.shape[0]
    gap = np.inf
    for round_index in range(max_rounds + 1):
        gap = group_gap(y, alpha, grad, upper, nu_mode)
        if gap < tol:
            return BLOCKED_OPTIMAL, gap
        if state[STATE_STEPS] >= max_steps:
            return BLOCKED_STEP_LIMIT, gap
        if state[STATE_WORK] >= max_work or _n_free(alpha, upper) > max_free:
            return BLOCKED_LEFT, gap
        if round_index == max_rounds:
            break
        if state[STATE_OBJECTIVE] < state[STATE_BEST] - 1e-12 * max(1.0, abs(state[STATE_OBJECTIVE])):
            state[STATE_BEST] = state[STATE_OBJECTIVE]
            state[STATE_SINCE_BEST] = 0
        else:
            state[STATE_SINCE_BEST] += 1
            if state[STATE_SINCE_BEST] > stall_rounds:
                return BLOCKED_STALLED, gap
        n_kept = int(state[STATE_N_KEPT])
        if m <= q:
            new = np.arange(m)
            ws = new
        else:
            v = -y * grad
            up, low = violator_masks(y, alpha, upper)
            new = select_violators(v, up, low, y, nu_mode, kept[:n_kept], q - n_kept)
            ws = np.concatenate((kept[:n_kept], new))
        steps = _linear_round(X, X32, rows, y, upper, alpha, grad, ws, tol, max_steps, nu_mode, state)
        state[STATE_STEPS] += steps
        state[STATE_ROUNDS] += 1
        state[STATE_WORK] += (ws.shape[0] ** 2 + 2 * X.shape[0]) * X.shape[1] + steps * ws.shape[0]
        n_kept = min(new.shape[0], q // 2) if m > q else 0
        kept[:n_kept] = new[:n_kept]
        state[STATE_N_KEPT] = n_kept
    return BLOCKED_MORE_ROUNDS, gap
