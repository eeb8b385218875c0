"""The blocked decomposition's rounds, compiled (DESIGN.md section 3).

A round (ThunderSVM, oneDAL) picks a working set of ``q`` variables, the
largest violators of each side with half of the last round's new ones kept
(:func:`start_round`), solves its ``q x q`` kernel block (:func:`solve_block`:
SMO, and Newton steps on the face of the block's free multipliers where SMO
zig-zags), writes the block's multipliers back (:func:`block_moves`) and updates
the gradient of every variable with the multipliers that moved. The Python loop
of :class:`svmkit._solver._BlockedSolver` makes the kernel rows such updates
need. With the linear kernel on dense data no kernel row is ever needed: the
gradient follows the change of ``w = sum_t a_t y_t x_t`` (the data times
``X_ws' coef``, ``n d`` multiply-adds a round), so :func:`linear_blocked_rounds`
runs every round in one call, with BLAS products (NumPy's ``@`` in numba) and no
return to Python in between (usps, 45 one-vs-one problems of 1,100-2,200 rows and
256 features: 5-16 rounds each).

Status codes returned: ``BLOCKED_OPTIMAL`` (0), ``BLOCKED_STEP_LIMIT`` (1),
``BLOCKED_STALLED`` (2, no decrease of the dual objective for ``stall_rounds``
rounds), ``BLOCKED_GO_ON`` (3: a round is to be made, or ``max_rounds`` rounds
were made: call again with the same state), ``BLOCKED_LEFT`` (4: the rounds'
work or the number of free multipliers passed its limit: the problem is left to
another solver).
"""

import numpy as np

from ._jit import jit
from .free_face import FACE_MAX_FREE, free_face_steps
from .full_gram import distinct_rows, smo_on_block
from .smo import membership, violation_gap

BLOCKED_OPTIMAL = 0
BLOCKED_STEP_LIMIT = 1
BLOCKED_STALLED = 2
BLOCKED_GO_ON = 3
BLOCKED_LEFT = 4

# A block's SMO that ends above its tolerance is followed by up to this many tries of Newton steps on
# the face of at most FACE_MAX_FREE free multipliers, each followed by up to _SMO_AFTER_FACE SMO steps
_FACE_TRIES = 10
_SMO_AFTER_FACE = 1000

#: Places of the ``state`` array of the rounds (float64, :func:`new_state`): the dual objective,
#: its best value, the rounds since the best value, the number of kept variables, the SMO steps
#: made, the rounds made, and their work.
STATE_SIZE = 7
STATE_OBJECTIVE, STATE_BEST, STATE_SINCE_BEST, STATE_N_KEPT, STATE_STEPS, STATE_ROUNDS, STATE_WORK = range(STATE_SIZE)


@jit
def new_state(objective):
    """The ``state`` of rounds that start at the dual objective ``objective``.

    Examples
    --------
    >>> new_state(-2.0).tolist()
    [-2.0, inf, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    state = np.zeros(STATE_SIZE)
    state[STATE_OBJECTIVE] = objective
    state[STATE_BEST] = np.inf
    return state


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
        up[t], low[t] = membership(y[t], alpha[t], upper[t])
    return up, low


@jit
def select_violators(y, grad, up, low, nu_mode, kept, n_new):
    """The largest violators not in ``kept``: ``n_new`` variables or fewer, an equal share
    from each side (at least one: 2, or 4 in nu mode, where ``n_new`` is smaller), I_up by
    largest ``v = -y G`` and I_low by smallest, and in nu mode from each sign of ``y`` apart. Returned in the order of the sides
    (I_up, then I_low; positive ``y`` first), each side's share in no particular order.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    >>> grad = -y * np.array([3.0, -1.0, 2.0, 0.5, -2.0])  # v = -y G = (3, -1, 2, 0.5, -2)
    >>> up, low = violator_masks(y, np.array([0.0, 0.5, 0.5, 0.0, 1.0]), np.ones(5))
    >>> select_violators(y, grad, up, low, False, np.array([0]), 2).tolist()  # I_up {0, 1, 2}, I_low {1, 2, 3, 4}; 0 kept
    [2, 4]
    """
    m = y.shape[0]
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
                score[n_candidates] = -sign * y[t] * grad[t]
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
    the heap's order), in no particular order: a max-heap of ``k`` that most values only
    compare with (numba's ``np.argpartition`` took 190 us for 128 of 21,000 values, NumPy's 31 us).

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
def _n_free(alpha, upper):
    """How many multipliers are free, ``0 < a_t < U_t``."""
    count = 0
    for t in range(alpha.shape[0]):
        count += (alpha[t] > 0) & (alpha[t] < upper[t])
    return count


@jit
def start_round(y, upper, alpha, grad, kept, state, q, tol, max_steps, max_work, max_free, stall_rounds, nu_mode):
    """The stopping tests before a round, and its working set: ``(status, gap, ws, new)``.

    ``status`` is ``BLOCKED_OPTIMAL`` (gap below ``tol``), ``BLOCKED_STEP_LIMIT`` (``max_steps``
    steps made), ``BLOCKED_LEFT`` (the rounds' work has reached ``max_work``, or more than
    ``max_free`` multipliers are free: more than the working sets can settle),
    ``BLOCKED_STALLED`` (no decrease of the objective for ``stall_rounds`` rounds), or
    ``BLOCKED_GO_ON``: then ``ws`` is the working set, the ``state``'s kept variables
    followed by ``new``, the largest violators (all ``m`` variables where ``m <= q``).

    Examples
    --------
    >>> import numpy as np
    >>> y, alpha, upper = np.array([1.0, 1.0, -1.0, -1.0]), np.zeros(4), np.ones(4)
    >>> grad = np.array([-1.0, -2.0, -1.0, -3.0])  # v = -y G = (1, 2, -1, -3)
    >>> status, gap, ws, new = start_round(y, upper, alpha, grad, np.zeros(1, dtype=np.int64), new_state(0.0), 2,
    ...                                    1e-3, 100, np.inf, 4, 50, False)
    >>> status == BLOCKED_GO_ON, float(gap), ws.tolist()  # I_up {0, 1}, I_low {2, 3}: 2 - (-3)
    (True, 5.0, [1, 3])
    """
    m = y.shape[0]
    gap = violation_gap(y, alpha, grad, upper, nu_mode)
    none = np.empty(0, dtype=np.int64)
    if gap < tol:
        return BLOCKED_OPTIMAL, gap, none, none
    if state[STATE_STEPS] >= max_steps:
        return BLOCKED_STEP_LIMIT, gap, none, none
    if state[STATE_WORK] >= max_work or _n_free(alpha, upper) > max_free:
        return BLOCKED_LEFT, gap, none, none
    if state[STATE_OBJECTIVE] < state[STATE_BEST] - 1e-12 * max(1.0, abs(state[STATE_OBJECTIVE])):
        state[STATE_BEST] = state[STATE_OBJECTIVE]
        state[STATE_SINCE_BEST] = 0
    else:
        state[STATE_SINCE_BEST] += 1
        if state[STATE_SINCE_BEST] > stall_rounds:
            return BLOCKED_STALLED, gap, none, none
    if m <= q:
        new = np.arange(m)
        return BLOCKED_GO_ON, gap, new, new
    n_kept = int(state[STATE_N_KEPT])
    up, low = violator_masks(y, alpha, upper)
    new = select_violators(y, grad, up, low, nu_mode, kept[:n_kept], q - n_kept)
    return BLOCKED_GO_ON, gap, np.concatenate((kept[:n_kept], new)), new


@jit
def finish_round(state, kept, new, q, m, steps, work):
    """Count a round of ``steps`` steps (at least 1) and ``work`` in ``state``, and keep the
    first ``q // 2`` of its ``new`` variables for the next round (none where ``m <= q``).

    Examples
    --------
    >>> import numpy as np
    >>> state, kept = new_state(0.0), np.zeros(2, dtype=np.int64)
    >>> finish_round(state, kept, np.array([7, 3, 9]), 4, 10, 25, 100.0)
    >>> kept.tolist(), float(state[STATE_N_KEPT]), float(state[STATE_STEPS]), float(state[STATE_WORK])
    ([7, 3], 2.0, 25.0, 100.0)
    """
    state[STATE_STEPS] += max(steps, 1)
    state[STATE_ROUNDS] += 1
    state[STATE_WORK] += work
    n_kept = min(new.shape[0], q // 2) if m > q else 0
    kept[:n_kept] = new[:n_kept]
    state[STATE_N_KEPT] = n_kept


@jit
def solve_block(K, local_rows, y, upper, alpha, grad, tol, max_steps, nu_mode, eps):
    """Solve a round's block (variable ``t`` uses row ``local_rows[t]`` of the square ``K``,
    whose precision is ``eps``) to ``max(tol, 0.1 x its gap)``, in at most ``max_steps``
    steps (``20 x its size``, at least 1,000, for SMO first); ``alpha`` and ``grad`` updated
    in place. SMO that ends above the tolerance zig-zags on a badly conditioned block: Newton
    steps on the face of its free multipliers (as the full-Gram solver takes them), then SMO
    again (svmguide1 unscaled, linear kernel, C = 2: 2.4 million steps in 937 rounds, 374 ms ->
    105,000 steps in 17 rounds, 18 ms). Returns the number of steps."""
    local_tol = max(tol, 0.1 * violation_gap(y, alpha, grad, upper, nu_mode))
    steps, gap = smo_on_block(K, local_rows, y, upper, alpha, grad, local_tol,
                              min(max(20 * y.shape[0], 1000), max_steps), nu_mode)
    for _ in range(_FACE_TRIES):
        if gap < local_tol or steps >= max_steps:
            break
        face = free_face_steps(K, local_rows, y, upper, alpha, grad, nu_mode, FACE_MAX_FREE,
                               min(FACE_MAX_FREE, max_steps - steps), eps)
        if face == 0:
            break
        steps += face
        more, gap = smo_on_block(K, local_rows, y, upper, alpha, grad, local_tol,
                                 min(_SMO_AFTER_FACE, max_steps - steps), nu_mode)
        steps += more
    return steps


@jit
def block_rows(rows, ws):
    """The working set ``ws`` in the order of its variables' data rows (stable; one variable
    per row in row order takes :func:`svmkit._core.full_gram.smo_on_block`'s contiguous
    passes), its distinct rows ``columns`` and each variable's place ``local_rows`` among them.

    Examples
    --------
    >>> import numpy as np
    >>> ws, columns, local_rows = block_rows(np.array([0, 0, 1, 1, 2, 2]), np.array([5, 0, 3, 1]))
    >>> ws.tolist(), columns.tolist(), local_rows.tolist()
    ([0, 1, 3, 5], [0, 1, 2], [0, 0, 1, 2])
    """
    ws = ws[np.argsort(rows[ws], kind="mergesort")]
    columns, local_rows = distinct_rows(rows[ws])
    return ws, columns, local_rows


@jit
def block_moves(ws, local_rows, n_columns, y, alpha, grad, alpha_ws, grad_ws, state):
    """Write a solved block's multipliers ``alpha_ws`` (gradient ``grad_ws``; variable
    ``ws[a]`` of row ``local_rows[a]``) into ``alpha``, add the objective's change to
    ``state``, and return the coefficient ``sum y_t (a_t new - a_t old)`` of each of the
    block's ``n_columns`` rows (the gradient of every variable changes by its kernel
    column times these, which the caller adds to ``grad``).

    Examples
    --------
    >>> import numpy as np
    >>> y, alpha, grad, state = np.array([1.0, -1.0, 1.0]), np.zeros(3), -np.ones(3), new_state(0.0)
    >>> coef = block_moves(np.array([0, 1]), np.array([0, 1]), 2, y, alpha, grad, np.array([0.5, 0.5]),
    ...                    np.array([-0.5, -0.5]), state)
    >>> coef.tolist(), alpha.tolist(), float(state[STATE_OBJECTIVE])  # 2 x 0.5 x (-0.5 - 1) / 2
    ([0.5, -0.5], [0.5, 0.5, 0.0], -0.75)
    """
    coef = np.zeros(n_columns)
    decrease = 0.0
    for a in range(ws.shape[0]):
        t = ws[a]
        delta = alpha_ws[a] - alpha[t]
        if delta != 0.0:
            # f(a + d) - f(a) = d'G + 1/2 d'Qd, Qd on the block being grad_ws - grad[ws]
            decrease += delta * 0.5 * (grad_ws[a] + grad[t])
            coef[local_rows[a]] += y[t] * delta
            alpha[t] = alpha_ws[a]
    state[STATE_OBJECTIVE] += decrease
    return coef


@jit
def linear_blocked_rounds(X, X32, rows, y, upper, alpha, grad, kept, state, q, tol, max_steps, max_rounds,
                          max_work, max_free, stall_rounds, nu_mode):
    """Rounds of the blocked decomposition with the linear kernel on dense data.

    Variable ``t`` (sign ``y[t]``, bound ``upper[t]``) uses data row ``rows[t]`` of ``X``
    (float64; ``X32`` its float32 copy, from which the working set's kernel block is
    computed). ``alpha`` and ``grad`` (``Q a + p``, exact at the start) are updated in
    place; ``kept`` (``q // 2`` places) and ``state`` (:func:`new_state`) carry the loop from
    call to call. At most ``max_rounds`` rounds are made in one call; the stopping tests and
    the limits are :func:`start_round`'s. A round's work is the multiply-adds of its
    products and its steps times the working set's size.

    Returns
    -------
    status : int
        As :func:`start_round`'s (``BLOCKED_GO_ON``: ``max_rounds`` rounds were made).
    gap : float
        The maximal violating-pair gap before the last round.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> alpha, grad = np.zeros(4), -np.ones(4)  # C-SVC starts at a = 0, G = p = -1
    >>> status, gap = linear_blocked_rounds(X, X.astype(np.float32), np.arange(4), y, np.full(4, 10.0), alpha, grad,
    ...                                     np.zeros(1, dtype=np.int64), new_state(0.0), 2, 1e-6, 10**6, 100,
    ...                                     np.inf, 4, 50, False)
    >>> status, alpha.round(6).tolist()  # the margin 1 <= x <= 3: a = 1/2 on x = 1 and x = 3
    (0, [0.0, 0.5, 0.5, 0.0])
    """
    m = y.shape[0]
    n_data, n_features = X.shape
    eps = float(np.finfo(np.float32).eps)
    status, gap = BLOCKED_GO_ON, np.inf
    for _ in range(max_rounds):
        status, gap, ws, new = start_round(y, upper, alpha, grad, kept, state, q, tol, max_steps, max_work,
                                           max_free, stall_rounds, nu_mode)
        if status != BLOCKED_GO_ON:
            break
        ws, columns, local_rows = block_rows(rows, ws)
        X_ws = np.ascontiguousarray(X32[columns])
        alpha_ws, grad_ws = alpha[ws], grad[ws]  # (fancy indexing: copies)
        steps = solve_block(X_ws @ X_ws.T, local_rows, y[ws], upper[ws], alpha_ws, grad_ws, tol,
                            max_steps - int(state[STATE_STEPS]), nu_mode, eps)
        coef = block_moves(ws, local_rows, columns.shape[0], y, alpha, grad, alpha_ws, grad_ws, state)
        products = X @ (coef @ X[columns])  # the change of w, times the data
        for t in range(m):
            grad[t] += y[t] * products[rows[t]]
        finish_round(state, kept, new, q, m, steps,
                     (columns.shape[0] ** 2 + n_data + columns.shape[0]) * n_features + steps * ws.shape[0])
    return status, gap
