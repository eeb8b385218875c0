"""What this machine charges a call for the time that passed before it: the floor under a small fit's ratio.

A small fit (a few hundred rows) takes 0.1-1 ms of svmkit's own work, and in ``svc.py``'s
interleaved repetitions it follows a LIBSVM and a oneDAL fit of some milliseconds. This script
times two calls that do almost nothing, each right after one of these:

- ``warm``: nothing (the call before it was the same call);
- ``busy N ms``: a busy Python loop of N ms, which touches almost no memory;
- ``sleep N ms``: ``time.sleep``;
- ``write N MB``: one pass adding 1 to N MB of float64.

and, after the same settings, a compiled function returning 25 small arrays against one returning
3 (numba boxes each returned array with a call into Python): whether the number of arrays a compiled
call returns matters once the caches are cold.

If a trivial call takes tens of microseconds after a busy loop that touched nothing, the cost is
one of time passing on a shared machine (other work evicting this process's code, data and
address translations), not of what the other library did; a small fit pays it per distinct piece
of code and data it touches.

Usage::

    python benchmarks/cold_calls.py [--repeats 200]
"""

import argparse
import time

import numba
import numpy as np
from _common import busy


@numba.njit
def zeros(n):
    """A trivial compiled call: one small array made and returned."""
    return np.zeros(n)


@numba.njit
def twenty_five_arrays(n):
    """25 arrays of ``n`` zeros, returned as a tuple."""
    a = np.zeros(n)
    return (a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(),
            a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(), a.copy(),
            a.copy(), a.copy(), a.copy(), a.copy(), a.copy())


@numba.njit
def three_arrays(n):
    """The same 25 arrays' values in one array, and two more arrays of ``n`` zeros."""
    a = np.zeros(25 * n)
    return a, a[:n].copy(), a[:n].copy()


def views(values, n):
    """The 25 consecutive pieces of ``n`` values of ``values``."""
    return [values[k * n:(k + 1) * n] for k in range(25)]


def settings(junk):
    """``(label, action)`` of each setting run before a timed call."""
    return [
        ("warm", lambda: None),
        ("busy 1 ms", lambda: busy(0.001)),
        ("busy 4 ms", lambda: busy(0.004)),
        ("busy 20 ms", lambda: busy(0.02)),
        ("sleep 4 ms", lambda: time.sleep(0.004)),
        (f"write {junk.nbytes >> 20} MB", lambda: junk.__iadd__(1.0)),
    ]


def median_us(call, before, repeats):
    """Median and 10th percentile of ``call()``'s time in microseconds, each call after ``before()``."""
    times = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return np.median(times) * 1e6, np.percentile(times, 10) * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args(argv)
    junk = np.zeros(4 * 2**20)
    small = np.ones(100)
    n = 100
    calls = {
        "compiled np.zeros(10)": lambda: zeros(10),
        "np.add of 100 values": lambda: np.add(small, small),
        "compiled, 25 arrays returned": lambda: twenty_five_arrays(n),
        "compiled, 3 arrays returned, 25 views": lambda: views(three_arrays(n)[0], n),
    }
    for call in calls.values():  # (compiled before the first timed call)
        call()
    print(f"median (10th percentile) of {args.repeats} calls, us")
    print("| before the call | " + " | ".join(calls) + " |")
    print("|---|" + "---|" * len(calls))
    for label, before in settings(junk):
        cells = (median_us(call, before, args.repeats) for call in calls.values())
        print(f"| {label} | " + " | ".join(f"{median:.1f} ({tenth:.1f})" for median, tenth in cells) + " |")


if __name__ == "__main__":
    main()
