"""Decision values of the kernel machines (svmkit.svm._decisions): float32 dot products where
the data's values lie on a grid that makes them exact (binary and count features), float64
ones elsewhere; both against the kernels' formulas (tests/naive.py)."""

import bz2
import doctest
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from svmkit import SVC, SVR
from svmkit._core.kernels import POLYNOMIAL, RBF
from svmkit._plan import EXACT_FLOAT32_MIN_SUPPORT
from svmkit.svm import _decisions
from naive import kernel_by_formula

DATA = Path(__file__).parent / "data"


def _a9a():
    """a9a's first 21,000 rows (UCI Adult, 123 binary features)."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    return X.toarray(), y


def _binary_model(X, y, estimator):
    """An RBF model of a9a's rows with more support vectors than EXACT_FLOAT32_MIN_SUPPORT."""
    model = estimator(C=1.0, gamma=0.05).fit(X[:3500], y[:3500])
    assert model.support_vectors_.shape[0] >= EXACT_FLOAT32_MIN_SUPPORT
    return model


def _decisions_by_formula(model, X, code, gamma, coef0=0.0, degree=3.0):
    """The decision values of a fitted one-function model from the kernel's formula, and the
    sum of the magnitudes of their terms (the scale of their round-off)."""
    K = kernel_by_formula(code, gamma, coef0, degree, X, model.support_vectors_)
    terms = K * model.dual_coef_[0]
    return terms.sum(axis=1) + model.intercept_[0], np.abs(terms).sum(axis=1) + abs(model.intercept_[0])


def _assert_agrees_with_formula(model, X, code, gamma, coef0=0.0, degree=3.0):
    checked = X[::25]  # (the formula one pair at a time: a sample of the rows)
    checked = checked.toarray() if sp.issparse(checked) else checked
    expected, scale = _decisions_by_formula(model, checked, code, gamma, coef0, degree)
    ours = (model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X))[::25]
    # (float32 products that were not exact would be off by about 1e-8 of the scale)
    assert np.max(np.abs(ours - expected) / scale) < 1e-13


def test_module_docstring_examples():
    result = doctest.testmod(_decisions)
    assert result.attempted > 0 and result.failed == 0


def test_binary_features_are_predicted_as_in_float64():
    """a9a's binary features, flipped (89% ones, so that the rows stay dense): support vectors
    and test rows on the grid of integers, so the products are taken in float32; 4,000 test
    rows against as many support vectors as make the float32 products pay, in blocks spread
    over threads."""
    X, y = _a9a()
    model = _binary_model(1.0 - X, y, SVC)
    _assert_agrees_with_formula(model, 1.0 - X[5000:9000], RBF, 0.05)


def test_dense_rows_of_few_nonzeros_are_predicted_over_their_nonzeros_as_in_float64():
    """a9a's rows as a dense array (11% nonzeros): made sparse for the compiled products."""
    X, y = _a9a()
    model = _binary_model(X, y, SVC)
    _assert_agrees_with_formula(model, X[5000:9000], RBF, 0.05)


def test_sparse_test_rows_are_predicted_over_their_nonzeros_as_in_float64():
    """a9a's rows as CSR (11% nonzeros): their products with the dense support vectors in
    compiled code over their nonzeros."""
    X, y = _a9a()
    model = _binary_model(X, y, SVC)
    _assert_agrees_with_formula(model, sp.csr_matrix(X[5000:9000]), RBF, 0.05)


def test_test_rows_off_the_grid_of_binary_support_vectors_are_predicted_in_float64():
    X, y = _a9a()
    model = _binary_model(X, y, SVC)
    _assert_agrees_with_formula(model, X[5000:9000] + 1.0 / 3.0, RBF, 0.05)


def test_quarters_are_predicted_as_in_float64():
    """Values on a grid of 1/4 (binary features halved and shifted): exact in float32 too."""
    X, y = _a9a()
    X = X * 0.5 - 0.25
    model = _binary_model(X, y, SVR)
    _assert_agrees_with_formula(model, X[5000:9000], RBF, 0.05)


@pytest.mark.parametrize("largest", [15, 3000])
def test_counts_are_predicted_as_in_float64_whatever_their_size(largest):
    """Integer counts: products up to 10 x 15 x 15 are exact in float32; up to 10 x 3000 x 3000
    (above 2^24) they are not, and are taken in float64."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, largest + 1, size=(4000, 10)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, largest + 1, size=4000) > 1.5 * largest).astype(np.float64)
    gamma = 1.0 / (10 * largest**2)
    model = SVC(kernel="poly", degree=2, gamma=gamma, coef0=1.0, C=1.0).fit(X, y)
    assert model.support_vectors_.shape[0] >= EXACT_FLOAT32_MIN_SUPPORT
    _assert_agrees_with_formula(model, X, POLYNOMIAL, gamma, 1.0, 2.0)
