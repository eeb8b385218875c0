"""svmkit on a Dask cluster of worker processes: grid searches through joblib's Dask backend,
block-by-block scoring (BlockwiseModel, dask-ml's ParallelPostFit) and the Cascade SVM,
each against the single-process result."""

import bz2
import doctest
import io
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest

pytest.importorskip("distributed", reason="pip install svmkit[dask]")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.datasets import load_digits, load_svmlight_file  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from svmkit import SVC, SVCGridSearch, GaussianNB  # noqa: E402
from svmkit.datasets import load_heart_scale  # noqa: E402
from svmkit.dask import BlockwiseModel, CascadeSVC  # noqa: E402
from svmkit.persistence import ModelFileError, load  # noqa: E402

from model_file_parts import assemble, file_parts, saved_bytes  # noqa: E402

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each; svmkit's compiled code is warmed (and
    numba's disk cache written) in this process first, so the workers load it."""
    SVC().fit(*load_heart_scale()).predict(load_heart_scale()[0])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def a9a():
    """The first 2,400 rows of a9a (dense): 2,000 to train, 400 to test."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    X = X[:2400].toarray()
    return X[:2000], y[:2000], X[2000:2400], y[2000:2400]


def _kkt_violations(model, X, y, sample_weight=None):
    """The KKT violation of every training row of a two-class model, computed here from its
    public attributes: multipliers |dual_coef_| on support_ (0 elsewhere), y f(x) from
    decision_function, bounds C times the sample weights (no conditions at weight 0)."""
    upper = model.C * (np.ones(X.shape[0]) if sample_weight is None else sample_weight)
    alpha = np.zeros(X.shape[0])
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    yf = np.where(y == model.classes_[1], 1.0, -1.0) * model.decision_function(X)
    at_upper = alpha >= upper
    free = (alpha > 0) & ~at_upper
    violation = np.where(alpha == 0, np.maximum(0.0, 1.0 - yf),
                         np.where(free, np.abs(1.0 - yf), np.maximum(0.0, yf - 1.0)))
    return np.where(upper > 0, violation, 0.0)


# -- grid search ---------------------------------------------------------------
def test_svc_grid_search_on_the_cluster_equals_the_local_one(client):
    X, y = load_heart_scale()
    search = SVCGridSearch(log2_C=(-1, 3, 2), log2_gamma=(-3, -7, -2), cv=3)
    local = search.fit(X, y).cv_results_
    with joblib.parallel_config(backend="dask", scatter=[X, y]):
        distributed_search = SVCGridSearch(log2_C=(-1, 3, 2), log2_gamma=(-3, -7, -2), cv=3).fit(X, y)
    on_cluster = distributed_search.cv_results_
    for name in ("log2_C", "log2_gamma", "mean_accuracy", "std_accuracy"):
        np.testing.assert_array_equal(on_cluster[name], local[name])
    assert distributed_search.best_params_ == search.best_params_
    assert 0.8 < search.best_score_ < 0.9


def test_svc_grid_search_on_the_cluster_sends_the_data_once(client):
    """The jobs take the very X and y that joblib scattered (it finds them by identity): no
    task carries a copy of y, so the scheduler's log has one scatter, of the two arrays."""
    X, y = load_heart_scale()
    X = X.toarray() if hasattr(X, "toarray") else X
    before = len(client.get_events(client.id))
    with joblib.parallel_config(backend="dask", scatter=[X, y]):
        SVCGridSearch(log2_C=(-1, 1, 2), log2_gamma=(-3, -5, -2), cv=3, progress=False).fit(X, y)
    scatters = [event for _, event in client.get_events(client.id)[before:] if event.get("action") == "scatter"]
    assert [event["count"] for event in scatters] == [2]


def test_scikit_learn_grid_search_of_svmkit_svc_on_the_cluster_equals_the_local_one(client):
    X, y = load_heart_scale()
    grid = {"C": [0.5, 2.0, 8.0], "gamma": [0.01, 0.1]}
    local = GridSearchCV(SVC(), grid, cv=3).fit(X, y)
    with joblib.parallel_config(backend="dask", scatter=[X, y]):
        on_cluster = GridSearchCV(SVC(), grid, cv=3, n_jobs=-1).fit(X, y)
    np.testing.assert_array_equal(on_cluster.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])
    assert on_cluster.best_params_ == local.best_params_


# -- scoring -------------------------------------------------------------------
def assert_equal_but_for_blas_sums(block_by_block, all_at_once):
    """Scores of a dask array (each block's rows are scored as NumPy scores that block: the
    tests check that exactly) against the scores of all rows at once: labels equal, values
    equal but for the last bits of BLAS's sums, which some kernels order by the shape of the
    product (OpenBLAS's AVX-512 kernels, digits: one value in 17,970 off by 4.4e-16)."""
    if np.asarray(all_at_once).dtype.kind == "f":
        np.testing.assert_allclose(block_by_block, all_at_once, rtol=1e-12, atol=1e-14)
    else:
        np.testing.assert_array_equal(block_by_block, all_at_once)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("transport", ["pickle", "svmkit"])
def test_scoring_dask_arrays_block_by_block_equals_numpy_scoring(client, digits, transport):
    X, y = digits
    model = SVC(C=2.0, gamma=0.02, probability=True, random_state=0).fit(X[:600], y[:600])
    scorer = BlockwiseModel(model, transport=transport)
    dX = da.from_array(X, chunks=(250, 64))
    for method in ("predict", "decision_function", "predict_proba"):
        result = getattr(scorer, method)(dX)
        assert isinstance(result, da.Array)
        # (Dask's workers run one BLAS thread; BLAS's threads may sum a product in another order)
        with threadpool_limits(limits=1):
            whole = getattr(model, method)(X)
            by_block = np.concatenate([getattr(model, method)(X[start:start + 250]) for start in range(0, len(X), 250)])
        scores = result.compute()
        np.testing.assert_array_equal(scores, by_block)
        assert_equal_but_for_blas_sums(scores, whole)
    assert np.mean(scorer.predict(dX).compute()[600:] == y[600:]) > 0.9


def test_scoring_dask_dataframes_gives_series_and_frames_with_their_index(client, digits):
    X, y = digits
    frame = pd.DataFrame(X[:, :20], columns=[f"pixel{i}" for i in range(20)], index=np.arange(1000, 1000 + len(X)))
    model = GaussianNB().fit(frame, y)
    scorer = BlockwiseModel(model, transport="svmkit")
    dframe = dd.from_pandas(frame, npartitions=4)
    labels = scorer.predict(dframe).compute()
    probabilities = scorer.predict_proba(dframe).compute()
    # (NumPy's vectorised exp and log may round the last elements of an array otherwise than
    # the others: a row's probabilities are those of the same row in its partition)
    partitions = [dframe.partitions[i].compute() for i in range(dframe.npartitions)]
    with threadpool_limits(limits=1):
        expected_labels = np.concatenate([model.predict(part) for part in partitions])
        expected_probabilities = np.concatenate([model.predict_proba(part) for part in partitions])
    pd.testing.assert_index_equal(labels.index, frame.index)
    np.testing.assert_array_equal(labels.to_numpy(), expected_labels)
    assert list(probabilities.columns) == list(model.classes_)
    np.testing.assert_array_equal(probabilities.to_numpy(), expected_probabilities)


def test_dask_ml_parallel_post_fit_scores_with_svmkit(client, digits):
    dask_ml_wrappers = pytest.importorskip("dask_ml.wrappers", reason="pip install dask-ml")
    X, y = digits
    wrapped = dask_ml_wrappers.ParallelPostFit(SVC(C=2.0, gamma=0.02)).fit(X[:600], y[:600])
    labels = wrapped.predict(da.from_array(X, chunks=(300, 64)))
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), SVC(C=2.0, gamma=0.02).fit(X[:600], y[:600]).predict(X))


# -- Cascade SVM ---------------------------------------------------------------
@pytest.mark.parametrize("cache_size", [200, 1])
def test_cascade_svc_reaches_the_single_process_solution_on_a9a(client, a9a, cache_size):
    """The nodes by the Gram strategy (200 MB) and by working sets (1 MB: each pass's nodes
    start from the gradient that the workers' KKT checks computed)."""
    X, y, X_test, _ = a9a
    single = SVC(C=1.0, gamma=0.05).fit(X, y)
    cascade = CascadeSVC(C=1.0, gamma=0.05, cache_size=cache_size).fit(da.from_array(X, chunks=(500, -1)),
                                                                       da.from_array(y, chunks=500))
    assert cascade.n_passes_ >= 2  # (the first pass alone misses rows: the feedback is exercised)
    assert cascade.dual_objective_ == pytest.approx(single.dual_objective_, rel=1e-3)
    assert np.mean(cascade.predict(X_test) == single.predict(X_test)) >= 0.995
    assert _kkt_violations(cascade, X, y).max() <= cascade.tol
    assert cascade.kkt_violation_ <= cascade.tol
    assert cascade.duality_gap_ == pytest.approx(cascade.primal_objective_ - cascade.dual_objective_)
    assert cascade.duality_gap_ < 1e-3 * cascade.dual_objective_
    np.testing.assert_array_equal(cascade.support_vectors_, X[cascade.support_])
    with pytest.raises(AttributeError, match="radius_"):  # (the pass's SVC went to the client without its rows)
        cascade.model_.radius_
    dask_labels = cascade.predict(da.from_array(X_test, chunks=(100, -1))).compute()
    np.testing.assert_array_equal(dask_labels, cascade.predict(X_test))


def test_cascade_svc_one_vs_one_multiclass_reaches_the_single_process_solution(client, digits):
    X, y = digits
    single = SVC(C=1.0, gamma=0.01).fit(X[:1200], y[:1200])
    frame = dd.from_pandas(pd.DataFrame(X[:1200]), npartitions=4)
    cascade = CascadeSVC(C=1.0, gamma=0.01).fit(frame, dd.from_pandas(pd.Series(y[:1200]), npartitions=4))
    np.testing.assert_allclose(cascade.dual_objective_, single.dual_objective_, rtol=1e-3)
    assert np.mean(cascade.predict(X[1200:]) == single.predict(X[1200:])) >= 0.995
    assert cascade.dual_coef_.shape == (9, cascade.support_.shape[0])
    assert cascade.kkt_violation_ <= cascade.tol


def test_cascade_svc_with_sample_weights_reaches_the_weighted_single_process_solution(client, a9a):
    X, y, X_test, _ = a9a
    weight = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 3.0], size=y.shape[0])
    single = SVC(C=1.0, gamma=0.05).fit(X, y, sample_weight=weight)
    cascade = CascadeSVC(C=1.0, gamma=0.05).fit(da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500),
                                                sample_weight=da.from_array(weight, chunks=500))
    assert cascade.dual_objective_ == pytest.approx(single.dual_objective_, rel=1e-3)
    assert np.mean(cascade.predict(X_test) == single.predict(X_test)) >= 0.995
    assert _kkt_violations(cascade, X, y, weight).max() <= cascade.tol
    assert np.all(weight[cascade.support_] > 0)
    assert np.all(np.abs(cascade.dual_coef_[0]) <= cascade.C * weight[cascade.support_] + 1e-12)


def test_cascade_svc_refuses_negative_weights_and_weights_that_leave_one_class(client, a9a):
    X, y, _, _ = a9a
    dX, dy = da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        CascadeSVC().fit(dX, dy, sample_weight=np.where(np.arange(2000) == 7, -1.0, 1.0))
    with pytest.raises(ValueError, match=r"positive weight in every class; sample_weight leaves none in class \[-1.0\]"):
        CascadeSVC().fit(dX, dy, sample_weight=(y > 0).astype(float))
    with pytest.raises(ValueError, match="one value per row of X"):
        CascadeSVC().fit(dX, dy, sample_weight=np.ones(5))


@pytest.fixture(scope="module")
def probability_cascade(client, a9a):
    X, y, _, _ = a9a
    return CascadeSVC(C=1.0, gamma=0.05, probability=True, random_state=3).fit(
        da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500))


def test_cascade_svc_probabilities_are_those_of_svc_with_the_same_folds(probability_cascade, a9a):
    X, y, X_test, _ = a9a
    single = SVC(C=1.0, gamma=0.05, probability=True, random_state=3).fit(X, y)
    cascade = probability_cascade
    np.testing.assert_allclose(cascade.probA_, single.probA_, rtol=1e-3)
    np.testing.assert_allclose(cascade.probB_, single.probB_, atol=1e-3)
    np.testing.assert_allclose(cascade.predict_proba(X_test), single.predict_proba(X_test), atol=1e-3)
    on_dask = cascade.predict_proba(da.from_array(X_test, chunks=(100, -1))).compute()
    with threadpool_limits(limits=1):  # (as Dask's workers)
        by_block = np.concatenate([cascade.predict_proba(X_test[start:start + 100])
                                   for start in range(0, len(X_test), 100)])
    np.testing.assert_array_equal(on_dask, by_block)
    assert_equal_but_for_blas_sums(on_dask, cascade.predict_proba(X_test))
    np.testing.assert_array_equal(cascade.predict_from_proba(X_test),
                                  cascade.classes_[np.argmax(cascade.predict_proba(X_test), axis=1)])


def test_a_saved_cascade_svc_loads_with_the_same_model_and_theory(probability_cascade, a9a):
    _, _, X_test, _ = a9a
    cascade = probability_cascade
    raw = saved_bytes(cascade)
    metadata, arrays = file_parts(raw)
    assert metadata["estimator"] == "svmkit.dask.CascadeSVC"
    assert not [name for name in [*metadata["fields"], *arrays] if name.startswith("_")]
    loaded = load(io.BytesIO(raw))
    assert type(loaded) is CascadeSVC and loaded.get_params() == cascade.get_params()
    for method in ("predict", "decision_function", "predict_proba"):
        np.testing.assert_array_equal(getattr(loaded, method)(X_test), getattr(cascade, method)(X_test))
    for name in ("support_", "support_vectors_", "dual_coef_", "intercept_", "n_support_", "working_set_", "probA_",
                 "probB_", "n_iter_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(cascade, name))
    assert loaded.history_ == cascade.history_
    assert (loaded.dual_objective_, loaded.primal_objective_, loaded.duality_gap_, loaded.kkt_violation_,
            loaded.n_passes_) == (cascade.dual_objective_, cascade.primal_objective_, cascade.duality_gap_,
                                  cascade.kkt_violation_, cascade.n_passes_)


@pytest.mark.parametrize("edit, message", [
    (lambda m, a: a.update({key: value[::-1].copy() for key, value in a.items() if key.endswith("working_set_")}),
     r"CascadeSVC\.working_set_: must be strictly increasing"),
    (lambda m, a: m["fields"].update(n_passes_=m["fields"]["n_passes_"] + 1),
     r"CascadeSVC\.history\.pass: expected shape"),
    (lambda m, a: m["fields"]["model_"].update({"class": "svmkit.GaussianNB"}),
     r"CascadeSVC\.model_"),
])
def test_crafted_cascade_svc_files_are_refused_naming_the_field(probability_cascade, edit, message):
    metadata, arrays = file_parts(saved_bytes(probability_cascade))
    edit(metadata, arrays)
    with pytest.raises(ModelFileError, match=message):
        load(io.BytesIO(assemble(metadata, arrays)))


def test_cascade_svc_one_vs_one_probabilities_are_those_of_svc(client, digits):
    X, y = digits
    three = np.flatnonzero(y < 3)[:450]
    X, y = X[three], y[three]
    single = SVC(C=1.0, gamma=0.01, probability=True, random_state=0).fit(X[:300], y[:300])
    cascade = CascadeSVC(C=1.0, gamma=0.01, probability=True, random_state=0).fit(
        da.from_array(X[:300], chunks=(100, -1)), da.from_array(y[:300], chunks=100))
    np.testing.assert_allclose(cascade.probA_, single.probA_, rtol=1e-3)
    np.testing.assert_allclose(cascade.predict_proba(X[300:]), single.predict_proba(X[300:]), atol=1e-3)


def test_without_probability_there_is_no_predict_proba(a9a):
    assert not hasattr(CascadeSVC(), "predict_proba")
    assert hasattr(CascadeSVC(probability=True), "predict_proba")


def test_a_worker_killed_during_a_cascade_fit_still_gives_the_solution(client, a9a):
    X, y, X_test, _ = a9a
    pids = client.run(os.getpid)
    killed = []

    class KillOneWorker(logging.Handler):
        def emit(self, record):
            if not killed and record.getMessage().startswith("cascade pass 1:"):
                killed.append(next(iter(pids.values())))
                os.kill(killed[0], signal.SIGKILL)

    handler = KillOneWorker()
    logging.getLogger("svmkit").addHandler(handler)
    try:
        cascade = CascadeSVC(C=1.0, gamma=0.05, verbose=True).fit(da.from_array(X, chunks=(500, -1)),
                                                                  da.from_array(y, chunks=500))
    finally:
        logging.getLogger("svmkit").removeHandler(handler)
    assert killed
    single = SVC(C=1.0, gamma=0.05).fit(X, y)
    assert cascade.dual_objective_ == pytest.approx(single.dual_objective_, rel=1e-3)
    assert np.mean(cascade.predict(X_test) == single.predict(X_test)) >= 0.995
    assert _kkt_violations(cascade, X, y).max() <= cascade.tol


def test_cascade_svc_warns_when_max_passes_leaves_violators(client, a9a):
    X, y, _, _ = a9a
    with pytest.warns(ConvergenceWarning, match="max_passes=1"):
        cascade = CascadeSVC(C=1.0, gamma=0.05, max_passes=1).fit(da.from_array(X, chunks=(500, -1)),
                                                                  da.from_array(y, chunks=500))
    assert cascade.n_passes_ == 1 and cascade.history_[0]["violators"] > 0
    assert cascade.kkt_violation_ > cascade.tol


def test_cascade_svc_refuses_numpy_data(a9a):
    X, y, _, _ = a9a
    with pytest.raises(TypeError, match="dask.array.from_array"):
        CascadeSVC().fit(X, y)


def test_the_scoring_example_runs():
    import svmkit.dask._blocks

    result = doctest.testmod(svmkit.dask._blocks)
    assert result.attempted > 0 and result.failed == 0


def test_without_distributed_the_import_error_names_the_extra():
    code = "import sys\nsys.modules['distributed'] = None\nimport svmkit.dask\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 1
    assert "pip install svmkit[dask]" in result.stderr.splitlines()[-1]
