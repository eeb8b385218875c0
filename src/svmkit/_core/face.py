"""Newton steps on the face of the free multipliers, compiled: the steps of
:mod:`svmkit._solver.face` (which gathers a face's block and writes the steps back) on one
face's block ``Q``.

The face's pivots' elimination ``d = Z x``, the pivoted Cholesky factor of ``M = Z'QZ`` (LAPACK's
``dpstrf`` written as loops, as the products are: each BLAS or LAPACK call numba compiles costs
seconds on first use, and the faces are small) and the basis ``B`` of the flat directions, as
:mod:`svmkit._solver.face` describes them. A multiplier that leaves the face is eliminated from
``B``, and held by a constraint on the next Newton steps (the rows ``C`` of ``Z``'s curved
columns), so that the steps go on from one factorisation.
"""

import numpy as np

from ._jit import inlined_jit, internal_jit, jit

#: A step's outcome: none taken; a multiplier met its bound, or the step followed a flat
#: direction; the face's minimum reached.
_NONE, _BOUND, _NEWTON = 0, 1, 2
_FLOAT64_EPS = np.finfo(np.float64).eps


@jit
def face_run(Q, g, alpha, y, upper, nu, eps, max_steps):
    """Steps on the face of the multipliers free in ``alpha`` (``0 < a < upper``), with the
    face's block ``Q`` of the dual's matrix and the gradient ``g`` (both float64, updated in
    place with ``alpha``), until a step reaches the face's minimum, none descends, or
    ``max_steps`` were taken; returns the number taken. ``nu``: the sum of the steps is zero
    within each sign of ``y`` (else ``y'd = 0``); ``eps`` the precision of the kernel values
    (judges the rank).

    Examples
    --------
    Two multipliers of opposite labels on an identity matrix, the objective falling along
    ``d = (1, 1)``: the Newton step reaches its minimum in one step.

    >>> import numpy as np
    >>> alpha, g = np.array([0.5, 0.5]), np.array([-1.0, -1.0])
    >>> face_run(np.eye(2), g, alpha, np.array([1.0, -1.0]), np.ones(2) * 10, False, 1e-16, 64)
    1
    >>> alpha, g
    (array([1.5, 1.5]), array([0., 0.]))
    """
    k = Q.shape[0]
    on_face = np.empty(k, dtype=np.bool_)
    for t in range(k):
        on_face[t] = alpha[t] > 0 and alpha[t] < upper[t]
    taken = 0
    factored = False
    # the factorisation's face (positions in Q) and its parts, made at the first step and again
    # where needed: the face's block, labels, constraint groups, factor, curved columns of Z,
    # flat basis, and the rows of Z_curved of the multipliers that left the face since (the
    # constraints that hold them on a Newton step from the same factor)
    face = np.empty(0, dtype=np.int64)
    Qf = np.empty((0, 0))
    yf = np.empty(0)
    group = np.empty(0, dtype=np.int64)
    R = np.empty((0, 0))
    Z_curved = np.empty((0, 0))
    B = np.empty((0, 0))
    C = np.empty((0, 0))
    W = np.empty((0, 0))
    CW = np.empty((0, 0))
    left = np.empty(0, dtype=np.bool_)
    n_flat = n_left = 0
    singular = False
    while taken < max_steps:
        outcome = _NONE
        while True:  # (twice where a singular face that lost multipliers is factorised again)
            if not factored:
                n_face = 0
                for t in range(k):
                    n_face += on_face[t]
                if n_face < 2:
                    break
                face = np.empty(n_face, dtype=np.int64)
                f = 0
                for t in range(k):
                    if on_face[t]:
                        face[f] = t
                        f += 1
                Qf = np.empty((n_face, n_face))
                yf = np.empty(n_face)
                group = np.zeros(n_face, dtype=np.int64)
                for a in range(n_face):
                    for b in range(n_face):
                        Qf[a, b] = Q[face[a], face[b]]
                    yf[a] = y[face[a]]
                    if nu and yf[a] < 0:
                        group[a] = 1
                R, Z_curved, B, n_flat = _factorise(Qf, yf, group, eps)
                singular = n_flat > 0
                C = np.empty((n_face, R.shape[0]))
                W = np.empty((n_face, R.shape[0]))
                CW = np.empty((n_face, n_face))
                left = np.zeros(n_face, dtype=np.bool_)
                n_left = 0
                factored = True
            m = face.shape[0]
            gf = np.empty(m)
            for a in range(m):
                gf[a] = g[face[a]]
            d = _flat_direction(B, n_flat, left, gf, yf, group, eps)
            newton = d.shape[0] == 0
            if newton:
                if n_left > 0 and singular:
                    # (the Newton step of a smaller face than the one factorised, whose matrix
                    # is singular: the larger face's curved directions are not the smaller one's)
                    factored = False
                    continue
                d = _newton_direction(R, Z_curved, C[:n_left], W[:n_left], CW[:n_left, :n_left], left, gf)
                if d.shape[0] == 0:
                    break
            _keep_constraints(d, yf, group, left)
            slope = _dot(gf, d)
            if not slope < 0:
                break
            Qd = _times(Qf, d, m)
            curvature = _dot(d, Qd)
            t_best = -slope / curvature if curvature > 0 else np.inf
            if newton:  # (1 in exact arithmetic: more only where d is rounding noise, not to be magnified)
                t_best = min(t_best, 1.0)
            blocking, t_bound = 0, np.inf
            largest_step = largest_alpha = 0.0
            for a in range(m):
                a_t, u_t = alpha[face[a]], upper[face[a]]
                room = np.inf
                if d[a] > 0:
                    room = (u_t - a_t) / d[a]
                elif d[a] < 0:
                    room = -a_t / d[a]
                if room < t_bound:
                    blocking, t_bound = a, room
                largest_step = max(largest_step, abs(d[a]))
                largest_alpha = max(largest_alpha, a_t)
            t = min(t_best, t_bound)
            if not np.isfinite(t) or t * largest_step <= _FLOAT64_EPS * largest_alpha:
                break  # (no step, or none that the multipliers' precision can take)
            hits_bound = t_bound <= t_best
            # G += Q (new - a): t Qd, and the columns of those that clipping or the bound moved apart
            for a in range(m):
                g[face[a]] += t * Qd[a]
            for b in range(m):
                a_t, u_t = alpha[face[b]], upper[face[b]]
                new = min(max(a_t + t * d[b], 0.0), u_t)
                if hits_bound and b == blocking:
                    new = u_t if d[b] > 0 else 0.0
                apart = new - a_t - t * d[b]
                if apart != 0:
                    for a in range(m):
                        g[face[a]] += Qf[a, b] * apart
                alpha[face[b]] = new
            if hits_bound:
                # (those that a tie or rounding put on a bound leave with the blocking one)
                for a in range(m):
                    t_a = face[a]
                    if (alpha[t_a] <= 0 or alpha[t_a] >= upper[t_a]) and on_face[t_a]:
                        on_face[t_a] = False
                        left[a] = True
                        if R.shape[0]:
                            _hold(R, Z_curved[a], C, W, CW, n_left)
                        n_left += 1
                        n_flat = _leave_flat(B, n_flat, a)
                outcome = _BOUND
            elif not newton:
                factored = False  # (a direction taken as flat had curvature: the face factorised again)
                outcome = _BOUND
            else:
                outcome = _NEWTON
            break
        if outcome == _NONE:
            break
        taken += 1
        if outcome == _NEWTON:
            break
    return taken


@inlined_jit
def _factorise(Q, y, group, eps):
    """The face's curved and flat directions: one multiplier of each constraint (the last of
    its ``group``), its pivot, takes what the constraint leaves (``d = Z x``); the pivoted
    Cholesky factor ``R`` of ``M = Z'QZ`` up to its numerical rank, ``Z``'s curved columns, and
    the basis ``B`` of the flat directions (a row per multiplier). Returns ``(R, Z_curved, B,
    n_flat)``."""
    k = Q.shape[0]
    pivot_of = np.full(2, -1)
    for a in range(k):
        pivot_of[group[a]] = a
    column = np.full(k, -1)  # (each other's column of Z; the pivots have none)
    n = 0
    for a in range(k):
        if pivot_of[group[a]] != a:
            column[a] = n
            n += 1
    others = np.empty(n, dtype=np.int64)
    sign = np.empty(n)  # (Z[pivot, c] = -y_pivot y_other: the pivot's share of other c's step)
    for a in range(k):
        if column[a] >= 0:
            others[column[a]] = a
            sign[column[a]] = -y[pivot_of[group[a]]] * y[a]
    # M = Z'QZ: Z's rows of the others are the identity, a pivot's row holds its constraint's
    QZ = np.empty((k, n))
    for r in range(k):
        for c in range(n):
            QZ[r, c] = Q[r, others[c]] + Q[r, pivot_of[group[others[c]]]] * sign[c]
    M = np.empty((n, n))
    for a in range(n):
        pivot = pivot_of[group[others[a]]]
        for c in range(n):
            M[a, c] = QZ[others[a], c] + sign[a] * QZ[pivot, c]
    for a in range(n):
        for c in range(a):
            M[a, c] = M[c, a] = 0.5 * (M[a, c] + M[c, a])
    scale = max(_largest_diagonal(M), _largest_diagonal(Q))
    factor, order, rank = _pivoted_cholesky(M, n * eps * scale)
    R = _leading_factor(factor, rank)
    Z_curved = np.zeros((k, rank))
    for a in range(rank):
        other = others[order[a]]
        Z_curved[other, a] = 1.0
        Z_curved[pivot_of[group[other]], a] = sign[order[a]]
    # the null space of M: [-R11^-1 R12; I] in pivoted order, then B = Z null
    n_flat = n - rank
    null = np.zeros((n, n_flat))
    for f in range(n_flat):
        null[order[rank + f], f] = 1.0
        if rank:
            solved = np.empty(rank)
            for a in range(rank):
                solved[a] = factor[a, rank + f]
            _back_substitute(R, solved)
            for a in range(rank):
                null[order[a], f] = -solved[a]
    B = np.zeros((k, n_flat))
    for c in range(n):
        pivot = pivot_of[group[others[c]]]
        for f in range(n_flat):
            B[others[c], f] = null[c, f]
            B[pivot, f] += sign[c] * null[c, f]
    return R, Z_curved, B, n_flat


@internal_jit
def _pivoted_cholesky(M, tol):
    """``P'MP = R'R`` with the largest remaining diagonal as the next pivot, stopping where it
    is at most ``tol`` (LAPACK's ``dpstrf``). Returns ``(A, order, rank)``: ``A``'s first
    ``rank`` rows hold ``R`` (over all pivoted columns), ``order`` the pivoted order."""
    n = M.shape[0]
    A = M.copy()
    order = np.empty(n, dtype=np.int64)
    diagonal = np.empty(n)
    for j in range(n):
        order[j] = j
        diagonal[j] = M[j, j]
    for j in range(n):
        p = j
        for c in range(j + 1, n):
            if diagonal[c] > diagonal[p]:
                p = c
        if not diagonal[p] > tol:
            return A, order, j
        if p != j:
            for r in range(n):
                A[r, j], A[r, p] = A[r, p], A[r, j]
            for c in range(n):
                A[j, c], A[p, c] = A[p, c], A[j, c]
            diagonal[j], diagonal[p] = diagonal[p], diagonal[j]
            order[j], order[p] = order[p], order[j]
        pivot = np.sqrt(diagonal[j])
        A[j, j] = pivot
        for r in range(j):  # (row j of R: the rows above subtracted along their length)
            above = A[r, j]
            for c in range(j + 1, n):
                A[j, c] -= above * A[r, c]
        for c in range(j + 1, n):
            A[j, c] /= pivot
            diagonal[c] -= A[j, c] * A[j, c]
    return A, order, n


@internal_jit
def _largest_diagonal(A):
    """The largest magnitude on ``A``'s diagonal, at least 1e-300 (a scale for rank tolerances)."""
    largest = 1e-300
    for a in range(A.shape[0]):
        largest = max(largest, abs(A[a, a]))
    return largest


@internal_jit
def _leading_factor(factor, rank):
    """``R``: the upper triangle of the first ``rank`` rows and columns of
    :func:`_pivoted_cholesky`'s ``A``."""
    R = np.zeros((rank, rank))
    for a in range(rank):
        for b in range(a, rank):
            R[a, b] = factor[a, b]
    return R


@internal_jit
def _back_substitute(R, x):
    """``x = R^-1 x`` in place, ``R`` upper triangular."""
    for a in range(R.shape[0] - 1, -1, -1):
        s = x[a]
        for b in range(a + 1, R.shape[0]):
            s -= R[a, b] * x[b]
        x[a] = s / R[a, a]


@internal_jit
def _cholesky_solve(R, x):
    """``x = (R'R)^-1 x`` in place: forward with ``R'`` (by ``R``'s rows, as the back
    substitution with ``R``)."""
    for a in range(R.shape[0]):
        x[a] /= R[a, a]
        x_a = x[a]
        for c in range(a + 1, R.shape[0]):
            x[c] -= R[a, c] * x_a
    _back_substitute(R, x)


@internal_jit
def _dot(a, b):
    """``a'b`` (loops: numba compiles each BLAS call of ``@`` for every layout of its arguments)."""
    total = 0.0
    for t in range(a.shape[0]):
        total += a[t] * b[t]
    return total


@internal_jit
def _times(A, x, columns):
    """``A x`` over ``A``'s first ``columns`` columns."""
    out = np.empty(A.shape[0])
    for r in range(A.shape[0]):
        total = 0.0
        for c in range(columns):
            total += A[r, c] * x[c]
        out[r] = total
    return out


@internal_jit
def _transposed_times(A, x, columns):
    """``A'x`` over ``A``'s first ``columns`` columns."""
    out = np.zeros(columns)
    for r in range(A.shape[0]):
        x_r = x[r]
        for c in range(columns):
            out[c] += A[r, c] * x_r
    return out


@internal_jit
def _group_means(values, y, group, counted):
    """The mean of ``y * values`` over each group's multipliers where ``counted``."""
    sums, counts = np.zeros(2), np.zeros(2)
    for a in range(values.shape[0]):
        if counted[a]:
            sums[group[a]] += y[a] * values[a]
            counts[group[a]] += 1
    for side in range(2):
        sums[side] /= max(counts[side], 1.0)
    return sums


@inlined_jit
def _keep_constraints(d, y, group, left):
    """``d`` less its part along the equality constraints, over the multipliers on the face:
    the directions meet them only as closely as their solves' rounding allows."""
    means = _group_means(d, y, group, ~left)
    for a in range(d.shape[0]):
        if not left[a]:
            d[a] -= y[a] * means[group[a]]


@inlined_jit
def _flat_direction(B, n_flat, left, g, y, group, eps):
    """``-B B'g`` where the objective falls along it, per unit of its length, faster than
    rounding explains, else an empty array."""
    if n_flat == 0:
        return np.empty(0)
    along = _transposed_times(B, g, n_flat)
    d = _times(B, along, n_flat)
    means = _group_means(g, y, group, np.ones(g.shape[0], dtype=np.bool_))  # (the gradient less its part
    # along the constraints)
    h_squared = 0.0
    for a in range(g.shape[0]):
        d[a] = 0.0 if left[a] else -d[a]
        if not left[a]:
            h = g[a] - y[a] * means[group[a]]
            h_squared += h * h
    if not _dot(along, along) > np.sqrt(eps) * max(np.sqrt(h_squared), 1e-300) * np.sqrt(_dot(d, d)):
        return np.empty(0)
    return d


@inlined_jit
def _hold(R, row, C, W, CW, n_held):
    """Hold one more multiplier on the Newton steps from the factor ``R``: its row of
    ``Z_curved`` becomes constraint ``n_held`` of ``C``, with its row of ``W' = C (R'R)^-1`` and
    its row and column of ``C W`` (those of the constraints before it stay as they are)."""
    rank = R.shape[0]
    for a in range(rank):
        C[n_held, a] = row[a]
        W[n_held, a] = row[a]
    _cholesky_solve(R, W[n_held])
    for e in range(n_held + 1):
        CW[n_held, e] = CW[e, n_held] = _dot(C[e], W[n_held])


@inlined_jit
def _newton_direction(R, Z_curved, C, W, CW, left, g):
    """The step ``Z x`` that minimises the objective over the curved directions with the
    multipliers that left held (``C x = 0``: ``x = u - W l`` with ``C W l = C u``; ``W`` and
    ``CW`` as :func:`_hold` keeps them); an empty array where there are none."""
    rank, n_held = R.shape[0], C.shape[0]
    if rank == 0:
        return np.empty(0)
    u = _transposed_times(Z_curved, g, rank)
    _cholesky_solve(R, u)
    if n_held:
        held = _semidefinite_solve(np.ascontiguousarray(CW), _times(C, u, rank))
        for c in range(n_held):
            for a in range(rank):
                u[a] -= W[c, a] * held[c]
    d = _times(Z_curved, u, rank)
    for a in range(d.shape[0]):
        d[a] = 0.0 if left[a] else -d[a]
    return d


@inlined_jit
def _semidefinite_solve(A, b):
    """A solution of ``A x = b`` for a positive semi-definite ``A`` from its pivoted Cholesky
    factor up to its numerical rank, zero along the rest: where the system is consistent, as
    ``C W l = C u`` is, every solution gives the same step ``W l``."""
    n = A.shape[0]
    factor, order, rank = _pivoted_cholesky(A, n * _FLOAT64_EPS * _largest_diagonal(A))
    x = np.zeros(n)
    if rank:
        R = _leading_factor(factor, rank)
        permuted = np.empty(rank)
        for a in range(rank):
            permuted[a] = b[order[a]]
        _cholesky_solve(R, permuted)
        for a in range(rank):
            x[order[a]] = permuted[a]
    return x


@inlined_jit
def _leave_flat(B, n_flat, position):
    """The multiplier at ``position`` met its bound: the flat directions that do not move it
    (one elimination in place: the column of its largest entry eliminated, replaced by the
    last). Returns the number of flat directions left."""
    if n_flat:
        j = 0
        for c in range(1, n_flat):
            if abs(B[position, c]) > abs(B[position, j]):
                j = c
        pivot = B[position, j]
        if pivot != 0:
            row = np.empty(n_flat)
            for c in range(n_flat):
                row[c] = B[position, c] / pivot
            for r in range(B.shape[0]):
                factor = B[r, j]
                for c in range(n_flat):
                    B[r, c] -= factor * row[c]
                B[r, j] = B[r, n_flat - 1]
            n_flat -= 1
    for c in range(B.shape[1]):
        B[position, c] = 0.0
    return n_flat
