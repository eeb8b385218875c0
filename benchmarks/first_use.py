"""First use: the time of the first fits and predictions after an install, numba's cache empty.

svmkit's compiled code is compiled on first use and cached on disk. This script runs, in a
fresh process with an empty numba cache (a temporary ``NUMBA_CACHE_DIR``), each step below once
and times it; the first steps pay the compilation of what they use, later ones only for what
is new to them. Then it runs the same steps in a second process on the now-filled cache
(``cached``), which is what every later run of a user's program pays.

Steps: the demo's first fit (``SVC``, RBF, on the heart data shipped with svmkit), then every
public estimator fitted and used to predict once: C-SVC two-class dense / multiclass / sparse /
probability / large enough for the blocked strategy (10,000 rows), nu-SVC, one-class, epsilon-
and nu-SVR, LinearSVC, Pegasos, the perceptrons, the naive Bayes classifiers, the grid search
and the LIBSVM scaler; data generated or shipped with scikit-learn, so that it needs no
downloads.

With ``--baseline PYTHON`` the same is run with another svmkit install's interpreter (e.g.
a virtual environment of an older commit) for comparison.

Usage::

    python benchmarks/first_use.py [--baseline PYTHON] [--json benchmarks/results/first_use.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEPS = (
    "demo first fit", "SVC two-class dense", "SVC multiclass", "SVC sparse", "SVC probability",
    "SVC blocked (10,000 rows)", "NuSVC", "OneClassSVM", "SVR", "NuSVR", "LinearSVC", "PegasosSVC",
    "Perceptron", "KernelPerceptron", "GaussianNB", "CategoricalNB", "MixedNB", "SVCGridSearch",
    "LibsvmScaler",
)


def run_steps():
    """Run every step once in this process; print ``{step: seconds}`` as JSON."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn.datasets import load_diabetes, load_digits, load_iris, make_classification

    import svmkit
    from svmkit.datasets import load_heart_scale

    X_heart, y_heart = load_heart_scale()
    X_iris, y_iris = load_iris(return_X_y=True)
    X_digits, y_digits = load_digits(return_X_y=True)
    X_digits = X_digits / 16.0
    X_sparse = sp.csr_matrix(np.where(X_digits > 0.5, X_digits, 0.0))
    X_reg, y_reg = load_diabetes(return_X_y=True)
    X_large, y_large = make_classification(n_samples=10_000, n_features=20, flip_y=0.1, random_state=0)
    X_counts = np.random.default_rng(0).integers(0, 4, size=(300, 6))
    y_counts = (X_counts[:, 0] + X_counts[:, 1] > 3).astype(int)
    X_mixed = np.column_stack([X_counts[:, :2], X_counts[:, 2:] + np.random.default_rng(1).normal(size=(300, 4))])

    def fit_predict(model, X, y=None):
        model.fit(X, y) if y is not None else model.fit(X)
        model.predict(X)

    steps = {
        "demo first fit": lambda: svmkit.SVC(kernel="rbf").fit(X_heart, y_heart),
        "SVC two-class dense": lambda: fit_predict(svmkit.SVC(kernel="linear"), X_heart, y_heart),
        "SVC multiclass": lambda: fit_predict(svmkit.SVC(), X_digits, y_digits),
        "SVC sparse": lambda: fit_predict(svmkit.SVC(), X_sparse, y_digits),
        "SVC probability": lambda: svmkit.SVC(probability=True, random_state=0).fit(X_iris, y_iris).predict_proba(
            X_iris),
        "SVC blocked (10,000 rows)": lambda: fit_predict(svmkit.SVC(cache_size=100), X_large, y_large),
        "NuSVC": lambda: fit_predict(svmkit.NuSVC(nu=0.3), X_iris, y_iris),
        "OneClassSVM": lambda: fit_predict(svmkit.OneClassSVM(nu=0.1), X_heart),
        "SVR": lambda: fit_predict(svmkit.SVR(C=10.0), X_reg, y_reg),
        "NuSVR": lambda: fit_predict(svmkit.NuSVR(C=10.0), X_reg, y_reg),
        "LinearSVC": lambda: fit_predict(svmkit.LinearSVC(), X_digits, y_digits),
        "PegasosSVC": lambda: fit_predict(svmkit.PegasosSVC(random_state=0), X_heart, y_heart),
        "Perceptron": lambda: fit_predict(svmkit.Perceptron(), X_iris, y_iris),
        "KernelPerceptron": lambda: fit_predict(svmkit.KernelPerceptron(), X_heart, y_heart),
        "GaussianNB": lambda: fit_predict(svmkit.GaussianNB(), X_iris, y_iris),
        "CategoricalNB": lambda: fit_predict(svmkit.CategoricalNB(), X_counts, y_counts),
        "MixedNB": lambda: fit_predict(svmkit.MixedNB(categorical=[0, 1]), X_mixed, y_counts),
        "SVCGridSearch": lambda: svmkit.SVCGridSearch(log2_C=(0, 4, 2), log2_gamma=(-1, -5, -2), cv=3).fit(
            X_iris, y_iris),
        "LibsvmScaler": lambda: svmkit.LibsvmScaler().fit(X_heart).transform(X_heart),
    }
    times = {}
    for name in STEPS:
        start = time.perf_counter()
        steps[name]()
        times[name] = time.perf_counter() - start
    print(json.dumps(times))


def measure(python):
    """``(first, cached)``: the steps' seconds in a process with an empty numba cache, then in
    one on the cache the first filled; and the first run's standard error."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            done = subprocess.run([python, __file__, "--steps"], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{python} failed:\n{done.stderr}")
            runs.append((json.loads(done.stdout.strip().splitlines()[-1]), done.stderr))
    return runs[0][0], runs[1][0], runs[0][1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another svmkit install's Python, run the same way for comparison")
    parser.add_argument("--json", help="write the results as JSON (benchmarks/report.py reads them)")
    parser.add_argument("--steps", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.steps:
        run_steps()
        return
    installs = {"svmkit": sys.executable}
    if args.baseline:
        installs["baseline"] = args.baseline
    measured = {}
    for label, python in installs.items():
        first, cached, notices = measure(python)
        measured[label] = (first, cached)
        print(f"{label} ({python}): first use {sum(first.values()):.1f} s in all "
              f"(demo's first fit {first['demo first fit']:.1f} s), cached {sum(cached.values()):.1f} s")
        if notices.strip():
            print(f"  standard error of the first run: {notices.strip().splitlines()[0]!r}")
    width = max(map(len, STEPS))
    print(f"{'step':<{width}}  " + "  ".join(f"{label + ' first':>16} {label + ' cached':>16}" for label in measured))
    for name in (*STEPS, "all"):
        cells = []
        for first, cached in measured.values():
            pick = (lambda times: sum(times.values())) if name == "all" else (lambda times: times[name])
            cells.append(f"{pick(first):16.2f} {pick(cached):16.2f}")
        print(f"{name:<{width}}  " + "  ".join(cells))
    if args.json:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _common import library_versions, write_json

        class Case:  # (the record write_json takes)
            def __init__(self, name, results):
                self.dataset, self.shape_text, self.params_text, self.results = name, "", "", results

        cases = [Case(name, {label: {"fit": first[name] if name != "all" else sum(first.values()),
                                     "predict": cached[name] if name != "all" else sum(cached.values())}
                             for label, (first, cached) in measured.items()})
                 for name in (*STEPS, "all")]
        write_json(args.json, "first_use", "python benchmarks/first_use.py " + " ".join(sys.argv[1:]),
                   library_versions(), cases, extra={"columns": {"fit": "first use (s)", "predict": "cached (s)"}})


if __name__ == "__main__":
    main()
