"""The textbook QP path (svmkit.qp): the seed's exercises and agreement with scikit-learn's SVC."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.svm import SVC

pytest.importorskip("clarabel")

from svmkit.kernels import check_mercer, make_kernel  # noqa: E402
from svmkit.qp import (  # noqa: E402
    hard_margin_primal_matrices,
    intercept_from_dual,
    solve_hard_margin_primal,
    solve_svm_dual,
    svm_dual_matrices,
)

# The seed's exercise: D = {(-1, +1), (0, -1), (1, -1)}, one feature.
EXERCISE_X = np.array([[-1.0], [0.0], [1.0]])
EXERCISE_Y = np.array([1.0, -1.0, -1.0])


def seed_example_1():
    """The seed's Example 1: two Gaussian clouds, 50 points each."""
    np.random.seed(100)
    X_pos = 2 * np.random.randn(50, 2) + [3, 5]
    X_neg = 1.5 * np.random.randn(50, 2) + [-2, -2]
    return np.vstack([X_pos, X_neg]), np.r_[np.ones(50), -np.ones(50)]


def dual_objective(alpha, Q):
    return alpha.sum() - 0.5 * alpha @ Q @ alpha


def test_exercise_matrices_follow_the_seed():
    Q, p, A, c = hard_margin_primal_matrices(EXERCISE_X, EXERCISE_Y)
    assert_allclose(Q, np.diag([0.0, 1.0]))
    assert_allclose(p, [0.0, 0.0])
    assert_allclose(A, [[1.0, -1.0], [-1.0, 0.0], [-1.0, -1.0]])
    assert_allclose(c, [1.0, 1.0, 1.0])
    Q_dual, p_dual = svm_dual_matrices(EXERCISE_X @ EXERCISE_X.T, EXERCISE_Y)
    assert_allclose(Q_dual, [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    assert_allclose(p_dual, [-1.0, -1.0, -1.0])


def test_exercise_primal_gives_w_minus_2_b_minus_1():
    w, b = solve_hard_margin_primal(EXERCISE_X, EXERCISE_Y)
    assert_allclose(w, [-2.0], atol=1e-7)
    assert b == pytest.approx(-1.0, abs=1e-7)


def test_exercise_dual_gives_the_same_hyperplane():
    K = EXERCISE_X @ EXERCISE_X.T
    alpha, status = solve_svm_dual(K, EXERCISE_Y, np.inf)
    assert status == "Solved"
    assert_allclose(alpha, [2.0, 2.0, 0.0], atol=1e-7)
    assert_allclose((alpha * EXERCISE_Y) @ EXERCISE_X, [-2.0], atol=1e-7)
    assert intercept_from_dual(K, EXERCISE_Y, alpha, np.inf) == pytest.approx(-1.0, abs=1e-7)


def test_example_1_primal_hyperplane():
    # The exact optimum is 1.12512 x1 + 1.13103 x2 - 1.98810 = 0. The seed prints
    # "- 1.987": that is scikit-learn's SVC at its default tol=1e-3 (b = -1.98709);
    # with tol=1e-8 SVC also gives -1.98810.
    X, y = seed_example_1()
    w, b = solve_hard_margin_primal(X, y)
    assert_allclose(w, [1.125, 1.131], atol=5e-4)
    assert b == pytest.approx(-1.988, abs=5e-4)
    assert b == pytest.approx(-1.987, abs=2e-3)
    assert np.min(y * (X @ w + b)) == pytest.approx(1.0, abs=1e-7)


@pytest.mark.parametrize("upper", [np.inf, 1e3])
def test_example_1_dual_has_3_support_vectors(upper):
    X, y = seed_example_1()
    K = X @ X.T
    alpha, _ = solve_svm_dual(K, y, upper)
    support = np.flatnonzero(alpha > 1e-6 * alpha.max())
    assert support.tolist() == [32, 49, 96]
    w_primal, b_primal = solve_hard_margin_primal(X, y)
    assert_allclose((alpha * y) @ X, w_primal, atol=1e-6)
    assert intercept_from_dual(K, y, alpha, upper) == pytest.approx(b_primal, abs=1e-6)
    # On the margin: y_i f(x_i) = 1 for the support vectors.
    assert_allclose(y[support] * (X[support] @ w_primal + b_primal), 1.0, atol=1e-7)


def test_not_separable_primal_raises():
    X = np.array([[-1.0], [0.0], [1.0]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="not linearly separable"):
        solve_hard_margin_primal(X, y)


def test_not_separable_hard_margin_dual_is_unbounded():
    X = np.array([[-1.0], [0.0], [1.0]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="unbounded"):
        solve_svm_dual(X @ X.T, y, np.inf)
    # With C = 1 there is a solution: a_2 = a_1 + a_3 = C and a_1 = a_3 (w = 0).
    alpha, status = solve_svm_dual(X @ X.T, y, 1.0)
    assert status == "Solved"
    assert_allclose(alpha, [0.5, 1.0, 0.5], atol=1e-7)


KERNEL_CASES = [
    ("linear", dict()),
    ("poly", dict(degree=3, gamma=0.5, coef0=1.0)),
    ("rbf", dict(gamma=0.7)),
    ("sigmoid", dict(gamma=0.05, coef0=0.0)),
]


@pytest.mark.parametrize("name,params", KERNEL_CASES)
def test_dual_objective_matches_sklearn_svc(name, params):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=40) > 0.4, 1.0, -1.0)
    kernel = make_kernel(name, **{"degree": 3, "gamma": 1.0, "coef0": 0.0, **params})
    K = kernel(X, X)
    C = 1.0
    if check_mercer(kernel, X).is_psd:
        alpha, status = solve_svm_dual(K, y, C)
    else:  # the sigmoid kernel: a mildly non-convex dual that both solvers still solve
        with pytest.warns(UserWarning, match="stationary point"):
            alpha, status = solve_svm_dual(K, y, C)
    assert status == "Solved"
    Q, _ = svm_dual_matrices(K, y)
    reference = SVC(kernel=name, C=C, tol=1e-10, **params).fit(X, y)
    alpha_sklearn = np.zeros(40)
    alpha_sklearn[reference.support_] = np.abs(reference.dual_coef_.ravel())
    assert dual_objective(alpha, Q) == pytest.approx(dual_objective(alpha_sklearn, Q), rel=1e-8)
    assert intercept_from_dual(K, y, alpha, C) == pytest.approx(reference.intercept_[0], abs=1e-5)


def test_per_sample_upper_bounds_match_sample_weights():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] - X[:, 1] + 0.8 * rng.normal(size=30) > 0, 1.0, -1.0)
    weights = rng.uniform(0.5, 2.0, size=30)
    K = X @ X.T
    alpha, _ = solve_svm_dual(K, y, 0.5 * weights)
    assert np.all(alpha <= 0.5 * weights + 1e-8)
    reference = SVC(kernel="linear", C=0.5, tol=1e-10).fit(X, y, sample_weight=weights)
    alpha_sklearn = np.zeros(30)
    alpha_sklearn[reference.support_] = np.abs(reference.dual_coef_.ravel())
    Q, _ = svm_dual_matrices(K, y)
    assert dual_objective(alpha, Q) == pytest.approx(dual_objective(alpha_sklearn, Q), rel=1e-8)


def test_intercept_without_free_support_vector_is_the_midpoint():
    # Both points at the bound C = 0.1: w = 0.3; b must lie in [-0.7, 0.4].
    X = np.array([[-1.0], [2.0]])
    y = np.array([-1.0, 1.0])
    K = X @ X.T
    alpha, _ = solve_svm_dual(K, y, 0.1)
    assert_allclose(alpha, [0.1, 0.1], atol=1e-8)
    assert intercept_from_dual(K, y, alpha, 0.1) == pytest.approx(-0.15, abs=1e-7)


def test_strongly_non_convex_dual_raises():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = make_kernel("sigmoid", gamma=1.0, coef0=-1.0)(X, X)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        solve_svm_dual(K, y, 1.0)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: solve_hard_margin_primal([[0.0], [np.nan]], [1, -1]), "NaN"),
        (lambda: solve_hard_margin_primal([[0.0], [1.0]], [1, 2]), "-1 and \\+1"),
        (lambda: solve_hard_margin_primal([[0.0], [1.0]], [1, 1]), "both classes"),
        (lambda: solve_svm_dual(np.eye(2), [1, -1], 0.0), "upper must be positive"),
        (lambda: solve_svm_dual(np.ones((2, 3)), [1, -1], 1.0), "square"),
        (lambda: solve_svm_dual(np.eye(2), [1, -1, 1], 1.0), "one label per sample"),
    ],
)
def test_bad_input_raises_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
