"""Grid search over (C, gamma) with the scaling fitted inside each fold."""

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from svmkit import SVC
from svmkit.model_selection import SVCGridSearch, log2_range
from svmkit.preprocessing import LibsvmScaler

GRID = dict(log2_C=(-1, 3, 2), log2_gamma=(1, -1, -2))
FOLDS = StratifiedKFold(4, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def problem():
    """Two features on very different scales, and an outlier in feature 0 that global scaling would leak."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2)) * [1.0, 50.0]
    y = np.where(X[:, 0] + X[:, 1] / 50 > 0, 1, -1)
    X[0, 0] = 40.0
    return X, y


@pytest.fixture(scope="module")
def search(problem):
    return SVCGridSearch(cv=FOLDS, **GRID).fit(*problem)


def correct_in_folds(X, y, make_model, scale_all_first=False):
    """Number of points predicted correctly when held out, by a plain loop over the folds."""
    if scale_all_first:
        X = LibsvmScaler().fit_transform(X)
    return sum(
        int(np.sum(make_model().fit(X[train], y[train]).predict(X[test]) == y[test]))
        for train, test in FOLDS.split(X, y)
    )


def test_scaling_is_fitted_on_the_training_part_of_each_fold(problem, search):
    X, y = problem
    results = search.cv_results_
    inside, snooping = [], []
    for C, gamma in zip(results["C"], results["gamma"]):
        inside.append(correct_in_folds(X, y, lambda: make_pipeline(LibsvmScaler(), SVC(C=C, gamma=gamma))))
        snooping.append(correct_in_folds(X, y, lambda: SVC(C=C, gamma=gamma), scale_all_first=True))
    np.testing.assert_array_equal(results["mean_accuracy"] * 80, inside)
    # Scaling before splitting lets the outlier of the held-out part shape the training features.
    assert np.any(np.array(snooping) != np.array(inside))


def test_results_table_and_best_point(search):
    results = search.cv_results_
    assert sorted(results) == sorted(
        ["log2_C", "log2_gamma", "C", "gamma", "mean_accuracy", "std_accuracy", "mean_fit_time", "stage"]
    )
    assert all(values.shape == (6,) for values in results.values())
    np.testing.assert_array_equal(results["log2_C"], [-1, -1, 1, 1, 3, 3])
    np.testing.assert_array_equal(results["log2_gamma"], [1, -1, 1, -1, 1, -1])
    np.testing.assert_array_equal(results["C"], 2.0 ** results["log2_C"])
    np.testing.assert_array_equal(results["mean_accuracy"] * 80, [69, 67, 70, 67, 71, 71])
    assert np.all(results["mean_fit_time"] > 0) and set(results["stage"]) == {"coarse"}
    # (3, 1) and (3, -1) tie at 71/80: the smaller gamma wins.
    assert search.best_params_ == {"C": 8.0, "gamma": 0.5}
    assert search.best_score_ == 71 / 80 and search.best_index_ == 5
    assert search.n_splits_ == 4


def test_best_estimator_is_refitted_on_all_data(problem, search):
    X, y = problem
    expected = make_pipeline(LibsvmScaler(), SVC(C=8.0, gamma=0.5)).fit(X, y)
    scaler = search.best_estimator_.named_steps["scale"]
    np.testing.assert_array_equal(scaler.data_max_, X.max(axis=0))
    np.testing.assert_allclose(search.decision_function(X), expected.decision_function(X), atol=1e-10)
    np.testing.assert_array_equal(search.predict(X), expected.predict(X))
    np.testing.assert_array_equal(search.classes_, [-1, 1])
    assert search.score(X, y) == np.mean(expected.predict(X) == y)


def test_results_frame_is_sorted_best_first(search):
    pytest.importorskip("pandas")
    frame = search.results_frame()
    assert frame.shape == (6, 8)
    assert frame.iloc[0][["log2_C", "log2_gamma"]].tolist() == [3.0, -1.0]
    assert frame["mean_accuracy"].is_monotonic_decreasing


def test_refinement_returns_a_point_on_the_finer_grid(problem, search):
    refined = SVCGridSearch(cv=FOLDS, refine=True, **GRID).fit(*problem)
    results = refined.cv_results_
    fine = results["stage"] == "fine"
    # 9 x 9 points around the coarse best (3, -1) with step 0.5, less the 4 coarse points among them
    assert fine.sum() == 77
    np.testing.assert_array_equal(np.unique(results["log2_C"][fine]), np.arange(1.0, 5.5, 0.5))
    np.testing.assert_array_equal(np.unique(results["log2_gamma"][fine]), np.arange(-3.0, 1.5, 0.5))
    best_log2 = np.log2([refined.best_params_["C"], refined.best_params_["gamma"]])
    assert results["stage"][refined.best_index_] == "fine"
    assert np.all(best_log2 % 0.5 == 0) and np.all(np.abs(best_log2 - [3, -1]) <= 2)
    assert refined.best_score_ >= search.best_score_


def test_parallel_runs_through_the_joblib_backend(problem, search):
    with joblib.parallel_config(backend="threading"):
        threaded = SVCGridSearch(cv=FOLDS, n_jobs=2, **GRID).fit(*problem)
    np.testing.assert_array_equal(threaded.cv_results_["mean_accuracy"], search.cv_results_["mean_accuracy"])
    assert threaded.best_params_ == search.best_params_


def test_progress_callback_and_bar(problem, capsys):
    calls = []
    SVCGridSearch(cv=FOLDS, progress=lambda *args: calls.append(args), **GRID).fit(*problem)
    assert len(calls) == 24 and calls[-1] == ("coarse", 24, 24)
    assert [done for _, done, _ in calls] == list(range(1, 25))
    SVCGridSearch(cv=FOLDS, progress=True, **GRID).fit(*problem)
    drawn = capsys.readouterr().err.split("\r")[-1]
    assert drawn.startswith("coarse grid: 100%") and " 24/24 " in drawn
    assert drawn.rstrip().endswith("fold 4/4]") and "log2 C=" in drawn and "log2 gamma=" in drawn
    SVCGridSearch(cv=FOLDS, **GRID).fit(*problem)  # (progress=None: stderr is not a terminal here)
    assert capsys.readouterr().err == ""


def test_standardisation_and_no_scaling(problem):
    X, y = problem
    standard = SVCGridSearch(cv=FOLDS, scaling="standard", **GRID).fit(X, y)
    correct = correct_in_folds(X, y, lambda: make_pipeline(StandardScaler(), SVC(C=8.0, gamma=0.5)))
    assert standard.cv_results_["mean_accuracy"][5] == correct / 80
    plain = SVCGridSearch(cv=FOLDS, scaling=None, **GRID).fit(X, y)
    assert isinstance(plain.best_estimator_, SVC)
    assert plain.cv_results_["mean_accuracy"][5] == correct_in_folds(X, y, lambda: SVC(C=8.0, gamma=0.5)) / 80


def test_sparse_input_with_standardisation_skips_centring(problem):
    X, y = problem
    search = SVCGridSearch(cv=3, scaling="standard", log2_C=(1, 1, 1), log2_gamma=(0, 0, 1)).fit(sp.csr_matrix(X), y)
    assert search.best_estimator_.named_steps["scale"].with_mean is False


def test_estimator_parameters_are_kept(problem):
    search = SVCGridSearch(SVC(class_weight="balanced"), cv=FOLDS, log2_C=(1, 1, 1), log2_gamma=(0, 0, 1)).fit(*problem)
    svc = search.best_estimator_.named_steps["svc"]
    assert svc.class_weight == "balanced" and (svc.C, svc.gamma) == (2.0, 1.0)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(scaling="robust"), "scaling must be one of"),
        (dict(refine_steps=0), "refine_steps must be a positive integer"),
        (dict(log2_C=(1, 3, 0)), "non-zero step"),
        (dict(log2_C=(3, 1, 2)), "is empty"),
        (dict(progress="yes"), "progress must be"),
    ],
)
def test_bad_parameters(problem, params, message):
    with pytest.raises(ValueError, match=message):
        SVCGridSearch(**{**GRID, **params}).fit(*problem)


def test_log2_range_follows_grid_py():
    np.testing.assert_array_equal(log2_range(-5, 15, 2), np.arange(-5, 16, 2))
    np.testing.assert_array_equal(log2_range(3, -15, -2), np.arange(3, -16, -2))
    np.testing.assert_array_equal(log2_range(1, 2, 0.25), [1, 1.25, 1.5, 1.75, 2])
    np.testing.assert_array_equal(log2_range(0, 0, 1), [0])


def test_libsvm_scaler_matches_svm_scale_on_sparse_data():
    X = sp.csr_matrix(np.array([[0.0, 2.0, 1.0], [4.0, 0.0, 1.0], [2.0, 1.0, 1.0]]))
    scaler = LibsvmScaler().fit(X)
    np.testing.assert_array_equal(scaler.data_min_, [0, 0, 1])
    np.testing.assert_array_equal(scaler.data_max_, [4, 2, 1])
    dense = scaler.transform(X)  # zeros map to -1: the result is dense
    assert isinstance(dense, np.ndarray)
    np.testing.assert_array_equal(dense, [[-1, 1, 0], [1, -1, 0], [0, 0, 0]])
    kept = LibsvmScaler(lower=0.0).fit(X).transform(X)  # zeros stay zeros: still sparse
    assert sp.issparse(kept)
    np.testing.assert_array_equal(kept.toarray(), [[0, 1, 0], [1, 0, 0], [0.5, 0.5, 0]])
