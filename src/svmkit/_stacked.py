"""Several duals stored one after another, solved in one compiled call.

Problem ``k`` of a stack has the variables ``bounds[k]:bounds[k + 1]`` of each of its
arrays. Formulations that build their duals stacked (C-SVC's one-vs-one problems) hand them
to the solvers of many problems and read the solutions back without joining or splitting
arrays problem by problem; indexing a stack gives one problem's :class:`DualProblem` or
:class:`DualSolution`, whose arrays are views.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cached_property

import numpy as np

from ._core.pairs import has_a_row_twice, most_variables, solve_subsets
from ._solver import (
    DualProblem, DualSolution, PrecomputedGram, _Progress, full_gram_dtype, one_call_settings,
)


def starts_and_stops(bounds):
    """``(bounds[k], bounds[k + 1])`` for each part ``k`` of an int array of bounds, as ints.

    Examples
    --------
    >>> list(starts_and_stops(np.array([0, 2, 5])))
    [(0, 2), (2, 5)]
    """
    return zip(bounds[:-1].tolist(), bounds[1:].tolist())


def joined_arrays(items, names):
    """``(bounds, arrays)``: the attributes ``names`` of ``items`` (arrays of one length per
    item), each joined one item after another (one item: its own arrays, not copies), and
    where item ``k``'s part starts and ends (``bounds[k]:bounds[k + 1]``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> items = [SimpleNamespace(a=np.array([1, 2])), SimpleNamespace(a=np.array([3]))]
    >>> joined_arrays(items, ["a"])
    (array([0, 2, 3]), [array([1, 2, 3])])
    """
    bounds = np.array([0] + [getattr(item, names[0]).shape[0] for item in items]).cumsum()
    if len(items) == 1:
        return bounds, [getattr(items[0], name) for name in names]
    return bounds, [np.concatenate([getattr(item, name) for item in items]) for name in names]


class _Stack(Sequence):
    """Items of several problems stored one after another (problem ``k``: ``bounds[k]:bounds[k
    + 1]``); item ``k``, made of views, from ``_views()``, made once."""

    def __len__(self):
        return self.bounds.shape[0] - 1

    def __getitem__(self, k):
        return self._made_views[k]

    @cached_property
    def _made_views(self):
        return self._views()


class StackedDuals(_Stack):
    """The duals of several problems of one mode (``nu_mode``), one after another.

    Parameters
    ----------
    bounds : int64 array (n_problems + 1,)
        Problem ``k`` has the variables ``bounds[k]:bounds[k + 1]``.
    rows, y, p, upper, alpha0 : arrays (bounds[-1],)
        As the attributes of :class:`svmkit._solver.DualProblem` (int64 rows, float64 others).
    nu_mode : bool
        As :class:`svmkit._solver.DualProblem`, for all the problems.

    Examples
    --------
    >>> import numpy as np
    >>> duals = StackedDuals(np.array([0, 2, 3]), np.array([0, 1, 2]), np.array([1.0, -1, 1]), -np.ones(3),
    ...                      np.ones(3), np.zeros(3))
    >>> len(duals), duals[1].rows
    (2, array([2]))
    """

    def __init__(self, bounds, rows, y, p, upper, alpha0, nu_mode=False):
        self.bounds, self.rows, self.y, self.p, self.upper, self.alpha0 = bounds, rows, y, p, upper, alpha0
        self.nu_mode = nu_mode

    @classmethod
    def of(cls, problems):
        """``problems`` as a stack: itself if it is one, else their arrays joined; None where
        they are not all of one mode."""
        if isinstance(problems, cls):
            return problems
        if len({problem.nu_mode for problem in problems}) != 1:
            return None

        bounds, (rows, *values) = joined_arrays(problems, ["rows", "y", "p", "upper", "alpha0"])
        return cls(bounds, rows.astype(np.int64), *(array.astype(np.float64) for array in values), problems[0].nu_mode)

    def _views(self):
        return [
            DualProblem(self.rows[start:stop], self.y[start:stop], self.p[start:stop], self.upper[start:stop],
                        self.alpha0[start:stop], self.nu_mode)
            for start, stop in starts_and_stops(self.bounds)
        ]


class StackedSolutions(_Stack):
    """The solutions of the problems of a :class:`StackedDuals`, one after another: ``alpha``
    and ``grad`` of all variables, ``gap``, ``n_iter`` and ``status`` arrays and a list of
    ``strategies``, one value per problem (as :class:`svmkit._solver.DualSolution`)."""

    def __init__(self, bounds, alpha, grad, gap, n_iter, status, strategies):
        self.bounds, self.alpha, self.grad = bounds, alpha, grad
        self.gap, self.n_iter, self.status, self.strategies = gap, n_iter, status, strategies

    @classmethod
    def of(cls, solutions):
        """``solutions`` as a stack: itself if it is one, else their arrays joined."""
        if isinstance(solutions, cls):
            return solutions
        bounds, (alpha, grad) = joined_arrays(solutions, ["alpha", "grad"])
        gap, n_iter, status = (np.array([getattr(solution, name) for solution in solutions])
                               for name in ("gap", "n_iter", "status"))
        return cls(bounds, alpha, grad, gap, n_iter, status, [solution.strategy for solution in solutions])

    def _views(self):
        gaps, steps, statuses = self.gap.tolist(), self.n_iter.tolist(), self.status.tolist()
        return [
            DualSolution(self.alpha[start:stop], self.grad[start:stop], gaps[k], steps[k], statuses[k],
                         self.strategies[k])
            for k, (start, stop) in enumerate(starts_and_stops(self.bounds))
        ]


def solved_stack(bounds, alpha, grad, n_iter, status, gap, started, verbose=False, callback=None):
    """The :class:`StackedSolutions` that one compiled call, begun at ``started``
    (``time.perf_counter()``), wrote (``status``: the compiled solver's codes, which are
    ``OPTIMAL`` and ``ITERATION_LIMIT``: no ``np.where`` to map them, which costs 1.6 us warm
    and 17 us alone after a flush of the caches), after one progress report (``verbose``,
    ``callback``) per problem with the time of the whole call."""
    if verbose or callback:
        for k, size in enumerate(np.diff(bounds).tolist()):
            _Progress(verbose, callback, size, started).report(int(n_iter[k]), float(gap[k]), size, force=True)
    return StackedSolutions(bounds, alpha, grad, gap, n_iter, status, ["full-gram"] * (bounds.shape[0] - 1))


def solutions_in_one_call(problems, solve, tol, max_iter, shrinking, verbose=False, callback=None, dtype=np.float64):
    """The solutions (a :class:`StackedSolutions`) of ``problems`` (a sequence of
    :class:`svmkit._solver.DualProblem`, or a :class:`StackedDuals`) computed by one compiled
    call over all of them, or None where they are not all of one mode (``nu_mode``).

    ``solve(bounds, y, upper, p, alpha, settings, grad, n_iter, status, gap)`` gets every
    problem's arrays one after another (problem ``k``: ``bounds[k]:bounds[k + 1]``), the start
    points in ``alpha`` and the solver's settings (:func:`one_call_settings`, for kernel values
    of type ``dtype``), and fills
    ``alpha``, ``grad`` and the steps, status and gap of each. Progress (``verbose``,
    ``callback``) is reported once all are solved (:func:`solved_stack`).
    """
    stack = StackedDuals.of(problems)
    if stack is None:
        return None
    bounds, n_problems = stack.bounds, len(stack)
    alpha, grad = stack.alpha0.copy(), np.empty(bounds[-1])
    n_iter, status = np.empty(n_problems, dtype=np.int64), np.empty(n_problems, dtype=np.int64)
    gap = np.empty(n_problems)
    started = time.perf_counter()
    settings = one_call_settings(stack.nu_mode, tol, max_iter, shrinking, dtype)
    solve(bounds, stack.y, stack.upper, stack.p, alpha, settings, grad, n_iter, status, gap)
    return solved_stack(bounds, alpha, grad, n_iter, status, gap, started, verbose, callback)


def solve_subsets_in_one_call(gram, problems, cache_size, tol, max_iter, shrinking, verbose=False, callback=None):
    """The solutions of ``problems`` on rows of a Gram matrix computed for them (a
    :class:`svmkit._solver.PrecomputedGram` whose rows are copies: the cross-validation fits
    of one pair, the one-vs-one problems of few rows), all in one compiled call
    (:func:`svmkit._core.pairs.solve_subsets`), as :func:`svmkit._solver.solve_dual` solves
    them; or None where :func:`svmkit._solver.solve_dual` would not keep a float64 Gram matrix
    of each, or a problem has two variables on one row.

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit._solver import DualProblem
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0]])
    >>> gram = PrecomputedGram(X @ X.T, rows_are_copies=True)
    >>> rows = np.array([0, 1, 2, 3])
    >>> problem = DualProblem(rows, np.array([1.0, 1, -1, -1]), -np.ones(4), np.full(4, 10.0), np.zeros(4))
    >>> solve_subsets_in_one_call(gram, [problem], 200, 1e-6, -1, True)[0].alpha.round(6)
    array([0. , 0.5, 0.5, 0. ])
    """
    if not (isinstance(gram, PrecomputedGram) and gram.rows_are_copies and len(problems)):
        return None
    stack = StackedDuals.of(problems)
    if stack is None or full_gram_dtype(most_variables(stack.bounds), cache_size * 2**20) != np.float64:
        return None
    if has_a_row_twice(stack.rows, stack.bounds, gram.K.shape[0]):
        return None
    K = np.ascontiguousarray(gram.K, dtype=np.float64)

    def solve(bounds, y, upper, p, alpha, settings, grad, n_iter, status, gap):
        solve_subsets(K, stack.rows, bounds, y, upper, p, alpha, *settings, grad, n_iter, status, gap)

    return solutions_in_one_call(stack, solve, tol, max_iter, shrinking, verbose, callback)
