"""The dual problem as data: a batch of duals, and what the solver returns for it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from .._core.smo import Batch

#: Status of a solved problem: optimal within ``tol``; stopped at its step limit; stopped
#: because the dual objective no longer decreased (round-off); stopped on a kernel value,
#: multiplier or gradient that is not finite.
OPTIMAL, ITERATION_LIMIT, STALLED, NOT_FINITE = 0, 1, 2, 3


@dataclass
class DualBatch:
    """Several duals ``min 1/2 a'Qa + p'a``, ``y'a = y'a0``, ``0 <= a <= U`` one after another,
    with ``Q_ts = y_t y_s K[rows_t, rows_s]`` (DESIGN.md section 1).

    Problem ``g`` is the variables ``bounds[g]:bounds[g + 1]``. A formulation adapter
    (:mod:`svmkit.svm._formulations`) builds the batch; a two-class fit is a batch of one.

    Attributes
    ----------
    y : float64 array
        Sign of each variable, +1 or -1.
    p : float64 array
        Linear term.
    upper : float64 array
        Upper bounds (``inf``: hard margin).
    alpha0 : float64 array
        A feasible start point.
    rows : int64 array
        Kernel row (training sample) of each variable.
    bounds : int64 array
        Where each problem starts, and the end of the last.
    nu : bool
        Also keep ``sum a_t`` fixed within each sign of ``y`` (nu-SVC, nu-SVR).
    group_rows : int array or None
        Distinct rows of each problem, where the adapter knows them (else counted).
    known_runs : int64 array or None
        The problems' rows as runs (:meth:`runs`), where the adapter knows them.
    grad0 : float64 array or None
        The gradient ``p + Q a0`` at the start point, where the caller knows it (a warm
        start whose decision values it computed): the blocked strategy reads it instead of
        computing the kernel rows of every nonzero ``a0`` (the Gram strategy computes those
        rows for its store anyway, and ignores it).

    Examples
    --------
    >>> import numpy as np
    >>> batch = DualBatch.single(np.array([1.0, -1.0]), -np.ones(2), np.ones(2), np.zeros(2), np.arange(2))
    >>> batch.n_groups, batch.bounds
    (1, array([0, 2]))
    """

    y: np.ndarray
    p: np.ndarray
    upper: np.ndarray
    alpha0: np.ndarray
    rows: np.ndarray
    bounds: np.ndarray
    nu: bool = False
    group_rows: np.ndarray | None = None
    known_runs: np.ndarray | None = None
    grad0: np.ndarray | None = None

    @classmethod
    def single(cls, y, p, upper, alpha0, rows, nu=False):
        """A batch of one problem."""
        return cls(y, p, upper, alpha0, rows, np.array([0, y.shape[0]], dtype=np.int64), nu)

    @property
    def n_groups(self):
        return self.bounds.shape[0] - 1

    def group(self, g):
        """The slice of problem ``g``'s variables."""
        return slice(int(self.bounds[g]), int(self.bounds[g + 1]))

    def rows_per_group(self):
        """Distinct kernel rows of each problem: those its runs cover (:meth:`runs`; two runs
        may share rows, as epsilon-SVR's ``a`` and ``a*``), else counted."""
        if self.group_rows is None:
            runs = self.runs()
            if runs is not None:
                first, split, col0, col1 = runs[:-1, 0], runs[:-1, 1], runs[:-1, 2], runs[:-1, 3]
                first_length, second_length = split - first, runs[1:, 0] - split
                shared = np.minimum(col0 + first_length, col1 + second_length) - np.maximum(col0, col1)
                self.group_rows = first_length + second_length - np.maximum(shared, 0)
            else:
                self.group_rows = np.array([np.unique(self.rows[self.group(g)]).shape[0]
                                            for g in range(self.n_groups)])
        return self.group_rows

    def runs(self):
        """Each problem's variables as at most two runs of consecutive kernel rows (the
        ``runs`` of :class:`svmkit._core.smo.Batch`), or None where a problem's rows are not
        (found once, then kept as ``known_runs``).

        Examples
        --------
        >>> batch = DualBatch.single(np.ones(4), -np.ones(4), np.ones(4), np.zeros(4), np.array([5, 6, 5, 6]))
        >>> batch.runs(), batch.rows_per_group()  # (two runs over the same rows 5 and 6)
        (array([[0, 2, 5, 5],
               [4, 0, 0, 0]]), array([2]))
        """
        if self.known_runs is not None:
            return self.known_runs
        runs = np.zeros((self.n_groups + 1, 4), dtype=np.int64)
        runs[:, 0] = self.bounds
        for g in range(self.n_groups):
            part = runs_of(self.rows[self.group(g)])
            if part is None:
                return None
            split, col0, col1 = part
            runs[g, 1:] = self.bounds[g] + split, col0, col1
        self.known_runs = runs
        return runs

    def compiled(self, runs=None):
        """The batch as compiled code reads it (:class:`svmkit._core.smo.Batch`), its rows in
        runs (``runs``, else :meth:`runs`)."""
        return Batch(_f64(self.y), _f64(self.p), _f64(self.upper), np.ascontiguousarray(self.rows, dtype=np.int64),
                     self.runs() if runs is None else runs, bool(self.nu))


def runs_of(rows):
    """``(split, col0, col1)`` where ``rows`` is two runs of consecutive values, ``rows[:split]``
    from ``col0`` and ``rows[split:]`` from ``col1`` (``split = len(rows)`` for one run), or None.

    Examples
    --------
    >>> runs_of(np.array([4, 5, 6, 0, 1])), runs_of(np.array([2, 3])), runs_of(np.array([0, 2, 4]))
    ((3, 4, 0), (2, 2, 0), None)
    """
    m = rows.shape[0]
    if m == 0:
        return 0, 0, 0
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    if breaks.size > 1:
        return None
    split = int(breaks[0]) if breaks.size else m
    return split, int(rows[0]), int(rows[split]) if split < m else 0


def side_flags(y, alpha, upper):
    """The side flags of :mod:`svmkit._core.smo` (int8; 1: in I_up, where ``y a`` may grow, 2: in
    I_low, where it may shrink, 3: both).

    Examples
    --------
    >>> side_flags(np.array([1.0, 1.0, -1.0]), np.array([0.0, 0.5, 1.0]), np.ones(3))
    array([1, 3, 1], dtype=int8)
    """
    in_up = np.where(y > 0, alpha < upper, alpha > 0)
    in_low = np.where(y > 0, alpha > 0, alpha < upper)
    return (in_up.astype(np.int8) | (2 * in_low).astype(np.int8)).astype(np.int8)


def _f64(values):
    return np.ascontiguousarray(values, dtype=np.float64)


@dataclass
class DualSolution:
    """What the solver returns for a :class:`DualBatch`.

    Attributes
    ----------
    alpha, grad : float64 arrays
        The multipliers and the gradient ``Qa + p`` at them, every variable of the batch.
    n_iter, status : int64 arrays
        Two-variable updates made and status (``OPTIMAL`` ... ``NOT_FINITE``) per problem.
    gap : float64 array
        The maximal violating-pair gap ``m(a) - M(a)`` reached per problem.
    rho1, rho2 : float64 arrays
        LIBSVM's ``rho`` per problem read from the gradient (nu formulations: per sign of
        ``y``, ``r1`` and ``r2`` of ``Solver_NU``; else both the same).
    plan : svmkit._plan.Plan
        How it was solved.
    counts : SolverCounts
        The work it took.
    """

    alpha: np.ndarray
    grad: np.ndarray
    n_iter: np.ndarray
    status: np.ndarray
    gap: np.ndarray
    rho1: np.ndarray
    rho2: np.ndarray
    plan: object = None
    counts: object = None


@dataclass
class SolverCounts:
    """The work a solve took: kernel rows computed (whole rows, over every row of the data or
    of a problem's own rows) and all the kernel values computed (those rows' and the blocked
    strategy's working-set blocks'), and seconds by phase (``'rows'``: kernel rows computed
    outside the compiled solver; ``'smo'``: the compiled solver, with the rows it computes
    itself in the Gram strategy; ``'gradient'`` and ``'selection'``: the blocked strategy's
    gradient updates and working-set selection). Problems solved on threads add up.

    Examples
    --------
    >>> counts = SolverCounts()
    >>> counts.add(rows=3, values=3 * 1000)
    >>> str(counts)
    'kernel rows computed: 3 (3,000 kernel values)'
    """

    kernel_rows: int = 0
    kernel_values: int = 0
    seconds: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, rows=0, values=0):
        with self._lock:
            self.kernel_rows += int(rows)
            self.kernel_values += int(values)

    def merge(self, other):
        """Add the counts of another solve (a shrunk sub-problem's)."""
        self.add(other.kernel_rows, other.kernel_values)
        with self._lock:
            for phase, seconds in other.seconds.items():
                self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    def timed(self, phase):
        """A context that adds the seconds its block takes to ``phase``."""
        return _PhaseTimer(self, phase)

    def add_seconds(self, phase, seconds):
        with self._lock:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    def __str__(self):
        text = f"kernel rows computed: {self.kernel_rows:,} ({self.kernel_values:,} kernel values)"
        if self.seconds:
            text += "; seconds: " + ", ".join(f"{phase} {value:.3f}" for phase, value in self.seconds.items())
        return text


class _PhaseTimer:
    """:meth:`SolverCounts.timed`'s context (a class: a generator's context costs more, and
    the solver enters one around every compiled call)."""

    __slots__ = ("counts", "phase", "start")

    def __init__(self, counts, phase):
        self.counts, self.phase = counts, phase

    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exception):
        self.counts.add_seconds(self.phase, time.perf_counter() - self.start)
        return False
