"""The fat-margin bound on the VC dimension, d_vc(rho) <= min(ceil(R^2 / rho^2), d) + 1."""

import io
import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_iris

import svmkit
from svmkit import SVC
from svmkit.demo import run_demo
from svmkit.kernels import RBFKernel

# The course's exercise: D = {(-1, +1), (0, -1), (1, -1)}.
X_EXERCISE = np.array([[-1.0], [0.0], [1.0]])
Y_EXERCISE = np.array([1, -1, -1])


def test_the_exercise_by_hand():
    model = SVC(C=np.inf, kernel="linear").fit(X_EXERCISE, Y_EXERCISE)
    # hard margin: w = -2, b = -1, so rho = 1 / |w| = 1/2.
    # R: the points -1 and 1 are 2 apart, so no ball holding both is smaller than radius 1, and the
    # ball centred at 0 of radius 1 holds all three: R = 1 (also the largest distance from the mean 0).
    # R^2 / rho^2 = 1 / (1/4) = 4, d = 1 feature: min(4, 1) + 1 = 2.
    np.testing.assert_allclose(model.coef_, [[-2.0]], atol=1e-12)
    assert model.rho_ == pytest.approx(0.5, abs=1e-12)
    assert model.radius_ == pytest.approx(1.0, abs=1e-12)
    assert model.vc_bound_ == 2


def test_the_exercise_in_the_quadratic_kernels_feature_space():
    # k(x, z) = (xz + 1)^2 maps x to (x^2, sqrt(2) x, 1): A = (1, -sqrt 2), B = (0, 0), C = (1, sqrt 2)
    # (the constant coordinate dropped). The angle at B is obtuse (cos = (3 + 3 - 8) / 6 = -1/3), so the
    # smallest ball has the diameter AC: centre (1, 0), R = sqrt 2. The point of the segment BC nearest to
    # A is B (A.(BC) < 0), so the margin is half of |AB| = sqrt 3: rho = sqrt(3) / 2.
    # R^2 / rho^2 = 2 / (3/4) = 8/3 -> 3; d = 2 monomials of degree 1 and 2 in one variable: min(3, 2) + 1 = 3.
    model = SVC(C=np.inf, kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X_EXERCISE, Y_EXERCISE)
    assert model.radius_ == pytest.approx(math.sqrt(2.0), rel=1e-9)
    assert model.rho_ == pytest.approx(math.sqrt(3.0) / 2.0, rel=1e-9)
    assert model.vc_bound_ == 3
    # without the constant term, (xz)^2 maps x to x^2 alone: d = 1, R = 1/2 (0 and 1), rho = 1/2 (1 and 0)
    homogeneous = SVC(C=np.inf, kernel="poly", degree=2, gamma=1.0, coef0=0.0).fit(X_EXERCISE[:2], Y_EXERCISE[:2])
    assert homogeneous.radius_ == pytest.approx(0.5, rel=1e-9)
    assert homogeneous.vc_bound_ == 2  # min(ceil(1), 1) + 1


def smallest_ball_squared_radius(K):
    """The oracle: max_a a'diag(K) - a'Ka on the simplex, by SciPy's SLSQP."""
    n = K.shape[0]
    diagonal = np.diagonal(K)
    result = minimize(lambda a: a @ K @ a - a @ diagonal, np.full(n, 1.0 / n), jac=lambda a: 2 * K @ a - diagonal,
                      bounds=[(0.0, 1.0)] * n, method="SLSQP", options={"ftol": 1e-14, "maxiter": 500},
                      constraints=[{"type": "eq", "fun": lambda a: a.sum() - 1.0}])
    return -result.fun


def test_rbf_radius_is_the_smallest_ball_in_feature_space():
    X, y = load_iris(return_X_y=True)
    rows = np.random.default_rng(0).choice(150, 40, replace=False)
    X, y = X[rows], y[rows]
    model = SVC(kernel="rbf", gamma=0.5, C=10.0, tol=1e-6).fit(X, y)
    K = RBFKernel(gamma=0.5)(X, X)
    assert model.radius_ ** 2 == pytest.approx(smallest_ball_squared_radius(K), rel=1e-5)
    # the largest distance from the feature-space mean encloses too, and is never smaller
    centroid_distances = np.diagonal(K) - 2 * K.mean(axis=1) + K.mean()
    assert model.radius_ ** 2 <= centroid_distances.max() + 1e-12
    # a precomputed Gram matrix gives the same ball
    precomputed = SVC(kernel="precomputed", C=10.0, tol=1e-6).fit(K, y)
    assert precomputed.radius_ == pytest.approx(model.radius_, rel=1e-9)
    # RBF: infinite feature space, one bound per one-vs-one problem from its own margin
    expected = [math.ceil((model.radius_ / rho) ** 2) + 1 for rho in model.rho_]
    assert model.vc_bound_.tolist() == expected
    np.testing.assert_allclose(model.rho_, np.asarray(model.margin_) / 2)
    assert precomputed.vc_bound_.tolist() == expected


def test_linear_bound_is_capped_by_the_number_of_features():
    X, y = load_iris(return_X_y=True)
    model = SVC(kernel="linear", C=100.0).fit(X, y)
    ratios = (model.radius_ / model.rho_) ** 2
    assert np.any(ratios > 4)  # (the cap is reached by some problem)
    assert model.vc_bound_.tolist() == [min(math.ceil(r), 4) + 1 for r in ratios]


def test_the_bound_survives_save_and_load():
    model = SVC(C=np.inf, kernel="linear").fit(X_EXERCISE, Y_EXERCISE)
    buffer = io.BytesIO()
    svmkit.save(model, buffer)
    loaded = svmkit.load(io.BytesIO(buffer.getvalue()))
    assert loaded.radius_ == model.radius_ and loaded.vc_bound_ == 2


def test_the_demo_shows_it_beside_the_leave_one_out_bound():
    lines = run_demo().splitlines()
    loo = next(i for i, line in enumerate(lines) if "leave-one-out bound" in line)
    assert lines[loo + 1].startswith("  VC bound (fat margin)  ")
    assert "R = " in lines[loo + 2] and "d = infinite (RBF)" in lines[loo + 3]


def test_a_pickled_model_holds_the_radius_not_the_training_data():
    import pickle

    X = np.random.default_rng(0).normal(size=(3000, 40))  # (960 KB of training data)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    fitted = SVC(kernel="linear", C=0.1).fit(X, y)
    blob = pickle.dumps(fitted)
    assert len(blob) < X.nbytes / 2
    loaded = pickle.loads(blob)
    assert loaded.radius_ == fitted.radius_ and loaded.vc_bound_ == fitted.vc_bound_
    # (R from the training data, asked for after the fit: the distance to the ball's centre of the farthest point)
    assert fitted.radius_ <= np.linalg.norm(X - X.mean(axis=0), axis=1).max() + 1e-9
