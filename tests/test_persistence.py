"""svmkit's own model files: save -> load gives the same estimator, bit for bit."""

import importlib
import io
import json
import pkgutil
import struct
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, is_classifier, is_outlier_detector, is_regressor
from sklearn.datasets import load_iris, make_regression
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

import svmkit
from svmkit import SVC, CategoricalNB, GaussianNB, MixedNB
from svmkit.datasets import load_heart_scale
from svmkit.kernels import (
    CallableKernel,
    ColumnSubsetKernel,
    KernelPolynomial,
    QuadraticFormKernel,
    RBFKernel,
)
from svmkit.persistence import FORMAT_VERSION, ModelFileError, load, save

OUTPUTS = ("predict", "decision_function", "predict_proba", "predict_log_proba", "score_samples", "transform")


def _iris():
    X, y = load_iris(return_X_y=True)
    rows = np.random.default_rng(0).choice(150, 60, replace=False)
    return (X[rows] - X.mean(axis=0)) / X.std(axis=0), y[rows]


X_IRIS, Y_IRIS = _iris()
X_HEART, Y_HEART = load_heart_scale()


def round_trip(estimator):
    buffer = io.BytesIO()
    save(estimator, buffer)
    return load(io.BytesIO(buffer.getvalue()))


def saved_bytes(estimator):
    buffer = io.BytesIO()
    save(estimator, buffer)
    return buffer.getvalue()


def outputs(estimator, X):
    """What the estimator gives for X, by method (methods it lacks or refuses are left out)."""
    results = {}
    for name in OUTPUTS:
        if hasattr(estimator, name):
            try:
                results[name] = getattr(estimator, name)(X)
            except NotFittedError:
                continue
    return results


def assert_same_outputs(original, loaded, X):
    expected, found = outputs(original, X), outputs(loaded, X)
    assert expected and found.keys() == expected.keys()
    for name, value in expected.items():
        assert found[name].dtype == value.dtype, name
        np.testing.assert_array_equal(found[name], value, err_msg=name)


def assert_same(a, b, path="estimator"):
    """Same types and values all the way down (NaN equals NaN, arrays keep their dtype)."""
    assert type(a) is type(b), path
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, path
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif sp.issparse(a):
        for part in ("data", "indices", "indptr", "shape"):
            assert_same(getattr(a, part), getattr(b, part), f"{path}.{part}")
    elif isinstance(a, np.random.RandomState):
        assert_same(a.get_state(), b.get_state(), path)
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif hasattr(a, "__dict__"):
        assert_same(vars(a), vars(b), path)
    elif isinstance(a, (float, np.floating)) and np.isnan(a):
        assert np.isnan(b), path
    else:
        assert a == b, path


# -- SVC -------------------------------------------------------------------------------------


def _composite_kernel():
    quadratic = QuadraticFormKernel(np.diag([1.0, 0.5, 2.0, 0.25]))
    return ColumnSubsetKernel(RBFKernel(gamma=0.5), [0, 2]) + 0.5 * KernelPolynomial(quadratic, [1.0, 1.0]).normalized()


SVC_CASES = {
    "binary": (lambda: SVC(kernel="rbf", gamma=0.1), X_HEART, Y_HEART),
    "ovo": (lambda: SVC(kernel="poly", degree=2, C=2.0), X_IRIS, Y_IRIS),
    "ovr": (lambda: SVC(multiclass="ovr", decision_function_shape="ovo"), X_IRIS, Y_IRIS),
    "string labels": (lambda: SVC(class_weight={"setosa": 2.0}), X_IRIS, np.array(["setosa", "versicolor", "virginica"])[Y_IRIS]),
    "composite kernel": (lambda: SVC(kernel=_composite_kernel()), X_IRIS, Y_IRIS),
    "sparse": (lambda: SVC(kernel="linear"), sp.csr_matrix(np.where(np.abs(X_HEART) < 0.5, 0.0, X_HEART)), Y_HEART),
    "probability": (lambda: SVC(probability=True, random_state=np.random.RandomState(3)), X_IRIS, Y_IRIS),
}


@pytest.mark.parametrize("case", list(SVC_CASES))
def test_svc_round_trip_is_exact(case):
    make, X, y = SVC_CASES[case]
    model = make().fit(X, y)
    loaded = round_trip(model)
    assert_same_outputs(model, loaded, X)
    assert_same(vars(loaded), vars(model))


def test_precomputed_svc_round_trip():
    K = RBFKernel(gamma=0.3)(X_IRIS, X_IRIS)
    model = SVC(kernel="precomputed").fit(K, Y_IRIS)
    loaded = round_trip(model)
    assert loaded.support_vectors_.shape == (0, 60)
    assert_same_outputs(model, loaded, K[:7])
    assert_same(vars(loaded), vars(model))


def test_theory_survives():
    model = SVC(kernel="linear", C=0.5).fit(X_HEART, Y_HEART)
    loaded = round_trip(model)
    np.testing.assert_array_equal(loaded.alpha_, model.alpha_)
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    assert loaded.margin_ == model.margin_ and loaded.duality_gap_ == model.duality_gap_
    assert str(loaded.kkt_report()) == str(model.kkt_report())
    assert_same(loaded.kkt_report(), model.kkt_report())
    assert type(loaded.binary_models_[0]) is type(model.binary_models_[0])


def test_kernel_objects_come_back_as_kernels():
    model = SVC(kernel=_composite_kernel()).fit(X_IRIS, Y_IRIS)
    loaded = round_trip(model)
    assert loaded.kernel_ == model.kernel_ and loaded.kernel == model.kernel
    assert loaded.kernel_ is not model.kernel_
    np.testing.assert_array_equal(loaded.kernel_(X_IRIS, X_IRIS[:5]), model.kernel_(X_IRIS, X_IRIS[:5]))


def test_libsvm_model_can_be_saved():
    from svmkit.io import load_libsvm_model, save_libsvm_model

    buffer = io.BytesIO()
    save_libsvm_model(SVC(kernel="rbf", gamma=0.2).fit(X_IRIS, Y_IRIS), buffer)
    from_libsvm = load_libsvm_model(io.BytesIO(buffer.getvalue()))
    loaded = round_trip(from_libsvm)
    assert_same_outputs(from_libsvm, loaded, X_IRIS)
    assert_same(vars(loaded), vars(from_libsvm))


# -- naive Bayes -----------------------------------------------------------------------------


def _table():
    rng = np.random.default_rng(1)
    n = 40
    table = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue", None], n),
            "size": rng.choice([1, 2, 3], n),
            "weight": rng.normal(50, 10, n),
            "owner": rng.choice(["ana", "bo"], n),
        }
    )
    table.loc[[3, 17], "weight"] = np.nan
    y = np.where(table["weight"].fillna(50) + 10 * (table["colour"] == "red") > 52, "yes", "no")
    return table, y


TABLE, Y_TABLE = _table()
NB_CASES = {
    "gaussian": (lambda: GaussianNB(), np.where(np.arange(240).reshape(60, 4) % 7 == 0, np.nan, X_IRIS), Y_IRIS),
    "categorical strings": (lambda: CategoricalNB(alpha=0.5), TABLE[["colour", "owner"]].to_numpy(dtype=object), Y_TABLE),
    "categorical frame": (lambda: CategoricalNB(), TABLE[["colour", "size", "owner"]], Y_TABLE),
    "mixed": (lambda: MixedNB(), TABLE, Y_TABLE),
}


@pytest.mark.parametrize("case", list(NB_CASES))
def test_naive_bayes_round_trip_is_exact(case):
    make, X, y = NB_CASES[case]
    model = make().fit(X, y)
    loaded = round_trip(model)
    assert_same_outputs(model, loaded, X)
    assert_same(vars(loaded), vars(model))
    np.testing.assert_array_equal(loaded.explain(X).feature_log_likelihood, model.explain(X).feature_log_likelihood)


def test_categories_keep_their_values():
    model = MixedNB().fit(TABLE, Y_TABLE)
    loaded = round_trip(model)
    assert [c.tolist() for c in loaded.categories_] == [["blue", "green", "red"], ["ana", "bo"]]
    assert loaded.categories_[0].dtype == object
    assert loaded.feature_names_in_.tolist() == ["colour", "size", "weight", "owner"]


def test_partial_fit_goes_on_after_loading():
    model = MixedNB().partial_fit(TABLE[:20], Y_TABLE[:20], classes=["no", "yes"])
    loaded = round_trip(model)
    model.partial_fit(TABLE[20:], Y_TABLE[20:])
    loaded.partial_fit(TABLE[20:], Y_TABLE[20:])
    np.testing.assert_array_equal(loaded.predict_proba(TABLE), model.predict_proba(TABLE))


# -- every estimator of svmkit ---------------------------------------------------------------


def _public_estimators():
    """Every estimator class offered by a public svmkit module, by name."""
    found = {}
    for info in pkgutil.walk_packages(svmkit.__path__, "svmkit."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for name, obj in vars(module).items():
            if isinstance(obj, type) and issubclass(obj, BaseEstimator) and obj.__module__.startswith("svmkit."):
                found.setdefault(name, obj)
    return found


ESTIMATORS = _public_estimators()
#: Parameters that keep the fits of the tests small.
FAST_PARAMETERS = {"SVCGridSearch": dict(log2_C=(0, 2, 2), log2_gamma=(-1, -3, -2), cv=2)}


def fitted(cls):
    estimator = cls(**FAST_PARAMETERS.get(cls.__name__, {}))
    X_regression, y_regression = make_regression(50, 4, noise=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings of short fits
        if is_regressor(estimator):
            return estimator.fit(X_regression, y_regression), X_regression
        if is_classifier(estimator):
            return estimator.fit(X_IRIS, Y_IRIS), X_IRIS
        if is_outlier_detector(estimator):
            return estimator.fit(X_IRIS), X_IRIS
        return estimator.fit(X_IRIS), X_IRIS


def test_the_estimators_are_found():
    assert {"SVC", "GaussianNB", "CategoricalNB", "MixedNB"} <= ESTIMATORS.keys()


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_round_trip_is_exact(name):
    estimator, X = fitted(ESTIMATORS[name])
    loaded = round_trip(estimator)
    assert type(loaded) is type(estimator)
    assert_same_outputs(estimator, loaded, X)
    assert_same(vars(loaded), vars(estimator))


@pytest.mark.parametrize(
    "module, name",
    [
        ("svmkit.linear", "LinearSVC"),
        ("svmkit.linear", "PegasosSVC"),
        ("svmkit.perceptron", "Perceptron"),
        ("svmkit.perceptron", "KernelPerceptron"),
        ("svmkit.svm", "NuSVC"),
        ("svmkit.svm", "SVR"),
        ("svmkit.svm", "NuSVR"),
        ("svmkit.svm", "OneClassSVM"),
    ],
)
def test_estimators_of_every_module_are_tested(module, name):
    cls = getattr(pytest.importorskip(module), name, None)
    if cls is None:
        pytest.skip(f"{module} has no {name} yet")
    assert ESTIMATORS[name] is cls


def test_unfitted_estimator_round_trip():
    loaded = round_trip(SVC(C=3.0, kernel=RBFKernel(sigma=2.0), class_weight={0: 1.5}))
    assert loaded.get_params()["C"] == 3.0 and loaded.class_weight == {0: 1.5}
    assert loaded.kernel == RBFKernel(gamma=0.125)
    with pytest.raises(NotFittedError):
        check_is_fitted(loaded)


# -- the file --------------------------------------------------------------------------------


def test_file_is_a_documented_npz(tmp_path):
    model = SVC(kernel="linear", C=2.0).fit(X_IRIS, Y_IRIS)
    path = tmp_path / "model.svmkit"
    save(model, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.svmkit"]
    with np.load(path, allow_pickle=False) as archive:
        metadata = json.loads(archive["metadata"].tobytes())
        assert metadata["format"] == "svmkit-model" and metadata["format_version"] == FORMAT_VERSION == 1
        assert metadata["svmkit_version"] == svmkit.__version__
        assert metadata["estimator"] == "svmkit.SVC"
        assert metadata["params"]["C"] == 2.0 and metadata["params"]["kernel"] == "linear"
        assert metadata["state"]["kernel_"] == {"type": "object", "class": "svmkit.kernels.LinearKernel", "state": {}}
        np.testing.assert_array_equal(archive[metadata["state"]["dual_coef_"]["array"]], model.dual_coef_)
    np.testing.assert_array_equal(load(path).decision_function(X_IRIS), model.decision_function(X_IRIS))
    with open(path, "rb") as file:
        np.testing.assert_array_equal(load(file).predict(X_IRIS), model.predict(X_IRIS))


def test_what_cannot_be_saved_is_named():
    with pytest.raises(TypeError, match=r"Cannot save SVC\.kernel: it is a function"):
        save(SVC(kernel=lambda A, B: A @ B.T).fit(X_IRIS, Y_IRIS), io.BytesIO())
    with pytest.raises(TypeError, match=r"Cannot save SVC\.kernel\.func: it is a function"):
        save(SVC(kernel=CallableKernel(np.dot)), io.BytesIO())
    with pytest.raises(TypeError, match=r"Cannot save SVC\.callback: it is a function"):
        save(SVC(callback=print), io.BytesIO())
    with pytest.raises(TypeError, match="save\\(\\) takes an svmkit estimator, got LogisticRegression"):
        save(LogisticRegression(), io.BytesIO())
    tuples = np.empty((4, 1), dtype=object)
    tuples[:, 0] = [(1, 2), (3, 4), (1, 2), (3, 4)]
    model = CategoricalNB().fit(tuples, [0, 1, 0, 1])
    with pytest.raises(TypeError, match=r"CategoricalNB\.categories_\[0\]\[0\]: object arrays may hold .* not tuple"):
        save(model, io.BytesIO())
    with pytest.raises(TypeError, match=r"SVC\.extra_: objects of type .*LogisticRegression are not supported"):
        model = SVC()
        model.extra_ = LogisticRegression()
        save(model, io.BytesIO())


# -- damaged and hostile files ---------------------------------------------------------------

SMALL_MODEL = SVC(kernel="rbf", gamma=0.5).fit(X_IRIS[::3], Y_IRIS[::3])
SMALL_FILE = saved_bytes(SMALL_MODEL)


def rewritten(edit):
    """SMALL_FILE with its metadata changed by ``edit(metadata)``."""
    with np.load(io.BytesIO(SMALL_FILE), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    metadata = json.loads(arrays["metadata"].tobytes())
    edit(metadata)
    arrays["metadata"] = np.frombuffer(json.dumps(metadata).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def member_data_offset(raw, name):
    """Where the compressed bytes of a ZIP member start."""
    info = zipfile.ZipFile(io.BytesIO(raw)).getinfo(name)
    name_length, extra_length = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
    return info.header_offset + 30 + name_length + extra_length, info.compress_size


def test_not_a_zip_file():
    with pytest.raises(ModelFileError, match="not an svmkit model file: not a ZIP archive"):
        load(io.BytesIO(b"svm_type c_svc\n"))


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.999])
def test_truncated_file(fraction):
    with pytest.raises(ModelFileError, match="truncated or corrupted"):
        load(io.BytesIO(SMALL_FILE[: int(len(SMALL_FILE) * fraction)]))


@pytest.mark.parametrize("member", ["metadata.npy", "a3.npy"])
def test_bit_flip_in_the_data_is_detected(member):
    start, size = member_data_offset(SMALL_FILE, member)
    damaged = bytearray(SMALL_FILE)
    damaged[start + size // 2] ^= 0x10
    with pytest.raises(ModelFileError, match="truncated or corrupted svmkit model file"):
        load(io.BytesIO(bytes(damaged)))


@pytest.mark.parametrize(
    "edit, message",
    [
        pytest.param(lambda m: m.update(format="other"), "not an svmkit model file: the format is not 'svmkit-model'", id="format"),
        pytest.param(lambda m: m.update(format_version=2), "format version 2, written by svmkit 0.1.0; .* upgrade svmkit", id="newer"),
        pytest.param(lambda m: m.update(format_version="1"), "format_version '1'", id="version text"),
        pytest.param(lambda m: m.update(estimator="os.system"), "refusing to load 'os.system': only classes of svmkit", id="os.system"),
        pytest.param(
            lambda m: m.update(estimator="svmkit.svm._base.BaseEstimator"), "it is not an estimator class of svmkit", id="imported"
        ),
        pytest.param(lambda m: m.update(estimator="svmkit.kernels.RBFKernel"), "it is not an estimator class of svmkit", id="kernel"),
        pytest.param(lambda m: m.update(estimator="svmkit.__main__.main"), "only classes of svmkit", id="dunder"),
        pytest.param(lambda m: m.update(estimator="svmkit.missing.SVC"), "'svmkit.missing.SVC', which this svmkit does not have", id="missing"),
        pytest.param(lambda m: m["state"]["kernel_"].update({"class": "builtins.eval"}), "refusing to load 'builtins.eval'", id="eval"),
        pytest.param(lambda m: m["state"]["kernel_"].update({"class": "svmkit.kernels.np"}), "it is not a class of svmkit", id="module"),
        pytest.param(lambda m: m["state"].update(support_={"type": "ndarray", "array": "a999"}), "no array 'a999'", id="array"),
        pytest.param(lambda m: m["state"].update(support_={"type": "pickle"}), "unknown value type 'pickle'", id="type"),
        pytest.param(lambda m: m["params"].update(unknown=1), "malformed svmkit model file: TypeError", id="parameter"),
    ],
)
def test_bad_metadata_is_refused(edit, message):
    with pytest.raises(ModelFileError, match=message):
        load(io.BytesIO(rewritten(edit)))


def test_pickled_members_are_refused():
    with np.load(io.BytesIO(SMALL_FILE), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["a0"] = np.array([{"pickled": True}], dtype=object)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    with pytest.raises(ModelFileError, match="refusing member 'a0.npy': it holds pickled Python objects"):
        load(io.BytesIO(buffer.getvalue()))


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=400) | st.binary(max_size=60).map(lambda tail: b"PK\x03\x04" + tail))
def test_arbitrary_bytes_raise_model_file_errors_only(data):
    with pytest.raises(ModelFileError):
        load(io.BytesIO(data))


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(st.integers(0, len(SMALL_FILE) - 1), st.integers(0, 7)), min_size=1, max_size=3), st.integers(1, len(SMALL_FILE)))
def test_damaged_files_raise_or_predict_the_same(flips, length):
    damaged = bytearray(SMALL_FILE[:length])
    for position, bit in flips:
        if position < length:
            damaged[position] ^= 1 << bit
    try:
        loaded = load(io.BytesIO(bytes(damaged)))
    except ModelFileError:
        return
    np.testing.assert_array_equal(loaded.decision_function(X_IRIS), SMALL_MODEL.decision_function(X_IRIS))
