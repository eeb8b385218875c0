"""Newton steps on the face of the free multipliers, between stretches of SMO.

SMO moves two multipliers at a time. When the free multipliers (``0 < a_t < U_t``) have
nearly settled but their block ``Q_FF`` is badly conditioned or singular (a linear kernel on
``d`` features has rank at most ``d``), SMO zig-zags for millions of steps. On the face
where the bounded multipliers stay put and the equality constraints hold (``y'd = 0``; with
``nu`` the sum of ``d`` over each sign of ``y``), the dual objective along a step ``d`` of the
free multipliers is ``f(a + d) = f(a) + g'd + 1/2 d'Q_FF d``. One multiplier of each
constraint, its pivot, takes what the constraint leaves (``d = Z x``: ``x`` the steps of the
others), so that the face has the reduced matrix ``M = Z'Q_FF Z``, formed without a
factorisation. A Cholesky factorisation with pivoting, ``P'MP = R'R`` (LAPACK's ``dpstrf``),
stops at the numerical rank ``r`` of ``M`` and gives a basis ``[-R11^-1 R12; I]`` of its null
space, at a cost of ``k^2 r`` for ``k`` free multipliers:

* where the gradient has a part along that null space (flat directions, no curvature), ``d``
  follows that part: the objective falls linearly until a multiplier reaches its bound and
  leaves the face;
* otherwise ``d`` is the Newton step from the first ``r`` pivoted columns, the minimiser over
  the face.

A multiplier that reaches its bound leaves the face. The flat directions of the smaller face
are those of the larger one that do not move it (one elimination on the basis), and its
Newton step is the larger face's with that multiplier held by a linear constraint (one more
solve with ``R``): the steps go on from one factorisation. Each step is an exact line search
inside the box (it stops at the first bound it meets), so the objective never rises and SMO's
convergence is untouched; the gradient is updated exactly, and with it the side flags the
solver keeps.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.linalg.blas import dger
from scipy.linalg.lapack import dpstrf

from .._parallel import single_threaded_blas

#: Most free multipliers a face step is tried for (its factorisation costs up to ``k^3 / 3``).
FACE_MAX_FREE = 512
#: Steps from one try at most (a step that meets a bound is followed by another on the smaller face).
FACE_MAX_STEPS = 64

_FLOAT64_EPS = float(np.finfo(np.float64).eps)


def face_steps(batch, store, work, start, stop, eps):
    """Up to ``FACE_MAX_STEPS`` steps on the face of the free multipliers among the variables
    ``start:stop`` of a batch (:class:`svmkit._core.smo.Batch`, its ``work``); returns the
    number taken. ``eps`` is the precision of the stored kernel values (judges the rank).

    The steps move only multipliers free at the start (a step that meets a bound leaves a
    smaller face), so their block of ``Q`` is read once; the gradient of every variable is
    updated once, from the steps' total change."""
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
    # (small matrices: BLAS's and LAPACK's threads cost more than they save, and a fit of small
    # data does not set their count: svmkit._parallel.on_one_blas_thread)
    with single_threaded_blas():
        taken = face.run(FACE_MAX_STEPS)
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
    """The multipliers free at the start of a try (their block ``Q``, values ``alpha`` and
    gradient ``g``, the latter kept exact on the current factorisation's face) and the
    factorisation of the face (:class:`_Factored`), made again only where a direction
    taken as flat had curvature, or where a face whose matrix is singular lost a multiplier
    before a Newton step."""

    def __init__(self, Q, g, alpha, y, upper, nu, eps):
        self.Q, self.g, self.alpha, self.y, self.upper, self.nu, self.eps = Q, g, alpha, y, upper, nu, eps
        self.on_face = (alpha > 0) & (alpha < upper)
        self.factored = None

    def run(self, max_steps):
        """Steps until one reaches the face's minimum, none descends, or ``max_steps``; returns
        the number taken."""
        taken = 0
        while taken < max_steps:
            outcome = self.step()
            if outcome == "none":
                break
            taken += 1
            if outcome == "newton":
                break
        return taken

    def step(self):
        """One step on the face of those still free; returns ``'none'`` (no step),
        ``'bound'`` (a multiplier met its bound, or the step followed a flat direction) or
        ``'newton'`` (the face's minimum)."""
        if self.factored is None:
            face = np.flatnonzero(self.on_face)
            if face.shape[0] < 2:
                return "none"
            self.factored = _Factored(self.Q[np.ix_(face, face)], face, self.y[face], self.nu, self.eps)
        factored = self.factored
        face = factored.face
        g = self.g[face]
        d = factored.flat_direction(g)
        newton = d is None
        if newton:
            if factored.singular and factored.left.any():
                # (the Newton step of a smaller face than the one factorised, whose matrix is
                # singular: the larger face's curved directions are not the smaller one's)
                self.factored = None
                return self.step()
            d = factored.newton_direction(g)
            if d is None:
                return "none"
        factored.keep_constraints(d)
        slope = float(g @ d)
        if not slope < 0:
            return "none"
        Qd = factored.Q @ d
        curvature = float(d @ Qd)
        t_best = -slope / curvature if curvature > 0 else np.inf
        if newton:  # (1 in exact arithmetic: more only where d is rounding noise, not to be magnified)
            t_best = min(t_best, 1.0)
        a_face, u_face = self.alpha[face], self.upper[face]
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d > 0, (u_face - a_face) / d, np.where(d < 0, -a_face / d, np.inf))
        blocking = int(np.argmin(room))
        t_bound = float(room[blocking])
        t = min(t_best, t_bound)
        if not np.isfinite(t) or t * float(np.abs(d).max()) <= _FLOAT64_EPS * float(a_face.max()):
            return "none"  # (no step, or none that the multipliers' precision can take)
        new = np.clip(a_face + t * d, 0.0, u_face)
        hits_bound = t_bound <= t_best
        if hits_bound:
            new[blocking] = u_face[blocking] if d[blocking] > 0 else 0.0
        # G += Q (new - a): t Qd, and the columns of those that clipping or the bound moved apart
        apart = new - a_face - t * d
        moved_apart = np.flatnonzero(apart)
        self.g[face] += t * Qd + factored.Q[:, moved_apart] @ apart[moved_apart]
        self.alpha[face] = new
        if hits_bound:
            # (those that a tie or rounding put on a bound leave with the blocking one)
            for position in np.flatnonzero(((new <= 0) | (new >= u_face)) & self.on_face[face]):
                self.on_face[face[position]] = False
                factored.leave(position)
            return "bound"
        if not newton:
            self.factored = None  # (a direction taken as flat had curvature: the face factorised again)
            return "bound"
        return "newton"


class _Factored:
    """A face's block ``Q`` (of the multipliers ``face``), its pivots' elimination ``Z``, the
    pivoted Cholesky factor of ``M = Z'QZ`` (its first ``r`` pivoted columns: the curved
    directions) and a basis of the flat directions (``B``, one row per
    multiplier of the face, its first ``n_flat`` columns); the multipliers that left the face
    since are held by the constraints ``C`` on the curved steps (which span the whole face only
    where ``M`` is not ``singular``) and eliminated from ``B``."""

    def __init__(self, Q, face, y, nu, eps):
        self.Q, self.face, self.y, self.nu, self.eps = Q, face, y, nu, eps
        k = face.shape[0]
        groups = [np.flatnonzero(y > 0), np.flatnonzero(y < 0)] if nu else [np.arange(k)]
        groups = [group for group in groups if group.shape[0]]
        self.groups = groups
        pivots = np.array([group[-1] for group in groups])
        others = np.setdiff1d(np.arange(k), pivots)
        n = others.shape[0]
        # d = Z x: each multiplier but the pivots steps by its x; a pivot takes minus the
        # rest of its constraint (y_p y_s = 1 within a sign of y, so nu shares the formula)
        Z = np.zeros((k, n))
        Z[others, np.arange(n)] = 1.0
        column = np.full(k, -1)
        column[others] = np.arange(n)
        for group, pivot in zip(groups, pivots):
            rest = group[group != pivot]
            Z[pivot, column[rest]] = -y[pivot] * y[rest]
        QZ = Q[:, others] + Q[:, pivots] @ Z[pivots]
        M = QZ[others] + Z[pivots].T @ QZ[pivots]
        M = 0.5 * (M + M.T)
        scale = max(float(np.abs(np.diagonal(M)).max(initial=0.0)), float(np.abs(np.diagonal(Q)).max()), 1e-300)
        rank = 0
        if n:
            factor, pivot_order, rank, info = dpstrf(M, tol=n * eps * scale, lower=0)
            if info < 0:
                raise RuntimeError(f"LAPACK dpstrf failed (info {info})")
            pivot_order = pivot_order - 1
        curved = pivot_order[:rank] if n else np.empty(0, dtype=np.int64)
        self.R = np.triu(factor[:rank, :rank]) if rank else None
        self.Z_curved = Z[:, curved]
        flat = n - rank
        if flat:
            null = np.zeros((n, flat))
            null[pivot_order[rank:], np.arange(flat)] = 1.0
            if rank:
                null[curved] = -solve_triangular(self.R, factor[:rank, rank:])
            self.B = np.zeros((k, flat), order="F")  # (columns contiguous: updated in place)
            self.B[others] = null
            self.B[pivots] = Z[pivots] @ null
        else:
            self.B = np.zeros((k, 0), order="F")
        self.n_flat = flat
        self.singular = flat > 0
        self.C = np.zeros((0, rank))  # (a row per multiplier that left: its step is zero)
        self.left = np.zeros(k, dtype=bool)

    def keep_constraints(self, d):
        """``d`` less its part along the equality constraints, over the multipliers on the
        face: the directions meet them only as closely as their solves' rounding allows, which
        on unscaled data (kernel values of 1e7) moved ``y'a`` by 1e-9 a try, enough for the
        dual objective to pass the primal's."""
        for group in self.groups:
            on = group[~self.left[group]]
            d[on] -= self.y[on] * np.mean(self.y[on] * d[on])

    def flat_direction(self, g):
        """``-B B'g`` where the objective falls along it, per unit of its length, faster than
        rounding explains, else None."""
        if self.n_flat == 0:
            return None
        B = self.B[:, :self.n_flat]
        along = B.T @ g
        d = -(B @ along)
        d[self.left] = 0.0
        h = g.copy()  # (the gradient less its part along the constraints)
        for group in self.groups:
            h[group] -= self.y[group] * np.mean(self.y[group] * g[group])
        h[self.left] = 0.0
        length = float(np.linalg.norm(d))
        if not float(along @ along) > np.sqrt(self.eps) * max(float(np.linalg.norm(h)), 1e-300) * length:
            return None
        return d

    def newton_direction(self, g):
        """The step ``Z x`` that minimises the objective over the curved directions with the
        multipliers that left held (``C x = 0``); None where there are none."""
        if self.R is None:
            return None
        gx = self.Z_curved.T @ g
        u = cho_solve((self.R, False), gx)
        if self.C.shape[0]:
            W = cho_solve((self.R, False), self.C.T)
            multipliers = np.linalg.lstsq(self.C @ W, -(self.C @ u), rcond=None)[0]
            u = u + W @ multipliers
        d = -(self.Z_curved @ u)
        d[self.left] = 0.0
        return d

    def leave(self, position):
        """The multiplier at ``position`` of the face met its bound: its step is zero from now on."""
        self.left[position] = True
        if self.R is not None:
            self.C = np.vstack([self.C, self.Z_curved[position]])
        if self.n_flat:
            # the flat directions that do not move it: one elimination, in place (the column
            # of its largest entry eliminated, replaced by the last)
            f = self.n_flat
            B = self.B[:, :f]
            row = B[position].copy()
            j = int(np.argmax(np.abs(row)))
            if row[j] != 0:
                dger(-1.0 / row[j], B[:, j].copy(), row, a=B, overwrite_a=1)
                B[:, j] = B[:, f - 1]
                self.n_flat = f - 1
            self.B[position] = 0.0
