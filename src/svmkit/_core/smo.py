"""Sequential minimal optimisation of a batch of duals on kernel rows held in memory.

Every formulation's dual (DESIGN.md section 1) is

    minimise 1/2 a'Qa + p'a  subject to  y'a = const,  0 <= a_t <= U_t,

with ``Q_ts = y_t y_s K[r_t, r_s]``: variable ``t`` belongs to row ``r_t`` of the kernel
matrix (the two variables of an epsilon-SVR sample share one). A batch holds several such
problems one after another (group ``g``: the one-vs-one pairs of a multiclass fit, the
folds of a cross-validation), solved one after the other on one store of kernel rows, so
that a row computed for one serves the others.

Each step is LIBSVM's (``Solver::Solve``): the second-order working pair (Fan, Chen and
Lin, JMLR 2005), with ``nu`` within one sign of ``y`` (``Solver_NU``), and the analytic
two-variable update clipped to the box. Two things make it fast:

* **Runs.** A group's variables lie in at most two runs whose kernel columns are
  contiguous (variable ``t`` of run ``k`` uses column ``cols[k] + t - first[k]``: a
  two-class problem one run, a one-vs-one pair on data ordered by class two, epsilon-SVR's
  ``a`` and ``a*`` two runs over the same columns). Every pass over the variables then reads
  a kernel row along its length, in chunks of ``_CHUNK`` variables, and compiles to SIMD
  code: the gradient update fused with the search for the next first variable, then the
  second-order gains. A maximum with its position does not vectorise, a maximum of integers
  does: each value's float bits become an integer in the same order whose low bits are
  replaced by the variable's place in its chunk (values equal but for those 8 of 52 mantissa
  bits count as ties, which go to the last variable as in LIBSVM).
* **Shrinking as sub-problems.** Every ``_CHECK_PERIOD`` steps the solver counts the
  variables LIBSVM's shrinking would keep (``be_shrunk``); when fewer than a fifth are left
  (or, in a slow solve, fewer than half) and the steps made are many for the problem's size
  (``Settings.hand_over_work``: short solves of small problems stay whole), those are copied into
  a problem of their own (their kernel block, one row per variable) and solved there, shrunk
  again every stretch, and the gradient of every variable is updated from the rows that moved.

The store of kernel rows is a cache of ``capacity`` whole rows: all rows of a problem where
they fit, else the least recently used ones make room (LIBSVM's ``Cache``). Where it lacks a
row, the solver lists the rows it wants (that one first, then those of the strongest
violators) in ``work.wanted``, gives them places (``work.places``), and computes them
(``store.compute``: compiled kernels, :func:`svmkit._core.kernels.kernel_rows`) or returns for
the caller to compute them (BLAS products, kernels computed in Python). Rows needed at once
(a sub-problem's, a chunk of the start point's) are kept from being evicted by each other.
A call also returns after ``budget`` steps. Its position is kept in ``work``: the caller
reports progress, lets Ctrl-C through and tries steps on the face of the free multipliers
between calls.
"""

from collections import namedtuple

import numpy as np

from ._exp import bits_float, float_bits
from ._jit import inlined_jit, internal_jit, jit
from .kernels import kernel_rows
from .working_set import gather_block

#: Status of a solved problem: optimal within ``tol``; stopped at ``max_steps`` steps; a
#: multiplier or gradient that is not finite (kernel values, bounds or weights beyond
#: floating point).
OPTIMAL, ITERATION_LIMIT, NOT_FINITE = 0, 1, 3

#: Entries of ``Work.cursor``: the group being solved, how far its start is (``NOT_STARTED``,
#: ``STARTING``: the gradient of the start point being summed from ``START_AT`` on,
#: ``STARTED``), the number of rows listed in ``Work.wanted``, the steps of the group's
#: stretches on all its variables since its last sub-problem, whether a sub-problem came
#: within 10 tol (LIBSVM's unshrinking: from then on sub-problems are solved to ``tol``), and
#: whether the group's variables that shrinking keeps are to be solved as a sub-problem
#: (:func:`solve_kept`, compiled apart: a first fit that shrinks nothing does not compile it).
GROUP, STARTED, N_WANTED, STEPS_SINCE, UNSHRUNK, START_AT, HAND_OVER = range(7)
NOT_STARTED, STARTING, STARTED_DONE = 0, 2, 1
#: Entries of ``RowStore.clock``: the time of the next use of a row, the places taken so far,
#: the rows computed so far (by the store or its caller).
TICK, TAKEN, COMPUTED = range(3)

_TAU = 1e-12  # LIBSVM's TAU: the curvature used where K_ii + K_jj - 2 K_ij <= 0
_SHRINK_PERIOD = 1000  # LIBSVM: shrink every min(variables, 1000) steps
_CHECK_PERIOD = 100  # steps between two counts of the variables shrinking would keep
_HAND_OVER = 5  # a sub-problem once shrinking keeps fewer than 1/5 of the variables ...
_SLOW_STEPS_PER_VARIABLE = 5  # ... or, after this many steps a variable, fewer than half
_STEPS_PER_ACTIVE = 4  # most steps of a sub-problem's stretch per variable, before it is shrunk again
_REBUILD_SHARE = 0.75  # a sub-problem's block made anew once shrinking keeps at most this share of it
_IN_UP, _IN_LOW = 1, 2  # flags of a variable: it may move up (I_up), down (I_low)
_COLUMN_SUM_SHARE = 4  # a start's rows summed over all columns where its group has 1/4 of them (vectorised)
_CHUNK = 256  # variables of a chunk of the passes (a power of two: its place fits in the key's low bits)
_INDEX_BITS = np.int64(_CHUNK - 1)
_VALUE_BITS = ~_INDEX_BITS
_NO_KEY = np.int64(-(2**63))
_SIGN_FREE = np.int64(2**63 - 1)

Batch = namedtuple("Batch", "y p upper rows runs nu")
Batch.__doc__ = """The duals of a batch as compiled code reads them.

y, p, upper : float64 arrays, one value per variable (``upper`` may hold ``inf``)
rows : int64 array, the kernel row of each variable
runs : int64 array (n_groups + 1, 4): row ``g`` holds group ``g``'s first variable, the
    first variable of its second run (its end where it has one run) and the columns where
    its two runs start; row ``n_groups`` starts with the end of the last group
nu : bool, also keep ``sum a_t`` fixed within each sign of ``y``
"""

RowStore = namedtuple("RowStore", "K slot owner used clock qd compute data")
RowStore.__doc__ = """A cache of kernel rows: row ``r`` of the kernel matrix is ``K[slot[r]]``
over all its columns (``slot[r] < 0``: not stored); ``owner[k]`` is the row held in place
``k`` (-1: none yet), ``used[k]`` the time it was last used, ``clock`` the ``TICK``, the
places ``TAKEN`` and the rows ``COMPUTED`` (int64); ``K[0]`` holds finite values even before a row is stored there;
``qd``: the diagonal of the kernel matrix; ``compute``: whether missing rows are computed
here from ``data`` (a :class:`svmkit._core.kernels.KernelData`). Made by
:func:`row_store` or :func:`full_row_store`."""

Work = namedtuple("Work", "alpha grad flags qd cursor n_iter status gap wanted places keys resume")
Work.__doc__ = """The solver's state between calls: the multipliers and the gradient
``G = Qa + p`` (float64, updated in place), each variable's side flags and kernel diagonal,
the ``cursor`` (int64, ``GROUP`` ... ``START_AT``), per group the steps made, the status and
the gap reached, the rows wanted and the places given them in the store (int64, room for one
per variable), and the keys and ``resume`` state of :func:`_smo_stretch` (set
``resume[0] = 0`` after changing multipliers or gradients between calls)."""

Variables = namedtuple("Variables", "y upper qd alpha grad flags rows")
Variables.__doc__ = """The arrays of the variables a stretch of SMO works on: a batch's (with its work's
multipliers, gradient, flags and diagonal) or a sub-problem's."""

Span = namedtuple("Span", "start split stop col0 col1")
Span.__doc__ = """Variables ``start:stop`` in two runs: ``start:split`` on the kernel columns from
``col0``, ``split:stop`` on those from ``col1``."""

Settings = namedtuple("Settings", "tol max_steps shrinking prefetch hand_over_work")
Settings.__doc__ = """tol: the gap at which a problem is solved; max_steps: steps of a problem
before ITERATION_LIMIT; shrinking: whether shrunk sub-problems are solved; prefetch: most
rows wanted at once; hand_over_work: the least steps made times the problem's variables
before a shrunk sub-problem is handed over."""


def new_work(batch):
    """A :class:`Work` for ``batch`` at its first group, the multipliers zero."""
    m = batch.y.shape[0]
    n_groups = batch.runs.shape[0] - 1
    return Work(np.zeros(m), np.zeros(m), np.zeros(m, dtype=np.int8), np.zeros(m), np.zeros(7, dtype=np.int64),
                np.zeros(n_groups, dtype=np.int64), np.zeros(n_groups, dtype=np.int64), np.zeros(n_groups),
                np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                np.empty((5, m // _CHUNK + 2), dtype=np.int64), np.array([0, -1], dtype=np.int64))


def row_store(K, n_rows, qd, compute, data):
    """An empty :class:`RowStore` of the rows of a kernel matrix of ``n_rows`` rows, in the
    places of ``K`` (``K.shape[0]`` rows; ``K[0]`` is set to zeros)."""
    capacity = K.shape[0]
    K[0] = 0.0
    return RowStore(K, np.full(n_rows, -1, dtype=np.int64), np.full(capacity, -1, dtype=np.int64),
                    np.zeros(capacity, dtype=np.int64), np.zeros(3, dtype=np.int64), qd, compute, data)


def full_row_store(K, qd, data):
    """A :class:`RowStore` holding every row of the square kernel matrix ``K`` in place."""
    n = K.shape[0]
    rows = np.arange(n, dtype=np.int64)
    return RowStore(K, rows, rows.copy(), np.zeros(n, dtype=np.int64), np.array([0, n, 0], dtype=np.int64), qd,
                    False, data)


@jit
def solve_batch(batch, store, work, settings, budget):
    """Solve the batch's groups in order from ``work.cursor[GROUP]``; returns the steps made.

    The call returns when every group is solved (``work.cursor[GROUP]`` equals the number
    of groups), when about ``budget`` steps were made, when it needs kernel rows the
    store lacks and may not compute (``work.cursor[N_WANTED] > 0``, the rows in
    ``work.wanted``), or when the variables shrinking keeps are to be solved as a sub-problem
    (``work.cursor[HAND_OVER]``: call :func:`solve_kept`, then this again). A solved group has
    its ``work.status`` (``OPTIMAL``,
    ``ITERATION_LIMIT`` after ``settings.max_steps`` steps, ``NOT_FINITE``), ``work.gap``
    and ``work.n_iter``, and an exact gradient.

    Examples
    --------
    Two points of each class on a line, the linear kernel's rows all stored:

    >>> import numpy as np
    >>> from svmkit._core.kernels import precomputed_kernel_data
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> K = X @ X.T
    >>> batch = Batch(np.array([-1.0, -1.0, 1.0, 1.0]), -np.ones(4), np.full(4, 10.0), np.arange(4),
    ...               np.array([[0, 4, 0, 0], [4, 0, 0, 0]]), False)
    >>> store = full_row_store(K, np.diagonal(K).copy(), precomputed_kernel_data(K))
    >>> work = new_work(batch)
    >>> steps = solve_batch(batch, store, work, Settings(1e-6, 1000, True, 16, 0), 1000)
    >>> work.alpha.round(6), work.status  # the margin 1 <= x <= 3
    (array([0. , 0.5, 0.5, 0. ]), array([0]))
    """
    n_groups = batch.runs.shape[0] - 1
    y, upper, rows, runs = batch.y, batch.upper, batch.rows, batch.runs
    alpha, grad, cursor = work.alpha, work.grad, work.cursor
    cursor[N_WANTED] = 0
    used = 0
    while cursor[GROUP] < n_groups:
        g = cursor[GROUP]
        start, stop = runs[g, 0], runs[g + 1, 0]
        if cursor[STARTED] == NOT_STARTED:
            for t in range(start, stop):
                grad[t] = batch.p[t]
                work.flags[t] = _side(y[t], alpha[t], upper[t])
                work.qd[t] = store.qd[rows[t]]
            cursor[STARTED] = STARTING
            cursor[START_AT] = start
        while cursor[STARTED] == STARTING:
            # G = p + Q a at the start point, from the rows of the nonzero multipliers, a chunk
            # of them at a time (at most half the store's places)
            since = store.clock[TICK]
            end = cursor[START_AT]
            n_rows = 0
            while end < stop and n_rows < max(store.K.shape[0] // 2, 1):
                if alpha[end] != 0:
                    _use_or_want(store, work, rows[end])
                    n_rows += 1
                end += 1
            if not _get_wanted(store, work, since):
                return used
            _add_start_rows(batch, store, work, cursor[START_AT], end, start, stop)
            cursor[START_AT] = end
            if end == stop:
                cursor[STARTED] = STARTED_DONE
                cursor[STEPS_SINCE] = 0
                cursor[UNSHRUNK] = 0
                work.resume[0], work.resume[1] = 0, -1
        variables = Variables(y, upper, work.qd, alpha, grad, work.flags, rows)
        span = Span(start, runs[g, 1], stop, runs[g, 2], runs[g, 3])
        status = -1
        while status < 0:
            limit = min(settings.max_steps - work.n_iter[g], budget - used)
            status, gap, steps, missing, hand_over = _smo_stretch(
                variables, store, span, batch.nu, settings, limit,
                stop - start if settings.shrinking else 0, cursor[STEPS_SINCE], work.keys, work.resume,
            )
            used += steps
            work.n_iter[g] += steps
            cursor[STEPS_SINCE] += steps
            work.gap[g] = gap
            if missing >= 0:
                since = store.clock[TICK]
                _want(store, work, missing)
                _want_rows(store, work, variables, start, stop, settings.prefetch)
                if not _get_wanted(store, work, since):
                    return used
            elif hand_over:
                # shrinking as sub-problems: the rows of the variables it keeps first, all in
                # the store at once (else SMO goes on on all variables)
                kept = np.empty(stop - start, dtype=np.bool_)
                n_kept = kept_by_shrinking(y, upper, alpha, grad, start, stop, batch.nu, kept)
                if n_kept > store.K.shape[0]:
                    continue
                # (the rows its block still lacks, most of them rows SMO would never read, are
                # computed where they cost at most what the steps since the last sub-problem would
                # have saved on the kept variables alone; else SMO goes on, and looks again)
                n_missing = 0
                for t in range(start, stop):
                    if kept[t - start] and store.slot[rows[t]] < 0:
                        n_missing += 1
                if n_missing * store.K.shape[1] > cursor[STEPS_SINCE] * (stop - start - n_kept):
                    continue
                since = store.clock[TICK]
                for t in range(start, stop):
                    if kept[t - start]:
                        _use_or_want(store, work, rows[t])
                if not _get_wanted(store, work, since):
                    return used
                cursor[HAND_OVER] = 1
                return used
            elif status < 0:
                if work.n_iter[g] < settings.max_steps:
                    return used  # (budget spent: the position kept in work, the next call goes on)
                status = ITERATION_LIMIT
        work.status[g] = status
        cursor[GROUP] = g + 1
        cursor[STARTED] = NOT_STARTED
    return used


@inlined_jit
def _side(y_t, alpha_t, upper_t):
    """The flags of a variable: ``_IN_UP`` where ``y a`` may grow, ``_IN_LOW`` where it may shrink."""
    if y_t > 0:
        return (_IN_UP if alpha_t < upper_t else 0) | (_IN_LOW if alpha_t > 0 else 0)
    return (_IN_UP if alpha_t > 0 else 0) | (_IN_LOW if alpha_t < upper_t else 0)


@inlined_jit
def _order_key(v):
    """An int64 in the order of the float64 ``v`` (-0.0 and +0.0 get the same key)."""
    bits = float_bits(v + 0.0)
    return bits ^ ((bits >> 63) & _SIGN_FREE)


@inlined_jit
def _key_value(key):
    """The float64 of an :func:`_order_key` (``-inf`` for ``_NO_KEY``)."""
    if key == _NO_KEY:
        return -np.inf
    return bits_float(key ^ ((key >> 63) & _SIGN_FREE))


@internal_jit
def _smo_stretch(variables, store, span, nu, settings, limit, hand_over_size, steps_before, keys, resume):
    """SMO on the variables of ``span`` (kernel row ``r`` is ``store.K[store.slot[r]]``) until the gap is below ``settings.tol`` (``OPTIMAL``), ``limit`` steps were made, a
    kernel row is missing or a value is not finite (``NOT_FINITE``); with
    ``hand_over_size`` (the group's number of variables; 0: never) it also stops where
    shrinking would keep fewer than a fifth of them, or after ``_SLOW_STEPS_PER_VARIABLE``
    steps a variable (counting ``steps_before``) fewer than half. Returns ``(status, gap,
    steps, missing, hand_over)``: status -1 where not solved, ``missing`` the row needed
    (else -1).

    ``keys`` (int64, 5 rows of at least one place per chunk) holds the passes' keys per
    chunk; ``resume`` (int64, 2) says whether they are those of the multipliers as they are
    (``resume[0]``: then the first pass is skipped, as after a return for a row) and the
    second variable already chosen (``resume[1]``, else -1)."""
    y, upper, qd, alpha, grad, flags, rows = variables
    K, slot = store.K, store.slot
    start, split, stop = span.start, span.split, span.stop
    n_chunks = (split - start + _CHUNK - 1) // _CHUNK + (stop - split + _CHUNK - 1) // _CHUNK
    keys_pos, keys_neg, lows_pos = keys[0, :n_chunks], keys[1, :n_chunks], keys[2, :n_chunks]
    lows_neg, gains = keys[3, :n_chunks], keys[4, :n_chunks]
    first = np.empty(n_chunks, dtype=np.int64)  # first variable of each chunk
    column = np.empty(n_chunks, dtype=np.int64)  # its column
    count = np.empty(n_chunks, dtype=np.int64)
    c = 0
    for run_start, run_stop, run_col in ((start, split, span.col0), (split, stop, span.col1)):
        for t0 in range(run_start, run_stop, _CHUNK):
            first[c], column[c], count[c] = t0, run_col + t0 - run_start, min(_CHUNK, run_stop - t0)
            c += 1
    chunks = (first, column, count)
    scan_keys = (keys_pos, keys_neg, lows_pos, lows_neg)
    m = stop - start
    steps = 0
    c_i = c_j = 0.0
    s_i = s_j = 0  # (no step yet: a zero update along row 0 of the store, zeros where not filled)
    fresh = resume[0] == 0
    while True:
        # the gradient update of the last step fused with the search for the first variables
        # (the largest -y G over I_up, per sign with nu) and the smallest -y G over I_low
        if fresh:  # (nu a constant in each inlined copy: without it, no work for the other sign)
            step = (K, s_i, s_j, c_i, c_j)
            if nu:
                _update_and_scan(variables, step, chunks, scan_keys, True)
            else:
                _update_and_scan(variables, step, chunks, scan_keys, False)
        fresh = True
        resume[0] = 1
        if not (np.isfinite(grad[start]) and np.isfinite(c_i) and np.isfinite(c_j)):
            return NOT_FINITE, np.inf, steps, -1, False
        i_pos = _winner(keys_pos, first, _NO_KEY)
        i_neg = _winner(keys_neg, first, _NO_KEY) if nu else i_pos
        g_pos = -y[i_pos] * grad[i_pos] if i_pos >= 0 else -np.inf
        g_neg = -y[i_neg] * grad[i_neg] if i_neg >= 0 else -np.inf
        low_max_pos = low_max_neg = _NO_KEY
        for c in range(n_chunks):
            low_max_pos = max(low_max_pos, lows_pos[c])
            low_max_neg = max(low_max_neg, lows_neg[c])
        gap = max(g_pos + _key_value(low_max_pos), g_neg + _key_value(low_max_neg))
        if gap < settings.tol:
            return OPTIMAL, gap, steps, -1, False
        if steps >= limit:
            return -1, gap, steps, -1, False
        if hand_over_size > 0 and steps > 0 and (steps_before + steps) % _CHECK_PERIOD == 0 and \
                (steps_before + steps) * m >= settings.hand_over_work:
            kept = kept_by_shrinking(y, upper, alpha, grad, start, stop, nu, np.empty(m, dtype=np.bool_))
            slow = steps_before + steps >= _SLOW_STEPS_PER_VARIABLE * m and 2 * kept < m
            if kept * _HAND_OVER < m or slow:
                return -1, gap, steps, -1, True
        for i in (i_pos, i_neg):
            if i >= 0:
                if slot[rows[i]] < 0:
                    return -1, gap, steps, rows[i], False
                _use(store, slot[rows[i]])
        # a sign without a first variable: the other's row stands in (its gains are -inf)
        stand_pos = i_pos if i_pos >= 0 else i_neg
        stand_neg = i_neg if i_neg >= 0 else i_pos
        r_pos, r_neg = slot[rows[stand_pos]], slot[rows[stand_neg]]
        qd_pos, qd_neg = qd[stand_pos], qd[stand_neg]
        # the second-order gains b^2 / a of the second variable (b = -inf outside I_low)
        if resume[1] < 0:
            firsts = (K, r_pos, r_neg, g_pos, g_neg, qd_pos, qd_neg)
            if nu:
                _second_order_gains(variables, firsts, chunks, gains, True)
            else:
                _second_order_gains(variables, firsts, chunks, gains, False)
        j = _winner(gains, first, np.int64(-1)) if resume[1] < 0 else resume[1]
        if j < 0:
            return OPTIMAL, gap, steps, -1, False
        if slot[rows[j]] < 0:
            resume[1] = j
            return -1, gap, steps, rows[j], False
        resume[1] = -1
        steps += 1
        i = i_neg if (nu and y[j] < 0) else i_pos
        s_i = slot[rows[i]]
        s_j = slot[rows[j]]
        _use(store, s_j)
        old_i, old_j = alpha[i], alpha[j]
        a_i, a_j = _pair_update(y[i] != y[j], grad[i], grad[j], old_i, old_j, upper[i], upper[j],
                                qd[i] + qd[j] - 2.0 * K[s_i, rows[j]])
        alpha[i] = a_i
        alpha[j] = a_j
        flags[i] = _side(y[i], a_i, upper[i])
        flags[j] = _side(y[j], a_j, upper[j])
        c_i = y[i] * (a_i - old_i)
        c_j = y[j] * (a_j - old_j)


@inlined_jit
def _update_and_scan(variables, step, chunks, keys, nu):
    """The first pass of a step, chunk by chunk: ``G += y (c_i K[s_i] + c_j K[s_j])`` (the last
    step's ``step = (K, s_i, s_j, c_i, c_j)``), fused with the search for the first variables
    (the largest packed key of ``-y G`` over I_up, per sign with ``nu``) and the smallest
    ``-y G`` over I_low (the largest key of ``y G``), into ``keys`` (four arrays, a place per
    chunk)."""
    y, grad, flags = variables.y, variables.grad, variables.flags
    K, s_i, s_j, c_i, c_j = step
    first, column, count = chunks
    keys_pos, keys_neg, lows_pos, lows_neg = keys
    for c in range(first.shape[0]):
        t0, k0 = np.uint64(first[c]), np.uint64(column[c])
        best_pos = best_neg = low_pos = low_neg = _NO_KEY
        for k in range(count[c]):
            t = t0 + np.uint64(k)
            col = k0 + np.uint64(k)
            grad_t = grad[t] + y[t] * (c_i * K[s_i, col] + c_j * K[s_j, col])
            grad[t] = grad_t
            key = _order_key(-y[t] * grad_t)
            packed = (key & _VALUE_BITS) | np.int64(k)
            up = (flags[t] & _IN_UP) != 0
            low = (flags[t] & _IN_LOW) != 0
            negative = nu & (y[t] < 0)
            best_pos = max(best_pos, packed if up & (not negative) else _NO_KEY)
            low_pos = max(low_pos, ~key if low & (not negative) else _NO_KEY)  # (~key: the key of y G)
            if nu:
                best_neg = max(best_neg, packed if up & negative else _NO_KEY)
                low_neg = max(low_neg, ~key if low & negative else _NO_KEY)
        keys_pos[c], keys_neg[c], lows_pos[c], lows_neg[c] = best_pos, best_neg, low_pos, low_neg


@inlined_jit
def _second_order_gains(variables, firsts, chunks, gains, nu):
    """The second pass of a step, chunk by chunk: the largest packed second-order gain
    ``b^2 / a`` of a second variable (``b = -inf`` outside I_low) against the first variable
    of its sign (``firsts = (K, r_pos, r_neg, g_pos, g_neg, qd_pos, qd_neg)``: their rows'
    places, ``-y G`` and diagonals), into ``gains`` (a place per chunk)."""
    y, grad, flags, qd = variables.y, variables.grad, variables.flags, variables.qd
    K, r_pos, r_neg, g_pos, g_neg, qd_pos, qd_neg = firsts
    first, column, count = chunks
    for c in range(first.shape[0]):
        t0, k0 = np.uint64(first[c]), np.uint64(column[c])
        best = np.int64(-1)
        for k in range(count[c]):
            t = t0 + np.uint64(k)
            col = k0 + np.uint64(k)
            positive = (not nu) | (y[t] > 0)
            b = (g_pos if positive else g_neg) + y[t] * grad[t]
            k_it = K[r_pos, col] if positive else K[r_neg, col]
            quad = (qd_pos if positive else qd_neg) + qd[t] - 2.0 * k_it
            b = b if ((flags[t] & _IN_LOW) != 0) & (b > 0) else -1.0
            gain = float_bits((b * abs(b)) / (quad if quad > 0 else _TAU))
            best = max(best, (gain & _VALUE_BITS) | np.int64(k))
        gains[c] = best


@inlined_jit
def _winner(keys, first, none):
    """The variable of the largest packed key (one per chunk, ``none`` where a chunk has
    none; ties of the value to the last chunk), or -1 where no chunk has one."""
    best = keys[0]
    chunk = 0
    for c in range(1, keys.shape[0]):
        if (keys[c] & _VALUE_BITS) >= (best & _VALUE_BITS):
            best = keys[c]
            chunk = c
    if best == none:
        return -1
    return first[chunk] + (best & _INDEX_BITS)


@internal_jit
def _pair_update(opposite_signs, grad_i, grad_j, old_i, old_j, upper_i, upper_j, quad):
    """The new ``(a_i, a_j)`` of one step (LIBSVM's ``Solver::Solve``): the minimiser along
    the pair's feasible line, clipped to the box; ``quad = K_ii + K_jj - 2 K_ij``."""
    if quad <= 0:
        quad = _TAU
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
    ai, aj = _clip_same_sign(old_i - delta, old_j + delta, total, upper_i)
    aj, ai = _clip_same_sign(aj, ai, total, upper_j)
    return ai, aj


@inlined_jit
def _clip_same_sign(a, b, total, upper_a):
    """``(a, b)`` of a pair of the same sign (``a + b = total``) clipped where ``a`` passes
    its bound ``upper_a`` or ``b`` falls below 0 (LIBSVM's clipping, one side of the pair)."""
    if total > upper_a:
        if a > upper_a:
            return upper_a, total - upper_a
    elif b < 0:
        return total, 0.0
    return a, b


@jit
def kept_by_shrinking(y, upper, alpha, grad, start, stop, nu, out):
    """Mark in ``out`` (from 0) the variables ``start:stop`` that LIBSVM's shrinking would
    keep: all but those that cannot enter a violating pair of their sign group
    (``be_shrunk``: only in I_up and ``-y G`` below ``M``, or only in I_low and above ``m``).
    Returns how many are kept."""
    m_up = np.full(2, -np.inf)
    m_low = np.full(2, np.inf)
    for t in range(start, stop):
        side = 1 if (nu and y[t] < 0) else 0
        flag = _side(y[t], alpha[t], upper[t])
        v = -y[t] * grad[t]
        if flag & _IN_UP:
            m_up[side] = max(m_up[side], v)
        if flag & _IN_LOW:
            m_low[side] = min(m_low[side], v)
    n_kept = 0
    for t in range(start, stop):
        side = 1 if (nu and y[t] < 0) else 0
        flag = _side(y[t], alpha[t], upper[t])
        v = -y[t] * grad[t]
        shrunk = flag == 0 or (flag == _IN_UP and v < m_low[side]) or (flag == _IN_LOW and v > m_up[side])
        out[t - start] = not shrunk
        n_kept += not shrunk
    return n_kept


@jit
def solve_kept(batch, store, work, settings, budget):
    """The sub-problem :func:`solve_batch` handed over (``work.cursor[HAND_OVER]``): the
    variables of the current group that shrinking keeps, their rows stored, solved by
    :func:`_solve_shrunk` in at most ``budget`` steps (and the group's step limit); returns
    the steps made.

    Examples
    --------
    Nothing handed over, nothing solved:

    >>> import numpy as np
    >>> from svmkit._core.kernels import precomputed_kernel_data
    >>> K = np.eye(2)
    >>> batch = Batch(np.array([-1.0, 1.0]), -np.ones(2), np.ones(2), np.arange(2),
    ...               np.array([[0, 2, 0, 0], [2, 0, 0, 0]]), False)
    >>> solve_kept(batch, full_row_store(K, np.ones(2), precomputed_kernel_data(K)), new_work(batch),
    ...            Settings(1e-3, 100, True, 1, 0), 100)
    0
    """
    cursor = work.cursor
    if not cursor[HAND_OVER]:
        return 0
    cursor[HAND_OVER] = 0
    g = cursor[GROUP]
    start, stop = batch.runs[g, 0], batch.runs[g + 1, 0]
    steps, interrupted = _solve_shrunk(batch, store, work, settings, start, stop,
                                       max(min(settings.max_steps - work.n_iter[g], budget), 0))
    work.resume[0], work.resume[1] = 0, -1
    work.n_iter[g] += steps
    cursor[STEPS_SINCE] = 0
    if interrupted and work.n_iter[g] < settings.max_steps:
        cursor[HAND_OVER] = 1  # (the budget spent: the next call goes on with the sub-problem)
    return steps


@inlined_jit
def _solve_shrunk(batch, store, work, settings, start, stop, limit):
    """LIBSVM's shrinking as sub-problems: the variables shrinking keeps (their rows stored)
    copied into a problem of their own (their kernel block, one row per variable), solved
    by stretches of :func:`_smo_stretch` of at most ``min(1000, _STEPS_PER_ACTIVE k)`` steps,
    each followed by shrinking again within it (the block made anew from the old one where
    shrinking keeps at most ``_REBUILD_SHARE`` of it, else kept whole), until they are
    optimal (the first time: within 10 tol, when LIBSVM brings every variable back) or
    ``limit`` steps were made; then the multipliers are written back and the gradient of
    every variable of the group is updated once from the rows of those that moved. Returns
    the steps made and whether ``limit`` stopped them (none are made where a kept variable's
    row is not stored)."""
    y, upper, rows = batch.y, batch.upper, batch.rows
    alpha, grad = work.alpha, work.grad
    m = stop - start
    kept = np.empty(m, dtype=np.bool_)
    target = settings.tol if work.cursor[UNSHRUNK] else 10 * settings.tol
    n_kept = kept_by_shrinking(y, upper, alpha, grad, start, stop, batch.nu, kept)
    for t in range(start, stop):
        if kept[t - start] and store.slot[rows[t]] < 0:
            return 0, False
    if n_kept == 0:
        return 0, False
    active = np.flatnonzero(kept) + start  # (the group's variables of the sub-problem, in order)
    active_rows = rows[active]
    block = np.empty((n_kept, n_kept), dtype=store.K.dtype)
    gather_block(store.K, store.slot[active_rows], active_rows, block)
    sub_y, sub_upper, sub_alpha, sub_grad = y[active], upper[active], alpha[active], grad[active]
    sub_flags, sub_qd = work.flags[active], work.qd[active]
    final_alpha = sub_alpha.copy()  # (each variable's multiplier when it leaves the sub-problem)
    member = np.arange(n_kept)  # (the position in ``active`` of each variable of the block)
    n_block = n_kept
    in_block = np.empty(n_kept, dtype=np.bool_)
    steps = 0
    interrupted = False
    while True:
        sub = Variables(sub_y, sub_upper, sub_qd, sub_alpha, sub_grad, sub_flags, np.arange(n_block))
        status, stretch = smo_on_block(block, sub, batch.nu, target,
                                       min(_SHRINK_PERIOD, _STEPS_PER_ACTIVE * n_block, limit - steps), store.data)
        steps += stretch
        if status == NOT_FINITE:
            break
        if status == OPTIMAL:
            if not work.cursor[UNSHRUNK]:
                work.cursor[UNSHRUNK] = 1
            break
        if steps >= limit:
            interrupted = True
            break
        n_now = kept_by_shrinking(sub_y, sub_upper, sub_alpha, sub_grad, np.int64(0), n_block, batch.nu, in_block)
        if n_now == 0:
            break
        if n_now <= _REBUILD_SHARE * n_block:  # (else the block as it is: a copy costs more than it saves)
            final_alpha[member] = sub_alpha
            keep = np.flatnonzero(in_block[:n_block])
            smaller = np.empty((n_now, n_now), dtype=block.dtype)
            gather_block(block, keep, keep, smaller)
            block = smaller
            sub_y, sub_upper, sub_alpha = sub_y[keep], sub_upper[keep], sub_alpha[keep]
            sub_grad, sub_flags, sub_qd, member = sub_grad[keep], sub_flags[keep], sub_qd[keep], member[keep]
            n_block = n_now
    final_alpha[member] = sub_alpha
    _commit(batch, store, work, active, final_alpha, start, stop)
    return steps, interrupted


@inlined_jit
def smo_on_block(block, variables, nu, tol, limit, data):
    """A stretch of :func:`_smo_stretch` on variables that have a row each of the square
    kernel ``block`` (:class:`Variables`, updated in place; ``data``: a
    :class:`svmkit._core.kernels.KernelData` for the store's type, never read), without
    shrinking's hand-over, to ``tol`` in at most ``limit`` steps. Returns ``(status, steps)``
    (status -1: ``limit`` reached). For shrinking's sub-problems and the linear kernel's
    working sets (:mod:`svmkit._core.blocked`)."""
    n = block.shape[0]
    places = np.arange(n)
    zero = np.int64(0)
    store = RowStore(block, places, places, np.zeros(n, dtype=np.int64), np.array([0, n, 0], dtype=np.int64),
                     variables.qd, False, data)
    status, _, steps, _, _ = _smo_stretch(
        variables, store, Span(zero, n, n, zero, zero), nu, Settings(tol, limit, False, np.int64(1), zero), limit,
        zero, zero, np.empty((5, n // _CHUNK + 2), dtype=np.int64), np.array([0, -1], dtype=np.int64),
    )
    return status, steps


@inlined_jit
def _commit(batch, store, work, active, sub_alpha, start, stop):
    """Write a sub-problem's multipliers back and update the gradient (and side flags) of
    every variable of the group with the kernel rows of those that moved."""
    y, rows, alpha = batch.y, batch.rows, work.alpha
    n_columns = store.K.shape[1]
    column_sum = np.zeros(n_columns)
    for a in range(active.shape[0]):
        t = active[a]
        change = sub_alpha[a] - alpha[t]
        if change != 0:
            alpha[t] = sub_alpha[a]
            work.flags[t] = _side(y[t], alpha[t], batch.upper[t])
            _add_weighted(column_sum, store.K[store.slot[rows[t]]], y[t] * change)
    for t in range(start, stop):
        work.grad[t] += y[t] * column_sum[rows[t]]


@internal_jit
def _add_start_rows(batch, store, work, first, end, start, stop):
    """``G_t += sum_s y_t y_s a_s K(s, t)`` for the variables ``t`` of ``start:stop`` and the
    nonzero multipliers ``s`` of ``first:end`` (their rows stored): where the group holds a
    ``1 / _COLUMN_SUM_SHARE`` of the store's columns, the rows summed over every column
    (vectorised), then read at the group's; else added into the group's variables directly."""
    y, rows, alpha, grad = batch.y, batch.rows, work.alpha, work.grad
    if (stop - start) * _COLUMN_SUM_SHARE >= store.K.shape[1]:
        column_sum = np.zeros(store.K.shape[1])
        for s in range(first, end):
            if alpha[s] != 0:
                _add_weighted(column_sum, store.K[store.slot[rows[s]]], y[s] * alpha[s])
        for t in range(start, stop):
            grad[t] += y[t] * column_sum[rows[t]]
    else:
        for s in range(first, end):
            if alpha[s] != 0:
                row = store.K[store.slot[rows[s]]]
                for t in range(start, stop):
                    grad[t] += y[t] * y[s] * alpha[s] * row[rows[t]]


@internal_jit
def _add_weighted(column_sum, row, weight):
    """``column_sum += weight * row``."""
    for c in range(np.uint64(row.shape[0])):  # (unsigned: vectorised, see working_set.column_sum)
        column_sum[c] += weight * row[c]


@internal_jit
def _get_wanted(store, work, since):
    """Give the rows listed in ``work.wanted`` places in the store (``work.places``; where it
    is full, those of the rows least recently used before ``since``) and compute them where
    the store computes its rows (True, the list emptied); else leave them listed for the
    caller to compute into their places (False)."""
    count = work.cursor[N_WANTED]
    for k in range(count):
        place = _take_place(store, since)
        store.slot[work.wanted[k]] = place
        store.owner[place] = work.wanted[k]
        work.places[k] = place
    if count and not store.compute:
        return False
    kernel_rows(store.data, work.wanted[:count], store.K, work.places[:count])
    store.clock[COMPUTED] += count
    work.cursor[N_WANTED] = 0
    return True


@internal_jit
def _take_place(store, since):
    """A place for a row: one never taken, else that of the row least recently used before
    ``since`` (of all rows where every row was used since), which leaves the store. Marked
    as used now."""
    clock = store.clock
    if clock[TAKEN] < store.K.shape[0]:
        place = clock[TAKEN]
        clock[TAKEN] += 1
    else:
        place = -1
        for k in range(store.K.shape[0]):
            if store.used[k] < since and (place < 0 or store.used[k] < store.used[place]):
                place = k
        if place < 0:
            place = np.argmin(store.used)
        store.slot[store.owner[place]] = -1
    _use(store, place)
    return place


@inlined_jit
def _use(store, place):
    """Mark the row in ``place`` as used now."""
    store.used[place] = store.clock[TICK]
    store.clock[TICK] += 1


@inlined_jit
def _want(store, work, r):
    """List row ``r`` in ``work.wanted`` where it is not stored, once (its slot marked -2
    until the list is taken)."""
    if store.slot[r] == -1:
        work.wanted[work.cursor[N_WANTED]] = r
        work.cursor[N_WANTED] += 1
        store.slot[r] = -2


@inlined_jit
def _use_or_want(store, work, r):
    """Mark row ``r`` as used now where it is stored, else list it (:func:`_want`)."""
    if store.slot[r] >= 0:
        _use(store, store.slot[r])
    else:
        _want(store, work, r)


@internal_jit
def _want_rows(store, work, variables, start, stop, prefetch):
    """After the row SMO needs (listed already), list the missing rows of the strongest
    violators (``-y G`` in I_up, ``y G`` in I_low, the larger), up to ``prefetch`` rows in
    all, and at most half the store (so that the rows listed do not push each other, or the
    row of the pair's other variable, out)."""
    y, rows, grad, flags = variables.y, variables.rows, variables.grad, variables.flags
    room = min(prefetch, stop - start, max(store.K.shape[0] // 2, 1)) - work.cursor[N_WANTED]
    if room > 0:
        best_score = np.full(room, -np.inf)
        best_row = np.full(room, -1)
        weakest = 0
        for t in range(start, stop):
            if store.slot[rows[t]] != -1:
                continue
            v = -y[t] * grad[t]
            score = max(v if flags[t] & _IN_UP else -np.inf, -v if flags[t] & _IN_LOW else -np.inf)
            if score > best_score[weakest]:
                if best_row[weakest] >= 0:
                    store.slot[best_row[weakest]] = -1
                best_score[weakest] = score
                best_row[weakest] = rows[t]
                store.slot[rows[t]] = -2
                for c in range(room):
                    if best_score[c] < best_score[weakest]:
                        weakest = c
        for k in range(room):
            if best_row[k] >= 0:
                store.slot[best_row[k]] = -1
                _want(store, work, best_row[k])


@jit
def group_rho(batch, alpha, grad):
    """LIBSVM's ``rho`` of each group from the gradient at the solution: ``(r1, r2)``, the
    average of ``y G`` over the free variables or, with none, the middle of the interval the
    KKT conditions leave (``Solver::calculate_rho``); with ``nu`` per sign of ``y``, ``r1``
    over ``y = +1`` and ``r2`` over ``y = -1`` of ``G`` (``Solver_NU::calculate_rho``), else
    ``r1 = r2``. Variables of bound 0 (samples of weight 0) do not count. Where one side of
    the interval is unbounded, the other; 0 where both are.

    Examples
    --------
    >>> import numpy as np
    >>> batch = Batch(np.array([1.0, -1.0, 1.0]), -np.ones(3), np.ones(3), np.arange(3),
    ...               np.array([[0, 3, 0, 0], [3, 0, 0, 0]]), False)
    >>> group_rho(batch, np.array([0.5, 0.5, 0.0]), np.array([-1.0, -3.0, 2.0]))
    (array([1.]), array([1.]))
    """
    n_groups = batch.runs.shape[0] - 1
    r1 = np.empty(n_groups)
    r2 = np.empty(n_groups)
    for g in range(n_groups):
        for side in range(2 if batch.nu else 1):
            total = 0.0
            n_free = 0
            lower = -np.inf
            higher = np.inf
            for t in range(batch.runs[g, 0], batch.runs[g + 1, 0]):
                y_t = batch.y[t]
                if (batch.nu and (y_t < 0) != (side == 1)) or batch.upper[t] == 0:
                    continue
                value = grad[t] if batch.nu else y_t * grad[t]
                # (nu: G, not y G, so that y = -1 counts its bounds the other way round)
                flag = _side(1.0 if batch.nu else y_t, alpha[t], batch.upper[t])
                if flag == _IN_UP | _IN_LOW:
                    total += value
                    n_free += 1
                    continue
                if not flag & _IN_UP:
                    lower = max(lower, value)
                if not flag & _IN_LOW:
                    higher = min(higher, value)
            if n_free:
                rho = total / n_free
            elif np.isfinite(lower) and np.isfinite(higher):
                rho = 0.5 * (lower + higher)
            elif np.isfinite(lower):
                rho = lower
            elif np.isfinite(higher):
                rho = higher
            else:
                rho = 0.0
            r2[g] = rho
            if side == 0:
                r1[g] = rho
    return r1, r2
