"""The compiled solver pieces against slow references: the row-order SMO against
LIBSVM's loop (:func:`svmkit._core.smo.smo`), compiled kernel rows and ``exp``
against NumPy."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibsvmSVC

import svmkit._solver
import svmkit.svm._formulations
from compiled_doctests import run_docstring_examples
from naive import dual_objective, gram_by_loops, intercept_by_masks, linear_pair, poly_pair, rbf_pair
from svmkit import SVC, SVR, NuSVC
from svmkit.kernels import LinearKernel, PolynomialKernel, RBFKernel, make_kernel
from svmkit._core.kernel_blocks import (
    KERNEL_LINEAR,
    KERNEL_NONE,
    KERNEL_POLYNOMIAL,
    KERNEL_RBF,
    exp_nonpositive,
    exp_nonpositive_single,
    kernel_matrix,
    kernel_row,
    rbf_from_products,
    kernel_rows_into_serial,
    sparse_kernel_rows_serial,
    sparse_row_products,
    sparse_sparse_products,
    squared_norms_in_feature_order,
    transpose_into,
)
from svmkit._core._jit import jit
from svmkit._core.small_decisions import linear_weights, small_decisions, support_sq_norms
from svmkit._core.blocked import (
    _smallest, block_moves, block_rows, finish_round, linear_blocked_rounds, new_state, select_violators, start_round, violator_masks,
)
from svmkit._core.full_gram import SMO_NEED_ROWS, full_gram_round, full_gram_smo, full_gram_solve, new_face_schedule
from svmkit._core.two_class import c_svc_fit, solve_c_svc_two_class, solve_c_svc_two_class_on_gram
from svmkit._solver import GramBlocks, full_gram_row_kernel, two_class_gram
from svmkit._core.row_cache import add_weighted_rows_serial
from svmkit._core.smo import (SMO_NEED_ROW, SMO_OPTIMAL, SMO_STEP_LIMIT, bias_from_gradient, c_svc_biases_and_margins,
                              kept_by_shrinking, smo)
from svmkit._core.checks import all_finite
from svmkit._core.labels import class_indices, class_order
from svmkit._core.multiclass import one_vs_one_rows
from svmkit._core.pairs import has_a_row_twice, most_variables
from svmkit._core.libsvm_layout import libsvm_layout
from svmkit._core.objectives import objectives_per_problem
from svmkit._core.smo_rows import SMO_USE_SHRINKING, compute_row, side_flags, smo_rows

# the solver computes no row itself
NO_ROWS = (np.empty((0, 0), dtype=np.float32), KERNEL_NONE, 0.0, 0.0, 1, np.empty(0, dtype=np.int64))
NO_PART = np.empty((0, 0))  # rows in one part (smo_rows' R)


@jit
def _exp_all(x, out, single):
    for k in range(x.shape[0]):
        out[k] = exp_nonpositive_single(x[k]) if single else exp_nonpositive(x[k])


@pytest.mark.parametrize("single, rtol", [(False, 5e-16), (True, 1e-8)])
def test_compiled_exp_matches_numpy(single, rtol):
    x = np.concatenate([-np.random.default_rng(0).random(20000) * 708, [0.0, -0.0, -1e-300, -1e-17, -708.0]])
    out = np.empty_like(x)
    _exp_all(x, out, single)
    np.testing.assert_allclose(out, np.exp(x), rtol=rtol, atol=0)
    below = np.array([-708.5, -745.2, -1e4])
    _exp_all(below, out[:3], single)
    np.testing.assert_array_equal(out[:3], 0.0)  # exp(-708.5) = 2.0e-308: taken as 0


@pytest.mark.parametrize(
    "code, pair",
    [
        (KERNEL_RBF, lambda u, v: rbf_pair(u, v, 0.3)),
        (KERNEL_LINEAR, linear_pair),
        (KERNEL_POLYNOMIAL, lambda u, v: poly_pair(u, v, 3, 0.3, 1.0)),
    ],
)
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-13), (np.float32, 1e-6)])
def test_compiled_kernel_row_equals_pairwise_loops(code, pair, dtype, rtol):
    X = np.random.default_rng(1).normal(size=(9, 3))
    expected = gram_by_loops(pair, X[4:5], X)[0]
    out = np.empty(9, dtype=dtype)
    XT = np.ascontiguousarray(X.T, dtype=dtype)
    kernel_row(XT, 4, code, 0.3, 1.0, 3, np.empty(9, dtype=dtype), out)
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("kernel, code", [(LinearKernel(), KERNEL_LINEAR),
                                          (PolynomialKernel(degree=3, gamma=0.3, coef0=1.0), KERNEL_POLYNOMIAL)])
def test_kernel_diagonal_is_that_of_the_compiled_rows(kernel, code):
    """The linear kernel's diagonal, which the solvers take as ``qd``, is bit for bit the
    ``K[r, r]`` of the rows that compiled code computes (sums in feature order); the polynomial
    kernel's within rounding (NumPy's power); both within rounding of the pairwise products."""
    X = np.random.default_rng(2).normal(size=(30, 37))
    XT = np.ascontiguousarray(X.T)
    rows = np.empty((30, 30))
    for r in range(30):
        kernel_row(XT, r, code, 0.3, 1.0, 3, np.empty(30), rows[r])
    if code == KERNEL_LINEAR:
        np.testing.assert_array_equal(kernel.diag(X), np.diagonal(rows))
    np.testing.assert_allclose(kernel.diag(X), np.diagonal(rows), rtol=1e-14)
    np.testing.assert_allclose(kernel.diag(X), np.diagonal(kernel(X, X)), rtol=1e-13)
    np.testing.assert_allclose(kernel.diag(X[:, ::2]), np.diagonal(kernel(X[:, ::2], X[:, ::2])), rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_transposed_rows_are_numpys_transpose_of_the_type_asked_for(dtype):
    """The data transposed for the compiled rows (eight rows at a time, then the rest) equal
    NumPy's transpose converted to their type, for C-ordered rows and a strided view."""
    X = np.random.default_rng(5).normal(size=(21, 7))
    for rows in (X, X[::2, 1:]):
        out = np.full(rows.shape[::-1], np.nan, dtype=dtype)
        transpose_into(rows, out)
        np.testing.assert_array_equal(out, rows.T.astype(dtype))


@pytest.mark.parametrize(
    "kernel, pair",
    [
        (RBFKernel(gamma=0.3), lambda u, v: rbf_pair(u, v, 0.3)),
        (LinearKernel(), linear_pair),
        (PolynomialKernel(degree=3, gamma=0.3, coef0=1.0), lambda u, v: poly_pair(u, v, 3, 0.3, 1.0)),
    ],
)
@pytest.mark.parametrize("n_features", [3, 40])
def test_gram_matrix_of_all_rows_is_the_kernel_and_small_thin_rbf_matrices_have_the_solvers_own_rows(
        monkeypatch, kernel, pair, n_features):
    """GramBlocks.square: the kernel of every pair of rows; a small RBF matrix of thin data
    (compiled rows) has the values of kernel_row, the rows that the full-Gram solver computes
    itself, bit for bit; other matrices (and one above _COMPILED_GRAM_WORK) are one block."""
    from svmkit._solver import GramBlocks

    X = np.random.default_rng(2).normal(size=(11, n_features))
    gram = GramBlocks(kernel, X)
    K = gram.square()
    assert K.dtype == np.float64 and K.shape == (11, 11)
    np.testing.assert_allclose(K, gram_by_loops(pair, X, X), rtol=1e-12, atol=1e-12)
    rows = np.empty_like(K)
    for r in range(11):
        kernel_row(np.ascontiguousarray(X.T), r, KERNEL_RBF, 0.3, 0.0, 1, np.empty(11), rows[r])
    if isinstance(kernel, RBFKernel) and n_features <= svmkit._solver._COMPILED_ROW_FEATURES:
        np.testing.assert_array_equal(K, rows)
        assert not np.array_equal(rows, gram.block(slice(None)))  # (BLAS products: other last bits)
        monkeypatch.setattr(svmkit._solver, "_COMPILED_GRAM_WORK", 11 * 11 * n_features - 1)
    np.testing.assert_array_equal(gram.square(), gram.block(slice(None)))


def _problem(seed, n, copies):
    """A random C-SVC-like dual (``copies = 2``: two variables per row, as epsilon-SVR)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    # rounded to multiples of 2^-40: NumPy's exp differs in its last bits between processors
    # (its SIMD paths), which would change which of two nearly tied pairs SMO takes
    K = np.ldexp(np.round(np.ldexp(K, 40)), -40)
    y = np.where(rng.random(n * copies) < 0.5, 1.0, -1.0)
    p = -np.ones(n * copies) if copies == 1 else rng.uniform(-1.0, 0.0, size=n * copies)
    return K, y, p


def _run_both(K, y, p, upper, nu_mode, alpha0, max_steps=10**6):
    n = K.shape[0]
    m = y.shape[0]
    rows = np.tile(np.arange(n), m // n)
    qd = np.diagonal(K)[rows].copy()
    Q = y[:, None] * y[None, :] * K[np.ix_(rows, rows)]
    # the rows stored in a shuffled order, as when computed on demand: row r is stored[slot[r]]
    order = np.random.default_rng(0).permutation(n)
    stored = K[order]
    slot = np.empty(n, dtype=np.int64)
    slot[order] = np.arange(n)
    results = []
    for solver in ("libsvm-loop", "row-order"):
        alpha = alpha0.copy()
        grad = Q @ alpha + p
        if solver == "libsvm-loop":
            active = np.arange(m, dtype=np.int64)
            state = np.array([m, min(m, 1000), 0], dtype=np.int64)
            synced = alpha.copy()
            out = smo(stored, slot, rows, y, upper, synced, qd, alpha, grad, active, state, 1e-6, max_steps, nu_mode,
                      False)
        else:
            flags = side_flags(y, alpha, upper)
            filled = np.array([n])
            out = smo_rows(
                stored, slot, NO_PART, slot, filled, y, upper, qd, alpha, grad, flags, 1e-6, max_steps, nu_mode, 0, 0, 0,
                *NO_ROWS
            )
        results.append((out, alpha, grad))
    return results


@pytest.mark.parametrize(
    "copies, nu_mode, steps_row_order, steps_libsvm_loop",
    [(1, False, 49, 49), (1, True, 1974, 1992), (2, False, 139, 136), (2, True, 184, 184)],
)
def test_row_order_smo_takes_the_same_steps_as_libsvm_loop(copies, nu_mode, steps_row_order, steps_libsvm_loop):
    """The same pairs, except where two values differ in their last bits only (after an
    update that leaves both multipliers free, the pair's ``-y G`` are equal up to rounding):
    LIBSVM's loop takes the larger, the row-order solver the last index. On these problems
    that happens in two of the four cases; the optimum is the same."""
    K, y, p = _problem(3, 40, copies)
    upper = np.full(y.shape[0], 0.8)
    alpha0 = np.zeros(y.shape[0])
    if nu_mode:  # a feasible start with alpha in the interior on both signs
        alpha0[np.flatnonzero(y > 0)[:3]] = 0.5
        alpha0[np.flatnonzero(y < 0)[:3]] = 0.5
    (old, alpha_old, grad_old), (new, alpha_new, grad_new) = _run_both(K, y, p, upper, nu_mode, alpha0)
    assert new[1] == old[1] == SMO_OPTIMAL
    assert (new[0], old[0]) == (steps_row_order, steps_libsvm_loop)
    if steps_row_order != steps_libsvm_loop:
        np.testing.assert_allclose(alpha_new, alpha_old, rtol=0, atol=1e-5)
        objective = lambda a, g: 0.5 * a @ (g - p) + p @ a  # noqa: E731
        assert objective(alpha_new, grad_new) == pytest.approx(objective(alpha_old, grad_old), rel=1e-11)
        return
    assert new[2] == pytest.approx(old[2], abs=1e-15)  # gap
    np.testing.assert_array_equal(alpha_new, alpha_old)
    np.testing.assert_array_equal(grad_new, grad_old)


def test_row_order_smo_takes_the_last_of_values_equal_but_for_their_last_bits():
    """-y G of 1 + 2^-52 at index 0 and 1 at index 1: in the first step LIBSVM's loop
    takes index 0 as i, the row-order solver index 1 (the last of a tie in all but the
    packed bits)."""
    y = np.array([1.0, 1.0, -1.0, -1.0])
    p = np.array([-(1.0 + 2.0**-52), -1.0, -1.0, -1.0])
    (old, alpha_old, _), (new, alpha_new, _) = _run_both(np.eye(4), y, p, np.ones(4), False, np.zeros(4), 1)
    assert alpha_old[0] > 0 and alpha_old[1] == 0
    assert alpha_new[1] > 0 and alpha_new[0] == 0


def _xor_problem(n, gamma, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1))


@pytest.mark.parametrize("max_steps, status", [(1500, SMO_STEP_LIMIT), (10**6, SMO_OPTIMAL)])
@pytest.mark.parametrize("nu_mode", [False, True])
def test_shrinking_smo_returns_the_exact_gradient(max_steps, status, nu_mode):
    """The gradients of shrunk variables are brought up to date from the rows that
    moved (at each shrink, when variables come back, and at the end)."""
    X, y, K = _xor_problem(800, 2.0)
    upper = np.full(800, 100.0)
    alpha = np.zeros(800)
    if nu_mode:  # a feasible start with alpha in the interior on both signs
        alpha[np.flatnonzero(y > 0)[:20]] = 50.0
        alpha[np.flatnonzero(y < 0)[:20]] = 50.0
    p = np.zeros(800) if nu_mode else -np.ones(800)
    Q = y[:, None] * y[None, :] * K
    grad = Q @ alpha + p
    active, state = np.arange(800), np.array([800, 800, 0])
    rows = slot = np.arange(800)
    out = smo(K, slot, rows, y, upper, alpha.copy(), np.ones(800), alpha, grad, active, state, 1e-3, max_steps,
              nu_mode, True)
    assert out[1] == status and (out[0] == max_steps or status == SMO_OPTIMAL)
    assert state[0] == 800  # every variable active again
    np.testing.assert_allclose(grad, Q @ alpha + p, rtol=0, atol=1e-9 * np.abs(grad).max())


def test_row_order_smo_hands_over_to_shrinking_when_few_stay_active():
    """Large C on noisy data: after some thousand steps most multipliers sit at a
    bound where shrinking would set them aside."""
    X, y, K = _xor_problem(1200, 2.0)
    alpha, grad, upper = np.zeros(1200), -np.ones(1200), np.full(1200, 1000.0)
    flags = side_flags(y, alpha, upper)
    slot, filled = np.arange(1200), np.array([1200])
    qd = np.ones(1200)
    steps, status, _, _ = smo_rows(
        K, slot, NO_PART, slot, filled, y, upper, qd, alpha, grad, flags, 1e-3, 10**6, False, 20, 0, 0, *NO_ROWS
    )
    assert status == SMO_USE_SHRINKING
    assert steps > 0 and steps % 100 == 0


def _slow_linear_problem():
    """400 x 100, linear kernel, C = 1: SMO zig-zags on some hundred free multipliers
    (LIBSVM: 24,691 steps)."""
    X, labels = make_classification(400, 100, n_informative=20, random_state=3)
    return X, labels, np.where(labels == 1, 1.0, -1.0)


def test_row_order_smo_hands_over_a_slow_solve_from_half_of_the_variables():
    """After 5 steps a variable, the hand-over comes once shrinking would keep fewer than
    half of the variables (and at most ``slow_max_kept``), not a fifth; the steps of the
    solve before the call count towards the 5 (a solve goes on after a sub-problem)."""
    X, _, y = _slow_linear_problem()
    K = X @ X.T

    def run(slow_max_kept, steps_before=0, alpha=None):
        alpha = np.zeros(400) if alpha is None else alpha.copy()
        upper = np.ones(400)
        grad = y * (K @ (y * alpha)) - 1.0
        flags = side_flags(y, alpha, upper)
        steps, status, _, _ = smo_rows(
            K, np.arange(400), NO_PART, np.arange(400), np.array([400]), y, upper, np.diag(K).copy(), alpha, grad,
            flags, 1e-3, 10**6, False, 5, slow_max_kept, steps_before, *NO_ROWS
        )
        return steps, status, int(kept_by_shrinking(y, upper, alpha, grad, False).sum()), alpha

    steps, status, kept, alpha = run(256)
    assert (steps, status) == (2000, SMO_USE_SHRINKING)
    assert 400 / 5 <= kept < 400 / 2
    steps, status, _, _ = run(0)  # none handed over early: SMO zig-zags on to the optimum
    assert status == SMO_OPTIMAL and steps > 20_000
    # from the point of the hand-over: at the first count when the 2,000 steps before count, else
    # only after 2,000 more
    assert run(256, steps_before=2000, alpha=alpha)[:2] == (100, SMO_USE_SHRINKING)
    assert run(256, steps_before=0, alpha=alpha)[:2] == (2000, SMO_USE_SHRINKING)


def test_slow_linear_problem_reaches_libsvms_optimum_in_fewer_steps():
    """The early hand-over and the sub-problem's face steps: 4,800 steps instead of
    23,500 without them (LIBSVM: 24,691), at LIBSVM's dual objective."""
    X, labels, _ = _slow_linear_problem()
    model = SVC(kernel="linear", C=1.0).fit(X, labels)
    reference = LibsvmSVC(kernel="linear", C=1.0).fit(X, labels)
    sv = reference.support_vectors_
    libsvm_dual = dual_objective(reference.dual_coef_[0], sv @ sv.T)
    assert model.dual_objective_ == pytest.approx(libsvm_dual, rel=1e-6)
    assert model.n_iter_[0] < reference.n_iter_[0] / 4


@pytest.mark.parametrize("missing_rows", [False, True])
def test_full_gram_loop_with_shrunk_sub_problems_reaches_the_unshrunk_optimum(missing_rows):
    """Large C on noisy data: the loop hands over to shrunk sub-problems (and, with rows
    missing, asks for the kept rows first); it must end at the solution of SMO without
    hand-over, with every gradient exact."""
    X, y, K = _xor_problem(1200, 2.0)
    Q = y[:, None] * y[None, :] * K

    def run(hand_over, slot):
        alpha, grad, upper = np.zeros(1200), -np.ones(1200), np.full(1200, 1000.0)
        state, wanted = np.zeros(2, dtype=np.int64), np.empty(1200, dtype=np.int64)
        filled = np.array([int((slot >= 0).sum())])
        asked = 0
        while True:
            steps, status, gap, count = full_gram_smo(
                K, slot, NO_PART, slot, filled, y, upper, np.ones(1200), alpha, grad, state, 1e-4, 10**7, 10**7, False,
                hand_over, 256, 30, 2.2e-16, *NO_ROWS, wanted,
            )
            if status not in (SMO_NEED_ROW, SMO_NEED_ROWS):
                return alpha, grad, gap, state, asked
            asked += count
            slot[wanted[:count]] = wanted[:count]  # (K holds every row at its own index)

    alpha, grad, gap, state, asked = run(5, np.where(np.arange(1200) % 2 == 0, np.arange(1200), -1)
                                         if missing_rows else np.arange(1200))
    reference, _, _, plain_state, _ = run(0, np.arange(1200))
    assert state[0] == 1 and plain_state[0] == 0  # the shrunk sub-problems came within 10 tol
    assert (asked > 0) == missing_rows
    assert gap < 1e-4
    np.testing.assert_allclose(grad, Q @ alpha - 1.0, rtol=0, atol=1e-8 * np.abs(grad).max())
    objective = lambda a: 0.5 * a @ Q @ a - a.sum()  # noqa: E731
    assert objective(alpha) == pytest.approx(objective(reference), rel=1e-6)


def _in_two_parts(K, split, seed=0):
    """The rows of ``K`` stored as two parts in shuffled places of two larger arrays, the
    rest NaN (as a one-vs-one problem's rows are read from the shared blocks)."""
    rng = np.random.default_rng(seed)
    n = K.shape[0]
    slot, slot_r = rng.permutation(n + 300)[:n], rng.permutation(n + 200)[:n]
    left, right = np.full((n + 300, split), np.nan), np.full((n + 200, n - split), np.nan)
    left[slot], right[slot_r] = K[:, :split], K[:, split:]
    return left, slot, right, slot_r


@pytest.mark.parametrize("split", [700, 256])
def test_full_gram_loop_on_rows_in_two_parts_takes_the_steps_of_whole_rows(split):
    """Rows read in two parts where they are stored (SMO's passes, the shrunk sub-problems'
    gathered blocks and their write-back) give the solve on whole rows, to the bit."""
    X, y, K = _xor_problem(1200, 2.0)

    def run(K, slot, R, slot_r):
        alpha, grad, upper = np.zeros(1200), -np.ones(1200), np.full(1200, 1000.0)
        state, wanted = np.zeros(2, dtype=np.int64), np.empty(1200, dtype=np.int64)
        steps, status, gap, _ = full_gram_smo(
            K, slot, R, slot_r, np.array([1200]), y, upper, np.ones(1200), alpha, grad, state, 1e-4, 10**7, 10**7,
            False, 5, 256, 30, 2.2e-16, *NO_ROWS, wanted,
        )
        return steps, status, gap, state, alpha, grad

    whole = run(K, np.arange(1200), NO_PART, np.arange(1200))
    parts = run(*_in_two_parts(K, split))
    assert whole[1] == parts[1] == SMO_OPTIMAL and whole[3][0] == 1  # shrunk sub-problems were solved
    assert whole[:3] == parts[:3]
    np.testing.assert_array_equal(parts[4], whole[4])
    np.testing.assert_array_equal(parts[5], whole[5])


@pytest.mark.parametrize("estimator", ["svc", "nu_svc", "svr"])
def test_shrunk_sub_problems_reach_the_optimum_of_the_unshrunk_solver(estimator):
    """After the hand-over, the variables that shrinking keeps are solved as sub-problems of
    their own; the fit must end at the optimum of the solver without shrinking."""
    from svmkit import SVR, NuSVC

    X, y, _ = _xor_problem(800, 2.0)
    make = {
        "svc": lambda shrinking: SVC(C=100.0, gamma=2.0, tol=1e-5, shrinking=shrinking),
        "nu_svc": lambda shrinking: NuSVC(nu=0.3, gamma=2.0, tol=1e-5, shrinking=shrinking),
        "svr": lambda shrinking: SVR(C=3.0, gamma=2.0, epsilon=0.05, tol=1e-5, shrinking=shrinking),
    }[estimator]
    target = y if estimator != "svr" else X[:, 0] * X[:, 1] + 0.1 * np.random.default_rng(0).normal(size=800)
    with_handover = make(True).fit(X, target)
    without = make(False).fit(X, target)
    if estimator == "svr":  # (SVR reports no dual objective: the fitted functions are compared)
        np.testing.assert_allclose(with_handover.predict(X), without.predict(X), atol=1e-4)
    else:
        assert np.ravel(with_handover.dual_objective_) == pytest.approx(np.ravel(without.dual_objective_), rel=1e-6)


def test_order_keys_break_ties_to_the_last_index_and_equate_signed_zeros():
    """All gradients equal (the usual start): LIBSVM's ``>=`` picks the last index."""
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    K = np.eye(5)
    p = np.array([-0.0, 0.0, 0.0, -0.0, -0.0])
    (old, alpha_old, _), (new, alpha_new, _) = _run_both(K, y, p, np.ones(5), False, np.zeros(5))
    assert new[:2] == old[:2]
    np.testing.assert_array_equal(alpha_new, alpha_old)
    K2, y2, p2 = np.eye(6), np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0]), -np.ones(6)
    (old, alpha_old, _), (new, alpha_new, _) = _run_both(K2, y2, p2, np.ones(6), False, np.zeros(6))
    np.testing.assert_array_equal(alpha_new, alpha_old)
    assert alpha_new[2] > 0 and alpha_new[5] > 0  # the last of each sign moved first


def test_compiled_rows_and_python_blocks_reach_the_same_solution(monkeypatch):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(900, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=900) > 0).astype(int)
    compiled = SVC(C=2.0, gamma=0.7, tol=1e-6).fit(X, y)
    monkeypatch.setattr(svmkit._solver, "_COMPILED_ROW_FEATURES", 0)
    blocks = SVC(C=2.0, gamma=0.7, tol=1e-6).fit(X, y)
    assert compiled.dual_objective_ == pytest.approx(blocks.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(compiled.decision_function(X), blocks.decision_function(X), atol=1e-4)



@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_small_problems_compute_all_kernel_rows_first_and_reach_the_same_solution(monkeypatch, kernel):
    """Up to _ALL_ROWS_WORK multiply-adds (rows^2 x features, rows the solver does not compute
    itself) every kernel row is computed in one block before SMO; the solution is the one
    of the rows computed as SMO asks for them."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 40))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=300) > 0).astype(int)
    blocks = []
    original = svmkit._solver.GramBlocks.block

    def spy(self, rows, cols=None, out=None):
        blocks.append(len(rows))
        return original(self, rows, cols, out)

    monkeypatch.setattr(svmkit._solver.GramBlocks, "block", spy)
    all_first = SVC(kernel=kernel, C=1.0, tol=1e-6).fit(X, y)
    assert blocks == [300]
    monkeypatch.setattr(svmkit._solver, "_ALL_ROWS_WORK", 0)
    blocks.clear()
    as_needed = SVC(kernel=kernel, C=1.0, tol=1e-6).fit(X, y)
    assert len(blocks) > 1 and max(blocks) <= svmkit._solver._PREFETCH_ROWS
    assert all_first.dual_objective_ == pytest.approx(as_needed.dual_objective_, rel=1e-9)
    np.testing.assert_allclose(all_first.decision_function(X), as_needed.decision_function(X), atol=1e-5)


def test_face_steps_on_all_free_multipliers_of_long_solves_reach_the_same_optimum(monkeypatch):
    """A long full-Gram solve with more free multipliers than the sub-problems' face steps take
    tries Newton steps on the face of all of them at its returns (here every 50 steps, from
    more than 4 free multipliers): they move it, the gradient stays exact, the optimum is the
    one reached without them, and a second fit is the same."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(240, 40))
    y = (X[:, :5].sum(axis=1) + 2.0 * rng.normal(size=240) > 0).astype(int)
    plain = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    tries = []
    original = svmkit._solver.full_gram_round

    def spy(*args):
        steps, status, gap, count, taken = original(*args)
        tries.append(taken)
        return steps, status, gap, count, taken

    monkeypatch.setattr(svmkit._solver, "full_gram_round", spy)
    monkeypatch.setattr(svmkit._solver, "_FACE_MAX_FREE", 4)
    monkeypatch.setattr(svmkit._solver, "_FACE_PERIOD_PER_VARIABLE", 0)
    monkeypatch.setattr(svmkit._solver, "_STEPS_PER_CALL", 50)
    # (solve_dual's rounds, which the spy sees, not the one compiled call of the same rounds)
    monkeypatch.setattr(SVC, "_two_class_in_one_call", lambda self, gram, y_index, upper, problems: None)
    with_faces = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    assert sum(tries) > 0
    again = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)  # the tries are counted, not timed
    np.testing.assert_array_equal(again.dual_coef_, with_faces.dual_coef_)
    assert again.n_iter_ == with_faces.n_iter_
    assert with_faces.fit_status_ == 0
    assert with_faces.dual_objective_ == pytest.approx(plain.dual_objective_, rel=1e-7)
    np.testing.assert_allclose(with_faces.decision_function(X), plain.decision_function(X), atol=1e-3)
    model = with_faces.binary_models_[0]  # the gradient stayed exact: y f(x) from the multipliers
    K = X @ X.T
    f = K[:, model.indices] @ (model.alpha * model.y) + model.intercept
    np.testing.assert_allclose(model.yf, model.y * f[model.indices], atol=1e-6)


@pytest.mark.parametrize("estimator", [NuSVC(kernel="linear", nu=0.5, tol=1e-6), SVR(kernel="linear", tol=1e-6)],
                         ids=["nu_svc", "svr_two_variables_a_row"])
def test_face_steps_on_all_free_multipliers_in_nu_mode_and_svr(monkeypatch, estimator):
    """The same tries in nu mode (one sum per sign) and with two variables per kernel row
    (epsilon-SVR) reach the optimum of the solve without them."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(240, 40))
    target = X[:, :5].sum(axis=1) + 2.0 * rng.normal(size=240)
    y = target if isinstance(estimator, SVR) else (target > 0).astype(int)
    plain = clone(estimator).fit(X, y)
    tries = []
    original = svmkit._solver.full_gram_round
    monkeypatch.setattr(svmkit._solver, "full_gram_round", lambda *args: tries.append(original(*args)) or tries[-1])
    monkeypatch.setattr(svmkit._solver, "_FACE_MAX_FREE", 4)
    monkeypatch.setattr(svmkit._solver, "_FACE_PERIOD_PER_VARIABLE", 0)
    monkeypatch.setattr(svmkit._solver, "_STEPS_PER_CALL", 50)
    with_faces = clone(estimator).fit(X, y)
    assert sum(taken for *_, taken in tries) > 0
    assert with_faces.dual_objective_ == pytest.approx(plain.dual_objective_, rel=1e-7)
    np.testing.assert_allclose(with_faces.predict(X), plain.predict(X), atol=1e-4)


TWO_CLASS_KERNELS = [("linear", {}), ("rbf", {"gamma": 0.3}), ("poly", {"degree": 3, "gamma": 0.2, "coef0": 1.0})]


@pytest.mark.parametrize("kernel, params", TWO_CLASS_KERNELS + [("sigmoid", {"gamma": 0.01, "coef0": 0.5})],
                         ids=[name for name, _ in TWO_CLASS_KERNELS] + ["sigmoid"])
@pytest.mark.parametrize("options", [{}, {"shrinking": False}, {"max_iter": 40}, {"class_weight": {0: 3.0}}],
                         ids=["default", "no_shrinking", "step_limit", "class_weight"])
@pytest.mark.parametrize("n_features", [6, 40], ids=["thin", "wide"])
def test_two_class_fit_in_one_call_is_that_of_the_separate_steps(monkeypatch, kernel, params, options, n_features):
    """A small two-class fit built, solved, read and laid out in one compiled call
    (solve_c_svc_two_class) is, bit for bit, the fit of the separate steps (c_svc_dual,
    solve_dual's full-Gram solver, c_svc_solution, the layout), with sample and class
    weights, without shrinking, and where it stops at max_iter (the same warning, pointing
    at the caller of fit): on rows that the solver computes itself (thin data, but the
    sigmoid kernel) and on the Gram matrix of all rows computed by BLAS before it starts
    (40 features, and the sigmoid kernel)."""
    X, y = make_classification(n_samples=150, n_features=n_features, n_informative=4, flip_y=0.1, random_state=3)
    computes_rows = n_features <= svmkit._solver._COMPILED_ROW_FEATURES and kernel != "sigmoid"
    gram = GramBlocks(make_kernel(kernel, **params), X)
    assert (full_gram_row_kernel(gram, 200, -1) is not None) == computes_rows
    assert (two_class_gram(gram, 200, -1) is None) == computes_rows
    weights = np.random.default_rng(1).choice([0.5, 1.0, 2.0], size=150)
    calls = []
    name = "solve_c_svc_two_class" if computes_rows else "solve_c_svc_two_class_on_gram"
    original = getattr(svmkit.svm._formulations, name)
    monkeypatch.setattr(svmkit.svm._formulations, name, lambda *args: calls.append(len(args)) or original(*args))

    def fit():
        estimator = SVC(kernel=kernel, C=2.0, **params, **options)
        if "max_iter" not in options:
            return estimator.fit(X, y, sample_weight=weights)
        with pytest.warns(ConvergenceWarning, match="max_iter=40") as caught:
            estimator.fit(X, y, sample_weight=weights)
        assert caught[0].filename == __file__
        return estimator

    one_call = fit()
    assert len(calls) == 1
    monkeypatch.setattr(SVC, "_two_class_in_one_call", lambda self, gram, y_index, upper, problems: None)
    steps = fit()
    assert len(calls) == 1
    _assert_same_two_class_fit(one_call, steps, X)
    assert one_call.fit_status_ == (1 if "max_iter" in options else 0)


@pytest.mark.parametrize("kernel, params", TWO_CLASS_KERNELS, ids=[name for name, _ in TWO_CLASS_KERNELS])
def test_two_class_fit_of_few_rows_in_one_call_is_that_of_the_separate_steps(monkeypatch, kernel, params):
    """A fit of no more rows than the solver asks for at once (24 <= 32) takes the one
    compiled call too: solve_dual's full-Gram solver computes such rows itself as well (no
    BLAS block of all rows first), so the two fits are the same bit for bit."""
    X, y = make_classification(n_samples=24, n_features=3, n_informative=2, n_redundant=0, flip_y=0.1,
                               random_state=4)
    assert X.shape[0] <= svmkit._solver._prefetch_rows(X.shape[1])
    calls = []
    original = svmkit.svm._formulations.solve_c_svc_two_class
    monkeypatch.setattr(svmkit.svm._formulations, "solve_c_svc_two_class",
                        lambda *args: calls.append(1) or original(*args))
    one_call = SVC(kernel=kernel, **params).fit(X, y)
    assert calls == [1]
    monkeypatch.setattr(SVC, "_two_class_in_one_call", lambda self, gram, y_index, upper, problems: None)
    _assert_same_two_class_fit(one_call, SVC(kernel=kernel, **params).fit(X, y), X)


@pytest.mark.parametrize("options", [{}, {"max_iter": 40}], ids=["default", "step_limit"])
def test_two_class_fit_on_a_precomputed_matrix_in_one_call_is_that_of_the_separate_steps(monkeypatch, options):
    """A two-class fit on a small precomputed Gram matrix takes the one compiled call, which
    reads the user's matrix in place (not copying its rows as the separate steps do, nor
    writing to it): the same fit bit for bit."""
    X, y = make_classification(n_samples=120, n_features=5, flip_y=0.1, random_state=2)
    K = np.exp(-0.2 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    K_before = K.copy()
    calls = []
    original = svmkit.svm._formulations.solve_c_svc_two_class_on_gram
    monkeypatch.setattr(svmkit.svm._formulations, "solve_c_svc_two_class_on_gram",
                        lambda *args: calls.append(args[0] is K) or original(*args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        one_call = SVC(kernel="precomputed", **options).fit(K, y)
        assert calls == [True]
        np.testing.assert_array_equal(K, K_before)
        monkeypatch.setattr(SVC, "_two_class_in_one_call", lambda self, gram, y_index, upper, problems: None)
        steps = SVC(kernel="precomputed", **options).fit(K, y)
    assert calls == [True]
    _assert_same_two_class_fit(one_call, steps, K)


def _assert_same_two_class_fit(one_call, steps, X):
    """The fitted attributes, model and decision values of two two-class fits are equal bit for bit."""
    for name in ("support_", "n_support_", "dual_coef_", "intercept_", "n_iter_", "alpha_", "slack_"):
        np.testing.assert_array_equal(getattr(one_call, name), getattr(steps, name))
    for name in ("fit_status_", "margin_", "dual_objective_", "primal_objective_", "duality_gap_"):
        assert getattr(one_call, name) == getattr(steps, name)
    model, step_model = one_call.binary_models_[0], steps.binary_models_[0]
    for name in ("indices", "y", "alpha", "upper", "yf"):
        np.testing.assert_array_equal(getattr(model, name), getattr(step_model, name))
    assert (model.intercept, model.n_iter, model.gap, model.status) == (
        step_model.intercept, step_model.n_iter, step_model.gap, step_model.status)
    np.testing.assert_array_equal(one_call.decision_function(X), steps.decision_function(X))


@pytest.mark.parametrize("n_samples, n_features, settings", [
    (800, 4, {}),  # a float32 Gram matrix
    (600, 400, {"kernel": "rbf"}),  # too wide for the solver's own rows, too large for all rows first
    (150, 4, {"C": np.inf}),  # a hard margin: the separability is checked first
    (150, 4, {"solver": "qp"}),
    (150, 4, {"callback": lambda progress: None}),  # progress reported while it runs
    (800, 4, {"kernel": "precomputed"}),  # the user's matrix, but rows of it copied into float32 ones
], ids=["float32", "many_rows_first", "hard_margin", "qp", "callback", "precomputed_float32"])
def test_two_class_fits_that_take_the_separate_steps(monkeypatch, n_samples, n_features, settings):
    """Fits that the one compiled call would not solve as solve_dual does (or where it does
    not apply) take the separate steps."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_samples, n_features))
    y = (X[:, 0] > 0).astype(int)  # (separable)
    calls = []
    for name in ("solve_c_svc_two_class", "solve_c_svc_two_class_on_gram"):
        monkeypatch.setattr(svmkit.svm._formulations, name, lambda *args: calls.append(1))
    SVC(**{"kernel": "linear", **settings}).fit(X @ X.T if settings.get("kernel") == "precomputed" else X, y)
    NuSVC(kernel="linear", nu=0.3).fit(X, y)
    assert calls == []


@pytest.mark.parametrize("function", [compute_row, full_gram_smo, full_gram_round, full_gram_solve, new_face_schedule, solve_c_svc_two_class, solve_c_svc_two_class_on_gram, c_svc_fit, add_weighted_rows_serial, bias_from_gradient, c_svc_biases_and_margins,
                                      small_decisions, support_sq_norms, linear_weights, one_vs_one_rows, class_order, has_a_row_twice, most_variables,
                                      kernel_matrix, squared_norms_in_feature_order, transpose_into, rbf_from_products, sparse_row_products, sparse_sparse_products, sparse_kernel_rows_serial, kernel_rows_into_serial, objectives_per_problem, class_indices,
                                      libsvm_layout, all_finite, violator_masks, select_violators, _smallest, new_state,
                                      linear_blocked_rounds, start_round, finish_round, block_moves, block_rows])
def test_docstring_examples_of_compiled_functions(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0


@pytest.mark.parametrize("shrinking", [True, False])
def test_variables_out_of_row_order_take_libsvms_loop_to_the_same_optimum(shrinking):
    """An epsilon-SVR dual with its variables interleaved (a_0, a*_0, a_1, a*_1, ...) is not in
    row order: the full-Gram solver runs LIBSVM's loop on it and must reach the optimum of
    the usual order, variable for variable."""
    from svmkit._solver import GramBlocks, solve_dual
    from svmkit.kernels import RBFKernel
    from svmkit.svm._formulations import epsilon_svr_dual

    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    z = np.sin(X[:, 0]) + 0.1 * rng.normal(size=150)
    gram = GramBlocks(RBFKernel(gamma=0.5), X)
    usual = epsilon_svr_dual(np.arange(150), z, np.full(150, 2.0), 0.1)
    order = np.arange(300).reshape(2, 150).T.ravel()  # 0, 150, 1, 151, ...
    interleaved = type(usual)(usual.rows[order], usual.y[order], usual.p[order], usual.upper[order],
                              usual.alpha0[order])
    expected = solve_dual(gram, usual, tol=1e-8, shrinking=shrinking)
    solution = solve_dual(gram, interleaved, tol=1e-8, shrinking=shrinking)
    assert expected.strategy == solution.strategy == "full-gram"
    np.testing.assert_allclose(solution.alpha, expected.alpha[order], atol=1e-6)
    np.testing.assert_allclose(solution.grad, expected.grad[order], atol=1e-6)


def test_bias_from_the_gradient_equals_the_mask_reference():
    """Free multipliers, none free (at zero, at C, at infinite C), zero bounds (both sides)."""
    rng = np.random.default_rng(8)
    n_without_free = 0
    for case in range(3000):
        m = int(rng.integers(1, 25))
        y = rng.choice([-1.0, 1.0], m)
        upper = rng.choice([0.0, 1.0, 2.0, np.inf], m)
        alpha = np.where(rng.random(m) < 0.5, 0.0, np.minimum(upper, rng.choice([0.5, 1.0, 2.0], m)))
        if case % 2:  # every multiplier at a bound
            alpha = np.where((alpha > 0) & np.isfinite(upper), upper, 0.0)
            n_without_free += 1
        grad = rng.normal(size=m)
        expected = intercept_by_masks(y, alpha, grad, upper)
        assert bias_from_gradient(y, alpha, grad, upper) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert n_without_free == 1500


@pytest.mark.parametrize("labels", [
    np.array([3, 1, 3, 7, 1, 1]), np.array([1.0, -1.0, -0.0, 0.0, 2.5, -1.0]), np.arange(10, 0, -1),
    np.array([-3.0, 2.0, -3.0, 40.0]), np.array([10**12, -5, 10**12]), np.array([1e300, -1e300, 0.0]),
    np.random.default_rng(0).integers(-50, 3000, size=2000), np.array([2**62, -(2**62), 0]),
])
def test_class_indices_are_numpys_unique_with_inverse(labels):
    classes, index = class_indices(labels)
    expected_classes, expected_index = np.unique(labels, return_inverse=True)
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(index, expected_index)
    np.testing.assert_array_equal(classes[index], labels)
