"""The within-class kernel blocks shared by one-vs-one problems (svmkit._class_blocks)."""

import contextlib
import doctest
import threading
import warnings

import numpy as np
import scipy.sparse as sp
import pytest
from compiled_doctests import run_docstring_examples
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibsvmSVC
from sklearn.svm import NuSVC as LibsvmNuSVC

from svmkit import SVC, NuSVC
from svmkit import _class_blocks
from svmkit._class_blocks import ClassBlockGram, pairs_fit_in_one_call, shared_class_blocks, solve_pairs_in_one_call
from svmkit._core.pairs import (
    assemble_pair_gram, solve_c_svc_pairs, solve_c_svc_pairs_on_own_rows, solve_linear_pairs, solve_pairs, solve_subsets,
)
from svmkit.svm import _svc as svc_module
from svmkit.svm._base import map_in_threads
from svmkit.svm._formulations import c_svc_dual
from svmkit._solver import GramBlocks, single_threaded_blas, solve_dual
from svmkit.kernels import LinearKernel, RBFKernel
from test_svc_libsvm import libsvm_pair_objectives


@pytest.fixture(autouse=True)
def _class_strips_at_every_size(monkeypatch):
    """The fits here test the class-strips route: no one-vs-one fit of few rows takes the Gram
    matrix of all rows instead (svm._svc._ONE_VS_ONE_ALL_ROWS), and no linear fit its kernel rows
    computed in compiled calls (svm._svc._OWN_ROWS_LINEAR_FEATURES)."""
    monkeypatch.setattr(svc_module, "_ONE_VS_ONE_ALL_ROWS", 0)
    monkeypatch.setattr(svc_module, "_OWN_ROWS_LINEAR_FEATURES", -1)


def _three_classes(n_samples=1200, n_features=30, seed=0):
    X, y = make_classification(
        n_samples=n_samples, n_features=n_features, n_informative=10, n_classes=3, flip_y=0.05, random_state=seed
    )
    return X, y


def test_pair_rows_equal_the_directly_computed_rows():
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    gamma = 0.05
    kernel = RBFKernel(gamma=gamma)
    gram = ClassBlockGram(kernel, X, members)
    rows = np.concatenate([members[2], members[0]])  # classes 2 and 0, in that order
    pair = gram.subset(rows)
    direct = GramBlocks(kernel, X[rows])
    wanted = np.random.default_rng(0).permutation(rows.shape[0])[:50]  # both classes, any order
    # ||x||^2 + ||z||^2 - 2 x.z summed in another order (other BLAS block shapes) differs
    # by a few roundings of ||x||^2 + ||z||^2 in the exponent
    norms = (X[rows] ** 2).sum(axis=1)
    for dtype, block in [(np.float64, "block"), (np.float32, "block32")]:
        exponent_bound = gamma * 8 * np.finfo(dtype).eps * (norms[wanted][:, None] + norms[None, :])
        from_pair, from_rows = getattr(pair, block)(wanted), getattr(direct, block)(wanted)
        assert from_pair.dtype == from_rows.dtype == dtype
        exponent_difference = np.log(from_pair.astype(np.float64)) - np.log(from_rows)
        assert np.all(np.abs(exponent_difference) <= exponent_bound)
    np.testing.assert_array_equal(pair.diag(), direct.diag())
    np.testing.assert_array_equal(pair.X, X[rows])
    assert pair.n_rows == rows.shape[0] and pair.n_features == X.shape[1]


def test_rows_that_are_not_two_whole_classes_get_plain_blocks():
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    gram = ClassBlockGram(RBFKernel(gamma=0.05), X, members)
    for rows in (np.concatenate([members[0], members[1][:-1]]), np.sort(np.concatenate(members[:2]))):
        assert type(gram.subset(rows)) is GramBlocks


@pytest.mark.parametrize("n_samples, value_bytes", [(1200, 4), (300, 8)])
def test_shared_blocks_only_where_they_fit_half_the_cache(n_samples, value_bytes):
    """Pairs of 800 rows share float32 blocks, pairs of 200 (a float64 Gram matrix) float64 ones."""
    X, y = _three_classes(n_samples=n_samples)
    members = [np.flatnonzero(y == k) for k in range(3)]
    pairs = [(0, 1), (0, 2), (1, 2)]
    gram = GramBlocks(RBFKernel(gamma=0.05), X)
    shared, per_worker = shared_class_blocks(gram, members, pairs, cache_size=200, n_workers=2)
    sizes = np.array([m.shape[0] for m in members])
    cross = max(sizes[a] * sizes[b] for a, b in pairs)
    shared_mb = value_bytes * (np.sum(sizes**2) + 2 * cross) / 2**20
    # with a scratch place a worker below each class's block, as large as the largest other class
    largest_other = np.array([max(np.delete(sizes, k)) for k in range(3)])
    scratch_mb = value_bytes * 2 * np.sum(largest_other * sizes) / 2**20
    assert isinstance(shared, ClassBlockGram) and shared.n_scratch == 2
    assert per_worker == pytest.approx((200 - shared_mb - scratch_mb) / 2)
    no_scratch = 2 * (shared_mb + scratch_mb) * 0.99
    shared, per_worker = shared_class_blocks(gram, members, pairs, cache_size=no_scratch, n_workers=2)
    assert shared.n_scratch == 0 and per_worker == pytest.approx((no_scratch - shared_mb) / 2)
    too_small = 2 * shared_mb * 0.99
    assert shared_class_blocks(gram, members, pairs, cache_size=too_small, n_workers=2) == (gram, too_small / 2)
    assert shared_class_blocks(gram, members, [(0, None), (1, None)], 200, 2)[0] is gram  # one-vs-rest


@pytest.mark.parametrize("n_samples, dtype", [(1200, np.float32), (300, np.float64)])
def test_one_vs_one_fit_computes_each_kernel_value_once_and_matches_libsvm(monkeypatch, n_samples, dtype):
    """Pairs of 800 rows keep a float32 Gram matrix (blocks shared by the pairs solved one by
    one), pairs of 200 a float64 one (class strips, the pairs solved in one call): either way
    each kernel value of a class against itself or a later class is computed once, in the
    solver's type, and no other."""
    X, y = _three_classes(n_samples=n_samples)
    computed = []
    original = GramBlocks._block

    def spy(self, data, rows, cols, out):
        block = original(self, data, rows, cols, out)
        computed.append((block.size, np.dtype(data.dtype)))
        return block

    monkeypatch.setattr(GramBlocks, "_block", spy)
    ours = SVC(C=10.0, gamma=0.02).fit(X, y)
    sizes = np.bincount(y)
    assert sum(size for size, _ in computed) == sum(sizes[a] * sizes[b] for a in range(3) for b in range(a, 3))
    assert {value_type for _, value_type in computed} == {np.dtype(dtype)}
    oracle = LibsvmSVC(C=10.0, gamma=0.02).fit(X, y)
    objectives = np.array([m.dual_objective for m in ours.binary_models_])
    np.testing.assert_allclose(objectives, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": 0.02}), rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.995


def test_class_strips_hold_each_class_against_itself_and_the_later_classes():
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    kernel = RBFKernel(gamma=0.05)
    gram = ClassBlockGram(kernel, X, members)
    strips = gram.class_strips()
    assert strips.dtype == np.float64 and strips.nbytes == gram.class_strip_bytes()
    np.testing.assert_array_equal(gram.class_start(), np.cumsum([0] + [m.shape[0] for m in members]))
    expected = [kernel(X[members[k]], X[np.concatenate(members[k:])]).ravel() for k in range(3)]
    np.testing.assert_allclose(strips, np.concatenate(expected), rtol=1e-13)
    # on worker threads, each class's block by one of them: the same values as in turn, with BLAS
    # on one thread either way (as in the fits that take strips)
    with single_threaded_blas():
        np.testing.assert_array_equal(gram.class_strips(lambda function, classes: map_in_threads(function, classes, 2)),
                                      gram.class_strips())


def test_class_strips_of_more_than_4_mb_of_values_are_float32_and_their_fit_is_libsvms(monkeypatch):
    """Class strips of more than 4 MB of float64 values (1,100 rows) are float32, as a Gram
    matrix of as many values would be; each pair is solved on a float32 Gram matrix, and the fit
    matches LIBSVM's (dual objective of each pair, predictions)."""
    X, y = make_classification(n_samples=1100, n_features=10, n_informative=6, n_classes=8,
                               n_clusters_per_class=1, flip_y=0.05, random_state=0)
    members = [np.flatnonzero(y == k) for k in range(8)]
    kernel = RBFKernel(gamma=0.1)
    gram = ClassBlockGram(kernel, X, members)
    assert gram.class_strip_values() * 8 > 4 * 2**20
    strips = gram.class_strips()
    assert strips.dtype == np.float32 and strips.nbytes == gram.class_strip_bytes()
    expected = [kernel(X[members[k]], X[np.concatenate(members[k:])]).ravel() for k in range(8)]
    np.testing.assert_allclose(strips, np.concatenate(expected), rtol=1e-5, atol=1e-6)
    pair_grams = []
    monkeypatch.setattr(_class_blocks, "solve_pairs", lambda *args: pair_grams.append(args[0].dtype) or solve_pairs(*args))
    ours = SVC(C=1.0, gamma=0.1).fit(X, y)
    assert pair_grams and set(pair_grams) == {np.dtype(np.float32)}
    oracle = LibsvmSVC(C=1.0, gamma=0.1).fit(X, y)
    objectives = np.array([m.dual_objective for m in ours.binary_models_])
    np.testing.assert_allclose(objectives, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": 0.1}), rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.995


def test_large_kernel_strips_are_computed_on_worker_threads(monkeypatch):
    """From _PARALLEL_STRIP_WORK multiply-adds the fit's strips are shared out over n_jobs
    workers (one map over the classes), below it computed in turn; the fit is the same."""
    X, y = _three_classes(n_samples=300)
    maps = []
    original = svc_module.map_in_threads
    monkeypatch.setattr(svc_module, "map_in_threads",
                        lambda function, items, n_workers: maps.append(n_workers) or original(function, items, n_workers))
    in_turn = SVC(gamma=0.05, n_jobs=2).fit(X, y)
    assert maps == []
    monkeypatch.setattr(svc_module, "_PARALLEL_STRIP_WORK", 1)
    on_workers = SVC(gamma=0.05, n_jobs=2).fit(X, y)
    assert maps == [2]
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_"):
        np.testing.assert_array_equal(getattr(on_workers, name), getattr(in_turn, name))



@pytest.mark.parametrize("estimator", [SVC(C=10.0, gamma=0.02), NuSVC(nu=0.2, kernel="linear"), SVC(C=1.0, max_iter=20)],
                         ids=["rbf", "nu_linear", "max_iter"])
def test_pair_groups_on_worker_threads_are_the_pairs_in_one_call(monkeypatch, estimator):
    """From _PARALLEL_PAIR_VALUES Gram matrix values the one-call problems are solved in groups
    of consecutive problems on n_jobs workers (one compiled call per group); the fit is the
    one of a single call, bit for bit."""
    X, y = make_classification(n_samples=400, n_features=8, n_informative=6, n_classes=5, random_state=3)
    calls = []
    monkeypatch.setattr(_class_blocks, "solve_pairs", lambda *args: calls.append(args[2].shape[0]) or solve_pairs(*args))
    monkeypatch.setattr(_class_blocks, "solve_linear_pairs",
                        lambda *args: calls.append(args[2].shape[0]) or solve_linear_pairs(*args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        in_one_call = clone(estimator).set_params(n_jobs=2).fit(X, y)
        assert calls == [10]
        monkeypatch.setattr(svc_module, "_PARALLEL_PAIR_VALUES", 1)
        monkeypatch.setattr(_class_blocks, "_GROUP_VALUES", 20_000)  # pairs of some 160 rows: 26,000 values each
        calls.clear()
        in_groups = clone(estimator).set_params(n_jobs=2).fit(X, y)
    assert sorted(calls) == [1] * 10
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_"):
        np.testing.assert_array_equal(getattr(in_groups, name), getattr(in_one_call, name))
    assert [m.gap for m in in_groups.binary_models_] == [m.gap for m in in_one_call.binary_models_]
    assert [m.status for m in in_groups.binary_models_] == [m.status for m in in_one_call.binary_models_]


def test_pair_groups_hold_consecutive_problems_of_about_the_given_values():
    sizes = np.array([100, 100, 100, 300, 50, 50])  # 10,000 values each, 90,000, 2,500 each
    groups = _class_blocks.pair_groups(sizes, per_group=20_000)
    assert groups == [slice(0, 2), slice(2, 4), slice(4, 6)]
    assert _class_blocks.pair_groups(sizes, per_group=1) == [slice(k, k + 1) for k in range(6)]
    assert _class_blocks.pair_groups(sizes, per_group=10**9) == [slice(0, 6)]


def test_solve_pair_groups_makes_smaller_groups_where_a_fit_would_have_few():
    """Groups of at most _GROUP_VALUES values, but of fewer where a fit would have fewer than
    _GROUPS_PER_FIT groups, and of at least _MIN_GROUP_VALUES; each group's variables and
    bounds counted from its start."""
    def groups_of(sizes):
        calls = []
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        _class_blocks.solve_pair_groups(lambda *args: calls.append(args), bounds, lambda f, groups: [f(g) for g in groups])
        return calls

    # 20 problems of 100 rows: 200,000 values, a sixteenth below the least group, 65,536: groups of 7
    calls = groups_of(np.full(20, 100))
    assert [group for group, _, _ in calls] == [slice(0, 7), slice(7, 14), slice(14, 20)]
    assert calls[1][1] == slice(700, 1400)
    np.testing.assert_array_equal(calls[1][2], np.arange(0, 701, 100))
    # 64 problems of 200 rows: 2.56 million values, 160,000 a group (4 problems) ...
    assert [group for group, _, _ in groups_of(np.full(64, 200))] == [slice(k, k + 4) for k in range(0, 64, 4)]
    # ... and 64 problems of 400: 10.24 million values, groups of _GROUP_VALUES (2 problems)
    assert len(groups_of(np.full(64, 400))) == 32

def _fit_both_ways(monkeypatch, estimator, X, y, sample_weight=None):
    """The fit with the pairs in one call, from class strips that hold the values of the
    shared blocks; and the fit with the pairs solved one by one."""
    calls = []
    with monkeypatch.context() as patch:
        patch.setattr(_class_blocks, "_LINEAR_PAIRS_MAX_FEATURES", 0)  # (the strips route for every kernel)
        patch.setattr(_class_blocks, "solve_pairs", lambda *args: calls.append(1) or solve_pairs(*args))
        patch.setattr(
            ClassBlockGram, "class_strips",
            lambda self, map_blocks=None: np.concatenate([
                np.hstack([self.cross_block(a, b, np.float64) for b in range(a, len(self.members))]).ravel()
                for a in range(len(self.members))
            ]),
        )
        in_one_call = clone(estimator).fit(X, y, sample_weight=sample_weight)
    assert len(calls) == 1
    with monkeypatch.context() as patch:
        patch.setattr(svc_module, "pairs_fit_in_one_call", lambda *args: False)
        one_by_one = clone(estimator).fit(X, y, sample_weight=sample_weight)
    return in_one_call, one_by_one


@pytest.mark.parametrize("estimator, weighted", [
    (SVC(C=10.0, gamma=0.02), False),
    (SVC(kernel="linear", C=0.1), False),
    (NuSVC(nu=0.2, gamma=0.02), False),
    (SVC(C=1.0, max_iter=20), False),
    (SVC(C=np.inf, gamma=1.0), False),
    (SVC(C=2.0, gamma=0.05, class_weight="balanced"), True),
    (SVC(kernel="poly", degree=2, C=0.5, shrinking=False), False),
], ids=["rbf", "linear", "nu", "max_iter", "hard_margin", "weights", "poly_no_shrinking"])
def test_pairs_in_one_call_are_the_pairs_solved_one_by_one(monkeypatch, estimator, weighted):
    """The same kernel values give the same multipliers, bias, steps and status, bit for bit
    (sample weights with zeros: bounds of 0)."""
    X, y = _three_classes(n_samples=300)
    X, y = X[:240], np.where(np.arange(240) < 30, 2, y[:240])  # classes of unequal sizes
    sample_weight = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 3.0], size=y.shape[0]) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        in_one_call, one_by_one = _fit_both_ways(monkeypatch, estimator, X, y, sample_weight)
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_"):
        np.testing.assert_array_equal(getattr(in_one_call, name), getattr(one_by_one, name))
    assert [m.status for m in in_one_call.binary_models_] == [m.status for m in one_by_one.binary_models_]
    assert [m.gap for m in in_one_call.binary_models_] == [m.gap for m in one_by_one.binary_models_]


def test_pairs_in_one_call_take_the_face_steps_of_long_solves_as_one_by_one(monkeypatch):
    """Long solves try Newton steps on the face of all free multipliers at the solver's returns
    (here every 50 steps, from more than 4 free multipliers) in the one call too: the fit is
    that of the pairs solved one by one, bit for bit, where such steps were taken."""
    import svmkit._solver

    X, y = _three_classes(n_samples=300)
    X, y = X[:240], y[:240]
    monkeypatch.setattr(svmkit._solver, "_FACE_MAX_FREE", 4)
    monkeypatch.setattr(svmkit._solver, "_FACE_PERIOD_PER_VARIABLE", 0)
    monkeypatch.setattr(svmkit._solver, "_STEPS_PER_CALL", 50)
    tries = []
    original = svmkit._solver.full_gram_round
    monkeypatch.setattr(svmkit._solver, "full_gram_round", lambda *args: tries.append(original(*args)) or tries[-1])
    in_one_call, one_by_one = _fit_both_ways(monkeypatch, SVC(kernel="linear", C=1.0, tol=1e-6), X, y)
    assert sum(taken for *_, taken in tries) > 0  # (one by one, through solve_dual)
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_"):
        np.testing.assert_array_equal(getattr(in_one_call, name), getattr(one_by_one, name))
    assert [m.gap for m in in_one_call.binary_models_] == [m.gap for m in one_by_one.binary_models_]


@pytest.mark.parametrize("estimator", [SVC(kernel="linear", C=0.5, tol=1e-8), NuSVC(nu=0.5, kernel="linear", tol=1e-8)],
                         ids=["c", "nu"])
def test_linear_pairs_from_their_rows_are_the_pairs_from_the_class_strips(monkeypatch, estimator):
    """With the linear kernel and few features each pair's Gram matrix is the product of its
    rows (solve_linear_pairs), not read from the class strips: solved to a small tol, the same
    optimum (the kernel values round differently, so SMO takes other steps)."""
    X, y = _three_classes(n_samples=300)
    calls = []
    monkeypatch.setattr(_class_blocks, "solve_linear_pairs",
                        lambda *args: calls.append("pair rows") or solve_linear_pairs(*args))
    monkeypatch.setattr(_class_blocks, "solve_pairs", lambda *args: calls.append("strips") or solve_pairs(*args))
    from_rows = clone(estimator).fit(X, y)
    monkeypatch.setattr(_class_blocks, "_LINEAR_PAIRS_MAX_FEATURES", X.shape[1] - 1)
    from_strips = clone(estimator).fit(X, y)
    assert calls == ["pair rows", "strips"]
    np.testing.assert_allclose(from_rows.dual_objective_, from_strips.dual_objective_, rtol=1e-10)
    np.testing.assert_allclose(from_rows.decision_function(X), from_strips.decision_function(X), atol=1e-6)


@pytest.mark.parametrize("n_samples", [150, 300])  # (the Gram matrix of all rows; class strips)
def test_pairs_in_one_call_warn_at_the_step_limit_and_report_progress_once_each(n_samples):
    X, y = _three_classes(n_samples=n_samples)
    reports = []
    with pytest.warns(ConvergenceWarning, match="max_iter=20") as caught:
        model = SVC(C=1.0, max_iter=20, callback=reports.append).fit(X, y)
    if n_samples <= svc_module._ONE_VS_ONE_ALL_ROWS:
        assert {warning.filename for warning in caught} == {__file__}  # (the line that called fit)
    assert list(model.n_iter_) == [20, 20, 20]
    assert [(r.n_iter, r.n_variables) for r in reports] == [(20, int(m.indices.shape[0])) for m in model.binary_models_]


def test_pairs_fit_in_one_call_only_small_one_vs_one_problems_within_the_cache():
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    pairs = [(0, 1), (0, 2), (1, 2)]
    gram = ClassBlockGram(RBFKernel(gamma=0.05), X, members)
    strips_mb = gram.class_strip_bytes() / 2**20
    assert pairs_fit_in_one_call(gram, pairs, cache_size=2 * strips_mb)
    assert not pairs_fit_in_one_call(gram, pairs, cache_size=2 * strips_mb * 0.99)
    assert not pairs_fit_in_one_call(gram, [(0, None), (1, None), (2, None)], cache_size=200)
    assert not pairs_fit_in_one_call(GramBlocks(RBFKernel(gamma=0.05), X), pairs, cache_size=200)
    X_large, y_large = _three_classes(n_samples=1200)  # pairs of 800 rows: a float32 Gram matrix
    large = ClassBlockGram(RBFKernel(gamma=0.05), X_large, [np.flatnonzero(y_large == k) for k in range(3)])
    assert not pairs_fit_in_one_call(large, pairs, cache_size=200)


def test_problems_without_a_row_of_their_classes_are_not_solved_in_one_call():
    """nu-SVC leaves out samples of weight 0: such problems are solved one by one."""
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    gram = ClassBlockGram(RBFKernel(gamma=0.05), X, members)
    pairs = [(0, 1), (0, 2), (1, 2)]
    problems = []
    for a, b in pairs:
        rows = np.concatenate([members[a], members[b]])
        problems.append(c_svc_dual(rows, np.where(y[rows] == a, 1.0, -1.0), np.ones(rows.shape[0])))
    assert solve_pairs_in_one_call(gram, problems, pairs, 1e-3, -1, True) is not None
    problems[1] = c_svc_dual(problems[1].rows[1:], problems[1].y[1:], problems[1].upper[1:])
    assert solve_pairs_in_one_call(gram, problems, pairs, 1e-3, -1, True) is None
    weights = np.ones(y.shape[0])
    weights[members[0][0]] = 0.0
    ours = NuSVC(nu=0.2, gamma=0.02).fit(X, y, sample_weight=weights)
    oracle = LibsvmNuSVC(nu=0.2, gamma=0.02).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.intercept_, oracle.intercept_, atol=1e-2)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.99


def test_float64_pair_rows_equal_the_directly_computed_rows():
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    gram = ClassBlockGram(RBFKernel(gamma=0.05), X, members)
    rows = np.concatenate([members[1], members[0]])
    wanted = np.random.default_rng(1).permutation(rows.shape[0])[:40]
    block = gram.subset(rows).block(wanted)
    assert block.dtype == np.float64
    np.testing.assert_allclose(block, GramBlocks(RBFKernel(gamma=0.05), X[rows]).block(wanted), rtol=1e-13)


def test_docstring_example():
    result = doctest.testmod(_class_blocks)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("function", [assemble_pair_gram, solve_linear_pairs, solve_pairs, solve_subsets, solve_c_svc_pairs,
                                      solve_c_svc_pairs_on_own_rows])
def test_compiled_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0


def test_pair_blocks_with_columns_come_from_the_shared_blocks():
    """A pair's square blocks (shrunk sub-problems, working sets) match the kernel, and no copy
    of the pair's data is made or counted against the cache."""
    X, y = _three_classes()
    members = [np.flatnonzero(y == k) for k in range(3)]
    gram = ClassBlockGram(RBFKernel(gamma=0.05), X, members)
    pair = gram.subset(np.concatenate([members[0], members[2]]))
    rows = np.array([3, 0, len(members[0]) + 4])
    pair_rows = X[np.concatenate([members[0], members[2]])][rows]
    expected = RBFKernel(gamma=0.05)(pair_rows, pair_rows)
    np.testing.assert_allclose(pair.block32(rows, rows), expected, rtol=1e-6)
    assert pair.float32_copy_bytes() == 0 and pair._X is None


def test_pairs_in_one_call_from_sparse_data_match_the_dense_fit():
    X, y = _three_classes(n_samples=300)
    X[np.abs(X) < 0.8] = 0.0  # about half the values
    dense = SVC(C=10.0, gamma=0.02).fit(X, y)
    sparse = SVC(C=10.0, gamma=0.02).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose([m.dual_objective for m in sparse.binary_models_],
                               [m.dual_objective for m in dense.binary_models_], rtol=1e-9)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


def test_each_worker_thread_keeps_its_square_memory_from_problem_to_problem():
    gram = ClassBlockGram(RBFKernel(gamma=0.1), np.zeros((60, 2)), [np.arange(30), np.arange(30, 60)])
    first = gram.square_memory(30, np.float32)
    second = gram.square_memory(20, np.float64)
    assert second.shape == (20, 20) and second.dtype == np.float64 and np.shares_memory(first, second)
    assert gram.square_memory(40, np.float64).nbytes == 40 * 40 * 8  # grown for a larger problem
    other = []
    worker = threading.Thread(target=lambda: other.append(gram.square_memory(20, np.float64)))
    worker.start()
    worker.join()
    assert not np.shares_memory(other[0], gram.square_memory(20, np.float64))


@pytest.mark.parametrize("memory", ["square", "scratch"])
def test_one_vs_one_fits_read_nothing_that_an_earlier_problem_left_in_the_reused_memory(monkeypatch, memory):
    """The pairs of one worker reuse its memory (the matrix its rows are copied into, or the
    scratch places of the cross blocks below the within-class blocks): a fit in which that
    memory holds NaN at the start of every problem gives the same model, to the bit."""
    X, y = _three_classes(n_samples=1200)
    expected = SVC(C=10.0, gamma=0.02, n_jobs=1).fit(X, y)
    if memory == "square":
        monkeypatch.setattr(_class_blocks._PairGram, "splits_rows", False)
        original = ClassBlockGram.square_memory

        def filled_with_nan(self, n, dtype):
            memory = original(self, n, dtype)
            memory.fill(np.nan)
            return memory

        monkeypatch.setattr(ClassBlockGram, "square_memory", filled_with_nan)
    else:
        original = ClassBlockGram.scratch_place

        @contextlib.contextmanager
        def scratch_with_nan(self):
            with original(self) as place:
                for k, blocks in enumerate(self._class_blocks):
                    for rows in blocks.values():
                        first = self.scratch_rows(k, place)
                        rows[first : first + self._partner_rows[k]] = np.nan
                yield place

        monkeypatch.setattr(ClassBlockGram, "scratch_place", scratch_with_nan)
    model = SVC(C=10.0, gamma=0.02, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(model.dual_coef_, expected.dual_coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)


@pytest.mark.parametrize("kernel", [RBFKernel(gamma=0.02), LinearKernel()])
def test_pairs_solved_on_their_stored_rows_are_those_solved_on_copies(kernel):
    """A one-vs-one problem whose rows are read from the shared blocks where they are stored
    (its cross blocks computed into, and transposed into, scratch places) is the problem
    solved on its rows copied into a matrix of their own, to the bit."""
    X, y = _three_classes(n_samples=1200)
    members = [np.flatnonzero(y == k) for k in range(3)]
    rows = np.concatenate([members[1], members[2]])
    labels = np.repeat([1.0, -1.0], [members[1].shape[0], members[2].shape[0]])
    problem = c_svc_dual(rows, labels, np.full(rows.shape[0], 10.0))
    solutions = []
    for n_scratch in (1, 0):
        gram = ClassBlockGram(kernel, X, members, n_scratch=n_scratch)
        assert gram.subset(rows).splits_rows == (n_scratch > 0)
        solutions.append(solve_dual(gram, problem))
    on_parts, on_copies = solutions
    assert on_parts.n_iter == on_copies.n_iter > 0
    np.testing.assert_array_equal(on_parts.alpha, on_copies.alpha)
    np.testing.assert_array_equal(on_parts.grad, on_copies.grad)


def test_a_pair_read_where_its_rows_are_stored_needs_no_room_for_its_gram_matrix():
    """No n x n matrix is formed: the full-Gram solver reads the pair's stored rows also where
    its own matrix would not fit the cache left to the problem (1 MB for 800 x 800 floats)."""
    X, y = _three_classes(n_samples=1200)
    members = [np.flatnonzero(y == k) for k in range(3)]
    rows = np.concatenate([members[0], members[1]])
    labels = np.repeat([1.0, -1.0], [members[0].shape[0], members[1].shape[0]])
    problem = c_svc_dual(rows, labels, np.full(rows.shape[0], 10.0))
    stored = solve_dual(ClassBlockGram(RBFKernel(gamma=0.02), X, members, n_scratch=1), problem, cache_size=1)
    copied = solve_dual(ClassBlockGram(RBFKernel(gamma=0.02), X, members), problem, cache_size=1)
    assert stored.strategy == "full-gram" and copied.strategy != "full-gram"


@pytest.mark.parametrize("shrinking", [True, False])
def test_pairs_built_solved_and_read_in_one_call_are_those_of_the_separate_steps(shrinking):
    """The one-vs-one problems on the Gram matrix of all rows built, solved, read and laid out
    in one compiled call (c_svc_pairs_in_one_call) are, bit for bit, those of the steps one
    after another: c_svc_pair_duals, solve_subsets_in_one_call, c_svc_solutions and
    libsvm_layout_and_objectives."""
    from itertools import combinations

    from svmkit._core.labels import class_order
    from svmkit._core.libsvm_layout import libsvm_layout_and_objectives
    from svmkit._solver import PrecomputedGram
    from svmkit._stacked import solve_subsets_in_one_call
    from svmkit.svm._formulations import c_svc_pair_duals, c_svc_pairs_in_one_call, c_svc_solutions

    X, y = make_classification(n_samples=200, n_features=6, n_informative=5, n_redundant=0, n_classes=4,
                               n_clusters_per_class=1, flip_y=0.1, random_state=2)
    order, class_start = class_order(y, 4)
    upper = np.random.default_rng(0).choice([0.5, 1.0, 2.0], size=y.shape[0])
    gram = PrecomputedGram(RBFKernel(gamma=0.2)(X, X), rows_are_copies=True)
    pairs = list(combinations(range(4), 2))
    duals, solutions, biases, margins, model = c_svc_pairs_in_one_call(gram.K, y, 4, upper, pairs, 1e-3, -1,
                                                                       shrinking)
    step_duals = c_svc_pair_duals(order, class_start, upper, pairs)
    step_solutions = solve_subsets_in_one_call(gram, step_duals, 200, 1e-3, -1, shrinking)
    step_biases, step_margins = c_svc_solutions(step_duals, step_solutions)
    first, second = np.array(pairs).T
    step_model = libsvm_layout_and_objectives(
        step_duals.bounds, step_duals.rows, step_duals.y, step_solutions.alpha, step_duals.upper, step_margins,
        step_biases, y, y.shape[0], 4, first, second)
    for array, step_array in zip(model, step_model, strict=True):
        np.testing.assert_array_equal(array, step_array)
    for name in ("bounds", "rows", "y", "p", "upper", "alpha0"):
        np.testing.assert_array_equal(getattr(duals, name), getattr(step_duals, name))
    for name in ("alpha", "grad", "gap", "n_iter", "status"):
        np.testing.assert_array_equal(getattr(solutions, name), getattr(step_solutions, name))
    assert solutions.strategies == step_solutions.strategies
    np.testing.assert_array_equal(biases, step_biases)
    np.testing.assert_array_equal(margins, step_margins)
    assert solutions.n_iter.min() > 10  # (problems that took steps)


@pytest.mark.parametrize("kernel", [LinearKernel(), RBFKernel(gamma=0.2)], ids=["linear", "rbf"])
def test_pairs_on_their_own_rows_are_the_pairs_on_the_gram_matrix_of_those_rows(kernel):
    """The one-vs-one problems solved on kernel rows computed in the call as each solver asks
    for them (c_svc_pairs_on_own_rows_in_one_call) are, bit for bit, those solved on the Gram
    matrix of the same values (kernel_matrix: the rows of kernel_row) with the same diagonal."""
    from itertools import combinations

    from svmkit._core.kernel_blocks import kernel_matrix
    from svmkit._solver import compiled_row_kernel
    from svmkit.svm._formulations import c_svc_pairs_in_one_call, c_svc_pairs_on_own_rows_in_one_call

    X, y = make_classification(n_samples=200, n_features=6, n_informative=5, n_redundant=0, n_classes=4,
                               n_clusters_per_class=1, flip_y=0.1, random_state=2)
    upper = np.random.default_rng(0).choice([0.5, 1.0, 2.0], size=y.shape[0])
    pairs = list(combinations(range(4), 2))
    row_kernel = compiled_row_kernel(GramBlocks(kernel, X))
    K = np.empty((200, 200))
    kernel_matrix(*row_kernel, K)
    own_rows = c_svc_pairs_on_own_rows_in_one_call(row_kernel, np.diagonal(K).copy(), y, 4, upper, pairs, 1e-3, -1,
                                                   True)
    on_gram = c_svc_pairs_in_one_call(K, y, 4, upper, pairs, 1e-3, -1, True)
    for array, gram_array in zip(own_rows[4], on_gram[4], strict=True):  # (the layout and objectives)
        np.testing.assert_array_equal(array, gram_array)
    for name in ("alpha", "grad", "gap", "n_iter", "status"):
        np.testing.assert_array_equal(getattr(own_rows[1], name), getattr(on_gram[1], name))
    np.testing.assert_array_equal(own_rows[2], on_gram[2])
    assert own_rows[1].n_iter.min() > 10


def test_duals_built_and_read_at_once_are_those_of_one_problem_at_a_time(monkeypatch):
    """C-SVC's one-vs-one duals built at once (c_svc_pair_duals) hold the rows, labels and
    bounds of each problem's own dual, and their solutions read at once (c_svc_solutions) the
    same multipliers, biases and margins: the fit is the same, bit for bit."""
    from svmkit.svm import _formulations
    from svmkit.svm._formulations import c_svc_pair_duals, c_svc_solution, c_svc_solutions

    X, y = make_classification(n_samples=300, n_features=6, n_informative=5, n_redundant=0, n_classes=5,
                               n_clusters_per_class=1, random_state=1)
    members = [np.flatnonzero(y == k) for k in range(5)]
    upper = np.random.default_rng(0).choice([0.5, 1.0, 2.0], size=y.shape[0])
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    duals = c_svc_pair_duals(np.concatenate(members), np.cumsum([0] + [rows.shape[0] for rows in members]), upper, pairs)
    for dual, (a, b) in zip(duals, pairs):
        rows = np.concatenate([members[a], members[b]])
        one = c_svc_dual(rows, np.where(y[rows] == a, 1.0, -1.0), upper[rows])
        for name in ("rows", "y", "p", "upper", "alpha0"):
            np.testing.assert_array_equal(getattr(dual, name), getattr(one, name))
    solutions = [solve_dual(GramBlocks(RBFKernel(gamma=0.2), X), dual) for dual in duals]
    biases, margins = c_svc_solutions(duals, solutions)
    for k, (dual, solution) in enumerate(zip(duals, solutions)):
        _, one_b, one_yf = c_svc_solution(dual, solution)
        assert biases[k] == one_b
        np.testing.assert_array_equal(margins[duals.bounds[k] : duals.bounds[k + 1]], one_yf)
    at_once = SVC(C=2.0, gamma=0.2).fit(X, y)
    monkeypatch.setattr(SVC, "_duals_at_once", lambda self, n_problems: False)
    one_at_a_time = SVC(C=2.0, gamma=0.2).fit(X, y)
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_", "dual_objective_"):
        np.testing.assert_array_equal(getattr(at_once, name), getattr(one_at_a_time, name))
    result = doctest.testmod(_formulations)
    assert result.attempted > 0 and result.failed == 0
