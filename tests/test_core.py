"""The compiled core (svmkit._core) against the slow obvious references of tests/naive.py."""

import ast
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from compiled_doctests import run_docstring_examples
from naive import (
    asymmetry_by_loops, dual_by_projected_gradient, intercept_by_masks, kept_by_shrinking, kernel_by_formula,
    libsvm_layout_by_loops,
)
import svmkit
from svmkit._core._exp import exp_nonpositive, exp_nonpositive_single
from svmkit._core._jit import jit
from svmkit._core.blocked import ROUND_LEFT, linear_round
from svmkit._core.layout import libsvm_layout
from svmkit._core.kernels import (
    LINEAR, POLYNOMIAL, RBF, SIGMOID, apply_kernel, apply_kernel_after_sparse_products, dense_kernel_data,
    add_sparse_products, complete_lower_rows, kernel_asymmetry, kernel_columns, kernel_diagonal, kernel_rows,
    precomputed_kernel_data, sparse_kernel_data,
)
from svmkit._core.smo import (
    GROUP, N_WANTED, Batch, Settings, full_row_store, group_rho, new_work, row_store, solve_batch, solve_kept,
)
from svmkit._core.smo import kept_by_shrinking as compiled_kept_by_shrinking
from svmkit._solver.dual import DualBatch
from svmkit._solver.rows import PrecomputedRows, square_block
from svmkit._core.working_set import column_sum, gather_block, select_working_set, smallest

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 6))
KERNELS = [(LINEAR, 1.0, 0.0, 1.0), (POLYNOMIAL, 0.3, 1.0, 3.0), (RBF, 0.4, 0.0, 3.0), (SIGMOID, 0.1, -0.2, 3.0)]


@pytest.mark.parametrize("code, gamma, coef0, degree", KERNELS)
@pytest.mark.parametrize("layout", ["dense", "sparse", "dense float32"])
def test_kernel_rows_equal_the_formulas(code, gamma, coef0, degree, layout):
    data_X = X.copy()
    data_X[data_X < 0.3] = 0.0  # (zeros, for the sparse rows)
    expected = kernel_by_formula(code, gamma, coef0, degree, data_X, data_X)
    if layout == "sparse":
        data = sparse_kernel_data(sp.csr_matrix(data_X), code, gamma, coef0, degree)
    else:
        dtype = np.float32 if layout == "dense float32" else np.float64
        data = dense_kernel_data(data_X.astype(dtype), code, gamma, coef0, degree)
    rows = np.array([3, 0, 39, 3])
    out = np.empty((4, 40), dtype=data.XT.dtype)
    places = np.array([2, 0, 3, 1])  # (row rows[k] into out[places[k]])
    kernel_rows(data, rows, out, places)
    tolerance = 1e-5 if out.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out[places], expected[rows], rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(kernel_diagonal(data), np.diagonal(expected), rtol=tolerance)


@pytest.mark.parametrize("sparse", [False, True])
def test_kernel_rows_longer_than_a_tile_equal_the_formulas(sparse):
    wide = np.random.default_rng(3).normal(size=(9000, 5))  # (three tiles of columns)
    wide[wide < 0] = 0.0
    rows = np.array([8999, 0, 4096])
    data = (sparse_kernel_data(sp.csr_matrix(wide), RBF, 0.2, 0.0, 3.0) if sparse
            else dense_kernel_data(wide, RBF, 0.2, 0.0, 3.0))
    out = np.empty((3, 9000))
    kernel_rows(data, rows, out, np.arange(3))
    np.testing.assert_allclose(out, kernel_by_formula(RBF, 0.2, 0.0, 3.0, wide[rows], wide), rtol=1e-12)
    # the same values computed in parts of the columns (as threads share them), the parts' edges
    # off the tiles': each value is computed alone, so the parts give the very same bits
    in_parts = np.full((3, 9000), np.nan)
    for first, last in ((0, 2500), (2500, 7001), (7001, 9000)):
        kernel_columns(data, rows, in_parts, np.arange(3), first, last)
    np.testing.assert_array_equal(in_parts, out)


@pytest.mark.parametrize("dtype, dense_data", [(np.float64, False), (np.float32, False), (np.float64, True)])
def test_sparse_products_add_the_dot_products(dtype, dense_data):
    """Rows of CSR arrays (one empty, features the data lack), some of them twice and out of
    order, times sparse data by feature or dense data (more rows than a tile of columns) by
    its transpose's rows, added to what ``out`` holds (in its type)."""
    rng = np.random.default_rng(11)
    data_X = sp.random(1100, 200, density=0.05, format="csr", random_state=rng)
    test = sp.random(6, 200, density=0.05, format="csr", random_state=rng)
    test[3] = 0.0
    test.eliminate_zeros()
    data = dense_kernel_data(data_X.toarray(), LINEAR, 1.0, 0.0, 1.0) if dense_data else \
        sparse_kernel_data(data_X, LINEAR, 1.0, 0.0, 1.0)
    rows = np.array([5, 3, 0, 5, 1])
    start = rng.normal(size=(5, 1100)).astype(dtype)
    out = start.copy()
    add_sparse_products(test.indptr.astype(np.int64), test.indices.astype(np.int64), test.data, rows, data, out)
    expected = start + kernel_by_formula(LINEAR, 1.0, 0.0, 1.0, test.toarray()[rows], data_X.toarray())
    tolerance = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, expected, rtol=tolerance, atol=tolerance)
    np.testing.assert_array_equal(out[1], start[1])  # (the empty row adds nothing)


@pytest.mark.parametrize("code, gamma, coef0, degree", KERNELS)
def test_kernel_after_sparse_products_equals_the_formula_of_the_whole_rows(code, gamma, coef0, degree):
    """Rows whose last 10 features hold 0 to 9 nonzeros (four at a time and the rest), against
    300 columns: BLAS's products of the first 5 features, then the sparse ones' and the kernel."""
    generator = np.random.default_rng(4)
    A = generator.normal(size=(12, 15))
    for r in range(12):
        A[r, 5 + generator.permutation(10)[r % 10:]] = 0.0
    B = generator.normal(size=(300, 15))
    B[generator.random(B.shape) < 0.5] = 0.0
    block = A[:, :5] @ B[:, :5].T
    apply_kernel_after_sparse_products(block, A[:, 5:], np.ascontiguousarray(B[:, 5:].T), (A**2).sum(axis=1),
                                       (B**2).sum(axis=1), code, gamma, coef0, degree)
    np.testing.assert_allclose(block, kernel_by_formula(code, gamma, coef0, degree, A, B), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 63, 64, 150])
def test_kernel_asymmetry_is_the_naive_largest_difference_and_value(n):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, 5))
    K = A @ A.T
    assert kernel_asymmetry(K) == asymmetry_by_loops(K) == (0.0, float(np.abs(K).max()))
    K[n // 2:, : n // 3] += rng.normal(scale=1e-3, size=(n - n // 2, n // 3))  # (below the diagonal, across tiles)
    K[n - 1, 0] = -50.0  # (the largest value, in the last tile row)
    assert kernel_asymmetry(K) == asymmetry_by_loops(K)


@pytest.mark.parametrize("code, gamma, coef0, degree", KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lower_rows_completed_in_parts_are_the_formulas_symmetric(code, gamma, coef0, degree, dtype):
    """Products on and below the diagonal of 70 rows (more than two tiles), in two parts whose
    boundary is inside a tile; the values above the diagonal are left garbage, to be replaced."""
    A = np.random.default_rng(5).normal(size=(70, 6))
    products = (A @ A.T).astype(dtype)
    out = np.where(np.tri(70, dtype=bool), products, np.array(np.nan, dtype=dtype))
    norms = np.einsum("ij,ij->i", A, A).astype(dtype)
    for first, last in [(0, 45), (45, 70)]:
        complete_lower_rows(out, norms, code, gamma, coef0, degree, first, last)
    assert np.array_equal(out, out.T)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, kernel_by_formula(code, gamma, coef0, degree, A, A), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("function", [apply_kernel, apply_kernel_after_sparse_products, kernel_rows, kernel_columns,
                                      add_sparse_products, kernel_asymmetry, complete_lower_rows])
def test_compiled_kernel_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0


@pytest.mark.parametrize("function", [solve_batch, solve_kept, linear_round, libsvm_layout])
def test_compiled_solver_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0



def _python_references(tree):
    """The names that a module's Python code refers to: all but the bodies of compiled functions."""
    names = set()

    def visit(node):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            return
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def test_functions_compiled_without_an_entry_point_are_called_from_compiled_code_only():
    # (numba gives internal_jit functions no wrapper for calls from Python: such a call crashes)
    root = Path(svmkit.__file__).parent
    modules = {path: ast.parse(path.read_text()) for path in [*root.rglob("*.py"), *Path(__file__).parent.glob("*.py")]}
    internal = {node.name for tree in modules.values() for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef) and "internal_jit" in map(ast.unparse, node.decorator_list)}
    assert {"_smo_stretch", "_get_wanted", "kernel_of_products"} <= internal
    called_from_python = {(path.name, name) for path, tree in modules.items()
                          for name in _python_references(tree) & internal}
    assert called_from_python == set()


@pytest.mark.parametrize("block_type", [np.float64, np.float32])
@pytest.mark.parametrize("two_per_row", [False, True])
def test_a_linear_round_is_the_naive_optimum_of_its_block(block_type, two_per_row):
    """One round from a working set of 24 of the 80 variables (a row each, or epsilon-SVR's two
    variables on each of 40 rows): the other multipliers unchanged, the set's the naive optimum
    of the block with them fixed (its kernel values in ``block_type``), the gradient ``Q a + p``
    of the linear kernel's values, and the returned change that of the dual objective."""
    n_rows = 40 if two_per_row else 80
    data = np.random.default_rng(3).normal(size=(n_rows, 6))
    rows = np.tile(np.arange(40), 2) if two_per_row else np.arange(80)
    y = np.where(np.arange(80) < 40, 1.0, -1.0) if two_per_row else np.where(data[:, 0] + data[:, 1] > 0, 1.0, -1.0)
    p = np.full(80, -1.0) if not two_per_row else np.concatenate([np.full(40, 0.3), np.full(40, 0.3)]) - \
        np.concatenate([data[:, 2], -data[:, 2]])
    upper = np.full(80, 0.5)
    K = kernel_by_formula(LINEAR, 1.0, 0.0, 1.0, data, data)[np.ix_(rows, rows)]
    Q = y[:, None] * y[None, :] * K
    alpha = np.zeros(80)
    alpha[[1, 50]] = 0.25  # (a feasible start off zero: y'a = 0 in both cases)
    grad = Q @ alpha + p
    ws = np.array([1, 50] + list(range(2, 24)), dtype=np.int64)
    batch = Batch(y, p, upper, rows, np.array([[0, 80, 0, 0], [80, 0, 0, 0]]), False)
    start_alpha, start_objective = alpha.copy(), 0.5 * alpha @ Q @ alpha + p @ alpha
    steps, change = linear_round(batch, data, data.astype(block_type), ws, alpha, grad, 1e-9, 10**6,
                                 precomputed_kernel_data(np.empty((0, 0))))
    assert steps != ROUND_LEFT and steps >= 1
    rest = np.setdiff1d(np.arange(80), ws)
    np.testing.assert_array_equal(alpha[rest], start_alpha[rest])
    block = np.ix_(ws, ws)
    block_p = p[ws] + Q[np.ix_(ws, rest)] @ alpha[rest]
    expected, _ = dual_by_projected_gradient(Q[block], block_p, y[ws], upper[ws], start_alpha[ws])
    tolerance = 1e-6 if block_type == np.float64 else 1e-4
    np.testing.assert_allclose(alpha[ws], expected, atol=tolerance)
    np.testing.assert_allclose(grad, Q @ alpha + p, atol=1e-12)
    # (the change from the block's own gradient: as exact as its kernel values)
    exact = 0.5 * alpha @ Q @ alpha + p @ alpha - start_objective
    assert change == (pytest.approx(exact, abs=1e-12) if block_type == np.float64 else pytest.approx(exact, rel=1e-6))

def test_precomputed_rows_are_copies_of_the_matrix():
    K = X @ X.T
    out = np.empty((2, 40))
    data = precomputed_kernel_data(K)
    kernel_rows(data, np.array([5, 1]), out, np.array([1, 0]))
    np.testing.assert_array_equal(out, K[[1, 5]])
    np.testing.assert_array_equal(kernel_diagonal(data), np.diagonal(K))


def test_a_precomputed_subset_is_numpy_s_block_of_its_rows():
    K = X @ X.T
    rows = np.array([39, 3, 3, 17, 0])  # (any order, repeats)
    np.testing.assert_array_equal(PrecomputedRows(K).subset(rows).K, K[np.ix_(rows, rows)])
    np.testing.assert_array_equal(square_block(K.astype(np.float32), rows), K.astype(np.float32)[np.ix_(rows, rows)])


def test_apply_kernel_is_the_rbf_formula_in_both_precisions():
    products = X[:5] @ X.T
    norms = (X**2).sum(axis=1)
    for dtype, tolerance in ((np.float64, 1e-14), (np.float32, 1e-6)):
        block = products.astype(dtype)
        apply_kernel(block, norms[:5].astype(dtype), norms.astype(dtype), RBF, 0.4, 0.0, 1.0)
        np.testing.assert_allclose(block, kernel_by_formula(RBF, 0.4, 0.0, 1.0, X[:5], X), rtol=tolerance)


@jit
def _exponentials(x, single):
    out, out_single = np.empty(x.shape[0]), np.empty(x.shape[0], dtype=np.float32)
    for i in range(x.shape[0]):
        out[i] = exp_nonpositive(x[i])
        out_single[i] = exp_nonpositive_single(single[i])
    return out, out_single


def test_the_vectorised_exponentials_are_the_exponential_to_their_precision():
    # every 0.0001 from -100 to 0, against the C library's (float64) exponential; float32's
    # smallest normal number is 1.18e-38, below it (x < -87.33) the single form gives 0
    x = -np.linspace(0.0, 100.0, 1_000_001)
    single = x.astype(np.float32)
    values, values_single = _exponentials(x, single)
    exact, exact_single = np.exp(x), np.exp(single.astype(np.float64))
    assert np.max(np.abs(values - exact) / exact) < 4.5e-16  # (within 2 units in the last place: 2 * 2^-52)
    normal = single > -87.33
    assert np.max(np.abs(values_single - exact_single)[normal] / exact_single[normal]) < 1.7e-7  # (1.4 units)
    assert np.all(values_single[~normal] == 0.0) and exact_single[~normal].max() < 1.2e-38


def _runs(bounds, rows):
    return DualBatch(np.zeros(rows.shape[0]), np.zeros(rows.shape[0]), np.zeros(rows.shape[0]),
                     np.zeros(rows.shape[0]), rows, np.asarray(bounds)).runs()


def _batch_on(K, y, p, upper, alpha0, nu=False):
    n = y.shape[0]
    store = full_row_store(K.copy(), np.diagonal(K).copy(), precomputed_kernel_data(K))
    return Batch(y, p, upper, np.arange(n), _runs([0, n], np.arange(n)), nu), store


def _solve(batch, store, alpha0, tol=1e-8, shrinking=True, budget=2**40):
    work = new_work(batch)
    work.alpha[:] = alpha0
    while work.cursor[GROUP] < batch.runs.shape[0] - 1:
        steps = solve_batch(batch, store, work, Settings(tol, 10**7, shrinking, 8, 0), budget)
        solve_kept(batch, store, work, Settings(tol, 10**7, shrinking, 8, 0), budget - steps)
    return work


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("nu", [False, True])
def test_smo_reaches_the_optimum_of_the_naive_solver(shrinking, nu):
    """C-SVC and nu-SVC duals on an RBF Gram matrix: the objective of SMO's solution equals the
    naive solver's, the equality constraints hold and the gradient is exact."""
    K = kernel_by_formula(RBF, 0.4, 0.0, 1.0, X, X)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    Q = y[:, None] * y[None, :] * K
    upper = np.full(40, 2.0)
    if nu:
        p, alpha0 = np.zeros(40), np.zeros(40)
        for sign in (1.0, -1.0):
            members = np.flatnonzero(y == sign)
            alpha0[members[:4]] = 2.0  # (each class 8 in all)
    else:
        p, alpha0 = -np.ones(40), np.zeros(40)
    batch, store = _batch_on(K, y, p, upper, alpha0, nu)
    work = _solve(batch, store, alpha0, shrinking=shrinking)
    expected_alpha, expected_objective = dual_by_projected_gradient(Q, p, y, upper, alpha0, nu=nu)
    objective = 0.5 * work.alpha @ Q @ work.alpha + p @ work.alpha
    assert objective == pytest.approx(expected_objective, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(work.grad, Q @ work.alpha + p, atol=1e-10)
    assert y @ work.alpha == pytest.approx(y @ alpha0, abs=1e-10)
    if nu:
        assert work.alpha[y > 0].sum() == pytest.approx(8.0) and work.alpha[y < 0].sum() == pytest.approx(8.0)
    assert work.status[0] == 0 and work.gap[0] < 1e-8


def test_a_short_solve_of_a_small_problem_hands_no_sub_problem_over():
    """200 variables solved in some 250 steps: with sub-problems handed over at every check
    (``hand_over_work`` 0) a hundred steps are the sub-problem's; below the plan's
    ``HAND_OVER_MIN_WORK`` (steps times variables) none is handed over, and the solve is one
    call, to the same optimum."""
    from svmkit._plan import HAND_OVER_MIN_WORK

    Z = np.random.default_rng(1).normal(size=(200, 6))
    K = kernel_by_formula(RBF, 0.1, 0.0, 1.0, Z, Z)
    y = np.where(Z[:, 0] + 0.5 * Z[:, 1] > 0, 1.0, -1.0)
    batch, store = _batch_on(K, y, -np.ones(200), np.ones(200), np.zeros(200))
    handed_over, kept_steps = new_work(batch), 0
    while handed_over.cursor[GROUP] < 1:
        solve_batch(batch, store, handed_over, Settings(1e-8, 10**7, True, 8, 0), 2**40)
        kept_steps += solve_kept(batch, store, handed_over, Settings(1e-8, 10**7, True, 8, 0), 2**40)
    assert kept_steps >= 100
    whole = new_work(batch)
    solve_batch(batch, store, whole, Settings(1e-8, 10**7, True, 8, HAND_OVER_MIN_WORK), 2**40)
    assert whole.cursor[GROUP] == 1 and whole.n_iter[0] * 200 < HAND_OVER_MIN_WORK
    Q = y[:, None] * y[None, :] * K
    objective = lambda alpha: 0.5 * alpha @ Q @ alpha - alpha.sum()  # noqa: E731
    assert objective(whole.alpha) == pytest.approx(objective(handed_over.alpha), rel=1e-9)


def test_calls_on_a_small_budget_make_the_same_steps_as_one_call():
    """The solver stopped every 7 steps (its position kept between calls) takes the steps of
    one uninterrupted call, bit for bit."""
    K = kernel_by_formula(RBF, 0.4, 0.0, 1.0, X, X)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    batch, store = _batch_on(K, y, -np.ones(40), np.full(40, 1.0), np.zeros(40))
    whole = _solve(batch, store, np.zeros(40), tol=1e-6)
    pieces = _solve(batch, store, np.zeros(40), tol=1e-6, budget=7)
    np.testing.assert_array_equal(pieces.alpha, whole.alpha)
    assert pieces.n_iter[0] == whole.n_iter[0]


def test_missing_rows_are_asked_for_and_the_solution_is_that_of_all_rows_stored():
    """With no row stored, the solver lists the rows it needs (the one it needs first, then
    at most ``prefetch`` in all) and returns; computed into the store, the fit ends where the
    fit on all rows stored ends."""
    K = kernel_by_formula(RBF, 0.4, 0.0, 1.0, X, X)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    batch, full_store = _batch_on(K, y, -np.ones(40), np.full(40, 1.0), np.zeros(40))
    expected = _solve(batch, full_store, np.zeros(40), tol=1e-6)
    store = row_store(np.empty((40, 40)), 40, np.diagonal(K).copy(), False, precomputed_kernel_data(K))
    work, filled, requests = new_work(batch), 0, 0
    while work.cursor[GROUP] < 1:
        solve_batch(batch, store, work, Settings(1e-6, 10**7, True, 8, 0), 2**40)
        solve_kept(batch, store, work, Settings(1e-6, 10**7, True, 8, 0), 2**40)
        count = work.cursor[N_WANTED]
        if count:
            requests += 1
            wanted, places = work.wanted[:count], work.places[:count]
            assert count <= 8 and np.unique(wanted).size == count
            np.testing.assert_array_equal(places, np.arange(filled, filled + count))  # (free places in order)
            np.testing.assert_array_equal(store.slot[wanted], places)
            store.K[places] = K[wanted]
            work.cursor[N_WANTED] = 0
            filled += count
    assert requests >= 2 and filled <= 40
    np.testing.assert_array_equal(work.alpha, expected.alpha)


@pytest.mark.parametrize("capacity", [6, 20, 40])
@pytest.mark.parametrize("nu", [False, True])
def test_a_store_of_fewer_rows_than_the_problem_reaches_the_naive_optimum(capacity, nu):
    """Rows computed by the solver into a store of ``capacity`` of the 40 rows (the least
    recently used make room, the start point's rows in chunks; with room for all, none
    leaves): the optimum of the naive solver, each row's values those of the kernel matrix
    wherever it is stored."""
    K = kernel_by_formula(RBF, 0.4, 0.0, 1.0, X, X)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    Q = y[:, None] * y[None, :] * K
    upper = np.full(40, 2.0)
    p, alpha0 = (np.zeros(40), np.zeros(40)) if nu else (-np.ones(40), np.zeros(40))
    if nu:
        for sign in (1.0, -1.0):
            alpha0[np.flatnonzero(y == sign)[:4]] = 2.0
    data = dense_kernel_data(X.copy(), RBF, 0.4, 0.0, 1.0)
    batch = Batch(y, p, upper, np.arange(40), _runs([0, 40], np.arange(40)), nu)
    store = row_store(np.empty((capacity, 40)), 40, np.diagonal(K).copy(), True, data)
    work = _solve(batch, store, alpha0, shrinking=True)
    _, expected_objective = dual_by_projected_gradient(Q, p, y, upper, alpha0, nu=nu)
    assert 0.5 * work.alpha @ Q @ work.alpha + p @ work.alpha == pytest.approx(expected_objective, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(work.grad, Q @ work.alpha + p, atol=1e-10)
    stored = np.flatnonzero(store.slot >= 0)
    assert 0 < stored.size <= capacity
    np.testing.assert_allclose(store.K[store.slot[stored]], K[stored], rtol=1e-12)


def test_groups_of_a_batch_are_solved_as_problems_of_their_own():
    """Two problems in one batch on one store of rows: each solution is that of its problem
    solved alone (rows shared: the second problem's variables use rows of the first)."""
    K = kernel_by_formula(RBF, 0.4, 0.0, 1.0, X, X)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    rows = np.concatenate([np.arange(40), np.arange(20)])
    labels = np.concatenate([y, np.where(X[:20, 1] > 0, 1.0, -1.0)])
    batch = Batch(labels, -np.ones(60), np.full(60, 1.0), rows, _runs([0, 40, 60], rows), False)
    together = _solve(batch, _batch_on(K, y, y, y, y)[1], np.zeros(60))
    alone = _solve(Batch(labels[40:], -np.ones(20), np.full(20, 1.0), np.arange(20), _runs([0, 20], np.arange(20)),
                         False), _batch_on(K[:20, :20], y[:20], y, y, y)[1], np.zeros(20))
    np.testing.assert_allclose(together.alpha[40:], alone.alpha, atol=1e-12)
    assert together.status.tolist() == [0, 0]


@pytest.mark.parametrize("nu", [False, True])
def test_rho_of_each_group_is_libsvm_s(nu):
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    alpha = np.array([0.5, 0.5, 0.0, 1.0, 1.0, 0.2])
    grad = np.array([-1.0, -3.0, 2.0, 0.5, -0.2, 0.7])
    upper = np.ones(6)
    batch = Batch(y, np.zeros(6), upper, np.arange(6), _runs([0, 3, 6], np.arange(6)), nu)
    r1, r2 = group_rho(batch, alpha, grad)
    for g, part in enumerate([slice(0, 3), slice(3, 6)]):
        if nu:
            for sign, r in ((1.0, r1[g]), (-1.0, r2[g])):
                members = y[part] == sign
                # Solver_NU::calculate_rho: y G = G for both signs' own (sign-free) rule
                expected = -intercept_by_masks(np.ones(members.sum()), alpha[part][members], grad[part][members],
                                               upper[part][members])
                assert r == pytest.approx(expected)
        else:
            assert r1[g] == r2[g] == pytest.approx(-intercept_by_masks(y[part], alpha[part], grad[part], upper[part]))


def test_working_set_takes_the_largest_violators_of_each_side():
    y = np.where(rng.random(50) > 0.5, 1.0, -1.0)
    alpha = rng.choice([0.0, 0.5, 1.0], size=50)
    grad = rng.normal(size=50)
    batch = Batch(y, np.zeros(50), np.ones(50), np.arange(50), _runs([0, 50], np.arange(50)), False)
    kept = np.array([7, 3])
    ws, gap = select_working_set(batch, alpha, grad, kept, 10)
    v = -y * grad
    in_up = np.where(y > 0, alpha < 1, alpha > 0)
    in_low = np.where(y > 0, alpha > 0, alpha < 1)
    assert gap == pytest.approx(v[in_up].max() - v[in_low].min())
    assert ws[:2].tolist() == [7, 3] and np.unique(ws).size == ws.size == 10
    up_candidates = [t for t in np.argsort(-v) if in_up[t] and t not in (7, 3)][:4]
    assert set(up_candidates) <= set(ws.tolist())
    low_candidates = [t for t in np.argsort(v) if in_low[t] and t not in up_candidates + [7, 3]][:4]
    assert sorted(ws[2:].tolist()) == sorted(up_candidates + low_candidates)
    # nu: a share from each side within each sign of y, and the gap the larger of the signs'
    nu_batch = batch._replace(nu=True)
    ws, gap = select_working_set(nu_batch, alpha, grad, np.empty(0, dtype=np.int64), 8)
    expected, gaps = [], []
    for sign in (1.0, -1.0):
        members = y == sign
        gaps.append(v[in_up & members].max() - v[in_low & members].min())
        up = [t for t in np.argsort(-v) if in_up[t] and members[t]][:2]
        expected += up + [t for t in np.argsort(v) if in_low[t] and members[t] and t not in up][:2]
    assert gap == pytest.approx(max(gaps))
    assert sorted(ws.tolist()) == sorted(expected)


def test_heap_selection_and_row_sums_equal_numpy():
    score = rng.normal(size=300)
    assert sorted(smallest(score, 17).tolist()) == sorted(np.argsort(score)[:17].tolist())
    buffer = rng.normal(size=(9, 5000)).astype(np.float32)
    slots, weights = np.array([4, 0, 8, 2, 1]), rng.normal(size=5)
    out = np.zeros(5000)
    column_sum(buffer, slots, weights, out)
    np.testing.assert_allclose(out, weights @ buffer[slots].astype(np.float64), rtol=1e-12, atol=1e-12)
    block = np.empty((3, 4))
    gather_block(buffer, np.array([2, 0, 5]), np.array([9, 1, 4999, 0]), block)
    np.testing.assert_array_equal(block, buffer[np.ix_([2, 0, 5], [9, 1, 4999, 0])])


@pytest.mark.parametrize("nu", [False, True])
def test_the_variables_shrinking_keeps_are_naive_s(nu):
    """Multipliers at both bounds and between, gradients spread over the sets' extremes."""
    y = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    upper = np.where(rng.random(200) < 0.1, 0.0, 2.0)
    alpha = np.minimum(upper, rng.choice([0.0, 0.7, 2.0], size=200))
    grad = rng.normal(size=200)
    keeps = np.empty(200, dtype=np.bool_)
    n_kept = compiled_kept_by_shrinking(y, upper, alpha, grad, 0, 200, nu, keeps)
    expected = kept_by_shrinking(y, upper, alpha, grad, nu)
    np.testing.assert_array_equal(keeps, expected)
    assert n_kept == expected.sum() and 0 < n_kept < 200


@pytest.mark.parametrize("kind", ["two classes", "one-vs-one", "one-vs-rest"])
def test_libsvm_layout_is_naive_s(kind):
    """Problems on rows of 2-5 classes with random coefficients, some 0 (a support vector of
    one pair and not of another; a class without any), laid out as the loops of
    tests/naive.py lay them out."""
    rng = np.random.default_rng({"two classes": 1, "one-vs-one": 2, "one-vs-rest": 3}[kind])
    for _ in range(40):
        n_classes = 2 if kind == "two classes" else int(rng.integers(3, 6))
        y_index = rng.integers(0, n_classes, size=int(rng.integers(n_classes, 40)))
        y_index[:n_classes] = np.arange(n_classes)
        rng.shuffle(y_index)
        if kind == "one-vs-rest":
            pairs = [(c, None) for c in range(n_classes)]
        else:
            pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
        rows = [np.flatnonzero((y_index == a) | (y_index == b)) if b is not None else np.arange(y_index.shape[0])
                for a, b in pairs]
        bounds = np.cumsum([0] + [r.shape[0] for r in rows]).astype(np.int64)
        rows = np.concatenate(rows).astype(np.int64)
        coef = np.where(rng.random(rows.shape[0]) < 0.4, rng.normal(size=rows.shape[0]), 0.0)
        first = np.array([a for a, _ in pairs], dtype=np.int64) if kind == "one-vs-one" else np.empty(0, np.int64)
        second = np.array([b for _, b in pairs], dtype=np.int64) if kind == "one-vs-one" else np.empty(0, np.int64)
        compiled = libsvm_layout(bounds, rows, coef, y_index, n_classes, first, second)
        expected = libsvm_layout_by_loops(bounds, rows, coef, y_index, n_classes, first, second)
        for got, want in zip(compiled, expected):
            assert got.shape == want.shape and np.array_equal(got, want)
