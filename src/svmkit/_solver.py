"""One solver for every SVM dual: kernel rows through a bounded cache.

The problem (DESIGN.md section 1) is

    minimise 1/2 a'Qa + p'a  subject to  y'a = y'a0,  0 <= a_t <= U_t,

with ``Q_ts = y_t y_s K(x_{r_t}, x_{r_s})``. Formulation adapters (C-SVC, ...)
build a :class:`DualProblem`; :func:`solve_dual` returns a :class:`DualSolution`.

Two strategies, chosen by the memory budget ``cache_size``:

* the whole Gram matrix fits: it is computed once, in BLAS blocks, and SMO
  (second-order working-set selection, :mod:`svmkit._core.smo`) runs on it;
* it does not: blocked decomposition (ThunderSVM, oneDAL): a working set of
  ``q`` variables is chosen by partial selection of the largest violators, its
  kernel rows are fetched in one block through a float32 LRU row cache, SMO runs
  on the ``q x q`` sub-matrix, and the gradient is updated with the rows whose
  multipliers moved. Half of the working set is kept for the next round, and
  LIBSVM's shrinking drops bounded variables that cannot move, so that kernel
  rows are computed only over the active set.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from ._core.smo import SMO_OPTIMAL, SMO_STEP_LIMIT, add_weighted_rows, smo, violation_gap

logger = logging.getLogger("svmkit")

#: Solver status codes (``DualSolution.status``).
OPTIMAL, ITERATION_LIMIT, STALLED = 0, 1, 2

#: Seconds between two progress reports.
PROGRESS_INTERVAL_S = 1.0

_BLOCK_BYTES = 64 * 2**20  # temporary float64 kernel blocks are computed in pieces of this size
_STALL_ROUNDS = 50  # rounds without a decrease of the dual objective
_SHRINK_EVERY = 5  # rounds between two shrinking passes


class GramBlocks:
    """Blocks ``K(X[rows], X[cols])`` of the Gram matrix of a kernel on ``X``."""

    def __init__(self, kernel, X):
        self.kernel = kernel
        self.X = X

    def block(self, rows, cols):
        """Return the dense block of kernel values for the given row indices."""
        return self.kernel(self.X[rows], self.X[cols])

    def diag(self, rows):
        """Return ``K(x_r, x_r)`` for the given rows."""
        return np.asarray(self.kernel.diag(self.X[rows]), dtype=np.float64)


class PrecomputedGram:
    """Blocks of a Gram matrix that the user computed (``kernel='precomputed'``)."""

    def __init__(self, K):
        self.K = K

    def block(self, rows, cols):
        return self.K[np.ix_(rows, cols)]

    def diag(self, rows):
        return np.asarray(self.K[rows, rows], dtype=np.float64)


@dataclass
class DualProblem:
    """The dual of one SVM formulation, in the solver's standard form.

    Attributes
    ----------
    rows : int64 array (m,)
        Gram-matrix row (training sample) of each variable.
    y : float64 array (m,)
        Sign of each variable, +1 or -1.
    p : float64 array (m,)
        Linear term.
    upper : float64 array (m,)
        Upper bounds ``U_t`` (``inf`` allowed: hard margin).
    alpha0 : float64 array (m,)
        A feasible start point.
    nu_mode : bool
        Also keep ``sum a_t`` fixed within each sign of ``y`` (nu-SVC,
        nu-SVR): pairs are chosen within one sign and the gap is the larger
        of the two per-sign gaps.
    """

    rows: np.ndarray
    y: np.ndarray
    p: np.ndarray
    upper: np.ndarray
    alpha0: np.ndarray
    nu_mode: bool = False


@dataclass
class DualSolution:
    """What :func:`solve_dual` returns.

    ``grad`` is the full gradient ``Qa + p`` at ``alpha``; ``gap`` the maximal
    violating-pair gap ``m(a) - M(a)``; ``n_iter`` the number of two-variable
    updates made; ``status`` one of ``OPTIMAL``, ``ITERATION_LIMIT``, ``STALLED``.
    """

    alpha: np.ndarray
    grad: np.ndarray
    gap: float
    n_iter: int
    status: int
    strategy: str


@dataclass
class SolverProgress:
    """A progress report, passed to the callback and logged when verbose."""

    n_iter: int
    gap: float
    active_size: int
    n_variables: int
    elapsed: float

    def __str__(self):
        return (
            f"iter {self.n_iter:>9d}  gap {self.gap:11.4e}  active {self.active_size:>8d}/{self.n_variables}"
            f"  {self.elapsed:8.2f} s"
        )


class _Progress:
    def __init__(self, verbose, callback, n_variables):
        self.verbose = verbose
        self.callback = callback
        self.n_variables = n_variables
        self.start = time.perf_counter()
        self.last = -np.inf

    def report(self, n_iter, gap, active_size, force=False):
        if not (self.verbose or self.callback):
            return
        now = time.perf_counter()
        if not force and now - self.last < PROGRESS_INTERVAL_S:
            return
        self.last = now
        info = SolverProgress(n_iter, float(gap), int(active_size), self.n_variables, now - self.start)
        if self.verbose:
            logger.info("%s", info)
        if self.callback is not None:
            self.callback(info)


def _full_gram(gram, data_rows, dtype):
    n = data_rows.shape[0]
    K = np.empty((n, n), dtype=dtype)
    chunk = max(1, _BLOCK_BYTES // (8 * n))
    for start in range(0, n, chunk):
        K[start : start + chunk] = gram.block(data_rows[start : start + chunk], data_rows)
    return K


def _row_dot(gram, rows, cols, coef):
    """``K(rows, cols) @ coef`` computed in memory-bounded pieces."""
    out = np.empty(rows.shape[0])
    chunk = max(1, _BLOCK_BYTES // (8 * max(1, cols.shape[0])))
    for start in range(0, rows.shape[0], chunk):
        out[start : start + chunk] = gram.block(rows[start : start + chunk], cols) @ coef
    return out


def _initial_gradient(gram, problem):
    """``G = Q a0 + p`` for the start point."""
    grad = problem.p.astype(np.float64).copy()
    moved = np.flatnonzero(problem.alpha0)
    if moved.size:
        sv_rows, inverse = np.unique(problem.rows[moved], return_inverse=True)
        coef = np.zeros(sv_rows.shape[0])
        np.add.at(coef, inverse, problem.y[moved] * problem.alpha0[moved])
        data_rows, position = np.unique(problem.rows, return_inverse=True)
        grad += problem.y * _row_dot(gram, data_rows, sv_rows, coef)[position]
    return grad


def solve_dual(
    gram,
    problem,
    *,
    tol=1e-3,
    max_iter=-1,
    shrinking=True,
    cache_size=200.0,
    working_set_size=None,
    verbose=False,
    callback=None,
):
    """Solve a dual problem to the maximal-violating-pair gap ``tol``.

    Parameters
    ----------
    gram : GramBlocks or PrecomputedGram
        Access to blocks of the kernel matrix.
    problem : DualProblem
    tol : float
        Stop when ``m(a) - M(a) < tol``.
    max_iter : int
        Maximal number of two-variable updates; -1 for no limit.
    shrinking : bool
        Drop bounded variables that cannot move from the working problem.
    cache_size : float
        Memory for kernel values, in MB.
    working_set_size : int, optional
        Size ``q`` of the blocked working set (a power of two).
    verbose : bool
        Log progress to the ``svmkit`` logger at INFO level.
    callback : callable, optional
        Called with a :class:`SolverProgress` every ``PROGRESS_INTERVAL_S`` seconds.

    Returns
    -------
    DualSolution
    """
    m = problem.rows.shape[0]
    max_steps = np.iinfo(np.int64).max if max_iter is None or max_iter < 0 else int(max_iter)
    progress = _Progress(verbose, callback, m)
    data_rows, local_rows = np.unique(problem.rows, return_inverse=True)
    budget = cache_size * 2**20
    n_data = data_rows.shape[0]
    if n_data * n_data * 8 <= budget or n_data * n_data * 4 <= budget:
        dtype = np.float64 if n_data * n_data * 8 <= budget else np.float32
        return _solve_full(gram, problem, data_rows, local_rows, dtype, tol, max_steps, progress)
    solver = _BlockedSolver(gram, problem, budget, working_set_size, tol, max_steps, shrinking, progress)
    return solver.run()


def _solve_full(gram, problem, data_rows, local_rows, dtype, tol, max_steps, progress):
    K = _full_gram(gram, data_rows, dtype)
    alpha = problem.alpha0.astype(np.float64).copy()
    grad = _initial_gradient(gram, problem)
    rows = local_rows.astype(np.int64)
    y = problem.y.astype(np.float64)
    upper = problem.upper.astype(np.float64)
    steps_per_call = max(20 * alpha.shape[0], 10000)
    n_iter = 0
    while True:
        budget = min(steps_per_call, max_steps - n_iter)
        steps, status, gap = smo(K, rows, y, upper, alpha, grad, tol, budget, problem.nu_mode)
        n_iter += steps
        progress.report(n_iter, gap, alpha.shape[0])
        if status == SMO_OPTIMAL:
            result = OPTIMAL
            break
        if n_iter >= max_steps:
            result = ITERATION_LIMIT
            break
    progress.report(n_iter, gap, alpha.shape[0], force=True)
    return DualSolution(alpha, grad, float(gap), n_iter, result, "full-gram")


class _RowCache:
    """Kernel rows over the active columns, float32, least recently used out."""

    def __init__(self, compute, n_data, n_cols, budget_bytes, min_slots):
        self.compute = compute
        n_slots = int(budget_bytes // (4 * max(1, n_cols)))
        self.n_slots = max(min_slots, min(n_slots, n_data))
        self.buffer = np.empty((self.n_slots, n_cols), dtype=np.float32)
        self.slot_of = np.full(n_data, -1, dtype=np.int64)
        self.row_in_slot = np.full(self.n_slots, -1, dtype=np.int64)
        self.last_used = np.zeros(self.n_slots, dtype=np.int64)
        self.clock = 0
        self.n_cols = n_cols

    def fetch(self, rows):
        """Slots holding the given (distinct) data rows, computing the missing ones."""
        self.clock += 1
        slots = self.slot_of[rows]
        hit = slots >= 0
        self.last_used[slots[hit]] = self.clock
        missing = np.flatnonzero(~hit)
        if missing.size:
            victims = np.argpartition(self.last_used, missing.size - 1)[: missing.size]
            evicted = self.row_in_slot[victims]
            self.slot_of[evicted[evicted >= 0]] = -1
            new_rows = rows[missing]
            chunk = max(1, _BLOCK_BYTES // (8 * max(1, self.n_cols)))
            for start in range(0, new_rows.shape[0], chunk):
                part = slice(start, start + chunk)
                self.buffer[victims[part], : self.n_cols] = self.compute(new_rows[part])
            self.slot_of[new_rows] = victims
            self.row_in_slot[victims] = new_rows
            self.last_used[victims] = self.clock
            slots[missing] = victims
        return slots

    def keep_columns(self, positions):
        """Restrict every cached row to the given columns (after shrinking)."""
        used = np.flatnonzero(self.row_in_slot >= 0)
        chunk = max(1, _BLOCK_BYTES // (4 * max(1, self.n_cols)))
        for start in range(0, used.shape[0], chunk):
            part = used[start : start + chunk]
            self.buffer[part, : positions.shape[0]] = self.buffer[part][:, positions]
        self.n_cols = positions.shape[0]

    def clear(self, n_cols):
        """Forget every row; rows from now on have ``n_cols`` columns."""
        self.slot_of[:] = -1
        self.row_in_slot[:] = -1
        self.last_used[:] = 0
        if n_cols > self.buffer.shape[1]:
            self.buffer = np.empty((self.n_slots, n_cols), dtype=np.float32)
        self.n_cols = n_cols


class _BlockedSolver:
    """Blocked decomposition with a working set of ``q`` variables."""

    def __init__(self, gram, problem, budget, working_set_size, tol, max_steps, shrinking, progress):
        self.gram = gram
        self.problem = problem
        self.tol = tol
        self.max_steps = max_steps
        self.shrinking = shrinking
        self.progress = progress
        self.y = problem.y.astype(np.float64)
        self.upper = problem.upper.astype(np.float64)
        self.rows = problem.rows.astype(np.int64)
        m = self.rows.shape[0]
        n_data = int(self.rows.max()) + 1
        q = working_set_size or 1024
        q = int(min(q, 2 ** int(np.floor(np.log2(max(m, 2))))))
        max_rows = max(16, int(budget // (4 * m)))
        while q > 16 and 2 * q > max_rows:
            q //= 2
        self.q = q
        # variables that share one equality constraint: all, or each sign in nu mode
        self.groups = (1.0, -1.0) if problem.nu_mode else (None,)
        self.alpha = problem.alpha0.astype(np.float64).copy()
        self.grad = _initial_gradient(gram, problem)
        # the dual objective 1/2 a'Qa + p'a, updated exactly with each block's decrease
        self.objective = 0.5 * self.alpha @ (self.grad + problem.p)
        self.set_active(np.arange(m))
        self.cache = _RowCache(self._compute_rows, n_data, self.active_data.shape[0], budget, 2 * q)

    # -- the active set ---------------------------------------------------
    def set_active(self, active):
        self.active = active
        self.active_data, self.column_of = np.unique(self.rows[active], return_inverse=True)

    def _compute_rows(self, data_rows):
        return self.gram.block(data_rows, self.active_data)

    def _shrink(self, m_up, m_low):
        """Drop bounded variables whose ``-y G`` lies beyond the group's ``[M, m]`` (arrays per variable)."""
        a, U, y = self.alpha[self.active], self.upper[self.active], self.y[self.active]
        v = -y * self.grad[self.active]
        at_upper, at_lower = a >= U, a <= 0
        only_up = (at_upper & (y < 0)) | (at_lower & (y > 0))
        only_low = (at_upper & (y > 0)) | (at_lower & (y < 0))
        drop = (only_up & (v < m_low)) | (only_low & (v > m_up)) | ((U <= 0) & at_lower)
        if drop.sum() < max(1, self.active.shape[0] // 10):
            return
        old_data = self.active_data
        self.set_active(self.active[~drop])
        self.cache.keep_columns(np.searchsorted(old_data, self.active_data))
        self.kept = self.kept[np.isin(self.kept, self.active)]

    def _unshrink(self):
        m = self.rows.shape[0]
        inactive = np.setdiff1d(np.arange(m), self.active)
        moved = np.flatnonzero(self.alpha > 0)
        if inactive.size:
            sv_rows, inverse = np.unique(self.rows[moved], return_inverse=True)
            coef = np.zeros(sv_rows.shape[0])
            np.add.at(coef, inverse, self.y[moved] * self.alpha[moved])
            data_rows, position = np.unique(self.rows[inactive], return_inverse=True)
            if sv_rows.size:
                values = _row_dot(self.gram, data_rows, sv_rows, coef)[position]
            else:
                values = np.zeros(inactive.shape[0])
            self.grad[inactive] = self.problem.p[inactive] + self.y[inactive] * values
        self.set_active(np.arange(m))
        self.cache.clear(self.active_data.shape[0])
        self.kept = self.kept[:0]

    # -- one round --------------------------------------------------------
    def _group_masks(self, y_active):
        return [np.ones(y_active.shape[0], dtype=bool) if g is None else y_active == g for g in self.groups]

    def _select(self, v, up, low, group_masks, n_new):
        """Positions (in the active set) of the largest violators, kept ones excluded."""
        taken = np.zeros(v.shape[0], dtype=bool)
        taken[self.kept_positions] = True
        chosen = []
        share = max(1, n_new // (2 * len(group_masks)))
        sides = [(up & group, -1.0) for group in group_masks] + [(low & group, 1.0) for group in group_masks]
        for mask, sign in sides:
            candidates = np.flatnonzero(mask & ~taken)
            k = min(share, candidates.shape[0])
            if k == 0:
                continue
            score = sign * v[candidates]
            pick = candidates[np.argpartition(score, k - 1)[:k]] if k < candidates.shape[0] else candidates
            taken[pick] = True
            chosen.append(pick)
        return np.concatenate(chosen) if chosen else np.empty(0, dtype=np.int64)

    def run(self):
        m = self.rows.shape[0]
        q = self.q
        n_iter = 0
        self.kept = np.empty(0, dtype=np.int64)
        best_objective, rounds_since_best, outer, last_shrink = np.inf, 0, 0, 0
        unshrunk_near_end = False
        status = OPTIMAL
        while True:
            y_a = self.y[self.active]
            a_a = self.alpha[self.active]
            U_a = self.upper[self.active]
            v = -y_a * self.grad[self.active]
            up = ((y_a > 0) & (a_a < U_a)) | ((y_a < 0) & (a_a > 0))
            low = ((y_a < 0) & (a_a < U_a)) | ((y_a > 0) & (a_a > 0))
            group_masks = self._group_masks(y_a)
            m_up = np.full(v.shape[0], -np.inf)
            m_low = np.full(v.shape[0], np.inf)
            for group in group_masks:
                if (up & group).any():
                    m_up[group] = v[up & group].max()
                if (low & group).any():
                    m_low[group] = v[low & group].min()
            gap = float((m_up - m_low).max())
            self.progress.report(n_iter, gap, self.active.shape[0])
            if gap < self.tol:
                if self.active.shape[0] == m:
                    break
                self._unshrink()
                continue
            if n_iter >= self.max_steps:
                status = ITERATION_LIMIT
                break
            if self.objective < best_objective - 1e-12 * max(1.0, abs(self.objective)):
                best_objective, rounds_since_best = self.objective, 0
            else:
                rounds_since_best += 1
                if rounds_since_best > _STALL_ROUNDS:
                    status = STALLED
                    break
            if self.shrinking:
                if not unshrunk_near_end and gap <= 10 * self.tol and self.active.shape[0] < m:
                    unshrunk_near_end = True
                    self._unshrink()
                    continue
                if outer - last_shrink >= _SHRINK_EVERY:
                    last_shrink = outer
                    self._shrink(m_up, m_low)
                    continue
            outer += 1
            position_of = np.full(m, -1, dtype=np.int64)
            position_of[self.active] = np.arange(self.active.shape[0])
            self.kept_positions = position_of[self.kept]
            n_active = self.active.shape[0]
            if n_active <= q:
                ws_pos = np.arange(n_active)
                new_pos = ws_pos
            else:
                new_pos = self._select(v, up, low, group_masks, q - self.kept_positions.shape[0])
                ws_pos = np.concatenate([self.kept_positions, new_pos])
            ws = self.active[ws_pos]
            steps = self._optimise_block(ws, ws_pos)
            n_iter += steps
            self.kept = self.active[new_pos[: q // 2]] if n_active > q else self.kept[:0]
        self.progress.report(n_iter, gap, self.active.shape[0], force=True)
        if self.active.shape[0] < m:
            self._unshrink()
            gap = violation_gap(self.y, self.alpha, self.grad, self.upper, self.problem.nu_mode)
        return DualSolution(self.alpha, self.grad, float(gap), n_iter, status, "blocked")

    def _optimise_block(self, ws, ws_pos):
        """SMO on the working set, then the gradient update with the moved rows."""
        ws_data, local_rows = np.unique(self.rows[ws], return_inverse=True)
        slots = self.cache.fetch(ws_data)
        columns = np.searchsorted(self.active_data, ws_data)
        K_ws = self.cache.buffer[np.ix_(slots, columns)].astype(np.float64)
        alpha_ws = self.alpha[ws].copy()
        grad_ws = self.grad[ws].copy()
        y_ws, U_ws = self.y[ws], self.upper[ws]
        nu_mode = self.problem.nu_mode
        local_gap = violation_gap(y_ws, alpha_ws, grad_ws, U_ws, nu_mode)
        local_tol = max(self.tol, 0.1 * local_gap)
        budget = min(max(20 * ws.shape[0], 1000), self.max_steps)
        rows_ws = local_rows.astype(np.int64)
        steps, _, _ = smo(K_ws, rows_ws, y_ws, U_ws, alpha_ws, grad_ws, local_tol, budget, nu_mode)
        delta = alpha_ws - self.alpha[ws]
        moved = np.flatnonzero(delta)
        if moved.size == 0:
            return max(steps, 1)
        # f(a + d) - f(a) = d'G + 1/2 d'Qd, and Qd restricted to the block is grad_ws_new - grad_ws_old
        self.objective += delta @ (0.5 * (grad_ws + self.grad[ws]))
        self.alpha[ws] = alpha_ws
        coef = np.zeros(ws_data.shape[0])
        np.add.at(coef, local_rows[moved], y_ws[moved] * delta[moved])
        nonzero = np.flatnonzero(coef)
        column_sum = np.zeros(self.active_data.shape[0])
        add_weighted_rows(self.cache.buffer, slots[nonzero], coef[nonzero], column_sum)
        self.grad[self.active] += self.y[self.active] * column_sum[self.column_of]
        return max(steps, 1)


def intercept_from_gradient(y, alpha, grad, upper):
    """The bias ``b`` of ``f(x) = sum_j a_j y_j K(x_j, x) + b`` (LIBSVM's ``-rho``).

    The average over free multipliers (``0 < a_t < U_t``) of ``-y_t G_t``
    (the seeds' ``y_i - sum_j a_j y_j K_ij`` for C-SVC); with no free
    multiplier, the midpoint of the interval allowed by the KKT conditions.
    """
    yg = y * grad
    free = (alpha > 0) & (alpha < upper)
    if free.any():
        return -float(yg[free].mean())
    at_upper = alpha >= upper
    at_lower = alpha <= 0
    # rho must satisfy: rho >= yG on {upper, y=+1} u {lower, y=-1}; rho <= yG on the rest
    lower_side = (at_upper & (y > 0)) | (at_lower & (y < 0))
    upper_side = (at_upper & (y < 0)) | (at_lower & (y > 0))
    lb = yg[lower_side].max() if lower_side.any() else -np.inf
    ub = yg[upper_side].min() if upper_side.any() else np.inf
    if not np.isfinite(lb):
        lb = ub
    if not np.isfinite(ub):
        ub = lb
    return -float(0.5 * (lb + ub)) if np.isfinite(lb) else 0.0
