"""Values on a dyadic grid: where float32 arithmetic on data is exact.

Data of counts, flags and small integers (and such values times a power of two) are integer
multiples of a power of two, few enough steps of it apart that every dot product of two rows,
and every partial sum of one, is an integer of at most 2^24 steps of a finer power of two:
exact in float32. Products of such data are then taken in float32 (half the memory and about
half the time of float64's) and are the same numbers.
"""

import numpy as np
import scipy.sparse as sp

#: float32's significand holds every integer up to 2^24 exactly, and no odd one above it.
FLOAT32_EXACT_INTEGERS = 2.0**24
#: Grids finer than 2^-64 are not looked for: values on them are not data of counts or flags.
_FINEST_GRID = 64
#: Values a grid is first looked for in (:func:`float32_grid`).
_SAMPLE = 256
#: Values looked at a time for a grid (the temporaries of a look are a few times this size).
_CHUNK_VALUES = 2**20


def dyadic_grid(values):
    """The grid of ``values``: ``(a, largest)`` with every value an integer multiple of
    ``2^-a`` (``a >= 0``) and ``largest`` the largest ``|value| 2^a``; None where the finest
    such grid is finer than ``2^-64``.

    Two arrays on grids ``(a, L)`` and ``(b, M)`` have exact float32 dot products wherever
    ``|x|_1 2^a M <= 2^24``: every product and partial sum is then an integer multiple of
    ``2^-(a+b)`` of at most 2^24 of them.

    Examples
    --------
    >>> dyadic_grid(np.array([0.5, 3.0, -0.25, 0.0]))
    (2, 12.0)
    >>> dyadic_grid(np.array([1.0, 0.0, 1.0]))
    (0, 1.0)
    >>> dyadic_grid(np.array([0.1]))  # (0.1 rounded to float64 is an odd multiple of 2^-55)
    (55, 3602879701896397.0)
    >>> dyadic_grid(np.array([1e-30])) is None
    True
    """
    flat = np.asarray(values, dtype=np.float64).ravel()
    a, largest = 0, 0.0
    for start in range(0, flat.shape[0], _CHUNK_VALUES):  # (temporaries of a chunk's size)
        magnitudes = np.abs(flat[start:start + _CHUNK_VALUES])
        magnitudes = magnitudes[magnitudes != 0]
        if magnitudes.size == 0:
            continue
        fraction, exponent = np.frexp(magnitudes)  # (|v| = fraction 2^exponent, fraction in [0.5, 1))
        significand = (fraction * 2.0**53).astype(np.int64)  # (exact: an integer below 2^53)
        lowest_bit = np.frexp((significand & -significand).astype(np.float64))[1] - 1
        a = max(a, int(-(exponent - 53 + lowest_bit).min()))
        if a > _FINEST_GRID:
            return None
        largest = max(largest, float(magnitudes.max()))
    return a, largest * 2.0**a


def float32_grid(values):
    """:func:`dyadic_grid` of ``values`` where each is an integer of at most 2^24 on it (exact in
    float32), else None; from a sample first, which rules out most data at the cost of a few.

    Examples
    --------
    >>> float32_grid(np.array([0.5, 3.0])), float32_grid(np.array([0.1, 0.5]))
    ((1, 6.0), None)
    """
    flat = np.asarray(values).ravel()
    grid = dyadic_grid(flat[:_SAMPLE])
    if grid is None or grid[1] > FLOAT32_EXACT_INTEGERS:
        return None  # (all the values need a grid at least as fine, and reach at least as far on it)
    if flat.shape[0] > _SAMPLE:
        # (the sample's grid, where every value is on it: one multiply and compare a value,
        # against the bits of each that dyadic_grid reads)
        largest = _largest_on_grid(flat, grid[0])
        if largest is None and not np.array_equal(flat.astype(np.float32), flat):
            return None  # (a value that float32 cannot hold: on no grid of at most 2^24 steps)
        grid = dyadic_grid(flat) if largest is None else (grid[0], largest)
        if grid is None or grid[1] > FLOAT32_EXACT_INTEGERS:
            return None
    return grid


def _largest_on_grid(flat, a):
    """The largest ``|value| 2^a`` of ``flat`` where every value is an integer multiple of
    ``2^-a``, else None.

    Examples
    --------
    >>> _largest_on_grid(np.array([0.5, -3.0]), 1), _largest_on_grid(np.array([0.5, 0.25]), 1)
    (6.0, None)
    """
    largest = 0.0
    for start in range(0, flat.shape[0], _CHUNK_VALUES):
        scaled = flat[start:start + _CHUNK_VALUES] * 2.0**a  # (exact: a power of two)
        if not np.array_equal(scaled, np.rint(scaled)):
            return None
        largest = max(largest, float(np.abs(scaled).max(initial=0.0)))
    return largest


def exact_in_float32(X, grid, rows_of=None):
    """Whether every dot product of a row of ``X`` (dense or CSR) with rows on ``grid`` (support
    vectors; ``X``'s own for its Gram matrix) is exact in float32 (:func:`dyadic_grid`); rows a
    chunk at a time, the first ruling out most data.
    ``rows_of(chunk)``, where given, makes the rows multiplied from a chunk of ``X``'s."""
    a, longest = 0, 0.0  # (the finest grid of the rows so far, and the largest |x|_1)
    step = max(1, _CHUNK_VALUES // max(X.shape[1], 1))
    for first in range(0, X.shape[0], step):
        rows = X[first:first + step]
        if rows_of is not None:
            rows = rows_of(rows)
        row_grid = float32_grid(rows.data if sp.issparse(rows) else rows)
        if row_grid is None:
            return False
        a = max(a, row_grid[0])
        # (|x|_1 is at most the features times the largest |x_j|; the rows' sums only where that
        # bound is too large)
        bound = rows.shape[1] * row_grid[1] * 2.0**-row_grid[0]
        if bound * 2.0**a * max(grid[1], 1.0) > FLOAT32_EXACT_INTEGERS:
            bound = float(np.max(abs(rows).sum(axis=1)))
        longest = max(longest, bound)
        if longest * 2.0**a * max(grid[1], 1.0) > FLOAT32_EXACT_INTEGERS:
            return False
    return X.shape[0] > 0
