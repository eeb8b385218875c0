"""Newton steps on the face of the free multipliers, between stretches of SMO: the block of a
face gathered here, the steps taken by compiled code (:func:`svmkit._core.face.face_run`).

SMO moves two multipliers at a time. When the free multipliers (``0 < a_t < U_t``) have
nearly settled but their block ``Q_FF`` is badly conditioned or singular (a linear kernel on
``d`` features has rank at most ``d``), SMO zig-zags for millions of steps. On the face
where the bounded multipliers stay put and the equality constraints hold (``y'd = 0``; with
``nu`` the sum of ``d`` over each sign of ``y``), the dual objective along a step ``d`` of the
free multipliers is ``f(a + d) = f(a) + g'd + 1/2 d'Q_FF d``. One multiplier of each
constraint, its pivot, takes what the constraint leaves (``d = Z x``: ``x`` the steps of the
others), so that the face has the reduced matrix ``M = Z'Q_FF Z``, formed without a
factorisation. A Cholesky factorisation with pivoting, ``P'MP = R'R`` (LAPACK's ``dpstrf``, as
compiled loops), stops at the numerical rank ``r`` of ``M`` and gives a basis
``[-R11^-1 R12; I]`` of its null space, at a cost of ``k^2 r`` for ``k`` free multipliers:

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

from .._core.face import face_run
from .._first_use import notice_compilation
from .._parallel import single_threaded_blas
from .dual import side_flags

#: Most free multipliers a face step is tried for (its factorisation costs up to ``k^3 / 3``).
FACE_MAX_FREE = 512
#: Steps from one try at most (a step that meets a bound is followed by another on the smaller face).
FACE_MAX_STEPS = 64


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
    alpha_free = a_start.copy()
    notice_compilation(face_run)
    taken = face_run(Q, work.grad[free].copy(), alpha_free, y_free, u_free, bool(batch.nu), eps, FACE_MAX_STEPS)
    if not taken:
        return 0
    change = alpha_free - a_start
    work.alpha[free] = alpha_free
    work.flags[free] = side_flags(y_free, alpha_free, u_free)
    # G_t += sum_s Q_ts change_s over the variables start:stop (a small product: BLAS's threads
    # cost more than they save, and a fit of small data does not set their count:
    # svmkit._parallel.on_one_blas_thread)
    with single_threaded_blas():
        column_change = (y_free * change) @ store.K[slots]
    work.grad[start:stop] += batch.y[start:stop] * column_change[batch.rows[start:stop]]
    return taken
