"""Newton steps on the face of the free multipliers, between stretches of SMO.

SMO moves two multipliers at a time. When the free multipliers (``0 < a_t < U_t``) have
nearly settled but their block ``Q_FF`` is badly conditioned or singular (a linear kernel on
``d`` features has rank at most ``d``), SMO zig-zags for millions of steps. On the face
where the bounded multipliers stay put and the equality constraints hold (``y'd = 0``; with
``nu`` the sum of ``d`` over each sign of ``y``), the dual objective along a step ``d`` of the
free multipliers is ``f(a + d) = f(a) + g'd + 1/2 d'Q_FF d``. With a basis ``Z`` of the
constraints' null space and the eigendecomposition of ``Z'Q_FF Z``:

* where the reduced gradient has a part in the null space of that matrix (flat directions,
  no curvature), ``d`` follows that part: the objective falls linearly until a multiplier
  reaches its bound and leaves the face;
* otherwise ``d`` is the Newton step, the minimiser over the face.

Each step is an exact line search inside the box (it stops at the first bound it meets), so
the objective never rises and SMO's convergence is untouched; the gradient is updated
exactly, and with it the side flags the solver keeps.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

#: Most free multipliers a face step is tried for (its eigendecomposition costs ``k^3``).
FACE_MAX_FREE = 512
#: Steps from one try at most (a step that meets a bound is followed by another on the smaller face).
FACE_MAX_STEPS = 64


def face_steps(batch, store, work, start, stop, eps):
    """Up to ``FACE_MAX_STEPS`` steps on the face of the free multipliers among the variables
    ``start:stop`` of a batch (:class:`svmkit._core.smo.Batch`, its ``work``); returns the
    number taken. ``eps`` is the precision of the stored kernel values (judges the rank)."""
    taken = 0
    while taken < FACE_MAX_STEPS:
        outcome = _face_step(batch, store, work, start, stop, eps)
        if outcome == "none":
            break
        taken += 1
        if outcome == "newton":
            break
    return taken


def _face_step(batch, store, work, start, stop, eps):
    """One step on the face; returns ``'none'`` (no step), ``'bound'`` (a multiplier met its
    bound, or the step followed a flat direction) or ``'newton'`` (the face's minimum)."""
    alpha, upper = work.alpha[start:stop], batch.upper[start:stop]
    free = start + np.flatnonzero((alpha > 0) & (alpha < upper))
    k = free.shape[0]
    if k < 2 or k > FACE_MAX_FREE:
        return "none"
    rows_free = batch.rows[free]
    slots = store.slot[rows_free]
    if np.any(slots < 0):
        return "none"
    y_free = batch.y[free]
    K_free = np.asarray(store.K[np.ix_(slots, rows_free)], dtype=np.float64)
    Q = (y_free[:, np.newaxis] * y_free[np.newaxis, :]) * K_free
    Q = 0.5 * (Q + Q.T)
    g = work.grad[free]
    if batch.nu:
        constraints = np.vstack([(y_free > 0).astype(float), (y_free < 0).astype(float)])
    else:
        constraints = y_free[np.newaxis, :]
    Z = scipy.linalg.null_space(constraints)
    if Z.shape[1] == 0:
        return "none"
    M = Z.T @ Q @ Z
    h = Z.T @ g
    values, vectors = np.linalg.eigh(M)
    scale = max(float(np.abs(values).max(initial=0.0)), float(np.abs(np.diagonal(Q)).max()), 1e-300)
    flat = values <= k * eps * scale
    coefficients = vectors.T @ h
    flat_part = vectors[:, flat] @ coefficients[flat]
    if np.linalg.norm(flat_part) > np.sqrt(eps) * max(np.linalg.norm(h), 1e-300):
        x, newton = -flat_part, False
    else:
        x, newton = -(vectors[:, ~flat] @ (coefficients[~flat] / values[~flat])), True
    d = Z @ x
    slope = float(g @ d)
    if not slope < 0:
        return "none"
    curvature = float(d @ Q @ d)
    t_best = -slope / curvature if curvature > 0 else np.inf
    a_free, u_free = work.alpha[free], batch.upper[free]
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(d > 0, (u_free - a_free) / d, np.where(d < 0, -a_free / d, np.inf))
    blocking = int(np.argmin(room))
    t_bound = float(room[blocking])
    t = min(t_best, t_bound)
    if not np.isfinite(t) or t <= 0:
        return "none"
    new = np.clip(a_free + t * d, 0.0, u_free)
    hits_bound = t_bound <= t_best
    if hits_bound:
        new[blocking] = u_free[blocking] if d[blocking] > 0 else 0.0
    change = new - a_free
    work.alpha[free] = new
    in_up = np.where(y_free > 0, new < u_free, new > 0)
    in_low = np.where(y_free > 0, new > 0, new < u_free)
    work.flags[free] = in_up.astype(np.int8) + 2 * in_low.astype(np.int8)
    # G_t += sum_s Q_ts change_s over the variables start:stop
    group_rows = batch.rows[start:stop]
    column_change = (y_free * change) @ store.K[np.ix_(slots, group_rows)]
    work.grad[start:stop] += batch.y[start:stop] * column_change
    return "newton" if newton and not hits_bound else "bound"
