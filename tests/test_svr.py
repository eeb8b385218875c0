"""SVR and NuSVR: agreement with LIBSVM (scikit-learn's SVR, NuSVR), theory, API."""

import doctest

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as libsvm
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmkit.svm._svr
from svmkit.kernels import RBFKernel
from svmkit.svm import SVR, NuSVR

KERNELS = {
    "rbf": dict(gamma=0.1),
    "poly": dict(degree=3, gamma=0.1, coef0=1.0),
    "linear": {},
}


def _diabetes():
    data = load_diabetes()
    X = StandardScaler().fit_transform(data.data)
    y = StandardScaler().fit_transform(data.target[:, None])[:, 0]
    return X, y


DATASETS = {"diabetes": _diabetes(), "friedman1": make_friedman1(n_samples=600, noise=0.5, random_state=0)}
# At tol=1e-3 the poly and linear fits of diabetes (thousands of iterations, ill-conditioned) stop
# farther apart than 1e-3 * std(y) in both solvers; those kernels are compared on friedman1 and at
# tol=1e-6 in test_ill_conditioned_fits_agree_at_a_tighter_tol.
CASES = [("diabetes", "rbf"), ("friedman1", "rbf"), ("friedman1", "poly"), ("friedman1", "linear")]
ESTIMATORS = {"SVR": (SVR, libsvm.SVR, dict(C=1.0, epsilon=0.1)), "NuSVR": (NuSVR, libsvm.NuSVR, dict(C=1.0, nu=0.4))}


def svr_objective(model, X, y, kernel, params, epsilon):
    """``1/2 c'Kc - y'c + epsilon |c|_1`` from ``dual_coef_`` and the support vectors (nu-SVR: epsilon = 0)."""
    S = X[model.support_]
    K = pairwise_kernels(S, S, metric=kernel, filter_params=True, **params)
    c = model.dual_coef_[0]
    return 0.5 * c @ K @ c - y[model.support_] @ c + epsilon * np.abs(c).sum()


@pytest.mark.parametrize("dataset, kernel", CASES)
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_agrees_with_libsvm(name, dataset, kernel):
    ours_class, oracle_class, settings = ESTIMATORS[name]
    X, y = DATASETS[dataset]
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    params = KERNELS[kernel]
    ours = ours_class(kernel=kernel, **settings, **params).fit(X_train, y_train)
    oracle = oracle_class(kernel=kernel, **settings, **params).fit(X_train, y_train)

    epsilon = settings.get("epsilon", 0.0)
    expected = svr_objective(oracle, X_train, y_train, kernel, params, epsilon)
    assert svr_objective(ours, X_train, y_train, kernel, params, epsilon) == pytest.approx(expected, rel=1e-3)
    assert -ours.dual_objective_ == pytest.approx(expected, rel=1e-3)
    difference = np.abs(ours.predict(X_test) - oracle.predict(X_test)).max()
    assert difference <= 1e-3 * y_train.std()
    assert abs(ours.support_.shape[0] - oracle.support_.shape[0]) <= 0.02 * oracle.support_.shape[0]
    assert ours.fit_status_ == 0


@pytest.mark.parametrize("kernel", ["poly", "linear"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_ill_conditioned_fits_agree_at_a_tighter_tol(name, kernel):
    ours_class, oracle_class, settings = ESTIMATORS[name]
    X, y = DATASETS["diabetes"]
    params = KERNELS[kernel]
    ours = ours_class(kernel=kernel, tol=1e-6, **settings, **params).fit(X, y)
    oracle = oracle_class(kernel=kernel, tol=1e-6, **settings, **params).fit(X, y)
    assert np.abs(ours.predict(X) - oracle.predict(X)).max() <= 1e-3 * y.std()


def test_epsilon_svr_on_diabetes_matches_libsvm():
    X, y = DATASETS["diabetes"]
    ours = SVR(C=10.0, epsilon=0.2, tol=1e-6).fit(X, y)
    oracle = libsvm.SVR(C=10.0, epsilon=0.2, tol=1e-6).fit(X, y)
    np.testing.assert_array_equal(ours.support_, oracle.support_)
    np.testing.assert_allclose(ours.dual_coef_, oracle.dual_coef_, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, oracle.intercept_, atol=1e-5)
    np.testing.assert_allclose(ours.predict(X), oracle.predict(X), atol=1e-5)
    np.testing.assert_array_equal(ours.n_support_, oracle.n_support_)
    assert ours.n_support_.dtype == np.int32 and isinstance(ours.n_iter_, int)
    assert ours.score(X, y) == pytest.approx(oracle.score(X, y), abs=1e-6)


def test_linear_coef_and_sparse_input():
    X, y = DATASETS["friedman1"]
    model = SVR(kernel="linear", C=0.5).fit(X, y)
    np.testing.assert_allclose(X @ model.coef_[0] + model.intercept_[0], model.predict(X), atol=1e-10)
    oracle = libsvm.SVR(kernel="linear", C=0.5).fit(X, y)
    np.testing.assert_allclose(model.coef_, oracle.coef_, atol=1e-3)
    sparse = SVR(kernel="linear", C=0.5).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), model.predict(X), atol=1e-8)
    np.testing.assert_allclose(sparse.coef_, model.coef_, atol=1e-8)


@pytest.mark.parametrize("estimator", [SVR(C=2.0, epsilon=0.3, tol=1e-8), NuSVR(C=2.0, nu=0.3, tol=1e-8)])
def test_theory_of_the_optimum(estimator):
    X, y = DATASETS["friedman1"]
    model = estimator.fit(X, y)
    f = model.predict(X)
    epsilon = getattr(model, "epsilon_", getattr(model, "epsilon", None))
    residual = y - f
    np.testing.assert_allclose(model.slack_, np.maximum(0.0, np.abs(residual) - epsilon), atol=1e-6)
    coef = model.alpha_ - model.alpha_star_
    np.testing.assert_allclose(coef[model.support_], model.dual_coef_[0])
    assert np.all(model.alpha_ * model.alpha_star_ <= 1e-12)  # never both sides of the tube
    assert model.duality_gap_ == pytest.approx(0.0, abs=1e-6 * abs(model.primal_objective_))
    report = model.kkt_report()
    assert report.violation.max() <= 1e-6
    counts = report.counts()
    assert list(counts) == ["inside the tube", "on the tube boundary", "bounded, outside the tube"]
    assert counts["inside the tube"] == y.shape[0] - model.support_.shape[0]
    assert counts["bounded, outside the tube"] == int(np.sum(np.abs(coef) >= 2.0))
    assert list(report.to_frame().columns) == ["alpha", "mu", "slack", "residual", "category", "violation"]


def test_nu_svr_learns_the_tube_of_the_equivalent_svr():
    """nu bounds the fraction outside the tube and of support vectors; SVR with epsilon = epsilon_ is the same fit."""
    X, y = DATASETS["friedman1"]
    nu_model = NuSVR(C=2.0, nu=0.3, tol=1e-8).fit(X, y)
    n = y.shape[0]
    outside = np.abs(y - nu_model.predict(X)) > nu_model.epsilon_ + 1e-6
    assert np.mean(outside) <= 0.3 <= nu_model.support_.shape[0] / n
    assert nu_model.epsilon_ > 0
    eps_model = SVR(C=2.0, epsilon=nu_model.epsilon_, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(eps_model.predict(X), nu_model.predict(X), atol=1e-5)


def test_sample_weight_zero_removes_the_sample_and_precomputed_kernel():
    X, y = DATASETS["diabetes"]
    weights = np.ones(y.shape[0])
    weights[:30] = 0.0
    for estimator in (SVR(gamma=0.1, tol=1e-8), NuSVR(gamma=0.1, tol=1e-8)):
        weighted = estimator.fit(X, y, sample_weight=weights).predict(X)
        dropped = estimator.fit(X[30:], y[30:]).predict(X)
        np.testing.assert_allclose(weighted, dropped, atol=1e-6)
    gram = RBFKernel(gamma=0.1)(X, X)
    pre = SVR(kernel="precomputed", tol=1e-8).fit(gram, y)
    named = SVR(gamma=0.1, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(pre.predict(gram), named.predict(X), atol=1e-6)


@pytest.mark.parametrize(
    "estimator, message",
    [
        (SVR(epsilon=-0.1), "epsilon must be a finite number >= 0"),
        (SVR(epsilon=np.inf), "epsilon must be a finite number >= 0"),
        (SVR(C=0.0), "C must be a finite number > 0"),
        (SVR(C=-1.0), "C must be a finite number > 0"),
        (NuSVR(C=0.0), "C must be a finite number > 0"),
        (NuSVR(nu=0.0), r"nu must be in \(0, 1\]"),
        (NuSVR(nu=1.2), r"nu must be in \(0, 1\]"),
        (SVR(kernel="poly", degree=0), "degree must be an integer >= 1"),
    ],
)
def test_bad_input_raises_a_clear_error(estimator, message):
    X, y = DATASETS["diabetes"]
    with pytest.raises(ValueError, match=message):
        estimator.fit(X, y)


def test_targets_are_required_and_numeric():
    X, y = DATASETS["diabetes"]
    with pytest.raises(ValueError, match="requires y to be passed"):
        SVR().fit(X, None)
    with pytest.raises(ValueError, match="NaN"):
        SVR().fit(X, np.r_[np.nan, y[1:]])


def test_max_iter_warns_and_the_callback_sees_2n_variables():
    X, y = DATASETS["diabetes"]
    with pytest.warns(ConvergenceWarning, match=r"max_iter=5 with the KKT gap"):
        model = NuSVR(max_iter=5).fit(X, y)
    assert model.fit_status_ == 1 and model.n_iter_ == 5
    reports = []
    SVR(callback=reports.append).fit(X, y)
    assert reports and reports[-1].n_variables == 2 * y.shape[0] and reports[-1].gap < 1e-3


def _expected_failures(estimator):
    if estimator.kernel == "precomputed":
        return {}
    reason = (
        "weights equal repetition only at the optimum; at tol=1e-3 the check's 1e-7 tolerance is out of reach, "
        "and gamma='scale' depends on X.var(), which repetition changes (scikit-learn marks it xfail too)"
    )
    return {
        "check_sample_weight_equivalence_on_dense_data": reason,
        "check_sample_weight_equivalence_on_sparse_data": reason,
    }


@parametrize_with_checks(
    [SVR(), SVR(kernel="precomputed"), NuSVR(), NuSVR(kernel="linear")],
    expected_failed_checks=_expected_failures,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_docstring_examples_run():
    result = doctest.testmod(svmkit.svm._svr, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
