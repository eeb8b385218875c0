"""The within-class kernel blocks shared by one-vs-one problems (svmkit._class_blocks)."""

import doctest

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.svm import SVC as LibsvmSVC

from svmkit import SVC
from svmkit import _class_blocks
from svmkit._class_blocks import ClassBlockGram, shared_class_blocks
from svmkit._solver import GramBlocks
from svmkit.kernels import RBFKernel
from test_svc_libsvm import libsvm_pair_objectives


def _three_classes(n_samples=1200, n_features=30, seed=0):
    X, y = make_classification(
        n_samples=n_samples, n_features=n_features, n_informative=10, n_classes=3, flip_y=0.05, random_state=seed
    )
    return X, y


def test_pair_rows_equal_the_directly_computed_rows():
    X, y = _three_classes(n_samples=300)
    members = [np.flatnonzero(y == k) for k in range(3)]
    kernel = RBFKernel(gamma=0.05)
    gram = ClassBlockGram(kernel, X, members)
    rows = np.concatenate([members[2], members[0]])  # classes 2 and 0, in that order
    pair = gram.subset(rows)
    direct = GramBlocks(kernel, X[rows])
    wanted = np.random.default_rng(0).permutation(rows.shape[0])[:50]  # both classes, any order
    np.testing.assert_allclose(pair.block32(wanted), direct.block32(wanted), rtol=1e-6, atol=1e-7)
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
    assert isinstance(shared, ClassBlockGram) and per_worker == pytest.approx((200 - shared_mb) / 2)
    too_small = 2 * shared_mb * 0.99
    assert shared_class_blocks(gram, members, pairs, cache_size=too_small, n_workers=2) == (gram, too_small / 2)
    assert shared_class_blocks(gram, members, [(0, None), (1, None)], 200, 2)[0] is gram  # one-vs-rest


@pytest.mark.parametrize("n_samples, dtype", [(1200, np.float32), (300, np.float64)])
def test_one_vs_one_fit_computes_each_class_block_once_and_matches_libsvm(monkeypatch, n_samples, dtype):
    """Pairs of 800 rows keep a float32 Gram matrix, pairs of 200 a float64 one: either way
    the kernel values come from blocks computed once, in the solver's type."""
    X, y = _three_classes(n_samples=n_samples)
    computed = []
    original = ClassBlockGram.cross_block

    def spy(self, a, b, block_dtype):
        computed.append((a, b, np.dtype(block_dtype)))
        return original(self, a, b, block_dtype)

    monkeypatch.setattr(_class_blocks.ClassBlockGram, "cross_block", spy)
    ours = SVC(C=10.0, gamma=0.02).fit(X, y)
    # each within-class block once, and one cross block per pair: no other kernel values
    assert sorted(computed) == [(a, b, np.dtype(dtype)) for a, b in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]]
    oracle = LibsvmSVC(C=10.0, gamma=0.02).fit(X, y)
    objectives = np.array([m.dual_objective for m in ours.binary_models_])
    np.testing.assert_allclose(objectives, libsvm_pair_objectives(oracle, X, "rbf", {"gamma": 0.02}), rtol=1e-4)
    assert np.mean(ours.predict(X) == oracle.predict(X)) >= 0.995


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
