"""Newton steps on the face of the free multipliers, between stretches of SMO.

SMO moves two multipliers at a time. When the set of free multipliers
(``0 < a_t < U_t``) has nearly settled but their sub-matrix ``Q_FF`` is badly
conditioned or singular, it zig-zags for tens of thousands of steps: a linear
kernel on ``d`` features has rank at most ``d``, so with more than ``d`` free
multipliers ``Q_FF`` is singular (splice, linear kernel, 60 features: some 63
free multipliers, and 90,000 SMO steps to bring the gap from 0.02 to 1e-3).

On the face where the bounded multipliers stay put and the equality
constraints hold, write a step of the free multipliers as ``d = y * u``: the
dual objective along it is ``f(a + t d) = f(a) + t h'u + t^2/2 u'K_FF u`` with
``h = y * G_F``, and the constraints say that ``u`` sums to 0 (in nu mode: over
each sign of ``y``). One multiplier of each sum, its pivot, takes minus the sum
of the others, ``u = Z x``, so the face has the reduced matrix ``M = Z'K_FF Z``
and reduced gradient ``Z'h``, both formed without a factorisation. A Cholesky
factorisation with pivoting, ``P'MP = R'R``, stops at the numerical rank ``r``
of ``M`` (pivots below ``n eps max(diag M)``, ``eps`` that of the kernel values)
and gives a basis ``[-R11^-1 R12; I]`` of its null space:

* if the reduced gradient ``g`` has a part in that null space (flat directions,
  no curvature), ``x = -N N'g`` is a descent direction inside it: the objective
  falls linearly, and the step runs until a multiplier reaches its bound, which
  leaves the free set (a multiplier too many for the rank of ``Q_FF``);
* otherwise ``x`` is the Newton step from the first ``r`` pivoted columns,
  which minimises over the face in one step, shortened where a bound comes first.

A multiplier that reaches its bound leaves the face, and the null space of the
smaller face is that of the larger one with that coordinate zero (``M`` is
positive semi-definite): the flat steps go on from one factorisation, with one
elimination on the null-space basis a step, until the gradient has no part
left there; then the face is factorised again for the Newton step. Where ``M``
has full rank, a Newton step cut short by a bound is followed by the next from
the same factorisation: the multipliers that left are held by linear
constraints on ``x`` (see :func:`_newton_steps`), until a step ends inside
the box (usps, linear kernel, a pair's face of 131 free multipliers: 9 steps
2.9 -> 0.8 ms, the same steps).

Every step is an exact line search on the dual objective inside the feasible
set, so the objective never rises and SMO's convergence is untouched; the
gradient is updated exactly. A factorisation of 148 free multipliers of rank 60
takes some 0.3 ms here and a flat step after it some 18 us (each step was a
factorisation before: 30 steps 6.0 -> 0.8 ms), so the solver tries them after
every stretch of SMO on a shrunk problem until the face is optimal (splice,
linear kernel: 17,400 SMO steps instead of 35,500 when they were tried only
after a stretch that left the free set unchanged, and 151,000 without them;
16,342 with up to 256 steps a stretch; with 30, 17,782 when each step was
factorised and 20,463 with the flat steps).
"""

import numpy as np

from ._jit import jit

#: Most free multipliers that the solvers take Newton steps for (a factorisation costs ``k^3``).
FACE_MAX_FREE = 256

#: Most rows of a matrix-vector product of the steps computed in loops, not by BLAS (:func:`_add_product`).
_LOOP_PRODUCT_ROWS = 32

_NO_STEP = 0
_AT_BOUND = 1
_NEWTON = 2


@jit
def free_face_steps(K, local_rows, y, upper, alpha, grad, nu_mode, max_free, max_steps, eps):
    """Up to ``max_steps`` steps on the face of the free multipliers, ``alpha`` and
    ``grad`` updated in place; stops after a full Newton step, or when no step
    lowers the objective, or when the free multipliers are fewer than 2 or more
    than ``max_free``. Returns the number of steps taken.

    Variable ``t`` uses row and column ``local_rows[t]`` of ``K`` (a symmetric
    block of kernel values in which the rank is judged with precision ``eps``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [3.0]])  # rank 1: three free multipliers are one too many
    >>> K = X @ X.T
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> alpha = np.array([0.5, 0.75, 0.25])
    >>> grad = y * (K @ (y * alpha)) - 1.0
    >>> int(free_face_steps(K, np.arange(3), y, np.ones(3), alpha, grad, False, 256, 10, 2.2e-16))
    2
    >>> bool(np.allclose(grad, y * (K @ (y * alpha)) - 1.0)), float(y @ alpha)
    (True, 0.0)
    """
    steps = 0
    while steps < max_steps:
        taken, outcome = _steps_from_one_factorisation(K, local_rows, y, upper, alpha, grad, nu_mode, max_free,
                                                       max_steps - steps, eps)
        steps += taken
        if outcome != _AT_BOUND:
            break
    return steps


@jit
def _steps_from_one_factorisation(K, local_rows, y, upper, alpha, grad, nu_mode, max_free, max_steps, eps):
    """Factorise the face of the free multipliers once and take from it either flat
    steps (:func:`_flat_steps`, while the gradient has a part in the null space) or
    one Newton step. Returns ``(steps, outcome)``, the outcome of the last step."""
    m = alpha.shape[0]
    free = np.empty(m, dtype=np.int64)
    k = 0
    for t in range(m):
        if 0 < alpha[t] < upper[t]:
            free[k] = t
            k += 1
    if k < 2 or k > max_free:
        return 0, _NO_STEP
    free = free[:k]
    K_free = np.empty((k, k))
    h = np.empty(k)
    pivot_of = np.empty(k, dtype=np.int64)
    moving = np.empty(k, dtype=np.int64)  # the coordinates x of u = Z x: all but the pivots
    n = 0
    first_positive = first_negative = -1  # the pivot of each sum: the first free multiplier of each sign
    for a in range(k):
        t = free[a]
        row = local_rows[t]
        for b in range(k):
            K_free[a, b] = K[row, local_rows[free[b]]]
        h[a] = y[t] * grad[t]
        if nu_mode and y[t] < 0:
            first_negative = a if first_negative < 0 else first_negative
            pivot_of[a] = first_negative
        else:  # (one sum of all outside nu mode)
            first_positive = a if first_positive < 0 else first_positive
            pivot_of[a] = first_positive
        if pivot_of[a] != a:
            moving[n] = a
            n += 1
    if n == 0:
        return 0, _NO_STEP
    moving = moving[:n]
    M = np.empty((n, n))
    reduced = np.empty(n)
    largest = 0.0
    for a in range(n):
        i, p = moving[a], pivot_of[moving[a]]
        reduced[a] = h[i] - h[p]
        for b in range(n):
            j, q = moving[b], pivot_of[moving[b]]
            M[a, b] = K_free[i, j] - K_free[i, q] - K_free[p, j] + K_free[p, q]
        largest = max(largest, M[a, a])
    R, order, rank = _pivoted_cholesky(M, n * eps * largest)
    g = np.empty(n)
    for a in range(n):
        g[a] = reduced[order[a]]
    coef = np.zeros(k)  # y_t times the change of alpha_t, over the steps
    flat = False
    if rank < n:
        # the null space of P'MP is spanned by the columns of N = [-W; I], W = R11^-1 R12;
        # N'g = g2 - W'g1 is zero when g is in the range of M, as at the optimum of the face
        W = _solve_upper_rows(R, rank, n)
        threshold = 1e-9 * np.sqrt(_dot(g, g, n))
        off_range = 0.0  # |N'g|^2 = |g2 - W'g1|^2
        for c in range(n - rank):
            part = g[rank + c]
            for r in range(rank):
                part -= W[r, c] * g[r]
            off_range += part * part
        flat = np.sqrt(off_range) > threshold
    if flat:
        basis = np.zeros((n - rank, k))  # rows: Z P N, that null space in the free multipliers' coordinates
        for c in range(n - rank):
            _add_reduced(basis[c], moving, pivot_of, order[rank + c], 1.0)
            for r in range(rank):
                _add_reduced(basis[c], moving, pivot_of, order[r], -W[r, c])
        steps, outcome = _flat_steps(K_free, free, basis, h, y, upper, alpha, coef, max_steps, threshold)
    elif rank == n:
        steps, outcome = _newton_steps(K_free, free, moving, pivot_of, R, order, h, y, upper, alpha, coef, max_steps)
    else:
        # (a singular face whose gradient has no part in the null space: the step from the
        # first ``rank`` pivoted columns, then a new factorisation)
        x = np.zeros(n)
        if rank > 0:
            x[order[:rank]] = -_solve_upper(R, _solve_upper_transposed(R, g[:rank].copy(), rank), rank)
        u = np.zeros(k)
        for a in range(n):
            _add_reduced(u, moving, pivot_of, a, x[a])
        outcome, _ = _line_step(K_free, free, u, h, y, upper, alpha, coef, np.empty(k))
        steps = 0 if outcome == _NO_STEP else 1
    # (the steps move only the free multipliers and their h; every variable's gradient follows once)
    _add_to_gradient(K, local_rows, free, coef, y, grad)
    return steps, outcome


@jit
def _newton_steps(K_free, free, moving, pivot_of, R, order, h, y, upper, alpha, coef, max_steps):
    """Newton steps on a face whose reduced matrix ``M = R'R`` (pivoted as ``order``) has
    full rank, each cut short where a multiplier reaches its bound, until one is not. The
    multipliers that left the face are held by constraints ``C x = 0`` on the reduced
    coordinates (``x_a = 0``, or for a pivot the sum of its group's coordinates), and the
    step minimises on the face under them: ``x = x0 + Y'l`` with ``x0 = -M^-1 g``, ``Y =
    C M^-1`` and ``(C Y') l = -C x0``, two triangular solves a step and one a constraint
    instead of a new factorisation (usps, linear kernel: 131 free multipliers, 0.35 ms a
    factorisation). ``h``, ``coef`` and the return ``(steps, outcome)`` as :func:`_flat_steps`."""
    k, n = free.shape[0], moving.shape[0]
    coordinate = np.full(k, -1)  # the reduced coordinate of each free multiplier (-1: a pivot)
    for a in range(n):
        coordinate[moving[a]] = a
    left = np.zeros(k, dtype=np.bool_)
    most = min(max_steps, n)
    C = np.zeros((most, n))
    Y = np.zeros((most, n))
    S = np.zeros((most, most))
    n_constraints = 0
    g = np.empty(n)
    x = np.empty(n)
    u = np.empty(k)
    work = np.empty(k)
    steps = 0
    outcome = _AT_BOUND
    while steps < max_steps and n_constraints < most:
        for a in range(n):
            g[a] = h[pivot_of[moving[a]]] - h[moving[a]]
        _solve_pivoted(R, order, g, x, work)  # (-M^-1 of the gradient, negated before: the same bits)
        if n_constraints:
            held = C[:n_constraints] @ x
            x += Y[:n_constraints].T @ np.linalg.solve(S[:n_constraints, :n_constraints], -held)
        u[:] = 0.0
        for a in range(n):
            _add_reduced(u, moving, pivot_of, a, x[a])
        for a in range(k):
            if left[a]:
                u[a] = 0.0
        outcome, leaving = _line_step(K_free, free, u, h, y, upper, alpha, coef, work)
        if outcome == _NO_STEP:
            break
        steps += 1
        if outcome == _NEWTON:
            break
        left[leaving] = True
        row = C[n_constraints]
        if coordinate[leaving] >= 0:
            row[coordinate[leaving]] = 1.0
        else:  # a pivot: its group's coordinates that are still free sum to 0
            for a in range(n):
                if pivot_of[moving[a]] == leaving and not left[moving[a]]:
                    row[a] = 1.0
        if not row.any():
            continue
        _solve_pivoted(R, order, row, Y[n_constraints], work)
        for c in range(n_constraints + 1):
            S[c, n_constraints] = S[n_constraints, c] = C[c] @ Y[n_constraints]
        n_constraints += 1
    return steps, outcome


@jit
def _solve_pivoted(R, order, b, out, work):
    """``out = M^-1 b`` for ``M[order][:, order] = R'R`` of full rank (``work``: at least as
    long as ``b``)."""
    n = b.shape[0]
    for a in range(n):
        work[a] = b[order[a]]
    _solve_upper(R, _solve_upper_transposed(R, work, n), n)
    for a in range(n):
        out[order[a]] = work[a]


@jit
def _add_reduced(u, moving, pivot_of, a, value):
    """``u += value Z e_a``: reduced coordinate ``a`` moves its multiplier and, the other way, its pivot."""
    u[moving[a]] += value
    u[pivot_of[moving[a]]] -= value


@jit
def _flat_steps(K_free, free, basis, h, y, upper, alpha, coef, max_steps, threshold):
    """Steps along ``-B'B h`` (the rows of ``B = basis`` span a null space of the face,
    ``h = y G`` of the free multipliers), each to the first bound, while ``|B h|`` stays
    above ``threshold``. The multiplier that reaches its bound leaves the face, and the
    null space of the smaller face is that of the larger one with that coordinate zero
    (the face's matrix is positive semi-definite), so one elimination on ``B`` stands for a
    new factorisation (splice, linear kernel: some 148 free multipliers of rank 60, 0.4 ms
    a factorisation); ``h`` follows by ``K_FF`` alone and ``coef`` gains ``y`` times the
    change of ``alpha`` (the caller updates every variable's gradient once, after the
    steps). Returns ``(steps, outcome)``: ``_AT_BOUND`` when the face is to be factorised
    again (a Newton step due, or ``max_steps`` taken), else the last step's outcome."""
    width, k = basis.shape
    z = np.empty(width)
    u = np.empty(k)
    work = np.empty(k)
    steps = 0
    outcome = _AT_BOUND
    while steps < max_steps and width > 0:
        for c in range(width):
            z[c] = _dot(basis[c], h, k)
        if steps > 0 and np.sqrt(_dot(z, z, width)) <= threshold:
            break
        u[:] = 0.0
        for c in range(width):
            for a in range(k):
                u[a] -= z[c] * basis[c, a]
        outcome, leaving = _line_step(K_free, free, u, h, y, upper, alpha, coef, work)
        if outcome == _NO_STEP:
            break
        steps += 1
        if outcome == _NEWTON:
            break
        # u[leaving] = 0 from now on: eliminate that coordinate with the row where it is largest
        pivot = 0
        for c in range(1, width):
            if abs(basis[c, leaving]) > abs(basis[pivot, leaving]):
                pivot = c
        if basis[pivot, leaving] != 0.0:
            for c in range(width):
                if c != pivot:
                    ratio = basis[c, leaving] / basis[pivot, leaving]
                    for a in range(k):
                        basis[c, a] -= ratio * basis[pivot, a]
            width -= 1
            basis[pivot] = basis[width]
        basis[:width, leaving] = 0.0
    return steps, outcome


@jit
def _line_step(K_free, free, u, h, y, upper, alpha, coef, work):
    """The exact line search along ``d = y u`` on the free multipliers (``h = y G`` of them),
    stopped at the first bound; ``alpha`` moves, ``coef`` gains ``y`` times its change and
    ``h`` follows (``K_FF`` times that change; the other variables' gradient is the caller's).
    ``work``: room for ``k`` values. Returns ``(outcome, a)``: ``_AT_BOUND`` with the free
    multiplier ``a`` that reached its bound, ``_NEWTON`` (the minimum along ``d`` inside the
    box) or ``_NO_STEP``."""
    k = free.shape[0]
    slope = _dot(h, u, k)
    if not slope < 0:
        return _NO_STEP, -1
    work[:k] = 0.0
    _add_product(K_free, u, work)
    curvature = _dot(u, work, k)
    t_minimum = -slope / curvature if curvature > 1e-12 * -slope else np.inf
    # the longest step inside the box: the first multiplier to reach a bound
    t_bound = np.inf
    first_at_bound = -1
    for a in range(k):
        d = y[free[a]] * u[a]
        room = (upper[free[a]] - alpha[free[a]]) / d if d > 0 else (-alpha[free[a]] / d if d < 0 else np.inf)
        if room < t_bound:
            t_bound = room
            first_at_bound = a
    at_bound = t_bound <= t_minimum
    step = t_bound if at_bound else t_minimum
    if not (np.isfinite(step) and step > 0):
        return _NO_STEP, -1
    change = work
    for a in range(k):
        t = free[a]
        d = y[t] * u[a]
        new = min(max(alpha[t] + step * d, 0.0), upper[t])
        if at_bound and a == first_at_bound:
            new = upper[t] if d > 0 else 0.0
        change[a] = y[t] * (new - alpha[t])
        alpha[t] = new
        coef[a] += change[a]
    _add_product(K_free, change, h)
    if at_bound:
        return _AT_BOUND, first_at_bound
    return _NEWTON, -1


@jit
def _dot(a, b, n):
    """``a[:n] @ b[:n]``, summed in order (a loop: BLAS's call costs more than a short sum)."""
    total = 0.0
    for i in range(n):
        total += a[i] * b[i]
    return total


@jit
def _add_product(A, v, out):
    """``out += A @ v`` for a square ``A``: in loops on a few rows, where BLAS's call and the
    product's new array cost more than the products (a Newton step on the face of 16 free
    multipliers, 700 x 16 in 26 classes, linear kernel: 5.0 -> 4.4-4.5 us in all with the other
    arrays of the steps made once), by BLAS on more."""
    k = A.shape[0]
    if k > _LOOP_PRODUCT_ROWS:
        out += A @ v
        return
    for a in range(k):
        out[a] += _dot(A[a], v, k)


@jit
def _add_to_gradient(K, local_rows, free, coef, y, grad):
    """``G_t += y_t sum_a coef_a K[row of free[a], row of t]`` for every variable ``t``."""
    for a in range(free.shape[0]):
        if coef[a] != 0.0:
            row = local_rows[free[a]]
            for t in range(grad.shape[0]):
                grad[t] += y[t] * coef[a] * K[row, local_rows[t]]


@jit
def _pivoted_cholesky(M, tol):
    """``(R, order, rank)`` with ``M[order][:, order] = R'R`` in its first ``rank`` rows
    (upper triangular ``R``), stopping where the largest remaining pivot is at most ``tol``
    (LAPACK's ``dpstrf``, here to stay in compiled code)."""
    n = M.shape[0]
    A = M.copy()  # only its upper triangle is read and written
    order = np.arange(n)
    pivot_row = np.empty(n)  # (a copy: the update loop then reads and writes different arrays, and vectorises)
    for j in range(n):
        p = j
        for c in range(j + 1, n):
            if A[c, c] > A[p, p]:
                p = c
        if not A[p, p] > tol:
            return A, order, j
        if p != j:  # the symmetric swap of j and p, in the upper triangle
            for r in range(j):
                A[r, j], A[r, p] = A[r, p], A[r, j]
            A[j, j], A[p, p] = A[p, p], A[j, j]
            for c in range(j + 1, p):
                A[j, c], A[c, p] = A[c, p], A[j, c]
            for c in range(p + 1, n):
                A[j, c], A[p, c] = A[p, c], A[j, c]
            order[j], order[p] = order[p], order[j]
        pivot = np.sqrt(A[j, j])
        A[j, j] = pivot
        for c in range(j + 1, n):
            A[j, c] /= pivot
            pivot_row[c] = A[j, c]
        for r in range(j + 1, n):  # the Schur complement
            factor = pivot_row[r]
            row = np.uint64(r)
            for k in range(n - r):  # (unsigned indices need no wrap-around test: the loop vectorises)
                c = row + np.uint64(k)
                A[row, c] -= factor * pivot_row[c]
    return A, order, n


@jit
def _solve_upper_rows(R, rank, n):
    """``W = R11^-1 R12`` for the first ``rank`` rows of ``R`` (``R12``: their columns from
    ``rank`` to ``n``), solved a row of ``W`` at a time (loops along rows, which vectorise)."""
    width = n - rank
    W = np.empty((rank, width))
    for r in range(rank - 1, -1, -1):
        out = np.uint64(r)
        for k in range(width):
            W[out, np.uint64(k)] = R[out, np.uint64(rank + k)]
        for c in range(r + 1, rank):
            factor = R[r, c]
            done = np.uint64(c)
            for k in range(width):
                W[out, np.uint64(k)] -= factor * W[done, np.uint64(k)]
        scale = 1.0 / R[r, r]
        for k in range(width):
            W[out, np.uint64(k)] *= scale
    return W


@jit
def _solve_upper(R, b, rank):
    """``R11^-1 b`` for the leading ``rank x rank`` upper triangle of ``R`` (in place in ``b``)."""
    for r in range(rank - 1, -1, -1):
        s = b[r]
        for c in range(r + 1, rank):
            s -= R[r, c] * b[c]
        b[r] = s / R[r, r]
    return b


@jit
def _solve_upper_transposed(R, b, rank):
    """``R11^-T b`` (in place in ``b``)."""
    for r in range(rank):
        s = b[r]
        for c in range(r):
            s -= R[c, r] * b[c]
        b[r] = s / R[r, r]
    return b
