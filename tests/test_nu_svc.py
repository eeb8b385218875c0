"""NuSVC: agreement with LIBSVM (scikit-learn's NuSVC), nu feasibility, theory, API."""

import doctest
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine, make_blobs
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import NuSVC as LibsvmNuSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmkit.svm._nu_svc
from svmkit.datasets import load_heart_scale
from svmkit.kernels import RBFKernel
from svmkit.svm import SVC, DegenerateNuWarning, NuSVC

KERNELS = {
    "rbf": dict(gamma=0.1),
    "poly": dict(degree=3, gamma=0.1, coef0=1.0),
    "linear": {},
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
# heart_scale with nu = 0.2 lies below the smallest useful nu for the linear and sigmoid kernels
# (the optimum has w = 0; see test_too_small_nu_is_refused), so it is compared at nu = 0.5 only.
CASES = [(d, k, nu) for d in DATASETS for k in KERNELS for nu in (0.2, 0.5) if not (d == "heart_scale" and nu == 0.2)]


def nu_pair_objectives(model, X, y, nu, kernel, params):
    """``1/2 a'Qa`` of each one-vs-one pair in LIBSVM's scaling, from ``dual_coef_`` and the support vectors.

    The stored coefficients are ``a_i y_i / r``; ``sum a = nu * n_pair`` recovers ``r``.
    """
    n_classes = model.classes_.shape[0]
    sv_class = np.repeat(np.arange(n_classes), model.n_support_)
    S = X[model.support_]
    K = pairwise_kernels(S, S, metric=kernel, filter_params=True, **params)
    objectives = []
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            in_i, in_j = sv_class == i, sv_class == j
            coef = np.zeros(S.shape[0])
            coef[in_i] = model.dual_coef_[j - 1, in_i]
            coef[in_j] = model.dual_coef_[i, in_j]
            keep = in_i | in_j
            n_pair = np.sum(np.isin(y, model.classes_[[i, j]]))
            a = coef[keep] * nu * n_pair / np.abs(coef[keep]).sum()
            objectives.append(0.5 * a @ K[np.ix_(keep, keep)] @ a)
    return np.array(objectives)


@pytest.mark.parametrize("dataset, kernel, nu", CASES)
def test_agrees_with_libsvm(dataset, kernel, nu):
    X, y = DATASETS[dataset]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    params = KERNELS[kernel]
    ours = NuSVC(nu=nu, kernel=kernel, **params).fit(X_train, y_train)
    oracle = LibsvmNuSVC(nu=nu, kernel=kernel, **params).fit(X_train, y_train)

    expected = nu_pair_objectives(oracle, X_train, y_train, nu, kernel, params)
    np.testing.assert_allclose(nu_pair_objectives(ours, X_train, y_train, nu, kernel, params), expected, rtol=1e-3)
    np.testing.assert_allclose([m.nu_dual_objective for m in ours.binary_models_], expected, rtol=1e-3)
    assert np.mean(ours.predict(X_test) == oracle.predict(X_test)) >= 0.995
    assert abs(ours.support_.shape[0] - oracle.support_.shape[0]) <= 0.02 * oracle.support_.shape[0]
    assert ours.fit_status_ == 0


def test_many_classes_agree_with_libsvm():
    """Ten classes: each one-vs-one pair's start point (nu n / 2 on each side) has its gradient
    from the rows of a fifth of the data (a pair's share of the shared store's columns), the
    other way than one-class's start over all of them."""
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    params = dict(gamma=0.01)
    ours = NuSVC(nu=0.2, **params).fit(X, y)
    oracle = LibsvmNuSVC(nu=0.2, **params).fit(X, y)
    expected = nu_pair_objectives(oracle, X, y, 0.2, "rbf", params)
    np.testing.assert_allclose(nu_pair_objectives(ours, X, y, 0.2, "rbf", params), expected, rtol=1e-3)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.995


def test_decision_values_match_libsvm_on_iris():
    X, y = load_iris(return_X_y=True)
    ours = NuSVC(nu=0.3, decision_function_shape="ovo", tol=1e-6).fit(X, y)
    oracle = LibsvmNuSVC(nu=0.3, decision_function_shape="ovo", tol=1e-6).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), oracle.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.support_, oracle.support_)
    np.testing.assert_array_equal(ours.n_support_, oracle.n_support_)
    # iris repeats some samples, so the multipliers themselves are not unique: compare the function
    np.testing.assert_allclose(ours.intercept_, oracle.intercept_, atol=1e-5)


def test_nu_svc_is_c_svc_with_the_effective_C():
    """Chang and Lin (2001): the rescaled nu-SVC solution solves C-SVC with C = 1/r."""
    X, y = DATASETS["breast_cancer"]
    nu_model = NuSVC(nu=0.3, gamma=0.05, tol=1e-8).fit(X, y)
    c_model = SVC(C=nu_model.effective_C_, gamma=0.05, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(nu_model.decision_function(X), c_model.decision_function(X), atol=1e-5)
    assert nu_model.dual_objective_ == pytest.approx(c_model.dual_objective_, rel=1e-6)
    assert nu_model.duality_gap_ == pytest.approx(0.0, abs=1e-6 * nu_model.primal_objective_)
    # nu bounds the fraction of margin errors from above and of support vectors from below
    n = y.shape[0]
    assert np.mean(nu_model.slack_ > 1e-6) <= 0.3 <= nu_model.support_.shape[0] / n
    report = nu_model.kkt_report()
    assert report.violation.max() <= 1e-6
    assert report.counts()["not a support vector"] == n - nu_model.support_.shape[0]


def test_infeasible_nu_is_refused_before_any_kernel_evaluation():
    calls = []

    def kernel(A, B):
        calls.append((A.shape, B.shape))
        return A @ B.T

    X, y = make_blobs(n_samples=[40, 10], centers=[[0, 0], [3, 3]], random_state=0)
    # nu * (40 + 10) / 2 <= 10 requires nu <= 0.4
    with pytest.raises(ValueError, match=r"nu=0.5 is infeasible for the classes 0 and 1 \(weighted sizes 40 and 10\)"):
        NuSVC(nu=0.5, kernel=kernel).fit(X, y)
    with pytest.raises(ValueError, match=r"largest feasible nu for these data is 0\.4\b"):
        NuSVC(nu=0.41, kernel=kernel).fit(X, y)
    assert calls == []
    NuSVC(nu=0.4, kernel=kernel).fit(X, y)
    assert calls


def test_feasibility_uses_weighted_class_sizes():
    X, y = make_blobs(n_samples=[30, 30], centers=[[0, 0], [3, 3]], random_state=1)
    weights = np.where(y == 1, 0.5, 1.0)  # weighted sizes 30 and 15: nu <= 2 * 15 / 45
    with pytest.raises(ValueError, match=r"weighted sizes 30 and 15\): .* largest feasible nu .* is 0\.666667"):
        NuSVC(nu=0.7).fit(X, y, sample_weight=weights)
    NuSVC(nu=0.66).fit(X, y, sample_weight=weights)
    # class_weight multiplies the sample weights, with the same rule
    with pytest.raises(ValueError, match="weighted sizes 30 and 15"):
        NuSVC(nu=0.7, class_weight={1: 0.5}).fit(X, y)


def test_multiclass_feasibility_names_the_worst_pair():
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:50, 50:70, 100:150]  # 50, 20 and 50 samples
    with pytest.raises(ValueError, match=r"classes 0 and 1 \(weighted sizes 50 and 20\).*0\.571429"):
        NuSVC(nu=0.6).fit(X[keep], y[keep])
    with pytest.raises(ValueError, match=r"class 1 and the rest \(weighted sizes 20 and 100\).*0\.333333"):
        NuSVC(nu=0.4, multiclass="ovr").fit(X[keep], y[keep])


def test_too_small_nu_warns_that_the_problem_is_degenerate():
    """Below the smallest useful nu the optimum has w = 0 (heart_scale, linear kernel): r is 0 within tol."""
    X, y = DATASETS["heart_scale"]
    with pytest.warns(DegenerateNuWarning, match=r"nu=0.1 is about the smallest useful nu or below it for 1.0 against"):
        model = NuSVC(nu=0.1, kernel="linear").fit(X, y)
    assert abs(model.binary_models_[0].r) <= model.tol
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = NuSVC(nu=0.5, kernel="linear").fit(X, y)
    assert model.binary_models_[0].r > 1.0


def test_sample_weight_equals_repetition_and_class_weight():
    X, y = make_blobs(n_samples=[40, 40], centers=[[0, 0], [2, 2]], cluster_std=1.5, random_state=3)
    weights = np.where(y == 1, 2.0, 1.0)
    weighted = NuSVC(nu=0.4, gamma=0.5, tol=1e-10).fit(X, y, sample_weight=weights)
    repeated = NuSVC(nu=0.4, gamma=0.5, tol=1e-10).fit(np.vstack([X, X[y == 1]]), np.r_[y, y[y == 1]])
    by_class = NuSVC(nu=0.4, gamma=0.5, tol=1e-10, class_weight={1: 2.0}).fit(X, y)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-5)
    np.testing.assert_allclose(weighted.decision_function(X), by_class.decision_function(X), atol=1e-12)
    zero = np.ones(80)
    zero[:5] = 0.0
    dropped = NuSVC(nu=0.4, gamma=0.5, tol=1e-10).fit(X[5:], y[5:])
    np.testing.assert_allclose(
        NuSVC(nu=0.4, gamma=0.5, tol=1e-10).fit(X, y, sample_weight=zero).decision_function(X),
        dropped.decision_function(X),
        atol=1e-5,
    )


def test_precomputed_and_callable_kernels_equal_the_named_kernel():
    X, y = DATASETS["wine"]
    named = NuSVC(nu=0.3, gamma=0.2, tol=1e-8).fit(X, y)
    gram = RBFKernel(gamma=0.2)(X, X)
    pre = NuSVC(nu=0.3, kernel="precomputed", tol=1e-8).fit(gram, y)
    np.testing.assert_allclose(pre.decision_function(gram), named.decision_function(X), atol=1e-6)
    func = NuSVC(nu=0.3, kernel=RBFKernel(gamma=0.2), tol=1e-8).fit(X, y)
    np.testing.assert_allclose(func.decision_function(X), named.decision_function(X), atol=1e-6)


def test_one_vs_rest_and_binary_sign_convention():
    X, y = load_iris(return_X_y=True)
    ovr = NuSVC(nu=0.2, multiclass="ovr").fit(X, y)
    assert ovr.decision_function(X).shape == (150, 3)
    assert ovr.score(X, y) > 0.95
    binary = NuSVC(nu=0.3, tol=1e-8).fit(X[50:], y[50:])
    oracle = LibsvmNuSVC(nu=0.3, tol=1e-8).fit(X[50:], y[50:])
    np.testing.assert_allclose(binary.decision_function(X[50:]), oracle.decision_function(X[50:]), atol=1e-4)
    np.testing.assert_allclose(binary.intercept_, oracle.intercept_, atol=1e-4)
    # iris repeats a sample (rows 51 and 92 here): how their multiplier is split between
    # the two copies is not unique, so the sign convention is checked on the shared SVs
    ours = dict(zip(binary.support_, binary.dual_coef_[0]))
    theirs = dict(zip(oracle.support_, oracle.dual_coef_[0]))
    assert set(ours) ^ set(theirs) <= {51, 92}
    for s in set(ours) & set(theirs):
        assert np.sign(ours[s]) == np.sign(theirs[s])


@pytest.mark.parametrize(
    "params, message",
    [
        ({"nu": 0.0}, r"nu must be in \(0, 1\]"),
        ({"nu": 1.5}, r"nu must be in \(0, 1\]"),
        ({"nu": -0.2}, r"nu must be in \(0, 1\]"),
        ({"nu": "half"}, r"nu must be in \(0, 1\]"),
        ({"kernel": "laplacian"}, "Unknown kernel"),
        ({"probability": "yes"}, "probability must be True or False"),
        ({"multiclass": "crammer"}, "multiclass must be"),
    ],
)
def test_bad_input_raises_a_clear_error(params, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        NuSVC(**params).fit(X, y)


def _expected_failures(estimator):
    repetition = (
        "weights equal repetition only at the optimum (test_sample_weight_equals_repetition_and_class_weight "
        "checks it at tol=1e-10); at tol=1e-3 the check's 1e-7 tolerance is out of reach (scikit-learn marks it "
        "xfail for NuSVC too)"
    )
    failures = {
        "check_sample_weight_equivalence_on_dense_data": repetition,
        "check_sample_weight_equivalence_on_sparse_data": repetition,
        "check_class_weight_classifiers": (
            "class_weight multiplies the sample weights, and the check's class weights (1000 against 1e-4) make "
            "every nu above 2e-7 infeasible; scikit-learn's NuSVC ignores class_weight and marks this check xfail"
        ),
    }
    if estimator.probability:
        failures["check_classifiers_train"] = (
            "the check asks argmax(predict_proba) == predict: Platt scaling on cross-validated decision values "
            "disagrees near the boundary, as in LIBSVM (documented; predict_from_proba agrees by construction)"
        )
    return failures


# NuSVC(kernel='precomputed') is left out: the checks' small random Gram matrices make nu = 0.5 infeasible
# or too small (w = 0); test_precomputed_and_callable_kernels_equal_the_named_kernel covers that kernel.
# Several checks fit random labels, where nu = 0.5 is rightly reported degenerate.
@pytest.mark.filterwarnings("ignore::svmkit.svm.DegenerateNuWarning")
@parametrize_with_checks([NuSVC(), NuSVC(kernel="linear", probability=True)], expected_failed_checks=_expected_failures)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_docstring_examples_run():
    result = doctest.testmod(svmkit.svm._nu_svc, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_refits_are_identical_when_start_point_rows_are_never_moved():
    # nu-SVC starts with nonzero multipliers; some never move, and the gradient rebuild after
    # shrinking must still read computed kernel rows (regression: it read uninitialised memory)
    rng = np.random.RandomState(0)
    X = rng.normal(loc=100, size=(80, 2))
    y = rng.randint(low=0, high=2, size=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [NuSVC(kernel="linear").fit(X, y) for _ in range(3)]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.dual_coef_, fits[0].dual_coef_)
        np.testing.assert_array_equal(other.intercept_, fits[0].intercept_)
