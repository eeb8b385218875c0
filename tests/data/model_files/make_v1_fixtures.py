"""Write the version-1 model files that ``tests/test_persistence.py`` loads.

Run it with an svmkit that writes format version 1 (svmkit before the model files of named
fields, e.g. commit 3b4a6cb installed in its own environment)::

    /path/to/old/.venv/bin/python tests/data/model_files/make_v1_fixtures.py

It fits every estimator of that svmkit on tiny data, saves each as ``<name>.v1.svmkit``
beside this script, and writes ``expected.json``: for each file, the input the test
predicts on and what the saved estimator's methods returned on it (predictions, decision
values, probabilities, transforms), and some of its theory attributes.
"""

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

import svmkit
from svmkit import (
    SVC,
    SVR,
    CategoricalNB,
    GaussianNB,
    KernelPerceptron,
    LibsvmScaler,
    LinearSVC,
    MixedNB,
    NuSVC,
    NuSVR,
    OneClassSVM,
    PegasosSVC,
    Perceptron,
    SVCGridSearch,
)
from svmkit.io import load_libsvm_model, save_libsvm_model
from svmkit.kernels import ColumnSubsetKernel, KernelPolynomial, QuadraticFormKernel, RBFKernel
from svmkit.persistence import FORMAT_VERSION, save

HERE = Path(__file__).resolve().parent
METHODS = ("predict", "decision_function", "predict_proba", "score_samples", "transform")
#: Theory attributes recorded where the estimator has them.
THEORY = ("alpha_", "dual_objective_", "margin_", "effective_C_", "epsilon_", "t_", "n_support_", "loo_bound_")


def tiny_data():
    """18 rows of two well-spread features in three classes, and 14 rows for regression."""
    rng = np.random.RandomState(0)
    centres = np.array([[0.0, 0.0], [2.0, 0.5], [0.5, 2.0]])
    X = np.vstack([centre + 0.6 * rng.randn(6, 2) for centre in centres]).round(3)
    y = np.repeat([0, 1, 2], 6)
    X_regression = np.linspace(-2.0, 2.0, 14).reshape(-1, 1).round(3)
    y_regression = (1.5 * X_regression[:, 0] + 0.3 * np.sin(4 * X_regression[:, 0])).round(3)
    return X, y, X_regression, y_regression


def table():
    rng = np.random.RandomState(1)
    frame = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], 16),
        "size": rng.choice([1, 2, 3], 16),
        "weight": rng.normal(50, 10, 16).round(2),
    })
    frame.loc[3, "weight"] = np.nan
    y = np.where(frame["weight"].fillna(50) + 10 * (frame["colour"] == "red") > 52, "yes", "no")
    return frame, y


def from_libsvm(X, y):
    """An SVC read from a LIBSVM model file (no training set, its problems on the support vectors)."""
    buffer = io.BytesIO()
    save_libsvm_model(SVC(kernel="rbf", gamma=0.7, C=2.0).fit(X, y), buffer)
    return load_libsvm_model(io.BytesIO(buffer.getvalue()))


def cases():
    X, y, X_regression, y_regression = tiny_data()
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    binary = y < 2
    frame, y_frame = table()
    composite = ColumnSubsetKernel(RBFKernel(gamma=0.5), [0]) + 0.5 * KernelPolynomial(
        QuadraticFormKernel(np.diag([1.0, 0.5])), [1.0, 1.0])
    gram = RBFKernel(gamma=0.4)(X, X)
    categories = np.array([["a", "x"], ["b", "x"], ["a", "y"], ["c", "y"]] * 4, dtype=object)
    y_categories = np.array([0, 1, 0, 1, 1, 1, 0, 0] * 2)
    return {
        "svc_binary": (SVC(kernel="rbf", gamma="scale"), (X[binary], y[binary]), X),
        "svc_ovo_strings": (SVC(kernel="poly", degree=2, C=2.0, class_weight={"setosa": 2.0}), (X, names), X),
        "svc_ovr": (SVC(kernel="linear", multiclass="ovr", decision_function_shape="ovo"), (X, y), X),
        "svc_probability": (SVC(probability=True, random_state=0), (X, y), X),
        "svc_precomputed": (SVC(kernel="precomputed"), (gram, y), gram[:6]),
        "svc_sparse": (SVC(kernel="linear"), (sp.csr_matrix(np.where(X > 0.5, X, 0.0)), y), sp.csr_matrix(X)),
        "svc_composite_kernel": (SVC(kernel=composite), (X, y), X),
        "svc_from_libsvm": (None, (X, y), X),
        "nu_svc": (NuSVC(nu=0.3), (X, y), X),
        "one_class_svm": (OneClassSVM(nu=0.3, gamma=0.5), (X,), X),
        "svr": (SVR(C=5.0, epsilon=0.2), (X_regression, y_regression), X_regression),
        "nu_svr": (NuSVR(C=5.0, nu=0.4, kernel="linear"), (X_regression, y_regression), X_regression),
        "linear_svc": (LinearSVC(C=1.0, random_state=0), (X, y), X),
        "pegasos_svc": (PegasosSVC(C=2.0, max_iter=20, random_state=0), (X, y), X),
        "perceptron": (Perceptron(max_iter=50), (X, y), X),
        "kernel_perceptron": (KernelPerceptron(kernel="rbf", gamma=1.0, max_iter=50), (X, y), X),
        "gaussian_nb": (GaussianNB(), (X, y), X),
        "categorical_nb": (CategoricalNB(alpha=0.5), (categories, y_categories), categories),
        "mixed_nb": (MixedNB(), (frame, y_frame), frame),
        "libsvm_scaler": (LibsvmScaler(lower=0.0, upper=1.0), (X,), X),
        "grid_search": (SVCGridSearch(log2_C=(0, 2, 2), log2_gamma=(-1, -3, -2), cv=2), (X, y), X),
        "grid_search_standard": (
            SVCGridSearch(log2_C=(0, 2, 2), log2_gamma=(-1, -3, -2), cv=2, scaling="standard"), (X, y), X),
    }


def describe_input(X):
    """The test input as JSON: dense rows, CSR rows (written dense), a DataFrame or object rows."""
    if sp.issparse(X):
        return {"kind": "csr", "rows": X.toarray().tolist()}
    if isinstance(X, pd.DataFrame):
        columns = {name: [None if pd.isna(value) else value for value in X[name].tolist()] for name in X.columns}
        return {"kind": "frame", "columns": columns}
    if X.dtype == object:
        return {"kind": "objects", "rows": X.tolist()}
    return {"kind": "dense", "rows": X.tolist()}


def as_json(value):
    if isinstance(value, np.ndarray):
        return {"dtype": value.dtype.str, "values": value.tolist()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def outputs(estimator, X):
    found = {}
    for name in METHODS:
        if hasattr(estimator, name):
            try:
                found[name] = as_json(getattr(estimator, name)(X))
            except Exception:  # (methods the fitted model refuses, e.g. predict_proba without probability)
                continue
    return found


def theory(estimator):
    found = {}
    for name in THEORY:
        try:
            found[name] = as_json(getattr(estimator, name))
        except (AttributeError, ValueError):
            continue
    return found


def main():
    if FORMAT_VERSION != 1:
        raise SystemExit(f"this svmkit writes format version {FORMAT_VERSION}; run the script with one that writes 1")
    warnings.simplefilter("ignore")
    expected = {"svmkit_version": svmkit.__version__, "files": {}}
    for name, (estimator, data, X_test) in cases().items():
        estimator = from_libsvm(*data) if estimator is None else estimator.fit(*data)
        path = HERE / f"{name}.v1.svmkit"
        save(estimator, path)
        expected["files"][path.name] = {
            "estimator": type(estimator).__name__,
            "input": describe_input(X_test),
            "outputs": outputs(estimator, X_test),
            "theory": theory(estimator),
        }
        print(f"{path.name}: {path.stat().st_size} bytes")
    lines = [f"  {json.dumps(name)}: {json.dumps(entry)}" for name, entry in expected["files"].items()]
    text = f'{{"svmkit_version": {json.dumps(expected["svmkit_version"])}, "files": {{\n' + ",\n".join(lines) + "\n}}\n"
    (HERE / "expected.json").write_text(text)


if __name__ == "__main__":
    main()
