"""Perceptron and KernelPerceptron: the seed's algorithm, its kernel/primal correspondence, SVC's layout."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_blobs
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmkit.kernels import KernelPolynomial, LinearKernel, RBFKernel
from svmkit.kernels import resolve_gamma
from svmkit.perceptron import KernelPerceptron, Perceptron

XOR_X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
XOR_Y = np.array([1, 1, -1, -1])


def degree_2_features(U):
    """The seed's Phi(u) = (u1^2, u2^2, sqrt2 u1, sqrt2 u2, sqrt2 u1 u2, 1): Phi(u)'Phi(v) = (u'v + 1)^2."""
    u1, u2 = U[:, 0], U[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([u1**2, u2**2, r2 * u1, r2 * u2, r2 * u1 * u2, np.ones(len(U))])


def separable_blobs():
    X, y = make_blobs(n_samples=80, centers=[[-2.0, -2.0], [2.0, 2.0]], cluster_std=0.8, random_state=0)
    return X, y


@pytest.mark.parametrize("model", [Perceptron(), KernelPerceptron(kernel="linear"), KernelPerceptron()])
def test_zero_training_errors_on_separable_data(model):
    X, y = separable_blobs()
    model.fit(X, y)
    assert_array_equal(model.predict(X), y)
    assert model.n_iter_ < model.max_iter


def test_xor_is_solved_by_the_degree_2_kernel():
    model = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(XOR_X, XOR_Y)
    assert_array_equal(model.predict(XOR_X), XOR_Y)
    # Sweep 1: mistakes on x1, x3, x4; sweep 2: on x2; sweep 3: none.
    assert_array_equal(model.alpha_, [[1, 1, 1, 1]])
    assert model.n_iter_ == 3
    assert_array_equal(model.support_, [0, 1, 2, 3])
    assert_allclose(model.dual_coef_, [[1.0, 1.0, -1.0, -1.0]])
    assert_allclose(model.intercept_, [0.0])
    assert_allclose(model.decision_function(XOR_X), [8.0, 8.0, -8.0, -8.0])


def test_xor_is_not_linearly_separable():
    with pytest.warns(ConvergenceWarning, match="not separable"):
        model = Perceptron(max_iter=50).fit(XOR_X, XOR_Y)
    assert model.n_iter_ == 50


def test_kernel_perceptron_is_the_primal_perceptron_on_the_feature_map():
    # Points labelled by a circle: separable by the degree-2 kernel, not by a line.
    rng = np.random.default_rng(4)
    X = rng.uniform(-1.5, 1.5, size=(60, 2))
    radius = np.hypot(X[:, 0], X[:, 1])
    keep = np.abs(radius - 1.0) > 0.15
    X, y = X[keep], np.where(radius[keep] < 1.0, 1, -1)
    kernel_model = KernelPerceptron(kernel=KernelPolynomial(LinearKernel(), [1.0, 2.0, 1.0])).fit(X, y)
    primal_model = Perceptron(eta=1.0, fit_intercept=True).fit(degree_2_features(X), y)
    assert kernel_model.n_iter_ == primal_model.n_iter_ < 1000
    assert_array_equal(kernel_model.alpha_, primal_model.alpha_)
    assert kernel_model.alpha_.sum() > 10  # a real run, not a lucky first sweep
    # w = sum alpha c Phi(x) and b = sum alpha c.
    assert_allclose(primal_model.coef_[0], kernel_model.dual_coef_[0] @ degree_2_features(X[kernel_model.support_]))
    assert_allclose(primal_model.intercept_, kernel_model.intercept_)
    X_test = rng.uniform(-1.5, 1.5, size=(200, 2))
    assert_allclose(
        kernel_model.decision_function(X_test),
        primal_model.decision_function(degree_2_features(X_test)),
        rtol=1e-10,
        atol=1e-9,
    )
    assert_array_equal(kernel_model.predict(X_test), primal_model.predict(degree_2_features(X_test)))
    assert_array_equal(kernel_model.predict(X), y)


def test_named_kernel_equals_the_kernel_object():
    X, y = separable_blobs()
    named = KernelPerceptron(kernel="rbf", gamma=0.5).fit(X, y)
    explicit = KernelPerceptron(kernel=RBFKernel(gamma=0.5)).fit(X, y)
    assert_array_equal(named.alpha_, explicit.alpha_)
    assert named.kernel_ == RBFKernel(gamma=0.5)


def test_callable_kernel():
    X, y = separable_blobs()
    model = KernelPerceptron(kernel=lambda A, B: A @ B.T).fit(X, y)
    reference = KernelPerceptron(kernel="linear").fit(X, y)
    assert_array_equal(model.alpha_, reference.alpha_)


def test_layout_matches_sklearn_svc_binary_and_multiclass():
    X, y = load_iris(return_X_y=True)
    for labels in (np.where(y == 0, "setosa", "other"), y):
        with warnings.catch_warnings():  # iris' versicolor/virginica overlap: not separated in 200 sweeps
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=200).fit(X, labels)
        svc = SVC(kernel="rbf", gamma=0.5).fit(X, labels)
        n_problems = 1 if np.unique(labels).size == 2 else 3
        assert model.dual_coef_.shape == (n_problems, model.support_.size)
        assert svc.dual_coef_.shape[1] == svc.support_.size  # the same convention: one column per SV
        assert_array_equal(model.support_vectors_, X[model.support_])
        assert_array_equal(model.classes_, svc.classes_)
        manual = RBFKernel(gamma=0.5)(X, model.support_vectors_) @ model.dual_coef_.T + model.intercept_
        assert_allclose(model.decision_function(X), manual.ravel() if n_problems == 1 else manual)
        assert model.decision_function(X).shape == svc.decision_function(X).shape
        # dual_coef_ = alpha * c on the support vectors; the bias is their sum.
        assert_allclose(model.intercept_, model.dual_coef_.sum(axis=1))
        assert np.all(model.alpha_[:, model.support_].sum(axis=0) > 0)
    # Binary: positive decision values mean classes_[1], as in SVC.
    assert np.mean(model.predict(X) == y) > 0.9


def test_binary_sign_convention():
    X, y = separable_blobs()
    labels = np.where(y == 1, "b", "a")
    model = KernelPerceptron(kernel="linear").fit(X, labels)
    scores = model.decision_function(X)
    assert_array_equal(scores > 0, labels == "b")
    primal = Perceptron().fit(X, labels)
    assert_array_equal(primal.decision_function(X) > 0, labels == "b")


def test_dense_and_csr_give_the_same_models():
    X, y = separable_blobs()
    X = np.c_[X, np.zeros((len(X), 3))]
    for make in (Perceptron, lambda: KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0)):
        dense, sparse = make().fit(X, y), make().fit(sp.csr_matrix(X), y)
        assert_array_equal(dense.alpha_, sparse.alpha_)
        assert_allclose(dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X)))


def test_gamma_scale_and_auto_follow_sklearn():
    rng = np.random.default_rng(0)
    X = rng.normal(scale=3.0, size=(50, 4)) * (rng.random((50, 4)) < 0.4)
    assert resolve_gamma("scale", X) == pytest.approx(1.0 / (4 * X.var()))
    assert resolve_gamma("scale", sp.csr_matrix(X)) == pytest.approx(1.0 / (4 * X.var()))
    assert resolve_gamma("auto", X) == 0.25
    assert resolve_gamma(0.3, X) == 0.3
    assert resolve_gamma("scale", np.ones((3, 2))) == 1.0
    y = np.where(X[:, 0] > 0, 1, 0)
    model = KernelPerceptron(kernel="rbf").fit(X, y)
    assert model.kernel_.gamma == pytest.approx(SVC(kernel="rbf").fit(X, y)._gamma)


def test_multiclass_one_vs_rest_on_separable_blobs():
    X, y = make_blobs(n_samples=90, centers=[[-4, 0], [4, 0], [0, 6]], cluster_std=0.7, random_state=1)
    for model in (Perceptron(), KernelPerceptron(kernel="linear")):
        model.fit(X, y)
        assert_array_equal(model.predict(X), y)
        assert model.alpha_.shape == (3, 90)
    assert Perceptron().fit(X, y).coef_.shape == (3, 2)


def test_learning_rate_scales_the_primal_weights():
    X, y = separable_blobs()
    unit = Perceptron(eta=1.0).fit(X, y)
    tenth = Perceptron(eta=0.1).fit(X, y)
    assert_array_equal(unit.alpha_, tenth.alpha_)  # with b updated by eta too, the run only rescales
    assert_allclose(tenth.coef_, 0.1 * unit.coef_)
    assert_allclose(tenth.intercept_, 0.1 * unit.intercept_)


@pytest.mark.parametrize(
    "model,X,y,message",
    [
        (Perceptron(eta=0.0), [[0.0], [1.0]], [0, 1], "eta must be"),
        (Perceptron(max_iter=0), [[0.0], [1.0]], [0, 1], "max_iter must be"),
        (Perceptron(), [[0.0], [np.nan]], [0, 1], "NaN"),
        (Perceptron(), [[0.0], [1.0]], [1, 1], "2 classes"),
        (KernelPerceptron(kernel="cosine"), [[0.0], [1.0]], [0, 1], "kernel must be"),
        (KernelPerceptron(gamma=-1.0), [[0.0], [1.0]], [0, 1], "gamma must be"),
        (KernelPerceptron(gamma="big"), [[0.0], [1.0]], [0, 1], "gamma must be"),
        (KernelPerceptron(kernel="poly", degree=0), [[0.0], [1.0]], [0, 1], "degree must be"),
        (KernelPerceptron(), [[0.0], [np.inf]], [0, 1], "infinity"),
        (KernelPerceptron(), [[0.0], [1.0]], [1, 1], "2 classes"),
    ],
)
def test_bad_input_raises_clear_errors(model, X, y, message):
    with pytest.raises(ValueError, match=message):
        model.fit(np.array(X), np.array(y))


@pytest.mark.parametrize("model", [Perceptron(), KernelPerceptron()])
def test_predict_checks_fit_and_n_features(model):
    X, y = separable_blobs()
    with pytest.raises(NotFittedError):
        model.predict(X)
    model.fit(X, y)
    with pytest.raises(ValueError, match="X has 1 features"):
        model.predict(X[:, :1])


@parametrize_with_checks(
    [Perceptron(), KernelPerceptron()],
    expected_failed_checks=lambda estimator: {
        check: "a weight of 2 doubles the update of a mistake, which a repeated sample does not (its copy "
        "is then often right), as in scikit-learn's Perceptron; tests/test_conventions.py checks the "
        "weighted updates against scikit-learn's"
        for check in ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data")
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
