"""SVC(solver='qp'): the seed's dual QP solved by Clarabel, the oracle of SMO."""

import warnings

import numpy as np
import pytest

from svmkit import SVC

KERNELS = {
    "linear": {},
    "poly": dict(degree=2, gamma=0.5, coef0=1.0),
    "rbf": dict(gamma=0.7),
    "sigmoid": dict(gamma=0.05, coef0=0.0),
}


def random_problem(seed, n=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.3, 1, -1)
    return X, y


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smo_agrees_with_the_qp_oracle(kernel, seed):
    X, y = random_problem(seed)
    params = KERNELS[kernel]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # sigmoid: Q_D may be indefinite (stationary point)
        qp = SVC(C=1.0, kernel=kernel, solver="qp", **params).fit(X, y)
    smo = SVC(C=1.0, kernel=kernel, tol=1e-8, **params).fit(X, y)
    assert smo.dual_objective_ == pytest.approx(qp.dual_objective_, rel=1e-6)
    np.testing.assert_array_equal(smo.support_, qp.support_)
    np.testing.assert_allclose(smo.decision_function(X), qp.decision_function(X), atol=1e-5)
    assert qp.duality_gap_ == pytest.approx(0.0, abs=1e-6 * qp.primal_objective_)


def test_qp_path_on_the_seed_exercise():
    X = np.array([[-1.0], [0.0], [1.0]])
    y = np.array([1, -1, -1])
    model = SVC(C=np.inf, kernel="linear", solver="qp").fit(X, y)
    np.testing.assert_allclose(model.coef_, [[-2.0]], atol=1e-7)
    np.testing.assert_allclose(model.intercept_, [-1.0], atol=1e-7)
    np.testing.assert_array_equal(np.sort(model.support_), [0, 1])
    np.testing.assert_allclose(model.alpha_, [2.0, 2.0, 0.0], atol=1e-7)


def test_qp_path_with_zero_weight_and_multiclass():
    X, y = random_problem(3, n=60)
    labels = np.where(y > 0, 1, 0) + (X[:, 2] > 1.0)
    weights = np.ones(60)
    weights[:5] = 0.0
    qp = SVC(C=2.0, solver="qp").fit(X, labels, sample_weight=weights)
    smo = SVC(C=2.0, tol=1e-8).fit(X, labels, sample_weight=weights)
    np.testing.assert_allclose(qp.dual_objective_, smo.dual_objective_, rtol=1e-6)
    assert not np.isin(np.arange(5), qp.support_).any()


def test_unknown_solver_is_refused():
    with pytest.raises(ValueError, match="solver must be 'smo' or 'qp'"):
        SVC(solver="cvx").fit(*random_problem(0))
