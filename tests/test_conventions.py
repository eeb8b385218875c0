"""Parameters that follow scikit-learn's conventions: break_ties, sample_weight of the
perceptrons and Pegasos, var_smoothing=0, min_categories."""

import numpy as np
import pytest
from sklearn import svm as sklearn_svm
from sklearn.datasets import load_iris

from svmkit import SVC, NuSVC


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
