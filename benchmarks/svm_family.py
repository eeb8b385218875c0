"""Fit time of svmkit's NuSVC, OneClassSVM, SVR and NuSVR against scikit-learn's (LIBSVM).

Both libraries get the same data, kernel (RBF, gamma='scale'), tol=1e-3 and
parameters; fits are interleaved in one process after one warm-up fit each (so
that numba's compilation is not timed), and the script prints the median wall
and CPU times, their ratio (svmkit / scikit-learn, target <= 0.5), and how far
the two models agree: support-vector counts and prediction agreement
(classifiers and one-class) or the largest prediction difference over std(y)
(regression). A second line gives the median prediction times
(``decision_function`` of NuSVC and OneClassSVM, ``predict`` of SVR and NuSVR, on
the training rows, once after each fit; the warm-up predicts once too).

Each model's dual objective is computed from its fitted attributes
(``dual_coef_``, ``support_vectors_``, ``support_``, ``n_support_``) the same way
for every library, as LIBSVM's dual value of its problem, larger being better
(see :func:`dual_value`); the JSON results hold it, for the report's comparison
with LIBSVM.

Data: a9a (random 8000-row subsample, sparse), splice and svmguide1 (scaled to
[-1, 1]) from ``--data-dir`` (skipped when absent); for regression,
make_friedman1 (5000 x 10, seeded) and load_diabetes repeated 10 times with a
small seeded jitter (4420 x 10), features and targets standardised. Small
problems for quick checks, only when named in ``--datasets``: heart (heart_scale,
270 x 13, scaled already), iris and wine (standardised) for NuSVC and
OneClassSVM, diabetes (442 x 10, standardised) for SVR and NuSVR.

Before each case's warm-up, ``--prefault-mb`` (1,024) MB of fresh memory are written once and
freed (``_common.prefault``, as ``benchmarks/svc.py`` does): on a virtual machine that backs
memory when it is first touched, a fit that writes pages the process never wrote before pays
2-3 ms a MB (SVR on friedman1-5000, whose kernel rows take 78 MB: 0.39 s for a first fit, 0.17 s
for the next; the medians of 5 here, alternated with LIBSVM's fits, were 0.34 s without it and
0.22 s with it).

``--baseline PYTHON`` also times the svmkit installed for another interpreter,
side by side (library ``baseline``, see ``_baseline.py``; its times are the
worker's own); ``--json PATH`` writes the results for ``benchmarks/report.py``.

Usage::

    python benchmarks/svm_family.py [--data-dir /work/shared/data] [--repeats 5]
        [--datasets a9a-8000,splice,...] [--baseline PYTHON] [--json benchmarks/results/svm_family.json]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn import svm as libsvm
from sklearn.datasets import load_diabetes, load_iris, load_svmlight_file, load_wine, make_friedman1
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from svmkit.svm import SVR, NuSVC, NuSVR, OneClassSVM

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    DEFAULT_DATA_DIR,
    PeakRSS,
    kernel_quadratic_forms,
    library_versions,
    numeric_gamma,
    ovo_pair_coefficients,
    prefault,
    shape_text,
    write_json,
)

ESTIMATORS = {
    "NuSVC": (NuSVC, libsvm.NuSVC, dict(nu=0.3)),
    "OneClassSVM": (OneClassSVM, libsvm.OneClassSVM, dict(nu=0.1)),
    "SVR": (SVR, libsvm.SVR, dict(C=1.0, epsilon=0.1)),
    "NuSVR": (NuSVR, libsvm.NuSVR, dict(C=1.0, nu=0.3)),
}
PREDICT_METHOD = {"NuSVC": "decision_function", "OneClassSVM": "decision_function", "SVR": "predict",
                  "NuSVR": "predict"}
CLASSIFICATION = ("a9a-8000", "splice", "svmguide1-scaled")
REGRESSION = ("friedman1-5000", "diabetes-x10")
SMALL_CLASSIFICATION = ("heart", "iris", "wine")  # only when named
SMALL_REGRESSION = ("diabetes",)  # only when named


@dataclass
class Case:
    """One estimator on one dataset: what ``_common.write_json`` records."""

    dataset: str
    shape_text: str
    params_text: str
    results: dict = field(default_factory=dict)


def classification_set(name, data_dir):
    """``(X, y)`` of a classification dataset, or None when its file is missing."""
    data_dir = Path(data_dir)
    if name == "iris":
        X, y = load_iris(return_X_y=True)
        return StandardScaler().fit_transform(X), y
    if name == "wine":
        X, y = load_wine(return_X_y=True)
        return StandardScaler().fit_transform(X), y
    file_name = {"a9a-8000": "a9a", "splice": "splice", "svmguide1-scaled": "svmguide1", "heart": "heart_scale"}[name]
    if not (data_dir / file_name).exists():
        return None
    if name == "a9a-8000":
        X, y = load_svmlight_file(str(data_dir / "a9a"), n_features=123)
        rows = np.sort(np.random.default_rng(0).choice(X.shape[0], size=8000, replace=False))
        return X[rows], y[rows]
    X, y = load_svmlight_file(str(data_dir / file_name))
    if name == "svmguide1-scaled":
        return MinMaxScaler((-1, 1)).fit_transform(X.toarray()), y
    return X.toarray(), y


def regression_set(name):
    """``(X, y)`` of a regression dataset, features and targets standardised."""
    if name == "friedman1-5000":
        X, y = make_friedman1(n_samples=5000, noise=1.0, random_state=0)
        return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()
    data = load_diabetes()
    if name == "diabetes":
        return StandardScaler().fit_transform(data.data), (data.target - data.target.mean()) / data.target.std()
    rng = np.random.default_rng(0)
    X = np.tile(data.data, (10, 1))
    X = StandardScaler().fit_transform(X + 0.01 * X.std(axis=0) * rng.normal(size=X.shape))
    y = np.tile(data.target, 10)
    return X, (y - y.mean()) / y.std()


def timed_fit(library, model, X, y):
    """Wall and CPU seconds and the peak RSS increase (MB) of one fit; for the baseline's proxy
    the worker's own figures (without the pipe)."""
    with PeakRSS() as memory:
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if library == "baseline":
        return model.fit_seconds, model.fit_cpu_seconds, model.peak_mb
    return wall, cpu, memory.peak_mb


def timed_predict(library, model, method, X):
    """Wall seconds of one prediction (the worker's own for the baseline)."""
    started = time.perf_counter()
    getattr(model, method)(X)
    seconds = time.perf_counter() - started
    return model.predict_seconds if library == "baseline" else seconds


def agreement_value(name, model, oracle, X, y):
    """``("agreement", fraction of equal predictions)`` for classifiers and one-class,
    ``("max_diff", max |prediction difference| / std(y))`` for regression."""
    if name in ("SVR", "NuSVR"):
        return "max_diff", float(np.abs(model.predict(X) - oracle.predict(X)).max() / y.std())
    return "agreement", float(np.mean(model.predict(X) == oracle.predict(X)))


def agreement(name, ours, oracle, X, y):
    key, value = agreement_value(name, ours, oracle, X, y)
    if key == "max_diff":
        return f"max|pred diff|/std(y) {value:.1e}"
    return f"predictions agree {value:.4f}"


def dual_value(name, model, y, gamma, params):
    """LIBSVM's dual objective of a fitted model as a value to maximise (larger is better),
    from ``dual_coef_`` and ``support_vectors_`` with the RBF kernel formula, so that it is the
    same computation for every library:

    * NuSVC: LIBSVM solves ``min 1/2 a'Qa`` over 0 <= a <= 1 with sum a = nu l for each
      one-vs-one pair (l rows) and stores c = y a / r; with sum |c| = nu l / r the
      multipliers are a = |c| nu l / sum |c|, and the value is the sum over pairs of -1/2 a'Qa;
    * OneClassSVM: ``-1/2 a'Ka`` (``dual_coef_`` holds a);
    * SVR: ``y'c - epsilon sum |c| - 1/2 c'Kc``; NuSVR: ``y'c - 1/2 c'Kc``
      (c = ``dual_coef_``, y the targets of the support vectors).
    """
    if name == "NuSVC":
        coefficients, pairs = ovo_pair_coefficients(model.dual_coef_, model.n_support_)
        counts = [int(np.sum(y == label)) for label in model.classes_]
        quadratic = kernel_quadratic_forms(model.support_vectors_, coefficients, "rbf", gamma)
        total = 0.0
        for column, (i, j) in enumerate(pairs):
            scale = params["nu"] * (counts[i] + counts[j]) / np.abs(coefficients[:, column]).sum()
            total -= 0.5 * scale**2 * quadratic[column]
        return float(total)
    coefficients = model.dual_coef_  # (scikit-learn keeps it sparse after a sparse fit)
    coefficients = np.asarray(coefficients.toarray() if sp.issparse(coefficients) else coefficients,
                              dtype=np.float64).ravel()
    quadratic = float(kernel_quadratic_forms(model.support_vectors_, coefficients, "rbf", gamma)[0])
    if name == "OneClassSVM":
        return -0.5 * quadratic
    value = float(np.asarray(y, dtype=np.float64)[np.asarray(model.support_)] @ coefficients) - 0.5 * quadratic
    if name == "SVR":
        value -= params["epsilon"] * float(np.abs(coefficients).sum())
    return value


def compare(name, dataset, X, y, repeats, baseline_classes=None, prefault_mb=0.0):
    """Interleaved fits (and predictions) of every library on one dataset, after ``prefault_mb``
    MB of fresh memory written and freed; prints the lines and returns the :class:`Case`."""
    ours_class, oracle_class, params = ESTIMATORS[name]
    make = {"svmkit": lambda: ours_class(**params)}
    if baseline_classes:
        make["baseline"] = lambda: baseline_classes[name](**params)
    make["sklearn"] = lambda: oracle_class(**params)
    method = PREDICT_METHOD[name]
    models = {key: factory() for key, factory in make.items()}
    prefault(prefault_mb)
    for key, model in models.items():  # warm-up
        timed_fit(key, model, X, y)
        getattr(model, method)(X)
    times = {key: [] for key in make}
    predict_times = {key: [] for key in make}
    for _ in range(repeats):
        for key, factory in make.items():
            models[key] = factory()
            times[key].append(timed_fit(key, models[key], X, y))
            predict_times[key].append(timed_predict(key, models[key], method, X))
    wall = {key: statistics.median(t[0] for t in values) for key, values in times.items()}
    cpu = {key: statistics.median(t[1] for t in values) for key, values in times.items()}
    predict = {key: statistics.median(values) for key, values in predict_times.items()}
    n_sv = {key: model.support_.shape[0] for key, model in models.items()}
    print(
        f"{name:11s} {dataset:17s} n={X.shape[0]:5d} | svmkit {wall['svmkit']:7.3f} s (cpu {cpu['svmkit']:7.3f})  "
        f"sklearn {wall['sklearn']:7.3f} s (cpu {cpu['sklearn']:7.3f})  "
        f"ratio {wall['svmkit'] / wall['sklearn']:5.2f} (cpu {cpu['svmkit'] / cpu['sklearn']:5.2f}) | "
        f"nSV {n_sv['svmkit']} vs {n_sv['sklearn']}, {agreement(name, models['svmkit'], models['sklearn'], X, y)}"
    )
    print(f"{'':11s} {method:17s} {'':7s} | svmkit {predict['svmkit']:9.5f} s  sklearn {predict['sklearn']:9.5f} s  "
          f"ratio {predict['svmkit'] / predict['sklearn']:5.2f}")
    if "baseline" in models:
        print(
            f"{'':11s} {'baseline':17s} {'':7s} | fit {wall['baseline']:7.3f} s (cpu {cpu['baseline']:7.3f})  "
            f"predict {predict['baseline']:9.5f} s  svmkit/baseline fit {wall['svmkit'] / wall['baseline']:5.2f} "
            f"(cpu {cpu['svmkit'] / cpu['baseline']:5.2f}) predict {predict['svmkit'] / predict['baseline']:5.2f} | "
            f"nSV {n_sv['baseline']}, {agreement(name, models['baseline'], models['sklearn'], X, y)}"
        )

    gamma = numeric_gamma("scale", X)
    setting = " ".join(f"{key}={value:g}" for key, value in params.items())
    case = Case(dataset, shape_text(X), f"{name} {setting} rbf g={gamma:.4g} (scale)")
    for key, model in models.items():
        result = {
            "fits": len(times[key]), "fit": float(wall[key]), "fit_cpu": float(cpu[key]),
            "predict": float(predict[key]), "memory": float(np.nanmax([t[2] for t in times[key]])),
            "n_sv": int(n_sv[key]), "objective": dual_value(name, model, y, gamma, params),
        }
        if key != "sklearn":
            quality, value = agreement_value(name, model, models["sklearn"], X, y)
            result[quality] = value
        case.results[key] = result
    return case


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--repeats", type=int, default=5)
    known = CLASSIFICATION + REGRESSION + SMALL_CLASSIFICATION + SMALL_REGRESSION
    parser.add_argument("--datasets", default=",".join(CLASSIFICATION + REGRESSION), help=f"any of {', '.join(known)}")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="also time the svmkit installed for this interpreter (another venv), side by side")
    parser.add_argument("--json", help="also write the results to this JSON file (benchmarks/results/)")
    parser.add_argument("--prefault-mb", type=float, default=1024.0,
                        help="fresh memory written and freed before each case's warm-up (0: none)")
    args = parser.parse_args(argv)
    datasets = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = [name for name in datasets if name not in known]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}: not among {', '.join(known)}")

    baseline, baseline_classes = None, None
    versions = library_versions()
    if args.baseline:
        from _baseline import BaselineWorker, estimator_class

        baseline = BaselineWorker(args.baseline)
        baseline_classes = {name: estimator_class(baseline, name) for name in ESTIMATORS}
        versions["baseline"] = baseline.version
        print(f"baseline: svmkit {baseline.version} under {args.baseline}")

    classification = {}
    for name in datasets:
        if name in CLASSIFICATION + SMALL_CLASSIFICATION:
            data = classification_set(name, args.data_dir)
            if data is not None:
                classification[name] = data
    regression = {name: regression_set(name) for name in datasets if name in REGRESSION + SMALL_REGRESSION}
    if not classification and any(name in CLASSIFICATION + SMALL_CLASSIFICATION for name in datasets):
        print(f"no LIBSVM files in {args.data_dir}: NuSVC and OneClassSVM skipped")
    settings = (f"RBF kernel, gamma='scale', tol=1e-3, median of {args.repeats} interleaved fits after a warm-up, "
                f"--prefault-mb {args.prefault_mb:g}")
    print(settings)
    cases = []
    for name in ("NuSVC", "OneClassSVM"):
        for dataset, (X, y) in classification.items():
            cases.append(compare(name, dataset, X, y, args.repeats, baseline_classes, args.prefault_mb))
    for name in ("SVR", "NuSVR"):
        for dataset, (X, y) in regression.items():
            cases.append(compare(name, dataset, X, y, args.repeats, baseline_classes, args.prefault_mb))

    if args.json:
        command = "python benchmarks/svm_family.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        extra = {
            "anchors": {"sklearn": "LIBSVM"}, "objective_kind": "dual",
            "settings": settings + "; predictions (decision_function of NuSVC and OneClassSVM, predict of SVR "
                        "and NuSVR) on the training rows",
        }
        write_json(args.json, "svm_family", command, versions, cases, extra=extra)
    if baseline is not None:
        baseline.close()


if __name__ == "__main__":
    main()
