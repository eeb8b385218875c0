"""The plan of a fit (svmkit._plan) for given shapes, and every branch of it reached through
the public API with real data, against LIBSVM (scikit-learn's SVC)."""

import bz2
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits, load_svmlight_file, make_classification
from sklearn.base import clone
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as LibsvmSVC
from sklearn.svm import SVR as LibsvmSVR

from svmkit import SVC, SVR, NuSVC, OneClassSVM
from svmkit._core.kernels import LINEAR, POLYNOMIAL, PRECOMPUTED, RBF
from svmkit._plan import LINEAR_HAND_OVER_MIN_VARIABLES, plan
from naive import dual_objective
from svmkit._solver.rows import KernelRows, PrecomputedRows
from svmkit.kernels import LinearKernel, PolynomialKernel, RBFKernel
from test_svc_libsvm import libsvm_pair_objectives

MB = 2**20
DATA = Path(__file__).parent / "data"


def test_plan_of_small_problems_is_one_store_of_float64_rows_all_computed_first():
    p = plan(112, [112], n_features=4, kernel_code=RBF, budget_bytes=200 * MB)  # (iris)
    assert (p.strategy, p.shared_rows, str(p.gram_dtype), p.dots, p.prefetch) == (
        "gram", True, "float64", "loops", 1)
    assert p.max_steps == 10_000_000
    # every row computed first: by loops up to 2**20 multiply-adds (iris: 0.05 M; wine, 13
    # features: 0.23 M); by one BLAS product for 8 to 32 features from 2**18 to 2**27 (heart:
    # 0.95 M; cancer: 5.4 M; 2,000 rows of ijcnn1: 88 M), whatever the width up to 2**32 (digits,
    # 64 features: 116 M; usps's first 4,000 rows: 4.1 G); else as SMO asks
    assert p.rows_upfront
    wine = plan(133, [133], n_features=13, kernel_code=RBF, budget_bytes=200 * MB)
    assert (wine.dots, wine.rows_upfront) == ("loops", True)
    for rows, features in ((270, 13), (426, 30), (2000, 22)):
        mid = plan(rows, [rows], n_features=features, kernel_code=RBF, budget_bytes=200 * MB)
        assert (mid.strategy, mid.shared_rows, mid.dots, mid.rows_upfront) == ("gram", True, "blas", True)
    for rows, features in ((3000, 22), (5000, 4)):
        asked = plan(rows, [rows], n_features=features, kernel_code=RBF, budget_bytes=200 * MB)
        assert (asked.dots, asked.rows_upfront) == ("loops", False)
    digits = plan(1347, [300] * 45, n_features=64, kernel_code=RBF, budget_bytes=200 * MB)
    assert (digits.dots, digits.shared_rows, digits.rows_upfront) == ("blas", True, True)
    assert plan(4000, [4000], n_features=256, kernel_code=RBF, budget_bytes=200 * MB).rows_upfront
    assert not plan(4200, [4200], n_features=256, kernel_code=RBF, budget_bytes=200 * MB).rows_upfront


def test_plan_of_mid_sized_problems_stores_float32_rows_as_they_are_asked_for():
    p = plan(5000, [5000], n_features=256, kernel_code=RBF, budget_bytes=200 * MB)
    assert (p.strategy, p.shared_rows, str(p.gram_dtype), p.dots, p.prefetch) == (
        "gram", True, "float32", "blas", 64)


def test_plan_stores_large_kernel_values_in_float64():
    # svmguide1 unscaled under the linear kernel: values up to 3.8e5, whose float32 rounding
    # misses the optimum; scaled to [-1, 1], at most 4
    unscaled = plan(3089, [3089], n_features=4, kernel_code=LINEAR, budget_bytes=200 * MB, value_bound=3.8e5)
    scaled = plan(3089, [3089], n_features=4, kernel_code=LINEAR, budget_bytes=200 * MB, value_bound=4.0)
    assert (str(unscaled.gram_dtype), unscaled.single_precision) == ("float64", False)
    assert (str(scaled.gram_dtype), scaled.single_precision) == ("float32", True)
    counts = plan(1797, [1797], n_features=64, kernel_code=LINEAR, budget_bytes=200 * MB, value_bound=1.6e4,
                  exact_in_float32=True)  # (values exact in float32, however large)
    assert (str(counts.gram_dtype), counts.single_precision) == ("float32", True)
    # beyond the budget, as many float64 rows as it holds (7,864 of 8,000; float32 would hold all)
    rows = plan(8000, [8000], n_features=64, kernel_code=POLYNOMIAL, budget_bytes=480 * MB, value_bound=1e6)
    assert (rows.strategy, str(rows.gram_dtype), rows.cache_rows) == ("gram", "float64", 7864)
    blocked = plan(20_000, [20_000], n_features=22, kernel_code=POLYNOMIAL, budget_bytes=200 * MB, value_bound=1e6)
    assert (blocked.strategy, str(blocked.gram_dtype), blocked.cache_rows) == ("blocked", "float64", 1101)


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_values_of_counts_are_stored_in_float32_and_give_the_float64_gram_matrix_s_model(sparse, caplog):
    """digits' pixel counts (0 to 16; squared norms up to 1.6e4, beyond FLOAT32_VALUE_LIMIT):
    every product and partial sum is an integer below 2^24, so the linear kernel's rows are
    stored in float32, and the model is that of the float64 Gram matrix given precomputed,
    bit for bit. Halved counts stay exact; a value off the grid puts the rows back in float64."""
    X, y = load_digits(return_X_y=True)
    data = sp.csr_matrix(X) if sparse else X
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(kernel="linear", C=0.01, verbose=True).fit(data, y)
    assert any("Gram matrix in float32" in record.getMessage() for record in caplog.records)
    gram = SVC(kernel="precomputed", C=0.01).fit(X @ X.T, y)
    np.testing.assert_array_equal(ours.dual_coef_, gram.dual_coef_)
    np.testing.assert_array_equal(ours.intercept_, gram.intercept_)
    assert KernelRows(LinearKernel(), X / 2).values_exact_in_float32()
    assert not KernelRows(LinearKernel(), X + 0.1).values_exact_in_float32()
    assert not KernelRows(RBFKernel(gamma=0.01), X).values_exact_in_float32()


@pytest.mark.parametrize("kernel, C", [("linear", 0.1), ("poly", 1.0)])
def test_unscaled_data_twice_give_the_solution_of_weight_two(kernel, C):
    # breast cancer unscaled (squared norms up to 1e7) twice: 1,138 rows, a Gram matrix beyond
    # FLOAT64_GRAM_BYTES stored in float64 for the magnitude of its values (float32's rounding
    # moved the decision values by up to 1.7 (linear) and 12 (polynomial) from the weighted fit's)
    X, y = load_breast_cancer(return_X_y=True)
    parameters = dict(kernel=kernel, C=C, gamma=1e-4, degree=2)
    twice = SVC(**parameters).fit(np.vstack([X, X]), np.concatenate([y, y]))
    weighted = SVC(**parameters).fit(X, y, sample_weight=np.full(y.shape[0], 2.0))
    assert twice.dual_objective_ == pytest.approx(weighted.dual_objective_, rel=1e-9)
    np.testing.assert_allclose(twice.decision_function(X), weighted.decision_function(X), rtol=0, atol=1e-6)
    # the blocked strategy (a budget of 1 MB) keeps such rows in float64 too
    blocked = SVC(cache_size=1, **parameters).fit(np.vstack([X, X]), np.concatenate([y, y]))
    assert blocked.dual_objective_ == pytest.approx(weighted.dual_objective_, rel=1e-9)
    np.testing.assert_allclose(blocked.decision_function(X), weighted.decision_function(X), rtol=0, atol=1e-6)


def test_kernel_value_bounds_of_the_row_sources():
    X = np.array([[3.0, 4.0], [1.0, 0.0]])  # (squared norms 25 and 1)
    assert KernelRows(LinearKernel(), X).value_bound() == 25.0
    assert KernelRows(PolynomialKernel(gamma=0.5, coef0=1.0, degree=2), sp.csr_matrix(X)).value_bound() == 13.5**2
    assert KernelRows(RBFKernel(gamma=10.0), X).value_bound() == 1.0
    assert KernelRows(LinearKernel() + LinearKernel(), X).value_bound() == 50.0  # (computed in Python: the diagonal)
    assert PrecomputedRows(np.array([[2.0, -5.0], [-5.0, 3.0]])).value_bound() == 5.0


def test_plan_of_a_problem_whose_gram_matrix_does_not_fit_keeps_most_of_its_rows():
    # 7,400 rows: the budget holds 7,084 float32 rows of the Gram matrix, 96% of them
    p = plan(7400, [7400], n_features=64, kernel_code=RBF, budget_bytes=200 * MB, n_jobs=2)
    assert (p.strategy, p.shared_rows, str(p.gram_dtype), p.cache_rows) == ("gram", True, "float32", 7084)
    # 8,000 rows: 6,553 of them (82%) would be recomputed often: the blocked strategy
    assert plan(8000, [8000], n_features=64, kernel_code=RBF, budget_bytes=200 * MB).strategy == "blocked"
    # one-vs-one pairs whose own rows fit: a store per problem (a pair's rows are shorter)
    assert plan(8000, [1600] * 45, n_features=64, kernel_code=RBF, budget_bytes=200 * MB).shared_rows is False


def test_plan_of_one_vs_one_pairs_whose_shared_store_does_not_fit():
    p = plan(8000, [1600] * 45, n_features=64, kernel_code=RBF, budget_bytes=64 * MB, n_jobs=2)
    assert (p.strategy, p.shared_rows, p.threads) == ("gram", False, 2)
    # (the problems solved at once share the budget)
    assert plan(8000, [1600] * 45, n_features=64, kernel_code=RBF, budget_bytes=12 * MB, n_jobs=2).threads == 1


def test_plan_of_large_problems_is_the_blocked_strategy_within_the_budget():
    p = plan(20_000, [20_000], n_features=22, kernel_code=RBF, budget_bytes=200 * MB)
    # (the budget: float32 rows of 20,000 values beside a working set's float64 and float32 blocks
    # and the block of rows bound for scattered slots: (200 MB - 12 MB - 16 MB) / 80,000 bytes)
    assert (p.strategy, p.working_set, p.cache_rows, str(p.gram_dtype)) == ("blocked", 1024, 2254, "float32")
    # rows wanted many at a time: BLAS products, however few the features; a problem of the batch
    # that the Gram strategy solves on its own rows takes compiled loops, one row as SMO asks
    from svmkit._plan import for_problem

    assert (p.dots, for_problem(p, 20_000, 900, 900, 200 * MB).dots) == ("blas", "loops")
    assert p.max_steps == 10_000_000
    # the budget holds, however long the rows: covtype.binary's 581,012 rows, 77 of them
    assert plan(50_000, [50_000], n_features=22, kernel_code=RBF, budget_bytes=200 * MB).cache_rows == 901
    assert plan(581_012, [581_012], n_features=54, kernel_code=RBF, budget_bytes=200 * MB).cache_rows == 77
    linear = plan(50_000, [50_000], n_features=22, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True)
    assert (linear.working_set, linear.cache_rows) == (512, 0)
    sparse = plan(50_000, [50_000], n_features=300, kernel_code=RBF, sparse_density=0.04, budget_bytes=200 * MB)
    assert sparse.dots == "sparse"
    denser = plan(50_000, [50_000], n_features=123, kernel_code=RBF, sparse_density=0.11, budget_bytes=200 * MB)
    assert denser.dots == "blas"


def test_plan_of_sparse_rows_dense_enough_is_blas_in_either_strategy():
    # a9a's density (11% of 123 features): a dense copy for BLAS, also where the Gram matrix fits
    gram = plan(3000, [3000], n_features=123, kernel_code=RBF, sparse_density=0.11, budget_bytes=200 * MB)
    assert (gram.strategy, gram.dots) == ("gram", "blas")
    sparser = plan(3000, [3000], n_features=300, kernel_code=RBF, sparse_density=0.04, budget_bytes=200 * MB)
    assert (sparser.strategy, sparser.dots) == ("gram", "sparse")


def test_plan_of_the_linear_kernel_follows_w_where_its_gram_matrix_would_cost_more():
    from svmkit._plan import LINEAR_GRAM_MAX_WORK, for_problem

    # a9a's 4,734 distinct rows of its first 5,000, dense for BLAS: 2.8 G multiply-adds
    assert 4734 * 4734 * 123 > LINEAR_GRAM_MAX_WORK
    p = plan(4734, [4734], n_features=123, kernel_code=LINEAR, sparse_density=0.11, budget_bytes=200 * MB,
             linear=True)
    assert (p.strategy, p.working_set, p.cache_rows, p.dots) == ("blocked", 512, 0, "blas")
    # one-vs-one pairs of usps's largest classes (2,199 rows of 256 features: 1.2 G) too, on threads, their
    # dense rows in working sets near 3 sqrt(n); splice (1,000 x 60: 60 M) keeps its Gram matrix, as do the
    # RBF kernel's problems of these sizes
    pairs = plan(7291, [2199, 1800], n_features=256, kernel_code=LINEAR, budget_bytes=200 * MB, n_jobs=2,
                 linear=True)
    assert (pairs.strategy, pairs.working_set, pairs.threads) == ("blocked", 128, 2)
    assert plan(1000, [1000], n_features=60, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True).strategy == "gram"
    assert plan(4734, [4734], n_features=123, kernel_code=RBF, budget_bytes=200 * MB).strategy == "gram"
    assert plan(7291, [2199, 1800], n_features=256, kernel_code=RBF, budget_bytes=200 * MB).strategy == "gram"
    assert [plan(n, [n], n_features=22, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True).working_set
            for n in (14_000, 49_990)] == [256, 512]  # (ijcnn1's dense rows)
    # sparse rows, whose rounds are not compiled whole, keep the Gram matrix up to 2^31 (a9a's 3,000: 1.1 G)
    assert [plan(3000, [3000], n_features=123, kernel_code=LINEAR, sparse_density=density, budget_bytes=200 * MB,
                 linear=True).strategy for density in (None, 0.11)] == ["blocked", "gram"]
    # few features and many rows (svmguide1: 3,089 x 4): blocked; fewer rows (heart_scale) keep the Gram matrix
    assert plan(3089, [3089], n_features=4, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True).strategy == "blocked"
    assert plan(270, [270], n_features=4, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True).strategy == "gram"
    assert plan(3089, [3089], n_features=9, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True).strategy == "gram"
    # a problem of a blocked batch whose own Gram matrix fits but costs more: blocked too
    batch = plan(30_000, [30_000, 5000], n_features=123, kernel_code=LINEAR, budget_bytes=200 * MB, linear=True)
    assert for_problem(batch, 30_000, 5000, 5000, 200 * MB, linear=True).strategy == "blocked"
    assert for_problem(batch, 30_000, 1000, 1000, 200 * MB, linear=True).strategy == "gram"


def test_plan_of_precomputed_and_python_kernels_and_step_limits():
    assert plan(300, [300], n_features=0, kernel_code=PRECOMPUTED, budget_bytes=200 * MB).dots == "precomputed"
    # very sparse rows by feature, and where a few features held by many rows take most of that
    # work, those by BLAS: rows as SMO asks for them in blocks of the strongest violators'
    text = dict(n_features=2**20, kernel_code=RBF, sparse_density=1e-4, budget_bytes=200 * MB)
    assert (plan(2000, [2000], **text).dots, plan(2000, [2000], **text).prefetch) == ("sparse", 1)
    common = plan(2000, [2000], **text, common_features=True)
    assert (common.strategy, common.dots, common.prefetch, common.rows_upfront) == ("gram", "common", 64, False)
    assert plan(10_000, [10_000], **text, common_features=True).strategy == "blocked"
    assert plan(10_000, [10_000], **text, common_features=True).dots == "common"
    assert plan(300, [300], n_features=5, kernel_code=None, budget_bytes=200 * MB).dots == "python"
    assert plan(300, [300], n_features=5, kernel_code=RBF, budget_bytes=200 * MB, max_iter=7).max_steps == 7
    assert plan(10**6, [10**6], n_features=5, kernel_code=RBF, budget_bytes=200 * MB).max_steps == 2 * 10**8


def test_verbose_fits_log_their_plan(caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="svmkit"):
        SVC(verbose=True).fit(*load_digits(n_class=2, return_X_y=True))
    assert any(record.message.startswith("pair 1 vs 0: plan: gram strategy") for record in caplog.records)


def _digits():
    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("cache_size, expected", [(200, "shared"), (4, "per problem"), (0.3, "blocked")])
def test_every_plan_branch_of_a_multiclass_fit_reaches_libsvm_s_optimum(cache_size, expected):
    """Digits (1,797 x 64, 10 classes, 45 one-vs-one problems): one store of rows for all
    problems, stores of each problem's own rows (a budget too small for the shared one), and
    the blocked strategy (too small for a problem's own): each pair's dual objective is
    LIBSVM's, and the predictions agree."""
    X, y = _digits()
    gamma = 1.0 / 64
    n, largest = X.shape[0], max(np.bincount(y)[a] + np.bincount(y)[b] for a in range(10) for b in range(a + 1, 10))
    chosen = plan(n, [largest] * 45, n_features=64, kernel_code=RBF, budget_bytes=cache_size * MB, n_jobs=2)
    assert {"shared": (chosen.strategy, chosen.shared_rows, chosen.cache_rows) == ("gram", True, n),
            "per problem": (chosen.strategy, chosen.shared_rows) == ("gram", False),
            "blocked": chosen.strategy == "blocked"}[expected]
    ours = SVC(C=10.0, gamma=gamma, cache_size=cache_size, tol=1e-4).fit(X, y)
    oracle = LibsvmSVC(C=10.0, gamma=gamma, tol=1e-4).fit(X, y)
    expected_objectives = libsvm_pair_objectives(oracle, X, "rbf", {"gamma": gamma})
    np.testing.assert_allclose(ours.dual_objective_, expected_objectives, rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


@pytest.mark.parametrize("gamma, rows_by, used", [(1.0 / 64, "compiled loops", (0.1, 0.25)),
                                                  (1.0, "BLAS", (0.9, 1.0))])
def test_one_vs_one_pairs_on_their_own_rows_take_loops_where_their_first_pairs_left_blas_rows_unused(
        caplog, gamma, rows_by, used):
    """Digits with 3 MB (each pair on a store of its own rows, 64 features: BLAS rows with the
    strongest violators' rows; too little for the class blocks, whatever the threads): with gamma = 1/64 the first two pairs read a sixth of the rows
    they computed (813 support vectors of 1,797), and the other pairs compute their rows by
    compiled loops as SMO asks for them; with gamma = 1 every row is a support vector and read,
    and BLAS stays. Either way each pair's dual objective is LIBSVM's."""
    X, y = _digits()
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(C=10.0, gamma=gamma, cache_size=3, tol=1e-4, verbose=True).fit(X, y)
    # (here 109 of 675 and 715 of 715)
    judged = [re.fullmatch(r"45 one-vs-one pairs: the first 2 problems used (\d+) of the (\d+) BLAS rows they "
                           rf"computed: the others' rows by {rows_by}", record.getMessage()) for record in caplog.records]
    (n_used, n_computed), = [match.groups() for match in judged if match]
    assert used[0] <= int(n_used) / int(n_computed) <= used[1] and int(n_computed) >= 512
    oracle = LibsvmSVC(C=10.0, gamma=gamma, tol=1e-4).fit(X, y)
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": gamma}),
                               rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_one_vs_one_pairs_on_their_own_rows_take_gram_matrices_assembled_from_class_blocks(caplog, n_jobs):
    """Digits with 8 MB (the Gram matrix of all the rows does not fit, each pair's does; 64
    features: BLAS): each class's block is computed once for its nine pairs and each pair's
    block of its two classes once, (N^2 + sum of n_c^2) / 2 kernel values in all, and each
    pair's Gram matrix assembled from them; each pair's dual objective is LIBSVM's, and the
    model that of the default budget (one store of rows of all the data, as SMO asks)."""
    X, y = _digits()
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(C=10.0, gamma=1.0 / 64, cache_size=8, tol=1e-4, n_jobs=n_jobs, verbose=True).fit(X, y)
    messages = [record.getMessage() for record in caplog.records]
    assert "45 one-vs-one pairs: Gram matrices assembled from class blocks" in messages
    sizes = np.bincount(y)
    counted = [re.search(r"kernel rows computed: ([\d,]+) \(([\d,]+) kernel values\)", message) for message in messages]
    (rows, values), = [tuple(int(text.replace(",", "")) for text in match.groups()) for match in counted if match]
    assert (rows, values) == (1797, (1797**2 + int(np.sum(sizes**2))) // 2)
    oracle = LibsvmSVC(C=10.0, gamma=1.0 / 64, tol=1e-4).fit(X, y)
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": 1.0 / 64}),
                               rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998
    shared = SVC(C=10.0, gamma=1.0 / 64, tol=1e-4).fit(X, y)
    np.testing.assert_allclose(ours.dual_objective_, shared.dual_objective_, rtol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), shared.predict(X))


def test_class_blocks_of_a_small_multiclass_fit_give_libsvm_s_pairs(caplog):
    """Digits' first 400 rows with half a megabyte: the shared store does not fit, each pair's
    does, and so do the class blocks; each pair's dual objective is LIBSVM's."""
    X, y = _digits()
    X, y = X[:400], y[:400]
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(C=10.0, gamma=1.0 / 64, cache_size=0.5, tol=1e-4, n_jobs=1, verbose=True).fit(X, y)
    assert "45 one-vs-one pairs: Gram matrices assembled from class blocks" in [r.getMessage() for r in caplog.records]
    oracle = LibsvmSVC(C=10.0, gamma=1.0 / 64, tol=1e-4).fit(X, y)
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": 1.0 / 64}),
                               rtol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), oracle.predict(X))


def test_plan_of_class_blocks_holds_them_and_each_thread_s_pair_within_the_budget():
    from svmkit._plan import class_blocks_pay

    usps = plan(7291, [1458] * 45, n_features=256, kernel_code=RBF, budget_bytes=200 * MB, n_jobs=2)
    assert (usps.strategy, usps.shared_rows, usps.dots, usps.threads) == ("gram", False, "blas", 2)
    # (usps's classes, 22 MB in float32, and two pairs' matrices of 8.5 MB)
    assert class_blocks_pay(usps, 22 * MB, 8.5 * MB, 200 * MB)
    assert not class_blocks_pay(usps, 22 * MB, 8.5 * MB, 38 * MB)
    # not where rows are compiled loops' (few features), nor for one store of all the rows
    thin = plan(7291, [1458] * 45, n_features=16, kernel_code=RBF, budget_bytes=200 * MB, n_jobs=2)
    shared = plan(1797, [360] * 45, n_features=64, kernel_code=RBF, budget_bytes=200 * MB, n_jobs=2)
    assert (thin.dots, shared.shared_rows) == ("loops", True)
    assert not class_blocks_pay(thin, MB, MB, 200 * MB) and not class_blocks_pay(shared, MB, MB, 200 * MB)
    # nor for the linear kernel, whose pairs read few of their rows
    assert not class_blocks_pay(usps, 22 * MB, 8.5 * MB, 200 * MB, linear=True)


def test_the_judge_of_blas_rows_decides_from_the_first_problems_in_order_whatever_order_they_end_in():
    """The choice of BLAS or loops for the later problems of a batch depends on its first
    problems' counts in the batch's order (at least 512 rows, below half used: loops), not on
    which thread finished first; a later problem that starts before the decision waits for it."""
    import threading

    from svmkit._solver.driver import SolverSettings, _BlasRowsJudge

    judge = _BlasRowsJudge(4, SolverSettings())
    judge.report(1, 600, 0)  # (problem 1 ends first: nothing decided without problem 0)
    assert not judge.loops and [judge.loops_for(0), judge.loops_for(1)] == [None, None]  # (BLAS, counted)
    waited = []
    waiting = threading.Thread(target=lambda: waited.append(judge.loops_for(2)))
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive()  # (problem 2 waits for problem 0)
    judge.report(0, 600, 540)  # (problem 0 alone: 540 of 600 used, BLAS)
    waiting.join(5)
    assert waited == [False] and judge.loops_for(3) is False
    in_order = _BlasRowsJudge(3, SolverSettings())
    in_order.report(0, 200, 20)
    in_order.report(1, 400, 40)  # (0 and 1 together: 60 of 600 used, loops)
    assert in_order.loops_for(2) is True
    too_few = _BlasRowsJudge(2, SolverSettings())
    too_few.report(1, 100, 0)
    too_few.report(0, 100, 0)  # (200 rows in all: too few to judge, BLAS)
    assert too_few.loops is False


def test_a_two_class_fit_on_a_store_of_some_of_its_rows_reaches_libsvm_s_optimum():
    """Digits as two classes (below 5 or not) with 12 MB: a store of 1,750 of the 1,797 rows,
    the least recently used out (LIBSVM's cache); LIBSVM's dual objective and predictions."""
    X, digit = _digits()
    y = (digit < 5).astype(int)
    gamma = 1.0 / 64
    chosen = plan(X.shape[0], [X.shape[0]], n_features=64, kernel_code=RBF, budget_bytes=12 * MB)
    assert (chosen.strategy, chosen.shared_rows, chosen.cache_rows) == ("gram", True, 1750)
    ours = SVC(C=10.0, gamma=gamma, cache_size=12, tol=1e-4).fit(X, y)
    oracle = LibsvmSVC(C=10.0, gamma=gamma, tol=1e-4).fit(X, y)
    expected_objectives = libsvm_pair_objectives(oracle, X, "rbf", {"gamma": gamma})
    np.testing.assert_allclose(ours.dual_objective_, expected_objectives, rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


def test_sparse_rows_made_dense_for_blas_are_split_and_reach_libsvm_s_optimum():
    """a9a's first 4,000 rows (123 binary features, sparse) with a cache of 10 MB: the blocked
    strategy, its rows made dense for BLAS, whose products take the 0/1 features that most
    rows hold or lack over their entries off the median; LIBSVM's optimum and predictions."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    X, y = X[:4000], y[:4000]
    p = plan(4000, [4000], n_features=123, kernel_code=RBF, sparse_density=X.nnz / (4000 * 123),
             budget_bytes=10 * MB)
    assert (p.strategy, p.dots) == ("blocked", "blas")
    assert KernelRows(RBFKernel(gamma=0.05), X).split_transposed(np.float32) is not None
    ours = SVC(C=1.0, gamma=0.05, cache_size=10).fit(X, y)
    oracle = LibsvmSVC(C=1.0, gamma=0.05).fit(X, y)
    coef = np.asarray(oracle.dual_coef_.todense()).ravel()
    expected = dual_objective(coef, RBFKernel(gamma=0.05)(X[oracle.support_], X[oracle.support_]))
    assert ours.dual_objective_ == pytest.approx(expected, rel=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


def test_a_fit_of_more_than_twenty_thousand_rows_by_the_blocked_strategy_reaches_libsvm_s_optimum(caplog):
    """a9a's first 21,000 rows (UCI Adult, 123 binary features, sparse), RBF: the blocked
    strategy (the Gram matrix does not fit in 200 MB), the variables shrinking keeps solved as
    a problem of their own once they are few, against LIBSVM."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)
    assert X.shape == (21000, 123)
    assert plan(21000, [21000], n_features=123, kernel_code=RBF, sparse_density=X.nnz / (21000 * 123),
                budget_bytes=200 * MB).strategy == "blocked"
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(C=1.0, gamma=0.05, verbose=True).fit(X, y)
    assert any(record.getMessage().startswith("shrunk to ") for record in caplog.records)
    oracle = LibsvmSVC(C=1.0, gamma=0.05).fit(X, y)
    coef = np.asarray(oracle.dual_coef_.todense()).ravel()
    expected = dual_objective(coef, RBFKernel(gamma=0.05)(X[oracle.support_], X[oracle.support_]))
    assert ours.dual_objective_ == pytest.approx(expected, rel=1e-3)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.995
    assert abs(ours.support_.shape[0] - oracle.support_.shape[0]) <= 0.02 * oracle.support_.shape[0]


def test_a_linear_fit_by_working_sets_where_its_gram_matrix_would_fit_reaches_libsvm_s_optimum(caplog):
    """a9a's first 5,000 rows (sparse, made dense for BLAS), the linear kernel: its Gram matrix
    fits the budget but would cost more than working sets that follow ``w``; LIBSVM's optimum
    and predictions."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    X, y = X[:5000], y[:5000]
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(kernel="linear", C=1.0, verbose=True).fit(X, y)
    assert any("plan: blocked strategy (working sets of 512, a cache of 0" in record.getMessage()
               for record in caplog.records)
    oracle = LibsvmSVC(kernel="linear", C=1.0).fit(X, y)
    coef = np.asarray(oracle.dual_coef_.todense()).ravel()
    expected = dual_objective(coef, LinearKernel()(X[oracle.support_], X[oracle.support_]))
    assert ours.dual_objective_ == pytest.approx(expected, rel=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


def test_a_linear_fit_of_few_features_and_many_rows_by_working_sets_reaches_libsvm_s_optimum(caplog):
    """The ink of each of the 8 columns of scikit-learn's digits and of the digits shifted one
    pixel to the right (3,594 rows of 8 features), digits 5-9 against 0-4, the linear kernel:
    the blocked strategy (few features, many rows) reaches LIBSVM's optimum and predictions."""
    digits = load_digits()
    images = np.concatenate([digits.images, np.roll(digits.images, 1, axis=2)])
    X = images.sum(axis=1) / 64.0
    y = np.tile(digits.target >= 5, 2).astype(int)
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(kernel="linear", C=1.0, verbose=True).fit(X, y)
    assert any("pair 1 vs 0: plan: blocked strategy (working sets of 128" in record.getMessage()
               for record in caplog.records)
    oracle = LibsvmSVC(kernel="linear", C=1.0).fit(X, y)
    expected = dual_objective(oracle.dual_coef_.ravel(), LinearKernel()(X[oracle.support_], X[oracle.support_]))
    assert ours.dual_objective_ == pytest.approx(expected, rel=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998




def test_linear_one_vs_one_pairs_by_compiled_rounds_on_threads_reach_libsvm_s_optimum(caplog):
    """Digits 0-2 made 16 x 16 (usps's size, 256 features) with copies shifted by one pixel
    right and down (1,611 rows, pairs of some 1,080 rows: 0.3 G multiply-adds each), the linear
    kernel: the pairs by working sets of 128, each round compiled whole, on two threads; each
    pair's dual objective is LIBSVM's, and the predictions agree."""
    digits = load_digits()
    keep = digits.target < 3
    images = np.kron(digits.images[keep], np.ones((1, 2, 2)))
    images = np.concatenate([images, np.roll(images, 1, axis=2), np.roll(images, 1, axis=1)])
    X, y = images.reshape(images.shape[0], -1) / 16.0, np.tile(digits.target[keep], 3)
    with caplog.at_level("INFO", logger="svmkit"):
        ours = SVC(kernel="linear", C=1.0, tol=1e-4, n_jobs=2, verbose=True).fit(X, y)
    assert any("3 one-vs-one pairs: plan: blocked strategy (working sets of 128" in record.getMessage()
               and record.getMessage().endswith("2 thread(s)") for record in caplog.records)
    oracle = LibsvmSVC(kernel="linear", C=1.0, tol=1e-4).fit(X, y)
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(oracle, X, "linear", {}), rtol=1e-5)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998

@pytest.mark.parametrize("formulation", ["nu-svc", "one-class", "epsilon-svr"])
def test_linear_rounds_on_dense_rows_reach_libsvm_s_solution_and_that_of_sparse_rows(formulation, caplog):
    """a9a's first 3,000 rows made dense (123 features: a Gram matrix of 1.1 G multiply-adds),
    the linear kernel: the blocked strategy, each round compiled whole over every variable
    (fewer than ``LINEAR_HAND_OVER_MIN_VARIABLES``: no sub-problem of the kept ones), reaches
    LIBSVM's solution and that of the same rows as CSR (the Gram strategy: sparse rows take
    working sets from ``LINEAR_GRAM_MAX_WORK``)."""
    from sklearn import svm as libsvm

    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X_sparse, y = load_svmlight_file(handle, n_features=123)
    X_sparse, y = X_sparse[:3000], y[:3000]
    X = X_sparse.toarray()
    ours, oracle, args = {
        "nu-svc": (NuSVC(kernel="linear", nu=0.4, tol=1e-4), libsvm.NuSVC(kernel="linear", nu=0.4, tol=1e-4), (y,)),
        "one-class": (OneClassSVM(kernel="linear", nu=0.2, tol=1e-4),
                      libsvm.OneClassSVM(kernel="linear", nu=0.2, tol=1e-4), ()),
        "epsilon-svr": (SVR(kernel="linear", C=0.1, epsilon=0.5, tol=1e-4),
                        libsvm.SVR(kernel="linear", C=0.1, epsilon=0.5, tol=1e-4), (y,)),
    }[formulation]
    with caplog.at_level("INFO", logger="svmkit"):
        dense = ours.set_params(verbose=True).fit(X, *args)
    messages = [record.getMessage() for record in caplog.records]
    assert any("plan: blocked strategy (working sets of 128" in message for message in messages)
    assert not any(message.startswith("shrunk to ") for message in messages)
    sparse = clone(ours).set_params(verbose=False).fit(X_sparse, *args)
    oracle.fit(X, *args)
    value = (lambda model, Z: model.predict(Z)) if formulation == "epsilon-svr" else (
        lambda model, Z: model.decision_function(Z))
    assert dense.dual_objective_ == pytest.approx(sparse.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(value(dense, X), value(sparse, X_sparse), atol=2e-3)
    np.testing.assert_allclose(value(dense, X), value(oracle, X), atol=2e-3)


def test_linear_rounds_on_dense_rows_of_many_variables_hand_the_kept_ones_over(caplog):
    """a9a's 21,000 rows made dense, epsilon-SVR with the linear kernel: 42,000 variables
    (35,398 once those on copies of a row are merged), at least ``LINEAR_HAND_OVER_MIN_VARIABLES``,
    so the variables shrinking keeps (some rows with both multipliers, some with one) are solved
    as a problem of their own; the solution is that of the same rows as CSR (the general rounds)."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X_sparse, y = load_svmlight_file(handle, n_features=123)
    X = X_sparse.toarray()
    assert 2 * X.shape[0] >= LINEAR_HAND_OVER_MIN_VARIABLES
    with caplog.at_level("INFO", logger="svmkit"):
        dense = SVR(kernel="linear", C=0.1, epsilon=0.5, tol=1e-4, verbose=True).fit(X, y)
    assert any(record.getMessage().startswith("shrunk to ") for record in caplog.records)
    sparse = SVR(kernel="linear", C=0.1, epsilon=0.5, tol=1e-4).fit(X_sparse, y)
    assert dense.dual_objective_ == pytest.approx(sparse.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(dense.predict(X), sparse.predict(X_sparse), atol=2e-3)


@pytest.mark.parametrize("shrinking", [True, False])
def test_the_blocked_strategy_of_every_formulation_reaches_the_gram_strategy_s_solution(shrinking, caplog):
    """nu-SVC, one-class and epsilon-SVR by working sets (a budget of 0.2 MB; with shrinking,
    the variables it keeps solved as a problem of their own) and by the Gram strategy: the same
    dual objectives within the tolerance."""
    X, y = make_classification(n_samples=1200, n_features=10, flip_y=0.05, random_state=1)
    target = X @ np.linspace(-1, 1, 10) + y
    for make in (lambda **k: NuSVC(nu=0.4, gamma=0.1, **k), lambda **k: OneClassSVM(nu=0.3, gamma=0.1, **k),
                 lambda **k: SVR(C=2.0, gamma=0.1, **k)):
        fitted = []
        caplog.clear()
        for cache_size in (200, 0.2):
            model = make(cache_size=cache_size, shrinking=shrinking, tol=1e-5, verbose=True)
            with caplog.at_level("INFO", logger="svmkit"):
                fitted.append(model.fit(X, target if isinstance(model, SVR) else y))
        gram, blocked = fitted
        assert any(record.getMessage().startswith("shrunk to ") for record in caplog.records) == shrinking
        assert blocked.dual_objective_ == pytest.approx(gram.dual_objective_, rel=1e-5)
        assert np.allclose(blocked.decision_function(X) if not isinstance(blocked, SVR) else blocked.predict(X),
                           gram.decision_function(X) if not isinstance(gram, SVR) else gram.predict(X), atol=1e-3)


@pytest.mark.parametrize("cache_size", [200.0, 0.2])
@pytest.mark.parametrize("max_iter", [1, 20, 300])
def test_both_strategies_keep_to_the_step_limit(cache_size, max_iter):
    """No more than ``max_iter`` steps, SMO's and the working sets' together, and a warning
    that names the gap reached (a problem that needs thousands of steps)."""
    X, y = make_classification(n_samples=1500, n_features=40, n_informative=10, class_sep=2.0, flip_y=0.0,
                               random_state=1)
    with pytest.warns(Warning, match=f"max_iter={max_iter} with the KKT gap"):
        model = SVC(kernel="linear", max_iter=max_iter, cache_size=cache_size).fit(X, y)
    assert model.n_iter_[0] <= max_iter and model.fit_status_ == 1


def test_svr_by_both_strategies_equals_libsvm():
    X, y = make_classification(n_samples=800, n_features=6, random_state=2)
    target = X @ np.linspace(-1, 1, 6) + 0.3 * y
    oracle = LibsvmSVR(C=3.0, gamma=0.2, epsilon=0.1, tol=1e-5).fit(X, target)
    for cache_size in (200, 0.1):
        ours = SVR(C=3.0, gamma=0.2, epsilon=0.1, tol=1e-5, cache_size=cache_size).fit(X, target)
        np.testing.assert_allclose(ours.predict(X), oracle.predict(X), atol=1e-3)


def test_platt_folds_on_stores_of_some_of_their_rows_give_the_sigmoid_of_a_whole_budget():
    """Digits as two classes with probabilities: the five cross-validation problems of
    Platt's sigmoid (shuffled rows, each with a store of its own) on 7 MB hold 1,276 of the
    1,437 rows of their Gram matrices; the sigmoid and the probabilities are those of a
    200 MB budget."""
    X, digit = _digits()
    y = (digit < 5).astype(int)
    whole = SVC(gamma=1.0 / 64, probability=True, random_state=0, tol=1e-5).fit(X, y)
    part = SVC(gamma=1.0 / 64, probability=True, random_state=0, tol=1e-5, cache_size=7).fit(X, y)
    np.testing.assert_allclose([part.probA_, part.probB_], [whole.probA_, whole.probB_], rtol=1e-3)
    np.testing.assert_allclose(part.predict_proba(X), whole.predict_proba(X), atol=1e-4)


def test_a_blocked_multiclass_fit_of_unequal_classes_solves_each_pair_by_its_own_plan():
    """Digits with 20 rows of the digits 0-2 and every row of the others (1,307 rows), a budget
    of 0.3 MB: the pairs of two small classes by the Gram strategy on their own rows, those of
    two large ones by working sets on a copy of their rows (kernel rows of 360 values, not
    1,307); each pair's dual objective is LIBSVM's, and the predictions agree."""
    from svmkit._plan import for_problem

    X, y = _digits()
    keep = np.concatenate([np.flatnonzero(y == digit)[:20] if digit < 3 else np.flatnonzero(y == digit)
                           for digit in range(10)])
    X, y = X[keep], y[keep]
    sizes = np.bincount(y)
    batch = plan(X.shape[0], [sizes[a] + sizes[b] for a in range(10) for b in range(a + 1, 10)], n_features=64,
                 kernel_code=RBF, budget_bytes=0.3 * MB)
    assert batch.strategy == "blocked"
    small, large = for_problem(batch, X.shape[0], 40, 40, 0.3 * MB), for_problem(batch, X.shape[0], 360, 360, 0.3 * MB)
    assert (small.strategy, large.strategy, large.own_rows) == ("gram", "blocked", True)
    gamma = 1.0 / 64
    ours = SVC(C=10.0, gamma=gamma, cache_size=0.3, tol=1e-4).fit(X, y)
    oracle = LibsvmSVC(C=10.0, gamma=gamma, tol=1e-4).fit(X, y)
    np.testing.assert_allclose(ours.dual_objective_, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": gamma}),
                               rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


def test_a_warm_start_given_its_gradient_reaches_the_solution_of_one_that_computes_it():
    """Digits, 0-4 against 5-9 (1,797 rows, RBF), by the blocked strategy (a budget of 0.3 MB):
    started from the solution on the first 900 rows, once with the start's gradient
    ``p + Q a0`` given (``grad0``, as the Cascade SVM's passes give it from decision values
    computed on the workers) and once computing it from kernel rows; both reach the same
    optimum, the cold start's."""
    from sklearn.metrics.pairwise import rbf_kernel

    from svmkit._solver import DualBatch, SolverSettings, solve

    X, digit = _digits()
    y = np.where(digit < 5, -1.0, 1.0)
    n, gamma, C = y.shape[0], 1.0 / 64, 10.0
    source, settings = KernelRows(RBFKernel(gamma=gamma), X), SolverSettings(tol=1e-5, cache_size=0.3)

    def batch(rows, alpha0):
        return DualBatch.single(y[rows], -np.ones(rows.shape[0]), np.full(rows.shape[0], C), alpha0, rows)

    def dual_objective(solution):  # (1/2 a'Qa + p'a = 1/2 a'(G + p), p = -1)
        return 0.5 * solution.alpha @ (solution.grad - 1.0)

    alpha0 = np.r_[solve(batch(np.arange(900), np.zeros(900)), source, settings).alpha, np.zeros(n - 900)]
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    given = batch(np.arange(n), alpha0)
    given.grad0 = Q @ alpha0 - 1.0
    warm = solve(given, source, settings)
    computed = solve(batch(np.arange(n), alpha0), source, settings)
    cold = solve(batch(np.arange(n), np.zeros(n)), source, settings)
    assert warm.plan.strategy == "blocked"
    # the gradient carried from the given start is that of the point reached (up to the
    # rounding of the float32 kernel rows that update it, as when computed)
    np.testing.assert_allclose(warm.grad, Q @ warm.alpha - 1.0, rtol=0, atol=1e-4)
    np.testing.assert_allclose(computed.grad, Q @ computed.alpha - 1.0, rtol=0, atol=1e-4)
    assert dual_objective(warm) == pytest.approx(dual_objective(computed), rel=1e-6)
    assert dual_objective(warm) == pytest.approx(dual_objective(cold), rel=1e-6)


def test_a_face_try_waits_until_smo_has_done_twice_its_work():
    """A try of steps on the face of k free multipliers among m variables costs some k^3 + k m;
    the Gram strategy makes it once SMO's steps (m each) have done FACE_WORK_RATIO (2) times
    that: 290 free of 1,242 (a linear kernel on 21 features, where the plan's first look
    comes after 2,484 steps) wait until step 39,854."""
    from svmkit._solver.driver import _FaceSchedule

    assert not _FaceSchedule.affordable(290, 1242, 2484)
    assert not _FaceSchedule.affordable(290, 1242, 39_853)
    assert _FaceSchedule.affordable(290, 1242, 39_854)
    assert _FaceSchedule.affordable(20, 1242, 2484)


def test_a_linear_fit_of_few_features_settles_its_singular_face_in_fewer_steps_than_libsvm():
    """1,000 rows of 24 standardised features with 10% of labels flipped, linear kernel: the
    free multipliers' block has rank 24 at most, and LIBSVM's SMO zig-zags on it for 25,283
    steps; the Gram strategy's Newton steps on that face (tried once affordable and settled)
    end it in 14,000 (20,460 without them before the free multipliers fell below 512), at
    LIBSVM's optimum."""
    X, y = make_classification(1333, 24, n_informative=5, n_redundant=0, n_clusters_per_class=2, flip_y=0.1,
                               random_state=0)
    X = StandardScaler().fit_transform(X[:1000])
    y = y[:1000]
    ours = SVC(kernel="linear").fit(X, y)
    oracle = LibsvmSVC(kernel="linear").fit(X, y)
    coef = np.asarray(oracle.dual_coef_).ravel()
    expected = dual_objective(coef, LinearKernel()(X[oracle.support_], X[oracle.support_]))
    assert ours.dual_objective_ == pytest.approx(expected, rel=1e-6)
    assert ours.n_iter_[0] < 0.6 * oracle.n_iter_[0]
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.998


def test_a_face_is_tried_once_its_free_multipliers_stop_falling_fast():
    """Splice's linear fit: 162 free multipliers at one look, 131 at the next (SMO still taking
    them off the face: no try), 125 at the one after (settled: at least FACE_SETTLED_SHARE of
    the last count)."""
    from svmkit._plan import FACE_SETTLED_SHARE
    from svmkit._solver.driver import _FaceSchedule

    schedule = _FaceSchedule()
    schedule.steps_before_try(0, 1000)
    assert FACE_SETTLED_SHARE == 0.9
    assert schedule.settled(162) and not schedule.settled(131) and schedule.settled(125)
    schedule.steps_before_try(1, 1000)  # (a new problem starts counting afresh)
    assert schedule.settled(50)
