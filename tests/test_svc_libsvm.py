"""Agreement with LIBSVM (scikit-learn's SVC) as the oracle."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine, make_classification
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as LibsvmSVC

from svmkit import SVC
from svmkit.datasets import load_heart_scale
from naive import dual_objective

KERNELS = {
    "linear": {},
    "poly": dict(degree=3, gamma=0.1, coef0=1.0),
    "rbf": dict(gamma=0.1),
    "sigmoid": dict(gamma=0.01, coef0=0.0),
}


def _datasets():
    X, y = load_heart_scale()
    yield "heart_scale", X, y
    data = load_breast_cancer()
    yield "breast_cancer", StandardScaler().fit_transform(data.data), data.target
    data = load_wine()
    yield "wine", StandardScaler().fit_transform(data.data), data.target


DATASETS = {name: (X, y) for name, X, y in _datasets()}


def libsvm_pair_objectives(model, X, kernel, params):
    """Dual objective of each one-vs-one pair of a fitted LIBSVM model."""
    classes = np.arange(model.classes_.shape[0])
    sv_class = np.repeat(classes, model.n_support_)
    S = X[model.support_]
    K = pairwise_kernels(S, S, metric=kernel, filter_params=True, **params)
    objectives = []
    for i in classes:
        for j in classes[i + 1 :]:
            in_i, in_j = sv_class == i, sv_class == j
            coef = np.zeros(S.shape[0])
            coef[in_i] = model.dual_coef_[j - 1, in_i]
            coef[in_j] = model.dual_coef_[i, in_j]
            keep = in_i | in_j
            objectives.append(dual_objective(coef[keep], K[np.ix_(keep, keep)]))
    return np.array(objectives)


@pytest.mark.parametrize("dataset", list(DATASETS))
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_agrees_with_libsvm(dataset, kernel):
    X, y = DATASETS[dataset]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    params = KERNELS[kernel]
    ours = SVC(C=1.0, kernel=kernel, **params).fit(X_train, y_train)
    oracle = LibsvmSVC(C=1.0, kernel=kernel, **params).fit(X_train, y_train)

    objectives = np.array([m.dual_objective for m in ours.binary_models_])
    np.testing.assert_allclose(objectives, libsvm_pair_objectives(oracle, X_train, kernel, params), rtol=1e-3)
    assert np.mean(ours.predict(X_test) == oracle.predict(X_test)) >= 0.995
    assert abs(ours.support_.shape[0] - oracle.support_.shape[0]) <= 0.02 * oracle.support_.shape[0]
    for model in ours.binary_models_:
        report = model.kkt_report()
        assert report.violation.max() <= ours.tol  # KKT conditions within tol
        assert model.duality_gap == pytest.approx(model.primal_objective - model.dual_objective)
        n = model.alpha.shape[0]
        assert -1e-9 <= model.duality_gap <= 2 * n * ours.C * ours.tol


def test_one_vs_one_decision_values_match_libsvm():
    X, y = DATASETS["wine"]
    ours = SVC(C=1.0, gamma=0.1, decision_function_shape="ovo", tol=1e-6).fit(X, y)
    oracle = LibsvmSVC(C=1.0, gamma=0.1, decision_function_shape="ovo", tol=1e-6).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), oracle.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.support_, oracle.support_)
    np.testing.assert_array_equal(ours.n_support_, oracle.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, oracle.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, oracle.intercept_, atol=1e-4)
    ovr_shape = SVC(C=1.0, gamma=0.1, tol=1e-6).fit(X, y).decision_function(X)
    np.testing.assert_allclose(ovr_shape, LibsvmSVC(C=1.0, gamma=0.1, tol=1e-6).fit(X, y).decision_function(X), atol=1e-4)


def test_one_vs_rest_trains_one_problem_per_class():
    X, y = DATASETS["wine"]
    model = SVC(C=1.0, gamma=0.1, multiclass="ovr", tol=1e-6).fit(X, y)
    assert model.problem_classes_ == [(0, "rest"), (1, "rest"), (2, "rest")]
    assert model.dual_coef_.shape == (3, model.support_.shape[0])
    for k, binary in enumerate(model.binary_models_):
        alone = SVC(C=1.0, gamma=0.1, tol=1e-6).fit(X, np.where(y == k, 1, 0))
        assert binary.dual_objective == pytest.approx(alone.dual_objective_, rel=1e-9)
        np.testing.assert_allclose(model.decision_function(X)[:, k], alone.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(model.decision_function(X), 1)])


@pytest.mark.parametrize("shrinking", [True, False])
def test_blocked_solver_with_small_cache_reaches_libsvm_objective(shrinking):
    X, y = make_classification(n_samples=1500, n_features=10, flip_y=0.05, random_state=1)
    ours = SVC(C=10.0, gamma=0.1, cache_size=1.0, shrinking=shrinking).fit(X, y)
    oracle = LibsvmSVC(C=10.0, gamma=0.1).fit(X, y)
    expected = libsvm_pair_objectives(oracle, X, "rbf", {"gamma": 0.1})[0]
    assert ours.dual_objective_ == pytest.approx(expected, rel=1e-3)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.995
    assert abs(ours.support_.shape[0] - oracle.support_.shape[0]) <= 0.02 * oracle.support_.shape[0]
    assert ours.binary_models_[0].kkt_report().violation.max() <= ours.tol


def test_heart_scale_file_from_shared_data_matches_the_bundled_copy(shared_data):
    from svmkit.io import load_libsvm

    X_shared, y_shared = load_libsvm(shared_data / "heart_scale", n_features=13)
    X, y = load_heart_scale()
    np.testing.assert_array_equal(X_shared.toarray(), X)
    np.testing.assert_array_equal(y_shared, y)
