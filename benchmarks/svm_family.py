"""Fit time of svmkit's NuSVC, OneClassSVM, SVR and NuSVR against scikit-learn's (LIBSVM).

Both libraries get the same data, kernel (RBF, gamma='scale'), tol=1e-3 and
parameters; fits are interleaved in one process after one warm-up fit each (so
that numba's compilation is not timed), and the script prints the median wall
and CPU times, their ratio (svmkit / scikit-learn, target <= 0.5), and how far
the two models agree: support-vector counts and prediction agreement
(classifiers and one-class) or the largest prediction difference over std(y)
(regression).

Data: a9a (random 8000-row subsample, sparse), splice and svmguide1 (scaled to
[-1, 1]) from ``--data-dir`` (skipped when absent); for regression,
make_friedman1 (5000 x 10, seeded) and load_diabetes repeated 10 times with a
small seeded jitter (4420 x 10), features and targets standardised.

Usage::

    python benchmarks/svm_family.py [--data-dir /work/shared/data] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn import svm as libsvm
from sklearn.datasets import load_diabetes, load_svmlight_file, make_friedman1
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from svmkit.svm import SVR, NuSVC, NuSVR, OneClassSVM

ESTIMATORS = {
    "NuSVC": (NuSVC, libsvm.NuSVC, dict(nu=0.3)),
    "OneClassSVM": (OneClassSVM, libsvm.OneClassSVM, dict(nu=0.1)),
    "SVR": (SVR, libsvm.SVR, dict(C=1.0, epsilon=0.1)),
    "NuSVR": (NuSVR, libsvm.NuSVR, dict(C=1.0, nu=0.3)),
}


def classification_sets(data_dir):
    """``{name: (X, y)}`` of the shared LIBSVM files that are present."""
    data_dir = Path(data_dir)
    sets = {}
    if (data_dir / "a9a").exists():
        X, y = load_svmlight_file(str(data_dir / "a9a"), n_features=123)
        rows = np.sort(np.random.default_rng(0).choice(X.shape[0], size=8000, replace=False))
        sets["a9a-8000"] = (X[rows], y[rows])
    if (data_dir / "splice").exists():
        X, y = load_svmlight_file(str(data_dir / "splice"))
        sets["splice"] = (X.toarray(), y)
    if (data_dir / "svmguide1").exists():
        X, y = load_svmlight_file(str(data_dir / "svmguide1"))
        sets["svmguide1-scaled"] = (MinMaxScaler((-1, 1)).fit_transform(X.toarray()), y)
    return sets


def regression_sets():
    X, y = make_friedman1(n_samples=5000, noise=1.0, random_state=0)
    sets = {"friedman1-5000": (StandardScaler().fit_transform(X), (y - y.mean()) / y.std())}
    data = load_diabetes()
    rng = np.random.default_rng(0)
    X = np.tile(data.data, (10, 1))
    X = StandardScaler().fit_transform(X + 0.01 * X.std(axis=0) * rng.normal(size=X.shape))
    y = np.tile(data.target, 10)
    sets["diabetes-x10"] = (X, (y - y.mean()) / y.std())
    return sets


def timed_fit(model, X, y):
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    return time.perf_counter() - wall, time.process_time() - cpu


def agreement(name, ours, oracle, X, y):
    if name in ("SVR", "NuSVR"):
        return f"max|pred diff|/std(y) {np.abs(ours.predict(X) - oracle.predict(X)).max() / y.std():.1e}"
    return f"predictions agree {np.mean(ours.predict(X) == oracle.predict(X)):.4f}"


def compare(name, dataset, X, y, repeats):
    ours_class, oracle_class, params = ESTIMATORS[name]
    make = {"svmkit": lambda: ours_class(**params), "sklearn": lambda: oracle_class(**params)}
    models = {key: factory() for key, factory in make.items()}
    for key, model in models.items():  # warm-up
        timed_fit(model, X, y)
    times = {key: [] for key in make}
    for _ in range(repeats):
        for key, factory in make.items():
            models[key] = factory()
            times[key].append(timed_fit(models[key], X, y))
    wall = {key: statistics.median(t[0] for t in values) for key, values in times.items()}
    cpu = {key: statistics.median(t[1] for t in values) for key, values in times.items()}
    n_sv = {key: model.support_.shape[0] for key, model in models.items()}
    print(
        f"{name:11s} {dataset:17s} n={X.shape[0]:5d} | svmkit {wall['svmkit']:7.3f} s (cpu {cpu['svmkit']:7.3f})  "
        f"sklearn {wall['sklearn']:7.3f} s (cpu {cpu['sklearn']:7.3f})  "
        f"ratio {wall['svmkit'] / wall['sklearn']:5.2f} (cpu {cpu['svmkit'] / cpu['sklearn']:5.2f}) | "
        f"nSV {n_sv['svmkit']} vs {n_sv['sklearn']}, {agreement(name, models['svmkit'], models['sklearn'], X, y)}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    classification = classification_sets(args.data_dir)
    if not classification:
        print(f"no LIBSVM files in {args.data_dir}: NuSVC and OneClassSVM skipped")
    print(f"RBF kernel, gamma='scale', tol=1e-3, median of {args.repeats} interleaved fits after a warm-up")
    for name in ("NuSVC", "OneClassSVM"):
        for dataset, (X, y) in classification.items():
            compare(name, dataset, X, y, args.repeats)
    for name in ("SVR", "NuSVR"):
        for dataset, (X, y) in regression_sets().items():
            compare(name, dataset, X, y, args.repeats)


if __name__ == "__main__":
    main()
