"""Peak resident memory of an SVC fit on 200,000 x 50 dense data.

Target (issue 3): peak RSS during the fit below data size + cache_size + 300 MB,
and no n x n kernel matrix. The fit runs in this fresh process; the kernel's
own high-water mark (VmHWM, reset before the fit) gives the peak.

The row cache fills within the first few hundred kernel rows, so the fit is
capped by ``--max-iter`` (default 200,000 pair updates) to keep the run short;
the peak does not grow after the cache is full.

Usage::

    python benchmarks/memory.py [--n 200000] [--d 50] [--cache-size 200] [--max-iter 200000]
"""

import argparse
import time
import warnings

from sklearn.datasets import make_classification

from svmkit import SVC


def _status_kb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--cache-size", type=float, default=200.0)
    parser.add_argument("--max-iter", type=int, default=200_000)
    args = parser.parse_args()

    X, y = make_classification(n_samples=args.n, n_features=args.d, flip_y=0.05, random_state=0)
    X = (X - X.mean(0)) / X.std(0)
    data_mb = X.nbytes / 2**20
    SVC(C=1.0, gamma=0.05).fit(X[:500], y[:500])  # load compiled code before measuring
    rss_before = _status_kb("VmRSS") / 1024
    _reset_peak()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SVC(C=1.0, gamma=0.05, cache_size=args.cache_size, max_iter=args.max_iter).fit(X, y)
    elapsed = time.perf_counter() - start
    peak = _status_kb("VmHWM") / 1024
    growth = peak - rss_before
    limit = data_mb + args.cache_size + 300
    print(f"data {args.n} x {args.d} float64: {data_mb:.0f} MB; cache_size {args.cache_size:g} MB")
    print(f"fit: {elapsed:.1f} s, {int(model.n_iter_[0])} pair updates, gap {model.binary_models_[0].gap:.3g}")
    print(f"RSS before the fit {rss_before:.0f} MB, peak during the fit {peak:.0f} MB (+{growth:.0f} MB)")
    print(f"target: peak RSS < data + cache_size + 300 MB = {limit:.0f} MB -> {'met' if peak < limit else 'MISSED'}")
    print(f"a full n x n float32 kernel matrix would take {args.n**2 * 4 / 2**30:.0f} GiB")


if __name__ == "__main__":
    main()
