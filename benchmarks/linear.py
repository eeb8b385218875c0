"""Fit time of svmkit's LinearSVC against scikit-learn's (LIBLINEAR) at equal objective.

Runs both estimators with the same C, loss, tol and max_iter, interleaved in one
process (after one warm-up fit each, so that numba's compilation is not timed),
and prints the median fit times (wall clock and CPU), their ratios
(svmkit / scikit-learn) and the
primal objectives ``1/2 ||w||^2 + C sum loss`` (bias included) of both models.

Data: a9a (from ``--data-dir``, skipped when absent) and a synthetic sparse
tf-idf-like CSR matrix (20000 x 50000, 0.2 % density, seeded).

Usage::

    python benchmarks/linear.py [--data-dir /work/shared/data] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC as SklearnLinearSVC

from svmkit.linear import LinearSVC


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


def timed_fit(model, X, y):
    """Wall-clock and CPU seconds of one fit (both single-threaded: CPU time is immune to other
    processes on a shared machine)."""
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    return (time.perf_counter() - wall, time.process_time() - cpu), model


def compare(name, X, y, loss, C, tol, max_iter, repeats):
    # Repetition r uses random_state=r for both: the visiting order decides how fast shrinking
    # proceeds (and, at max_iter, the cost of a pass), so a single seed would compare two orders.
    settings = dict(C=C, loss=loss, tol=tol, max_iter=max_iter)
    make = {
        "svmkit": lambda seed: LinearSVC(random_state=seed, **settings),
        "sklearn": lambda seed: SklearnLinearSVC(dual=True, random_state=seed, **settings),
    }
    times = {key: [] for key in make}
    models = {}
    for key in make:  # warm-up (numba compilation, caches)
        timed_fit(make[key](0), X, y)
    for seed in range(repeats):
        for key in make:
            elapsed, models[key] = timed_fit(make[key](seed), X, y)
            times[key].append(elapsed)
    wall = {key: float(np.median([t[0] for t in values])) for key, values in times.items()}
    cpu = {key: float(np.median([t[1] for t in values])) for key, values in times.items()}
    objectives = {key: primal_objective(X, y, m.coef_, m.intercept_, loss, C) for key, m in models.items()}
    relative = abs(objectives["svmkit"] - objectives["sklearn"]) / objectives["sklearn"]
    print(
        f"{name:8s} {loss:13s} n={X.shape[0]:6d} d={X.shape[1]:6d} nnz={X.nnz:8d} | "
        f"svmkit {wall['svmkit']:6.3f} s (cpu {cpu['svmkit']:6.3f}, {models['svmkit'].n_iter_:4d} passes)  "
        f"sklearn {wall['sklearn']:6.3f} s (cpu {cpu['sklearn']:6.3f}, {int(models['sklearn'].n_iter_):4d} passes)  "
        f"ratio {wall['svmkit'] / wall['sklearn']:4.2f} (cpu {cpu['svmkit'] / cpu['sklearn']:4.2f}) | "
        f"objective {objectives['svmkit']:.6f} vs {objectives['sklearn']:.6f} (rel. diff {relative:.1e})"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--max-iter", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)

    datasets = {}
    a9a = load_a9a(args.data_dir)
    if a9a is None:
        print(f"a9a not found in {args.data_dir}: skipped")
    else:
        datasets["a9a"] = a9a
    datasets["tfidf"] = synthetic_tfidf()
    print(
        f"C={args.C} tol={args.tol} max_iter={args.max_iter}, median of {args.repeats} interleaved fits "
        f"(random_state 0..{args.repeats - 1}, the same for both)"
    )
    for name, (X, y) in datasets.items():
        for loss in ("hinge", "squared_hinge"):
            compare(name, X, y, loss, args.C, args.tol, args.max_iter, args.repeats)


if __name__ == "__main__":
    main()
