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
def test_named_kernels_equal_pairwise_loops_dense_and_sparse(kernel, pair):
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
    "kernel", [K.LinearKernel(), K.PolynomialKernel(degree=2, gamma=0.5, coef0=1.0), K.RBFKernel(gamma=0.3),
               K.SigmoidKernel(gamma=0.1, coef0=-0.5), K.RBFKernel(gamma=0.3) + K.LinearKernel()]
)
@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("dots", ["loops", "blas"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_solver_rows_are_the_kernel_s_values(kernel, layout, dots, dtype):
    """The rows the solver's row source computes (compiled loops, or BLAS products and the
    compiled kernel; the kernel object itself where it declares no compiled form), on dense
    and sparse data, in float64 and float32: the kernel's values, and its diagonal."""
    from svmkit._solver.rows import KernelRows

    X = sp.random(60, 30, density=0.1, format="csr", random_state=3)
    data = X if layout == "sparse" else X.toarray()
    source = KernelRows(kernel, data)
    rows = np.array([5, 0, 59, 17, 5])
    out = np.empty((5, 60), dtype=dtype)
    source.rows_into(rows, out, "sparse" if layout == "sparse" and dots == "loops" else dots)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, kernel(X[rows].toarray(), X.toarray()), rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(source.diagonal(), kernel.diag(X.toarray()), rtol=1e-12)
    assert (kernel.compiled_form() is None) == (source.kernel_code is None)


@pytest.mark.parametrize("kernel", [K.RBFKernel(gamma=0.05), K.PolynomialKernel(degree=2, gamma=0.5, coef0=1.0),
                                    K.RBFKernel(gamma=0.05) + K.LinearKernel()])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_rows", [300, 1300])
def test_a_square_gram_matrix_is_the_kernel_s_values_and_symmetric(kernel, dtype, n_rows):
    """The Gram matrix the Gram strategy computes first, by BLAS (blocks of rows up to the
    diagonal; 1,300 rows: parts on two threads where there are two cores; symmetric exactly)
    and by the kernel object (which declares no compiled form): the kernel's values."""
    from svmkit._solver.rows import KernelRows

    X = np.random.default_rng(6).normal(size=(n_rows, 10))
    out = np.full((n_rows, n_rows), np.nan, dtype=dtype)
    KernelRows(kernel, X).gram_into(out, "blas")
    if kernel.compiled_form() is not None:
        assert np.array_equal(out, out.T)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, kernel(X, X), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("kernel", [K.RBFKernel(gamma=0.3), K.LinearKernel()])
def test_a_subset_of_dense_rows_gathers_the_same_data_as_its_own_rows(kernel):
    """A subset of dense rows gathered for a one-vs-one problem takes its data for compiled
    code from the whole data's transpose: the same arrays, bit for bit, as a source of those
    rows alone, in float64 and float32, and the same diagonal and rows."""
    from svmkit._solver.rows import KernelRows

    X = np.random.default_rng(6).normal(size=(50, 7))
    rows = np.array([40, 3, 3, 17, 0, 49])
    whole = KernelRows(kernel, X)
    subset, alone = whole.subset(rows, gather=True), KernelRows(kernel, X[rows])
    for dtype in (np.float32, np.float64):
        for made, expected in zip(subset.compiled(dtype), alone.compiled(dtype)):
            np.testing.assert_array_equal(made, expected)
        out, expected = np.empty((6, 6), dtype=dtype), np.empty((6, 6), dtype=dtype)
        subset.rows_into(np.arange(6), out, "loops")
        alone.rows_into(np.arange(6), expected, "loops")
        np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(subset.diagonal(), alone.diagonal())


def test_a_subset_gathered_where_made_copies_no_float64_rows_and_makes_nothing_of_the_whole():
    """A shrunk sub-problem's subset (``gather='made'``) takes its float32 data from the whole's
    where made, its float64 data from the whole's rows without making the whole's: bit for bit
    those of a source of its rows alone."""
    from svmkit._solver.rows import KernelRows

    kernel = K.RBFKernel(gamma=0.3)
    X = np.random.default_rng(7).normal(size=(60, 5))
    rows = np.array([59, 2, 30, 31, 8])
    whole = KernelRows(kernel, X)
    whole.compiled(np.float32)
    subset, alone = whole.subset(rows, gather="made"), KernelRows(kernel, X[rows])
    for dtype in (np.float32, np.float64):
        for made, expected in zip(subset.compiled(dtype), alone.compiled(dtype)):
            np.testing.assert_array_equal(made, expected)
    assert whole.made(np.float64) is None and whole.made(np.float32) is not None


def test_a_subset_of_a_gathered_subset_is_gathered_from_the_whole_without_copying_its_rows():
    """A shrunk sub-problem's working set (a subset of its gathered subset) has the kernel
    rows of its rows alone, and computing them copies none of the sub-problem's rows: 10,000
    rows of 50 float64 features would take 4 MB."""
    import tracemalloc

    from svmkit._solver.rows import KernelRows

    kernel = K.RBFKernel(gamma=0.02)
    generator = np.random.default_rng(8)
    X = generator.normal(size=(20_000, 50))
    kept = np.sort(generator.choice(20_000, 10_000, replace=False))
    working_set = np.array([9_999, 0, 17, 5_000, 18])
    whole = KernelRows(kernel, X)
    whole.compiled(np.float32)
    sub_problem = whole.subset(kept, gather="made")
    sub_problem.compiled(np.float32)
    out, expected = np.empty((5, 5), dtype=np.float32), np.empty((5, 5), dtype=np.float32)
    tracemalloc.start()
    sub_problem.subset(working_set).rows_into(np.arange(5), out, "blas")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    KernelRows(kernel, X[kept][working_set]).rows_into(np.arange(5), expected, "blas")
    np.testing.assert_array_equal(out, expected)
    assert peak < 2**20


@pytest.mark.parametrize("kernel", [K.RBFKernel(gamma=0.3), K.PolynomialKernel(degree=2, gamma=0.5, coef0=1.0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blas_rows_of_sparse_data_split_the_features_and_are_the_kernel_s_values(kernel, dtype):
    """Sparse rows made dense for BLAS: two features that most rows hold (one centred away for
    RBF, which depends on ``x - y`` only, kept dense by the polynomial kernel) beside a one-hot
    feature of 20 values: BLAS multiplies the dense features, compiled code adds the sparse
    ones' entries; the kernel's values. Dense rows are not split."""
    from svmkit._solver.rows import KernelRows

    generator = np.random.default_rng(8)
    one_hot = np.zeros((400, 20))
    one_hot[np.arange(400), generator.integers(0, 20, size=400)] = 1.0
    common = (generator.random((400, 2)) < [0.95, 0.5]).astype(float)  # (held by 95% and 50% of the rows)
    X = np.hstack([common, one_hot])
    source = KernelRows(kernel, sp.csr_matrix(X))
    dense, sparse, _ = source.split_transposed(dtype)
    centred = isinstance(kernel, K.RBFKernel)
    assert (dense.shape[0], sparse.shape[0]) == ((1, 21) if centred else (2, 20))
    rows = np.array([5, 0, 399, 17, 5])
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    out = np.empty((5, 400), dtype=dtype)
    source.rows_into(rows, out, "blas")
    np.testing.assert_allclose(out, kernel(X[rows], X), rtol=tolerance, atol=tolerance)
    assert KernelRows(kernel, X).split_transposed(dtype) is None


@pytest.mark.parametrize("kernel", [K.RBFKernel(gamma=0.3), K.LinearKernel(),
                                    K.PolynomialKernel(degree=2, gamma=0.5, coef0=1.0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_of_common_and_other_features_are_the_kernel_s_values(kernel, dtype):
    """Very sparse rows, whose products are taken by feature, where six features are held by 90%
    to 20% of the rows beside 2,000 rare ones: BLAS multiplies a dense copy of the six, compiled
    code adds the rare ones' products by feature; the kernel's values, in
    every place asked (runs of places and scattered ones), and in the blocks of working sets.
    Without the common features, or on fewer rows, the rows stay with compiled loops alone."""
    from svmkit._solver.rows import KernelRows

    generator = np.random.default_rng(9)
    n = 2500  # (at least COMMON_FEATURES_MIN_ROWS)
    rare = sp.random(n, 2000, density=0.003, format="csr", random_state=9,
                     data_rvs=lambda size: generator.normal(size=size))
    held = [0.9, 0.9, 0.8, 0.5, 0.5, 0.2]  # (2.8 products a value saved, 207 against 2 x 54: common_features)
    common = (generator.random((n, 6)) < held) * generator.normal(size=(n, 6))
    X = sp.hstack([sp.csr_matrix(common), rare]).tocsr()
    source = KernelRows(kernel, X)
    split = source.common_split(dtype)
    assert split.common.shape == (6, n) and split.common.dtype == dtype
    assert split.rest.values.shape[0] == rare.nnz  # (the common features' entries left out)
    rows = np.arange(60)[::-1]  # (rows 59 ... 0: the first 40 to a run of places, the rest scattered)
    places = np.concatenate([np.arange(40), 40 + np.arange(20)[::-1] * 2])
    out = np.full((80, n), np.nan, dtype=dtype)
    source.rows_into(rows, out, "common", places)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    expected = kernel(X[rows].toarray(), X.toarray())
    np.testing.assert_allclose(out[places], expected, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(source.block(rows), expected[:, rows], rtol=1e-12, atol=1e-12)
    without = KernelRows(kernel, rare)
    assert without.common_features() is None and without.common_split(dtype) is None
    assert KernelRows(kernel, X[:2000]).common_features() is None  # (fewer rows than COMMON_FEATURES_MIN_ROWS)
    out = np.empty((60, n), dtype=dtype)
    without.rows_into(rows, out, "common")
    np.testing.assert_allclose(out, kernel(rare[rows].toarray(), rare.toarray()), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("kernel", [K.LinearKernel(), K.PolynomialKernel(gamma=0.1, coef0=1.0, degree=2)])
def test_the_diagonal_made_a_block_of_rows_at_a_time_is_that_of_all_rows(kernel):
    """Where no float64 data for compiled code are made (a float32 Gram matrix), the diagonal
    is computed a block of rows at a time (here two blocks of 2**21 values), bit for bit as
    from the float64 transpose of all rows."""
    from svmkit._core.kernels import dense_kernel_data, kernel_diagonal
    from svmkit._solver.rows import KernelRows

    X = np.random.default_rng(7).normal(size=(1100, 2000))
    source = KernelRows(kernel, X)
    expected = kernel_diagonal(dense_kernel_data(X, *kernel.compiled_form()))
    np.testing.assert_array_equal(source.diagonal(), expected)


@pytest.mark.parametrize("kernel", [K.RBFKernel(gamma=0.2), K.LinearKernel()])
def test_a_block_of_sparse_rows_is_that_of_the_same_rows_dense(kernel):
    """The blocked strategy's working-set blocks: sparse rows dense enough for a dense copy to
    pay are multiplied by BLAS as dense rows are, the same values bit for bit; sparser rows
    stay sparse and agree to rounding; large blocks (rows shared out over threads) are the
    kernel's values as well."""
    from svmkit._plan import ONE_THREAD_BLAS_WORK
    from svmkit._solver.rows import KernelRows

    rng = np.random.default_rng(8)
    for density, exact in ((0.3, True), (0.02, False)):
        X = sp.random(300, 40, density=density, format="csr", random_state=rng)
        for rows in (np.array([5, 0, 299, 17]), np.arange(300)):
            sparse_block = KernelRows(kernel, X).block(rows)
            dense_block = KernelRows(kernel, X.toarray()).block(rows)
            if exact:
                np.testing.assert_array_equal(sparse_block, dense_block)
            else:
                np.testing.assert_allclose(sparse_block, dense_block, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(dense_block, kernel(X[rows].toarray(), X[rows].toarray()), rtol=1e-12)
    wide = rng.normal(size=(600, 30))  # (600 x 600 x 30 multiply-adds: shared out by rows)
    assert 600 * 600 * 30 >= ONE_THREAD_BLAS_WORK
    np.testing.assert_allclose(KernelRows(kernel, wide).block(np.arange(600)), kernel(wide, wide), rtol=1e-12)


def test_solver_rows_go_to_their_places_through_runs_and_bounded_blocks():
    """Rows into a store's places: a run of consecutive places written in place, the scattered
    rest a block of at most SCATTERED_ROWS_BYTES at a time (here 90 rows of 60,000 float32
    values, 21 MB: two blocks), every row where it was asked for and the other places untouched."""
    from svmkit._plan import DIRECT_ROWS_MIN_RUN, SCATTERED_ROWS_BYTES
    from svmkit._solver.rows import KernelRows

    X = np.random.default_rng(4).normal(size=(60_000, 3))
    kernel = K.RBFKernel(gamma=0.5)
    places = np.concatenate([np.arange(200, 200 + DIRECT_ROWS_MIN_RUN), np.arange(0, 180, 2)])
    rows = np.random.default_rng(5).choice(60_000, places.shape[0], replace=False)
    assert 90 * 60_000 * 4 > SCATTERED_ROWS_BYTES
    out = np.full((300, 60_000), -1.0, dtype=np.float32)
    KernelRows(kernel, X).rows_into(rows, out, "blas", places)
    np.testing.assert_allclose(out[places], kernel(X[rows], X), rtol=1e-5, atol=1e-6)
    untouched = np.setdiff1d(np.arange(300), places)
    assert np.all(out[untouched] == -1.0)


def test_a_subclass_keeps_the_compiled_form_unless_it_changes_the_values():
    """A subclass of a built-in kernel that does not override ``__call__`` keeps its compiled
    form (the solver computes its rows in compiled code); one that does loses it (its own
    ``__call__`` is used), unless it declares the form itself."""

    class Narrow(K.RBFKernel):
        pass

    class Doubled(K.RBFKernel):
        def __call__(self, A, B):
            return 2 * super().__call__(A, B)

    class Declared(Doubled):
        def compiled_form(self):
            return K.RBFKernel.compiled_form(K.RBFKernel(gamma=self.gamma))

    assert Narrow(gamma=0.5).compiled_form() == K.RBFKernel(gamma=0.5).compiled_form()
    assert Doubled(gamma=0.5).compiled_form() is None
    assert Declared(gamma=0.5).compiled_form() == K.RBFKernel(gamma=0.5).compiled_form()
    assert K.CallableKernel(lambda a, b: a @ b.T).compiled_form() is None
