"""Fit time of svmkit's LinearSVC against scikit-learn's (LIBLINEAR) at equal objective.

Runs both estimators with the same C, loss, tol and max_iter, interleaved in one
process (after one warm-up fit each, so that numba's compilation is not timed),
and prints the median fit times (wall clock and CPU), their ratios
(svmkit / scikit-learn) and the
primal objectives ``1/2 ||w||^2 + C sum loss`` (bias included) of both models.
A second line gives the median times of ``decision_function`` on the training
rows (once after each fit; the warm-up calls it once too).

Data: a9a (from ``--data-dir``, skipped when absent) and a synthetic sparse
tf-idf-like CSR matrix (20000 x 50000, 0.2 % density, seeded); for quick checks,
only when named in ``--datasets``, heart (heart_scale, 270 x 13, as CSR).

``--baseline PYTHON`` also times the svmkit installed for another interpreter,
side by side (library ``baseline``, see ``_baseline.py``; its times are the
worker's own); ``--json PATH`` writes the results for ``benchmarks/report.py``.

Usage::

    python benchmarks/linear.py [--data-dir /work/shared/data] [--repeats 5] [--datasets a9a,tfidf]
        [--baseline PYTHON] [--json benchmarks/results/linear.json]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC as SklearnLinearSVC

from svmkit.linear import LinearSVC

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DEFAULT_DATA_DIR, PeakRSS, library_versions, shape_text, write_json  # noqa: E402

DATASETS = ("a9a", "tfidf")
SMALL_DATASETS = ("heart",)  # only when named


@dataclass
class Case:
    """One loss on one dataset: what ``_common.write_json`` records."""

    dataset: str
    shape_text: str
    params_text: str
    results: dict = field(default_factory=dict)


def with_int32_indices(X):
    """CSR with 32-bit indices (scikit-learn's LIBLINEAR wrapper rejects 64-bit ones)."""
    X = sp.csr_matrix(X)
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)


def load_a9a(data_dir):
    path = Path(data_dir) / "a9a"
    if not path.exists():
        return None
    X, y = load_svmlight_file(str(path), n_features=123)
    return with_int32_indices(X), y


def load_heart(data_dir):
    """heart_scale (270 x 13, scaled to [-1, 1], labels -1/+1) as CSR, or None when missing."""
    path = Path(data_dir) / "heart_scale"
    if not path.exists():
        return None
    X, y = load_svmlight_file(str(path), n_features=13)
    return with_int32_indices(X), y


def synthetic_tfidf(n_samples=20000, n_features=50000, density=0.002, seed=0):
    """Sparse non-negative rows of unit norm with Zipf-like feature frequencies, labels from a sparse linear rule."""
    rng = np.random.default_rng(seed)
    nnz_per_row = rng.poisson(density * n_features, size=n_samples).clip(1)
    popularity = 1.0 / np.arange(1, n_features + 1) ** 0.8
    popularity /= popularity.sum()
    indptr = np.concatenate([[0], np.cumsum(nnz_per_row)]).astype(np.int32)
    indices = rng.choice(n_features, size=indptr[-1], p=popularity).astype(np.int32)
    data = rng.exponential(1.0, size=indptr[-1])
    X = sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features))
    X.sum_duplicates()
    X = with_int32_indices(normalize(X))
    true_weights = rng.normal(size=n_features) * (rng.random(n_features) < 0.05)
    scores = X @ true_weights
    y = np.where(scores + 0.3 * scores.std() * rng.normal(size=n_samples) > np.median(scores), 1, -1)
    return X, y


def primal_objective(X, y, coef, intercept, loss, C):
    """``1/2 (||w||^2 + b^2) + C sum loss`` for intercept_scaling = 1 and y in {-1, +1}."""
    slack = np.maximum(0.0, 1.0 - y * (X @ coef.ravel() + intercept[0]))
    losses = slack if loss == "hinge" else slack**2
    return 0.5 * (coef.ravel() @ coef.ravel() + intercept[0] ** 2) + C * losses.sum()


def timed_fit(library, model, X, y):
    """Wall-clock and CPU seconds and the peak RSS increase (MB) of one fit (both
    single-threaded: CPU time is immune to other processes on a shared machine); for the
    baseline's proxy the worker's own figures (without the pipe)."""
    with PeakRSS() as memory:
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if library == "baseline":
        return (model.fit_seconds, model.fit_cpu_seconds, model.peak_mb), model
    return (wall, cpu, memory.peak_mb), model


def timed_decision(library, model, X):
    """Wall seconds of one ``decision_function`` (the worker's own for the baseline)."""
    started = time.perf_counter()
    model.decision_function(X)
    seconds = time.perf_counter() - started
    return model.predict_seconds if library == "baseline" else seconds


def compare(name, X, y, loss, C, tol, max_iter, repeats, baseline_class=None):
    """Interleaved fits (and predictions) of every library on one dataset and loss; prints the
    lines and returns the :class:`Case`."""
    # Repetition r uses random_state=r for all: the visiting order decides how fast shrinking
    # proceeds (and, at max_iter, the cost of a pass), so a single seed would compare two orders.
    settings = dict(C=C, loss=loss, tol=tol, max_iter=max_iter)
    make = {"svmkit": lambda seed: LinearSVC(random_state=seed, **settings)}
    if baseline_class is not None:
        make["baseline"] = lambda seed: baseline_class(random_state=seed, **settings)
    make["sklearn"] = lambda seed: SklearnLinearSVC(dual=True, random_state=seed, **settings)
    times = {key: [] for key in make}
    predict_times = {key: [] for key in make}
    models = {}
    for key in make:  # warm-up (numba compilation, caches)
        timed_fit(key, make[key](0), X, y)[1].decision_function(X)
    for seed in range(repeats):
        for key in make:
            elapsed, models[key] = timed_fit(key, make[key](seed), X, y)
            times[key].append(elapsed)
            predict_times[key].append(timed_decision(key, models[key], X))
    wall = {key: float(np.median([t[0] for t in values])) for key, values in times.items()}
    cpu = {key: float(np.median([t[1] for t in values])) for key, values in times.items()}
    predict = {key: float(np.median(values)) for key, values in predict_times.items()}
    objectives = {key: primal_objective(X, y, m.coef_, m.intercept_, loss, C) for key, m in models.items()}
    relative = abs(objectives["svmkit"] - objectives["sklearn"]) / objectives["sklearn"]
    print(
        f"{name:8s} {loss:13s} n={X.shape[0]:6d} d={X.shape[1]:6d} nnz={X.nnz:8d} | "
        f"svmkit {wall['svmkit']:6.3f} s (cpu {cpu['svmkit']:6.3f}, {models['svmkit'].n_iter_:4d} passes)  "
        f"sklearn {wall['sklearn']:6.3f} s (cpu {cpu['sklearn']:6.3f}, {int(models['sklearn'].n_iter_):4d} passes)  "
        f"ratio {wall['svmkit'] / wall['sklearn']:4.2f} (cpu {cpu['svmkit'] / cpu['sklearn']:4.2f}) | "
        f"objective {objectives['svmkit']:.6f} vs {objectives['sklearn']:.6f} (rel. diff {relative:.1e})"
    )
    print(f"{'':8s} {'decision_function':44s} | svmkit {predict['svmkit']:9.5f} s  "
          f"sklearn {predict['sklearn']:9.5f} s  ratio {predict['svmkit'] / predict['sklearn']:4.2f}")
    if "baseline" in models:
        base_relative = abs(objectives["baseline"] - objectives["sklearn"]) / objectives["sklearn"]
        print(
            f"{'':8s} {'baseline':44s} | fit {wall['baseline']:6.3f} s (cpu {cpu['baseline']:6.3f}, "
            f"{int(models['baseline'].n_iter_):4d} passes)  predict {predict['baseline']:9.5f} s  "
            f"svmkit/baseline fit {wall['svmkit'] / wall['baseline']:4.2f} "
            f"(cpu {cpu['svmkit'] / cpu['baseline']:4.2f}) predict {predict['svmkit'] / predict['baseline']:4.2f} | "
            f"objective {objectives['baseline']:.6f} (rel. diff {base_relative:.1e})"
        )

    case = Case(name, shape_text(X), f"{loss} C={C:g} tol={tol:g} max_iter={max_iter}")
    for key, model in models.items():
        case.results[key] = {
            "fits": len(times[key]), "fit": wall[key], "fit_cpu": cpu[key], "predict": predict[key],
            "memory": float(np.nanmax([t[2] for t in times[key]])), "n_iter": int(np.max(model.n_iter_)),
            "objective": float(objectives[key]),
        }
    return case


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--max-iter", type=int, default=1000)
    parser.add_argument("--datasets", default=",".join(DATASETS),
                        help=f"any of {', '.join(DATASETS + SMALL_DATASETS)}")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="also time the svmkit installed for this interpreter (another venv), side by side")
    parser.add_argument("--json", help="also write the results to this JSON file (benchmarks/results/)")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = [name for name in names if name not in DATASETS + SMALL_DATASETS]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}: not among {', '.join(DATASETS + SMALL_DATASETS)}")
    warnings.simplefilter("ignore", ConvergenceWarning)

    baseline, baseline_class = None, None
    versions = library_versions()
    if args.baseline:
        from _baseline import BaselineWorker, estimator_class

        baseline = BaselineWorker(args.baseline)
        baseline_class = estimator_class(baseline, "LinearSVC")
        versions["baseline"] = baseline.version
        print(f"baseline: svmkit {baseline.version} under {args.baseline}")

    datasets = {}
    for name in names:
        if name == "tfidf":
            datasets["tfidf"] = synthetic_tfidf()
            continue
        data = (load_a9a if name == "a9a" else load_heart)(args.data_dir)
        if data is None:
            print(f"{name} not found in {args.data_dir}: skipped")
        else:
            datasets[name] = data
    settings = (f"C={args.C} tol={args.tol} max_iter={args.max_iter}, median of {args.repeats} interleaved fits "
                f"(random_state 0..{args.repeats - 1}, the same for {'all' if baseline else 'both'})")
    print(settings)
    cases = []
    for name, (X, y) in datasets.items():
        for loss in ("hinge", "squared_hinge"):
            cases.append(compare(name, X, y, loss, args.C, args.tol, args.max_iter, args.repeats, baseline_class))

    if args.json:
        command = "python benchmarks/linear.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        extra = {
            "anchors": {"sklearn": "LIBLINEAR"}, "objective_kind": "primal",
            "settings": settings + "; predictions: decision_function on the training rows",
        }
        write_json(args.json, "linear", command, versions, cases, extra=extra)
    if baseline is not None:
        baseline.close()


if __name__ == "__main__":
    main()
