"""Newton steps on the face of the free multipliers (svmkit._core.free_face)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.svm import SVC as LibsvmSVC

import svmkit._solver as solver
from naive import dual_objective
from svmkit._core.free_face import free_face_steps
from svmkit.svm import SVC


def _objective(K, y, alpha, p):
    v = y * alpha
    return 0.5 * v @ K @ v + p @ alpha


def _face_state(n_features, n_free, seed, low, high):
    """A feasible point of a C-SVC-like dual on a linear kernel of ``n_features`` features with
    ``n_free`` free multipliers (y'alpha = 0 and equal sums per sign, for nu mode too), and the
    generator for what else the caller draws."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, n_features))
    K = X @ X.T
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    upper = np.full(40, 2.0)
    alpha = np.where(np.arange(40) < n_free, rng.uniform(low, high, 40), 0.0)
    for sign in (1.0, -1.0):
        part = y == sign
        alpha[part] *= 3.0 / alpha[part].sum()
    return K, y, upper, alpha, rng


def _rank_deficient_state(nu_mode, seed=0):
    """A feasible point of a C-SVC-like dual on a linear kernel of rank 3 with 8 free multipliers."""
    K, y, upper, alpha, _ = _face_state(3, 8, seed, 0.2, 1.8)
    p = -np.ones(40) if not nu_mode else np.zeros(40)
    grad = y * (K @ (y * alpha)) + p
    return K, y, upper, alpha, grad, p


def _steps(K, y, upper, alpha, grad, nu_mode, max_free=256):
    return free_face_steps(K, np.arange(K.shape[0]), y, upper, alpha, grad, nu_mode, max_free, 10, np.finfo(float).eps)


@pytest.mark.parametrize("nu_mode", [False, True])
def test_steps_lower_the_objective_and_keep_the_problem_feasible(nu_mode):
    K, y, upper, alpha, grad, p = _rank_deficient_state(nu_mode)
    before = alpha.copy()
    steps = _steps(K, y, upper, alpha, grad, nu_mode)
    assert steps >= 2
    assert _objective(K, y, alpha, p) < _objective(K, y, before, p) - 1e-3
    assert np.all((alpha >= 0) & (alpha <= upper))
    if nu_mode:  # the per-sign sums hold, hence y'a too
        for sign in (1.0, -1.0):
            part = y == sign
            assert alpha[part].sum() == pytest.approx(before[part].sum(), abs=1e-10)
    assert y @ alpha == pytest.approx(y @ before, abs=1e-10)
    np.testing.assert_allclose(grad, y * (K @ (y * alpha)) + p, atol=1e-10)


def test_newton_step_leaves_the_free_multipliers_optimal_on_their_face():
    """After the steps the free set fits the rank (at most rank + 1 free) and
    -y G is the same for all of them (the face's optimality condition, with b)."""
    K, y, upper, alpha, grad, _ = _rank_deficient_state(False)
    _steps(K, y, upper, alpha, grad, False)
    free = (alpha > 0) & (alpha < upper)
    values = -y[free] * grad[free]
    assert values.max() - values.min() < 1e-9
    assert 2 <= free.sum() <= 4


def test_no_step_when_the_free_set_is_too_large():
    K, y, upper, alpha, grad, _ = _rank_deficient_state(False)
    before = alpha.copy()
    assert _steps(K, y, upper, alpha, grad, False, max_free=7) == 0
    np.testing.assert_array_equal(alpha, before)


def _zigzag_problem():
    """Integer features (an exact linear kernel) with more free multipliers than
    features: SMO alone zig-zags on the singular face."""
    X, y = make_classification(n_samples=300, n_features=4, n_informative=4, n_redundant=0, flip_y=0.05,
                               random_state=0)
    return np.round(X * 4), y


def test_solver_reaches_libsvm_objective_in_fewer_steps(monkeypatch):
    X, y = _zigzag_problem()
    with_steps = SVC(kernel="linear", C=1.0).fit(X, y)
    monkeypatch.setattr(solver, "_FACE_MAX_FREE", 0)
    without = SVC(kernel="linear", C=1.0).fit(X, y)
    oracle = LibsvmSVC(kernel="linear", C=1.0).fit(X, y)
    expected = dual_objective(oracle.dual_coef_[0], oracle.support_vectors_ @ oracle.support_vectors_.T)
    assert with_steps.dual_objective_ == pytest.approx(expected, rel=1e-5)
    assert without.dual_objective_ == pytest.approx(expected, rel=1e-5)
    assert with_steps.n_iter_.sum() * 3 < without.n_iter_.sum()
    np.testing.assert_array_equal(with_steps.predict(X), oracle.predict(X))


def test_svr_steps_with_two_variables_per_row_reach_the_same_optimum(monkeypatch):
    """epsilon-SVR: variables t and t + n share kernel row t (local_rows maps them)."""
    from sklearn.datasets import make_regression
    from sklearn.svm import SVR as LibsvmSVR

    from svmkit.svm import SVR

    X, y = make_regression(n_samples=300, n_features=3, noise=5.0, random_state=0)
    X = np.round(X * 4)
    with_steps = SVR(kernel="linear", C=1.0, epsilon=0.5).fit(X, y)
    monkeypatch.setattr(solver, "_FACE_MAX_FREE", 0)
    without = SVR(kernel="linear", C=1.0, epsilon=0.5).fit(X, y)
    assert with_steps.dual_objective_ == pytest.approx(without.dual_objective_, rel=1e-6)
    assert with_steps.n_iter_ * 2 < without.n_iter_
    oracle = LibsvmSVR(kernel="linear", C=1.0, epsilon=0.5).fit(X, y)
    np.testing.assert_allclose(with_steps.predict(X), oracle.predict(X), atol=1e-2)


@pytest.mark.parametrize("n, rank", [(12, 12), (30, 7), (40, 1)])
def test_pivoted_cholesky_agrees_with_lapack(n, rank):
    """Same pivot order and rank as LAPACK's dpstrf, and P'MP = R'R on the leading rows."""
    from scipy.linalg import lapack

    from svmkit._core.free_face import _pivoted_cholesky

    X = np.random.default_rng(n).normal(size=(n, rank))
    M = X @ X.T
    tol = n * np.finfo(np.float32).eps * M.diagonal().max()
    R, order, found = _pivoted_cholesky(M, tol)
    _, piv, expected_rank, _ = lapack.dpstrf(M, tol=tol, lower=0)
    assert found == expected_rank == rank
    np.testing.assert_array_equal(order[:rank], piv[:rank] - 1)
    R_top = np.triu(R[:rank])
    np.testing.assert_allclose(R_top.T @ R_top, M[np.ix_(order, order)], atol=1e-10 * M.diagonal().max())


@pytest.mark.parametrize("nu_mode", [False, True])
def test_flat_steps_from_one_factorisation_keep_the_gradient_of_the_face(nu_mode):
    """Rank 3 with 8 free multipliers: each flat step ends at a bound (one multiplier fewer on
    the face) and leaves y G of the free multipliers as it was (K_FF u = 0 along the null
    space of the face), step after step on the eliminated basis of one factorisation."""
    from svmkit._core.free_face import _AT_BOUND, _steps_from_one_factorisation

    K, y, upper, start, _, _ = _rank_deficient_state(nu_mode)
    p = -1.0 - np.random.default_rng(1).random(40)  # (unequal within each sign: nu mode's face has a flat part)
    start_grad = y * (K @ (y * start)) + p
    free = np.flatnonzero((start > 0) & (start < upper))
    assert free.shape[0] == 8
    previous = _objective(K, y, start, p)
    for steps in (1, 2, 3):
        alpha, grad = start.copy(), start_grad.copy()
        taken, outcome = _steps_from_one_factorisation(K, np.arange(40), y, upper, alpha, grad, nu_mode, 256, steps,
                                                       np.finfo(float).eps)
        assert (taken, outcome) == (steps, _AT_BOUND)
        still_free = (alpha > 0) & (alpha < upper)
        assert still_free.sum() == still_free[free].sum() == 8 - steps
        np.testing.assert_allclose(y[free] * grad[free], y[free] * start_grad[free], atol=1e-9)
        np.testing.assert_allclose(grad, y * (K @ (y * alpha)) + p, atol=1e-10)
        objective = _objective(K, y, alpha, p)
        assert objective < previous - 1e-6
        previous = objective


def _full_rank_state(seed):
    """10 free multipliers of a linear kernel on 12 features (a face of full rank), near their bounds."""
    K, y, upper, alpha, rng = _face_state(12, 10, seed, 0.05, 1.95)
    p = -1.0 - rng.random(40)
    return K, y, upper, alpha, y * (K @ (y * alpha)) + p


def _reference_newton_steps(K, y, upper, alpha, grad, nu_mode):
    """The face's equality-constrained minimum solved afresh from its KKT system at every step
    (NumPy), each step cut at the first bound, until one is not: the number of steps."""
    steps = 0
    while True:
        free = np.flatnonzero((alpha > 0) & (alpha < upper))
        groups = [y[free] > 0, y[free] < 0] if nu_mode else [np.ones(free.size, dtype=bool)]
        A = np.array([group for group in groups if group.any()], dtype=float)
        kkt = np.block([[K[np.ix_(free, free)], A.T], [A, np.zeros((A.shape[0], A.shape[0]))]])
        u = np.linalg.solve(kkt, np.concatenate([-y[free] * grad[free], np.zeros(A.shape[0])]))[: free.size]
        d = y[free] * u
        with np.errstate(divide="ignore"):
            room = np.where(d > 0, (upper[free] - alpha[free]) / d, np.where(d < 0, -alpha[free] / d, np.inf))
        step = min(1.0, room.min())
        new = np.clip(alpha[free] + step * d, 0.0, upper[free])
        if room.min() <= 1.0:
            first = np.argmin(room)
            new[first] = upper[free[first]] if d[first] > 0 else 0.0
        grad += y * (K[:, free] @ (y[free] * (new - alpha[free])))
        alpha[free] = new
        steps += 1
        if room.min() > 1.0:
            return steps


@pytest.mark.parametrize("nu_mode", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_newton_steps_under_constraints_agree_with_the_kkt_system_solved_afresh(seed, nu_mode):
    """Newton steps from one factorisation, the multipliers that left the face held by
    constraints (a pivot's by its group's sum), take the steps of the face's KKT system
    solved again after every bound."""
    K, y, upper, alpha, grad = _full_rank_state(seed)
    expected_alpha, expected_grad = alpha.copy(), grad.copy()
    expected_steps = _reference_newton_steps(K, y, upper, expected_alpha, expected_grad, nu_mode)
    steps = _steps(K, y, upper, alpha, grad, nu_mode)
    assert steps == expected_steps
    np.testing.assert_allclose(alpha, expected_alpha, atol=1e-12)
    np.testing.assert_allclose(grad, expected_grad, atol=1e-11)
