"""One-vs-one fits with the linear kernel on dense data of up to _OWN_ROWS_LINEAR_FEATURES
features: each pair solved on the kernel rows that its compiled call computes (in groups of
pairs on worker threads where they are many), not on class strips."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibsvmSVC

import svmkit._class_blocks as class_blocks_module
import svmkit.svm._svc as svc_module
from compiled_doctests import run_docstring_examples
from svmkit import SVC
from svmkit._core.pairs import solve_pairs_on_own_rows
from test_svc_libsvm import libsvm_pair_objectives


def _classes(n_samples, n_features, n_classes, seed=0):
    X, y = make_classification(n_samples=n_samples, n_features=n_features, n_informative=min(n_features, 8),
                               n_classes=n_classes, n_clusters_per_class=1, flip_y=0.05, random_state=seed)
    return X, y


def test_linear_fits_of_more_rows_take_their_pairs_own_rows_up_to_the_feature_limit(monkeypatch, pair_solver_calls):
    """Above _ONE_VS_ONE_ALL_ROWS rows, linear one-vs-one fits solve their pairs on their own
    kernel rows up to _OWN_ROWS_LINEAR_FEATURES features (float64 rows where the class strips
    would be float64); wider data, other kernels and hard margins keep their routes."""
    X, y = _classes(300, 12, 3)
    SVC(kernel="linear").fit(X, y)
    assert pair_solver_calls == [("own rows", "float64")]
    monkeypatch.setattr(svc_module, "_OWN_ROWS_LINEAR_FEATURES", X.shape[1] - 1)
    SVC(kernel="linear").fit(X, y)
    monkeypatch.setattr(svc_module, "_OWN_ROWS_LINEAR_FEATURES", X.shape[1])
    SVC(kernel="rbf").fit(X, y)
    assert pair_solver_calls[1:] == [("pair rows", "float64"), ("strips", "float64")]
    pair_solver_calls.clear()
    SVC(kernel="linear", C=np.inf).fit(X[y != 2][:20], y[y != 2][:20])  # (two classes: its own route)
    SVC(kernel="linear", solver="qp").fit(X[:120], y[:120])
    assert pair_solver_calls == []


def test_pairs_on_own_rows_are_those_of_the_class_strips(monkeypatch, pair_solver_calls):
    """Solved to a small tol, the same optimum as the class strips (the kernel values round
    differently, so SMO takes other steps), with sample weights (zeros too) and class weights."""
    X, y = _classes(400, 40, 4)
    weights = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 2.0], size=y.shape[0])
    estimator = SVC(kernel="linear", C=0.5, tol=1e-8, class_weight="balanced")
    own_rows = estimator.fit(X, y, sample_weight=weights)
    monkeypatch.setattr(svc_module, "_OWN_ROWS_LINEAR_FEATURES", -1)
    strips = SVC(**estimator.get_params()).fit(X, y, sample_weight=weights)
    assert [label for label, _ in pair_solver_calls] == ["own rows", "strips"]
    np.testing.assert_allclose(own_rows.dual_objective_, strips.dual_objective_, rtol=1e-10)
    np.testing.assert_allclose(own_rows.decision_function(X), strips.decision_function(X), atol=1e-6)
    np.testing.assert_array_equal(own_rows.predict(X), strips.predict(X))


def assert_groups_are_the_pairs_in_one_call(monkeypatch, pair_solver_calls, estimator, X, y, route):
    """With ``_GROUP_VALUES`` lowered so that the 10 pairs of ``X`` (5 classes of some 100 rows)
    make 10 groups, a fit on two workers (``group of <route>`` calls) is that of one call
    (n_jobs=1, ``<route>``), bit for bit, its warnings too."""
    with warnings.catch_warnings(record=True) as one_call_warnings:
        warnings.simplefilter("always", ConvergenceWarning)
        in_one_call = SVC(**estimator.get_params()).set_params(n_jobs=1).fit(X, y)
    assert pair_solver_calls == [(route, "float64")]
    monkeypatch.setattr(class_blocks_module, "_GROUP_VALUES", 30_000)  # pairs of some 200 rows: 40,000 values
    pair_solver_calls.clear()
    with warnings.catch_warnings(record=True) as group_warnings:
        warnings.simplefilter("always", ConvergenceWarning)
        in_groups = SVC(**estimator.get_params()).set_params(n_jobs=2).fit(X, y)
    assert pair_solver_calls == [(f"group of {route}", "float64")] * 10
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_", "dual_objective_"):
        np.testing.assert_array_equal(getattr(in_groups, name), getattr(in_one_call, name))
    assert [m.gap for m in in_groups.binary_models_] == [m.gap for m in in_one_call.binary_models_]
    assert [m.status for m in in_groups.binary_models_] == [m.status for m in in_one_call.binary_models_]
    assert [(str(w.message), w.filename) for w in group_warnings] == [
        (str(w.message), w.filename) for w in one_call_warnings]
    if estimator.max_iter > 0:
        assert len(group_warnings) == 10 and {w.filename for w in group_warnings} == {__file__}


@pytest.mark.parametrize("estimator", [SVC(kernel="linear", C=2.0), SVC(kernel="linear", C=1.0, max_iter=15)],
                         ids=["default", "max_iter"])
def test_groups_of_pairs_on_worker_threads_are_the_pairs_in_one_call(monkeypatch, pair_solver_calls, estimator):
    """From _PARALLEL_PAIR_VALUES Gram matrix values (10 pairs of some 200 rows: 400,000) the
    pairs are solved in groups of consecutive pairs on n_jobs workers (one compiled call a
    group); the fit is that of one call (n_jobs=1), bit for bit, its warnings too."""
    X, y = _classes(500, 20, 5)
    assert_groups_are_the_pairs_in_one_call(monkeypatch, pair_solver_calls, estimator, X, y, "own rows")


def test_digits_pairs_on_float32_rows_agree_with_libsvm(pair_solver_calls):
    """Digits (1,347 rows, 64 features, 10 classes): float32 rows, as the class strips that
    they replace (4 MB of values and more), on two threads; the dual objectives within 1e-6 of
    LIBSVM's (scikit-learn's SVC), the same predictions."""
    X, y = load_digits(return_X_y=True)
    X, y = X[:1347] / 16.0, y[:1347]
    ours = SVC(kernel="linear", n_jobs=2).fit(X, y)
    libsvm = LibsvmSVC(kernel="linear").fit(X, y)
    assert set(pair_solver_calls) == {("group of own rows", "float32")}
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(libsvm, X, "linear", {}), rtol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), libsvm.predict(X))


@pytest.mark.parametrize("function", [solve_pairs_on_own_rows])
def test_compiled_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0
