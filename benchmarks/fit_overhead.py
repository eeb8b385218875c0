"""Where the time of a small two-class SVC fit goes: the compiled call and the Python around it.

Each case (breast cancer with the linear kernel, all 569 rows standardised; heart_scale with the
RBF kernel, from ``--data-dir``, skipped if missing) is fitted in alternating rounds after one of
these, run untimed just before each timed fit:

- ``warm``: an svmkit fit of the same case (its code and data in the caches);
- ``after LIBSVM`` / ``after oneDAL``: a fit of the same case by scikit-learn's SVC or by
  scikit-learn-intelex's (as in ``benchmarks/svc.py``'s interleaved repetitions);
- ``... + N ms busy``: the same, then N ms of a busy Python loop, to tell a cost of what the other
  library did to the caches from a cost of the time that passed since svmkit's own last fit.

It prints per setting the median fit time, the part inside the compiled call that builds, solves
and lays out the dual (``svmkit._core.two_class``, timed by a wrapper around it) and the rest,
and scikit-learn's median fit time after oneDAL's fit for the ratio.

Usage::

    python benchmarks/fit_overhead.py [--repeats 31] [--data-dir ../shared/data]
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from _common import DEFAULT_DATA_DIR, busy
from sklearn.datasets import load_breast_cancer, load_svmlight_file
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as LibsvmSVC

import svmkit.svm._formulations as formulations
from svmkit import SVC

COMPILED_CALLS = ("solve_c_svc_two_class", "solve_c_svc_two_class_on_gram")


def cases(data_dir):
    """``(label, X, y, kernel)`` of each case."""
    X, y = load_breast_cancer(return_X_y=True)
    found = [("breast cancer 569x30", StandardScaler().fit_transform(X), y, "linear")]
    heart = Path(data_dir) / "heart_scale"
    if heart.exists():
        X, y = load_svmlight_file(str(heart))
        found.append(("heart_scale 270x13", X.toarray(), y, "rbf"))
    return found


def time_compiled_calls():
    """Wrap the compiled two-class calls so that each call's time is appended to the returned list."""
    times = []
    for name in COMPILED_CALLS:
        compiled = getattr(formulations, name)

        def timed(*arguments, compiled=compiled):
            start = time.perf_counter()
            result = compiled(*arguments)
            times.append(time.perf_counter() - start)
            return result

        setattr(formulations, name, timed)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    args = parser.parse_args()
    from sklearnex.svm import SVC as OneDalSVC

    warnings.filterwarnings("ignore")
    compiled_times = time_compiled_calls()
    for label, X, y, kernel in cases(args.data_dir):
        settings = {
            "warm": lambda: SVC(kernel=kernel).fit(X, y),
            "after LIBSVM": lambda: LibsvmSVC(kernel=kernel).fit(X, y),
            "after LIBSVM + 20 ms busy": lambda: (LibsvmSVC(kernel=kernel).fit(X, y), busy(0.02)),
            "after oneDAL": lambda: OneDalSVC(kernel=kernel).fit(X, y),
            "after oneDAL + 2 ms busy": lambda: (OneDalSVC(kernel=kernel).fit(X, y), busy(0.002)),
            "after oneDAL + 20 ms busy": lambda: (OneDalSVC(kernel=kernel).fit(X, y), busy(0.02)),
        }
        for before in settings.values():  # (compiled code loaded, each library warmed up)
            before()
            SVC(kernel=kernel).fit(X, y)
        totals = {name: [] for name in settings}
        inside = {name: [] for name in settings}
        libsvm = []
        for _ in range(args.repeats):
            for name, before in settings.items():
                before()
                compiled_times.clear()
                start = time.perf_counter()
                SVC(kernel=kernel).fit(X, y)
                totals[name].append(time.perf_counter() - start)
                inside[name].append(sum(compiled_times))
            OneDalSVC(kernel=kernel).fit(X, y)
            start = time.perf_counter()
            LibsvmSVC(kernel=kernel).fit(X, y)
            libsvm.append(time.perf_counter() - start)
        print(f"\n{label}, {kernel} kernel, C = 1, median of {args.repeats} (us); scikit-learn's SVC after "
              f"oneDAL's fit: {np.median(libsvm) * 1e6:.1f}")
        print(f"{'before the fit':28s} {'fit':>8s} {'compiled':>9s} {'rest':>8s} {'/LIBSVM':>8s}")
        for name in settings:
            total, compiled = np.array(totals[name]), np.array(inside[name])
            print(f"{name:28s} {np.median(total) * 1e6:8.1f} {np.median(compiled) * 1e6:9.1f} "
                  f"{np.median(total - compiled) * 1e6:8.1f} {np.median(total) / np.median(libsvm):8.3f}")


if __name__ == "__main__":
    main()
