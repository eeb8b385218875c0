"""The blocked rounds (:mod:`svmkit._core.blocked`), those of the linear kernel compiled whole,
against the full-Gram solver, LIBSVM and NumPy references of the working-set selection."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.svm import SVC as LibsvmSVC

import svmkit._parallel
import svmkit._solver
from svmkit import SVC
from svmkit._core.blocked import _smallest, select_violators, violator_masks
from svmkit._solver import GramBlocks, solve_dual
from svmkit.kernels import LinearKernel
from svmkit.svm._formulations import c_svc_dual, epsilon_svr_dual, nu_svc_dual, nu_svr_dual, one_class_dual
from test_svc_libsvm import libsvm_pair_objectives


def _problem(formulation, X, labels):
    """The dual of ``formulation`` on ``X`` (for C-SVC and nu-SVC the classes of ``labels``;
    for the SVRs a linear target of ``X`` plus ``labels``)."""
    n = X.shape[0]
    signs = np.where(labels == 1, 1.0, -1.0)
    target = X @ np.linspace(-1, 1, X.shape[1]) + labels
    # (nu-SVC with nu = 0.5 and one-class on data away from the origin: with nu = 0.3, or the
    # origin inside the data, the optimum is 0 and both solvers crawl towards it at tol 1e-6)
    return {
        "c_svc": lambda: c_svc_dual(np.arange(n), signs, np.full(n, 1.0)),
        "nu_svc": lambda: nu_svc_dual(np.arange(n), signs, np.ones(n), 0.5),
        "epsilon_svr": lambda: epsilon_svr_dual(np.arange(n), target, np.full(n, 1.0), 0.1),
        "nu_svr": lambda: nu_svr_dual(np.arange(n), target, np.full(n, 1.0), 0.4),
        "one_class": lambda: one_class_dual(np.arange(n), np.ones(n), 0.2),
    }[formulation]()


def _full_gram_reference(monkeypatch, X, problem, tol):
    """The full-Gram solver's solution, with no blocked rounds first."""
    with monkeypatch.context() as patch:
        patch.setattr(svmkit._solver, "_LINEAR_BLOCKED_MIN_ROWS", 10**9)
        reference = solve_dual(GramBlocks(LinearKernel(), X), problem, tol=tol)
    assert reference.strategy == "full-gram"
    return reference


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("formulation", ["c_svc", "nu_svc", "epsilon_svr", "nu_svr", "one_class"])
def test_blocked_solver_follows_w_with_the_linear_kernel(monkeypatch, formulation, sparse):
    """With the linear kernel the blocked solver updates the gradient through the change of
    ``w`` (in float64, no kernel rows; dense data in the compiled rounds, CSR data in the
    Python loop): at its end the gradient is ``Q a + p`` recomputed from the data to
    round-off, and the solution is the full-Gram solver's optimum. Two variables a row
    (epsilon-SVR, nu-SVR), the nu modes and a start point of many support vectors
    (one-class, nu-SVC) included."""
    X, labels = make_classification(n_samples=1200, n_features=15, flip_y=0.05, random_state=4)
    X[np.abs(X) < 0.7] = 0.0  # some 50% zeros
    if formulation == "one_class":
        X[:, :3] += 2.0
    data = sp.csr_matrix(X) if sparse else X
    problem = _problem(formulation, X, labels)
    # (1 MB: the Gram matrix does not fit, so the blocked solver runs to the end)
    blocked = solve_dual(GramBlocks(LinearKernel(), data), problem, tol=1e-6, cache_size=1.0, working_set_size=64)
    full = _full_gram_reference(monkeypatch, X, problem, 1e-6)
    assert blocked.strategy == "blocked" and blocked.status == svmkit._solver.OPTIMAL
    K = X @ X.T
    exact_grad = problem.y * (K[problem.rows][:, problem.rows] @ (problem.y * blocked.alpha)) + problem.p
    # (to 1e-9 of the terms' size: the nu-SVC gradient, with p = 0, cancels to some 1e-6)
    size = np.abs(K[problem.rows][:, problem.rows]) @ blocked.alpha + np.abs(problem.p)
    np.testing.assert_allclose(blocked.grad, exact_grad, rtol=0, atol=1e-9 * size.max())

    def objective(alpha):
        c = problem.y * alpha
        return 0.5 * c @ K[problem.rows][:, problem.rows] @ c + problem.p @ alpha

    assert objective(blocked.alpha) == pytest.approx(objective(full.alpha), rel=1e-7)


@pytest.mark.parametrize("limit, value", [("_LINEAR_BLOCKED_SHARE", 1e-4), ("_LINEAR_BLOCKED_FREE", 0.1)])
def test_easy_problems_end_in_the_blocked_rounds_and_the_others_go_to_the_full_gram_solver(monkeypatch, limit, value):
    """A problem of 1,500 rows with few support vectors is solved by the blocked rounds (the
    full-Gram solver's optimum to 1e-7). Where the rounds pass their limit of work or of free
    multipliers first (here made tiny: 4,500 multiply-adds, one round; 12 free), the full-Gram
    solver starts again from the start point: its very multipliers, with both solvers' steps
    counted, in the solution and in the progress reports."""
    X, labels = make_classification(n_samples=1500, n_features=40, n_informative=10, class_sep=2.0, flip_y=0.0,
                                     random_state=1)
    problem = _problem("c_svc", X, labels)
    reference = _full_gram_reference(monkeypatch, X, problem, 1e-3)
    blocked = solve_dual(GramBlocks(LinearKernel(), X), problem)
    assert blocked.strategy == "blocked"
    K = X @ X.T

    def objective(alpha):
        c = problem.y * alpha
        return 0.5 * c @ K @ c - alpha.sum()

    assert objective(blocked.alpha) == pytest.approx(objective(reference.alpha), rel=1e-7)
    assert blocked.status == svmkit._solver.OPTIMAL
    monkeypatch.setattr(svmkit._solver, limit, value)
    rounds = []
    solve_rounds = svmkit._solver._solve_blocked_linear
    monkeypatch.setattr(svmkit._solver, "_solve_blocked_linear",
                        lambda *args, **kwargs: rounds.append(solve_rounds(*args, **kwargs)) or rounds[-1])
    reports = []
    monkeypatch.setattr(svmkit._solver, "PROGRESS_INTERVAL_S", 0.0)
    handed_over = solve_dual(GramBlocks(LinearKernel(), X), problem, callback=lambda info: reports.append(info.n_iter))
    assert handed_over.strategy == "full-gram" and rounds[0].status == svmkit._solver.BLOCKED_LEFT
    np.testing.assert_array_equal(handed_over.alpha, reference.alpha)
    assert handed_over.n_iter == reference.n_iter + rounds[0].n_iter > reference.n_iter
    # the progress reports count the rounds' steps too: never backwards, the last one the total
    assert reports == sorted(reports) and reports[-1] == handed_over.n_iter


def test_one_vs_one_problems_of_the_blocked_rounds_reach_libsvms_optimum(monkeypatch):
    """Three classes of 700 rows, 30 features: each one-vs-one problem (1,400 rows) is solved by
    the blocked rounds; each pair's dual objective is LIBSVM's to 1e-4 relative, and the
    predictions agree."""
    X, y = make_classification(n_samples=2100, n_features=30, n_informative=12, n_classes=3, n_clusters_per_class=1,
                               class_sep=1.5, random_state=3)
    rounds = []
    solve_rounds = svmkit._solver._solve_blocked_linear
    monkeypatch.setattr(svmkit._solver, "_solve_blocked_linear",
                        lambda *args, **kwargs: rounds.append(solve_rounds(*args, **kwargs)) or rounds[-1])
    ours = SVC(kernel="linear", C=1.0).fit(X, y)
    assert [solution.status for solution in rounds] == [svmkit._solver.OPTIMAL] * 3
    libsvm = LibsvmSVC(kernel="linear", C=1.0).fit(X, y)
    expected = libsvm_pair_objectives(libsvm, X, "linear", {})
    np.testing.assert_allclose(ours.dual_objective_, expected, rtol=1e-4)
    assert np.mean(ours.predict(X) == libsvm.predict(X)) >= 0.999


def _select_by_numpy(v, y, alpha, upper, nu_mode, kept, n_new):
    """The selection of the largest violators by NumPy's masks and sorts (the reference)."""
    up = ((y > 0) & (alpha < upper)) | ((y < 0) & (alpha > 0))
    low = ((y < 0) & (alpha < upper)) | ((y > 0) & (alpha > 0))
    taken = np.zeros(v.shape[0], dtype=bool)
    taken[kept] = True
    groups = [y > 0, y < 0] if nu_mode else [np.ones(v.shape[0], dtype=bool)]
    share = max(1, n_new // (2 * len(groups)))
    chosen = []
    for mask, sign in [(up & group, -1.0) for group in groups] + [(low & group, 1.0) for group in groups]:
        candidates = np.flatnonzero(mask & ~taken)
        pick = candidates[np.argsort(sign * v[candidates], kind="stable")[:share]]
        taken[pick] = True
        chosen.append(pick)
    return np.concatenate(chosen)


@pytest.mark.parametrize("nu_mode", [False, True])
@pytest.mark.parametrize("n_new", [1, 7, 64, 500])
def test_selection_takes_the_largest_violators_of_each_side(nu_mode, n_new):
    rng = np.random.default_rng(n_new)
    m = 400
    y = np.where(rng.random(m) < 0.4, 1.0, -1.0)
    upper = np.full(m, 2.0)
    alpha = rng.choice([0.0, 0.5, 2.0], size=m, p=[0.6, 0.2, 0.2])
    v = rng.normal(size=m)  # distinct values: one right answer
    kept = rng.choice(m, size=20, replace=False)
    up, low = violator_masks(y, alpha, upper)
    chosen = select_violators(y, -y * v, up, low, nu_mode, kept, n_new)  # (G = -y v)
    expected = _select_by_numpy(v, y, alpha, upper, nu_mode, kept, n_new)
    assert sorted(chosen.tolist()) == sorted(expected.tolist())
    assert not set(chosen.tolist()) & set(kept.tolist())


@pytest.mark.parametrize("k", [0, 1, 5, 100, 1000])
def test_smallest_finds_the_k_smallest_values(k):
    score = np.random.default_rng(k).integers(0, 50, size=1000).astype(float)  # many ties
    positions = _smallest(score, k)
    assert len(set(positions.tolist())) == k
    np.testing.assert_array_equal(np.sort(score[positions]), np.sort(score)[:k])


@pytest.mark.parametrize("cache_size", [200.0, 1.0])  # the full-Gram solver alone, and the rounds
@pytest.mark.parametrize("max_iter", [1, 20, 300])
def test_the_rounds_keep_to_the_step_limit(cache_size, max_iter):
    """No more than ``max_iter`` steps, SMO's, the face steps' and the rounds' together, and
    the solution reports the limit (a problem that needs some 12,000 steps)."""
    X, labels = make_classification(n_samples=1500, n_features=40, n_informative=10, class_sep=2.0, flip_y=0.0,
                                     random_state=1)
    problem = _problem("c_svc", X, labels)
    solution = solve_dual(GramBlocks(LinearKernel(), X), problem, max_iter=max_iter, cache_size=cache_size)
    assert solution.n_iter <= max_iter and solution.status == svmkit._solver.ITERATION_LIMIT
    assert solution.strategy == ("full-gram" if cache_size == 200.0 else "blocked")


def test_rounds_made_in_several_calls_are_those_made_in_one(monkeypatch):
    """The state carried from call to call (kept variables, objective, counts) gives the very
    solution of one call per 16 rounds with one call per round."""
    X, labels = make_classification(n_samples=1500, n_features=40, n_informative=10, class_sep=1.0, flip_y=0.01,
                                    random_state=2)
    problem = _problem("c_svc", X, labels)
    gram = GramBlocks(LinearKernel(), X)
    together = solve_dual(gram, problem, cache_size=1.0)
    monkeypatch.setattr(svmkit._solver, "_LINEAR_ROUNDS_PER_CALL", 1)
    apart = solve_dual(gram, problem, cache_size=1.0)
    # (a round makes at most 2,560 SMO steps, and 10 x 1,256 more with the face steps: 3 rounds or more)
    assert together.n_iter == apart.n_iter > 2 * (2_560 + 10 * 1_256)
    np.testing.assert_array_equal(together.alpha, apart.alpha)


def test_blocked_rows_computed_in_parts_on_threads_give_the_same_solution(monkeypatch):
    """Kernel rows of the blocked solver computed in parts on every core (a part of the rows
    on each thread, from the main thread for enough values) are the rows computed in one
    block: the same multipliers, bit for bit, as with every block on one thread. (Thin
    data that BLAS computes rows of: CSR, which the compiled rows do not take.)"""
    from svmkit.kernels import RBFKernel

    if svmkit._parallel.usable_cores() < 2:
        pytest.skip("one core: no parts")
    X, labels = make_classification(n_samples=1500, n_features=10, flip_y=0.1, random_state=5)
    X = sp.csr_matrix(X)
    problem = c_svc_dual(np.arange(1500), np.where(labels == 1, 1.0, -1.0), np.full(1500, 1.0))

    def blocked_solution(parallel_values):
        parts = []
        original = svmkit._solver.map_in_threads
        with monkeypatch.context() as patch:
            patch.setattr(svmkit._parallel, "PARALLEL_VALUES", parallel_values)
            patch.setattr(svmkit._solver, "map_in_threads",
                          lambda function, items, n: parts.append(len(items)) or original(function, items, n))
            solution = solve_dual(GramBlocks(RBFKernel(gamma=0.1), X), problem, tol=1e-3, cache_size=1.0,
                                  working_set_size=64)
        assert solution.strategy == "blocked"
        return solution, parts

    in_parts, parts = blocked_solution(1)
    whole, no_parts = blocked_solution(2**62)
    assert len(parts) > 0 and all(2 <= n <= svmkit._parallel.usable_cores() for n in parts) and no_parts == []
    np.testing.assert_array_equal(in_parts.alpha, whole.alpha)
    assert in_parts.n_iter == whole.n_iter


@pytest.mark.parametrize("kernel_name", ["rbf", "poly"])
def test_blocked_rows_of_thin_dense_data_by_compiled_loops(monkeypatch, kernel_name):
    """Thin dense data: the blocked solver computes its kernel rows by compiled loops,
    straight into the row cache (or the block's memory, the rows it has no room for), with
    no BLAS block. The same multipliers, bit for bit, whether the loops run on every core or
    on one; the dual objective and the support within 1e-6 and 1e-3 of the BLAS rows' (the
    same data as CSR), with a cache that keeps none, some or all of the rows."""
    from svmkit.kernels import PolynomialKernel, RBFKernel

    X, labels = make_classification(n_samples=1500, n_features=10, flip_y=0.1, random_state=5)
    X /= np.abs(X).max()
    problem = c_svc_dual(np.arange(1500), np.where(labels == 1, 1.0, -1.0), np.full(1500, 1.0))
    kernel = RBFKernel(gamma=1.0) if kernel_name == "rbf" else PolynomialKernel(degree=3, gamma=0.5, coef0=1.0)

    def solution(data, parallel_values, cache_size):
        with monkeypatch.context() as patch:
            patch.setattr(svmkit._parallel, "PARALLEL_VALUES", parallel_values)
            patch.setattr(svmkit._solver, "_FULL_GRAM_MAX_ROWS", 0)  # (the Gram matrix fits 40 MB)
            solved = solve_dual(GramBlocks(kernel, data), problem, tol=1e-3, cache_size=cache_size,
                                working_set_size=64)
        assert solved.strategy == "blocked"
        return solved

    def objective(solved):
        K = kernel(X, X)
        return 0.5 * (solved.alpha * problem.y) @ K @ (solved.alpha * problem.y) - solved.alpha.sum()

    computed = []
    original = svmkit._solver._CompiledRows.into
    monkeypatch.setattr(svmkit._solver._CompiledRows, "into",
                        lambda self, rows, *rest: computed.append(rows.size) or original(self, rows, *rest))
    for cache_size in (1.0, 16.3, 40.0):  # slots for no row, 15 rows, all (16 MB for a block)
        blas = solution(sp.csr_matrix(X), 2**62, cache_size)
        computed.clear()
        parallel = solution(X, 1, cache_size)
        assert sum(computed) > 0
        serial = solution(X, 2**62, cache_size)
        np.testing.assert_array_equal(parallel.alpha, serial.alpha)
        assert objective(parallel) == pytest.approx(objective(blas), rel=1e-6)
        assert np.mean((parallel.alpha > 0) != (blas.alpha > 0)) < 1e-3


def test_rows_in_parts_take_as_many_threads_as_blas_may(monkeypatch):
    """The parts of a block of kernel rows are as many as BLAS may have threads: none under a
    user's limit of one BLAS thread (threadpoolctl, as OMP_NUM_THREADS), BLAS's own count
    inside svmkit's single-thread contexts."""
    from threadpoolctl import threadpool_limits

    from svmkit._parallel import blas_thread_count, single_threaded_blas
    from svmkit.kernels import RBFKernel

    if svmkit._parallel.usable_cores() < 2:
        pytest.skip("one core: no parts")
    monkeypatch.setattr(svmkit._parallel, "PARALLEL_VALUES", 1)
    parts = []
    monkeypatch.setattr(svmkit._solver, "map_in_threads", lambda function, items, n: parts.append(n) or
                        [function(item) for item in items])
    gram = GramBlocks(RBFKernel(gamma=0.1), np.random.default_rng(1).standard_normal((300, 5)))
    rows = np.arange(0, 300, 3)
    expected = gram.block32(rows)
    outside = blas_thread_count()
    with single_threaded_blas():
        assert blas_thread_count() == outside
    with threadpool_limits(limits=1, user_api="blas"):
        assert blas_thread_count() == 1
        block = svmkit._solver._block32_on_all_cores(gram, rows, np.empty_like(expected))
        assert parts == []
    np.testing.assert_array_equal(block, expected)
    if outside >= 2:
        block = svmkit._solver._block32_on_all_cores(gram, rows, np.empty_like(expected))
        assert parts == [min(outside, svmkit._parallel.usable_cores())]
        np.testing.assert_array_equal(block, expected)


def test_single_threaded_blas_limits_every_blas_library_of_the_process():
    """svmkit's single-thread context limits NumPy's and SciPy's BLAS alike (two libraries in
    today's wheels), also where SciPy's is loaded after svmkit's threads module (found at its
    import, it was left on every core in each worker thread), and gives each its count back.
    In a fresh process, where nothing has loaded SciPy's BLAS before."""
    import subprocess
    import sys

    script = """
import svmkit._parallel
import scipy.linalg
from threadpoolctl import threadpool_info
def counts():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
before = counts()
with svmkit._parallel.single_threaded_blas():
    inside = counts()
assert len(inside) >= 1 and set(inside.values()) == {1}, inside
assert counts() == before
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
