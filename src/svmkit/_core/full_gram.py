"""The full-Gram solver's loop: SMO in row order, handing over to shrunk sub-problems.

:func:`full_gram_smo` runs :func:`svmkit._core.smo_rows.smo_rows` on all
variables until shrinking would keep few of them, then solves the kept ones as
sub-problems of their own (:func:`solve_shrunk`: LIBSVM's shrinking with
contiguous passes, and Newton steps on the face of the free multipliers after
each stretch), then goes back to all variables, until the gap is below ``tol``.
It returns to the caller only for kernel rows it cannot compute itself, for
progress reports, and at the end: a one-vs-one pair of a few hundred samples is
one call (digits, 45 pairs: their Python loop took about as long as their SMO).
:func:`full_gram_round` is one such call followed, in a long solve, by Newton
steps on the face of all free multipliers (:func:`try_face_steps`).
"""

import numpy as np

from ._jit import jit
from .free_face import free_face_steps
from .kernel_blocks import KERNEL_NONE
from .row_cache import add_weighted_rows_serial, gather_block
from .smo import SMO_STEP_LIMIT, smo, kept_by_shrinking
from .smo_rows import SMO_USE_SHRINKING, compute_row, row_scratch, side_flags, smo_rows

#: Status: the rows ``wanted[:count]`` must be computed before the shrunk
#: sub-problem can start (the caller computes them and calls again).
SMO_NEED_ROWS = 4

#: The entries of the schedule ``face`` of :func:`full_gram_round` (an int64 array): the SMO
#: steps between two tries of :func:`try_face_steps`, the steps left before the next, the
#: most free multipliers of a try, the most steps of a try, and the work of a try per SMO
#: step on one variable that may go between two tries.
FACE_PERIOD, FACE_STEPS_TO_GO, FACE_ALL_MAX_FREE, FACE_ALL_MAX_STEPS, FACE_WORK_PER_SMO_VARIABLE = range(5)


@jit
def new_face_schedule(face_settings, m):
    """The schedule ``face`` of :func:`full_gram_round` at the start of a solve of ``m``
    variables, from the solver's ``face_settings`` (int64): the first period in SMO steps per
    variable, then the last three entries of the schedule.

    Examples
    --------
    >>> import numpy as np
    >>> new_face_schedule(np.array([25, 1024, 1024, 200]), 10)
    array([ 250,  250, 1024, 1024,  200])
    """
    period = face_settings[0] * m
    return np.array([period, period, face_settings[1], face_settings[2], face_settings[3]], dtype=np.int64)


@jit
def full_gram_round(
    K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, state, face, tol, budget, max_steps, nu_mode,
    hand_over_fraction, face_max_free, face_max_steps, eps, XT, kernel, gamma, coef0, degree, data_rows, wanted,
):
    """One call of :func:`full_gram_smo` (the same arguments, but ``face``), then, where it
    stopped at its ``budget`` short of ``max_steps`` and ``face`` says a try is due, the
    Newton steps on the face of all free multipliers of :func:`try_face_steps`: the
    full-Gram solver's loop is these calls, and rows computed where they return for them.

    ``face`` (int64, updated in place) is the schedule of the tries, its entries named by
    ``FACE_PERIOD`` ... ``FACE_WORK_PER_SMO_VARIABLE``; it starts with ``FACE_STEPS_TO_GO``
    equal to ``FACE_PERIOD``. Returns ``(steps, status, gap, count, taken)``: those of
    :func:`full_gram_smo` and the face steps taken (0 where none was tried).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_NONE
    >>> X = np.array([[0.0], [1.0], [1.0], [3.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
    >>> K = X @ X.T
    >>> alpha, grad = np.zeros(6), -np.ones(6)
    >>> face = np.array([0, 0, 1024, 1024, 200])  # a try due at every return
    >>> steps, status, gap, count, taken = full_gram_round(  # two SMO steps a call
    ...     K, np.arange(6), np.empty((0, 0)), np.arange(6), np.array([6]), y, np.full(6, 10.0),
    ...     np.diagonal(K).copy(), alpha, grad, np.zeros(2, dtype=np.int64), face, 1e-6, 2, 1000, False, 5,
    ...     1, 30, 2.2e-16, np.empty((0, 0)), KERNEL_NONE, 0.0, 0.0, 1, np.empty(0, dtype=np.int64),
    ...     np.empty(6, dtype=np.int64))
    >>> steps, taken, alpha  # a face step after the two took the free pair to the margin 1 <= x <= 3
    (2, 1, array([0. , 0. , 0.5, 0. , 0.5, 0. ]))
    """
    steps, status, gap, count = full_gram_smo(
        K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, state, tol, budget, max_steps, nu_mode,
        hand_over_fraction, face_max_free, face_max_steps, eps, XT, kernel, gamma, coef0, degree, data_rows, wanted,
    )
    face[FACE_STEPS_TO_GO] -= steps
    taken = 0
    if status == SMO_STEP_LIMIT and steps < max_steps and face[FACE_STEPS_TO_GO] <= 0:
        taken = try_face_steps(K, slot, R, slot_r, y, upper, alpha, grad, nu_mode, face_max_free, eps, face)
    return steps, status, gap, count, taken


@jit
def full_gram_solve(
    K, slot, n_filled, y, upper, qd, alpha, grad, nu_mode, tol, max_steps, steps_per_call, hand_over_fraction,
    face_max_free, face_max_steps, eps, face_settings, XT, kernel, gamma, coef0, degree, data_rows,
):
    """:func:`full_gram_round` again and again until the solve ends (the gap below ``tol``, or
    ``max_steps`` steps), where no kernel row comes from the caller: each is stored in ``K``
    (rows in one part) at ``slot`` already, or computed or copied here (``kernel`` not
    ``KERNEL_NONE``; ``KERNEL_PRECOMPUTED``: copied from the Gram matrix ``XT`` at the rows
    ``data_rows``, see :func:`svmkit._core.smo_rows.compute_row`).
    ``steps_per_call``: the rounds' ``budget``; their ``face`` schedule starts from
    ``face_settings`` (:func:`new_face_schedule`); the other arguments as there, ``alpha`` and
    ``grad`` updated in place. Returns ``(steps, status, gap)``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_NONE
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> K, alpha, grad = X @ X.T, np.zeros(4), -np.ones(4)
    >>> steps, status, gap = full_gram_solve(
    ...     K, np.arange(4), np.array([4]), np.array([-1.0, -1.0, 1.0, 1.0]), np.full(4, 10.0), np.diagonal(K).copy(),
    ...     alpha, grad, False, 1e-6, 1000, 1000, 5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]),
    ...     np.empty((0, 0)), KERNEL_NONE, 0.0, 0.0, 1, np.empty(0, dtype=np.int64))
    >>> alpha.round(6), gap < 1e-6  # the margin 1 <= x <= 3
    (array([0. , 0.5, 0.5, 0. ]), True)

    The same problem on the rows 1, 3, 5 and 7 of a Gram matrix, copied as they are needed:

    >>> from svmkit._core.kernel_blocks import KERNEL_PRECOMPUTED
    >>> X8 = np.array([[9.0], [0.0], [9.0], [1.0], [9.0], [3.0], [9.0], [4.0]])
    >>> alpha, grad, slot, n_filled = np.zeros(4), -np.ones(4), np.full(4, -1), np.zeros(1, dtype=np.int64)
    >>> steps, status, gap = full_gram_solve(
    ...     np.empty((4, 4)), slot, n_filled, np.array([-1.0, -1.0, 1.0, 1.0]), np.full(4, 10.0), np.diagonal(K).copy(),
    ...     alpha, grad, False, 1e-6, 1000, 1000, 5, 256, 30, 2.2e-16, np.array([25, 1024, 1024, 200]),
    ...     X8 @ X8.T, KERNEL_PRECOMPUTED, 0.0, 0.0, 1, np.array([1, 3, 5, 7]))
    >>> alpha.round(6), n_filled  # the same margin, from the rows asked for
    (array([0. , 0.5, 0.5, 0. ]), array([3]))
    """
    state = np.zeros(2, dtype=np.int64)
    face = new_face_schedule(face_settings, y.shape[0])
    wanted = np.empty(K.shape[1], dtype=np.int64)
    no_part = np.empty((0, 0), dtype=K.dtype)
    done = 0
    while True:  # (no row missing: the only other status is SMO_OPTIMAL)
        steps, status, gap, _, _ = full_gram_round(
            K, slot, no_part, slot, n_filled, y, upper, qd, alpha, grad, state, face, tol, steps_per_call,
            max_steps - done, nu_mode, hand_over_fraction, face_max_free, face_max_steps, eps, XT, kernel, gamma,
            coef0, degree, data_rows, wanted,
        )
        done += steps
        if status != SMO_STEP_LIMIT or done >= max_steps:
            return done, status, gap


@jit
def try_face_steps(K, slot, R, slot_r, y, upper, alpha, grad, nu_mode, min_free, eps, face):
    """Newton steps on the face of all free multipliers during a long full-Gram solve.

    SMO on all variables zig-zags for millions of steps where many multipliers are free and
    their kernel sub-matrix is badly conditioned (a linear kernel on 500 features, 2,000 rows:
    some 500 free multipliers), and with so many free multipliers shrinking never hands over
    to a sub-problem, whose face steps take at most ``min_free`` anyway. At the solver's
    returns (every ``budget`` steps of :func:`full_gram_round`, so that no shorter solve
    changes), once ``face[FACE_PERIOD]`` SMO steps have passed (first 25 per variable), and
    where more than ``min_free`` and at most ``face[FACE_ALL_MAX_FREE]`` multipliers are
    free (their rows all stored), their block is gathered and
    :func:`svmkit._core.free_face.free_face_steps` takes steps on their face until it is
    optimal (each an exact line search, so the dual never falls); the gradient of every
    variable follows. That problem (make_classification, 20 informative features) then took
    0.9 million SMO steps and 5.7-6.0 s instead of 3.6 million and 12.8-17 s (oneDAL 14.7 s,
    LIBSVM 38 s), with 10 face steps a try, each a factorisation (some 20 ms on 500 free
    multipliers); with 2 redundant features and 1% flipped labels, 0.96 million and 5.8 s
    instead of 2.65 million and 11.5 s. A try now factorises once and takes its further steps
    from that factorisation (:mod:`svmkit._core.free_face`), so it takes them all:
    benchmarks/svc.py's wide-linear, 0.58 million SMO steps and 3.4 s instead of 0.91
    million and 4.6 s with 10 steps a try. The period grows with the face steps' work
    (``k^3`` for a try on ``k`` free multipliers and ``k^2`` a step, over
    ``face[FACE_WORK_PER_SMO_VARIABLE]`` a variable: counted, so that the solution does not
    depend on the machine's speed), and doubles after a try that moved nothing. Tries on
    fewer free multipliers (every 25 steps per variable) did not pay: 1,000 x 30, linear,
    C = 10, some 30 free, 55,500 steps instead of 53,900.

    ``face`` is the schedule of :func:`full_gram_round`: its period and steps to go are set
    for the next try. Returns the face steps taken.
    """
    n = K.shape[1] + R.shape[1]
    free = np.flatnonzero((alpha > 0) & (alpha < upper))
    k = free.shape[0]
    taken = 0
    if min_free < k <= face[FACE_ALL_MAX_FREE] and np.all(slot[free % n] >= 0):
        rows, local = distinct_rows(free % n)
        block = np.empty((rows.shape[0], rows.shape[0]), dtype=K.dtype)
        gather_rows(K, slot, R, slot_r, rows, block)
        alpha_free, grad_free, y_free = alpha[free], grad[free], y[free]
        taken = free_face_steps(block, local, y_free, upper[free], alpha_free, grad_free, nu_mode,
                                face[FACE_ALL_MAX_FREE], face[FACE_ALL_MAX_STEPS], eps)
        if taken:
            commit_block(K, slot, R, slot_r, free, rows, local, y_free, alpha_free, y, alpha, grad)
    face_work = (k**3 + taken * k**2) / face[FACE_WORK_PER_SMO_VARIABLE] if taken else 0.0
    face[FACE_PERIOD] = max(face[FACE_PERIOD], int(face_work / y.shape[0])) * (1 if taken else 2)
    face[FACE_STEPS_TO_GO] = face[FACE_PERIOD]
    return taken


@jit
def full_gram_smo(
    K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, state, tol, budget, max_steps, nu_mode,
    hand_over_fraction, face_max_free, face_max_steps, eps, XT, kernel, gamma, coef0, degree, data_rows, wanted,
):
    """SMO on variables in row order (variable ``t`` uses row ``t % n``), with
    shrunk sub-problems once shrinking would keep fewer than ``m /
    hand_over_fraction`` variables (0: never), or, in a slow solve, fewer than
    ``m / 2`` and at most ``face_max_free`` (see :func:`smo_rows`).

    Parameters
    ----------
    K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, tol, nu_mode
        As :func:`svmkit._core.smo_rows.smo_rows` (updated in place).
    state : int64 array, shape (2,), updated in place
        ``state[0]``: whether a shrunk sub-problem came within ``10 tol`` once
        (from then on they are solved to ``tol``, see :func:`solve_shrunk`);
        ``state[1]``: whether the next call starts with the shrunk sub-problem.
        Start with zeros.
    budget : int
        Steps on all variables in this call, at most (shrunk sub-problems are
        solved to their end within ``max_steps``).
    max_steps : int
        Steps in this call, at most.
    face_max_free, face_max_steps, eps
        Limits and precision of :func:`svmkit._core.free_face.free_face_steps`.
    XT, kernel, gamma, coef0, degree, data_rows
        As :func:`smo_rows`: missing rows are computed (or copied) here where ``kernel`` allows.
    wanted : int64 array, shape (n,)
        Receives the rows the caller must compute (``SMO_NEED_ROW``: ``wanted[0]``;
        ``SMO_NEED_ROWS``: ``wanted[:count]``).

    Returns
    -------
    steps, status, gap, count
        ``status`` is one of ``SMO_OPTIMAL``, ``SMO_STEP_LIMIT``, ``SMO_NEED_ROW``
        and ``SMO_NEED_ROWS``; ``gap`` is ``inf`` for the last two.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._core.kernel_blocks import KERNEL_NONE
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> K = X @ X.T
    >>> alpha, grad = np.zeros(4), -np.ones(4)
    >>> out = full_gram_smo(
    ...     K, np.arange(4), np.empty((0, 0)), np.arange(4), np.array([4]), y, np.full(4, 10.0),
    ...     np.diagonal(K).copy(), alpha, grad, np.zeros(2, dtype=np.int64), 1e-6, 1000, 1000, False, 5, 256, 30,
    ...     2.2e-16, np.empty((0, 0)), KERNEL_NONE, 0.0, 0.0, 1, np.empty(0, dtype=np.int64),
    ...     np.empty(4, dtype=np.int64))
    >>> alpha.round(6)  # the margin 1 <= x <= 3, w = 1, b = -2
    array([0. , 0.5, 0.5, 0. ])
    """
    n = K.shape[1] + R.shape[1]
    scratch = row_scratch(XT, kernel, n)
    flags = side_flags(y, alpha, upper)
    steps = 0
    while True:
        if state[1]:
            active = np.flatnonzero(kept_by_shrinking(y, upper, alpha, grad, nu_mode))
            count = 0
            for r in distinct_rows(active % n)[0]:
                if slot[r] < 0 and not compute_row(K, slot, n_filled, r, XT, kernel, gamma, coef0, degree, data_rows,
                                                        scratch):
                    wanted[count] = r
                    count += 1
            if count:
                return steps, SMO_NEED_ROWS, np.inf, count
            stretch, unshrunk = solve_shrunk(
                K, slot, R, slot_r, active, y, upper, alpha, grad, tol, max_steps - steps, nu_mode, state[0] == 1,
                face_max_free, face_max_steps, eps,
            )
            steps += stretch
            state[0] = 1 if unshrunk else 0
            state[1] = 0
            flags[:] = side_flags(y, alpha, upper)
        done, status, gap, needed = smo_rows(
            K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, flags, tol, min(budget, max_steps) - steps,
            nu_mode, hand_over_fraction, face_max_free, steps, XT, kernel, gamma, coef0, degree, data_rows,
        )
        steps += done
        if status != SMO_USE_SHRINKING:
            wanted[0] = needed
            return steps, status, gap, 1
        state[1] = 1


_STEPS_PER_ACTIVE = 4  # most SMO steps a stretch of a shrunk sub-problem, per active variable


@jit
def solve_shrunk(
    K, slot, R, slot_r, active, y, upper, alpha, grad, tol, max_steps, nu_mode, unshrunk, face_max_free,
    face_max_steps, eps,
):
    """LIBSVM's shrinking with contiguous passes: SMO on the ``active`` variables
    (those shrinking keeps, whose kernel rows must all be in ``K``), copied into
    a sub-problem of their own, shrunk again every ``min(m, 1000)`` steps (LIBSVM's
    period) or ``_STEPS_PER_ACTIVE`` steps an active variable if fewer, until
    they are optimal or (the first time, ``unshrunk`` false) the gap comes within
    10 tol, when LIBSVM brings every variable back. Each stretch that ends above
    the target is followed by Newton steps on the face of the free multipliers
    (splice, linear kernel: 17,400 SMO steps instead of 35,500 when they followed
    only a stretch that left the free set unchanged). After each stretch the
    gradient of every variable is updated with the rows that moved, so the caller
    goes on with all of them. Returns ``(steps, unshrunk)``.

    (The shorter stretches of small sub-problems bring their face steps sooner: many-classes,
    linear kernel, 26 classes of some 190 rows, 441,000 SMO steps -> 281,000; usps linear
    42,000 -> 31,800; splice linear 16,342 -> 14,351.)

    (splice, linear kernel: some 65 of its 1,000 variables active for most of the fit.)
    """
    m = y.shape[0]
    n = K.shape[1] + R.shape[1]
    period = min(m, 1000)
    target = tol if unshrunk else 10 * tol
    steps = 0
    while active.shape[0] > 0 and steps < max_steps:
        active_rows, local_rows = distinct_rows(active % n)
        k = active_rows.shape[0]
        block = np.empty((k, k), dtype=K.dtype)
        gather_rows(K, slot, R, slot_r, active_rows, block)
        y_active = y[active]
        upper_active = upper[active]
        alpha_active = alpha[active]
        grad_active = grad[active]
        stretch, gap = smo_on_block(
            block, local_rows, y_active, upper_active, alpha_active, grad_active, target,
            min(period, _STEPS_PER_ACTIVE * active.shape[0], max_steps - steps), nu_mode,
        )
        steps += stretch
        if gap >= target:
            free_face_steps(
                block, local_rows, y_active, upper_active, alpha_active, grad_active, nu_mode, face_max_free,
                face_max_steps, eps,
            )
        commit_block(K, slot, R, slot_r, active, active_rows, local_rows, y_active, alpha_active, y, alpha, grad)
        if gap < target:
            return steps, True
        active = active[kept_by_shrinking(y_active, upper_active, alpha[active], grad[active], nu_mode)]
    return steps, unshrunk


@jit
def commit_block(K, slot, R, slot_r, variables, block_rows, local_rows, y_block, alpha_block, y, alpha, grad):
    """Write back the multipliers of a sub-problem solved on a block of kernel rows
    (variable ``variables[a]`` has ``alpha_block[a]`` and uses row
    ``block_rows[local_rows[a]]``, stored in ``K`` and ``R`` at ``slot`` and ``slot_r``
    as :func:`svmkit._core.smo_rows.smo_rows` reads them) into ``alpha``, and update the
    gradient of every variable with the rows whose coefficient moved."""
    split = K.shape[1]
    n = split + R.shape[1]
    coef = np.zeros(block_rows.shape[0])
    for a in range(variables.shape[0]):
        coef[local_rows[a]] += y_block[a] * (alpha_block[a] - alpha[variables[a]])
        alpha[variables[a]] = alpha_block[a]
    moved = np.flatnonzero(coef)
    column_sum = np.zeros(n)
    add_weighted_rows_serial(K, slot[block_rows[moved]], coef[moved], column_sum[:split])
    if n > split:
        add_weighted_rows_serial(R, slot_r[block_rows[moved]], coef[moved], column_sum[split:])
    for t in range(y.shape[0]):
        grad[t] += y[t] * column_sum[t % n]


@jit
def smo_on_block(K_block, local_rows, y, upper, alpha, grad, tol, max_steps, nu_mode):
    """SMO without shrinking on a sub-problem whose kernel rows are all in the
    square ``K_block`` (variable ``t`` uses row ``local_rows[t]``); ``alpha`` and
    ``grad`` updated in place. The contiguous passes of :func:`smo_rows` when
    there is one variable per row, in row order; LIBSVM's loop otherwise.
    Returns the number of steps and the gap reached."""
    n_columns = K_block.shape[0]
    m = local_rows.shape[0]
    slot = np.arange(n_columns)  # all rows are there, in order
    qd = np.empty(m)
    in_order = m == n_columns
    for t in range(m):
        qd[t] = K_block[local_rows[t], local_rows[t]]
        in_order = in_order and local_rows[t] == t
    if in_order:
        flags = side_flags(y, alpha, upper)
        no_data = np.empty((0, 0), dtype=K_block.dtype)  # (rows in one part; no row computed here)
        steps, _, gap, _ = smo_rows(
            K_block, slot, no_data, slot, np.array([n_columns]), y, upper, qd, alpha, grad, flags, tol, max_steps,
            nu_mode, 0, 0, 0, no_data, KERNEL_NONE, 0.0, 0.0, 1, np.empty(0, dtype=np.int64),
        )
    else:
        active = np.arange(m)
        state = np.array([m, m, 0])
        steps, _, gap, _ = smo(
            K_block, slot, local_rows, y, upper, alpha.copy(), qd, alpha, grad, active, state, tol, max_steps,
            nu_mode, False,
        )
    return steps, gap


@jit
def gather_rows(K, slot, R, slot_r, rows, out):
    """``out[a, b]``: kernel row ``rows[a]`` in column ``rows[b]``, read where
    :func:`svmkit._core.smo_rows.smo_rows` reads it (``K`` and ``R`` at ``slot`` and
    ``slot_r``; ``rows`` increasing, every one of them stored)."""
    split = K.shape[1]
    if rows.shape[0] == 0 or rows[-1] < split:  # (all columns in the rows' first part)
        gather_block(K, slot[rows], rows, out, np.arange(rows.shape[0]))
        return
    left = rows[rows < split]
    right = rows[rows >= split] - split
    n_left = left.shape[0]
    gather_block(K, slot[rows], left, out[:, :n_left], np.arange(rows.shape[0]))
    gather_block(R, slot_r[rows], right, out[:, n_left:], np.arange(rows.shape[0]))


@jit
def distinct_rows(rows):
    """``np.unique(rows, return_inverse=True)``, at once for rows that are increasing
    already (one variable per row, in row order)."""
    increasing = True
    for t in range(1, rows.shape[0]):
        if rows[t] <= rows[t - 1]:
            increasing = False
            break
    if increasing:
        return rows, np.arange(rows.shape[0])
    distinct = np.unique(rows)
    return distinct, np.searchsorted(distinct, rows)
