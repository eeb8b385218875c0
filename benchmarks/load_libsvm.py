"""Time svmkit's load_libsvm against scikit-learn's load_svmlight_file on a9a.

Both loaders are warmed up once (numba compilation or its cache load is not
timed), then run alternately; the script prints the median wall time of
each and their ratio.

Usage::

    python benchmarks/load_libsvm.py [--data-dir ../shared/data] [--repeats 7] [--file a9a]
"""

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from svmkit.io import load_libsvm


def median_times(path, repeats):
    """Median seconds of each loader over ``repeats`` interleaved runs."""
    X, y = load_libsvm(path)
    X_expected, y_expected = load_svmlight_file(str(path))
    if (X != X_expected).nnz or not np.array_equal(y, y_expected):
        raise AssertionError("svmkit and scikit-learn disagree")
    times = {"svmkit": [], "sklearn": []}
    for _ in range(repeats):
        start = time.perf_counter()
        load_libsvm(path)
        times["svmkit"].append(time.perf_counter() - start)
        start = time.perf_counter()
        load_svmlight_file(str(path))
        times["sklearn"].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}, X.shape, X.nnz


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--file", default="a9a")
    parser.add_argument("--repeats", type=int, default=7)
    arguments = parser.parse_args()
    path = arguments.data_dir / arguments.file
    medians, shape, nnz = median_times(path, arguments.repeats)
    print(f"{path.name}: {shape[0]} x {shape[1]}, {nnz} stored values, {path.stat().st_size / 1e6:.1f} MB")
    print(f"median of {arguments.repeats} interleaved warm runs:")
    print(f"  svmkit.io.load_libsvm                {medians['svmkit'] * 1e3:8.1f} ms")
    print(f"  sklearn.datasets.load_svmlight_file  {medians['sklearn'] * 1e3:8.1f} ms")
    print(f"  speed-up (sklearn / svmkit)          {medians['sklearn'] / medians['svmkit']:8.1f} x")


if __name__ == "__main__":
    main()
