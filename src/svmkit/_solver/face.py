"""Newton steps on the face of the free multipliers, between stretches of SMO.

SMO moves two multipliers at a time. When the free multipliers (``0 < a_t < U_t``) have
nearly settled but their block ``Q_FF`` is badly conditioned or singular (a linear kernel on
``d`` features has rank at most ``d``), SMO zig-zags for millions of steps. On the face
where the bounded multipliers stay put and the equality constraints hold (``y'd = 0``; with
``nu`` the sum of ``d`` over each sign of ``y``), the dual objective along a step ``d`` of the
free multipliers is ``f(a + d) = f(a) + g'd + 1/2 d'Q_FF d``. With ``P`` the projection onto
the constraints' null space and the eigendecomposition of ``P Q_FF P``:

* where the projected gradient ``P g`` has a part in the null space of that matrix (flat directions,
  no curvature), ``d`` follows that part: the objective falls linearly until a multiplier
  reaches its bound and leaves the face;
* otherwise ``d`` is the Newton step, the minimiser over the face.

Each step is an exact line search inside the box (it stops at the first bound it meets), so
the objective never rises and SMO's convergence is untouched; the gradient is updated
exactly, and with it the side flags the solver keeps.
"""

from __future__ import annotations

import numpy as np

from .._parallel import single_threaded_blas

#: Most free multipliers a face step is tried for (its eigendecomposition costs ``k^3``).
FACE_MAX_FREE = 512
#: Steps from one try at most (a step that meets a bound is followed by another on the smaller face).
FACE_MAX_STEPS = 64


def face_steps(batch, store, work, start, stop, eps):
    """Up to ``FACE_MAX_STEPS`` steps on the face of the free multipliers among the variables
    ``start:stop`` of a batch (:class:`svmkit._core.smo.Batch`, its ``work``); returns the
    number taken. ``eps`` is the precision of the stored kernel values (judges the rank).

    The steps move only multipliers free at the start (a step that meets a bound leaves a
    smaller face), so their block of ``Q`` is read once and their gradient kept by it; the
    gradient of every variable is updated once, from the steps' total change."""
    alpha, upper = work.alpha[start:stop], batch.upper[start:stop]
    free = start + np.flatnonzero((alpha > 0) & (alpha < upper))
    if not 2 <= free.shape[0] <= FACE_MAX_FREE:
        return 0
    slots = store.slot[batch.rows[free]]
    if np.any(slots < 0):
        return 0
    y_free, u_free = batch.y[free], batch.upper[free]
    K_free = np.asarray(store.K[np.ix_(slots, batch.rows[free])], dtype=np.float64)
    Q = (y_free[:, np.newaxis] * y_free[np.newaxis, :]) * K_free
    Q = 0.5 * (Q + Q.T)
    a_start = work.alpha[free].copy()
    face = _Face(Q, work.grad[free].copy(), a_start.copy(), y_free, u_free, bool(batch.nu), eps)
    taken = 0
    while taken < FACE_MAX_STEPS:
        outcome = face.step()
        if outcome == "none":
            break
        taken += 1
        if outcome == "newton":
            break
    if taken:
        change = face.alpha - a_start
        work.alpha[free] = face.alpha
        in_up = np.where(y_free > 0, face.alpha < u_free, face.alpha > 0)
        in_low = np.where(y_free > 0, face.alpha > 0, face.alpha < u_free)
        work.flags[free] = in_up.astype(np.int8) + 2 * in_low.astype(np.int8)
        # G_t += sum_s Q_ts change_s over the variables start:stop
        column_change = (y_free * change) @ store.K[slots]
        work.grad[start:stop] += batch.y[start:stop] * column_change[batch.rows[start:stop]]
    return taken


class _Face:
    """The multipliers free at the start of a try (their block ``Q``, gradient ``g`` and
    values ``alpha``, kept up to date by :meth:`step`), and an orthonormal basis of the flat
    directions of the current face (rows of the multipliers that left it zero).

    A multiplier that reaches its bound leaves the face, and the flat directions of the
    smaller face are those of the larger one that do not move it: one Householder reflection
    of the basis removes that coordinate, so the flat steps go on from one eigendecomposition
    (each step was an eigendecomposition of its face before)."""

    def __init__(self, Q, g, alpha, y, upper, nu, eps):
        self.Q, self.g, self.alpha, self.y, self.upper, self.nu, self.eps = Q, g, alpha, y, upper, nu, eps
        self.basis = None  # (flat directions, over all the multipliers free at the start)
        self.curved = None  # (the face, eigenvalues and eigenvectors of its curved directions)

    def step(self):
        """One step on the face of those still free; returns ``'none'`` (no step),
        ``'bound'`` (a multiplier met its bound, or the step followed a flat direction) or
        ``'newton'`` (the face's minimum)."""
        on_face = np.flatnonzero((self.alpha > 0) & (self.alpha < self.upper))
        k = on_face.shape[0]
        if k < 2:
            return "none"
        constraints = self._constraints(on_face)
        h = _project(self.g[on_face], constraints)
        if self.basis is None:
            self._decompose(on_face, constraints)
        flat = self.basis[on_face]
        flat_part = _project(flat @ (flat.T @ h), constraints)
        if np.linalg.norm(flat_part) > np.sqrt(self.eps) * max(np.linalg.norm(h), 1e-300):
            d, newton = -flat_part, False
        else:
            if self.curved is None or not np.array_equal(self.curved[0], on_face):
                self._decompose(on_face, constraints)
            _, values, vectors = self.curved
            d, newton = -_project(vectors @ ((vectors.T @ h) / values), constraints), True
        Q = self.Q[np.ix_(on_face, on_face)]
        slope = float(self.g[on_face] @ d)
        if not slope < 0:
            return "none"
        curvature = float(d @ Q @ d)
        t_best = -slope / curvature if curvature > 0 else np.inf
        a_face, u_face = self.alpha[on_face], self.upper[on_face]
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d > 0, (u_face - a_face) / d, np.where(d < 0, -a_face / d, np.inf))
        blocking = int(np.argmin(room))
        t_bound = float(room[blocking])
        t = min(t_best, t_bound)
        if not np.isfinite(t) or t <= 0:
            return "none"
        new = np.clip(a_face + t * d, 0.0, u_face)
        hits_bound = t_bound <= t_best
        if hits_bound:
            new[blocking] = u_face[blocking] if d[blocking] > 0 else 0.0
            self._leave(on_face[blocking])
        elif not newton:
            self.basis = None  # (a direction taken as flat had curvature: the face decomposed again)
        self.g += self.Q[:, on_face] @ (new - a_face)
        self.alpha[on_face] = new
        return "newton" if newton and not hits_bound else "bound"

    def _constraints(self, on_face):
        """The constraints' directions on the face (``y'd = 0``; with nu, the sum of ``d``
        over each sign of ``y``), orthonormal rows."""
        y = self.y[on_face]
        rows = np.vstack([y > 0, y < 0]).astype(float) if self.nu else y[np.newaxis, :].copy()
        rows = rows[np.any(rows != 0, axis=1)]
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def _decompose(self, on_face, constraints):
        """The eigendecomposition of ``Q`` on the face (projected onto the constraints'
        null space): its flat directions (the basis) and its curved ones."""
        Q = self.Q[np.ix_(on_face, on_face)]
        PQ = Q - constraints.T @ (constraints @ Q)
        M = PQ - (PQ @ constraints.T) @ constraints
        with single_threaded_blas():  # (a small matrix: LAPACK's threads cost more than they save)
            values, vectors = np.linalg.eigh(0.5 * (M + M.T))
        scale = max(float(np.abs(values).max(initial=0.0)), float(np.abs(np.diagonal(Q)).max()), 1e-300)
        # (the constraints' directions have no curvature in M either; h has no part along them)
        flat = values <= on_face.shape[0] * self.eps * scale
        self.basis = np.zeros((self.Q.shape[0], int(np.count_nonzero(flat))))
        self.basis[on_face] = vectors[:, flat]
        self.curved = (on_face, values[~flat], vectors[:, ~flat])

    def _leave(self, variable):
        """The flat directions once ``variable`` has left the face: a Householder reflection
        of the basis that puts its row in the first column, which is dropped."""
        if self.basis is None or self.basis.shape[1] == 0:
            return
        row = self.basis[variable]
        norm = np.linalg.norm(row)
        if norm > 0:
            w = row.copy()
            w[0] += norm if row[0] >= 0 else -norm
            self.basis = (self.basis - np.outer(self.basis @ w, 2.0 * w / (w @ w)))[:, 1:]
        self.basis[variable] = 0.0


def _project(v, constraints):
    """``v`` less its part along the constraints' (orthonormal) directions."""
    return v - constraints.T @ (constraints @ v)
