"""Fits on the rows of a precomputed kernel's matrix, copied by the solver as it asks for them.

One-vs-one fits above _ONE_VS_ONE_ALL_ROWS rows: each pair solved in a compiled call on the rows of
the user's Gram matrix that its solver asks for (in groups of pairs on worker threads where they are
many), not on each pair's whole Gram matrix gathered and solved from Python. The full-Gram solver
of one problem (two-class fits of more than 724 rows, nu-SVC, one-class) copies the rows of the
user's matrix itself too, with no return to Python for them.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibsvmSVC

from compiled_doctests import run_docstring_examples
import svmkit._solver as solver_module
from svmkit import SVC, NuSVC, OneClassSVM
from svmkit._core.pairs import solve_c_svc_pairs_on_gram_rows, solve_pairs_on_gram_rows
from svmkit.kernels import RBFKernel
from test_pairs_on_own_rows import assert_groups_are_the_pairs_in_one_call
from test_svc_libsvm import libsvm_pair_objectives


def _rbf_gram(n_samples, n_classes, gamma=0.05, seed=0):
    X, y = make_classification(n_samples=n_samples, n_features=10, n_informative=6, n_classes=n_classes,
                               n_clusters_per_class=1, flip_y=0.05, random_state=seed)
    return X, RBFKernel(gamma=gamma)(X, X), y


def test_precomputed_fits_of_more_rows_take_the_rows_of_the_users_matrix(pair_solver_calls):
    """Above _ONE_VS_ONE_ALL_ROWS rows the pairs of a precomputed kernel are solved on the rows
    of its matrix; at most that many rows, on the Gram matrix of all rows as before; a read-only
    matrix (other compiled code) and pairs too large for a float64 matrix of their own keep the
    problems solved one by one, with the same solutions."""
    _, gram, y = _rbf_gram(300, 3)
    on_rows = SVC(kernel="precomputed", tol=1e-6).fit(gram, y)
    SVC(kernel="precomputed").fit(gram[:200, :200], y[:200])
    assert pair_solver_calls == [("gram rows", "float64"), ("all rows", "float64")]
    read_only = gram.copy()
    read_only.flags.writeable = False
    pair_solver_calls.clear()
    one_by_one = SVC(kernel="precomputed", tol=1e-6).fit(read_only, y)
    assert pair_solver_calls == []
    np.testing.assert_allclose(on_rows.dual_objective_, one_by_one.dual_objective_, rtol=1e-9)
    np.testing.assert_allclose(on_rows.decision_function(gram), one_by_one.decision_function(gram), atol=1e-6)
    _, large, y_large = _rbf_gram(1600, 3)  # pairs of some 1,070 rows: float32 matrices
    with pytest.warns(ConvergenceWarning):
        SVC(kernel="precomputed", max_iter=50).fit(large, y_large)
    assert pair_solver_calls == []


def test_pairs_on_gram_rows_are_the_named_kernels_fit():
    """The precomputed RBF matrix fits as the RBF kernel itself does (its pairs on the kernel
    rows of the class strips), solved to a small tol, with sample weights (zeros too) and
    class weights."""
    X, gram, y = _rbf_gram(400, 4)
    weights = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 2.0], size=y.shape[0])
    settings = dict(C=2.0, tol=1e-8, class_weight="balanced")
    precomputed = SVC(kernel="precomputed", **settings).fit(gram, y, sample_weight=weights)
    named = SVC(kernel="rbf", gamma=0.05, **settings).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(precomputed.dual_objective_, named.dual_objective_, rtol=1e-8)
    np.testing.assert_allclose(precomputed.decision_function(gram), named.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(precomputed.predict(gram), named.predict(X))


@pytest.mark.parametrize("estimator", [SVC(kernel="precomputed", C=2.0), SVC(kernel="precomputed", max_iter=15)],
                         ids=["default", "max_iter"])
def test_groups_of_pairs_on_worker_threads_are_the_pairs_in_one_call(monkeypatch, pair_solver_calls, estimator):
    """From _PARALLEL_PAIR_VALUES Gram matrix values the pairs are solved in groups of
    consecutive pairs on n_jobs workers (one compiled call a group); the fit is that of one
    call (n_jobs=1), bit for bit, its warnings too."""
    _, gram, y = _rbf_gram(500, 5)
    assert_groups_are_the_pairs_in_one_call(monkeypatch, pair_solver_calls, estimator, gram, y, "gram rows")


def test_digits_precomputed_rbf_agrees_with_libsvm(pair_solver_calls):
    """Digits (1,797 rows, 10 classes), an RBF matrix, on two threads: the dual objectives within
    1e-6 of LIBSVM's (scikit-learn's SVC on the same matrix), the same support vectors and
    predictions."""
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    gram = RBFKernel(gamma=0.05)(X, X)
    ours = SVC(kernel="precomputed", n_jobs=2).fit(gram, y)
    libsvm = LibsvmSVC(kernel="precomputed").fit(gram, y)
    assert set(pair_solver_calls) == {("group of gram rows", "float64")}
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(libsvm, X, "rbf", {"gamma": 0.05}),
                               rtol=1e-6)
    np.testing.assert_array_equal(ours.n_support_, libsvm.n_support_)
    np.testing.assert_array_equal(ours.predict(gram), libsvm.predict(gram))


@pytest.mark.parametrize("estimator", [SVC(kernel="precomputed", C=2.0, tol=1e-6), NuSVC(kernel="precomputed", nu=0.3, tol=1e-6),
                                       OneClassSVM(kernel="precomputed", nu=0.2, tol=1e-6)], ids=["svc", "nu-svc", "one-class"])
def test_one_problems_full_gram_solver_copies_the_users_rows_itself(monkeypatch, estimator):
    """Two-class C-SVC, nu-SVC and one-class fits of 900 rows (float32 rows; nu-SVC and one-class
    start with support vectors whose rows are computed in Python): the solver copies every other
    row it asks for from the user's matrix itself, to the optimum of a read-only copy of that
    matrix, whose rows come from Python (other compiled code; float32 rows copied there as here)."""
    X, gram, y = _rbf_gram(900, 2)
    read_only = gram.copy()
    read_only.flags.writeable = False
    from_python = clone(estimator).fit(read_only, y)
    copies = []
    original = solver_module._fill_rows
    monkeypatch.setattr(solver_module, "_fill_rows", lambda K, slot, n_filled, block, rows:
                        copies.append(rows.shape[0]) or original(K, slot, n_filled, block, rows))
    ours = clone(estimator).fit(gram, y)
    assert len(copies) == (0 if type(estimator) is SVC else 1)  # (the start support vectors' rows)
    np.testing.assert_allclose(ours.dual_objective_, from_python.dual_objective_, rtol=1e-6)
    np.testing.assert_allclose(ours.decision_function(gram), from_python.decision_function(gram), atol=1e-3)


@pytest.mark.parametrize("function", [solve_c_svc_pairs_on_gram_rows, solve_pairs_on_gram_rows])
def test_compiled_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0
