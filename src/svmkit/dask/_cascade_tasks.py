"""What the workers of a Cascade SVM run: solving a node of the cascade and checking the KKT
conditions of a partition's rows against the model of a pass.

Each function takes and returns plain NumPy data (:class:`Rows`, :class:`Check`), so Dask
moves only what a task returns to the tasks that need it: a node's support vectors to its
parent node, a partition's violators to the next pass.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _plan
from ..svm import SVC


class Rows(NamedTuple):
    """Training rows with their global row numbers (sorted, each once), labels and sample
    weights."""

    index: np.ndarray
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray

    def take(self, keep):
        """The rows that ``keep`` (a mask or positions) selects."""
        return Rows(self.index[keep], self.X[keep], self.y[keep], self.weight[keep])


class Margins(NamedTuple):
    """``y_i sum_s y_s a_s K(x_i, x_s)`` of global rows ``index`` (sorted) in each two-class
    problem of a pass's model (``values``: a column per problem, 0 where a row is outside a
    problem): the functional margins without the bias. Started from the pass's multipliers,
    a dual's gradient is ``p`` plus them, so the next pass's nodes need not compute it from
    the kernel rows of every support vector."""

    index: np.ndarray
    values: np.ndarray


class Check(NamedTuple):
    """A partition's rows checked against a pass's model: the rows outside the working set
    that violate their KKT conditions by more than ``tol`` (the only ones that move), how
    many rows were checked, the largest violation of any row, ``sum C_i xi_i`` of each
    two-class problem (the primal objective's slack term), and the :class:`Margins` of the
    rows the next pass solves (the working set's and the violators')."""

    violators: Rows
    n_rows: int
    max_violation: float
    slack_cost: np.ndarray
    margins: Margins


def partition_rows(X, y, weight, start):
    """A partition's rows as :class:`Rows` (row ``i`` is global row ``start + i``; weights
    None: all 1)."""
    weight = np.ones(X.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    return Rows(np.arange(start, start + X.shape[0], dtype=np.int64), np.asarray(X, dtype=np.float64), np.asarray(y),
                weight)


def select_rows(part, local):
    """The rows ``local`` (numbered from the partition's first row) of a partition."""
    return part.take(local)


def union(*parts):
    """The rows of positive weight of all ``parts`` (the others take no part in the
    problem), each global row once, in the order of the global rows. The features are
    gathered once, into the result (a top node's rows are most of a worker's memory)."""
    index = np.concatenate([part.index for part in parts])
    weight = np.concatenate([part.weight for part in parts])
    index, first = np.unique(index, return_index=True)
    weighted = weight[first] > 0
    keep = first[weighted]  # (places in the parts one after another)
    return Rows(index[weighted], _gather([part.X for part in parts], keep),
                np.concatenate([part.y for part in parts])[keep], weight[keep])


def _gather(arrays, places):
    """The rows ``places`` of ``arrays`` one after another, without joining them first, a
    chunk of rows at a time (no copy of a whole part on the way)."""
    out = np.empty((places.shape[0], *arrays[0].shape[1:]), dtype=np.result_type(*arrays))
    starts = np.cumsum([0] + [array.shape[0] for array in arrays])
    part_of = np.searchsorted(starts, places, side="right") - 1
    chunk_rows = max(1, _plan.GATHER_CHUNK_BYTES // max(1, out.dtype.itemsize * int(np.prod(out.shape[1:]))))
    for j, array in enumerate(arrays):
        targets = np.flatnonzero(part_of == j)
        for chunk in range(0, targets.shape[0], chunk_rows):
            taken = targets[chunk:chunk + chunk_rows]
            out[taken] = array[places[taken] - starts[j]]
    return out


class Start(NamedTuple):
    """The multipliers of a pass's support vectors (global rows ``index``, sorted; ``alpha``:
    one row per two-class problem), from which the next pass's nodes start their duals, and
    the :class:`Margins` of the rows they solve (None: computed from kernel rows)."""

    index: np.ndarray
    alpha: np.ndarray
    margins: Margins | None = None


class _StartedSVC(SVC):
    """An SVC whose dual starts from the multipliers of :class:`Start` (0 for other rows)
    instead of 0, where its rows hold every row of the start: the start is then feasible
    (each problem's ``sum y_i a_i`` over the support vectors is 0, every ``a_i`` within its
    bounds), and the solver needs only the steps from there. Returned as a plain SVC."""

    def _batch(self, problem_data):
        batch = super()._batch(problem_data)
        start, global_rows = self._start
        if start is None or not np.isin(start.index, global_rows).all():
            return batch
        n_classes = self.classes_.shape[0]
        _, y_index = np.unique(self._labels, return_inverse=True)
        by_class = n_classes > 2 and self.multiclass == "ovo"  # (SVC.fit's rows class by class)
        order = np.argsort(y_index, kind="stable") if by_class else np.arange(y_index.shape[0])
        variable_rows = global_rows[order[batch.rows]]
        position, found = _find(start.index, variable_rows)
        problem = np.repeat(np.arange(batch.bounds.shape[0] - 1), np.diff(batch.bounds))
        alpha0 = np.where(found, start.alpha[problem, position], 0.0)
        batch.alpha0 = np.minimum(alpha0, batch.upper)
        if start.margins is not None and np.array_equal(batch.alpha0, alpha0):
            batch.grad0 = _start_gradient(batch, start.margins, variable_rows, problem)
        return batch


def _start_gradient(batch, margins, variable_rows, problem):
    """The gradient ``p + Q a0`` of a batch started from the multipliers that gave
    ``margins``, at the variables on global rows ``variable_rows`` of problems ``problem``;
    None where a row has no margin."""
    position, found = _find(margins.index, variable_rows)
    if not found.all():
        return None
    return batch.p + margins.values[position, problem]


def _find(index, rows):
    """Where global ``rows`` are in the sorted global rows ``index`` (positions within it)
    and which of them are there."""
    if index.shape[0] == 0:
        return np.zeros(rows.shape[0], dtype=np.int64), np.zeros(rows.shape[0], dtype=bool)
    position = np.minimum(np.searchsorted(index, rows), index.shape[0] - 1)
    return position, index[position] == rows


def _fit_svc(params, rows, start):
    model = _StartedSVC(**params)
    model._start, model._labels = (start, rows.index), rows.y
    model.fit(rows.X, rows.y, sample_weight=rows.weight)
    # (without the node's rows kept for radius_: pickling the model to send it would solve
    # their enclosing ball, a fit as large as the node's with a cache of its own)
    plain = SVC.__new__(SVC)
    plain.__dict__.update({key: value for key, value in vars(model).items()
                           if key not in ("_start", "_labels", "_radius_inputs")})
    return plain


def fit_node(params, start, *parts):
    """Solve a node of the cascade on the union of ``parts`` and return its support vectors
    (rows whose multiplier is positive in some two-class problem). A node holding one class
    only has no problem to solve and passes all its rows on."""
    rows = union(*parts)
    if np.unique(rows.y).shape[0] < 2:
        return rows
    support = _fit_svc(params, rows, start).support_
    support.sort()
    return rows.take(support)


def fit_top(params, start, rows):
    """The last node of a pass: the SVC fitted on its working set ``rows`` (the
    :func:`union` of what the pass feeds it, a task of its own, so that the row sets it was
    joined from can be freed before the fit), and the working set's rows."""
    return _fit_svc(params, rows, start), rows


def model_of(top):
    """The model of a pass and the global rows of its working set (what the client reads)."""
    model, rows = top
    return model, rows.index


def rows_of(top):
    """The rows of a pass's working set, fed back whole: rows whose multiplier fell to 0
    stay, so that the next pass's moves of the boundary cannot make them violators again
    (passes of one node then solve ever larger working sets, and end)."""
    return top[1]


class PassModel(NamedTuple):
    """What a KKT check needs of a pass's model: the SVC, its working set's global rows
    (sorted), the multipliers of every problem on them, the classes of every problem (second
    class -1: one-vs-rest), the bound ``C * class_weight`` of every class (times each row's
    weight) and ``tol``."""

    model: SVC
    working_set: np.ndarray
    alpha: np.ndarray
    first: np.ndarray
    second: np.ndarray
    class_upper: np.ndarray
    tol: float


def pass_model_of(top, class_upper, tol):
    """The :class:`PassModel` of a pass's last node."""
    model, rows = top
    return PassModel(model, rows.index, np.atleast_2d(model.alpha_), *_problem_classes(model), class_upper, tol)


def _problem_classes(model):
    """The first and second class (-1: the rest) of each two-class problem of an SVC."""
    first = np.array([a for a, _ in model._problem_pairs], dtype=np.int64)
    second = np.array([-1 if b is None else b for _, b in model._problem_pairs], dtype=np.int64)
    return first, second


def start_of(top, *checks):
    """The :class:`Start` of a pass's last node: its support vectors' rows and multipliers,
    and the margins of the rows of the partitions' ``checks``."""
    model, rows = top
    support = np.sort(model.support_)
    index = np.concatenate([check.margins.index for check in checks])
    order = np.argsort(index, kind="stable")
    margins = Margins(index[order], np.concatenate([check.margins.values for check in checks])[order])
    return Start(rows.index[support], np.atleast_2d(model.alpha_)[:, support], margins)


def check_partition(pass_model, part):
    """The KKT conditions of every row of a partition against a pass's model, problem by
    problem (as :meth:`svmkit.BinaryModel.kkt_report`: ``max(0, 1 - yf)`` at ``alpha = 0``,
    ``|1 - yf|`` between the bounds, ``max(0, yf - 1)`` at the upper bound); rows outside the
    working set have ``alpha = 0``, rows of weight 0 (bound 0) no conditions."""
    m = pass_model
    classes = m.model.classes_
    y_index = np.searchsorted(classes, part.y)
    if np.any(y_index >= classes.shape[0]) or np.any(classes[np.minimum(y_index, classes.shape[0] - 1)] != part.y):
        raise ValueError("a partition holds a label that is not among the classes of the training data.")
    decisions = m.model._problem_decisions(part.X)
    position, in_working_set = _find(m.working_set, part.index)
    weighted = part.weight > 0
    upper = np.zeros(part.index.shape[0])
    np.multiply(m.class_upper[y_index], part.weight, out=upper, where=weighted)  # (C = inf: inf where weighted)
    violation = np.zeros(part.index.shape[0])
    slack_cost = np.zeros(m.first.shape[0])
    margins = np.zeros(decisions.shape)
    intercept = np.broadcast_to(m.model.intercept_, (decisions.shape[1],))
    for k, (first, second) in enumerate(zip(m.first, m.second)):
        inside = (y_index == first) | (y_index == second) | (second < 0)
        label = np.where(y_index == first, 1.0, -1.0)
        yf = label * decisions[:, k]
        margins[:, k] = np.where(inside, yf - label * intercept[k], 0.0)
        alpha = np.zeros(part.index.shape[0])
        alpha[in_working_set] = m.alpha[k, position[in_working_set]]
        at_upper = alpha >= upper
        free = (alpha > 0) & ~at_upper
        problem_violation = np.where(alpha <= 0, np.maximum(0.0, 1.0 - yf), 0.0)
        problem_violation = np.where(free, np.abs(1.0 - yf), problem_violation)
        problem_violation = np.where(at_upper, np.maximum(0.0, yf - 1.0), problem_violation)
        violation = np.maximum(violation, np.where(inside & weighted, problem_violation, 0.0))
        finite = inside & weighted & np.isfinite(upper)
        slack_cost[k] = float(np.sum(upper[finite] * np.maximum(0.0, 1.0 - yf[finite])))
    moving = (violation > m.tol) & ~in_working_set
    solved_next = moving | in_working_set
    return Check(part.take(moving), int(part.index.shape[0]), float(violation.max(initial=0.0)), slack_cost,
                 Margins(part.index[solved_next], margins[solved_next]))


def check_summary(check):
    """The small part of a :class:`Check` that the client reads: violators, rows, largest
    violation, slack costs."""
    return check.violators.index.shape[0], check.n_rows, check.max_violation, check.slack_cost


def pair_decisions(model, part, local):
    """The decision values of a two-class SVC at the rows ``local`` of a partition, positive
    for its first class (LIBSVM's sign of a pair, which Platt scaling takes)."""
    return -model._problem_decisions(part.X[local])[:, 0]


def violators_of(check):
    return check.violators


def node_size(rows):
    return rows.index.shape[0]
