"""LIBSVM model files: svmkit models predict the same in LIBSVM, and LIBSVM models in svmkit."""

import io
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris, load_wine
from sklearn.preprocessing import StandardScaler

from svmkit import SVC
from svmkit.svm import NuSVC
from svmkit.datasets import load_heart_scale
from svmkit.io import LibsvmFormatError, load_libsvm_model, save_libsvm_model
from svmkit.kernels import LinearKernel, RBFKernel

svmutil = pytest.importorskip("libsvm.svmutil")

KERNELS = {
    "rbf": dict(kernel="rbf", gamma=0.1),
    "linear": dict(kernel="linear"),
    "poly": dict(kernel="poly", degree=3, gamma=0.1, coef0=1.0),
    "sigmoid": dict(kernel="sigmoid", gamma=0.01, coef0=-0.5),
}
LIBSVM_OPTIONS = {
    "rbf": "-t 2 -g 0.1",
    "linear": "-t 0",
    "poly": "-t 1 -d 2 -g 0.1 -r 1",
    "sigmoid": "-t 3 -g 0.01 -r -0.5",
}


def _datasets():
    X, y = load_heart_scale()
    wine = load_wine()
    iris = load_iris()
    return {
        "heart_scale": (X, y),
        "wine": (StandardScaler().fit_transform(wine.data), wine.target),
        "iris": (StandardScaler().fit_transform(iris.data), iris.target),
    }


DATASETS = _datasets()


def shuffled(name):
    """The dataset in a seeded random order: LIBSVM then meets the labels unsorted."""
    X, y = DATASETS[name]
    order = np.random.default_rng(0).permutation(y.shape[0])
    return X[order], y[order]


def libsvm_rows(X):
    return [{j + 1: float(v) for j, v in enumerate(row) if v != 0} for row in X]


def precomputed_rows(K):
    return [{0: i + 1, **{j + 1: float(v) for j, v in enumerate(row)}} for i, row in enumerate(K)]


def libsvm_predict(model_path, rows, n_rows):
    labels, _, decisions = svmutil.svm_predict([0] * n_rows, rows, svmutil.svm_load_model(str(model_path)), "-q")
    return np.array(labels), np.array(decisions)


def as_svmkit_decisions(decisions, libsvm_labels, classes):
    """LIBSVM's decision values (pairs in file label order, positive for the first
    label) in svmkit's one-vs-one layout (sorted classes; binary: positive for classes_[1])."""
    position = {label: k for k, label in enumerate(libsvm_labels)}
    if len(classes) == 2:
        return decisions[:, 0] * (1.0 if position[classes[0]] == 1 else -1.0)
    file_pairs = list(combinations(range(len(libsvm_labels)), 2))
    columns = []
    for first, second in combinations(classes, 2):
        a, b = position[first], position[second]
        columns.append(decisions[:, file_pairs.index((min(a, b), max(a, b)))] * (1.0 if a < b else -1.0))
    return np.column_stack(columns)


def libsvm_predict_probabilities(model_path, X):
    """LIBSVM's decision values and probabilities (columns in sorted label order)."""
    model = svmutil.svm_load_model(str(model_path))
    rows = libsvm_rows(X)
    _, _, decisions = svmutil.svm_predict([0] * X.shape[0], rows, model, "-q")
    _, _, probabilities = svmutil.svm_predict([0] * X.shape[0], rows, model, "-q -b 1")
    columns = np.argsort(model.get_labels())
    return np.array(decisions), np.array(probabilities)[:, columns]


def svmkit_pairwise(model, X):
    """``P(class i | i or j)`` of svmkit's pairs from probA_ and probB_."""
    decisions = ovo_decisions(model, X)
    f = -decisions[:, None] if decisions.ndim == 1 else decisions  # positive for class i
    return 1.0 / (1.0 + np.exp(model.probA_ * f + model.probB_))


def as_svmkit_pairwise(probabilities, libsvm_labels, classes):
    """``P(first label of the pair)`` of LIBSVM's pairs, for svmkit's sorted pairs."""
    position = {label: k for k, label in enumerate(libsvm_labels)}
    file_pairs = list(combinations(range(len(libsvm_labels)), 2))
    columns = []
    for first, second in combinations(classes, 2):
        a, b = position[first], position[second]
        p = probabilities[:, file_pairs.index((min(a, b), max(a, b)))]
        columns.append(p if a < b else 1.0 - p)
    return np.column_stack(columns)


def ovo_decisions(model, X):
    model.set_params(decision_function_shape="ovo")
    return model.decision_function(X)


def assert_close_decisions(ours, theirs):
    """Equal to round-off: 1e-12 relative, and 1e-12 of the largest value for values near 0."""
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12 * np.abs(theirs).max())


def model_bytes(model):
    buffer = io.BytesIO()
    save_libsvm_model(model, buffer)
    return buffer.getvalue()


# -- svmkit -> LIBSVM ------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", ["heart_scale", "wine"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_svmkit_model_predicts_the_same_in_libsvm(tmp_path, dataset, kernel):
    X, y = DATASETS[dataset]
    model = SVC(C=1.0, **KERNELS[kernel]).fit(X, y)
    save_libsvm_model(model, tmp_path / "svmkit.model")
    labels, decisions = libsvm_predict(tmp_path / "svmkit.model", libsvm_rows(X), X.shape[0])
    np.testing.assert_array_equal(labels, model.predict(X))
    header = (tmp_path / "svmkit.model").read_text().split("\nSV\n")[0]
    libsvm_labels = [int(label) for label in header.split("label ")[1].split("\n")[0].split()]
    assert libsvm_labels == model.classes_.astype(int).tolist()
    assert_close_decisions(ovo_decisions(model, X), as_svmkit_decisions(decisions, libsvm_labels, model.classes_))


def test_binary_file_flips_the_signs_of_svmkit():
    X, y = DATASETS["heart_scale"]
    model = SVC(kernel="rbf", gamma=0.1).fit(X, y)
    lines = model_bytes(model).decode().split("\n")
    assert lines[:4] == ["svm_type c_svc", "kernel_type rbf", "gamma 0.10000000000000001", "nr_class 2"]
    assert lines[4] == f"total_sv {model.support_.shape[0]}"
    assert lines[5] == f"rho {model.intercept_[0]:.17g}"
    assert lines[6:9] == ["label -1 1", f"nr_sv {model.n_support_[0]} {model.n_support_[1]}", "SV"]
    first_sv = lines[9].split()
    assert float(first_sv[0]) == -model.dual_coef_[0, 0]
    features = np.flatnonzero(model.support_vectors_[0])
    assert first_sv[1:] == [f"{j + 1}:{model.support_vectors_[0, j]:.17g}" for j in features]


def test_multiclass_file_keeps_the_signs_of_svmkit():
    X, y = DATASETS["iris"]
    model = SVC(kernel="linear").fit(X, y)
    lines = model_bytes(model).decode().split("\n")
    assert lines[4] == "rho " + " ".join(f"{-b:.17g}" for b in model.intercept_)
    assert lines[5:8] == ["label 0 1 2", "nr_sv " + " ".join(map(str, model.n_support_)), "SV"]
    coefficients = np.array([line.split()[:2] for line in lines[8:-1]], dtype=float)
    np.testing.assert_array_equal(coefficients, model.dual_coef_.T)


def test_precomputed_kernel_in_libsvm(tmp_path):
    X, y = DATASETS["heart_scale"]
    K = RBFKernel(gamma=0.2)(X, X)
    model = SVC(kernel="precomputed").fit(K, y)
    save_libsvm_model(model, tmp_path / "precomputed.model")
    sv_lines = (tmp_path / "precomputed.model").read_text().split("\nSV\n")[1].splitlines()
    assert [line.split()[1] for line in sv_lines] == [f"0:{row + 1}" for row in model.support_]
    labels, decisions = libsvm_predict(tmp_path / "precomputed.model", precomputed_rows(K), K.shape[0])
    np.testing.assert_array_equal(labels, model.predict(K))
    assert_close_decisions(model.decision_function(K), -decisions[:, 0])


def test_sparse_support_vectors_write_their_nonzeros_only(tmp_path):
    X, y = DATASETS["heart_scale"]
    X_sparse = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
    model = SVC(kernel="linear").fit(X_sparse, y)
    save_libsvm_model(model, tmp_path / "sparse.model")
    sv_lines = (tmp_path / "sparse.model").read_text().split("\nSV\n")[1].splitlines()
    assert [len(line.split()) - 1 for line in sv_lines] == np.diff(model.support_vectors_.indptr).tolist()
    labels, _ = libsvm_predict(tmp_path / "sparse.model", libsvm_rows(X_sparse.toarray()), X.shape[0])
    np.testing.assert_array_equal(labels, model.predict(X_sparse))


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_save_load_save_gives_the_same_file(kernel):
    X, y = DATASETS["wine"]
    model = SVC(**KERNELS[kernel]).fit(X, y)
    text = model_bytes(model)
    reloaded = load_libsvm_model(io.BytesIO(text))
    assert model_bytes(reloaded) == text
    np.testing.assert_array_equal(reloaded.predict(X), model.predict(X))
    np.testing.assert_allclose(reloaded.decision_function(X), model.decision_function(X), rtol=1e-12, atol=1e-12)


def test_svmkit_binary_probabilities_in_libsvm(tmp_path):
    X, y = DATASETS["heart_scale"]
    model = SVC(kernel="rbf", gamma=0.2, probability=True, random_state=0).fit(X, y)
    save_libsvm_model(model, tmp_path / "probability.model")
    lines = (tmp_path / "probability.model").read_text().split("\n")
    assert lines[7:9] == [f"probA {model.probA_[0]:.17g}", f"probB {model.probB_[0]:.17g}"]
    # LIBSVM's binary probabilities are the sigmoid of the pair (no coupling)
    _, probabilities = libsvm_predict_probabilities(tmp_path / "probability.model", X)
    positive = svmkit_pairwise(model, X)[:, 0]
    np.testing.assert_allclose(probabilities, np.column_stack([positive, 1 - positive]), rtol=1e-12, atol=1e-15)


def test_svmkit_multiclass_probabilities_in_libsvm(tmp_path):
    X, y = DATASETS["iris"]
    model = SVC(kernel="rbf", gamma=0.2, probability=True, random_state=0).fit(X, y)
    save_libsvm_model(model, tmp_path / "probability.model")
    lines = (tmp_path / "probability.model").read_text().split("\n")
    assert lines[7] == "probA " + " ".join(f"{a:.17g}" for a in model.probA_)
    assert lines[8] == "probB " + " ".join(f"{b:.17g}" for b in model.probB_)
    # coupling is iterative, stopped at a tolerance: equal to about 1e-7
    _, probabilities = libsvm_predict_probabilities(tmp_path / "probability.model", X)
    np.testing.assert_allclose(model.predict_proba(X), probabilities, atol=1e-6)


def test_nu_svc_model_predicts_the_same_in_libsvm(tmp_path):
    # two classes: libsvm-official 3.37's svm_predict overruns its buffer of
    # decision values for nu_svc models with more classes (even LIBSVM's own)
    X, y = DATASETS["heart_scale"]
    model = NuSVC(nu=0.3, kernel="rbf", gamma=0.1).fit(X, y)
    save_libsvm_model(model, tmp_path / "nu.model")
    assert (tmp_path / "nu.model").read_text().startswith("svm_type nu_svc\n")
    labels, decisions = libsvm_predict(tmp_path / "nu.model", libsvm_rows(X), X.shape[0])
    np.testing.assert_array_equal(labels, model.predict(X))
    assert_close_decisions(model.decision_function(X), -decisions[:, 0])


def test_models_libsvm_cannot_hold_are_refused():
    X, y = DATASETS["iris"]
    with pytest.raises(ValueError, match="multiclass='ovr' with 3 classes"):
        model_bytes(SVC(multiclass="ovr").fit(X, y))
    with pytest.raises(ValueError, match="this model uses SumKernel"):
        model_bytes(SVC(kernel=LinearKernel() + RBFKernel(gamma=1.0)).fit(X, y))
    with pytest.raises(ValueError, match="this model uses a callable kernel"):
        model_bytes(SVC(kernel=lambda A, B: A @ B.T).fit(X, y))
    with pytest.raises(ValueError, match=r"integer labels; the classes of this model are \['a', 'b'\]"):
        model_bytes(SVC().fit(X[:100], np.where(y[:100] == 0, "a", "b")))
    with pytest.raises(TypeError, match="LIBSVM model files hold SVC, NuSVC, OneClassSVM, SVR, NuSVR models"):
        model_bytes(RBFKernel(gamma=1.0))


def test_binary_ovr_and_kernel_objects_are_saved():
    X, y = DATASETS["heart_scale"]
    by_name = SVC(kernel="rbf", gamma=0.25).fit(X, y)
    by_object = SVC(kernel=RBFKernel(gamma=0.25), multiclass="ovr").fit(X, y)
    assert model_bytes(by_object) == model_bytes(by_name)


# -- LIBSVM -> svmkit ------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", ["heart_scale", "wine", "iris"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_libsvm_model_predicts_the_same_in_svmkit(tmp_path, dataset, kernel):
    X, y = shuffled(dataset)
    trained = svmutil.svm_train(list(y), libsvm_rows(X), LIBSVM_OPTIONS[kernel] + " -q")
    svmutil.svm_save_model(str(tmp_path / "libsvm.model"), trained)
    labels, decisions = libsvm_predict(tmp_path / "libsvm.model", libsvm_rows(X), X.shape[0])
    model = load_libsvm_model(tmp_path / "libsvm.model", n_features=X.shape[1])
    assert trained.get_labels() != sorted(trained.get_labels())  # the order svmkit must undo
    np.testing.assert_array_equal(model.classes_, np.unique(y).astype(int))
    np.testing.assert_array_equal(model.predict(X), labels)
    assert_close_decisions(ovo_decisions(model, X), as_svmkit_decisions(decisions, trained.get_labels(), model.classes_))


def test_loaded_model_attributes():
    text = b"""svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 3
total_sv 4
rho 0.25 -0.5 0.75
label 3 1 2
nr_sv 2 1 1
SV
1 0.5 1:1 3:2
-1 0 2:1
-1 0.25 1:-1
0 -0.75 3:4
"""
    model = load_libsvm_model(io.BytesIO(text))
    np.testing.assert_array_equal(model.classes_, [1, 2, 3])
    np.testing.assert_array_equal(model.n_support_, [1, 1, 2])
    np.testing.assert_array_equal(model.support_, [0, 1, 2, 3])
    assert model.n_features_in_ == 3 and model.kernel_ == RBFKernel(gamma=0.5)
    assert model.get_params()["gamma"] == 0.5
    assert sp.issparse(model.support_vectors_)
    np.testing.assert_array_equal(model.support_vectors_.toarray(), [[-1, 0, 0], [0, 0, 4], [1, 0, 2], [0, 1, 0]])
    # svmkit's pair (1, 2) is LIBSVM's third pair; (1, 3) and (2, 3) are LIBSVM's (3, 1) and
    # (3, 2) with the opposite sign
    np.testing.assert_array_equal(model.intercept_, [-0.75, 0.25, -0.5])
    np.testing.assert_array_equal(model._problem_coef, [[0.25, 1.0, 0.0], [-0.75, 0.0, 0.0], [0.0, -1.0, -0.5], [0.0, 1.0, 0.0]])
    np.testing.assert_array_equal(model.dual_coef_, [[0.25, -0.75, -1.0, 1.0], [1.0, 0.0, -0.5, 0.0]])
    assert [(m.positive_class, m.negative_class) for m in model.binary_models_] == [(0, 1), (0, 2), (1, 2)]
    np.testing.assert_array_equal(model.binary_models_[1].indices, [0, 2, 3])
    np.testing.assert_array_equal(model.binary_models_[1].alpha, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(model.binary_models_[1].y, [1.0, -1.0, 1.0])
    assert np.isnan(model.binary_models_[1].upper).all()
    assert not hasattr(model, "alpha_") and not hasattr(model, "margin_")


@pytest.mark.parametrize("dataset", ["heart_scale", "iris"])
def test_loaded_platt_parameters_are_libsvm_ones(tmp_path, dataset):
    X, y = shuffled(dataset)
    trained = svmutil.svm_train(list(y), libsvm_rows(X), "-t 2 -g 0.2 -b 1 -q")
    svmutil.svm_save_model(str(tmp_path / "probability.model"), trained)
    decisions, probabilities = libsvm_predict_probabilities(tmp_path / "probability.model", X)
    model = load_libsvm_model(tmp_path / "probability.model")
    assert model.probability
    header = dict(line.split(" ", 1) for line in (tmp_path / "probability.model").read_text().split("\nSV\n")[0].split("\n"))
    prob_a, prob_b = (np.array(header[key].split(), dtype=float) for key in ("probA", "probB"))
    libsvm_pairwise = as_svmkit_pairwise(1.0 / (1.0 + np.exp(prob_a * decisions + prob_b)), trained.get_labels(), model.classes_)
    np.testing.assert_allclose(svmkit_pairwise(model, X), libsvm_pairwise, rtol=1e-9)
    if dataset == "heart_scale":  # LIBSVM's binary probabilities are the pair's sigmoid
        np.testing.assert_allclose(svmkit_pairwise(model, X)[:, 0], probabilities[:, 0], rtol=1e-9)
    assert load_libsvm_model(io.BytesIO(model_bytes(model))).probB_.tolist() == model.probB_.tolist()


def test_loaded_probabilities_match_libsvm(tmp_path):
    X, y = DATASETS["iris"]
    trained = svmutil.svm_train(list(y), libsvm_rows(X), "-t 2 -g 0.2 -b 1 -q")
    svmutil.svm_save_model(str(tmp_path / "probability.model"), trained)
    _, probabilities = libsvm_predict_probabilities(tmp_path / "probability.model", X)
    model = load_libsvm_model(tmp_path / "probability.model")
    np.testing.assert_allclose(model.predict_proba(X), probabilities, atol=1e-6)


def test_libsvm_precomputed_model_loads(tmp_path):
    X, y = shuffled("iris")
    K = X @ X.T
    trained = svmutil.svm_train(list(y), precomputed_rows(K), "-t 4 -q")
    svmutil.svm_save_model(str(tmp_path / "precomputed.model"), trained)
    labels, decisions = libsvm_predict(tmp_path / "precomputed.model", precomputed_rows(K), K.shape[0])
    model = load_libsvm_model(tmp_path / "precomputed.model", n_features=K.shape[0])
    assert model.support_vectors_.shape == (0, 150) and model.shape_fit_ == (150, 150)
    np.testing.assert_array_equal(np.sort(model.support_), np.sort(np.array(trained.get_sv_indices()) - 1))
    np.testing.assert_array_equal(model.predict(K), labels)
    assert_close_decisions(ovo_decisions(model, K), as_svmkit_decisions(decisions, trained.get_labels(), model.classes_))


def test_n_features():
    text = b"svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 2:1\n-1 1:1\n"
    assert load_libsvm_model(io.BytesIO(text)).n_features_in_ == 2
    model = load_libsvm_model(io.BytesIO(text), n_features=5)
    assert model.support_vectors_.shape == (2, 5)
    np.testing.assert_array_equal(model.predict(np.array([[0.0, 2.0, 0, 0, 9.0]])), [1])
    with pytest.raises(ValueError, match="n_features=1 is smaller than the largest feature index"):
        load_libsvm_model(io.BytesIO(text), n_features=1)


# -- malformed files -------------------------------------------------------------------------

VALID = """svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 3
total_sv 3
rho 0.1 0.2 0.3
label 1 2 3
nr_sv 1 1 1
SV
1 1 1:1
-1 1 2:1
-1 -1 3:1
"""


def broken(old, new):
    assert old in VALID
    return VALID.replace(old, new, 1).encode()


MALFORMED = {
    "empty": (b"", "the file ends before the 'SV' line", None),
    "truncated header": (VALID[:40].encode(), "the file ends before the 'SV' line", 3),
    "truncated support vectors": (VALID[: VALID.rindex("-1 -1")].encode(), "the file ends after 2 of the 3 support vectors", 11),
    "truncated line": (VALID[:-3].encode(), "expected 'index:value': '3'", 12),
    "unknown svm_type": (broken("c_svc", "c_svm"), "line 1: unknown svm_type (expected one of c_svc, nu_svc, one_class, epsilon_svr, nu_svr): 'c_svm'", 1),
    "label of a regression": (broken("c_svc", "nu_svr"), "nu_svr models have no 'label'", 7),
    "unknown kernel": (broken("rbf", "laplace"), "unknown kernel_type", 2),
    "unknown keyword": (broken("gamma 0.5", "gama 0.5"), "unknown header keyword: 'gama'", 3),
    "missing gamma": (broken("gamma 0.5\n", ""), "the header lacks 'gamma' before 'SV'", 8),
    "gamma 0": (broken("gamma 0.5", "gamma 0"), "gamma must be > 0", 3),
    "duplicate": (broken("nr_class 3\n", "nr_class 3\nnr_class 3\n"), "'nr_class' appears twice", 5),
    "rho count": (broken("rho 0.1 0.2 0.3", "rho 0.1 0.2"), "'rho' needs 3 values, found 2", 6),
    "label count": (broken("label 1 2 3", "label 1 2"), "'label' needs 3 values, found 2", 7),
    "same labels": (broken("label 1 2 3", "label 1 2 1"), "the labels are not distinct", 7),
    "nr_sv sum": (broken("nr_sv 1 1 1", "nr_sv 1 2 1"), "nr_sv adds up to 4, not total_sv = 3", 8),
    "rho first": (broken("nr_class 3\n", "").replace(b"rho 0.1 0.2 0.3\n", b"rho 0.1 0.2 0.3\nnr_class 3\n"), "'rho' comes before 'nr_class'", 5),
    "nr_class 1": (broken("nr_class 3", "nr_class 1"), "nr_class must be at least 2", 4),
    "bad number": (broken("rho 0.1", "rho 0.1x"), "expected a number: '0.1x'", 6),
    "infinite": (broken("-1 1 2:1", "-1 inf 2:1"), "expected a finite number: 'inf'", 11),
    "bad integer": (broken("total_sv 3", "total_sv 3.0"), "expected a 32-bit integer: '3.0'", 5),
    "too few coefficients": (broken("-1 -1 3:1", "-1"), "expected 2 coefficients", 12),
    "bad feature": (broken("1 1 1:1", "1 1 1:1 2"), "expected 'index:value': '2'", 10),
    "index 0": (broken("1 1 1:1", "1 1 0:1"), "feature indices start at 1: '0:1'", 10),
    "descending": (broken("1 1 1:1", "1 1 2:1 1:1"), "feature index is not greater than the one before it: '1:1'", 10),
    "extra support vector": (VALID.encode() + b"1 1 1:2\n", "text after the 3 support vectors", 13),
    "SV with values": (broken("SV\n", "SV 3\n"), "the 'SV' line takes no values", 9),
    "not ascii": (broken("1 1 1:1", "1 1 1:\u00bd"), "a LIBSVM model file is ASCII text", 10),
    "blank header line": (broken("nr_class 3\n", "\nnr_class 3\n"), "blank line in the header", 4),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_files_name_the_problem_and_line(name):
    text, message, line = MALFORMED[name]
    with pytest.raises(LibsvmFormatError, match=message.replace("(", r"\(").replace(")", r"\)")) as error:
        load_libsvm_model(io.BytesIO(text))
    assert error.value.line == line


def test_precomputed_support_vectors_need_a_serial_number():
    text = VALID.replace("rbf\ngamma 0.5", "precomputed").replace("1 1 1:1", "1 1 0:2.5")
    with pytest.raises(LibsvmFormatError, match="line 9: the serial number of a support vector is an integer >= 1"):
        load_libsvm_model(io.BytesIO(text.encode()))


def test_valid_text_loads():
    model = load_libsvm_model(io.BytesIO(VALID.replace("\n", "\r\n").encode()))
    np.testing.assert_array_equal(model.predict(np.eye(3)), [1, 2, 3])


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_format_errors_only(data):
    try:
        load_libsvm_model(io.BytesIO(data))
    except LibsvmFormatError:
        pass


@settings(deadline=None, max_examples=300)
@given(st.integers(0, len(VALID) - 1), st.sampled_from(list(" \n:.-+0123456789eSVabc")))
def test_edited_files_load_or_raise_format_errors(position, character):
    text = (VALID[:position] + character + VALID[position + 1 :]).encode()
    try:
        model = load_libsvm_model(io.BytesIO(text))
    except LibsvmFormatError:
        return
    assert model.predict(np.zeros((1, model.n_features_in_))).shape == (1,)


def test_docstring_examples_of_the_model_files_and_the_command_line():
    import doctest

    import svmkit._libsvm_ranges
    import svmkit.cli
    import svmkit.cli._folds
    import svmkit.io.libsvm_model

    for module in (svmkit.io.libsvm_model, svmkit.cli, svmkit.cli._folds, svmkit._libsvm_ranges):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0
