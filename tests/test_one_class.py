"""OneClassSVM: agreement with LIBSVM (scikit-learn's OneClassSVM), the nu property, theory, API."""

import doctest

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import OneClassSVM as LibsvmOneClassSVM
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmkit.svm._one_class
from svmkit.datasets import load_heart_scale
from svmkit.kernels import RBFKernel
from svmkit.svm import OneClassSVM

KERNELS = {
    "rbf": dict(gamma=0.1),
    "poly": dict(degree=3, gamma=0.1, coef0=1.0),
    "linear": {},
}


def _datasets():
    X, _ = load_heart_scale()
    yield "heart_scale", X
    yield "breast_cancer", StandardScaler().fit_transform(load_breast_cancer().data)
    yield "wine", StandardScaler().fit_transform(load_wine().data)


DATASETS = dict(_datasets())
# With the linear kernel, standardised data surround the origin: rho = 0 and every point lies on the
# boundary, so predictions are ties; the linear kernel is compared on heart_scale only.
CASES = [(d, k, nu) for d in DATASETS for k in KERNELS for nu in (0.1, 0.5) if k != "linear" or d == "heart_scale"]


def one_class_objective(model, X, kernel, params):
    """``1/2 a'Ka`` from ``dual_coef_`` and the support vectors."""
    S = X[model.support_]
    K = pairwise_kernels(S, S, metric=kernel, filter_params=True, **params)
    a = model.dual_coef_[0]
    return 0.5 * a @ K @ a


@pytest.mark.parametrize("dataset, kernel, nu", CASES)
def test_agrees_with_libsvm(dataset, kernel, nu):
    X = DATASETS[dataset]
    X_train, X_test = train_test_split(X, test_size=0.3, random_state=0)
    params = KERNELS[kernel]
    ours = OneClassSVM(nu=nu, kernel=kernel, **params).fit(X_train)
    oracle = LibsvmOneClassSVM(nu=nu, kernel=kernel, **params).fit(X_train)

    expected = one_class_objective(oracle, X_train, kernel, params)
    assert one_class_objective(ours, X_train, kernel, params) == pytest.approx(expected, rel=1e-3)
    assert -ours.dual_objective_ == pytest.approx(expected, rel=1e-3)
    assert np.mean(ours.predict(X_test) == oracle.predict(X_test)) >= 0.995
    assert abs(ours.support_.shape[0] - oracle.support_.shape[0]) <= 0.02 * oracle.support_.shape[0]
    scale = np.abs(oracle.decision_function(X_test)).max()
    np.testing.assert_allclose(ours.decision_function(X_test), oracle.decision_function(X_test), atol=1e-3 * scale)
    np.testing.assert_allclose(ours.offset_, oracle.offset_, atol=1e-3 * scale)


def test_attributes_follow_scikit_learn_at_high_accuracy():
    X = DATASETS["wine"]
    ours = OneClassSVM(nu=0.3, gamma=0.05, tol=1e-8).fit(X)
    oracle = LibsvmOneClassSVM(nu=0.3, gamma=0.05, tol=1e-8).fit(X)
    np.testing.assert_array_equal(ours.support_, oracle.support_)
    np.testing.assert_allclose(ours.dual_coef_, oracle.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, oracle.intercept_, atol=1e-6)
    np.testing.assert_array_equal(ours.n_support_, oracle.n_support_)
    np.testing.assert_allclose(ours.score_samples(X), oracle.score_samples(X), atol=1e-5)
    assert ours.n_support_.dtype == np.int32 and isinstance(ours.n_iter_, int)
    linear = OneClassSVM(kernel="linear", nu=0.3).fit(DATASETS["heart_scale"])
    np.testing.assert_allclose(linear.coef_, linear.dual_coef_ @ DATASETS["heart_scale"][linear.support_])


@pytest.mark.parametrize("nu", [0.05, 0.2, 0.5, 0.8])
def test_nu_bounds_outliers_and_support_vectors(nu):
    """Schölkopf et al. 2001: fraction of outliers <= nu <= fraction of support vectors; the optimum's theory."""
    X = DATASETS["breast_cancer"]
    model = OneClassSVM(nu=nu, gamma=0.02, tol=1e-6).fit(X)
    n = X.shape[0]
    assert np.mean(model.decision_function(X) < -1e-4) <= nu <= model.support_.shape[0] / n
    assert np.mean(model.alpha_ >= 1.0) <= nu
    assert model.alpha_.sum() == pytest.approx(nu * n)
    assert 0.0 <= model.alpha_.min() and model.alpha_.max() <= 1.0
    np.testing.assert_allclose(model.slack_, np.maximum(0.0, -model.decision_function(X)), rtol=1e-6, atol=1e-5)
    assert model.duality_gap_ == pytest.approx(0.0, abs=1e-5 * abs(model.dual_objective_))
    report = model.kkt_report()
    assert report.violation.max() <= 1e-6
    counts = report.counts()
    assert list(counts) == ["not a support vector", "on the boundary", "bounded, outlier side"]
    assert counts["bounded, outlier side"] == int(np.sum(model.alpha_ >= 1.0))
    assert list(report.to_frame().columns) == ["alpha", "mu", "slack", "f", "category", "violation"]


def test_score_samples_decision_function_and_predict():
    X = DATASETS["heart_scale"]
    model = OneClassSVM(nu=0.2).fit(X)
    decision = model.decision_function(X)
    np.testing.assert_allclose(model.score_samples(X), decision + model.offset_[0])
    np.testing.assert_array_equal(model.predict(X), np.where(decision > 0, 1, -1))
    np.testing.assert_array_equal(model.offset_, -model.intercept_)
    assert set(np.unique(model.predict(X))) == {-1, 1}


def test_labels_are_ignored():
    X = DATASETS["wine"]
    y = load_wine().target
    with_labels = OneClassSVM(nu=0.2).fit(X, y)
    without = OneClassSVM(nu=0.2).fit(X)
    np.testing.assert_array_equal(with_labels.dual_coef_, without.dual_coef_)
    np.testing.assert_array_equal(with_labels.fit_predict(X, y), without.predict(X))


def test_sample_weight_zero_removes_the_sample_and_precomputed_kernel():
    X = DATASETS["wine"]
    weights = np.ones(X.shape[0])
    weights[:20] = 0.0
    weighted = OneClassSVM(nu=0.2, gamma=0.1, tol=1e-8).fit(X, sample_weight=weights)
    dropped = OneClassSVM(nu=0.2, gamma=0.1, tol=1e-8).fit(X[20:])
    np.testing.assert_allclose(weighted.decision_function(X), dropped.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(weighted.support_, dropped.support_ + 20)
    gram = RBFKernel(gamma=0.1)(X, X)
    pre = OneClassSVM(nu=0.2, kernel="precomputed", tol=1e-8).fit(gram, sample_weight=weights)
    np.testing.assert_allclose(pre.decision_function(gram), weighted.decision_function(X), atol=1e-5)


@pytest.mark.parametrize(
    "params, weights, message",
    [
        ({"nu": 0.0}, None, r"nu must be in \(0, 1\]"),
        ({"nu": 1.01}, None, r"nu must be in \(0, 1\]"),
        ({"nu": True}, None, r"nu must be in \(0, 1\]"),
        ({"gamma": -1.0}, None, "gamma must be"),
        ({"tol": -1.0}, None, "tol must be > 0"),
        ({}, "zeros", "Sample weights must contain at least one non-zero number"),
        ({}, "negative", "sample_weight must be non-negative"),
    ],
)
def test_bad_input_raises_a_clear_error(params, weights, message):
    X = DATASETS["wine"]
    sample_weight = {None: None, "zeros": np.zeros(X.shape[0]), "negative": -np.ones(X.shape[0])}[weights]
    with pytest.raises(ValueError, match=message):
        OneClassSVM(**params).fit(X, sample_weight=sample_weight)


def test_max_iter_warns_with_the_gap_reached():
    with pytest.warns(ConvergenceWarning, match=r"max_iter=3 with the KKT gap"):
        model = OneClassSVM(max_iter=3).fit(DATASETS["breast_cancer"])
    assert model.fit_status_ == 1 and model.n_iter_ == 3


def _expected_failures(estimator):
    if estimator.kernel == "precomputed":
        reason = "the check fits a precomputed-kernel outlier detector on a non-square X"
        return {"check_outliers_fit_predict": reason, "check_outliers_train": reason}
    reason = (
        "weights equal repetition only at the optimum; at tol=1e-3 the check's 1e-7 tolerance is out of reach, "
        "and gamma='scale' depends on X.var(), which repetition changes (scikit-learn marks it xfail too)"
    )
    return {
        "check_sample_weight_equivalence_on_dense_data": reason,
        "check_sample_weight_equivalence_on_sparse_data": reason,
    }


@parametrize_with_checks(
    [OneClassSVM(), OneClassSVM(kernel="linear", nu=0.3), OneClassSVM(kernel="precomputed")],
    expected_failed_checks=_expected_failures,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_docstring_examples_run():
    result = doctest.testmod(svmkit.svm._one_class, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
