"""svmkit's SVC against LIBSVM (scikit-learn's SVC) alone, fits in turns, on one real dataset.

The full benchmark (``svc.py``) interleaves three libraries; a ratio near a target is better
judged by fits of svmkit and LIBSVM alternating in one process (svmkit first in even turns,
LIBSVM first in odd ones), with the same C, gamma, tol and cache_size as ``svc.py``. Prints the
median fit times, their ratio and each turn's ratio.

Usage::

    python benchmarks/alternate.py usps linear [--fits 9] [--data-dir ../shared/data] [--tol 1e-3]
        [--cache-size 200]
"""

import argparse
import time

import numpy as np
from sklearn.svm import SVC as LibsvmSVC

from _common import DEFAULT_DATA_DIR
from svc import make_estimator, real_cases
from svmkit import SVC


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", help="a dataset of svc.py: usps, splice, svmguide1, a9a, ...")
    parser.add_argument("kernel", choices=["rbf", "linear"])
    parser.add_argument("--fits", type=int, default=9, help="fits of each library (default 9)")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--cache-size", type=float, default=200.0, help="MB, for both libraries")
    args = parser.parse_args()
    args.probability = False
    case = next(iter(real_cases(args.dataset, args.data_dir, [args.kernel], {})))
    models = {"svmkit": make_estimator(SVC, case, args), "libsvm": make_estimator(LibsvmSVC, case, args)}
    for model in models.values():  # (untimed: loads svmkit's compiled code)
        model.fit(case.X_train, case.y_train)
    times = {name: [] for name in models}
    for turn in range(args.fits):
        for name in list(models) if turn % 2 == 0 else list(models)[::-1]:
            start = time.perf_counter()
            models[name].fit(case.X_train, case.y_train)
            times[name].append(time.perf_counter() - start)
    ours, theirs = (np.array(times[name]) for name in models)
    print(f"{args.dataset} {args.kernel}: svmkit {np.median(ours) * 1e3:.1f} ms, LIBSVM {np.median(theirs) * 1e3:.1f} ms, "
          f"ratio {np.median(ours) / np.median(theirs):.3f} (per turn {np.round(ours / theirs, 2).tolist()})")


if __name__ == "__main__":
    main()
