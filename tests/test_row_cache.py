"""Compiled operations on cached kernel rows (svmkit._core.row_cache) against NumPy."""

import numpy as np

from svmkit._core.row_cache import add_weighted_rows, add_weighted_rows_serial, copy_columns, copy_rows, gather_block

RNG = np.random.default_rng(0)
BUFFER = RNG.normal(size=(7, 2500)).astype(np.float32)  # more columns than one chunk of the row sums


def test_gather_block_is_numpy_ix_():
    slots, columns = np.array([4, 0, 6]), np.array([2499, 3, 17, 1000])
    out = np.zeros((5, 4), dtype=np.float32)
    gather_block(BUFFER, slots, columns, out, np.array([3, 0, 4]))
    np.testing.assert_array_equal(out[[3, 0, 4]], BUFFER[np.ix_(slots, columns)])
    np.testing.assert_array_equal(out[[1, 2]], 0.0)


def test_copy_rows_and_columns_assemble_the_block_and_its_transpose():
    # 70 x 40: copy_columns reads tiles of 64 rows and a rest, 16 columns and a rest
    source = np.ascontiguousarray(np.vstack([BUFFER[:, :40]] * 10))
    columns = RNG.permutation(40)[:19]
    out_rows = RNG.permutation(24)[:19]
    out = np.zeros((26, 75), dtype=np.float32)
    copy_rows(source, np.array([69, 5]), out, np.array([25, 24]), 3)
    copy_columns(source, columns, out, out_rows, 4)
    expected = np.zeros_like(out)
    expected[[25, 24], 3:43] = source[[69, 5]]
    expected[out_rows, 4:74] = source[:, columns].T
    np.testing.assert_array_equal(out, expected)


def test_weighted_row_sums_in_float64():
    slots = np.array([6, 1, 1, 3, 0, 2])  # four rows at a time and a rest of two
    weights = RNG.normal(size=6)
    expected = 1.5 + weights @ BUFFER[slots].astype(np.float64)
    for add in (add_weighted_rows, add_weighted_rows_serial):
        out = np.full(2500, 1.5)
        add(BUFFER, slots, weights, out)
        np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
