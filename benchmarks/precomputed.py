"""SVC with a precomputed kernel: svmkit against scikit-learn (LIBSVM) and scikit-learn-intelex.

Every library fits the same float64 Gram matrix of the training rows (linear and RBF kernels,
gamma='scale' computed from the training data, C = 1, tol = 1e-3) and predicts from the matrix of
the test rows against the training rows. Fits are interleaved in one process after one warm-up
fit each (numba's compilation is not timed), the libraries' order alternating from round to
round, so that each library's fits follow the others' alike. The script prints per case the
median fit and predict (decision_function) times, their ratios to scikit-learn's, the dual
objective computed the same way for every library (summed over the one-vs-one pairs, from
``dual_coef_``, ``support_`` and the Gram matrix), the number of support vectors and the test
accuracy.

Data: digits (scikit-learn's, 1,797 x 64, 10 classes, 3/4 for training), usps (the first 2,000
training rows and 1,000 test rows, 10 classes) and splice (1,000 x 60, two classes) from
``--data-dir`` where present, and make_classification with 10 classes (1,000 x 20) and 4 classes
(1,400 x 20); features standardised on the training rows (usps and splice as they are).

Usage::

    python benchmarks/precomputed.py [--repeats 7] [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
from _common import DEFAULT_DATA_DIR, library_versions, ovo_pair_coefficients, text_table
from sklearn.datasets import load_digits, load_svmlight_file, make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as LibsvmSVC

from svmkit import SVC


def libraries():
    """``{name: estimator class}``: svmkit, scikit-learn and, where installed, scikit-learn-intelex."""
    found = {"svmkit": SVC, "sklearn": LibsvmSVC}
    try:
        from sklearnex.svm import SVC as OnedalSVC
    except ImportError:
        print("scikit-learn-intelex is not installed: its column is left out")
    else:
        found["sklearnex"] = OnedalSVC
    return found


def datasets(data_dir):
    """``{name: (X_train, y_train, X_test, y_test)}``."""
    found = {}
    X, y = load_digits(return_X_y=True)
    found["digits"] = _standardised(*train_test_split(X, y, random_state=0))
    for n, k in ((1000, 10), (1400, 4)):
        X, y = make_classification(int(n / 0.75), 20, n_informative=8, n_redundant=0, n_classes=k,
                                   n_clusters_per_class=1, flip_y=0.05, random_state=0)
        found[f"{n}x20/{k}"] = _standardised(*train_test_split(X, y, train_size=n, random_state=0))
    data_dir = Path(data_dir)
    if (data_dir / "usps.bz2").exists() and (data_dir / "usps.t.bz2").exists():
        X, y = load_svmlight_file(str(data_dir / "usps.bz2"), n_features=256)
        X_test, y_test = load_svmlight_file(str(data_dir / "usps.t.bz2"), n_features=256)
        found["usps-2000"] = (X[:2000].toarray(), y[:2000], X_test[:1000].toarray(), y_test[:1000])
    if (data_dir / "splice").exists() and (data_dir / "splice.t").exists():
        X, y = load_svmlight_file(str(data_dir / "splice"), n_features=60)
        X_test, y_test = load_svmlight_file(str(data_dir / "splice.t"), n_features=60)
        found["splice"] = (X.toarray(), y, X_test.toarray(), y_test)
    return found


def _standardised(X_train, X_test, y_train, y_test):
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), y_train, scaler.transform(X_test), y_test


def kernel_matrices(kernel, X_train, X_test):
    """The training Gram matrix and the test-by-training matrix (RBF: gamma='scale')."""
    if kernel == "linear":
        return X_train @ X_train.T, X_test @ X_train.T
    gamma = 1.0 / (X_train.shape[1] * X_train.var())

    def rbf(A, B):
        squared = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2.0 * A @ B.T
        return np.exp(-gamma * np.maximum(squared, 0.0))

    return rbf(X_train, X_train), rbf(X_test, X_train)


def dual_objective(model, gram):
    """``sum |c| - 1/2 c'Kc`` summed over the one-vs-one pairs, from LIBSVM's layout."""
    coefficients, _ = ovo_pair_coefficients(model.dual_coef_, model.n_support_)
    K = gram[np.ix_(model.support_, model.support_)]
    return float(np.abs(coefficients).sum() - 0.5 * np.einsum("ip,ip->", coefficients, K @ coefficients))


def compare(name, kernel, data, classes, repeats):
    X_train, y_train, X_test, y_test = data
    gram, test_gram = kernel_matrices(kernel, X_train, X_test)
    fit_times = {library: [] for library in classes}
    predict_times = {library: [] for library in classes}
    models = {}
    order = list(classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (scikit-learn-intelex's notes on its fallbacks)
        for round_number in range(repeats + 1):
            for library in order if round_number % 2 else order[::-1]:
                start = time.perf_counter()
                model = classes[library](kernel="precomputed", C=1.0, tol=1e-3).fit(gram, y_train)
                fitted = time.perf_counter()
                model.decision_function(test_gram)
                predicted = time.perf_counter()
                if round_number:  # (the first round warms up)
                    fit_times[library].append(fitted - start)
                    predict_times[library].append(predicted - fitted)
                models[library] = model
    fit = {library: statistics.median(times) for library, times in fit_times.items()}
    predict = {library: statistics.median(times) for library, times in predict_times.items()}
    rows = []
    for library, model in models.items():
        rows.append([
            name, f"{X_train.shape[0]}/{np.unique(y_train).shape[0]}", kernel, library, f"{fit[library] * 1e3:.2f}",
            f"{fit[library] / fit['sklearn']:.2f}", f"{predict[library] * 1e3:.3f}",
            f"{predict[library] / predict['sklearn']:.2f}", f"{dual_objective(model, gram):.6f}",
            str(model.support_.shape[0]), f"{100 * np.mean(model.predict(test_gram) == y_test):.2f}",
        ])
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    args = parser.parse_args(argv)
    print(", ".join(f"{name} {version}" for name, version in library_versions().items()))
    classes = libraries()
    rows = []
    for name, data in datasets(args.data_dir).items():
        for kernel in ("rbf", "linear"):
            rows += compare(name, kernel, data, classes, args.repeats)
            print(text_table(HEADER, rows[-len(classes):]), flush=True)
    print(f"\n== summary (medians of {args.repeats} interleaved rounds) ==")
    print(text_table(HEADER, rows))


HEADER = ["dataset", "rows/classes", "kernel", "library", "fit ms", "/sklearn", "predict ms", "/sklearn",
          "dual objective", "nSV", "acc %"]

if __name__ == "__main__":
    main()
