"""SMO with the variables in kernel-row order: every pass is a contiguous loop.

Variable ``t`` uses row ``t % n`` of an ``n``-column kernel matrix (C-SVC,
one-class and nu-SVC: ``m = n``; epsilon-SVR and nu-SVR: ``m = 2n``), so a
kernel row is read along its length with no index array, and each step takes
passes that the compiler turns into SIMD code:

1. the gradient update, fused with the search for the largest ``-y G`` over
   I_up (the next ``i``) and the smallest over I_low (the stopping condition)
   in each chunk of ``_SCAN`` variables;
2. the second-order gains ``b^2 / a`` of all candidates ``j`` and their
   largest value per chunk.

A row may also be read in two parts stored apart (``K`` and ``R``, each with
its own place of the row): a one-vs-one problem's rows are then read from the
within-class and cross blocks where they are stored, not copied into a Gram
matrix of the problem's own. The variables of each part have chunks of their
own, and each pass runs once on each part.

Plain and nu mode have loops of their own: in plain mode there is one ``i``,
so the gains read one kernel row with no per-variable choice between two.

A maximum with its index does not vectorise; the largest value does when it is
taken over integers. A float64 maps to an int64 with the same order by
flipping the non-sign bits of negative numbers, and the low bits of that key
are replaced by the variable's place in its chunk: the largest such packed key
names its variable, and no pass has to look for it (a third of a step on 208
variables, 700 -> 480 ns; a twelfth on 700). The choices are those of
:func:`svmkit._core.smo.smo` without shrinking (the same pairs, ties to the
last index), except that values whose keys differ only in those low bits (8 of
the 52 bits of the mantissa) count as ties; a step costs about a third of one
of that loop (svmguide1, RBF, m = 3089, float32 rows: 6.4-8.3 us instead of
24 us, before the packed keys).

There is no shrinking here: every 100 steps the solver counts the variables
that LIBSVM's shrinking would keep and, when fewer than ``m /
hand_over_fraction`` of them are left, returns ``SMO_USE_SHRINKING`` so that
the caller solves those as a sub-problem of their own, with LIBSVM's shrinking
(the solver hands over below m / 5; svmguide1, m = 3089, linear kernel: after
300 of its 1,215 steps). A slow solve hands over from m / 2 on, where the
sub-problem's Newton steps on the face of its free multipliers can take them all.

The per-step loop takes no slices and no row views: each would cost two atomic
reference-count updates, which made up some 40% of a step on a sub-problem of
65 variables (0.99 us per step before, 0.43 us after). For the same reason it calls
no NumPy reduction (``keys.max()`` took a reference), and its passes are inlined
into it (numba passes each array argument as some seven words: a call of a pass
pushed 60 of them) and look up rows with no division (``t % n``). A step on a
precomputed Gram matrix, no shrinking, 40 variables: 115 -> 81 ns; 128: 134 -> 110
ns; 512: 321 -> 262 ns (the same steps).
"""

import numpy as np

from ._bits import bits_float, float_bits
from ._jit import inlined_jit, jit
from .kernel_blocks import KERNEL_NONE, KERNEL_PRECOMPUTED, kernel_row
from .smo import (
    _TAU, SMO_NEED_ROW, SMO_OPTIMAL, SMO_STEP_LIMIT, kept_by_shrinking, membership, pair_update, violation_gap,
)

SMO_USE_SHRINKING = 3

_IN_UP = 1
_IN_LOW = 2
_NO_KEY = np.int64(-(2**63))
_SIGN_FREE = np.int64(2**63 - 1)
_SCAN = 256  # variables per chunk (a power of two): the passes keep one packed maximum per chunk
_INDEX_BITS = np.int64(_SCAN - 1)  # the low bits of a packed key: the variable's place in its chunk
_VALUE_BITS = ~_INDEX_BITS
_CHECK_PERIOD = 100  # steps between two such counts (an O(m) pass)
# after this many steps a variable (a slow solve: SMO zig-zags on many free multipliers) the
# hand-over comes from half of the variables on (208 x 60 noisy data, linear kernel: 4,711
# steps instead of 11,017 at 10 a variable, 0.45x LIBSVM's time instead of 1.31x). 5 once made
# 351 x 34 take 1.26x and splice 1.11x as long; since the steps before a sub-problem count too
# (steps_before), 5 against 10, two revisions alternating in one process: 700 x 16 with 26
# classes, linear, 0.491 -> 0.438 of LIBSVM's time, 351 x 34 linear 0.262 -> 0.243, splice linear
# 14,351 -> 13,980 steps (9.97 -> 9.84 ms), usps, many-classes and wide-linear the same steps
_SLOW_STEPS_PER_VARIABLE = 5


@jit
def side_flags(y, alpha, upper):
    """Bit 1: the variable is in I_up (``y a`` may grow); bit 2: in I_low."""
    flags = np.empty(alpha.shape[0], dtype=np.int8)
    for t in range(alpha.shape[0]):
        flags[t] = _side(y[t], alpha[t], upper[t])
    return flags


@jit
def _side(y_t, alpha_t, upper_t):
    in_up, in_low = membership(y_t, alpha_t, upper_t)
    return (_IN_UP if in_up else 0) | (_IN_LOW if in_low else 0)


@jit
def _chunk(c, n):
    """Chunk ``c`` of the variables: ``(t0, k0, count)``, variables ``t0 + k`` use
    columns ``k0 + k`` for ``k < count``. Chunks hold ``_SCAN`` variables and never
    straddle two copies of the rows. The offsets are unsigned: indices built from
    them need no wrap-around test, so the loops stay contiguous without slices."""
    per_copy = (n + _SCAN - 1) // _SCAN
    copy_start = 0
    if c >= per_copy:  # (the second copy: at most two, and no division)
        c -= per_copy
        copy_start = n
    k0 = c * _SCAN
    return np.uint64(copy_start + k0), np.uint64(k0), min(_SCAN, n - k0)


@jit
def _n_chunks(m, n):
    return (m // n) * ((n + _SCAN - 1) // _SCAN)


@jit
def _row(t, n):
    """The row ``t % n`` of variable ``0 <= t < 2 n``, with no division."""
    return t - n if t >= n else t


@jit
def _flip_negative(bits):
    """The non-sign bits of a negative int64 flipped: float bits to an order key and back."""
    return bits ^ ((bits >> 63) & _SIGN_FREE)


@jit
def _order_key(v):
    """An int64 in the order of the float64 ``v`` (-0.0 and +0.0 get the same key)."""
    return _flip_negative(float_bits(v + 0.0))


@jit
def _largest_value(keys):
    """The float64 whose :func:`_order_key` is the largest of ``keys`` (``-inf`` for none).

    (A loop, not ``keys.max()``: that call took and released a reference to ``keys``, two
    atomic updates a step.)"""
    key = _NO_KEY
    for c in range(keys.shape[0]):
        key = max(key, keys[c])
    if key == _NO_KEY:
        return -np.inf
    return bits_float(_flip_negative(key))


@jit
def _gain_bits(b, quad):
    """The bits of ``b |b| / quad`` (``quad`` at least ``_TAU``): LIBSVM's gain ``b^2 /
    quad`` for ``b >= 0``, whose bits are in its order; negative bits for ``b < 0``."""
    return float_bits((b * abs(b)) / (quad if quad > 0 else _TAU))


@inlined_jit
def _up_keys(n, first, chunk0, n_chunks, y, grad, flags, K, s_i, s_j, c_i, c_j, nu_mode, keys_pos, keys_neg, lows_pos,
             lows_neg):
    """``G_t += y_t (c_i K[s_i, t] + c_j K[s_j, t])``, and in the same loop per chunk
    the largest packed key (:func:`_packed`) of ``-y G`` over I_up and the largest
    :func:`_order_key` of ``y G`` over I_low (``_NO_KEY`` where there is none; the key of
    ``-v`` is the bitwise complement of that of ``v``, but for zero): of ``y > 0``
    in ``keys_pos`` and ``lows_pos`` and of ``y < 0`` in ``keys_neg`` and ``lows_neg`` in nu
    mode, of all in ``keys_pos`` and ``lows_pos`` otherwise. For the ``n_chunks`` chunks
    from ``chunk0`` on, whose variables start at ``first`` and use ``n``-column rows of
    ``K`` (the rows' second part, see :func:`smo_rows`, has chunks of its own)."""
    for c in range(n_chunks):
        t0, k0, count = _chunk(c, n)
        t0 += np.uint64(first)
        # (``max`` of a conditional expression, not an ``if``: the form LLVM vectorises)
        best_pos = _NO_KEY
        best_neg = _NO_KEY
        low_pos = _NO_KEY
        low_neg = _NO_KEY
        if nu_mode:
            for k in range(count):
                t = t0 + np.uint64(k)
                col = k0 + np.uint64(k)
                g = grad[t] + y[t] * (c_i * K[s_i, col] + c_j * K[s_j, col])
                grad[t] = g
                score_key = _order_key(-y[t] * g)
                key = _packed(score_key, k)
                low_key = ~score_key  # the order key of y G (of -0.0 where y G is 0)
                up = (flags[t] & _IN_UP) != 0
                low = (flags[t] & _IN_LOW) != 0
                best_pos = max(best_pos, key if up & (y[t] > 0) else _NO_KEY)
                best_neg = max(best_neg, key if up & (y[t] < 0) else _NO_KEY)
                low_pos = max(low_pos, low_key if low & (y[t] > 0) else _NO_KEY)
                low_neg = max(low_neg, low_key if low & (y[t] < 0) else _NO_KEY)
        else:
            for k in range(count):
                t = t0 + np.uint64(k)
                col = k0 + np.uint64(k)
                g = grad[t] + y[t] * (c_i * K[s_i, col] + c_j * K[s_j, col])
                grad[t] = g
                score_key = _order_key(-y[t] * g)
                best_pos = max(best_pos, _packed(score_key, k) if flags[t] & _IN_UP else _NO_KEY)
                low_pos = max(low_pos, ~score_key if flags[t] & _IN_LOW else _NO_KEY)
        keys_pos[chunk0 + c] = best_pos
        keys_neg[chunk0 + c] = best_neg
        lows_pos[chunk0 + c] = low_pos
        lows_neg[chunk0 + c] = low_neg


@inlined_jit
def _gains(n, first, chunk0, n_chunks, y, grad, qd, flags, K, s_pos, s_neg, g_pos, g_neg, qd_pos, qd_neg, nu_mode,
           keys):
    """Per chunk the largest packed key (:func:`_packed`) of the gain ``b^2 / a`` of
    pairing ``t`` (in I_low, ``b > 0``) with the ``i`` of its sign, whose kernel row is
    ``K[s_pos]`` or ``K[s_neg]`` (plain mode: one ``i``, given as the positive one),
    -1 for a chunk without a candidate; chunks as in :func:`_up_keys`.

    (Every variable's ``b |b| / a`` is computed, with ``b = -1`` for those that are not
    candidates: their float bits are negative and lose to -1, with no selection after the
    division; a pass on 1,000 variables 1.7 -> 1.0 ns a variable, with the count of
    violators that it made before, now :func:`_up_keys`' smallest ``-y G`` over I_low.)"""
    for c in range(n_chunks):
        t0, k0, count = _chunk(c, n)
        t0 += np.uint64(first)
        best = np.int64(-1)
        if nu_mode:
            for k in range(count):
                t = t0 + np.uint64(k)
                col = k0 + np.uint64(k)
                pos = y[t] > 0
                k_pos = K[s_pos, col]  # both loaded, then selected: a blend, not a gather
                k_neg = K[s_neg, col]
                b = (g_pos if pos else g_neg) + y[t] * grad[t]
                quad = (qd_pos if pos else qd_neg) + qd[t] - 2.0 * (k_pos if pos else k_neg)
                best = max(best, _packed(_gain_bits(b if ((flags[t] & _IN_LOW) != 0) & (b > 0) else -1.0, quad), k))
        else:
            for k in range(count):
                t = t0 + np.uint64(k)
                col = k0 + np.uint64(k)
                b = g_pos + y[t] * grad[t]
                quad = qd_pos + qd[t] - 2.0 * K[s_pos, col]
                best = max(best, _packed(_gain_bits(b if ((flags[t] & _IN_LOW) != 0) & (b > 0) else -1.0, quad), k))
        keys[chunk0 + c] = best


@jit
def _packed(key, k):
    """``key`` with its low bits replaced by ``k``, the variable's place in its chunk:
    in the order of the keys, ties (and keys that differ only in those bits) to the
    larger ``k``."""
    return (key & _VALUE_BITS) | np.int64(k)


@inlined_jit
def _winner(n, split, n_left, keys):
    """The variable of the largest packed key of ``keys`` (one per chunk: ``n_left`` of the
    rows' first ``split`` columns, then those of the others), ties of the value bits to the
    last chunk, or -1 if no chunk has one."""
    best = keys[0]
    chunk = 0
    for c in range(1, keys.shape[0]):
        if (keys[c] & _VALUE_BITS) >= (best & _VALUE_BITS):
            best = keys[c]
            chunk = c
    if best == _NO_KEY:
        return -1
    if chunk < n_left:
        t0, _, _ = _chunk(chunk, split)
    else:
        t0, _, _ = _chunk(chunk - n_left, n - split)
        t0 += np.uint64(split)
    return np.int64(t0) + (best & _INDEX_BITS)


@jit
def compute_row(K, slot, n_filled, r, XT, kernel, gamma, coef0, degree, data_rows, scratch):
    """Compute kernel row ``r`` (not stored yet) into the next free row of ``K``
    when ``kernel`` allows; whether it did. ``KERNEL_PRECOMPUTED``: row ``r`` is
    copied from the Gram matrix ``XT`` of all data rows, of which the variables' rows
    are ``data_rows`` (its row ``data_rows[r]``, at the columns ``data_rows``; empty:
    every row of ``XT``, in order, copied without an index: 3,000 float32 rows 6.4 ->
    3.7 ms); otherwise :func:`svmkit._core.kernel_blocks.kernel_row` computes it from
    the columns of ``XT`` (``data_rows`` unused).

    Examples
    --------
    >>> import numpy as np
    >>> gram = np.arange(16.0).reshape(4, 4)
    >>> K, slot, n_filled = np.zeros((2, 2)), np.full(2, -1), np.zeros(1, dtype=np.int64)
    >>> compute_row(K, slot, n_filled, 1, gram, KERNEL_PRECOMPUTED, 0.0, 0.0, 1, np.array([3, 1]), np.empty(0))
    True
    >>> K[slot[1]], n_filled  # the values of row 1 of gram at the columns 3 and 1
    (array([7., 5.]), array([1]))
    >>> K, slot, n_filled = np.zeros((4, 4)), np.full(4, -1), np.zeros(1, dtype=np.int64)
    >>> compute_row(K, slot, n_filled, 2, gram, KERNEL_PRECOMPUTED, 0.0, 0.0, 1, np.empty(0, dtype=np.int64), K[0])
    True
    >>> K[slot[2]]  # row 2 of gram
    array([ 8.,  9., 10., 11.])
    """
    if kernel == KERNEL_NONE:
        return False
    slot[r] = n_filled[0]
    n_filled[0] += 1
    if kernel == KERNEL_PRECOMPUTED:
        out = K[slot[r]]
        if data_rows.shape[0] == 0:
            source = XT[r]
            for c in range(out.shape[0]):
                out[c] = source[c]
        else:
            source = XT[data_rows[r]]
            for c in range(data_rows.shape[0]):
                out[c] = source[data_rows[c]]
    else:
        kernel_row(XT, r, kernel, gamma, coef0, degree, scratch, K[slot[r]])
    return True


@jit
def row_scratch(XT, kernel, n):
    """The ``scratch`` of :func:`compute_row` for rows of ``n`` values: the sums of
    :func:`svmkit._core.kernel_blocks.kernel_row` where it computes the rows, none where they
    are copied (``KERNEL_PRECOMPUTED``) or come from the caller (``KERNEL_NONE``)."""
    computed = kernel != KERNEL_NONE and kernel != KERNEL_PRECOMPUTED
    return np.empty(n if computed else 0, dtype=XT.dtype)


@jit
def smo_rows(
    K, slot, R, slot_r, n_filled, y, upper, qd, alpha, grad, flags, tol, max_steps, nu_mode, hand_over_fraction,
    slow_max_kept, steps_before, XT, kernel, gamma, coef0, degree, data_rows,
):
    """Run SMO on variables in row order until the gap is below ``tol``,
    ``max_steps`` updates were made, a kernel row is missing, or few
    variables would stay active under shrinking.

    Parameters
    ----------
    K : 2-D float array with ``split`` columns
        Computed kernel rows: the first ``split`` columns of row ``r`` of the
        kernel matrix are ``K[slot[r]]``; variable ``t`` uses row ``t % n``.
    slot : int64 array, shape (n,)
        Where each row is stored in ``K`` (-1: not computed yet); updated in
        place when rows are computed here.
    R : 2-D float array of ``K``'s type with ``n - split`` columns
        The other columns of row ``r``: ``R[slot_r[r]]``. With ``n - split > 0``
        (rows in two parts, read where they are stored: the within-class and cross
        blocks of a one-vs-one problem), every row is stored and ``m = n``; else
        ``R`` is any array with no columns and ``slot_r`` is ``slot``.
    slot_r : int64 array, shape (n,)
        Where each row's other columns are stored in ``R``.
    n_filled : int64 array, shape (1,)
        How many rows of ``K`` are taken; rows computed here go to the next ones.
    y, upper, qd : float64 arrays, shape (m,), ``m`` a multiple of ``n``
    alpha, grad : float64 arrays, shape (m,), updated in place
    flags : int8 array, shape (m,)
        :func:`side_flags` of ``alpha``, updated in place.
    tol : float
    max_steps : int
    nu_mode : bool
        Pairs within one sign of ``y`` (nu-SVC, nu-SVR).
    hand_over_fraction : int
        Return ``SMO_USE_SHRINKING`` when shrinking would keep fewer than
        ``m / hand_over_fraction`` variables (checked every 100 steps; 0: never).
    slow_max_kept : int
        Also return it, after ``_SLOW_STEPS_PER_VARIABLE`` steps a variable,
        when shrinking would keep fewer than ``m / 2`` variables and at most
        ``slow_max_kept`` (the most free multipliers of the sub-problem's Newton steps
        on their face, which end the zig-zag of SMO; with more, the sub-problem would
        zig-zag on: 2,000 x 500, linear, twice as long).
    steps_before : int
        Steps of the same solve before this call, counted with this call's towards
        ``_SLOW_STEPS_PER_VARIABLE``: after a shrunk sub-problem a slow solve hands
        over again at the next count, as LIBSVM goes on shrinking after it brings
        every variable back.
    XT, kernel, gamma, coef0, degree, data_rows
        Missing rows are computed here by :func:`svmkit._core.kernel_blocks.kernel_row`
        from the data transposed (``XT``, features by rows, of ``K``'s type), or copied
        from the Gram matrix ``XT`` at the rows ``data_rows`` (``KERNEL_PRECOMPUTED``), see
        :func:`compute_row`, unless ``kernel`` is ``KERNEL_NONE``; then the caller computes them.

    Returns
    -------
    steps, status, gap, needed_row
        As :func:`svmkit._core.smo.smo`; ``gap`` is only computed for
        ``SMO_OPTIMAL`` and ``SMO_STEP_LIMIT`` (else ``inf``).
    """
    m = alpha.shape[0]
    split = K.shape[1]
    n = split + R.shape[1]
    # chunks of the rows' first part (all copies of the variables), then of their second
    n_left = _n_chunks(m if split == n else split, split)
    n_right = _n_chunks(n - split, n - split) if n > split else 0
    n_chunks = n_left + n_right
    keys_pos = np.empty(n_chunks, dtype=np.int64)
    keys_neg = np.empty(n_chunks, dtype=np.int64)
    lows_pos = np.empty(n_chunks, dtype=np.int64)
    lows_neg = np.empty(n_chunks, dtype=np.int64)
    gain_keys = np.empty(n_chunks, dtype=np.int64)
    scratch = row_scratch(XT, kernel, n)
    steps = 0
    # (the start: rows of K that are not computed may hold anything, NaN too)
    zeros = np.zeros((1, n), dtype=K.dtype)
    _up_keys(split, 0, 0, n_left, y, grad, flags, zeros, 0, 0, 0.0, 0.0, nu_mode, keys_pos, keys_neg, lows_pos,
             lows_neg)
    if n_right:
        _up_keys(n - split, split, n_left, n_right, y, grad, flags, zeros, 0, 0, 0.0, 0.0, nu_mode, keys_pos,
                 keys_neg, lows_pos, lows_neg)
    while True:
        if hand_over_fraction > 0 and steps > 0 and steps % _CHECK_PERIOD == 0:
            kept = np.sum(kept_by_shrinking(y, upper, alpha, grad, nu_mode))
            slow = steps_before + steps >= _SLOW_STEPS_PER_VARIABLE * m and 2 * kept < m and kept <= slow_max_kept
            if kept * hand_over_fraction < m or slow:
                return steps, SMO_USE_SHRINKING, np.inf, -1
        i_pos = _winner(n, split, n_left, keys_pos)
        i_neg = _winner(n, split, n_left, keys_neg) if nu_mode else i_pos
        g_pos = -y[i_pos] * grad[i_pos] if i_pos >= 0 else -np.inf
        g_neg = -y[i_neg] * grad[i_neg] if i_neg >= 0 else -np.inf
        # no variable of I_low with b = g_i + y_t G_t >= tol (b as the gains compute it; an
        # empty I_up has g = -inf, so this also ends a solve with no i left)
        if g_pos + _largest_value(lows_pos) < tol and (not nu_mode or g_neg + _largest_value(lows_neg) < tol):
            return steps, SMO_OPTIMAL, violation_gap(y, alpha, grad, upper, nu_mode), -1
        for i in (i_pos, i_neg):
            row = _row(i, n)
            if i >= 0 and slot[row] < 0 and not compute_row(K, slot, n_filled, row, XT, kernel, gamma, coef0, degree,
                                                            data_rows, scratch):
                return steps, SMO_NEED_ROW, np.inf, row
        # a sign without an i gets b = -inf: the other sign's row stands in for its kernel row
        # (rows are passed as K and a row number, not as views)
        stand_in_pos = i_pos if i_pos >= 0 else i_neg
        stand_in_neg = i_neg if i_neg >= 0 else i_pos
        row_pos = _row(stand_in_pos, n)
        row_neg = _row(stand_in_neg, n)
        s_pos = slot[row_pos]
        s_neg = slot[row_neg]
        qd_pos = qd[stand_in_pos]
        qd_neg = qd[stand_in_neg]
        _gains(split, 0, 0, n_left, y, grad, qd, flags, K, s_pos, s_neg, g_pos, g_neg, qd_pos, qd_neg, nu_mode,
               gain_keys)
        if n_right:
            _gains(n - split, split, n_left, n_right, y, grad, qd, flags, R, slot_r[row_pos], slot_r[row_neg],
                   g_pos, g_neg, qd_pos, qd_neg, nu_mode, gain_keys)
        j = _winner(n, split, n_left, gain_keys)
        column = _row(j, n)
        if slot[column] < 0 and not compute_row(K, slot, n_filled, column, XT, kernel, gamma, coef0, degree,
                                                       data_rows, scratch):
            return steps, SMO_NEED_ROW, np.inf, column
        if steps >= max_steps:
            return steps, SMO_STEP_LIMIT, violation_gap(y, alpha, grad, upper, nu_mode), -1
        steps += 1
        i = i_pos if y[j] > 0 else i_neg
        s_i = s_pos if y[j] > 0 else s_neg
        row_i = row_pos if y[j] > 0 else row_neg
        s_j = slot[column]
        old_i = alpha[i]
        old_j = alpha[j]
        ui = upper[i]
        uj = upper[j]
        ai, aj = pair_update(y[i] != y[j], grad[i], grad[j], old_i, old_j, ui, uj, qd[i] + qd[j] - 2.0 * (
            K[s_i, column] if column < split else R[slot_r[row_i], column - split]))
        alpha[i] = ai
        alpha[j] = aj
        flags[i] = _side(y[i], ai, ui)
        flags[j] = _side(y[j], aj, uj)
        c_i = y[i] * (ai - old_i)
        c_j = y[j] * (aj - old_j)
        _up_keys(split, 0, 0, n_left, y, grad, flags, K, s_i, s_j, c_i, c_j, nu_mode, keys_pos, keys_neg, lows_pos,
                 lows_neg)
        if n_right:
            _up_keys(n - split, split, n_left, n_right, y, grad, flags, R, slot_r[row_i], slot_r[column], c_i, c_j,
                     nu_mode, keys_pos, keys_neg, lows_pos, lows_neg)
