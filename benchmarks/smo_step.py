"""Time of one SMO step of the full-Gram solver, by the number of variables.

Each problem is a two-class C-SVC dual (C = 1) on a precomputed linear Gram matrix of
``m`` rows of 8 Gaussian features (labels from the first feature with noise, seed 0),
solved from zero by :func:`svmkit._core.full_gram.full_gram_solve` to ``tol = 1e-5``
with no shrinking and no Newton steps on the face of the free multipliers: the time of
the solve over its steps is the cost of a step in row order (``svmkit._core.smo_rows``),
plus the call's fixed cost shared over its steps (large for few steps).

Example: ``python benchmarks/smo_step.py --sizes 40,128,512 --repeats 21``
"""

import argparse
import time

import numpy as np

from svmkit._core.full_gram import full_gram_solve
from svmkit._core.kernel_blocks import KERNEL_NONE

_NEVER = 10**9  # steps between face tries and per call: none, and no limit
_DEFAULT_SIZES = "16,24,32,40,48,54,64,72,96,128,192,256,384,512"


def problem(m, seed=0):
    """The Gram matrix and labels of a noisy problem of ``m`` rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 8))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X @ X.T, y


def timed_solve(K, y):
    """``(seconds, steps)`` of one solve from zero."""
    m = y.shape[0]
    alpha, grad = np.zeros(m), -np.ones(m)
    start = time.perf_counter()
    steps, _, _ = full_gram_solve(
        K, np.arange(m), np.array([m]), y, np.ones(m), np.diagonal(K).copy(), alpha, grad, False, 1e-5, _NEVER,
        _NEVER, 0, 0, 0, 2.2e-16, np.array([_NEVER, 1024, 1024, 200]), np.empty((0, 0)), KERNEL_NONE, 0.0, 0.0, 1,
        np.empty(0, dtype=np.int64),
    )
    return time.perf_counter() - start, steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=_DEFAULT_SIZES, help="comma-separated numbers of variables")
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args(argv)
    print("| variables | steps | ns per step |")
    print("|---|---|---|")
    for m in (int(size) for size in args.sizes.split(",")):
        K, y = problem(m)
        timed_solve(K, y)  # (compiled, warm)
        runs = [timed_solve(K, y) for _ in range(args.repeats)]
        steps = runs[0][1]
        print(f"| {m} | {steps} | {np.median([seconds for seconds, _ in runs]) / steps * 1e9:.1f} |")


if __name__ == "__main__":
    main()
