"""Decision values of the kernel machines (svmkit.svm._decisions): float32 dot products where
the data's values lie on a grid that makes them exact (binary and count features), float64
ones elsewhere; features that mostly hold one value (one-hot, binary) summed over their other
entries; all against the kernels' formulas (tests/naive.py)."""

import bz2
import doctest
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits, load_svmlight_file, make_classification

from svmkit import SVC, SVR, _exact
from svmkit._core.kernels import POLYNOMIAL, RBF
from svmkit._features import SAMPLE_ROWS
from svmkit._plan import exact_float32_pays, sparse_test_products_pay
from svmkit.svm import _decisions
from svmkit.svm._decisions import support_split
from naive import kernel_by_formula

DATA = Path(__file__).parent / "data"


def _a9a():
    """a9a's first 21,000 rows (UCI Adult, 123 binary features)."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    return X.toarray(), y


def _binary_model(X, y, estimator):
    """An RBF model of a9a's rows with enough support vectors for exact float32 products."""
    model = estimator(C=1.0, gamma=0.05).fit(X[:3500], y[:3500])
    assert exact_float32_pays(*model.support_vectors_.shape)
    return model


def _decisions_by_formula(model, X, code, gamma, coef0=0.0, degree=3.0):
    """The decision values of a fitted one-function model from the kernel's formula, and the
    sum of the magnitudes of their terms (the scale of their round-off)."""
    K = kernel_by_formula(code, gamma, coef0, degree, X, model.support_vectors_)
    terms = K * model.dual_coef_[0]
    return terms.sum(axis=1) + model.intercept_[0], np.abs(terms).sum(axis=1) + abs(model.intercept_[0])


def _assert_agrees_with_formula(model, X, code, gamma, coef0=0.0, degree=3.0):
    checked = X[::25]  # (the formula one pair at a time: a sample of the rows)
    checked = checked.toarray() if sp.issparse(checked) else checked
    expected, scale = _decisions_by_formula(model, checked, code, gamma, coef0, degree)
    ours = (model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X))[::25]
    # (float32 products that were not exact would be off by about 1e-8 of the scale)
    assert np.max(np.abs(ours - expected) / scale) < 1e-13


@pytest.mark.parametrize("module", [_decisions, _exact])
def test_module_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def _split_of(model, centred=True):
    """The split of a model's support vectors into dense and sparse features."""
    split = support_split(model.support_vectors_, centred)
    assert split is not None and split.sparse.size > 80  # (of a9a's 123 features)
    return split


def _one_vs_one_by_formula(model, X, gamma):
    """LIBSVM's one-vs-one decision values from the RBF formula and ``dual_coef_`` (the support
    vectors of class ``a`` with their coefficients against ``b``, those of ``b`` against ``a``),
    and the sum of the magnitudes of their terms."""
    K = kernel_by_formula(RBF, gamma, 0.0, 3.0, X, model.support_vectors_)
    bounds = np.concatenate([[0], np.cumsum(model.n_support_)])
    n_classes = model.classes_.shape[0]
    values, scales = [], []
    for p, (a, b) in enumerate((a, b) for a in range(n_classes) for b in range(a + 1, n_classes)):
        of_a, of_b = slice(bounds[a], bounds[a + 1]), slice(bounds[b], bounds[b + 1])
        terms = np.hstack([K[:, of_a] * model.dual_coef_[b - 1, of_a], K[:, of_b] * model.dual_coef_[a, of_b]])
        values.append(terms.sum(axis=1) + model.intercept_[p])
        scales.append(np.abs(terms).sum(axis=1) + abs(model.intercept_[p]))
    return np.column_stack(values), np.column_stack(scales)


@pytest.mark.parametrize("data", ["digits", "gaussian"])
def test_one_vs_one_decisions_of_many_classes_are_the_formula_class_by_class(data):
    """One-vs-one predictions of many rows and classes multiply the kernel values by each
    class's coefficients (:class:`PairCoefficients`): the same values as LIBSVM's formula, on
    digits (pixels mostly 0: the split products) and on Gaussian features (the plain ones)."""
    if data == "digits":
        X, y = load_digits(return_X_y=True)
        gamma = 0.001
    else:
        X, y = make_classification(n_samples=2400, n_features=12, n_informative=8, n_classes=5, random_state=3)
        gamma = 0.1
    model = SVC(gamma=gamma, decision_function_shape="ovo").fit(X[::2], y[::2])
    X = np.vstack([X, X[::-1]])  # (enough kernel values for the class-by-class products)
    assert model._prediction_parts()[1].pays(X.shape[0])
    expected, scale = _one_vs_one_by_formula(model, X[::37], gamma)
    ours = model.decision_function(X)[::37]
    assert np.max(np.abs(ours - expected) / scale) < 1e-13


@pytest.mark.parametrize("kernel, code", [("rbf", RBF), ("poly", POLYNOMIAL)])
def test_few_rows_against_few_support_vectors_are_the_formula_and_the_rows_of_a_large_prediction(kernel, code):
    """A prediction of a few rows against a few support vectors (one block, without the
    set-up of larger ones) gives the formula's decision values, and those the same rows get
    among many (blocks over threads, parts of the support vectors)."""
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    model = SVC(kernel=kernel, gamma=0.05, coef0=1.0, degree=3).fit(X[::2], y[::2])
    few = X[1::2][:40]
    assert few.shape[0] * model.support_vectors_.shape[0] < _decisions.PARALLEL_PREDICT_VALUES
    expected, scale = _decisions_by_formula(model, few, code, 0.05, 1.0, 3.0)
    ours = model.decision_function(few)
    assert np.max(np.abs(ours - expected) / scale) < 1e-13
    many = np.vstack([few] * 400)  # (past PARALLEL_PREDICT_VALUES: blocks on threads)
    assert many.shape[0] * model.support_vectors_.shape[0] >= _decisions.PARALLEL_PREDICT_VALUES
    among_many = model.decision_function(many)
    assert np.max(np.abs(among_many[-40:] - ours) / scale) < 1e-13
    assert np.array_equal(model.predict(few), np.where(ours > 0, model.classes_[1], model.classes_[0]))


@pytest.mark.parametrize("flipped", [False, True])
def test_binary_features_are_predicted_over_their_entries_off_the_median_as_in_float64(flipped):
    """a9a's binary features (11% ones), also flipped (89% ones): centred on the median, 96 of
    123 features are sparse, the other 27 on the grid of integers, so their products are taken
    in float32; 4,000 test rows against as many support vectors as make the float32 products
    pay, in blocks spread over threads."""
    X, y = _a9a()
    if flipped:
        X = 1.0 - X
    model = _binary_model(X, y, SVC)
    assert _split_of(model).dense_grid == (0, 1.0)
    _assert_agrees_with_formula(model, X[5000:9000], RBF, 0.05)


def test_binary_features_scaled_to_plus_minus_one_with_continuous_ones_are_predicted_as_in_float64():
    """a9a's features mapped to [-1, 1] (as svm-scale maps binary ones: no zeros left) beside
    five continuous ones, as covtype.binary's: the sparse features summed over their entries
    off the median, the dense ones, off any grid, by float64 products."""
    X, y = _a9a()
    continuous = np.random.default_rng(0).uniform(-1.0, 1.0, size=(X.shape[0], 5))
    X = np.hstack([continuous, 2.0 * X - 1.0])
    model = _binary_model(X, y, SVC)
    split = _split_of(model)
    assert split.dense_grid is None and set(range(5)) <= set(split.dense)
    _assert_agrees_with_formula(model, X[5000:9000], RBF, 0.05)


@pytest.mark.parametrize("n_train, over_nonzeros", [(3500, True), (7000, False)])
def test_sparse_test_rows_are_predicted_as_in_float64(n_train, over_nonzeros):
    """a9a's rows as CSR: against few support vectors, products over their nonzeros (compiled
    loops), which agree with the formula and, up to the rounding of the products, with the
    dense rows' decisions; against many, the rows made dense (at once, being few) for the
    dense rows' split: their very decisions."""
    X, y = _a9a()
    model = SVC(C=1.0, gamma=0.05).fit(X[:n_train], y[:n_train])
    test = sp.csr_matrix(X[9000:13000])
    density = test.nnz / (test.shape[0] * test.shape[1])
    assert sparse_test_products_pay(density, *model.support_vectors_.shape) == over_nonzeros
    _assert_agrees_with_formula(model, test, RBF, 0.05)
    dense = model.decision_function(X[9000:13000])
    if over_nonzeros:
        np.testing.assert_allclose(model.decision_function(test), dense, rtol=1e-11, atol=1e-11)
    else:
        np.testing.assert_array_equal(model.decision_function(test), dense)


def test_polynomial_kernels_split_features_without_centring_them():
    """The polynomial kernel's values are not those of ``x - y``: a9a's zeros are the sparse
    features' entries left out."""
    X, y = _a9a()
    model = _binary_model(X, y, lambda **kw: SVC(kernel="poly", degree=2, coef0=1.0, **kw))
    assert not _split_of(model, centred=False).centre.any()
    _assert_agrees_with_formula(model, X[5000:9000], POLYNOMIAL, 0.05, 1.0, 2.0)


def test_test_rows_off_the_grid_of_binary_support_vectors_are_predicted_in_float64():
    X, y = _a9a()
    model = _binary_model(X, y, SVC)
    _assert_agrees_with_formula(model, X[5000:9000] + 1.0 / 3.0, RBF, 0.05)


def test_a_split_holds_the_support_vectors_centred():
    """Every feature in one part of the split, whose parts are the centred rows."""
    X, _ = _a9a()
    rows = np.hstack([np.random.default_rng(1).normal(size=(3000, 4)), 2.0 * X[:3000] - 1.0])
    split = support_split(rows, centred=True)
    rebuilt = np.empty_like(rows)
    rebuilt[:, split.dense] = split.dense_rows
    rebuilt[:, split.sparse] = np.hstack(split.sparse_parts).T
    np.testing.assert_array_equal(rebuilt, rows - split.centre)
    np.testing.assert_array_equal(np.sort(np.concatenate([split.dense, split.sparse])), np.arange(127))
    np.testing.assert_allclose(split.sq_norms, ((rows - split.centre) ** 2).sum(axis=1), rtol=1e-15)
    # (the sparse features are those of at most 1/8 entries among the rows that decide, 512 of
    # them spread over all)
    decided = np.hstack(split.sparse_parts)[:, ::3000 // SAMPLE_ROWS]
    assert np.all(np.count_nonzero(decided, axis=1) <= 0.125 * decided.shape[1])


def test_a_split_is_made_a_part_of_the_support_vectors_at_a_time():
    """The split of a model's support vectors takes little memory beside what it keeps: a
    part of them at a time, no transposed copy of them all (a cascade's check of covtype's
    rows against 180,000 support vectors took 235 MB more, its split 88 MB of it)."""
    import tracemalloc

    X, _ = _a9a()
    rows = np.hstack([np.random.default_rng(1).normal(size=(X.shape[0], 4)), 2.0 * X - 1.0])
    tracemalloc.start()
    split = support_split(rows, centred=True)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert split is not None and len(split.sparse_parts) > 1
    assert peak - kept < rows.nbytes / 4


def test_quarters_are_predicted_as_in_float64():
    """Values on a grid of 1/4 (binary features halved and shifted): exact in float32 too."""
    X, y = _a9a()
    X = X * 0.5 - 0.25
    model = _binary_model(X, y, SVR)
    _assert_agrees_with_formula(model, X[5000:9000], RBF, 0.05)


@pytest.mark.parametrize("largest", [15, 3000])
def test_counts_are_predicted_as_in_float64_whatever_their_size(largest):
    """Integer counts: products up to 20 x 15 x 15 are exact in float32; up to 20 x 3000 x 3000
    (above 2^24) they are not, and are taken in float64."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, largest + 1, size=(4000, 20)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, largest + 1, size=4000) > 1.5 * largest).astype(np.float64)
    gamma = 1.0 / (20 * largest**2)
    model = SVC(kernel="poly", degree=2, gamma=gamma, coef0=1.0, C=1.0).fit(X, y)
    assert exact_float32_pays(*model.support_vectors_.shape)
    _assert_agrees_with_formula(model, X, POLYNOMIAL, gamma, 1.0, 2.0)


@pytest.mark.parametrize("large", [6000, 2**21])
def test_a_large_count_among_small_ones_is_predicted_as_in_float64(large):
    """Test rows of small counts with one large one each: 200 features times 6,000 times the
    support vectors' largest count, 15, pass 2^24, but the rows' sums (about 6,000 + 1,500) do
    not, so the products are exact in float32 and taken so; with 2^21 the sums pass 2^24 too,
    and the products are taken in float64."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 16, size=(3000, 200)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 16, size=3000) > 22).astype(np.float64)
    gamma = 1.0 / (200 * 15**2)
    model = SVC(kernel="poly", degree=2, gamma=gamma, coef0=1.0, C=1.0).fit(X, y)
    assert exact_float32_pays(*model.support_vectors_.shape)
    test = X[:1000].copy()
    test[np.arange(1000), rng.integers(0, 200, size=1000)] = large
    grid = model._prediction_model().float32_rows()[1]
    assert grid == (0, 15.0) and _exact.exact_in_float32(test, grid) == (large == 6000)
    _assert_agrees_with_formula(model, test, POLYNOMIAL, gamma, 1.0, 2.0)


def test_the_grid_of_many_values_is_the_finest_any_of_them_needs():
    """The first 256 values' grid, checked on all of them, or where a later value is off it,
    the grid read from every value's bits: the grid of all the values either way."""
    coarse_first = np.concatenate([np.arange(300.0), [0.5, -2.25]])
    assert _exact.float32_grid(coarse_first) == _exact.dyadic_grid(coarse_first) == (2, 299 * 4.0)
    on_the_first_grid = np.concatenate([np.arange(0.0, 150.0, 0.5), [-7.5]])
    assert _exact.float32_grid(on_the_first_grid) == _exact.dyadic_grid(on_the_first_grid) == (1, 299.0)
    assert _exact.float32_grid(np.concatenate([np.arange(300.0), [0.1]])) is None
    assert _exact.float32_grid(np.concatenate([np.arange(300.0), [2.0**25]])) is None
    # (a first value off every grid float32 holds: none, whatever the others; the grid of all of
    # them is at least as fine as the first values', and reaches at least as far)
    off_first = np.concatenate([[0.1], np.arange(300.0)])
    assert _exact.float32_grid(off_first) is None and _exact.dyadic_grid(off_first)[1] > 2.0**24


def _crossed_a9a(n_rows):
    """a9a's first rows with their pairwise conjunctions hashed into 2^20 columns (the feature
    crosses of sparse categorical data): about 100 nonzeros a row among a million columns, as
    in bag-of-words text rows (the rows of benchmarks/svc.py's ``a9a-crossed``)."""
    with bz2.open(DATA / "a9a_21000.bz2") as handle:
        X, y = load_svmlight_file(handle, n_features=123)
    X = X[:n_rows].tocsr()
    rows, columns = [], []
    for r in range(n_rows):
        features = X.indices[X.indptr[r]:X.indptr[r + 1]].astype(np.int64)
        first, second = np.triu_indices(features.shape[0], 1)
        crossed = np.concatenate([features, (features[first] * 123 + features[second]) * 2654435761 % 2**20])
        rows.append(np.full(crossed.shape[0], r))
        columns.append(crossed)
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    crossed = sp.csr_matrix((np.ones(rows.shape[0]), (rows, columns)), shape=(n_rows, 2**20))
    crossed.sum_duplicates()
    return crossed, y[:n_rows]


def test_rows_of_a_million_sparse_features_give_libsvms_model_and_the_formulas_decisions():
    """Kernel rows of very sparse data are computed by feature (the entries of the row's
    features only) and predictions take parts of support vectors sized by their nonzeros, not
    by their million columns: the model is LIBSVM's, and the decisions are the formula's."""
    from sklearn.svm import SVC as LibsvmSVC

    X, y = _crossed_a9a(1500)
    assert 2**20 == X.shape[1] and 50 < X.nnz / X.shape[0] < 150
    X_train, y_train, X_test = X[:1000], y[:1000], X[1000:]
    ours = SVC(C=1.0, gamma=0.01, tol=1e-6).fit(X_train, y_train)
    oracle = LibsvmSVC(C=1.0, gamma=0.01, tol=1e-6).fit(X_train, y_train)
    np.testing.assert_allclose(ours.decision_function(X_test), oracle.decision_function(X_test), atol=1e-4)
    # (not the same support vectors: LIBSVM splits a multiplier over a9a's copies of one row,
    # svmkit keeps it on one copy)
    np.testing.assert_allclose(ours.intercept_, oracle.intercept_, atol=1e-4)
    # the decisions from the kernel's formula, the squared distances from SciPy's sparse products
    support_vectors = ours.support_vectors_
    distances = (np.asarray(X_test.multiply(X_test).sum(axis=1)) + np.asarray(
        support_vectors.multiply(support_vectors).sum(axis=1)).T - 2.0 * (X_test @ support_vectors.T).toarray())
    expected = np.exp(-0.01 * np.maximum(distances, 0.0)) @ ours.dual_coef_[0] + ours.intercept_[0]
    np.testing.assert_allclose(ours.decision_function(X_test), expected, rtol=1e-12, atol=1e-12)


def test_a_blocked_fit_of_sparse_rows_with_common_features_gives_libsvms_model(caplog):
    """The blocked strategy (a cache of 1 MB) on very sparse rows whose common features (a9a's,
    held by many rows) take most of the products by feature: its kernel rows are BLAS's products
    of those features and compiled loops' of the others, and the model is LIBSVM's and that of
    the Gram strategy (the default cache), whose rows are all compiled loops'."""
    import logging

    from sklearn.svm import SVC as LibsvmSVC
    from svmkit.kernels import RBFKernel
    from svmkit._solver.rows import KernelRows

    X, y = _crossed_a9a(3000)
    X_train, y_train, X_test = X[:2500], y[:2500], X[2500:]
    assert KernelRows(RBFKernel(gamma=0.01), X_train).common_split(np.float32) is not None
    with caplog.at_level(logging.INFO, logger="svmkit"):
        blocked = SVC(C=1.0, gamma=0.01, tol=1e-6, cache_size=1, verbose=True).fit(X_train, y_train)
    assert any(": plan: blocked strategy" in record.message and "rows by common" in record.message
               for record in caplog.records)
    gram = SVC(C=1.0, gamma=0.01, tol=1e-6).fit(X_train, y_train)
    oracle = LibsvmSVC(C=1.0, gamma=0.01, tol=1e-6).fit(X_train, y_train)
    np.testing.assert_allclose(blocked.decision_function(X_test), oracle.decision_function(X_test), atol=1e-4)
    np.testing.assert_allclose(blocked.decision_function(X_test), gram.decision_function(X_test), atol=1e-4)
    np.testing.assert_allclose(blocked.dual_objective_, gram.dual_objective_, rtol=1e-7)


def test_one_vs_one_problems_on_their_own_sparse_rows_with_and_without_common_features_give_libsvms_model(caplog):
    """Four classes of very sparse rows with common features, each one-vs-one problem on a store
    of its own rows (a cache too small for one of all rows): the pairs of at least
    COMMON_FEATURES_MIN_ROWS rows take BLAS's products of their common features, the smaller
    ones compiled loops by feature; each pair's model is LIBSVM's."""
    import logging

    from sklearn.svm import SVC as LibsvmSVC

    X, y = _crossed_a9a(3300)
    labels = 2 * (y > 0) + (X[:, 0].toarray().ravel() > 0)  # (a9a's class and its first feature)
    X_train, labels_train, X_test = X[:3000], labels[:3000], X[3000:]
    sizes = np.bincount(labels_train.astype(int))
    pair_sizes = [sizes[a] + sizes[b] for a in range(4) for b in range(a + 1, 4)]
    assert min(pair_sizes) < 2048 <= max(pair_sizes)
    with caplog.at_level(logging.INFO, logger="svmkit"):
        ours = SVC(C=1.0, gamma=0.01, tol=1e-6, cache_size=30, decision_function_shape="ovo", verbose=True)
        ours.fit(X_train, labels_train)
    assert any("rows per problem), rows by common" in record.message for record in caplog.records)
    oracle = LibsvmSVC(C=1.0, gamma=0.01, tol=1e-6, decision_function_shape="ovo").fit(X_train, labels_train)
    np.testing.assert_allclose(ours.decision_function(X_test), oracle.decision_function(X_test), atol=1e-4)
