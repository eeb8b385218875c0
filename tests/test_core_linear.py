"""The compiled loops of the linear models (svmkit._core.linear) against the slow obvious
references of tests/naive.py, on the first rows of heart_scale (dense and CSR) and of iris."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

from naive import (
    dual_coordinate_descent_by_loops, kernel_perceptron_by_loops, linear_dual_objective, linear_primal_objective,
    pegasos_by_loops, perceptron_by_loops,
)
from svmkit._core import linear as core
from svmkit.datasets import load_heart_scale

HEART_X, HEART_Y = (part[:60] for part in load_heart_scale())  # (in [-1, 1]; its 4 % zeros not stored in CSR)
IRIS = load_iris()
IRIS_X10 = np.rint(IRIS.data * 10.0)  # (the measurements in millimetres: integers, exact sums)
UNBOUNDED = np.inf  # (a budget no call spends: one call runs to the end)


def _layout(X, layout):
    """``X`` as the arguments ``(indptr, indices, data, dense)`` of the compiled loops."""
    if layout == "csr":
        csr = sp.csr_matrix(X)
        return csr.indptr, csr.indices, csr.data, None
    empty_index = np.empty(0, dtype=np.int32)
    return empty_index, empty_index, np.empty(0), np.ascontiguousarray(X, dtype=float)


def _row_values(X, bias_value):
    return np.count_nonzero(X) / X.shape[0] + (bias_value != 0.0)


# -- perceptron -------------------------------------------------------------------------------
def _perceptron(data, bias_value, y, eta, n_weights, max_iter, budget):
    """``perceptron_sweeps`` called until it stops pausing; returns ``(w, mistakes, sweeps, status,
    calls)``."""
    w, mistakes, counts = np.zeros(n_weights), np.zeros(y.shape[0], dtype=np.int64), np.zeros(1, dtype=np.int64)
    status, calls = core.PAUSED, 0
    while status == core.PAUSED:
        status = core.perceptron_sweeps(*data, bias_value, y, eta, w, mistakes, counts, max_iter, 1.0, budget)
        calls += 1
    return w, mistakes, int(counts[0]), status, calls


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("problem, expected_status", [("heart", core.MAX_ITER_REACHED), ("setosa", core.CONVERGED)])
def test_perceptron_sweeps_make_the_textbook_perceptron_s_updates(layout, fit_intercept, problem, expected_status):
    if problem == "heart":  # (not separable)
        X, y = HEART_X, HEART_Y
    else:  # setosa against versicolor, separable; the classes' rows alternate
        rows = np.column_stack([np.arange(0, 30), np.arange(50, 80)]).ravel()
        X, y = IRIS.data[rows], np.where(IRIS.target[rows] == 0, 1.0, -1.0)
    bias_value = 1.0 if fit_intercept else 0.0
    n_weights = X.shape[1] + fit_intercept
    w_ref, b_ref, mistakes_ref, sweeps_ref, converged = perceptron_by_loops(X, y, 0.5, 40, fit_intercept)
    assert converged == (expected_status == core.CONVERGED)
    assert mistakes_ref.sum() > 3 and sweeps_ref > 1
    data = _layout(X, layout)
    w, mistakes, sweeps, status, calls = _perceptron(data, bias_value, y, 0.5, n_weights, 40, UNBOUNDED)
    assert (status, sweeps, calls) == (expected_status, sweeps_ref, 1)
    np.testing.assert_array_equal(mistakes, mistakes_ref)
    np.testing.assert_array_equal(w[:X.shape[1]], w_ref)
    assert (w[-1] if fit_intercept else 0.0) == b_ref
    # a budget of one value: one sweep per call, the same weights bit for bit
    w_split, mistakes_split, sweeps_split, status_split, calls = _perceptron(data, bias_value, y, 0.5, n_weights, 40,
                                                                             1.0)
    assert (status_split, sweeps_split, calls) == (expected_status, sweeps_ref, sweeps_ref)
    np.testing.assert_array_equal(w_split, w)
    np.testing.assert_array_equal(mistakes_split, mistakes)


# -- kernel perceptron ------------------------------------------------------------------------
def _kernel_perceptron(gram, y, max_iter, budget):
    alpha, decision, counts = np.zeros(y.shape[0], dtype=np.int64), np.zeros(y.shape[0]), np.zeros(1, dtype=np.int64)
    status = core.PAUSED
    while status == core.PAUSED:
        status = core.kernel_perceptron_sweeps(gram, y, alpha, decision, counts, max_iter, budget)
    return alpha, decision, int(counts[0]), status


@pytest.mark.parametrize("classes, expected_status", [((1, 2), core.MAX_ITER_REACHED), ((0, 1), core.CONVERGED)])
def test_kernel_perceptron_sweeps_equal_the_dual_perceptron_exactly_on_an_integer_gram_matrix(classes,
                                                                                              expected_status):
    # linear kernel of the iris measurements in millimetres: integer values, every sum exact
    rows = np.column_stack([np.flatnonzero(IRIS.target == c)[:25] for c in classes]).ravel()
    X, y = IRIS_X10[rows], np.where(IRIS.target[rows] == classes[0], 1.0, -1.0)
    gram = X @ X.T
    alpha_ref, decision_ref, sweeps_ref, converged = kernel_perceptron_by_loops(gram, y, 15)
    assert converged == (expected_status == core.CONVERGED) and alpha_ref.sum() > 3
    for budget in (UNBOUNDED, 1.0):  # (one call; one sweep per call)
        alpha, decision, sweeps, status = _kernel_perceptron(gram, y, 15, budget)
        assert (status, sweeps) == (expected_status, sweeps_ref)
        np.testing.assert_array_equal(alpha, alpha_ref)
        np.testing.assert_array_equal(decision, decision_ref)


def test_kernel_perceptron_sweeps_equal_the_dual_perceptron_with_an_rbf_kernel():
    squared_distances = ((HEART_X[:, None, :] - HEART_X[None, :, :]) ** 2).sum(axis=2)
    gram = np.exp(-0.2 * squared_distances)
    alpha_ref, decision_ref, sweeps_ref, converged = kernel_perceptron_by_loops(gram, HEART_Y, 30)
    alpha, decision, sweeps, status = _kernel_perceptron(gram, HEART_Y, 30, UNBOUNDED)
    assert (status, sweeps) == (core.CONVERGED if converged else core.MAX_ITER_REACHED, sweeps_ref)
    assert alpha_ref.sum() > 20
    np.testing.assert_array_equal(alpha, alpha_ref)
    np.testing.assert_allclose(decision, decision_ref, rtol=1e-12, atol=1e-12)


# -- dual coordinate descent (LinearSVC) ------------------------------------------------------
def _dcd_problem(loss):
    """heart_scale's first rows with per-sample costs, two of them 0 (those samples take no part)."""
    cost = np.where(HEART_Y > 0, 0.8, 0.5)
    cost[[3, 17]] = 0.0
    if loss == "hinge":
        upper, diag = cost, np.zeros_like(cost)
    else:
        upper = np.full_like(cost, np.inf)
        diag = np.divide(0.5, cost, out=np.full_like(cost, np.inf), where=cost > 0)
    return cost, np.flatnonzero(cost > 0), upper, diag


@functools.cache
def _dcd_reference(loss):
    """The naive solver's ``(alpha, w, dual objective)``, computed once for both layouts."""
    cost = _dcd_problem(loss)[0]
    return dual_coordinate_descent_by_loops(HEART_X, HEART_Y, cost, loss, 1.0, tol=1e-9)


def _dcd(data, loss, tol, max_iter, budget, seed=7):
    """``dcd_start`` then ``dcd_passes`` until they stop pausing; returns ``(status, w, the state,
    calls)``."""
    cost, rows, upper, diag = _dcd_problem(loss)
    state = core.dcd_start(*data, 1.0, HEART_Y, rows, upper, diag, seed)
    w = np.zeros(HEART_X.shape[1] + 1)
    status, calls = core.PAUSED, 0
    while status == core.PAUSED:
        status = core.dcd_passes(*data, 1.0, w, *state, tol, max_iter, _row_values(HEART_X, 1.0), budget)
        calls += 1
    return status, w, state, calls


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_dcd_passes_reach_the_optimum_of_cyclic_dual_coordinate_descent(layout, loss):
    cost, rows, upper, diag = _dcd_problem(loss)
    alpha_ref, w_ref, objective_ref = _dcd_reference(loss)
    # the reference is at the optimum: its primal and dual objectives meet (strong duality)
    primal_ref = linear_primal_objective(HEART_X, HEART_Y, cost, loss, w_ref, 1.0)
    assert primal_ref == pytest.approx(-objective_ref, rel=1e-9)
    status, w, (sample, signs, index, bounds, counts, random), calls = _dcd(_layout(HEART_X, layout), loss, 1e-6, 1000,
                                                                            UNBOUNDED)
    alpha = sample[:, 0]
    assert (status, calls) == (core.CONVERGED, 1) and bounds[2] <= 1e-6 and counts[0] == rows.size
    assert np.all(alpha[[3, 17]] == 0.0) and np.all((alpha >= 0.0) & (alpha <= upper))
    augmented = np.column_stack([HEART_X, np.ones(HEART_X.shape[0])])
    np.testing.assert_allclose(w, (alpha * HEART_Y) @ augmented, rtol=1e-12, atol=1e-12)
    safe_diag = np.where(cost > 0, diag, 0.0)
    assert linear_dual_objective(alpha, w, safe_diag) == pytest.approx(objective_ref, rel=1e-10)
    np.testing.assert_allclose(w, w_ref, atol=1e-5)
    if loss == "squared_hinge":  # (D > 0 makes the dual strictly convex: one optimal alpha)
        np.testing.assert_allclose(alpha, alpha_ref, atol=1e-5)


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_dcd_passes_split_over_calls_equal_one_call_bit_for_bit(layout):
    data = _layout(HEART_X, layout)
    status, w, state, calls = _dcd(data, "hinge", 1e-6, 1000, UNBOUNDED)
    # a budget of one value, spent by every pass: one pass per call
    status_split, w_split, state_split, calls_split = _dcd(data, "hinge", 1e-6, 1000, 1.0)
    assert status == status_split == core.CONVERGED and calls == 1
    assert calls_split == state[4][1] > 20  # (one call per pass)
    np.testing.assert_array_equal(w_split, w)
    for part, part_split in zip(state, state_split):
        np.testing.assert_array_equal(part_split, part)
    # another seed visits in another order: the same optimum, not the same bits
    w_other = _dcd(data, "hinge", 1e-6, 1000, UNBOUNDED, seed=8)[1]
    assert not np.array_equal(w_other, w)
    np.testing.assert_allclose(w_other, w, atol=1e-4)


# -- Pegasos ----------------------------------------------------------------------------------
def _pegasos_one_epoch_per_call(data, weight, lam, n_epochs, project, radius, average_start, seed=5):
    """``pegasos_epochs`` called for one epoch at a time; returns the weights ``scale * v``, the
    averaged weights, the samples in the order they were visited (each epoch's order is the one
    its call leaves in ``order``), the scales after each epoch, and the carried state."""
    order, random, sq_norms = core.pegasos_start(*data, 1.0, HEART_Y.shape[0], seed)
    v, offset, state = np.zeros(HEART_X.shape[1] + 1), np.zeros(HEART_X.shape[1] + 1), np.array([1.0, 0.0, 0.0, 0.0])
    visited, scales = [], []
    for _ in range(n_epochs):
        core.pegasos_epochs(*data, 1.0, HEART_Y, weight, lam, 1, order, random, sq_norms, project, radius,
                            average_start, v, offset, state)
        visited.append(order.copy())
        scales.append(state[0])
    scale, sum_scale, t = state[0], state[1], state[2]
    averaged = (sum_scale * v - offset) / (t - average_start)
    return scale * v, averaged, np.concatenate(visited), np.array(scales), (order, random, v, offset, state)


# (lam, projection, relative tolerance of the averaged weights). With projection the scale of
# w = scale * v falls below 1e-9 and is folded into v. After the folds of lam = 1e-6 the running
# sum ``sum_scale * v - offset`` is a difference of terms far larger than itself: the compiled
# average is 2.6e-6 (relative) off the textbook one, which is within 1e-15 of the same steps
# taken in long double; the last weights agree to 2e-16. The other cases agree to 4e-15.
PEGASOS_CASES = [(0.05, False, 1e-12), (0.01, True, 1e-12), (1e-6, True, 1e-5)]


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("lam, project, average_rtol", PEGASOS_CASES)
def test_pegasos_epochs_make_the_textbook_steps_on_the_samples_they_visit(layout, lam, project, average_rtol):
    weight = np.where(HEART_Y > 0, 1.5, 1.0)
    radius = np.sqrt(weight.mean() / lam)
    data = _layout(HEART_X, layout)
    # (averaging the steps after the first epoch)
    w, averaged, visited, scales, _ = _pegasos_one_epoch_per_call(data, weight, lam, 6, project, radius, 60.0)
    epochs = visited.reshape(6, 60)
    assert all(sorted(epoch) == list(range(60)) for epoch in epochs)  # (permutations,
    assert len({tuple(epoch) for epoch in epochs}) == 6  # a new one each epoch)
    w_ref, averaged_ref = pegasos_by_loops(HEART_X, HEART_Y, lam, visited, weight, 1.0,
                                           radius if project else None, average_start=60)
    assert np.linalg.norm(w_ref) > 0.1
    np.testing.assert_allclose(w, w_ref, rtol=1e-12, atol=1e-13 * np.abs(w_ref).max())
    np.testing.assert_allclose(averaged, averaged_ref, rtol=average_rtol,
                               atol=average_rtol * np.abs(averaged_ref).max())
    if project:  # the scale only falls, except when it is folded into v
        assert np.any(np.diff(scales) > 0.0)
    else:  # the product of the factors 1 - 1/t, t = 2..T, is 1/T
        np.testing.assert_allclose(scales, 1.0 / (60.0 * np.arange(1, 7)), rtol=1e-13)


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_pegasos_epochs_split_over_calls_equal_one_call_bit_for_bit(layout):
    data, weight = _layout(HEART_X, layout), np.ones(60)
    split = _pegasos_one_epoch_per_call(data, weight, 1e-6, 6, True, 1e3, 0.0)[4]
    order, random, sq_norms = core.pegasos_start(*data, 1.0, 60, 5)
    v, offset, state = np.zeros(14), np.zeros(14), np.array([1.0, 0.0, 0.0, 0.0])
    core.pegasos_epochs(*data, 1.0, HEART_Y, weight, 1e-6, 6, order, random, sq_norms, True, 1e3, 0.0, v, offset,
                        state)
    assert state[2] == 360.0
    for part, part_split in zip((order, random, v, offset, state), split):
        np.testing.assert_array_equal(part_split, part)
