"""Parameters that follow scikit-learn's conventions: break_ties, sample_weight of the
perceptrons and Pegasos, var_smoothing=0, min_categories."""

import io

import numpy as np
import pandas as pd
import pytest
from sklearn import linear_model as sklearn_linear
from sklearn import naive_bayes as sklearn_nb
from sklearn import svm as sklearn_svm
from sklearn.datasets import load_iris, make_blobs

import svmkit
from svmkit import SVC, CategoricalNB, GaussianNB, KernelPerceptron, LinearSVC, NuSVC, PegasosSVC, Perceptron


def tied_iris():
    """Two features of iris and test points spread over the plane, among which some tie
    three ways in one-vs-one votes (each class wins one pair)."""
    X, y = load_iris(return_X_y=True)
    X = X[:, :2]
    grid = np.stack(np.meshgrid(np.linspace(4, 8, 60), np.linspace(1.5, 4.5, 60)), axis=-1).reshape(-1, 2)
    return X, y, grid


def test_break_ties_predicts_as_scikit_learn():
    X, y, grid = tied_iris()
    # (a tight tol: the same boundaries to many digits, so that no point near one flips)
    model = SVC(kernel="linear", break_ties=True, tol=1e-10).fit(X, y)
    reference = sklearn_svm.SVC(kernel="linear", break_ties=True, tol=1e-10).fit(X, y)
    votes = model.decision_function(grid)  # votes + confidences in (-1/3, 1/3)
    tied = np.all(np.abs(np.round(votes) - 1) < 1e-12, axis=1)
    assert tied.sum() > 10  # three-way ties exist, so that break_ties matters
    broken = model.predict(grid)
    plain = model.set_params(break_ties=False).predict(grid)
    np.testing.assert_array_equal(broken, reference.predict(grid))
    np.testing.assert_array_equal(plain, reference.set_params(break_ties=False).predict(grid))
    assert np.any(broken[tied] != plain[tied]) and np.array_equal(broken[~tied], plain[~tied])


def test_nu_svc_breaks_ties_by_its_one_vs_rest_scores():
    X, y, grid = tied_iris()
    model = NuSVC(kernel="linear", nu=0.7, break_ties=True).fit(X, y)
    scores = model.decision_function(grid)
    tied = np.all(np.abs(np.round(scores) - 1) < 1e-12, axis=1)
    assert tied.sum() >= 5
    broken = model.predict(grid)
    plain = model.set_params(break_ties=False).predict(grid)
    np.testing.assert_array_equal(broken, model.classes_[np.argmax(scores, axis=1)])
    assert np.any(broken[tied] != plain[tied]) and np.array_equal(broken[~tied], plain[~tied])


def test_break_ties_needs_ovr_shape():
    X, y, _ = tied_iris()
    with pytest.raises(ValueError, match="break_ties must be False when decision_function_shape is 'ovo'"):
        SVC(break_ties=True, decision_function_shape="ovo").fit(X, y)
    model = SVC(decision_function_shape="ovo").fit(X, y).set_params(break_ties=True)
    with pytest.raises(ValueError, match="break_ties must be False"):
        model.predict(X)


# -- naive Bayes -------------------------------------------------------------------------------


def test_gaussian_nb_accepts_var_smoothing_zero_as_scikit_learn():
    X, y = load_iris(return_X_y=True)
    ours = GaussianNB(var_smoothing=0, ddof=0).fit(X, y)
    theirs = sklearn_nb.GaussianNB(var_smoothing=0).fit(X, y)
    assert ours.epsilon_ == theirs.epsilon_ == 0.0
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-9, atol=1e-9)


def test_var_smoothing_zero_with_a_constant_column_is_refused():
    X, y = load_iris(return_X_y=True)
    X = np.column_stack([X, np.where(y == 1, 2.0, X[:, 0])])  # column 4 constant in class 1
    with pytest.raises(ValueError, match=r"var_smoothing=0 leaves Gaussian column 4 a variance of 0 in class 1"):
        GaussianNB(var_smoothing=0).fit(X, y)
    assert np.all(np.isfinite(GaussianNB().fit(X, y).predict_log_proba(X)))


def absent_category():
    """Integer codes 0-3 in the first column, 0-2 in the second; code 3 of the first never
    occurs in training but does at prediction."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 40), rng.integers(0, 3, 40)])
    y = (X[:, 0] + rng.integers(0, 2, 40) > 1).astype(int)
    X_test = np.array([[3, 0], [3, 2], [1, 1], [0, 2]])
    return X, y, X_test


@pytest.mark.parametrize("min_categories", [4, [4, 3], np.array([4, 2])])
def test_min_categories_as_scikit_learn(min_categories):
    X, y, X_test = absent_category()
    ours = CategoricalNB(min_categories=min_categories).fit(X, y)
    theirs = sklearn_nb.CategoricalNB(min_categories=min_categories).fit(X, y)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=1e-12)
    without = CategoricalNB().fit(X, y).predict_proba(X_test)
    assert not np.allclose(without, theirs.predict_proba(X_test))  # (the declared category matters)


def test_pandas_categorical_dtype_declares_the_categories():
    X, y, X_test = absent_category()
    dtype = pd.CategoricalDtype([0, 1, 2, 3])
    frame = pd.DataFrame({"a": pd.Series(X[:, 0]).astype(dtype), "b": pd.Series(X[:, 1]).astype("category")})
    test = pd.DataFrame({"a": pd.Series(X_test[:, 0]).astype(dtype), "b": pd.Series(X_test[:, 1]).astype("category")})
    ours = CategoricalNB().fit(frame, y)
    theirs = sklearn_nb.CategoricalNB(min_categories=[4, 3]).fit(X, y)
    assert ours.categories_[0].tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(ours.predict_proba(test), theirs.predict_proba(X_test), rtol=1e-12)


def test_bad_min_categories():
    X, y, _ = absent_category()
    for value in (0, 2.5, [4, 3, 2], "4"):
        with pytest.raises(ValueError, match="min_categories must be None, an integer >= 1 or one per column"):
            CategoricalNB(min_categories=value).fit(X, y)


def test_the_nan_error_points_to_svmkits_naive_bayes():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[3, 1] = np.nan
    for model in (SVC(), LinearSVC(), Perceptron()):
        with pytest.raises(ValueError, match=r"Input X contains NaN\.\n.* svmkit's naive Bayes classifiers") as error:
            model.fit(X, y)
        assert "HistGradientBoosting" not in str(error.value)
    assert GaussianNB().fit(X, y).predict(X[:5]).shape == (5,)  # (which fits)


# -- sample_weight of the perceptrons and Pegasos ------------------------------------------------


def separable_blobs():
    X, y = make_blobs(n_samples=60, centers=[[-2.0, -1.0], [2.0, 1.5]], cluster_std=0.8, random_state=3)
    weights = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 3.0], size=60)
    return X, y, weights


def test_weighted_perceptron_is_scikit_learns():
    X, y, weights = separable_blobs()
    ours = Perceptron().fit(X, y, sample_weight=weights)
    theirs = sklearn_linear.Perceptron(shuffle=False, tol=None, max_iter=ours.n_iter_ + 5, eta0=1.0)
    theirs.fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-12)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-12)
    assert not np.allclose(Perceptron().fit(X, y).coef_, ours.coef_)  # (the weights matter)


def test_perceptron_weight_zero_leaves_the_row_out_and_a_common_factor_scales_w():
    X, y, weights = separable_blobs()
    weighted = Perceptron().fit(X, y, sample_weight=weights)
    kept = weights > 0
    alone = Perceptron().fit(X[kept], y[kept], sample_weight=weights[kept])
    np.testing.assert_array_equal(weighted.coef_, alone.coef_)
    np.testing.assert_array_equal(weighted.alpha_[:, kept], alone.alpha_)
    assert np.all(weighted.alpha_[:, ~kept] == 0)
    doubled = Perceptron().fit(X, y, sample_weight=2 * weights)
    np.testing.assert_allclose(doubled.coef_, 2 * weighted.coef_, rtol=1e-12)
    np.testing.assert_array_equal(doubled.alpha_, weighted.alpha_)


def test_weighted_kernel_perceptron_with_the_linear_kernel_is_the_weighted_perceptron():
    X, y, weights = separable_blobs()
    dual = KernelPerceptron(kernel="linear").fit(X, y, sample_weight=weights)
    primal = Perceptron().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(dual.alpha_, primal.alpha_)
    np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dual.dual_coef_[0], (primal.alpha_[0] * weights * np.where(y == 1, 1, -1))[dual.support_])


def hinge_objective(model, X, y, C, weights):
    """``1/2 ||w||^2 + C sum s_i max(0, 1 - y_i f(x_i))`` with the intercept regularised
    (PegasosSVC's and LinearSVC's intercept is the weight of a constant feature)."""
    w = np.append(model.coef_.ravel(), model.intercept_)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    return 0.5 * w @ w + C * weights @ np.maximum(0.0, 1.0 - signs * model.decision_function(X))


def test_weighted_pegasos_minimises_the_weighted_objective():
    X, y = load_iris(return_X_y=True)
    X, y = X[50:, :2], y[50:]  # versicolor against virginica: overlapping classes
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    weights = np.where(y == 2, 4.0, 0.5)
    reference = LinearSVC(C=1.0, loss="hinge", tol=1e-8, max_iter=10_000).fit(X, y, sample_weight=weights)
    optimum = hinge_objective(reference, X, y, 1.0, weights)
    pegasos = PegasosSVC(C=1.0, max_iter=300, average=True, random_state=0).fit(X, y, sample_weight=weights)
    unweighted = PegasosSVC(C=1.0, max_iter=300, average=True, random_state=0).fit(X, y)
    assert optimum <= hinge_objective(pegasos, X, y, 1.0, weights) < 1.06 * optimum  # (SGD: near the optimum)
    assert hinge_objective(unweighted, X, y, 1.0, weights) > 2 * optimum
    ones = PegasosSVC(C=1.0, max_iter=20, random_state=0).fit(X, y, sample_weight=np.ones(100))
    np.testing.assert_array_equal(ones.coef_, PegasosSVC(C=1.0, max_iter=20, random_state=0).fit(X, y).coef_)


def test_min_categories_survive_saving():
    X, y, X_test = absent_category()
    model = CategoricalNB(min_categories=[4, 3]).fit(X, y)
    buffer = io.BytesIO()
    svmkit.save(model, buffer)
    loaded = svmkit.load(io.BytesIO(buffer.getvalue()))
    np.testing.assert_array_equal(loaded.n_categories_, [4, 3])
    np.testing.assert_array_equal(loaded.predict_proba(X_test), model.predict_proba(X_test))
