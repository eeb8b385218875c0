"""The solver: one selection-and-update loop (:mod:`svmkit._core.smo`) driven by the plan.

:func:`solve` plans (:func:`svmkit._plan.plan`), then runs the Gram strategy (SMO on kernel
rows kept as they are computed) or the blocked strategy (working sets whose blocks SMO
solves, every gradient updated from cached rows). Compiled calls are bounded in time, so
progress is reported about once a second and Ctrl-C stops a fit within a fraction of a
second; between calls where SMO zig-zags, steps on the face of the free multipliers
(:mod:`svmkit._solver.face`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass, replace
from types import SimpleNamespace

import numpy as np

from .. import _plan
from .._buffers import reused_array
from .._core.blocked import ROUND_LEFT, linear_round
from .._core.kernels import precomputed_kernel_data
from .._first_use import notice_compilation
from .._core.smo import (
    COMPUTED, GROUP, HAND_OVER, N_WANTED, NOT_STARTED, STARTED, STARTED_DONE, Batch, Settings, full_row_store,
    group_rho, kept_by_shrinking, new_work, row_store, solve_batch, solve_kept,
)
from .._core.working_set import add_by_rows, column_sum, column_sum_parallel, gather_block, select_working_set
from .._parallel import map_in_threads, on_all_cores
from .class_blocks import ClassBlocks
from .duplicates import merge_copies
from .dual import (
    ITERATION_LIMIT, NOT_FINITE, OPTIMAL, STALLED, DualBatch, DualSolution, SolverCounts, runs_of, side_flags,
)
from .face import FACE_MAX_FREE, face_steps
from .rows import square_block

logger = logging.getLogger("svmkit")

#: Seconds between two progress reports.
PROGRESS_INTERVAL_S = 1.0
#: Stretches of SMO on a working set's block, with steps on the face of its free multipliers
#: between them, at most (where SMO zig-zags).
_LOCAL_FACE_TRIES = 10
_EPS = {np.dtype(t): float(np.finfo(t).eps) for t in (np.float32, np.float64)}  # (precision of kernel values)
_NO_DATA = precomputed_kernel_data(np.empty((0, 0)))  # (the stores of blocks: no data to compute rows from)


@dataclass
class SolverSettings:
    """The estimator's settings the solver needs."""

    tol: float = 1e-3
    max_iter: int = -1
    shrinking: bool = True
    cache_size: float = 200.0
    n_jobs: int = 1
    verbose: bool = False
    callback: object = None
    #: What each problem of the batch is ("pair 3 vs 7", "pair 3 vs 7, fold 2/5"), for reports.
    problem_names: tuple = ()
    #: What the batch is ("3 one-vs-one pairs"), for its plan and its last report.
    label: str = ""


@dataclass
class SolverProgress:
    """A progress report, passed to the callback and logged when verbose.

    ``problem`` names the sub-problem being solved (a one-vs-one pair, a fold of the
    probability fit), or the whole batch in the report at its end."""

    n_iter: int
    gap: float
    active_size: int
    n_variables: int
    elapsed: float
    problem: str = ""

    def __str__(self):
        where = f"{self.problem}: " if self.problem else ""
        return (
            f"{where}iter {self.n_iter:>9d}  gap {self.gap:11.4e}  active {self.active_size:>8d}/{self.n_variables}"
            f"  {self.elapsed:8.2f} s"
        )


class _Progress:
    """Reports at most every ``PROGRESS_INTERVAL_S`` seconds (and at the end), and carries
    the stop request of an interrupted fit to the worker threads."""

    def __init__(self, settings, n_variables):
        self.verbose = settings.verbose
        self.callback = settings.callback
        self.names = settings.problem_names
        self.label = settings.label
        self.n_variables = n_variables
        self.start = time.perf_counter()
        self.last = self.start
        #: Set by the thread that met Ctrl-C; the others stop at their next report (a plain
        #: flag: one thread writes it, and the others only read it)
        self.stopped = False
        self.lock = threading.Lock() if self.wanted else None

    @property
    def wanted(self):
        return bool(self.verbose or self.callback)

    def report(self, n_iter, gap, active_size, force=False, problem=None):
        """Report progress on ``problem`` (an index into the batch; None: the whole batch)."""
        if self.stopped:
            raise KeyboardInterrupt
        if not self.wanted:
            return
        now = time.perf_counter()
        if not force and now - self.last < PROGRESS_INTERVAL_S:
            return
        with self.lock:
            self.last = now
            name = self.label if problem is None or problem >= len(self.names) else self.names[problem]
            info = SolverProgress(int(n_iter), float(gap), int(active_size), self.n_variables, now - self.start, name)
            if self.verbose:
                logger.info("%s", info)
            if self.callback is not None:
                self.callback(info)


def solve(batch, source, settings):
    """Solve every problem of ``batch`` (a :class:`svmkit._solver.dual.DualBatch`) on the
    kernel rows of ``source`` (:mod:`svmkit._solver.rows`); returns a
    :class:`svmkit._solver.dual.DualSolution`.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.kernels import LinearKernel
    >>> from svmkit._solver.rows import KernelRows
    >>> from svmkit._solver.dual import DualBatch
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> batch = DualBatch.single(np.array([-1.0, -1.0, 1.0, 1.0]), -np.ones(4), np.full(4, 10.0), np.zeros(4),
    ...                          np.arange(4))
    >>> solution = solve(batch, KernelRows(LinearKernel(), X), SolverSettings(tol=1e-6))
    >>> solution.alpha.round(6), solution.status  # the margin 1 <= x <= 3
    (array([0. , 0.5, 0.5, 0. ]), array([0]))
    """
    merged = merge_copies(batch, source)
    if merged is None:
        return _solve(batch, source, settings)
    if settings.verbose:
        logger.info("%s%d variables on copies of points merged into %d",
                    f"{settings.label}: " if settings.label else "", batch.y.shape[0], merged.batch.y.shape[0])
    return merged.expand(_solve(merged.batch, merged.source, settings))


def _solve(batch, source, settings):
    """:func:`solve` of a batch as it is."""
    value_bound = source.value_bound()
    plan = _plan.plan(
        source.n_rows, batch.rows_per_group(), n_features=source.n_features, kernel_code=source.kernel_code,
        sparse_density=source.sparse_density, budget_bytes=settings.cache_size * 2**20,
        n_jobs=settings.n_jobs, max_iter=settings.max_iter, linear=source.is_linear, value_bound=value_bound,
        exact_in_float32=(source.is_linear and value_bound > _plan.FLOAT32_VALUE_LIMIT
                          and source.values_exact_in_float32()),
        common_features=source.common_features() is not None,
    )
    runs = batch.runs()
    if plan.strategy == "gram" and plan.shared_rows and runs is None:
        plan = _plan.with_rows_per_problem(plan)
    if settings.verbose:
        logger.info("%s%s", f"{settings.label}: " if settings.label else "", plan)
    notice_compilation(solve_batch, group_rho, *((select_working_set,) if plan.strategy == "blocked" else ()))
    progress = _Progress(settings, batch.y.shape[0])
    counts = SolverCounts()
    if plan.strategy == "gram" and plan.shared_rows:
        compiled = batch.compiled(runs)
        store = _GramStore(source, plan, plan.gram_dtype, plan.cache_rows, counts)
        work = new_work(compiled)
        work.alpha[:] = batch.alpha0
        _solve_groups(compiled, store, work, plan, settings, progress, counts)
        store.count_rows()
        alpha, grad, n_iter, status, gap = work.alpha, work.grad, work.n_iter, work.status, work.gap
    else:
        alpha, grad = np.array(batch.alpha0, dtype=np.float64), np.zeros(batch.y.shape[0])
        n_iter = np.zeros(batch.n_groups, dtype=np.int64)
        status = np.zeros(batch.n_groups, dtype=np.int64)
        gap = np.zeros(batch.n_groups)
        plans = _problem_plans(plan, batch, source, settings)
        judge = _BlasRowsJudge(batch.n_groups, settings)
        blocks = ClassBlocks.for_batch(batch, source, plan, settings.cache_size * 2**20, counts)
        if blocks is not None and settings.verbose:
            logger.info("%sGram matrices assembled from class blocks", f"{settings.label}: " if settings.label else "")

        def solve_one(g):
            part = batch.group(g)
            if plans[g].strategy == "blocked":
                judge.report(g, 0, 0)  # (no BLAS rows of the Gram strategy to judge)
                outcome = _blocked_group(batch, g, source, plans[g], settings, progress, counts)
            else:
                outcome = _own_rows_group(batch, g, source, plans[g], settings, progress, counts, judge, blocks)
            alpha[part], grad[part], n_iter[g], status[g], gap[g] = outcome

        try:
            map_in_threads(solve_one, range(batch.n_groups), plan.threads)
        except KeyboardInterrupt:
            progress.stopped = True
            raise
        bounds_only = np.zeros((batch.n_groups + 1, 4), dtype=np.int64)
        bounds_only[:, 0] = batch.bounds
        compiled = batch.compiled(bounds_only)
    rho1, rho2 = group_rho(compiled, alpha, grad)
    if progress.wanted:
        progress.report(int(n_iter.sum()), float(gap.max(initial=0.0)), batch.y.shape[0], force=True)
    if settings.verbose:
        logger.info("%s%s", f"{settings.label}: " if settings.label else "", counts)
    return DualSolution(alpha, grad, n_iter, status, gap, rho1, rho2, plan, counts)


def _problem_plans(plan, batch, source, settings):
    """The plan of each problem of ``batch`` (:func:`svmkit._plan.for_problem`), those that
    differ from the batch's logged when verbose."""
    budget = settings.cache_size * 2**20
    plans = [_plan.for_problem(plan, source.n_rows, int(rows), int(batch.bounds[g + 1] - batch.bounds[g]), budget,
                               source.is_linear)
             for g, rows in enumerate(batch.rows_per_group())]
    if settings.verbose and plan.strategy == "blocked":
        kinds = [("the Gram strategy on their own rows" if p.strategy == "gram"
                  else "working sets on a copy of their own rows") for p in plans if p.strategy == "gram" or p.own_rows]
        for kind in sorted(set(kinds)):
            logger.info("%s%d of %d problems by %s", f"{settings.label}: " if settings.label else "", kinds.count(kind),
                        len(plans), kind)
    return plans


class _GramStore:
    """The kernel rows of the Gram strategy: the user's Gram matrix as it is, or a store of
    ``capacity`` rows (:func:`svmkit._core.smo.row_store`) that SMO fills as it asks for rows,
    computed by the compiled solver itself (compiled loops) or here between its calls (BLAS
    products, Python kernels), or all of them here first where the plan says so (small
    problems, ``rows_upfront``), or ``gram``, the Gram matrix of ``source``'s rows made and
    counted already (:mod:`svmkit._solver.class_blocks`). Only the rows written take memory: a
    fit holds the rows it needs, not the whole Gram matrix."""

    def __init__(self, source, plan, dtype, capacity, counts, loops=False, judged=False, gram=None):
        n = source.n_rows
        if gram is not None:
            dtype = gram.dtype
        self.source = source
        self.dots = "loops" if loops and plan.dots == "blas" else plan.dots
        if self.dots == "common" and source.common_features() is None:
            self.dots = "sparse"  # (a problem's own rows without the batch's common features: compiled loops)
        self.prefetch = plan.prefetch if self.dots == plan.dots else _plan.PREFETCH_ROWS[self.dots]
        self.counts = counts
        # (rows, places, the times the places were taken) of each BLAS call, where a judge counts them
        self._computed = [] if judged and self.dots == "blas" else None
        if plan.dots == "precomputed":
            data = source.compiled()
            self.store = full_row_store(data.gram, np.ascontiguousarray(np.diagonal(data.gram)), data)
            return
        compute = self.dots in ("loops", "sparse")
        data = source.compiled(dtype) if source.kernel_code is not None else precomputed_kernel_data(
            np.empty((0, 0)))
        if gram is not None or (self.dots == plan.dots and _rows_first(plan, capacity, n)):
            # (every row in one call, or given: SMO then never returns for one)
            K = gram
            if K is None:
                K = np.empty((n, n), dtype=dtype)
                source.gram_into(K, self.dots)
            self.store = full_row_store(K, source.diagonal(), data)
            self.store.clock[COMPUTED] = n if gram is None else 0  # (a given matrix's rows: counted by its maker)
            return
        # (the memory of a row is only taken where the row is written)
        self.store = row_store(np.empty((min(capacity, n), n), dtype=dtype), n, source.diagonal(), compute, data)

    def fill(self, work):
        """Compute the rows the solver listed (``work.wanted``) into the places it gave them."""
        count = int(work.cursor[N_WANTED])
        rows, places = work.wanted[:count].copy(), work.places[:count].copy()
        with self.counts.timed("rows"):
            self.source.rows_into(rows, self.store.K, self.dots, places)
        self.store.clock[COMPUTED] += count
        work.cursor[N_WANTED] = 0
        if self._computed is not None:
            self._computed.append((rows, places, self.store.used[places].copy()))

    def blas_rows_used(self):
        """``(computed, used)``: the BLAS rows computed so far and those of them SMO read after
        they were computed (a place taken by another row since counts as used); (0, 0) where
        the store was not made to count them (``judged``)."""
        if self._computed is None:
            return 0, 0
        store = self.store
        used = sum(int(np.count_nonzero((store.owner[places] != rows) | (store.used[places] > taken)))
                   for rows, places, taken in self._computed)
        return sum(rows.shape[0] for rows, _, _ in self._computed), used

    def count_rows(self):
        """Add the rows computed for this store to the counts (a user's Gram matrix: none)."""
        if self.dots != "precomputed":
            rows = int(self.store.clock[COMPUTED])
            self.counts.add(rows, rows * self.store.K.shape[1])


def _rows_first(plan, capacity, n_rows):
    """Whether a store of ``capacity`` of the ``n_rows`` rows computes them all before SMO
    starts: where the plan says so and the store holds them all."""
    return plan.rows_upfront and capacity >= n_rows


def _solve_groups(compiled, gram_store, work, plan, settings, progress, counts, problem=None):
    """Compiled calls of :func:`svmkit._core.smo.solve_batch` until every group of
    ``compiled`` (from ``work.cursor[GROUP]``) is solved: the rows it asks for computed
    between calls, each call at most ``STEPS_PER_CALL`` steps, and where SMO makes long
    stretches, steps on the face of the free multipliers (all of it counted in steps, so that
    the solution does not depend on the machine's speed). Progress names ``problem`` (the
    batch's problem that ``compiled`` holds alone), else the group being solved."""
    n_groups = compiled.runs.shape[0] - 1
    core_settings = Settings(float(settings.tol), int(plan.max_steps), bool(settings.shrinking), gram_store.prefetch,
                             _plan.HAND_OVER_MIN_WORK)
    eps = _EPS[gram_store.store.K.dtype]
    face = _FaceSchedule()
    stall = _StallWatch()
    while work.cursor[GROUP] < n_groups:
        g = work.cursor[GROUP]
        start, stop = compiled.runs[g, 0], compiled.runs[g + 1, 0]
        budget = min(_plan.STEPS_PER_CALL, face.steps_before_try(g, stop - start))
        with counts.timed("smo"):
            # (a sub-problem that a call's budget stopped goes on first)
            steps = 0 if work.cursor[HAND_OVER] else solve_batch(compiled, gram_store.store, work, core_settings,
                                                                 budget)
            if work.cursor[HAND_OVER]:
                notice_compilation(solve_kept)
                steps += solve_kept(compiled, gram_store.store, work, core_settings, budget - steps)
        face.made(steps)
        if work.cursor[N_WANTED]:
            gram_store.fill(work)
        elif face.due() and work.cursor[GROUP] == g and work.cursor[STARTED] == STARTED_DONE:
            alpha = work.alpha[start:stop]
            n_free = int(np.count_nonzero((alpha > 0) & (alpha < compiled.upper[start:stop])))
            m = stop - start
            settled = face.settled(n_free)  # (every look's count recorded, whatever follows)
            if settled and 2 <= n_free <= FACE_MAX_FREE and face.affordable(n_free, m, int(work.n_iter[g])):
                face.tried(face_steps(compiled, gram_store.store, work, start, stop, eps), n_free, m)
                work.resume[0], work.resume[1] = 0, -1  # (the multipliers moved: the solver's keys are stale)
            else:
                face.skipped()
        if (work.cursor[GROUP] == g and work.cursor[STARTED] == STARTED_DONE
                and stall.stalled(g, int(work.n_iter[g]), float(work.gap[g]), stop - start)):
            work.status[g] = STALLED
            work.cursor[GROUP], work.cursor[STARTED], work.cursor[HAND_OVER] = g + 1, NOT_STARTED, 0
        if progress.wanted or progress.stopped:
            current = min(work.cursor[GROUP], n_groups - 1)
            progress.report(work.n_iter.sum(), work.gap[current], stop - start,
                            problem=current if problem is None else problem)


class _BlasRowsJudge:
    """Whether the problems of a batch on stores of their own rows compute their rows by BLAS
    or by compiled loops (:data:`svmkit._plan.BLAS_ROWS_MIN_USED_FRACTION`), decided from the
    BLAS rows of its first problems in the batch's order, whatever the order in which threads
    finish them (so that the solution does not depend on the machine's speed): the first two
    take BLAS rows; a later one that starts before the decision waits until those before it are
    solved, and takes BLAS rows (to be judged) where that still decides nothing."""

    def __init__(self, n_problems, settings):
        self.loops = False
        self._decided = False
        self._reports = [None] * n_problems  # (BLAS rows computed, used) of each solved problem
        self._condition = threading.Condition()
        self._settings = settings

    def loops_for(self, g):
        """Whether problem ``g`` computes its rows by loops (True) or BLAS (False), or None
        where it takes BLAS rows that the decision is to count (the first two, and a later one
        whose predecessors are solved and decided nothing)."""
        if g < 2:  # (two threads start at once: neither waits, whatever the threads allowed)
            return None
        with self._condition:
            while not self._decided and any(report is None for report in self._reports[:g]):
                self._condition.wait(timeout=0.1)  # (the timeout lets Ctrl-C through)
            return self.loops if self._decided else None

    def report(self, g, computed, used):
        """Problem ``g`` is solved (or failed, or computes no BLAS rows: 0, 0)."""
        with self._condition:
            if self._reports[g] is not None:
                return
            self._reports[g] = (computed, used)
            if not self._decided:
                total_computed = total_used = 0
                for k, report in enumerate(self._reports):
                    if report is None:
                        break
                    total_computed += report[0]
                    total_used += report[1]
                    if total_computed >= _plan.BLAS_ROWS_JUDGED_AFTER:
                        self.loops = total_used < _plan.BLAS_ROWS_MIN_USED_FRACTION * total_computed
                        self._decided = True
                        if self._settings.verbose:
                            logger.info("%sthe first %d problems used %d of the %d BLAS rows they computed: the "
                                        "others' rows by %s", f"{self._settings.label}: " if self._settings.label
                                        else "", k + 1, total_used, total_computed,
                                        "compiled loops" if self.loops else "BLAS")
                        break
                else:
                    self._decided = True  # (too few BLAS rows in all to judge)
            self._condition.notify_all()


class _StallWatch:
    """Whether a problem of the Gram strategy has stalled: its KKT gap has not fallen below
    ``STALL_GAP_FRACTION`` of its value at the last progress for ``STALL_STEPS_PER_VARIABLE``
    steps per variable (at least ``STALL_MIN_STEPS``). The gap is sampled once per
    ``STEPS_PER_CALL`` steps, however often the solver returns (for rows, or to look at the
    face): SMO's gap swings from step to step, and a low swing caught as the reference would
    make the gaps after it look stalled."""

    def __init__(self):
        self.group = None
        self.reference = np.inf
        self.since = 0
        self.sampled = 0

    def stalled(self, group, steps, gap, n_variables):
        if group == self.group and steps // _plan.STEPS_PER_CALL == self.sampled:
            return False
        self.sampled = steps // _plan.STEPS_PER_CALL
        if group != self.group or gap < _plan.STALL_GAP_FRACTION * self.reference:
            self.group, self.reference, self.since = group, gap, steps
            return False
        return steps - self.since >= max(_plan.STALL_MIN_STEPS, _plan.STALL_STEPS_PER_VARIABLE * n_variables)


class _FaceSchedule:
    """When the Gram strategy tries steps on the face (:mod:`svmkit._solver.face`): after
    ``FACE_STEPS_PER_VARIABLE`` SMO steps per variable of a problem at first, then after SMO
    steps whose work is ``FACE_WORK_RATIO`` times a try's, twice as long after a try that took
    no step; a look that finds the free multipliers too many for a try (or the try dearer than
    ``affordable``) looks again after the first spacing, as SMO settles them."""

    def __init__(self):
        self.group = None
        self.spacing = 0
        self.to_go = 0
        self.last_free = 0

    def steps_before_try(self, group, n_variables):
        if group != self.group:
            self.group = group
            self.last_free = 0
            self.spacing = self.to_go = max(_plan.FACE_STEPS_PER_VARIABLE * n_variables,
                                            -(-_plan.FACE_FIRST_MIN_WORK // max(n_variables, 1)))
        return max(self.to_go, 1)

    def made(self, steps):
        self.to_go -= steps

    def due(self):
        return self.to_go <= 0

    def settled(self, n_free):
        """Whether the free multipliers have stopped falling fast: at least
        ``FACE_SETTLED_SHARE`` of those at the last look (a face tried while SMO still takes
        multipliers off it is left as soon as SMO goes on)."""
        last, self.last_free = self.last_free, n_free
        return n_free >= _plan.FACE_SETTLED_SHARE * last

    @staticmethod
    def try_work(n_free, n_variables):
        """A try's work on ``n_free`` free multipliers of ``n_variables``: ``k^3 + k m``, in SMO's
        units (``m`` a step)."""
        return n_free**3 + n_free * n_variables

    @staticmethod
    def affordable(n_free, n_variables, steps):
        """Whether a try on ``n_free`` free multipliers costs at most a ``FACE_WORK_RATIO``-th of
        the SMO work made so far (``m`` a step)."""
        return _plan.FACE_WORK_RATIO * _FaceSchedule.try_work(n_free, n_variables) <= steps * n_variables

    def skipped(self):
        """No try where the free multipliers were too many or too few for one, still falling,
        or the try dearer than ``affordable``: another look after the spacing (a look costs a
        return from compiled code and a count)."""
        self.to_go = self.spacing

    def tried(self, taken, n_free, n_variables):
        work = self.try_work(n_free, n_variables) / max(n_variables, 1)
        self.spacing = max(self.spacing, int(_plan.FACE_WORK_RATIO * work)) * (1 if taken else 2)
        self.to_go = self.spacing


def _group_batch(batch, g, rows, runs):
    """Problem ``g`` alone, its variables on the kernel rows ``rows`` (positions in a source of
    the problem's own rows) that make the ``runs`` ``(split, col0, col1)`` of
    :func:`svmkit._solver.dual.runs_of`, as compiled code reads it."""
    part = batch.group(g)
    m = part.stop - part.start
    split, col0, col1 = runs
    runs = np.array([[0, split, col0, col1], [m, 0, 0, 0]], dtype=np.int64)
    return Batch(_f64(batch.y[part]), _f64(batch.p[part]), _f64(batch.upper[part]), rows, runs, bool(batch.nu))


def _f64(values):
    return np.ascontiguousarray(values, dtype=np.float64)


def _own_rows_group(batch, g, source, plan, settings, progress, counts, judge, blocks=None):
    """Problem ``g`` by the Gram strategy on a store of its own rows, gathered once in the
    order of its variables (so that they are runs; else a row for each variable), BLAS rows
    or loops as the batch's ``judge`` (:class:`_BlasRowsJudge`) says. Returns ``(alpha, grad,
    steps, status, gap)``."""
    part = batch.group(g)
    rows, first_place = np.unique(batch.rows[part], return_index=True)
    in_order = rows[np.argsort(first_place, kind="stable")]
    position = np.empty(source.n_rows, dtype=np.int64)
    position[in_order] = np.arange(in_order.shape[0])
    variable_rows = position[batch.rows[part]]
    runs = runs_of(variable_rows)
    if runs is None:
        # (epsilon-SVR's variables that shrinking kept, some rows with both multipliers and some
        # with one: no order of the rows makes both halves runs; a row for each variable does)
        in_order, variable_rows = batch.rows[part], np.arange(part.stop - part.start)
        runs = runs_of(variable_rows)
    compiled = _group_batch(batch, g, variable_rows, runs)
    n_rows = in_order.shape[0]
    budget = settings.cache_size * 2**20 / max(plan.threads, 1)
    dtype = _plan.gram_dtype(n_rows, budget, plan.single_precision)
    if dtype is None:  # (a Gram matrix beyond the budget: as many rows as it holds, the least recently used out)
        dtype = np.dtype(np.float32 if plan.single_precision else np.float64)
        capacity = max(2, min(n_rows, _plan.rows_in_budget(n_rows, budget, dtype)))
    else:
        capacity = n_rows
    blas_as_asked = plan.dots == "blas" and not _rows_first(plan, capacity, n_rows) and blocks is None
    if not blas_as_asked:
        judge.report(g, 0, 0)  # (no BLAS rows computed as SMO asks: nothing to judge, nothing to wait for)
    rows_used = (0, 0)
    try:
        loops = judge.loops_for(g) if blas_as_asked else False
        pair_source = source.subset(in_order, gather=True)
        store = _GramStore(pair_source, plan, dtype, capacity, counts, loops=bool(loops), judged=loops is None,
                           gram=None if blocks is None else blocks.gram(g, pair_source))
        work = new_work(compiled)
        work.alpha[:] = batch.alpha0[part]
        _solve_groups(compiled, store, work, plan, settings, progress, counts, problem=g)
        store.count_rows()
        rows_used = store.blas_rows_used()
    finally:
        judge.report(g, *rows_used)
    return work.alpha, work.grad, work.n_iter[0], work.status[0], work.gap[0]


class _RowCache:
    """Whole kernel rows (over every data row) in ``dtype``, least recently used out, for the
    blocked strategy; at least one working set's rows."""

    def __init__(self, source, n_slots, dots, dtype):
        self.source = source
        self.dots = dots
        self.buffer = np.empty((n_slots, source.n_rows), dtype=dtype)
        self.slot_of = np.full(source.n_rows, -1, dtype=np.int64)
        self.row_of = np.full(n_slots, -1, dtype=np.int64)
        self.last_used = np.zeros(n_slots, dtype=np.int64)
        self.round = 0
        self.rows_computed = 0

    def release(self):
        """Free the cached rows' memory (while a shrunk sub-problem takes the budget)."""
        self.buffer = np.empty((0, self.source.n_rows), dtype=self.buffer.dtype)
        self.slot_of[:] = -1
        self.row_of[:] = -1

    def restore(self):
        """The memory of :meth:`release` back, every slot empty."""
        self.buffer = np.empty((self.row_of.shape[0], self.source.n_rows), dtype=self.buffer.dtype)
        self.last_used[:] = 0

    def cached(self, rows):
        """The slots of ``rows`` (-1 where not cached), marked as used."""
        self.round += 1
        slots = self.slot_of[rows]
        self.last_used[slots[slots >= 0]] = self.round
        return slots

    def slots(self, rows):
        """The slots of ``rows`` (distinct), computing the missing ones."""
        slots = self.cached(rows)
        missing = np.flatnonzero(slots < 0)
        if missing.size:
            # (in slot order: rows evicted together, computed together, are then runs of slots)
            free = np.sort(np.argpartition(self.last_used, missing.size - 1)[:missing.size])
            evicted = self.row_of[free]
            self.slot_of[evicted[evicted >= 0]] = -1
            self.source.rows_into(rows[missing], self.buffer, self.dots, free)
            self.rows_computed += missing.size
            self.slot_of[rows[missing]] = free
            self.row_of[free] = rows[missing]
            self.last_used[free] = self.round
            slots[missing] = free
        return slots


def _blocked_group(batch, g, source, plan, settings, progress, counts):
    """Problem ``g`` by the blocked strategy (DESIGN.md section 3): rounds of a working set
    of the largest violators, its block solved by SMO (one row per variable, so the set is
    one run), every gradient updated with the kernel columns of the multipliers that moved
    (the linear kernel: through the change of ``w``). Returns ``(alpha, grad, steps,
    status, gap)``."""
    part = batch.group(g)
    y, p, upper = _f64(batch.y[part]), _f64(batch.p[part]), _f64(batch.upper[part])
    rows = np.ascontiguousarray(batch.rows[part], dtype=np.int64)
    if plan.own_rows:  # (kernel rows over the problem's rows only)
        own, rows = np.unique(rows, return_inverse=True)
        source = source.subset(own)
    m = y.shape[0]
    problem = Batch(y, p, upper, rows, np.array([[0, m, 0, 0], [m, 0, 0, 0]], dtype=np.int64), bool(batch.nu))
    alpha = np.array(batch.alpha0[part], dtype=np.float64)
    cache = None if source.is_linear else _RowCache(source, plan.cache_rows, plan.dots, plan.gram_dtype)
    # the linear kernel's rounds on dense rows compiled whole (the rows, and those of the blocks)
    linear_rows = None
    if cache is None and (dense := source.dense_rows(np.float64)) is not None:
        linear_rows = (dense, source.dense_rows(plan.gram_dtype))
    if batch.grad0 is None:
        grad = p.copy()
        with counts.timed("gradient"):
            _add_columns(source, cache, rows, y, alpha, grad)
    else:
        grad = np.array(batch.grad0[part], dtype=np.float64)
    q = plan.working_set
    hands_over = settings.shrinking and (linear_rows is None or m >= _plan.LINEAR_HAND_OVER_MIN_VARIABLES)
    kept = np.empty(0, dtype=np.int64)
    objective = 0.5 * alpha @ (grad + p)
    best, since_best, steps, status = np.inf, 0, 0, OPTIMAL
    rounds_since_hand_over = 0
    buffers = SimpleNamespace()  # (the rounds' blocks and gradient changes: _buffers.reused_array)
    while True:
        with counts.timed("selection"):
            ws, gap = select_working_set(problem, alpha, grad, kept, q)
        progress.report(steps, gap, m, problem=g)
        if gap < settings.tol:
            status = OPTIMAL
            break
        if steps >= plan.max_steps:
            status = ITERATION_LIMIT
            break
        if not np.isfinite(gap):
            status = NOT_FINITE
            break
        if objective < best - 1e-12 * max(1.0, abs(objective)):
            best, since_best = objective, 0
        else:
            since_best += 1
            if since_best > _plan.STALL_ROUNDS:
                status = STALLED
                break
        rounds_since_hand_over += 1
        if (hands_over and rounds_since_hand_over > _plan.HAND_OVER_ROUNDS
                and rounds_since_hand_over % _plan.HAND_OVER_CHECK_ROUNDS == 0):
            keeps = np.empty(m, dtype=np.bool_)
            n_kept = kept_by_shrinking(y, upper, alpha, grad, 0, m, bool(batch.nu), keeps)
            if 0 < n_kept <= _plan.HAND_OVER_FRACTION * m:
                kept_variables = np.flatnonzero(keeps)
                buffers = SimpleNamespace()  # (freed while the sub-problem takes the memory)
                # LIBSVM's shrinking: the variables it keeps solved as a problem of their own
                sub_steps, sub_status = _solve_kept(kept_variables, problem, alpha, grad, source, cache, plan,
                                                    settings, counts, plan.max_steps - steps)
                steps += sub_steps
                rounds_since_hand_over = 0
                objective = 0.5 * alpha @ (grad + p)
                kept = np.empty(0, dtype=np.int64)
                if sub_status in (ITERATION_LIMIT, NOT_FINITE):
                    status = sub_status
                    gap = select_working_set(problem, alpha, grad, kept, q)[1]
                    break
                continue
        # (the block's SMO: its tolerance and its steps at most)
        block_limits = (max(settings.tol, 0.1 * gap), min(max(20 * ws.shape[0], 1000), plan.max_steps - steps))
        taken = ROUND_LEFT
        if linear_rows is not None:
            with counts.timed("smo"):
                taken, change = linear_round(problem, *linear_rows, ws, alpha, grad, *block_limits, _NO_DATA)
        if taken == ROUND_LEFT:
            taken, change = _round(problem, ws, alpha, grad, source, cache, plan, counts, buffers, *block_limits,
                                   plan.max_steps - steps)
        steps += taken
        objective += change
        new = ws[kept.shape[0]:]
        kept = new[:q // 2] if m > q else np.empty(0, dtype=np.int64)
    progress.report(steps, gap, m, problem=g)
    if cache is not None:
        counts.add(cache.rows_computed, cache.rows_computed * source.n_rows)
    return alpha, grad, steps, status, gap


def _round(problem, ws, alpha, grad, source, cache, plan, counts, buffers, tol, max_steps, steps_left):
    """A round of :func:`_blocked_group` from its working set ``ws``: the block of its data
    rows, SMO on it to ``tol`` in at most ``max_steps`` steps (and where SMO zig-zags, steps on
    the face of its free multipliers, within ``steps_left`` in all), the moves written into
    ``alpha`` and the kernel columns of the multipliers that moved added to every gradient
    ``grad`` (through ``cache``, or the linear kernel's ``w``). Returns ``(steps, change)``,
    the steps made and the change of the dual objective."""
    y, p, upper, rows = problem.y, problem.p, problem.upper, problem.rows
    block_rows, local = _data_rows(rows[ws])
    with counts.timed("rows"):
        distinct = _working_set_block(source, cache, block_rows, counts, buffers, plan.gram_dtype)
    n_ws = ws.shape[0]
    # (one row per variable: one run)
    K = distinct if local is None else square_block(distinct, local,
                                                    reused_array(buffers, "variables", (n_ws, n_ws), np.float64))
    local_batch = Batch(y[ws], p[ws], upper[ws], np.arange(n_ws), np.array([[0, n_ws, 0, 0], [n_ws, 0, 0, 0]]),
                        problem.nu)
    local_work = new_work(local_batch)
    local_work.alpha[:] = alpha[ws]  # (resume[0] = 0: the solver makes its keys first)
    local_work.grad[:] = grad[ws]
    local_work.qd[:] = np.diagonal(K)
    local_work.flags[:] = side_flags(y[ws], alpha[ws], upper[ws])
    local_work.cursor[STARTED] = STARTED_DONE
    store = full_row_store(K, np.ascontiguousarray(np.diagonal(K)), _NO_DATA)
    local_settings = Settings(tol, max_steps, False, 1, 0)
    steps, change = 0, 0.0
    for _ in range(_LOCAL_FACE_TRIES):
        with counts.timed("smo"):
            solve_batch(local_batch, store, local_work, local_settings, 2**62)
        steps += max(int(local_work.n_iter[0]), 1)
        if local_work.status[0] != ITERATION_LIMIT or steps >= steps_left:
            break
        # SMO zig-zags on the block: steps on the face of its free multipliers, then SMO again
        if face_steps(local_batch, store, local_work, 0, n_ws, _EPS[plan.gram_dtype]) == 0:
            break
        local_work.cursor[GROUP], local_work.cursor[STARTED], local_work.n_iter[0] = 0, STARTED_DONE, 0
        local_work.resume[0], local_work.resume[1] = 0, -1
    delta = local_work.alpha - alpha[ws]
    moved = np.flatnonzero(delta)
    if moved.size:
        change = float(delta[moved] @ (0.5 * (local_work.grad[moved] + grad[ws][moved])))
        if local is None:
            coef = y[ws] * delta
        else:
            coef = np.zeros(block_rows.shape[0])
            np.add.at(coef, local[moved], y[ws][moved] * delta[moved])
        alpha[ws] = local_work.alpha
        used = np.flatnonzero(coef)
        if cache is None:
            with counts.timed("gradient"):
                column_change = source.weighted_columns(block_rows[used], coef[used])
        else:
            # (the whole rows of the multipliers that moved only: cached, or computed now)
            column_change = reused_array(buffers, "change", (source.n_rows,), np.float64)
            column_change.fill(0.0)
            _add_cached_rows(cache, block_rows[used], coef[used], column_change, counts)
        with counts.timed("gradient"):
            add_by_rows(grad, y, rows, column_change)
    return steps, change


def _solve_kept(kept, problem, alpha, grad, source, cache, plan, settings, counts, max_steps):
    """Solve the variables ``kept`` of a blocked problem (``problem``: a
    :class:`svmkit._core.smo.Batch`) as a problem of their own on a copy of their rows
    (:func:`solve`: the Gram strategy where their Gram matrix fits), the others fixed, then add
    the change to every gradient. The cached rows make room for it meanwhile. Returns the
    sub-problem's steps and status."""
    y, upper, rows = problem.y, problem.upper, problem.rows
    distinct, local = np.unique(rows[kept], return_inverse=True)
    # (as the plan chose for all the rows; dense rows gathered from the data their rows were
    # computed from, without a float64 copy of them)
    sub_source = source.subset(distinct, dense=plan.dots == "blas", gather="made")
    y_kept, alpha_kept = y[kept], alpha[kept]
    if cache is not None:
        cache.release()
    # the memory the cache gives up is the sub-problem's, its copy of the rows' data included
    copy_mb = distinct.shape[0] * source.n_features * np.dtype(plan.gram_dtype).itemsize / 2**20
    lent_mb = max(settings.cache_size - copy_mb, _plan.SUB_PROBLEM_MIN_BUDGET_FRACTION * settings.cache_size)
    # the sub-problem's linear term: its gradient less its own part Q_kk a_k
    start_rows = _plan.row_cache_rows(distinct.shape[0], lent_mb * 2**20, plan.gram_dtype)
    start_cache = None if source.is_linear else _RowCache(sub_source, min(distinct.shape[0], start_rows), plan.dots,
                                                          plan.gram_dtype)
    own_part = np.zeros(kept.shape[0])
    with counts.timed("gradient"):
        _add_columns(sub_source, start_cache, local, y_kept, alpha_kept, own_part)
    if start_cache is not None:
        counts.add(start_cache.rows_computed, start_cache.rows_computed * distinct.shape[0])
    del start_cache
    sub_problem = DualBatch.single(y_kept, grad[kept] - own_part, upper[kept], alpha_kept, local, problem.nu)
    # (_solve, not solve: copies of points were merged in the whole batch where that pays, and
    # looking for them here would read a float64 copy of the kept rows)
    solution = _solve(sub_problem, sub_source, replace(settings, max_iter=max(int(max_steps), 1), cache_size=lent_mb,
                                                       problem_names=(), label=f"shrunk to {kept.shape[0]} variables"))
    counts.merge(solution.counts)
    change = np.zeros(y.shape[0])
    change[kept] = solution.alpha - alpha_kept
    alpha[kept] = solution.alpha
    steps, status = int(solution.n_iter[0]), int(solution.status[0])
    del sub_source, sub_problem, solution  # (their rows' copy freed before the cache takes its memory back)
    if cache is not None:
        cache.restore()
    with counts.timed("gradient"):
        _add_columns(source, cache, rows, y, change, grad)
    return steps, status


def _data_rows(rows):
    """The distinct data rows of a working set's variables, and the place of each variable's
    among them (None where every variable has a row of its own, in that order: then the
    block of the rows is the variables' block as it is)."""
    distinct, local = np.unique(rows, return_inverse=True)
    if distinct.shape[0] == rows.shape[0]:
        return rows, None
    return distinct, local


def _working_set_block(source, cache, rows, counts, buffers, precision=np.float64):
    """The float64 kernel block of the data rows ``rows`` with themselves, in ``buffers``
    (:func:`svmkit._buffers.reused_array`): read from the cached whole rows where all of them
    are cached, else computed for these columns only (few multiply-adds next to whole rows, most
    of which SMO would not use), in the cache's precision so that the block and the rows that
    update the gradient agree."""
    block = reused_array(buffers, "block", (rows.shape[0], rows.shape[0]), np.float64)
    if cache is None:
        return source.block(rows, block, precision=precision)
    slots = cache.cached(rows)
    if np.all(slots >= 0):
        gather_block(cache.buffer, slots, rows, block)
    elif cache.dots == "common":  # (from the common features of all the rows, not a split of these)
        source.block(rows, block, precision=cache.buffer.dtype)
        counts.add(values=block.size)
    else:
        square = reused_array(buffers, "rows", (rows.shape[0], rows.shape[0]), cache.buffer.dtype)
        source.subset(rows).rows_into(np.arange(rows.shape[0]), square, cache.dots)
        block[:] = square
        counts.add(values=square.size)
    return block


def _add_columns(source, cache, rows, y, alpha, grad):
    """``grad += Q alpha`` for a start point (the kernel columns of its nonzero multipliers)."""
    moved = np.flatnonzero(alpha)
    if moved.size == 0:
        return
    data_rows, inverse = np.unique(rows[moved], return_inverse=True)
    coef = np.zeros(data_rows.shape[0])
    np.add.at(coef, inverse, y[moved] * alpha[moved])
    if cache is None:
        change = source.weighted_columns(data_rows, coef)
    else:
        change = np.zeros(source.n_rows)
        _add_cached_rows(cache, data_rows, coef, change)
    add_by_rows(grad, y, rows, change)


def _add_cached_rows(cache, rows, coef, out, counts=None):
    """``out += sum_k coef_k K[rows_k]``, the rows through ``cache`` (cached, or computed
    there), as many at a time as it holds."""
    step = cache.buffer.shape[0]
    for start in range(0, rows.shape[0], step):
        part = slice(start, start + step)
        with counts.timed("rows") if counts is not None else contextlib.nullcontext():
            slots = cache.slots(rows[part])
        with counts.timed("gradient") if counts is not None else contextlib.nullcontext():
            add = column_sum_parallel if on_all_cores(slots.size * out.shape[0]) else column_sum
            add(cache.buffer, slots, coef[part], out)
