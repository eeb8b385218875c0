import numpy as np
import pytest
import scipy.sparse as sp

from svmkit import kernels as K
from naive import gram_by_loops, linear_pair, poly_pair, quadratic_feature_map, rbf_pair, sigmoid_pair

rng = np.random.default_rng(0)
A = rng.normal(size=(7, 4))
B = rng.normal(size=(5, 4))


@pytest.mark.parametrize(
    "kernel, pair",
    [
        (K.LinearKernel(), linear_pair),
        (K.PolynomialKernel(degree=3, gamma=0.5, coef0=1.0), lambda u, v: poly_pair(u, v, 3, 0.5, 1.0)),
        (K.RBFKernel(gamma=0.3), lambda u, v: rbf_pair(u, v, 0.3)),
        (K.SigmoidKernel(gamma=0.2, coef0=-0.5), lambda u, v: sigmoid_pair(u, v, 0.2, -0.5)),
    ],
)
# densified_bytes 0: sparse x sparse products over both operands' nonzeros (_sparse_sparse_times)
@pytest.mark.parametrize("densified_bytes", [K._DENSIFIED_BYTES, 0])
def test_named_kernels_equal_pairwise_loops_dense_and_sparse(kernel, pair, densified_bytes, monkeypatch):
    monkeypatch.setattr(K, "_DENSIFIED_BYTES", densified_bytes)
    expected = gram_by_loops(pair, A, B)
    np.testing.assert_allclose(kernel(A, B), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel(sp.csr_matrix(A), sp.csr_matrix(B)), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel(sp.csr_matrix(B), sp.csr_matrix(A)), expected.T, rtol=1e-12, atol=1e-12)
    single = kernel(sp.csr_matrix(A, dtype=np.float32), sp.csr_matrix(B, dtype=np.float32))
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(kernel(sp.csr_matrix(A), B), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel(A, sp.csr_matrix(B)), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.diag(A), np.diag(gram_by_loops(pair, A, A)), rtol=1e-12)


def test_rbf_from_sigma_as_the_seeds_write_it():
    k = K.RBFKernel(sigma=2.0)
    assert k.gamma == pytest.approx(1 / 8)
    u, v = np.array([[1.0, 2.0]]), np.array([[0.0, 0.0]])
    assert k(u, v)[0, 0] == pytest.approx(np.exp(-5 / 8))
    assert k.sigma == pytest.approx(2.0)


def test_kernel_trick_identity_of_the_seeds():
    U, V = rng.normal(size=(6, 2)), rng.normal(size=(4, 2))
    explicit = quadratic_feature_map(U) @ quadratic_feature_map(V).T
    np.testing.assert_allclose(K.PolynomialKernel(degree=2, gamma=1.0, coef0=1.0)(U, V), explicit, rtol=1e-12, atol=1e-14)


def test_kernel_algebra_matches_elementwise_formulas():
    lin, rbf = K.LinearKernel(), K.RBFKernel(gamma=0.5)
    L, R = lin(A, B), rbf(A, B)
    np.testing.assert_allclose((lin + rbf)(A, B), L + R)
    np.testing.assert_allclose((lin * rbf)(A, B), L * R)
    np.testing.assert_allclose((3.0 * rbf)(A, B), 3 * R)
    np.testing.assert_allclose((rbf * 2)(A, B), 2 * R)
    np.testing.assert_allclose((lin**3)(A, B), L**3)
    np.testing.assert_allclose(lin.exp()(A, B), np.exp(L))
    np.testing.assert_allclose(K.KernelPolynomial(lin, [1.0, 0.0, 2.0])(A, B), 1 + 2 * L**2)
    norms_a, norms_b = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
    np.testing.assert_allclose(lin.normalized()(A, B), L / np.outer(norms_a, norms_b))
    f = lambda X: 1.0 + np.asarray(X)[:, 0] ** 2  # noqa: E731
    np.testing.assert_allclose(K.FeatureScaledKernel(f, rbf)(A, B), f(A)[:, None] * R * f(B)[None, :])
    M = np.diag([1.0, 2.0, 0.0, 3.0])
    np.testing.assert_allclose(K.QuadraticFormKernel(M)(A, B), A @ M @ B.T)
    cols = K.ColumnSubsetKernel(lin, [0, 2]) * K.ColumnSubsetKernel(rbf, [1, 3])
    np.testing.assert_allclose(cols(A, B), (A[:, [0, 2]] @ B[:, [0, 2]].T) * rbf(A[:, [1, 3]], B[:, [1, 3]]))
    for k in [lin + rbf, lin * rbf, 3.0 * rbf, lin**3, lin.exp(), lin.normalized(), cols, K.QuadraticFormKernel(M)]:
        np.testing.assert_allclose(k.diag(A), np.diag(k(A, A)), rtol=1e-12)


def test_composite_kernels_are_psd_and_sigmoid_may_not_be():
    X = rng.normal(size=(40, 3))
    composite = (K.LinearKernel() + 2 * K.RBFKernel(gamma=1.0)) * K.PolynomialKernel(degree=2, coef0=1.0)
    check = K.check_mercer(composite, X)
    assert check.is_psd and check.min_eigenvalue > -check.tolerance
    sigmoid = K.check_mercer(K.SigmoidKernel(gamma=1.0, coef0=-1.0), X)
    assert not sigmoid.is_psd
    assert sigmoid.min_eigenvalue < -1e-3  # reported with the offending eigenvalue
    assert K.SigmoidKernel().is_mercer is False
    assert "not positive semi-definite" in K.SigmoidKernel.__doc__


def test_callable_kernel_takes_two_matrices_and_is_checked():
    calls = []

    def my_kernel(P, Q):
        calls.append((P.shape, Q.shape))
        return (P @ Q.T + 1.0) ** 2

    k = K.make_kernel(my_kernel)
    np.testing.assert_allclose(k(A, B), (A @ B.T + 1) ** 2)
    assert calls == [((7, 4), (5, 4))]
    with pytest.raises(ValueError, match="shape"):
        K.CallableKernel(lambda P, Q: np.ones((2, 2)))(A, B)
    with pytest.raises(ValueError, match="NaN"):
        K.CallableKernel(lambda P, Q: np.full((P.shape[0], Q.shape[0]), np.nan))(A, B)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: K.PolynomialKernel(degree=0), "degree"),
        (lambda: K.RBFKernel(gamma=-1.0), "gamma"),
        (lambda: K.RBFKernel(), "exactly one"),
        (lambda: 0 * K.LinearKernel(), "scale factor"),
        (lambda: K.LinearKernel() ** 0.5, "integer degree"),
        (lambda: K.KernelPolynomial(K.LinearKernel(), [1.0, -1.0]), "non-negative"),
        (lambda: K.QuadraticFormKernel(np.diag([1.0, -1.0])), "not positive semi-definite"),
        (lambda: K.make_kernel("laplace"), "Unknown kernel"),
    ],
)
def test_bad_kernel_parameters_raise_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_docstring_examples_of_the_kernels_module():
    import doctest

    result = doctest.testmod(K)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    "kernel", [K.LinearKernel(), K.PolynomialKernel(degree=2, gamma=0.5, coef0=1.0), K.RBFKernel(gamma=0.3)]
)
def test_kernels_of_products_from_the_products_of_rows(kernel):
    products = A @ B.T
    np.testing.assert_allclose(kernel.from_products(products, (A**2).sum(axis=1), (B**2).sum(axis=1)), kernel(A, B),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_rbf_values_from_products_match_numpys_exp_of_the_distances(dtype, order):
    """The compiled pass (distance, exponent, exponential) against NumPy's ``exp`` of the squared
    distances, in place for C-ordered products and for the F-ordered products of sparse rows:
    the exponents agree to a few roundings of ``|p|^2 + |q|^2`` in the block's precision."""
    rng = np.random.default_rng(5)
    P, Q = rng.normal(size=(40, 6)), rng.normal(size=(30, 6)) * 3  # kernel values from 1 down to ~1e-30
    expected = np.exp(-0.3 * ((P[:, None, :] - Q[None, :, :]) ** 2).sum(axis=-1))
    P_norms, Q_norms = (P**2).sum(axis=1), (Q**2).sum(axis=1)
    products = np.asarray(P @ Q.T, dtype=dtype, order=order)
    values = K.RBFKernel(gamma=0.3).from_products(products, P_norms, Q_norms)
    assert values.dtype == dtype and np.shares_memory(values, products)
    bound = 0.3 * 8 * np.finfo(dtype).eps * (P_norms[:, None] + Q_norms[None, :]) + 4 * np.finfo(dtype).eps
    assert np.all(np.abs(np.log(values.astype(np.float64)) - np.log(expected)) <= bound)


@pytest.mark.parametrize(
    "kernel", [K.LinearKernel(), K.PolynomialKernel(degree=2, gamma=0.5, coef0=1.0), K.RBFKernel(gamma=0.3)]
)
def test_kernel_rows_of_sparse_data_with_few_nonzeros_from_both_sides_nonzeros(kernel):
    """Gram blocks of sparse data with at most _SPARSE_COPY_DENSITY nonzeros take each row's
    nonzeros against the data transposed (sparse x sparse, in compiled code): the kernel's
    values, in float64 and in float32."""
    from svmkit._solver import GramBlocks

    X = sp.random(60, 300, density=0.03, format="csr", random_state=3)
    gram = GramBlocks(kernel, X)
    rows = np.array([5, 0, 59, 17])
    expected = kernel(X[rows].toarray(), X.toarray())
    np.testing.assert_allclose(gram.block(rows), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gram.block32(rows), expected, rtol=1e-5, atol=1e-6)
    assert set(gram._transposed) == {np.dtype(np.float64), np.dtype(np.float32)}


@pytest.mark.parametrize("kernel", [K.LinearKernel(), K.RBFKernel(gamma=0.3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_kernel_rows_in_one_pass_are_the_products_then_the_kernel(kernel, dtype, monkeypatch):
    """Linear and RBF rows of sparse data with few nonzeros are computed whole in one compiled
    pass (the kernel applied to each row's products while they are in cache): bit for bit
    the products over both sides' nonzeros followed by the kernel on the block, in the serial
    and the parallel form; the parallel form from the main thread only (a worker thread takes
    the serial one), into the caller's block and on their own, rows given as a slice too."""
    import threading

    import svmkit._parallel
    import svmkit._solver as solver
    from svmkit._core.kernel_blocks import (
        KERNEL_LINEAR, KERNEL_RBF, sparse_kernel_rows, sparse_kernel_rows_serial, sparse_sparse_products,
    )

    X = sp.random(300, 200, density=0.04, format="csr", random_state=11, dtype=dtype)
    XT, norms = X.T.tocsr(), K.row_sq_norms(X).astype(dtype)

    def products_then_kernel(rows):
        products = np.empty((rows.shape[0], 300), dtype=dtype)
        A = X[rows]
        sparse_sparse_products(A.indptr, A.indices, A.data, 0, rows.shape[0], XT.indptr, XT.indices, XT.data,
                               products)
        return kernel.from_products(products, norms[rows], norms)

    rows = np.array([7, 0, 299, 150, 7])
    expected = products_then_kernel(rows)
    code, gamma = (KERNEL_RBF, kernel.gamma) if isinstance(kernel, K.RBFKernel) else (KERNEL_LINEAR, 0.0)
    for compute in (sparse_kernel_rows, sparse_kernel_rows_serial):
        out = np.full_like(expected, np.nan)
        compute(X.indptr, X.indices, X.data, rows, XT.indptr, XT.indices, XT.data, norms, code, gamma, out)
        np.testing.assert_array_equal(out, expected)

    forms = []
    for name in ("sparse_kernel_rows", "sparse_kernel_rows_serial"):
        original = getattr(solver, name)
        monkeypatch.setattr(solver, name, lambda *args, name=name, original=original: (forms.append(name), original(*args)))
    monkeypatch.setattr(svmkit._parallel, "PARALLEL_VALUES", 1)
    gram = solver.GramBlocks(kernel, X)
    block = gram.block(rows) if dtype == np.float64 else gram.block32(rows)
    into = np.empty_like(block)
    assert gram.block(rows, out=into) is into if dtype == np.float64 else gram.block32(rows, out=into) is into
    np.testing.assert_array_equal(block, expected)
    np.testing.assert_array_equal(into, expected)
    first_rows = gram.block(slice(0, 3)) if dtype == np.float64 else gram.block32(slice(0, 3))
    np.testing.assert_array_equal(first_rows, products_then_kernel(np.arange(3)))
    worker = threading.Thread(target=lambda: (gram.block(rows) if dtype == np.float64 else gram.block32(rows)))
    worker.start()
    worker.join()
    assert forms == ["sparse_kernel_rows"] * 3 + ["sparse_kernel_rows_serial"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("code_name", ["linear", "poly", "rbf"])
def test_kernel_rows_into_scattered_rows_are_the_rows_of_kernel_row(dtype, code_name):
    """``kernel_rows_into`` (tiles of columns over threads) and its serial form put each row,
    bit for bit, where it is asked for, with the values of ``kernel_row`` (``kernel_matrix``),
    over more than one tile and a partial last one, and leave the other rows of ``out`` alone;
    the weighted sum of the rows is that of NumPy to rounding. Checked against the formulas too."""
    from svmkit._core import kernel_blocks as kb

    n, d = 2 * kb._ROWS_TILE + 77, 7
    rng = np.random.default_rng(3)
    X = rng.standard_normal((n, d)) / 2
    XT = np.ascontiguousarray(X.T.astype(dtype))
    code = {"linear": kb.KERNEL_LINEAR, "poly": kb.KERNEL_POLYNOMIAL, "rbf": kb.KERNEL_RBF}[code_name]
    gamma, coef0, degree = 0.3, 1.0, 3
    K_all = np.empty((n, n), dtype=dtype)
    kb.kernel_matrix(XT, code, gamma, coef0, degree, K_all)
    formula = {"linear": K.LinearKernel(), "poly": K.PolynomialKernel(degree=3, gamma=0.3, coef0=1.0),
               "rbf": K.RBFKernel(gamma=0.3)}[code_name]
    np.testing.assert_allclose(K_all, formula(X, X), rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)
    rows = np.array([5, n - 1, 0, 1500, 5])
    out_rows = np.array([3, 0, 6, 1, 4])
    weights = rng.standard_normal(rows.shape[0])
    for compute in (kb.kernel_rows_into, kb.kernel_rows_into_serial):
        out = np.full((8, n), -7.0, dtype=dtype)
        column_sum = np.zeros(n)
        compute(XT, rows, code, gamma, coef0, degree, out, out_rows, weights, column_sum)
        np.testing.assert_array_equal(out[out_rows], K_all[rows])
        assert (out[[2, 5, 7]] == -7.0).all()
        np.testing.assert_allclose(column_sum, weights @ K_all[rows].astype(np.float64), rtol=1e-12, atol=1e-12)
        unweighted = np.full((8, n), -7.0, dtype=dtype)
        compute(XT, rows, code, gamma, coef0, degree, unweighted, out_rows, np.empty(0), np.empty(0))
        np.testing.assert_array_equal(unweighted, out)


def test_transposed_blocks_are_made_c_ordered_with_their_values():
    """The working set's block of sparse data comes out transposed (F-ordered); the compiled
    loops take it C-ordered, by a tiled copy of the same values."""
    from svmkit._solver import _c_ordered

    block = np.asfortranarray(np.random.default_rng(2).random((37, 37)).astype(np.float32))
    ordered = _c_ordered(block)
    assert ordered.flags.c_contiguous
    np.testing.assert_array_equal(ordered, block)
    strided = block[::2]
    assert _c_ordered(strided).flags.c_contiguous
    np.testing.assert_array_equal(_c_ordered(strided), strided)


@pytest.mark.parametrize(
    "kernel", [K.LinearKernel(), K.PolynomialKernel(degree=3, gamma=0.5, coef0=1.0), K.RBFKernel(gamma=0.3)]
)
def test_gram_block_of_every_row_is_the_symmetric_product_of_the_data(kernel):
    """The block of all rows in order (the full-Gram solver's first block of a small problem)
    is computed from the data itself, one symmetric product: exactly symmetric, and the
    kernel's values to 1e-13; in the caller's array and on its own, in float64 and float32."""
    from svmkit._solver import GramBlocks

    X = np.random.default_rng(5).standard_normal((40, 30))
    gram = GramBlocks(kernel, X)
    every_row = np.arange(40)
    expected = kernel(X[::-1], X)[::-1]  # (rows gathered: a general product)
    for compute, rtol in ((gram.block, 1e-13), (gram.block32, 1e-5)):
        for block in (compute(every_row), compute(every_row, out=np.empty((40, 40), dtype=compute(every_row[:1]).dtype))):
            np.testing.assert_array_equal(block, block.T)
            np.testing.assert_allclose(block, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize(
    "kernel", [K.LinearKernel(), K.PolynomialKernel(degree=3, gamma=0.5, coef0=1.0), K.RBFKernel(gamma=0.3)]
)
def test_gram_blocks_computed_in_the_callers_array_equal_new_blocks(kernel):
    """A block of dense data asked for into ``out`` (the solver's rows) is computed there in
    place, bit for bit the block computed on its own; also of columns, and in float32."""
    from svmkit._solver import GramBlocks

    X = np.random.default_rng(4).standard_normal((50, 7))
    gram = GramBlocks(kernel, X)
    rows, cols = np.array([3, 0, 49, 12]), np.array([1, 8, 2])
    for compute in (gram.block, gram.block32):
        fresh = compute(rows)
        out = np.full((9, 50), np.nan, dtype=fresh.dtype)
        assert compute(rows, out=out[2:6]) is not None
        np.testing.assert_array_equal(out[2:6], fresh)
        assert np.isnan(out[:2]).all() and np.isnan(out[6:]).all()
        np.testing.assert_array_equal(compute(rows, cols, out=np.empty((4, 3), dtype=fresh.dtype)), compute(rows, cols))
    np.testing.assert_allclose(gram.block(rows), kernel(X[rows], X), rtol=1e-13)
