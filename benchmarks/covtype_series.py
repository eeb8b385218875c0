"""Fit time against rows on covtype.binary: svmkit beside oneDAL (and LIBSVM where it ends in time).

covtype.binary (581,012 x 54) is scaled to [-1, 1] with the training rows' ranges, as
``svm-scale``; a fifth of it (116,203 rows, seed 0) is held out for the test, and the training
sets are random subsets of the other four fifths (``--sizes``; ``all``: all 464,809 of them).
RBF, ``C = 4``, ``gamma = 1``, ``tol = 1e-3``, ``cache_size = 200`` for every library. Each size
is fitted once per library, side by side in this process (svmkit, then oneDAL, then LIBSVM up
to ``--libsvm-max-rows``), after a warm-up fit that loads compiled code and, before each fit,
``--prefault-mb`` MB of fresh memory written and freed (``_common.prefault``, as
``benchmarks/svc.py`` does: on a virtual machine that backs memory when it is first touched, the
first library to touch fresh pages pays for them); a library whose fit
took more than ``--max-seconds`` skips the larger sizes. For each fit: seconds, the peak
resident memory above the memory before the fit (``VmHWM`` reset), support vectors, accuracy
and prediction time on the held-out fifth; and per library the exponent ``b`` of
``t = a n^b`` fitted to its times (``_common.power_law``).

Reads ``--data-dir`` (default ``../shared/data``); writes ``--json`` for
``benchmarks/report.py``. Example::

    python benchmarks/covtype_series.py --sizes 10000,20000,50000,100000,200000 \\
        --json benchmarks/results/covtype-series.json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import (  # noqa: E402
    DEFAULT_DATA_DIR, PeakRSS, library_versions, power_law, prefault, scale_like_svm_scale, thread_settings,
    write_json,
)

PARAMETERS = {"C": 4.0, "gamma": 1.0, "tol": 1e-3, "cache_size": 200.0}
LIBRARIES = ("svmkit", "sklearnex", "sklearn")


class Case:
    def __init__(self, dataset, shape_text, params_text, results):
        self.dataset, self.shape_text, self.params_text, self.results = dataset, shape_text, params_text, results


def estimator_class(library):
    if library == "svmkit":
        from svmkit import SVC
    elif library == "sklearnex":
        from sklearnex.svm import SVC
    else:
        from sklearn.svm import SVC
    return SVC


def split(data_dir):
    """The training pool (four fifths, shuffled) and the held-out fifth, scaled to [-1, 1]."""
    from svmkit.io import load_libsvm

    X, y = load_libsvm(Path(data_dir) / "covtype.binary.bz2")
    order = np.random.default_rng(0).permutation(X.shape[0])
    n_test = X.shape[0] // 5
    test, train = order[:n_test], order[n_test:]
    X_train, X_test = scale_like_svm_scale(X[train], X[test])
    return X_train, y[train], X_test, y[test]


def measure(library, X, y, X_test, y_test):
    model = estimator_class(library)(**PARAMETERS)
    with PeakRSS() as memory:
        start = time.perf_counter()
        model.fit(X, y)
        fit = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X_test)
    predict = time.perf_counter() - start
    return {"fit": fit, "predict": predict, "memory": memory.peak_mb, "n_sv": int(np.sum(model.n_support_)),
            "accuracy": float(np.mean(predicted == y_test)), "data_mb": X.nbytes / 2**20}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--sizes", default="10000,20000,50000,100000,200000,all")
    parser.add_argument("--libraries", default=",".join(LIBRARIES))
    parser.add_argument("--libsvm-max-rows", type=int, default=60_000)
    parser.add_argument("--max-seconds", type=float, default=3600.0)
    parser.add_argument("--prefault-mb", type=float, default=1024.0,
                        help="MB of fresh memory written and freed before each fit (_common.prefault)")
    parser.add_argument("--json", help="write the results here (benchmarks/results/)")
    parser.add_argument("--merge-from", metavar="JSON",
                        help="add the results of an earlier run of other libraries on the same sizes (a fit of "
                             "each library in a fresh process, one after the other: the full size)")
    args = parser.parse_args(argv)

    for line in thread_settings():
        print(line)
    X_pool, y_pool, X_test, y_test = split(args.data_dir)
    print(f"covtype.binary: {X_pool.shape[0]} training rows to draw from, {X_test.shape[0]} held out", flush=True)
    libraries = args.libraries.split(",")
    for library in libraries:  # (compiled code and libraries loaded, not timed)
        estimator_class(library)(**PARAMETERS).fit(X_pool[:2000], y_pool[:2000]).predict(X_test[:100])
    sizes = [X_pool.shape[0] if size == "all" else int(size) for size in args.sizes.split(",")]
    too_slow, cases, times = set(), [], {library: [] for library in libraries}
    for n in sizes:
        X, y = np.ascontiguousarray(X_pool[:n]), y_pool[:n]
        results = {}
        for library in libraries:
            if library in too_slow or (library == "sklearn" and n > args.libsvm_max_rows):
                results[library] = {"error": "skipped (too slow at this size)"}
                continue
            prefault(args.prefault_mb)
            result = measure(library, X, y, X_test, y_test)
            results[library] = result
            times[library].append((n, result["fit"]))
            print(f"{n:>7d} rows {library:>9s}: fit {result['fit']:8.2f} s, peak +{result['memory']:7.1f} MB "
                  f"(data {result['data_mb']:.0f} MB), {result['n_sv']} SVs, accuracy {result['accuracy']:.4f}, "
                  f"predict {result['predict']:.2f} s", flush=True)
            if result["fit"] > args.max_seconds:
                too_slow.add(library)
        cases.append(Case("covtype.binary", f"{n}x{X.shape[1]}", "rbf C=4 g=1", results))
    if args.merge_from:
        import json

        earlier = {case["shape"]: case["results"] for case in json.loads(Path(args.merge_from).read_text())["cases"]}
        for case in cases:
            for library, result in earlier.get(case.shape_text, {}).items():
                case.results.setdefault(library, result)
                if "fit" in result:
                    times.setdefault(library, []).append((int(case.shape_text.split("x")[0]), result["fit"]))
    exponents = {}
    for library, points in times.items():
        law = power_law([n for n, _ in points], [t for _, t in points])
        if law is not None:
            exponents[library] = round(law[1], 2)
    print("growth exponents of fit time against rows:", exponents)
    if args.json:
        peaks = "; ".join(f"{case.shape_text}: " + ", ".join(
            f"{library} +{result['memory']:.0f} MB" for library, result in case.results.items() if "memory" in result)
            for case in cases)
        small = (f"Held-out fifth: {X_test.shape[0]} rows"
                 + (f"; the results of {args.merge_from} (an earlier run) added" if args.merge_from else "")
                 + (". Fit time ~ rows^b: " + ", ".join(f"{library} b = {b}" for library, b in exponents.items())
                    if exponents else "")
                 + f". Peak memory above that before the fit: {peaks}.")
        write_json(args.json, "covtype.binary: fit time against rows", "python benchmarks/covtype_series.py "
                   + " ".join(argv if argv is not None else sys.argv[1:]), library_versions(), cases,
                   extra={"small": small, "exponents": exponents})


if __name__ == "__main__":
    main()
