"""Copies of one training point solved as one variable (svmkit._solver.duplicates): found
exactly, LIBSVM's optimum on the data as given, each multiplier on the point's first copies."""

import bz2
import logging
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, load_svmlight_file
from sklearn import svm as libsvm

import svmkit
from svmkit._solver.duplicates import first_copies
from test_svc_libsvm import libsvm_pair_objectives

DATA = Path(__file__).parent / "data"


def _a9a(rows):
    """The first ``rows`` rows of a9a (UCI Adult, 123 binary features): a fifth of its rows
    are copies of others."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    return sp.csr_matrix(X[:rows]), y[:rows]


def _naive_first_copies(X):
    A = X.toarray() if sp.issparse(X) else np.asarray(X)
    first = {}
    return np.array([first.setdefault(tuple(row), i) for i, row in enumerate(A)])


@pytest.mark.parametrize("layout", ["sparse", "dense"])
def test_first_copies_are_the_first_equal_rows(layout):
    X, _ = _a9a(6000)
    if layout == "dense":
        X = X.toarray()
    expected = _naive_first_copies(X)
    assert np.count_nonzero(expected != np.arange(6000)) == 476  # (the data have copies)
    np.testing.assert_array_equal(first_copies(X), expected)
    np.testing.assert_array_equal(first_copies(X, min_copies=476), expected)  # (as many rows could be copies)


def test_first_copies_are_none_where_fewer_rows_could_be_copies_than_asked():
    X = np.repeat(np.random.default_rng(0).normal(size=(5, 3)), [3, 1, 1, 1, 1], axis=0)  # (two copies of row 0)
    np.testing.assert_array_equal(first_copies(X, min_copies=2), [0, 0, 0, 3, 4, 5, 6])
    assert first_copies(X, min_copies=3) is None


def test_rows_that_differ_in_one_value_by_one_unit_in_the_last_place_are_not_copies():
    X = np.repeat(np.random.default_rng(0).normal(size=(1, 5)), 4, axis=0)
    X[2, 3] = np.nextafter(X[2, 3], np.inf)
    X[3] = -0.0 * X[3] + X[0]  # (the same values: a copy)
    np.testing.assert_array_equal(first_copies(X), [0, 0, 2, 0])


def test_a_fit_on_data_with_copies_is_libsvm_s_with_each_multiplier_on_first_copies(caplog):
    """a9a's first 6,000 rows (8% copies), RBF: LIBSVM's dual objective and decisions; of the
    copies of a point with one label, the multipliers fill the first ones in order, each up to C."""
    X, y = _a9a(6000)
    C, gamma = 1.0, 0.05
    with caplog.at_level(logging.INFO, logger="svmkit"):
        ours = svmkit.SVC(C=C, gamma=gamma, verbose=True).fit(X, y)
    dense = X.toarray()  # (for LIBSVM: its dual_coef_ an array)
    oracle = libsvm.SVC(C=C, gamma=gamma).fit(dense, y)
    n_points = len({(tuple(row), label) for row, label in zip(X.toarray(), y)})
    assert f"6000 variables on copies of points merged into {n_points}" in caplog.text
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(oracle, dense, "rbf", {"gamma": gamma}),
                               rtol=1e-5)
    np.testing.assert_allclose(ours.decision_function(X), oracle.decision_function(dense), atol=2e-3)
    alpha = np.zeros(6000)
    alpha[ours.support_] = np.abs(ours.dual_coef_[0])
    first = _naive_first_copies(np.column_stack([dense, y]))
    for point in np.flatnonzero(np.bincount(first) > 1):
        copies = alpha[first == point]
        assert np.all(np.diff(copies) <= 0)  # (in order)
        assert np.count_nonzero((copies > 0) & (copies < C)) <= 1  # (each full but the last)


def _iris_with_copies():
    X, y = load_iris(return_X_y=True)
    return np.vstack([X, X[::3]]), np.concatenate([y, y[::3]])  # (a quarter of the rows copies)


@pytest.mark.parametrize("ours, oracle", [
    (svmkit.SVC(C=10.0, gamma=0.5), libsvm.SVC(C=10.0, gamma=0.5)),
    (svmkit.NuSVC(nu=0.3, gamma=0.5), libsvm.NuSVC(nu=0.3, gamma=0.5)),
    (svmkit.OneClassSVM(nu=0.2, gamma=0.5), libsvm.OneClassSVM(nu=0.2, gamma=0.5)),
    (svmkit.SVR(C=10.0, epsilon=0.1, gamma=0.5), libsvm.SVR(C=10.0, epsilon=0.1, gamma=0.5)),
    (svmkit.NuSVR(C=10.0, nu=0.3, gamma=0.5), libsvm.NuSVR(C=10.0, nu=0.3, gamma=0.5)),
], ids=["SVC", "NuSVC", "OneClassSVM", "SVR", "NuSVR"])
def test_every_formulation_on_data_with_copies_gives_libsvm_s_decisions(ours, oracle):
    # (tol 1e-6: at LIBSVM's 1e-3 its own SVR decisions move by 7e-3)
    ours.set_params(tol=1e-6)
    oracle.set_params(tol=1e-6)
    X, y = _iris_with_copies()
    if isinstance(ours, (svmkit.SVR, svmkit.NuSVR)):
        X, y = X[:, :3], X[:, 3]  # (petal width from the other measurements)
    ours.fit(X, y)
    oracle.fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X) if hasattr(ours, "decision_function") else ours.predict(X),
                               oracle.decision_function(X) if hasattr(oracle, "decision_function")
                               else oracle.predict(X), atol=1e-4)


def test_copies_with_weights_are_one_point_with_their_summed_weight():
    """Weight as repetition: the copies of a point (weights 1 and 2) give the fit of the
    point once with weight 3."""
    X, y = load_iris(return_X_y=True)
    weights = np.ones(150)
    weights[::3] = 3.0
    once = svmkit.SVC(C=10.0, gamma=0.5).fit(X, y, sample_weight=weights)
    copies = svmkit.SVC(C=10.0, gamma=0.5).fit(np.vstack([X, X[::3]]), np.concatenate([y, y[::3]]),
                                               sample_weight=np.concatenate([np.ones(150), np.full(50, 2.0)]))
    np.testing.assert_allclose(copies.dual_objective_, once.dual_objective_, rtol=1e-9)
    np.testing.assert_allclose(copies.decision_function(X), once.decision_function(X), atol=1e-7)
